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

pub mod analysis;
mod bits;
pub mod chrome;
pub mod compare;
mod declaration;
mod directory;
mod error;
pub mod fixtures;
mod frame;
pub mod frame_timing;
pub mod fuzz;
mod header;
mod memory;
pub mod memory_analysis;
mod meta;
mod model;
mod note;
mod reader;
mod record;
mod sink;
mod spans;
mod symbols;
pub mod synth;
mod topology;
mod wire;
pub mod workload_summary;
mod writer;

pub use directory::{FrameEntry, RecordEntry};
pub use error::{DecodeError, Defect, DefectKind, OpenError, WriteError};
pub use header::{FORMAT_VERSION, HEADER_LEN, Header, MAGIC, MIN_READER_VERSION, READER_VERSION};
pub use model::*;
pub use reader::{Capture, LostFrame, Opener, ReadableCounts};
pub use record::{FourCc, MAX_PAYLOAD_LEN, RECORD_HEADER_LEN, SYNC};
pub use sink::{CountingSink, Sink};
pub use writer::{Writer, WriterOptions};
