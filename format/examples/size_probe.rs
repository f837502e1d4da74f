use sgpt_format::synth::{SynthOptions, generate};
use sgpt_format::{Capture, Level};
fn main() {
    for (level, q) in [(Level::Timing, None), (Level::Timing, Some(100_000)), (Level::Structure, None), (Level::Workload, None), (Level::Verbose, None)] {
        let options = SynthOptions { level, quantize_ns: q, ..SynthOptions::default() };
        let bytes = generate(&options);
        let capture = Capture::open(&bytes).unwrap();
        let spans = capture.span_count();
        println!("{level:?} q={q:?}: {} bytes, {} spans, {:.3} B/span, topologies {}, defects {:?}", bytes.len(), spans, bytes.len() as f64 / spans as f64, capture.topology_count(), capture.verify());
    }
}
