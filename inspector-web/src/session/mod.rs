//! One open capture's logic, without a browser: the session serves [`Command`]s and runs
//! long work (memory gauges, verification, statistics, sparklines, comparison) in slices
//! ([`crate::slicing`]), and reports everything it has to show as [`Update`] values. The
//! page's runner feeds it commands, gives it a slice at a time between yields to the
//! event loop, and hands its updates to the page, which alone applies them. Work is done
//! a frame or a pass at a time; a slice ends when its time is spent, however slow the
//! CPU, or when a job did its cap of units, whatever the clock says.

mod command;
mod jobs;
mod opened;
mod update;

use std::collections::VecDeque;

use sgpt_format::memory_analysis::GaugeScan;
use sgpt_format::{Capture, Frame, SpanKind};

pub use command::{Command, Restore};
pub use opened::{BaseOpened, Opened, OpenedBuild};
pub use update::{FrameView, Update};

use crate::compare_view::CompareView;
use crate::frame_detail::FrameDetail;
use crate::histogram::{HistogramJob, PassKey};
use crate::icicle::IcicleJob;
use crate::pass_detail::{PassDetail, sparkline};
use crate::resources::ResourceTable;
use crate::search::{ItemKind, Place};
use crate::slicing::{Clock, JobKind, Slice, SliceReport, Yield};
use crate::stats::StatsJob;
use crate::structure::Structure;
use crate::summary::{self, Summary};
use crate::timeline::TimelineModel;
use crate::units;
use crate::verify::ReadBack;
use jobs::Job;
use sgpt_format::analysis::scan::PieceScanner;

/// Above this many spans an export would not fit in a browser tab; the CLI streams it.
pub const MAX_EXPORT_SPANS: u64 = 4_000_000;

/// How many points a sparkline keeps, whatever the range's length.
const SPARK_POINTS: usize = 600;

/// The status line when nothing is under way.
pub const IDLE_STATUS: &str = "Drop or pick another capture to open it instead.";

/// The order jobs run in a slice: the memory lane (a bounded sample of frames) and the
/// frame views and the selected pass first, then statistics and the range flame graph,
/// then the rest.
const ORDER: [JobKind; 7] = [
    JobKind::Gauges,
    JobKind::Spark,
    JobKind::Histogram,
    JobKind::Stats,
    JobKind::Icicle,
    JobKind::Compare,
    JobKind::Verify,
];

/// The logic over one open capture.
#[derive(Debug)]
pub struct Session<'c> {
    capture: &'c Capture<'c>,
    /// The baseline a candidate capture is compared with, when two were opened: the
    /// comparison's side A is its frames.
    base: Option<&'c Capture<'c>>,
    /// A baseline still being read, which comes with [`Session::set_base`].
    base_coming: Option<BaseComing>,
    /// The file's name, for the export's.
    name: String,
    frame: Frame,
    /// The shown frame's index, once one is shown.
    shown: Option<usize>,
    /// The range statistics and sparklines cover.
    range: (usize, usize),
    /// The selected GPU pass, an index into the shown frame's topology.
    pass: Option<u32>,
    verify: Option<Job<'c>>,
    stats: Option<Job<'c>>,
    spark: Option<Job<'c>>,
    compare: Option<Job<'c>>,
    gauges: Option<Job<'c>>,
    icicle: Option<Job<'c>>,
    histogram: Option<Job<'c>>,
    /// The pass and range the sparkline and histogram (running or shown) are of, so showing
    /// another frame does not recount the same series.
    series_for: Option<(Option<PassKey>, (usize, usize))>,
    /// The page showed the range flame graph: it follows the range from then on.
    icicle_wanted: bool,
    /// Jobs done whose results are not shown yet, oldest first: one is shown per slice.
    ready: VecDeque<Job<'c>>,
    /// Who takes pieces of the statistics, the comparison and the check of every frame
    /// besides the page: its workers, where it has them.
    scanner: Option<Box<dyn PieceScanner + 'c>>,
    /// Whether checking every frame waits while statistics are under way: where the
    /// workers take every core, the page's thread checking frames too only slows them,
    /// and the statistics are what the page shows first.
    check_after_stats: bool,
    /// The summary shown at open, which the verification's is built from; `None` until
    /// given, and then built from the index when it is needed.
    summary: Option<Summary>,
    updates: Vec<Update>,
    reports: Vec<SliceReport>,
}

/// The frames a link names for a comparison: side A's first and last, side B's.
type Link = ((u64, u64), (u64, u64));

/// The index of the frame numbered `number` in `capture`, if it has one.
fn frame_index(capture: &Capture<'_>, number: u64) -> Option<usize> {
    capture.frames().binary_search_by_key(&number, |f| f.frame_number).ok()
}

/// A link's frames as indices: side A's in `a`, side B's in `b`; `None` where either
/// lacks one of them.
fn linked_ranges(
    ((a0, a1), (b0, b1)): Link,
    a: &Capture<'_>,
    b: &Capture<'_>,
) -> Option<((usize, usize), (usize, usize))> {
    Some(((frame_index(a, a0)?, frame_index(a, a1)?), (frame_index(b, b0)?, frame_index(b, b1)?)))
}

/// What waits for a baseline still being read.
#[derive(Debug, Default)]
struct BaseComing {
    /// The comparison the link named, resolved once the baseline is there.
    link: Option<Link>,
    /// Whether the link asked for the comparison at once: where the baseline fails, the
    /// capture's own is then made at once too.
    compare_now: bool,
    /// The samples statistics finished meanwhile kept, and the frames they are of.
    samples: Option<(std::ops::Range<usize>, Option<sgpt_format::compare::Samples>)>,
}

impl<'c> Session<'c> {
    /// A session over `capture`, reading its memory gauges with `gauges` when it declares
    /// any. Nothing is shown until [`Session::restore`].
    #[must_use]
    pub fn new(capture: &'c Capture<'c>, name: &str, gauges: Option<GaugeScan>) -> Self {
        let frames = capture.frames().len();
        Self {
            capture,
            base: None,
            base_coming: None,
            name: name.to_owned(),
            frame: Frame::default(),
            shown: None,
            range: (0, frames.saturating_sub(1)),
            pass: None,
            verify: Some(Job::verify(capture)),
            stats: None,
            spark: None,
            compare: None,
            gauges: gauges.map(Job::Gauges),
            icicle: None,
            histogram: None,
            icicle_wanted: false,
            series_for: None,
            ready: VecDeque::new(),
            scanner: None,
            check_after_stats: false,
            summary: None,
            updates: Vec::new(),
            reports: Vec::new(),
        }
    }

    /// The statistics, the comparison and the check of every frame hand pieces to
    /// `scanner` (the page's workers), a job at a time; when `takes_every_core`, checking
    /// every frame waits until no statistics are under way, so that the workers have the
    /// cores to themselves.
    #[must_use]
    pub fn with_scanner(mut self, scanner: Box<dyn PieceScanner + 'c>, takes_every_core: bool) -> Self {
        self.scanner = Some(scanner);
        self.check_after_stats = takes_every_core;
        self
    }

    /// `summary` is the capture's as shown at open ([`Summary::of`] it): the verification
    /// adds what reads back to it, rather than walk the index again in one task (tens of
    /// ms on eight hours of frames).
    #[must_use]
    pub fn with_summary(mut self, summary: Summary) -> Self {
        self.summary = Some(summary);
        self
    }

    /// The session compares `base`'s frames (side A) with this capture's (side B).
    #[must_use]
    pub fn with_base(mut self, base: &'c Capture<'c>) -> Self {
        self.base = Some(base);
        self
    }

    /// A baseline is being read while the session starts, and comes with
    /// [`Session::set_base`]: meanwhile the statistics over the range collect its samples
    /// for the comparison (the range is side B's unless the link names other frames), no
    /// comparison runs, and the status line is the read's.
    #[must_use]
    pub fn with_base_coming(mut self) -> Self {
        self.base_coming = Some(BaseComing::default());
        self
    }

    /// The baseline the session said was coming ([`Session::with_base_coming`]): resolves
    /// the comparison's two ranges (the link's, else the baseline's frames against the
    /// range) and starts it, with the samples the statistics kept where they are of side
    /// B's frames. Without a baseline coming, nothing happens.
    pub fn set_base(&mut self, base: &'c Capture<'c>) {
        let Some(coming) = self.base_coming.take() else { return };
        self.base = Some(base);
        if self.capture.frames().is_empty() {
            return;
        }
        let (a, b) = self.base_ranges(base, coming.link);
        self.updates.push(Update::CompareRanges(a, b));
        match coming.samples {
            Some((range, samples)) if range == (b.0..b.1 + 1) => {
                self.replace(Job::compare(base, a, self.capture, b, true));
                if let Some(Job::Compare(job)) = &mut self.compare {
                    job.offer(range, samples);
                }
                self.updates.push(Update::CompareProgress(0.0));
            }
            _ => {
                self.handle(Command::Compare(a, b));
            }
        }
    }

    /// The baseline the session said was coming could not be opened: the capture is
    /// served alone, its frames checked, and the Compare view compares its own ranges
    /// (the link's where the capture has those frames, else the range's halves), at once
    /// where the link asked for a comparison at once.
    pub fn base_failed(&mut self) {
        let Some(coming) = self.base_coming.take() else { return };
        if self.capture.frames().is_empty() {
            return;
        }
        let (a, b) = self.own_ranges(coming.link);
        self.updates.push(Update::CompareRanges(a, b));
        if coming.compare_now {
            self.handle(Command::Compare(a, b));
        }
    }

    /// A comparison within the capture: the frames `link` names where it has them, else
    /// the range's first half against its second.
    fn own_ranges(&self, link: Option<Link>) -> ((usize, usize), (usize, usize)) {
        let linked = link.and_then(|link| linked_ranges(link, self.capture, self.capture));
        let (first, last) = self.range;
        let half = (last - first).div_ceil(2);
        let a_end = first + half.saturating_sub(1);
        linked.unwrap_or(((first, a_end), ((a_end + 1).min(last), last)))
    }

    /// The comparison's ranges against `base`: the frames `link` names where both sides
    /// have them, else all of the baseline's against the range.
    fn base_ranges(&self, base: &Capture<'_>, link: Option<Link>) -> ((usize, usize), (usize, usize)) {
        let linked = link.and_then(|link| linked_ranges(link, base, self.capture));
        linked.unwrap_or(((0, base.frames().len().saturating_sub(1)), self.range))
    }

    /// Shows what the link asked for, else the first frame over the whole capture, and
    /// starts statistics over the range; resolves the two ranges a comparison is of (by
    /// default the range's first half against its second, or the baseline against the
    /// range) and starts it when [`Restore::compare_now`] or against a baseline.
    pub fn restore(&mut self, restore: &Restore) {
        let frames = self.capture.frames();
        if frames.is_empty() {
            self.updates.push(Update::Restored { frame: None, range: None, compare: None });
            let defects = summary::defect_rows(self.capture.defects());
            self.updates.push(Update::Verified { defects, read: ReadBack::default(), summary: None });
            self.verify = None;
            return;
        }
        let index = |number: u64| frame_index(self.capture, number);
        let frame = restore.frame.and_then(index).unwrap_or(0);
        let range = restore.range.and_then(|(a, b)| Some((index(a)?, index(b)?))).unwrap_or((0, frames.len() - 1));
        self.pass = restore.pass;
        self.range = range;
        let compare = match (self.base, &mut self.base_coming) {
            // Against a baseline: its frames (all, unless the link names some) and the range.
            (Some(base), _) => Some(self.base_ranges(base, restore.compare)),
            // Resolved once the baseline is read.
            (None, Some(coming)) => {
                coming.link = restore.compare;
                coming.compare_now = restore.compare_now;
                None
            }
            // Within one capture: by default the range's first half against its second.
            (None, None) => Some(self.own_ranges(restore.compare)),
        };
        self.updates.push(Update::Restored { frame: Some(frame), range: Some(range), compare });
        // The frame first (its pass's sparkline covers the range already), then the range's jobs.
        self.show_frame(frame);
        self.start_stats();
        if self.base_coming.is_some() {
            // Most likely side B of the comparison to come: its samples from this one scan.
            self.stats_with_samples_of(range);
        }
        if let Some((a, b)) = compare.filter(|_| restore.compare_now || self.base.is_some()) {
            self.handle(Command::Compare(a, b));
        }
    }

    /// Serves `command`. Returns `false` when the session should end.
    pub fn handle(&mut self, command: Command) -> bool {
        match command {
            Command::Close => return false,
            Command::Frame(index) => self.show_frame(index),
            Command::Range(first, last) => {
                let last = last.min(self.capture.frames().len().saturating_sub(1));
                let first = first.min(last);
                self.range = (first, last);
                self.start_stats();
                if let Some(pass) = self.pass {
                    self.start_spark(pass);
                }
                if self.icicle_wanted {
                    self.start_icicle();
                }
            }
            Command::Icicle => {
                self.icicle_wanted = true;
                self.start_icicle();
            }
            Command::Reveal { kind, places } => self.reveal(kind, &places),
            Command::RevealPass(key) => {
                let places: Vec<Place> = self
                    .capture
                    .topologies()
                    .filter_map(|(topology, t)| {
                        let index = (0..t.gpu_passes.len() as u32)
                            .find(|&i| PassKey::of_pass(t, i, key.span_kind).as_ref() == Some(&key))?;
                        Some(Place { topology, index })
                    })
                    .collect();
                self.reveal(ItemKind::Pass, &places);
            }
            Command::Pass(pass) => {
                self.pass = pass;
                self.show_pass();
            }
            // A comparison waits for the baseline being read; its arrival starts one.
            Command::Compare(..) if self.base_coming.is_some() => {}
            Command::Compare(a, b) => {
                let b_from_stats = self.stats_with_samples_of(b);
                self.replace(Job::compare(self.base.unwrap_or(self.capture), a, self.capture, b, b_from_stats));
                self.updates.push(Update::CompareProgress(0.0));
            }
            Command::Export => self.export(),
        }
        true
    }

    /// Whether any job is under way or has results not shown yet; checking every frame,
    /// held until the baseline being read is compared, does not count until then.
    #[must_use]
    pub fn busy(&self) -> bool {
        let for_base = |kind: JobKind| kind == JobKind::Verify && self.base_coming.is_some();
        self.jobs_by_kind().any(|(kind, _)| !for_base(kind)) || !self.ready.is_empty()
    }

    /// The jobs under way.
    fn jobs(&self) -> impl Iterator<Item = &Job<'c>> {
        [&self.verify, &self.stats, &self.spark, &self.compare, &self.gauges, &self.icicle, &self.histogram]
            .into_iter()
            .flatten()
    }

    /// Shows at most one finished job's results, then gives every job its share of
    /// `slice`, until the slice is spent.
    pub fn work<C: Clock + Copy>(&mut self, slice: &Slice<C>) {
        let capture = self.capture;
        // Showing a result (a table of hundreds of rows on big captures) can take much of a
        // slice: it starts one rather than ending one.
        if let Some(job) = self.ready.pop_front() {
            self.finish(job);
        }
        // Out of `self` while the jobs run, as `slot` borrows all of it.
        let mut scanner = self.scanner.take();
        for kind in ORDER {
            if slice.spent() {
                break;
            }
            if self.held(kind) {
                continue;
            }
            // Asked again for each job: statistics done earlier in the slice leave the
            // workers to the comparison.
            let scans = self.scanning_job();
            let Some(job) = self.slot(kind).as_mut() else { continue };
            let mut share = slice.share(kind);
            let given = if kind == scans { scanner.as_deref_mut() } else { None };
            let done = job.step(capture, given, &mut || share.more());
            let mut report = share.report(done);
            if report.why.is_none() && job.waiting() {
                report.why = Some(Yield::Waiting);
            }
            self.reports.push(report);
            if done && let Some(job) = self.slot(kind).take() {
                self.ready.push_back(job);
            }
        }
        self.scanner = scanner;
        self.report_progress();
    }

    /// Whether the only work left is the workers': the job they scan for (the statistics,
    /// else the comparison) waits for their answers, and nothing else runs or waits to be
    /// shown. The page then sleeps until an answer or a command comes, rather than
    /// slicing nothing.
    #[must_use]
    pub fn waiting(&self) -> bool {
        // That job waiting, and no other job under way but those held for it.
        let scans = self.scanning_job();
        let Some(job) = self.jobs_by_kind().find(|(kind, _)| *kind == scans).map(|(_, job)| job) else { return false };
        let others = self.jobs_by_kind().filter(|(kind, _)| *kind != scans && !self.held(*kind)).count();
        self.ready.is_empty() && job.waiting() && others == 0
    }

    /// The jobs under way, by kind.
    fn jobs_by_kind(&self) -> impl Iterator<Item = (JobKind, &Job<'c>)> {
        self.jobs().map(|job| (job.kind(), job))
    }

    /// The job the workers take pieces of: the statistics while they are under way, else
    /// the comparison, else checking every frame. One at a time, so none takes pieces
    /// from another.
    fn scanning_job(&self) -> JobKind {
        if self.stats.is_some() {
            JobKind::Stats
        } else if self.compare.is_some() {
            JobKind::Compare
        } else {
            JobKind::Verify
        }
    }

    /// Whether jobs of `kind` wait this slice. Checking frames, while statistics are under
    /// way and the workers take every core, and while a comparison is under way (both read
    /// every frame, and the verdicts are what a comparison's reader waits for; the
    /// statistics and the comparison name what they could not read). And a comparison at
    /// its pieces, while statistics are under way and the workers take every core: it then
    /// has the workers to itself once they are done, rather than scan pieces on the page's
    /// thread beside them. Its sample of a side's frames it reads meanwhile, on the page.
    /// And a comparison with nothing left to do but wait for the statistics' samples, so
    /// that the page sleeps rather than slice it while the workers scan. Checking frames
    /// waits for a baseline being read too: the comparison it is read for comes first,
    /// and the page's thread is the read's meanwhile.
    fn held(&self, kind: JobKind) -> bool {
        let stats_take_every_core = self.check_after_stats && self.stats.is_some();
        match kind {
            JobKind::Verify => stats_take_every_core || self.compare.is_some() || self.base_coming.is_some(),
            JobKind::Compare => match &self.compare {
                Some(Job::Compare(job)) => {
                    (stats_take_every_core && job.wants_workers()) || (self.stats.is_some() && job.awaits_stats_only())
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// The updates produced since the last call, oldest first.
    pub fn take_updates(&mut self) -> Vec<Update> {
        std::mem::take(&mut self.updates)
    }

    /// Every job's share of every slice since the last call, for the page's slice log.
    pub fn take_reports(&mut self) -> Vec<SliceReport> {
        std::mem::take(&mut self.reports)
    }

    /// Ends the session: every job still under way is cancelled, and reported so.
    pub fn close(&mut self) {
        for kind in ORDER {
            if self.slot(kind).take().is_some() {
                self.reports.push(SliceReport::cancelled(kind, 0));
            }
        }
        self.ready.clear();
    }

    fn show_frame(&mut self, index: usize) {
        let capture = self.capture;
        let Some(&entry) = capture.frames().get(index) else { return };
        let number = entry.frame_number;
        self.shown = Some(index);
        if let Err(defect) = capture.frame_into(index, &mut self.frame) {
            let message = format!("Frame {number} could not be decoded: {defect}. Pick another frame.");
            self.updates.push(Update::FrameFailed { index, number, message });
            return;
        }
        let topology = capture.topology(self.frame.topology);
        let timeline =
            TimelineModel::build(&self.frame, topology, |set| capture.query_set(set).map(|q| q.label.clone()));
        let mut title = format!(
            "Frame {number} · GPU {} · CPU {} · {} spans",
            units::exact_ns(entry.gpu_duration_ns),
            units::exact_ns(entry.cpu_duration_ns),
            entry.span_count
        );
        if entry.dropped_spans > 0 {
            title.push_str(&format!(" · {} spans dropped on this frame: some passes are missing", entry.dropped_spans));
        }
        if timeline.unknown_spans > 0 {
            title.push_str(&format!(" · {} spans name a pass the topology lacks", timeline.unknown_spans));
        }
        let selected_block = self.pass.and_then(|p| timeline.find_gpu_pass(p));
        let view = FrameView {
            detail: FrameDetail::new(capture, &entry, &self.frame, topology),
            index,
            number,
            topology: self.frame.topology,
            title,
            selected_block,
            structure: topology.map(|t| Structure::new(t, &self.frame.culled)),
            resources: topology
                .filter(|t| !t.resources.is_empty())
                .map(|t| ResourceTable::new(capture, t, &self.frame)),
            timeline,
        };
        self.updates.push(Update::Frame(Box::new(view)));
        self.show_pass();
    }

    fn show_pass(&mut self) {
        let topology = self.shown.and(self.capture.topology(self.frame.topology));
        let detail =
            self.pass.zip(topology).and_then(|(p, t)| PassDetail::new(self.capture, t, &self.frame, p)).map(Box::new);
        self.updates.push(Update::Pass(detail));
        match self.pass {
            Some(pass) => self.start_spark(pass),
            None => self.series_for = None,
        }
    }

    /// Shows a frame holding the item (the shown one when it does, else the nearest), with
    /// the item selected there.
    fn reveal(&mut self, kind: ItemKind, places: &[Place]) {
        let frames = self.capture.frames();
        let holds = |index: usize| {
            let topology = frames[index].topology;
            places.iter().find(|p| p.topology == topology).map(|p| (index, p.index))
        };
        let from = self.shown.unwrap_or(0).min(frames.len().saturating_sub(1));
        // Outward from the shown frame, earlier first at each distance.
        let found = (0..frames.len()).find_map(|distance| {
            let before = from.checked_sub(distance).and_then(holds);
            let after = || (distance > 0).then(|| from + distance).filter(|&i| i < frames.len()).and_then(holds);
            before.or_else(after)
        });
        let Some((frame, index)) = found else {
            self.updates.push(Update::Status("No frame of this capture holds that item.".to_owned()));
            return;
        };
        if kind == ItemKind::Pass {
            self.pass = Some(index);
        }
        if self.shown == Some(frame) {
            if kind == ItemKind::Pass {
                self.show_pass();
            }
        } else {
            self.show_frame(frame);
        }
        self.updates.push(Update::Revealed { kind, index });
    }

    fn start_icicle(&mut self) {
        let (first, last) = self.range;
        self.replace(Job::Icicle(IcicleJob::new(self.capture, first..last + 1)));
        self.updates.push(Update::IcicleProgress(0.0));
    }

    fn start_stats(&mut self) {
        let (first, last) = self.range;
        if let Some(Job::Compare(compare)) = &mut self.compare {
            compare.stats_gone();
        }
        self.replace(Job::Stats(StatsJob::new(self.capture, first..last + 1)));
        self.updates.push(Update::StatsProgress(0.0));
    }

    /// Whether the statistics under way (or done, their result not shown yet) will hand a
    /// comparison the samples of frames `first..=last` of this capture: they are over
    /// those frames and collect them, or have not begun and are begun again to collect
    /// them (a comparison against a baseline is of the range the statistics are over).
    /// The range is then read once.
    fn stats_with_samples_of(&mut self, (first, last): (usize, usize)) -> bool {
        let range = first..last + 1;
        // Done, and not shown yet: they hand their samples over when they are.
        let done_with_samples =
            |job: &Job<'c>| matches!(job, Job::Stats(job) if job.range() == range && job.collects_samples());
        if self.ready.iter().any(done_with_samples) {
            return true;
        }
        let Some(Job::Stats(job)) = &self.stats else { return false };
        if job.range() != range {
            return false;
        }
        if !job.collects_samples() {
            if job.progress() > 0.0 {
                return false;
            }
            // Not begun: begun again, with nothing to cancel or report.
            self.stats = Some(Job::Stats(StatsJob::with_samples(self.capture, range)));
        }
        true
    }

    fn start_spark(&mut self, pass: u32) {
        // Remembered by key: indices differ between topologies, labels alone are not keys.
        let key = self.capture.topology(self.frame.topology).and_then(|t| PassKey::of_pass(t, pass, SpanKind::Pass));
        let (first, last) = self.range;
        let series = Some((key.clone(), self.range));
        if self.series_for == series {
            return;
        }
        self.series_for = series;
        self.replace(Job::spark(self.capture, key.clone(), first, last));
        if let Some(key) = key {
            // The baseline's over all its frames: its frames are not the candidate's.
            let base = self.base.map(|base| HistogramJob::new(base, 0..base.frames().len(), key.clone()));
            let candidate = HistogramJob::new(self.capture, first..last + 1, key);
            self.replace(Job::Histogram(Box::new((candidate, base))));
        }
    }

    /// Where the job of kind `kind` is kept while it runs.
    fn slot(&mut self, kind: JobKind) -> &mut Option<Job<'c>> {
        match kind {
            JobKind::Gauges => &mut self.gauges,
            JobKind::Spark => &mut self.spark,
            JobKind::Stats => &mut self.stats,
            JobKind::Compare => &mut self.compare,
            JobKind::Icicle => &mut self.icicle,
            JobKind::Histogram => &mut self.histogram,
            // The loading jobs (read, inflate, open) are over before a session starts.
            JobKind::Verify | JobKind::Read | JobKind::Inflate | JobKind::Open => &mut self.verify,
        }
    }

    /// Starts `job`, cancelling one of its kind still under way; a finished one not shown
    /// yet is dropped too, as its results are out of date.
    fn replace(&mut self, job: Job<'c>) {
        let kind = job.kind();
        if self.slot(kind).replace(job).is_some() {
            self.reports.push(SliceReport::cancelled(kind, 0));
        }
        self.ready.retain(|ready| ready.kind() != kind);
    }

    fn report_progress(&mut self) {
        if self.base_coming.is_some() {
            // The status line is the baseline's read, which the verdicts wait for.
            if let Some(Job::Stats(job)) = &self.stats {
                self.updates.push(Update::StatsProgress(job.progress()));
            }
        } else if let Some(Job::Stats(job)) = &self.stats {
            let p = job.progress();
            self.updates.push(Update::StatsProgress(p));
            self.updates.push(Update::Progress {
                fraction: Some(p),
                text: format!("Computing statistics… {:.0} %", p * 100.0),
            });
        } else if let Some(Job::Compare(job)) = self.compare.as_ref().filter(|_| self.verify.is_some()) {
            // The check of every frame waits for the comparison (see `held`): the line
            // says what runs, not the check standing still.
            let p = job.progress();
            self.updates.push(Update::Progress {
                fraction: Some(p),
                text: format!("Comparing, then checking every frame… {:.0} %", p * 100.0),
            });
        } else if let Some(Job::Verify(job)) = &self.verify {
            let total = self.capture.frames().len().max(1);
            let text = "Checking every frame for damage…".to_owned();
            self.updates.push(Update::Progress { fraction: Some(job.frames_checked() as f64 / total as f64), text });
        } else {
            self.updates.push(Update::Progress { fraction: None, text: IDLE_STATUS.to_owned() });
        }
        if let Some(Job::Icicle(job)) = &self.icicle {
            self.updates.push(Update::IcicleProgress(job.progress()));
        }
        if let Some(Job::Compare(job)) = &self.compare {
            self.updates.push(Update::CompareProgress(job.progress()));
        }
    }

    fn finish(&mut self, job: Job<'c>) {
        let update = match job {
            Job::Verify(job) => {
                let (defects, counts) = job.finish();
                let read = ReadBack::of(&counts);
                // The summary again, now saying what reads back beside the index's counts.
                let opened = self.summary.take().unwrap_or_else(|| Summary::of(self.capture));
                let summary = Summary { read_back: Some(read.clone()), ..opened };
                Update::Verified { defects: summary::defect_rows(&defects), read, summary: Some(Box::new(summary)) }
            }
            Job::Stats(job) => {
                let range = job.range();
                let scan = job.finish_scan();
                if let Some(Job::Compare(compare)) = &mut self.compare {
                    compare.offer(range, scan.samples);
                } else if let Some(coming) = &mut self.base_coming {
                    coming.samples = Some((range, scan.samples));
                }
                Update::Stats(Box::new(scan.stats))
            }
            Job::Spark { values, .. } => Update::Sparkline(sparkline(&values, SPARK_POINTS)),
            Job::Compare(job) => {
                let Some(engine) = job.into_engine() else { return };
                let skipped = engine.skipped_frames();
                Update::Compare(Box::new(CompareView::new(&engine.finish()).with_skipped_frames(skipped)))
            }
            Job::Gauges(scan) => Update::Gauges(scan.finish()),
            Job::Icicle(job) => Update::Icicle(Box::new(job.finish())),
            Job::Histogram(jobs) => {
                let (candidate, base) = *jobs;
                if let Some(base) = base {
                    self.updates.push(Update::BaseHistogram(Box::new(base.finish())));
                }
                Update::Histogram(Box::new(candidate.finish()))
            }
        };
        self.updates.push(update);
    }

    fn export(&mut self) {
        let spans = self.capture.span_count();
        if spans > MAX_EXPORT_SPANS {
            self.updates.push(Update::Status(format!(
                "This capture has {} spans; its Chrome Trace JSON would be several GB, too large for a browser tab. Run `sgpt export` on it instead.",
                units::grouped(spans)
            )));
            return;
        }
        let mut bytes = Vec::new();
        match sgpt_format::chrome::export(self.capture, &mut bytes) {
            Ok(summary) => {
                let stem = self.name.rsplit('/').next().unwrap_or("").trim_end_matches(".gz").trim_end_matches(".sgpt");
                let file_name = format!("{}.trace.json", if stem.is_empty() { "capture" } else { stem });
                let status = format!(
                    "Exported {} events ({}) for Perfetto or chrome://tracing.",
                    units::grouped(summary.events),
                    units::bytes(summary.bytes)
                );
                self.updates.push(Update::Download { bytes, file_name, mime: "application/json", status });
            }
            Err(error) => self.updates.push(Update::Status(format!("The export failed: {error}."))),
        }
    }
}
