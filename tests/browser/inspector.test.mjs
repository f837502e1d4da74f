// The web inspector in headless Chromium: opening a capture by URL, drop, picker and blob:
// URL; refusing bad files with a message while staying usable; never running capture text
// as HTML. Run by `cargo xtask test` against a static server over dist/ (SGPT_BASE_URL);
// the fixtures are served from dist/captures/, copied from fixtures/v1/.
//
// The page reports what it shows on <body>: data-state (starting, idle, loading, ready,
// error), data-load (the number of the latest load begun), data-frames, data-spans,
// data-topologies, data-dropped-spans, and, once every frame is decoded, data-verified
// and data-defects.

import { createServer } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseUrl, chromiumForFile } from './chromium.mjs';
import { defectKinds, dropFile, fixtureBytes, openPage, outcome, verifiedDefects } from './inspector_helpers.mjs';

// Every element the inspector's page holds; a capture string parsed as HTML would add others.
const ALLOWED_ELEMENTS = [
  'html', 'head', 'meta', 'title', 'style', 'link', 'script', 'body', 'header', 'h1', 'h2', 'h3',
  'label', 'input', 'p', 'noscript', 'main', 'div', 'dl', 'dt', 'dd', 'table', 'thead', 'tbody', 'tr', 'th',
  'td', 'ul', 'li', 'button', 'progress', 'section', 'canvas', 'nav', 'span', 'i', 'kbd', 'code', 'b', 'aside',
  'footer', 'dialog', 'mark',
];

const browser = chromiumForFile();

// What format/src/dev/fixtures.rs writes into each fixture (its descriptions say the same), so
// the numbers the page must show come from the generator, not from the page under test.
const FIXTURES = {
  'minimal.sgpt': { frames: 1, spans: 1, topologies: 1 }, // one frame, one pass
  'html_labels.sgpt': { frames: 3, spans: 6, topologies: 1 }, // 3 frames of 2 GPU passes
  'truncated.sgpt': { frames: 10 }, // cut inside frame 10's record: frames 0-9 survive
  'never_closed.sgpt': { frames: 16 },
  'corrupted.sgpt': { frames: 16 }, // frame 6's payload damaged; only decoding finds it
  'dropped_spans.sgpt': { frames: 16, droppedSpans: 20 }, // frames 1, 5, 9, 13 lost 5 each
};

function expected(name) {
  assert.ok(FIXTURES[name], `no expectations for ${name}`);
  return FIXTURES[name];
}

test('?file= opens a served fixture and shows its frames, spans and passes', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t, '?file=/captures/minimal.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), info.frames);
  assert.equal(Number(shown.spans), info.spans);
  assert.equal(Number(shown.topologies), info.topologies);
  assert.match(shown.summary, new RegExp(`Frames\\s+${info.frames}\\b`));
  assert.match(shown.summary, /Closed\s+yes/);
  // minimal.sgpt is level timing: its one GPU pass belongs to no graph pass.
  assert.match(shown.summary, /outside any graph pass\s+main/);
  assert.equal(await verifiedDefects(page), 0);
  assert.deepEqual(problems, []);
});

test('dropping a capture anywhere on the page opens it', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t);
  assert.equal(await page.evaluate(() => document.body.dataset.state), 'idle');
  const shown = await dropFile(page, 'minimal.sgpt', await fixtureBytes('minimal.sgpt'));
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), info.frames);
  assert.match(shown.summary, /^minimal\.sgpt/);
  assert.deepEqual(problems, []);
});

test('the file picker opens a capture, and the same file again', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t);
  const file = { name: 'picked.sgpt', mimeType: 'application/octet-stream', buffer: await fixtureBytes('minimal.sgpt') };
  for (const load of [1, 2]) {
    await page.setInputFiles('#file-input', file);
    const shown = await outcome(page, load);
    assert.equal(shown.state, 'ready', shown.error);
    assert.equal(Number(shown.frames), info.frames);
  }
  assert.deepEqual(problems, []);
});

test('a blob: URL handed over in ?file= opens, as the demo hands over its capture', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t);
  const [popup] = await Promise.all([
    page.context().waitForEvent('page'),
    page.evaluate(async () => {
      const blob = await (await fetch('/captures/minimal.sgpt', { signal: AbortSignal.timeout(30_000) })).blob();
      window.open(`/?file=${encodeURIComponent(URL.createObjectURL(blob))}`);
    }),
  ]);
  const shown = await outcome(popup, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), info.frames);
  assert.deepEqual(problems, []);
});

test('bad files are refused with the reason, and the next good file still opens', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t);

  const foreign = await dropFile(page, 'notes.txt', Buffer.from('these are my notes, not a capture\n'));
  assert.equal(foreign.state, 'error');
  assert.match(foreign.error, /notes\.txt/);
  assert.match(foreign.error, /not an sgpt capture/);
  assert.equal(foreign.summary, null);
  assert.equal(foreign.frames, undefined);

  const empty = await dropFile(page, 'empty.sgpt', Buffer.alloc(0));
  assert.equal(empty.state, 'error');
  assert.match(empty.error, /empty\.sgpt: the file is empty \(0 bytes\)/);

  const good = await dropFile(page, 'minimal.sgpt', await fixtureBytes('minimal.sgpt'));
  assert.equal(good.state, 'ready', good.error);
  assert.equal(good.error, null);
  assert.equal(Number(good.frames), info.frames);
  assert.deepEqual(problems, []);
});

test('a failed fetch names the HTTP status, and the page stays usable', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t, '?file=/captures/no-such-capture.sgpt');
  const missing = await outcome(page, 1);
  assert.equal(missing.state, 'error');
  assert.match(missing.error, /\/captures\/no-such-capture\.sgpt: the server answered HTTP 404/);

  const good = await dropFile(page, 'minimal.sgpt', await fixtureBytes('minimal.sgpt'));
  assert.equal(good.state, 'ready', good.error);
  assert.equal(Number(good.frames), info.frames);
  assert.deepEqual(problems, []);
});

/** A local port that was listening and no longer is. */
async function closedPort() {
  const server = createServer();
  await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address();
  await new Promise((closed) => server.close(closed));
  return port;
}

test('a request that fails says why and what to check, and a revoked blob: URL how to get it again', async (t) => {
  // A port just let go of refuses connections: the request itself fails.
  const port = await closedPort();
  const { page, problems } = await openPage(browser, t, `?file=http://127.0.0.1:${port}/gone.sgpt`);
  const refused = await outcome(page, 1);
  assert.equal(refused.state, 'error');
  assert.match(refused.error, /gone\.sgpt: the request failed \(TypeError: Failed to fetch\); check the URL, and that its server allows this origin \(CORS\)/);
  const revoked = await page.evaluate(() => {
    const url = URL.createObjectURL(new Blob([new Uint8Array(8)]));
    URL.revokeObjectURL(url);
    return url;
  });
  await page.goto(`${baseUrl()}/?file=${encodeURIComponent(revoked)}`);
  const gone = await outcome(page, 1);
  assert.equal(gone.state, 'error');
  assert.match(gone.error, /the request failed \(.+\); a blob: URL opens only in the browser session that made it/);
  assert.deepEqual(problems, []);
});

test('?file= is requested once, begun as the page is parsed, before its wasm arrives', async (t) => {
  const info = expected('minimal.sgpt');
  const { page, problems } = await openPage(browser, t, '?file=/captures/minimal.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), info.frames);
  const fetched = await page.evaluate(() => {
    const entries = (suffix) => performance.getEntriesByType('resource').filter((e) => e.name.endsWith(suffix));
    return {
      starts: entries('/captures/minimal.sgpt').map((e) => e.startTime),
      // The page's own code can fetch nothing before its wasm has arrived whole.
      wasmArrived: Math.min(...entries('/sgpt-inspector_bg.wasm').map((e) => e.responseEnd)),
      left: '__sgptEarlyFetch' in window,
    };
  });
  assert.equal(fetched.starts.length, 1, `one request for the capture: ${JSON.stringify(fetched)}`);
  assert.ok(fetched.starts[0] < fetched.wasmArrived, `begun before the wasm arrived: ${JSON.stringify(fetched)}`);
  assert.equal(fetched.left, false, 'the page took the early request');
  // The inline script is allowed by its hash, not by a hole in the policy.
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
  assert.deepEqual(problems, []);
});

test('a truncated capture shows its whole frames and names the damage', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/truncated.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), expected('truncated.sgpt').frames);
  assert.ok((await defectKinds(page)).includes('truncated'));
  assert.ok((await verifiedDefects(page)) >= 1);
  assert.ok((await defectKinds(page)).includes('truncated'));
  assert.deepEqual(problems, []);
});

test('a capture that was never closed opens and says so', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/never_closed.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), expected('never_closed.sgpt').frames);
  assert.match(shown.summary, /Closed\s+no: the recording never stopped cleanly/);
  assert.ok((await defectKinds(page)).includes('not_closed'));
  assert.deepEqual(problems, []);
});

test('damage inside a frame appears once every frame is decoded, after first paint', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/corrupted.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), expected('corrupted.sgpt').frames);
  assert.equal(await verifiedDefects(page), 1);
  assert.deepEqual(await defectKinds(page), ['checksum_mismatch']);
  // Then the summary says what read back beside the index's counts, as `sgpt validate` does.
  const read = await outcome(page, 1);
  assert.deepEqual([Number(read.framesRead), Number(read.spansRead)], [15, 300]);
  assert.match(read.summary, /Read back\s+15 of 16 indexed frames and 300 of 320 indexed spans; lost: frame 6/);
  assert.deepEqual(problems, []);
});

test('dropped spans are counted with the frames they were lost on', async (t) => {
  const info = expected('dropped_spans.sgpt');
  const { page, problems } = await openPage(browser, t, '?file=/captures/dropped_spans.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.droppedSpans), info.droppedSpans);
  assert.match(shown.summary, /Dropped spans\s+20 on 4 frames/);
  assert.deepEqual(problems, []);
});

test('a capture from a newer format version is refused by name', async (t) => {
  const { page, problems } = await openPage(browser, t, '?file=/captures/newer_version.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'error');
  assert.match(shown.error, /newer_version\.sgpt: needs a newer reader/);
  assert.deepEqual(problems, []);
});

test('labels that look like HTML are shown as text and never run', async (t) => {
  const info = expected('html_labels.sgpt');
  const { page, problems } = await openPage(browser, t, '?file=/captures/html_labels.sgpt');
  const shown = await outcome(page, 1);
  assert.equal(shown.state, 'ready', shown.error);
  assert.equal(Number(shown.frames), info.frames);
  assert.equal(Number(shown.spans), info.spans);
  await verifiedDefects(page);

  const seen = await page.evaluate((allowed) => ({
    images: document.querySelectorAll('img').length,
    foreign: [...document.querySelectorAll('*')]
      .map((element) => element.localName)
      .filter((name) => !allowed.includes(name)),
    summaryText: document.getElementById('summary').textContent,
    pwned: window.__pwned ?? null,
  }), ALLOWED_ELEMENTS);
  assert.equal(seen.images, 0);
  assert.deepEqual(seen.foreign, []);
  assert.equal(seen.pwned, null);
  // The markup is on the page, literally, as text.
  assert.match(seen.summaryText, /<img src=x onerror="window.__pwned=1">/);
  assert.ok(seen.summaryText.includes(`</table><b>bold</b>"'&amp;`), 'entities stay literal');
  assert.deepEqual(problems, []);
});
