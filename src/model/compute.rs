//! The model of the compute era: global-memory words each compute method moves, and the
//! computation-to-memory ratio that follows — 5kk73's "computation-to-memory ratio" and the HIP
//! blog's "arithmetic intensity", the same number: useful flops (2·m·k·n) per byte of global
//! memory traffic.
//!
//! The counts are of words the kernels actually load and store (loads past the matrix edge are
//! skipped by the kernels, so zero padding costs nothing here), per method family:
//!
//! | method                                  | words read                          | words written |
//! |-----------------------------------------|-------------------------------------|---------------|
//! | `cs-naive`                              | 2·m·n·k                             | m·n           |
//! | tiles of T (`cs-tiled-T`, 5kk73 1–3 with T = 16, `cannon-tiled` with T = 8) | m·k·⌈n/T⌉ + k·n·⌈m/T⌉ | m·n |
//! | 5kk73 4–6 (16×64 C tile)                | m·k·⌈n/64⌉ + k·n·⌈m/16⌉             | m·n           |
//! | `cannon`, `dns` (one workgroup)         | m·k + k·n                           | m·n           |
//! | DNS blocks of bi×bk×bj, q k-blocks      | m·k·⌈n/bj⌉ + k·n·⌈m/bi⌉ (+ q·m·n)   | m·n (+ q·m·n) |
//! | `cs-fast`, BM×BN tiles, padded m'×k'×n' | m'·k'·n'/BN + k'·n'·m'/BM           | m'·n'         |
//! | `coop`, BM×BN per subgroup, f16 inputs  | (m'·k'·n'/BN + k'·n'·m'/BM) / 2     | m'·n'         |
//!
//! (the bracketed terms are the partial sums written and read back by the reduction pass when
//! q > 1). For m = k = n these give 5kk73's figures: 2n³ words, about 1/4 flop/byte, naive;
//! 2n³/T words, T/4 flop/byte, tiled; the HIP blog's 2N flops over 8N bytes per invocation,
//! naive, and its O(N³/BLOCK_DIM) traffic tiled.
//!
//! The workgroup geometry comes from the very [`Plan`](crate::gpu::compute::Plan) the method
//! runs, reduced to its dispatches by one function ([`Plan::grid`]): the model of a run reads
//! the grid the run recorded ([`model_of_run`]), the model of a size not run asks the method's
//! plan for it ([`try_model_of`]), so the two cannot disagree about it.
//!
//! The counts are exact u128 with checked arithmetic ([`super::count`]): a model may be asked
//! about sides no device holds, and there it says the true number or refuses
//! ([`try_model_with_limits`]), never a wrapped one. Past what a device could hold
//! ([`runnable`]) there is no geometry, only the counts.

use super::count::Count;
use crate::error::{Error, Result};
use crate::gpu::compute::Plan;
use crate::gpu::run::Grid;
use crate::methods::{Kernels, Method, RanKernel, Variant, coop, cs_fast, dns_blocks, dns_tiled};
use serde::Serialize;

/// The model of one compute method on one problem size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComputeModel {
    pub method: String,
    /// The variant modelled, for the methods that have several (cs-fast's, coop's), by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Useful floating-point operations, 2·m·k·n.
    pub flops: u128,
    /// f32 words read from global memory.
    pub words_read: u128,
    /// f32 words written to global memory.
    pub words_written: u128,
    /// 4 · (read + written).
    pub global_bytes: u128,
    /// flops / global_bytes: 5kk73's computation-to-memory ratio, the HIP blog's arithmetic
    /// intensity.
    pub flop_per_byte: f64,
    /// What the seed says for n×n, for the table.
    pub paper_ratio: &'static str,
    /// Dispatches, workgroups and their shape, from the method's plan (absent where the method
    /// cannot run the size, e.g. a single-workgroup method given a large product).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatches: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workgroups: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invocations_per_workgroup: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workgroup_bytes: Option<u64>,
    /// Why there is no geometry, if there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cannot_run: Option<String>,
}

/// Limits as lavapipe and most desktop GPUs report them (1024 invocations and 32 KiB of
/// workgroup memory per workgroup), for models asked for without an adapter.
pub fn typical_limits() -> wgpu::Limits {
    wgpu::Limits {
        max_compute_invocations_per_workgroup: 1024,
        max_compute_workgroup_size_x: 1024,
        max_compute_workgroup_size_y: 1024,
        max_compute_workgroup_size_z: 64,
        max_compute_workgroup_storage_size: 32768,
        ..wgpu::Limits::default()
    }
}

/// The model of `method` on m×k·k×n under [`typical_limits`]; `None` if `method` is not a
/// compute method (or a count would pass u128: [`try_model`]).
pub fn model(method: Method, m: usize, k: usize, n: usize) -> Option<ComputeModel> {
    model_with_limits(method, m, k, n, &typical_limits())
}

/// [`model`], with an error naming the size when a count would pass u128.
#[cfg(feature = "internals")]
pub fn try_model(method: Method, m: usize, k: usize, n: usize) -> Result<Option<ComputeModel>> {
    try_model_with_limits(method, m, k, n, &typical_limits())
}

/// The model of `method` on m×k·k×n with the workgroup shapes an adapter with `limits` gets;
/// `None` if `method` is not a compute method, or if a count would pass u128 (sides of about
/// 2⁴⁰; [`try_model_with_limits`] says so).
pub fn model_with_limits(
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    limits: &wgpu::Limits,
) -> Option<ComputeModel> {
    try_model_with_limits(method, m, k, n, limits)
        .ok()
        .flatten()
}

/// The largest side a dispatch or a buffer can reach: 2³² − 1 (wgpu's sizes and workgroup
/// counts are u32).
const MAX_RUNNABLE_SIDE: usize = u32::MAX as usize;

/// The most elements of A, B or C a device could hold: 2³⁶ (256 GiB of f32, past the memory of
/// any one device).
const MAX_RUNNABLE_ELEMENTS: u128 = 1 << 36;

/// Whether a device could hold the product at all: every side within `MAX_RUNNABLE_SIDE` (2³² − 1) and
/// each of A, B and C within `MAX_RUNNABLE_ELEMENTS`. Only then does the model ask the
/// method's plan for its geometry: the plans count in usize and u32, for sizes a run can have.
pub fn runnable(m: usize, k: usize, n: usize) -> bool {
    let within = |x: usize, y: usize| (x as u128) * (y as u128) <= MAX_RUNNABLE_ELEMENTS;
    m.max(k).max(n) <= MAX_RUNNABLE_SIDE && within(m, k) && within(k, n) && within(m, n)
}

/// [`model_with_limits`], with an error naming the size when a count would pass u128.
pub fn try_model_with_limits(
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    limits: &wgpu::Limits,
) -> Result<Option<ComputeModel>> {
    try_model_of(method, (m, k, n), limits, &Kernels::default())
}

/// [`model_with_limits`] of the kernel variants `kernels` names, as a request names them: the
/// model of a size that was not run, its geometry from the plan the method would run
/// ([`planned_grid`]). The model of a run is [`model_of_run`].
#[cfg(feature = "internals")]
pub fn model_of(
    method: Method,
    mkn: (usize, usize, usize),
    limits: &wgpu::Limits,
    kernels: &Kernels,
) -> Option<ComputeModel> {
    try_model_of(method, mkn, limits, kernels).ok().flatten()
}

/// [`model_of`], with an error naming the size when a count would pass u128.
pub fn try_model_of(
    method: Method,
    (m, k, n): (usize, usize, usize),
    limits: &wgpu::Limits,
    kernels: &Kernels,
) -> Result<Option<ComputeModel>> {
    let Some(grid) = planned_grid(method, (m, k, n), limits, kernels) else {
        return Ok(None);
    };
    model_with_grid(method, (m, k, n), limits, kernels, grid)
}

/// The compute model of the kernel a run ran ([`RanKernel`]): the method it ran as, its
/// variant, and the dispatches it recorded ([`RanKernel::grid`]) — read, not planned again. A
/// run that recorded none (a tiled product, whose blocks each ran a plan of their own) has
/// the counts without the geometry. `None` unless the kernel is a compute method's.
pub fn model_of_run(
    kernel: &RanKernel,
    mkn: (usize, usize, usize),
    limits: &wgpu::Limits,
) -> Option<ComputeModel> {
    let grid = kernel.grid.clone().ok_or_else(|| {
        Error::Invalid("no one plan ran: the product ran tiled, each block a plan of its own".into())
    });
    model_with_grid(kernel.method, mkn, limits, &kernel.kernels(), grid)
        .ok()
        .flatten()
}

/// The dispatches `method` would run for m×k·k×n with the configurations `kernels` names
/// (the same plans the entry point runs: [`Kernels::compute_plan`], cs-fast's and coop's
/// variants, [`crate::plan::compute_plan`]), or why it cannot run it; `None` if `method` does
/// not run on the compute harness.
pub fn planned_grid(
    method: Method,
    (m, k, n): (usize, usize, usize),
    limits: &wgpu::Limits,
    kernels: &Kernels,
) -> Option<Result<Grid>> {
    if !runnable(m, k, n) {
        return Some(Err(Error::Invalid(format!(
            "no device holds it (a side past {MAX_RUNNABLE_SIDE}, or A, B or C past 2^36 elements)"
        ))));
    }
    let (cs_fast_variant, coop_variant) = variants(kernels, m, n);
    let plan: Result<Plan> = match method {
        Method::CsFast => cs_fast::plan(&cs_fast_variant, m, k, n),
        Method::Coop => Ok(coop::plan(&coop_variant, m, k, n)),
        _ => match kernels.compute_plan(method, m, k, n) {
            Some(named) => named.map(|(p, _)| p),
            None => crate::plan::compute_plan(method, limits, m, k, n)?,
        },
    };
    Some(plan.map(|p| p.grid()))
}

/// cs-fast's and coop's variants as `kernels` names them, else as an m×n product picks them.
/// cs-fast and coop run the variant the request names (the run records it); they load the
/// padding too (their buffers are padded to the tile), so their counts use padded sizes.
/// Unnamed, cs-fast's depends on whether the product has many tiles, which sides clamped to the
/// runnable ones keep, and for the smallest on whether the adapter is a CPU, which a model has
/// not: a GPU's choice; coop's on the vendor too, which a model has not either: the default
/// variant.
fn variants(kernels: &Kernels, m: usize, n: usize) -> (cs_fast::Variant, coop::Variant) {
    let (mr, nr) = (m.min(MAX_RUNNABLE_SIDE), n.min(MAX_RUNNABLE_SIDE));
    (
        cs_fast::Variant::chosen(kernels.cs_fast, mr, nr, false),
        kernels.coop.unwrap_or_else(coop::Variant::default_variant),
    )
}

/// The model of `method` on m×k·k×n under `limits` with the variants `kernels` names, whose
/// dispatches are `grid` (or it cannot run, and why): the one body of [`try_model_of`] and
/// [`model_of_run`].
fn model_with_grid(
    method: Method,
    (m, k, n): (usize, usize, usize),
    limits: &wgpu::Limits,
    kernels: &Kernels,
    grid: Result<Grid>,
) -> Result<Option<ComputeModel>> {
    if !method.is_compute() && !matches!(method, Method::CsFast | Method::Coop) {
        return Ok(None);
    }
    let (cs_fast_variant, coop_variant) = variants(kernels, m, n);
    let variants = (&cs_fast_variant, &coop_variant);
    let Some((read, written, paper)) =
        traffic(method, (m, k, n), limits, runnable(m, k, n), kernels, variants)
    else {
        return Ok(None);
    };
    let (mu, ku, nu) = (Count::from(m), Count::from(k), Count::from(n));
    let exact = |c: Count| c.0.ok_or_else(|| super::past_u128(method, m, k, n));
    let flops = exact(mu * ku * nu * 2u32)?;
    let bytes = exact((read + written) * 4u32)?;
    let (read, written) = (exact(read)?, exact(written)?);
    let mut md = ComputeModel {
        method: method.name().to_string(),
        variant: match method {
            Method::CsFast => Some(Variant::CsFast(cs_fast_variant)),
            Method::Coop => Some(Variant::Coop(coop_variant)),
            _ => kernels.variant_for(method),
        }
        .map(|v| v.to_string()),
        m,
        k,
        n,
        flops,
        words_read: read,
        words_written: written,
        global_bytes: bytes,
        flop_per_byte: flops as f64 / bytes as f64,
        paper_ratio: paper,
        dispatches: None,
        workgroups: None,
        invocations_per_workgroup: None,
        workgroup_bytes: None,
        cannot_run: None,
    };
    match grid {
        Ok(g) => {
            md.dispatches = Some(g.dispatches());
            md.workgroups = Some(g.workgroups());
            md.invocations_per_workgroup = g.invocations_per_workgroup();
            md.workgroup_bytes = g.workgroup_bytes();
        }
        Err(e) => md.cannot_run = Some(e.to_string()),
    }
    Ok(Some(md))
}

/// The words a compute method reads and writes for m×k·k×n (`None`: not a compute method
/// this model counts), and the paper's ratio of flops to bytes beside them.
fn traffic(
    method: Method,
    (m, k, n): (usize, usize, usize),
    limits: &wgpu::Limits,
    runnable: bool,
    kernels: &Kernels,
    (cs_fast_variant, coop_variant): (&cs_fast::Variant, &coop::Variant),
) -> Option<(Count, Count, &'static str)> {
    let (mu, ku, nu) = (Count::from(m), Count::from(k), Count::from(n));
    let c = mu * nu;
    let tiled = |ti: usize, tj: usize| mu * ku * nu.div_ceil(tj) + ku * nu * mu.div_ceil(ti);
    // The sizes padded up to the tile (as `cs_fast::padded` and `coop::padded`, in u128).
    let up = |x: usize, t: usize| Count::from(x.max(1)).next_multiple_of(t);
    Some(match method {
        Method::CsNaive => (
            mu * nu * ku * 2u32,
            c,
            "≈ 1/4 (5kk73: 2n³ words for 2n³ flops; HIP blog: 2N flops / 8N bytes)",
        ),
        Method::CsTiled16 => (
            tiled(16, 16),
            c,
            "B/4 = 4 (5kk73, B = 16; HIP blog: N³/BLOCK_DIM traffic)",
        ),
        Method::CsTiled32 => (
            tiled(32, 32),
            c,
            "B/4 = 8 (5kk73, B = 32; HIP blog: N³/BLOCK_DIM traffic)",
        ),
        Method::Kk73Uncoalesced | Method::Kk73Coalesced | Method::Kk73BankFree => {
            (tiled(16, 16), c, "B/4 = 4 (5kk73, B = 16)")
        }
        Method::Kk73OuterProduct | Method::Kk73Unrolled | Method::Kk73Prefetch => (
            mu * ku * nu.div_ceil(64u32) + ku * nu * mu.div_ceil(16u32),
            c,
            "6.4 with a 16×64 C tile (5kk73: \"the same as the inner product\")",
        ),
        Method::Cannon => (mu * ku + ku * nu, c, "A and B read once (O'Neil §3.1)"),
        Method::CannonTiled => {
            let t = kernels.cannon_tile.map_or(8, |t| t as usize);
            (tiled(t, t), c, "T/4 = 2 (blocks of T = 8)")
        }
        Method::CsFast => {
            let v = cs_fast_variant;
            let (bm, bk, bn) = (v.bm() as usize, v.bk as usize, v.bn() as usize);
            let (mp, kp, np) = (up(m, bm), up(k, bk), up(n, bn));
            (
                mp * kp * (np / bn) + kp * np * (mp / bm),
                mp * np,
                "BM·BN/(2·(BM+BN)) for the variant's BM×BN tile: 16 at 64×64 (the default), 32 at 128×128 (padded sizes)",
            )
        }
        Method::Coop => {
            let v = coop_variant;
            let (mp, kp, np) = (up(m, v.bm()), up(k, v.bk()), up(n, v.bn()));
            // f16 operands: two to a 4-byte word.
            (
                (mp * kp * (np / v.bn()) + kp * np * (mp / v.bm())).div_ceil(2u32),
                mp * np,
                "BM·BN/(BM+BN) for the variant's BM×BN workgroup tile (f16 operands): 32 at 64×64, 85 at 128×256 (padded sizes)",
            )
        }
        Method::Dns
        | Method::DnsTiled
        | Method::DnsNBlocks
        | Method::Dns2nBlocks
        | Method::Dns4nBlocks => {
            return dns_traffic(method, (m, k, n), limits, runnable, kernels.dns_layout);
        }
        _ => return None,
    })
}

/// [`traffic`] of the DNS methods: A and B read per block, and the partial sums of k's blocks
/// written and read again; in the block `named` where a request names one.
fn dns_traffic(
    method: Method,
    (m, k, n): (usize, usize, usize),
    limits: &wgpu::Limits,
    runnable: bool,
    named: Option<crate::methods::dns::Layout>,
) -> Option<(Count, Count, &'static str)> {
    let (mu, ku, nu) = (Count::from(m), Count::from(k), Count::from(n));
    let c = mu * nu;
    let tiled = |ti: usize, tj: usize| mu * ku * nu.div_ceil(tj) + ku * nu * mu.div_ceil(ti);
    let dns = |bi: usize, bk: usize, bj: usize| {
        let q = ku.div_ceil(bk);
        let partial = if q.0.is_some_and(|q| q > 1) {
            q * c
        } else {
            Count::from(0u32)
        };
        (tiled(bi, bj) + partial, c + partial)
    };
    let (r, w, paper) = match method {
        Method::Dns => {
            let (r, w) = dns(m, k, n);
            (r, w, "A and B read once (O'Neil §3.1)")
        }
        Method::DnsTiled => {
            let l = dns_tiled::layout(m, k, n);
            let (r, w) = dns(l.bi, l.bk, l.bj);
            (
                r,
                w,
                "T/4 = 2 less the partial sums (tiles of T = 8, O'Neil §5)",
            )
        }
        Method::DnsNBlocks | Method::Dns2nBlocks | Method::Dns4nBlocks => {
            let split = match method {
                Method::DnsNBlocks => 1,
                Method::Dns2nBlocks => 2,
                _ => 4,
            };
            // Past what a device holds, the single plane block (bi = ⌈m/split⌉, bk = k) is
            // far over any workgroup limit, and the tiled layout the method falls back to
            // depends only on min(m, 32) and min(k, 32): sides clamped to 2²⁰ give it without
            // asking the layout's usize arithmetic about sides it was not written for.
            let l = if runnable {
                dns_blocks::layout(limits, split, m, k)
            } else {
                dns_blocks::layout(limits, split, m.min(1 << 20), k.min(1 << 20))
            };
            let (r, w) = dns(l.bi, l.bk, l.bj);
            (
                r,
                w,
                "B read once per plane block; A once per column of C (O'Neil §3.2)",
            )
        }
        _ => return None,
    };
    // A block the request named is the block that ran, whatever the method's own layout.
    let (r, w) = named.map_or((r, w), |l| dns(l.bi, l.bk, l.bj));
    Some((r, w, paper))
}

/// The compute-era table `rendermm model` prints: one row per model.
pub fn table(rows: &[ComputeModel]) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    if let Some(r) = rows.first() {
        let _ = writeln!(
            s,
            "compute era: global-memory traffic for A {}x{} · B {}x{} (f32 words; flop/byte = 2·m·k·n / bytes)",
            r.m, r.k, r.k, r.n
        );
    }
    let _ = writeln!(
        s,
        "{:<22} {:>14} {:>12} {:>16} {:>10} {:>10} {:>6}  seed says (n×n)",
        "method", "words read", "written", "bytes", "flop/byte", "workgroups", "inv"
    );
    for r in rows {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), |x| x.to_string());
        let _ = writeln!(
            s,
            "{:<22} {:>14} {:>12} {:>16} {:>10.3} {:>10} {:>6}  {}",
            r.method,
            r.words_read,
            r.words_written,
            r.global_bytes,
            r.flop_per_byte,
            opt(r.workgroups),
            opt(r.invocations_per_workgroup),
            r.paper_ratio
        );
    }
    for r in rows.iter().filter(|r| r.cannot_run.is_some()) {
        let _ = writeln!(
            s,
            "{}: cannot run this size: {}",
            r.method,
            r.cannot_run.as_deref().unwrap_or("")
        );
    }
    s
}
