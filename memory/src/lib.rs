#![doc = include_str!("../README.md")]

mod capture;
mod counters;
mod domain;
mod hooks;
mod ledger;
mod provider;
mod scope;
mod site;
mod table;

pub use capture::{
    BeginError, CaptureConfig, CaptureHealth, CaptureId, CaptureMode, Checkpoint, CheckpointDiff, CheckpointError,
    CheckpointId, EndError, Event, EventKind, Expectation, ExportError, LifetimeId, LiveBlock, Loss, LossReason,
    MAX_CHECKPOINT_NAME, MemoryCapture, RecursionLoss, ReleaseError, Survivor,
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
