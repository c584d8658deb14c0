// The tensor-core ceiling (`rendermm bench --ceilings`, src/bench/ceilings.rs): how fast the
// tensor cores multiply-add through wgpu's cooperative matrices when no memory is in the way —
// the same 16×16×16 f16×f16→f32 fragments `coop` uses (src/methods/coop.rs), loaded once, then
// multiplied and added in registers for `params.iterations` steps. Only adapters that run `coop`
// build it (`enable wgpu_cooperative_matrix` fails elsewhere), so it lives apart from
// shaders/ceilings.wgsl.
//
// A workgroup is four 32-wide subgroups; each holds a 4×4 block of f32 accumulator fragments and
// per step issues 16 multiply-adds (the 4×4 outer product of four A and four B fragments), as one
// k step of coop's 64×64 subgroup block does: 16 · 2 · 16³ = 131 072 flops per step per subgroup.
// The 16 accumulators are independent chains, so the step's multiply-adds can overlap.
//
// The accumulators are stored at the end so that the compiler keeps the work: fragment t of every
// subgroup goes to sink[256·t ..], all subgroups writing the same 16 fragments (a race on what is
// only a sink). Indices: 256·15 + 15·16 + 15 < 4096 = sink's length; src holds the 8 fragments
// loaded (2048 f16), read at 256·t + 15·16 + 15 < 2048.

enable f16;
enable wgpu_cooperative_matrix;

struct Params {
    iterations: u32,
    seed: f32,
    _pad0: u32,
    _pad1: u32,
};
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<f16>;
@group(0) @binding(2) var<storage, read_write> sink: array<f32>;

alias FragA = coop_mat16x16<f16, A>;
alias FragB = coop_mat16x16<f16, B>;
alias Acc = coop_mat16x16<f32, C>;

fn load_a(t: u32) -> FragA {
    let at = 256u * t;
    let stride = 16u;
    return coopLoadT<FragA>(&src[at], stride);
}

fn load_b(t: u32) -> FragB {
    let at = 256u * t;
    let stride = 16u;
    return coopLoadT<FragB>(&src[at], stride);
}

fn store(acc: Acc, t: u32) {
    let at = 256u * t;
    let stride = 16u;
    coopStoreT(acc, &sink[at], stride);
}

@compute @workgroup_size(128)
fn cs_mma() {
    let a0 = load_a(0u);
    let a1 = load_a(1u);
    let a2 = load_a(2u);
    let a3 = load_a(3u);
    let b0 = load_b(4u);
    let b1 = load_b(5u);
    let b2 = load_b(6u);
    let b3 = load_b(7u);
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
    for (var i = 0u; i < params.iterations; i++) {
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
    store(c00, 0u);
    store(c01, 1u);
    store(c02, 2u);
    store(c03, 3u);
    store(c10, 4u);
    store(c11, 5u);
    store(c12, 6u);
    store(c13, 7u);
    store(c20, 8u);
    store(c21, 9u);
    store(c22, 10u);
    store(c23, 11u);
    store(c30, 12u);
    store(c31, 13u);
    store(c32, 14u);
    store(c33, 15u);
}

