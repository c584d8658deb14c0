// The second pass of a DNS product whose k axis was split over several workgroups (dns.wgsl):
// C[e] = Σ_kb partial[kb][e] over the `dims.extra` planes of m·n partial sums, added in plane
// order so the result does not depend on scheduling. One invocation per element of C.
//
// This pass is the price of having no float atomics in WGSL: the partial sums cost
// (planes + 1)·m·n extra words of global traffic and a second dispatch.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(num_workgroups) groups: vec3u,
        @builtin(local_invocation_index) li: u32) {
    // ANCHOR: add_planes
    let e = (wg.y * groups.x + wg.x) * 64u + li;
    let size = dims.m * dims.n;
    if e < size {
        var sum = 0.0;
        for (var p = 0u; p < dims.extra; p++) {
            sum += partial[p * size + e];
        }
        c[e] = sum;
    }
    // ANCHOR_END: add_planes
}
