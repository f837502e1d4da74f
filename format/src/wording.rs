//! Counts in the words the tools print: "1 frame", "3 frames". Every analysis that writes
//! a reason, and every tool that prints one, counts the same way, never "frame(s)".

/// `count` and `noun`, the noun plural (with `s`) unless the count is one.
#[must_use]
pub fn counted(count: impl Into<u64>, noun: &str) -> String {
    let count = count.into();
    format!("{count} {}", noun_for(count, noun))
}

/// `noun` as it follows `count`: plural (with `s`) unless the count is one. For a count
/// written another way, such as grouped by thousands.
#[must_use]
pub fn noun_for(count: u64, noun: &str) -> String {
    if count == 1 { noun.to_owned() } else { format!("{noun}s") }
}

#[cfg(test)]
mod tests {
    use super::{counted, noun_for};

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(0_u64, "frame"), "0 frames");
        assert_eq!(counted(1_u32, "frame"), "1 frame");
        assert_eq!(counted(2_u8, "memory record"), "2 memory records");
        assert_eq!(counted(u64::MAX, "operation"), format!("{} operations", u64::MAX));
        assert_eq!(noun_for(1, "span"), "span");
        assert_eq!(noun_for(17_814, "frame"), "frames");
    }
}
