//! O'Neil (2013) §5 and figure 5: Cannon's algorithm by blocks, for matrices larger than one
//! workgroup (and any shape).
//!
//! Change from [`super::cannon`]: C is cut into T×T tiles (T = 8, O'Neil's TILE_WIDTH), one
//! workgroup per tile. Workgroup (I, J) is a processor of a q×q block mesh, q = ceil(k/T): it
//! visits the k-blocks in Cannon's skewed order kb = (I + J + s) mod q, s = 0..q, loading tiles
//! A(I, kb) and B(kb, J) into workgroup memory (zero past the edges), and inside each tile
//! invocation (tx, ty) runs the single-block loop with the index (tx + ty + p) mod T.
//!
//! O'Neil gave each k-block its own thread block and accumulated C with `atomicAdd` in global
//! memory. WGSL has no float atomics; since here one workgroup owns its tile of C and walks all
//! of its k-blocks, the sum stays in a register and C is written once — no atomics, no partial
//! sums, no second pass (this is the block Cannon of his reference \[4\]).
//!
//! One dispatch, ceil(n/T) × ceil(m/T) workgroups of T×T. Shader: `shaders/cannon_tiled.wgsl`.

use crate::gpu::compute::{Kernel, Plan, groups_for};
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/cannon_tiled.wgsl"));

/// O'Neil's TILE_WIDTH.
pub const TILE: u32 = 8;

/// The dispatch for tile edge `tile`.
pub fn plan_tile(tile: u32, m: usize, k: usize, n: usize) -> Plan {
    let kernel = Kernel {
        file: "cannon_tiled.wgsl",
        source: SHADER,
        entry: "main",
        constants: vec![("T", tile as f64)],
        workgroup_size: [tile, tile, 1],
        workgroup_bytes: 2 * 4 * (tile as u64).pow(2),
    };
    let t = tile as usize;
    let q = k.div_ceil(t);
    Plan::single(
        Method::CannonTiled.name(),
        kernel,
        [groups_for(n, t), groups_for(m, t), 1],
    )
    .note(format!(
        "{}x{} mesh of {tile}x{tile} blocks, each walking {q} k-block(s) from (I + J) mod {q}",
        m.div_ceil(t),
        n.div_ceil(t)
    ))
}

/// Loop iterations of one invocation at depth `k`, for drivers that cap them
/// ([`super::Loops`]): one step of the block loop per T = 8 of k, and in each the T + 1 of the
/// skewed inner product.
pub fn loop_iterations(k: usize) -> u64 {
    super::k_steps(k, TILE, 1 + (TILE as u64 + 1), 1)
}

/// The dispatch with O'Neil's tile.
pub fn plan(m: usize, k: usize, n: usize) -> Plan {
    plan_tile(TILE, m, k, n)
}
