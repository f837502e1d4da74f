// Each point of the wave is one instance of a small square, read from storage.

@group(0) @binding(0) var<storage, read> points: array<vec2f>;

@vertex
fn vertex(@builtin(vertex_index) corner: u32, @builtin(instance_index) point: u32) -> @builtin(position) vec4f {
    var corners = array(vec2f(-1.0, -1.0), vec2f(1.0, -1.0), vec2f(-1.0, 1.0), vec2f(-1.0, 1.0), vec2f(1.0, -1.0), vec2f(1.0, 1.0));
    return vec4f(points[point] + corners[corner] * 0.008, 0.0, 1.0);
}

@fragment
fn fragment() -> @location(0) vec4f {
    return vec4f(0.95, 0.8, 0.2, 1.0);
}
