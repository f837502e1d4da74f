//! A chunk's part of a range's series, written in place (see `ChunkSamples`).

/// A chunk's part of a series of one narrow span a frame, written from its start.
#[derive(Debug)]
pub(super) struct InPlace<'b> {
    pub(super) values: &'b mut [u32],
    /// Frames written so far: value `f` is analysed frame `f`'s.
    pub(super) next: usize,
}
