// Hall, Carr & Hart, "Cache and Bandwidth Aware Matrix Multiplication on the GPU" (2003), §4,
// equations (8)-(11): the 2×2 channel-packed multiply.
//
// The host appends u8_widths.wgsl to this file (mul_div_round, pass_steps).
//
// Each matrix is split into quadrants and stored as one RGBA texture of half the size each way
// (eq. 8):  X = ( A_r  B_g )   Y = ( E_r  F_g )   so texel (i, j) of X holds A[i][j], B[i][j],
//               ( C_b  D_a )       ( G_b  H_a )   C[i][j], D[i][j] in r, g, b, a.
// Then X·Y = X.rrbb Y.rgrg + X.ggaa Y.baba (eq. 10): one texel pair gives all four quadrant
// products, (AE AF CE CF) + (BG BH DG DH) = (Z_r Z_g Z_b Z_a).
//
// One pass draws a quad over the ⌈m/2⌉×⌈n/2⌉ packed target; fragment (i, j) runs algorithm (11)
// over its block of p and adds the running sum from F (`fs_accumulate`), or leaves that to the
// blend unit (`fs_blend`). Odd sizes are zero-padded by the packing, so the padding adds zeros.
//
// Layout: packed element (i, j) is texel (x = j, y = i).
//   X: ⌈m/2⌉ × ⌈k/2⌉.   Y: ⌈k/2⌉ × ⌈n/2⌉.   Z and F: ⌈m/2⌉ × ⌈n/2⌉.

// The 8-bit pipeline (`--precision u8`, Rgba8Unorm, `blk.depth` > 0) is hall_blocked.wgsl's, four
// channels at once: each channel's 2b products of the pass summed exactly in integers, times
// 1/depth, rounded half up to 8-bit steps once per pass, added to F's steps (or by the blend
// unit) and clamped at 1.0 by the unorm store. CPU model: precision::u8_model_packed.

struct Block {
    // First packed p of this pass's block, and how many (b, or fewer in the last pass).
    start: u32,
    len: u32,
    // 0: float pipeline (f32 / f16). Otherwise the 8-bit pipeline, polygon colour 1/depth.
    depth: u32,
    // 0: the 8-bit pipeline at rendermm's default widths (8-bit block value, 8-bit sum). 1: L-M
    // §4's widths (--u8-product-bits, --u8-sum-bits): the value of each channel's block kept at top_p = 2^P - 1
    // steps, the running sum at top_s = 2^S - 1 steps (R8Unorm or R16Unorm targets).
    wide: u32,
    top_p: u32,
    top_s: u32,
    _pad0: u32,
    _pad1: u32,
};

@group(0) @binding(0) var x_tex: texture_2d<f32>;
@group(0) @binding(1) var y_tex: texture_2d<f32>;
// One Block per pass in one buffer, chosen by a dynamic offset.
@group(0) @binding(2) var<uniform> blk: Block;
// The running sum of the earlier passes (never the texture this pass renders into).
@group(1) @binding(0) var f_tex: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    // Triangle strip over the corners (0,0) (1,0) (0,1) (1,1) of the target; y runs down.
    let corner = vec2f(f32(vi & 1u), f32(vi >> 1u));
    return vec4f(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
}

// ANCHOR: eq10
// Algorithm (11)'s inner loop for the fragment at texel ij = (x = j, y = i).
fn block_sum(ij: vec2i) -> vec4f {
    var r3 = vec4f(0.0);
    for (var q = 0u; q < blk.len; q++) {
        let p = i32(blk.start + q);
        let r1 = textureLoad(x_tex, vec2i(p, ij.y), 0);
        let r2 = textureLoad(y_tex, vec2i(ij.x, p), 0);
        r3 = r1.rrbb * r2.rgrg + r3;
        r3 = r1.ggaa * r2.baba + r3;
    }
    return r3;
}
// ANCHOR_END: eq10

// The 8-bit values of a unorm texel, as integers 0..255.
fn steps8(x: vec4f) -> vec4u {
    return vec4u(round(x * 255.0));
}

// 8-bit pipeline: algorithm (11) on the integer texels, then times 1/depth in 8-bit steps,
// rounded half up. S ≤ 2·255²·b fits in u32 for b < 33026 (the host refuses larger).
fn block_steps(ij: vec2i) -> vec4u {
    let s = block_int(ij);
    let d = vec4u(255u * blk.depth);
    return s / d + vec4u(2u * (s % d) >= d);
}

// Algorithm (11) on the integer texels: each channel's exact sum of its 2b products (units of
// 1/255²).
fn block_int(ij: vec2i) -> vec4u {
    var s = vec4u(0u);
    for (var q = 0u; q < blk.len; q++) {
        let p = i32(blk.start + q);
        let r1 = steps8(textureLoad(x_tex, vec2i(p, ij.y), 0));
        let r2 = steps8(textureLoad(y_tex, vec2i(ij.x, p), 0));
        s = r1.rrbb * r2.rgrg + s;
        s = r1.ggaa * r2.baba + s;
    }
    return s;
}

fn wide_steps4(s: vec4u) -> vec4u {
    return vec4u(wide_steps(s.x), wide_steps(s.y), wide_steps(s.z), wide_steps(s.w));
}

// L-M §4's widths: the block's exact sum s (units of 1/255²) times 1/depth, kept at
// top_p = 2^P - 1 steps, then brought to the running sum's top_s = 2^S - 1 steps (pass_steps,
// in u8_widths.wgsl).
fn wide_steps(s: u32) -> u32 {
    return pass_steps(s, blk.depth, blk.top_p, blk.top_s);
}

@fragment
fn fs_accumulate(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let ij = vec2i(pos.xy);
    let r4 = textureLoad(f_tex, ij, 0);
    if blk.wide > 0u {
        // F's sums in top_s steps plus this pass's values; the unorm store clamps at 1.0.
        let top = f32(blk.top_s);
        let acc = vec4u(round(r4 * top));
        return vec4f(acc + wide_steps4(block_int(ij))) / top;
    }
    if blk.depth > 0u {
        // Values above 1.0 are clamped by the Rgba8Unorm store: the saturation.
        return vec4f(steps8(r4) + block_steps(ij)) / 255.0;
    }
    return block_sum(ij) + r4;
}

@fragment
fn fs_blend(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let ij = vec2i(pos.xy);
    if blk.wide > 0u {
        return vec4f(wide_steps4(block_int(ij))) / f32(blk.top_s);
    }
    if blk.depth > 0u {
        return vec4f(block_steps(ij)) / 255.0;
    }
    return block_sum(ij);
}
