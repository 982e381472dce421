// Generic encode of real JSON files: this package against 2.5.2 (the
// `gcf-reference` devDependency), with the default options and with
// `noFlatten`; and graph encode of the graph payloads among them (those of
// scripts/corpus/code_graphs.py). Run by scripts/corpus-diff.sh:
//
//   node scripts/corpus/node.cjs <file listing JSON paths, one per line>
//
// Texts must be byte-identical, each package must read the text back to the
// input (Maps compared in order), and a refusal must be mutual with the same
// error class. Differences the README lists are counted by class; anything
// else is printed and fails the run.
'use strict';
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..', '..', 'bindings-node');
const ours = require(root);
const ref = require(path.join(root, 'node_modules', 'gcf-reference'));

const listing = process.argv[2];
if (!listing) {
  console.error('usage: node scripts/corpus/node.cjs <file listing JSON paths>');
  process.exit(2);
}

// `text` with every number token replaced by the bits of the double it names:
// texts that differ only in how they spell the same doubles compare equal.
function sameDoubles(text) {
  // JSON's number grammar only: `007` or `1.` stay text, so a number written
  // as a string elsewhere (or the reverse) still shows.
  return text.replace(/(?<![0-9A-Za-z.+-])-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9A-Za-z.+-])/g, (token) => {
    const x = Number(token);
    if (Number.isNaN(x)) return token;
    const bits = new DataView(new ArrayBuffer(8));
    bits.setFloat64(0, x);
    return `<${bits.getBigUint64(0).toString(16)}>`;
  });
}

function sameValue(a, b) {
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    const ka = [...a.keys()];
    const kb = [...b.keys()];
    return ka.every((k, i) => k === kb[i] && sameValue(a.get(k), b.get(k)));
  }
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  }
  return Object.is(a, b);
}

const attempt = (f) => {
  try {
    return { value: f() };
  } catch (error) {
    return { error };
  }
};

const counts = new Map();
let unlisted = 0;
let files = 0;
let graphs = 0;
const seen = new Set();
const count = (what) => counts.set(what, (counts.get(what) || 0) + 1);
const report = (file, what, detail) => {
  unlisted += 1;
  if (unlisted <= 20) console.log(`DIFF ${what} ${file}\n  ${detail}`);
};

// Where two different texts part, with the text around it in each.
function where(ours, theirs) {
  let at = 0;
  while (at < ours.length && ours[at] === theirs[at]) at += 1;
  const around = (s) => JSON.stringify(s.slice(Math.max(0, at - 100), at + 100));
  return `at ${at}\n  ours:  ${around(ours)}\n  2.5.2: ${around(theirs)}`;
}

function compareGraph(file, payload) {
  const a = attempt(() => ours.encode(payload));
  const b = attempt(() => ref.encode(payload));
  if (a.error || b.error) {
    report(file, 'graph', `ours: ${a.error ? a.error.message : 'encoded'}; 2.5.2: ${b.error ? b.error.message : 'encoded'}`);
    return;
  }
  const back = attempt(() => ours.decode(a.value));
  if (back.error) {
    report(file, 'graph', `ours does not read its text back: ${back.error.message}`);
  } else if (a.value === b.value) {
    const theirs = attempt(() => ref.decode(b.value));
    if (theirs.error || JSON.stringify(theirs.value) !== JSON.stringify(back.value)) {
      report(file, 'graph', 'identical texts decode differently');
    } else {
      count('graph: identical');
    }
  } else if (new Set(payload.symbols.map((s) => s.qualifiedName)).size < payload.symbols.length) {
    // Listed: each copy of a repeated name gets its own id here; 2.5.2
    // writes every copy with the last one's.
    count('graph: a repeated name (an id per symbol here)');
  } else {
    report(file, 'graph', where(a.value, b.value));
  }
}

for (const file of fs.readFileSync(listing, 'utf8').split('\n').filter(Boolean)) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  // Copies of one file count once; a digest keeps memory flat.
  const digest = crypto.createHash('sha256').update(text).digest('base64');
  if (seen.has(digest)) continue;
  seen.add(digest);
  let input;
  try {
    input = JSON.parse(text);
  } catch {
    continue;
  }
  files += 1;
  if (input !== null && typeof input === 'object' && Array.isArray(input.symbols)) {
    graphs += 1;
    compareGraph(file, input);
  }
  for (const [label, options] of [['default', undefined], ['noFlatten', { noFlatten: true }]]) {
    const a = attempt(() => ours.encodeGeneric(input, options));
    const b = attempt(() => ref.encodeGeneric(input, options));
    if (a.error || b.error) {
      if (a.error && b.error && a.error.constructor.name === b.error.constructor.name) {
        count(`${label}: both refused`);
      } else {
        report(file, label, `ours: ${a.error ? a.error.message : 'encoded'}; 2.5.2: ${b.error ? b.error.message : 'encoded'}`);
      }
      continue;
    }
    const back = attempt(() => ours.decodeGeneric(a.value));
    if (back.error) {
      report(file, label, `ours does not read its text back: ${back.error.message}`);
      continue;
    }
    if (a.value === b.value) {
      const theirs = attempt(() => ref.decodeGeneric(b.value));
      if (theirs.error && /^ *"[^"\n]*\[[^"\n]*"\[/m.test(a.value)) {
        // Listed: a quoted key holding `[` before an array's count.
        count(`${label}: identical; 2.5.2 cannot read a quoted key holding [`);
      } else if (theirs.error) {
        report(file, label, `2.5.2 does not read the (identical) text back: ${theirs.error.message}`);
      } else if (!sameValue(back.value, theirs.value)) {
        report(file, label, 'identical texts decode differently');
      } else {
        count(`${label}: identical`);
      }
    } else if (sameDoubles(a.value) === sameDoubles(b.value)) {
      // Listed: an integral double past 2^53 is `5e+18` here, digits in 2.5.2.
      count(`${label}: same doubles, other digits (integral doubles past 2^53)`);
    } else {
      report(file, label, where(a.value, b.value));
    }
  }
}
console.log(`${files} distinct JSON files, each encoded twice (default, noFlatten); the ${graphs} graph payloads among them also as graphs:`);
for (const [what, n] of [...counts].sort()) console.log(`  ${what}: ${n}`);
if (unlisted > 0) {
  console.log(`${unlisted} unlisted differences`);
  process.exit(1);
}
