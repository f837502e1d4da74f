#![doc = include_str!("../README.md")]
//!
//! ## Where `unsafe` lives
//!
//! In two files only: `sync.rs`, the spin lock and the atomic clock slot everything else
//! builds on, and `hooks.rs`, the allocator hooks ([`DomainAlloc`], [`TrackingAllocator`])
//! that hand out and take back raw blocks. The workspace denies `unsafe_code`, each
//! `unsafe` item in those two files carries its own `#[expect(unsafe_code, reason = …)]`,
//! and every other module is declared `#[forbid(unsafe_code)]`, which nothing inside it
//! can lift.

// The modules' imports (`use crate::…`), lowest first; no module imports one that imports
// it back, and none imports one listed below it:
//   sync     -> (nothing)
//   domain   -> (nothing)
//   counters -> (nothing)
//   provider -> (nothing)
//   site     -> sync
//   scope    -> domain, site
//   table    -> domain, site
//   capture  -> counters, domain, site, table
//   ledger   -> capture, counters, domain, scope, site, sync
//   hooks    -> domain, ledger, scope, site
#[forbid(unsafe_code)]
mod capture;
#[forbid(unsafe_code)]
mod counters;
#[forbid(unsafe_code)]
mod domain;
// One of the two files with `unsafe` code (see the crate docs).
mod hooks;
#[forbid(unsafe_code)]
mod ledger;
#[forbid(unsafe_code)]
mod provider;
#[forbid(unsafe_code)]
mod scope;
#[forbid(unsafe_code)]
mod site;
// One of the two files with `unsafe` code (see the crate docs).
mod sync;
#[forbid(unsafe_code)]
mod table;

pub use capture::{
    BeginError, CaptureConfig, CaptureHealth, CaptureId, CaptureMode, Checkpoint, CheckpointDiff, CheckpointError,
    CheckpointId, EndError, Event, EventKind, Expectation, ExportError, Loss, LossReason, MAX_CHECKPOINT_NAME,
    MemoryCapture, RecursionLoss, ReleaseError, Survivor,
};
pub use counters::DomainStats;
pub use domain::{Domain, DomainDef, MAX_DOMAIN_NAME, MAX_DOMAINS, RegisterError};
pub use hooks::{DomainAlloc, TrackingAllocator};
pub use ledger::Ledger;
pub use provider::{MetricKind, ProviderSample, Reading, wasm_linear_memory};
pub use scope::DomainScope;
pub use site::{
    MAX_SITES, Site, SiteCell, SiteDef, register_site, site_definition, site_definitions, site_registration_failures,
};
pub use table::{LifetimeId, LiveBlock};
