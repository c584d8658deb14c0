// 5kk73 step 1, "Increasing Computation-to-Memory Ratio by Tiling" (16×16 tiles), as 5kk73
// writes it: the B tile is loaded with B_tile(tx, ty) <= B(tile·16 + tx, column ty), so
// neighbouring invocations (consecutive tx) read words n floats apart in global memory — the
// load of B is NOT coalesced. Tiling lifts the computation-to-memory ratio from 1/4 to 16/4 = 4
// flop/byte: each word loaded is used 16 times from workgroup memory.
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
        // Uncoalesced: consecutive tx walk down a column of B (stride n words).
        b_tile[tx * BS + ty] = load_b(t * BS + tx, wg.x * BS + ty);
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
