//! A scan handed out in pieces (`ScanJob::step_with` and a `PieceScanner`, as the web
//! inspector's workers take them) gives exactly `pass_stats`' figures, whatever order the
//! answers come back in, whichever pieces fail or come back for the wrong frames, and
//! when the scanner goes away mid-job. The scanner (`support/scanner.rs`) does what a
//! worker does, from copies of the pieces' bytes.

use std::ops::Range;

use sgpt_format::Capture;
use sgpt_format::analysis::scan::piece::{PieceShare, ScanShare, decode_entries, encode_entries};
use sgpt_format::analysis::scan::{PIECE_FRAMES, PieceScanner, Scan, ScanJob, ScanOptions, Windows, scan};
use sgpt_format::analysis::{StatsReport, pass_stats};
use sgpt_format::compare::{CompareOptions, Samples, compare, try_compare};
use sgpt_format::synth::{SynthOptions, generate};

#[path = "support/scanner.rs"]
mod scanner;
#[path = "support/three_passes.rs"]
mod three_passes;
#[path = "support/topologies.rs"]
mod topologies;
#[path = "support/v1_fixtures.rs"]
mod v1_fixtures;
use scanner::{Behaviour, Scanner, drive};
use three_passes::capture_of;
use v1_fixtures::{fixture, fixture_names};

/// The statistics from a job stepped `units` at a time with `scanner` (which works
/// between steps, as workers do between the page's tasks); the scanner is dropped after
/// `keep` steps. Returns the report and how many pieces were sent.
fn run(
    capture: &Capture<'_>,
    range: Range<usize>,
    windows: Windows,
    scanner: &mut Scanner,
    units: usize,
    keep: usize,
) -> (StatsReport, usize) {
    let (scan, sent) = run_job(ScanJob::new(capture, range, windows), scanner, units, keep);
    (scan.stats, sent)
}

/// [`run`] for any job: its scan, and how many pieces were sent.
fn run_job(mut job: ScanJob<'_, '_>, scanner: &mut Scanner, units: usize, keep: usize) -> (Scan, usize) {
    drive(scanner, units, keep, |with, more| {
        let done = job.step_with(with, more);
        (done, job.waiting())
    });
    (job.finish_scan(), scanner.sent)
}

fn capture_bytes() -> Vec<u8> {
    // More frames than a piece holds, so the range is several pieces.
    generate(&SynthOptions { frames: 13_000, passes: 6, seed: 21, ..SynthOptions::default() })
}

#[test]
fn pieces_scanned_elsewhere_merge_to_the_single_threaded_figures() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let frames = capture.frames().len();
    for range in [0..frames, 1_000..9_500, PIECE_FRAMES..PIECE_FRAMES + 1, 7..7] {
        let expected = pass_stats(&capture, range.clone());
        for behaviour in [Behaviour::Reversed, Behaviour::FailsSome, Behaviour::Mixes] {
            for windows in [Windows::All, Windows::SampleEvery(16)] {
                for (units, room) in [(1, 1), (50, 3), (usize::MAX, 8)] {
                    let mut scanner = Scanner::new(behaviour, room);
                    let (got, sent) = run(&capture, range.clone(), windows, &mut scanner, units, usize::MAX);
                    assert_eq!(got, expected, "{behaviour:?}, {range:?}, {windows:?}, {units} units, room {room}");
                    let pieces = range.len().div_ceil(PIECE_FRAMES);
                    assert_eq!(sent, pieces, "every piece is sent once: {behaviour:?} over {range:?}");
                }
            }
        }
    }
}

#[test]
fn a_scanner_that_goes_away_leaves_its_pieces_to_the_job() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let frames = capture.frames().len();
    let expected = pass_stats(&capture, 0..frames);
    // Sampling takes the first 9 steps of 100 units (813 frames of 13,000, every 16th).
    for keep in [0, 5, 12, 40] {
        let mut scanner = Scanner::new(Behaviour::Silent, 2);
        let (got, sent) = run(&capture, 0..frames, Windows::SampleEvery(16), &mut scanner, 100, keep);
        assert_eq!(got, expected, "scanner dropped after {keep} steps");
        assert_eq!(sent > 0, keep > 9, "pieces went to the scanner before it went away, after {keep} steps");
    }
}

#[test]
fn figures_and_entries_that_do_not_decode_are_refused() {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let share_text = {
        // The share a job hands out, taken from a scanner it was given.
        let mut scanner = Scanner::new(Behaviour::Silent, 1);
        let mut job = ScanJob::new(&capture, 0..capture.frames().len(), Windows::All);
        let _ = job.step_with(Some(&mut scanner), &mut || true);
        scanner.share.expect("the job began the scanner")
    };
    let share = scan_share(&share_text);
    let figures = share.scan(&capture.piece(0..100)).encode();
    assert_eq!(share.decode(&figures).expect("decodes").frames(), 0..100);
    for cut in [0, 7, 8, 64, figures.len() - 8] {
        assert!(share.decode(&figures[..cut]).is_err(), "figures cut to {cut} bytes decode");
    }
    let mut foreign = figures.clone();
    foreign[8] ^= 1;
    assert!(share.decode(&foreign).is_err(), "figures for another number of rows decode");
    // A row claiming more durations than there are words: refused, not a panic.
    let mut claiming = figures.clone();
    // Ten words of head, then row 0's words: its tenth is how many it keeps.
    let kept_len_of_row_0 = (10 + 9) * 8;
    claiming[kept_len_of_row_0..kept_len_of_row_0 + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(share.decode(&claiming).is_err(), "a row claiming 2^64 durations decodes");
    assert!(PieceShare::from_json("{}").is_err());
    let entries = encode_entries(capture.piece(0..3).entries());
    assert_eq!(decode_entries(&entries).expect("decodes"), capture.frames()[0..3]);
    assert!(decode_entries(&entries[..63]).is_err());
}

#[test]
fn damaged_frames_read_from_a_copy_say_what_the_capture_says() {
    let mut checked = 0;
    for name in fixture_names() {
        let bytes = fixture(&name);
        let Ok(capture) = Capture::open(&bytes) else { continue };
        checked += 1;
        let frames = capture.frames().len();
        let mut scanner = Scanner::new(Behaviour::Reversed, 4);
        let (got, _) = run(&capture, 0..frames, Windows::All, &mut scanner, 7, usize::MAX);
        assert_eq!(got, pass_stats(&capture, 0..frames), "{name}");
    }
    assert!(checked > 20, "only {checked} fixtures opened");
}

#[test]
fn a_scanner_with_no_room_and_nothing_out_leaves_the_pieces_to_the_job() {
    // Workers still starting, or all gone: the job does not wait on them.
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    let frames = capture.frames().len();
    let mut scanner = Scanner::new(Behaviour::Reversed, 0);
    let (got, sent) = run(&capture, 0..frames, Windows::SampleEvery(16), &mut scanner, 100, usize::MAX);
    assert_eq!(got, pass_stats(&capture, 0..frames));
    assert_eq!(sent, 0);
}

fn noisy(frame: u64, pass: usize) -> u64 {
    40_000 + (frame * 7_919 + pass as u64 * 104_729) % 9_973
}

/// Frames of the captures below: three pieces, the last one short.
const SHAPED_FRAMES: u64 = 2_600;

/// Passes that break the usual pattern inside pieces and where they start (frames 1,024
/// and 2,048): a second span and a sub-pass, a gap, a span past `u32::MAX` ns, a pass
/// missing from a piece's first frame and from the last frames.
fn irregular(frame: u64, pass: usize) -> Vec<u64> {
    match (frame, pass) {
        (700, 0) => vec![noisy(frame, pass), 5_000],
        (1_500, 0) => vec![noisy(frame, pass), 6_000, 700],
        (19 | 1_024 | 2_500.., 1) => Vec::new(),
        (2_048, 2) => vec![u64::from(u32::MAX) + 99],
        _ => vec![noisy(frame, pass)],
    }
}

/// A pass missing from frames inside pieces and from the last ones: at most one span a
/// frame, so coins are kept.
fn gaps(frame: u64, pass: usize) -> Vec<u64> {
    match (frame, pass) {
        (19 | 40 | 41 | 1_500 | 2_598 | 2_599, 1) => Vec::new(),
        _ => vec![noisy(frame, pass)],
    }
}

#[test]
fn samples_from_pieces_scanned_elsewhere_are_the_collector_s() {
    let regular = capture_of(SHAPED_FRAMES, |frame, pass| vec![noisy(frame, pass)]);
    let (irregular, gaps) = (capture_of(SHAPED_FRAMES, irregular), capture_of(SHAPED_FRAMES, gaps));
    let all = 0..SHAPED_FRAMES as usize;
    for (name, bytes) in [("regular", &regular), ("irregular", &irregular), ("gaps", &gaps)] {
        let capture = Capture::open(bytes).expect("opens");
        for range in [all.clone(), 1_000..2_100] {
            let expected = Samples::collect(&capture, range.clone());
            for behaviour in [Behaviour::Reversed, Behaviour::FailsSome, Behaviour::Mixes] {
                for windows in [Windows::All, Windows::SampleEvery(4)] {
                    for (units, room) in [(1, 1), (50, 3)] {
                        let mut scanner = Scanner::new(behaviour, room);
                        let job = ScanJob::with_samples(&capture, range.clone(), windows, false);
                        let (got, sent) = run_job(job, &mut scanner, units, usize::MAX);
                        let case = format!("{name}, {range:?}, {behaviour:?}, {windows:?}, {units} units, room {room}");
                        assert_eq!(got.stats, pass_stats(&capture, range.clone()), "{case}");
                        assert!(got.samples == Some(expected.clone()), "{case}");
                        assert_eq!(sent, range.len().div_ceil(PIECE_FRAMES), "{case}");
                    }
                }
            }
        }
    }
    // Coins where every pass has at most one span a frame: the coins a scan in chunks
    // keeps, and the comparison the durations give.
    let collected = |bytes: &[u8]| Samples::collect(&Capture::open(bytes).expect("opens"), all.clone());
    for (name, bytes) in [("regular", &regular), ("gaps", &gaps), ("irregular", &irregular)] {
        let capture = Capture::open(bytes).expect("opens");
        for windows in [Windows::All, Windows::SampleEvery(4)] {
            let mut scanner = Scanner::new(Behaviour::FailsSome, 3);
            let job = ScanJob::with_samples(&capture, all.clone(), windows, true);
            let coins = run_job(job, &mut scanner, 20, usize::MAX).0.samples;
            if name == "irregular" {
                assert!(coins.is_none(), "a second span in a frame leaves no coins");
                continue;
            }
            let coins = coins.unwrap_or_else(|| panic!("{name}, {windows:?}: at most one span a frame keeps coins"));
            let options = ScanOptions { chunks: 3, frame_timing: false, windows, samples: true, coins: true };
            assert!(scan(&capture, all.clone(), &options).samples == Some(coins.clone()), "{name}, {windows:?}");
            let expected = compare(&collected(&regular), &collected(bytes), &CompareOptions::default());
            let got = try_compare(&collected(&regular), &coins, &CompareOptions::default());
            assert_eq!(got, Some(expected), "{name}, {windows:?}");
        }
    }
}

/// Two jobs stepped in turn with one scanner, each beginning it again whenever the other
/// has since: each scans the pieces the other's beginning took from it, and both are exact.
#[test]
fn jobs_taking_turns_with_one_scanner_are_each_exact() {
    let bytes = capture_of(SHAPED_FRAMES, gaps);
    let capture = Capture::open(&bytes).expect("opens");
    let all = 0..SHAPED_FRAMES as usize;
    let mut scanner = Scanner::new(Behaviour::Reversed, 3);
    let mut stats = ScanJob::new(&capture, all.clone(), Windows::All);
    let mut samples = ScanJob::with_samples(&capture, 400..SHAPED_FRAMES as usize, Windows::All, false);
    let (mut stats_done, mut samples_done) = (false, false);
    for step in 0..1_000_000 {
        let mut left = 2;
        let mut more = || {
            left -= 1;
            left >= 0
        };
        // The samples' job takes its turn every third step.
        if step % 3 == 2 {
            samples_done = samples_done || samples.step_with(Some(&mut scanner), &mut more);
        } else {
            stats_done = stats_done || stats.step_with(Some(&mut scanner), &mut more);
        }
        scanner.work();
        if stats_done && samples_done {
            break;
        }
    }
    assert!(stats_done && samples_done, "both jobs end");
    assert!(scanner.generation() > 2, "the jobs began the scanner in turn: {}", scanner.generation());
    assert_eq!(stats.finish(), pass_stats(&capture, all.clone()));
    let scanned = samples.finish_scan();
    assert_eq!(scanned.stats, pass_stats(&capture, 400..SHAPED_FRAMES as usize));
    assert!(scanned.samples == Some(Samples::collect(&capture, 400..SHAPED_FRAMES as usize)));
}

/// The scan's share in `json`, as a worker parses it.
fn scan_share(json: &str) -> ScanShare {
    match PieceShare::from_json(json).expect("parses") {
        PieceShare::Scan(share) => share,
        PieceShare::Check(_) => panic!("a check's share"),
    }
}

#[test]
fn samples_that_do_not_decode_are_refused() {
    let bytes = capture_of(SHAPED_FRAMES, irregular);
    let capture = Capture::open(&bytes).expect("opens");
    let share_of = |job: &mut ScanJob<'_, '_>| {
        let mut scanner = Scanner::new(Behaviour::Silent, 1);
        let _ = job.step_with(Some(&mut scanner), &mut || true);
        scan_share(&scanner.share.expect("the job began the scanner"))
    };
    let all = 0..SHAPED_FRAMES as usize;
    let with = share_of(&mut ScanJob::with_samples(&capture, all.clone(), Windows::All, false));
    let without = share_of(&mut ScanJob::new(&capture, all, Windows::All));
    // Frames 690..710 hold frame 700's second span: a series of their own beside the parts.
    let figures = with.scan(&capture.piece(690..710)).encode();
    assert_eq!(with.decode(&figures).expect("decodes").frames(), 690..710);
    let plain = without.scan(&capture.piece(690..710)).encode();
    assert!(without.decode(&figures).is_err(), "samples a share did not ask for");
    assert!(with.decode(&plain).is_err(), "no samples where the share asks for them");
    for cut in (8..figures.len()).step_by(8).chain([figures.len() - 1]) {
        assert!(with.decode(&figures[..cut]).is_err(), "figures with samples cut to {cut} bytes decode");
    }
}
