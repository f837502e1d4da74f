//! The session's logic without a browser: what it restores, the order and bounds of its
//! slices, that a replaced job's results never arrive, what it reports, and how it waits
//! for the workers it hands statistics to, driven by a scripted capture and a clock that
//! moves only when the test moves it.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use sgpt_format::analysis::scan::piece::PieceShare;
use sgpt_format::analysis::scan::{PIECE_FRAMES, PieceScanner};
use sgpt_format::analysis::{self, StatsReport};
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Frame, FramePiece, GpuPass, GpuPassKind, Level, Meta, Span, SpanKind, Topology, Writer};
use sgpt_inspector::compare_view::CompareView;
use sgpt_inspector::session::{Command, Restore, Session, Update};
use sgpt_inspector::slicing::{Clock, JobKind, SLICE_TIME, Slice, SliceReport, Yield};
use sgpt_inspector::summary::Summary;

/// A clock that moves only when told to.
#[derive(Default)]
struct HandClock(Cell<Duration>);

impl Clock for HandClock {
    fn now(&self) -> Duration {
        self.0.get()
    }
}

fn capture_bytes(frames: u32) -> Vec<u8> {
    generate(&SynthOptions { frames, passes: 12, level: Level::Workload, seed: 11, ..SynthOptions::default() })
}

/// Another run of [`capture_bytes`]' workload: a candidate to compare with it.
fn candidate_bytes(frames: u32) -> Vec<u8> {
    generate(&SynthOptions { frames, passes: 12, level: Level::Workload, seed: 12, ..SynthOptions::default() })
}

/// Asserts that `updates` show the comparison of all of `base` against all of `capture`
/// exactly as the engine makes it from the collector's samples.
fn assert_compared_whole(updates: &[Update], base: &Capture<'_>, capture: &Capture<'_>) {
    let view = updates.iter().find_map(|u| if let Update::Compare(v) = u { Some(v) } else { None });
    let expected = sgpt_format::compare::compare(
        &sgpt_format::compare::Samples::collect(base, 0..base.frames().len()),
        &sgpt_format::compare::Samples::collect(capture, 0..capture.frames().len()),
        &sgpt_format::compare::CompareOptions::default(),
    );
    assert_eq!(**view.expect("compared"), CompareView::new(&expected));
}

/// Runs slices on a frozen clock until the session is idle; returns every update and
/// every slice report, and how many slices it took.
fn drain(session: &mut Session<'_>) -> (Vec<Update>, Vec<SliceReport>, usize) {
    let clock = HandClock::default();
    let mut updates = session.take_updates();
    let mut reports = session.take_reports();
    let mut slices = 0;
    while session.busy() {
        session.work(&Slice::start(&clock));
        updates.extend(session.take_updates());
        reports.extend(session.take_reports());
        slices += 1;
        assert!(slices < 10_000, "the session goes idle");
    }
    (updates, reports, slices)
}

fn stats(updates: &[Update]) -> Vec<&StatsReport> {
    updates.iter().filter_map(|u| if let Update::Stats(report) = u { Some(report.as_ref()) } else { None }).collect()
}

#[test]
fn without_a_link_it_shows_the_first_frame_over_the_whole_capture_and_compares_its_halves() {
    let bytes = capture_bytes(101);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&Restore::default());
    let updates = session.take_updates();
    match &updates[0] {
        Update::Restored { frame, range, compare } => {
            assert_eq!(*frame, Some(0));
            assert_eq!(*range, Some((0, 100)));
            assert_eq!(*compare, Some(((0, 49), (50, 100))));
        }
        other => panic!("first the restored state, not {other:?}"),
    }
    let Update::Frame(view) = &updates[1] else { panic!("then the frame, not {:?}", updates[1]) };
    assert_eq!((view.index, view.number), (0, capture.frames()[0].frame_number));
    assert!(view.selected_block.is_none(), "nothing was selected");
    assert!(view.title.starts_with(&format!("Frame {} · GPU", view.number)), "{}", view.title);
    assert!(matches!(updates[2], Update::Pass(None)), "no pass detail: {:?}", updates[2]);
}

#[test]
fn a_link_restores_frame_range_comparison_and_pass_by_frame_number() {
    let bytes = capture_bytes(60);
    let capture = Capture::open(&bytes).expect("synth opens");
    let number = |index: usize| capture.frames()[index].frame_number;
    let restore = Restore {
        frame: Some(number(7)),
        range: Some((number(5), number(40))),
        compare: Some(((number(5), number(9)), (number(30), number(40)))),
        pass: Some(2),
        compare_now: true,
    };
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&restore);
    let (updates, _, _) = drain(&mut session);
    let Update::Restored { frame, range, compare } = &updates[0] else { panic!("{:?}", updates[0]) };
    assert_eq!((*frame, *range, *compare), (Some(7), Some((5, 40)), Some(((5, 9), (30, 40)))));
    let Update::Frame(view) = &updates[1] else { panic!("{:?}", updates[1]) };
    assert_eq!(view.index, 7);
    let block = view.selected_block.expect("pass 2 runs in frame 7");
    assert_eq!(view.timeline.find_gpu_pass(2), Some(block));
    assert!(matches!(&updates[2], Update::Pass(Some(_))), "the pass's detail: {:?}", updates[2]);
    // Statistics over exactly the restored range, equal to the analysis.
    let reports = stats(&updates);
    assert_eq!(reports.len(), 1);
    assert_eq!(*reports[0], analysis::pass_stats(&capture, 5..41));
    let sparkline = updates.iter().find_map(|u| if let Update::Sparkline(p) = u { Some(p) } else { None });
    assert_eq!(sparkline.expect("the pass's sparkline").len(), 36, "one point a frame of the range");
    let compare = updates.iter().find_map(|u| if let Update::Compare(v) = u { Some(v) } else { None });
    let samples = |range| sgpt_format::compare::Samples::collect(&capture, range);
    let options = sgpt_format::compare::CompareOptions::default();
    let expected = sgpt_format::compare::compare(&samples(5..10), &samples(30..41), &options);
    assert_eq!(
        **compare.expect("the comparison"),
        CompareView::new(&expected),
        "the engine's verdicts, as sgpt diff's"
    );
}

#[test]
fn a_link_naming_frames_the_capture_lacks_falls_back_to_the_defaults() {
    let bytes = capture_bytes(20);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&Restore { frame: Some(u64::MAX), range: Some((0, u64::MAX)), ..Restore::default() });
    let updates = session.take_updates();
    let Update::Restored { frame, range, .. } = &updates[0] else { panic!("{:?}", updates[0]) };
    assert_eq!((*frame, *range), (Some(0), Some((0, 19))));
}

#[test]
fn slices_run_jobs_in_order_within_their_caps_and_show_one_result_a_slice() {
    let bytes = capture_bytes(3_000);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "big.sgpt", None);
    session.restore(&Restore { pass: Some(1), compare_now: true, ..Restore::default() });
    let (updates, reports, slices) = drain(&mut session);
    let order = [
        JobKind::Gauges,
        JobKind::Spark,
        JobKind::Histogram,
        JobKind::Stats,
        JobKind::Icicle,
        JobKind::Compare,
        JobKind::Verify,
    ];
    let mut last = None;
    let mut shares = 0;
    for report in &reports {
        assert!(report.units <= report.job.cap(), "{report:?} within its cap");
        // The clock never moved: every share ends by its cap or by finishing.
        assert!(matches!(report.why, Some(Yield::Cap | Yield::Done)), "{report:?}");
        let at = order.iter().position(|&k| k == report.job).expect("a session job");
        if let Some(previous) = last
            && at <= previous
        {
            shares = 0; // a new slice began
        }
        last = Some(at);
        shares += 1;
        assert!(shares <= order.len(), "each job once a slice");
    }
    // Verification reads every frame (and hands on its three pieces), 1,024 units a slice:
    // it finishes in the third slice; the results (spark, histogram, stats, compare,
    // verify) are shown one a slice, after their jobs.
    assert_eq!(frames_read_back(&updates), Some(3_000));
    let finished = reports.iter().filter(|r| r.why == Some(Yield::Done)).count();
    assert_eq!(finished, 5, "spark, histogram, stats, compare and verify each finish once");
    assert!(slices >= finished, "one result shown a slice");
    assert_eq!(*stats(&updates)[0], analysis::pass_stats(&capture, 0..3_000));
    assert!(updates.iter().any(|u| matches!(u, Update::Verified { summary: Some(_), .. })));
    // Once idle, the status line says so.
    let Some(Update::Progress { fraction, .. }) = updates.iter().rev().find(|u| matches!(u, Update::Progress { .. }))
    else {
        panic!("progress is reported")
    };
    assert_eq!(*fraction, None);
}

#[test]
fn a_slice_whose_time_is_spent_does_no_more_work() {
    let bytes = capture_bytes(2_000);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "big.sgpt", None);
    session.restore(&Restore::default());
    let _ = session.take_reports();
    let clock = HandClock::default();
    let slice = Slice::start(&clock);
    clock.0.set(SLICE_TIME);
    session.work(&slice);
    assert!(session.take_reports().is_empty(), "no job gets a share of a spent slice");
    assert!(session.busy());
}

#[test]
fn a_new_range_cancels_the_statistics_under_way_and_only_its_results_arrive() {
    let bytes = capture_bytes(2_500);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "big.sgpt", None);
    session.restore(&Restore::default());
    let clock = HandClock::default();
    session.work(&Slice::start(&clock));
    assert!(session.handle(Command::Range(100, 199)));
    let cancelled = session.take_reports();
    assert!(cancelled.contains(&SliceReport::cancelled(JobKind::Stats, 0)), "{cancelled:?}");
    let (updates, _, _) = drain(&mut session);
    let reports = stats(&updates);
    assert_eq!(reports.len(), 1, "the first range's statistics never arrive");
    assert_eq!(*reports[0], analysis::pass_stats(&capture, 100..200));
}

#[test]
fn closing_cancels_every_job_still_under_way() {
    let bytes = capture_bytes(2_000);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "big.sgpt", None);
    session.restore(&Restore::default());
    let _ = session.take_reports();
    assert!(!session.handle(Command::Close), "close ends the session");
    session.close();
    let reports = session.take_reports();
    let kinds: Vec<JobKind> = reports.iter().map(|r| r.job).collect();
    assert_eq!(kinds, [JobKind::Stats, JobKind::Verify], "the comparison waits for its view");
    assert!(!session.busy());
}

#[test]
fn export_names_the_file_after_the_capture_and_frames_that_fail_say_why() {
    let bytes = capture_bytes(4);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "https://example.org/runs/night.sgpt.gz", None);
    session.handle(Command::Export);
    let updates = session.take_updates();
    let Some(Update::Download { bytes, file_name, mime, status }) = updates.first() else {
        panic!("a download: {updates:?}")
    };
    assert_eq!((file_name.as_str(), *mime), ("night.trace.json", "application/json"));
    let json = std::str::from_utf8(bytes).expect("JSON is UTF-8");
    assert!(json.starts_with('{') && json.contains("\"traceEvents\""), "Chrome Trace JSON");
    assert!(status.starts_with("Exported "), "{status}");

    let corrupted =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/corrupted.sgpt")).expect("fixture");
    let capture = Capture::open(&corrupted).expect("opens");
    let bad = capture.frames().iter().position(|f| f.frame_number == 6).expect("frame 6 is indexed");
    let mut session = Session::new(&capture, "corrupted.sgpt", None);
    session.handle(Command::Frame(bad));
    let updates = session.take_updates();
    let Some(Update::FrameFailed { index, number, message }) = updates.first() else { panic!("{updates:?}") };
    assert_eq!((*index, *number), (bad, 6));
    assert!(message.starts_with("Frame 6 could not be decoded: "), "{message}");
}

#[test]
fn a_search_result_is_shown_in_a_frame_that_holds_it_nearest_the_shown_one() {
    let bytes = two_topologies();
    let capture = Capture::open(&bytes).expect("synth opens");
    let index = sgpt_inspector::search::SearchIndex::new(&capture);
    let shown = 12.min(capture.frames().len() - 1);
    let shown_topology = capture.frames()[shown].topology;
    // An item absent from the shown frame's topology, present in another.
    let elsewhere = index
        .items()
        .iter()
        .find(|item| item.kind == sgpt_inspector::search::ItemKind::Pass && item.index_in(shown_topology).is_none())
        .expect("a pass only some topologies hold");
    let mut session = Session::new(&capture, "two.sgpt", None);
    session.handle(Command::Frame(shown));
    let _ = session.take_updates();
    session.handle(Command::Reveal { kind: elsewhere.kind, places: elsewhere.places.clone() });
    let updates = session.take_updates();
    let Some(Update::Frame(view)) = updates.first() else { panic!("another frame is shown: {updates:?}") };
    let holds = |i: usize| elsewhere.index_in(capture.frames()[i].topology).is_some();
    assert!(holds(view.index));
    let nearest = (0..capture.frames().len()).filter(|&i| holds(i)).min_by_key(|&i| (i.abs_diff(shown), i));
    assert_eq!(Some(view.index), nearest, "the nearest frame that holds it, earlier first");
    let expected = elsewhere.index_in(view.topology).expect("held there");
    assert_eq!(view.selected_block, view.timeline.find_gpu_pass(expected));
    assert!(matches!(updates.last(), Some(Update::Revealed { index, .. }) if *index == expected), "{updates:?}");

    // One the shown frame holds is selected there, without decoding another frame.
    let here = index.items().iter().find(|item| item.index_in(view.topology).is_some()).expect("an item here");
    session.handle(Command::Reveal { kind: here.kind, places: here.places.clone() });
    let updates = session.take_updates();
    assert!(!updates.iter().any(|u| matches!(u, Update::Frame(_))), "{updates:?}");
    assert!(matches!(updates.last(), Some(Update::Revealed { .. })));
}

#[test]
fn the_flame_graph_is_built_once_asked_and_follows_the_range_after() {
    let bytes = capture_bytes(300);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&Restore::default());
    let (updates, _, _) = drain(&mut session);
    assert!(!updates.iter().any(|u| matches!(u, Update::Icicle(_))), "not built before the view asks");
    session.handle(Command::Icicle);
    let (updates, _, _) = drain(&mut session);
    let icicles: Vec<_> =
        updates.iter().filter_map(|u| if let Update::Icicle(i) = u { Some(i) } else { None }).collect();
    assert_eq!(icicles.len(), 1);
    assert_eq!(icicles[0].range, 0..300);
    let stats = analysis::pass_stats(&capture, 0..300);
    assert_eq!((icicles[0].spans, icicles[0].zero_spans), (stats.spans, stats.zero_spans));
    session.handle(Command::Range(10, 19));
    let (updates, _, _) = drain(&mut session);
    let ranges: Vec<_> =
        updates.iter().filter_map(|u| if let Update::Icicle(i) = u { Some(i.range.clone()) } else { None }).collect();
    assert_eq!(ranges, vec![(10..20)], "rebuilt for the new range");
}

#[test]
fn showing_another_frame_does_not_recount_the_selected_pass_over_the_same_range() {
    let bytes = capture_bytes(200);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&Restore { pass: Some(1), ..Restore::default() });
    let (updates, _, _) = drain(&mut session);
    let count = |updates: &[Update]| {
        updates.iter().filter(|u| matches!(u, Update::Sparkline(_) | Update::Histogram(_))).count()
    };
    assert_eq!(count(&updates), 2, "one sparkline and one histogram");
    session.handle(Command::Frame(50));
    let (updates, reports, _) = drain(&mut session);
    assert_eq!(count(&updates), 0, "same pass, same range: nothing recounted");
    assert!(reports.iter().all(|r| r.job != JobKind::Spark && r.job != JobKind::Histogram), "{reports:?}");
    session.handle(Command::Range(0, 99));
    let (updates, _, _) = drain(&mut session);
    assert_eq!(count(&updates), 2, "a new range recounts both");
}

/// 30 frames: frames 0–9 and 20–29 of topology A (`draw`, `blur`), frames 10–19 of
/// topology B (`draw`, `bloom`), so `bloom` is only in the middle third.
fn two_topologies() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("writer");
    let pass = |label: &str| GpuPass { label: label.into(), kind: GpuPassKind::Compute, ..GpuPass::default() };
    let a = writer.topology(&Topology { gpu_passes: vec![pass("draw"), pass("blur")], ..Topology::default() });
    let b = writer.topology(&Topology { gpu_passes: vec![pass("draw"), pass("bloom")], ..Topology::default() });
    let (a, b) = (a.expect("topology"), b.expect("topology"));
    for number in 0..30u64 {
        let topology = if (10..20).contains(&number) { b } else { a };
        let t = number * 1_000_000;
        let spans = (0..2)
            .map(|pass| Span {
                pass,
                kind: SpanKind::Pass,
                query_set: 0,
                begin_ns: t + u64::from(pass) * 500,
                end_ns: t + u64::from(pass) * 500 + 400,
            })
            .collect();
        writer.frame(&Frame { frame_number: number, topology, spans, ..Frame::default() }).expect("frame");
    }
    writer.finish().expect("finish")
}

#[test]
fn against_a_baseline_the_comparison_is_its_frames_against_the_range() {
    let (base_bytes, bytes) = (capture_bytes(120), candidate_bytes(90));
    let (base, capture) = (Capture::open(&base_bytes).expect("opens"), Capture::open(&bytes).expect("opens"));
    let mut session = Session::new(&capture, "candidate.sgpt", None).with_base(&base);
    session.restore(&Restore::default());
    let (updates, _, _) = drain(&mut session);
    let Update::Restored { compare, .. } = &updates[0] else { panic!("{:?}", updates[0]) };
    assert_eq!(*compare, Some(((0, 119), (0, 89))), "all of the baseline against all of the candidate");
    assert_compared_whole(&updates, &base, &capture);
}

#[test]
fn the_comparison_of_one_capture_waits_for_its_view() {
    let bytes = capture_bytes(120);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "demo.sgpt", None);
    session.restore(&Restore::default());
    let (updates, reports, _) = drain(&mut session);
    let Update::Restored { compare: Some((a, b)), .. } = updates[0] else { panic!("{:?}", updates[0]) };
    assert!(!updates.iter().any(|u| matches!(u, Update::Compare(_) | Update::CompareProgress(_))));
    assert!(reports.iter().all(|r| r.job != JobKind::Compare), "no samples collected");
    // The view asks for the ranges the restore resolved.
    session.handle(Command::Compare(a, b));
    let (updates, _, _) = drain(&mut session);
    assert!(matches!(updates[0], Update::CompareProgress(p) if p == 0.0));
    assert!(updates.iter().any(|u| matches!(u, Update::Compare(_))));
}

/// A scanner that scans each piece as it is sent, from a copy of its bytes as a worker
/// gets them, and hands the answers back only once the test releases them, latest first.
#[derive(Debug, Default)]
struct Held {
    share: Option<PieceShare>,
    held: Vec<(usize, Vec<u8>)>,
    released: VecDeque<(usize, Vec<u8>)>,
    /// Pieces sent to scan, and pieces sent to check their frames.
    sent: usize,
    checks_sent: usize,
    begun: u64,
}

#[derive(Debug)]
struct HeldScanner(Rc<RefCell<Held>>);

impl PieceScanner for HeldScanner {
    fn begin(&mut self, share: &PieceShare) {
        let mut held = self.0.borrow_mut();
        held.share = Some(share.clone());
        held.held.clear();
        held.released.clear();
        held.begun += 1;
    }

    fn generation(&self) -> u64 {
        self.0.borrow().begun
    }

    fn has_room(&self) -> bool {
        self.0.borrow().held.len() < 2
    }

    fn send(&mut self, number: usize, piece: &FramePiece<'_>) {
        let mut held = self.0.borrow_mut();
        let (entries, bytes) = (piece.entries().to_vec(), piece.bytes().to_vec());
        let copy = FramePiece::new(piece.first(), &entries, piece.base(), &bytes);
        let share = held.share.as_ref().expect("begun");
        let checks = matches!(share, PieceShare::Check(_));
        let answer = share.answer(&copy);
        held.held.push((number, answer));
        if checks {
            held.checks_sent += 1;
        } else {
            held.sent += 1;
        }
    }

    fn receive(&mut self) -> Option<(usize, Result<Vec<u8>, String>)> {
        let (number, answer) = self.0.borrow_mut().released.pop_front()?;
        Some((number, Ok(answer)))
    }
}

/// What a session handing its statistics to a [`HeldScanner`] did, slice by slice, until
/// it went idle: the scanner's answers are released whenever the session says it waits.
struct HeldRun {
    updates: Vec<Update>,
    reports: Vec<SliceReport>,
    waits: usize,
    /// The verification's units (frames checked, pieces sent or merged) before the
    /// statistics job finished.
    checked_before_stats: u64,
    /// Pieces the scanner was sent to check their frames.
    checks_sent: usize,
}

fn run_with_held(bytes: &[u8], takes_every_core: bool) -> (Capture<'_>, HeldRun, usize) {
    let capture = Capture::open(bytes).expect("synth opens");
    let (run, sent) = run_session_with_held(&capture, None, takes_every_core);
    (capture, run, sent)
}

/// [`run_with_held`] over `capture`, compared with `base` where one is given. Returns
/// the run and how many pieces the scanner was sent.
fn run_session_with_held<'c>(
    capture: &'c Capture<'c>,
    base: Option<&'c Capture<'c>>,
    takes_every_core: bool,
) -> (HeldRun, usize) {
    let held = Rc::new(RefCell::new(Held::default()));
    let run = {
        let mut session = Session::new(capture, "workers.sgpt", None)
            .with_scanner(Box::new(HeldScanner(Rc::clone(&held))), takes_every_core);
        if let Some(base) = base {
            session = session.with_base(base);
        }
        session.restore(&Restore::default());
        let mut run = HeldRun {
            updates: session.take_updates(),
            reports: session.take_reports(),
            waits: 0,
            checked_before_stats: 0,
            checks_sent: 0,
        };
        drive(&mut session, &held, &mut run, usize::MAX);
        // Shares are reported in the order they ran.
        let finished = run.reports.iter().position(|r| r.job == JobKind::Stats && r.why == Some(Yield::Done));
        let before = &run.reports[..finished.expect("the statistics finish")];
        run.checked_before_stats = before.iter().filter(|r| r.job == JobKind::Verify).map(|r| r.units).sum();
        run.checks_sent = held.borrow().checks_sent;
        run
    };
    let sent = held.borrow().sent;
    (run, sent)
}

/// Runs `session` on a frozen clock until it is idle or has run `most` slices, releasing
/// the scanner's answers whenever the session says it waits; adds what it did to `run`.
fn drive(session: &mut Session<'_>, held: &Rc<RefCell<Held>>, run: &mut HeldRun, most: usize) {
    let clock = HandClock::default();
    let mut slices = 0;
    while session.busy() && slices < most {
        if session.waiting() {
            // Nothing else to do: the page would sleep until an answer came. Answer.
            let mut held = held.borrow_mut();
            let answers = std::mem::take(&mut held.held);
            held.released.extend(answers.into_iter().rev());
            run.waits += 1;
        }
        session.work(&Slice::start(&clock));
        run.updates.extend(session.take_updates());
        run.reports.extend(session.take_reports());
        // A session that never says it waits while only the scanner has work would
        // spin here, its answers never released.
        slices += 1;
        assert!(run.waits < 10_000 && slices < 100_000, "the session goes idle");
    }
}

/// The frames the check of every frame found to read back, once it was shown.
fn frames_read_back(updates: &[Update]) -> Option<u64> {
    updates.iter().find_map(|u| if let Update::Verified { read, .. } = u { Some(read.frames) } else { None })
}

#[test]
fn statistics_handed_to_a_scanner_wait_for_it_and_are_the_analysis_exactly() {
    let bytes = capture_bytes(9_000);
    let (capture, run, sent) = run_with_held(&bytes, false);
    assert_eq!(stats(&run.updates), [&analysis::pass_stats(&capture, 0..9_000)]);
    assert_eq!(sent, 9_000usize.div_ceil(PIECE_FRAMES), "9,000 frames in pieces, every one sent");
    assert!(run.waits >= 1, "the session said when only the scanner had work");
    let stats_reports: Vec<_> = run.reports.iter().filter(|report| report.job == JobKind::Stats).collect();
    assert!(stats_reports.iter().any(|report| report.why == Some(Yield::Waiting)), "{stats_reports:?}");
    assert!(
        stats_reports.iter().all(|report| report.why.is_some()),
        "every share says why it ended: {stats_reports:?}"
    );
    // With a core to spare, the page checks frames while the scanner works.
    assert!(run.checked_before_stats > 0);
}

#[test]
fn frames_are_checked_once_a_comparison_under_way_is_shown() {
    let bytes = capture_bytes(3_000);
    let capture = Capture::open(&bytes).expect("synth opens");
    let mut session = Session::new(&capture, "big.sgpt", None);
    session.restore(&Restore { compare_now: true, ..Restore::default() });
    let (updates, reports, _) = drain(&mut session);
    let compared = reports.iter().position(|r| r.job == JobKind::Compare && r.why == Some(Yield::Done));
    let before = &reports[..compared.expect("the comparison finishes")];
    let checked_before: u64 = before.iter().filter(|r| r.job == JobKind::Verify).map(|r| r.units).sum();
    assert_eq!(checked_before, 0, "no frame checked while the comparison was under way");
    assert_eq!(frames_read_back(&updates), Some(3_000), "every frame checked after all");
    let at = |wanted: fn(&Update) -> bool| updates.iter().position(wanted).expect("shown");
    let compared = at(|u| matches!(u, Update::Compare(_)));
    assert!(compared < at(|u| matches!(u, Update::Verified { .. })));
    // Meanwhile the status line says what runs, not the check standing still: the check
    // is named only once the comparison has ended.
    let said: Vec<&str> = updates
        .iter()
        .filter_map(|u| if let Update::Progress { text, .. } = u { Some(text.as_str()) } else { None })
        .collect();
    let comparing = said.iter().rposition(|text| text.starts_with("Comparing, then checking every frame…"));
    let checking = said.iter().position(|text| text.starts_with("Checking every frame"));
    assert!(comparing.expect("said while comparing") < checking.expect("said while checking"), "{said:?}");
}

#[test]
fn where_the_workers_take_every_core_frames_are_checked_once_the_statistics_are_shown() {
    let bytes = capture_bytes(9_000);
    let (capture, run, sent) = run_with_held(&bytes, true);
    assert_eq!(stats(&run.updates), [&analysis::pass_stats(&capture, 0..9_000)]);
    assert_eq!(sent, 9_000usize.div_ceil(PIECE_FRAMES));
    assert_eq!(run.checked_before_stats, 0, "no frame checked while the statistics were under way");
    assert!(run.waits >= 1, "the held check does not keep the page awake");
    let at = |wanted: fn(&Update) -> bool| run.updates.iter().position(wanted).expect("shown");
    assert!(at(|u| matches!(u, Update::Stats(_))) < at(|u| matches!(u, Update::Verified { .. })));
    assert_eq!(frames_read_back(&run.updates), Some(9_000), "every frame checked after all");
    assert_eq!(run.checks_sent, 9_000usize.div_ceil(PIECE_FRAMES), "by the workers, once they were free");
}

#[test]
fn the_verification_adds_what_reads_back_to_the_summary_shown_at_open() {
    let bytes = capture_bytes(300);
    let capture = Capture::open(&bytes).expect("synth opens");
    // Told apart from one built from the index again.
    let opened = Summary { closed: !Summary::of(&capture).closed, ..Summary::of(&capture) };
    let mut session = Session::new(&capture, "summary.sgpt", None).with_summary(opened.clone());
    session.restore(&Restore::default());
    let (updates, _, _) = drain(&mut session);
    let verified = updates.iter().find_map(|u| match u {
        Update::Verified { summary: Some(summary), read, .. } => Some((summary.as_ref(), read)),
        _ => None,
    });
    let (summary, read) = verified.expect("verified");
    assert_eq!(read.frames, 300);
    assert_eq!(summary, &Summary { read_back: Some(read.clone()), ..opened });
}

/// Against a baseline, with workers on every core: the statistics over the candidate's
/// range collect its side of the comparison as they go, so the candidate is read once;
/// the comparison waits for them, then hands the baseline to the workers. The verdicts
/// are the collector's samples' exactly.
#[test]
fn against_a_baseline_with_workers_each_capture_is_read_once_and_compared_exactly() {
    let (base_bytes, bytes) = (capture_bytes(5_000), candidate_bytes(3_500));
    let (base, capture) = (Capture::open(&base_bytes).expect("opens"), Capture::open(&bytes).expect("opens"));
    let (run, sent) = run_session_with_held(&capture, Some(&base), true);
    assert_eq!(stats(&run.updates), [&analysis::pass_stats(&capture, 0..3_500)]);
    assert_eq!(
        sent,
        3_500usize.div_ceil(PIECE_FRAMES) + 5_000usize.div_ceil(PIECE_FRAMES),
        "each capture's pieces once"
    );
    assert_compared_whole(&run.updates, &base, &capture);
    // Nothing of the comparison ran before the statistics were done: the baseline is
    // small enough that its scan keeps every duration, so it places no windows from a
    // sample (which a comparison reads on the page meanwhile) and is at its pieces at once.
    let stats_done = run.reports.iter().position(|r| r.job == JobKind::Stats && r.why == Some(Yield::Done));
    let before = &run.reports[..stats_done.expect("the statistics finish")];
    assert!(before.iter().filter(|r| r.job == JobKind::Compare).all(|r| r.units == 0), "{before:?}");
    let compare_reports: Vec<_> = run.reports.iter().filter(|r| r.job == JobKind::Compare).collect();
    assert!(compare_reports.iter().any(|r| r.why == Some(Yield::Waiting)), "the comparison waited for the workers");
}

/// Against a baseline, with a core to spare: the comparison scans the baseline on the
/// page beside the workers, then has nothing to do but wait for the statistics' samples
/// of the candidate. The session then says it waits, so the page sleeps rather than
/// slice a job with nothing to do.
#[test]
fn a_comparison_waiting_for_the_statistics_lets_the_page_sleep() {
    let (base_bytes, bytes) = (capture_bytes(2_000), candidate_bytes(3_500));
    let (base, capture) = (Capture::open(&base_bytes).expect("opens"), Capture::open(&bytes).expect("opens"));
    let (run, sent) = run_session_with_held(&capture, Some(&base), false);
    assert_eq!(stats(&run.updates), [&analysis::pass_stats(&capture, 0..3_500)]);
    assert_eq!(sent, 3_500usize.div_ceil(PIECE_FRAMES), "the candidate's pieces; the page scanned the baseline");
    assert_compared_whole(&run.updates, &base, &capture);
}

/// A baseline still being read when the session starts: the statistics over the
/// candidate run meanwhile and keep its samples, nothing is compared and the status line
/// is left to the read; the baseline's arrival, `slices` slices in (after the statistics
/// are done, or while they run), resolves the ranges and compares with the samples kept.
/// Each capture is read once, and the verdicts are the collector's samples' exactly.
fn compare_with_a_baseline_arriving_after(slices: usize) {
    let (base_bytes, bytes) = (capture_bytes(5_000), candidate_bytes(3_500));
    let (base, capture) = (Capture::open(&base_bytes).expect("opens"), Capture::open(&bytes).expect("opens"));
    let held = Rc::new(RefCell::new(Held::default()));
    let mut session = Session::new(&capture, "candidate.sgpt", None)
        .with_scanner(Box::new(HeldScanner(Rc::clone(&held))), true)
        .with_base_coming();
    session.restore(&Restore::default());
    let mut run = HeldRun {
        updates: session.take_updates(),
        reports: Vec::new(),
        waits: 0,
        checked_before_stats: 0,
        checks_sent: 0,
    };
    let Update::Restored { compare, .. } = &run.updates[0] else { panic!("{:?}", run.updates[0]) };
    assert_eq!(*compare, None, "the ranges wait for the baseline");
    // A comparison asked for meanwhile waits for the baseline too.
    assert!(session.handle(Command::Compare((0, 10), (0, 10))));
    drive(&mut session, &held, &mut run, slices);
    assert!(!run.updates.iter().any(|u| matches!(u, Update::Compare(_) | Update::CompareProgress(_))));
    assert!(
        !run.updates.iter().any(|u| matches!(u, Update::Progress { .. })),
        "the status line is the baseline's read's"
    );
    // Checking every frame waits for the comparison, and does not keep the page awake.
    let checked =
        |reports: &[SliceReport]| -> u64 { reports.iter().filter(|r| r.job == JobKind::Verify).map(|r| r.units).sum() };
    assert_eq!(checked(&run.reports), 0);
    if slices == usize::MAX {
        assert!(!session.busy(), "idle until the baseline comes");
    }
    session.set_base(&base);
    run.updates.extend(session.take_updates());
    drive(&mut session, &held, &mut run, usize::MAX);
    assert!(run.updates.iter().any(|u| matches!(u, Update::CompareRanges((0, 4_999), (0, 3_499)))));
    assert_eq!(stats(&run.updates), [&analysis::pass_stats(&capture, 0..3_500)]);
    assert_compared_whole(&run.updates, &base, &capture);
    let sent = held.borrow().sent;
    assert_eq!(sent, 3_500usize.div_ceil(PIECE_FRAMES) + 5_000usize.div_ceil(PIECE_FRAMES), "each capture once");
    assert_eq!(frames_read_back(&run.updates), Some(3_500), "every frame checked, after all");
    assert_eq!(held.borrow().checks_sent, 3_500usize.div_ceil(PIECE_FRAMES), "by the workers");
}

#[test]
fn a_baseline_read_after_the_statistics_finished_is_compared_with_the_samples_they_kept() {
    compare_with_a_baseline_arriving_after(usize::MAX);
}

#[test]
fn a_baseline_read_while_the_statistics_run_takes_their_samples_as_they_finish() {
    // Under way, at their last pieces, and done with their result not shown yet.
    for slices in 1..=3 {
        compare_with_a_baseline_arriving_after(slices);
    }
}

#[test]
fn a_link_s_comparison_against_a_baseline_read_later_is_the_frames_it_names() {
    let (base_bytes, bytes) = (capture_bytes(120), candidate_bytes(90));
    let (base, capture) = (Capture::open(&base_bytes).expect("opens"), Capture::open(&bytes).expect("opens"));
    let number = |capture: &Capture<'_>, index: usize| capture.frames()[index].frame_number;
    let link = ((number(&base, 10), number(&base, 59)), (number(&capture, 30), number(&capture, 89)));
    let mut session = Session::new(&capture, "candidate.sgpt", None).with_base_coming();
    session.restore(&Restore { compare: Some(link), ..Restore::default() });
    let (mut updates, _, _) = drain(&mut session);
    session.set_base(&base);
    updates.extend(drain(&mut session).0);
    assert!(updates.iter().any(|u| matches!(u, Update::CompareRanges((10, 59), (30, 89)))), "{updates:?}");
    let view = updates.iter().find_map(|u| if let Update::Compare(v) = u { Some(v) } else { None });
    let expected = sgpt_format::compare::compare(
        &sgpt_format::compare::Samples::collect(&base, 10..60),
        &sgpt_format::compare::Samples::collect(&capture, 30..90),
        &sgpt_format::compare::CompareOptions::default(),
    );
    assert_eq!(**view.expect("compared"), CompareView::new(&expected));
}

#[test]
fn a_baseline_that_cannot_be_opened_leaves_the_capture_served_alone() {
    let bytes = capture_bytes(300);
    let capture = Capture::open(&bytes).expect("synth opens");
    for compare_now in [false, true] {
        let mut session = Session::new(&capture, "candidate.sgpt", None).with_base_coming();
        session.restore(&Restore { compare_now, ..Restore::default() });
        let (mut updates, mut reports, _) = drain(&mut session);
        assert!(!reports.iter().any(|r| r.job == JobKind::Verify), "the check waits for the baseline");
        session.base_failed();
        assert!(session.busy(), "the check is under way again");
        let (more, more_reports, _) = drain(&mut session);
        updates.extend(more);
        reports.extend(more_reports);
        assert_eq!(frames_read_back(&updates), Some(300));
        // The Compare view compares the capture's own halves: at once where the link said so.
        assert!(updates.iter().any(|u| matches!(u, Update::CompareRanges((0, 149), (150, 299)))), "{updates:?}");
        let compared = updates.iter().find_map(|u| if let Update::Compare(v) = u { Some(v) } else { None });
        assert_eq!(compared.is_some(), compare_now);
        if let Some(view) = compared {
            let expected = sgpt_format::compare::compare(
                &sgpt_format::compare::Samples::collect(&capture, 0..150),
                &sgpt_format::compare::Samples::collect(&capture, 150..300),
                &sgpt_format::compare::CompareOptions::default(),
            );
            assert_eq!(**view, CompareView::new(&expected));
        }
    }
}
