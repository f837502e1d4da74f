// Shared helpers for the inspector's browser tests: open the page, wait for what it
// reports on <body> (data-state, data-load, data-stats, data-timeline-frame, ...), and
// collect what must never happen (uncaught errors, dialogs, CSP violations).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseUrl } from './chromium.mjs';
import { ROOT, sgptCli } from './sgpt_cli.mjs';

export async function fixtureBytes(name) {
  // A read that fails rather than hangs when the server stalls.
  const response = await fetch(`${baseUrl()}/captures/${name}`, { signal: AbortSignal.timeout(30_000) });
  assert.equal(response.status, 200, `dist/captures/${name} is served`);
  return Buffer.from(await response.arrayBuffer());
}

/** A fresh page at `query`, with problems collected; waits until it is past starting. */
export async function openPage(browser, t, query = '', contextOptions = {}) {
  const context = await browser.newContext({ acceptDownloads: true, ...contextOptions });
  t.after(() => context.close());
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) {
      problems.push(`csp: ${message.text()}`);
    }
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective));
  });
  await page.goto(`${baseUrl()}/${query}`);
  await page.waitForFunction(() => ['idle', 'ready', 'error'].includes(document.body.dataset.state));
  return { page, problems };
}

/** Waits for load number `load` to finish; returns body's dataset and the error text. */
export async function outcome(page, load = 1) {
  await page.waitForFunction(
    (n) => Number(document.body.dataset.load) >= n && ['ready', 'error'].includes(document.body.dataset.state),
    load,
  );
  return page.evaluate(() => ({
    ...document.body.dataset,
    error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
  }));
}

export async function waitData(page, key, value) {
  await page.waitForFunction(([k, v]) => document.body.dataset[k] === v, [key, value]);
}

export async function dropBytes(page, name, bytes) {
  const load = await page.evaluate(() => Number(document.body.dataset.load ?? 0));
  await page.evaluate(
    ({ name, data }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], name));
      const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
      document.body.dispatchEvent(new DragEvent('dragover', init));
      document.body.dispatchEvent(new DragEvent('drop', init));
    },
    { name, data: [...bytes] },
  );
  return outcome(page, load + 1);
}

export async function showTab(page, key) {
  await page.click(`#tab-${key}`);
  await page.waitForFunction((k) => document.body.dataset.tab === k, key);
}

/** Rows of a table as arrays of cell texts. */
export async function tableRows(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row) => [...row.cells].map((c) => c.textContent)));
}

/** How many pixels of a canvas are not transparent. */
export async function paintedPixels(page, selector) {
  return page.$eval(selector, (canvas) => {
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) painted += data[i] > 0 ? 1 : 0;
    return painted;
  });
}

/** A `sgpt synth --memory` capture of `frames` frames of `passes` passes, written once
 *  under target/browser-captures/ and reused; returns its path. */
export function memoryCapture(frames, passes) {
  const dir = join(ROOT, 'target', 'browser-captures');
  const file = join(dir, `memory_${frames}x${passes}.sgpt`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const args = ['synth', '--frames', String(frames), '--passes', String(passes), '--memory', '-o', file];
    const done = spawnSync(sgptCli(), args, { encoding: 'utf8' });
    assert.equal(done.status, 0, `sgpt ${args.join(' ')} failed: ${done.stderr}`);
  }
  return file;
}

/** `bytes` of a closed capture as a writer that never reached stop leaves them: no CLOSED
 *  flag, no directory, and cut `cutBeforeDirectory` bytes before where the directory was,
 *  inside the last record before it. The flags (bit 0 CLOSED) and the directory's place
 *  are patched in at stop, so a writer that never stopped leaves them zero
 *  (format/src/header.rs). */
export function cutAsNeverClosed(bytes, cutBeforeDirectory) {
  const directory = Number(bytes.readBigUInt64LE(16));
  assert.ok(directory > cutBeforeDirectory && directory < bytes.length, `directory at ${directory}`);
  const cut = Buffer.from(bytes.subarray(0, directory - cutBeforeDirectory));
  cut.writeUInt32LE(0, 8);
  cut.fill(0, 16, 32);
  return cut;
}

/** The page point at the middle of frame `index` of `frames`, on the canvas `selector`
 *  (the strip and the memory lane map frames to x the same way). */
export async function pointAtFrame(page, selector, index, frames) {
  const rect = await page.$eval(selector, (c) => c.getBoundingClientRect().toJSON());
  return { x: rect.x + (rect.width * (index + 0.5)) / frames, y: rect.y + rect.height / 2 };
}

/** What the readout says with the pointer over frame `index` of the memory lane. */
export async function laneReadout(page, index, frames) {
  const { x, y } = await pointAtFrame(page, '#memory-lane', index, frames);
  await page.mouse.move(x, y);
  await page.waitForFunction(() => document.getElementById('strip-readout').textContent !== '');
  return page.textContent('#strip-readout');
}

/** Keeps the page's slice log from the next navigation on: every job's share of every
 *  slice, `{load, job, unit, units, cap, why}` (inspector-web/src/web/slice.rs). */
export async function watchSlices(page) {
  await page.addInitScript(() => {
    window.__sgptSlices = [];
  });
}

/** The slice log of load `load`, grouped by job: `{ job: [share, ...] }` in order. */
export async function slicesByJob(page, load) {
  const log = await page.evaluate(() => window.__sgptSlices);
  const jobs = {};
  for (const share of log.filter((entry) => entry.load === load)) (jobs[share.job] ??= []).push(share);
  return jobs;
}

/** Asserts that `shares`, one job's slices, are the whole of a job run in bounded slices:
 *  more than one slice, none over the job's cap of units, each ended by its time or its
 *  cap but the last, which ended with the job done. Returns the units summed. */
export function assertSliced(job, shares) {
  const seen = JSON.stringify(shares?.map(({ units, why }) => [units, why]));
  assert.ok(shares?.length > 1, `${job} ran in more than one slice: ${seen}`);
  for (const { units, cap, why } of shares.slice(0, -1)) {
    assert.ok(why === 'time' || why === 'cap', `${job}: a slice ended by its time or its cap, not ${why}`);
    assert.ok(units <= cap, `${job}: ${units} units in a slice, over its cap of ${cap}: ${seen}`);
  }
  const last = shares.at(-1);
  assert.equal(last.why, 'done', `${job} finished: ${seen}`);
  assert.ok(last.units <= last.cap, `${job}: ${last.units} units in its last slice, over its cap of ${last.cap}`);
  assert.ok(shares.every((share) => share.unit === shares[0].unit && share.cap === shares[0].cap));
  return shares.reduce((sum, { units }) => sum + units, 0);
}
