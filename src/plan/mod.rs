//! The one entry point, [`multiply`] (and [`multiply_async`] for the browser): a [`Request`] in,
//! an [`Outcome`] out. It validates the request once against the method's row of
//! [`crate::methods::TABLE`], plans (the product whole, or tiled past the adapter's limits, the
//! memory budget or the driver's loop cap: [`tiled::plan`], pure), runs the method's recorded work
//! on the GPU (or the CPU method), and records what ran — the kernel, the precisions, b, passes,
//! tiles, timings and the arithmetic the judge holds the result to.
//!
//! This layer sits above `methods/` and may use everything below it; `bench`, `model`,
//! `report`, `reach`, `demo`, the web page and the CLI call it.

pub mod options;
mod request;
pub mod resident;
pub mod tiled;

pub use crate::methods::Repeats;
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use options::{Asked, Spelling, precision_refusal};
pub use request::{Options, Outcome, Progress, Request};

use crate::check::Arith;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::compute;
use crate::gpu::run::{run_async, run_async_into};
use crate::matrix::{self, Matrix};
use crate::methods::{
    Method, Observer, RanKernel, Recorded, RunOutput, Runs, Timings, Variant, larsen_mcallister,
};
use crate::precision::{self, Pipeline, Precision};

/// Multiply as `req` asks, blocking: validate, plan, run, record. GPU methods need `ctx`.
/// Products past the adapter's limits, the memory budget or the driver's loop cap are tiled
/// ([`tiled`]).
pub fn multiply(ctx: Option<&GpuContext>, req: Request) -> Result<Outcome> {
    pollster::block_on(multiply_timed(ctx, req))
}

/// [`multiply`] for hosts where nothing may block (a browser): the same validation, plan,
/// tiling and methods — the same code — with the device awaited instead of waited for.
#[cfg(feature = "internals")]
pub async fn multiply_async(ctx: &GpuContext, req: Request<'_>) -> Result<Outcome> {
    multiply_timed(Some(ctx), req).await
}

/// [`multiply_awaiting`] with a stopwatch around it: the outcome's `timings.wall_ms`, host to
/// host as the caller's own clock would read it.
async fn multiply_timed(ctx: Option<&GpuContext>, req: Request<'_>) -> Result<Outcome> {
    let started = crate::clock::Instant::now();
    let mut out = multiply_awaiting(ctx, req).await?;
    out.timings.wall_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(out)
}

/// Measure the driver's loop cap in the stage `method` loops in, as far as an m×k·k×n product
/// needs ([`GpuContext::stage_loops_async`]); nothing for a method without shader loops. The
/// plan does it on its own (blocking natively, first in a browser); a page calls it to time the
/// probe apart from the product.
#[cfg(any(target_arch = "wasm32", feature = "internals"))]
pub async fn measure_loops(
    ctx: &GpuContext,
    method: Method,
    m: usize,
    k: usize,
    n: usize,
) -> Result<()> {
    if let Some(loops) = method.loops() {
        let need = (loops.iterations)(&ctx.limits, m, k, n);
        ctx.stage_loops_async(loops.stage, need).await?;
    }
    Ok(())
}

/// The entry point's one body, which [`multiply`] blocks on and [`multiply_async`] awaits.
async fn multiply_awaiting(ctx: Option<&GpuContext>, req: Request<'_>) -> Result<Outcome> {
    // A method that tests A and B for NaN and infinity as it copies them up does so in place of
    // a pass of its own over them first (on a 4096² product the separate scan was a fifth of
    // the call's time outside its phases); a tiled product is scanned whole first, below.
    if let Some(product) = req.on_device {
        let ctx = ctx.ok_or_else(|| needs_gpu(req.method))?;
        // Products kept on the device serve reach's chains, a native command; the page reads
        // every product back, and its download carries no code it does not run.
        #[cfg(feature = "native")]
        return resident::multiply(ctx, req.method, product, &req.options).await;
        #[cfg(not(feature = "native"))]
        {
            let _ = (ctx, product);
            return Err(Error::Invalid(
                "products kept on the device are a native feature (rendermm reach)".into(),
            ));
        }
    }
    let scanned_on_upload = ctx.is_some() && req.method.scans_inputs_on_upload();
    validate(&req, !scanned_on_upload)?;
    let Request {
        method,
        a,
        b,
        more_channels,
        options: opts,
        observer,
        progress,
        reuse,
        on_device: _,
    } = req;
    if method.is_host_api() {
        if observer.is_some() {
            return Err(Error::Invalid(format!(
                "{method} draws through OpenGL, not wgpu: it has no accumulation texture for an observer"
            )));
        }
        return host(method, a, b, &more_channels, &opts);
    }
    if !more_channels.is_empty() {
        let ctx = ctx.ok_or_else(|| needs_gpu(method))?;
        return channels(ctx, a, b, &more_channels, &opts).await;
    }
    // A browser cannot block: the driver's loop cap, which the plan reads, is measured first.
    // Natively the plan measures it only once the sizes fit, so a product over a limit is
    // refused before anything touches the device.
    #[cfg(target_arch = "wasm32")]
    if let Some(c) = ctx {
        measure_loops(c, method, a.rows, a.cols, b.cols).await?;
    }
    let observed = observer.is_some();
    if let (Some(c), true) = (ctx, method.is_gpu())
        && let Some(t) = tiled::plan(c, method, a.rows, a.cols, b.cols, &opts, observed)?
    {
        if scanned_on_upload && !opts.allow_nonfinite {
            a.check_finite("A")?;
            b.check_finite("B")?;
        }
        let out = tiled::multiply_tiled(c, method, a, b, &opts, &t, progress).await?;
        return finish(method, a, b, out, Some(t), &opts);
    }
    let out = run_whole(ctx, method, a, b, &opts, observer, reuse).await?;
    finish(method, a, b, out, None, &opts)
}

/// Run `a · b` whole by `method`: its recorded work on the GPU (awaited, C read back into
/// `reuse` where it is not empty), or the CPU method.
async fn run_whole(
    ctx: Option<&GpuContext>,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &Options,
    observer: Option<&mut (dyn Observer + '_)>,
    reuse: Vec<f32>,
) -> Result<RunOutput> {
    Ok(match method.info().runs {
        Runs::Cpu(f) => cpu_run(method, a, b, f),
        Runs::Host(f) => f(&[a], &[b], &opts.params(false))?.0,
        Runs::Record(_) | Runs::Compute { .. } => {
            let ctx = ctx.ok_or_else(|| needs_gpu(method))?;
            let observe = observer.is_some();
            // The variant the method chose, as its recording says.
            let mut variant = None;
            let ran = run_async_into(ctx, observer, reuse, || {
                let recorded = record(ctx, method, a, b, opts, observe)?;
                variant = recorded.variant;
                Ok(recorded.work)
            })
            .await?;
            let runs = runs_as(method, opts, &ctx.limits, a.rows, a.cols, b.cols);
            RunOutput::of(ran, runs, variant, opts.precision)?
        }
    })
}

fn needs_gpu(method: Method) -> Error {
    Error::Invalid(format!("method {method} needs a GPU context"))
}

/// What every multiply checks first, once: shapes (of every channel's pair), finite values
/// (unless `scan_finite` is false: the method's upload tests them), a precision the method
/// takes, and for f16 that every partial sum stays inside f16's range.
fn validate(req: &Request, scan_finite: bool) -> Result<()> {
    let (method, opts) = (req.method, &req.options);
    let pairs = std::iter::once((req.a, req.b)).chain(req.more_channels.iter().copied());
    if !req.more_channels.is_empty() {
        options::check_channels(method, req.more_channels.len() + 1, Spelling::Library)?;
        if req.observer.is_some() {
            return Err(Error::Invalid(
                "the four-channel mode has no single accumulation texture for an observer".into(),
            ));
        }
    }
    for (c, (a, b)) in pairs.enumerate() {
        matrix::check_product(a, b)?;
        if a.shape() != req.a.shape() || b.shape() != req.b.shape() {
            return Err(Error::Invalid(format!(
                "pair {c} is {}x{}·{}x{} but pair 0 is {}x{}·{}x{}; the channels share one set of passes",
                a.rows, a.cols, b.rows, b.cols, req.a.rows, req.a.cols, req.b.rows, req.b.cols
            )));
        }
        if scan_finite && !opts.allow_nonfinite {
            a.check_finite("A")?;
            b.check_finite("B")?;
        }
        if method.is_render_pass() || method.is_host_api() {
            refuse_subnormal(method, a, "A")?;
            refuse_subnormal(method, b, "B")?;
        }
        if opts.precision == Precision::F16 {
            precision::check_f16_headroom(a, b)?;
        }
    }
    options::check_repeats(opts.repeats)?;
    options::check_precision(method, opts.precision, Spelling::Library)?;
    Ok(())
}

/// A render-pass method reads its inputs through textures and sums them in the blend unit or a
/// fragment shader, which flush f32 subnormals (|x| < 2⁻¹²⁶ ≈ 1.18e-38) to zero: A = 1e-39,
/// B = 1e38 gives C = 0 where the product is 0.8 per term. Refused, naming the first one, as
/// non-finite inputs are; the compute methods keep subnormals where the adapter does.
fn refuse_subnormal(method: Method, m: &Matrix, name: &str) -> Result<()> {
    match m.data.iter().position(|v| v.is_subnormal()) {
        None => Ok(()),
        Some(idx) => Err(Error::Invalid(format!(
            "{name} has a subnormal value {:e} at row {}, column {}: {method}'s render pass flushes f32 subnormals (magnitude under 2^-126 ≈ 1.18e-38) to 0, which would drop its products; scale the inputs into f32's normal range or use a compute method (cs-naive)",
            m.data[idx],
            idx / m.cols,
            idx % m.cols
        ))),
    }
}

/// L-M's four channels (§5): the pairs multiplied in one set of passes, one per colour channel.
async fn channels(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    more: &[(&Matrix, &Matrix)],
    opts: &Options,
) -> Result<Outcome> {
    let xs: Vec<&Matrix> = std::iter::once(a).chain(more.iter().map(|p| p.0)).collect();
    let ys: Vec<&Matrix> = std::iter::once(b).chain(more.iter().map(|p| p.1)).collect();
    let params = opts.params(false);
    let ran = run_async(ctx, None, || {
        larsen_mcallister::record_channels(ctx, &xs, &ys, &params)
    })
    .await?;
    let sums = ran.sums.unwrap_or(opts.precision);
    if sums == Precision::F16 {
        // Sums past f16's range saturate or overflow: an error, not an answer (every channel).
        for ((x, y), c) in xs.iter().zip(&ys).zip(&ran.cs) {
            precision::check_f16_result(x, y, c, opts.allow_nonfinite)?;
        }
    }
    let mut cs = ran.cs.into_iter();
    let c = cs
        .next()
        .ok_or_else(|| Error::Internal("the four-channel run read back no matrix".into()))?;
    let kernel = RanKernel {
        variant: Some(Variant::Rgba),
        ..RanKernel::new(Method::Lm, sums)
    };
    Ok(Outcome {
        c,
        more_channels: cs.collect(),
        method: Method::Lm,
        shape: (a.rows, a.cols, b.cols),
        arith: arith(Method::Lm, sums, opts),
        kernel,
        block: None,
        passes: ran.passes,
        tiling: None,
        timings: ran.timings,
        notes: ran.notes,
        on_device: None,
        clamp: None,
    })
}

/// A GL-era method ([`Runs::Host`]): its own context, 1 or 4 pairs, no tiling by the plan (it
/// splits k past its texture side itself), what ran recorded as for every method.
fn host(
    method: Method,
    a: &Matrix,
    b: &Matrix,
    more: &[(&Matrix, &Matrix)],
    opts: &Options,
) -> Result<Outcome> {
    let Runs::Host(run) = method.info().runs else {
        return Err(Error::Internal(format!(
            "{method} is not a host-API method"
        )));
    };
    let xs: Vec<&Matrix> = std::iter::once(a).chain(more.iter().map(|p| p.0)).collect();
    let ys: Vec<&Matrix> = std::iter::once(b).chain(more.iter().map(|p| p.1)).collect();
    let (out, rest) = run(&xs, &ys, &opts.params(false))?;
    let mut outcome = finish(method, a, b, out, None, opts)?;
    outcome.more_channels = rest;
    Ok(outcome)
}

/// The run's output made an outcome: f16 sums checked against f16's range, and the arithmetic
/// the judge will hold C to, from the kernel that ran.
fn finish(
    method: Method,
    a: &Matrix,
    b: &Matrix,
    out: RunOutput,
    tiling: Option<tiled::Tiling>,
    opts: &Options,
) -> Result<Outcome> {
    if out.kernel.sums == Precision::F16 {
        precision::check_f16_result(a, b, &out.c, opts.allow_nonfinite)?;
    }
    // Hall's b (32 unless asked); frag-mrt's passes over k only where asked.
    let block = match method {
        Method::HallBlocked | Method::HallPacked | Method::HallArbfp => Some(
            opts.block
                .unwrap_or(crate::methods::hall_blocked::DEFAULT_BLOCK),
        ),
        _ if method.info().takes.block => opts.block,
        _ => None,
    };
    Ok(Outcome {
        arith: arith_of_run(method, &out.kernel, opts),
        c: out.c,
        more_channels: vec![],
        method,
        shape: (a.rows, a.cols, b.cols),
        kernel: out.kernel,
        block,
        passes: out.passes,
        tiling,
        timings: out.timings,
        notes: out.notes,
        on_device: None,
        clamp: None,
    })
}

/// Record the GPU work of `method` on `a · b` for the runner: the method's own recording, or a
/// compute plan on the compute harness (with the single-workgroup fallback of
/// [`compute_runs_as`], noted).
fn record(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    opts: &Options,
    observe: bool,
) -> Result<Recorded> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    match method.info().runs {
        Runs::Record(f) => f(ctx, a, b, &opts.params(observe)),
        Runs::Compute { .. } => {
            let runs = runs_as(method, opts, &ctx.limits, m, k, n);
            let (plan, variant) = compute_plan_named(runs, opts, &ctx.limits, m, k, n)
                .unwrap_or_else(|| {
                    Err(Error::Internal(format!("{runs} is not a compute method")))
                })?;
            let (ops, finite) = compute::Operands::upload_scanned(ctx, &plan, a, b)?;
            crate::matrix::refuse_nonfinite(finite, opts.allow_nonfinite, a, b)?;
            let mut work = compute::record(ctx, &plan, ops, (m, n), opts.repeats)?;
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
            Ok(Recorded { work, variant })
        }
        Runs::Cpu(_) | Runs::Host(_) => Err(Error::Internal(format!(
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

/// The compute plan `method` runs for an m×k·k×n product with `opts`: the kernel configuration
/// `opts.kernels` names for it ([`crate::methods::Kernels::compute_plan`], with that
/// configuration), else [`compute_plan`]. `None` if `method` does not run on the compute
/// harness.
pub fn compute_plan_named(
    method: Method,
    opts: &Options,
    limits: &wgpu::Limits,
    m: usize,
    k: usize,
    n: usize,
) -> Option<Result<(compute::Plan, Option<Variant>)>> {
    match opts.kernels.compute_plan(method, m, k, n) {
        Some(named) => Some(named.map(|(plan, variant)| (plan, Some(variant)))),
        None => compute_plan(method, limits, m, k, n).map(|p| p.map(|plan| (plan, None))),
    }
}

/// [`compute_runs_as`] with `opts`: a method whose kernel configuration the request names runs
/// it as named, never its fallback.
fn runs_as(
    method: Method,
    opts: &Options,
    limits: &wgpu::Limits,
    m: usize,
    k: usize,
    n: usize,
) -> Method {
    if opts.kernels.compute_plan(method, m, k, n).is_some() {
        method
    } else {
        compute_runs_as(method, limits, m, k, n)
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
        kernel: RanKernel::new(method, Precision::F32),
    }
}

/// [`arith`] of the run that recorded `kernel`: where the run says how its fixed-function
/// texture environment rounds (`lm-gl1`, by its driver), the 8-bit model follows that rounding.
pub fn arith_of_run(method: Method, kernel: &RanKernel, opts: &Options) -> Arith {
    match (arith(method, kernel.sums, opts), kernel.rounding) {
        (
            Arith::U8 {
                pipeline: Pipeline::FixedFunction(_),
                scale_by_depth,
                bits,
            },
            Some(rounding),
        ) => Arith::U8 {
            pipeline: Pipeline::FixedFunction(rounding),
            scale_by_depth,
            bits,
        },
        (arith, _) => arith,
    }
}

/// The arithmetic a run of `method` computed in, from the precision its sums were actually kept
/// in (the kernel's, [`RanKernel::sums`]) and the options it ran with (b, the u8 polygon colour
/// and widths): what the judge ([`crate::check::judge`]) holds its result to. `coop` and
/// `frag-mrt-f16` round their inputs to f16 and sum in f32; every other method without u8 / f16
/// modes computes in f32. A run's [`Outcome::arith`] is this; the tests use it to judge results
/// they plant.
pub fn arith(method: Method, sums: Precision, opts: &Options) -> Arith {
    match method {
        Method::Coop => Arith::F16Inputs { tensor_cores: true },
        Method::FragMrtF16 => Arith::F16Inputs {
            tensor_cores: false,
        },
        _ => match method.pipeline(opts.block) {
            Some(pipeline) => Arith::of_pipeline(pipeline, sums, opts.scale_by_depth, opts.u8_bits),
            None => Arith::F32,
        },
    }
}
