//! Reading a capture file: the bytes (gunzipped when they are gzip), a progress bar for
//! large files, and error messages that name the file.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
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

/// A capture's bytes: the file mapped where it can be, else read (or inflated) into memory.
#[derive(Debug)]
pub enum Bytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }
}

/// Opens `path` and maps it when it is a regular file: no copy of the file into memory and
/// no fresh pages to clear for it (reading the hour's 185 MB cost a tenth of `sgpt diff`).
/// Anything else, a pipe or a file the system will not map, is read whole.
/// Gzip is recognised by its magic, not its extension, so a renamed or extension-less file
/// opens the same way.
pub fn read(path: &Path) -> anyhow::Result<Bytes> {
    // `-` is standard input, as for most tools: `curl … | sgpt stats -`.
    if path == Path::new(STDIN) {
        return read_from(path, io::stdin().lock(), 0).map(Bytes::Read);
    }
    let file = File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    if let Some(map) = file.metadata().ok().filter(std::fs::Metadata::is_file).and_then(|_| map(&file)) {
        if !map.starts_with(&GZIP_MAGIC) {
            return Ok(Bytes::Mapped(map));
        }
        return inflate(path, &map, map.len() as u64 > LARGE_BYTES).map(Bytes::Read);
    }
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_from(path, file, len).map(Bytes::Read)
}

/// The path that names standard input.
const STDIN: &str = "-";

/// Whether `path` names a regular file (through links): one that can be read again.
/// Standard input cannot, even where a file called `-` sits beside it.
pub fn is_regular_file(path: &Path) -> bool {
    path != Path::new(STDIN) && std::fs::metadata(path).is_ok_and(|metadata| metadata.is_file())
}

/// `file` mapped read-only with its pages mapped in up front (one call instead of a fault
/// every few pages); `None` where it cannot be, and the caller reads it instead.
#[allow(unsafe_code)]
fn map(file: &File) -> Option<memmap2::Mmap> {
    // SAFETY: the map is only read, through `&[u8]`, for as long as this process analyses
    // the file. Another process that rewrites the file meanwhile changes what is read, as
    // it would between two reads; one that truncates it ends this process with SIGBUS. The
    // captures are written once by the recorder and read here afterwards.
    unsafe { memmap2::MmapOptions::new().populate().map(file) }.ok()
}

/// Reads `file` whole into memory; `len` is its size where known (0 otherwise), for the
/// progress bar and the first allocation.
fn read_from(path: &Path, mut file: impl Read, len: u64) -> anyhow::Result<Vec<u8>> {
    let bar = bar(len, len > LARGE_BYTES, "reading");
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    loop {
        // Straight into `bytes`, 8 MiB at a time for the bar: no copy through a buffer.
        let n = match (&mut file).take(8 << 20).read_to_end(&mut bytes) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error).with_context(|| format!("{}: cannot read", path.display())),
        };
        bar.inc(n as u64);
    }
    bar.finish_and_clear();
    if !bytes.starts_with(&GZIP_MAGIC) {
        return Ok(bytes);
    }
    inflate(path, &bytes, len > LARGE_BYTES)
}

fn inflate(path: &Path, bytes: &[u8], large: bool) -> anyhow::Result<Vec<u8>> {
    let bar = spinner(large, "decompressing");
    let mut inflated = Vec::new();
    let mut decoder = flate2::read::MultiGzDecoder::new(bytes).take(MAX_INFLATED + 1);
    decoder.read_to_end(&mut inflated).with_context(|| format!("{}: the gzip data is damaged", path.display()))?;
    bar.finish_and_clear();
    if inflated.len() as u64 > MAX_INFLATED {
        bail!("{}: the gzip data inflates to more than {} GiB", path.display(), MAX_INFLATED >> 30);
    }
    Ok(inflated)
}

/// Opens `bytes` read from `path`, its frame entries checked on every core; the error
/// names the file and why it is not readable.
pub fn open<'a>(path: &Path, bytes: &'a [u8]) -> anyhow::Result<Capture<'a>> {
    Capture::open_parallel(bytes).map_err(|error| unreadable(path, &error))
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
