//! `sgpt diff` names every way its recordings were made differently (level, adapter,
//! timestamps, settings), since a shift between them holds that difference too; recordings
//! made alike get no such note.

mod support;

use serde_json::{Value, json};
use sgpt_format::{Frame, Level, Meta, NamedText, Topology, Writer};
use support::{Temp, fixture, json, sgpt, succeeded};

/// `sgpt args…` as JSON, having exited 0: `diff` exits 3 only where a gate trips, and no
/// pair here has a gate.
fn json_of(args: &[&str]) -> Value {
    let output = sgpt(args);
    succeeded(&output);
    json(&output)
}

/// `level_verbose.sgpt` was recorded at level verbose on a device with timestamps inside
/// passes, `level_timing.sgpt` at level timing without; their adapters and settings match.
#[test]
fn a_verbose_recording_against_a_timing_one_is_named_in_every_format() {
    let (a, b) = (fixture("level_timing.sgpt"), fixture("level_verbose.sgpt"));
    let report = json_of(&["diff", &a, &b, "--json"]);
    assert_eq!(
        report["recorded_differently"],
        json!([
            { "what": "level", "a": ["timing"], "b": ["verbose"] },
            { "what": "timestamps inside passes", "a": ["no"], "b": ["yes"] },
        ])
    );

    let text = succeeded(&sgpt(&["diff", &a, &b]));
    assert!(
        text.contains(
            "\nnote: A and B were recorded differently, so the shifts hold that difference too, not only the \
             change under test:\n  level: A timing; B verbose\n  timestamps inside passes: A no; B yes\nGPU frame time"
        ),
        "{text}"
    );

    let markdown = succeeded(&sgpt(&["diff", &a, &b, "--format", "markdown"]));
    assert!(markdown.contains("(level: A timing; B verbose · timestamps inside passes: A no; B yes).\n"), "{markdown}");
}

#[test]
fn several_recordings_a_side_give_each_ones_value_and_alike_ones_give_none() {
    let (timing, verbose) = (fixture("level_timing.sgpt"), fixture("level_verbose.sgpt"));
    let report = json_of(&["diff", &timing, &timing, "--vs", &verbose, &timing, "--json"]);
    assert_eq!(
        report["recorded_differently"][0],
        json!({ "what": "level", "a": ["timing", "timing"], "b": ["verbose", "timing"] })
    );
    // The difference may lie within one side, so the note speaks of the recordings.
    let text = succeeded(&sgpt(&["diff", &timing, &timing, "--vs", &verbose, &timing]));
    assert!(text.contains("\nnote: the recordings were made differently, so the shifts hold"), "{text}");
    assert!(text.contains("\n  level: A timing, timing; B verbose, timing\n"), "{text}");

    let alike = json_of(&["diff", &timing, &timing, "--json"]);
    assert_eq!(alike["recorded_differently"], json!([]));
    let text = succeeded(&sgpt(&["diff", &timing, &timing]));
    assert!(!text.contains("recorded differently"), "{text}");
}

/// A capture of one empty frame whose META holds `setting`, as a recorder could write it.
fn with_setting(file: &str, setting: (&str, &str)) -> Temp {
    let settings = vec![NamedText { name: setting.0.to_owned(), value: setting.1.to_owned() }];
    let meta = Meta { level: Some(Level::Timing), settings, ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("meta");
    let topology = writer.topology(&Topology::default()).expect("topology");
    writer.frame(&Frame { frame_number: 0, topology, ..Frame::default() }).expect("frame");
    let temp = Temp::new(file);
    std::fs::write(temp.path(), writer.finish().expect("finish")).expect("write");
    temp
}

#[test]
fn a_settings_name_and_values_from_the_captures_are_printed_as_data() {
    // An escape sequence in a setting's name and values must not reach the terminal.
    let a = with_setting("a.sgpt", ("mode\u{1b}[31m", "on\u{7}"));
    let b = with_setting("b.sgpt", ("mode\u{1b}[31m", "off"));
    let text = succeeded(&sgpt(&["diff", a.arg(), b.arg()]));
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "{text:?}");
    assert!(text.contains("\n  setting mode\\u{1b}[31m: A on\\u{7}; B off\n"), "{text}");
    let markdown = succeeded(&sgpt(&["diff", a.arg(), b.arg(), "--format", "markdown"]));
    assert!(!markdown.contains('\u{1b}'), "{markdown:?}");
}
