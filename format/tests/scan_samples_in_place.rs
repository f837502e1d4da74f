//! Passes with one span in the first frame of every chunk are written in place, into a
//! series sized for the whole range; wherever such a pass turns out otherwise inside a
//! chunk (a second span, a gap, a value past `u32::MAX` ns, missing from the chunk's last
//! frames, a damaged frame skipped), the samples are still exactly `Samples::collect`'s,
//! in 1, 2, 3 and 7 chunks.

use std::ops::Range;

use sgpt_format::analysis::scan::{ScanOptions, Windows, scan};
use sgpt_format::compare::{CompareOptions, Samples, compare};
use sgpt_format::{Capture, Frame, Level, Meta, Span, SpanKind, Writer};

#[path = "support/topologies.rs"]
mod topologies;
use topologies::topology;

const CHUNKS: [usize; 4] = [1, 2, 3, 7];
/// Divisible by every chunk count: the chunks start at multiples of 12, 14, 28 and 42.
const FRAMES: u64 = 84;

fn check(name: &str, bytes: &[u8], range: Range<usize>) -> Samples {
    let capture = Capture::open(bytes).unwrap_or_else(|error| panic!("{name}: {error}"));
    let expected = Samples::collect(&capture, range.clone());
    for chunks in CHUNKS {
        for frame_timing in [true, false] {
            for windows in [Windows::Auto, Windows::SampleEvery(5)] {
                let options = ScanOptions { chunks, frame_timing, windows, samples: true };
                let got = scan(&capture, range.clone(), &options).samples;
                assert!(got.as_ref() == Some(&expected), "{name}, frames {range:?}, {chunks} chunks, {windows:?}");
            }
        }
    }
    expected
}

/// Three passes of one topology; per frame, the spans of pass `pass` from `spans`.
fn capture(spans: impl Fn(u64, usize) -> Vec<u64>) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(&topology(&["a", "b", "c"], &[false; 3])).expect("a Vec");
    for number in 0..FRAMES {
        let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 3], ..Frame::default() };
        let mut t = 20_000_000 * number;
        for pass in 0..3 {
            for (at, duration) in spans(number, pass).into_iter().enumerate() {
                let kind = if at == 2 { SpanKind::SubPass } else { SpanKind::Pass };
                frame.spans.push(Span {
                    pass: pass as u32,
                    kind,
                    begin_ns: t,
                    end_ns: t + duration,
                    ..Span::default()
                });
                t += duration + 1_000;
            }
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

fn noisy(frame: u64, pass: usize) -> u64 {
    40_000 + (frame * 7_919 + pass as u64 * 104_729) % 9_973
}

/// No chunk starts at frames 5, 19, 33, 47, 61, 69 or 83, nor in 77..84.
fn irregular_inside_chunks(frame: u64, pass: usize) -> Vec<u64> {
    match (frame, pass) {
        (5, 0) => vec![noisy(frame, pass), 5_000],
        (19, 1) | (83, 0) => Vec::new(),
        (33, 0) => vec![u64::from(u32::MAX) + 99],
        (47, 1) => vec![noisy(frame, pass), 6_000, 700],
        (61 | 69, 2) => Vec::new(),
        (77.., 2) => Vec::new(),
        _ => vec![noisy(frame, pass)],
    }
}

#[test]
fn passes_regular_where_chunks_start_but_not_inside_them_sample_as_the_collector_does() {
    let regular = capture(|frame, pass| vec![noisy(frame, pass)]);
    let irregular = capture(irregular_inside_chunks);
    for (name, bytes) in [("regular", &regular), ("irregular", &irregular)] {
        let all = check(name, bytes, 0..FRAMES as usize);
        assert_eq!(all.frames(), FRAMES as usize);
        check(name, bytes, 3..FRAMES as usize - 2);
        check(name, bytes, 6..7);
    }
    let report = compare(
        &check("regular", &regular, 0..FRAMES as usize),
        &check("irregular", &irregular, 0..FRAMES as usize),
        &CompareOptions::default(),
    );
    assert_eq!(report.passes.len(), 4, "a, b, c and b's sub-pass");
}

#[test]
fn a_damaged_frame_inside_a_chunk_is_skipped_and_said_as_the_collector_does() {
    let mut bytes = capture(|frame, pass| vec![noisy(frame, pass)]);
    let (start, end) = {
        let capture = Capture::open(&bytes).expect("opens");
        let frames = capture.frames();
        (frames[33].offset as usize, frames[34].offset as usize)
    };
    // A byte inside frame 33's record: its checksum no longer matches.
    bytes[(start + end) / 2] ^= 0x5a;
    let samples = check("damaged", &bytes, 0..FRAMES as usize);
    assert_eq!(samples.defects.len(), 1, "{:?}", samples.defects);
    assert_eq!(samples.frames(), FRAMES as usize - 1);
}
