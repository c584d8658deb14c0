//! One run of the powers on the GPU: the textures, the multiply, clamp and copy of each product,
//! and the timings of each step.

use super::{Breakdown, CLAMP_SHADER, Layout, ReachOptions, Step, Transfer, ms};
use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::readback::blocking::map_read;
use crate::gpu::run::Work;
use crate::gpu::submit::{submit, submit_and_wait};
use crate::gpu::texture::INPUT_USAGE;
use crate::gpu::texture::MatrixTexture;
use crate::gpu::texture::ScalarFormat;
use crate::gpu::texture::TARGET_USAGE;
use crate::gpu::texture::extent;
use crate::matrix::Matrix;
use crate::methods::hall_packed;
use crate::methods::larsen_mcallister::Pipeline;
use crate::methods::resident::HallProduct;
use crate::precision::Precision;
use std::time::Instant;

/// The textures and pipelines of one chain of products.
pub(super) struct Run<'c> {
    pub(super) ctx: &'c GpuContext,
    pub(super) layout: Layout,
    pub(super) precision: Precision,
    pub(super) block: Option<u32>,
    pub(super) transfer: Transfer,
    /// M, never overwritten.
    pub(super) base: MatrixTexture,
    /// R, the running power, filled by copies from F.
    pub(super) input: MatrixTexture,
    /// F, the framebuffer of the last product (L-M: one texture reused; Hall: each product's).
    pub(super) fb: Option<MatrixTexture>,
    /// L-M pipelines bound to (M, M), (R, R) and (R, M).
    pub(super) lm: [Option<Pipeline>; 3],
    pub(super) clamp: Option<wgpu::RenderPipeline>,
    pub(super) stamps: Option<Stamps>,
    /// Whether R still equals M (no copy yet), so products read M.
    pub(super) input_is_base: bool,
    /// Whether F holds the latest product.
    pub(super) fb_fresh: bool,
    pub(super) passes_per_product: usize,
    pub(super) n: usize,
    pub(super) t: Breakdown,
}

impl<'c> Run<'c> {
    pub(super) fn new(
        ctx: &'c GpuContext,
        layout: Layout,
        precision: Precision,
        opts: &ReachOptions,
        m: &Matrix,
        copies: usize,
    ) -> Result<Self> {
        let n = m.rows;
        let t0 = Instant::now();
        let base = match layout {
            Layout::Lm => MatrixTexture::upload_channels(ctx, "M = I + A", &[m], precision)?,
            Layout::Blocked => MatrixTexture::upload(ctx, "M = I + A", m, ScalarFormat::R32Float)?,
            Layout::Packed => hall_packed::upload_packed(ctx, "M = I + A (packed)", m)?,
        };
        ctx.wait()?;
        let load_ms = ms(t0);

        let t1 = Instant::now();
        let input = MatrixTexture::new(
            ctx,
            "R (power)",
            base.rows,
            base.cols,
            base.format,
            INPUT_USAGE,
        )?;
        let fb = match layout {
            Layout::Lm => Some(MatrixTexture::new(
                ctx,
                "F (framebuffer)",
                n,
                n,
                base.format,
                TARGET_USAGE,
            )?),
            _ => None,
        };
        let clamp = if precision == Precision::U8 {
            None
        } else {
            Some(clamp_pipeline(ctx, base.format)?)
        };
        let stamps = match opts.transfer {
            Transfer::GpuCopy => Stamps::new(ctx, copies),
            Transfer::HostRoundTrip => None,
        };
        ctx.wait()?;
        let passes_per_product = match layout {
            Layout::Lm => n,
            _ => base.cols.div_ceil(
                opts.block
                    .unwrap_or(crate::methods::hall_blocked::DEFAULT_BLOCK)
                    .max(1) as usize,
            ),
        };
        Ok(Self {
            ctx,
            layout,
            precision,
            block: opts.block,
            transfer: opts.transfer,
            base,
            input,
            fb,
            lm: [None, None, None],
            clamp,
            stamps,
            input_is_base: true,
            fb_fresh: false,
            passes_per_product,
            n,
            t: Breakdown {
                load_ms,
                setup_ms: ms(t1),
                ..Default::default()
            },
        })
    }

    /// One product into F, then the clamp if the precision needs it.
    pub(super) fn product(&mut self, step: Step) -> Result<()> {
        let ctx = self.ctx;
        let x_is_base = self.input_is_base;
        let y_is_base = match step {
            Step::Square => self.input_is_base,
            Step::TimesBase => true,
        };
        let Run {
            base,
            input,
            fb,
            lm,
            t,
            ..
        } = self;
        let pick = |is_base: bool| if is_base { &*base } else { &*input };
        let (x, y) = (pick(x_is_base), pick(y_is_base));
        match self.layout {
            Layout::Lm => {
                let slot = match (x_is_base, y_is_base) {
                    (true, true) => 0,
                    (false, false) => 1,
                    _ => 2,
                };
                let target = fb
                    .as_ref()
                    .ok_or_else(|| Error::Internal("L-M framebuffer missing".into()))?;
                if lm[slot].is_none() {
                    let t0 = Instant::now();
                    lm[slot] = Some(Pipeline::new(
                        ctx,
                        x,
                        y,
                        target.format,
                        1,
                        1,
                        self.precision,
                    )?);
                    ctx.wait()?;
                    t.setup_ms += ms(t0);
                }
                let pipeline = lm[slot]
                    .as_ref()
                    .ok_or_else(|| Error::Internal("L-M pipeline missing".into()))?;
                let t1 = Instant::now();
                let pass = pipeline.encode(ctx, target, 0..x.cols as u32, true)?;
                submit_and_wait(ctx, [pass])?;
                t.multiply_ms += ms(t1);
            }
            Layout::Blocked | Layout::Packed => {
                let t0 = Instant::now();
                let prepared = if self.layout == Layout::Blocked {
                    HallProduct::blocked(ctx, x, y, self.block)?
                } else {
                    HallProduct::packed(ctx, x, y, self.block)?
                };
                ctx.wait()?;
                t.setup_ms += ms(t0);
                // The product's passes, recorded and then run (submitted and waited for) here.
                let t1 = Instant::now();
                let mut product = None;
                crate::gpu::run::run(ctx, None, || {
                    let mut work = Work::new(prepared.passes());
                    product = Some(prepared.record(ctx, &mut work)?);
                    Ok(work)
                })?;
                *fb = product;
                t.multiply_ms += ms(t1);
            }
        }
        self.t.products += 1;
        self.fb_fresh = true;
        self.clamp_pass()
    }

    /// The clamp `F ← min(F, 1)` after a product, in the precisions that need it (f16, f32).
    fn clamp_pass(&mut self) -> Result<()> {
        let ctx = self.ctx;
        let Some(pipeline) = &self.clamp else {
            return Ok(());
        };
        let target = self
            .fb
            .as_ref()
            .ok_or_else(|| Error::Internal("framebuffer missing".into()))?;
        let t2 = Instant::now();
        ctx.scoped("the min(F, 1) clamp pass", || {
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
                pass.set_pipeline(pipeline);
                pass.draw(0..4, 0..1);
            }
            submit(ctx, [enc.finish()]);
            Ok(())
        })?;
        ctx.wait()?;
        self.t.clamp_ms += ms(t2);
        Ok(())
    }

    /// The paper's "Copy": F into R, inside GPU memory (or through the host, for comparison).
    pub(super) fn copy_into_input(&mut self) -> Result<()> {
        let ctx = self.ctx;
        let Run {
            fb, input, stamps, ..
        } = self;
        let fb = fb
            .as_ref()
            .ok_or_else(|| Error::Internal("nothing to copy: no product yet".into()))?;
        let t0 = Instant::now();
        match self.transfer {
            Transfer::GpuCopy => {
                ctx.scoped("the framebuffer-to-texture copy", || {
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    enc.copy_texture_to_texture(
                        fb.texture.as_image_copy(),
                        input.texture.as_image_copy(),
                        extent(fb.rows, fb.cols),
                    );
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    submit(ctx, [enc.finish()]);
                    Ok(())
                })?;
            }
            Transfer::HostRoundTrip => {
                let bytes = fb.read_bytes(ctx)?;
                input.write_bytes(ctx, &bytes)?;
            }
        }
        ctx.wait()?;
        self.t.copy_ms += ms(t0);
        self.t.copies += 1;
        self.input_is_base = false;
        self.fb_fresh = false;
        Ok(())
    }

    /// Read the final product back from the framebuffer (M itself if there were no products).
    pub(super) fn read_back(&mut self) -> Result<Matrix> {
        let ctx = self.ctx;
        let tex = match (&self.fb, self.fb_fresh) {
            (Some(fb), true) => fb,
            _ if self.input_is_base => &self.base,
            _ => &self.input,
        };
        let t0 = Instant::now();
        let m = match self.layout {
            Layout::Lm => tex.read_channels(ctx, self.precision, 1)?.remove(0),
            Layout::Blocked => tex.read_matrix(ctx)?,
            Layout::Packed => hall_packed::read_unpacked(ctx, tex, self.n, self.n)?,
        };
        self.t.readback_ms += ms(t0);
        if let Some(idx) = m.data.iter().position(|&v| v != 0.0 && v != 1.0) {
            return Err(Error::Invalid(format!(
                "the GPU returned {} at ({}, {}) where every entry should be 0 or 1",
                m.data[idx],
                idx / m.cols,
                idx % m.cols
            )));
        }
        Ok(m)
    }
}

/// The clamp pipeline: a quad of colour 1 blended with Min into a `format` framebuffer.
pub(super) fn clamp_pipeline(
    ctx: &GpuContext,
    format: wgpu::TextureFormat,
) -> Result<wgpu::RenderPipeline> {
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

/// GPU timestamps before and after each copy.
pub(super) struct Stamps {
    pub(super) set: wgpu::QuerySet,
    pub(super) next: u32,
    pub(super) capacity: u32,
}

impl Stamps {
    /// Room for `copies` copies, if there are any and the adapter writes timestamps inside
    /// encoders.
    pub(super) fn new(ctx: &GpuContext, copies: usize) -> Option<Self> {
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        let capacity = 2 * copies as u32;
        if copies == 0 || capacity > wgpu::QUERY_SET_MAX_QUERIES || !ctx.has(needed) {
            return None;
        }
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("reach copy timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: capacity,
        });
        Some(Self {
            set,
            next: 0,
            capacity,
        })
    }

    pub(super) fn stamp(&mut self, enc: &mut wgpu::CommandEncoder) {
        if self.next < self.capacity {
            enc.write_timestamp(&self.set, self.next);
            self.next += 1;
        }
    }

    /// Sum of (after − before) over the copies, in milliseconds.
    pub(super) fn read_ms(&self, ctx: &GpuContext) -> Result<f64> {
        let count = self.next - self.next % 2;
        if count == 0 {
            return Ok(0.0);
        }
        let bytes = count as u64 * 8;
        let ticks: Vec<u64> = ctx.scoped("reading the copy timestamps", || {
            let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps readback"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.resolve_query_set(&self.set, 0..count, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, bytes);
            submit(ctx, [enc.finish()]);
            map_read(ctx, &read, bytemuck::pod_collect_to_vec)
        })?;
        let period_ns = ctx.queue.get_timestamp_period() as f64;
        let ns: f64 = ticks
            .chunks_exact(2)
            .map(|p| p[1].saturating_sub(p[0]) as f64 * period_ns)
            .sum();
        Ok(ns / 1e6)
    }
}
