//! Writes the memory fixtures the real ledger generates into a directory, skipping every
//! file that exists: a released version's fixtures are never regenerated.
//!
//! ```text
//! cargo run -p sgpt-recorder --example memory_fixtures -- fixtures/v1
//! ```
//!
//! `cargo xtask fixtures` runs it after the format's fixtures, so that xtask never
//! compiles wgpu.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        eprintln!("usage: memory_fixtures <dir>");
        return ExitCode::FAILURE;
    };
    let dir = PathBuf::from(dir);
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("memory_fixtures: {}: {error}", dir.display());
        return ExitCode::FAILURE;
    }
    for fixture in sgpt_recorder::memory_fixtures::all() {
        let path = dir.join(fixture.name);
        if path.exists() {
            continue;
        }
        if let Err(error) = std::fs::write(&path, &fixture.bytes) {
            eprintln!("memory_fixtures: {}: {error}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
