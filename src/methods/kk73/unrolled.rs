//! 5kk73 step 5, "Loop Unrolling".
//!
//! Change from step 4 ([`super::outer_product`]): the loops are unrolled. 5kk73 adds
//! `#pragma unroll` so nvcc unrolls the outer loop as well as the inner one; WGSL has no pragma,
//! so the shader writes them out — the 16-row rank-1 update as 16 statements with constant
//! indices into the accumulators (which lets the compiler keep them in registers instead of an
//! indexed private array), the loop over the 16 columns of the A tile as 16 calls of that update,
//! the 4-word tile load and the 16-word store as straight-line code. Fewer loop-counter, compare
//! and branch instructions per multiply-add; the same 6.4 flop/byte.
//!
//! One dispatch, ceil(n/64) × ceil(m/16) workgroups of 64. Shader:
//! `shaders/kk73_5_unrolled.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/kk73_5_unrolled.wgsl"));

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::outer_product_plan(
        Method::Kk73Unrolled.name(),
        "kk73_5_unrolled.wgsl",
        SHADER,
        1,
        m,
        n,
    )
    .note("loops written out (WGSL has no #pragma unroll)")
}
