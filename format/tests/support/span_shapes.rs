//! A capture whose frames take every path of the span section's decoder.

use sgpt_format::{Frame, Level, Meta, Span, SpanKind, Writer};

use super::topologies::topology;

/// Frames whose span sections take every path of the decoder: pass refs out of order
/// and repeated, sub-passes and several query sets (so runs break the stream into
/// segments), ends before begins and begins before the last end (signed columns), codes
/// too long for one refill, a lone span, and no span at all; of different lengths, so
/// one of a pair runs on alone. Pass spans come out of order in some frames, as frame
/// timing must sort them; in one, only because a begin wrapped past `u64::MAX`.
pub fn every_span_shape() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let names = ["a", "b", "c", "d", "e", "f"];
    let id = writer.topology(&topology(&names, &[false; 6])).expect("a Vec");
    let span = |pass: u32, kind: SpanKind, query_set: u8, begin_ns: u64, end_ns: u64| Span {
        pass,
        kind,
        query_set,
        begin_ns,
        end_ns,
    };
    let frames: Vec<Vec<Span>> = vec![
        (0..6)
            .map(|pass| span(pass, SpanKind::Pass, 0, 1_000 * u64::from(pass), 1_000 * u64::from(pass) + 700))
            .collect(),
        vec![
            span(3, SpanKind::Pass, 0, 10_000, 12_000),
            span(3, SpanKind::SubPass, 0, 10_100, 10_900),
            span(0, SpanKind::Pass, 1, 9_000, 9_500),
            span(5, SpanKind::SubPass, 2, 20_000, 19_000),
            span(1, SpanKind::Pass, 2, 5, 1 << 61),
            span(1, SpanKind::Pass, 2, u64::MAX - 3, 2),
        ],
        vec![span(2, SpanKind::Pass, 0, 77, 78)],
        Vec::new(),
        // Pass spans in order, none overlapping, some of no length and some touching:
        // no column signed, the walk frame timing needs follows from the durations.
        vec![
            span(0, SpanKind::Pass, 0, 100, 100),
            span(1, SpanKind::Pass, 0, 100, 150),
            span(2, SpanKind::Pass, 0, 150, 150),
            span(3, SpanKind::Pass, 0, 200, 260),
            span(4, SpanKind::Pass, 0, 260, 260),
        ],
        // Also no column signed, as each difference is taken wrapping, yet out of order:
        // the second span's begin wrapped past the clock's end. The frame after begins
        // later than its first begin, so the union of its spans up to there is counted.
        vec![
            span(0, SpanKind::Pass, 0, u64::MAX - 10, u64::MAX - 5),
            span(1, SpanKind::Pass, 0, 3, 10),
            span(2, SpanKind::Pass, 0, 10, 10),
        ],
        (0..6)
            .map(|pass| span(pass, SpanKind::Pass, 0, 1 << (10 + 8 * pass), (1 << (10 + 8 * pass)) + (3 << (6 * pass))))
            .collect(),
        (0..6).map(|pass| span(pass, SpanKind::SubPass, 1, 40 * u64::from(pass), 40 * u64::from(pass) + 39)).collect(),
    ];
    for (number, spans) in frames.into_iter().cycle().take(36).enumerate() {
        let frame = Frame { frame_number: number as u64, topology: id, spans, ..Frame::default() };
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}
