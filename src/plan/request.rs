//! What goes into the one entry point and what comes out of it: a [`Request`] (the problem and
//! every option a run can take, built at the edges — the command line, the web page, the bench,
//! the tests — where any environment knob is read) and an [`Outcome`] (C, and what ran: the
//! kernel and precisions actually used, b, passes, tiles, timings, and what the judge holds the
//! result to). Everything above the entry point reads the outcome; nothing re-derives it.

use super::resident::{OnDevice, Resident};
use super::tiled::Tiling;
use crate::check::{self, Arith, CheckPolicy, Checked, Verdict};
use crate::matrix::Matrix;
use crate::methods::{Accumulate, Kernels, Method, Observer, Params, RanKernel, Repeats, Timings};
use crate::precision::{Precision, U8Bits};

/// Every option a run can take. The library reads no environment: a host fills these from its
/// flags and knobs (the command line's `cli/knobs.rs`, the page's URL).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Accept NaN and infinity in the inputs.
    pub allow_nonfinite: bool,
    /// Hall–Carr–Hart block size b (products summed per fragment per pass); `None` = 32.
    pub block: Option<u32>,
    /// Hall–Carr–Hart: how the running sum passes from one pass to the next.
    pub accumulate: Accumulate,
    /// The number format asked for the render-pass methods' textures and framebuffer. The
    /// format actually used (f16 where f32 blending is missing) is in [`Outcome::kernel`].
    pub precision: Precision,
    /// u8 only: polygon colour 1/k so the blended sum cannot saturate (L-M §4; in the Hall
    /// methods it scales each block sum); result rescaled.
    pub scale_by_depth: bool,
    /// u8 only: the widths of the value a fragment hands on and of the running sum (L-M §4;
    /// `--u8-product-bits`, `--u8-sum-bits`); the default, 8 and 8, is rendermm's u8 mode.
    pub u8_bits: U8Bits,
    /// The kernel variants to run (cs-fast's, coop's, frag-mrt's shape); `None` in each lets the
    /// method pick.
    pub kernels: Kernels,
    /// Bytes of device memory a multiply may allocate before it is tiled; `None`: a share of
    /// what the adapter allows ([`super::tiled::budget`]).
    pub mem_budget: Option<u64>,
    /// Where `mem_budget` came from, as the report names it (`RENDERMM_MEM_BUDGET=2GiB`);
    /// `None`: `--mem-budget`.
    pub mem_budget_source: Option<String>,
    /// Bytes of host memory available (`MemAvailable`), which a CPU adapter allocates its
    /// "device memory" from: the host reads it and hands it in; `None` where unknown.
    pub host_available: Option<u64>,
    /// Refuse a product that needs tiling instead of tiling it (`--no-tile`).
    pub no_tile: bool,
    /// The bench's timed repetitions: a compute-harness method runs its compute pass
    /// `warmup` times untimed, then `trials` times each timed on its own, on the same operands
    /// with C poisoned before each ([`Timings::trials_ms`] wall clock, [`Timings::repeats_ms`]
    /// device time); `None` runs it once. The render passes ignore it.
    pub repeats: Option<Repeats>,
}

impl Options {
    /// The options a method reads while it records ([`Params`]), `observe` set when an observer
    /// will watch the passes.
    pub fn params(&self, observe: bool) -> Params {
        Params {
            observe,
            allow_nonfinite: self.allow_nonfinite,
            block: self.block,
            accumulate: self.accumulate,
            precision: self.precision,
            scale_by_depth: self.scale_by_depth,
            u8_bits: self.u8_bits,
            kernels: self.kernels,
            repeats: self.repeats,
        }
    }
}

/// Called as the blocks of a tiled product finish: (blocks done, blocks in all). The command
/// line draws a progress bar with it; the library draws nothing.
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize);

/// One multiply: the method, the operands, the options, and who watches.
pub struct Request<'a> {
    pub method: Method,
    pub a: &'a Matrix,
    pub b: &'a Matrix,
    /// L-M's four-channel mode (§5, "RGBA"): the second, third and fourth pairs, multiplied in
    /// the same passes as (a, b) in the G, B and A channels. Empty for every other run.
    pub more_channels: Vec<(&'a Matrix, &'a Matrix)>,
    pub options: Options,
    /// Called after every pass, if set (the demos). Methods that batch passes split them to
    /// call it, so a watched run is not a timed one.
    pub observer: Option<&'a mut dyn Observer>,
    /// Told as the blocks of a tiled product finish.
    pub progress: Option<Progress<'a>>,
    /// Memory for C that the caller keeps from product to product (the last outcome's
    /// `c.data.into_vec()`; empty for none): a method that reads C back whole copies it straight
    /// into this memory, grown only if too short, instead of into fresh pages.
    pub reuse: Vec<f32>,

    /// The product of two matrices kept on the device ([`Request::on_device`]); then `a` and
    /// `b` are empty and the product stays there too ([`Outcome::on_device`]).
    pub on_device: Option<OnDevice<'a>>,
}

impl<'a> Request<'a> {
    /// `a · b` by `method` with the default options.
    pub fn new(method: Method, a: &'a Matrix, b: &'a Matrix) -> Self {
        Request {
            method,
            a,
            b,
            more_channels: vec![],
            options: Options::default(),
            observer: None,
            progress: None,
            reuse: Vec::new(),
            on_device: None,
        }
    }

    /// The same request, C read back into `memory` (see [`Request::reuse`]): a loop of
    /// products hands each outcome's C back for the next, and no product faults in fresh
    /// memory for its result.
    pub fn reusing(mut self, memory: Vec<f32>) -> Self {
        self.reuse = memory;
        self
    }

    /// The same request with these options.
    pub fn options(mut self, options: Options) -> Self {
        self.options = options;
        self
    }

    /// The same request, watched pass by pass by `observer`.
    pub fn observed(mut self, observer: &'a mut dyn Observer) -> Self {
        self.observer = Some(observer);
        self
    }

    /// The same request, telling `progress` as the blocks of a tiled product finish.
    pub fn with_progress(mut self, progress: Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }
}

/// What one multiply produced and how: C and the facts of the run that made it.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub c: Matrix,
    /// The products of the G, B and A channels in L-M's four-channel mode; empty otherwise.
    pub more_channels: Vec<Matrix>,
    /// The method asked.
    pub method: Method,
    /// m, k, n of the product.
    pub shape: (usize, usize, usize),
    /// The kernel that ran (the method it handed the product to, its variant) and the number
    /// formats its inputs and sums were kept in.
    pub kernel: RanKernel,
    /// Hall–Carr–Hart's block size b where the method has one.
    pub block: Option<u32>,
    /// Passes (render passes or slices) the method ran; one block's when tiled.
    pub passes: usize,
    /// How the product was tiled, where it was.
    pub tiling: Option<Tiling>,
    pub timings: Timings,
    /// Remarks for the report (how the passes were laid out, fallbacks taken).
    pub notes: Vec<String>,
    /// The arithmetic the run computed in, which the judge holds the result to.
    pub arith: Arith,

    /// The product kept on the device, for a request on resident operands
    /// ([`Request::on_device`]); then `c` is empty.
    pub on_device: Option<Resident>,
    /// The timings of the `min(F, 1)` step after a boolean product on the device, where it ran
    /// ([`OnDevice::clamp_to_one`]).
    pub clamp: Option<Timings>,
}

impl Outcome {
    /// The judge's verdict on C ([`check::judge`]) against the f64 product of `a` and `b`, held
    /// to the arithmetic this run used, and to its pipeline's model ([`check::Hold::Model`]):
    /// what the tour, the demo, the benchmarks and the precision ladder show is what each
    /// pipeline computes, its distance from the exact product said in `closeness`. `multiply
    /// --check` holds to the exact product unless asked otherwise ([`Outcome::check`]).
    pub fn verdict(&self, a: &Matrix, b: &Matrix) -> Verdict {
        let mut checked = self.check(
            CheckPolicy::full(check::Hold::Model),
            &[check::Inputs::new(a, b)],
        );
        checked.verdicts.swap_remove(0)
    }

    /// C and the products of the more channels, each judged against its inputs (`inputs[0]`
    /// for C, then one per channel) under `policy` ([`check::check`], the one check policy).
    pub fn check(&self, policy: CheckPolicy, inputs: &[check::Inputs]) -> Checked {
        let cs = std::iter::once(&self.c).chain(&self.more_channels);
        let products: Vec<_> = inputs.iter().copied().zip(cs).collect();
        check::check(policy, self.arith, &products)
    }

    /// The precision the run's sums were kept in (f16 where f32 blending was missing).
    pub fn precision(&self) -> Precision {
        self.kernel.sums
    }
}
