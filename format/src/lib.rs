//! `sgpt-format`: the `.sgpt` capture container.
//!
//! A capture is a 32-byte header followed by checksummed, self-describing records:
//! META first, TOPO and DECL when something new appears, one FRAM per frame, NOTEs, and
//! a DIRE index at stop. `format/SGPT_FORMAT.md` is the normative byte-level spec; each
//! module below documents the layout it implements.
//!
//! ```
//! use sgpt_format::{Capture, Frame, GpuPass, Level, Meta, Span, Topology, Writer};
//!
//! let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
//! let mut writer = Writer::new(Vec::new(), &meta)?;
//! let topology = Topology {
//!     gpu_passes: vec![GpuPass { label: "shadow".into(), ..GpuPass::default() }],
//!     ..Topology::default()
//! };
//! let id = writer.topology(&topology)?;
//! let mut frame = Frame { topology: id, ..Frame::default() };
//! frame.spans.push(Span { pass: 0, begin_ns: 1_000, end_ns: 41_000, ..Span::default() });
//! writer.frame(&frame)?;
//! let bytes = writer.finish()?;
//!
//! let capture = Capture::open(&bytes)?;
//! assert!(capture.is_intact());
//! assert_eq!(capture.frame(0)?.spans[0].duration_ns(), 40_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The contract between the recorder, the CLI and the inspector: every public item says
// what it means (units, clocks, what `None` stands for).
#![warn(missing_docs)]

// The container's primitives, one codec per record, the analyses, the exports, and the
// project's own dev tooling: the folders say which is which. Crate-internal paths stay
// short (`crate::wire`, `crate::spans`, …) through the private re-bindings below.
mod container;
mod model;
mod records;

pub mod analysis;
pub mod export;
pub mod wording;

#[doc(hidden)]
pub mod dev;

use container::{bits, check, directory, error, header, piece, reader, record, sink, symbols, wire, writer};
use records::{declaration, frame, memory, meta, note, spans, topology};

// Public paths the CLI and the inspector use: each analysis and export at the crate root.
pub use analysis::{compare, frame_timing, memory_analysis, workload_summary};
pub use dev::synth;
#[doc(hidden)]
pub use dev::{fixtures, fuzz};
pub use export::chrome;

pub use check::{CheckShare, FrameChecks, LostFrame};
pub use directory::{FrameEntry, RecordEntry};
pub use error::{DecodeError, Defect, DefectKind, OpenError, WriteError};
pub use header::{FORMAT_VERSION, HEADER_LEN, Header, MAGIC, MIN_READER_VERSION, READER_VERSION};
pub use model::{
    AdapterInfo, Attachment, AttachmentRole, BindGroupDef, Binding, BufferDef, Command, CounterDef, CounterSample,
    CounterUnit, CpuSpan, CpuTimes, Declaration, DomainCounters, Frame, GpuPass, GpuPassKind, GraphPass, Indirect,
    Level, Lifetime, LoadOp, MEMORY_GAUGE_FIELDS, MEMORY_GAUGE_PREFIX, MemoryBlock, MemoryCheckpoint, MemoryDiff,
    MemoryDomain, MemoryEvent, MemoryEventKind, MemoryExpectation, MemoryHealth, MemoryLoss, MemoryLossReason,
    MemoryMode, MemoryRecord, MemoryRecursionLoss, MemorySite, MemorySurvivor, Meta, NamedText, NamedValue, Note, Op,
    PROVIDER_GAUGE_PREFIX, Pipeline, PipelineKind, QuerySetDef, ResourceDesc, ResourceNode, Scope, Span, SpanKind,
    StoreOp, TextureDimension, Topology, TopologyId, memory_gauge_name, parse_memory_gauge, parse_provider_gauge,
    provider_gauge_name,
};
pub use piece::FramePiece;
pub use reader::{Capture, Opener, ReadableCounts};
pub use record::{FourCc, MAX_PAYLOAD_LEN, RECORD_HEADER_LEN, SYNC};
pub use sink::{CountingSink, Sink};
pub use writer::{Writer, WriterOptions};
