// O'Neil (2013), "Experiments with Massively Parallel Matrix Multiplication", §2.3 and §3.1:
// Cannon's algorithm in ONE workgroup. The workgroup is the n×n processor mesh: invocation
// (tx, ty) owns C(ty, tx). The invocations load A and B into workgroup memory together, then
// invocation (tx, ty) walks row ty of A and column tx of B in Cannon's skewed order,
//
//     C[i][j] = Σ_p A[i][(i + j + p) mod n] · B[(i + j + p) mod n][j],
//
// which is the order in which the torus of figure 2 would shift the elements past it.
//
// Generalised to m×k · k×n: the mesh is m×n invocations and the skew runs mod k (the length of
// the sum), which is O'Neil's index when m = k = n. M, K and N are pipeline constants, so the
// workgroup and its workgroup memory are exactly the matrices' size.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

override M: u32 = 8u;
override K: u32 = 8u;
override N: u32 = 8u;

var<workgroup> s_a: array<f32, M * K>;
var<workgroup> s_b: array<f32, K * N>;

@compute @workgroup_size(N, M)
fn main(@builtin(local_invocation_id) lid: vec3u, @builtin(local_invocation_index) li: u32) {
    let tx = lid.x; // column j
    let ty = lid.y; // row i
    // ANCHOR: skew
    // Collaborative load (O'Neil: sA[ty][tx] = A[ty][tx]; here the mesh may be smaller than A).
    for (var e = li; e < M * K; e += M * N) {
        s_a[e] = a[e];
    }
    for (var e = li; e < K * N; e += M * N) {
        s_b[e] = b[e];
    }
    workgroupBarrier();
    var local_val = 0.0;
    for (var p = 0u; p < K; p++) {
        let dex = (tx + ty + p) % K;
        local_val += s_a[ty * K + dex] * s_b[dex * N + tx];
    }
    c[ty * N + tx] = local_val;
    // ANCHOR_END: skew
}
