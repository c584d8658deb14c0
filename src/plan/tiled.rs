//! Past one texture: multiplies larger than the adapter's textures or buffers, or than a memory
//! budget, computed block by block.
//!
//! Every method keeps its matrices whole on the GPU: `lm` and the Hall methods in textures no
//! wider or higher than `max_texture_dimension_2d` (16384 on lavapipe, 32768 on the H100), the
//! compute methods in storage buffers no larger than `max_storage_buffer_binding_size` (128 MiB
//! on lavapipe). [`plan`] first *estimates the bytes* a method would allocate for the whole
//! product ([`footprint`]: Hall's four matrices A, B, F and the result, plus the readback copy;
//! L-M's A, B and framebuffer; a compute method's buffers and scratch) and checks the sides and
//! buffer sizes against the adapter's limits, all before anything is allocated. If the product
//! fits both the limits and the memory budget ([`budget`]: `--mem-budget`, else
//! `RENDERMM_MEM_BUDGET`, else a share of what the adapter allows) it runs as it always did.
//! Otherwise it is *tiled*:
//!
//! ```text
//! for each block (I, J) of C            -- blocks_m × blocks_n blocks of at most tile_m × tile_n
//!     for each chunk P of k              -- chunks_k chunks of at most tile_k
//!         C[I][J] += A[I][P] · B[P][J]   -- a full multiply of texture-sized tiles
//!     read C[I][J] back into its place in C
//! ```
//!
//! The tiles are the largest whose sides and bytes fit (each side halved in turn, the largest
//! first, then evened out so the blocks are of nearly equal size). `A[I][P]` is a row panel of A,
//! `B[P][J]` a column panel of B; tiles are uploaded, multiplied and dropped one after the other,
//! and only the block of C being summed stays on the GPU. The k chunks of a block are summed on
//! the GPU where the method allows, by the method itself: the tiler asks the method that runs
//! the tiles for its way of multiplying a block chunk by chunk ([`Method::chunks`]):
//!
//! - `lm`: every chunk's slices blend into the block's one framebuffer (`LoadOp::Load` after the
//!   first chunk), so the blend unit adds the products in the order of one untiled run and the
//!   result is bit for bit the untiled one;
//! - `hall-blocked`, `hall-packed`: each chunk's passes start from the running sum the previous
//!   chunk left (`Engine::record` in `src/methods/hall_common.rs`); `hall-blocked`'s chunks
//!   are whole blocks of b, so its passes, and its results, are exactly the untiled run's.
//!   `hall-packed` packs each chunk on its own, which pairs k's columns differently: its f32
//!   results agree to rounding, and in u8 and f16 (whose checks model the untiled passes) it
//!   refuses to split k;
//! - the compute methods: each chunk's C lands in a buffer that `shaders/tile_accumulate.wgsl`
//!   adds into the block's accumulator;
//! - any other GPU method (`frag-mrt` and methods added later) runs whole on each tile, and its k
//!   chunks are added **on the host in f64** (then rounded once to f32), which is at least as
//!   accurate as summing in f32 on the GPU.
//!
//! A split of m or n alone changes nothing in any element's sum, so a tiled result equals the
//! untiled one bit for bit when k is not split (`tests/tiled.rs`) — for every method but
//! `frag-mrt`, whose quad sharing orders each pair of k steps by its tile's parity, so a block
//! that starts on an odd tile rounds a few sums differently.
//!
//! **Loop caps.** Some drivers end every loop of a shader invocation after a fixed number of
//! iterations, silently (Mesa's lavapipe and llvmpipe: 65 535 for all the loops of an invocation
//! together), which would leave a long k loop's sum short. The context measures the cap
//! ([`crate::gpu::loop_cap`]), each method's row says how many iterations its invocations run
//! at a given k ([`crate::methods::Loops`]), and a product whose k would take any invocation
//! past the cap less a sixteenth ([`LOOP_MARGIN`]) is a limit like a texture side: k is split
//! into chunks that stay under it, summed as above ([`loop_fits`], [`max_loop_k`]). A driver
//! that shows no cap is held to the iterations the probe saw run. The chunks' sums group k's
//! products differently from one long loop; in f32 that is within the judge's bound (the
//! chunked sum is, if anything, the more accurate), and every answer is still exact for inputs
//! whose sums are exact (`tests/long_k.rs`).
//!
//! The report's notes and its `tiling` field ([`Tiling`]) say why and how the product was tiled.
//! With `--no-tile`, or when not even a 1×1×1 tile fits, the run is refused before the driver is
//! asked for anything: over the budget with an [`Error::Budget`] naming the bytes and the
//! budget, past a limit with the [`Error::Limit`] naming it (a workgroup too large for the
//! adapter is such a limit: no tile avoids it). An observer (the demos) cannot
//! watch a tiled run: it sees one texture's passes.

use super::Options;
use crate::clock::Instant;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::buffer::{self, check_storage_size};
use crate::gpu::loop_cap::StageLoops;
use crate::gpu::run::ms;
use crate::gpu::texture::padded_bytes_per_row;
use crate::matrix::Matrix;
use crate::methods::{Accumulate, Loops, Method, RanKernel, RunOutput, Timings, hall_blocked};
use crate::precision::{self, Precision};
use serde::Serialize;

mod blocks;
mod budget;
mod loops;
use blocks::{generic_block, place, sub};
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use budget::{budget, default_budget, human_bytes, mem_available, parse_bytes};
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use loops::{LOOP_MARGIN, loop_fits, max_loop_k};
use loops::{loop_budget, runs_as};
mod search;
use search::{Searched, TileShape, annotate, search};

/// The knob the command line reads for the memory budget when `--mem-budget` is not given
/// (into [`Options::mem_budget`], named by [`Options::mem_budget_source`]).
pub const BUDGET_ENV: &str = "RENDERMM_MEM_BUDGET";

/// Most tile multiplies a plan may take; a budget that small is refused as a likely typo.
pub const MAX_TILES: usize = 100_000;

/// A memory budget and where it came from.
#[derive(Clone, Debug, Serialize)]
pub struct Budget {
    pub bytes: u64,
    pub source: String,
}

/// How a product was tiled (the report's `tiling` field).
#[derive(Clone, Debug, Serialize)]
pub struct Tiling {
    /// The method each tile ran (a single-workgroup `cannon` or `dns` runs its tiled version).
    pub ran_as: String,
    /// Why the product could not run whole.
    pub reasons: Vec<String>,
    /// The largest tile: A tiles are tile_m × tile_k, B tiles tile_k × tile_n.
    pub tile_m: usize,
    pub tile_k: usize,
    pub tile_n: usize,
    /// Blocks of C down and across, and chunks of k per block.
    pub blocks_m: usize,
    pub blocks_n: usize,
    pub chunks_k: usize,
    /// blocks_m · blocks_n · chunks_k.
    pub tile_multiplies: usize,
    /// How the k chunks of a block are summed: `none` (k not split), `gpu-blend` (lm),
    /// `gpu-passes` (Hall), `gpu-add` (compute methods), `host-f64` (other methods).
    pub accumulate: &'static str,
    /// Estimated device bytes of the largest tile's multiply, and of the untiled product.
    pub tile_bytes: u64,
    pub untiled_bytes: u64,
    pub budget_bytes: u64,
    pub budget_source: String,
    /// The iterations the driver lets the loops of one shader invocation run (measured), when
    /// that is why k was split; `None` when it was not.
    pub loop_cap: Option<u32>,
    #[serde(skip)]
    family: Family,
}

/// What a method keeps on the GPU, for the limits and the byte estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Lm,
    Hall {
        packed: bool,
    },
    /// A compute method (the method that runs, after any fallback).
    Compute(Method),
    /// Any other GPU method: f32 A, B and C in textures, and in storage buffers when `storage`
    /// (a compute method whose plan pads its own buffers).
    Generic {
        storage: bool,
    },
}

impl Default for Family {
    fn default() -> Self {
        Family::Generic { storage: false }
    }
}

/// Device bytes of one multiply, part by part.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Footprint {
    pub parts: Vec<(String, u64)>,
}

impl Footprint {
    fn add(&mut self, what: impl Into<String>, bytes: u64) {
        self.parts.push((what.into(), bytes));
    }

    /// All the parts together.
    pub fn total(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    /// `A 64 MiB + B 64 MiB + …`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|(w, b)| format!("{w} {}", human_bytes(*b)))
            .collect();
        parts.join(" + ")
    }
}

/// The family of `method` for an m×k·k×n product: a single-workgroup `cannon` or `dns` that
/// cannot take the product becomes its tiled version, as [`super::multiply`] does; a
/// compute plan that pads its buffers itself (a trusted plan) is treated as a generic method.
fn family(ctx: &GpuContext, method: Method, m: usize, k: usize, n: usize) -> Family {
    match method {
        Method::Lm => return Family::Lm,
        Method::HallBlocked => return Family::Hall { packed: false },
        Method::HallPacked => return Family::Hall { packed: true },
        _ => {}
    }
    if !method.is_compute() {
        return Family::Generic { storage: false };
    }
    let eff = super::compute_runs_as(method, &ctx.limits, m, k, n);
    match super::compute_plan(eff, &ctx.limits, m.min(64), k.min(64), n.min(64)) {
        Some(Ok(p)) if p.trusted.is_none() => Family::Compute(eff),
        _ => Family::Generic { storage: true },
    }
}

/// The precision the render-pass families will run in (f16 where f32 cannot be blended).
fn render_precision(ctx: &GpuContext, fam: Family, opts: &Options) -> Precision {
    let blends = match fam {
        Family::Lm => true,
        Family::Hall { .. } => opts.accumulate == Accumulate::Blend,
        _ => false,
    };
    let channels = if matches!(fam, Family::Hall { packed: true }) {
        4
    } else {
        1
    };
    if opts.precision == Precision::F32
        && blends
        && !ctx.can_render(Precision::F32.format(channels), true)
    {
        Precision::F16
    } else {
        opts.precision
    }
}

/// The device bytes `method` allocates for an m×k·k×n product (estimated from what it creates:
/// its textures or buffers and the staging buffer the result is read back through).
#[cfg(feature = "internals")]
pub fn footprint(
    ctx: &GpuContext,
    method: Method,
    opts: &Options,
    m: usize,
    k: usize,
    n: usize,
) -> Footprint {
    family_footprint(ctx, family(ctx, method, m, k, n), opts, m, k, n, 1)
}

/// [`footprint`] of one tile multiply of a family, with what a split k adds (`chunks` > 1): the
/// running sum the previous chunk left (Hall), or the block's accumulator (compute).
fn family_footprint(
    ctx: &GpuContext,
    fam: Family,
    opts: &Options,
    m: usize,
    k: usize,
    n: usize,
    chunks: usize,
) -> Footprint {
    let (m64, k64, n64) = (m as u64, k as u64, n as u64);
    let mut f = Footprint::default();
    match fam {
        Family::Lm | Family::Hall { .. } => {
            let packed = fam == Family::Hall { packed: true };
            let p = render_precision(ctx, fam, opts);
            let (ch, (mm, kk, nn)) = if packed {
                (4, (m.div_ceil(2), k.div_ceil(2), n.div_ceil(2)))
            } else {
                (1, (m, k, n))
            };
            let bpt = (p.bytes_per_channel() * ch) as u64;
            let (mm, kk, nn) = (mm as u64, kk as u64, nn as u64);
            let c = mm * nn * bpt;
            f.add("A", mm * kk * bpt);
            f.add("B", kk * nn * bpt);
            match fam {
                Family::Lm => f.add("C (framebuffer)", c),
                _ if opts.accumulate == Accumulate::Blend => f.add("C (framebuffer)", c),
                _ => {
                    f.add("C", c);
                    f.add(
                        if opts.accumulate == Accumulate::Copy {
                            "F"
                        } else {
                            "F (ping-pong)"
                        },
                        c,
                    );
                }
            }
            if chunks > 1 && fam != Family::Lm {
                f.add("previous chunk's sum", c);
            }
            f.add(
                "readback",
                padded_bytes_per_row(nn as usize, bpt as u32) as u64 * mm,
            );
        }
        Family::Compute(eff) => {
            f.add("A", buffer::matrix_bytes(m, k));
            f.add("B", buffer::matrix_bytes(k, n));
            f.add("C", buffer::matrix_bytes(m, n));
            if let Some(Ok(p)) = super::compute_plan(eff, &ctx.limits, m, k, n)
                && p.scratch_words > 0
            {
                f.add("scratch", p.scratch_words * 4);
            }
            if chunks > 1 {
                f.add("accumulator", buffer::matrix_bytes(m, n));
            }
            f.add("readback", m64 * n64 * 4);
        }
        Family::Generic { .. } => {
            f.add("A", m64 * k64 * 4);
            f.add("B", k64 * n64 * 4);
            f.add("C", m64 * n64 * 4);
            f.add("readback", m64 * n64 * 4);
        }
    }
    f
}

/// `Ok` if a family's m×k·k×n multiply is within the adapter's limits (texture sides, buffer
/// sizes, the compute plan's checks, the driver's loop cap for `method`'s shaders), else the
/// limit it exceeds.
fn fits(
    ctx: &GpuContext,
    fam: Family,
    method: Method,
    opts: &Options,
    m: usize,
    k: usize,
    n: usize,
) -> Result<()> {
    fits_sizes(ctx, fam, opts, m, k, n)?;
    loop_fits(ctx, runs_as(fam, method), m, k, n)
}

/// [`fits`] without the loop cap: texture sides, buffer sizes, the compute plan's checks.
fn fits_sizes(
    ctx: &GpuContext,
    fam: Family,
    opts: &Options,
    m: usize,
    k: usize,
    n: usize,
) -> Result<()> {
    let l = &ctx.limits;
    let side = |what: &str, v: usize| ctx.check_texture_dim(what, v);
    let readback = |rows: usize, cols: usize, bpt: u32| {
        let bytes = padded_bytes_per_row(cols, bpt) as u64 * rows as u64;
        if bytes > l.max_buffer_size {
            return Err(Error::Limit {
                what: format!("the readback buffer of a {rows}x{cols} result (bytes)"),
                value: bytes,
                limit: "max_buffer_size",
                max: l.max_buffer_size,
            });
        }
        Ok(())
    };
    match fam {
        Family::Lm | Family::Hall { packed: false } => {
            side("m (C and A height)", m)?;
            side("k (A width, B height)", k)?;
            side("n (C and B width)", n)?;
            let bpt = render_precision(ctx, fam, opts).bytes_per_channel() as u32;
            readback(m, n, bpt)
        }
        Family::Hall { packed: true } => {
            side("⌈m/2⌉ (packed C and A height)", m.div_ceil(2))?;
            side("⌈k/2⌉ (packed A width, B height)", k.div_ceil(2))?;
            side("⌈n/2⌉ (packed C and B width)", n.div_ceil(2))?;
            let bpt = 4 * render_precision(ctx, fam, opts).bytes_per_channel() as u32;
            readback(m.div_ceil(2), n.div_ceil(2), bpt)
        }
        Family::Compute(eff) => {
            let plan = super::compute_plan(eff, l, m, k, n).unwrap_or_else(|| {
                Err(Error::Internal(format!("{eff} is not a compute method")))
            })?;
            plan.check(l)?;
            for (what, bytes) in [
                (
                    format!("A, a {m}x{k} f32 storage buffer"),
                    buffer::matrix_bytes(m, k),
                ),
                (
                    format!("B, a {k}x{n} f32 storage buffer"),
                    buffer::matrix_bytes(k, n),
                ),
                (
                    format!("C, a {m}x{n} f32 storage buffer"),
                    buffer::matrix_bytes(m, n),
                ),
            ] {
                check_storage_size(l, &format!("{}: {what}", plan.method), bytes)?;
            }
            Ok(())
        }
        Family::Generic { storage } => {
            // A texture's sides must do, and a storage buffer's size where the method keeps its
            // matrices in storage buffers (a fragment method does not: WebGL2 has none).
            side("m", m)?;
            side("k", k)?;
            side("n", n)?;
            if storage {
                for (what, bytes) in [
                    (format!("A, {m}x{k} f32"), buffer::matrix_bytes(m, k)),
                    (format!("B, {k}x{n} f32"), buffer::matrix_bytes(k, n)),
                    (format!("C, {m}x{n} f32"), buffer::matrix_bytes(m, n)),
                ] {
                    check_storage_size(l, &what, bytes)?;
                }
            }
            readback(m, n, 4)
        }
    }
}

/// Tile sides must be multiples of these (m, k, n): Hall's k chunks are whole blocks of b (2b
/// packed), packed sides even.
fn units(ctx: &GpuContext, fam: Family, opts: &Options) -> Result<(usize, usize, usize)> {
    Ok(match fam {
        Family::Hall { packed } => {
            let b = hall_blocked::block_size(ctx, opts.block)? as usize;
            if packed { (2, 2 * b, 2) } else { (1, b, 1) }
        }
        _ => (1, 1, 1),
    })
}

/// Cut `total` into the fewest pieces of at most `max` (a multiple of `unit` where `max` allows
/// one), as equal as they can be: (piece size, pieces).
fn even(total: usize, max: usize, unit: usize) -> (usize, usize) {
    let unit = if max >= unit { unit.max(1) } else { 1 };
    let max = (max / unit * unit).max(1);
    let count = total.div_ceil(max).max(1);
    let size = total.div_ceil(count).div_ceil(unit) * unit;
    (size.min(total), count)
}

/// `(start, len)` of each piece of `total` cut into pieces of `size`.
fn pieces(total: usize, size: usize) -> Vec<(usize, usize)> {
    (0..total)
        .step_by(size.max(1))
        .map(|s| (s, size.min(total - s)))
        .collect()
}

/// Decide whether `method` can multiply m×k·k×n whole within the adapter's limits and the
/// memory budget: `Ok(None)` if it can, `Ok(Some(tiling))` with the tiles to use if it cannot,
/// an error if it may not be tiled (`--no-tile`, an observer) or cannot be (not even small tiles
/// fit, or a precision whose check models the untiled passes). CPU methods are never tiled.
/// `observed`: an observer will watch the passes (the demos), which a tiled run cannot show.
pub fn plan(
    ctx: &GpuContext,
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    opts: &Options,
    observed: bool,
) -> Result<Option<Tiling>> {
    if !method.is_gpu() {
        return Ok(None);
    }
    let fam = family(ctx, method, m, k, n);
    let budget = budget(ctx, opts)?;
    let full = family_footprint(ctx, fam, opts, m, k, n, 1);
    // The driver's loop cap is measured (a small GPU run, once per context) only where the
    // sizes fit: a product over a limit is refused before anything touches the device.
    let limit = fits(ctx, fam, method, opts, m, k, n);
    let over = full.total() > budget.bytes;
    if limit.is_ok() && !over {
        return Ok(None);
    }
    let what = format!("{method} on {m}x{k}x{n}");
    let budget_error = |needed: &Footprint, hint: String| Error::Budget {
        what: what.clone(),
        needed: needed.total(),
        detail: needed.describe(),
        budget: budget.bytes,
        budget_source: budget.source.clone(),
        hint,
    };
    if opts.no_tile {
        return Err(match limit {
            Err(e) => annotate(e, "tiling is off: --no-tile"),
            Ok(()) => budget_error(
                &full,
                "; tiling is off (--no-tile): drop it to multiply block by block, or raise --mem-budget".into(),
            ),
        });
    }
    let reasons = reasons(&limit, over, &full, &budget);
    if observed {
        return Err(Error::Invalid(format!(
            "{what} must be tiled ({}), and a tiled run has no single texture for an observer (the demos) to watch",
            reasons.join("; ")
        )));
    }
    let tile = search(ctx, fam, method, opts, (m, k, n)).map_err(|e| match e {
        Searched::Limit(e) => annotate(e, "tiling cannot help: even a 1x1x1 tile exceeds it"),
        Searched::NoTile(tile) => budget_error(
            &full,
            format!(
                "; no tile fits either: a {}x{}x{} tile alone needs {} ({})",
                tile.m,
                tile.k,
                tile.n,
                human_bytes(tile.bytes.total()),
                tile.bytes.describe()
            ),
        ),
    })?;
    let tiles = tile.blocks_m * tile.blocks_n * tile.chunks_k;
    if tiles > MAX_TILES {
        return Err(budget_error(
            &full,
            format!(
                "; tiling would take {tiles} tile multiplies of {}x{}x{} (more than {MAX_TILES}): raise --mem-budget",
                tile.m, tile.k, tile.n
            ),
        ));
    }
    check_exact_passes(ctx, fam, opts, method, &tile, &what, &reasons)?;
    let accumulate = accumulate_name(tile.chunks_k, fam);
    let ran_as = runs_as(fam, method).name().to_string();
    let loop_cap = loop_cap(ctx, fam, method, (m, k, n))?;
    Ok(Some(Tiling {
        ran_as,
        reasons,
        tile_m: tile.m,
        tile_k: tile.k,
        tile_n: tile.n,
        blocks_m: tile.blocks_m,
        blocks_n: tile.blocks_n,
        chunks_k: tile.chunks_k,
        tile_multiplies: tiles,
        accumulate,
        tile_bytes: tile.bytes.total(),
        untiled_bytes: full.total(),
        budget_bytes: budget.bytes,
        budget_source: budget.source.clone(),
        loop_cap,
        family: fam,
    }))
}

/// Why the product must be tiled: the limit it exceeds, and the budget it is over.
fn reasons(limit: &Result<()>, over: bool, full: &Footprint, budget: &Budget) -> Vec<String> {
    let mut reasons = vec![];
    if let Err(e) = limit {
        reasons.push(e.to_string());
    }
    if over {
        reasons.push(format!(
            "the whole product needs {} ({}), over the memory budget of {} ({})",
            human_bytes(full.total()),
            full.describe(),
            human_bytes(budget.bytes),
            budget.source
        ));
    }
    reasons
}

/// Refuse a split of k that changes how the method groups k's products into passes where the
/// precision's check models the untiled passes (all but f32).
fn check_exact_passes(
    ctx: &GpuContext,
    fam: Family,
    opts: &Options,
    method: Method,
    tile: &TileShape,
    what: &str,
    reasons: &[String],
) -> Result<()> {
    let (_, uk, _) = units(ctx, fam, opts)?;
    let exact_passes = match fam {
        Family::Hall { packed } => tile.chunks_k == 1 || (!packed && tile.k.is_multiple_of(uk)),
        _ => true,
    };
    let used = render_precision(ctx, fam, opts);
    if !exact_passes && used != Precision::F32 {
        return Err(Error::Invalid(format!(
            "{what} must be tiled ({}) with k split into {} chunks, which changes how {method} groups k's products into passes; its {used} check models the untiled passes, so {used} refuses to split k: run it in f32, or give a budget in which a tile holds the whole of k",
            reasons.join("; "),
            tile.chunks_k
        )));
    }
    Ok(())
}

/// How the chunks of k are summed: not at all (one chunk), or as the family does it.
fn accumulate_name(chunks_k: usize, fam: Family) -> &'static str {
    match (chunks_k, fam) {
        (1, _) => "none",
        (_, Family::Lm) => "gpu-blend",
        (_, Family::Hall { .. }) => "gpu-passes",
        (_, Family::Compute(_)) => "gpu-add",
        (_, Family::Generic { .. }) => "host-f64",
    }
}

/// The driver's loop cap, where it is what split k: the whole of k would take an invocation
/// past it.
fn loop_cap(
    ctx: &GpuContext,
    fam: Family,
    method: Method,
    (m, k, n): (usize, usize, usize),
) -> Result<Option<u32>> {
    Ok(match loop_fits(ctx, runs_as(fam, method), m, k, n) {
        Err(Error::Limit { .. }) => loop_budget(ctx, runs_as(fam, method), (m, k, n))?
            .map(|(_, measured, _)| measured.iterations()),
        _ => None,
    })
}

/// What a tiled run refuses up front: non-default u8 widths, and u8 inputs outside [0, 1]
/// (checked on the whole matrices, so a bad element is named by its place in A or B).
fn check_tiled_inputs(method: Method, a: &Matrix, b: &Matrix, opts: &Options) -> Result<()> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if !opts.u8_bits.is_default() {
        let bits = opts.u8_bits;
        return Err(Error::Unsupported {
            option: format!(
                "--u8-product-bits {} --u8-sum-bits {}",
                bits.product, bits.sum
            ),
            method: method.name(),
            why: format!(
                "a product tiled past the adapter's limits or the memory budget ({m}x{k}x{n} here) runs only at the default u8 widths (8 and 8); give a larger --mem-budget or smaller inputs"
            ),
        });
    }
    if opts.precision == Precision::U8 {
        // Whole matrices, so a bad element is named by its place in A or B, not in a tile.
        precision::check_unit_range(a, "A")?;
        precision::check_unit_range(b, "B")?;
    }
    Ok(())
}

/// The notes of a tiled run: how C and k were split and why, how the chunks of k are summed,
/// and what ran on the tiles.
fn tiling_notes(
    method: Method,
    tiling: &Tiling,
    (m, k, n): (usize, usize, usize),
    blocks: usize,
) -> Vec<String> {
    let mut notes = vec![format!(
        "tiled ({}): C {m}x{n} in {}x{} blocks of at most {}x{}, k = {k} in {} chunk(s) of at most {}: {} tile multiplies of at most {}x{}x{}, each estimated at {} of the {} budget ({})",
        tiling.reasons.join("; "),
        tiling.blocks_m,
        tiling.blocks_n,
        tiling.tile_m,
        tiling.tile_n,
        tiling.chunks_k,
        tiling.tile_k,
        tiling.tile_multiplies,
        tiling.tile_m,
        tiling.tile_k,
        tiling.tile_n,
        human_bytes(tiling.tile_bytes),
        human_bytes(tiling.budget_bytes),
        tiling.budget_source
    )];
    notes.push(match tiling.accumulate {
        "none" => "tiled: k is not split, so every element of C is summed exactly as in one untiled run".to_string(),
        "gpu-blend" => "tiled: the k chunks of a block blend into the block's one framebuffer on the GPU, in the order of an untiled run".to_string(),
        "gpu-passes" => "tiled: each k chunk's passes start from the running sum the previous chunk left on the GPU".to_string(),
        "gpu-add" => "tiled: each k chunk's product is added into the block's accumulator on the GPU (shaders/tile_accumulate.wgsl)".to_string(),
        _ => format!("tiled: {method} runs whole on each tile; the k chunks of a block are summed on the host in f64 and rounded once to f32"),
    });
    if let Some(cap) = tiling.loop_cap {
        notes.push(format!(
            "tiled: k = {k} split into {} chunk(s) of at most {} because this driver stops a shader invocation's loops after {cap} iterations (measured by shaders/loop_cap.wgsl; see rendermm info): no invocation of {} runs past it",
            tiling.chunks_k, tiling.tile_k, tiling.ran_as
        ));
    }
    if tiling.ran_as != method.name() {
        notes.push(format!(
            "single-workgroup {method} cannot take {m}x{k}x{n}; the tiles ran {}",
            tiling.ran_as
        ));
    }
    notes.push(format!(
        "passes: those of one block of C (all {blocks} blocks ran as many)"
    ));
    notes
}

/// Multiply `a · b` with `method` tile by tile as `tiling` ([`plan`]) says, telling `progress`
/// as the blocks of C finish. `passes` of the output is one block's (what an untiled run would
/// report), the timings are all the tiles' summed. Asynchronous, as the runner is: the browser
/// awaits it, native hosts block on it.
pub async fn multiply_tiled(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &Options,
    tiling: &Tiling,
    mut progress: Option<super::Progress<'_>>,
) -> Result<RunOutput> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    check_tiled_inputs(method, a, b, opts)?;
    let rows = pieces(m, tiling.tile_m);
    let cols = pieces(n, tiling.tile_n);
    let chunks = pieces(k, tiling.tile_k);
    let blocks = rows.len() * cols.len();
    // The method that runs the tiles, asked for its way of summing a block's chunks of k on
    // the GPU; without one, each tile runs whole and the chunks are summed on the host.
    let runs = runs_as(tiling.family, method);
    let chunked = runs.chunks(&ctx.limits);
    let params = opts.params(false);
    let mut c = Matrix::zeros(m, n);
    let mut t = Timings::default();
    let mut device = Some(0.0);
    let mut first: Option<(usize, Vec<String>)> = None;
    let mut kernel: Option<RanKernel> = None;
    let mut done = 0usize;
    for &(r0, rl) in &rows {
        for &(c0, cl) in &cols {
            let xs: Vec<Matrix> = chunks
                .iter()
                .map(|&(p0, pl)| sub(a, r0, rl, p0, pl))
                .collect();
            let ys: Vec<Matrix> = chunks
                .iter()
                .map(|&(p0, pl)| sub(b, p0, pl, c0, cl))
                .collect();
            let out = match chunked {
                Some(block) => block(ctx, runs, &xs, &ys, k, &params).await?,
                None => generic_block(ctx, method, &xs, &ys, opts).await?,
            };
            place(&mut c, &out.c, r0, c0);
            t.upload_ms += out.timings.upload_ms;
            t.compute_ms += out.timings.compute_ms;
            t.copy_ms += out.timings.copy_ms;
            t.readback_ms += out.timings.readback_ms;
            device = device.zip(out.timings.device_ms).map(|(d, x)| d + x);
            first.get_or_insert((out.passes, out.notes));
            kernel.get_or_insert(out.kernel);
            done += 1;
            if let Some(tell) = progress.as_mut() {
                tell(done, blocks);
            }
        }
    }
    t.device_ms = device;
    let (passes, block_notes) = first.unwrap_or_default();
    let mut kernel = kernel.ok_or_else(|| {
        Error::Internal(format!("{method}: a tiled product of no blocks ({m}x{k}x{n})"))
    })?;
    let mut notes = tiling_notes(method, tiling, (m, k, n), blocks);
    notes.extend(block_notes.into_iter().map(|s| format!("first block: {s}")));
    // The tiles' kernel, under the method the tiles ran; each block ran a plan of its own, so
    // no one plan of the product's.
    kernel.method = runs;
    kernel.grid = None;
    Ok(RunOutput {
        c,
        passes,
        timings: t,
        notes,
        kernel,
    })
}

#[cfg(test)]
mod tests;
