//! ns per alloc+free pair (64 bytes): the system allocator alone, domain counters only,
//! and the recorder attached. Printed, not asserted; `cargo bench -p sgpt-memory`.

use std::hint::black_box;
use std::time::Instant;

use allocator_api2::alloc::{Allocator, Global};
use allocator_api2::boxed::Box;
use sgpt_memory::{CaptureConfig, CaptureMode, Ledger};

const PAIRS: usize = 200_000;
const RUNS: usize = 7;

fn pairs<A: Allocator + Copy>(alloc: A) -> f64 {
    let started = Instant::now();
    for round in 0..PAIRS {
        let block = Box::new_in([round as u8; 64], alloc);
        black_box(&block);
        drop(block);
    }
    started.elapsed().as_nanos() as f64 / PAIRS as f64
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let ledger: &'static Ledger = std::boxed::Box::leak(std::boxed::Box::default());
    let counted = ledger.register_domain("counted").expect("room");
    let recorded = ledger.register_domain("recorded").expect("room");

    let system = median((0..RUNS).map(|_| pairs(Global)).collect());
    let counters = median((0..RUNS).map(|_| pairs(ledger.allocator(counted))).collect());
    let config = CaptureConfig {
        mode: CaptureMode::Complete,
        domains: vec![recorded],
        table_entries: 1024,
        journal_events: 2 * PAIRS,
        checkpoints: 0,
        checkpoint_entries: 0,
        clock: None,
    };
    let mut recorder = Vec::new();
    let mut full_journal = Vec::new();
    for _ in 0..RUNS {
        let capture = ledger.begin(&config).expect("storage");
        recorder.push(pairs(ledger.allocator(recorded)));
        // The journal is now full: the steady state once detail is being lost.
        full_journal.push(pairs(ledger.allocator(recorded)));
        ledger.end(capture).expect("active");
        ledger.release(capture).expect("sealed");
    }
    let (recorder, full_journal) = (median(recorder), median(full_journal));
    println!("alloc+free pair, 64 B, median of {RUNS} runs of {PAIRS} pairs");
    println!("  system allocator alone     {system:7.1} ns");
    println!("  domain counters only       {counters:7.1} ns  (+{:.1})", counters - system);
    println!("  recorder active            {recorder:7.1} ns  (+{:.1})", recorder - system);
    println!("  recorder, journal full     {full_journal:7.1} ns  (+{:.1})", full_journal - system);
    println!("  recorder storage           {} bytes", config.storage_bytes());
}
