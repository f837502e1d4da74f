//! Capture strings are untrusted: they reach the DOM as text only.
//! This fails when an HTML-parsing DOM API appears anywhere in the inspector's source.

use std::path::Path;

const HTML_SINKS: [&str; 6] = [
    "set_inner_html",
    "set_outer_html",
    "insert_adjacent_html",
    "create_contextual_fragment",
    "set_html_unsafe",
    "document_write",
];

fn rust_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source folder is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

#[test]
fn no_html_parsing_dom_api_is_used() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.iter().any(|file| file.ends_with("web/panels.rs")), "scanned {files:?}");
    assert!(files.iter().any(|file| file.ends_with("web/dom.rs")), "scanned {files:?}");
    for file in &files {
        let text = std::fs::read_to_string(file).expect("source is UTF-8");
        for sink in HTML_SINKS {
            assert!(!text.contains(sink), "{} uses {sink}; use set_text_content", file.display());
        }
    }
}
