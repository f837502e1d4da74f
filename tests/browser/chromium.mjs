// Shared launcher for the browser tests: Debian's Chromium with real WebGPU on SwiftShader.
// playwright-core never downloads a browser, so the executable path is explicit.
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

/** The site under test, served by `cargo xtask test` (or `cargo xtask serve`). */
export function baseUrl() {
  const url = process.env.SGPT_BASE_URL;
  if (!url) {
    throw new Error('SGPT_BASE_URL is not set; run the browser tests through `cargo xtask test`');
  }
  return url.replace(/\/$/, '');
}
