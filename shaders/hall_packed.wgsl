// Hall, Carr & Hart, "Cache and Bandwidth Aware Matrix Multiplication on the GPU" (2003), §4,
// equations (8)-(11): the 2×2 channel-packed multiply.
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

struct Block {
    // First packed p of this pass's block, and how many (b, or fewer in the last pass).
    start: u32,
    len: u32,
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

@fragment
fn fs_accumulate(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let ij = vec2i(pos.xy);
    let r4 = textureLoad(f_tex, ij, 0);
    return block_sum(ij) + r4;
}

@fragment
fn fs_blend(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    return block_sum(vec2i(pos.xy));
}
