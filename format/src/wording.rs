//! Counts in the words the tools print: "1 frame", "3 frames". Every analysis that writes
//! a reason, and every tool that prints one, counts the same way, never "frame(s)".

/// `count` and `noun`, the noun plural (with `s`) unless the count is one.
#[must_use]
pub fn counted(count: impl Into<u64>, noun: &str) -> String {
    match count.into() {
        1 => format!("1 {noun}"),
        count => format!("{count} {noun}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(counted(0_u64, "frame"), "0 frames");
        assert_eq!(counted(1_u32, "frame"), "1 frame");
        assert_eq!(counted(2_u8, "memory record"), "2 memory records");
        assert_eq!(counted(u64::MAX, "operation"), format!("{} operations", u64::MAX));
    }
}
