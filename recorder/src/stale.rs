//! Refuses timestamps that a pass cannot have written in the frame being read.
//!
//! Resolving copies whatever a query slot holds when the resolve runs on the GPU. A slot
//! resolved on a command buffer that runs before the one whose pass writes it still holds
//! what an earlier frame wrote there (or zeros, if nothing ever did: wgpu and Dawn clear
//! never-written slots). Those values are real timestamps of another frame, so nothing in
//! the span itself looks wrong. This guard checks each span against what the same timer
//! set held when it was last read:
//! - both timestamps 0: the slot was never written;
//! - the same pair the slot held last time: a repeat of another frame;
//! - a begin before the last span of the set's previous frame ended: the queue runs frames
//!   in submission order on one clock, so a pass of this frame cannot begin before a pass
//!   of an earlier frame ended.
//!
//! A refused span is dropped and counted, never repaired: its pass has no timestamp.

/// Why a span read back from a timer set was refused, if it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Both timestamps 0: no pass ever wrote the slot.
    Unwritten,
    /// The slot's values from an earlier frame, read again.
    Stale,
}

/// One timer set's memory of its last read, in device ticks.
#[derive(Debug, Default)]
pub(crate) struct StaleGuard {
    /// `[begin, end]` of each span slot as last accepted.
    last: Vec<[u64; 2]>,
    /// The latest end accepted in the set's previous frames: this frame begins after it.
    floor: u64,
    /// The latest end accepted in the frame being read.
    frame_end: u64,
}

impl StaleGuard {
    /// Judges span slot `slot` of the frame being read; an accepted span is remembered.
    #[inline]
    pub(crate) fn check(&mut self, slot: usize, begin: u64, end: u64) -> Result<(), Refusal> {
        if begin == 0 && end == 0 {
            return Err(Refusal::Unwritten);
        }
        if begin < self.floor {
            return Err(Refusal::Stale);
        }
        let Some(last) = self.last.get_mut(slot) else { return self.first_use(slot, begin, end) };
        if *last == [begin, end] {
            return Err(Refusal::Stale);
        }
        *last = [begin, end];
        self.frame_end = self.frame_end.max(end);
        Ok(())
    }

    /// A slot the set has not held a span in yet: the memory grows to it, once; frames
    /// after that allocate nothing.
    #[cold]
    fn first_use(&mut self, slot: usize, begin: u64, end: u64) -> Result<(), Refusal> {
        self.last.resize(slot + 1, [0, 0]);
        self.check(slot, begin, end)
    }

    /// Closes the frame being read: the next frame on this set must begin after it.
    pub(crate) fn frame_read(&mut self) {
        self.floor = self.floor.max(self.frame_end);
    }
}

#[cfg(test)]
mod tests {
    use super::{Refusal, StaleGuard};

    #[test]
    fn a_later_frame_is_accepted_and_a_repeat_of_an_earlier_one_is_stale() {
        let mut guard = StaleGuard::default();
        assert_eq!(guard.check(0, 100, 150), Ok(()));
        assert_eq!(guard.check(1, 160, 200), Ok(()));
        guard.frame_read();
        assert_eq!(guard.check(0, 300, 350), Ok(()));
        // Slot 1 was resolved before this frame's pass wrote it: it still holds frame 0's.
        assert_eq!(guard.check(1, 160, 200), Err(Refusal::Stale));
        guard.frame_read();
        // A repeat is refused even when it is the newest pair the set ever held.
        assert_eq!(guard.check(0, 300, 350), Err(Refusal::Stale));
    }

    #[test]
    fn a_span_beginning_before_the_previous_frame_ended_is_stale() {
        let mut guard = StaleGuard::default();
        assert_eq!(guard.check(0, 100, 500), Ok(()));
        guard.frame_read();
        // Slot 1 last held values from an even older frame: before the floor.
        assert_eq!(guard.check(1, 40, 60), Err(Refusal::Stale));
        // Beginning exactly where the last frame ended is possible (quantized clocks).
        assert_eq!(guard.check(2, 500, 500), Ok(()));
    }

    #[test]
    fn zeros_are_a_slot_never_written_and_are_not_remembered() {
        let mut guard = StaleGuard::default();
        assert_eq!(guard.check(0, 0, 0), Err(Refusal::Unwritten));
        guard.frame_read();
        assert_eq!(guard.check(0, 10, 20), Ok(()));
    }

    #[test]
    fn spans_of_one_frame_may_begin_before_each_other_ends() {
        // Within a frame, passes of different encoders overlap or come in any slot order.
        let mut guard = StaleGuard::default();
        assert_eq!(guard.check(0, 200, 300), Ok(()));
        assert_eq!(guard.check(1, 100, 150), Ok(()));
        guard.frame_read();
        assert_eq!(guard.check(1, 301, 310), Ok(()));
        assert_eq!(guard.check(0, 299, 400), Err(Refusal::Stale));
    }
}
