//! 5kk73 step 2, "Global Memory Coalescing".
//!
//! Change from step 1 ([`super::uncoalesced`]): invocation (tx, ty) reads B(tile·16 + ty, col0 +
//! tx), so neighbouring invocations read neighbouring words of a row of B and the load coalesces
//! into few memory transactions (5kk73 frames it as "transpose B": in row-major storage the
//! column walk of step 1 is the wrong direction). The tile is still stored transposed, as step 1
//! stored it, so the inner product now reads `b_tile[tx·16 + kk]`: neighbouring invocations 16
//! words apart, a shared-memory bank conflict that step 3 removes. Computation-to-memory ratio
//! unchanged at 4 flop/byte.
//!
//! One dispatch, ceil(n/16) × ceil(m/16) workgroups of 16×16. Shader:
//! `shaders/kk73_2_coalesced.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/kk73_2_coalesced.wgsl"));

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::inner_product_plan(
        Method::Kk73Coalesced.name(),
        "kk73_2_coalesced.wgsl",
        SHADER,
        m,
        n,
    )
    .note("16x16 tiles; B read along rows (coalesced), tile stored transposed (bank conflicts)")
}
