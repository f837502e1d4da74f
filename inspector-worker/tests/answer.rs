//! What the worker answers: a piece's figures exactly as the page would scan them, for the
//! job whose share it holds, and a reason, never figures, for anything else.

use sgpt_format::Capture;
use sgpt_format::FramePiece;
use sgpt_format::analysis::scan::piece::{PieceShare, ScanShare, encode_entries};
use sgpt_format::analysis::scan::{PieceScanner, ScanJob, Windows};
use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{CheckShare, FrameChecks};
use sgpt_stats_worker::Answerer;

/// Takes the share a job hands out, and nothing else.
#[derive(Debug, Default)]
struct ShareTaker(Option<String>);

impl PieceScanner for ShareTaker {
    fn begin(&mut self, share: &PieceShare) {
        self.0 = Some(share.to_json());
    }
    fn has_room(&self) -> bool {
        self.0.is_none()
    }
    fn send(&mut self, _: usize, _: &FramePiece<'_>) {}
    fn receive(&mut self) -> Option<(usize, Result<Vec<u8>, String>)> {
        None
    }
    fn generation(&self) -> u64 {
        u64::from(self.0.is_some())
    }
}

/// The share `job` hands out when it is given a scanner.
fn share_of(job: &mut ScanJob<'_, '_>) -> String {
    let mut taker = ShareTaker::default();
    let mut budget = 2;
    // Two units: the job sends its first piece, which begins the scanner.
    let _ = job.step_with(Some(&mut taker), &mut || {
        budget -= 1;
        budget >= 0
    });
    taker.0.expect("the job handed out its share")
}

/// The scan's share in `json`, as a worker parses it.
fn scan_share(json: &str) -> Result<ScanShare, String> {
    match PieceShare::from_json(json).map_err(|error| error.to_string())? {
        PieceShare::Scan(share) => Ok(share),
        PieceShare::Check(_) => Err("a check's share".to_owned()),
    }
}

#[test]
fn a_piece_is_answered_with_its_figures_for_the_current_job_only() {
    let bytes = generate(&SynthOptions { frames: 300, passes: 5, seed: 4, ..SynthOptions::default() });
    let capture = Capture::open(&bytes).expect("opens");
    let share_json = share_of(&mut ScanJob::new(&capture, 0..300, Windows::All));
    let share = scan_share(&share_json).expect("parses");
    let piece = capture.piece(10..200);
    let entries = encode_entries(piece.entries());

    let mut answerer = Answerer::default();
    let before = answerer.answer(1, piece.first(), piece.base(), &entries, piece.bytes());
    assert!(before.is_err(), "no share yet");
    answerer.begin(7, &share_json);
    let figures = answerer.answer(7, piece.first(), piece.base(), &entries, piece.bytes()).expect("answers");
    assert_eq!(figures, share.scan(&piece).encode(), "the worker's figures are the page's own");
    assert_eq!(share.decode(&figures).expect("decodes").frames(), 10..200);
    assert!(answerer.answer(6, piece.first(), piece.base(), &entries, piece.bytes()).is_err(), "an older job's piece");
    assert!(answerer.answer(7, piece.first(), piece.base(), &entries[..60], piece.bytes()).is_err(), "cut entries");
    answerer.begin(8, "not json");
    let why = answerer
        .answer(8, piece.first(), piece.base(), &entries, piece.bytes())
        .expect_err("a share that did not parse");
    assert!(why.contains("share"), "{why}");
}

#[test]
fn a_piece_of_a_comparison_s_side_is_answered_with_its_samples() {
    let bytes = generate(&SynthOptions { frames: 300, passes: 5, seed: 4, ..SynthOptions::default() });
    let capture = Capture::open(&bytes).expect("opens");
    let share_json = share_of(&mut ScanJob::with_samples(&capture, 0..300, Windows::All, true));
    let share = scan_share(&share_json).expect("parses");
    let plain = scan_share(&share_of(&mut ScanJob::new(&capture, 0..300, Windows::All))).expect("parses");
    let piece = capture.piece(10..200);
    let entries = encode_entries(piece.entries());
    let mut answerer = Answerer::default();
    answerer.begin(3, &share_json);
    let figures = answerer.answer(3, piece.first(), piece.base(), &entries, piece.bytes()).expect("answers");
    assert_eq!(figures, share.scan(&piece).encode(), "the worker's figures are the page's own");
    assert!(share.decode(&figures).is_ok());
    // Samples are a byte a frame for each of the usual passes, beside the statistics'.
    let statistics_alone = plain.scan(&piece).encode();
    assert!(figures.len() >= statistics_alone.len() + 5 * 190, "{} bytes", figures.len());
    assert!(plain.decode(&figures).is_err(), "a share without samples refuses figures with them");
}

#[test]
fn a_piece_to_check_is_answered_with_what_verify_finds_of_its_frames() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/corrupted.sgpt")).expect("fixture");
    let capture = Capture::open(&bytes).expect("opens");
    let frames = capture.frames().len();
    let share_json = PieceShare::Check(capture.check_share()).to_json();
    let mut answerer = Answerer::default();
    answerer.begin(2, &share_json);
    // Two pieces, checked from copies of their bytes, then merged in order.
    let mut checks = FrameChecks::default();
    for range in [0..5, 5..frames] {
        let piece = capture.piece(range.clone());
        let (entries, copy) = (encode_entries(piece.entries()), piece.bytes().to_vec());
        let answer = answerer.answer(2, piece.first(), piece.base(), &entries, &copy).expect("answers");
        let (of, piece_checks) = CheckShare::decode(&answer).expect("decodes");
        assert_eq!(of, range);
        checks.append(piece_checks);
    }
    let (defects, counts) = capture.verified(checks);
    assert_eq!(counts.lost.iter().map(|lost| lost.frame_number).collect::<Vec<_>>(), [6], "a frame is lost");
    assert_eq!((defects, counts), capture.verify_counting());
}
