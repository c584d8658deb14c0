//! The canvas: a multiply's matrices and its running sum drawn with `shaders/demo.wgsl`, the WGSL
//! of `rendermm demo` (its background and panel pipelines, the same colour maps: diverging blue <
//! 0 < red, the paper's grey ramp in u8, the 2×2 channel hues of Hall's packing).
//!
//! Not `src/demo/render.rs` itself: that renderer draws a native `DemoState` (a stepper thread,
//! the CPU font rasterizer), which does not build for the browser yet. This is the small wgpu
//! pass docs/web.md names in its place: the same shader and bind-group layout, panels laid out
//! here, captions in the page's HTML instead of the shader's text mask.

use rendermm::error::Result;
use rendermm::gpu::GpuContext;
use rendermm::gpu::pipeline::{texture_entry, uniform_entry};
use rendermm::gpu::texture::MatrixTexture;

const SHADER: &str = include_str!("../../shaders/demo.wgsl");
const MAX_PANELS: usize = 8;
const MAX_QUADS: usize = 128;

/// `Globals` of demo.wgsl (same layout as src/demo/render.rs's).
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    screen: [f32; 4],
    mode: [u32; 4],
    dims: [u32; 4],
    scales: [f32; 4],
}

/// `Panel` of demo.wgsl.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct GpuPanel {
    rect: [f32; 4],
    what: [u32; 4],
    band: [u32; 4],
    look: [f32; 4],
    frame: [f32; 4],
}

/// How demo.wgsl draws a panel (`Panel.what.x`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Look {
    /// Each element's value.
    Matrix = 0,
    /// Slice p of L-M: A[i][p]·B[p][j], computed from A and B.
    Slice = 1,
    /// An RGBA texture's texels, channels in the 2×2 quadrant arrangement (Hall §4).
    Packed = 2,
    /// A packed texture shown unpacked (eq. 8 backwards).
    Unpacked = 3,
}

/// Which bound texture a panel reads (`Panel.what.y`, demo.wgsl's `load`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Source {
    A = 0,
    B = 1,
    /// The running sum of the pass shown.
    Shown = 2,
}

/// A highlighted band of columns or rows: (first, count).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Band {
    None,
    Columns(u32, u32),
    Rows(u32, u32),
}

/// One picture on the canvas.
#[derive(Clone, Debug)]
pub struct Panel {
    pub look: Look,
    pub source: Source,
    pub rows: u32,
    pub cols: u32,
    pub band: Band,
    /// L-M slice index (0-based) for [`Look::Slice`].
    pub slice: u32,
    /// Colour scale (± this is full colour).
    pub scale: f32,
    /// Caption under the picture (HTML).
    pub caption: String,
}

/// The textures a frame reads.
pub struct Scene {
    pub a: MatrixTexture,
    pub b: MatrixTexture,
    pub packed_a: MatrixTexture,
    pub packed_b: MatrixTexture,
    /// The running sum shown (a copy of a pass's accumulation texture, or the result).
    pub shown: wgpu::Texture,
    pub m: u32,
    pub k: u32,
    pub n: u32,
    /// The 8-bit pipeline: grey ramp, slice products in 8-bit steps.
    pub u8_mode: bool,
}

pub struct Renderer {
    bind_layout: wgpu::BindGroupLayout,
    background: wgpu::RenderPipeline,
    panels: wgpu::RenderPipeline,
    globals: wgpu::Buffer,
    panel_buffer: wgpu::Buffer,
    quads: wgpu::Buffer,
    /// demo.wgsl's text mask: empty here (captions are HTML).
    text: wgpu::Texture,
    pub format: wgpu::TextureFormat,
}

impl Renderer {
    pub fn new(ctx: &GpuContext, format: wgpu::TextureFormat) -> Result<Self> {
        let module = ctx.shader("demo.wgsl", SHADER)?;
        ctx.scoped("building the page's renderer", || {
            let dev = &ctx.device;
            let mut entries = vec![uniform_entry(0), uniform_entry(1), uniform_entry(2)];
            entries.extend((3..=9).map(texture_entry));
            let bind_layout = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("page frame"),
                entries: &entries,
            });
            let layout = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("page frame"),
                bind_group_layouts: &[Some(&bind_layout)],
                immediate_size: 0,
            });
            let make = |label: &str, vs: &str, fs: &str| {
                dev.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some(label),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module: &module,
                        entry_point: Some(vs),
                        compilation_options: Default::default(),
                        buffers: &[],
                    },
                    primitive: wgpu::PrimitiveState::default(),
                    depth_stencil: None,
                    multisample: Default::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &module,
                        entry_point: Some(fs),
                        compilation_options: Default::default(),
                        targets: &[Some(wgpu::ColorTargetState {
                            format,
                            blend: None,
                            write_mask: wgpu::ColorWrites::ALL,
                        })],
                    }),
                    multiview_mask: None,
                    cache: None,
                })
            };
            let buffer = |label: &str, size: usize| {
                dev.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: size as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            };
            let text = dev.create_texture(&wgpu::TextureDescriptor {
                label: Some("page text mask (empty)"),
                size: wgpu::Extent3d {
                    width: 1,
                    height: 1,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::R8Unorm,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            });
            ctx.queue.write_texture(
                text.as_image_copy(),
                &[0u8],
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: None,
                    rows_per_image: None,
                },
                text.size(),
            );
            Ok(Self {
                background: make("page background", "vs_background", "fs_background"),
                panels: make("page panels", "vs_panel", "fs_panel"),
                globals: buffer("page globals", size_of::<Globals>()),
                panel_buffer: buffer("page panels", MAX_PANELS * size_of::<GpuPanel>()),
                quads: buffer("page quads", MAX_QUADS * 64),
                bind_layout,
                text,
                format,
            })
        })
    }

    /// Draw `panels` of `scene` into `target` (`width`×`height` pixels), laid out in a row with
    /// square cells; returns each panel's rectangle (x, y, w, h) for the captions.
    pub fn draw(
        &self,
        ctx: &GpuContext,
        scene: &Scene,
        panels: &[Panel],
        target: &wgpu::TextureView,
        (width, height): (u32, u32),
    ) -> Result<Vec<[f32; 4]>> {
        let rects = layout(panels, width, height);
        let globals = Globals {
            view_proj: [[0.0; 4]; 4],
            screen: [width as f32, height as f32, 0.0, 0.0],
            mode: [
                scene.u8_mode as u32,
                self.format.is_srgb() as u32,
                if scene.u8_mode { 255 } else { 0 },
                1,
            ],
            dims: [scene.m, scene.k, scene.n, panels.len() as u32],
            scales: [1.0; 4],
        };
        let mut gpu = [bytemuck::Zeroable::zeroed(); MAX_PANELS];
        for ((g, p), r) in gpu.iter_mut().zip(panels).zip(&rects) {
            let (axis, first, count) = match p.band {
                Band::None => (0, 0, 0),
                Band::Columns(f, c) => (1, f, c),
                Band::Rows(f, c) => (2, f, c),
            };
            *g = GpuPanel {
                rect: *r,
                what: [p.look as u32, p.source as u32, p.rows, p.cols],
                band: [axis, first, count, p.slice],
                look: [p.scale, 0.0, 2.0, 0.0],
                frame: [0.0; 4],
            };
        }
        let count = panels.len().min(MAX_PANELS) as u32;
        ctx.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
        ctx.queue
            .write_buffer(&self.panel_buffer, 0, bytemuck::cast_slice(&gpu));
        let views: Vec<wgpu::TextureView> = [
            &scene.a.texture,
            &scene.b.texture,
            &scene.shown,
            &scene.shown,
            &scene.packed_a.texture,
            &scene.packed_b.texture,
            &self.text,
        ]
        .iter()
        .map(|t| t.create_view(&Default::default()))
        .collect();
        ctx.scoped("drawing a frame of the page", || {
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.globals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: self.panel_buffer.as_entire_binding(),
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
            let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("page frame"),
                layout: &self.bind_layout,
                entries: &entries,
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("page frame"),
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
                pass.set_bind_group(0, &group, &[]);
                pass.set_pipeline(&self.background);
                pass.draw(0..3, 0..1);
                if count > 0 {
                    pass.set_pipeline(&self.panels);
                    pass.draw(0..6, 0..count);
                }
            }
            ctx.queue.submit([enc.finish()]);
            Ok(())
        })?;
        Ok(rects)
    }
}

/// Panels in a row, centred, with square cells of one size for all (at most 28 px), a gap of
/// 24 px between them and room for the captions below.
fn layout(panels: &[Panel], width: u32, height: u32) -> Vec<[f32; 4]> {
    let (w, h) = (width as f32, height as f32);
    let gap = 24.0;
    let margin = 16.0;
    let total_cols: f32 = panels.iter().map(|p| p.cols as f32).sum();
    let max_rows = panels.iter().map(|p| p.rows).max().unwrap_or(1) as f32;
    let free_w = w - 2.0 * margin - gap * (panels.len().saturating_sub(1)) as f32;
    let free_h = h - 2.0 * margin;
    let cell = (free_w / total_cols.max(1.0))
        .min(free_h / max_rows)
        .min(28.0)
        .max(0.25);
    let used: f32 = total_cols * cell + gap * (panels.len().saturating_sub(1)) as f32;
    let mut x = ((w - used) / 2.0).max(0.0).floor();
    panels
        .iter()
        .map(|p| {
            let (pw, ph) = (
                (p.cols as f32 * cell).max(1.0),
                (p.rows as f32 * cell).max(1.0),
            );
            let y = ((h - ph) / 2.0).floor();
            let r = [x, y, pw, ph];
            x += (pw + gap).floor();
            r
        })
        .collect()
}

/// A texture to hold a copy of `acc` (same size and format), readable by the shader.
pub fn snapshot_texture(ctx: &GpuContext, acc: &MatrixTexture) -> Result<wgpu::Texture> {
    ctx.scoped("copying a pass for the canvas", || {
        let t = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("page pass snapshot"),
            size: acc.texture.size(),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: acc.format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_texture(
            acc.texture.as_image_copy(),
            t.as_image_copy(),
            acc.texture.size(),
        );
        ctx.queue.submit([enc.finish()]);
        Ok(t)
    })
}

/// The offscreen frame a page's canvas shows: `size`, `format`, drawn into and read back.
pub fn frame_texture(
    ctx: &GpuContext,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
) -> Result<wgpu::Texture> {
    ctx.scoped("creating the page's frame", || {
        Ok(ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("page frame"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        }))
    })
}
