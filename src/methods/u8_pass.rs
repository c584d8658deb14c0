//! The pieces of the 8-bit pass that both render-pass families share (Larsen–McAllister and
//! Hall–Carr–Hart in u8): the widths of a u8 run, the check that a 16-bit sum can be rendered
//! here, the report's note on the widths, and the last pass that reduces a 16-bit sum to 8 bits.
//! Kept here, below the methods that use them, so that no method borrows another's helpers.

use super::{Method, Params};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::pipeline::{color_pass, texture_entry};
use crate::gpu::texture::{MatrixTexture, TARGET_USAGE};
use crate::precision::{Precision, U8Bits};

/// `shaders/larsen_mcallister.wgsl` (whose `fs_reduce` is the 16-to-8-bit pass) with the 8-bit
/// widths' arithmetic it shares (`shaders/u8_widths.wgsl`).
const SHADER: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/shaders/larsen_mcallister.wgsl")),
    "\n",
    include_str!(concat!(env!("OUT_DIR"), "/shaders/u8_widths.wgsl"))
);

/// The widths of a u8 run ([`Params::u8_bits`]): an error unless they are the default or the
/// run is in u8.
pub fn u8_bits(opts: &Params, precision: Precision) -> Result<U8Bits> {
    let bits = opts.u8_bits;
    if !bits.is_default() && precision != Precision::U8 {
        return Err(Error::Invalid(format!(
            "--u8-product-bits {} --u8-sum-bits {} set the widths of the 8-bit pipeline; they need --precision u8 (this run is {precision})",
            bits.product, bits.sum
        )));
    }
    Ok(bits)
}

/// One clear error unless the device can render (and with `blend`, blend) into the 16-bit
/// unorm `format` of a 16-bit u8 sum: wgpu's `TEXTURE_FORMAT_16BIT_NORM`, and the format's
/// features on this adapter.
pub fn require_norm16(
    ctx: &GpuContext,
    method: Method,
    format: wgpu::TextureFormat,
    blend: bool,
) -> Result<()> {
    if !ctx.has(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM) {
        return Err(Error::Unsupported {
            option: "--u8-sum-bits 16".into(),
            method: method.name(),
            why: format!(
                "adapter '{}' ({:?}) has no 16-bit normalized textures (wgpu's TEXTURE_FORMAT_16BIT_NORM) to keep the sum in; use --u8-sum-bits 8",
                ctx.info.name, ctx.info.backend
            ),
        });
    }
    ctx.require_render(
        method.name(),
        format,
        blend,
        "the 16-bit sum of --u8-sum-bits 16 lives in it; use --u8-sum-bits 8",
    )
}

/// The report's note on a run with L-M §4's widths; `what` is the value a fragment hands on.
pub fn wide_note(bits: U8Bits, reduced: bool, what: &str) -> String {
    format!(
        "u8 widths: {what} kept at {} bits, the running sum at {} bits{}{}",
        bits.product,
        bits.sum,
        bits.gpu().map_or(String::new(), |g| format!(" ({g})")),
        if reduced {
            ", reduced to 8 bits by a last pass into an 8-bit target"
        } else {
            ""
        }
    )
}

/// The last pass of a 16-bit u8 sum: the `R16Unorm` / `Rgba16Unorm` running sum reduced to 8
/// bits (rounded half up) into an `R8Unorm` / `Rgba8Unorm` target, which is what is read back —
/// "the output, stored in the framebuffer, reduces the precision back to 8 bits" (§4).
pub struct Reduce16 {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    /// The 8-bit output.
    pub output: MatrixTexture,
}

impl Reduce16 {
    /// The pipeline reading `sum` into a new `format` (8-bit) target of the same size.
    pub fn new(
        ctx: &GpuContext,
        sum: &MatrixTexture,
        format: wgpu::TextureFormat,
        channels: usize,
    ) -> Result<Self> {
        let output = MatrixTexture::new(
            ctx,
            "C (8-bit output)",
            sum.rows,
            sum.cols,
            format,
            TARGET_USAGE,
        )?;
        // Built once per context for each format and channel count (`gpu::cache`).
        let kept = ctx
            .pipelines
            .get_or_build(&("u8 output", format, channels), || {
                let module = ctx.shader("larsen_mcallister.wgsl", SHADER)?;
                ctx.scoped("building the 16-to-8-bit output pass", || {
                    let (layout, pl) = crate::gpu::pipeline::one_group_layout(
                        &ctx.device,
                        "u8 output",
                        &[texture_entry(3)],
                    );
                    let pipeline = crate::gpu::pipeline::fullscreen(
                        &ctx.device,
                        "u8 output",
                        Some(&pl),
                        &module,
                        "vs_full",
                        wgpu::PrimitiveTopology::TriangleStrip,
                        "fs_reduce",
                        &[Some(wgpu::ColorTargetState {
                            format,
                            blend: None,
                            write_mask: crate::gpu::pipeline::write_mask(channels),
                        })],
                    );
                    Ok((layout, pipeline))
                })
            })?;
        let (layout, pipeline) = (&kept.0, kept.1.clone());
        ctx.scoped("binding the 16-to-8-bit output pass", || {
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("u8 output"),
                layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 3,
                    resource: wgpu::BindingResource::TextureView(&sum.view),
                }],
            });
            Ok(Self {
                pipeline,
                bind_group,
                output,
            })
        })
    }

    /// Record the pass.
    pub fn encode(&self, ctx: &GpuContext) -> Result<wgpu::CommandBuffer> {
        ctx.scoped("recording the 16-to-8-bit output pass", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = color_pass(&mut enc, "u8 output", &[&self.output.view], true);
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.draw(0..4, 0..1);
            }
            Ok(enc.finish())
        })
    }
}
