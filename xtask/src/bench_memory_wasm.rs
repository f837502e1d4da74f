//! `cargo xtask bench-memory-wasm`: the `sgpt-memory` alloc+free bench in wasm32, printed for
//! Node and headless Chromium side by side (`memory/wasm-bench`, `tests/bench/memory_wasm_bench.mjs`).
//! It prints figures and asserts nothing about time, so `cargo xtask test` never runs it.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use crate::context::{Context, run};
use crate::install::{CHROMIUM, WASM_BINDGEN_VERSION, WASM_TARGET};

const PACKAGE: &str = "sgpt-memory-wasm-bench";
const ARTIFACT: &str = "sgpt_memory_wasm_bench.wasm";
const RUNNER: &str = "tests/bench/memory_wasm_bench.mjs";
/// Playwright refuses older Node versions at start-up.
const MIN_NODE_MAJOR: u32 = 20;

/// Builds, binds and runs the bench; `args` (`--pairs N`, `--runs N`, `--json`) go to the runner.
pub fn bench(ctx: &Context, args: &[String]) -> Result<()> {
    check_tools(ctx)?;
    run(ctx.cargo().args(["build", "--release", "--target", WASM_TARGET, "-p", PACKAGE]))?;
    let target = target_dir(ctx);
    let wasm = target.join(WASM_TARGET).join("release").join(ARTIFACT);
    let out = target.join("memory-wasm-bench");
    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("removing {}", out.display()))?;
    }
    // One ES module for both: Node hands it the wasm bytes, Chromium fetches them.
    run(ctx.cmd("wasm-bindgen").args(["--target", "web", "--no-typescript", "--out-dir"]).arg(&out).arg(&wasm))?;
    // The glue is an ES module in a `.js` file; say so, whatever package.json sits above.
    fs::write(out.join("package.json"), "{ \"type\": \"module\" }\n")
        .with_context(|| format!("writing {}", out.display()))?;
    run(ctx.cmd("node").arg(RUNNER).arg(&out).args(args))
}

/// Fails early, with the fix, rather than halfway through the build.
fn check_tools(ctx: &Context) -> Result<()> {
    let want = format!("wasm-bindgen {WASM_BINDGEN_VERSION}");
    let found = ctx.probe("wasm-bindgen", &["--version"]);
    if found.as_deref() != Some(want.as_str()) {
        bail!("{want} is needed (found {found:?}): run `cargo xtask install`");
    }
    if !Path::new(CHROMIUM).exists() {
        bail!("{CHROMIUM} is missing: run `cargo xtask install` as root, or apt-get install chromium");
    }
    if !ctx.root.join("node_modules/playwright-core/package.json").is_file() {
        bail!("node_modules/playwright-core is missing: run `cargo xtask install`");
    }
    let node = ctx.probe("node", &["--version"]).context("node is not on PATH")?;
    let major = node.trim_start_matches('v').split('.').next().and_then(|m| m.parse::<u32>().ok());
    if major.is_none_or(|major| major < MIN_NODE_MAJOR) {
        bail!("Playwright needs Node.js {MIN_NODE_MAJOR} or newer, found {node:?}");
    }
    Ok(())
}

/// Where cargo puts its builds: `CARGO_TARGET_DIR` if set, as cargo reads it, else `target/`.
fn target_dir(ctx: &Context) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => ctx.root.join(dir),
        None => ctx.root.join("target"),
    }
}
