//! The comparison reuses what it has worked out (each side's selected order statistics,
//! its buffers from one pass to the next): its report must not depend on that. Samples
//! from the scan in 1, 2, 3 and 7 chunks, from the collector, compared at once, a pass at
//! a time, repeatedly and in either direction, all give the same report.

use sgpt_format::analysis::scan::{ScanOptions, scan};
use sgpt_format::compare::{CompareOptions, Comparison, ComparisonJob, Samples, compare};
use sgpt_format::synth::{Drift, SynthChanges, SynthOptions, workload_with};
use sgpt_format::{Capture, Level};

fn bytes(options: &SynthOptions, changes: &SynthChanges) -> Vec<u8> {
    workload_with(options, changes).write(Vec::new()).expect("writing into a Vec succeeds")
}

fn stepwise(a: &Samples, b: &Samples, options: &CompareOptions) -> Comparison {
    let mut job = ComparisonJob::new(a.clone(), b.clone(), options);
    // One stage of a test a step, as the inspector yields between them.
    loop {
        let mut left = 1;
        if job.step(&mut || std::mem::take(&mut left) > 0) {
            break;
        }
    }
    job.finish()
}

#[test]
fn reports_do_not_depend_on_chunks_order_of_work_or_reuse() {
    let drift = Drift { sigma: 0.015, frames: 30.0 };
    let cases = [
        (SynthOptions { frames: 600, passes: 40, level: Level::Timing, seed: 1, quantize_ns: None }, 0.1),
        (SynthOptions { frames: 900, passes: 20, level: Level::Verbose, seed: 4, quantize_ns: None }, 0.05),
        (SynthOptions { frames: 600, passes: 20, level: Level::Timing, seed: 2, quantize_ns: Some(100_000) }, 0.2),
    ];
    for (options, by) in cases {
        let a = SynthChanges { run: Some(1), drift: Some(drift), ..SynthChanges::default() };
        let b = SynthChanges { run: Some(2), slow_pass: Some(("simulation.pass2".into(), by)), ..a.clone() };
        let [a, b] = [a, b].map(|changes| bytes(&options, &changes));
        let [a, b] = [&a, &b].map(|bytes| Capture::open(bytes).expect("opens"));
        let [collected_a, collected_b] = [&a, &b].map(|capture| Samples::collect(capture, 0..capture.frames().len()));
        for engine in [CompareOptions::default(), CompareOptions { block_frames: Some(1), ..CompareOptions::default() }]
        {
            let expected = compare(&collected_a, &collected_b, &engine);
            assert_eq!(stepwise(&collected_a, &collected_b, &engine), expected, "{options:?}: a stage at a time");
            assert_eq!(compare(&collected_a, &collected_b, &engine), expected, "{options:?}: again");
            let reversed = compare(&collected_b, &collected_a, &engine);
            assert_eq!(stepwise(&collected_b, &collected_a, &engine), reversed, "{options:?}: reversed");
            for chunks in [1, 2, 3, 7] {
                let scan_options = ScanOptions { chunks, frame_timing: false, samples: true, ..ScanOptions::default() };
                let [scanned_a, scanned_b] = [&a, &b]
                    .map(|capture| scan(capture, 0..capture.frames().len(), &scan_options).samples.expect("asked"));
                assert_eq!(compare(&scanned_a, &scanned_b, &engine), expected, "{options:?}: {chunks} chunks");
            }
        }
    }
}
