// Operand layout on the device (src/gpu/layout.rs): a matrix uploaded as given (row-major,
// src_rows × src_cols) is copied into dst (dst_rows × dst_cols), transposed when `transpose` is
// 1, with every element outside the source zero. One 16×16 tile of dst per workgroup; a
// transpose goes through workgroup memory so that both the reads and the writes are coalesced.

struct Params {
    src_rows: u32,
    src_cols: u32,
    dst_rows: u32,
    dst_cols: u32,
    transpose: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
};

@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;

const T: u32 = 16u;
// One column of padding: a column of the tile is then spread over all the banks.
var<workgroup> tile: array<array<f32, 17>, 16>;

fn source(r: u32, c: u32) -> f32 {
    if (r < p.src_rows && c < p.src_cols) {
        return src[r * p.src_cols + c];
    }
    return 0.0;
}

@compute @workgroup_size(16, 16)
fn lay_out(@builtin(workgroup_id) wg: vec3u, @builtin(local_invocation_id) l: vec3u) {
    let r0 = wg.y * T;
    let c0 = wg.x * T;
    if (p.transpose == 0u) {
        let r = r0 + l.y;
        let c = c0 + l.x;
        if (r < p.dst_rows && c < p.dst_cols) {
            dst[r * p.dst_cols + c] = source(r, c);
        }
        return;
    }
    // dst(r, c) = src(c, r): read the source tile along its rows (rows c0.., columns r0..).
    tile[l.y][l.x] = source(c0 + l.y, r0 + l.x);
    workgroupBarrier();
    let r = r0 + l.y;
    let c = c0 + l.x;
    if (r < p.dst_rows && c < p.dst_cols) {
        dst[r * p.dst_cols + c] = tile[l.x][l.y];
    }
}
