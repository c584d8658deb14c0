//! The entry point's body for a request on resident operands (native only: the page reads every
//! product back, and its download carries no code it does not run).

use super::{METHODS, OnDevice, Resident, refuse};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::run::{Phase, Work, run_async};
use crate::gpu::texture::{MatrixTexture, TARGET_USAGE};
use crate::matrix::Matrix;
use crate::methods::larsen_mcallister::Pipeline;
use crate::methods::resident::{HallProduct, record_clamp};
use crate::methods::{Method, RanKernel, hall_blocked};
use crate::plan::{Options, Outcome, arith};
use crate::precision::Precision;

/// The entry point's body for a request on resident operands: checked, recorded, run through
/// the runner (nothing read back), the product kept as a resident matrix; then the clamp, where
/// asked, run and timed apart.
pub(in crate::plan) async fn multiply(
    ctx: &GpuContext,
    method: Method,
    req: OnDevice<'_>,
    opts: &Options,
) -> Result<Outcome> {
    let OnDevice { x, y, clamp_to_one } = req;
    if !METHODS.contains(&method) {
        return Err(refuse(method));
    }
    for (name, r) in [("left", x), ("right", y)] {
        if r.method != method {
            return Err(Error::Invalid(format!(
                "the {name} operand is laid out for {}, not {method}",
                r.method
            )));
        }
    }
    if x.cols != y.rows {
        return Err(Error::ShapeMismatch {
            a_rows: x.rows,
            a_cols: x.cols,
            b_rows: y.rows,
            b_cols: y.cols,
        });
    }
    if x.precision != y.precision {
        return Err(Error::Invalid(format!(
            "the operands are {} and {}; a product on the device reads one format",
            x.precision, y.precision
        )));
    }
    let precision = x.precision;
    let mut product = None;
    let mut passes = 0;
    let ran = run_async(ctx, None, || {
        let (work, target) = record(ctx, method, x, y, opts)?;
        passes = work.passes;
        product = Some(target);
        Ok(work)
    })
    .await?;
    let texture =
        product.ok_or_else(|| Error::Internal("the product recorded no texture".into()))?;
    let c = Resident::new(texture, method, precision, x.rows, y.cols);
    let clamp = if clamp_to_one && precision != Precision::U8 {
        let ran = run_async(ctx, None, || {
            let mut work = Work::new(1);
            record_clamp(ctx, &c.texture, &mut work)?;
            Ok(work)
        })
        .await?;
        Some(ran.timings)
    } else {
        None
    };
    let block = match method {
        Method::Lm => None,
        _ => Some(opts.block.unwrap_or(hall_blocked::DEFAULT_BLOCK)),
    };
    Ok(Outcome {
        c: Matrix::zeros(0, 0),
        more_channels: vec![],
        method,
        shape: (x.rows, x.cols, y.cols),
        kernel: RanKernel::new(method, precision),
        block,
        passes,
        tiling: None,
        timings: ran.timings,
        notes: ran.notes,
        arith: arith(method, precision, opts),
        on_device: Some(c),
        clamp,
    })
}

/// Record `x · y` by `method` on the resident textures: the work, and the texture that holds
/// the product once it has run. Building the pipelines is setup ([`Work::setup_ms`]).
fn record(
    ctx: &GpuContext,
    method: Method,
    x: &Resident,
    y: &Resident,
    opts: &Options,
) -> Result<(Work, MatrixTexture)> {
    let t = crate::clock::Instant::now();
    let (xt, yt) = (&x.texture, &y.texture);
    if method == Method::Lm {
        let target =
            MatrixTexture::new(ctx, "F (product)", x.rows, y.cols, xt.format, TARGET_USAGE)?;
        let pipeline = Pipeline::new(ctx, xt, yt, target.format, 1, 1, x.precision)?;
        let mut work = Work::new(1);
        work.setup_ms = crate::gpu::run::ms(t);
        work.push(
            pipeline.encode(ctx, &target, 0..xt.cols as u32, true)?,
            Phase::Compute,
        );
        work.keep(pipeline);
        return Ok((work, target));
    }
    let prepared = if method == Method::HallBlocked {
        HallProduct::blocked(ctx, xt, yt, opts.block)?
    } else {
        HallProduct::packed(ctx, xt, yt, opts.block)?
    };
    let mut work = Work::new(prepared.passes());
    work.setup_ms = crate::gpu::run::ms(t);
    let target = prepared.record(ctx, &mut work)?;
    Ok((work, target))
}
