//! MEMO: one exported memory capture, self-contained (names inline, no symbol block, so
//! a reader that skips it loses nothing else). Layout in SGPT_FORMAT.md §3.8:
//!
//! ```text
//! payload:  capture_id v64, epoch v64, mode u8 (0 activity, 1 complete), begin_seq v64,
//!           end_seq v64, storage_bytes v64, section count, sections
//! section:  kind u8, body length v64, body   (an unknown kind is skipped by length)
//! 0 domains:    count × (id v32, name str)
//! 1 sites:      count × (id v32, file str, line v32, column v32, name str)
//! 2 journal:    count × event (seq and time as zigzag deltas from the previous event)
//! 3 checkpoint: id v32, name str, owner v64, expectation u8, boundary_seq v64, time v64,
//!               flags u8, count × counters, count × block
//! 4 health:     flags u8, [journal loss], [table loss], [recursion], unknown_baseline_frees
//!               v64, ownership_errors v64
//! ```

use crate::error::DecodeError;
use crate::model::{
    DomainCounters, Lifetime, MemoryBlock, MemoryCheckpoint, MemoryDomain, MemoryEvent, MemoryEventKind,
    MemoryExpectation, MemoryHealth, MemoryLoss, MemoryLossReason, MemoryMode, MemoryRecord, MemoryRecursionLoss,
    MemorySite,
};
use crate::wire::{Cursor, put_str, put_varint, zigzag};

const DOMAINS: u8 = 0;
const SITES: u8 = 1;
const JOURNAL: u8 = 2;
const CHECKPOINT: u8 = 3;
const HEALTH: u8 = 4;

/// Smallest encodings, for bounded counts (§1.8).
const MIN_SECTION: usize = 2;
const MIN_DOMAIN: usize = 2;
const MIN_SITE: usize = 5;
const MIN_EVENT: usize = 10;
const MIN_COUNTERS: usize = 10;
const MIN_BLOCK: usize = 10;

const EVENT_HAS_LIFETIME: u8 = 1;
const CHECKPOINT_TABLE_EXACT: u8 = 1;
const CHECKPOINT_HISTORY_COMPLETE: u8 = 2;
const HEALTH_JOURNAL_LOSS: u8 = 1;
const HEALTH_TABLE_LOSS: u8 = 2;
const HEALTH_RECURSION: u8 = 4;

pub fn encode(out: &mut Vec<u8>, record: &MemoryRecord) {
    put_varint(out, record.capture_id);
    put_varint(out, record.epoch);
    out.push(match record.mode {
        MemoryMode::Activity => 0,
        MemoryMode::Complete => 1,
    });
    put_varint(out, record.begin_seq);
    put_varint(out, record.end_seq);
    put_varint(out, record.storage_bytes);
    put_varint(out, 4 + record.checkpoints.len() as u64);
    let mut body = Vec::new();
    for domain in &record.domains {
        put_varint(&mut body, u64::from(domain.id));
        put_str(&mut body, &domain.name);
    }
    section(out, DOMAINS, record.domains.len(), &mut body);
    for site in &record.sites {
        put_varint(&mut body, u64::from(site.id));
        put_str(&mut body, &site.file);
        put_varint(&mut body, u64::from(site.line));
        put_varint(&mut body, u64::from(site.column));
        put_str(&mut body, &site.name);
    }
    section(out, SITES, record.sites.len(), &mut body);
    let (mut seq, mut time) = (record.begin_seq, 0);
    for event in &record.events {
        put_event(&mut body, event, seq, time);
        (seq, time) = (event.seq, event.time);
    }
    section(out, JOURNAL, record.events.len(), &mut body);
    for checkpoint in &record.checkpoints {
        put_checkpoint(&mut body, checkpoint);
        section_raw(out, CHECKPOINT, &mut body);
    }
    put_health(&mut body, &record.health);
    section_raw(out, HEALTH, &mut body);
}

/// Appends a section whose body is `count` followed by the items already in `items`.
fn section(out: &mut Vec<u8>, kind: u8, count: usize, items: &mut Vec<u8>) {
    let mut body = Vec::with_capacity(items.len() + 10);
    put_varint(&mut body, count as u64);
    body.append(items);
    section_raw(out, kind, &mut body);
}

fn section_raw(out: &mut Vec<u8>, kind: u8, body: &mut Vec<u8>) {
    out.push(kind);
    put_varint(out, body.len() as u64);
    out.append(body);
}

fn put_event(out: &mut Vec<u8>, event: &MemoryEvent, previous_seq: u64, previous_time: u64) {
    put_varint(out, zigzag(event.seq.wrapping_sub(previous_seq) as i64));
    out.push(match event.kind {
        MemoryEventKind::Alloc => 0,
        MemoryEventKind::Free => 1,
        MemoryEventKind::UnknownFree => 2,
        MemoryEventKind::Failure => 3,
    });
    out.push(if event.lifetime.is_some() { EVENT_HAS_LIFETIME } else { 0 });
    if let Some(lifetime) = event.lifetime {
        put_varint(out, lifetime.epoch);
        put_varint(out, lifetime.seq);
    }
    put_varint(out, u64::from(event.domain));
    put_varint(out, u64::from(event.site));
    put_varint(out, event.address);
    put_varint(out, event.size);
    put_varint(out, event.align);
    put_varint(out, u64::from(event.thread));
    put_varint(out, zigzag(event.time.wrapping_sub(previous_time) as i64));
}

fn put_checkpoint(out: &mut Vec<u8>, checkpoint: &MemoryCheckpoint) {
    put_varint(out, u64::from(checkpoint.id));
    put_str(out, &checkpoint.name);
    put_varint(out, checkpoint.owner);
    out.push(match checkpoint.expectation {
        MemoryExpectation::Unspecified => 0,
        MemoryExpectation::Retained => 1,
        MemoryExpectation::Released => 2,
    });
    put_varint(out, checkpoint.boundary_seq);
    put_varint(out, checkpoint.time);
    let mut flags = 0;
    if checkpoint.table_exact {
        flags |= CHECKPOINT_TABLE_EXACT;
    }
    if checkpoint.history_complete {
        flags |= CHECKPOINT_HISTORY_COMPLETE;
    }
    out.push(flags);
    put_varint(out, checkpoint.domains.len() as u64);
    for counters in &checkpoint.domains {
        put_varint(out, u64::from(counters.domain));
        for value in [
            counters.live_bytes,
            counters.live_blocks,
            counters.peak_bytes,
            counters.allocated_bytes,
            counters.freed_bytes,
            counters.allocations,
            counters.frees,
            counters.failures,
        ] {
            put_varint(out, value);
        }
        out.push(u8::from(counters.valid));
    }
    put_varint(out, checkpoint.live.len() as u64);
    for block in &checkpoint.live {
        put_varint(out, block.address);
        put_varint(out, block.lifetime.epoch);
        put_varint(out, block.lifetime.seq);
        put_varint(out, block.alloc_seq);
        put_varint(out, u64::from(block.domain));
        put_varint(out, u64::from(block.site));
        put_varint(out, block.size);
        put_varint(out, block.align);
        put_varint(out, u64::from(block.thread));
        put_varint(out, block.time);
    }
}

fn put_health(out: &mut Vec<u8>, health: &MemoryHealth) {
    let mut flags = 0;
    for (present, bit) in [
        (health.journal_loss.is_some(), HEALTH_JOURNAL_LOSS),
        (health.table_loss.is_some(), HEALTH_TABLE_LOSS),
        (health.recursion.is_some(), HEALTH_RECURSION),
    ] {
        if present {
            flags |= bit;
        }
    }
    out.push(flags);
    for loss in [health.journal_loss, health.table_loss].into_iter().flatten() {
        out.push(match loss.reason {
            MemoryLossReason::JournalFull => 0,
            MemoryLossReason::TableFull => 1,
            MemoryLossReason::DuplicateAddress => 2,
            MemoryLossReason::MissingEntry => 3,
        });
        put_varint(out, loss.first_lost_seq);
        put_varint(out, u64::from(loss.domain));
        put_varint(out, loss.count);
    }
    if let Some(recursion) = health.recursion {
        put_varint(out, recursion.count);
        put_varint(out, u64::from(recursion.domain));
        put_varint(out, recursion.after_seq);
    }
    put_varint(out, health.unknown_baseline_frees);
    put_varint(out, health.ownership_errors);
}

pub fn decode(cursor: &mut Cursor<'_>) -> Result<MemoryRecord, DecodeError> {
    let mut record = MemoryRecord {
        capture_id: cursor.varint("memory capture id")?,
        epoch: cursor.varint("memory epoch")?,
        ..MemoryRecord::default()
    };
    let at = cursor.offset();
    record.mode = match cursor.u8("memory mode")? {
        0 => MemoryMode::Activity,
        1 => MemoryMode::Complete,
        _ => return Err(DecodeError::new(at, "memory mode")),
    };
    record.begin_seq = cursor.varint("memory begin seq")?;
    record.end_seq = cursor.varint("memory end seq")?;
    record.storage_bytes = cursor.varint("memory storage bytes")?;
    let sections = cursor.count(MIN_SECTION, "memory section count")?;
    for _ in 0..sections {
        let kind = cursor.u8("memory section kind")?;
        let len = cursor.count(1, "memory section length")?;
        let at = cursor.offset();
        let mut body = Cursor::new(cursor.bytes(len, "memory section")?, at);
        // Bytes a section leaves unread are a newer writer's trailing fields.
        match kind {
            DOMAINS => {
                let count = body.count(MIN_DOMAIN, "memory domain count")?;
                for _ in 0..count {
                    let id = body.varint_u32("memory domain id")?;
                    record.domains.push(MemoryDomain { id, name: body.str("memory domain name")?.to_owned() });
                }
            }
            SITES => {
                let count = body.count(MIN_SITE, "memory site count")?;
                for _ in 0..count {
                    record.sites.push(MemorySite {
                        id: body.varint_u32("memory site id")?,
                        file: body.str("memory site file")?.to_owned(),
                        line: body.varint_u32("memory site line")?,
                        column: body.varint_u32("memory site column")?,
                        name: body.str("memory site name")?.to_owned(),
                    });
                }
            }
            JOURNAL => {
                let count = body.count(MIN_EVENT, "memory event count")?;
                record.events.reserve(count);
                let (mut seq, mut time) = (record.begin_seq, 0);
                for _ in 0..count {
                    let event = event(&mut body, seq, time)?;
                    (seq, time) = (event.seq, event.time);
                    record.events.push(event);
                }
            }
            CHECKPOINT => record.checkpoints.push(checkpoint(&mut body)?),
            HEALTH => record.health = health(&mut body)?,
            _ => {}
        }
    }
    Ok(record)
}

fn event(cursor: &mut Cursor<'_>, previous_seq: u64, previous_time: u64) -> Result<MemoryEvent, DecodeError> {
    let seq = previous_seq.wrapping_add(cursor.varint_i64("memory event seq")? as u64);
    let at = cursor.offset();
    let kind = match cursor.u8("memory event kind")? {
        0 => MemoryEventKind::Alloc,
        1 => MemoryEventKind::Free,
        2 => MemoryEventKind::UnknownFree,
        3 => MemoryEventKind::Failure,
        _ => return Err(DecodeError::new(at, "memory event kind")),
    };
    let at = cursor.offset();
    let lifetime = match cursor.u8("memory event flags")? {
        0 => None,
        EVENT_HAS_LIFETIME => Some(Lifetime {
            epoch: cursor.varint("memory lifetime epoch")?,
            seq: cursor.varint("memory lifetime seq")?,
        }),
        _ => return Err(DecodeError::new(at, "memory event flags")),
    };
    Ok(MemoryEvent {
        seq,
        kind,
        lifetime,
        domain: cursor.varint_u32("memory event domain")?,
        site: cursor.varint_u32("memory event site")?,
        address: cursor.varint("memory event address")?,
        size: cursor.varint("memory event size")?,
        align: cursor.varint("memory event align")?,
        thread: cursor.varint_u32("memory event thread")?,
        time: previous_time.wrapping_add(cursor.varint_i64("memory event time")? as u64),
    })
}

fn checkpoint(cursor: &mut Cursor<'_>) -> Result<MemoryCheckpoint, DecodeError> {
    let id = cursor.varint_u32("checkpoint id")?;
    let name = cursor.str("checkpoint name")?.to_owned();
    let owner = cursor.varint("checkpoint owner")?;
    let at = cursor.offset();
    let expectation = match cursor.u8("checkpoint expectation")? {
        0 => MemoryExpectation::Unspecified,
        1 => MemoryExpectation::Retained,
        2 => MemoryExpectation::Released,
        _ => return Err(DecodeError::new(at, "checkpoint expectation")),
    };
    let boundary_seq = cursor.varint("checkpoint boundary seq")?;
    let time = cursor.varint("checkpoint time")?;
    let at = cursor.offset();
    let flags = cursor.u8("checkpoint flags")?;
    if flags & !(CHECKPOINT_TABLE_EXACT | CHECKPOINT_HISTORY_COMPLETE) != 0 {
        return Err(DecodeError::new(at, "checkpoint flags"));
    }
    let mut checkpoint = MemoryCheckpoint {
        id,
        name,
        owner,
        expectation,
        boundary_seq,
        time,
        table_exact: flags & CHECKPOINT_TABLE_EXACT != 0,
        history_complete: flags & CHECKPOINT_HISTORY_COMPLETE != 0,
        domains: Vec::new(),
        live: Vec::new(),
    };
    let count = cursor.count(MIN_COUNTERS, "checkpoint domain count")?;
    for _ in 0..count {
        let domain = cursor.varint_u32("counters domain")?;
        let mut values = [0; 8];
        for value in &mut values {
            *value = cursor.varint("counter value")?;
        }
        let at = cursor.offset();
        let valid = match cursor.u8("counters valid")? {
            0 => false,
            1 => true,
            _ => return Err(DecodeError::new(at, "counters valid")),
        };
        let [live_bytes, live_blocks, peak_bytes, allocated_bytes, freed_bytes, allocations, frees, failures] = values;
        checkpoint.domains.push(DomainCounters {
            domain,
            live_bytes,
            live_blocks,
            peak_bytes,
            allocated_bytes,
            freed_bytes,
            allocations,
            frees,
            failures,
            valid,
        });
    }
    let count = cursor.count(MIN_BLOCK, "checkpoint live count")?;
    checkpoint.live.reserve(count);
    for _ in 0..count {
        checkpoint.live.push(MemoryBlock {
            address: cursor.varint("block address")?,
            lifetime: Lifetime { epoch: cursor.varint("block epoch")?, seq: cursor.varint("block seq")? },
            alloc_seq: cursor.varint("block alloc seq")?,
            domain: cursor.varint_u32("block domain")?,
            site: cursor.varint_u32("block site")?,
            size: cursor.varint("block size")?,
            align: cursor.varint("block align")?,
            thread: cursor.varint_u32("block thread")?,
            time: cursor.varint("block time")?,
        });
    }
    Ok(checkpoint)
}

fn health(cursor: &mut Cursor<'_>) -> Result<MemoryHealth, DecodeError> {
    let at = cursor.offset();
    let flags = cursor.u8("health flags")?;
    if flags & !(HEALTH_JOURNAL_LOSS | HEALTH_TABLE_LOSS | HEALTH_RECURSION) != 0 {
        return Err(DecodeError::new(at, "health flags"));
    }
    let mut health = MemoryHealth::default();
    if flags & HEALTH_JOURNAL_LOSS != 0 {
        health.journal_loss = Some(loss(cursor)?);
    }
    if flags & HEALTH_TABLE_LOSS != 0 {
        health.table_loss = Some(loss(cursor)?);
    }
    if flags & HEALTH_RECURSION != 0 {
        health.recursion = Some(MemoryRecursionLoss {
            count: cursor.varint("recursion count")?,
            domain: cursor.varint_u32("recursion domain")?,
            after_seq: cursor.varint("recursion after seq")?,
        });
    }
    health.unknown_baseline_frees = cursor.varint("unknown baseline frees")?;
    health.ownership_errors = cursor.varint("ownership errors")?;
    Ok(health)
}

fn loss(cursor: &mut Cursor<'_>) -> Result<MemoryLoss, DecodeError> {
    let at = cursor.offset();
    let reason = match cursor.u8("loss reason")? {
        0 => MemoryLossReason::JournalFull,
        1 => MemoryLossReason::TableFull,
        2 => MemoryLossReason::DuplicateAddress,
        3 => MemoryLossReason::MissingEntry,
        _ => return Err(DecodeError::new(at, "loss reason")),
    };
    Ok(MemoryLoss {
        reason,
        first_lost_seq: cursor.varint("loss first seq")?,
        domain: cursor.varint_u32("loss domain")?,
        count: cursor.varint("loss count")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DefectKind;
    use crate::model::{Level, Meta};
    use crate::reader::Capture;
    use crate::writer::Writer;

    fn sample() -> MemoryRecord {
        let block = MemoryBlock {
            address: u64::MAX,
            lifetime: Lifetime { epoch: 3, seq: 9 },
            alloc_seq: 41,
            domain: 2,
            site: 5,
            size: 1 << 33,
            align: 4096,
            thread: 7,
            time: 123,
        };
        MemoryRecord {
            capture_id: 12,
            epoch: 3,
            mode: MemoryMode::Activity,
            begin_seq: 40,
            end_seq: 60,
            storage_bytes: 1 << 20,
            domains: vec![MemoryDomain { id: 2, name: "scène/a".into() }],
            sites: vec![MemorySite { id: 5, file: "a.rs".into(), line: 1, column: u32::MAX, name: String::new() }],
            events: vec![
                MemoryEvent {
                    seq: 41,
                    kind: MemoryEventKind::Alloc,
                    lifetime: Some(block.lifetime),
                    domain: 2,
                    site: 5,
                    address: u64::MAX,
                    size: 1 << 33,
                    align: 4096,
                    thread: 7,
                    time: 123,
                },
                // Time may run backwards on a hostile clock; deltas are signed.
                MemoryEvent { seq: 45, kind: MemoryEventKind::UnknownFree, time: 5, ..MemoryEvent::default() },
                MemoryEvent { seq: 46, kind: MemoryEventKind::Failure, time: u64::MAX, ..MemoryEvent::default() },
            ],
            checkpoints: vec![MemoryCheckpoint {
                id: 0,
                name: "end".into(),
                owner: u64::MAX,
                expectation: MemoryExpectation::Released,
                boundary_seq: 60,
                time: 999,
                table_exact: true,
                history_complete: false,
                domains: vec![DomainCounters {
                    domain: 2,
                    live_bytes: 1 << 33,
                    valid: false,
                    ..DomainCounters::default()
                }],
                live: vec![block],
            }],
            health: MemoryHealth {
                journal_loss: Some(MemoryLoss {
                    reason: MemoryLossReason::JournalFull,
                    first_lost_seq: 47,
                    domain: 2,
                    count: 13,
                }),
                table_loss: None,
                recursion: Some(MemoryRecursionLoss { count: 1, domain: 0, after_seq: 50 }),
                unknown_baseline_frees: 1,
                ownership_errors: 0,
            },
        }
    }

    fn capture_with(record: &MemoryRecord) -> Vec<u8> {
        let meta = Meta { level: Some(Level::Timing), ..Meta::default() };
        let mut writer = Writer::new(Vec::new(), &meta).unwrap();
        writer.memory(record).unwrap();
        writer.finish().unwrap()
    }

    #[test]
    fn a_memory_record_round_trips_through_a_capture() {
        let record = sample();
        let bytes = capture_with(&record);
        let capture = Capture::open(&bytes).unwrap();
        assert!(capture.is_intact(), "{:?}", capture.verify());
        assert_eq!(capture.memory_records(), std::slice::from_ref(&record));
        assert!(capture.records().iter().any(|r| r.kind == crate::record::FourCc::MEMO));
        // An empty record round-trips too.
        let empty = MemoryRecord::default();
        assert_eq!(Capture::open(&capture_with(&empty)).unwrap().memory_records(), [empty]);
    }

    #[test]
    fn unknown_sections_and_trailing_section_bytes_are_skipped() {
        let mut out = Vec::new();
        encode(&mut out, &MemoryRecord { capture_id: 5, ..MemoryRecord::default() });
        // Header: five one-byte varints and the mode byte; then the section count.
        assert_eq!(out[6], 4);
        out[6] = 5;
        out.extend_from_slice(&[9, 3, 0xAA, 0xBB, 0xCC]);
        // A section of a newer writer's kind after health; and health grows a field.
        let health_len_at = out.len() - 5 - 4;
        assert_eq!(&out[health_len_at - 1..health_len_at + 1], [HEALTH, 3]);
        out[health_len_at] = 4;
        out.insert(health_len_at + 4, 0x77);
        let record = decode(&mut Cursor::new(&out, 0)).unwrap();
        assert_eq!(record.capture_id, 5);
        assert_eq!(record.health, MemoryHealth::default());
    }

    #[test]
    fn a_bad_enum_or_a_cut_record_is_malformed_and_the_rest_of_the_capture_survives() {
        let mut out = Vec::new();
        encode(&mut out, &sample());
        let mut bad_mode = out.clone();
        bad_mode[2] = 2;
        assert_eq!(decode(&mut Cursor::new(&bad_mode, 0)).unwrap_err().what, "memory mode");
        for cut in 0..out.len() {
            assert!(decode(&mut Cursor::new(&out[..cut], 0)).is_err(), "cut at {cut}");
        }

        // Inside a capture, with a valid checksum: one malformed defect, nothing else lost.
        let bytes = capture_with(&sample());
        let capture = Capture::open(&bytes).unwrap();
        let at = capture.records().iter().find(|r| r.kind == crate::record::FourCc::MEMO).unwrap().offset as usize;
        let mut damaged = bytes.clone();
        let payload = at + crate::record::RECORD_HEADER_LEN;
        let len = u32::from_le_bytes(damaged[at + 8..at + 12].try_into().unwrap()) as usize;
        damaged[payload + 2] = 7;
        let crc = crc32fast::hash(&damaged[payload..payload + len]);
        damaged[at + 12..at + 16].copy_from_slice(&crc.to_le_bytes());
        let capture = Capture::open(&damaged).unwrap();
        assert!(capture.memory_records().is_empty());
        assert!(capture.meta().is_some());
        let kinds: Vec<DefectKind> = capture.defects().iter().map(|d| d.kind).collect();
        assert_eq!(kinds, [DefectKind::Malformed]);

        // A flipped byte without a new checksum: the record is skipped as corrupt.
        let mut flipped = bytes;
        flipped[payload + 1] ^= 0xFF;
        let capture = Capture::open(&flipped).unwrap();
        assert!(capture.memory_records().is_empty());
        assert_eq!(capture.defects()[0].kind, DefectKind::ChecksumMismatch);
    }
}
