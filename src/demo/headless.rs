//! The demos without a window: the same state and renderer, drawn into an offscreen texture
//! after every pass and written as PNG frames and/or an animated GIF.

use super::Kind;
use super::render::Renderer;
use super::state::DemoState;
use super::stepper::Progress;
use crate::error::{Error, Result};
use image::RgbaImage;
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
#[allow(clippy::too_many_arguments)]
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
    let draw = |state: &mut DemoState,
                renderer: &mut Renderer,
                anim: f32,
                f: &mut dyn FnMut(Shot) -> Result<()>| {
        state.anim = anim;
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
        Progress::Failed(msg) => Err(Error::Invalid(format!(
            "demo {}: {msg}",
            state.settings.kind
        ))),
        _ => Ok(()),
    }
}

/// The run as an animated GIF at `gif`: every pass (every `stride`-th past
/// [`GIF_MAX_PASSES`]), tweened for the cube, built in memory and written at the end, each
/// frame also handed to `frames_out`. Returns the last frame.
fn write_gif(
    state: &mut DemoState,
    renderer: &mut Renderer,
    opts: &HeadlessOptions,
    gif: &Path,
    frames_out: &dyn Fn(&Shot, &mut usize) -> Result<()>,
    count: &mut usize,
) -> Result<Option<RgbaImage>> {
    let passes = state.passes();
    let kind = state.settings.kind;
    let stride = passes.div_ceil(GIF_MAX_PASSES).max(1);
    let in_gif = move |p: usize| p.is_multiple_of(stride) || p == passes;
    let mut last = None;
    let tweens = if kind == Kind::Cube { CUBE_TWEENS } else { 1 };
    let per_pass_ms = (6000 / passes.div_ceil(stride).max(1)).clamp(60, 700) as u32;
    // The GIF is built in memory and written at the end: the render takes a while, and
    // an interrupted one must leave no file behind.
    let mut bytes = Vec::new();
    {
        let (gw, gh) = gif_size(opts.size, gif)?;
        let mut enc =
            ::gif::Encoder::new(&mut bytes, gw, gh, &[]).map_err(|e| gif_error(gif, e))?;
        enc.set_repeat(::gif::Repeat::Infinite)
            .map_err(|e| gif_error(gif, e))?;
        let mut pending: Option<Shot> = None;
        // The frame the GIF shows so far: each new frame stores only what changed.
        let mut shown: Option<RgbaImage> = None;
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
                frames_out(&shot, count)?;
                if shot.pass > 0 && !in_gif(shot.pass) {
                    return Ok(());
                }
                if let Some(prev) = pending.replace(shot) {
                    let ms = if prev.anim < 1.0 {
                        (per_pass_ms / tweens as u32).max(40)
                    } else {
                        per_pass_ms
                    };
                    enc.write_frame(&changed_part(&prev.image, shown.as_ref(), ms))
                        .map_err(|e| gif_error(gif, e))?;
                    shown = Some(prev.image);
                }
                Ok(())
            },
        )?;
        if let Some(prev) = pending.take() {
            enc.write_frame(&changed_part(&prev.image, shown.as_ref(), 2500))
                .map_err(|e| gif_error(gif, e))?;
            last = Some(prev.image);
        }
        enc.into_inner().map_err(|e| gif_error(gif, e))?;
    }
    crate::io::write_atomic(gif, |w| w.write_all(&bytes).map_err(|e| Error::io(gif, e)))?;
    Ok(last)
}

/// Write what `opts` asks for. Returns a line per file written.
pub fn run(
    state: &mut DemoState,
    renderer: &mut Renderer,
    opts: &HeadlessOptions,
) -> Result<Vec<String>> {
    if let Some(dir) = &opts.frames {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let passes = state.passes();
    let kind = state.settings.kind;
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
            last = write_gif(state, renderer, opts, gif, &frames_out, &mut count)?;
            written.push(format!("wrote {}", gif.display()));
        }
        None => {
            // Without a frames folder only the last frame is wanted (--screenshot).
            let every = opts.frames.is_some();
            run_frames(
                state,
                renderer,
                opts.size,
                opts.status,
                false,
                1,
                |p| every || p == passes,
                |shot| {
                    frames_out(&shot, &mut count)?;
                    last = Some(shot.image);
                    Ok(())
                },
            )?;
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

/// A GIF frame holding only the rectangle in which `img` differs from `before` (the whole image
/// if there is none before), shown for `ms` milliseconds and kept under the next frame.
fn changed_part(img: &RgbaImage, before: Option<&RgbaImage>, ms: u32) -> ::gif::Frame<'static> {
    let (mut x0, mut y0, mut x1, mut y1) = (0, 0, img.width() - 1, img.height() - 1);
    if let Some(before) = before.filter(|b| b.dimensions() == img.dimensions()) {
        (x0, y0, x1, y1) = (u32::MAX, u32::MAX, 0, 0);
        for (x, y, px) in img.enumerate_pixels() {
            if px != before.get_pixel(x, y) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
            }
        }
        if x0 == u32::MAX {
            // Nothing changed: one unchanged pixel carries the frame's time.
            (x0, y0, x1, y1) = (0, 0, 0, 0);
        }
    }
    let mut part = image::imageops::crop_imm(img, x0, y0, x1 - x0 + 1, y1 - y0 + 1).to_image();
    let (w, h) = (part.width() as u16, part.height() as u16);
    let mut frame = ::gif::Frame::from_rgba_speed(w, h, part.as_mut(), 10);
    frame.left = x0 as u16;
    frame.top = y0 as u16;
    frame.delay = (ms / 10).min(u16::MAX as u32) as u16;
    frame.dispose = ::gif::DisposalMethod::Keep;
    frame
}

/// The GIF's logical screen size (GIF sides are 16-bit).
fn gif_size((w, h): (u32, u32), path: &Path) -> Result<(u16, u16)> {
    match (u16::try_from(w), u16::try_from(h)) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(Error::Invalid(format!(
            "{}: a GIF is at most 65535 pixels a side, not {w}x{h}",
            path.display()
        ))),
    }
}

fn gif_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Format {
        path: path.to_path_buf(),
        message: format!("GIF encoding failed: {e}"),
    }
}

/// Save a frame as PNG (RGB; the frames are opaque), atomically.
pub fn save_png(path: &Path, img: &RgbaImage) -> Result<()> {
    let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    crate::draw::picture::save_png(path, &rgb)
}
