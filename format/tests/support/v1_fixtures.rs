//! The committed v1 fixtures (`fixtures/v1/`), read by name or all of them, for the tests
//! that run an analysis over every fixture.

use std::path::PathBuf;

fn folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1")
}

/// The bytes of `fixtures/v1/<name>`.
pub fn fixture(name: &str) -> Vec<u8> {
    let path = folder().join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Every `.sgpt` file in `fixtures/v1/`, sorted by name.
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder())
        .expect("fixtures")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".sgpt"))
        .collect();
    names.sort();
    names
}
