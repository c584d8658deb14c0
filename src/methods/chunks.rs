//! One block of C of a tiled product, chunk by chunk of k, by the method itself: what the tiler
//! (a layer up) asks a method for instead of knowing how each family sums its chunks.
//! [`Method::chunks`] hands back the method's [`Chunked`] way, where it has one:
//!
//! - `lm`: every chunk's slices blend into the block's one framebuffer (cleared before the
//!   first chunk only), so the blend unit adds the products in the order of one untiled run
//!   ([`super::larsen_mcallister::multiply_chunks`]);
//! - `hall-blocked`, `hall-packed`: each chunk's passes continue from the running sum the
//!   previous chunk left ([`super::hall_common::multiply_chunks`]);
//! - the compute-harness methods: each chunk's C added into the block's accumulator on the GPU
//!   ([`compute_chunks`], `shaders/tile_accumulate.wgsl`).
//!
//! Any other method has none, and the tiler runs it whole on each tile and sums the chunks
//! itself. Each chunk is a [`Work`] of its own, recorded only once the chunk before it has run
//! (the runner's `run_in_turn_async`), so one pair of tiles and the block's running sum are on
//! the GPU at a time; only the last chunk reads the block back.

use super::{
    Method, Params, RanKernel, RunOutput, Runs, Timings, hall_blocked, larsen_mcallister,
};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::buffer::{self, MatrixBuffer};
use crate::gpu::compute::{GpuAdd, Operands, Plan, Prepared};
use crate::gpu::run::{Phase, Read, Work, run_in_turn_async};
use crate::matrix::Matrix;
use crate::precision::Precision;
use std::future::Future;
use std::pin::Pin;

/// The block's product, awaited.
pub type BlockFuture<'a> = Pin<Box<dyn Future<Output = Result<RunOutput>> + 'a>>;

/// A method's product of one block of C: `Σ_c a[c] · b[c]` over the chunks of k, summed on the
/// GPU. `k` is the whole inner dimension (the polygon colour 1/k of `--scale-by-depth`); the
/// method is the one that runs the tiles (a single-workgroup method's tiled version).
pub type Chunked = for<'a> fn(
    &'a GpuContext,
    Method,
    &'a [Matrix],
    &'a [Matrix],
    usize,
    &'a Params,
) -> BlockFuture<'a>;

impl Method {
    /// How this method multiplies one block of a tiled product chunk by chunk of k, summing on
    /// the GPU; `None` where it has no such way (the tiler then sums whole runs of each tile).
    /// A compute plan that pads its operands itself runs only on them, so has none.
    pub fn chunks(self, limits: &wgpu::Limits) -> Option<Chunked> {
        match self {
            Method::Lm => Some(|ctx, _, a, b, k, p| {
                Box::pin(larsen_mcallister::multiply_chunks(ctx, a, b, k, p))
            }),
            Method::HallBlocked | Method::HallPacked => Some(|ctx, method, a, b, k, p| {
                let packed = method == Method::HallPacked;
                Box::pin(hall_blocked::multiply_chunks(ctx, packed, a, b, k, p))
            }),
            _ => match self.info().runs {
                Runs::Compute { plan, .. } => match plan(limits, 64, 64, 64) {
                    Ok(p) if p.trusted.is_none() => {
                        Some(|ctx, method, a, b, _, _| Box::pin(compute_chunks(ctx, method, a, b)))
                    }
                    _ => None,
                },
                _ => None,
            },
        }
    }
}

/// The plan `method` runs on an m×k·k×n chunk.
fn chunk_plan(method: Method, limits: &wgpu::Limits, m: usize, k: usize, n: usize) -> Result<Plan> {
    match method.info().runs {
        Runs::Compute { plan, .. } => plan(limits, m, k, n),
        _ => Err(Error::Internal(format!("{method} is not a compute method"))),
    }
}

/// The buffers and pipelines of one chunk depth: every chunk as deep as the one before
/// writes its A and B into the same buffers and runs the same pipelines (a k split for the
/// loop cap can take hundreds of chunks, and a pipeline build costs more than the chunk).
struct Ready {
    k: usize,
    plan: crate::gpu::compute::Plan,
    ops: Operands,
    prepared: Prepared,
}

impl Ready {
    /// `ready` for the chunk `x · y`: the last chunk's, with this chunk's operands written into
    /// its buffers where the sizes match, else built anew.
    fn for_chunk<'r>(
        ctx: &GpuContext,
        eff: Method,
        ready: &'r mut Option<Ready>,
        x: &Matrix,
        y: &Matrix,
    ) -> Result<&'r Ready> {
        match ready {
            Some(r) if r.k == x.cols && (r.ops.a.rows, r.ops.b.cols) == (x.rows, y.cols) => {
                r.ops.a.write(ctx, &x.data)?;
                r.ops.b.write(ctx, &y.data)?;
                r.ops.poison(ctx)?;
            }
            _ => {
                let plan = chunk_plan(eff, &ctx.limits, x.rows, x.cols, y.cols)?;
                let ops = Operands::upload(ctx, &plan, x, y)?;
                let prepared = Prepared::new(ctx, &plan, &ops)?;
                *ready = Some(Ready {
                    k: x.cols,
                    plan,
                    ops,
                    prepared,
                });
            }
        }
        ready
            .as_ref()
            .ok_or_else(|| Error::Internal("a tiled chunk's operands were not made".into()))
    }
}

/// Add one chunk's C (`part`) into the block's accumulator `acc` on the GPU: the first chunk's
/// copied there, each later one added by `adder`. Returns the accumulator.
fn accumulate<'a>(
    ctx: &GpuContext,
    work: &mut Work,
    part: &MatrixBuffer,
    acc: &'a mut Option<MatrixBuffer>,
    adder: &GpuAdd,
) -> Result<&'a MatrixBuffer> {
    let (rows, cols) = (part.rows, part.cols);
    if acc.is_none() {
        let made = MatrixBuffer::new(ctx, "C block accumulator", rows, cols)?;
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(
            &part.buffer,
            0,
            &made.buffer,
            0,
            buffer::matrix_bytes(rows, cols),
        );
        work.push(enc.finish(), Phase::Compute);
        return Ok(acc.insert(made));
    }
    let s = acc
        .as_ref()
        .ok_or_else(|| Error::Internal("the block accumulator was not made".into()))?;
    work.push(adder.encode(ctx, part, s)?, Phase::Compute);
    Ok(s)
}

/// One block of C by a compute-harness method: each chunk through the compute harness, its C
/// added into the block's accumulator on the GPU (the first chunk's C copied there); the last
/// chunk reads the sum back.
async fn compute_chunks(
    ctx: &GpuContext,
    eff: Method,
    a: &[Matrix],
    b: &[Matrix],
) -> Result<RunOutput> {
    let chunks = a.len();
    if chunks == 0 || b.len() != chunks {
        return Err(Error::Internal(format!(
            "a tiled block's chunks of k: {chunks} of A, {} of B",
            b.len()
        )));
    }
    let adder = if chunks > 1 {
        Some(GpuAdd::new(ctx)?)
    } else {
        None
    };
    let mut notes = vec![];
    let mut passes = 0;
    let mut ready: Option<Ready> = None;
    let mut acc: Option<MatrixBuffer> = None;
    let ran = run_in_turn_async(ctx, chunks, |i| {
        let (x, y) = (&a[i], &b[i]);
        let last = i + 1 == chunks;
        let r = Ready::for_chunk(ctx, eff, &mut ready, x, y)?;
        let mut work = Work::new(r.plan.dispatches());
        work.push(
            r.prepared.encode(&ctx.device, r.plan.method)?,
            Phase::Compute,
        );
        passes += r.plan.dispatches() + usize::from(i > 0);
        if notes.is_empty() {
            notes = r.plan.notes.clone();
        }
        let part = &r.ops.c;
        let (rows, cols) = (part.rows, part.cols);
        let sum = match &adder {
            Some(add) => accumulate(ctx, &mut work, part, &mut acc, add)?,
            None => part,
        };
        if last {
            work.read(Read::Buffer {
                buffer: sum.buffer.clone(),
                len: (rows * cols * 4) as u64,
            });
            work.finish(move |mut bytes| {
                Ok(vec![Matrix::new(rows, cols, bytes.remove(0).into_f32s())?])
            });
        }
        Ok(work)
    })
    .await?;
    let mut t = Timings::default();
    for r in &ran {
        t.add_run(&r.timings);
    }
    let c = ran.into_iter().last().and_then(|r| r.cs.into_iter().next());
    Ok(RunOutput {
        c: c.ok_or_else(|| Error::Internal("the last chunk of a tiled block read no C".into()))?,
        passes,
        timings: t,
        notes,
        kernel: RanKernel::new(eff, Precision::F32),
    })
}
