//! Where entries land in DevTools: a track inside the `sgpt` track group, and the colours
//! of its palette.

/// The DevTools track group every entry of ours belongs to: how drain tells ours apart.
pub const GROUP: &str = "sgpt";

/// One of DevTools' palette colours for custom track entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Primary,
    PrimaryLight,
    PrimaryDark,
    Secondary,
    SecondaryLight,
    SecondaryDark,
    Tertiary,
    TertiaryLight,
    TertiaryDark,
    /// Over budget (see [`super::budget`]).
    Error,
}

impl Color {
    /// Every colour, in declaration order: `Color::ALL[color as usize] == color`.
    pub const ALL: [Self; 10] = [
        Self::Primary,
        Self::PrimaryLight,
        Self::PrimaryDark,
        Self::Secondary,
        Self::SecondaryLight,
        Self::SecondaryDark,
        Self::Tertiary,
        Self::TertiaryLight,
        Self::TertiaryDark,
        Self::Error,
    ];

    /// The name DevTools' `color` field takes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Primary => "primary",
            Self::PrimaryLight => "primary-light",
            Self::PrimaryDark => "primary-dark",
            Self::Secondary => "secondary",
            Self::SecondaryLight => "secondary-light",
            Self::SecondaryDark => "secondary-dark",
            Self::Tertiary => "tertiary",
            Self::TertiaryLight => "tertiary-light",
            Self::TertiaryDark => "tertiary-dark",
            Self::Error => "error",
        }
    }
}

/// A custom track in the [`GROUP`] track group, with the colour its entries take when no
/// budget colours them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Track {
    pub name: &'static str,
    pub color: Color,
}

/// The interval between animation frames, one entry per frame (judged against
/// [`super::budget::Budget::Frame`]). A profile's shares are of this track's total.
pub const FRAME: Track = Track { name: "Frame", color: Color::Secondary };
/// The application's own work per frame, one entry per frame (judged against
/// [`super::budget::Budget::Engine`]).
pub const ENGINE: Track = Track { name: "Engine", color: Color::Primary };
/// The phases that tile each engine entry (see [`super::PhaseClock`]).
pub const PHASES: Track = Track { name: "Engine phases", color: Color::PrimaryLight };
/// CPU time spent encoding each graph pass (the recorder's graph-pass brackets).
pub const GPU_ENCODE: Track = Track { name: "GPU encode", color: Color::Tertiary };
/// Start-up: adapter, pipelines, first frame.
pub const BOOT: Track = Track { name: "Boot", color: Color::SecondaryDark };

#[cfg(test)]
mod tests {
    use super::Color;

    #[test]
    fn every_colour_is_listed_at_its_own_index() {
        for (index, color) in Color::ALL.into_iter().enumerate() {
            assert_eq!(color as usize, index, "{color:?}");
        }
    }
}
