// Memory bench in wasm: ns per alloc+free pair (64 B) for the system allocator alone, domain
// counters only, the recorder active and the recorder with its journal full, as
// memory/benches/memory.rs measures them natively. Prints figures, asserts nothing about time
// (performance lives in benchmarks). `cargo xtask bench-memory-wasm` builds
// memory/wasm-bench for wasm32 in release, binds it (wasm-bindgen --target web) into
// target/memory-wasm-bench/ and runs:
//
//   node tests/bench/memory_wasm_bench.mjs PKG_DIR [--pairs 200000] [--runs 7] [--json]
//
// The same module runs in this Node process first, then in headless Chromium, one after the
// other so that they never share the CPU. Chromium coarsens performance.now() to 100 µs, or to
// 5 µs in a cross-origin isolated page, which the bench page is (a 200,000-pair batch can be
// 1.3 ms). The bench reports ns per pair from whole batches' totals either way, and the footer
// sets each clock's step against the shortest batch.

import { existsSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from '../browser/chromium.mjs';

const NAME = 'sgpt_memory_wasm_bench';
const USAGE = 'usage: node tests/bench/memory_wasm_bench.mjs PKG_DIR [--pairs N] [--runs N] [--json]';
// Never contacted: page.route answers every request from PKG_DIR, so no server or port is needed.
const ORIGIN = 'http://127.0.0.1:9';
const PAGE = '<!doctype html><meta charset="utf-8"><title>sgpt memory bench (wasm)</title>';
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
// Cross-origin isolation: Chromium's finer clock. It changes nothing in the wasm that runs.
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

function parseArgs(argv) {
  // The native bench's batch and batch count (memory/benches/memory.rs).
  const options = { pkg: null, pairs: 200_000, runs: 7, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') {
      options.json = true;
    } else if (arg === '--pairs' || arg === '--runs') {
      const value = Number(argv[++i]);
      // The export takes u32s.
      if (!Number.isInteger(value) || value < 1 || value > 0xffff_ffff) {
        throw new Error(`${arg} needs a whole number from 1 to 2^32 - 1\n${USAGE}`);
      }
      options[arg.slice(2)] = value;
    } else if (!arg.startsWith('-') && options.pkg === null) {
      options.pkg = resolve(arg);
    } else {
      throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    }
  }
  if (options.pkg === null) throw new Error(USAGE);
  for (const file of [`${NAME}.js`, `${NAME}_bg.wasm`]) {
    if (!existsSync(join(options.pkg, file))) {
      throw new Error(`${join(options.pkg, file)} is missing: run \`cargo xtask bench-memory-wasm\``);
    }
  }
  return options;
}

async function inNode({ pkg, pairs, runs }) {
  const glue = await import(pathToFileURL(join(pkg, `${NAME}.js`)).href);
  // The web target's glue would fetch the wasm; Node hands it the bytes instead.
  glue.initSync({ module: readFileSync(join(pkg, `${NAME}_bg.wasm`)) });
  return { engine: `Node ${process.version}`, report: JSON.parse(glue.runMemoryBench(pairs, runs)) };
}

async function inChromium({ pkg, pairs, runs }) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.route(`${ORIGIN}/**`, (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === '/') return route.fulfill({ contentType: 'text/html', headers: ISOLATION, body: PAGE });
      const file = path.slice(1);
      const type = TYPES[extname(file)];
      if (!type || file.includes('/') || !existsSync(join(pkg, file))) {
        return route.fulfill({ status: 404, contentType: 'text/plain', body: `not found: ${path}` });
      }
      return route.fulfill({ contentType: type, headers: ISOLATION, body: readFileSync(join(pkg, file)) });
    });
    await page.goto(`${ORIGIN}/`);
    const { json, isolated } = await page.evaluate(
      async ({ origin, name, pairs, runs }) => {
        const glue = await import(`${origin}/${name}.js`);
        await glue.default();
        return { json: glue.runMemoryBench(pairs, runs), isolated: globalThis.crossOriginIsolated };
      },
      { origin: ORIGIN, name: NAME, pairs, runs },
    );
    const engine = `Chromium ${browser.version()}${isolated ? '' : ' (not isolated)'}`;
    return { engine, report: JSON.parse(json) };
  } finally {
    await browser.close();
  }
}

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const duration = (ns) => {
  if (ns >= 1e6) return `${fixed(ns / 1e6, 1)} ms`;
  return ns >= 1e3 ? `${fixed(ns / 1e3, 1)} µs` : `${fixed(ns, 0)} ns`;
};

function table(results) {
  const { report: first } = results[0];
  const lines = [
    `alloc+free pair, ${first.block_bytes} B, ${first.target} (${first.profile}): median of ${first.runs} batches ` +
      `of ${first.pairs} pairs per case, in rounds timing each case once, after ${first.warmup_runs} warm-up rounds`,
    `system allocator: ${first.system_allocator}; ledger lock: ${first.ledger_lock}`,
    '',
  ];
  const caseWidth = Math.max(...first.cases.map((c) => c.name.length)) + 2;
  const widths = [9, 8, 8, 9];
  const cell = (...parts) => parts.map((part, i) => part.padStart(widths[i])).join('') + '    ';
  const row = (label, cells) => (label.padEnd(caseWidth) + cells.join('')).trimEnd();
  lines.push(row('', results.map(({ engine }) => engine.padEnd(38))));
  lines.push(row('case', results.map(() => cell('ns/pair', '× sys', '+ ns', 'spread'))));
  first.cases.forEach((c, index) => {
    const cells = results.map(({ report }) => {
      const measured = report.cases[index];
      const system = report.cases[0].ns_per_pair;
      // Slowest minus fastest batch, against the median: how far to trust the row.
      const spread = (100 * (measured.max_ns_per_pair - measured.min_ns_per_pair)) / measured.ns_per_pair;
      return cell(
        fixed(measured.ns_per_pair, 1),
        fixed(measured.ns_per_pair / system, 2),
        fixed(measured.ns_per_pair - system, 1),
        `${fixed(spread, 0)} %`,
      );
    });
    lines.push(row(c.name, cells));
  });
  lines.push('', `recorder storage: ${first.recorder_storage_bytes} bytes, a journal of ${2 * first.pairs} events`);
  for (const { engine, report } of results) {
    const shortest = Math.min(...report.cases.flatMap((c) => c.batch_ms)) * 1e6;
    const step = report.clock_step_ns;
    lines.push(
      `${engine}: clock step ${duration(step)}, ${fixed((100 * step) / shortest, 2)} % of the shortest batch ` +
        `(${duration(shortest)}); a journal-full batch lost ${report.journal_full_lost_operations} operations`,
    );
  }
  return lines.join('\n');
}

let options;
try {
  options = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error(error.message);
  process.exit(2);
}
const results = [await inNode(options), await inChromium(options)];
console.log(options.json ? JSON.stringify(results, null, 2) : table(results));
