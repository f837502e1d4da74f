//! The golden fixtures in `fixtures/v1/`, generated deterministically by
//! `cargo xtask fixtures`. Once a format version is released its fixtures are never
//! regenerated: `write_all` only writes files that are missing, and a test opens every
//! committed file forever, as a reader of every released version must keep opening it.

use std::io;
use std::path::{Path, PathBuf};

use crate::header::{HEADER_LEN, Header};
use crate::model::{
    CounterDef, CounterSample, CounterUnit, Declaration, DomainCounters, Frame, GpuPass, GpuPassKind, GraphPass, Level,
    Lifetime, MEMORY_GAUGE_FIELDS, MemoryBlock, MemoryCheckpoint, MemoryDomain, MemoryEvent, MemoryEventKind,
    MemoryExpectation, MemoryLoss, MemoryLossReason, MemoryMode, MemoryRecord, MemorySite, Meta, Note, ResourceDesc,
    ResourceNode, Scope, Span, TextureDimension, Topology, memory_gauge_name, provider_gauge_name,
};
use crate::record::FourCc;
use crate::synth::{SynthOptions, Workload, workload};
use crate::writer::Writer;

/// One fixture: its file name, what it exercises, and its bytes.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: &'static str,
    pub description: &'static str,
    pub bytes: Vec<u8>,
}

fn small(level: Level) -> Workload {
    workload(&SynthOptions { frames: 16, passes: 20, level, seed: 7, quantize_ns: None })
}

fn closed(workload: &Workload) -> Vec<u8> {
    // Writing into a Vec cannot fail; the synthetic workload is always well formed.
    workload.write(Vec::new()).unwrap_or_default()
}

/// The byte offset where the record of frame `index` starts, via the directory.
fn frame_offset(bytes: &[u8], index: usize) -> usize {
    crate::Capture::open(bytes)
        .ok()
        .and_then(|capture| capture.frames().get(index).map(|f| f.offset as usize))
        .unwrap_or(HEADER_LEN)
}

fn minimal() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: "main".into(), ..GpuPass::default() }], ..Topology::default() };
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        let mut frame = Frame { topology: id, ..Frame::default() };
        frame.spans.push(Span { pass: 0, begin_ns: 1_000_000, end_ns: 1_040_000, ..Span::default() });
        writer.frame(&frame)?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

fn html_labels() -> Vec<u8> {
    const PAYLOAD: &str = "<img src=x onerror=\"window.__pwned=1\">";
    let meta = Meta {
        level: Some(Level::Structure),
        note: format!("note {PAYLOAD}"),
        application: "<script>window.__pwned=1</script>".to_owned(),
        ..Meta::default()
    };
    let topology = Topology {
        scopes: vec![Scope { name: format!("scope {PAYLOAD}"), parent: None }],
        graph_passes: vec![GraphPass {
            name: format!("graph {PAYLOAD}"),
            scope: Some(0),
            side_effects: true,
            ..GraphPass::default()
        }],
        resources: Vec::new(),
        gpu_passes: vec![
            GpuPass { label: PAYLOAD.into(), graph_pass: Some(0), kind: GpuPassKind::Render, ..GpuPass::default() },
            GpuPass { label: "</table><b>bold</b>\"'&amp;".into(), graph_pass: Some(0), ..GpuPass::default() },
        ],
    };
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        for f in 0..3u64 {
            let base = 1_000_000 * (f + 1);
            let mut frame = Frame { frame_number: f, topology: id, culled: vec![false], ..Frame::default() };
            frame.spans.push(Span { pass: 0, begin_ns: base, end_ns: base + 30_000, ..Span::default() });
            frame.spans.push(Span { pass: 1, begin_ns: base + 31_000, end_ns: base + 50_000, ..Span::default() });
            writer.frame(&frame)?;
        }
        writer.note(&Note { frame_number: 1, text: PAYLOAD.into() })?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

/// Domains of the memory fixture, by id.
const MEMORY_DOMAINS: [(u32, &str); 3] = [(1, "scene"), (2, "particles"), (3, "scratch")];

/// The memory fixture's journal: a scene loaded, unloaded and reloaded, particles that
/// survive throughout, scratch that is freed at once, and one refused allocation.
fn memory_events() -> Vec<MemoryEvent> {
    use MemoryEventKind::{Alloc, Failure, Free};
    // (seq, kind, lifetime seq, domain, site, size)
    let script: [(u64, MemoryEventKind, u64, u32, u32, u64); 11] = [
        (100, Alloc, 1, 1, 1, 4096),
        (101, Alloc, 2, 1, 1, 1024),
        (102, Alloc, 3, 2, 2, 256),
        (103, Free, 1, 1, 1, 4096),
        (104, Free, 2, 1, 1, 1024),
        (105, Alloc, 4, 3, 3, 64),
        (106, Free, 4, 3, 3, 64),
        (107, Failure, 0, 3, 3, 1 << 40),
        (108, Alloc, 5, 1, 1, 4096),
        (109, Alloc, 6, 1, 1, 1024),
        (110, Alloc, 7, 2, 2, 512),
    ];
    script
        .iter()
        .map(|&(seq, kind, lifetime, domain, site, size)| MemoryEvent {
            seq,
            kind,
            lifetime: (lifetime != 0).then_some(Lifetime { epoch: 1, seq: lifetime }),
            domain,
            site,
            // Lifetime 5 reuses lifetime 1's address: a reused address is a new block.
            address: 0x10_0000 + 0x1000 * if lifetime == 5 { 1 } else { lifetime },
            size,
            align: 16,
            thread: 0,
            time: 1_000 * seq,
        })
        .collect()
}

/// Replays `events` before `boundary`: per-domain counters and the live set.
fn memory_state(events: &[MemoryEvent], boundary: u64) -> (Vec<DomainCounters>, Vec<MemoryBlock>) {
    let mut counters: Vec<DomainCounters> = MEMORY_DOMAINS
        .iter()
        .map(|&(domain, _)| DomainCounters { domain, valid: true, ..DomainCounters::default() })
        .collect();
    let mut live: Vec<MemoryBlock> = Vec::new();
    for event in events.iter().filter(|event| event.seq < boundary) {
        let Some(c) = counters.iter_mut().find(|c| c.domain == event.domain) else { continue };
        let lifetime = event.lifetime.unwrap_or_default();
        match event.kind {
            MemoryEventKind::Alloc => {
                c.live_bytes += event.size;
                c.live_blocks += 1;
                c.peak_bytes = c.peak_bytes.max(c.live_bytes);
                c.allocated_bytes += event.size;
                c.allocations += 1;
                live.push(MemoryBlock {
                    address: event.address,
                    lifetime,
                    alloc_seq: event.seq,
                    domain: event.domain,
                    site: event.site,
                    size: event.size,
                    align: event.align,
                    thread: event.thread,
                    time: event.time,
                });
            }
            MemoryEventKind::Free | MemoryEventKind::UnknownFree => {
                c.live_bytes -= event.size;
                c.live_blocks -= 1;
                c.freed_bytes += event.size;
                c.frees += 1;
                live.retain(|block| block.lifetime != lifetime);
            }
            MemoryEventKind::Failure => c.failures += 1,
        }
    }
    (counters, live)
}

fn memory() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: "main".into(), ..GpuPass::default() }], ..Topology::default() };
    let events = memory_events();
    let checkpoint = |id: u32, name: &str, expectation, boundary_seq: u64| {
        let (domains, live) = memory_state(&events, boundary_seq);
        MemoryCheckpoint {
            id,
            name: name.into(),
            owner: 7,
            expectation,
            boundary_seq,
            time: 1_000 * boundary_seq,
            table_exact: true,
            history_complete: true,
            domains,
            live,
        }
    };
    let record = MemoryRecord {
        capture_id: 1,
        epoch: 1,
        mode: MemoryMode::Complete,
        begin_seq: 100,
        end_seq: 111,
        storage_bytes: 65_536,
        domains: MEMORY_DOMAINS.iter().map(|&(id, name)| MemoryDomain { id, name: name.into() }).collect(),
        sites: memory_sites(),
        checkpoints: vec![
            checkpoint(0, "loaded", MemoryExpectation::Retained, 103),
            checkpoint(1, "unloaded", MemoryExpectation::Released, 108),
            checkpoint(2, "end", MemoryExpectation::Unspecified, 111),
        ],
        events: events.clone(),
        health: crate::model::MemoryHealth::default(),
    };
    let declarations = gauge_declarations(&MEMORY_DOMAINS);
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        writer.declare(&declarations)?;
        // Each frame samples the gauges as they stood at the end of that frame.
        for (index, boundary) in [101u64, 103, 105, 107, 108, 109, 110, 111].into_iter().enumerate() {
            let base = 1_000_000 * (index as u64 + 1);
            let mut frame = Frame { frame_number: index as u64, topology: id, ..Frame::default() };
            frame.cpu.begin_ns = base;
            frame.cpu.end_ns = base + 16_000;
            frame.spans.push(Span { pass: 0, begin_ns: base, end_ns: base + 40_000, ..Span::default() });
            let (counters, _) = memory_state(&events, boundary);
            for (d, c) in counters.iter().enumerate() {
                let values = [
                    c.live_bytes,
                    c.live_blocks,
                    c.peak_bytes,
                    c.allocated_bytes,
                    c.freed_bytes,
                    c.allocations,
                    c.frees,
                    c.failures,
                    u64::from(c.valid),
                ];
                for (f, value) in values.into_iter().enumerate() {
                    let counter = (d * MEMORY_GAUGE_FIELDS.len() + f) as u32;
                    frame.counters.push(CounterSample { counter, value: value as f64 });
                }
            }
            writer.frame(&frame)?;
        }
        writer.memory(&record)?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

/// Domains of the activity-loss fixture, by id.
const ACTIVITY_DOMAINS: [(u32, &str); 3] = [(1, "scene"), (2, "particles"), (3, "scratch")];
/// The activity capture sees operations `[6, 18)`; 1 to 5 happened before it began.
const ACTIVITY_BEGIN: u64 = 6;
const ACTIVITY_END: u64 = 18;
/// Journal capacity: operations 6 to 13 fit, 14 to 17 are lost.
const ACTIVITY_JOURNAL: usize = 8;
/// Lifetimes of this capture carry epoch 2: an earlier capture used epoch 1.
const ACTIVITY_EPOCH: u64 = 2;
/// Each frame samples the gauges after the operations below its boundary.
const ACTIVITY_FRAMES: [u64; 8] = [8, 10, 12, 13, 14, 16, 17, 18];
const WGPU_UNAVAILABLE: &str = "the browser's WebGPU exposes no internal counters";

/// Every operation of the ledger, before and during the capture: (seq, alloc, block,
/// domain charged, size). A block is named by its address; `alloc` false is a free.
const ACTIVITY_SCRIPT: [(u64, bool, u64, u32, u64); 17] = [
    // Before the capture: the scene loads, particles start, scratch comes and goes.
    (1, true, 1, 1, 8192),
    (2, true, 2, 1, 2048),
    (3, true, 3, 2, 512),
    (4, true, 4, 3, 64),
    (5, false, 4, 3, 64),
    // The capture: 7 and 11 free blocks it never saw allocated.
    (6, true, 5, 2, 256),
    (7, false, 2, 1, 2048),
    (8, true, 6, 3, 128),
    (9, false, 6, 3, 128),
    (10, true, 7, 1, 4096),
    (11, false, 3, 2, 512),
    // Block 1 belongs to scene, but the free is charged to scratch: scratch's live
    // counters underflow, clamp to 0 and turn invalid for good.
    (12, false, 1, 3, 8192),
    (13, true, 8, 2, 256),
    // The journal is full from here on; the live table still follows.
    (14, true, 9, 3, 64),
    (15, false, 5, 2, 256),
    (16, true, 10, 1, 1024),
    (17, false, 9, 3, 64),
];

/// What an activity capture and the domain counters hold before `boundary`.
struct ActivityState {
    counters: Vec<DomainCounters>,
    /// The capture's live table, ordered by lifetime.
    live: Vec<MemoryBlock>,
    journal: Vec<MemoryEvent>,
    journal_loss: Option<MemoryLoss>,
    unknown_baseline_frees: u64,
}

/// Replays the script before `boundary` as the ledger would: checked counters from the
/// first operation, and a capture that sees only `[ACTIVITY_BEGIN, ACTIVITY_END)`.
fn activity_state(boundary: u64) -> ActivityState {
    let mut state = ActivityState {
        counters: ACTIVITY_DOMAINS
            .iter()
            .map(|&(domain, _)| DomainCounters { domain, valid: true, ..DomainCounters::default() })
            .collect(),
        live: Vec::new(),
        journal: Vec::new(),
        journal_loss: None,
        unknown_baseline_frees: 0,
    };
    let mut next_lifetime = 1;
    for &(seq, alloc, block, domain, size) in ACTIVITY_SCRIPT.iter().filter(|op| op.0 < boundary) {
        let Some(c) = state.counters.iter_mut().find(|c| c.domain == domain) else { continue };
        if alloc {
            c.live_bytes += size;
            c.live_blocks += 1;
            c.peak_bytes = c.peak_bytes.max(c.live_bytes);
            c.allocated_bytes += size;
            c.allocations += 1;
        } else {
            // Underflow clamps to 0 and is sticky, as the ledger's checked counters do.
            let underflow = c.live_bytes < size || c.live_blocks == 0;
            c.live_bytes = c.live_bytes.saturating_sub(size);
            c.live_blocks = c.live_blocks.saturating_sub(1);
            c.valid &= !underflow;
            c.freed_bytes += size;
            c.frees += 1;
        }
        if seq < ACTIVITY_BEGIN {
            continue;
        }
        let site = domain;
        let address = 0x20_0000 + 0x1000 * block;
        let time = 1_000 * seq;
        let event = if alloc {
            let lifetime = Lifetime { epoch: ACTIVITY_EPOCH, seq: next_lifetime };
            next_lifetime += 1;
            state.live.push(MemoryBlock {
                address,
                lifetime,
                alloc_seq: seq,
                domain,
                site,
                size,
                align: 16,
                thread: 0,
                time,
            });
            MemoryEvent {
                seq,
                kind: MemoryEventKind::Alloc,
                lifetime: Some(lifetime),
                domain,
                site,
                address,
                size,
                align: 16,
                thread: 0,
                time,
            }
        } else if let Some(at) = state.live.iter().position(|b| b.address == address) {
            let origin = state.live.remove(at);
            MemoryEvent {
                seq,
                kind: MemoryEventKind::Free,
                lifetime: Some(origin.lifetime),
                domain: origin.domain,
                site: origin.site,
                address,
                size: origin.size,
                align: origin.align,
                thread: 0,
                time,
            }
        } else {
            // Allocated before the capture: no lifetime is invented for it.
            state.unknown_baseline_frees += 1;
            MemoryEvent {
                seq,
                kind: MemoryEventKind::UnknownFree,
                lifetime: None,
                domain,
                site: 0,
                address,
                size,
                align: 16,
                thread: 0,
                time,
            }
        };
        if state.journal.len() < ACTIVITY_JOURNAL {
            state.journal.push(event);
        } else {
            let loss = state.journal_loss.get_or_insert(MemoryLoss {
                reason: MemoryLossReason::JournalFull,
                first_lost_seq: seq,
                domain: event.domain,
                count: 0,
            });
            loss.count += 1;
        }
    }
    state
}

/// The sites both memory fixtures allocate from; site 0 is the unknown site.
fn memory_sites() -> Vec<MemorySite> {
    vec![
        MemorySite { id: 0, file: String::new(), line: 0, column: 0, name: "unknown".into() },
        MemorySite { id: 1, file: "demo/src/scene.rs".into(), line: 42, column: 9, name: "scene load".into() },
        MemorySite { id: 2, file: "demo/src/particles.rs".into(), line: 17, column: 5, name: String::new() },
        MemorySite { id: 3, file: "demo/src/frame.rs".into(), line: 88, column: 13, name: "scratch".into() },
    ]
}

/// `memory/<domain>/<field>` counters for `domains`, ids from 0 in domain then
/// [`MEMORY_GAUGE_FIELDS`] order: domain `d`'s field `f` is `d * fields + f`.
fn gauge_declarations(domains: &[(u32, &str)]) -> Vec<Declaration> {
    domains
        .iter()
        .enumerate()
        .flat_map(|(d, &(_, domain))| {
            MEMORY_GAUGE_FIELDS.iter().enumerate().map(move |(f, &(field, unit))| {
                Declaration::Counter(CounterDef {
                    id: (d * MEMORY_GAUGE_FIELDS.len() + f) as u32,
                    name: memory_gauge_name(domain, field),
                    unit,
                })
            })
        })
        .collect()
}

/// A domain's counters in [`MEMORY_GAUGE_FIELDS`] order, as gauge samples.
fn gauge_values(c: &DomainCounters) -> [u64; MEMORY_GAUGE_FIELDS.len()] {
    [
        c.live_bytes,
        c.live_blocks,
        c.peak_bytes,
        c.allocated_bytes,
        c.freed_bytes,
        c.allocations,
        c.frees,
        c.failures,
        u64::from(c.valid),
    ]
}

/// A browser capture: an activity-mode memory capture that began late and lost the end
/// of its journal, a domain whose counters saturated, and provider gauges of which one
/// is never available.
fn memory_activity_loss() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), timestamp_query: true, ..Meta::default() };
    let topology = Topology {
        graph_passes: vec![GraphPass {
            name: "main".into(),
            side_effects: true,
            reads: vec![0],
            writes: vec![1],
            ..GraphPass::default()
        }],
        resources: vec![
            ResourceNode {
                name: "vertices".into(),
                version: 0,
                imported: true,
                declared_bytes: 1_048_576,
                // wgpu::BufferUsages::VERTEX
                desc: ResourceDesc::Buffer { size: 1_048_576, usage: 0x20 },
            },
            ResourceNode {
                name: "hdr".into(),
                version: 0,
                imported: false,
                declared_bytes: 1280 * 720 * 8,
                desc: ResourceDesc::Texture {
                    dimension: TextureDimension::D2,
                    width: 1280,
                    height: 720,
                    depth_or_array_layers: 1,
                    mip_level_count: 1,
                    sample_count: 1,
                    format: "rgba16float".into(),
                    // wgpu::TextureUsages::RENDER_ATTACHMENT
                    usage: 0x10,
                },
            },
        ],
        gpu_passes: vec![GpuPass {
            label: "main".into(),
            graph_pass: Some(0),
            kind: GpuPassKind::Render,
            ..GpuPass::default()
        }],
        ..Topology::default()
    };
    let declared_bytes: u64 = topology.resources.iter().map(|r| r.declared_bytes).sum();
    let fields = MEMORY_GAUGE_FIELDS.len();
    let mut declarations = gauge_declarations(&ACTIVITY_DOMAINS);
    // Provider metrics follow the gauges; wgpu's is declared though it is never sampled.
    let provider_base = (ACTIVITY_DOMAINS.len() * fields) as u32;
    let [gpu_declared, wasm_memory, wgpu_buffers] = [0, 1, 2].map(|i| provider_base + i);
    for (id, metric) in [
        (gpu_declared, "gpu.declared_bytes"),
        (wasm_memory, "wasm.linear_memory"),
        (wgpu_buffers, "wgpu.buffer_memory"),
    ] {
        declarations.push(Declaration::Counter(CounterDef {
            id,
            name: provider_gauge_name(metric),
            unit: CounterUnit::Bytes,
        }));
    }
    // The linear memory grows by 16 pages of 64 KiB twice; it never shrinks.
    let wasm_pages: [u64; ACTIVITY_FRAMES.len()] = [288, 288, 288, 304, 304, 304, 320, 320];

    let checkpoint = |id: u32, name: &str, expectation, boundary_seq: u64| {
        let state = activity_state(boundary_seq);
        MemoryCheckpoint {
            id,
            name: name.into(),
            owner: 7,
            expectation,
            boundary_seq,
            time: 1_000 * boundary_seq,
            // The live table never overflowed; the journal did, from operation 14.
            table_exact: true,
            history_complete: state.journal_loss.is_none(),
            domains: state.counters,
            live: state.live,
        }
    };
    let end = activity_state(ACTIVITY_END);
    let record = MemoryRecord {
        capture_id: 2,
        epoch: ACTIVITY_EPOCH,
        mode: MemoryMode::Activity,
        begin_seq: ACTIVITY_BEGIN,
        end_seq: ACTIVITY_END,
        storage_bytes: 16_384,
        domains: ACTIVITY_DOMAINS.iter().map(|&(id, name)| MemoryDomain { id, name: name.into() }).collect(),
        sites: memory_sites(),
        checkpoints: vec![
            checkpoint(0, "level loaded", MemoryExpectation::Retained, 12),
            checkpoint(1, "wave 1", MemoryExpectation::Unspecified, 14),
            checkpoint(2, "end", MemoryExpectation::Unspecified, ACTIVITY_END),
        ],
        events: end.journal,
        health: crate::model::MemoryHealth {
            journal_loss: end.journal_loss,
            table_loss: None,
            recursion: None,
            unknown_baseline_frees: end.unknown_baseline_frees,
            ownership_errors: 0,
        },
    };
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        writer.declare(&declarations)?;
        for (index, (&boundary, &pages)) in ACTIVITY_FRAMES.iter().zip(&wasm_pages).enumerate() {
            // The capture began late in the application's life: frame numbers start at 300.
            let frame_number = 300 + index as u64;
            let base = 1_000_000 * (index as u64 + 1);
            let mut frame = Frame { frame_number, topology: id, culled: vec![false], ..Frame::default() };
            frame.cpu.begin_ns = base;
            frame.cpu.end_ns = base + 16_000;
            frame.spans.push(Span { pass: 0, begin_ns: base, end_ns: base + 40_000, ..Span::default() });
            for (d, c) in activity_state(boundary).counters.iter().enumerate() {
                for (f, value) in gauge_values(c).into_iter().enumerate() {
                    frame.counters.push(CounterSample { counter: (d * fields + f) as u32, value: value as f64 });
                }
            }
            frame.counters.push(CounterSample { counter: gpu_declared, value: declared_bytes as f64 });
            frame.counters.push(CounterSample { counter: wasm_memory, value: (pages * 65_536) as f64 });
            writer.frame(&frame)?;
            if index == 0 {
                let text = format!("provider wgpu.buffer_memory unavailable: {WGPU_UNAVAILABLE}");
                writer.note(&Note { frame_number, text })?;
            }
        }
        writer.memory(&record)?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

/// The writer behind the fixtures below: META and one topology of two GPU passes, `a`
/// and `b`, left open so that hand-made records after them are read by a scan.
fn open_writer() -> Result<Writer<Vec<u8>>, crate::WriteError> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology = Topology {
        gpu_passes: vec![
            GpuPass { label: "a".into(), ..GpuPass::default() },
            GpuPass { label: "b".into(), ..GpuPass::default() },
        ],
        ..Topology::default()
    };
    let mut writer = Writer::new(Vec::new(), &meta)?;
    writer.topology(&topology)?;
    Ok(writer)
}

/// An unclosed capture: [`open_writer`], then each `(type, payload)` as a checksummed
/// record, so that each defect is the one its payload was built to show.
fn open_with(records: &[(FourCc, Vec<u8>)]) -> Vec<u8> {
    let result = (|| {
        let mut writer = open_writer()?;
        for (kind, payload) in records {
            writer.raw_record(*kind, payload)?;
        }
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    result.unwrap_or_default()
}

/// A FRAM payload of frame 0, topology 0: the six summary fields as zeros, `spans`, then
/// empty CPU, culled, command, binding and counter sections.
fn fram(spans: &[u8]) -> (FourCc, Vec<u8>) {
    let mut payload = vec![0; 6];
    payload.extend_from_slice(spans);
    payload.extend_from_slice(&[0; 8]);
    (FourCc::FRAM, payload)
}

/// One sequential span with k = 0 codes, at payload offsets (from the summary's 6
/// bytes): 6 `span_count`, 7 `layout`, 8 `epoch_ns`, 9–11 query-set runs, 12–14 kind
/// runs, 15 `gap_k`, 16 `dur_k`, 17 `bits_len`, 18 the stream (gap 0, duration 0).
const ONE_SPAN: [u8; 13] = [1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0b11];

fn with_span_bytes(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut spans = ONE_SPAN.to_vec();
    edit(&mut spans);
    open_with(&[fram(&spans)])
}

/// The fixtures that pin where SGPT_FORMAT.md §7.1 says each defect is reported and
/// which one §7.2 says wins; `format/tests/defect_fixtures.rs` checks each exactly.
fn defect_fixtures() -> Vec<Fixture> {
    let mut fixtures = Vec::new();
    let mut add = |name, description, bytes| fixtures.push(Fixture { name, description, bytes });

    // A TOPO cut inside its u64 content hash, and a FRAM cut inside its CPU begin varint.
    let mut cut_frame = vec![0; 7];
    cut_frame.push(0x80);
    add(
        "defect_field_cut_short.sgpt",
        "a TOPO whose payload ends inside its content hash (a fixed-width field), and a FRAM whose payload ends inside the CPU begin varint: each malformed at the field's first byte",
        open_with(&[(FourCc::TOPO, vec![0, 1, 2, 3, 4]), (FourCc::FRAM, cut_frame)]),
    );

    // Pass ref −1 from 0, then kind runs summing to 2 of 1 span: the pass ref is read first.
    add(
        "defect_pass_ref_out_of_range.sgpt",
        "a span whose pass ref leads below 0, in a frame whose kind runs also sum past its span count: the pass ref, stored first, is the defect, at its varint's first byte",
        open_with(&[fram(&[1, 0, 0, 1, 1, 1, 0, 1, 2, 0, 0, 0, 1, 0b11])]),
    );

    add(
        "defect_code_parameter.sgpt",
        "gap_k and dur_k both 65: gap_k, read first, is the defect, at its own byte",
        with_span_bytes(|spans| spans[9..11].copy_from_slice(&[65, 65])),
    );

    add(
        "defect_kind_run_value.sgpt",
        "a kind run whose value is 2: malformed at the value's byte",
        with_span_bytes(|spans| spans[8] = 2),
    );

    // Query-set runs (1, 0), (1, 0), (1, 0) for 1 span: the second run overflows.
    add(
        "defect_run_lengths_overflow.sgpt",
        "query-set runs of 1, 1 and 1 for one span: malformed at the second run's length, the first that takes the sum past the span count",
        with_span_bytes(|spans| drop(spans.splice(3..6, [3, 1, 0, 1, 0, 1, 0]))),
    );

    // Three sequential spans (six k = 0 codes) and query-set runs summing to 2.
    add(
        "defect_run_lengths_short.sgpt",
        "three spans whose query-set runs sum to 2: malformed at the column's run_count",
        open_with(&[fram(&[3, 1, 0, 2, 1, 0, 1, 0, 1, 3, 0, 0, 0, 1, 0b11_1111])]),
    );

    add(
        "defect_bit_stream_past_end.sgpt",
        "gap_k 8 with a one-byte stream: the first code needs 9 bits, malformed at the first byte after the stream",
        with_span_bytes(|spans| {
            spans[9] = 8;
            spans[12] = 1;
        }),
    );

    add(
        "defect_bit_stream_zero_run.sgpt",
        "gap_k 0 and a stream of 9 zero bytes: z + k exceeds 64 at stream bit 64, malformed at the stream's byte 8",
        with_span_bytes(|spans| {
            spans[11] = 9;
            spans.truncate(12);
            spans.extend_from_slice(&[0; 9]);
        }),
    );

    add(
        "defect_invalid_utf8.sgpt",
        "a NOTE whose 2-byte text is C3 28, not UTF-8: malformed at the text's first byte, after its sound length",
        open_with(&[(FourCc::NOTE, vec![0, 2, 0xc3, 0x28])]),
    );

    // Four METAs after the first that fail, then one that decodes.
    let meta = |json: &str| {
        let mut payload = vec![0];
        payload.extend_from_slice(json.as_bytes());
        (FourCc::META, payload)
    };
    add(
        "defect_meta_json.sgpt",
        "after the first META, four that fail (an escaped lone surrogate, a BOM, 1.0 as the adapter's vendor, 2^64 as wall_clock_start_unix_ns), each malformed at its first JSON byte, then one that decodes, malformed at its record as a second META",
        open_with(&[
            meta(r#"{"note":"\ud800"}"#),
            meta("\u{feff}{}"),
            meta(r#"{"adapter":{"vendor":1.0}}"#),
            meta(r#"{"wall_clock_start_unix_ns":18446744073709551616}"#),
            meta("{}"),
        ]),
    );

    let mut trailing = minimal();
    trailing.extend_from_slice(b"xyz");
    add(
        "defect_directory_trailing_bytes.sgpt",
        "minimal with 3 bytes after its DIRE: directory_invalid at the first byte the directory does not account for, and those bytes skipped as corrupt",
        trailing,
    );

    // The topology introduced symbols 0 and 1 ("a", "b"). A DECL's block starts at 3
    // (symbol 2 lost) and its string is cut short; the next DECL's block starts at 4.
    add(
        "defect_symbol_gap_block_fails.sgpt",
        "a DECL whose symbol block starts past the known end but whose string is cut short, then a DECL whose block starts after it: the failed block reports only its malformed string; the next names the whole gap, symbols 2..4, once",
        open_with(&[(FourCc::DECL, vec![3, 1, 5, b'h', b'i']), (FourCc::DECL, vec![4, 0, 0])]),
    );

    let bound = (|| {
        let mut writer = open_writer()?;
        let mut frame = Frame::default();
        frame.spans.push(Span { pass: 0, begin_ns: 1_000, end_ns: 2_000, ..Span::default() });
        writer.frame(&frame)?;
        // Frame 1 claims 1,000 spans (E8 07) with 2 bytes left after the count.
        writer.raw_record(FourCc::FRAM, &[1, 0, 0, 0, 0, 0, 0xe8, 0x07, 0, 0])?;
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    add(
        "defect_span_count_bound.sgpt",
        "frame 1 claims 1,000 spans in a 2-byte remainder: indexed (the count fits u32), then malformed at its span_count when decoded; frame 0 and its one span read back",
        bound.unwrap_or_default(),
    );

    // Fields that decode but fail a range check: each at its first byte. Payload offsets:
    // summary 0–5, span_count 6, CPU begin 7, end 8, flags 9, CPU span count 10, culled
    // bit count 11, command count 12.
    let mut dropped = vec![0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0];
    dropped.extend_from_slice(&[0; 8]);
    add(
        "defect_v32_out_of_range.sgpt",
        "a FRAM whose dropped_spans (a v32) is 2^32: malformed at the varint's first byte, and the frame never indexed",
        open_with(&[(FourCc::FRAM, dropped)]),
    );
    add(
        "defect_count_over_bytes_left.sgpt",
        "a FRAM whose CPU span count is 5 with 4 bytes left: malformed at the count's first byte",
        open_with(&[fram_from(&[0, 0, 0, 5, 0, 0, 0, 0])]),
    );
    add(
        "defect_culled_bit_count.sgpt",
        "a FRAM whose culled bit count is 100 with 3 bytes left: malformed at the count's first byte",
        open_with(&[fram_from(&[0, 0, 0, 0, 100, 0, 0, 0])]),
    );
    // One draw indexed: pass delta, pipeline, op 3, indices, instances, first index, then
    // base_vertex zigzag(2^31) = 2^32 at 19, first instance.
    add(
        "defect_base_vertex.sgpt",
        "a draw indexed whose base_vertex is 2^31, outside i32: malformed at the base_vertex varint, not at the op byte",
        open_with(&[fram_from(&[0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0])]),
    );

    fixtures
}

/// A FRAM payload of frame 0, topology 0 with no spans: the summary's six zeros, a span
/// count of 0, then `rest` from the CPU section on.
fn fram_from(rest: &[u8]) -> (FourCc, Vec<u8>) {
    let mut payload = vec![0; 7];
    payload.extend_from_slice(rest);
    (FourCc::FRAM, payload)
}

/// Spans as a device may report them: an end before its begin, and an end that wrapped
/// past 2^64. Neither is a defect; both are stored and read back exactly.
fn inverted_spans() -> Vec<u8> {
    let result = (|| {
        let mut writer = open_writer()?;
        let mut frame = Frame::default();
        frame.spans.push(Span { pass: 0, begin_ns: 5_000, end_ns: 4_000, ..Span::default() });
        frame.spans.push(Span { pass: 1, begin_ns: u64::MAX - 10, end_ns: 20, ..Span::default() });
        writer.frame(&frame)?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

/// Every fixture of format version 1.
#[must_use]
pub fn all() -> Vec<Fixture> {
    let mut fixtures =
        vec![Fixture { name: "minimal.sgpt", description: "one frame, one pass, level timing", bytes: minimal() }];
    for (name, level) in [
        ("level_timing.sgpt", Level::Timing),
        ("level_structure.sgpt", Level::Structure),
        ("level_workload.sgpt", Level::Workload),
        ("level_verbose.sgpt", Level::Verbose),
    ] {
        fixtures.push(Fixture {
            name,
            description: "16 synthetic frames of 20 passes at this level",
            bytes: closed(&small(level)),
        });
    }

    let whole = closed(&small(Level::Structure));
    let cut = frame_offset(&whole, 10) + 40;
    fixtures.push(Fixture {
        name: "truncated.sgpt",
        description: "level_structure cut 40 bytes into frame 10's record, as by a partial download: the header says closed, the directory is gone; frames 0-9 survive",
        bytes: whole[..cut].to_vec(),
    });

    let mut corrupted = whole.clone();
    let hit = frame_offset(&whole, 6) + 30;
    for byte in &mut corrupted[hit..hit + 8] {
        *byte ^= 0xa5;
    }
    fixtures.push(Fixture {
        name: "corrupted.sgpt",
        description: "level_structure with 8 bytes flipped inside frame 6's payload; every other frame survives",
        bytes: corrupted,
    });

    let workload = small(Level::Structure);
    let never_closed = (|| {
        let mut writer = Writer::new(Vec::new(), &workload.meta)?;
        workload.write_into(&mut writer)?;
        // Dropped without `finish`: no directory, no CLOSED flag, as after a tab kill.
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    fixtures.push(Fixture {
        name: "never_closed.sgpt",
        description: "level_structure whose writer never reached stop",
        bytes: never_closed.unwrap_or_default(),
    });

    let unknown = (|| {
        let mut writer = Writer::new(Vec::new(), &workload.meta)?;
        workload.write_into(&mut writer)?;
        writer.raw_record(FourCc(*b"XTRA"), b"a record type from a newer writer")?;
        writer.finish()
    })();
    fixtures.push(Fixture {
        name: "unknown_record.sgpt",
        description: "level_structure plus an XTRA record a v1 reader does not know; skipped by length",
        bytes: unknown.unwrap_or_default(),
    });

    let mut zeros = small(Level::Timing);
    for frame in &mut zeros.frames {
        for span in &mut frame.spans {
            span.begin_ns = span.begin_ns / 100_000 * 100_000;
            span.end_ns = span.begin_ns;
        }
    }
    fixtures.push(Fixture {
        name: "zero_durations.sgpt",
        description: "every span reads exactly 0 ns, as on a quantizing browser",
        bytes: closed(&zeros),
    });

    let mut dropped = small(Level::Timing);
    for (index, frame) in dropped.frames.iter_mut().enumerate() {
        if index % 4 == 1 {
            frame.spans.truncate(frame.spans.len() - 5);
            frame.dropped_spans = 5;
        }
    }
    fixtures.push(Fixture {
        name: "dropped_spans.sgpt",
        description: "every fourth frame (1, 5, 9, 13) lost 5 spans to a full timer pool",
        bytes: closed(&dropped),
    });

    fixtures.push(Fixture {
        name: "html_labels.sgpt",
        description: "labels, names and notes containing HTML and script",
        bytes: html_labels(),
    });

    let mut newer = minimal();
    let mut header = Header::decode(&newer).unwrap_or_else(|_| Header::open());
    header.format_version = 2;
    header.min_reader_version = 2;
    newer[..HEADER_LEN].copy_from_slice(&header.encode());
    fixtures.push(Fixture {
        name: "newer_version.sgpt",
        description: "minimal, but declaring min_reader_version 2: a v1 reader must refuse it",
        bytes: newer,
    });
    fixtures.push(Fixture {
        name: "memory.sgpt",
        description: "8 frames with per-frame gauges of 3 memory domains, and one MEMO record: a complete-mode capture whose scene unloads and reloads between checkpoints",
        bytes: memory(),
    });
    fixtures.push(Fixture {
        name: "memory_activity_loss.sgpt",
        description: "8 browser frames (300-307) with memory and provider gauges, and an activity-mode MEMO record that began late (3 unknown-baseline frees), lost operations 14-17 to a full journal, and saw scratch's counters saturate; wgpu.buffer_memory is declared, never sampled, and noted unavailable",
        bytes: memory_activity_loss(),
    });
    fixtures.extend(defect_fixtures());
    fixtures.push(Fixture {
        name: "inverted_spans.sgpt",
        description: "a span whose end precedes its begin and one whose end wrapped past 2^64: intact, stored and read back exactly",
        bytes: inverted_spans(),
    });
    fixtures
}

/// Writes every fixture missing from `dir`; existing files are never touched.
/// Returns the paths written.
pub fn write_all(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for fixture in all() {
        let path = dir.join(fixture.name);
        if !path.exists() {
            std::fs::write(&path, &fixture.bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}
