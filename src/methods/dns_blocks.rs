//! O'Neil (2013) §3.2: DNS over many workgroups — the n×1 grid of n×n blocks, and the 2n and 4n
//! splits. Three methods, one kernel ([`super::dns`]'s block kernel):
//!
//! | method          | O'Neil                          | workgroup (i × k × j) | grid              |
//! |-----------------|---------------------------------|-----------------------|-------------------|
//! | `dns-n-blocks`  | n×1 grid of n×n blocks          | m × k × 1             | n                 |
//! | `dns-2n-blocks` | 2n×1 grid of ½n×n blocks        | ⌈m/2⌉ × k × 1         | 2n                |
//! | `dns-4n-blocks` | 4n×1 grid of ¼n×n blocks        | ⌈m/4⌉ × k × 1         | 4n                |
//!
//! Change from the single-workgroup [`super::dns`]: each plane j of the cube (or a half or a
//! quarter of it) becomes its own workgroup, which computes column j of C (or part of it) from
//! the whole of A (or its rows) and column j of B — no longer limited to m·k·n ≤ one workgroup,
//! only to ⌈m/s⌉·k. At 8×8 these are O'Neil's "8 8×8 blocks", "16 4×8 blocks" and "32 2×8
//! blocks".
//!
//! When even ⌈m/s⌉·k does not fit one workgroup (or its workgroup memory), the plane is tiled as
//! in O'Neil §5: T×T tiles (T the largest power of two up to 32 that fits, 32 for 1024
//! invocations) with blocks of ⌈T/s⌉ rows × T terms; the k axis is then split into ⌈k/T⌉ blocks
//! whose partial sums a reduction pass adds (see [`super::dns`] on why not atomics). Any shape
//! works.
//!
//! Shaders: `shaders/dns.wgsl`, `shaders/dns_reduce.wgsl`.

use super::dns::{self, Layout};
use crate::gpu::compute::Plan;
use crate::methods::Method;

/// The method name for split `s` (1, 2 or 4 workgroups per plane of the cube).
pub fn name(split: usize) -> &'static str {
    match split {
        1 => Method::DnsNBlocks.name(),
        2 => Method::Dns2nBlocks.name(),
        _ => Method::Dns4nBlocks.name(),
    }
}

// ANCHOR: oneil_shapes
/// O'Neil's block shape for split `s` if it fits one workgroup under `limits`, else the tiled
/// shape.
pub fn layout(limits: &wgpu::Limits, split: usize, m: usize, k: usize) -> Layout {
    let paper = Layout {
        bi: m.div_ceil(split),
        bk: k,
        bj: 1,
    };
    if paper.fits(limits) {
        return paper;
    }
    let tiled = |t: usize| Layout {
        bi: m.min(t).div_ceil(split),
        bk: k.min(t),
        bj: 1,
    };
    let mut t = 32;
    while t > 1 && !tiled(t).fits(limits) {
        t /= 2;
    }
    tiled(t)
}
// ANCHOR_END: oneil_shapes

/// The dispatches for split `s`.
pub fn plan(limits: &wgpu::Limits, split: usize, m: usize, k: usize, n: usize) -> Plan {
    dns::plan_layout(name(split), layout(limits, split, m, k), m, k, n)
}
