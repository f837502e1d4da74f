//! Output into a pipe its reader has closed (`sgpt … | head`) is not a failure: exit 0 and
//! say nothing, whether the output is text or JSON. The pipe's reader is closed before
//! `sgpt` starts, so its first write fails every time.

mod support;

use std::process::Command;

use support::fixture;

#[test]
fn a_closed_pipe_ends_every_output_quietly() {
    let file = fixture("level_timing.sgpt");
    for args in [
        vec!["stats", file.as_str()],
        vec!["stats", file.as_str(), "--json"],
        vec!["diff", file.as_str(), file.as_str(), "--json"],
        vec!["workload", file.as_str(), "--json"],
        vec!["export", "--chrome", "-", file.as_str()],
    ] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let output =
            Command::new(env!("CARGO_BIN_EXE_sgpt")).args(&args).stdout(writer).output().expect("the sgpt binary runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!((output.status.code(), stderr.as_ref()), (Some(0), ""), "sgpt {}", args.join(" "));
    }
}
