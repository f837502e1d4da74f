// What the browser tests share, the inspector's most: pages opened with what must never
// happen collected (uncaught errors, dialogs, CSP violations), waits on what a page reports
// on <body> (data-state, data-load, data-stats, data-timeline-frame, ...), reading the
// inspector's views, the captures the tests open, and the inspector's slice log.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { baseUrl } from './chromium.mjs';
import { ROOT, sgptOutput } from './sgpt_cli.mjs';

// ---- Any page: what it reports, what must never happen ----

/** Collects `page`'s uncaught errors (a panic included) into `problems`, and returns it. */
export function collectUncaught(page, problems = [], label = 'uncaught') {
  page.on('pageerror', (error) => problems.push(`${label}: ${error.message}`));
  return problems;
}

/** Everything `page` logs to its console, for the message of a test that fails. */
export function consoleLog(page) {
  const log = [];
  page.on('console', (message) => log.push(`${message.type()}: ${message.text()}`));
  return log;
}

/** Collects the Content-Security-Policy violations of the pages `target` (a page or a
 *  context) loads from its next navigation on, in window.__cspViolations. */
export async function watchCsp(target) {
  await target.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
}

/** Waits until body's data-state is one of `states`; returns body's dataset. A page that
 *  never gets there fails with `log`, what it said meanwhile. A page just opened may still
 *  be parsing its head, with no body yet (the parser may yield at its inline script):
 *  that is a page not ready, not an error. */
export async function waitForState(page, states, { timeout, log = [] } = {}) {
  await page
    .waitForFunction((wanted) => wanted.includes(document.body?.dataset.state), states, { timeout })
    .catch((error) => {
      const where = new URL(page.url()).pathname;
      throw new Error(`${where} never reached ${states.join(' or ')}: ${error.message}\n${log.join('\n')}`);
    });
  return page.evaluate(() => ({ ...document.body.dataset }));
}

/** Waits until body's `data-<key>` reads `value`. */
export async function waitData(page, key, value) {
  await page.waitForFunction(([k, v]) => document.body?.dataset[k] === v, [key, value]);
}

// ---- The inspector's page ----

/**
 * The inspector at `query` in a fresh context of `browser`, waited on until it is ready for
 * a file or has finished the load `query` starts. Collects what must never happen:
 * uncaught errors, dialogs (a capture's script calling alert) and CSP violations.
 */
export async function openPage(browser, t, query = '', contextOptions = {}) {
  const context = await browser.newContext({ acceptDownloads: true, ...contextOptions });
  t.after(() => context.close());
  const page = await context.newPage();
  const problems = collectUncaught(page);
  page.on('dialog', async (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/.test(message.text())) {
      problems.push(`csp: ${message.text()}`);
    }
  });
  await watchCsp(page);
  await page.goto(`${baseUrl()}/${query}`);
  await waitForState(page, ['idle', 'ready', 'error']);
  return { page, problems };
}

/** Reloads the page, so that init scripts added since apply, and waits until it is idle. */
export async function reopen(page) {
  await page.reload();
  await waitData(page, 'state', 'idle');
}

/** The number of the latest load the page began. */
async function currentLoad(page) {
  return page.evaluate(() => Number(document.body.dataset.load ?? 0));
}

/** Waits for load number `load` (or a later one) to finish; returns body's dataset, the
 *  error shown and the capture's summary (null when hidden), a text node a line. */
export async function outcome(page, load = 1) {
  // A page just opened may have no body yet (see `waitForState`).
  await page.waitForFunction(
    (n) => Number(document.body?.dataset.load) >= n && ['ready', 'error'].includes(document.body?.dataset.state),
    load,
  );
  return page.evaluate(() => {
    // The summary lives in the Capture view, hidden behind another view more often than
    // not: its text nodes, one a line, rather than innerText, which needs it laid out.
    const textOf = (element) => {
      const parts = [];
      const walk = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) parts.push(walk.currentNode.data);
      return parts.join('\n');
    };
    const summary = document.getElementById('summary');
    return {
      ...document.body.dataset,
      error: document.getElementById('error').hidden ? null : document.getElementById('error').textContent,
      summary: summary.hidden ? null : textOf(summary),
    };
  });
}

/**
 * Drops a file on the page the way a browser does: dragenter, dragover, drop, all with a
 * DataTransfer holding the file. Returns the outcome of the load it started.
 */
export async function dropFile(page, name, bytes) {
  const load = await currentLoad(page);
  const seen = await page.evaluate(
    ({ name, data }) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(data)], name, { type: 'application/octet-stream' }));
      const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
      const target = document.querySelector('main') ?? document.body;
      target.dispatchEvent(new DragEvent('dragenter', init));
      const over = new DragEvent('dragover', init);
      target.dispatchEvent(over);
      const dragging = document.body.dataset.dragging === 'true';
      const drop = new DragEvent('drop', init);
      target.dispatchEvent(drop);
      return {
        overAccepted: over.defaultPrevented,
        dropHandled: drop.defaultPrevented,
        dragging,
        draggingAfter: document.body.dataset.dragging === 'true',
      };
    },
    { name, data: [...bytes] },
  );
  // The page accepts the drag (else the browser refuses the drop) and handles the drop
  // itself (else the browser navigates to the file); the overlay shows only while dragging.
  assert.deepEqual(seen, { overAccepted: true, dropHandled: true, dragging: true, draggingAfter: false });
  return outcome(page, load + 1);
}

/** Waits until every frame was decoded, returning the defect count the page shows. */
export async function verifiedDefects(page) {
  await waitData(page, 'verified', 'true');
  return Number(await page.evaluate(() => document.body.dataset.defects));
}

/** The kinds in the defects table, in order. */
export async function defectKinds(page) {
  return page.$$eval('#defects tr td:first-child', (cells) => cells.map((cell) => cell.textContent));
}

export async function showTab(page, key) {
  await page.click(`#tab-${key}`);
  await waitData(page, 'tab', key);
}

/** Rows of a table as arrays of cell texts. */
export async function tableRows(page, selector) {
  return page.$$eval(`${selector} tbody tr`, (rows) => rows.map((row) => [...row.cells].map((c) => c.textContent)));
}

/** A whole number as the page writes it: thousands grouped by thin spaces. */
export function grouped(n) {
  return n.toLocaleString('en').replaceAll(',', '\u2009');
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

// ---- Captures ----

/** The bytes of dist/captures/`name`, as the test server serves them. */
export async function fixtureBytes(name) {
  // A read that fails rather than hangs when the server stalls.
  const response = await fetch(`${baseUrl()}/captures/${name}`, { signal: AbortSignal.timeout(30_000) });
  assert.equal(response.status, 200, `dist/captures/${name} is served`);
  return Buffer.from(await response.arrayBuffer());
}

/** Where captures made for the tests are kept between runs. */
export const CAPTURES = join(ROOT, 'target', 'browser-captures');

/** `sgpt synth SYNTH_ARGS -o FILE`, written once as CAPTURES/`name` and reused; returns
 *  its path. */
export function synthCapture(name, synthArgs) {
  const file = join(CAPTURES, name);
  if (!existsSync(file)) {
    mkdirSync(CAPTURES, { recursive: true });
    sgptOutput('synth', ...synthArgs, '-o', file);
  }
  return file;
}

/** A `sgpt synth --memory` capture of `frames` frames of `passes` passes; returns its path. */
export function memoryCapture(frames, passes) {
  return synthCapture(`memory_${frames}x${passes}.sgpt`, ['--frames', String(frames), '--passes', String(passes), '--memory']);
}

/** `bytes` of a closed capture as a writer that never reached stop leaves them: no CLOSED
 *  flag, no directory, and cut `cutBeforeDirectory` bytes before where the directory was,
 *  inside the last record before it. The flags (bit 0 CLOSED) and the directory's place
 *  are patched in at stop, so a writer that never stopped leaves them zero
 *  (format/src/container/header.rs). */
export function cutAsNeverClosed(bytes, cutBeforeDirectory) {
  const directory = Number(bytes.readBigUInt64LE(16));
  assert.ok(directory > cutBeforeDirectory && directory < bytes.length, `directory at ${directory}`);
  const cut = Buffer.from(bytes.subarray(0, directory - cutBeforeDirectory));
  cut.writeUInt32LE(0, 8);
  cut.fill(0, 16, 32);
  return cut;
}

// ---- The inspector's slice log ----

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
 *  more than one slice, none over the job's cap of units, each ended by its time, its cap
 *  or a wait for its workers but the last, which ended with the job done. Returns the
 *  units summed. */
export function assertSliced(job, shares) {
  const seen = JSON.stringify(shares?.map(({ units, why }) => [units, why]));
  assert.ok(shares?.length > 1, `${job} ran in more than one slice: ${seen}`);
  for (const { units, cap, why } of shares.slice(0, -1)) {
    // A job whose workers hold the rest of its work ends a slice waiting for them.
    assert.ok(['time', 'cap', 'waiting'].includes(why), `${job}: a slice ended by its time, its cap or a wait, not ${why}`);
    assert.ok(units <= cap, `${job}: ${units} units in a slice, over its cap of ${cap}: ${seen}`);
  }
  const last = shares.at(-1);
  assert.equal(last.why, 'done', `${job} finished: ${seen}`);
  assert.ok(last.units <= last.cap, `${job}: ${last.units} units in its last slice, over its cap of ${last.cap}`);
  assert.ok(shares.every((share) => share.unit === shares[0].unit && share.cap === shares[0].cap));
  return shares.reduce((sum, { units }) => sum + units, 0);
}
