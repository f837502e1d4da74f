//! `sgpt memory` on an activity-mode capture that lost part of its journal: the loss is
//! reported exactly, reconciliation is unavailable rather than guessed, and the command
//! still succeeds, since the capture itself is intact.

mod support;

use serde_json::json;
use support::{code, fixture, json, sgpt};

/// The capture: an activity-mode memory journal that lost part of its events.
fn capture() -> String {
    fixture("memory_activity_loss.sgpt")
}

#[test]
fn the_loss_is_reported_exactly_and_reconciliation_is_unavailable() {
    let output = sgpt(&["memory", &capture(), "--json"]);
    assert_eq!(code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    let report = json(&output);
    assert_eq!(report["memory_records"], 1);
    assert_eq!(
        report["captures"],
        json!([{"capture": 2, "mode": "activity", "begin_seq": 6, "end_seq": 18, "events": 8, "checkpoints": 3,
                "complete": false}])
    );
    assert_eq!(report["source"], "memory_record");
    assert_eq!(
        report["loss"],
        json!([{
            "capture": 2,
            "journal": {"reason": "journal_full", "first_lost_seq": 14, "domain": 3, "count": 4},
            "table": null,
            "recursion": null,
        }])
    );
    // Activity mode would be `bounded` at best; with a lost journal it is not claimed at all.
    assert_eq!(report["reconciliation"]["status"], "unavailable");
    assert_eq!(
        report["reconciliation"]["reason"],
        "capture 2 lost 4 operations from operation 14 (journal full): the interval after it is incomplete"
    );
    // The journal lost operations before the terminal checkpoint: no net is summed from what remains.
    assert_eq!(
        report["reconciliation"]["domains"],
        json!([
            {"domain": "scene", "counter_live_bytes": 13312, "tracked_live_bytes": 5120, "journal_net_bytes": null},
            {"domain": "particles", "counter_live_bytes": 256, "tracked_live_bytes": 256, "journal_net_bytes": null},
            {"domain": "scratch", "counter_live_bytes": 0, "tracked_live_bytes": 0, "journal_net_bytes": null},
        ])
    );
    assert_eq!(report["unknown_baseline_frees"], 3);
    assert_eq!(report["ownership_errors"], 0);

    // Providers are their own metrics: the domain table holds domains only.
    let names: Vec<&str> =
        report["domains"].as_array().expect("a list").iter().filter_map(|d| d["name"].as_str()).collect();
    assert_eq!(names, ["scene", "particles", "scratch"]);
    let scratch = &report["domains"][2];
    assert_eq!(scratch["valid"], false, "saturated counters are flagged");
    assert_eq!((scratch["live_bytes"].as_u64(), scratch["freed_bytes"].as_u64()), (Some(0), Some(8448)));

    // The live table outlived the journal, so the diffs stay exact.
    // The journal did not: the intervals up to `end` are incomplete.
    let diffs: Vec<(&str, &str, bool, bool)> = report["checkpoints"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| {
            let name = |key: &str| c[key].as_str().unwrap_or("");
            (name("from"), name("to"), c["exact"] == true, c["journal_complete"] == true)
        })
        .collect();
    assert_eq!(
        diffs,
        [("level loaded", "wave 1", true, true), ("wave 1", "end", true, false), ("level loaded", "end", true, false)]
    );
}

#[test]
fn the_text_report_says_incomplete_and_the_capture_validates_intact() {
    let output = sgpt(&["memory", &capture()]);
    assert_eq!(code(&output), 0);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("reconciliation: unavailable"), "{text}");
    assert!(text.contains("loss in capture 2: INCOMPLETE"), "{text}");
    assert!(text.contains("journal: journal full from operation 14, 4 operations lost"), "{text}");
    assert!(text.contains("capture 2: activity (began late"), "{text}");
    assert!(text.contains("(from the journal: operations it lost are not counted here)"), "{text}");
    assert!(text.contains("wave 1 -> end:") && text.contains("operations lost before it"), "{text}");
    assert!(text.contains("unknown-baseline frees: 3"), "{text}");
    assert!(text.contains("NO (saturated)"), "{text}");

    // Memory loss is the recorder's, not damage to the file.
    let validate = sgpt(&["validate", &capture(), "--json"]);
    assert_eq!(code(&validate), 0);
    assert_eq!(json(&validate)["verdict"], "intact");
}
