//! TOPO records: a frame graph's structure, written once per distinct content and
//! referenced from frames by id (SGPT_FORMAT.md §3.3).
//!
//! ```text
//! payload:  topology_id varint, content_hash u64 LE, symbol block, body
//! body:     scopes, resources, graph passes, GPU passes — each a varint count then entries
//! scope:         name ref, parent opt        (parent < this scope's index)
//! resource:      name ref, version varint, imported u8 (0 or 1), declared_bytes varint,
//!                desc u8: 0 none | 1 buffer: size varint, usage varint
//!                       | 2 texture: dimension u8 (0 1d, 1 2d, 2 3d), width, height,
//!                         depth_or_array_layers, mip_level_count, sample_count varints,
//!                         format ref, usage varint
//! graph pass:    name ref, scope opt, side_effects u8 (0 or 1), ref_count varint,
//!                reads, writes, creates: each a varint count then resource indices
//! GPU pass:      label ref, graph_pass opt, kind u8 (0 compute, 1 render, 2 marker,
//!                3 encoder), parent opt (< this pass's index), attachment count varint,
//!                then per attachment:
//!                role u8 (0 color, 1 depth-stencil), format ref, load u8, store u8,
//!                stencil u8 (0 none, 1 present: then stencil load u8, stencil store u8)
//! load op:       0 load, 1 clear, 2 none          store op: 0 store, 1 discard, 2 none
//! opt:           varint, 0 for none, index + 1 otherwise
//! ```
//!
//! The content hash is xxh3-64 of the body encoded with every name written inline
//! (varint length + UTF-8) instead of as a symbol reference, so it depends on the
//! topology alone, not on which symbols earlier records introduced.

use crate::error::DecodeError;
use crate::model::{
    Attachment, AttachmentRole, GpuPass, GpuPassKind, GraphPass, LoadOp, ResourceDesc, ResourceNode, Scope, StoreOp,
    TextureDimension, Topology,
};
use crate::symbols::{SymbolTable, SymbolWriter};
use crate::wire::{Cursor, put_opt_index, put_str, put_varint};

/// How names are written: inline for the content hash, as references in a record.
pub trait NameOut {
    fn put_name(&mut self, out: &mut Vec<u8>, name: &str);
}

/// Writes names inline (the canonical form the content hash is taken over).
#[derive(Debug)]
pub struct InlineNames;

impl NameOut for InlineNames {
    fn put_name(&mut self, out: &mut Vec<u8>, name: &str) {
        put_str(out, name);
    }
}

impl NameOut for SymbolWriter {
    fn put_name(&mut self, out: &mut Vec<u8>, name: &str) {
        self.put_ref(out, name);
    }
}

/// The stable content hash of a topology. `scratch` is reused between calls.
pub fn content_hash(topology: &Topology, scratch: &mut Vec<u8>) -> u64 {
    scratch.clear();
    encode_body(scratch, topology, &mut InlineNames);
    xxhash_rust::xxh3::xxh3_64(scratch)
}

fn put_indices(out: &mut Vec<u8>, indices: &[u32]) {
    put_varint(out, indices.len() as u64);
    for &index in indices {
        put_varint(out, u64::from(index));
    }
}

fn load_byte(op: LoadOp) -> u8 {
    match op {
        LoadOp::Load => 0,
        LoadOp::Clear => 1,
        LoadOp::None => 2,
    }
}

fn store_byte(op: StoreOp) -> u8 {
    match op {
        StoreOp::Store => 0,
        StoreOp::Discard => 1,
        StoreOp::None => 2,
    }
}

/// Appends the topology body.
pub fn encode_body(out: &mut Vec<u8>, topology: &Topology, names: &mut impl NameOut) {
    put_varint(out, topology.scopes.len() as u64);
    for scope in &topology.scopes {
        names.put_name(out, &scope.name);
        put_opt_index(out, scope.parent);
    }
    put_varint(out, topology.resources.len() as u64);
    for resource in &topology.resources {
        names.put_name(out, &resource.name);
        put_varint(out, u64::from(resource.version));
        out.push(u8::from(resource.imported));
        put_varint(out, resource.declared_bytes);
        match &resource.desc {
            ResourceDesc::None => out.push(0),
            ResourceDesc::Buffer { size, usage } => {
                out.push(1);
                put_varint(out, *size);
                put_varint(out, u64::from(*usage));
            }
            ResourceDesc::Texture {
                dimension,
                width,
                height,
                depth_or_array_layers,
                mip_level_count,
                sample_count,
                format,
                usage,
            } => {
                out.push(2);
                out.push(match dimension {
                    TextureDimension::D1 => 0,
                    TextureDimension::D2 => 1,
                    TextureDimension::D3 => 2,
                });
                for value in [width, height, depth_or_array_layers, mip_level_count, sample_count] {
                    put_varint(out, u64::from(*value));
                }
                names.put_name(out, format);
                put_varint(out, u64::from(*usage));
            }
        }
    }
    put_varint(out, topology.graph_passes.len() as u64);
    for pass in &topology.graph_passes {
        names.put_name(out, &pass.name);
        put_opt_index(out, pass.scope);
        out.push(u8::from(pass.side_effects));
        put_varint(out, u64::from(pass.ref_count));
        put_indices(out, &pass.reads);
        put_indices(out, &pass.writes);
        put_indices(out, &pass.creates);
    }
    put_varint(out, topology.gpu_passes.len() as u64);
    for pass in &topology.gpu_passes {
        names.put_name(out, &pass.label);
        put_opt_index(out, pass.graph_pass);
        out.push(match pass.kind {
            GpuPassKind::Compute => 0,
            GpuPassKind::Render => 1,
            GpuPassKind::Marker => 2,
            GpuPassKind::Encoder => 3,
        });
        put_opt_index(out, pass.parent);
        put_varint(out, pass.attachments.len() as u64);
        for attachment in &pass.attachments {
            out.push(match attachment.role {
                AttachmentRole::Color => 0,
                AttachmentRole::DepthStencil => 1,
            });
            names.put_name(out, &attachment.format);
            out.push(load_byte(attachment.load));
            out.push(store_byte(attachment.store));
            match attachment.stencil {
                None => out.push(0),
                Some((load, store)) => {
                    out.push(1);
                    out.push(load_byte(load));
                    out.push(store_byte(store));
                }
            }
        }
    }
}

/// Checks what a reader would reject, so a writer never produces a topology that
/// cannot be read back: every index in range, and parents before their children.
pub fn validate(topology: &Topology) -> Result<(), &'static str> {
    let in_range = |index: Option<u32>, len: usize| index.is_none_or(|i| (i as usize) < len);
    for (i, scope) in topology.scopes.iter().enumerate() {
        if !in_range(scope.parent, i) {
            return Err("a scope's parent must precede it");
        }
    }
    let resources = topology.resources.len();
    for pass in &topology.graph_passes {
        if !in_range(pass.scope, topology.scopes.len()) {
            return Err("a graph pass names a scope that does not exist");
        }
        if pass.reads.iter().chain(&pass.writes).chain(&pass.creates).any(|&r| r as usize >= resources) {
            return Err("a graph pass names a resource node that does not exist");
        }
    }
    for (i, pass) in topology.gpu_passes.iter().enumerate() {
        if !in_range(pass.graph_pass, topology.graph_passes.len()) {
            return Err("a GPU pass names a graph pass that does not exist");
        }
        if !in_range(pass.parent, i) {
            return Err("a GPU pass's parent must precede it");
        }
    }
    Ok(())
}

/// Reads an index that must be below `len`.
fn index(cursor: &mut Cursor<'_>, len: usize, what: &'static str) -> Result<u32, DecodeError> {
    let at = cursor.offset();
    let value = cursor.varint_u32(what)?;
    if (value as usize) < len { Ok(value) } else { Err(DecodeError::new(at, what)) }
}

fn opt_index(cursor: &mut Cursor<'_>, len: usize, what: &'static str) -> Result<Option<u32>, DecodeError> {
    let at = cursor.offset();
    match cursor.opt_index(what)? {
        Some(value) if value as usize >= len => Err(DecodeError::new(at, what)),
        value => Ok(value),
    }
}

fn indices(cursor: &mut Cursor<'_>, len: usize, what: &'static str) -> Result<Vec<u32>, DecodeError> {
    let count = cursor.count(1, what)?;
    (0..count).map(|_| index(cursor, len, what)).collect()
}

fn load_op(cursor: &mut Cursor<'_>) -> Result<LoadOp, DecodeError> {
    let at = cursor.offset();
    match cursor.u8("load op")? {
        0 => Ok(LoadOp::Load),
        1 => Ok(LoadOp::Clear),
        2 => Ok(LoadOp::None),
        _ => Err(DecodeError::new(at, "load op")),
    }
}

fn store_op(cursor: &mut Cursor<'_>) -> Result<StoreOp, DecodeError> {
    let at = cursor.offset();
    match cursor.u8("store op")? {
        0 => Ok(StoreOp::Store),
        1 => Ok(StoreOp::Discard),
        2 => Ok(StoreOp::None),
        _ => Err(DecodeError::new(at, "store op")),
    }
}

/// Decodes a topology body, resolving names through `symbols`.
pub fn decode_body(cursor: &mut Cursor<'_>, symbols: &SymbolTable) -> Result<Topology, DecodeError> {
    let mut topology = Topology::default();
    // Every entry takes at least two bytes, which bounds each count before allocating.
    let scope_count = cursor.count(2, "scope count")?;
    topology.scopes.reserve(scope_count);
    for i in 0..scope_count {
        let name = symbols.read_ref(cursor)?;
        // A parent must precede its child, which rules out cycles.
        let parent = opt_index(cursor, i, "scope parent")?;
        topology.scopes.push(Scope { name, parent });
    }
    let resource_count = cursor.count(5, "resource count")?;
    topology.resources.reserve(resource_count);
    for _ in 0..resource_count {
        let name = symbols.read_ref(cursor)?;
        let version = cursor.varint_u32("resource version")?;
        let at = cursor.offset();
        let flags = cursor.u8("resource flags")?;
        if flags > 1 {
            return Err(DecodeError::new(at, "resource flags"));
        }
        let declared_bytes = cursor.varint("declared bytes")?;
        let at = cursor.offset();
        let desc = match cursor.u8("resource descriptor")? {
            0 => ResourceDesc::None,
            1 => {
                ResourceDesc::Buffer { size: cursor.varint("buffer size")?, usage: cursor.varint_u32("buffer usage")? }
            }
            2 => {
                let at = cursor.offset();
                let dimension = match cursor.u8("texture dimension")? {
                    0 => TextureDimension::D1,
                    1 => TextureDimension::D2,
                    2 => TextureDimension::D3,
                    _ => return Err(DecodeError::new(at, "texture dimension")),
                };
                ResourceDesc::Texture {
                    dimension,
                    width: cursor.varint_u32("texture width")?,
                    height: cursor.varint_u32("texture height")?,
                    depth_or_array_layers: cursor.varint_u32("texture depth")?,
                    mip_level_count: cursor.varint_u32("texture mip count")?,
                    sample_count: cursor.varint_u32("texture sample count")?,
                    format: symbols.read_ref(cursor)?,
                    usage: cursor.varint_u32("texture usage")?,
                }
            }
            _ => return Err(DecodeError::new(at, "resource descriptor")),
        };
        topology.resources.push(ResourceNode { name, version, imported: flags == 1, declared_bytes, desc });
    }
    let graph_pass_count = cursor.count(7, "graph pass count")?;
    topology.graph_passes.reserve(graph_pass_count);
    for _ in 0..graph_pass_count {
        let name = symbols.read_ref(cursor)?;
        let scope = opt_index(cursor, scope_count, "graph pass scope")?;
        let at = cursor.offset();
        let flags = cursor.u8("graph pass flags")?;
        if flags > 1 {
            return Err(DecodeError::new(at, "graph pass flags"));
        }
        let ref_count = cursor.varint_u32("ref count")?;
        let reads = indices(cursor, resource_count, "graph pass reads")?;
        let writes = indices(cursor, resource_count, "graph pass writes")?;
        let creates = indices(cursor, resource_count, "graph pass creates")?;
        topology.graph_passes.push(GraphPass {
            name,
            scope,
            side_effects: flags == 1,
            ref_count,
            reads,
            writes,
            creates,
        });
    }
    let gpu_pass_count = cursor.count(5, "GPU pass count")?;
    topology.gpu_passes.reserve(gpu_pass_count);
    for _ in 0..gpu_pass_count {
        let label = symbols.read_ref(cursor)?;
        let graph_pass = opt_index(cursor, graph_pass_count, "GPU pass graph pass")?;
        let at = cursor.offset();
        let kind = match cursor.u8("GPU pass kind")? {
            0 => GpuPassKind::Compute,
            1 => GpuPassKind::Render,
            2 => GpuPassKind::Marker,
            3 => GpuPassKind::Encoder,
            _ => return Err(DecodeError::new(at, "GPU pass kind")),
        };
        // Like scopes, a marker region's enclosing pass precedes it, which rules out cycles.
        let parent = opt_index(cursor, topology.gpu_passes.len(), "GPU pass parent")?;
        let attachment_count = cursor.count(5, "attachment count")?;
        let mut attachments = Vec::with_capacity(attachment_count);
        for _ in 0..attachment_count {
            let at = cursor.offset();
            let role = match cursor.u8("attachment role")? {
                0 => AttachmentRole::Color,
                1 => AttachmentRole::DepthStencil,
                _ => return Err(DecodeError::new(at, "attachment role")),
            };
            let format = symbols.read_ref(cursor)?;
            let load = load_op(cursor)?;
            let store = store_op(cursor)?;
            let at = cursor.offset();
            let stencil = match cursor.u8("stencil ops")? {
                0 => None,
                1 => Some((load_op(cursor)?, store_op(cursor)?)),
                _ => return Err(DecodeError::new(at, "stencil ops")),
            };
            attachments.push(Attachment { role, format, load, store, stencil });
        }
        topology.gpu_passes.push(GpuPass { label, graph_pass, kind, parent, attachments });
    }
    Ok(topology)
}
