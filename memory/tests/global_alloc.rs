//! The `#[global_allocator]` wrapper: scope attribution for std types, origin-domain frees,
//! `realloc`, and proof that the hooks themselves never allocate.

use std::sync::{Mutex, MutexGuard};

use allocator_api2::boxed::Box as ABox;
use sgpt_memory::{CaptureConfig, CaptureMode, Domain, DomainScope, EventKind, Ledger, TrackingAllocator};

#[global_allocator]
static ALLOC: TrackingAllocator = TrackingAllocator::new();

// Tests here share the process ledger; they take turns.
static TURN: Mutex<()> = Mutex::new(());

fn turn() -> MutexGuard<'static, ()> {
    TURN.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn domain(name: &'static str) -> Domain {
    let domain = Ledger::global().domain_or_unknown(name);
    assert_ne!(domain, Domain::UNKNOWN);
    domain
}

#[test]
fn a_scope_attributes_std_containers_and_frees_charge_the_origin() {
    let _turn = turn();
    let ledger = Ledger::global();
    let (scene, other) = (domain("std scene"), domain("std other"));
    let before = (ledger.stats(scene), ledger.stats(other));
    let mut names = {
        let _scope = DomainScope::enter(scene);
        let mut names: Vec<u8> = Vec::with_capacity(100);
        names.extend_from_slice(&[1; 100]);
        names
    };
    assert_eq!(ledger.stats(scene).live_bytes - before.0.live_bytes, 100);
    {
        // Grown and dropped under another scope: still the scene's block.
        let _scope = DomainScope::enter(other);
        names.extend_from_slice(&[2; 1000]);
        let capacity = names.capacity() as u64;
        assert_eq!(ledger.stats(scene).live_bytes - before.0.live_bytes, capacity);
        drop(names);
    }
    let (scene_now, other_now) = (ledger.stats(scene), ledger.stats(other));
    assert_eq!(scene_now.live_bytes, before.0.live_bytes);
    assert_eq!(scene_now.allocations - before.0.allocations, scene_now.frees - before.0.frees);
    assert_eq!(other_now.allocations, before.1.allocations, "nothing charged to the scope that only freed");
    assert!(scene_now.valid);
}

#[test]
fn the_hooks_never_allocate() {
    let _turn = turn();
    let ledger = Ledger::global();
    let (probe, recorded, std_recorded) = (domain("probe"), domain("recorded"), domain("std recorded"));
    let capture = ledger
        .begin(&CaptureConfig {
            mode: CaptureMode::Activity,
            domains: vec![recorded, std_recorded],
            table_entries: 256,
            journal_events: 4096,
            checkpoints: 1,
            checkpoint_entries: 256,
            clock: Some(|| 42),
        })
        .expect("storage");
    let probe_before = ledger.stats(probe);
    let std_before = ledger.stats(std_recorded);
    {
        // Any allocation a hook made on this thread would be charged to the probe scope.
        let _scope = DomainScope::enter(probe);
        for round in 0..500u32 {
            let block = ABox::new_in(round, ledger.allocator(recorded));
            drop(block);
        }
    }
    assert_eq!(ledger.stats(probe).allocations, probe_before.allocations, "the explicit hooks allocated");
    {
        // Here the probe is the recorded domain itself: exactly the test's own blocks count.
        let _scope = DomainScope::enter(std_recorded);
        for round in 0..500u64 {
            let mut grown = Vec::with_capacity(1);
            grown.push(round);
            std::hint::black_box(&mut grown);
            grown.push(round); // realloc while recording
            drop(grown);
        }
    }
    let std_after = ledger.stats(std_recorded);
    assert_eq!(std_after.allocations - std_before.allocations, 1000, "500 allocations and 500 reallocations");
    assert_eq!(std_after.frees - std_before.frees, 1000);
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete(), "{health:?}");
    assert_eq!((health.ownership_errors, health.unknown_baseline_frees), (0, 0));
    let sealed = ledger.export(capture).expect("sealed");
    let count = |kind, domain| sealed.events.iter().filter(|e| e.kind == kind && e.domain == domain).count();
    assert_eq!((count(EventKind::Alloc, recorded), count(EventKind::Free, recorded)), (500, 500));
    assert_eq!((count(EventKind::Alloc, std_recorded), count(EventKind::Free, std_recorded)), (1000, 1000));
    assert!(sealed.events.iter().all(|e| e.time == 42));
    ledger.release(capture).expect("sealed");
}

#[test]
fn realloc_keeps_the_origin_domain_when_not_recording() {
    let _turn = turn();
    let ledger = Ledger::global();
    let buffers = domain("buffers");
    let before = ledger.stats(buffers);
    let mut bytes: Vec<u8> = {
        let _scope = DomainScope::enter(buffers);
        Vec::with_capacity(16)
    };
    for round in 0..10_000u32 {
        bytes.push(round as u8);
    }
    bytes.shrink_to_fit();
    assert_eq!(bytes.iter().map(|b| u64::from(*b)).sum::<u64>(), (0..10_000u64).map(|r| r % 256).sum::<u64>());
    let grown = ledger.stats(buffers);
    assert_eq!(grown.live_bytes - before.live_bytes, 10_000);
    assert_eq!(grown.live_blocks - before.live_blocks, 1);
    drop(bytes);
    let after = ledger.stats(buffers);
    assert_eq!((after.live_bytes, after.live_blocks, after.valid), (before.live_bytes, before.live_blocks, true));
}
