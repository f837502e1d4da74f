//! Which command encoder a span was written on: its timestamps may only be read back once
//! resolved on that encoder. A leaf both recording fronts and the frame pipeline use.

use crate::workload::HandleHasher;

/// A command encoder's identity for the frame, from wgpu's own identity of the encoder.
pub(crate) type EncoderKey = u64;

/// The key of `encoder`: wgpu compares and hashes encoders by identity, one integer id
/// (which [`HandleHasher`]'s first fold maps one to one, so two encoders never share a
/// key). SipHash cost ~20 ns here, on every pass; the fold costs one multiply.
#[inline]
pub(crate) fn encoder_key(encoder: &wgpu::CommandEncoder) -> EncoderKey {
    use std::hash::{Hash, Hasher};
    let mut hasher = HandleHasher::default();
    encoder.hash(&mut hasher);
    hasher.finish()
}
