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

/// Decodes a directory payload a share of its frame entries at a time, so that a reader
/// that must stay responsive never decodes a long capture's whole index in one go (about
/// 10 bytes an entry: 17 MB for eight hours at 60 fps). The records' entries, which are
/// few, are decoded on the first step.
#[derive(Debug, Default)]
pub struct DirectoryDecoder {
    records: Vec<RecordEntry>,
    frames: Vec<FrameEntry>,
    /// Frame entries the payload lists; `None` until the first step has read the counts.
    frame_count: Option<usize>,
    /// Where the next frame entry starts in the payload.
    at: usize,
    number: u64,
    offset: u64,
}

impl DirectoryDecoder {
    /// Decodes up to `max_frames` (at least one) more frame entries of `payload`, whose
    /// first byte is at file offset `base`. `Ok(true)` once every entry is decoded.
    pub fn step(&mut self, payload: &[u8], base: u64, max_frames: usize) -> Result<bool, DecodeError> {
        let mut cursor = Cursor::new(&payload[self.at.min(payload.len())..], base + self.at as u64);
        let frame_count = match self.frame_count {
            Some(count) => count,
            None => {
                let record_count = cursor.count(6, "directory record count")?;
                self.records.reserve_exact(record_count);
                for _ in 0..record_count {
                    let kind = FourCc(cursor.u32_le("directory record type")?.to_le_bytes());
                    let offset = cursor.varint("directory record offset")?;
                    let len = cursor.varint("directory record length")?;
                    self.records.push(RecordEntry { kind, offset, len });
                }
                let count = cursor.count(8, "directory frame count")?;
                self.frames.reserve_exact(count);
                self.frame_count = Some(count);
                count
            }
        };
        let end = frame_count.min(self.frames.len().saturating_add(max_frames.max(1)));
        while self.frames.len() < end {
            self.number = self.number.wrapping_add(cursor.varint("directory frame number")?);
            self.offset = self.offset.wrapping_add(cursor.varint("directory frame offset")?);
            self.frames.push(FrameEntry {
                frame_number: self.number,
                offset: self.offset,
                len: cursor.varint("directory frame length")?,
                topology: cursor.varint_u32("directory topology")?,
                gpu_duration_ns: cursor.varint("directory GPU duration")?,
                cpu_duration_ns: cursor.varint("directory CPU duration")?,
                dropped_spans: cursor.varint_u32("directory dropped spans")?,
                span_count: cursor.varint_u32("directory span count")?,
            });
        }
        self.at = usize::try_from(cursor.offset() - base).unwrap_or(usize::MAX);
        Ok(self.frames.len() == frame_count)
    }

    /// Entries decoded and entries listed, records' and frames' together; `None` before the
    /// first step.
    #[must_use]
    pub fn progress(&self) -> Option<(usize, usize)> {
        self.frame_count.map(|frames| (self.records.len() + self.frames.len(), self.records.len() + frames))
    }

    /// The entries decoded: the records', then the frames'.
    #[must_use]
    pub fn finish(self) -> (Vec<RecordEntry>, Vec<FrameEntry>) {
        (self.records, self.frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directory(frames: u64) -> (Vec<RecordEntry>, Vec<FrameEntry>, Vec<u8>) {
        let records = vec![RecordEntry { kind: FourCc::TOPO, offset: 32, len: 100 }];
        let frames: Vec<FrameEntry> = (0..frames)
            .map(|n| FrameEntry {
                frame_number: n * 2,
                offset: 132 + n * 900,
                len: 900,
                topology: 1,
                gpu_duration_ns: 1_000_000 + n % 977,
                cpu_duration_ns: n % 3,
                dropped_spans: u32::from(n % 50 == 0),
                span_count: 200,
            })
            .collect();
        let mut payload = Vec::new();
        encode(&mut payload, &records, &frames);
        (records, frames, payload)
    }

    #[test]
    fn each_step_decodes_at_most_its_share_and_the_steps_decode_the_whole() {
        let (records, frames, payload) = directory(10_000);
        for max in [1, 7, 100, 4096] {
            let mut decoder = DirectoryDecoder::default();
            let mut before = 0;
            while !decoder.step(&payload, 1_000, max).expect("an intact payload decodes") {
                let (done, total) = decoder.progress().expect("counted after the first step");
                assert!(done > before && done - before <= max + usize::from(before == 0) * records.len());
                assert_eq!(total, records.len() + frames.len());
                before = done;
            }
            assert_eq!(decoder.finish(), (records.clone(), frames.clone()), "steps of {max}");
        }
    }

    #[test]
    fn a_cut_payload_fails_at_the_same_offset_in_steps_as_whole() {
        let (_, _, payload) = directory(500);
        let cut = &payload[..payload.len() - 3];
        let whole = DirectoryDecoder::default().step(cut, 1_000, usize::MAX).expect_err("cut");
        let mut decoder = DirectoryDecoder::default();
        let stepped = loop {
            match decoder.step(cut, 1_000, 9) {
                Ok(true) => panic!("a cut payload cannot decode whole"),
                Ok(false) => {}
                Err(error) => break error,
            }
        };
        assert_eq!((stepped.offset, stepped.what), (whole.offset, whole.what));
    }
}
