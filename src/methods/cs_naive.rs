//! The naive compute kernel: the HIP blog's "Naive Implementation" and 5kk73's "Naive
//! Implementation On GPUs". The first rung of the compute era.
//!
//! One dispatch of 16×16 workgroups over C; invocation (row, col) reads row `row` of A and column
//! `col` of B from global memory and writes C(row, col). Global traffic is 2·m·n·k words for
//! 2·m·n·k flops — about 1/4 flop per byte (5kk73's computation-to-memory ratio; the HIP blog's
//! arithmetic intensity 2N flops / 8N bytes) — so the kernel is bound by memory bandwidth.
//!
//! Shader: `shaders/cs_naive.wgsl`.

use crate::gpu::compute::{Kernel, Plan, groups_for};
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/cs_naive.wgsl"));
const WG: u32 = 16;

/// The one dispatch: ceil(n/16) × ceil(m/16) workgroups of 16×16.
pub fn plan(m: usize, _k: usize, n: usize) -> Plan {
    let kernel = Kernel {
        file: "cs_naive.wgsl",
        source: SHADER,
        entry: "main",
        constants: vec![("WG", WG as f64)],
        workgroup_size: [WG, WG, 1],
        workgroup_bytes: 0,
    };
    Plan::single(
        Method::CsNaive.name(),
        kernel,
        [groups_for(n, WG as usize), groups_for(m, WG as usize), 1],
    )
    .note("one invocation per element of C, operands straight from global memory")
}

/// Loop iterations of one invocation at depth `k`, for drivers that cap them
/// ([`super::Loops`]): the k loop, one iteration per k and one more that ends it.
pub fn loop_iterations(k: usize) -> u64 {
    k as u64 + 1
}
