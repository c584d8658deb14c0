//! Texture-level entry points to the Hall–Carr–Hart passes, for work whose operands are already
//! on the GPU and whose product stays there (the reachability powers of [`crate::reach`]).
//!
//! [`super::hall_blocked::record`] and [`super::hall_packed::record`] start from host
//! matrices; here the caller hands over the textures and gets back the texture that will hold
//! the product (the "framebuffer" of the last pass, created with `TARGET_USAGE`), so nothing
//! crosses to the host. The passes are the shared `Engine`'s, with ping-pong accumulation; only
//! the variant descriptions are restated, because the methods keep theirs private.
//!
//! Like the methods, a product only records: [`HallProduct::record`] appends its passes to a
//! [`Work`], and the caller runs that work ([`crate::gpu::run::run`]) when it chooses — alone,
//! or together with other products and passes recorded into the same work.
//!
//! Larsen–McAllister needs no wrapper: [`super::larsen_mcallister::Pipeline`] already works on
//! textures.
//!
//! [`record_clamp`] records the step a boolean product (L-M §5's reachability powers in f16 and
//! f32) takes after each product: `F ← min(F, 1)`, a quad of colour 1 blended with the Min
//! operation (`shaders/reach_clamp.wgsl`).

use super::Accumulate;
use super::hall_common::{Engine, Variant, block_size};
use crate::clock::Instant;
use crate::error::{Error, Result};
use crate::gpu::run::{Phase, Work, ms};
use crate::gpu::{GpuContext, MatrixTexture};

const CLAMP_SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/reach_clamp.wgsl"));

// Hall–Carr–Hart §3, single channel, and §4, 2×2 channel-packed: the methods' own variants.
use super::hall_common::PACKED;
use super::hall_common::SINGLE as BLOCKED;

/// One Hall–Carr–Hart product of two resident textures, built (pipelines, accumulation
/// textures, bind groups) but not yet recorded or run, so that building and running can be timed
/// apart.
pub struct HallProduct {
    engine: Engine,
    passes: usize,
}

impl HallProduct {
    /// Prepare `x · y` for `R32Float` textures (x rows × k, y k × cols) in blocks of `block`
    /// (default 32) along k.
    pub fn blocked(
        ctx: &GpuContext,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        Self::new(ctx, &BLOCKED, x, y, block)
    }

    /// Prepare `X · Y` for 2×2-packed `Rgba32Float` textures (as `hall_packed::upload_packed`
    /// makes them); the product comes out packed the same way (eq. 8-11), so it can be fed back
    /// in as an operand without unpacking.
    pub fn packed(
        ctx: &GpuContext,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        Self::new(ctx, &PACKED, x, y, block)
    }

    fn new(
        ctx: &GpuContext,
        v: &Variant,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        for (name, t) in [("left", x), ("right", y)] {
            if t.format != v.format {
                return Err(Error::Invalid(format!(
                    "{}: the {name} operand is a {:?} texture, the method needs {:?}",
                    v.name, t.format, v.format
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
        let b = block_size(ctx, block)?;
        let engine = Engine::new(ctx, v, x, y, x.cols, b, Accumulate::PingPong)?;
        Ok(Self {
            engine,
            passes: x.cols.div_ceil(b as usize),
        })
    }

    /// The number of passes the product takes.
    pub fn passes(&self) -> usize {
        self.passes
    }

    /// Record every pass into `work` (one command buffer); returns the texture that holds the
    /// product once the work has run. Nothing is submitted here.
    pub fn record(self, ctx: &GpuContext, work: &mut Work) -> Result<MatrixTexture> {
        Ok(self.engine.record(ctx, work, None, false)?.result)
    }
}

/// Record `target ← min(target, 1)` into `work` (one command buffer of the compute phase): a
/// quad of colour 1 blended with Min into the texture, which keeps the entries of a boolean
/// product 0/1 where its sums are path counts (f16, f32). Building the pipeline is setup
/// ([`Work::setup_ms`]). Nothing is submitted here.
pub fn record_clamp(ctx: &GpuContext, target: &MatrixTexture, work: &mut Work) -> Result<()> {
    let t = Instant::now();
    let pipeline = clamp_pipeline(ctx, target.format)?;
    work.setup_ms += ms(t);
    let commands = ctx.scoped("recording the min(F, 1) clamp pass", || {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("reach clamp"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &target.view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.draw(0..4, 0..1);
        }
        Ok(enc.finish())
    })?;
    work.push(commands, Phase::Compute);
    Ok(())
}

/// The clamp pipeline: a quad of colour 1 blended with Min into a `format` framebuffer, built
/// once per context and format (`gpu::cache`).
fn clamp_pipeline(
    ctx: &GpuContext,
    format: wgpu::TextureFormat,
) -> Result<std::sync::Arc<wgpu::RenderPipeline>> {
    ctx.pipelines
        .get_or_build(&("reach clamp", format), || build_clamp(ctx, format))
}

fn build_clamp(ctx: &GpuContext, format: wgpu::TextureFormat) -> Result<wgpu::RenderPipeline> {
    let module = ctx.shader("reach_clamp.wgsl", CLAMP_SHADER)?;
    let write_mask = crate::gpu::pipeline::write_mask(format.components() as usize);
    ctx.scoped("building the clamp pipeline", || {
        let min = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Min,
        };
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("reach clamp"),
                bind_group_layouts: &[],
                immediate_size: 0,
            });
        Ok(crate::gpu::pipeline::fullscreen(
            &ctx.device,
            "reach clamp",
            Some(&layout),
            &module,
            "vs_main",
            wgpu::PrimitiveTopology::TriangleStrip,
            "fs_main",
            &[Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState {
                    color: min,
                    alpha: min,
                }),
                write_mask,
            })],
        ))
    })
}
