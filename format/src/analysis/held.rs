//! Frames whose durations are read alone ([`reads_alone`](super::reads_alone)), held frame
//! after frame and handed to each pass's row a run at a time. A frame's durations go to as
//! many rows, one for each of its passes, and written one by one each store lands on a
//! page and cache line of its own. Shared by the statistics' sample and the comparison's
//! collector, which differ only in what a row is and how many frames they hold.

use std::iter::{StepBy, Take};

use super::pass_slots;
use crate::model::TopologyId;

/// One held position's durations, frame after frame.
pub(crate) type Column<'h> = Take<StepBy<std::slice::Iter<'h, u32>>>;

/// Frames of one shape: a topology's passes 0, 1, 2, … in turn, `count` of them.
#[derive(Debug, Default)]
pub(crate) struct HeldFrames {
    /// The topology and the frames' span count.
    shape: Option<(TopologyId, usize)>,
    /// Each position's slot in the topology's table.
    slots: Vec<u32>,
    /// Whether no two positions share a slot, as two GPU passes of one key do. Frames of
    /// a shape whose positions share one are never held: each position's run would
    /// reach the slot as frames of their own.
    distinct: bool,
    /// Scratch for finding a shared slot.
    sorted: Vec<u32>,
    /// The caller's number for the first frame held.
    first: usize,
    frames: usize,
    /// Frame after frame, `slots.len()` durations each.
    durations: Vec<u32>,
}

impl HeldFrames {
    /// Whether a frame of `count` spans of `topology` can join the frames held, at most
    /// `most` of them; if not, what is held is handed over ([`HeldFrames::drain`]) first.
    pub(crate) fn joins(&self, topology: TopologyId, count: usize, most: usize) -> bool {
        self.frames == 0 || (self.shape == Some((topology, count)) && self.frames < most)
    }

    /// Holds frame `frame` of `count` spans of `topology` (slot table `table`), whose
    /// durations `read` appends and says whether it could; where it could not, or where
    /// two of the frame's positions share a slot, nothing of the frame is held. The frame
    /// must join ([`HeldFrames::joins`]).
    pub(crate) fn hold(
        &mut self,
        (topology, table, count): (TopologyId, &[u32], usize),
        frame: usize,
        read: impl FnOnce(&mut Vec<u32>) -> bool,
    ) -> bool {
        debug_assert!(self.frames == 0 || self.shape == Some((topology, count)), "a frame that joins");
        if self.frames == 0 && self.shape != Some((topology, count)) {
            self.slots.clear();
            self.slots.extend(pass_slots(table, count));
            self.shape = Some((topology, count));
            self.sorted.clone_from(&self.slots);
            self.sorted.sort_unstable();
            self.distinct = self.sorted.windows(2).all(|pair| pair[0] != pair[1]);
        }
        if !self.distinct {
            return false;
        }
        let before = self.durations.len();
        if !read(&mut self.durations) {
            self.durations.truncate(before);
            return false;
        }
        if self.frames == 0 {
            self.first = frame;
        }
        self.frames += 1;
        true
    }

    /// The caller's number for the first frame held, and how many are held.
    pub(crate) fn held(&self) -> (usize, usize) {
        (self.first, self.frames)
    }

    /// Hands `each` every position's slot and its durations, frame after frame, then
    /// holds nothing.
    pub(crate) fn drain(&mut self, mut each: impl FnMut(u32, Column<'_>)) {
        if self.frames > 0 {
            let count = self.slots.len();
            for (position, &slot) in self.slots.iter().enumerate() {
                each(slot, self.durations[position..].iter().step_by(count).take(self.frames));
            }
        }
        self.durations.clear();
        self.frames = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_held_are_handed_over_a_position_at_a_time() {
        // Passes 0, 1, 2 of a topology whose table puts them in slots 7, 4, 9.
        let table = [7, 0, 4, 0, 9, 0];
        let mut held = HeldFrames::default();
        let frame = |durations: [u32; 3]| {
            move |out: &mut Vec<u32>| {
                out.extend(durations);
                true
            }
        };
        assert!(held.joins(1, 3, 2));
        assert!(held.hold((1, &table, 3), 10, frame([1, 2, 3])));
        // A frame that cannot be read leaves nothing of itself.
        assert!(!held.hold((1, &table, 3), 11, |out: &mut Vec<u32>| {
            out.push(99);
            false
        }));
        assert!(held.hold((1, &table, 3), 11, frame([4, 5, 6])));
        assert_eq!(held.held(), (10, 2));
        assert!(!held.joins(1, 3, 2), "full");
        assert!(!held.joins(2, 3, 4) && !held.joins(1, 2, 4), "another shape");
        let mut columns = Vec::new();
        held.drain(|slot, column| columns.push((slot, column.copied().collect::<Vec<_>>())));
        assert_eq!(columns, [(7, vec![1, 4]), (4, vec![2, 5]), (9, vec![3, 6])]);
        assert_eq!(held.held().1, 0);
        held.drain(|_, _| panic!("nothing held"));
        assert!(held.joins(2, 3, 4), "anything joins an empty hold");
    }

    #[test]
    fn a_shape_whose_positions_share_a_slot_is_never_held() {
        // Passes 0 and 2 are one key (slot 7): their runs would reach slot 7 as two runs
        // of frames, so frames of this shape are left to be added span by span.
        let table = [7, 0, 4, 0, 7, 0];
        let mut held = HeldFrames::default();
        let read = |out: &mut Vec<u32>| {
            out.extend([1, 2, 3]);
            true
        };
        assert!(!held.hold((1, &table, 3), 10, read));
        assert_eq!(held.held().1, 0);
        held.drain(|_, _| panic!("nothing held"));
        // The same topology's frames of two spans share no slot, and are held.
        assert!(held.hold((1, &table, 2), 11, |out: &mut Vec<u32>| {
            out.extend([1, 2]);
            true
        }));
        assert_eq!(held.held(), (11, 1));
    }
}
