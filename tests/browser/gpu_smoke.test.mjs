// The GPU smoke page (gpu-smoke/, Rust/WASM) obtains a WebGPU adapter with timestamp-query in
// headless Chromium (SwiftShader) and measures one compute pass with timestamp_writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { baseUrl, launchChromium } from './chromium.mjs';

test('the GPU smoke page measures a compute pass on WebGPU', { timeout: 120_000 }, async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const console_ = [];
    page.on('console', (msg) => console_.push(`${msg.type()}: ${msg.text()}`));
    page.on('pageerror', (err) => console_.push(`pageerror: ${err.message}`));

    await page.goto(`${baseUrl()}/gpu-smoke/`);
    await page
      .waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, {
        timeout: 90_000,
      })
      .catch((err) => {
        throw new Error(`the page never left "loading": ${err.message}\n${console_.join('\n')}`);
      });

    const data = await page.evaluate(() => ({ ...document.body.dataset }));
    const text = await page.textContent('#result');
    assert.equal(data.state, 'ready', `page error: ${data.error}\n${console_.join('\n')}`);

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
  } finally {
    await browser.close();
  }
});
