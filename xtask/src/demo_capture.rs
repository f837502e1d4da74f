//! `cargo xtask demo-capture [--force]`: records the demo scene on Mesa's lavapipe into
//! `fixtures/demo/demo.sgpt`, the capture `cargo xtask web` bundles as
//! `/captures/demo.sgpt`.
//!
//! The file is committed. A GPU recording's timings differ on every run, so it is only
//! replaced on purpose: an existing file is kept unless `--force` is given.

use std::fs;

use anyhow::{Context as _, Result, bail, ensure};
use sgpt_format::{Capture, Level};

use crate::context::{Context, run};
use crate::install;

/// The committed capture, relative to the workspace root.
pub const CAPTURE: &str = "fixtures/demo/demo.sgpt";
/// 600 frames, 10 s at 60 fps: past the demo's memory checkpoints (frames 40 to 160) and both
/// resolution changes (frames 240 and 480), in about 550 KB, small enough to commit and to
/// open at once.
pub const FRAMES: u64 = 600;
/// Stored in the capture, so whoever opens it sees where it came from.
const NOTE: &str =
    "the inspector's bundled capture: the demo scene on lavapipe, recorded by `cargo xtask demo-capture`";

pub fn demo_capture(ctx: &Context, args: &[String]) -> Result<()> {
    let force = match args {
        [] => false,
        [flag] if flag == "--force" => true,
        _ => bail!("usage: cargo xtask demo-capture [--force]"),
    };
    let target = ctx.root.join(CAPTURE);
    if target.exists() && !force {
        bail!(
            "{CAPTURE} exists and is committed; a new recording differs in every timing, so it is \
             only replaced on purpose: `cargo xtask demo-capture --force`"
        );
    }
    // Only lavapipe is visible to the Vulkan loader, so the capture names the same adapter
    // whatever GPU the machine has.
    let icds = install::lavapipe_icds();
    if icds.is_empty() {
        bail!("lavapipe is missing (no lvp_icd in /usr/share/vulkan/icd.d): run `cargo xtask install` as root");
    }
    let icds = std::env::join_paths(&icds).context("an ICD path contains ':'")?;
    let dir = target.parent().context("the capture path has no folder")?;
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // Written beside the target (ignored by .gitignore) and renamed once checked, so a failed
    // run leaves the committed file as it was.
    let partial = target.with_extension("sgpt.tmp");
    println!("==> demo-capture: {FRAMES} frames of the demo scene on lavapipe (VK_DRIVER_FILES={})", icds.display());
    let mut record = ctx.cargo();
    record
        .args(["run", "--release", "-p", "sgpt-demo", "--bin", "sgpt-demo", "--"])
        .args(["--frames", &FRAMES.to_string(), "--level", "workload", "--note", NOTE, "-o"])
        .arg(&partial)
        .env("VK_DRIVER_FILES", &icds)
        .env("VK_ICD_FILENAMES", &icds);
    run(&mut record)?;
    let checked =
        fs::read(&partial).with_context(|| format!("reading {}", partial.display())).and_then(|bytes| check(&bytes));
    let summary = match checked {
        Ok(summary) => summary,
        Err(error) => {
            let _ = fs::remove_file(&partial);
            return Err(error.context(format!("the new recording was not kept; {CAPTURE} is unchanged")));
        }
    };
    fs::rename(&partial, &target).with_context(|| format!("renaming {} to {CAPTURE}", partial.display()))?;
    let size = fs::metadata(&target).map(|m| m.len()).unwrap_or(0);
    println!("wrote {CAPTURE} ({size} bytes): {summary}");
    println!("`cargo xtask web` bundles it from here: commit {CAPTURE} to replace the bundled capture");
    Ok(())
}

/// What fixtures/README.md promises of the file; `Err` says which promise failed.
fn check(bytes: &[u8]) -> Result<String> {
    let capture = Capture::open(bytes).map_err(|error| anyhow::anyhow!("the recording does not open: {error}"))?;
    let defects = capture.verify();
    ensure!(defects.is_empty(), "the recording has defects: {defects:?}");
    ensure!(capture.level() == Some(Level::Workload), "recorded at {:?}, not workload", capture.level());
    let frames = capture.frames().len() as u64;
    ensure!(frames == FRAMES, "{frames} frames, not {FRAMES}");
    let adapter = capture.meta().map_or("", |meta| meta.adapter.name.as_str());
    ensure!(adapter.contains("llvmpipe"), "recorded on {adapter:?}, not lavapipe (llvmpipe)");
    let memory = capture.memory_records().len();
    ensure!(memory == 1, "{memory} memory captures, not the one the demo records by default");
    let dropped = capture.dropped_span_count();
    ensure!(dropped == 0, "{dropped} spans dropped: begun but never timed");
    Ok(format!("{frames} frames at level workload on {adapter}, {} spans, none dropped", capture.span_count()))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use sgpt_format::synth::SynthOptions;

    use super::*;

    /// The committed capture passes the checks that let it be written.
    #[test]
    fn the_committed_capture_passes_its_own_checks() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(CAPTURE);
        let bytes = fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        check(&bytes).unwrap();
    }

    /// The bundled capture this command replaced: right level and length, wrong adapter.
    #[test]
    fn a_synthetic_capture_is_refused_for_its_adapter() {
        let options = SynthOptions { frames: FRAMES as u32, passes: 4, level: Level::Workload, ..Default::default() };
        let error = check(&sgpt_format::synth::generate(&options)).unwrap_err().to_string();
        assert!(error.contains("not lavapipe"), "{error}");
    }

    #[test]
    fn the_committed_capture_is_kept_without_force() {
        let ctx = Context::new().unwrap();
        assert!(ctx.root.join(CAPTURE).is_file(), "{CAPTURE} is committed");
        let error = demo_capture(&ctx, &[]).unwrap_err().to_string();
        assert!(error.contains("--force"), "{error}");
    }

    #[test]
    fn only_force_is_accepted() {
        let ctx = Context::new().unwrap();
        let error = demo_capture(&ctx, &["--frames".to_owned()]).unwrap_err().to_string();
        assert!(error.contains("usage: cargo xtask demo-capture [--force]"), "{error}");
    }
}
