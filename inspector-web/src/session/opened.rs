//! What the page shows of a capture as soon as it is open, from its directory and records
//! alone, before any frame is decoded.

use sgpt_format::Capture;
use sgpt_format::memory_analysis::GaugeScan;

use crate::memory::MemoryView;
use crate::search::SearchIndex;
use crate::strip::StripData;
use crate::summary::{MAX_ROWS, Summary, clip};
use crate::units;

/// How many frames with dropped spans the warning names before "…".
const NAMED_DROPPED_FRAMES: usize = 12;

/// A capture, just opened.
#[derive(Debug)]
pub struct Opened {
    pub name: String,
    pub summary: Summary,
    pub strip: StripData,
    /// Warnings shown above the workspace, in order.
    pub banners: Vec<String>,
    /// (frame number, text), at most [`MAX_ROWS`]; `omitted_notes` says how many more.
    pub notes: Vec<(u64, String)>,
    pub omitted_notes: usize,
    /// The memory records; gauges are read later, in slices.
    pub memory: MemoryView,
    /// The capture declares memory gauges, still to be read.
    pub gauges_pending: bool,
    /// Of those, domain gauges: the lane under the strip is shown.
    pub has_domains: bool,
    /// Every pass, graph pass and resource by name, for the search.
    pub search: SearchIndex,
}

impl Opened {
    /// Builds what `capture` shows before a frame is decoded, and the scan that reads its
    /// memory gauges when it declares any.
    #[must_use]
    pub fn of(capture: &Capture<'_>, name: &str) -> (Self, Option<GaugeScan>) {
        let summary = Summary::of(capture);
        let (memory, scan) = MemoryView::from_records(capture);
        let notes = capture.notes().iter().take(MAX_ROWS).map(|n| (n.frame_number, clip(&n.text))).collect();
        let opened = Self {
            name: name.to_owned(),
            banners: banners(&summary, capture),
            strip: StripData::from_index(capture.frames()),
            notes,
            omitted_notes: capture.notes().len().saturating_sub(MAX_ROWS),
            memory,
            gauges_pending: scan.is_some(),
            has_domains: scan.as_ref().is_some_and(GaugeScan::has_domains),
            search: SearchIndex::new(capture),
            summary,
        };
        (opened, scan)
    }
}

fn banners(summary: &Summary, capture: &Capture<'_>) -> Vec<String> {
    let mut banners = Vec::new();
    if !summary.closed {
        banners.push("This capture was never closed: the recording stopped without reaching stop (a crash, a tab kill, a lost device). Every whole frame is shown; its index was rebuilt by scanning.".to_owned());
    }
    if summary.dropped_spans > 0 {
        let frames: Vec<String> = capture
            .frames()
            .iter()
            .filter(|f| f.dropped_spans > 0)
            .take(NAMED_DROPPED_FRAMES)
            .map(|f| format!("{} ({})", f.frame_number, f.dropped_spans))
            .collect();
        let more = if summary.frames_with_dropped_spans > NAMED_DROPPED_FRAMES as u64 { ", …" } else { "" };
        banners.push(format!(
            "{} spans were dropped (begun but never timed; the capture's notes say why), on {} frames (marked purple in the strip): frames {}{more}. Those frames lack some passes.",
            units::grouped(summary.dropped_spans),
            summary.frames_with_dropped_spans,
            frames.join(", ")
        ));
    }
    if summary.verbose {
        banners.push("Recorded at level verbose: recording bind groups and indirect counts perturbs the timings it measures. Use it to understand a frame, not to time it.".to_owned());
    }
    if capture.frames().is_empty() {
        banners.push("This capture holds no frames.".to_owned());
    }
    banners
}

/// The baseline a candidate is compared with: what the page shows of it (its strip,
/// above the candidate's, and its key facts).
#[derive(Debug)]
pub struct BaseOpened {
    pub name: String,
    pub strip: StripData,
    pub facts: Vec<crate::summary::ToolbarFact>,
}

impl BaseOpened {
    #[must_use]
    pub fn of(capture: &Capture<'_>, name: &str) -> Self {
        Self {
            name: name.to_owned(),
            strip: StripData::from_index(capture.frames()),
            facts: Summary::of(capture).toolbar_facts(),
        }
    }
}
