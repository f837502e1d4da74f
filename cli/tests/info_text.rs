//! What `sgpt info` says about the adapter and the spans a capture lost.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use sgpt_format::{AdapterInfo, Level, Meta, Writer};

/// Runs `sgpt info` on `bytes` as a file, with `extra` arguments.
fn info(bytes: &[u8], extra: &[&str]) -> String {
    // One file per call: the tests run at once, and one must not remove another's file.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("sgpt-info-text-{}-{call}.sgpt", std::process::id()));
    std::fs::write(&path, bytes).expect("the temp dir is writable");
    let mut args = vec!["info", path.to_str().expect("UTF-8 temp path")];
    args.extend_from_slice(extra);
    let output = Command::new(env!("CARGO_BIN_EXE_sgpt")).args(&args).output().expect("the sgpt binary runs");
    let _ = std::fs::remove_file(&path);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn capture_on(backend: &str) -> Vec<u8> {
    let meta = Meta {
        level: Some(Level::Timing),
        adapter: AdapterInfo { name: "swiftshader".into(), backend: backend.into(), ..AdapterInfo::default() },
        ..Meta::default()
    };
    Writer::new(Vec::new(), &meta).expect("meta names a level").finish().expect("a Vec sink")
}

fn adapter_line(text: &str) -> &str {
    text.lines().find(|line| line.starts_with("adapter ")).expect("an adapter line")
}

#[test]
fn both_spellings_of_the_browser_backend_are_named_webgpu_and_the_json_keeps_the_meta() {
    let current = info(&capture_on("webgpu"), &[]);
    let older = info(&capture_on("browser_webgpu"), &[]);
    assert_eq!(adapter_line(&older), adapter_line(&current));
    assert!(adapter_line(&current).contains("(backend webgpu,"), "{current}");
    assert!(adapter_line(&info(&capture_on("vulkan"), &[])).contains("(backend vulkan,"));

    let json: Value = serde_json::from_str(&info(&capture_on("browser_webgpu"), &["--json"])).expect("JSON");
    assert_eq!(json["meta"]["adapter"]["backend"], "browser_webgpu", "the META as written");
}

#[test]
fn dropped_spans_are_named_whatever_their_cause() {
    // dropped_spans.sgpt: frames 1, 5, 9 and 13 lost 5 spans each.
    let file = format!("{}/../fixtures/v1/dropped_spans.sgpt", env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO_BIN_EXE_sgpt")).args(["info", &file]).output().expect("the sgpt binary runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8 output");
    let spans = text.lines().find(|line| line.starts_with("spans ")).expect("a spans line");
    // The count covers every cause SGPT_FORMAT.md §3.5 lists, not only a full timer set.
    assert!(spans.ends_with(" (20 dropped: begun but never timed)"), "{spans}");
}
