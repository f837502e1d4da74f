//! The golden fixtures in `fixtures/v1/`, generated deterministically by
//! `cargo xtask fixtures`. Once a format version is released its fixtures are never
//! regenerated: `write_all` only writes files that are missing, and a test opens every
//! committed file forever, as a reader of every released version must keep opening it.
//!
//! Memory fixtures are not made here: a MEMO record worth reading comes from the ledger,
//! which the format does not depend on, so the recorder's `memory_fixtures` example writes
//! them. `memory.sgpt` and `memory_activity_loss.sgpt` were made by hand before it and are
//! kept as committed.

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

/// The writer behind the fixtures below: META and one topology of two GPU passes, `a`
/// and `b`, left open so that hand-made records after them are read by a scan.
fn open_writer() -> Result<Writer<Vec<u8>>, crate::WriteError> {
    let meta = Meta { level: Some(Level::Timing), timestamp_query: true, ..Meta::default() };
    let topology = Topology {
        gpu_passes: vec![
            GpuPass { label: "a".into(), ..GpuPass::default() },
            GpuPass { label: "b".into(), ..GpuPass::default() },
        ],
        ..Topology::default()
    };
    let mut writer = Writer::new(Vec::new(), &meta)?;
    writer.topology(&topology)?;
    Ok(writer)
}

/// An unclosed capture: [`open_writer`], then each `(type, payload)` as a checksummed
/// record, so that each defect is the one its payload was built to show.
fn open_with(records: &[(FourCc, Vec<u8>)]) -> Vec<u8> {
    let result = (|| {
        let mut writer = open_writer()?;
        for (kind, payload) in records {
            writer.raw_record(*kind, payload)?;
        }
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    result.unwrap_or_default()
}

/// A FRAM payload of frame 0, topology 0: the six summary fields as zeros, `spans`, then
/// empty CPU, culled, command, binding and counter sections.
fn fram(spans: &[u8]) -> (FourCc, Vec<u8>) {
    let mut payload = vec![0; 6];
    payload.extend_from_slice(spans);
    payload.extend_from_slice(&[0; 8]);
    (FourCc::FRAM, payload)
}

/// One sequential span with k = 0 codes, at payload offsets (from the summary's 6
/// bytes): 6 `span_count`, 7 `layout`, 8 `epoch_ns`, 9–11 query-set runs, 12–14 kind
/// runs, 15 `gap_k`, 16 `dur_k`, 17 `bits_len`, 18 the stream (gap 0, duration 0).
const ONE_SPAN: [u8; 13] = [1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1, 0b11];

fn with_span_bytes(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut spans = ONE_SPAN.to_vec();
    edit(&mut spans);
    open_with(&[fram(&spans)])
}

/// The fixtures that pin where SGPT_FORMAT.md §7.1 says each defect is reported and
/// which one §7.2 says wins; `format/tests/defect_fixtures.rs` checks each exactly.
fn defect_fixtures() -> Vec<Fixture> {
    let mut fixtures = Vec::new();
    let mut add = |name, description, bytes| fixtures.push(Fixture { name, description, bytes });

    // A TOPO cut inside its u64 content hash, and a FRAM cut inside its CPU begin varint.
    let mut cut_frame = vec![0; 7];
    cut_frame.push(0x80);
    add(
        "defect_field_cut_short.sgpt",
        "a TOPO whose payload ends inside its content hash (a fixed-width field), and a FRAM whose payload ends inside the CPU begin varint: each malformed at the field's first byte",
        open_with(&[(FourCc::TOPO, vec![0, 1, 2, 3, 4]), (FourCc::FRAM, cut_frame)]),
    );

    // Pass ref −1 from 0, then kind runs summing to 2 of 1 span: the pass ref is read first.
    add(
        "defect_pass_ref_out_of_range.sgpt",
        "a span whose pass ref leads below 0, in a frame whose kind runs also sum past its span count: the pass ref, stored first, is the defect, at its varint's first byte",
        open_with(&[fram(&[1, 0, 0, 1, 1, 1, 0, 1, 2, 0, 0, 0, 1, 0b11])]),
    );

    add(
        "defect_code_parameter.sgpt",
        "gap_k and dur_k both 65: gap_k, read first, is the defect, at its own byte",
        with_span_bytes(|spans| spans[9..11].copy_from_slice(&[65, 65])),
    );

    add(
        "defect_kind_run_value.sgpt",
        "a kind run whose value is 2: malformed at the value's byte",
        with_span_bytes(|spans| spans[8] = 2),
    );

    // Query-set runs (1, 0), (1, 0), (1, 0) for 1 span: the second run overflows.
    add(
        "defect_run_lengths_overflow.sgpt",
        "query-set runs of 1, 1 and 1 for one span: malformed at the second run's length, the first that takes the sum past the span count",
        with_span_bytes(|spans| drop(spans.splice(3..6, [3, 1, 0, 1, 0, 1, 0]))),
    );

    // Three sequential spans (six k = 0 codes) and query-set runs summing to 2.
    add(
        "defect_run_lengths_short.sgpt",
        "three spans whose query-set runs sum to 2: malformed at the column's run_count",
        open_with(&[fram(&[3, 1, 0, 2, 1, 0, 1, 0, 1, 3, 0, 0, 0, 1, 0b11_1111])]),
    );

    add(
        "defect_bit_stream_past_end.sgpt",
        "gap_k 8 with a one-byte stream: the first code needs 9 bits, malformed at the first byte after the stream",
        with_span_bytes(|spans| {
            spans[9] = 8;
            spans[12] = 1;
        }),
    );

    add(
        "defect_bit_stream_zero_run.sgpt",
        "gap_k 0 and a stream of 9 zero bytes: z + k exceeds 64 at stream bit 64, malformed at the stream's byte 8",
        with_span_bytes(|spans| {
            spans[11] = 9;
            spans.truncate(12);
            spans.extend_from_slice(&[0; 9]);
        }),
    );

    add(
        "defect_invalid_utf8.sgpt",
        "a NOTE whose 2-byte text is C3 28, not UTF-8: malformed at the text's first byte, after its sound length",
        open_with(&[(FourCc::NOTE, vec![0, 2, 0xc3, 0x28])]),
    );

    // Four METAs after the first that fail, then one that decodes.
    let meta = |json: &str| {
        let mut payload = vec![0];
        payload.extend_from_slice(json.as_bytes());
        (FourCc::META, payload)
    };
    add(
        "defect_meta_json.sgpt",
        "after the first META, four that fail (an escaped lone surrogate, a BOM, 1.0 as the adapter's vendor, 2^64 as wall_clock_start_unix_ns), each malformed at its first JSON byte, then one that decodes, malformed at its record as a second META",
        open_with(&[
            meta(r#"{"note":"\ud800"}"#),
            meta("\u{feff}{}"),
            meta(r#"{"adapter":{"vendor":1.0}}"#),
            meta(r#"{"wall_clock_start_unix_ns":18446744073709551616}"#),
            meta("{}"),
        ]),
    );

    let mut trailing = minimal();
    trailing.extend_from_slice(b"xyz");
    add(
        "defect_directory_trailing_bytes.sgpt",
        "minimal with 3 bytes after its DIRE: directory_invalid at the first byte the directory does not account for, and those bytes skipped as corrupt",
        trailing,
    );

    // The topology introduced symbols 0 and 1 ("a", "b"). A DECL's block starts at 3
    // (symbol 2 lost) and its string is cut short; the next DECL's block starts at 4.
    add(
        "defect_symbol_gap_block_fails.sgpt",
        "a DECL whose symbol block starts past the known end but whose string is cut short, then a DECL whose block starts after it: the failed block reports only its malformed string; the next names the whole gap, symbols 2..4, once",
        open_with(&[(FourCc::DECL, vec![3, 1, 5, b'h', b'i']), (FourCc::DECL, vec![4, 0, 0])]),
    );

    let bound = (|| {
        let mut writer = open_writer()?;
        let mut frame = Frame::default();
        frame.spans.push(Span { pass: 0, begin_ns: 1_000, end_ns: 2_000, ..Span::default() });
        writer.frame(&frame)?;
        // Frame 1 claims 1,000 spans (E8 07) with 2 bytes left after the count.
        writer.raw_record(FourCc::FRAM, &[1, 0, 0, 0, 0, 0, 0xe8, 0x07, 0, 0])?;
        Ok::<_, crate::WriteError>(writer.sink().clone())
    })();
    add(
        "defect_span_count_bound.sgpt",
        "frame 1 claims 1,000 spans in a 2-byte remainder: indexed (the count fits u32), then malformed at its span_count when decoded; frame 0 and its one span read back",
        bound.unwrap_or_default(),
    );

    // Fields that decode but fail a range check: each at its first byte. Payload offsets:
    // summary 0–5, span_count 6, CPU begin 7, end 8, flags 9, CPU span count 10, culled
    // bit count 11, command count 12.
    let mut dropped = vec![0, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0];
    dropped.extend_from_slice(&[0; 8]);
    add(
        "defect_v32_out_of_range.sgpt",
        "a FRAM whose dropped_spans (a v32) is 2^32: malformed at the varint's first byte, and the frame never indexed",
        open_with(&[(FourCc::FRAM, dropped)]),
    );
    add(
        "defect_count_over_bytes_left.sgpt",
        "a FRAM whose CPU span count is 5 with 4 bytes left: malformed at the count's first byte",
        open_with(&[fram_from(&[0, 0, 0, 5, 0, 0, 0, 0])]),
    );
    add(
        "defect_culled_bit_count.sgpt",
        "a FRAM whose culled bit count is 100 with 3 bytes left: malformed at the count's first byte",
        open_with(&[fram_from(&[0, 0, 0, 0, 100, 0, 0, 0])]),
    );
    // One draw indexed: pass delta, pipeline, op 3, indices, instances, first index, then
    // base_vertex zigzag(2^31) = 2^32 at 19, first instance.
    add(
        "defect_base_vertex.sgpt",
        "a draw indexed whose base_vertex is 2^31, outside i32: malformed at the base_vertex varint, not at the op byte",
        open_with(&[fram_from(&[0, 0, 0, 0, 0, 1, 0, 0, 3, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0, 0, 0])]),
    );

    fixtures
}

/// A FRAM payload of frame 0, topology 0 with no spans: the summary's six zeros, a span
/// count of 0, then `rest` from the CPU section on.
fn fram_from(rest: &[u8]) -> (FourCc, Vec<u8>) {
    let mut payload = vec![0; 7];
    payload.extend_from_slice(rest);
    (FourCc::FRAM, payload)
}

/// Spans as a device may report them: an end before its begin, and an end that wrapped
/// past 2^64. Neither is a defect; both are stored and read back exactly.
fn inverted_spans() -> Vec<u8> {
    let result = (|| {
        let mut writer = open_writer()?;
        let mut frame = Frame::default();
        frame.spans.push(Span { pass: 0, begin_ns: 5_000, end_ns: 4_000, ..Span::default() });
        frame.spans.push(Span { pass: 1, begin_ns: u64::MAX - 10, end_ns: 20, ..Span::default() });
        writer.frame(&frame)?;
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
    fixtures.extend(defect_fixtures());
    fixtures.push(Fixture {
        name: "inverted_spans.sgpt",
        description: "a span whose end precedes its begin and one whose end wrapped past 2^64: intact, stored and read back exactly",
        bytes: inverted_spans(),
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
