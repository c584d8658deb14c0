//! The driver's loop cap in the plan: how much of k one invocation of a method's shaders may
//! walk before a driver that caps loops ([`crate::gpu::loop_cap`]) would cut it short.

use super::*;

/// The share of a measured loop cap kept in reserve (one part in this many): the probe counts a
/// plain loop's iterations, and a driver may spend a few of an invocation's on loops of its own
/// or count them its own way.
pub const LOOP_MARGIN: u64 = 16;

/// The method whose shaders run for `method` in family `fam` (a single-workgroup `cannon` or
/// `dns` runs its tiled version).
pub(super) fn runs_as(fam: Family, method: Method) -> Method {
    match fam {
        Family::Compute(eff) => eff,
        _ => method,
    }
}

/// What the driver lets one invocation of `method`'s shaders run on an m×k·k×n product: the
/// measured loop cap of the method's stage (measured as far as the whole of k needs) and the
/// iterations the plan allows (the cap less [`LOOP_MARGIN`]); `None` for a method without shader
/// loops (the CPU methods), whose stage the adapter lacks, or on a lost device.
pub(super) fn loop_budget(
    ctx: &GpuContext,
    method: Method,
    (m, k, n): (usize, usize, usize),
) -> Result<Option<(Loops, StageLoops, u64)>> {
    let Some(loops) = method.loops() else {
        return Ok(None);
    };
    let need = (loops.iterations)(&ctx.limits, m, k, n);
    let measured = match ctx.stage_loops(loops.stage, need) {
        Ok(Some(measured)) => measured,
        // No compute shaders here: a compute method fails on its own, naming what is missing.
        Ok(None) => return Ok(None),
        // The device is gone: the method's own checks refuse the product or its first GPU call
        // reports the loss, and no product can come back to be cut short.
        Err(Error::DeviceLost(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let cap = measured.iterations() as u64;
    Ok(Some((loops, measured, cap - cap / LOOP_MARGIN)))
}

/// `Ok` if no shader invocation of `method` on an m×k·k×n product runs more loop iterations
/// than the driver allows (the cap less its margin), else an [`Error::Limit`] naming the cap.
pub fn loop_fits(ctx: &GpuContext, method: Method, m: usize, k: usize, n: usize) -> Result<()> {
    let Some((loops, measured, budget)) = loop_budget(ctx, method, (m, k, n))? else {
        return Ok(());
    };
    let need = (loops.iterations)(&ctx.limits, m, k, n);
    if need <= budget {
        return Ok(());
    }
    let counted = if measured.shared() {
        "the loops of an invocation after"
    } else {
        "any loop after"
    };
    Err(Error::Limit {
        what: format!(
            "{method}'s {} shader loop iterations per invocation at k = {k} (this driver stops {counted} {} iterations, measured by shaders/loop_cap.wgsl)",
            loops.stage.name(),
            measured.iterations()
        ),
        value: need,
        limit: "shader loop cap less a 1/16 margin",
        max: budget,
    })
}

/// The largest k' ≤ `k` at which no invocation of `method` on an m×k'·k'×n product runs past
/// the driver's loop cap (`k` itself where the method has no loops that grow with k); 1 when
/// not even k' = 1 is under it (then [`loop_fits`] names the limit).
pub fn max_loop_k(ctx: &GpuContext, method: Method, m: usize, n: usize, k: usize) -> Result<usize> {
    let Some((loops, _, budget)) = loop_budget(ctx, method, (m, k, n))? else {
        return Ok(k);
    };
    let fits = |k: usize| (loops.iterations)(&ctx.limits, m, k, n) <= budget;
    if fits(k) {
        return Ok(k);
    }
    // The iterations grow with k: the largest k' that fits, by bisection.
    let (mut lo, mut hi) = (1, k);
    if !fits(lo) {
        return Ok(1);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}
