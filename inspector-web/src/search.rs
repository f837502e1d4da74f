//! Search by name across the whole capture: every distinct GPU pass, graph pass and
//! resource of every topology, ranked the way a Ctrl+K picker ranks: exact, prefix, word
//! start, substring, then subsequence. The statistics table's filter uses the same rule
//! ([`matches()`]), so "the statistics filter is the same search".
//!
//! Names come from the capture and are untrusted: they stay plain text (the page renders
//! text only) and are clipped to [`crate::summary::MAX_TEXT_CHARS`] characters per part
//! for display; matching runs on the displayed text, so the highlight ranges index it.
//!
//! Case is ignored by mapping each character to the first character of its lowercase
//! form (`'İ'` → `'i'`, `'Ä'` → `'ä'`), so one character of a name is one character of its
//! lowercase form and the ranges map back exactly. Whole-string folds such as `ß` ↔ `SS`
//! are not made.

use std::collections::HashMap;
use std::ops::Range;

use sgpt_format::{Capture, GpuPassKind, Topology, TopologyId};

use crate::summary::clip;

/// What a search item names. Ties between equally good matches list them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKind {
    /// A GPU pass (render, compute, marker region, encoder span), by graph pass, label and kind.
    Pass,
    /// A graph pass, by name.
    GraphPass,
    /// A resource, by name (all its versions).
    Resource,
}

impl ItemKind {
    /// How the page names the kind beside a hit.
    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            ItemKind::Pass => "GPU pass",
            ItemKind::GraphPass => "graph pass",
            ItemKind::Resource => "resource",
        }
    }
}

/// How well a name matches a query, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MatchTier {
    /// The whole name (or a pass's label) is the query.
    Exact,
    /// The name (or a pass's label) begins with the query.
    Prefix,
    /// The query begins a word: it follows one of [`WORD_SEPARATORS`].
    WordStart,
    /// The query is inside the name.
    Substring,
    /// The query's characters appear in the name in order, with gaps.
    Subsequence,
}

/// The characters after which a word starts.
pub const WORD_SEPARATORS: [char; 6] = ['.', '/', '_', '-', ' ', '›'];

/// Where an item occurs in one topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Place {
    pub topology: TopologyId,
    /// The first index in that topology's `gpu_passes`, `graph_passes` or `resources`
    /// (for a resource: its lowest version) with this item's key.
    pub index: u32,
}

/// One distinct pass, graph pass or resource of the capture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchItem {
    pub kind: ItemKind,
    /// What the page shows: `graph › label` for a pass inside a graph pass, else the name;
    /// each part clipped.
    pub name: String,
    /// For a GPU pass, its kind (two passes may share a name and differ in kind).
    pub pass_kind: Option<GpuPassKind>,
    /// Every topology that holds it, by topology id ascending.
    pub places: Vec<Place>,
    /// How many frames of the capture use one of those topologies.
    pub frames: u64,
    /// `name`, one lowercase character per character.
    lower: Vec<char>,
    /// The byte offset in `name` of each character, then `name.len()`.
    offsets: Vec<usize>,
    /// The character index where a pass's label starts in `name` (0 otherwise).
    label_at: usize,
}

impl SearchItem {
    fn new(kind: ItemKind, name: String, pass_kind: Option<GpuPassKind>, label_at: usize) -> Self {
        let (lower, mut offsets): (Vec<char>, Vec<usize>) = name.char_indices().map(|(at, c)| (fold(c), at)).unzip();
        offsets.push(name.len());
        Self { kind, name, pass_kind, places: Vec::new(), frames: 0, lower, offsets, label_at }
    }

    /// Its index in topology `topology`, when that topology holds it.
    #[must_use]
    pub fn index_in(&self, topology: TopologyId) -> Option<u32> {
        self.places.iter().find(|place| place.topology == topology).map(|place| place.index)
    }

    /// How the item matches `query` (already folded and non-empty), as character positions.
    fn matched(&self, query: &[char]) -> Option<(MatchTier, Vec<Range<usize>>)> {
        let (tier, chars) = match_chars(&self.lower, query)?;
        // A pass is known by its label too: `blur` is exact for `bloom › blur`.
        let label = &self.lower[self.label_at..];
        if self.label_at > 0 && label.starts_with(query) {
            let by_label = if label.len() == query.len() { MatchTier::Exact } else { MatchTier::Prefix };
            if by_label < tier {
                return Some((by_label, one(self.label_at..self.label_at + query.len())));
            }
        }
        Some((tier, chars))
    }

    fn bytes(&self, chars: &[Range<usize>]) -> Vec<Range<usize>> {
        chars.iter().map(|range| self.offsets[range.start]..self.offsets[range.end]).collect()
    }
}

/// A search result: which item, how well it matched, and what to highlight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchHit {
    /// An index into [`SearchIndex::items`].
    pub item: usize,
    pub tier: MatchTier,
    /// Byte ranges of the item's `name` that matched, ascending and disjoint.
    pub ranges: Vec<Range<usize>>,
}

/// Every distinct name of a capture, folded once so that each query only compares.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchIndex {
    items: Vec<SearchItem>,
}

#[derive(PartialEq, Eq, Hash)]
enum Key {
    Pass(Option<String>, String, GpuPassKind),
    GraphPass(String),
    Resource(String),
}

impl SearchIndex {
    /// Indexes every topology of `capture`.
    #[must_use]
    pub fn new(capture: &Capture<'_>) -> Self {
        // Frames come in long runs of one topology: count the runs, and touch the map once
        // a run rather than once a frame (eight hours are 1.7 M frames).
        let mut frames: HashMap<TopologyId, u64> = HashMap::new();
        for run in capture.frames().chunk_by(|a, b| a.topology == b.topology) {
            *frames.entry(run[0].topology).or_default() += run.len() as u64;
        }
        Self::from_topologies(capture.topologies(), &frames)
    }

    /// Indexes `topologies`, `frames` saying how many frames use each.
    #[must_use]
    pub fn from_topologies<'a>(
        topologies: impl IntoIterator<Item = (TopologyId, &'a Topology)>,
        frames: &HashMap<TopologyId, u64>,
    ) -> Self {
        let mut topologies: Vec<(TopologyId, &Topology)> = topologies.into_iter().collect();
        topologies.sort_by_key(|&(id, _)| id);
        let mut items: Vec<SearchItem> = Vec::new();
        let mut keys: HashMap<Key, usize> = HashMap::new();
        let mut add = |key: Key, index: usize, id: TopologyId, make: &dyn Fn() -> SearchItem| {
            let at = *keys.entry(key).or_insert_with(|| {
                items.push(make());
                items.len() - 1
            });
            let item = &mut items[at];
            if item.places.last().is_none_or(|place| place.topology != id) {
                item.places.push(Place { topology: id, index: index as u32 });
                item.frames += frames.get(&id).copied().unwrap_or(0);
            }
        };
        for &(id, topology) in &topologies {
            for (index, pass) in topology.gpu_passes.iter().enumerate() {
                let graph = pass.graph_pass.and_then(|g| topology.graph_passes.get(g as usize)).map(|g| &g.name);
                let key = Key::Pass(graph.cloned(), pass.label.clone(), pass.kind);
                add(key, index, id, &|| {
                    let label = if pass.label.is_empty() { "(no label)".to_owned() } else { clip(&pass.label) };
                    match graph {
                        Some(graph) if *graph != pass.label && !graph.is_empty() => {
                            let graph = clip(graph);
                            let label_at = graph.chars().count() + 3;
                            SearchItem::new(ItemKind::Pass, format!("{graph} › {label}"), Some(pass.kind), label_at)
                        }
                        _ => SearchItem::new(ItemKind::Pass, label, Some(pass.kind), 0),
                    }
                });
            }
            for (index, pass) in topology.graph_passes.iter().enumerate() {
                add(Key::GraphPass(pass.name.clone()), index, id, &|| {
                    SearchItem::new(ItemKind::GraphPass, display(&pass.name), None, 0)
                });
            }
            // A resource's place is its lowest version.
            let mut nodes: Vec<usize> = (0..topology.resources.len()).collect();
            nodes.sort_by_key(|&n| (topology.resources[n].version, n));
            for index in nodes {
                let name = &topology.resources[index].name;
                add(Key::Resource(name.clone()), index, id, &|| {
                    SearchItem::new(ItemKind::Resource, display(name), None, 0)
                });
            }
        }
        Self { items }
    }

    /// Every distinct item, in the order first seen (topology id, then passes, graph
    /// passes, resources).
    #[must_use]
    pub fn items(&self) -> &[SearchItem] {
        &self.items
    }

    /// The `limit` best matches of `text`, best first: by [`MatchTier`], then [`ItemKind`],
    /// then frames used (most first), then name. Case is ignored and surrounding
    /// whitespace trimmed; an empty query returns nothing (the page shows its hint instead).
    #[must_use]
    pub fn query(&self, text: &str, limit: usize) -> Vec<SearchHit> {
        let query = fold_query(text);
        if query.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut hits: Vec<(MatchTier, usize, Vec<Range<usize>>)> = self
            .items
            .iter()
            .enumerate()
            .filter_map(|(at, item)| item.matched(&query).map(|(tier, chars)| (tier, at, chars)))
            .collect();
        let order = |a: &(MatchTier, usize, Vec<Range<usize>>), b: &(MatchTier, usize, Vec<Range<usize>>)| {
            let (x, y) = (&self.items[a.1], &self.items[b.1]);
            a.0.cmp(&b.0)
                .then(x.kind.cmp(&y.kind))
                .then(y.frames.cmp(&x.frames))
                .then_with(|| x.name.cmp(&y.name))
                .then(a.1.cmp(&b.1))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(tier, item, chars)| SearchHit { item, tier, ranges: self.items[item].bytes(&chars) })
            .collect()
    }
}

/// A graph pass's or resource's name as shown.
fn display(name: &str) -> String {
    if name.is_empty() { "(no name)".to_owned() } else { clip(name) }
}

/// How `name` matches `query`, with byte ranges of `name` to highlight; `None` when it
/// does not. An empty (or all-whitespace) query matches everything, with nothing to
/// highlight, as an empty filter shows every row.
#[must_use]
pub fn match_text(name: &str, query: &str) -> Option<(MatchTier, Vec<Range<usize>>)> {
    let query = fold_query(query);
    if query.is_empty() {
        return Some((MatchTier::Substring, Vec::new()));
    }
    let item = SearchItem::new(ItemKind::Pass, name.to_owned(), None, 0);
    let (tier, chars) = item.matched(&query)?;
    Some((tier, item.bytes(&chars)))
}

/// Whether `name` matches `query` by the search's rule (any [`MatchTier`]); an empty query
/// matches everything. The statistics table's filter.
#[must_use]
pub fn matches(name: &str, query: &str) -> bool {
    let query = fold_query(query);
    if query.is_empty() {
        return true;
    }
    let lower: Vec<char> = name.chars().map(fold).collect();
    match_chars(&lower, &query).is_some()
}

fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn fold_query(text: &str) -> Vec<char> {
    text.trim().chars().map(fold).collect()
}

/// One range as a list of ranges.
fn one(range: Range<usize>) -> Vec<Range<usize>> {
    vec![range]
}

fn is_separator(c: char) -> bool {
    WORD_SEPARATORS.contains(&c)
}

/// The tier and character ranges of `query` (non-empty) in `name`, both folded.
fn match_chars(name: &[char], query: &[char]) -> Option<(MatchTier, Vec<Range<usize>>)> {
    let n = query.len();
    if name == query {
        return Some((MatchTier::Exact, one(0..n)));
    }
    if name.starts_with(query) {
        return Some((MatchTier::Prefix, one(0..n)));
    }
    let mut first = None;
    if name.len() > n {
        for at in 1..=name.len() - n {
            if name[at] == query[0] && name[at..at + n] == *query {
                if is_separator(name[at - 1]) {
                    return Some((MatchTier::WordStart, one(at..at + n)));
                }
                first.get_or_insert(at);
            }
        }
    }
    if let Some(at) = first {
        return Some((MatchTier::Substring, one(at..at + n)));
    }
    // Leftmost in-order characters, merged into runs.
    let mut ranges: Vec<Range<usize>> = Vec::new();
    let mut wanted = query.iter().peekable();
    for (at, &c) in name.iter().enumerate() {
        let Some(&&next) = wanted.peek() else { break };
        if c == next {
            wanted.next();
            match ranges.last_mut() {
                Some(run) if run.end == at => run.end = at + 1,
                _ => ranges.push(at..at + 1),
            }
        }
    }
    wanted.peek().is_none().then_some((MatchTier::Subsequence, ranges))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn tiers_rank_exact_prefix_word_start_substring_subsequence() {
        let tier = |name: &str, query: &str| match_chars(&chars(name), &chars(query)).map(|(tier, _)| tier);
        assert_eq!(tier("bloom", "bloom"), Some(MatchTier::Exact));
        assert_eq!(tier("bloom_down", "bloom"), Some(MatchTier::Prefix));
        assert_eq!(tier("post/bloom", "bloom"), Some(MatchTier::WordStart));
        assert_eq!(tier("superbloom", "bloom"), Some(MatchTier::Substring));
        assert_eq!(tier("b-l-o-o-m", "bloom"), Some(MatchTier::Subsequence));
        assert_eq!(tier("blom", "bloom"), None);
        assert_eq!(tier("a", "ab"), None);
    }

    #[test]
    fn a_word_start_later_in_the_name_beats_an_earlier_substring() {
        let (tier, ranges) = match_chars(&chars("xblur blur"), &chars("blur")).expect("matches");
        assert_eq!((tier, ranges), (MatchTier::WordStart, one(6..10)));
    }

    #[test]
    fn subsequence_ranges_merge_adjacent_characters() {
        let (_, ranges) = match_chars(&chars("shadow_map"), &chars("shmap")).expect("matches");
        assert_eq!(ranges, [0..2, 7..10]);
    }

    #[test]
    fn the_filter_rule_ignores_case_and_surrounding_space() {
        assert!(matches("Bloom › Blur", " BLUR "));
        assert!(matches("anything", "   "));
        assert!(!matches("bloom", "bloomy"));
    }
}
