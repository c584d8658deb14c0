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

// 16 independent vec4 FMA chains, each step x = x·x + a: 16 · 4 · 2 = 128 flops per step per
// invocation, `params.iterations` steps (a multiple of 4), the loop body holding four steps.
// Chosen with `cargo run --release --example fma_variants` on the H100 (docs/performance.md):
// what took the FMA ceilings from 0.85 (compute) and 0.89 (fragment) of the theoretical rate to
// 0.97 and 0.98 was compiling this module without wgpu's loop bounding
// (`GpuContext::shader_trusted`) and four steps per loop iteration; x·x + a (one register read
// per FMA) instead of x·m + a added a little. Every lane of the start value varies with the
// invocation: with three lanes constant (as this shader first had them) the H100 ran the same
// chains at half the rate, its compiler treating those lanes as uniform. The starts lie in
// [0, 0.7), where x·x + 1e-7 falls towards its fixed point near 1e-7: the values stay finite and
// normal.
fn fma_chains(start: vec4f) -> f32 {
    let a = vec4f(1e-7);
    let s0 = fract(start) * 0.5;
    var x0 = s0; var x1 = s0 + 0.01; var x2 = s0 + 0.02; var x3 = s0 + 0.03;
    var x4 = s0 + 0.04; var x5 = s0 + 0.05; var x6 = s0 + 0.06; var x7 = s0 + 0.07;
    var x8 = s0 + 0.08; var x9 = s0 + 0.09; var x10 = s0 + 0.10; var x11 = s0 + 0.11;
    var x12 = s0 + 0.12; var x13 = s0 + 0.13; var x14 = s0 + 0.14; var x15 = s0 + 0.15;
    for (var i = 0u; i < params.iterations; i += 4u) {
        x0 = fma(x0, x0, a); x1 = fma(x1, x1, a); x2 = fma(x2, x2, a); x3 = fma(x3, x3, a);
        x4 = fma(x4, x4, a); x5 = fma(x5, x5, a); x6 = fma(x6, x6, a); x7 = fma(x7, x7, a);
        x8 = fma(x8, x8, a); x9 = fma(x9, x9, a); x10 = fma(x10, x10, a); x11 = fma(x11, x11, a);
        x12 = fma(x12, x12, a); x13 = fma(x13, x13, a); x14 = fma(x14, x14, a); x15 = fma(x15, x15, a);

        x0 = fma(x0, x0, a); x1 = fma(x1, x1, a); x2 = fma(x2, x2, a); x3 = fma(x3, x3, a);
        x4 = fma(x4, x4, a); x5 = fma(x5, x5, a); x6 = fma(x6, x6, a); x7 = fma(x7, x7, a);
        x8 = fma(x8, x8, a); x9 = fma(x9, x9, a); x10 = fma(x10, x10, a); x11 = fma(x11, x11, a);
        x12 = fma(x12, x12, a); x13 = fma(x13, x13, a); x14 = fma(x14, x14, a); x15 = fma(x15, x15, a);

        x0 = fma(x0, x0, a); x1 = fma(x1, x1, a); x2 = fma(x2, x2, a); x3 = fma(x3, x3, a);
        x4 = fma(x4, x4, a); x5 = fma(x5, x5, a); x6 = fma(x6, x6, a); x7 = fma(x7, x7, a);
        x8 = fma(x8, x8, a); x9 = fma(x9, x9, a); x10 = fma(x10, x10, a); x11 = fma(x11, x11, a);
        x12 = fma(x12, x12, a); x13 = fma(x13, x13, a); x14 = fma(x14, x14, a); x15 = fma(x15, x15, a);

        x0 = fma(x0, x0, a); x1 = fma(x1, x1, a); x2 = fma(x2, x2, a); x3 = fma(x3, x3, a);
        x4 = fma(x4, x4, a); x5 = fma(x5, x5, a); x6 = fma(x6, x6, a); x7 = fma(x7, x7, a);
        x8 = fma(x8, x8, a); x9 = fma(x9, x9, a); x10 = fma(x10, x10, a); x11 = fma(x11, x11, a);
        x12 = fma(x12, x12, a); x13 = fma(x13, x13, a); x14 = fma(x14, x14, a); x15 = fma(x15, x15, a);
    }
    var s = x0;
    s += x1; s += x2; s += x3; s += x4; s += x5; s += x6; s += x7; s += x8;
    s += x9; s += x10; s += x11; s += x12; s += x13; s += x14; s += x15;
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

// ANCHOR: fetch_walk
// Texture-fetch ceiling: `iterations` textureLoads per fragment from an R32Float texture,
// walking along the fragment's row as Hall's inner loop walks a row of A. The texture's sides
// are powers of two (src/bench/ceilings.rs), so a mask wraps the walk: an integer modulo by the
// runtime width cost more instructions than the fetch and held this ceiling below what the
// texture units deliver. With any width the masked coordinate stays below it. Four loads per
// loop iteration into four sums (`iterations` is a multiple of 4): with one sum each load waited
// for the one before (H100: 165 GB/s that way, 241 GB/s this way; the RGBA32Float walk below
// stayed at 334 GB/s either way, a bound of bytes rather than of loads). Every lane of a warp
// reads its own texel here; frag-mrt's lanes share theirs (a row of A among the fragments of a
// row), so its loads per second can pass this ceiling's without moving more bytes.
@group(0) @binding(2) var tex: texture_2d<f32>;

@fragment
fn fs_fetch(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let mask = vec2u(textureDimensions(tex)) - 1u;
    let x0 = u32(pos.x);
    let y = u32(pos.y) & mask.y;
    var s = vec4f(0.0);
    for (var i = 0u; i < params.iterations; i += 4u) {
        s.x += textureLoad(tex, vec2u((x0 + i) & mask.x, y), 0).r;
        s.y += textureLoad(tex, vec2u((x0 + i + 1u) & mask.x, y), 0).r;
        s.z += textureLoad(tex, vec2u((x0 + i + 2u) & mask.x, y), 0).r;
        s.w += textureLoad(tex, vec2u((x0 + i + 3u) & mask.x, y), 0).r;
    }
    return vec4f(s.x + s.y + s.z + s.w, 0.0, 0.0, 0.0);
}
// ANCHOR_END: fetch_walk

// The same walk over an RGBA32Float texture, all four channels used: the fetch that frag-mrt and
// hall-packed make (16 bytes per texel).
@fragment
fn fs_fetch_rgba(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let mask = vec2u(textureDimensions(tex)) - 1u;
    let x0 = u32(pos.x);
    let y = u32(pos.y) & mask.y;
    var s0 = vec4f(0.0);
    var s1 = vec4f(0.0);
    var s2 = vec4f(0.0);
    var s3 = vec4f(0.0);
    for (var i = 0u; i < params.iterations; i += 4u) {
        s0 += textureLoad(tex, vec2u((x0 + i) & mask.x, y), 0);
        s1 += textureLoad(tex, vec2u((x0 + i + 1u) & mask.x, y), 0);
        s2 += textureLoad(tex, vec2u((x0 + i + 2u) & mask.x, y), 0);
        s3 += textureLoad(tex, vec2u((x0 + i + 3u) & mask.x, y), 0);
    }
    let s = s0 + s1 + s2 + s3;
    return vec4f(s.x + s.y + s.z + s.w, 0.0, 0.0, 0.0);
}
