//! The span section of a FRAM record: where the bytes of a capture go, so it is columnar.
//!
//! ```text
//! span_count        varint
//! -- present only when span_count > 0 --
//! layout            u8     bit0 pass refs are 0,1,2,… (no column follows)
//!                          bit1 gap column is zigzag-signed, bit2 duration column is
//! epoch_ns          varint the first span's begin, device clock, ns
//! pass refs         span_count × varint zigzag(pass − (previous pass + 1)), unless bit0
//! query set runs    varint run count, then (varint length, u8 query set) per run
//! kind runs         varint run count, then (varint length, u8 kind) per run
//! gap_k, dur_k      u8, u8
//! bits_len          varint, then that many bytes of bit stream:
//!                   per span, gap then duration, each in the code of `bits.rs`
//! ```
//!
//! `gap = begin − previous end` (the first span's previous end is `epoch_ns`) and
//! `duration = end − begin`, both wrapping u64 differences, so any reported pair of
//! timestamps round-trips exactly, an end before its begin included.

use crate::bits::{BitLengths, BitReader, BitWriter};
use crate::error::DecodeError;
use crate::model::{Span, SpanKind};
use crate::wire::{Cursor, apply_delta, put_varint, unzigzag, zigzag};

const SEQUENTIAL: u8 = 1;
const GAPS_SIGNED: u8 = 2;
const DURATIONS_SIGNED: u8 = 4;

/// Reusable buffers for encoding, so the steady state allocates nothing.
#[derive(Debug, Default)]
pub struct SpanScratch {
    /// `(length, value)` runs of the query set and kind columns.
    query_set_runs: Vec<(u32, u8)>,
    kind_runs: Vec<(u32, u8)>,
}

fn kind_byte(kind: SpanKind) -> u8 {
    match kind {
        SpanKind::Pass => 0,
        SpanKind::SubPass => 1,
    }
}

/// Builds a run-length column: the open run is kept apart from the finished ones, so
/// adding a value that extends it touches no memory.
struct Runs<'a> {
    finished: &'a mut Vec<(u32, u8)>,
    open: (u32, u8),
}

impl<'a> Runs<'a> {
    fn new(finished: &'a mut Vec<(u32, u8)>, first: u8) -> Self {
        finished.clear();
        Self { finished, open: (0, first) }
    }

    #[inline(always)]
    fn add(&mut self, value: u8) {
        if value == self.open.1 {
            self.open.0 += 1;
        } else {
            self.finished.push(self.open);
            self.open = (1, value);
        }
    }

    /// The column's runs, the open one last.
    fn finish(self) -> &'a [(u32, u8)] {
        self.finished.push(self.open);
        self.finished
    }
}

fn put_runs(out: &mut Vec<u8>, runs: &[(u32, u8)]) {
    put_varint(out, runs.len() as u64);
    for &(len, value) in runs {
        put_varint(out, u64::from(len));
        out.push(value);
    }
}

/// Appends the span section for `spans`.
pub fn encode(out: &mut Vec<u8>, spans: &[Span], scratch: &mut SpanScratch) {
    put_varint(out, spans.len() as u64);
    let Some(first) = spans.first() else { return };

    // One pass derives every column's runs and histogram; the bit stream is written in a
    // second, once the histograms have chosen each column's `k`.
    let mut query_sets = Runs::new(&mut scratch.query_set_runs, first.query_set);
    let mut kinds = Runs::new(&mut scratch.kind_runs, kind_byte(first.kind));
    // Histograms of the zigzagged values: a column with no negative value is stored as it
    // is, and its histogram follows from this one (zigzag doubles such a value).
    let mut gap_lengths = BitLengths::default();
    let mut duration_lengths = BitLengths::default();
    let mut sequential = true;
    let mut negative = 0u64;
    for (i, (span, (gap, duration))) in spans.iter().zip(gaps_and_durations(spans, first.begin_ns)).enumerate() {
        sequential &= span.pass as usize == i;
        // Track signs branch-free: bit 0 for gaps, bit 1 for durations.
        negative |= (gap >> 63) | ((duration >> 63) << 1);
        gap_lengths.add(zigzag(gap as i64));
        duration_lengths.add(zigzag(duration as i64));
        query_sets.add(span.query_set);
        kinds.add(kind_byte(span.kind));
    }
    let gaps_signed = negative & 1 != 0;
    let durations_signed = negative & 2 != 0;
    if !gaps_signed {
        gap_lengths = gap_lengths.halved();
    }
    if !durations_signed {
        duration_lengths = duration_lengths.halved();
    }
    let layout = (u8::from(sequential) * SEQUENTIAL)
        | (u8::from(gaps_signed) * GAPS_SIGNED)
        | (u8::from(durations_signed) * DURATIONS_SIGNED);
    out.push(layout);
    put_varint(out, first.begin_ns);
    if !sequential {
        let mut expected = 0u32;
        for span in spans {
            put_varint(out, zigzag(i64::from(span.pass) - i64::from(expected)));
            expected = span.pass.wrapping_add(1);
        }
    }
    put_runs(out, query_sets.finish());
    put_runs(out, kinds.finish());

    let gap_k = gap_lengths.best_k();
    let duration_k = duration_lengths.best_k();
    out.push(gap_k as u8);
    out.push(duration_k as u8);
    // The histograms give the stream's exact size, so its length is written up front.
    let bits = gap_lengths.cost(gap_k) + duration_lengths.cost(duration_k);
    let bits_len = bits.div_ceil(8);
    put_varint(out, bits_len);
    let bits_at = out.len();
    let bits_end = bits_at + bits_len as usize;
    // Eight bytes of slack let the bit writer store whole words; trimmed after.
    out.resize(bits_end + 8, 0);
    let mut writer = BitWriter::new(&mut out[bits_at..]);
    let ks = (gap_k, duration_k);
    match (gaps_signed, durations_signed) {
        (false, false) => put_stream::<false, false>(&mut writer, spans, ks),
        (true, false) => put_stream::<true, false>(&mut writer, spans, ks),
        (false, true) => put_stream::<false, true>(&mut writer, spans, ks),
        (true, true) => put_stream::<true, true>(&mut writer, spans, ks),
    }
    let written = writer.finish();
    debug_assert_eq!(written, bits_len as usize);
    out.truncate(bits_end);
}

/// Writes each span's gap and duration, zigzagged where signed. One copy of the loop per
/// pair of signs, so none is tested per span.
fn put_stream<const GAPS_SIGNED: bool, const DURATIONS_SIGNED: bool>(
    writer: &mut BitWriter<'_>,
    spans: &[Span],
    (gap_k, duration_k): (u32, u32),
) {
    let stored = |value: u64, signed: bool| if signed { zigzag(value as i64) } else { value };
    let epoch = spans.first().map_or(0, |span| span.begin_ns);
    for (gap, duration) in gaps_and_durations(spans, epoch) {
        writer.put_code_pair(stored(gap, GAPS_SIGNED), gap_k, stored(duration, DURATIONS_SIGNED), duration_k);
    }
}

/// Each span's gap (from the previous span's end, the first one's from `epoch`) and
/// duration, as wrapping differences: cheaper to derive again than to keep.
#[inline(always)]
fn gaps_and_durations(spans: &[Span], epoch: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut previous_end = epoch;
    spans.iter().map(move |span| {
        let gap = span.begin_ns.wrapping_sub(previous_end);
        previous_end = span.end_ns;
        (gap, span.end_ns.wrapping_sub(span.begin_ns))
    })
}

/// Checks a run-length column (lengths summing to `span_count`, values at most `max`)
/// and returns an iterator over its entries.
///
/// Offsets (SGPT_FORMAT.md §4.1, §7.1): a length of 0, or one that takes the sum past
/// `span_count`, at that length's first byte, the first run known to be wrong; a value
/// above `max` at its byte; a sum that falls short after the last run at the column's
/// `run_count`, which promised too few runs (no later byte is wrong).
///
/// Also returns the column's values or-ed together: zero when every entry is 0.
fn read_runs<'a>(
    cursor: &mut Cursor<'a>,
    span_count: usize,
    max: u8,
    what: &'static str,
) -> Result<(RunIter<'a>, u8), DecodeError> {
    let column_at = cursor.offset();
    let runs = cursor.count(2, what)?;
    let start = cursor.clone();
    let mut total = 0u64;
    let mut values = 0;
    for _ in 0..runs {
        let length_at = cursor.offset();
        let len = cursor.varint(what)?;
        total = total.saturating_add(len);
        if len == 0 || total > span_count as u64 {
            return Err(DecodeError::new(length_at, what));
        }
        let value_at = cursor.offset();
        let value = cursor.u8(what)?;
        if value > max {
            return Err(DecodeError::new(value_at, what));
        }
        values |= value;
    }
    if total != span_count as u64 {
        return Err(DecodeError::new(column_at, what));
    }
    Ok((RunIter { cursor: start, left: 0, value: 0 }, values))
}

/// Walks a validated run-length column run by run.
struct RunIter<'a> {
    cursor: Cursor<'a>,
    left: u64,
    value: u8,
}

impl RunIter<'_> {
    /// The current run's value and how many entries it has left.
    #[inline]
    fn current(&mut self) -> (u8, u64) {
        while self.left == 0 {
            // Validated by `read_runs` (lengths nonzero, summing to the span count), so
            // these reads cannot fail while entries remain.
            self.left = self.cursor.varint("run").unwrap_or(u64::MAX);
            self.value = self.cursor.u8("run").unwrap_or(0);
        }
        (self.value, self.left)
    }

    #[inline]
    fn advance(&mut self, entries: u64) {
        self.left -= entries;
    }
}

/// What [`durations_two`] gives of each stream beside the durations: where the spans lie,
/// as the gaps were stored (unsigned where the layout says so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurationColumn {
    /// The section's epoch, from which the first gap is taken.
    pub epoch: u64,
    /// The first span's gap, and the sum of every gap, as stored.
    pub first_gap: u64,
    pub gaps: u128,
    /// Every duration's bits above the low 32, or-ed: where any is set, the 32-bit
    /// durations are not the spans'.
    pub high: u64,
}

impl DurationColumn {
    /// Whether the column's spans, `count` of them with their gaps stored `signed` or not,
    /// may hold one whose begin or end passed `u64::MAX` (or below 0) on the way: such a
    /// span ends before it begins, and reads 0 ns the general way, where its stored
    /// duration is small. Each gap as stored (a zigzag code where signed) is at least the
    /// distance it moves, and each duration under 2^32 when `high` is 0, so every span
    /// lies within `epoch ± gaps` plus `count × 2^32`. Whoever reads durations alone reads
    /// a frame whose spans might not the general way instead: never one of a real device
    /// (its clock would have run for 584 years), but the figures are the same either way.
    #[must_use]
    pub fn may_wrap(&self, count: usize, signed: bool) -> bool {
        let top = u128::from(self.epoch) + self.gaps + ((count as u128) << 32);
        top > u128::from(u64::MAX) || (signed && self.gaps > u128::from(self.epoch))
    }
}

/// Reads two span sections that [`SpanStream::durations_alone`] says are read so, a span
/// of each in turn, appending each span's duration in 32 bits to `out_a` and `out_b`:
/// what the statistics and frame timing need of such spans (span `i` is pass `i`'s pass
/// span; the query sets are not read). The loop does nothing else (no span is made, no
/// callback called), so both readers stay in registers and a core overlaps the two
/// chains from one span's place in its stream to the next.
///
/// `None` where either stream fails or was partly read already: the caller then reads
/// both frames the general way, which names the defect.
#[inline(always)]
pub fn durations_two(
    a: SpanStream<'_>,
    b: SpanStream<'_>,
    out_a: &mut Vec<u32>,
    out_b: &mut Vec<u32>,
) -> Option<[DurationColumn; 2]> {
    debug_assert!(a.durations_alone() && b.durations_alone());
    let (mut a, start_a) = ColumnRead::start(a, out_a)?;
    let (mut b, start_b) = ColumnRead::start(b, out_b)?;
    let (slots_a, slots_b) = (&mut out_a[start_a..], &mut out_b[start_b..]);
    let both = slots_a.len().min(slots_b.len());
    let (together_a, alone_a) = slots_a.split_at_mut(both);
    let (together_b, alone_b) = slots_b.split_at_mut(both);
    for (slot_a, slot_b) in together_a.iter_mut().zip(together_b) {
        let pair_a = a.pair()?;
        let pair_b = b.pair()?;
        a.note(pair_a, slot_a);
        b.note(pair_b, slot_b);
    }
    for slot in alone_a {
        let pair = a.pair()?;
        a.note(pair, slot);
    }
    for slot in alone_b {
        let pair = b.pair()?;
        b.note(pair, slot);
    }
    Some([a.finish()?, b.finish()?])
}

/// [`durations_two`] for one section alone.
#[inline(always)]
pub fn durations(stream: SpanStream<'_>, out: &mut Vec<u32>) -> Option<DurationColumn> {
    debug_assert!(stream.durations_alone());
    let (mut read, start) = ColumnRead::start(stream, out)?;
    for slot in &mut out[start..] {
        let pair = read.pair()?;
        read.note(pair, slot);
    }
    read.finish()
}

/// One stream read by [`durations_two`].
struct ColumnRead<'a> {
    reader: BitReader<'a>,
    ks: (u32, u32),
    count: usize,
    column: DurationColumn,
}

impl<'a> ColumnRead<'a> {
    /// The stream, its first span's gap read, and room in `out` for each span's duration
    /// from the returned index on.
    fn start(stream: SpanStream<'a>, out: &mut Vec<u32>) -> Option<(Self, usize)> {
        if stream.left != stream.count {
            return None;
        }
        let start = out.len();
        out.resize(start + stream.count, 0);
        let column = DurationColumn { epoch: stream.previous_end, first_gap: 0, gaps: 0, high: 0 };
        let mut read =
            Self { reader: stream.reader, ks: (stream.gap_k, stream.duration_k), count: stream.count, column };
        if let Some(first) = out.get_mut(start) {
            // The first span apart, so the loop does not ask which span it is at.
            let pair = read.pair()?;
            read.column.first_gap = pair.0;
            read.note(pair, first);
            return Some((read, start + 1));
        }
        Some((read, start))
    }

    /// The next span's gap and duration, as stored.
    #[inline(always)]
    fn pair(&mut self) -> Option<(u64, u64)> {
        match self.reader.code_pair_fast(self.ks.0, self.ks.1) {
            Some(pair) => Some(pair),
            None => {
                let reader = std::mem::replace(&mut self.reader, BitReader::new(&[], 0));
                let (reader, pair) = reader.code_pair_slow(self.ks.0, self.ks.1);
                self.reader = reader;
                pair.ok()
            }
        }
    }

    #[inline(always)]
    fn note(&mut self, (gap, duration): (u64, u64), slot: &mut u32) {
        self.column.gaps += u128::from(gap);
        self.column.high |= duration >> 32;
        *slot = duration as u32;
    }

    /// The column, once the stream is checked to end where its last span did.
    fn finish(self) -> Option<DurationColumn> {
        if self.count > 0 {
            self.reader.check_end().ok()?;
        }
        Some(self.column)
    }
}

/// Decodes the span section, handing each span to `each` in stored order.
/// Returns the number of spans decoded.
pub fn decode(cursor: &mut Cursor<'_>, mut each: impl FnMut(Span)) -> Result<usize, DecodeError> {
    let mut stream = SpanStream::open(cursor)?;
    for _ in 0..stream.len() {
        each(stream.next_span()?);
    }
    stream.finish()
}

/// Decodes two span sections at once, a span of each in turn, handing them to `each_a`
/// and `each_b`; each result, and what each callback is handed, is [`decode`]'s for that
/// section alone. Every span's place in a bit stream depends on the span before it, so
/// two streams give a core two independent chains to overlap, and within a segment both
/// readers are held in registers (see [`BitReader::code_pair_fast`]): on the hour-long
/// capture, about 1.1× the spans a second of one section at a time. The decode is bound
/// by its instructions more than by that chain.
pub fn decode_two(
    mut a: SpanStream<'_>,
    mut b: SpanStream<'_>,
    mut each_a: impl FnMut(Span),
    mut each_b: impl FnMut(Span),
) -> [Result<usize, DecodeError>; 2] {
    let (mut failed_a, mut failed_b) = (None, None);
    while a.left > 0 && b.left > 0 && failed_a.is_none() && failed_b.is_none() {
        if a.segment == 0 {
            a.next_segment();
        }
        if b.segment == 0 {
            b.next_segment();
        }
        if a.pass_refs.is_some() || b.pass_refs.is_some() {
            // Pass refs are a column of their own: one span of each the general way.
            match (a.next_span(), b.next_span()) {
                (Ok(span_a), Ok(span_b)) => {
                    each_a(span_a);
                    each_b(span_b);
                }
                (span_a, span_b) => {
                    span_a.map(&mut each_a).unwrap_or_else(|error| failed_a = Some(error));
                    span_b.map(&mut each_b).unwrap_or_else(|error| failed_b = Some(error));
                }
            }
            continue;
        }
        let done = a.segment.min(b.segment) as usize;
        let (mut walk_a, mut walk_b) = (a.walk(), b.walk());
        for _ in 0..done {
            let pair_a = walk_a.reader.code_pair_fast(a.gap_k, a.duration_k);
            let pair_b = walk_b.reader.code_pair_fast(b.gap_k, b.duration_k);
            let (pair_a, pair_b) = match (pair_a, pair_b) {
                (Some(pair_a), Some(pair_b)) => (pair_a, pair_b),
                (pair_a, pair_b) => {
                    let pair_a = pair_a.map_or_else(|| walk_a.slow_pair(a.gap_k, a.duration_k), Ok);
                    let pair_b = pair_b.map_or_else(|| walk_b.slow_pair(b.gap_k, b.duration_k), Ok);
                    match (pair_a, pair_b) {
                        (Ok(pair_a), Ok(pair_b)) => (pair_a, pair_b),
                        (pair_a, pair_b) => {
                            // The stream that read its pair hands it over before both stop
                            // here: its reader has moved past it.
                            match pair_a {
                                Ok(pair) => each_a(walk_a.span(&a, pair)),
                                Err(error) => failed_a = Some(error),
                            }
                            match pair_b {
                                Ok(pair) => each_b(walk_b.span(&b, pair)),
                                Err(error) => failed_b = Some(error),
                            }
                            break;
                        }
                    }
                }
            };
            each_a(walk_a.span(&a, pair_a));
            each_b(walk_b.span(&b, pair_b));
        }
        a.end_walk(walk_a);
        b.end_walk(walk_b);
    }
    let rest = |mut stream: SpanStream<'_>, failed: Option<DecodeError>, each: &mut dyn FnMut(Span)| {
        if let Some(error) = failed {
            return Err(error);
        }
        for _ in 0..stream.len() {
            each(stream.next_span()?);
        }
        stream.finish()
    };
    [rest(a, failed_a, &mut each_a), rest(b, failed_b, &mut each_b)]
}

/// A walk along one segment of a stream with sequential pass refs: see [`decode_two`].
struct Walk<'a> {
    reader: BitReader<'a>,
    previous_end: u64,
    /// The next span's index, which is its pass.
    index: usize,
}

impl Walk<'_> {
    /// The span of a gap and duration as stored, in `stream`'s current segment.
    #[inline(always)]
    fn span(&mut self, stream: &SpanStream<'_>, stored: (u64, u64)) -> Span {
        let span = stream.span_after(self.previous_end, self.index as u32, stored);
        self.previous_end = span.end_ns;
        self.index += 1;
        span
    }

    /// A pair read the general way, the reader moved in and out by value.
    fn slow_pair(&mut self, gap_k: u32, duration_k: u32) -> Result<(u64, u64), DecodeError> {
        let reader = std::mem::replace(&mut self.reader, BitReader::new(&[], 0));
        let (reader, pair) = reader.code_pair_slow(gap_k, duration_k);
        self.reader = reader;
        pair
    }
}

/// A column's code parameter `k`, at most 64, reported at its own byte.
fn code_parameter(cursor: &mut Cursor<'_>, what: &'static str) -> Result<u32, DecodeError> {
    let at = cursor.offset();
    let k = u32::from(cursor.u8(what)?);
    if k > 64 {
        return Err(DecodeError::new(at, what));
    }
    Ok(k)
}

/// A span section whose fields before the bit stream have been read and checked, decoded
/// one span at a time.
///
/// Fields are checked in the order they are stored, each as soon as it is read, so the
/// defect reported is the first field that fails (SGPT_FORMAT.md §7.2): the pass refs
/// are range-checked as the column is first walked, before the runs are read.
pub struct SpanStream<'a> {
    count: usize,
    /// Spans not yet decoded.
    left: usize,
    gaps_signed: bool,
    durations_signed: bool,
    /// Whether every span is a pass span (the kind column holds no sub-pass).
    passes_only: bool,
    previous_end: u64,
    expected_pass: u32,
    pass_refs: Option<Cursor<'a>>,
    query_sets: RunIter<'a>,
    kinds: RunIter<'a>,
    /// Spans left over which both run-length columns stay as they are, and their values.
    segment: u64,
    query_set: u8,
    kind: SpanKind,
    gap_k: u32,
    duration_k: u32,
    reader: BitReader<'a>,
}

impl<'a> SpanStream<'a> {
    /// Reads the section up to its bit stream, leaving `cursor` past the section.
    pub fn open(cursor: &mut Cursor<'a>) -> Result<Self, DecodeError> {
        // Every span costs at least two bits of stream; a count above that is hostile. The
        // bound is checked here, when the section is decoded, on either path (§4.1).
        let count_at = cursor.offset();
        let span_count = cursor.varint("span count")?;
        if span_count == 0 {
            return Ok(Self::empty());
        }
        if span_count > (cursor.remaining() as u64).saturating_mul(4) {
            return Err(DecodeError::new(count_at, "span count"));
        }
        let span_count = span_count as usize;
        let layout_at = cursor.offset();
        let layout = cursor.u8("span layout")?;
        if layout & !(SEQUENTIAL | GAPS_SIGNED | DURATIONS_SIGNED) != 0 {
            return Err(DecodeError::new(layout_at, "span layout"));
        }
        let epoch = cursor.varint("span epoch")?;
        let pass_refs = if layout & SEQUENTIAL == 0 {
            let start = cursor.clone();
            let mut expected = 0u32;
            for _ in 0..span_count {
                let at = cursor.offset();
                let pass = apply_delta(expected, unzigzag(cursor.varint("span pass ref")?))
                    .ok_or_else(|| DecodeError::new(at, "span pass ref"))?;
                expected = pass.wrapping_add(1);
            }
            Some(start)
        } else {
            None
        };
        let (query_sets, _) = read_runs(cursor, span_count, u8::MAX, "span query set runs")?;
        let (kinds, any_sub_pass) = read_runs(cursor, span_count, 1, "span kind runs")?;
        let gap_k = code_parameter(cursor, "gap k")?;
        let duration_k = code_parameter(cursor, "duration k")?;
        let bits_len = cursor.count(1, "span bit stream length")?;
        let bits_at = cursor.offset();
        let bits = cursor.bytes(bits_len, "span bit stream")?;
        Ok(Self {
            count: span_count,
            left: span_count,
            gaps_signed: layout & GAPS_SIGNED != 0,
            durations_signed: layout & DURATIONS_SIGNED != 0,
            passes_only: any_sub_pass == 0,
            previous_end: epoch,
            expected_pass: 0,
            pass_refs,
            query_sets,
            kinds,
            segment: 0,
            query_set: 0,
            kind: SpanKind::Pass,
            gap_k,
            duration_k,
            reader: BitReader::new(bits, bits_at),
        })
    }

    /// A section of no spans.
    fn empty() -> Self {
        let runs = || RunIter { cursor: Cursor::new(&[], 0), left: 0, value: 0 };
        Self {
            count: 0,
            left: 0,
            gaps_signed: false,
            durations_signed: false,
            passes_only: true,
            previous_end: 0,
            expected_pass: 0,
            pass_refs: None,
            query_sets: runs(),
            kinds: runs(),
            segment: 0,
            query_set: 0,
            kind: SpanKind::Pass,
            gap_k: 0,
            duration_k: 0,
            reader: BitReader::new(&[], 0),
        }
    }

    /// Whether the section's spans are all pass spans, stored with no gap and no
    /// duration below zero: each then begins at or after the end of the one before, so
    /// they come in order and never overlap, unless a sum wraps past `u64::MAX` (which
    /// only a timestamp within a gap of the clock's end can make).
    #[must_use]
    pub fn passes_in_order(&self) -> bool {
        self.passes_only && !self.gaps_signed && !self.durations_signed
    }

    /// Whether [`durations_two`] reads this section: spans of passes 0, 1, 2, … in
    /// turn, all pass spans, with no duration stored below zero.
    #[must_use]
    pub fn durations_alone(&self) -> bool {
        self.pass_refs.is_none() && self.passes_only && !self.durations_signed
    }

    /// Spans not yet decoded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.left
    }

    /// The next span; only while [`SpanStream::len`] is above zero.
    #[inline(always)]
    pub fn next_span(&mut self) -> Result<Span, DecodeError> {
        debug_assert!(self.left > 0);
        if self.segment == 0 {
            self.next_segment();
        }
        self.segment -= 1;
        let index = self.count - self.left;
        self.left -= 1;
        let pass = match &mut self.pass_refs {
            None => index as u32,
            Some(refs) => {
                // Range-checked by `open` before the runs were read.
                let pass = apply_delta(self.expected_pass, unzigzag(refs.varint("span pass ref")?)).unwrap_or_default();
                self.expected_pass = pass.wrapping_add(1);
                pass
            }
        };
        let stored = self.reader.get_code_pair(self.gap_k, self.duration_k)?;
        let span = self.span_after(self.previous_end, pass, stored);
        self.previous_end = span.end_ns;
        Ok(span)
    }

    /// The span stored as `(gap, duration)` after one that ended at `previous_end`, in the
    /// current segment: each column unzigzagged where it is signed.
    #[inline(always)]
    fn span_after(&self, previous_end: u64, pass: u32, (gap, duration): (u64, u64)) -> Span {
        let gap = if self.gaps_signed { unzigzag(gap) as u64 } else { gap };
        let duration = if self.durations_signed { unzigzag(duration) as u64 } else { duration };
        let begin_ns = previous_end.wrapping_add(gap);
        Span { pass, kind: self.kind, query_set: self.query_set, begin_ns, end_ns: begin_ns.wrapping_add(duration) }
    }

    /// The state a run of spans within one segment changes, to be held in registers.
    fn walk(&self) -> Walk<'a> {
        Walk { reader: self.reader.clone(), previous_end: self.previous_end, index: self.count - self.left }
    }

    /// Takes back the state of a walk along the current segment.
    fn end_walk(&mut self, walk: Walk<'a>) {
        let done = walk.index - (self.count - self.left);
        self.reader = walk.reader;
        self.previous_end = walk.previous_end;
        self.left -= done;
        self.segment -= done as u64;
    }

    /// Moves to the next stretch over which both run-length columns are constant.
    fn next_segment(&mut self) {
        let (query_set, query_set_left) = self.query_sets.current();
        let (kind, kind_left) = self.kinds.current();
        self.segment = query_set_left.min(kind_left).min(self.left as u64);
        self.query_sets.advance(self.segment);
        self.kinds.advance(self.segment);
        self.query_set = query_set;
        self.kind = if kind == 0 { SpanKind::Pass } else { SpanKind::SubPass };
    }

    /// Checks that the bit stream ended where its last span did; returns the span count.
    pub fn finish(self) -> Result<usize, DecodeError> {
        if self.count > 0 {
            self.reader.check_end()?;
        }
        Ok(self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section of `count` spans, sequential or not, with a duration of `wide` now and
    /// then (a code too long for one refill).
    fn section(count: u32, sequential: bool, wide: u64) -> Vec<u8> {
        let spans: Vec<Span> = (0..count)
            .map(|at| {
                let begin_ns = 1_000 * u64::from(at);
                let duration = if at % 5 == 3 { wide } else { 300 + u64::from(at * 37 % 200) };
                let pass = if sequential { at } else { at / 2 };
                Span { pass, begin_ns, end_ns: begin_ns.wrapping_add(duration), ..Span::default() }
            })
            .collect();
        let mut out = Vec::new();
        encode(&mut out, &spans, &mut SpanScratch::default());
        out
    }

    /// [`section`]'s, and the same with the second half of its bit stream (its last bytes)
    /// zeroed: a zero run too long for any code, found partway through.
    fn good_and_broken(count: u32, sequential: bool, wide: u64) -> [Vec<u8>; 2] {
        let good = section(count, sequential, wide);
        let mut broken = good.clone();
        let len = broken.len();
        broken[len - (count as usize / 2).max(10).min(len / 3)..].fill(0);
        [good, broken]
    }

    /// What [`decode`] hands over and returns for a section alone.
    fn alone(bytes: &[u8]) -> (Vec<Span>, Result<usize, DecodeError>) {
        let mut spans = Vec::new();
        let result = decode(&mut Cursor::new(bytes, 0), |span| spans.push(span));
        (spans, result)
    }

    #[test]
    fn two_sections_at_once_hand_over_what_each_does_alone_a_broken_one_included() {
        let mut sections = Vec::new();
        for (count, sequential, wide) in
            [(40, true, 77), (9, true, 1 << 60), (31, false, 5), (1, true, 3), (0, true, 0)]
        {
            sections.extend(good_and_broken(count, sequential, wide));
        }
        let mut broken_seen = 0;
        for a in &sections {
            for b in &sections {
                let (mut spans_a, mut spans_b) = (Vec::new(), Vec::new());
                let results = decode_two(
                    SpanStream::open(&mut Cursor::new(a, 0)).expect("the fields before the stream are whole"),
                    SpanStream::open(&mut Cursor::new(b, 0)).expect("the fields before the stream are whole"),
                    |span| spans_a.push(span),
                    |span| spans_b.push(span),
                );
                let [result_a, result_b] = results;
                assert_eq!((spans_a, result_a), alone(a));
                assert_eq!((spans_b, result_b), alone(b));
            }
            broken_seen += usize::from(alone(a).1.is_err());
        }
        assert!(broken_seen >= 3, "{broken_seen} sections fail partway");
    }

    /// What [`durations_two`] should give for a section alone, from [`decode`]'s spans:
    /// each duration in 32 bits, and the column, each gap as stored.
    fn column_of(bytes: &[u8]) -> Option<(Vec<u32>, DurationColumn)> {
        let (spans, result) = alone(bytes);
        result.ok()?;
        let stream = SpanStream::open(&mut Cursor::new(bytes, 0)).ok()?;
        let epoch = stream.previous_end;
        let stored = |gap: u64| if stream.gaps_signed { zigzag(gap as i64) } else { gap };
        let mut column = DurationColumn { epoch, first_gap: 0, gaps: 0, high: 0 };
        let mut previous_end = epoch;
        for (at, span) in spans.iter().enumerate() {
            let gap = stored(span.begin_ns.wrapping_sub(previous_end));
            if at == 0 {
                column.first_gap = gap;
            }
            column.gaps += u128::from(gap);
            column.high |= span.duration_ns() >> 32;
            previous_end = span.end_ns;
        }
        Some((spans.iter().map(|span| span.duration_ns() as u32).collect(), column))
    }

    fn opened(bytes: &[u8]) -> SpanStream<'_> {
        SpanStream::open(&mut Cursor::new(bytes, 0)).expect("whole before its stream")
    }

    #[test]
    fn durations_read_alone_are_what_each_span_decoded_gives() {
        let mut sections = Vec::new();
        for (count, wide) in [(40, 77), (9, 1 << 60), (31, 5), (1, 3), (1, 1 << 40), (0, 0), (300, 1 << 33)] {
            sections.extend(good_and_broken(count, true, wide));
        }
        // Sections whose stream lost its last byte: every code may still read, from the
        // zero bits past the end, but the stream ends before its last span does.
        for count in [3, 6] {
            let good = section(count, true, 5);
            let bits_at = opened(&good).reader.base() as usize;
            let bits_len = good.len() - bits_at;
            assert!(bits_len < 128, "a one-byte length");
            let mut short = good[..bits_at - 1].to_vec();
            short.push(bits_len as u8 - 1);
            short.extend_from_slice(&good[bits_at..good.len() - 1]);
            assert!(alone(&short).1.is_err());
            sections.push(short);
        }
        let (mut read, mut failed, mut signed) = (0, 0, 0);
        for a in &sections {
            for b in &sections {
                let (stream_a, stream_b) = (opened(a), opened(b));
                assert!(stream_a.durations_alone() && stream_b.durations_alone());
                signed += usize::from(stream_a.gaps_signed);
                // What was in the buffers stays; each section's durations follow.
                let (mut out_a, mut out_b) = (vec![7], vec![]);
                let got = durations_two(stream_a, stream_b, &mut out_a, &mut out_b);
                match (column_of(a), column_of(b)) {
                    (Some((durations_a, column_a)), Some((durations_b, column_b))) => {
                        assert_eq!(got, Some([column_a, column_b]));
                        assert_eq!((out_a[0], &out_a[1..], &out_b[..]), (7, &durations_a[..], &durations_b[..]));
                        read += 1;
                    }
                    _ => {
                        assert_eq!(got, None);
                        failed += 1;
                    }
                }
            }
        }
        assert!(read >= 49 && failed >= 100 && signed > 0, "{read} read, {failed} failed, {signed} signed");
    }

    #[test]
    fn a_section_partly_read_gives_no_durations() {
        let bytes = section(12, true, 5);
        let mut stream = opened(&bytes);
        let _ = stream.next_span();
        let whole = opened(&bytes);
        assert_eq!(durations_two(stream, whole, &mut Vec::new(), &mut Vec::new()), None);
    }
}
