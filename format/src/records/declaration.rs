//! DECL records: pipelines, counters, bind groups, buffers and query sets that frames
//! reference by id. Written before the first frame that references them, carrying the
//! symbols they introduce.
//!
//! ```text
//! payload:  symbol block, entry count varint, entries
//! entry:    kind u8, body length varint, body   (an unknown kind is skipped by length)
//! 0 pipeline:   id varint, label ref, kind u8 (0 compute, 1 render), shader module ref,
//!               entry point ref, workgroup u8 (0 unknown, 1 known: then x, y, z varints)
//! 1 counter:    id varint, name ref, unit u8 (0 count, 1 bytes, 2 nanoseconds, 3 percent)
//! 2 bind group: id varint, label ref
//! 3 buffer:     id varint, label ref, size varint
//! 4 query set:  id u8, label ref
//! ```

use crate::error::{DecodeError, Defect, DefectKind};
use crate::model::{
    BindGroupDef, BufferDef, CounterDef, CounterUnit, Declaration, Pipeline, PipelineKind, QuerySetDef,
};
use crate::symbols::{SymbolTable, SymbolWriter};
use crate::wire::{Cursor, put_varint};

const PIPELINE: u8 = 0;
const COUNTER: u8 = 1;
const BIND_GROUP: u8 = 2;
const BUFFER: u8 = 3;
const QUERY_SET: u8 = 4;

/// Appends one entry's kind, length and body.
pub fn encode_entry(out: &mut Vec<u8>, declaration: &Declaration, symbols: &mut SymbolWriter, body: &mut Vec<u8>) {
    body.clear();
    let kind = match declaration {
        Declaration::Pipeline(pipeline) => {
            put_varint(body, u64::from(pipeline.id));
            symbols.put_ref(body, &pipeline.label);
            body.push(match pipeline.kind {
                PipelineKind::Compute => 0,
                PipelineKind::Render => 1,
            });
            symbols.put_ref(body, &pipeline.shader_module);
            symbols.put_ref(body, &pipeline.entry_point);
            match pipeline.workgroup_size {
                None => body.push(0),
                Some(size) => {
                    body.push(1);
                    for value in size {
                        put_varint(body, u64::from(value));
                    }
                }
            }
            PIPELINE
        }
        Declaration::Counter(counter) => {
            put_varint(body, u64::from(counter.id));
            symbols.put_ref(body, &counter.name);
            body.push(match counter.unit {
                CounterUnit::Count => 0,
                CounterUnit::Bytes => 1,
                CounterUnit::Nanoseconds => 2,
                CounterUnit::Percent => 3,
            });
            COUNTER
        }
        Declaration::BindGroup(group) => {
            put_varint(body, u64::from(group.id));
            symbols.put_ref(body, &group.label);
            BIND_GROUP
        }
        Declaration::Buffer(buffer) => {
            put_varint(body, u64::from(buffer.id));
            symbols.put_ref(body, &buffer.label);
            put_varint(body, buffer.size);
            BUFFER
        }
        Declaration::QuerySet(set) => {
            body.push(set.id);
            symbols.put_ref(body, &set.label);
            QUERY_SET
        }
    };
    out.push(kind);
    put_varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// Decodes a DECL payload's entries (after its symbol block). Unknown kinds are
/// reported and skipped.
pub fn decode_entries(
    cursor: &mut Cursor<'_>,
    symbols: &SymbolTable,
    defects: &mut Vec<Defect>,
) -> Result<Vec<Declaration>, DecodeError> {
    let count = cursor.count(2, "declaration count")?;
    let mut declarations = Vec::with_capacity(count);
    for _ in 0..count {
        let at = cursor.offset();
        let kind = cursor.u8("declaration kind")?;
        let len = cursor.count(1, "declaration length")?;
        let body_at = cursor.offset();
        let mut body = Cursor::new(cursor.bytes(len, "declaration body")?, body_at);
        // Each entry is length-prefixed, so a damaged one costs only itself.
        match decode_entry(kind, &mut body, symbols) {
            Ok(Some(declaration)) => declarations.push(declaration),
            Ok(None) => defects.push(Defect::new(
                DefectKind::UnknownRecord,
                at,
                format!("declaration kind {kind} is unknown to this reader; skipped {len} bytes"),
            )),
            Err(error) => defects.push(error.into()),
        }
    }
    Ok(declarations)
}

/// Decodes one entry's body; `None` for a kind this reader does not know.
fn decode_entry(kind: u8, body: &mut Cursor<'_>, symbols: &SymbolTable) -> Result<Option<Declaration>, DecodeError> {
    let declaration = match kind {
        PIPELINE => {
            let id = body.varint_u32("pipeline id")?;
            let label = symbols.read_ref(body)?;
            let kind_at = body.offset();
            let kind = match body.u8("pipeline kind")? {
                0 => PipelineKind::Compute,
                1 => PipelineKind::Render,
                _ => return Err(DecodeError::new(kind_at, "pipeline kind")),
            };
            let shader_module = symbols.read_ref(body)?;
            let entry_point = symbols.read_ref(body)?;
            let size_at = body.offset();
            let workgroup_size = match body.u8("workgroup size")? {
                0 => None,
                1 => Some([
                    body.varint_u32("workgroup x")?,
                    body.varint_u32("workgroup y")?,
                    body.varint_u32("workgroup z")?,
                ]),
                _ => return Err(DecodeError::new(size_at, "workgroup size")),
            };
            Declaration::Pipeline(Pipeline { id, label, kind, shader_module, entry_point, workgroup_size })
        }
        COUNTER => {
            let id = body.varint_u32("counter id")?;
            let name = symbols.read_ref(body)?;
            let unit_at = body.offset();
            let unit = match body.u8("counter unit")? {
                0 => CounterUnit::Count,
                1 => CounterUnit::Bytes,
                2 => CounterUnit::Nanoseconds,
                3 => CounterUnit::Percent,
                _ => return Err(DecodeError::new(unit_at, "counter unit")),
            };
            Declaration::Counter(CounterDef { id, name, unit })
        }
        BIND_GROUP => Declaration::BindGroup(BindGroupDef {
            id: body.varint_u32("bind group id")?,
            label: symbols.read_ref(body)?,
        }),
        BUFFER => Declaration::Buffer(BufferDef {
            id: body.varint_u32("buffer id")?,
            label: symbols.read_ref(body)?,
            size: body.varint("buffer size")?,
        }),
        QUERY_SET => {
            Declaration::QuerySet(QuerySetDef { id: body.u8("query set id")?, label: symbols.read_ref(body)? })
        }
        _ => return Ok(None),
    };
    Ok(Some(declaration))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::put_varint;

    #[test]
    fn a_damaged_entry_costs_only_itself() {
        let mut symbols = SymbolWriter::default();
        symbols.begin_record();
        let mut entries = Vec::new();
        let mut body = Vec::new();
        put_varint(&mut entries, 3);
        let pipeline = Pipeline { id: 1, label: "p".into(), ..Pipeline::default() };
        encode_entry(&mut entries, &Declaration::Pipeline(pipeline), &mut symbols, &mut body);
        let kind_at = entries.len() + 2 + 2; // kind, length, id, label ref
        encode_entry(
            &mut entries,
            &Declaration::Pipeline(Pipeline { id: 2, ..Pipeline::default() }),
            &mut symbols,
            &mut body,
        );
        let buffer = BufferDef { id: 7, label: "args".into(), size: 64 };
        encode_entry(&mut entries, &Declaration::Buffer(buffer.clone()), &mut symbols, &mut body);
        entries[kind_at] = 9; // the second pipeline's kind byte: not compute, not render
        let mut payload = Vec::new();
        symbols.put_block(&mut payload);
        payload.extend_from_slice(&entries);

        let mut table = SymbolTable::default();
        let mut defects = Vec::new();
        let mut cursor = Cursor::new(&payload, 0);
        table.read_block(&mut cursor, &mut defects).unwrap();
        let declarations = decode_entries(&mut cursor, &table, &mut defects).unwrap();
        assert_eq!(declarations.len(), 2);
        assert_eq!(declarations[1], Declaration::Buffer(buffer));
        assert_eq!(defects.len(), 1);
        assert_eq!(defects[0].kind, DefectKind::Malformed);
    }
}
