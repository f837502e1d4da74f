//! The synthetic captures of every shape that the exactness tests run over: timing,
//! quantized, verbose and workload.

use sgpt_format::Level;
use sgpt_format::synth::SynthOptions;

/// Each shape's name and its options.
pub fn shapes() -> [(&'static str, SynthOptions); 4] {
    [
        ("timing", SynthOptions { frames: 240, passes: 40, ..SynthOptions::default() }),
        ("quantized", SynthOptions { frames: 240, passes: 40, quantize_ns: Some(100_000), ..SynthOptions::default() }),
        (
            "verbose",
            SynthOptions { frames: 120, passes: 30, level: Level::Verbose, seed: 7, ..SynthOptions::default() },
        ),
        (
            "workload",
            SynthOptions { frames: 90, passes: 25, level: Level::Workload, seed: 3, ..SynthOptions::default() },
        ),
    ]
}
