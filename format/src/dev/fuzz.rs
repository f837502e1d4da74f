//! The reader's fuzz target, as a library function, so a `#[test]` smoke-runs it: `fuzz/` runs it under
//! cargo-fuzz with checksums off (`cfg(fuzzing)`), and a `#[test]` runs it on stable
//! over the fixtures and seeded random mutations. Beyond the reader, it holds the
//! statistics' one-decode scan to the plain analysis on whatever bytes open: the scan's
//! fast paths read frames their own way, and must meet exactly the defects and figures
//! the plain decode does.

use crate::analysis::pass_stats;
use crate::analysis::scan::{ScanOptions, scan};
use crate::compare::Samples;
use crate::frame_timing::frame_timing;
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
    // The scan, whole and in chunks, with samples: exactly the plain analysis.
    let all = 0..frames;
    let stats = pass_stats(&capture, all.clone());
    let timing = Some(frame_timing(&capture, all.clone()));
    let samples = Some(Samples::collect(&capture, all.clone()));
    for chunks in [1, 3] {
        let scanned = scan(&capture, all.clone(), &ScanOptions { chunks, samples: true, ..ScanOptions::default() });
        assert_eq!(scanned.stats, stats, "the scan in {chunks} chunks against pass_stats");
        assert_eq!(scanned.timing, timing, "the scan in {chunks} chunks against frame_timing");
        assert!(scanned.samples == samples, "the scan's samples in {chunks} chunks against Samples::collect");
    }
    // Opening is deterministic.
    let again = Capture::open(data).expect("opened once, opens again");
    assert_eq!(again.frames(), capture.frames());
    assert_eq!(again.defects(), capture.defects());
    assert_eq!(again.memory_records(), capture.memory_records());
}
