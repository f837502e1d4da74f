// Advances one job's counters by its step: each job owns its buffer, so the jobs'
// encoders can be recorded on any threads and submitted in any order.

@group(0) @binding(0) var<storage, read_write> counters: array<u32>;

@compute @workgroup_size(64)
fn step(@builtin(global_invocation_id) id: vec3u) {
    if id.x < arrayLength(&counters) {
        counters[id.x] += id.x % 7u + 1u;
    }
}
