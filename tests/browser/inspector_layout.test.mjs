// The inspector's application layout on the bundled real capture: screenshots of every
// view as artifacts (target/browser-artifacts/screenshots), layout facts asserted on each
// (not pixels), and the keyboard-first interactions: search, help, view keys, theme,
// splitter, the range flame graph, the pass histogram and Tab order.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromiumForFile } from './chromium.mjs';
import { grouped, openPage, outcome, showTab, tableRows, waitData } from './inspector_helpers.mjs';

const browser = chromiumForFile();

const DEMO = '?file=/captures/demo.sgpt';
const SHOTS = fileURLToPath(new URL('../../target/browser-artifacts/screenshots/', import.meta.url));

/** The views in number-key order: key `1` is VIEWS[0]. */
const VIEWS = ['timeline', 'range', 'stats', 'structure', 'resources', 'memory', 'compare', 'notes'];

/** The data-testids that belong to one view's content, by view. */
const OWNED = {
  range: ['range'],
  stats: ['stats-table'],
  structure: ['structure'],
  resources: ['resources'],
  memory: ['memory'],
  compare: ['compare'],
  notes: ['capture', 'summary', 'defects'],
};

/** The demo at `width`×`height` in `colorScheme`, ready with its statistics. */
async function openDemo(t, { width = 1280, height = 720, colorScheme = 'light' } = {}) {
  const { page, problems } = await openPage(browser, t, DEMO, { viewport: { width, height }, colorScheme });
  const shown = await outcome(page);
  assert.equal(shown.state, 'ready', shown.error);
  await waitData(page, 'stats', 'ready');
  return { page, problems };
}

/** Shows `view` and waits until what it builds is there. */
async function showView(page, view) {
  await showTab(page, view);
  await waitData(page, 'state', 'ready');
  await waitData(page, 'stats', 'ready');
  if (view === 'range') await waitData(page, 'icicle', 'ready');
}

/** What the layout is on `page` now, measured in the page. */
function measure(page) {
  return page.evaluate((owned) => {
    const visible = (element) => element !== null && element.checkVisibility() && element.getBoundingClientRect().height > 0;
    const panels = {};
    for (const panel of document.querySelectorAll('[id^=panel-]')) {
      if (panel.getAttribute('role') === 'tabpanel' || panel.id === 'panel-timeline') {
        panels[panel.id.slice('panel-'.length)] = { hidden: panel.hidden, visible: visible(panel) };
      }
    }
    // Content of a view found inside another view's panel.
    const misplaced = [];
    for (const [view, ids] of Object.entries(owned)) {
      for (const id of ids) {
        for (const element of document.querySelectorAll(`[data-testid=${id}]`)) {
          const home = element.closest('[role=tabpanel]');
          if (home && home.id !== `panel-${view}`) misplaced.push(`${id} in #${home.id}`);
        }
      }
    }
    const shownTestIds = Object.values(owned)
      .flat()
      .filter((id) => [...document.querySelectorAll(`[data-testid=${id}]`)].some(visible));
    const root = document.documentElement;
    const toolbar = document.getElementById('toolbar').getBoundingClientRect();
    const facts = [...document.querySelectorAll('#capture-facts > span')].map((span) => {
      const r = span.getBoundingClientRect();
      return {
        text: span.textContent,
        title: span.title,
        shown: visible(span) && r.width > 0 && r.left >= toolbar.left && r.right <= toolbar.right,
        // Cut short by its ellipsis.
        clipped: span.scrollWidth > span.clientWidth,
      };
    });
    const name = document.getElementById('capture-name');
    const nameRect = name.getBoundingClientRect();
    // The summary's facts, to check the toolbar against: dt → dd.
    const summary = {};
    for (const dt of document.querySelectorAll('#summary dt')) summary[dt.textContent] = dt.nextElementSibling?.textContent;
    return {
      viewport: { width: window.innerWidth, height: window.innerHeight },
      timelineHeight: document.getElementById('panel-timeline').getBoundingClientRect().height,
      overflow: {
        html: [root.scrollWidth, root.clientWidth],
        body: [document.body.scrollWidth, document.body.clientWidth],
      },
      panels,
      misplaced,
      shownTestIds,
      details: visible(document.getElementById('details')),
      name: {
        text: name.textContent,
        title: name.title,
        shown: visible(name) && nameRect.width > 0 && nameRect.right <= toolbar.right,
        clipped: name.scrollWidth > name.clientWidth,
      },
      facts,
      summary,
    };
  }, OWNED);
}

/** Asserts the layout facts of `view` on `page`. */
async function assertLayout(page, view, where) {
  const m = await measure(page);
  const at = `${where}, ${view} view`;
  if (view === 'timeline') {
    assert.ok(m.timelineHeight >= m.viewport.height / 2, `${at}: the timeline is ${m.timelineHeight}px of ${m.viewport.height}px`);
  }
  assert.ok(m.overflow.html[0] <= m.overflow.html[1], `${at}: the page scrolls sideways: ${m.overflow.html}`);
  assert.ok(m.overflow.body[0] <= m.overflow.body[1], `${at}: body scrolls sideways: ${m.overflow.body}`);
  // Exactly the chosen view's panel is shown; the timeline always is.
  assert.deepEqual(Object.keys(m.panels).sort(), [...VIEWS].sort(), `${at}: a panel for each view`);
  for (const [key, panel] of Object.entries(m.panels)) {
    const shown = key === 'timeline' || key === view;
    assert.equal(panel.visible, shown, `${at}: #panel-${key} ${shown ? 'shown' : 'hidden'}`);
    if (key !== 'timeline') assert.equal(panel.hidden, !shown, `${at}: #panel-${key}.hidden`);
  }
  assert.deepEqual(m.misplaced, [], `${at}: a view's content in another view's panel`);
  // The content on screen is the view's own: the summary only on the Capture view.
  const foreign = m.shownTestIds.filter((id) => !(OWNED[view] ?? []).includes(id));
  assert.deepEqual(foreign, [], `${at}: other views' content on screen`);
  if (view === 'notes') assert.ok(m.shownTestIds.includes('summary'), `${at}: the summary is shown`);
  else assert.ok(!m.shownTestIds.includes('summary'), `${at}: the summary is not shown`);
  assert.ok(m.details, `${at}: the details pane is shown`);
  // The toolbar names the capture and its key facts, on every view.
  assert.ok(m.name.shown && m.name.text.endsWith('demo.sgpt'), `${at}: the capture's name: ${JSON.stringify(m.name)}`);
  const frames = Number(await page.evaluate(() => document.body.dataset.frames));
  const dropped = Number(await page.evaluate(() => document.body.dataset.droppedSpans));
  const expected = [
    `level ${m.summary.Level}`,
    m.summary.Adapter,
    `${grouped(frames)} frames`,
    `${grouped(dropped)} dropped spans`,
  ];
  assert.deepEqual(m.facts.slice(0, 4).map((f) => f.text), expected, `${at}: the toolbar's facts`);
  for (const fact of m.facts) assert.ok(fact.shown, `${at}: the toolbar shows "${fact.text}"`);
  // The short facts are read whole; the name and the adapter, free text of any length,
  // may be cut short if their title holds them whole.
  const [, adapter, ...short] = m.facts;
  const cut = [m.facts[0], ...short].filter((f) => f.clipped).map((f) => f.text);
  assert.deepEqual(cut, [], `${at}: toolbar facts cut short by an ellipsis`);
  for (const free of [m.name, adapter]) {
    assert.ok(!free.clipped || free.title.includes(free.text), `${at}: "${free.text}" cut short without a title holding it`);
  }
}

for (const [width, height] of [[1280, 720], [1920, 1080]]) {
  for (const colorScheme of ['light', 'dark']) {
    test(`every view at ${width}×${height}, ${colorScheme}: layout facts and a screenshot`, async (t) => {
      mkdirSync(SHOTS, { recursive: true });
      const { page, problems } = await openDemo(t, { width, height, colorScheme });
      // Every view is shot and checked even when one fails, each failure said.
      const failures = [];
      for (const view of VIEWS) {
        await showView(page, view);
        await page.screenshot({ path: `${SHOTS}${view}-${colorScheme}-${width}x${height}.png` });
        await assertLayout(page, view, `${width}×${height} ${colorScheme}`).catch((error) => failures.push(error.message));
      }
      assert.deepEqual(failures, [], failures.join('\n\n'));
      assert.deepEqual(problems, []);
    });
  }
}

test('the layout holds at 3840×2160', async (t) => {
  const { page, problems } = await openDemo(t, { width: 3840, height: 2160 });
  await assertLayout(page, 'timeline', '3840×2160');
  assert.deepEqual(problems, []);
});

/** The names of the stats table's rows. */
async function statsNames(page) {
  return (await tableRows(page, '#stats')).map((row) => row[0]);
}

/** The demo's frame workload rows: `{ name, value }`, a GPU pass of the shown frame each. */
async function workloadPasses(page) {
  return page.$$eval('[data-testid=frame-detail] tr[data-action=pass]', (rows) =>
    rows.map((row) => ({ name: row.cells[0].textContent, value: row.dataset.value })),
  );
}

/** The search dialog's options: name and whether it is the one chosen. */
async function searchOptions(page) {
  return page.$$eval('#search-results li[role=option]', (items) =>
    items.map((li) => ({
      name: li.querySelector('.name').textContent,
      marked: li.querySelectorAll('.name mark').length,
      selected: li.getAttribute('aria-selected') === 'true',
    })),
  );
}

const dialogOpen = (page, id) => page.evaluate((id) => document.getElementById(id).open, id);

test('search: / opens it, a pass is found highlighted, Enter selects it everywhere', async (t) => {
  const { page, problems } = await openDemo(t);
  // A GPU pass of the shown frame, "graph pass › label"; its label is what is typed.
  const pass = (await workloadPasses(page)).find((p) => {
    const [graph, label] = p.name.split(' › ');
    return label !== undefined && label !== graph;
  });
  assert.ok(pass, 'the demo frame has a labelled GPU pass');
  const label = pass.name.split(' › ').at(-1);
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.getElementById('search').open);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'search-input');
  await page.keyboard.type(label);
  await page.waitForFunction((name) => [...document.querySelectorAll('#search-results .name')].some((n) => n.textContent === name), pass.name);
  const options = await searchOptions(page);
  const at = options.findIndex((o) => o.name === pass.name);
  assert.ok(options[at].marked > 0, `the match is highlighted: ${JSON.stringify(options[at])}`);
  assert.ok(options[0].selected, 'the first result is chosen to begin with');
  for (let i = 0; i < at; i += 1) await page.keyboard.press('ArrowDown');
  assert.equal((await searchOptions(page)).findIndex((o) => o.selected), at, 'ArrowDown moves the choice');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.body.dataset.selection !== undefined);
  assert.equal(await page.evaluate(() => document.body.dataset.selection), 'GPU pass');
  assert.equal(await dialogOpen(page, 'search'), false, 'choosing closes the search');
  assert.match(await page.textContent('#timeline-readout'), /^Selected: /);
  await page.waitForFunction(
    (name) => document.querySelector('[data-testid=pass-detail] h3')?.textContent.includes(name),
    pass.name,
  ).catch(async () => assert.fail(`the details pane shows ${pass.name}: ${await page.textContent('[data-testid=pass-detail]')}`));
  assert.match(await page.evaluate(() => location.hash), /[#&]pass=\d+/);
  // Ctrl+K opens it as / does, with the last query; one Escape closes it, as its hint says.
  await page.keyboard.press('Control+k');
  await page.waitForFunction(() => document.getElementById('search').open);
  assert.equal(await page.inputValue('#search-input'), label);
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.getElementById('search').open, null, { timeout: 5_000 }).catch(async () =>
    assert.fail(`one Escape leaves the search open, its field now "${await page.inputValue('#search-input')}"`),
  );
  assert.deepEqual(problems, []);
});

test('? opens the keyboard help listing the timeline and view keys; Escape closes it', async (t) => {
  const { page, problems } = await openDemo(t);
  await page.keyboard.press('?');
  await page.waitForFunction(() => document.getElementById('help').open);
  const chords = await page.$$eval('#help-body td:first-child', (cells) => cells.map((c) => c.textContent));
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => !document.getElementById('help').open);
  // Each key of each chord: "Shift+← or Shift+→" lists Shift, ← and →.
  const listed = new Set(chords.flatMap((text) => text.split(' or ')).flatMap((chord) => chord.split('+')));
  for (const key of ['W', 'A', 'S', 'D', 'F', '1', '2', '3', '4', '5', '6', '7', '8']) {
    assert.ok(listed.has(key), `the help lists ${key}: ${[...listed].join(' ')}`);
  }
  // Every arrow the page answers to: ← → in the strip, timeline and tabs, ↑ ↓ in the
  // flame graph and on the splitter.
  for (const arrow of ['←', '→', '↑', '↓']) assert.ok(listed.has(arrow), `the help lists ${arrow}: ${[...listed].join(' ')}`);
  assert.deepEqual(problems, []);
});

/** Whether `query`'s characters appear in `name` in order, ignoring case: the loosest of
 *  the search's tiers (crate::search), which every stricter one implies. */
function subsequence(name, query) {
  const folded = [...name.toLowerCase()];
  let at = 0;
  for (const c of query.toLowerCase()) {
    at = folded.indexOf(c, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

test('number keys choose views; the statistics filter matches as the search does', async (t) => {
  const { page, problems } = await openDemo(t);
  await page.keyboard.press('3');
  await waitData(page, 'tab', 'stats');
  const all = await statsNames(page);
  // The first two letters of two words of a pass name: a subsequence, not a substring.
  // (Not one the table annotates, "main (encoder)": the search has the plain name.)
  const name = all.find((n) => !n.includes('(') && /^[a-z]{2}[a-z]*[^a-z]+[a-z]{2}/i.test(n));
  assert.ok(name, `a pass of two words: ${all}`);
  const words = name.split(/[^a-z]+/i).filter(Boolean);
  const query = words[0].slice(0, 2) + words[1].slice(0, 2);
  await page.fill('#stats-filter', query);
  await page.waitForFunction(
    (n) => document.querySelectorAll('#stats tbody tr').length < n,
    all.length,
  );
  const kept = await statsNames(page);
  assert.ok(kept.includes(name), `"${query}" keeps ${name}: ${kept}`);
  assert.deepEqual(kept, all.filter((n) => subsequence(n, query)), `"${query}" keeps exactly the passes it matches`);
  // The search finds that pass by the same query.
  await page.keyboard.press('Control+k');
  await page.waitForFunction(() => document.getElementById('search').open);
  await page.keyboard.type(query);
  await page.waitForFunction(() => document.querySelector('#search-results li[role=option]'));
  const found = (await searchOptions(page)).map((o) => o.name);
  assert.ok(found.includes(name), `the search's "${query}" finds ${name}: ${found}`);
  assert.ok(found.every((n) => subsequence(n, query)), `the search's "${query}": ${found}`);
  // Closed directly: Escape is the search test's to check. Then no field has the focus,
  // where a digit would be text.
  await page.evaluate(() => {
    document.getElementById('search').close();
    document.activeElement.blur();
  });
  await page.keyboard.press('1');
  await waitData(page, 'tab', 'timeline');
  assert.deepEqual(problems, []);
});

test('the range flame graph paints, states the zero-duration count, and zooms on a click', async (t) => {
  const { page, problems } = await openDemo(t);
  await showTab(page, 'stats');
  const statsNote = await page.textContent('[data-testid=stats-table] .note');
  const zeros = statsNote.match(/[\d\u2009]+ of [\d\u2009]+ spans in this range read exactly 0 ns\./)?.[0];
  assert.ok(zeros, `the statistics state the zero-duration count: ${statsNote}`);
  await page.keyboard.press('2');
  await waitData(page, 'tab', 'range');
  await waitData(page, 'icicle', 'ready');
  assert.ok((await page.$eval('#icicle-canvas', (c) => c.width)) > 0, 'the flame graph is painted');
  assert.ok((await page.textContent('#range-note')).includes(zeros), `#range-note says "${zeros}"`);
  const box = await page.$eval('#icicle-canvas', (c) => c.getBoundingClientRect().toJSON());
  const readoutAt = async (x, y) => {
    await page.mouse.move(box.x + x, box.y + y);
    return page.textContent('#range-readout');
  };
  // The first block of the top row, and whatever is at the row's right end.
  const first = await readoutAt(4, 4);
  const right = await readoutAt(box.width - 4, 4);
  assert.ok(first !== '' && right !== '' && first !== right, `two blocks on the top row: ${first} | ${right}`);
  await page.mouse.click(box.x + 4, box.y + 4);
  // Zoomed, the block spans the whole width: the row's right end is it too. (Unzoomed, the
  // pointer there finds the other block again and the readout says so.)
  assert.equal(await readoutAt(box.width - 4, 4), first, 'the clicked block fills the top row');
  assert.deepEqual(problems, []);
});

test('a GPU pass chosen in the details pane gets its histogram of durations', async (t) => {
  const { page, problems } = await openDemo(t);
  const [pass] = await workloadPasses(page);
  await page.click(`[data-testid=frame-detail] tr[data-action=pass][data-value="${pass.value}"]`);
  await page.waitForFunction(() => document.getElementById('histogram')?.width > 0 && document.getElementById('histogram-readout').textContent !== '');
  assert.ok((await page.textContent('[data-testid=pass-detail] h3')).includes(pass.name));
  const readout = await page.textContent('#histogram-readout');
  // Its numbers are the statistics row's: the count, and the 0 ns count when there are any.
  await showTab(page, 'stats');
  const row = (await tableRows(page, '#stats')).find((r) => r[0] === pass.name);
  assert.ok(row, `${pass.name} has a statistics row`);
  const [, count, zeros] = row;
  assert.match(readout, new RegExp(`^${count} spans · median \\S+ \\S+ · p95 \\S+ \\S+`));
  if (zeros === '0') assert.ok(!/read exactly 0 ns/.test(readout), readout);
  else assert.ok(readout.includes(`${zeros} read exactly 0 ns`), readout);
  assert.deepEqual(problems, []);
});

test('T cycles the theme: system, light, dark, system', async (t) => {
  const { page, problems } = await openDemo(t);
  const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
  assert.equal(await theme(), 'system');
  for (const next of ['light', 'dark', 'system']) {
    await page.keyboard.press('t');
    assert.equal(await theme(), next);
    assert.equal(await page.textContent('#theme'), `Theme: ${next}`);
  }
  assert.deepEqual(problems, []);
});

test('the splitter resizes the views panel from the keyboard', async (t) => {
  const { page, problems } = await openDemo(t);
  await page.keyboard.press('3');
  await waitData(page, 'tab', 'stats');
  const height = () => page.$eval('#tables', (e) => e.getBoundingClientRect().height);
  const before = await height();
  await page.focus('#splitter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  const after = await height();
  assert.ok(after > before, `#tables ${before}px → ${after}px`);
  assert.equal(await page.getAttribute('#splitter', 'aria-valuenow'), '55');
  assert.deepEqual(problems, []);
});

test('Tab reaches the strip, the timeline, the tabs and the view panels', async (t) => {
  const { page, problems } = await openDemo(t);
  /** Presses Tab until the focused element matches `selector`; returns the ids of what
   *  was focused on the way. */
  const tabTo = async (what, selector, limit = 40) => {
    const path = [];
    for (let i = 0; i < limit; i += 1) {
      await page.keyboard.press('Tab');
      const [id, hit] = await page.evaluate((s) => {
        const e = document.activeElement;
        return [e.id || e.tagName, e.matches(s)];
      }, selector);
      path.push(id);
      if (hit) return path;
    }
    assert.fail(`Tab never reached ${what}: ${path.join(' → ')}`);
  };
  await tabTo('the frame strip', '#frame-strip');
  await tabTo('the timeline', '#timeline-canvas');
  await tabTo('the view tabs', '[role=tab]');
  // The tabs are one stop; arrows choose among them, then Tab goes into the panel.
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-timeline');
  await page.keyboard.press('ArrowRight');
  await waitData(page, 'tab', 'range');
  await tabTo('the range panel', '#panels, #panels *');
  await tabTo('the flame graph', '#icicle-canvas');
  assert.deepEqual(problems, []);
});
