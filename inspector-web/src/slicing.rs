//! How much of a job one slice of the page's thread may do, and what it reports.
//!
//! Long work (reading, inflating and opening the file, then verification, statistics,
//! sparklines, comparison and memory gauges) runs in slices with a yield to the event loop
//! between them. A slice ends at whichever comes first:
//!
//! - its time budget, [`SLICE_TIME`], read from a [`Clock`]: a CPU four times slower does
//!   a quarter of the work in a slice, so the page stays responsive however slow it is.
//!   A share also stops when, at its pace so far, the pieces up to its next clock read
//!   would pass the budget, so heavy pieces end a slice before it overruns;
//! - its job's cap, [`JobKind::cap`], in units of work (frames, bytes, steps): a bound the
//!   code enforces whatever the clock says, so no slice is unbounded even when the clock
//!   is coarse, late or wrong.
//!
//! Each job's share of a slice ends in a [`SliceReport`]: how many units it did, its cap,
//! and why it stopped. The page hands those to the browser tests, which judge units
//! against caps instead of milliseconds against a machine's speed.

use std::time::Duration;

/// Frames (or statistics' steps) a slice does between two reads of its clock.
pub const UNITS_PER_CLOCK_READ: u32 = 8;

/// A slice stops after about this long, far below the ~100 ms a task may take.
pub const SLICE_TIME: Duration = Duration::from_millis(30);

/// Where a slice reads the time.
pub trait Clock {
    /// The time since any fixed origin, never going backwards.
    fn now(&self) -> Duration;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> Duration {
        (**self).now()
    }
}

/// What a job counts its work in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bytes of the file copied in, or inflated.
    Bytes,
    /// Frames decoded (summed, or read for their gauges).
    Frames,
    /// The statistics' steps: a frame added or re-read, or a pass's figures planned or
    /// ordered. A comparison engine's step (a stage of a pass's test) counts as 8, a
    /// clock read's worth.
    FramesOrPasses,
    /// Checking frames' steps: a frame checked on the page, or a piece handed to a
    /// worker, received from one or merged.
    FramesOrPieces,
    /// Opening steps: about 256 KiB of the file checked against the index or scanned, or
    /// one stage of the index (its checksum, its decoding).
    Steps,
}

impl Unit {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Bytes => "bytes",
            Self::Frames => "frames",
            Self::FramesOrPasses => "frames or passes",
            Self::FramesOrPieces => "frames or pieces",
            Self::Steps => "steps",
        }
    }
}

/// The jobs that run in slices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JobKind {
    /// Copying the file into wasm memory, a read of at most 1 MiB at a time.
    Read,
    /// Inflating a gzip capture, 256 KiB of output at a time.
    Inflate,
    /// Checking the file against its index, or scanning it for records.
    Open,
    /// Checking every frame for damage.
    Verify,
    /// Statistics over the selected range.
    Stats,
    /// The selected pass's duration across the range.
    Spark,
    /// The comparison engine's samples of the two compared ranges, a frame at a time, then
    /// its verdicts, a stage of a pass's test at a time.
    Compare,
    /// The sampled frames' memory gauges.
    Gauges,
    /// The range flame graph over the selected range.
    Icicle,
    /// The selected pass's histogram over the range.
    Histogram,
}

impl JobKind {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Inflate => "inflate",
            Self::Open => "open",
            Self::Verify => "verify",
            Self::Stats => "stats",
            Self::Spark => "spark",
            Self::Compare => "compare",
            Self::Gauges => "gauges",
            Self::Icicle => "icicle",
            Self::Histogram => "histogram",
        }
    }

    #[must_use]
    pub fn unit(self) -> Unit {
        match self {
            Self::Read | Self::Inflate => Unit::Bytes,
            Self::Open => Unit::Steps,
            Self::Spark | Self::Gauges | Self::Icicle | Self::Histogram => Unit::Frames,
            Self::Verify => Unit::FramesOrPieces,
            Self::Stats | Self::Compare => Unit::FramesOrPasses,
        }
    }

    /// The most units one slice of this job may do. Each is about what a full-speed CPU
    /// does in well under [`SLICE_TIME`] (a frame of 200 passes is microseconds), so on
    /// a fast machine the cap ends slices and on a slow one the clock does.
    #[must_use]
    pub fn cap(self) -> u64 {
        match self {
            Self::Read => 8 << 20,
            Self::Inflate => 4 << 20,
            Self::Open => 16,
            Self::Verify | Self::Stats | Self::Compare | Self::Icicle => 1024,
            Self::Spark | Self::Histogram => 2048,
            Self::Gauges => 256,
        }
    }

    /// How many units between clock reads: reading the clock costs about as much as one
    /// frame, and far less than a read or a step of hundreds of KiB.
    fn units_per_clock_read(self) -> u32 {
        match self.unit() {
            Unit::Bytes | Unit::Steps => 1,
            Unit::Frames | Unit::FramesOrPasses | Unit::FramesOrPieces => UNITS_PER_CLOCK_READ,
        }
    }
}

/// Why a job's share of a slice ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// The slice's time budget was spent.
    Time,
    /// The next piece of work would have passed the job's cap.
    Cap,
    /// The job finished.
    Done,
    /// Nothing was left for the job to do but wait for its workers' answers.
    Waiting,
    /// The job was dropped unfinished: a newer file, range or comparison replaced it.
    Cancelled,
}

impl Yield {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Time => "time",
            Self::Cap => "cap",
            Self::Done => "done",
            Self::Waiting => "waiting",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One job's share of one slice, as the page reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceReport {
    pub job: JobKind,
    pub units: u64,
    /// `None` when the job stopped unfinished though neither its cap nor the clock said so:
    /// a fault the tests catch.
    pub why: Option<Yield>,
}

impl SliceReport {
    /// A job dropped before it finished, with the units of its last, unreported share.
    #[must_use]
    pub fn cancelled(job: JobKind, units: u64) -> Self {
        Self { job, units, why: Some(Yield::Cancelled) }
    }
}

/// One stretch of work between two yields: its time budget, started on `clock`.
#[derive(Clone, Copy, Debug)]
pub struct Slice<C> {
    clock: C,
    started: Duration,
}

impl<C: Clock + Copy> Slice<C> {
    pub fn start(clock: C) -> Self {
        Self { clock, started: clock.now() }
    }

    /// Whether the time budget is spent.
    pub fn spent(&self) -> bool {
        self.clock.now().saturating_sub(self.started) >= SLICE_TIME
    }

    /// `job`'s share of this slice, counting from zero.
    pub fn share(&self, job: JobKind) -> Share<C> {
        Share { slice: *self, job, units: 0, admitted: 0, stop: None, started: self.clock.now() }
    }
}

/// A job's share of a slice: admits pieces of work while they fit the cap and the clock
/// allows, and counts the units done.
#[derive(Debug)]
pub struct Share<C> {
    slice: Slice<C>,
    job: JobKind,
    units: u64,
    admitted: u32,
    stop: Option<Yield>,
    /// When this share began, for its own pace.
    started: Duration,
}

impl<C: Clock + Copy> Share<C> {
    /// Whether a piece of at most `max` units may start: not when it could pass the cap,
    /// nor once the clock says the slice is spent. The caller then counts what it did.
    pub fn admit(&mut self, max: u64) -> bool {
        if self.stop.is_some() {
            return false;
        }
        if self.units.saturating_add(max) > self.job.cap() {
            self.stop = Some(Yield::Cap);
            return false;
        }
        self.admitted = self.admitted.wrapping_add(1);
        let per_read = self.job.units_per_clock_read();
        if self.admitted.is_multiple_of(per_read) && self.out_of_time(per_read) {
            self.stop = Some(Yield::Time);
            return false;
        }
        true
    }

    /// Whether the slice is spent, or the `per_read` admissions to the next clock read,
    /// at this share's pace so far, would spend it: a job whose pieces are heavy (a
    /// comparison engine's pass, tens of ms on a long capture) stops before the piece that
    /// would overrun, not after.
    fn out_of_time(&self, per_read: u32) -> bool {
        let now = self.slice.clock.now();
        let elapsed = now.saturating_sub(self.slice.started);
        let before = self.admitted - 1;
        let ahead = if before == 0 { Duration::ZERO } else { now.saturating_sub(self.started) / before * per_read };
        elapsed >= SLICE_TIME || elapsed + ahead > SLICE_TIME
    }

    /// Counts `units` of work done.
    pub fn count(&mut self, units: u64) {
        self.units = self.units.saturating_add(units);
    }

    /// Admits and counts one unit: the `more()` a job's step calls before each frame or pass.
    pub fn more(&mut self) -> bool {
        let admitted = self.admit(1);
        if admitted {
            self.count(1);
        }
        admitted
    }

    #[must_use]
    pub fn units(&self) -> u64 {
        self.units
    }

    /// What this share did; `finished` when the job is done.
    #[must_use]
    pub fn report(&self, finished: bool) -> SliceReport {
        SliceReport { job: self.job, units: self.units, why: if finished { Some(Yield::Done) } else { self.stop } }
    }
}

/// A walk over a range of frame indices that a sliced job steps through a frame for each
/// unit its share of a slice allows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameCursor {
    range: std::ops::Range<usize>,
    next: usize,
}

impl FrameCursor {
    /// Frame indices `range`, clamped to a capture of `frames` frames.
    #[must_use]
    pub fn new(range: std::ops::Range<usize>, frames: usize) -> Self {
        let end = range.end.min(frames);
        let start = range.start.min(end);
        Self { range: start..end, next: start }
    }

    /// The next frame index, when one is left and `more()` allows it.
    pub fn next_frame(&mut self, more: &mut dyn FnMut() -> bool) -> Option<usize> {
        if self.next >= self.range.end || !more() {
            return None;
        }
        self.next += 1;
        Some(self.next - 1)
    }

    /// Every frame of the range was handed out.
    #[must_use]
    pub fn done(&self) -> bool {
        self.next >= self.range.end
    }

    /// Progress from 0 to 1, in frames; 1 for an empty range.
    #[must_use]
    pub fn progress(&self) -> f64 {
        if self.range.is_empty() { 1.0 } else { (self.next - self.range.start) as f64 / self.range.len() as f64 }
    }

    /// The range walked, clamped.
    #[must_use]
    pub fn range(&self) -> std::ops::Range<usize> {
        self.range.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A clock that moves only when told to.
    #[derive(Default)]
    struct HandClock(Cell<Duration>);

    impl Clock for HandClock {
        fn now(&self) -> Duration {
            self.0.get()
        }
    }

    #[test]
    fn a_share_stops_at_its_cap_while_the_clock_says_there_is_time() {
        let clock = HandClock::default();
        let slice = Slice::start(&clock);
        let mut share = slice.share(JobKind::Verify);
        let mut frames = 0;
        while share.more() {
            frames += 1;
        }
        assert_eq!(frames, JobKind::Verify.cap());
        assert_eq!(share.report(false), SliceReport { job: JobKind::Verify, units: 1024, why: Some(Yield::Cap) });
        assert!(!share.more(), "once stopped it stays stopped");
        assert_eq!(share.units(), 1024);
    }

    #[test]
    fn a_share_stops_when_the_clock_says_the_slice_is_spent() {
        let clock = HandClock::default();
        let slice = Slice::start(&clock);
        let mut share = slice.share(JobKind::Verify);
        for _ in 0..20 {
            assert!(share.more());
        }
        clock.0.set(SLICE_TIME);
        // The clock is read every eighth frame: the 24th admission sees it.
        let more: Vec<bool> = (0..4).map(|_| share.more()).collect();
        assert_eq!(more, [true, true, true, false]);
        assert_eq!(share.report(false), SliceReport { job: JobKind::Verify, units: 23, why: Some(Yield::Time) });
    }

    /// Frames a verify share admits when each takes `step` on a hand clock, and when the
    /// clock stood at the end.
    fn frames_at_pace(step: Duration) -> (u64, Option<Yield>, Duration) {
        let clock = HandClock::default();
        let slice = Slice::start(&clock);
        let mut share = slice.share(JobKind::Verify);
        let mut frames = 0;
        while share.more() {
            frames += 1;
            clock.0.set(clock.0.get() + step);
        }
        (frames, share.report(false).why, clock.0.get())
    }

    #[test]
    fn a_share_stops_before_the_pieces_its_pace_says_would_overrun_the_slice() {
        // 2.5 ms a frame: at the 8th admission 7 frames took 17.5 ms, and 8 more at that
        // pace would end at 37.5 ms, past the 30 ms budget.
        let (frames, why, ended) = frames_at_pace(Duration::from_micros(2_500));
        assert_eq!((frames, why), (7, Some(Yield::Time)));
        assert!(ended < SLICE_TIME, "the slice ended inside its budget");
        // A pace that fits goes on towards the budget itself.
        assert_eq!(frames_at_pace(Duration::from_millis(1)), (23, Some(Yield::Time), Duration::from_millis(23)));
    }

    #[test]
    fn pieces_are_admitted_only_while_the_largest_they_could_be_fits_the_cap() {
        let clock = HandClock::default();
        let slice = Slice::start(&clock);
        let mut share = slice.share(JobKind::Read);
        let piece = 1 << 20;
        // Reads that return less than they could: each is admitted for its largest.
        let mut reads = 0;
        while share.admit(piece) {
            share.count(64 << 10);
            reads += 1;
        }
        assert_eq!(share.units(), reads * (64 << 10));
        assert!(share.units() + piece > JobKind::Read.cap() && share.units() <= JobKind::Read.cap());
        assert_eq!(share.report(false).why, Some(Yield::Cap));
    }

    #[test]
    fn a_finished_job_reports_done_and_a_byte_job_reads_the_clock_every_piece() {
        let clock = HandClock::default();
        let slice = Slice::start(&clock);
        let mut share = slice.share(JobKind::Inflate);
        assert!(share.admit(256 << 10));
        share.count(1000);
        assert_eq!(share.report(true), SliceReport { job: JobKind::Inflate, units: 1000, why: Some(Yield::Done) });
        clock.0.set(SLICE_TIME);
        assert!(!share.admit(256 << 10));
        assert_eq!(share.report(false).why, Some(Yield::Time));
        assert!(slice.spent());
    }

    #[test]
    fn every_job_names_its_unit_and_a_cap_of_at_least_one_piece() {
        for job in [
            JobKind::Read,
            JobKind::Inflate,
            JobKind::Open,
            JobKind::Verify,
            JobKind::Stats,
            JobKind::Spark,
            JobKind::Compare,
            JobKind::Gauges,
        ] {
            let piece = if job.unit() == Unit::Bytes { 1 << 20 } else { 1 };
            assert!(job.cap() >= piece, "{}", job.name());
            assert!(!job.unit().name().is_empty());
        }
    }

    #[test]
    fn a_frame_cursor_hands_out_each_frame_once_within_the_capture_and_the_allowance() {
        let mut cursor = FrameCursor::new(3..100, 10);
        assert_eq!(cursor.range(), 3..10, "clamped to the capture");
        let mut seen = Vec::new();
        let mut left = 4;
        while let Some(index) = cursor.next_frame(&mut || {
            left -= 1;
            left >= 0
        }) {
            seen.push(index);
        }
        assert_eq!(seen, [3, 4, 5, 6], "one frame for each unit allowed");
        assert!(!cursor.done() && (cursor.progress() - 4.0 / 7.0).abs() < 1e-12);
        let mut asked = 0;
        while let Some(index) = cursor.next_frame(&mut || {
            asked += 1;
            true
        }) {
            seen.push(index);
        }
        assert_eq!(seen, [3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(asked, 3, "not asked again once every frame is out");
        assert!(cursor.done() && cursor.progress() == 1.0);
        assert!(FrameCursor::new(12..20, 10).done(), "a range past the capture is done at once");
    }
}
