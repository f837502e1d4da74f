//! The GPU timestamp path on a real Vulkan adapter: Mesa's lavapipe in CI.
#![cfg(not(target_arch = "wasm32"))]

use sgpt_gpu_smoke::{SmokeError, measure_compute_pass};

#[test]
fn compute_pass_timestamps_are_positive_and_ordered() {
    let measurement = match pollster::block_on(measure_compute_pass()) {
        Ok(m) => m,
        Err(e @ (SmokeError::NoAdapter { .. } | SmokeError::NoTimestampQuery { .. })) => {
            // CI installs mesa-vulkan-drivers, so there a missing adapter is a failure.
            assert!(std::env::var("CI").as_deref() != Ok("true"), "CI=true but the GPU smoke test cannot run: {e}");
            eprintln!("skipping the GPU smoke test: {e} (install mesa-vulkan-drivers)");
            return;
        }
        Err(e) => panic!("GPU timestamp path failed: {e}"),
    };
    eprintln!("{measurement}");
    assert!(measurement.end_ns > measurement.begin_ns, "{measurement}");
    assert!(measurement.duration_ns > 0, "{measurement}");
    assert_eq!(measurement.duration_ns, measurement.end_ns - measurement.begin_ns);
    assert_eq!(measurement.backend, wgpu::Backend::Vulkan);
    assert!(measurement.timestamp_period > 0.0);
    assert!(!measurement.adapter.is_empty());
}
