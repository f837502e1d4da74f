//! Reads a callgrind output file, for the benches that count instructions: the
//! instructions collected, and the share of them spent in the C allocator's entry points
//! (`malloc`, `free`, `realloc`, …) called from outside the allocator.
//!
//! The allocator's share is the one part of a probe that moves between identical runs:
//! glibc's `malloc_consolidate`, chunk unlinking and `realloc`'s copies depend on what
//! lavapipe's own threads freed meanwhile, and move a pass's count by ±150 instructions
//! between runs of the same binary. Everything outside it repeats to the instruction, and
//! the number of allocator calls repeats exactly.

/// The allocator's entry points: a call into one of these from elsewhere is the
/// allocator's, with all it calls (its own internals and the copies `realloc` makes).
const ALLOCATOR: [&str; 7] = ["malloc", "free", "realloc", "calloc", "posix_memalign", "aligned_alloc", "memalign"];

/// What one probe run executed, as callgrind collected it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Collected {
    /// Every instruction collected.
    pub total: u64,
    /// Instructions inside allocator calls made from outside the allocator.
    pub allocator: u64,
    /// Those calls.
    pub allocator_calls: u64,
}

impl Collected {
    pub fn outside_allocator(self) -> u64 {
        self.total - self.allocator
    }
}

/// Parses callgrind's output format (one event, `Ir`): `summary:` is the total; each
/// `calls=` line is followed by the cost line of that call, inclusive of its callees, and
/// `fn=`/`cfn=` name the caller and callee (`(id) name` the first time, `(id)` after).
pub fn parse(text: &str) -> Result<Collected, String> {
    let mut names: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    let mut collected = Collected::default();
    let mut caller_is_allocator = false;
    let mut callee_is_allocator = false;
    let mut call: Option<u64> = None;
    for line in text.lines() {
        if let Some(calls) = call.take() {
            let cost = line.split_whitespace().last().and_then(|cost| cost.parse::<u64>().ok());
            let cost = cost.ok_or_else(|| format!("no cost after a calls= line: {line:?}"))?;
            if callee_is_allocator && !caller_is_allocator {
                collected.allocator += cost;
                collected.allocator_calls += calls;
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("fn=") {
            caller_is_allocator = is_allocator(resolve(&mut names, value)?);
        } else if let Some(value) = line.strip_prefix("cfn=") {
            callee_is_allocator = is_allocator(resolve(&mut names, value)?);
        } else if let Some(value) = line.strip_prefix("calls=") {
            let count = value.split_whitespace().next().and_then(|count| count.parse().ok());
            call = Some(count.ok_or_else(|| format!("unreadable calls= line: {line:?}"))?);
        } else if let Some(value) = line.strip_prefix("summary:") {
            collected.total = value.trim().parse().map_err(|_| format!("unreadable summary: {line:?}"))?;
        }
    }
    if collected.total == 0 {
        return Err("no summary line".to_owned());
    }
    Ok(collected)
}

/// The name `(id) name` defines, or `(id)` refers to.
fn resolve<'t>(names: &mut std::collections::HashMap<&'t str, &'t str>, value: &'t str) -> Result<&'t str, String> {
    let value = value.strip_prefix('(').ok_or_else(|| format!("uncompressed name {value:?}"))?;
    match value.split_once(") ") {
        Some((id, name)) => {
            names.insert(id, name);
            Ok(name)
        }
        None => {
            let id = value.trim_end_matches(')');
            names.get(id).copied().ok_or_else(|| format!("name ({id}) used before it was defined"))
        }
    }
}

fn is_allocator(name: &str) -> bool {
    ALLOCATOR.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::{Collected, parse};

    /// `main` calls `malloc` twice (which calls `_int_malloc`) and `work` once; `free`,
    /// called once from `main` and once from inside `realloc`, counts only once.
    const PROFILE: &str = "\
version: 1
positions: line
events: Ir
summary: 1000

fl=(1) main.rs
fn=(1) main
3 100
cfn=(2) malloc
calls=2 10
4 120
cfn=(3) work
calls=1 20
5 500
cfn=(4) free
calls=1 30
6 40

fl=(2) malloc.c
fn=(2)
10 80
cfn=(5) _int_malloc
calls=2 20
11 40
fn=(6) realloc
12 60
cfn=(4)
calls=1 30
13 40

fn=(4)
30 80
";

    #[test]
    fn allocator_calls_from_outside_it_are_counted_with_what_they_call_once() {
        let collected = parse(PROFILE).expect("parses");
        assert_eq!(collected, Collected { total: 1000, allocator: 160, allocator_calls: 3 });
        assert_eq!(collected.outside_allocator(), 840);
    }

    #[test]
    fn a_profile_without_a_summary_or_with_an_unknown_name_is_refused() {
        assert!(parse("events: Ir\nfn=(1) main\n1 10\n").is_err());
        let unknown = "summary: 10\nfn=(1) main\ncfn=(9)\ncalls=1 2\n3 4\n";
        assert!(parse(unknown).unwrap_err().contains("(9)"));
        let cut = "summary: 10\nfn=(1) main\ncfn=(2) malloc\ncalls=1 2\n";
        assert!(parse(cut).is_ok_and(|collected| collected.allocator == 0), "a calls= line at the end adds nothing");
    }
}
