// Opening and re-pointing the inspector in headless Chromium: a big capture with an index
// is read, opened, analysed and verified in bounded slices, with the statistics of `sgpt
// stats`; one without an index is scanned in slices (progress bar moving, cancelled by a
// newer file); statistics handed to the workers match `sgpt stats` as the page's own do;
// editing the URL hash after load changes the view without reopening.
//
// "Bounded" is judged in units of work, never in milliseconds: the page logs every job's
// share of every slice (units done, the job's cap, why it stopped), and the tests check
// that every job yields and no slice passes its cap. How long the tasks take is a figure
// tests/bench/inspector_bench.mjs prints.
//
// The big captures are `sgpt synth` output, one of them made never-closed in setup (no
// CLOSED flag, no directory, cut inside a record), written to target/browser-captures/ and
// reused by later runs. `sgpt info` on it gives the frame count the page must show.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromiumForFile } from './chromium.mjs';
import {
  assertSliced,
  CAPTURES,
  cutAsNeverClosed,
  fixtureBytes,
  grouped,
  openPage,
  outcome,
  reopen,
  showTab,
  slicesByJob,
  synthCapture,
  waitData,
  watchSlices,
} from './inspector_helpers.mjs';
import { sgptJson, sgptOutput } from './sgpt_cli.mjs';

// ~51 MB: many times every job's cap, so each job runs in many slices.
const BIG_FRAMES = 60_000;
// Where the cut falls: this far before the directory, inside the last record before it.
const CUT_BEFORE_DIRECTORY = 300;
// What a newly opened capture runs: reading, opening, then statistics over it all, the
// comparison of its halves and the check of every frame.
const LOAD_JOBS = ['compare', 'open', 'read', 'stats', 'verify'];

const browser = chromiumForFile();
let bigCapture;
let bigFrames;
let closedCapture;
before(() => {
  closedCapture = closedBigCapture();
  ({ file: bigCapture, frames: bigFrames } = neverClosedCapture());
});

/** The large capture as `sgpt synth` writes it, closed and indexed. */
function closedBigCapture() {
  return synthCapture(`synth_${BIG_FRAMES}.sgpt`, ['--frames', String(BIG_FRAMES), '--passes', '200']);
}

/** A large capture as a writer that never reached stop leaves it, and its frame count. */
function neverClosedCapture() {
  const file = join(CAPTURES, `never_closed_${BIG_FRAMES}.sgpt`);
  if (!existsSync(file)) {
    writeFileSync(file, cutAsNeverClosed(readFileSync(closedBigCapture()), CUT_BEFORE_DIRECTORY));
  }
  const info = sgptOutput('info', file);
  assert.match(info, /never closed/);
  const frames = Number(info.match(/^frames\s+(\d+)/m)?.[1]);
  assert.ok(frames > BIG_FRAMES / 2, `sgpt info reads its frames: ${frames}`);
  return { file, frames };
}

/** What a pass's row in the statistics table reads, from `sgpt stats --json`'s pass: the
 *  name as the page writes it (stats_table::display_name), then count, zero count and the
 *  exact nanoseconds of min, median, p95, max and total. */
function cliRow(pass) {
  const label = pass.label === '' ? '(no label)' : pass.label;
  let name = pass.graph_pass !== null && pass.graph_pass !== label ? `${pass.graph_pass} › ${label}` : label;
  if (pass.span_kind === 'subpass') name += ' (sub-pass region)';
  return [name, pass.count, pass.zero_count, pass.min_ns, pass.median_ns, pass.p95_ns, pass.max_ns, pass.total_ns];
}

/** The statistics table's rows as `cliRow` gives them: counts from the cells, nanoseconds
 *  from each duration's exact title (`1 234 ns`). */
async function pageRows(page) {
  const digits = (text) => Number(text.replace(/\D/g, ''));
  const rows = await page.$$eval('#stats tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((td) => [td.textContent, td.title])));
  return rows.map((cells) => [cells[0][0], digits(cells[1][0]), digits(cells[2][0]), ...cells.slice(3, 8).map(([, title]) => digits(title))]);
}

const byName = (a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b));

test('a large capture is read, opened, analysed and verified in bounded slices, with the statistics of sgpt stats', async (t) => {
  // The page alone, so that its statistics slices hold every frame: the workers' share is
  // the next test's.
  const { page, problems } = await openPage(browser, t, '?workers=0');
  await watchSlices(page);
  await reopen(page);
  await page.setInputFiles('#file-input', closedCapture);
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(shown.frames, String(BIG_FRAMES));
  // The comparison of the capture's halves is made when its view is shown.
  await showTab(page, 'compare');
  await page.waitForFunction(
    () => ['stats', 'compare'].every((key) => document.body.dataset[key] === 'ready') && document.body.dataset.verified === 'true',
    null,
    { polling: 250, timeout: 120_000 },
  );
  assert.equal(await page.evaluate(() => document.body.dataset.defects), '0');
  const jobs = await slicesByJob(page, 1);
  assert.deepEqual(Object.keys(jobs).sort(), LOAD_JOBS);
  // Each job's slices add up to the whole of its work: every byte read, every frame
  // checked (and three steps a piece, as no worker takes them here).
  assert.equal(assertSliced('read', jobs.read), statSync(closedCapture).size);
  assert.ok(assertSliced('verify', jobs.verify) >= BIG_FRAMES);
  assert.equal(Number((await outcome(page, 1)).framesRead), BIG_FRAMES);
  assertSliced('open', jobs.open);
  // Statistics add every frame, then plan and order each pass.
  assert.ok(assertSliced('stats', jobs.stats) > BIG_FRAMES);
  // The comparison collects each frame of its two halves once, then tests each pass.
  assert.ok(assertSliced('compare', jobs.compare) > BIG_FRAMES);

  const cli = sgptJson('stats', closedCapture);
  await showTab(page, 'stats');
  const totals = await page.textContent('[data-testid=stats-table] .controls .muted');
  assert.equal(totals, `${grouped(cli.frames)} frames, ${grouped(cli.spans)} spans, ${cli.passes.length} passes`);
  const rows = await pageRows(page);
  assert.equal(rows.length, cli.passes.length);
  assert.deepEqual(rows.sort(byName), cli.passes.map(cliRow).sort(byName));
  assert.deepEqual(problems, []);
});

test('statistics scanned by the workers, or by the page alone, are sgpt stats to the nanosecond', async (t) => {
  // The workers start with each load; once they are ready, a new range's statistics go to
  // them piece by piece, so the page's own share of the job is a few units a piece, far
  // fewer than its frames. With `?workers=0` the page scans every frame itself.
  // With the default workers, frames are checked only once the statistics are done.
  const [first, last] = [1_000, BIG_FRAMES - 1_001];
  const frames = last - first + 1;
  const cli = JSON.parse(sgptOutput('stats', '--json', '--frames', `${first}..${last + 1}`, closedCapture));
  for (const query of ['', '?workers=0']) {
    const { page, problems } = await openPage(browser, t, query);
    await watchSlices(page);
    await reopen(page);
    await page.setInputFiles('#file-input', closedCapture);
    const shown = await outcome(page, 1);
    assert.equal(shown.state, 'ready', shown.error);
    await waitData(page, 'stats', 'ready');
    if (query === '') {
      await page.waitForFunction(() => Number(document.body.dataset.statsWorkers) >= 1, null, { polling: 100 });
    }
    const workers = Number(await page.evaluate(() => document.body.dataset.statsWorkers));
    const before = await page.evaluate(() => window.__sgptSlices.length);
    if (query === '') {
      // One worker a core: the page leaves checking every frame until the statistics are
      // done, rather than take a core from a worker.
      const log = (await page.evaluate(() => window.__sgptSlices)).slice(0, before);
      const done = log.findIndex((share) => share.job === 'stats' && share.why === 'done');
      assert.ok(done >= 0, 'the load\'s statistics finished');
      const checks = (shares) => shares.filter((share) => share.load === log[done].load && share.job === 'verify' && share.units > 0);
      assert.deepEqual(checks(log.slice(0, done)), [], 'no frame checked while the statistics were under way');
      await waitData(page, 'verified', 'true');
      const after = (await page.evaluate(() => window.__sgptSlices)).slice(done);
      assert.ok(checks(after).length > 0, 'every frame checked after them');
      assert.equal(Number((await outcome(page, 1)).framesRead), BIG_FRAMES);
      // Where a worker was ready while the statistics ran (they waited for one), the
      // workers check the frames too: the page's share is a few steps a piece.
      const statistics = log.slice(0, done + 1).filter((share) => share.load === log[done].load && share.job === 'stats');
      if (statistics.some((share) => share.why === 'waiting')) {
        const steps = checks(after).reduce((sum, share) => sum + share.units, 0);
        assert.ok(steps < BIG_FRAMES / 4, `the workers checked the frames: the page did ${steps} steps for ${BIG_FRAMES} frames`);
      }
    }
    await page.evaluate(([a, b]) => { location.hash = `tab=stats&range=${a}-${b}`; }, [first, last]);
    await page.waitForFunction(
      (heading) => document.querySelector('[data-testid=stats-table] h3')?.textContent.includes(heading) && document.body.dataset.stats === 'ready',
      `frames ${first} to ${last} (${frames} frames)`,
      { polling: 100, timeout: 120_000 },
    );
    const shares = (await page.evaluate(() => window.__sgptSlices)).slice(before).filter((share) => share.job === 'stats');
    const units = assertSliced('stats', shares);
    if (query === '') {
      assert.ok(workers >= 1, `workers ready: ${workers}`);
      assert.ok(units < frames / 4, `the workers scanned the frames: the page did ${units} units for ${frames} frames`);
      assert.ok(shares.some((share) => share.why === 'waiting'), 'the page waited for its workers');
    } else {
      assert.equal(workers, 0);
      assert.ok(units > frames, `the page scanned every frame itself: ${units} units for ${frames} frames`);
    }
    const rows = await pageRows(page);
    assert.deepEqual(rows.sort(byName), cli.passes.map(cliRow).sort(byName), `statistics ${query || 'with workers'}`);
    assert.deepEqual(problems, []);
  }
});

/** Records the slice log, and every progress value shown with the status's first word. */
async function watchLoading(page) {
  await watchSlices(page);
  await page.addInitScript(() => {
    window.__progress = [];
    addEventListener('DOMContentLoaded', () => {
      const progress = document.getElementById('progress');
      const status = document.getElementById('status');
      const record = () => {
        if (!progress.hidden) {
          window.__progress.push([status.textContent.split(' ')[0], Number(progress.getAttribute('value'))]);
        }
      };
      new MutationObserver(record).observe(progress, { attributes: true });
    });
  });
}

test('a large never-closed capture is scanned in bounded slices, with a moving progress bar', async (t) => {
  const { page, problems } = await openPage(browser, t, '?workers=0');
  await watchLoading(page);
  await reopen(page);
  await page.setInputFiles('#file-input', bigCapture);
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), bigFrames);
  assert.match(await page.textContent('#banners'), /never closed/);
  await showTab(page, 'compare');
  await waitData(page, 'stats', 'ready');
  await waitData(page, 'verified', 'true');
  const reading = (await page.evaluate(() => window.__progress)).filter(([what]) => what === 'Reading');
  const fractions = [...new Set(reading.map(([, value]) => value))];
  // Within a phase the bar moves at most a few times a second (inspector-web's
  // progress_pace), so a fast read may show one fraction: the first, shown at once.
  assert.ok(fractions.some((v) => v > 0 && v < 1), `the progress bar showed the read under way: ${JSON.stringify(fractions)}`);
  assert.ok(fractions.every((v, i) => i === 0 || v > fractions[i - 1]), 'progress only grows');
  await waitData(page, 'compare', 'ready');
  const jobs = await slicesByJob(page, 1);
  assert.deepEqual(Object.keys(jobs).sort(), LOAD_JOBS);
  assert.equal(assertSliced('read', jobs.read), statSync(bigCapture).size);
  // A scan step walks about 256 KiB of the file; there is no index to check instead.
  assert.ok(assertSliced('open', jobs.open) * 256 * 1024 >= statSync(bigCapture).size);
  assert.ok(assertSliced('verify', jobs.verify) >= bigFrames);
  assert.equal(Number((await outcome(page, 1)).framesRead), bigFrames);
  assert.ok(assertSliced('stats', jobs.stats) > bigFrames);
  assertSliced('compare', jobs.compare);
  assert.deepEqual(problems, []);
});

test('scanning runs in slices, and opening another file meanwhile cancels it', async (t) => {
  const { page, problems } = await openPage(browser, t);
  await watchLoading(page);
  await reopen(page);
  // At the scan's first slice boundary the page itself drops a small capture, so the
  // second file certainly arrives while the scan is under way (its cap makes it many
  // slices), however fast or slow the CPU.
  const small = await fixtureBytes('level_timing.sgpt');
  await page.evaluate((data) => {
    const file = new File([new Uint8Array(data)], 'level_timing.sgpt');
    const status = document.getElementById('status');
    const observer = new MutationObserver(() => {
      if (!status.textContent.startsWith('Scanning')) return;
      observer.disconnect();
      const transfer = new DataTransfer();
      transfer.items.add(file);
      const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
      document.body.dispatchEvent(new DragEvent('dragover', init));
      document.body.dispatchEvent(new DragEvent('drop', init));
    });
    observer.observe(status, { childList: true, characterData: true, subtree: true });
  }, [...small]);
  await page.setInputFiles('#file-input', bigCapture);
  const shown = await outcome(page, 2);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(shown.frames, '16');
  // Scanning showed how far it got between slices, so it is not one task.
  const scanned = await page.evaluate(() => window.__progress.filter(([what]) => what === 'Scanning').map(([, v]) => v));
  assert.ok(scanned.length > 0 && scanned[0] > 0 && scanned[0] < 1, `part of the file scanned: ${scanned}`);
  // The abandoned scan stops at its next slice, and says so; it neither finishes over the
  // new file nor keeps the progress bar.
  await page.waitForFunction(() => window.__sgptSlices.some((s) => s.load === 1 && s.job === 'open' && s.why === 'cancelled'));
  const first = await slicesByJob(page, 1);
  assert.deepEqual(Object.keys(first).sort(), ['open', 'read'], 'nothing after opening ran for the first file');
  // One slice of the scan, then, at the next, its cancellation.
  assert.deepEqual(first.open.map(({ why }) => why).slice(1), ['cancelled'], JSON.stringify(first.open));
  assert.ok(['time', 'cap'].includes(first.open[0].why) && first.open[0].units <= first.open[0].cap);
  const after = await page.evaluate(() => ({
    frames: document.body.dataset.frames,
    load: document.body.dataset.load,
    status: document.getElementById('status').textContent,
  }));
  assert.deepEqual({ frames: after.frames, load: after.load }, { frames: '16', load: '2' });
  assert.doesNotMatch(after.status, /Scanning/);
  assert.deepEqual(problems, []);
});

test('editing the hash after load changes tab, frame and range without reopening', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt#tab=stats');
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  await waitData(page, 'timelineFrame', '0');
  await waitData(page, 'stats', 'ready');
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'stats');

  await page.evaluate(() => { location.hash = 'tab=timeline&frame=5'; });
  await page.waitForFunction(() => document.body.dataset.tab === 'timeline' && document.body.dataset.timelineFrame === '5');
  assert.match(await page.textContent('#timeline-title'), /^Frame 5 · GPU /);
  assert.equal(await page.getAttribute('#tab-timeline', 'aria-selected'), 'true');
  assert.equal(await page.$eval('#panel-timeline', (p) => p.hidden), false);
  assert.equal(await page.$eval('#panel-stats', (p) => p.hidden), true);
  assert.match(await page.evaluate(() => location.hash), /^#tab=timeline&frame=5&range=0-15/);

  // A range and a zoom, then back to statistics over that range.
  await page.evaluate(() => { location.hash = 'tab=stats&frame=5&range=2-9&zoom=1000~50000'; });
  await waitData(page, 'tab', 'stats');
  await waitData(page, 'stats', 'ready');
  assert.match(await page.textContent('[data-testid=stats-table] h3'), /frames 2 to 9 \(8 frames\)/);
  assert.match(await page.evaluate(() => location.hash), /&frame=5&range=2-9&zoom=1000~50000/);
  // The same capture stayed open: still the first load.
  assert.equal(await page.evaluate(() => document.body.dataset.load), '1');
  assert.deepEqual(problems, []);
});

test('a trap in the page\'s WebAssembly is shown as the page\'s error, not a progress line that never moves', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/level_timing.sgpt');
  assert.equal((await outcome(page)).state, 'ready');
  // A real trap, uncaught in a task of its own, as one in any of the page's callbacks
  // would be: a module whose one function is `unreachable`, Rust's abort on a failed
  // allocation.
  await page.evaluate(async () => {
    const bytes = new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
      0x01, 0x04, 0x01, 0x60, 0x00, 0x00, // a type: () -> ()
      0x03, 0x02, 0x01, 0x00, // one function of it
      0x07, 0x05, 0x01, 0x01, 0x66, 0x00, 0x00, // exported as "f"
      0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b, // its body: unreachable
    ]);
    const { instance } = await WebAssembly.instantiate(bytes);
    setTimeout(() => instance.exports.f());
  });
  await page.waitForFunction(() => document.body.dataset.state === 'error');
  assert.equal(await page.evaluate(() => document.body.dataset.trapped), 'true');
  const shown = await outcome(page);
  assert.match(shown.error, /^The inspector stopped on an error in its WebAssembly \(unreachable\)\. Reload the page/);
  assert.ok(problems.some((p) => /unreachable/.test(p)), `the trap itself is uncaught: ${problems}`);
});

test('a trap with the memory at wasm32\'s 4 GiB says the page ran out of memory, and what to do', async () => {
  const { trapMessage } = await import('../../inspector-web/src/web/trap.js');
  const full = trapMessage(4 * 1024 ** 3 - (1 << 20), new WebAssembly.RuntimeError('unreachable'));
  assert.match(full, /^The inspector ran out of memory: a web page’s WebAssembly holds at most 4 GiB/);
  assert.match(full, /`sgpt diff A B` compares captures of any length/);
  const roomy = trapMessage(512 * 1024 ** 2, new WebAssembly.RuntimeError('unreachable'));
  assert.match(roomy, /stopped on an error in its WebAssembly \(unreachable\)/);
});
