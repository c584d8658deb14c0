//! The tiled driver's side of the Hall–Carr–Hart engine: one block of C summed over chunks of
//! k, each chunk's passes continuing on the GPU from the running sum the last one left.

use super::{
    Engine, PACKED, PrecisionSetup, SINGLE, block_size, packed_shape, unpack_bytes,
    upload_packed_as,
};
use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::run::Read;
use crate::gpu::run::Work;
use crate::gpu::run::run_in_turn_async;
use crate::gpu::texture::MatrixTexture;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::methods::Params;
use crate::methods::RunOutput;
use crate::methods::Timings;
use crate::precision::Precision;

/// One block of C for the tiled driver (a layer up): `Σ_c a[c] · b[c]` over the chunks of k, each chunk's
/// passes continuing from the running sum the previous chunk left on the GPU
/// ([`Engine::record`] from a start); only the block's final sum is read back. Each chunk is a
/// [`Work`] of its own, run before the next chunk's tiles are uploaded, so only one pair of
/// tiles and the running sum are on the GPU at a time. `k` is the whole inner dimension (the
/// polygon colour 1/k of `--scale-by-depth`); `packed` runs §4's variant, each chunk packed on
/// its own (so a packed run split along k pairs its columns differently from an unsplit one).
/// With chunks that are whole blocks of b, `hall-blocked` runs exactly the passes of one
/// untiled run. `passes` counts all the chunks' passes.
pub(crate) async fn multiply_chunks(
    ctx: &GpuContext,
    packed: bool,
    a: &[Matrix],
    b: &[Matrix],
    k: usize,
    opts: &Params,
) -> Result<RunOutput> {
    let (a0, b0) = crate::matrix::first_chunks(a, b)?;
    let (m, n) = (a0.rows, b0.cols);
    let block = block_size(ctx, opts.block)?;
    let depth = |x: &Matrix| {
        if packed {
            packed_shape(x.rows, x.cols).1
        } else {
            x.cols
        }
    };
    let terms = (block as usize).min(depth(a0)) * if packed { 2 } else { 1 };
    // Non-default u8 widths are refused by the tiled driver before it gets here.
    let mut setup = PrecisionSetup::new(ctx, opts, a0, b0, terms)?;
    if setup.precision == Precision::U8 && setup.scale_by_depth {
        setup.u8_depth = k.max(1) as u32;
    }
    setup.k = k;
    let precision = setup.precision;
    let (variant, channels) = if packed { (&PACKED, 4) } else { (&SINGLE, 1) };
    let (u8_depth, accumulate) = (setup.u8_depth, opts.accumulate);
    let mut t = Timings::default();
    let mut device = Some(0.0);
    let mut passes = 0;
    let mut sum: Option<MatrixTexture> = None;
    let mut first = None;
    // Each chunk is recorded here and run by the runner, in turn: chunk i + 1 is recorded (its
    // tiles uploaded) only once chunk i has run.
    let ran = run_in_turn_async(ctx, a.len(), |i| {
        let (x, y) = (&a[i], &b[i]);
        let last = i + 1 == a.len();
        let (xt, yt) = upload_chunk(ctx, packed, (x, y), precision)?;
        let engine = Engine::build(
            ctx,
            variant,
            precision.format(channels),
            u8_depth,
            &xt,
            &yt,
            depth(x),
            block,
            accumulate,
        )?;
        let mut work = Work::new(engine.passes());
        work.sums = Some(precision);
        let rec = engine.record(ctx, &mut work, sum.as_ref(), false)?;
        if last {
            // Only the block's final sum comes back.
            work.read(Read::Texture(rec.result.clone()));
            work.finish(move |bytes| {
                Ok(vec![if packed {
                    unpack_bytes(precision, &bytes[0], m, n)?
                } else {
                    Matrix::new(m, n, precision.decode(&bytes[0]))?
                }])
            });
        }
        passes += rec.passes;
        if first.is_none() {
            let target = if packed {
                format!("{}x{} RGBA", m.div_ceil(2), n.div_ceil(2))
            } else {
                format!("{m}x{n}")
            };
            first = Some(rec.notes(&target, block, depth(x)));
        }
        // The sum this chunk started from is kept until the chunk has run.
        if let Some(before) = sum.replace(rec.result) {
            work.keep(before);
        }
        Ok(work)
    })
    .await?;
    for r in &ran {
        add_timings(&mut t, &mut device, &r.timings);
    }
    let c = ran.into_iter().last().and_then(|r| r.cs.into_iter().next());
    let mut c = c.ok_or_else(|| Error::Internal("the last chunk of k read no sum back".into()))?;
    t.device_ms = device;
    let mut notes = first.unwrap_or_default();
    let (more, rescale) =
        setup.finish(passes, if packed { "Rgba8Unorm" } else { "R8Unorm" }, false);
    notes.extend(more);
    rescale.apply(&mut c);
    Ok(output(packed, c, passes, t, notes, precision))
}

/// One chunk's tiles on the GPU: packed (§4) or one channel, in the run's precision.
fn upload_chunk(
    ctx: &GpuContext,
    packed: bool,
    (x, y): (&Matrix, &Matrix),
    precision: Precision,
) -> Result<(MatrixTexture, MatrixTexture)> {
    Ok(if packed {
        (
            upload_packed_as(ctx, "A tile packed", x, precision)?,
            upload_packed_as(ctx, "B tile packed", y, precision)?,
        )
    } else {
        (
            MatrixTexture::upload_channels(ctx, "A tile", &[x], precision)?,
            MatrixTexture::upload_channels(ctx, "B tile", &[y], precision)?,
        )
    })
}

/// Add one chunk's timings to the block's; the device time only while every chunk has one.
fn add_timings(t: &mut Timings, device: &mut Option<f64>, ran: &Timings) {
    t.upload_ms += ran.upload_ms;
    t.compute_ms += ran.compute_ms;
    t.copy_ms += ran.copy_ms;
    t.readback_ms += ran.readback_ms;
    *device = device.zip(ran.device_ms).map(|(d, r)| d + r);
}

/// The block's result as a run of `hall-packed` or `hall-blocked`.
fn output(
    packed: bool,
    c: Matrix,
    passes: usize,
    timings: Timings,
    notes: Vec<String>,
    precision: Precision,
) -> RunOutput {
    let method = if packed {
        Method::HallPacked
    } else {
        Method::HallBlocked
    };
    RunOutput {
        c,
        passes,
        timings,
        notes,
        kernel: crate::methods::RanKernel::new(method, precision),
    }
}
