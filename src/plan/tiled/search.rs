//! The search for a tile shape: the largest tiles the memory budget and the adapter's limits
//! allow, and what to say when none fits.

use super::{
    Family, Footprint, budget, even, family_footprint, fits, fits_sizes, max_loop_k,
    render_precision, runs_as, units,
};
use crate::error::Error;
use crate::gpu::GpuContext;
use crate::methods::Method;
use crate::plan::Options;
use crate::precision::Precision;

/// A tile shape: its sides, how many tiles cover C and k, and the bytes one tile needs.
pub(super) struct TileShape {
    pub(super) m: usize,
    pub(super) k: usize,
    pub(super) n: usize,
    pub(super) blocks_m: usize,
    pub(super) blocks_n: usize,
    pub(super) chunks_k: usize,
    pub(super) bytes: Footprint,
}

/// Why no tile shape was found.
pub(super) enum Searched {
    /// A limit that no tile avoids (a workgroup too large for the adapter).
    Limit(Error),
    /// Even the smallest tile is over the budget; the last one tried.
    NoTile(TileShape),
}

/// The largest tile of an m×k×n product that fits the adapter's limits and the memory budget:
/// start from the whole product (capped at the texture limit), halve the largest side —
/// preferring m and n over k, since a split k must be summed — until a tile fits.
pub(super) fn search(
    ctx: &GpuContext,
    fam: Family,
    method: Method,
    opts: &Options,
    (m, k, n): (usize, usize, usize),
) -> std::result::Result<TileShape, Searched> {
    let budget = budget(ctx, opts).map_err(Searched::Limit)?;
    let (um, uk, un) = units(ctx, fam, opts).map_err(Searched::Limit)?;
    let cap = ctx.limits.max_texture_dimension_2d as usize
        * if fam == (Family::Hall { packed: true }) {
            2
        } else {
            1
        };
    // A limit that not even a 1×1×1 tile is under (a workgroup too large for the adapter): no
    // tile helps, and the loop cap need not be measured.
    if let Err(e) = fits_sizes(ctx, fam, opts, 1, 1, 1) {
        return Err(Searched::Limit(e));
    }
    let mut caps = match fam {
        Family::Compute(_) => [m, k, n],
        _ => [m.min(cap), k.min(cap), n.min(cap)],
    };
    // k no deeper than the driver's loop cap lets the method's invocations run.
    caps[1] = caps[1]
        .min(max_loop_k(ctx, runs_as(fam, method), m, n, k).map_err(Searched::Limit)?)
        .max(1);
    loop {
        let (tm, bm) = even(m, caps[0], um);
        let (tk, ck) = even(k, caps[1], uk);
        let (tn, bn) = even(n, caps[2], un);
        let bytes = family_footprint(ctx, fam, opts, tm, tk, tn, ck);
        let fit = fits(ctx, fam, method, opts, tm, tk, tn);
        let shape = TileShape {
            m: tm,
            k: tk,
            n: tn,
            blocks_m: bm,
            blocks_n: bn,
            chunks_k: ck,
            bytes,
        };
        if fit.is_ok() && shape.bytes.total() <= budget.bytes {
            return Ok(shape);
        }
        // Where splitting k would change the passes a u8 or f16 check models, k goes last.
        let k_last = !matches!(
            fam,
            Family::Lm | Family::Compute(_) | Family::Generic { .. }
        ) && render_precision(ctx, fam, opts) != Precision::F32
            && caps[0].max(caps[2]) > 1;
        let i = if caps[1] > caps[0].max(caps[2]) && !k_last {
            1
        } else if caps[0] >= caps[2] {
            0
        } else {
            2
        };
        if caps[i] <= 1 {
            return Err(match fit {
                Err(e) => Searched::Limit(e),
                Ok(()) => Searched::NoTile(shape),
            });
        }
        caps[i] = caps[i].div_ceil(2);
    }
}

/// `e` with a remark: a limit error stays an [`Error::Limit`] (its `what` says `why`), any other
/// error gets `why` appended.
pub(super) fn annotate(e: Error, why: &str) -> Error {
    match e {
        Error::Limit {
            what,
            value,
            limit,
            max,
        } => Error::Limit {
            what: format!("{what} ({why})"),
            value,
            limit,
            max,
        },
        Error::Invalid(s) => Error::Invalid(format!("{s} ({why})")),
        e => e,
    }
}
