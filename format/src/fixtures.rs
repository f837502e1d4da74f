//! The golden fixtures in `fixtures/v1/`, generated deterministically by
//! `cargo xtask fixtures`. Once a format version is released its fixtures are never
//! regenerated: `write_all` only writes files that are missing, and a test opens every
//! committed file forever (STYLE.md: puffin keeps one capture per old version).

use std::io;
use std::path::{Path, PathBuf};

use crate::header::{HEADER_LEN, Header};
use crate::model::{Frame, GpuPass, GpuPassKind, GraphPass, Level, Meta, Note, Scope, Span, Topology};
use crate::record::FourCc;
use crate::synth::{SynthOptions, Workload, workload};
use crate::writer::Writer;

/// One fixture: its file name, what it exercises, and its bytes.
#[derive(Clone, Debug)]
pub struct Fixture {
    pub name: &'static str,
    pub description: &'static str,
    pub bytes: Vec<u8>,
}

fn small(level: Level) -> Workload {
    workload(&SynthOptions { frames: 16, passes: 20, level, seed: 7, quantize_ns: None })
}

fn closed(workload: &Workload) -> Vec<u8> {
    // Writing into a Vec cannot fail; the synthetic workload is always well formed.
    workload.write(Vec::new()).unwrap_or_default()
}

/// The byte offset where the record of frame `index` starts, via the directory.
fn frame_offset(bytes: &[u8], index: usize) -> usize {
    crate::Capture::open(bytes)
        .ok()
        .and_then(|capture| capture.frames().get(index).map(|f| f.offset as usize))
        .unwrap_or(HEADER_LEN)
}

fn minimal() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology =
        Topology { gpu_passes: vec![GpuPass { label: "main".into(), ..GpuPass::default() }], ..Topology::default() };
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        let mut frame = Frame { topology: id, ..Frame::default() };
        frame.spans.push(Span { pass: 0, begin_ns: 1_000_000, end_ns: 1_040_000, ..Span::default() });
        writer.frame(&frame)?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

fn html_labels() -> Vec<u8> {
    const PAYLOAD: &str = "<img src=x onerror=\"window.__pwned=1\">";
    let meta = Meta {
        level: Some(Level::Structure),
        note: format!("note {PAYLOAD}"),
        application: "<script>window.__pwned=1</script>".to_owned(),
        ..Meta::default()
    };
    let topology = Topology {
        scopes: vec![Scope { name: format!("scope {PAYLOAD}"), parent: None }],
        graph_passes: vec![GraphPass {
            name: format!("graph {PAYLOAD}"),
            scope: Some(0),
            side_effects: true,
            ..GraphPass::default()
        }],
        resources: Vec::new(),
        gpu_passes: vec![
            GpuPass { label: PAYLOAD.into(), graph_pass: Some(0), kind: GpuPassKind::Render, ..GpuPass::default() },
            GpuPass { label: "</table><b>bold</b>\"'&amp;".into(), graph_pass: Some(0), ..GpuPass::default() },
        ],
    };
    let result = (|| {
        let mut writer = Writer::new(Vec::new(), &meta)?;
        let id = writer.topology(&topology)?;
        for f in 0..3u64 {
            let base = 1_000_000 * (f + 1);
            let mut frame = Frame { frame_number: f, topology: id, culled: vec![false], ..Frame::default() };
            frame.spans.push(Span { pass: 0, begin_ns: base, end_ns: base + 30_000, ..Span::default() });
            frame.spans.push(Span { pass: 1, begin_ns: base + 31_000, end_ns: base + 50_000, ..Span::default() });
            writer.frame(&frame)?;
        }
        writer.note(&Note { frame_number: 1, text: PAYLOAD.into() })?;
        writer.finish()
    })();
    result.unwrap_or_default()
}

/// Every fixture of format version 1.
#[must_use]
pub fn all() -> Vec<Fixture> {
    let mut fixtures =
        vec![Fixture { name: "minimal.sgpt", description: "one frame, one pass, level timing", bytes: minimal() }];
    for (name, level) in [
        ("level_timing.sgpt", Level::Timing),
        ("level_structure.sgpt", Level::Structure),
        ("level_workload.sgpt", Level::Workload),
        ("level_verbose.sgpt", Level::Verbose),
    ] {
        fixtures.push(Fixture {
            name,
            description: "16 synthetic frames of 20 passes at this level",
            bytes: closed(&small(level)),
        });
    }

    let whole = closed(&small(Level::Structure));
    let cut = frame_offset(&whole, 10) + 40;
    fixtures.push(Fixture {
        name: "truncated.sgpt",
        description: "level_structure cut 40 bytes into frame 10's record, as by a partial download: the header says closed, the directory is gone; frames 0-9 survive",
        bytes: whole[..cut].to_vec(),
    });

    let mut corrupted = whole.clone();
    let hit = frame_offset(&whole, 6) + 30;
    for byte in &mut corrupted[hit..hit + 8] {
        *byte ^= 0xa5;
    }
    fixtures.push(Fixture {
        name: "corrupted.sgpt",
        description: "level_structure with 8 bytes flipped inside frame 6's payload; every other frame survives",
        bytes: corrupted,
    });

    let workload = small(Level::Structure);
    let never_closed = (|| {
        let mut writer = Writer::new(Vec::new(), &workload.meta)?;
        workload.write_into(&mut writer)?;
        // Dropped without `finish`: no directory, no CLOSED flag, as after a tab kill.
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    fixtures.push(Fixture {
        name: "never_closed.sgpt",
        description: "level_structure whose writer never reached stop",
        bytes: never_closed.unwrap_or_default(),
    });

    let unknown = (|| {
        let mut writer = Writer::new(Vec::new(), &workload.meta)?;
        workload.write_into(&mut writer)?;
        writer.raw_record(FourCc(*b"XTRA"), b"a record type from a newer writer")?;
        writer.finish()
    })();
    fixtures.push(Fixture {
        name: "unknown_record.sgpt",
        description: "level_structure plus an XTRA record a v1 reader does not know; skipped by length",
        bytes: unknown.unwrap_or_default(),
    });

    let mut zeros = small(Level::Timing);
    for frame in &mut zeros.frames {
        for span in &mut frame.spans {
            span.begin_ns = span.begin_ns / 100_000 * 100_000;
            span.end_ns = span.begin_ns;
        }
    }
    fixtures.push(Fixture {
        name: "zero_durations.sgpt",
        description: "every span reads exactly 0 ns, as on a quantizing browser",
        bytes: closed(&zeros),
    });

    let mut dropped = small(Level::Timing);
    for (index, frame) in dropped.frames.iter_mut().enumerate() {
        if index % 4 == 1 {
            frame.spans.truncate(frame.spans.len() - 5);
            frame.dropped_spans = 5;
        }
    }
    fixtures.push(Fixture {
        name: "dropped_spans.sgpt",
        description: "every fourth frame (1, 5, 9, 13) lost 5 spans to a full timer pool",
        bytes: closed(&dropped),
    });

    fixtures.push(Fixture {
        name: "html_labels.sgpt",
        description: "labels, names and notes containing HTML and script",
        bytes: html_labels(),
    });

    let mut newer = minimal();
    let mut header = Header::decode(&newer).unwrap_or_else(|_| Header::open());
    header.format_version = 2;
    header.min_reader_version = 2;
    newer[..HEADER_LEN].copy_from_slice(&header.encode());
    fixtures.push(Fixture {
        name: "newer_version.sgpt",
        description: "minimal, but declaring min_reader_version 2: a v1 reader must refuse it",
        bytes: newer,
    });
    fixtures
}

/// Writes every fixture missing from `dir`; existing files are never touched.
/// Returns the paths written.
pub fn write_all(dir: &Path) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for fixture in all() {
        let path = dir.join(fixture.name);
        if !path.exists() {
            std::fs::write(&path, &fixture.bytes)?;
            written.push(path);
        }
    }
    Ok(written)
}
