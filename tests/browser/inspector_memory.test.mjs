// The inspector's Memory view and the memory lane under the frame strip, in headless
// Chromium, against fixtures/v1/memory.sgpt (a frozen v1 record, see fixtures/README.md:
// three domains, eight frames of gauges, one memory record with the checkpoints loaded,
// unloaded and end) and
// against `sgpt synth --memory` captures (providers, one unavailable; sampled gauges).
// The numbers match `sgpt memory`: both come from sgpt_format::memory_analysis.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumForFile } from './chromium.mjs';
import {
  assertSliced,
  grouped,
  laneReadout,
  memoryCapture,
  openPage,
  outcome,
  paintedPixels,
  pointAtFrame,
  reopen,
  showTab,
  slicesByJob,
  tableRows,
  waitData,
  watchSlices,
} from './inspector_helpers.mjs';

const browser = chromiumForFile();

const sp = '\u2009';

async function openMemoryFixture(t) {
  const opened = await openPage(browser, t, '?file=/captures/memory.sgpt');
  const shown = await outcome(opened.page);
  assert.equal(shown.state, 'ready', shown.error);
  await waitData(opened.page, 'memory', 'ready');
  return opened;
}

test('the memory view shows domains, gauge sparklines and checkpoint survivors', async (t) => {
  const { page, problems } = await openMemoryFixture(t);
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

test('sites, allocation sizes and reconciliation read as sgpt memory reports them', async (t) => {
  const { page, problems } = await openMemoryFixture(t);
  await showTab(page, 'memory');
  assert.deepEqual(await tableRows(page, '#memory-sites'), [
    ['scene load', 'demo/src/scene.rs:42:9', '4', `10${sp}240 B`, '2', `5${sp}120 B`, '0'],
    ['#2', 'demo/src/particles.rs:17:5', '2', '768 B', '0', '0 B', '0'],
    ['scratch', 'demo/src/frame.rs:88:13', '1', '64 B', '1', '64 B', '1'],
  ]);
  assert.deepEqual(await tableRows(page, '#memory-sizes'), [
    ['64 B', '127 B', '1', '64 B'],
    ['256 B', '511 B', '1', '256 B'],
    ['512 B', `1${sp}023 B`, '1', '512 B'],
    [`1${sp}024 B`, `2${sp}047 B`, '2', `2${sp}048 B`],
    [`4${sp}096 B`, `8${sp}191 B`, '2', `8${sp}192 B`],
  ]);
  const status = await page.$eval('[data-testid=memory-reconciliation]', (p) => [p.dataset.status, p.textContent]);
  assert.deepEqual(status, [
    'exact',
    'Reconciliation exact: per domain, the checked counters, the terminal live set and the journal agree.',
  ]);
  assert.deepEqual(await tableRows(page, '#memory-reconciliation'), [
    ['scene', `5${sp}120 B`, `5${sp}120 B`, `5${sp}120 B`],
    ['particles', '768 B', '768 B', '768 B'],
    ['scratch', '0 B', '0 B', '0 B'],
  ]);
  // The fixture declares no provider: no table claims one.
  assert.equal(await page.$('#memory-providers'), null);
  assert.deepEqual(problems, []);
});

test('the memory lane under the strip reads each domain at a frame and shares the brush', async (t) => {
  const { page, problems } = await openMemoryFixture(t);
  assert.equal(await page.evaluate(() => document.body.dataset.memoryLane), 'shown');
  assert.equal(await page.$eval('#memory-lane', (c) => c.hidden), false);
  await page.waitForFunction(() => document.getElementById('memory-lane').width > 100);
  assert.ok((await paintedPixels(page, '#memory-lane')) > 200, 'three lines are painted');
  // Directly under the strip, as wide.
  const [strip, lane] = await page.$$eval('#frame-strip, #memory-lane', (cs) => cs.map((c) => c.getBoundingClientRect().toJSON()));
  assert.equal(lane.width, strip.width);
  assert.equal(lane.x, strip.x);
  assert.ok(lane.y >= strip.y + strip.height && lane.y - (strip.y + strip.height) < 8, `${lane.y} under ${strip.y + strip.height}`);
  const legend = await page.textContent('#memory-lane-legend');
  assert.equal(
    legend,
    `sceneparticlesscratchlive bytes per domain on one scale, 0 to 5${sp}120 B; lines are never stacked or summed`,
  );

  assert.equal(await laneReadout(page, 0, 8), `frame 0 · live bytes: scene 4${sp}096 B, particles 0 B, scratch 0 B`);
  assert.equal(await laneReadout(page, 2, 8), 'frame 2 · live bytes: scene 0 B, particles 256 B, scratch 0 B');
  assert.equal(await laneReadout(page, 7, 8), `frame 7 · live bytes: scene 5${sp}120 B, particles 768 B, scratch 0 B`);

  // A click on the lane picks the frame, as on the strip.
  const at5 = await pointAtFrame(page, '#memory-lane', 5, 8);
  await page.mouse.click(at5.x, at5.y);
  await waitData(page, 'timelineFrame', '5');
  // A drag on the lane selects a range, as on the strip.
  const at2 = await pointAtFrame(page, '#memory-lane', 2, 8);
  await page.mouse.move(at2.x, at2.y);
  await page.mouse.down();
  await page.mouse.move(at5.x, at5.y, { steps: 5 });
  await page.mouse.up();
  await showTab(page, 'stats');
  await page.waitForFunction(() => /frames 2 to 5 \(4 frames\)/.test(document.querySelector('[data-testid=stats-table] h3')?.textContent));
  assert.match(await page.evaluate(() => location.hash), /range=2-5/);
  assert.deepEqual(problems, []);
});

test('a capture without memory data has no lane and keeps the plain message', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt#tab=memory');
  await outcome(page);
  await waitData(page, 'tab', 'memory');
  await waitData(page, 'memory', 'ready');
  assert.equal((await page.textContent('[data-testid=memory]')).trim(), 'No memory records in this capture.');
  assert.equal(await page.evaluate(() => document.body.dataset.memoryLane), 'none');
  assert.deepEqual(await page.$$eval('#memory-lane, #memory-lane-legend', (es) => es.map((e) => e.hidden)), [true, true]);
  assert.equal(await page.$eval('#memory-lane', (c) => c.getBoundingClientRect().height), 0, 'takes no room');
  assert.deepEqual(problems, []);
});

test('providers: one never sampled reads unavailable with its reason; gauges come from a sample', async (t) => {
  // 3,000 frames: more than the 2,048 the page reads, so one frame in two is read.
  const file = memoryCapture(3000, 20);
  const { page, problems } = await openPage(browser, t);
  await page.setInputFiles('#file-input', file);
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  await waitData(page, 'memory', 'ready');
  await showTab(page, 'memory');
  const mib = (n) => grouped(n * 1048576);
  assert.deepEqual(await tableRows(page, '#memory-providers'), [
    ['wasm.linear_memory', 'bytes', `${mib(80)} B`, `${mib(64)} B`, `${mib(80)} B`, `1${sp}501 of 1${sp}501`, ''],
    ['gpu.declared_bytes', 'bytes', `${mib(320)} B`, `${mib(256)} B`, `${mib(320)} B`, `1${sp}501 of 1${sp}501`, ''],
    ['wgpu.buffer_memory', 'bytes', 'unavailable', '—', '—', `0 of 1${sp}501`, "the browser's WebGPU exposes no internal counters"],
  ]);
  const text = await page.textContent('[data-testid=memory]');
  assert.ok(
    text.includes(`Gauges and providers are read from 1${sp}501 of the 3${sp}000 frames (one in 2, and the last)`),
    text,
  );
  // No record: the domain table is the last frame's gauges.
  assert.deepEqual((await tableRows(page, '#memory-domains')).map((row) => row.slice(0, 3)), [
    ['scene', `${mib(8)} B`, `${mib(48)} B`],
    // Frame 2,999: particles at their 119th step, scratch at its fullest.
    ['particles', `${grouped(4 * 1048576 + 119 * 32768)} B`, `${grouped(4 * 1048576 + 119 * 32768)} B`],
    ['scratch', `${grouped(3 * 262144)} B`, `${grouped(3 * 262144)} B`],
  ]);
  assert.equal(await page.evaluate(() => document.body.dataset.memoryLane), 'shown');
  // Frame 2,998 is read; the readout names it.
  assert.match(
    await laneReadout(page, 2998, 3000),
    /^frame 29\d\d( \(the nearest frame read: gauges are read from 1 frame in 2\))? · live bytes: scene /,
  );
  assert.deepEqual(problems, []);
});

test('a large capture with memory gauges draws its lane from gauges read in bounded slices', async (t) => {
  // 20,000 frames of 200 passes: the lane decodes 2,001 of them (one in 10, as the page
  // reads at most 2,048, and the last), in slices.
  const file = memoryCapture(20000, 200);
  const { page, problems } = await openPage(browser, t);
  await watchSlices(page);
  // What the memory gauges were doing when the strip was shown.
  await page.addInitScript(() => {
    addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        if (document.body.dataset.state === 'ready' && window.__memoryAtReady === undefined) {
          window.__memoryAtReady = document.body.dataset.memory;
        }
      }).observe(document.body, { attributes: true });
    });
  });
  await reopen(page);
  await page.setInputFiles('#file-input', file);
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  // The strip is shown before the gauges are read, in slices of their own; the lane follows.
  await waitData(page, 'memory', 'ready');
  assert.equal(await page.evaluate(() => window.__memoryAtReady), 'reading');
  // Every sampled frame read once, a bounded number a slice, across several slices.
  const jobs = await slicesByJob(page, 1);
  assert.equal(assertSliced('gauges', jobs.gauges), 2001);
  assert.equal(await page.evaluate(() => document.body.dataset.memoryLane), 'shown');
  await page.waitForFunction(() => document.getElementById('memory-lane').width > 100);
  assert.ok((await paintedPixels(page, '#memory-lane')) > 500, 'the lane is painted');
  assert.deepEqual(problems, []);
});
