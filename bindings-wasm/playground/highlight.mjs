// Colours GCF text for reading, line by line: the header, section lines,
// item ids, keys, cell separators and the missing/absent markers. It only
// decorates; the text itself (textContent) stays byte-identical to the output.

const esc = (s) => s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
const span = (cls, s) => `<span class="${cls}">${esc(s)}</span>`;

function cells(s) {
  return s
    .split('|')
    .map((c) => (c === '~' || c === '^' ? span('tok-mark', c) : esc(c)))
    .join(span('tok-sep', '|'));
}

function line(l, first) {
  if (first && l.startsWith('GCF')) {
    return l
      .split(' ')
      .map((w, i) => {
        if (i === 0) return span('tok-magic', w);
        const f = /^([^=]+=)(.*)$/.exec(w);
        return f ? span('tok-hkey', f[1]) + span('tok-hval', f[2]) : esc(w);
      })
      .join(' ');
  }
  if (l.startsWith('#')) return span('tok-section', l);
  const id = /^(\s*)(@\S+)(\s?)(.*)$/.exec(l);
  if (id) return esc(id[1]) + span('tok-id', id[2]) + id[3] + (id[4].includes('|') ? cells(id[4]) : esc(id[4]));
  const kv = /^(\s*)([^=|\s][^=|]*?)=(.*)$/.exec(l);
  if (kv) return esc(kv[1]) + span('tok-key', kv[2]) + span('tok-sep', '=') + esc(kv[3]);
  if (/^\s*\./.test(l)) return span('tok-attach', l);
  return cells(l);
}

/** HTML for `text`, one span-decorated line per input line. */
export function highlightGcf(text) {
  return text
    .split('\n')
    .map((l, i) => line(l, i === 0))
    .join('\n');
}
