//! The frame strip: GPU and CPU frame time per frame, from the directory alone, so it
//! paints before any frame is decoded. Layout and hit testing here; drawing in `web`.

use sgpt_format::FrameEntry;

/// The 60 Hz and 30 Hz budgets the strip draws as lines.
pub const BUDGETS_NS: [u64; 2] = [16_666_667, 33_333_333];

/// A frame is a hitch when its GPU or CPU time is over this many times the capture's
/// median of that time (and over 1 ms, so idle captures mark nothing).
pub const HITCH_FACTOR: u64 = 2;

/// The per-frame numbers the strip needs, copied out of the index (28 bytes a frame).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StripData {
    pub frame_numbers: Vec<u64>,
    pub gpu_ns: Vec<u64>,
    pub cpu_ns: Vec<u64>,
    pub dropped: Vec<u32>,
    pub median_gpu_ns: u64,
    pub median_cpu_ns: u64,
}

impl StripData {
    #[must_use]
    pub fn from_index(frames: &[FrameEntry]) -> Self {
        let mut strip = Self::columns(frames);
        strip.find_median_gpu();
        strip.find_median_cpu();
        strip
    }

    /// The columns alone, medians 0 until found: [`StripData::from_index`] in parts, for
    /// a caller that gives each part a task of its own (on eight hours of frames, the walk
    /// and each median are tens of ms).
    #[must_use]
    pub fn columns(frames: &[FrameEntry]) -> Self {
        // One walk over the index (56 bytes an entry) fills the four columns.
        let mut strip = Self {
            frame_numbers: Vec::with_capacity(frames.len()),
            gpu_ns: Vec::with_capacity(frames.len()),
            cpu_ns: Vec::with_capacity(frames.len()),
            dropped: Vec::with_capacity(frames.len()),
            median_gpu_ns: 0,
            median_cpu_ns: 0,
        };
        for frame in frames {
            strip.frame_numbers.push(frame.frame_number);
            strip.gpu_ns.push(frame.gpu_duration_ns);
            strip.cpu_ns.push(frame.cpu_duration_ns);
            strip.dropped.push(frame.dropped_spans);
        }
        strip
    }

    /// Finds the GPU frame times' median, which hitches are judged against.
    pub fn find_median_gpu(&mut self) {
        self.median_gpu_ns = median(&self.gpu_ns);
    }

    /// Finds the CPU frame times' median, which hitches are judged against.
    pub fn find_median_cpu(&mut self) {
        self.median_cpu_ns = median(&self.cpu_ns);
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.frame_numbers.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.frame_numbers.is_empty()
    }

    #[must_use]
    pub fn is_hitch(&self, index: usize) -> bool {
        let over = |value: u64, median: u64| value > 1_000_000 && value > median.saturating_mul(HITCH_FACTOR);
        over(self.gpu_ns[index], self.median_gpu_ns) || over(self.cpu_ns[index], self.median_cpu_ns)
    }

    /// The index of frame number `number`, if present.
    #[must_use]
    pub fn index_of(&self, number: u64) -> Option<usize> {
        self.frame_numbers.binary_search(&number).ok()
    }

    /// How many hitches the capture has.
    #[must_use]
    pub fn hitch_count(&self) -> usize {
        (0..self.len()).filter(|&index| self.is_hitch(index)).count()
    }
}

fn median(values: &[u64]) -> u64 {
    if values.is_empty() {
        return 0;
    }
    let mut sorted = values.to_vec();
    let middle = (sorted.len() - 1) / 2;
    *sorted.select_nth_unstable(middle).1
}

/// One pixel column of the strip: the frames it covers and their worst times, so a
/// single hitch among thousands of frames per pixel is never averaged away.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Column {
    pub first: usize,
    /// One past the last frame.
    pub end: usize,
    pub max_gpu_ns: u64,
    pub max_cpu_ns: u64,
    pub dropped: bool,
    pub hitch: bool,
}

/// The strip laid out for a width in device pixels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StripLayout {
    pub columns: Vec<Column>,
    /// The time at the top of the plot.
    pub scale_ns: u64,
}

impl StripLayout {
    /// Columns of at least one device pixel: one per frame when frames are fewer than pixels.
    #[must_use]
    pub fn new(data: &StripData, width_px: u32) -> Self {
        let n = data.len();
        let width = width_px.max(1) as usize;
        let count = n.min(width);
        let mut columns = Vec::with_capacity(count);
        for column in 0..count {
            let (first, end) = (column * n / count, (column + 1) * n / count);
            let mut out = Column { first, end, ..Column::default() };
            for index in first..end {
                out.max_gpu_ns = out.max_gpu_ns.max(data.gpu_ns[index]);
                out.max_cpu_ns = out.max_cpu_ns.max(data.cpu_ns[index]);
                out.dropped |= data.dropped[index] > 0;
                out.hitch |= data.is_hitch(index);
            }
            columns.push(out);
        }
        // Room for the worst frame, but never so much that a single outlier flattens the
        // rest: at most 4× the larger median; taller bars are clipped and marked.
        let largest = columns.iter().map(|c| c.max_gpu_ns.max(c.max_cpu_ns)).max().unwrap_or(0);
        let typical = data.median_gpu_ns.max(data.median_cpu_ns).max(1);
        let scale = largest.min(typical.saturating_mul(4)).max(BUDGETS_NS[0] + BUDGETS_NS[0] / 5);
        Self { columns, scale_ns: scale }
    }

    /// The column under `x` (0 ≤ x < 1, a fraction of the width).
    #[must_use]
    pub fn column_at(&self, x: f64) -> Option<&Column> {
        if self.columns.is_empty() || !(0.0..=1.0).contains(&x) {
            return None;
        }
        let at = ((x * self.columns.len() as f64) as usize).min(self.columns.len() - 1);
        self.columns.get(at)
    }

    /// The frame under `x`: the column's worst GPU frame, so clicking a spike opens it.
    #[must_use]
    pub fn frame_at(&self, data: &StripData, x: f64) -> Option<usize> {
        let column = self.column_at(x)?;
        (column.first..column.end).max_by_key(|&index| (data.gpu_ns[index].max(data.cpu_ns[index]), usize::MAX - index))
    }

    /// The frames between two x positions, inclusive of both ends' columns.
    #[must_use]
    pub fn range_between(&self, a: f64, b: f64) -> Option<(usize, usize)> {
        let (low, high) = if a <= b { (a, b) } else { (b, a) };
        let first = self.column_at(low.clamp(0.0, 1.0))?;
        let last = self.column_at(high.clamp(0.0, 1.0))?;
        Some((first.first, last.end - 1))
    }

    /// The x fraction where frame `index` starts and ends.
    #[must_use]
    pub fn x_of(&self, index: usize, frames: usize) -> (f64, f64) {
        if frames == 0 {
            return (0.0, 0.0);
        }
        (index as f64 / frames as f64, (index + 1) as f64 / frames as f64)
    }

    /// A bar's height as a fraction of the plot, clipped at 1.
    #[must_use]
    pub fn height(&self, ns: u64) -> f64 {
        (ns as f64 / self.scale_ns.max(1) as f64).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(number: u64, gpu_ms: u64, dropped: u32) -> FrameEntry {
        FrameEntry {
            frame_number: number,
            gpu_duration_ns: gpu_ms * 1_000_000,
            cpu_duration_ns: 5_000_000,
            dropped_spans: dropped,
            ..FrameEntry::default()
        }
    }

    fn data() -> StripData {
        let frames: Vec<FrameEntry> =
            (0..1000).map(|n| entry(100 + n, if n == 500 { 90 } else { 8 }, u32::from(n == 7) * 3)).collect();
        StripData::from_index(&frames)
    }

    #[test]
    fn hitches_are_frames_over_twice_the_median() {
        let data = data();
        assert_eq!(data.median_gpu_ns, 8_000_000);
        assert!(data.is_hitch(500));
        assert!(!data.is_hitch(499));
        assert_eq!(data.hitch_count(), 1);
        assert_eq!(data.index_of(600), Some(500));
        assert_eq!(data.index_of(99), None);
    }

    #[test]
    fn columns_keep_the_worst_frame_and_marks() {
        let data = data();
        let layout = StripLayout::new(&data, 100);
        assert_eq!(layout.columns.len(), 100);
        let spike = &layout.columns[50];
        assert_eq!((spike.first, spike.end), (500, 510));
        assert_eq!(spike.max_gpu_ns, 90_000_000);
        assert!(spike.hitch);
        assert!(layout.columns[0].dropped && !layout.columns[1].dropped);
        // The scale is capped at 4× the median, so the 90 ms spike is clipped.
        assert_eq!(layout.scale_ns, 32_000_000);
        assert!((layout.height(90_000_000) - 1.0).abs() < f64::EPSILON);
        assert_eq!(layout.frame_at(&data, 0.505), Some(500));
    }

    #[test]
    fn fewer_frames_than_pixels_give_one_column_each() {
        let data = data();
        let layout = StripLayout::new(&data, 4000);
        assert_eq!(layout.columns.len(), 1000);
        assert_eq!(layout.frame_at(&data, 0.0), Some(0));
        assert_eq!(layout.frame_at(&data, 0.9999), Some(999));
        assert_eq!(layout.range_between(0.2, 0.1), Some((100, 200)));
        assert_eq!(layout.column_at(1.5), None);
    }
}
