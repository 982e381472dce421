// Real-browser tests (issue 19): headless Chromium, driven by puppeteer-core,
// loads the GCF browser package and the playground from a local static server.
//   (a) every conformance fixture runs in the page through the public API;
//   (b) the playground's GCF text, byte and token counts, decoded JSON and
//       error positions are read back from the DOM and checked against the
//       same engine and js-tiktoken run here in Node;
//   (c) screenshots go to target/browser-test/ (GCF_BROWSER_OUT overrides).
// Run by scripts/test-browser.sh; CHROMIUM names the browser binary.
import { test as nodeTest, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { startServer, conformanceDir, REPO } from './server.mjs';
import { runFixtures } from './conformance.mjs';

// `node --test test/` in bindings-wasm runs every module under test/, this
// one included. The suite needs Chromium and the npm packages that
// scripts/test-browser.sh installs, so it runs when that script asks
// (GCF_BROWSER_TESTS=1) and is reported as skipped otherwise; its imports
// beyond node: builtins and this folder are dynamic for the same reason.
const ENABLED = process.env.GCF_BROWSER_TESTS === '1';
const test = (name, fn) => nodeTest(name, { skip: !ENABLED && 'run by scripts/test-browser.sh' }, fn);

let puppeteer, gcf, ready, engineName, EXAMPLES, stringify, toPlain, loadTokenizer, countTokens, countBytes;
if (ENABLED) {
  ({ default: puppeteer } = await import('puppeteer-core'));
  ({ default: gcf, ready, engineName } = await import('../../playground/engine.mjs'));
  ({ EXAMPLES } = await import('../../playground/examples.mjs'));
  ({ stringify, toPlain } = await import('../../playground/json.mjs'));
  ({ loadTokenizer, countTokens, countBytes } = await import('../../playground/tokens.mjs'));
}

const OUT = process.env.GCF_BROWSER_OUT || path.join(REPO, 'target', 'browser-test');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const PLAYGROUND = '/bindings-wasm/playground/';
const BIG = { largeInt: 'bigint' };

let server;
let origin;
let browser;
const pageErrors = [];

before(async () => {
  if (!ENABLED) return;
  fs.mkdirSync(OUT, { recursive: true });
  await ready;
  await loadTokenizer();
  ({ server, origin } = await startServer(0));
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // root in a container: no sandbox; no GPU on CI machines.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

async function openPage(url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1440, height: 900, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => pageErrors.push(`${url}: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && pageErrors.push(`${url}: console: ${m.text()}`));
  await page.goto(origin + url, { waitUntil: 'load' });
  return page;
}

// ------------------------------------------------------------------ (a) ---

function readFixtures() {
  const dir = conformanceDir();
  const walk = (d) =>
    fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(d, e.name);
      if (e.isDirectory()) return walk(p);
      return e.name.endsWith('.json') ? [path.relative(dir, p).split(path.sep).join('/')] : [];
    });
  return walk(dir)
    .sort()
    .map((p) => ({ path: p, text: fs.readFileSync(path.join(dir, p), 'utf8') }));
}

test('every conformance fixture runs in the page through the public API', async () => {
  const page = await openPage('/bindings-wasm/test/browser/conformance.html');
  await page.waitForFunction(() => window.gcfConformance, { timeout: 120_000 });
  const got = await page.evaluate(() => window.gcfConformance);
  await page.close();
  assert.equal(got.error, undefined, got.error);
  fs.writeFileSync(path.join(OUT, 'conformance.json'), JSON.stringify(got, null, 2));

  const fixtures = readFixtures();
  assert.ok(fixtures.length >= 281, `${fixtures.length} fixtures`);
  assert.equal(got.total, fixtures.length, 'the page saw every fixture');
  assert.equal(got.passed + got.failed.length, fixtures.length, 'no fixture left out');
  const summary = `${got.engineName} in Chromium: ${got.passed} passed, ${got.failed.length} failed`;
  process.stdout.write(`# ${summary}\n`);
  for (const f of got.failed) process.stdout.write(`#   ${f.path} (${f.operation}): ${f.why}\n`);

  assert.deepEqual(got.wasm, ['/bindings-wasm/package/wasm/web/gcf_wasm_bg.wasm'], 'the page ran the WebAssembly engine');
  assert.deepEqual(got.failed, [], summary);
  assert.deepEqual(got.missing, {}, 'the package exports every API the fixtures use');
  assert.equal(got.passed, fixtures.length);
  // The same runner over the same package in Node gives the same answers.
  const node = runFixtures(gcf, fixtures);
  assert.deepEqual([node.passed, node.failed], [got.passed, got.failed], 'the page and Node agree');
});

// ------------------------------------------------------------------ (b) ---

// What the page should show for `value`, computed here in Node.
function expected(value, { profile, flatten = true, constantColumns = false }) {
  const text = profile === 'graph' ? gcf.encode(toPlain(value)) : gcf.encodeGeneric(value, { noFlatten: !flatten, constantColumns });
  const compact = stringify(value);
  const pretty = stringify(value, 2);
  const decoded = profile === 'graph' ? gcf.decode(text) : gcf.decodeGeneric(text, BIG);
  const pct = (base) => `${((1 - countTokens(text) / countTokens(base)) * 100).toFixed(1)}%`;
  return {
    gcf: text,
    decoded: stringify(decoded, 2),
    counts: {
      'json-compact-bytes': countBytes(compact),
      'json-compact-tokens': countTokens(compact),
      'json-pretty-bytes': countBytes(pretty),
      'json-pretty-tokens': countTokens(pretty),
      'gcf-bytes': countBytes(text),
      'gcf-tokens': countTokens(text),
    },
    savings: pct(compact),
    savingsPretty: pct(pretty),
    savingsTokens: countTokens(compact) - countTokens(text),
    savingsBytes: countBytes(compact) - countBytes(text),
  };
}

async function shown(page) {
  return page.evaluate(() => {
    const t = (id) => document.getElementById(id).textContent;
    const n = (id) => Number(t(id).replace(/,/g, ''));
    const ids = ['json-compact-bytes', 'json-compact-tokens', 'json-pretty-bytes', 'json-pretty-tokens', 'gcf-bytes', 'gcf-tokens'];
    return {
      gcf: t('gcf-output'),
      decoded: t('decoded-output'),
      counts: Object.fromEntries(ids.map((id) => [id, n(id)])),
      savings: t('savings'),
      savingsPretty: t('savings-pretty'),
      savingsTokens: n('savings-tokens'),
      savingsBytes: n('savings-bytes'),
      mode: t('input-mode'),
      profile: document.querySelector('input[name=profile]:checked').value,
      error: document.getElementById('error').hidden ? null : t('error-category'),
    };
  });
}

// Types `text` into the editor the way a paste would arrive: one input event.
async function paste(page, text) {
  await page.$eval(
    '#input',
    (el, value) => {
      el.value = value;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    text,
  );
  await settle(page);
}

// The page re-renders 120 ms after the last input event.
const settle = (page) => new Promise((r) => setTimeout(r, 400)).then(() => page.evaluate(() => new Promise(requestAnimationFrame)));

async function openPlayground() {
  const page = await openPage(PLAYGROUND);
  await page.waitForFunction(() => document.body.dataset.ready, { timeout: 60_000 });
  assert.equal(await page.evaluate(() => document.body.dataset.ready), 'true', 'the playground started');
  return page;
}

async function errorShown(page) {
  return page.evaluate(() => {
    const t = (id) => document.getElementById(id).textContent;
    const band = document.getElementById('error-band');
    const gutterErr = document.querySelector('#gutter .err');
    return {
      visible: !document.getElementById('error').hidden,
      category: t('error-category'),
      message: t('error-message'),
      line: Number(t('error-line')) || null,
      column: Number(t('error-column')) || null,
      bandLine: band.hidden ? null : Number(band.style.getPropertyValue('--line')) + 1,
      gutterLine: gutterErr ? Number(gutterErr.textContent) : null,
    };
  });
}

test('the playground shows what the engine and o200k_base give in Node, for every example', async () => {
  const page = await openPlayground();
  for (const [name, ex] of Object.entries(EXAMPLES)) {
    await page.click(`[data-example=${name}]`);
    await settle(page);
    const got = await shown(page);
    const want = expected(gcf.parseJSONOrdered(ex.text, BIG), { profile: ex.profile });
    assert.equal(got.error, null, `${name}: no error`);
    assert.equal(got.profile, ex.profile, `${name}: profile`);
    assert.equal(got.mode, 'JSON');
    assert.equal(got.gcf, want.gcf, `${name}: GCF text`);
    assert.deepEqual(got.counts, want.counts, `${name}: byte and token counts`);
    assert.equal(got.savings, want.savings, `${name}: savings`);
    assert.equal(got.savingsPretty, want.savingsPretty, `${name}: savings vs pretty`);
    assert.equal(got.savingsTokens, want.savingsTokens, `${name}: tokens saved`);
    assert.equal(got.savingsBytes, want.savingsBytes, `${name}: bytes saved`);
    assert.equal(got.decoded, want.decoded, `${name}: decoded JSON`);
    assert.ok(want.counts['gcf-tokens'] < want.counts['json-compact-tokens'], `${name}: GCF is smaller`);
  }
  await page.close();
});

test('the profile and the options change the GCF the way the API does', async () => {
  const page = await openPlayground();
  await page.click('[data-example=records]');
  await settle(page);
  const value = gcf.parseJSONOrdered(EXAMPLES.records.text, BIG);

  const plainGcf = expected(value, { profile: 'generic' }).gcf;

  await page.click('#opt-flatten');
  await settle(page);
  const unflattened = expected(value, { profile: 'generic', flatten: false }).gcf;
  assert.notEqual(unflattened, plainGcf, 'the example has nested objects to flatten');
  assert.equal((await shown(page)).gcf, unflattened, 'flattening off');
  await page.click('#opt-flatten');
  await page.click('#opt-constant');
  await settle(page);
  const factored = expected(value, { profile: 'generic', constantColumns: true }).gcf;
  assert.notEqual(factored, plainGcf, 'the example has a constant column');
  assert.equal((await shown(page)).gcf, factored, 'constant columns on');
  await page.screenshot({ path: path.join(OUT, 'playground-records-constant-columns.png') });
  await page.click('#opt-constant');

  await page.click('[data-example=graph]');
  await settle(page);
  const graph = gcf.parseJSONOrdered(EXAMPLES.graph.text, BIG);
  await page.click('input[name=profile][value=generic] + span');
  await settle(page);
  assert.equal((await shown(page)).gcf, expected(graph, { profile: 'generic' }).gcf, 'the code graph in the generic profile');
  assert.equal(await page.$eval('#opt-flatten', (el) => el.disabled), false);
  await page.click('input[name=profile][value=graph] + span');
  await settle(page);
  assert.equal((await shown(page)).gcf, expected(graph, { profile: 'graph' }).gcf, 'and back in the graph profile');
  assert.equal(await page.$eval('#opt-flatten', (el) => el.disabled), true, 'the generic options are off for graphs');

  // Records as GCF in the input: the header picks the profile, the JSON comes back.
  const wire = gcf.encodeGeneric(value);
  await paste(page, wire);
  const got = await shown(page);
  assert.equal(got.mode, 'GCF');
  assert.equal(got.profile, 'generic');
  assert.equal(got.error, null);
  assert.equal(got.decoded, stringify(gcf.decodeGeneric(wire, BIG), 2));

  // Copy puts the exact GCF text (not the coloured markup) on the clipboard.
  await browser.defaultBrowserContext().overridePermissions(origin, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  await page.click('[data-example=keyed]');
  await settle(page);
  await page.click('#copy');
  await page.waitForFunction(() => document.getElementById('copy').textContent !== 'Copy');
  assert.equal(await page.$eval('#copy', (el) => el.textContent), 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), expected(gcf.parseJSONOrdered(EXAMPLES.keyed.text, BIG), { profile: 'generic' }).gcf);

  // A file dropped on the editor replaces the input.
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'services.json', { type: 'application/json' }));
    document.getElementById('editor').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, EXAMPLES.keyed.text);
  await settle(page);
  assert.equal(await page.$eval('#input', (el) => el.value), EXAMPLES.keyed.text);
  assert.equal((await shown(page)).gcf, expected(gcf.parseJSONOrdered(EXAMPLES.keyed.text, BIG), { profile: 'generic' }).gcf, 'the dropped file');
  await page.close();
});

test('errors are shown at their line and column, with the category', async () => {
  const page = await openPlayground();

  // A stray character typed into the records example's JSON (line 5, after
  // the comma), the way a user would: keys, not a value swap.
  await page.click('[data-example=records]');
  await settle(page);
  await page.focus('#input');
  await page.$eval('#input', (el) => el.setSelectionRange(0, 0));
  for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  await page.keyboard.type('x');
  await settle(page);
  const line5 = EXAMPLES.records.text.split('\n')[4];
  const json = await errorShown(page);
  assert.ok(json.visible, 'the error box is shown');
  assert.equal(json.line, 5, `JSON error line (${json.message})`);
  assert.equal(json.column, line5.length + 1, `JSON error column (${json.message})`);
  assert.equal(json.bandLine, 5, 'the input line is highlighted');
  assert.equal(json.gutterLine, 5, 'the line number is marked');
  assert.equal(json.category, 'SyntaxError', 'a JSON syntax error is named as such');
  assert.ok(json.message.length > 0);
  await page.screenshot({ path: path.join(OUT, 'playground-json-error.png') });

  // A GCF input with a bad escape on its third line.
  const bad = 'GCF profile=generic\nname=ok\nnote="a\\qb"\n';
  await paste(page, bad);
  const g = await errorShown(page);
  assert.ok(g.visible);
  assert.equal(g.category, 'invalid_escape', g.message);
  let want;
  try {
    gcf.decodeGeneric(bad, BIG);
  } catch (e) {
    want = e;
  }
  assert.ok(want, 'Node agrees that the text is malformed');
  assert.equal(want.category, 'invalid_escape');
  // The page shows the engine's position: line 3, at the backslash.
  assert.deepEqual([want.line, want.column], [3, 8], 'the engine\'s position');
  assert.equal(g.line, 3, 'GCF error line');
  assert.equal(g.column, 8, 'GCF error column');
  assert.equal(g.bandLine, 3, 'the input line is highlighted');
  assert.equal(g.gutterLine, 3, 'the line number is marked');
  await page.screenshot({ path: path.join(OUT, 'playground-gcf-error.png') });

  // Records are no code graph: an encoding error, which has no input position.
  await page.click('[data-example=records]');
  await settle(page);
  await page.click('input[name=profile][value=graph] + span');
  await settle(page);
  const enc = await errorShown(page);
  assert.ok(enc.visible);
  assert.equal(enc.category, 'not_a_graph');
  assert.equal(enc.line, null);
  assert.equal(enc.bandLine, null, 'no input line is highlighted');
  await page.click('input[name=profile][value=generic] + span');
  await settle(page);
  assert.equal((await errorShown(page)).visible, false, 'the error goes with its cause');
  await page.close();
});

// ------------------------------------------------------------------ (c) ---

test('screenshots of the playground', async () => {
  const page = await openPlayground();
  for (const name of Object.keys(EXAMPLES)) {
    await page.click(`[data-example=${name}]`);
    await settle(page);
    const file = path.join(OUT, `playground-${name}.png`);
    await page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 20_000, `${file} has content`);
  }
  await page.close();
  process.stdout.write(`# screenshots in ${path.relative(REPO, OUT)}/ (engine: ${engineName})\n`);
});

test('no page threw or logged an error', () => {
  assert.deepEqual(pageErrors, []);
});
