//! The memory fixtures the real ledger writes (`fixtures/v1/memory_ledger*.sgpt`): a
//! private [`Ledger`] driven through a script on a simulated clock, its sealed capture
//! exported and converted by [`memory_record`], and the frames around it gauged by the
//! session's own `Gauges` (`memory.rs`) at each frame's end.
//!
//! Here in the library rather than in the example that writes them, because the example
//! and `tests/memory_fixtures.rs` must run the same code and an example cannot be
//! imported; and always compiled, not behind a feature, so that the test is never
//! silently left out of a run that does not name the feature.
//!
//! Site ids and thread numbers are process-wide: [`all`] writes the committed bytes only
//! in a process where no other site was registered and no other thread recorded first.

use core::alloc::Layout;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, Ordering};

use sgpt_format::{
    CounterDef, CounterSample, CounterUnit, Declaration, Frame, GpuPass, GpuPassKind, GraphPass, Level,
    MEMORY_GAUGE_FIELDS, Meta, Note, ResourceDesc, ResourceNode, Span, TextureDimension, Topology, WriteError, Writer,
    provider_gauge_name,
};
use sgpt_memory::{CaptureConfig, CaptureId, CaptureMode, Domain, Expectation, Ledger, Site, SiteDef, register_site};

use crate::memory::{Gauges, MemorySource, memory_record};
use crate::providers::{DECLARED_BYTES, LINEAR_MEMORY, declared_bytes};

/// One fixture: its file name, what it exercises, and its bytes.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: &'static str,
    pub description: &'static str,
    pub bytes: Vec<u8>,
}

/// Both fixtures, in the order `cargo xtask fixtures` writes them.
///
/// # Panics
///
/// If the ledger refuses the script (a domain, a begin, a checkpoint) or the writer
/// refuses a record: both are defects of this generator.
#[must_use]
pub fn all() -> Vec<Fixture> {
    vec![
        Fixture {
            name: "memory_ledger.sgpt",
            description: "8 frames gauging the ledger's domains, and the complete-mode MEMO record the ledger exported: a scene loaded, unloaded and reloaded at the same address, particles that outlive it, scratch freed at once, a refused allocation, and checkpoints expecting retained, released and unspecified",
            bytes: complete().unwrap_or_else(|error| panic!("memory_ledger.sgpt: {error}")),
        },
        Fixture {
            name: "memory_ledger_activity.sgpt",
            description: "8 frames (300-307) gauging the ledger's domains and providers, and the activity-mode MEMO record of a capture that began late: unknown-baseline frees, a journal that filled, and scratch's counters saturated by a free charged to it",
            bytes: activity().unwrap_or_else(|error| panic!("memory_ledger_activity.sgpt: {error}")),
        },
    ]
}

/// The simulated clock: nanoseconds, advanced by the script, never read from the host.
static NOW: AtomicU64 = AtomicU64::new(0);

fn clock() -> u64 {
    NOW.load(Ordering::Relaxed)
}

/// Moves the clock on by 1 µs, once before each ledger call that reads it.
fn tick() -> u64 {
    NOW.fetch_add(1_000, Ordering::Relaxed) + 1_000
}

/// Where the script's blocks live: addresses never dereferenced, only compared.
fn address(block: usize) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut(0x10_0000 + 0x1000 * block)).unwrap_or(NonNull::dangling())
}

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 16).unwrap_or(Layout::new::<u8>())
}

/// The three domains an application of the demo's shape registers, after `unknown`.
struct Domains {
    scene: Domain,
    particles: Domain,
    scratch: Domain,
}

/// The sites each domain allocates from, registered in this order (ids 1 to 3).
struct Sites {
    scene: Site,
    particles: Site,
    scratch: Site,
}

fn sites() -> Sites {
    let site = |file, line, column, name| register_site(SiteDef { file, line, column, name });
    Sites {
        scene: site("demo/src/scene.rs", 42, 9, "scene load"),
        particles: site("demo/src/particles.rs", 17, 5, ""),
        scratch: site("demo/src/frame.rs", 88, 13, "scratch"),
    }
}

/// A fresh ledger, leaked because domain handles borrow it for `'static`, and its domains.
fn ledger() -> Result<(&'static Ledger, Domains), String> {
    let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
    let register = |name| ledger.register_domain(name).map_err(|error| error.to_string());
    let domains =
        Domains { scene: register("scene")?, particles: register("particles")?, scratch: register("scratch")? };
    Ok((ledger, domains))
}

fn config(mode: CaptureMode, domains: &Domains, journal_events: usize) -> CaptureConfig {
    CaptureConfig {
        mode,
        domains: vec![domains.scene, domains.particles, domains.scratch],
        table_entries: 16,
        journal_events,
        checkpoints: 4,
        checkpoint_entries: 64,
        clock: Some(clock),
    }
}

/// The script's ledger calls, each on its own tick of the clock.
struct Script {
    ledger: &'static Ledger,
    capture: Option<CaptureId>,
}

impl Script {
    fn alloc(&self, domain: Domain, site: Site, block: usize, size: usize) {
        tick();
        self.ledger.record_allocation(domain, site, address(block), layout(size));
    }

    fn free(&self, domain: Domain, block: usize, size: usize) {
        tick();
        self.ledger.record_free(domain, address(block), layout(size));
    }

    fn refused(&self, domain: Domain, site: Site, size: usize) {
        tick();
        self.ledger.record_failure(domain, site, layout(size));
    }

    fn checkpoint(&self, name: &str, owner: u64, expectation: Expectation) -> Result<(), String> {
        let capture = self.capture.ok_or("a checkpoint outside the capture")?;
        tick();
        self.ledger.checkpoint(capture, name, owner, expectation).map(drop).map_err(|error| error.to_string())
    }

    /// Ends the capture and converts what the ledger exports.
    fn end(&self) -> Result<sgpt_format::MemoryRecord, String> {
        let capture = self.capture.ok_or("no capture to end")?;
        tick();
        self.ledger.end(capture).map_err(|error| error.to_string())?;
        let exported = self.ledger.export(capture).map_err(|error| error.to_string())?;
        Ok(memory_record(&exported))
    }
}

/// Frames as a session writes them around the ledger: CPU times on the simulated clock,
/// one pass span, and the gauges sampled at the frame's end.
struct Frames {
    writer: Writer<Vec<u8>>,
    gauges: Gauges,
    topology: sgpt_format::TopologyId,
    begin_ns: u64,
    /// Written before the first frame, as the session writes its provider notes.
    notes: Vec<String>,
}

impl Frames {
    fn new(
        meta: &Meta,
        topology: &Topology,
        ledger: &'static Ledger,
        providers: &[(&str, CounterUnit)],
        notes: Vec<String>,
    ) -> Result<Self, WriteError> {
        let mut writer = Writer::new(Vec::new(), meta)?;
        let topology = writer.topology(topology)?;
        // Counter ids as the session gives them: the domain gauges from 0, then the providers.
        let (gauges, mut counters) = Gauges::new(MemorySource(ledger), 0);
        for &(metric, unit) in providers {
            let id = counters.len() as u32;
            counters.push(Declaration::Counter(CounterDef { id, name: provider_gauge_name(metric), unit }));
        }
        writer.declare(&counters)?;
        Ok(Self { writer, gauges, topology, begin_ns: clock(), notes })
    }

    /// Ends frame `frame_number` now; `extra` are samples after the gauges (providers).
    fn end(&mut self, frame_number: u64, culled: Vec<bool>, extra: &[CounterSample]) -> Result<(), WriteError> {
        let end_ns = tick();
        let mut frame = Frame { frame_number, topology: self.topology, culled, ..Frame::default() };
        frame.cpu.begin_ns = self.begin_ns;
        frame.cpu.end_ns = end_ns;
        frame.spans.push(Span { pass: 0, begin_ns: self.begin_ns, end_ns: self.begin_ns + 400, ..Span::default() });
        self.gauges.sample(&mut frame.counters);
        frame.counters.extend_from_slice(extra);
        for text in std::mem::take(&mut self.notes) {
            self.writer.note(&Note { frame_number, text })?;
        }
        self.writer.frame(&frame)?;
        self.begin_ns = end_ns;
        Ok(())
    }
}

/// A complete-mode capture from an empty baseline.
fn complete() -> Result<Vec<u8>, String> {
    NOW.store(0, Ordering::Relaxed);
    let (ledger, d) = ledger()?;
    let s = sites();
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: "main".into(), ..GpuPass::default() }], ..Topology::default() };
    let mut frames = Frames::new(&meta, &topology, ledger, &[], Vec::new()).map_err(|error| error.to_string())?;
    let capture = ledger.begin(&config(CaptureMode::Complete, &d, 64)).map_err(|error| error.to_string())?;
    let script = Script { ledger, capture: Some(capture) };
    let mut frame = |number| frames.end(number, Vec::new(), &[]).map_err(|error| error.to_string());

    // Frame 0: the scene loads; the particle system starts.
    script.alloc(d.scene, s.scene, 1, 4096);
    script.alloc(d.scene, s.scene, 2, 1024);
    script.alloc(d.particles, s.particles, 3, 256);
    script.checkpoint("loaded", 1, Expectation::Retained)?;
    frame(0)?;
    // Frame 1: the emitter grows, and a scratch buffer comes and goes.
    script.alloc(d.particles, s.particles, 4, 512);
    script.alloc(d.scratch, s.scratch, 5, 64);
    script.free(d.scratch, 5, 64);
    frame(1)?;
    // Frame 2: the scene unloads; the particles stay, which "released" expected not.
    script.free(d.scene, 1, 4096);
    script.free(d.scene, 2, 1024);
    script.checkpoint("unloaded", 1, Expectation::Released)?;
    frame(2)?;
    // Frame 3: scratch asks for 1 TiB and is refused.
    script.refused(d.scratch, s.scratch, 1 << 40);
    frame(3)?;
    // Frame 4: the scene reloads, its first block at the address the first load used.
    script.alloc(d.scene, s.scene, 1, 4096);
    script.alloc(d.scene, s.scene, 6, 1024);
    frame(4)?;
    // Frames 5 and 6: scratch again, then the reloaded scene is checked.
    script.alloc(d.scratch, s.scratch, 5, 128);
    script.free(d.scratch, 5, 128);
    frame(5)?;
    script.checkpoint("reloaded", 2, Expectation::Unspecified)?;
    frame(6)?;
    frame(7)?;
    let record = script.end()?;

    let mut writer = frames.writer;
    writer.memory(&record).map_err(|error| error.to_string())?;
    writer.finish().map_err(|error| error.to_string())
}

/// The activity fixture's topology: one graph pass reading an imported vertex buffer and
/// writing an HDR target, whose declared bytes the `gpu.declared_bytes` provider reports.
fn browser_topology() -> Topology {
    Topology {
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
    }
}

/// Journal room of the activity capture: its first 8 operations fit, the rest are lost.
const ACTIVITY_JOURNAL: usize = 8;

/// An activity-mode capture that begins after the application has been running.
fn activity() -> Result<Vec<u8>, String> {
    NOW.store(0, Ordering::Relaxed);
    let (ledger, d) = ledger()?;
    let s = sites();
    let meta = Meta { level: Some(Level::Structure), timestamp_query: true, ..Meta::default() };
    let topology = browser_topology();
    let declared = declared_bytes(&topology.resources, &mut Vec::new());
    // The providers a session declares whether or not they answer: natively the linear
    // memory cannot, which is said in a note, never written as 0.
    let linear = sgpt_memory::wasm_linear_memory();
    let notes = match linear.reading {
        sgpt_memory::Reading::Available(_) => Vec::new(),
        // As the session words it.
        sgpt_memory::Reading::Unavailable(reason) => vec![format!("provider {LINEAR_MEMORY} unavailable: {reason}")],
    };
    let providers = [(DECLARED_BYTES, CounterUnit::Bytes), (LINEAR_MEMORY, CounterUnit::Bytes)];
    let mut frames = Frames::new(&meta, &topology, ledger, &providers, notes).map_err(|error| error.to_string())?;
    // Provider ids follow the gauges of the four domains, `unknown` included.
    let declared_id = 4 * MEMORY_GAUGE_FIELDS.len() as u32;
    let mut samples = vec![CounterSample { counter: declared_id, value: declared as f64 }];
    if let Some(bytes) = linear.reading.value() {
        samples.push(CounterSample { counter: declared_id + 1, value: bytes as f64 });
    }

    // Before the capture: counted by the domains, seen by no capture.
    let before = Script { ledger, capture: None };
    before.alloc(d.scene, s.scene, 1, 8192);
    before.alloc(d.scene, s.scene, 2, 2048);
    before.alloc(d.particles, s.particles, 3, 512);
    before.alloc(d.scratch, s.scratch, 4, 64);
    before.free(d.scratch, 4, 64);

    let capture =
        ledger.begin(&config(CaptureMode::Activity, &d, ACTIVITY_JOURNAL)).map_err(|error| error.to_string())?;
    let script = Script { ledger, capture: Some(capture) };
    let mut frame = |number| frames.end(number, vec![false], &samples).map_err(|error| error.to_string());

    // Frame 300: a particle burst, and a scene block from before the capture freed.
    script.alloc(d.particles, s.particles, 5, 256);
    script.free(d.scene, 2, 2048);
    frame(300)?;
    // Frame 301: scratch comes and goes; the scene streams a block in.
    script.alloc(d.scratch, s.scratch, 6, 128);
    script.free(d.scratch, 6, 128);
    script.alloc(d.scene, s.scene, 7, 4096);
    frame(301)?;
    // Frame 302: the particles from before the capture are freed, then a block of the
    // scene's is freed through scratch: scratch's counters underflow and stay invalid.
    script.free(d.particles, 3, 512);
    script.checkpoint("level loaded", 1, Expectation::Retained)?;
    script.free(d.scratch, 1, 8192);
    frame(302)?;
    // Frame 303: the journal fills with this allocation.
    script.alloc(d.particles, s.particles, 8, 256);
    script.checkpoint("wave 1", 1, Expectation::Unspecified)?;
    frame(303)?;
    // Frames 304 to 307: lost to the journal, followed by the live table.
    script.alloc(d.scratch, s.scratch, 9, 64);
    frame(304)?;
    script.free(d.particles, 5, 256);
    frame(305)?;
    script.alloc(d.scene, s.scene, 10, 1024);
    frame(306)?;
    script.free(d.scratch, 9, 64);
    frame(307)?;
    let record = script.end()?;

    let mut writer = frames.writer;
    writer.memory(&record).map_err(|error| error.to_string())?;
    writer.finish().map_err(|error| error.to_string())
}
