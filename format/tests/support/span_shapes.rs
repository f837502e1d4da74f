//! A capture whose frames take every path of the span section's decoder.

use sgpt_format::{Frame, Level, Meta, Span, SpanKind, Writer};

use super::topologies::topology;

/// Frames whose span sections take every path of the decoder: pass refs out of order
/// and repeated, sub-passes and several query sets (so runs break the stream into
/// segments), ends before begins and begins before the last end (signed columns), codes
/// too long for one refill, a lone span, and no span at all; of different lengths, so
/// one of a pair runs on alone. Pass spans come out of order in some frames, as frame
/// timing must sort them.
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
