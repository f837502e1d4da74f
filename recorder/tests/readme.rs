//! The README's integration example is the crate docs' example, which runs as a doctest:
//! the text a newcomer copies is the text that is compiled and run.

use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The first ```rust block after `heading` in markdown.
fn readme_example(markdown: &str, heading: &str) -> String {
    let section = &markdown[markdown.find(heading).expect("the README has the integration section")..];
    let body = &section[section.find("```rust\n").expect("a rust block in the section") + "```rust\n".len()..];
    body[..body.find("```").expect("the block closes")].trim_end().to_owned()
}

/// The crate docs' first example, without the hidden (`# `) set-up lines.
fn crate_doc_example(lib: &str) -> String {
    let docs: Vec<&str> = lib
        .lines()
        .take_while(|line| line.starts_with("//!"))
        .map(|line| line.strip_prefix("//! ").unwrap_or(line.trim_start_matches("//!")))
        .collect();
    let open = docs.iter().position(|line| *line == "```").expect("the crate docs have an example");
    let close = open + 1 + docs[open + 1..].iter().position(|line| *line == "```").expect("the example closes");
    let shown: Vec<&str> =
        docs[open + 1..close].iter().copied().filter(|line| !(line.starts_with("# ") || *line == "#")).collect();
    shown.join("\n").trim_end().to_owned()
}

#[test]
fn the_readme_integration_example_is_the_crate_doc_example_verbatim() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = readme_example(&read(&root.join("../README.md")), "## Integrating the recorder");
    let docs = crate_doc_example(&read(&root.join("src/lib.rs")));
    assert!(docs.contains("FrameScope::begin"), "the example shows the frame scope:\n{docs}");
    assert_eq!(readme, docs, "README.md's integration example differs from recorder/src/lib.rs's");
}
