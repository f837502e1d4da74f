//! The DOM panels: statistics, structure, resources, pass detail, compare, memory,
//! notes and defects, summary. Each renders a native model; strings go in as text only.

use sgpt_format::analysis::StatsReport;
use wasm_bindgen::JsCast;
use web_sys::Element;

use super::dom::{Dom, clear};
use super::error::Error;
use crate::compare_view::CompareView;
use crate::frame_detail::FrameDetail;
use crate::memory::{
    MemoryView, byte_text, domain_cells, provider_cells, reconciliation_cells, reconciliation_text, site_cells,
    size_cells,
};
use crate::memory_lane::MemoryLane;
use crate::pass_detail::PassDetail;
use crate::resources::ResourceTable;
use crate::stats_table::{self, Column, TableState};
use crate::structure::Structure;
use crate::summary::{DefectRow, MAX_ROWS, Rows, Summary, clip};
use crate::units;
use sgpt_format::memory_analysis::ReconciliationStatus;

#[expect(clippy::too_many_arguments, reason = "the panel's inputs, each its own piece of view state")]
pub fn stats(
    dom: &Dom,
    root: &Element,
    report: Option<&StatsReport>,
    table: &TableState,
    range_text: &str,
    progress: Option<f64>,
    selected: Option<&PassDetail>,
    may_quantize: bool,
) -> Result<(), Error> {
    clear(root);
    dom.add(root, "h3", &format!("Statistics over {range_text}"))?;
    let Some(report) = report else {
        let text = progress.map_or_else(|| "Computing…".to_owned(), |p| format!("Computing… {:.0} %", p * 100.0));
        dom.add(root, "p", &text)?;
        return Ok(());
    };
    dom.add_class(root, "p", "note", &stats_table::honesty_note(report, may_quantize))?;
    if report.dropped_spans > 0 {
        dom.add_class(
            root,
            "p",
            "warning",
            &format!(
                "{} spans were dropped in this range (begun but never timed); their passes are missing from those frames.",
                units::grouped(report.dropped_spans)
            ),
        )?;
    }
    if !report.defects.is_empty() {
        dom.add_class(
            root,
            "p",
            "warning",
            &format!("{} frames could not be analysed and were skipped (see Notes & defects).", report.defects.len()),
        )?;
    }
    let controls = dom.add_class(root, "div", "controls", "")?;
    let label = dom.add(&controls, "label", "Filter by name ")?;
    let input = dom.add(&label, "input", "")?;
    input.set_id("stats-filter");
    let _ = input.set_attribute("type", "search");
    let _ = input.set_attribute("placeholder", "pass or graph pass");
    let _ = input.set_attribute("value", &table.filter);
    dom.add_class(
        &controls,
        "span",
        "muted",
        &format!(
            "{} frames, {} spans, {} passes",
            units::grouped(report.frames),
            units::grouped(report.spans),
            report.passes.len()
        ),
    )?;
    let tbl = dom.add(root, "table", "")?;
    tbl.set_id("stats");
    let head = dom.add(&dom.add(&tbl, "thead", "")?, "tr", "")?;
    for column in Column::ALL {
        let th = dom.add(&head, "th", "")?;
        if column != Column::Name {
            th.set_class_name("num");
        }
        if column == table.column {
            let _ = th.set_attribute("aria-sort", if table.descending { "descending" } else { "ascending" });
        }
        let button = dom.add(&th, "button", column.title())?;
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-action", "sort");
        let _ = button.set_attribute("data-value", column.title());
    }
    let body = dom.add(&tbl, "tbody", "")?;
    let total = stats_table::grand_total(report);
    let rows = table.rows(report);
    for &index in rows.iter().take(MAX_ROWS) {
        let pass = &report.passes[index];
        let tr = dom.add(&body, "tr", "")?;
        Dom::action(&tr, "stats-row", &index.to_string());
        // The selected pass is this row when graph pass, label and kind agree.
        if selected.is_some_and(|d| {
            d.label == pass.label
                && d.graph_pass == pass.graph_pass
                && d.kind == pass.kind.name()
                && pass.span_kind == sgpt_format::SpanKind::Pass
        }) {
            tr.set_class_name("selected");
            let _ = tr.set_attribute("aria-selected", "true");
        }
        dom.add(&tr, "td", &stats_table::display_name(pass))?;
        for (value, exact) in [
            (units::grouped(pass.count), None),
            (units::grouped(pass.zero_count), None),
            (units::duration(pass.min_ns), Some(pass.min_ns)),
            (units::duration(pass.median_ns), Some(pass.median_ns)),
            (units::duration(pass.p95_ns), Some(pass.p95_ns)),
            (units::duration(pass.max_ns), Some(pass.max_ns)),
            (units::duration(pass.total_ns), Some(pass.total_ns)),
            (units::percent(pass.total_ns, total), None),
        ] {
            let td = dom.add_class(&tr, "td", "num", &value)?;
            if let Some(ns) = exact {
                let _ = td.set_attribute("title", &units::exact_ns(ns));
            }
        }
    }
    if rows.len() > MAX_ROWS {
        dom.add(root, "p", &format!("Not shown: {} more passes; filter to find them.", rows.len() - MAX_ROWS))?;
    }
    if rows.is_empty() {
        dom.add(root, "p", "No pass matches the filter.")?;
    }
    Ok(())
}

pub fn structure(
    dom: &Dom,
    root: &Element,
    structure: Option<&Structure>,
    graph_pass: Option<u32>,
    node: Option<u32>,
) -> Result<(), Error> {
    clear(root);
    let Some(structure) = structure else {
        dom.add(
            root,
            "p",
            "This frame has no frame-graph structure (recorded at level timing, or its topology was lost).",
        )?;
        return Ok(());
    };
    if structure.passes.is_empty() {
        dom.add(root, "p", "This frame's topology declares no graph passes (level timing records GPU passes only).")?;
        return Ok(());
    }
    let (inputs, input_nodes) = graph_pass.map(|p| structure.transitive_inputs(p)).unwrap_or_default();
    let chain = node.map(|n| structure.version_chain(n)).unwrap_or_default();
    let readers: Vec<u32> =
        node.and_then(|n| structure.nodes.get(n as usize)).map(|n| n.readers.clone()).unwrap_or_default();
    let selected_text = match (
        graph_pass.and_then(|p| structure.passes.get(p as usize)),
        node.and_then(|n| structure.nodes.get(n as usize)),
    ) {
        (Some(pass), _) => format!("{}: {} passes feed it, transitively (highlighted).", pass.name, inputs.len()),
        (None, Some(n)) => {
            format!("{}: {} versions in its chain, {} readers (highlighted).", n.label, chain.len(), readers.len())
        }
        _ => "Select a pass to highlight its transitive inputs, or a resource to see its version chain and readers."
            .to_owned(),
    };
    dom.add_class(root, "p", "muted", &selected_text)?;
    dom.add(root, "h3", "Passes")?;
    let table = dom.table(
        root,
        &[
            ("#", true),
            ("Graph pass", false),
            ("Scope", false),
            ("State", false),
            ("Refs", true),
            ("Reads", false),
            ("Writes / creates", false),
            ("GPU passes", false),
        ],
    )?;
    let node_label = |n: &u32| structure.nodes.get(*n as usize).map_or_else(String::new, |node| node.label.clone());
    for pass in structure.passes.iter().take(MAX_ROWS) {
        let state = match (pass.culled, pass.side_effects) {
            (true, _) => "culled",
            (false, true) => "live, side effects",
            (false, false) => "live",
        };
        let reads = pass.reads.iter().map(node_label).collect::<Vec<_>>().join(", ");
        let writes = pass.writes.iter().chain(&pass.creates).map(node_label).collect::<Vec<_>>().join(", ");
        let tr = dom.row(
            &table,
            &[
                (&pass.index.to_string(), true),
                (&pass.name, false),
                (&pass.scope, false),
                (state, false),
                (&pass.ref_count.to_string(), true),
                (&reads, false),
                (&writes, false),
                (&pass.gpu_passes.join(", "), false),
            ],
        )?;
        Dom::action(&tr, "gp", &pass.index.to_string());
        let mut class = String::new();
        if pass.culled {
            class.push_str("culled ");
        }
        if Some(pass.index) == graph_pass {
            class.push_str("selected ");
        } else if inputs.contains(&pass.index) || readers.contains(&pass.index) {
            class.push_str("related");
        }
        tr.set_class_name(class.trim());
    }
    dom.add(root, "h3", "Resource nodes")?;
    let table = dom.table(
        root,
        &[
            ("#", true),
            ("Resource", false),
            ("Kind", false),
            ("Declared", true),
            ("Descriptor", false),
            ("Produced by", false),
            ("Read by", false),
        ],
    )?;
    let pass_name = |p: &u32| structure.passes.get(*p as usize).map_or_else(String::new, |pass| pass.name.clone());
    for row in structure.nodes.iter().take(MAX_ROWS) {
        let producers = row.producers.iter().map(pass_name).collect::<Vec<_>>().join(", ");
        let readers_text = row.readers.iter().map(pass_name).collect::<Vec<_>>().join(", ");
        let tr = dom.row(
            &table,
            &[
                (&row.index.to_string(), true),
                (&row.label, false),
                (if row.imported { "imported" } else { "transient" }, false),
                (&units::bytes(row.declared_bytes), true),
                (&row.desc, false),
                (&producers, false),
                (&readers_text, false),
            ],
        )?;
        Dom::action(&tr, "node", &row.index.to_string());
        if Some(row.index) == node {
            tr.set_class_name("selected");
        } else if chain.contains(&row.index) || input_nodes.contains(&row.index) {
            tr.set_class_name("related");
        }
    }
    Ok(())
}

/// The frame's resources; the row named `selected` (a search result) is marked.
pub fn resources(
    dom: &Dom,
    root: &Element,
    table: Option<&ResourceTable>,
    selected: Option<&str>,
) -> Result<(), Error> {
    clear(root);
    let Some(table) = table else {
        dom.add(root, "p", "No resources: this frame has no frame-graph structure.")?;
        return Ok(());
    };
    let report = &table.report;
    let facts = dom.add(root, "dl", "")?;
    let mut pairs = vec![
        ("Declared, all resources", units::bytes(report.total_declared_bytes)),
        ("Imported", units::bytes(report.imported_bytes)),
        (
            "Peak concurrent (transient)",
            match &table.peak_at {
                Some(pass) => format!("{} at {pass}", units::bytes(report.peak_concurrent_bytes)),
                None => "none: no transient resource is alive".to_owned(),
            },
        ),
    ];
    pairs.push((
        "GPU memory counter",
        match &table.gpu_memory {
            Some((name, value)) => format!(
                "{} ({name}, this frame) — declared is what descriptors ask for, not what the driver allocated",
                units::bytes(*value)
            ),
            None => "not recorded in this capture".to_owned(),
        },
    ));
    for (label, value) in pairs {
        dom.add(&facts, "dt", label)?;
        dom.add(&facts, "dd", &value)?;
    }
    let tbl = dom.table(
        root,
        &[
            ("Resource", false),
            ("Declared", true),
            ("Versions", true),
            ("Kind", false),
            ("Format and usage", false),
            ("Lifetime", false),
        ],
    )?;
    for row in table.rows.iter().take(MAX_ROWS) {
        let tr = dom.row(
            &tbl,
            &[
                (&row.name, false),
                (&units::bytes(row.declared_bytes), true),
                (&row.versions.to_string(), true),
                (if row.imported { "imported" } else { "transient" }, false),
                (&row.desc, false),
                (&row.lifetime, false),
            ],
        )?;
        if Some(row.name.as_str()) == selected {
            tr.set_class_name("selected");
        }
    }
    Ok(())
}

/// A count the level recorded, or what says it was not recorded.
fn count_or_absent(count: usize, not_recorded: Option<&str>) -> String {
    match not_recorded {
        Some(level) => format!("not recorded (level {level})"),
        None => count.to_string(),
    }
}

pub fn pass_detail(
    dom: &Dom,
    root: &Element,
    detail: Option<&PassDetail>,
    level_verbose: bool,
    frame_number: Option<u64>,
    base: Option<&str>,
) -> Result<Option<Element>, Error> {
    clear(root);
    let Some(detail) = detail else {
        dom.add_class(
            root,
            "p",
            "muted",
            "Select a GPU pass in the timeline or a row of the statistics, or search (/), to see it here across the selected frames.",
        )?;
        return Ok(None);
    };
    dom.add(
        root,
        "h3",
        &match &detail.graph_pass {
            Some(graph) => format!("{} › {} ({} pass)", graph, detail.label, detail.kind),
            None => format!("{} ({} pass)", detail.label, detail.kind),
        },
    )?;
    let spark_title = dom.add_class(
        root,
        "p",
        "muted",
        "Duration across the selected frames (min–max per column); the red line is the frame shown.",
    )?;
    let canvas = dom.add(root, "canvas", "")?;
    canvas.set_id("sparkline");
    canvas.set_class_name("spark");
    let _ = spark_title;
    dom.add_class(root, "p", "readout", "")?.set_id("spark-readout");
    dom.add_class(
        root,
        "p",
        "muted",
        "Its durations over the selected frames: black the median, red the p95, purple the 0 ns spans, apart.",
    )?;
    let histogram = dom.add(root, "canvas", "")?;
    histogram.set_id("histogram");
    histogram.set_class_name("histogram");
    let _ = histogram.set_attribute("role", "img");
    let _ = histogram.set_attribute("aria-label", "Histogram of the pass's durations over the selected frames");
    dom.add_class(root, "p", "readout", "Counting its spans over the range…")?.set_id("histogram-readout");
    if let Some(base) = base {
        dom.add_class(root, "p", "muted", &format!("The same pass in the baseline, {base}, over all its frames:"))?;
        let histogram = dom.add(root, "canvas", "")?;
        histogram.set_id("histogram-base");
        histogram.set_class_name("histogram");
        let _ = histogram.set_attribute("role", "img");
        let _ = histogram.set_attribute("aria-label", "Histogram of the same pass's durations in the baseline");
        dom.add_class(root, "p", "readout", "Counting its spans in the baseline…")?.set_id("histogram-base-readout");
    }
    if let Some(index) = detail.graph_pass_index {
        let button = dom.add(root, "button", "Show its graph pass in Structure")?;
        let _ = button.set_attribute("type", "button");
        let _ = button.set_attribute("data-action", "show-gp");
        let _ = button.set_attribute("data-value", &index.to_string());
    }
    let facts = dom.add(root, "dl", "")?;
    let frame = frame_number.map_or_else(|| "this frame".to_owned(), |n| format!("frame {n}"));
    let durations = if detail.durations.is_empty() {
        "no span in this frame".to_owned()
    } else {
        detail.durations.iter().map(|&d| units::exact_ns(d)).collect::<Vec<_>>().join(", ")
    };
    for (label, value) in [
        ("Duration in ".to_owned() + &frame, durations),
        ("Dispatches".to_owned(), count_or_absent(detail.dispatches, detail.workload_not_recorded)),
        ("Draws".to_owned(), count_or_absent(detail.draws, detail.workload_not_recorded)),
        ("Invocations".to_owned(), detail.invocations_text()),
    ] {
        dom.add(&facts, "dt", &label)?;
        dom.add(&facts, "dd", &value)?;
    }
    if !detail.attachments.is_empty() {
        dom.add(root, "h3", "Attachments")?;
        let list = dom.add(root, "ul", "")?;
        for attachment in &detail.attachments {
            dom.add(&list, "li", attachment)?;
        }
    }
    if let Some(level) = detail.workload_not_recorded {
        dom.add(root, "p", &format!("Level {level} records no dispatches or draws."))?;
    } else if detail.commands.is_empty() {
        dom.add(
            root,
            "p",
            "No dispatches or draws were recorded for this pass. A pass the recorder did not begin (timed through the wgpu-profiler bridge or a pass timer) has its time only: the capture's notes say which.",
        )?;
    } else {
        dom.add(root, "h3", "Commands")?;
        let mut headers =
            vec![("Command", false), ("Pipeline", false), ("Workgroup", false), ("Work", true), ("Indirect", false)];
        if level_verbose {
            headers.push(("Bindings", false));
        }
        let table = dom.table(root, &headers)?;
        for command in &detail.commands {
            let work = command.work.map_or_else(|| "unknown".to_owned(), units::grouped);
            let bindings = command.bindings.join(", ");
            let mut cells = vec![
                (command.what.as_str(), false),
                (command.pipeline.as_str(), false),
                (command.workgroup.as_str(), false),
                (work.as_str(), true),
                (command.indirect.as_str(), false),
            ];
            if level_verbose {
                cells.push((bindings.as_str(), false));
            }
            dom.row(&table, &cells)?;
        }
    }
    Ok(Some(canvas))
}

/// The Compare view while the baseline `name` is read, the candidate already shown.
pub fn compare_waiting(dom: &Dom, root: &Element, name: &str) -> Result<(), Error> {
    clear(root);
    dom.add_class(root, "p", "muted", &format!("Reading the baseline {name}; the comparison starts once it is open."))?;
    Ok(())
}

/// The Compare view: the two ranges (or the baseline's and the candidate's), then the
/// engine's verdicts, each shift's interval drawn as a bar around zero with the practical
/// threshold marked. `base` names the baseline when two captures are open.
pub fn compare(
    dom: &Dom,
    root: &Element,
    ranges: ((u64, u64), (u64, u64)),
    view: Option<&CompareView>,
    progress: Option<f64>,
    base: Option<&str>,
) -> Result<(), Error> {
    clear(root);
    let ((a0, a1), (b0, b1)) = ranges;
    let (side_a, side_b) = match base {
        Some(_) => ("Baseline: frames", "Candidate: frames"),
        None => ("A: frames", "B: frames"),
    };
    if let Some(name) = base {
        dom.add_class(root, "p", "muted", &format!("Baseline (A): {name}. Candidate (B): the capture shown."))?;
    }
    let controls = dom.add_class(root, "div", "controls", "")?;
    for (id, label, value) in
        [("cmp-a0", side_a, a0), ("cmp-a1", "to", a1), ("cmp-b0", side_b, b0), ("cmp-b1", "to", b1)]
    {
        let l = dom.add(&controls, "label", &format!("{label} "))?;
        let input = dom.add(&l, "input", "")?;
        input.set_id(id);
        let _ = input.set_attribute("type", "number");
        let _ = input.set_attribute("min", "0");
        let _ = input.set_attribute("value", &value.to_string());
    }
    let button = dom.add(&controls, "button", "Compare")?;
    let _ = button.set_attribute("type", "button");
    let _ = button.set_attribute("data-action", "compare");
    let Some(view) = view else {
        let text = progress.map_or_else(|| "Computing…".to_owned(), |p| format!("Computing… {:.0} %", p * 100.0));
        dom.add(root, "p", &text)?;
        return Ok(());
    };
    if let Some(text) = view.skipped_text() {
        dom.add_class(root, "p", "warning", &text)?;
    }
    let counts: Vec<String> = view.counts.iter().map(|(verdict, n)| format!("{n} {}", verdict.name())).collect();
    dom.add(root, "h3", &format!("B against A: {}", counts.join(", ")))?;
    dom.add_class(
        root,
        "p",
        "note",
        &format!(
            "Shifts are B − A in the median: positive is slower in B. A pass is slower or faster only when its interval clears the threshold (the grey marks) after the correction; where the data cannot decide, it says inconclusive and why. {}",
            view.method
        ),
    )?;
    if !view.reasons.is_empty() {
        // Each reason once, numbered as the Why column numbers the rows that give it.
        dom.add_class(root, "p", "reasons-head", "Why, by the number in each row's Why column:")?;
        let list = dom.add_class(root, "ol", "reasons", "")?;
        for reason in &view.reasons {
            let rows = units::counted(reason.rows as u64, "row");
            dom.add(&list, "li", &format!("{} ({rows})", reason.text))?;
        }
    }
    let table = dom.table(
        root,
        &[
            ("Pass", false),
            ("Verdict", false),
            ("Median A", true),
            ("Median B", true),
            ("Shift", true),
            ("Interval", true),
            ("", false),
            ("Why", true),
        ],
    )?;
    table.set_class_name("compare");
    for row in std::iter::once(&view.frame).chain(view.rows.iter().take(MAX_ROWS)) {
        let tr = dom.row(
            &table,
            &[
                (&row.name, false),
                (row.verdict.name(), false),
                (&row.median_a, true),
                (&row.median_b, true),
                (&row.delta, true),
                (&row.interval, true),
            ],
        )?;
        tr.set_class_name(&format!("verdict-{}", row.verdict.name()));
        if let Some(reason) = &row.reason
            && let Ok(Some(cell)) = tr.query_selector("td:nth-child(2)")
        {
            let _ = cell.set_attribute("title", reason);
        }
        let cell = dom.add_class(&tr, "td", "interval-cell", "")?;
        let track = dom.add_class(&cell, "span", "interval-track", "")?;
        let _ = track.set_attribute("role", "img");
        let _ = track.set_attribute(
            "aria-label",
            &match row.bar {
                Some(_) => format!("interval {}", row.interval),
                None => "no interval".to_owned(),
            },
        );
        for (class, at) in
            [("zero", 0.5), ("threshold", 0.5 - view.threshold_at), ("threshold", 0.5 + view.threshold_at)]
        {
            let mark = dom.add_class(&track, "span", class, "")?;
            set_left(&mark, at, None);
        }
        if let Some((lo, hi)) = row.bar {
            let bar = dom.add_class(&track, "span", "bar", "")?;
            set_left(&bar, lo, Some(hi - lo));
        }
        let why = dom.add_class(&tr, "td", "num", &row.note.map(|note| note.to_string()).unwrap_or_default())?;
        if let Some(reason) = &row.reason {
            let _ = why.set_attribute("title", reason);
        }
    }
    if view.rows.len() > MAX_ROWS {
        dom.add(root, "p", &format!("Not shown: {} more passes.", view.rows.len() - MAX_ROWS))?;
    }
    Ok(())
}

/// Places `element` at `left` (and `width`) fractions of its track, through the style
/// object (the page's CSP allows no style attributes).
fn set_left(element: &Element, left: f64, width: Option<f64>) {
    if let Some(element) = element.dyn_ref::<web_sys::HtmlElement>() {
        let style = element.style();
        let _ = style.set_property("left", &format!("{:.2}%", left * 100.0));
        if let Some(width) = width {
            let _ = style.set_property("width", &format!("{:.2}%", (width * 100.0).max(0.5)));
        }
    }
}

/// Appends a table of string cells; numeric columns are right-aligned. Returns the table.
fn string_table<const N: usize>(
    dom: &Dom,
    root: &Element,
    id: &str,
    headers: &[(&str, bool); N],
    rows: impl IntoIterator<Item = [String; N]>,
) -> Result<Element, Error> {
    let table = dom.table(root, headers)?;
    table.set_id(id);
    for cells in rows {
        let cells: Vec<(&str, bool)> =
            cells.iter().zip(headers).map(|(text, (_, numeric))| (text.as_str(), *numeric)).collect();
        dom.row(&table, &cells)?;
    }
    Ok(table)
}

pub fn memory(dom: &Dom, root: &Element, view: Option<&MemoryView>) -> Result<(), Error> {
    clear(root);
    let Some(view) = view.filter(|view| !view.is_empty()) else {
        dom.add(root, "p", "No memory records in this capture.")?;
        return Ok(());
    };
    for line in &view.losses {
        dom.add_class(root, "p", "warning", line)?.set_attribute("data-testid", "memory-loss")?;
    }
    dom.add_class(root, "p", "note", &view.source_text())?;
    if view.is_reading() {
        dom.add_class(root, "p", "muted", "Reading the per-frame memory gauges and providers…")?;
    }
    if let Some(text) = view.sampling_text() {
        dom.add_class(root, "p", "muted", &text)?;
    }
    if !view.domains.is_empty() {
        dom.add(root, "h3", "Domains")?;
        string_table(
            dom,
            root,
            "memory-domains",
            &[
                ("Domain", false),
                ("Live", true),
                ("Peak", true),
                ("Allocated", true),
                ("Freed", true),
                ("Allocations", true),
                ("Frees", true),
                ("Failures", true),
                ("Validity", false),
            ],
            view.domains.iter().map(domain_cells),
        )?;
    }
    if !view.series().is_empty() {
        dom.add(root, "h3", "Live bytes over frames")?;
        dom.add_class(
            root,
            "p",
            "muted",
            "Per domain, across every frame as in the frame strip (min–max per column); the red line is the frame shown.",
        )?;
        for (index, series) in view.series().iter().enumerate() {
            let row = dom.add_class(root, "div", "memory-series", "")?;
            dom.add_class(&row, "span", "muted", &clip(&series.name))?;
            let canvas = dom.add_class(&row, "canvas", "spark memory-spark", "")?;
            canvas.set_attribute("data-series", &index.to_string())?;
        }
    }
    if let Some(gauges) = view.gauges.as_ref().filter(|g| !g.providers.is_empty()) {
        dom.add(root, "h3", "Providers")?;
        dom.add_class(
            root,
            "p",
            "muted",
            "Memory facts owned outside the domains. Each is its own quantity: never added to another or to the domains. One no frame sampled is unavailable, not 0.",
        )?;
        string_table(
            dom,
            root,
            "memory-providers",
            &[
                ("Provider", false),
                ("Unit", false),
                ("Last", true),
                ("Min", true),
                ("Max", true),
                ("Frames sampled", true),
                ("Why unavailable", false),
            ],
            gauges.providers.iter().map(|p| provider_cells(&p.summary, gauges.frames_read)),
        )?;
    }
    for pair in &view.pairs {
        dom.add(root, "h3", &pair.heading())?;
        if !pair.exact {
            dom.add_class(
                root,
                "p",
                "warning",
                "A live set here is not exact (loss before the checkpoint): this difference proves no leak.",
            )?;
        }
        if pair.expectation_violated {
            dom.add_class(
                root,
                "p",
                "warning",
                &format!("{} expected its blocks released, and new blocks remain live.", pair.to),
            )?;
        }
        for (title, rows, count) in [
            ("Survivors, oldest first", &pair.survivors, pair.counts[2]),
            ("New live", &pair.new_live, pair.counts[0]),
            ("Released", &pair.released, pair.counts[1]),
        ] {
            if rows.is_empty() {
                continue;
            }
            dom.add_class(root, "p", "muted", title)?;
            let survivors = title.starts_with("Survivors");
            let mut headers = vec![("Lifetime", false), ("Domain", false), ("Site", false), ("Size", true)];
            if survivors {
                headers.push(("Age", true));
            }
            let table = dom.table(root, &headers)?;
            table.set_class_name(if survivors { "memory-survivors" } else { "memory-blocks" });
            for row in rows {
                let size = byte_text(Some(row.size));
                let age = row.age_text();
                let mut cells = vec![
                    (row.lifetime.as_str(), false),
                    (row.domain.as_str(), false),
                    (row.site.as_str(), false),
                    (size.as_str(), true),
                ];
                if survivors {
                    cells.push((age.as_str(), true));
                }
                dom.row(&table, &cells)?;
            }
            if count > rows.len() {
                dom.add(root, "p", &format!("Not shown: {} more blocks.", count - rows.len()))?;
            }
        }
    }
    if view.records > 0 {
        dom.add(root, "h3", "Reconciliation")?;
        let status = dom.add_class(
            root,
            "p",
            if view.reconciliation.status == ReconciliationStatus::Mismatch { "warning" } else { "note" },
            &reconciliation_text(&view.reconciliation),
        )?;
        status.set_attribute("data-testid", "memory-reconciliation")?;
        status.set_attribute("data-status", view.reconciliation.status.as_str())?;
        if !view.reconciliation.domains.is_empty() {
            string_table(
                dom,
                root,
                "memory-reconciliation",
                &[("Domain", false), ("Counters' live", true), ("Terminal live set", true), ("Journal net", true)],
                reconciliation_cells(&view.reconciliation),
            )?;
        }
    }
    if !view.sites.is_empty() {
        dom.add(root, "h3", "Sites by allocated bytes")?;
        string_table(
            dom,
            root,
            "memory-sites",
            &[
                ("Site", false),
                ("Location", false),
                ("Allocations", true),
                ("Allocated", true),
                ("Frees", true),
                ("Freed", true),
                ("Failures", true),
            ],
            view.sites.iter().map(site_cells),
        )?;
        if view.site_count > view.sites.len() {
            dom.add(root, "p", &format!("Not shown: {} more sites.", view.site_count - view.sites.len()))?;
        }
    }
    if !view.sizes.is_empty() {
        dom.add(root, "h3", "Allocation sizes")?;
        dom.add_class(root, "p", "muted", "Power-of-two buckets over every journal; failures are not allocations.")?;
        string_table(
            dom,
            root,
            "memory-sizes",
            &[("From", true), ("To", true), ("Allocations", true), ("Bytes", true)],
            view.sizes.iter().map(size_cells),
        )?;
    }
    Ok(())
}

/// The memory lane's legend: one swatch and name per domain, and the shared scale.
pub fn memory_lane_legend(dom: &Dom, root: &Element, lane: Option<&MemoryLane>) -> Result<(), Error> {
    clear(root);
    let Some(lane) = lane else {
        dom.add(root, "span", "Memory lane: reading the domain gauges…")?;
        return Ok(());
    };
    for (index, name) in lane.names.iter().enumerate() {
        let item = dom.add(root, "span", "")?;
        let swatch = dom.add_class(&item, "i", "swatch", "")?;
        if let Some(swatch) = JsCast::dyn_ref::<web_sys::HtmlElement>(&swatch) {
            // CSSOM, not a style attribute: allowed by the page's CSP.
            let _ = swatch.style().set_property("background", MemoryLane::color(index));
        }
        item.append_with_str_1(name)?;
    }
    dom.add(root, "span", &lane.scale_text())?;
    Ok(())
}

pub fn notes(dom: &Dom, root: &Element, notes: &[(u64, String)], omitted: usize) -> Result<(), Error> {
    clear(root);
    if notes.is_empty() {
        dom.add(root, "p", "No notes.")?;
        return Ok(());
    }
    let table = dom.table(root, &[("Frame", true), ("Note", false)])?;
    for (frame, text) in notes {
        let tr = dom.row(&table, &[(&frame.to_string(), true), (text, false)])?;
        Dom::action(&tr, "frame", &frame.to_string());
    }
    if omitted > 0 {
        dom.add(root, "p", &format!("Not shown: {omitted} more notes."))?;
    }
    Ok(())
}

pub fn defects(dom: &Dom, root: &Element, defects: &Rows<DefectRow>, verified: bool) -> Result<(), Error> {
    clear(root);
    if defects.shown.is_empty() {
        dom.add(root, "p", if verified { "None found." } else { "None found so far." })?;
    } else {
        let table = dom.table(root, &[("Kind", false), ("Offset", false), ("Detail", false)])?;
        for defect in &defects.shown {
            dom.row(&table, &[(defect.kind, false), (&defect.offset_hex(), false), (&defect.detail, false)])?;
        }
        if defects.omitted > 0 {
            dom.add(root, "p", &format!("Not shown: {} more defects.", defects.omitted))?;
        }
    }
    if !verified {
        dom.add(root, "p", "Decoding every frame to find the rest…")?;
    }
    Ok(())
}

pub fn summary(dom: &Dom, root: &Element, name: &str, summary: &Summary) -> Result<(), Error> {
    clear(root);
    dom.add(root, "h2", name)?;
    let facts = dom.add(root, "dl", "")?;
    for (label, value) in summary.facts() {
        dom.add(&facts, "dt", label)?;
        dom.add(&facts, "dd", &value)?;
    }
    let passes = &summary.passes;
    let Some(heading) = summary.pass_heading() else {
        dom.add(root, "h3", "Passes")?;
        dom.add(root, "p", "The capture holds no topology.")?;
        return Ok(());
    };
    dom.add(root, "h3", &heading)?;
    let table = dom.table(root, &[("Graph pass", false), ("GPU passes", false)])?;
    for row in &passes.rows {
        let tr = dom.row(&table, &[])?;
        match &row.graph_pass {
            Some(name) => dom.add(&tr, "td", name)?,
            None => dom.add_class(&tr, "td", "unnamed", "outside any graph pass")?,
        };
        let list = dom.add(&dom.add(&tr, "td", "")?, "ul", "")?;
        for label in &row.gpu_passes {
            // An empty label is legal; show that it is empty rather than an empty line.
            let item = dom.add(&list, "li", if label.is_empty() { "(no label)" } else { label })?;
            if label.is_empty() {
                item.set_class_name("unnamed");
            }
        }
    }
    if let Some(note) = passes.omitted_note() {
        dom.add(root, "p", &note)?;
    }
    Ok(())
}

/// The shown frame in the details pane: its facts and its workload, pass by pass (a row
/// selects the pass).
pub fn frame_detail(dom: &Dom, root: &Element, detail: Option<&FrameDetail>) -> Result<(), Error> {
    clear(root);
    let Some(detail) = detail else { return Ok(()) };
    dom.add(root, "h3", &detail.heading)?;
    let facts = dom.add(root, "dl", "")?;
    for (label, value) in &detail.facts {
        dom.add(&facts, "dt", label)?;
        dom.add(&facts, "dd", value)?;
    }
    dom.add(root, "h3", &detail.workload_heading)?;
    if let Some(note) = &detail.workload_note {
        dom.add_class(root, "p", "muted", note)?;
        return Ok(());
    }
    let table = dom.table(root, &[("Pass", false), ("Dispatches", true), ("Draws", true), ("Invocations", true)])?;
    table.set_class_name("workload");
    for row in detail.workload.iter().take(MAX_ROWS) {
        let tr = dom.row(
            &table,
            &[
                (&row.name, false),
                (&row.dispatches.to_string(), true),
                (&row.draws.to_string(), true),
                (&row.invocations, true),
            ],
        )?;
        if let Ok(Some(cell)) = tr.query_selector("td:first-child") {
            dom.text_breaking_after_slashes(&cell, &row.name)?;
        }
        if let Ok(Some(cell)) = tr.query_selector("td:last-child") {
            let _ = cell.set_attribute("title", &row.invocations_title);
        }
        Dom::action(&tr, "pass", &row.pass.to_string());
    }
    Ok(())
}

/// The selected graph pass or resource in the details pane (a structure row, or a search
/// result): its facts and links, from the shown frame's structure.
pub fn selection_detail(
    dom: &Dom,
    root: &Element,
    structure: Option<&Structure>,
    graph_pass: Option<u32>,
    node: Option<u32>,
) -> Result<(), Error> {
    clear(root);
    let Some(structure) = structure else { return Ok(()) };
    let node_label =
        |index: &u32| structure.nodes.get(*index as usize).map_or_else(|| format!("#{index}"), |n| n.label.clone());
    let pass_name =
        |index: &u32| structure.passes.get(*index as usize).map_or_else(|| format!("#{index}"), |p| p.name.clone());
    let list = |items: Vec<String>| if items.is_empty() { "none".to_owned() } else { items.join(", ") };
    let (heading, facts, action, value) = if let Some(pass) = graph_pass.and_then(|g| structure.passes.get(g as usize))
    {
        let state = match (pass.culled, pass.side_effects) {
            (true, _) => "culled in this frame",
            (false, true) => "live (has side effects, never culled)",
            (false, false) => "live",
        };
        let facts = vec![
            ("Scope", if pass.scope.is_empty() { "none".to_owned() } else { pass.scope.clone() }),
            ("State", state.to_owned()),
            ("Consumers", pass.ref_count.to_string()),
            ("Reads", list(pass.reads.iter().map(node_label).collect())),
            ("Writes", list(pass.writes.iter().map(node_label).collect())),
            ("Creates", list(pass.creates.iter().map(node_label).collect())),
            ("GPU passes", list(pass.gpu_passes.clone())),
        ];
        (format!("Graph pass {}", pass.name), facts, "show-gp", pass.index)
    } else if let Some(row) = node.and_then(|n| structure.nodes.get(n as usize)) {
        let facts = vec![
            ("Declared", units::bytes(row.declared_bytes)),
            ("Kind", if row.imported { "imported" } else { "transient" }.to_owned()),
            ("Description", row.desc.clone()),
            ("Produced by", list(row.producers.iter().map(pass_name).collect())),
            ("Read by", list(row.readers.iter().map(pass_name).collect())),
        ];
        (format!("Resource {}", row.label), facts, "show-node", row.index)
    } else {
        return Ok(());
    };
    dom.add(root, "h3", &heading)?;
    let dl = dom.add(root, "dl", "")?;
    for (label, value) in facts {
        dom.add(&dl, "dt", label)?;
        dom.add(&dl, "dd", &value)?;
    }
    let button = dom.add(root, "button", "Show in Structure")?;
    let _ = button.set_attribute("type", "button");
    let _ = button.set_attribute("data-action", action);
    let _ = button.set_attribute("data-value", &value.to_string());
    Ok(())
}
