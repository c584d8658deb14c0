//! `rendermm multiply`: one product by one method, in named phases — validate the request
//! (output path included, before any work), load the inputs, open the GPU, tune Hall's block
//! size if asked, run, check against the f64 CPU reference, write C, print the report.

use super::operands::{self, BlockArg, Operands, Source};
use super::print::print_report;
use super::tune::TunerRun;
use super::values::{AccumulateArg, HoldParser, MethodArg, OutDtype, PrecisionArg, named};
use super::{check_failed, guard, knobs};
use crate::bench::tune;
use crate::check::{self, Hold};
use crate::gpu::GpuContext;
use crate::io::{self, Dtype};
use crate::matrix::Matrix;
use crate::methods::{Accumulate, Method};
use crate::plan::{self, Options};
use crate::precision::{self, Precision};
use crate::report::Report;
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct MultiplyArgs {
    /// The method (`rendermm methods` describes each).
    #[arg(long, value_parser = named::<MethodArg>("method"), default_value_t = MethodArg(Method::Lm))]
    method: MethodArg,
    /// Left matrix file (.npy, .mtx, .csv).
    #[arg(long, requires = "b", conflicts_with = "random")]
    a: Option<PathBuf>,
    /// Right matrix file (.npy, .mtx, .csv); or, given a whole number or `auto`, the
    /// Hall–Carr–Hart block size (as --block). May be given twice: `--b B.npy --b 7`.
    #[arg(long, value_name = "FILE|N|auto")]
    b: Vec<String>,
    /// Hall–Carr–Hart block size b: products per fragment per pass (default 32), or `auto` to
    /// time a set of b values first and use the fastest.
    #[arg(long, value_name = "N|auto")]
    block: Option<String>,
    /// Hall–Carr–Hart: how the running sum goes from pass to pass.
    #[arg(long, value_parser = named::<AccumulateArg>("accumulation mode"),
          default_value_t = AccumulateArg(Accumulate::PingPong))]
    accumulate: AccumulateArg,
    /// Random inputs of shape MxKxN, uniform in [-1, 1); in u8, in [0, min(1, √(2/k))), so that
    /// a sum of k products is 0.5 on average and most sums stay below the 8-bit ceiling
    /// (inputs in [0, 1) would saturate every element from k ≈ 6 on).
    #[arg(long)]
    random: Option<String>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write C here (.npy, .mtx, .csv), through a temporary file; a device or pipe is written in
    /// place (as CSV if its name has no extension). The path is checked before any work (its
    /// folder takes new files, this user may write it, a read-only file is never replaced, and
    /// it is not one of the inputs).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The number type of a .npy --out. C is always computed in float32; `inputs` stores
    /// float64 when an input file is float64 (as numpy would), else float32.
    #[arg(long, value_enum, default_value_t = OutDtype::Inputs)]
    out_dtype: OutDtype,
    /// Compare with the f64 CPU reference; exit non-zero (status 1) if the check fails, writing
    /// nothing. `--check` (= `--check exact`) holds C to the exact product and to what the
    /// method's pipeline computes; `--check model` to the pipeline alone, however far that is
    /// from the exact product (u8 saturation and rounding, f16 sums that stop growing), and says
    /// how far.
    #[arg(long, value_name = "exact|model", num_args = 0..=1,
          default_missing_value = "exact", value_parser = HoldParser)]
    check: Option<Hold>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Accept NaN and infinity in the inputs.
    #[arg(long)]
    allow_nonfinite: bool,
    /// Number format of textures and framebuffer (u8 and f16: the render-pass methods).
    #[arg(long, value_parser = named::<PrecisionArg>("precision"),
          default_value_t = PrecisionArg(Precision::F32))]
    precision: PrecisionArg,
    /// u8: map each input to [0, 1] by (x - min)/(max - min) instead of refusing values outside.
    #[arg(long)]
    normalize: bool,
    /// u8: polygon colour 1/k so the sum cannot saturate (L-M §4); the result is rescaled by k.
    #[arg(long)]
    scale_by_depth: bool,
    /// u8: bits the value a fragment hands on (the product of two 8-bit texels; Hall: its
    /// block's sum) is kept at — 8 (default, rendermm's u8), 14 (L-M §4's GeForce2) or 16
    /// (GeForce3).
    #[arg(long, value_name = "8|14|16")]
    u8_product_bits: Option<u32>,
    /// u8: bits of the running sum — 8 (default: an 8-bit framebuffer) or 16 (L-M §4: a 16-bit
    /// saturating sum in an R16Unorm target, reduced to 8 bits by a last pass).
    #[arg(long, value_name = "8|16")]
    u8_sum_bits: Option<u32>,
    /// Products at once: 4 multiplies four (A, B) pairs through RGBA textures (L-M only); inputs
    /// as --random 4xMxKxN or .npy files with a leading dimension of 4.
    #[arg(long, default_value_t = 1)]
    channels: usize,
    /// Device memory the multiply may use, e.g. 512MiB or 2GiB (default: RENDERMM_MEM_BUDGET, else
    /// a share of what the adapter allows); a larger product is tiled block by block.
    #[arg(long, value_name = "SIZE")]
    mem_budget: Option<String>,
    /// Refuse a product past the adapter's limits or the memory budget instead of tiling it.
    #[arg(long)]
    no_tile: bool,
}

/// What was asked, validated: everything that can be refused without reading a file or
/// touching the GPU has been.
struct Asked {
    method: Method,
    block: Option<BlockArg>,
    /// The library's options, validated ([`plan::options::validate`]) over the knobs:
    /// `--mem-budget` or `RENDERMM_MEM_BUDGET`, the host's available memory, the kernel variants
    /// `RENDERMM_CS_FAST`, `RENDERMM_COOP`, `RENDERMM_FRAG_MRT` name ([`knobs`]).
    options: Options,
    /// The right-hand matrix file, when --b names one.
    b_file: Option<PathBuf>,
}

/// Run `rendermm multiply`.
pub fn run(args: MultiplyArgs) -> Result<()> {
    let asked = validate(&args)?;
    let (operands, mut notes) = load(&args, &asked)?;
    let ctx = open_gpu(asked.method, args.json)?;
    let block = choose_block(&args, &asked, ctx.as_ref(), &operands, &mut notes)?;
    let outcome = compute(ctx.as_ref(), &args, &asked, &operands, block)?;
    let checks = check(&args, &operands, &outcome, &mut notes);
    notes.extend(outcome.notes.iter().cloned());
    let mut report = Report::of(ctx.as_ref(), &outcome, checks);
    report.notes = notes;
    refuse_failed_check(&args, &report)?;
    let written = write_output(&args, &operands, &outcome, &mut report)?;
    show(&args, &report, written.as_ref())
}

/// Refuse what can be refused before any work: options the method does not take (the one set
/// of rules, [`plan::options::validate`]), the memory budget's syntax, and the output path.
fn validate(args: &MultiplyArgs) -> Result<Asked> {
    let method = args.method.0;
    let precision = args.precision.0;
    let accumulate = args.accumulate.0;
    let mem_budget = args
        .mem_budget
        .as_deref()
        .map(crate::plan::tiled::parse_bytes)
        .transpose()?;
    let knobs = knobs::options_for(mem_budget, &[method])?;
    let (b_file, block) = operands::b_operands(&args.b, args.block.as_deref())?;
    let asked = plan::Asked {
        method: Some(method),
        precision,
        block: match block {
            Some(BlockArg::Fixed(b)) => Some(b),
            _ => None,
        },
        block_auto: matches!(block, Some(BlockArg::Auto)),
        accumulate: (accumulate != Accumulate::default()).then_some(accumulate),
        scale_by_depth: args.scale_by_depth,
        u8_product_bits: args.u8_product_bits,
        u8_sum_bits: args.u8_sum_bits,
        variant: None,
        channels: args.channels,
        mem_budget: None,
    };
    let options = plan::options::validate(&asked, plan::Spelling::Cli, knobs)?;
    if args.normalize && precision != Precision::U8 {
        bail!(
            "--normalize maps inputs to [0, 1] for --precision u8; it does nothing for {precision}"
        );
    }
    if let Some(out) = &args.out {
        validate_output(out, args.channels > 1, args.out_dtype)?;
        let inputs: Vec<(&str, &Path)> = [("--a", args.a.as_deref()), ("--b", b_file.as_deref())]
            .into_iter()
            .filter_map(|(label, p)| p.map(|p| (label, p)))
            .collect();
        io::refuse_same_file(out, "--out", &inputs)?;
        if args.json && io::same_file(out, Path::new("/dev/stdout")) {
            bail!(
                "--json and --out {} both write to standard output, where the report and C would mix; write C to a file, or drop --json",
                out.display()
            );
        }
    }
    Ok(Asked {
        method,
        block,
        options,
        b_file,
    })
}

/// The output path can take C: a format we write, a folder that takes files, no read-only
/// file in the way, and a float64 request only where the file has a number type.
fn validate_output(out: &Path, batch: bool, dtype: OutDtype) -> Result<()> {
    io::check_matrix_output(out, batch)?;
    let npy = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    if dtype == OutDtype::F64 && !npy {
        bail!(
            "--out-dtype f64: {} is a text file, whose numbers have no type; write a .npy file for float64",
            out.display()
        );
    }
    Ok(())
}

/// Read or draw the inputs; `--normalize` maps them to [0, 1] (its notes say how).
fn load(args: &MultiplyArgs, req: &Asked) -> Result<(Operands, Vec<String>)> {
    let range = match (&args.random, req.options.precision) {
        (Some(shape), Precision::U8) => {
            let k = operands::parse_random_shape(shape)?.1.1;
            (0.0, (2.0 / k.max(1) as f32).sqrt().min(1.0))
        }
        _ => (-1.0, 1.0),
    };
    let source = match (&args.a, &req.b_file, &args.random) {
        (Some(a), Some(b), None) => Source::Files {
            a,
            b,
            allow_nonfinite: args.allow_nonfinite,
        },
        (None, None, Some(shape)) => Source::Random {
            shape,
            seed: args.seed,
            range,
        },
        _ => bail!("give the inputs as --a FILE --b FILE or as --random MxKxN"),
    };
    let mut ops = operands::load(source, args.channels)?;
    if let Some(random) = &args.random
        && args.check.is_some()
    {
        // The check's f64 reference: one more C in f64 (two in f32 words) per pair.
        let (_, (m, k, n)) = operands::parse_random_shape(random)?;
        guard::product_memory(
            &format!("--random {random} --check"),
            (m, k, n),
            2 * args.channels,
        )?;
    }
    let mut notes = vec![];
    if args.normalize {
        for (list, name) in [(&mut ops.a, "A"), (&mut ops.b, "B")] {
            for (c, m) in list.iter_mut().enumerate() {
                let label = if args.channels == 1 {
                    name.to_string()
                } else {
                    format!("{name}[{c}]")
                };
                let (mapped, how) = precision::normalize(m, &label);
                *m = mapped;
                notes.push(how);
            }
        }
    }
    Ok((ops, notes))
}

/// The GPU context of a GPU method (the adapter named on stderr unless the output is JSON).
fn open_gpu(method: Method, json: bool) -> Result<Option<GpuContext>> {
    // The CPU methods need none; the GL-era methods make their own OpenGL context.
    if !method.uses_wgpu() {
        return Ok(None);
    }
    let ctx = GpuContext::new()?;
    if !json {
        eprintln!("adapter: {}", ctx.describe());
    }
    Ok(Some(ctx))
}

/// Hall's block size: as given, or (`auto`) the fastest of a set timed on these inputs.
fn choose_block(
    args: &MultiplyArgs,
    req: &Asked,
    ctx: Option<&GpuContext>,
    ops: &Operands,
    notes: &mut Vec<String>,
) -> Result<Option<u32>> {
    match req.block {
        Some(BlockArg::Fixed(b)) => Ok(Some(b)),
        None => Ok(None),
        Some(BlockArg::Auto) => {
            let ctx = ctx.context("the Hall–Carr–Hart methods run on the GPU")?;
            let blocks = tune::candidates(req.method, ops.a[0].cols);
            let t = TunerRun {
                ctx,
                method: req.method,
                a: &ops.a[0],
                b: &ops.b[0],
                accumulate: req.options.accumulate,
                blocks: &blocks,
                repeats: 2,
                quiet: args.json,
            }
            .run()?;
            let best = t
                .points
                .iter()
                .find(|p| p.b == t.best)
                .map_or(0.0, |p| p.compute_ms);
            notes.push(format!(
                "--b auto: timed b in {blocks:?} ({} runs each after a warm-up); b = {} was fastest at {best:.3} ms",
                t.repeats, t.best
            ));
            Ok(Some(t.best))
        }
    }
}

/// The library's options for this request.
fn options(args: &MultiplyArgs, asked: &Asked, block: Option<u32>) -> Options {
    Options {
        allow_nonfinite: args.allow_nonfinite,
        block,
        no_tile: args.no_tile,
        ..asked.options.clone()
    }
}

/// Run the product through the entry point: one pair, or four at once in RGBA
/// (`--channels 4`); a tiled product shows its blocks on a progress bar unless the output is
/// JSON.
fn compute(
    ctx: Option<&GpuContext>,
    args: &MultiplyArgs,
    asked: &Asked,
    ops: &Operands,
    block: Option<u32>,
) -> Result<plan::Outcome> {
    let bar = super::progress::tiling_bar(args.json, asked.method);
    let mut tell = |done: usize, all: usize| {
        bar.set_length(all as u64);
        bar.set_position(done as u64);
    };
    let mut req = plan::Request::new(asked.method, &ops.a[0], &ops.b[0])
        .options(options(args, asked, block))
        .with_progress(&mut tell);
    req.more_channels = ops.a.iter().zip(&ops.b).skip(1).collect();
    let out = plan::multiply(ctx, req);
    bar.finish_and_clear();
    Ok(out?)
}

/// `--check`: each C against the f64 CPU reference, held by the judge to what the method's
/// arithmetic promises and, with `--check` (`exact`), to the exact product too; `--check model`
/// holds it to the pipeline alone ([`check::check`], in full). Where a float64 input held values
/// f32 cannot, the reference is the product of the inputs as given.
fn check(
    args: &MultiplyArgs,
    ops: &Operands,
    outcome: &plan::Outcome,
    notes: &mut Vec<String>,
) -> Vec<crate::check::Verdict> {
    let Some(hold) = args.check else {
        return vec![];
    };
    let inputs: Vec<check::Inputs> = ops
        .a
        .iter()
        .zip(&ops.b)
        .enumerate()
        .map(|(i, (x, y))| {
            check::Inputs::new(x, y).given(ops.a_given[i].as_deref(), ops.b_given[i].as_deref())
        })
        .collect();
    let checked = outcome.check(check::CheckPolicy::full(hold), &inputs);
    notes.extend(checked.notes);
    checked.verdicts
}

/// A result that failed its check is reported as such and never written out as if it were
/// right.
fn refuse_failed_check(args: &MultiplyArgs, report: &Report) -> Result<()> {
    if report.check_passed != Some(false) {
        return Ok(());
    }
    print(args, report)?;
    check_failed!(
        "check failed: {}; rel_err {:e}, held to: {}{}",
        report
            .worst()
            .map_or_else(|| "?".to_string(), |v| v.headline()),
        report.rel_err.unwrap_or(f64::NAN),
        report.tolerance.as_deref().unwrap_or("?"),
        if args.out.is_some() {
            "; no output written"
        } else {
            ""
        }
    );
}

/// Where C went and in which number type.
struct Written {
    path: PathBuf,
    dtype: Dtype,
}

/// The number type of the .npy output: as asked, or float64 after a float64 input.
fn out_dtype(choice: OutDtype, float64_input: bool) -> Dtype {
    match choice {
        OutDtype::F32 => Dtype::F32,
        OutDtype::F64 => Dtype::F64,
        OutDtype::Inputs if float64_input => Dtype::F64,
        OutDtype::Inputs => Dtype::F32,
    }
}

/// Write C to `--out` (if given), and say in the report's notes what number type C is in.
fn write_output(
    args: &MultiplyArgs,
    ops: &Operands,
    outcome: &plan::Outcome,
    report: &mut Report,
) -> Result<Option<Written>> {
    let Some(path) = &args.out else {
        if ops.float64_input {
            report.notes.push(
                "the float64 inputs were rounded to float32; C is computed and held in float32"
                    .into(),
            );
        }
        return Ok(None);
    };
    let npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let dtype = out_dtype(args.out_dtype, ops.float64_input);
    if outcome.more_channels.is_empty() {
        io::write_matrix_as(path, &outcome.c, dtype)
    } else {
        let cs: Vec<Matrix> = std::iter::once(&outcome.c)
            .chain(&outcome.more_channels)
            .cloned()
            .collect();
        io::write_batch_as(path, &cs, dtype)
    }
    .with_context(|| format!("writing the result to {}", path.display()))?;
    let note = match (npy, dtype, ops.float64_input) {
        (true, Dtype::F64, rounded) => Some(format!(
            "{}C is computed in float32 and stored as float64 in {}",
            if rounded {
                "the float64 inputs were rounded to float32; "
            } else {
                ""
            },
            path.display()
        )),
        (true, Dtype::F32, true) => Some(format!(
            "the float64 inputs were rounded to float32; C is computed and stored in float32 in {}",
            path.display()
        )),
        (false, _, true) => Some(format!(
            "the float64 inputs were rounded to float32; C is computed in float32 and {} holds its values as text",
            path.display()
        )),
        _ => None,
    };
    report.notes.extend(note);
    Ok(Some(Written {
        path: path.clone(),
        dtype: if npy { dtype } else { Dtype::F32 },
    }))
}

/// The report: JSON or text.
fn print(args: &MultiplyArgs, report: &Report) -> Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        print_report(report);
    }
    Ok(())
}

/// The report, then one line saying where C went (on stderr beside JSON).
fn show(args: &MultiplyArgs, report: &Report, written: Option<&Written>) -> Result<()> {
    print(args, report)?;
    if let Some(w) = written {
        let shape = format!("{}x{}", report.m, report.n);
        let batch = if args.channels > 1 {
            format!("{} × ", args.channels)
        } else {
            String::new()
        };
        let line = format!(
            "C ({batch}{shape}, {}) to {}",
            w.dtype.name(),
            w.path.display()
        );
        if args.json {
            eprintln!("wrote {line}");
        } else {
            println!("wrote     {line}");
        }
    }
    Ok(())
}
