// tile_accumulate: acc += part, element by element. The tiled compute-shader multiply
// (src/tiled.rs) splits k into chunks; each chunk's product of one block of C lands in `part`,
// and this pass adds it into the block's running sum `acc`, which stays on the GPU until the last
// chunk. The grid is 2-D (`row` words per grid row, a multiple of the workgroup size) so that a
// block of more than 65535·256 words can be dispatched.

struct Len {
    words: u32,
    row: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<storage, read> part: array<f32>;
@group(0) @binding(1) var<storage, read_write> acc: array<f32>;
@group(0) @binding(2) var<uniform> len: Len;

@compute @workgroup_size(256)
fn cs_main(@builtin(global_invocation_id) id: vec3u) {
    let i = id.y * len.row + id.x;
    if (id.x < len.row && i < len.words) {
        acc[i] = acc[i] + part[i];
    }
}
