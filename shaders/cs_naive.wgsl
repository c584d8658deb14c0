// The naive GPU kernel of the HIP blog ("Naive Implementation") and of 5kk73 ("Naive
// Implementation On GPUs"): one invocation per element of C, each reading a whole row of A and
// a whole column of B from global memory. 2·m·n·k words read for 2·m·n·k flops: about 1/4 flop
// per byte, so the kernel is bound by memory bandwidth.
//
// Layout: every matrix is row-major f32, element (i, j) at i·cols + j. C is m×n, A m×k, B k×n.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

// Workgroup edge (16 as in 5kk73's dimBlock(16, 16)).
override WG: u32 = 16u;

@compute @workgroup_size(WG, WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    // ANCHOR: inner_loop
    let row = gid.y;
    let col = gid.x;
    if row < dims.m && col < dims.n {
        var sum = 0.0;
        for (var p = 0u; p < dims.k; p++) {
            sum += a[row * dims.k + p] * b[p * dims.n + col];
        }
        c[row * dims.n + col] = sum;
    }
    // ANCHOR_END: inner_loop
}
