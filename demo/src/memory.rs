//! The demo's memory profile: three allocation domains (scene, particles, per-frame
//! scratch) in a [`Ledger`], and an investigative capture around a scene unload and
//! reload, so the recorded checkpoints show released blocks, new blocks and survivors.
//!
//! The data here is the CPU side of a game's scene (transforms, materials, a name
//! table, particle state); the GPU side lives in [`crate::Scene`].

use core::sync::atomic::{AtomicU64, Ordering};

use allocator_api2::vec::Vec as DomainVec;
use sgpt_memory::{
    CaptureConfig, CaptureId, CaptureMode, Domain, DomainAlloc, Expectation, Ledger, MemoryCapture, site,
};

/// Frame of the checkpoint taken with the scene loaded.
pub const LOADED_FRAME: u64 = 40;
/// Frame the scene is unloaded, then checkpointed.
pub const UNLOAD_FRAME: u64 = 80;
/// Frame the scene is loaded again.
pub const RELOAD_FRAME: u64 = 120;
/// Frame of the checkpoint after the reload.
pub const RELOADED_FRAME: u64 = 160;

/// The ledger `sgpt-demo` accounts into: one per process, so handles may outlive scopes.
#[must_use]
pub fn process_ledger() -> &'static Ledger {
    static LEDGER: Ledger = Ledger::new();
    &LEDGER
}

/// The frame [`DemoMemory::frame`] last ran: the capture's clock, so ages read in frames.
static FRAME: AtomicU64 = AtomicU64::new(0);

fn capture_clock() -> u64 {
    FRAME.load(Ordering::Relaxed)
}

/// Loaded scene data: dropped whole on unload.
#[derive(Debug)]
struct SceneData {
    transforms: DomainVec<[f32; 16], DomainAlloc>,
    materials: DomainVec<u32, DomainAlloc>,
}

/// The demo's domains, its data and the capture around them.
#[derive(Debug)]
pub struct DemoMemory {
    ledger: &'static Ledger,
    scene: Domain,
    particles: Domain,
    scratch: Domain,
    instances: usize,
    capture: Option<CaptureId>,
    begin_error: Option<String>,
    loaded: Option<SceneData>,
    /// Scene names interned on first load and kept across reloads: what the capture's
    /// diff reports as surviving the unload.
    names: DomainVec<u8, DomainAlloc>,
    particle_state: DomainVec<[f32; 4], DomainAlloc>,
    /// This frame's visible-instance list, replaced every frame.
    visible: DomainVec<u32, DomainAlloc>,
}

impl DemoMemory {
    /// Registers the domains, begins a capture and loads the scene (`instances` cubes,
    /// `particles` particles). The capture is Complete when every domain starts empty,
    /// else Activity; when `begin` is refused (another capture is active) the domains
    /// still count and [`DemoMemory::begin_error`] says why there is no capture.
    #[must_use]
    pub fn new(ledger: &'static Ledger, instances: u32, particles: u32) -> Self {
        let scene = ledger.domain_or_unknown("scene");
        let particle_domain = ledger.domain_or_unknown("particles");
        let scratch = ledger.domain_or_unknown("scratch");
        let domains = vec![scene, particle_domain, scratch];
        // Sized for the scene's blocks plus two scratch events a frame for a few thousand
        // frames; a longer run records journal loss rather than growing.
        let config = CaptureConfig {
            mode: CaptureMode::Complete,
            domains,
            table_entries: 1024,
            journal_events: 1 << 14,
            checkpoints: 8,
            checkpoint_entries: 4096,
            clock: Some(capture_clock),
        };
        let begun = ledger
            .begin(&config)
            .or_else(|_| ledger.begin(&CaptureConfig { mode: CaptureMode::Activity, ..config.clone() }));
        let (capture, begin_error) = match begun {
            Ok(capture) => (Some(capture), None),
            Err(error) => (None, Some(error.to_string())),
        };
        let mut names = DomainVec::new_in(ledger.allocator(scene).with_site(site!("scene/names")));
        names.extend_from_slice(b"cubes\0ground\0particles\0lights\0");
        let mut particle_state = DomainVec::with_capacity_in(
            particles as usize,
            ledger.allocator(particle_domain).with_site(site!("particles/state")),
        );
        particle_state.resize(particles as usize, [0.0; 4]);
        let mut memory = Self {
            ledger,
            scene,
            particles: particle_domain,
            scratch,
            instances: instances as usize,
            capture,
            begin_error,
            loaded: None,
            names,
            particle_state,
            visible: DomainVec::new_in(ledger.allocator(scratch).with_site(site!("scratch/visible"))),
        };
        memory.load();
        memory
    }

    /// The ledger the domains live in (what the session gauges).
    #[must_use]
    pub fn ledger(&self) -> &'static Ledger {
        self.ledger
    }

    /// The scene, particles and scratch domains.
    #[must_use]
    pub fn domains(&self) -> [Domain; 3] {
        [self.scene, self.particles, self.scratch]
    }

    /// Why no capture is recording, if none is.
    #[must_use]
    pub fn begin_error(&self) -> Option<&str> {
        self.begin_error.as_deref()
    }

    /// Whether the scene data is loaded.
    #[must_use]
    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    fn load(&mut self) {
        let alloc = self.ledger.allocator(self.scene);
        let mut transforms = DomainVec::with_capacity_in(self.instances, alloc.with_site(site!("scene/transforms")));
        transforms.extend((0..self.instances).map(|i| {
            let mut matrix = [0.0; 16];
            (matrix[0], matrix[5], matrix[10], matrix[15]) = (1.0, 1.0, 1.0, 1.0);
            matrix[12] = i as f32;
            matrix
        }));
        let mut materials = DomainVec::with_capacity_in(self.instances, alloc.with_site(site!("scene/materials")));
        // One material per interned name kind.
        let kinds = self.names.iter().filter(|&&byte| byte == 0).count().max(1);
        materials.extend((0..self.instances).map(|i| (i % kinds) as u32));
        self.loaded = Some(SceneData { transforms, materials });
    }

    /// Runs frame `frame`'s CPU-side memory work: the scratch list, and the unload /
    /// reload with its checkpoints at the frames above.
    pub fn frame(&mut self, frame: u64) {
        FRAME.store(frame, Ordering::Relaxed);
        // A fresh list each frame, as a per-frame arena would hand out.
        let mut visible = DomainVec::with_capacity_in(self.instances, *self.visible.allocator());
        visible.extend((0..self.instances as u32).filter(|i| i % 3 != 0));
        self.visible = visible;
        for state in &mut self.particle_state {
            state[3] += 1.0;
        }
        match frame {
            LOADED_FRAME => self.checkpoint("loaded", 1, Expectation::Retained),
            UNLOAD_FRAME => {
                self.loaded = None;
                // Unspecified, not Released: scratch blocks are new here by design.
                self.checkpoint("unloaded", 1, Expectation::Unspecified);
            }
            RELOAD_FRAME => self.load(),
            RELOADED_FRAME => self.checkpoint("reloaded", 2, Expectation::Retained),
            _ => {}
        }
        debug_assert!(self.loaded.as_ref().is_none_or(|data| data.transforms.len() == data.materials.len()));
    }

    fn checkpoint(&self, name: &str, owner: u64, expectation: Expectation) {
        if let Some(capture) = self.capture {
            // A refused checkpoint (storage exhausted) is visible as its absence.
            let _ = self.ledger.checkpoint(capture, name, owner, expectation);
        }
    }

    /// Ends and exports the capture (releasing its storage), if one was recording.
    pub fn finish(&mut self) -> Option<MemoryCapture> {
        let capture = self.capture.take()?;
        let exported = self.ledger.end(capture).ok().and_then(|_| self.ledger.export(capture).ok());
        let _ = self.ledger.release(capture);
        exported
    }
}

impl Drop for DemoMemory {
    fn drop(&mut self) {
        // A capture never finished would block the next `begin` on this ledger.
        if let Some(capture) = self.capture.take() {
            let _ = self.ledger.end(capture);
            let _ = self.ledger.release(capture);
        }
    }
}
