//! Every committed fixture of every released format version opens, forever, with the
//! exact outcome recorded here. A reader change that alters any of these is a break.

use std::path::PathBuf;

use sgpt_format::{
    Capture, CounterUnit, Declaration, DefectKind, DomainCounters, FourCc, Lifetime, MemoryEventKind, MemoryLoss,
    MemoryLossReason, MemoryMode, Note, OpenError, Writer, parse_memory_gauge, parse_provider_gauge,
};

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
    Expect { name: "memory_activity_loss.sgpt", frames: 8, closed: true, defects: &[] },
    // Written by the real ledger; `recorder/tests/memory_fixtures.rs` checks what they hold.
    Expect { name: "memory_ledger.sgpt", frames: 8, closed: true, defects: &[] },
    Expect { name: "memory_ledger_activity.sgpt", frames: 8, closed: true, defects: &[] },
    // One per case SGPT_FORMAT.md §7.1 and §7.2 settle; `defect_fixtures.rs` pins each
    // offset. All but the trailing-bytes one are unclosed, so a scan reads the damage.
    Expect { name: "defect_field_cut_short.sgpt", frames: 1, closed: false, defects: &[NC, M, M] },
    Expect { name: "defect_pass_ref_out_of_range.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_code_parameter.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_kind_run_value.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_run_lengths_overflow.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_run_lengths_short.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_bit_stream_past_end.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_bit_stream_zero_run.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_invalid_utf8.sgpt", frames: 0, closed: false, defects: &[NC, M] },
    Expect { name: "defect_meta_json.sgpt", frames: 0, closed: false, defects: &[NC, M, M, M, M, M] },
    Expect {
        name: "defect_directory_trailing_bytes.sgpt",
        frames: 1,
        closed: true,
        defects: &[DefectKind::DirectoryInvalid, DefectKind::Corrupt],
    },
    Expect {
        name: "defect_symbol_gap_block_fails.sgpt",
        frames: 0,
        closed: false,
        defects: &[NC, M, DefectKind::MissingReference],
    },
    Expect { name: "defect_span_count_bound.sgpt", frames: 2, closed: false, defects: &[NC, M] },
    Expect { name: "defect_v32_out_of_range.sgpt", frames: 0, closed: false, defects: &[NC, M] },
    Expect { name: "defect_count_over_bytes_left.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_culled_bit_count.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "defect_base_vertex.sgpt", frames: 1, closed: false, defects: &[NC, M] },
    Expect { name: "inverted_spans.sgpt", frames: 1, closed: true, defects: &[] },
];

const NC: DefectKind = DefectKind::NotClosed;
const M: DefectKind = DefectKind::Malformed;

/// Fixtures built on `sgpt_format::synth`, whose workload has changed since v1 was
/// committed (each pass's typical duration is now keyed by its label): their generators no
/// longer reproduce them, and the committed files stay the record of v1.
const DRAWN_FROM_AN_OLDER_SYNTH: &[&str] = &[
    "level_timing.sgpt",
    "level_structure.sgpt",
    "level_workload.sgpt",
    "level_verbose.sgpt",
    "truncated.sgpt",
    "corrupted.sgpt",
    "never_closed.sgpt",
    "unknown_record.sgpt",
    "zero_durations.sgpt",
    "dropped_spans.sgpt",
];

#[test]
fn every_other_generator_still_writes_its_committed_fixture_byte_for_byte() {
    let mut compared = 0;
    for fixture_def in sgpt_format::fixtures::all() {
        // Read first: every generated fixture must be committed.
        let committed = fixture("v1", fixture_def.name);
        if DRAWN_FROM_AN_OLDER_SYNTH.contains(&fixture_def.name) {
            continue;
        }
        compared += 1;
        assert!(
            committed == fixture_def.bytes,
            "{}: the generator no longer writes the committed bytes; the writer or the generator changed",
            fixture_def.name
        );
    }
    assert_eq!(compared, 21, "minimal, html_labels, newer_version, inverted_spans and the 17 defect_ fixtures");
}

/// Hand-made records of v1 whose generator is gone: no real recorder writes their values
/// (a capture from seq 100, thread 0, a refused allocation with an address), so the
/// ledger cannot reproduce them, and the files are kept as they were committed.
const FROZEN_MEMORY_RECORDS: [&str; 2] = ["memory.sgpt", "memory_activity_loss.sgpt"];

/// `capture` written again through [`Writer`], record by record in file order, from what
/// the reader decoded. Handles the records the frozen fixtures hold: one META, TOPOs,
/// at most one DECL (of counters), frames, NOTEs, MEMOs and the directory.
fn rewrite(capture: &Capture) -> Vec<u8> {
    let mut order: Vec<(u64, Option<FourCc>)> = capture.records().iter().map(|r| (r.offset, Some(r.kind))).collect();
    order.extend(capture.frames().iter().map(|f| (f.offset, None)));
    order.sort_by_key(|&(offset, _)| offset);
    let meta = capture.meta().expect("a META record");
    let mut writer = Writer::new(Vec::new(), meta).expect("META");
    let (mut topologies, mut frames, mut notes, mut memos, mut decls) = (0, 0, 0, 0, 0);
    for (_, kind) in order {
        match kind {
            None => {
                writer.frame(&capture.frame(frames).expect("frame decodes")).expect("FRAM");
                frames += 1;
            }
            Some(FourCc::META | FourCc::DIRE) => {}
            Some(FourCc::TOPO) => {
                writer.topology(capture.topology(topologies).expect("topology")).expect("TOPO");
                topologies += 1;
            }
            Some(FourCc::DECL) => {
                decls += 1;
                assert_eq!(decls, 1, "one DECL: the reader merges declarations, so only one can be rebuilt");
                let counters: Vec<Declaration> = capture.counters().cloned().map(Declaration::Counter).collect();
                writer.declare(&counters).expect("DECL");
            }
            Some(FourCc::NOTE) => {
                writer.note(&capture.notes()[notes]).expect("NOTE");
                notes += 1;
            }
            Some(FourCc::MEMO) => {
                writer.memory(&capture.memory_records()[memos]).expect("MEMO");
                memos += 1;
            }
            Some(other) => panic!("{other} is not rebuilt here"),
        }
    }
    writer.finish().expect("DIRE")
}

#[test]
fn the_frozen_memory_records_are_what_the_writer_still_writes_from_their_decoded_records() {
    for name in FROZEN_MEMORY_RECORDS {
        let committed = fixture("v1", name);
        let capture = Capture::open(&committed).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert!(capture.is_intact(), "{name}: {:?}", capture.verify());
        // Every record, MEMO, frames with their gauges, declarations and directory alike:
        // a writer change, or a decoder that drops a field, shows as a byte that differs.
        let rewritten = rewrite(&capture);
        let first_difference = committed.iter().zip(&rewritten).position(|(a, b)| a != b);
        assert!(
            committed == rewritten,
            "{name}: rewritten from its records, it differs at byte {first_difference:?} (lengths {} and {})",
            committed.len(),
            rewritten.len()
        );
    }
}

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
    assert_eq!(record.mode, MemoryMode::Complete);
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

#[test]
fn the_activity_loss_fixture_reports_what_it_lost_and_invents_nothing() {
    let bytes = fixture("v1", "memory_activity_loss.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    assert!(capture.is_intact(), "{:?}", capture.verify());
    let numbers: Vec<u64> = capture.frames().iter().map(|f| f.frame_number).collect();
    assert_eq!(numbers, (300..308).collect::<Vec<_>>());

    let [record] = capture.memory_records() else { panic!("one MEMO record") };
    assert_eq!(record.mode, MemoryMode::Activity);
    assert_eq!((record.capture_id, record.epoch, record.begin_seq, record.end_seq), (2, 2, 6, 18));
    // The journal holds operations 6 to 13 only: the lost ones are not made up.
    let journal: Vec<(u64, MemoryEventKind)> = record.events.iter().map(|e| (e.seq, e.kind)).collect();
    use MemoryEventKind::{Alloc, Free, UnknownFree};
    assert_eq!(
        journal,
        [
            (6, Alloc),
            (7, UnknownFree),
            (8, Alloc),
            (9, Free),
            (10, Alloc),
            (11, UnknownFree),
            (12, UnknownFree),
            (13, Alloc)
        ]
    );
    // Blocks from before the capture get no lifetime and no site.
    for event in &record.events {
        assert_eq!(event.lifetime.is_none(), event.kind == UnknownFree, "{event:?}");
        if event.kind == UnknownFree {
            assert_eq!(event.site, 0);
        }
    }
    let unknown: Vec<(u32, u64)> =
        record.events.iter().filter(|e| e.kind == UnknownFree).map(|e| (e.domain, e.size)).collect();
    assert_eq!(unknown, [(1, 2048), (2, 512), (3, 8192)]);

    let health = &record.health;
    assert!(!health.is_complete());
    assert_eq!(
        health.journal_loss,
        Some(MemoryLoss { reason: MemoryLossReason::JournalFull, first_lost_seq: 14, domain: 3, count: 4 })
    );
    assert_eq!((health.table_loss, health.recursion), (None, None));
    assert_eq!((health.unknown_baseline_frees, health.ownership_errors), (3, 0));

    // Checkpoints: (name, boundary, live set exact, journal complete, valid per domain).
    let checkpoints: Vec<(&str, u64, bool, bool, Vec<bool>)> = record
        .checkpoints
        .iter()
        .map(|c| {
            let valid = c.domains.iter().map(|d| d.valid).collect();
            (c.name.as_str(), c.boundary_seq, c.table_exact, c.history_complete, valid)
        })
        .collect();
    assert_eq!(
        checkpoints,
        [
            ("level loaded", 12, true, true, vec![true, true, true]),
            ("wave 1", 14, true, true, vec![true, true, false]),
            ("end", 18, true, false, vec![true, true, false]),
        ]
    );
    let end = &record.checkpoints[2];
    assert_eq!(
        end.domains[2],
        DomainCounters {
            domain: 3,
            live_bytes: 0,
            live_blocks: 0,
            peak_bytes: 128,
            allocated_bytes: 256,
            freed_bytes: 8448,
            allocations: 3,
            frees: 4,
            failures: 0,
            valid: false,
        }
    );
    // The live table kept following after the journal filled: lifetime 6 was allocated
    // by operation 16, which has no journal event.
    let live: Vec<(Lifetime, u64, u64)> = end.live.iter().map(|b| (b.lifetime, b.alloc_seq, b.size)).collect();
    let lifetime = |seq| Lifetime { epoch: 2, seq };
    assert_eq!(live, [(lifetime(3), 10, 4096), (lifetime(4), 13, 256), (lifetime(6), 16, 1024)]);
    let diff = record.diff(1, 2).unwrap();
    assert!(diff.exact);
    assert_eq!(diff.released.iter().map(|b| b.lifetime).collect::<Vec<_>>(), [lifetime(1)]);
    assert_eq!(diff.new_live.iter().map(|b| b.lifetime).collect::<Vec<_>>(), [lifetime(6)]);

    // Gauges, frame by frame.
    let gauge = |name: &str| capture.counters().find(|c| c.name == name).unwrap_or_else(|| panic!("{name}")).id;
    let providers: Vec<&str> = capture.counters().filter_map(|c| parse_provider_gauge(&c.name)).collect();
    assert_eq!(providers, ["gpu.declared_bytes", "wasm.linear_memory", "wgpu.buffer_memory"]);
    assert_eq!(capture.counters().filter(|c| parse_memory_gauge(&c.name).is_some()).count(), 27);
    let wgpu = gauge("provider/wgpu.buffer_memory");
    assert_eq!(capture.counter(wgpu).unwrap().unit, CounterUnit::Bytes);
    let series = |id: u32| -> Vec<Option<f64>> {
        (0..capture.frames().len())
            .map(|index| {
                let frame = capture.frame(index).unwrap();
                frame.counters.iter().find(|s| s.counter == id).map(|s| s.value)
            })
            .collect()
    };
    let every = |value: f64| vec![Some(value); 8];
    assert_eq!(series(gauge("memory/scratch/valid")), [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0].map(Some));
    assert_eq!(series(gauge("memory/scene/valid")), every(1.0));
    let declared: u64 = capture.topology(0).unwrap().resources.iter().map(|r| r.declared_bytes).sum();
    assert_eq!(declared, 8_421_376);
    assert_eq!(series(gauge("provider/gpu.declared_bytes")), every(8_421_376.0));
    let mib = |n: f64| Some(n * 1_048_576.0);
    assert_eq!(
        series(gauge("provider/wasm.linear_memory")),
        [mib(18.0), mib(18.0), mib(18.0), mib(19.0), mib(19.0), mib(19.0), mib(20.0), mib(20.0)]
    );
    // Never sampled: unavailable in every frame, not 0.
    assert_eq!(series(wgpu), vec![None; 8]);
    assert_eq!(
        capture.notes(),
        [Note {
            frame_number: 300,
            text: "provider wgpu.buffer_memory unavailable: the browser's WebGPU exposes no internal counters".into(),
        }]
    );
}
