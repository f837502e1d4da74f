// Places each point of the wave at this frame's time, read from the uniform the upload
// encoder copied in.

@group(0) @binding(0) var<uniform> time: vec4f;
@group(0) @binding(1) var<storage, read_write> points: array<vec2f>;

@compute @workgroup_size(32)
fn integrate(@builtin(global_invocation_id) id: vec3u) {
    let count = arrayLength(&points);
    if id.x >= count {
        return;
    }
    let x = (f32(id.x) + 0.5) / f32(count) * 2.0 - 1.0;
    points[id.x] = vec2f(x, 0.5 * sin(time.x * 3.0 + x * 6.0));
}
