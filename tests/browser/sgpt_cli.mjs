// Finds the `sgpt` CLI the workspace build left behind, for tests that make or check captures.
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
