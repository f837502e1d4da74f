//! Everything a writer is handed comes back from the reader unchanged, at every level,
//! including values no sane device reports.

use sgpt_format::synth::{SynthOptions, workload};
use sgpt_format::{
    Binding, Capture, Command, CpuSpan, CpuTimes, Declaration, Frame, GpuPass, Indirect, Level, Meta, Note, Op,
    Pipeline, Span, SpanKind, Topology, Writer,
};

fn read_back(bytes: &[u8]) -> (Capture<'_>, Vec<Frame>) {
    let capture = Capture::open(bytes).expect("opens");
    assert!(capture.header().closed());
    assert!(capture.used_directory());
    assert_eq!(capture.verify(), vec![]);
    let frames = (0..capture.frames().len()).map(|i| capture.frame(i).expect("decodes")).collect();
    (capture, frames)
}

#[test]
fn every_level_of_the_synthetic_workload_round_trips_exactly() {
    for level in Level::ALL {
        let workload = workload(&SynthOptions { frames: 40, passes: 30, level, ..SynthOptions::default() });
        let bytes = workload.write(Vec::new()).unwrap();
        let (capture, frames) = read_back(&bytes);
        assert_eq!(capture.level(), Some(level));
        let mut meta = capture.meta().unwrap().clone();
        assert_eq!(meta.level, Some(level));
        meta.level = workload.meta.level;
        assert_eq!(meta, workload.meta);
        assert_eq!(frames, workload.frames, "level {level}");
        for (id, topology) in workload.topologies.iter().enumerate() {
            assert_eq!(capture.topology(id as u32), Some(topology));
        }
        assert_eq!(capture.topology_count(), workload.topologies.len());
        assert_eq!(capture.notes(), workload.notes.as_slice());
        for declaration in &workload.declarations {
            match declaration {
                Declaration::Pipeline(p) => assert_eq!(capture.pipeline(p.id), Some(p)),
                Declaration::Counter(c) => assert_eq!(capture.counter(c.id), Some(c)),
                Declaration::BindGroup(b) => assert_eq!(capture.bind_group(b.id), Some(b)),
                Declaration::Buffer(b) => assert_eq!(capture.buffer(b.id), Some(b)),
                Declaration::QuerySet(q) => assert_eq!(capture.query_set(q.id), Some(q)),
            }
        }
        let index = capture.frames();
        assert_eq!(index.len(), workload.frames.len());
        for (entry, frame) in index.iter().zip(&workload.frames) {
            assert_eq!(entry.frame_number, frame.frame_number);
            assert_eq!(entry.span_count as usize, frame.spans.len());
            assert_eq!(entry.dropped_spans, frame.dropped_spans);
        }
    }
}

#[test]
fn extreme_and_disordered_timestamps_are_stored_as_reported() {
    let meta = Meta { level: Some(Level::Verbose), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let topology = Topology {
        gpu_passes: (0..5).map(|i| GpuPass { label: format!("p{i}"), ..GpuPass::default() }).collect(),
        ..Topology::default()
    };
    let id = writer.topology(&topology).unwrap();
    writer
        .declare(&[Declaration::Pipeline(Pipeline {
            id: 9,
            label: "w".into(),
            workgroup_size: None,
            ..Pipeline::default()
        })])
        .unwrap();
    let frame = Frame {
        frame_number: u64::MAX - 1,
        topology: id,
        spans: vec![
            // Out of order, an end before its begin, both ends of the u64 range, and
            // several query sets and kinds interleaved.
            Span { pass: 3, kind: SpanKind::Pass, query_set: 7, begin_ns: u64::MAX - 5, end_ns: u64::MAX },
            Span { pass: 0, kind: SpanKind::SubPass, query_set: 0, begin_ns: 0, end_ns: 0 },
            Span { pass: 4, kind: SpanKind::Pass, query_set: 255, begin_ns: 50, end_ns: 10 },
            Span { pass: 4, kind: SpanKind::Pass, query_set: 255, begin_ns: 1 << 63, end_ns: (1 << 63) + 1 },
            Span { pass: 1, kind: SpanKind::SubPass, query_set: 7, begin_ns: 1_000, end_ns: 1_000 },
        ],
        cpu: CpuTimes { begin_ns: 10, end_ns: 5, submit_ns: Some(u64::MAX), readback_ns: None },
        cpu_spans: vec![CpuSpan { graph_pass: 2, begin_ns: 0, end_ns: u64::MAX }],
        culled: vec![true, false, true, true, false, false, false, false, true],
        dropped_spans: u32::MAX,
        recorder_cost_ns: u64::MAX,
        commands: vec![
            Command { gpu_pass: 4, pipeline: Some(u32::MAX), op: Op::Dispatch { x: u32::MAX, y: 0, z: 1 } },
            Command {
                gpu_pass: 1,
                pipeline: None,
                op: Op::DrawIndexed {
                    indices: 3,
                    instances: 1,
                    first_index: 0,
                    base_vertex: i32::MIN,
                    first_instance: 2,
                },
            },
            Command {
                gpu_pass: 1,
                pipeline: Some(0),
                op: Op::DrawIndirect {
                    indexed: true,
                    indirect: Indirect { buffer: 3, offset: u64::MAX },
                    resolved: Some([7, 8]),
                },
            },
            Command {
                gpu_pass: 0,
                pipeline: None,
                op: Op::DispatchIndirect { indirect: Indirect { buffer: 0, offset: 16 }, resolved: None },
            },
            Command {
                gpu_pass: 2,
                pipeline: None,
                op: Op::Draw { vertices: 3, instances: 2, first_vertex: 1, first_instance: 0 },
            },
        ],
        bindings: vec![
            Binding { command: 2, group: 0, bind_group: 5 },
            Binding { command: 0, group: 3, bind_group: u32::MAX },
        ],
        counters: vec![
            sgpt_format::CounterSample { counter: 0, value: -0.5 },
            sgpt_format::CounterSample { counter: u32::MAX, value: f64::MAX },
        ],
    };
    writer.frame(&frame).unwrap();
    writer.note(&Note { frame_number: 3, text: "ünïcödé ✓ \"quoted\"".into() }).unwrap();
    let bytes = writer.finish().unwrap();
    let capture = Capture::open(&bytes).unwrap();
    assert_eq!(capture.frame(0).unwrap(), frame);
    assert_eq!(capture.notes()[0].text, "ünïcödé ✓ \"quoted\"");
    // The index agrees with the frame without decoding it.
    assert_eq!(capture.frames()[0].frame_number, u64::MAX - 1);
    assert_eq!(capture.frames()[0].span_count, 5);
}

#[test]
fn identical_topologies_share_one_record_and_one_id() {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let a = Topology { gpu_passes: vec![GpuPass { label: "a".into(), ..GpuPass::default() }], ..Topology::default() };
    let mut b = a.clone();
    b.gpu_passes[0].label = "b".into();
    assert_eq!(writer.topology(&a).unwrap(), 0);
    let before = writer.bytes_written();
    assert_eq!(writer.topology(&a.clone()).unwrap(), 0);
    assert_eq!(writer.bytes_written(), before, "a known topology writes nothing");
    assert_eq!(writer.topology(&b).unwrap(), 1);
    let bytes = writer.finish().unwrap();
    let capture = Capture::open(&bytes).unwrap();
    assert_eq!(capture.topology_count(), 2);
}

#[test]
fn misuse_of_the_writer_is_an_error_value() {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    assert!(Writer::new(Vec::new(), &Meta::default()).is_err(), "META without a level");
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let frame = Frame { topology: 0, ..Frame::default() };
    assert!(matches!(writer.frame(&frame), Err(sgpt_format::WriteError::UnknownTopology { .. })));
    let id = writer.topology(&Topology::default()).unwrap();
    writer.frame(&Frame { frame_number: 5, topology: id, ..Frame::default() }).unwrap();
    let error = writer.frame(&Frame { frame_number: 5, topology: id, ..Frame::default() }).unwrap_err();
    assert!(error.to_string().contains("must increase"), "{error}");
}

#[test]
fn a_capture_that_never_stops_is_readable_up_to_its_last_record() {
    let workload =
        workload(&SynthOptions { frames: 10, passes: 12, level: Level::Structure, ..SynthOptions::default() });
    let mut writer = Writer::new(Vec::new(), &workload.meta).unwrap();
    workload.write_into(&mut writer).unwrap();
    let bytes = writer.sink().clone();
    let capture = Capture::open(&bytes).unwrap();
    assert!(!capture.header().closed());
    assert_eq!(capture.defects().len(), 1);
    assert_eq!(capture.defects()[0].kind, sgpt_format::DefectKind::NotClosed);
    assert_eq!(capture.frames().len(), 10);
    assert_eq!(capture.frame(9).unwrap(), workload.frames[9]);
}

#[test]
fn the_writer_refuses_what_a_reader_would_reject() {
    let mut meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    meta.scene.push(sgpt_format::NamedValue { name: "instances".into(), value: f64::NAN });
    let error = Writer::new(Vec::new(), &meta).unwrap_err();
    assert!(error.to_string().contains("finite"), "{error}");

    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let cycle = Topology {
        gpu_passes: vec![
            GpuPass { label: "a".into(), parent: Some(1), ..GpuPass::default() },
            GpuPass { label: "b".into(), parent: Some(0), ..GpuPass::default() },
        ],
        ..Topology::default()
    };
    assert!(writer.topology(&cycle).unwrap_err().to_string().contains("parent must precede"));
    let dangling = Topology {
        gpu_passes: vec![GpuPass { label: "a".into(), graph_pass: Some(0), ..GpuPass::default() }],
        ..Topology::default()
    };
    assert!(writer.topology(&dangling).is_err());
    // Nothing was written for either, and the writer is still usable.
    assert_eq!(writer.topology(&Topology::default()).unwrap(), 0);
}

#[test]
fn a_frame_that_disagrees_with_the_directory_is_reported_when_decoded() {
    let workload = workload(&SynthOptions { frames: 3, passes: 4, level: Level::Timing, ..SynthOptions::default() });
    let mut bytes = workload.write(Vec::new()).unwrap();
    let entry = Capture::open(&bytes).unwrap().frames()[1];
    // Frame 1's summary: frame number, topology, then its GPU duration. Change the
    // duration's lowest bit and re-checksum, so only the directory disagrees.
    let payload = entry.offset as usize + sgpt_format::RECORD_HEADER_LEN;
    let end = (entry.offset + entry.len) as usize;
    bytes[payload + 2] ^= 1;
    let crc = crc32fast::hash(&bytes[payload..end]);
    bytes[payload - 4..payload].copy_from_slice(&crc.to_le_bytes());
    let capture = Capture::open(&bytes).unwrap();
    assert!(capture.used_directory());
    assert!(capture.frame(0).is_ok() && capture.frame(2).is_ok());
    let defect = capture.frame(1).unwrap_err();
    assert_eq!(defect.kind, sgpt_format::DefectKind::DirectoryInvalid);
    assert_eq!(defect.offset, entry.offset);
}

#[test]
fn a_lost_meta_is_reported_and_the_frames_survive() {
    let workload = workload(&SynthOptions { frames: 3, passes: 4, level: Level::Timing, ..SynthOptions::default() });
    let mut bytes = workload.write(Vec::new()).unwrap();
    bytes[sgpt_format::HEADER_LEN + 20] ^= 0xff;
    let capture = Capture::open(&bytes).unwrap();
    assert!(capture.meta().is_none());
    assert!(
        capture
            .defects()
            .iter()
            .any(|d| d.kind == sgpt_format::DefectKind::MissingReference && d.detail.contains("META"))
    );
    assert_eq!(capture.frames().len(), 3);
}

#[test]
fn extra_meta_keys_round_trip_but_may_not_shadow_known_ones() {
    let mut meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    meta.extra.insert("engine_build".into(), serde_json::json!({"lto": true}));
    let bytes = Writer::new(Vec::new(), &meta).unwrap().finish().unwrap();
    assert_eq!(Capture::open(&bytes).unwrap().meta().unwrap().extra, meta.extra);
    for key in ["note", "adapter", "level"] {
        let mut shadowing = meta.clone();
        shadowing.extra.insert(key.into(), serde_json::json!("x"));
        assert!(Writer::new(Vec::new(), &shadowing).is_err(), "{key}");
    }
}

#[test]
fn a_refused_oversized_topology_leaves_no_gap_in_the_symbols() {
    let meta = Meta { level: Some(Level::Structure), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).unwrap();
    let huge = Topology {
        gpu_passes: vec![GpuPass { label: "x".repeat(sgpt_format::MAX_PAYLOAD_LEN + 1), ..GpuPass::default() }],
        ..Topology::default()
    };
    assert!(matches!(writer.topology(&huge), Err(sgpt_format::WriteError::RecordTooLarge { .. })));
    let small =
        Topology { gpu_passes: vec![GpuPass { label: "ok".into(), ..GpuPass::default() }], ..Topology::default() };
    let id = writer.topology(&small).unwrap();
    writer.frame(&Frame { topology: id, ..Frame::default() }).unwrap();
    let bytes = writer.finish().unwrap();
    let capture = Capture::open(&bytes).unwrap();
    assert_eq!(capture.verify(), vec![]);
    assert_eq!(capture.topology(id).unwrap().gpu_passes[0].label, "ok");
}
