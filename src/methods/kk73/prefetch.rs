//! 5kk73 step 6, "Prefetching": double-buffered A tiles.
//!
//! Change from step 5 ([`super::unrolled`]): two A tiles of workgroup memory alternate. At the
//! top of k-step t the invocations issue the global loads of tile t + 1 into the idle half, then
//! run the 16 rank-1 updates on tile t from the other half, so the latency of global memory hides
//! behind the multiply-adds instead of stalling before them; and one barrier per k-step is enough
//! (step 5 needs two), since the barrier that publishes tile t + 1 also frees tile t's half for
//! tile t + 2. The price is 1 KiB more workgroup memory (2 KiB in all); still 6.4 flop/byte.
//!
//! One dispatch, ceil(n/64) × ceil(m/16) workgroups of 64. Shader:
//! `shaders/kk73_6_prefetch.wgsl`.

use crate::gpu::compute::Plan;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/kk73_6_prefetch.wgsl"));

/// The one dispatch.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    super::outer_product_plan(
        Method::Kk73Prefetch.name(),
        "kk73_6_prefetch.wgsl",
        SHADER,
        2,
        m,
        n,
    )
    .note("A tile double-buffered: the next tile loads while this one is used")
}
