//! Symbols: the names a record introduces, carried inside that record (SGPT_FORMAT.md
//! §3.1). There is no global string table to finalise at stop, so a truncated capture
//! still resolves every name its surviving records reference.
//!
//! ```text
//! symbol block:  first_index varint, count varint, count × string
//! string:        varint byte length, UTF-8 bytes
//! reference:     varint index, global across the capture, assigned in write order
//! ```

use std::collections::HashMap;

use crate::error::{DecodeError, Defect, DefectKind};
use crate::wire::{Cursor, put_str, put_varint};

/// The writer's side: which strings already have an index.
#[derive(Debug, Default)]
pub struct SymbolWriter {
    indices: HashMap<Box<str>, u32>,
    next: u32,
    /// Strings introduced by the record being built, encoded.
    block: Vec<u8>,
    block_first: u32,
    block_count: u32,
}

impl SymbolWriter {
    /// Starts collecting the symbols of a new record.
    pub fn begin_record(&mut self) {
        self.block.clear();
        self.block_first = self.next;
        self.block_count = 0;
    }

    /// Writes a reference to `text` into `out`, introducing it in this record if new.
    pub fn put_ref(&mut self, out: &mut Vec<u8>, text: &str) {
        let index = match self.indices.get(text) {
            Some(&index) => index,
            None => {
                let index = self.next;
                self.next += 1;
                self.indices.insert(text.into(), index);
                put_str(&mut self.block, text);
                self.block_count += 1;
                index
            }
        };
        put_varint(out, u64::from(index));
    }

    /// Forgets the symbols introduced by the record being built, which was not written,
    /// so the next record introduces them again and indices stay gap-free.
    pub fn abandon_record(&mut self) {
        let first = self.block_first;
        self.indices.retain(|_, index| *index < first);
        self.next = first;
        self.block.clear();
        self.block_count = 0;
    }

    /// Appends the symbol block of the record being built.
    pub fn put_block(&self, out: &mut Vec<u8>) {
        put_varint(out, u64::from(self.block_first));
        put_varint(out, u64::from(self.block_count));
        out.extend_from_slice(&self.block);
    }
}

/// The reader's side: every symbol seen so far, by index.
///
/// Kept as runs of consecutive indices, so a hostile block start cannot make the reader
/// allocate placeholders for a gap; a lost symbol resolves to a placeholder on demand.
#[derive(Debug, Default, Clone)]
pub struct SymbolTable {
    /// `(first index, names)`, sorted and non-overlapping.
    runs: Vec<(u64, Vec<String>)>,
    end: u64,
}

impl SymbolTable {
    /// Reads a symbol block. A block that starts past the table's end means a record
    /// carrying symbols was lost: the gap is reported, and every later index still lands
    /// on its own name.
    ///
    /// The gap is reported only by a block that applies (SGPT_FORMAT.md §3.1): a block
    /// that then fails is not applied, leaves `end` where it was, and reports only its
    /// own failure, so the next block that applies names the whole gap once, the failed
    /// block's indices included. Checks run in stored order: a start that reaches back
    /// and a start plus count that overflows, both at the start, before any string.
    pub fn read_block(&mut self, cursor: &mut Cursor<'_>, defects: &mut Vec<Defect>) -> Result<(), DecodeError> {
        let at = cursor.offset();
        let first = cursor.varint("symbol block start")?;
        if first < self.end {
            // A writer assigns indices once; a block reaching back is damage, not data.
            return Err(DecodeError::new(at, "symbol block start"));
        }
        let count = cursor.count(1, "symbol count")?;
        let end = first.checked_add(count as u64).ok_or_else(|| DecodeError::new(at, "symbol block start"))?;
        let mut names = Vec::with_capacity(count);
        for _ in 0..count {
            names.push(cursor.str("symbol")?.to_owned());
        }
        if first > self.end {
            defects.push(Defect::new(
                DefectKind::MissingReference,
                at,
                format!("symbols {}..{first} were in a record that was lost", self.end),
            ));
        }
        self.end = end;
        match self.runs.last_mut() {
            Some((run_first, run)) if *run_first + run.len() as u64 == first => run.extend(names),
            _ => self.runs.push((first, names)),
        }
        Ok(())
    }

    /// Resolves a symbol reference.
    pub fn read_ref(&self, cursor: &mut Cursor<'_>) -> Result<String, DecodeError> {
        let at = cursor.offset();
        let index = cursor.varint("symbol reference")?;
        if index >= self.end {
            return Err(DecodeError::new(at, "symbol reference"));
        }
        let run = self.runs.partition_point(|(first, _)| *first <= index);
        let name = run
            .checked_sub(1)
            .and_then(|run| {
                let (first, names) = &self.runs[run];
                names.get((index - first) as usize)
            })
            .cloned();
        Ok(name.unwrap_or_else(|| format!("<lost symbol {index}>")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(first: u64, names: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        put_varint(&mut out, first);
        put_varint(&mut out, names.len() as u64);
        for name in names {
            put_str(&mut out, name);
        }
        out
    }

    #[test]
    fn references_resolve_across_records_and_a_lost_block_leaves_placeholders() {
        let mut table = SymbolTable::default();
        let mut defects = Vec::new();
        table.read_block(&mut Cursor::new(&block(0, &["a", "b"]), 0), &mut defects).unwrap();
        // Symbols 2..4 were in a record that did not survive.
        table.read_block(&mut Cursor::new(&block(4, &["e"]), 0), &mut defects).unwrap();
        assert_eq!(defects.len(), 1);
        assert_eq!(defects[0].kind, DefectKind::MissingReference);
        let resolve = |index: u64| {
            let mut out = Vec::new();
            put_varint(&mut out, index);
            table.read_ref(&mut Cursor::new(&out, 0))
        };
        assert_eq!(resolve(1).unwrap(), "b");
        assert_eq!(resolve(3).unwrap(), "<lost symbol 3>");
        assert_eq!(resolve(4).unwrap(), "e");
        assert!(resolve(5).is_err());
    }

    #[test]
    fn a_gap_is_reported_once_by_the_block_that_applies_not_by_one_that_fails() {
        let mut table = SymbolTable::default();
        let mut defects = Vec::new();
        table.read_block(&mut Cursor::new(&block(0, &["a"]), 0), &mut defects).unwrap();
        // Symbols 1..3 were lost; this block starts at 3 but its string is cut short.
        let mut broken = block(3, &["dd"]);
        broken.pop();
        assert_eq!(table.read_block(&mut Cursor::new(&broken, 40), &mut defects).unwrap_err().offset, 42);
        assert!(defects.is_empty(), "a block that fails reports no gap: {defects:?}");
        table.read_block(&mut Cursor::new(&block(4, &["e"]), 80), &mut defects).unwrap();
        assert_eq!(
            defects,
            [Defect::new(DefectKind::MissingReference, 80, "symbols 1..4 were in a record that was lost")]
        );
    }

    #[test]
    fn a_hostile_block_start_allocates_nothing_for_the_gap() {
        let mut table = SymbolTable::default();
        let mut defects = Vec::new();
        table.read_block(&mut Cursor::new(&block(u64::MAX / 2, &["x"]), 0), &mut defects).unwrap();
        assert_eq!(table.end, u64::MAX / 2 + 1);
        assert!(table.read_block(&mut Cursor::new(&block(3, &["y"]), 0), &mut defects).is_err());
    }

    #[test]
    fn the_writer_introduces_each_string_once() {
        let mut writer = SymbolWriter::default();
        let mut body = Vec::new();
        writer.begin_record();
        writer.put_ref(&mut body, "shadow");
        writer.put_ref(&mut body, "shadow");
        let mut first = Vec::new();
        writer.put_block(&mut first);
        assert_eq!(first, block(0, &["shadow"]));
        writer.begin_record();
        writer.put_ref(&mut body, "shadow");
        let mut second = Vec::new();
        writer.put_block(&mut second);
        assert_eq!(second, block(1, &[]));
        assert_eq!(body, [0, 0, 0]);
    }
}
