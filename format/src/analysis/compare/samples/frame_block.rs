//! Frames' spans that go in place, held to be written a block of frames at a time.
//!
//! The usual pass's series is written in place, one value a frame, and a frame of 200
//! passes writes 200 series: each its own stream of pages, every store a different page
//! and cache line from the one before (on the hour-long capture, some 5 ns a span, more
//! than deciding which row a span adds to). Held here, a block of frames is written out a
//! pass at a time: 16 values, one cache line, to each series.
//!
//! A frame's shape is the slot of each of its spans. A block opens on a frame's shape and
//! holds the slots that are in place, at the frame, and not repeated in it; the caller
//! adds the other positions itself, to slots the block holds nothing of. Later frames are
//! held in the same block, each held slot's value in its own column, while their shape
//! names every held slot exactly once, whatever else it holds: the standard workload's
//! shadow refresh, one more pass every eighth frame, no longer closes the block. The
//! shapes that fitted are remembered ([`SHAPES`] of them), so frames alternating between
//! them are not fitted again each time. What is held is written out when the block is
//! full (it stays open), and the block closed when a frame's shape does not fit it or
//! anything else is added. (Closing it at every change of shape left blocks of four
//! frames on average, a call to copy each short run, and a shape opened for each: 17 %
//! of `sgpt diff` on two hours, one thread; now 9 %.)

use super::in_place::{InPlace, Part, code_run};

/// Frames held at most before they are written out: a cache line of `u32` per pass.
const FRAMES: usize = 16;

/// A position of the shape whose span the caller adds: its value goes to the spare column.
const DIRECT: u32 = u32::MAX;

/// The frames held, each held slot's values in a column of its own.
#[derive(Debug, Default)]
pub(super) struct FrameBlock {
    /// Whether frames are being held. Cleared whenever anything else is added.
    open: bool,
    /// Per column, its slot; one spare column more, which direct positions write into.
    slot_of: Vec<u32>,
    /// Per slot, its column while the block holds it; [`DIRECT`] otherwise.
    column_of: Vec<u32>,
    /// Column-major: column `c`'s values are `values[c * FRAMES..][..frames]`.
    values: Vec<u32>,
    frames: usize,
    /// Frames the shortest part held has room for, from its first.
    room: usize,
    /// The shapes the open block fitted, the one frames are held by at `current`: frames
    /// alternate between a few.
    fitted: Vec<Fitted>,
    current: usize,
    /// Per slot, how many times the shape names it: scratch for finding repeats.
    seen: Vec<u32>,
}

/// A shape the open block holds frames of.
#[derive(Debug, Default)]
struct Fitted {
    shape: Vec<u32>,
    /// Per position, its column, or the spare one.
    columns: Vec<u32>,
    /// The positions the caller adds itself, in order.
    direct: Vec<usize>,
}

/// Shapes an open block remembers having fitted.
const SHAPES: usize = 4;

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
        // A new shape: held by the open block where it fits, else a block of its own.
        let fits = |block: &mut Self| block.open && (block.fitted[block.current].shape == slots || block.fit(slots));
        if !fits(self) {
            self.close(in_place);
            self.open_for(in_place, frame, slots);
        }
        if frame >= self.room {
            self.close(in_place);
            return false;
        }
        // Every position's value, held or not (the spare column takes the others): a
        // store is cheaper than asking.
        let held = self.frames;
        for (&column, &duration) in self.fitted[self.current].columns.iter().zip(durations) {
            self.values[column as usize * FRAMES + held] = duration;
        }
        self.frames += 1;
        if self.frames == FRAMES {
            self.write_out(in_place);
        }
        true
    }

    /// How many of the frame's positions the caller adds itself.
    pub(super) fn direct_len(&self) -> usize {
        self.fitted[self.current].direct.len()
    }

    /// The `at`-th position the caller adds itself.
    pub(super) fn direct(&self, at: usize) -> usize {
        self.fitted[self.current].direct[at]
    }

    /// Writes out what is held and holds nothing more until a shape is opened again.
    #[inline]
    pub(super) fn close(&mut self, in_place: &mut [Option<InPlace<'_>>]) {
        if self.open {
            self.write_out(in_place);
            self.open = false;
        }
    }

    /// Counts in `seen` how many times `slots` names each slot (`seen` is left to clear).
    fn count(&mut self, slots: &[u32]) {
        if self.seen.len() < self.column_of.len() {
            self.seen.resize(self.column_of.len(), 0);
        }
        for &slot in slots {
            if let Some(seen) = self.seen.get_mut(slot as usize) {
                *seen += 1;
            }
        }
    }

    fn clear_seen(&mut self, slots: &[u32]) {
        for &slot in slots {
            if let Some(seen) = self.seen.get_mut(slot as usize) {
                *seen = 0;
            }
        }
    }

    /// Whether the open block can hold frames of shape `slots`, which names every held
    /// slot exactly once; if so, `slots` becomes the shape the frames are held by.
    fn fit(&mut self, slots: &[u32]) -> bool {
        if let Some(at) = self.fitted.iter().position(|fitted| fitted.shape == slots) {
            self.current = at;
            return true;
        }
        self.count(slots);
        let held = self.slot_of.len() - 1;
        let once = |slot: u32| self.seen.get(slot as usize) == Some(&1);
        let fits = self.slot_of[..held].iter().all(|&slot| once(slot));
        if fits {
            // A new entry while there is room, else the one after the current in turn.
            self.current = if self.fitted.len() < SHAPES {
                self.fitted.push(Fitted::default());
                self.fitted.len() - 1
            } else {
                (self.current + 1) % SHAPES
            };
            let fitted = &mut self.fitted[self.current];
            fitted.direct.clear();
            fitted.columns.clear();
            for (position, &slot) in slots.iter().enumerate() {
                let column = self.column_of.get(slot as usize).copied().unwrap_or(DIRECT);
                if column == DIRECT {
                    fitted.direct.push(position);
                    fitted.columns.push(held as u32);
                } else {
                    fitted.columns.push(column);
                }
            }
            fitted.shape.clear();
            fitted.shape.extend_from_slice(slots);
        }
        self.clear_seen(slots);
        fits
    }

    /// Opens a block on shape `slots` at analysed frame `frame`: its positions whose slot is
    /// in place, at that frame, and not repeated are held.
    fn open_for(&mut self, in_place: &[Option<InPlace<'_>>], frame: usize, slots: &[u32]) {
        // The slots held before are held no more (the spare column names none).
        for &slot in &self.slot_of {
            if let Some(column) = self.column_of.get_mut(slot as usize) {
                *column = DIRECT;
            }
        }
        self.column_of.resize(in_place.len(), DIRECT);
        self.count(slots);
        self.slot_of.clear();
        let mut room = usize::MAX;
        for &slot in slots {
            let once = self.seen.get(slot as usize) == Some(&1);
            let part = in_place.get(slot as usize).and_then(Option::as_ref);
            if let Some(part) = part.filter(|part| once && part.next == frame) {
                room = room.min(part.len());
                self.column_of[slot as usize] = self.slot_of.len() as u32;
                self.slot_of.push(slot);
            }
        }
        self.clear_seen(slots);
        self.slot_of.push(DIRECT);
        self.values.resize(self.slot_of.len() * FRAMES, 0);
        self.open = true;
        self.room = room;
        self.fitted.clear();
        self.current = 0;
        let fits = self.fit(slots);
        debug_assert!(fits, "a block fits the shape it opened on");
    }

    /// Writes the held frames into their series, each pass's values as one run.
    fn write_out(&mut self, in_place: &mut [Option<InPlace<'_>>]) {
        let frames = self.frames;
        if frames == 0 {
            return;
        }
        let held = self.slot_of.len().saturating_sub(1);
        for (column, &slot) in self.values.chunks_exact(FRAMES).zip(&self.slot_of[..held]) {
            // Nothing else touches a held slot while the block is open, so it stays in
            // place; `hold` checked each has room.
            let part = in_place[slot as usize].as_mut().expect("a held slot is in place");
            let at = part.next..part.next + frames;
            match &mut part.values {
                Part::Durations(values) => {
                    let to = &mut values[at];
                    // A whole block as one fixed-size copy, inlined rather than a call per pass.
                    match <&mut [u32; FRAMES]>::try_from(&mut *to) {
                        Ok(whole) => *whole = <[u32; FRAMES]>::try_from(column).expect("a column is a block"),
                        Err(_) => to.copy_from_slice(&column[..frames]),
                    }
                }
                Part::Codes(codes) => code_run(&mut codes[at], &column[..frames], part.window),
            }
            part.next += frames;
        }
        self.frames = 0;
    }
}
