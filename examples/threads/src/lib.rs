//! A headless frame whose compute work is split into jobs, each encoded on its own worker
//! thread (`std::thread::scope`) into its own command encoder. The workers get a clone of
//! the session's [`Recorder`] handle: `&self` scopes, no `&mut ProfileSession` to share.
//! The frame submits the encoders in the reverse of the order the jobs were made, through
//! `FrameScope::submit`, which resolves each encoder first.
//!
//! The lines the recorder takes are marked `// [sgpt +]` (only there for it) or
//! `// [sgpt ~]` (written otherwise without it); the test counts them.

use sgpt_recorder::{FrameScope, PipelineInfo, ProfileSession, RecordError, Recorder}; // [sgpt +]

/// Jobs in a frame, one worker thread each.
pub const JOBS: usize = 3;
/// `@workgroup_size` of the compute entry point.
pub const WORKGROUP_SIZE: u32 = 64;

const STEP_WGSL: &str = include_str!("shaders/step.wgsl");

/// One job: its counters and the bind group over them.
#[derive(Debug)]
struct Job {
    name: String,
    label: String,
    group: wgpu::BindGroup,
    workgroups: u32,
}

/// Job `job`'s counters: each job a different size, so each dispatch is its own.
#[must_use]
pub fn counters(job: usize) -> u32 {
    256 * (job as u32 + 1)
}

/// The jobs and the pipeline they share.
#[derive(Debug)]
pub struct Jobs {
    step: wgpu::ComputePipeline,
    jobs: Vec<Job>,
}

impl Jobs {
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("step.wgsl"),
            source: wgpu::ShaderSource::Wgsl(STEP_WGSL.into()),
        });
        let step = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("step"),
            layout: None,
            module: &module,
            entry_point: Some("step"),
            compilation_options: wgpu::PipelineCompilationOptions::default(),
            cache: None,
        });
        let jobs = (0..JOBS)
            .map(|job| {
                let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("counters"),
                    size: u64::from(counters(job)) * 4,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("counters"),
                    layout: &step.get_bind_group_layout(0),
                    entries: &[wgpu::BindGroupEntry { binding: 0, resource: buffer.as_entire_binding() }],
                });
                let workgroups = counters(job).div_ceil(WORKGROUP_SIZE);
                Job { name: format!("job {job}"), label: format!("step {job}"), group, workgroups }
            })
            .collect();
        Self { step, jobs }
    }

    /// Names the pipeline in the capture, with the workgroup size its WGSL declares.
    pub fn describe(&self, session: &mut ProfileSession) {
        // [sgpt +]
        let step = // [sgpt +]
            PipelineInfo { label: "step", shader_module: "step.wgsl", entry_point: "step", wgsl: Some(STEP_WGSL) }; // [sgpt +]
        session.describe_compute_pipeline(&self.step, &step); // [sgpt +]
    } // [sgpt +]

    /// Encodes every job on its own worker thread, then submits the encoders in reverse.
    pub fn frame(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        session: Option<&mut ProfileSession>, // [sgpt +]
    ) -> Result<(), RecordError> {
        // [sgpt ~]
        let mut frame = FrameScope::begin(session)?; // [sgpt +]
        // A handle to no session when not recording: the workers' code stays the same.
        let recorder = frame.session().map_or_else(Recorder::default, |session| session.recorder()); // [sgpt +]
        let mut encoders: Vec<wgpu::CommandEncoder> = std::thread::scope(|threads| {
            let workers: Vec<_> = self
                .jobs
                .iter()
                .map(|job| {
                    let recorder = recorder.clone(); // [sgpt +]
                    threads.spawn(move || self.encode(device, job, &recorder)) // [sgpt ~]
                })
                .collect();
            workers.into_iter().map(|worker| worker.join().expect("a worker encodes")).collect()
        });
        encoders.reverse();
        frame.submit(queue, encoders).map(drop) // [sgpt ~]
    }

    /// One job's encoder: a graph pass of its own holding its compute pass.
    fn encode(&self, device: &wgpu::Device, job: &Job, recorder: &Recorder) -> wgpu::CommandEncoder {
        // [sgpt ~]
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some(&job.name) });
        {
            let mut scope = recorder.graph_pass(&job.name, &mut encoder); // [sgpt +]
            let mut pass = scope.scoped_compute_pass(&job.label); // [sgpt ~]
            pass.compute_pipeline(&self.step); // [sgpt ~]
            pass.set_bind_group(0, &job.group, &[]);
            pass.dispatch(job.workgroups, 1, 1); // [sgpt ~]
        }
        encoder
    }
}
