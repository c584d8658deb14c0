// 5kk73 step 5, "Loop Unrolling". Change from step 4: the loops are unrolled. WGSL has no
// `#pragma unroll`, so they are written out: the 16-row loop of the rank-1 update becomes 16
// statements with constant indices into the accumulators (so they can stay in registers rather
// than in an indexed array), the outer loop over the 16 columns of the A tile becomes 16 calls
// of that update, and the 4-word A-tile load 4 statements. What remains per k-tile is loads,
// multiply-adds and two barriers: fewer loop-counter, compare and branch instructions per useful
// flop. Same 6.4 flop/byte as step 4.
//
// Workgroup 64; grid ceil(n/64) × ceil(m/16). Row-major f32: C m×n, A m×k, B k×n.

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

const TM: u32 = 16u;
const TN: u32 = 64u;

var<workgroup> a_tile: array<f32, 256>; // a_tile[kk * 16 + r] = A(row0 + r, k0 + kk)

// ANCHOR: rank1
// This invocation's 16 elements of its column of the C tile.
var<private> accu: array<f32, 16>;

// One rank-1 update: column (base / 16) of the A tile times this invocation's element bv of B.
fn rank1(base: u32, bv: f32) {
    accu[0] += a_tile[base + 0u] * bv;
    accu[1] += a_tile[base + 1u] * bv;
    accu[2] += a_tile[base + 2u] * bv;
    accu[3] += a_tile[base + 3u] * bv;
    accu[4] += a_tile[base + 4u] * bv;
    accu[5] += a_tile[base + 5u] * bv;
    accu[6] += a_tile[base + 6u] * bv;
    accu[7] += a_tile[base + 7u] * bv;
    accu[8] += a_tile[base + 8u] * bv;
    accu[9] += a_tile[base + 9u] * bv;
    accu[10] += a_tile[base + 10u] * bv;
    accu[11] += a_tile[base + 11u] * bv;
    accu[12] += a_tile[base + 12u] * bv;
    accu[13] += a_tile[base + 13u] * bv;
    accu[14] += a_tile[base + 14u] * bv;
    accu[15] += a_tile[base + 15u] * bv;
}
// ANCHOR_END: rank1

// Word e of the A tile (e = r·16 + kk in row order) from global memory into a_tile.
fn stage_a(e: u32, row0: u32, k0: u32) {
    let r = e / TM;
    let kk = e % TM;
    a_tile[kk * TM + r] = load_a(row0 + r, k0 + kk);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) tid: u32) {
    let row0 = wg.y * TM;
    let col = wg.x * TN + tid;
    let tiles = (dims.k + TM - 1u) / TM;
    // ANCHOR: unrolled_tile
    for (var t = 0u; t < tiles; t++) {
        let k0 = t * TM;
        stage_a(tid, row0, k0);
        stage_a(TN + tid, row0, k0);
        stage_a(2u * TN + tid, row0, k0);
        stage_a(3u * TN + tid, row0, k0);
        workgroupBarrier();
        rank1(0u * TM, load_b(k0 + 0u, col));
        rank1(1u * TM, load_b(k0 + 1u, col));
        rank1(2u * TM, load_b(k0 + 2u, col));
        rank1(3u * TM, load_b(k0 + 3u, col));
        rank1(4u * TM, load_b(k0 + 4u, col));
        rank1(5u * TM, load_b(k0 + 5u, col));
        rank1(6u * TM, load_b(k0 + 6u, col));
        rank1(7u * TM, load_b(k0 + 7u, col));
        rank1(8u * TM, load_b(k0 + 8u, col));
        rank1(9u * TM, load_b(k0 + 9u, col));
        rank1(10u * TM, load_b(k0 + 10u, col));
        rank1(11u * TM, load_b(k0 + 11u, col));
        rank1(12u * TM, load_b(k0 + 12u, col));
        rank1(13u * TM, load_b(k0 + 13u, col));
        rank1(14u * TM, load_b(k0 + 14u, col));
        rank1(15u * TM, load_b(k0 + 15u, col));
        workgroupBarrier();
    }
    // ANCHOR_END: unrolled_tile
    store(row0 + 0u, col, accu[0]);
    store(row0 + 1u, col, accu[1]);
    store(row0 + 2u, col, accu[2]);
    store(row0 + 3u, col, accu[3]);
    store(row0 + 4u, col, accu[4]);
    store(row0 + 5u, col, accu[5]);
    store(row0 + 6u, col, accu[6]);
    store(row0 + 7u, col, accu[7]);
    store(row0 + 8u, col, accu[8]);
    store(row0 + 9u, col, accu[9]);
    store(row0 + 10u, col, accu[10]);
    store(row0 + 11u, col, accu[11]);
    store(row0 + 12u, col, accu[12]);
    store(row0 + 13u, col, accu[13]);
    store(row0 + 14u, col, accu[14]);
    store(row0 + 15u, col, accu[15]);
}

// C(row, col) = v inside the matrix (the tile may hang over its edge).
fn store(row: u32, col: u32, v: f32) {
    if row < dims.m && col < dims.n {
        c[row * dims.n + col] = v;
    }
}
