// 5kk73 step 4, "Computation Optimization": outer product instead of inner product.
// Change from step 3: a workgroup of 64 invocations computes a 16×64 tile of C (was 16×16 with
// 256 invocations). Only A goes through workgroup memory; B and C live in registers. For each
// k-tile of 16, the workgroup loads the 16×16 A tile (4 words per invocation, stored k-major so
// that column kk of the tile is 16 consecutive words), then for kk = 0..15 every invocation reads
// its ONE element of row kk of B straight from global memory into a register (coalesced across
// the workgroup) and adds the rank-1 update  C(:, col) += A_tile(:, kk) · b  to its 16
// accumulators. The inner statement has one workgroup-memory operand (a broadcast: every
// invocation reads the same word) instead of two, which is the point of the step on the 8800 GT,
// whose multiply-add could take only one operand from shared memory.
//
// Global traffic: A is read n/64 times, B m/16 times: m·n·k·(1/64 + 1/16) words for 2·m·n·k flops,
// 6.4 flop/byte.
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

const TM: u32 = 16u; // rows of the C tile = edge of the A tile = depth of a k-tile
const TN: u32 = 64u; // columns of the C tile = invocations per workgroup

var<workgroup> a_tile: array<f32, 256>; // a_tile[kk * 16 + r] = A(row0 + r, k0 + kk)

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) tid: u32) {
    let row0 = wg.y * TM;
    let col = wg.x * TN + tid;
    let tiles = (dims.k + TM - 1u) / TM;
    // ANCHOR: outer_product
    var accu: array<f32, 16>;
    for (var r = 0u; r < TM; r++) {
        accu[r] = 0.0;
    }
    for (var t = 0u; t < tiles; t++) {
        let k0 = t * TM;
        // 256 words of A, 4 per invocation; consecutive tid read consecutive words of a row of A.
        for (var q = 0u; q < 4u; q++) {
            let e = q * TN + tid;
            let r = e / TM;
            let kk = e % TM;
            a_tile[kk * TM + r] = load_a(row0 + r, k0 + kk);
        }
        workgroupBarrier();
        for (var kk = 0u; kk < TM; kk++) {
            let bv = load_b(k0 + kk, col); // B in a register
            for (var r = 0u; r < TM; r++) {
                accu[r] += a_tile[kk * TM + r] * bv;
            }
        }
        workgroupBarrier();
    }
    // ANCHOR_END: outer_product
    if col < dims.n {
        for (var r = 0u; r < TM; r++) {
            if row0 + r < dims.m {
                c[(row0 + r) * dims.n + col] = accu[r];
            }
        }
    }
}
