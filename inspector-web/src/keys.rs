//! Every keyboard action the inspector offers, as data: the help overlay (`?`) lists
//! [`bindings`], and the page's keydown handler asks [`global_action`] what a key means
//! anywhere on the page. The keys of a focused widget (frame strip, timeline, view tabs,
//! table rows) are handled by that widget; they are listed here so the help matches them.

/// A view the number keys switch to, `1` to `8` in [`ViewKey::ALL`]'s order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ViewKey {
    Timeline,
    /// The range view: the flame graph over the selected frames.
    Range,
    Statistics,
    Structure,
    Resources,
    Memory,
    Compare,
    /// The capture's own facts, notes and defects.
    Capture,
}

impl ViewKey {
    /// In key order: `ALL[0]` is key `1`.
    pub const ALL: [ViewKey; 8] = [
        ViewKey::Timeline,
        ViewKey::Range,
        ViewKey::Statistics,
        ViewKey::Structure,
        ViewKey::Resources,
        ViewKey::Memory,
        ViewKey::Compare,
        ViewKey::Capture,
    ];

    /// The digit that shows this view.
    #[must_use]
    pub fn digit(self) -> char {
        let at = ViewKey::ALL.iter().position(|&view| view == self).unwrap_or(0);
        char::from(b'1' + at as u8)
    }

    /// The view a key value (`KeyboardEvent.key`) names, `"1"` to `"8"`.
    #[must_use]
    pub fn from_key(key: &str) -> Option<ViewKey> {
        let mut chars = key.chars();
        let (Some(digit), None) = (chars.next(), chars.next()) else { return None };
        let at = digit.to_digit(10)?.checked_sub(1)?;
        ViewKey::ALL.get(at as usize).copied()
    }

    /// The view's name in the URL hash, the same as `url_state::Tab::key` where that tab
    /// exists today (`notes` for [`ViewKey::Capture`]).
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            ViewKey::Timeline => "timeline",
            ViewKey::Range => "range",
            ViewKey::Statistics => "stats",
            ViewKey::Structure => "structure",
            ViewKey::Resources => "resources",
            ViewKey::Memory => "memory",
            ViewKey::Compare => "compare",
            ViewKey::Capture => "notes",
        }
    }

    /// The view's name in the help.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            ViewKey::Timeline => "Timeline",
            ViewKey::Range => "Range (flame graph)",
            ViewKey::Statistics => "Statistics",
            ViewKey::Structure => "Structure",
            ViewKey::Resources => "Resources",
            ViewKey::Memory => "Memory",
            ViewKey::Compare => "Compare",
            ViewKey::Capture => "Capture & notes",
        }
    }
}

/// What a key means anywhere on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalAction {
    /// Open the search (`/`, Ctrl+K, ⌘K).
    Search,
    /// Show the keyboard help (`?`).
    Help,
    /// Close the search, the help or a dialog (Escape).
    CloseOverlay,
    /// Show a view (`1`–`8`).
    View(ViewKey),
    /// Switch between the light and dark theme (`T`).
    ToggleTheme,
    /// Open a capture file (`O`).
    Open,
}

/// The global action of a keydown, from its `KeyboardEvent.key` and modifiers, or `None`
/// when the key is not global (a focused widget may still use it).
///
/// Escape always closes. Ctrl+K and ⌘K open the search even while typing, being no
/// text. Any other key with Ctrl or ⌘ is the browser's. While typing in a text field
/// (`in_text_field`) every other key is text and does nothing here. Shift changes
/// nothing: the key value already says what was typed (`?` is Shift+/ on many layouts,
/// and AZERTY types digits with Shift).
#[must_use]
pub fn global_action(key: &str, ctrl: bool, meta: bool, shift: bool, in_text_field: bool) -> Option<GlobalAction> {
    let _ = shift;
    if key == "Escape" {
        return Some(GlobalAction::CloseOverlay);
    }
    if ctrl || meta {
        return matches!(key, "k" | "K").then_some(GlobalAction::Search);
    }
    if in_text_field {
        return None;
    }
    match key {
        "/" => Some(GlobalAction::Search),
        "?" => Some(GlobalAction::Help),
        "t" | "T" => Some(GlobalAction::ToggleTheme),
        "o" | "O" => Some(GlobalAction::Open),
        _ => ViewKey::from_key(key).map(GlobalAction::View),
    }
}

/// One action and the key chords that do it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Alternatives, each the keys pressed together (`["Shift", "←"]`).
    pub chords: &'static [&'static [&'static str]],
    /// What it does.
    pub action: &'static str,
}

impl Binding {
    /// The chords as text: `Ctrl+K or ⌘+K or /`.
    #[must_use]
    pub fn keys_text(&self) -> String {
        self.chords.iter().map(|chord| chord.join("+")).collect::<Vec<_>>().join(" or ")
    }
}

/// A titled group of bindings: where they apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyGroup {
    pub title: &'static str,
    /// When the group applies, for the help's text.
    pub when: &'static str,
    pub bindings: &'static [Binding],
}

const fn bind(chords: &'static [&'static [&'static str]], action: &'static str) -> Binding {
    Binding { chords, action }
}

static GROUPS: [KeyGroup; 8] = [
    KeyGroup {
        title: "Global",
        when: "anywhere; letters, digits, / and ? not while typing in a field",
        bindings: &[
            bind(&[&["/"], &["Ctrl", "K"], &["⌘", "K"]], "Search passes, graph passes and resources by name"),
            bind(&[&["?"]], "Show this keyboard help"),
            bind(&[&["Escape"]], "Close the search, this help or a dialog"),
            bind(&[&["1"]], "Show the Timeline view"),
            bind(&[&["2"]], "Show the Range (flame graph) view"),
            bind(&[&["3"]], "Show the Statistics view"),
            bind(&[&["4"]], "Show the Structure view"),
            bind(&[&["5"]], "Show the Resources view"),
            bind(&[&["6"]], "Show the Memory view"),
            bind(&[&["7"]], "Show the Compare view"),
            bind(&[&["8"]], "Show the Capture & notes view"),
            bind(&[&["T"]], "Switch the theme: the system's, light, dark"),
            bind(&[&["O"]], "Open a capture file"),
        ],
    },
    KeyGroup {
        title: "Frame strip",
        when: "when the frame strip has focus",
        bindings: &[
            bind(&[&["←"], &["→"]], "Previous or next frame"),
            bind(&[&["Shift", "←"], &["Shift", "→"]], "Extend the range of frames"),
            bind(&[&["Ctrl", "←"], &["Ctrl", "→"]], "Back or forward 10 frames (⌘ too)"),
            bind(&[&["Home"], &["End"]], "First or last frame"),
            bind(&[&["Ctrl", "A"]], "Select every frame as the range"),
        ],
    },
    KeyGroup {
        title: "Timeline",
        when: "when the timeline has focus",
        bindings: &[
            bind(&[&["W"], &["+"], &["="]], "Zoom in"),
            bind(&[&["S"], &["-"]], "Zoom out"),
            bind(&[&["A"], &["D"]], "Pan left or right"),
            bind(&[&["F"], &["0"]], "Fit the whole frame"),
            bind(&[&["←"], &["→"]], "Previous or next GPU pass"),
            bind(&[&["Enter"]], "Open the selection's details"),
        ],
    },
    KeyGroup {
        title: "Range flame graph",
        when: "when the flame graph has focus",
        bindings: &[
            bind(&[&["←"], &["→"]], "Previous or next block in the row"),
            bind(&[&["↑"], &["↓"]], "Parent block, or its first child"),
            bind(&[&["Enter"]], "Zoom into the block (again: zoom back out)"),
            bind(&[&["Backspace"]], "Zoom out one level"),
        ],
    },
    KeyGroup {
        title: "Search",
        when: "in the search",
        bindings: &[
            bind(&[&["↑"], &["↓"]], "Previous or next result"),
            bind(&[&["Enter"]], "Select the result in every view"),
            bind(&[&["Escape"]], "Close the search"),
        ],
    },
    KeyGroup {
        title: "Splitter",
        when: "when the splitter between the timeline and the views has focus",
        bindings: &[
            bind(&[&["↑"], &["↓"]], "Give the views panel more or less of the height"),
            bind(&[&["Home"], &["End"]], "Smallest or largest views panel"),
        ],
    },
    KeyGroup {
        title: "View tabs",
        when: "when a view tab has focus",
        bindings: &[
            bind(&[&["←"], &["→"]], "Previous or next view"),
            bind(&[&["Home"], &["End"]], "First or last view"),
        ],
    },
    KeyGroup {
        title: "Tables",
        when: "when a table row has focus",
        bindings: &[bind(&[&["Enter"], &["Space"]], "Select the row")],
    },
];

/// Every keyboard action, grouped, in the order the help lists them.
#[must_use]
pub fn bindings() -> &'static [KeyGroup] {
    &GROUPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_name_the_eight_views_in_order() {
        for (at, view) in ViewKey::ALL.into_iter().enumerate() {
            let digit = view.digit();
            assert_eq!(digit, char::from(b'1' + at as u8));
            assert_eq!(ViewKey::from_key(&digit.to_string()), Some(view));
            assert_eq!(global_action(&digit.to_string(), false, false, false, false), Some(GlobalAction::View(view)));
        }
        for key in ["0", "9", "12", "", "a", "١"] {
            assert_eq!(ViewKey::from_key(key), None, "{key:?}");
        }
        assert_eq!(ViewKey::Statistics.key(), "stats");
        assert_eq!(ViewKey::Capture.key(), "notes");
    }

    #[test]
    fn the_help_lists_each_view_key_with_its_view() {
        let global = &bindings()[0];
        assert_eq!(global.title, "Global");
        for view in ViewKey::ALL {
            let digit = view.digit().to_string();
            let binding = global
                .bindings
                .iter()
                .find(|b| b.chords == [&[digit.as_str()][..]])
                .unwrap_or_else(|| panic!("key {digit} is listed"));
            assert!(binding.action.contains(view.title()), "{} for {}", binding.action, view.title());
        }
    }

    #[test]
    fn every_global_key_the_help_lists_does_what_it_says() {
        let expect = [
            ("/", GlobalAction::Search),
            ("?", GlobalAction::Help),
            ("Escape", GlobalAction::CloseOverlay),
            ("T", GlobalAction::ToggleTheme),
            ("O", GlobalAction::Open),
        ];
        for (key, action) in expect {
            let listed = bindings()[0].bindings.iter().any(|b| b.chords.iter().any(|chord| chord == &[key]));
            assert!(listed, "{key} is in the help");
            assert_eq!(global_action(key, false, false, false, false), Some(action), "{key}");
        }
        assert_eq!(global_action("t", false, false, false, false), Some(GlobalAction::ToggleTheme));
        assert_eq!(global_action("o", false, false, true, false), Some(GlobalAction::Open));
        assert_eq!(global_action("k", true, false, false, false), Some(GlobalAction::Search));
        assert_eq!(global_action("K", false, true, true, false), Some(GlobalAction::Search));
        assert_eq!(bindings()[0].bindings[0].keys_text(), "/ or Ctrl+K or ⌘+K");
    }

    #[test]
    fn typing_in_a_field_keeps_every_key_but_escape_and_ctrl_k() {
        for key in ["/", "?", "t", "T", "o", "1", "8", "k", " "] {
            assert_eq!(global_action(key, false, false, false, true), None, "{key:?} while typing");
        }
        assert_eq!(global_action("Escape", false, false, false, true), Some(GlobalAction::CloseOverlay));
        assert_eq!(global_action("k", true, false, false, true), Some(GlobalAction::Search));
        assert_eq!(global_action("k", false, true, false, true), Some(GlobalAction::Search));
    }

    #[test]
    fn browser_shortcuts_and_widget_keys_are_not_global() {
        for (key, ctrl) in [("o", true), ("t", true), ("1", true), ("a", true), ("ArrowLeft", false), ("w", false)] {
            assert_eq!(global_action(key, ctrl, false, false, false), None, "{key} ctrl={ctrl}");
        }
        assert_eq!(global_action("Enter", false, false, false, false), None);
    }

    #[test]
    fn every_group_has_bindings_with_keys_and_words() {
        for group in bindings() {
            assert!(!group.title.is_empty() && !group.when.is_empty() && !group.bindings.is_empty());
            for binding in group.bindings {
                assert!(!binding.action.is_empty());
                assert!(!binding.chords.is_empty() && binding.chords.iter().all(|chord| !chord.is_empty()));
            }
        }
    }
}
