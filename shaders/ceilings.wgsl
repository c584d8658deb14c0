// Micro-benchmarks of the hardware's own ceilings (`rendermm bench --ceilings`, src/ceilings.rs).
// Each entry point does one kind of work as fast as the hardware allows, so a method's rate can be
// read as a fraction of the ceiling that bounds it.

struct Params {
    iterations: u32,
    // Keeps the compiler from proving the inputs constant.
    seed: f32,
    _pad0: u32,
    _pad1: u32,
};
@group(0) @binding(0) var<uniform> params: Params;

// A full-screen triangle.
@vertex
fn vs_fullscreen(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    let x = f32((vi << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(vi & 2u) * 2.0 - 1.0;
    return vec4f(x, y, 0.0, 1.0);
}

// 16 independent vec4 FMA chains per iteration: 16 · 4 · 2 = 128 flops per iteration per
// invocation. (8 chains left the H100's pipelines half idle: frag-mrt and cs-fast beat it.)
fn fma_chains(start: vec4f) -> f32 {
    let m = vec4f(0.9999, 1.0001, 0.99995, 1.00005);
    let a = vec4f(1e-7);
    var x0 = start; var x1 = start + 1.0; var x2 = start + 2.0; var x3 = start + 3.0;
    var x4 = start + 4.0; var x5 = start + 5.0; var x6 = start + 6.0; var x7 = start + 7.0;
    var x8 = start + 8.0; var x9 = start + 9.0; var x10 = start + 10.0; var x11 = start + 11.0;
    var x12 = start + 12.0; var x13 = start + 13.0; var x14 = start + 14.0; var x15 = start + 15.0;
    for (var i = 0u; i < params.iterations; i++) {
        x0 = fma(x0, m, a); x1 = fma(x1, m, a); x2 = fma(x2, m, a); x3 = fma(x3, m, a);
        x4 = fma(x4, m, a); x5 = fma(x5, m, a); x6 = fma(x6, m, a); x7 = fma(x7, m, a);
        x8 = fma(x8, m, a); x9 = fma(x9, m, a); x10 = fma(x10, m, a); x11 = fma(x11, m, a);
        x12 = fma(x12, m, a); x13 = fma(x13, m, a); x14 = fma(x14, m, a); x15 = fma(x15, m, a);
    }
    let s = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)) + ((x8 + x9) + (x10 + x11)) + ((x12 + x13) + (x14 + x15));
    return s.x + s.y + s.z + s.w;
}

// Fragment FMA ceiling: pure arithmetic over a full-screen quad, no blending.
@fragment
fn fs_fma(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    return vec4f(fma_chains(vec4f(pos.x * params.seed, pos.y, 0.5, 0.25)), 0.0, 0.0, 0.0);
}

// Compute FMA ceiling: the same chains in a compute shader.
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;

@compute @workgroup_size(256)
fn cs_fma(@builtin(global_invocation_id) gid: vec3u) {
    sink[gid.x] = fma_chains(vec4f(f32(gid.x) * params.seed, 0.75, 0.5, 0.25));
}

// Blend ceiling: the cheapest fragment there is, summed by additive blending (the L-M bound).
@fragment
fn fs_blend() -> @location(0) vec4f {
    return vec4f(params.seed, 0.0, 0.0, 0.0);
}

// Texture-fetch ceiling: `iterations` textureLoads per fragment from an R32Float texture,
// walking along the fragment's row as Hall's inner loop walks a row of A.
@group(0) @binding(2) var tex: texture_2d<f32>;

@fragment
fn fs_fetch(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let dims = vec2u(textureDimensions(tex));
    let x0 = u32(pos.x);
    let y = u32(pos.y) % dims.y;
    var s = 0.0;
    for (var i = 0u; i < params.iterations; i++) {
        s += textureLoad(tex, vec2u((x0 + i) % dims.x, y), 0).r;
    }
    return vec4f(s, 0.0, 0.0, 0.0);
}

// The same walk over an RGBA32Float texture, all four channels used: the fetch that frag-mrt and
// hall-packed make (16 bytes per texel).
@fragment
fn fs_fetch_rgba(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let dims = vec2u(textureDimensions(tex));
    let x0 = u32(pos.x);
    let y = u32(pos.y) % dims.y;
    var s = vec4f(0.0);
    for (var i = 0u; i < params.iterations; i++) {
        s += textureLoad(tex, vec2u((x0 + i) % dims.x, y), 0);
    }
    return vec4f(s.x + s.y + s.z + s.w, 0.0, 0.0, 0.0);
}
