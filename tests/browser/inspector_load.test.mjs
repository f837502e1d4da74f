// Opening and re-pointing the inspector in headless Chromium: a big capture without an
// index is scanned in slices (progress bar moving, no long task, cancelled by a newer
// file), and editing the URL hash after load changes the view without reopening.
//
// The big capture is `sgpt synth` output made never-closed in setup (no CLOSED flag, no
// directory, cut inside a record), written to target/browser-captures/ and reused by later
// runs. `sgpt info` on it gives the frame count the page must show.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { launchChromium } from './chromium.mjs';
import { sgptCli } from './sgpt_cli.mjs';
import { openPage, outcome, waitData } from './inspector_helpers.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
// ~51 MB: big enough that scanning it spans several slices on a CPU slowed 4x.
const BIG_FRAMES = 60_000;
// Where the cut falls: this far before the directory, inside the last record before it.
const CUT_BEFORE_DIRECTORY = 300;
// A task this long is a freeze; slices aim at 30 ms, so this bounds chunking, not speed.
const LONG_TASK_MS = 200;

let browser;
let bigCapture;
let bigFrames;
before(async () => {
  ({ file: bigCapture, frames: bigFrames } = neverClosedCapture());
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** A large capture as a writer that never reached stop leaves it, and its frame count. */
function neverClosedCapture() {
  const sgpt = sgptCli();
  const run = (args) => {
    const done = spawnSync(sgpt, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
    assert.equal(done.status, 0, `sgpt ${args.join(' ')} failed: ${done.stderr}`);
    return done.stdout;
  };
  const dir = join(ROOT, 'target', 'browser-captures');
  const file = join(dir, `never_closed_${BIG_FRAMES}.sgpt`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const synth = join(dir, `synth_${BIG_FRAMES}.sgpt`);
    run(['synth', '--frames', String(BIG_FRAMES), '--passes', '200', '-o', synth]);
    const bytes = readFileSync(synth);
    // The flags (bit 0 CLOSED) and the directory's place are patched in at stop, so a
    // writer that never stopped leaves them zero (format/src/header.rs).
    const directory = Number(bytes.readBigUInt64LE(16));
    assert.ok(directory > CUT_BEFORE_DIRECTORY && directory < bytes.length, `directory at ${directory}`);
    bytes.writeUInt32LE(0, 8);
    bytes.fill(0, 16, 32);
    writeFileSync(file, bytes.subarray(0, directory - CUT_BEFORE_DIRECTORY));
  }
  const info = run(['info', file]);
  assert.match(info, /never closed/);
  const frames = Number(info.match(/^frames\s+(\d+)/m)?.[1]);
  assert.ok(frames > BIG_FRAMES / 2, `sgpt info reads its frames: ${frames}`);
  return { file, frames };
}

/** A 4x slower CPU, as on a modest laptop: scanning this capture then spans several slices. */
async function slowCpu(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** Records long tasks, and every progress value shown with the status's first word. */
async function watchLoading(page) {
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
    }).observe({ type: 'longtask', buffered: true });
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

test('a large never-closed capture opens with a moving progress bar and no long task', async (t) => {
  const { page, problems } = await openPage(browser, t);
  await watchLoading(page);
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  await page.setInputFiles('#file-input', bigCapture);
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), bigFrames);
  assert.match(await page.textContent('#banners'), /never closed/);
  await waitData(page, 'stats', 'ready');
  await waitData(page, 'verified', 'true');
  const reading = (await page.evaluate(() => window.__progress)).filter(([what]) => what === 'Reading');
  const fractions = [...new Set(reading.map(([, value]) => value))];
  assert.ok(fractions.length >= 3, `the progress bar moved while reading: ${JSON.stringify(fractions)}`);
  assert.ok(fractions.every((v, i) => i === 0 || v > fractions[i - 1]), 'progress only grows');
  const longTasks = await page.evaluate(() => window.__longTasks);
  const worst = Math.max(0, ...longTasks);
  assert.ok(worst <= LONG_TASK_MS, `no task over ${LONG_TASK_MS} ms while opening; tasks: ${JSON.stringify(longTasks)}`);
  assert.deepEqual(problems, []);
});

test('scanning runs in slices, and opening another file meanwhile cancels it', async (t) => {
  const { page, problems } = await openPage(browser, t);
  await watchLoading(page);
  await page.reload();
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  await slowCpu(page);
  await page.setInputFiles('#file-input', bigCapture);
  // Scanning shows how far it got between slices, so it is not one task.
  await page.waitForFunction(() => window.__progress.some(([what]) => what === 'Scanning'));
  const scanned = await page.evaluate(() => window.__progress.filter(([what]) => what === 'Scanning').map(([, v]) => v));
  assert.ok(scanned[0] > 0 && scanned[0] < 1, `part of the file scanned: ${scanned}`);
  const small = join(ROOT, 'dist', 'captures', 'level_timing.sgpt');
  assert.ok(statSync(small).size > 0);
  await page.setInputFiles('#file-input', small);
  const shown = await outcome(page, 2);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(shown.frames, '16');
  // The abandoned scan neither finishes over it nor keeps the progress bar.
  await page.waitForTimeout(1500);
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
  await page.waitForFunction(() => document.body.dataset.tab === 'stats');
  await waitData(page, 'stats', 'ready');
  assert.match(await page.textContent('[data-testid=stats-table] h3'), /frames 2 to 9 \(8 frames\)/);
  assert.match(await page.evaluate(() => location.hash), /&frame=5&range=2-9&zoom=1000~50000/);
  // The same capture stayed open: still the first load.
  assert.equal(await page.evaluate(() => document.body.dataset.load), '1');
  assert.deepEqual(problems, []);
});
