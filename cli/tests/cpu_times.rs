//! Frames without CPU times (begin and end both 0) in `sgpt stats` and `sgpt info`: the
//! CPU figures leave them out and say so, never counting them as 0 ns or as unordered pairs.

mod support;

use serde_json::Value;
use sgpt_format::{CpuTimes, Frame, GpuPass, Level, Meta, Span, Topology, Writer};
use support::{Temp, fixture, succeeded};

/// `sgpt args…`, which must exit 0, as its standard output.
fn sgpt(args: &[&str]) -> String {
    succeeded(&support::sgpt(args))
}

/// Runs `sgpt COMMAND` on `bytes` as a file, with `extra` arguments.
fn on_bytes(bytes: &[u8], command: &str, extra: &[&str]) -> String {
    // One file per call: the tests run at once, and one must not remove another's file.
    let file = Temp::new("cpu-times.sgpt");
    std::fs::write(file.path(), bytes).expect("the temp dir is writable");
    let mut args = vec![command, file.arg()];
    args.extend_from_slice(extra);
    sgpt(&args)
}

/// Five frames 50,000 ns apart on the CPU, each 4,000 ns long, except frame 2, which has
/// no CPU times.
fn one_frame_without_cpu_times() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: "main".into(), ..GpuPass::default() }], ..Topology::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("a Vec sink");
    let id = writer.topology(&topology).expect("an in-range topology");
    for number in 0..5u64 {
        let gpu = 1_000_000 + number * 100_000;
        let cpu = 7_000_000 + number * 50_000;
        let frame = Frame {
            frame_number: number,
            topology: id,
            spans: vec![Span { pass: 0, begin_ns: gpu, end_ns: gpu + 3_000, ..Span::default() }],
            cpu: if number == 2 {
                CpuTimes::default()
            } else {
                CpuTimes { begin_ns: cpu, end_ns: cpu + 4_000, ..CpuTimes::default() }
            },
            ..Frame::default()
        };
        writer.frame(&frame).expect("increasing frame numbers");
    }
    writer.finish().expect("a Vec sink")
}

const NO_CPU: &str = "no CPU times in this capture (every frame's begin and end are 0)";

#[test]
fn a_capture_without_cpu_times_has_no_unordered_cpu_pairs_and_names_the_absence() {
    // html_labels.sgpt: three frames, pass spans, no CPU times.
    let file = fixture("html_labels.sgpt");
    for command in ["stats", "info"] {
        let json: Value = serde_json::from_str(&sgpt(&[command, &file, "--json"])).expect("JSON");
        let timing = &json["frame_timing"];
        assert_eq!(timing["frames"], 3, "{command}");
        assert_eq!(timing["cpu_unordered_pairs"], 0, "{command}: no pair has two CPU times to order");
        assert_eq!(timing["gpu_unordered_pairs"], 0, "{command}");
        for figure in ["cpu_interval_ns", "cpu_frame_time_ns"] {
            let figure = &timing[figure];
            assert_eq!(figure["count"], 0, "{command}");
            for number in ["min", "median", "p95", "max"] {
                assert!(figure[number].is_null(), "{command}: {figure}");
            }
            assert_eq!(figure["unavailable"], NO_CPU, "{command}");
        }
        let text = sgpt(&[command, &file]);
        assert!(text.contains(&format!("CPU frame interval: not computed: {NO_CPU}\n")), "{command}: {text}");
        assert!(text.contains(&format!("CPU frame time: not computed: {NO_CPU}\n")), "{command}: {text}");
        // No table row shows a CPU figure.
        assert!(!text.lines().any(|line| line.starts_with("CPU frame") && line.ends_with(" ns")), "{text}");
        assert!(!text.contains("have no CPU times"), "the partial-absence note is for partial absence: {text}");
    }
}

#[test]
fn a_frame_without_cpu_times_is_left_out_of_the_cpu_figures_and_named() {
    let bytes = one_frame_without_cpu_times();
    let json: Value = serde_json::from_str(&on_bytes(&bytes, "stats", &["--json"])).expect("JSON");
    let timing = &json["frame_timing"];
    let frame_time = &timing["cpu_frame_time_ns"];
    assert_eq!((frame_time["count"].clone(), frame_time["min"].clone()), (4.into(), 4_000.into()), "{frame_time}");
    let interval = &timing["cpu_interval_ns"];
    assert_eq!((interval["count"].clone(), interval["min"].clone()), (2.into(), 50_000.into()), "{interval}");
    assert_eq!(timing["cpu_unordered_pairs"], 0);

    for command in ["stats", "info"] {
        let text = on_bytes(&bytes, command, &[]);
        assert!(
            text.contains("note: 1 of 5 frames have no CPU times (begin and end 0): the CPU figures leave them out\n"),
            "{command}: {text}"
        );
    }
}
