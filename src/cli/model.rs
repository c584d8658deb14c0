//! `rendermm model`: Hall–Carr–Hart §5's tables — bytes moved inside the GPU and shader
//! instructions — for the render-pass methods, and the global-memory model of the compute
//! methods, at m×k×n with block size b.

use super::values::{MethodArg, named};
use crate::methods::Method;
use crate::model;
use anyhow::{Result, bail};
use clap::Args;

#[derive(Args)]
pub struct ModelArgs {
    /// One method; all methods with a model if left out.
    #[arg(long, value_parser = named::<MethodArg>("method"))]
    method: Option<MethodArg>,
    #[arg(long, default_value_t = 1024)]
    m: usize,
    #[arg(long, default_value_t = 1024)]
    k: usize,
    #[arg(long, default_value_t = 1024)]
    n: usize,
    /// Block size b (products per fragment per pass).
    #[arg(long, default_value_t = 32)]
    b: u32,
    /// Print JSON (one object with --method, else an array).
    #[arg(long)]
    json: bool,
}

/// Run `rendermm model`.
pub fn run(args: ModelArgs) -> Result<()> {
    if args.b == 0 {
        bail!("block size b = 0: each pass must sum at least one product");
    }
    for (name, v) in [("m", args.m), ("k", args.k), ("n", args.n)] {
        if v == 0 {
            bail!("--{name} 0: every dimension must be at least 1");
        }
    }
    let (rows, compute_rows) = models(&args)?;
    if args.json {
        print_json(&args, &rows, &compute_rows)
    } else {
        print_tables(&args, &rows, &compute_rows);
        Ok(())
    }
}

/// The render-pass models and the compute models of the methods asked for; an error naming
/// the methods that have one if none does.
fn models(args: &ModelArgs) -> Result<(Vec<model::Model>, Vec<model::ComputeModel>)> {
    let methods: Vec<Method> = match args.method {
        Some(one) => vec![one.0],
        None => Method::ALL.to_vec(),
    };
    // Every count is exact (u128) or the size is refused in one line: never a wrapped count.
    let mut rows: Vec<model::Model> = vec![];
    let mut compute_rows: Vec<model::ComputeModel> = vec![];
    // The variants a run would take: those the knobs name, else each method's default.
    let kernels = super::knobs::kernels()?;
    let limits = model::compute::typical_limits();
    let (m, k, n) = (args.m, args.k, args.n);
    for &me in &methods {
        rows.extend(model::try_model_with(me, m, k, n, args.b, &kernels)?);
        // The compute-shader methods' model: global-memory words and flop per byte.
        compute_rows.extend(model::compute::try_model_of(
            me,
            (m, k, n),
            &limits,
            &kernels,
        )?);
    }
    if rows.is_empty() && compute_rows.is_empty() {
        let with: Vec<&str> = Method::ALL
            .iter()
            .filter(|&&me| {
                model::model(me, 1, 1, 1, 1).is_some() || model::compute(me, 1, 1, 1).is_some()
            })
            .map(|me| me.name())
            .collect();
        bail!(
            "method {} has no model; these do: {}",
            methods[0],
            with.join(", ")
        );
    }
    Ok((rows, compute_rows))
}

/// One model of either era, as JSON.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum Row<'a> {
    RenderPass(&'a model::Model),
    Compute(&'a model::ComputeModel),
}

/// One object with --method, else an array. Counts are u128 and are written as JSON integers
/// of as many digits as they need (serde_json's writer prints u128 exactly; its `Value` could
/// not hold one past u64): a reader with arbitrary-precision integers (Python's json) reads
/// them exactly, one that parses numbers as f64 gets the nearest double.
fn print_json(
    args: &ModelArgs,
    rows: &[model::Model],
    compute_rows: &[model::ComputeModel],
) -> Result<()> {
    let all: Vec<Row> = rows
        .iter()
        .map(Row::RenderPass)
        .chain(compute_rows.iter().map(Row::Compute))
        .collect();
    let text = if args.method.is_some() {
        serde_json::to_string_pretty(&all[0])?
    } else {
        serde_json::to_string_pretty(&all)?
    };
    println!("{text}");
    Ok(())
}

/// Hall–Carr–Hart's tables 1 and 2, then the compute methods' table.
fn print_tables(args: &ModelArgs, rows: &[model::Model], compute_rows: &[model::ComputeModel]) {
    if rows.is_empty() {
        print!("{}", crate::model::compute::table(compute_rows));
        return;
    }
    let (m, k, n, b) = (args.m, args.k, args.n, args.b);
    println!("Hall–Carr–Hart 2003 §5 for A {m}x{k} · B {k}x{n}, b = {b}\n");
    println!("table 1: bytes moved inside the GPU");
    println!(
        "{:<13} {:>7} {:>12} {:>11} {:>16} {:>10}  paper (n×n)",
        "method", "passes", "frags/pass", "bytes/frag", "total bytes", "GiB"
    );
    for r in rows {
        println!(
            "{:<13} {:>7} {:>12} {:>11} {:>16} {:>10.3}  {}",
            r.method,
            r.passes,
            r.fragments_per_pass,
            r.bytes_per_fragment,
            r.total_bytes,
            r.total_gib,
            r.paper_bytes_formula
        );
    }
    println!("\ntable 2: fragment-shader instructions");
    println!(
        "{:<13} {:>7} {:>12} {:>11} {:>16}  paper (n×n)",
        "method", "passes", "frags/pass", "inst/frag", "total inst"
    );
    for r in rows {
        println!(
            "{:<13} {:>7} {:>12} {:>11} {:>16}  {}",
            r.method,
            r.passes,
            r.fragments_per_pass,
            r.instructions_per_fragment,
            r.total_instructions,
            r.paper_instructions_formula
        );
    }
    println!("\nA short last block (b not dividing the inner dimension) is counted as it runs.");
    if !compute_rows.is_empty() {
        println!();
        print!("{}", crate::model::compute::table(compute_rows));
    }
}
