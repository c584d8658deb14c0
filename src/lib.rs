//! rendermm: matrix multiplication through real render pipelines (Larsen–McAllister 2001,
//! Hall–Carr–Hart 2003) beside the compute-era methods, on one GPU, checked against the CPU.
//!
//! The layers, each importing only from those above it in this list (see
//! `docs/architecture.md`):
//!
//! 1. [`error`], [`matrix`], [`clock`] — the types everything shares;
//! 2. [`io`], [`cpu`], [`precision`], [`check`] — files, the CPU reference, number formats and
//!    their models, the compare helper;
//! 3. [`gpu`] — the harness, in three layers of its own: the device (context, pipeline cache and
//!    helpers, pools, the loop-cap probe), memory (staging, buffers, textures, readback) and
//!    execution (timer, runner, compute dispatch, layout pass);
//!    beside it `gl` (native only), the headless OpenGL compatibility context of the GL-era
//!    methods;
//! 4. [`methods`] — one file per method and the table of methods;
//! 5. [`plan`] — the entry point: validation, limits, tiling, dispatch;
//! 6. [`draw`] — the pictures' drawing: matrix panels, charts, the one text style (no GPU);
//! 7. [`model`], [`report`], [`bench`](mod@bench), [`reach`], [`demo`] — what is built on
//!    products;
//! 8. [`figures`] — every figure of the docs, drawn from runs of the layers below;
//! 9. the command line (`src/cli/`, behind [`run_cli`]), which the binary (`src/main.rs`) calls.

pub mod check;
pub mod clock;
pub mod cpu;
pub mod error;
#[cfg(not(target_arch = "wasm32"))]
pub mod gl;
pub mod gpu;
#[cfg(feature = "readers")]
pub mod io;
pub mod matrix;
pub mod methods;
pub mod plan;
pub mod precision;

#[cfg(feature = "native")]
pub mod bench;
pub mod draw;
// The demos' drawing (scene, layout, font, renderer) builds for the browser too; their window,
// method thread and command line are native (see `demo`'s own gates).
pub mod demo;
#[cfg(feature = "native")]
pub mod figures;
#[cfg(feature = "native")]
pub mod model;
#[cfg(feature = "native")]
pub mod reach;
#[cfg(feature = "native")]
pub mod report;

// The command line: crate-private, its one door the binary's `main`.
#[cfg(feature = "native")]
mod cli;
#[cfg(feature = "native")]
pub use cli::run_cli;

pub use error::{Error, Result};
pub use matrix::Matrix;
pub use methods::Method;
pub use plan::{Options, multiply};
