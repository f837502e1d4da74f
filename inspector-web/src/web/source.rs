//! Where a capture's bytes come from: a dropped or picked `File`, or a URL (`?file=`,
//! including the `blob:` URLs the demo hands over, whose request `index.html` may have
//! begun already: [`take_early_fetch`]). Bytes are copied into wasm memory a
//! chunk at a time, into one buffer sized up front, so a file never exists twice in
//! full (once in JS, once in wasm) and the progress bar moves. Byte streams are read
//! through one reused JS buffer ([`read_byob`]); otherwise each JS chunk is released as
//! soon as it is copied ([`release`]). A read of data already buffered settles at once and
//! the loop would go on in the same task, so copying is one sliced job ([`JobKind::Read`]):
//! at most 1 MiB a piece, and a yield once a slice is spent or holds its cap of bytes.
//!
//! What bounds the read, measured on the 95 MB capture (two cores, the bench's server): the
//! download itself while the page starts. Its reads are large (about 600 KiB each) and the
//! page's own work a read well under a millisecond; taking the response as a `Blob` (drained
//! by the browser, then copied in 16 MiB slices) ended the read no sooner, with no progress
//! to show meanwhile, and a cap of 64 MiB a slice changed nothing either.

use sgpt_web_glue::describe;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, Response};

use super::error::Error;
use super::slice::SoloJob;
use crate::slicing::JobKind;

/// The largest capture the page reads: wasm32 has 4 GiB, and the page needs room beside it.
pub const MAX_FILE_BYTES: u64 = 1536 << 20;
const CHUNK: f64 = 16.0 * 1024.0 * 1024.0;
/// The one JS buffer a byte stream is read through; Chromium fills at most 64 KiB of a
/// file and a few hundred KiB of a download per read, so more would sit unused. Also the
/// largest piece copied at once, whatever the size of the chunk it comes from.
const SCRATCH_BYTES: u32 = 1 << 20;

pub enum Input {
    File(web_sys::File),
    Url(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("the server answered HTTP {status}{}; check the link, or open the file with the picker", status_text_suffix(.status_text))]
    Http { status: u16, status_text: String },
    #[error("the request failed ({reason}); {hint}")]
    Network { reason: String, hint: &'static str },
    #[error("the file could not be read ({0}); try opening it again")]
    File(String),
    #[error(
        "only http:, https: and blob: URLs are opened, and {0:?} is not one; give the capture's web address, or drop the file here"
    )]
    Scheme(String),
    #[error("the file is {}, more than the {} this page opens; use the `sgpt` command line for it", crate::units::bytes(*.0), crate::units::bytes(MAX_FILE_BYTES))]
    TooLarge(u64),
    /// Under the limit, but the page's memory cannot hold it beside what is open (a
    /// candidate's capture, when this is its baseline): wasm32 has 4 GiB in all.
    #[error("there is no room for the file's {} beside what this page holds already {}", crate::units::bytes(*.0), crate::baseline_room::NO_ROOM_ADVICE)]
    NoRoom(u64),
    #[error(transparent)]
    Js(#[from] Error),
}

fn status_text_suffix(text: &str) -> String {
    // HTTP/2 has no reason phrase; don't leave a dangling space.
    if text.is_empty() { String::new() } else { format!(" {text}") }
}

/// Whether `url` (resolved against the page) uses a scheme `?file=` may fetch.
pub fn allowed_url(url: &str, base: &str) -> Result<String, ReadError> {
    let parsed = web_sys::Url::new_with_base(url, base).map_err(|_| ReadError::Scheme(url.to_owned()))?;
    match parsed.protocol().as_str() {
        "http:" | "https:" | "blob:" => Ok(parsed.href()),
        _ => Err(ReadError::Scheme(url.chars().take(80).collect())),
    }
}

impl Input {
    /// How messages name this input: the file's name, or the URL as given.
    pub fn name(&self) -> String {
        match self {
            Input::File(file) => file.name(),
            Input::Url(url) => url.clone(),
        }
    }

    /// The whole file, for load `load`; `progress` gets (bytes read, bytes expected if known).
    /// A file over `room` bytes, what the page can still hold (see `baseline_room`), is
    /// refused before it is read where its size is known, and as soon as it passes `room`
    /// where it is not.
    pub async fn read(&self, load: u64, progress: &dyn Fn(u64, Option<u64>), room: u64) -> Result<Vec<u8>, ReadError> {
        let mut job = SoloJob::start(load, JobKind::Read);
        let bytes = match self {
            Input::File(file) => read_file(file, progress, room, &mut job).await,
            Input::Url(url) => fetch(url, progress, room, &mut job).await,
        }?;
        job.done();
        Ok(bytes)
    }
}

/// The error for a file of `len` bytes: too large for the page, or for the room left in it.
fn too_large(len: u64, room: u64) -> Option<ReadError> {
    if len > MAX_FILE_BYTES {
        Some(ReadError::TooLarge(len))
    } else if len > room {
        Some(ReadError::NoRoom(len))
    } else {
        None
    }
}

async fn read_file(
    file: &web_sys::File,
    progress: &dyn Fn(u64, Option<u64>),
    room: u64,
    job: &mut SoloJob,
) -> Result<Vec<u8>, ReadError> {
    let size = file.size();
    if let Some(error) = too_large(size as u64, room) {
        return Err(error);
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(size as usize).map_err(|_| ReadError::NoRoom(size as u64))?;
    let failed = |error: &JsValue| ReadError::File(describe(error));
    let file = gloo_file::Blob::from(file.clone());
    let whole: &web_sys::Blob = file.as_ref();
    if let Ok(reader) = web_sys::ReadableStreamByobReader::new(&whole.stream()) {
        read_byob(&reader, &mut bytes, &|done| progress(done, Some(size as u64)), &failed, room, job).await?;
        return Ok(bytes);
    }
    // Without byte streams: slices, each released once copied.
    let mut at = 0.0;
    while at < size {
        let end = (at + CHUNK).min(size);
        let slice = file.slice(at as u64, end as u64);
        let read =
            JsFuture::from(AsRef::<web_sys::Blob>::as_ref(&slice).array_buffer()).await.map_err(|e| failed(&e))?;
        let chunk = js_sys::Uint8Array::new(&read);
        append_sliced(&mut bytes, &chunk, job).await?;
        release(&chunk);
        at = end;
        progress(at as u64, Some(size as u64));
    }
    Ok(bytes)
}

/// Copies `chunk` onto `bytes` a piece of at most [`SCRATCH_BYTES`] at a time, each piece
/// admitted by `job`'s slice (a default reader's chunks are the browser's size).
async fn append_sliced(bytes: &mut Vec<u8>, chunk: &js_sys::Uint8Array, job: &mut SoloJob) -> Result<(), Error> {
    let len = chunk.length();
    let mut at = 0;
    while at < len {
        while !job.admit(u64::from(SCRATCH_BYTES)) {
            job.next_slice().await?;
        }
        let end = at.saturating_add(SCRATCH_BYTES).min(len);
        let piece = chunk.subarray(at, end);
        let start = bytes.len();
        bytes.resize(start + piece.length() as usize, 0);
        piece.copy_to(&mut bytes[start..]);
        job.count(u64::from(end - at));
        at = end;
    }
    Ok(())
}

/// Frees a chunk's memory now that wasm holds a copy, where the chunk is a fresh buffer
/// (a default stream reader, a slice read whole). Left to the garbage collector such
/// chunks pile up, since V8 collects external memory only after tens of MB, and the
/// tab's peak grows by most of the file. Where `transfer` is missing the collector
/// still frees them, later.
fn release(chunk: &js_sys::Uint8Array) {
    let _ = chunk.buffer().transfer_with_length(0);
}

/// Reads `reader` to its end into `bytes` through one reused scratch buffer, so reading
/// allocates nothing per chunk on the JS side (a byte stream moves the buffer into each
/// result and back). `read` gets the total so far.
async fn read_byob(
    reader: &web_sys::ReadableStreamByobReader,
    bytes: &mut Vec<u8>,
    read: &dyn Fn(u64),
    failed: &dyn Fn(&JsValue) -> ReadError,
    room: u64,
    job: &mut SoloJob,
) -> Result<(), ReadError> {
    let mut scratch = js_sys::Uint8Array::new_with_length(SCRATCH_BYTES);
    loop {
        let result = JsFuture::from(reader.read_with_array_buffer_view(&scratch)).await.map_err(|e| failed(&e))?;
        if js_sys::Reflect::get(&result, &"done".into()).map_err(Error::from)?.is_truthy() {
            return Ok(());
        }
        let chunk: js_sys::Uint8Array =
            js_sys::Reflect::get(&result, &"value".into()).map_err(Error::from)?.dyn_into().map_err(Error::from)?;
        let total = bytes.len() as u64 + u64::from(chunk.length());
        if let Some(error) = too_large(total, room) {
            let _ = reader.cancel();
            return Err(error);
        }
        append_sliced(bytes, &chunk, job).await?;
        read(total);
        scratch = js_sys::Uint8Array::new(&chunk.buffer());
    }
}

async fn fetch(
    url: &str,
    progress: &dyn Fn(u64, Option<u64>),
    room: u64,
    job: &mut SoloJob,
) -> Result<Vec<u8>, ReadError> {
    let network = |error: &JsValue| ReadError::Network {
        reason: describe(error),
        hint: if url.starts_with("blob:") {
            "a blob: URL opens only in the browser session that made it, until it is revoked; record or export it again"
        } else {
            "check the URL, and that its server allows this origin (CORS)"
        },
    };
    let window = web_sys::window().ok_or(Error::NoGlobal("window"))?;
    let url = allowed_url(url, &window.location().href().map_err(Error::from)?)?;
    let request = take_early_fetch(&window, &url).unwrap_or_else(|| window.fetch_with_str(&url));
    let response = JsFuture::from(request).await.map_err(|error| network(&error))?;
    let response: Response = response.dyn_into().map_err(Error::from)?;
    if !response.ok() {
        return Err(ReadError::Http { status: response.status(), status_text: response.status_text() });
    }
    let expected = response.headers().get("content-length").ok().flatten().and_then(|len| len.parse::<u64>().ok());
    if let Some(error) = expected.and_then(|len| too_large(len, room)) {
        return Err(error);
    }
    let mut bytes = Vec::new();
    if let Some(len) = expected {
        bytes.try_reserve_exact(len as usize).map_err(|_| ReadError::NoRoom(len))?;
    }
    let Some(body) = response.body() else { return Ok(bytes) };
    if let Ok(reader) = web_sys::ReadableStreamByobReader::new(&body) {
        read_byob(&reader, &mut bytes, &|done| progress(done, expected), &network, room, job).await?;
        return Ok(bytes);
    }
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(|error| network(&error))?;
        let done = js_sys::Reflect::get(&chunk, &"done".into()).map_err(Error::from)?.is_truthy();
        if done {
            break;
        }
        let value: js_sys::Uint8Array =
            js_sys::Reflect::get(&chunk, &"value".into()).map_err(Error::from)?.dyn_into().map_err(Error::from)?;
        if let Some(error) = too_large(bytes.len() as u64 + u64::from(value.length()), room) {
            let _ = reader.cancel();
            return Err(error);
        }
        append_sliced(&mut bytes, &value, job).await?;
        release(&value);
        progress(bytes.len() as u64, expected);
    }
    Ok(bytes)
}

/// The request `index.html` began for `url` as the page was parsed (its `?file=`), if it
/// did and nothing took it yet: taken once, so a later open of the same URL fetches anew.
fn take_early_fetch(window: &web_sys::Window, url: &str) -> Option<js_sys::Promise> {
    let key = JsValue::from_str("__sgptEarlyFetch");
    let early = js_sys::Reflect::get(window, &key).ok().filter(JsValue::is_object)?;
    let _ = js_sys::Reflect::delete_property(window.unchecked_ref::<js_sys::Object>(), &key);
    let began_for = js_sys::Reflect::get(&early, &JsValue::from_str("url")).ok()?.as_string()?;
    let response = js_sys::Reflect::get(&early, &JsValue::from_str("response")).ok()?;
    (began_for == url).then(|| response.dyn_into().ok()).flatten()
}
