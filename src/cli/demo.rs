//! `rendermm demo`: the demos' arguments, parsed here on the binary's side and handed to the
//! library as a plain [`DemoOptions`]; this also checks the output files before any work.

use crate::demo::{DemoOptions, Kind};
use crate::io;
use crate::precision::Precision;
use anyhow::Result;
use clap::builder::PossibleValuesParser;
use std::path::{Path, PathBuf};

/// Arguments of `rendermm demo`.
#[derive(clap::Args, Debug, Clone)]
pub struct DemoArgs {
    /// Which demo: lm (Larsen–McAllister slices), hall (ping-pong blocked passes), packed (2×2
    /// RGBA channel packing) or cube (the processor cube in 3-D).
    #[arg(value_parser = PossibleValuesParser::new(Kind::ALL.map(Kind::name)))]
    pub kind: String,
    /// Random inputs of shape MxKxN (each side 1 to 512), uniform in [-1, 1) ([0, 1) in u8).
    /// The default, 16x16x16, when no files are given.
    #[arg(long, value_name = "MxKxN", conflicts_with_all = ["a", "b"])]
    pub random: Option<String>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Left matrix file (.npy, .mtx, .csv).
    #[arg(long, requires = "b")]
    pub a: Option<PathBuf>,
    /// Right matrix file (.npy, .mtx, .csv).
    #[arg(long, requires = "a")]
    pub b: Option<PathBuf>,
    /// Number format of textures and framebuffer for lm and cube: u8 (the 8-bit saturating
    /// pipeline of 2001), f16 or f32. hall and packed run in f32.
    #[arg(
        long,
        default_value_t = Precision::F32.name().to_string(),
        value_parser = PossibleValuesParser::new(Precision::ALL.map(Precision::name))
    )]
    pub precision: String,
    /// Hall–Carr–Hart block size b; default: about 8 passes.
    #[arg(long, value_name = "N")]
    pub block: Option<u32>,
    /// u8: polygon colour 1/k so the blended sum cannot saturate (L-M §4).
    #[arg(long)]
    pub scale_by_depth: bool,
    /// No window: draw offscreen and write --frames, --gif and/or --screenshot.
    #[arg(long)]
    pub headless: bool,
    /// Headless: write one PNG per pass into this folder.
    #[arg(long, value_name = "DIR")]
    pub frames: Option<PathBuf>,
    /// Headless: write an animated GIF of the run.
    #[arg(long, value_name = "FILE")]
    pub gif: Option<PathBuf>,
    /// Save a PNG of the window (rendered offscreen) after --frames-then-exit, or of the last
    /// headless frame.
    #[arg(long, value_name = "FILE")]
    pub screenshot: Option<PathBuf>,
    /// Window: render N frames, one pass per frame, then save --screenshot and exit.
    #[arg(long, value_name = "N")]
    pub frames_then_exit: Option<u64>,
    /// Window or frame size in pixels (default 1280x720 for the window, 960x420 headless).
    #[arg(long, value_name = "WxH")]
    pub size: Option<String>,
    /// Passes per second while playing (window).
    #[arg(long, default_value_t = 4.0)]
    pub speed: f32,
}

/// Run `rendermm demo`.
pub fn run(args: DemoArgs) -> Result<()> {
    let inputs: Vec<(&str, &Path)> = [("--a", &args.a), ("--b", &args.b)]
        .into_iter()
        .filter_map(|(label, p)| p.as_deref().map(|p| (label, p)))
        .collect();
    for (label, out) in [("--gif", &args.gif), ("--screenshot", &args.screenshot)] {
        if let Some(out) = out {
            io::check_output(out)?;
            io::refuse_same_file(out, label, &inputs)?;
        }
    }
    Ok(crate::demo::run(options(args))?)
}

/// The library's settings from the arguments, with whether a display is named read from the
/// environment here, at the command line, rather than inside the window.
fn options(args: DemoArgs) -> DemoOptions {
    DemoOptions {
        no_display: ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
            .iter()
            .all(|v| std::env::var_os(v).is_none_or(|s| s.is_empty())),
        kind: args.kind,
        random: args.random,
        seed: args.seed,
        a: args.a,
        b: args.b,
        precision: args.precision,
        block: args.block,
        scale_by_depth: args.scale_by_depth,
        headless: args.headless,
        frames: args.frames,
        gif: args.gif,
        screenshot: args.screenshot,
        frames_then_exit: args.frames_then_exit,
        size: args.size,
        speed: args.speed,
    }
}
