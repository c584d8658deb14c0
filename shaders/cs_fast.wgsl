// cs-fast: the compute method built for speed. What it does beyond 5kk73 step 6:
//
// - a BM×BN tile of C per workgroup of WG_X×WG_Y invocations, each invocation holding a register
//   block of RM×RN outputs as vec4 accumulators. The kernels (entry points):
//     `main_16x8`     16×8, k-loop over any BK;
//     `main_8x8`      8×8, k-loop over any BK;
//     `main_4x8`      4×8, k-loop over any BK;
//     `main_8x8_u8`   8×8, k-loop written out for BK = 8, register double-buffered (the
//                     workgroup-memory reads of step kk + 1 before the multiply-adds of step kk);
//     `main_16x8_u8`  16×8, the same;
//     `main_8x8_direct` 8×8, read straight from the buffers: no workgroup memory and no barrier
//                     (for CPU adapters, below);
// - every global and workgroup-memory access is a vec4 (16 bytes);
// - A is uploaded transposed (Aᵀ, k×m) so that a k-row of the A tile is contiguous, like B's;
// - the shared tiles (of every entry but `main_8x8_direct`) are double-buffered: the next k-tile is fetched from global memory into
//   registers before the multiply-adds on the current one and stored into the other buffer after
//   them, one barrier per k-tile;
// - all three buffers are zero-padded on the host to multiples of the tile (m to BM, n to BN,
//   k to BK), so the shader has no edge tests at all, and the Rust side compiles it with wgpu's
//   runtime bounds checks off (`Plan::trusted`). Why every index is in range is written next to
//   each access below; `src/methods/cs_fast.rs` checks the preconditions before dispatching.
//
// Preconditions (checked by the host, `cs_fast::Variant::check`):
//   dims.m % BM == 0, dims.k % BK == 0, dims.n % BN == 0 (the padded sizes, which are the sizes of
//   the buffers); BM == RM·WG_Y and BN == RN·WG_X with the kernel's RM×RN block; BK == 8 for
//   `main_8x8_u8` and `main_16x8_u8`;
//   for the entries that stage tiles (all but `main_8x8_direct`), BK·BM/4 and BK·BN/4 (vec4s per
//   tile) are 1 to 4 times WG_X·WG_Y; grid = (n/BN, m/BM).
//
// Layout: at[p·m/4 + i/4] = A(i..i+3, p); b[p·n/4 + j/4] = B(p, j..j+3); c[i·n/4 + j/4] = C(i, j..j+3).

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> at: array<vec4f>;
@group(0) @binding(1) var<storage, read> b: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4f>;
@group(0) @binding(3) var<uniform> dims: Dims;

// Invocations along n (x) and m (y).
override WG_X: u32 = 16u;
override WG_Y: u32 = 16u;
// The C tile of a workgroup, BM×BN, and the depth of one k-tile.
override BM: u32 = 128u;
override BN: u32 = 128u;
override BK: u32 = 8u;

// Two buffers of one k-tile each: a_s[buf·BK·BM/4 + kk·BM/4 + i/4] = A(row0 + i..i+3, k0 + kk).
var<workgroup> a_s: array<vec4f, BK * BM / 2u>;
var<workgroup> b_s: array<vec4f, BK * BN / 2u>;

// The next k-tile on its way from global memory to workgroup memory: up to 4 vec4s of A and of B
// per invocation (constant indices only, so they stay in registers).
var<private> pa: array<vec4f, 4>;
var<private> pb: array<vec4f, 4>;

// Vec4 e of k-tile t of the Aᵀ panel of rows row0.. (e < BK·BM/4): its k-row e / (BM/4) and its
// vec4 e % (BM/4) along m. In range: t·BK + e/(BM/4) < t·BK + BK <= dims.k, and
// row0/4 + e % (BM/4) < row0/4 + BM/4 <= dims.m/4, so the index is < dims.k·dims.m/4, the size of
// the padded Aᵀ buffer.
fn fetch_a(t: u32, e: u32, row0: u32) -> vec4f {
    let q = BM / 4u;
    return at[(t * BK + e / q) * (dims.m / 4u) + row0 / 4u + e % q];
}

// Vec4 e of k-tile t of the B panel of columns col0.. (e < BK·BN/4); in range as for A.
fn fetch_b(t: u32, e: u32, col0: u32) -> vec4f {
    let q = BN / 4u;
    return b[(t * BK + e / q) * (dims.n / 4u) + col0 / 4u + e % q];
}

// Fetch k-tile t into pa/pb: invocation tid takes vec4s tid, tid + T, tid + 2T, tid + 3T of each
// tile (T = WG_X·WG_Y) while they are in the tile. The conditions depend on override constants
// only (the host makes the tile a multiple of T), so they fold away when the pipeline is built.
fn fetch(t: u32, tid: u32, row0: u32, col0: u32) {
    let nt = WG_X * WG_Y;
    let qa = BK * BM / 4u;
    let qb = BK * BN / 4u;
    pa[0] = fetch_a(t, tid, row0);
    if nt < qa { pa[1] = fetch_a(t, tid + nt, row0); }
    if 2u * nt < qa { pa[2] = fetch_a(t, tid + 2u * nt, row0); }
    if 3u * nt < qa { pa[3] = fetch_a(t, tid + 3u * nt, row0); }
    pb[0] = fetch_b(t, tid, col0);
    if nt < qb { pb[1] = fetch_b(t, tid + nt, col0); }
    if 2u * nt < qb { pb[2] = fetch_b(t, tid + 2u * nt, col0); }
    if 3u * nt < qb { pb[3] = fetch_b(t, tid + 3u * nt, col0); }
}

// Store pa/pb into buffer buf (0 or 1) of the shared tiles, at the same vec4 positions e they were
// fetched from: buf·BK·BM/4 + e < 2·BK·BM/4, the size of a_s (e < BK·BM/4 by the conditions);
// likewise for b_s.
fn stash(buf: u32, tid: u32) {
    let nt = WG_X * WG_Y;
    let qa = BK * BM / 4u;
    let qb = BK * BN / 4u;
    let ao = buf * qa + tid;
    let bo = buf * qb + tid;
    a_s[ao] = pa[0];
    if nt < qa { a_s[ao + nt] = pa[1]; }
    if 2u * nt < qa { a_s[ao + 2u * nt] = pa[2]; }
    if 3u * nt < qa { a_s[ao + 3u * nt] = pa[3]; }
    b_s[bo] = pb[0];
    if nt < qb { b_s[bo + nt] = pb[1]; }
    if 2u * nt < qb { b_s[bo + 2u * nt] = pb[2]; }
    if 3u * nt < qb { b_s[bo + 3u * nt] = pb[3]; }
}

// 8×8 outputs per invocation: rows ty·4 + 0..3 and BM/2 + ty·4 + 0..3 of the tile, columns
// tx·4 + 0..3 and BN/2 + tx·4 + 0..3 (two halves, so that the vec4 reads of a warp from workgroup
// memory are contiguous and conflict-free). BM = 8·WG_Y, BN = 8·WG_X.
@compute @workgroup_size(WG_X, WG_Y)
fn main_8x8(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * BM;
    let col0 = wg.x * BN;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 16>; // acc[2r + h] = C(row r of the block, column half h), r < 8

    fetch(0u, tid, row0, col0);
    stash(0u, tid);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let cur = t & 1u;
        // Global loads of the next k-tile go out before the arithmetic on this one.
        if t + 1u < tiles {
            fetch(t + 1u, tid, row0, col0);
        }
        let ab = cur * (BK * BM / 4u);
        let bb = cur * (BK * BN / 4u);
        // ANCHOR: register_block
        for (var kk = 0u; kk < BK; kk++) {
            // In range: ab + kk·BM/4 + BM/8 + ty < ab + (kk + 1)·BM/4 <= 2·BK·BM/4 since
            // ty < WG_Y = BM/8; likewise tx < WG_X = BN/8 for B.
            let a0 = a_s[ab + kk * (BM / 4u) + ty];
            let a1 = a_s[ab + kk * (BM / 4u) + BM / 8u + ty];
            let b0 = b_s[bb + kk * (BN / 4u) + tx];
            let b1 = b_s[bb + kk * (BN / 4u) + BN / 8u + tx];
            acc[0] = fma(vec4f(a0.x), b0, acc[0]);
            acc[1] = fma(vec4f(a0.x), b1, acc[1]);
            acc[2] = fma(vec4f(a0.y), b0, acc[2]);
            acc[3] = fma(vec4f(a0.y), b1, acc[3]);
            acc[4] = fma(vec4f(a0.z), b0, acc[4]);
            acc[5] = fma(vec4f(a0.z), b1, acc[5]);
            acc[6] = fma(vec4f(a0.w), b0, acc[6]);
            acc[7] = fma(vec4f(a0.w), b1, acc[7]);
            acc[8] = fma(vec4f(a1.x), b0, acc[8]);
            acc[9] = fma(vec4f(a1.x), b1, acc[9]);
            acc[10] = fma(vec4f(a1.y), b0, acc[10]);
            acc[11] = fma(vec4f(a1.y), b1, acc[11]);
            acc[12] = fma(vec4f(a1.z), b0, acc[12]);
            acc[13] = fma(vec4f(a1.z), b1, acc[13]);
            acc[14] = fma(vec4f(a1.w), b0, acc[14]);
            acc[15] = fma(vec4f(a1.w), b1, acc[15]);
        }
        // ANCHOR_END: register_block
        // Buffer cur ^ 1 was last read in iteration t - 1, which every invocation finished
        // before the barrier that ended it.
        if t + 1u < tiles {
            stash(cur ^ 1u, tid);
        }
        workgroupBarrier();
    }

    // In range: row < row0 + BM <= dims.m and the vec4 column < (col0 + BN)/4 <= dims.n/4.
    let nv = dims.n / 4u;
    let r0 = row0 + ty * 4u;
    let r1 = r0 + BM / 2u;
    let c0 = col0 / 4u + tx;
    let c1 = c0 + BN / 8u;
    c[(r0 + 0u) * nv + c0] = acc[0];
    c[(r0 + 0u) * nv + c1] = acc[1];
    c[(r0 + 1u) * nv + c0] = acc[2];
    c[(r0 + 1u) * nv + c1] = acc[3];
    c[(r0 + 2u) * nv + c0] = acc[4];
    c[(r0 + 2u) * nv + c1] = acc[5];
    c[(r0 + 3u) * nv + c0] = acc[6];
    c[(r0 + 3u) * nv + c1] = acc[7];
    c[(r1 + 0u) * nv + c0] = acc[8];
    c[(r1 + 0u) * nv + c1] = acc[9];
    c[(r1 + 1u) * nv + c0] = acc[10];
    c[(r1 + 1u) * nv + c1] = acc[11];
    c[(r1 + 2u) * nv + c0] = acc[12];
    c[(r1 + 2u) * nv + c1] = acc[13];
    c[(r1 + 3u) * nv + c0] = acc[14];
    c[(r1 + 3u) * nv + c1] = acc[15];
}

// 4×8 outputs per invocation: rows ty·4 + 0..3 of the tile, columns tx·4 + 0..3 and
// BN/2 + tx·4 + 0..3. BM = 4·WG_Y, BN = 8·WG_X. Half the registers of `main_8x8`, so more
// invocations per multiprocessor, at 2/3 of its multiply-adds per workgroup-memory read.
@compute @workgroup_size(WG_X, WG_Y)
fn main_4x8(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * BM;
    let col0 = wg.x * BN;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 8>; // acc[2r + h], r < 4

    fetch(0u, tid, row0, col0);
    stash(0u, tid);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let cur = t & 1u;
        if t + 1u < tiles {
            fetch(t + 1u, tid, row0, col0);
        }
        let ab = cur * (BK * BM / 4u);
        let bb = cur * (BK * BN / 4u);
        for (var kk = 0u; kk < BK; kk++) {
            // In range: ty < WG_Y = BM/4, tx < WG_X = BN/8.
            let a0 = a_s[ab + kk * (BM / 4u) + ty];
            let b0 = b_s[bb + kk * (BN / 4u) + tx];
            let b1 = b_s[bb + kk * (BN / 4u) + BN / 8u + tx];
            acc[0] = fma(vec4f(a0.x), b0, acc[0]);
            acc[1] = fma(vec4f(a0.x), b1, acc[1]);
            acc[2] = fma(vec4f(a0.y), b0, acc[2]);
            acc[3] = fma(vec4f(a0.y), b1, acc[3]);
            acc[4] = fma(vec4f(a0.z), b0, acc[4]);
            acc[5] = fma(vec4f(a0.z), b1, acc[5]);
            acc[6] = fma(vec4f(a0.w), b0, acc[6]);
            acc[7] = fma(vec4f(a0.w), b1, acc[7]);
        }
        if t + 1u < tiles {
            stash(cur ^ 1u, tid);
        }
        workgroupBarrier();
    }

    let nv = dims.n / 4u;
    let r0 = row0 + ty * 4u;
    let c0 = col0 / 4u + tx;
    let c1 = c0 + BN / 8u;
    c[(r0 + 0u) * nv + c0] = acc[0];
    c[(r0 + 0u) * nv + c1] = acc[1];
    c[(r0 + 1u) * nv + c0] = acc[2];
    c[(r0 + 1u) * nv + c1] = acc[3];
    c[(r0 + 2u) * nv + c0] = acc[4];
    c[(r0 + 2u) * nv + c1] = acc[5];
    c[(r0 + 3u) * nv + c0] = acc[6];
    c[(r0 + 3u) * nv + c1] = acc[7];
}

// 16×8 outputs per invocation: rows q·BM/4 + ty·4 + 0..3 for q = 0..3 (four bands of the tile),
// columns tx·4 + 0..3 and BN/2 + tx·4 + 0..3. BM = 16·WG_Y, BN = 8·WG_X. Twice the outputs of
// `main_8x8` for 1.5 times its workgroup-memory reads per k-step (6 vec4s for 128 multiply-adds),
// at about twice its registers.
@compute @workgroup_size(WG_X, WG_Y)
fn main_16x8(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * BM;
    let col0 = wg.x * BN;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 32>; // acc[8q + 2r + h] = C(row r of band q, column half h), r < 4

    fetch(0u, tid, row0, col0);
    stash(0u, tid);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let cur = t & 1u;
        if t + 1u < tiles {
            fetch(t + 1u, tid, row0, col0);
        }
        let ab = cur * (BK * BM / 4u);
        let bb = cur * (BK * BN / 4u);
        for (var kk = 0u; kk < BK; kk++) {
            // In range: ab + kk·BM/4 + 3·BM/16 + ty < ab + (kk + 1)·BM/4 <= 2·BK·BM/4 since
            // ty < WG_Y = BM/16; tx < WG_X = BN/8 for B as in main_8x8.
            let ar = ab + kk * (BM / 4u) + ty;
            let a0 = a_s[ar];
            let a1 = a_s[ar + BM / 16u];
            let a2 = a_s[ar + BM / 8u];
            let a3 = a_s[ar + 3u * BM / 16u];
            let b0 = b_s[bb + kk * (BN / 4u) + tx];
            let b1 = b_s[bb + kk * (BN / 4u) + BN / 8u + tx];
            acc[0] = fma(vec4f(a0.x), b0, acc[0]);
            acc[1] = fma(vec4f(a0.x), b1, acc[1]);
            acc[2] = fma(vec4f(a0.y), b0, acc[2]);
            acc[3] = fma(vec4f(a0.y), b1, acc[3]);
            acc[4] = fma(vec4f(a0.z), b0, acc[4]);
            acc[5] = fma(vec4f(a0.z), b1, acc[5]);
            acc[6] = fma(vec4f(a0.w), b0, acc[6]);
            acc[7] = fma(vec4f(a0.w), b1, acc[7]);
            acc[8] = fma(vec4f(a1.x), b0, acc[8]);
            acc[9] = fma(vec4f(a1.x), b1, acc[9]);
            acc[10] = fma(vec4f(a1.y), b0, acc[10]);
            acc[11] = fma(vec4f(a1.y), b1, acc[11]);
            acc[12] = fma(vec4f(a1.z), b0, acc[12]);
            acc[13] = fma(vec4f(a1.z), b1, acc[13]);
            acc[14] = fma(vec4f(a1.w), b0, acc[14]);
            acc[15] = fma(vec4f(a1.w), b1, acc[15]);
            acc[16] = fma(vec4f(a2.x), b0, acc[16]);
            acc[17] = fma(vec4f(a2.x), b1, acc[17]);
            acc[18] = fma(vec4f(a2.y), b0, acc[18]);
            acc[19] = fma(vec4f(a2.y), b1, acc[19]);
            acc[20] = fma(vec4f(a2.z), b0, acc[20]);
            acc[21] = fma(vec4f(a2.z), b1, acc[21]);
            acc[22] = fma(vec4f(a2.w), b0, acc[22]);
            acc[23] = fma(vec4f(a2.w), b1, acc[23]);
            acc[24] = fma(vec4f(a3.x), b0, acc[24]);
            acc[25] = fma(vec4f(a3.x), b1, acc[25]);
            acc[26] = fma(vec4f(a3.y), b0, acc[26]);
            acc[27] = fma(vec4f(a3.y), b1, acc[27]);
            acc[28] = fma(vec4f(a3.z), b0, acc[28]);
            acc[29] = fma(vec4f(a3.z), b1, acc[29]);
            acc[30] = fma(vec4f(a3.w), b0, acc[30]);
            acc[31] = fma(vec4f(a3.w), b1, acc[31]);
        }
        if t + 1u < tiles {
            stash(cur ^ 1u, tid);
        }
        workgroupBarrier();
    }

    // In range: row < row0 + BM <= dims.m and the vec4 column < (col0 + BN)/4 <= dims.n/4.
    let nv = dims.n / 4u;
    let c0 = col0 / 4u + tx;
    let c1 = c0 + BN / 8u;
    let r0 = row0 + 0u * (BM / 4u) + ty * 4u;
    let r1 = row0 + 1u * (BM / 4u) + ty * 4u;
    let r2 = row0 + 2u * (BM / 4u) + ty * 4u;
    let r3 = row0 + 3u * (BM / 4u) + ty * 4u;
    c[(r0 + 0u) * nv + c0] = acc[0];
    c[(r0 + 0u) * nv + c1] = acc[1];
    c[(r0 + 1u) * nv + c0] = acc[2];
    c[(r0 + 1u) * nv + c1] = acc[3];
    c[(r0 + 2u) * nv + c0] = acc[4];
    c[(r0 + 2u) * nv + c1] = acc[5];
    c[(r0 + 3u) * nv + c0] = acc[6];
    c[(r0 + 3u) * nv + c1] = acc[7];
    c[(r1 + 0u) * nv + c0] = acc[8];
    c[(r1 + 0u) * nv + c1] = acc[9];
    c[(r1 + 1u) * nv + c0] = acc[10];
    c[(r1 + 1u) * nv + c1] = acc[11];
    c[(r1 + 2u) * nv + c0] = acc[12];
    c[(r1 + 2u) * nv + c1] = acc[13];
    c[(r1 + 3u) * nv + c0] = acc[14];
    c[(r1 + 3u) * nv + c1] = acc[15];
    c[(r2 + 0u) * nv + c0] = acc[16];
    c[(r2 + 0u) * nv + c1] = acc[17];
    c[(r2 + 1u) * nv + c0] = acc[18];
    c[(r2 + 1u) * nv + c1] = acc[19];
    c[(r2 + 2u) * nv + c0] = acc[20];
    c[(r2 + 2u) * nv + c1] = acc[21];
    c[(r2 + 3u) * nv + c0] = acc[22];
    c[(r2 + 3u) * nv + c1] = acc[23];
    c[(r3 + 0u) * nv + c0] = acc[24];
    c[(r3 + 0u) * nv + c1] = acc[25];
    c[(r3 + 1u) * nv + c0] = acc[26];
    c[(r3 + 1u) * nv + c1] = acc[27];
    c[(r3 + 2u) * nv + c0] = acc[28];
    c[(r3 + 2u) * nv + c1] = acc[29];
    c[(r3 + 3u) * nv + c0] = acc[30];
    c[(r3 + 3u) * nv + c1] = acc[31];
}

// ---- Register-double-buffered kernels with the k-loop written out ----
//
// The helpers below are called with constant kk (written-out kernels) or the loop's kk, and
// index the accumulators with constants only, so that the driver inlines them and keeps `acc` in
// registers. Their precondition is kk < BK; the written-out kernels pass kk = 0..BK-1 for the one
// BK they are written for, which the host checks (`cs_fast::Entry::bk`).

// The workgroup-memory reads of k-step kk for an 8×8 block: A rows ty·4 + 0..3 and
// BM/2 + ty·4 + 0..3, B column halves tx·4 + 0..3 and BN/2 + tx·4 + 0..3, as in `main_8x8`.
struct Frag8x8 { a0: vec4f, a1: vec4f, b0: vec4f, b1: vec4f }

// In range: ab + kk·BM/4 + BM/8 + ty < ab + (kk + 1)·BM/4 <= 2·BK·BM/4 since ty < WG_Y = BM/8
// and kk < BK; likewise tx < WG_X = BN/8 for B.
fn frag_8x8(ab: u32, bb: u32, kk: u32, tx: u32, ty: u32) -> Frag8x8 {
    let a0 = a_s[ab + kk * (BM / 4u) + ty];
    let a1 = a_s[ab + kk * (BM / 4u) + BM / 8u + ty];
    let b0 = b_s[bb + kk * (BN / 4u) + tx];
    let b1 = b_s[bb + kk * (BN / 4u) + BN / 8u + tx];
    return Frag8x8(a0, a1, b0, b1);
}

// The 64 multiply-adds of one k-step into acc[2r + h] = C(row r of the block, column half h),
// r < 8.
fn fma_8x8(acc: ptr<function, array<vec4f, 16>>, f: Frag8x8) {
    (*acc)[0] = fma(vec4f(f.a0.x), f.b0, (*acc)[0]);
    (*acc)[1] = fma(vec4f(f.a0.x), f.b1, (*acc)[1]);
    (*acc)[2] = fma(vec4f(f.a0.y), f.b0, (*acc)[2]);
    (*acc)[3] = fma(vec4f(f.a0.y), f.b1, (*acc)[3]);
    (*acc)[4] = fma(vec4f(f.a0.z), f.b0, (*acc)[4]);
    (*acc)[5] = fma(vec4f(f.a0.z), f.b1, (*acc)[5]);
    (*acc)[6] = fma(vec4f(f.a0.w), f.b0, (*acc)[6]);
    (*acc)[7] = fma(vec4f(f.a0.w), f.b1, (*acc)[7]);
    (*acc)[8] = fma(vec4f(f.a1.x), f.b0, (*acc)[8]);
    (*acc)[9] = fma(vec4f(f.a1.x), f.b1, (*acc)[9]);
    (*acc)[10] = fma(vec4f(f.a1.y), f.b0, (*acc)[10]);
    (*acc)[11] = fma(vec4f(f.a1.y), f.b1, (*acc)[11]);
    (*acc)[12] = fma(vec4f(f.a1.z), f.b0, (*acc)[12]);
    (*acc)[13] = fma(vec4f(f.a1.z), f.b1, (*acc)[13]);
    (*acc)[14] = fma(vec4f(f.a1.w), f.b0, (*acc)[14]);
    (*acc)[15] = fma(vec4f(f.a1.w), f.b1, (*acc)[15]);
}

// As step_4x8: the reads of step kk (kk < BK) before the multiply-adds of the previous step.
fn step_8x8(acc: ptr<function, array<vec4f, 16>>, f: Frag8x8, ab: u32, bb: u32, kk: u32, tx: u32, ty: u32) -> Frag8x8 {
    let next = frag_8x8(ab, bb, kk, tx, ty);
    fma_8x8(acc, f);
    return next;
}

// `main_8x8` with its k-loop written out for BK = 8 (the host checks BK == 8) and register
// double-buffering as in `main_4x8_u8`.
@compute @workgroup_size(WG_X, WG_Y)
fn main_8x8_u8(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * BM;
    let col0 = wg.x * BN;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 16>; // acc[2r + h], r < 8

    fetch(0u, tid, row0, col0);
    stash(0u, tid);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let cur = t & 1u;
        if t + 1u < tiles {
            fetch(t + 1u, tid, row0, col0);
        }
        let ab = cur * (BK * BM / 4u);
        let bb = cur * (BK * BN / 4u);
        // kk = 0..7 < BK = 8.
        let f0 = frag_8x8(ab, bb, 0u, tx, ty);
        let f1 = step_8x8(&acc, f0, ab, bb, 1u, tx, ty);
        let f2 = step_8x8(&acc, f1, ab, bb, 2u, tx, ty);
        let f3 = step_8x8(&acc, f2, ab, bb, 3u, tx, ty);
        let f4 = step_8x8(&acc, f3, ab, bb, 4u, tx, ty);
        let f5 = step_8x8(&acc, f4, ab, bb, 5u, tx, ty);
        let f6 = step_8x8(&acc, f5, ab, bb, 6u, tx, ty);
        let f7 = step_8x8(&acc, f6, ab, bb, 7u, tx, ty);
        fma_8x8(&acc, f7);
        if t + 1u < tiles {
            stash(cur ^ 1u, tid);
        }
        workgroupBarrier();
    }

    // In range: row < row0 + BM <= dims.m (ty < WG_Y = BM/8) and the vec4 column
    // < (col0 + BN)/4 <= dims.n/4 (tx < WG_X = BN/8).
    let nv = dims.n / 4u;
    let r0 = row0 + ty * 4u;
    let r1 = r0 + BM / 2u;
    let c0 = col0 / 4u + tx;
    let c1 = c0 + BN / 8u;
    c[(r0 + 0u) * nv + c0] = acc[0];
    c[(r0 + 0u) * nv + c1] = acc[1];
    c[(r0 + 1u) * nv + c0] = acc[2];
    c[(r0 + 1u) * nv + c1] = acc[3];
    c[(r0 + 2u) * nv + c0] = acc[4];
    c[(r0 + 2u) * nv + c1] = acc[5];
    c[(r0 + 3u) * nv + c0] = acc[6];
    c[(r0 + 3u) * nv + c1] = acc[7];
    c[(r1 + 0u) * nv + c0] = acc[8];
    c[(r1 + 0u) * nv + c1] = acc[9];
    c[(r1 + 1u) * nv + c0] = acc[10];
    c[(r1 + 1u) * nv + c1] = acc[11];
    c[(r1 + 2u) * nv + c0] = acc[12];
    c[(r1 + 2u) * nv + c1] = acc[13];
    c[(r1 + 3u) * nv + c0] = acc[14];
    c[(r1 + 3u) * nv + c1] = acc[15];
}

// The workgroup-memory reads of k-step kk for a 16×8 block: A rows q·BM/4 + ty·4 + 0..3 (four
// bands, q < 4) and B column halves tx·4 + 0..3 and BN/2 + tx·4 + 0..3, as in `main_16x8`.
// ANCHOR: frag_16x8
struct Frag16x8 { a0: vec4f, a1: vec4f, a2: vec4f, a3: vec4f, b0: vec4f, b1: vec4f }

// In range: ab + kk·BM/4 + 3·BM/16 + ty < ab + (kk + 1)·BM/4 <= 2·BK·BM/4 since
// ty < WG_Y = BM/16 and kk < BK; tx < WG_X = BN/8 for B as in frag_8x8.
fn frag_16x8(ab: u32, bb: u32, kk: u32, tx: u32, ty: u32) -> Frag16x8 {
    let ar = ab + kk * (BM / 4u) + ty;
    let br = bb + kk * (BN / 4u) + tx;
    return Frag16x8(
        a_s[ar],
        a_s[ar + BM / 16u],
        a_s[ar + BM / 8u],
        a_s[ar + 3u * BM / 16u],
        b_s[br],
        b_s[br + BN / 8u],
    );
}
// ANCHOR_END: frag_16x8

// The 128 multiply-adds of one k-step into acc[8q + 2r + h] = C(row r of band q, column half h).
fn fma_16x8(acc: ptr<function, array<vec4f, 32>>, f: Frag16x8) {
    (*acc)[0] = fma(vec4f(f.a0.x), f.b0, (*acc)[0]);
    (*acc)[1] = fma(vec4f(f.a0.x), f.b1, (*acc)[1]);
    (*acc)[2] = fma(vec4f(f.a0.y), f.b0, (*acc)[2]);
    (*acc)[3] = fma(vec4f(f.a0.y), f.b1, (*acc)[3]);
    (*acc)[4] = fma(vec4f(f.a0.z), f.b0, (*acc)[4]);
    (*acc)[5] = fma(vec4f(f.a0.z), f.b1, (*acc)[5]);
    (*acc)[6] = fma(vec4f(f.a0.w), f.b0, (*acc)[6]);
    (*acc)[7] = fma(vec4f(f.a0.w), f.b1, (*acc)[7]);
    (*acc)[8] = fma(vec4f(f.a1.x), f.b0, (*acc)[8]);
    (*acc)[9] = fma(vec4f(f.a1.x), f.b1, (*acc)[9]);
    (*acc)[10] = fma(vec4f(f.a1.y), f.b0, (*acc)[10]);
    (*acc)[11] = fma(vec4f(f.a1.y), f.b1, (*acc)[11]);
    (*acc)[12] = fma(vec4f(f.a1.z), f.b0, (*acc)[12]);
    (*acc)[13] = fma(vec4f(f.a1.z), f.b1, (*acc)[13]);
    (*acc)[14] = fma(vec4f(f.a1.w), f.b0, (*acc)[14]);
    (*acc)[15] = fma(vec4f(f.a1.w), f.b1, (*acc)[15]);
    (*acc)[16] = fma(vec4f(f.a2.x), f.b0, (*acc)[16]);
    (*acc)[17] = fma(vec4f(f.a2.x), f.b1, (*acc)[17]);
    (*acc)[18] = fma(vec4f(f.a2.y), f.b0, (*acc)[18]);
    (*acc)[19] = fma(vec4f(f.a2.y), f.b1, (*acc)[19]);
    (*acc)[20] = fma(vec4f(f.a2.z), f.b0, (*acc)[20]);
    (*acc)[21] = fma(vec4f(f.a2.z), f.b1, (*acc)[21]);
    (*acc)[22] = fma(vec4f(f.a2.w), f.b0, (*acc)[22]);
    (*acc)[23] = fma(vec4f(f.a2.w), f.b1, (*acc)[23]);
    (*acc)[24] = fma(vec4f(f.a3.x), f.b0, (*acc)[24]);
    (*acc)[25] = fma(vec4f(f.a3.x), f.b1, (*acc)[25]);
    (*acc)[26] = fma(vec4f(f.a3.y), f.b0, (*acc)[26]);
    (*acc)[27] = fma(vec4f(f.a3.y), f.b1, (*acc)[27]);
    (*acc)[28] = fma(vec4f(f.a3.z), f.b0, (*acc)[28]);
    (*acc)[29] = fma(vec4f(f.a3.z), f.b1, (*acc)[29]);
    (*acc)[30] = fma(vec4f(f.a3.w), f.b0, (*acc)[30]);
    (*acc)[31] = fma(vec4f(f.a3.w), f.b1, (*acc)[31]);
}

// As step_8x8 for the 16×8 block.
fn step_16x8(acc: ptr<function, array<vec4f, 32>>, f: Frag16x8, ab: u32, bb: u32, kk: u32, tx: u32, ty: u32) -> Frag16x8 {
    let next = frag_16x8(ab, bb, kk, tx, ty);
    fma_16x8(acc, f);
    return next;
}

// `main_16x8` with its k-loop written out for BK = 8 (the host checks BK == 8) and register
// double-buffering as in `main_8x8_u8`.
@compute @workgroup_size(WG_X, WG_Y)
fn main_16x8_u8(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
    @builtin(local_invocation_index) tid: u32,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row0 = wg.y * BM;
    let col0 = wg.x * BN;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 32>; // acc[8q + 2r + h], q < 4, r < 4

    fetch(0u, tid, row0, col0);
    stash(0u, tid);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let cur = t & 1u;
        if t + 1u < tiles {
            fetch(t + 1u, tid, row0, col0);
        }
        let ab = cur * (BK * BM / 4u);
        let bb = cur * (BK * BN / 4u);
        // kk = 0..7 < BK = 8.
        let f0 = frag_16x8(ab, bb, 0u, tx, ty);
        let f1 = step_16x8(&acc, f0, ab, bb, 1u, tx, ty);
        let f2 = step_16x8(&acc, f1, ab, bb, 2u, tx, ty);
        let f3 = step_16x8(&acc, f2, ab, bb, 3u, tx, ty);
        let f4 = step_16x8(&acc, f3, ab, bb, 4u, tx, ty);
        let f5 = step_16x8(&acc, f4, ab, bb, 5u, tx, ty);
        let f6 = step_16x8(&acc, f5, ab, bb, 6u, tx, ty);
        let f7 = step_16x8(&acc, f6, ab, bb, 7u, tx, ty);
        fma_16x8(&acc, f7);
        if t + 1u < tiles {
            stash(cur ^ 1u, tid);
        }
        workgroupBarrier();
    }

    // In range: row < row0 + BM <= dims.m and the vec4 column < (col0 + BN)/4 <= dims.n/4, as in
    // main_16x8. The stores stay here: moved into a function taking a pointer to the 32
    // accumulators (shared with main_16x8), they gave wrong results on the H100's Vulkan driver
    // (580.159.04; rel_err 0.26 at 4096), where lavapipe's were right
    // (docs/perf/h100/cs-fast-store-function.txt).
    let nv = dims.n / 4u;
    let c0 = col0 / 4u + tx;
    let c1 = c0 + BN / 8u;
    for (var q = 0u; q < 4u; q++) {
        let r = row0 + q * (BM / 4u) + ty * 4u;
        c[(r + 0u) * nv + c0] = acc[8u * q + 0u];
        c[(r + 0u) * nv + c1] = acc[8u * q + 1u];
        c[(r + 1u) * nv + c0] = acc[8u * q + 2u];
        c[(r + 1u) * nv + c1] = acc[8u * q + 3u];
        c[(r + 2u) * nv + c0] = acc[8u * q + 4u];
        c[(r + 2u) * nv + c1] = acc[8u * q + 5u];
        c[(r + 3u) * nv + c0] = acc[8u * q + 6u];
        c[(r + 3u) * nv + c1] = acc[8u * q + 7u];
    }
}

// ---- For CPU adapters: no workgroup memory ----
//
// `main_8x8` without the staging: each invocation reads its vec4s of Aᵀ and B straight from the
// buffers, k-row by k-row, into the same 8×8 block of C. On a CPU adapter (lavapipe, a browser's
// SwiftShader) workgroup memory is the same memory as the buffers, behind the same caches, so
// staging buys nothing, and a barrier makes the driver compile the kernel as coroutines that are
// suspended at each one: in headless Chromium on SwiftShader this entry compiled in 60–90 ms where
// `main_8x8` took 0.9–2 s, and multiplied n = 256 to 1024 in 0.6–0.7 of its time
// (`docs/web.md`). The C tile (BM = 8·WG_Y, BN = 8·WG_X) only says which invocation computes which
// block; BK is how far k is padded and the inner loop's length.
@compute @workgroup_size(WG_X, WG_Y)
fn main_8x8_direct(
    @builtin(workgroup_id) wg: vec3u,
    @builtin(local_invocation_id) lid: vec3u,
) {
    let mv = dims.m / 4u;
    let nv = dims.n / 4u;
    // Vec4 columns of Aᵀ (rows of A) and of B this invocation reads, as in `main_8x8`: rows
    // ty·4 + 0..3 and BM/2 + ty·4 + 0..3 of the tile, columns tx·4 + 0..3 and BN/2 + tx·4 + 0..3.
    // In range: a1 = wg.y·BM/4 + BM/8 + ty < (wg.y + 1)·BM/4 <= dims.m/4 since ty < WG_Y = BM/8;
    // likewise b1 < dims.n/4 since tx < WG_X = BN/8.
    let a0 = wg.y * (BM / 4u) + lid.y;
    let a1 = a0 + BM / 8u;
    let b0 = wg.x * (BN / 4u) + lid.x;
    let b1 = b0 + BN / 8u;
    let tiles = dims.k / BK;
    var acc: array<vec4f, 16>; // acc[2r + h] = C(row r of the block, column half h), r < 8

    for (var t = 0u; t < tiles; t++) {
        for (var kk = 0u; kk < BK; kk++) {
            // In range: p < tiles·BK = dims.k, so p·dims.m/4 + a1 < dims.k·dims.m/4, the size of
            // the padded Aᵀ buffer; likewise for B.
            let p = t * BK + kk;
            let x0 = at[p * mv + a0];
            let x1 = at[p * mv + a1];
            let y0 = b[p * nv + b0];
            let y1 = b[p * nv + b1];
            acc[0] = fma(vec4f(x0.x), y0, acc[0]);
            acc[1] = fma(vec4f(x0.x), y1, acc[1]);
            acc[2] = fma(vec4f(x0.y), y0, acc[2]);
            acc[3] = fma(vec4f(x0.y), y1, acc[3]);
            acc[4] = fma(vec4f(x0.z), y0, acc[4]);
            acc[5] = fma(vec4f(x0.z), y1, acc[5]);
            acc[6] = fma(vec4f(x0.w), y0, acc[6]);
            acc[7] = fma(vec4f(x0.w), y1, acc[7]);
            acc[8] = fma(vec4f(x1.x), y0, acc[8]);
            acc[9] = fma(vec4f(x1.x), y1, acc[9]);
            acc[10] = fma(vec4f(x1.y), y0, acc[10]);
            acc[11] = fma(vec4f(x1.y), y1, acc[11]);
            acc[12] = fma(vec4f(x1.z), y0, acc[12]);
            acc[13] = fma(vec4f(x1.z), y1, acc[13]);
            acc[14] = fma(vec4f(x1.w), y0, acc[14]);
            acc[15] = fma(vec4f(x1.w), y1, acc[15]);
        }
    }

    // In range: row < (wg.y + 1)·BM <= dims.m and the vec4 columns b0, b1 < dims.n/4 (above).
    let r0 = wg.y * BM + lid.y * 4u;
    let r1 = r0 + BM / 2u;
    c[(r0 + 0u) * nv + b0] = acc[0];
    c[(r0 + 0u) * nv + b1] = acc[1];
    c[(r0 + 1u) * nv + b0] = acc[2];
    c[(r0 + 1u) * nv + b1] = acc[3];
    c[(r0 + 2u) * nv + b0] = acc[4];
    c[(r0 + 2u) * nv + b1] = acc[5];
    c[(r0 + 3u) * nv + b0] = acc[6];
    c[(r0 + 3u) * nv + b1] = acc[7];
    c[(r1 + 0u) * nv + b0] = acc[8];
    c[(r1 + 0u) * nv + b1] = acc[9];
    c[(r1 + 1u) * nv + b0] = acc[10];
    c[(r1 + 1u) * nv + b1] = acc[11];
    c[(r1 + 2u) * nv + b0] = acc[12];
    c[(r1 + 2u) * nv + b1] = acc[13];
    c[(r1 + 3u) * nv + b0] = acc[14];
    c[(r1 + 3u) * nv + b1] = acc[15];
}
