// Each boid is one instance of a small triangle pointing along its velocity.

struct Shaded {
    @builtin(position) position: vec4f,
    @location(0) speed: f32,
}

@vertex
fn vertex(@location(0) centre: vec2f, @location(1) velocity: vec2f, @location(2) corner: vec2f) -> Shaded {
    let speed = length(velocity);
    let ahead = select(vec2f(0.0, 1.0), velocity / speed, speed > 0.0);
    let side = vec2f(ahead.y, -ahead.x);
    let position = centre + (side * corner.x + ahead * corner.y) * 0.02;
    return Shaded(vec4f(position, 0.0, 1.0), speed);
}

@fragment
fn fragment(boid: Shaded) -> @location(0) vec4f {
    let fast = clamp(boid.speed / 0.6, 0.0, 1.0);
    return vec4f(fast, 0.7, 1.0 - fast, 1.0);
}
