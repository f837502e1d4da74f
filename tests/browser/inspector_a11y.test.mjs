// Accessibility: axe-core finds no serious or critical violation on any of the inspector's
// views, with a pass selected, or in its search and help dialogs, in the light and the dark
// color scheme, on the bundled real capture and a fixture. axe is injected
// without weakening the page's Content-Security-Policy (tests/browser/axe.mjs says how).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromiumForFile } from './chromium.mjs';
import { axeViolations, describeViolations } from './axe.mjs';
import { openPage, outcome, showTab, waitData } from './inspector_helpers.mjs';

const browser = chromiumForFile();

/** The views in number-key order. */
const VIEWS = ['timeline', 'range', 'stats', 'structure', 'resources', 'memory', 'compare', 'notes'];

/** axe's serious and critical violations on `page` as it is now, each with `where`. */
async function violationsAt(page, where) {
  return (await axeViolations(page)).map((violation) => ({ where, ...violation }));
}

for (const capture of ['demo.sgpt', 'level_workload.sgpt']) {
  for (const colorScheme of ['light', 'dark']) {
    test(`no serious or critical axe violation on ${capture}, every view and dialog (${colorScheme})`, async (t) => {
      const { page, problems } = await openPage(browser, t, `?file=/captures/${capture}`, { colorScheme });
      const shown = await outcome(page);
      assert.equal(shown.state, 'ready', shown.error);
      await waitData(page, 'stats', 'ready');
      const tabs = await page.$$eval('#tabs [role=tab]', (all) => all.filter((tab) => !tab.hidden).map((tab) => tab.dataset.value));
      assert.deepEqual(tabs, VIEWS, 'the page offers its views');
      const found = [];
      // Hidden content is not checked: each view is shown in turn.
      for (const view of VIEWS) {
        await showTab(page, view);
        if (view === 'range') await waitData(page, 'icicle', 'ready');
        found.push(...(await violationsAt(page, `${view} view`)));
      }
      // A GPU pass chosen: the details pane with its sparkline and histogram.
      await showTab(page, 'timeline');
      await page.click('[data-testid=frame-detail] tr[data-action=pass]');
      await page.waitForFunction(() => document.getElementById('histogram')?.width > 0);
      found.push(...(await violationsAt(page, 'timeline view, a pass selected')));
      // The search with results, their matches marked.
      await page.keyboard.press('/');
      await page.waitForFunction(() => document.getElementById('search').open);
      await page.keyboard.type('pa');
      await page.waitForSelector('#search-results li[role=option] mark');
      found.push(...(await violationsAt(page, 'search dialog')));
      // Closed directly: Escape is inspector_layout.test.mjs's to check.
      await page.evaluate(() => {
        document.getElementById('search').close();
        document.activeElement.blur();
      });
      await page.keyboard.press('?');
      await page.waitForFunction(() => document.getElementById('help').open);
      found.push(...(await violationsAt(page, 'help dialog')));
      const message = found.map(({ where, ...v }) => `${where}: ${describeViolations([v])}`).join('\n');
      assert.deepEqual(found, [], `axe found (${capture}, ${colorScheme}):\n${message}`);
      // Injecting and running axe broke no rule of the page's CSP.
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
      assert.deepEqual(problems, []);
    });
  }
}

test('no serious or critical axe violation on the page before a capture is open', async (t) => {
  const { page, problems } = await openPage(browser, t);
  const violations = await axeViolations(page);
  assert.deepEqual(violations, [], describeViolations(violations));
  assert.deepEqual(problems, []);
});

test('the harness reports what axe finds: a page with known violations', async (t) => {
  const { page, problems } = await openPage(browser, t);
  // Content the page itself never makes: an image without text and a nameless button.
  await page.evaluate(() => {
    const image = document.createElement('img');
    image.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    image.id = 'axe-probe-image';
    const button = document.createElement('button');
    button.id = 'axe-probe-button';
    document.body.append(image, button);
  });
  const violations = await axeViolations(page, { impacts: ['minor', 'moderate', 'serious', 'critical'] });
  const byId = Object.fromEntries(violations.map((v) => [v.id, v]));
  assert.deepEqual(byId['image-alt']?.targets, ['#axe-probe-image'], describeViolations(violations));
  assert.equal(byId['image-alt'].impact, 'critical');
  assert.deepEqual(byId['button-name']?.targets, ['#axe-probe-button']);
  assert.ok(byId['image-alt'].help.length > 0);
  // The default impacts leave out the minor and moderate.
  assert.ok((await axeViolations(page)).every((v) => ['serious', 'critical'].includes(v.impact)));
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems, []);
});
