//! What a capture becomes for other tools.

pub mod chrome;
