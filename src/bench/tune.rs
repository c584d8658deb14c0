//! Choosing the Hall–Carr–Hart block size b by measurement on the adapter at hand — the search
//! the paper proposes as future work (§6: "Empirical tests may be run to provide searches over
//! algorithm's parameter space to select the best algorithm for a target GPU").
//!
//! Each candidate b runs once to warm up (pipeline compilation, first-touch allocation), then
//! `repeats` more times; its figure is the median of those runs' pass time (`compute_ms`, plus
//! `copy_ms` in copy mode). The best b is the one
//! with the smallest median.
//!
//! The fast paths `cs-fast` and `coop` have a few fixed variants (tile shapes, register
//! blocks, operand layouts) instead of a b: [`tune_variants`] times each the same way, on device
//! time where the adapter has timestamps, and names the fastest that passed its check
//! (`rendermm tune --method cs-fast|coop`; select the winner with `RENDERMM_CS_FAST` /
//! `RENDERMM_COOP`).

use crate::bench::ceilings::ClockGuard;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{self, Accumulate, Method};
use crate::plan::{self, Options};
use serde::Serialize;

/// One candidate's measurement.
#[derive(Clone, Debug, Serialize)]
pub struct TunePoint {
    pub b: u32,
    pub passes: usize,
    /// Median compute time of the timed runs.
    pub compute_ms: f64,
    /// Fastest timed run.
    pub min_ms: f64,
    /// 2·m·k·n / median compute time.
    pub gflops: f64,
}

/// The outcome of [`tune`].
#[derive(Clone, Debug, Serialize)]
pub struct Tuning {
    pub method: String,
    pub adapter: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub accumulate: String,
    pub repeats: usize,
    pub points: Vec<TunePoint>,
    /// The b with the smallest median compute time.
    pub best: u32,
}

/// Whether `method` has a block size to tune.
pub fn is_tunable(method: Method) -> bool {
    matches!(method, Method::HallBlocked | Method::HallPacked)
}

/// The b values worth trying for inner dimension `k`: the powers of two below the inner
/// dimension the passes walk (k, or ⌈k/2⌉ packed), then that dimension itself (one pass).
pub fn candidates(method: Method, k: usize) -> Vec<u32> {
    let depth = match method {
        Method::HallPacked => k.div_ceil(2),
        _ => k,
    }
    .max(1) as u32;
    let mut out: Vec<u32> = std::iter::successors(Some(1u32), |b| b.checked_mul(2))
        .take_while(|&b| b < depth)
        .collect();
    out.push(depth);
    out
}

/// Time `method` on `a · b` for every b in `blocks`, calling `progress(done, total, b)` before
/// each run (warm-up runs included) and once more at the end.
#[allow(clippy::too_many_arguments)]
pub fn tune(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    accumulate: Accumulate,
    blocks: &[u32],
    repeats: usize,
    progress: &mut dyn FnMut(usize, usize, u32),
) -> Result<Tuning> {
    if !is_tunable(method) {
        return Err(Error::Invalid(format!(
            "method {method} has no block size to tune; tune hall-blocked or hall-packed"
        )));
    }
    if blocks.is_empty() || repeats == 0 {
        return Err(Error::Invalid(
            "tune needs at least one b and one repeat".into(),
        ));
    }
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let total = blocks.len() * (repeats + 1);
    let mut done = 0;
    let mut points = Vec::with_capacity(blocks.len());
    for &blk in blocks {
        let mut times = Vec::with_capacity(repeats);
        let mut passes = 0;
        for run in 0..=repeats {
            progress(done, total, blk);
            let opts = Options {
                block: Some(blk),
                accumulate,
                ..Default::default()
            };
            let out = plan::multiply(Some(ctx), plan::Request::new(method, a, b).options(opts))?;
            passes = out.passes;
            if run > 0 {
                times.push(out.timings.compute_ms + out.timings.copy_ms);
            }
            done += 1;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        points.push(TunePoint {
            b: blk,
            passes,
            compute_ms: median,
            min_ms: times[0],
            gflops: 2.0 * (m * k * n) as f64 / (median.max(1e-9) * 1e6),
        });
    }
    progress(total, total, *blocks.last().unwrap_or(&0));
    let best = points
        .iter()
        .min_by(|x, y| x.compute_ms.total_cmp(&y.compute_ms))
        .map(|p| p.b)
        .unwrap_or(crate::methods::hall_blocked::DEFAULT_BLOCK);
    Ok(Tuning {
        method: method.name().into(),
        adapter: ctx.info.name.clone(),
        m,
        k,
        n,
        accumulate: accumulate.name().into(),
        repeats,
        points,
        best,
    })
}

/// One variant's measurement ([`tune_variants`]).
#[derive(Clone, Debug, Serialize)]
pub struct VariantPoint {
    pub variant: String,
    /// Median compute time of the timed runs (device time where the adapter has timestamps).
    pub compute_ms: f64,
    /// Fastest timed run.
    pub min_ms: f64,
    /// 2·m·k·n / median compute time.
    pub gflops: f64,
    /// Relative Frobenius error of the last run against the f64 reference (in full up to
    /// m·k·n ≤ 2²⁷, else over 512 sampled elements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    /// Whether that check passed (the method's own verdict).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// Why the variant could not run (e.g. the driver refused its pipeline); its times are NaN.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The GPU's clock before the timed runs as a fraction of the clock tuning began with
    /// ([`crate::bench::ceilings::ClockGuard::settle`]); absent on CPU adapters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clock_ratio: Option<f64>,
}

/// The outcome of [`tune_variants`].
#[derive(Clone, Debug, Serialize)]
pub struct VariantTuning {
    pub method: String,
    pub adapter: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub repeats: usize,
    /// The clock behind the times: `gpu-timestamp` or `wall-clock`.
    pub timing: crate::gpu::timer::Clock,
    pub points: Vec<VariantPoint>,
    /// The fastest variant that did not fail its check.
    pub best: String,
    /// The environment variable that selects a variant for `multiply` and `bench`.
    pub env: &'static str,
}

/// Whether `method` has fixed variants to tune (`cs-fast`, `coop`) rather than a block size.
pub fn has_variants(method: Method) -> bool {
    matches!(method, Method::CsFast | Method::Coop)
}

/// The variant names of `method`, the default first; empty for other methods.
pub fn variant_names(method: Method) -> Vec<&'static str> {
    use crate::methods::{coop, cs_fast};
    match method {
        Method::CsFast => cs_fast::VARIANTS.iter().map(|v| v.name).collect(),
        Method::Coop => coop::VARIANTS.iter().map(|v| v.name).collect(),
        _ => vec![],
    }
}

/// One runner per variant name, each multiplying `a · b` with the variant it names through
/// the one entry point (`repeats` back to back); every name is parsed before anything runs.
fn variant_runners<'a>(
    ctx: &'a GpuContext,
    method: Method,
    a: &'a Matrix,
    b: &'a Matrix,
    variants: &[String],
) -> Result<Vec<Runner<'a>>> {
    use crate::methods::{coop, cs_fast};
    // The variant each name selects, through the one entry point (`repeats` back to back).
    variants
        .iter()
        .map(
            |name| -> Result<Box<dyn Fn(usize) -> Result<crate::plan::Outcome>>> {
                let mut kernels = methods::Kernels::default();
                match method {
                    Method::CsFast => kernels.cs_fast = Some(cs_fast::Variant::parse(name)?),
                    _ => kernels.coop = Some(coop::Variant::parse(name)?),
                }
                Ok(Box::new(move |repeats| {
                    let opts = Options {
                        kernels,
                        repeats: Some(plan::Repeats::back_to_back(repeats)),
                        ..Default::default()
                    };
                    plan::multiply(Some(ctx), plan::Request::new(method, a, b).options(opts))
                }))
            },
        )
        .collect()
}

/// A variant's runner: `repeats` → the outcome of that many back-to-back runs.
type Runner<'a> = Box<dyn Fn(usize) -> Result<crate::plan::Outcome> + 'a>;

/// What [`measure_variant`] found: the timed runs, the last outcome, the error that stopped a
/// variant the driver refused, the lowest clock ratio seen and the clock that timed the runs.
struct Measured {
    times: Vec<f64>,
    last: Option<crate::plan::Outcome>,
    failed: Option<String>,
    clock_ratio: Option<f64>,
    clock: Option<crate::gpu::timer::Clock>,
}

/// One warm-up run of the variant `f`, the clock brought back, then the timed runs (back to
/// back where the device has timestamps, taken again up to twice when the clock fell), each
/// counted in `done` of `total` and told to `progress`.
fn measure_variant(
    f: &Runner<'_>,
    repeats: usize,
    guard: Option<&ClockGuard<'_>>,
    name: &str,
    (done, total): (&mut usize, usize),
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<Measured> {
    let mut clock = None;
    let mut times = Vec::with_capacity(repeats);
    let mut last = None;
    let mut failed = None;
    let mut clock_ratio = None;
    for r in 0..=repeats {
        progress(*done, total, name);
        *done += 1;
        // The timed runs go back to back on the device where it has timestamps (one call,
        // the compute phase repeated), after a clock ramp; elsewhere one call each.
        let (out, back_to_back) = if r == 0 {
            (f(1), vec![])
        } else {
            // Taken again (up to twice) when the clock fell during the timed runs.
            let mut attempt = 0;
            loop {
                let out = f(repeats);
                let reps = out
                    .as_ref()
                    .map(|o| o.timings.repeats_ms.clone())
                    .unwrap_or_default();
                let timed = (out, reps);
                let Some(g) = guard else { break timed };
                let after = g.ratio()?;
                clock_ratio = Some(clock_ratio.unwrap_or(1.0f64).min(after));
                attempt += 1;
                if after >= ClockGuard::SLOW || attempt == 3 || timed.0.is_err() {
                    break timed;
                }
                clock_ratio = Some(g.settle()?);
            }
        };
        let out = match out {
            Ok(out) => out,
            // One variant the driver refuses must not cost the others their measurement.
            Err(e) => {
                failed = Some(e.to_string());
                *done += repeats - r;
                break;
            }
        };
        let (t, c) = out.timings.compute_time();
        if r == 0 {
            if let Some(g) = guard {
                clock_ratio = Some(g.settle()?);
            }
        } else if back_to_back.len() == repeats {
            times = back_to_back;
            clock = Some(c);
            *done += repeats - r;
            last = Some(out);
            break;
        } else {
            times.push(t);
            clock = Some(c);
        }
        last = Some(out);
    }
    Ok(Measured {
        times,
        last,
        failed,
        clock_ratio,
        clock,
    })
}

/// The last result against the f64 reference, held to its pipeline's model: in full up to 2²⁷
/// multiply-adds, else on 512 sampled elements ([`crate::check::Coverage::auto`]), so a fast
/// wrong variant is never the best at any size. Returns its relative error and whether it
/// passed.
fn check_last(last: &crate::plan::Outcome, a: &Matrix, b: &Matrix) -> (f64, bool) {
    use crate::check::{CheckPolicy, Hold, Inputs};
    let checked = last.check(CheckPolicy::auto(Hold::Model, 1), &[Inputs::new(a, b)]);
    let rel_err = checked.worst().map_or(f64::NAN, |v| v.stats.rel_err);
    (rel_err, checked.passed())
}

/// The fastest variant that passed its check; an error naming why each failed if none did.
fn best_variant(points: &[VariantPoint], method: Method) -> Result<String> {
    points
        .iter()
        .filter(|p| p.passed != Some(false))
        .min_by(|x, y| x.compute_ms.total_cmp(&y.compute_ms))
        .map(|p| p.variant.clone())
        .ok_or_else(|| {
            let why: Vec<String> = points
                .iter()
                .map(|p| {
                    format!(
                        "{}: {}",
                        p.variant,
                        p.error.as_deref().unwrap_or("failed its check")
                    )
                })
                .collect();
            Error::Invalid(format!(
                "tune {method}: no variant ran correctly ({})",
                why.join("; ")
            ))
        })
}

/// Time every variant in `variants` of `method` (`cs-fast` or `coop`) on `a · b` as [`tune`]
/// times block sizes — one warm-up run, the clock brought back ([`ClockGuard::settle`]), then
/// `repeats` timed runs (back to back on the device where it has timestamps), the median counting — calling
/// `progress(done, total, variant)` before each run and once more at the end. Each variant's last
/// result is checked against the f64 reference (in full up to 2²⁷ multiply-adds, else on 512
/// sampled elements; coop against its f16 bound), and a variant that fails is never the best.
pub fn tune_variants(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    variants: &[String],
    repeats: usize,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Result<VariantTuning> {
    use crate::methods::{coop, cs_fast};
    if !has_variants(method) {
        return Err(Error::Invalid(format!(
            "method {method} has no variants to tune; tune cs-fast or coop"
        )));
    }
    if variants.is_empty() || repeats == 0 {
        return Err(Error::Invalid(
            "tune needs at least one variant and one repeat".into(),
        ));
    }
    crate::matrix::check_product(a, b)?;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    // Parse every name before running anything.
    let run = variant_runners(ctx, method, a, b, variants)?;
    let total = variants.len() * (repeats + 1);
    let mut done = 0;
    let mut points = Vec::with_capacity(variants.len());
    let mut clock = crate::gpu::timer::Clock::WallClock;
    // A guard against the clock governor (none on CPU adapters; tuning still runs without it).
    let guard = ClockGuard::new(ctx).ok().flatten();
    if method == Method::Coop {
        // Not supported at all: one clear error rather than one per variant.
        coop::supported(ctx)?;
    }
    for (name, f) in variants.iter().zip(&run) {
        let Measured {
            mut times,
            last,
            failed,
            clock_ratio,
            clock: ran_on,
        } = measure_variant(
            f,
            repeats,
            guard.as_ref(),
            name,
            (&mut done, total),
            progress,
        )?;
        if let Some(c) = ran_on {
            clock = c;
        }
        if let Some(error) = failed {
            points.push(VariantPoint {
                variant: name.clone(),
                compute_ms: f64::NAN,
                min_ms: f64::NAN,
                gflops: f64::NAN,
                rel_err: None,
                passed: Some(false),
                error: Some(error),
                clock_ratio,
            });
            continue;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let last = last
            .as_ref()
            .ok_or_else(|| Error::Internal(format!("{name}: timed with no run to check")))?;
        let (rel_err, passed) = check_last(last, a, b);
        points.push(VariantPoint {
            variant: name.clone(),
            compute_ms: median,
            min_ms: times[0],
            gflops: 2.0 * (m * k * n) as f64 / (median.max(1e-9) * 1e6),
            rel_err: Some(rel_err),
            passed: Some(passed),
            error: None,
            clock_ratio,
        });
    }
    progress(total, total, variants.last().map_or("", |s| s.as_str()));
    let best = best_variant(&points, method)?;
    Ok(VariantTuning {
        method: method.name().into(),
        adapter: ctx.info.name.clone(),
        m,
        k,
        n,
        repeats,
        timing: clock,
        points,
        best,
        env: match method {
            Method::CsFast => cs_fast::ENV,
            _ => coop::ENV,
        },
    })
}
