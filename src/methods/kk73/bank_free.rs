//! 5kk73 step 3, "Avoiding Shared Memory Bank Conflict".
//!
//! Change from step 2 ([`super::coalesced`]): the B tile is stored as it is read,
//! `b_tile[kk·16 + j]`, so the inner product `a_tile[ty·16 + kk] · b_tile[kk·16 + tx]` has
//! neighbouring invocations reading neighbouring words of `b_tile` (one per bank) and one shared
//! word of `a_tile` (a broadcast). Global loads stay coalesced; 4 flop/byte as before. The result
//! is exactly the HIP blog's tiled kernel ([`crate::methods::cs_tiled`] with TILE = 16): the blog
//! starts where 5kk73's third step ends.
//!
//! One dispatch, ceil(n/16) × ceil(m/16) workgroups of 16×16. Shader:
//! `shaders/kk73_3_bank_free.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/kk73_3_bank_free.wgsl"));

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::inner_product_plan(
        Method::Kk73BankFree.name(),
        "kk73_3_bank_free.wgsl",
        SHADER,
        m,
        n,
    )
    .note("16x16 tiles; coalesced loads, conflict-free workgroup-memory reads")
}
