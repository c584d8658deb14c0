//! `rendermm check`: the judge of `multiply --check` on a product made anywhere — C read from a
//! file beside the A and B it claims to be the product of, held to the arithmetic of the method
//! named (f32 without one) — with `multiply --check`'s report and exit status.

use super::check_failed;
use super::print::{print_check, print_saturated};
use super::values::{HoldParser, MethodArg, PrecisionArg, named};
use crate::check::Hold;
use crate::io;
use crate::methods::Method;
use crate::plan::{self, Options};
use crate::precision::Precision;
use crate::report::{CheckReport, Operands};
use anyhow::Result;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct CheckArgs {
    /// Left matrix file (.npy, .mtx, .csv), m×k.
    #[arg(long)]
    a: PathBuf,
    /// Right matrix file (.npy, .mtx, .csv), k×n.
    #[arg(long)]
    b: PathBuf,
    /// The product to judge (.npy, .mtx, .csv), m×n: made by `rendermm multiply --out`, numpy,
    /// or anything else. A float64 file is rounded to float32, the type rendermm computes in.
    #[arg(long)]
    c: PathBuf,
    /// The method whose arithmetic made C, which the judge holds it to (f32 for every method
    /// but the render pipelines' u8 and f16 modes, coop and frag-mrt-f16); without it, f32.
    #[arg(long, value_parser = named::<MethodArg>("method"))]
    method: Option<MethodArg>,
    /// The number format of the method's textures and framebuffer (u8 and f16: lm,
    /// hall-blocked, hall-packed).
    #[arg(long, value_parser = named::<PrecisionArg>("precision"),
          default_value_t = PrecisionArg(Precision::F32))]
    precision: PrecisionArg,
    /// Hall–Carr–Hart block size b the product was made with (default 32): the passes of the
    /// u8 and f16 pipelines' models.
    #[arg(long, value_name = "N")]
    block: Option<u32>,
    /// u8: C was made with polygon colour 1/k and rescaled by k (L-M §4).
    #[arg(long)]
    scale_by_depth: bool,
    /// u8: bits the value a fragment hands on was kept at (8, 14 or 16), as `multiply` takes it.
    #[arg(long, value_name = "8|14|16")]
    u8_product_bits: Option<u32>,
    /// u8: bits of the running sum (8 or 16), as `multiply` takes it.
    #[arg(long, value_name = "8|16")]
    u8_sum_bits: Option<u32>,
    /// What to hold C to: `exact` (the default: close to the exact product, and what the
    /// method's pipeline computes) or `model` (the pipeline alone, however far that is from the
    /// exact product), as `multiply --check` takes it.
    #[arg(long, visible_alias = "check", value_name = "exact|model", value_parser = HoldParser,
          num_args = 0..=1, default_value = "exact", default_missing_value = "exact")]
    hold: Hold,
    /// Accept a float64 A or B with values past f32's range, holding C to the product of the
    /// inputs as given.
    #[arg(long)]
    allow_nonfinite: bool,
    /// Print one JSON object: the verdict's fields, with the shape, the worst element and notes.
    #[arg(long)]
    json: bool,
}

/// Run `rendermm check`.
pub fn run(args: CheckArgs) -> Result<()> {
    let (method, arith) = arithmetic(&args)?;
    let read = |p: &Path, what: &str, allow_past_f32: bool| -> Result<io::AsGiven> {
        let r = io::read_as_given(p, false)?;
        match r.past_f32 {
            Some(crate::Error::Format { path, message }) if !allow_past_f32 => {
                Err(crate::Error::Format {
                    path,
                    message: format!(
                        "{message} (pass --allow-nonfinite to take it as an infinity in {what})"
                    ),
                }
                .into())
            }
            Some(e) if !allow_past_f32 => Err(e.into()),
            _ => Ok(r),
        }
    };
    let a = read(&args.a, "A", args.allow_nonfinite)?;
    let b = read(&args.b, "B", args.allow_nonfinite)?;
    // A C past f32's range is an infinity where rendermm's C would be, and is judged as one.
    let c = read(&args.c, "C", true)?;
    let given = |r: &io::AsGiven| r.values.as_ref().and_then(|v| v.first()).cloned();
    let (a_given, b_given) = (given(&a), given(&b));
    let mut report = CheckReport::judge(
        method,
        args.precision.0,
        arith,
        Operands {
            a: &a.matrices[0],
            b: &b.matrices[0],
            c: &c.matrices[0],
            a_given: a_given.as_deref(),
            b_given: b_given.as_deref(),
        },
        args.hold,
    )?;
    if a.dtype == Some(io::Dtype::F64) || b.dtype == Some(io::Dtype::F64) {
        report.notes.push(
            "the float64 inputs were rounded to float32, as multiply computes with them".into(),
        );
    }
    if c.dtype == Some(io::Dtype::F64) {
        report
            .notes
            .push("the float64 C was rounded to float32, the type rendermm computes in".into());
    }
    show(&args, &report)?;
    if !report.verdict.passed {
        check_failed!(
            "check failed: {}; rel_err {:e}, held to: {}",
            report.verdict.headline(),
            report.verdict.stats.rel_err,
            report.verdict.tolerance
        );
    }
    Ok(())
}

/// The arithmetic C is held to: the method's at `--precision` (as a run of it records it), f32
/// without a method; options the arithmetic does not take are refused
/// ([`plan::options::validate`]).
fn arithmetic(args: &CheckArgs) -> Result<(Option<Method>, crate::check::Arith)> {
    let asked = plan::Asked {
        method: args.method.map(|m| m.0),
        precision: args.precision.0,
        block: args.block,
        scale_by_depth: args.scale_by_depth,
        u8_product_bits: args.u8_product_bits,
        u8_sum_bits: args.u8_sum_bits,
        ..plan::Asked::default()
    };
    let opts = plan::options::validate(&asked, plan::Spelling::Cli, Options::default())?;
    Ok(match asked.method {
        None => (None, crate::check::Arith::F32),
        Some(method) => (Some(method), plan::arith(method, opts.precision, &opts)),
    })
}

/// The verdict: JSON, or the check block of `multiply` under the shape and what C was held to.
fn show(args: &CheckArgs, r: &CheckReport) -> Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(r)?);
        return Ok(());
    }
    let what = match &r.method {
        Some(m) => format!("{m}  ({})", r.precision),
        None => "none named: f32 arithmetic".to_string(),
    };
    println!("method    {what}");
    println!(
        "shape     {}x{} · {}x{}  (C = {} · {}, judged: {})",
        r.m,
        r.k,
        r.k,
        r.n,
        args.a.display(),
        args.b.display(),
        args.c.display()
    );
    let v = &r.verdict;
    print_check(v.passed, v);
    if let Some(w) = &r.worst {
        println!(
            "worst     row {}, column {} (0-based): C has {}, the exact product {}",
            w.row,
            w.column,
            number(w.c, f64::from(w.c)),
            number(w.exact, w.exact)
        );
    }
    if let (Some(sat), Some(share)) = (v.saturated, v.saturated_share) {
        print_saturated(sat, share);
    }
    for n in &r.notes {
        println!("note      {n}");
    }
    Ok(())
}

/// A value as a reader wants it (`x`, of size `size`): plain in [1e-4, 1e7) (and 0), else in
/// exponent form.
fn number<T: std::fmt::Display + std::fmt::LowerExp>(x: T, size: f64) -> String {
    if size == 0.0 || (1e-4..1e7).contains(&size.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}
