// The playground page: input (JSON or GCF) -> value -> GCF text, decoded back
// to JSON, with byte and token counts for each form. All GCF work goes
// through engine.mjs; this module only reads the DOM and writes it.
import gcf, { ready, engineName } from './engine.mjs';
import { EXAMPLES } from './examples.mjs';
import { stringify, toPlain } from './json.mjs';
import { loadTokenizer, countTokens, countBytes } from './tokens.mjs';
import { highlightGcf } from './highlight.mjs';

const $ = (id) => document.getElementById(id);
const input = $('input');
const BIG = { largeInt: 'bigint' };

const state = { profile: 'generic', tokenizer: false };

// ---------------------------------------------------------------- errors ---

// Where an error is, as { line, column } (1-based), from the engine's GcfError
// or, for JSON syntax errors of an engine that gives no position, from the
// browser's own JSON.parse message ("... (line 3 column 5)" / "at position 41").
function positionOf(err, text, stage) {
  if (Number.isInteger(err.line)) return { line: err.line, column: Number.isInteger(err.column) ? err.column : null };
  const m = /\(line (\d+),? column (\d+)\)/.exec(err.message || '');
  if (m) return { line: +m[1], column: +m[2] };
  if (stage !== 'json') return { line: null, column: null };
  try {
    JSON.parse(text);
  } catch (e) {
    const lc = /line (\d+) column (\d+)/.exec(e.message);
    if (lc) return { line: +lc[1], column: +lc[2] };
    const at = /position (\d+)/.exec(e.message);
    if (at) {
      const before = text.slice(0, +at[1]).split('\n');
      return { line: before.length, column: before[before.length - 1].length + 1 };
    }
  }
  return { line: null, column: null };
}

function describe(err, text, stage) {
  const raw = String(err.message || err);
  const prefix = /^([a-z][a-z0-9_]*):\s*/.exec(raw);
  // The spec's category when the engine gives one; a JSON syntax error is the parser's SyntaxError.
  const category = err.category || (prefix ? prefix[1] : err.name || 'error');
  let message = err.detail || (prefix && prefix[1] === category ? raw.slice(prefix[0].length) : raw);
  message = message.replace(/\s*\(line \d+(, column \d+)?\)$/, '');
  // Positions of the encode and decode stages are not positions in the input.
  const where = stage === 'json' || stage === 'gcf' ? positionOf(err, text, stage) : { line: null, column: null };
  return { stage, category, message, ...where };
}

// ------------------------------------------------------------- pipeline ---

const isGcfText = (t) => /^GCF[ \n]/.test(t);

function encodeValue(value) {
  if (state.profile === 'graph') {
    const payload = toPlain(value);
    if (!payload || typeof payload !== 'object' || !Array.isArray(payload.symbols)) {
      throw Object.assign(new Error('the graph profile takes a code-graph payload: an object with "symbols" (and "edges")'), { category: 'not_a_graph' });
    }
    return gcf.encode(payload);
  }
  return gcf.encodeGeneric(value, { noFlatten: !$('opt-flatten').checked, constantColumns: $('opt-constant').checked });
}

function decodeText(text) {
  return /^GCF profile=graph\b/.test(text) ? gcf.decode(text) : gcf.decodeGeneric(text, BIG);
}

// Runs the whole pipeline on the input text; every stage that fails stops it
// and says where.
function compute(text) {
  const out = { mode: isGcfText(text) ? 'gcf' : 'json' };
  let stage = out.mode;
  try {
    if (out.mode === 'gcf') {
      out.value = decodeText(text);
      state.profile = /^GCF profile=graph\b/.test(text) ? 'graph' : 'generic';
    } else {
      out.value = gcf.parseJSONOrdered(text, BIG);
    }
    stage = 'encode';
    out.gcf = encodeValue(out.value);
    stage = 'decode';
    out.decoded = decodeText(out.gcf);
  } catch (err) {
    out.error = describe(err, text, stage);
    if (stage === 'decode') out.error.message += ' (decoding the encoder’s own output)';
    return out;
  }
  out.jsonCompact = stringify(out.value);
  out.jsonPretty = stringify(out.value, 2);
  out.decodedJson = stringify(out.decoded, 2);
  out.roundTrip = state.profile === 'generic' ? stringify(out.decoded) === out.jsonCompact : null;
  return out;
}

// ---------------------------------------------------------------- render ---

const fmt = (n) => (n == null ? '…' : n.toLocaleString('en-US'));

function setStat(id, text) {
  $(`${id}-bytes`).textContent = fmt(countBytes(text));
  $(`${id}-tokens`).textContent = fmt(countTokens(text));
}

// Percent of `base` tokens that GCF saves, one decimal (the tests format alike).
const percentSaved = (gcfTokens, base) => `${(base ? (1 - gcfTokens / base) * 100 : 0).toFixed(1)}%`;

function renderStats(r) {
  setStat('json-compact', r.jsonCompact);
  setStat('json-pretty', r.jsonPretty);
  setStat('gcf', r.gcf);
  const gcfTokens = countTokens(r.gcf);
  const compactTokens = countTokens(r.jsonCompact);
  const ready = gcfTokens != null;
  $('savings').textContent = ready ? percentSaved(gcfTokens, compactTokens) : '…';
  $('savings-pretty').textContent = ready ? percentSaved(gcfTokens, countTokens(r.jsonPretty)) : '…';
  $('savings-tokens').textContent = ready ? fmt(compactTokens - gcfTokens) : '…';
  $('savings-bytes').textContent = fmt(countBytes(r.jsonCompact) - countBytes(r.gcf));
}

function renderError(e) {
  const box = $('error');
  const band = $('error-band');
  if (!e) {
    box.hidden = true;
    band.hidden = true;
    document.body.classList.remove('has-error');
    return;
  }
  document.body.classList.add('has-error');
  box.hidden = false;
  $('roundtrip').hidden = true;
  $('error-category').textContent = e.category;
  $('error-message').textContent = e.message;
  $('error-stage').textContent = { json: 'JSON input', gcf: 'GCF input', encode: 'encoding', decode: 'decoding' }[e.stage];
  $('error-line').textContent = e.line ?? '–';
  $('error-column').textContent = e.column ?? '–';
  $('error-where').hidden = e.line == null;
  band.hidden = e.line == null;
  if (e.line != null) {
    band.style.setProperty('--line', e.line - 1);
    band.style.setProperty('--column', (e.column || 1) - 1);
    band.classList.toggle('no-column', e.column == null);
    scrollToLine(e.line);
  }
  renderGutter();
}

function render() {
  const text = input.value;
  renderGutter();
  if (!text.trim()) {
    renderError(null);
    $('gcf-output').textContent = '';
    $('decoded-output').textContent = '';
    return;
  }
  const r = compute(text);
  $('input-mode').textContent = r.mode === 'gcf' ? 'GCF' : 'JSON';
  for (const radio of document.querySelectorAll('input[name=profile]')) radio.checked = radio.value === state.profile;
  syncOptions();
  document.body.classList.toggle('input-gcf', r.mode === 'gcf');
  renderError(r.error);
  if (r.error) return;
  $('gcf-output').innerHTML = highlightGcf(r.gcf);
  $('gcf-output').dataset.text = r.gcf;
  $('decoded-output').textContent = r.decodedJson;
  const badge = $('roundtrip');
  badge.hidden = r.roundTrip == null;
  badge.textContent = r.roundTrip ? '✓ same value as the input' : '✗ differs from the input';
  badge.classList.toggle('bad', r.roundTrip === false);
  renderStats(r);
}

// ---------------------------------------------------------------- editor ---

function renderGutter() {
  const lines = input.value.split('\n').length;
  const errLine = document.body.classList.contains('has-error') && !$('error-band').hidden ? Number($('error-line').textContent) : 0;
  let html = '';
  for (let i = 1; i <= lines; i++) html += i === errLine ? `<span class="err">${i}</span>\n` : `${i}\n`;
  $('gutter').innerHTML = html;
  syncScroll();
}

function syncScroll() {
  $('gutter').style.transform = `translateY(${-input.scrollTop}px)`;
  $('error-band').style.setProperty('--scroll-top', `${input.scrollTop}px`);
  $('error-band').style.setProperty('--scroll-left', `${input.scrollLeft}px`);
}

function scrollToLine(line) {
  const lh = parseFloat(getComputedStyle(input).lineHeight);
  const top = (line - 1) * lh;
  if (top < input.scrollTop || top > input.scrollTop + input.clientHeight - 2 * lh) input.scrollTop = Math.max(0, top - input.clientHeight / 3);
}

function syncOptions() {
  const generic = state.profile === 'generic';
  for (const id of ['opt-constant', 'opt-flatten']) $(id).disabled = !generic;
  document.body.dataset.profile = state.profile;
}

function loadExample(name) {
  const ex = EXAMPLES[name];
  state.profile = ex.profile;
  input.value = ex.text;
  input.scrollTop = 0;
  for (const b of document.querySelectorAll('[data-example]')) b.classList.toggle('active', b.dataset.example === name);
  render();
}

let timer = 0;
function scheduleRender() {
  clearTimeout(timer);
  timer = setTimeout(render, 120);
}

// ----------------------------------------------------------------- wiring ---

function wire() {
  input.addEventListener('input', () => {
    for (const b of document.querySelectorAll('[data-example]')) b.classList.remove('active');
    scheduleRender();
  });
  input.addEventListener('scroll', syncScroll);
  for (const b of document.querySelectorAll('[data-example]')) b.addEventListener('click', () => loadExample(b.dataset.example));
  for (const radio of document.querySelectorAll('input[name=profile]')) {
    radio.addEventListener('change', () => {
      state.profile = radio.value;
      render();
    });
  }
  for (const id of ['opt-constant', 'opt-flatten']) $(id).addEventListener('change', render);
  $('copy').addEventListener('click', async () => {
    const button = $('copy');
    try {
      await navigator.clipboard.writeText($('gcf-output').dataset.text || '');
      button.textContent = 'Copied';
    } catch {
      // No clipboard outside secure contexts (http:// other than localhost).
      button.textContent = 'Copy failed';
    }
    setTimeout(() => (button.textContent = 'Copy'), 1200);
  });

  const editor = $('editor');
  editor.addEventListener('dragover', (e) => {
    e.preventDefault();
    editor.classList.add('dropping');
  });
  editor.addEventListener('dragleave', () => editor.classList.remove('dropping'));
  editor.addEventListener('drop', async (e) => {
    e.preventDefault();
    editor.classList.remove('dropping');
    const file = e.dataTransfer.files[0];
    if (file) {
      input.value = await file.text();
      render();
    }
  });
}

async function main() {
  $('engine').textContent = engineName;
  wire();
  await ready;
  loadExample('records');
  await loadTokenizer();
  state.tokenizer = true;
  document.body.dataset.tokenizer = 'ready';
  render();
  document.body.dataset.ready = 'true';
}

main().catch((err) => {
  document.body.dataset.ready = 'failed';
  $('error').hidden = false;
  $('error-category').textContent = 'startup';
  $('error-message').textContent = String(err && err.stack ? err.stack : err);
});
