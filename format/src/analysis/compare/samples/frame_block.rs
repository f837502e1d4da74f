//! Frames' spans that go in place, held to be written a block of frames at a time.
//!
//! The usual pass's series is written in place, one value a frame, and a frame of 200
//! passes writes 200 series: each its own stream of pages, every store a different page
//! and cache line from the one before (on the hour-long capture, some 5 ns a span, more
//! than deciding which row a span adds to). Held here, a block of frames is written out a
//! pass at a time: 16 values, one cache line, to each series.
//!
//! A frame's shape is the slot of each of its spans. Held are the positions whose slot is
//! in place, at the frame, and not repeated in the shape; the caller adds the others
//! itself, to slots the block holds nothing of. Frames of one shape are held until the
//! block is full, the shape changes, or anything else is added.

use super::in_place::InPlace;

/// Frames held at most before they are written out: a cache line of `u32` per pass.
const FRAMES: usize = 16;

/// The frames held, all of one shape.
#[derive(Debug, Default)]
pub(super) struct FrameBlock {
    /// The shape: the slot of each position.
    slots: Vec<u32>,
    /// Whether frames of `slots` are being held. Cleared whenever anything else is added.
    open: bool,
    /// Per position, whether its spans are held.
    held: Vec<bool>,
    /// The positions not held, in order.
    direct: Vec<usize>,
    /// Position-major: position `i`'s values are `values[i * FRAMES..][..frames]`.
    values: Vec<u32>,
    frames: usize,
    /// Frames the shortest part held has room for, from its first.
    room: usize,
    /// Per slot, how many times the shape names it: scratch for finding repeats.
    seen: Vec<u32>,
}

impl FrameBlock {
    /// Holds analysed frame `frame`'s spans that go in place, its span `i` of duration
    /// `durations[i]` in slot `slots[i]`, and says so: the caller then adds the spans at
    /// [`FrameBlock::direct`] itself. Or holds nothing and says no, having written out what
    /// it held, for the caller to add the frame span by span.
    pub(super) fn hold(
        &mut self,
        in_place: &mut [Option<InPlace<'_>>],
        frame: usize,
        slots: &[u32],
        durations: &[u32],
    ) -> bool {
        if !self.open || self.slots != slots {
            self.close(in_place);
            self.open_for(in_place, frame, slots);
        }
        if frame >= self.room {
            self.close(in_place);
            return false;
        }
        // Every position's value, held or not: a store is cheaper than asking.
        let held = self.frames;
        for (column, &duration) in self.values.chunks_exact_mut(FRAMES).zip(durations) {
            column[held] = duration;
        }
        self.frames += 1;
        if self.frames == FRAMES {
            self.write_out(in_place);
        }
        true
    }

    /// How many of the frame's positions the caller adds itself.
    pub(super) fn direct_len(&self) -> usize {
        self.direct.len()
    }

    /// The `at`-th position the caller adds itself.
    pub(super) fn direct(&self, at: usize) -> usize {
        self.direct[at]
    }

    /// Writes out what is held and holds nothing more until a shape is opened again.
    #[inline]
    pub(super) fn close(&mut self, in_place: &mut [Option<InPlace<'_>>]) {
        if self.open {
            self.write_out(in_place);
            self.open = false;
        }
    }

    /// Opens shape `slots` at analysed frame `frame`: its positions whose slot is in place,
    /// at that frame, and not repeated are held.
    fn open_for(&mut self, in_place: &[Option<InPlace<'_>>], frame: usize, slots: &[u32]) {
        self.seen.resize(in_place.len(), 0);
        for &slot in slots {
            if let Some(seen) = self.seen.get_mut(slot as usize) {
                *seen += 1;
            }
        }
        self.held.clear();
        self.direct.clear();
        let mut room = usize::MAX;
        for (position, &slot) in slots.iter().enumerate() {
            let part = in_place.get(slot as usize).and_then(Option::as_ref);
            let once = self.seen.get(slot as usize) == Some(&1);
            let held = match part {
                Some(part) if once && part.next == frame => {
                    room = room.min(part.values.len());
                    true
                }
                _ => false,
            };
            self.held.push(held);
            if !held {
                self.direct.push(position);
            }
        }
        for &slot in slots {
            if let Some(seen) = self.seen.get_mut(slot as usize) {
                *seen = 0;
            }
        }
        self.slots.clear();
        self.slots.extend_from_slice(slots);
        self.values.resize(slots.len() * FRAMES, 0);
        self.open = true;
        self.room = room;
    }

    /// Writes the held frames into their series, each pass's values as one run.
    fn write_out(&mut self, in_place: &mut [Option<InPlace<'_>>]) {
        let frames = self.frames;
        if frames == 0 {
            return;
        }
        for ((held, &slot), _) in
            self.values.chunks_exact(FRAMES).zip(&self.slots).zip(&self.held).filter(|(_, held)| **held)
        {
            // Nothing else touches a held slot while the shape is open, so it stays in
            // place; `hold` checked each has room.
            let part = in_place[slot as usize].as_mut().expect("a held slot is in place");
            let to = &mut part.values[part.next..part.next + frames];
            // A whole block as one fixed-size copy, inlined rather than a call per pass.
            match <&mut [u32; FRAMES]>::try_from(&mut *to) {
                Ok(whole) => *whole = <[u32; FRAMES]>::try_from(held).expect("a column is a block"),
                Err(_) => to.copy_from_slice(&held[..frames]),
            }
            part.next += frames;
        }
        self.frames = 0;
    }
}
