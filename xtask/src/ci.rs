//! `cargo xtask test`: everything CI runs, fast checks first, stopping at the first failure.

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};

use crate::context::{Context, run};
use crate::install::{self, CHROMIUM, WASM_TARGET};
use crate::serve::StaticServer;
use crate::web;

/// Playwright refuses older Node versions at start-up.
const MIN_NODE_MAJOR: u32 = 20;
const WASM_CRATES: [&str; 16] = [
    "-p",
    "sgpt-inspector",
    "-p",
    "sgpt-stats-worker",
    "-p",
    "sgpt-gpu-smoke",
    "-p",
    "sgpt-recorder",
    "-p",
    "sgpt-demo",
    "-p",
    "sgpt-memory",
    "-p",
    "sgpt-memory-wasm-bench",
    "-p",
    "sgpt-web-glue",
];

pub fn test(ctx: &Context) -> Result<()> {
    let started = Instant::now();
    step("install", || install::install(ctx))?;
    step("rustfmt", || run(ctx.cargo().args(["fmt", "--all", "--check"])))?;
    step("clippy (native)", || {
        run(ctx.cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))
    })?;
    step("clippy (wasm32)", || {
        run(ctx.cargo().arg("clippy").args(WASM_CRATES).args(["--target", WASM_TARGET, "--", "-D", "warnings"]))
    })?;
    step("native tests", || native_tests(ctx))?;
    step("wasm32 build", || run(ctx.cargo().arg("build").args(["--target", WASM_TARGET]).args(WASM_CRATES)))?;
    step("web", || web::build(ctx))?;
    step("browser tests", || browser_tests(ctx))?;
    println!("\nxtask test: all passed in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn step(name: &str, f: impl FnOnce() -> Result<()>) -> Result<()> {
    println!("\n==> {name}");
    f().with_context(|| format!("xtask test stopped at step `{name}`"))
}

fn native_tests(ctx: &Context) -> Result<()> {
    if ctx.probe("cargo", &["nextest", "--version"]).is_some() {
        run(ctx.cargo().args(["nextest", "run", "--workspace"]))?;
        // nextest does not run doctests.
        run(ctx.cargo().args(["test", "--doc", "--workspace"]))
    } else {
        run(ctx.cargo().args(["test", "--workspace"]))
    }
}

pub fn browser_tests(ctx: &Context) -> Result<()> {
    if !std::path::Path::new(CHROMIUM).exists() {
        bail!("{CHROMIUM} is missing: run `cargo xtask install` as root, or apt-get install chromium");
    }
    let node = ctx.probe("node", &["--version"]).context("node is not on PATH")?;
    let major = node
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse::<u32>().ok())
        .with_context(|| format!("unexpected `node --version` output {node:?}"))?;
    if major < MIN_NODE_MAJOR {
        bail!(
            "Playwright needs Node.js {MIN_NODE_MAJOR} or newer, found {node} \
             (Debian bookworm's nodejs is 18; install Node 20, e.g. from NodeSource)"
        );
    }
    let tests = browser_test_files(ctx)?;
    let server = StaticServer::bind(&ctx.dist(), "127.0.0.1:0")?;
    println!("serving dist/ at {} for the browser tests", server.url());
    let mut node = ctx.cmd("node");
    // One browser at a time: SwiftShader renders on the CPU, and parallel Chromiums on a
    // 2-core machine make timeouts, not failures.
    // A test that sets no timeout of its own fails after five minutes rather than hanging
    // the run: a hang guard (the slowest test takes well under one), not a speed check.
    node.args(["--test", "--test-concurrency=1", "--test-timeout=300000"])
        .args(&tests)
        .env("SGPT_BASE_URL", server.url());
    let result = run(&mut node);
    drop(server);
    result
}

/// `tests/browser/*.test.mjs`, sorted. Listed here rather than passing the directory, whose
/// meaning for `node --test` changed between Node versions.
fn browser_test_files(ctx: &Context) -> Result<Vec<PathBuf>> {
    let dir = ctx.root.join("tests").join("browser");
    let mut tests: Vec<PathBuf> = fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .map(|p| p.strip_prefix(&ctx.root).map(PathBuf::from).unwrap_or(p))
        .collect();
    tests.sort();
    if tests.is_empty() {
        bail!("no tests/browser/*.test.mjs found");
    }
    println!("browser tests: {}", tests.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
    Ok(tests)
}
