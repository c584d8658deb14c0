// Hall, Carr & Hart, "Cache and Bandwidth Aware Matrix Multiplication on the GPU" (2003), §3,
// algorithm (5): the single-channel blocked multiply.
//
// The host appends u8_widths.wgsl to this file (mul_div_round, pass_steps).
//
// One pass draws a quad covering the whole m×n target. Its fragment (i, j) sums the b products
// A[i][p]·B[p][j] of the pass's block p = start .. start+len-1 in a register (R3 in the paper),
// then either adds the running sum read from the accumulation texture F (R4, `fs_accumulate`,
// used by ping-pong and by the paper's copy-back form) or leaves the addition to the blend unit
// (`fs_blend`, the variant the paper mentions where blending accumulates into the framebuffer).
//
// Layout: element (i, j) of a matrix is texel (x = j, y = i).
//   A: m × k → k wide, m high.   B: k × n → n wide, k high.   C and F: n wide, m high.
//
// The 8-bit pipeline (`--precision u8`, R8Unorm textures and target, `blk.depth` > 0): texels
// are ia/255 and ib/255; the block's b products are summed exactly in integers (units of 1/255²),
// times the polygon colour 1/depth (depth = k with --scale-by-depth, else 1), and rounded half up
// to 8-bit steps once per pass. `fs_accumulate` adds F's steps and the unorm store clamps the
// sum at 1.0 (FF + 01 = FF); `fs_blend` hands the steps to the blend unit, which clamps them to
// 1.0 and adds them with saturation. Every step is exact, so the CPU model
// (precision::u8_model_blocked) matches bit for bit.

struct Block {
    // First p of this pass's block, and how many (b, or fewer in the last pass).
    start: u32,
    len: u32,
    // 0: float pipeline (f32 / f16). Otherwise the 8-bit pipeline, polygon colour 1/depth.
    depth: u32,
    // 0: the 8-bit pipeline at rendermm's default widths (8-bit block value, 8-bit sum). 1: L-M
    // §4's widths (--u8-product-bits, --u8-sum-bits): the block's value kept at top_p = 2^P - 1
    // steps, the running sum at top_s = 2^S - 1 steps (R8Unorm or R16Unorm targets).
    wide: u32,
    top_p: u32,
    top_s: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var a_tex: texture_2d<f32>;
@group(0) @binding(1) var b_tex: texture_2d<f32>;
// One Block per pass in one buffer, chosen by a dynamic offset.
@group(0) @binding(2) var<uniform> blk: Block;
// The running sum of the earlier passes. Never the texture this pass renders into: a fragment
// may not read its own framebuffer, hence the ping-pong (or the copy) between passes.
@group(1) @binding(0) var f_tex: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    // Triangle strip over the corners (0,0) (1,0) (0,1) (1,1) of the target; y runs down.
    let corner = vec2f(f32(vi & 1u), f32(vi >> 1u));
    return vec4f(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
}

// ANCHOR: block_sum
// Σ over the block of A[i][p]·B[p][j] for the fragment at texel ij = (x = j, y = i).
fn block_sum(ij: vec2i) -> f32 {
    var r3 = 0.0;
    for (var q = 0u; q < blk.len; q++) {
        let p = i32(blk.start + q);
        let r1 = textureLoad(a_tex, vec2i(p, ij.y), 0).r;
        let r2 = textureLoad(b_tex, vec2i(ij.x, p), 0).r;
        r3 = r3 + r1 * r2;
    }
    return r3;
}
// ANCHOR_END: block_sum

// The 8-bit value of a unorm texel, as an integer 0..255.
fn steps8(x: f32) -> u32 {
    return u32(round(x * 255.0));
}

// 8-bit pipeline: the block's sum times 1/depth in 8-bit steps, rounded half up. S ≤ 255²·b fits
// in u32 for b < 66052 (the host refuses larger); the remainder test avoids doubling S.
fn block_steps(ij: vec2i) -> u32 {
    let s = block_int(ij);
    let d = 255u * blk.depth;
    return s / d + select(0u, 1u, 2u * (s % d) >= d);
}

// The block's exact integer sum of texel products (units of 1/255²).
fn block_int(ij: vec2i) -> u32 {
    var s = 0u;
    for (var q = 0u; q < blk.len; q++) {
        let p = i32(blk.start + q);
        s = s + steps8(textureLoad(a_tex, vec2i(p, ij.y), 0).r) * steps8(textureLoad(b_tex, vec2i(ij.x, p), 0).r);
    }
    return s;
}

// L-M §4's widths: the block's exact sum s (units of 1/255²) times 1/depth, kept at
// top_p = 2^P - 1 steps, then brought to the running sum's top_s = 2^S - 1 steps (pass_steps,
// in u8_widths.wgsl).
fn wide_steps(s: u32) -> u32 {
    return pass_steps(s, blk.depth, blk.top_p, blk.top_s);
}

// ANCHOR: fs_accumulate
@fragment
fn fs_accumulate(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let ij = vec2i(pos.xy);
    let r4 = textureLoad(f_tex, ij, 0).r;
    if blk.wide > 0u {
        // F's sum in top_s steps plus this pass's value; the unorm store clamps at 1.0.
        let top = f32(blk.top_s);
        let acc = u32(round(r4 * top));
        return vec4f(f32(acc + wide_steps(block_int(ij))) / top, 0.0, 0.0, 0.0);
    }
    if blk.depth > 0u {
        // Values above 1.0 are clamped by the R8Unorm store: the saturation.
        return vec4f(f32(steps8(r4) + block_steps(ij)) / 255.0, 0.0, 0.0, 0.0);
    }
    return vec4f(block_sum(ij) + r4, 0.0, 0.0, 0.0);
}
// ANCHOR_END: fs_accumulate

@fragment
fn fs_blend(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let ij = vec2i(pos.xy);
    if blk.wide > 0u {
        return vec4f(f32(wide_steps(block_int(ij))) / f32(blk.top_s), 0.0, 0.0, 0.0);
    }
    if blk.depth > 0u {
        return vec4f(f32(block_steps(ij)) / 255.0, 0.0, 0.0, 0.0);
    }
    return vec4f(block_sum(ij), 0.0, 0.0, 0.0);
}
