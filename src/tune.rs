//! Choosing the Hall–Carr–Hart block size b by measurement on the adapter at hand — the search
//! the paper proposes as future work (§6: "Empirical tests may be run to provide searches over
//! algorithm's parameter space to select the best algorithm for a target GPU").
//!
//! Each candidate b runs once to warm up (pipeline compilation, first-touch allocation), then
//! `repeats` more times; its figure is the median of those runs' pass time (`compute_ms`, plus
//! `copy_ms` in copy mode). The best b is the one
//! with the smallest median.

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{self, Accumulate, Method, Options};
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
        return Err(Error::Invalid("tune needs at least one b and one repeat".into()));
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
            let mut opts = Options {
                block: Some(blk),
                accumulate,
                ..Default::default()
            };
            let out = methods::multiply(Some(ctx), method, a, b, &mut opts)?;
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
