//! Everything `sgpt stats` computes over a frame range, per-pass statistics and frame
//! timing, from one decode of each frame, in contiguous chunks that can run on several
//! threads and merge exactly: the figures are [`pass_stats`]'s and
//! [`frame_timing`](super::frame_timing::frame_timing)'s to the nanosecond.
//!
//! Where the time went (`perf record` of `sgpt stats --json` on the one-hour synthetic
//! capture, 216,000 frames × 200 passes, 43.2 M spans, 2.6 s on one core): each frame
//! was decoded three times, about half the time: the statistics' first pass 18 %, their
//! exact second pass 17 % (its bucket search in `finish_step` another 21 %), frame
//! timing's full decode 16 %; `add_frame` 9 %; frame timing's own work 7 % (sorting every
//! frame's spans among it); reading the file 7 %.
//!
//! Where it went next (about 0.64 s): decoding 55 %, two frames at a time, each span's
//! slot and duration set aside and frame timing's walk over it done in the same loop;
//! adding the set-aside durations to the statistics 12 %, a frame at a time by its shape
//! (`shapes`: one vectorized loop over the frame's positions, then the tenth of durations
//! inside a window kept one by one); checksums 3 %. Adding each span to its row instead,
//! some 75 instructions a span however it was batched, had taken about 0.3 s of 0.84.
//!
//! Where it goes now (about 0.44 s on one thread, 0.25 s on two): nearly every frame
//! stores its spans as passes 0, 1, 2, … in turn, so a pair of such frames reads only
//! its durations (`spans::durations_two`: a loop that makes no `Span` and calls nothing,
//! both readers in registers), the slots being the topology's pass slots in order, and
//! frame timing takes the first gap and the sum of the gaps rather than a walk over every
//! span. That loop and the shapes' run compiled for x86-64-v3 where the CPU has it
//! (`isa`): BMI1/BMI2 for the decoder's counts and shifts, AVX2 for the shapes' lanes, a
//! sixth of the time. Of one thread's 0.44 s: the loop about half (the decode some 34 %,
//! the shapes and kept durations 10 %), checksums 5 %, the windows' sample and selections
//! 5 %, opening (checking each frame's entry against the file) 5 %, the kernel's page
//! work 6 %. Reading every duration alone, two frames at a time, is 0.19 s
//! (`dev::roofline`); `cargo bench -p sgpt-cli --bench stats` prints these figures.
//!
//! With [`ScanOptions::samples`] the same decode also feeds the comparison engine's
//! per-frame samples, chunk by chunk over the rows every chunk shares, concatenated in
//! frame order: exactly [`Samples::collect`]'s. `sgpt diff` of two hours (`perf record`,
//! 2 threads) spent 39 % of its time in a second, sequential decode of each capture for
//! the samples (`SampleCollector::add_frame` 12 %, its decode 16 %), 34 % in this scan
//! and 21 % comparing (on one thread); collected here, in the statistics' own loop over
//! the spans and straight into each series, they take about 15 % of `diff`'s time. Then
//! each chunk's series were concatenated into one per pass, a copy of every value into as
//! many fresh pages (page faults and copies about a sixth of `diff`, reading included).
//! Now a pass with one span in the first frame of every chunk (the usual pass) gets a
//! series sized for the whole range beforehand, and each chunk writes its part of it in
//! place (`Plan::in_place_series`); any other pass, or one that turns out otherwise,
//! goes on as before, so the samples stay exactly [`Samples::collect`]'s. With
//! [`ScanOptions::coins`], that part holds each frame's code against the pass's median
//! window instead (below, inside, above, or no span), and the scan's end turns the codes
//! into coins with the durations inside the window, kept in frame order, and the median
//! it selected: the comparison's terms, a byte a frame.
//!
//! How the order statistics stay exact in one pass: a systematic sample of the range
//! (every k-th frame, about [`SAMPLE_FRAMES`] of them, decoded beforehand; about 2 % of
//! the hour) places a window of durations around each pass's median and p95, wide enough
//! (five standard errors of the sample's quantile) that the true ones fall inside it all
//! but never. The pass then counts the durations below each window and keeps those in it,
//! so the median and p95 are selected among the kept values. Should a rank fall outside
//! its window after all, the statistics are computed again by [`pass_stats`]: slower,
//! never different. Small ranges keep every duration and need no sample.
//!
//! The price is memory: the kept durations (about a tenth of them on the hour; 2 bytes
//! each where a row's windows lie within 65 µs, 4 within 4.3 s, see `kept`) and each
//! chunk's frame-timing values (48 bytes a frame) beside the capture; `sgpt stats` on the
//! hour peaks near 220 MB resident where the file is 185 MB (mapped, its pages counted).
//!
//! ```
//! use sgpt_format::{Capture, analysis, synth};
//! use sgpt_format::analysis::scan::{ScanOptions, scan};
//!
//! let bytes = synth::generate(&synth::SynthOptions { frames: 64, passes: 20, ..Default::default() });
//! let capture = Capture::open(&bytes)?;
//! let all = 0..capture.frames().len();
//! let result = scan(&capture, all.clone(), &ScanOptions { chunks: 3, ..ScanOptions::default() });
//! assert_eq!(result.stats, analysis::pass_stats(&capture, all.clone()));
//! assert_eq!(result.timing, Some(sgpt_format::frame_timing::frame_timing(&capture, all)));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod dispatch;
mod job;
mod kept;
pub mod piece;
mod pieces;
mod rows;
mod shapes;
mod threads;

use std::collections::HashMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::compare::Samples;
use super::compare::{
    ChunkPart, ChunkSamples, Durations, Inside, KnownOrder, Part, RangeSeries, SeriesKind, bandwidth, codes_to_coins,
    unknown_pass,
};
use super::frame_timing::{FrameTiming, FrameTimingAccumulator, SpanWalk};
use super::held::HeldFrames;
use super::isa;
use super::{Key, PassStats, StatsReport, pass_key, pass_slots, pass_stats, reads_alone, sort_passes};
use crate::directory::FrameEntry;
use crate::error::{Defect, DefectKind};
use crate::frame;
use crate::model::{Frame, Span, SpanKind, TopologyId};
use crate::piece::{FramePiece, OpenFrame};
use crate::reader::Capture;
use crate::spans;
pub use dispatch::{PIECE_BYTES, PIECE_FRAMES, PieceScanner};
pub use job::ScanJob;
use rows::{ALL, EMPTY, SlotAcc, Window};
use shapes::Shapes;
#[cfg(feature = "parallel")]
use threads::Pool;
use threads::{OneThread, Threads};

/// Frames the sample that places the windows reads, at most.
pub const SAMPLE_FRAMES: usize = 4096;
/// Up to this many spans in the range, every duration is kept and nothing is sampled.
const KEEP_ALL_SPANS: u64 = 1 << 21;
/// The sample reads one frame in at least this many.
const MIN_STRIDE: usize = 8;
/// Standard errors of a sample quantile's rank on either side of it that a window spans.
const WIDTH_SIGMAS: f64 = 5.0;
/// Up to this many topologies, whether a frame's is new is a look along a list.
const FEW_TOPOLOGIES: usize = 16;
/// Frames between progress reports.
const PROGRESS_EVERY: usize = 1024;
/// Durations the sample's rows make room for beforehand, at most: where rows are many
/// (thousands of passes), each grows as it fills instead.
const MOST_SAMPLE_ROOM: usize = 1 << 22;
/// The room a chunk makes for the durations it keeps, over what its sample's rate
/// projects: a little over, so that a chunk that keeps a few more seldom needs more.
const KEPT_ROOM_FACTOR: f64 = 1.05;

/// What to compute, and in how many chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScanOptions {
    /// Contiguous chunks the range is split into (at least 1; at most one a frame). For
    /// `scan_parallel`, 0 picks four a thread.
    pub chunks: usize,
    /// Whether to compute frame timing too (it needs whole frames decoded, not only spans).
    pub frame_timing: bool,
    /// How the windows around each median and p95 are placed.
    pub windows: Windows,
    /// Whether to collect the comparison engine's per-frame samples too, from the same
    /// decode: exactly what [`Samples::collect`] gives over the range.
    pub samples: bool,
    /// With `samples`, keep the usual pass (one span in every frame) as coins rather than
    /// durations: each frame's span only as at or below the pass's median or not, beside
    /// the order statistics the scan selects. A byte a frame where a duration takes four,
    /// and nothing for the comparison to read again; compare them with
    /// [`try_compare`](crate::compare::try_compare), which says where a figure needs the
    /// durations after all. [`Scan::samples`] is `None` where the scan could not keep
    /// coins (a pass in place turned out otherwise, a frame was skipped, or a window missed
    /// a median or the ends of its bandwidth): scan again without them.
    pub coins: bool,
}

/// How [`scan`] places the windows whose durations it keeps for the median and the p95.
/// Every choice gives the same figures; they differ in memory and time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Windows {
    /// Keep every duration up to 2 M spans; past that, sample about [`SAMPLE_FRAMES`] frames.
    #[default]
    Auto,
    /// Keep every duration.
    All,
    /// Sample every `n`-th frame of the range (at least 1), whatever its size.
    SampleEvery(usize),
}

impl Default for ScanOptions {
    fn default() -> Self {
        Self { chunks: 1, frame_timing: true, windows: Windows::Auto, samples: false, coins: false }
    }
}

/// The statistics and, when asked for, the frame timing of a range.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// Per-pass statistics: exactly [`pass_stats`] over the range.
    pub stats: StatsReport,
    /// Frame timing over the range, exactly [`frame_timing`](super::frame_timing::frame_timing)'s;
    /// `None` unless [`ScanOptions::frame_timing`] was set.
    pub timing: Option<FrameTiming>,
    /// Whether a median or p95 fell outside its window, so the statistics were read
    /// again, by [`pass_stats`]: the same figures, two more decodes of the range.
    pub reread: bool,
    /// With [`ScanOptions::samples`], the comparison engine's samples of the range (with
    /// [`ScanOptions::coins`], where it could keep them).
    pub samples: Option<Samples>,
}

/// [`pass_stats`] and, with [`ScanOptions::frame_timing`], frame timing of `frames`
/// (clamped to the capture), each frame decoded once; the chunks run one after another.
#[must_use]
pub fn scan(capture: &Capture<'_>, frames: Range<usize>, options: &ScanOptions) -> Scan {
    let plan = Plan::new::<OneThread>(capture, frames, options.chunks, options);
    let mut in_place = plan.in_place_series();
    let parts = plan.split(&mut in_place);
    let chunks = parts.into_iter().enumerate().map(|(at, part)| plan.run(at, part, &|_| {})).collect();
    plan.finish::<OneThread>(chunks, Vec::new(), in_place, None)
}

/// [`scan`] with the chunks, and the selection of each pass's median and p95, run on
/// rayon's current thread pool. `progress` is told how many frames were done, a batch at
/// a time, from any thread.
#[cfg(feature = "parallel")]
#[must_use]
pub fn scan_parallel(
    capture: &Capture<'_>,
    frames: Range<usize>,
    options: &ScanOptions,
    progress: &(dyn Fn(u64) + Sync),
) -> Scan {
    use rayon::prelude::*;
    let chunks = if options.chunks == 0 { 4 * rayon::current_num_threads() } else { options.chunks };
    let plan = Plan::new::<Pool>(capture, frames, chunks, options);
    let mut in_place = plan.in_place_series();
    let parts = plan.split(&mut in_place);
    let chunks = parts.into_par_iter().enumerate().map(|(at, part)| plan.run(at, part, progress)).collect();
    plan.finish::<Pool>(chunks, Vec::new(), in_place, None)
}

/// The windows of one pass from its sampled durations: around the median and the p95,
/// disjoint, the median's first. The median's reaches `around_median` further each way
/// (as a share of the durations): with the comparison's samples, the ends of the
/// density's bandwidth, so the scan selects those too (see `compare::known`).
fn windows(sample: &mut [u64], around_median: f64) -> [Window; 2] {
    if sample.is_empty() {
        return [ALL, EMPTY];
    }
    let n = sample.len() as f64;
    // Each window's ends as ranks in the sorted sample, `None` past either end.
    let [median_ranks, p95_ranks] = [(0.5, around_median), (0.95, 0.0)].map(|(p, around): (f64, f64)| {
        let half = WIDTH_SIGMAS * (p * (1.0 - p) / n).sqrt() + 2.0 / n + around;
        let low = ((p - half) * n).floor() - 1.0;
        let high = ((p + half) * n).ceil();
        [(low >= 0.0).then_some(low as usize), (high < n).then_some(high as usize)]
    });
    let ranks = [median_ranks[0], median_ranks[1], p95_ranks[0], p95_ranks[1]];
    let values = values_at_ranks(sample, ranks);
    let [median, mut p95] =
        [0, 2].map(|at| Window { low: values[at].unwrap_or(0), high: values[at + 1].unwrap_or(u64::MAX) });
    if p95.low <= median.high {
        p95 = if median.high == u64::MAX { EMPTY } else { Window { low: median.high + 1, high: p95.high } };
    }
    [median, p95]
}

/// How many of `sample`'s durations lie in `windows`.
fn inside(sample: &[u64], windows: [Window; 2]) -> usize {
    sample
        .iter()
        .filter(|&&duration| windows.iter().any(|window| (window.low..=window.high).contains(&duration)))
        .count()
}

/// Share of a sample at its median, or at 0, past which a pass keeps its durations rather
/// than coins: the comparison quotes the step between durations where over 5 % of them
/// tie so, and a sample of continuous durations ties far less than this.
const TIED_SAMPLE: f64 = 0.01;

/// Whether over [`TIED_SAMPLE`] of `sample` reads its median, or 0; reorders it.
fn tied(sample: &mut [u64]) -> bool {
    if sample.is_empty() {
        return false;
    }
    let at = (sample.len() - 1) / 2;
    let median = *sample.select_nth_unstable(at).1;
    let (zeros, at_median) =
        sample.iter().fold((0, 0), |(zeros, at), &v| (zeros + usize::from(v == 0), at + usize::from(v == median)));
    let limit = TIED_SAMPLE * sample.len() as f64;
    zeros as f64 > limit || at_median as f64 > limit
}

/// The values of rank `ranks` (where given) in `values` sorted, `values` reordered:
/// each selected among those above the last, ranks in ascending order, which reads the
/// sample about a third as often as sorting it does.
fn values_at_ranks<const N: usize>(values: &mut [u64], ranks: [Option<usize>; N]) -> [Option<u64>; N] {
    let mut order: Vec<(usize, usize)> =
        ranks.iter().enumerate().filter_map(|(at, rank)| rank.map(|rank| (rank, at))).collect();
    order.sort_unstable();
    let mut found = [None; N];
    // Ranks below `from` are in `values[..from]`, those from it on in the rest.
    let mut from = 0;
    for (rank, at) in order {
        if rank >= values.len() {
            continue;
        }
        let value = if rank < from {
            // The same rank as the one before: already in place.
            values[rank]
        } else {
            *values[from..].select_nth_unstable(rank - from).1
        };
        found[at] = Some(value);
        from = rank + 1;
    }
    found
}

/// Sampled frames read alone held at most before they are handed to the rows
/// ([`HeldFrames`]): a few dozen KiB.
const SAMPLE_HELD: usize = 64;

/// Hands the sampled frames `held` holds to `samples`, row by row.
fn hand_over(held: &mut HeldFrames, samples: &mut SampleRows) {
    held.drain(|slot, column| samples.row(slot as usize).extend(column.map(|&duration| u64::from(duration))));
}

/// A sample's durations, per row (slot).
#[derive(Debug)]
struct SampleRows {
    rows: Vec<Vec<u64>>,
    room: usize,
}

impl SampleRows {
    /// `rows` empty rows, each made room for `room` durations (a frame's one span of a
    /// pass in each of `room` sampled frames) as its first arrives, unless rows are so
    /// many that the room would pass [`MOST_SAMPLE_ROOM`]. Rows no sampled frame has take
    /// nothing (a capture's keys are often twice the passes a frame has), and none is
    /// doubled past what it samples: grown by doubling, the inspector's sample of a
    /// 95 MB capture held 12.8 MB for 6.6 MB of durations.
    fn new(rows: usize, room: usize) -> Self {
        let room = if rows.saturating_mul(room) <= MOST_SAMPLE_ROOM { room } else { 0 };
        Self { rows: vec![Vec::new(); rows], room }
    }

    fn row(&mut self, slot: usize) -> &mut Vec<u64> {
        let row = &mut self.rows[slot];
        if row.capacity() == 0 {
            row.reserve_exact(self.room);
        }
        row
    }
}

/// The topologies of a range, their slot tables and the rows' keys: shared by the chunks,
/// so slot `i` is the same row in each of them.
#[derive(Debug)]
struct Plan<'c, 'a> {
    capture: &'c Capture<'a>,
    range: Range<usize>,
    chunks: Vec<Range<usize>>,
    tables: Tables,
    keys: Vec<Key>,
    windows: Vec<[Window; 2]>,
    frame_timing: bool,
    samples: bool,
    coins: bool,
    /// With coins, per slot, whether its sample reads so many ties (quantized timestamps)
    /// that the comparison will quote the step between its durations: such a pass keeps
    /// them. Empty without a sample.
    tied: Vec<bool>,
    /// Per slot, how many of its durations a frame puts in its windows, as its sample
    /// read: the room each chunk makes for what it keeps. Empty without a sample.
    kept_per_frame: Vec<f64>,
}

/// Each topology's slot table: shared by the chunks, and by whoever scans pieces of the
/// range elsewhere, so slot `i` is the same row in each of them.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Tables {
    /// Per topology id: index into `tables`, or `None` when the topology was lost.
    of: HashMap<TopologyId, Option<usize>>,
    /// Per topology: for GPU pass `p` and span kind `k`, the slot at `2 p + k`.
    tables: Vec<Vec<u32>>,
}

impl Tables {
    /// Which table topology `id` uses; `None` when it was lost.
    fn index(&self, id: TopologyId) -> Option<usize> {
        self.of.get(&id).copied().flatten()
    }

    /// Topology `id`'s table; `None` when it was lost.
    fn of(&self, id: TopologyId) -> Option<&[u32]> {
        self.index(id).map(|table| self.tables[table].as_slice())
    }
}

/// Where a chunk reads its frames: the capture, or a piece of its bytes.
trait FrameSource {
    fn entry(&self, index: usize) -> &FrameEntry;
    fn open_frame(&self, index: usize) -> Result<OpenFrame<'_>, Defect>;
    fn for_each_span(&self, index: usize, each: impl FnMut(Span)) -> Result<(), Defect>;
    fn frame_into(&self, index: usize, frame: &mut Frame) -> Result<(), Defect>;
}

impl FrameSource for Capture<'_> {
    fn entry(&self, index: usize) -> &FrameEntry {
        &self.frames()[index]
    }

    fn open_frame(&self, index: usize) -> Result<OpenFrame<'_>, Defect> {
        Capture::open_frame(self, index)
    }

    fn for_each_span(&self, index: usize, each: impl FnMut(Span)) -> Result<(), Defect> {
        Capture::for_each_span(self, index, each)
    }

    fn frame_into(&self, index: usize, frame: &mut Frame) -> Result<(), Defect> {
        Capture::frame_into(self, index, frame)
    }
}

impl FrameSource for FramePiece<'_> {
    fn entry(&self, index: usize) -> &FrameEntry {
        FramePiece::entry(self, index).expect("a piece is scanned over its own frames")
    }

    fn open_frame(&self, index: usize) -> Result<OpenFrame<'_>, Defect> {
        FramePiece::open_frame(self, index)
    }

    fn for_each_span(&self, index: usize, each: impl FnMut(Span)) -> Result<(), Defect> {
        FramePiece::for_each_span(self, index, each)
    }

    fn frame_into(&self, index: usize, frame: &mut Frame) -> Result<(), Defect> {
        FramePiece::frame_into(self, index, frame)
    }
}

/// Where span `span` falls in a slot table.
fn table_at(span: &Span) -> usize {
    (span.pass as usize).wrapping_mul(2) | span.kind as usize
}

impl<'c, 'a> Plan<'c, 'a> {
    /// The plan, its sample read and its windows placed as `T` runs parts.
    fn new<T: Threads>(capture: &'c Capture<'a>, frames: Range<usize>, chunks: usize, options: &ScanOptions) -> Self {
        let (mut plan, stride) = Self::layout(capture, frames, chunks, options);
        let samples = stride.map(|stride| {
            // Each half of the sampled frames read apart, then side by side per row: the
            // windows select ranks in each row's sample, so its order cannot matter.
            let frames: Vec<usize> = plan.range.clone().step_by(stride).collect();
            let (first, second) = frames.split_at(frames.len() / 2);
            // The first half's rows have room for the second's, which join them.
            let (mut samples, later) =
                T::join(|| plan.sample(first, frames.len()), || plan.sample(second, second.len()));
            for (sample, later) in samples.iter_mut().zip(later) {
                sample.extend(later);
            }
            // The bandwidth is widest for the fewest durations: half the sample's estimate
            // of the row's count is a margin no row falls below.
            let (with_samples, coins, sampled) = (plan.samples, plan.coins, frames.len() as f64);
            T::map(samples, move |mut sample| {
                let around = if with_samples { bandwidth((sample.len() * stride / 2).max(1)) } else { 0.0 };
                let tied = coins && tied(&mut sample);
                let windows = windows(&mut sample, around);
                (windows, tied, inside(&sample, windows) as f64 / sampled)
            })
        });
        match samples {
            Some(placed) => {
                for (windows, tied, kept) in placed {
                    plan.windows.push(windows);
                    plan.tied.push(tied);
                    plan.kept_per_frame.push(kept);
                }
            }
            None => plan.place_windows(None),
        }
        plan
    }

    /// The plan without its windows (one walk of the range's index), and the stride of
    /// the sample that places them, if one is needed: see [`Plan::place_windows`].
    fn layout(
        capture: &'c Capture<'a>,
        frames: Range<usize>,
        chunks: usize,
        options: &ScanOptions,
    ) -> (Self, Option<usize>) {
        let end = frames.end.min(capture.frames().len());
        let range = frames.start.min(end)..end;
        let chunks = chunks.clamp(1, range.len().max(1));
        let len = range.len();
        let mut plan = Self {
            capture,
            range: range.clone(),
            chunks: (0..chunks)
                .map(|at| range.start + len * at / chunks..range.start + len * (at + 1) / chunks)
                .collect(),
            tables: Tables::default(),
            keys: Vec::new(),
            windows: Vec::new(),
            frame_timing: options.frame_timing,
            samples: options.samples,
            coins: options.samples && options.coins,
            tied: Vec::new(),
            kept_per_frame: Vec::new(),
        };
        let entries = &capture.frames()[range.clone()];
        let mut slot_of: HashMap<Key, u32> = HashMap::new();
        // The topologies met so far, checked in a line while they are few: frames that
        // alternate between two topologies would otherwise hash every entry's (a third of
        // this walk's time on eight hours of frames).
        let mut met: Vec<TopologyId> = Vec::new();
        let mut last = None;
        for entry in entries {
            if last == Some(entry.topology) {
                continue;
            }
            last = Some(entry.topology);
            let known = if met.len() <= FEW_TOPOLOGIES {
                met.contains(&entry.topology)
            } else {
                plan.tables.of.contains_key(&entry.topology)
            };
            if known {
                continue;
            }
            met.push(entry.topology);
            let table = capture.topology(entry.topology).map(|topology| {
                let mut table = Vec::with_capacity(topology.gpu_passes.len() * 2);
                for pass in &topology.gpu_passes {
                    for span_kind in [SpanKind::Pass, SpanKind::SubPass] {
                        let key = pass_key(topology, pass, span_kind);
                        let next = plan.keys.len() as u32;
                        table.push(*slot_of.entry(key).or_insert_with_key(|key| {
                            plan.keys.push(key.clone());
                            next
                        }));
                    }
                }
                plan.tables.tables.push(table);
                plan.tables.tables.len() - 1
            });
            plan.tables.of.insert(entry.topology, table);
        }
        let stride = match options.windows {
            Windows::Auto => {
                let spans: u64 = entries.iter().map(|entry| u64::from(entry.span_count)).sum();
                let stride = (len / SAMPLE_FRAMES).max(MIN_STRIDE);
                (spans > KEEP_ALL_SPANS && len >= 2 * stride).then_some(stride)
            }
            Windows::All => None,
            Windows::SampleEvery(stride) => Some(stride.max(1)),
        };
        (plan, stride)
    }

    /// Places each slot's windows from its sampled durations, or around everything
    /// without a sample; for a scan without the comparison's samples (`ScanJob`'s).
    fn place_windows(&mut self, samples: Option<Vec<Vec<u64>>>) {
        self.windows = match samples {
            Some(samples) => samples.into_iter().map(|mut sample| windows(&mut sample, 0.0)).collect(),
            None => vec![[ALL, EMPTY]; self.keys.len()],
        };
    }

    /// The slot table of the topology frame `index` names; `None` when it was lost.
    fn table(&self, index: usize) -> Option<&[u32]> {
        self.tables.of(self.capture.frames()[index].topology)
    }

    /// The durations of `frames`, per slot, of those the statistics would analyse; each
    /// slot's made room for `room` of them (a frame's one span of a pass), grown past it
    /// only for more.
    fn sample(&self, frames: &[usize], room: usize) -> Vec<Vec<u64>> {
        let mut samples = SampleRows::new(self.keys.len(), room);
        let (mut spans, mut held) = (Vec::new(), HeldFrames::default());
        for &index in frames {
            self.sample_one(index, &mut held, &mut samples, &mut spans);
        }
        hand_over(&mut held, &mut samples);
        samples.rows
    }

    /// Adds frame `index`'s durations to `samples`: read alone into `held` where it can
    /// be ([`Self::sample_durations`]), else decoded whole into `spans`
    /// ([`Self::sample_frame`]). What `held` keeps reaches `samples` through [`hand_over`].
    pub(super) fn sample_one(
        &self,
        index: usize,
        held: &mut HeldFrames,
        samples: &mut SampleRows,
        spans: &mut Vec<Span>,
    ) {
        if !self.sample_durations(index, held, samples) {
            self.sample_frame(index, samples, spans);
        }
    }

    /// [`Self::sample_frame`] for a frame whose spans are passes 0, 1, 2, … in turn
    /// (see [`spans::durations_two`]), its durations read alone into `held`; `false`,
    /// having added nothing, for any other frame, or one that may be skipped, have a
    /// duration over 32 bits or a span that wrapped, for `sample_frame` to add or skip.
    fn sample_durations(&self, index: usize, held: &mut HeldFrames, samples: &mut SampleRows) -> bool {
        let topology = self.capture.frames()[index].topology;
        let Some(table) = self.tables.of(topology) else { return false };
        let Ok(open) = self.capture.open_frame(index) else { return false };
        if !reads_alone(&open, table) {
            return false;
        }
        let count = open.spans.len();
        let signed = !open.spans.passes_in_order();
        if !held.joins(topology, count, SAMPLE_HELD) {
            hand_over(held, samples);
        }
        held.hold((topology, table, count), index, |durations| {
            spans::durations(open.spans, durations)
                .is_some_and(|column| column.high == 0 && !column.may_wrap(count, signed))
        })
    }

    /// Adds frame `index`'s durations to `samples`, by slot, unless the frame would be
    /// skipped; `spans` is room to decode in.
    fn sample_frame(&self, index: usize, samples: &mut SampleRows, spans: &mut Vec<Span>) {
        let Some(table) = self.table(index) else { return };
        spans.clear();
        if self.capture.for_each_span(index, |span| spans.push(span)).is_err()
            || spans.iter().any(|span| table_at(span) >= table.len())
        {
            return;
        }
        for span in spans.iter() {
            samples.row(table[table_at(span)] as usize).push(span.duration_ns());
        }
    }

    /// With samples, per slot, a series for the whole range to be written in place by the
    /// chunks (see [`ChunkSamples`]), for each pass with exactly one span in the first frame
    /// of every chunk: a guess, which costs a copy where it is wrong and changes nothing.
    /// Sized beforehand, so the series is not copied as it grows either.
    fn in_place_series(&self) -> Vec<Option<RangeSeries>> {
        let len = self.range.len();
        self.in_place_kinds().into_iter().map(|kind| kind.map(|kind| RangeSeries::new(kind, len))).collect()
    }

    /// What [`Self::in_place_series`] holds per slot, if anything: codes for a pass with
    /// coins, else durations. One frame decoded a chunk.
    fn in_place_kinds(&self) -> Vec<Option<SeriesKind>> {
        let coined = |slot: usize| self.coins && !self.tied.get(slot).copied().unwrap_or(false);
        if !self.samples {
            return Vec::new();
        }
        let mut spans = vec![0u32; self.keys.len()];
        for chunk in self.chunks.iter().filter(|chunk| !chunk.is_empty()) {
            let mut seen = vec![0u32; self.keys.len()];
            let Some(table) = self.table(chunk.start) else { return Vec::new() };
            let decoded = self.capture.for_each_span(chunk.start, |span| {
                if let Some(&slot) = table.get(table_at(&span)) {
                    seen[slot as usize] += 1;
                }
            });
            if decoded.is_err() {
                return Vec::new();
            }
            for (spans, seen) in spans.iter_mut().zip(&seen) {
                *spans = if *seen == 1 && *spans != u32::MAX { *spans + 1 } else { u32::MAX };
            }
        }
        let chunks = self.chunks.iter().filter(|chunk| !chunk.is_empty()).count() as u32;
        let kind = |slot| if coined(slot) { SeriesKind::Codes } else { SeriesKind::Durations };
        spans.into_iter().enumerate().map(|(slot, spans)| (spans == chunks && chunks > 0).then(|| kind(slot))).collect()
    }

    /// Per chunk, its part of each series of `in_place`, by slot.
    fn split<'b>(&self, in_place: &'b mut [Option<RangeSeries>]) -> Vec<Vec<Option<Part<'b>>>> {
        let mut parts: Vec<Vec<Option<Part<'b>>>> =
            self.chunks.iter().map(|_| Vec::with_capacity(in_place.len())).collect();
        for series in in_place.iter_mut() {
            match series {
                Some(series) => {
                    let own = series.split(self.chunks.iter().map(ExactSizeIterator::len));
                    for (part, own) in parts.iter_mut().zip(own) {
                        part.push(Some(own));
                    }
                }
                None => parts.iter_mut().for_each(|part| part.push(None)),
            }
        }
        parts
    }

    /// Accumulates chunk `at`; `in_place` holds its part of each series written in place.
    fn run(&self, at: usize, in_place: Vec<Option<Part<'_>>>, progress: &(dyn Fn(u64) + Sync)) -> Chunk<'c, 'a> {
        let mut run = self.start(at, in_place);
        let chunk = self.chunks[at].clone();
        for start in chunk.clone().step_by(PROGRESS_EVERY) {
            let block = start..(start + PROGRESS_EVERY).min(chunk.end);
            isa::fastest(
                #[inline(always)]
                || run.add_frames(self.capture, &self.tables, block.clone()),
            );
            progress(block.len() as u64);
        }
        run.seal()
    }

    /// Chunk `at`, before its first frame; `in_place` holds its part of each series
    /// written in place.
    fn start<'b>(&self, at: usize, in_place: Vec<Option<Part<'b>>>) -> ChunkRun<'c, 'a, 'b> {
        let frames = self.chunks[at].len();
        let mut chunk = Chunk::new(
            &self.windows,
            self.frame_timing.then(|| FrameTimingAccumulator::for_chunk(self.capture, frames)),
        );
        for (slot, rate) in chunk.slots.iter_mut().zip(&self.kept_per_frame) {
            slot.kept.make_room((rate * frames as f64 * KEPT_ROOM_FACTOR).ceil() as usize);
        }
        ChunkRun {
            chunk,
            samples: self.samples.then(|| {
                ChunkSamples::new(self.keys.len(), frames, in_place, |slot| median_window(&self.windows, slot))
            }),
            frame: Frame::default(),
            spans: Vec::new(),
            last: None,
            two: Default::default(),
        }
    }

    /// Per slot, `(frame index, graph pass index)` of the first frame of each topology
    /// holding it: where the samples look whether a pass that never ran was culled.
    fn probes(&self) -> Vec<Vec<(usize, usize)>> {
        let mut probes = vec![Vec::new(); self.keys.len()];
        let mut seen = HashMap::new();
        let mut last = None;
        for index in self.range.clone() {
            let id = self.capture.frames()[index].topology;
            // Frames mostly share the one before's topology: a run of them is one look.
            if last.replace(id) == Some(id) || seen.insert(id, ()).is_some() {
                continue;
            }
            let (Some(topology), Some(table)) = (self.capture.topology(id), self.table(index)) else { continue };
            for (at, pass) in topology.gpu_passes.iter().enumerate() {
                if let Some(graph) = pass.graph_pass {
                    for slot in &table[2 * at..2 * at + 2] {
                        probes[*slot as usize].push((index, graph as usize));
                    }
                }
            }
        }
        probes
    }

    /// Merges the chunks, in order, into the report, the parts that do not depend on each
    /// other run as `T` runs them; each row's median and p95 selected here, or `selected`
    /// already (its figures `None` where a rank fell outside its windows). The samples are
    /// `parts`, then the chunks' own, in order.
    fn finish<T: Threads>(
        self,
        chunks: Vec<Chunk<'c, 'a>>,
        parts: Vec<ChunkPart>,
        in_place: Vec<Option<RangeSeries>>,
        selected: Option<Vec<Selected>>,
    ) -> Scan {
        let mut report = StatsReport::default();
        let mut samples = parts;
        let mut timings = Vec::new();
        let mut rows: Vec<Vec<SlotAcc>> = Vec::new();
        let mut range: Option<Range<usize>> = None;
        for chunk in chunks {
            report.frames += chunk.frames;
            report.dropped_spans += chunk.dropped_spans;
            report.inverted_spans += chunk.inverted_spans;
            report.defects.extend(chunk.defects);
            range = match (range, chunk.range) {
                (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
                (a, b) => a.or(b),
            };
            samples.extend(chunk.samples);
            timings.extend(chunk.timing);
            // Each row's parts side by side, one per chunk in order.
            rows.resize_with(chunk.slots.len(), Vec::new);
            for (row, part) in rows.iter_mut().zip(chunk.slots) {
                row.push(part);
            }
        }
        report.range = range.unwrap_or(0..0);
        let probes = self.samples.then(|| self.probes());
        let (capture, frame_timing, with_samples, coins) = (self.capture, self.frame_timing, self.samples, self.coins);
        let keys = self.keys.clone();
        let ((timing, mut samples), rows) = T::join(
            move || {
                let timing = frame_timing.then(|| {
                    let mut timing = FrameTimingAccumulator::new(capture);
                    timings.into_iter().for_each(|later| timing.merge(later));
                    timing.finish()
                });
                let samples = probes.and_then(|probes| ChunkPart::finish(capture, samples, in_place, keys, &probes));
                (timing, samples)
            },
            move || match selected {
                Some(selected) => rows.into_iter().map(merged).zip(selected).collect::<Vec<_>>(),
                None => T::map(rows, |parts| {
                    let mut row = merged(parts);
                    let selected = Selected::of(&mut row, with_samples, coins);
                    (row, selected)
                }),
            },
        );
        if rows.iter().any(|(row, selected)| row.count > 0 && selected.figures.is_none()) {
            // A rank outside its window: the sample misled. The two-pass figures are exact;
            // coins need the median inside its window.
            let samples = samples.filter(|_| !coins);
            return Scan { stats: pass_stats(self.capture, self.range), timing, reread: true, samples };
        }
        if let Some(passes) = samples.as_mut().map(|samples| &mut samples.passes) {
            // Each pass of codes with what turns them into coins: the figures the comparison
            // reads and each duration inside the window; passes side by side.
            let coined: Vec<_> = passes
                .iter_mut()
                .zip(&rows)
                .filter_map(|(pass, (_, selected))| {
                    pass.known = selected.known;
                    pass.series.coins()?;
                    Some((&mut pass.series, selected))
                })
                .collect();
            let coined = T::map(coined, |(series, selected)| {
                let Durations::Coins { coins: codes, .. } = &mut series.values else { return false };
                let spans = match &selected.coins {
                    Coining::Spans(spans) => *spans,
                    Coining::Inside(_) => selected.coin(codes),
                    Coining::NotAsked => None,
                };
                spans.inspect(|&spans| series.coined(spans)).is_some()
            });
            if !coined.into_iter().all(|complete| complete) {
                samples = None;
            }
        }
        for ((row, selected), key) in rows.iter().zip(self.keys) {
            let Some([median_ns, p95_ns]) = selected.figures.filter(|_| row.count > 0) else { continue };
            report.spans += row.count;
            report.zero_spans += row.zero_count;
            let (graph_pass, label, kind, span_kind) = key;
            let total_ns = u64::try_from(row.total).unwrap_or(u64::MAX);
            report.passes.push(PassStats {
                label,
                graph_pass,
                kind,
                span_kind,
                count: row.count,
                zero_count: row.zero_count,
                frames_present: row.frames_present,
                min_ns: row.min,
                median_ns,
                p95_ns,
                max_ns: row.max,
                mean_ns: PassStats::mean_of(total_ns, row.count),
                total_ns,
            });
        }
        sort_passes(&mut report.passes);
        Scan { stats: report, timing, reread: false, samples }
    }
}

/// A row's figures once selected, and what the comparison's samples take of it.
#[derive(Debug)]
struct Selected {
    /// The median and p95; `None` where either fell outside its window.
    figures: Option<[u64; 2]>,
    /// With the samples, the order statistics the comparison reads, where the windows hold them.
    known: Option<KnownOrder>,
    coins: Coining,
}

/// How far a row's codes are on their way to coins.
#[derive(Debug)]
enum Coining {
    /// A scan without coins.
    NotAsked,
    /// The durations in the median's window, in frame order, that the codes inside it need.
    Inside(Inside),
    /// Turned already: the spans the coins hold, `None` where they could not be.
    Spans(Option<usize>),
}

impl Selected {
    /// Selects `row`'s figures: with the comparison's samples, the order statistics beside
    /// them, and with coins the durations in the median's window, taken from the row.
    fn of(row: &mut SlotAcc, with_samples: bool, coins: bool) -> Self {
        let (figures, known) = if with_samples {
            row.order_and_known().map_or((None, None), |(figures, known)| (Some(figures), known))
        } else {
            (row.order(), None)
        };
        // The selection leaves the kept durations in frame order, which the coins need.
        let coins = if coins { Coining::Inside(row.take_median_window()) } else { Coining::NotAsked };
        Self { figures, known, coins }
    }

    /// Turns the row's `codes` into coins, and says how many spans they hold: `None` where
    /// the median is not inside its window or the durations inside it do not match. (The
    /// codes tell a frame's coin only against a median inside their window, and a row
    /// hands over its order statistics only for such a median: `order_and_known`.)
    fn coin(&self, codes: &mut [u8]) -> Option<usize> {
        match (&self.coins, self.known, self.figures) {
            (Coining::Inside(inside), Some(_), Some([median, _])) => {
                isa::fastest(|| codes_to_coins(codes, inside, median))
            }
            _ => None,
        }
    }
}

/// Slot `slot`'s median window as the samples' codes take it: everything, without one.
fn median_window(windows: &[[Window; 2]], slot: usize) -> [u64; 2] {
    windows.get(slot).map_or([0, u64::MAX], |[median, _]| [median.low, median.high])
}

/// A row's parts merged in order, the first one's room grown once for the others' kept
/// durations.
fn merged(parts: Vec<SlotAcc>) -> SlotAcc {
    let later: usize = parts.iter().skip(1).map(|part| part.kept.len()).sum();
    let mut parts = parts.into_iter();
    let mut row = parts.next().expect("a row has a part in every chunk, and there is a chunk");
    if row.kept.len() > 0 {
        row.kept.reserve_exact(later);
    }
    parts.for_each(|part| row.merge(part));
    row
}

/// The defect of a frame whose topology was lost.
fn lost(entry: &FrameEntry) -> Defect {
    Defect::new(
        DefectKind::MissingReference,
        entry.offset,
        format!("frame {} uses topology {}, which was lost; skipped", entry.frame_number, entry.topology),
    )
}

/// A chunk under way: its figures so far, and the room its frames are decoded in.
#[derive(Debug)]
struct ChunkRun<'c, 'a, 'b> {
    chunk: Chunk<'c, 'a>,
    samples: Option<ChunkSamples<'b>>,
    frame: Frame,
    spans: Vec<Span>,
    /// The last frame's topology and its table: frames mostly share their topology with
    /// the one before, so a run of them costs one lookup.
    last: Option<(TopologyId, Option<usize>)>,
    /// Two frames decoded at once, before they are added: see [`ChunkRun::add_frames`].
    two: [Decoded; 2],
}

/// A frame's spans decoded for the statistics, held until the whole frame has decoded:
/// a frame that fails anywhere is added by [`ChunkRun::add_frame`] instead, which names
/// its defect, so nothing is added twice or from half a frame.
#[derive(Debug, Default)]
struct Decoded {
    /// Per span, its slot and duration (in 32 bits, as the shapes' lanes read it).
    slots: Vec<u32>,
    durations: Vec<u32>,
    /// Whether a span named a GPU pass beyond the topology's.
    beyond: bool,
    /// Spans that ended before they began, read one at a time ([`Decoded::push`]): frames
    /// read as durations alone hold none (a section with one stores a duration below zero,
    /// or reaches near enough to `u64::MAX` that [`spans::DurationColumn::may_wrap`] sends it
    /// the general way).
    inverted: u64,
    /// The durations' bits above the low 32, or-ed: a frame with any (a span over 4.3 s,
    /// never in a real frame) is added one at a time instead.
    high: u64,
    /// With frame timing: the walk over the spans, and what follows them in the frame.
    walk: SpanWalk,
    frame: Frame,
    /// With frame timing of spans stored in order ([`Timing::InOrder`]): the first begin,
    /// the last end, and whether a span came before the end of the one before or ended
    /// before it began after all (a sum wrapped past `u64::MAX`).
    first: u64,
    last_end: u64,
    out_of_order: bool,
    /// What `slots` holds when it was filled by [`Decoded::fill_slots`]: the slots of
    /// passes 0, 1, 2, … in the table numbered `.0`, `.1` spans long. The same for every
    /// frame of one topology and length, so it is filled once for a run of them.
    shape: Option<(usize, usize)>,
}

/// What frame timing takes from a decoded frame's spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Timing {
    /// Nothing: frame timing is not asked for.
    Off,
    /// Each span, through [`SpanWalk::add`].
    Walk,
    /// Spans that come in order and never overlap ([`spans::SpanStream::passes_in_order`]):
    /// only the first begin and the last end, and a check that they did come in order.
    /// The rest of the walk follows from the durations, summed after the frame, which
    /// keeps the walk's chain of steps out of the decode's loop.
    InOrder,
}

impl Decoded {
    /// Ready for a frame of `spans` spans; `slots` is left for the way the frame is read
    /// to fill ([`Self::forget_shape`] or [`Self::fill_slots`]).
    fn reset(&mut self, spans: usize) {
        self.durations.clear();
        self.durations.reserve(spans);
        self.beyond = false;
        self.inverted = 0;
        self.high = 0;
        self.walk = SpanWalk::default();
        self.first = u64::MAX;
        self.last_end = 0;
        self.out_of_order = false;
    }

    #[inline(always)]
    fn push(&mut self, table: &[u32], span: &Span, timing: Timing) {
        match table.get(table_at(span)) {
            Some(&slot) => {
                let duration = span.duration_ns();
                self.slots.push(slot);
                self.durations.push(duration as u32);
                self.high |= duration >> 32;
            }
            None => self.beyond = true,
        }
        self.inverted += u64::from(span.end_ns < span.begin_ns);
        match timing {
            Timing::Off => {}
            Timing::Walk => self.walk.add(span),
            Timing::InOrder => {
                self.out_of_order |= (span.begin_ns < self.last_end) | (span.end_ns < span.begin_ns);
                self.first = self.first.min(span.begin_ns);
                self.last_end = span.end_ns;
            }
        }
    }

    /// Empties `slots` for [`Self::push`] to fill a span at a time.
    fn forget_shape(&mut self) {
        self.slots.clear();
        self.shape = None;
    }

    /// The durations' sum and how many are 0.
    #[inline(always)]
    fn duration_sums(&self) -> (u64, u64) {
        let (mut total, mut zeros) = (0u64, 0u64);
        for &duration in &self.durations {
            total += u64::from(duration);
            zeros += u64::from(duration == 0);
        }
        (total, zeros)
    }

    /// The walk over spans pushed in [`Timing::InOrder`], once the frame has decoded
    /// whole: exact where they all came in order and every duration fit 32 bits (else
    /// the frame is added the general way, and this is not read).
    fn walk_in_order(&mut self) {
        let (total, zeros) = self.duration_sums();
        self.walk = SpanWalk::in_order(self.durations.len(), self.first, self.last_end, total, zeros);
        self.walk.sorted = !self.out_of_order;
    }

    /// `slots` for a frame read by [`spans::durations_two`], of `count` spans, from
    /// `table` (numbered `.0`): see [`pass_slots`]. Where the table has too few, the frame
    /// names a pass beyond its topology's: a defect, which the general way names.
    fn fill_slots(&mut self, (number, table): (usize, &[u32]), count: usize) {
        if self.shape != Some((number, count)) {
            self.slots.clear();
            self.slots.extend(pass_slots(table, count));
            self.shape = Some((number, count));
        }
        self.beyond = self.slots.len() < count;
    }

    /// The walk over spans read by [`spans::durations_two`] whose gaps are unsigned
    /// ([`spans::SpanStream::passes_in_order`]), from where `column` says they lie.
    #[inline(always)]
    fn walk_columns(&mut self, column: &spans::DurationColumn) {
        // Each span begins where the one before ended plus its gap: in order unless the
        // sum from the epoch passed `u64::MAX` somewhere, which its total then shows.
        let (total, zeros) = self.duration_sums();
        let end = u128::from(column.epoch) + column.gaps + u128::from(total);
        let first = column.epoch.wrapping_add(column.first_gap);
        self.walk = SpanWalk::in_order(self.durations.len(), first, end as u64, total, zeros);
        self.walk.sorted = end <= u128::from(u64::MAX);
    }
}

impl<'c, 'a> ChunkRun<'c, 'a, 'static> {
    /// A chunk of statistics alone (no frame timing, no samples), its rows' windows `windows`.
    fn stats_only(windows: &[[Window; 2]]) -> Self {
        ChunkRun {
            chunk: Chunk::new(windows, None),
            samples: None,
            frame: Frame::default(),
            spans: Vec::new(),
            last: None,
            two: Default::default(),
        }
    }

    /// A piece of `frames` frames scanned apart from the others (by a worker, or a step
    /// at a time): its statistics, and with `in_place` (per slot, what the range's series
    /// written in place holds) its samples, its parts of those series its own.
    fn piece(windows: &[[Window; 2]], in_place: Option<&[Option<SeriesKind>]>, frames: usize) -> Self {
        let mut run = Self::stats_only(windows);
        run.samples = in_place.map(|kinds| {
            let parts = kinds.iter().map(|kind| kind.map(|kind| Part::owned(kind, frames))).collect();
            ChunkSamples::new(windows.len(), frames, parts, |slot| median_window(windows, slot))
        });
        run
    }
}

impl<'c, 'a> ChunkRun<'c, 'a, '_> {
    /// Adds frames `frames` of `source`, in order, their slots from `tables`: two at a
    /// time, each pair's spans decoded at once (see `spans::decode_two`).
    #[inline(always)]
    fn add_frames(&mut self, source: &impl FrameSource, tables: &Tables, frames: Range<usize>) {
        let mut index = frames.start;
        while index + 1 < frames.end {
            if !self.add_two(source, tables, index) {
                self.add_frame(source, tables, index);
                self.add_frame(source, tables, index + 1);
            }
            index += 2;
        }
        if index < frames.end {
            self.add_frame(source, tables, index);
        }
    }

    /// Adds frames `first` and `first + 1`, their spans decoded at once, and says so; or,
    /// where either frame fails anywhere (or its spans came out of order, which frame
    /// timing needs kept), adds nothing and says no.
    ///
    /// In wasm it is a function of its own. V8 runs a function on its baseline code until
    /// its optimizing compiler has compiled it, and switches at the function's next call:
    /// called once a pair, this runs optimized within the first pieces, where inlined into
    /// a piece's scan it ran on baseline code until that larger function was compiled and
    /// the next piece began (a first scan of the hour-long capture in Node: 851 ms where it
    /// took 1,066, median of 5; as fast as before once compiled).
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    fn add_two(&mut self, source: &impl FrameSource, tables: &Tables, first: usize) -> bool {
        let (Some(table_a), Some(table_b)) =
            (self.numbered_table(source, tables, first), self.numbered_table(source, tables, first + 1))
        else {
            return false;
        };
        let (Ok(mut open_a), Ok(mut open_b)) = (source.open_frame(first), source.open_frame(first + 1)) else {
            return false;
        };
        let timing = self.chunk.timing.is_some();
        let [decoded_a, decoded_b] = &mut self.two;
        for (open, decoded) in [(&mut open_a, &mut *decoded_a), (&mut open_b, &mut *decoded_b)] {
            decoded.reset(open.spans.len());
            if timing {
                let frame = &mut decoded.frame;
                frame.recorder_cost_ns = open.summary.recorder_cost_ns;
                if frame::decode_tail(&mut open.tail, frame).is_err() {
                    return false;
                }
            }
        }
        // Durations alone where both frames allow it (nearly every frame of a long
        // capture), else every span, two streams at once.
        let columns = |open: &OpenFrame<'_>| open.spans.durations_alone() && (!timing || open.spans.passes_in_order());
        if columns(&open_a) && columns(&open_b) {
            let (count_a, count_b) = (open_a.spans.len(), open_b.spans.len());
            // Read as durations alone, a section stores its gaps signed exactly where its
            // spans are not in order.
            let (signed_a, signed_b) = (!open_a.spans.passes_in_order(), !open_b.spans.passes_in_order());
            decoded_a.fill_slots(table_a, count_a);
            decoded_b.fill_slots(table_b, count_b);
            let Some([column_a, column_b]) =
                spans::durations_two(open_a.spans, open_b.spans, &mut decoded_a.durations, &mut decoded_b.durations)
            else {
                return false;
            };
            if column_a.may_wrap(count_a, signed_a) || column_b.may_wrap(count_b, signed_b) {
                return false;
            }
            if timing {
                decoded_a.walk_columns(&column_a);
                decoded_b.walk_columns(&column_b);
            }
            decoded_a.high = column_a.high;
            decoded_b.high = column_b.high;
        } else {
            let mode = |open: &OpenFrame<'_>| match (timing, open.spans.passes_in_order()) {
                (false, _) => Timing::Off,
                (true, false) => Timing::Walk,
                (true, true) => Timing::InOrder,
            };
            let (timing_a, timing_b) = (mode(&open_a), mode(&open_b));
            decoded_a.forget_shape();
            decoded_b.forget_shape();
            let decoded = spans::decode_two(
                open_a.spans,
                open_b.spans,
                |span| decoded_a.push(table_a.1, &span, timing_a),
                |span| decoded_b.push(table_b.1, &span, timing_b),
            );
            if decoded.iter().any(Result::is_err) {
                return false;
            }
            for (decoded, timing) in [(&mut *decoded_a, timing_a), (&mut *decoded_b, timing_b)] {
                if timing == Timing::InOrder {
                    decoded.walk_in_order();
                }
            }
        }
        let whole = |decoded: &Decoded| !decoded.beyond && decoded.high == 0 && (!timing || decoded.walk.sorted);
        if !whole(decoded_a) || !whole(decoded_b) {
            return false;
        }
        for (index, decoded) in [(first, &*decoded_a), (first + 1, &*decoded_b)] {
            if let Some(timing) = &mut self.chunk.timing {
                timing.add_walked(index, &decoded.frame, &decoded.walk);
            }
            self.chunk.add_decoded(source.entry(index), index, decoded, self.samples.as_mut());
        }
        true
    }

    /// The slot table of frame `index`'s topology; `None` when it was lost.
    #[inline]
    fn table<'t>(&mut self, source: &impl FrameSource, tables: &'t Tables, index: usize) -> Option<&'t [u32]> {
        self.numbered_table(source, tables, index).map(|(_, table)| table)
    }

    /// [`Self::table`], with its index among the tables.
    #[inline]
    fn numbered_table<'t>(
        &mut self,
        source: &impl FrameSource,
        tables: &'t Tables,
        index: usize,
    ) -> Option<(usize, &'t [u32])> {
        let topology = source.entry(index).topology;
        let table = match self.last {
            Some((last_id, table)) if last_id == topology => table,
            _ => {
                let table = tables.index(topology);
                self.last = Some((topology, table));
                table
            }
        };
        table.map(|table| (table, tables.tables[table].as_slice()))
    }

    /// Adds frame `index` of `source`, its slots from `tables`.
    #[inline]
    fn add_frame(&mut self, source: &impl FrameSource, tables: &Tables, index: usize) {
        let entry = source.entry(index);
        let table = self.table(source, tables, index);
        let decoded = match &mut self.chunk.timing {
            Some(timing) => match source.frame_into(index, &mut self.frame) {
                Ok(()) => {
                    timing.add_decoded(index, &self.frame);
                    true
                }
                Err(defect) => {
                    timing.add_defect(defect);
                    false
                }
            },
            None => false,
        };
        let chunk = &mut self.chunk;
        match table {
            // A lost topology is said before anything is decoded, as `pass_stats` says it.
            None => chunk.defect(lost(entry), self.samples.as_mut()),
            Some(table) if decoded => chunk.add(entry, index, table, &self.frame.spans, self.samples.as_mut()),
            // The whole frame did not decode, or was not asked for: its spans may still.
            Some(table) => {
                let spans = &mut self.spans;
                spans.clear();
                match source.for_each_span(index, |span| spans.push(span)) {
                    Ok(()) => chunk.add(entry, index, table, spans, self.samples.as_mut()),
                    Err(defect) => chunk.defect(defect, self.samples.as_mut()),
                }
            }
        }
    }

    /// The chunk, done.
    fn seal(mut self) -> Chunk<'c, 'a> {
        self.chunk.seal();
        self.chunk.samples = self.samples.map(ChunkSamples::seal);
        self.chunk
    }
}

/// One chunk's statistics and frame timing.
#[derive(Debug)]
struct Chunk<'c, 'a> {
    slots: Vec<SlotAcc>,
    /// Frames added by their shapes, their figures not yet in `slots` until sealed.
    shapes: Shapes,
    frames: u64,
    dropped_spans: u64,
    /// Spans of the frames analysed that ended before they began.
    inverted_spans: u64,
    defects: Vec<Defect>,
    /// From the first to past the last frame analysed.
    range: Option<Range<usize>>,
    timing: Option<FrameTimingAccumulator<'c, 'a>>,
    /// The chunk's samples, once it is done.
    samples: Option<ChunkPart>,
}

impl<'c, 'a> Chunk<'c, 'a> {
    /// A frame skipped whole, for the statistics and the samples alike.
    fn defect(&mut self, defect: Defect, samples: Option<&mut ChunkSamples<'_>>) {
        if let Some(samples) = samples {
            samples.defect(defect.clone());
        }
        self.defects.push(defect);
    }

    /// A chunk with nothing added, its rows' windows `windows`.
    fn new(windows: &[[Window; 2]], timing: Option<FrameTimingAccumulator<'c, 'a>>) -> Self {
        Chunk {
            slots: windows.iter().map(|&windows| SlotAcc::new(windows)).collect(),
            shapes: Shapes::default(),
            frames: 0,
            dropped_spans: 0,
            inverted_spans: 0,
            defects: Vec::new(),
            range: None,
            timing,
            samples: None,
        }
    }

    /// Adds a later chunk's statistics; its frame timing and samples are merged apart.
    fn merge(&mut self, later: Chunk<'_, '_>) {
        self.frames += later.frames;
        self.dropped_spans += later.dropped_spans;
        self.inverted_spans += later.inverted_spans;
        self.defects.extend(later.defects);
        self.range = match (self.range.take(), later.range) {
            (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
            (a, b) => a.or(b),
        };
        for (slot, later) in self.slots.iter_mut().zip(later.slots) {
            slot.merge(later);
        }
    }

    /// Hands the runs of frames added by their shapes to the rows, and drops the room past
    /// the kept durations, once the chunk is done.
    fn seal(&mut self) {
        self.shapes.fold(&mut self.slots);
        for acc in &mut self.slots {
            acc.kept.truncate(acc.kept_len);
        }
    }

    /// Adds frame `index`'s spans, or a defect when one names a GPU pass beyond `table`.
    fn add(
        &mut self,
        entry: &FrameEntry,
        index: usize,
        table: &[u32],
        spans: &[Span],
        samples: Option<&mut ChunkSamples<'_>>,
    ) {
        if let Some(span) = spans.iter().find(|span| table_at(span) >= table.len()) {
            if let Some(samples) = samples {
                samples.defect(unknown_pass(entry.offset, entry.frame_number, span.pass));
            }
            self.defects.push(Defect::new(
                DefectKind::Malformed,
                entry.offset,
                format!(
                    "frame {} has a span for GPU pass {}, beyond its topology's {}; skipped",
                    entry.frame_number,
                    span.pass,
                    table.len() / 2
                ),
            ));
            return;
        }
        self.inverted_spans += spans.iter().map(|span| u64::from(span.end_ns < span.begin_ns)).sum::<u64>();
        let slots = spans.iter().map(|span| (table[table_at(span)], span.duration_ns()));
        self.add_slots(entry, index, slots, samples);
    }

    /// Adds frame `index`'s spans, each as its slot and duration.
    #[inline]
    fn add_slots(
        &mut self,
        entry: &FrameEntry,
        index: usize,
        spans: impl Iterator<Item = (u32, u64)>,
        samples: Option<&mut ChunkSamples<'_>>,
    ) {
        let slots = &mut self.slots[..];
        match samples {
            Some(samples) => {
                for (slot, duration) in spans {
                    samples.push(slot as usize, duration);
                    slots[slot as usize].add(duration, index);
                }
                samples.end_frame(entry.gpu_duration_ns);
            }
            None => {
                for (slot, duration) in spans {
                    slots[slot as usize].add(duration, index);
                }
            }
        }
        self.counted(entry, index);
    }

    /// Adds frame `index`, decoded whole: to the statistics by its shape where it can go
    /// that way (see `shapes`), else span by span; to the samples a frame at a time.
    #[inline(always)]
    fn add_decoded(
        &mut self,
        entry: &FrameEntry,
        index: usize,
        decoded: &Decoded,
        samples: Option<&mut ChunkSamples<'_>>,
    ) {
        if let Some(samples) = samples {
            samples.push_frame(&decoded.slots, &decoded.durations, entry.gpu_duration_ns);
        }
        self.inverted_spans += decoded.inverted;
        if self.shapes.add(&decoded.slots, &decoded.durations, &mut self.slots) {
            self.counted(entry, index);
        } else {
            let spans =
                decoded.slots.iter().zip(&decoded.durations).map(|(&slot, &duration)| (slot, u64::from(duration)));
            self.add_slots(entry, index, spans, None);
        }
    }

    /// Counts frame `index` as analysed, its spans added.
    #[inline]
    fn counted(&mut self, entry: &FrameEntry, index: usize) {
        self.frames += 1;
        self.dropped_spans += u64::from(entry.dropped_spans);
        self.range = Some(match self.range.take() {
            Some(range) => range.start..index + 1,
            None => index..index + 1,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capture of frames over one topology of two GPU passes, each frame's spans `(pass, begin, end)`.
    fn capture_of(frames: &[&[(u32, u64, u64)]]) -> Vec<u8> {
        use crate::model::{GpuPass, Level, Meta, Topology};
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = crate::Writer::new(Vec::new(), &meta).expect("META names a level");
        let topology = Topology { gpu_passes: vec![GpuPass::default(); 2], ..Topology::default() };
        let id = writer.topology(&topology).expect("a Vec");
        for (number, spans) in frames.iter().enumerate() {
            let spans = spans
                .iter()
                .map(|&(pass, begin_ns, end_ns)| Span { pass, begin_ns, end_ns, ..Span::default() })
                .collect();
            writer
                .frame(&Frame { frame_number: number as u64, topology: id, spans, ..Frame::default() })
                .expect("in order");
        }
        writer.finish().expect("a Vec")
    }

    #[test]
    fn whole_pairs_are_decoded_at_once_and_others_left_to_one_at_a_time() {
        let in_order: &[(u32, u64, u64)] = &[(0, 10, 20), (1, 30, 40)];
        let reversed: &[(u32, u64, u64)] = &[(1, 80, 90), (0, 50, 60)];
        let beyond: &[(u32, u64, u64)] = &[(0, 100, 110), (2, 120, 130)];
        let over_32_bits: &[(u32, u64, u64)] = &[(0, 10, 10 + (1 << 33)), (1, 1 << 34, (1 << 34) + 5)];
        // Stored with no column signed (each difference is taken wrapping), yet out of order.
        let wrapped: &[(u32, u64, u64)] = &[(0, u64::MAX - 10, u64::MAX - 5), (1, 3, 10)];
        let bytes = capture_of(&[
            in_order,
            in_order,
            reversed,
            in_order,
            beyond,
            in_order,
            over_32_bits,
            in_order,
            wrapped,
            in_order,
        ]);
        let capture = Capture::open(&bytes).expect("opens");
        let takes_pair = |frame_timing: bool, first: usize| {
            let options = ScanOptions { frame_timing, ..ScanOptions::default() };
            let plan = Plan::new::<OneThread>(&capture, 0..10, 1, &options);
            plan.start(0, Vec::new()).add_two(&capture, &plan.tables, first)
        };
        assert!(takes_pair(true, 0));
        // Frame timing needs spans out of order kept, which the one-at-a-time path does;
        // the statistics alone do not mind the order.
        assert!(!takes_pair(true, 2));
        assert!(takes_pair(false, 2));
        // A span beyond its topology's passes is a defect, which the other path names.
        assert!(!takes_pair(false, 4));
        // A span over 4.3 s does not fit the 32-bit durations a pair is set aside in.
        assert!(!takes_pair(false, 6));
        // Spans stored as if in order are checked to be: these are not. And a frame whose
        // spans reach within 2^32 ns of `u64::MAX` may hold one whose end passed it, which
        // ends before it begins: the statistics alone take it one span at a time too.
        assert!(!takes_pair(true, 8));
        assert!(!takes_pair(false, 8));
    }

    #[test]
    fn a_span_whose_end_passes_the_clock_s_end_reads_0_ns_with_or_without_frame_timing() {
        let in_order: &[(u32, u64, u64)] = &[(0, 10, 20), (1, 30, 40)];
        // Stored unsigned, its duration 21 ns: the end passed `u64::MAX`, so it ended
        // before it began and reads 0 ns, as `pass_stats` reads it.
        let end_wraps: &[(u32, u64, u64)] = &[(0, u64::MAX - 30, u64::MAX - 20), (1, u64::MAX - 10, 10)];
        // Its gaps stored signed (the second span begins before the first ends: below 0,
        // which wraps to just short of `u64::MAX`), its durations unsigned (10 ns stored).
        let below_zero: &[(u32, u64, u64)] = &[(0, 5, 10), (1, u64::MAX - 3, 6)];
        let bytes = capture_of(&[in_order, end_wraps, in_order, below_zero, in_order, in_order]);
        let capture = Capture::open(&bytes).expect("opens");
        let expected = pass_stats(&capture, 0..6);
        assert_eq!((expected.zero_spans, expected.inverted_spans), (2, 2));
        for frame_timing in [false, true] {
            let options = ScanOptions { frame_timing, ..ScanOptions::default() };
            assert_eq!(scan(&capture, 0..6, &options).stats, expected, "frame timing {frame_timing}");
        }
    }

    #[test]
    fn a_sample_holds_room_only_for_the_rows_its_frames_have() {
        use crate::synth::{SynthOptions, generate};
        // Two topologies: rows of both kinds of span and both topologies' passes, of
        // which each frame has one span of some.
        let bytes = generate(&SynthOptions { frames: 600, passes: 30, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("synth opens");
        let plan = Plan::new::<OneThread>(&capture, 0..600, 1, &ScanOptions::default());
        let frames: Vec<usize> = (0..600).step_by(7).collect();
        // Read alone, frames held and handed over in batches, and decoded whole.
        let held = plan.sample(&frames, frames.len());
        let (mut whole, mut spans) = (SampleRows::new(plan.keys.len(), frames.len()), Vec::new());
        frames.iter().for_each(|&index| plan.sample_frame(index, &mut whole, &mut spans));
        for rows in [&held, &whole.rows] {
            assert!(rows.iter().any(Vec::is_empty), "some rows no frame has");
            assert!(rows.iter().filter(|row| !row.is_empty()).count() >= 30, "a row for each pass");
            for row in rows {
                assert!(row.len() <= frames.len(), "one span of a pass a frame");
                let room = if row.is_empty() { 0 } else { frames.len() };
                assert_eq!(row.capacity(), room, "room for each sampled frame, only where one came");
            }
        }
        assert_eq!(held, whole.rows, "both paths sample the same durations");
        // Rows whose room would pass the most are grown as they fill instead.
        assert_eq!(SampleRows::new(3, MOST_SAMPLE_ROOM).room, 0);
        assert_eq!(SampleRows::new(4, MOST_SAMPLE_ROOM / 4).room, MOST_SAMPLE_ROOM / 4);
    }

    #[test]
    fn short_passes_keep_two_bytes_a_duration_and_give_the_two_pass_figures() {
        use crate::synth::{SynthOptions, generate};
        // The standard workload's passes run for tens of µs, spread over a few: windows
        // within 65 µs of their low end, as on nearly every row of the hour-long capture.
        // A sample of 1,000 frames bounds each p95's window above (a smaller one leaves it
        // open, and those rows keep whole durations).
        let bytes = generate(&SynthOptions { frames: 2_000, passes: 30, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("synth opens");
        let options = ScanOptions { windows: Windows::SampleEvery(2), ..ScanOptions::default() };
        let plan = Plan::new::<OneThread>(&capture, 0..2_000, 2, &options);
        let chunks: Vec<Chunk<'_, '_>> = (0..2).map(|at| plan.run(at, Vec::new(), &|_| {})).collect();
        let widths =
            |width: usize| chunks[0].slots.iter().filter(|slot| slot.count > 0 && slot.kept.width() == width).count();
        let [two, four, eight] = [widths(2), widths(4), widths(8)];
        assert!(two >= 25 && two > 4 * (four + eight), "rows keeping 2 bytes: {two}, 4: {four}, 8: {eight}");
        let scan = plan.finish::<OneThread>(chunks, Vec::new(), Vec::new(), None);
        assert!(!scan.reread, "the windows held every rank");
        assert_eq!(scan.stats, pass_stats(&capture, 0..2_000));
    }

    #[test]
    fn chunks_compiled_for_this_cpu_give_what_the_portable_build_gives() {
        use crate::synth::{SynthOptions, generate};
        let synthetic = generate(&SynthOptions { frames: 300, passes: 40, ..SynthOptions::default() });
        let in_order: &[(u32, u64, u64)] = &[(0, 10, 20), (1, 30, 40)];
        let wrapped: &[(u32, u64, u64)] = &[(0, u64::MAX - 10, u64::MAX - 5), (1, 3, 10)];
        let reversed: &[(u32, u64, u64)] = &[(1, 80, 90), (0, 50, 60)];
        let shapes = capture_of(&[in_order, wrapped, in_order, reversed, in_order, in_order, wrapped]);
        for bytes in [synthetic, shapes] {
            let capture = Capture::open(&bytes).expect("opens");
            let frames = 0..capture.frames().len();
            let options = ScanOptions { windows: Windows::SampleEvery(3), ..ScanOptions::default() };
            let finished = |dispatched: bool| {
                let plan = Plan::new::<OneThread>(&capture, frames.clone(), 2, &options);
                let chunks = (0..2)
                    .map(|at| {
                        if dispatched {
                            return plan.run(at, Vec::new(), &|_| {});
                        }
                        let mut run = plan.start(at, Vec::new());
                        run.add_frames(&capture, &plan.tables, plan.chunks[at].clone());
                        run.seal()
                    })
                    .collect();
                let scan = plan.finish::<OneThread>(chunks, Vec::new(), Vec::new(), None);
                (scan.stats, scan.timing, scan.reread)
            };
            let portable = finished(false);
            assert!(portable.0.spans > 0 && portable.1.is_some());
            assert_eq!(finished(true), portable);
        }
    }

    #[test]
    fn the_comparison_s_order_statistics_are_each_series_own() {
        use crate::compare::median_error_ranks;
        use crate::synth::{SynthOptions, generate};
        let (mut known, mut passes) = (0, 0);
        for quantize_ns in [None, Some(1_000)] {
            let options = SynthOptions { frames: 900, passes: 30, seed: 3, quantize_ns, ..SynthOptions::default() };
            let bytes = generate(&options);
            let capture = Capture::open(&bytes).expect("opens");
            for windows in [Windows::All, Windows::SampleEvery(3), Windows::SampleEvery(40)] {
                for chunks in [1, 3] {
                    let options = ScanOptions { chunks, frame_timing: false, windows, samples: true, coins: false };
                    let scanned = scan(&capture, 0..capture.frames().len(), &options);
                    for pass in scanned.samples.expect("asked for").passes {
                        if pass.series.len() == 0 {
                            assert_eq!(pass.known, None, "no spans, no order");
                            continue;
                        }
                        passes += 1;
                        let Some(order) = pass.known else { continue };
                        known += 1;
                        let mut sorted = Vec::new();
                        pass.series.values.extend_into(0..pass.series.len(), &mut sorted);
                        sorted.sort_unstable();
                        let median = sorted[(sorted.len() - 1) / 2];
                        let count = |keep: &dyn Fn(u64) -> bool| sorted.iter().filter(|&&v| keep(v)).count();
                        assert_eq!(order.count, sorted.len());
                        assert_eq!(order.values, median_error_ranks(sorted.len()).map(|rank| sorted[rank]));
                        assert_eq!(order.zeros, count(&|v| v == 0));
                        assert_eq!(order.tied, count(&|v| v == median));
                        assert_eq!(order.at_or_below_median, count(&|v| v <= median));
                    }
                }
            }
        }
        // Every pass but where a sparse sample's window missed the bandwidth's ends.
        assert!(known * 10 >= passes * 9, "known for {known} of {passes} passes");
    }

    #[test]
    fn passes_whose_sample_ties_keep_their_durations_and_the_rest_keep_coins() {
        use crate::compare::{CompareOptions, compare, try_compare};
        use crate::synth::{SynthChanges, SynthOptions, workload_with};
        // Timestamps floored to 300 ns: the short passes' samples tie, the long ones' hardly.
        let options =
            SynthOptions { frames: 1_200, passes: 30, seed: 6, quantize_ns: Some(300), ..SynthOptions::default() };
        let [a, b] = [1, 2].map(|run| {
            workload_with(&options, &SynthChanges { run: Some(run), ..SynthChanges::default() })
                .write(Vec::new())
                .expect("a Vec")
        });
        let [a, b] = [&a, &b].map(|bytes| Capture::open(bytes).expect("opens"));
        let scan_options = ScanOptions {
            chunks: 3,
            frame_timing: false,
            windows: Windows::SampleEvery(3),
            samples: true,
            coins: true,
        };
        let [coins_a, coins_b] =
            [&a, &b].map(|capture| scan(capture, 0..capture.frames().len(), &scan_options).samples.expect("kept"));
        let kinds = |samples: &Samples| {
            let ran = samples.passes.iter().filter(|pass| pass.series.len() > 0);
            ran.fold((0, 0), |(coins, durations), pass| {
                if pass.series.coins().is_some() { (coins + 1, durations) } else { (coins, durations + 1) }
            })
        };
        let (coined, kept) = kinds(&coins_a);
        assert!(coined > 0 && kept > 0, "{coined} passes as coins, {kept} with durations");
        let [full_a, full_b] = [&a, &b].map(|capture| Samples::collect(capture, 0..capture.frames().len()));
        let expected = compare(&full_a, &full_b, &CompareOptions::default());
        assert_eq!(try_compare(&coins_a, &coins_b, &CompareOptions::default()), Some(expected));
    }

    #[test]
    fn windows_surround_the_sample_quantiles_and_do_not_overlap() {
        let mut sample: Vec<u64> = (0..10_000).rev().collect();
        let [median, p95] = windows(&mut sample.clone(), 0.0);
        assert!(median.low < 5_000 && 5_000 < median.high, "{median:?}");
        assert!(p95.low < 9_500 && 9_500 < p95.high, "{p95:?}");
        assert!(median.high < p95.low);
        // Reaching 10 % further each way around the median, and still short of the p95's.
        let [wider, p95_beside] = windows(&mut sample, 0.1);
        assert!(wider.low + 1_000 == median.low && wider.high == median.high + 1_000, "{wider:?}");
        assert_eq!(p95_beside, p95);
        // A small sample says little: the windows cover everything.
        assert_eq!(windows(&mut [7, 3, 5], 0.0), [ALL, EMPTY]);
        assert_eq!(windows(&mut [], 0.1), [ALL, EMPTY]);
    }

    #[test]
    fn a_rank_outside_the_windows_is_not_guessed() {
        let mut slot = SlotAcc::new([Window { low: 10, high: 20 }, EMPTY]);
        (0..100).for_each(|duration| slot.add(duration, 0));
        slot.kept.truncate(slot.kept_len);
        assert_eq!(slot.order(), None);
        let mut slot = SlotAcc::new([Window { low: 40, high: 60 }, Window { low: 90, high: 99 }]);
        let durations: Vec<u64> = (0..100).rev().collect();
        durations.iter().enumerate().for_each(|(frame, &duration)| slot.add(duration, frame / 30));
        slot.kept.truncate(slot.kept_len);
        assert_eq!((slot.count, slot.below, slot.kept.len(), slot.frames_present), (100, [40, 90], 31, 4));
        assert_eq!(slot.order(), Some([49, 94]));
        // The bandwidth's ends (ranks 24 and 75 of 100) lie outside: the figures, no order.
        assert_eq!(slot.order_and_known(), Some(([49, 94], None)));
        // A median window wide enough holds them (ranks 24 and 77 of 102).
        let mut slot = SlotAcc::new([Window { low: 10, high: 90 }, Window { low: 91, high: 99 }]);
        durations.iter().chain(&[49, 0]).for_each(|&duration| slot.add(duration, 0));
        slot.kept.truncate(slot.kept_len);
        let (figures, known) = slot.order_and_known().expect("both ranks inside");
        let known = known.expect("the bandwidth inside");
        assert_eq!(figures, [49, 94]);
        assert_eq!(
            (known.count, known.values, known.zeros, known.tied, known.at_or_below_median),
            (102, [49, 23, 75], 2, 2, 52)
        );
        // A median the p95's window found (rank 49; the bandwidth's 24 and 75 inside the
        // windows too): the figures, and no order, whose counts would miss the durations
        // between the windows.
        let mut slot = SlotAcc::new([Window { low: 0, high: 30 }, Window { low: 40, high: 99 }]);
        durations.iter().for_each(|&duration| slot.add(duration, 0));
        slot.kept.truncate(slot.kept_len);
        assert_eq!(slot.order_and_known(), Some(([49, 94], None)));
    }
}
