//! What the example programs under `examples/` share, so each program holds only itself:
//! the headless device they run on, how their tests record and the checks they make on a
//! capture, and the count of the lines each program spends on the recorder.

mod capture_checks;
mod device;
mod integration_lines;
mod recording;

pub use capture_checks::{
    assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, assert_timed_only_pass, open, passes_of,
};
pub use device::{DeviceError, Gpu, device, gpu_or_skip};
pub use integration_lines::{IntegrationLines, assert_readme_states_integration_lines, integration_lines};
pub use recording::record_workload;
