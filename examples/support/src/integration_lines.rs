//! Counts the lines a program spends on the recorder, from the markers on them.
//!
//! A line that exists only for the recorder ends with `// [sgpt +]`; a line that the same
//! program without the recorder would write otherwise ends with `// [sgpt ~]` (one line
//! added, one removed). A marker alone on its line marks the line above it: rustfmt moves a
//! comment that followed an opening brace there. Code lines are counted, not comments. The
//! count is what a diff against the plain program would show.

/// Lines added and removed against the same program without the recorder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntegrationLines {
    pub added: usize,
    pub removed: usize,
}

impl std::fmt::Display for IntegrationLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "+{}/−{}", self.added, self.removed)
    }
}

/// Counts the marked lines of `sources`.
#[must_use]
pub fn integration_lines(sources: &[&str]) -> IntegrationLines {
    // Ends of lines only: a doc comment that names the markers mid-line is not one.
    let lines = || sources.iter().flat_map(|source| source.lines()).map(str::trim_end);
    let only = lines().filter(|line| line.ends_with("// [sgpt +]")).count();
    let changed = lines().filter(|line| line.ends_with("// [sgpt ~]")).count();
    IntegrationLines { added: only + changed, removed: changed }
}

/// The root README, whose Layout table states each example's count.
const README: &str = include_str!("../../../README.md");

/// Asserts that the README's Layout row for `examples/<example>/` states the count that
/// the markers in `sources` add up to. The shared device set-up, whose one marked line
/// every example spends, is counted here for each.
///
/// # Panics
/// When the row is missing or states another count.
pub fn assert_readme_states_integration_lines(example: &str, sources: &[&str]) {
    let mut all = sources.to_vec();
    all.push(include_str!("device.rs"));
    let lines = integration_lines(&all);
    let prefix = format!("| `examples/{example}/`");
    let row = README.lines().find(|line| line.starts_with(&prefix)).expect("the Layout table's row");
    assert!(row.contains(&format!("{lines} lines")), "the row should say {lines} lines: {row}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_counts_once_each_way_and_an_added_one_once() {
        let source = "a(); // [sgpt +]\nb(); // [sgpt ~]\nc();\nif d() {\n    // [sgpt +]\n}\n";
        assert_eq!(integration_lines(&[source, "e(); // [sgpt ~]"]), IntegrationLines { added: 4, removed: 2 });
    }
}
