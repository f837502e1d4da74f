//! `cargo xtask web`: builds the static site into `dist/`.
//!
//! ```text
//! dist/                 the inspector (root index.html, Trunk.toml)
//! dist/gpu-smoke/       the GPU smoke page (gpu-smoke/index.html)
//! dist/demo/            the demo scene and its Record panel (demo/index.html)
//! dist/captures/        fixtures/v1/*.sgpt and the bundled demo.sgpt (fixtures/demo/demo.sgpt)
//! ```

use std::fs;
use std::path::Path;

use anyhow::{Context as _, Result, bail};

use crate::context::{Context, run};
use crate::demo_capture;

/// Pages served below the root, each its own Trunk build: (index.html, URL path).
const SUB_SITES: [(&str, &str); 2] = [("gpu-smoke/index.html", "gpu-smoke"), ("demo/index.html", "demo")];

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
    let size = copy_demo(&ctx.root, &captures)?;
    println!("copied {} into dist/captures/demo.sgpt ({size} bytes)", demo_capture::CAPTURE);
    Ok(())
}

/// Copies the committed recording of the demo scene into `to` as `demo.sgpt`; returns its size.
fn copy_demo(root: &Path, to: &Path) -> Result<u64> {
    let demo = root.join(demo_capture::CAPTURE);
    if !demo.is_file() {
        bail!(
            "the bundled capture {} is missing: it is committed, so check it out again, or record a \
             new one with `cargo xtask demo-capture`",
            demo_capture::CAPTURE
        );
    }
    fs::copy(&demo, to.join("demo.sgpt")).with_context(|| format!("copying {}", demo.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system temp dir, removed on drop.
    struct TempDir(std::path::PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            let dir = std::env::temp_dir().join(format!("xtask-web-{name}-{}", std::process::id()));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(dir.join("out")).unwrap();
            Self(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_demo_capture_is_copied_byte_for_byte() {
        let dir = TempDir::new("copy");
        let demo = dir.0.join(demo_capture::CAPTURE);
        fs::create_dir_all(demo.parent().unwrap()).unwrap();
        fs::write(&demo, b"SGPT recorded").unwrap();
        assert_eq!(copy_demo(&dir.0, &dir.0.join("out")).unwrap(), 13);
        assert_eq!(fs::read(dir.0.join("out/demo.sgpt")).unwrap(), b"SGPT recorded");
    }

    #[test]
    fn a_missing_demo_capture_names_the_command_that_records_it() {
        let dir = TempDir::new("missing");
        let error = copy_demo(&dir.0, &dir.0.join("out")).unwrap_err().to_string();
        assert!(error.contains(demo_capture::CAPTURE) && error.contains("cargo xtask demo-capture"), "{error}");
    }
}
