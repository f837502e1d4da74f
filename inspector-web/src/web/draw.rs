//! Painting the frame strip and the timeline on their canvases, from the layouts the
//! native modules compute. Nothing here decides what to show; it only paints it.

use web_sys::CanvasRenderingContext2d;

use super::canvas::Canvas;
use crate::histogram::HistogramLayout;
use crate::icicle::{IcicleLayout, NodeId, NodeKind};
use crate::memory_lane::MemoryLane;
use crate::strip::{BUDGETS_NS, StripData, StripLayout};
use crate::timeline::{self, BlockKind, ROW_PX, TimelineModel, Viewport};
use crate::units;

/// Height of the time axis above the timeline's tracks, CSS pixels.
pub const AXIS_PX: f64 = 18.0;

struct Palette {
    text: &'static str,
    muted: &'static str,
    grid: &'static str,
    selection: &'static str,
}

/// Whether the page is dark: the theme the reader chose, else the system's.
pub fn is_dark() -> bool {
    let chosen = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|root| root.get_attribute("data-theme"));
    match chosen.as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches()),
    }
}

fn palette() -> Palette {
    let dark = is_dark();
    if dark {
        Palette {
            text: "#e8e8e8",
            muted: "#9a9a9a",
            grid: "rgba(255,255,255,0.12)",
            selection: "rgba(120,170,255,0.25)",
        }
    } else {
        Palette { text: "#1a1a1a", muted: "#666", grid: "rgba(0,0,0,0.10)", selection: "rgba(30,100,220,0.16)" }
    }
}

pub const GPU: &str = "#2f7ed8";
pub const CPU: &str = "#e08a1e";
pub const HITCH: &str = "#d32f2f";
pub const DROPPED: &str = "#8e24aa";

/// Paints the strip; `range` and `frame` are frame indices.
pub fn strip(
    canvas: &Canvas,
    data: &StripData,
    layout: &StripLayout,
    range: Option<(usize, usize)>,
    frame: Option<usize>,
    brush: Option<(f64, f64)>,
) {
    let ctx = canvas.begin();
    let (w, h) = (canvas.width.get(), canvas.height.get());
    let colors = palette();
    let plot_top = 8.0;
    let plot_h = (h - plot_top - 6.0).max(1.0);
    let n = layout.columns.len().max(1) as f64;
    let col_w = w / n;
    let frames = data.len();
    if let Some((first, last)) = range.filter(|&(first, last)| first > 0 || last + 1 < frames) {
        ctx.set_fill_style_str(colors.selection);
        let (x0, _) = layout.x_of(first, frames);
        let (_, x1) = layout.x_of(last, frames);
        ctx.fill_rect(x0 * w, 0.0, (x1 - x0) * w, h);
    }
    // One colour at a time rather than column by column: with a column per pixel, setting
    // the fill style was most of the cost. Only a column's CPU mark overlaps its GPU bar,
    // and it is still painted after it.
    let columns = || layout.columns.iter().enumerate().map(|(index, column)| (index as f64 * col_w, column));
    for hitch in [false, true] {
        ctx.set_fill_style_str(if hitch { HITCH } else { GPU });
        for (x, column) in columns().filter(|(_, column)| column.hitch == hitch) {
            let gpu_h = layout.height(column.max_gpu_ns) * plot_h;
            ctx.fill_rect(x, plot_top + plot_h - gpu_h, col_w.max(1.0) - if col_w > 3.0 { 1.0 } else { 0.0 }, gpu_h);
        }
    }
    ctx.set_fill_style_str(CPU);
    for (x, column) in columns() {
        let cpu_y = plot_top + plot_h - layout.height(column.max_cpu_ns) * plot_h;
        ctx.fill_rect(x, cpu_y - 1.0, col_w.max(1.0), 2.0);
    }
    ctx.set_fill_style_str(DROPPED);
    for (x, _) in columns().filter(|(_, column)| column.dropped) {
        ctx.fill_rect(x, plot_top + plot_h + 1.0, col_w.max(2.0), 5.0);
    }
    ctx.set_fill_style_str(HITCH);
    for (x, _) in columns().filter(|(_, column)| column.hitch) {
        ctx.fill_rect(x, 0.0, col_w.max(2.0), 5.0);
    }
    ctx.set_stroke_style_str(colors.muted);
    ctx.set_line_width(1.0);
    let dashes = js_sys::Array::of2(&4.0.into(), &4.0.into());
    let _ = ctx.set_line_dash(&dashes);
    ctx.set_font("11px system-ui, sans-serif");
    for budget in BUDGETS_NS {
        if budget > layout.scale_ns {
            continue;
        }
        let y = (plot_top + plot_h - layout.height(budget) * plot_h).round() + 0.5;
        ctx.begin_path();
        ctx.move_to(0.0, y);
        ctx.line_to(w, y);
        ctx.stroke();
        ctx.set_fill_style_str(colors.muted);
        let _ = ctx.fill_text(&units::duration(budget), 4.0, y - 3.0);
    }
    let _ = ctx.set_line_dash(&js_sys::Array::new());
    if let Some(frame) = frame {
        let (x0, x1) = layout.x_of(frame, frames);
        ctx.set_fill_style_str(colors.text);
        ctx.fill_rect(((x0 + x1) / 2.0 * w).floor() - 0.5, 0.0, 2.0, h);
    }
    if let Some((a, b)) = brush {
        ctx.set_fill_style_str(colors.selection);
        ctx.fill_rect(a.min(b) * w, 0.0, (a - b).abs() * w, h);
    }
}

/// Paints the memory lane under the strip, with the strip's selection, frame and brush:
/// one line per domain on one shared scale (never stacked), or a note while the gauges
/// are still being read.
pub fn memory_lane(
    canvas: &Canvas,
    lane: Option<&MemoryLane>,
    frames: usize,
    range: Option<(usize, usize)>,
    frame: Option<usize>,
    brush: Option<(f64, f64)>,
) {
    let ctx = canvas.begin();
    let (w, h) = (canvas.width.get(), canvas.height.get());
    let colors = palette();
    let x_of = |index: usize| index as f64 / frames.max(1) as f64;
    if let Some((first, last)) = range.filter(|&(first, last)| first > 0 || last + 1 < frames) {
        ctx.set_fill_style_str(colors.selection);
        ctx.fill_rect(x_of(first) * w, 0.0, (x_of(last + 1) - x_of(first)) * w, h);
    }
    ctx.set_fill_style_str(colors.grid);
    ctx.fill_rect(0.0, h - 1.0, w, 1.0);
    let (top, bottom) = (4.0, h - 2.0);
    let plot_h = (bottom - top).max(1.0);
    match lane {
        None => {
            ctx.set_fill_style_str(colors.muted);
            ctx.set_font("11px system-ui, sans-serif");
            let _ = ctx.fill_text("reading memory gauges…", 4.0, 14.0);
        }
        Some(lane) => {
            ctx.set_line_width(1.5);
            let _ = ctx.set_line_dash(&js_sys::Array::new());
            for domain in 0..lane.names.len() {
                let color = MemoryLane::color(domain);
                ctx.set_stroke_style_str(color);
                ctx.set_fill_style_str(color);
                for run in lane.lines(domain) {
                    let point = |(x, y): (f64, f64)| (x * w, bottom - y * plot_h);
                    if let [single] = run.as_slice() {
                        // A reading between gaps: a dot, not a line to nowhere.
                        let (x, y) = point(*single);
                        ctx.fill_rect(x - 1.0, y - 1.0, 2.0, 2.0);
                        continue;
                    }
                    ctx.begin_path();
                    for (index, &p) in run.iter().enumerate() {
                        let (x, y) = point(p);
                        if index == 0 {
                            ctx.move_to(x, y);
                        } else {
                            ctx.line_to(x, y);
                        }
                    }
                    ctx.stroke();
                }
            }
        }
    }
    if let Some(frame) = frame {
        ctx.set_fill_style_str(colors.text);
        ctx.fill_rect(((x_of(frame) + x_of(frame + 1)) / 2.0 * w).floor() - 0.5, 0.0, 2.0, h);
    }
    if let Some((a, b)) = brush {
        ctx.set_fill_style_str(colors.selection);
        ctx.fill_rect(a.min(b) * w, 0.0, (a - b).abs() * w, h);
    }
}

/// Paints the timeline of `model` in `viewport`; returns the CSS height it needs.
pub fn timeline(
    canvas: &Canvas,
    model: &TimelineModel,
    viewport: &Viewport,
    hover: Option<usize>,
    selected: Option<usize>,
) -> f64 {
    let ctx = canvas.begin();
    let w = canvas.width.get();
    let colors = palette();
    let (tops, height) = model.track_tops();
    ctx.set_font("11px ui-monospace, monospace");
    // Axis and grid.
    for tick in timeline::ticks(viewport, (w / 110.0).max(2.0)) {
        let x = (viewport.x_of(tick.ns) * w).round() + 0.5;
        ctx.set_fill_style_str(colors.grid);
        ctx.fill_rect(x, AXIS_PX - 4.0, 1.0, height + 4.0);
        ctx.set_fill_style_str(colors.muted);
        let _ = ctx.fill_text(&tick.label, x + 3.0, 11.0);
    }
    ctx.save();
    let _ = ctx.translate(0.0, AXIS_PX);
    for (track, top) in model.tracks.iter().zip(&tops) {
        ctx.set_fill_style_str(colors.text);
        ctx.set_font("600 11px system-ui, sans-serif");
        let title = if track.cpu {
            if model.anchored_at_submit {
                format!(
                    "{} — nominal alignment: CPU submit placed at the first GPU timestamp; the clocks are not synchronised",
                    track.title
                )
            } else {
                format!(
                    "{} — nominal alignment: CPU frame begin at the first GPU timestamp; the clocks are not synchronised",
                    track.title
                )
            }
        } else {
            track.title.clone()
        };
        let _ = ctx.fill_text(&title, 4.0, top - 4.0);
    }
    ctx.set_font("11px ui-monospace, monospace");
    for rect in timeline::layout(model, viewport, w) {
        let block = &model.blocks[rect.block];
        let lane_shift = if model.tracks[block.track].cpu { 0 } else { (block.track % 3) as u8 };
        let fill = color(block.kind, lane_shift);
        if block.kind == BlockKind::CpuMark {
            ctx.set_fill_style_str(fill);
            ctx.fill_rect(rect.x.round() - 1.0, rect.y, 2.0, ROW_PX * f64::from(model.tracks[block.track].rows));
            continue;
        }
        ctx.set_fill_style_str(fill);
        ctx.fill_rect(rect.x, rect.y + 1.0, rect.w, ROW_PX - 2.0);
        if Some(rect.block) == selected || Some(rect.block) == hover {
            ctx.set_stroke_style_str(colors.text);
            ctx.set_line_width(if Some(rect.block) == selected { 2.0 } else { 1.0 });
            ctx.stroke_rect(rect.x + 0.5, rect.y + 1.5, (rect.w - 1.0).max(1.0), ROW_PX - 3.0);
        }
        if !rect.text.is_empty() {
            ctx.set_fill_style_str("#fff");
            let _ = ctx.fill_text(&rect.text, rect.x.max(0.0) + 3.0, rect.y + 13.0);
        }
    }
    ctx.restore();
    height + AXIS_PX
}

fn color(kind: BlockKind, lane: u8) -> &'static str {
    match (kind, lane) {
        (BlockKind::Scope, _) => "#6b7280",
        (BlockKind::GraphPass, _) => "#0f766e",
        (BlockKind::GpuPass, 0) => "#2563eb",
        (BlockKind::GpuPass, 1) => "#7c3aed",
        (BlockKind::GpuPass, _) => "#0369a1",
        (BlockKind::SubPass, _) => "#0891b2",
        (BlockKind::CpuFrame, _) => "#b45309",
        (BlockKind::CpuPass, _) => "#d97706",
        (BlockKind::CpuMark, _) => "#dc2626",
    }
}

/// Paints a sparkline of per-bucket (min, max) values, with a marker at `at` (0..1).
pub fn sparkline(ctx: &CanvasRenderingContext2d, w: f64, h: f64, points: &[Option<(u64, u64)>], at: Option<f64>) {
    let max = points.iter().flatten().map(|p| p.1).max().unwrap_or(1).max(1) as f64;
    let step = w / points.len().max(1) as f64;
    ctx.set_fill_style_str(GPU);
    for (index, point) in points.iter().enumerate() {
        if let Some((lo, hi)) = point {
            let (y0, y1) = (h - *hi as f64 / max * (h - 2.0), h - *lo as f64 / max * (h - 2.0));
            ctx.fill_rect(index as f64 * step, y0, step.max(1.0), (y1 - y0).max(1.5));
        }
    }
    if let Some(at) = at {
        ctx.set_fill_style_str(HITCH);
        ctx.fill_rect((at * w).floor(), 0.0, 1.5, h);
    }
}

fn icicle_color(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Root => "#4b5563",
        NodeKind::Scope => "#6b7280",
        NodeKind::GraphPass => "#0f766e",
        NodeKind::GpuPass => "#2563eb",
        NodeKind::SubPass => "#0891b2",
    }
}

/// Paints the range flame graph's `layout`, outlining `hover` and `selected`.
pub fn icicle(canvas: &Canvas, layout: &IcicleLayout, hover: Option<NodeId>, selected: Option<NodeId>) {
    let ctx = canvas.begin();
    let colors = palette();
    ctx.set_font("11px ui-monospace, monospace");
    for rect in &layout.rects {
        ctx.set_global_alpha(if rect.context { 0.55 } else { 1.0 });
        ctx.set_fill_style_str(icicle_color(rect.kind));
        ctx.fill_rect(rect.x, rect.y + 1.0, (rect.width - 1.0).max(0.5), rect.height - 2.0);
        ctx.set_global_alpha(1.0);
        if rect.short {
            // Measured less than its parts: hatched so it is not read as a measurement.
            ctx.set_stroke_style_str(HITCH);
            ctx.set_line_width(1.0);
            ctx.stroke_rect(rect.x + 0.5, rect.y + 1.5, (rect.width - 2.0).max(0.5), rect.height - 3.0);
        }
        if Some(rect.node) == selected || Some(rect.node) == hover {
            ctx.set_stroke_style_str(colors.text);
            ctx.set_line_width(if Some(rect.node) == selected { 2.0 } else { 1.0 });
            ctx.stroke_rect(rect.x + 0.5, rect.y + 1.5, (rect.width - 2.0).max(0.5), rect.height - 3.0);
        }
        if !rect.label.is_empty() {
            ctx.set_fill_style_str("#fff");
            let _ = ctx.fill_text(&rect.label, rect.x + 3.0, rect.y + rect.height / 2.0 + 4.0);
        }
    }
}

/// Paints a pass's histogram: bars, the 0 ns bar apart, median and p95 lines, axis labels.
pub fn histogram(ctx: &CanvasRenderingContext2d, w: f64, h: f64, layout: &HistogramLayout, hover: Option<usize>) {
    let colors = palette();
    ctx.clear_rect(0.0, 0.0, w, h);
    for (index, bar) in layout.bars.iter().enumerate() {
        ctx.set_fill_style_str(if bar.zero { DROPPED } else { GPU });
        ctx.set_global_alpha(if Some(index) == hover { 0.7 } else { 1.0 });
        ctx.fill_rect(bar.x, bar.y, bar.width.max(1.0), bar.height);
    }
    ctx.set_global_alpha(1.0);
    ctx.set_font("10px ui-monospace, monospace");
    for marker in &layout.markers {
        ctx.set_fill_style_str(if marker.name == "median" { colors.text } else { HITCH });
        ctx.fill_rect(marker.x.floor(), 0.0, 1.5, h - 12.0);
        let _ = ctx.fill_text(
            marker.name,
            (marker.x + 3.0).min(w - 40.0),
            if marker.name == "median" { 10.0 } else { 22.0 },
        );
    }
    ctx.set_fill_style_str(colors.muted);
    for label in &layout.labels {
        let _ = ctx.fill_text(&label.text, (label.x - 20.0).clamp(0.0, (w - 50.0).max(0.0)), h - 1.0);
    }
}
