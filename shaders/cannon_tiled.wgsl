// O'Neil (2013) §5 and figure 5: Cannon's algorithm for matrices larger than one workgroup, by
// blocks. Workgroup (I, J) is one processor of a q×q block mesh and owns the T×T tile C(I, J);
// it visits the q k-blocks in Cannon's skewed order, starting at k-block (I + J) mod q, loading
// A(I, kb) and B(kb, J) into workgroup memory (zero-padded past the edges, so any m, k, n
// works), and inside each tile invocation (tx, ty) runs O'Neil's single-block loop with the
// index (tx + ty + p) mod T.
//
// O'Neil split the k-blocks over separate thread blocks and summed them with atomicAdd in
// global memory. WGSL has no float atomics; here one workgroup walks all k-blocks of its tile
// and keeps the sum in a register (the block Cannon of his reference [4]), so C is written once
// and no second pass is needed.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

// TILE_WIDTH (8 in O'Neil's 16×16 experiment).
override T: u32 = 8u;

var<workgroup> s_a: array<f32, T * T>;
var<workgroup> s_b: array<f32, T * T>;

@compute @workgroup_size(T, T)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
    let tx = lid.x;
    let ty = lid.y;
    let row = wg.y * T + ty;
    let col = wg.x * T + tx;
    let q = (dims.k + T - 1u) / T;
    var local_val = 0.0;
    // ANCHOR: block_skew
    for (var s = 0u; s < q; s++) {
        let kb = (wg.y + wg.x + s) % q; // Cannon's skew of the block mesh
        let ka = kb * T + tx;
        let kb_row = kb * T + ty;
        var va = 0.0;
        if row < dims.m && ka < dims.k {
            va = a[row * dims.k + ka];
        }
        var vb = 0.0;
        if kb_row < dims.k && col < dims.n {
            vb = b[kb_row * dims.n + col];
        }
        s_a[ty * T + tx] = va;
        s_b[ty * T + tx] = vb;
        workgroupBarrier();
        for (var p = 0u; p < T; p++) {
            let dex = (tx + ty + p) % T;
            local_val += s_a[ty * T + dex] * s_b[dex * T + tx];
        }
        workgroupBarrier();
    }
    // ANCHOR_END: block_skew
    if row < dims.m && col < dims.n {
        c[row * dims.n + col] = local_val;
    }
}
