//! `stats` and `diff` analyse chunks of frames on every core (`scan_parallel`), `validate`
//! checks them so (`verify_parallel`), `info` checks and times them from one decode
//! (`verify_and_time_parallel`), and `workload` summarises them so (`summarize_parallel`):
//! the figures and defects are the single-threaded ones whatever the number of threads,
//! damaged frames included, and the binary prints the same on 1, 2 or 3 threads.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use sgpt_format::analysis::check::{verify_and_time_parallel, verify_parallel};
use sgpt_format::analysis::pass_stats;
use sgpt_format::analysis::scan::{ScanOptions, Windows, scan_parallel};
use sgpt_format::frame_timing::frame_timing;
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::workload_summary::{MAX_SHAPES, summarize, summarize_parallel};
use sgpt_format::{
    Capture, Command as GpuCommand, Frame, GpuPass, GpuPassKind, Indirect, Level, Meta, Op, Topology, Writer,
};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn captures() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("timing", generate(&SynthOptions { frames: 400, passes: 30, ..SynthOptions::default() })),
        (
            "quantized",
            generate(&SynthOptions { frames: 300, passes: 20, quantize_ns: Some(100_000), ..SynthOptions::default() }),
        ),
        (
            "verbose",
            generate(&SynthOptions { frames: 100, passes: 20, level: Level::Verbose, ..SynthOptions::default() }),
        ),
        ("corrupted.sgpt", fixture("corrupted.sgpt")),
        ("truncated.sgpt", fixture("truncated.sgpt")),
    ]
}

#[test]
fn frames_checked_on_every_pool_find_what_verify_finds_and_time_them_as_frame_timing_does() {
    // More frames than a piece holds, one of them damaged (a payload byte flipped).
    let mut many = generate(&SynthOptions { frames: 5_000, passes: 4, seed: 9, ..SynthOptions::default() });
    let entry = Capture::open(&many).expect("opens").frames()[3_100];
    many[(entry.offset + entry.len / 2) as usize] ^= 0x40;
    let mut all = captures();
    all.push(("5,000 frames, one damaged", many));
    for (name, bytes) in all {
        let capture = Capture::open(&bytes).expect("opens");
        let expected = capture.verify_counting();
        let timing = frame_timing(&capture, 0..capture.frames().len());
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            assert_eq!(pool.install(|| verify_parallel(&capture)), expected, "{name}: {threads} threads");
            let (defects, counts, got_timing) = pool.install(|| verify_and_time_parallel(&capture));
            assert_eq!((defects, counts), expected, "{name}: {threads} threads, with frame timing");
            assert_eq!(got_timing, timing, "{name}: frame timing on {threads} threads");
        }
        if name.contains("damaged") || name == "corrupted.sgpt" {
            assert_eq!(expected.1.lost.len(), 1, "{name}: one frame lost");
        }
    }
}

/// A workload capture whose passes meet more command shapes and indirect sources than
/// their lists hold: new ones all along the range, so that chunks meet them first in
/// turn, and others cycling within any chunk; over two topologies that share a pass,
/// with frame 2,222 damaged.
fn many_shapes() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Verbose), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("a Vec");
    let pass = |label: &str, kind| GpuPass { label: label.into(), kind, ..GpuPass::default() };
    let first = Topology {
        gpu_passes: vec![pass("simulate", GpuPassKind::Compute), pass("draw", GpuPassKind::Render)],
        ..Topology::default()
    };
    let second = Topology {
        gpu_passes: vec![pass("draw", GpuPassKind::Render), pass("bloom", GpuPassKind::Compute)],
        ..Topology::default()
    };
    let ids = [writer.topology(&first).expect("a Vec"), writer.topology(&second).expect("a Vec")];
    let shapes = 2 * MAX_SHAPES as u32;
    for f in 0..4_000u32 {
        let topology = (f / 500 % 2) as usize;
        let (compute, render) = if topology == 0 { (0, 1) } else { (1, 0) };
        let mut commands = vec![
            GpuCommand {
                gpu_pass: compute,
                pipeline: Some(f % 2),
                op: Op::Dispatch { x: 1 + f / 37 % shapes, y: 1, z: 1 },
            },
            GpuCommand {
                gpu_pass: compute,
                pipeline: Some(0),
                op: Op::DispatchIndirect {
                    indirect: Indirect { buffer: 3, offset: 16 * u64::from(f / 41 % shapes) },
                    resolved: (f % 2 == 0).then_some([f % 3 + 1, 1, 1]),
                },
            },
        ];
        // And shapes and sources that cycle within any chunk, so that a chunk meets more
        // than a list holds, in an order of its own.
        let cycling = Op::Dispatch { x: 1 + f * 7 % shapes, y: 2, z: 1 };
        commands.push(GpuCommand { gpu_pass: compute, pipeline: Some(1), op: cycling });
        let indirect = Indirect { buffer: 4, offset: 16 * u64::from(f * 11 % shapes) };
        let op = Op::DispatchIndirect { indirect, resolved: None };
        commands.push(GpuCommand { gpu_pass: compute, pipeline: Some(1), op });
        if f % 97 != 0 {
            let op = Op::Draw { vertices: 3 * (1 + f / 53 % shapes), instances: 1, first_vertex: 0, first_instance: 0 };
            commands.push(GpuCommand { gpu_pass: render, pipeline: None, op });
        }
        let frame = Frame { frame_number: u64::from(f), topology: ids[topology], commands, ..Frame::default() };
        writer.frame(&frame).expect("a Vec");
    }
    let mut bytes = writer.finish().expect("a Vec");
    let entry = Capture::open(&bytes).expect("opens").frames()[2_222];
    bytes[(entry.offset + entry.len / 2) as usize] ^= 0x40;
    bytes
}

/// A workload capture whose one pass dispatches a new shape every frame, 600 in turn: a
/// chunk of more than 256 frames meets more than it keeps, and meets the first shapes of
/// the range again only after them, so the range is summarised in one pass.
fn new_shape_every_frame() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Workload), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("a Vec");
    let topology = Topology {
        gpu_passes: vec![GpuPass { label: "particles".into(), ..GpuPass::default() }],
        ..Topology::default()
    };
    let id = writer.topology(&topology).expect("a Vec");
    for f in 0..3_000u32 {
        let op = Op::Dispatch { x: 1 + f % 600, y: 1, z: 1 };
        let commands = vec![GpuCommand { gpu_pass: 0, pipeline: None, op }];
        writer.frame(&Frame { frame_number: u64::from(f), topology: id, commands, ..Frame::default() }).expect("a Vec");
    }
    writer.finish().expect("a Vec")
}

#[test]
fn workload_summarised_on_every_pool_is_the_single_threaded_report() {
    let mut all = captures();
    all.push(("many shapes", many_shapes()));
    all.push(("a new shape every frame, 600 in turn", new_shape_every_frame()));
    all.push((
        "workload",
        generate(&SynthOptions { frames: 3_000, passes: 20, level: Level::Workload, ..SynthOptions::default() }),
    ));
    for (name, bytes) in all {
        let capture = Capture::open(&bytes).expect("opens");
        let frames = capture.frames().len();
        for range in [0..frames, frames / 3..frames * 5 / 6, 0..0] {
            let expected = summarize(&capture, range.clone());
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
                let got = pool.install(|| summarize_parallel(&capture, range.clone()));
                assert_eq!(got, expected, "{name}: frames {range:?} on {threads} threads");
            }
            if name == "many shapes" && range == (0..frames) {
                // The lists filled up, and one frame was skipped.
                assert!(expected.passes.iter().all(|pass| pass.other_commands > 0), "{:?}", expected.passes);
                assert!(
                    expected
                        .passes
                        .iter()
                        .all(|pass| pass.shapes.len() == MAX_SHAPES || pass.indirect_sources.is_empty())
                );
                assert_eq!(expected.defects.len(), 1);
            }
        }
    }
}

#[test]
fn every_pool_and_chunk_count_gives_the_single_threaded_figures() {
    for (name, bytes) in captures() {
        let capture = Capture::open(&bytes).expect("opens");
        let frames = capture.frames().len();
        let stats = pass_stats(&capture, 0..frames);
        let timing = Some(frame_timing(&capture, 0..frames));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool");
            for chunks in [0, 1, 2, 3, 7] {
                for windows in [Windows::Auto, Windows::SampleEvery(4)] {
                    let options = ScanOptions { chunks, windows, ..ScanOptions::default() };
                    let got = pool.install(|| scan_parallel(&capture, 0..frames, &options, &|_| {}));
                    assert_eq!(
                        (&got.stats, &got.timing),
                        (&stats, &timing),
                        "{name}: {threads} threads, {chunks} chunks, {windows:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_capture_opened_on_every_core_is_the_one_opened_on_one() {
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1");
    for entry in std::fs::read_dir(&folder).expect("the fixtures are there") {
        let name = entry.expect("a fixture").file_name().to_string_lossy().into_owned();
        cases.push((name.clone(), fixture(&name)));
    }
    // A frame's record no longer where the directory lists it, first, in the middle and
    // last: the check beforehand says no, and the entries are checked one by one.
    let whole = generate(&SynthOptions { frames: 5_000, passes: 4, ..SynthOptions::default() });
    let frames = Capture::open(&whole).expect("opens").frames().to_vec();
    for index in [0, frames.len() / 2, frames.len() - 1] {
        let mut moved = whole.clone();
        moved[frames[index].offset as usize] ^= 0xff;
        cases.push((format!("frame {index} moved"), moved));
    }
    cases.push(("whole".to_owned(), whole));
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("a pool");
    let mut directories = 0;
    for (name, bytes) in &cases {
        let one = format!("{:?}", Capture::open(bytes));
        let every = pool.install(|| format!("{:?}", Capture::open_parallel(bytes)));
        assert_eq!(every, one, "{name}");
        directories += usize::from(Capture::open(bytes).is_ok_and(|capture| capture.used_directory()));
    }
    assert!(cases.len() > 30 && directories > 10, "{} cases, {directories} with their directory", cases.len());
}

/// The exit code and what was printed: JSON parsed, as `diff`'s verdict counts are an
/// object whose keys come in no set order.
fn sgpt(args: &[&str], threads: &str) -> (Option<i32>, Result<Value, String>) {
    let output = Command::new(env!("CARGO_BIN_EXE_sgpt"))
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("the sgpt binary runs");
    let text = String::from_utf8(output.stdout).expect("UTF-8 output");
    let printed = if args.contains(&"--json") { Ok(serde_json::from_str(&text).expect("JSON")) } else { Err(text) };
    (output.status.code(), printed)
}

#[test]
fn stats_diff_validate_and_info_print_the_same_on_any_number_of_threads() {
    let folder = std::env::temp_dir().join(format!("sgpt-parallel-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("the temp dir is writable");
    let mut paths = Vec::new();
    for (name, bytes) in captures() {
        let path = folder.join(name);
        std::fs::write(&path, bytes).expect("the temp dir is writable");
        paths.push(path.to_str().expect("UTF-8 temp path").to_owned());
    }
    for path in &paths {
        for args in [vec!["stats", path, "--json"], vec!["stats", path], vec!["diff", &paths[0], path, "--json"]] {
            let one = sgpt(&args, "1");
            assert_eq!(one.0, Some(0), "{args:?}");
            for threads in ["2", "3"] {
                assert!(sgpt(&args, threads) == one, "{args:?} prints otherwise on {threads} threads");
            }
        }
        // Damaged captures fail validation: the same way on any number of threads.
        for args in [vec!["validate", path, "--json"], vec!["info", path, "--json"]] {
            let one = sgpt(&args, "1");
            assert!(one.1.is_ok(), "{args:?} printed its JSON");
            for threads in ["2", "3"] {
                assert!(sgpt(&args, threads) == one, "{args:?} prints otherwise on {threads} threads");
            }
        }
    }
    std::fs::remove_dir_all(&folder).expect("cleans up");
}
