//! The memory fixtures the real ledger writes (`fixtures/v1/memory_ledger*.sgpt`):
//! regenerated, they are the committed bytes, and the committed files hold what
//! `fixtures/README.md` says they hold.

use std::path::PathBuf;

use sgpt_format::{
    Capture, DomainCounters, Lifetime, MEMORY_GAUGE_FIELDS, MemoryEventKind, MemoryExpectation, MemoryLoss,
    MemoryLossReason, MemoryMode, MemoryRecord, Note, memory_gauge_name, parse_provider_gauge,
};

fn committed(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn the_ledger_still_writes_both_committed_memory_fixtures_byte_for_byte() {
    // One generation, on this test's thread only: site ids and thread numbers are
    // process-wide, so the other tests here read the committed files instead.
    let generated = sgpt_recorder::memory_fixtures::all();
    let names: Vec<&str> = generated.iter().map(|fixture| fixture.name).collect();
    assert_eq!(names, ["memory_ledger.sgpt", "memory_ledger_activity.sgpt"]);
    for fixture in generated {
        let committed = committed(fixture.name);
        let first_difference = committed.iter().zip(&fixture.bytes).position(|(a, b)| a != b);
        assert!(
            committed == fixture.bytes,
            "{}: the ledger, memory_record or the writer changed: differs at byte {first_difference:?} (lengths {} and {})",
            fixture.name,
            committed.len(),
            fixture.bytes.len()
        );
    }
}

/// The one MEMO record of an intact capture.
fn record<'a>(capture: &'a Capture<'_>) -> &'a MemoryRecord {
    assert!(capture.is_intact(), "{:?}", capture.verify());
    let [record] = capture.memory_records() else { panic!("one MEMO record") };
    record
}

/// Counter `name`'s value in every frame; `None` where the frame has no sample.
fn series(capture: &Capture<'_>, name: &str) -> Vec<Option<f64>> {
    let id = capture.counters().find(|c| c.name == name).unwrap_or_else(|| panic!("no counter {name}")).id;
    (0..capture.frames().len())
        .map(|index| {
            let frame = capture.frame(index).expect("frame decodes");
            frame.counters.iter().find(|s| s.counter == id).map(|s| s.value)
        })
        .collect()
}

/// The gauges are the session's: every field of every domain the ledger registered,
/// `unknown` first, named through `memory_gauge_name`, from id 0.
fn assert_gauges_name_the_ledgers_domains(capture: &Capture<'_>) {
    let expected: Vec<String> = ["unknown", "scene", "particles", "scratch"]
        .iter()
        .flat_map(|domain| MEMORY_GAUGE_FIELDS.iter().map(move |(field, _)| memory_gauge_name(domain, field)))
        .collect();
    let gauges: Vec<String> = capture.counters().take(expected.len()).map(|c| c.name.clone()).collect();
    assert_eq!(gauges, expected);
}

/// Each domain's gauges in the last frame, as [`DomainCounters`], beside `domain`'s id.
fn last_frame_gauges(capture: &Capture<'_>, domain: &str, id: u32) -> DomainCounters {
    let value = |field: &str| {
        let values = series(capture, &memory_gauge_name(domain, field));
        values.last().copied().flatten().expect("sampled in the last frame") as u64
    };
    DomainCounters {
        domain: id,
        live_bytes: value("live_bytes"),
        live_blocks: value("live_blocks"),
        peak_bytes: value("peak_bytes"),
        allocated_bytes: value("allocated_bytes"),
        freed_bytes: value("freed_bytes"),
        allocations: value("allocations"),
        frees: value("frees"),
        failures: value("failures"),
        valid: value("valid") == 1,
    }
}

#[test]
fn the_complete_fixture_holds_the_scene_reload_its_checkpoints_and_the_refused_allocation() {
    let bytes = committed("memory_ledger.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let numbers: Vec<u64> = capture.frames().iter().map(|f| f.frame_number).collect();
    assert_eq!(numbers, (0..8).collect::<Vec<_>>());
    let record = record(&capture);
    assert_eq!(record.mode, MemoryMode::Complete);
    assert!(record.health.is_complete(), "{:?}", record.health);
    assert_eq!((record.capture_id, record.epoch, record.begin_seq, record.end_seq), (1, 1, 1, 14));
    let domains: Vec<(u32, &str)> = record.domains.iter().map(|d| (d.id, d.name.as_str())).collect();
    assert_eq!(domains, [(1, "scene"), (2, "particles"), (3, "scratch")]);

    // Every operation is in the journal, each on the thread that made it; the refused
    // allocation has no block, so no address and no lifetime.
    assert_eq!(record.events.len(), 13);
    assert!(record.events.iter().all(|e| e.thread != 0), "{:?}", record.events);
    let [failure] = &record.events.iter().filter(|e| e.kind == MemoryEventKind::Failure).collect::<Vec<_>>()[..] else {
        panic!("one refused allocation")
    };
    assert_eq!((failure.seq, failure.domain, failure.size, failure.address), (9, 3, 1 << 40, 0));
    assert_eq!(failure.lifetime, None);

    let checkpoints: Vec<(&str, MemoryExpectation, u64)> =
        record.checkpoints.iter().map(|c| (c.name.as_str(), c.expectation, c.boundary_seq)).collect();
    assert_eq!(
        checkpoints,
        [
            ("loaded", MemoryExpectation::Retained, 4),
            ("unloaded", MemoryExpectation::Released, 9),
            ("reloaded", MemoryExpectation::Unspecified, 14),
            ("end", MemoryExpectation::Unspecified, 14),
        ]
    );
    assert!(record.checkpoints.iter().all(|c| c.table_exact && c.history_complete));

    let lifetime = |seq| Lifetime { epoch: 1, seq };
    let sizes = |blocks: &[sgpt_format::MemoryBlock]| blocks.iter().map(|b| b.size).collect::<Vec<_>>();
    // Unloading released the scene; the particles that grew meanwhile break "released".
    let unload = record.diff(0, 1).expect("diff");
    assert!(unload.exact);
    assert_eq!(sizes(&unload.released), [4096, 1024]);
    assert_eq!(sizes(&unload.new_live), [512]);
    assert_eq!(unload.survivors.iter().map(|s| s.block.lifetime).collect::<Vec<_>>(), [lifetime(3)]);
    assert!(unload.expectation_violated);
    // The reload's first block sits at the address the first load used, and is a new
    // block: across the reload it is released and new live, never a survivor.
    let across = record.diff(0, 2).expect("diff");
    let (first, again) = (&across.released[0], &across.new_live[1]);
    assert_eq!((first.address, first.size), (again.address, again.size));
    assert_ne!(first.lifetime, again.lifetime);
    assert_eq!(sizes(&across.new_live), [512, 4096, 1024]);
    assert_eq!(across.survivors.iter().map(|s| s.block.lifetime).collect::<Vec<_>>(), [lifetime(3)]);
    assert!(!across.expectation_violated, "reloaded expects nothing");

    // Gauges, frame by frame, from the same ledger: the scene unloads in frame 2 and
    // reloads in frame 4; scratch's refusal is counted from frame 3.
    assert_gauges_name_the_ledgers_domains(&capture);
    let scene = [5120.0, 5120.0, 0.0, 0.0, 5120.0, 5120.0, 5120.0, 5120.0];
    assert_eq!(series(&capture, "memory/scene/live_bytes"), scene.map(Some));
    let refused = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    assert_eq!(series(&capture, "memory/scratch/failures"), refused.map(Some));
    // Nothing happens after frame 7: its gauges are the terminal checkpoint's counters.
    let end = &record.checkpoints[3];
    for (domain, counters) in record.domains.iter().zip(&end.domains) {
        assert_eq!(last_frame_gauges(&capture, &domain.name, domain.id), *counters, "{}", domain.name);
    }
}

#[test]
fn the_activity_fixture_began_late_lost_its_journal_tail_and_invents_nothing() {
    let bytes = committed("memory_ledger_activity.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    let numbers: Vec<u64> = capture.frames().iter().map(|f| f.frame_number).collect();
    assert_eq!(numbers, (300..308).collect::<Vec<_>>());
    let record = record(&capture);
    assert_eq!(record.mode, MemoryMode::Activity);
    assert_eq!((record.begin_seq, record.end_seq), (1, 13));

    // The journal held 8 events: operations 9 to 12 are lost, and not made up.
    use MemoryEventKind::{Alloc, Free, UnknownFree};
    let journal: Vec<(u64, MemoryEventKind)> = record.events.iter().map(|e| (e.seq, e.kind)).collect();
    assert_eq!(
        journal,
        [
            (1, Alloc),
            (2, UnknownFree),
            (3, Alloc),
            (4, Free),
            (5, Alloc),
            (6, UnknownFree),
            (7, UnknownFree),
            (8, Alloc)
        ]
    );
    let health = &record.health;
    assert!(!health.is_complete());
    assert_eq!(
        health.journal_loss,
        Some(MemoryLoss { reason: MemoryLossReason::JournalFull, first_lost_seq: 9, domain: 3, count: 4 })
    );
    assert_eq!((health.table_loss, health.recursion, health.ownership_errors), (None, None, 0));

    // Blocks allocated before the capture: their frees have no lifetime and no site, and
    // are charged where the application said (the last one to scratch, wrongly).
    assert_eq!(health.unknown_baseline_frees, 3);
    let unknown: Vec<(u32, u64, u32, Option<Lifetime>)> = record
        .events
        .iter()
        .filter(|e| e.kind == UnknownFree)
        .map(|e| (e.domain, e.size, e.site, e.lifetime))
        .collect();
    assert_eq!(unknown, [(1, 2048, 0, None), (2, 512, 0, None), (3, 8192, 0, None)]);

    // (name, boundary, history complete, valid per domain): scratch underflowed at 7.
    let checkpoints: Vec<(&str, u64, bool, Vec<bool>)> = record
        .checkpoints
        .iter()
        .map(|c| (c.name.as_str(), c.boundary_seq, c.history_complete, c.domains.iter().map(|d| d.valid).collect()))
        .collect();
    assert_eq!(
        checkpoints,
        [
            ("level loaded", 7, true, vec![true, true, true]),
            ("wave 1", 9, true, vec![true, true, false]),
            ("end", 13, false, vec![true, true, false]),
        ]
    );
    let end = &record.checkpoints[2];
    // Saturated: clamped at 0 rather than wrapped, and invalid from then on.
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
    // by operation 11, which has no journal event.
    let lifetime = |seq| Lifetime { epoch: record.epoch, seq };
    let live: Vec<(Lifetime, u64, u64)> = end.live.iter().map(|b| (b.lifetime, b.alloc_seq, b.size)).collect();
    assert_eq!(live, [(lifetime(3), 5, 4096), (lifetime(4), 8, 256), (lifetime(6), 11, 1024)]);
    assert!(end.table_exact);
    let diff = record.diff(1, 2).expect("diff");
    assert!(diff.exact, "the live sets are exact though the history is not");
    assert_eq!(diff.released.iter().map(|b| b.lifetime).collect::<Vec<_>>(), [lifetime(1)]);
    assert_eq!(diff.new_live.iter().map(|b| b.lifetime).collect::<Vec<_>>(), [lifetime(6)]);

    // Gauges: scratch's valid falls in frame 302, with the free charged to it.
    assert_gauges_name_the_ledgers_domains(&capture);
    let every = |value: f64| vec![Some(value); 8];
    assert_eq!(series(&capture, "memory/scratch/valid"), [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0].map(Some));
    assert_eq!(series(&capture, "memory/scene/valid"), every(1.0));
    for (domain, counters) in record.domains.iter().zip(&end.domains) {
        assert_eq!(last_frame_gauges(&capture, &domain.name, domain.id), *counters, "{}", domain.name);
    }

    // Providers after the gauges: the topology's declared bytes every frame, and the
    // linear memory natively unavailable: never sampled, said once in a note.
    let providers: Vec<&str> = capture.counters().filter_map(|c| parse_provider_gauge(&c.name)).collect();
    assert_eq!(providers, ["gpu.declared_bytes", "wasm.linear_memory"]);
    let declared: u64 = capture.topology(0).expect("topology").resources.iter().map(|r| r.declared_bytes).sum();
    assert_eq!(series(&capture, "provider/gpu.declared_bytes"), every(declared as f64));
    assert_eq!(series(&capture, "provider/wasm.linear_memory"), vec![None; 8]);
    assert_eq!(
        capture.notes(),
        [Note { frame_number: 300, text: "provider wasm.linear_memory unavailable: not a wasm32 build".into() }]
    );
}
