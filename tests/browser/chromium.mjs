// Shared launcher for the browser tests: Debian's Chromium with real WebGPU on SwiftShader.
// playwright-core never downloads a browser, so the executable path is explicit.
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

// `--enable-unsafe-webgpu` is the flag that matters (without it wgpu
// finds no adapter); `--no-sandbox` is needed when running as root; the rest keep Chromium offline
// and quiet.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

// For pages that present into a WebGPU canvas (the demo). With the flags above alone,
// headless Chromium composites through GL while Dawn renders on Vulkan-SwiftShader, and the
// canvas's first frame destroys the device ("Device was destroyed."); ANGLE on the same
// Vulkan keeps both on one side. The compute-only pages need no canvas, so they go without.
export const WEBGPU_CANVAS_ARGS = [...CHROMIUM_ARGS, '--use-angle=vulkan'];

export const CHROMIUM_PATH = process.env.SGPT_CHROMIUM ?? '/usr/bin/chromium';

/** Launches headless Chromium; the caller closes the returned browser. */
export function launchChromium(options = {}) {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    ...options,
  });
}

/** Launches Chromium for test `t` alone, and closes it after the test. */
export async function chromiumForTest(t, options = {}) {
  const browser = await launchChromium(options);
  t.after(() => browser.close());
  return browser;
}

/** One Chromium for every test of the calling file: launched before the first, closed after
 *  the last. Returns what the tests use of it, bound once it is launched. */
export function chromiumForFile() {
  let browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return { newContext: (options) => browser.newContext(options) };
}

/** The site under test, served by `cargo xtask test` (or `cargo xtask serve`). */
export function baseUrl() {
  const url = process.env.SGPT_BASE_URL;
  if (!url) {
    throw new Error('SGPT_BASE_URL is not set; run the browser tests through `cargo xtask test`');
  }
  return url.replace(/\/$/, '');
}
