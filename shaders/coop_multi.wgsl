// coop, several subgroups per workgroup: the variants `128x128-frag`, `256x128-frag` and
// `128x128-frag-pipe` of `coop` (src/methods/coop.rs). Same arithmetic as `shaders/coop.wgsl`'s
// `main_4x4` with FRAGMENTS = true (f16 fragments of 16×16 loaded straight from global memory,
// f32 accumulators, one tensor-core multiply-add per pair), but a workgroup is SM×SN subgroups of
// 32 invocations, each computing its own 64×64 block of a (64·SM)×(64·SN) workgroup tile of C:
// the subgroups of one workgroup run on one SM at about the same pace, so the fragments of A
// (shared along a tile row) and of B (shared along a tile column) they load at the same k step
// come from L1 rather than L2 after the first.
//
// Subgroup s = local_invocation_index / 32 takes block (s / SN, s % SN) of the tile. A
// cooperative matrix belongs to a whole subgroup, so that index must be uniform in each
// subgroup: it is where subgroups are 32 invocations of consecutive local_invocation_index (the
// NVIDIA layout; the host refuses subgroups wider than 32). Narrower subgroups that partition
// consecutive invocations compute their 32-group's block redundantly, as in coop.wgsl.
//
// Layout: only the fragment layout of coop.wgsl (FRAGMENTS = true there): A's fragment (I, P)
// at (I·k/16 + P)·256, B's fragment (P, J) at (J·k/16 + P)·256, each 512 contiguous bytes;
// c[i·n + j] = C(i, j) as f32, row-major. The host pads m to 64·SM, n to 64·SN and k to 16, so
// there are no edge tests (runtime bounds checks off, as for coop.wgsl). Grid:
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
