// Inspector bench: prints figures, asserts nothing about time (performance
// lives in benchmarks). Run after `cargo xtask web`, `cargo build --release -p sgpt-cli`
// and, for `--workers`, `cargo build --release -p sgpt-format --example roofline`:
//
//   node tests/bench/inspector_bench.mjs [--sizes 10mb,100mb,hour,hour-memory]
//                                        [--cpu-slowdown 4] [--speedscope-limit-s 120]
//                                        [--pair hour [--pair-only]] [--trace-long-tasks]
//                                        [--workers 0,1,2] [--loads 3]
//
// `--workers N,...` loads each capture once per count of statistics workers
// (`?workers=N`; 0 is the page alone) and prints the time to full statistics of each,
// beside the roofline of that file (reading its bytes, and decoding every span's duration
// as the statistics read them, on one core: the `roofline` example, median of 5) and
// `sgpt stats` on 1 and 2 threads (median of 3), all measured in the same run, each figure
// also as a share of the roofline. The first count gets the full set of figures below,
// and its time with the capture opened from disk (the file picker, from the moment the
// file is chosen) as well as by its link. `--loads N` takes each count's time to full
// statistics, and the renderer's memory growth, as the median of N loads (the extra ones
// measure those alone): one load's time moves by a fifth between runs on this machine,
// more than most changes it judges, and its memory growth by more than a tenth of the file.
//
// `--pair SIZE` also compares that capture with another run of its workload (`sgpt synth
// --run 2`): `sgpt stats` on one, `sgpt diff` on the two, and the inspector opened on both
// (`?file=B&base=A`) to its verdicts, in one run; `--pair-only` prints only that. For the
// inspector it prints the time to the verdicts (the median pair of `--loads`), also as a
// share of the inspector's own time to full statistics of the one capture in the same run
// (the comparison goal read within the browser), the CPU every Chromium process spent to
// them against `sgpt diff`'s own (median of 3), when the candidate's strip, the statistics
// and the verdicts were shown, the jobs' phases, and the shares logged in any task over 50 ms.
//
// Setup generates `sgpt synth` captures (200 passes a frame, level timing) into
// target/bench-captures/ (never committed): ~10 MB, ~100 MB and one hour at 60 fps
// (216,000 frames), the hour again with memory gauges and provider metrics every frame
// (`sgpt synth --memory`), plus ~1 MB for speedscope. The browser tests' large captures
// are sizes too, for their task figures (the tests judge slices in units, never in ms):
//
//   node tests/bench/inspector_bench.mjs --sizes 60k,60k-never-closed,20k-memory --cpu-slowdown 4
//
// `60k` is tests/browser/inspector_load.test.mjs's indexed capture, `60k-never-closed` the
// same cut as a writer that never stopped leaves it, `20k-memory` the memory test's
// capture with gauges. For each it measures, in headless
// Chromium, with the CPU slowed `--cpu-slowdown` times while the capture loads (DevTools'
// CPU throttling; 1, the default, is this machine's speed):
// - time to frame strip: navigation start to body[data-state=ready] (strip painted from
//   the directory, before any frame decodes);
// - time to full statistics: to body[data-stats=ready] over every frame (stamped in the
//   page as the flag is set; polling for it added up to 100 ms);
// - CPU to full statistics, with the first count of workers: the CPU time every Chromium
//   process of the bench used from navigation to full statistics (/proc's user and system
//   times, by kind of process, and the renderer's by thread: the page's, the workers',
//   and the thread pool's, where V8 compiles the hot wasm again), against `sgpt stats`'
//   own on 1 thread (median of 3), and that CPU spread over this machine's cores: the
//   least time the load could take here however well its work were spread, beside the
//   time it took;
// - time to every frame checked: to body[data-verified=true] (every frame decoded whole,
//   which the workers take on once the statistics are done);
// - time to memory lane, for captures with memory gauges: to body[data-memory=ready] (the
//   sampled gauges read, the lane under the strip drawn);
// - longest task: the longest the page's thread was busy without a break, from navigation
//   until every job of the load (statistics, comparison, verification) is done, and how
//   many tasks took over 50 ms (PerformanceObserver, `longtask`), and the page's slice
//   log: how many slices each job ran in, the most units one did against its cap, and
//   when its first and last shares were logged (the load laid out in time);
//   each task over 50 ms with the jobs' shares logged in it. `--trace-long-tasks` also
//   records a DevTools trace of the load and the comparison and names the heaviest
//   events in each such task, for work outside the jobs (tracing slows the page a little);
// - peak memory: the renderer's peak RSS (VmHWM) above its idle baseline; its peak
//   private memory (RssAnon + RssShmem, read every 10 ms through the load) above the
//   same, which leaves out the pages of Chromium's own binary that the load runs for the
//   first time (clean, shared and reclaimable; about 10 MB); and the wasm linear memory;
//   each against the file size; and what of the private growth is beyond the file: what
//   every load takes (the 1 MB capture's growth less its file, loaded three times in the
//   same run) and the rest, this capture's own; with the floor that leaves while the
//   page holds the file;
// - timeline redraw: median of body[data-timeline-draw-ms] over 30 zoom steps of a
//   200-pass frame;
// - timeline wheel step: median and max of the wheel handler whole (redraw, and the view's
//   state written into the URL) over 200 steps dispatched on the timeline;
// - comparison on demand: from opening the Compare view to its verdicts (the comparison
//   engine over the capture's two halves), its longest task and the wasm memory after;
// - speedscope 1.25.0 (npm) opening the same capture's Chrome Trace JSON (`sgpt export`)
//   in the same browser, to its first view (document.title set), as a ratio.
//
// The machine's load average is printed before and after: the machines are shared, and
// a busy one stretches every time (and a second core helps only where one is free).

import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { launchChromium } from '../browser/chromium.mjs';
import { cutAsNeverClosed } from '../browser/inspector_helpers.mjs';

const ROOT = resolve(new URL('../..', import.meta.url).pathname);
const OUT = join(ROOT, 'target', 'bench-captures');
// The CLI only makes the captures; SGPT_CLI may name another build of it.
const SGPT = process.env.SGPT_CLI ?? join(ROOT, 'target', 'release', 'sgpt');
// The roofline the figures are shares of: `cargo build --release -p sgpt-format --example roofline`.
const ROOFLINE = join(ROOT, 'target', 'release', 'examples', 'roofline');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const SIZES = {
  // Small enough that speedscope can parse its JSON (V8 strings stop near 512 MB).
  '1mb': { frames: 1_160 },
  '10mb': { frames: 11_600 }, // ~4.3 B/span × 200 passes ≈ 860 B a frame
  '100mb': { frames: 116_000 },
  hour: { frames: 216_000 }, // 60 fps × 3600 s
  'hour-memory': { frames: 216_000, memory: true },
  '8h': { frames: 1_728_000 }, // eight hours at 60 fps, about 1.5 GB
  // The browser tests' captures.
  '60k': { frames: 60_000 },
  '60k-never-closed': { frames: 60_000, neverClosedFrom: '60k' },
  '20k-memory': { frames: 20_000, memory: true },
};
// Where the never-closed capture is cut, as in the load test: inside the last record.
const CUT_BEFORE_DIRECTORY = 300;
const wanted = option('--sizes', '1mb,10mb,100mb,hour,hour-memory').split(',');
const speedscopeLimit = Number(option('--speedscope-limit-s', '120')) * 1000;
const cpuSlowdown = Number(option('--cpu-slowdown', '1'));
const traceLongTasks = args.includes('--trace-long-tasks');
// Only the pairs' figures, not each capture's own.
const pairOnly = args.includes('--pair-only');
// Empty: the page's own choice of workers.
const workerCounts = option('--workers', '').split(',').filter(Boolean).map(Number);
const loads = Math.max(1, Number(option('--loads', '1')));
// JSON larger than this is not even attempted in speedscope: V8 cannot hold the string.
const MAX_JSON_BYTES = 480 * 1024 * 1024;

function sh(cmd, cmdArgs) {
  const result = spawnSync(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${cmd} ${cmdArgs.join(' ')} failed`);
  return result.stdout.trim();
}

function setup() {
  if (!existsSync(SGPT)) throw new Error(`${SGPT} is missing: cargo build --release -p sgpt-cli`);
  if (!existsSync(join(ROOT, 'dist', 'index.html'))) throw new Error('dist/ is missing: cargo xtask web');
  mkdirSync(OUT, { recursive: true });
  return wanted.map(prepare);
}

/** The capture of `size`, generated into OUT unless it is there already. */
function prepare(size) {
  if (!SIZES[size]) throw new Error(`unknown size ${size}`);
  const { frames, memory = false, neverClosedFrom } = SIZES[size];
  const file = join(OUT, `${size}.sgpt`);
  const synth = (name, out) => {
    const extra = SIZES[name].memory ? ['--memory'] : [];
    console.log(sh(SGPT, ['synth', '--frames', String(SIZES[name].frames), '--passes', '200', '--level', 'timing', ...extra, '-o', out]));
  };
  if (!existsSync(file) && neverClosedFrom) {
    const from = join(OUT, `${neverClosedFrom}.sgpt`);
    if (!existsSync(from)) synth(neverClosedFrom, from);
    writeFileSync(file, cutAsNeverClosed(readFileSync(from), CUT_BEFORE_DIRECTORY));
  } else if (!existsSync(file)) {
    synth(size, file);
  }
  return { size, frames, memory, file, bytes: statSync(file).size };
}

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };

/** Serves dist/ at /, the bench captures at /bench/, speedscope at /speedscope/. */
function serve() {
  const roots = [
    ['/bench/', OUT],
    ['/speedscope/', join(ROOT, 'node_modules', 'speedscope', 'dist', 'release')],
    ['/', join(ROOT, 'dist')],
  ];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [prefix, dir] = roots.find(([p]) => path.startsWith(p));
    let file = join(dir, path.slice(prefix.length));
    if (!file.startsWith(dir)) return res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Content-Length': statSync(file).size });
    // In 1 MiB writes, as a static server's sendfile gives them: node's default of 64 KiB
    // halves what the browser's fetch reaches on this machine, and the bench measures the
    // inspector, not this server.
    createReadStream(file, { highWaterMark: 1 << 20 }).pipe(res);
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

/** Peak RSS (VmHWM) and current RSS of the browser's renderer processes, in bytes. */
function rendererMemory(browserPid) {
  const out = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.includes('--type=renderer')) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const ppid = Number(status.match(/PPid:\s+(\d+)/)[1]);
      const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
      out.push({ pid: Number(pid), ppid, hwm: kb('VmHWM'), rss: kb('VmRSS'), private: kb('RssAnon') + kb('RssShmem') });
    } catch {
      // The process ended while being read.
    }
  }
  void browserPid;
  return out;
}

/** RssAnon + RssShmem of process `pid` in bytes; 0 once it has ended. */
function privateMemory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0) * 1024;
    return kb('RssAnon') + kb('RssShmem');
  } catch {
    return 0;
  }
}

/** Clock ticks a second in /proc's CPU times. */
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** The fields of /proc/`pid`/stat after the command's name (which may hold spaces):
 *  state first, so utime is [11], stime [12], and waited-for children's [13] and [14]. */
function statFields(text) {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/** CPU ms each of this bench's Chromium processes has used so far, by pid, with its kind
 *  (`--type=`: renderer, gpu-process, utility, zygote; none for the browser itself). */
function chromiumCpu() {
  const processes = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const fields = statFields(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      // Chromium's children rewrite their command line as one string: read it whole.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const ticks = Number(fields[11]) + Number(fields[12]);
      processes.set(Number(pid), { ppid: Number(fields[1]), cmdline, ms: (ticks * 1000) / CLOCK_TICKS });
    } catch {
      // The process ended while being read.
    }
  }
  const ours = (pid) => {
    for (let at = pid, hops = 0; at > 1 && hops < 16; at = processes.get(at)?.ppid ?? 0, hops++) {
      if (at === process.pid) return true;
    }
    return false;
  };
  const cpu = new Map();
  for (const [pid, { cmdline, ms }] of processes) {
    if (pid === process.pid || !ours(pid) || !cmdline.includes('chrom')) continue;
    const kind = cmdline.match(/--type=([\w-]+)/)?.[1] ?? 'browser';
    cpu.set(pid, { kind, ms, threads: kind === 'renderer' ? threadCpu(pid) : new Map() });
  }
  return cpu;
}

/** CPU ms each thread of process `pid` has used so far, by tid, with its name (/proc's
 *  comm: at most 15 characters, such as `CrRendererMain` or `DedicatedWorker`). */
function threadCpu(pid) {
  const threads = new Map();
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads; // The process ended.
  }
  for (const tid of tids) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
      const fields = statFields(text);
      threads.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS });
    } catch {
      // The thread ended while being read.
    }
  }
  return threads;
}

/** CPU ms each kind of Chromium process used between snapshots `before` and `after`. */
function cpuBetween(before, after) {
  const byKind = {};
  for (const [pid, { kind, ms }] of after) byKind[kind] = (byKind[kind] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  return byKind;
}

/** The renderers' CPU ms between snapshots `before` and `after`, by what its threads do:
 *  the page's own thread, the statistics workers, Chromium's thread pool (where V8
 *  compiles the wasm again with TurboFan as it runs hot, and collects garbage), and the
 *  rest (compositing, IO, and threads that ended meanwhile). */
function rendererThreadsBetween(before, after) {
  const split = { page: 0, workers: 0, pool: 0, other: 0 };
  for (const [pid, { kind, ms, threads }] of after) {
    if (kind !== 'renderer') continue;
    const earlier = before.get(pid)?.threads ?? new Map();
    let named = 0;
    for (const [tid, { name, ms: now }] of threads) {
      const used = now - (earlier.get(tid)?.ms ?? 0);
      named += used;
      // The main thread keeps the process's name (`chromium`); its tid is the pid.
      if (Number(tid) === pid || name === 'CrRendererMain') split.page += used;
      else if (name.startsWith('DedicatedWorker')) split.workers += used;
      else if (name.startsWith('ThreadPool')) split.pool += used;
      else split.other += used;
    }
    split.other += Math.max(0, ms - (before.get(pid)?.ms ?? 0) - named);
  }
  return split;
}

/** CPU ms (user and system) of one run of the CLI, read by the shell that waited for it. */
function cpuOfCli(cliArgs, env = {}) {
  const script = '"$@" >/dev/null; status=$?; read -r line < /proc/$$/stat; echo "$status ${line##*) }"';
  const result = spawnSync('bash', ['-c', script, 'bash', SGPT, ...cliArgs], { encoding: 'utf8', env: { ...process.env, ...env } });
  const [status, ...fields] = result.stdout.trim().split(' ');
  if (status !== '0' && status !== '3') throw new Error(`sgpt ${cliArgs.join(' ')} failed`);
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS;
}

const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
const ms = (value) => `${value.toFixed(0)} ms`;
/** The renderer's peak growth over the file: RSS, and private memory. */
const growth = ({ peakAboveBaseline, privatePeakAboveBaseline }, bytes) =>
  `RSS ${mb(peakAboveBaseline)} = ${(peakAboveBaseline / bytes).toFixed(2)}×, private ${mb(privatePeakAboveBaseline)} = ${(privatePeakAboveBaseline / bytes).toFixed(2)}× the file`;

/**
 * Has `page` record, from its first script on: the long tasks (when each began and how
 * long it took), every share its slice log logs stamped with when it was logged (so a
 * long task can be matched with the shares that ran in it), the wasm module, and when
 * the strip, the memory gauges, the statistics and a comparison were shown (stamped as
 * the page sets its flag, where polling for the flag would add up to a polling interval
 * to each figure).
 */
async function watch(page) {
  await page.addInitScript(() => {
    addEventListener('TrunkApplicationStarted', (event) => { window.__wasm = event.detail.wasm; });
    window.__longTasks = [];
    window.__longTaskSpans = [];
    const slices = [];
    slices.push = function (entry) {
      entry.at = performance.now();
      return Array.prototype.push.call(this, entry);
    };
    window.__sgptSlices = slices;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__longTasks.push(entry.duration);
        window.__longTaskSpans.push({ start: entry.startTime, duration: entry.duration });
      }
    }).observe({ type: 'longtask', buffered: true });
    addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        const flags = document.body.dataset;
        if (flags.state === 'ready') window.__readyMs ??= performance.now();
        if (flags.memory === 'ready' && flags.state === 'ready') window.__memoryReadyMs ??= performance.now();
        if (flags.stats === 'ready') window.__statsReadyMs ??= performance.now();
        if (flags.verified === 'true') window.__verifiedMs ??= performance.now();
        if (flags.compare === 'ready') window.__compareReadyMs ??= performance.now();
        else window.__compareReadyMs = undefined;
      }).observe(document.body, { attributes: true });
    });
  });
}

/** A page of a context of its own, watched, on the inspector idle (at `/` and `query`),
 *  its CPU slowed `--cpu-slowdown` times, with its DevTools session: where every load of
 *  a capture begins, so that each is measured alike. */
async function idlePage(browser, base, query = '') {
  const context = await browser.newContext();
  const page = await context.newPage();
  await watch(page);
  await page.goto(`${base}/${query}`);
  await page.waitForFunction(() => document.body.dataset.state === 'idle');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  return { context, page, cdp };
}

/** The inspector's link to `capture`, with `workers` statistics workers (the page's own
 *  choice where undefined). */
function captureUrl(base, capture, workers) {
  const workersParam = workers === undefined ? '' : `&workers=${workers}`;
  return `${base}/?file=/bench/${capture.size}.sgpt${workersParam}`;
}

async function inspector(browser, base, capture, workers) {
  const { context, page, cdp } = await idlePage(browser, base);
  const memory = watchMemory();
  if (traceLongTasks) await startTracing(cdp);
  const cpuBefore = chromiumCpu();
  await page.goto(captureUrl(base, capture, workers));
  await page.waitForFunction(() => ['ready', 'error'].includes(document.body.dataset.state), null, { polling: 'raf', timeout: 600_000 });
  const firstView = await page.evaluate(() => window.__readyMs);
  const state = await page.evaluate(() => ({ state: document.body.dataset.state, error: document.getElementById('error').textContent }));
  if (state.state !== 'ready') throw new Error(`${capture.size}: ${state.error}`);
  // Polled often: the CPU the load used is read when the statistics are seen ready.
  await page.waitForFunction(() => document.body.dataset.stats === 'ready', null, { polling: 10, timeout: 1_800_000 });
  const cpuAfter = chromiumCpu();
  const statsCpu = cpuBetween(cpuBefore, cpuAfter);
  const rendererThreads = rendererThreadsBetween(cpuBefore, cpuAfter);
  const fullStats = await page.evaluate(() => window.__statsReadyMs);
  await page.waitForFunction(
    () => document.body.dataset.verified === 'true' && document.body.dataset.memory === 'ready',
    null,
    { polling: 100, timeout: 1_800_000 },
  );
  await settled(page);
  const loaded = await page.evaluate(() => ({
    tasks: window.__longTasks,
    spans: window.__longTaskSpans,
    memoryReadyMs: window.__memoryReadyMs,
    verifiedMs: window.__verifiedMs,
    slices: window.__sgptSlices,
  }));
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  // Redraw: zoom in and out on the shown 200-pass frame.
  await page.focus('#timeline-canvas');
  const draws = [];
  for (let i = 0; i < 30; i++) {
    await page.keyboard.press(i < 15 ? 'w' : 's');
    draws.push(Number(await page.evaluate(() => document.body.dataset.timelineDrawMs)));
  }
  draws.sort((a, b) => a - b);
  // A wheel step whole, as the page handles it: the redraw, and the view's state written
  // into the URL. Dispatched, the handler runs inside dispatchEvent; each step in a task
  // of its own, as the browser delivers them, so that the steps make no long task.
  const wheels = await page.evaluate(async () => {
    const canvas = document.getElementById('timeline-canvas');
    const box = canvas.getBoundingClientRect();
    const times = [];
    for (let i = 0; i < 200; i++) {
      await new Promise((next) => setTimeout(next, 0));
      const init = { deltaY: i % 2 ? 20 : -20, clientX: box.left + box.width / 2, clientY: box.top + 10, bubbles: true, cancelable: true };
      const started = performance.now();
      canvas.dispatchEvent(new WheelEvent('wheel', init));
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b);
  });
  const wasmBytes = await page.evaluate(() => window.__wasm?.memory?.buffer?.byteLength ?? 0);
  const grown = memory.stop();
  // The comparison of the capture's halves is made when its view is first shown.
  const tasksBefore = loaded.tasks.length;
  const compareStarted = await page.evaluate(() => performance.now());
  await page.click('#tab-compare');
  await page.waitForFunction(() => document.body.dataset.compare === 'ready', null, { polling: 100, timeout: 1_800_000 });
  const compareMs = (await page.evaluate(() => window.__compareReadyMs)) - compareStarted;
  await settled(page);
  const compareTasks = (await page.evaluate(() => window.__longTasks)).slice(tasksBefore);
  const compareInTasks = await page.evaluate(() => ({ spans: window.__longTaskSpans, slices: window.__sgptSlices }));
  const compareWasmBytes = await page.evaluate(() => window.__wasm?.memory?.buffer?.byteLength ?? 0);
  let traced = [];
  if (traceLongTasks) {
    const events = await stopTracing(cdp);
    // For DevTools' Performance panel: load it there to see any task whole.
    writeFileSync(join(OUT, `${capture.size}.devtools-trace.json`), JSON.stringify(events));
    traced = heaviestInLongTasks(events);
  }
  await context.close();
  return {
    firstView,
    fullStats,
    statsCpu,
    rendererThreads,
    memoryLane: loaded.memoryReadyMs,
    verified: loaded.verifiedMs,
    longestTask: Math.max(0, ...loaded.tasks),
    tasksOver50: loaded.tasks.filter((ms) => ms > 50).length,
    tasks: loaded.tasks.map(Math.round),
    slices: sliceFigures(loaded.slices),
    phases: jobPhases(loaded.slices),
    inTasks: sharesInLongTasks(loaded.spans, loaded.slices),
    redraw: draws[Math.floor(draws.length / 2)],
    redrawMax: draws.at(-1),
    wheel: wheels[Math.floor(wheels.length / 2)],
    wheelMax: wheels.at(-1),
    wasmBytes,
    ...grown,
    compareMs,
    compareLongest: Math.max(0, ...compareTasks),
    compareOver50: compareTasks.filter((ms) => ms > 50).length,
    compareInTasks: sharesInLongTasks(compareInTasks.spans.slice(tasksBefore), compareInTasks.slices),
    traced,
    compareWasmBytes,
  };
}

/** Waits out the tasks that show what just finished (a flag the bench waits on is set as
 *  a job ends, before its results are drawn), and for the long-task observer to hear of
 *  them: it reports a task only after it ended. */
async function settled(page) {
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 500))));
}

/** For each task over 50 ms, the shares of the slice log logged while it ran: what the
 *  page did in it (a task with none ran outside the sliced jobs). */
function sharesInLongTasks(spans, log) {
  return spans
    .filter(({ duration }) => duration > 50)
    .map(({ start, duration }) => {
      const shares = log
        .filter(({ at }) => at >= start && at <= start + duration)
        .map(({ job, units, why }) => `${job} ${units}${why ? ` ${why}` : ''}`);
      return `${ms(duration)} at ${ms(start)}: ${shares.length === 0 ? 'no sliced job' : shares.join(', ')}`;
    });
}

// What a trace records: each task, script and wasm calls, garbage collection, rendering.
// No sampling profiler: the served wasm is optimized without its name section, so its
// stacks would name no function of ours.
const TRACE_CATEGORIES = [
  'toplevel',
  'devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.gc',
  'blink',
];

async function startTracing(cdp) {
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { recordMode: 'recordContinuously', includedCategories: TRACE_CATEGORIES },
  });
}

/** Ends the trace; its events. */
async function stopTracing(cdp) {
  const complete = new Promise((done) => cdp.once('Tracing.tracingComplete', done));
  await cdp.send('Tracing.end');
  const { stream } = await complete;
  const parts = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 22 });
    parts.push(base64Encoded ? Buffer.from(data, 'base64') : Buffer.from(data));
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const trace = JSON.parse(Buffer.concat(parts).toString('utf8'));
  return Array.isArray(trace) ? trace : trace.traceEvents;
}

/** For each task over 50 ms on the page's main thread, the events that took most of it,
 *  by name (a name's time summed over its events, nested ones counted again). */
function heaviestInLongTasks(events) {
  const mains = new Set(
    events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
      .map((e) => `${e.pid}:${e.tid}`),
  );
  if (mains.size === 0) return ['the trace has no renderer main thread'];
  const onMain = events.filter((e) => mains.has(`${e.pid}:${e.tid}`) && e.ph === 'X' && e.dur > 0);
  const origin = onMain.reduce((first, e) => Math.min(first, e.ts), Infinity);
  const isTask = (e) => e.name.endsWith('RunTask');
  const tasks = onMain.filter((e) => isTask(e) && e.dur > 50_000);
  if (tasks.length === 0) return [`no task over 50 ms in the trace (${onMain.length} events on the page's main threads)`];
  return tasks
    .map((task) => {
      const byName = new Map();
      for (const e of onMain) {
        if (e.pid !== task.pid || e.tid !== task.tid || isTask(e) || e.ts < task.ts || e.ts + e.dur > task.ts + task.dur) continue;
        const name = e.args?.data?.functionName ? `${e.name} ${e.args.data.functionName}` : e.name;
        byName.set(name, (byName.get(name) ?? 0) + e.dur);
      }
      const heaviest = [...byName].sort((x, y) => y[1] - x[1]).slice(0, 6);
      const named = heaviest.map(([name, us]) => `${name} ${(us / 1000).toFixed(1)} ms`).join(', ');
      return `${ms(task.dur / 1000)} at ${((task.ts - origin) / 1e6).toFixed(1)} s: ${named || 'no event inside'}`;
    });
}

/** Per job of the slice log: slices, the most units one did, its cap and unit, and how
 *  many ended by the clock rather than the cap. */
function sliceFigures(log) {
  const jobs = new Map();
  for (const { job, units, cap, unit, why } of log) {
    const figures = jobs.get(job) ?? { slices: 0, most: 0, cap, unit, byTime: 0 };
    figures.slices += 1;
    figures.most = Math.max(figures.most, units);
    if (why === 'time') figures.byTime += 1;
    jobs.set(job, figures);
  }
  return [...jobs].map(([job, f]) => `${job} ${f.slices} (most ${f.most} of ${f.cap} ${f.unit}, ${f.byTime} ended by the clock)`);
}

/** Per job of the slice log: when its first and last shares were logged, in ms from
 *  navigation start (a share is logged as it ends), so the load's path is laid out in time. */
function jobPhases(log) {
  const jobs = new Map();
  for (const { job, at } of log) {
    const phase = jobs.get(job) ?? { first: at, last: at };
    phase.last = at;
    jobs.set(job, phase);
  }
  return [...jobs].map(([job, { first, last }]) => `${job} ${ms(first)}–${ms(last)}`);
}

async function speedscope(browser, base, capture) {
  const json = join(OUT, `${capture.size}.trace.json`);
  if (!existsSync(json)) {
    // Estimate first: ~150 B per span event.
    const estimate = capture.frames * 200 * 150;
    if (estimate > MAX_JSON_BYTES) return { skipped: `its Chrome JSON would be ~${mb(estimate)}, beyond what a browser tab can parse as one string` };
    sh(SGPT, ['export', '--chrome', json, capture.file]);
  }
  const jsonBytes = statSync(json).size;
  if (jsonBytes > MAX_JSON_BYTES) return { skipped: `its Chrome JSON is ${mb(jsonBytes)}, beyond what a browser tab can parse` };
  const context = await browser.newContext();
  const page = await context.newPage();
  const crashed = new Promise((done) => page.on('crash', () => done('crash')));
  const started = Date.now();
  await page.goto(`${base}/speedscope/#profileURL=${encodeURIComponent(`${base}/bench/${capture.size}.trace.json`)}`);
  const outcome = await Promise.race([
    page.waitForFunction(() => / - speedscope$/.test(document.title), null, { polling: 'raf', timeout: speedscopeLimit }).then(() => 'ok', () => 'timeout'),
    crashed,
  ]);
  const elapsed = Date.now() - started;
  await context.close().catch(() => {});
  return { outcome, elapsed, jsonBytes };
}

/** The candidate of a pair: another run of `capture`'s workload (`sgpt synth --run 2`). */
function pairOf(capture) {
  const file = join(OUT, `${capture.size}-run2.sgpt`);
  if (!existsSync(file)) {
    console.log(sh(SGPT, ['synth', '--frames', String(capture.frames), '--passes', '200', '--level', 'timing', '--run', '2', '-o', file]));
  }
  return file;
}

/** Wall time of the CLI on the captures, in ms (its output is not read). */
function timed(cliArgs, env = {}) {
  const started = Date.now();
  const result = spawnSync(SGPT, cliArgs, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, ...env } });
  // `sgpt diff` exits 3 when it finds a change; only a failure to run is an error.
  if (result.status !== 0 && result.status !== 3) throw new Error(`sgpt ${cliArgs.join(' ')} failed`);
  return Date.now() - started;
}

/** The file's roofline on one core, from the `roofline` example: `read_ms` to read its
 *  bytes, `decode_ms` to decode every span's duration as the statistics read them. */
function roofline(capture) {
  if (!existsSync(ROOFLINE)) throw new Error(`${ROOFLINE} is missing: cargo build --release -p sgpt-format --example roofline`);
  const result = spawnSync(ROOFLINE, [capture.file], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`roofline ${capture.file} failed`);
  return JSON.parse(result.stdout);
}

/** The median of three runs of `run`, each returning ms. */
function median3(run) {
  return [run(), run(), run()].sort((a, b) => a - b)[1];
}

/** What every load costs the renderer whatever the capture: the private peak growth of the
 *  1 MB capture's load (1,160 frames) less its file, the median of 3 loads with `workers`,
 *  measured once a run beside the captures set against it. It is the worker's isolate and
 *  module, the compositor's and the canvases' memory, what compiling leaves, and the
 *  page's own state; so while the page holds the file, a capture's growth is at least
 *  its file and this. */
const fixedParts = new Map();
async function fixedPart(browser, base, workers) {
  if (!fixedParts.has(workers)) {
    const small = prepare('1mb');
    const beyond = [];
    for (let load = 0; load < 3; load++) {
      beyond.push((await inspector(browser, base, small, workers)).privatePeakAboveBaseline - small.bytes);
    }
    fixedParts.set(workers, beyond.sort((a, b) => a - b)[1]);
  }
  return fixedParts.get(workers);
}

/** The machine's load average over 1, 5 and 15 minutes: the machine is shared, and a
 *  busy one stretches every time below. */
const load = () => loadavg().map((value) => value.toFixed(2)).join(' ');

/** Watches the renderers' memory from now until `stop()`, which gives their peak RSS
 *  (VmHWM) and peak private memory above what they held when it began. Private memory
 *  has no high-water mark of its own: sampled, it can miss a peak shorter than the
 *  period, where VmHWM misses none. Only the renderers' own status files are read each
 *  time (the bench shares the page's two cores), and the renderers looked for again
 *  every half second. */
function watchMemory() {
  const before = rendererMemory();
  const baseline = Math.max(...before.map((p) => p.rss));
  const privateBaseline = Math.max(...before.map((p) => p.private));
  let privatePeak = privateBaseline;
  let renderers = before.map((p) => p.pid);
  let samples = 0;
  const sampler = setInterval(() => {
    if (++samples % 50 === 0) renderers = rendererMemory().map((p) => p.pid);
    for (const pid of renderers) privatePeak = Math.max(privatePeak, privateMemory(pid));
  }, 10);
  return {
    stop() {
      const after = rendererMemory();
      clearInterval(sampler);
      for (const process of after) privatePeak = Math.max(privatePeak, process.private);
      const peak = Math.max(...after.map((p) => p.hwm));
      return { peakAboveBaseline: peak - baseline, privatePeakAboveBaseline: privatePeak - privateBaseline };
    },
  };
}

/** When `page`'s statistics were ready (its `performance.now()`), the page then closed;
 *  throws where they never were, naming `what`. */
async function statsReadyAt(context, page, what) {
  await page.waitForFunction(
    () => document.body.dataset.stats === 'ready' || document.body.dataset.state === 'error',
    null,
    { polling: 10, timeout: 1_800_000 },
  );
  const ready = await page.evaluate(() => window.__statsReadyMs);
  await context.close();
  if (ready === undefined) throw new Error(`${what}: the statistics did not finish`);
  return ready;
}

/** One load of `capture` with `workers`, in a context of its own, as `inspector` loads it:
 *  navigation to full statistics in ms (`elapsed`), and the renderers' memory growth
 *  until every frame is checked (`inspector`'s watch goes on through its redraws, which
 *  allocate next to nothing). */
async function statsLoad(browser, base, capture, workers) {
  const { context, page } = await idlePage(browser, base);
  const memory = watchMemory();
  await page.goto(captureUrl(base, capture, workers));
  await page.waitForFunction(
    () => (document.body.dataset.verified === 'true' && document.body.dataset.memory === 'ready') || document.body.dataset.state === 'error',
    null,
    { polling: 100, timeout: 1_800_000 },
  );
  await settled(page);
  const grown = memory.stop();
  return { elapsed: await statsReadyAt(context, page, capture.size), ...grown };
}

/** ms to full statistics with the capture opened from disk through the file picker (a
 *  drop reads the same File), from the moment it is chosen: no HTTP server or network
 *  stack, the browser reads the file for the page. */
async function fileLoad(browser, base, capture, workers) {
  const { context, page } = await idlePage(browser, base, workers === undefined ? '' : `?workers=${workers}`);
  const chosen = await page.evaluate(() => performance.now());
  // Playwright hands a local browser the file's path, not its bytes.
  await page.setInputFiles('#file-input', capture.file);
  return (await statsReadyAt(context, page, `${capture.size} from the file`)) - chosen;
}

/** The median time to full statistics of `--loads` loads, `first` (a full load's figures)
 *  among them, and the words that say so (empty for one load); and the median of their
 *  memory growths, which move between loads by more than a tenth of the file. */
async function medianOfLoads(first, browser, base, capture, workers) {
  const runs = [{ ...first, elapsed: first.fullStats }];
  while (runs.length < loads) runs.push(await statsLoad(browser, base, capture, workers));
  const middle = (key) => runs.map((run) => run[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
  const median = middle('elapsed');
  const of = runs.length > 1 ? ` (median of ${runs.length} loads: ${runs.map((run) => ms(run.elapsed)).join(', ')})` : '';
  const memory = { peakAboveBaseline: middle('peakAboveBaseline'), privatePeakAboveBaseline: middle('privatePeakAboveBaseline') };
  return { median, of, memory };
}

/** The transport's floor: ms to fetch the capture in this browser and read its body
 *  through one 1 MiB buffer, as the inspector reads it, keeping nothing (median of 3). */
async function fetchAlone(browser, base, capture) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/`);
  const runs = [];
  for (let run = 0; run < 3; run++) {
    runs.push(await page.evaluate(async (url) => {
      const started = performance.now();
      const reader = (await fetch(url)).body.getReader({ mode: 'byob' });
      let buffer = new Uint8Array(1 << 20);
      for (;;) {
        const { done, value } = await reader.read(buffer);
        if (done) break;
        buffer = new Uint8Array(value.buffer);
      }
      return performance.now() - started;
    }, `/bench/${capture.size}.sgpt`));
  }
  await context.close();
  return runs.sort((a, b) => a - b)[1];
}

/**
 * A baseline and a candidate in one page: from navigation to the Compare view's verdicts,
 * with the statistics' time, the jobs' phases and the shares logged in any task over 50 ms.
 */
async function pairInBrowser(browser, base, capture, candidate) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await watch(page);
  const cpuBefore = chromiumCpu();
  const started = Date.now();
  await page.goto(`${base}/?file=/bench/${candidate.split('/').at(-1)}&base=/bench/${capture.size}.sgpt`);
  await page.waitForFunction(() => document.body.dataset.compare === 'ready' || document.body.dataset.state === 'error', null, { polling: 10, timeout: 1_800_000 });
  const elapsed = Date.now() - started;
  const cpu = Object.values(cpuBetween(cpuBefore, chromiumCpu())).reduce((a, b) => a + b, 0);
  const seen = await page.evaluate(() => ({
    tasks: window.__longTasks,
    spans: window.__longTaskSpans,
    slices: window.__sgptSlices,
    strip: window.__readyMs,
    stats: window.__statsReadyMs,
    compare: window.__compareReadyMs,
    wasmBytes: window.__wasm?.memory?.buffer?.byteLength ?? 0,
  }));
  await context.close();
  const { tasks } = seen;
  return {
    elapsed,
    cpu,
    strip: seen.strip,
    stats: seen.stats,
    compare: seen.compare,
    longest: Math.max(0, ...tasks),
    over50: tasks.filter((t) => t > 50).length,
    wasmBytes: seen.wasmBytes,
    phases: jobPhases(seen.slices),
    inTasks: sharesInLongTasks(seen.spans, seen.slices),
  };
}

const pairs = option('--pair', '').split(',').filter(Boolean);
const captures = setup();
const server = await serve();
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launchChromium();
const speed = cpuSlowdown === 1 ? 'this machine' : `this machine's CPU slowed ${cpuSlowdown}× while loading`;
console.log(`\ninspector bench (headless Chromium, SwiftShader, ${speed}); load average before: ${load()}`);
// Each size's time to full statistics in the browser (first count of workers, median of
// the loads), for the pair's ratio to the browser's own analysis of one capture.
const browserFullStats = new Map();
for (const capture of pairOnly ? [] : captures) {
  const figures = await inspector(browser, base, capture, workerCounts[0]);
  const memory = capture.memory ? ', memory gauges every frame' : '';
  console.log(`\n${capture.size}: ${capture.frames} frames × 200 passes${memory}, ${mb(capture.bytes)}`);
  console.log(`  time to frame strip      ${ms(figures.firstView)}`);
  console.log(`  time to full statistics  ${ms(figures.fullStats)}${workerCounts.length > 0 ? ` with ${workerCounts[0]} workers` : ''}`);
  if (workerCounts.length > 0) {
    const roof = roofline(capture);
    // A share of the roofline: its decode's time over this figure's, for the same spans.
    const ofRoof = (elapsed) => `${(roof.decode_ms / elapsed).toFixed(2)} of the roofline`;
    const others = roof.other_frames > 0 ? `; ${roof.other_frames} frames of other shapes not read` : '';
    console.log(`  roofline (one core)      read the file's bytes ${ms(roof.read_ms)}; decode every span's duration ${ms(roof.decode_ms)}, ${(roof.spans / roof.decode_ms / 1e3).toFixed(0)} M spans/s (= 1.00; median of 5${others})`);
    const native = [1, 2].map((threads) => median3(() => timed(['stats', capture.file, '--json'], { RAYON_NUM_THREADS: String(threads) })));
    console.log(`  sgpt stats               ${ms(native[0])} on 1 thread (${ofRoof(native[0])}), ${ms(native[1])} on 2 (${ofRoof(native[1])}; median of 3)`);
    const fetched = await fetchAlone(browser, base, capture);
    console.log(`  fetching the file alone  ${ms(fetched)} = ${(fetched / native[0]).toFixed(2)}× sgpt stats on 1 thread (median of 3; the browser's floor)`);
    const ratio = (elapsed) => `${(elapsed / native[0]).toFixed(2)}× sgpt stats on 1 thread (target ≤ 1.5×), ${ofRoof(elapsed)}`;
    const first = await medianOfLoads(figures, browser, base, capture, workerCounts[0]);
    // The memory printed below is the loads' median too.
    Object.assign(figures, first.memory);
    browserFullStats.set(capture.size, first.median);
    console.log(`    ${workerCounts[0]} workers                ${ms(first.median)} = ${ratio(first.median)}${first.of}`);
    const fromFile = [];
    for (let load = 0; load < loads; load++) fromFile.push(await fileLoad(browser, base, capture, workerCounts[0]));
    const fileMedian = [...fromFile].sort((a, b) => a - b)[Math.floor(fromFile.length / 2)];
    const fileOf = fromFile.length > 1 ? ` (median of ${fromFile.length} loads: ${fromFile.map(ms).join(', ')})` : '';
    console.log(`      from a file          ${ms(fileMedian)} = ${ratio(fileMedian)}, opened with the file picker${fileOf}`);
    // What the load cost in CPU, all of Chromium's processes together: on a machine this
    // busy, a steadier figure than the time, and with the cores it says the least time
    // the load could take here.
    const nativeCpu = median3(() => cpuOfCli(['stats', capture.file, '--json'], { RAYON_NUM_THREADS: '1' }));
    const { renderer = 0, browser: main = 0, 'gpu-process': gpu = 0, ...rest } = figures.statsCpu;
    // The network service and any other helper (utility processes, the zygote).
    const helpers = Object.values(rest).reduce((a, b) => a + b, 0);
    const total = renderer + main + gpu + helpers;
    const ofNative = nativeCpu > 0 ? `${(total / nativeCpu).toFixed(2)}× sgpt stats' ${ms(nativeCpu)}` : "sgpt stats' less than a tick of the clock";
    console.log(`  CPU to full statistics   ${ms(total)} = ${ofNative} on 1 thread: renderer ${ms(renderer)}, browser ${ms(main)}, network and other ${ms(helpers)}, GPU ${ms(gpu)}`);
    const threads = figures.rendererThreads;
    console.log(`    the renderer's threads  page ${ms(threads.page)}, workers ${ms(threads.workers)}, thread pool ${ms(threads.pool)} (V8 compiling the hot wasm again, and its garbage collection), other ${ms(threads.other)}`);
    console.log(`    on ${cpus().length} cores              at least ${ms(total / cpus().length)} = ${(total / cpus().length / native[0]).toFixed(2)}× sgpt stats on 1 thread, however well the work is spread`);
    for (const count of workerCounts.slice(1)) {
      const other = await inspector(browser, base, capture, count);
      const time = await medianOfLoads(other, browser, base, capture, count);
      console.log(`    ${count} workers                ${ms(time.median)} = ${ratio(time.median)}${time.of}; renderer peak growth ${growth(time.memory, capture.bytes)}${loads > 1 ? ' (median of the loads)' : ''}`);
    }
  }
  console.log(`  time to frames checked   ${ms(figures.verified)}: every frame decoded whole, ${ms(figures.verified - figures.fullStats)} after the statistics`);
  if (capture.memory) console.log(`  time to memory lane      ${ms(figures.memoryLane)} (from navigation start)`);
  console.log(`  longest task             ${figures.tasksOver50 === 0 ? 'none over 50 ms' : `${ms(figures.longestTask)}, ${figures.tasksOver50} tasks over 50 ms`} while loading`);
  console.log(`  tasks over 50 ms         [${figures.tasks.join(', ')}] ms`);
  console.log(`  slices per job           ${figures.slices.join('; ')}`);
  console.log(`  jobs' shares logged      ${figures.phases.join('; ')} (from navigation start)`);
  for (const task of figures.inTasks) console.log(`  in a long task           ${task}`);
  console.log(`  wasm memory              ${mb(figures.wasmBytes)} = ${(figures.wasmBytes / capture.bytes).toFixed(2)}× the file (target ≤ 1.5×)`);
  const ofLoads = workerCounts.length > 0 && loads > 1 ? `; median of ${loads} loads` : '';
  console.log(`  renderer peak growth     ${growth(figures, capture.bytes)} (target ≤ 1.5×${ofLoads})`);
  if (capture.size !== '1mb') {
    const fixed = await fixedPart(browser, base, workerCounts[0]);
    const beyond = figures.privatePeakAboveBaseline - capture.bytes;
    console.log(`    beyond the file        private ${mb(beyond)}: ${mb(fixed)} that every load takes (the 1 MB capture's growth less its file, median of 3 in this run), ${mb(beyond - fixed)} for this capture's own index and figures`);
    console.log(`    the page's floor       ${((capture.bytes + fixed) / capture.bytes).toFixed(2)}× the file, private, while the page holds it: the file and what every load takes`);
  }
  console.log(`  timeline redraw          median ${figures.redraw.toFixed(2)} ms, max ${figures.redrawMax.toFixed(2)} ms (target ≤ 8 ms)`);
  console.log(`  timeline wheel step      median ${figures.wheel.toFixed(2)} ms, max ${figures.wheelMax.toFixed(2)} ms: the whole handler, redraw and URL state (200 steps)`);
  console.log(`  comparison on demand     ${ms(figures.compareMs)} from opening the Compare view (its halves, by the engine); longest task ${figures.compareOver50 === 0 ? 'none over 50 ms' : `${ms(figures.compareLongest)}, ${figures.compareOver50} over 50 ms`}; wasm memory then ${mb(figures.compareWasmBytes)} = ${(figures.compareWasmBytes / capture.bytes).toFixed(2)}× the file`);
  for (const task of figures.compareInTasks) console.log(`  in a comparison's task   ${task}`);
  for (const task of figures.traced) console.log(`  traced long task         ${task}`);
  const other = await speedscope(browser, base, capture);
  if (other.skipped) {
    console.log(`  speedscope 1.25.0        not run: ${other.skipped}`);
  } else if (other.outcome === 'ok') {
    console.log(`  speedscope 1.25.0        first view ${ms(other.elapsed)} on ${mb(other.jsonBytes)} of JSON: inspector is ${(other.elapsed / figures.firstView).toFixed(1)}× faster (target ≥ 10×)`);
  } else {
    console.log(`  speedscope 1.25.0        ${other.outcome} after ${ms(other.elapsed)} on ${mb(other.jsonBytes)} of JSON: inspector is > ${(other.elapsed / figures.firstView).toFixed(1)}× faster`);
  }
}
for (const size of pairs) {
  const capture = captures.find((c) => c.size === size);
  if (!capture) throw new Error(`--pair ${size} needs ${size} in --sizes`);
  const candidate = pairOf(capture);
  // Medians of three, as the single captures' figures are: one run of each swung the
  // ratio between them by a tenth on this machine.
  const stats = median3(() => timed(['stats', capture.file, '--json']));
  const diff = median3(() => timed(['diff', capture.file, candidate]));
  // The median pair of `loads`, by time to the verdicts: one pair's time moves as much
  // as one capture's load does.
  const runs = [];
  for (let load = 0; load < loads; load++) runs.push(await pairInBrowser(browser, base, capture, candidate));
  const page = [...runs].sort((a, b) => a.elapsed - b.elapsed)[Math.floor(runs.length / 2)];
  const pairOf3 = runs.length > 1 ? ` (median of ${runs.length} pairs: ${runs.map((run) => ms(run.elapsed)).join(', ')})` : '';
  const own = browserFullStats.get(size);
  console.log(`
${size} against another run of it (two captures, ${mb(capture.bytes)} each)`);
  console.log(`  sgpt stats on one        ${ms(stats)} (median of 3)`);
  console.log(`  sgpt diff on the two     ${ms(diff)} = ${(diff / stats).toFixed(2)}× sgpt stats (median of 3; target ≤ 2×)`);
  console.log(`  inspector, both opened   ${ms(page.elapsed)} from navigation to the verdicts = ${(page.elapsed / stats).toFixed(2)}× sgpt stats, ${(page.elapsed / diff).toFixed(2)}× sgpt diff${pairOf3}; longest task ${page.over50 === 0 ? 'none over 50 ms' : `${ms(page.longest)}, ${page.over50} over 50 ms`}; wasm memory ${mb(page.wasmBytes)} = ${(page.wasmBytes / (2 * capture.bytes)).toFixed(2)}× the two files`);
  // The goal read within the browser: two captures compared against one analysed, there.
  console.log(own === undefined
    ? '    against one in the page  not measured: run with the size in --sizes and without --pair-only'
    : `    against one in the page  ${(page.elapsed / own).toFixed(2)}× the inspector's own full statistics of one (${ms(own)} in this run; target ≤ 2×)`);
  const diffCpu = median3(() => cpuOfCli(['diff', capture.file, candidate]));
  console.log(`    CPU to the verdicts    ${ms(page.cpu)}, every Chromium process = ${(page.cpu / diffCpu).toFixed(2)}× sgpt diff's ${ms(diffCpu)} (median of 3)`);
  console.log(`    strip, statistics, verdicts ${ms(page.strip)}, ${ms(page.stats)}, ${ms(page.compare)} from navigation start (the candidate's strip; the baseline is read after it is shown)`);
  console.log(`    jobs' shares logged    ${page.phases.join('; ')}`);
  for (const task of page.inTasks) console.log(`    in a long task         ${task}`);
}
console.log(`\nload average after: ${load()}`);
await browser.close();
server.close();
