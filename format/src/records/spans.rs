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
fn read_runs<'a>(
    cursor: &mut Cursor<'a>,
    span_count: usize,
    max: u8,
    what: &'static str,
) -> Result<RunIter<'a>, DecodeError> {
    let column_at = cursor.offset();
    let runs = cursor.count(2, what)?;
    let start = cursor.clone();
    let mut total = 0u64;
    for _ in 0..runs {
        let length_at = cursor.offset();
        let len = cursor.varint(what)?;
        total = total.saturating_add(len);
        if len == 0 || total > span_count as u64 {
            return Err(DecodeError::new(length_at, what));
        }
        let value_at = cursor.offset();
        if cursor.u8(what)? > max {
            return Err(DecodeError::new(value_at, what));
        }
    }
    if total != span_count as u64 {
        return Err(DecodeError::new(column_at, what));
    }
    Ok(RunIter { cursor: start, left: 0, value: 0 })
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

/// Decodes the span section, handing each span to `each` in stored order.
/// Returns the number of spans decoded.
///
/// Fields are checked in the order they are stored, each as soon as it is read, so the
/// defect reported is the first field that fails (SGPT_FORMAT.md §7.2): the pass refs
/// are range-checked as the column is first walked, before the runs are read.
pub fn decode(cursor: &mut Cursor<'_>, mut each: impl FnMut(Span)) -> Result<usize, DecodeError> {
    // Every span costs at least two bits of stream; a count above that is hostile. The
    // bound is checked here, when the section is decoded, on either path (§4.1).
    let count_at = cursor.offset();
    let span_count = cursor.varint("span count")?;
    if span_count == 0 {
        return Ok(0);
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
    let query_sets = read_runs(cursor, span_count, u8::MAX, "span query set runs")?;
    let kinds = read_runs(cursor, span_count, 1, "span kind runs")?;
    let gap_k = code_parameter(cursor, "gap k")?;
    let duration_k = code_parameter(cursor, "duration k")?;
    let bits_len = cursor.count(1, "span bit stream length")?;
    let bits_at = cursor.offset();
    let bits = cursor.bytes(bits_len, "span bit stream")?;
    decode_columns(
        Columns { span_count, layout, epoch, pass_refs, query_sets, kinds, gap_k, duration_k },
        BitReader::new(bits, bits_at),
        &mut each,
    )?;
    Ok(span_count)
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

struct Columns<'a> {
    span_count: usize,
    layout: u8,
    epoch: u64,
    pass_refs: Option<Cursor<'a>>,
    query_sets: RunIter<'a>,
    kinds: RunIter<'a>,
    gap_k: u32,
    duration_k: u32,
}

#[inline]
fn decode_columns(
    mut columns: Columns<'_>,
    mut reader: BitReader<'_>,
    each: &mut impl FnMut(Span),
) -> Result<(), DecodeError> {
    let gaps_signed = columns.layout & GAPS_SIGNED != 0;
    let durations_signed = columns.layout & DURATIONS_SIGNED != 0;
    let mut previous_end = columns.epoch;
    let mut expected_pass = 0u32;
    let mut i = 0usize;
    // Walk segments over which both run-length columns are constant.
    while i < columns.span_count {
        let (query_set, query_set_left) = columns.query_sets.current();
        let (kind, kind_left) = columns.kinds.current();
        let kind = if kind == 0 { SpanKind::Pass } else { SpanKind::SubPass };
        let segment = query_set_left.min(kind_left).min((columns.span_count - i) as u64) as usize;
        for _ in 0..segment {
            let pass = match &mut columns.pass_refs {
                None => i as u32,
                Some(refs) => {
                    // Range-checked by `decode` before the runs were read.
                    let delta = unzigzag(refs.varint("span pass ref")?);
                    let pass = apply_delta(expected_pass, delta).unwrap_or_default();
                    expected_pass = pass.wrapping_add(1);
                    pass
                }
            };
            let (gap, duration) = reader.get_code_pair(columns.gap_k, columns.duration_k)?;
            let gap = if gaps_signed { unzigzag(gap) as u64 } else { gap };
            let duration = if durations_signed { unzigzag(duration) as u64 } else { duration };
            let begin_ns = previous_end.wrapping_add(gap);
            let end_ns = begin_ns.wrapping_add(duration);
            previous_end = end_ns;
            each(Span { pass, kind, query_set, begin_ns, end_ns });
            i += 1;
        }
        columns.query_sets.advance(segment as u64);
        columns.kinds.advance(segment as u64);
    }
    reader.check_end()
}
