//! The analysis commands say when a capture opened with defects (a writer that never
//! stopped, a file cut short), beside their figures and under `capture_defects`, so that a
//! cut capture never passes for a whole one; a whole capture gets no such note.

mod support;

use std::process::Output;

use serde_json::{Value, json};
use support::{fixture, json, sgpt, succeeded};

/// Standard output as JSON, the command having succeeded.
fn json_of(output: &Output) -> Value {
    succeeded(output);
    json(output)
}

/// The kinds of a `capture_defects` array.
fn kinds(defects: &Value) -> Vec<&str> {
    defects.as_array().expect("an array").iter().map(|d| d["kind"].as_str().expect("a kind")).collect()
}

/// `truncated.sgpt` ends inside its eleventh frame's record, so its directory (at the end)
/// is gone too; `never_closed.sgpt` has every frame and no directory.
const TRUNCATED: [&str; 2] = ["directory_invalid", "truncated"];
const TRUNCATED_NOTE: &str = "recovered: opening the capture found 2 defects; only what could be read is used \
                              (`sgpt validate` says what was lost):\n  directory_invalid: ";

#[test]
fn stats_names_the_defects_a_cut_capture_opened_with_and_none_for_a_whole_one() {
    let report = json_of(&sgpt(&["stats", &fixture("truncated.sgpt"), "--json"]));
    assert_eq!(kinds(&report["capture_defects"]), TRUNCATED);
    assert!(report["capture_defects"][1]["detail"].as_str().unwrap().contains("ends inside a FRAM record"));
    // No frame had to be skipped: the ten frames that are whole are all analysed.
    assert_eq!((report["frames"].clone(), report["defects"].clone()), (json!(10), json!([])));

    let text = succeeded(&sgpt(&["stats", &fixture("truncated.sgpt")]));
    let (header, rest) = text.split_once('\n').unwrap();
    assert!(header.ends_with("frames 0..10 (10 analysed), 200 spans, 0 dropped"), "{text}");
    assert!(rest.starts_with(TRUNCATED_NOTE), "{text}");

    let never_closed = json_of(&sgpt(&["stats", &fixture("never_closed.sgpt"), "--json"]));
    assert_eq!(kinds(&never_closed["capture_defects"]), ["not_closed"]);

    let whole = json_of(&sgpt(&["stats", &fixture("level_timing.sgpt"), "--json"]));
    assert_eq!(whole["capture_defects"], json!([]));
    assert!(!succeeded(&sgpt(&["stats", &fixture("level_timing.sgpt")])).contains("recovered"));
}

#[test]
fn diff_names_the_side_that_was_recovered_in_every_format() {
    let (a, b) = (fixture("never_closed.sgpt"), fixture("truncated.sgpt"));
    let report = json_of(&sgpt(&["diff", &a, &b, "--json"]));
    assert_eq!(kinds(&report["a"]["capture_defects"]), ["not_closed"]);
    assert_eq!(kinds(&report["b"]["capture_defects"]), TRUNCATED);
    assert_eq!(report["recordings"]["b"][0]["capture_defects"], report["b"]["capture_defects"]);

    let text = succeeded(&sgpt(&["diff", &a, &b]));
    let a_at = text.find("A: ").unwrap();
    let a_note = text.find("recovered: opening A found 1 defect;").unwrap_or_else(|| panic!("{text}"));
    let b_at = text.find("B: ").unwrap();
    let b_note = text.find("recovered: opening B found 2 defects;").unwrap_or_else(|| panic!("{text}"));
    assert!(a_at < a_note && a_note < b_at && b_at < b_note, "each note follows its side's line: {text}");
    assert!(text.contains("\n  truncated: the file ends inside a FRAM record"), "{text}");

    let markdown = succeeded(&sgpt(&["diff", &a, &b, "--format", "markdown"]));
    let truncated_line = format!("> recovered: opening `{b}` found 2 defects;");
    assert!(markdown.contains(&truncated_line), "{markdown}");
    assert!(markdown.contains("(`sgpt validate` says what was lost): directory_invalid, truncated.\n"), "{markdown}");

    let whole = fixture("level_timing.sgpt");
    let both_whole = json_of(&sgpt(&["diff", &whole, &whole, "--json"]));
    assert_eq!(
        (both_whole["a"]["capture_defects"].clone(), both_whole["b"]["capture_defects"].clone()),
        (json!([]), json!([]))
    );
    assert!(!succeeded(&sgpt(&["diff", &whole, &whole, "--format", "markdown"])).contains("recovered"));
}

#[test]
fn workload_memory_and_export_name_them_too() {
    let file = fixture("truncated.sgpt");
    for command in ["workload", "memory"] {
        let report = json_of(&sgpt(&[command, &file, "--json"]));
        assert_eq!(kinds(&report["capture_defects"]), TRUNCATED, "{command}");
        let text = succeeded(&sgpt(&[command, &file]));
        let (_, rest) = text.split_once('\n').unwrap();
        assert!(rest.starts_with(TRUNCATED_NOTE), "{command}: {text}");
        let whole = json_of(&sgpt(&[command, &fixture("level_timing.sgpt"), "--json"]));
        assert_eq!(whole["capture_defects"], json!([]), "{command}");
    }

    // The trace goes to standard output here, so the note is on standard error alone.
    let export = sgpt(&["export", "--chrome", "-", &file]);
    assert_eq!(export.status.code(), Some(0));
    let trace: Value = serde_json::from_slice(&export.stdout).expect("the trace is JSON");
    assert!(trace["traceEvents"].as_array().is_some_and(|events| !events.is_empty()));
    let stderr = String::from_utf8_lossy(&export.stderr);
    assert!(stderr.contains(TRUNCATED_NOTE), "{stderr}");
}
