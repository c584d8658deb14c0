//! The HIP blog's "Optimized Implementation": shared-memory tiles, with the blog's zero padding
//! for sizes that are not multiples of the tile. Second rung after [`super::cs_naive`]: what
//! changes is that a workgroup stages one TILE×TILE tile of A and one of B in workgroup memory
//! per step along k, so each word fetched from global memory is used TILE times — global reads
//! fall from 2·m·n·k to 2·m·n·k/TILE words and the arithmetic intensity rises from 1/4 to TILE/4
//! flop per byte.
//!
//! One dispatch of ceil(n/TILE) × ceil(m/TILE) workgroups of TILE×TILE invocations, each
//! computing one element of C over ceil(k/TILE) steps. Two methods: `cs-tiled-16` (5kk73's block
//! size) and `cs-tiled-32` (the blog's BLOCK_DIM, matched to a 32-wide wavefront; 1024
//! invocations, which is `max_compute_invocations_per_workgroup` on most adapters).
//!
//! Shader: `shaders/cs_tiled.wgsl` (TILE is a pipeline constant).

use crate::gpu::compute::{Kernel, Plan, groups_for};
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/cs_tiled.wgsl"));

/// The one dispatch for tile edge `tile` (16 or 32).
pub fn plan(tile: u32, m: usize, k: usize, n: usize) -> Plan {
    let kernel = Kernel {
        file: "cs_tiled.wgsl",
        source: SHADER,
        entry: "main",
        constants: vec![("TILE", tile as f64)],
        workgroup_size: [tile, tile, 1],
        workgroup_bytes: 2 * 4 * (tile as u64).pow(2),
    };
    let method = if tile == 16 {
        Method::CsTiled16.name()
    } else {
        Method::CsTiled32.name()
    };
    let t = tile as usize;
    Plan::single(method, kernel, [groups_for(n, t), groups_for(m, t), 1]).note(format!(
        "{tile}x{tile} tiles of A and B in workgroup memory, zero-padded to {}x{}x{}",
        m.div_ceil(t) * t,
        k.div_ceil(t) * t,
        n.div_ceil(t) * t
    ))
}

/// Loop iterations of one invocation at depth `k` for tile edge `tile`, for drivers that cap
/// them ([`super::Loops`]): one step of the k loop per `tile` of k, and in each step the inner
/// product loop's `tile` + 1 (a compiler may unroll that loop, then a step costs one).
pub fn loop_iterations(tile: u32, k: usize) -> u64 {
    super::k_steps(k, tile, 1 + (tile as u64 + 1), 1)
}
