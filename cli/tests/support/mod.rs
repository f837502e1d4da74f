//! What the CLI's integration tests share: running the built `sgpt`, and the v1 fixtures.
// Each test file is its own crate and uses some of this, not all.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// `sgpt args…`, run to its end.
pub fn sgpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sgpt")).args(args).output().expect("the sgpt binary runs")
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
