//! The scanning stage of a [`ScanJob`](super::ScanJob): the range in pieces, each scanned
//! by a [`PieceScanner`] (the web inspector's workers) or, without one or where one
//! failed, by the job itself a frame at a time, and merged in frame order, so the figures
//! are the one-chunk scan's whoever scanned what.

use std::ops::Range;

use super::dispatch::{Dispatch, PieceScanner, Poll, split};
use super::piece::{PieceShare, ScanShare};
use super::{Chunk, ChunkRun, Plan};
use crate::analysis::compare::{ChunkPart, RangeSeries, SeriesKind};

/// The room made for a row's kept durations, over what the pieces merged so far
/// project: a little over, so that later pieces that keep a few more seldom need more.
const ROOM_FACTOR: f64 = 1.05;

/// How far [`Pieces::step`] got.
pub(super) enum Progress {
    /// Every piece is merged.
    Done,
    /// `more()` said no.
    Paused,
    /// Nothing is left to do but wait for the scanner's answers.
    Waiting,
}

/// A piece the job scans itself: its number, the chunk so far and the next frame.
#[derive(Debug)]
struct Local<'c, 'a> {
    number: usize,
    run: Box<ChunkRun<'c, 'a, 'static>>,
    next: usize,
}

#[derive(Debug)]
pub(super) struct Pieces<'c, 'a> {
    pub(super) plan: Plan<'c, 'a>,
    dispatch: Dispatch<Chunk<'c, 'a>>,
    /// What the scanner scans each piece with, and reads its figures by.
    share: ScanShare,
    local: Option<Local<'c, 'a>>,
    /// Pieces merged, in order, into `figures`.
    figures: Option<Chunk<'c, 'a>>,
    frames_merged: usize,
    /// With the comparison's samples: per row, what its series written in place holds,
    /// those series for the whole range (each piece's part appended as it is merged), and
    /// the pieces' other samples, in order.
    in_place_kinds: Option<Vec<Option<SeriesKind>>>,
    in_place: Vec<Option<RangeSeries>>,
    parts: Vec<ChunkPart>,
}

impl<'c, 'a> Pieces<'c, 'a> {
    /// `plan`'s range in pieces; its windows must be placed. With the samples, a pass with
    /// one span in the first frame of every piece gets a series for the whole range,
    /// which each piece's part is appended to in turn (one frame decoded a piece to find
    /// them).
    pub(super) fn new(mut plan: Plan<'c, 'a>) -> Self {
        let pieces = split(plan.capture.frames(), plan.range.clone());
        let in_place_kinds = plan.samples.then(|| {
            plan.chunks = pieces.clone();
            plan.in_place_kinds()
        });
        let len = plan.range.len();
        let in_place =
            in_place_kinds.iter().flatten().map(|kind| kind.map(|kind| RangeSeries::room(kind, len))).collect();
        let share = ScanShare::new(plan.tables.clone(), plan.windows.clone(), in_place_kinds.clone());
        Self {
            plan,
            dispatch: Dispatch::new(pieces),
            share,
            in_place_kinds,
            in_place,
            parts: Vec::new(),
            local: None,
            figures: None,
            frames_merged: 0,
        }
    }

    /// Merges, scans, receives and sends, one piece or frame for each `more()`, until
    /// every piece is merged, `more()` says no, or only the scanner is awaited. Without a
    /// scanner, pieces sent to one before are scanned here.
    pub(super) fn step<'d>(
        &mut self,
        mut scanner: Option<&mut (dyn PieceScanner + 'd)>,
        more: &mut dyn FnMut() -> bool,
    ) -> Progress {
        self.dispatch.resume(scanner.as_deref().map(PieceScanner::generation));
        loop {
            if self.dispatch.done() {
                return Progress::Done;
            }
            if !more() {
                return Progress::Paused;
            }
            if let Some((frames, chunk)) = self.dispatch.next_to_merge() {
                self.merge(frames, chunk);
                continue;
            }
            if let Some(local) = &mut self.local {
                let end = self.dispatch.pieces()[local.number].end;
                if local.next + 1 < end && more() {
                    // Two frames for two units, decoded at once as the workers decode
                    // them: a frame at a time took about twice as long.
                    local.run.add_frames(self.plan.capture, &self.plan.tables, local.next..local.next + 2);
                    local.next += 2;
                } else if local.next < end {
                    local.run.add_frame(self.plan.capture, &self.plan.tables, local.next);
                    local.next += 1;
                } else if let Some(local) = self.local.take() {
                    self.dispatch.arrive(local.number, local.run.seal());
                }
                continue;
            }
            let (share, capture) = (&self.share, self.plan.capture);
            let poll = self.dispatch.poll(
                scanner.as_deref_mut(),
                || PieceShare::Scan(share.clone()),
                // Figures for other frames would be a fault of the scanner's: scanned here instead.
                |bytes, frames| share.decode(bytes).ok().filter(|figures| figures.frames() == frames).map(|f| f.chunk),
                |frames| capture.piece(frames),
            );
            match poll {
                Poll::Progressed => {}
                Poll::Own(number) => {
                    let frames = self.dispatch.pieces()[number].clone();
                    let run =
                        Box::new(ChunkRun::piece(&self.plan.windows, self.in_place_kinds.as_deref(), frames.len()));
                    self.local = Some(Local { number, run, next: frames.start });
                }
                Poll::Waiting => return Progress::Waiting,
            }
        }
    }

    /// Frames of the pieces merged so far.
    pub(super) fn frames_merged(&self) -> usize {
        self.frames_merged
    }

    /// The plan and every piece's figures, merged; once [`Pieces::step`] said done. With
    /// the samples, the pieces' in order and the series written in place.
    pub(super) fn into_figures(self) -> Merged<'c, 'a> {
        let figures = self.figures.unwrap_or_else(|| ChunkRun::stats_only(&self.plan.windows).seal());
        Merged { plan: self.plan, figures, parts: self.parts, in_place: self.in_place }
    }

    /// Merges the next piece in order, of frames `piece`.
    fn merge(&mut self, piece: Range<usize>, mut chunk: Chunk<'c, 'a>) {
        if self.in_place_kinds.is_some() {
            // A piece's answer without samples, or with samples of another length (never
            // from this crate's scanner), leaves the samples incomplete, as a lost part does.
            let mut part = chunk
                .samples
                .take()
                .filter(|part| part.room() == piece.len())
                .unwrap_or_else(|| ChunkPart::lost(piece.len()));
            part.append_to(&mut self.in_place);
            part.shed_empty();
            self.parts.push(part);
        }
        self.frames_merged += piece.len();
        // Each row's kept durations grow a piece at a time. Where a row's room runs out,
        // it is made room for what the whole range will likely keep at the rate so far,
        // rather than doubled past it (on the hour-long capture doubling left a fifth of
        // the file's size in slack); by an eighth at least, so that a rate that keeps
        // rising copies the durations a bounded number of times.
        let scale = self.plan.range.len() as f64 / self.frames_merged.max(1) as f64;
        let figures = self.figures.get_or_insert_with(|| ChunkRun::stats_only(&self.plan.windows).seal());
        for (slot, later) in figures.slots.iter_mut().zip(&chunk.slots) {
            let len = slot.kept.len() + later.kept.len();
            if slot.kept.capacity() < len {
                let likely = (len as f64 * scale * ROOM_FACTOR) as usize;
                slot.kept.reserve_exact(likely.max(len + len / 8) - slot.kept.len());
            }
        }
        figures.merge(chunk);
    }
}

/// What [`Pieces`] leaves once every piece is merged.
#[derive(Debug)]
pub(super) struct Merged<'c, 'a> {
    pub(super) plan: Plan<'c, 'a>,
    pub(super) figures: Chunk<'c, 'a>,
    pub(super) parts: Vec<ChunkPart>,
    pub(super) in_place: Vec<Option<RangeSeries>>,
}
