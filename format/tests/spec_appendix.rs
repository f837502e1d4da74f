//! The annotated examples in SGPT_FORMAT.md's appendices are the reference writer's
//! output. Their hex dumps and byte tables are parsed out of the markdown here, so the
//! spec and the code cannot drift apart.

use std::path::PathBuf;

use sgpt_format::{
    Capture, CpuTimes, DomainCounters, FourCc, Frame, GpuPass, GpuPassKind, Level, Lifetime, MemoryBlock,
    MemoryCheckpoint, MemoryDomain, MemoryEvent, MemoryEventKind, MemoryExpectation, MemoryHealth, MemoryLoss,
    MemoryLossReason, MemoryMode, MemoryRecord, MemorySite, Meta, Span, Topology, Writer,
};

fn spec() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("SGPT_FORMAT.md");
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The text of the appendix whose heading starts with `heading`, up to the next appendix.
fn appendix<'s>(spec: &'s str, heading: &str) -> &'s str {
    let start = spec.find(heading).unwrap_or_else(|| panic!("no {heading:?} in the spec"));
    let rest = &spec[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

fn hex_pairs(text: &str, what: &str) -> Vec<u8> {
    let digits: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    assert!(digits.len().is_multiple_of(2), "{what}: odd number of hex digits in {text:?}");
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap_or_else(|_| panic!("{what}: not hex: {text:?}")))
        .collect()
}

/// The bytes of the first fenced `xxd` dump in `text`, its offsets checked as it is read.
fn dump(text: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    let fenced = text.split("```").nth(1).expect("a fenced dump");
    for line in fenced.lines().filter(|line| !line.trim().is_empty()) {
        let (offset, rest) = line.split_once(": ").unwrap_or_else(|| panic!("not an xxd line: {line:?}"));
        let offset = usize::from_str_radix(offset, 16).unwrap_or_else(|_| panic!("bad offset: {line:?}"));
        assert_eq!(offset, bytes.len(), "dump offset of {line:?}");
        // Two spaces separate the hex groups from the ASCII column.
        let hex = rest.split("  ").next().unwrap_or_default();
        let row = hex_pairs(hex, line);
        assert!(row.len() <= 16, "{line:?}");
        let ascii: String =
            row.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        assert_eq!(rest[hex.len()..].trim_start_matches(' ').trim_end(), ascii.trim_end(), "ASCII column of {line:?}");
        bytes.extend(row);
    }
    bytes
}

/// Every `| 0xOFF | `HH HH` … | field | value |` row in `text`: (offset, bytes, field).
/// Rows that span a range (`0x031–0x18C | 348 bytes`) quote no bytes and are left out.
fn byte_rows(text: &str) -> Vec<(usize, Vec<u8>, String)> {
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let offset = cells.get(1)?.strip_prefix("0x")?;
            let quoted: Vec<&str> = cells[2].split('`').skip(1).step_by(2).collect();
            if quoted.is_empty() {
                return None;
            }
            let offset = usize::from_str_radix(offset, 16).unwrap_or_else(|_| panic!("bad offset: {line:?}"));
            Some((offset, hex_pairs(&quoted.concat(), line), cells[3].to_owned()))
        })
        .collect()
}

/// A hex dump of `bytes` in the spec's `xxd` style, to paste when the writer changes.
fn xxd(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (row, chunk) in bytes.chunks(16).enumerate() {
        let groups: Vec<String> =
            chunk.chunks(2).map(|pair| pair.iter().map(|b| format!("{b:02x}")).collect::<String>()).collect();
        let ascii: String =
            chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }).collect();
        out.push_str(&format!("{:08x}: {:<39}  {ascii}\n", row * 16, groups.join(" ")));
    }
    out
}

/// The capture of Appendix A: level timing, three GPU passes, the spans of §4.6.
fn appendix_a_capture() -> Vec<u8> {
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let pass = |label: &str, kind| GpuPass { label: label.into(), kind, ..GpuPass::default() };
    let topology = Topology {
        gpu_passes: vec![
            pass("shadow", GpuPassKind::Render),
            pass("main", GpuPassKind::Render),
            pass("post", GpuPassKind::Compute),
        ],
        ..Topology::default()
    };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META");
    let id = writer.topology(&topology).expect("TOPO");
    let span = |pass, begin_ns, end_ns| Span { pass, begin_ns, end_ns, ..Span::default() };
    let frame = Frame {
        frame_number: 1,
        topology: id,
        spans: vec![span(0, 1_000_000, 1_040_000), span(1, 1_040_500, 1_058_500), span(2, 1_058_700, 1_093_000)],
        cpu: CpuTimes { begin_ns: 5_000_000, end_ns: 5_016_000, submit_ns: Some(5_015_000), readback_ns: None },
        ..Frame::default()
    };
    writer.frame(&frame).expect("FRAM");
    writer.finish().expect("DIRE")
}

#[test]
fn appendix_a_is_the_reference_writers_minimal_capture() {
    let spec = spec();
    let text = appendix(&spec, "## Appendix A.");
    let bytes = appendix_a_capture();
    assert_eq!(dump(text), bytes, "the writer now produces:\n{}", xxd(&bytes));
    assert!(text.contains(&format!("complete capture of {} bytes", bytes.len())));
    // The tables name the bytes at their offsets.
    for (offset, expected, field) in byte_rows(text) {
        assert_eq!(bytes.get(offset..offset + expected.len()), Some(&expected[..]), "{field} at {offset:#x}");
    }
    let capture = Capture::open(&bytes).expect("opens");
    assert!(capture.is_intact(), "{:?}", capture.verify());
}

/// The MEMO record of Appendix C: an activity-mode capture that began late, ran out of
/// journal, and whose terminal live set still holds a block the journal never saw.
fn appendix_c_record() -> MemoryRecord {
    let event = |seq, kind, lifetime: u64, domain, site, address, size, thread, time| MemoryEvent {
        seq,
        kind,
        lifetime: (lifetime != 0).then_some(Lifetime { epoch: 1, seq: lifetime }),
        domain,
        site,
        address,
        size,
        align: 8,
        thread,
        time,
    };
    let block = |lifetime, alloc_seq, domain, address, size, thread, time| MemoryBlock {
        address,
        lifetime: Lifetime { epoch: 1, seq: lifetime },
        alloc_seq,
        domain,
        site: 1,
        size,
        align: 8,
        thread,
        time,
    };
    let counters =
        |domain, [live_bytes, live_blocks, peak_bytes, allocated_bytes, freed_bytes, allocations, frees]: [u64; 7]| {
            DomainCounters {
                domain,
                live_bytes,
                live_blocks,
                peak_bytes,
                allocated_bytes,
                freed_bytes,
                allocations,
                frees,
                failures: 0,
                valid: true,
            }
        };
    use MemoryEventKind::{Alloc, Free, UnknownFree};
    MemoryRecord {
        capture_id: 1,
        epoch: 1,
        mode: MemoryMode::Activity,
        begin_seq: 10,
        end_seq: 16,
        storage_bytes: 4096,
        domains: vec![MemoryDomain { id: 1, name: "mesh".into() }, MemoryDomain { id: 2, name: "temp".into() }],
        sites: vec![
            MemorySite::default(),
            MemorySite { id: 1, file: "a.rs".into(), line: 7, column: 5, name: "load".into() },
        ],
        events: vec![
            event(10, Alloc, 1, 1, 1, 0x1000, 64, 0, 100),
            event(11, Alloc, 2, 2, 1, 0x1040, 32, 1, 105),
            // Freed on another thread than the one that allocated it.
            event(12, Free, 2, 2, 1, 0x1040, 32, 0, 110),
            // A block from before the capture began: no lifetime, unknown site.
            event(13, UnknownFree, 0, 1, 0, 0x0F00, 16, 0, 120),
            // The journal held four events: operations 14 (an allocation of 128 bytes
            // at 0x1080) and 15 (the free of lifetime 1) are lost.
        ],
        checkpoints: vec![
            MemoryCheckpoint {
                id: 0,
                name: "warm".into(),
                owner: 1,
                expectation: MemoryExpectation::Retained,
                boundary_seq: 12,
                time: 107,
                table_exact: true,
                history_complete: true,
                // The mesh counters include the 16-byte block allocated before the capture.
                domains: vec![counters(1, [80, 2, 80, 80, 0, 2, 0]), counters(2, [32, 1, 32, 32, 0, 1, 0])],
                live: vec![block(1, 10, 1, 0x1000, 64, 0, 100), block(2, 11, 2, 0x1040, 32, 1, 105)],
            },
            MemoryCheckpoint {
                id: 1,
                name: "end".into(),
                owner: 1,
                expectation: MemoryExpectation::Unspecified,
                boundary_seq: 16,
                time: 140,
                table_exact: true,
                history_complete: false,
                domains: vec![counters(1, [128, 1, 192, 208, 80, 3, 2]), counters(2, [0, 0, 32, 32, 32, 1, 1])],
                live: vec![block(3, 14, 1, 0x1080, 128, 0, 130)],
            },
        ],
        health: MemoryHealth {
            journal_loss: Some(MemoryLoss {
                reason: MemoryLossReason::JournalFull,
                first_lost_seq: 14,
                domain: 1,
                count: 2,
            }),
            table_loss: None,
            recursion: None,
            unknown_baseline_frees: 1,
            ownership_errors: 0,
        },
    }
}

#[test]
fn appendix_c_is_the_reference_writers_memo_record() {
    let record = appendix_c_record();
    let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
    let mut writer = Writer::new(Vec::new(), &meta).expect("META");
    writer.memory(&record).expect("MEMO");
    let file = writer.finish().expect("DIRE");
    let capture = Capture::open(&file).expect("opens");
    assert!(capture.is_intact(), "{:?}", capture.verify());
    assert_eq!(capture.memory_records(), std::slice::from_ref(&record));
    let entry = capture.records().iter().find(|r| r.kind == FourCc::MEMO).expect("a MEMO record");
    let bytes = &file[entry.offset as usize..(entry.offset + entry.len) as usize];

    let spec = spec();
    let text = appendix(&spec, "## Appendix C.");
    assert_eq!(dump(text), bytes, "the writer now produces:\n{}", xxd(bytes));
    assert!(text.contains(&format!("a MEMO record of {} bytes", bytes.len())));
    // Every byte is annotated exactly once, in order.
    let mut at = 0;
    for (offset, expected, field) in byte_rows(text) {
        assert_eq!(offset, at, "{field}: rows must tile the record");
        assert_eq!(bytes.get(offset..offset + expected.len()), Some(&expected[..]), "{field} at {offset:#x}");
        at += expected.len();
    }
    assert_eq!(at, bytes.len(), "bytes left unannotated");
}
