// The clamp step of the reachability powers (src/reach.rs): framebuffer ← min(framebuffer, 1).
//
// L-M §5 raise a 0/1 adjacency matrix to powers in 8 bits, where the blend unit saturates every
// sum at 1.0 and the entries stay 0/1 by themselves. In f16 and f32 the sums are path counts,
// which would grow without bound from power to power (and reach inf, then inf·0 = NaN), so after
// each product the framebuffer is clamped back to 0/1 — by the blend unit again, in place: one
// quad of colour 1 drawn with the blend operation Min (OpenGL's EXT_blend_minmax, 1995), so
// dst ← min(1, dst). No texture is read; nothing crosses to the host.

@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    // Triangle strip over the corners of the target.
    let corner = vec2f(f32(vi & 1u), f32(vi >> 1u));
    return vec4f(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4f {
    return vec4f(1.0);
}
