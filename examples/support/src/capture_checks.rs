//! Checks every example's test makes on its capture: the spans are the frame's own, each
//! GPU pass has one, and the encoder-level spans hold the passes their bracket began.

use std::collections::HashMap;

use sgpt_format::{Capture, Frame, GpuPassKind, Span};

/// Opens a capture the recorder wrote, checks it is intact, and decodes every frame.
///
/// # Panics
/// When the capture does not open, has a defect, or a frame does not decode.
#[must_use]
pub fn open(bytes: &[u8]) -> (Capture<'_>, Vec<Frame>) {
    let capture = Capture::open(bytes).expect("the capture opens");
    assert!(capture.verify().is_empty(), "defects: {:?}", capture.verify());
    let frames = (0..capture.frames().len()).map(|i| capture.frame(i).expect("every frame decodes")).collect();
    (capture, frames)
}

/// `frame`'s GPU passes in the order it opened them: kind, label, and the name of the graph
/// pass it is attributed to.
///
/// # Panics
/// When the frame's topology is missing or names a graph pass it does not hold.
#[must_use]
pub fn passes_of(capture: &Capture<'_>, frame: &Frame) -> Vec<(GpuPassKind, String, Option<String>)> {
    let topology = capture.topology(frame.topology).expect("the frame's topology");
    let graph_pass_name = |index: u32| topology.graph_passes[index as usize].name.clone();
    topology
        .gpu_passes
        .iter()
        .map(|pass| (pass.kind, pass.label.clone(), pass.graph_pass.map(graph_pass_name)))
        .collect()
}

/// Asserts that nothing was dropped and that every GPU pass of the frame has exactly one
/// span, none inverted.
///
/// # Panics
/// When a span is missing, repeated or inverted, or one was dropped.
pub fn assert_every_pass_timed(capture: &Capture<'_>, frame: &Frame) {
    let topology = capture.topology(frame.topology).expect("the frame's topology");
    assert_eq!(frame.dropped_spans, 0, "frame {} dropped spans", frame.frame_number);
    let timed: Vec<u32> = frame.spans.iter().map(|span| span.pass).collect();
    let expected: Vec<u32> = (0..topology.gpu_passes.len() as u32).collect();
    assert_eq!(timed, expected, "frame {}: one span per GPU pass, in order", frame.frame_number);
    for span in &frame.spans {
        assert!(span.end_ns >= span.begin_ns, "frame {}: {span:?} is inverted", frame.frame_number);
    }
}

/// Asserts that every span lies inside its own frame: none repeats another frame's values,
/// and none begins before the previous frame's last span ended on the same query set.
///
/// # Panics
/// On the first span that breaks either rule.
pub fn assert_no_stale_spans(frames: &[Frame]) {
    let mut seen: HashMap<(u64, u64), u64> = HashMap::new();
    let mut previous_end: HashMap<u8, u64> = HashMap::new();
    for frame in frames {
        for span in &frame.spans {
            if let Some(other) = seen.insert((span.begin_ns, span.end_ns), frame.frame_number) {
                assert_eq!(other, frame.frame_number, "frame {} repeats a span of frame {other}", frame.frame_number);
            }
            if let Some(&end) = previous_end.get(&span.query_set) {
                assert!(
                    span.begin_ns >= end,
                    "frame {}: {span:?} begins before the previous frame's last span on its set ended ({end})",
                    frame.frame_number
                );
            }
        }
        for span in &frame.spans {
            let end = previous_end.entry(span.query_set).or_default();
            *end = (*end).max(span.end_ns);
        }
    }
}

/// Asserts that frames ran in the order they were submitted on the one queue: each frame's
/// earliest span begins no earlier than the previous frame's latest span ended, whichever
/// query sets they came from. Stronger than [`assert_no_stale_spans`], which compares a set
/// only with its own last use; it holds where every set reads the same device clock, as on
/// Vulkan (lavapipe).
///
/// # Panics
/// On the first frame that begins before the one before it ended.
pub fn assert_frames_follow_each_other(frames: &[Frame]) {
    let mut previous: Option<(u64, u64)> = None;
    for frame in frames {
        let Some(begin) = frame.spans.iter().map(|span| span.begin_ns).min() else { continue };
        let end = frame.spans.iter().map(|span| span.end_ns).max().unwrap_or(begin);
        if let Some((number, previous_end)) = previous {
            assert!(
                begin >= previous_end,
                "frame {} begins at {begin}, before frame {number} ended at {previous_end}",
                frame.frame_number
            );
        }
        previous = Some((frame.frame_number, end));
    }
}

/// Asserts that each GPU pass begun in a graph pass lies inside that bracket's span of kind
/// `encoder` (the nearest one before it of the same graph pass), on the same query set.
/// Returns how many passes were checked, so a caller can tell it checked something.
///
/// # Panics
/// When a pass has no encoder-level span before it, or lies outside it.
pub fn assert_encoder_spans_contain_their_passes(capture: &Capture<'_>, frame: &Frame) -> usize {
    let topology = capture.topology(frame.topology).expect("the frame's topology");
    let span_of = |pass: usize| -> &Span {
        frame.spans.iter().find(|span| span.pass as usize == pass).expect("every pass has a span")
    };
    let mut checked = 0;
    for (index, pass) in topology.gpu_passes.iter().enumerate() {
        let Some(graph_pass) = pass.graph_pass else { continue };
        if pass.kind == GpuPassKind::Encoder {
            continue;
        }
        let bracket = topology.gpu_passes[..index]
            .iter()
            .rposition(|other| other.kind == GpuPassKind::Encoder && other.graph_pass == Some(graph_pass))
            .unwrap_or_else(|| panic!("frame {}: {:?} has no encoder-level span", frame.frame_number, pass.label));
        let (outer, inner) = (span_of(bracket), span_of(index));
        assert_eq!(outer.query_set, inner.query_set, "frame {}: {:?} on another set", frame.frame_number, pass.label);
        assert!(
            outer.begin_ns <= inner.begin_ns && inner.end_ns <= outer.end_ns,
            "frame {}: {:?} {inner:?} lies outside its bracket's encoder span {outer:?}",
            frame.frame_number,
            pass.label
        );
        checked += 1;
    }
    checked
}

/// Checks the capture of a program whose one render pass a library draws in: begun by the
/// program itself and timed through a `PassTimer`, inside the graph pass `graph_pass`.
/// Every one of `frames` frames holds the bracket's encoder-level span and that pass, both
/// timed and attributed, with no commands (the library's draws never pass through the
/// recorder); and one NOTE, on the first frame, says they are missing, not zero.
///
/// # Panics
/// When any of that does not hold.
pub fn assert_timed_only_pass(bytes: &[u8], frames: u64, graph_pass: &str, pass_label: &str) {
    let (capture, decoded) = open(bytes);
    assert_eq!(decoded.len() as u64, frames);
    let attributed = |kind, label: &str| (kind, label.to_owned(), Some(graph_pass.to_owned()));
    for frame in &decoded {
        assert_eq!(
            passes_of(&capture, frame),
            [attributed(GpuPassKind::Encoder, graph_pass), attributed(GpuPassKind::Render, pass_label)],
            "frame {}",
            frame.frame_number
        );
        assert!(
            frame.commands.is_empty(),
            "frame {}: the library's draws never pass through the recorder",
            frame.frame_number
        );
        assert_every_pass_timed(&capture, frame);
        assert_eq!(assert_encoder_spans_contain_their_passes(&capture, frame), 1);
    }
    assert_no_stale_spans(&decoded);
    assert_frames_follow_each_other(&decoded);
    let notes: Vec<_> = capture.notes().iter().filter(|note| note.text.contains(&format!("{pass_label:?}"))).collect();
    assert_eq!(notes.len(), 1, "{:?}", capture.notes());
    assert_eq!(notes[0].frame_number, 0);
    assert!(notes[0].text.contains("its commands (draws, dispatches, pipelines) are not"), "{}", notes[0].text);
}
