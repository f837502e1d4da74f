// The GPU smoke page (gpu-smoke/, Rust/WASM) obtains a WebGPU adapter with timestamp-query in
// headless Chromium (SwiftShader) and measures one compute pass with timestamp_writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { baseUrl, chromiumForTest } from './chromium.mjs';
import { collectUncaught, consoleLog, waitForState } from './inspector_helpers.mjs';

test('the GPU smoke page measures a compute pass on WebGPU', { timeout: 120_000 }, async (t) => {
  const browser = await chromiumForTest(t);
  const page = await browser.newPage();
  // What the page said, uncaught errors among it, for the message of a failure.
  const log = collectUncaught(page, consoleLog(page), 'pageerror');

  await page.goto(`${baseUrl()}/gpu-smoke/`);
  const data = await waitForState(page, ['ready', 'error'], { timeout: 90_000, log });
  const text = await page.textContent('#result');
  assert.equal(data.state, 'ready', `page error: ${data.error}\n${log.join('\n')}`);

  const duration = BigInt(data.durationNs);
  const begin = BigInt(data.beginNs);
  const end = BigInt(data.endNs);
  assert.ok(duration > 0n, `duration ${duration} ns`);
  assert.ok(end > begin, `begin ${begin} ns, end ${end} ns`);
  assert.equal(end - begin, duration);
  assert.equal(data.backend, 'webgpu');
  assert.ok(data.adapter !== undefined, 'data-adapter is set');
  assert.match(text, new RegExp(`${duration} ns`));
  console.log(`browser: ${text}`);
});
