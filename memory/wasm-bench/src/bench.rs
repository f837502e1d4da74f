//! The measurement itself, target-independent: the clock is a parameter, so the same code
//! runs natively in the smoke test and in wasm on the JS clock.

use std::hint::black_box;

use allocator_api2::alloc::{Allocator, Global};
use allocator_api2::boxed::Box;
use serde::Serialize;
use sgpt_memory::{BeginError, CaptureConfig, CaptureMode, EndError, Ledger, ReleaseError};

/// The native bench's block size.
pub const BLOCK_BYTES: usize = 64;
/// The native bench's batch, alloc+free pairs timed together; the runner's default `--pairs`.
pub const PAIRS: u32 = 200_000;
/// The native bench's batches per case, whose median is reported; the runner's default `--runs`.
pub const RUNS: u32 = 7;
/// Rounds run and dropped first: wasm engines start a function in a baseline tier and swap
/// optimised code in between calls, and the recorder's storage is fresh memory at first.
pub const WARMUP_RUNS: u32 = 5;

#[cfg(target_arch = "wasm32")]
const SYSTEM_ALLOCATOR: &str = "dlmalloc, bundled by Rust's std for wasm32-unknown-unknown";
#[cfg(not(target_arch = "wasm32"))]
const SYSTEM_ALLOCATOR: &str = "std's System (the platform allocator)";
#[cfg(target_arch = "wasm32")]
const LEDGER_LOCK: &str = "spin lock, single-threaded: never contended";
#[cfg(not(target_arch = "wasm32"))]
const LEDGER_LOCK: &str = "spin lock, uncontended here (one thread)";
#[cfg(target_arch = "wasm32")]
const TARGET: &str = "wasm32-unknown-unknown";
#[cfg(not(target_arch = "wasm32"))]
const TARGET: &str = "native";

/// A static ledger: repeated runs reuse its two domains instead of leaking a ledger each.
static LEDGER: Ledger = Ledger::new();

/// Everything one run measured, serialised as JSON for the JS runner.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub target: &'static str,
    /// `release` unless debug assertions are on: a debug build's figures mean little.
    pub profile: &'static str,
    pub system_allocator: &'static str,
    pub ledger_lock: &'static str,
    pub block_bytes: usize,
    pub pairs: u32,
    pub runs: u32,
    pub warmup_runs: u32,
    /// Median step between distinct consecutive clock readings, in ns: the clock's
    /// resolution, or the cost of reading it where that is coarser. `null` if it never ticked.
    pub clock_step_ns: f64,
    /// What the recorder allocates at `begin` for this configuration.
    pub recorder_storage_bytes: usize,
    /// Operations the last "journal full" batch lost (expected: every one, `2 × pairs`).
    pub journal_full_lost_operations: u64,
    pub cases: Vec<Case>,
}

/// One case: ns per pair from batch totals.
#[derive(Debug, Clone, Serialize)]
pub struct Case {
    pub key: &'static str,
    pub name: &'static str,
    /// Median over the measured batches.
    pub ns_per_pair: f64,
    pub min_ns_per_pair: f64,
    pub max_ns_per_pair: f64,
    /// Each measured batch's total, in ms, as the clock read it.
    pub batch_ms: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    #[error("pairs and runs must both be at least 1")]
    Empty,
    #[error("the recorder did not begin: {0}")]
    Begin(#[from] BeginError),
    #[error("the recorder did not end: {0}")]
    End(#[from] EndError),
    #[error("the recorder's storage was not released: {0}")]
    Release(#[from] ReleaseError),
}

/// Runs the native bench's cases with `now` (milliseconds, monotonic) as the clock: `runs`
/// batches of `pairs` pairs per case, after [`WARMUP_RUNS`] dropped rounds.
///
/// Unlike the native bench, the cases are interleaved: each round times every case once, so
/// the ratios to the system allocator hold up when something else takes the CPU for a while.
///
/// # Errors
///
/// [`BenchError::Empty`] when `pairs` or `runs` is 0; the recorder's own error when it
/// refuses to begin, end or release (it never does for this configuration).
pub fn run(pairs: u32, runs: u32, now: fn() -> f64) -> Result<Report, BenchError> {
    if pairs == 0 || runs == 0 {
        return Err(BenchError::Empty);
    }
    let counted = LEDGER.domain_or_unknown("counted");
    let recorded = LEDGER.domain_or_unknown("recorded");
    let count = pairs as usize;
    let config = CaptureConfig {
        mode: CaptureMode::Complete,
        domains: vec![recorded],
        table_entries: 1024,
        journal_events: count.saturating_mul(2),
        checkpoints: 0,
        checkpoint_entries: 0,
        clock: None,
    };

    let clock_step_ns = clock_step_ms(now) * 1e6;
    let (mut system, mut counters, mut recorder, mut journal_full, mut lost) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0);
    for round in 0..WARMUP_RUNS + runs {
        let alone = batch(Global, count, now);
        let counting = batch(LEDGER.allocator(counted), count, now);
        let capture = LEDGER.begin(&config)?;
        let active = batch(LEDGER.allocator(recorded), count, now);
        // The journal is now full: the steady state once detail is being lost.
        let full = batch(LEDGER.allocator(recorded), count, now);
        let health = LEDGER.end(capture)?;
        LEDGER.release(capture)?;
        if round >= WARMUP_RUNS {
            system.push(alone);
            counters.push(counting);
            recorder.push(active);
            journal_full.push(full);
            lost = health.journal_loss.map_or(0, |loss| loss.count);
        }
    }

    let case = |key, name, batch_ms| Case::from_batches(key, name, batch_ms, pairs);
    Ok(Report {
        target: TARGET,
        profile: if cfg!(debug_assertions) { "debug" } else { "release" },
        system_allocator: SYSTEM_ALLOCATOR,
        ledger_lock: LEDGER_LOCK,
        block_bytes: BLOCK_BYTES,
        pairs,
        runs,
        warmup_runs: WARMUP_RUNS,
        clock_step_ns,
        recorder_storage_bytes: config.storage_bytes(),
        journal_full_lost_operations: lost,
        cases: vec![
            case("system", "system allocator alone", system),
            case("counters", "domain counters only", counters),
            case("recorder", "recorder active", recorder),
            case("journal_full", "recorder, journal full", journal_full),
        ],
    })
}

impl Case {
    fn from_batches(key: &'static str, name: &'static str, batch_ms: Vec<f64>, pairs: u32) -> Self {
        let per_pair = |ms: f64| ms * 1e6 / f64::from(pairs);
        let mut sorted = batch_ms.clone();
        sorted.sort_by(f64::total_cmp);
        Self {
            key,
            name,
            // The upper median for an even count, as the native bench takes it.
            ns_per_pair: per_pair(sorted[sorted.len() / 2]),
            min_ns_per_pair: per_pair(sorted[0]),
            max_ns_per_pair: per_pair(sorted[sorted.len() - 1]),
            batch_ms,
        }
    }
}

/// One batch: `pairs` allocations of a 64-byte block, each freed at once, as the native bench
/// does. Returns the batch's total in ms.
///
/// Never inlined: wasm engines swap optimised code in only between calls (no on-stack
/// replacement), so a loop inlined into `run`, called once, would be timed in the baseline tier.
#[inline(never)]
fn batch<A: Allocator + Copy>(alloc: A, pairs: usize, now: fn() -> f64) -> f64 {
    let started = now();
    for round in 0..pairs {
        let block = Box::new_in([round as u8; BLOCK_BYTES], alloc);
        black_box(&block);
        drop(block);
    }
    now() - started
}

/// The median step between distinct consecutive readings of `now`, in ms; NaN if the clock
/// never moved. Chromium adds jitter to its coarsened clock, hence a median of several.
fn clock_step_ms(now: fn() -> f64) -> f64 {
    const STEPS: usize = 9;
    // About a second of reads at worst; a clock that never ticks reads NaN, not a hang.
    const MAX_READS: u32 = 10_000_000;
    let next_tick = |from: f64| (0..MAX_READS).map(|_| now()).find(|&t| t > from);
    // Start on an edge, so the first step is a whole one.
    let Some(mut last) = next_tick(now()) else { return f64::NAN };
    let mut steps = Vec::with_capacity(STEPS);
    for _ in 0..STEPS {
        let Some(tick) = next_tick(last) else { return f64::NAN };
        steps.push(tick - last);
        last = tick;
    }
    steps.sort_by(f64::total_cmp);
    steps[STEPS / 2]
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;
    use std::time::Instant;

    use super::*;

    fn now_ms() -> f64 {
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
    }

    #[test]
    fn a_small_run_reports_every_case_and_fills_the_journal() {
        let (pairs, runs) = (2_000, 3);
        let report = run(pairs, runs, now_ms).unwrap();
        let keys: Vec<_> = report.cases.iter().map(|case| case.key).collect();
        assert_eq!(keys, ["system", "counters", "recorder", "journal_full"]);
        for case in &report.cases {
            assert_eq!(case.batch_ms.len(), 3, "{}", case.key);
            assert!(case.min_ns_per_pair <= case.ns_per_pair && case.ns_per_pair <= case.max_ns_per_pair);
            assert!(case.min_ns_per_pair >= 0.0 && case.max_ns_per_pair.is_finite(), "{}", case.key);
        }
        // Every operation of the second batch found the journal full.
        assert_eq!(report.journal_full_lost_operations, 2 * u64::from(pairs));
        assert!(report.clock_step_ns > 0.0);
        // Every counted block was freed, and each batch (warm-up included) went through the counters.
        let counted = LEDGER.stats(LEDGER.domain_or_unknown("counted"));
        assert_eq!((counted.allocations, counted.live_bytes), (u64::from(pairs * (runs + WARMUP_RUNS)), 0));
        let json: serde_json::Value = serde_json::to_value(&report).unwrap();
        assert_eq!(json["cases"][3]["name"], "recorder, journal full");
        assert_eq!(json["system_allocator"], SYSTEM_ALLOCATOR);
    }

    #[test]
    fn zero_pairs_or_runs_is_refused() {
        assert_eq!(run(0, 7, now_ms).unwrap_err(), BenchError::Empty);
        assert_eq!(run(200, 0, now_ms).unwrap_err(), BenchError::Empty);
    }
}
