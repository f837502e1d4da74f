//! The container's primitives: the header, record framing, wire encodings, the symbol
//! table a record carries, the directory, and the streaming writer and resynchronising
//! reader built on them. Nothing here knows what a record means.

pub(crate) mod bits;
pub(crate) mod check;
pub(crate) mod directory;
pub(crate) mod error;
pub(crate) mod header;
pub(crate) mod piece;
pub(crate) mod reader;
pub(crate) mod record;
pub(crate) mod sink;
pub(crate) mod symbols;
pub(crate) mod wire;
pub(crate) mod writer;
