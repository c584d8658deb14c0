//! The demos: a multiply drawn pass by pass as it happens, in a window, into image files or on
//! the web page.
//!
//! - `lm`: A, B, the current slice (column p of A replicated across × row p of B replicated
//!   down — Larsen–McAllister figure 2) and the running sum C growing pass by pass.
//! - `hall`: the two ping-pong textures of Hall–Carr–Hart §3, which one is read and which
//!   written, and the block of k each pass sums.
//! - `packed`: the 2×2 RGBA quadrant layout of Hall–Carr–Hart §4 as colour channels, and the
//!   unpacked result.
//! - `cube`: the processor cube of L-M §3 in 3-D: k slices stacked behind the front face, each
//!   textured with its product, summing onto the front face.
//!
//! One code path serves the window, the headless frames and the browser, as the wgpu examples
//! share one framework between their windows and their image tests: a [`scene::Scene`] holds the
//! problem and its textures, and a [`render::Renderer`] draws a [`scene::Frame`] of it (the
//! scene, the running sums of the pass shown, where the run stands) into any texture view — the
//! window's surface, or an offscreen texture that becomes a PNG, a GIF frame, a screenshot or a
//! frame of the web page.
//!
//! The drawing part (scene, layout, cube, renderer; the glyphs and scales from `draw`) builds
//! for the browser (`--no-default-features`, wasm32) and never waits on the device; what steps
//! the method on a thread ([`state`], [`stepper`]), the window, the headless writer and the
//! launch from the settings the command line fills ([`launch`]) are native.

pub mod cube;
#[cfg(feature = "native")]
pub mod headless;
#[cfg(feature = "native")]
pub mod launch;
pub mod layout;
pub mod render;
pub mod scene;
#[cfg(feature = "native")]
pub mod state;
#[cfg(feature = "native")]
pub mod stepper;
#[cfg(feature = "native")]
pub mod window;

/// The labels' glyphs, which live in `draw` below the demos (the old path kept).
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use crate::draw::font;
#[cfg(feature = "native")]
pub use launch::{DemoOptions, run};

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::precision::{self, Precision};

/// The largest side the demos take (a 512×512 matrix still has a pixel per element on screen).
pub const MAX_SIDE: usize = 512;

/// Which demo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Lm,
    Hall,
    Packed,
    Cube,
    /// Not one of the four demos: a method not watched pass by pass (the web page's `frag-mrt`
    /// and compute methods), drawn as A, B and its result C.
    Result(Method),
}

impl Kind {
    /// In the order of the keys 1-4.
    pub const ALL: [Kind; 4] = [Kind::Lm, Kind::Hall, Kind::Packed, Kind::Cube];

    pub fn name(self) -> &'static str {
        match self {
            // The L-M demo is named after the method it draws.
            Kind::Lm => crate::methods::Method::Lm.name(),
            Kind::Hall => "hall",
            Kind::Packed => "packed",
            Kind::Cube => "cube",
            Kind::Result(m) => m.name(),
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        Kind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| {
                Error::Invalid(format!("unknown demo '{s}'; use lm, hall, packed or cube"))
            })
    }

    /// The method the demo runs.
    pub fn method(self) -> Method {
        match self {
            Kind::Lm | Kind::Cube => Method::Lm,
            Kind::Hall => Method::HallBlocked,
            Kind::Packed => Method::HallPacked,
            Kind::Result(m) => m,
        }
    }

    /// The demo of `method`: lm, hall or packed for the methods watched pass by pass, else
    /// [`Kind::Result`].
    pub fn of(method: Method) -> Self {
        match method {
            Method::Lm => Kind::Lm,
            Method::HallBlocked => Kind::Hall,
            Method::HallPacked => Kind::Packed,
            m => Kind::Result(m),
        }
    }

    /// Whether the method ping-pongs between two running sums (Hall–Carr–Hart §3): pass p
    /// (1-based) writes texture p mod 2 and reads the other.
    pub fn ping_pong(self) -> bool {
        matches!(self, Kind::Hall | Kind::Packed)
    }

    /// Which of a frame's two shown textures holds the running sum after pass `pass`: the one
    /// the pass wrote (p mod 2) when the method ping-pongs, else the first.
    pub fn shown_slot(self, pass: usize) -> usize {
        if self.ping_pong() { pass % 2 } else { 0 }
    }

    /// Whether the demo has u8 / f16 modes (the Larsen–McAllister ones; the Hall methods have
    /// them too, but the Hall demos show R32Float / Rgba32Float running sums).
    pub fn takes_precision(self) -> bool {
        self.method() == Method::Lm
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How the demo runs its method.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    pub kind: Kind,
    /// Asked for; Hall–Carr–Hart runs in f32 whatever is asked (see [`Settings::precision`]).
    pub precision: Precision,
    /// Hall–Carr–Hart block size; `None`: about 8 passes (b = ⌈k/8⌉, at least 2 for `hall`;
    /// packed ⌈⌈k/2⌉/8⌉).
    pub block: Option<u32>,
    /// u8: polygon colour 1/k so the blended sum cannot saturate (L-M §4).
    pub scale_by_depth: bool,
}

impl Settings {
    /// The precision the demo's method runs in.
    pub fn precision(&self) -> Precision {
        if self.kind.takes_precision() {
            self.precision
        } else {
            Precision::F32
        }
    }

    /// The block size b the Hall–Carr–Hart demos use for inner dimension `k`.
    pub fn block_for(&self, k: usize) -> u32 {
        let depth = if self.kind == Kind::Packed {
            k.div_ceil(2)
        } else {
            k
        };
        // At least 2 in the single-channel demo, so a pass visibly sums a block of k.
        let least = if self.kind == Kind::Hall && depth >= 4 {
            2
        } else {
            1
        };
        self.block
            .unwrap_or_else(|| depth.div_ceil(8).max(least) as u32)
    }
}

/// Where the inputs came from, so `r` (new random inputs) and `p` (precision) can remake them.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// `--random MxKxN` with a seed: uniform in [-1, 1), or [0, 1) in u8.
    Random { seed: u64 },
    /// `--a` / `--b` files.
    Files { a: String, b: String },
}

/// The two matrices of a demo, as given.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub a: Matrix,
    pub b: Matrix,
    pub source: Source,
}

impl Inputs {
    /// Random m×k and k×n inputs from `seed`, in the range `precision` can hold; sides from 1
    /// to [`MAX_SIDE`].
    pub fn random(m: usize, k: usize, n: usize, seed: u64, precision: Precision) -> Result<Self> {
        check_shape(m, k, n)?;
        Ok(Self::draw(m, k, n, seed, precision))
    }

    /// Random inputs of any shape, as `rendermm multiply --random MxKxN --seed S` draws them:
    /// uniform in [-1, 1), in [0, 1) for u8. The web page's, whose sides reach the texture
    /// limit.
    pub fn draw(m: usize, k: usize, n: usize, seed: u64, precision: Precision) -> Self {
        let (lo, hi) = if precision == Precision::U8 {
            (0.0, 1.0)
        } else {
            (-1.0, 1.0)
        };
        Self {
            a: Matrix::random(m, k, seed.wrapping_mul(2), lo, hi),
            b: Matrix::random(k, n, seed.wrapping_mul(2).wrapping_add(1), lo, hi),
            source: Source::Random { seed },
        }
    }

    /// Inputs given as matrices (read from files); checks the product and the size limit.
    pub fn given(a: Matrix, b: Matrix, a_name: &str, b_name: &str) -> Result<Self> {
        crate::matrix::check_product(&a, &b)?;
        a.check_finite("A")?;
        b.check_finite("B")?;
        check_shape(a.rows, a.cols, b.cols)?;
        Ok(Self {
            a,
            b,
            source: Source::Files {
                a: a_name.into(),
                b: b_name.into(),
            },
        })
    }

    /// (m, k, n).
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.a.rows, self.a.cols, self.b.cols)
    }

    /// The inputs as `precision` takes them: random inputs are redrawn in [0, 1) for u8 (same
    /// seed), file inputs outside [0, 1) are mapped into it (`--normalize`), with a note saying so.
    pub fn for_precision(&self, precision: Precision) -> Result<(Matrix, Matrix, Vec<String>)> {
        if precision != Precision::U8 {
            return Ok((self.a.clone(), self.b.clone(), vec![]));
        }
        match &self.source {
            Source::Random { seed } => {
                let (m, k, n) = self.shape();
                let r = Inputs::draw(m, k, n, *seed, Precision::U8);
                Ok((r.a, r.b, vec![]))
            }
            Source::Files { .. } => {
                let mut notes = vec![];
                let mut fit = |m: &Matrix, name: &str| {
                    if precision::check_unit_range(m, name).is_ok() {
                        m.clone()
                    } else {
                        let (mapped, how) = precision::normalize(m, name);
                        notes.push(how);
                        mapped
                    }
                };
                let a = fit(&self.a, "A");
                let b = fit(&self.b, "B");
                Ok((a, b, notes))
            }
        }
    }
}

/// Error unless every side is between 1 and [`MAX_SIDE`].
pub fn check_shape(m: usize, k: usize, n: usize) -> Result<()> {
    for (name, v) in [("m", m), ("k", k), ("n", n)] {
        if v == 0 || v > MAX_SIDE {
            return Err(Error::Invalid(format!(
                "demo size {m}x{k}x{n}: {name} = {v}, but the demos take sides from 1 to {MAX_SIDE} (4 to 64 reads best)"
            )));
        }
    }
    Ok(())
}
