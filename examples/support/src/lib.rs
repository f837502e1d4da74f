//! What the example programs under `examples/` share, so each program holds only itself:
//! the headless device they run on, the checks their tests make on a capture, and the
//! count of the lines each program spends on the recorder.

mod capture_checks;
mod device;
mod integration_lines;

pub use capture_checks::{
    assert_encoder_spans_contain_their_passes, assert_every_pass_timed, assert_frames_follow_each_other,
    assert_no_stale_spans, open, passes_of,
};
pub use device::{DeviceError, Gpu, device, gpu_or_skip};
pub use integration_lines::{IntegrationLines, integration_lines};
