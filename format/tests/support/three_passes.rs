//! Captures of three passes of one topology whose spans a test chooses frame by frame:
//! passes that come, go, repeat or run past `u32::MAX` ns wherever the test wants them.

use sgpt_format::{Frame, Level, Meta, Span, SpanKind, Writer};

use super::topologies::topology;

/// Three passes of one topology, `a`, `b` and `c`, over `frames` frames; per frame, the
/// spans of pass `pass` from `spans`.
pub fn capture_of(frames: u64, spans: impl Fn(u64, usize) -> Vec<u64>) -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META names a level");
    let id = writer.topology(&topology(&["a", "b", "c"], &[false; 3])).expect("a Vec");
    for number in 0..frames {
        let mut frame = Frame { frame_number: number, topology: id, culled: vec![false; 3], ..Frame::default() };
        let mut t = 20_000_000 * number;
        for pass in 0..3 {
            push_spans(&mut frame, &mut t, pass, spans(number, pass));
        }
        writer.frame(&frame).expect("frame numbers increase");
    }
    writer.finish().expect("a Vec")
}

/// Pushes pass `pass`'s spans of `durations` from `t` on, 1 µs apart; the third is a
/// sub-pass region.
pub fn push_spans(frame: &mut Frame, t: &mut u64, pass: usize, durations: Vec<u64>) {
    for (at, duration) in durations.into_iter().enumerate() {
        let kind = if at == 2 { SpanKind::SubPass } else { SpanKind::Pass };
        frame.spans.push(Span { pass: pass as u32, kind, begin_ns: *t, end_ns: *t + duration, ..Span::default() });
        *t += duration + 1_000;
    }
}
