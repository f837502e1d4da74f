//! [`Capture::verify_counting`] a bounded step at a time, for a caller that must yield
//! between pieces of work (the web inspector), and given a [`PieceScanner`], in pieces
//! that its workers check from copies of their bytes: each frame is decoded whole once,
//! wherever it is, and the pieces' checks are merged in frame order, so the defects and
//! counts are `verify_counting`'s whoever checked what.

use crate::analysis::scan::PieceScanner;
use crate::analysis::scan::dispatch::{Dispatch, Poll, split};
use crate::analysis::scan::piece::PieceShare;
use crate::check::{CheckShare, FrameChecks};
use crate::error::Defect;
use crate::model::Frame;
use crate::reader::{Capture, ReadableCounts};

/// [`Capture::verify_counting`] on every core (rayon's pool): the frames in pieces checked
/// side by side, their checks merged in frame order, so the answer is the same.
#[cfg(feature = "parallel")]
#[must_use]
pub fn verify_parallel(capture: &Capture<'_>) -> (Vec<Defect>, ReadableCounts) {
    use rayon::prelude::*;
    let pieces = split(capture.frames(), 0..capture.frames().len());
    let checks: Vec<FrameChecks> = pieces
        .into_par_iter()
        .map(|frames| {
            let (mut frame, mut checks) = (Frame::default(), FrameChecks::default());
            for index in frames {
                capture.check_frame(index, &mut frame, &mut checks);
            }
            checks
        })
        .collect();
    let mut all = FrameChecks::default();
    checks.into_iter().for_each(|piece| all.append(piece));
    capture.verified(all)
}

/// Checking every indexed frame of a capture, in steps.
#[derive(Debug)]
pub struct CheckJob<'c, 'a> {
    capture: &'c Capture<'a>,
    share: CheckShare,
    dispatch: Dispatch<FrameChecks>,
    /// The piece the job checks itself: its number, its checks so far, its next frame.
    local: Option<(usize, FrameChecks, usize)>,
    frame: Frame,
    merged: FrameChecks,
    frames_merged: usize,
    /// Whether the last step ended with only the scanner's answers to wait for.
    waiting: bool,
}

impl<'c, 'a> CheckJob<'c, 'a> {
    /// Checks every frame `capture` indexes; nothing is decoded yet.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        Self {
            capture,
            share: capture.check_share(),
            dispatch: Dispatch::new(split(capture.frames(), 0..capture.frames().len())),
            local: None,
            frame: Frame::default(),
            merged: FrameChecks::default(),
            frames_merged: 0,
            waiting: false,
        }
    }

    /// Checks, sends, receives and merges, a frame checked here or a piece sent, received
    /// or merged for each `more()`, for as long as it returns `true`. Pieces sent to a
    /// scanner a later step is not given are checked here. Returns `true` once every
    /// frame is checked.
    pub fn step_with<'d>(
        &mut self,
        mut scanner: Option<&mut (dyn PieceScanner + 'd)>,
        more: &mut dyn FnMut() -> bool,
    ) -> bool {
        self.waiting = false;
        self.dispatch.resume(scanner.as_deref().map(PieceScanner::generation));
        loop {
            if self.dispatch.done() {
                return true;
            }
            if !more() {
                return false;
            }
            if let Some((frames, checks)) = self.dispatch.next_to_merge() {
                self.frames_merged += frames.len();
                self.merged.append(checks);
                continue;
            }
            if let Some((number, checks, next)) = &mut self.local {
                let end = self.dispatch.pieces()[*number].end;
                if *next < end {
                    self.capture.check_frame(*next, &mut self.frame, checks);
                    *next += 1;
                } else if let Some((number, checks, _)) = self.local.take() {
                    self.dispatch.arrive(number, checks);
                }
                continue;
            }
            let (share, capture) = (&self.share, self.capture);
            let poll = self.dispatch.poll(
                scanner.as_deref_mut(),
                || PieceShare::Check(share.clone()),
                // Checks of other frames would be a fault of the scanner's: checked here instead.
                |bytes, frames| CheckShare::decode(bytes).filter(|(of, _)| *of == frames).map(|(_, checks)| checks),
                |frames| capture.piece(frames),
            );
            match poll {
                Poll::Progressed => {}
                Poll::Own(number) => {
                    let start = self.dispatch.pieces()[number].start;
                    self.local = Some((number, FrameChecks::default(), start));
                }
                Poll::Waiting => {
                    self.waiting = true;
                    return false;
                }
            }
        }
    }

    /// Frames whose checks are merged so far.
    #[must_use]
    pub fn frames_checked(&self) -> usize {
        self.frames_merged
    }

    /// Whether the last step ended waiting for the scanner's answers, with nothing else
    /// to do.
    #[must_use]
    pub fn waiting(&self) -> bool {
        self.waiting
    }

    /// [`Capture::verify_counting`]'s defects and counts, once a step said done.
    #[must_use]
    pub fn finish(self) -> (Vec<Defect>, ReadableCounts) {
        self.capture.verified(self.merged)
    }
}
