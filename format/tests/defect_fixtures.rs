//! The fixtures that pin SGPT_FORMAT.md §7.1 (where each defect is reported) and §7.2
//! (which defect a frame reports): each opens with exactly these defects, at exactly
//! these offsets, computed here from the record the damage was written into.

use std::path::PathBuf;

use sgpt_format::{Capture, DefectKind, FourCc, RECORD_HEADER_LEN};

const NOT_CLOSED: (DefectKind, u64) = (DefectKind::NotClosed, 8);

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/v1").join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

fn defects(capture: &Capture<'_>) -> Vec<(DefectKind, u64)> {
    capture.verify().iter().map(|defect| (defect.kind, defect.offset)).collect()
}

/// The payload offset of frame `index`.
fn frame_payload(capture: &Capture<'_>, index: usize) -> u64 {
    capture.frames()[index].offset + RECORD_HEADER_LEN as u64
}

/// The payload offsets of every record of `kind` that was read, in file order.
fn payloads(capture: &Capture<'_>, kind: FourCc) -> Vec<u64> {
    capture.records().iter().filter(|r| r.kind == kind).map(|r| r.offset + RECORD_HEADER_LEN as u64).collect()
}

/// Payload offsets inside the one-span frames of the fixtures (after the 6 summary bytes).
const SPAN_COUNT: u64 = 6;
const QUERY_SET_RUNS: u64 = 9;
const GAP_K: u64 = 15;
const STREAM: u64 = 18;

#[test]
fn a_field_cut_short_is_reported_at_its_first_byte_fixed_width_or_varint() {
    let bytes = fixture("defect_field_cut_short.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // The TOPO is `00` (id 0) then 4 of the 8 bytes of its content hash; the hand-made
    // FRAM ends on `80`, the first byte of its CPU begin varint, after summary and `00`.
    let topo = payloads(&capture, FourCc::TOPO)[1];
    let frame = frame_payload(&capture, 0);
    // Before §7.1 was settled the varint was reported at the payload's end, frame + 8.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, topo + 1), (DefectKind::Malformed, frame + 7)]);
}

#[test]
fn a_pass_ref_out_of_range_is_reported_at_its_varint_and_wins_over_a_later_run() {
    let bytes = fixture("defect_pass_ref_out_of_range.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Pass ref at 9 (after span_count, layout, epoch). The kind runs after it also sum
    // past the span count; the pass ref, stored first, is the frame's one defect. The
    // reader used to check pass refs only after the whole section, so the runs won.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + 9)]);
}

#[test]
fn gap_k_over_64_is_reported_at_its_own_byte_not_at_dur_k() {
    let bytes = fixture("defect_code_parameter.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Both are 65; gap_k is read first. The reader used to report it at dur_k's byte.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + GAP_K)]);
}

#[test]
fn a_kind_run_value_over_1_is_reported_at_its_byte() {
    let bytes = fixture("defect_kind_run_value.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Kind runs at 12: run_count, length, then the value at 14 (the reader used to say 15).
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + 14)]);
}

#[test]
fn a_run_that_overflows_the_span_count_is_reported_at_its_length() {
    let bytes = fixture("defect_run_lengths_overflow.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Query-set runs: run_count 3 at 9, then (length, value) pairs at 10, 12, 14. The
    // second length takes the sum to 2 of 1 span; the reader used to report after the
    // last run, at 16.
    let second_length = frame_payload(&capture, 0) + QUERY_SET_RUNS + 3;
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, second_length)]);
}

#[test]
fn runs_that_sum_short_are_reported_at_the_columns_run_count() {
    let bytes = fixture("defect_run_lengths_short.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    assert_eq!(capture.frames()[0].span_count, 3);
    // The reader used to report after the last run, at 13, the kind column's first byte.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + QUERY_SET_RUNS)]);
}

#[test]
fn a_code_past_the_stream_is_reported_at_the_first_byte_after_it() {
    let bytes = fixture("defect_bit_stream_past_end.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // A one-byte stream at 18; gap_k 8 needs bits 0..=8.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + STREAM + 1)]);
}

#[test]
fn a_zero_run_too_long_is_reported_at_the_byte_holding_the_zero_that_made_it_so() {
    let bytes = fixture("defect_bit_stream_zero_run.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // k = 0: the 65th zero, stream bit 64, is in the stream's byte 8.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + STREAM + 8)]);
}

#[test]
fn invalid_utf8_is_reported_at_the_strings_bytes_not_its_length() {
    let bytes = fixture("defect_invalid_utf8.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // NOTE: frame number `00`, length `02`, then C3 28.
    let note = payloads(&capture, FourCc::NOTE)[0];
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, note + 2)]);
    assert!(capture.notes().is_empty());
}

#[test]
fn every_meta_json_failure_is_reported_at_the_first_json_byte() {
    let bytes = fixture("defect_meta_json.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let metas = payloads(&capture, FourCc::META);
    assert_eq!(metas.len(), 6, "the first META, four that fail, and one more that decodes");
    let mut expected = vec![NOT_CLOSED];
    // A lone surrogate, a BOM, 1.0 as an integer, 2^64 as a u64: each after the level byte.
    expected.extend(metas[1..5].iter().map(|&payload| (DefectKind::Malformed, payload + 1)));
    // A META that decodes after the first is reported at its record.
    expected.push((DefectKind::Malformed, metas[5] - RECORD_HEADER_LEN as u64));
    assert_eq!(defects(&capture), expected);
    assert_eq!(capture.meta().unwrap().wall_clock_start_unix_ns, 0, "the first META was kept");
}

#[test]
fn bytes_after_the_directory_are_reported_where_they_begin() {
    let bytes = fixture("defect_directory_trailing_bytes.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let first_unaccounted = bytes.len() as u64 - 3;
    // The reader used to report the directory's own offset.
    assert_eq!(
        defects(&capture),
        [(DefectKind::DirectoryInvalid, first_unaccounted), (DefectKind::Corrupt, first_unaccounted)]
    );
    assert!(!capture.used_directory());
    assert_eq!(capture.frames().len(), 1);
}

#[test]
fn a_symbol_gap_is_reported_once_by_the_block_that_applies() {
    let bytes = fixture("defect_symbol_gap_block_fails.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let [failed, next] = payloads(&capture, FourCc::DECL)[..] else { panic!("two DECLs") };
    // The first DECL's block (start 3, count 1) fails at its string's length, at 2, and
    // reports no gap; the next, starting at 4, names symbols 2..4 once. The reader used
    // to report the gap 2..3 too, so symbol 2 was reported lost twice.
    assert_eq!(
        defects(&capture),
        [NOT_CLOSED, (DefectKind::Malformed, failed + 2), (DefectKind::MissingReference, next)]
    );
    assert!(capture.verify()[2].detail.contains("symbols 2..4"), "{:?}", capture.verify());
}

#[test]
fn the_span_count_bound_applies_when_the_frame_is_decoded() {
    let bytes = fixture("defect_span_count_bound.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Indexed: 1,000 fits u32. Decoding finds 1,000 spans > 4 × 2 bytes left.
    assert_eq!(capture.frames().iter().map(|f| f.span_count).collect::<Vec<_>>(), [1, 1000]);
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 1) + SPAN_COUNT)]);
    let counts = capture.readable_counts();
    assert_eq!((counts.frames, counts.frames_indexed), (1, 2));
    assert_eq!((counts.spans, counts.spans_indexed), (1, 1001));
    assert_eq!(counts.lost.iter().map(|lost| (lost.index, lost.frame_number)).collect::<Vec<_>>(), [(1, 1)]);
}

#[test]
fn inverted_and_wrapped_spans_are_no_defect_and_read_back_exactly() {
    let bytes = fixture("inverted_spans.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    assert!(capture.is_intact(), "{:?}", capture.verify());
    let spans: Vec<(u64, u64, u64)> =
        capture.frame(0).unwrap().spans.iter().map(|s| (s.begin_ns, s.end_ns, s.duration_ns())).collect();
    assert_eq!(spans, [(5_000, 4_000, 0), (u64::MAX - 10, 20, 0)]);
}

#[test]
fn the_corrupted_fixture_counts_frame_6_as_lost() {
    let bytes = fixture("corrupted.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let counts = capture.readable_counts();
    assert_eq!((counts.frames, counts.frames_indexed, counts.spans, counts.spans_indexed), (15, 16, 300, 320));
    let [lost] = &counts.lost[..] else { panic!("{counts:?}") };
    assert_eq!((lost.index, lost.frame_number, lost.defect.kind), (6, 6, DefectKind::ChecksumMismatch));
    assert_eq!(lost.defect.offset, capture.frames()[6].offset);
}

#[test]
fn a_v32_out_of_range_is_reported_at_its_first_byte_and_the_frame_is_never_indexed() {
    let bytes = fixture("defect_v32_out_of_range.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // dropped_spans, the summary's fifth field, is 2^32: a scan cannot index the frame.
    // The reader used to report the byte after the varint.
    assert!(capture.frames().is_empty());
    let [record] = capture.readable_counts().unindexed_frame_records[..] else { panic!("one unindexed FRAM") };
    let payload = record + RECORD_HEADER_LEN as u64;
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, payload + 4)]);
}

/// Offsets past the empty span section: CPU begin 7, end 8, flags 9, CPU span count 10,
/// culled bit count 11, command count 12.
const CPU_SPAN_COUNT: u64 = 10;
const CULLED_BIT_COUNT: u64 = 11;

#[test]
fn a_count_over_the_bytes_left_is_reported_at_its_first_byte() {
    let bytes = fixture("defect_count_over_bytes_left.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let expected = frame_payload(&capture, 0) + CPU_SPAN_COUNT;
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, expected)]);
}

#[test]
fn the_culled_bit_count_is_reported_at_its_first_byte() {
    let bytes = fixture("defect_culled_bit_count.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    let expected = frame_payload(&capture, 0) + CULLED_BIT_COUNT;
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, expected)]);
}

#[test]
fn base_vertex_outside_i32_is_reported_at_its_varint_not_at_the_op() {
    let bytes = fixture("defect_base_vertex.sgpt");
    let capture = Capture::open(&bytes).unwrap();
    // Command count 12, pass delta 13, pipeline 14, op 15 (where it used to be
    // reported), indices 16, instances 17, first index 18, base_vertex 19.
    assert_eq!(defects(&capture), [NOT_CLOSED, (DefectKind::Malformed, frame_payload(&capture, 0) + 19)]);
}
