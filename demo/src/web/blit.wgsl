// Shows the scene's output on the canvas: one fullscreen triangle sampling the copy.

struct Out {
    @builtin(position) position: vec4f,
    @location(0) uv: vec2f,
}

@vertex
fn vs_blit(@builtin(vertex_index) vertex: u32) -> Out {
    let uv = vec2f(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    var out: Out;
    out.position = vec4f(uv * vec2f(2.0, -2.0) + vec2f(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    return out;
}

@group(0) @binding(0) var image: texture_2d<f32>;
@group(0) @binding(1) var linear: sampler;

@fragment
fn fs_blit(in: Out) -> @location(0) vec4f {
    return vec4f(textureSample(image, linear, in.uv).rgb, 1.0);
}
