//! The statistics policy of `cli/README.md`: which frames `stats` skips, how it rounds
//! means, and how passes with equal totals are ordered.

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use sgpt_format::{Frame, GpuPass, Level, Meta, Span, Topology, Writer};

/// Passes `b`, `a` and `c` (in that index order). Frames 0–2: `a` and `b` 10 ns each;
/// `c` 1 ns in frame 0 and 2 ns in frame 1. Frame 3 has a span for pass 9, which its
/// topology lacks.
fn capture() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let pass = |label: &str| GpuPass { label: label.into(), ..GpuPass::default() };
    let topology = Topology { gpu_passes: vec![pass("b"), pass("a"), pass("c")], ..Topology::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("a Vec sink");
    let id = writer.topology(&topology).expect("an in-range topology");
    let span = |pass, begin_ns, duration| Span { pass, begin_ns, end_ns: begin_ns + duration, ..Span::default() };
    for number in 0..4u64 {
        let base = 1_000 * number;
        let mut frame = Frame { frame_number: number, topology: id, ..Frame::default() };
        frame.spans = vec![span(0, base, 10), span(1, base + 100, 10)];
        if number < 2 {
            frame.spans.push(span(2, base + 200, number + 1));
        }
        if number == 3 {
            frame.spans.push(span(9, base + 300, 5));
        }
        writer.frame(&frame).expect("increasing frame numbers");
    }
    writer.finish().expect("a Vec sink")
}

fn stats_json(bytes: &[u8]) -> Value {
    // One file per call: the tests run at once, and one must not remove another's file.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("sgpt-stats-policy-{}-{call}.sgpt", std::process::id()));
    std::fs::write(&path, bytes).expect("the temp dir is writable");
    let output = Command::new(env!("CARGO_BIN_EXE_sgpt"))
        .args(["stats", path.to_str().expect("UTF-8 temp path"), "--json"])
        .output()
        .expect("the sgpt binary runs");
    let _ = std::fs::remove_file(&path);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("stats prints JSON")
}

fn path_of(value: &Value, key: &str) -> Vec<Value> {
    value["passes"].as_array().expect("passes is an array").iter().map(|pass| pass[key].clone()).collect()
}

#[test]
fn a_frame_with_a_span_beyond_its_topology_is_skipped_whole_and_listed() {
    let bytes = capture();
    let report = stats_json(&bytes);
    assert_eq!(report["frame_range"], serde_json::json!([0, 4]));
    assert_eq!(report["frames"], 3, "frame 3 is skipped");
    assert_eq!(report["spans"], 8, "none of frame 3's spans are counted, not even its good ones");
    let offset = sgpt_format::Capture::open(&bytes).unwrap().frames()[3].offset;
    let defects = report["defects"].as_array().unwrap();
    assert_eq!(defects.len(), 1, "{defects:?}");
    assert_eq!((defects[0]["kind"].clone(), defects[0]["offset"].clone()), ("malformed".into(), offset.into()));
}

#[test]
fn means_round_half_up_and_equal_totals_sort_by_label() {
    let report = stats_json(&capture());
    // `a` and `b` both total 30 ns: ordered by label, whatever their pass index.
    assert_eq!(path_of(&report, "label"), ["a", "b", "c"]);
    assert_eq!(path_of(&report, "total_ns"), [30, 30, 3]);
    // `c`: 3 ns over 2 spans is 1.5, rounded up to 2; over 3 frames it is 1.
    let c = &report["passes"][2];
    assert_eq!(
        (c["count"].clone(), c["mean_ns"].clone(), c["total_per_frame_ns"].clone()),
        (2.into(), 2.into(), 1.into())
    );
}
