// Bloom (threshold, down chain, additive up chain) and tonemapping, as fullscreen triangles.

struct Out {
    @builtin(position) position: vec4f,
    @location(0) uv: vec2f,
}

@vertex
fn vs_fullscreen(@builtin(vertex_index) vertex: u32) -> Out {
    let uv = vec2f(f32((vertex << 1u) & 2u), f32(vertex & 2u));
    var out: Out;
    out.position = vec4f(uv * vec2f(2.0, -2.0) + vec2f(-1.0, 1.0), 0.0, 1.0);
    out.uv = uv;
    return out;
}

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var linear: sampler;

@fragment
fn fs_threshold(in: Out) -> @location(0) vec4f {
    let c = textureSample(source, linear, in.uv).rgb;
    let luma = dot(c, vec3f(0.2126, 0.7152, 0.0722));
    return vec4f(c * max(luma - 1.0, 0.0), 1.0);
}

@fragment
fn fs_blur(in: Out) -> @location(0) vec4f {
    let texel = 1.0 / vec2f(textureDimensions(source));
    var sum = vec3f(0.0);
    for (var y = -1; y <= 1; y++) {
        for (var x = -1; x <= 1; x++) {
            sum += textureSample(source, linear, in.uv + vec2f(f32(x), f32(y)) * texel).rgb;
        }
    }
    return vec4f(sum / 9.0, 1.0);
}

@group(0) @binding(2) var bloom: texture_2d<f32>;

@fragment
fn fs_tonemap(in: Out) -> @location(0) vec4f {
    let hdr = textureSample(source, linear, in.uv).rgb + textureSample(bloom, linear, in.uv).rgb * 0.5;
    return vec4f(hdr / (hdr + 1.0), 1.0);
}
