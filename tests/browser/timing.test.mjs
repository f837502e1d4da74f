// The timing port on the /demo/ page (headless Chromium, real WebGPU on SwiftShader).
//
// An init script wraps console.timeStamp before the page's module runs, so the tests count
// its calls and keep the first ones' arguments. `?timing=full` must retain User Timing
// measures with detail.devtools and drain them; `trace` must call console.timeStamp with
// its track arguments and retain nothing; `off` must do neither. The level changes
// mid-session from the console, and another tool's entries survive our clearing. What a
// span costs at each level is a figure: tests/bench/timing_bench.mjs prints it.

import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WEBGPU_CANVAS_ARGS, baseUrl, chromiumForTest } from './chromium.mjs';
import { collectUncaught, waitForState } from './inspector_helpers.mjs';

const TRACKS = ['Boot', 'Engine', 'Engine phases', 'Frame', 'GPU encode'];

function countTimeStamps() {
  window.__timeStamps = { count: 0, first: [] };
  const original = console.timeStamp;
  console.timeStamp = function (...args) {
    window.__timeStamps.count += 1;
    if (window.__timeStamps.first.length < 200) {
      window.__timeStamps.first.push(args);
    }
    return original.apply(this, args);
  };
}

/** A page with the counting init script, at `query`, once the scene runs. */
async function open(context, query) {
  const page = await context.newPage();
  const problems = collectUncaught(page);
  await page.goto(`${baseUrl()}/demo/${query}`);
  const data = await waitForState(page, ['running', 'error'], { timeout: 60_000 });
  assert.equal(data.state, 'running', data.error);
  return { page, problems };
}

/** Resolves after `count` animation frames of the page: the scene draws one in each. */
function animationFrames(page, count) {
  return page.evaluate(
    (n) =>
      new Promise((done) => {
        let seen = 0;
        const tick = () => (++seen >= n ? done() : requestAnimationFrame(tick));
        requestAnimationFrame(tick);
      }),
    count,
  );
}

/** Our measures and marks in the page's timeline (track group "sgpt"). */
function ours(page) {
  return page.evaluate(() =>
    ['measure', 'mark'].flatMap((type) =>
      performance
        .getEntriesByType(type)
        .filter((entry) => entry.detail?.devtools?.trackGroup === 'sgpt')
        .map((entry) => ({ type, name: entry.name, devtools: entry.detail.devtools })),
    ),
  );
}

async function browserContext(t, { counting = true } = {}) {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const context = await browser.newContext();
  if (counting) {
    await context.addInitScript(countTimeStamps);
  }
  return context;
}

test('?timing=full retains measures with detail.devtools, drains them, and spares other tools\' entries', {
  timeout: 120_000,
}, async (t) => {
  const context = await browserContext(t);
  const { page, problems } = await open(context, '?timing=full');
  assert.equal(await page.evaluate(() => window.sgpt.timing.level()), 'full');
  assert.equal(await page.evaluate(() => document.body.dataset.timing), 'full');
  await page.waitForFunction(
    () => performance.getEntriesByType('measure').filter((m) => m.detail?.devtools?.track === 'Frame').length >= 3,
    null,
    { timeout: 30_000 },
  );
  const entries = await ours(page);
  const measures = entries.filter((entry) => entry.type === 'measure');
  assert.ok(measures.every((m) => m.devtools.dataType === 'track-entry' && TRACKS.includes(m.devtools.track)));
  assert.ok(measures.every((m) => typeof m.devtools.color === 'string'));
  const boot = measures.filter((m) => m.devtools.track === 'Boot').map((m) => m.name);
  assert.deepEqual(boot, ['adapter', 'pipelines', 'first frame']);
  assert.ok(measures.some((m) => m.devtools.track === 'GPU encode' && /^hzb/.test(m.name)), 'graph passes timed');
  const engine = measures.find((m) => m.name === 'engine');
  assert.deepEqual(engine.devtools.properties[0][0], 'budget ms');
  assert.ok(entries.some((entry) => entry.type === 'mark' && entry.devtools.dataType === 'marker'), 'first-frame marker');
  assert.equal(await page.evaluate(() => window.__timeStamps.count), 0, 'full does not also trace');

  // Another tool's entries: only ours may go.
  await page.evaluate(() => {
    performance.mark('other-tool:mark');
    performance.measure('other-tool:measure', { start: 0, end: 1 });
    performance.mark('other-tool:mark-with-detail', { detail: { tool: 'other' } });
  });
  const drained = await page.evaluate(() => {
    window.sgpt.timing.level('off');
    return window.sgpt.timing.drain();
  });
  assert.ok(drained.length >= measures.length, `${drained.length} drained, ${measures.length} seen before`);
  const encode = drained.find((entry) => entry.track === 'GPU encode');
  assert.deepEqual(Object.keys(encode).sort(), ['duration', 'name', 'properties', 'start', 'track']);
  assert.equal(typeof encode.properties['graph pass'], 'number');
  assert.ok(encode.duration >= 0 && encode.start > 0);
  assert.ok(drained.every((entry, i) => i === 0 || drained[i - 1].start <= entry.start), 'sorted by start');
  assert.deepEqual(await ours(page), [], 'the drain cleared ours');
  const others = await page.evaluate(() =>
    performance.getEntries().map((entry) => entry.name).filter((name) => name.startsWith('other-tool:')).sort(),
  );
  assert.deepEqual(others, ['other-tool:mark', 'other-tool:mark-with-detail', 'other-tool:measure']);

  // A profile runs frames at full, summarizes them, and restores the level.
  const profile = await page.evaluate(() => window.sgpt.profile(8));
  assert.equal(profile.frames, 8);
  assert.equal(profile.tracks.Frame.share, 1);
  for (const track of ['Engine', 'Engine phases', 'GPU encode']) {
    const summary = profile.tracks[track];
    assert.ok(summary.count > 0 && summary.total > 0 && summary.mean > 0, `${track}: ${JSON.stringify(summary)}`);
    assert.ok(summary.share > 0 && summary.share < 1, `${track} share ${summary.share}`);
  }
  assert.equal(await page.evaluate(() => window.sgpt.timing.level()), 'off');
  assert.deepEqual(problems, []);
});

test('?timing=trace calls console.timeStamp with its track arguments and retains nothing', {
  timeout: 90_000,
}, async (t) => {
  const context = await browserContext(t);
  const { page, problems } = await open(context, '?timing=trace');
  await page.waitForFunction(() => window.__timeStamps.count >= 20, null, { timeout: 30_000 });
  const calls = await page.evaluate(() => window.__timeStamps.first);
  const encode = calls.find((args) => args[3] === 'GPU encode');
  assert.ok(encode, `no GPU encode call among ${JSON.stringify(calls.slice(0, 5))}`);
  const [label, start, end, trackName, group, color] = encode;
  assert.equal(typeof label, 'string');
  assert.ok(typeof start === 'number' && typeof end === 'number' && end >= start && start > 0);
  assert.equal(trackName, 'GPU encode');
  assert.equal(group, 'sgpt');
  assert.equal(color, 'tertiary');
  assert.ok(calls.every((args) => args.length === 6 && TRACKS.includes(args[3])));
  assert.deepEqual(await ours(page), [], 'trace retains nothing');
  assert.deepEqual(await page.evaluate(() => window.sgpt.timing.drain()), []);
  assert.deepEqual(problems, []);
});

test('?timing=off emits nothing, and a level set from the console takes effect and is remembered', {
  timeout: 120_000,
}, async (t) => {
  const context = await browserContext(t);
  const { page, problems } = await open(context, '?timing=off');
  // Let some frames run: nothing may be emitted.
  await waitForState(page, ['running']);
  await animationFrames(page, 20);
  assert.equal(await page.evaluate(() => window.sgpt.timing.level()), 'off');
  assert.equal(await page.evaluate(() => window.__timeStamps.count), 0);
  assert.deepEqual(await ours(page), []);

  assert.equal(await page.evaluate(() => window.sgpt.timing.level('trace')), 'trace');
  await page.waitForFunction(() => window.__timeStamps.count > 0, null, { timeout: 30_000 });
  assert.deepEqual(await ours(page), []);

  await page.evaluate(() => window.sgpt.timing.level('full'));
  const traced = await page.evaluate(() => window.__timeStamps.count);
  await page.waitForFunction(
    () => performance.getEntriesByType('measure').some((m) => m.detail?.devtools?.track === 'GPU encode'),
    null,
    { timeout: 30_000 },
  );
  // The frames that ran at full did not trace too.
  assert.equal(await page.evaluate(() => window.__timeStamps.count), traced);
  assert.equal(await page.evaluate(() => localStorage.getItem('sgpt.timing')), 'full');
  const rejected = await page.evaluate(() => {
    try {
      window.sgpt.timing.level('loud');
      return null;
    } catch (error) {
      return error.message;
    }
  });
  assert.match(rejected, /expected off, trace or full/);

  // The stored preference applies from module start on the next visit without ?timing=.
  const { page: next } = await open(context, '');
  assert.equal(await next.evaluate(() => window.sgpt.timing.level()), 'full');
  const boot = (await ours(next)).filter((entry) => entry.devtools.track === 'Boot').map((entry) => entry.name);
  assert.ok(boot.includes('adapter'), `boot is timed from the stored level: ${boot}`);
  assert.deepEqual(problems, []);
});

test('sgpt.timing.bench returns a figure per level, restores the level and drains its entries', {
  timeout: 90_000,
}, async (t) => {
  const context = await browserContext(t, { counting: false });
  const { page, problems } = await open(context, '?timing=trace');
  const bench = await page.evaluate(() => window.sgpt.timing.bench(100));
  assert.equal(bench.iterations, 100);
  for (const key of ['emptyNs', 'offNs', 'traceNs', 'fullNs']) {
    assert.ok(Number.isFinite(bench[key]) && bench[key] >= 0, `${key}: ${bench[key]}`);
  }
  assert.equal(await page.evaluate(() => window.sgpt.timing.level()), 'trace', 'the bench restores the level');
  assert.deepEqual(await ours(page), [], 'the bench drains its entries');
  assert.deepEqual(problems, []);
});
