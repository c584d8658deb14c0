// coop, several subgroups per workgroup: the variants `128x128-frag`, `256x128-frag` and
// `128x128-frag-pipe` of `coop` (src/methods/coop.rs), and below them the staged variants
// `128x128-smem`, `128x128-smem-db`, `128x128-smem-db-64x32`, `128x256-smem-pf` and
// `128x256-smem48`, which copy tiles of A and B into workgroup memory first (see "Staged in
// workgroup memory").
//
// The `-frag` variants: same arithmetic as `shaders/coop.wgsl`'s `main_4x4` with FRAGMENTS = true
// (f16 fragments of 16×16 loaded straight from global memory, f32 accumulators, one tensor-core
// multiply-add per pair), but a workgroup is SM×SN subgroups of 32 invocations, each computing its
// own 64×64 block of a (64·SM)×(64·SN) workgroup tile of C: the subgroups of one workgroup run on
// one SM at about the same pace, so the fragments of A (shared along a tile row) and of B (shared
// along a tile column) they load at the same k step come from L1 rather than L2 after the first.
//
// Subgroup s = local_invocation_index / 32 takes block (s / SN, s % SN) of the tile. A
// cooperative matrix belongs to a whole subgroup, so that index must be uniform in each
// subgroup: it is where subgroups are 32 invocations of consecutive local_invocation_index (the
// NVIDIA layout; the host refuses subgroups wider than 32). Narrower subgroups that partition
// consecutive invocations compute their 32-group's block redundantly, as in coop.wgsl.
//
// Layout of the `-frag` variants: the fragment layout of coop.wgsl (FRAGMENTS = true there): A's
// fragment (I, P) at (I·k/16 + P)·256, B's fragment (P, J) at (J·k/16 + P)·256, each 512
// contiguous bytes; c[i·n + j] = C(i, j) as f32, row-major. The host pads m to 64·SM, n to 64·SN
// and k to 16, so there are no edge tests (runtime bounds checks off, as for coop.wgsl). Grid:
// (n / (64·SN), m / (64·SM)).
//
// `main_2x2_pipe` is `main_2x2` with the next k step's eight fragments loaded before the
// current step's sixteen multiply-adds (software pipelining in registers); on the last step it
// reloads the last fragments (kn = min(k0 + 16, k − 16)) rather than read past the buffers.

enable f16;
enable wgpu_cooperative_matrix;

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f16>;
@group(0) @binding(1) var<storage, read> b: array<f16>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias Acc = coop_mat16x16<f32, C>;

// Fragment (row0 + 16·i, k0) of A and (k0, col0 + 16·j) of B, fragment layout. (Index and stride
// bound with `let` before the cooperative load or store: see store_c in coop.wgsl.)
fn load_a(row0: u32, i: u32, k0: u32) -> FragA {
    let at = ((row0 / 16u + i) * (dims.k / 16u) + k0 / 16u) * 256u;
    let stride = 16u;
    return coopLoadT<FragA>(&a[at], stride);
}

fn load_b(k0: u32, col0: u32, j: u32) -> FragB {
    let at = ((col0 / 16u + j) * (dims.k / 16u) + k0 / 16u) * 256u;
    let stride = 16u;
    return coopLoadT<FragB>(&b[at], stride);
}

fn store_c(acc: Acc, row0: u32, i: u32, col0: u32, j: u32) {
    let stride = dims.n;
    let at = (row0 + 16u * i) * stride + col0 + 16u * j;
    coopStoreT(acc, &c[at], stride);
}

// A 64×64 block of C (4×4 fragments) at (row0, col0): fragment (i, j) at row0 + 16i, col0 + 16j.
fn store_4x4(
    c00: Acc,
    c01: Acc,
    c02: Acc,
    c03: Acc,
    c10: Acc,
    c11: Acc,
    c12: Acc,
    c13: Acc,
    c20: Acc,
    c21: Acc,
    c22: Acc,
    c23: Acc,
    c30: Acc,
    c31: Acc,
    c32: Acc,
    c33: Acc,
    row0: u32,
    col0: u32,
) {
    store_c(c00, row0, 0u, col0, 0u);
    store_c(c01, row0, 0u, col0, 1u);
    store_c(c02, row0, 0u, col0, 2u);
    store_c(c03, row0, 0u, col0, 3u);
    store_c(c10, row0, 1u, col0, 0u);
    store_c(c11, row0, 1u, col0, 1u);
    store_c(c12, row0, 1u, col0, 2u);
    store_c(c13, row0, 1u, col0, 3u);
    store_c(c20, row0, 2u, col0, 0u);
    store_c(c21, row0, 2u, col0, 1u);
    store_c(c22, row0, 2u, col0, 2u);
    store_c(c23, row0, 2u, col0, 3u);
    store_c(c30, row0, 3u, col0, 0u);
    store_c(c31, row0, 3u, col0, 1u);
    store_c(c32, row0, 3u, col0, 2u);
    store_c(c33, row0, 3u, col0, 3u);
}

// The 64×64 block of C at (row0, col0), as main_4x4 in coop.wgsl.
fn block_4x4(row0: u32, col0: u32) {
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    for (var k0 = 0u; k0 < dims.k; k0 += 16u) {
        let b0 = load_b(k0, col0, 0u);
        let b1 = load_b(k0, col0, 1u);
        let b2 = load_b(k0, col0, 2u);
        let b3 = load_b(k0, col0, 3u);
        let a0 = load_a(row0, 0u, k0);
        let a1 = load_a(row0, 1u, k0);
        let a2 = load_a(row0, 2u, k0);
        let a3 = load_a(row0, 3u, k0);
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c02 = coopMultiplyAdd(a0, b2, c02);
        c03 = coopMultiplyAdd(a0, b3, c03);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c12 = coopMultiplyAdd(a1, b2, c12);
        c13 = coopMultiplyAdd(a1, b3, c13);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c22 = coopMultiplyAdd(a2, b2, c22);
        c23 = coopMultiplyAdd(a2, b3, c23);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
        c32 = coopMultiplyAdd(a3, b2, c32);
        c33 = coopMultiplyAdd(a3, b3, c33);
    }
    store_4x4(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33, row0, col0);
}

// The same with the next k step's fragments loaded before this step's multiply-adds.
fn block_4x4_pipe(row0: u32, col0: u32) {
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    var a0 = load_a(row0, 0u, 0u);
    var a1 = load_a(row0, 1u, 0u);
    var a2 = load_a(row0, 2u, 0u);
    var a3 = load_a(row0, 3u, 0u);
    var b0 = load_b(0u, col0, 0u);
    var b1 = load_b(0u, col0, 1u);
    var b2 = load_b(0u, col0, 2u);
    var b3 = load_b(0u, col0, 3u);
    for (var k0 = 0u; k0 < dims.k; k0 += 16u) {
        let kn = min(k0 + 16u, dims.k - 16u);
        let na0 = load_a(row0, 0u, kn);
        let na1 = load_a(row0, 1u, kn);
        let na2 = load_a(row0, 2u, kn);
        let na3 = load_a(row0, 3u, kn);
        let nb0 = load_b(kn, col0, 0u);
        let nb1 = load_b(kn, col0, 1u);
        let nb2 = load_b(kn, col0, 2u);
        let nb3 = load_b(kn, col0, 3u);
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c02 = coopMultiplyAdd(a0, b2, c02);
        c03 = coopMultiplyAdd(a0, b3, c03);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c12 = coopMultiplyAdd(a1, b2, c12);
        c13 = coopMultiplyAdd(a1, b3, c13);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c22 = coopMultiplyAdd(a2, b2, c22);
        c23 = coopMultiplyAdd(a2, b3, c23);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
        c32 = coopMultiplyAdd(a3, b2, c32);
        c33 = coopMultiplyAdd(a3, b3, c33);
        a0 = na0;
        a1 = na1;
        a2 = na2;
        a3 = na3;
        b0 = nb0;
        b1 = nb1;
        b2 = nb2;
        b3 = nb3;
    }
    store_4x4(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33, row0, col0);
}

// 2×2 subgroups, a 128×128 tile of C per workgroup of 128 invocations.
@compute @workgroup_size(128)
fn main_2x2(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let row0 = wg.y * 128u + (s / 2u) * 64u;
    let col0 = wg.x * 128u + (s % 2u) * 64u;
    block_4x4(row0, col0);
}

// 4×2 subgroups, a 256×128 tile of C per workgroup of 256 invocations.
@compute @workgroup_size(256)
fn main_4x2(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let row0 = wg.y * 256u + (s / 2u) * 64u;
    let col0 = wg.x * 128u + (s % 2u) * 64u;
    block_4x4(row0, col0);
}

// 2×2 subgroups as main_2x2, k loop pipelined.
@compute @workgroup_size(128)
fn main_2x2_pipe(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let row0 = wg.y * 128u + (s / 2u) * 64u;
    let col0 = wg.x * 128u + (s % 2u) * 64u;
    block_4x4_pipe(row0, col0);
}

// ---------------------------------------------------------------------------------------------
// Staged in workgroup memory: the `-smem` variants (as CUTLASS, and NVIDIA's
// vk_cooperative_matrix_perf `shmem.comp`, do). Per k step of BK = 32 all invocations of the
// workgroup copy the A tile (BM×32) and the B tile (32×BN) from global into workgroup memory;
// after a barrier each subgroup loads its fragments from there, so each element of A and B comes
// from L2 once per workgroup rather than once per subgroup.
//
// The copy moves quads (vec4<f16>, 8 bytes), never single f16: the buffers are read through a
// second view as arrays of quads (a4, b4 below), the staged tiles are arrays of quads, and the
// fragment loads take a pointer to a quad. naga 30 allows that and no wider: a cooperative load
// accepts a pointer to any scalar or vector in any address space (naga/src/valid/expression.rs),
// but takes the fragment's element type from the pointer's scalar (naga/src/proc/typifier.rs), so
// the pointer must be to f16 or vecN<f16> — a vec4<u32> view (16 bytes, as shmem.comp uses in
// GLSL) would give a u32 fragment — and WGSL's bitcast cannot split a u32 into f16 there (naga
// lowers it to a conversion that keeps the width). So a 16-byte read of f16 costs a conversion:
// `128x256-smem48` (the last kernel) reads eights as vec4<u32> and unpacks each word to two f32
// and back to f16 on the way into workgroup memory, and gains by it. The fragment stride counts
// quads, as SPV_KHR_cooperative_matrix counts the pointer's elements.
//
// Layout: row-major (FRAGMENTS = false in coop.wgsl), k padded to 32 on the host: A's row i is
// the quads a4[i·k/4 .. (i + 1)·k/4), B's row p is b4[p·n/4 .. (p + 1)·n/4); a tile row of A (32
// f16) is 8 quads, 64 contiguous bytes, one of B is BN/4 quads. In workgroup memory each tile is
// row-major with 2 quads (8 f16) of padding per row: A rows SA = 10 quads apart, B rows BN/4 + 2
// (SB = 34, SB_WIDE = 66). So the 8 rows of 16 bytes that a fragment load reads at a time (80,
// 272 or 528 bytes apart) fall in 8 different 16-byte slots of the 128 bytes the banks serve at
// once: no bank conflicts; and every fragment starts, and every stride is, a multiple of 16
// bytes (the alignment Vulkan asks of fragment loads).
//
// The four kernels differ in the tile, the subgroups and how the copy overlaps the multiply-adds:
// - main_smem_2x2 (`128x128-smem`): 128×128 tile, 2×2 subgroups of 64×64 (4×4 fragments), one
//   buffer: copy, barrier, multiply-adds, barrier;
// - main_smem_2x2_db (`128x128-smem-db`): the same with two buffers: the next step's quads are
//   loaded into registers before this step's multiply-adds and stored into the other buffer
//   after them, one barrier per step;
// - main_smem_2x4_db (`128x128-smem-db-64x32`): as main_smem_2x2_db with 2×4 subgroups of 64×32
//   (256 invocations);
// - main_smem_2x4_pf (`128x256-smem-pf`): 128×256 tile, 2×4 subgroups of 64×64 (256
//   invocations), one buffer (two would not fit in 48 KiB), the next step's quads loaded into
//   registers before the multiply-adds and stored after the next barrier (two barriers per step).
// All four use the same workgroup arrays (37888 bytes), whether they fill one buffer or two.
//
// Barriers: workgroupBarrier() between the stores of a buffer and the fragment loads from it,
// and between those loads and the next stores into it. (naga 30 writes this module under the
// Vulkan memory model, which cooperative matrices need, without marking workgroup accesses
// non-private; by the letter of that model its barriers then do not order them, so these kernels
// rely on the driver treating a workgroup barrier as it does under the GLSL450 model.)
//
// Grid: (n / BN, m / BM); the host pads m to BM, n to BN and k to 32, so tr + BM <= m,
// tc + BN <= n and k0 + 32 <= k (kn too) below: each function states what that bounds.

// A and B again, as quads of f16 (the same buffers, read only by the staged kernels).
@group(0) @binding(0) var<storage, read> a4: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> b4: array<vec4<f16>>;

// The k step of the staged kernels.
const BK: u32 = 32u;
// Quads per staged A row: 32 f16 = 8 quads, and 2 of padding.
const SA: u32 = 10u;
// Quads per staged A tile of 128 rows.
const SA_TILE: u32 = 1280u;
// Quads per staged B row, 128 f16 wide: 32 quads and 2 of padding; 256 wide: 64 and 2.
const SB: u32 = 34u;
const SB_WIDE: u32 = 66u;
// Quads per staged B tile of 32 rows, 128 wide.
const SB_TILE: u32 = 1088u;

// Two A tiles of 128×32 (2·SA_TILE quads), or one (main_smem_2x2, main_smem_2x4_pf).
var<workgroup> sa: array<vec4<f16>, 2560>;
// Two B tiles of 32×128 (2·SB_TILE quads), or one; or one of 32×256 (32·SB_WIDE = 2112 quads).
var<workgroup> sb: array<vec4<f16>, 2176>;

// Quad e (< 1024) of the A tile of rows tr..tr + 127 and columns k0..k0 + 31: row tr + e / 8,
// columns k0 + 4·(e % 8) .. + 3. In range: tr + e / 8 < tr + 128 <= m and k0 / 4 + e % 8 <
// (k0 + 32) / 4 <= k / 4 (k0 and k multiples of 32), so the index is below m·k/4, the quads of A.
fn tile_a(tr: u32, k0: u32, e: u32) -> vec4<f16> {
    return a4[(tr + e / 8u) * (dims.k / 4u) + k0 / 4u + e % 8u];
}

// Quad e (< 32·w) of the B tile of rows k0..k0 + 31 and columns tc..tc + 4·w − 1 (w = BN / 4:
// 32 or 64): row k0 + e / w, columns tc + 4·(e % w) .. + 3. In range: k0 + e / w < k0 + 32 <= k
// and tc / 4 + e % w < (tc + BN) / 4 <= n / 4 (tc and n multiples of BN), so the index is below
// k·n/4, the quads of B.
fn tile_b(k0: u32, tc: u32, e: u32, w: u32) -> vec4<f16> {
    return b4[(k0 + e / w) * (dims.n / 4u) + tc / 4u + e % w];
}

// Quad e (< 1024) of an A tile into the staged A tile at quad `at` (0 or SA_TILE): row e / 8,
// quad e % 8. In range: at + (e / 8)·SA + e % 8 <= at + 127·10 + 7 < at + SA_TILE <= 2560.
fn stage_a(at: u32, e: u32, v: vec4<f16>) {
    sa[at + (e / 8u) * SA + e % 8u] = v;
}

// Quad e (< 32·w) of a B tile w quads wide into the staged B tile at quad `at`, rows w + 2 quads
// apart: row e / w, quad e % w. In range: at + (e / w)·(w + 2) + e % w <= at + 31·(w + 2) + w − 1
// < at + 32·(w + 2), which is at + SB_TILE <= 2176 for w = 32 (at = 0 or SB_TILE) and 2112 for
// w = 64 (at = 0).
fn stage_b(at: u32, e: u32, w: u32, v: vec4<f16>) {
    sb[at + (e / w) * (w + 2u) + e % w] = v;
}

// The A fragment of rows row..row + 15 (row <= 112) and k columns 16·h..16·h + 15 (h = 0, 1) of
// the staged A tile at quad `at`: quads row·SA + 4h .. + 3 of each row. In range: the last quad
// read is at + (row + 15)·SA + 4h + 3 <= at + 127·10 + 7 < at + SA_TILE.
fn frag_a(at: u32, row: u32, h: u32) -> FragA {
    let i = at + row * SA + 4u * h;
    let stride = SA;
    return coopLoadT<FragA>(&sa[i], stride);
}

// The B fragment of k rows 16·h..16·h + 15 (h = 0, 1) and columns col..col + 15 (col a multiple
// of 16, col + 16 <= 4·(stride − 2)) of the staged B tile at quad `at` whose rows are `stride`
// quads apart: quads (16h + r)·stride + col / 4 .. + 3 of row r. In range: the last quad read is
// at + 31·stride + col / 4 + 3 <= at + 32·stride − 3 (as for stage_b).
fn frag_b(at: u32, h: u32, col: u32, stride: u32) -> FragB {
    let i = at + 16u * h * stride + col / 4u;
    return coopLoadT<FragB>(&sb[i], stride);
}

// `128x128-smem`: 2×2 subgroups of 64×64, one staged tile per operand.
@compute @workgroup_size(128)
fn main_smem_2x2(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let tr = wg.y * 128u;
    let tc = wg.x * 128u;
    // The subgroup's block: rows ar..ar + 63 and columns bc..bc + 63 of the tile.
    let ar = (s / 2u) * 64u;
    let bc = (s % 2u) * 64u;
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    for (var k0 = 0u; k0 < dims.k; k0 += BK) {
        // 1024 quads of A (128×32) and 1024 of B (32×128), 8 of each per invocation.
        for (var q = 0u; q < 8u; q++) {
            let e = li + 128u * q;
            stage_a(0u, e, tile_a(tr, k0, e));
            stage_b(0u, e, 32u, tile_b(k0, tc, e, 32u));
        }
        workgroupBarrier();
        for (var h = 0u; h < 2u; h++) {
            let b0 = frag_b(0u, h, bc, SB);
            let b1 = frag_b(0u, h, bc + 16u, SB);
            let b2 = frag_b(0u, h, bc + 32u, SB);
            let b3 = frag_b(0u, h, bc + 48u, SB);
            let a0 = frag_a(0u, ar, h);
            let a1 = frag_a(0u, ar + 16u, h);
            let a2 = frag_a(0u, ar + 32u, h);
            let a3 = frag_a(0u, ar + 48u, h);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
        workgroupBarrier();
    }
    let row0 = tr + ar;
    let col0 = tc + bc;
    store_4x4(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33, row0, col0);
}

// `128x128-smem-db`: 2×2 subgroups of 64×64, two staged tiles per operand.
@compute @workgroup_size(128)
fn main_smem_2x2_db(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let tr = wg.y * 128u;
    let tc = wg.x * 128u;
    // The subgroup's block: rows ar..ar + 63 and columns bc..bc + 63 of the tile.
    let ar = (s / 2u) * 64u;
    let bc = (s % 2u) * 64u;
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    // Invocation li copies quads li + 128·q (q < 8) of each tile: all 1024 of A (128×32) and
    // all 1024 of B (32×128, w = 32). The first step's tiles into buffer 0.
    stage_a(0u, li, tile_a(tr, 0u, li));
    stage_a(0u, li + 128u, tile_a(tr, 0u, li + 128u));
    stage_a(0u, li + 256u, tile_a(tr, 0u, li + 256u));
    stage_a(0u, li + 384u, tile_a(tr, 0u, li + 384u));
    stage_a(0u, li + 512u, tile_a(tr, 0u, li + 512u));
    stage_a(0u, li + 640u, tile_a(tr, 0u, li + 640u));
    stage_a(0u, li + 768u, tile_a(tr, 0u, li + 768u));
    stage_a(0u, li + 896u, tile_a(tr, 0u, li + 896u));
    stage_b(0u, li, 32u, tile_b(0u, tc, li, 32u));
    stage_b(0u, li + 128u, 32u, tile_b(0u, tc, li + 128u, 32u));
    stage_b(0u, li + 256u, 32u, tile_b(0u, tc, li + 256u, 32u));
    stage_b(0u, li + 384u, 32u, tile_b(0u, tc, li + 384u, 32u));
    stage_b(0u, li + 512u, 32u, tile_b(0u, tc, li + 512u, 32u));
    stage_b(0u, li + 640u, 32u, tile_b(0u, tc, li + 640u, 32u));
    stage_b(0u, li + 768u, 32u, tile_b(0u, tc, li + 768u, 32u));
    stage_b(0u, li + 896u, 32u, tile_b(0u, tc, li + 896u, 32u));
    workgroupBarrier();
    var cur = 0u; // the buffer holding this step's tiles
    for (var k0 = 0u; k0 < dims.k; k0 += BK) {
        // The next step's tiles into registers (on the last step the last tiles again, stored
        // into the other buffer and never read): kn + 32 <= k.
        let kn = min(k0 + BK, dims.k - BK);
        let pa0 = tile_a(tr, kn, li);
        let pa1 = tile_a(tr, kn, li + 128u);
        let pa2 = tile_a(tr, kn, li + 256u);
        let pa3 = tile_a(tr, kn, li + 384u);
        let pa4 = tile_a(tr, kn, li + 512u);
        let pa5 = tile_a(tr, kn, li + 640u);
        let pa6 = tile_a(tr, kn, li + 768u);
        let pa7 = tile_a(tr, kn, li + 896u);
        let pb0 = tile_b(kn, tc, li, 32u);
        let pb1 = tile_b(kn, tc, li + 128u, 32u);
        let pb2 = tile_b(kn, tc, li + 256u, 32u);
        let pb3 = tile_b(kn, tc, li + 384u, 32u);
        let pb4 = tile_b(kn, tc, li + 512u, 32u);
        let pb5 = tile_b(kn, tc, li + 640u, 32u);
        let pb6 = tile_b(kn, tc, li + 768u, 32u);
        let pb7 = tile_b(kn, tc, li + 896u, 32u);
        let at = cur * SA_TILE;
        let bt = cur * SB_TILE;
        for (var h = 0u; h < 2u; h++) {
            let b0 = frag_b(bt, h, bc, SB);
            let b1 = frag_b(bt, h, bc + 16u, SB);
            let b2 = frag_b(bt, h, bc + 32u, SB);
            let b3 = frag_b(bt, h, bc + 48u, SB);
            let a0 = frag_a(at, ar, h);
            let a1 = frag_a(at, ar + 16u, h);
            let a2 = frag_a(at, ar + 32u, h);
            let a3 = frag_a(at, ar + 48u, h);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
        // Into the other buffer, whose last readers (the step before) passed the barrier that
        // ended that step.
        let at_next = SA_TILE - at;
        let bt_next = SB_TILE - bt;
        stage_a(at_next, li, pa0);
        stage_a(at_next, li + 128u, pa1);
        stage_a(at_next, li + 256u, pa2);
        stage_a(at_next, li + 384u, pa3);
        stage_a(at_next, li + 512u, pa4);
        stage_a(at_next, li + 640u, pa5);
        stage_a(at_next, li + 768u, pa6);
        stage_a(at_next, li + 896u, pa7);
        stage_b(bt_next, li, 32u, pb0);
        stage_b(bt_next, li + 128u, 32u, pb1);
        stage_b(bt_next, li + 256u, 32u, pb2);
        stage_b(bt_next, li + 384u, 32u, pb3);
        stage_b(bt_next, li + 512u, 32u, pb4);
        stage_b(bt_next, li + 640u, 32u, pb5);
        stage_b(bt_next, li + 768u, 32u, pb6);
        stage_b(bt_next, li + 896u, 32u, pb7);
        workgroupBarrier();
        cur = 1u - cur;
    }
    let row0 = tr + ar;
    let col0 = tc + bc;
    store_4x4(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33, row0, col0);
}

// `128x128-smem-db-64x32`: 2×4 subgroups of 64×32, two staged tiles per operand.
@compute @workgroup_size(256)
fn main_smem_2x4_db(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let tr = wg.y * 128u;
    let tc = wg.x * 128u;
    // The subgroup's block: rows ar..ar + 63 and columns bc..bc + 31 of the tile.
    let ar = (s / 4u) * 64u;
    let bc = (s % 4u) * 32u;
    var c00 = Acc();
    var c01 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    // Invocation li copies quads li + 256·q (q < 4) of each tile: all 1024 of A (128×32) and
    // all 1024 of B (32×128, w = 32). The first step's tiles into buffer 0.
    stage_a(0u, li, tile_a(tr, 0u, li));
    stage_a(0u, li + 256u, tile_a(tr, 0u, li + 256u));
    stage_a(0u, li + 512u, tile_a(tr, 0u, li + 512u));
    stage_a(0u, li + 768u, tile_a(tr, 0u, li + 768u));
    stage_b(0u, li, 32u, tile_b(0u, tc, li, 32u));
    stage_b(0u, li + 256u, 32u, tile_b(0u, tc, li + 256u, 32u));
    stage_b(0u, li + 512u, 32u, tile_b(0u, tc, li + 512u, 32u));
    stage_b(0u, li + 768u, 32u, tile_b(0u, tc, li + 768u, 32u));
    workgroupBarrier();
    var cur = 0u; // the buffer holding this step's tiles
    for (var k0 = 0u; k0 < dims.k; k0 += BK) {
        // The next step's tiles into registers (on the last step the last tiles again, stored
        // into the other buffer and never read): kn + 32 <= k.
        let kn = min(k0 + BK, dims.k - BK);
        let pa0 = tile_a(tr, kn, li);
        let pa1 = tile_a(tr, kn, li + 256u);
        let pa2 = tile_a(tr, kn, li + 512u);
        let pa3 = tile_a(tr, kn, li + 768u);
        let pb0 = tile_b(kn, tc, li, 32u);
        let pb1 = tile_b(kn, tc, li + 256u, 32u);
        let pb2 = tile_b(kn, tc, li + 512u, 32u);
        let pb3 = tile_b(kn, tc, li + 768u, 32u);
        let at = cur * SA_TILE;
        let bt = cur * SB_TILE;
        for (var h = 0u; h < 2u; h++) {
            let b0 = frag_b(bt, h, bc, SB);
            let b1 = frag_b(bt, h, bc + 16u, SB);
            let a0 = frag_a(at, ar, h);
            let a1 = frag_a(at, ar + 16u, h);
            let a2 = frag_a(at, ar + 32u, h);
            let a3 = frag_a(at, ar + 48u, h);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
        }
        // Into the other buffer, whose last readers (the step before) passed the barrier that
        // ended that step.
        let at_next = SA_TILE - at;
        let bt_next = SB_TILE - bt;
        stage_a(at_next, li, pa0);
        stage_a(at_next, li + 256u, pa1);
        stage_a(at_next, li + 512u, pa2);
        stage_a(at_next, li + 768u, pa3);
        stage_b(bt_next, li, 32u, pb0);
        stage_b(bt_next, li + 256u, 32u, pb1);
        stage_b(bt_next, li + 512u, 32u, pb2);
        stage_b(bt_next, li + 768u, 32u, pb3);
        workgroupBarrier();
        cur = 1u - cur;
    }
    let row0 = tr + ar;
    let col0 = tc + bc;
    store_c(c00, row0, 0u, col0, 0u);
    store_c(c01, row0, 0u, col0, 1u);
    store_c(c10, row0, 1u, col0, 0u);
    store_c(c11, row0, 1u, col0, 1u);
    store_c(c20, row0, 2u, col0, 0u);
    store_c(c21, row0, 2u, col0, 1u);
    store_c(c30, row0, 3u, col0, 0u);
    store_c(c31, row0, 3u, col0, 1u);
}

// `128x256-smem-pf`: 2×4 subgroups of 64×64, one staged tile per operand, the next tiles
// prefetched into registers.
@compute @workgroup_size(256)
fn main_smem_2x4_pf(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let tr = wg.y * 128u;
    let tc = wg.x * 256u;
    // The subgroup's block: rows ar..ar + 63 and columns bc..bc + 63 of the tile.
    let ar = (s / 4u) * 64u;
    let bc = (s % 4u) * 64u;
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    // Invocation li copies quads li + 256·q of each tile: q < 4 for the 1024 of A (128×32), q < 8
    // for the 2048 of B (32×256, w = 64). The first step's tiles into registers.
    var pa0 = tile_a(tr, 0u, li);
    var pa1 = tile_a(tr, 0u, li + 256u);
    var pa2 = tile_a(tr, 0u, li + 512u);
    var pa3 = tile_a(tr, 0u, li + 768u);
    var pb0 = tile_b(0u, tc, li, 64u);
    var pb1 = tile_b(0u, tc, li + 256u, 64u);
    var pb2 = tile_b(0u, tc, li + 512u, 64u);
    var pb3 = tile_b(0u, tc, li + 768u, 64u);
    var pb4 = tile_b(0u, tc, li + 1024u, 64u);
    var pb5 = tile_b(0u, tc, li + 1280u, 64u);
    var pb6 = tile_b(0u, tc, li + 1536u, 64u);
    var pb7 = tile_b(0u, tc, li + 1792u, 64u);
    for (var k0 = 0u; k0 < dims.k; k0 += BK) {
        workgroupBarrier(); // the step before has read its fragments
        stage_a(0u, li, pa0);
        stage_a(0u, li + 256u, pa1);
        stage_a(0u, li + 512u, pa2);
        stage_a(0u, li + 768u, pa3);
        stage_b(0u, li, 64u, pb0);
        stage_b(0u, li + 256u, 64u, pb1);
        stage_b(0u, li + 512u, 64u, pb2);
        stage_b(0u, li + 768u, 64u, pb3);
        stage_b(0u, li + 1024u, 64u, pb4);
        stage_b(0u, li + 1280u, 64u, pb5);
        stage_b(0u, li + 1536u, 64u, pb6);
        stage_b(0u, li + 1792u, 64u, pb7);
        workgroupBarrier();
        // The next step's tiles into registers while this step multiplies (on the last step the
        // last tiles again, never stored): kn + 32 <= k.
        let kn = min(k0 + BK, dims.k - BK);
        pa0 = tile_a(tr, kn, li);
        pa1 = tile_a(tr, kn, li + 256u);
        pa2 = tile_a(tr, kn, li + 512u);
        pa3 = tile_a(tr, kn, li + 768u);
        pb0 = tile_b(kn, tc, li, 64u);
        pb1 = tile_b(kn, tc, li + 256u, 64u);
        pb2 = tile_b(kn, tc, li + 512u, 64u);
        pb3 = tile_b(kn, tc, li + 768u, 64u);
        pb4 = tile_b(kn, tc, li + 1024u, 64u);
        pb5 = tile_b(kn, tc, li + 1280u, 64u);
        pb6 = tile_b(kn, tc, li + 1536u, 64u);
        pb7 = tile_b(kn, tc, li + 1792u, 64u);
        for (var h = 0u; h < 2u; h++) {
            let b0 = frag_b(0u, h, bc, SB_WIDE);
            let b1 = frag_b(0u, h, bc + 16u, SB_WIDE);
            let b2 = frag_b(0u, h, bc + 32u, SB_WIDE);
            let b3 = frag_b(0u, h, bc + 48u, SB_WIDE);
            let a0 = frag_a(0u, ar, h);
            let a1 = frag_a(0u, ar + 16u, h);
            let a2 = frag_a(0u, ar + 32u, h);
            let a3 = frag_a(0u, ar + 48u, h);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
    }
    let row0 = tr + ar;
    let col0 = tc + bc;
    store_4x4(c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33, row0, col0);
}

// ---------------------------------------------------------------------------------------------
// `128x256-smem48`: the tile and subgroups of `128x256-smem-pf` (2×4 subgroups of 64×64, 256
// invocations, one staged buffer, the next tiles prefetched into registers, two barriers per
// step), with three changes that the H100 measured as the ones that pay (docs/tensor-cores.md,
// "Where coop's time goes"):
// - 16-byte loads: A and B are read through a third view as eights of f16 (`vec4<u32>`, a8 and
//   b8), and each eight is unpacked into two quads on its way into workgroup memory
//   (`unpack2x16float` then a conversion back to f16, both exact) — the one way naga 30 lets a
//   kernel read 16 bytes of f16 at once (see "Staged in workgroup memory" above);
// - k steps of 48 rather than 32 (three fragments deep): the staging costs a fixed time per
//   step, so fewer, deeper steps; 48 is the deepest whose tiles fit the 48 KiB of workgroup
//   memory: A 128×(48 + 8) f16 and B 48×(256 + 8) f16, 39 680 bytes (64 would need 52 224);
// - C written through workgroup memory, 16 bytes per invocation per store (store_staged).
// Layout: row-major, k padded to 48 on the host. In workgroup memory A rows are SA48 = 14 quads
// apart (112 bytes) and B rows SB_WIDE = 66: the 8 rows a fragment load reads at a time fall in
// 8 different 16-byte slots of the banks, and every start and stride is a multiple of 16 bytes.

@group(0) @binding(0) var<storage, read> a8: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> b8: array<vec4<u32>>;

// The k step of main_smem_2x4_pf48.
const BK48: u32 = 48u;
// Quads per staged A row: 48 f16 = 12 quads, and 2 of padding.
const SA48: u32 = 14u;
// The A tile, 128 rows of SA48 quads, and the B tile, 48 rows of SB_WIDE quads.
var<workgroup> sa48: array<vec4<f16>, 1792>;
var<workgroup> sb48: array<vec4<f16>, 3168>;

// Eight e (< 768) of the A tile of rows tr..tr + 127 and columns k0..k0 + 47: row tr + e / 6,
// columns k0 + 8·(e % 6) .. + 7. In range: tr + e / 6 < tr + 128 <= m and k0 / 8 + e % 6 <
// (k0 + 48) / 8 <= k / 8 (k0 and k multiples of 48), so the index is below m·k/8, the eights of A.
fn tile_a48(tr: u32, k0: u32, e: u32) -> vec4<u32> {
    return a8[(tr + e / 6u) * (dims.k / 8u) + k0 / 8u + e % 6u];
}

// Eight e (< 1536) of the B tile of rows k0..k0 + 47 and columns tc..tc + 255: row k0 + e / 32,
// columns tc + 8·(e % 32) .. + 7. In range: k0 + e / 32 < k0 + 48 <= k and tc / 8 + e % 32 <
// (tc + 256) / 8 <= n / 8 (tc and n multiples of 256), so the index is below k·n/8.
fn tile_b48(k0: u32, tc: u32, e: u32) -> vec4<u32> {
    return b8[(k0 + e / 32u) * (dims.n / 8u) + tc / 8u + e % 32u];
}

// The quad of f16 whose bits are the two words x (elements 0, 1) and y (2, 3).
fn quad(x: u32, y: u32) -> vec4<f16> {
    return vec4<f16>(vec4f(unpack2x16float(x), unpack2x16float(y)));
}

// Eight e of the A tile into the staged tile: row e / 6, quads 2·(e % 6) and + 1. In range: the
// second is at (e / 6)·14 + 2·(e % 6) + 1 <= 127·14 + 11 = 1789 < 1792.
fn stage_a48(e: u32, v: vec4<u32>) {
    let at = (e / 6u) * SA48 + 2u * (e % 6u);
    sa48[at] = quad(v.x, v.y);
    sa48[at + 1u] = quad(v.z, v.w);
}

// Eight e of the B tile into the staged tile: row e / 32, quads 2·(e % 32) and + 1. In range: the
// second is at (e / 32)·66 + 2·(e % 32) + 1 <= 47·66 + 63 = 3165 < 3168.
fn stage_b48(e: u32, v: vec4<u32>) {
    let at = (e / 32u) * SB_WIDE + 2u * (e % 32u);
    sb48[at] = quad(v.x, v.y);
    sb48[at + 1u] = quad(v.z, v.w);
}

// The A fragment of rows row..row + 15 (row <= 112) and k columns 16·h..16·h + 15 (h < 3) of the
// staged tile. In range: the last quad read is (row + 15)·14 + 4h + 3 <= 127·14 + 11 < 1792.
fn frag_a48(row: u32, h: u32) -> FragA {
    let i = row * SA48 + 4u * h;
    let stride = SA48;
    return coopLoadT<FragA>(&sa48[i], stride);
}

// The B fragment of k rows 16·h..16·h + 15 (h < 3) and columns col..col + 15 (col <= 240) of the
// staged tile. In range: the last quad read is (16h + 15)·66 + col / 4 + 3 <= 47·66 + 63 < 3168.
fn frag_b48(h: u32, col: u32) -> FragB {
    let i = 16u * h * SB_WIDE + col / 4u;
    let stride = SB_WIDE;
    return coopLoadT<FragB>(&sb48[i], stride);
}

// C again, as quads of f32 (the same buffer, written only by main_smem_2x4_pf48).
@group(0) @binding(2) var<storage, read_write> c4: array<vec4f>;

// One 16×16 f32 fragment per subgroup on its way to C: subgroup s's slot is quads 64·s .. + 63,
// the fragment's row r at quads 64·s + 4r .. + 3. 8 subgroups × 1 KiB: with sa48 and sb48,
// 47 872 bytes of the 48 KiB.
var<workgroup> cst: array<vec4f, 512>;

// Fragment `acc` of subgroup s into C at rows row..row + 15, columns col..col + 15 (col a
// multiple of 16), through the subgroup's slot: a cooperative store into workgroup memory, then
// each of the subgroup's 32 invocations (lane = its index in the subgroup's 32) writes two
// quads of 16 bytes, q = lane and lane + 32: row q / 4, columns col + 4·(q % 4) .. + 3, so a
// store of the subgroup covers 8 rows of 64 contiguous bytes. A coopStoreT straight into C
// wrote it at about 1 TB/s on the H100, this at about 2 (docs/tensor-cores.md). The slot is the
// subgroup's alone, so subgroup barriers order it (1 % faster on the H100 than workgroup ones,
// which made all 8 subgroups wait for each other 32 times): the first keeps the slot until every
// invocation has read the fragment before, the second until the whole fragment is in it; every
// invocation makes the same 16 calls, so the barriers are uniform. (naga 30 gives a subgroup
// barrier subgroup-memory semantics only; like the workgroup barriers above, this relies on the
// driver ordering workgroup memory at it, as NVIDIA's does: checked on the H100 against the f64
// reference at four shapes.) In range: q / 4 < 16 and
// 4·(q % 4) + 3 < 16, so the quad lies in the 128×256 tile, inside the padded C (m and n
// multiples of 128 and 256), whose rows are n / 4 quads.
fn store_staged(acc: Acc, s: u32, lane: u32, row: u32, col: u32) {
    subgroupBarrier();
    let slot = s * 64u;
    let stride = 4u;
    coopStoreT(acc, &cst[slot], stride);
    subgroupBarrier();
    for (var r = 0u; r < 2u; r++) {
        let q = lane + 32u * r;
        c4[(row + q / 4u) * (dims.n / 4u) + col / 4u + q % 4u] = cst[slot + q];
    }
}

@compute @workgroup_size(256)
fn main_smem_2x4_pf48(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_index) li: u32) {
    let s = li / 32u;
    let tr = wg.y * 128u;
    let tc = wg.x * 256u;
    // The subgroup's block: rows ar..ar + 63 and columns bc..bc + 63 of the tile.
    let ar = (s / 4u) * 64u;
    let bc = (s % 4u) * 64u;
    var c00 = Acc();
    var c01 = Acc();
    var c02 = Acc();
    var c03 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c12 = Acc();
    var c13 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c22 = Acc();
    var c23 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    var c32 = Acc();
    var c33 = Acc();
    // Invocation li copies eights li + 256·q of each tile: q < 3 for the 768 of A (128×48), q < 6
    // for the 1536 of B (48×256). The first step's tiles into registers.
    var pa0 = tile_a48(tr, 0u, li + 0u);
    var pa1 = tile_a48(tr, 0u, li + 256u);
    var pa2 = tile_a48(tr, 0u, li + 512u);
    var pb0 = tile_b48(0u, tc, li + 0u);
    var pb1 = tile_b48(0u, tc, li + 256u);
    var pb2 = tile_b48(0u, tc, li + 512u);
    var pb3 = tile_b48(0u, tc, li + 768u);
    var pb4 = tile_b48(0u, tc, li + 1024u);
    var pb5 = tile_b48(0u, tc, li + 1280u);
    for (var k0 = 0u; k0 < dims.k; k0 += BK48) {
        workgroupBarrier(); // the step before has read its fragments
        stage_a48(li + 0u, pa0);
        stage_a48(li + 256u, pa1);
        stage_a48(li + 512u, pa2);
        stage_b48(li + 0u, pb0);
        stage_b48(li + 256u, pb1);
        stage_b48(li + 512u, pb2);
        stage_b48(li + 768u, pb3);
        stage_b48(li + 1024u, pb4);
        stage_b48(li + 1280u, pb5);
        workgroupBarrier();
        // The next step's tiles into registers while this step multiplies (on the last step the
        // last tiles again, never stored): kn + 48 <= k.
        let kn = min(k0 + BK48, dims.k - BK48);
        pa0 = tile_a48(tr, kn, li + 0u);
        pa1 = tile_a48(tr, kn, li + 256u);
        pa2 = tile_a48(tr, kn, li + 512u);
        pb0 = tile_b48(kn, tc, li + 0u);
        pb1 = tile_b48(kn, tc, li + 256u);
        pb2 = tile_b48(kn, tc, li + 512u);
        pb3 = tile_b48(kn, tc, li + 768u);
        pb4 = tile_b48(kn, tc, li + 1024u);
        pb5 = tile_b48(kn, tc, li + 1280u);
        for (var h = 0u; h < 3u; h++) {
            let b0 = frag_b48(h, bc);
            let b1 = frag_b48(h, bc + 16u);
            let b2 = frag_b48(h, bc + 32u);
            let b3 = frag_b48(h, bc + 48u);
            let a0 = frag_a48(ar, h);
            let a1 = frag_a48(ar + 16u, h);
            let a2 = frag_a48(ar + 32u, h);
            let a3 = frag_a48(ar + 48u, h);
            c00 = coopMultiplyAdd(a0, b0, c00);
            c01 = coopMultiplyAdd(a0, b1, c01);
            c02 = coopMultiplyAdd(a0, b2, c02);
            c03 = coopMultiplyAdd(a0, b3, c03);
            c10 = coopMultiplyAdd(a1, b0, c10);
            c11 = coopMultiplyAdd(a1, b1, c11);
            c12 = coopMultiplyAdd(a1, b2, c12);
            c13 = coopMultiplyAdd(a1, b3, c13);
            c20 = coopMultiplyAdd(a2, b0, c20);
            c21 = coopMultiplyAdd(a2, b1, c21);
            c22 = coopMultiplyAdd(a2, b2, c22);
            c23 = coopMultiplyAdd(a2, b3, c23);
            c30 = coopMultiplyAdd(a3, b0, c30);
            c31 = coopMultiplyAdd(a3, b1, c31);
            c32 = coopMultiplyAdd(a3, b2, c32);
            c33 = coopMultiplyAdd(a3, b3, c33);
        }
    }
    let row0 = tr + ar;
    let col0 = tc + bc;
    let lane = li % 32u;
    store_staged(c00, s, lane, row0 + 0u, col0 + 0u);
    store_staged(c01, s, lane, row0 + 0u, col0 + 16u);
    store_staged(c02, s, lane, row0 + 0u, col0 + 32u);
    store_staged(c03, s, lane, row0 + 0u, col0 + 48u);
    store_staged(c10, s, lane, row0 + 16u, col0 + 0u);
    store_staged(c11, s, lane, row0 + 16u, col0 + 16u);
    store_staged(c12, s, lane, row0 + 16u, col0 + 32u);
    store_staged(c13, s, lane, row0 + 16u, col0 + 48u);
    store_staged(c20, s, lane, row0 + 32u, col0 + 0u);
    store_staged(c21, s, lane, row0 + 32u, col0 + 16u);
    store_staged(c22, s, lane, row0 + 32u, col0 + 32u);
    store_staged(c23, s, lane, row0 + 32u, col0 + 48u);
    store_staged(c30, s, lane, row0 + 48u, col0 + 0u);
    store_staged(c31, s, lane, row0 + 48u, col0 + 16u);
    store_staged(c32, s, lane, row0 + 48u, col0 + 32u);
    store_staged(c33, s, lane, row0 + 48u, col0 + 48u);
}
