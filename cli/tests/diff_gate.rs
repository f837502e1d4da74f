//! `sgpt diff` as a CI gate: verdicts in `--json` (fields added to schema 1), exit 3 from
//! `--fail-on`, the Markdown summary, and `sgpt synth`'s slowdown and drift.

mod support;

use serde_json::Value;
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, workload_with};
use support::{Temp, code, json, sgpt, stdout};

const SLOW: &str = "culling.pass1.0";

/// `sgpt synth` of 600 frames × 40 passes, run `run` of the workload, drifting, with `extra`.
fn synth(name: &str, run: u64, extra: &[&str]) -> Temp {
    let temp = Temp::new(name);
    let run = run.to_string();
    let mut args =
        vec!["synth", "--frames", "600", "--passes", "40", "--run", &run, "--drift", "1.5%", "-o", temp.arg()];
    args.extend_from_slice(extra);
    let output = sgpt(&args);
    assert_eq!(code(&output), 0, "{}", String::from_utf8_lossy(&output.stderr));
    temp
}

fn pass<'v>(diff: &'v Value, label: &str) -> &'v Value {
    let passes = diff["passes"].as_array().expect("diff --json lists passes");
    passes.iter().find(|p| p["label"] == label).unwrap_or_else(|| panic!("no pass {label}"))
}

#[test]
fn synth_changes_write_the_bytes_the_library_generator_writes() {
    let file = synth("changed.sgpt", 3, &["--slow-pass", SLOW, "--slow-by", "10%", "--drift-frames", "45"]);
    let options = SynthOptions { frames: 600, passes: 40, ..SynthOptions::default() };
    let changes = SynthChanges {
        run: Some(3),
        slow_pass: Some((SLOW.into(), 0.10)),
        drift: Some(Drift { sigma: 0.015, frames: 45.0 }),
    };
    let expected = workload_with(&options, &changes).write(Vec::new()).unwrap();
    assert_eq!(std::fs::read(file.path()).unwrap(), expected);
}

#[test]
fn a_slowdown_beyond_the_threshold_trips_the_gate_with_exit_3() {
    let a = synth("a.sgpt", 1, &[]);
    let b = synth("b.sgpt", 2, &["--slow-pass", SLOW, "--slow-by", "10%"]);
    let output = sgpt(&["diff", a.arg(), b.arg(), "--json", "--fail-on", "slower"]);
    assert_eq!(code(&output), 3, "{}", String::from_utf8_lossy(&output.stderr));
    let diff = json(&output);
    assert_eq!(diff["schema"], 1);
    assert_eq!(diff["comparison"]["correction"], "holm");
    assert_eq!(diff["comparison"]["failed"], true);
    let slow = pass(&diff, SLOW);
    assert_eq!(slow["verdict"], "slower");
    assert_eq!(slow["status"], "matched", "the fields of schema 1 stay");
    let [low, high] = [0, 1].map(|i| slow["interval_ns"][i].as_i64().unwrap());
    assert!(0 < low && low < slow["estimate_ns"].as_i64().unwrap() && slow["estimate_ns"].as_i64().unwrap() < high);
    assert_eq!(slow["estimate_ns"], slow["median_delta_ns"], "the estimate is the shift stats medians show");
    let flagged =
        diff["passes"].as_array().unwrap().iter().filter(|p| p["verdict"] == "slower" || p["verdict"] == "faster");
    assert_eq!(flagged.count(), 1);

    // Without --fail-on the verdicts are the same and the exit is 0.
    assert_eq!(code(&sgpt(&["diff", a.arg(), b.arg(), "--json"])), 0);
    // The other way round it is faster: only `changed` gates on that.
    assert_eq!(code(&sgpt(&["diff", b.arg(), a.arg(), "--fail-on", "slower"])), 0);
    assert_eq!(code(&sgpt(&["diff", b.arg(), a.arg(), "--fail-on", "changed"])), 3);
    // A threshold above the slowdown makes it no regression.
    assert_eq!(code(&sgpt(&["diff", a.arg(), b.arg(), "--fail-on", "slower", "--threshold", "25%"])), 0);
}

#[test]
fn two_runs_of_one_workload_pass_the_gate() {
    let a = synth("run1.sgpt", 11, &[]);
    let b = synth("run2.sgpt", 12, &[]);
    let output = sgpt(&["diff", a.arg(), b.arg(), "--json", "--fail-on", "changed"]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    let diff = json(&output);
    assert_eq!(diff["comparison"]["failed"], false);
    assert_eq!(diff["comparison"]["tests"], 41, "the frame time and 40 passes");
    assert!(diff["frame"]["verdict"].is_string());
    for pass in diff["passes"].as_array().unwrap() {
        let verdict = pass["verdict"].as_str().unwrap();
        assert!(verdict == "unchanged" || verdict == "inconclusive", "{}: {verdict}", pass["label"]);
        assert_eq!(pass["reason"].is_string(), verdict == "inconclusive");
    }
}

#[test]
fn markdown_lists_what_changed_slowest_first_and_counts_the_unchanged() {
    let a = synth("md-a.sgpt", 21, &[]);
    let b = synth("md-b.sgpt", 22, &["--slow-pass", SLOW, "--slow-by", "10%"]);
    let output = sgpt(&["diff", a.arg(), b.arg(), "--format", "markdown", "--threshold", "8%"]);
    assert_eq!(code(&output), 0);
    let text = stdout(&output);
    let rows: Vec<&str> =
        text.lines().filter(|line| line.starts_with("| ") && !line.starts_with("| verdict")).collect();
    assert!(rows[0].starts_with(&format!("| slower | `{SLOW}` |")), "{text}");
    assert!(rows.iter().all(|row| !row.starts_with("| unchanged")), "{text}");
    let json = json(&sgpt(&["diff", a.arg(), b.arg(), "--json", "--threshold", "8%"]));
    let unchanged = json["comparison"]["verdicts"]["unchanged"].as_u64().unwrap();
    assert!(unchanged > 0);
    let inconclusive = json["comparison"]["verdicts"]["inconclusive"].as_u64().unwrap_or(0);
    assert_eq!(rows.len() as u64, 40 - unchanged - inconclusive + inconclusive.min(10));
    assert!(text.contains(&format!("{unchanged} of 40 passes unchanged")), "{text}");
    assert!(text.contains("holm correction"), "{text}");
}

#[test]
fn quantized_captures_are_inconclusive_not_slower() {
    let a = synth("q-a.sgpt", 31, &["--quantize", "100000"]);
    let b = synth("q-b.sgpt", 32, &["--quantize", "100000", "--slow-pass", SLOW, "--slow-by", "10%"]);
    let output = sgpt(&["diff", a.arg(), b.arg(), "--json", "--fail-on", "changed"]);
    assert_eq!(code(&output), 0);
    let slow = pass(&json(&output), SLOW).clone();
    assert_eq!(slow["verdict"], "inconclusive");
    assert!(slow["reason"].as_str().unwrap().contains("step by 100000 ns"), "{}", slow["reason"]);
    assert!(slow["interval_ns"].is_null() && slow["estimate_ns"].is_null());
}

#[test]
fn bad_gate_and_synth_arguments_exit_2() {
    let a = synth("arg.sgpt", 41, &[]);
    for args in [
        vec!["diff", a.arg(), a.arg(), "--threshold", "abc"],
        vec!["diff", a.arg(), a.arg(), "--min-effect", "3 parsecs"],
        vec!["diff", a.arg(), a.arg(), "--alpha", "1.5"],
        vec!["diff", a.arg(), a.arg(), "--json", "--format", "markdown"],
    ] {
        assert_eq!(code(&sgpt(&args)), 2, "{args:?}");
    }
    let out = Temp::new("nope.sgpt");
    let output = sgpt(&["synth", "--slow-pass", "nope", "--slow-by", "5%", "-o", out.arg()]);
    assert_eq!(code(&output), 2);
    assert!(String::from_utf8_lossy(&output.stderr).contains("no GPU pass has that label"));
}

#[test]
fn markdown_shows_at_most_ten_inconclusive_passes_and_counts_them_all() {
    // 600 frames cannot bound most passes within 3 %: many are inconclusive.
    let a = synth("many-a.sgpt", 51, &[]);
    let b = synth("many-b.sgpt", 52, &[]);
    let inconclusive =
        json(&sgpt(&["diff", a.arg(), b.arg(), "--json"]))["comparison"]["verdicts"]["inconclusive"].as_u64().unwrap();
    assert!(inconclusive > 10, "{inconclusive}");
    let text = stdout(&sgpt(&["diff", a.arg(), b.arg(), "--format", "markdown"]));
    let rows = text.lines().filter(|line| line.starts_with("| inconclusive |")).count();
    assert_eq!(rows, 10, "{text}");
    assert!(
        text.contains(&format!("{inconclusive} passes inconclusive, the 10 with the largest shifts shown")),
        "{text}"
    );
}

#[test]
fn text_sorts_by_verdict_and_shows_what_a_lone_pass_costs() {
    let a = synth("text-a.sgpt", 61, &[]);
    // The same program with its last scope gone: 10 passes only in A.
    let b = Temp::new("text-b.sgpt");
    let output = sgpt(&["synth", "--frames", "600", "--passes", "30", "--run", "62", "--drift", "1.5%", "-o", b.arg()]);
    assert_eq!(code(&output), 0);
    let text = stdout(&sgpt(&["diff", a.arg(), b.arg()]));
    let order = ["slower", "faster", "added", "removed", "culled", "unculled", "inconclusive", "unchanged"];
    let ranks: Vec<usize> =
        text.lines().filter_map(|line| order.iter().position(|v| line.split_whitespace().next() == Some(*v))).collect();
    assert_eq!(ranks.len(), 40, "{text}");
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{text}");
    let removed: Vec<&str> = text.lines().filter(|line| line.starts_with("removed")).collect();
    assert_eq!(removed.len(), 10, "{text}");
    assert!(removed.iter().all(|line| line.ends_with("ns a frame in A")), "{text}");
    assert!(!text.lines().any(|line| line.starts_with("slower") || line.starts_with("faster")), "{text}");
}

#[test]
fn several_recordings_a_side_are_compared_as_runs_and_say_how() {
    let a: Vec<Temp> = (41..=43).map(|run| synth(&format!("ra{run}.sgpt"), run, &[])).collect();
    let b: Vec<Temp> =
        (44..=46).map(|run| synth(&format!("rb{run}.sgpt"), run, &["--slow-pass", SLOW, "--slow-by", "30%"])).collect();
    let mut args = vec!["diff", "--json", "--fail-on", "slower"];
    args.extend(a.iter().map(Temp::arg));
    args.push("--vs");
    args.extend(b.iter().map(Temp::arg));
    let output = sgpt(&args);
    let diff = json(&output);
    assert_eq!(diff["comparison"]["recordings"], serde_json::json!([3, 3]));
    let method = "pooled t-test on the recordings' medians, each no tighter than its circular block bootstrap";
    assert_eq!(diff["comparison"]["method"], method);
    assert_eq!(pass(&diff, SLOW)["method"], method);
    assert_eq!(pass(&diff, SLOW)["verdict"], "slower", "{}", pass(&diff, SLOW));
    assert_eq!(code(&output), 3, "the gate trips on a pass slower in every run");
    let files: Vec<&str> =
        diff["recordings"]["b"].as_array().expect("a list").iter().map(|r| r["file"].as_str().unwrap()).collect();
    assert_eq!(files, b.iter().map(Temp::arg).collect::<Vec<_>>());
    assert_eq!(diff["a"]["file"], a[0].arg(), "`a` is the first recording of A");

    let text = stdout(&sgpt(&[&["diff"][..], &[a[0].arg(), a[1].arg(), "--vs", b[0].arg()]].concat()));
    assert!(text.contains(&format!("A: {} (600 frames)", a[1].arg())), "{text}");
    assert!(text.contains("2 and 1 recordings") && !text.contains("one recording a side"), "{text}");
    assert!(
        text.contains("mean median A") && text.contains("GPU frame time") && text.contains(", mean median "),
        "{text}"
    );
    let pair = stdout(&sgpt(&["diff", a[0].arg(), b[0].arg()]));
    assert!(pair.contains("note: one recording a side: the intervals hold the noise between frames"), "{pair}");
    assert!(pair.contains("median A") && !pair.contains("mean median"), "{pair}");

    let three = sgpt(&["diff", a[0].arg(), a[1].arg(), b[0].arg()]);
    assert_eq!(code(&three), 2);
    let error = String::from_utf8_lossy(&three.stderr);
    assert!(error.contains("diff takes two captures, A and B, not 3") && error.contains("--vs"), "{error}");
}
