// axe-core (npm, pinned in package.json) run inside a page under test, for the
// accessibility checks.
//
// The inspector's Content-Security-Policy allows no inline script, so Playwright's
// addScriptTag (an inline <script>) is refused, and a CSP violation reported. axe's source
// is evaluated through the DevTools protocol instead (page.evaluate of a string), which the
// page's script-src does not govern: the site's policy stays as it is, and axe.run itself
// needs no eval, so checking a page reports no CSP violation of its own.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let source;

/** axe-core's browser bundle, read once. */
function axeSource() {
  source ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return source;
}

/** Puts `window.axe` in `page` (its main frame) unless it is already there. */
export async function injectAxe(page) {
  if (await page.evaluate(() => typeof window.axe === 'object')) return;
  // A string is evaluated as a script; `void 0` keeps its value from being sent back.
  await page.evaluate(`${axeSource()}\n;void 0`);
}

/**
 * The violations axe finds on `page` as it is now, of the impacts `impacts`: each
 * `{ id, impact, help, targets }`, targets being the CSS selectors of the offending nodes
 * (a node inside a shadow root or frame: its path joined by ` >>> `). Hidden content is
 * not checked, so show each view before calling this.
 */
export async function axeViolations(page, { impacts = ['serious', 'critical'] } = {}) {
  await injectAxe(page);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      targets: nodes.map((node) => [node.target].flat(Infinity).join(' >>> ')),
    }));
  });
  return violations.filter((violation) => impacts.includes(violation.impact));
}

/** Violations as lines for an assertion's message: `id (impact): help: targets`. */
export function describeViolations(violations) {
  return violations.map(({ id, impact, help, targets }) => `${id} (${impact}): ${help}: ${targets.join(', ')}`).join('\n');
}
