//! The investigative recorder under adversarial schedules: unseen frees, reuse,
//! exhaustion, recursion, repeated sessions and failed controls.

use core::alloc::Layout;
use core::ptr::NonNull;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use allocator_api2::boxed::Box as ABox;
use sgpt_memory::{
    BeginError, CaptureConfig, CaptureMode, CheckpointError, CheckpointId, Domain, DomainAlloc, EndError, EventKind,
    Expectation, ExportError, Ledger, LifetimeId, LossReason, ReleaseError, Site,
};

fn ledger() -> &'static Ledger {
    Box::leak(Box::new(Ledger::new()))
}

fn at(address: usize) -> NonNull<u8> {
    NonNull::new(core::ptr::without_provenance_mut(address)).expect("non-zero address")
}

fn layout(size: usize) -> Layout {
    Layout::from_size_align(size, 16).expect("valid layout")
}

fn config(mode: CaptureMode, domains: &[Domain]) -> CaptureConfig {
    CaptureConfig {
        mode,
        domains: domains.to_vec(),
        table_entries: 1024,
        journal_events: 4096,
        checkpoints: 8,
        checkpoint_entries: 4096,
        clock: None,
    }
}

#[test]
fn activity_mode_records_unseen_frees_without_inventing_identities() {
    let ledger = ledger();
    let scene = ledger.register_domain("scene").expect("room");
    let old = ABox::new_in([1u8; 40], ledger.allocator(scene));
    let old_address = core::ptr::from_ref(&*old).addr();
    let capture = ledger.begin(&config(CaptureMode::Activity, &[scene])).expect("activity begins late");
    let fresh = ABox::new_in([2u8; 24], ledger.allocator(scene));
    drop(old);
    drop(fresh);
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete(), "unknown-baseline frees are expected in activity mode");
    assert_eq!((health.unknown_baseline_frees, health.ownership_errors), (1, 0));
    let sealed = ledger.export(capture).expect("sealed");
    let kinds: Vec<_> = sealed.events.iter().map(|event| (event.kind, event.lifetime, event.size)).collect();
    let lifetime = Some(LifetimeId { epoch: 1, seq: 1 });
    assert_eq!(
        kinds,
        [(EventKind::Alloc, lifetime, 24), (EventKind::UnknownFree, None, 40), (EventKind::Free, lifetime, 24)]
    );
    assert_eq!(sealed.events[1].address, old_address);
    assert_eq!(sealed.events[1].site, Site::UNKNOWN);
    let seqs: Vec<u64> = sealed.events.iter().map(|event| event.seq).collect();
    assert_eq!(seqs, [sealed.begin_seq, sealed.begin_seq + 1, sealed.begin_seq + 2]);
    assert_eq!(sealed.end_seq, sealed.begin_seq + 3);
    // Counters saw the old block all along, so they stay exact.
    assert_eq!(ledger.stats(scene).live_bytes, 0);
    assert!(ledger.stats(scene).valid);
}

#[test]
fn complete_mode_needs_a_proven_empty_baseline_per_domain() {
    let ledger = ledger();
    let empty = ledger.register_domain("empty").expect("room");
    let busy = ledger.register_domain("busy").expect("room");
    let broken = ledger.register_domain("broken").expect("room");
    let live = ABox::new_in(3u64, ledger.allocator(busy));
    ledger.record_free(broken, at(64), layout(8)); // underflow: invalid counters
    assert_eq!(ledger.begin(&config(CaptureMode::Complete, &[empty, busy])), Err(BeginError::UnprovenBaseline(busy)));
    assert_eq!(ledger.begin(&config(CaptureMode::Complete, &[broken])), Err(BeginError::UnprovenBaseline(broken)));
    drop(live);
    let capture = ledger.begin(&config(CaptureMode::Complete, &[empty, busy])).expect("both empty now");
    // In complete mode a free of a block the table never held is a broken contract.
    ledger.record_allocation(empty, Site::UNKNOWN, at(4096), layout(32));
    ledger.record_free(empty, at(8192), layout(32));
    let health = ledger.end(capture).expect("active");
    assert!(!health.is_complete());
    assert_eq!(health.ownership_errors, 1);
    let loss = health.table_loss.expect("missing entry");
    assert_eq!((loss.reason, loss.domain), (LossReason::MissingEntry, empty));
}

#[test]
fn reused_addresses_start_new_lifetimes() {
    let ledger = ledger();
    let domain = ledger.register_domain("reuse").expect("room");
    let capture = ledger.begin(&config(CaptureMode::Complete, &[domain])).expect("empty");
    for round in 0..3 {
        ledger.record_allocation(domain, Site::from_raw(round), at(0x1000), layout(64));
        ledger.record_free(domain, at(0x1000), layout(64));
    }
    // A real allocator hands a freed address back too; identity must still be fresh.
    let mut addresses = Vec::new();
    for _ in 0..4 {
        let block = ABox::new_in([0u8; 32], ledger.allocator(domain));
        addresses.push(core::ptr::from_ref(&*block).addr());
    }
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete());
    assert_eq!(health.ownership_errors, 0);
    let sealed = ledger.export(capture).expect("sealed");
    let frees: Vec<_> = sealed.events.iter().filter(|e| e.kind == EventKind::Free).collect();
    assert_eq!(frees.len(), 7);
    let lifetimes: Vec<u64> = frees.iter().map(|e| e.lifetime.expect("seen").seq).collect();
    assert_eq!(lifetimes, [1, 2, 3, 4, 5, 6, 7]);
    // Each free names the site of its own lifetime, not an earlier one at the address.
    let sites: Vec<u32> = frees[..3].iter().map(|e| e.site.index()).collect();
    assert_eq!(sites, [0, 1, 2]);
    assert_eq!(addresses.len(), 4);
}

#[test]
fn journal_exhaustion_records_the_first_lost_operation() {
    let ledger = ledger();
    let domain = ledger.register_domain("busy").expect("room");
    let capture =
        ledger.begin(&CaptureConfig { journal_events: 4, ..config(CaptureMode::Complete, &[domain]) }).expect("empty");
    let early = ledger.checkpoint(capture, "early", 7, Expectation::Unspecified).expect("room");
    for index in 1..=5 {
        ledger.record_allocation(domain, Site::UNKNOWN, at(index * 64), layout(16));
    }
    let late = ledger.checkpoint(capture, "late", 7, Expectation::Unspecified).expect("room");
    for index in 1..=5 {
        ledger.record_free(domain, at(index * 64), layout(16));
    }
    let health = ledger.end(capture).expect("sealing succeeds even when incomplete");
    assert!(!health.is_complete());
    let loss = health.journal_loss.expect("journal overflowed");
    let sealed = ledger.export(capture).expect("sealed");
    assert_eq!(sealed.events.len(), 4);
    assert_eq!((loss.reason, loss.first_lost_seq, loss.count), (LossReason::JournalFull, sealed.begin_seq + 4, 6));
    assert_eq!(health.table_loss, None);
    let (early, late) = (sealed.checkpoint(early).expect("kept"), sealed.checkpoint(late).expect("kept"));
    assert!(early.history_complete && early.table_exact);
    // The live table stayed exact, so the checkpoint's live set is still usable.
    assert!(late.table_exact && !late.history_complete);
    assert_eq!(late.live.len(), 5);
    let end = sealed.checkpoints.last().expect("terminal");
    assert_eq!((end.name.as_str(), end.live.len(), end.table_exact), ("end", 0, true));
}

#[test]
fn table_exhaustion_marks_live_sets_inexact_but_counters_stay_exact() {
    let ledger = ledger();
    let domain = ledger.register_domain("full").expect("room");
    let capture =
        ledger.begin(&CaptureConfig { table_entries: 2, ..config(CaptureMode::Activity, &[domain]) }).expect("ok");
    let before = ledger.checkpoint(capture, "before", 1, Expectation::Unspecified).expect("room");
    for index in 1..=3 {
        ledger.record_allocation(domain, Site::UNKNOWN, at(index * 64), layout(100));
    }
    let after = ledger.checkpoint(capture, "after", 1, Expectation::Unspecified).expect("room");
    let health = ledger.end(capture).expect("active");
    let loss = health.table_loss.expect("third block untracked");
    let sealed = ledger.export(capture).expect("sealed");
    assert_eq!((loss.reason, loss.first_lost_seq, loss.count), (LossReason::TableFull, sealed.begin_seq + 2, 1));
    // The journal still has all three allocations: the event is true even if untracked.
    assert_eq!(sealed.events.len(), 3);
    let diff = sealed.diff(before, after).expect("both exist");
    assert!(!diff.exact, "an incomplete live set is never presented as exact");
    assert_eq!(diff.new_live.len(), 2);
    let stats = ledger.stats(domain);
    assert_eq!((stats.live_blocks, stats.live_bytes, stats.valid), (3, 300, true));
}

static RECURSIVE: OnceLock<DomainAlloc> = OnceLock::new();

fn allocating_clock() -> u64 {
    // Breaks the clock contract on purpose: allocating here re-enters the hooks.
    let alloc = *RECURSIVE.get().expect("set before begin");
    let probe = ABox::new_in(0u32, alloc);
    u64::from(*probe) + 1
}

#[test]
fn recursion_is_recorded_as_loss_and_never_fails_the_allocation() {
    let ledger = ledger();
    let domain = ledger.register_domain("reentrant").expect("room");
    RECURSIVE.set(ledger.allocator(domain)).expect("first set");
    let capture = ledger
        .begin(&CaptureConfig { clock: Some(allocating_clock), ..config(CaptureMode::Activity, &[domain]) })
        .expect("ok");
    let block = ABox::new_in([9u8; 64], ledger.allocator(domain));
    assert_eq!(block[63], 9);
    drop(block);
    let health = ledger.end(capture).expect("active");
    let recursion = health.recursion.expect("re-entry seen");
    // The clock ran three times (alloc hook, free hook, `end`), each box allocating and
    // freeing inside: 6 re-entries.
    assert_eq!((recursion.count, recursion.domain), (6, domain));
    assert!(!health.is_complete());
    let sealed = ledger.export(capture).expect("sealed");
    assert!(sealed.checkpoints.iter().all(|checkpoint| !checkpoint.table_exact));
    assert_eq!(sealed.events.len(), 2, "only the outer operations were journaled");
    let stats = ledger.stats(domain);
    assert_eq!((stats.allocations, stats.frees, stats.live_bytes, stats.valid), (4, 4, 0, true));
}

#[test]
fn repeated_sessions_get_new_epochs_and_increasing_sequences() {
    let ledger = ledger();
    let domain = ledger.register_domain("frames").expect("room");
    let mut last_seq = 0;
    for round in 1..=3u64 {
        let capture = ledger.begin(&config(CaptureMode::Complete, &[domain])).expect("released before");
        assert_eq!(ledger.begin(&config(CaptureMode::Complete, &[domain])), Err(BeginError::AlreadyActive));
        assert_eq!(ledger.release(capture), Err(ReleaseError::Active(capture)));
        assert_eq!(ledger.export(capture), Err(ExportError::NotSealed(capture)));
        let block = ABox::new_in(round, ledger.allocator(domain));
        drop(block);
        ledger.end(capture).expect("active");
        assert_eq!(ledger.end(capture), Err(EndError::NotActive));
        assert_eq!(ledger.begin(&config(CaptureMode::Activity, &[domain])), Err(BeginError::Unreleased));
        let first = ledger.export(capture).expect("sealed");
        let second = ledger.export(capture).expect("export is repeatable");
        assert_eq!(first, second);
        assert_eq!(first.epoch, round);
        assert_eq!(first.events[0].lifetime, Some(LifetimeId { epoch: round, seq: 1 }));
        assert!(first.events[0].seq > last_seq);
        last_seq = first.events[1].seq;
        ledger.release(capture).expect("sealed");
        assert_eq!(ledger.release(capture), Err(ReleaseError::NotSealed(capture)));
        assert_eq!(ledger.export(capture), Err(ExportError::NotSealed(capture)));
    }
}

#[test]
fn a_failed_begin_changes_nothing() {
    let ledger = ledger();
    let domain = ledger.register_domain("kept").expect("room");
    let capture = ledger.begin(&config(CaptureMode::Activity, &[domain])).expect("ok");
    ledger.record_allocation(domain, Site::UNKNOWN, at(64), layout(8));
    ledger.end(capture).expect("active");
    let sealed = ledger.export(capture).expect("sealed");

    let unknown = Domain::from_raw(9);
    let refusals = [
        (config(CaptureMode::Activity, &[]), BeginError::InvalidConfig("no domains")),
        (config(CaptureMode::Activity, &[domain, domain]), BeginError::InvalidConfig("a domain is listed twice")),
        (config(CaptureMode::Activity, &[unknown]), BeginError::UnknownDomain(unknown)),
        (config(CaptureMode::Activity, &[domain]), BeginError::Unreleased),
        (config(CaptureMode::Complete, &[domain]), BeginError::Unreleased),
    ];
    for (config, error) in refusals {
        assert_eq!(ledger.begin(&config), Err(error));
    }
    ledger.record_free(domain, at(64), layout(8));
    assert_eq!(ledger.export(capture).expect("still sealed"), sealed, "the sealed capture is untouched");
    ledger.release(capture).expect("sealed");

    // Storage that cannot be allocated is refused before anything attaches.
    let greedy = CaptureConfig { journal_events: usize::MAX / 2, ..config(CaptureMode::Activity, &[domain]) };
    assert_eq!(ledger.begin(&greedy), Err(BeginError::StorageUnavailable));
    ledger.record_allocation(domain, Site::UNKNOWN, at(128), layout(8));
    // No epoch was consumed by any refusal, and nothing was recorded while refused.
    let next = ledger.begin(&config(CaptureMode::Activity, &[domain])).expect("ok");
    ledger.end(next).expect("active");
    let sealed = ledger.export(next).expect("sealed");
    assert_eq!((sealed.epoch, sealed.events.len()), (2, 0));
}

#[test]
fn a_failed_checkpoint_publishes_nothing() {
    let ledger = ledger();
    let domain = ledger.register_domain("pool").expect("room");
    let capture = ledger
        .begin(&CaptureConfig { checkpoints: 2, checkpoint_entries: 3, ..config(CaptureMode::Complete, &[domain]) })
        .expect("ok");
    assert_eq!(
        ledger.checkpoint(capture, &"n".repeat(65), 0, Expectation::Unspecified),
        Err(CheckpointError::InvalidName)
    );
    for index in 1..=2 {
        ledger.record_allocation(domain, Site::UNKNOWN, at(index * 64), layout(8));
    }
    let first = ledger.checkpoint(capture, "two live", 0, Expectation::Unspecified).expect("room for 2 of 3");
    assert_eq!(first, CheckpointId(0));
    // Two more live blocks would need 4 entries in total: refused whole, not truncated.
    assert_eq!(ledger.checkpoint(capture, "too many", 0, Expectation::Unspecified), Err(CheckpointError::Exhausted));
    ledger.record_free(domain, at(64), layout(8));
    let second = ledger.checkpoint(capture, "one live", 0, Expectation::Unspecified).expect("room for 1 more");
    assert_eq!(second, CheckpointId(1));
    assert_eq!(ledger.checkpoint(capture, "third", 0, Expectation::Unspecified), Err(CheckpointError::Exhausted));
    // The terminal checkpoint has reserved room and always fits.
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete());
    let sealed = ledger.export(capture).expect("sealed");
    let names: Vec<(&str, usize)> = sealed.checkpoints.iter().map(|c| (c.name.as_str(), c.live.len())).collect();
    assert_eq!(names, [("two live", 2), ("one live", 1), ("end", 1)]);
    assert_eq!(ledger.checkpoint(capture, "late", 0, Expectation::Unspecified), Err(CheckpointError::NotActive));
}

static TICKS: AtomicU64 = AtomicU64::new(0);

fn ticking_clock() -> u64 {
    TICKS.fetch_add(10, Ordering::Relaxed)
}

#[test]
fn checkpoint_diffs_name_new_released_and_surviving_blocks_with_ages() {
    let ledger = ledger();
    let scene = ledger.register_domain("scene").expect("room");
    let scratch = ledger.register_domain("scratch").expect("room");
    let mesh_site = sgpt_memory::site!("scene/mesh");
    let capture = ledger
        .begin(&CaptureConfig { clock: Some(ticking_clock), ..config(CaptureMode::Complete, &[scene, scratch]) })
        .expect("empty");
    let persistent = ABox::new_in([0u8; 8], ledger.allocator(scene));
    let empty = ledger.checkpoint(capture, "before load", 3, Expectation::Unspecified).expect("room");
    let meshes: Vec<_> =
        (0..3).map(|_| ABox::new_in([0u8; 128], ledger.allocator(scene).with_site(mesh_site))).collect();
    let temp = ABox::new_in([0u8; 16], ledger.allocator(scratch));
    let loaded = ledger.checkpoint(capture, "loaded", 3, Expectation::Retained).expect("room");
    drop(temp);
    let mut meshes = meshes.into_iter();
    let leaked = meshes.next().expect("three");
    drop(meshes);
    let unloaded = ledger.checkpoint(capture, "unloaded", 3, Expectation::Released).expect("room");
    ledger.end(capture).expect("active");
    let sealed = ledger.export(capture).expect("sealed");

    let load = sealed.diff(empty, loaded).expect("both exist");
    assert!(load.exact);
    assert_eq!(load.new_live.len(), 4);
    assert_eq!((load.released.len(), load.survivors.len()), (0, 1));
    assert!(!load.expectation_violated);

    let unload = sealed.diff(empty, unloaded).expect("both exist");
    assert_eq!(unload.new_live.len(), 1, "the leaked mesh");
    assert_eq!((unload.new_live[0].site, unload.new_live[0].size), (mesh_site, 128));
    assert!(unload.expectation_violated, "the owner expected release");

    let between = sealed.diff(loaded, unloaded).expect("both exist");
    assert_eq!(between.released.len(), 3);
    assert_eq!(between.survivors.len(), 2);
    let unloaded_at = sealed.checkpoint(unloaded).expect("kept");
    let oldest = between.survivors.iter().find(|s| s.block.size == 8).expect("the persistent block survives");
    assert_eq!(oldest.age_ops, unloaded_at.boundary_seq - oldest.block.alloc_seq);
    assert_eq!(oldest.age_ops, 8, "its own alloc, then 4 allocations and 3 frees");
    assert!(oldest.age_time > 0 && oldest.age_time == unloaded_at.time - oldest.block.time);
    let scene_stats = unloaded_at.domains.iter().find(|(domain, _)| *domain == scene).expect("included").1;
    assert_eq!((scene_stats.live_blocks, scene_stats.live_bytes), (2, 136));
    drop((persistent, leaked));
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn remote_frees_while_recording_reference_the_original_lifetime() {
    let ledger = ledger();
    let domain = ledger.register_domain("remote").expect("room");
    let capture = ledger.begin(&config(CaptureMode::Complete, &[domain])).expect("empty");
    let blocks: Vec<_> = (0..100).map(|n| ABox::new_in([n as u8; 20], ledger.allocator(domain))).collect();
    std::thread::spawn(move || drop(blocks)).join().expect("no panic");
    let health = ledger.end(capture).expect("active");
    assert!(health.is_complete());
    assert_eq!(health.ownership_errors, 0);
    let sealed = ledger.export(capture).expect("sealed");
    let allocs: Vec<_> = sealed.events.iter().filter(|e| e.kind == EventKind::Alloc).collect();
    let frees: Vec<_> = sealed.events.iter().filter(|e| e.kind == EventKind::Free).collect();
    assert_eq!((allocs.len(), frees.len()), (100, 100));
    for (alloc, free) in allocs.iter().zip(&frees) {
        assert_eq!((alloc.lifetime, alloc.domain), (free.lifetime, free.domain));
        assert_ne!(alloc.thread, free.thread, "the freeing thread is named separately");
    }
    assert_eq!(ledger.stats(domain).live_blocks, 0);
}

#[test]
fn a_wrong_domain_free_is_an_ownership_error() {
    let ledger = ledger();
    let a = ledger.register_domain("a").expect("room");
    let b = ledger.register_domain("b").expect("room");
    let capture = ledger.begin(&config(CaptureMode::Complete, &[a, b])).expect("empty");
    ledger.record_allocation(a, Site::UNKNOWN, at(64), layout(8));
    ledger.record_free(b, at(64), layout(8));
    let health = ledger.end(capture).expect("active");
    assert_eq!(health.ownership_errors, 1);
    let sealed = ledger.export(capture).expect("sealed");
    assert_eq!(sealed.events[1].domain, a, "the free names the origin domain");
    assert!(!ledger.stats(b).valid, "b never allocated it");
}
