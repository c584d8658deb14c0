//! 5kk73 step 1, "Increasing Computation-to-Memory Ratio by Tiling", with the B load as 5kk73
//! first writes it: `B_tile(tx, ty) <= B(tile·16 + tx, col0 + ty)`.
//!
//! Change from the naive kernel ([`crate::methods::cs_naive`]): a 16×16 workgroup stages a 16×16
//! tile of A and of B in workgroup memory per step along k, so each global word serves 16
//! multiply-adds — global traffic falls from 2·m·n·k to 2·m·n·k/16 words and the
//! computation-to-memory ratio rises from 1/4 to 16/4 = 4 flop/byte. But neighbouring invocations
//! (consecutive `tx`) read B n words apart: the global load of B is not coalesced.
//!
//! One dispatch, ceil(n/16) × ceil(m/16) workgroups of 16×16. Shader:
//! `shaders/kk73_1_uncoalesced.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/kk73_1_uncoalesced.wgsl"));

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::inner_product_plan(
        Method::Kk73Uncoalesced.name(),
        "kk73_1_uncoalesced.wgsl",
        SHADER,
        m,
        n,
    )
    .note("16x16 tiles; B tile read down columns of B (uncoalesced)")
}
