//! `diff` collects the engine's samples in the scan that computes the statistics, in
//! chunks on every core, and prepares the passes on every core too: the samples are
//! exactly the sequential collector's, the comparison exactly the pass-at-a-time one
//! (`ComparisonJob`, sequential), and what `sgpt diff --json` prints is that comparison,
//! whether made from the scan's coins or, where they cannot tell, from the durations.

use std::process::Command;

use serde_json::Value;
use sgpt_format::Capture;
use sgpt_format::analysis::scan::{ScanOptions, scan_parallel};
use sgpt_format::compare::{CompareOptions, Comparison, ComparisonJob, Finding, Samples, compare, try_compare};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, workload_with};

fn runs() -> [Vec<u8>; 2] {
    runs_with(None)
}

/// Two runs of the workload, timestamps floored to `quantize_ns` where given.
fn runs_with(quantize_ns: Option<u64>) -> [Vec<u8>; 2] {
    let options = SynthOptions { frames: 900, passes: 30, seed: 4, quantize_ns, ..SynthOptions::default() };
    let drift = Some(Drift { sigma: 0.015, frames: 30.0 });
    let a = SynthChanges { run: Some(1), drift, ..SynthChanges::default() };
    let b = SynthChanges { run: Some(2), slow_pass: Some(("simulation.pass2".into(), 0.15)), ..a.clone() };
    [a, b].map(|changes| workload_with(&options, &changes).write(Vec::new()).expect("a Vec"))
}

/// The sequential comparison: the collector's samples, prepared a pass at a time.
fn sequential(a: &[u8], b: &[u8]) -> Comparison {
    let [a, b] = [a, b].map(|bytes| {
        let capture = Capture::open(bytes).expect("opens");
        Samples::collect(&capture, 0..capture.frames().len())
    });
    ComparisonJob::new(a, b, &CompareOptions::default()).finish()
}

#[test]
fn scanned_samples_on_any_pool_compare_as_the_sequential_engine_does() {
    let [a, b] = runs();
    let expected = sequential(&a, &b);
    assert!(expected.passes.iter().any(|pass| pass.label == "simulation.pass2"));
    let [capture_a, capture_b] = [&a, &b].map(|bytes| Capture::open(bytes).expect("opens"));
    for threads in [1, 2, 3] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
        for chunks in [0, 1, 2, 3, 7] {
            let options = ScanOptions { chunks, frame_timing: false, samples: true, ..ScanOptions::default() };
            let [scan_a, scan_b] = [&capture_a, &capture_b].map(|capture| {
                let samples = pool.install(|| scan_parallel(capture, 0..capture.frames().len(), &options, &|_| {}));
                samples.samples.expect("asked for")
            });
            assert!(scan_a == Samples::collect(&capture_a, 0..capture_a.frames().len()), "{threads} threads, {chunks}");
            let got = pool.install(|| compare(&scan_a, &scan_b, &CompareOptions::default()));
            assert_eq!(got, expected, "{threads} threads, {chunks} chunks");
        }
    }
}

/// A finding's verdict, estimate, interval, standard error and confidence.
type Figures = (String, Option<i64>, Option<[i64; 2]>, Option<f64>, Option<f64>);

/// What the JSON says of a finding, to set beside the engine's.
fn finding_of(json: &Value) -> Figures {
    let interval = json["interval_ns"].as_array().map(|pair| pair.iter().map(Value::as_i64).collect::<Vec<_>>());
    let interval = interval.map(|pair| [pair[0].expect("ns"), pair[1].expect("ns")]);
    (
        json["verdict"].as_str().expect("a verdict").to_owned(),
        json["estimate_ns"].as_i64(),
        interval,
        json["standard_error_ns"].as_f64(),
        json["confidence"].as_f64(),
    )
}

/// A figure as it reads back from the JSON (serde_json's parse of a float is not always
/// the float printed).
fn printed(value: f64) -> f64 {
    serde_json::from_str(&serde_json::to_string(&value).expect("a number")).expect("a number")
}

fn expected_of(finding: &Finding) -> Figures {
    let shift = finding.shift.as_ref();
    (
        finding.verdict.name().to_owned(),
        shift.map(|s| s.delta_ns),
        shift.and_then(|s| s.interval_ns),
        shift.and_then(|s| s.standard_error_ns).map(printed),
        shift.and_then(|s| s.confidence).map(printed),
    )
}

#[test]
fn diff_prints_the_sequential_comparison_on_any_number_of_threads() {
    let [a, b] = runs();
    prints_the_sequential_comparison("runs", &a, &b);
}

/// `diff` compares the usual passes from their coins, and from their durations, read
/// again, where a figure needs them: quantized timestamps tie, and the reason for that
/// quotes the step between values; a damaged frame leaves the scan without coins.
#[test]
fn diff_reads_the_durations_again_where_coins_cannot_tell() {
    let coins = |bytes: &[u8]| {
        let capture = Capture::open(bytes).expect("opens");
        let options =
            ScanOptions { chunks: 0, frame_timing: false, samples: true, coins: true, ..ScanOptions::default() };
        scan_parallel(&capture, 0..capture.frames().len(), &options, &|_| {}).samples
    };
    let [a, b] = runs_with(Some(400_000));
    let (coins_a, coins_b) = (coins(&a).expect("kept"), coins(&b).expect("kept"));
    assert_eq!(try_compare(&coins_a, &coins_b, &CompareOptions::default()), None, "ties quote the durations' step");
    prints_the_sequential_comparison("quantized", &a, &b);
    let [mut a, b] = runs();
    let offset = Capture::open(&a).expect("opens").frames()[300].offset as usize;
    a[offset + 40] ^= 0x5a;
    assert!(coins(&a).is_none(), "a skipped frame leaves no coins");
    prints_the_sequential_comparison("damaged", &a, &b);
}

/// `sgpt diff --json` of `a` and `b` on 1, 2 and 3 threads is the sequential comparison.
fn prints_the_sequential_comparison(name: &str, a: &[u8], b: &[u8]) {
    let folder = std::env::temp_dir().join(format!("sgpt-diff-samples-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("the temp dir is writable");
    let expected = sequential(a, b);
    let (path_a, path_b) = (folder.join("a.sgpt"), folder.join("b.sgpt"));
    std::fs::write(&path_a, a).expect("writable");
    std::fs::write(&path_b, b).expect("writable");
    for threads in ["1", "2", "3"] {
        let output = Command::new(env!("CARGO_BIN_EXE_sgpt"))
            .arg("diff")
            .args([&path_a, &path_b])
            .arg("--json")
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .expect("the sgpt binary runs");
        assert_eq!(output.status.code(), Some(0), "{name}, {threads} threads");
        let json: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(finding_of(&json["frame"]), expected_of(&expected.frame), "{threads} threads");
        let tests = json["comparison"]["tests"].as_u64().expect("tests");
        assert_eq!(tests, expected.tests as u64);
        let block = &json["comparison"]["block_frames"];
        assert_eq!([block[0].as_u64(), block[1].as_u64()], expected.block_frames.map(|b| Some(b as u64)));
        let printed = json["passes"].as_array().expect("passes");
        assert_eq!(printed.len(), expected.passes.len(), "{threads} threads");
        for pass in &expected.passes {
            let row = printed
                .iter()
                .find(|row| row["label"] == pass.label.as_str() && row["span_kind"] == pass.span_kind.name())
                .unwrap_or_else(|| panic!("{} is printed", pass.label));
            assert_eq!(finding_of(row), expected_of(&pass.finding), "{name}: {}, {threads} threads", pass.label);
        }
    }
    std::fs::remove_dir_all(&folder).expect("cleans up");
}
