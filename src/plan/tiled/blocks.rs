//! The blocks of a tiled product, run one after another: cut a tile of A and B out, multiply it
//! by the method's own path (L-M's blend across chunks of k, the compute harness's chunks
//! summed on the GPU, or a whole multiply per chunk added by `GpuAdd`), and place the block of C.

use super::*;

/// The `rows × cols` block of `x` at (r0, c0).
pub(super) fn sub(x: &Matrix, r0: usize, rows: usize, c0: usize, cols: usize) -> Matrix {
    let mut data = Vec::with_capacity(rows * cols);
    for i in r0..r0 + rows {
        data.extend_from_slice(&x.data[i * x.cols + c0..i * x.cols + c0 + cols]);
    }
    Matrix {
        rows,
        cols,
        data: data.into(),
    }
}

/// Copy `blk` into `c` at (r0, c0).
pub(super) fn place(c: &mut Matrix, blk: &Matrix, r0: usize, c0: usize) {
    for i in 0..blk.rows {
        let at = (r0 + i) * c.cols + c0;
        c.data[at..at + blk.cols].copy_from_slice(&blk.data[i * blk.cols..(i + 1) * blk.cols]);
    }
}

/// One block of C by L-M: every chunk's slices drawn into the same framebuffer, cleared before
/// the first chunk only, so the blend unit adds all k products in order (§3's passes, split
/// between textures). `k` is the whole inner dimension (u8 `--scale-by-depth`).
pub(super) async fn lm_block(
    ctx: &GpuContext,
    a: &[Matrix],
    b: &[Matrix],
    k: usize,
    opts: &Options,
) -> Result<RunOutput> {
    let mut notes = vec![];
    let precision = render_precision(ctx, Family::Lm, opts);
    if precision != opts.precision {
        notes.push(format!(
            "adapter '{}' cannot blend into R32Float: blending in f16 (R16Float) instead of f32",
            ctx.info.name
        ));
    }
    if opts.scale_by_depth && precision != Precision::U8 {
        return Err(Error::Invalid(
            "--scale-by-depth applies to --precision u8 only".into(),
        ));
    }
    let depth = if opts.scale_by_depth { k as u32 } else { 1 };
    let (m, n) = (a[0].rows, b[0].cols);
    let format = precision.format(1);
    // Every tile pair's slices blend into one framebuffer. Each pair is a run of its own, so only
    // one pair of tiles is on the GPU at a time (what the tiling's footprint counts); only the
    // last reads the framebuffer back.
    let target = MatrixTexture::new(ctx, "C block (framebuffer)", m, n, format, TARGET_USAGE)?;
    let mut t = Timings::default();
    let mut last = None;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let ran = run_async(ctx, None, || {
            let at = MatrixTexture::upload_channels(ctx, "A tile", &[x], precision)?;
            let bt = MatrixTexture::upload_channels(ctx, "B tile", &[y], precision)?;
            let pipeline =
                larsen_mcallister::Pipeline::new(ctx, &at, &bt, format, 1, depth, precision)?;
            let mut work = Work::new(x.cols);
            work.push(
                pipeline.encode(ctx, &target, 0..x.cols as u32, i == 0)?,
                Phase::Compute,
            );
            if i + 1 == a.len() {
                work.read(Read::Texture(target.clone()));
                work.finish(move |bytes| split_channels(m, n, precision.decode(&bytes[0]), 1));
            }
            Ok(work)
        })
        .await?;
        add_timings(&mut t, &ran.timings);
        last = Some(ran);
    }
    let ran =
        last.ok_or_else(|| Error::Internal("a tiled block needs at least one chunk of k".into()))?;
    let mut c = ran
        .cs
        .into_iter()
        .next()
        .ok_or_else(|| Error::Internal("a tiled block's run read back no matrix".into()))?;
    if opts.scale_by_depth {
        c.data.iter_mut().for_each(|v| *v *= k as f32);
        notes.push(format!(
            "--scale-by-depth: polygon colour 1/{k}; result rescaled by {k}"
        ));
    }
    notes.push(format!(
        "{k} additively blended slices into {format:?} ({m}x{n} fragments each), from {} pair(s) of tiles",
        a.len()
    ));
    Ok(RunOutput {
        c,
        passes: k,
        timings: t,
        notes,
        kernel: RanKernel {
            method: Method::Lm.name().into(),
            variant: None,
            inputs: precision,
            sums: precision,
            rounding: None,
        },
    })
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
                let plan = super::super::compute_plan(eff, &ctx.limits, x.rows, x.cols, y.cols)
                    .unwrap_or_else(|| {
                        Err(Error::Internal(format!("{eff} is not a compute method")))
                    })?;
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
    adder: Option<&GpuAdd>,
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
    match adder {
        Some(add) => {
            work.push(add.encode(ctx, part, s)?, Phase::Compute);
            Ok(s)
        }
        None => Err(Error::Internal(
            "a split k needs the accumulation pipeline".into(),
        )),
    }
}

/// One block of C by a compute method: each chunk through the compute harness, its C added into
/// the block's accumulator on the GPU by `adder`.
pub(super) async fn compute_block(
    ctx: &GpuContext,
    eff: Method,
    a: &[Matrix],
    b: &[Matrix],
    adder: Option<&GpuAdd>,
) -> Result<RunOutput> {
    if a.is_empty() {
        return Err(Error::Internal(
            "a tiled block needs at least one chunk of k".into(),
        ));
    }
    let mut notes = vec![];
    let mut passes = 0;
    // Each chunk a run of its own (only one chunk's operands on the GPU at a time, as the
    // tiling's footprint counts), its C added into the block's accumulator on the GPU by
    // `adder` (the first chunk's C copied there); the last run reads the sum back.
    let mut ready: Option<Ready> = None;
    let mut acc: Option<MatrixBuffer> = None;
    let mut t = Timings::default();
    let mut c = None;
    let chunks = a.len();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let last = i + 1 == chunks;
        let ran = run_async(ctx, None, || {
            let r = Ready::for_chunk(ctx, eff, &mut ready, x, y)?;
            let mut work = Work::new(r.plan.dispatches());
            work.push(
                r.prepared.encode(&ctx.device, r.plan.method)?,
                Phase::Compute,
            );
            let part = &r.ops.c;
            let (rows, cols) = (part.rows, part.cols);
            let sum = if chunks == 1 {
                part
            } else {
                accumulate(ctx, &mut work, part, &mut acc, adder)?
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
        let plan = &ready
            .as_ref()
            .ok_or_else(|| Error::Internal("a tiled chunk ran without its operands".into()))?
            .plan;
        passes += plan.dispatches() + usize::from(i > 0);
        add_timings(&mut t, &ran.timings);
        if notes.is_empty() {
            notes = plan.notes.clone();
        }
        if last {
            c = ran.cs.into_iter().next();
        }
    }
    Ok(RunOutput {
        c: c.ok_or_else(|| Error::Internal("the last chunk of a tiled block read no C".into()))?,
        passes,
        timings: t,
        notes,
        kernel: RanKernel {
            method: eff.name().into(),
            variant: None,
            inputs: Precision::F32,
            sums: Precision::F32,
            rounding: None,
        },
    })
}

/// Add the times of one run to `t`; device time only while every run has it.
pub(super) fn add_timings(t: &mut Timings, run: &Timings) {
    let first = t.total_ms() == 0.0 && t.device_ms.is_none();
    t.setup_ms += run.setup_ms;
    t.upload_ms += run.upload_ms;
    t.upload_bytes += run.upload_bytes;
    t.readback_bytes += run.readback_bytes;
    t.compute_ms += run.compute_ms;
    t.copy_ms += run.copy_ms;
    t.readback_ms += run.readback_ms;
    t.device_ms = match (first, t.device_ms, run.device_ms) {
        (true, _, d) => d,
        (false, Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
}

/// One block of C by any other method: each chunk a whole multiply of the method; the chunks
/// summed on the host in f64.
pub(super) async fn generic_block(
    ctx: &GpuContext,
    method: Method,
    a: &[Matrix],
    b: &[Matrix],
    opts: &Options,
) -> Result<RunOutput> {
    let (m, n) = (a[0].rows, b[0].cols);
    let mut sum = vec![0f64; m * n];
    let mut t = Timings::default();
    let mut device = Some(0.0);
    let mut passes = 0;
    let mut notes = vec![];
    let mut last = None;
    let mut kernel = RanKernel::default();
    for (x, y) in a.iter().zip(b) {
        // Each tile fits whole (the plan chose it so): the method's own run, not tiled again.
        let o = Options {
            allow_nonfinite: true,
            ..opts.clone()
        };
        let out = super::super::run_whole(Some(ctx), method, x, y, &o, None, Vec::new()).await?;
        t.upload_ms += out.timings.upload_ms;
        t.compute_ms += out.timings.compute_ms;
        t.copy_ms += out.timings.copy_ms;
        let t2 = Instant::now();
        for (s, v) in sum.iter_mut().zip(&out.c.data) {
            *s += *v as f64;
        }
        t.readback_ms += out.timings.readback_ms + ms(t2);
        device = device.zip(out.timings.device_ms).map(|(d, s)| d + s);
        passes += out.passes;
        if notes.is_empty() {
            notes = out.notes.clone();
        }
        kernel = out.kernel;
        last = Some(out.c);
    }
    t.device_ms = device;
    let c = match (a.len(), last) {
        // One chunk: the method's own f32 result, untouched.
        (1, Some(c)) => c,
        _ => Matrix {
            rows: m,
            cols: n,
            data: sum.iter().map(|&v| v as f32).collect(),
        },
    };
    Ok(RunOutput {
        c,
        passes,
        timings: t,
        notes,
        kernel,
    })
}

/// `acc += part` on the GPU (`shaders/tile_accumulate.wgsl`); its pipeline is built once per
/// context (`gpu::cache`).
pub(super) struct GpuAdd {
    kept: std::sync::Arc<(wgpu::ComputePipeline, wgpu::BindGroupLayout)>,
}

impl GpuAdd {
    pub(super) fn new(ctx: &GpuContext) -> Result<Self> {
        let kept = ctx.pipelines.get_or_build(&"tile_accumulate.wgsl", || {
            let module = ctx.shader("tile_accumulate.wgsl", ADD_SHADER)?;
            ctx.scoped("building the tile accumulation pipeline", || {
                let storage = crate::gpu::pipeline::storage_entry;
                let (layout, pl) = crate::gpu::pipeline::one_group_layout(
                    &ctx.device,
                    "tile accumulate",
                    &[
                        storage(0, true),
                        storage(1, false),
                        crate::gpu::pipeline::compute_uniform_entry(2),
                    ],
                );
                let pipeline =
                    ctx.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("tile_accumulate.wgsl"),
                            layout: Some(&pl),
                            module: &module,
                            entry_point: Some("cs_main"),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                Ok((pipeline, layout))
            })
        })?;
        Ok(Self { kept })
    }

    /// Record `acc += part` (same shape).
    pub(super) fn encode(
        &self,
        ctx: &GpuContext,
        part: &MatrixBuffer,
        acc: &MatrixBuffer,
    ) -> Result<wgpu::CommandBuffer> {
        if (part.rows, part.cols) != (acc.rows, acc.cols) {
            return Err(Error::Internal(format!(
                "tile accumulation: a {}x{} chunk into a {}x{} block",
                part.rows, part.cols, acc.rows, acc.cols
            )));
        }
        let words = (acc.rows * acc.cols) as u64;
        let gx = words
            .div_ceil(256)
            .clamp(1, ctx.limits.max_compute_workgroups_per_dimension as u64);
        let row = gx * 256;
        let gy = words.div_ceil(row).max(1);
        let len = buffer::uniform(
            ctx,
            "tile accumulate len",
            bytemuck::cast_slice(&[words as u32, row as u32, 0, 0]),
        )?;
        ctx.scoped("adding a k chunk into its block of C", || {
            let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("tile accumulate"),
                layout: &self.kept.1,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: part.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: acc.buffer.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: len.as_entire_binding(),
                    },
                ],
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("tile accumulate"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.kept.0);
                pass.set_bind_group(0, &group, &[]);
                pass.dispatch_workgroups(gx as u32, gy as u32, 1);
            }
            Ok(enc.finish())
        })
    }
}
