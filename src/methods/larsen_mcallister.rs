//! Larsen–McAllister (2001), "Fast Matrix Multiplies using Graphics Hardware", §3 and figure 2.
//!
//! The product is a picture of the processor cube seen from the front. One pass draws slice p:
//! a quad covering the m×n target, textured with column p of A replicated across it and row p of
//! B replicated down it; the fragment stage multiplies the two ("modulate", §2) and the blend
//! unit adds the product into the framebuffer (src·One + dst·One), so after pass p the
//! framebuffer holds `C_p = Σ_{q≤p} A[:,q] ⊗ B[q,:]`. k passes — one instanced draw of k
//! instances inside one render pass — give C = A·B, which is then read back from the
//! framebuffer. All additions happen in the blend unit, as in the paper.
//!
//! Precision (§4): f32 (`R32Float`, needs `FLOAT32_BLENDABLE`), f16 (`R16Float`, the fallback
//! when f32 blending is missing) or the 8-bit pipeline of 2001 (`R8Unorm`): inputs quantized to
//! 8 bits, each slice's product leaving the fragment stage as an 8-bit value, the sum saturating
//! at 1.0 in the unorm blend (`FF + 01 = FF`). `--scale-by-depth` sets the polygon colour to 1/k
//! so the sum cannot saturate, losing the low log2(k) bits; the result is rescaled by k.
//! Four channels (RGBA) multiply four independent pairs in the same passes ("RGBA", §5).
//! The widths of §4 (`Params::u8_bits`, `--u8-product-bits 8|14|16`, `--u8-sum-bits 8|16`):
//! the product kept at 14 (GeForce2) or 16 (GeForce3) bits, the sum at 16 bits in an `R16Unorm`
//! / `Rgba16Unorm` framebuffer, reduced to 8 bits by a last pass; CPU model
//! [`crate::precision::u8_model_bits`].
//!
//! Shader: `shaders/larsen_mcallister.wgsl`.

use super::u8_pass::{Reduce16, require_norm16, u8_bits, wide_note};
use super::{Method, Params};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::pipeline::color_pass;
pub use crate::gpu::pipeline::{texture_entry, uniform_entry};
use crate::gpu::run::{Phase, Read, Work};
use crate::gpu::texture::{MatrixTexture, TARGET_USAGE, split_channels};
use crate::matrix::Matrix;
use crate::precision::{self, Precision, U8Bits};

/// `shaders/larsen_mcallister.wgsl` with the 8-bit widths' arithmetic it shares (`shaders/u8_widths.wgsl`).
const SHADER: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/shaders/larsen_mcallister.wgsl")),
    "\n",
    include_str!(concat!(env!("OUT_DIR"), "/shaders/u8_widths.wgsl"))
);

/// Loop iterations of one fragment, for drivers that cap them ([`super::Loops`]): none grows
/// with k (each k step is a quad of its own); the u8 widths' channel loop (4 + 1) and in each
/// the two 64-step divisions of `pass_steps` (65 each).
pub fn loop_iterations() -> u64 {
    5 + 4 * 2 * 65
}

/// Record `a · b` by k additively blended slices, for the runner.
pub fn record(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &Params) -> Result<Work> {
    record_channels(ctx, &[a], &[b], opts)
}

/// 1 or 4 pairs, each a product, all of the same shapes (the channels share one set of
/// passes).
fn check_pairs(a: &[&Matrix], b: &[&Matrix]) -> Result<()> {
    if a.len() != b.len() || !(a.len() == 1 || a.len() == 4) {
        return Err(Error::Invalid(format!(
            "L-M takes 1 or 4 (A, B) pairs, got {} A and {} B matrices",
            a.len(),
            b.len()
        )));
    }
    for (c, (x, y)) in a.iter().zip(b).enumerate() {
        crate::matrix::check_product(x, y)?;
        if x.shape() != a[0].shape() || y.shape() != b[0].shape() {
            return Err(Error::Invalid(format!(
                "pair {c} is {}x{}·{}x{} but pair 0 is {}x{}·{}x{}; the channels share one set of passes",
                x.rows, x.cols, y.rows, y.cols, a[0].rows, a[0].cols, b[0].rows, b[0].cols
            )));
        }
    }
    Ok(())
}

/// The precision the slices blend in: f32 falls back to f16 (with a note) on an adapter that
/// cannot blend into f32 but can into f16.
fn blend_precision(
    ctx: &GpuContext,
    asked: Precision,
    ch: u32,
    notes: &mut Vec<String>,
) -> Precision {
    if asked == Precision::F32
        && !ctx.can_render(asked.format(ch), true)
        && ctx.can_render(Precision::F16.format(ch), true)
    {
        notes.push(format!(
            "adapter '{}' cannot blend into {:?} (no FLOAT32_BLENDABLE, and no blending in its own format features): blending in f16 ({:?}) instead of f32",
            ctx.info.name,
            Precision::F32.format(ch),
            Precision::F16.format(ch)
        ));
        return Precision::F16;
    }
    asked
}

/// C fits the adapter: the 16-bit sum's target where the sum is wider than the output, and
/// the framebuffer.
fn check_targets(
    ctx: &GpuContext,
    precision: Precision,
    sum_format: wgpu::TextureFormat,
    ch: u32,
    (m, n): (usize, usize),
) -> Result<()> {
    if sum_format != precision.format(ch) {
        require_norm16(ctx, Method::Lm, sum_format, true)?;
        crate::gpu::texture::check_target(ctx, "C (16-bit sum)", m, n, sum_format)?;
    }
    ctx.check_texture_dim("C width (n)", n)?;
    ctx.check_texture_dim("C height (m)", m)?;
    crate::gpu::texture::check_target(ctx, "C (framebuffer)", m, n, precision.format(ch))
}

/// The k slices' render passes: one per slice when observed, so the observer can look at C_p
/// after each; else all k in one render pass, one instanced draw (instance p = slice p).
fn push_slices(
    ctx: &GpuContext,
    work: &mut Work,
    pipeline: &Pipeline,
    target: &MatrixTexture,
    k: usize,
    observe: bool,
) -> Result<()> {
    if observe {
        for p in 0..k as u32 {
            work.push(
                pipeline.encode(ctx, target, p..p + 1, p == 0)?,
                Phase::Compute,
            );
            work.observe(p as usize + 1, target);
        }
    } else {
        work.push(
            pipeline.encode(ctx, target, 0..k as u32, true)?,
            Phase::Compute,
        );
    }
    Ok(())
}

/// Record 1 or 4 pairs `a[c] · b[c]` in one set of k passes, one pair per colour channel: the
/// textures, the pipeline, the render passes (one per slice when `opts.observe`, so the
/// observer sees C_p after each; else one instanced draw), the framebuffer's readback, and the
/// rescale of `--scale-by-depth`.
pub fn record_channels(
    ctx: &GpuContext,
    a: &[&Matrix],
    b: &[&Matrix],
    opts: &Params,
) -> Result<Work> {
    check_pairs(a, b)?;
    let channels = a.len();
    let (m, k, n) = (a[0].rows, a[0].cols, b[0].cols);
    let mut notes = vec![];
    let ch = channels as u32;
    let precision = blend_precision(ctx, opts.precision, ch, &mut notes);
    ctx.require_render(
        Method::Lm.name(),
        precision.format(ch),
        true,
        "its slices are summed by the blend unit; try another backend (WGPU_BACKEND=vulkan) or another --precision",
    )?;
    if precision == Precision::U8 {
        for (x, y) in a.iter().zip(b) {
            precision::check_unit_range(x, "A")?;
            precision::check_unit_range(y, "B")?;
        }
    }
    if opts.scale_by_depth && precision != Precision::U8 {
        return Err(Error::Invalid(
            "--scale-by-depth applies to --precision u8 only".into(),
        ));
    }
    let bits = u8_bits(opts, precision)?;
    // The polygon colour of §4: 1, or 1/k with --scale-by-depth (u8 only).
    let depth = if opts.scale_by_depth { k as u32 } else { 1 };
    precision::check_wide_depth(bits, depth)?;
    // The running sum's format: the precision's, or R16Unorm / Rgba16Unorm for a 16-bit u8 sum.
    let sum_format = match precision {
        Precision::U8 => bits.sum_format(ch),
        _ => precision.format(ch),
    };
    check_targets(ctx, precision, sum_format, ch, (m, n))?;

    // ANCHOR: record
    let format = precision.format(channels as u32);
    let at = MatrixTexture::upload_channels(ctx, "A", a, precision)?;
    let bt = MatrixTexture::upload_channels(ctx, "B", b, precision)?;
    let target = MatrixTexture::new(ctx, "C (framebuffer)", m, n, sum_format, TARGET_USAGE)?;
    // Pipeline creation is setup (kept out of the upload time, as in the Hall methods), so
    // compute_ms is the passes alone.
    let built = crate::clock::Instant::now();
    let pipeline =
        Pipeline::with_bits(ctx, &at, &bt, sum_format, channels, depth, precision, bits)?;
    // A 16-bit sum is reduced to 8 bits by a last pass into an 8-bit target (§4's output).
    let reduce = (sum_format != format)
        .then(|| Reduce16::new(ctx, &target, format, channels))
        .transpose()?;
    let mut work = Work::new(k);
    work.sums = Some(precision);
    work.setup_ms = crate::gpu::run::ms(built);
    push_slices(ctx, &mut work, &pipeline, &target, k, opts.observe)?;
    match &reduce {
        Some(r) => {
            work.push(r.encode(ctx)?, Phase::Compute);
            work.read(Read::Texture(r.output.clone()));
        }
        None => {
            work.read(Read::Texture(target.clone()));
        }
    }
    // ANCHOR_END: record
    let rescale = opts.scale_by_depth.then_some(k as f32);
    if let Some(k) = rescale {
        notes.push(format!(
            "--scale-by-depth: polygon colour 1/{k}, so each slice keeps {:.1} fewer low bits; result rescaled by {k}",
            k.log2()
        ));
    }
    notes.push(format!(
        "{k} additively blended slices into {sum_format:?} ({m}x{n} fragments each, {channels} channel(s))"
    ));
    if precision == Precision::U8 && !bits.is_default() {
        notes.push(wide_note(bits, reduce.is_some(), "each product"));
    }
    work.notes = notes;
    work.finish(move |bytes| {
        let mut cs = split_channels(m, n, precision.decode(&bytes[0]), channels)?;
        if let Some(k) = rescale {
            for c in &mut cs {
                c.data.iter_mut().for_each(|v| *v *= k);
            }
        }
        Ok(cs)
    });
    Ok(work)
}

/// The render pipeline and the bind group of one multiply.
pub struct Pipeline {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
}

impl Pipeline {
    /// Build the additive-blend pipeline reading `a` and `b` into a `format` target; in u8 the
    /// product is modulated by the polygon colour 1/`depth` (8-bit products, 8-bit sum).
    pub fn new(
        ctx: &GpuContext,
        a: &MatrixTexture,
        b: &MatrixTexture,
        format: wgpu::TextureFormat,
        channels: usize,
        depth: u32,
        precision: Precision,
    ) -> Result<Self> {
        Self::with_bits(
            ctx,
            a,
            b,
            format,
            channels,
            depth,
            precision,
            U8Bits::default(),
        )
    }

    /// [`Pipeline::new`] with the widths `bits` of the u8 pipeline (L-M §4): the product kept at
    /// `bits.product` bits and handed to the blend unit at `bits.sum` bits (`format` is then
    /// `R16Unorm` / `Rgba16Unorm` for a 16-bit sum).
    #[allow(clippy::too_many_arguments)]
    pub fn with_bits(
        ctx: &GpuContext,
        a: &MatrixTexture,
        b: &MatrixTexture,
        format: wgpu::TextureFormat,
        channels: usize,
        depth: u32,
        precision: Precision,
        bits: U8Bits,
    ) -> Result<Self> {
        let levels = if precision == Precision::U8 {
            255.0f32
        } else {
            0.0
        };
        let wide = u32::from(precision == Precision::U8 && !bits.is_default());
        // The pipeline depends only on the target's format and channels: built once per
        // context (`gpu::cache`); the operands and the uniforms are this product's.
        let kept = ctx
            .pipelines
            .get_or_build(&("larsen_mcallister", format, channels), || {
                let module = ctx.shader("larsen_mcallister.wgsl", SHADER)?;
                ctx.scoped("building the Larsen–McAllister pipeline", || {
                    let (layout, pl) = crate::gpu::pipeline::one_group_layout(
                        &ctx.device,
                        "larsen_mcallister",
                        &[texture_entry(0), texture_entry(1), uniform_entry(2)],
                    );
                    // ANCHOR: blend_state
                    let pipeline = crate::gpu::pipeline::fullscreen(
                        &ctx.device,
                        "larsen_mcallister",
                        Some(&pl),
                        &module,
                        "vs_main",
                        wgpu::PrimitiveTopology::TriangleStrip,
                        "fs_main",
                        &[Some(wgpu::ColorTargetState {
                            format,
                            blend: Some(crate::gpu::pipeline::ADDITIVE),
                            write_mask: crate::gpu::pipeline::write_mask(channels),
                        })],
                    );
                    // ANCHOR_END: blend_state
                    Ok((layout, pipeline))
                })
            })?;
        let (layout, pipeline) = (&kept.0, kept.1.clone());
        ctx.scoped("binding the Larsen–McAllister operands", || {
            let params = crate::gpu::staging::create_buffer_init(
                &ctx.device,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("lm params"),
                    contents: &[
                        bytemuck::bytes_of(&1.0f32),
                        bytemuck::bytes_of(&levels),
                        bytemuck::bytes_of(&depth),
                        bytemuck::bytes_of(&wide),
                        bytemuck::bytes_of(&(U8Bits::top(bits.product) as u32)),
                        bytemuck::bytes_of(&(U8Bits::top(bits.sum) as u32)),
                        bytemuck::bytes_of(&[0u32; 2]),
                    ]
                    .concat(),
                    usage: wgpu::BufferUsages::UNIFORM,
                },
            );
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("larsen_mcallister"),
                layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&a.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&b.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: params.as_entire_binding(),
                    },
                ],
            });
            Ok(Self {
                pipeline,
                bind_group,
            })
        })
    }

    // ANCHOR: draw_slices
    /// Record one render pass drawing the slices `slices` onto `target`, clearing it to zero
    /// first when `clear` is set.
    pub fn encode(
        &self,
        ctx: &GpuContext,
        target: &MatrixTexture,
        slices: std::ops::Range<u32>,
        clear: bool,
    ) -> Result<wgpu::CommandBuffer> {
        ctx.scoped("recording the Larsen–McAllister render pass", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass =
                    color_pass(&mut enc, "larsen_mcallister slices", &[&target.view], clear);
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.draw(0..4, slices);
            }
            Ok(enc.finish())
        })
    }
    // ANCHOR_END: draw_slices
}

/// One block of C for the tiled driver (a layer up, through [`super::Method::chunks`]): every
/// chunk's slices drawn into the same framebuffer, cleared before the first chunk only, so the
/// blend unit adds all k products in order (§3's passes, split between textures). Each chunk is
/// a [`Work`] of its own, recorded once the one before has run, so only one pair of tiles is on
/// the GPU at a time; only the last reads the framebuffer back. `k` is the whole inner
/// dimension (u8 `--scale-by-depth`).
pub(crate) async fn multiply_chunks(
    ctx: &GpuContext,
    a: &[Matrix],
    b: &[Matrix],
    k: usize,
    p: &Params,
) -> Result<super::RunOutput> {
    let (a0, b0) = crate::matrix::first_chunks(a, b)?;
    let mut notes = vec![];
    let precision =
        if p.precision == Precision::F32 && !ctx.can_render(Precision::F32.format(1), true) {
            notes.push(format!(
            "adapter '{}' cannot blend into R32Float: blending in f16 (R16Float) instead of f32",
            ctx.info.name
        ));
            Precision::F16
        } else {
            p.precision
        };
    if p.scale_by_depth && precision != Precision::U8 {
        return Err(Error::Invalid(
            "--scale-by-depth applies to --precision u8 only".into(),
        ));
    }
    let depth = if p.scale_by_depth { k as u32 } else { 1 };
    let (m, n) = (a0.rows, b0.cols);
    let format = precision.format(1);
    let target = MatrixTexture::new(ctx, "C block (framebuffer)", m, n, format, TARGET_USAGE)?;
    let chunks = a.len();
    let ran = crate::gpu::run::run_in_turn_async(ctx, chunks, |i| {
        let (x, y) = (&a[i], &b[i]);
        let at = MatrixTexture::upload_channels(ctx, "A tile", &[x], precision)?;
        let bt = MatrixTexture::upload_channels(ctx, "B tile", &[y], precision)?;
        let pipeline = Pipeline::new(ctx, &at, &bt, format, 1, depth, precision)?;
        let mut work = Work::new(x.cols);
        work.sums = Some(precision);
        work.push(
            pipeline.encode(ctx, &target, 0..x.cols as u32, i == 0)?,
            Phase::Compute,
        );
        if i + 1 == chunks {
            work.read(Read::Texture(target.clone()));
            work.finish(move |bytes| split_channels(m, n, precision.decode(&bytes[0]), 1));
        }
        Ok(work)
    })
    .await?;
    let mut t = super::Timings::default();
    for r in &ran {
        t.add_run(&r.timings);
    }
    let c = ran.into_iter().last().and_then(|r| r.cs.into_iter().next());
    let mut c =
        c.ok_or_else(|| Error::Internal("a tiled block's run read back no matrix".into()))?;
    if p.scale_by_depth {
        c.data.iter_mut().for_each(|v| *v *= k as f32);
        notes.push(format!(
            "--scale-by-depth: polygon colour 1/{k}; result rescaled by {k}"
        ));
    }
    notes.push(format!(
        "{k} additively blended slices into {format:?} ({m}x{n} fragments each), from {chunks} pair(s) of tiles"
    ));
    Ok(super::RunOutput {
        c,
        passes: k,
        timings: t,
        notes,
        kernel: super::RanKernel::new(Method::Lm, precision),
    })
}
