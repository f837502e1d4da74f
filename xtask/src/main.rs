//! `cargo xtask`: the project's tasks, so that set-up and CI are two commands on a fresh machine.
//!
//! ```text
//! cargo xtask install    install what is missing (toolchain target, apt packages, trunk, wasm-bindgen, npm)
//! cargo xtask web        build the static site into dist/
//! cargo xtask serve      install + web, then serve dist/ at http://127.0.0.1:8080/
//! cargo xtask test       everything CI runs, fast checks first
//! cargo xtask test-browser  only the browser tests, over the dist/ already built
//! cargo xtask fixtures   write the fixtures missing from fixtures/v1/ (existing ones are kept): the
//!                        format's, then the memory ones the recorder's ledger writes
//! cargo xtask demo-capture [--force]
//!                        record the demo scene on lavapipe into fixtures/demo/demo.sgpt, the bundled
//!                        capture (committed; an existing file is replaced only with --force)
//! cargo xtask bench-memory-wasm [--pairs N] [--runs N] [--json]
//!                        print the memory bench built for wasm32, in Node and headless Chromium
//! ```

mod bench_memory_wasm;
mod ci;
mod context;
mod demo_capture;
mod install;
mod serve;
mod web;

use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};

use crate::context::Context;

const USAGE: &str =
    "usage: cargo xtask <install|web|serve|test|test-browser|fixtures|demo-capture [--force]|bench-memory-wasm>";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: error: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(task) = args.next() else {
        bail!("{USAGE}");
    };
    let rest: Vec<String> = args.collect();
    // Only these take options, and parse their own.
    if let Some(extra) = rest.first()
        && !["bench-memory-wasm", "demo-capture"].contains(&task.as_str())
    {
        bail!("unexpected argument {extra:?}\n{USAGE}");
    }
    let ctx = Context::new()?;
    match task.as_str() {
        "install" => install::install(&ctx),
        "web" => {
            install::install(&ctx)?;
            web::build(&ctx)
        }
        "serve" => {
            install::install(&ctx)?;
            web::build(&ctx)?;
            let server = serve::StaticServer::bind(&ctx.dist(), serve::DEFAULT_ADDR)?;
            println!();
            println!("serving {} at {}/", ctx.dist().display(), server.url());
            println!("open {}/?file=/captures/demo.sgpt", server.url());
            println!("demo scene, recording on the browser's WebGPU: {}/demo/", server.url());
            println!("GPU smoke page: {}/gpu-smoke/", server.url());
            println!("(Ctrl-C stops the server)");
            server.run_forever()
        }
        "test" => ci::test(&ctx),
        // For iterating on tests/browser/: no install, no rebuild.
        "test-browser" => ci::browser_tests(&ctx),
        "fixtures" => fixtures(&ctx),
        "demo-capture" => demo_capture::demo_capture(&ctx, &rest),
        "bench-memory-wasm" => bench_memory_wasm::bench(&ctx, &rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown task {other:?}\n{USAGE}"),
    }
}

/// The format's fixtures follow its writer exactly; the memory fixtures come from the real
/// ledger, through the recorder's example, so that xtask itself never compiles wgpu.
fn fixtures(ctx: &Context) -> Result<()> {
    let dir = ctx.root.join("fixtures").join("v1");
    let written =
        sgpt_format::fixtures::write_all(&dir).with_context(|| format!("writing fixtures into {}", dir.display()))?;
    for path in &written {
        println!("wrote {}", path.display());
    }
    // A released version's fixtures are never regenerated: write_all only adds missing files.
    println!("{} new fixture(s) in {}; existing files were kept", written.len(), dir.display());
    // It too writes only the files that are missing, and names each one it writes.
    context::run(
        ctx.cargo().args(["run", "--quiet", "-p", "sgpt-recorder", "--example", "memory_fixtures", "--"]).arg(&dir),
    )
    .context("writing the memory fixtures through the real ledger")
}
