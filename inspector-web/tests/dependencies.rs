//! The container is the only interface between recorder and inspector (docs/ARCHITECTURE.md, "Crates"):
//! the inspector, and the statistics worker it starts, must never depend on wgpu or the
//! recorder, on any target.

use std::process::Command;

#[test]
fn inspector_depends_on_neither_wgpu_nor_the_recorder() {
    check("sgpt-inspector");
}

#[test]
fn its_statistics_worker_depends_on_neither_wgpu_nor_the_recorder() {
    check("sgpt-stats-worker");
}

fn check(package: &str) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "--package", package, "--target", "all"])
        .args(["--edges", "normal,build", "--prefix", "none", "--format", "{p}"])
        .arg("--manifest-path")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo tree failed: {stderr}");
    let tree = String::from_utf8_lossy(&output.stdout);
    let packages: Vec<&str> = tree.lines().filter_map(|line| line.split_whitespace().next()).collect();
    // Proves the listing is real before trusting what it lacks.
    assert!(packages.contains(&"sgpt-format"), "{tree}");
    assert!(packages.contains(&"web-sys"), "{tree}");
    for banned in ["wgpu", "wgpu-core", "wgpu-hal", "naga", "sgpt-recorder"] {
        assert!(!packages.contains(&banned), "{package} depends on {banned}:\n{tree}");
    }
}
