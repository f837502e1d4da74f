//! The three timing levels. `Off` is the default everywhere: the only way to pay is to ask
//! (a capability check cannot tell whether the track arguments land anywhere).

/// How much the timing port emits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TimingLevel {
    /// Nothing is emitted and nothing is allocated per span.
    #[default]
    Off,
    /// Entries reach an active DevTools trace only (the console's time stamp); nothing is retained.
    Trace,
    /// Entries are retained in the page's timeline (User Timing measures) and can be drained.
    Full,
}

impl TimingLevel {
    /// Every level, cheapest first.
    pub const ALL: [Self; 3] = [Self::Off, Self::Trace, Self::Full];

    /// The name used in `?timing=` and the console API.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Trace => "trace",
            Self::Full => "full",
        }
    }

    /// Parses `off`, `trace` or `full`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|level| level.name() == name)
    }

    pub(crate) fn to_u8(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_u8(value: u8) -> Self {
        match value {
            1 => Self::Trace,
            2 => Self::Full,
            _ => Self::Off,
        }
    }
}

impl std::fmt::Display for TimingLevel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::TimingLevel;

    #[test]
    fn names_round_trip_and_off_is_the_default() {
        for level in TimingLevel::ALL {
            assert_eq!(TimingLevel::from_name(level.name()), Some(level));
            assert_eq!(TimingLevel::from_u8(level.to_u8()), level);
        }
        assert_eq!(TimingLevel::from_name("on"), None);
        assert_eq!(TimingLevel::default(), TimingLevel::Off);
    }
}
