//! The demos without a window: the same state and renderer, drawn into an offscreen texture
//! after every pass and written as PNG frames and/or an animated GIF.

use super::Kind;
use super::render::Renderer;
use super::state::DemoState;
use super::stepper::Progress;
use crate::error::{Error, Result};
use image::codecs::gif::{GifEncoder, Repeat};
use image::{Delay, Frame, RgbaImage};
use std::path::{Path, PathBuf};

/// What to write.
#[derive(Clone, Debug)]
pub struct HeadlessOptions {
    /// One PNG per pass into this folder.
    pub frames: Option<PathBuf>,
    /// An animated GIF of the run.
    pub gif: Option<PathBuf>,
    /// The last frame as a PNG.
    pub screenshot: Option<PathBuf>,
    /// Frame size in pixels.
    pub size: (u32, u32),
    /// Show the error against the CPU on the last frame.
    pub status: bool,
}

/// Most frames a GIF gets (larger runs show every ⌈passes/48⌉-th pass).
pub const GIF_MAX_PASSES: usize = 48;
/// In-between frames per pass in the cube's GIF, while a slice moves onto the front face.
pub const CUBE_TWEENS: usize = 3;

/// One rendered frame.
pub struct Shot {
    /// Passes summed.
    pub pass: usize,
    /// The cube's slice animation, 0 → 1 (1 for the other demos).
    pub anim: f32,
    pub image: RgbaImage,
}

/// Step `state` through all its passes, drawing a frame after each (and, with `tweens`, frames
/// in between for the cube; with `first`, one before the first pass) and handing each to `f`
/// along with whether it is wanted (`select(pass)`).
pub fn run_frames(
    state: &mut DemoState,
    renderer: &mut Renderer,
    size: (u32, u32),
    status: bool,
    first: bool,
    tweens: usize,
    select: impl Fn(usize) -> bool,
    mut f: impl FnMut(Shot) -> Result<()>,
) -> Result<()> {
    state.paused = true;
    let yaw0 = state.camera.yaw;
    let mut frame_no = 0usize;
    let mut draw = |state: &mut DemoState, renderer: &mut Renderer, anim: f32, f: &mut dyn FnMut(Shot) -> Result<()>| {
        state.anim = anim;
        if state.settings.kind == Kind::Cube {
            // A slow turn, so the frames show the cube's depth.
            state.camera.yaw = yaw0 + 0.012 * frame_no as f32;
            frame_no += 1;
        }
        let last = state.at_end() && anim >= 1.0;
        let image = renderer.render_image(state, size, false, status && last)?;
        f(Shot {
            pass: state.pass(),
            anim,
            image,
        })
    };
    if first {
        draw(state, renderer, 1.0, &mut f)?;
    }
    while !state.at_end() {
        if !state.step() {
            break;
        }
        if !select(state.pass()) {
            continue;
        }
        for t in 1..tweens {
            draw(state, renderer, t as f32 / tweens as f32, &mut f)?;
        }
        draw(state, renderer, 1.0, &mut f)?;
    }
    match state.progress() {
        Progress::Failed(msg) => Err(Error::Invalid(format!("demo {}: {msg}", state.settings.kind))),
        _ => Ok(()),
    }
}

/// Write what `opts` asks for. Returns a line per file written.
pub fn run(state: &mut DemoState, renderer: &mut Renderer, opts: &HeadlessOptions) -> Result<Vec<String>> {
    if let Some(dir) = &opts.frames {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let passes = state.passes();
    let kind = state.settings.kind;
    let stride = passes.div_ceil(GIF_MAX_PASSES).max(1);
    let in_gif = move |p: usize| p % stride == 0 || p == passes;
    let mut written = vec![];
    let mut count = 0usize;
    let mut last: Option<RgbaImage> = None;
    let frames_out = |shot: &Shot, count: &mut usize| -> Result<()> {
        if let Some(dir) = &opts.frames
            && shot.anim >= 1.0
            && shot.pass > 0
        {
            let path = dir.join(format!("{}-{:04}.png", kind, shot.pass));
            save_png(&path, &shot.image)?;
            *count += 1;
        }
        Ok(())
    };
    match &opts.gif {
        Some(gif) => {
            let tweens = if kind == Kind::Cube { CUBE_TWEENS } else { 1 };
            let per_pass_ms = (6000 / passes.div_ceil(stride).max(1)).clamp(60, 700) as u32;
            crate::io::write_atomic(gif, |w| {
                let mut enc = GifEncoder::new_with_speed(w, 10);
                enc.set_repeat(Repeat::Infinite).map_err(|e| gif_error(gif, e))?;
                let mut pending: Option<Shot> = None;
                let frames_dir = opts.frames.is_some();
                run_frames(
                    state,
                    renderer,
                    opts.size,
                    opts.status,
                    true,
                    tweens,
                    |p| in_gif(p) || frames_dir,
                    |shot| {
                        frames_out(&shot, &mut count)?;
                        if shot.pass > 0 && !in_gif(shot.pass) {
                            return Ok(());
                        }
                        if let Some(prev) = pending.replace(shot) {
                            let ms = if prev.anim < 1.0 { (per_pass_ms / tweens as u32).max(40) } else { per_pass_ms };
                            enc.encode_frame(Frame::from_parts(prev.image, 0, 0, Delay::from_numer_denom_ms(ms, 1)))
                                .map_err(|e| gif_error(gif, e))?;
                        }
                        Ok(())
                    },
                )?;
                if let Some(prev) = pending.take() {
                    last = Some(prev.image.clone());
                    enc.encode_frame(Frame::from_parts(prev.image, 0, 0, Delay::from_numer_denom_ms(2500, 1)))
                        .map_err(|e| gif_error(gif, e))?;
                }
                Ok(())
            })?;
            written.push(format!("wrote {}", gif.display()));
        }
        None => {
            run_frames(state, renderer, opts.size, opts.status, false, 1, |_| true, |shot| {
                frames_out(&shot, &mut count)?;
                last = Some(shot.image);
                Ok(())
            })?;
        }
    }
    if let Some(dir) = &opts.frames {
        written.push(format!("wrote {count} frames to {}", dir.display()));
    }
    if let (Some(path), Some(img)) = (&opts.screenshot, &last) {
        save_png(path, img)?;
        written.push(format!("wrote {}", path.display()));
    }
    Ok(written)
}

fn gif_error(path: &Path, e: image::ImageError) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        message: format!("GIF encoding failed: {e}"),
    }
}

/// Save a frame as PNG (RGB; the frames are opaque), atomically.
pub fn save_png(path: &Path, img: &RgbaImage) -> Result<()> {
    let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    crate::picture::save_png(path, &rgb)
}
