// One step of the flock: each boid steers towards its neighbours' centre and heading and
// away from boids too close, then moves; the square [-1, 1]² wraps around.

struct Boid {
    position: vec2f,
    velocity: vec2f,
}

@group(0) @binding(0) var<storage, read> before: array<Boid>;
@group(0) @binding(1) var<storage, read_write> after: array<Boid>;

const SIGHT: f32 = 0.12;
const PERSONAL_SPACE: f32 = 0.03;
const MAX_SPEED: f32 = 0.6;
const STEP: f32 = 0.016;

@compute @workgroup_size(64)
fn simulate(@builtin(global_invocation_id) id: vec3u) {
    let count = arrayLength(&before);
    let me = id.x;
    if me >= count {
        return;
    }
    let boid = before[me];
    var centre = vec2f(0.0);
    var heading = vec2f(0.0);
    var away = vec2f(0.0);
    var seen = 0u;
    for (var other = 0u; other < count; other++) {
        if other == me {
            continue;
        }
        let offset = before[other].position - boid.position;
        let distance = length(offset);
        if distance < SIGHT {
            centre += before[other].position;
            heading += before[other].velocity;
            seen++;
        }
        if distance < PERSONAL_SPACE {
            away -= offset;
        }
    }
    var velocity = boid.velocity + away * 2.0;
    if seen > 0u {
        let n = f32(seen);
        velocity += (centre / n - boid.position) * 0.5 + (heading / n - boid.velocity) * 0.1;
    }
    let speed = length(velocity);
    if speed > MAX_SPEED {
        velocity *= MAX_SPEED / speed;
    }
    var position = boid.position + velocity * STEP;
    position = select(position, position - 2.0 * sign(position), abs(position) > vec2f(1.0));
    after[me] = Boid(position, velocity);
}
