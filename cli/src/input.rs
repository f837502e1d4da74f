//! Reading a capture file: the bytes (gunzipped when they are gzip), a progress bar for
//! large files, and error messages that name the file.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;

use anyhow::{Context, bail};
use indicatif::{ProgressBar, ProgressStyle};
use sgpt_format::{Capture, OpenError};

/// Files above this size, or captures above `LARGE_FRAMES`, get a progress bar.
const LARGE_BYTES: u64 = 64 << 20;
const LARGE_FRAMES: usize = 20_000;
/// A gzip stream may inflate to at most this many bytes: a compressed bomb must not
/// exhaust memory (lengths are bounded before allocation).
const MAX_INFLATED: u64 = 64 << 30;
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Files at least this large are read in pieces on every core: copying the bytes and
/// faulting in the pages that hold them is a tenth of `sgpt stats` on one.
const PARALLEL_READ_BYTES: usize = 16 << 20;
const PIECE_BYTES: usize = 8 << 20;

/// The file's first `len` bytes, read in pieces of `piece` bytes on the rayon pool; `None`
/// when the file turns out shorter than that, to be read again from the start.
#[cfg(unix)]
fn read_pieces(file: &File, len: usize, piece_bytes: usize, bar: &ProgressBar) -> io::Result<Option<Vec<u8>>> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    // Zeroed pages from the allocator are only touched by the piece that fills them.
    let mut bytes = vec![0u8; len];
    let whole = bytes.par_chunks_mut(piece_bytes).enumerate().try_fold(
        || true,
        |whole, (at, piece)| {
            let mut done = 0;
            while done < piece.len() {
                match file.read_at(&mut piece[done..], (at * piece_bytes + done) as u64) {
                    Ok(0) => return Ok(false),
                    Ok(n) => {
                        done += n;
                        bar.inc(n as u64);
                    }
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                    Err(error) => return Err(error),
                }
            }
            Ok(whole)
        },
    );
    let whole = whole.try_reduce(|| true, |a, b| Ok(a && b))?;
    Ok(whole.then_some(bytes))
}

#[cfg(not(unix))]
fn read_pieces(_: &File, _: usize, _: usize, _: &ProgressBar) -> io::Result<Option<Vec<u8>>> {
    Ok(None)
}

/// Reads `path` whole. Gzip is recognised by its magic, not its extension, so a renamed
/// or extension-less file opens the same way.
pub fn read(path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = bar(len, len > LARGE_BYTES, "reading");
    let cannot_read = || format!("{}: cannot read", path.display());
    let mut bytes = match usize::try_from(len) {
        Ok(len) if len >= PARALLEL_READ_BYTES => {
            read_pieces(&file, len, PIECE_BYTES, &bar).with_context(cannot_read)?
        }
        _ => None,
    }
    .unwrap_or_else(|| {
        bar.set_position(0);
        Vec::new()
    });
    // What is left: the whole file when it was small or shrank, what it grew by otherwise.
    file.seek(SeekFrom::Start(bytes.len() as u64)).with_context(cannot_read)?;
    bytes.reserve(usize::try_from(len).unwrap_or(0).saturating_sub(bytes.len()));
    loop {
        // Straight into `bytes`, 8 MiB at a time for the bar: no copy through a buffer.
        let n = match (&mut file).take(8 << 20).read_to_end(&mut bytes) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error).with_context(cannot_read),
        };
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    let bar = spinner(len > LARGE_BYTES, "decompressing");
    let mut inflated = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes.as_slice()).take(MAX_INFLATED + 1);
    decoder.read_to_end(&mut inflated).with_context(|| format!("{}: the gzip data is damaged", path.display()))?;
    bar.finish_and_clear();
    if inflated.len() as u64 > MAX_INFLATED {
        bail!("{}: the gzip data inflates to more than {} GiB", path.display(), MAX_INFLATED >> 30);
    }
    Ok(inflated)
}

/// Opens `bytes` read from `path`; the error names the file and why it is not readable.
pub fn open<'a>(path: &Path, bytes: &'a [u8]) -> anyhow::Result<Capture<'a>> {
    Capture::open(bytes).map_err(|error| unreadable(path, &error))
}

pub fn unreadable(path: &Path, error: &OpenError) -> anyhow::Error {
    anyhow::anyhow!("{}: {error}", path.display())
}

/// Whether a capture is large enough for frame loops to show progress.
pub fn is_large(capture: &Capture<'_>, bytes: usize) -> bool {
    bytes as u64 > LARGE_BYTES || capture.frames().len() > LARGE_FRAMES
}

/// A progress bar on stderr, drawn only when `large` and stderr is a terminal, so
/// redirected output and CI logs stay clean.
pub fn bar(len: u64, large: bool, message: &'static str) -> ProgressBar {
    if !large || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len).with_message(message);
    if let Ok(style) = ProgressStyle::with_template("{msg:>12} [{bar:40}] {percent:>3}% {eta}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs `add` on every frame index of `range` in order, with a progress bar named
/// `message` on large captures.
pub fn each_frame(range: Range<usize>, large: bool, message: &'static str, mut add: impl FnMut(usize)) {
    let bar = bar(range.len() as u64, large, message);
    for (done, index) in range.enumerate() {
        add(index);
        // Per-frame work is microseconds; touching the bar every frame would cost more.
        if done % 1024 == 0 {
            bar.set_position(done as u64);
        }
    }
    bar.finish_and_clear();
}

/// A spinner for work without a known length (checking every frame).
pub fn spinner(large: bool, message: &'static str) -> ProgressBar {
    if !large || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner().with_message(message);
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// Text from a capture, safe to print on a terminal: control characters (an escape
/// sequence in a hostile label) are shown escaped, never interpreted.
pub fn printable(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_owned();
    }
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_file_read_in_pieces_is_its_bytes_and_a_shorter_one_is_read_again() {
        let path = std::env::temp_dir().join(format!("sgpt-read-pieces-{}", std::process::id()));
        let bytes: Vec<u8> = (0..10_007u32).map(|i| (i * 7_919 % 251) as u8).collect();
        std::fs::write(&path, &bytes).expect("the temp dir is writable");
        let file = File::open(&path).expect("opens");
        let hidden = ProgressBar::hidden();
        for piece in [1, 64, 4_096, 10_007, 20_000] {
            assert_eq!(read_pieces(&file, bytes.len(), piece, &hidden).expect("reads"), Some(bytes.clone()), "{piece}");
        }
        assert_eq!(read_pieces(&file, bytes.len() + 1, 64, &hidden).expect("reads"), None);
        // Bigger than a piece read in parallel: read whole, the same bytes.
        let big: Vec<u8> = (0..PARALLEL_READ_BYTES as u32 + 77).map(|i| (i % 253) as u8).collect();
        std::fs::write(&path, &big).expect("the temp dir is writable");
        assert!(read(&path).expect("reads") == big);
        std::fs::remove_file(&path).expect("cleans up");
    }
}
