//! Memory in the capture: a session with a memory source writes per-frame domain gauges,
//! and an exported memory capture handed to it becomes a MEMO record. Runs on a real
//! Vulkan adapter (lavapipe in CI); blocks are accounted through the ledger's public API
//! at made-up addresses, so the expected values are exact.
#![cfg(not(target_arch = "wasm32"))]

use core::alloc::Layout;
use core::num::NonZeroUsize;
use core::ptr::NonNull;

use sgpt_demo::native;
use sgpt_format::{Capture, MemoryMode, memory_gauge_name};
use sgpt_memory::{CaptureConfig, CaptureMode, Expectation, Ledger, Site};
use sgpt_recorder::{Level, MemorySink, MemorySource, ProfileSession, RecordError, SessionOptions};

const BLOCK: usize = 64;
const AUDIO_BYTES: usize = 1000;

fn address(block: usize) -> NonNull<u8> {
    NonNull::without_provenance(NonZeroUsize::new(0x10_000 + block * 0x100).expect("nonzero"))
}

#[test]
fn domain_gauges_follow_the_ledger_and_the_memory_capture_is_written_as_memo() {
    let (adapter, device, queue) = match native::device() {
        Ok(gpu) => gpu,
        Err(error @ native::DeviceError::NoAdapter(_)) => {
            assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but the GPU tests cannot run: {error}");
            eprintln!("skipping a GPU test: {error}");
            return;
        }
        Err(error) => panic!("device set-up failed: {error}"),
    };
    // Its own ledger, so no other test's traffic reaches these counters.
    let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
    let meshes = ledger.register_domain("meshes").expect("registers");
    let audio = ledger.register_domain("audio").expect("registers");
    let config = CaptureConfig {
        mode: CaptureMode::Complete,
        domains: vec![meshes, audio],
        table_entries: 64,
        journal_events: 256,
        checkpoints: 4,
        checkpoint_entries: 64,
        clock: None,
    };
    let memory = ledger.begin(&config).expect("both domains start empty");
    let layout = Layout::from_size_align(BLOCK, 8).expect("layout");
    let audio_layout = Layout::from_size_align(AUDIO_BYTES, 8).expect("layout");

    let sink = MemorySink::new();
    let options = SessionOptions { memory: Some(MemorySource(ledger)), ..SessionOptions::at(Level::Timing) };
    let mut session = ProfileSession::new(options, sink.clone());
    assert_eq!(session.record_memory(&dummy_capture()), Err(RecordError::NotStarted));
    session.start(&device, &queue, &adapter).expect("starts");
    for frame in 0..6 {
        session.begin_frame().expect("opens");
        ledger.record_allocation(meshes, Site::UNKNOWN, address(frame), layout);
        if frame == 0 {
            ledger.record_allocation(audio, Site::UNKNOWN, address(100), audio_layout);
        }
        if frame == 3 {
            ledger.record_free(meshes, address(0), layout);
        }
        if frame == 2 {
            ledger.checkpoint(memory, "a", 1, Expectation::Retained).expect("checkpoint a");
        }
        if frame == 5 {
            ledger.checkpoint(memory, "b", 1, Expectation::Unspecified).expect("checkpoint b");
        }
        let mut encoder = device.create_command_encoder(&Default::default());
        session.resolve_queries(&mut encoder).expect("open");
        queue.submit([encoder.finish()]);
        session.end_frame().expect("closes");
    }
    ledger.end(memory).expect("ends");
    let exported = ledger.export(memory).expect("exports");
    ledger.release(memory).expect("releases");
    // Handed over after `stop()` began: the session is stopping, not finished.
    let finished = session.stop();
    session.record_memory(&exported).expect("accepted while stopping");
    pollster::block_on(finished).expect("stops");
    assert_eq!(session.record_memory(&exported), Err(RecordError::NotStarted), "refused once finished");

    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    // Every registered domain (unknown included) × every field is declared once.
    let gauge = |domain: &str, field: &str| {
        let name = memory_gauge_name(domain, field);
        capture.counters().find(|def| def.name == name).unwrap_or_else(|| panic!("{name} is declared")).id
    };
    assert_eq!(capture.counters().count(), 3 * sgpt_format::MEMORY_GAUGE_FIELDS.len());
    let (live, allocations, frees) =
        (gauge("meshes", "live_bytes"), gauge("meshes", "allocations"), gauge("meshes", "frees"));
    let (audio_live, valid, unknown_live) =
        (gauge("audio", "live_bytes"), gauge("meshes", "valid"), gauge("unknown", "live_bytes"));
    assert_eq!(capture.frames().len(), 6);
    for index in 0..6 {
        let frame = capture.frame(index).expect("decodes");
        let value = |id: u32| frame.counters.iter().find(|sample| sample.counter == id).expect("sampled").value;
        let freed = u64::from(index >= 3);
        let blocks = index as u64 + 1;
        assert_eq!(value(live), ((blocks - freed) * BLOCK as u64) as f64, "frame {index}");
        assert_eq!(value(allocations), blocks as f64);
        assert_eq!(value(frees), freed as f64);
        assert_eq!(value(audio_live), AUDIO_BYTES as f64);
        assert_eq!(value(valid), 1.0);
        assert_eq!(value(unknown_live), 0.0);
    }

    let records = capture.memory_records();
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record.mode, MemoryMode::Complete);
    assert_eq!(record.capture_id, exported.id.get());
    let names: Vec<_> = record.domains.iter().map(|domain| domain.name.as_str()).collect();
    assert_eq!(names, ["meshes", "audio"]);
    assert!(record.health.is_complete());
    // 7 allocations and 1 free, journaled in order.
    assert_eq!(record.events.len(), 8);
    assert!(record.events.windows(2).all(|pair| pair[0].seq < pair[1].seq));
    let checkpoint_names: Vec<_> = record.checkpoints.iter().map(|checkpoint| checkpoint.name.as_str()).collect();
    assert_eq!(checkpoint_names.len(), 3, "a, b and the terminal checkpoint: {checkpoint_names:?}");
    assert_eq!(&checkpoint_names[..2], ["a", "b"]);
    let diff = record.diff(0, 1).expect("both checkpoints exist");
    assert!(diff.exact);
    // At a: meshes 0, 1, 2 and audio. At b: meshes 1..=5 and audio.
    let mut survivors: Vec<_> = diff.survivors.iter().map(|survivor| survivor.block.address).collect();
    survivors.sort_unstable();
    let at = |block: usize| address(block).addr().get() as u64;
    assert_eq!(survivors, [at(1), at(2), at(100)]);
    assert_eq!(diff.released.iter().map(|block| block.address).collect::<Vec<_>>(), [at(0)]);
    let mut new_live: Vec<_> = diff.new_live.iter().map(|block| block.address).collect();
    new_live.sort_unstable();
    assert_eq!(new_live, [at(3), at(4), at(5)]);
    let audio_survivor = diff.survivors.iter().find(|survivor| survivor.block.address == at(100)).expect("audio");
    assert_eq!(audio_survivor.block.size, AUDIO_BYTES as u64);
    assert_eq!(audio_survivor.block.domain, u32::from(audio.index()));
    // The counters each checkpoint copied match the gauges at that frame.
    let at_b = record.checkpoints[1].domains.iter().find(|c| c.domain == u32::from(meshes.index())).expect("meshes");
    assert_eq!((at_b.live_bytes, at_b.allocations, at_b.frees), (5 * BLOCK as u64, 6, 1));
}

/// An exported capture of a scratch ledger, for the refusals.
fn dummy_capture() -> sgpt_memory::MemoryCapture {
    let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
    let domain = ledger.register_domain("scratch").expect("registers");
    let config = CaptureConfig {
        domains: vec![domain],
        table_entries: 4,
        journal_events: 4,
        checkpoints: 1,
        checkpoint_entries: 4,
        ..CaptureConfig::default()
    };
    let capture = ledger.begin(&config).expect("begins");
    ledger.end(capture).expect("ends");
    let exported = ledger.export(capture).expect("exports");
    ledger.release(capture).expect("releases");
    exported
}
