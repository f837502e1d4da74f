//! What the inspector's summary shows for captures written by the real writer.

use sgpt_format::analysis::check::CheckJob;
use sgpt_format::{
    AdapterInfo, Capture, Frame, GpuPass, GraphPass, HEADER_LEN, Header, Level, Meta, ReadableCounts, Span, Topology,
    Writer,
};
use sgpt_inspector::summary::{
    Adapter, DefectRow, LoadError, MAX_ROWS, MAX_TEXT_CHARS, PassRow, Summary, summarize, verify,
};
use sgpt_inspector::verify::ReadBack;

fn meta(level: Level) -> Meta {
    Meta {
        level: Some(level),
        adapter: AdapterInfo {
            name: "llvmpipe (LLVM 19.1.7, 256 bits)".into(),
            backend: "vulkan".into(),
            ..AdapterInfo::default()
        },
        note: "hitch after the cascade change".into(),
        ..Meta::default()
    }
}

fn gpu(label: &str, graph_pass: Option<u32>) -> GpuPass {
    GpuPass { label: label.into(), graph_pass, ..GpuPass::default() }
}

/// Shadow opens two GPU passes, main one; a blit runs outside the graph.
fn scene() -> Topology {
    Topology {
        graph_passes: ["shadow", "main"].map(|name| GraphPass { name: name.into(), ..GraphPass::default() }).to_vec(),
        gpu_passes: vec![
            gpu("shadow cascade 0", Some(0)),
            gpu("shadow cascade 1", Some(0)),
            gpu("main", Some(1)),
            gpu("blit", None),
        ],
        ..Topology::default()
    }
}

/// Frames 10..15, one span per GPU pass; frame 12 dropped 3 spans.
fn write_scene(level: Level) -> Writer<Vec<u8>> {
    let mut writer = Writer::new(Vec::new(), &meta(level)).expect("meta names a level");
    let topology = writer.topology(&scene()).expect("topology");
    for frame_number in 10..15 {
        let mut frame = Frame { frame_number, topology, ..Frame::default() };
        for pass in 0..4 {
            let begin_ns = 1_000 * u64::from(pass);
            frame.spans.push(Span { pass, begin_ns, end_ns: begin_ns + 500, ..Span::default() });
        }
        frame.dropped_spans = if frame_number == 12 { 3 } else { 0 };
        writer.frame(&frame).expect("frame");
    }
    writer
}

fn scene_bytes() -> Vec<u8> {
    write_scene(Level::Structure).finish().expect("finish")
}

#[test]
fn closed_capture_summary_counts_everything_from_the_index() {
    let summary = summarize(&scene_bytes()).expect("a closed capture opens");
    assert_eq!(summary.format_version, 1);
    assert_eq!(summary.min_reader_version, 1);
    assert!(summary.closed);
    assert_eq!(summary.level, Some("structure"));
    assert!(!summary.verbose);
    assert_eq!(
        summary.adapter,
        Some(Adapter { name: "llvmpipe (LLVM 19.1.7, 256 bits)".into(), backend: "vulkan".into() })
    );
    assert_eq!(summary.note, "hitch after the cascade change");
    assert_eq!(summary.frames, 5);
    assert_eq!(summary.frame_numbers, Some((10, 14)));
    assert_eq!(summary.spans, 20);
    assert_eq!(summary.dropped_spans, 3);
    assert_eq!(summary.frames_with_dropped_spans, 1);
    assert_eq!(summary.topologies, 1);
    assert_eq!(summary.defects.total(), 0);
}

#[test]
fn both_spellings_of_the_browser_backend_name_it_webgpu() {
    let adapter_of = |backend: &str| {
        let meta =
            Meta { adapter: AdapterInfo { backend: backend.into(), ..AdapterInfo::default() }, ..meta(Level::Timing) };
        let bytes = Writer::new(Vec::new(), &meta).expect("meta names a level").finish().expect("finish");
        summarize(&bytes).expect("opens").adapter.expect("META read")
    };
    // What the recorder writes, and the spelling the spec once gave.
    assert_eq!(adapter_of("webgpu"), adapter_of("browser_webgpu"));
    assert_eq!(adapter_of("browser_webgpu").describe(), "unnamed (webgpu)");
    assert_eq!(adapter_of("vulkan").backend, "vulkan");
}

#[test]
fn pass_table_groups_gpu_passes_under_the_graph_pass_that_opened_them() {
    let passes = summarize(&scene_bytes()).expect("opens").passes;
    assert_eq!(passes.topology, Some(0));
    assert_eq!(
        passes.rows,
        vec![
            PassRow {
                graph_pass: Some("shadow".into()),
                gpu_passes: vec!["shadow cascade 0".into(), "shadow cascade 1".into()],
            },
            PassRow { graph_pass: Some("main".into()), gpu_passes: vec!["main".into()] },
            PassRow { graph_pass: None, gpu_passes: vec!["blit".into()] },
        ]
    );
    assert_eq!((passes.graph_passes_omitted, passes.gpu_passes_omitted), (0, 0));
    assert_eq!(passes.omitted_note(), None);
}

#[test]
fn pass_heading_names_the_topology_shown_and_how_many_there_are() {
    let summary = summarize(&scene_bytes()).expect("opens");
    assert_eq!(summary.pass_heading().as_deref(), Some("Passes of topology 0 (the only one)"));

    let mut writer = Writer::new(Vec::new(), &meta(Level::Timing)).expect("meta");
    writer.topology(&scene()).expect("first");
    let mut second = scene();
    second.gpu_passes.pop();
    writer.topology(&second).expect("second");
    let summary = summarize(&writer.finish().expect("finish")).expect("opens");
    assert_eq!(summary.topologies, 2);
    assert_eq!(summary.pass_heading().as_deref(), Some("Passes of topology 0 (2 in all)"));
}

#[test]
fn facts_read_as_sentences_in_display_order() {
    let facts = summarize(&scene_bytes()).expect("opens").facts();
    let expected: Vec<(&str, String)> = vec![
        ("Format version", "1 (readable by readers of version 1 and newer)".into()),
        ("Closed", "yes".into()),
        ("Level", "structure".into()),
        ("Adapter", "llvmpipe (LLVM 19.1.7, 256 bits) (vulkan)".into()),
        ("Note", "hitch after the cascade change".into()),
        ("Frames", "5 (numbers 10 to 14)".into()),
        ("GPU spans", "20".into()),
        // Opening reads the index only; what reads back is known once every frame is checked.
        ("Read back", "checking every frame…".into()),
        ("Dropped spans", "3 on 1 frame".into()),
        ("Topologies", "1".into()),
    ];
    assert_eq!(facts, expected);
}

/// Checks every frame the way the page's verify job does, a frame a step, and returns
/// what read back beside what `sgpt validate` counts.
fn read_back(bytes: &[u8]) -> (ReadBack, ReadableCounts) {
    let capture = Capture::open(bytes).expect("opens");
    let mut job = CheckJob::new(&capture);
    while !job.step_with(None, &mut one_unit()) {}
    (ReadBack::of(&job.finish().1), capture.readable_counts())
}

/// A budget of one unit of work.
fn one_unit() -> impl FnMut() -> bool {
    let mut left = 1;
    move || {
        left -= 1;
        left >= 0
    }
}

#[test]
fn after_every_frame_is_checked_the_summary_says_what_read_back_as_sgpt_validate_counts_it() {
    let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/corrupted.sgpt")).expect("fixture");
    let (read, counts) = read_back(&bytes);
    assert_eq!((read.frames, read.spans), (counts.frames as u64, counts.spans));
    let lost: Vec<u64> = counts.lost.iter().map(|lost| lost.frame_number).collect();
    assert_eq!(read.lost, lost);
    assert_eq!(read.lost, [6], "frame 6 of corrupted.sgpt cannot be read");
    let summary = Summary { read_back: Some(read), ..summarize(&bytes).expect("opens") };
    let facts = summary.facts();
    let said = facts.iter().find(|(label, _)| *label == "Read back").map(|(_, text)| text.as_str());
    assert_eq!(said, Some("15 of 16 indexed frames and 300 of 320 indexed spans; lost: frame 6"));

    let intact = scene_bytes();
    let (read, _) = read_back(&intact);
    assert_eq!(read.describe(5, 20), "every indexed frame and span");
}

#[test]
fn capture_that_never_stopped_shows_its_whole_frames_and_says_so() {
    let bytes = write_scene(Level::Timing).sink().clone();
    let summary = summarize(&bytes).expect("an unfinished capture still opens");
    assert!(!summary.closed);
    assert_eq!(summary.frames, 5);
    assert_eq!(summary.spans, 20);
    assert_eq!(summary.level, Some("timing"));
    let kinds: Vec<&str> = summary.defects.shown.iter().map(|defect| defect.kind).collect();
    assert!(kinds.contains(&"not_closed"), "{kinds:?}");
    let closed = summary.facts().into_iter().find(|(label, _)| *label == "Closed");
    assert_eq!(
        closed.map(|(_, value)| value).as_deref(),
        Some("no: the recording never stopped cleanly; every whole frame is shown")
    );
}

#[test]
fn truncated_capture_keeps_its_whole_frames_and_lists_the_damage() {
    let bytes = scene_bytes();
    let last = *Capture::open(&bytes).expect("opens").frames().last().expect("has frames");
    let cut = usize::try_from(last.offset).expect("fits") + 20;
    let summary = summarize(&bytes[..cut]).expect("a truncated capture opens");
    assert_eq!(summary.frames, 4);
    assert_eq!(summary.frame_numbers, Some((10, 13)));
    let kinds: Vec<&str> = summary.defects.shown.iter().map(|defect| defect.kind).collect();
    assert!(kinds.contains(&"truncated"), "{kinds:?}");
    let truncated = summary.defects.shown.iter().find(|defect| defect.kind == "truncated");
    assert_eq!(truncated.map(|defect| defect.offset), Some(last.offset));
}

#[test]
fn verify_finds_a_frame_whose_payload_was_corrupted_after_opening() {
    let mut bytes = scene_bytes();
    let second = Capture::open(&bytes).expect("opens").frames()[1];
    // Inside the payload (past the 16-byte record header): the index still points at a
    // well-framed record, so only decoding the frame finds the damage.
    let at = usize::try_from(second.offset).expect("fits") + 20;
    bytes[at] ^= 0xff;
    let summary = summarize(&bytes).expect("opens from the directory");
    assert_eq!(summary.frames, 5);
    let defects = verify(&bytes).expect("opens");
    assert_eq!(defects.total(), 1, "{defects:?}");
    let DefectRow { kind, offset, detail } = &defects.shown[0];
    assert_eq!((*kind, *offset), ("checksum_mismatch", second.offset));
    assert!(detail.contains("frame 11"), "{detail}");
    assert_eq!(defects.shown[0].offset_hex(), format!("{:#x}", second.offset));
}

#[test]
fn empty_foreign_and_newer_files_are_refused_with_their_reason() {
    assert_eq!(summarize(&[]), Err(LoadError::Empty));

    let foreign = summarize(b"PK\x03\x04 a zip file").expect_err("not a capture");
    assert!(foreign.to_string().starts_with("not an sgpt capture"), "{foreign}");

    let mut newer = scene_bytes();
    let header = Header { min_reader_version: 99, ..Header::decode(&newer).expect("header") };
    newer[..HEADER_LEN].copy_from_slice(&header.encode());
    let error = summarize(&newer).expect_err("needs a newer reader");
    assert!(error.to_string().starts_with("needs a newer reader"), "{error}");
    assert!(error.to_string().contains("99"), "{error}");
}

#[test]
fn verbose_capture_is_flagged_for_a_warning() {
    let bytes = write_scene(Level::Verbose).finish().expect("finish");
    let summary = summarize(&bytes).expect("opens");
    assert_eq!(summary.level, Some("verbose"));
    assert!(summary.verbose);
}

#[test]
fn capture_without_frames_or_topologies_has_an_empty_pass_table() {
    let bytes = Writer::new(Vec::new(), &meta(Level::Timing)).expect("meta").finish().expect("finish");
    let summary = summarize(&bytes).expect("opens");
    assert_eq!((summary.frames, summary.frame_numbers, summary.topologies), (0, None, 0));
    assert_eq!(summary.passes.topology, None);
    assert!(summary.passes.rows.is_empty());
    assert_eq!(summary.pass_heading(), None);
    let frames = summary.facts().into_iter().find(|(label, _)| *label == "Frames");
    assert_eq!(frames.map(|(_, value)| value).as_deref(), Some("0"));
}

#[test]
fn labels_pass_through_unescaped_but_clipped() {
    // Escaping is the DOM's job (text nodes); the summary must not mangle the label.
    let hostile = "<img src=x onerror=\"window.__pwned=1\">";
    let long = "x".repeat(MAX_TEXT_CHARS * 4);
    let topology = Topology { gpu_passes: vec![gpu(hostile, None), gpu(&long, None)], ..Topology::default() };
    let mut writer = Writer::new(Vec::new(), &meta(Level::Timing)).expect("meta");
    writer.topology(&topology).expect("topology");
    let bytes = writer.finish().expect("finish");
    let rows = summarize(&bytes).expect("opens").passes.rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].graph_pass, None);
    assert_eq!(rows[0].gpu_passes[0], hostile);
    assert_eq!(rows[0].gpu_passes[1], format!("{}…", "x".repeat(MAX_TEXT_CHARS)));
}

#[test]
fn huge_topology_is_bounded_and_says_how_much_is_left_out() {
    let count = u32::try_from(MAX_ROWS).expect("fits") + 3;
    let topology = Topology {
        graph_passes: (0..count)
            .map(|index| GraphPass { name: format!("pass {index}"), ..GraphPass::default() })
            .collect(),
        gpu_passes: (0..count).map(|index| gpu(&format!("gpu {index}"), Some(index))).collect(),
        ..Topology::default()
    };
    let mut writer = Writer::new(Vec::new(), &meta(Level::Structure)).expect("meta");
    writer.topology(&topology).expect("topology");
    let passes = summarize(&writer.finish().expect("finish")).expect("opens").passes;
    assert_eq!(passes.rows.len(), MAX_ROWS);
    assert_eq!(passes.graph_passes_omitted, 3);
    assert_eq!(passes.gpu_passes_omitted, 3);
    assert_eq!(passes.omitted_note().as_deref(), Some("Not shown: 3 more graph passes and 3 more GPU passes."));
    let last = passes.rows.last().expect("rows");
    assert_eq!(last.graph_pass.as_deref(), Some("pass 999"));
    assert_eq!(last.gpu_passes, vec!["gpu 999".to_owned()]);
}

#[test]
fn the_toolbar_names_level_adapter_frames_and_losses_and_flags_what_was_lost() {
    let closed = Summary::of(&Capture::open(&scene_bytes()).expect("opens"));
    let facts = closed.toolbar_facts();
    let texts: Vec<&str> = facts.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(texts[0].starts_with("level "), "{texts:?}");
    assert!(texts[2].ends_with(" frames") && texts[3].ends_with(" dropped spans"), "{texts:?}");
    // The scene lost 3 spans on one frame; nothing else is amiss.
    assert_eq!(
        facts.iter().filter(|f| f.alarm).map(|f| f.title.as_str()).collect::<Vec<_>>(),
        ["3 spans begun but never timed (dropped by the recorder), on 1 frame"]
    );

    let dropped =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/dropped_spans.sgpt")).expect("fixture");
    let facts = Summary::of(&Capture::open(&dropped).expect("opens")).toolbar_facts();
    let lost = facts.iter().find(|f| f.text == "20 dropped spans").expect("the loss is named");
    assert!(lost.alarm && lost.title.contains("on 4 frames"), "{lost:?}");

    let never =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/never_closed.sgpt")).expect("fixture");
    let facts = Summary::of(&Capture::open(&never).expect("opens")).toolbar_facts();
    assert!(facts.iter().any(|f| f.text == "never closed" && f.alarm), "{facts:?}");
    // Never closed is its own fact: no count of defects beside it.
    assert!(!facts.iter().any(|f| f.text.contains("defect")), "{facts:?}");

    // Cut short: the file ends inside a frame, and the directory at its end is gone.
    let cut = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/truncated.sgpt")).expect("fixture");
    let facts = Summary::of(&Capture::open(&cut).expect("opens")).toolbar_facts();
    let damaged = facts.iter().find(|f| f.text == "2 defects").unwrap_or_else(|| panic!("{facts:?}"));
    assert!(damaged.alarm && damaged.title.contains("only what could be read is shown"), "{damaged:?}");
}
