//! The scanning stage of a [`ScanJob`](super::ScanJob): the range in pieces, each scanned
//! by a [`PieceScanner`] (the web inspector's workers) or, without one or where one
//! failed, by the job itself a frame at a time, and merged in frame order, so the figures
//! are the one-chunk scan's whoever scanned what.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use super::piece::{PieceFigures, ScanShare};
use super::{Chunk, ChunkRun, Plan};
use crate::analysis::compare::{ChunkPart, RangeSeries, SeriesKind};
use crate::piece::FramePiece;

/// Who scans a job's pieces besides the job itself: workers, each with its own copy of
/// the bytes it is sent. Answers may come back in any order; a piece that failed, or came
/// back for other frames, the job scans itself, as it does the next piece whenever the
/// scanner has no room and nothing out.
pub trait PieceScanner: std::fmt::Debug {
    /// Starts a job: pieces sent from now on are scanned with `share`, and answers to
    /// pieces sent before are never handed back.
    fn begin(&mut self, share: &ScanShare);
    /// Whether it takes another piece now.
    fn has_room(&self) -> bool;
    /// Sends piece `number` (the job's count, from 0).
    fn send(&mut self, number: usize, piece: &FramePiece<'_>);
    /// A piece that came back, if one has: its number, and its figures or why it failed.
    fn receive(&mut self) -> Option<(usize, Result<PieceFigures, String>)>;
    /// How many jobs were begun: a job that finds another begun since its own scans the
    /// pieces it had sent itself, and begins the scanner again for the rest. Several jobs
    /// can so share one scanner, a job at a time.
    fn generation(&self) -> u64;
}

/// Frames a piece holds at most: at 200 passes a frame about 0.2 M spans, a few
/// milliseconds of a worker's time; small, as each worker holds two pieces and their
/// figures in memory of its own.
pub const PIECE_FRAMES: usize = 1024;
/// Bytes of frame records a piece holds at most: what the page copies out for it at once.
pub const PIECE_BYTES: u64 = 1 << 20;

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
    pieces: Vec<Range<usize>>,
    /// Whether a scanner was given the share.
    begun: bool,
    /// The first piece neither sent nor scanned here.
    next: usize,
    in_flight: BTreeSet<usize>,
    /// Pieces the scanner failed (or could not be asked for), for the job to scan.
    retry: VecDeque<usize>,
    local: Option<Local<'c, 'a>>,
    /// Pieces done and not yet merged, by number.
    arrived: BTreeMap<usize, Chunk<'c, 'a>>,
    /// Pieces merged, in order, into `figures`.
    merged: usize,
    figures: Option<Chunk<'c, 'a>>,
    frames_merged: usize,
    /// With the comparison's samples: per row, what its series written in place holds,
    /// those series for the whole range (each piece's part appended as it is merged), and
    /// the pieces' other samples, in order.
    in_place_kinds: Option<Vec<Option<SeriesKind>>>,
    in_place: Vec<Option<RangeSeries>>,
    parts: Vec<ChunkPart>,
    /// The scanner's generation the pieces in flight were sent in.
    generation: Option<u64>,
}

impl<'c, 'a> Pieces<'c, 'a> {
    /// `plan`'s range in pieces; its windows must be placed. With the samples, a pass with
    /// one span in the first frame of every piece gets a series for the whole range,
    /// which each piece's part is appended to in turn (one frame decoded a piece to find
    /// them).
    pub(super) fn new(mut plan: Plan<'c, 'a>) -> Self {
        let pieces = split(&plan);
        let in_place_kinds = plan.samples.then(|| {
            plan.chunks = pieces.clone();
            plan.in_place_kinds()
        });
        let len = plan.range.len();
        let in_place =
            in_place_kinds.iter().flatten().map(|kind| kind.map(|kind| RangeSeries::room(kind, len))).collect();
        Self {
            plan,
            pieces,
            in_place_kinds,
            in_place,
            parts: Vec::new(),
            generation: None,
            begun: false,
            next: 0,
            in_flight: BTreeSet::new(),
            retry: VecDeque::new(),
            local: None,
            arrived: BTreeMap::new(),
            merged: 0,
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
        // Without a scanner, or with one that has since begun another job's pieces, the
        // pieces sent to it are scanned here, and a scanner given again is begun again.
        let current = scanner.as_deref().map(PieceScanner::generation);
        if self.begun && current != self.generation {
            self.retry.extend(std::mem::take(&mut self.in_flight));
            self.begun = false;
        }
        loop {
            if self.merged == self.pieces.len() {
                return Progress::Done;
            }
            if !more() {
                return Progress::Paused;
            }
            if let Some(chunk) = self.arrived.remove(&self.merged) {
                self.merge(chunk);
                continue;
            }
            if let Some(local) = &mut self.local {
                let end = self.pieces[local.number].end;
                if local.next + 1 < end && more() {
                    // Two frames for two units, decoded at once as the workers decode
                    // them: a frame at a time took about twice as long.
                    local.run.add_frames(self.plan.capture, &self.plan.tables, local.next..local.next + 2);
                    local.next += 2;
                } else if local.next < end {
                    local.run.add_frame(self.plan.capture, &self.plan.tables, local.next);
                    local.next += 1;
                } else if let Some(local) = self.local.take() {
                    self.arrived.insert(local.number, local.run.seal());
                }
                continue;
            }
            if let Some(scanner) = scanner.as_deref_mut()
                && !self.in_flight.is_empty()
                && let Some((number, answer)) = scanner.receive()
            {
                if self.in_flight.remove(&number) {
                    match answer {
                        // Figures for other frames would be a fault of the scanner's: scanned here instead.
                        Ok(figures) if figures.frames() == self.pieces[number] => {
                            self.arrived.insert(number, figures.chunk);
                        }
                        Ok(_) | Err(_) => self.retry.push_back(number),
                    }
                }
                continue;
            }
            // The next piece is scanned here without a scanner, or while one has no room
            // and nothing out (its workers still starting, or gone).
            let idle = match scanner.as_deref() {
                None => true,
                Some(scanner) => self.in_flight.is_empty() && !scanner.has_room(),
            };
            let own = self.retry.pop_front().or_else(|| {
                (idle && self.next < self.pieces.len()).then(|| {
                    self.next += 1;
                    self.next - 1
                })
            });
            if let Some(number) = own {
                let (kinds, frames) = (self.in_place_kinds.as_deref(), self.pieces[number].len());
                let run = Box::new(ChunkRun::piece(&self.plan.windows, kinds, frames));
                self.local = Some(Local { number, run, next: self.pieces[number].start });
                continue;
            }
            if let Some(scanner) = scanner.as_deref_mut()
                && self.next < self.pieces.len()
                && scanner.has_room()
            {
                if !self.begun {
                    let (tables, windows) = (self.plan.tables.clone(), self.plan.windows.clone());
                    scanner.begin(&ScanShare::new(tables, windows, self.in_place_kinds.clone()));
                    self.generation = Some(scanner.generation());
                    self.begun = true;
                }
                scanner.send(self.next, &self.plan.capture.piece(self.pieces[self.next].clone()));
                self.in_flight.insert(self.next);
                self.next += 1;
                continue;
            }
            return Progress::Waiting;
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

    fn merge(&mut self, mut chunk: Chunk<'c, 'a>) {
        let piece = self.pieces[self.merged].clone();
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
        self.merged += 1;
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

/// `plan`'s range in runs of at most [`PIECE_FRAMES`] frames and [`PIECE_BYTES`] bytes
/// (a single frame larger than that is a piece of its own); none for an empty range.
fn split(plan: &Plan<'_, '_>) -> Vec<Range<usize>> {
    let entries = plan.capture.frames();
    let mut pieces = Vec::new();
    let mut start = plan.range.start;
    let mut bytes = 0u64;
    for index in plan.range.clone() {
        let len = entries[index].len;
        if index > start && (index - start == PIECE_FRAMES || bytes + len > PIECE_BYTES) {
            pieces.push(start..index);
            (start, bytes) = (index, 0);
        }
        bytes += len;
    }
    if start < plan.range.end {
        pieces.push(start..plan.range.end);
    }
    pieces
}
