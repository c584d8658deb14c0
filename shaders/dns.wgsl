// O'Neil (2013) §2.2, §3.1, §3.2 and §5: the DNS (Dekel–Nassimi–Sahni) algorithm. The processor
// cube of figure 1 holds every term A[i][k]·B[k][j] at once; an all-to-one reduction along the k
// axis leaves C[i][j] on plane k = 0.
//
// One workgroup is a BI×BK×BJ block of that cube (x = j, y = k, z = i, as O'Neil's tx, ty, tz
// are i, k, j): invocation (j, k, i) multiplies one pair, then a tree reduction over k in
// workgroup memory sums each BK-long column of terms. The block shapes give O'Neil's variants:
//   BI×BK×BJ = n×n×n, one workgroup               the single-block DNS (§3.1)
//   n×n×1,   an n×1 grid                          "n×1 grid of n×n blocks" (§3.2)
//   n/2×n×1, n/4×n×1, grids of 2n and 4n          the 2n and 4n splits (§3.2)
//   T×T×T tiles of a larger cube                  the tiled DNS (§5, figure 5)
//
// When the k axis is split over several workgroups (grid y > 1), workgroup (x, kb, z)
// writes its sum to plane kb of a partial-sum buffer bound as `c`, and dns_reduce.wgsl
// adds the planes; with one k-block it writes C directly. (WGSL has no float atomics, which
// O'Neil's §5 used to accumulate in global memory.)
//
// Unlike O'Neil's warp-synchronous unrolled reduction, every reduction step here ends with a
// workgroupBarrier: WGSL promises nothing about lockstep execution.

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>; // C, or the partial sums
@group(0) @binding(3) var<uniform> dims: Dims;

override BI: u32 = 8u; // rows of C per workgroup
override BK: u32 = 8u; // terms of each sum per workgroup
override BJ: u32 = 8u; // columns of C per workgroup
override KHALF: u32 = 4u; // half of BK rounded up to a power of two: the first reduction stride

var<workgroup> s_a: array<f32, BI * BK>;
var<workgroup> s_b: array<f32, BK * BJ>;
var<workgroup> terms: array<f32, BI * BK * BJ>;

@compute @workgroup_size(BJ, BK, BI)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
    let lj = lid.x;
    let lk = lid.y;
    let li = lid.z;
    let i = wg.z * BI + li;
    let k = wg.y * BK + lk;
    let j = wg.x * BJ + lj;
    // ANCHOR: cube
    // The plane j = 0 loads the workgroup's block of A, the plane i = 0 its block of B
    // (O'Neil: the tz == 0 threads load), zero past the matrices' edges.
    if lj == 0u {
        var v = 0.0;
        if i < dims.m && k < dims.k {
            v = a[i * dims.k + k];
        }
        s_a[li * BK + lk] = v;
    }
    if li == 0u {
        var v = 0.0;
        if k < dims.k && j < dims.n {
            v = b[k * dims.n + j];
        }
        s_b[lk * BJ + lj] = v;
    }
    workgroupBarrier();
    // The terms of one sum are BK consecutive words.
    let t = (li * BJ + lj) * BK + lk;
    terms[t] = s_a[li * BK + lk] * s_b[lk * BJ + lj];
    workgroupBarrier();
    // ANCHOR_END: cube
    // ANCHOR: tree_reduction
    // Tree reduction along k: after the step with stride s, terms [0, s) hold the whole sum.
    for (var s = KHALF; s > 0u; s >>= 1u) {
        if lk < s && lk + s < BK {
            terms[t] += terms[t + s];
        }
        workgroupBarrier();
    }
    if lk == 0u && i < dims.m && j < dims.n {
        c[(wg.y * dims.m + i) * dims.n + j] = terms[t];
    }
    // ANCHOR_END: tree_reduction
}
