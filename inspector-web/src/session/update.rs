//! What the session reports back to the page, as values: the page (and only the page)
//! applies them to its view state and the DOM.

use sgpt_format::analysis::StatsReport;
use sgpt_format::memory_analysis::Gauges;

use crate::compare_view::CompareView;
use crate::frame_detail::FrameDetail;
use crate::histogram::Histogram;
use crate::icicle::Icicle;
use crate::pass_detail::PassDetail;
use crate::resources::ResourceTable;
use crate::search::ItemKind;
use crate::structure::Structure;
use crate::summary::{DefectRow, Rows, Summary};
use crate::timeline::TimelineModel;
use crate::verify::ReadBack;

/// One change for the page to show.
#[derive(Debug)]
pub enum Update {
    /// Load `ticket` of file `name` began: whatever was shown goes.
    Loading {
        ticket: u64,
        name: String,
    },
    /// The file is gzip: it is inflated first.
    Gzip,
    /// The load failed; the message says why and what to do.
    Failed(String),
    /// The capture is open: its summary, strip, notes and memory records.
    Opened(Box<super::Opened>),
    /// The baseline the capture is compared with, when two were opened.
    BaseOpened(Box<super::BaseOpened>),
    /// The baseline read after the capture was shown could not be opened: why, to show
    /// beside the capture, which stays open alone.
    BaseFailed(String),
    /// The baseline's histogram of the selected pass, beside the candidate's.
    BaseHistogram(Box<Histogram>),
    /// The strip can be laid out and painted, and the workspace shown.
    Ready,
    /// What the link asked for, resolved to frame indices (or the defaults: the first
    /// frame, the whole capture, its first half against its second). The comparison of
    /// `compare` is running only if a `CompareProgress` follows.
    Restored {
        frame: Option<usize>,
        range: Option<(usize, usize)>,
        compare: Option<((usize, usize), (usize, usize))>,
    },
    /// The comparison's two ranges against a baseline read after the session began (side
    /// A's frames are the baseline's); its progress follows.
    CompareRanges((usize, usize), (usize, usize)),
    /// The status line and its progress bar; `None` hides the bar.
    Progress {
        fraction: Option<f64>,
        text: String,
    },
    /// A one-off message for the status line.
    Status(String),
    /// A frame, decoded and modelled for the timeline and the frame views.
    Frame(Box<FrameView>),
    /// A frame that could not be decoded: the timeline shows why.
    FrameFailed {
        index: usize,
        number: u64,
        message: String,
    },
    /// The selected pass in the shown frame, or `None` when nothing (or nothing that runs
    /// in this frame) is selected.
    Pass(Option<Box<PassDetail>>),
    /// The selected pass's time in each frame of the range, reduced for drawing.
    Sparkline(Vec<Option<(u64, u64)>>),
    /// The selected pass's durations over the range, binned.
    Histogram(Box<Histogram>),
    /// The range flame graph is being built: fraction done.
    IcicleProgress(f64),
    Icicle(Box<Icicle>),
    /// A search result is selected: item `index` (into the shown frame's topology) of
    /// `kind`, in the frame now shown.
    Revealed {
        kind: ItemKind,
        index: u32,
    },
    /// Statistics over the range are being computed: fraction done.
    StatsProgress(f64),
    Stats(Box<StatsReport>),
    CompareProgress(f64),
    /// The comparison's verdicts, ready to show.
    Compare(Box<CompareView>),
    /// Every frame was read back: the defects found, and the summary saying so.
    /// `summary` is `None` when there was nothing to read back (a capture without frames).
    Verified {
        defects: Rows<DefectRow>,
        read: ReadBack,
        summary: Option<Box<Summary>>,
    },
    /// The memory gauges, read from a sample of frames.
    Gauges(Gauges),
    /// A file for the browser to save.
    Download {
        bytes: Vec<u8>,
        file_name: String,
        mime: &'static str,
        status: String,
    },
}

/// A shown frame: what the timeline, the structure and the resources views draw.
#[derive(Debug)]
pub struct FrameView {
    pub index: usize,
    pub number: u64,
    pub topology: u32,
    /// The heading over the timeline: the frame's times and what it lacks.
    pub title: String,
    pub timeline: TimelineModel,
    pub structure: Option<Structure>,
    pub resources: Option<ResourceTable>,
    /// The selected GPU pass's block in `timeline`, if it runs in this frame.
    pub selected_block: Option<usize>,
    /// The details pane's view of the frame.
    pub detail: FrameDetail,
}
