//! `cargo xtask web`: builds the static site into `dist/`.
//!
//! ```text
//! dist/                 the inspector (root index.html, Trunk.toml)
//! dist/gpu-smoke/       the GPU smoke page (gpu-smoke/index.html)
//! dist/demo/            the demo scene and its Record panel (demo/index.html)
//! dist/captures/        fixtures/v1/*.sgpt and the bundled demo.sgpt
//! ```

use std::fs;
use std::path::Path;

use anyhow::{Context as _, Result, bail};

use crate::context::{Context, run};

/// Pages served below the root, each its own Trunk build: (index.html, URL path).
const SUB_SITES: [(&str, &str); 2] = [("gpu-smoke/index.html", "gpu-smoke"), ("demo/index.html", "demo")];

/// The bundled capture: `sgpt synth`'s standard workload.
const DEMO_SYNTH_ARGS: [&str; 9] =
    ["synth", "--frames", "600", "--passes", "200", "--level", "workload", "-o", "dist/captures/demo.sgpt"];

pub fn build(ctx: &Context) -> Result<()> {
    println!("==> web: building the static site into dist/");
    // Offline, Trunk runs cargo with --offline: every crate must already be in the cache.
    run(ctx.cargo().arg("fetch"))?;

    let dist = ctx.dist();
    if dist.exists() {
        fs::remove_dir_all(&dist).with_context(|| format!("removing {}", dist.display()))?;
    }
    // The root site first: Trunk replaces its whole dist directory, so building it after the
    // sub-sites would delete them. Each sub-site replaces only its own folder.
    if !ctx.root.join("index.html").is_file() {
        bail!("index.html (the inspector page) is missing from the workspace root");
    }
    run(trunk(ctx).args(["--dist", "dist", "index.html"]))?;
    for (index, path) in SUB_SITES {
        run(trunk(ctx).args(["--public-url", &format!("/{path}/"), "--dist", &format!("dist/{path}"), index]))?;
    }
    captures(ctx)?;
    println!("site built in {}", dist.display());
    Ok(())
}

fn trunk(ctx: &Context) -> std::process::Command {
    let mut cmd = ctx.cmd("trunk");
    // Trunk.toml (offline, pinned tool versions) applies to every page; the CLI picks the page.
    cmd.args(["build", "--release", "--config", "Trunk.toml"]);
    cmd
}

fn captures(ctx: &Context) -> Result<()> {
    let captures = ctx.dist().join("captures");
    fs::create_dir_all(&captures).with_context(|| format!("creating {}", captures.display()))?;
    let copied = copy_fixtures(&ctx.root.join("fixtures").join("v1"), &captures)?;
    println!("copied {copied} fixture(s) from fixtures/v1 into dist/captures");
    let mut synth = ctx.cargo();
    synth.args(["run", "--release", "--quiet", "-p", "sgpt-cli", "--"]).args(DEMO_SYNTH_ARGS);
    run(&mut synth).context(
        "generating the bundled demo capture dist/captures/demo.sgpt needs `sgpt synth` \
         (crate sgpt-cli)",
    )?;
    let demo = captures.join("demo.sgpt");
    let size =
        fs::metadata(&demo).with_context(|| format!("`sgpt synth` exited 0 but wrote no {}", demo.display()))?.len();
    println!("wrote dist/captures/demo.sgpt ({size} bytes)");
    Ok(())
}

/// Copies every `*.sgpt` in `from` (if it exists) into `to`; returns how many.
fn copy_fixtures(from: &Path, to: &Path) -> Result<usize> {
    let Ok(entries) = fs::read_dir(from) else {
        return Ok(0);
    };
    let mut copied = 0;
    for entry in entries {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "sgpt")
            && let Some(name) = path.file_name()
        {
            fs::copy(&path, to.join(name)).with_context(|| format!("copying {}", path.display()))?;
            copied += 1;
        }
    }
    Ok(copied)
}
