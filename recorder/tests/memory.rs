//! Memory in the capture: a session with a memory source writes per-frame domain gauges,
//! an exported memory capture handed to it becomes a MEMO record, and with providers on
//! it samples `provider/<metric>` counters. Runs on a real Vulkan adapter (lavapipe in
//! CI); blocks are accounted through the ledger's public API at made-up addresses, so the
//! expected values are exact.
#![cfg(not(target_arch = "wasm32"))]

use core::alloc::Layout;
use core::num::NonZeroUsize;
use core::ptr::NonNull;

use sgpt_format::{Capture, MemoryMode, PROVIDER_GAUGE_PREFIX, memory_gauge_name, provider_gauge_name};
use sgpt_memory::{CaptureConfig, CaptureMode, Expectation, Ledger, Site};
use sgpt_recorder::{GraphPassScope, Level, MemorySink, MemorySource, ProfileSession, RecordError, SessionOptions};

const BLOCK: usize = 64;
const AUDIO_BYTES: usize = 1000;

fn address(block: usize) -> NonNull<u8> {
    NonNull::without_provenance(NonZeroUsize::new(0x10_000 + block * 0x100).expect("nonzero"))
}

/// A lavapipe device with the recorder's timer features (see `sgpt_test_support::gpu`).
fn gpu() -> Option<(wgpu::Adapter, wgpu::Device, wgpu::Queue)> {
    sgpt_test_support::gpu::device(sgpt_recorder::timer_features).map(|gpu| (gpu.adapter, gpu.device, gpu.queue))
}

#[test]
fn domain_gauges_follow_the_ledger_and_the_memory_capture_is_written_as_memo() {
    let Some((adapter, device, queue)) = gpu() else { return };
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

// ---- provider metrics ----

/// Every provider counter the recorder declares when providers are on.
const PROVIDERS: [&str; 11] = [
    "wasm.linear_memory",
    "gpu.declared_bytes",
    "wgpu.buffer_memory",
    "wgpu.texture_memory",
    "wgpu.memory_allocations",
    "wgpu.buffers",
    "wgpu.textures",
    "wgpu.texture_views",
    "wgpu.bind_groups",
    "wgpu.samplers",
    "wgpu.query_sets",
];

/// One frame with one graph pass opening one compute pass and no graph handed over:
/// creates no buffer or texture, so wgpu's counters hold still across it.
fn bare_frame(device: &wgpu::Device, queue: &wgpu::Queue, session: &mut ProfileSession) {
    session.begin_frame().expect("opens");
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut scope = GraphPassScope::named(Some(&mut *session), &mut encoder, "bare");
        drop(scope.compute_pass(&wgpu::ComputePassDescriptor { label: Some("empty"), timestamp_writes: None }));
    }
    session.resolve_queries(&mut encoder).expect("open");
    queue.submit([encoder.finish()]);
    session.end_frame().expect("closes");
}

fn buffer_memory(device: &wgpu::Device) -> isize {
    device.get_internal_counters().hal.buffer_memory.read()
}

#[test]
// wgpu counts only with its `counters` feature; the workspace build has it through the demo.
#[cfg_attr(not(feature = "wgpu-counters"), ignore = "needs the recorder's wgpu-counters feature")]
fn wgpu_counters_are_sampled_as_wgpu_reports_them_and_providers_that_cannot_answer_are_noted() {
    let Some((adapter, device, queue)) = gpu() else { return };
    const EXTRA: u64 = 1 << 20;
    let sink = MemorySink::new();
    let options = SessionOptions { providers: true, ..SessionOptions::at(Level::Structure) };
    let mut session = ProfileSession::new(options, sink.clone());
    session.start(&device, &queue, &adapter).expect("starts");
    let mut around = Vec::new();
    let mut extra = None;
    for frame in 0..6 {
        if frame == 3 {
            extra = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("one more MiB"),
                size: EXTRA,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }));
        }
        let before = buffer_memory(&device);
        bare_frame(&device, &queue, &mut session);
        around.push((before, buffer_memory(&device)));
    }
    pollster::block_on(session.stop()).expect("stops");
    // Why `memory_allocations` is noted, not sampled: wgpu 30 leaves it at 0 even now.
    assert_eq!(device.get_internal_counters().hal.memory_allocations.read(), 0);
    // And `textures` on Vulkan: creating one does not count it.
    let textures = device.get_internal_counters().hal.textures.read();
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("uncounted"),
        size: wgpu::Extent3d { width: 4, height: 4, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8Unorm,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    assert_eq!(device.get_internal_counters().hal.textures.read(), textures);
    drop((texture, extra));

    let bytes = sink.take();
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.verify().is_empty(), "{:?}", capture.verify());
    let declared: Vec<_> = capture.counters().map(|def| def.name.clone()).collect();
    let expected: Vec<_> = PROVIDERS.iter().map(|metric| provider_gauge_name(metric)).collect();
    assert_eq!(declared, expected, "providers alone take counter ids from 0, in this order");
    let unit = |metric| capture.counter(capture.provider(metric).expect("declared").id).expect("declared").unit;
    assert_eq!(unit("wgpu.buffer_memory"), sgpt_format::CounterUnit::Bytes);
    assert_eq!(unit("wgpu.buffers"), sgpt_format::CounterUnit::Count);

    let (memory, buffers) = (
        capture.provider("wgpu.buffer_memory").expect("declared").id,
        capture.provider("wgpu.buffers").expect("declared").id,
    );
    let frames: Vec<_> = (0..capture.frames().len()).map(|i| capture.frame(i).expect("decodes")).collect();
    assert_eq!(frames.len(), 6);
    for (frame, &(before, after)) in frames.iter().zip(&around) {
        let sampled = frame.sample(memory).expect("sampled every frame");
        assert!(sampled > 0.0, "the timer pool's buffers alone hold memory");
        // Sampled inside end_frame, between the two reads. The workload creates nothing, but
        // wgpu may free an earlier staging buffer as the frame submits or polls.
        assert!(
            [before, after].contains(&(sampled as isize)),
            "frame {}: read {before} before, sampled {sampled}, read {after} after",
            frame.frame_number
        );
        assert!(frame.sample(buffers).expect("sampled") >= 1.0);
    }
    let memory_at = |index: usize| frames[index].sample(memory).expect("sampled");
    assert!(memory_at(3) - memory_at(2) >= EXTRA as f64, "the new buffer's memory is counted from frame 3");
    assert_eq!(frames[3].sample(buffers), frames[2].sample(buffers).map(|count| count + 1.0));

    for never in ["wasm.linear_memory", "gpu.declared_bytes", "wgpu.memory_allocations", "wgpu.textures"] {
        let id = capture.provider(never).expect("declared").id;
        assert!(frames.iter().all(|frame| frame.sample(id).is_none()), "{never} is never sampled, not 0");
    }
    let notes: Vec<_> = capture.provider_notes().map(|note| (note.frame_number, note.text.clone())).collect();
    assert_eq!(
        notes,
        [
            (0, "provider wasm.linear_memory unavailable: not a wasm32 build".to_owned()),
            (
                0,
                "provider wgpu.memory_allocations unavailable: wgpu 30 declares it but no backend updates it"
                    .to_owned()
            ),
            (
                0,
                "provider wgpu.textures unavailable: wgpu 30's vulkan backend subtracts destroyed textures \
                 but never adds created ones"
                    .to_owned()
            ),
            (
                0,
                "provider gpu.declared_bytes unavailable: no frame had a frame graph \
                 (FrameGraph::execute or ProfileSession::set_graph)"
                    .to_owned()
            ),
        ]
    );
}

#[test]
#[cfg_attr(not(feature = "wgpu-counters"), ignore = "needs the recorder's wgpu-counters feature")]
fn at_level_timing_declared_bytes_is_unavailable_and_without_providers_nothing_is_declared() {
    let Some((adapter, device, queue)) = gpu() else { return };
    let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
    ledger.register_domain("scratch").expect("registers");
    for providers in [true, false] {
        let sink = MemorySink::new();
        let options =
            SessionOptions { providers, memory: Some(MemorySource(ledger)), ..SessionOptions::at(Level::Timing) };
        let mut session = ProfileSession::new(options, sink.clone());
        session.start(&device, &queue, &adapter).expect("starts");
        for _ in 0..2 {
            bare_frame(&device, &queue, &mut session);
        }
        pollster::block_on(session.stop()).expect("stops");
        let bytes = sink.take();
        let capture = Capture::open(&bytes).expect("opens");
        let names: Vec<_> = capture.counters().map(|def| (def.id, def.name.clone())).collect();
        let gauges = 2 * sgpt_format::MEMORY_GAUGE_FIELDS.len();
        assert!(names[..gauges].iter().all(|(_, name)| name.starts_with("memory/")), "gauges first: {names:?}");
        let provided: Vec<_> = names.iter().filter(|(_, name)| name.starts_with(PROVIDER_GAUGE_PREFIX)).collect();
        let notes: Vec<_> = capture.provider_notes().map(|note| (note.frame_number, note.text.clone())).collect();
        if !providers {
            assert_eq!(names.len(), gauges);
            assert!(provided.is_empty() && notes.is_empty(), "{provided:?} {notes:?}");
            continue;
        }
        // Ids follow the gauges' without a gap.
        let ids: Vec<_> = names.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, (0..(gauges + PROVIDERS.len()) as u32).collect::<Vec<_>>());
        assert_eq!(provided.len(), PROVIDERS.len());
        assert!(
            notes.contains(&(
                0,
                "provider gpu.declared_bytes unavailable: level timing records no frame-graph resources".to_owned()
            )),
            "{notes:?}"
        );
        let declared = capture.provider("gpu.declared_bytes").expect("declared").id;
        let frame = capture.frame(1).expect("decodes");
        assert_eq!(frame.sample(declared), None);
        assert!(frame.sample(capture.provider("wgpu.texture_views").expect("declared").id).is_some());
    }
}
