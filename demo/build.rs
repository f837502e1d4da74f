//! Records the source revision for META: `SGPT_GIT_REVISION` if set, else `git`'s.

fn main() {
    println!("cargo:rerun-if-env-changed=SGPT_GIT_REVISION");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/refs/heads");
    let revision = std::env::var("SGPT_GIT_REVISION").ok().or_else(|| {
        let output = std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).output().ok()?;
        output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    });
    if let Some(revision) = revision {
        println!("cargo:rustc-env=SGPT_GIT_REVISION={revision}");
    }
}
