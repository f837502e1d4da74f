//! Tooling for this project's own tests, benches and fixtures, not part of the container's
//! contract: deterministic synthetic captures, the golden fixtures' generators, and the
//! reader's fuzz target as a library function.

pub mod fixtures;
pub mod fuzz;
pub mod roofline;
pub mod synth;
