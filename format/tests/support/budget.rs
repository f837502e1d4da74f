//! A bounded step's budget, as the inspector's slice gives a job one.

/// `units` units of work, then no more: the `more` a job's `step` asks before each unit.
pub fn budget(units: usize) -> impl FnMut() -> bool {
    let mut left = units;
    move || {
        let more = left > 0;
        left = left.saturating_sub(1);
        more
    }
}
