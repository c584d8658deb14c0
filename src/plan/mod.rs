//! The one entry point, [`multiply`]: validate the inputs and the options against the method's
//! row of [`crate::methods::TABLE`], tile products past the adapter's limits or the memory
//! budget ([`tiled`]), dispatch to the method, and guard what comes back. Also
//! [`verdict_for`], which judges a result by the model of the method that made it.
//!
//! This layer sits above `methods/` and may use everything below it; `bench`, `model`,
//! `report`, `reach`, `demo` and the CLI call it.

pub mod tiled;

use crate::check::{self, Arith, ErrorStats, Verdict};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::compute;
use crate::gpu::run::{run, run_async};
use crate::matrix::{self, Matrix};
use crate::methods::{
    Accumulate, Method, Observer, Params, RanKernel, RunOutput, Runs, Timings, Work,
};
use crate::precision::{self, Precision};

/// Options of one multiply: the method's own ([`Params`]) and how to tile.
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
    /// Number format of textures and framebuffer for the render-pass methods. After a run it
    /// holds the precision the method actually used (f16 where f32 blending is missing).
    /// [`multiply`] refuses u8 and f16 for the methods that compute in f32 only.
    pub precision: Precision,
    /// u8 only: polygon colour 1/k so the blended sum cannot saturate (L-M §4; in the Hall
    /// methods it scales each block sum); result rescaled.
    pub scale_by_depth: bool,
    /// u8 only: the widths of the value a fragment hands on and of the running sum (L-M §4;
    /// `--u8-product-bits`, `--u8-sum-bits`); the default, 8 and 8, is rendermm's u8 mode.
    pub u8_bits: precision::U8Bits,
    /// The kernel variants to run (cs-fast's, coop's, frag-mrt's shape); `None` in each lets the
    /// method pick. The command line fills them from its knobs ([`crate::methods::Kernels`]).
    pub kernels: crate::methods::Kernels,
    /// Tiling of products past the adapter's limits or the memory budget ([`tiled`]):
    /// `--mem-budget`, `--no-tile`, the progress bar.
    pub tiling: tiled::TileOptions,
    /// Left here by [`multiply`] when it tiled the product: how ([`tiled::Tiling`]).
    pub tiled: Option<tiled::Tiling>,
}

impl Options<'_> {
    /// Run `f` with the method's options borrowed from these, and keep the precision the method
    /// says it ran in.
    pub fn with_params<T>(&mut self, f: impl FnOnce(&mut Params) -> T) -> T {
        let mut p = Params {
            observe: self.observer.is_some(),
            allow_nonfinite: self.allow_nonfinite,
            block: self.block,
            accumulate: self.accumulate,
            precision: self.precision,
            scale_by_depth: self.scale_by_depth,
            u8_bits: self.u8_bits,
            kernels: self.kernels,
        };
        let out = f(&mut p);
        self.precision = p.precision;
        out
    }
}

/// Why `method` does not take `precision`, or `None` where it does: the one wording of this
/// refusal, for the library's check and the command line's early one alike.
pub fn precision_refusal(method: Method, precision: Precision) -> Option<String> {
    if precision == Precision::F32 || method.takes_precision() {
        return None;
    }
    let takes: Vec<&str> = Method::ALL
        .iter()
        .filter(|m| m.takes_precision())
        .map(|m| m.name())
        .collect();
    Some(format!(
        "{}; u8 and f16 are modes of {} only",
        match method {
            Method::FragMrtF16 | Method::Coop =>
                "rounds its inputs to f16 itself (f32 sums) and takes no --precision",
            _ => "computes in f32 only",
        },
        takes.join(", ")
    ))
}

/// Validate the inputs and multiply `a · b` with `method`, blocking. GPU methods need `ctx`.
/// Products past the adapter's limits or the memory budget are tiled ([`tiled`]).
pub fn multiply(
    ctx: Option<&GpuContext>,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &mut Options,
) -> Result<RunOutput> {
    validate(method, a, b, opts)?;
    let gpu = || ctx.ok_or_else(|| Error::Invalid(format!("method {method} needs a GPU context")));
    // Past the adapter's limits or the memory budget: block by block (or a clear refusal).
    if let (Some(c), true) = (ctx, method.is_gpu())
        && let Some(out) = tiled::multiply_if_needed(c, method, a, b, opts)?
    {
        return f16_guard(a, b, out, opts);
    }
    let out = match method.info().runs {
        Runs::Cpu(f) => cpu_run(method, a, b, f),
        Runs::Record(_) | Runs::Compute { .. } => {
            let ctx = gpu()?;
            let observe = opts.observer.is_some();
            let mut observer = opts.observer.take();
            let ran = run(ctx, observer.as_deref_mut(), || {
                record(ctx, method, a, b, opts, observe)
            });
            opts.observer = observer;
            let ran = ran?;
            compute::note_repeats(&ran.repeats_ms);
            let runs = compute_runs_as(method, &ctx.limits, a.rows, a.cols, b.cols);
            ran.into_output_as(runs.name(), opts.precision)?
        }
    };
    f16_guard(a, b, out, opts)
}

/// [`multiply`] for hosts where nothing may block (a browser): the same validation and
/// methods, the device awaited. Products past one texture, the memory budget or the driver's
/// shader loop cap are refused rather than tiled.
pub async fn multiply_async(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &mut Options<'_>,
) -> Result<RunOutput> {
    validate(method, a, b, opts)?;
    if method.is_gpu() {
        // The driver's loop cap, which the plan reads without blocking.
        ctx.loop_cap_async().await?;
    }
    if method.is_gpu() && tiled::plan(ctx, method, a.rows, a.cols, b.cols, opts)?.is_some() {
        return Err(Error::Unsupported {
            option: format!("a {}x{}x{} product", a.rows, a.cols, b.cols),
            method: method.name(),
            why: "would need tiling past the adapter's limits, which runs only natively".into(),
        });
    }
    let out = match method.info().runs {
        Runs::Cpu(f) => cpu_run(method, a, b, f),
        Runs::Record(_) | Runs::Compute { .. } => {
            let observe = opts.observer.is_some();
            let mut observer = opts.observer.take();
            let ran = run_async(ctx, observer.as_deref_mut(), || {
                record(ctx, method, a, b, opts, observe)
            })
            .await;
            opts.observer = observer;
            let runs = compute_runs_as(method, &ctx.limits, a.rows, a.cols, b.cols);
            ran?.into_output_as(runs.name(), opts.precision)?
        }
    };
    f16_guard(a, b, out, opts)
}

/// What every multiply checks first: shapes, finite values, a precision the method takes, and
/// for f16 that every partial sum stays inside f16's range.
fn validate(method: Method, a: &Matrix, b: &Matrix, opts: &Options) -> Result<()> {
    matrix::check_product(a, b)?;
    if !opts.allow_nonfinite {
        a.check_finite("A")?;
        b.check_finite("B")?;
    }
    if let Some(why) = precision_refusal(method, opts.precision) {
        return Err(Error::Unsupported {
            option: format!("precision {}", opts.precision),
            method: method.name(),
            why,
        });
    }
    if opts.precision == Precision::F16 {
        precision::check_f16_headroom(a, b)?;
    }
    Ok(())
}

/// Record the GPU work of `method` on `a · b` for the runner: the method's own recording, or a
/// compute plan on the compute harness (with the single-workgroup fallback of
/// [`compute_runs_as`], noted).
fn record(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &mut Options,
    observe: bool,
) -> Result<Work> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    match method.info().runs {
        Runs::Record(f) => opts.with_params(|p| {
            p.observe = observe;
            f(ctx, a, b, p)
        }),
        Runs::Compute { .. } => {
            let runs = compute_runs_as(method, &ctx.limits, m, k, n);
            let plan = compute_plan(runs, &ctx.limits, m, k, n).unwrap_or_else(|| {
                Err(Error::Internal(format!("{runs} is not a compute method")))
            })?;
            let ops = compute::Operands::upload(ctx, &plan, a, b)?;
            let mut work = compute::record(ctx, &plan, ops, (m, n))?;
            if runs != method {
                let why = compute_plan(method, &ctx.limits, m, k, n)
                    .and_then(|p| p.err())
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                work.notes.insert(
                    0,
                    format!("single-workgroup {method} cannot take {m}x{k}x{n} ({why}); ran {runs} instead"),
                );
            }
            Ok(work)
        }
        Runs::Cpu(_) => Err(Error::Invalid(format!(
            "{method} does not record its work for the runner"
        ))),
    }
}

/// The compute plan `method` runs for an m×k·k×n product under `limits`: `None` if `method`
/// does not run on the compute harness, `Some(Err(..))` if it cannot run this product (a
/// single-workgroup method given too large a product).
pub fn compute_plan(
    method: Method,
    limits: &wgpu::Limits,
    m: usize,
    k: usize,
    n: usize,
) -> Option<Result<compute::Plan>> {
    match method.info().runs {
        Runs::Compute { plan, .. } => Some(plan(limits, m, k, n)),
        _ => None,
    }
}

/// The method that runs a product too large for `method`'s single workgroup (`cannon` →
/// `cannon-tiled`, `dns` → `dns-tiled`), if it has one.
pub fn compute_fallback(method: Method) -> Option<Method> {
    match method.info().runs {
        Runs::Compute { fallback, .. } => fallback,
        _ => None,
    }
}

/// The compute method that runs an m×k·k×n product asked of `method` under `limits`: `method`
/// itself, or its multi-workgroup version when the single workgroup cannot take the product
/// (`cannon` → `cannon-tiled`, `dns` → `dns-tiled`).
pub fn compute_runs_as(
    method: Method,
    limits: &wgpu::Limits,
    m: usize,
    k: usize,
    n: usize,
) -> Method {
    match (
        compute_plan(method, limits, m, k, n),
        compute_fallback(method),
    ) {
        (Some(Err(Error::Limit { .. })), Some(tiled)) => tiled,
        _ => method,
    }
}

fn f16_guard(a: &Matrix, b: &Matrix, out: RunOutput, opts: &Options) -> Result<RunOutput> {
    if opts.precision == Precision::F16 {
        precision::check_f16_result(a, b, &out.c, opts.allow_nonfinite)?;
    }
    Ok(out)
}

fn cpu_run(method: Method, a: &Matrix, b: &Matrix, f: fn(&Matrix, &Matrix) -> Matrix) -> RunOutput {
    let t = crate::clock::Instant::now();
    let c = f(a, b);
    RunOutput {
        c,
        passes: 1,
        timings: Timings {
            compute_ms: crate::gpu::run::ms(t),
            ..Default::default()
        },
        notes: vec![],
        kernel: RanKernel {
            method: method.name().into(),
            variant: None,
            inputs: Precision::F32,
            sums: Precision::F32,
        },
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

/// The arithmetic `method` ran `a · b` in with `opts` ([`check::Arith`]): `opts.precision` is
/// the precision the run used (the render-pass methods write back the f16 they fall back to),
/// `opts.block` the Hall block size, `opts.scale_by_depth` the u8 polygon colour 1/k,
/// `opts.u8_bits` the u8 widths. `coop` and `frag-mrt-f16` round their inputs to f16 and sum in
/// f32; every other method without u8 / f16 modes computes in f32.
pub fn arith_for(method: Method, opts: &Options) -> Arith {
    match method {
        Method::Coop => Arith::F16Inputs { tensor_cores: true },
        Method::FragMrtF16 => Arith::F16Inputs {
            tensor_cores: false,
        },
        _ => match method.pipeline(opts.block) {
            Some(pipeline) => {
                Arith::of_pipeline(pipeline, opts.precision, opts.scale_by_depth, opts.u8_bits)
            }
            None => Arith::F32,
        },
    }
}

/// Judge `c = a · b` as `method` computed it with `opts`: the judge ([`check::judge`]) on the
/// arithmetic of [`arith_for`].
pub fn verdict_for(method: Method, opts: &Options, a: &Matrix, b: &Matrix, c: &Matrix) -> Verdict {
    check::judge(arith_for(method, opts), a, b, c)
}
