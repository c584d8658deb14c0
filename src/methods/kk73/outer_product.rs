//! 5kk73 step 4, "Computation Optimization": the outer product.
//!
//! Change from step 3 ([`super::bank_free`]): after step 3 the kernel is bound by instructions,
//! not memory, and on the 8800 GT each multiply-add of the inner product needed an extra move
//! because only one operand may come from shared memory. So the work is reorganised: a workgroup
//! of 64 invocations computes a 16×64 tile of C; only A goes through workgroup memory (a 16×16
//! tile per k-step); each invocation keeps its column of the C tile in 16 registers and reads one
//! element of B at a time from global memory into a register, then adds the rank-1 update
//! `C(:, col) += A_tile(:, kk) · b`. Every multiply-add now has a single workgroup-memory operand,
//! read by all 64 invocations at once (a broadcast).
//!
//! Global traffic: A is read ceil(n/64) times and B ceil(m/16) times, m·n·k·(1/64 + 1/16) words
//! for 2·m·n·k flops — 6.4 flop/byte (5kk73 says "the same as the inner product"; with a 16×64
//! C tile it is in fact a little higher than the 4 of steps 1–3).
//!
//! One dispatch, ceil(n/64) × ceil(m/16) workgroups of 64. Shader:
//! `shaders/kk73_4_outer_product.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(
    env!("OUT_DIR"),
    "/shaders/kk73_4_outer_product.wgsl"
));

/// Loop iterations of one invocation at depth `k`, for drivers that cap them
/// ([`crate::methods::Loops`]), every loop counted at its trip count + 1: per 16 of k one step
/// of the tile loop, 4 + 1 of the staging loop, 16 + 1 of the loop over the tile's k and
/// 16 × (16 + 1) of the register loop inside it (295); and 17 + 17 + 1 for zeroing and storing
/// the accumulators and ending the tile loop.
///
/// Mesa's lavapipe unrolls the staging and register loops, so there a tile costs 18: the tile
/// loop's step and the 17 of the loop over the tile's k. That is why its sums stopped at
/// k = 58 255 before k was split: 3 640 tiles of 18 are 65 520 iterations, and the 3 641st tile
/// ran 15 of its 16 k steps before the 65 535th.
pub fn loop_iterations(k: usize) -> u64 {
    crate::methods::k_steps(k, 16, 1 + 5 + 17 + 16 * 17, 17 + 17 + 1)
}

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::outer_product_plan(
        Method::Kk73OuterProduct.name(),
        "kk73_4_outer_product.wgsl",
        SHADER,
        1,
        m,
        n,
    )
}
