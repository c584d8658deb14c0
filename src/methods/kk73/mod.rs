//! The 5kk73 optimization ladder (Zhenyu Ye et al., TU/e course 5KK73, "Matrix multiplication
//! optimization steps", 2013 version), one method per step so that the effect of each step can
//! be measured on its own. The rung below the ladder is [`super::cs_naive`] (5kk73's "naive GPU").
//!
//! | step | method                  | file                | what changes                                  |
//! |------|-------------------------|---------------------|-----------------------------------------------|
//! | 1    | `5kk73-1-uncoalesced`   | [`uncoalesced`]     | 16×16 shared tiles; B tile loaded down columns |
//! | 2    | `5kk73-2-coalesced`     | [`coalesced`]       | B loaded along rows; stored transposed         |
//! | 3    | `5kk73-3-bank-free`     | [`bank_free`]       | B tile stored untransposed: no bank conflicts  |
//! | 4    | `5kk73-4-outer-product` | [`outer_product`]   | A shared, B and C in registers, 16×64 C tile   |
//! | 5    | `5kk73-5-unrolled`      | [`unrolled`]        | every loop written out                         |
//! | 6    | `5kk73-6-prefetch`      | [`prefetch`]        | A tile double-buffered, loads overlap math     |
//!
//! Steps 1–3 share one geometry (16×16 workgroups, one invocation per element of C, 2 KiB of
//! workgroup memory); steps 4–6 another (64 invocations computing a 16×64 tile of C). All pad
//! with zeros at the edges, so every shape works. 5kk73 tuned these for an 8800 GT at n = 4096;
//! `docs/compute-era.md` has what each step does on the machines we have.

pub mod bank_free;
pub mod coalesced;
pub mod outer_product;
pub mod prefetch;
pub mod uncoalesced;
pub mod unrolled;

use crate::gpu::compute::{Kernel, Plan, groups_for};

/// Loop iterations of one invocation of steps 1–3 at depth `k`, for drivers that cap them
/// ([`crate::methods::Loops`]): one step of the tile loop per 16 of k, and in each the 16 + 1
/// of the inner-product loop over the tile.
pub fn inner_product_loop_iterations(k: usize) -> u64 {
    crate::methods::k_steps(k, 16, 1 + 17, 1)
}

/// Steps 5 and 6 at depth `k`: the tile loop alone, one step per 16 of k (the loops inside it
/// are written out).
pub fn written_out_loop_iterations(k: usize) -> u64 {
    crate::methods::k_steps(k, 16, 1, 1)
}

/// Steps 1–3: one invocation per element of C, 16×16 workgroups, a 16×16 tile of A and one of B
/// in workgroup memory per k-step.
fn inner_product_plan(
    method: &'static str,
    file: &'static str,
    source: &'static str,
    m: usize,
    n: usize,
) -> Plan {
    let kernel = Kernel {
        file,
        source,
        entry: "main",
        constants: vec![],
        workgroup_size: [16, 16, 1],
        workgroup_bytes: 2 * 256 * 4,
    };
    Plan::single(method, kernel, [groups_for(n, 16), groups_for(m, 16), 1])
}

/// Steps 4–6: 64 invocations per workgroup, each owning one column of a 16×64 tile of C;
/// `a_tiles` 16×16 A tiles in workgroup memory (2 when double-buffered).
fn outer_product_plan(
    method: &'static str,
    file: &'static str,
    source: &'static str,
    a_tiles: u64,
    m: usize,
    n: usize,
) -> Plan {
    let kernel = Kernel {
        file,
        source,
        entry: "main",
        constants: vec![],
        workgroup_size: [64, 1, 1],
        workgroup_bytes: a_tiles * 256 * 4,
    };
    Plan::single(method, kernel, [groups_for(n, 64), groups_for(m, 16), 1])
        .note("16x64 C tile per workgroup of 64: A in workgroup memory, B and C in registers")
}
