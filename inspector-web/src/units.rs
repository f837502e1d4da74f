//! How numbers read on the page: durations with their unit, exact nanoseconds, bytes.

/// A duration in the unit that keeps three or four significant digits: `532 ns`,
/// `41.23 µs`, `16.67 ms`, `1.204 s`. Never rounds a nonzero value to zero.
#[must_use]
pub fn duration(ns: u64) -> String {
    match time_unit(ns as f64) {
        (1.0, _) => format!("{ns} ns"),
        (scale, unit) => format!("{} {unit}", significant(ns as f64 / scale)),
    }
}

/// The unit a time of `ns` nanoseconds reads in, and its nanoseconds: ns below a
/// microsecond, then µs, ms, and s from a second up. Every time the page prints picks its
/// unit here, so a duration, a setting and an axis agree.
#[must_use]
pub fn time_unit(ns: f64) -> (f64, &'static str) {
    if ns < 1e3 {
        (1.0, "ns")
    } else if ns < 1e6 {
        (1e3, "µs")
    } else if ns < 1e9 {
        (1e6, "ms")
    } else {
        (1e9, "s")
    }
}

/// A duration that is a setting, not a measurement (a threshold, a minimum effect): in the
/// same units as [`duration`], with exactly the digits it has ("1 µs", "1.5 µs", "20 µs"),
/// since trailing zeros would claim a precision nobody measured.
#[must_use]
pub fn exact_duration(ns: u64) -> String {
    match time_unit(ns as f64) {
        (1.0, _) => format!("{ns} ns"),
        // `f64`'s shortest round-trip form: 1234 ns / 1e3 prints "1.234", 1000 ns "1".
        (scale, unit) => format!("{} {unit}", ns as f64 / scale),
    }
}

/// A signed duration, with `+` for an increase (a regression when B is later).
#[must_use]
pub fn signed_duration(ns: i64) -> String {
    let sign = if ns > 0 {
        "+"
    } else if ns < 0 {
        "−"
    } else {
        ""
    };
    format!("{sign}{}", duration(ns.unsigned_abs()))
}

/// Every nanosecond, grouped by thousands with thin spaces: `41 234 567 ns`.
#[must_use]
pub fn exact_ns(ns: u64) -> String {
    format!("{} ns", grouped(ns))
}

/// An offset in ns with its sign: `+1 200 ns`, `−300 ns`.
#[must_use]
pub fn signed_ns(ns: f64) -> String {
    if ns < 0.0 { format!("−{}", exact_ns((-ns) as u64)) } else { format!("+{}", exact_ns(ns as u64)) }
}

/// A count and its noun, the count grouped as [`grouped`] writes it: `1 frame`,
/// `17 814 frames`. Every count the page words goes through here, so none reads
/// `17814 frames` beside another's `17 814`.
#[must_use]
pub fn counted(count: u64, noun: &str) -> String {
    format!("{} {}", grouped(count), sgpt_format::wording::noun_for(count, noun))
}

/// `1234567` as `1 234 567` (thin spaces), for counts and exact values.
#[must_use]
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(digit);
    }
    out
}

/// Bytes in binary units: `512 B`, `1.5 KiB`, `24.0 MiB`, `1.25 GiB`.
#[must_use]
pub fn bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", significant(value), UNITS[unit])
}

/// A share as a percentage with one decimal: `12.3 %`; `<0.1 %` for tiny nonzero shares.
#[must_use]
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "–".to_owned();
    }
    let share = part as f64 * 100.0 / whole as f64;
    if part > 0 && share < 0.05 { "<0.1 %".to_owned() } else { format!("{share:.1} %") }
}

/// Three significant digits at least, four below 10 000: `41.23`, `1.204`, `987.6`.
fn significant(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.1}")
    } else if value >= 10.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_their_unit() {
        assert_eq!(duration(0), "0 ns");
        assert_eq!(duration(532), "532 ns");
        assert_eq!(duration(41_234), "41.23 µs");
        assert_eq!(duration(16_666_667), "16.67 ms");
        assert_eq!(duration(1_204_000_000), "1.204 s");
        assert_eq!(signed_duration(-1_500), "−1.500 µs");
        assert_eq!(signed_duration(2_000_000), "+2.000 ms");
    }

    #[test]
    fn settings_show_only_the_digits_they_have() {
        assert_eq!(exact_duration(800), "800 ns");
        assert_eq!(exact_duration(1_000), "1 µs");
        assert_eq!(exact_duration(1_500), "1.5 µs");
        assert_eq!(exact_duration(1_234), "1.234 µs");
        assert_eq!(exact_duration(20_000), "20 µs");
        assert_eq!(exact_duration(500_000), "500 µs");
        assert_eq!(exact_duration(2_000_000), "2 ms");
        assert_eq!(exact_duration(3_000_000_000), "3 s");
    }

    #[test]
    fn exact_values_group_thousands() {
        assert_eq!(exact_ns(41_234_567), "41\u{2009}234\u{2009}567 ns");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1\u{2009}000");
        assert_eq!(counted(1, "frame"), "1 frame");
        assert_eq!(counted(17_814, "frame"), "17\u{2009}814 frames");
    }

    #[test]
    fn bytes_and_shares_read_naturally() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1536), "1.500 KiB");
        assert_eq!(bytes(24 << 20), "24.00 MiB");
        assert_eq!(percent(1, 3), "33.3 %");
        assert_eq!(percent(1, 10_000), "<0.1 %");
        assert_eq!(percent(0, 0), "–");
    }
}
