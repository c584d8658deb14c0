// coop: C = A·B on the tensor cores through wgpu's experimental cooperative matrices
// (`EXPERIMENTAL_COOPERATIVE_MATRIX`, SPIR-V `SPV_KHR_cooperative_matrix`): f16 inputs, f32
// accumulation, 16×16×16 fragments.
//
// One workgroup is one 32-wide subgroup (the host refuses adapters whose subgroups are not 32
// wide: a cooperative matrix belongs to a whole subgroup). A subgroup computes a block of
// TM×TN fragments of 16×16 of C (`main_2x2`: 32×32, `main_4x2`: 64×32, `main_4x4`: 64×64),
// holding them in f32 accumulator fragments for the whole k loop. Per 16-deep k step it loads
// TM fragments of A and TN of B straight from global memory (row-major, `coopLoadT`) and issues
// TM·TN multiply-adds; the caches serve the reuse between neighbouring subgroups.
//
// The buffers are zero-padded on the host to multiples of the block (m to 16·TM, n to 16·TN, k to
// 16), so the shader has no edge tests, and the Rust side compiles it with wgpu's runtime bounds
// checks off: row0 + 16·TM <= dims.m, col0 + 16·TN <= dims.n and k0 + 16 <= dims.k, so every
// 16×16 fragment a load or store touches lies inside its padded buffer. (A bounds check would
// only guard the fragment's first element anyway.)
//
// Layout (padded sizes in dims), chosen by the override FRAGMENTS:
// - false: row-major, a[i·k + p] = A(i, p), b[p·n + j] = B(p, j), both f16; a fragment's 16 rows
//   lie k (or n) elements apart;
// - true: packed fragment by fragment on the host, each 16×16 fragment 512 contiguous bytes
//   (row-major inside): A's fragment (I, P) (rows 16·I.., columns 16·P..) at (I·k/16 + P)·256,
//   B's fragment (P, J) at (J·k/16 + P)·256, so a subgroup walking k reads consecutive fragments
//   and every fragment load is one contiguous, 512-byte-aligned block.
// c[i·n + j] = C(i, j) as f32, row-major either way. Grid: (n / (16·TN), m / (16·TM)).

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

// A and B stored fragment by fragment (see the layout above) rather than row-major.
override FRAGMENTS: bool = false;

// ANCHOR: fragment_io
// Fragment (row0 + 16·i, k0) of A and (k0, col0 + 16·j) of B. (The `if` depends on an
// override only, so it folds away when the pipeline is built.)
fn load_a(row0: u32, i: u32, k0: u32) -> FragA {
    if FRAGMENTS {
        let at = ((row0 / 16u + i) * (dims.k / 16u) + k0 / 16u) * 256u;
        return coopLoadT<FragA>(&a[at], 16u);
    }
    let stride = dims.k;
    let at = (row0 + 16u * i) * stride + k0;
    return coopLoadT<FragA>(&a[at], stride);
}

fn load_b(k0: u32, col0: u32, j: u32) -> FragB {
    if FRAGMENTS {
        let at = ((col0 / 16u + j) * (dims.k / 16u) + k0 / 16u) * 256u;
        return coopLoadT<FragB>(&b[at], 16u);
    }
    let stride = dims.n;
    let at = k0 * stride + col0 + 16u * j;
    return coopLoadT<FragB>(&b[at], stride);
}

// (Index and stride are bound with `let` first: naga 30's WGSL front end does not emit
// expressions written inside the `coopStoreT(..)` statement itself, and its SPIR-V writer
// then panics with "Expression [..] is not cached".)
fn store_c(acc: Acc, row0: u32, i: u32, col0: u32, j: u32) {
    let stride = dims.n;
    let at = (row0 + 16u * i) * stride + col0 + 16u * j;
    coopStoreT(acc, &c[at], stride);
}
// ANCHOR_END: fragment_io

// ANCHOR: multiply_add_loop
@compute @workgroup_size(32)
fn main_2x2(@builtin(workgroup_id) wg: vec3u) {
    let row0 = wg.y * 32u;
    let col0 = wg.x * 32u;
    var c00 = Acc();
    var c01 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    for (var k0 = 0u; k0 < dims.k; k0 += 16u) {
        let a0 = load_a(row0, 0u, k0);
        let a1 = load_a(row0, 1u, k0);
        let b0 = load_b(k0, col0, 0u);
        let b1 = load_b(k0, col0, 1u);
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
    }
    store_c(c00, row0, 0u, col0, 0u);
    store_c(c01, row0, 0u, col0, 1u);
    store_c(c10, row0, 1u, col0, 0u);
    store_c(c11, row0, 1u, col0, 1u);
}
// ANCHOR_END: multiply_add_loop

@compute @workgroup_size(32)
fn main_4x2(@builtin(workgroup_id) wg: vec3u) {
    let row0 = wg.y * 64u;
    let col0 = wg.x * 32u;
    var c00 = Acc();
    var c01 = Acc();
    var c10 = Acc();
    var c11 = Acc();
    var c20 = Acc();
    var c21 = Acc();
    var c30 = Acc();
    var c31 = Acc();
    for (var k0 = 0u; k0 < dims.k; k0 += 16u) {
        let b0 = load_b(k0, col0, 0u);
        let b1 = load_b(k0, col0, 1u);
        let a0 = load_a(row0, 0u, k0);
        let a1 = load_a(row0, 1u, k0);
        let a2 = load_a(row0, 2u, k0);
        let a3 = load_a(row0, 3u, k0);
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c30 = coopMultiplyAdd(a3, b0, c30);
        c31 = coopMultiplyAdd(a3, b1, c31);
    }
    store_c(c00, row0, 0u, col0, 0u);
    store_c(c01, row0, 0u, col0, 1u);
    store_c(c10, row0, 1u, col0, 0u);
    store_c(c11, row0, 1u, col0, 1u);
    store_c(c20, row0, 2u, col0, 0u);
    store_c(c21, row0, 2u, col0, 1u);
    store_c(c30, row0, 3u, col0, 0u);
    store_c(c31, row0, 3u, col0, 1u);
}

@compute @workgroup_size(32)
fn main_4x4(@builtin(workgroup_id) wg: vec3u) {
    let row0 = wg.y * 64u;
    let col0 = wg.x * 64u;
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
        c00 = coopMultiplyAdd(a0, b0, c00);
        c01 = coopMultiplyAdd(a0, b1, c01);
        c02 = coopMultiplyAdd(a0, b2, c02);
        c03 = coopMultiplyAdd(a0, b3, c03);
        let a1 = load_a(row0, 1u, k0);
        c10 = coopMultiplyAdd(a1, b0, c10);
        c11 = coopMultiplyAdd(a1, b1, c11);
        c12 = coopMultiplyAdd(a1, b2, c12);
        c13 = coopMultiplyAdd(a1, b3, c13);
        let a2 = load_a(row0, 2u, k0);
        c20 = coopMultiplyAdd(a2, b0, c20);
        c21 = coopMultiplyAdd(a2, b1, c21);
        c22 = coopMultiplyAdd(a2, b2, c22);
        c23 = coopMultiplyAdd(a2, b3, c23);
        let a3 = load_a(row0, 3u, k0);
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
