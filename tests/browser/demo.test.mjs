// The /demo/ page records the demo scene on the browser's WebGPU (SwiftShader in headless
// Chromium) into a Blob, and hands it to the inspector the way a user would: an object URL
// in /?file=, opened in a new tab. The capture's bytes must pass `sgpt validate`, and its
// META must say what WebGPU honestly tells about the adapter (the backend; the adapter name
// is hidden by WebGPU).
//
// The page reports on <body>: data-state (loading, running, recording, recorded, error),
// data-error, data-backend, data-timestamp-query, and for the capture data-frames,
// data-bytes and data-record-ms.

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
  const run = spawnSync(cli, args, { encoding: 'utf8' });
  assert.equal(run.error, undefined, `${cli} did not run: ${run.error}`);
  return { ...run, command: `${cli} ${args.join(' ')}` };
}

test(`/demo/?record=${FRAMES}&level=${LEVEL} records a capture that validates and opens in the inspector`, {
  timeout: 150_000,
}, async (t) => {
  const browser = await launchChromium({ args: DEMO_ARGS });
  t.after(() => browser.close());
  const context = await browser.newContext();
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
  // SwiftShader exposes timestamp-query (TOOLCHAIN.md), so GPU spans are there.
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
  assert.ok(frames >= 1 && frames <= 10, `${frames} frames before the loss`);

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
