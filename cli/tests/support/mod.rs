//! What the CLI's integration tests share: running the built `sgpt`, and the v1 fixtures.
// Each test file is its own crate and uses some of this, not all.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// `sgpt args…`, run to its end.
pub fn sgpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sgpt")).args(args).output().expect("the sgpt binary runs")
}

/// The path of `fixtures/v1/name`, as an argument.
pub fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
    path.to_str().expect("UTF-8 path").to_owned()
}
