//! `rendermm tune`: time a tunable method on this adapter and name the best setting — Hall's
//! block size b (hall-blocked, hall-packed) or a variant (cs-fast, coop). The tuner with its
//! progress bar is shared with `multiply --b auto`.

use super::guard;
use super::progress::tuning_bar;
use super::values::{AccumulateArg, MethodArg, named};
use crate::bench::tune;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{Accumulate, Method};
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct TuneArgs {
    /// A method with a block size (b) or variants to tune.
    #[arg(long, value_parser = named::<MethodArg>("method"),
          default_value_t = MethodArg(Method::HallBlocked))]
    method: MethodArg,
    #[arg(long, default_value_t = 256)]
    m: usize,
    #[arg(long, default_value_t = 256)]
    k: usize,
    #[arg(long, default_value_t = 256)]
    n: usize,
    /// b values to time, comma separated; default: the powers of two below the inner dimension
    /// the passes walk (k, or ⌈k/2⌉ packed), and that dimension (one pass).
    #[arg(long, value_delimiter = ',')]
    blocks: Vec<u32>,
    /// How the running sum goes from pass to pass.
    #[arg(long, value_parser = named::<AccumulateArg>("accumulation mode"),
          default_value_t = AccumulateArg(Accumulate::PingPong))]
    accumulate: AccumulateArg,
    /// Timed runs per b, after one warm-up run; the median counts.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print JSON instead of the table.
    #[arg(long)]
    json: bool,
    /// cs-fast / coop: variants to time, comma separated; default: all of them.
    #[arg(long, value_delimiter = ',')]
    variants: Vec<String>,
}

/// One tuning of Hall's block size, with a progress bar on stderr (hidden with `quiet`).
pub struct TunerRun<'a> {
    pub ctx: &'a GpuContext,
    pub method: Method,
    pub a: &'a Matrix,
    pub b: &'a Matrix,
    pub accumulate: Accumulate,
    /// The b values to time.
    pub blocks: &'a [u32],
    /// Timed runs per b, after one warm-up.
    pub repeats: usize,
    pub quiet: bool,
}

impl TunerRun<'_> {
    /// Time every b and return the tuning (its `best` is the fastest b).
    pub fn run(&self) -> Result<tune::Tuning> {
        let total = (self.blocks.len() * (self.repeats + 1)) as u64;
        let bar = tuning_bar(total, self.quiet, self.method);
        let t = tune::tune(
            self.ctx,
            self.method,
            self.a,
            self.b,
            self.accumulate,
            self.blocks,
            self.repeats,
            &mut |done, _, blk| {
                bar.set_position(done as u64);
                bar.set_message(format!("b = {blk}"));
            },
        )?;
        bar.finish_and_clear();
        Ok(t)
    }
}

/// The random inputs of a tuning, checked to fit the host first.
fn inputs(args: &TuneArgs) -> Result<(Matrix, Matrix)> {
    let (m, k, n) = (args.m, args.k, args.n);
    guard::product_memory(&format!("--m {m} --k {k} --n {n}"), (m, k, n), 1)?;
    let a = Matrix::try_random(m, k, args.seed * 2, -1.0, 1.0)?;
    let b = Matrix::try_random(k, n, args.seed * 2 + 1, -1.0, 1.0)?;
    crate::matrix::check_product(&a, &b)?;
    Ok((a, b))
}

/// Run `rendermm tune`.
pub fn run(args: TuneArgs) -> Result<()> {
    let method = args.method.0;
    if tune::has_variants(method) {
        return tune_variants(args, method);
    }
    if !tune::is_tunable(method) {
        let tunable: Vec<&str> = Method::ALL
            .iter()
            .filter(|&&m| tune::is_tunable(m) || tune::has_variants(m))
            .map(|m| m.name())
            .collect();
        bail!(
            "method {method} has nothing to tune; these have: {}",
            tunable.join(", ")
        );
    }
    tune_blocks(args, method)
}

/// Time Hall's block sizes and name the fastest.
fn tune_blocks(args: TuneArgs, method: Method) -> Result<()> {
    let accumulate = args.accumulate.0;
    let (m, k, n) = (args.m, args.k, args.n);
    let (a, b) = inputs(&args)?;
    let blocks = if args.blocks.is_empty() {
        tune::candidates(method, k)
    } else {
        args.blocks.clone()
    };
    let ctx = GpuContext::new()?;
    if !args.json {
        println!(
            "tuning {method} ({accumulate}) on {m}x{k} · {k}x{n}, {} timed runs per b after a warm-up",
            args.repeats
        );
        println!("adapter: {}", ctx.describe());
    }
    let t = TunerRun {
        ctx: &ctx,
        method,
        a: &a,
        b: &b,
        accumulate,
        blocks: &blocks,
        repeats: args.repeats,
        quiet: args.json,
    }
    .run()?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&t)?);
        return Ok(());
    }
    println!(
        "\n{:>6} {:>7} {:>12} {:>12} {:>10}",
        "b", "passes", "median ms", "min ms", "GFLOP/s"
    );
    for p in &t.points {
        let mark = if p.b == t.best { "  <- best" } else { "" };
        println!(
            "{:>6} {:>7} {:>12.3} {:>12.3} {:>10.3}{mark}",
            p.b, p.passes, p.compute_ms, p.min_ms, p.gflops
        );
    }
    println!(
        "\nbest b = {} for {method} at {m}x{k}x{n} on this adapter (use --b {} or --b auto)",
        t.best, t.best
    );
    Ok(())
}

/// Time the method's variants (cs-fast, coop) and name the fastest.
fn tune_variants(args: TuneArgs, method: Method) -> Result<()> {
    let (m, k, n) = (args.m, args.k, args.n);
    let (a, b) = inputs(&args)?;
    let variants: Vec<String> = if args.variants.is_empty() {
        tune::variant_names(method)
            .into_iter()
            .map(String::from)
            .collect()
    } else {
        args.variants.clone()
    };
    let ctx = GpuContext::new()?;
    if !args.json {
        println!(
            "tuning {method} on {m}x{k} · {k}x{n}, {} timed runs per variant after a warm-up",
            args.repeats
        );
        println!("adapter: {}", ctx.describe());
    }
    let bar = tuning_bar(
        (variants.len() * (args.repeats + 1)) as u64,
        args.json,
        method,
    );
    let t = tune::tune_variants(
        &ctx,
        method,
        &a,
        &b,
        &variants,
        args.repeats,
        &mut |done, _, v| {
            bar.set_position(done as u64);
            bar.set_message(v.to_string());
        },
    )?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&t)?);
        return Ok(());
    }
    // The variant column as wide as the longest name, so every row lines up.
    let w = t
        .points
        .iter()
        .map(|p| p.variant.len())
        .max()
        .unwrap_or(0)
        .max(16);
    println!(
        "\n{:<w$} {:>12} {:>12} {:>10} {:>6} {:>11}  (clock: {})",
        "variant",
        "median ms",
        "min ms",
        "GFLOP/s",
        "clock",
        "rel_err",
        t.timing.name()
    );
    for p in &t.points {
        let mark = if p.variant == t.best { "  <- best" } else { "" };
        let check = match (p.rel_err, p.passed, &p.error) {
            (_, _, Some(e)) => format!("error: {e}"),
            (Some(e), Some(true), _) => format!("{e:.3e}"),
            (Some(e), _, _) => format!("{e:.3e} FAILED"),
            _ => "-".into(),
        };
        // The GPU's clock before the timed runs, against the clock tuning began with.
        let clock = p
            .clock_ratio
            .map_or("–".to_string(), |r| format!("{:.0}%", r * 100.0));
        println!(
            "{:<w$} {:>12.3} {:>12.3} {:>10.1} {clock:>6} {:>11}{mark}",
            p.variant, p.compute_ms, p.min_ms, p.gflops, check
        );
    }
    if t.points.iter().any(|p| {
        p.clock_ratio
            .is_some_and(|r| r < crate::bench::ceilings::ClockGuard::SLOW)
    }) {
        println!(
            "\nclock below 87%: the GPU's clock governor had lowered the clock and it did not come back within 3 s; those rows are timed slow"
        );
    }
    println!(
        "\nbest: {} for {method} at {m}x{k}x{n} on this adapter (select it with {}={})",
        t.best, t.env, t.best
    );
    Ok(())
}
