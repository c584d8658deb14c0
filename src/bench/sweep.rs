//! `rendermm bench` without a suite: every method × sizes × precisions on the current adapter,
//! beside the adapter's own ceilings measured in the same run ([`crate::bench::ceilings`]).
//!
//! Each row: `warmup` untimed runs, then up to `repeats` timed runs (fewer when one run is slow,
//! so a whole sweep stays bounded), the median and the spread of the compute phase — device time
//! from timestamp queries where the adapter has them, wall clock after a full wait otherwise (the
//! `clock` column says which) — and the L-M figures 4-5 split: texture load, compute, GPU-side
//! copy, readback. The last run's result is checked against the f64 reference (in full up to
//! 2²⁷ multiply-adds, on 512 sampled elements above), so a fast wrong kernel cannot post a time.

use crate::bench::ceilings::{Ceilings, ClockGuard};
use crate::check;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::timer::Clock;
use crate::matrix::Matrix;
use crate::methods::{Method, Timings};
use crate::plan::{self, Options};
use crate::precision::Precision;
use crate::report::Report;
use serde::{Deserialize, Serialize};

/// What to sweep.
#[derive(Clone, Debug)]
pub struct SweepOptions {
    pub methods: Vec<Method>,
    pub sizes: Vec<usize>,
    pub precisions: Vec<Precision>,
    pub warmup: usize,
    pub repeats: usize,
    /// A method whose single run at some size takes longer than this, or whose run at the next
    /// size would take more than 4× this (predicted from n³), is not run at larger sizes; its
    /// repeats are cut so that one row takes about this long.
    pub max_run_s: f64,
    pub seed: u64,
    /// The options every row starts from: the kernel variants to run (the command line's
    /// `RENDERMM_CS_FAST`, `RENDERMM_COOP`, `RENDERMM_FRAG_MRT`), the memory budget and host
    /// memory the tiling plans with. Each row sets its precision and repeats.
    pub options: plan::Options,
}

impl SweepOptions {
    /// The default ladder of sizes for this adapter: small on a software rasterizer.
    pub fn default_sizes(ctx: &GpuContext, quick: bool) -> Vec<usize> {
        let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
        let max = ctx.limits.max_texture_dimension_2d as usize;
        let ladder: &[usize] = match (software, quick) {
            (_, true) => &[64, 128, 512],
            (true, false) => &[64, 128, 256, 512],
            (false, false) => &[256, 512, 1024, 2048, 4096],
        };
        ladder.iter().copied().filter(|&n| n <= max).collect()
    }
}

/// One measured row.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SweepRow {
    pub method: String,
    pub precision: String,
    /// The method whose kernel ran where the one asked handed the product on (`cannon` →
    /// `cannon-tiled`, `dns` → `dns-tiled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ran: Option<String>,
    /// The variant or block shape that ran (cs-fast's, coop's, frag-mrt's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The number formats of the inputs and of the sums the kernel computed in (coop and
    /// frag-mrt-f16: f16 inputs, f32 sums); absent on skipped rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sums: Option<String>,
    pub n: usize,
    /// Timed runs behind the statistics (0 if the row was skipped).
    pub runs: usize,
    pub clock: Clock,
    #[serde(deserialize_with = "nan_if_null")]
    pub compute_median_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub compute_min_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub compute_max_ms: f64,
    /// Median milliseconds of the data path and of pipeline creation, and the bytes moved (so
    /// the rates can be recomputed from the file).
    #[serde(default = "nan", deserialize_with = "nan_if_null")]
    pub setup_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub upload_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub copy_ms: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub readback_ms: f64,
    /// Host to host for one product: a stopwatch around the call (`Timings::wall_ms`), with one
    /// compute phase (the median), as a caller's clock reads it; what any comparison with a
    /// peer's wall time uses. The phases above are its breakdown.
    #[serde(default = "nan", deserialize_with = "nan_if_null")]
    pub wall_ms: f64,
    #[serde(default)]
    pub upload_bytes: u64,
    #[serde(default)]
    pub readback_bytes: u64,
    /// upload_bytes / upload_ms and readback_bytes / readback_ms, in GB/s.
    #[serde(default = "nan", deserialize_with = "nan_if_null")]
    pub upload_gbps: f64,
    #[serde(default = "nan", deserialize_with = "nan_if_null")]
    pub readback_gbps: f64,
    /// 2·n³ / median compute time.
    #[serde(deserialize_with = "nan_if_null")]
    pub gflops: f64,
    /// u8: the L-M paper's byte operations per second over the total time, in GBops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbops: Option<f64>,
    /// Hall–Carr–Hart model: bytes moved and shader instructions, as rates at the median time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_ginst_per_s: Option<f64>,
    /// The ceiling that bounds this method, and the row's fraction of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling_fraction: Option<f64>,
    /// The GPU's clock just before the timed runs, as a fraction of the clock the sweep began
    /// with ([`ClockGuard::settle`]; 1.0 on time, below 0.87 the row was timed slow); absent on
    /// CPU adapters and CPU methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_ratio: Option<f64>,
    /// The f64 check of the last run.
    pub checked: String,
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    /// Why the row did not run, if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The row did not run because the adapter lacks a feature its method needs (cooperative
    /// matrices, f16 shaders): a skip the sweep accepts even when the method ran nowhere.
    #[serde(skip)]
    pub lacks_feature: bool,
}

impl SweepRow {
    /// The method asked and, where another kernel ran, that one: `cannon (ran cannon-tiled)`.
    pub fn what_ran(&self) -> String {
        match &self.ran {
            Some(ran) if *ran != self.method => format!("{} (ran {ran})", self.method),
            _ => self.method.clone(),
        }
    }

    /// The row's number formats: the precision where inputs and sums share it, else
    /// `inputs/sums` (`f16/f32` for coop and frag-mrt-f16).
    pub fn formats(&self) -> String {
        match (&self.inputs, &self.sums) {
            (Some(i), Some(s)) if i != s => format!("{i}/{s}"),
            _ => self.precision.clone(),
        }
    }
}

/// A time or rate as JSON holds it: a number, or `null` where the row had none (JSON has no NaN;
/// serde_json writes NaN as `null`), read back as NaN.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

fn nan() -> f64 {
    f64::NAN
}

/// The whole sweep with the ceilings it is measured against.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sweep {
    pub adapter: String,
    pub backend: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceilings: Option<Ceilings>,
    pub rows: Vec<SweepRow>,
}

impl Sweep {
    /// Whether every row that ran passed its check, and every method and precision ran at
    /// least one size: one refused at every size fails the sweep, unless the adapter lacks a
    /// feature it needs ([`Sweep::refused_everywhere`]).
    pub fn all_passed(&self) -> bool {
        self.rows.iter().all(|r| r.skipped.is_some() || r.passed)
            && self.refused_everywhere().is_empty()
    }

    /// The methods (and precisions) that ran at no size for a reason other than a feature the
    /// adapter lacks: a refusal of every product is a fault of the method, not a skip.
    pub fn refused_everywhere(&self) -> Vec<String> {
        let mut out: Vec<String> = vec![];
        for r in &self.rows {
            let key = format!("{} {}", r.method, r.precision);
            let group = || {
                self.rows
                    .iter()
                    .filter(|s| s.method == r.method && s.precision == r.precision)
            };
            if !out.contains(&key) && group().all(|s| s.skipped.is_some() && !s.lacks_feature) {
                out.push(key);
            }
        }
        out
    }
}

/// The ceiling that bounds `method`, and how to turn a row into the ceiling's unit.
pub fn yardstick(method: Method) -> Option<&'static str> {
    match method {
        // L-M in wgpu and in OpenGL 1.x: one blended fragment per product.
        Method::Lm | Method::LmGl1 => Some("blend-r32f"),
        Method::CsFast => Some("compute-fma"),
        // Tensor cores in f16: their own ceiling, the same fragments multiplied in registers
        // (absent where the adapter has no cooperative matrices). Its target is torch float16.
        Method::Coop => Some("tensor-mma"),
        m if m.is_gpu() && m.is_compute() => Some("compute-fma"),
        m if m.is_gpu() => Some("fragment-fma"),
        _ => None,
    }
}

/// Run the sweep; `tick` is called after every row (for a progress bar).
pub fn run(
    ctx: &GpuContext,
    opts: &SweepOptions,
    ceilings: Option<&Ceilings>,
    mut tick: impl FnMut(&SweepRow),
) -> Result<Sweep> {
    if opts.sizes.is_empty() || opts.sizes.contains(&0) {
        return Err(Error::Invalid(
            "bench sizes: give at least one size, every size at least 1".into(),
        ));
    }
    // A guard against the clock governor (none on CPU adapters; a sweep without it still runs).
    let guard = ClockGuard::new(ctx).ok().flatten();
    let mut rows = vec![];
    for &method in &opts.methods {
        // Every method runs on the one device. The 2-6x slowdowns first seen in a used device
        // were the GPU's clock governor, not the device's state: with the GPU idle while the
        // host checks a product, the H100's SM clock fell from 1980 to 360-540 MHz within
        // seconds (docs/performance.md). Each row's timed runs follow a warm-up run back to back.
        let precisions: Vec<Precision> = if method.takes_precision() {
            let taken: Vec<Precision> = opts
                .precisions
                .iter()
                .copied()
                .filter(|&p| method.takes(p))
                .collect();
            if taken.is_empty() {
                vec![Precision::F32]
            } else {
                taken
            }
        } else {
            vec![Precision::F32]
        };
        for precision in precisions {
            let mut too_slow: Option<String> = None;
            for (i, &n) in opts.sizes.iter().enumerate() {
                let row = match &too_slow {
                    Some(why) => skipped(method, precision, n, why.clone()),
                    None => {
                        match run_row(ctx, method, precision, n, opts, ceilings, guard.as_ref()) {
                            Ok((row, one_run_s)) => {
                                // The next size's run, at n³ work, predicted from this one.
                                let next = opts
                                    .sizes
                                    .get(i + 1)
                                    .map_or(0.0, |&m| one_run_s * (m as f64 / n as f64).powi(3));
                                if one_run_s > opts.max_run_s {
                                    too_slow = Some(format!(
                                        "one run at n = {n} took {one_run_s:.1} s (> {} s)",
                                        opts.max_run_s
                                    ));
                                } else if next > 4.0 * opts.max_run_s {
                                    too_slow = Some(format!(
                                        "one run at n = {n} took {one_run_s:.2} s, so about {next:.0} s at the next size (> 4 × {} s)",
                                        opts.max_run_s
                                    ));
                                }
                                row
                            }
                            Err(e) => SweepRow {
                                lacks_feature: matches!(e, Error::MissingFeature { .. }),
                                ..skipped(method, precision, n, e.to_string())
                            },
                        }
                    }
                };
                tick(&row);
                rows.push(row);
            }
        }
    }
    Ok(Sweep {
        adapter: ctx.info.name.clone(),
        backend: format!("{:?}", ctx.info.backend),
        ceilings: ceilings.cloned(),
        rows,
    })
}

/// A row the adapter could not run, with the formats the method would have read and summed in
/// (coop and frag-mrt-f16 read f16 and sum in f32 whatever the request's precision).
fn skipped(method: Method, precision: Precision, n: usize, why: String) -> SweepRow {
    let (inputs, sums) = match plan::arith(method, precision, &Options::default()) {
        check::Arith::F16Inputs { .. } => (Precision::F16, Precision::F32),
        _ => (precision, precision),
    };
    SweepRow {
        method: method.name().into(),
        precision: precision.name().into(),
        ran: None,
        variant: None,
        inputs: Some(inputs.name().into()),
        sums: Some(sums.name().into()),
        n,
        runs: 0,
        clock: Clock::WallClock,
        compute_median_ms: f64::NAN,
        compute_min_ms: f64::NAN,
        compute_max_ms: f64::NAN,
        setup_ms: f64::NAN,
        upload_ms: f64::NAN,
        copy_ms: f64::NAN,
        readback_ms: f64::NAN,
        wall_ms: f64::NAN,
        upload_bytes: 0,
        readback_bytes: 0,
        upload_gbps: f64::NAN,
        readback_gbps: f64::NAN,
        gflops: f64::NAN,
        gbops: None,
        model_gbps: None,
        model_ginst_per_s: None,
        ceiling: None,
        ceiling_fraction: None,
        clock_ratio: None,
        checked: "no".into(),
        passed: false,
        rel_err: None,
        skipped: Some(why),
        lacks_feature: false,
    }
}

/// The median of `v` (sorted in place).
pub(crate) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

/// The timed runs of a row, taken again (up to twice) when the clock fell during them:
/// compute-harness methods repeat their compute phase back to back inside one call
/// (`Options::repeats`), so the GPU is timed busy; the others run `repeats` calls. `last` is
/// left holding the last run's outcome, `clock_ratio` the lowest clock ratio seen.
fn timed_runs(
    run: &dyn Fn(usize) -> Result<plan::Outcome>,
    method: Method,
    repeats: usize,
    guard: Option<&ClockGuard>,
    clock_ratio: &mut Option<f64>,
    last: &mut plan::Outcome,
) -> Result<Vec<Timings>> {
    let mut times: Vec<Timings> = vec![];
    for attempt in 1..=3 {
        times.clear();
        if method.is_compute() || matches!(method, Method::CsFast | Method::Coop) {
            *last = run(repeats)?;
            times.push(last.timings.clone());
        } else {
            for _ in 0..repeats {
                *last = run(1)?;
                times.push(last.timings.clone());
            }
        }
        let (Some(g), Some(before)) = (guard, *clock_ratio) else {
            break;
        };
        let after = g.ratio()?;
        *clock_ratio = Some(before.min(after));
        if after >= ClockGuard::SLOW || attempt == 3 {
            break;
        }
        *clock_ratio = Some(g.settle()?);
    }
    Ok(times)
}

/// The median of each of the timed runs' times, the compute time `med` (device time where
/// the `clock` is the GPU's timestamps), the bytes as the `last` run moved them.
fn median_timings(times: &[Timings], last: &Timings, med: f64, clock: Clock) -> Timings {
    let med_of = |f: fn(&Timings) -> f64| median(&mut times.iter().map(f).collect::<Vec<_>>());
    let mut med_timings = Timings {
        setup_ms: med_of(|t| t.setup_ms),
        upload_ms: med_of(|t| t.upload_ms),
        compute_ms: med,
        copy_ms: med_of(|t| t.copy_ms),
        readback_ms: med_of(|t| t.readback_ms),
        device_ms: None,
        upload_bytes: last.upload_bytes,
        readback_bytes: last.readback_bytes,
        repeats_ms: vec![],
        trials_ms: vec![],
        // Host to host for one product: each call's wall less its compute phase (which holds
        // every repetition where the compute repeats inside one call), plus the median compute.
        wall_ms: med_of(|t| t.wall_ms - t.compute_ms) + med,
    };
    if clock == Clock::GpuTimestamp {
        med_timings.device_ms = Some(med);
    }
    med_timings
}

/// The check of the last result, held to its pipeline's model: the judge in full up to 2²⁷
/// multiply-adds, else on sampled elements (every precision: a sampled element is a 1×k · k×1
/// product, which the u8 and f16 models and every bound take as they take the whole;
/// [`check::Coverage::auto`]). Returns how it was checked, whether it passed and its relative
/// error.
fn check_row(
    last: &plan::Outcome,
    a: &Matrix,
    b: &Matrix,
    seed: u64,
) -> (String, bool, Option<f64>) {
    let checked = last.check(
        check::CheckPolicy::auto(check::Hold::Model, seed),
        &[check::Inputs::new(a, b)],
    );
    let rel_err = checked.worst().map(|v| v.stats.rel_err);
    (checked.coverage.clone(), checked.passed(), rel_err)
}

/// The ceiling the method is measured against, and the fraction of it reached: L-M's
/// fragments against the blend rate, the others' GFLOP/s against their arithmetic ceiling.
fn ceiling_fraction(
    method: Method,
    ceilings: Option<&Ceilings>,
    n: usize,
    med: f64,
    gflops: f64,
) -> (Option<String>, Option<f64>) {
    match (yardstick(method), ceilings) {
        (Some(name), Some(c)) => match c.get(name) {
            Some(v) if name == "blend-r32f" => {
                // L-M blends m·n fragments per slice, k slices: Gfragments/s against the blend rate.
                let frags = (n as f64).powi(3) / (med * 1e-3) / 1e9;
                (Some(name.to_string()), Some(frags / v))
            }
            Some(v) => (Some(name.to_string()), Some(gflops / v)),
            None => (None, None),
        },
        _ => (None, None),
    }
}

/// A row's random n×n inputs: in [-1, 1), or for u8 in [0, 2/√n) capped at 1, whose sums of n
/// products come to about 1.
fn row_inputs(precision: Precision, n: usize, seed: u64) -> (Matrix, Matrix) {
    let (lo, hi) = if precision == Precision::U8 {
        (0.0, 2.0 / (n as f32).sqrt())
    } else {
        (-1.0, 1.0)
    };
    let a = Matrix::random(n, n, seed, lo, hi.min(1.0));
    let b = Matrix::random(n, n, seed + 1, lo, hi.min(1.0));
    (a, b)
}

/// One row: warm up, bring the clock back ([`ClockGuard::settle`]), time, check. Returns the row
/// and the seconds one run took.
fn run_row(
    ctx: &GpuContext,
    method: Method,
    precision: Precision,
    n: usize,
    opts: &SweepOptions,
    ceilings: Option<&Ceilings>,
    guard: Option<&ClockGuard>,
) -> Result<(SweepRow, f64)> {
    let (a, b) = row_inputs(precision, n, opts.seed);
    let gpu = method.is_gpu().then_some(ctx);
    let new_opts = |repeats: usize| Options {
        precision,
        repeats: Some(plan::Repeats::back_to_back(repeats)),
        ..opts.options.clone()
    };
    let run = |repeats| {
        plan::multiply(
            gpu,
            plan::Request::new(method, &a, &b).options(new_opts(repeats)),
        )
    };
    let t = std::time::Instant::now();
    let mut last = run(1)?;
    // The run's time less its pipeline build, which happens once and does not grow with n: the
    // first use of cs-fast's large kernel took the H100's driver 0.6-1.1 s to compile, and with
    // it counted, a 0.4 ms product at n = 2048 looked like 9 s at 4096 and was skipped.
    let setup_s = last.timings.setup_ms / 1e3;
    let one_run_s =
        (t.elapsed().as_secs_f64() - if setup_s.is_finite() { setup_s } else { 0.0 }).max(0.0);
    for _ in 1..opts.warmup {
        last = run(1)?;
    }
    // Cut the repeats so a slow row takes about max_run_s.
    let repeats = ((opts.max_run_s / one_run_s.max(1e-6)) as usize).clamp(1, opts.repeats.max(1));
    let mut clock_ratio = match guard {
        Some(g) if method.is_gpu() => Some(g.settle()?),
        _ => None,
    };
    let times = timed_runs(&run, method, repeats, guard, &mut clock_ratio, &mut last)?;
    let clock = times[0].compute_time().1;
    let mut compute: Vec<f64> = if last.timings.repeats_ms.is_empty() {
        times.iter().map(|t| t.compute_time().0).collect()
    } else {
        last.timings.repeats_ms.clone()
    };
    let (min, max) = compute
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    let med = median(&mut compute);
    let med_timings = median_timings(&times, &last.timings, med, clock);
    let (checked, passed, rel_err) = check_row(&last, &a, &b, opts.seed);
    // The row's report: the last run's facts, the timed runs' median times.
    last.timings = med_timings.clone();
    last.notes.clear();
    let report = Report::of(gpu, &last, vec![]);
    let flops = 2.0 * (n as f64).powi(3);
    let (ceiling, fraction) = ceiling_fraction(method, ceilings, n, med, report.gflops);
    let row = SweepRow {
        method: method.name().into(),
        precision: last.kernel.sums.name().into(),
        ran: report.ran.clone(),
        variant: report.variant.clone(),
        inputs: Some(report.inputs.clone()),
        sums: Some(report.sums.clone()),
        n,
        runs: repeats,
        clock: clock.on(gpu),
        compute_median_ms: med,
        compute_min_ms: min,
        compute_max_ms: max,
        setup_ms: med_timings.setup_ms,
        upload_ms: med_timings.upload_ms,
        copy_ms: med_timings.copy_ms,
        readback_ms: med_timings.readback_ms,
        wall_ms: med_timings.wall_ms,
        upload_bytes: med_timings.upload_bytes,
        readback_bytes: med_timings.readback_bytes,
        upload_gbps: med_timings.upload_bytes as f64 / (med_timings.upload_ms.max(1e-9) * 1e6),
        readback_gbps: med_timings.readback_bytes as f64
            / (med_timings.readback_ms.max(1e-9) * 1e6),
        gflops: flops / (med * 1e6),
        gbops: report.gbops,
        model_gbps: report.model_gbps,
        model_ginst_per_s: report.model_ginst_per_s,
        ceiling,
        ceiling_fraction: fraction,
        clock_ratio,
        checked,
        passed,
        rel_err,
        skipped: None,
        lacks_feature: false,
    };
    Ok((row, one_run_s))
}

/// The sweep as a terminal table.
pub fn table(s: &Sweep) -> String {
    let mut out = format!("adapter: {} ({})\n", s.adapter, s.backend);
    if let Some(c) = &s.ceilings {
        out.push_str("ceilings:");
        for x in &c.ceilings {
            out.push_str(&format!("  {} {:.1} {}", x.name, x.value, x.unit));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{:<22} {:>4} {:>6} {:>5} {:>11} {:>17} {:>10} {:>9} {:>9} {:>9}  {:<13} {}\n",
        "method",
        "prec",
        "n",
        "runs",
        "median ms",
        "min..max ms",
        "GFLOP/s",
        "of ceil",
        "upload",
        "readback",
        "clock",
        "check"
    ));
    for r in &s.rows {
        if let Some(why) = &r.skipped {
            out.push_str(&format!(
                "{:<22} {:>4} {:>6}  skipped: {why}\n",
                r.method,
                r.formats(),
                r.n
            ));
            continue;
        }
        out.push_str(&format!(
            "{:<22} {:>4} {:>6} {:>5} {:>11.3} {:>8.3}..{:<8.3} {:>10.2} {:>9} {:>9.2} {:>9.2}  {:<13} {}\n",
            r.what_ran(),
            r.formats(),
            r.n,
            r.runs,
            r.compute_median_ms,
            r.compute_min_ms,
            r.compute_max_ms,
            r.gflops,
            r.ceiling_fraction.map_or("–".into(), |f| format!("{:.1}%", f * 100.0)),
            r.upload_ms,
            r.readback_ms,
            r.clock.name(),
            if r.passed { format!("ok ({})", r.checked) } else { format!("FAILED rel_err {:?}", r.rel_err) }
        ));
    }
    let slow: Vec<String> = s
        .rows
        .iter()
        .filter_map(|r| {
            let c = r.clock_ratio.filter(|&c| c < ClockGuard::SLOW)?;
            Some(format!("{} n={} ({:.0}%)", r.method, r.n, c * 100.0))
        })
        .collect();
    if !slow.is_empty() {
        out.push_str(&format!(
            "timed with the GPU's clock below 87% of the sweep's start (the clock governor; these rows are slow): {}\n",
            slow.join(", ")
        ));
    }
    out
}

/// The sweep as CSV.
pub fn csv(s: &Sweep) -> String {
    let mut out = String::from(
        "method,precision,n,runs,clock,compute_median_ms,compute_min_ms,compute_max_ms,upload_ms,copy_ms,readback_ms,gflops,gbops,model_gbps,model_ginst_per_s,ceiling,ceiling_fraction,checked,passed,rel_err,skipped,setup_ms,upload_bytes,readback_bytes,upload_gbps,readback_gbps,ran,variant,inputs,sums,wall_ms\n",
    );
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v}"));
    for r in &s.rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\",{},{},\"{}\",{},{},{},{},{},{},\"{}\",{},{},{}\n",
            r.method,
            r.precision,
            r.n,
            r.runs,
            r.clock.name(),
            r.compute_median_ms,
            r.compute_min_ms,
            r.compute_max_ms,
            r.upload_ms,
            r.copy_ms,
            r.readback_ms,
            r.gflops,
            opt(r.gbops),
            opt(r.model_gbps),
            opt(r.model_ginst_per_s),
            r.ceiling.clone().unwrap_or_default(),
            opt(r.ceiling_fraction),
            r.checked,
            r.passed,
            opt(r.rel_err),
            r.skipped.clone().unwrap_or_default().replace('"', "'"),
            r.setup_ms,
            r.upload_bytes,
            r.readback_bytes,
            r.upload_gbps,
            r.readback_gbps,
            r.ran.clone().unwrap_or_default(),
            r.variant.clone().unwrap_or_default(),
            r.inputs.clone().unwrap_or_default(),
            r.sums.clone().unwrap_or_default(),
            r.wall_ms,
        ));
    }
    out
}

#[cfg(test)]
mod refusals {
    use super::*;

    fn sweep(rows: Vec<SweepRow>) -> Sweep {
        Sweep {
            adapter: "test".into(),
            backend: "test".into(),
            ceilings: None,
            rows,
        }
    }

    /// A method refused at every size fails the sweep unless the adapter lacks a feature it
    /// needs; one refused at some sizes only (too large, too slow) does not.
    #[test]
    fn a_method_refused_at_every_size_fails_the_sweep_unless_a_feature_is_missing() {
        let refused = |n| skipped(Method::CsNaive, Precision::F32, n, "refused".into());
        let lacking = |n| SweepRow {
            lacks_feature: true,
            ..skipped(
                Method::Coop,
                Precision::F32,
                n,
                "no cooperative matrices".into(),
            )
        };
        let ran = |n| SweepRow {
            passed: true,
            skipped: None,
            ..skipped(Method::CsFast, Precision::F32, n, String::new())
        };
        let s = sweep(vec![ran(64), ran(128), lacking(64), lacking(128)]);
        assert!(s.all_passed() && s.refused_everywhere().is_empty());
        let s = sweep(vec![ran(64), refused(64), refused(128)]);
        assert!(!s.all_passed());
        assert_eq!(s.refused_everywhere(), vec!["cs-naive f32".to_string()]);
        let mut once = refused(128);
        once.skipped = None;
        once.passed = true;
        let s = sweep(vec![ran(64), refused(64), once]);
        assert!(s.all_passed(), "{:?}", s.refused_everywhere());
    }
}
