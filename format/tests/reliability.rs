#![expect(clippy::unwrap_used, reason = "helpers shared by the tests below; a failed unwrap is the test failing")]
//! The reader survives what real captures go through: cut off mid-write, bytes flipped
//! in transit, records from a newer writer, labels that look like record headers.

use std::ops::Range;

use sgpt_format::synth::{Rng, SynthOptions, workload};
use sgpt_format::{
    Capture, DefectKind, Frame, GpuPass, Level, Meta, Note, OpenError, RECORD_HEADER_LEN, Topology, Writer,
};

/// A capture plus the byte range and content of every record in it.
struct Known {
    bytes: Vec<u8>,
    /// (record range, frame) for each frame record.
    frames: Vec<(Range<usize>, Frame)>,
    /// Ranges of the non-frame records, META and TOPO and DECL among them.
    others: Vec<Range<usize>>,
}

fn known(level: Level, frames: u32, passes: u32) -> Known {
    let workload = workload(&SynthOptions { frames, passes, level, seed: 3, quantize_ns: None });
    let bytes = workload.write(Vec::new()).unwrap();
    let capture = Capture::open(&bytes).unwrap();
    let frames = capture
        .frames()
        .iter()
        .zip(&workload.frames)
        .map(|(entry, frame)| (entry.offset as usize..(entry.offset + entry.len) as usize, frame.clone()))
        .collect();
    let others = capture.records().iter().map(|r| r.offset as usize..(r.offset + r.len) as usize).collect();
    Known { bytes, frames, others }
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

#[test]
fn truncated_capture_keeps_every_whole_frame_at_every_cut() {
    let known = known(Level::Structure, 8, 10);
    for cut in 0..known.bytes.len() {
        let bytes = &known.bytes[..cut];
        let capture = match Capture::open(bytes) {
            Ok(capture) => capture,
            Err(OpenError::NotSgpt { .. }) if cut < 16 => continue,
            Err(error) => panic!("cut at {cut}: {error}"),
        };
        let whole: Vec<&Frame> = known.frames.iter().filter(|(range, _)| range.end <= cut).map(|(_, f)| f).collect();
        assert_eq!(capture.frames().len(), whole.len(), "cut at {cut}");
        for (index, frame) in whole.iter().enumerate() {
            assert_eq!(&&capture.frame(index).unwrap(), frame, "cut at {cut}");
        }
        let at_boundary = cut == 16 + 16
            || known.frames.iter().map(|(r, _)| r.end).chain(known.others.iter().map(|r| r.end)).any(|end| end == cut);
        let truncated = capture.defects().iter().any(|d| d.kind == DefectKind::Truncated);
        if cut > 32 && !at_boundary {
            assert!(truncated, "cut at {cut} inside a record must be reported: {:?}", capture.defects());
        }
        if cut < known.bytes.len() {
            assert!(!capture.defects().is_empty(), "a cut capture is never reported intact (cut at {cut})");
        }
    }
}

#[test]
fn a_thousand_seeded_corruptions_lose_only_the_records_they_hit() {
    let known = known(Level::Workload, 12, 16);
    let mut rng = Rng::new(0x5eed);
    for trial in 0..1000 {
        let mut bytes = known.bytes.clone();
        let len = 1 + rng.below(8) as usize;
        let start = 32 + rng.below((bytes.len() - 32 - len) as u64) as usize;
        for byte in &mut bytes[start..start + len] {
            *byte ^= 1 + rng.below(255) as u8;
        }
        let hit = start..start + len;
        let capture = Capture::open(&bytes).unwrap_or_else(|e| panic!("trial {trial}: {e}"));
        assert!(!capture.verify().is_empty(), "trial {trial}: damage at {hit:?} went unreported");
        for (range, frame) in &known.frames {
            if overlaps(range, &hit) {
                continue;
            }
            let index = capture
                .frames()
                .iter()
                .position(|entry| entry.frame_number == frame.frame_number)
                .unwrap_or_else(|| panic!("trial {trial}: frame {} lost to damage at {hit:?}", frame.frame_number));
            assert_eq!(&capture.frame(index).unwrap(), frame, "trial {trial}");
        }
        let topology_hit = known.others.iter().any(|range| overlaps(range, &hit));
        if !topology_hit {
            assert!(capture.meta().is_some() && capture.topology_count() > 0, "trial {trial}");
        }
    }
}

#[test]
fn a_label_that_spells_srec_does_not_fool_resynchronisation() {
    // A plausible record header inside a label: sync, a known type, a length that fits.
    let mut label = b"SRECFRAM".to_vec();
    label.extend_from_slice(&24u32.to_le_bytes());
    label.extend_from_slice(b"crc!");
    label.extend_from_slice(&[0u8; 24]);
    let label = String::from_utf8(label).unwrap();
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: label.clone(), ..GpuPass::default() }], ..Topology::default() };
    let id = writer.topology(&topology).unwrap();
    for f in 0..4 {
        let mut frame = Frame { frame_number: f, topology: id, ..Frame::default() };
        frame.spans.push(sgpt_format::Span { pass: 0, begin_ns: 100 * f, end_ns: 100 * f + 40, ..Default::default() });
        writer.frame(&frame).unwrap();
    }
    let mut bytes = writer.finish().unwrap();
    let capture = Capture::open(&bytes).unwrap();
    let topo_at = capture.records().iter().find(|r| r.kind == sgpt_format::FourCc::TOPO).unwrap().offset as usize;
    let label_at = topo_at + bytes[topo_at..].windows(8).position(|w| w == b"SRECFRAM").unwrap();
    assert!(label_at > topo_at + RECORD_HEADER_LEN);
    // Break the TOPO record's sync: the directory no longer matches the file, so the
    // reader scans, and must resynchronise through the label.
    bytes[topo_at] ^= 0xff;
    let capture = Capture::open(&bytes).unwrap();
    assert!(!capture.used_directory());
    assert_eq!(capture.frames().len(), 4, "every real frame survives");
    assert!(capture.frames().iter().all(|entry| entry.offset as usize != label_at), "the label is not a record");
    assert!(capture.defects().iter().any(|d| d.kind == DefectKind::DirectoryInvalid));
    assert!(capture.defects().iter().any(|d| d.kind == DefectKind::Corrupt && d.offset as usize == topo_at));
    // The frames' topology is gone, and verify says so instead of inventing one.
    assert!(capture.verify().iter().any(|d| d.kind == DefectKind::MissingReference));
}

/// A file that lost a block before its directory (a broken copy) keeps a directory that
/// checks out and lists records past the file's end. The defect that says so names a
/// place in the file, the directory's, as every defect does, and the frames before the
/// loss survive.
#[test]
fn a_directory_that_lists_records_past_the_file_s_end_is_said_at_the_directory() {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let id = writer.topology(&Topology { gpu_passes: vec![GpuPass::default()], ..Topology::default() }).unwrap();
    for f in 0..40 {
        let mut frame = Frame { frame_number: f, topology: id, ..Frame::default() };
        frame.spans.push(sgpt_format::Span { pass: 0, begin_ns: 100 * f, end_ns: 100 * f + 40, ..Default::default() });
        writer.frame(&frame).unwrap();
    }
    writer.note(&Note { frame_number: 39, text: "the last frame".into() }).unwrap();
    let bytes = writer.finish().unwrap();
    let capture = Capture::open(&bytes).unwrap();
    let directory = bytes.windows(8).rposition(|w| w == b"SRECDIRE").expect("a directory");
    let cut = capture.frames()[10].offset as usize;
    // Frames 10 to 39 and the note are lost; the directory, whole, follows frame 9, and
    // the header (unchecksummed) says where it went.
    let mut cut_bytes = [&bytes[..cut], &bytes[directory..]].concat();
    cut_bytes[16..24].copy_from_slice(&(cut as u64).to_le_bytes());
    let capture = Capture::open(&cut_bytes).unwrap();
    assert!(!capture.used_directory());
    assert_eq!(capture.frames().len(), 10, "the frames before the loss survive");
    let defect = capture.defects().iter().find(|d| d.kind == DefectKind::DirectoryInvalid).expect("said");
    assert!(defect.to_string().contains("past the file's end"), "{defect}");
    assert_eq!(defect.offset, cut as u64, "at the directory, which follows frame 9");
    for defect in capture.defects() {
        assert!(defect.offset <= cut_bytes.len() as u64, "{defect}");
    }
}

#[test]
fn a_hostile_file_of_plausible_headers_cannot_stall_the_reader() {
    let known = known(Level::Timing, 2, 4);
    let mut bytes = known.bytes[..48].to_vec();
    // Thousands of "records" each claiming a long payload that never checksums.
    for _ in 0..20_000 {
        bytes.extend_from_slice(b"SRECFRAM");
        bytes.extend_from_slice(&(1u32 << 20).to_le_bytes());
        bytes.extend_from_slice(&[0; 4]);
    }
    let capture = Capture::open(&bytes).unwrap();
    // The rescan is charged each candidate's claimed length and gives up once that passes
    // its budget (a multiple of the file's size), long before trying every candidate: the
    // bound is on the work, whatever the machine's speed.
    let gave_up: Vec<_> = capture.defects().iter().filter(|d| d.kind == DefectKind::ResyncBudgetExhausted).collect();
    assert_eq!(gave_up.len(), 1, "{:?}", capture.defects());
    assert_eq!(gave_up[0].offset, 32, "it gives up at the first damage, after the header");
    assert!(gave_up[0].detail.contains(&format!("{} bytes to the end of the file were not read", bytes.len() - 32)));
    assert!(capture.frames().is_empty());
}

#[test]
fn unknown_record_types_are_skipped_by_length_and_reported() {
    let bytes = sgpt_format::fixtures::all().into_iter().find(|f| f.name == "unknown_record.sgpt").unwrap().bytes;
    let capture = Capture::open(&bytes).unwrap();
    assert!(capture.used_directory());
    let unknown: Vec<_> = capture.defects().iter().filter(|d| d.kind == DefectKind::UnknownRecord).collect();
    assert_eq!(unknown.len(), 1);
    assert!(unknown[0].detail.contains("XTRA"), "{}", unknown[0].detail);
    assert_eq!(capture.frames().len(), 16);
    assert!(capture.frame(15).is_ok());
}

#[test]
fn a_newer_min_reader_version_is_refused_with_both_versions_named() {
    let bytes = sgpt_format::fixtures::all().into_iter().find(|f| f.name == "newer_version.sgpt").unwrap().bytes;
    let error = Capture::open(&bytes).unwrap_err();
    assert_eq!(error, OpenError::NeedsNewerReader { required: 2, supported: 1 });
    assert!(error.to_string().contains("needs a newer reader"));
}

/// Every fixture this crate generates, and the committed memory fixtures it cannot (their
/// MEMO records come from the ledger, or were made by hand and frozen).
fn generated_and_memory_fixtures() -> Vec<Vec<u8>> {
    let mut fixtures: Vec<Vec<u8>> = sgpt_format::fixtures::all().into_iter().map(|f| f.bytes).collect();
    for name in ["memory.sgpt", "memory_activity_loss.sgpt", "memory_ledger.sgpt", "memory_ledger_activity.sgpt"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
        fixtures.push(std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display())));
    }
    fixtures
}

/// Mutations the smoke run makes: 4,000, or `SGPT_MUTATIONS`. For a longer hunt on the
/// stable toolchain, many more with checksums off, so that they reach the decoders as
/// cargo-fuzz's do: `SGPT_MUTATIONS=300000 RUSTFLAGS="--cfg fuzzing" cargo test --release
/// -p sgpt-format --test reliability fuzz_target` (in a target folder of its own).
fn mutations() -> u64 {
    std::env::var("SGPT_MUTATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(4_000)
}

#[test]
fn fuzz_target_smoke_over_fixtures_and_seeded_mutations() {
    let mut rng = Rng::new(42);
    let seeds = generated_and_memory_fixtures();
    for seed in &seeds {
        sgpt_format::fuzz::open_and_walk(seed);
    }
    for _ in 0..mutations() {
        let mut data = seeds[rng.below(seeds.len() as u64) as usize].clone();
        for _ in 0..1 + rng.below(6) {
            if data.is_empty() {
                break;
            }
            let at = rng.below(data.len() as u64) as usize;
            match rng.below(5) {
                0 => data[at] ^= 1 << rng.below(8),
                1 => data[at] = rng.below(256) as u8,
                2 => data.truncate(at),
                3 => {
                    let insert: Vec<u8> = (0..rng.below(32)).map(|_| rng.below(256) as u8).collect();
                    data.splice(at..at, insert);
                }
                _ => {
                    let end = (at + 1 + rng.below(64) as usize).min(data.len());
                    data.drain(at..end);
                }
            }
        }
        sgpt_format::fuzz::open_and_walk(&data);
    }
}

#[test]
fn opening_in_steps_of_any_size_finds_exactly_what_one_open_finds() {
    // Splitting the work differently changes nothing (as an incremental
    // parse, png's buf_independent).
    let mut inputs = generated_and_memory_fixtures();
    let mut rng = Rng::new(77);
    let base = known(Level::Structure, 10, 12).bytes;
    for _ in 0..300 {
        let mut bytes = base.clone();
        let at = 32 + rng.below((bytes.len() - 40) as u64) as usize;
        match rng.below(3) {
            0 => bytes[at] ^= 1 + rng.below(255) as u8,
            1 => bytes.truncate(at),
            _ => {
                bytes.drain(at..at + 1 + rng.below(6) as usize);
            }
        }
        inputs.push(bytes);
    }
    for (index, bytes) in inputs.iter().enumerate() {
        let Ok(whole) = Capture::open(bytes) else { continue };
        for step in [1, 7, 100, 4096] {
            let mut opener = sgpt_format::Opener::new(bytes).unwrap();
            let mut last = 0;
            while !opener.step(step) {
                let (done, total) = opener.progress();
                assert!(done > last && done <= total, "input {index}: progress must advance");
                last = done;
            }
            let stepped = opener.finish();
            assert_eq!(stepped.frames(), whole.frames(), "input {index}, step {step}");
            assert_eq!(stepped.defects(), whole.defects(), "input {index}, step {step}");
            assert_eq!(stepped.records(), whole.records(), "input {index}, step {step}");
            assert_eq!(stepped.topology_count(), whole.topology_count());
            assert_eq!(stepped.notes(), whole.notes());
            assert_eq!(stepped.meta(), whole.meta());
        }
    }
}
