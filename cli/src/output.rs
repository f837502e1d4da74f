//! Standard output for the reports, buffered. Rust's stdout flushes at every newline, so
//! a report was a write a line: 3,300 for `sgpt stats --json` on 200 passes. Buffered it
//! is a handful. Each report flushes before it returns, so that a closed pipe or a full
//! disk is an error it reports, not one lost when the buffer is dropped.

use std::io::{self, BufWriter, StdoutLock};

/// Buffered standard output.
pub type Out = BufWriter<StdoutLock<'static>>;

/// Standard output, locked and buffered.
pub fn stdout() -> Out {
    BufWriter::with_capacity(64 << 10, io::stdout().lock())
}
