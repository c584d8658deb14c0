//! rendermm: matrix multiplication through real render pipelines (Larsen–McAllister 2001,
//! Hall–Carr–Hart 2003) beside the compute-era methods, on one GPU, checked against the CPU.
//!
//! The regression test a user writes: multiply by L-M's method and hold the product to what its
//! arithmetic promises, judged against the f64 product on the CPU.
//!
//! ```
//! use rendermm::report::judge;
//! use rendermm::{GpuContext, Matrix, Method, Request, multiply};
//!
//! # fn main() -> Result<(), rendermm::Error> {
//! let ctx = GpuContext::new()?;
//! let a = Matrix::random(33, 17, 1, -1.0, 1.0);
//! let b = Matrix::random(17, 9, 2, -1.0, 1.0);
//! let out = multiply(Some(&ctx), Request::new(Method::parse("lm")?, &a, &b))?;
//! let verdict = judge(out.arith, &a, &b, &out.c);
//! assert!(verdict.passed, "{}", verdict.headline());
//! # Ok(())
//! # }
//! ```
//!
//! That is the whole door: a [`Request`] (the [`Method`], the operands, the [`Options`]) goes
//! into [`multiply`], an [`Outcome`] (C, and what ran) comes out, and [`report::judge`] gives
//! its [`Verdict`](report::Verdict). A [`Matrix`] owns its values or reads a caller's array in
//! place ([`Matrix::borrowed`], no copy before the upload). Beside it: the [`GpuContext`] the GPU
//! methods run on, the [`Error`] every call can return, what is said of a product ([`report`]:
//! the judge, its verdict, and the [`Report`](report::Report) `multiply --json` prints), the
//! matrix files' readers and writers ([`io`]), and what the command line calls to draw: the
//! [`demo`]s and the docs' [`figures`]. Everything else is crate-private (the
//! repository's own tests, Python module and web page see it through the `internals` feature,
//! which is not part of the API).
//!
//! The layers, each importing only from those above it in this list (see
//! `docs/architecture.md`):
//!
//! 1. `error`, `matrix`, `clock` — the types everything shares;
//! 2. [`io`], `cpu`, `precision`, `check` — files, the CPU reference, number formats and
//!    their models, the judge;
//! 3. `gpu` — the harness, in three layers of its own: the device (context, pipeline cache and
//!    helpers, pools, the loop-cap probe), memory (staging, buffers, textures, readback) and
//!    execution (timer, runner, compute dispatch, layout pass);
//!    beside it `gl` (native only), the headless OpenGL compatibility context of the GL-era
//!    methods;
//! 4. `methods` — one file per method and the table of methods;
//! 5. `plan` — the entry point: validation, limits, tiling, dispatch;
//! 6. `draw` — the pictures' drawing: matrix panels, charts, the one text style (no GPU);
//! 7. `model`, `report`, `bench`, `reach`, [`demo`] — what is built on products;
//! 8. [`figures`] — every figure of the docs, drawn from runs of the layers below;
//! 9. the command line (`src/cli/`, behind `run_cli`), which the binary (`src/main.rs`) calls.

// Without `native` the library is the browser's, whose one user, the web crate, turns
// `internals` on: without both, the demos' renderer and what only the native layers call have
// no caller, in that build alone.
#![cfg_attr(
    not(any(feature = "native", feature = "internals")),
    allow(dead_code, unused_imports)
)]
// The API's items are documented in words of the layers below them, which `cargo doc
// --document-private-items` (or the `internals` feature) documents too.
#![allow(rustdoc::private_intra_doc_links)]
// `Error` is large (its variants carry the words of their message). Clippy leaves a public
// function's `Result<_, Error>` alone, as changing it would break callers; the library's own
// functions are crate-private now, and boxing the error is a change of its own.
#![allow(clippy::result_large_err)]

/// Declares an internal module: public (and hidden from the docs) with the `internals` feature,
/// which only this repository's own tests, benches, examples, Python and web crates turn on;
/// crate-private without it.
macro_rules! internal {
    ($($(#[$attr:meta])* mod $name:ident;)*) => {
        $(
            $(#[$attr])*
            #[cfg(feature = "internals")]
            #[doc(hidden)]
            pub mod $name;
            $(#[$attr])*
            #[cfg(not(feature = "internals"))]
            pub(crate) mod $name;
        )*
    };
}

/// Declares a module of which the API shows a part: all of it public with the `internals`
/// feature; without it, the module is crate-private under `$all` and `$name` is public with the
/// items `$public` only (every other item stays reachable inside the crate at the old path).
macro_rules! facade {
    (
        $(#[$attr:meta])* mod $name:ident = $all:ident at $path:literal { $($public:tt)* }
        $(native { $($native:tt)* })?
    ) => {
        $(#[$attr])*
        #[cfg(feature = "internals")]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        #[path = $path]
        mod $all;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        pub mod $name {
            pub use crate::$all::{$($public)*};
            $(
                #[cfg(feature = "native")]
                pub use crate::$all::{$($native)*};
            )?
            #[allow(unused_imports)]
            pub(crate) use crate::$all::*;
        }
    };
}

internal! {
    mod check;
    mod clock;
    mod cpu;
    mod error;
    #[cfg(not(target_arch = "wasm32"))]
    mod gl;
    mod gpu;
    mod matrix;
    mod methods;
    mod plan;
    mod precision;
    mod draw;
    #[cfg(feature = "native")]
    mod bench;
    #[cfg(feature = "native")]
    mod model;
    #[cfg(feature = "native")]
    mod reach;
}

/// The matrix files: readers (.npy, .csv, .mtx) and writers (.npy, .csv).
#[cfg(feature = "readers")]
pub mod io;
// The demos' drawing (scene, layout, font, renderer) builds for the browser too; their window,
// method thread and command line are native (see `demo`'s own gates).
// The report builds for the browser too: the page's result carries the same report.
facade! {
    /// What is said of a product: the judge ([`judge`](report::judge)) holds C to what the
    /// arithmetic that made it promises and gives its [`Verdict`](report::Verdict); the
    /// [`Report`](report::Report) is the product, what ran and the verdict as one record (what
    /// `multiply --json` prints, Python's result and the page's).
    mod report = report_all at "report/mod.rs" { Report, Verdict, judge }
}
facade! {
    /// The demos: a multiply drawn pass by pass, in a window or headless into frames or a GIF.
    mod demo = demo_all at "demo/mod.rs" { Kind, MAX_SIDE } native { DemoOptions, run }
}
facade! {
    /// The figures and tables of the docs, each drawn from runs of the real methods.
    #[cfg(feature = "native")]
    mod figures = figures_all at "figures/mod.rs" { ALL, Figure, find, write_all }
}

// The command line: crate-private, its one door the binary's `main`.
#[cfg(feature = "native")]
mod cli;
#[cfg(feature = "native")]
#[doc(hidden)]
pub use cli::run_cli;

pub use error::Error;
pub use gpu::GpuContext;
pub use matrix::Matrix;
pub use methods::Method;
pub use plan::{Options, Outcome, Request, multiply};
