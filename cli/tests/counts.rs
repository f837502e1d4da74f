//! `validate` and `info` count what reads back, beside what the index claims, and name
//! every frame lost by its number.

mod support;

use serde_json::json;
use support::{fixture, json, sgpt, stdout};

/// `corrupted.sgpt` loses frame 6 (20 spans) to a checksum; the directory still lists it.
const FRAME_6_AT: u64 = 0xba4;

#[test]
fn validate_json_counts_what_reads_back_and_names_the_lost_frame() {
    let output = sgpt(&["validate", &fixture("corrupted.sgpt"), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    assert_eq!(report["frames"], 15);
    assert_eq!(report["frames_indexed"], 16);
    assert_eq!(report["spans"], 300);
    assert_eq!(report["spans_indexed"], 320);
    assert_eq!(report["dropped_spans"], 0);
    assert!(report.get("dropped_spans_indexed").is_none(), "no dropped spans were lost: {report}");
    assert_eq!(
        report["lost_frames"],
        json!([{ "index": 6, "frame_number": 6, "kind": "checksum_mismatch", "offset": FRAME_6_AT }])
    );
    assert_eq!(report["unindexed_frame_records"], json!([]));
}

#[test]
fn info_json_and_text_say_the_same() {
    let file = fixture("corrupted.sgpt");
    let info = json(&sgpt(&["info", &file, "--json"]));
    assert_eq!((info["frames"].clone(), info["frames_indexed"].clone()), (json!(15), json!(16)));
    assert_eq!((info["spans"].clone(), info["spans_indexed"].clone()), (json!(300), json!(320)));
    assert_eq!(info["lost_frames"][0]["frame_number"], 6);

    let text = stdout(&sgpt(&["info", &file]));
    assert!(text.contains("frames       15 of 16 indexed (frame numbers 0..=15)\n"), "{text}");
    assert!(text.contains(&format!("lost         frame 6 (checksum_mismatch at {FRAME_6_AT:#x})\n")), "{text}");
    assert!(text.contains("spans        300 of 320 indexed (0 dropped: begun but never timed)\n"), "{text}");

    let verdict = stdout(&sgpt(&["validate", &file]));
    assert!(verdict.contains("15 of 16 indexed frames and 300 of 320 indexed spans read back"), "{verdict}");
    assert!(verdict.contains("lost: frame 6 (checksum_mismatch"), "{verdict}");
}

#[test]
fn an_intact_capture_adds_no_indexed_counts() {
    let report = json(&sgpt(&["validate", &fixture("level_structure.sgpt"), "--json"]));
    assert_eq!((report["frames"].clone(), report["spans"].clone()), (json!(16), json!(320)));
    for key in ["frames_indexed", "spans_indexed", "dropped_spans_indexed"] {
        assert!(report.get(key).is_none(), "{key} appears only where it differs: {report}");
    }
    assert_eq!((report["lost_frames"].clone(), report["unindexed_frame_records"].clone()), (json!([]), json!([])));
}

#[test]
fn a_frame_cut_off_before_indexing_is_counted_without_a_number() {
    // The file ends inside frame 10's record: the scan cannot index it.
    let file = fixture("truncated.sgpt");
    let report = json(&sgpt(&["validate", &file, "--json"]));
    assert_eq!(report["frames"], 10);
    assert!(report.get("frames_indexed").is_none());
    let truncated = report["defects"].as_array().unwrap().iter().find(|d| d["kind"] == "truncated").unwrap().clone();
    assert_eq!(report["unindexed_frame_records"], json!([truncated["offset"]]));
    let text = stdout(&sgpt(&["info", &file]));
    assert!(text.contains("never indexed, its number unknown"), "{text}");
}

#[test]
fn a_span_count_the_bytes_cannot_hold_is_not_counted_as_spans() {
    // Frame 1 claims 1,000 spans in a 2-byte remainder; frame 0 holds one span.
    let report = json(&sgpt(&["validate", &fixture("defect_span_count_bound.sgpt"), "--json"]));
    assert_eq!((report["frames"].clone(), report["frames_indexed"].clone()), (json!(1), json!(2)));
    assert_eq!((report["spans"].clone(), report["spans_indexed"].clone()), (json!(1), json!(1001)));
    let malformed = report["defects"].as_array().unwrap().iter().find(|d| d["kind"] == "malformed").unwrap().clone();
    assert_eq!(
        report["lost_frames"],
        json!([{ "index": 1, "frame_number": 1, "kind": "malformed", "offset": malformed["offset"] }])
    );
}
