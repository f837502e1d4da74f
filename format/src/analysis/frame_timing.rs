//! Frame-level timing over a capture: the frame interval on the GPU clock and on the CPU
//! clock, the submit-to-readback latency, how much of each GPU frame interval the recorded
//! pass spans cover, the CPU frame time and the recorder's own cost per frame.
//!
//! The two clocks are never mixed (SGPT_FORMAT.md §5): every figure is a difference
//! within one clock. Where a figure cannot be computed, [`Figure::Unavailable`] says why
//! instead of a number.
//!
//! - **GPU frame interval** of frame `i`: `g(i + 1) − g(i)`, where `g` is the earliest
//!   begin of a frame's pass spans (sub-pass spans excluded, as for `gpu_duration_ns`).
//! - **Coverage** of frame `i`: the length of the union of its pass spans clipped to
//!   `[g(i), g(i + 1))`, over that interval. Spans of one frame that overlap count once.
//! - **CPU frame interval**: consecutive `cpu.begin_ns`. **CPU frame time**:
//!   `cpu.end_ns − cpu.begin_ns`. **Latency**: `cpu.readback_ns − cpu.submit_ns`.
//!
//! A frame whose `cpu.begin_ns` and `cpu.end_ns` are both 0 has no CPU times: it is left
//! out of the CPU frame interval and CPU frame time, never counted as 0 ns.
//!
//! Intervals pair consecutive frames of the capture (indices `i` and `i + 1`) that both
//! have the clock's times (pass spans, CPU times); a pair with a frame that does not
//! decode gives no interval, and a pair whose later time is not after the earlier one (a
//! clock that wrapped or went back) gives none and is counted.
//!
//! ```
//! use sgpt_format::{Capture, frame_timing, synth};
//!
//! let bytes = synth::generate(&synth::SynthOptions { frames: 16, passes: 20, ..Default::default() });
//! let capture = Capture::open(&bytes)?;
//! let timing = frame_timing::frame_timing(&capture, 0..capture.frames().len());
//! let interval = timing.gpu_interval.summary().expect("16 frames with spans");
//! assert_eq!(interval.count, 15);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ops::Range;

use crate::error::Defect;
use crate::model::{Frame, Span, SpanKind};
use crate::reader::Capture;

/// Below this median coverage the report says that most GPU time is outside any timed
/// pass.
pub const LOW_COVERAGE: f64 = 0.5;

/// Values a [`Sample`] keeps. Up to this many values the order statistics are exact (an
/// hour at 60 fps is 216,000 frames); past it the sample keeps every second value, then
/// every fourth, and so on: a deterministic systematic sample, 2 MiB at most.
pub const SAMPLE_LIMIT: usize = 1 << 18;

/// Coverage is held in parts per million so that one sample type serves every figure.
const PPM: u64 = 1_000_000;

/// Order statistics of one per-frame quantity, nearest rank as in `analysis::PassStats`:
/// the median is `d[(n − 1) / 2]`, the p95 `d[⌈0.95 n⌉ − 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Values summarised (frames, or pairs of frames for intervals).
    pub count: u64,
    /// The smallest value, always exact.
    pub min: u64,
    /// The lower median of the values kept.
    pub median: u64,
    /// The nearest-rank 95th percentile of the values kept.
    pub p95: u64,
    /// The largest value, always exact.
    pub max: u64,
    /// Whether the median and p95 are exact; `false` past [`SAMPLE_LIMIT`] values, where
    /// they come from a systematic sample (the minimum and maximum are always exact).
    pub exact: bool,
}

/// A bounded collection of values: all of them up to [`SAMPLE_LIMIT`], then a systematic
/// sample whose stride doubles each time it fills.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    values: Vec<u64>,
    /// Keep one value in `stride`.
    stride: u64,
    seen: u64,
    min: u64,
    max: u64,
    /// Keeps every value, past the limit too: a chunk's sample, replayed in order into a
    /// bounded one when chunks merge, so the merged sample is the one a single pass keeps.
    unbounded: bool,
}

impl Sample {
    /// Adds one value; past [`SAMPLE_LIMIT`] kept values, every other kept value is
    /// dropped and the stride doubles.
    pub fn add(&mut self, value: u64) {
        if self.seen == 0 {
            (self.min, self.max, self.stride) = (value, value, 1);
        }
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        if self.seen.is_multiple_of(self.stride) {
            if self.values.len() == SAMPLE_LIMIT && !self.unbounded {
                let mut keep = 0;
                for at in (0..self.values.len()).step_by(2) {
                    self.values[keep] = self.values[at];
                    keep += 1;
                }
                self.values.truncate(keep);
                self.stride *= 2;
            }
            if self.seen.is_multiple_of(self.stride) {
                self.values.push(value);
            }
        }
        self.seen += 1;
    }

    /// Values added, kept or not.
    #[must_use]
    pub fn len(&self) -> u64 {
        self.seen
    }

    /// Whether no value was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.seen == 0
    }

    /// Adds `later`'s values after this sample's, as though they had been added here.
    /// Exact only when `later` kept every value it saw (an unbounded chunk sample).
    pub(crate) fn append(&mut self, later: Sample) {
        debug_assert!(later.stride <= 1, "only a sample that kept every value replays exactly");
        // While every value is kept and the limit is not reached, adding one only keeps it
        // and moves the minimum and maximum: those values go at once.
        let keeps_every = self.seen == 0 || self.stride == 1;
        let room = if self.unbounded { usize::MAX } else { SAMPLE_LIMIT.saturating_sub(self.values.len()) };
        if self.seen == 0 && later.values.len() <= room {
            // Nothing here yet, and all of it fits: the same values, taken rather than copied.
            *self = Sample { unbounded: self.unbounded, ..later };
            return;
        }
        let (now, rest) = later.values.split_at(if keeps_every { room.min(later.values.len()) } else { 0 });
        if let (Some(&low), Some(&high)) = (now.iter().min(), now.iter().max()) {
            if self.seen == 0 {
                (self.min, self.max, self.stride) = (low, high, 1);
            }
            self.min = self.min.min(low);
            self.max = self.max.max(high);
            self.values.extend_from_slice(now);
            self.seen += now.len() as u64;
        }
        for &value in rest {
            self.add(value);
        }
    }

    /// The order statistics, `None` without values.
    #[must_use]
    pub fn summary(&self) -> Option<Summary> {
        self.clone().into_summary()
    }

    /// [`Sample::summary`], selecting among its own values rather than a copy of them.
    fn into_summary(mut self) -> Option<Summary> {
        if self.seen == 0 {
            return None;
        }
        // Selecting the two nearest ranks gives the figures a full sort would, in linear time.
        let values = &mut self.values;
        let n = values.len();
        let p95 = (95 * n).div_ceil(100) - 1;
        let [median, p95] = crate::analysis::select_ranks(values, [((n - 1) / 2) as u64, p95 as u64]);
        Some(Summary { count: self.seen, min: self.min, median, p95, max: self.max, exact: self.stride == 1 })
    }
}

/// A figure over the capture, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Figure {
    /// The order statistics of the values measured (at least one).
    Measured(Summary),
    /// A sentence saying why the figure cannot be computed from this capture.
    Unavailable(String),
}

impl Figure {
    /// The statistics, `None` when the figure is unavailable.
    #[must_use]
    pub fn summary(&self) -> Option<&Summary> {
        match self {
            Figure::Measured(summary) => Some(summary),
            Figure::Unavailable(_) => None,
        }
    }

    /// Why the figure is unavailable (the CLI's `unavailable`), `None` when measured.
    #[must_use]
    pub fn reason(&self) -> Option<&str> {
        match self {
            Figure::Measured(_) => None,
            Figure::Unavailable(reason) => Some(reason),
        }
    }
}

/// Frame timing over a range of frames.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameTiming {
    /// Frames analysed: the range less the frames in `defects`.
    pub frames: u64,
    /// GPU frame interval in ns on the GPU clock, one value per consecutive pair of frames
    /// that both have pass spans, the later beginning after the earlier (`gpu_interval_ns`).
    pub gpu_interval: Figure,
    /// CPU frame interval in ns on the CPU clock: consecutive `cpu.begin_ns`, one value per
    /// pair of frames that both have CPU times, the later beginning after the earlier
    /// (`cpu_interval_ns`).
    pub cpu_interval: Figure,
    /// `cpu.end_ns − cpu.begin_ns` per frame with CPU times whose end is not before its
    /// begin (`cpu_frame_time_ns`).
    pub cpu_frame_time: Figure,
    /// `cpu.readback_ns − cpu.submit_ns` per frame on the CPU clock, over the frames that
    /// have both and do not read back before they submit (`submit_to_readback_ns`).
    pub latency: Figure,
    /// Coverage in parts per million (see [`FrameTiming::coverage_share`]).
    pub coverage_ppm: Figure,
    /// Over every frame with an interval: covered nanoseconds over interval nanoseconds.
    pub coverage_overall: Option<f64>,
    /// `recorder_cost_ns` per frame.
    pub recorder_cost: Figure,
    /// Consecutive pairs that gave no GPU interval although both frames had pass spans,
    /// because the later frame's first span does not begin after the earlier one's.
    pub gpu_unordered_pairs: u64,
    /// The same for the CPU clock: pairs of frames that both have CPU times, the later
    /// not beginning after the earlier.
    pub cpu_unordered_pairs: u64,
    /// Frames analysed whose CPU begin and end are both 0: they have no CPU times and are
    /// left out of the CPU figures.
    pub frames_without_cpu: u64,
    /// Frames with a readback time before their submit time.
    pub latency_negative: u64,
    /// Pass spans that read exactly 0 ns (quantized timestamps, or spans that ended before
    /// they began): they cover nothing.
    pub zero_spans: u64,
    /// Of `zero_spans`, those that ended before they began (inverted, or a counter that
    /// wrapped).
    pub inverted_spans: u64,
    /// Frames that did not decode and were left out, each breaking the pairs on either
    /// side of it.
    pub defects: Vec<Defect>,
}

impl FrameTiming {
    /// A coverage figure in parts per million as a share in `[0, 1]`.
    #[must_use]
    pub fn coverage_share(ppm: u64) -> f64 {
        ppm as f64 / PPM as f64
    }

    /// Whether the median frame's recorded spans cover less than [`LOW_COVERAGE`] of its
    /// GPU frame interval.
    #[must_use]
    pub fn low_coverage(&self) -> bool {
        self.coverage_ppm.summary().is_some_and(|s| Self::coverage_share(s.median) < LOW_COVERAGE)
    }

    /// The plain statement of a low coverage, as a measured fact about the capture.
    #[must_use]
    pub fn coverage_statement(&self) -> Option<String> {
        let summary = self.coverage_ppm.summary().filter(|_| self.low_coverage())?;
        let mut statement = format!(
            "recorded spans cover {:.1} % of the GPU frame interval (median): most GPU time is outside any timed pass",
            100.0 * Self::coverage_share(summary.median)
        );
        let why = match (self.zero_spans, self.inverted_spans) {
            (0, _) => None,
            (_, 0) => Some("quantized".to_owned()),
            (zero, inverted) if inverted == zero => Some("each ended before it began".to_owned()),
            (_, inverted) => {
                Some(format!("{inverted} of them inverted (an end before its begin), the others quantized"))
            }
        };
        if let Some(why) = why {
            statement.push_str(&format!(
                " ({} spans read exactly 0 ns, {why}: they cover nothing, so the share may be understated)",
                self.zero_spans
            ));
        }
        Some(statement)
    }
}

/// What one frame contributes, kept for pairing it with the next.
#[derive(Clone, Copy, Debug)]
struct Previous {
    gpu_begin: Option<u64>,
    /// `None` for a frame without CPU times.
    cpu_begin: Option<u64>,
    /// Its index in the capture: only the next index pairs with it.
    index: usize,
}

/// Builds a [`FrameTiming`] one frame at a time. Frames must be added in index order.
#[derive(Debug)]
pub struct FrameTimingAccumulator<'c, 'a> {
    capture: &'c Capture<'a>,
    frame: Frame,
    previous: Option<Previous>,
    /// The previous frame's pass spans as `(begin, end)`, sorted, when they came out of
    /// order: coverage needs the next frame's begin, so they wait one frame. Spans in order
    /// (nearly always) are not kept: see `union`.
    spans: Vec<(u64, u64)>,
    /// For the previous frame's spans when they came in order: the length of their union
    /// and their last end. A pair whose later frame begins after that end covers exactly
    /// the union; one that begins before it (a frame running into the next) decodes the
    /// spans again. Keeping every span for that rare case (16 bytes a span, written and
    /// never read) cost `sgpt stats` about 3 % of its time on the hour-long capture.
    union: Option<(u64, u64)>,
    /// The spans decoded again, reused.
    again: Vec<(u64, u64)>,
    /// What the first frame added gave: `None` before any, `Some(None)` when it did not
    /// decode. A later chunk's first frame pairs with the chunk before's last on merging.
    first: Option<Option<Previous>>,
    frames: u64,
    frames_with_spans: u64,
    frames_with_submit: u64,
    frames_with_readback: u64,
    frames_with_cpu: u64,
    gpu_interval: Sample,
    cpu_interval: Sample,
    cpu_frame_time: Sample,
    latency: Sample,
    coverage: Sample,
    covered_ns: u128,
    interval_ns: u128,
    recorder_cost: Sample,
    recorder_cost_nonzero: u64,
    gpu_unordered_pairs: u64,
    cpu_unordered_pairs: u64,
    latency_negative: u64,
    zero_spans: u64,
    inverted_spans: u64,
    defects: Vec<Defect>,
}

/// A frame's pass spans (sub-pass spans sit inside them and add no coverage).
fn pass_spans(frame: &Frame) -> impl Iterator<Item = &Span> {
    frame.spans.iter().filter(|span| span.kind == SpanKind::Pass)
}

/// What a span covers: its begin to its end, nothing when it ends before it begins.
fn covers(span: &Span) -> (u64, u64) {
    (span.begin_ns, span.end_ns.max(span.begin_ns))
}

/// The length of the union of sorted `spans`, each clipped to `[from, to)`.
fn covered(spans: &[(u64, u64)], from: u64, to: u64) -> u64 {
    let mut total = 0;
    let mut reach = from;
    for &(begin, end) in spans {
        let (begin, end) = (begin.max(reach), end.min(to));
        if end > begin {
            total += end - begin;
            reach = end;
        }
    }
    total
}

/// One walk over a frame's spans, in stored order, for what frame timing needs of them:
/// the first begin, the zeros and the union of the pass spans. Nothing is kept per span:
/// see [`FrameTimingAccumulator::add_walked`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpanWalk {
    first: u64,
    zeros: u64,
    /// Of `zeros`, the spans that ended before they began.
    inverted: u64,
    /// Whether the pass spans came in order of what they cover.
    pub(crate) sorted: bool,
    any: bool,
    last: (u64, u64),
    /// The union as `covered` walks it: spans in order all begin at or after the first,
    /// so starting from 0 or from the first begin comes to the same.
    reach: u64,
    union: u64,
    last_end: u64,
}

impl Default for SpanWalk {
    fn default() -> Self {
        Self {
            first: u64::MAX,
            zeros: 0,
            inverted: 0,
            sorted: true,
            any: false,
            last: (0, 0),
            reach: 0,
            union: 0,
            last_end: 0,
        }
    }
}

impl SpanWalk {
    /// The walk over a frame's spans that were all pass spans, each beginning at or after
    /// the end of the one before and ending at or after its own begin: the first began at
    /// `first`, the last ended at `last_end`, `durations` sum their lengths (their union,
    /// as they never overlap) and `zeros` of them were of no length. What [`Self::add`]
    /// over each comes to, without a step per span.
    pub(crate) fn in_order(count: usize, first: u64, last_end: u64, durations: u64, zeros: u64) -> Self {
        if count == 0 {
            return Self::default();
        }
        Self {
            first,
            zeros,
            inverted: 0,
            sorted: true,
            any: true,
            last: (0, last_end),
            reach: last_end,
            union: durations,
            last_end,
        }
    }

    #[inline(always)]
    pub(crate) fn add(&mut self, span: &Span) {
        if span.kind != SpanKind::Pass {
            return;
        }
        let covers = covers(span);
        self.first = self.first.min(span.begin_ns);
        self.zeros += u64::from(covers.1 == covers.0);
        self.inverted += u64::from(span.end_ns < span.begin_ns);
        self.sorted &= covers >= self.last;
        self.last = covers;
        let begin = covers.0.max(self.reach);
        if covers.1 > begin {
            self.union += covers.1 - begin;
            self.reach = covers.1;
        }
        self.last_end = self.last_end.max(covers.1);
        self.any = true;
    }
}

impl<'c, 'a> FrameTimingAccumulator<'c, 'a> {
    /// An accumulator over `capture` with no frame added yet.
    #[must_use]
    pub fn new(capture: &'c Capture<'a>) -> Self {
        Self {
            capture,
            frame: Frame::default(),
            previous: None,
            spans: Vec::new(),
            again: Vec::new(),
            union: None,
            first: None,
            frames: 0,
            frames_with_spans: 0,
            frames_with_submit: 0,
            frames_with_readback: 0,
            frames_with_cpu: 0,
            gpu_interval: Sample::default(),
            cpu_interval: Sample::default(),
            cpu_frame_time: Sample::default(),
            latency: Sample::default(),
            coverage: Sample::default(),
            covered_ns: 0,
            interval_ns: 0,
            recorder_cost: Sample::default(),
            recorder_cost_nonzero: 0,
            gpu_unordered_pairs: 0,
            cpu_unordered_pairs: 0,
            latency_negative: 0,
            zero_spans: 0,
            inverted_spans: 0,
            defects: Vec::new(),
        }
    }

    /// Adds frame `index`; call in increasing index order. A frame that does not decode
    /// adds a defect and breaks the pairs on either side of it.
    pub fn add_frame(&mut self, index: usize) {
        let mut frame = std::mem::take(&mut self.frame);
        match self.capture.frame_into(index, &mut frame) {
            Ok(()) => self.add_decoded(index, &frame),
            Err(defect) => self.add_defect(defect),
        }
        self.frame = frame;
    }

    /// Counts a frame that did not decode: it breaks the pairs on either side of it.
    pub(crate) fn add_defect(&mut self, defect: Defect) {
        self.defects.push(defect);
        self.previous = None;
        self.first.get_or_insert(None);
    }

    /// Adds a frame already decoded, as frame `index` of the capture.
    pub fn add_decoded(&mut self, index: usize, frame: &Frame) {
        let mut walk = SpanWalk::default();
        for span in &frame.spans {
            walk.add(span);
        }
        self.add_walked(index, frame, &walk);
    }

    /// Adds frame `index` whose spans `walk` has seen; `frame` holds what follows its
    /// spans (CPU times and the recorder's cost), and its spans too unless they came in
    /// order (`walk.sorted`).
    pub(crate) fn add_walked(&mut self, index: usize, frame: &Frame, walk: &SpanWalk) {
        self.frames += 1;
        let cpu = frame.cpu;
        // Both 0 is the writer's "no CPU times", not a frame that took 0 ns.
        let cpu_begin = (cpu.begin_ns != 0 || cpu.end_ns != 0).then_some(cpu.begin_ns);
        if cpu_begin.is_some() {
            self.frames_with_cpu += 1;
            if let Some(duration) = cpu.end_ns.checked_sub(cpu.begin_ns) {
                self.cpu_frame_time.add(duration);
            }
        }
        self.frames_with_submit += u64::from(cpu.submit_ns.is_some());
        self.frames_with_readback += u64::from(cpu.readback_ns.is_some());
        if let (Some(submit), Some(readback)) = (cpu.submit_ns, cpu.readback_ns) {
            match readback.checked_sub(submit) {
                Some(latency) => self.latency.add(latency),
                None => self.latency_negative += 1,
            }
        }
        self.recorder_cost.add(frame.recorder_cost_ns);
        self.recorder_cost_nonzero += u64::from(frame.recorder_cost_ns != 0);

        let SpanWalk { first, zeros, inverted, sorted, union, last_end, any, .. } = *walk;
        let gpu_begin = any.then_some(first);
        self.zero_spans += zeros;
        self.inverted_spans += inverted;
        self.frames_with_spans += u64::from(gpu_begin.is_some());

        if let Some(previous) = self.previous.filter(|previous| previous.index + 1 == index) {
            self.pair(previous, gpu_begin, cpu_begin);
        }
        self.spans.clear();
        if !sorted {
            self.spans.extend(pass_spans(frame).map(covers));
            self.spans.sort_unstable();
        }
        self.union = sorted.then_some((union, last_end));
        let this = Previous { gpu_begin, cpu_begin, index };
        self.previous = Some(this);
        self.first.get_or_insert(Some(this));
    }

    /// The length of the union of frame `index`'s pass spans, which came in order, clipped
    /// to `[from, to)`: decoded again, as the spans of a frame that runs into the next are
    /// not kept (`None` only if the frame no longer decodes, which the same bytes cannot do).
    fn covered_again(&mut self, index: usize, from: u64, to: u64) -> Option<u64> {
        let mut frame = std::mem::take(&mut self.frame);
        let decoded = self.capture.frame_into(index, &mut frame).is_ok();
        self.again.clear();
        self.again.extend(pass_spans(&frame).map(covers));
        self.frame = frame;
        decoded.then(|| covered(&self.again, from, to))
    }

    /// Counts the pair of `previous` (whose pass spans are in `self.union` when they came in
    /// order, else in `self.spans`) and the frame after it.
    fn pair(&mut self, previous: Previous, gpu_begin: Option<u64>, cpu_begin: Option<u64>) {
        if let (Some(earlier), Some(later)) = (previous.gpu_begin, gpu_begin) {
            if later > earlier {
                let interval = later - earlier;
                let covered = match self.union {
                    Some((union, last_end)) if last_end <= later => union,
                    Some((union, _)) => self.covered_again(previous.index, earlier, later).unwrap_or(union),
                    None => covered(&self.spans, earlier, later),
                };
                self.gpu_interval.add(interval);
                self.coverage.add((u128::from(covered) * u128::from(PPM) / u128::from(interval)) as u64);
                self.covered_ns += u128::from(covered);
                self.interval_ns += u128::from(interval);
            } else {
                self.gpu_unordered_pairs += 1;
            }
        }
        // As on the GPU clock: a pair is ordered or not only when both frames have times.
        if let (Some(earlier), Some(later)) = (previous.cpu_begin, cpu_begin) {
            if later > earlier {
                self.cpu_interval.add(later - earlier);
            } else {
                self.cpu_unordered_pairs += 1;
            }
        }
    }

    /// An accumulator for one chunk of a range, of `frames` frames: its samples keep every
    /// value, so that [`FrameTimingAccumulator::merge`] can replay them exactly. Each has
    /// room for one value a frame, the most any takes, so none is grown by copying; the
    /// room past what a chunk fills is never touched.
    pub(crate) fn for_chunk(capture: &'c Capture<'a>, frames: usize) -> Self {
        let mut chunk = Self::new(capture);
        for sample in [
            &mut chunk.gpu_interval,
            &mut chunk.cpu_interval,
            &mut chunk.cpu_frame_time,
            &mut chunk.latency,
            &mut chunk.coverage,
            &mut chunk.recorder_cost,
        ] {
            sample.unbounded = true;
            sample.values.reserve_exact(frames);
        }
        chunk
    }

    /// Adds `later`, a [`FrameTimingAccumulator::for_chunk`] fed the frames that follow
    /// this one's, as though its frames had been added here: the pair across the seam is
    /// counted first, then its values follow in order.
    pub(crate) fn merge(&mut self, later: Self) {
        let Some(first) = later.first else { return };
        if let (Some(previous), Some(first)) = (self.previous, first)
            && previous.index + 1 == first.index
        {
            self.pair(previous, first.gpu_begin, first.cpu_begin);
        }
        self.frames += later.frames;
        self.frames_with_spans += later.frames_with_spans;
        self.frames_with_submit += later.frames_with_submit;
        self.frames_with_readback += later.frames_with_readback;
        self.frames_with_cpu += later.frames_with_cpu;
        self.gpu_interval.append(later.gpu_interval);
        self.cpu_interval.append(later.cpu_interval);
        self.cpu_frame_time.append(later.cpu_frame_time);
        self.latency.append(later.latency);
        self.coverage.append(later.coverage);
        self.covered_ns += later.covered_ns;
        self.interval_ns += later.interval_ns;
        self.recorder_cost.append(later.recorder_cost);
        self.recorder_cost_nonzero += later.recorder_cost_nonzero;
        self.gpu_unordered_pairs += later.gpu_unordered_pairs;
        self.cpu_unordered_pairs += later.cpu_unordered_pairs;
        self.latency_negative += later.latency_negative;
        self.zero_spans += later.zero_spans;
        self.inverted_spans += later.inverted_spans;
        self.defects.extend(later.defects);
        self.previous = later.previous;
        self.spans = later.spans;
        self.union = later.union;
        self.first.get_or_insert(first);
    }

    /// Why there is no interval, when there is none.
    fn interval_reason(&self, clock: &str, with_times: u64, unordered: u64) -> String {
        if self.frames == 0 {
            "no frame could be read".to_owned()
        } else if with_times < 2 {
            match (with_times, clock) {
                (0, "GPU") => "no GPU pass spans in this capture".to_owned(),
                (0, _) => "no CPU times in this capture (every frame's begin and end are 0)".to_owned(),
                _ if self.frames == 1 => "one frame: an interval needs two consecutive frames".to_owned(),
                _ => format!("only one frame has {clock} times: an interval needs two consecutive frames"),
            }
        } else if unordered > 0 {
            format!("no consecutive pair of frames has a later {clock} begin than the one before ({unordered} pairs)")
        } else if self.defects.is_empty() {
            format!("no two consecutive frames both have {clock} times")
        } else {
            format!("no two consecutive frames with {clock} times could both be read")
        }
    }

    /// The figures over the frames added; each figure without a value names why.
    #[must_use]
    pub fn finish(mut self) -> FrameTiming {
        // The samples taken out, to be selected in without a copy.
        let take = std::mem::take::<Sample>;
        let (gpu_interval, cpu_interval, cpu_frame_time) =
            (take(&mut self.gpu_interval), take(&mut self.cpu_interval), take(&mut self.cpu_frame_time));
        let (latency, coverage, recorder_cost) =
            (take(&mut self.latency), take(&mut self.coverage), take(&mut self.recorder_cost));
        let figure = |sample: Sample, reason: &dyn Fn() -> String| match sample.into_summary() {
            Some(summary) => Figure::Measured(summary),
            None => Figure::Unavailable(reason()),
        };
        let gpu_reason = || self.interval_reason("GPU", self.frames_with_spans, self.gpu_unordered_pairs);
        let cpu_reason = || self.interval_reason("CPU", self.frames_with_cpu, self.cpu_unordered_pairs);
        let latency_reason = || {
            if self.frames == 0 {
                "no frame could be read".to_owned()
            } else if self.frames_with_readback == 0 {
                "no readback times in this capture".to_owned()
            } else if self.frames_with_submit == 0 {
                "no submit times in this capture".to_owned()
            } else if self.latency_negative > 0 {
                format!("every frame with both times reads back before it submits ({} frames)", self.latency_negative)
            } else {
                "no frame has both a submit and a readback time".to_owned()
            }
        };
        let no_frames = || "no frame could be read".to_owned();
        let cpu_frame_reason = || {
            if self.frames == 0 {
                no_frames()
            } else if self.frames_with_cpu < self.frames {
                "every frame with CPU times has its CPU end before its begin".to_owned()
            } else {
                "every frame's CPU end precedes its begin".to_owned()
            }
        };
        let cost_reason = no_frames;
        FrameTiming {
            frames: self.frames,
            gpu_interval: figure(gpu_interval, &gpu_reason),
            cpu_interval: figure(cpu_interval, &cpu_reason),
            cpu_frame_time: if self.frames_with_cpu == 0 && self.frames > 0 {
                Figure::Unavailable("no CPU times in this capture (every frame's begin and end are 0)".to_owned())
            } else {
                figure(cpu_frame_time, &cpu_frame_reason)
            },
            latency: figure(latency, &latency_reason),
            coverage_ppm: figure(coverage, &gpu_reason),
            coverage_overall: (self.interval_ns > 0).then(|| self.covered_ns as f64 / self.interval_ns as f64),
            recorder_cost: if self.recorder_cost_nonzero == 0 && self.frames > 0 {
                Figure::Unavailable("recorder_cost_ns is 0 in every frame: the writer recorded no cost".to_owned())
            } else {
                figure(recorder_cost, &cost_reason)
            },
            gpu_unordered_pairs: self.gpu_unordered_pairs,
            cpu_unordered_pairs: self.cpu_unordered_pairs,
            frames_without_cpu: self.frames - self.frames_with_cpu,
            latency_negative: self.latency_negative,
            zero_spans: self.zero_spans,
            inverted_spans: self.inverted_spans,
            defects: self.defects,
        }
    }
}

/// Frame timing over `frames`, a range of indices into [`Capture::frames`] (clamped).
#[must_use]
pub fn frame_timing(capture: &Capture<'_>, frames: Range<usize>) -> FrameTiming {
    let end = frames.end.min(capture.frames().len());
    let start = frames.start.min(end);
    let mut accumulator = FrameTimingAccumulator::new(capture);
    for index in start..end {
        accumulator.add_frame(index);
    }
    accumulator.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CpuTimes, GpuPass, Level, Meta, Span, Topology};
    use crate::writer::Writer;

    #[test]
    fn the_walk_over_spans_in_order_measures_their_union_as_covered_does() {
        let mut rng = crate::synth::Rng::new(3);
        for trial in 0..5_000 {
            // Spans in order of what they cover: overlapping, nested, touching, apart, and
            // of no length.
            let mut spans: Vec<(u64, u64)> = (0..1 + rng.below(12))
                .map(|_| {
                    let begin = rng.below(200);
                    let end = if rng.below(4) == 0 { begin } else { begin + rng.below(60) };
                    (begin, end)
                })
                .collect();
            spans.sort_unstable();
            let mut walk = SpanWalk::default();
            for &(begin_ns, end_ns) in &spans {
                walk.add(&Span { begin_ns, end_ns, ..Span::default() });
            }
            let last_end = spans.iter().map(|span| span.1).max().unwrap_or(0);
            assert!(walk.sorted, "trial {trial}");
            assert_eq!(
                (walk.union, walk.last_end),
                (covered(&spans, 0, u64::MAX), last_end),
                "trial {trial}: {spans:?}"
            );
        }
    }

    /// A frame beginning on the GPU at `gpu_begin` with pass spans at these offsets, and on
    /// the CPU at `cpu_begin`.
    struct Planned {
        gpu_begin: u64,
        spans: Vec<(u64, u64)>,
        cpu: CpuTimes,
        recorder_cost_ns: u64,
    }

    fn planned(gpu_begin: u64, spans: &[(u64, u64)], cpu_begin: u64) -> Planned {
        Planned {
            gpu_begin,
            spans: spans.to_vec(),
            cpu: CpuTimes {
                begin_ns: cpu_begin,
                end_ns: cpu_begin + 4_000,
                submit_ns: Some(cpu_begin + 3_000),
                readback_ns: Some(cpu_begin + 9_000),
            },
            recorder_cost_ns: 100,
        }
    }

    fn capture(frames: &[Planned]) -> Vec<u8> {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).unwrap();
        let topology = Topology {
            gpu_passes: (0..4).map(|i| GpuPass { label: format!("pass {i}"), ..GpuPass::default() }).collect(),
            ..Topology::default()
        };
        let id = writer.topology(&topology).unwrap();
        for (number, plan) in frames.iter().enumerate() {
            let spans = plan
                .spans
                .iter()
                .enumerate()
                .map(|(pass, &(from, to))| Span {
                    pass: pass as u32,
                    begin_ns: plan.gpu_begin + from,
                    end_ns: plan.gpu_begin + to,
                    ..Span::default()
                })
                .collect();
            let frame = Frame {
                frame_number: number as u64,
                topology: id,
                spans,
                cpu: plan.cpu,
                recorder_cost_ns: plan.recorder_cost_ns,
                ..Frame::default()
            };
            writer.frame(&frame).unwrap();
        }
        writer.finish().unwrap()
    }

    fn timing(bytes: &[u8]) -> FrameTiming {
        let capture = Capture::open(bytes).unwrap();
        frame_timing(&capture, 0..capture.frames().len())
    }

    #[test]
    fn spans_covering_a_small_share_of_the_interval_are_said_so() {
        // Frames every 100,000 ns; two overlapping spans cover 0..3,000 and 2,000..5,000:
        // their union is 5,000 ns, 5 % of the interval.
        let frames: Vec<Planned> = (0..5)
            .map(|f| planned(1_000_000 + f * 100_000, &[(0, 3_000), (2_000, 5_000)], 7_000_000 + f * 50_000))
            .collect();
        let timing = timing(&capture(&frames));
        let interval = timing.gpu_interval.summary().unwrap();
        assert_eq!((interval.count, interval.median, interval.exact), (4, 100_000, true));
        let coverage = timing.coverage_ppm.summary().unwrap();
        assert_eq!((coverage.min, coverage.median, coverage.max), (50_000, 50_000, 50_000));
        assert_eq!(timing.coverage_overall, Some(0.05));
        assert!(timing.low_coverage());
        assert_eq!(
            timing.coverage_statement().as_deref(),
            Some(
                "recorded spans cover 5.0 % of the GPU frame interval (median): most GPU time is outside any timed pass"
            )
        );
        // Spans of 0 ns cover nothing: the statement says how many, and why each read so.
        let with = |zero_spans, inverted_spans| {
            let statement = FrameTiming { zero_spans, inverted_spans, ..timing.clone() }.coverage_statement();
            statement.expect("still low").split_once("pass (").map(|(_, why)| why.to_owned()).expect("a why")
        };
        let understated = ": they cover nothing, so the share may be understated)";
        assert_eq!(with(3, 0), format!("3 spans read exactly 0 ns, quantized{understated}"));
        assert_eq!(with(3, 3), format!("3 spans read exactly 0 ns, each ended before it began{understated}"));
        assert_eq!(
            with(3, 1),
            format!(
                "3 spans read exactly 0 ns, 1 of them inverted (an end before its begin), the others quantized{understated}"
            )
        );
        assert_eq!(timing.cpu_interval.summary().unwrap().median, 50_000);
        assert_eq!(timing.latency.summary().unwrap().median, 6_000);
        assert_eq!(timing.cpu_frame_time.summary().unwrap().median, 4_000);
        assert_eq!(timing.recorder_cost.summary().unwrap().max, 100);
    }

    #[test]
    fn spans_running_past_the_next_frame_are_clipped_to_the_interval() {
        // A span 0..150,000 in frames 100,000 apart covers its interval whole, no more.
        let frames: Vec<Planned> = (0..3).map(|f| planned(f * 100_000 + 1, &[(0, 150_000)], 1 + f)).collect();
        let timing = timing(&capture(&frames));
        assert_eq!(timing.coverage_ppm.summary().unwrap().max, 1_000_000);
        assert!(!timing.low_coverage());
        assert_eq!(timing.coverage_statement(), None);
    }

    #[test]
    fn a_one_frame_capture_has_no_interval_and_says_why() {
        let timing = timing(&capture(&[planned(10, &[(0, 5)], 20)]));
        assert_eq!(timing.frames, 1);
        assert_eq!(timing.gpu_interval.reason(), Some("one frame: an interval needs two consecutive frames"));
        assert_eq!(timing.cpu_interval.reason(), Some("one frame: an interval needs two consecutive frames"));
        assert_eq!(timing.coverage_ppm.reason(), timing.gpu_interval.reason());
        // Latency and cost need no pair.
        assert_eq!(timing.latency.summary().unwrap().count, 1);
    }

    #[test]
    fn a_zero_frame_capture_computes_nothing() {
        let timing = timing(&capture(&[]));
        assert_eq!(timing.frames, 0);
        for figure in [&timing.gpu_interval, &timing.cpu_interval, &timing.latency, &timing.recorder_cost] {
            assert_eq!(figure.reason(), Some("no frame could be read"));
        }
        assert_eq!(timing.coverage_overall, None);
    }

    #[test]
    fn missing_cpu_times_readback_and_spans_are_named() {
        let frames: Vec<Planned> = (0..3)
            .map(|_| Planned { gpu_begin: 0, spans: Vec::new(), cpu: CpuTimes::default(), recorder_cost_ns: 0 })
            .collect();
        let timing = timing(&capture(&frames));
        assert_eq!(timing.gpu_interval.reason(), Some("no GPU pass spans in this capture"));
        assert_eq!(
            timing.cpu_interval.reason(),
            Some("no CPU times in this capture (every frame's begin and end are 0)")
        );
        assert_eq!(
            timing.cpu_frame_time.reason(),
            Some("no CPU times in this capture (every frame's begin and end are 0)")
        );
        // No pair has two CPU times to order: none is unordered, as none is on the GPU clock.
        assert_eq!((timing.cpu_unordered_pairs, timing.gpu_unordered_pairs), (0, 0));
        assert_eq!(timing.frames_without_cpu, 3);
        assert_eq!(timing.latency.reason(), Some("no readback times in this capture"));
        assert_eq!(
            timing.recorder_cost.reason(),
            Some("recorder_cost_ns is 0 in every frame: the writer recorded no cost")
        );
    }

    /// Five frames 50,000 ns apart on the CPU, each 4,000 ns long, but frame 2 with no CPU
    /// times (begin and end 0).
    fn one_frame_without_cpu_times() -> Vec<u8> {
        let frames: Vec<Planned> = (0..5)
            .map(|f| {
                let mut plan = planned(1_000_000 + f * 100_000, &[(0, 3_000)], 7_000_000 + f * 50_000);
                if f == 2 {
                    plan.cpu = CpuTimes::default();
                }
                plan
            })
            .collect();
        capture(&frames)
    }

    #[test]
    fn a_frame_without_cpu_times_is_left_out_of_the_cpu_figures() {
        let timing = timing(&one_frame_without_cpu_times());
        let frame_time = timing.cpu_frame_time.summary().unwrap();
        // Four frames of 4,000 ns: the frame without CPU times is not a 0 ns frame.
        assert_eq!((frame_time.count, frame_time.min, frame_time.max), (4, 4_000, 4_000));
        // Pairs 0–1 and 3–4; the two pairs with frame 2 have no CPU interval and are not
        // unordered either.
        let interval = timing.cpu_interval.summary().unwrap();
        assert_eq!((interval.count, interval.min, interval.max), (2, 50_000, 50_000));
        assert_eq!(timing.cpu_unordered_pairs, 0);
        assert_eq!(timing.frames_without_cpu, 1);
        assert_eq!(timing.gpu_interval.summary().unwrap().count, 4);
    }

    #[test]
    fn frames_with_cpu_times_never_consecutive_have_no_cpu_interval_and_say_why() {
        let frames: Vec<Planned> = (0..4)
            .map(|f| {
                let mut plan = planned(f * 100_000 + 1, &[(0, 3_000)], 7_000_000 + f * 50_000);
                if f % 2 == 1 {
                    plan.cpu = CpuTimes::default();
                }
                plan
            })
            .collect();
        let timing = timing(&capture(&frames));
        assert_eq!(timing.cpu_interval.reason(), Some("no two consecutive frames both have CPU times"));
        assert_eq!(timing.cpu_unordered_pairs, 0);
        assert_eq!(timing.cpu_frame_time.summary().unwrap().count, 2);
    }

    #[test]
    fn a_frame_without_cpu_times_breaks_pairs_across_chunk_seams_as_in_one_pass() {
        use crate::analysis::scan::{ScanOptions, scan};
        let bytes = one_frame_without_cpu_times();
        let capture = Capture::open(&bytes).unwrap();
        let whole = frame_timing(&capture, 0..5);
        for chunks in 1..=5 {
            let options = ScanOptions { chunks, frame_timing: true, ..ScanOptions::default() };
            assert_eq!(scan(&capture, 0..5, &options).timing.as_ref(), Some(&whole), "{chunks} chunks");
        }
    }

    #[test]
    fn a_sample_is_exact_up_to_its_limit_and_a_bounded_systematic_sample_past_it() {
        let mut sample = Sample::default();
        for value in (0..1001).rev() {
            sample.add(value);
        }
        let summary = sample.summary().unwrap();
        assert_eq!((summary.min, summary.median, summary.p95, summary.max, summary.exact), (0, 500, 950, 1000, true));

        let mut sample = Sample::default();
        let n = 2 * SAMPLE_LIMIT as u64 + 10;
        for value in 0..n {
            sample.add(value);
        }
        let summary = sample.summary().unwrap();
        assert!(sample.values.len() <= SAMPLE_LIMIT);
        assert_eq!((summary.count, summary.min, summary.max, summary.exact), (n, 0, n - 1, false));
        // Every fourth value of 0..n: the median is within a stride of the true one.
        assert!(summary.median.abs_diff(n / 2) <= 4, "{summary:?}");
    }

    #[test]
    fn unbounded_chunk_samples_replay_into_the_sample_one_pass_keeps() {
        let n = 2 * SAMPLE_LIMIT as u64 + 10;
        let value = |i: u64| (i * 7_919) % 100_003;
        let mut whole = Sample::default();
        (0..n).for_each(|i| whole.add(value(i)));
        let limit = SAMPLE_LIMIT as u64;
        for cuts in [
            vec![0, n],
            vec![0, 3, n],
            vec![0, limit + 1, limit * 2, n],
            vec![0, 5, limit - 1, limit, limit + 2, n],
            vec![0, limit / 2, limit, n],
        ] {
            let mut merged = Sample::default();
            for part in cuts.windows(2) {
                let mut chunk = Sample { unbounded: true, ..Sample::default() };
                (part[0]..part[1]).for_each(|i| chunk.add(value(i)));
                merged.append(chunk);
            }
            assert_eq!(merged.values, whole.values, "cut at {cuts:?}");
            let state = |sample: &Sample| (sample.stride, sample.seen, sample.min, sample.max);
            assert_eq!(state(&merged), state(&whole), "cut at {cuts:?}");
            assert_eq!(merged.summary(), whole.summary(), "cut at {cuts:?}");
        }
    }
}
