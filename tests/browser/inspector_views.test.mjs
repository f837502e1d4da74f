// The inspector's views in headless Chromium, each against a fixture whose content is
// known from format/src/dev/fixtures.rs: strip, timeline, statistics, structure, resources,
// pass detail, compare, memory, notes and defects, export, gzip, URL state, security.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { chromiumForFile } from './chromium.mjs';
import {
  dropFile, fixtureBytes, grouped, openPage, outcome, paintedPixels, showTab, tableRows, waitData,
} from './inspector_helpers.mjs';

const browser = chromiumForFile();

test('the frame strip paints from the directory, sharp at 2x device pixels', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt', { deviceScaleFactor: 2 });
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(shown.frames, '16');
  await page.waitForFunction(() => document.getElementById('frame-strip').width > 300);
  const size = await page.$eval('#frame-strip', (c) => ({ w: c.width, css: c.getBoundingClientRect().width }));
  assert.ok(Math.abs(size.w - size.css * 2) <= 1, `backing store ${size.w} for ${size.css} CSS px at 2x`);
  assert.ok((await paintedPixels(page, '[data-testid=frame-strip]')) > 500);
  // Hovering reads one frame's exact times.
  const box = await page.$eval('#frame-strip', (c) => c.getBoundingClientRect().toJSON());
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height / 2);
  const readout = await page.textContent('#strip-readout');
  assert.match(readout, /^frame 8 · GPU [\d\u2009]+ ns · CPU [\d\u2009]+ ns/);
  // A click selects that frame; the timeline follows and the hash records it.
  await page.mouse.click(box.x + box.width * 0.55, box.y + box.height / 2);
  await waitData(page, 'timelineFrame', '8');
  assert.match(await page.evaluate(() => location.hash), /frame=8/);
  assert.deepEqual(problems, []);
});

test('brushing the strip selects a range and the statistics follow it', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt');
  await outcome(page);
  await waitData(page, 'stats', 'ready');
  const box = await page.$eval('#frame-strip', (c) => c.getBoundingClientRect().toJSON());
  await page.mouse.move(box.x + 2, box.y + 20);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + 20, { steps: 4 });
  await page.mouse.up();
  await waitData(page, 'stats', 'ready');
  assert.match(await page.evaluate(() => location.hash), /range=0-4\b/);
  await showTab(page, 'stats');
  assert.match(await page.textContent('[data-testid=stats-table] h3'), /frames 0 to 4 \(5 frames\)/);
  // Shift+arrow extends the range from the keyboard.
  await page.focus('#frame-strip');
  await page.keyboard.press('Shift+ArrowRight');
  await page.waitForFunction(() => /range=/.test(location.hash));
  assert.deepEqual(problems, []);
});

test('the timeline nests spans, hovers exact ns, selects on click, zooms with W', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_verbose.sgpt&x=1#frame=3', { deviceScaleFactor: 2 });
  await outcome(page);
  await waitData(page, 'timelineFrame', '3');
  const title = await page.textContent('#timeline-title');
  assert.match(title, /^Frame 3 · GPU [\d\u2009]+ ns · CPU [\d\u2009]+ ns · \d+ spans/);
  const canvas = await page.$eval('#timeline-canvas', (c) => ({ w: c.width, css: c.getBoundingClientRect().toJSON() }));
  assert.ok(Math.abs(canvas.w - canvas.css.width * 2) <= 1, 'HiDPI backing store');
  assert.ok(canvas.css.height > 100, 'tracks for CPU and two query sets');
  // Find a GPU pass by sweeping the deepest rows of the first GPU lane.
  let readout = '';
  for (let y = 60; y < canvas.css.height && !/GPU pass/.test(readout); y += 6) {
    for (let x = 0.1; x < 0.9 && !/GPU pass/.test(readout); x += 0.05) {
      await page.mouse.move(canvas.css.x + canvas.css.width * x, canvas.css.y + y);
      readout = await page.textContent('#timeline-readout');
    }
  }
  assert.match(readout, /· GPU pass · [\d\u2009]+ ns \(/);
  await page.mouse.down();
  await page.mouse.up();
  assert.match(await page.textContent('#timeline-readout'), /^Selected: .* · GPU pass ·/);
  await page.waitForFunction(() => /pass=\d+/.test(location.hash));
  assert.ok(Number(await page.evaluate(() => document.body.dataset.timelineDrawMs)) >= 0);
  const before = await page.evaluate(() => location.hash.match(/zoom=(-?\d+)~(-?\d+)/).slice(1).map(Number));
  await page.focus('#timeline-canvas');
  await page.keyboard.press('w');
  const after = await page.evaluate(() => location.hash.match(/zoom=(-?\d+)~(-?\d+)/).slice(1).map(Number));
  assert.ok(after[1] - after[0] < before[1] - before[0], `W zooms in: ${before} → ${after}`);
  await page.keyboard.press('d');
  const panned = await page.evaluate(() => location.hash.match(/zoom=(-?\d+)~(-?\d+)/).slice(1).map(Number));
  assert.ok(panned[0] > after[0], 'D pans later');
  // The CPU track says its alignment is nominal.
  assert.ok((await paintedPixels(page, '#timeline-canvas')) > 1000);
  assert.deepEqual(problems, []);
});

test('statistics are sortable, filterable, and always state the 0 ns caveat (the browser flag only for a browser capture)', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/zero_durations.sgpt#tab=stats');
  const shown = await outcome(page);
  await waitData(page, 'stats', 'ready');
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'stats');
  const note = await page.textContent('[data-testid=stats-table] .note');
  // The fixture is synthetic (backend "synthetic"), quantized as a browser would: its 0 ns
  // spans are named, Chrome's flag is not (the native unit tests cover a webgpu backend).
  assert.doesNotMatch(note, /chrome:\/\/flags/);
  const spans = grouped(Number(shown.spans));
  assert.ok(note.includes(`${spans} of ${spans} spans in this range read exactly 0 ns`), note);
  assert.match(note, /aggregating across frames/);
  const rows = await tableRows(page, '#stats');
  assert.ok(rows.length >= 20, `${rows.length} passes`);
  await page.click('#stats th:nth-child(1) button');
  const sorted = (await tableRows(page, '#stats')).map((r) => r[0]);
  assert.deepEqual(sorted, [...sorted].sort(), 'sorted by name A→Z');
  await page.fill('#stats-filter', sorted[0].slice(0, 12));
  const filtered = await tableRows(page, '#stats');
  assert.ok(filtered.length >= 1 && filtered.length < rows.length);
  assert.ok(filtered.every((r) => r[0].toLowerCase().includes(sorted[0].slice(0, 12).toLowerCase())));
  assert.deepEqual(problems, []);
});

test('spans that ended before they began are counted apart from quantized ones in the statistics\' note', async (t) => {
  // One frame, two spans: one inverted, one whose end wrapped past the clock's end.
  const { page, problems } = await openPage(browser, t, '?file=/captures/inverted_spans.sgpt#tab=stats');
  await outcome(page);
  await waitData(page, 'stats', 'ready');
  const note = await page.textContent('[data-testid=stats-table] .note');
  assert.ok(note.includes('2 of 2 spans in this range read exactly 0 ns.'), note);
  assert.ok(note.includes(' 2 of them ended before they began (inverted, or the device\'s counter wrapped), which counts as 0 ns.'), note);
  assert.doesNotMatch(note, /coarse capture/, 'no span here says the clock is coarse');
  assert.deepEqual(problems, []);
});

test('structure cross-links passes and resources; resources and pass detail show their facts', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_workload.sgpt#tab=structure');
  await outcome(page);
  await waitData(page, 'timelineFrame', '0');
  const passes = await tableRows(page, '[data-testid=structure] table:nth-of-type(1)');
  assert.ok(passes.length > 5, 'graph passes listed');
  // Select the last pass: its transitive inputs are highlighted.
  const rows = await page.$$('[data-testid=structure] table:nth-of-type(1) tbody tr');
  await rows[rows.length - 1].click();
  await page.waitForSelector('[data-testid=structure] tr.selected');
  await showTab(page, 'resources');
  assert.match(await page.textContent('[data-testid=resources]'), /Peak concurrent|No resources/);
  await showTab(page, 'memory');
  assert.equal((await page.textContent('[data-testid=memory]')).trim(), 'No memory records in this capture.');
  // The details pane shows the selected graph pass, then a resource, with their links.
  assert.match(await page.textContent('[data-testid=selection-detail] h3'), /^Graph pass /);
  await showTab(page, 'structure');
  await page.click('[data-testid=structure] tr[data-action=node]');
  await page.waitForFunction(() => /^Resource /.test(document.querySelector('[data-testid=selection-detail] h3')?.textContent ?? ''));
  assert.match(await page.textContent('[data-testid=selection-detail]'), /Produced by/);
  // The details pane, beside every view, says how to choose a pass while none is.
  assert.match(await page.textContent('[data-testid=pass-detail]'), /Select a GPU pass/);
  assert.deepEqual(problems, []);
});

test('pass detail lists workload with unknowns as unknown, and a sparkline across frames', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_verbose.sgpt#tab=pass&frame=2&pass=0');
  await outcome(page);
  await page.waitForFunction(() => document.querySelector('[data-testid=pass-detail] dl'));
  const text = await page.textContent('[data-testid=pass-detail]');
  assert.match(text, /Dispatches|Draws/);
  assert.match(text, /Invocations/);
  assert.match(text, /frame 2/);
  await page.waitForFunction(() => document.getElementById('sparkline')?.width > 0);
  assert.deepEqual(problems, []);
});

test('compare gives the engine\'s verdicts for two ranges, inconclusive where frames are too few', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt#tab=compare&cmp=0-7,8-15');
  await outcome(page);
  await waitData(page, 'compare', 'ready');
  const rows = await tableRows(page, '[data-testid=compare]');
  assert.ok(rows.length >= 21, `${rows.length} rows: the frame time and every pass`);
  assert.equal(rows[0][0], 'GPU frame time');
  // 8 frames a side are under the engine's minimum: nothing can be called slower or faster.
  assert.ok(rows.every((r) => r[1] === 'inconclusive'), rows.map((r) => r[1]).join(', '));
  const reason = await page.getAttribute('[data-testid=compare] tbody tr:first-child td:nth-child(2)', 'title');
  assert.ok(reason && reason.length > 0, 'the frame row says why');
  // And on the page, not only on hover: each reason listed once, numbered, the rows
  // carrying their reason's number in the Why column.
  const reasons = await page.$$eval('[data-testid=compare] ol.reasons li', (items) => items.map((li) => li.textContent));
  const note = Number(rows[0].at(-1));
  assert.ok(note >= 1 && reasons[note - 1]?.startsWith(reason), `${note}: ${JSON.stringify(reasons)}`);
  assert.ok(rows.every((r) => Number(r.at(-1)) >= 1 && Number(r.at(-1)) <= reasons.length), 'every row numbers its reason');
  assert.equal(new Set(reasons).size, reasons.length, 'each reason once');
  assert.deepEqual(problems, []);
});

test('banners: dropped spans on their frames, never closed, cut short, verbose', async (t) => {
  const cases = [
    ['dropped_spans.sgpt', /20 spans were dropped .* on 4 frames .*frames 1 \(5\), 5 \(5\), 9 \(5\), 13 \(5\)/],
    ['never_closed.sgpt', /never closed/],
    ['truncated.sgpt', /Opening this capture found 2 defects \(directory_invalid, truncated\): only what could be read is shown/],
    ['level_verbose.sgpt', /level verbose: recording bind groups/],
  ];
  for (const [name, pattern] of cases) {
    const { page, problems } = await openPage(browser, t, `?file=/captures/${name}`);
    await outcome(page);
    assert.match(await page.textContent('#banners'), pattern, name);
    assert.deepEqual(problems, []);
  }
});

test('export downloads Chrome Trace JSON whose spans match the capture', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt');
  const shown = await outcome(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=export]')]);
  assert.equal(download.suggestedFilename(), 'level_timing.trace.json');
  const path = await download.path();
  const { readFile } = await import('node:fs/promises');
  const trace = JSON.parse(await readFile(path, 'utf8'));
  const passes = trace.traceEvents.filter((e) => e.ph === 'X' && (e.cat === 'gpu_pass' || e.cat === 'gpu_subpass'));
  assert.equal(passes.length, Number(shown.spans));
  assert.deepEqual(problems, []);
});

test('a gzip capture opens the same way; a gzip bomb is refused by name', async (t) => {
  const { page, problems } = await openPage(browser, t);
  const bytes = await fixtureBytes('level_timing.sgpt');
  const shown = await dropFile(page, 'level_timing.sgpt.gz', gzipSync(bytes));
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(shown.frames, '16');
  assert.equal(shown.gzip, 'true');
  const member = gzipSync(Buffer.alloc(1 << 20));
  const bomb = await dropFile(page, 'bomb.sgpt.gz', Buffer.concat(Array(80).fill(member)));
  assert.equal(bomb.state, 'error');
  assert.match(bomb.error, /bomb\.sgpt\.gz: it is gzip-compressed and inflates to more than 64\.00 MiB/);
  const cut = await dropFile(page, 'cut.sgpt.gz', gzipSync(bytes).subarray(0, 200));
  assert.equal(cut.state, 'error');
  assert.match(cut.error, /gzip-compressed but damaged/);
  assert.deepEqual(problems, []);
});

test('?file= refuses schemes other than http, https and blob', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=javascript:alert(1)');
  const shown = await outcome(page);
  assert.equal(shown.state, 'error');
  assert.match(shown.error, /only http:, https: and blob: URLs are opened/);
  assert.deepEqual(problems, []);
});

test('the page runs under its Content-Security-Policy with no violation', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/minimal.sgpt');
  await outcome(page);
  const csp = await page.$eval('meta[http-equiv=Content-Security-Policy]', (m) => m.content);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems, []);
});

test('a link reproduces the view: tab, frame, range and selection from the hash', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt#tab=stats&frame=5&range=2-9');
  await outcome(page);
  await waitData(page, 'timelineFrame', '5');
  await waitData(page, 'stats', 'ready');
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'stats');
  assert.match(await page.textContent('[data-testid=stats-table] h3'), /frames 2 to 9 \(8 frames\)/);
  // Every view is reachable from the keyboard: arrows move between tabs.
  await page.focus('#tab-stats');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'structure');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-structure');
  assert.deepEqual(problems, []);
});

test('notes and defects list every defect with its offset', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/corrupted.sgpt#tab=notes');
  await outcome(page);
  await waitData(page, 'verified', 'true');
  const rows = await tableRows(page, '[data-testid=defects]');
  assert.equal(rows.length, 1);
  assert.equal(rows[0][0], 'checksum_mismatch');
  assert.match(rows[0][1], /^0x[0-9a-f]+$/);
  assert.deepEqual(problems, []);
});
