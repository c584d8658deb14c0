//! Where the demo's frames meet the page. The drawing is `rendermm::demo` itself — the renderer,
//! layout, labels and WGSL (`shaders/demo.wgsl`) of `rendermm demo` — into an offscreen texture;
//! this file only keeps the passes for the replay and puts each frame on the page's 2D canvas
//! once the runner's readback (awaited, never blocking) brings it back.

use rendermm::demo::render::{self, Renderer};
use rendermm::demo::scene::Frame;
use rendermm::error::Result;
use rendermm::gpu::GpuContext;
use rendermm::gpu::texture::MatrixTexture;
use std::cell::Cell;
use std::rc::Rc;

/// The page's 2D canvas, which shows the frames the renderer draws offscreen.
pub struct Screen {
    pub ctx: Rc<GpuContext>,
    pub canvas2d: web_sys::CanvasRenderingContext2d,
    pub size: (u32, u32),
    /// Frames drawn but not yet on the page (their readback is under way).
    pub pending: Rc<Cell<usize>>,
}

impl Screen {
    /// Draw `frame` into a new offscreen texture and put it on the canvas when its readback
    /// arrives; nothing waits for it. Each frame has its own texture, so the next can be drawn
    /// while this one is read.
    pub fn show(&self, renderer: &mut Renderer, frame: &Frame) -> Result<()> {
        let ctx = self.ctx.clone();
        let target = render::offscreen(&ctx, self.size)?;
        let view = target.create_view(&Default::default());
        renderer.draw(&ctx, frame, &view, render::OFFSCREEN_FORMAT, self.size)?;
        self.pending.set(self.pending.get() + 1);
        let (pending, canvas2d, (w, h)) = (self.pending.clone(), self.canvas2d.clone(), self.size);
        wasm_bindgen_futures::spawn_local(async move {
            let bytes = render::read_frame(&ctx, &target).await;
            pending.set(pending.get().saturating_sub(1));
            if let Ok(bytes) = bytes
                && let Ok(image) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
                    wasm_bindgen::Clamped(&bytes[..]),
                    w,
                    h,
                )
            {
                let _ = canvas2d.put_image_data(&image, 0.0, 0.0);
            }
        });
        Ok(())
    }
}

/// A copy of `acc` (same size and format) that the renderer can read: a pass kept for the
/// replay.
pub fn snapshot_texture(ctx: &GpuContext, acc: &MatrixTexture) -> Result<wgpu::Texture> {
    let t = blank_like(ctx, acc)?;
    ctx.scoped("copying a pass for the canvas", || {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_texture(
            acc.texture.as_image_copy(),
            t.as_image_copy(),
            acc.texture.size(),
        );
        ctx.queue.submit([enc.finish()]);
        Ok(())
    })?;
    Ok(t)
}

/// A zeroed texture of `acc`'s size and format: the running sum before the first pass (what a
/// ping-pong method's first pass reads).
pub fn blank_like(ctx: &GpuContext, acc: &MatrixTexture) -> Result<wgpu::Texture> {
    ctx.scoped("creating a pass snapshot", || {
        Ok(ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("page pass snapshot"),
            size: acc.texture.size(),
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: acc.format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        }))
    })
}
