//! What the CLI's integration tests share: running the built `sgpt` and reading what it
//! wrote, the v1 fixtures, and temp files.
// Each test file is its own crate and uses some of this, not all.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

/// `sgpt args…`, run to its end.
pub fn sgpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sgpt")).args(args).output().expect("the sgpt binary runs")
}

/// The exit code; the test fails where a signal killed `sgpt`.
pub fn code(output: &Output) -> i32 {
    output.status.code().expect("sgpt exited, not killed by a signal")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Standard output as JSON; the test fails, showing both outputs, where it is not.
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", stdout(output), stderr(output)))
}

/// Standard output, `sgpt` having exited 0; the test fails with its stderr otherwise.
pub fn succeeded(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
    stdout(output)
}

/// The path of `fixtures/v1/name`, as an argument.
pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
    path.to_str().expect("UTF-8 path").to_owned()
}

/// A file under the temp dir with a name unique to this process and call, removed on drop.
pub struct Temp(PathBuf);

impl Temp {
    pub fn new(name: &str) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let unique = NEXT.fetch_add(1, Ordering::Relaxed);
        Self(std::env::temp_dir().join(format!("sgpt-cli-test-{}-{unique}-{name}", std::process::id())))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn arg(&self) -> &str {
        self.0.to_str().expect("temp paths are UTF-8 here")
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
