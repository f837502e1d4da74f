//! Checking frames whole: what [`Capture::verify`](crate::Capture::verify) finds of each
//! frame, counted as [`Capture::readable_counts`](crate::Capture::readable_counts) counts
//! it. One rule for the whole capture and for a piece of its bytes checked elsewhere (a
//! web worker), so the two cannot drift apart.

use std::ops::Range;

use crate::directory::FrameEntry;
use crate::error::{Defect, DefectKind};
use crate::model::{Frame, TopologyId};
use crate::piece::FramePiece;

/// A frame the index lists that does not read back, named by its number.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LostFrame {
    /// Its position in [`Capture::frames`](crate::Capture::frames).
    pub index: usize,
    /// Its number, as the index gives it.
    pub frame_number: u64,
    /// Why it cannot be read: its defect, at the frame's offset or the failing field's.
    pub defect: Defect,
}

/// What checking a run of frames found, in index order; [`Capture::verified`](crate::Capture::verified)
/// turns the checks of every frame into `verify_counting`'s answer.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FrameChecks {
    /// Frames that read back: they decode whole.
    pub(crate) frames: usize,
    /// Their GPU spans, as decoded.
    pub(crate) spans: u64,
    /// Their dropped spans, as their records say.
    pub(crate) dropped_spans: u64,
    /// The frames that do not read back, each with where its defect is in `defects`: a
    /// capture whose every frame is damaged keeps each message once, not twice.
    pub(crate) lost: Vec<Lost>,
    /// Each frame's defect, one at most a frame.
    pub(crate) defects: Vec<Defect>,
}

/// A frame that does not read back: its index, its number and its defect's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Lost {
    pub(crate) index: usize,
    pub(crate) frame_number: u64,
    pub(crate) defect: usize,
}

impl FrameChecks {
    /// Adds frame `index`, listed by `entry`: `decoded` into `frame`, or why it did not
    /// decode. `passes` gives a topology's GPU pass count, `None` for one that was lost.
    ///
    /// A frame that decodes but whose topology was lost, or whose span names a pass
    /// beyond it, still reads back: its defect is about what the spans mean.
    pub fn add(
        &mut self,
        index: usize,
        entry: &FrameEntry,
        decoded: Result<(), Defect>,
        frame: &Frame,
        passes: impl FnOnce(TopologyId) -> Option<usize>,
    ) {
        if let Err(defect) = decoded {
            self.lost.push(Lost { index, frame_number: entry.frame_number, defect: self.defects.len() });
            self.defects.push(defect);
            return;
        }
        self.frames += 1;
        self.spans += frame.spans.len() as u64;
        self.dropped_spans += u64::from(frame.dropped_spans);
        let Some(passes) = passes(frame.topology) else {
            self.defects.push(Defect::new(
                DefectKind::MissingReference,
                entry.offset,
                format!("frame {} uses topology {}, which was lost", frame.frame_number, frame.topology),
            ));
            return;
        };
        if let Some(span) = frame.spans.iter().find(|span| span.pass as usize >= passes) {
            self.defects.push(Defect::new(
                DefectKind::Malformed,
                entry.offset,
                format!(
                    "frame {} has a span for GPU pass {}, beyond its topology's {passes}",
                    frame.frame_number, span.pass
                ),
            ));
        }
    }

    /// The frames that do not read back, with their defects.
    pub(crate) fn lost_frames(&self) -> Vec<LostFrame> {
        let frame = |lost: &Lost| LostFrame {
            index: lost.index,
            frame_number: lost.frame_number,
            defect: self.defects[lost.defect].clone(),
        };
        self.lost.iter().map(frame).collect()
    }

    /// Adds the checks of the frames that follow these.
    pub fn append(&mut self, later: FrameChecks) {
        self.frames += later.frames;
        self.spans += later.spans;
        self.dropped_spans += later.dropped_spans;
        let before = self.defects.len();
        self.lost.extend(later.lost.into_iter().map(|lost| Lost { defect: lost.defect + before, ..lost }));
        self.defects.extend(later.defects);
    }
}

/// What every piece of a check needs beside its own bytes: each topology's GPU pass
/// count, from the capture that hands the pieces out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckShare {
    /// (topology, GPU passes), by topology.
    passes: Vec<(TopologyId, usize)>,
}

impl CheckShare {
    /// The share of frames whose topologies have `passes` GPU passes each, as
    /// (topology, passes) by topology ([`Capture::check_share`](crate::Capture::check_share)).
    #[must_use]
    pub(crate) fn new(passes: Vec<(TopologyId, usize)>) -> Self {
        Self { passes }
    }

    fn passes(&self, id: TopologyId) -> Option<usize> {
        self.passes.binary_search_by_key(&id, |(id, _)| *id).ok().map(|at| self.passes[at].1)
    }

    /// Checks every frame of `piece`, encoded for [`CheckShare::decode`].
    #[must_use]
    pub fn check(&self, piece: &FramePiece<'_>) -> Vec<u8> {
        let (mut checks, mut frame) = (FrameChecks::default(), Frame::default());
        for (index, entry) in piece.frames().zip(piece.entries()) {
            let decoded = piece.frame_into(index, &mut frame);
            checks.add(index, entry, decoded, &frame, |id| self.passes(id));
        }
        let frames = piece.frames();
        // JSON: a piece's checks are a few numbers, and defects only where there is damage.
        serde_json::to_vec(&(frames.start, frames.end, checks)).expect("checks are plain data")
    }

    /// The frames a piece's answer covers and their checks, as [`CheckShare::check`]
    /// encoded them; `None` for anything else.
    #[must_use]
    pub fn decode(bytes: &[u8]) -> Option<(Range<usize>, FrameChecks)> {
        let (start, end, checks): (usize, usize, FrameChecks) = serde_json::from_slice(bytes).ok()?;
        Some((start..end, checks))
    }
}
