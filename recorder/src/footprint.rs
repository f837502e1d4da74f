//! Declared footprints, computed at record time from `wgpu::TextureFormat` block info.
//! Declared, not allocated: a pooled allocator may serve a larger block.

use sgpt_format::{ResourceDesc, TextureDimension};

/// A texture the frame graph declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextureDesc {
    pub size: wgpu::Extent3d,
    pub mip_level_count: u32,
    pub sample_count: u32,
    pub dimension: wgpu::TextureDimension,
    pub format: wgpu::TextureFormat,
    pub usage: wgpu::TextureUsages,
}

impl TextureDesc {
    /// A single-sampled 2D texture with one mip level.
    #[must_use]
    pub fn d2(width: u32, height: u32, format: wgpu::TextureFormat, usage: wgpu::TextureUsages) -> Self {
        Self {
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage,
        }
    }

    #[must_use]
    pub fn with_mips(mut self, mip_level_count: u32) -> Self {
        self.mip_level_count = mip_level_count;
        self
    }

    /// Bytes the descriptor declares: blocks per mip level × bytes per block, summed over
    /// the mip chain, × sample count.
    #[must_use]
    pub fn declared_bytes(&self) -> u64 {
        let block_bytes = u64::from(block_bytes(self.format));
        let (block_w, block_h) = self.format.block_dimensions();
        let layers = match self.dimension {
            wgpu::TextureDimension::D3 => 1,
            _ => self.size.depth_or_array_layers,
        };
        let mut total = 0u64;
        for level in 0..self.mip_level_count.max(1) {
            let mip = self.size.mip_level_size(level, self.dimension);
            let depth = match self.dimension {
                wgpu::TextureDimension::D3 => mip.depth_or_array_layers,
                _ => layers,
            };
            let blocks = u64::from(mip.width.div_ceil(block_w)) * u64::from(mip.height.div_ceil(block_h));
            total += blocks * block_bytes * u64::from(depth);
        }
        total * u64::from(self.sample_count.max(1))
    }

    pub(crate) fn to_format(self) -> ResourceDesc {
        ResourceDesc::Texture {
            dimension: match self.dimension {
                wgpu::TextureDimension::D1 => TextureDimension::D1,
                wgpu::TextureDimension::D2 => TextureDimension::D2,
                wgpu::TextureDimension::D3 => TextureDimension::D3,
            },
            width: self.size.width,
            height: self.size.height,
            depth_or_array_layers: self.size.depth_or_array_layers,
            mip_level_count: self.mip_level_count,
            sample_count: self.sample_count,
            format: format_name(self.format),
            usage: self.usage.bits(),
        }
    }
}

/// A buffer the frame graph declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    pub size: u64,
    pub usage: wgpu::BufferUsages,
}

impl BufferDesc {
    pub(crate) fn to_format(self) -> ResourceDesc {
        ResourceDesc::Buffer { size: self.size, usage: self.usage.bits() }
    }
}

/// Bytes per block of every aspect together. wgpu gives no copy size for formats whose
/// depth layout is the driver's choice (`depth24plus`): those count as 4 bytes, the size
/// WebGPU's own texel-block table uses for memory estimates.
fn block_bytes(format: wgpu::TextureFormat) -> u32 {
    if let Some(bytes) = format.block_copy_size(None) {
        return bytes;
    }
    let aspect = |aspect| format.block_copy_size(Some(aspect));
    let depth = if format.has_depth_aspect() { aspect(wgpu::TextureAspect::DepthOnly).unwrap_or(4) } else { 0 };
    let stencil = if format.has_stencil_aspect() { aspect(wgpu::TextureAspect::StencilOnly).unwrap_or(1) } else { 0 };
    let planes = aspect(wgpu::TextureAspect::Plane0).unwrap_or(0) + aspect(wgpu::TextureAspect::Plane1).unwrap_or(0);
    (depth + stencil + planes).max(1)
}

/// The format as WebGPU spells it (`rgba16float`, `bgra8unorm-srgb`,
/// `depth24plus-stencil8`). Formats WebGPU lacks keep wgpu's name, lower-cased.
#[must_use]
pub fn format_name(format: wgpu::TextureFormat) -> String {
    use wgpu::TextureFormat as F;
    match format {
        F::Depth24PlusStencil8 => return "depth24plus-stencil8".to_owned(),
        F::Depth32FloatStencil8 => return "depth32float-stencil8".to_owned(),
        F::Rg11b10Ufloat => return "rg11b10ufloat".to_owned(),
        _ => {}
    }
    let debug = format!("{format:?}");
    let mut name = debug.to_ascii_lowercase();
    if let Some(stem) = name.strip_suffix("srgb") {
        name = format!("{stem}-srgb");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_footprint_sums_the_mip_chain_and_multiplies_samples() {
        let desc = TextureDesc::d2(256, 128, wgpu::TextureFormat::Rgba16Float, wgpu::TextureUsages::RENDER_ATTACHMENT);
        assert_eq!(desc.declared_bytes(), 256 * 128 * 8);
        // 256×128, 128×64, 64×32 at 4 bytes a texel.
        let mips =
            TextureDesc::d2(256, 128, wgpu::TextureFormat::R32Float, wgpu::TextureUsages::STORAGE_BINDING).with_mips(3);
        assert_eq!(mips.declared_bytes(), (256 * 128 + 128 * 64 + 64 * 32) * 4);
        let msaa = TextureDesc { sample_count: 4, ..desc };
        assert_eq!(msaa.declared_bytes(), 4 * 256 * 128 * 8);
    }

    #[test]
    fn compressed_formats_count_blocks_and_odd_mips_round_up() {
        // BC1: 4×4 blocks of 8 bytes. 10×10 → 3×3 blocks; its 5×5 mip → 2×2 blocks.
        let desc = TextureDesc::d2(10, 10, wgpu::TextureFormat::Bc1RgbaUnorm, wgpu::TextureUsages::TEXTURE_BINDING)
            .with_mips(2);
        assert_eq!(desc.declared_bytes(), (9 + 4) * 8);
    }

    #[test]
    fn depth_formats_without_a_copy_size_still_count() {
        let depth = TextureDesc::d2(16, 16, wgpu::TextureFormat::Depth24Plus, wgpu::TextureUsages::RENDER_ATTACHMENT);
        assert_eq!(depth.declared_bytes(), 16 * 16 * 4);
        let ds =
            TextureDesc::d2(16, 16, wgpu::TextureFormat::Depth24PlusStencil8, wgpu::TextureUsages::RENDER_ATTACHMENT);
        assert_eq!(ds.declared_bytes(), 16 * 16 * 5);
        let d32 = TextureDesc::d2(16, 16, wgpu::TextureFormat::Depth32Float, wgpu::TextureUsages::RENDER_ATTACHMENT);
        assert_eq!(d32.declared_bytes(), 16 * 16 * 4);
    }

    #[test]
    fn format_names_follow_webgpu() {
        assert_eq!(format_name(wgpu::TextureFormat::Rgba16Float), "rgba16float");
        assert_eq!(format_name(wgpu::TextureFormat::Bgra8UnormSrgb), "bgra8unorm-srgb");
        assert_eq!(format_name(wgpu::TextureFormat::Depth24PlusStencil8), "depth24plus-stencil8");
        assert_eq!(format_name(wgpu::TextureFormat::Depth32Float), "depth32float");
        assert_eq!(format_name(wgpu::TextureFormat::Rg11b10Ufloat), "rg11b10ufloat");
    }
}
