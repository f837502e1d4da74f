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

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CHROMIUM_ARGS, baseUrl, launchChromium } from './chromium.mjs';
import { sgptCli } from './sgpt_cli.mjs';

const FRAMES = 60;
const LEVEL = 'workload';
// The demo presents into a WebGPU canvas. With the shared flags alone, headless Chromium
// composites through GL while Dawn renders on Vulkan-SwiftShader, and the canvas's first
// frame destroys the device ("Device was destroyed."); ANGLE on the same Vulkan keeps both
// on one side. The compute-only pages need no canvas, so the flag stays here.
const DEMO_ARGS = [...CHROMIUM_ARGS, '--use-angle=vulkan'];

function sgpt(...args) {
  const cli = sgptCli();
  // The Chrome trace of a few hundred frames is a few MB.
  const run = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(run.error, undefined, `${cli} did not run: ${run.error}`);
  return { ...run, command: `${cli} ${args.join(' ')}` };
}

/** `sgpt <command> --json FILE`, parsed; the command must succeed. */
function sgptJson(command, file) {
  const run = sgpt(command, '--json', file);
  assert.equal(run.status, 0, `${run.command} exited ${run.status}\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** Per counter name, its sampled values in frame order, from the capture's Chrome trace. */
function counterSeries(file) {
  const run = sgpt('export', file, '--chrome', '-');
  assert.equal(run.status, 0, `${run.command} exited ${run.status}\n${run.stderr}`);
  const series = new Map();
  for (const event of JSON.parse(run.stdout).traceEvents) {
    if (event.ph !== 'C') continue;
    const values = series.get(event.name) ?? [];
    values.push(Object.values(event.args)[0]);
    series.set(event.name, values);
  }
  return series;
}

/** The page's last capture (window.sgpt.capture), written to a temporary file. */
async function saveCapture(t, page, name) {
  const base64 = await page.evaluate(async () => {
    const bytes = new Uint8Array(await window.sgpt.capture.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sgpt-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, name);
  fs.writeFileSync(file, Buffer.from(base64, 'base64'));
  return file;
}

/** Collects the page's Content-Security-Policy violations in window.__cspViolations. */
async function watchCsp(context) {
  await context.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
}

async function waitForState(page, states, timeout, log = []) {
  await page
    .waitForFunction((wanted) => wanted.includes(document.body.dataset.state), states, { timeout })
    .catch((error) => {
      throw new Error(`the demo never reached ${states.join(' or ')}: ${error.message}\n${log.join('\n')}`);
    });
  return page.evaluate(() => ({ ...document.body.dataset }));
}

test(`/demo/?record=${FRAMES}&level=${LEVEL} records a capture that validates and opens in the inspector`, {
  timeout: 150_000,
}, async (t) => {
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
  const context = await browser.newContext();
  await watchCsp(context);
  const page = await context.newPage();
  const log = [];
  const problems = [];
  page.on('console', (message) => log.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));

  const started = Date.now();
  await page.goto(`${baseUrl()}/demo/?record=${FRAMES}&level=${LEVEL}`);
  await page
    .waitForFunction(() => ['recorded', 'error'].includes(document.body.dataset.state), null, { timeout: 120_000 })
    .catch((error) => {
      throw new Error(`the demo never finished recording: ${error.message}\n${log.join('\n')}`);
    });
  const wallMs = Date.now() - started;
  const data = await page.evaluate(() => ({ ...document.body.dataset }));
  assert.equal(data.state, 'recorded', `page error: ${data.error}\n${log.join('\n')}`);
  assert.equal(Number(data.frames), FRAMES);
  assert.equal(data.backend, 'webgpu');

  // The Blob's bytes, as base64 (a plain array would be ten times larger over the protocol).
  const published = await page.evaluate(async () => {
    const bytes = new Uint8Array(await window.sgpt.capture.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    }
    return { base64: btoa(binary), url: window.sgpt.captureUrl, type: window.sgpt.capture.type };
  });
  const bytes = Buffer.from(published.base64, 'base64');
  assert.equal(bytes.length, Number(data.bytes), 'data-bytes is the Blob size');
  assert.match(published.url, /^blob:/);
  assert.equal(bytes.readUInt32LE(0), 0x54504753, 'the capture starts with the SGPT magic');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sgpt-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'demo.sgpt');
  fs.writeFileSync(file, bytes);

  const validate = sgpt('validate', file);
  assert.equal(validate.status, 0, `${validate.command} exited ${validate.status}\n${validate.stdout}${validate.stderr}`);

  const infoRun = sgpt('info', '--json', file);
  assert.equal(infoRun.status, 0, `${infoRun.command}: ${infoRun.stderr}`);
  const info = JSON.parse(infoRun.stdout);
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
    `?file=${encodeURIComponent(published.url)}`,
  );
  const [inspector] = await Promise.all([context.waitForEvent('page'), link.click()]);
  inspector.on('pageerror', (error) => problems.push(`inspector uncaught: ${error.message}`));
  await inspector.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, {
    timeout: 30_000,
  });
  const shown = await inspector.evaluate(() => ({
    ...document.body.dataset,
    path: location.pathname,
    error: document.getElementById('error')?.textContent,
  }));
  assert.equal(shown.state, 'ready', `inspector: ${shown.error}`);
  assert.equal(shown.path, '/');
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
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
  const context = await browser.newContext({ acceptDownloads: true });
  await watchCsp(context);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.goto(`${baseUrl()}/demo/`);
  await page.waitForFunction(() => ['running', 'error'].includes(document.body.dataset.state), null, {
    timeout: 60_000,
  });
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'running');
  assert.equal(await page.getByTestId('open-in-inspector').isVisible(), false, 'no capture yet');

  await page.selectOption('#level', 'timing');
  await page.fill('#frames', ''); // empty: until Stop
  await page.getByTestId('start').click();
  await page.waitForFunction(() => document.body.dataset.state === 'recording');
  // A few frames written, then Stop.
  await page.waitForFunction(() => /: ([5-9]|\d\d+) frames/.test(document.getElementById('status').textContent), null, {
    timeout: 30_000,
  });
  await page.getByTestId('stop').click();
  await page.waitForFunction(() => ['recorded', 'error'].includes(document.body.dataset.state), null, {
    timeout: 30_000,
  });
  const data = await page.evaluate(() => ({ ...document.body.dataset }));
  assert.equal(data.state, 'recorded', data.error);
  assert.equal(data.level, 'timing');
  assert.ok(Number(data.frames) >= 5, `${data.frames} frames`);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download').click()]);
  assert.equal(download.suggestedFilename(), `sgpt-demo-timing-${data.frames}f.sgpt`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sgpt-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, download.suggestedFilename());
  await download.saveAs(file);
  assert.equal(fs.statSync(file).size, Number(data.bytes));

  const validate = sgpt('validate', file);
  assert.equal(validate.status, 0, `${validate.command} exited ${validate.status}\n${validate.stdout}${validate.stderr}`);
  const info = JSON.parse(sgpt('info', '--json', file).stdout);
  assert.equal(info.level, 'timing');
  assert.equal(info.frames, Number(data.frames));
  assert.equal(info.closed, true);
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'the blob: download is allowed');
  assert.deepEqual(problems, []);
});

test('a capture cut by a device loss keeps every frame recorded before it', { timeout: 90_000 }, async (t) => {
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
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

  const bytes = Buffer.from(
    await page.evaluate(async () => {
      const bytes = new Uint8Array(await window.sgpt.capture.arrayBuffer());
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) {
        binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      return btoa(binary);
    }),
    'base64',
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sgpt-demo-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'lost.sgpt');
  fs.writeFileSync(file, bytes);
  const validate = sgpt('validate', file);
  const info = JSON.parse(sgpt('info', '--json', file).stdout);
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
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const log = [];
  const problems = [];
  page.on('console', (message) => log.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));

  await page.goto(`${baseUrl()}/demo/?record=${MEMORY_FRAMES}&level=${LEVEL}`);
  const data = await waitForState(page, ['recorded', 'error'], 200_000, log);
  assert.equal(data.state, 'recorded', `page error: ${data.error}\n${log.join('\n')}`);
  assert.equal(await page.isChecked('#memory'), true, 'memory is on by default');
  const file = await saveCapture(t, page, 'memory.sgpt');

  const validate = sgpt('validate', file);
  assert.equal(validate.status, 0, `${validate.command} exited ${validate.status}\n${validate.stdout}${validate.stderr}`);
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
  await waitForState(page, ['recording'], 30_000, log);
  await page.waitForFunction(() => /: ([5-9]|\d\d+) frames/.test(document.getElementById('status').textContent), null, {
    timeout: 30_000,
  });
  await page.getByTestId('stop').click();
  const again = await waitForState(page, ['recorded', 'error'], 60_000, log);
  assert.equal(again.state, 'recorded', again.error);
  const second = await saveCapture(t, page, 'again.sgpt');
  assert.equal(sgpt('validate', second).status, 0);
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
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  await page.goto(`${baseUrl()}/demo/?record=10&level=${LEVEL}&memory=0`);
  const data = await waitForState(page, ['recorded', 'error'], 60_000);
  assert.equal(data.state, 'recorded', data.error);
  assert.equal(await page.isChecked('#memory'), false, 'the panel shows memory off');
  const file = await saveCapture(t, page, 'no-memory.sgpt');
  assert.equal(sgpt('validate', file).status, 0);
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
