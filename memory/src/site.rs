//! Allocation sites: numeric ids for source locations, from a bounded process-wide registry
//! whose definitions (file, line, column, name) are copied into captures.

use core::panic::Location;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::sync::SpinLock;

/// How many sites the process can name, [`Site::UNKNOWN`] included.
pub const MAX_SITES: usize = 1024;
// Twice the sites, so the index's probe chains stay short when it is full.
const INDEX_SLOTS: usize = MAX_SITES * 2;

/// Where a block was allocated: a numeric id, cheap to store in every record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Site(u32);

impl Site {
    /// An unknown site. It does not make a counted block invalid, only unattributed.
    pub const UNKNOWN: Self = Self(0);

    /// The numeric id, as it appears in records.
    #[must_use]
    pub const fn index(self) -> u32 {
        self.0
    }

    /// A site from its numeric id, for decoding records.
    #[must_use]
    pub const fn from_raw(index: u32) -> Self {
        Self(index)
    }

    /// The caller's source location as a site, registering it on first use. A lookup
    /// under a lock: call it where a handle is made, not per allocation (or use [`site!`](crate::site!)).
    #[track_caller]
    #[must_use]
    pub fn caller() -> Self {
        let location = Location::caller();
        register_site(SiteDef { file: location.file(), line: location.line(), column: location.column(), name: "" })
    }
}

/// A site's definition. Strings are `'static`, so a definition outlives every record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteDef {
    pub file: &'static str,
    pub line: u32,
    pub column: u32,
    /// Optional label; empty when the site is only a location.
    pub name: &'static str,
}

impl SiteDef {
    const UNKNOWN: Self = Self { file: "", line: 0, column: 0, name: "unknown" };
}

struct Registry {
    defs: [SiteDef; MAX_SITES],
    len: usize,
    // Open-addressed index from location to id; 0 is an empty slot (id 0 is never indexed).
    index: [u16; INDEX_SLOTS],
}

static REGISTRY: SpinLock<Registry> =
    SpinLock::new(Registry { defs: [SiteDef::UNKNOWN; MAX_SITES], len: 1, index: [0; INDEX_SLOTS] });
static FAILURES: AtomicU64 = AtomicU64::new(0);

fn slot_of(def: &SiteDef) -> usize {
    // FNV-1a over the location; the name does not distinguish sites.
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    for byte in def.file.bytes().chain(def.line.to_le_bytes()).chain(def.column.to_le_bytes()) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash % INDEX_SLOTS as u64) as usize
}

/// Registers a site (or finds the one already at that file, line and column). A full
/// registry returns [`Site::UNKNOWN`] and is counted in [`site_registration_failures`]:
/// exhaustion reduces attribution and never fails an allocation.
#[must_use]
pub fn register_site(def: SiteDef) -> Site {
    let mut registry = REGISTRY.lock();
    let mut slot = slot_of(&def);
    loop {
        let id = registry.index[slot];
        if id == 0 {
            break;
        }
        let known = registry.defs[usize::from(id)];
        if known.file == def.file && known.line == def.line && known.column == def.column {
            return Site(u32::from(id));
        }
        slot = (slot + 1) % INDEX_SLOTS;
    }
    let id = registry.len;
    if id >= MAX_SITES {
        drop(registry);
        FAILURES.fetch_add(1, Ordering::Relaxed);
        return Site::UNKNOWN;
    }
    let short = id as u16; // MAX_SITES fits in u16
    registry.defs[id] = def;
    registry.index[slot] = short;
    registry.len += 1;
    Site(u32::from(short))
}

/// The definition of `site`, if it was registered.
#[must_use]
pub fn site_definition(site: Site) -> Option<SiteDef> {
    let registry = REGISTRY.lock();
    let index = usize::try_from(site.0).ok()?;
    (index < registry.len).then(|| registry.defs[index])
}

/// Every registered site, [`Site::UNKNOWN`] first, for copying into a capture.
#[must_use]
pub fn site_definitions() -> Vec<(Site, SiteDef)> {
    // Reserve before locking: nothing allocates under the registry lock.
    let mut out = Vec::with_capacity(MAX_SITES);
    let registry = REGISTRY.lock();
    out.extend((0..registry.len).map(|index| (Site(index as u32), registry.defs[index])));
    out
}

/// How many registrations found the registry full.
#[must_use]
pub fn site_registration_failures() -> u64 {
    FAILURES.load(Ordering::Relaxed)
}

/// A per-call-site cache behind [`site!`](crate::site!): registers once, then one atomic load.
#[derive(Debug)]
pub struct SiteCell(AtomicU32);

const UNSET: u32 = u32::MAX;

impl SiteCell {
    #[must_use]
    pub const fn new() -> Self {
        Self(AtomicU32::new(UNSET))
    }

    pub fn get_or_register(&self, def: SiteDef) -> Site {
        match self.0.load(Ordering::Relaxed) {
            UNSET => {
                // Racing first uses register the same location and get the same id.
                let site = register_site(def);
                self.0.store(site.0, Ordering::Relaxed);
                site
            }
            id => Site(id),
        }
    }
}

impl Default for SiteCell {
    fn default() -> Self {
        Self::new()
    }
}

/// The [`Site`] of this source location, optionally named; registered on first use and
/// cached in a static afterwards.
///
/// ```
/// let site = sgpt_memory::site!("particles/spawn");
/// let def = sgpt_memory::site_definition(site).expect("registered");
/// assert_eq!(def.name, "particles/spawn");
/// ```
#[macro_export]
macro_rules! site {
    () => {
        $crate::site!("")
    };
    ($name:expr) => {{
        static CELL: $crate::SiteCell = $crate::SiteCell::new();
        CELL.get_or_register($crate::SiteDef { file: file!(), line: line!(), column: column!(), name: $name })
    }};
}
