//! `rendermm bench`: every method × sizes × precisions beside the adapter's own ceilings (a
//! table, JSON, CSV, plots), the ceilings alone, or a seed's own tables (`--suite`).
//! Everything that can be refused is refused before the ceilings are measured.

use super::values::{MethodArg, PrecisionArg, SuiteArg, named};
use super::{check_failed, guard, progress};
use crate::bench::{self, ceilings, soak, sweep};
use crate::gpu::GpuContext;
use crate::io;
use crate::matrix::parse_mkn;
use crate::methods::Method;
use crate::precision::Precision;
use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct BenchArgs {
    /// A suite printed beside a seed's own tables. Without it: every method x sizes x
    /// precisions, beside the adapter's ceilings.
    #[arg(long, value_parser = named::<SuiteArg>("bench suite"))]
    suite: Option<SuiteArg>,
    /// Only measure the adapter's ceilings (fragment and compute FMA, tensor-core multiply-add
    /// where coop runs, R32F blend, texture fetch, copies).
    #[arg(long)]
    ceilings: bool,
    /// Soak: N rounds of every GPU method (or those of --methods) in one process, each product
    /// checked; fails if memory grows, or if a method's later rounds take over 1.2x its first
    /// times the device's own variation over the soak (a fixed dispatch's slowest over fastest).
    #[arg(long, value_name = "N")]
    soak: Option<usize>,
    /// Soak: the size n of the n×n·n×n products (default 256; 64 with --quick).
    #[arg(long, value_name = "N")]
    soak_size: Option<usize>,
    /// Small sizes and the small ceiling workloads: a whole sweep in under two minutes on lavapipe.
    #[arg(long)]
    quick: bool,
    /// Methods to sweep, comma separated (default: all; `rendermm methods` lists them).
    #[arg(long, value_delimiter = ',', value_parser = named::<MethodArg>("method"))]
    methods: Vec<MethodArg>,
    /// Sizes n of the n×n·n×n sweep, comma separated (default: a ladder that fits the adapter).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Precisions for the render-pass methods, comma separated.
    #[arg(long, value_delimiter = ',', value_parser = named::<PrecisionArg>("precision"),
          default_values_t = [PrecisionArg(Precision::F32)])]
    precisions: Vec<PrecisionArg>,
    /// Timed runs per row (suites: trials per row).
    #[arg(long, alias = "trials", default_value_t = 5,
          value_parser = at_least_one)]
    repeats: usize,
    /// Untimed runs per row before the timed ones.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// Sweep: a method whose one run takes longer than this many seconds is not run at larger
    /// sizes, and its repeats are cut to about this long.
    #[arg(long, default_value_t = 5.0, value_parser = positive_seconds)]
    max_run_s: f64,
    /// Problem size MxKxN for suites that take one (5kk73; default 256x256x256).
    #[arg(long)]
    size: Option<String>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON instead of tables, or with a FILE write it there.
    #[arg(long, num_args = 0..=1, value_name = "FILE")]
    json: Option<Option<PathBuf>>,
    /// Write the sweep as CSV.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the sweep's PNG plots into this folder.
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Measure nothing: read a sweep a bench run wrote with --json (on any machine) and draw its
    /// --plots again, e.g. the H100's into docs/img.
    #[arg(long, value_name = "FILE")]
    replot: Option<PathBuf>,
}

impl BenchArgs {
    /// JSON goes to stdout (`--json` without a file).
    fn json_stdout(&self) -> bool {
        matches!(self.json, Some(None))
    }

    /// The file `--json FILE` names.
    fn json_file(&self) -> Option<&Path> {
        self.json.as_ref().and_then(|j| j.as_deref())
    }
}

/// Run `rendermm bench`.
pub fn run(args: BenchArgs) -> Result<()> {
    validate(&args)?;
    if let Some(file) = &args.replot {
        let text =
            std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
        let sweep: sweep::Sweep = serde_json::from_str(&text).with_context(|| {
            format!(
                "{}: not the JSON of a bench sweep (rendermm bench --json FILE)",
                file.display()
            )
        })?;
        return write_sweep(&args, &sweep);
    }
    let ctx = GpuContext::new()?;
    if let Some(suite) = args.suite {
        return run_suite(&ctx, &args, suite.0);
    }
    if let Some(rounds) = args.soak {
        return run_soak(&ctx, &args, rounds);
    }
    let opts = sweep_options(&ctx, &args)?;
    if !args.json_stdout() {
        eprintln!("adapter: {}", ctx.describe());
        eprintln!("measuring the ceilings ...");
    }
    let ceil = ceilings::measure(&ctx, args.quick)?;
    if args.ceilings {
        return show_ceilings(&args, &ceil);
    }
    let result = run_sweep(&ctx, &opts, &ceil, args.json_stdout())?;
    // Nothing ran: fail as `multiply` and `tour` of that method would, with the skip's own exit
    // status (3 for an adapter that lacks a feature), before anything is written.
    if !result.rows.is_empty() && result.rows.iter().all(|r| r.skipped.is_some()) {
        return Err(nothing_ran(&ctx, &opts, &result));
    }
    write_sweep(&args, &result)?;
    let refused = result.refused_everywhere();
    if !refused.is_empty() {
        check_failed!(
            "{} ran at no size: every product was refused, and not for a feature the adapter lacks (the table says why)",
            refused.join(", ")
        );
    }
    if !result.all_passed() {
        check_failed!("some rows failed their check against the f64 reference");
    }
    Ok(())
}

/// `--soak N`: the rounds, the table (or JSON), and exit status 1 if it failed.
fn run_soak(ctx: &GpuContext, args: &BenchArgs, rounds: usize) -> Result<()> {
    let methods: Vec<Method> = if args.methods.is_empty() {
        Method::ALL.to_vec()
    } else {
        args.methods.iter().map(|m| m.0).collect()
    };
    let n = args.soak_size.unwrap_or(if args.quick { 64 } else { 256 });
    let kernels = super::knobs::kernels_for(&methods)?;
    let s = soak::soak(
        ctx,
        &methods,
        rounds,
        n,
        args.seed,
        kernels,
        &super::knobs::host_resident,
    )?;
    if args.json_stdout() {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print!("{}", s.render());
    }
    write_json_file(args, &s)?;
    let failures = s.failures();
    if !failures.is_empty() {
        check_failed!("soak failed: {}", failures.join("; "));
    }
    Ok(())
}

/// Refuse bad sizes and unwritable outputs before the GPU is opened: the method and precision
/// names were refused by the parser already.
fn validate(args: &BenchArgs) -> Result<()> {
    if args.sizes.contains(&0) {
        bail!("--sizes: every size must be at least 1");
    }
    if args.soak == Some(0) {
        bail!("--soak: give the number of rounds, at least 1");
    }
    let modes = [
        (args.suite.is_some(), "--suite"),
        (args.ceilings, "--ceilings"),
        (args.soak.is_some(), "--soak"),
        (args.replot.is_some(), "--replot"),
    ];
    let chosen: Vec<&str> = modes.iter().filter(|m| m.0).map(|m| m.1).collect();
    if chosen.len() > 1 {
        bail!("{}: pick one of them per run", chosen.join(" and "));
    }
    if args.soak_size.is_some() && args.soak.is_none() {
        bail!("--soak-size is the size of a soak's products: give --soak N (the rounds) too");
    }
    if args.replot.is_some() && args.plots.is_none() {
        bail!("--replot draws a saved sweep's charts: give --plots DIR, the folder they go to");
    }
    if let Some(n) = args.soak_size {
        if n == 0 {
            bail!("--soak-size: the size must be at least 1");
        }
        guard::product_memory(&format!("--soak-size {n}"), (n, n, n), 2)?;
    }
    for &n in &args.sizes {
        guard::product_memory(&format!("--sizes {n}"), (n, n, n), 2)?;
    }
    if let Some(size) = &args.size {
        let mkn = parse_shape("--size", size)?;
        guard::product_memory(&format!("--size {size}"), mkn, 2)?;
    }
    // The outputs' folders are created to see that they can be, and removed again: they are
    // made for good only when there is something to write, so that a run refused or failed
    // later (a --replot of a file that is not a sweep) leaves no empty folder behind.
    for path in [args.json_file(), args.csv.as_deref()]
        .into_iter()
        .flatten()
    {
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        match parent {
            Some(dir) => in_new_folder(dir, || Ok(io::check_output(path)?))?,
            None => io::check_output(path)?,
        }
    }
    if let Some(dir) = &args.plots {
        in_new_folder(dir, || Ok(()))?;
    }
    Ok(())
}

/// Create `dir` (and the folders above it that are missing), run `check`, and remove again the
/// folders this call created (only while empty: `remove_dir` leaves anything else alone).
fn in_new_folder(dir: &Path, check: impl FnOnce() -> Result<()>) -> Result<()> {
    let missing = NewFolders::of([dir]);
    let made = std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()));
    let checked = made.and_then(|()| check());
    missing.remove_empty();
    checked
}

/// The folders that do not exist yet among some output folders and the folders above them,
/// taken before a run creates them, so that a run that fails can remove again those it left
/// empty: a failed run leaves no folder of its own behind.
pub(super) struct NewFolders(Vec<PathBuf>);

impl NewFolders {
    /// The missing folders of each of `dirs` and of those above it.
    pub(super) fn of<'a>(dirs: impl IntoIterator<Item = &'a Path>) -> Self {
        let mut missing = vec![];
        for dir in dirs {
            let mut at = Some(dir);
            while let Some(p) = at.filter(|p| !p.as_os_str().is_empty()) {
                if std::fs::symlink_metadata(p).is_ok() {
                    break;
                }
                missing.push(p.to_path_buf());
                at = p.parent();
            }
        }
        // Innermost first, each once.
        missing.sort_by_key(|p| std::cmp::Reverse(p.components().count()));
        missing.dedup();
        NewFolders(missing)
    }

    /// Remove those of them that are empty now (`remove_dir` leaves anything holding a file).
    pub(super) fn remove_empty(&self) {
        for p in &self.0 {
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// The error of a sweep in which no row ran: the first row's own, typed (so the exit status is
/// that cause's: 3 for an adapter that lacks a feature, as `multiply` gives), found by asking
/// that product again; the row's words where it runs this time.
fn nothing_ran(
    ctx: &GpuContext,
    opts: &sweep::SweepOptions,
    result: &sweep::Sweep,
) -> anyhow::Error {
    let first = &result.rows[0];
    let why = first.skipped.clone().unwrap_or_default();
    let context = format!(
        "bench: nothing ran (every row was skipped); {} at n = {}",
        first.method, first.n
    );
    let asked = opts.methods.iter().find(|m| m.name() == first.method);
    let precision = opts
        .precisions
        .iter()
        .copied()
        .find(|p| p.name() == first.precision)
        .unwrap_or(Precision::F32);
    if let Some(&method) = asked {
        let n = first.n;
        let (lo, hi) = if precision == Precision::U8 {
            (0.0, (2.0 / (n as f32).sqrt()).min(1.0))
        } else {
            (-1.0, 1.0)
        };
        let a = crate::matrix::Matrix::random(n, n, opts.seed, lo, hi);
        let b = crate::matrix::Matrix::random(n, n, opts.seed + 1, lo, hi);
        let request = crate::plan::Request::new(method, &a, &b).options(crate::plan::Options {
            precision,
            repeats: None,
            ..opts.options.clone()
        });
        if let Err(e) = crate::plan::multiply(method.is_gpu().then_some(ctx), request) {
            return anyhow::Error::new(e).context(context);
        }
    }
    anyhow::anyhow!("{context}: {why}")
}

/// A shape MxKxN given with `flag`, refused in a line that names that flag (the library's
/// parser speaks of `--random`, multiply's flag).
pub(super) fn parse_shape(flag: &str, s: &str) -> Result<(usize, usize, usize)> {
    Ok(parse_mkn(s).map_err(|_| {
        crate::Error::Invalid(format!(
            "{flag} '{s}': expected MxKxN with positive integers, e.g. 65x100x37"
        ))
    })?)
}

/// Create the folder a file goes into.
fn make_parent(path: &Path) -> Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    Ok(())
}

/// Write `text` to `path` atomically and say so on stderr.
fn write_text(path: &Path, text: &str) -> Result<()> {
    make_parent(path)?;
    io::write_atomic(path, |w| {
        w.write_all(text.as_bytes())
            .map_err(|e| crate::Error::io(path, e))
    })?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

/// `--json FILE`: write `value` there.
fn write_json_file(args: &BenchArgs, value: &impl Serialize) -> Result<()> {
    if let Some(path) = args.json_file() {
        write_text(path, &serde_json::to_string_pretty(value)?)?;
    }
    Ok(())
}

/// `--suite`: a seed's tables.
fn run_suite(ctx: &GpuContext, args: &BenchArgs, suite: bench::Suite) -> Result<()> {
    let opts = bench::BenchOptions {
        trials: args.repeats,
        warmup: args.warmup,
        size: args
            .size
            .as_deref()
            .map(|s| parse_shape("--size", s))
            .transpose()?,
        seed: args.seed,
    };
    let report = bench::run(ctx, suite, &opts)?;
    if args.json_stdout() {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", bench::render(&report));
    }
    write_json_file(args, &report)?;
    if !report.all_passed() {
        check_failed!("some rows failed to run or failed their check against the f64 reference");
    }
    Ok(())
}

/// `--ceilings`: print the ceilings alone.
fn show_ceilings(args: &BenchArgs, ceil: &ceilings::Ceilings) -> Result<()> {
    if args.json_stdout() {
        println!("{}", serde_json::to_string_pretty(ceil)?);
    } else {
        println!(
            "{:<22} {:>12} {:<13} {:>12} {:>6} {:<14} how",
            "ceiling", "measured", "unit", "theoretical", "share", "clock"
        );
        for c in &ceil.ceilings {
            let (theory, share) = match c.theoretical {
                Some(t) => (format!("{t:.2}"), format!("{:.0}%", 100.0 * c.value / t)),
                None => ("–".into(), "–".into()),
            };
            println!(
                "{:<22} {:>12.2} {:<13} {:>12} {:>6} {:<14} {}",
                c.name,
                c.value,
                c.unit,
                theory,
                share,
                c.clock.name(),
                c.detail
            );
        }
        if ceil.ceilings.iter().any(|c| c.theoretical.is_some()) {
            println!("theoretical figures:");
            let mut seen = vec![];
            for c in &ceil.ceilings {
                if let Some(src) = c.theoretical_source.as_ref().filter(|s| !seen.contains(s)) {
                    println!("  {}: {src}", c.name);
                    seen.push(src);
                }
            }
        }
    }
    write_json_file(args, ceil)
}

/// The sweep's methods, sizes, precisions and run counts (`--quick` caps them).
fn sweep_options(ctx: &GpuContext, args: &BenchArgs) -> Result<sweep::SweepOptions> {
    let methods = if args.methods.is_empty() {
        Method::ALL.to_vec()
    } else {
        args.methods.iter().map(|m| m.0).collect()
    };
    let sizes = if args.sizes.is_empty() {
        sweep::SweepOptions::default_sizes(ctx, args.quick)
    } else {
        args.sizes.clone()
    };
    let options = super::knobs::options_for(None, &methods)?;
    Ok(sweep::SweepOptions {
        methods,
        sizes,
        precisions: args.precisions.iter().map(|p| p.0).collect(),
        warmup: args.warmup,
        repeats: if args.quick {
            args.repeats.min(3)
        } else {
            args.repeats
        },
        max_run_s: if args.quick {
            args.max_run_s.min(2.0)
        } else {
            args.max_run_s
        },
        seed: args.seed,
        options,
    })
}

/// Run the sweep with a bar of rows (hidden when JSON goes to stdout), then print it.
fn run_sweep(
    ctx: &GpuContext,
    opts: &sweep::SweepOptions,
    ceil: &ceilings::Ceilings,
    json_stdout: bool,
) -> Result<sweep::Sweep> {
    let rows: u64 = opts
        .methods
        .iter()
        .map(|m| {
            let precisions = opts
                .precisions
                .iter()
                .filter(|&&p| m.takes(p))
                .count()
                .max(1);
            (opts.sizes.len() * precisions) as u64
        })
        .sum();
    let bar = progress::sweep_bar(rows, json_stdout);
    let result = sweep::run(ctx, opts, Some(ceil), |r| {
        bar.set_message(format!("{} n={}", r.method, r.n));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    if json_stdout {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", sweep::table(&result));
    }
    Ok(result)
}

/// `--json FILE`, `--csv FILE`, `--plots DIR`; a failure removes again the folders it made that
/// are still empty.
fn write_sweep(args: &BenchArgs, result: &sweep::Sweep) -> Result<()> {
    // Said before anything is written (a replot of a sweep in which nothing ran).
    if args.plots.is_some() && result.rows.iter().all(|r| r.skipped.is_some()) {
        return Err(
            crate::Error::Invalid("no row of the sweep ran; nothing to plot".into()).into(),
        );
    }
    let parent = |p: &Path| p.parent().map(Path::to_path_buf);
    let folders: Vec<PathBuf> = [
        args.json_file().and_then(parent),
        args.csv.as_deref().and_then(parent),
    ]
    .into_iter()
    .flatten()
    .chain(args.plots.clone())
    .collect();
    let made = NewFolders::of(folders.iter().map(PathBuf::as_path));
    let written = write_sweep_files(args, result);
    if written.is_err() {
        made.remove_empty();
    }
    written
}

fn write_sweep_files(args: &BenchArgs, result: &sweep::Sweep) -> Result<()> {
    write_json_file(args, result)?;
    if let Some(path) = &args.csv {
        write_text(path, &sweep::csv(result))?;
    }
    if let Some(dir) = &args.plots {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for path in crate::bench::plots::sweep_plots(result, dir)? {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

/// `--max-run-s`: a number of seconds above 0 (not NaN, not infinite), else clap's one-line
/// usage error naming the flag.
fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "'{s}' is not a number of seconds above 0 (e.g. 5 or 0.5)"
        )),
    }
}

/// `--repeats`: a whole number from 1 up (0 timed runs would time nothing).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(format!(
            "'{s}' is not a whole number from 1 up (timed runs per row)"
        )),
    }
}
