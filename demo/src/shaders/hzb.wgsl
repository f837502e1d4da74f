// Hierarchical Z: copy depth into mip 0, then each mip is the max of four texels above it.

@group(0) @binding(0) var depth: texture_depth_2d;
@group(0) @binding(1) var first_mip: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn copy_depth(@builtin(global_invocation_id) id: vec3u) {
    let size = textureDimensions(first_mip);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    textureStore(first_mip, id.xy, vec4f(textureLoad(depth, id.xy, 0), 0.0, 0.0, 1.0));
}

@group(0) @binding(0) var source: texture_2d<f32>;
@group(0) @binding(1) var target_mip: texture_storage_2d<r32float, write>;

@compute @workgroup_size(8, 8)
fn downsample(@builtin(global_invocation_id) id: vec3u) {
    let size = textureDimensions(target_mip);
    if id.x >= size.x || id.y >= size.y {
        return;
    }
    let limit = vec2i(textureDimensions(source)) - 1;
    let base = vec2i(id.xy) * 2;
    let a = textureLoad(source, min(base, limit), 0).x;
    let b = textureLoad(source, min(base + vec2i(1, 0), limit), 0).x;
    let c = textureLoad(source, min(base + vec2i(0, 1), limit), 0).x;
    let d = textureLoad(source, min(base + vec2i(1, 1), limit), 0).x;
    textureStore(target_mip, id.xy, vec4f(max(max(a, b), max(c, d)), 0.0, 0.0, 1.0));
}
