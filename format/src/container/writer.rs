//! The streaming writer: header, META, then records as they happen, the directory and a
//! header patch at stop. A capture whose writer never finishes is still valid: every
//! record already appended reads back, and a reader scans instead of using the index.

use std::collections::HashMap;

use crate::declaration;
use crate::directory::{self, FrameEntry, RecordEntry};
use crate::error::WriteError;
use crate::frame::{self, FrameSummary};
use crate::header::{FLAG_CLOSED, HEADER_LEN, Header};
use crate::memory;
use crate::meta;
use crate::model::{Declaration, Frame, MemoryRecord, Meta, Note, Topology, TopologyId};
use crate::note;
use crate::record::{FourCc, MAX_PAYLOAD_LEN, RECORD_HEADER_LEN, SYNC, checksum};
use crate::sink::Sink;
use crate::spans::SpanScratch;
use crate::symbols::SymbolWriter;
use crate::topology;
use crate::wire::put_varint;

/// Writer settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriterOptions {
    /// Frames the capture is expected to hold (a session's `frame_limit`, when it has
    /// one). The frame index reserves this much up front; beyond it the index grows
    /// geometrically, an allocation once per doubling, never per frame.
    pub expected_frames: usize,
}

/// Writes one capture into a [`Sink`].
#[derive(Debug)]
pub struct Writer<S: Sink> {
    sink: S,
    written: u64,
    /// The record being built: 16 bytes of framing, then the payload, in one buffer so
    /// the payload is never copied before the sink sees it.
    record: Vec<u8>,
    scratch: Vec<u8>,
    spans: SpanScratch,
    symbols: SymbolWriter,
    /// Content hash → ids with that hash; the canonical bytes below settle a collision.
    topologies: HashMap<u64, Vec<TopologyId>>,
    /// Each topology's canonical bytes, by id.
    canonical: Vec<Box<[u8]>>,
    records: Vec<RecordEntry>,
    frames: Vec<FrameEntry>,
    last_frame: Option<u64>,
    /// Set when the sink failed: symbols and ids may then name records that never
    /// reached it, so nothing more is written.
    failed: bool,
}

impl<S: Sink> Writer<S> {
    /// Starts a capture: writes the header and META.
    pub fn new(sink: S, meta: &Meta) -> Result<Self, WriteError> {
        Self::with_options(sink, meta, WriterOptions::default())
    }

    /// Starts a capture as [`Writer::new`] does, with `options`. Fails with
    /// [`WriteError::Invalid`] when `meta` names no level or is invalid, or when the sink
    /// fails.
    pub fn with_options(mut sink: S, meta: &Meta, options: WriterOptions) -> Result<Self, WriteError> {
        if meta.level.is_none() {
            return Err(WriteError::Invalid("META must name the capture's level"));
        }
        meta::validate(meta).map_err(WriteError::Invalid)?;
        sink.append(&Header::open().encode())?;
        let mut writer = Self {
            sink,
            written: HEADER_LEN as u64,
            record: Vec::with_capacity(64 << 10),
            scratch: Vec::new(),
            spans: SpanScratch::default(),
            symbols: SymbolWriter::default(),
            topologies: HashMap::new(),
            canonical: Vec::new(),
            records: Vec::new(),
            frames: Vec::with_capacity(options.expected_frames),
            last_frame: None,
            failed: false,
        };
        writer.begin_record();
        meta::encode(&mut writer.record, meta);
        writer.end_record(FourCc::META)?;
        Ok(writer)
    }

    fn begin_record(&mut self) {
        self.record.clear();
        self.record.extend_from_slice(&[0; RECORD_HEADER_LEN]);
    }

    /// Frames the built payload and hands the record to the sink. Returns its offset.
    fn end_record(&mut self, kind: FourCc) -> Result<u64, WriteError> {
        let payload_len = self.record.len() - RECORD_HEADER_LEN;
        if payload_len > MAX_PAYLOAD_LEN {
            return Err(WriteError::RecordTooLarge { len: payload_len, limit: MAX_PAYLOAD_LEN });
        }
        let crc = checksum(&self.record[RECORD_HEADER_LEN..]);
        self.record[0..4].copy_from_slice(&SYNC.to_le_bytes());
        self.record[4..8].copy_from_slice(&kind.0);
        self.record[8..12].copy_from_slice(&(payload_len as u32).to_le_bytes());
        self.record[12..16].copy_from_slice(&crc.to_le_bytes());
        if self.failed {
            return Err(WriteError::Invalid("the sink failed earlier; what reached it stays readable"));
        }
        if let Err(error) = self.sink.append(&self.record) {
            self.failed = true;
            return Err(error.into());
        }
        let offset = self.written;
        self.written += self.record.len() as u64;
        if kind != FourCc::FRAM {
            self.records.push(RecordEntry { kind, offset, len: self.record.len() as u64 });
        }
        Ok(offset)
    }

    /// Returns the id of `topology`, writing a TOPO record the first time its content is
    /// seen. Identical content always gets the same id. Hashing costs
    /// time proportional to the topology, so call it when the structure may have
    /// changed and keep the id otherwise.
    pub fn topology(&mut self, topology: &Topology) -> Result<TopologyId, WriteError> {
        let hash = topology::content_hash(topology, &mut self.scratch);
        if let Some(ids) = self.topologies.get(&hash) {
            // Equal hashes are compared byte for byte, so a collision cannot merge two graphs.
            if let Some(&id) = ids.iter().find(|&&id| *self.canonical[id as usize] == *self.scratch) {
                return Ok(id);
            }
        }
        topology::validate(topology).map_err(WriteError::Invalid)?;
        let id = self.canonical.len() as TopologyId;
        let canonical: Box<[u8]> = self.scratch.as_slice().into();
        self.symbols.begin_record();
        self.scratch.clear();
        topology::encode_body(&mut self.scratch, topology, &mut self.symbols);
        self.begin_record();
        put_varint(&mut self.record, u64::from(id));
        self.record.extend_from_slice(&hash.to_le_bytes());
        self.symbols.put_block(&mut self.record);
        self.record.extend_from_slice(&self.scratch);
        if let Err(error) = self.end_record(FourCc::TOPO) {
            self.symbols.abandon_record();
            return Err(error);
        }
        // Only a topology whose record reached the sink gets an id.
        self.canonical.push(canonical);
        self.topologies.entry(hash).or_default().push(id);
        Ok(id)
    }

    /// Writes a DECL record declaring everything in `declarations`.
    pub fn declare(&mut self, declarations: &[Declaration]) -> Result<(), WriteError> {
        if declarations.is_empty() {
            return Ok(());
        }
        self.symbols.begin_record();
        let mut entries = std::mem::take(&mut self.scratch);
        entries.clear();
        let mut body = Vec::new();
        put_varint(&mut entries, declarations.len() as u64);
        for item in declarations {
            declaration::encode_entry(&mut entries, item, &mut self.symbols, &mut body);
        }
        self.begin_record();
        self.symbols.put_block(&mut self.record);
        self.record.extend_from_slice(&entries);
        self.scratch = entries;
        let written = self.end_record(FourCc::DECL).map(drop);
        if written.is_err() {
            self.symbols.abandon_record();
        }
        written
    }

    /// Writes one frame record. Frame numbers must increase, and the topology must have
    /// been returned by [`Writer::topology`].
    pub fn frame(&mut self, frame: &Frame) -> Result<(), WriteError> {
        if let Some(previous) = self.last_frame.filter(|&previous| frame.frame_number <= previous) {
            return Err(WriteError::FrameOrder { frame_number: frame.frame_number, previous });
        }
        if frame.topology as usize >= self.canonical.len() {
            return Err(WriteError::UnknownTopology { frame_number: frame.frame_number, topology: frame.topology });
        }
        self.begin_record();
        frame::encode(&mut self.record, frame, &mut self.spans);
        let offset = self.end_record(FourCc::FRAM)?;
        let summary = FrameSummary {
            frame_number: frame.frame_number,
            topology: frame.topology,
            gpu_duration_ns: frame::gpu_duration(&frame.spans),
            cpu_duration_ns: frame.cpu.end_ns.saturating_sub(frame.cpu.begin_ns),
            dropped_spans: frame.dropped_spans,
            recorder_cost_ns: frame.recorder_cost_ns,
            span_count: frame.spans.len() as u32,
        };
        self.frames.push(FrameEntry::new(&summary, offset, self.record.len() as u64));
        self.last_frame = Some(frame.frame_number);
        Ok(())
    }

    /// Writes a note on a frame.
    pub fn note(&mut self, note: &Note) -> Result<(), WriteError> {
        self.begin_record();
        note::encode(&mut self.record, note);
        self.end_record(FourCc::NOTE).map(drop)
    }

    /// Writes one exported memory capture as a MEMO record. It is self-contained, so it
    /// may come anywhere after META; older readers skip it.
    pub fn memory(&mut self, record: &MemoryRecord) -> Result<(), WriteError> {
        self.begin_record();
        memory::encode(&mut self.record, record);
        self.end_record(FourCc::MEMO).map(drop)
    }

    /// Writes a record of any type: how fixtures model a newer writer's records.
    pub(crate) fn raw_record(&mut self, kind: FourCc, payload: &[u8]) -> Result<(), WriteError> {
        self.begin_record();
        self.record.extend_from_slice(payload);
        self.end_record(kind).map(drop)
    }

    /// Bytes handed to the sink so far, header included.
    #[must_use]
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Frames written so far.
    #[must_use]
    pub fn frame_count(&self) -> usize {
        self.frames.len()
    }

    /// The sink, holding a readable (not yet closed) capture of everything so far.
    pub fn sink(&self) -> &S {
        &self.sink
    }

    /// Writes the directory, patches the header (CLOSED, directory offset and length)
    /// and returns the sink.
    pub fn finish(mut self) -> Result<S, WriteError> {
        self.begin_record();
        directory::encode(&mut self.record, &self.records, &self.frames);
        let offset = self.end_record(FourCc::DIRE)?;
        let header = Header {
            flags: FLAG_CLOSED,
            directory_offset: offset,
            directory_len: self.record.len() as u64,
            ..Header::open()
        };
        self.sink.patch_header(&header.encode())?;
        Ok(self.sink)
    }
}
