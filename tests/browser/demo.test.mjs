// The /demo/ page records the demo scene on the browser's WebGPU (SwiftShader in headless
// Chromium) into a Blob, and hands it to the inspector the way a user would: an object URL
// in /?file=, opened in a new tab. The capture's bytes must pass `sgpt validate`, and its
// META must say what WebGPU honestly tells about the adapter (the backend; the adapter name
// is hidden by WebGPU).
//
// The page reports on <body>: data-state (loading, running, recording, recorded, error),
// data-error, data-backend, data-timestamp-query, and for the capture data-frames,
// data-bytes and data-record-ms.
//
// Recordings include the demo's memory profile unless `?memory=0`: domain gauges
// (memory/<domain>/<field>), provider metrics (provider/<metric>) and a MEMO record of the
// capture around the scene unload (frame 80) and reload (120), checkpointed at 40, 80, 160.
//
// The demo presents into a WebGPU canvas, so its Chromium runs with WEBGPU_CANVAS_ARGS
// (chromium.mjs says why).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { WEBGPU_CANVAS_ARGS, baseUrl, chromiumForTest } from './chromium.mjs';
import { collectUncaught, consoleLog, waitForState, watchCsp } from './inspector_helpers.mjs';
import { runSgpt, sgptJson, sgptOutput } from './sgpt_cli.mjs';

const FRAMES = 60;
const LEVEL = 'workload';

/** A fresh temporary folder, removed after test `t`. */
function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sgpt-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Asserts that `sgpt validate` finds nothing wrong with `file`. */
function assertValidates(file) {
  const validate = runSgpt('validate', file);
  assert.equal(validate.status, 0, `${validate.command} exited ${validate.status}\n${validate.stdout}${validate.stderr}`);
}

/** Per counter name, its sampled values in frame order, from the capture's Chrome trace. */
function counterSeries(file) {
  const series = new Map();
  for (const event of JSON.parse(sgptOutput('export', file, '--chrome', '-')).traceEvents) {
    if (event.ph !== 'C') continue;
    const values = series.get(event.name) ?? [];
    values.push(Object.values(event.args)[0]);
    series.set(event.name, values);
  }
  return series;
}

/** The page's last capture (window.sgpt.capture), written to a temporary file. */
async function saveCapture(t, page, name) {
  // The Blob's bytes, as base64 (a plain array would be ten times larger over the protocol).
  const base64 = await page.evaluate(async () => {
    const bytes = new Uint8Array(await window.sgpt.capture.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  });
  const file = path.join(tempDir(t), name);
  fs.writeFileSync(file, Buffer.from(base64, 'base64'));
  return file;
}

/** Waits until the Record panel's status says at least five frames are written. */
async function framesWritten(page) {
  await page.waitForFunction(() => /: ([5-9]|\d\d+) frames/.test(document.getElementById('status').textContent), null, {
    timeout: 30_000,
  });
}

test(`/demo/?record=${FRAMES}&level=${LEVEL} records a capture that validates and opens in the inspector`, {
  timeout: 150_000,
}, async (t) => {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const context = await browser.newContext();
  await watchCsp(context);
  const page = await context.newPage();
  const log = consoleLog(page);
  const problems = collectUncaught(page);

  const started = Date.now();
  await page.goto(`${baseUrl()}/demo/?record=${FRAMES}&level=${LEVEL}`);
  const data = await waitForState(page, ['recorded', 'error'], { timeout: 120_000, log });
  const wallMs = Date.now() - started;
  assert.equal(data.state, 'recorded', `page error: ${data.error}\n${log.join('\n')}`);
  assert.equal(Number(data.frames), FRAMES);
  assert.equal(data.backend, 'webgpu');

  const file = await saveCapture(t, page, 'demo.sgpt');
  const bytes = fs.readFileSync(file);
  const captureUrl = await page.evaluate(() => window.sgpt.captureUrl);
  assert.equal(bytes.length, Number(data.bytes), 'data-bytes is the Blob size');
  assert.match(captureUrl, /^blob:/);
  assert.equal(bytes.readUInt32LE(0), 0x54504753, 'the capture starts with the SGPT magic');

  assertValidates(file);

  const info = sgptJson('info', file);
  assert.equal(info.closed, true);
  assert.equal(info.frames, FRAMES);
  assert.equal(info.level, LEVEL);
  assert.deepEqual(info.defects, []);
  // WebGPU hides adapter names and ids: the backend is what it honestly tells.
  assert.equal(info.meta.adapter.backend, 'webgpu');
  assert.equal(info.meta.application, 'sgpt-demo');
  assert.equal(info.meta.timestamp_query, data.timestampQuery === 'true');
  // SwiftShader exposes timestamp-query, so GPU spans are there.
  assert.equal(info.meta.timestamp_query, true, 'SwiftShader WebGPU has timestamp-query');
  assert.ok(info.spans > 0, `${info.spans} spans`);
  const settings = Object.fromEntries(info.meta.settings.map(({ name, value }) => [name, value]));
  assert.match(settings.user_agent ?? '', /Chrome/, 'the browser is named in META settings');
  // What GPUAdapterInfo tells, here the adapter the flags chose.
  assert.equal(settings['webgpu_adapter.architecture'], 'swiftshader');
  assert.ok(info.gpu_passes.some((pass) => /^hzb /.test(pass.label)), 'the HZB passes are recorded');

  // The link hands the object URL to the inspector in a new tab; this tab keeps the Blob.
  const link = page.getByTestId('open-in-inspector');
  assert.equal(await link.isVisible(), true);
  assert.equal(
    new URL(await link.evaluate((a) => a.href)).search,
    `?file=${encodeURIComponent(captureUrl)}`,
  );
  const [inspector] = await Promise.all([context.waitForEvent('page'), link.click()]);
  collectUncaught(inspector, problems, 'inspector uncaught');
  const shown = await waitForState(inspector, ['ready', 'error'], { timeout: 30_000 });
  assert.equal(shown.state, 'ready', `inspector: ${await inspector.textContent('#error')}`);
  assert.equal(new URL(inspector.url()).pathname, '/');
  assert.equal(Number(shown.frames), FRAMES);

  // Both pages ran under their Content-Security-Policy, the inspector reading the demo's blob: URL.
  assert.match(await page.$eval('meta[http-equiv=Content-Security-Policy]', (m) => m.content), /default-src 'none'/);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(await inspector.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems, []);
  console.log(
    `demo: ${FRAMES} frames at ${LEVEL} recorded in ${(Number(data.recordMs) / 1e3).toFixed(1)} s ` +
      `(${(wallMs / 1e3).toFixed(1)} s from navigation), ${bytes.length} bytes, ${info.spans} spans, ` +
      `${info.dropped_spans} dropped, timestamp-query ${info.meta.timestamp_query}`,
  );
});

test('the Record panel records until Stop, and Download saves the capture', { timeout: 90_000 }, async (t) => {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const context = await browser.newContext({ acceptDownloads: true });
  await watchCsp(context);
  const page = await context.newPage();
  const problems = collectUncaught(page);
  await page.goto(`${baseUrl()}/demo/`);
  assert.equal((await waitForState(page, ['running', 'error'], { timeout: 60_000 })).state, 'running');
  assert.equal(await page.getByTestId('open-in-inspector').isVisible(), false, 'no capture yet');

  await page.selectOption('#level', 'timing');
  await page.fill('#frames', ''); // empty: until Stop
  await page.getByTestId('start').click();
  await waitForState(page, ['recording']);
  // A few frames written, then Stop.
  await framesWritten(page);
  await page.getByTestId('stop').click();
  const data = await waitForState(page, ['recorded', 'error'], { timeout: 30_000 });
  assert.equal(data.state, 'recorded', data.error);
  assert.equal(data.level, 'timing');
  assert.ok(Number(data.frames) >= 5, `${data.frames} frames`);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  assert.equal(download.suggestedFilename(), `sgpt-demo-timing-${data.frames}f.sgpt`);
  const file = path.join(tempDir(t), download.suggestedFilename());
  await download.saveAs(file);
  assert.equal(fs.statSync(file).size, Number(data.bytes));

  assertValidates(file);
  const info = JSON.parse(runSgpt('info', '--json', file).stdout);
  assert.equal(info.level, 'timing');
  assert.equal(info.frames, Number(data.frames));
  assert.equal(info.closed, true);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'the blob: download is allowed');
  assert.deepEqual(problems, []);
});

test('a capture cut by a device loss keeps every frame recorded before it', { timeout: 90_000 }, async (t) => {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const page = await browser.newPage();
  // Frame 10 destroys the device, as a driver reset would, while 30 frames are asked for.
  await page.goto(`${baseUrl()}/demo/?record=30&level=${LEVEL}&lose-device=10`);
  await page.waitForFunction(() => window.sgpt?.capture !== undefined, null, { timeout: 60_000 });
  const data = await page.evaluate(() => ({ ...document.body.dataset }));
  assert.equal(data.state, 'error');
  assert.match(data.error, /device was lost/);
  const frames = Number(data.frames);
  // The browser reports the loss asynchronously: until its callback runs, the page may render
  // on the destroyed device, at most its two frames in flight (their GPU work never completes).
  assert.ok(frames >= 1 && frames <= 12, `${frames} frames before the loss was reported`);

  const file = await saveCapture(t, page, 'lost.sgpt');
  const validate = runSgpt('validate', file);
  const info = JSON.parse(runSgpt('info', '--json', file).stdout);
  console.log(`device lost at frame 10: ${info.frames} frames kept, ${info.dropped_spans} dropped spans, ` +
    `closed ${info.closed}, validate exit ${validate.status}, defects ${JSON.stringify(info.defects)}`);
  assert.equal(info.frames, frames);
  assert.equal(validate.status, 0, `${validate.command} exited ${validate.status}\n${validate.stdout}${validate.stderr}`);
});

// wgpu's internal counters the recorder declares; the browser's WebGPU has none of them.
const WGPU_COUNTERS = [
  'buffer_memory',
  'texture_memory',
  'memory_allocations',
  'buffers',
  'textures',
  'texture_views',
  'bind_groups',
  'samplers',
  'query_sets',
];
// Past the last checkpoint (frame 160).
const MEMORY_FRAMES = 170;

test(`/demo/?record=${MEMORY_FRAMES} records the memory profile, and a second recording stopped early records it again`, {
  timeout: 240_000,
}, async (t) => {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const page = await browser.newPage();
  const log = consoleLog(page);
  const problems = collectUncaught(page);

  await page.goto(`${baseUrl()}/demo/?record=${MEMORY_FRAMES}&level=${LEVEL}`);
  const data = await waitForState(page, ['recorded', 'error'], { timeout: 200_000, log });
  assert.equal(data.state, 'recorded', `page error: ${data.error}\n${log.join('\n')}`);
  assert.equal(await page.isChecked('#memory'), true, 'memory is on by default');
  const file = await saveCapture(t, page, 'memory.sgpt');

  assertValidates(file);
  const info = sgptJson('info', file);
  assert.equal(info.frames, MEMORY_FRAMES);
  assert.deepEqual(info.defects, []);
  const declared = new Set(info.counters.map((counter) => counter.name));
  const providers = ['wasm.linear_memory', 'gpu.declared_bytes', ...WGPU_COUNTERS.map((name) => `wgpu.${name}`)];
  for (const name of [
    ...['scene', 'particles', 'scratch'].map((domain) => `memory/${domain}/live_bytes`),
    ...providers.map((metric) => `provider/${metric}`),
  ]) {
    assert.ok(declared.has(name), `${name} is declared: ${[...declared].join(', ')}`);
  }
  const providerNotes = info.notes.filter((note) => note.text.startsWith('provider '));
  assert.deepEqual(
    providerNotes,
    WGPU_COUNTERS.map((name) => ({
      frame_number: 0,
      text: `provider wgpu.${name} unavailable: the browser's WebGPU exposes no internal counters`,
    })),
    'each wgpu counter is noted unavailable at the first frame, and only those',
  );

  const series = counterSeries(file);
  const scene = series.get('memory/scene/live_bytes') ?? [];
  assert.equal(scene.length, MEMORY_FRAMES, 'the scene gauge is sampled every frame');
  for (const domain of ['particles', 'scratch']) {
    assert.ok((series.get(`memory/${domain}/live_bytes`) ?? []).every((bytes) => bytes > 0), `${domain} holds bytes`);
  }
  // The gauge is sampled after the frame's memory work: frame 80 unloads, 120 reloads.
  assert.ok(scene[80] < scene[79], `the unload shows in the scene gauge: ${scene[79]} -> ${scene[80]}`);
  assert.equal(scene[120], scene[79], 'the reload brings the scene back to its loaded size');

  const linear = series.get('provider/wasm.linear_memory') ?? [];
  assert.equal(linear.length, MEMORY_FRAMES, 'linear memory is sampled every frame');
  assert.ok(linear.every((bytes) => bytes > 0 && bytes % 65536 === 0), 'whole wasm pages');
  assert.ok(linear.every((bytes, i) => i === 0 || bytes >= linear[i - 1]), 'linear memory never shrinks');
  const declaredBytes = series.get('provider/gpu.declared_bytes') ?? [];
  assert.equal(declaredBytes.length, MEMORY_FRAMES, 'every frame has a frame graph at workload');
  assert.ok(declaredBytes.every((bytes) => bytes > 0));
  for (const name of WGPU_COUNTERS) {
    assert.equal(series.get(`provider/wgpu.${name}`), undefined, `wgpu.${name} is never sampled, not 0`);
  }

  const memory = sgptJson('memory', file);
  assert.equal(memory.memory_records, 1);
  assert.equal(memory.source, 'memory_record');
  assert.equal(memory.loss, null);
  assert.equal(memory.reconciliation.status, 'exact', 'a complete capture that reconciles');
  assert.deepEqual(memory.domains.map((domain) => domain.name), ['scene', 'particles', 'scratch']);
  const pair = (from, to) => {
    const found = memory.checkpoints.find((c) => c.from === from && c.to === to);
    assert.ok(found, `${from} -> ${to}: ${JSON.stringify(memory.checkpoints.map((c) => [c.from, c.to]))}`);
    return found;
  };
  assert.ok(pair('loaded', 'unloaded').released_blocks > 0, 'the unload releases the scene data');
  const reload = pair('unloaded', 'reloaded');
  assert.ok(reload.new_live_blocks > 0, 'the reload allocates the scene data again');
  assert.ok(reload.survivor_blocks >= 2, 'the name table and the particle state survive');
  assert.ok(pair('loaded', 'end').survivors.length > 0);
  console.log(
    `demo memory: ${MEMORY_FRAMES} frames at ${LEVEL} recorded in ${(Number(data.recordMs) / 1e3).toFixed(1)} s, ` +
      `${data.bytes} bytes; linear memory ${linear[0]} -> ${linear.at(-1)} B; declared ` +
      `${declaredBytes[0]} B; survivors loaded -> end ${pair('loaded', 'end').survivor_blocks}`,
  );

  // Again on the same page, stopped early: the domains are the same, and the capture
  // begins again on empty domains once the first one was released.
  await page.fill('#frames', '');
  await page.getByTestId('start').click();
  await waitForState(page, ['recording'], { timeout: 30_000, log });
  await framesWritten(page);
  await page.getByTestId('stop').click();
  const again = await waitForState(page, ['recorded', 'error'], { timeout: 60_000, log });
  assert.equal(again.state, 'recorded', again.error);
  const second = await saveCapture(t, page, 'again.sgpt');
  assert.equal(runSgpt('validate', second).status, 0);
  const frames = Number(again.frames);
  const secondMemory = sgptJson('memory', second);
  assert.equal(secondMemory.memory_records, 1, 'the early stop still exports the memory capture');
  assert.equal(secondMemory.reconciliation.status, 'exact', 'complete again: every domain began empty');
  assert.equal(
    secondMemory.checkpoints.some((c) => c.from === 'loaded'),
    frames > 40,
    `${frames} frames: the checkpoints reached, and only those`,
  );
  const secondSeries = counterSeries(second);
  assert.equal((secondSeries.get('memory/scene/live_bytes') ?? []).length, frames);
  assert.equal((secondSeries.get('provider/wasm.linear_memory') ?? []).length, frames);
  assert.deepEqual(problems, []);
});

test('?memory=0 records no memory gauges, provider metrics or memory capture', { timeout: 90_000 }, async (t) => {
  const browser = await chromiumForTest(t, { args: WEBGPU_CANVAS_ARGS });
  const page = await browser.newPage();
  const problems = collectUncaught(page);
  await page.goto(`${baseUrl()}/demo/?record=10&level=${LEVEL}&memory=0`);
  const data = await waitForState(page, ['recorded', 'error'], { timeout: 60_000 });
  assert.equal(data.state, 'recorded', data.error);
  assert.equal(await page.isChecked('#memory'), false, 'the panel shows memory off');
  const file = await saveCapture(t, page, 'no-memory.sgpt');
  assert.equal(runSgpt('validate', file).status, 0);
  const info = sgptJson('info', file);
  assert.equal(info.frames, 10);
  const named = info.counters.map((counter) => counter.name);
  assert.deepEqual(named.filter((name) => /^(memory|provider)\//.test(name)), []);
  assert.deepEqual(info.notes.filter((note) => note.text.startsWith('provider ')), []);
  const memory = sgptJson('memory', file);
  assert.equal(memory.memory_records, 0);
  assert.equal(memory.source, 'none');
  assert.deepEqual(problems, []);
});
