//! How large a baseline the page can still read beside the capture it has open.
//!
//! Everything the page holds lives in one wasm32 memory of at most 4 GiB, and running out
//! aborts the module: the page can only say so and be reloaded, the open capture lost
//! with it. Comparing two eight-hour captures did exactly that, at 90 % of the comparison.
//! So a baseline is read only where it and what comparing it needs fit beside what the
//! page holds, and otherwise refused by name before a byte is read, the candidate left
//! open and whole.
//!
//! What a capture of `B` bytes costs, beyond its bytes: its index ([`FrameEntry`] a frame);
//! a comparison's codes, a byte a frame for each pass of one span a frame (at most a byte
//! a span); and the durations its statistics keep in their windows, 4 bytes each on
//! frame-scale passes, at most about an eighth of the file. The baseline is taken to be
//! like the candidate in frames and spans per byte, which a baseline of the same program
//! is. The candidate's own codes and kept durations are counted whole as well, since its
//! statistics gather them while the baseline is read.

use sgpt_format::FrameEntry;

/// What a refusal for want of room ends with, whatever refused it (the file's size, or
/// what it inflates to): why there is a limit, and what to do instead.
pub const NO_ROOM_ADVICE: &str = "(a web page's WebAssembly has at most 4 GiB); open it alone, or compare long \
     captures with `sgpt diff` on the command line";

/// wasm32's whole address space.
pub const WASM_MEMORY: u64 = 4 << 30;

/// Left free beyond the estimate: the comparison engine's scratch, the statistics'
/// figures, and the allocator's own slack.
const MARGIN: u64 = 256 << 20;

/// The durations the statistics keep, as a share of the file at most.
const KEPT_SHARE: f64 = 1.0 / 8.0;

/// The capture open, as its size, frames and spans.
#[derive(Clone, Copy, Debug)]
pub struct OpenCapture {
    pub bytes: u64,
    pub frames: u64,
    pub spans: u64,
}

/// The largest baseline, in bytes, that fits beside `open` when the page's memory is
/// `memory` bytes now.
#[must_use]
pub fn baseline_room(memory: u64, open: OpenCapture) -> u64 {
    let entry = size_of::<FrameEntry>() as f64;
    // Per byte of a capture like `open`: its index and its codes.
    let per_byte =
        if open.bytes == 0 { 0.0 } else { (open.frames as f64 * entry + open.spans as f64) / open.bytes as f64 };
    let pending = open.spans as f64 + KEPT_SHARE * open.bytes as f64;
    let free = WASM_MEMORY.saturating_sub(MARGIN).saturating_sub(memory) as f64 - pending;
    if free <= 0.0 { 0 } else { (free / (1.0 + KEPT_SHARE + per_byte)) as u64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bench's captures of 200 passes a frame: the hour (185 MB, 216,000 frames).
    const HOUR: OpenCapture = OpenCapture { bytes: 185_375_503, frames: 216_000, spans: 43_196_414 };
    /// And eight hours of it (1.49 GB, 1,728,000 frames).
    const EIGHT_HOURS: OpenCapture = OpenCapture { bytes: 1_486_037_864, frames: 1_728_000, spans: 345_762_558 };

    #[test]
    fn an_hour_fits_beside_an_hour_and_eight_hours_do_not_beside_eight_hours() {
        // The page's memory once each capture is open: its bytes, index and the rest.
        assert!(baseline_room(250 << 20, HOUR) > HOUR.bytes * 8, "an hour leaves room for far more");
        // Measured: two eight-hour captures ran the page out of memory while comparing.
        let room = baseline_room(1_750 << 20, EIGHT_HOURS);
        assert!(room < EIGHT_HOURS.bytes, "{room} bytes of room");
        // Four hours beside four hours fit.
        let four =
            OpenCapture { bytes: EIGHT_HOURS.bytes / 2, frames: EIGHT_HOURS.frames / 2, spans: EIGHT_HOURS.spans / 2 };
        assert!(baseline_room(900 << 20, four) > four.bytes, "{} bytes of room", baseline_room(900 << 20, four));
    }

    #[test]
    fn room_shrinks_as_memory_fills_and_is_none_past_the_limit() {
        let rooms: Vec<u64> = [0u64, 1 << 30, 2 << 30, 3 << 30].iter().map(|&m| baseline_room(m, HOUR)).collect();
        assert!(rooms.windows(2).all(|pair| pair[0] > pair[1]), "{rooms:?}");
        assert_eq!(baseline_room(WASM_MEMORY, HOUR), 0);
        assert_eq!(baseline_room(u64::MAX, HOUR), 0);
        let empty = OpenCapture { bytes: 0, frames: 0, spans: 0 };
        assert!(baseline_room(0, empty) > 3 << 30, "nothing open leaves the memory less the margin");
    }
}
