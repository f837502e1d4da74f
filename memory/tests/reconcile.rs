//! Exact reconciliation: one million seeded random operations (heavy address reuse,
//! unseen frees, failures, an excluded domain, periodic checkpoints) checked against an
//! independently kept model of counters, live sets and the journal.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::collections::{BTreeMap, HashMap};

use sgpt_memory::{CaptureConfig, CaptureMode, Domain, DomainStats, EventKind, Expectation, Ledger, Site};

const OPERATIONS: usize = 1_000_000;
const ADDRESSES: usize = 4096;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64: independent of the code under test.
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[derive(Clone, Copy)]
struct Block {
    domain: Domain,
    size: usize,
    /// Lifetime seq within the capture; `None` for blocks from before `begin`.
    lifetime: Option<u64>,
    site: Site,
}

fn at(address: usize) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut(address)).expect("non-zero address")
}

#[test]
fn a_million_random_operations_reconcile_exactly() {
    let ledger: &'static Ledger = Box::leak(Box::new(Ledger::new()));
    let domains: Vec<Domain> =
        ["a", "b", "c", "excluded"].iter().map(|name| ledger.register_domain(name).expect("room")).collect();
    let included = &domains[..3];
    let mut rng = Rng(0x5eed_2026);
    let mut live: HashMap<usize, Block> = HashMap::new();
    let mut stats: BTreeMap<Domain, DomainStats> =
        domains.iter().map(|d| (*d, DomainStats { valid: true, ..Default::default() })).collect();

    let apply = |rng: &mut Rng,
                 live: &mut HashMap<usize, Block>,
                 stats: &mut BTreeMap<Domain, DomainStats>,
                 lifetime: Option<&mut u64>| {
        let address = (rng.below(ADDRESSES as u64) as usize + 1) * 64;
        if let Some(block) = live.remove(&address) {
            let layout = Layout::from_size_align(block.size, 8).expect("valid");
            ledger.record_free(block.domain, at(address), layout);
            let s = stats.get_mut(&block.domain).expect("known");
            s.live_bytes -= block.size as u64;
            s.live_blocks -= 1;
            s.freed_bytes += block.size as u64;
            s.frees += 1;
            return;
        }
        let domain = domains[rng.below(4) as usize];
        let size = 1 + rng.below(4096) as usize;
        let layout = Layout::from_size_align(size, 8).expect("valid");
        let site = Site::from_raw(rng.below(16) as u32);
        let s = stats.get_mut(&domain).expect("known");
        if rng.below(50) == 0 {
            ledger.record_failure(domain, site, layout);
            s.failures += 1;
            return;
        }
        ledger.record_allocation(domain, site, at(address), layout);
        s.live_bytes += size as u64;
        s.live_blocks += 1;
        s.peak_bytes = s.peak_bytes.max(s.live_bytes);
        s.allocated_bytes += size as u64;
        s.allocations += 1;
        let lifetime = match lifetime {
            Some(next) if included.contains(&domain) => {
                *next += 1;
                Some(*next)
            }
            _ => None,
        };
        live.insert(address, Block { domain, size, lifetime, site });
    };

    // A baseline from before the capture: its frees must come out as unknown-baseline.
    for _ in 0..20_000 {
        apply(&mut rng, &mut live, &mut stats, None);
    }
    let baseline_blocks: usize = live.values().filter(|b| included.contains(&b.domain)).count();
    assert!(baseline_blocks > 500);

    let config = CaptureConfig {
        mode: CaptureMode::Activity,
        domains: included.to_vec(),
        table_entries: ADDRESSES,
        journal_events: OPERATIONS,
        checkpoints: 10,
        checkpoint_entries: 10 * ADDRESSES,
        clock: None,
    };
    let capture = ledger.begin(&config).expect("storage");
    let mut next_lifetime = 0u64;
    let mut checkpoints = Vec::new();
    for index in 0..OPERATIONS {
        apply(&mut rng, &mut live, &mut stats, Some(&mut next_lifetime));
        if index % 100_000 == 99_999 {
            let id = ledger.checkpoint(capture, "periodic", index as u64, Expectation::Unspecified).expect("room");
            let mut expected: Vec<(u64, usize, Domain, usize, Site)> = live
                .iter()
                .filter_map(|(address, b)| b.lifetime.map(|seq| (seq, *address, b.domain, b.size, b.site)))
                .collect();
            expected.sort_unstable();
            checkpoints.push((id, expected, stats.clone()));
        }
    }
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete(), "{health:?}");
    assert_eq!(health.ownership_errors, 0);

    // Counters: exact at quiescence, every field, every domain (the excluded one too).
    for (domain, expected) in &stats {
        assert_eq!(ledger.stats(*domain), *expected, "domain {domain:?}");
    }

    let sealed = ledger.export(capture).expect("sealed");
    for (id, expected, expected_stats) in &checkpoints {
        let checkpoint = sealed.checkpoint(*id).expect("kept");
        assert!(checkpoint.table_exact && checkpoint.history_complete);
        let got: Vec<_> =
            checkpoint.live.iter().map(|b| (b.lifetime.seq, b.address, b.domain, b.size, b.site)).collect();
        assert_eq!(&got, expected, "checkpoint {id:?}");
        for (domain, got) in &checkpoint.domains {
            assert_eq!(got, &expected_stats[domain]);
        }
    }

    // The journal alone replays to the terminal live set, in contiguous sequence order.
    let mut replay: BTreeMap<u64, (usize, usize)> = BTreeMap::new();
    let mut unknown_frees = 0u64;
    for (offset, event) in sealed.events.iter().enumerate() {
        assert_eq!(event.seq, sealed.begin_seq + offset as u64, "no gap, no reorder");
        assert!(included.contains(&event.domain));
        match event.kind {
            EventKind::Alloc => {
                assert!(replay.insert(event.lifetime.expect("alloc").seq, (event.address, event.size)).is_none());
            }
            EventKind::Free => {
                let (address, size) = replay.remove(&event.lifetime.expect("free").seq).expect("allocated earlier");
                assert_eq!((address, size), (event.address, event.size));
            }
            EventKind::UnknownFree => unknown_frees += 1,
            EventKind::Failure => assert!(event.lifetime.is_none()),
        }
    }
    assert_eq!(health.unknown_baseline_frees, unknown_frees);
    assert!(unknown_frees > 0 && unknown_frees <= baseline_blocks as u64);
    let terminal = sealed.checkpoints.last().expect("terminal");
    let terminal_set: BTreeMap<u64, (usize, usize)> =
        terminal.live.iter().map(|b| (b.lifetime.seq, (b.address, b.size))).collect();
    assert_eq!(replay, terminal_set);
    assert_eq!(terminal.live.len(), live.values().filter(|b| b.lifetime.is_some()).count());
    ledger.release(capture).expect("sealed");
}
