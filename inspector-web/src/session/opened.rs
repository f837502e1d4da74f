//! What the page shows of a capture as soon as it is open, from its directory and records
//! alone, before any frame is decoded.

use sgpt_format::compare::context_differences;
use sgpt_format::memory_analysis::GaugeScan;
use sgpt_format::{Capture, DefectKind};

use crate::memory::MemoryView;
use crate::search::SearchIndex;
use crate::strip::StripData;
use crate::summary::{MAX_ROWS, Summary, clip};
use crate::units;

/// How many frames with dropped spans the warning names before "and N more".
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
    /// memory gauges when it declares any: [`OpenedBuild`] run to its end.
    #[must_use]
    pub fn of(capture: &Capture<'_>, name: &str) -> (Self, Option<GaugeScan>) {
        OpenedBuild::new(capture, name).finish()
    }
}

/// [`Opened`] built a part at a time: on a long capture each part walks the index once,
/// tens of ms on eight hours of frames, so a page gives each [`OpenedBuild::step`] a task
/// of its own.
#[derive(Debug)]
pub struct OpenedBuild<'c, 'b> {
    capture: &'c Capture<'b>,
    name: String,
    summary: Option<Summary>,
    strip: Option<StripData>,
    /// Parts built so far.
    built: usize,
}

impl<'c, 'b> OpenedBuild<'c, 'b> {
    #[must_use]
    pub fn new(capture: &'c Capture<'b>, name: &str) -> Self {
        Self { capture, name: name.to_owned(), summary: None, strip: None, built: 0 }
    }

    /// Builds the next part: the summary, the strip's columns, its GPU median, then its
    /// CPU median. `true` once only [`OpenedBuild::finish`]'s part (the search index, the
    /// memory records, the banners) remains.
    pub fn step(&mut self) -> bool {
        match (self.built, &mut self.strip) {
            (0, _) => self.summary = Some(Summary::of(self.capture)),
            (1, strip) => *strip = Some(StripData::columns(self.capture.frames())),
            (2, Some(strip)) => strip.find_median_gpu(),
            (3, Some(strip)) => strip.find_median_cpu(),
            _ => return true,
        }
        self.built += 1;
        false
    }

    /// Every stepped part, built now where a step has not built it: the name, the summary
    /// and the strip.
    fn parts(mut self) -> (String, Summary, StripData) {
        while !self.step() {}
        let capture = self.capture;
        let summary = self.summary.unwrap_or_else(|| Summary::of(capture));
        let strip = self.strip.unwrap_or_else(|| StripData::from_index(capture.frames()));
        (self.name, summary, strip)
    }

    /// What the page shows of the capture as a baseline (building whatever parts remain):
    /// its strip and key facts, none of the rest.
    #[must_use]
    pub fn into_base(self) -> BaseOpened {
        let (name, summary, strip) = self.parts();
        BaseOpened { name, strip, facts: summary.toolbar_facts(), recorded_differently: None }
    }

    /// The capture as opened (building whatever parts remain), and its gauge scan.
    #[must_use]
    pub fn finish(self) -> (Opened, Option<GaugeScan>) {
        let capture = self.capture;
        let (name, summary, strip) = self.parts();
        let (memory, scan) = MemoryView::from_records(capture);
        let notes = capture.notes().iter().take(MAX_ROWS).map(|n| (n.frame_number, clip(&n.text))).collect();
        let opened = Opened {
            name,
            banners: banners(&summary, capture),
            strip,
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
        let unnamed = summary.frames_with_dropped_spans.saturating_sub(frames.len() as u64);
        let more = if unnamed > 0 { format!(" and {} more", units::grouped(unnamed)) } else { String::new() };
        banners.push(format!(
            "{} spans were dropped (begun but never timed; the capture's notes say why), on {} (marked purple in the strip): frames {}{more}. Those frames lack some passes.",
            units::grouped(summary.dropped_spans),
            units::counted(summary.frames_with_dropped_spans, "frame"),
            frames.join(", ")
        ));
    }
    // A capture never closed has its own banner above; any other damage found opening the
    // file (a cut, a lost directory, skipped bytes or records) is named here, since what is
    // shown is then only what could be read.
    let mut kinds: Vec<&str> =
        capture.defects().iter().filter(|d| d.kind != DefectKind::NotClosed).map(|d| d.kind.name()).collect();
    let count = kinds.len();
    // Each kind once, however many and however interleaved.
    kinds.sort_unstable();
    kinds.dedup();
    if count > 0 {
        banners.push(format!(
            "Opening this capture found {} ({}): only what could be read is shown. The summary lists each one.",
            units::counted(count as u64, "defect"),
            kinds.join(", ")
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
    /// A banner when the two were recorded differently: set by [`BaseOpened::against`].
    pub recorded_differently: Option<String>,
}

impl BaseOpened {
    #[must_use]
    pub fn of(capture: &Capture<'_>, name: &str) -> Self {
        OpenedBuild::new(capture, name).into_base()
    }

    /// With the banner on how it and `candidate` were recorded differently, if they were.
    #[must_use]
    pub fn against(mut self, base: &Capture<'_>, candidate: &Capture<'_>) -> Self {
        self.recorded_differently = recorded_differently(base, candidate);
        self
    }
}

/// Says how the baseline (A) and the candidate (B) were recorded differently (level,
/// adapter, driver, timestamps, settings), as `sgpt diff` does: a shift between them holds
/// that difference too. `None` when they were recorded alike.
#[must_use]
pub fn recorded_differently(base: &Capture<'_>, candidate: &Capture<'_>) -> Option<String> {
    let differences = context_differences(&[base.meta()], &[candidate.meta()]);
    if differences.is_empty() {
        return None;
    }
    let each: Vec<String> = differences.iter().map(|d| clip(&format!("{}: {}", d.what, d.values()))).collect();
    Some(format!(
        "The baseline (A) and the candidate (B) were recorded differently ({}), so the comparison's shifts hold that difference too, not only the change under test.",
        each.join(" · ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sgpt_format::synth::{SynthOptions, generate};

    #[test]
    fn built_a_part_at_a_time_it_is_what_it_is_built_at_once() {
        let bytes = generate(&SynthOptions { frames: 300, passes: 20, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("a synthetic capture opens");
        let mut build = OpenedBuild::new(&capture, "synth.sgpt");
        let parts = std::iter::from_fn(|| (!build.step()).then_some(())).count();
        assert_eq!(parts, 4, "the summary, the strip's columns, and each median, one a step");
        assert!(build.step(), "nothing is left for a step once they are built");
        let (opened, _) = build.finish();
        assert_eq!(opened.strip, StripData::from_index(capture.frames()));
        assert!(opened.strip.median_gpu_ns > 0 && opened.strip.median_cpu_ns > 0);
        assert_eq!(opened.summary, Summary::of(&capture));
        let base = OpenedBuild::new(&capture, "base.sgpt").into_base();
        assert_eq!((base.strip, base.facts), (opened.strip, opened.summary.toolbar_facts()));
    }

    /// The banners of fixture `name` once opened.
    fn banners_of(name: &str) -> Vec<String> {
        let path = format!("{}/../fixtures/v1/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).expect("fixture");
        let capture = Capture::open(&bytes).expect("the fixture opens");
        OpenedBuild::new(&capture, name).finish().0.banners
    }

    #[test]
    fn a_baseline_recorded_differently_says_how_and_one_recorded_alike_says_nothing() {
        let read = |name: &str| std::fs::read(format!("{}/../fixtures/v1/{name}", env!("CARGO_MANIFEST_DIR")));
        let (timing, verbose) =
            (read("level_timing.sgpt").expect("fixture"), read("level_verbose.sgpt").expect("fixture"));
        let (timing, verbose) = (Capture::open(&timing).expect("opens"), Capture::open(&verbose).expect("opens"));
        let banner = BaseOpened::of(&timing, "a.sgpt").against(&timing, &verbose).recorded_differently;
        assert_eq!(
            banner.as_deref(),
            Some(
                "The baseline (A) and the candidate (B) were recorded differently (level: A timing; B verbose · timestamps inside passes: A no; B yes), so the comparison's shifts hold that difference too, not only the change under test."
            )
        );
        assert_eq!(BaseOpened::of(&timing, "a.sgpt").against(&timing, &timing).recorded_differently, None);
    }

    #[test]
    fn dropped_spans_name_the_first_frames_and_count_the_rest() {
        // The workload drops 3 spans every 97th frame: 15 frames in 1,500.
        let bytes = generate(&SynthOptions { frames: 1_500, passes: 20, ..SynthOptions::default() });
        let capture = Capture::open(&bytes).expect("a synthetic capture opens");
        let banners = OpenedBuild::new(&capture, "synth.sgpt").finish().0.banners;
        let named: Vec<String> = (0..NAMED_DROPPED_FRAMES).map(|k| format!("{} (3)", 96 + 97 * k)).collect();
        let expected = format!(
            "45 spans were dropped (begun but never timed; the capture's notes say why), on 15 frames (marked purple in the strip): frames {} and 3 more. Those frames lack some passes.",
            named.join(", ")
        );
        assert_eq!(banners, [expected]);
    }

    #[test]
    fn a_capture_that_opened_with_defects_says_so_and_a_whole_one_does_not() {
        let cut = banners_of("truncated.sgpt");
        assert!(
            cut.iter().any(|b| b.starts_with("Opening this capture found 2 defects (directory_invalid, truncated):")),
            "{cut:?}"
        );
        let never_closed = banners_of("never_closed.sgpt");
        assert!(never_closed.iter().any(|b| b.contains("never closed")), "{never_closed:?}");
        assert!(!never_closed.iter().any(|b| b.starts_with("Opening this capture found")), "{never_closed:?}");
        assert_eq!(banners_of("level_timing.sgpt"), Vec::<String>::new());
    }
}
