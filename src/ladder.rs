//! The precision ladder: the same random problems through L-M in u8, u8 with `--scale-by-depth`,
//! f16 and f32, each judged against the f64 reference (`rendermm precision-ladder`).

use crate::check::{self, Verdict};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{self, Method, Options};
use crate::precision::Precision;
use serde::Serialize;

/// One row of the ladder.
#[derive(Clone, Debug, Serialize)]
pub struct LadderRow {
    pub n: usize,
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

/// Run every mode on an n×n×n problem for each n, inputs uniform in [0, 2/√n) so the true sums
/// average about 1 — the range where the 8-bit pipeline starts to saturate.
pub fn run(ctx: &GpuContext, sizes: &[usize], seed: u64) -> Result<Vec<LadderRow>> {
    let mut rows = vec![];
    for &n in sizes {
        let hi = (2.0 / (n as f32).sqrt()).min(1.0);
        let a = Matrix::random(n, n, seed, 0.0, hi);
        let b = Matrix::random(n, n, seed + 1, 0.0, hi);
        for (mode, precision, scale_by_depth) in MODES {
            let mut opts = Options {
                precision,
                scale_by_depth,
                ..Default::default()
            };
            let out = methods::multiply(Some(ctx), Method::Lm, &a, &b, &mut opts)?;
            let verdict = check::verdict(opts.precision, scale_by_depth, Method::Lm.tolerance(), &a, &b, &out.c);
            rows.push(LadderRow {
                n,
                mode: mode.to_string(),
                verdict,
            });
        }
    }
    Ok(rows)
}

/// The ladder as a Markdown table.
pub fn markdown(rows: &[LadderRow]) -> String {
    let mut s = String::from(
        "| n | mode | rel_err (Frobenius) | max_abs_err | saturated | within its bound |\n|---:|---|---:|---:|---:|---|\n",
    );
    for r in rows {
        let v = &r.verdict;
        s.push_str(&format!(
            "| {} | {} | {:.2e} | {:.2e} | {} | {} |\n",
            r.n,
            r.mode,
            v.stats.rel_err,
            v.stats.max_abs_err,
            v.saturated_share.map_or("–".into(), |x| format!("{:.1}%", x * 100.0)),
            if v.passed { "yes" } else { "NO" }
        ));
    }
    s
}
