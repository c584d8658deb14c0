//! Where the demo's frames meet the page. The drawing is `rendermm::demo` itself — the renderer,
//! layout, labels and WGSL (`shaders/demo.wgsl`) of `rendermm demo` — into an offscreen texture;
//! this file copies the passes the replay keeps (on the GPU, nothing read back) and puts each
//! frame that is shown on the page's 2D canvas once its readback (awaited, never blocking)
//! brings it back. Only shown frames are read back: the result of a run, and the replay's.

use rendermm::demo::render::{self, Renderer};
use rendermm::demo::scene::Frame;
use rendermm::error::Result;
use rendermm::gpu::GpuContext;
use rendermm::gpu::texture::MatrixTexture;
use std::cell::Cell;
use std::rc::Rc;

thread_local! {
    /// Frames drawn but not yet on the page (their readback is under way).
    static PENDING: Cell<usize> = const { Cell::new(0) };
}

/// Frames drawn but not yet on the page.
pub fn pending() -> usize {
    PENDING.with(|p| p.get())
}

fn add_pending(d: isize) {
    PENDING.with(|p| p.set(p.get().saturating_add_signed(d)));
}

/// The page's 2D canvas, which shows the frames the renderer draws offscreen.
pub struct Screen {
    pub ctx: Rc<GpuContext>,
    pub canvas2d: web_sys::CanvasRenderingContext2d,
    pub size: (u32, u32),
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
        add_pending(1);
        let (canvas2d, (w, h)) = (self.canvas2d.clone(), self.size);
        wasm_bindgen_futures::spawn_local(async move {
            let bytes = read_frame(&ctx, &target, (w, h)).await;
            add_pending(-1);
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

/// Read a frame back through a staging buffer of its own. Not the context's pooled readback
/// buffers: on WebGL2, Chromium warns ("READ-usage buffer was written, then fenced, but written
/// again before being read back") and drops its fast path each time a reused one is written
/// again, and a fresh buffer of a frame's size costs little.
async fn read_frame(
    ctx: &GpuContext,
    target: &wgpu::Texture,
    (w, h): (u32, u32),
) -> Result<Vec<u8>> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU8, Ordering};
    // RGBA8 rows of 4w bytes, padded to wgpu's copy alignment.
    let row = 4 * w;
    let pitch =
        row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = ctx.scoped("reading a frame back", || {
        let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("page frame readback"),
            size: pitch as u64 * h as u64,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(pitch),
                    rows_per_image: Some(h),
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        ctx.queue.submit([enc.finish()]);
        Ok(buffer)
    })?;
    // 0: waiting, 1: mapped, 2: failed. Polled by the page (frame::pending keeps WebGL2 polling).
    let state = Arc::new(AtomicU8::new(0));
    let s = state.clone();
    buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
        s.store(if r.is_ok() { 1 } else { 2 }, Ordering::SeqCst)
    });
    while state.load(Ordering::SeqCst) == 0 {
        crate::sleep(2).await;
    }
    if state.load(Ordering::SeqCst) != 1 {
        return Err(rendermm::error::Error::Readback(
            "a frame could not be read back".into(),
        ));
    }
    let mut out = Vec::with_capacity((row * h) as usize);
    {
        let data = buffer.slice(..).get_mapped_range().map_err(|e| {
            rendermm::error::Error::Readback(format!("a frame could not be read back: {e}"))
        })?;
        for r in 0..h as usize {
            out.extend_from_slice(&data[r * pitch as usize..r * pitch as usize + row as usize]);
        }
    }
    buffer.unmap();
    buffer.destroy();
    Ok(out)
}
