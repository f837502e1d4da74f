// Finds the `sgpt` CLI the workspace build left behind, and runs it, for tests that make or
// check captures.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The newer of target/{debug,release}/sgpt, honouring CARGO_TARGET_DIR like cargo does. */
export function sgptCli() {
  const target = process.env.CARGO_TARGET_DIR ?? path.join(ROOT, 'target');
  const found = ['debug', 'release']
    .map((profile) => path.join(target, profile, 'sgpt'))
    .filter((file) => fs.existsSync(file))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  if (found.length === 0) {
    throw new Error(`no sgpt CLI under ${target}/{debug,release}: build it first with \`cargo build -p sgpt-cli\``);
  }
  return found[0];
}

/** `sgpt ARGS...`, run to its end: spawnSync's result, and the command line for messages. */
export function runSgpt(...args) {
  const cli = sgptCli();
  // The Chrome trace of a few hundred frames is a few MB.
  const run = spawnSync(cli, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  assert.equal(run.error, undefined, `${cli} did not run: ${run.error}`);
  return { ...run, command: `${cli} ${args.join(' ')}` };
}

/** What `sgpt ARGS...` prints; the command must succeed. */
export function sgptOutput(...args) {
  const run = runSgpt(...args);
  assert.equal(run.status, 0, `${run.command} exited ${run.status}\n${run.stderr}`);
  return run.stdout;
}

/** `sgpt <command> --json FILE`, parsed; the command must succeed. */
export function sgptJson(command, file) {
  return JSON.parse(sgptOutput(command, '--json', file));
}
