//! The memory lane: a compact graph under the frame strip with one line per domain's live
//! bytes, on the strip's x mapping (frame `i` of `n` spans `[i/n, (i+1)/n)`), so the strip's
//! brush and selection read on it too. Layout and hover text here; drawing in `web`.
//!
//! The lines share one byte scale and are never stacked: peaks of different domains
//! happened at different moments, and a sum of them is no process peak.

use sgpt_format::memory_analysis::{FrameSampler, Gauges};

use crate::memory::byte_text;
use crate::summary::clip;

/// One color per domain, cycled; distinct from the strip's GPU, CPU and hitch colors.
pub const COLORS: [&str; 8] = ["#0f9d8a", "#c2410c", "#7c3aed", "#0284c7", "#be185d", "#4d7c0f", "#a16207", "#475569"];

/// The lane's model: each domain's live bytes at the sampled frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryLane {
    /// Domain names, clipped, in the capture's order.
    pub names: Vec<String>,
    sampler: FrameSampler,
    /// Per domain, live bytes per sampled position.
    live: Vec<Vec<Option<u64>>>,
    /// The top of the shared scale: the largest live bytes of any domain at any frame read.
    pub max_bytes: u64,
}

impl MemoryLane {
    /// `None` when the capture has no domain gauges.
    #[must_use]
    pub fn new(gauges: &Gauges) -> Option<Self> {
        if gauges.domains.is_empty() {
            return None;
        }
        let live: Vec<Vec<Option<u64>>> = gauges.domains.iter().map(|d| d.live_bytes.clone()).collect();
        let max_bytes = live.iter().flatten().flatten().copied().max().unwrap_or(0);
        Some(Self {
            names: gauges.domains.iter().map(|d| clip(&d.name)).collect(),
            sampler: gauges.sampler,
            live,
            max_bytes,
        })
    }

    #[must_use]
    pub fn color(domain: usize) -> &'static str {
        COLORS[domain % COLORS.len()]
    }

    /// Frames in the capture (the strip's frames).
    #[must_use]
    pub fn frames(&self) -> usize {
        self.sampler.frames()
    }

    /// Domain `domain`'s line as runs of consecutive sampled frames with a reading, each
    /// point `(x, y)`: x the frame's centre as a fraction of the width, y a fraction of the
    /// height from the bottom. A frame without a reading breaks the line; nothing is
    /// drawn across it.
    #[must_use]
    pub fn lines(&self, domain: usize) -> Vec<Vec<(f64, f64)>> {
        let Some(values) = self.live.get(domain) else { return Vec::new() };
        let frames = self.frames().max(1) as f64;
        let scale = self.max_bytes.max(1) as f64;
        let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
        let mut open = false;
        for (position, value) in values.iter().enumerate() {
            match (value, self.sampler.frame(position)) {
                (Some(value), Some(frame)) => {
                    let point = ((frame as f64 + 0.5) / frames, *value as f64 / scale);
                    match runs.last_mut() {
                        Some(run) if open => run.push(point),
                        _ => runs.push(vec![point]),
                    }
                    open = true;
                }
                _ => open = false,
            }
        }
        runs
    }

    /// What the pointer at `x` (a fraction of the width) reads: the frame and each domain's
    /// live bytes there. On a sampled capture, the nearest frame read, and it says so.
    #[must_use]
    pub fn readout(&self, x: f64, frame_numbers: &[u64]) -> Option<String> {
        if !(0.0..=1.0).contains(&x) || self.frames() == 0 {
            return None;
        }
        let index = ((x * self.frames() as f64) as usize).min(self.frames() - 1);
        let position = self.sampler.nearest(index)?;
        let frame = self.sampler.frame(position)?;
        let number = frame_numbers.get(frame)?;
        let near = if frame == index {
            String::new()
        } else {
            format!(" (the nearest frame read: gauges are read from 1 frame in {})", self.sampler.stride())
        };
        let parts: Vec<String> = self
            .names
            .iter()
            .zip(&self.live)
            .map(|(name, values)| format!("{name} {}", byte_text(values.get(position).copied().flatten())))
            .collect();
        Some(format!("frame {number}{near} · live bytes: {}", parts.join(", ")))
    }

    /// The shared scale, for the legend.
    #[must_use]
    pub fn scale_text(&self) -> String {
        format!(
            "live bytes per domain on one scale, 0 to {}; lines are never stacked or summed",
            byte_text(Some(self.max_bytes))
        )
    }
}

#[cfg(test)]
mod tests {
    use sgpt_format::Capture;
    use sgpt_format::memory_analysis::DomainGauges;

    use super::*;
    use crate::memory::{MemoryView, sampler};

    fn fixture_lane() -> MemoryLane {
        // A frozen v1 record, no longer generated: read as committed.
        let bytes =
            std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/v1/memory.sgpt")).expect("memory fixture");
        let view = MemoryView::new(&Capture::open(&bytes).expect("opens"));
        MemoryLane::new(view.gauges.as_ref().expect("read")).expect("domains")
    }

    #[test]
    fn one_line_per_domain_on_the_strips_x_mapping_and_one_shared_scale() {
        let lane = fixture_lane();
        assert_eq!(lane.names, ["scene", "particles", "scratch"]);
        // The largest single reading, not a sum: scene's 5 120 B.
        assert_eq!(lane.max_bytes, 5120);
        let scene = lane.lines(0);
        assert_eq!(scene.len(), 1, "every frame has a reading");
        let xs: Vec<f64> = scene[0].iter().map(|p| p.0).collect();
        assert_eq!(xs, [0.0625, 0.1875, 0.3125, 0.4375, 0.5625, 0.6875, 0.8125, 0.9375]);
        let ys: Vec<f64> = scene[0].iter().map(|p| p.1).collect();
        assert_eq!(ys, [0.8, 1.0, 0.0, 0.0, 0.0, 0.8, 1.0, 1.0]);
        assert_eq!(lane.lines(1)[0].last(), Some(&(0.9375, 0.15)));
        assert!(lane.lines(3).is_empty());
        assert_eq!(MemoryLane::color(9), COLORS[1]);
    }

    #[test]
    fn hovering_reads_each_domains_live_bytes_at_that_frame() {
        let lane = fixture_lane();
        let numbers: Vec<u64> = (0..8).collect();
        assert_eq!(
            lane.readout(0.0, &numbers).as_deref(),
            Some("frame 0 · live bytes: scene 4\u{2009}096 B, particles 0 B, scratch 0 B")
        );
        assert_eq!(
            lane.readout(0.99, &numbers).as_deref(),
            Some("frame 7 · live bytes: scene 5\u{2009}120 B, particles 768 B, scratch 0 B")
        );
        assert_eq!(lane.readout(1.2, &numbers), None);
    }

    #[test]
    fn a_gap_breaks_the_line_and_a_sampled_capture_names_the_frame_read() {
        let gauges = Gauges {
            sampler: sampler(10_000),
            domains: vec![DomainGauges {
                name: "ui".into(),
                live_bytes: (0..sampler(10_000).len()).map(|p| (p % 3 != 1).then_some(p as u64)).collect(),
                ..DomainGauges::default()
            }],
            providers: Vec::new(),
            frames_read: 2049,
            undecoded: 0,
        };
        let lane = MemoryLane::new(&gauges).expect("a domain");
        let runs = lane.lines(0);
        assert_eq!(runs[0].len(), 1);
        assert_eq!(runs[1].len(), 2);
        assert_eq!(lane.max_bytes, 2000);
        let numbers: Vec<u64> = (100..10_100).collect();
        // Frame 7 is not read; frame 5 (position 1, no reading) is the nearest.
        assert_eq!(
            lane.readout(0.0007, &numbers).as_deref(),
            Some("frame 105 (the nearest frame read: gauges are read from 1 frame in 5) · live bytes: ui not recorded")
        );
        assert_eq!(lane.readout(0.0, &numbers).as_deref(), Some("frame 100 · live bytes: ui 0 B"));
        assert!(MemoryLane::new(&Gauges { domains: Vec::new(), ..gauges }).is_none());
    }
}
