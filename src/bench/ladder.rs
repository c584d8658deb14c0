//! The precision ladder: the same random problems through each render-pass method (L-M,
//! hall-blocked and hall-packed at the paper's b = 32) in u8, u8 with `--scale-by-depth`, f16
//! and f32, each judged against the f64 reference and its own model or bound
//! (`rendermm precision-ladder`).

use crate::check::Verdict;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::plan::{self, Options};
use crate::precision::Precision;
use serde::Serialize;

/// One row of the ladder.
#[derive(Clone, Debug, Serialize)]
pub struct LadderRow {
    pub n: usize,
    pub method: String,
    pub mode: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// The modes of the ladder, from 2001 to today.
pub const MODES: [(&str, Precision, bool); 4] = [
    ("u8", Precision::U8, false),
    ("u8 scale-by-depth", Precision::U8, true),
    ("f16", Precision::F16, false),
    ("f32", Precision::F32, false),
];

/// The methods of the ladder: the render-pass methods, which have all four modes.
pub const METHODS: [Method; 3] = [Method::Lm, Method::HallBlocked, Method::HallPacked];

/// Run every method in every mode on an n×n×n problem for each n, inputs uniform in [0, 2/√n)
/// so the true sums average about 1 — the range where the 8-bit pipeline starts to saturate.
pub fn run(ctx: &GpuContext, sizes: &[usize], seed: u64) -> Result<Vec<LadderRow>> {
    run_methods(ctx, &METHODS, sizes, seed)
}

/// [`run`] for some of the render-pass methods (default options otherwise: Hall b = 32,
/// ping-pong).
pub fn run_methods(
    ctx: &GpuContext,
    methods: &[Method],
    sizes: &[usize],
    seed: u64,
) -> Result<Vec<LadderRow>> {
    let mut rows = vec![];
    for &n in sizes {
        let hi = (2.0 / (n as f32).sqrt()).min(1.0);
        let a = Matrix::random(n, n, seed, 0.0, hi);
        let b = Matrix::random(n, n, seed + 1, 0.0, hi);
        for &method in methods {
            for (mode, precision, scale_by_depth) in MODES {
                let mut opts = Options {
                    precision,
                    scale_by_depth,
                    ..Default::default()
                };
                let out = plan::multiply(Some(ctx), method, &a, &b, &mut opts)?;
                // opts.precision is now what ran (f16 if f32 could not be blended).
                let verdict = plan::verdict_for(method, &opts, &a, &b, &out.c);
                rows.push(LadderRow {
                    n,
                    method: method.name().to_string(),
                    mode: mode.to_string(),
                    verdict,
                });
            }
        }
    }
    Ok(rows)
}

/// The ladder as a Markdown table.
pub fn markdown(rows: &[LadderRow]) -> String {
    let mut s = String::from(
        "| n | method | mode | rel_err (Frobenius) | max_abs_err | saturated | within its bound |\n|---:|---|---|---:|---:|---:|---|\n",
    );
    for r in rows {
        let v = &r.verdict;
        s.push_str(&format!(
            "| {} | {} | {} | {:.2e} | {:.2e} | {} | {} |\n",
            r.n,
            r.method,
            r.mode,
            v.stats.rel_err,
            v.stats.max_abs_err,
            v.saturated_share
                .map_or("–".into(), |x| format!("{:.1}%", x * 100.0)),
            if v.passed { "yes" } else { "NO" }
        ));
    }
    s
}
