// Particle simulation, visibility compaction into indirect draw arguments, and point drawing.

struct Globals {
    time: f32,
    aspect: f32,
    grid: u32,
    particles: u32,
}

struct Particle {
    position: vec4f,
    velocity: vec4f,
}

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var<storage, read_write> particles: array<Particle>;

@compute @workgroup_size(64)
fn simulate(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= g.particles {
        return;
    }
    var p = particles[id.x];
    let dt = 1.0 / 60.0;
    p.velocity.y -= 9.8 * dt;
    p.position = p.position + p.velocity * dt;
    if p.position.y < 0.0 {
        p.position.y = -p.position.y;
        p.velocity.y = abs(p.velocity.y) * 0.9;
    }
    if abs(p.position.x) > 30.0 {
        p.velocity.x = -p.velocity.x;
    }
    if abs(p.position.z) > 30.0 {
        p.velocity.z = -p.velocity.z;
    }
    particles[id.x] = p;
}

@group(0) @binding(0) var<uniform> cull_globals: Globals;
@group(0) @binding(1) var<storage, read> sources: array<Particle>;
@group(0) @binding(2) var<storage, read_write> visible: array<u32>;
// DrawIndirectArgs: vertex_count, instance_count, first_vertex, first_instance.
@group(0) @binding(3) var<storage, read_write> args: array<atomic<u32>, 4>;

@compute @workgroup_size(64)
fn cull(@builtin(global_invocation_id) id: vec3u) {
    if id.x >= cull_globals.particles {
        return;
    }
    atomicStore(&args[0], 1u);
    let p = sources[id.x].position;
    if p.y < 20.0 {
        let slot = atomicAdd(&args[1], 1u);
        visible[slot] = id.x;
    }
}

@group(0) @binding(0) var<uniform> draw_globals: Globals;
@group(0) @binding(1) var<storage, read> drawn: array<Particle>;
@group(0) @binding(2) var<storage, read> drawn_visible: array<u32>;

@vertex
fn vs_point(@builtin(instance_index) instance: u32) -> @builtin(position) vec4f {
    let p = drawn[drawn_visible[instance]].position.xyz;
    let a = draw_globals.time * 0.2;
    let c = cos(a);
    let s = sin(a);
    let v = vec3f(c * p.x - s * p.z, p.y - 6.0, s * p.x + c * p.z + 40.0);
    let near = 0.5;
    let far = 200.0;
    return vec4f(v.x * 1.5 / draw_globals.aspect, v.y * 1.5, v.z * far / (far - near) - near * far / (far - near), v.z);
}

@fragment
fn fs_point() -> @location(0) vec4f {
    return vec4f(4.0, 3.0, 1.5, 1.0);
}
