//! The pictures of the lessons: the eras at their best sizes against the H100's peaks, the 2004
//! verdict as a roofline, and the diagrams — L-M's processor cube, Hall's packed 2×2 blocks
//! (equation 10), the shared-memory tile sliding along k, 5kk73's access patterns step by step,
//! Cannon's shifts, the DNS cube, frag-mrt's attachments and quad, and a tensor-core tile.
//!
//! The two charts are drawn from the pinned H100 run, `docs/perf/h100/bench.csv` and
//! `bench.json`, compiled into the binary (`include_str!`) and parsed when the figure is drawn:
//! the chapters quote that run, so its pictures must show the same numbers, on any adapter,
//! without a new run. The diagrams compute nothing on the GPU; they draw the index arithmetic
//! of the papers and shaders they explain.

mod cannon_shift;
mod diagrams;
mod dns_cube;
mod eras_best;
mod frag_mrt_attachments;
mod hall_eq10;
mod kk73_access;
mod lm_cube;
mod tensor_core_tile;
mod texel_rate;
mod tile_slide;

pub use cannon_shift::*;
pub use dns_cube::*;
pub use eras_best::*;
pub use frag_mrt_attachments::*;
pub use hall_eq10::*;
pub use kk73_access::*;
pub use lm_cube::*;
pub use tensor_core_tile::*;
pub use texel_rate::*;
pub use tile_slide::*;

use super::*;
use crate::draw::picture::{RULE, fill, outline};
use crate::draw::plots::{LABEL, Mark, SMALL, TITLE, plot_err};
use crate::draw::text::{INK, MUTED};
use plotters::prelude::*;

/// What a drawing step on a chart returns: plotters' own error, which the figure names with
/// its title ([`plot_err`]) where it calls the step.
type Drawn<'b> = std::result::Result<
    (),
    DrawingAreaErrorKind<<plots::Backend<'b> as DrawingBackend>::ErrorType>,
>;

/// The pinned H100 run's sweep, as `rendermm bench --csv` wrote it.
const PINNED_CSV: &str = include_str!("../../../docs/perf/h100/bench.csv");
/// The same run's JSON, for its ceilings.
const PINNED_JSON: &str = include_str!("../../../docs/perf/h100/bench.json");
const PINNED_CSV_PATH: &str = "docs/perf/h100/bench.csv";
const PINNED_JSON_PATH: &str = "docs/perf/h100/bench.json";

/// The H100 SXM5's datasheet peaks, GFLOP/s: FP32, and dense FP16 on the tensor cores.
pub const H100_FP32_PEAK: f64 = 67_000.0;
pub const H100_FP16_TENSOR_PEAK: f64 = 989_000.0;

/// One row of the pinned sweep: a method at one n.
#[derive(Clone, Debug, PartialEq)]
pub struct PinnedRow {
    pub method: String,
    pub n: usize,
    /// NaN where the row did not run.
    pub gflops: f64,
    pub passed: bool,
}

/// Split one CSV line at commas outside double quotes.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (vec![], String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// The rows of a sweep's CSV (`text`, read from `path`): method, n, GFLOP/s and whether its
/// check passed.
pub fn parse_sweep_csv(text: &str, path: &str) -> Result<Vec<PinnedRow>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_fields(lines.next().ok_or_else(|| Error::format(path, "empty"))?);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::format(path, format!("no column '{name}'")))
    };
    let (cm, cn, cg, cp) = (col("method")?, col("n")?, col("gflops")?, col("passed")?);
    lines
        .enumerate()
        .map(|(i, l)| {
            let f = csv_fields(l);
            let get = |c: usize| {
                f.get(c).map(String::as_str).ok_or_else(|| {
                    Error::format(path, format!("line {}: {} fields", i + 2, f.len()))
                })
            };
            let n = get(cn)?
                .parse()
                .map_err(|_| Error::format(path, format!("line {}: n is not a number", i + 2)))?;
            Ok(PinnedRow {
                method: get(cm)?.to_string(),
                n,
                gflops: get(cg)?.parse().unwrap_or(f64::NAN),
                passed: get(cp)? == "true",
            })
        })
        .collect()
}

/// The pinned H100 sweep.
pub fn pinned_rows() -> Result<Vec<PinnedRow>> {
    parse_sweep_csv(PINNED_CSV, PINNED_CSV_PATH)
}

/// A method's best passed row: (n, GFLOP/s) where it ran fastest.
pub fn best_of(rows: &[PinnedRow], method: &str) -> Option<(usize, f64)> {
    rows.iter()
        .filter(|r| r.method == method && r.passed && r.gflops.is_finite())
        .max_by(|a, b| a.gflops.total_cmp(&b.gflops))
        .map(|r| (r.n, r.gflops))
}

/// A method's GFLOP/s at `n` in `rows`, if it ran and passed.
fn at_n(rows: &[PinnedRow], method: &str, n: usize) -> Result<f64> {
    rows.iter()
        .find(|r| r.method == method && r.n == n && r.passed && r.gflops.is_finite())
        .map(|r| r.gflops)
        .ok_or_else(|| {
            Error::format(
                PINNED_CSV_PATH,
                format!("no passed row of {method} at n = {n}"),
            )
        })
}

/// A ceiling of the pinned run by name (`fragment-fma`, `texture-fetch`, ...), in its unit.
pub fn pinned_ceiling(name: &str) -> Result<f64> {
    let v: serde_json::Value = serde_json::from_str(PINNED_JSON)
        .map_err(|e| Error::format(PINNED_JSON_PATH, e.to_string()))?;
    v["ceilings"]["ceilings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == name)
        .and_then(|c| c["value"].as_f64())
        .ok_or_else(|| Error::format(PINNED_JSON_PATH, format!("no ceiling '{name}'")))
}

/// An axis tick in GFLOP/s: 1, 10, 100, 1k, 10k, 100k, 1M.
fn si(v: f64) -> String {
    let (d, s) = if v >= 1e6 {
        (1e6, "M")
    } else if v >= 1e3 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let x = v / d;
    if (x - x.round()).abs() < 1e-9 {
        format!("{}{s}", x.round())
    } else {
        format!("{}{s}", plots::short(x))
    }
}

/// `count` dashes along the line from `a` to `b` in a log-log or log-linear chart's
/// coordinates, interpolated geometrically in x and y where `log` says.
fn dashes(a: (f64, f64), b: (f64, f64), log: (bool, bool), count: usize) -> Vec<[(f64, f64); 2]> {
    let lerp = |p: f64, q: f64, t: f64, l: bool| {
        if l {
            (p.ln() + (q.ln() - p.ln()) * t).exp()
        } else {
            p + (q - p) * t
        }
    };
    let at = |t: f64| (lerp(a.0, b.0, t, log.0), lerp(a.1, b.1, t, log.1));
    let steps = 2 * count;
    (0..steps)
        .step_by(2)
        .map(|i| {
            [
                at(i as f64 / steps as f64),
                at((i + 1) as f64 / steps as f64),
            ]
        })
        .collect()
}
