//! O'Neil (2013) §5 and figure 5: DNS by T×T×T tiles of the cube, for any size. O'Neil's
//! "DNS, 8x8x8 block" row of table 2 is this at 16×16: eight 8×8×8 sub-products.
//!
//! Change from the single-workgroup [`super::dns`]: the m×k×n cube is cut into tiles of
//! T×T×T terms (T = 8, O'Neil's TILE_WIDTH: 512 invocations), one workgroup each, over a grid of
//! ⌈n/T⌉ × ⌈k/T⌉ × ⌈m/T⌉. Each tile tree-reduces its terms over its T values of k; the ⌈k/T⌉
//! k-blocks of a C tile then meet in a partial-sum buffer that a second dispatch adds in order —
//! O'Neil used `atomicAdd` there, which WGSL lacks for floats (see [`super::dns`]). Tiles shrink
//! to the matrix where it is smaller than T, so tiny products have no wasted invocations.
//!
//! Shaders: `shaders/dns.wgsl`, `shaders/dns_reduce.wgsl`.

use super::dns::{self, Layout};
use crate::gpu::compute::Plan;
use crate::methods::Method;

/// O'Neil's TILE_WIDTH.
pub const TILE: usize = 8;

/// The T×T×T tile, shrunk to the matrix where it is smaller.
pub fn layout(m: usize, k: usize, n: usize) -> Layout {
    Layout {
        bi: m.min(TILE),
        bk: k.min(TILE),
        bj: n.min(TILE),
    }
}

/// The dispatches: the tiles, then the reduction if k > T.
pub fn plan(m: usize, k: usize, n: usize) -> Plan {
    dns::plan_layout(Method::DnsTiled.name(), layout(m, k, n), m, k, n)
}
