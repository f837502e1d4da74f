//! The fastest decode the statistics could be: what `cargo bench -p sgpt-cli --bench
//! stats` measures them against.

use crate::analysis::isa;
use crate::reader::Capture;
use crate::spans;

/// Reads every frame's span durations as the statistics read a frame of passes 0, 1, 2, …
/// in turn: two frames at a time, durations alone, compiled for this CPU. Nothing is done
/// with them but a sum, returned so that the reading is not optimized away, beside the
/// frames not read so (of other shapes, or damaged), which a recorder's capture has none of.
#[must_use]
pub fn durations_only(capture: &Capture<'_>) -> (u64, usize) {
    isa::fastest(
        #[inline(always)]
        || {
            let (mut sum, mut other) = (0u64, 0usize);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let frames = capture.frames().len();
            for first in (0..frames).step_by(2) {
                let second = (first + 1).min(frames - 1);
                let (Ok(open_a), Ok(open_b)) = (capture.open_frame(first), capture.open_frame(second)) else {
                    other += 2;
                    continue;
                };
                if !open_a.spans.durations_alone() || !open_b.spans.durations_alone() {
                    other += 2;
                    continue;
                }
                a.clear();
                b.clear();
                if spans::durations_two(open_a.spans, open_b.spans, &mut a, &mut b).is_none() {
                    other += 2;
                    continue;
                }
                // The last frame of an odd count is read twice; counted once.
                let b = if second == first { &[][..] } else { &b[..] };
                sum = a.iter().chain(b).fold(sum, |sum, &duration| sum.wrapping_add(u64::from(duration)));
            }
            (sum, other)
        },
    )
}
