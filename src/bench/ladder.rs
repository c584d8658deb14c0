//! The precision ladder: the same random problems through each render-pass method (L-M,
//! hall-blocked and hall-packed at the paper's b = 32) in u8 at every width of L-M §4
//! (`--u8-product-bits 8|14|16`, `--u8-sum-bits 8|16`), u8 with `--scale-by-depth`, f16 and
//! f32, each judged against the f64 reference and its own model or bound
//! (`rendermm precision-ladder`). Each size runs two problems: an unsaturated one (inputs below
//! 1/n, so every sum stays below 1.0) and a saturating one (inputs below 2/√n, sums about 1).

use crate::check::Verdict;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::plan::{self, Options};
use crate::precision::{Precision, U8Bits};
use serde::Serialize;

/// One row of the ladder.
#[derive(Clone, Debug, Serialize)]
pub struct LadderRow {
    pub n: usize,
    /// `unsaturated` (inputs in [0, 1/n)) or `saturating` (inputs in [0, 2/√n)).
    pub problem: String,
    pub method: String,
    pub mode: String,
    #[serde(flatten)]
    pub verdict: Verdict,
}

/// One mode of the ladder: a precision, `--scale-by-depth`, and the u8 widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    pub precision: Precision,
    pub scale_by_depth: bool,
    pub bits: U8Bits,
}

impl Mode {
    /// `u8 p8 s8`, `u8 p8 s8 scale-by-depth`, `f16`, `f32`.
    pub fn name(self) -> String {
        match self.precision {
            Precision::U8 => format!(
                "u8 {}{}",
                self.bits.short(),
                if self.scale_by_depth {
                    " scale-by-depth"
                } else {
                    ""
                }
            ),
            p => p.name().to_string(),
        }
    }
}

/// The modes of the ladder, from 2001 to today: u8 at every width of L-M §4 (rendermm's
/// default, 8 and 8, first), u8 with `--scale-by-depth` at the default widths, f16, f32.
pub fn modes() -> Vec<Mode> {
    let u8 = |bits, scale_by_depth| Mode {
        precision: Precision::U8,
        scale_by_depth,
        bits,
    };
    let mut v: Vec<Mode> = U8Bits::ALL.iter().map(|&b| u8(b, false)).collect();
    v.push(u8(U8Bits::default(), true));
    for precision in [Precision::F16, Precision::F32] {
        v.push(Mode {
            precision,
            scale_by_depth: false,
            bits: U8Bits::default(),
        });
    }
    v
}

/// The methods of the ladder: the render-pass methods, which have all four modes.
pub const METHODS: [Method; 3] = [Method::Lm, Method::HallBlocked, Method::HallPacked];

/// Run every method in every mode on two n×n×n problems for each n: inputs uniform in [0, 1/n),
/// whose sums stay below 1.0 (§4: "using values within the range [0, 1/z) prevents overflow"),
/// and inputs uniform in [0, 2/√n), whose true sums average about 1 — the range where the 8-bit
/// pipeline starts to saturate. The 16-bit sums run where the adapter has 16-bit normalized
/// targets (`TEXTURE_FORMAT_16BIT_NORM`) and are left out elsewhere.
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
    let norm16 = ctx.has(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM);
    let modes: Vec<Mode> = modes()
        .into_iter()
        .filter(|m| m.precision != Precision::U8 || m.bits.sum == 8 || norm16)
        .collect();
    let mut rows = vec![];
    for &n in sizes {
        let problems = [
            ("unsaturated", 1.0 / n as f32),
            ("saturating", (2.0 / (n as f32).sqrt()).min(1.0)),
        ];
        for (problem, hi) in problems {
            let a = Matrix::random(n, n, seed, 0.0, hi);
            let b = Matrix::random(n, n, seed + 1, 0.0, hi);
            for &method in methods {
                for &mode in &modes {
                    let opts = Options {
                        precision: mode.precision,
                        scale_by_depth: mode.scale_by_depth,
                        u8_bits: mode.bits,
                        ..Default::default()
                    };
                    let out = plan::multiply(
                        Some(ctx),
                        plan::Request::new(method, &a, &b).options(opts),
                    )?;
                    // Held to the arithmetic that ran (f16 if f32 could not be blended).
                    let verdict = out.verdict(&a, &b);
                    rows.push(LadderRow {
                        n,
                        problem: problem.to_string(),
                        method: method.name().to_string(),
                        mode: mode.name(),
                        verdict,
                    });
                }
            }
        }
    }
    Ok(rows)
}

/// The ladder as a Markdown table.
pub fn markdown(rows: &[LadderRow]) -> String {
    let mut s = String::from(
        "| n | problem | method | mode | rel_err (Frobenius) | max_abs_err | saturated | within its bound |\n|---:|---|---|---|---:|---:|---:|---|\n",
    );
    for r in rows {
        let v = &r.verdict;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.2e} | {:.2e} | {} | {} |\n",
            r.n,
            r.problem,
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
