//! One file in the workspace names the browser's timing APIs: the browser sink.
//!
//! The browser's timing functions are globals, not imports, so no dependency graph sees
//! them; this grep holds the rule instead.
//!
//! Scanned: every `.rs`, `.js`, `.mjs` and `.html` file under the workspace root.
//! Skipped: build output and installed tools (`target/`, `dist/`, `node_modules/`),
//! `.git/`, the fuzz corpus and artifacts, and the root `tests/` folder: the Playwright
//! tests there drive the page from outside and must wrap and read these APIs to check
//! them. A file "names" them when it contains the console method's name ("time" +
//! "Stamp", camel-cased), or the lowercase global's name followed by `.`, `(`, `[`, `,`
//! or `)` (a member, a call, a binding's namespace), so the same word in prose
//! ("… regressions") does not count.

use std::path::{Path, PathBuf};

/// The one file allowed to name them.
const BROWSER_SINK: &str = "recorder/src/timing/browser.rs";

const SKIPPED_DIRS: &[&str] = &["target", "dist", "node_modules", ".git", "fuzz/corpus", "fuzz/artifacts", "tests"];
const EXTENSIONS: &[&str] = &["rs", "js", "mjs", "html"];

/// Built from pieces so this file does not name them itself.
fn needles() -> (String, String) {
    (["time", "Stamp"].concat(), ["perf", "ormance"].concat())
}

fn names_them(text: &str) -> bool {
    let (time_stamp, word) = needles();
    if text.contains(&time_stamp) {
        return true;
    }
    text.match_indices(&word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.is_some_and(|c| matches!(c, '.' | '(' | '[' | ',' | ')'))
    })
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(root).expect("under the root").to_string_lossy().replace('\\', "/");
        if path.is_dir() {
            if !SKIPPED_DIRS.contains(&relative.as_str()) && !relative.ends_with("/target") {
                walk(root, &path, out);
            }
        } else if path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e)) {
            out.push(PathBuf::from(relative));
        }
    }
}

#[test]
fn only_the_browser_sink_names_the_browser_timing_apis() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let mut files = Vec::new();
    walk(root, root, &mut files);
    assert!(files.len() > 50, "the walk found only {} files under {}", files.len(), root.display());
    let naming: Vec<String> = files
        .iter()
        .filter(|file| std::fs::read_to_string(root.join(file)).is_ok_and(|text| names_them(&text)))
        .map(|file| file.to_string_lossy().into_owned())
        .collect();
    assert!(naming.iter().any(|file| file == BROWSER_SINK), "the browser sink was not found: {naming:?}");
    let others: Vec<&String> = naming.iter().filter(|file| *file != BROWSER_SINK).collect();
    assert!(others.is_empty(), "only {BROWSER_SINK} may name the browser's timing APIs; also named in {others:?}");
}

#[test]
fn the_rule_tells_a_call_from_prose() {
    let (time_stamp, word) = needles();
    assert!(names_them(&format!("console.{time_stamp}(label)")));
    assert!(names_them(&format!("{word}.now()")));
    assert!(names_them(&format!("window.{word}()")));
    assert!(names_them(&format!("js_namespace = {word}, js_name = mark")));
    assert!(!names_them(&format!("gates {word} regressions in CI")));
    assert!(!names_them(&format!("web_sys::Per{}", &word[4..])));
}
