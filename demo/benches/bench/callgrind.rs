//! Reads a callgrind output file: the instructions collected, and the share of them spent
//! in the C allocator's entry points (`malloc`, `free`, `realloc`, …) called from outside
//! the allocator.
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
pub(super) struct Collected {
    /// Every instruction collected.
    pub(super) total: u64,
    /// Instructions inside allocator calls made from outside the allocator.
    pub(super) allocator: u64,
    /// Those calls.
    pub(super) allocator_calls: u64,
}

impl Collected {
    pub(super) fn outside_allocator(self) -> u64 {
        self.total - self.allocator
    }
}

/// Parses callgrind's output format (one event, `Ir`): `summary:` is the total; each
/// `calls=` line is followed by the cost line of that call, inclusive of its callees, and
/// `fn=`/`cfn=` name the caller and callee (`(id) name` the first time, `(id)` after).
pub(super) fn parse(text: &str) -> Result<Collected, String> {
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
