//! The DIRE record, written at stop: an index, never a dependency (SGPT_FORMAT.md §3.7). It
//! lets a viewer draw the frame strip before decoding any frame; a reader without it
//! scans the records instead and loses nothing.
//!
//! ```text
//! record count varint, per non-frame record: FourCC (4 bytes), offset varint, length varint
//! frame count varint,  per frame: frame_number − previous (first: absolute) varint,
//!                      offset − previous offset (first: absolute) varint, length varint,
//!                      topology_id, gpu_duration_ns, cpu_duration_ns, dropped_spans,
//!                      span_count varints
//! ```
//!
//! Offsets are absolute file offsets of a record's sync; lengths include its 16-byte
//! framing header.

use crate::error::DecodeError;
use crate::frame::FrameSummary;
use crate::model::TopologyId;
use crate::record::FourCc;
use crate::wire::{Cursor, put_varint};

/// Where a non-frame record is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordEntry {
    /// The record's type.
    pub kind: FourCc,
    /// Absolute file offset of the record's sync.
    pub offset: u64,
    /// The record's length in bytes, its 16-byte framing included.
    pub len: u64,
}

/// A frame as the index knows it: enough to draw a frame strip and find the record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameEntry {
    /// The application's frame counter, from the FRAM summary.
    pub frame_number: u64,
    /// File offset of the frame's record.
    pub offset: u64,
    /// The record's length, framing included.
    pub len: u64,
    /// The TOPO id the frame's spans refer to.
    pub topology: TopologyId,
    /// Nanoseconds on the GPU timestamp clock from the earliest `begin_ns` to the latest
    /// `end_ns` of the frame's pass spans (sub-passes excluded); 0 with no pass spans or
    /// when that is negative. Its extremes may come from different query sets, so it is an
    /// estimate for the frame strip; the spans are the measurement.
    pub gpu_duration_ns: u64,
    /// Nanoseconds on the CPU clock: the CPU section's end minus its begin, 0 if negative.
    pub cpu_duration_ns: u64,
    /// Spans the recorder dropped in this frame (begun but never timed: `Frame::dropped_spans`).
    pub dropped_spans: u32,
    /// GPU spans the frame record holds.
    pub span_count: u32,
}

impl FrameEntry {
    /// The entry for a frame whose summary is `summary` and whose record is at file offset
    /// `offset`, `len` bytes long with its framing.
    #[must_use]
    pub fn new(summary: &FrameSummary, offset: u64, len: u64) -> Self {
        Self {
            frame_number: summary.frame_number,
            offset,
            len,
            topology: summary.topology,
            gpu_duration_ns: summary.gpu_duration_ns,
            cpu_duration_ns: summary.cpu_duration_ns,
            dropped_spans: summary.dropped_spans,
            span_count: summary.span_count,
        }
    }
}

pub fn encode(out: &mut Vec<u8>, records: &[RecordEntry], frames: &[FrameEntry]) {
    put_varint(out, records.len() as u64);
    for record in records {
        out.extend_from_slice(&record.kind.0);
        put_varint(out, record.offset);
        put_varint(out, record.len);
    }
    put_varint(out, frames.len() as u64);
    let (mut previous_number, mut previous_offset) = (0u64, 0u64);
    for frame in frames {
        put_varint(out, frame.frame_number.wrapping_sub(previous_number));
        put_varint(out, frame.offset.wrapping_sub(previous_offset));
        previous_number = frame.frame_number;
        previous_offset = frame.offset;
        put_varint(out, frame.len);
        put_varint(out, u64::from(frame.topology));
        put_varint(out, frame.gpu_duration_ns);
        put_varint(out, frame.cpu_duration_ns);
        put_varint(out, u64::from(frame.dropped_spans));
        put_varint(out, u64::from(frame.span_count));
    }
}

pub fn decode(cursor: &mut Cursor<'_>) -> Result<(Vec<RecordEntry>, Vec<FrameEntry>), DecodeError> {
    let record_count = cursor.count(6, "directory record count")?;
    let mut records = Vec::with_capacity(record_count);
    for _ in 0..record_count {
        let kind = FourCc(cursor.u32_le("directory record type")?.to_le_bytes());
        let offset = cursor.varint("directory record offset")?;
        let len = cursor.varint("directory record length")?;
        records.push(RecordEntry { kind, offset, len });
    }
    let frame_count = cursor.count(8, "directory frame count")?;
    let mut frames = Vec::with_capacity(frame_count);
    let (mut number, mut offset) = (0u64, 0u64);
    for _ in 0..frame_count {
        number = number.wrapping_add(cursor.varint("directory frame number")?);
        offset = offset.wrapping_add(cursor.varint("directory frame offset")?);
        frames.push(FrameEntry {
            frame_number: number,
            offset,
            len: cursor.varint("directory frame length")?,
            topology: cursor.varint_u32("directory topology")?,
            gpu_duration_ns: cursor.varint("directory GPU duration")?,
            cpu_duration_ns: cursor.varint("directory CPU duration")?,
            dropped_spans: cursor.varint_u32("directory dropped spans")?,
            span_count: cursor.varint_u32("directory span count")?,
        });
    }
    Ok((records, frames))
}
