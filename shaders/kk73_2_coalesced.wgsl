// 5kk73 step 2, "Global Memory Coalescing". Change from step 1: the B tile is read along rows of
// B — invocation (tx, ty) reads B(tile·16 + ty, column tx) — so neighbouring invocations read
// neighbouring words and the global load coalesces. The tile is still stored the way step 1
// stored it, transposed (b_tile[j * 16 + kk]), so the inner product now reads b_tile with a
// stride of 16 words between neighbouring invocations: a shared-memory BANK CONFLICT, which the
// next step removes. Same 4 flop/byte computation-to-memory ratio as step 1.
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
var<workgroup> b_tile: array<f32, 256>; // b_tile[j * 16 + kk] = B(k0 + kk, col0 + j)  (transposed)

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
        // Coalesced: consecutive tx read consecutive words of a row of B.
        b_tile[tx * BS + ty] = load_b(t * BS + ty, col);
        workgroupBarrier();
        for (var kk = 0u; kk < BS; kk++) {
            // Bank conflict: consecutive tx read words 16 apart.
            accu += a_tile[ty * BS + kk] * b_tile[tx * BS + kk];
        }
        // ANCHOR_END: tile_step
        workgroupBarrier();
    }
    if row < dims.m && col < dims.n {
        c[row * dims.n + col] = accu;
    }
}
