//! A capture file is mapped; a pipe cannot be and is read. Both give the same output, byte
//! for byte once the file's name is set aside, damaged captures' defects included, and a
//! gzip file is inflated from the map as from the bytes read.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(name)
}

/// `sgpt args…`, with `stdin` written to its standard input (a pipe) when given.
fn sgpt(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sgpt"))
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sgpt");
    if let Some(bytes) = stdin {
        // A pipe holds only so much: write it while sgpt reads.
        let mut pipe = child.stdin.take().expect("piped");
        let bytes = bytes.to_vec();
        std::thread::spawn(move || pipe.write_all(&bytes));
    }
    child.wait_with_output().expect("sgpt ran")
}

/// The JSON output with every `file` field (the path given) removed.
fn without_files(output: &Output) -> Value {
    let mut value: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stderr)));
    for side in ["a", "b"] {
        if let Some(side) = value.get_mut(side).and_then(Value::as_object_mut) {
            side.remove("file");
        }
        for recording in
            value.pointer_mut(&format!("/recordings/{side}")).and_then(Value::as_array_mut).into_iter().flatten()
        {
            recording.as_object_mut().map(|recording| recording.remove("file"));
        }
    }
    if let Some(top) = value.as_object_mut() {
        top.remove("file");
    }
    value
}

fn stdin_path() -> &'static str {
    "/dev/stdin"
}

#[test]
#[cfg(target_os = "linux")]
fn a_mapped_file_and_a_piped_one_give_the_same_output() {
    for name in ["demo/demo.sgpt", "v1/level_timing.sgpt", "v1/corrupted.sgpt", "v1/truncated.sgpt"] {
        let path = fixture(name);
        let file = path.to_str().expect("a UTF-8 path");
        let bytes = std::fs::read(&path).expect("the fixture");
        for args in [&["stats", "--json"][..], &["workload", "--json"], &["validate", "--json"]] {
            let mapped = sgpt(&[args, &[file]].concat(), None);
            let piped = sgpt(&[args, &[stdin_path()]].concat(), Some(&bytes));
            assert_eq!(mapped.status.code(), piped.status.code(), "{name} {args:?}");
            assert_eq!(without_files(&mapped), without_files(&piped), "{name} {args:?}");
        }
        let mapped = sgpt(&["diff", "--json", file, file], None);
        let piped = sgpt(&["diff", "--json", file, stdin_path()], Some(&bytes));
        assert_eq!(mapped.status.code(), piped.status.code(), "{name}");
        assert_eq!(without_files(&mapped), without_files(&piped), "{name}");
        let text = [&["diff"][..], &["diff", "--format", "markdown"]];
        for args in text {
            let mapped = sgpt(&[args, &[file, file]].concat(), None);
            let piped = sgpt(&[args, &[file, stdin_path()]].concat(), Some(&bytes));
            let [mapped, piped] = [mapped, piped].map(|output| String::from_utf8(output.stdout).expect("UTF-8"));
            // Only B's name differs.
            assert_eq!(mapped, piped.replace(stdin_path(), file), "{name} {args:?}");
        }
    }
}

/// `-` names standard input, on every system: the same output as the file, its defects
/// included.
#[test]
fn a_dash_reads_the_capture_from_standard_input() {
    let path = fixture("v1/truncated.sgpt");
    let file = path.to_str().expect("a UTF-8 path");
    let bytes = std::fs::read(&path).expect("the fixture");
    for args in [&["stats", "--json"][..], &["workload", "--json"], &["validate", "--json"], &["memory", "--json"]] {
        let mapped = sgpt(&[args, &[file]].concat(), None);
        let piped = sgpt(&[args, &["-"]].concat(), Some(&bytes));
        assert_eq!(mapped.status.code(), piped.status.code(), "{args:?}");
        assert_eq!(without_files(&mapped), without_files(&piped), "{args:?}");
    }
    let mapped = sgpt(&["diff", "--json", file, file], None);
    let piped = sgpt(&["diff", "--json", file, "-"], Some(&bytes));
    assert_eq!(without_files(&mapped), without_files(&piped));
    // Nothing on standard input is an empty capture, said as such.
    let empty = sgpt(&["stats", "-"], Some(&[]));
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("-: not an sgpt capture: the file is empty"));
}

#[test]
fn a_gzip_file_inflates_from_its_map_as_the_plain_file_reads() {
    let plain = fixture("demo/demo.sgpt");
    let bytes = std::fs::read(&plain).expect("the fixture");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(&bytes).expect("a Vec");
    let folder = std::env::temp_dir().join(format!("sgpt-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    let gzip = folder.join("demo.sgpt.gz");
    std::fs::write(&gzip, encoder.finish().expect("a Vec")).expect("write it");
    let [plain, gzip] = [&plain, &gzip].map(|path| path.to_str().expect("a UTF-8 path").to_owned());
    let [from_plain, from_gzip] = [&plain, &gzip].map(|file| without_files(&sgpt(&["stats", "--json", file], None)));
    std::fs::remove_dir_all(&folder).ok();
    assert_eq!(from_plain, from_gzip);
}
