//! What the page says about a capture: the numbers and rows, computed without a browser.
//!
//! This is the only module that reads `sgpt_format`. The web layer renders the plain data
//! built here, so what the page shows is tested natively, without a browser.

use crate::units::{counted, grouped};
use crate::verify::ReadBack;
use sgpt_format::{Capture, Defect, DefectKind, OpenError};

/// At most this many rows of a table, and GPU pass labels in the pass table, reach the
/// page. A hostile capture may declare millions of passes or defects; the tab must not
/// drown in DOM nodes (a hostile file must not exhaust the tab).
pub const MAX_ROWS: usize = 1000;

/// Strings from a capture are clipped to this many characters for display, for the same
/// reason as [`MAX_ROWS`].
pub const MAX_TEXT_CHARS: usize = 256;

/// Why bytes could not be summarized. Displays as a sentence fragment that names the
/// problem, for "Could not open x: …".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Checked before the reader, which would call this "not an sgpt capture": an empty
    /// file is usually a failed download or copy, and saying so helps more.
    #[error("the file is empty (0 bytes)")]
    Empty,
    #[error("{0}")]
    Open(OpenError),
}

/// Everything the summary view shows, with strings clipped and tables bounded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub format_version: u16,
    pub min_reader_version: u16,
    /// The recorder reached stop. A capture that was never closed still shows every whole frame.
    pub closed: bool,
    /// The level's name, or `None` when the capture has no readable META.
    pub level: Option<&'static str>,
    /// `Verbose` perturbs what it measures, so the page warns.
    pub verbose: bool,
    /// Recorded on the browser's WebGPU, or on an adapter the capture does not name: its
    /// timestamps may be quantized, which the range views' note then says.
    pub may_quantize: bool,
    /// `None` when the capture has no readable META.
    pub adapter: Option<Adapter>,
    pub note: String,
    pub frames: u64,
    /// The first and last frame numbers, when there are frames.
    pub frame_numbers: Option<(u64, u64)>,
    /// GPU spans over all frames, from the index (no frame is decoded).
    pub spans: u64,
    /// Spans the recorder could not record, and on how many frames.
    pub dropped_spans: u64,
    pub frames_with_dropped_spans: u64,
    pub topologies: u64,
    pub passes: PassTable,
    /// The defects found by opening; [`verify`] finds the rest.
    pub defects: Rows<DefectRow>,
    /// What reads back of the indexed frames, once every frame was checked.
    pub read_back: Option<ReadBack>,
}

/// The adapter a capture was recorded on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Adapter {
    pub name: String,
    pub backend: String,
}

impl Adapter {
    /// `name (backend)`, saying so where the recorder left either empty.
    #[must_use]
    pub fn describe(&self) -> String {
        let name = if self.name.is_empty() { "unnamed" } else { &self.name };
        if self.backend.is_empty() { name.to_owned() } else { format!("{name} ({})", self.backend) }
    }
}

/// A bounded table: the rows shown, and how many more there were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows<T> {
    pub shown: Vec<T>,
    pub omitted: usize,
}

impl<T> Rows<T> {
    /// Takes the first [`MAX_ROWS`] items, counting the rest.
    fn bounded<I: ExactSizeIterator<Item = T>>(items: I) -> Self {
        let total = items.len();
        let shown: Vec<T> = items.take(MAX_ROWS).collect();
        Rows { omitted: total - shown.len(), shown }
    }

    /// How many rows there were in all.
    #[must_use]
    pub fn total(&self) -> usize {
        self.shown.len() + self.omitted
    }
}

/// The graph passes of one topology, each with the GPU passes it opened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassTable {
    /// The topology shown (the lowest id that survived: the first written), or `None` when
    /// the capture has none.
    pub topology: Option<u32>,
    /// One row per graph pass in graph order, then one row (`graph_pass: None`) for the GPU
    /// passes opened outside any graph pass; at level `Timing` that row holds every pass.
    pub rows: Vec<PassRow>,
    pub graph_passes_omitted: usize,
    pub gpu_passes_omitted: usize,
}

impl PassTable {
    /// What the table leaves out, when it leaves anything out.
    #[must_use]
    pub fn omitted_note(&self) -> Option<String> {
        let (graph, gpu) = (self.graph_passes_omitted, self.gpu_passes_omitted);
        (graph > 0 || gpu > 0).then(|| format!("Not shown: {graph} more graph passes and {gpu} more GPU passes."))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassRow {
    pub graph_pass: Option<String>,
    /// GPU pass labels in the order the frame opens them. Labels are not keys
    /// (docs/ARCHITECTURE.md, "The recorder"): several may repeat or be empty.
    pub gpu_passes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefectRow {
    pub kind: &'static str,
    pub offset: u64,
    pub detail: String,
}

impl DefectRow {
    /// The offset as the format crate writes offsets in messages (`0x1a2b`).
    #[must_use]
    pub fn offset_hex(&self) -> String {
        format!("{:#x}", self.offset)
    }
}

/// Opens `bytes` and summarizes them from the header, META, index and topologies. No frame
/// is decoded, so this is quick even for a long capture.
///
/// # Errors
/// When the bytes are empty, not a capture, or need a newer reader.
pub fn summarize(bytes: &[u8]) -> Result<Summary, LoadError> {
    let capture = open(bytes)?;
    Ok(Summary::of(&capture))
}

/// Decodes every frame and returns every defect, those found by opening included.
///
/// # Errors
/// As [`summarize`]; bytes that summarized without error open again without error.
pub fn verify(bytes: &[u8]) -> Result<Rows<DefectRow>, LoadError> {
    let capture = open(bytes)?;
    Ok(defect_rows(&capture.verify()))
}

fn open(bytes: &[u8]) -> Result<Capture<'_>, LoadError> {
    if bytes.is_empty() {
        return Err(LoadError::Empty);
    }
    Capture::open(bytes).map_err(LoadError::Open)
}

impl Summary {
    /// Summarizes an open capture.
    #[must_use]
    pub fn of(capture: &Capture<'_>) -> Self {
        let header = capture.header();
        let meta = capture.meta();
        let level = capture.level();
        let frames = capture.frames();
        Summary {
            format_version: header.format_version,
            min_reader_version: header.min_reader_version,
            closed: header.closed(),
            level: level.map(sgpt_format::Level::name),
            verbose: level == Some(sgpt_format::Level::Verbose),
            may_quantize: meta.is_none_or(|meta| meta.adapter.backend_name() == "webgpu"),
            // Either spelling of the browser's WebGPU reads as `webgpu` (SGPT_FORMAT.md §3.2).
            adapter: meta
                .map(|meta| Adapter { name: clip(&meta.adapter.name), backend: clip(meta.adapter.backend_name()) }),
            note: meta.map(|meta| clip(&meta.note)).unwrap_or_default(),
            frames: frames.len() as u64,
            frame_numbers: frames
                .first()
                .zip(frames.last())
                .map(|(first, last)| (first.frame_number, last.frame_number)),
            spans: capture.span_count(),
            dropped_spans: capture.dropped_span_count(),
            frames_with_dropped_spans: frames.iter().filter(|frame| frame.dropped_spans > 0).count() as u64,
            topologies: capture.topology_count() as u64,
            passes: pass_table(capture),
            defects: defect_rows(capture.defects()),
            read_back: None,
        }
    }
}

impl Summary {
    /// The pass table's heading, or `None` when there is no table.
    #[must_use]
    pub fn pass_heading(&self) -> Option<String> {
        let topology = self.passes.topology?;
        let all = match self.topologies {
            1 => "the only one".to_owned(),
            count => format!("{count} in all"),
        };
        Some(format!("Passes of topology {topology} ({all})"))
    }

    /// The summary's label/value lines, in display order.
    #[must_use]
    pub fn facts(&self) -> Vec<(&'static str, String)> {
        const NO_META: &str = "unknown (no readable META record)";
        let mut facts = vec![
            (
                "Format version",
                format!(
                    "{} (readable by readers of version {} and newer)",
                    self.format_version, self.min_reader_version
                ),
            ),
            (
                "Closed",
                if self.closed {
                    "yes".to_owned()
                } else {
                    "no: the recording never stopped cleanly; every whole frame is shown".to_owned()
                },
            ),
            ("Level", self.level.map_or_else(|| NO_META.to_owned(), str::to_owned)),
            (
                "Adapter",
                match &self.adapter {
                    None => NO_META.to_owned(),
                    Some(adapter) => adapter.describe(),
                },
            ),
        ];
        if !self.note.is_empty() {
            facts.push(("Note", self.note.clone()));
        }
        facts.push((
            "Frames",
            match self.frame_numbers {
                Some((first, last)) => format!("{} (numbers {first} to {last})", grouped(self.frames)),
                None => "0".to_owned(),
            },
        ));
        facts.push(("GPU spans", grouped(self.spans)));
        facts.push((
            "Read back",
            self.read_back
                .as_ref()
                .map_or_else(|| "checking every frame…".to_owned(), |read| read.describe(self.frames, self.spans)),
        ));
        facts.push((
            "Dropped spans",
            match self.dropped_spans {
                0 => "0".to_owned(),
                dropped => {
                    format!("{} on {}", grouped(dropped), counted(self.frames_with_dropped_spans, "frame"))
                }
            },
        ));
        facts.push(("Topologies", self.topologies.to_string()));
        facts
    }
}

/// One of the toolbar's key facts about the open capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolbarFact {
    /// What the toolbar shows, short.
    pub text: String,
    /// The whole fact, for its tooltip.
    pub title: String,
    /// A loss the reader must not miss (dropped spans, a capture never closed).
    pub alarm: bool,
}

impl Summary {
    /// The toolbar's facts: level, adapter, frames, dropped spans, and a capture that was
    /// never closed. What the capture does not say is said to be unknown, never left out.
    #[must_use]
    pub fn toolbar_facts(&self) -> Vec<ToolbarFact> {
        let fact = |text: String, title: String, alarm: bool| ToolbarFact { text, title, alarm };
        let mut facts = vec![
            match self.level {
                Some(level) => fact(format!("level {level}"), format!("Recorded at level {level}"), self.verbose),
                None => {
                    fact("level unknown".to_owned(), "No readable META record: the level is unknown".to_owned(), true)
                }
            },
            match &self.adapter {
                Some(adapter) => fact(adapter.describe(), format!("Adapter: {}", adapter.describe()), false),
                None => fact(
                    "adapter unknown".to_owned(),
                    "No readable META record: the adapter is unknown".to_owned(),
                    true,
                ),
            },
            fact(
                counted(self.frames, "frame"),
                match self.frame_numbers {
                    Some((first, last)) => format!("{}, numbers {first} to {last}", counted(self.frames, "frame")),
                    None => "No frames".to_owned(),
                },
                self.frames == 0,
            ),
            fact(
                counted(self.dropped_spans, "dropped span"),
                format!(
                    "{} begun but never timed (dropped by the recorder), on {}",
                    counted(self.dropped_spans, "span"),
                    counted(self.frames_with_dropped_spans, "frame")
                ),
                self.dropped_spans > 0,
            ),
        ];
        if !self.closed {
            facts.push(fact(
                "never closed".to_owned(),
                "The recording never stopped cleanly; its index was rebuilt by scanning".to_owned(),
                true,
            ));
        }
        // Other damage found opening it (a cut, a lost directory, skipped bytes or records):
        // the baseline's facts say so too, where it has no banner of its own.
        let damaged = self.defects.shown.iter().filter(|row| row.kind != DefectKind::NotClosed.name()).count()
            + self.defects.omitted;
        if damaged > 0 {
            let damaged = counted(damaged as u64, "defect");
            facts.push(fact(
                damaged.clone(),
                format!(
                    "Opening the capture found {damaged}: only what could be read is shown (the summary lists each)"
                ),
                true,
            ));
        }
        facts
    }
}

fn pass_table(capture: &Capture<'_>) -> PassTable {
    let Some((id, topology)) = capture.topologies().next() else {
        return PassTable::default();
    };
    let graph_count = topology.graph_passes.len();
    let shown_graph = graph_count.min(MAX_ROWS);
    let mut rows: Vec<PassRow> = topology.graph_passes[..shown_graph]
        .iter()
        .map(|pass| PassRow { graph_pass: Some(clip(&pass.name)), gpu_passes: Vec::new() })
        .collect();
    let mut outside = Vec::new();
    let mut gpu_passes_omitted = 0;
    for (index, gpu) in topology.gpu_passes.iter().enumerate() {
        // The label budget counts every GPU pass, including those of omitted graph passes.
        if index >= MAX_ROWS {
            gpu_passes_omitted += 1;
            continue;
        }
        let owner = gpu.graph_pass.map(|graph| graph as usize);
        match owner {
            Some(graph) if graph < shown_graph => rows[graph].gpu_passes.push(clip(&gpu.label)),
            // Its graph pass row was omitted: counted there, not moved under "outside".
            Some(graph) if graph < graph_count => gpu_passes_omitted += 1,
            // No graph pass, or an index the topology does not have: either way it was not
            // opened inside a graph pass this capture describes.
            _ => outside.push(clip(&gpu.label)),
        }
    }
    if !outside.is_empty() {
        rows.push(PassRow { graph_pass: None, gpu_passes: outside });
    }
    PassTable { topology: Some(id), rows, graph_passes_omitted: graph_count - shown_graph, gpu_passes_omitted }
}

/// The defects as bounded, displayable rows.
#[must_use]
pub fn defect_rows(defects: &[Defect]) -> Rows<DefectRow> {
    Rows::bounded(defects.iter().map(|defect| DefectRow {
        kind: defect.kind.name(),
        offset: defect.offset,
        detail: clip(&defect.detail),
    }))
}

/// The first [`MAX_TEXT_CHARS`] characters of `text`, with an ellipsis when it was longer.
pub fn clip(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_on_a_char_boundary() {
        assert_eq!(clip("gbuffer"), "gbuffer");
        let long = "é".repeat(MAX_TEXT_CHARS + 5);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), MAX_TEXT_CHARS + 1);
        assert!(clipped.ends_with("é…"));
        assert_eq!(clip(&"x".repeat(MAX_TEXT_CHARS)), "x".repeat(MAX_TEXT_CHARS));
    }

    #[test]
    fn empty_bytes_are_named_empty_not_foreign() {
        assert_eq!(summarize(&[]), Err(LoadError::Empty));
        assert_eq!(LoadError::Empty.to_string(), "the file is empty (0 bytes)");
    }

    #[test]
    fn foreign_bytes_say_not_an_sgpt_capture() {
        let error = summarize(b"<!doctype html><title>404</title>").expect_err("html is no capture");
        assert!(matches!(error, LoadError::Open(OpenError::NotSgpt { .. })), "{error:?}");
        assert!(error.to_string().starts_with("not an sgpt capture"), "{error}");
    }

    #[test]
    fn adapter_says_when_it_is_unnamed() {
        let adapter = |name: &str, backend: &str| Adapter { name: name.into(), backend: backend.into() };
        assert_eq!(adapter("llvmpipe", "vulkan").describe(), "llvmpipe (vulkan)");
        assert_eq!(adapter("llvmpipe", "").describe(), "llvmpipe");
        assert_eq!(adapter("", "webgpu").describe(), "unnamed (webgpu)");
        assert_eq!(adapter("", "").describe(), "unnamed");
    }

    #[test]
    fn only_a_browser_capture_is_told_its_timestamps_may_be_quantized() {
        let capture = |backend: &str| {
            let meta = sgpt_format::Meta {
                level: Some(sgpt_format::Level::Timing),
                adapter: sgpt_format::AdapterInfo { backend: backend.into(), ..Default::default() },
                ..sgpt_format::Meta::default()
            };
            let writer = sgpt_format::Writer::new(Vec::new(), &meta).expect("writes");
            writer.finish().expect("finishes")
        };
        let may_quantize = |bytes: Vec<u8>| summarize(&bytes).expect("opens").may_quantize;
        assert!(!may_quantize(capture("vulkan")));
        assert!(may_quantize(capture("webgpu")));
        assert!(may_quantize(capture("browser_webgpu")), "the older spelling");
    }

    #[test]
    fn defect_offsets_print_in_hex() {
        let row = DefectRow { kind: "truncated", offset: 0x1a2b, detail: String::new() };
        assert_eq!(row.offset_hex(), "0x1a2b");
    }

    #[test]
    fn bounded_rows_count_what_they_leave_out() {
        let rows = Rows::bounded(0..MAX_ROWS + 7);
        assert_eq!(rows.shown.len(), MAX_ROWS);
        assert_eq!(rows.omitted, 7);
        assert_eq!(rows.total(), MAX_ROWS + 7);
        assert_eq!(rows.shown.last(), Some(&(MAX_ROWS - 1)));
    }
}
