//! A small static file server over `dist/`, for `cargo xtask serve` and the browser tests.
//!
//! One thread per connection and `Connection: close` on every response: a browser opens a
//! handful of connections at once, which is all a local inspector needs. GET and HEAD only.

use std::fs::File;
use std::io::{self, BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use anyhow::{Context as _, Result};

pub const DEFAULT_ADDR: &str = "127.0.0.1:8080";
/// Request lines and headers together; a browser sends well under this.
const MAX_HEAD_BYTES: u64 = 16 * 1024;
const READ_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug)]
pub struct StaticServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl StaticServer {
    /// Serves `root` at `addr`; `127.0.0.1:0` picks a free port (see [`Self::url`]).
    pub fn bind(root: &Path, addr: &str) -> Result<Self> {
        let root = root.canonicalize().with_context(|| format!("nothing to serve at {}", root.display()))?;
        let listener = TcpListener::bind(addr).with_context(|| format!("binding {addr}"))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let accept = thread::Builder::new().name("xtask-serve".to_owned()).spawn({
            let stop = Arc::clone(&stop);
            move || accept_loop(&listener, &Arc::new(root), &stop)
        })?;
        Ok(Self { addr, stop, accept: Some(accept) })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Blocks until the process is interrupted.
    pub fn run_forever(mut self) -> Result<()> {
        if let Some(accept) = self.accept.take() {
            accept.join().map_err(|_| anyhow::anyhow!("the server thread panicked"))?;
        }
        Ok(())
    }
}

impl Drop for StaticServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(accept) = self.accept.take() {
            // `accept` blocks: one connection wakes it to see the flag.
            let _ = TcpStream::connect(self.addr);
            let _ = accept.join();
        }
    }
}

fn accept_loop(listener: &TcpListener, root: &Arc<PathBuf>, stop: &AtomicBool) {
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        match stream {
            Ok(stream) => {
                let root = Arc::clone(root);
                // A failed response means the client went away; there is nobody to tell.
                thread::spawn(move || {
                    let _ = handle(stream, &root);
                });
            }
            Err(error) => eprintln!("serve: accept failed: {error}"),
        }
    }
}

fn handle(stream: TcpStream, root: &Path) -> io::Result<()> {
    stream.set_read_timeout(Some(READ_TIMEOUT))?;
    let mut reader = BufReader::new(stream.try_clone()?.take(MAX_HEAD_BYTES));
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; nothing in them changes the response.
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 || header == "\r\n" || header == "\n" {
            break;
        }
    }
    let response = respond(root, &request_line);
    let mut out = io::BufWriter::new(stream);
    write!(
        out,
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\
         X-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        response.status, response.content_type, response.length
    )?;
    if let Some(location) = &response.location {
        write!(out, "Location: {location}\r\n")?;
    }
    out.write_all(b"\r\n")?;
    match response.body {
        Body::File(mut file) if !response.head_only => {
            io::copy(&mut file, &mut out)?;
        }
        Body::Text(text) if !response.head_only => out.write_all(text.as_bytes())?,
        Body::File(_) | Body::Text(_) => {}
    }
    out.flush()
}

#[derive(Debug)]
enum Body {
    File(File),
    Text(String),
}

#[derive(Debug)]
struct Response {
    status: &'static str,
    content_type: &'static str,
    length: u64,
    location: Option<String>,
    head_only: bool,
    body: Body,
}

impl Response {
    fn text(status: &'static str, text: &str) -> Self {
        let text = format!("{status}: {text}\n");
        Self {
            status,
            content_type: "text/plain; charset=utf-8",
            length: text.len() as u64,
            location: None,
            head_only: false,
            body: Body::Text(text),
        }
    }
}

fn respond(root: &Path, request_line: &str) -> Response {
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Response::text("400 Bad Request", "malformed request line");
    };
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => return Response::text("405 Method Not Allowed", "only GET and HEAD"),
    };
    let mut response = respond_get(root, target);
    response.head_only = head_only;
    response
}

fn respond_get(root: &Path, target: &str) -> Response {
    let (path_part, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target.split_once('#').map_or(target, |(p, _)| p), None),
    };
    let Some(decoded) = percent_decode(path_part) else {
        return Response::text("400 Bad Request", "malformed percent-encoding");
    };
    if !decoded.starts_with('/') {
        return Response::text("400 Bad Request", "the path must start with /");
    }
    let mut path = root.to_path_buf();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            // Never leave the served directory, however it is spelled.
            ".." => return Response::text("403 Forbidden", "paths with .. are refused"),
            s if s.contains(['\\', '\0']) => {
                return Response::text("403 Forbidden", "refused path");
            }
            s => path.push(s),
        }
    }
    if path.is_dir() {
        if !decoded.ends_with('/') {
            // Relative links in the directory's index.html resolve against the slash.
            let location = match query {
                Some(q) => format!("{path_part}/?{q}"),
                None => format!("{path_part}/"),
            };
            let mut response = Response::text("301 Moved Permanently", &location);
            response.location = Some(location);
            return response;
        }
        path.push("index.html");
    }
    // A symlink inside dist/ must not lead out of it either.
    let inside = path.canonicalize().is_ok_and(|real| real.starts_with(root));
    let file = if inside { File::open(&path).ok() } else { None };
    let Some((file, length)) = file.and_then(|f| {
        let meta = f.metadata().ok()?;
        meta.is_file().then_some((f, meta.len()))
    }) else {
        return Response::text("404 Not Found", &decoded);
    };
    Response {
        status: "200 OK",
        content_type: content_type(&path),
        length,
        location: None,
        head_only: false,
        body: Body::File(file),
    }
}

fn content_type(path: &Path) -> &'static str {
    let extension = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "application/javascript",
        // Required for WebAssembly.instantiateStreaming.
        Some("wasm") => "application/wasm",
        Some("css") => "text/css; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt" | "md") => "text/plain; charset=utf-8",
        // A gzip capture stays gzip on the wire: the inspector inflates it itself.
        Some("gz") => "application/gzip",
        _ => "application/octet-stream",
    }
}

/// Decodes `%XX` escapes; `None` for a malformed escape or a result that is not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A fresh directory under the system temp dir, removed on drop.
    struct TempSite(PathBuf);

    impl TempSite {
        fn new() -> Self {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "xtask-serve-test-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::SeqCst)
            ));
            fs::create_dir_all(dir.join("site/gpu-smoke")).unwrap();
            fs::write(dir.join("site/index.html"), "<!doctype html>root").unwrap();
            fs::write(dir.join("site/gpu-smoke/index.html"), "smoke").unwrap();
            fs::write(dir.join("site/app_bg.wasm"), b"\0asm\x01\0\0\0").unwrap();
            fs::write(dir.join("site/app.js"), "export {}").unwrap();
            fs::write(dir.join("site/demo.sgpt"), [0x53, 0x47, 0x50, 0x54]).unwrap();
            fs::write(dir.join("secret.txt"), "outside").unwrap();
            Self(dir)
        }

        fn site(&self) -> PathBuf {
            self.0.join("site")
        }
    }

    impl Drop for TempSite {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// How long the test client waits on a read or a write before failing: a server that
    /// stalls fails the test instead of hanging it. A hang guard, not a speed check.
    const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);

    /// A connection to `server` whose reads and writes fail after [`CLIENT_TIMEOUT`].
    fn connect(server: &StaticServer) -> TcpStream {
        let stream = TcpStream::connect_timeout(&server.addr, CLIENT_TIMEOUT).unwrap();
        stream.set_read_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        stream.set_write_timeout(Some(CLIENT_TIMEOUT)).unwrap();
        stream
    }

    /// Sends a raw request line (so `..` reaches the server unnormalised) and returns
    /// (status line, headers, body).
    fn get(server: &StaticServer, method: &str, target: &str) -> (String, String, Vec<u8>) {
        let mut stream = connect(server);
        write!(stream, "{method} {target} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
        let head = String::from_utf8(raw[..split].to_vec()).unwrap();
        let (status, headers) = head.split_once("\r\n").unwrap_or((&head, ""));
        // Every header line, the last included, ends in CRLF.
        (status.to_owned(), format!("{headers}\r\n"), raw[split + 4..].to_vec())
    }

    #[test]
    fn serves_files_with_their_mime_types() {
        let site = TempSite::new();
        let server = StaticServer::bind(&site.site(), "127.0.0.1:0").unwrap();
        for (target, mime, body) in [
            ("/app_bg.wasm", "application/wasm", &b"\0asm\x01\0\0\0"[..]),
            ("/app.js", "application/javascript", b"export {}"),
            ("/demo.sgpt", "application/octet-stream", b"SGPT"),
            ("/index.html", "text/html; charset=utf-8", b"<!doctype html>root"),
        ] {
            let (status, headers, got) = get(&server, "GET", target);
            assert_eq!(status, "HTTP/1.1 200 OK", "{target}");
            assert!(headers.contains(&format!("Content-Type: {mime}\r\n")), "{target}: {headers}");
            assert!(headers.contains(&format!("Content-Length: {}", body.len())));
            assert_eq!(got, body, "{target}");
        }
    }

    #[test]
    fn directories_serve_their_index_and_queries_are_ignored() {
        let site = TempSite::new();
        let server = StaticServer::bind(&site.site(), "127.0.0.1:0").unwrap();
        let (status, _, body) = get(&server, "GET", "/?file=/captures/demo.sgpt");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(body, b"<!doctype html>root");
        let (status, _, body) = get(&server, "GET", "/gpu-smoke/");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert_eq!(body, b"smoke");
        let (status, headers, _) = get(&server, "GET", "/gpu-smoke?x=1");
        assert_eq!(status, "HTTP/1.1 301 Moved Permanently");
        assert!(headers.contains("Location: /gpu-smoke/?x=1\r\n"), "{headers}");
    }

    #[test]
    fn dot_dot_is_refused_however_it_is_spelled() {
        let site = TempSite::new();
        let server = StaticServer::bind(&site.site(), "127.0.0.1:0").unwrap();
        for target in ["/../secret.txt", "/gpu-smoke/../../secret.txt", "/%2e%2e/secret.txt"] {
            let (status, _, body) = get(&server, "GET", target);
            assert_eq!(status, "HTTP/1.1 403 Forbidden", "{target}");
            assert!(!String::from_utf8_lossy(&body).contains("outside"));
        }
    }

    #[test]
    fn missing_files_bad_escapes_and_other_methods_are_errors() {
        let site = TempSite::new();
        let server = StaticServer::bind(&site.site(), "127.0.0.1:0").unwrap();
        assert_eq!(get(&server, "GET", "/nope.js").0, "HTTP/1.1 404 Not Found");
        assert_eq!(get(&server, "GET", "/%zz").0, "HTTP/1.1 400 Bad Request");
        assert_eq!(get(&server, "POST", "/index.html").0, "HTTP/1.1 405 Method Not Allowed");
        let (status, headers, body) = get(&server, "HEAD", "/app.js");
        assert_eq!(status, "HTTP/1.1 200 OK");
        assert!(headers.contains("Content-Length: 9\r\n"));
        assert!(body.is_empty());
    }

    #[test]
    fn serves_many_connections_at_once() {
        let site = TempSite::new();
        let server = StaticServer::bind(&site.site(), "127.0.0.1:0").unwrap();
        // Open connections that send nothing yet: a single-threaded server would stall here.
        let idle: Vec<TcpStream> = (0..8).map(|_| connect(&server)).collect();
        let (status, _, _) = get(&server, "GET", "/app.js");
        assert_eq!(status, "HTTP/1.1 200 OK");
        drop(idle);
    }
}
