//! Spans that end before they begin (inverted, or whose end passed `u64::MAX`: SGPT_FORMAT.md
//! §5 cannot tell the two apart) read 0 ns, and the statistics and frame timing count them
//! apart from the other 0 ns spans, alike on every path a frame can take: `pass_stats`,
//! the scan in one chunk or several, with frame timing or without, with the comparison's
//! samples, and handed out in pieces as the web inspector's workers take them.

use sgpt_format::analysis::pass_stats;
use sgpt_format::analysis::scan::{PIECE_FRAMES, ScanJob, ScanOptions, Windows, scan};
use sgpt_format::frame_timing::frame_timing;
use sgpt_format::{Capture, Frame, Level, Meta, Span, Writer};

#[path = "support/scanner.rs"]
mod scanner;
#[path = "support/topologies.rs"]
mod topologies;
use scanner::{Behaviour, Scanner, drive};

/// What frame `number` holds beside the usual spans, and how many of its spans end before
/// they begin and read 0 ns.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Odd {
    Usual,
    /// Pass `b` ends 500 ns before it begins.
    Inverted,
    /// Pass `b` begins just short of `u64::MAX` and ends past it: stored unsigned, its
    /// duration small, as a counter that wrapped leaves it.
    EndWraps,
    /// Pass `b` begins and ends at the same time, as a quantized timestamp reads.
    Quantized,
}

fn odd(number: u64) -> Odd {
    match number % 997 {
        5 => Odd::Inverted,
        400 => Odd::EndWraps,
        700 | 701 => Odd::Quantized,
        _ => Odd::Usual,
    }
}

/// Three passes over `frames` frames, 1 µs apart, every span 2 µs long but where [`odd`] says.
fn capture_bytes(frames: u64) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(&topologies::topology(&["a", "b", "c"], &[false; 3])).expect("a Vec");
    for number in 0..frames {
        let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 3], ..Frame::default() };
        let t = 20_000_000 * number;
        let b = match odd(number) {
            Odd::Usual => (t + 3_000, t + 5_000),
            Odd::Inverted => (t + 3_000, t + 2_500),
            Odd::EndWraps => (u64::MAX - 300, 700),
            Odd::Quantized => (t + 3_000, t + 3_000),
        };
        for (pass, (begin_ns, end_ns)) in [(t, t + 2_000), b, (t + 6_000, t + 8_000)].into_iter().enumerate() {
            frame.spans.push(Span { pass: pass as u32, begin_ns, end_ns, ..Span::default() });
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

#[test]
fn spans_that_end_before_they_begin_are_counted_apart_on_every_path() {
    // Several pieces' worth, so the job hands out more than one.
    let frames = 2 * PIECE_FRAMES as u64 + 1_234;
    let bytes = capture_bytes(frames);
    let capture = Capture::open(&bytes).expect("opens");
    let range = 0..capture.frames().len();
    let count = |which: &[Odd]| (0..frames).filter(|&number| which.contains(&odd(number))).count() as u64;
    let inverted = count(&[Odd::Inverted, Odd::EndWraps]);
    let zero = inverted + count(&[Odd::Quantized]);
    assert!(inverted >= 4 && zero > inverted, "the capture has both kinds: {inverted} of {zero}");

    let expected = pass_stats(&capture, range.clone());
    assert_eq!((expected.zero_spans, expected.inverted_spans), (zero, inverted));
    let b = expected.passes.iter().find(|pass| pass.label == "b").expect("pass b");
    assert_eq!((b.zero_count, b.min_ns), (zero, 0), "each reads 0 ns, the wrapped one too");

    let timing = frame_timing(&capture, range.clone());
    assert_eq!((timing.zero_spans, timing.inverted_spans), (zero, inverted));

    for chunks in [1, 3] {
        for frame_timing in [false, true] {
            for samples in [false, true] {
                let options = ScanOptions { chunks, frame_timing, samples, ..ScanOptions::default() };
                let scanned = scan(&capture, range.clone(), &options);
                assert_eq!(scanned.stats, expected, "{options:?}");
                if let Some(scanned) = scanned.timing {
                    assert_eq!((scanned.zero_spans, scanned.inverted_spans), (zero, inverted), "{options:?}");
                }
            }
        }
    }

    // Pieces answered by the scanner, and pieces it failed, which the job scans itself.
    for behaviour in [Behaviour::Reversed, Behaviour::FailsSome] {
        let mut job = ScanJob::new(&capture, range.clone(), Windows::SampleEvery(16));
        let mut scanner = Scanner::new(behaviour, 4);
        drive(&mut scanner, 50, usize::MAX, |with, more| {
            let done = job.step_with(with, more);
            (done, job.waiting())
        });
        assert!(scanner.sent > 1, "the job handed out pieces");
        assert_eq!(job.finish_scan().stats, expected, "{behaviour:?}: pieces count them too");
    }
}
