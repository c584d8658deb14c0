// loop_cap_fragment: loop_cap.wgsl's probe in the fragment stage, where the render-pass methods
// (lm, the Hall methods, frag-mrt) run their loops, and the only stage an adapter without compute
// shaders has (src/gpu/loop_cap.rs). One fragment of a 1×1 target runs two loops, one after the
// other, each asked for `probe.asked` iterations, and writes how many each ran into red and green
// of an Rgba32Uint texel (an integer format every backend renders into, WebGL2's included).

struct Probe {
    asked: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

@group(0) @binding(0) var<uniform> probe: Probe;

// One triangle over the whole target.
@vertex
fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
    let x = f32((vi << 1u) & 2u) * 2.0 - 1.0;
    let y = f32(vi & 2u) * 2.0 - 1.0;
    return vec4f(x, y, 0.0, 1.0);
}

@fragment
fn fs_main() -> @location(0) vec4u {
    var first = 0u;
    for (var i = 0u; i < probe.asked; i++) {
        first += 1u;
    }
    var second = 0u;
    for (var i = 0u; i < probe.asked; i++) {
        second += 1u;
    }
    return vec4u(first, second, 0u, 0u);
}
