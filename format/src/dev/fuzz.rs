//! The reader's fuzz target, as a library function, so a `#[test]` smoke-runs it: `fuzz/` runs it under
//! cargo-fuzz with checksums off (`cfg(fuzzing)`), and a `#[test]` runs it on stable
//! over the fixtures and seeded random mutations.

use crate::reader::Capture;

/// Opens `data` and exercises every read path. Panics only if an invariant breaks.
pub fn open_and_walk(data: &[u8]) {
    let Ok(capture) = Capture::open(data) else { return };
    // Everything the reader reports must be inside the file it read.
    for defect in capture.defects() {
        assert!(defect.offset <= data.len() as u64, "defect offset beyond the file: {defect}");
    }
    let frames = capture.frames().len();
    assert!(frames <= data.len() / 16, "more frames than records could fit");
    let defects = capture.verify();
    assert!(defects.len() >= capture.defects().len());
    for index in 0..frames {
        // The span fast path reads a prefix of the frame, so a frame that decodes whole
        // must decode there too, to the same spans. (The converse need not hold: a later
        // section can be damaged.)
        if let Ok(frame) = capture.frame(index) {
            let mut spans = Vec::new();
            capture.for_each_span(index, |span| spans.push(span)).expect("a whole frame's spans decode alone");
            assert_eq!(frame.spans, spans);
        }
    }
    // Every memory record diffs between any two of its checkpoints without panicking,
    // and a diff partitions both live sets.
    for record in capture.memory_records() {
        let last = record.checkpoints.len().saturating_sub(1);
        if let Some(diff) = record.diff(0, last) {
            assert_eq!(diff.released.len() + diff.survivors.len(), record.checkpoints[0].live.len());
            assert_eq!(diff.new_live.len() + diff.survivors.len(), record.checkpoints[last].live.len());
        }
    }
    // Opening is deterministic.
    let again = Capture::open(data).expect("opened once, opens again");
    assert_eq!(again.frames(), capture.frames());
    assert_eq!(again.defects(), capture.defects());
    assert_eq!(again.memory_records(), capture.memory_records());
}
