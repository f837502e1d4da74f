//! The shareable recording front: a [`Recorder`] handle whose methods take `&self`, for
//! code that cannot hold `&mut ProfileSession` (render-graph nodes run with `&World`,
//! encoders recorded on worker threads, renderers that own their pass).
//!
//! The session's own brackets and profiled passes record through this front too: every GPU
//! pass of a frame is a [`ScopeRecord`], whose query slot is claimed from one atomic word,
//! so no two scopes get the same slot and no lock is taken to claim. A tree of scopes (an
//! outermost scope and those nested in it) keeps its records (label, attribution, workload)
//! to itself, in creation order, and hands them over under one short mutex when its
//! outermost scope ends; the session's passes, which hold `&mut ProfileSession`, keep
//! theirs in the session until their encoder is resolved. A resolve takes the mutex once. At
//! `end_frame` the session merges the records, encoder batch by encoder batch, in the order
//! the batches were resolved, each batch in creation order: wgpu does not tell a library
//! when command buffers are submitted, so *resolve order* is the recorder's submission order.

use std::sync::Arc;

use sgpt_format::GpuPassKind;

use crate::encoder_key::{EncoderKey, encoder_key};

mod records;
mod scope;
mod shared;

pub(crate) use records::{
    AttachmentInfo, Few, GraphRef, LocalRanges, PipelineRef, RecordHead, RecordWorkload, Records, ScopeRecord,
    attachments_of,
};
/// What a timestamp, a debug group or a marker region is written on, for the profiled passes too.
pub(crate) use scope::sealed::Sealed as RecordTarget;
pub use scope::{EncoderScope, PassTarget, PassToken, Scope, ScopeTarget};
pub(crate) use scope::{begin_in as claim_span_in, can_time};
pub(crate) use shared::{FrontSetup, FrontShared, FrontTaken, IdRun, LateCommands, SlotRun};

/// A command encoder's identity, for scopes on a pass the caller began on it: a pass
/// does not tell which encoder it records into, and its timestamps must be resolved on
/// that encoder. Take it before beginning the pass (the pass borrows the encoder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EncoderId(pub(crate) EncoderKey);

impl EncoderId {
    /// The identity of `encoder`.
    #[must_use]
    pub fn of(encoder: &wgpu::CommandEncoder) -> Self {
        Self(encoder_key(encoder))
    }
}

/// A shareable handle to a [`crate::ProfileSession`]'s recording, from
/// [`crate::ProfileSession::recorder`]: `Clone`, natively `Send + Sync`, every method
/// `&self`. Frames still begin and end on the session; between them any number of
/// clones, on any threads, open scopes on their own encoders and passes.
///
/// Call [`Recorder::resolve_queries`] (or the session's, which also resolves these) on
/// each encoder after its last scope ends and before `finish()`. The session merges each
/// encoder's scopes at `end_frame` in the order their encoders were resolved, which is
/// the submission order as far as the recorder can know it: resolve encoders in the order
/// you submit them if the GPU pass order of the capture should follow submission.
///
/// With no frame open (before `start`, between frames, after stop) scopes record
/// nothing and write no timestamps; [`Recorder::default`] is a handle to no session, so a
/// program run without one keeps the same code path.
///
/// `Send + Sync` natively only: on wasm32 wgpu's handles (held here) are not `Send`, and
/// the browser gives wgpu one thread anyway.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub(crate) shared: Arc<FrontShared>,
}

impl Recorder {
    /// Whether a frame is open: scopes opened now are recorded.
    #[must_use]
    pub fn is_recording(&self) -> bool {
        self.shared.open_generation().is_some()
    }

    /// Opens a scope on `encoder`: timestamps written on the encoder at begin and at the
    /// end (where the device has `TIMESTAMP_QUERY_INSIDE_ENCODERS`), a debug group, and a
    /// GPU pass of kind `encoder` in the capture.
    #[must_use = "the scope ends when it is dropped"]
    pub fn scope<'a>(&'a self, name: &str, encoder: &'a mut wgpu::CommandEncoder) -> EncoderScope<'a> {
        let key = encoder_key(encoder);
        Scope::open(&self.shared, name, scope::Target::Borrowed(encoder), key, None, || None)
    }

    /// Opens a scope on `encoder` that is graph pass `graph_pass`, by name (the same name
    /// gets the same index as [`crate::GraphPassScope::named`] gives it): it and every
    /// scope and pass opened inside it are attributed to that graph pass.
    #[must_use = "the scope ends when it is dropped"]
    pub fn graph_pass<'a>(&'a self, graph_pass: &str, encoder: &'a mut wgpu::CommandEncoder) -> EncoderScope<'a> {
        let key = encoder_key(encoder);
        let graph = || Some(GraphRef::Named(Arc::from(graph_pass)));
        Scope::open(&self.shared, graph_pass, scope::Target::Borrowed(encoder), key, None, graph)
    }

    /// Opens a scope on a pass the caller holds (`&mut wgpu::ComputePass<'_>` or
    /// `&mut wgpu::RenderPass<'_>`, `forget_lifetime()` ones included), begun on the
    /// encoder `encoder` names: a region timed inside the pass where the device has
    /// `TIMESTAMP_QUERY_INSIDE_PASSES`, a GPU pass of kind `marker` in the capture.
    #[must_use = "the scope ends when it is dropped"]
    pub fn pass_scope<'a, P: PassTarget>(&'a self, name: &str, encoder: EncoderId, pass: &'a mut P) -> Scope<'a, P> {
        Scope::open(&self.shared, name, scope::Target::Borrowed(pass), encoder.0, None, || None)
    }

    /// [`Self::pass_scope`] attributed to graph pass `graph_pass`, by name.
    #[must_use = "the scope ends when it is dropped"]
    pub fn graph_pass_scope<'a, P: PassTarget>(
        &'a self,
        graph_pass: &str,
        name: &str,
        encoder: EncoderId,
        pass: &'a mut P,
    ) -> Scope<'a, P> {
        let graph = || Some(GraphRef::Named(Arc::from(graph_pass)));
        Scope::open(&self.shared, name, scope::Target::Borrowed(pass), encoder.0, None, graph)
    }

    /// The timestamp writes of one compute pass the caller begins itself on `encoder`, and
    /// the token that records it (its workload calls, its scopes). `None` writes: the
    /// pass is not timed (no frame open, no timestamps, or the frame's slots are full).
    pub fn compute_pass_timestamp_writes<'a>(
        &'a self,
        label: &str,
        encoder: &wgpu::CommandEncoder,
    ) -> (Option<wgpu::ComputePassTimestampWrites<'a>>, PassToken) {
        let token = PassToken::new(&self.shared, GpuPassKind::Compute, label, encoder_key(encoder), None, None, || {
            self.shared.next_id()
        });
        (token.compute_writes(&self.shared), token)
    }

    /// The timestamp writes of one render pass the caller begins itself on `encoder`
    /// (see [`Self::compute_pass_timestamp_writes`]).
    pub fn render_pass_timestamp_writes<'a>(
        &'a self,
        label: &str,
        encoder: &wgpu::CommandEncoder,
    ) -> (Option<wgpu::RenderPassTimestampWrites<'a>>, PassToken) {
        let token = PassToken::new(&self.shared, GpuPassKind::Render, label, encoder_key(encoder), None, None, || {
            self.shared.next_id()
        });
        (token.render_writes(&self.shared), token)
    }

    /// Resolves the queries of every scope and pass token of this handle (and its clones)
    /// on `encoder` not resolved yet. Call it after the encoder's last scope ended and
    /// before `finish()`; calling it again, or on an encoder without scopes, is safe. The
    /// session's own passes on `encoder` are resolved by
    /// [`crate::ProfileSession::resolve_queries`], which resolves this handle's too. A span
    /// never resolved on its own encoder is dropped and counted, never filled in.
    pub fn resolve_queries(&self, encoder: &mut wgpu::CommandEncoder) {
        self.shared.resolve(encoder);
    }
}
