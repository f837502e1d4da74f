//! Identity for what passes bind: pipelines, indirect buffers and bind groups.
//!
//! wgpu objects have no readable label, so the application describes the ones it cares
//! about; anything else still gets an id, named by kind and number. Each id is declared
//! once, in a DECL record before the first frame that uses it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use sgpt_format::{BindGroupDef, BufferDef, Declaration, Pipeline, PipelineKind};

/// How the application describes a pipeline to the recorder.
#[derive(Clone, Copy, Debug, Default)]
pub struct PipelineInfo<'a> {
    pub label: &'a str,
    /// The shader module's name (its file, or its label).
    pub shader_module: &'a str,
    pub entry_point: &'a str,
    /// The module's WGSL source: a compute pipeline's `@workgroup_size` is read from it.
    pub wgsl: Option<&'a str>,
}

/// `@workgroup_size` of compute entry point `entry_point`, as naga parses `wgsl`.
///
/// `None` when the size is an override expression (it is fixed only at pipeline
/// creation) or the source does not parse or lacks the entry point: *unknown*, which is
/// not zero.
#[must_use]
pub fn workgroup_size(wgsl: &str, entry_point: &str) -> Option<[u32; 3]> {
    let module = naga::front::wgsl::parse_str(wgsl).ok()?;
    let entry = module
        .entry_points
        .iter()
        .find(|entry| entry.name == entry_point && entry.stage == naga::ShaderStage::Compute)?;
    if entry.workgroup_size_overrides.as_ref().is_some_and(|dims| dims.iter().any(Option::is_some)) {
        return None;
    }
    let size = entry.workgroup_size;
    size.iter().all(|&dim| dim > 0).then_some(size)
}

/// A hasher for wgpu handles, which hash as one integer id: a multiply-rotate fold (as
/// rustc's FxHasher), not SipHash. A pass's `set_pipeline` looks its pipeline up, and
/// SipHash was most of that lookup's cost; the keys are the application's own objects,
/// not untrusted input.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HandleHasher(u64);

impl HandleHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    #[inline]
    fn fold(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(26) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for HandleHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.fold(u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let mut tail = [0; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        // The length keeps "ab" and "ab\0" apart.
        self.fold(u64::from_le_bytes(tail) ^ (bytes.len() as u64) << 56);
    }

    #[inline]
    fn write_u8(&mut self, value: u8) {
        self.fold(u64::from(value));
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.fold(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.fold(value);
    }

    #[inline]
    fn write_usize(&mut self, value: usize) {
        self.fold(value as u64);
    }
}

/// A map keyed by wgpu handles (or our own short names), hashed by [`HandleHasher`].
pub(crate) type HandleMap<K, V> = HashMap<K, V, BuildHasherDefault<HandleHasher>>;

/// Ids for everything passes reference, and the declarations not yet written.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    // Keys are wgpu handles, equal by identity; holding them keeps an id from being
    // reused by a later object at the same address.
    compute: HandleMap<wgpu::ComputePipeline, u32>,
    render: HandleMap<wgpu::RenderPipeline, u32>,
    buffers: HandleMap<wgpu::Buffer, u32>,
    bind_groups: HandleMap<wgpu::BindGroup, u32>,
    /// Pipelines the shared recorder's scopes name by label: compute, then render (two
    /// maps, so a lookup by `&str` allocates nothing).
    named: [HandleMap<String, u32>; 2],
    next_pipeline: u32,
    /// Declarations made since the last frame was handed to the writer.
    pub(crate) pending: Vec<Declaration>,
}

impl Registry {
    pub(crate) fn describe_compute(&mut self, pipeline: &wgpu::ComputePipeline, info: &PipelineInfo<'_>) -> u32 {
        let workgroup = info.wgsl.and_then(|wgsl| workgroup_size(wgsl, info.entry_point));
        let id = *self.compute.entry(pipeline.clone()).or_insert_with(|| {
            self.next_pipeline += 1;
            self.next_pipeline - 1
        });
        self.pending.push(Declaration::Pipeline(pipeline_def(id, PipelineKind::Compute, info, workgroup)));
        id
    }

    pub(crate) fn describe_render(&mut self, pipeline: &wgpu::RenderPipeline, info: &PipelineInfo<'_>) -> u32 {
        let id = *self.render.entry(pipeline.clone()).or_insert_with(|| {
            self.next_pipeline += 1;
            self.next_pipeline - 1
        });
        self.pending.push(Declaration::Pipeline(pipeline_def(id, PipelineKind::Render, info, None)));
        id
    }

    #[inline]
    pub(crate) fn compute_id(&mut self, pipeline: &wgpu::ComputePipeline) -> u32 {
        if let Some(&id) = self.compute.get(pipeline) {
            return id;
        }
        let id = self.next_pipeline;
        self.next_pipeline += 1;
        self.compute.insert(pipeline.clone(), id);
        let label = format!("compute pipeline #{id}");
        let info = PipelineInfo { label: &label, ..PipelineInfo::default() };
        self.pending.push(Declaration::Pipeline(pipeline_def(id, PipelineKind::Compute, &info, None)));
        id
    }

    #[inline]
    pub(crate) fn render_id(&mut self, pipeline: &wgpu::RenderPipeline) -> u32 {
        if let Some(&id) = self.render.get(pipeline) {
            return id;
        }
        let id = self.next_pipeline;
        self.next_pipeline += 1;
        self.render.insert(pipeline.clone(), id);
        let label = format!("render pipeline #{id}");
        let info = PipelineInfo { label: &label, ..PipelineInfo::default() };
        self.pending.push(Declaration::Pipeline(pipeline_def(id, PipelineKind::Render, &info, None)));
        id
    }

    /// The id of the pipeline a scope of the shared recorder names `label` (declared the
    /// first time, with `workgroup_size` for a compute pipeline).
    pub(crate) fn named_id(&mut self, label: &str, render: bool, workgroup_size: Option<[u32; 3]>) -> u32 {
        if let Some(&id) = self.named[usize::from(render)].get(label) {
            return id;
        }
        let id = self.next_pipeline;
        self.next_pipeline += 1;
        self.named[usize::from(render)].insert(label.to_owned(), id);
        let kind = if render { PipelineKind::Render } else { PipelineKind::Compute };
        let info = PipelineInfo { label, ..PipelineInfo::default() };
        let workgroup_size = if render { None } else { workgroup_size };
        self.pending.push(Declaration::Pipeline(pipeline_def(id, kind, &info, workgroup_size)));
        id
    }

    pub(crate) fn name_buffer(&mut self, buffer: &wgpu::Buffer, label: &str) -> u32 {
        let next = self.buffers.len() as u32;
        let id = *self.buffers.entry(buffer.clone()).or_insert(next);
        self.pending.push(Declaration::Buffer(BufferDef { id, label: label.to_owned(), size: buffer.size() }));
        id
    }

    #[inline]
    pub(crate) fn buffer_id(&mut self, buffer: &wgpu::Buffer) -> u32 {
        if let Some(&id) = self.buffers.get(buffer) {
            return id;
        }
        let id = self.buffers.len() as u32;
        self.buffers.insert(buffer.clone(), id);
        self.pending.push(Declaration::Buffer(BufferDef { id, label: format!("buffer #{id}"), size: buffer.size() }));
        id
    }

    pub(crate) fn name_bind_group(&mut self, bind_group: &wgpu::BindGroup, label: &str) -> u32 {
        let next = self.bind_groups.len() as u32;
        let id = *self.bind_groups.entry(bind_group.clone()).or_insert(next);
        self.pending.push(Declaration::BindGroup(BindGroupDef { id, label: label.to_owned() }));
        id
    }

    #[inline]
    pub(crate) fn bind_group_id(&mut self, bind_group: &wgpu::BindGroup) -> u32 {
        if let Some(&id) = self.bind_groups.get(bind_group) {
            return id;
        }
        let id = self.bind_groups.len() as u32;
        self.bind_groups.insert(bind_group.clone(), id);
        self.pending.push(Declaration::BindGroup(BindGroupDef { id, label: format!("bind group #{id}") }));
        id
    }
}

fn pipeline_def(id: u32, kind: PipelineKind, info: &PipelineInfo<'_>, workgroup_size: Option<[u32; 3]>) -> Pipeline {
    Pipeline {
        id,
        label: info.label.to_owned(),
        kind,
        shader_module: info.shader_module.to_owned(),
        entry_point: info.entry_point.to_owned(),
        workgroup_size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroup_size_comes_from_the_wgsl_attribute() {
        let wgsl = "const WIDTH: u32 = 8u;\n@compute @workgroup_size(WIDTH, 4) fn main() {}\n@compute @workgroup_size(64) fn flat() {}";
        assert_eq!(workgroup_size(wgsl, "main"), Some([8, 4, 1]));
        assert_eq!(workgroup_size(wgsl, "flat"), Some([64, 1, 1]));
        assert_eq!(workgroup_size(wgsl, "missing"), None);
    }

    #[test]
    fn an_override_workgroup_size_is_unknown_never_zero() {
        let wgsl = "override BLOCK: u32 = 64u;\n@compute @workgroup_size(BLOCK) fn main() {}";
        assert_eq!(workgroup_size(wgsl, "main"), None);
        assert_eq!(workgroup_size("not wgsl at all", "main"), None);
    }
}
