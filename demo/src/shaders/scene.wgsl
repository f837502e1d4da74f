// Instanced cubes: shadow cascades (depth only) and the main pass.

struct Globals {
    time: f32,
    aspect: f32,
    grid: u32,
    particles: u32,
}

@group(0) @binding(0) var<uniform> g: Globals;

const CORNERS = array<vec3f, 8>(
    vec3f(-1.0, -1.0, -1.0), vec3f(1.0, -1.0, -1.0), vec3f(1.0, 1.0, -1.0), vec3f(-1.0, 1.0, -1.0),
    vec3f(-1.0, -1.0, 1.0), vec3f(1.0, -1.0, 1.0), vec3f(1.0, 1.0, 1.0), vec3f(-1.0, 1.0, 1.0),
);
const INDICES = array<u32, 36>(
    0u, 2u, 1u, 0u, 3u, 2u, 4u, 5u, 6u, 4u, 6u, 7u, 0u, 1u, 5u, 0u, 5u, 4u,
    3u, 6u, 2u, 3u, 7u, 6u, 0u, 4u, 7u, 0u, 7u, 3u, 1u, 2u, 6u, 1u, 6u, 5u,
);

fn instance_offset(i: u32) -> vec3f {
    let x = f32(i % g.grid) - f32(g.grid) * 0.5;
    let z = f32(i / g.grid) - f32(g.grid) * 0.5;
    return vec3f(x * 3.0, 1.0 + sin(g.time + f32(i)) * 0.5, z * 3.0);
}

fn world(vertex: u32, instance: u32) -> vec3f {
    return CORNERS[INDICES[vertex]] + instance_offset(instance);
}

// Perspective camera orbiting the grid; depth in [0, 1].
fn camera_clip(p: vec3f) -> vec4f {
    let a = g.time * 0.2;
    let c = cos(a);
    let s = sin(a);
    let v = vec3f(c * p.x - s * p.z, p.y - 6.0, s * p.x + c * p.z + 40.0);
    let near = 0.5;
    let far = 200.0;
    let f = 1.5;
    return vec4f(v.x * f / g.aspect, v.y * f, v.z * far / (far - near) - near * far / (far - near), v.z);
}

// Orthographic light from above; each cascade covers three times the last.
fn light_clip(p: vec3f, cascade: u32) -> vec4f {
    let extent = 12.0 * pow(3.0, f32(cascade));
    return vec4f(p.x / extent, p.z / extent, 0.5 - p.y / 100.0, 1.0);
}

struct Cascade {
    index: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(1) @binding(0) var<uniform> cascade: Cascade;

@vertex
fn vs_shadow(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> @builtin(position) vec4f {
    return light_clip(world(vertex, instance), cascade.index);
}

struct MainOut {
    @builtin(position) position: vec4f,
    @location(0) light: vec4f,
    @location(1) color: vec3f,
}

@group(1) @binding(1) var shadow_map: texture_depth_2d;

@vertex
fn vs_main(@builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> MainOut {
    let p = world(vertex, instance);
    var out: MainOut;
    out.position = camera_clip(p);
    out.light = light_clip(p, 0u);
    out.color = vec3f(0.4 + 0.6 * fract(f32(instance) * 0.37), 0.5, 0.4 + 0.6 * fract(f32(instance) * 0.61));
    return out;
}

@fragment
fn fs_main(in: MainOut) -> @location(0) vec4f {
    let size = vec2f(textureDimensions(shadow_map));
    let uv = vec2f(in.light.x * 0.5 + 0.5, 0.5 - in.light.y * 0.5);
    let texel = vec2i(clamp(uv * size, vec2f(0.0), size - 1.0));
    let occluder = textureLoad(shadow_map, texel, 0);
    let lit = select(0.3, 1.0, in.light.z <= occluder + 0.01);
    return vec4f(in.color * lit * 2.0, 1.0);
}
