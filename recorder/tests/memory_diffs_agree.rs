//! The checkpoint diff is written twice: `MemoryCapture::diff` on the ledger's export and
//! `MemoryRecord::diff` on the MEMO record the recorder writes from it. On random journals
//! driven through a real ledger, both must answer the same for every pair of checkpoints.

use core::alloc::Layout;
use core::cell::Cell;
use core::ptr::NonNull;

use sgpt_memory::{
    CaptureConfig, CaptureMode, CheckpointError, CheckpointId, Domain, Expectation, Ledger, MemoryCapture, Site,
};
use sgpt_recorder::{memory_diff, memory_record};

const JOURNALS: u64 = 600;
/// Distinct addresses a journal draws from: few, so addresses are reused often.
const ADDRESS_SLOTS: usize = 24;

/// SplitMix64: every journal is reproducible from its seed alone.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    fn percent(&mut self, chance: usize) -> bool {
        self.below(100) < chance
    }
}

thread_local! {
    /// The capture clock's ticks, advanced by the journal itself: no wall clock.
    static TICKS: Cell<u64> = const { Cell::new(0) };
}

fn ticks() -> u64 {
    TICKS.with(Cell::get)
}

fn at(slot: usize) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut((slot + 1) * 64)).expect("non-zero address")
}

fn layout(size: usize, align: usize) -> Layout {
    Layout::from_size_align(size, align).expect("valid layout")
}

/// What the journal believes is live at each address: the domain and layout to free it with.
type Model = [Option<(Domain, Layout)>; ADDRESS_SLOTS];

/// How often each shape of diff occurred, so the generator is shown to reach them all.
#[derive(Default)]
struct Reached {
    pairs: usize,
    new_live: usize,
    released: usize,
    survivors: usize,
    inexact: usize,
    violated: usize,
    refused_checkpoints: usize,
}

/// A random journal through the ledger's public API, sealed and exported.
fn journal(seed: u64, reached: &mut Reached) -> MemoryCapture {
    let mut rng = SplitMix(seed);
    let ledger = Ledger::new();
    let domains = [
        ledger.register_domain("scene").expect("room"),
        ledger.register_domain("audio").expect("room"),
        ledger.register_domain("ui").expect("room"),
    ];
    let sites = [Site::UNKNOWN, sgpt_memory::site!("diffs/mesh"), sgpt_memory::site!("diffs/texture")];
    let mode = if rng.percent(50) { CaptureMode::Activity } else { CaptureMode::Complete };
    let mut model: Model = [None; ADDRESS_SLOTS];
    if mode == CaptureMode::Activity {
        // Blocks from before the capture: their frees are unknown to it.
        for (slot, entry) in model.iter_mut().enumerate() {
            if rng.percent(20) {
                let domain = domains[rng.below(domains.len())];
                let block = layout(8 + rng.below(64), 8);
                ledger.record_allocation(domain, Site::UNKNOWN, at(slot), block);
                *entry = Some((domain, block));
            }
        }
    }
    let mut included: Vec<Domain> = domains.iter().copied().filter(|_| rng.percent(60)).collect();
    if included.is_empty() {
        included.push(domains[rng.below(domains.len())]);
    }
    let config = CaptureConfig {
        mode,
        domains: included,
        // Small limits, so table loss and checkpoint exhaustion happen too.
        table_entries: 1 + rng.below(ADDRESS_SLOTS),
        journal_events: 1 + rng.below(128),
        checkpoints: rng.below(7),
        checkpoint_entries: rng.below(64),
        clock: Some(ticks),
    };
    TICKS.with(|t| t.set(rng.below(1000) as u64));
    let capture = ledger.begin(&config).expect("a fresh ledger with an empty or unrecorded baseline begins");
    for _ in 0..rng.below(160) {
        TICKS.with(|t| t.set(t.get() + rng.below(5) as u64));
        let slot = rng.below(ADDRESS_SLOTS);
        match rng.below(100) {
            0..45 => {
                let domain = domains[rng.below(domains.len())];
                let block = layout(rng.below(256) + 1, 1 << rng.below(5));
                // An address already live is allocated again only as a broken contract.
                if model[slot].is_none() || rng.percent(5) {
                    ledger.record_allocation(domain, sites[rng.below(sites.len())], at(slot), block);
                    model[slot] = Some((domain, block));
                }
            }
            45..85 => match model[slot].take() {
                Some((domain, block)) => ledger.record_free(domain, at(slot), block),
                // A free of a block the ledger never saw, or once a wrong-size free.
                None if rng.percent(10) => ledger.record_free(domains[0], at(slot), layout(16, 8)),
                None => {}
            },
            85..90 => ledger.record_failure(domains[rng.below(domains.len())], sites[1], layout(1 << 20, 8)),
            _ => {
                let expectation =
                    [Expectation::Unspecified, Expectation::Retained, Expectation::Released][rng.below(3)];
                match ledger.checkpoint(capture, "step", rng.next() % 4, expectation) {
                    Ok(_) => {}
                    Err(CheckpointError::Exhausted) => reached.refused_checkpoints += 1,
                    Err(error) => panic!("seed {seed}: checkpoint refused: {error}"),
                }
            }
        }
    }
    ledger.end(capture).expect("active");
    ledger.export(capture).expect("sealed")
}

#[test]
fn ledger_and_record_diffs_agree_on_random_journals() {
    let mut reached = Reached::default();
    for seed in 0..JOURNALS {
        let capture = journal(seed, &mut reached);
        let record = memory_record(&capture);
        let count = capture.checkpoints.len();
        assert!(count >= 1, "seed {seed}: `end` always takes the terminal checkpoint");
        assert_eq!(record.checkpoints.len(), count, "seed {seed}");
        // One index past the end on each side: both must refuse it alike.
        for from in 0..=count {
            for to in 0..=count {
                let ours = capture.diff(CheckpointId(from as u32), CheckpointId(to as u32));
                let theirs = record.diff(from, to);
                assert_eq!(
                    ours.as_ref().map(memory_diff),
                    theirs,
                    "seed {seed}: diffs disagree from checkpoint {from} to {to}"
                );
                if let Some(diff) = ours {
                    reached.pairs += 1;
                    reached.new_live += usize::from(!diff.new_live.is_empty());
                    reached.released += usize::from(!diff.released.is_empty());
                    reached.survivors += usize::from(!diff.survivors.is_empty());
                    reached.inexact += usize::from(!diff.exact);
                    reached.violated += usize::from(diff.expectation_violated);
                }
            }
        }
    }
    let Reached { pairs, new_live, released, survivors, inexact, violated, refused_checkpoints } = reached;
    for (what, times) in [
        ("a compared pair", pairs),
        ("a diff with new live blocks", new_live),
        ("a diff with released blocks", released),
        ("a diff with survivors", survivors),
        ("an inexact diff", inexact),
        ("a violated expectation", violated),
        ("a refused checkpoint", refused_checkpoints),
    ] {
        assert!(times > 0, "no journal reached {what}");
    }
}
