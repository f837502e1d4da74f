// Timing port bench: what one span costs at each level (two clock reads and one entry), the
// recorder's figure beside the same work done directly from JS in the same page, under the
// run conditions that could change the browser's own cost. Prints figures, asserts nothing
// about time (performance lives in benchmarks). Needs a built site (`cargo xtask web`):
//
//   node tests/bench/timing_bench.mjs [--dist DIR] [--spans N] [--rounds N] [--json]
//
// The page is served here: it loads the demo's module for its `sgpt.timing` API. It has no
// canvas, so the scene never boots and nothing else runs on the main thread or the GPU process
// during the loops (all conditions but the last, which times the demo page itself with its
// scene running). Each round times, in one page and on the page's own clock:
//
// - the anchors, in JS: an empty loop; two clock reads; two clock reads and
//   `console.timeStamp(label, start, end, track, group, color)`; two clock reads and
//   `performance.measure(name, {start, end, detail: {devtools}})`;
// - the recorder: `sgpt.timing.bench(N)` (a `Span` at `off`, `trace` and `full`).
//
// The first round is a warm-up and is not counted; the figures are medians of the others. The
// recorder's overhead is the difference from its anchor, and `x` the ratio.
//
// Conditions, one browser at a time:
//
// - `no CDP`: Chromium started with the page's URL and no DevTools protocol client at all; the
//   page posts its figures back to this script's server;
// - `Playwright`: the browser tests' launcher (a DevTools protocol client on a pipe, with the
//   Runtime domain enabled, which relays console messages to the client);
// - `Playwright + console listener`: the same with `page.on('console')` subscribed;
// - `Playwright + trace recording`: the same while a DevTools timeline trace records, which is
//   when `console.timeStamp` entries land somewhere;
// - `Playwright, scene running`: the /demo/ page at `?timing=off` with its WebGPU scene
//   drawing every frame beside the loops, as an application's page would.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';

import { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium } from '../browser/chromium.mjs';

const USAGE = 'usage: node tests/bench/timing_bench.mjs [--dist DIR] [--spans N] [--rounds N] [--json]';
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
// Chromium's finer clock (5 µs instead of 100 µs); it changes nothing in what runs.
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
// A DevTools timeline trace, the kind the Performance panel records.
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'];
// Arguments Playwright adds that decide how a headless tab is scheduled; the no-CDP launch
// takes them too, so that only the protocol client differs.
const SCHEDULING_ARGS = [
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-renderer-backgrounding',
];

function parseArgs(argv) {
  const options = { dist: resolve('dist'), spans: 10_000, rounds: 7, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') {
      options.json = true;
    } else if (arg === '--dist') {
      options.dist = resolve(argv[++i] ?? '');
    } else if (arg === '--spans' || arg === '--rounds') {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 1 || (arg === '--rounds' && value < 2)) {
        throw new Error(`${arg} needs a whole number (rounds: 2 or more, the first is a warm-up)\n${USAGE}`);
      }
      options[arg.slice(2)] = value;
    } else {
      throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    }
  }
  for (const file of ['sgpt-demo.js', 'sgpt-demo_bg.wasm']) {
    if (!existsSync(join(options.dist, 'demo', file))) {
      throw new Error(`${join(options.dist, 'demo', file)} is missing: run \`cargo xtask web\``);
    }
  }
  return options;
}

/** Runs in the page: the anchors, on the page's clock. Every loop reads the clock twice per
 *  iteration, as a span does, except the empty one. Entries are cleared by name after each
 *  loop, never inside it. Self-contained: it is sent to the page as source. */
function anchors(spans) {
  // Receivers held in locals, as the recorder holds them: looking up the performance global
  // costs about as much as the clock read itself, and the anchor is the browser's floor.
  const timeline = performance;
  const devConsole = console;
  const perSpan = (count, body) => {
    const started = timeline.now();
    for (let i = 0; i < count; i++) body(i);
    return ((timeline.now() - started) * 1e6) / count;
  };
  const detail = () => ({
    devtools: { dataType: 'track-entry', track: 'Engine', trackGroup: 'bench', color: 'primary' },
  });
  const empty = perSpan(spans * 100, () => {});
  const clock = perSpan(spans, () => {
    timeline.now();
    timeline.now();
  });
  // The same two reads through the global, for the footnote.
  const clockGlobal = perSpan(spans, () => {
    performance.now();
    performance.now();
  });
  const timeStamp = perSpan(spans, () => {
    const start = timeline.now();
    devConsole.timeStamp('bench', start, timeline.now(), 'Engine', 'bench', 'primary');
  });
  const measure = perSpan(spans, () => {
    const start = timeline.now();
    timeline.measure('bench-anchor', { start, end: timeline.now(), detail: detail() });
  });
  timeline.clearMeasures('bench-anchor');
  return { empty, clock, clockGlobal, timeStamp, measure };
}

const PAGE_SCRIPT = String.raw`
import init from '/demo/sgpt-demo.js';

const params = new URLSearchParams(location.search);
const spans = Number(params.get('spans'));
const rounds = Number(params.get('rounds'));

${anchors}

async function run() {
  await init({ module_or_path: '/demo/sgpt-demo_bg.wasm' });
  const timing = window.sgpt?.timing;
  if (!timing) throw new Error('the demo module did not install sgpt.timing');
  const samples = [];
  for (let round = 0; round < rounds; round++) {
    const js = anchors(spans);
    const recorder = timing.bench(spans);
    samples.push({ js, recorder });
    // Let the page breathe between rounds (GC, the protocol client's reads).
    await new Promise((done) => setTimeout(done, 20));
  }
  return { userAgent: navigator.userAgent, isolated: crossOriginIsolated, samples };
}

let report;
try {
  report = await run();
} catch (error) {
  report = { error: String(error?.stack ?? error) };
}
await fetch('/timing-bench/report', { method: 'POST', body: JSON.stringify(report) });
document.title = 'done';
`;

const PAGE = `<!doctype html><meta charset="utf-8"><title>sgpt timing bench</title>
<body><script type="module" src="/timing-bench/page.js"></script></body>`;

/** Serves `dist` and the bench page; `next()` resolves with the next posted report. */
async function serve(dist) {
  let waiting = null;
  const server = createServer((request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    const send = (status, type, body) => {
      response.writeHead(status, { 'Content-Type': type, ...ISOLATION });
      response.end(body);
    };
    if (request.method === 'POST' && path === '/timing-bench/report') {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        send(204, 'text/plain', '');
        waiting?.(JSON.parse(body));
        waiting = null;
      });
      return;
    }
    if (path === '/timing-bench/') return send(200, 'text/html', PAGE);
    if (path === '/timing-bench/page.js') return send(200, 'text/javascript', PAGE_SCRIPT);
    const file = normalize(join(dist, decodeURIComponent(path), path.endsWith('/') ? 'index.html' : ''));
    const type = TYPES[extname(file)];
    if (!file.startsWith(dist + sep) || !type || !existsSync(file)) return send(404, 'text/plain', 'not found');
    return send(200, type, readFileSync(file));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const next = (timeoutMs) =>
    new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no report from the page in ${timeoutMs / 1000} s`)), timeoutMs);
      waiting = (report) => {
        clearTimeout(timer);
        done(report);
      };
    });
  return { origin, next, close: () => server.close() };
}

/** The demo page at `?timing=off`, its scene drawing on WebGPU, timed from Playwright. */
async function sceneRunning(origin, options) {
  // See tests/browser/demo.test.mjs: a WebGPU canvas needs ANGLE on Vulkan when headless.
  const browser = await launchChromium({ args: [...CHROMIUM_ARGS, '--use-angle=vulkan'] });
  try {
    const page = await browser.newPage();
    await page.goto(`${origin}/demo/?timing=off`);
    await page.waitForFunction(() => ['running', 'error'].includes(document.body.dataset.state), null, {
      timeout: 120_000,
    });
    const state = await page.evaluate(() => ({ ...document.body.dataset }));
    if (state.state !== 'running') return { error: `the demo scene did not run: ${state.error}` };
    const samples = [];
    for (let round = 0; round < options.rounds; round++) {
      const js = await page.evaluate(anchors, options.spans);
      const recorder = await page.evaluate((n) => window.sgpt.timing.bench(n), options.spans);
      samples.push({ js, recorder });
    }
    const userAgent = await page.evaluate(() => navigator.userAgent);
    return { userAgent, isolated: await page.evaluate(() => crossOriginIsolated), samples };
  } finally {
    await browser.close();
  }
}

/** Chromium with no DevTools protocol client: it opens the URL itself. */
async function noCdp(url, next) {
  const profile = mkdtempSync(join(tmpdir(), 'sgpt-timing-bench-'));
  const args = ['--headless', ...CHROMIUM_ARGS, ...SCHEDULING_ARGS, `--user-data-dir=${profile}`, url];
  const child = spawn(CHROMIUM_PATH, args, { stdio: 'ignore', detached: true });
  try {
    return await next(120_000);
  } finally {
    // The launcher is a shell script: end its whole process group.
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {}
    await new Promise((done) => setTimeout(done, 500));
    rmSync(profile, { recursive: true, force: true });
  }
}

async function playwright(url, next, { console: listen = false, tracing = false } = {}) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    if (listen) page.on('console', () => {});
    if (tracing) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    const report = next(120_000);
    await page.goto(url);
    const result = await report;
    if (tracing) await browser.stopTracing();
    return result;
  } finally {
    await browser.close();
  }
}

const CONDITIONS = [
  { name: 'no CDP', run: (url, next) => noCdp(url, next) },
  { name: 'Playwright', run: (url, next) => playwright(url, next) },
  { name: 'Playwright + console listener', run: (url, next) => playwright(url, next, { console: true }) },
  { name: 'Playwright + trace recording', run: (url, next) => playwright(url, next, { tracing: true }) },
  { name: 'Playwright, scene running', run: (_url, _next, origin, options) => sceneRunning(origin, options) },
];

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Medians over the counted rounds (all but the first). */
function summarize(report) {
  const counted = report.samples.slice(1);
  const pick = (get) => median(counted.map(get));
  return {
    jsEmpty: pick((s) => s.js.empty),
    jsClock: pick((s) => s.js.clock),
    jsTimeStamp: pick((s) => s.js.timeStamp),
    jsMeasure: pick((s) => s.js.measure),
    wasmEmpty: pick((s) => s.recorder.emptyNs),
    off: pick((s) => s.recorder.offNs),
    trace: pick((s) => s.recorder.traceNs),
    full: pick((s) => s.recorder.fullNs),
    jsClockGlobal: pick((s) => s.js.clockGlobal),
  };
}

const fixed = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

function table(results, options) {
  const head = [
    'condition'.padEnd(32),
    'JS empty',
    'JS 2 reads',
    'JS trace',
    'JS full',
    'off',
    'trace',
    'x JS',
    'full',
    'x JS',
  ];
  const widths = head.map((cell) => cell.length);
  const row = (cells) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]) : cell.padStart(widths[i] + 2))).join('');
  const lines = [
    `ns per span (two clock reads and one entry), medians of ${options.rounds - 1} rounds of ${options.spans} spans ` +
      `after a warm-up round; ${results[0].report.userAgent}`,
    'JS trace, JS full: the same span made directly from JS; x JS: the recorder over it',
    '',
    row(head),
  ];
  for (const { name, figures: f } of results) {
    lines.push(
      row([
        name,
        fixed(f.jsEmpty, 1),
        fixed(f.jsClock),
        fixed(f.jsTimeStamp),
        fixed(f.jsMeasure),
        fixed(f.off, 1),
        fixed(f.trace),
        fixed(f.trace / f.jsTimeStamp, 2),
        fixed(f.full),
        fixed(f.full / f.jsMeasure, 2),
      ]),
    );
  }
  const global = results.map(({ name, figures: f }) => `${name} ${fixed(f.jsClockGlobal)}`).join(', ');
  lines.push('', `JS 2 reads through the \`performance\` global instead of a held object: ${global} ns`);
  return lines.join('\n');
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const server = await serve(options.dist);
const url = `${server.origin}/timing-bench/?spans=${options.spans}&rounds=${options.rounds}`;
const results = [];
try {
  for (const condition of CONDITIONS) {
    const report = await condition.run(url, server.next, server.origin, options);
    if (report.error) throw new Error(`${condition.name}: ${report.error}`);
    results.push({ name: condition.name, report, figures: summarize(report) });
  }
} finally {
  server.close();
}
console.log(options.json ? JSON.stringify(results, null, 2) : table(results, options));
