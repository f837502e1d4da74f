//! The reader's fuzz target, as a library function (STYLE.md): `fuzz/` runs it under
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
        let mut spans = 0usize;
        if capture.for_each_span(index, |_| spans += 1).is_ok() {
            let frame = capture.frame(index).expect("a frame whose spans decode also decodes whole");
            assert_eq!(frame.spans.len(), spans);
        }
    }
    // Opening is deterministic.
    let again = Capture::open(data).expect("opened once, opens again");
    assert_eq!(again.frames(), capture.frames());
    assert_eq!(again.defects(), capture.defects());
}
