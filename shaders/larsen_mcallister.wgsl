// Larsen & McAllister, "Fast Matrix Multiplies using Graphics Hardware" (SC2001), §3.
//
// The host appends u8_widths.wgsl to this file (mul_div_round, pass_steps).
//
// One draw instance is one slice p of the processor cube: a quad covering the whole m×n target,
// textured so that column p of A is replicated across it and row p of B down it (figure 2).
// The fragment stage multiplies the two texels ("modulate"); the blend unit, set to
// src·One + dst·One, sums the k slices onto the front face, which is the framebuffer C.
//
// Layout: element (i, j) of a matrix is texel (x = j, y = i).
//   A: m rows × k columns → k wide, m high.   B: k × n → n wide, k high.   C: n wide, m high.
// With four channels (RGBA) each of r, g, b, a holds its own matrix and all four are multiplied
// alike, as the paper's "RGBA" remark (§5, Implementation) describes.

@group(0) @binding(0) var a_tex: texture_2d<f32>;
@group(0) @binding(1) var b_tex: texture_2d<f32>;

struct Params {
    // The polygon colour the product is modulated by in the float modes: always 1.
    colour: f32,
    // 255 in the 8-bit pipeline, 0 in the float modes.
    levels: f32,
    // 8-bit pipeline: the polygon colour is 1/depth (depth = k with --scale-by-depth, §4, else 1).
    depth: u32,
    // 0: the 8-bit pipeline of 8-bit products and an 8-bit sum (rendermm's default). 1: the
    // widths of L-M §4 (--u8-product-bits, --u8-sum-bits): the product kept at top_p = 2^P - 1
    // steps, then brought to the sum's top_s = 2^S - 1 steps.
    wide: u32,
    top_p: u32,
    top_s: u32,
    _pad0: u32,
    _pad1: u32,
};
@group(0) @binding(2) var<uniform> params: Params;
// The final pass of a 16-bit sum: the R16Unorm / Rgba16Unorm running sum, reduced to 8 bits.
@group(0) @binding(3) var sum_tex: texture_2d<f32>;

// ANCHOR: vs_main
struct VsOut {
    @builtin(position) position: vec4f,
    // Texel coordinates, interpolated across the quad like the paper's texture coordinates:
    // A's x is fixed at column p, its y runs over the m rows; B's y is fixed at row p, its x
    // runs over the n columns.
    @location(0) a_coord: vec2f,
    @location(1) b_coord: vec2f,
};

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, @builtin(instance_index) p: u32) -> VsOut {
    // Triangle strip over the corners (0,0) (1,0) (0,1) (1,1) of the target; y runs down.
    let corner = vec2f(f32(vi & 1u), f32(vi >> 1u));
    let m = f32(textureDimensions(a_tex).y);
    let n = f32(textureDimensions(b_tex).x);
    let slice = f32(p) + 0.5;
    var out: VsOut;
    out.position = vec4f(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
    out.a_coord = vec2f(slice, corner.y * m);
    out.b_coord = vec2f(corner.x * n, slice);
    return out;
}
// ANCHOR_END: vs_main

// ANCHOR: fs_main
@fragment
fn fs_main(in: VsOut) -> @location(0) vec4f {
    let a = textureLoad(a_tex, vec2i(floor(in.a_coord)), 0);
    let b = textureLoad(b_tex, vec2i(floor(in.b_coord)), 0);
    if params.wide > 0u {
        // L-M §4's widths: the exact product ia·ib (units of 1/255²) times 1/depth, kept at P
        // bits, then brought to the sum's S bits, each rounded half up in exact integer
        // arithmetic (precision::U8Bits::pass_steps). The blend unit adds it to the R8Unorm or
        // R16Unorm framebuffer, saturating at 1.0.
        let ia = vec4u(round(a * 255.0));
        let ib = vec4u(round(b * 255.0));
        var out = vec4f(0.0);
        for (var c = 0; c < 4; c++) {
            out[c] = f32(pass_steps(ia[c] * ib[c], params.depth, params.top_p, params.top_s)) / f32(params.top_s);
        }
        return out;
    }
    if params.levels > 0.0 {
        // The 8-bit pipeline: texels are i/255; the product times the polygon colour 1/depth
        // leaves the fragment stage as an 8-bit value. Integer arithmetic makes the rounding
        // exact (half up), so the CPU model (precision::u8_slice_steps) can match bit for bit.
        let ia = vec4u(round(a * params.levels));
        let ib = vec4u(round(b * params.levels));
        let d = 255u * params.depth;
        let steps = (2u * ia * ib + vec4u(d)) / vec4u(2u * d);
        return vec4f(steps) / params.levels;
    }
    // Modulate: texture A × texture B (× polygon colour). The sum happens in the blend unit.
    return a * b * params.colour;
}
// ANCHOR_END: fs_main

// The output reduction of a 16-bit sum (L-M §4: "the output, stored in the framebuffer, reduces
// the precision back to 8 bits"): a quad over the target; each fragment reads its 16-bit sum
// acc and writes round(acc·255/65535) = round(acc/257), half up, into an 8-bit target.
@vertex
fn vs_full(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    let corner = vec2f(f32(vi & 1u), f32(vi >> 1u));
    return vec4f(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
}

@fragment
fn fs_reduce(@builtin(position) pos: vec4f) -> @location(0) vec4f {
    let acc = vec4u(round(textureLoad(sum_tex, vec2i(pos.xy), 0) * 65535.0));
    return vec4f((2u * acc + vec4u(257u)) / vec4u(514u)) / 255.0;
}
