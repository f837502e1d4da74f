//! The view in the URL hash, so a link reproduces what you see:
//! `#tab=timeline&frame=42&range=0-599&pass=3&zoom=1000-250000&cmp=0-99,100-199`.
//!
//! Frames are named by frame number (stable across readers), not index. Parsing is
//! lenient: an unknown key or a bad value is ignored, never an error, since a link may
//! come from a newer inspector or be hand-edited.

use std::fmt::Write as _;

/// The page's tabs, in display order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Tab {
    #[default]
    Timeline,
    Range,
    Stats,
    Structure,
    Resources,
    Memory,
    Compare,
    Notes,
}

impl Tab {
    /// In the order of the view tabs and their number keys (1 to 8).
    pub const ALL: [Tab; 8] =
        [Tab::Timeline, Tab::Range, Tab::Stats, Tab::Structure, Tab::Resources, Tab::Memory, Tab::Compare, Tab::Notes];

    /// The name in the hash and the panel's id suffix.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Tab::Timeline => "timeline",
            Tab::Range => "range",
            Tab::Stats => "stats",
            Tab::Structure => "structure",
            Tab::Resources => "resources",
            Tab::Memory => "memory",
            Tab::Compare => "compare",
            Tab::Notes => "notes",
        }
    }

    /// The tab's label on the page.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Tab::Timeline => "Timeline",
            Tab::Range => "Range flame",
            Tab::Stats => "Statistics",
            Tab::Structure => "Structure",
            Tab::Resources => "Resources",
            Tab::Memory => "Memory",
            Tab::Compare => "Compare",
            Tab::Notes => "Capture & notes",
        }
    }

    /// The view a hash key names. Links made before the details pane and the capture view
    /// existed still open: `pass` shows the timeline (the pass is in the details pane), and
    /// `summary` the capture view.
    #[must_use]
    pub fn from_key(key: &str) -> Option<Tab> {
        match key {
            "pass" => Some(Tab::Timeline),
            "summary" => Some(Tab::Notes),
            _ => Tab::ALL.into_iter().find(|tab| tab.key() == key),
        }
    }
}

/// An inclusive range of frame numbers.
pub type FrameSpan = (u64, u64);

/// Everything the hash holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewState {
    pub tab: Tab,
    /// The frame shown in the timeline, by frame number.
    pub frame: Option<u64>,
    /// The range the statistics cover, by frame number, inclusive.
    pub range: Option<FrameSpan>,
    /// The selected GPU pass: an index into the frame topology's `gpu_passes`.
    pub pass: Option<u32>,
    /// The selected graph pass (structure view).
    pub graph_pass: Option<u32>,
    /// The selected resource node (structure view).
    pub node: Option<u32>,
    /// The timeline's visible window, nanoseconds relative to the frame's first GPU timestamp.
    pub zoom: Option<(i64, i64)>,
    /// The two ranges compared.
    pub compare: Option<(FrameSpan, FrameSpan)>,
}

impl ViewState {
    /// Parses a hash, with or without its leading `#`.
    #[must_use]
    pub fn parse(hash: &str) -> Self {
        let mut state = ViewState::default();
        for pair in hash.trim_start_matches('#').split('&') {
            let Some((key, value)) = pair.split_once('=') else { continue };
            match key {
                "tab" => state.tab = Tab::from_key(value).unwrap_or_default(),
                "frame" => state.frame = value.parse().ok(),
                "range" => state.range = span(value),
                "pass" => state.pass = value.parse().ok(),
                "gp" => state.graph_pass = value.parse().ok(),
                "node" => state.node = value.parse().ok(),
                "zoom" => {
                    state.zoom = value.split_once('~').and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)));
                    state.zoom = state.zoom.filter(|(a, b)| a < b);
                }
                "cmp" => state.compare = value.split_once(',').and_then(|(a, b)| Some((span(a)?, span(b)?))),
                _ => {}
            }
        }
        state
    }

    /// The hash for this state, with its leading `#`.
    #[must_use]
    pub fn to_hash(&self) -> String {
        let mut out = format!("#tab={}", self.tab.key());
        if let Some(frame) = self.frame {
            let _ = write!(out, "&frame={frame}");
        }
        if let Some((first, last)) = self.range {
            let _ = write!(out, "&range={first}-{last}");
        }
        if let Some(pass) = self.pass {
            let _ = write!(out, "&pass={pass}");
        }
        if let Some(graph_pass) = self.graph_pass {
            let _ = write!(out, "&gp={graph_pass}");
        }
        if let Some(node) = self.node {
            let _ = write!(out, "&node={node}");
        }
        if let Some((start, end)) = self.zoom {
            // `~` separates, since either end may be negative.
            let _ = write!(out, "&zoom={start}~{end}");
        }
        if let Some(((a0, a1), (b0, b1))) = self.compare {
            let _ = write!(out, "&cmp={a0}-{a1},{b0}-{b1}");
        }
        out
    }
}

fn span(text: &str) -> Option<FrameSpan> {
    let (first, last) = text.split_once('-')?;
    let (first, last): (u64, u64) = (first.parse().ok()?, last.parse().ok()?);
    (first <= last).then_some((first, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_survives_a_round_trip() {
        let state = ViewState {
            tab: Tab::Compare,
            frame: Some(42),
            range: Some((0, 599)),
            pass: Some(3),
            graph_pass: Some(7),
            node: Some(2),
            zoom: Some((-1_500, 250_000)),
            compare: Some(((0, 99), (100, 199))),
        };
        let hash = state.to_hash();
        assert_eq!(hash, "#tab=compare&frame=42&range=0-599&pass=3&gp=7&node=2&zoom=-1500~250000&cmp=0-99,100-199");
        assert_eq!(ViewState::parse(&hash), state);
    }

    #[test]
    fn bad_or_unknown_parts_are_ignored_not_fatal() {
        let state = ViewState::parse("#tab=nope&frame=x&range=9-3&zoom=5~5&future=1&pass=2");
        assert_eq!(state, ViewState { pass: Some(2), ..ViewState::default() });
        assert_eq!(ViewState::parse(""), ViewState::default());
        assert_eq!(ViewState::parse("tab=stats").tab, Tab::Stats);
    }

    #[test]
    fn links_to_the_views_that_moved_still_open() {
        // The pass is in the details pane beside the timeline; the summary is the capture view.
        assert_eq!(ViewState::parse("tab=pass&pass=3"), ViewState { pass: Some(3), ..ViewState::default() });
        assert_eq!(ViewState::parse("tab=summary").tab, Tab::Notes);
        for tab in Tab::ALL {
            assert_eq!(Tab::from_key(tab.key()), Some(tab), "every view round-trips");
        }
    }
}
