//! Larsen–McAllister (2001), "Fast Matrix Multiplies using Graphics Hardware", §3 and figure 2.
//!
//! The product is a picture of the processor cube seen from the front. One pass draws slice p:
//! a quad covering the m×n target, textured with column p of A replicated across it and row p of
//! B replicated down it; the fragment stage multiplies the two ("modulate", §2) and the blend
//! unit adds the product into the `R32Float` framebuffer (src·One + dst·One), so after pass p the
//! framebuffer holds `C_p = Σ_{q≤p} A[:,q] ⊗ B[q,:]`. k passes — one instanced draw of k
//! instances inside one render pass — give C = A·B, which is then read back from the
//! framebuffer. All additions happen in the blend unit, as in the paper.
//!
//! Shader: `shaders/larsen_mcallister.wgsl`.

use super::{Options, RunOutput, Timings};
use crate::error::Result;
use crate::gpu::texture::{MatrixTexture, ScalarFormat, TARGET_USAGE};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use std::time::Instant;

const SHADER: &str = include_str!("../../shaders/larsen_mcallister.wgsl");

/// Multiply `a · b` by k additively blended slices.
pub fn multiply(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &mut Options) -> Result<RunOutput> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    ctx.require(
        wgpu::Features::FLOAT32_BLENDABLE,
        "FLOAT32_BLENDABLE",
        "Larsen–McAllister needs to sum slices by additive blending into an R32Float framebuffer",
    )?;
    ctx.check_texture_dim("C width (n)", n)?;
    ctx.check_texture_dim("C height (m)", m)?;

    let t0 = Instant::now();
    let at = MatrixTexture::upload(ctx, "A", a, ScalarFormat::R32Float)?;
    let bt = MatrixTexture::upload(ctx, "B", b, ScalarFormat::R32Float)?;
    let target = MatrixTexture::new(ctx, "C (framebuffer)", m, n, wgpu::TextureFormat::R32Float, TARGET_USAGE)?;
    ctx.wait()?;
    let upload_ms = ms(t0);

    let t1 = Instant::now();
    let pipeline = Pipeline::new(ctx, &at, &bt)?;
    match opts.observer.as_deref_mut() {
        None => {
            // All k slices in one render pass: one instanced draw, instance p = slice p.
            pipeline.draw(ctx, &target, 0..k as u32, true)?;
            ctx.wait()?;
        }
        Some(obs) => {
            // One render pass per slice so the caller can look at C_p after each.
            for p in 0..k as u32 {
                pipeline.draw(ctx, &target, p..p + 1, p == 0)?;
                ctx.wait()?;
                obs.after_pass(ctx, p as usize + 1, k, &target)?;
            }
        }
    }
    let compute_ms = ms(t1);

    let t2 = Instant::now();
    let c = target.read_matrix(ctx)?;
    let readback_ms = ms(t2);
    Ok(RunOutput {
        c,
        passes: k,
        timings: Timings {
            upload_ms,
            compute_ms,
            copy_ms: 0.0,
            readback_ms,
        },
        notes: vec![format!("{k} additively blended slices into R32Float ({m}x{n} fragments each)")],
    })
}

/// The render pipeline and the bind group of one multiply.
pub struct Pipeline {
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
}

impl Pipeline {
    /// Build the additive-blend pipeline reading `a` and `b`.
    pub fn new(ctx: &GpuContext, a: &MatrixTexture, b: &MatrixTexture) -> Result<Self> {
        let module = ctx.shader("larsen_mcallister.wgsl", SHADER)?;
        ctx.scoped("building the Larsen–McAllister pipeline", || {
            let layout = ctx.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("lm"),
                entries: &[texture_entry(0), texture_entry(1)],
            });
            let pl = ctx.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("lm"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
            let additive = wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::One,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            };
            let pipeline = ctx.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("larsen_mcallister"),
                layout: Some(&pl),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleStrip,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: wgpu::TextureFormat::R32Float,
                        blend: Some(wgpu::BlendState {
                            color: additive,
                            alpha: additive,
                        }),
                        write_mask: wgpu::ColorWrites::RED,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            });
            let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("lm"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&a.view),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&b.view),
                    },
                ],
            });
            Ok(Self { pipeline, bind_group })
        })
    }

    /// Record and submit one render pass drawing the slices `slices` onto `target`, clearing it
    /// to zero first when `clear` is set.
    pub fn draw(&self, ctx: &GpuContext, target: &MatrixTexture, slices: std::ops::Range<u32>, clear: bool) -> Result<()> {
        ctx.scoped("the Larsen–McAllister render pass", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("larsen_mcallister slices"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &target.view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: if clear {
                                wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT)
                            } else {
                                wgpu::LoadOp::Load
                            },
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &self.bind_group, &[]);
                pass.draw(0..4, slices);
            }
            ctx.queue.submit([enc.finish()]);
            Ok(())
        })
    }
}

/// A bind-group entry for an unfilterable float texture read with `textureLoad`.
pub fn texture_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
