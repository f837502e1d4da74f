// Real work for the timed pass: every element runs ROUNDS steps of an LCG plus an xorshift,
// so the pass lasts long enough to measure and the result proves every element was visited.
// `measure.rs` recomputes the last element on the CPU; keep ROUNDS equal to its constant.
const ROUNDS: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> data: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&data)) {
        return;
    }
    var x = i;
    for (var k = 0u; k < ROUNDS; k++) {
        x = x * 1664525u + 1013904223u;
        x ^= x >> 16u;
    }
    data[i] = x;
}
