//! Every multiply method behind one entry point, [`multiply`]. Each GPU method is one Rust file
//! beside one WGSL file in `shaders/`, named after its paper.

pub mod cannon;
pub mod cannon_tiled;
pub mod compute_era;
pub mod coop;
pub mod cs_fast;
pub mod cs_naive;
pub mod cs_tiled;
pub mod dns;
pub mod dns_blocks;
pub mod dns_tiled;
pub mod frag_mrt;
pub mod hall_blocked;
pub mod hall_packed;
pub mod kk73;
pub mod larsen_mcallister;
pub mod resident;
pub mod variants;

pub use hall_blocked::Accumulate;

use crate::check::{self, ErrorStats, Verdict};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu::{GpuContext, MatrixTexture};
use crate::matrix::{self, Matrix};
use crate::precision::Precision;
use serde::Serialize;
use std::time::Instant;

/// The methods rendermm knows, in historical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Larsen–McAllister 2001: k textured quads summed by additive blending.
    Lm,
    /// Hall–Carr–Hart 2003 §3: ⌈k/b⌉ blocked fragment-shader passes, accumulated between passes.
    HallBlocked,
    /// Hall–Carr–Hart 2003 §4: the 2×2 RGBA channel-packed blocked multiply.
    HallPacked,
    /// Hall §4's packing taken further: 4 rows / 4 columns per RGBA32F texel, a register
    /// block per fragment written to up to 8 colour attachments.
    FragMrt,
    /// HIP blog / 5kk73: one compute invocation per element of C, operands from global memory.
    CsNaive,
    /// HIP blog: 16×16 shared-memory tiles, zero-padded.
    CsTiled16,
    /// HIP blog: 32×32 shared-memory tiles (the blog's BLOCK_DIM), zero-padded.
    CsTiled32,
    /// 5kk73 step 1: 16×16 tiles with the B tile loaded down columns (uncoalesced).
    Kk73Uncoalesced,
    /// 5kk73 step 2: coalesced global loads, B tile stored transposed (bank conflicts).
    Kk73Coalesced,
    /// 5kk73 step 3: coalesced and free of shared-memory bank conflicts.
    Kk73BankFree,
    /// 5kk73 step 4: outer product, A shared, B and C in registers.
    Kk73OuterProduct,
    /// 5kk73 step 5: step 4 with every loop unrolled.
    Kk73Unrolled,
    /// 5kk73 step 6: step 5 with double-buffered (prefetched) A tiles.
    Kk73Prefetch,
    /// O'Neil 2013 §3.1: Cannon's algorithm in one workgroup.
    Cannon,
    /// O'Neil 2013 §5: Cannon's algorithm by 8×8 blocks, any size.
    CannonTiled,
    /// O'Neil 2013 §3.1: DNS, the whole m×k×n cube in one workgroup.
    Dns,
    /// O'Neil 2013 §5: DNS by 8×8×8 cube tiles, partial sums and a reduction pass.
    DnsTiled,
    /// O'Neil 2013 §3.2: DNS, an n×1 grid of n×n workgroups (one per column of C).
    DnsNBlocks,
    /// O'Neil 2013 §3.2: DNS, a 2n×1 grid of ½n×n workgroups.
    Dns2nBlocks,
    /// O'Neil 2013 §3.2: DNS, a 4n×1 grid of ¼n×n workgroups.
    Dns4nBlocks,
    /// Issue 8: workgroup tiles, register blocks, vec4, double-buffered shared tiles, padded.
    CsFast,
    /// Issue 8: tensor cores through cooperative matrices, f16 in, f32 accumulation.
    Coop,
    /// The seed's naive triple loop on the CPU.
    CpuNaive,
    /// A fast multithreaded CPU GEMM (`gemm` crate).
    CpuFast,
}

impl Method {
    /// Every method, in the order the tour shows them.
    pub const ALL: &'static [Method] = &[
        Method::Lm,
        Method::HallBlocked,
        Method::HallPacked,
        Method::FragMrt,
        Method::CsNaive,
        Method::CsTiled16,
        Method::CsTiled32,
        Method::Kk73Uncoalesced,
        Method::Kk73Coalesced,
        Method::Kk73BankFree,
        Method::Kk73OuterProduct,
        Method::Kk73Unrolled,
        Method::Kk73Prefetch,
        Method::Cannon,
        Method::CannonTiled,
        Method::Dns,
        Method::DnsTiled,
        Method::DnsNBlocks,
        Method::Dns2nBlocks,
        Method::Dns4nBlocks,
        Method::CsFast,
        Method::Coop,
        Method::CpuNaive,
        Method::CpuFast,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Method::Lm => "lm",
            Method::HallBlocked => "hall-blocked",
            Method::HallPacked => "hall-packed",
            Method::FragMrt => "frag-mrt",
            Method::CsNaive => "cs-naive",
            Method::CsTiled16 => "cs-tiled-16",
            Method::CsTiled32 => "cs-tiled-32",
            Method::Kk73Uncoalesced => "5kk73-1-uncoalesced",
            Method::Kk73Coalesced => "5kk73-2-coalesced",
            Method::Kk73BankFree => "5kk73-3-bank-free",
            Method::Kk73OuterProduct => "5kk73-4-outer-product",
            Method::Kk73Unrolled => "5kk73-5-unrolled",
            Method::Kk73Prefetch => "5kk73-6-prefetch",
            Method::Cannon => "cannon",
            Method::CannonTiled => "cannon-tiled",
            Method::Dns => "dns",
            Method::DnsTiled => "dns-tiled",
            Method::DnsNBlocks => "dns-n-blocks",
            Method::Dns2nBlocks => "dns-2n-blocks",
            Method::Dns4nBlocks => "dns-4n-blocks",
            Method::CsFast => "cs-fast",
            Method::Coop => "coop",
            Method::CpuNaive => "cpu-naive",
            Method::CpuFast => "cpu-fast",
        }
    }

    /// One line on what the method is and where it comes from.
    pub fn description(self) -> &'static str {
        match self {
            Method::Lm => "Larsen–McAllister 2001: k quads, modulate, additive blend (§3)",
            Method::HallBlocked => {
                "Hall–Carr–Hart 2003: ⌈k/b⌉ blocked passes, ping-pong accumulation (§3)"
            }
            Method::HallPacked => {
                "Hall–Carr–Hart 2003: 2×2 RGBA channel-packed blocked passes (§4)"
            }
            Method::FragMrt => {
                "render pass: 4-row/4-column RGBA32F packing, a register block per fragment in 8 colour attachments"
            }
            Method::CsNaive => "compute: one invocation per element of C (HIP blog, 5kk73 naive)",
            Method::CsTiled16 => "compute: 16×16 shared-memory tiles, zero padding (HIP blog)",
            Method::CsTiled32 => "compute: 32×32 shared-memory tiles, zero padding (HIP blog)",
            Method::Kk73Uncoalesced => "5kk73 step 1: tiled, B loaded down columns (uncoalesced)",
            Method::Kk73Coalesced => {
                "5kk73 step 2: coalesced loads, transposed B tile (bank conflicts)"
            }
            Method::Kk73BankFree => "5kk73 step 3: coalesced, no bank conflicts",
            Method::Kk73OuterProduct => {
                "5kk73 step 4: outer product, A shared, B and C in registers"
            }
            Method::Kk73Unrolled => "5kk73 step 5: step 4 unrolled",
            Method::Kk73Prefetch => "5kk73 step 6: step 5 with double-buffered A tiles",
            Method::Cannon => "O'Neil 2013: Cannon in one workgroup, (i+j+p) mod n (§3.1)",
            Method::CannonTiled => "O'Neil 2013: Cannon by 8×8 blocks, any size (§5)",
            Method::Dns => "O'Neil 2013: DNS, m×k×n cube in one workgroup, tree reduction (§3.1)",
            Method::DnsTiled => "O'Neil 2013: DNS by 8×8×8 tiles + reduction pass (§5)",
            Method::DnsNBlocks => "O'Neil 2013: DNS, n×1 grid of n×n workgroups (§3.2)",
            Method::Dns2nBlocks => "O'Neil 2013: DNS, 2n×1 grid of ½n×n workgroups (§3.2)",
            Method::Dns4nBlocks => "O'Neil 2013: DNS, 4n×1 grid of ¼n×n workgroups (§3.2)",
            Method::CsFast => {
                "compute: register-blocked vec4 tiles, double-buffered, padded, bounds checks off"
            }
            Method::Coop => {
                "compute: cooperative matrices (tensor cores), f16 in, f32 accumulation"
            }
            Method::CpuNaive => "CPU naive triple loop (the seeds' baseline)",
            Method::CpuFast => "CPU fast GEMM (gemm crate, multithreaded SIMD)",
        }
    }

    /// Whether the method runs on the GPU.
    pub fn is_gpu(self) -> bool {
        !matches!(self, Method::CpuNaive | Method::CpuFast)
    }

    /// Whether the method has u8 / f16 modes (the render-pass methods).
    pub fn takes_precision(self) -> bool {
        matches!(self, Method::Lm | Method::HallBlocked | Method::HallPacked)
    }

    /// The relative Frobenius error the method is held to in f32 against the f64 reference.
    pub fn tolerance(self) -> f64 {
        1e-5
    }

    /// Look a method up by its command-line name.
    pub fn parse(name: &str) -> Result<Method> {
        Method::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
                Error::Invalid(format!(
                    "unknown method '{name}'; known: {}",
                    names.join(", ")
                ))
            })
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Sees the accumulation texture after passes (the demos and frame writers use it).
pub trait Observer {
    /// Called after pass `pass` (1-based) of `passes`, with the texture holding the running sum.
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()>;
}

/// Options shared by the methods; each method reads the ones that concern it.
#[derive(Default)]
pub struct Options<'a> {
    /// Called after every pass, if set. Methods that batch passes split them to call it.
    pub observer: Option<&'a mut dyn Observer>,
    /// Accept NaN and infinity in the inputs.
    pub allow_nonfinite: bool,
    /// Hall–Carr–Hart block size b (products summed per fragment per pass); `None` = 32.
    pub block: Option<u32>,
    /// Hall–Carr–Hart: how the running sum passes from one pass to the next.
    pub accumulate: Accumulate,
    /// Number format of textures and framebuffer for the render-pass methods. After a run the
    /// method leaves here the precision it actually used (f16 where f32 blending is missing).
    /// [`multiply`] refuses u8 and f16 for the methods that compute in f32 only.
    pub precision: crate::precision::Precision,
    /// u8 only: polygon colour 1/k so the blended sum cannot saturate (L-M §4; in the Hall
    /// methods it scales each block sum); result rescaled.
    pub scale_by_depth: bool,
    /// Tiling of products past the adapter's limits or the memory budget ([`crate::tiled`]):
    /// `--mem-budget`, `--no-tile`, the progress bar.
    pub tiling: crate::tiled::TileOptions,
    /// Left here by [`multiply`] when it tiled the product: how ([`crate::tiled::Tiling`]).
    pub tiled: Option<crate::tiled::Tiling>,
}

/// Wall-clock milliseconds of each phase, split as in the L-M paper's figures 4-5.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Creating the textures and loading the matrices into them.
    pub upload_ms: f64,
    /// The passes themselves.
    pub compute_ms: f64,
    /// GPU-side copies between passes.
    pub copy_ms: f64,
    /// Copying the result back to the host.
    pub readback_ms: f64,
    /// GPU time of the compute phase from timestamp queries (`None` where the adapter has none;
    /// then `compute_ms`, wall clock after a full wait, is the only figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ms: Option<f64>,
}

impl Timings {
    pub fn total_ms(&self) -> f64 {
        self.upload_ms + self.compute_ms + self.copy_ms + self.readback_ms
    }

    /// The best figure for the compute phase: device time where timestamps exist, else the wall
    /// clock; with the clock it came from.
    pub fn compute_time(&self) -> (f64, crate::gpu::timer::Clock) {
        match self.device_ms {
            Some(d) => (d, crate::gpu::timer::Clock::GpuTimestamp),
            None => (self.compute_ms, crate::gpu::timer::Clock::WallClock),
        }
    }
}

/// What a method returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub c: Matrix,
    /// Passes (render passes or slices) the method ran.
    pub passes: usize,
    pub timings: Timings,
    /// Remarks for the report (how the passes were laid out, fallbacks taken).
    pub notes: Vec<String>,
}

/// Validate the inputs and multiply `a · b` with `method`. GPU methods need `ctx`.
pub fn multiply(
    ctx: Option<&GpuContext>,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &mut Options,
) -> Result<RunOutput> {
    matrix::check_product(a, b)?;
    if !opts.allow_nonfinite {
        a.check_finite("A")?;
        b.check_finite("B")?;
    }
    if opts.precision != Precision::F32 && !method.takes_precision() {
        return Err(Error::Invalid(format!(
            "precision {}: method {method} computes in f32 only; u8 and f16 are for the render-pass methods (lm, hall-blocked, hall-packed)",
            opts.precision
        )));
    }
    let gpu = || ctx.ok_or_else(|| Error::Invalid(format!("method {method} needs a GPU context")));
    if opts.precision == Precision::F16 {
        check_f16_headroom(a, b)?;
    }
    // Past the adapter's limits or the memory budget: block by block (or a clear refusal).
    if let (Some(c), true) = (ctx, method.is_gpu())
        && let Some(out) = crate::tiled::multiply_if_needed(c, method, a, b, opts)?
    {
        return f16_guard(a, b, out, opts);
    }
    let out = match method {
        Method::Lm => larsen_mcallister::multiply(gpu()?, a, b, opts),
        Method::HallBlocked => hall_blocked::multiply(gpu()?, a, b, opts),
        Method::HallPacked => hall_packed::multiply(gpu()?, a, b, opts),
        Method::FragMrt => frag_mrt::multiply(gpu()?, a, b, opts),
        Method::CsNaive
        | Method::CsTiled16
        | Method::CsTiled32
        | Method::Kk73Uncoalesced
        | Method::Kk73Coalesced
        | Method::Kk73BankFree
        | Method::Kk73OuterProduct
        | Method::Kk73Unrolled
        | Method::Kk73Prefetch
        | Method::Cannon
        | Method::CannonTiled
        | Method::Dns
        | Method::DnsTiled
        | Method::DnsNBlocks
        | Method::Dns2nBlocks
        | Method::Dns4nBlocks => compute_era::multiply(gpu()?, method, a, b),
        Method::CsFast => cs_fast::multiply(gpu()?, a, b),
        Method::Coop => coop::multiply(gpu()?, a, b),
        Method::CpuNaive => Ok(cpu_run(a, b, cpu::naive)),
        Method::CpuFast => Ok(cpu_run(a, b, cpu::fast)),
    }?;
    f16_guard(a, b, out, opts)
}

/// Largest magnitude an f16 texture holds.
const F16_MAX: f32 = 65504.0;
/// Largest magnitude of an f16 result that is surely not saturated: the f16 value below 65504.
const F16_TRUSTED: f32 = 65472.0;

/// Error unless an f16 run of `a · b` stays inside f16's range all the way: every input within
/// what f16 textures hold (±65504; past it the upload saturates or overflows and the product
/// would silently be of other numbers), and every partial sum too. A partial sum of element
/// (i, j) is at most Σ_p |A_ip|·|B_pj| in magnitude, whatever the order of the passes; past
/// ±65504 an f16 sum saturates (lavapipe clamps) or overflows, and later terms can bring it back
/// into range, so the result could look plausible and be wrong. The bound is first taken from
/// row and column sums (O(mk + kn)); only when that cannot clear the product is Σ|A|·|B|
/// computed in full (a CPU GEMM).
pub fn check_f16_headroom(a: &Matrix, b: &Matrix) -> Result<()> {
    for (x, name) in [(a, "A"), (b, "B")] {
        if let Some(idx) = x
            .data
            .iter()
            .position(|v| v.is_finite() && v.abs() > F16_MAX)
        {
            return Err(Error::OutOfRange {
                name: name.into(),
                row: idx / x.cols,
                col: idx % x.cols,
                value: x.data[idx],
                lo: -F16_MAX,
                hi: F16_MAX,
                why: "f16 textures hold; use --precision f32".into(),
            });
        }
    }
    let (k, n) = (a.cols, b.cols);
    // Empty, or non-finite inputs that the caller allowed (whose products are what they are).
    if a.data.is_empty()
        || b.data.is_empty()
        || a.data.iter().chain(&b.data).any(|v| !v.is_finite())
    {
        return Ok(());
    }
    let max_abs = |x: &Matrix| x.data.iter().fold(0.0f64, |m, v| m.max(v.abs() as f64));
    let max_row_sum = a
        .data
        .chunks(k)
        .map(|r| r.iter().map(|v| v.abs() as f64).sum::<f64>())
        .fold(0.0, f64::max);
    let mut col_sums = vec![0.0f64; n];
    for row in b.data.chunks(n) {
        for (s, v) in col_sums.iter_mut().zip(row) {
            *s += v.abs() as f64;
        }
    }
    let max_col_sum = col_sums.into_iter().fold(0.0, f64::max);
    let cheap = (max_row_sum * max_abs(b)).min(max_abs(a) * max_col_sum);
    if cheap <= F16_TRUSTED as f64 {
        return Ok(());
    }
    let abs = |x: &Matrix| Matrix {
        rows: x.rows,
        cols: x.cols,
        data: x.data.iter().map(|v| v.abs()).collect(),
    };
    let sums = cpu::fast(&abs(a), &abs(b));
    match sums.data.iter().position(|&s| s > F16_TRUSTED) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: "sum_p |A_ip|·|B_pj| (the most an f16 partial sum of C can reach)".into(),
            row: idx / n,
            col: idx % n,
            value: sums.data[idx],
            lo: 0.0,
            hi: F16_TRUSTED,
            why: "f16 sums hold without saturating or overflowing: a partial sum could leave f16's range and the result be wrong; scale the inputs down or use --precision f32".into(),
        }),
    }
}

/// The range guard of an f16 run (`opts.precision` as it ran, so also a run that fell back from
/// f32 to f16): [`check_f16_headroom`], and then, as a backstop, the result itself: f16 holds
/// magnitudes up to 65504, and a sum past that saturates at 65504 on some adapters (lavapipe
/// clamps) and turns into infinity on others, either of which would pass for a result. So a
/// result element at the end of the range (or infinite from finite inputs) is an error, not an
/// answer.
pub fn check_f16_result(a: &Matrix, b: &Matrix, c: &Matrix, allow_nonfinite: bool) -> Result<()> {
    check_f16_headroom(a, b)?;
    let bad = |v: &f32| {
        if v.is_finite() {
            v.abs() > F16_TRUSTED
        } else {
            !allow_nonfinite
        }
    };
    match c.data.iter().position(bad) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: "C (computed in f16)".into(),
            row: idx / c.cols,
            col: idx % c.cols,
            value: c.data[idx],
            lo: -F16_TRUSTED,
            hi: F16_TRUSTED,
            why: "an f16 result can be trusted in: past it the f16 sums saturate or overflow, so the true value is larger; scale the inputs down or use --precision f32".into(),
        }),
    }
}

fn f16_guard(a: &Matrix, b: &Matrix, out: RunOutput, opts: &Options) -> Result<RunOutput> {
    if opts.precision == Precision::F16 {
        check_f16_result(a, b, &out.c, opts.allow_nonfinite)?;
    }
    Ok(out)
}

fn cpu_run(a: &Matrix, b: &Matrix, f: fn(&Matrix, &Matrix) -> Matrix) -> RunOutput {
    let t = Instant::now();
    let c = f(a, b);
    RunOutput {
        c,
        passes: 1,
        timings: Timings {
            compute_ms: t.elapsed().as_secs_f64() * 1e3,
            ..Default::default()
        },
        notes: vec![],
    }
}

/// The report `multiply --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub method: String,
    pub precision: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Products computed at once (4 with `--channels 4`).
    pub channels: usize,
    pub adapter: String,
    pub backend: String,
    pub passes: usize,
    pub upload_ms: f64,
    pub compute_ms: f64,
    pub copy_ms: f64,
    pub readback_ms: f64,
    pub total_ms: f64,
    /// GPU time of the compute phase from timestamp queries, where the adapter has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ms: Option<f64>,
    /// The clock behind `gflops`: `gpu-timestamp` (device_ms) or `wall-clock` (compute_ms).
    pub timing: crate::gpu::timer::Clock,
    /// 2·m·k·n·channels / compute time (device time where the adapter has timestamps).
    pub gflops: f64,
    /// u8: the L-M paper's byte operations per second, (2·m·k·n − m·n)·channels over the total
    /// time (the paper's timings include conversion, upload and readback), in GBops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbops: Option<f64>,
    /// Hall–Carr–Hart §5's model of this run, for methods that have one: bytes moved inside the
    /// GPU (table 1, scaled to the run's channels and bytes per channel) and fragment-shader
    /// instructions (table 2), with the rates they imply over `compute_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_instructions: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_ginst_per_s: Option<f64>,
    /// The compute era's model of this run ([`crate::model_compute`]): bytes of global-memory
    /// traffic, the computation-to-memory ratio (5kk73) / arithmetic intensity (HIP blog), and the
    /// global bandwidth the run achieved if the model holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_global_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_flop_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_global_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated_share: Option<f64>,
    /// The full verdict per channel (one entry unless `--channels 4`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Verdict>,
    pub notes: Vec<String>,
    /// How the product was tiled, if it was ([`crate::tiled`]); the caller sets it from
    /// [`Options::tiled`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiling: Option<crate::tiled::Tiling>,
}

impl Report {
    /// Build the report of one run (of `channels` products of the same shape), with the verdicts
    /// against the f64 reference if the run was checked (the worst channel's errors go on top).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: Option<&GpuContext>,
        method: Method,
        precision: Precision,
        (m, k, n): (usize, usize, usize),
        channels: usize,
        passes: usize,
        timings: &Timings,
        notes: &[String],
        checks: Vec<Verdict>,
    ) -> Self {
        let t = timings;
        let (adapter, backend) = match (method.is_gpu(), ctx) {
            (true, Some(c)) => (c.info.name.clone(), format!("{:?}", c.info.backend)),
            _ => ("CPU".to_string(), "cpu".to_string()),
        };
        let flops = 2.0 * (m * k * n * channels) as f64;
        let byte_ops = ((2 * m * k * n - m * n) * channels) as f64;
        let worst = checks
            .iter()
            .max_by(|x, y| x.stats.rel_err.total_cmp(&y.stats.rel_err));
        let checked = !checks.is_empty();
        let model = crate::model::for_run(method, m, k, n, passes);
        let model_bytes = model
            .as_ref()
            .map(|md| md.total_bytes * (channels * precision.bytes_per_channel()) as u64 / 4);
        let per_s = |x: u64| x as f64 / (t.compute_time().0.max(1e-9) * 1e6);
        let compute_model = match ctx {
            Some(c) => crate::model_compute::model_with_limits(method, m, k, n, &c.limits),
            None => crate::model_compute::model(method, m, k, n),
        };
        Report {
            method: method.name().into(),
            precision: precision.name().into(),
            m,
            k,
            n,
            channels,
            adapter,
            backend,
            passes,
            upload_ms: t.upload_ms,
            compute_ms: t.compute_ms,
            copy_ms: t.copy_ms,
            readback_ms: t.readback_ms,
            total_ms: t.total_ms(),
            device_ms: t.device_ms,
            timing: t.compute_time().1,
            gflops: flops / (t.compute_time().0.max(1e-9) * 1e6),
            gbops: (precision == Precision::U8).then(|| byte_ops / (t.total_ms().max(1e-9) * 1e6)),
            model_bytes,
            model_gbps: model_bytes.map(per_s),
            model_instructions: model.as_ref().map(|md| md.total_instructions),
            model_ginst_per_s: model.as_ref().map(|md| per_s(md.total_instructions)),
            model_global_bytes: compute_model.as_ref().map(|md| md.global_bytes),
            model_flop_per_byte: compute_model.as_ref().map(|md| md.flop_per_byte),
            model_global_gbps: compute_model.as_ref().map(|md| per_s(md.global_bytes)),
            max_abs_err: worst.map(|v| v.stats.max_abs_err),
            rel_err: worst.map(|v| v.stats.rel_err),
            tolerance: worst.map(|v| v.tolerance.clone()),
            check_passed: checked.then(|| checks.iter().all(|v| v.passed)),
            saturated: checked
                .then(|| checks.iter().filter_map(|v| v.saturated).sum::<usize>())
                .filter(|_| precision == Precision::U8),
            saturated_share: (checked && precision == Precision::U8).then(|| {
                checks.iter().filter_map(|v| v.saturated).sum::<usize>() as f64
                    / (m * n * channels) as f64
            }),
            checks,
            notes: notes.to_vec(),
            tiling: None,
        }
    }

    /// The report of a single-product run.
    pub fn of_run(
        ctx: Option<&GpuContext>,
        method: Method,
        precision: Precision,
        a: &Matrix,
        b: &Matrix,
        out: &RunOutput,
        check: Option<Verdict>,
    ) -> Self {
        Report::new(
            ctx,
            method,
            precision,
            (a.rows, a.cols, b.cols),
            1,
            out.passes,
            &out.timings,
            &out.notes,
            check.into_iter().collect(),
        )
    }
}

/// Multiply and check against the f64 reference in one go (the tour and the tests use it).
pub fn multiply_checked(
    ctx: Option<&GpuContext>,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &mut Options,
) -> Result<(RunOutput, ErrorStats)> {
    let out = multiply(ctx, method, a, b, opts)?;
    let stats = check::compare(&out.c, &cpu::reference_f64(a, b));
    Ok((out, stats))
}
