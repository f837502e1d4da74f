// The inspector's Memory view in headless Chromium, against fixtures/v1/memory.sgpt
// (format/src/fixtures.rs: three domains, eight frames of gauges, one memory record with
// the checkpoints loaded, unloaded and end). The numbers match `sgpt memory`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchChromium } from './chromium.mjs';
import { openPage, outcome, paintedPixels, showTab, tableRows } from './inspector_helpers.mjs';

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const sp = '\u2009';

test('the memory view shows domains, gauge sparklines and checkpoint survivors', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/memory.sgpt');
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  await showTab(page, 'memory');
  const domains = await tableRows(page, '#memory-domains');
  assert.deepEqual(domains, [
    ['scene', `5${sp}120 B`, `5${sp}120 B`, `10${sp}240 B`, `5${sp}120 B`, '4', '2', '0', 'valid'],
    ['particles', '768 B', '768 B', '768 B', '0 B', '2', '0', '0', 'valid'],
    ['scratch', '0 B', '64 B', '64 B', '64 B', '1', '1', '1', 'valid'],
  ]);
  const text = await page.textContent('[data-testid=memory]');
  assert.ok(
    text.includes(`Checkpoint loaded → end: new live 3 (5${sp}632 B), released 2 (5${sp}120 B), survivors 1 (256 B)`),
    text,
  );
  assert.equal(await page.$$eval('[data-testid=memory] .warning', (w) => w.length), 0, 'no loss banner');
  // The last table of survivors belongs to loaded → end: the particle block, 9 operations old.
  const survivors = await page.$$('[data-testid=memory] table.memory-survivors');
  assert.equal(survivors.length, 3);
  const last = await survivors[2].$$eval('tbody tr', (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(last, [['(1, 3)', 'particles', 'demo/src/particles.rs:17:5', '256 B', `9 ops / 9${sp}000 ticks`]]);
  assert.equal(await page.$$eval('canvas.memory-spark', (c) => c.length), 3);
  await page.waitForFunction(() => document.querySelector('canvas.memory-spark').width > 100);
  assert.ok((await paintedPixels(page, 'canvas.memory-spark')) > 50, 'the scene series is painted');
  assert.deepEqual(problems, []);
});

test('a capture without memory data keeps the plain message', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt#tab=memory');
  await outcome(page);
  await page.waitForFunction(() => document.body.dataset.tab === 'memory');
  assert.equal((await page.textContent('[data-testid=memory]')).trim(), 'No memory records in this capture.');
  assert.deepEqual(problems, []);
});
