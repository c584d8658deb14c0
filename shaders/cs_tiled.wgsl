// The HIP blog's "Optimized Implementation": each workgroup computes one TILE×TILE tile of C.
// It walks the k axis in steps of TILE, each step loading one tile of A and one of B into
// workgroup memory (zero-padding past the matrix edge, so any m, k, n works), then every
// invocation accumulates TILE products from workgroup memory. Each element loaded from global
// memory is used TILE times: 2·m·n·k/TILE words for 2·m·n·k flops, TILE/4 flop per byte.
//
// Layout: row-major f32; C is m×n, A m×k, B k×n. TILE is set by the pipeline (16 or 32).

struct Dims { m: u32, k: u32, n: u32, extra: u32 }

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

override TILE: u32 = 16u;

var<workgroup> tile_a: array<f32, TILE * TILE>;
var<workgroup> tile_b: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn main(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) lid: vec3u) {
    let row = wg.y * TILE + lid.y;
    let col = wg.x * TILE + lid.x;
    let steps = (dims.k + TILE - 1u) / TILE;
    var sum = 0.0;
    // ANCHOR: tile_loop
    for (var step = 0u; step < steps; step++) {
        let col_a = step * TILE + lid.x;
        let row_b = step * TILE + lid.y;
        var va = 0.0; // padding
        if row < dims.m && col_a < dims.k {
            va = a[row * dims.k + col_a];
        }
        var vb = 0.0; // padding
        if row_b < dims.k && col < dims.n {
            vb = b[row_b * dims.n + col];
        }
        tile_a[lid.y * TILE + lid.x] = va;
        tile_b[lid.y * TILE + lid.x] = vb;
        workgroupBarrier();
        for (var i = 0u; i < TILE; i++) {
            // tile_a: one address for the whole row of invocations (a broadcast);
            // tile_b: consecutive invocations, consecutive words (no bank conflict).
            sum += tile_a[lid.y * TILE + i] * tile_b[i * TILE + lid.x];
        }
        workgroupBarrier();
    }
    // ANCHOR_END: tile_loop
    if row < dims.m && col < dims.n {
        c[row * dims.n + col] = sum;
    }
}
