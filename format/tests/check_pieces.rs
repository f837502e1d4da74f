//! Checking every frame in steps (`CheckJob`), on the calling thread or handed out in
//! pieces to a `PieceScanner` as the web inspector's workers take them, finds exactly
//! what `Capture::verify_counting` finds: the same defects in the same order, the same
//! counts and lost frames, whatever order the answers come in, whichever fail or come
//! back for other frames, and when the scanner goes away mid-job.

use sgpt_format::analysis::check::CheckJob;
use sgpt_format::analysis::scan::PIECE_FRAMES;
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Defect, ReadableCounts};

#[path = "support/scanner.rs"]
mod scanner;
#[path = "support/v1_fixtures.rs"]
mod v1_fixtures;
use scanner::{Behaviour, Scanner, drive};
use v1_fixtures::{fixture, fixture_names};

/// `capture` checked by a job stepped `units` at a time, with `scanner` for its first
/// `keep` steps (it works between steps, as workers do between the page's tasks).
fn check(capture: &Capture<'_>, scanner: &mut Scanner, units: usize, keep: usize) -> (Vec<Defect>, ReadableCounts) {
    let mut job = CheckJob::new(capture);
    drive(scanner, units, keep, |with, more| {
        let done = job.step_with(with, more);
        (done, job.waiting())
    });
    assert_eq!(job.frames_checked(), capture.frames().len());
    job.finish()
}

/// Synthetic frames over several pieces, with frame 2,500's record damaged (a payload
/// byte flipped: its checksum fails) when `damaged`.
fn synth_bytes(damaged: bool) -> Vec<u8> {
    let mut bytes = generate(&SynthOptions { frames: 5_000, passes: 4, seed: 9, ..SynthOptions::default() });
    if damaged {
        let entry = Capture::open(&bytes).expect("opens").frames()[2_500];
        let at = (entry.offset + entry.len / 2) as usize;
        bytes[at] ^= 0x40;
    }
    bytes
}

#[test]
fn checked_a_frame_a_step_or_in_pieces_it_finds_what_verify_finds_in_every_fixture() {
    for name in fixture_names() {
        let bytes = fixture(&name);
        let Ok(capture) = Capture::open(&bytes) else { continue };
        let mut scanner = Scanner::new(Behaviour::Reversed, 2);
        assert_eq!(check(&capture, &mut scanner, 1, 0), capture.verify_counting(), "{name}");
        assert_eq!(scanner.sent, 0, "{name}: no scanner given, none used");
        // And from copies of the pieces' bytes, as the workers check them.
        let mut scanner = Scanner::new(Behaviour::Reversed, 2);
        assert_eq!(check(&capture, &mut scanner, 4, usize::MAX), capture.verify_counting(), "{name}, pieces");
        assert_eq!(scanner.sent, capture.frames().len().div_ceil(PIECE_FRAMES), "{name}: every piece sent");
    }
    // One fixture at least has a frame that does not read back.
    let bytes = fixture("corrupted.sgpt");
    let capture = Capture::open(&bytes).expect("opens");
    assert!(!capture.readable_counts().lost.is_empty());
}

#[test]
fn pieces_checked_elsewhere_merge_to_what_verify_finds() {
    for damaged in [false, true] {
        let bytes = synth_bytes(damaged);
        let capture = Capture::open(&bytes).expect("opens");
        let expected = capture.verify_counting();
        assert_eq!(expected.1.lost.len(), usize::from(damaged), "the damage is one lost frame");
        let pieces = capture.frames().len().div_ceil(PIECE_FRAMES);
        for behaviour in [Behaviour::Reversed, Behaviour::FailsSome, Behaviour::Mixes] {
            for (units, room) in [(1, 1), (50, 3), (usize::MAX, 8)] {
                let mut scanner = Scanner::new(behaviour, room);
                let got = check(&capture, &mut scanner, units, usize::MAX);
                assert_eq!(got, expected, "damaged {damaged}, {behaviour:?}, {units} units, room {room}");
                assert_eq!(scanner.sent, pieces, "every piece sent once: {behaviour:?}");
            }
        }
    }
}

#[test]
fn a_scanner_that_goes_away_leaves_its_pieces_to_the_job() {
    let bytes = synth_bytes(true);
    let capture = Capture::open(&bytes).expect("opens");
    let expected = capture.verify_counting();
    for keep in [1, 2, 3] {
        let mut scanner = Scanner::new(Behaviour::Silent, 2);
        let got = check(&capture, &mut scanner, 3, keep);
        assert_eq!(got, expected, "scanner dropped after {keep} steps");
        assert!(scanner.sent > 0, "pieces went to the scanner before it went away");
    }
}
