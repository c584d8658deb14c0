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

// A two-triangle strip over the target (4 vertices), as `lm` draws each slice.
@vertex
fn vs_quad(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    let x = f32(vi & 1u) * 2.0 - 1.0;
    let y = f32((vi >> 1u) & 1u) * 2.0 - 1.0;
    return vec4f(x, y, 0.0, 1.0);
}

// 32 independent vec4 FMA chains per iteration: 32 · 4 · 2 = 256 flops per iteration per
// invocation. Chosen with `cargo run --release --example fma_variants` on the H100: 8, 16 and 32
// vec4 chains and 64 or 128 scalar ones, constant or uniform operands, workgroups of 128-1024;
// 32 vec4 chains were fastest in both stages (docs/performance.md). Every lane of the start
// value varies with the invocation: with three lanes constant (as this shader first had them)
// the H100 ran the same chains at half the rate, its compiler treating those lanes as uniform.
fn fma_chains(start: vec4f) -> f32 {
    let m = vec4f(0.9999, 1.0001, 0.99995, 1.00005);
    let a = vec4f(1e-7);
    var x0 = start; var x1 = start + 1.0; var x2 = start + 2.0; var x3 = start + 3.0;
    var x4 = start + 4.0; var x5 = start + 5.0; var x6 = start + 6.0; var x7 = start + 7.0;
    var x8 = start + 8.0; var x9 = start + 9.0; var x10 = start + 10.0; var x11 = start + 11.0;
    var x12 = start + 12.0; var x13 = start + 13.0; var x14 = start + 14.0; var x15 = start + 15.0;
    var x16 = start + 16.0; var x17 = start + 17.0; var x18 = start + 18.0; var x19 = start + 19.0;
    var x20 = start + 20.0; var x21 = start + 21.0; var x22 = start + 22.0; var x23 = start + 23.0;
    var x24 = start + 24.0; var x25 = start + 25.0; var x26 = start + 26.0; var x27 = start + 27.0;
    var x28 = start + 28.0; var x29 = start + 29.0; var x30 = start + 30.0; var x31 = start + 31.0;
    for (var i = 0u; i < params.iterations; i++) {
        x0 = fma(x0, m, a); x1 = fma(x1, m, a); x2 = fma(x2, m, a); x3 = fma(x3, m, a);
        x4 = fma(x4, m, a); x5 = fma(x5, m, a); x6 = fma(x6, m, a); x7 = fma(x7, m, a);
        x8 = fma(x8, m, a); x9 = fma(x9, m, a); x10 = fma(x10, m, a); x11 = fma(x11, m, a);
        x12 = fma(x12, m, a); x13 = fma(x13, m, a); x14 = fma(x14, m, a); x15 = fma(x15, m, a);
        x16 = fma(x16, m, a); x17 = fma(x17, m, a); x18 = fma(x18, m, a); x19 = fma(x19, m, a);
        x20 = fma(x20, m, a); x21 = fma(x21, m, a); x22 = fma(x22, m, a); x23 = fma(x23, m, a);
        x24 = fma(x24, m, a); x25 = fma(x25, m, a); x26 = fma(x26, m, a); x27 = fma(x27, m, a);
        x28 = fma(x28, m, a); x29 = fma(x29, m, a); x30 = fma(x30, m, a); x31 = fma(x31, m, a);
    }
    var s = x0;
    s += x1; s += x2; s += x3; s += x4; s += x5; s += x6; s += x7; s += x8;
    s += x9; s += x10; s += x11; s += x12; s += x13; s += x14; s += x15; s += x16;
    s += x17; s += x18; s += x19; s += x20; s += x21; s += x22; s += x23; s += x24;
    s += x25; s += x26; s += x27; s += x28; s += x29; s += x30; s += x31;
    return s.x + s.y + s.z + s.w;
}

// Fragment FMA ceiling: pure arithmetic over a full-screen quad, no blending.
@fragment
fn fs_fma(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let v = pos.x * params.seed + pos.y;
    return vec4f(fma_chains(vec4f(v, v + 0.75, v + 0.5, v + 0.25)), 0.0, 0.0, 0.0);
}

// Compute FMA ceiling: the same chains in a compute shader.
@group(0) @binding(1) var<storage, read_write> sink: array<f32>;

@compute @workgroup_size(256)
fn cs_fma(@builtin(global_invocation_id) gid: vec3u) {
    let v = f32(gid.x) * params.seed;
    sink[gid.x] = fma_chains(vec4f(v, v + 0.75, v + 0.5, v + 0.25));
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
