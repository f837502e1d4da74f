//! Is the comparison engine honest? Prints its rates on the synthetic workload (200
//! passes, a frame-wide drift on), and what comparing two hour-long captures costs beside
//! `pass_stats` on one. Run: `cargo bench -p sgpt-format --bench compare`
//! (`-- --quick` runs fewer pairs and a ten-minute capture instead of an hour).
//!
//! - False alarms: pairs of runs of one workload (same passes, different frame-to-frame
//!   draws and drift), the share of pairs where anything is flagged slower or faster;
//!   once with the automatic block length and once with a given length of 1 (single
//!   frames, which treats the drifting frames as independent, except where a statistic's
//!   own terms show dependence); then both again under a drift twice as strong and
//!   twice as slow, where 600 frames hold only ten of its correlation times.
//! - Power: one pass made 10 % slower over 600 frames and 5 % slower over 3,600 frames,
//!   the share of pairs where it is flagged slower, and where anything else is flagged.
//! - Quantized: the same pairs floored to 100 µs, how often each verdict is
//!   inconclusive and how often it is a wrong slower or faster.
//! - Real: pairs of `sgpt-demo` recordings on the local Vulkan adapter (lavapipe here),
//!   600 and 3,600 frames, A and B unchanged and S with `bloom down` made heavier by
//!   `--slow-by` [`REAL_SLOW_BY`] (`SGPT_REAL_SLOW_BY` sets it), which adds about 10 % to
//!   its time on lavapipe: false alarms (A vs B) and power (A vs S), each pair's flagged
//!   passes listed, and what the injection really added. They are
//!   recorded once by `target/release/sgpt-demo` (build it first) into
//!   `target/compare-real/` and read from there after; delete that folder to record anew.
//!   `-- --real-only` prints only these; `SGPT_REAL_PAIRS` and `SGPT_REAL_LONG_PAIRS`
//!   set how many pairs (6 and 3).
//! - Real, several recordings a side: sets of `SGPT_REAL_RUNS` (10) recordings of A, of B
//!   and of S each, 600 frames, recorded interleaved (A1, B1, S1, A2, …) so that the
//!   machine's changes fall on every side; `SGPT_REAL_SETS` (5) sets. The same rates, from
//!   `compare_recordings`, beside the one-pair rates of each set's first recordings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sgpt_format::compare::{
    CompareOptions, Comparison, ComparisonJob, Finding, Samples, Verdict, compare, compare_recordings,
};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, workload_with};
use sgpt_format::{Capture, analysis};

/// The drift every capture gets: a 1.5 % standard deviation, correlated over 30 frames
/// (half a second at 60 fps).
const DRIFT: Drift = Drift { sigma: 0.015, frames: 30.0 };

fn capture(options: &SynthOptions, changes: &SynthChanges) -> Vec<u8> {
    workload_with(options, changes).write(Vec::new()).expect("writing into a Vec succeeds")
}

fn samples(bytes: &[u8]) -> Samples {
    let capture = Capture::open(bytes).expect("a synthetic capture opens");
    Samples::collect(&capture, 0..capture.frames().len())
}

/// A stronger, slower drift, to show what treating frames as independent costs.
const STRONG_DRIFT: Drift = Drift { sigma: 0.03, frames: 60.0 };

fn run(seed: u64) -> SynthChanges {
    SynthChanges { run: Some(seed), drift: Some(DRIFT), ..SynthChanges::default() }
}

fn is_flagged(verdict: Verdict) -> bool {
    matches!(verdict, Verdict::Slower | Verdict::Faster)
}

/// Passes (and the frame time) flagged other than `except`.
fn flagged_besides(report: &Comparison, except: Option<&str>) -> usize {
    usize::from(is_flagged(report.frame.verdict) && except.is_none())
        + report.passes.iter().filter(|p| is_flagged(p.finding.verdict) && Some(p.label.as_str()) != except).count()
}

/// The label of the pass whose median is nearest 40 µs, the workload's typical pass.
fn typical_pass(bytes: &[u8]) -> String {
    let capture = Capture::open(bytes).expect("a synthetic capture opens");
    let report = analysis::pass_stats(&capture, 0..capture.frames().len());
    report.passes.iter().min_by_key(|p| p.median_ns.abs_diff(40_000)).map(|p| p.label.clone()).unwrap_or_default()
}

struct Rates {
    pairs: usize,
    any_flagged: usize,
    target_slower: usize,
    target_inconclusive: usize,
    passes: usize,
    inconclusive: usize,
    wrong: usize,
}

/// Compares `pairs` pairs of runs; with `slow`, B's pass of that label is slower by that much.
fn measure(options: &SynthOptions, pairs: usize, slow: Option<(&str, f64)>, engine: &CompareOptions) -> Rates {
    measure_with(options, pairs, slow, engine, DRIFT)
}

fn measure_with(
    options: &SynthOptions,
    pairs: usize,
    slow: Option<(&str, f64)>,
    engine: &CompareOptions,
    drift: Drift,
) -> Rates {
    let run = |seed| SynthChanges { drift: Some(drift), ..run(seed) };
    let mut rates =
        Rates { pairs, any_flagged: 0, target_slower: 0, target_inconclusive: 0, passes: 0, inconclusive: 0, wrong: 0 };
    for pair in 0..pairs as u64 {
        let a = samples(&capture(options, &run(1_000 + 2 * pair)));
        let changes =
            SynthChanges { slow_pass: slow.map(|(label, by)| (label.to_owned(), by)), ..run(1_001 + 2 * pair) };
        let b = samples(&capture(options, &changes));
        let report = compare(&a, &b, engine);
        let target = slow.map(|(label, _)| label);
        let others = flagged_besides(&report, target);
        rates.any_flagged += usize::from(others > 0);
        rates.wrong += others;
        rates.passes += report.passes.len() + 1 - usize::from(target.is_some());
        rates.inconclusive += usize::from(report.frame.verdict == Verdict::Inconclusive)
            + report
                .passes
                .iter()
                .filter(|p| p.finding.verdict == Verdict::Inconclusive && Some(p.label.as_str()) != target)
                .count();
        if let Some(label) = target {
            let verdict = report.passes.iter().find(|p| p.label == label).map(|p| p.finding.verdict);
            rates.target_slower += usize::from(verdict == Some(Verdict::Slower));
            rates.target_inconclusive += usize::from(verdict == Some(Verdict::Inconclusive));
        }
    }
    rates
}

fn share(part: usize, whole: usize) -> String {
    format!("{:5.1} % ({part}/{whole})", 100.0 * part as f64 / whole.max(1) as f64)
}

/// Where the real recordings are cached: `target/compare-real/<the slowed pass>-by<N>` of
/// the workspace, so that recordings slowed in another pass, or by another share, are never
/// mixed in (the unchanged ones are recorded again for each, in the same interleaved runs).
fn real_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/compare-real").join(format!(
        "{}-by{}",
        REAL_SLOW.replace(' ', "-"),
        real_slow_by()
    ))
}

/// The pass the real recordings slow down: among the demo's steadiest between runs on
/// lavapipe (a few % against tens of % for the HZB passes), so that a 10 % change in it
/// can be told from the spread between runs at all.
const REAL_SLOW: &str = "bloom down";

/// How much of `REAL_SLOW`'s work the slowed recordings do again, in %. Its time on
/// lavapipe is mostly the pass itself, not its fragments: doing 10 % of the rows again
/// added 2.5 %, 40 % added 5 % and all of them 14 %. 75 % adds about 10 %, the change the
/// power is asked for; the bench prints what it really added beside the power.
const REAL_SLOW_BY: u32 = 75;

/// [`REAL_SLOW_BY`], or `SGPT_REAL_SLOW_BY` where set: a whole percentage from 0 to 100,
/// anything else refused rather than replaced.
fn real_slow_by() -> u32 {
    match std::env::var("SGPT_REAL_SLOW_BY") {
        Err(_) => REAL_SLOW_BY,
        Ok(text) => {
            text.trim().parse().ok().filter(|by| *by <= 100).unwrap_or_else(|| {
                panic!("SGPT_REAL_SLOW_BY is a whole percentage from 0 to 100, like 75, not {text:?}")
            })
        }
    }
}

/// `name` in the cache, recorded by `target/release/sgpt-demo` when it is missing
/// (`frames` at level timing; `slow` adds `--slow-pass` by [`real_slow_by`]). `None` when it is missing
/// and cannot be recorded.
fn real_capture(name: &str, frames: u64, slow: bool) -> Option<Vec<u8>> {
    let path = real_dir().join(format!("{name}.sgpt"));
    if !path.exists() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/sgpt-demo");
        std::fs::create_dir_all(real_dir()).ok()?;
        let mut command = Command::new(demo);
        command.args(["--frames", &frames.to_string(), "--level", "timing", "--no-memory", "-o"]).arg(&path);
        if slow {
            command.args(["--slow-pass", REAL_SLOW, "--slow-by", &real_slow_by().to_string()]);
        }
        let status = command.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().ok()?;
        if !status.success() {
            return None;
        }
    }
    std::fs::read(path).ok()
}

/// Real recordings: A and B of the unchanged demo scene, S with `REAL_SLOW` heavier,
/// `frames` long, cached as `{prefix}a1.sgpt` and so on.
fn real(prefix: &str, frames: u64, pairs: usize, engine: &CompareOptions) {
    println!("\nreal sgpt-demo recordings, {frames} frames at level timing (cached in {})", real_dir().display());
    let (mut compared, mut false_alarms, mut slowed, mut found, mut wrong_s, mut inconclusive) = (0, 0, 0, 0, 0, 0);
    let (mut wrong, mut verdicts) = (0, 0);
    let mut injected = Vec::new();
    for pair in 1..=pairs {
        let (Some(a), Some(b)) = (
            real_capture(&format!("{prefix}a{pair}"), frames, false),
            real_capture(&format!("{prefix}b{pair}"), frames, false),
        ) else {
            println!("  no recordings: build sgpt-demo (cargo build --release -p sgpt-demo) on a Vulkan adapter");
            return;
        };
        let (a, b) = (samples(&a), samples(&b));
        let report = compare(&a, &b, engine);
        let flagged = flagged_names(&report);
        compared += 1;
        false_alarms += usize::from(!flagged.is_empty());
        wrong += flagged.len();
        verdicts += report.passes.len() + 1;
        let Some(s) = real_capture(&format!("{prefix}s{pair}"), frames, true) else { continue };
        let report_s = compare(&a, &samples(&s), engine);
        let target = report_s.passes.iter().find(|p| p.label == REAL_SLOW);
        let verdict = target.map_or(Verdict::Removed, |p| p.finding.verdict);
        let shift = target.and_then(|p| p.finding.shift.as_ref());
        let interval = shift.and_then(sgpt_format::compare::Shift::interval_change);
        injected.extend(shift.and_then(|s| s.change));
        let change = shift.and_then(|s| s.change).unwrap_or(0.0);
        slowed += 1;
        found += usize::from(verdict == Verdict::Slower);
        inconclusive += usize::from(verdict == Verdict::Inconclusive);
        let others = others_flagged(&report_s);
        wrong_s += usize::from(!others.is_empty());
        println!(
            "  pair {pair}: A vs B flagged {:?}; A vs S: {REAL_SLOW} {} {:+.1} % {}, others flagged {others:?} (blocks {:?})",
            flagged,
            verdict.name(),
            100.0 * change,
            interval.map_or(String::new(), |[l, h]| format!("[{:+.1}, {:+.1}] %", 100.0 * l, 100.0 * h)),
            report.block_frames,
        );
    }
    println!("  false alarms (A vs B, anything flagged)        {}", share(false_alarms, compared));
    println!("  A vs B verdicts flagged slower or faster       {}", share(wrong, verdicts));
    print_power(found, inconclusive, wrong_s, slowed, &injected);
}

/// The power lines of a real comparison: the slowed pass found, inconclusive, and others
/// flagged beside it, of `slowed` comparisons; `injected` holds what each comparison
/// estimated the injection added, so that the power is read against the real change.
fn print_power(found: usize, inconclusive: usize, wrong: usize, slowed: usize, injected: &[f64]) {
    let by = real_slow_by();
    let added = if injected.is_empty() {
        "nothing estimated".to_owned()
    } else {
        let mut sorted = injected.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        format!(
            "{:+.1} % on average, {:+.1} to {:+.1} %",
            100.0 * mean,
            100.0 * sorted[0],
            100.0 * sorted[sorted.len() - 1]
        )
    };
    println!("  what --slow-by {by} % really added to {REAL_SLOW}: {added}; the power below is for that");
    println!(
        "  power ({REAL_SLOW} flagged slower)             {}   inconclusive {}",
        share(found, slowed),
        share(inconclusive, slowed)
    );
    println!(
        "  A vs S with another pass flagged (not the slowed pass, its encoder spans or the frame)  {}",
        share(wrong, slowed)
    );
}

/// The graph passes whose encoder-level spans hold `REAL_SLOW` (`bloom/down 1` to `3`):
/// slower by its change, in fact, wherever the device times encoders.
const REAL_SLOW_ENCLOSING: &str = "bloom/down ";

/// What a comparison of A with S flagged besides what the injection slows in fact, found
/// slower: the slowed pass, the encoder spans that hold it, and the frame time. Any of those
/// found faster is wrong, and listed.
fn others_flagged(report: &Comparison) -> Vec<String> {
    let slowed_in_fact = |label: &str| label == REAL_SLOW || label.starts_with(REAL_SLOW_ENCLOSING);
    findings(report)
        .filter(|(label, finding)| {
            is_flagged(finding.verdict)
                && !(finding.verdict == Verdict::Slower && (*label == FRAME_TIME || slowed_in_fact(label)))
        })
        .map(|(label, finding)| named(label, finding))
        .collect()
}

/// The name the frame time's finding goes by beside the passes' labels.
const FRAME_TIME: &str = "frame time";

/// The frame time's finding and each pass's, by label.
fn findings(report: &Comparison) -> impl Iterator<Item = (&str, &Finding)> {
    std::iter::once((FRAME_TIME, &report.frame)).chain(report.passes.iter().map(|p| (p.label.as_str(), &p.finding)))
}

/// A finding named with its verdict and shift.
fn named(label: &str, finding: &Finding) -> String {
    let change = finding.shift.as_ref().and_then(|s| s.change).unwrap_or(0.0);
    format!("{label} {} {:+.1} %", finding.verdict.name(), 100.0 * change)
}

/// What a comparison flagged (slower or faster), named with its shift.
fn flagged_names(report: &Comparison) -> Vec<String> {
    findings(report)
        .filter(|(_, finding)| is_flagged(finding.verdict))
        .map(|(label, finding)| named(label, finding))
        .collect()
}

/// Sets of `runs` real recordings a side (A and B unchanged, S with `REAL_SLOW` heavier),
/// compared set against set, and each set's first recordings as one pair beside them.
fn real_sets(sets: usize, runs: usize, engine: &CompareOptions) {
    println!(
        "\nreal sgpt-demo recordings, {runs} a side, 600 frames, recorded interleaved (cached in {})",
        real_dir().display()
    );
    let (mut compared, mut false_alarms, mut pair_false_alarms, mut found, mut inconclusive, mut wrong_s) =
        (0, 0, 0, 0, 0, 0);
    // Each pass's median in every unchanged recording (A's and B's), for the spread between runs.
    let mut medians: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    // What the injection really added to the slowed pass, set by set.
    let mut injected: Vec<f64> = Vec::new();
    for set in 1..=sets {
        let mut sides: [Vec<Samples>; 3] = [Vec::new(), Vec::new(), Vec::new()];
        for run in 1..=runs {
            for (side, (kind, slow)) in [("a", false), ("b", false), ("s", true)].into_iter().enumerate() {
                let Some(bytes) = real_capture(&format!("m{set}{kind}{run}"), 600, slow) else {
                    println!(
                        "  no recordings: build sgpt-demo (cargo build --release -p sgpt-demo) on a Vulkan adapter"
                    );
                    return;
                };
                sides[side].push(samples(&bytes));
                if !slow {
                    let capture = Capture::open(&bytes).expect("opens");
                    for pass in analysis::pass_stats(&capture, 0..capture.frames().len()).passes {
                        let name = format!("{} ({})", pass.label, pass.kind.name());
                        medians.entry(name).or_default().push(pass.median_ns as f64);
                    }
                }
            }
        }
        let [a, b, s] = &sides;
        let report = compare_recordings(a, b, engine);
        let pair = compare(&a[0], &b[0], engine);
        let report_s = compare_recordings(a, s, engine);
        let target = report_s.passes.iter().find(|p| p.label == REAL_SLOW);
        let verdict = target.map_or(Verdict::Removed, |p| p.finding.verdict);
        let shift = target.and_then(|p| p.finding.shift.as_ref());
        injected.extend(shift.and_then(|s| s.change));
        let flagged = flagged_names(&report);
        compared += 1;
        false_alarms += usize::from(!flagged.is_empty());
        pair_false_alarms += usize::from(!flagged_names(&pair).is_empty());
        found += usize::from(verdict == Verdict::Slower);
        inconclusive += usize::from(verdict == Verdict::Inconclusive);
        let others = others_flagged(&report_s);
        wrong_s += usize::from(!others.is_empty());
        println!(
            "  set {set}: A vs B flagged {flagged:?} (first pair alone: {}); A vs S: {REAL_SLOW} {} {:+.1} % {}, \
             others flagged {others:?}",
            flagged_names(&pair).len(),
            verdict.name(),
            100.0 * shift.and_then(|s| s.change).unwrap_or(0.0),
            shift.and_then(sgpt_format::compare::Shift::interval_change).map_or(String::new(), |[l, h]| format!(
                "[{:+.1}, {:+.1}] %",
                100.0 * l,
                100.0 * h
            )),
        );
    }
    println!("  false alarms, {runs} against {runs} (anything flagged)   {}", share(false_alarms, compared));
    println!("  false alarms, first recordings as one pair      {}", share(pair_false_alarms, compared));
    print_power(found, inconclusive, wrong_s, compared, &injected);
    print_run_spread(&medians, compared);
}

/// How much a pass's median moves between runs of the same program: the spread that
/// decides how many recordings a side a comparison needs to see past it.
fn print_run_spread(medians: &BTreeMap<String, Vec<f64>>, sets: usize) {
    let mut spreads: Vec<(f64, &str, usize)> = medians
        .iter()
        .filter(|(_, values)| values.len() >= 3)
        .map(|(name, values)| {
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
            (variance.sqrt() / mean, name.as_str(), values.len())
        })
        .collect();
    spreads.sort_by(|x, y| x.0.total_cmp(&y.0));
    println!("  spread of a pass's median between unchanged runs ({sets} sets; coefficient of variation):");
    let target = format!("{REAL_SLOW} (");
    let slow = spreads.iter().skip(3).filter(|(_, name, _)| name.starts_with(&target));
    for (cv, name, runs) in spreads.iter().take(3).chain(slow) {
        println!("    {name:<32} {:5.1} % over {runs} runs", 100.0 * cv);
    }
    if let Some((cv, _, _)) = spreads.get(spreads.len() / 2) {
        println!("    the median pass                  {:5.1} %", 100.0 * cv);
    }
}

fn main() {
    let pairs_from = |name: &str, default| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (real_pairs, real_long_pairs) = (pairs_from("SGPT_REAL_PAIRS", 6), pairs_from("SGPT_REAL_LONG_PAIRS", 3));
    let (real_set_count, real_runs) = (pairs_from("SGPT_REAL_SETS", 5), pairs_from("SGPT_REAL_RUNS", 10));
    if std::env::args().any(|arg| arg == "--real-only") {
        real("", 600, real_pairs, &CompareOptions::default());
        real("l", 3_600, real_long_pairs, &CompareOptions::default());
        real_sets(real_set_count, real_runs, &CompareOptions::default());
        return;
    }
    let quick = std::env::args().any(|arg| arg == "--quick");
    let pairs = if quick { 8 } else { 40 };
    let long_pairs = if quick { 4 } else { 20 };
    let engine = CompareOptions::default();
    let short = SynthOptions { frames: 600, ..SynthOptions::default() };
    let long = SynthOptions { frames: 3_600, ..SynthOptions::default() };
    let quantized = SynthOptions { quantize_ns: Some(100_000), ..short };
    let quantized_long = SynthOptions { quantize_ns: Some(100_000), ..long };
    let target = typical_pass(&capture(&short, &run(0)));
    println!(
        "sgpt-format compare bench — {} passes, drift σ {} % over {} frames, threshold {} %, min effect {} ns, \
         α {} (Holm)",
        short.passes,
        DRIFT.sigma * 100.0,
        DRIFT.frames,
        engine.threshold * 100.0,
        engine.min_effect_ns,
        engine.alpha
    );
    println!("slowed pass: {target}\n");

    println!("false alarms (pairs with anything flagged slower or faster; target ≤ 5 %)");
    for (name, options, count) in [("600 frames", &short, pairs), ("3600 frames", &long, long_pairs)] {
        let rates = measure(options, count, None, &engine);
        println!("  {name:<12} block bootstrap   {}", share(rates.any_flagged, rates.pairs));
    }
    let iid = CompareOptions { block_frames: Some(1), ..engine };
    let rates = measure(&short, pairs, None, &iid);
    println!(
        "  600 frames   single frames     {}   (a given length of 1: independent frames, unless a pass's own terms show dependence)",
        share(rates.any_flagged, rates.pairs)
    );
    for (name, engine) in [("block bootstrap", engine), ("single frames  ", iid)] {
        let rates = measure_with(&short, pairs, None, &engine, STRONG_DRIFT);
        println!(
            "  600 frames   {name}   {}   (drift σ {} % over {} frames)",
            share(rates.any_flagged, rates.pairs),
            STRONG_DRIFT.sigma * 100.0,
            STRONG_DRIFT.frames
        );
    }

    println!("\npower (the slowed pass flagged slower; target ≥ 95 %), and anything else flagged");
    for (name, options, by, count) in
        [("10 %, 600 frames", &short, 0.10, pairs), ("5 %, 3600 frames", &long, 0.05, long_pairs)]
    {
        let rates = measure(options, count, Some((&target, by)), &engine);
        println!(
            "  {name:<17} slower {}   other flagged in {}",
            share(rates.target_slower, rates.pairs),
            share(rates.any_flagged, rates.pairs)
        );
    }

    println!("\nquantized to 100 µs (per verdict: inconclusive against a wrong slower or faster)");
    for (name, options, count) in [("600 frames", &quantized, pairs), ("3600 frames", &quantized_long, long_pairs)] {
        let rates = measure(options, count, None, &engine);
        println!(
            "  unchanged pairs, {name:<12} inconclusive {}   wrong {}   pairs with a wrong verdict {}",
            share(rates.inconclusive, rates.passes),
            share(rates.wrong, rates.passes),
            share(rates.any_flagged, rates.pairs)
        );
    }
    for (name, options, by, count) in
        [("10 %, 600 frames", &quantized, 0.10, pairs), ("5 %, 3600 frames", &quantized_long, 0.05, long_pairs)]
    {
        let rates = measure(options, count, Some((&target, by)), &engine);
        println!(
            "  slowed {name:<17} the pass slower {}   inconclusive {}   others wrong in {}",
            share(rates.target_slower, rates.pairs),
            share(rates.target_inconclusive, rates.pairs),
            share(rates.any_flagged, rates.pairs)
        );
    }

    real("", 600, real_pairs, &engine);
    real("l", 3_600, real_long_pairs, &engine);
    real_sets(real_set_count, real_runs, &engine);

    let frames = if quick { 36_000 } else { 216_000 };
    println!("\ncost: two captures of {frames} frames × {} passes", short.passes);
    let hour = SynthOptions { frames, ..SynthOptions::default() };
    let a = capture(&hour, &run(7));
    let b = capture(&hour, &run(8));
    let start = Instant::now();
    let capture_a = Capture::open(&a).expect("opens");
    let stats = analysis::pass_stats(&capture_a, 0..capture_a.frames().len());
    let stats_time = start.elapsed();
    let start = Instant::now();
    let samples_a = samples(&a);
    let samples_b = samples(&b);
    let read_time = start.elapsed();
    let start = Instant::now();
    let report = compare(&samples_a, &samples_b, &engine);
    let compare_time = start.elapsed();
    println!("  pass_stats on A (open included): {:.2} s   ({} passes)", stats_time.as_secs_f64(), stats.passes.len());
    println!(
        "  compare A with B: {:.2} s  = reading both {:.2} s + resampling {:.2} s   (blocks of {:?} frames, {} tests)",
        (read_time + compare_time).as_secs_f64(),
        read_time.as_secs_f64(),
        compare_time.as_secs_f64(),
        report.block_frames,
        report.tests
    );
    let flagged = flagged_besides(&report, None);
    println!("  flagged in the hour-long pair: {flagged}");
    print_steps(samples_a, samples_b, &engine);
}

/// The comparison a step at a time, as the inspector runs it between yields: how long its
/// longest steps take (the planning's, each side's block length sliced; a pass), beside
/// the whole.
fn print_steps(a: Samples, b: Samples, engine: &CompareOptions) {
    let mut job = ComparisonJob::new(a, b, engine);
    let (mut planning, mut passes): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    let start = Instant::now();
    loop {
        let planned = job.is_planned();
        let step = Instant::now();
        let mut left = 1;
        let done = job.step(&mut || std::mem::take(&mut left) > 0);
        let ms = step.elapsed().as_secs_f64() * 1e3;
        if planned {
            passes.push(ms);
        } else {
            planning.push(ms);
        }
        if done {
            break;
        }
    }
    let total = start.elapsed().as_secs_f64() * 1e3;
    let longest = |steps: &[f64]| steps.iter().copied().fold(0.0, f64::max);
    println!(
        "  a step at a time: {total:.0} ms in {} steps; planning (both block lengths, the plan) {:.1} ms in {} steps, longest {:.1} ms; longest pass {:.1} ms ({:.1} % of the whole)",
        planning.len() + passes.len(),
        planning.iter().sum::<f64>(),
        planning.len(),
        longest(&planning),
        longest(&passes),
        100.0 * longest(&passes) / total
    );
}
