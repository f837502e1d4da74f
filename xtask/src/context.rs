//! Where the workspace is, which tools child processes see, and how commands are run and shown.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result, bail};

#[derive(Debug)]
pub struct Context {
    /// The workspace root.
    pub root: PathBuf,
    /// `PATH` for every child: the project's tools ahead of the system's.
    path: OsString,
    /// A mode-0700 `XDG_RUNTIME_DIR`: without one Mesa warns on every Vulkan instance.
    xdg_runtime_dir: PathBuf,
}

impl Context {
    pub fn new() -> Result<Self> {
        // xtask lives in `<root>/xtask`, so its manifest dir locates the workspace wherever it runs.
        let root =
            Path::new(env!("CARGO_MANIFEST_DIR")).parent().context("xtask's manifest dir has no parent")?.to_path_buf();
        // Where `cargo install` puts trunk and wasm-bindgen.
        let cargo_bin = match std::env::var_os("CARGO_HOME") {
            Some(home) => PathBuf::from(home).join("bin"),
            None => home_dir()?.join(".cargo").join("bin"),
        };
        // node_modules/.bin first: Trunk offline uses the first wasm-opt on PATH and refuses any
        // but version 132, and Debian's binaryen 108 in /usr/bin breaks wasm-bindgen output.
        // Then ~/.cargo/bin, for trunk and wasm-bindgen-cli 0.2.130.
        let mut dirs = vec![root.join("node_modules").join(".bin"), cargo_bin];
        if let Some(path) = std::env::var_os("PATH") {
            dirs.extend(std::env::split_paths(&path));
        }
        let path = std::env::join_paths(dirs).context("a PATH entry contains ':'")?;
        let xdg_runtime_dir = xdg_runtime_dir()?;
        Ok(Self { root, path, xdg_runtime_dir })
    }

    pub fn dist(&self) -> PathBuf {
        self.root.join("dist")
    }

    /// A command run in the workspace root, seeing the project's tools first on `PATH`.
    pub fn cmd(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root).env("PATH", &self.path).env("XDG_RUNTIME_DIR", &self.xdg_runtime_dir);
        cmd
    }

    pub fn cargo(&self) -> Command {
        // The same cargo that runs xtask: `cargo xtask` goes through rustup's proxy and so
        // honours rust-toolchain.toml.
        self.cmd(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
    }

    /// The trimmed stdout of a command that succeeded, or `None`: used to probe for tools.
    pub fn probe(&self, program: &str, args: &[&str]) -> Option<String> {
        let output = self.cmd(program).args(args).stdin(Stdio::null()).stderr(Stdio::null()).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    }
}

/// Prints a command the way a person would type it, runs it, and fails on a non-zero exit.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = show(cmd);
    println!("$ {shown}");
    let status = cmd.status().with_context(|| format!("could not start `{shown}`"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

fn show(cmd: &Command) -> String {
    let mut shown = cmd.get_program().to_string_lossy().into_owned();
    // `cargo` by its full rustup path is noise.
    if let Some(name) = Path::new(&shown).file_name()
        && name == "cargo"
    {
        shown = "cargo".to_owned();
    }
    for arg in cmd.get_args() {
        let arg = arg.to_string_lossy();
        shown.push(' ');
        if arg.is_empty() || arg.contains([' ', '"', '\'', '$']) {
            shown.push_str(&format!("{arg:?}"));
        } else {
            shown.push_str(&arg);
        }
    }
    shown
}

fn home_dir() -> Result<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .context("HOME is not set, so ~/.cargo/bin cannot be found (set CARGO_HOME)")
}

/// Keeps a usable `XDG_RUNTIME_DIR`, or makes one: a mode-0700 directory owned by us.
fn xdg_runtime_dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
        && fs::metadata(&dir).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o777 == 0o700)
    {
        return Ok(dir);
    }
    let user = std::env::var("USER").unwrap_or_else(|_| "user".to_owned());
    let dir = std::env::temp_dir().join(format!("sgpt-xdg-runtime-{user}"));
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
        .with_context(|| format!("making {} mode 0700", dir.display()))?;
    Ok(dir)
}
