//! Every committed fixture of every released format version opens, forever, with the
//! exact outcome recorded here. A reader change that alters any of these is a break.

use std::path::PathBuf;

use sgpt_format::{Capture, DefectKind, OpenError};

fn fixture(version: &str, name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures").join(version).join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// What a fixture must open as: frames recovered, closed flag, and defect kinds found by
/// a full verify (in order).
struct Expect {
    name: &'static str,
    frames: usize,
    closed: bool,
    defects: &'static [DefectKind],
}

const V1: &[Expect] = &[
    Expect { name: "minimal.sgpt", frames: 1, closed: true, defects: &[] },
    Expect { name: "level_timing.sgpt", frames: 16, closed: true, defects: &[] },
    Expect { name: "level_structure.sgpt", frames: 16, closed: true, defects: &[] },
    Expect { name: "level_workload.sgpt", frames: 16, closed: true, defects: &[] },
    Expect { name: "level_verbose.sgpt", frames: 16, closed: true, defects: &[] },
    // Cut from a closed capture, as a partial download would be: the header still says
    // closed, but its directory lies past the end of the file.
    Expect {
        name: "truncated.sgpt",
        frames: 10,
        closed: true,
        defects: &[DefectKind::DirectoryInvalid, DefectKind::Truncated],
    },
    Expect { name: "corrupted.sgpt", frames: 16, closed: true, defects: &[DefectKind::ChecksumMismatch] },
    Expect { name: "never_closed.sgpt", frames: 16, closed: false, defects: &[DefectKind::NotClosed] },
    Expect { name: "unknown_record.sgpt", frames: 16, closed: true, defects: &[DefectKind::UnknownRecord] },
    Expect { name: "zero_durations.sgpt", frames: 16, closed: true, defects: &[] },
    Expect { name: "dropped_spans.sgpt", frames: 16, closed: true, defects: &[] },
    Expect { name: "html_labels.sgpt", frames: 3, closed: true, defects: &[] },
    Expect { name: "memory.sgpt", frames: 8, closed: true, defects: &[] },
];

#[test]
fn every_v1_fixture_opens_as_recorded() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1");
    let on_disk = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|entry| entry.path().extension().is_some_and(|ext| ext == "sgpt"))
        .count();
    assert_eq!(on_disk, V1.len() + 1, "a fixture on disk has no expectation here, or one is missing");
    for expect in V1 {
        let bytes = fixture("v1", expect.name);
        let capture = Capture::open(&bytes).unwrap_or_else(|error| panic!("{}: {error}", expect.name));
        assert_eq!(capture.frames().len(), expect.frames, "{}", expect.name);
        assert_eq!(capture.header().closed(), expect.closed, "{}", expect.name);
        assert_eq!(capture.header().format_version, 1, "{}", expect.name);
        let kinds: Vec<DefectKind> = capture.verify().iter().map(|defect| defect.kind).collect();
        assert_eq!(kinds, expect.defects, "{}", expect.name);
    }
}

#[test]
fn the_newer_version_fixture_is_refused() {
    let error = Capture::open(&fixture("v1", "newer_version.sgpt")).unwrap_err();
    assert_eq!(error, OpenError::NeedsNewerReader { required: 2, supported: 1 });
}

#[test]
fn the_corrupted_fixture_loses_exactly_frame_6() {
    let bytes = fixture("v1", "corrupted.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    for index in 0..16 {
        assert_eq!(capture.frame(index).is_err(), index == 6, "frame {index}");
    }
}

#[test]
fn the_zero_and_dropped_fixtures_carry_what_they_claim() {
    let zeros = fixture("v1", "zero_durations.sgpt");
    let capture = Capture::open(&zeros).unwrap();
    let mut spans = 0;
    for index in 0..capture.frames().len() {
        capture
            .for_each_span(index, |span| {
                spans += 1;
                assert_eq!(span.duration_ns(), 0);
            })
            .unwrap();
    }
    assert!(spans > 300);

    let dropped = fixture("v1", "dropped_spans.sgpt");
    let capture = Capture::open(&dropped).unwrap();
    let per_frame: Vec<u32> = capture.frames().iter().map(|frame| frame.dropped_spans).collect();
    for (index, dropped) in per_frame.iter().enumerate() {
        assert_eq!(*dropped, if index % 4 == 1 { 5 } else { 0 }, "frame {index}");
    }
}

#[test]
fn html_in_labels_is_kept_verbatim_as_data() {
    let bytes = fixture("v1", "html_labels.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let topology = capture.topology(0).unwrap();
    assert_eq!(topology.gpu_passes[0].label, "<img src=x onerror=\"window.__pwned=1\">");
    assert_eq!(capture.notes()[0].text, "<img src=x onerror=\"window.__pwned=1\">");
}

#[test]
fn the_memory_fixture_carries_one_capture_and_domain_gauges() {
    let bytes = fixture("v1", "memory.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let [record] = capture.memory_records() else { panic!("one MEMO record") };
    assert_eq!(record.mode, sgpt_format::MemoryMode::Complete);
    assert_eq!((record.begin_seq, record.end_seq), (100, 111));
    assert_eq!(record.events.len(), 11);
    assert_eq!(record.checkpoints.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["loaded", "unloaded", "end"]);
    assert!(record.health.is_complete());
    let diff = record.diff(0, 2).unwrap();
    assert_eq!(diff.survivors.len(), 1);
    assert_eq!(diff.survivors[0].block.size, 256);
    assert_eq!(diff.survivors[0].age_ops, 111 - 102);
    assert_eq!(diff.released.iter().map(|b| b.size).collect::<Vec<_>>(), [4096, 1024]);
    assert_eq!(diff.new_live.iter().map(|b| b.size).collect::<Vec<_>>(), [4096, 1024, 512]);
    let names: Vec<&str> = capture.counters().map(|c| c.name.as_str()).collect();
    assert!(names.contains(&"memory/scene/live_bytes"), "{names:?}");
    let last = capture.frame(7).unwrap();
    let scene_live = last.counters.iter().find(|s| s.counter == 0).unwrap().value;
    assert_eq!(scene_live, 5120.0);
}
