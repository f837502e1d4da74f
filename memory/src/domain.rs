//! Allocation domains: small numeric ids a ledger hands out from a bounded registry.

/// How many domains one ledger can name, [`Domain::UNKNOWN`] included. Bounded so the
/// counters are a fixed array the hooks index without a lock.
pub const MAX_DOMAINS: usize = 64;

/// Longest domain name accepted; longer ones are rejected rather than truncated.
pub const MAX_DOMAIN_NAME: usize = 64;

/// An allocation domain of a [`Ledger`](crate::Ledger): who allocated a block. Stable for
/// the process lifetime once registered.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Domain(u16);

impl Domain {
    /// Where unknown attribution (no scope, a full registry, an unregistered id) falls.
    pub const UNKNOWN: Self = Self(0);

    /// The numeric id, as it appears in records.
    #[must_use]
    pub const fn index(self) -> u16 {
        self.0
    }

    /// A domain from its numeric id, for decoding records. A ledger charges ids it never
    /// registered to [`Domain::UNKNOWN`].
    #[must_use]
    pub const fn from_raw(index: u16) -> Self {
        Self(index)
    }
}

/// A registered domain and its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DomainDef {
    pub domain: Domain,
    pub name: &'static str,
}

/// Why [`Ledger::register_domain`](crate::Ledger::register_domain) refused a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    #[error("the domain registry is full ({MAX_DOMAINS} domains)")]
    Full,
    #[error("domain name `{0}` is already registered as {1:?}")]
    Duplicate(&'static str, Domain),
    #[error("a domain name must be 1..={MAX_DOMAIN_NAME} bytes")]
    InvalidName,
}
