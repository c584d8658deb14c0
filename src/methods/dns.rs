//! O'Neil (2013), "Experiments with Massively Parallel Matrix Multiplication", §2.2 and §3.1:
//! the DNS (Dekel–Nassimi–Sahni) algorithm in a single workgroup — and the block kernel every DNS
//! variant shares ([`Layout`], [`plan_layout`]).
//!
//! DNS puts the n³ terms `A[i][k]·B[k][j]` on an n×n×n processor cube (figure 1) and reduces along
//! the k axis, so processor (i, 0, j) ends with `C[i][j]`. Here one workgroup is a BI×BK×BJ block
//! of the cube (`@workgroup_size(BJ, BK, BI)`): the plane j = 0 loads the block of A and the
//! plane i = 0 the block of B into workgroup memory, every invocation multiplies its pair, and a
//! tree reduction over k in workgroup memory — ⌈log₂ BK⌉ steps, each ending with a barrier
//! (O'Neil's warp-synchronous unrolled reduction has no WGSL equivalent) — leaves the sums.
//!
//! The single-workgroup method `dns` is the whole cube in one workgroup: one dispatch of one
//! m×k×n workgroup (m×k·k×n needs no padding: the cube is simply m×k×n). It accepts m·k·n ≤
//! `max_compute_invocations_per_workgroup`, 4·(m·k + k·n + m·k·n) bytes ≤
//! `max_compute_workgroup_storage_size` and m ≤ `max_compute_workgroup_size_z` — square n ≤ 10
//! with 1024 invocations, as O'Neil's n ≤ ∛1024 ≈ 10.08 — and anything larger is an
//! [`Error::Limit`] naming the limit and the accepted sizes. [`super::dns_blocks`] (§3.2) and
//! [`super::dns_tiled`] (§5) spread larger cubes over many workgroups.
//!
//! **No float atomics.** When a variant splits the k axis over several workgroups, O'Neil's §5
//! adds the pieces into C with `atomicAdd`; WGSL has no float atomics. The choice here is a
//! partial-sum buffer and a reduction pass (`shaders/dns_reduce.wgsl`) rather than a
//! compare-and-swap loop on the u32 bits: each k-block writes its own plane of m·n partial sums
//! and a second dispatch adds the q planes in order. Cost: q·m·n extra words written and read
//! back, m·n written again, and one more dispatch — but no retries (a CAS loop retries once per
//! colliding writer, and q writers collide on every element), and a sum whose order, hence
//! rounding, does not depend on scheduling. With one k-block the kernel writes C directly.
//!
//! Shaders: `shaders/dns.wgsl` (BI, BK, BJ, KHALF are pipeline constants) and
//! `shaders/dns_reduce.wgsl`.

use crate::error::{Error, Result};
use crate::gpu::compute::{self, Io, Kernel, Plan, Stage, groups_for};
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/dns.wgsl"));
const REDUCE: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/dns_reduce.wgsl"));

/// The block of the DNS cube one workgroup holds: `bi` rows of C × `bk` terms × `bj` columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub bi: usize,
    pub bk: usize,
    pub bj: usize,
}

impl Layout {
    /// Invocations per workgroup, one per term.
    #[cfg(feature = "internals")]
    pub fn invocations(&self) -> u64 {
        (self.bi * self.bk * self.bj) as u64
    }

    /// Workgroup memory: the blocks of A and B and the terms.
    pub fn workgroup_bytes(&self) -> u64 {
        4 * (self.bi * self.bk + self.bk * self.bj + self.bi * self.bk * self.bj) as u64
    }

    /// Whether one workgroup of this shape can run under `limits` (x = j, y = k, z = i).
    pub fn fits(&self, limits: &wgpu::Limits) -> bool {
        compute::check_workgroup(limits, "", self.workgroup_size(), self.workgroup_bytes()).is_ok()
    }

    /// `@workgroup_size(BJ, BK, BI)`.
    pub fn workgroup_size(&self) -> [u32; 3] {
        [self.bj as u32, self.bk as u32, self.bi as u32]
    }

    /// Workgroups over an m×k×n cube: x over columns, y over k-blocks, z over rows.
    pub fn grid(&self, m: usize, k: usize, n: usize) -> [u32; 3] {
        [
            groups_for(n, self.bj),
            groups_for(k, self.bk),
            groups_for(m, self.bi),
        ]
    }
}

/// Loop iterations of one invocation of the dispatches [`plan_layout`] makes, for drivers that
/// cap them ([`super::Loops`]): the block kernel's tree reduction (⌈log₂ BK⌉ steps + 1) or,
/// where k is split into more than one block, the reduction pass's loop over the ⌈k/BK⌉ planes
/// of partial sums (+ 1), whichever is longer (they are separate dispatches).
pub fn loop_iterations(layout: Layout, k: usize) -> u64 {
    let bk = layout.bk.max(1);
    let tree = bk.next_power_of_two().trailing_zeros() as u64 + 1;
    let planes = k.div_ceil(bk) as u64;
    if planes > 1 {
        tree.max(planes + 1)
    } else {
        tree
    }
}

/// The dispatches for an m×k×n product cut into `layout` blocks: the DNS kernel, then, if the k
/// axis is split, the reduction of the partial sums.
pub fn plan_layout(method: &'static str, layout: Layout, m: usize, k: usize, n: usize) -> Plan {
    let grid = layout.grid(m, k, n);
    let kernel = Kernel {
        file: "dns.wgsl",
        source: SHADER,
        entry: "main",
        constants: vec![
            ("BI", layout.bi as f64),
            ("BK", layout.bk as f64),
            ("BJ", layout.bj as f64),
            ("KHALF", (layout.bk.next_power_of_two() / 2) as f64),
        ],
        workgroup_size: layout.workgroup_size(),
        workgroup_bytes: layout.workgroup_bytes(),
    };
    let workgroups: u64 = grid.iter().map(|&g| g as u64).product();
    let note = format!(
        "{workgroups} workgroup(s) of {}x{}x{} (i x k x j) terms, tree reduction over k",
        layout.bi, layout.bk, layout.bj
    );
    let planes = grid[1];
    if planes == 1 {
        return Plan::single(method, kernel, grid).note(note);
    }
    // 64 invocations per element group; spread over y if x would pass the WebGPU minimum of
    // max_compute_workgroups_per_dimension.
    let total = (m * n).div_ceil(64) as u32;
    let x = total.min(65535);
    let reduce = Kernel {
        file: "dns_reduce.wgsl",
        source: REDUCE,
        entry: "main",
        constants: vec![],
        workgroup_size: [64, 1, 1],
        workgroup_bytes: 0,
    };
    Plan {
        method,
        stages: vec![
            Stage {
                kernel,
                groups: grid,
                io: Io::GemmToScratch,
            },
            Stage {
                kernel: reduce,
                groups: [x, total.div_ceil(x), 1],
                io: Io::ScratchToC,
            },
        ],
        scratch_words: planes as u64 * (m * n) as u64,
        extra: planes,
        notes: vec![
            note,
            format!(
                "k split into {planes} blocks: {planes} planes of partial sums, then a reduction pass (no float atomics in WGSL)"
            ),
        ],
        trusted: None,
    }
}

/// The largest square n the single workgroup accepts under `limits`.
pub fn max_square(limits: &wgpu::Limits) -> usize {
    (1..=64)
        .take_while(|&n| {
            Layout {
                bi: n,
                bk: n,
                bj: n,
            }
            .fits(limits)
        })
        .last()
        .unwrap_or(0)
}

/// The single-workgroup plan, or an error naming the limit and the sizes accepted.
pub fn plan(limits: &wgpu::Limits, m: usize, k: usize, n: usize) -> Result<Plan> {
    let layout = Layout {
        bi: m,
        bk: k,
        bj: n,
    };
    let who = format!(
        "{} runs the whole {m}x{k}x{n} cube in one workgroup (O'Neil §3.1) and accepts m·k·n ≤ {} \
         invocations, 4·(m·k + k·n + m·k·n) ≤ {} bytes of workgroup memory and m ≤ {}, i.e. \
         square n ≤ {} here; use {} or {} for larger products",
        Method::Dns.name(),
        limits.max_compute_invocations_per_workgroup,
        limits.max_compute_workgroup_storage_size,
        limits.max_compute_workgroup_size_z,
        max_square(limits),
        Method::DnsTiled.name(),
        Method::DnsNBlocks.name(),
    );
    compute::check_workgroup(
        limits,
        &who,
        layout.workgroup_size(),
        layout.workgroup_bytes(),
    )
    .map_err(|e| match e {
        // Say "m·k·n" rather than "invocations 37x100x65" for the common case.
        Error::Limit {
            limit: "max_compute_invocations_per_workgroup",
            value,
            max,
            ..
        } => Error::Limit {
            what: format!("{who}; m·k·n"),
            value,
            limit: "max_compute_invocations_per_workgroup",
            max,
        },
        e => e,
    })?;
    Ok(plan_layout(Method::Dns.name(), layout, m, k, n))
}
