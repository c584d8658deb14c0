//! `rendermm bench`: suites of timed runs, each printed as tables beside the numbers of the seed
//! it reproduces.
//!
//! A [`Suite`] is a list of [`TableSpec`]s; a table is a problem size and a list of [`RowSpec`]s;
//! a row names what runs (a compute method, and where the seed ran its own kernel
//! configuration — one of O'Neil's block layouts — that configuration as [`Kernels`] of the
//! method) and, where the seed gives them, the seed's own figures. [`run`] measures every row
//! the same way, through the one entry point ([`plan::multiply`] with timed [`Repeats`]):
//! inputs uploaded and pipelines built once, then `warmup + trials` times the output is
//! poisoned and the dispatches are submitted and waited for; the wall-clock time of submit →
//! completion of each trial is the measurement (and, where the adapter has `TIMESTAMP_QUERY`,
//! the GPU time of the compute pass beside it). The result of the last trial is judged against
//! the f64 CPU reference ([`plan::Outcome::verdict`]), so a fast wrong kernel cannot post a time.
//! Later suites add a [`Suite`] variant and its tables; the measuring, the statistics and the
//! printing stay as they are.
//!
//! Suites:
//! - `oneil`: O'Neil (2013) tables 1 and 2 — Cannon and the DNS variants at 8×8 and 16×16, in
//!   microseconds, min / max / avg / std over the trials as the paper prints them.
//! - `5kk73`: the 5kk73 ladder with the HIP blog's kernels around it, at one size (default
//!   256×256×256), in milliseconds and GFLOP/s.

pub mod ceilings;
pub mod ladder;
pub mod plots;
pub mod soak;
pub mod sweep;
pub mod tune;

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{Kernels, Method, dns};
use crate::plan::{self, Options, Repeats, Request};
use serde::Serialize;

/// The suites `rendermm bench --suite` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// O'Neil 2013, tables 1 and 2: Cannon and DNS at 8×8 and 16×16.
    Oneil,
    /// The 5kk73 ladder beside the HIP blog's naive and tiled kernels.
    Kk73,
}

impl Suite {
    pub const ALL: &'static [Suite] = &[Suite::Oneil, Suite::Kk73];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Oneil => "oneil",
            Suite::Kk73 => "5kk73",
        }
    }

    /// Look a suite up by name.
    #[cfg(feature = "internals")]
    pub fn parse(name: &str) -> Result<Suite> {
        Suite::ALL
            .iter()
            .copied()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Suite::ALL.iter().map(|s| s.name()).collect();
                Error::Invalid(format!(
                    "unknown bench suite '{name}'; known: {}",
                    names.join(", ")
                ))
            })
    }
}

/// How a suite is run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Timed runs per row.
    pub trials: usize,
    /// Untimed runs per row before the timed ones (the first dispatch pays for lazy setup).
    pub warmup: usize,
    /// Problem size for suites that take one (`5kk73`); `None` = the suite's default.
    pub size: Option<(usize, usize, usize)>,
    /// Seed of the random inputs.
    pub seed: u64,
}

impl Default for BenchOptions {
    fn default() -> Self {
        Self {
            trials: 20,
            warmup: 2,
            size: None,
            seed: 1,
        }
    }
}

/// A seed's own row: trials and min / max / avg / std in the table's unit.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PaperRow {
    pub trials: usize,
    pub min: f64,
    pub max: f64,
    pub avg: f64,
    pub std: f64,
}

/// One row of a table to run.
#[derive(Clone, Debug)]
pub struct RowSpec {
    /// The label, the seed's own where the row reproduces one of its rows.
    pub label: &'static str,
    /// The compute method the row asks [`plan::multiply`] for.
    pub method: Method,
    /// The kernel configuration of the method it names, where the row runs one of the seed's
    /// own (O'Neil's Cannon tile, his DNS block layouts); default: the method's own.
    pub kernels: Kernels,
    pub paper: Option<PaperRow>,
}

/// One table to run: a size and rows.
#[derive(Clone, Debug)]
pub struct TableSpec {
    pub title: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub rows: Vec<RowSpec>,
}

/// Min / max / mean / standard deviation (population, as O'Neil's small-sample tables
/// presumably use; the difference is under 3% at 20 trials).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub avg: f64,
    pub std: f64,
}

impl Stats {
    /// Statistics of `xs` (zeros if empty).
    pub fn of(xs: &[f64]) -> Stats {
        if xs.is_empty() {
            return Stats::default();
        }
        let n = xs.len() as f64;
        let avg = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - avg).powi(2)).sum::<f64>() / n;
        Stats {
            min: xs.iter().copied().fold(f64::INFINITY, f64::min),
            max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            avg,
            std: var.sqrt(),
        }
    }
}

/// A measured row.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub label: String,
    /// The plan's method name and dispatches, e.g. `dns-n-blocks: 8 wg of 8x8x1`.
    pub ran_as: String,
    pub trials: usize,
    /// Wall clock, submit to completion, in the table's unit.
    pub wall: Stats,
    /// GPU timestamps around the compute pass, in the table's unit (absent without
    /// `TIMESTAMP_QUERY`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Stats>,
    /// 2·m·k·n over the fastest wall-clock trial.
    pub best_gflops: f64,
    /// Relative Frobenius error of the last trial against the f64 reference.
    pub rel_err: f64,
    pub check_passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paper: Option<PaperRow>,
    /// Why the row did not run, if it did not (then the numbers are zero).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A measured table.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    pub title: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// "us" or "ms".
    pub unit: &'static str,
    pub rows: Vec<Row>,
}

/// What `rendermm bench` prints.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteReport {
    pub suite: String,
    pub adapter: String,
    pub backend: String,
    /// Where the seed's figures come from.
    pub paper_source: &'static str,
    pub tables: Vec<Table>,
    pub notes: Vec<String>,
}

impl SuiteReport {
    /// Whether every row ran and passed its check.
    pub fn all_passed(&self) -> bool {
        self.tables
            .iter()
            .flat_map(|t| &t.rows)
            .all(|r| r.error.is_none() && r.check_passed)
    }
}

/// O'Neil 2013 table 1 (8×8) and table 2 (16×16), µs on a Tesla C2070.
fn oneil_tables() -> Vec<TableSpec> {
    let p = |trials, min, max, avg, std| {
        Some(PaperRow {
            trials,
            min,
            max,
            avg,
            std,
        })
    };
    let t1 = TableSpec {
        title: "Table 1. 8-by-8 matrix multiplication".into(),
        m: 8,
        k: 8,
        n: 8,
        rows: vec![
            RowSpec {
                label: "Cannon",
                method: Method::Cannon,
                kernels: Kernels::default(),
                paper: p(15, 277.5, 287.7, 281.6, 3.2),
            },
            RowSpec {
                label: "DNS, 8x8x8 block",
                method: Method::Dns,
                kernels: Kernels::default(),
                paper: p(24, 279.7, 291.2, 282.7, 3.1),
            },
            RowSpec {
                label: "DNS, 8 8x8 blocks",
                method: Method::DnsNBlocks,
                kernels: Kernels::default(),
                paper: p(26, 277.0, 287.0, 282.2, 2.6),
            },
            RowSpec {
                label: "DNS, 16 4x8 blocks",
                method: Method::Dns2nBlocks,
                kernels: Kernels::default(),
                paper: p(23, 278.7, 290.1, 282.3, 2.6),
            },
            RowSpec {
                label: "DNS, 32 2x8 blocks",
                method: Method::Dns4nBlocks,
                kernels: Kernels::default(),
                paper: p(25, 280.2, 291.5, 283.1, 2.7),
            },
        ],
    };
    // At 16×16 O'Neil tiled everything with TILE_WIDTH = 8 (§5): Cannon over 8×8 blocks, DNS as
    // eight 8×8×8 sub-cubes, and the 8-block DNS as 64 blocks of 8×8.
    let t2 = TableSpec {
        title: "Table 2. 16-by-16 matrix multiplication".into(),
        m: 16,
        k: 16,
        n: 16,
        rows: vec![
            RowSpec {
                label: "Cannon",
                method: Method::CannonTiled,
                kernels: Kernels {
                    cannon_tile: Some(8),
                    ..Default::default()
                },
                paper: p(15, 270.4, 277.5, 274.1, 2.0),
            },
            RowSpec {
                label: "DNS, 8x8x8 block",
                method: Method::DnsTiled,
                kernels: Kernels::default(),
                paper: p(15, 273.4, 283.8, 277.4, 3.4),
            },
            RowSpec {
                label: "DNS, 8 8x8 blocks",
                method: Method::DnsNBlocks,
                kernels: Kernels {
                    dns_layout: Some(dns::Layout {
                        bi: 8,
                        bk: 8,
                        bj: 1,
                    }),
                    ..Default::default()
                },
                paper: p(16, 282.7, 300.8, 288.2, 4.6),
            },
            RowSpec {
                label: "(Cannon, one 16x16 wg)",
                method: Method::Cannon,
                kernels: Kernels::default(),
                paper: None,
            },
            RowSpec {
                label: "(DNS, 16 16x16 blocks)",
                method: Method::DnsNBlocks,
                kernels: Kernels::default(),
                paper: None,
            },
        ],
    };
    vec![t1, t2]
}

/// The 5kk73 ladder with the HIP blog's kernels, at one size.
fn kk73_table(m: usize, k: usize, n: usize) -> TableSpec {
    let row = |label, method| RowSpec {
        label,
        method,
        kernels: Kernels::default(),
        paper: None,
    };
    TableSpec {
        title: format!("The 5kk73 ladder at {m}x{k}x{n}"),
        m,
        k,
        n,
        rows: vec![
            row("naive", Method::CsNaive),
            row("5kk73 1 uncoalesced", Method::Kk73Uncoalesced),
            row("5kk73 2 coalesced", Method::Kk73Coalesced),
            row("5kk73 3 bank-free", Method::Kk73BankFree),
            row("5kk73 4 outer product", Method::Kk73OuterProduct),
            row("5kk73 5 unrolled", Method::Kk73Unrolled),
            row("5kk73 6 prefetch", Method::Kk73Prefetch),
            row("HIP blog tiled 16", Method::CsTiled16),
            row("HIP blog tiled 32", Method::CsTiled32),
        ],
    }
}

/// Run `suite` on `ctx`.
pub fn run(ctx: &GpuContext, suite: Suite, opts: &BenchOptions) -> Result<SuiteReport> {
    if opts.trials == 0 {
        return Err(Error::Invalid(
            "--trials 0: a row needs at least one trial".into(),
        ));
    }
    let (specs, unit, source, mut notes) = match suite {
        Suite::Oneil => {
            if opts.size.is_some() {
                return Err(Error::Invalid(
                    "--size: the oneil suite runs the paper's sizes, 8x8 and 16x16".into(),
                ));
            }
            (
                oneil_tables(),
                "us",
                "O'Neil 2013, tables 1-2: Tesla C2070, CUDA, times in microseconds",
                vec![
                    "O'Neil does not say what his times include; at ~280 us for 8x8 (his Table 1) they are launch and transfer overhead, so compare the columns' shape, not their values".to_string(),
                    "16x16 rows follow the paper's §5 tiling with TILE_WIDTH = 8; rows in brackets are not in the paper".to_string(),
                ],
            )
        }
        Suite::Kk73 => {
            let (m, k, n) = opts.size.unwrap_or((256, 256, 256));
            (
                vec![kk73_table(m, k, n)],
                "ms",
                "5kk73 gives figures for an 8800 GT, not a table: see docs/compute-era.md",
                vec![],
            )
        }
    };
    notes.push(
        "wall = submit to completion of the compute pass; gpu = timestamps around it".to_string(),
    );
    let scale = if unit == "us" { 1e3 } else { 1.0 };
    let mut tables = vec![];
    for (ti, spec) in specs.iter().enumerate() {
        let a = Matrix::random(spec.m, spec.k, opts.seed * 2 + ti as u64 * 100, -1.0, 1.0);
        let b = Matrix::random(
            spec.k,
            spec.n,
            opts.seed * 2 + 1 + ti as u64 * 100,
            -1.0,
            1.0,
        );
        let mut rows = vec![];
        for r in &spec.rows {
            let row = match measure(ctx, r, &a, &b, opts, scale) {
                Ok(row) => row,
                Err(e) => Row {
                    label: r.label.to_string(),
                    ran_as: String::new(),
                    trials: 0,
                    wall: Stats::default(),
                    gpu: None,
                    best_gflops: 0.0,
                    rel_err: f64::NAN,
                    check_passed: false,
                    paper: r.paper,
                    error: Some(e.to_string()),
                },
            };
            rows.push(row);
        }
        tables.push(Table {
            title: spec.title.clone(),
            m: spec.m,
            k: spec.k,
            n: spec.n,
            unit,
            rows,
        });
    }
    Ok(SuiteReport {
        suite: suite.name().to_string(),
        adapter: ctx.describe(),
        backend: format!("{:?}", ctx.info.backend),
        paper_source: source,
        tables,
        notes,
    })
}

/// Time one row through the entry point: upload and build once, then poison → submit → wait,
/// `warmup + trials` times ([`Repeats`]); the last trial's C judged by the outcome's verdict.
fn measure(
    ctx: &GpuContext,
    r: &RowSpec,
    a: &Matrix,
    b: &Matrix,
    opts: &BenchOptions,
    scale: f64,
) -> Result<Row> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if !r.method.is_compute() {
        return Err(Error::Invalid(format!(
            "{} is not a compute method; bench runs compute methods",
            r.method
        )));
    }
    let options = Options {
        kernels: r.kernels,
        repeats: Some(Repeats {
            warmup: opts.warmup,
            trials: opts.trials,
        }),
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx),
        Request::new(r.method, a, b).options(options.clone()),
    )?;
    let verdict = out.verdict(a, b);
    // What ran, as the outcome records it: the method (or the one it handed the product to)
    // and the dispatches of the plan it ran; a tiled product, whose blocks ran plans of their
    // own, is described by that method's plan of the whole at the row's configuration.
    let ran = out.kernel.method;
    let grid = match &out.kernel.grid {
        Some(grid) => grid.clone(),
        None => {
            plan::compute_plan_named(ran, &options, &ctx.limits, m, k, n)
                .unwrap_or_else(|| Err(Error::Internal(format!("{ran} is not a compute method"))))?
                .0
                .grid()
        }
    };
    let dispatches: Vec<String> = grid
        .0
        .iter()
        .map(|d| {
            let [wx, wy, wz] = d.workgroup_size;
            let dims: Vec<String> = [wz, wy, wx]
                .iter()
                .filter(|&&d| d > 1)
                .map(|d| d.to_string())
                .collect();
            let shape = if dims.is_empty() {
                "1".to_string()
            } else {
                dims.join("x")
            };
            format!("{} wg of {shape}", d.workgroups())
        })
        .collect();
    let scaled = |xs: &[f64]| xs.iter().map(|x| x * scale).collect::<Vec<f64>>();
    let wall_stats = Stats::of(&scaled(&out.timings.trials_ms));
    let gpu = scaled(&out.timings.repeats_ms);
    Ok(Row {
        label: r.label.to_string(),
        ran_as: format!("{ran}: {}", dispatches.join(" + ")),
        trials: out.timings.trials_ms.len(),
        wall: wall_stats,
        gpu: (!gpu.is_empty()).then(|| Stats::of(&gpu)),
        best_gflops: 2.0 * (m * k * n) as f64 / (wall_stats.min / scale * 1e6),
        rel_err: verdict.stats.rel_err,
        check_passed: verdict.passed,
        paper: r.paper,
        error: None,
    })
}

/// The report as text: per table, this machine's columns and the seed's beside them.
pub fn render(rep: &SuiteReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "rendermm bench --suite {}", rep.suite);
    let _ = writeln!(s, "adapter: {}", rep.adapter);
    for t in &rep.tables {
        let u = if t.unit == "us" { "µs" } else { "ms" };
        let _ = writeln!(s, "\n{} ({}x{}x{}), times in {u}", t.title, t.m, t.k, t.n);
        let paper = t.rows.iter().any(|r| r.paper.is_some());
        let _ = write!(
            s,
            "{:<24} {:<40} {:>6} {:>9} {:>9} {:>9} {:>8} {:>9} {:>8} {:>6}",
            "Algorithm",
            "ran as",
            "Trials",
            "Min",
            "Max",
            "Avg",
            "Std",
            "GPU avg",
            "GFLOP/s",
            "check"
        );
        if paper {
            let _ = write!(
                s,
                "  | {:>6} {:>7} {:>7} {:>7} {:>5}",
                "Trials", "Min", "Max", "Avg", "Std"
            );
        }
        let _ = writeln!(s);
        for r in &t.rows {
            if let Some(e) = &r.error {
                let _ = writeln!(s, "{:<24} error: {e}", r.label);
                continue;
            }
            let gpu = r.gpu.map_or("-".to_string(), |g| format!("{:.1}", g.avg));
            let _ = write!(
                s,
                "{:<24} {:<40} {:>6} {:>9.1} {:>9.1} {:>9.1} {:>8.1} {:>9} {:>8.3} {:>6}",
                r.label,
                r.ran_as,
                r.trials,
                r.wall.min,
                r.wall.max,
                r.wall.avg,
                r.wall.std,
                gpu,
                r.best_gflops,
                if r.check_passed { "ok" } else { "FAIL" }
            );
            if let Some(p) = r.paper {
                let _ = write!(
                    s,
                    "  | {:>6} {:>7.1} {:>7.1} {:>7.1} {:>5.1}",
                    p.trials, p.min, p.max, p.avg, p.std
                );
            }
            let _ = writeln!(s);
        }
    }
    if rep
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .any(|r| r.paper.is_some())
    {
        let _ = writeln!(s, "\nright of |: {}", rep.paper_source);
    } else {
        let _ = writeln!(s);
    }
    for n in &rep.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}
