//! The one renderer behind the window, the headless frames, the screenshots and the web page: it
//! draws a [`Frame`] into any texture view with wgpu (`shaders/demo.wgsl`). Drawing records and
//! submits; it never waits on the device, so it runs in a browser as it does natively. Frames are
//! read back blocking natively ([`Renderer::render_image`]) and awaited in a browser
//! ([`read_frame`], through the runner's readback).

use super::cube::{self, Quad};
use super::layout::{self, Band, Layout};
use super::scene::Frame;
use crate::draw::font::{self, Mask};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::pipeline::{texture_entry, uniform_entry};
use crate::gpu::submit::submit;
#[cfg(feature = "internals")]
use crate::gpu::texture::MatrixTexture;
use crate::precision::Precision;
use glam::Vec3;
use std::collections::HashMap;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/demo.wgsl"));
const MAX_PANELS: usize = 8;
const MAX_QUADS: usize = 128;
/// The format of offscreen frames (PNG, GIF, screenshots).
pub const OFFSCREEN_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    screen: [f32; 4],
    mode: [u32; 4],
    dims: [u32; 4],
    scales: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuPanel {
    rect: [f32; 4],
    what: [u32; 4],
    band: [u32; 4],
    look: [f32; 4],
    frame: [f32; 4],
}

struct Pipelines {
    background: wgpu::RenderPipeline,
    text: wgpu::RenderPipeline,
    panels: wgpu::RenderPipeline,
    cube: wgpu::RenderPipeline,
}

/// The text mask, its size, and the labels and font scale it was drawn from.
type TextMask = (wgpu::Texture, (u32, u32), Vec<layout::Label>, u32);

/// The textures a bind group binds (A, B, the two shown, packed A and B, the text mask).
type Bound = [wgpu::Texture; 7];

/// Draws demo frames. Pipelines are made per target format on first use.
pub struct Renderer {
    module: wgpu::ShaderModule,
    bind_layout: wgpu::BindGroupLayout,
    pipeline_layout: wgpu::PipelineLayout,
    pipelines: HashMap<wgpu::TextureFormat, Pipelines>,
    globals: wgpu::Buffer,
    panels: wgpu::Buffer,
    quads: wgpu::Buffer,
    /// The text mask, its size, and the labels and font scale it holds.
    text: Option<TextMask>,
    /// The bind group and the textures it binds.
    bind_group: Option<(Bound, wgpu::BindGroup)>,
}

/// The cube's quads and camera, and labels where its faces land on screen (none without a
/// cube in the layout).
fn cube_quads(
    frame: &Frame,
    lay: &mut Layout,
    (m, k, n): (usize, usize, usize),
) -> (Vec<Quad>, glam::Mat4) {
    let Some(r) = lay.cube else {
        return (vec![], glam::Mat4::IDENTITY);
    };
    let view_proj = frame.camera.view_proj(r.w / r.h);
    let mut quads = cube::quads(m, k, n, frame.pass, frame.anim, frame.camera.eye(r.w / r.h));
    quads.truncate(MAX_QUADS);
    let e = cube::extent(m, k, n);
    let spots = [
        (
            Vec3::new(e.x * 0.5, -e.y * 0.5, 0.0),
            "C (front face)".to_string(),
        ),
        (Vec3::new(0.0, -e.y * 0.5, -e.z * 0.5), format!("A {m}×{k}")),
        (Vec3::new(e.x * 0.5, 0.0, -e.z * 0.5), format!("B {k}×{n}")),
    ];
    for (at, text) in spots {
        if let Some((x, y)) = cube::project(view_proj, at, r.w, r.h) {
            let tw = font::text_width(&text, lay.text_scale) as f32;
            lay.labels.push(layout::Label {
                x: (r.x + x - tw / 2.0) as i32,
                y: (r.y + y) as i32,
                text,
            });
        }
    }
    (quads, view_proj)
}

/// The frame's uniforms: the camera, the screen, the number format and the scales.
fn globals(
    frame: &Frame,
    lay: &Layout,
    view_proj: glam::Mat4,
    format: wgpu::TextureFormat,
    (width, height): (u32, u32),
) -> Globals {
    let scene = frame.scene;
    let (m, k, n) = scene.shape();
    let precision = scene.precision;
    let u8_mode = precision == Precision::U8;
    let depth = if scene.settings.scale_by_depth && u8_mode {
        k as u32
    } else {
        1
    };
    Globals {
        view_proj: view_proj.to_cols_array_2d(),
        screen: [width as f32, height as f32, 0.0, 0.0],
        mode: [
            u8_mode as u32,
            format.is_srgb() as u32,
            if u8_mode { 255 } else { 0 },
            depth,
        ],
        dims: [
            m as u32,
            k as u32,
            n as u32,
            (lay.panels.len() + lay.bars.len()) as u32,
        ],
        scales: [
            scene.scales.a,
            scene.scales.b,
            scene.scales.slice,
            scene.scales.c,
        ],
    }
}

/// The panels and colour bars as the shader reads them.
fn gpu_panels(lay: &Layout) -> [GpuPanel; MAX_PANELS] {
    let s = lay.text_scale as f32;
    let mut panels = [GpuPanel::zeroed(); MAX_PANELS];
    for (g, p) in panels.iter_mut().zip(lay.panels.iter().chain(&lay.bars)) {
        let (axis, first, count) = match p.band {
            Band::None => (0, 0, 0),
            Band::Columns(f, c) => (1, f, c),
            Band::Rows(f, c) => (2, f, c),
        };
        *g = GpuPanel {
            rect: [p.rect.x, p.rect.y, p.rect.w, p.rect.h],
            what: [p.look as u32, p.source as u32, p.rows, p.cols],
            band: [axis, first, count, p.slice],
            look: [
                p.scale,
                if p.frame.is_some() { 4.0 * s } else { 0.0 },
                s,
                0.0,
            ],
            frame: p.frame.map_or([0.0; 4], |c| [c[0], c[1], c[2], 1.0]),
        };
    }
    panels
}

impl Renderer {
    pub fn new(ctx: &GpuContext) -> Result<Self> {
        font::check()?;
        let module = ctx.shader("demo.wgsl", SHADER)?;
        ctx.scoped("building the demo renderer", || {
            let dev = &ctx.device;
            let mut entries = vec![uniform_entry(0), uniform_entry(1), uniform_entry(2)];
            entries.extend((3..=9).map(texture_entry));
            let bind_layout = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("demo"),
                entries: &entries,
            });
            let pipeline_layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("demo"),
                bind_group_layouts: &[Some(&bind_layout)],
                immediate_size: 0,
            });
            let buffer = |label: &str, size: usize| {
                dev.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            Ok(Self {
                globals: buffer("demo globals", size_of::<Globals>()),
                panels: buffer("demo panels", MAX_PANELS * size_of::<GpuPanel>()),
                quads: buffer("demo quads", MAX_QUADS * size_of::<Quad>()),
                module,
                bind_layout,
                pipeline_layout,
                pipelines: HashMap::new(),
                text: None,
                bind_group: None,
            })
        })
    }

    fn pipelines(&mut self, ctx: &GpuContext, format: wgpu::TextureFormat) -> Result<()> {
        if self.pipelines.contains_key(&format) {
            return Ok(());
        }
        let p = ctx.scoped(
            &format!("building the demo pipelines for {format:?}"),
            || {
                let make = |label: &str, vs: &str, fs: &str, blend: Option<wgpu::BlendState>| {
                    ctx.device
                        .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                            label: Some(label),
                            layout: Some(&self.pipeline_layout),
                            vertex: wgpu::VertexState {
                                module: &self.module,
                                entry_point: Some(vs),
                                compilation_options: Default::default(),
                                buffers: &[],
                            },
                            primitive: wgpu::PrimitiveState::default(),
                            depth_stencil: None,
                            multisample: Default::default(),
                            fragment: Some(wgpu::FragmentState {
                                module: &self.module,
                                entry_point: Some(fs),
                                compilation_options: Default::default(),
                                targets: &[Some(wgpu::ColorTargetState {
                                    format,
                                    blend,
                                    write_mask: wgpu::ColorWrites::ALL,
                                })],
                            }),
                            multiview_mask: None,
                            cache: None,
                        })
                };
                Ok(Pipelines {
                    background: make("demo background", "vs_background", "fs_background", None),
                    text: make(
                        "demo text",
                        "vs_background",
                        "fs_text",
                        Some(wgpu::BlendState::ALPHA_BLENDING),
                    ),
                    panels: make("demo panels", "vs_panel", "fs_panel", None),
                    cube: make(
                        "demo cube",
                        "vs_cube",
                        "fs_cube",
                        Some(wgpu::BlendState::ALPHA_BLENDING),
                    ),
                })
            },
        )?;
        self.pipelines.insert(format, p);
        Ok(())
    }

    /// Draw `frame` into `target` (`format`, `width`×`height`).
    pub fn draw(
        &mut self,
        ctx: &GpuContext,
        frame: &Frame,
        target: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        (width, height): (u32, u32),
    ) -> Result<()> {
        self.pipelines(ctx, format)?;
        let scene = frame.scene;
        let view = frame.view();
        let mut lay = layout::layout(&view, width, height);
        let (m, k, n) = scene.shape();

        let (quads, view_proj) = cube_quads(frame, &mut lay, (m, k, n));

        let globals = globals(frame, &lay, view_proj, format, (width, height));
        let panels = gpu_panels(&lay);
        ctx.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        ctx.queue
            .write_buffer(&self.panels, 0, bytemuck::cast_slice(&panels));
        if !quads.is_empty() {
            ctx.queue
                .write_buffer(&self.quads, 0, bytemuck::cast_slice(&quads));
        }
        self.update_text(ctx, &lay, (width, height))?;
        self.update_bind_group(ctx, frame)?;

        let pipelines = &self.pipelines[&format];
        let bind_group = &self
            .bind_group
            .as_ref()
            .ok_or_else(|| {
                crate::error::Error::Internal(
                    "a demo frame drawn before its bind group was made".into(),
                )
            })?
            .1;
        ctx.scoped("drawing a demo frame", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("demo frame"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: target,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::WHITE),
                            store: wgpu::StoreOp::Store,
                        },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                });
                pass.set_bind_group(0, bind_group, &[]);
                pass.set_pipeline(&pipelines.background);
                pass.draw(0..3, 0..1);
                let drawn = (lay.panels.len() + lay.bars.len()).min(MAX_PANELS) as u32;
                if drawn > 0 {
                    pass.set_pipeline(&pipelines.panels);
                    pass.draw(0..6, 0..drawn);
                }
                if let (Some(r), false) = (lay.cube, quads.is_empty()) {
                    pass.set_viewport(r.x, r.y, r.w, r.h, 0.0, 1.0);
                    pass.set_pipeline(&pipelines.cube);
                    pass.draw(0..6, 0..quads.len() as u32);
                    pass.set_viewport(0.0, 0.0, width as f32, height as f32, 0.0, 1.0);
                }
                pass.set_pipeline(&pipelines.text);
                pass.draw(0..3, 0..1);
            }
            submit(ctx, [enc.finish()]);
            Ok(())
        })
    }

    /// Rasterize the labels into the text mask when they (or the frame size) change.
    fn update_text(&mut self, ctx: &GpuContext, lay: &Layout, size: (u32, u32)) -> Result<()> {
        if let Some((_, s, labels, scale)) = &self.text
            && *s == size
            && *labels == lay.labels
            && *scale == lay.text_scale
        {
            return Ok(());
        }
        let mut mask = Mask::new(size.0, size.1);
        for l in &lay.labels {
            mask.text(l.x, l.y, &l.text, lay.text_scale);
        }
        let texture = match self.text.take() {
            Some((t, s, _, _)) if s == size => t,
            _ => ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("demo text"),
                size: wgpu::Extent3d {
                    width: size.0,
                    height: size.1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::R8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            }),
        };
        ctx.queue.write_texture(
            texture.as_image_copy(),
            &mask.data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size.0),
                rows_per_image: Some(size.1),
            },
            texture.size(),
        );
        self.text = Some((texture, size, lay.labels.clone(), lay.text_scale));
        Ok(())
    }

    fn update_bind_group(&mut self, ctx: &GpuContext, frame: &Frame) -> Result<()> {
        let t = &frame.scene.textures;
        let text = &self
            .text
            .as_ref()
            .ok_or_else(|| {
                crate::error::Error::Internal("a demo bind group made before its text mask".into())
            })?
            .0;
        let bound: Bound = [
            t.a.texture.clone(),
            t.b.texture.clone(),
            frame.shown[0].clone(),
            frame.shown[1].clone(),
            t.packed_a.clone(),
            t.packed_b.clone(),
            text.clone(),
        ];
        if self.bind_group.as_ref().is_some_and(|(b, _)| *b == bound) {
            return Ok(());
        }
        let views: Vec<wgpu::TextureView> = bound
            .iter()
            .map(|tex| tex.create_view(&Default::default()))
            .collect();
        let group = ctx.scoped("binding the demo textures", || {
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.globals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.panels.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: self.quads.as_entire_binding(),
                },
            ];
            entries.extend(views.iter().enumerate().map(|(i, v)| wgpu::BindGroupEntry {
                binding: 3 + i as u32,
                resource: wgpu::BindingResource::TextureView(v),
            }));
            Ok(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("demo"),
                layout: &self.bind_layout,
                entries: &entries,
            }))
        })?;
        self.bind_group = Some((bound, group));
        Ok(())
    }

    /// Draw `state` into `target` (`format`, `width`×`height`), with the key hints if `keys`
    /// and the status line (the error against the CPU once done) if `status`.
    #[cfg(feature = "native")]
    pub fn render(
        &mut self,
        state: &super::state::DemoState,
        target: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        keys: bool,
        status: bool,
    ) -> Result<()> {
        let ctx = state.ctx().clone();
        self.draw(&ctx, &state.frame(keys, status), target, format, size)
    }

    /// Draw `state` into a new offscreen texture and read it back as an image (blocking).
    #[cfg(feature = "native")]
    pub fn render_image(
        &mut self,
        state: &super::state::DemoState,
        size: (u32, u32),
        keys: bool,
        status: bool,
    ) -> Result<image::RgbaImage> {
        let ctx = state.ctx().clone();
        let texture = offscreen(&ctx, size)?;
        let view = texture.create_view(&Default::default());
        self.render(state, &view, OFFSCREEN_FORMAT, size, keys, status)?;
        read_image(&ctx, &texture)
    }
}

/// An offscreen `Rgba8Unorm` target of `size` that can be read back.
pub fn offscreen(ctx: &GpuContext, (w, h): (u32, u32)) -> Result<wgpu::Texture> {
    let max = ctx.limits.max_texture_dimension_2d;
    if w == 0 || h == 0 || w > max || h > max {
        return Err(Error::Invalid(format!(
            "frame size {w}x{h}: each side must be 1 to {max}"
        )));
    }
    ctx.scoped("creating an offscreen frame", || {
        Ok(ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("demo offscreen frame"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: OFFSCREEN_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        }))
    })
}

/// An offscreen frame as the runner reads textures back: `height` rows of `width` RGBA texels.
#[cfg(feature = "internals")]
fn as_matrix_texture(texture: &wgpu::Texture) -> MatrixTexture {
    MatrixTexture {
        texture: texture.clone(),
        view: texture.create_view(&Default::default()),
        rows: texture.height() as usize,
        cols: texture.width() as usize,
        format: texture.format(),
    }
}

/// Read an offscreen frame back without blocking, through the runner
/// ([`crate::gpu::readback::read_texture_bytes`]): its RGBA rows, tightly packed. Awaited in a
/// browser; the copy is recorded when the future is first polled, so draw the next frame into
/// another texture.
#[cfg(feature = "internals")]
pub async fn read_frame(ctx: &GpuContext, texture: &wgpu::Texture) -> Result<Vec<u8>> {
    let bytes = crate::gpu::readback::read_texture_bytes(ctx, &as_matrix_texture(texture)).await?;
    Ok(bytes.to_vec())
}

/// Read an offscreen frame back as an image (blocking; natively).
#[cfg(feature = "native")]
pub fn read_image(ctx: &GpuContext, texture: &wgpu::Texture) -> Result<image::RgbaImage> {
    let (w, h) = (texture.width(), texture.height());
    let bytes = crate::gpu::readback::blocking::read_texture_bytes(
        ctx, texture, h as usize, w as usize, 4,
    )?;
    image::RgbaImage::from_raw(w, h, bytes)
        .ok_or_else(|| Error::Readback("frame size does not match its bytes".into()))
}

use bytemuck::Zeroable;
