//! `cargo xtask install`: installs what is missing, idempotently: the wasm32 target, the lock
//! file's crates, apt packages, Trunk, wasm-bindgen-cli and the npm tools, each only when absent.
//! Each step says what it found; only missing or mismatched tools are installed.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::{Context as _, Result, bail};

use crate::context::{Context, run};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// 0.22 needs a newer rustc than the pinned 1.95.
pub const TRUNK_VERSION: &str = "0.21.14";
/// Must equal the `=0.2.130` pin of `wasm-bindgen` in Cargo.toml and `wasm_bindgen` in
/// Trunk.toml: an offline Trunk build refuses a CLI of any other version.
pub const WASM_BINDGEN_VERSION: &str = "0.2.130";
/// npm binaryen; never Debian's 108, whose wasm-opt silently breaks wasm-bindgen output.
pub const WASM_OPT_VERSION: &str = "132";
/// The apt packages the tests need (Chromium, its driver, Mesa's Vulkan drivers for lavapipe),
/// installed together when any of them is missing.
const APT_PACKAGES: [&str; 3] = ["chromium", "chromium-driver", "mesa-vulkan-drivers"];
pub const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const VULKAN_ICD_DIR: &str = "/usr/share/vulkan/icd.d";

pub fn install(ctx: &Context) -> Result<()> {
    println!("==> install: what is missing");
    wasm_target(ctx)?;
    crates(ctx)?;
    apt_packages(ctx)?;
    trunk(ctx)?;
    wasm_bindgen(ctx)?;
    npm_packages(ctx)?;
    Ok(())
}

/// Every package of the lock file, for every target: a build downloads only what it
/// compiles, but the inspector's dependency check lists the tree offline on all targets.
fn crates(ctx: &Context) -> Result<()> {
    run(ctx.cargo().args(["fetch", "--locked"]))
}

fn wasm_target(ctx: &Context) -> Result<()> {
    let installed = ctx
        .probe("rustc", &["--print", "sysroot"])
        .is_some_and(|sysroot| Path::new(&sysroot).join("lib/rustlib").join(WASM_TARGET).is_dir());
    if installed {
        println!("rust target {WASM_TARGET}: present");
        return Ok(());
    }
    run(ctx.cmd("rustup").args(["target", "add", WASM_TARGET]))
}

fn apt_packages(ctx: &Context) -> Result<()> {
    let mut missing = Vec::new();
    if !Path::new(CHROMIUM).exists() {
        missing.push(CHROMIUM.to_owned());
    }
    if !Path::new(CHROMEDRIVER).exists() {
        missing.push(CHROMEDRIVER.to_owned());
    }
    if !has_lavapipe() {
        missing.push(format!("lavapipe ({VULKAN_ICD_DIR}/lvp_icd.*.json)"));
    }
    // Node runs Playwright and npm binaryen's wasm-opt. Debian's nodejs comes without npm.
    let mut packages: Vec<&str> = APT_PACKAGES.to_vec();
    if ctx.probe("node", &["--version"]).is_none() {
        missing.push("node".to_owned());
        packages.push("nodejs");
    }
    if ctx.probe("npm", &["--version"]).is_none() {
        missing.push("npm".to_owned());
        packages.push("npm");
    }
    if missing.is_empty() {
        println!("apt packages ({}): present", APT_PACKAGES.join(" "));
        return Ok(());
    }
    if !is_root(ctx) {
        println!(
            "warning: missing {}; not root, so not installing. Run: sudo apt-get install -y {}",
            missing.join(", "),
            packages.join(" ")
        );
        return Ok(());
    }
    println!("missing {}: installing with apt-get", missing.join(", "));
    run(ctx.cmd("apt-get").arg("update").env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(ctx.cmd("apt-get").args(["install", "-y"]).args(&packages).env("DEBIAN_FRONTEND", "noninteractive"))
}

fn trunk(ctx: &Context) -> Result<()> {
    cargo_tool(ctx, "trunk", TRUNK_VERSION, &["install", "--locked", "trunk", "--version", TRUNK_VERSION])
}

fn wasm_bindgen(ctx: &Context) -> Result<()> {
    // Not --locked: the locked webpki-roots version is missing from the registry.
    let version = format!("={WASM_BINDGEN_VERSION}");
    cargo_tool(ctx, "wasm-bindgen", WASM_BINDGEN_VERSION, &["install", "wasm-bindgen-cli", "--version", &version])
}

/// Installs a cargo-built tool unless `binary --version` already says `binary version`.
fn cargo_tool(ctx: &Context, binary: &str, version: &str, install: &[&str]) -> Result<()> {
    let want = format!("{binary} {version}");
    match ctx.probe(binary, &["--version"]) {
        Some(found) if found == want => {
            println!("{want}: present");
            Ok(())
        }
        found => {
            println!("{want}: found {}, installing (minutes)", describe(found));
            run(ctx.cargo().args(install))?;
            expect_version(ctx, binary, &want)
        }
    }
}

/// The npm packages the browser tests load, besides binaryen (package.json pins them all):
/// Playwright driving the system Chromium, axe-core checking each view's accessibility.
const NPM_MODULES: [&str; 2] = ["playwright-core", "axe-core"];

fn npm_packages(ctx: &Context) -> Result<()> {
    let manifest = ctx.root.join("package.json");
    let lock = ctx.root.join("package-lock.json");
    let modules = ctx.root.join("node_modules");
    // npm rewrites node_modules/.package-lock.json on every install: if it is newer than
    // package.json and the lock, and the tools answer, node_modules matches them.
    let installed_at = mtime(&modules.join(".package-lock.json"));
    let current = installed_at.is_some()
        && installed_at >= mtime(&manifest)
        && installed_at >= mtime(&lock)
        && NPM_MODULES.iter().all(|name| modules.join(name).join("package.json").is_file())
        && wasm_opt_is_pinned(ctx);
    if current {
        println!("npm binaryen@{WASM_OPT_VERSION}, {}: present", NPM_MODULES.join(", "));
        return Ok(());
    }
    let mut npm = ctx.cmd("npm");
    npm.arg(if lock.is_file() { "ci" } else { "install" })
        .args(["--no-audit", "--no-fund"])
        // playwright-core has no download step, but make sure nothing fetches a browser: the
        // tests use Debian's /usr/bin/chromium.
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    run(&mut npm)?;
    if !wasm_opt_is_pinned(ctx) {
        bail!(
            "node_modules/.bin/wasm-opt is not version {WASM_OPT_VERSION} after npm install; \
             check the binaryen pin in package.json"
        );
    }
    Ok(())
}

fn wasm_opt_is_pinned(ctx: &Context) -> bool {
    let wasm_opt = ctx.root.join("node_modules/.bin/wasm-opt");
    ctx.probe(&wasm_opt.to_string_lossy(), &["--version"])
        .is_some_and(|v| v.contains(&format!("version_{WASM_OPT_VERSION}")))
}

fn has_lavapipe() -> bool {
    !lavapipe_icds().is_empty()
}

/// Mesa's lavapipe ICD manifests (one per architecture installed), sorted.
pub fn lavapipe_icds() -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(VULKAN_ICD_DIR) else {
        return Vec::new();
    };
    let mut icds: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("lvp_icd"))
        .map(|e| e.path())
        .collect();
    icds.sort();
    icds
}

fn is_root(ctx: &Context) -> bool {
    ctx.probe("id", &["-u"]).as_deref() == Some("0")
}

fn mtime(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn describe(found: Option<String>) -> String {
    found.map_or_else(|| "none".to_owned(), |v| format!("{v:?}"))
}

fn expect_version(ctx: &Context, program: &str, want: &str) -> Result<()> {
    let found = ctx
        .probe(program, &["--version"])
        .with_context(|| format!("{program} is still not on PATH after installing it"))?;
    if found != want {
        bail!(
            "after installing, `{program} --version` says {found:?}, not {want:?}: \
             another {program} earlier on PATH?"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pins live in three files; a mismatch only shows up as an offline Trunk failure.
    #[test]
    fn wasm_bindgen_pin_matches_cargo_and_trunk_configs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let cargo = fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(
            cargo.contains(&format!("wasm-bindgen = \"={WASM_BINDGEN_VERSION}\"")),
            "Cargo.toml must pin wasm-bindgen = \"={WASM_BINDGEN_VERSION}\""
        );
        let trunk = fs::read_to_string(root.join("Trunk.toml")).unwrap();
        assert!(
            trunk.contains(&format!("wasm_bindgen = \"{WASM_BINDGEN_VERSION}\"")),
            "Trunk.toml must pin wasm_bindgen = \"{WASM_BINDGEN_VERSION}\""
        );
        assert!(
            trunk.contains(&format!("wasm_opt = \"version_{WASM_OPT_VERSION}\"")),
            "Trunk.toml must pin wasm_opt = \"version_{WASM_OPT_VERSION}\""
        );
        let package = fs::read_to_string(root.join("package.json")).unwrap();
        assert!(
            package.contains(&format!("\"binaryen\": \"{WASM_OPT_VERSION}.0.0\"")),
            "package.json must pin binaryen {WASM_OPT_VERSION}.0.0"
        );
    }
}
