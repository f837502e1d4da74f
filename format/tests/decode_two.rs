//! Two frames' spans decoded at once (`Capture::for_each_span_two`, which the statistics'
//! scan runs on) hand over exactly what `Capture::for_each_span` does frame by frame:
//! the same spans in the same order and the same defects, over spans of every shape the
//! span section stores and over every damaged fixture.

use sgpt_format::synth::generate;
use sgpt_format::{Capture, Defect, Span};

#[path = "support/shapes.rs"]
mod shapes;
#[path = "support/span_shapes.rs"]
mod span_shapes;
#[path = "support/topologies.rs"]
mod topologies;
#[path = "support/v1_fixtures.rs"]
mod v1_fixtures;
use shapes::shapes;
use span_shapes::every_span_shape;
use v1_fixtures::{fixture, fixture_names};

/// What `for_each_span` gives for frame `index`: its spans, or its defect.
fn one_at_a_time(capture: &Capture<'_>, index: usize) -> Result<Vec<Span>, Defect> {
    let mut spans = Vec::new();
    capture.for_each_span(index, |span| spans.push(span)).map(|()| spans)
}

/// Every pair of `pairs` read at once agrees with each frame read alone.
fn check_pairs(capture: &Capture<'_>, pairs: impl Iterator<Item = [usize; 2]>) -> usize {
    let mut checked = 0;
    for [a, b] in pairs {
        let (mut spans_a, mut spans_b) = (Vec::new(), Vec::new());
        let [result_a, result_b] =
            capture.for_each_span_two([a, b], |span| spans_a.push(span), |span| spans_b.push(span));
        // A frame with a defect hands over nothing to rely on; its defect is compared.
        assert_eq!(result_a.map(|()| spans_a), one_at_a_time(capture, a), "frame {a} of the pair ({a}, {b})");
        assert_eq!(result_b.map(|()| spans_b), one_at_a_time(capture, b), "frame {b} of the pair ({a}, {b})");
        checked += 1;
    }
    checked
}

/// Each frame, then each pair of neighbours, pairs far apart, and a frame with itself.
fn pairs(frames: usize) -> impl Iterator<Item = [usize; 2]> {
    (0..frames.saturating_sub(1))
        .map(|a| [a, a + 1])
        .chain((0..frames).map(move |a| [a, (a * 7 + 3) % frames]))
        .chain((0..frames).map(|a| [a, a]))
}

#[test]
fn synthetic_frames_of_every_shape_decode_two_at_once_as_one_at_a_time() {
    for (name, options) in shapes() {
        let bytes = generate(&options);
        let capture = Capture::open(&bytes).expect(name);
        assert!(check_pairs(&capture, pairs(capture.frames().len())) > 100, "{name}");
    }
}

#[test]
fn spans_of_every_shape_the_section_stores_decode_two_at_once_as_one_at_a_time() {
    let bytes = every_span_shape();
    let capture = Capture::open(&bytes).expect("the capture opens");
    let frames = capture.frames().len();
    let all = (0..frames).flat_map(|a| (0..frames).map(move |b| [a, b]));
    assert_eq!(check_pairs(&capture, all), frames * frames);
}

#[test]
fn damaged_fixtures_decode_two_at_once_as_one_at_a_time_defects_included() {
    let (mut checked, mut damaged) = (0, 0);
    for name in fixture_names() {
        let bytes = fixture(&name);
        let Ok(capture) = Capture::open(&bytes) else { continue };
        let frames = capture.frames().len();
        check_pairs(&capture, pairs(frames));
        checked += 1;
        damaged += usize::from((0..frames).any(|index| one_at_a_time(&capture, index).is_err()));
    }
    assert!(checked > 20, "only {checked} fixtures opened");
    assert!(damaged > 0, "some fixture has a frame that does not decode");
}
