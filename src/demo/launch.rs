//! `rendermm demo lm|hall|packed|cube`: what a demo is asked to do (a plain settings struct the
//! command line fills, so the library needs no argument parser), checked and run in a window or
//! headless.

use super::headless::{self, HeadlessOptions};
use super::render::Renderer;
use super::state::DemoState;
use super::window::{self, WindowOptions};
use super::{Inputs, Kind, Settings};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::parse_mkn;
use crate::precision::Precision;
use std::path::PathBuf;
use std::sync::Arc;

/// What `rendermm demo` was asked for, as given: names and sizes are still text, parsed and
/// checked by [`run`] so that every caller gets the same one-line errors.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// No display is named (DISPLAY, WAYLAND_DISPLAY and WAYLAND_SOCKET unset), so a window that
    /// cannot open says that.
    pub no_display: bool,
    /// Which demo: lm, hall, packed or cube ([`Kind::name`]).
    pub kind: String,
    /// Random inputs of shape MxKxN; `None` with no files: 16x16x16.
    pub random: Option<String>,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Left matrix file (.npy, .mtx, .csv).
    pub a: Option<PathBuf>,
    /// Right matrix file (.npy, .mtx, .csv).
    pub b: Option<PathBuf>,
    /// Number format of textures and framebuffer for lm and cube ([`Precision::name`]).
    pub precision: String,
    /// Hall–Carr–Hart block size b; `None`: about 8 passes.
    pub block: Option<u32>,
    /// u8: polygon colour 1/k so the blended sum cannot saturate (L-M §4).
    pub scale_by_depth: bool,
    /// No window: draw offscreen and write `frames`, `gif` and/or `screenshot`.
    pub headless: bool,
    /// Headless: one PNG per pass into this folder.
    pub frames: Option<PathBuf>,
    /// Headless: an animated GIF of the run.
    pub gif: Option<PathBuf>,
    /// A PNG of the window after `frames_then_exit`, or of the last headless frame.
    pub screenshot: Option<PathBuf>,
    /// Window: render N frames, one pass per frame, then save `screenshot` and exit.
    pub frames_then_exit: Option<u64>,
    /// Window or frame size `WxH` (default 1280x720 for the window, 960x420 headless).
    pub size: Option<String>,
    /// Passes per second while playing (window).
    pub speed: f32,
}

/// Run `rendermm demo`.
pub fn run(args: DemoOptions) -> Result<()> {
    let kind = Kind::parse(&args.kind)?;
    let precision = Precision::parse(&args.precision)?;
    if args.block == Some(0) {
        return Err(Error::Invalid(
            "--block 0: each pass must sum at least one product".into(),
        ));
    }
    if !(args.speed > 0.0 && args.speed.is_finite()) {
        return Err(Error::Invalid(format!(
            "--speed {}: give a positive number of passes per second",
            args.speed
        )));
    }
    if args.scale_by_depth && precision != Precision::U8 {
        return Err(Error::Invalid(
            "--scale-by-depth applies to --precision u8 only".into(),
        ));
    }
    let settings = Settings {
        kind,
        precision,
        block: args.block,
        scale_by_depth: args.scale_by_depth,
    };
    let inputs = match (&args.a, &args.b, &args.random) {
        (Some(a), Some(b), None) => Inputs::given(
            crate::io::read_matrix(a)?,
            crate::io::read_matrix(b)?,
            &a.display().to_string(),
            &b.display().to_string(),
        )?,
        (None, None, shape) => {
            let (m, k, n) = parse_mkn(shape.as_deref().unwrap_or("16x16x16"))?;
            Inputs::random(m, k, n, args.seed, precision)?
        }
        _ => {
            return Err(Error::Invalid(
                "give the inputs as --a FILE --b FILE or as --random MxKxN".into(),
            ));
        }
    };
    let size = args.size.as_deref().map(parse_size).transpose()?;
    if args.headless {
        if args.frames_then_exit.is_some() {
            return Err(Error::Invalid(
                "--frames-then-exit is for the window; headless writes every pass".into(),
            ));
        }
        if args.frames.is_none() && args.gif.is_none() && args.screenshot.is_none() {
            return Err(Error::Invalid(
                "--headless needs --frames DIR, --gif FILE or --screenshot FILE".into(),
            ));
        }
        let ctx = Arc::new(GpuContext::new()?);
        eprintln!("adapter: {}", ctx.describe());
        let mut state = DemoState::new(ctx.clone(), settings, inputs)?;
        for note in &state.notes {
            eprintln!("note: {note}");
        }
        let mut renderer = Renderer::new(&ctx)?;
        let opts = HeadlessOptions {
            frames: args.frames,
            gif: args.gif,
            screenshot: args.screenshot,
            size: size.unwrap_or((960, 420)),
            status: true,
        };
        for line in headless::run(&mut state, &mut renderer, &opts)? {
            println!("{line}");
        }
        println!("{}", state.title());
        return Ok(());
    }
    if args.frames.is_some() || args.gif.is_some() {
        return Err(Error::Invalid(
            "--frames and --gif are written with --headless".into(),
        ));
    }
    if args.frames_then_exit == Some(0) {
        return Err(Error::Invalid(
            "--frames-then-exit 0: give at least one frame".into(),
        ));
    }
    window::run(
        settings,
        inputs,
        WindowOptions {
            size: size.unwrap_or((1280, 720)),
            frames_then_exit: args.frames_then_exit,
            screenshot: args.screenshot,
            speed: args.speed,
            no_display: args.no_display,
        },
    )
}

/// `WxH` → (w, h), each side 16 to 8192.
pub fn parse_size(s: &str) -> Result<(u32, u32)> {
    let bad = || {
        Error::Invalid(format!(
            "--size '{s}': expected WxH, e.g. 960x420, each side 16 to 8192"
        ))
    };
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(16..=8192).contains(&w) || !(16..=8192).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}
