//! Handing a job's pieces out: which piece goes to the [`PieceScanner`], which the job
//! does itself, and what came back, in piece order. The job decides what a piece's work
//! is (the statistics' scan, or checking frames) and does its own pieces a frame at a
//! time; this keeps the rest the same for every kind of job: a piece that failed, came
//! back for other frames, or was sent to a scanner that has since begun another job (or
//! is no longer given) is done by the job itself, so every piece is merged exactly once.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::Range;

use super::piece::PieceShare;
use crate::directory::FrameEntry;
use crate::piece::FramePiece;

/// Who does a job's pieces besides the job itself: workers, each with its own copy of
/// the bytes it is sent, that answer as the job's [`PieceShare`] says. Answers may come
/// back in any order; a piece that failed, or came back for other frames, the job does
/// itself, as it does the next piece whenever the scanner has no room and nothing out.
pub trait PieceScanner: std::fmt::Debug {
    /// Starts a job: pieces sent from now on are answered as `share` says, and answers
    /// to pieces sent before are never handed back.
    fn begin(&mut self, share: &PieceShare);
    /// Whether it takes another piece now.
    fn has_room(&self) -> bool;
    /// Sends piece `number` (the job's count, from 0).
    fn send(&mut self, number: usize, piece: &FramePiece<'_>);
    /// A piece that came back, if one has: its number, and its answer
    /// ([`PieceShare::answer`]) or why it failed.
    fn receive(&mut self) -> Option<(usize, Result<Vec<u8>, String>)>;
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

/// A job's pieces, and where each one is.
#[derive(Debug)]
pub(crate) struct Dispatch<P> {
    pieces: Vec<Range<usize>>,
    /// Whether a scanner was given the share.
    begun: bool,
    /// The first piece neither sent nor taken by the job.
    next: usize,
    in_flight: BTreeSet<usize>,
    /// Pieces the scanner failed (or could not be asked for), for the job to do.
    retry: VecDeque<usize>,
    /// Pieces done and not yet merged, by number.
    arrived: BTreeMap<usize, P>,
    /// Pieces merged, in order.
    merged: usize,
    /// The scanner's generation the pieces in flight were sent in.
    generation: Option<u64>,
}

/// What [`Dispatch::poll`] did.
pub(crate) enum Poll {
    /// It received an answer or sent a piece.
    Progressed,
    /// Piece `.0` is the job's to do itself, now.
    Own(usize),
    /// Nothing is left to do but wait for the scanner's answers.
    Waiting,
}

impl<P> Dispatch<P> {
    pub(crate) fn new(pieces: Vec<Range<usize>>) -> Self {
        Self {
            pieces,
            begun: false,
            next: 0,
            in_flight: BTreeSet::new(),
            retry: VecDeque::new(),
            arrived: BTreeMap::new(),
            merged: 0,
            generation: None,
        }
    }

    /// The pieces' frames, by number.
    pub(crate) fn pieces(&self) -> &[Range<usize>] {
        &self.pieces
    }

    /// Whether every piece is merged.
    pub(crate) fn done(&self) -> bool {
        self.merged == self.pieces.len()
    }

    /// At the start of a step, given a scanner of generation `current` (`None`: no
    /// scanner): pieces sent to a scanner not given now, or that has since begun another
    /// job, are the job's to do, and a scanner given again is begun again.
    pub(crate) fn resume(&mut self, current: Option<u64>) {
        if self.begun && current != self.generation {
            self.retry.extend(std::mem::take(&mut self.in_flight));
            self.begun = false;
        }
    }

    /// The next piece in order, once it is done: its frames and its part, to merge.
    pub(crate) fn next_to_merge(&mut self) -> Option<(Range<usize>, P)> {
        let part = self.arrived.remove(&self.merged)?;
        self.merged += 1;
        Some((self.pieces[self.merged - 1].clone(), part))
    }

    /// Piece `number` done, by the job or the scanner.
    pub(crate) fn arrive(&mut self, number: usize, part: P) {
        self.arrived.insert(number, part);
    }

    /// Receives an answer, else hands the job a piece of its own, else sends one; in that
    /// order. An answer is read by `decode` (with the piece's frames), which says `None`
    /// for one that failed or is for other frames: the job then does that piece itself.
    /// `share` is what the scanner is begun with; `piece` gives a piece's bytes to send.
    pub(crate) fn poll<'d, 'b>(
        &mut self,
        mut scanner: Option<&mut (dyn PieceScanner + 'd)>,
        share: impl FnOnce() -> PieceShare,
        decode: impl FnOnce(&[u8], Range<usize>) -> Option<P>,
        piece: impl FnOnce(Range<usize>) -> FramePiece<'b>,
    ) -> Poll {
        if let Some(scanner) = scanner.as_deref_mut()
            && !self.in_flight.is_empty()
            && let Some((number, answer)) = scanner.receive()
        {
            if self.in_flight.remove(&number) {
                let frames = self.pieces[number].clone();
                match answer.ok().and_then(|bytes| decode(&bytes, frames)) {
                    Some(part) => self.arrive(number, part),
                    None => self.retry.push_back(number),
                }
            }
            return Poll::Progressed;
        }
        // The next piece is the job's without a scanner, or while one has no room and
        // nothing out (its workers still starting, or gone).
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
            return Poll::Own(number);
        }
        if let Some(scanner) = scanner
            && self.next < self.pieces.len()
            && scanner.has_room()
        {
            if !self.begun {
                scanner.begin(&share());
                self.generation = Some(scanner.generation());
                self.begun = true;
            }
            scanner.send(self.next, &piece(self.pieces[self.next].clone()));
            self.in_flight.insert(self.next);
            self.next += 1;
            return Poll::Progressed;
        }
        Poll::Waiting
    }
}

/// Frames `range` of a capture listed by `entries`, in runs of at most [`PIECE_FRAMES`]
/// frames and [`PIECE_BYTES`] bytes (a single frame larger than that is a piece of its
/// own); none for an empty range.
pub(crate) fn split(entries: &[FrameEntry], range: Range<usize>) -> Vec<Range<usize>> {
    let mut pieces = Vec::new();
    let mut start = range.start;
    let mut bytes = 0u64;
    for index in range.clone() {
        let len = entries[index].len;
        if index > start && (index - start == PIECE_FRAMES || bytes + len > PIECE_BYTES) {
            pieces.push(start..index);
            (start, bytes) = (index, 0);
        }
        bytes += len;
    }
    if start < range.end {
        pieces.push(start..range.end);
    }
    pieces
}
