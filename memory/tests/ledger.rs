//! Domains, counters, sites and the explicit boundary, without the recorder.

use core::alloc::Layout;
use core::ptr::NonNull;

use allocator_api2::alloc::Allocator;
use allocator_api2::boxed::Box as ABox;
use allocator_api2::vec::Vec as AVec;
use sgpt_memory::{Domain, Ledger, MAX_DOMAINS, Reading, RegisterError, Site, site, site_definition};

fn ledger() -> &'static Ledger {
    Box::leak(Box::new(Ledger::new()))
}

fn at(address: usize) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut(address)).expect("non-zero address")
}

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 8).expect("valid layout")
}

#[test]
fn counters_track_live_peak_and_traffic() {
    let ledger = ledger();
    let scene = ledger.register_domain("scene").expect("room");
    let alloc = ledger.allocator(scene);
    let a = ABox::new_in([0u8; 100], alloc);
    let b = ABox::new_in([0u8; 28], alloc);
    drop(a);
    let c = ABox::new_in([0u8; 10], alloc);
    let stats = ledger.stats(scene);
    assert_eq!(
        (stats.live_bytes, stats.live_blocks, stats.peak_bytes, stats.allocated_bytes, stats.freed_bytes),
        (38, 2, 128, 138, 100)
    );
    assert_eq!((stats.allocations, stats.frees, stats.failures, stats.valid), (3, 1, 0, true));
    drop((b, c));
    let stats = ledger.stats(scene);
    assert_eq!((stats.live_bytes, stats.live_blocks, stats.peak_bytes), (0, 0, 128));
    // Nothing leaked into the unknown domain.
    assert_eq!(ledger.stats(Domain::UNKNOWN).allocations, 0);
}

#[test]
fn zero_sized_requests_create_no_block() {
    let ledger = ledger();
    let domain = ledger.register_domain("zst").expect("room");
    let empty: AVec<u64, _> = AVec::new_in(ledger.allocator(domain));
    let unit = ABox::new_in((), ledger.allocator(domain));
    drop((empty, unit));
    let block = ledger.allocator(domain).allocate(Layout::from_size_align(0, 64).expect("valid")).expect("dangling");
    assert_eq!(block.as_ptr().cast::<u8>().addr() % 64, 0);
    assert_eq!(ledger.stats(domain), sgpt_memory::DomainStats { valid: true, ..Default::default() });
}

#[test]
fn backend_failure_is_counted_and_not_a_block() {
    let ledger = ledger();
    let domain = ledger.register_domain("huge").expect("room");
    let refused = ledger.allocator(domain).allocate(layout(isize::MAX as usize - 4096));
    assert!(refused.is_err());
    let stats = ledger.stats(domain);
    assert_eq!((stats.failures, stats.allocations, stats.live_blocks, stats.valid), (1, 0, 0, true));
}

#[test]
fn hashbrown_map_accounts_through_a_domain_handle() {
    let ledger = ledger();
    let domain = ledger.register_domain("map").expect("room");
    let mut map = hashbrown::HashMap::with_capacity_in(0, ledger.allocator(domain));
    for key in 0..1000u32 {
        map.insert(key, u64::from(key) * 3);
    }
    assert_eq!(map.get(&777), Some(&2331));
    let stats = ledger.stats(domain);
    assert!(stats.live_bytes >= 1000 * 12, "table holds 1000 entries: {stats:?}");
    assert_eq!(stats.live_blocks, 1, "one table allocation live after growth");
    assert_eq!(stats.allocations, stats.frees + 1);
    drop(map);
    let stats = ledger.stats(domain);
    assert_eq!((stats.live_bytes, stats.live_blocks, stats.valid), (0, 0, true));
    assert_eq!(stats.allocated_bytes, stats.freed_bytes);
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn remote_frees_charge_the_allocating_domain() {
    let ledger = ledger();
    let producer = ledger.register_domain("producer").expect("room");
    let consumer = ledger.register_domain("consumer").expect("room");
    // Blocks allocated here, moved to other threads and dropped there.
    let batches: Vec<Vec<ABox<[u8; 48], _>>> =
        (0..8).map(|_| (0..500).map(|_| ABox::new_in([7u8; 48], ledger.allocator(producer))).collect()).collect();
    assert_eq!(ledger.stats(producer).live_bytes, 8 * 500 * 48);
    std::thread::scope(|threads| {
        for batch in batches {
            threads.spawn(move || {
                // The consumer allocates its own blocks too, concurrently.
                let own: Vec<_> = (0..100).map(|_| ABox::new_in([1u8; 16], ledger.allocator(consumer))).collect();
                drop(batch);
                drop(own);
            });
        }
    });
    let p = ledger.stats(producer);
    assert_eq!((p.live_bytes, p.live_blocks, p.frees, p.freed_bytes, p.valid), (0, 0, 4000, 4000 * 48, true));
    assert_eq!(p.peak_bytes, 4000 * 48);
    let c = ledger.stats(consumer);
    assert_eq!((c.allocations, c.frees, c.live_bytes, c.allocated_bytes), (800, 800, 0, 800 * 16));
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn concurrent_churn_reconciles_at_quiescence() {
    let ledger = ledger();
    let domain = ledger.register_domain("shared").expect("room");
    std::thread::scope(|threads| {
        for thread in 0..8usize {
            threads.spawn(move || {
                let mut kept = Vec::new();
                for round in 0..2000usize {
                    let block = ABox::new_in([0u8; 24], ledger.allocator(domain));
                    if (round + thread) % 3 == 0 {
                        kept.push(block);
                    }
                }
                std::mem::forget(kept.split_off(kept.len() / 2)); // a deliberate leak stays live
            });
        }
    });
    let stats = ledger.stats(domain);
    let leaked: u64 = (0..8usize)
        .map(|t| {
            let kept = (0..2000usize).filter(|r| (r + t) % 3 == 0).count() as u64;
            kept - kept / 2
        })
        .sum();
    assert_eq!(stats.allocations, 16_000);
    assert_eq!(stats.live_blocks, leaked);
    assert_eq!(stats.live_bytes, leaked * 24);
    assert_eq!(stats.allocations - stats.frees, stats.live_blocks);
}

#[test]
fn overflow_and_underflow_make_counters_invalid_for_good() {
    let ledger = ledger();
    let big = ledger.register_domain("big").expect("room");
    // Accounting only reads addresses and sizes, so huge requests cost nothing here.
    let huge = layout(isize::MAX as usize - 7);
    for block in 1..=3 {
        ledger.record_allocation(big, Site::UNKNOWN, at(block * 64), huge);
    }
    let stats = ledger.stats(big);
    assert!(!stats.valid);
    assert_eq!(stats.live_bytes, u64::MAX, "saturated, not wrapped");
    ledger.record_free(big, at(64), huge);
    ledger.record_free(big, at(128), huge);
    ledger.record_free(big, at(192), huge);
    assert!(!ledger.stats(big).valid, "arithmetic cannot restore validity");

    let small = ledger.register_domain("small").expect("room");
    ledger.record_allocation(small, Site::UNKNOWN, at(4096), layout(10));
    ledger.record_free(small, at(4096), layout(10));
    assert!(ledger.stats(small).valid);
    ledger.record_free(small, at(8192), layout(10)); // never allocated
    let stats = ledger.stats(small);
    assert_eq!((stats.valid, stats.live_bytes, stats.live_blocks), (false, 0, 0));
    ledger.record_allocation(small, Site::UNKNOWN, at(4096), layout(10));
    assert!(!ledger.stats(small).valid);
    // Other domains are unaffected.
    assert!(ledger.stats(Domain::UNKNOWN).valid);
}

#[test]
fn registry_exhaustion_reduces_attribution_and_never_fails_allocation() {
    let ledger = ledger();
    assert_eq!(ledger.register_domain(""), Err(RegisterError::InvalidName));
    assert_eq!(ledger.register_domain(&*"x".repeat(65).leak()), Err(RegisterError::InvalidName));
    let first = ledger.register_domain("d1").expect("room");
    assert_eq!(first.index(), 1);
    assert_eq!(ledger.register_domain("d1"), Err(RegisterError::Duplicate("d1", first)));
    assert_eq!(ledger.domain_or_unknown("d1"), first);
    for index in 2..MAX_DOMAINS {
        let name: &'static str = format!("d{index}").leak();
        assert_eq!(ledger.register_domain(name).map(Domain::index), Ok(index as u16));
    }
    assert_eq!(ledger.register_domain("one too many"), Err(RegisterError::Full));
    let fallback = ledger.domain_or_unknown("one too many");
    assert_eq!((fallback, ledger.registration_failures()), (Domain::UNKNOWN, 1));
    let block = ABox::new_in(5u32, ledger.allocator(fallback));
    assert_eq!(*block, 5);
    assert_eq!(ledger.stats(Domain::UNKNOWN).live_bytes, 4);
    assert_eq!(ledger.domains().len(), MAX_DOMAINS);
    assert_eq!(ledger.domain_name(first), Some("d1"));

    // An id this ledger never registered is charged to the unknown domain.
    let fresh = self::ledger();
    let stray = ABox::new_in(1u64, fresh.allocator(Domain::from_raw(40)));
    assert_eq!(fresh.stats(Domain::UNKNOWN).live_bytes, 8);
    drop(stray);
    assert_eq!(fresh.stats(Domain::UNKNOWN).live_bytes, 0);
}

#[track_caller]
fn made_here() -> Site {
    Site::caller()
}

#[test]
fn sites_name_source_locations_and_keep_their_definitions() {
    let named = site!("particles/spawn");
    let def = site_definition(named).expect("registered");
    assert_eq!((def.name, def.file.ends_with("ledger.rs")), ("particles/spawn", true));
    assert_eq!(def.line, line!() - 3);
    let sites: Vec<Site> = (0..3).map(|_| site!("loop")).collect();
    assert!(sites.iter().all(|site| *site == sites[0]), "one call site, one id");
    let caller = made_here();
    let def = site_definition(caller).expect("registered");
    assert_eq!(def.line, line!() - 2);
    let repeated: Vec<Site> = (0..2).map(|_| made_here()).collect();
    assert_eq!(repeated[0], repeated[1], "same location, same id");
    assert_ne!(caller, named);
    assert_eq!(site_definition(Site::UNKNOWN).map(|def| def.name), Some("unknown"));
    assert_eq!(site_definition(Site::from_raw(u32::MAX)), None);
}

#[test]
fn missing_providers_read_unavailable_not_zero() {
    let sample = sgpt_memory::wasm_linear_memory();
    assert_eq!(sample.name, "wasm.linear_memory");
    #[cfg(not(target_arch = "wasm32"))]
    assert_eq!((sample.reading, sample.reading.value()), (Reading::Unavailable("not a wasm32 build"), None));
    assert_ne!(sample.reading, Reading::Available(0));
}
