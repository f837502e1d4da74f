//! What the analysis commands (`stats`, `diff`, `workload`, `memory`, `export`) say of a
//! capture that opened with defects: a writer that never stopped, a file cut short, bytes
//! skipped to resynchronise, records this reader does not know. The figures then cover
//! what could be read, and a cut capture must not pass for a whole one, so the defects are
//! printed beside the figures (and under `capture_defects` in `--json`). `validate` and
//! `info` list the same defects with the frames lost; the frames a command had to skip
//! while decoding are its own `defects`.

use std::io::{self, Write};

use sgpt_format::Defect;

use crate::input::printable;

/// The first line of the note, for a capture (`whose` names it, e.g. "the capture" or
/// "B") that opened with `count` defects, or `None` when it opened whole.
fn heading(whose: &str, count: usize) -> Option<String> {
    (count > 0).then(|| {
        let defects = sgpt_format::wording::counted(count as u64, "defect");
        format!(
            "recovered: opening {whose} found {defects}; only what could be read is used \
             (`sgpt validate` says what was lost)"
        )
    })
}

/// Defects a text note lists at most: a badly damaged file can have thousands, and the
/// figures must stay in view (`--json` and `validate` list every one).
const LISTED: usize = 10;

/// Writes the note on `defects` found opening `whose`, a defect a line (the first
/// [`LISTED`], then how many more); nothing when there are none.
pub fn write(out: &mut impl Write, whose: &str, defects: &[Defect]) -> io::Result<()> {
    let Some(heading) = heading(whose, defects.len()) else { return Ok(()) };
    writeln!(out, "{heading}:")?;
    for defect in defects.iter().take(LISTED) {
        writeln!(out, "  {}", printable(&defect.to_string()))?;
    }
    if defects.len() > LISTED {
        writeln!(out, "  … and {} more", defects.len() - LISTED)?;
    }
    Ok(())
}

/// The note as one Markdown line for `file`, its defects' kinds named (each once, in
/// alphabetical order); `None` when it opened whole.
pub fn markdown_line(file: &str, defects: &[Defect]) -> Option<String> {
    // Each kind once, however many and however interleaved.
    let mut kinds: Vec<&str> = defects.iter().map(|defect| defect.kind.name()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    heading(&format!("`{file}`"), defects.len()).map(|heading| format!("{heading}: {}.", kinds.join(", ")))
}

#[cfg(test)]
mod tests {
    use sgpt_format::DefectKind;

    use super::*;

    #[test]
    fn a_whole_capture_gets_no_note_and_a_recovered_one_names_each_defect() {
        let mut out = Vec::new();
        write(&mut out, "the capture", &[]).unwrap();
        assert!(out.is_empty());
        assert_eq!(markdown_line("a.sgpt", &[]), None);

        let defects = [
            Defect::new(DefectKind::NotClosed, 8, "the writer never reached stop"),
            Defect::new(DefectKind::Truncated, 0x40, "the file ends inside a FRAM record"),
        ];
        write(&mut out, "B", &defects).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("recovered: opening B found 2 defects;"), "{text}");
        assert!(text.contains("\n  not_closed: the writer never reached stop (at offset 0x8)\n"), "{text}");
        assert!(text.contains("\n  truncated: the file ends inside a FRAM record (at offset 0x40)\n"), "{text}");

        let many: Vec<Defect> = (0..13).map(|at| Defect::new(DefectKind::Corrupt, at, "bytes skipped")).collect();
        let mut out = Vec::new();
        write(&mut out, "A", &many).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 1 + LISTED + 1, "{text}");
        assert!(text.starts_with("recovered: opening A found 13 defects;"), "{text}");
        assert!(text.ends_with("\n  corrupt: bytes skipped (at offset 0x9)\n  … and 3 more\n"), "{text}");

        let interleaved: Vec<Defect> = [DefectKind::Truncated, DefectKind::Corrupt, DefectKind::Truncated]
            .into_iter()
            .map(|kind| Defect::new(kind, 0, "x"))
            .collect();
        assert!(markdown_line("a.sgpt", &interleaved).unwrap().ends_with(": corrupt, truncated."));

        let line = markdown_line("b|c.sgpt", &defects[1..]).unwrap();
        assert!(line.starts_with("recovered: opening `b|c.sgpt` found 1 defect;"), "{line}");
        assert!(line.ends_with(": truncated."), "{line}");
    }
}
