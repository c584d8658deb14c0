// 5kk73 step 3, "Avoiding Shared Memory Bank Conflict". Change from step 2: the B tile is stored
// untransposed, b_tile[kk * 16 + j], so the inner product reads b_tile[kk * 16 + tx] —
// consecutive invocations, consecutive words, one per bank — and a_tile[ty * 16 + kk] is one
// address for a whole row of invocations (a broadcast). The global loads stay coalesced. This is
// the same kernel as the HIP blog's tiled one (cs-tiled-16). Still 4 flop/byte.
//
// Workgroup 16×16, one invocation per element of C. Row-major f32: C m×n, A m×k, B k×n.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

// Element (i, j) of A, or 0 past its edge (zero padding for shapes that are not multiples of 16).
fn load_a(i: u32, j: u32) -> f32 {
    if i < dims.m && j < dims.k {
        return a[i * dims.k + j];
    }
    return 0.0;
}

// Element (i, j) of B, or 0 past its edge.
fn load_b(i: u32, j: u32) -> f32 {
    if i < dims.k && j < dims.n {
        return b[i * dims.n + j];
    }
    return 0.0;
}

const BS: u32 = 16u;

var<workgroup> a_tile: array<f32, 256>; // a_tile[r * 16 + kk] = A(row0 + r, k0 + kk)
var<workgroup> b_tile: array<f32, 256>; // b_tile[kk * 16 + j] = B(k0 + kk, col0 + j)

@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
    let tx = lid.x;
    let ty = lid.y;
    let row = wg.y * BS + ty;
    let col = wg.x * BS + tx;
    let tiles = (dims.k + BS - 1u) / BS;
    var accu = 0.0;
    for (var t = 0u; t < tiles; t++) {
        // ANCHOR: tile_step
        a_tile[ty * BS + tx] = load_a(row, t * BS + tx);
        b_tile[ty * BS + tx] = load_b(t * BS + ty, col);
        workgroupBarrier();
        for (var kk = 0u; kk < BS; kk++) {
            accu += a_tile[ty * BS + kk] * b_tile[kk * BS + tx];
        }
        // ANCHOR_END: tile_step
        workgroupBarrier();
    }
    if row < dims.m && col < dims.n {
        c[row * dims.n + col] = accu;
    }
}
