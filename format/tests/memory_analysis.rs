//! The shared memory analysis, against the memory fixture (three domains, eight frames of
//! gauges, one complete record with the checkpoints loaded, unloaded and end) and against
//! synthetic captures written here.

use sgpt_format::memory_analysis::{
    DomainRow, DomainSource, FrameSampler, GaugeScan, Gauges, HealthTotals, ProviderSummary, ReconciliationStatus,
    RecordLoss, SiteTraffic, SizeBucket, checkpoint_diffs, domain_table, health_totals, losses, reconcile,
    site_ranking, size_distribution,
};
use sgpt_format::{
    Capture, CounterDef, CounterSample, CounterUnit, Declaration, DomainCounters, Frame, Level, Lifetime, MemoryBlock,
    MemoryCheckpoint, MemoryEvent, MemoryEventKind, MemoryExpectation, MemoryHealth, MemoryLoss, MemoryLossReason,
    MemoryMode, MemoryRecord, MemoryRecursionLoss, Meta, Note, Topology, Writer,
};

fn fixture() -> Vec<u8> {
    // A frozen v1 record, no longer generated: read as committed.
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/memory.sgpt")).expect("memory fixture")
}

#[expect(clippy::too_many_arguments, reason = "one table row, in the table's column order")]
fn row(
    name: &str,
    live: u64,
    blocks: u64,
    peak: u64,
    allocated: u64,
    freed: u64,
    allocations: u64,
    frees: u64,
    failures: u64,
) -> DomainRow {
    DomainRow {
        name: name.into(),
        live_bytes: Some(live),
        live_blocks: Some(blocks),
        peak_bytes: Some(peak),
        allocated_bytes: Some(allocated),
        freed_bytes: Some(freed),
        allocations: Some(allocations),
        frees: Some(frees),
        failures: Some(failures),
        valid: Some(true),
    }
}

fn fixture_rows() -> Vec<DomainRow> {
    vec![
        row("scene", 5120, 2, 5120, 10240, 5120, 4, 2, 0),
        row("particles", 768, 2, 768, 768, 0, 2, 0, 0),
        row("scratch", 0, 0, 64, 64, 64, 1, 1, 1),
    ]
}

#[test]
fn the_domain_table_comes_from_the_last_records_terminal_checkpoint() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let table = domain_table(capture.memory_records(), None);
    assert_eq!(table.source, Some(DomainSource::MemoryRecord));
    assert_eq!(table.rows, fixture_rows());
    assert_eq!(DomainSource::MemoryRecord.as_str(), "memory_record");
}

#[test]
fn gauges_give_the_same_table_from_the_last_frame_and_series_per_frame() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let gauges = Gauges::read(&capture, FrameSampler::all(8), true);
    assert_eq!((gauges.frames_read, gauges.undecoded), (8, 0));
    // Without the record, the gauges' last readings are the terminal checkpoint's counters.
    let table = domain_table(&[], Some(&gauges));
    assert_eq!(table.source, Some(DomainSource::Gauges));
    assert_eq!(table.rows, fixture_rows());
    let live = |d: usize| gauges.domains[d].live_bytes.iter().map(|v| v.unwrap()).collect::<Vec<_>>();
    assert_eq!(live(0), [4096, 5120, 0, 0, 0, 4096, 5120, 5120]);
    assert_eq!(live(1), [0, 256, 256, 256, 256, 256, 256, 768]);
    assert_eq!(live(2), [0; 8]);
    assert_eq!(gauges.domains[0].peak_bytes, [4096, 5120, 5120, 5120, 5120, 5120, 5120, 5120].map(Some));
    assert_eq!(gauges.domains[2].peak_bytes, [0, 0, 0, 64, 64, 64, 64, 64].map(Some));
    assert!(gauges.providers.is_empty());

    // Without series, the same last readings and no per-frame points.
    let lean = Gauges::read(&capture, FrameSampler::all(8), false);
    assert_eq!(lean.domain_rows(), fixture_rows());
    assert!(lean.domains.iter().all(|d| d.live_bytes.is_empty() && d.peak_bytes.is_empty()));
}

#[test]
fn the_sampler_spaces_frames_evenly_and_always_ends_with_the_last() {
    let frames = |sampler: FrameSampler| sampler.iter().collect::<Vec<_>>();
    assert_eq!(frames(FrameSampler::at_most(8, 2048)), (0..8).collect::<Vec<_>>());
    assert_eq!(frames(FrameSampler::at_most(10, 4)), [0, 3, 6, 9]);
    assert_eq!(frames(FrameSampler::at_most(11, 4)), [0, 3, 6, 9, 10]);
    assert_eq!(FrameSampler::at_most(11, 4).stride(), 3);
    assert_eq!(frames(FrameSampler::at_most(0, 4)), Vec::<usize>::new());
    assert!(FrameSampler::all(0).is_empty());
    for total in [2048, 2049, 216_000, 1_000_003] {
        let sampler = FrameSampler::at_most(total, 2048);
        let sampled = frames(sampler);
        assert_eq!(sampled.len(), sampler.len());
        assert!(sampled.len() <= 2049, "{total}: {}", sampled.len());
        assert_eq!(sampled.last(), Some(&(total - 1)));
        assert!(sampled.windows(2).all(|pair| pair[0] < pair[1]));
    }
    // The nearest sampled frame, the earlier on a tie, clamped to the capture.
    let sampler = FrameSampler::at_most(11, 4);
    let nearest = |index| sampler.nearest(index).and_then(|p| sampler.frame(p));
    assert_eq!([0, 1, 2, 4, 5, 8, 10, 99].map(nearest), [0, 0, 3, 3, 6, 9, 10, 10].map(Some));
    assert_eq!(FrameSampler::all(0).nearest(0), None);
}

#[test]
fn a_sampled_scan_reads_only_its_frames_and_keeps_the_last_readings() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let sampler = FrameSampler::at_most(8, 3);
    assert_eq!(sampler.iter().collect::<Vec<_>>(), [0, 3, 6, 7]);
    let gauges = Gauges::read(&capture, sampler, true);
    assert_eq!(gauges.frames_read, 4);
    assert_eq!(gauges.domains[0].live_bytes, [4096, 0, 5120, 5120].map(Some));
    assert_eq!(gauges.domain_rows(), fixture_rows());
}

#[test]
fn a_scan_in_steps_reads_what_one_pass_reads() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let whole = Gauges::read(&capture, FrameSampler::all(8), true);
    for per_step in [1, 2, 3, 7] {
        let mut scan = GaugeScan::new(&capture, FrameSampler::all(8), true);
        assert!(!scan.is_empty() && scan.has_domains());
        let mut steps = 1;
        while !scan.step(&capture, per_step) {
            steps += 1;
            assert!(scan.progress() < 1.0);
        }
        assert_eq!(steps, 8usize.div_ceil(per_step), "{per_step} a step");
        assert_eq!(scan.finish(), whole, "{per_step} a step");
    }
}

#[test]
fn a_capture_without_memory_data_reads_no_frame_and_has_no_table() {
    let bytes = sgpt_format::fixtures::all().into_iter().find(|f| f.name == "level_timing.sgpt").unwrap().bytes;
    let capture = Capture::open(&bytes).unwrap();
    let mut scan = GaugeScan::new(&capture, FrameSampler::all(capture.frames().len()), true);
    assert!(scan.is_empty() && !scan.has_domains());
    assert!(scan.step(&capture, 1));
    let gauges = scan.finish();
    assert_eq!(gauges.frames_read, 0);
    assert_eq!(domain_table(capture.memory_records(), Some(&gauges)), Default::default());
    assert_eq!(reconcile(None).status, ReconciliationStatus::Unavailable);
}

#[test]
fn sites_rank_by_allocated_bytes_and_sizes_fall_in_power_of_two_buckets() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let records = capture.memory_records();
    let site = |id, name: &str, file: &str, line, column, traffic: [u64; 5]| SiteTraffic {
        id,
        name: name.into(),
        file: file.into(),
        line,
        column,
        allocations: traffic[0],
        allocated_bytes: traffic[1],
        frees: traffic[2],
        freed_bytes: traffic[3],
        failures: traffic[4],
    };
    assert_eq!(
        site_ranking(records),
        [
            site(1, "scene load", "demo/src/scene.rs", 42, 9, [4, 10240, 2, 5120, 0]),
            site(2, "", "demo/src/particles.rs", 17, 5, [2, 768, 0, 0, 0]),
            site(3, "scratch", "demo/src/frame.rs", 88, 13, [1, 64, 1, 64, 1]),
        ]
    );
    let bucket = |min_bytes, max_bytes, allocations, bytes| SizeBucket { min_bytes, max_bytes, allocations, bytes };
    assert_eq!(
        size_distribution(records),
        [
            bucket(64, 127, 1, 64),
            bucket(256, 511, 1, 256),
            bucket(512, 1023, 1, 512),
            bucket(1024, 2047, 2, 2048),
            bucket(4096, 8191, 2, 8192),
        ]
    );
    // Sizes 0 and 1 share the first bucket; the last bucket ends at u64::MAX.
    let record = MemoryRecord {
        events: [0, 1, u64::MAX]
            .map(|size| MemoryEvent { kind: MemoryEventKind::Alloc, size, ..MemoryEvent::default() })
            .to_vec(),
        ..MemoryRecord::default()
    };
    assert_eq!(
        size_distribution(std::slice::from_ref(&record)),
        [bucket(0, 1, 2, 1), bucket(1 << 63, u64::MAX, 1, u64::MAX)]
    );
}

#[test]
fn checkpoint_differences_match_blocks_by_lifetime_never_by_address() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let diffs = checkpoint_diffs(&capture.memory_records()[0]);
    let names: Vec<(&str, &str)> = diffs.iter().map(|d| (d.from_name.as_str(), d.to_name.as_str())).collect();
    assert_eq!(names, [("loaded", "unloaded"), ("unloaded", "end"), ("loaded", "end")]);
    let sizes = |d: &sgpt_format::memory_analysis::CheckpointDiff| {
        [d.new_live.len() as u64, d.new_live_bytes, d.released.len() as u64, d.released_bytes, d.survivor_bytes]
    };
    assert_eq!(sizes(&diffs[0]), [0, 0, 2, 5120, 256]);
    assert_eq!(sizes(&diffs[1]), [3, 5632, 0, 0, 256]);
    assert_eq!(sizes(&diffs[2]), [3, 5632, 2, 5120, 256]);
    assert_eq!(
        (diffs[0].expectation, diffs[0].exact, diffs[0].expectation_violated),
        (MemoryExpectation::Released, true, false)
    );
    assert_eq!((diffs[2].from, diffs[2].to, diffs[2].capture), (0, 2, 1));
    // Lifetime 5 reuses lifetime 1's address: 1 is released and 5 is new, not a survivor.
    let lifetimes = |blocks: &[MemoryBlock]| blocks.iter().map(|b| b.lifetime.seq).collect::<Vec<_>>();
    assert_eq!(lifetimes(&diffs[2].released), [1, 2]);
    assert_eq!(lifetimes(&diffs[2].new_live), [5, 6, 7]);
    assert_eq!(diffs[2].released[0].address, diffs[2].new_live[0].address);
    let survivor = &diffs[2].survivors[0];
    assert_eq!(
        (survivor.block.lifetime, survivor.age_ops, survivor.age_time),
        (Lifetime { epoch: 1, seq: 3 }, 9, 9000)
    );
    assert_eq!((diffs[0].survivors[0].age_ops, diffs[0].survivors[0].age_time), (6, 6000));
}

fn block(seq: u64, domain: u32, size: u64, alloc_seq: u64) -> MemoryBlock {
    MemoryBlock { lifetime: Lifetime { epoch: 1, seq }, domain, size, alloc_seq, ..MemoryBlock::default() }
}

#[test]
fn survivors_are_listed_oldest_first_and_a_released_expectation_with_new_blocks_is_violated() {
    let checkpoint = |name: &str, expectation, boundary_seq, live: Vec<MemoryBlock>| MemoryCheckpoint {
        name: name.into(),
        expectation,
        boundary_seq,
        table_exact: true,
        live,
        ..MemoryCheckpoint::default()
    };
    let record = MemoryRecord {
        checkpoints: vec![
            checkpoint("a", MemoryExpectation::Unspecified, 10, vec![block(1, 1, 8, 1), block(2, 1, 8, 5)]),
            checkpoint(
                "b",
                MemoryExpectation::Released,
                20,
                vec![block(1, 1, 8, 1), block(2, 1, 8, 5), block(9, 1, 3, 12)],
            ),
        ],
        ..MemoryRecord::default()
    };
    let [diff] = checkpoint_diffs(&record).try_into().unwrap();
    let ages: Vec<(u64, u64)> = diff.survivors.iter().map(|s| (s.block.lifetime.seq, s.age_ops)).collect();
    assert_eq!(ages, [(1, 19), (2, 15)]);
    assert!(diff.expectation_violated && diff.exact);
    assert_eq!((diff.new_live_bytes, diff.survivor_bytes), (3, 16));
    // One checkpoint alone has nothing to compare.
    let mut single = record;
    single.checkpoints.truncate(1);
    assert!(checkpoint_diffs(&single).is_empty());
}

#[test]
fn the_fixture_reconciles_exactly_per_domain() {
    let bytes = fixture();
    let capture = Capture::open(&bytes).unwrap();
    let reconciliation = reconcile(capture.memory_records().last());
    assert_eq!(reconciliation.status, ReconciliationStatus::Exact);
    assert_eq!(reconciliation.status.as_str(), "exact");
    assert_eq!(reconciliation.reason, None);
    let rows: Vec<(&str, u64, u64, Option<i128>)> = reconciliation
        .domains
        .iter()
        .map(|d| (d.domain.as_str(), d.counter_live_bytes, d.tracked_live_bytes, d.journal_net_bytes))
        .collect();
    assert_eq!(
        rows,
        [("scene", 5120, 5120, Some(5120)), ("particles", 768, 768, Some(768)), ("scratch", 0, 0, Some(0))]
    );
}

fn terminal_record(mode: MemoryMode, counter_live: u64, valid: bool, events: Vec<MemoryEvent>) -> MemoryRecord {
    MemoryRecord {
        mode,
        events,
        checkpoints: vec![MemoryCheckpoint {
            boundary_seq: 10,
            table_exact: true,
            history_complete: true,
            domains: vec![DomainCounters { domain: 1, live_bytes: counter_live, valid, ..DomainCounters::default() }],
            live: vec![block(2, 1, 100, 2)],
            ..MemoryCheckpoint::default()
        }],
        ..MemoryRecord::default()
    }
}

#[test]
fn reconciliation_is_bounded_in_activity_mode_and_names_a_mismatch() {
    let alloc =
        |seq, size| MemoryEvent { seq, kind: MemoryEventKind::Alloc, domain: 1, size, ..MemoryEvent::default() };
    let unknown_free =
        |seq, size| MemoryEvent { seq, kind: MemoryEventKind::UnknownFree, domain: 1, size, ..MemoryEvent::default() };
    // Activity mode: 300 B live by the counters, of which the recording saw 100 B allocated.
    let activity = terminal_record(MemoryMode::Activity, 300, true, vec![alloc(2, 100), unknown_free(3, 40)]);
    let reconciliation = reconcile(Some(&activity));
    assert_eq!(reconciliation.status, ReconciliationStatus::Bounded);
    let d = &reconciliation.domains[0];
    assert_eq!(
        (d.domain.as_str(), d.counter_live_bytes, d.tracked_live_bytes, d.journal_net_bytes),
        ("domain 1", 300, 100, Some(60))
    );
    assert_eq!(
        reconciliation.reason.as_deref(),
        Some("activity mode: blocks allocated before the capture began are not tracked")
    );
    // More tracked than counted is a mismatch, even in activity mode, and the reason names it.
    let over = reconcile(Some(&terminal_record(MemoryMode::Activity, 50, true, vec![])));
    assert_eq!(over.status, ReconciliationStatus::Mismatch);
    assert_eq!(over.reason.as_deref(), Some("domain domain 1: the live set holds 100 B but the counters only 50 B"));
    // Complete mode: counters, live set and journal must agree; events at or after the boundary do not count.
    let complete = terminal_record(MemoryMode::Complete, 100, true, vec![alloc(2, 100), alloc(10, 7)]);
    assert_eq!(reconcile(Some(&complete)).status, ReconciliationStatus::Exact);
    let short = reconcile(Some(&terminal_record(MemoryMode::Complete, 100, true, vec![alloc(2, 90)])));
    assert_eq!(short.status, ReconciliationStatus::Mismatch);
    assert_eq!(short.reason.as_deref(), Some("domain domain 1: counters 100 B live, live set 100 B, journal 90 B"));
    // Saturated counters are bounds, not a disagreement: unavailable, in either mode, saying why.
    for mode in [MemoryMode::Complete, MemoryMode::Activity] {
        let saturated = reconcile(Some(&terminal_record(mode, 100, false, vec![alloc(2, 100)])));
        assert_eq!(saturated.status, ReconciliationStatus::Unavailable);
        assert_eq!(
            saturated.reason.as_deref(),
            Some("the counters of domain domain 1 saturated: they are bounds at best")
        );
    }
    // Loss makes it unavailable; so does a record without a checkpoint.
    let mut lossy = complete.clone();
    lossy.health.recursion = Some(MemoryRecursionLoss { count: 1, domain: 1, after_seq: 4 });
    assert_eq!(reconcile(Some(&lossy)).status, ReconciliationStatus::Unavailable);
    assert_eq!(reconcile(Some(&MemoryRecord::default())).status.as_str(), "unavailable");
    // A journal that lost operations before the terminal checkpoint has no net to compare.
    let mut cut = complete;
    cut.checkpoints[0].history_complete = false;
    cut.health.journal_loss =
        Some(MemoryLoss { reason: MemoryLossReason::JournalFull, first_lost_seq: 5, domain: 1, count: 2 });
    let cut = reconcile(Some(&cut));
    assert_eq!(cut.status, ReconciliationStatus::Unavailable);
    assert_eq!(cut.domains[0].journal_net_bytes, None);
    assert_eq!(
        cut.reason.as_deref(),
        Some("capture 0 lost 2 operations from operation 5 (journal full): the interval after it is incomplete")
    );
}

#[test]
fn loss_is_listed_per_incomplete_record_and_health_counts_add_up() {
    let journal = MemoryLoss { reason: MemoryLossReason::JournalFull, first_lost_seq: 47, domain: 2, count: 13 };
    let records = [
        MemoryRecord {
            capture_id: 4,
            health: MemoryHealth { journal_loss: Some(journal), unknown_baseline_frees: 3, ..MemoryHealth::default() },
            ..MemoryRecord::default()
        },
        MemoryRecord {
            capture_id: 5,
            health: MemoryHealth { unknown_baseline_frees: 2, ownership_errors: 1, ..MemoryHealth::default() },
            ..MemoryRecord::default()
        },
    ];
    assert_eq!(losses(&records), [RecordLoss { capture: 4, journal: Some(journal), table: None, recursion: None }]);
    assert!(losses(&records[1..]).is_empty());
    assert_eq!(health_totals(&records), HealthTotals { unknown_baseline_frees: 5, ownership_errors: 1 });
}

/// Providers as a browser build writes them: linear memory and declared bytes sampled,
/// wgpu's counters declared but never sampled, one explained by a NOTE.
fn provider_capture() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("a valid synthetic capture");
    let topology = writer.topology(&Topology::default()).expect("a valid synthetic capture");
    let def = |id, name: &str, unit| Declaration::Counter(CounterDef { id, name: name.into(), unit });
    writer
        .declare(&[
            def(0, "provider/wasm.linear_memory", CounterUnit::Bytes),
            def(1, "provider/gpu.declared_bytes", CounterUnit::Bytes),
            def(2, "provider/wgpu.buffer_memory", CounterUnit::Bytes),
            def(3, "provider/wgpu.buffers", CounterUnit::Count),
            def(4, "memory/ui/live_bytes", CounterUnit::Bytes),
            def(5, "gpu_memory_usage", CounterUnit::Bytes),
            def(6, "provider/", CounterUnit::Bytes),
            // The same metric under a second id: one provider, a frame counted once.
            def(7, "provider/wasm.linear_memory", CounterUnit::Bytes),
        ])
        .expect("a valid synthetic capture");
    let frames: [&[(u32, f64)]; 3] = [
        &[(0, 65_536.0), (4, 100.0), (5, 1.0), (6, 9.0)],
        &[(0, 131_072.0), (1, 2048.0), (4, 300.0), (3, -5.0)],
        &[(0, 131_072.0), (1, 1024.0), (3, f64::NAN), (7, 98_304.0)],
    ];
    for (frame_number, samples) in frames.into_iter().enumerate() {
        let counters = samples.iter().map(|&(counter, value)| CounterSample { counter, value }).collect();
        writer
            .frame(&Frame { frame_number: frame_number as u64, topology, counters, ..Frame::default() })
            .expect("a valid synthetic capture");
        if frame_number == 0 {
            for text in [
                "provider wgpu.buffer_memory unavailable: the browser's WebGPU exposes no internal counters",
                "provider wgpu.buffer_memory unavailable: a later note",
                "provider wasm.linear_memory unavailable: contradicted by its samples",
                "hitch: something else",
            ] {
                writer.note(&Note { frame_number: 0, text: text.into() }).expect("a valid synthetic capture");
            }
        }
    }
    writer.finish().expect("a valid synthetic capture")
}

#[test]
fn a_provider_never_sampled_is_unavailable_with_its_reason_never_zero() {
    let bytes = provider_capture();
    let capture = Capture::open(&bytes).unwrap();
    let gauges = Gauges::read(&capture, FrameSampler::all(3), true);
    let provider = |name: &str, unit, samples, values: Option<[u64; 3]>, reason: Option<&str>| ProviderSummary {
        name: name.into(),
        unit,
        samples,
        last: values.map(|v| v[0]),
        min: values.map(|v| v[1]),
        max: values.map(|v| v[2]),
        reason: reason.map(str::to_owned),
    };
    assert_eq!(
        gauges.provider_summaries(),
        [
            // A NOTE that its samples contradict is dropped.
            // Frame 2 samples it twice (under two ids): its last value is the later sample.
            provider("wasm.linear_memory", CounterUnit::Bytes, 3, Some([98_304, 65_536, 131_072]), None),
            // No sample on the first frame: no value there, not 0.
            provider("gpu.declared_bytes", CounterUnit::Bytes, 2, Some([1024, 1024, 2048]), None),
            provider(
                "wgpu.buffer_memory",
                CounterUnit::Bytes,
                0,
                None,
                Some("the browser's WebGPU exposes no internal counters")
            ),
            // Samples that are no reading (negative, NaN) leave it unavailable, without a reason.
            provider("wgpu.buffers", CounterUnit::Count, 0, None, None),
        ]
    );
    assert!(gauges.providers[0].summary.is_available() && !gauges.providers[2].summary.is_available());
    assert_eq!(gauges.providers[0].values, [65_536, 131_072, 98_304].map(Some));
    assert_eq!(gauges.providers[1].values, [None, Some(2048), Some(1024)]);
    // Providers are never domains: the one domain is `ui`, whose last reading is frame 1's.
    let table = domain_table(&[], Some(&gauges));
    assert_eq!(table.rows.len(), 1);
    assert_eq!((table.rows[0].name.as_str(), table.rows[0].live_bytes, table.rows[0].valid), ("ui", Some(300), None));
    assert_eq!(gauges.domains[0].live_bytes, [Some(100), Some(300), None]);
}

#[test]
fn a_frame_that_does_not_decode_leaves_its_point_empty_and_earlier_readings_stand() {
    let mut bytes = fixture();
    let last = {
        let capture = Capture::open(&bytes).unwrap();
        capture.frames()[7]
    };
    // A flipped payload byte: the directory still lists the frame, its checksum fails.
    let at = (last.offset + last.len - 2) as usize;
    bytes[at] ^= 0xFF;
    let capture = Capture::open(&bytes).unwrap();
    let gauges = Gauges::read(&capture, FrameSampler::all(8), true);
    assert_eq!((gauges.frames_read, gauges.undecoded), (7, 1));
    assert_eq!(gauges.domains[1].live_bytes[6..], [Some(256), None]);
    // The table falls back to frame 6's readings.
    let table = domain_table(&[], Some(&gauges));
    assert_eq!(table.rows[1].live_bytes, Some(256));
}
