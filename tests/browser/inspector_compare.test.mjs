// Two captures in the inspector: a baseline and a candidate, opened by a bookmarkable
// `?file=B&base=A`, or by picking (or dropping) both files, the older the baseline. Both
// strips share one axis per frame index; the Compare view gives the comparison engine's
// verdicts (the same as `sgpt diff`), and the pass detail both histograms.
//
// The captures are `sgpt synth` runs of one workload, the candidate with one pass made 50 %
// slower, written to target/browser-captures/ and reused by later runs.

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { baseUrl, chromiumForFile } from './chromium.mjs';
import { collectUncaught, outcome, showTab, synthCapture, tableRows, waitData, watchCsp } from './inspector_helpers.mjs';
import { sgptJson } from './sgpt_cli.mjs';

const WORKLOAD = ['--frames', '600', '--passes', '30', '--level', 'structure', '--seed', '4'];
const browser = chromiumForFile();
let baseline;
let candidate;
let slowed;

before(() => {
  baseline = synthCapture('compare_base.sgpt', [...WORKLOAD, '--run', '1']);
  // The pass to slow: the one with the largest total, so its shift is well above the noise.
  const stats = sgptJson('stats', baseline);
  slowed = stats.passes.slice().sort((a, b) => b.total_ns - a.total_ns)[0].label;
  candidate = synthCapture(`compare_slow_${slowed.replace(/[^a-z0-9]+/gi, '_')}.sgpt`, [
    ...WORKLOAD, '--run', '2', '--slow-pass', slowed, '--slow-by', '50%',
  ]);
});

/** A page whose /runs/ URLs serve the two captures, opened at `query`; the baseline's
 *  response waits for `baseGate` where one is given. */
async function openWithRuns(t, query, baseGate = Promise.resolve()) {
  const context = await browser.newContext();
  t.after(() => context.close());
  const page = await context.newPage();
  const problems = collectUncaught(page);
  await watchCsp(page);
  // The order the candidate's workspace and the baseline are first shown in.
  await page.addInitScript(() => {
    window.__shownOrder = [];
    addEventListener('DOMContentLoaded', () => {
      new MutationObserver(() => {
        const { state, base } = document.body.dataset;
        for (const [seen, what] of [[state === 'ready', 'candidate'], [base !== undefined, 'baseline']]) {
          if (seen && !window.__shownOrder.includes(what)) window.__shownOrder.push(what);
        }
      }).observe(document.body, { attributes: true });
    });
  });
  // By path: a glob would match the page's own URL, whose query names the files.
  await page.route((url) => url.pathname.startsWith('/runs/'), async (route) => {
    const isBase = new URL(route.request().url()).pathname === '/runs/base.sgpt';
    if (isBase) await baseGate;
    route.fulfill({ status: 200, contentType: 'application/octet-stream', body: readFileSync(isBase ? baseline : candidate) });
  });
  await page.goto(`${baseUrl()}/${query}`);
  return { page, problems };
}

async function verdicts(page) {
  await waitData(page, 'compare', 'ready');
  await showTab(page, 'compare');
  return tableRows(page, '[data-testid=compare]');
}

test('?file=B&base=A compares the candidate with the baseline and flags the slowed pass', async (t) => {
  const { page, problems } = await openWithRuns(t, '?file=/runs/candidate.sgpt&base=/runs/base.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  // The candidate is shown while the baseline is read, and the baseline once it is.
  await waitData(page, 'base', '/runs/base.sgpt');
  assert.deepEqual(await page.evaluate(() => window.__shownOrder), ['candidate', 'baseline']);
  const rows = await verdicts(page);
  // The frame time first, then passes by verdict: the slowed pass leads.
  assert.equal(rows[0][0], 'GPU frame time');
  assert.equal(rows[1][1], 'slower', JSON.stringify(rows.slice(0, 4)));
  assert.ok(rows[1][0].endsWith(slowed), `${rows[1][0]} is ${slowed}`);
  assert.match(rows[1][4], /\+/, 'a positive shift');
  // Both strips on one axis per frame index: the same frame count, the same width.
  const widths = await page.evaluate(() =>
    ['base-strip', 'frame-strip'].map((id) => document.getElementById(id).getBoundingClientRect().width));
  assert.ok(widths[0] > 100 && Math.abs(widths[0] - widths[1]) < 1, `strip widths ${widths}`);
  assert.match(await page.textContent('[data-testid=base-label]'), /Baseline \(A\): \/runs\/base\.sgpt/);
  assert.match(await page.textContent('[data-testid=compare]'), /Baseline \(A\): \/runs\/base\.sgpt/);
  // The link keeps the view, the baseline's range included.
  assert.match(await page.evaluate(() => location.hash), /tab=compare.*cmp=0-599,0-599/);
  assert.deepEqual(problems, []);
});

test('the candidate is shown and explored while its baseline is still being read', async (t) => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const { page, problems } = await openWithRuns(t, '?file=/runs/candidate.sgpt&base=/runs/base.sgpt#tab=compare', gate);
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  // The candidate's statistics finish while the baseline's response has not come.
  await waitData(page, 'stats', 'ready');
  assert.match(await page.textContent('[data-testid=compare]'), /Reading the baseline \/runs\/base\.sgpt; the comparison starts once it is open\./);
  assert.equal(await page.evaluate(() => document.body.dataset.compare), undefined);
  release();
  const rows = await verdicts(page);
  assert.equal(rows[1][1], 'slower', JSON.stringify(rows.slice(0, 4)));
  assert.ok(rows[1][0].endsWith(slowed), `${rows[1][0]} is ${slowed}`);
  // Two runs of one workload, recorded alike: nothing to say of how they were made.
  assert.doesNotMatch(await page.textContent('#banners'), /recorded differently/);
  assert.deepEqual(problems, []);
});

test('a baseline recorded differently from the candidate is named in a banner', async (t) => {
  const { page, problems } = await openWithRuns(t, '?file=/captures/level_verbose.sgpt&base=/captures/level_timing.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  await page.waitForFunction(() => document.body.dataset.base !== undefined);
  assert.match(
    await page.textContent('#banners'),
    /The baseline \(A\) and the candidate \(B\) were recorded differently \(level: A timing; B verbose · timestamps inside passes: A no; B yes\), so the comparison's shifts hold that difference too/,
  );
  assert.deepEqual(problems, []);
});

test('a baseline that cannot be read leaves the candidate open alone, and says why', async (t) => {
  const { page, problems } = await openWithRuns(t, '?file=/runs/candidate.sgpt&base=/captures/no-such-baseline.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  await page.waitForFunction(() => document.body.dataset.baseError !== undefined);
  const said = await page.evaluate(() => document.body.dataset.baseError);
  assert.match(said, /^Could not open the baseline \/captures\/no-such-baseline\.sgpt: the server answered HTTP 404/);
  assert.match(await page.textContent('#banners'), /The candidate is shown alone/);
  // Its frames are checked, as a capture opened alone.
  await waitData(page, 'verified', 'true');
  assert.equal(await page.evaluate(() => document.body.dataset.base), undefined);
  assert.deepEqual(problems, []);
});

test('picking two files compares them, the first (older) the baseline; the pass shows both histograms', async (t) => {
  const { page, problems } = await openWithRuns(t, '');
  await waitData(page, 'state', 'idle');
  const file = (name, path) => ({ name, mimeType: 'application/octet-stream', buffer: readFileSync(path) });
  await page.setInputFiles('#file-input', [file('base.sgpt', baseline), file('candidate.sgpt', candidate)]);
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  await waitData(page, 'base', 'base.sgpt');
  const rows = await verdicts(page);
  assert.equal(rows[1][1], 'slower');
  // Choose the slowed pass: its detail has the candidate's and the baseline's histograms.
  await showTab(page, 'stats');
  await page.click(`[data-testid=stats-table] tbody tr:has-text("${slowed}")`);
  await page.waitForFunction(() => document.getElementById('histogram-base')?.width > 0
    && /median/.test(document.getElementById('histogram-base-readout')?.textContent ?? ''), null, { timeout: 60_000 });
  const readouts = await page.evaluate(() =>
    ['histogram-readout', 'histogram-base-readout'].map((id) => document.getElementById(id).textContent));
  const median = (text) => text.match(/median ([0-9.]+ [µm]?s)/)?.[1];
  assert.ok(median(readouts[0]) && median(readouts[1]), readouts.join(' | '));
  assert.notEqual(median(readouts[0]), median(readouts[1]), 'the slowed pass has two medians');
  // A file opened alone next shows no baseline.
  await page.setInputFiles('#file-input', [file('candidate.sgpt', candidate)]);
  const alone = await outcome(page, 2);
  assert.equal(alone.state, 'ready', alone.error);
  assert.equal(alone.base, undefined);
  assert.deepEqual(
    await page.evaluate(() => ['base-label', 'candidate-label', 'base-strip'].map((id) => document.getElementById(id).hidden)),
    [true, true, true],
  );
  assert.deepEqual(problems, []);
});
