//! A profile's per-track summary of drained entries.

use super::entry::Drained;
use super::track;

/// Tolerance for "starts before the previous one ended": tiled phases share their
/// boundary exactly, but User Timing keeps a measure's start and duration to the
/// microsecond, so a read-back boundary can move by that much.
const OVERLAP_EPSILON_MS: f64 = 1e-3;

/// One track's figures over a profile.
#[derive(Clone, Debug, PartialEq)]
pub struct TrackSummary {
    pub track: String,
    pub count: usize,
    pub total_ms: f64,
    pub mean_ms: f64,
    /// `total_ms` over the [`track::FRAME`] track's total; `None` when the track's spans
    /// overlap (concurrent work, whose sum is not a share of anything) or when no frame
    /// was timed.
    pub share: Option<f64>,
    /// Whether two of the track's spans overlap.
    pub concurrent: bool,
}

/// Summarizes `entries` per track, in order of first appearance.
///
/// Overlap is detected from the data, span by span, never from a list of track names, so
/// a track added later classifies itself (a share of overlapping queue waits
/// once came out at 58,767 %).
#[must_use]
pub fn summarize(entries: &[Drained]) -> Vec<TrackSummary> {
    let mut tracks: Vec<(&str, Vec<&Drained>)> = Vec::new();
    for entry in entries {
        match tracks.iter_mut().find(|(name, _)| *name == entry.track) {
            Some((_, spans)) => spans.push(entry),
            None => tracks.push((&entry.track, vec![entry])),
        }
    }
    let mut summaries: Vec<TrackSummary> = tracks
        .into_iter()
        .map(|(name, mut spans)| {
            // Ends break ties: on a coarse clock many spans start on the same reading, and
            // a zero-length one there precedes, not overlaps, its neighbour.
            spans.sort_by(|a, b| {
                a.start_ms
                    .total_cmp(&b.start_ms)
                    .then((a.start_ms + a.duration_ms).total_cmp(&(b.start_ms + b.duration_ms)))
            });
            let mut concurrent = false;
            let mut reach = f64::NEG_INFINITY;
            for span in &spans {
                concurrent |= span.start_ms < reach - OVERLAP_EPSILON_MS;
                reach = reach.max(span.start_ms + span.duration_ms);
            }
            let total_ms: f64 = spans.iter().map(|span| span.duration_ms).sum();
            TrackSummary {
                track: name.to_owned(),
                count: spans.len(),
                total_ms,
                mean_ms: total_ms / spans.len() as f64,
                share: None,
                concurrent,
            }
        })
        .collect();
    let frame_total = summaries
        .iter()
        .find(|summary| summary.track == track::FRAME.name && !summary.concurrent)
        .map(|summary| summary.total_ms)
        .filter(|total| *total > 0.0);
    if let Some(frame_total) = frame_total {
        for summary in summaries.iter_mut().filter(|summary| !summary.concurrent) {
            summary.share = Some(summary.total_ms / frame_total);
        }
    }
    summaries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(track: &str, start_ms: f64, duration_ms: f64) -> Drained {
        Drained { name: "x".to_owned(), track: track.to_owned(), start_ms, duration_ms, properties: Vec::new() }
    }

    #[test]
    fn shares_are_of_the_frame_total_and_overlapping_tracks_have_none() {
        let entries = [
            span("Frame", 0.0, 16.0),
            span("Frame", 16.0, 16.0),
            span("Engine", 1.0, 4.0),
            span("Engine", 17.0, 4.0),
            // Two waits that overlap each other, as a worker queue's do.
            span("Queue wait", 2.0, 30.0),
            span("Queue wait", 5.0, 30.0),
        ];
        let summary = summarize(&entries);
        let names: Vec<&str> = summary.iter().map(|s| s.track.as_str()).collect();
        assert_eq!(names, ["Frame", "Engine", "Queue wait"]);
        assert_eq!(summary[0].share, Some(1.0));
        assert_eq!(summary[1].total_ms, 8.0);
        assert_eq!(summary[1].mean_ms, 4.0);
        assert_eq!(summary[1].share, Some(0.25));
        assert!(summary[2].concurrent);
        assert_eq!(summary[2].share, None);
        assert_eq!(summary[2].total_ms, 60.0);
    }

    #[test]
    fn abutting_spans_do_not_overlap_and_no_frame_means_no_share() {
        // The second start read back a microsecond early, as User Timing's rounding can.
        let summary = summarize(&[
            span("Engine phases", 0.0, 1.5),
            span("Engine phases", 1.4995, 2.5),
            // On a 100 µs clock, a phase shorter than a step reads zero long, on the start
            // of the next one; listed after it, as a drain may return them.
            span("Engine phases", 4.0, 0.1),
            span("Engine phases", 4.0, 0.0),
        ]);
        assert!(!summary[0].concurrent);
        assert_eq!(summary[0].share, None);
        assert_eq!(summary[0].count, 4);
    }
}
