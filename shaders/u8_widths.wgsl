// The 8-bit pipeline's widths (L-M §4), shared by larsen_mcallister.wgsl, hall_blocked.wgsl and
// hall_packed.wgsl: the host appends this file to each of them (WGSL has no include, and
// module-scope functions may be declared after their use).

// round(x·mul / d), half up, exactly, for x·mul < 2^64 and 0 < d < 2^31: the 64-bit product from
// 16-bit halves, then binary long division (the remainder stays below d, so 2r + 1 fits in u32).
// The quotient must fit in u32, which the host guarantees.
fn mul_div_round(x: u32, mul: u32, d: u32) -> u32 {
    let x0 = x & 0xffffu;
    let x1 = x >> 16u;
    let m0 = mul & 0xffffu;
    let m1 = mul >> 16u;
    let p00 = x0 * m0;
    let p01 = x0 * m1;
    let p10 = x1 * m0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = x1 * m1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    var q = 0u;
    var r = 0u;
    for (var i = 0u; i < 64u; i++) {
        var bit: u32;
        if i < 32u {
            bit = (hi >> (31u - i)) & 1u;
        } else {
            bit = (lo >> (63u - i)) & 1u;
        }
        r = (r << 1u) | bit;
        q = q << 1u;
        if r >= d {
            r = r - d;
            q = q | 1u;
        }
    }
    return q + select(0u, 1u, 2u * r >= d);
}

// ANCHOR: pass_steps
// The value a fragment hands on, in the running sum's steps: s (units of 1/255²) times the
// polygon colour 1/depth kept at top_p = 2^P - 1 steps, then brought to top_s = 2^S - 1 steps
// (precision::U8Bits::pass_steps, which the CPU model uses).
fn pass_steps(s: u32, depth: u32, top_p: u32, top_s: u32) -> u32 {
    let q = mul_div_round(s, top_p, 65025u * depth);
    if top_p == top_s {
        return q;
    }
    return mul_div_round(q, top_s, top_p);
}
// ANCHOR_END: pass_steps
