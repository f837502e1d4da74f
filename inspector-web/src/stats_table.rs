//! The statistics table: sortable columns, a name filter, and each pass's share.

use sgpt_format::analysis::{PassStats, StatsReport};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Column {
    Name,
    Count,
    Zero,
    Min,
    Median,
    P95,
    Max,
    #[default]
    Total,
    Share,
}

impl Column {
    pub const ALL: [Column; 9] = [
        Column::Name,
        Column::Count,
        Column::Zero,
        Column::Min,
        Column::Median,
        Column::P95,
        Column::Max,
        Column::Total,
        Column::Share,
    ];

    #[must_use]
    pub fn title(self) -> &'static str {
        match self {
            Column::Name => "Pass",
            Column::Count => "Count",
            Column::Zero => "0 ns",
            Column::Min => "Min",
            Column::Median => "Median",
            Column::P95 => "p95",
            Column::Max => "Max",
            Column::Total => "Total",
            Column::Share => "Share",
        }
    }

    /// Names sort A→Z first; numbers largest first, as one looks for the costly.
    #[must_use]
    pub fn default_descending(self) -> bool {
        self != Column::Name
    }
}

/// How the table is sorted and filtered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableState {
    pub column: Column,
    pub descending: bool,
    pub filter: String,
}

impl Default for TableState {
    fn default() -> Self {
        Self { column: Column::Total, descending: true, filter: String::new() }
    }
}

impl TableState {
    /// Clicking a header sorts by it; clicking it again reverses.
    pub fn click(&mut self, column: Column) {
        if self.column == column {
            self.descending = !self.descending;
        } else {
            self.column = column;
            self.descending = column.default_descending();
        }
    }

    /// Indices into `report.passes` to show, in order.
    #[must_use]
    pub fn rows(&self, report: &StatsReport) -> Vec<usize> {
        // The search's rule (crate::search): case-insensitive, words, substrings, subsequences.
        let mut rows: Vec<usize> = (0..report.passes.len())
            .filter(|&index| crate::search::matches(&display_name(&report.passes[index]), &self.filter))
            .collect();
        let key = |pass: &PassStats| -> u64 {
            match self.column {
                Column::Name => 0,
                Column::Count => pass.count,
                Column::Zero => pass.zero_count,
                Column::Min => pass.min_ns,
                Column::Median => pass.median_ns,
                Column::P95 => pass.p95_ns,
                Column::Max => pass.max_ns,
                Column::Total | Column::Share => pass.total_ns,
            }
        };
        rows.sort_by(|&a, &b| {
            let (pa, pb) = (&report.passes[a], &report.passes[b]);
            let order = if self.column == Column::Name {
                display_name(pa).cmp(&display_name(pb))
            } else {
                key(pa).cmp(&key(pb))
            };
            // Ties keep the report's order (largest total first) whichever way we sort.
            (if self.descending { order.reverse() } else { order }).then(a.cmp(&b))
        });
        rows
    }
}

/// `graph pass › label`, or the label alone; sub-pass regions say so.
#[must_use]
pub fn display_name(pass: &PassStats) -> String {
    pass_name(pass.graph_pass.as_deref(), &pass.label, pass.kind, pass.span_kind)
}

/// A pass's name wherever passes are listed by key (statistics, comparison): `graph ›
/// label` (the label alone when they are the same, or with no graph pass), marked when it
/// is a sub-pass region or an encoder-level span, since those share their names with other
/// rows. An encoder-level span is a graph pass timed on its encoder only when it names
/// one; without one (level timing's brackets, encoder scopes, the wgpu-profiler bridge's
/// scopes) it is its label and the mark, nothing more.
#[must_use]
pub fn pass_name(
    graph_pass: Option<&str>,
    label: &str,
    kind: sgpt_format::GpuPassKind,
    span_kind: sgpt_format::SpanKind,
) -> String {
    let label = if label.is_empty() { "(no label)" } else { label };
    let mut name = match graph_pass {
        Some(graph) if graph != label => format!("{graph} › {label}"),
        _ => label.to_owned(),
    };
    if span_kind == sgpt_format::SpanKind::SubPass {
        name.push_str(" (sub-pass region)");
    }
    if kind == sgpt_format::GpuPassKind::Encoder {
        name.push_str(" (encoder)");
    }
    name
}

/// The sum of every pass's total, the denominator of the share column.
#[must_use]
pub fn grand_total(report: &StatsReport) -> u64 {
    report.passes.iter().fold(0u64, |sum, pass| sum.saturating_add(pass.total_ns))
}

/// The sentence that always stands above the table (docs/ARCHITECTURE.md: timestamps as
/// reported, never invented precision). `may_quantize`: the capture comes from a browser
/// (or does not say where it comes from), whose timestamps may be quantized.
#[must_use]
pub fn honesty_note(report: &StatsReport, may_quantize: bool) -> String {
    range_note(report.zero_spans, report.inverted_spans, report.spans, "this table", may_quantize)
}

/// The same sentence for any view aggregating `spans` spans over a range, `zero_spans` of
/// them 0 ns, `inverted` of those because they ended before they began; `view` names it
/// ("this table"), so every range view says exactly the same. The browser's quantization
/// is named only where it can apply.
#[must_use]
pub fn range_note(zero_spans: u64, inverted: u64, spans: u64, view: &str, may_quantize: bool) -> String {
    let mut zero = format!(
        "{} of {} spans in this range read exactly 0 ns.",
        crate::units::grouped(zero_spans),
        crate::units::grouped(spans)
    );
    if inverted > 0 {
        let it = if inverted == 1 { "it" } else { "they" };
        zero.push_str(&format!(
            " {} of them ended before {it} began (inverted, or the device's counter wrapped), which counts as 0 ns.",
            crate::units::grouped(inverted)
        ));
    }
    let coarse = format!(
        " A single frame of a coarse capture is mostly noise: aggregating across frames, as {view} does, is the honest reading."
    );
    if may_quantize {
        format!(
            "Browsers quantize GPU timestamps to 100 µs unless chrome://flags/#enable-webgpu-developer-features is on; \
             the capture holds what the device reported and this page corrects nothing. {zero}{coarse}"
        )
    } else if zero_spans > inverted {
        // Spans that began and ended at one reported time: the device's clock is coarse
        // for them. Spans that ended before they began say nothing of that.
        format!("The capture holds what the device reported and this page corrects nothing. {zero}{coarse}")
    } else {
        format!("The capture holds what the device reported and this page corrects nothing. {zero}")
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use sgpt_format::{GpuPass, GpuPassKind, SpanKind, Topology, TopologyId};

    use crate::search::{ItemKind, MatchTier, SearchIndex};

    use super::*;

    fn pass(label: &str, graph: Option<&str>, median_ns: u64, total_ns: u64) -> PassStats {
        PassStats {
            label: label.into(),
            graph_pass: graph.map(Into::into),
            kind: GpuPassKind::Compute,
            span_kind: SpanKind::Pass,
            count: 10,
            zero_count: 0,
            frames_present: 10,
            min_ns: 0,
            median_ns,
            p95_ns: median_ns,
            max_ns: median_ns,
            mean_ns: PassStats::mean_of(total_ns, 10),
            total_ns,
        }
    }

    fn report() -> StatsReport {
        StatsReport {
            passes: vec![
                pass("main", Some("opaque"), 50, 5_000),
                pass("blur", Some("bloom"), 90, 900),
                pass("blur", Some("dof"), 10, 100),
            ],
            spans: 30,
            zero_spans: 4,
            ..StatsReport::default()
        }
    }

    #[test]
    fn sorting_by_a_column_and_again_reverses() {
        let report = report();
        let mut state = TableState::default();
        assert_eq!(state.rows(&report), [0, 1, 2]);
        state.click(Column::Median);
        assert_eq!(state.rows(&report), [1, 0, 2]);
        state.click(Column::Median);
        assert_eq!(state.rows(&report), [2, 0, 1]);
        state.click(Column::Name);
        assert!(!state.descending);
        assert_eq!(state.rows(&report), [1, 2, 0], "bloom › blur, dof › blur, opaque › main");
    }

    #[test]
    fn the_filter_matches_graph_pass_or_label_ignoring_case() {
        let report = report();
        let state = TableState { filter: " BLUR".into(), ..TableState::default() };
        assert_eq!(state.rows(&report), [1, 2]);
        let state = TableState { filter: "dof".into(), ..TableState::default() };
        assert_eq!(state.rows(&report), [2]);
        assert_eq!(grand_total(&report), 6_000);
    }

    #[test]
    fn encoder_level_rows_read_their_label_and_a_graph_pass_only_where_they_name_one() {
        let name = |graph, label| pass_name(graph, label, GpuPassKind::Encoder, SpanKind::Pass);
        assert_eq!(name(None, "fine_area"), "fine_area (encoder)");
        assert_eq!(name(Some("cascades"), "cascades"), "cascades (encoder)");
        assert_eq!(name(Some("lighting"), "shadow copy"), "lighting › shadow copy (encoder)");
        assert_eq!(name(None, ""), "(no label) (encoder)");
        let scope = PassStats { kind: GpuPassKind::Encoder, ..pass("fine_area", None, 10, 100) };
        assert_eq!(display_name(&scope), "fine_area (encoder)");
        let state = TableState { filter: "fine_area".into(), ..TableState::default() };
        let report = StatsReport { passes: vec![pass("fine", None, 1, 1), scope], ..StatsReport::default() };
        assert_eq!(state.rows(&report), [1]);
    }

    /// The bridge's scopes are GPU passes of the topology: the search finds them by label.
    #[test]
    fn the_search_finds_a_bridged_scope_by_its_label() {
        let bare = |label: &str, parent| GpuPass {
            label: label.into(),
            kind: GpuPassKind::Encoder,
            parent,
            ..GpuPass::default()
        };
        let topology = Topology {
            gpu_passes: vec![bare("render_to_texture", None), bare("fine", Some(0)), bare("fine_area", Some(1))],
            ..Topology::default()
        };
        let id: TopologyId = 0;
        let index = SearchIndex::from_topologies([(id, &topology)], &HashMap::from([(id, 3)]));
        let hits = index.query("fine_area", 5);
        let found: Vec<_> = hits
            .iter()
            .map(|hit| {
                let item = &index.items()[hit.item];
                (item.name.as_str(), item.kind, item.pass_kind, item.index_in(id), hit.tier)
            })
            .collect();
        assert_eq!(
            found,
            [("fine_area", ItemKind::Pass, Some(GpuPassKind::Encoder), Some(2), MatchTier::Exact)],
            "{hits:?}"
        );
        assert_eq!(index.query("fine", 5).len(), 2, "fine and fine_area");
    }

    #[test]
    fn the_note_names_the_flag_and_counts_zero_spans() {
        let note = honesty_note(&report(), true);
        assert!(note.contains("chrome://flags/#enable-webgpu-developer-features"));
        assert!(note.contains("4 of 30 spans in this range read exactly 0 ns"));
        assert!(note.contains("aggregating across frames"));
        assert_eq!(note, range_note(4, 0, 30, "this table", true));
        assert!(!note.contains("ended before"), "{note}");
    }

    #[test]
    fn a_native_capture_is_not_told_about_the_browsers_flag() {
        let note = honesty_note(&report(), false);
        assert!(!note.contains("chrome://flags"), "{note}");
        assert!(note.contains("4 of 30 spans in this range read exactly 0 ns"), "{note}");
        assert!(note.contains("aggregating across frames"), "0 ns spans still make single frames noisy: {note}");
        let exact = range_note(0, 0, 30, "this table", false);
        assert_eq!(
            exact,
            "The capture holds what the device reported and this page corrects nothing. 0 of 30 spans in this range read exactly 0 ns."
        );
    }

    #[test]
    fn spans_that_ended_before_they_began_are_counted_apart() {
        let one = honesty_note(&StatsReport { inverted_spans: 1, ..report() }, false);
        assert!(
            one.contains(
                "4 of 30 spans in this range read exactly 0 ns. 1 of them ended before it began (inverted, or \
                 the device's counter wrapped), which counts as 0 ns."
            ),
            "{one}"
        );
        let three = range_note(4, 3, 30, "this flame graph", true);
        assert!(three.contains(" 3 of them ended before they began ("), "{three}");
        // A native capture whose only 0 ns spans ended before they began is not called coarse.
        let native = range_note(2, 2, 30, "this table", false);
        assert!(native.ends_with("which counts as 0 ns."), "{native}");
        assert!(!native.contains("coarse"), "{native}");
    }
}
