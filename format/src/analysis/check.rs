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
#[cfg(feature = "parallel")]
use crate::frame_timing::{FrameTiming, FrameTimingAccumulator};
use crate::model::Frame;
use crate::reader::{Capture, ReadableCounts};

/// [`Capture::verify_counting`] on every core (rayon's pool): the frames in pieces checked
/// side by side, their checks merged in frame order, so the answer is the same.
#[cfg(feature = "parallel")]
#[must_use]
pub fn verify_parallel(capture: &Capture<'_>) -> (Vec<Defect>, ReadableCounts) {
    let (checks, _) = check_parallel(capture, false);
    capture.verified(checks)
}

/// [`verify_parallel`] and [`frame_timing`](crate::frame_timing::frame_timing) of every
/// frame from the same decode of each, on every core: what `sgpt info` shows, where the
/// two one after the other decoded every frame twice.
#[cfg(feature = "parallel")]
#[must_use]
pub fn verify_and_time_parallel(capture: &Capture<'_>) -> (Vec<Defect>, ReadableCounts, FrameTiming) {
    let (checks, timing) = check_parallel(capture, true);
    let (defects, counts) = capture.verified(checks);
    let timing = timing.unwrap_or_else(|| FrameTimingAccumulator::new(capture));
    (defects, counts, timing.finish())
}

/// Every frame checked in pieces side by side, and with `timing` added to each piece's
/// frame timing too (as a chunk of a scan is), both merged in frame order.
#[cfg(feature = "parallel")]
fn check_parallel<'c, 'a>(
    capture: &'c Capture<'a>,
    timing: bool,
) -> (FrameChecks, Option<FrameTimingAccumulator<'c, 'a>>) {
    use rayon::prelude::*;
    let pieces = split(capture.frames(), 0..capture.frames().len());
    let parts: Vec<_> = pieces
        .into_par_iter()
        .map(|frames| {
            let mut piece_timing = timing.then(|| FrameTimingAccumulator::for_chunk(capture, frames.len()));
            let (mut frame, mut checks) = (Frame::default(), FrameChecks::default());
            for index in frames {
                let decoded = capture.check_frame(index, &mut frame, &mut checks);
                match (&mut piece_timing, decoded) {
                    (Some(timing), Ok(())) => timing.add_decoded(index, &frame),
                    (Some(timing), Err(defect)) => timing.add_defect(defect),
                    (None, _) => {}
                }
            }
            (checks, piece_timing)
        })
        .collect();
    let (mut all, mut merged) = (FrameChecks::default(), None::<FrameTimingAccumulator<'c, 'a>>);
    for (checks, timing) in parts {
        all.append(checks);
        if let Some(later) = timing {
            match &mut merged {
                Some(timing) => timing.merge(later),
                None => merged = Some(later),
            }
        }
    }
    (all, merged)
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
                    let _ = self.capture.check_frame(*next, &mut self.frame, checks);
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
