//! The `rendermm` command line: `info`, `multiply`, `tour`.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use rendermm::bench::tune;
use rendermm::gpu::GpuContext;
use rendermm::io;
use rendermm::matrix::{Matrix, parse_mkn};
use rendermm::methods::{Accumulate, Method, larsen_mcallister};
use rendermm::model;
use rendermm::plan::{self, Options};
use rendermm::precision::{self, Precision};
use rendermm::report::Report;
use rendermm::report::figures;
use rendermm::report::picture;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "rendermm",
    version,
    about = "Matrix multiplication through render pipelines, 2001 to today"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show the chosen adapter, its backend, and the features and limits that matter here.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Multiply two matrices with one method.
    Multiply(MultiplyArgs),
    /// The precision ladder: L-M, hall-blocked and hall-packed in u8, u8 with scale-by-depth, f16
    /// and f32 on the same problems.
    PrecisionLadder {
        /// Problem sizes n (n×n·n×n), comma separated.
        #[arg(long, default_value = "16,64,256", value_delimiter = ',')]
        sizes: Vec<usize>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON instead of a Markdown table.
        #[arg(long)]
        json: bool,
    },
    /// Draw one figure of the docs into a PNG (e.g. `lm-fig2`).
    Figure {
        /// Figure name; `rendermm figures --list` names them all.
        name: String,
        /// Output PNG.
        #[arg(long)]
        out: PathBuf,
    },
    /// Regenerate every figure of the docs into a folder.
    Figures {
        /// Output folder (the docs use docs/img).
        #[arg(long, default_value = "docs/img")]
        out: PathBuf,
        /// Only list the figures.
        #[arg(long)]
        list: bool,
    },
    /// The guided tour: every method on one problem, checked against the CPU, with pictures.
    Tour {
        /// Problem size MxKxN.
        #[arg(long, default_value = "96x80x64")]
        size: String,
        /// Seed of the random inputs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the pictures go.
        #[arg(long, default_value = "rendermm-out")]
        out: PathBuf,
    },
    /// Hall–Carr–Hart §5's model: table 1 (bytes moved inside the GPU) and table 2 (shader
    /// instructions) for L-M, hall-blocked and hall-packed at m×k×n with block size b.
    Model(ModelArgs),
    /// Time a tunable method on this adapter and report the best setting: Hall's block size b
    /// (hall-blocked, hall-packed) or a variant (cs-fast, coop).
    Tune(TuneArgs),
    /// Draw a multiply pass by pass: lm, hall, packed or cube, in a window or --headless into
    /// PNG frames or a GIF.
    Demo(rendermm::demo::DemoArgs),
    /// L-M §5's sample application: reachability within p steps or the transitive closure and
    /// connected components of a graph, by powers of I + A kept on the GPU; `--bench` runs the
    /// paper's experiment (figures 4-5).
    Reach(ReachArgs),
    /// Every method x sizes x precisions beside the adapter's own ceilings (table, --json,
    /// --csv, --plots); `--ceilings` alone; or a seed's tables (`--suite oneil|5kk73`).
    Bench(BenchArgs),
}

#[derive(Args)]
struct ModelArgs {
    /// One method (lm, hall-blocked, hall-packed); all methods with a model if left out.
    #[arg(long)]
    method: Option<String>,
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

#[derive(Args)]
struct BenchArgs {
    /// A suite printed beside a seed's own tables: oneil (Cannon and DNS at 8x8 and 16x16) or
    /// 5kk73 (the optimization ladder). Without it: every method x sizes x precisions, beside
    /// the adapter's ceilings.
    #[arg(long)]
    suite: Option<String>,
    /// Only measure the adapter's ceilings (fragment and compute FMA, R32F blend, texture
    /// fetch, copies).
    #[arg(long)]
    ceilings: bool,
    /// Small sizes and the small ceiling workloads: a whole sweep in under two minutes on lavapipe.
    #[arg(long)]
    quick: bool,
    /// Methods to sweep, comma separated (default: all).
    #[arg(long, value_delimiter = ',')]
    methods: Vec<String>,
    /// Sizes n of the n×n·n×n sweep, comma separated (default: a ladder that fits the adapter).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Precisions for the render-pass methods, comma separated (default f32).
    #[arg(long, value_delimiter = ',', default_value = "f32")]
    precisions: Vec<String>,
    /// Timed runs per row (suites: trials per row).
    #[arg(long, alias = "trials", default_value_t = 5)]
    repeats: usize,
    /// Untimed runs per row before the timed ones.
    #[arg(long, default_value_t = 1)]
    warmup: usize,
    /// Sweep: a method whose one run takes longer than this many seconds is not run at larger
    /// sizes, and its repeats are cut to about this long.
    #[arg(long, default_value_t = 5.0)]
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
}

#[derive(Args)]
struct TuneArgs {
    /// hall-blocked or hall-packed (block size b); cs-fast or coop (their variants).
    #[arg(long, default_value = "hall-blocked")]
    method: String,
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
    /// pingpong, blend or copy.
    #[arg(long, default_value = "pingpong")]
    accumulate: String,
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

#[derive(Args)]
struct MultiplyArgs {
    /// Method name (see `rendermm tour` for the list).
    #[arg(long, default_value = "lm")]
    method: String,
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
    /// Hall–Carr–Hart: how the running sum goes from pass to pass: pingpong (two textures take
    /// turns), blend (additive blending into the framebuffer) or copy (render, then copy the
    /// framebuffer into F, as in 2003).
    #[arg(long, default_value = "pingpong")]
    accumulate: String,
    /// Random inputs of shape MxKxN, uniform in [-1, 1).
    #[arg(long)]
    random: Option<String>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Write C here (.npy, .mtx, .csv), through a temporary file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Compare with the f64 CPU reference; exit non-zero if outside the method's tolerance.
    #[arg(long)]
    check: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Accept NaN and infinity in the inputs.
    #[arg(long)]
    allow_nonfinite: bool,
    /// Number format of textures and framebuffer: u8 (the 8-bit saturating pipeline of 2001),
    /// f16 or f32 (render-pass methods).
    #[arg(long, default_value = "f32")]
    precision: String,
    /// u8: map each input to [0, 1] by (x - min)/(max - min) instead of refusing values outside.
    #[arg(long)]
    normalize: bool,
    /// u8: polygon colour 1/k so the sum cannot saturate (L-M §4); the result is rescaled by k.
    #[arg(long)]
    scale_by_depth: bool,
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

fn main() {
    if let Err(e) = run(Cli::parse()) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Info { json } => info(json),
        Command::Multiply(args) => multiply(args),
        Command::Tour { size, seed, out } => tour(&size, seed, &out),
        Command::Model(args) => model_cmd(args),
        Command::Tune(args) => tune_cmd(args),
        Command::Demo(args) => Ok(rendermm::demo::run(args)?),
        Command::Reach(args) => reach_cmd(args),
        Command::Bench(args) => bench_cmd(args),
        Command::PrecisionLadder { sizes, seed, json } => {
            if sizes.contains(&0) {
                bail!("--sizes: every size must be at least 1");
            }
            let ctx = GpuContext::new()?;
            let rows = rendermm::bench::ladder::run(&ctx, &sizes, seed)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                println!("adapter: {}\n", ctx.describe());
                print!("{}", rendermm::bench::ladder::markdown(&rows));
            }
            Ok(())
        }
        Command::Figure { name, out } => {
            let fig = figures::find(&name)?;
            let ctx = GpuContext::new()?;
            // The figure's own kind of file (`hall-table1` writes Markdown whatever --out ends in).
            let out = out.with_extension(fig.files[0]);
            (fig.draw)(&ctx, &out)?;
            for p in fig.paths(&out) {
                println!("wrote {} ({})", p.display(), fig.about);
            }
            Ok(())
        }
        Command::Figures { out, list } => {
            if list {
                for f in figures::ALL {
                    println!("{:<16} {}", f.name, f.about);
                }
                return Ok(());
            }
            let ctx = GpuContext::new()?;
            println!("adapter: {}", ctx.describe());
            let t = std::time::Instant::now();
            let written = figures::write_all(&ctx, &out, |line| println!("{line}"))?;
            println!(
                "{} files in {:.1} s",
                written.len(),
                t.elapsed().as_secs_f64()
            );
            Ok(())
        }
    }
}

fn info(json: bool) -> Result<()> {
    let ctx = GpuContext::new()?;
    let l = &ctx.limits;
    let feats = [
        ("FLOAT32_BLENDABLE", wgpu::Features::FLOAT32_BLENDABLE),
        ("TIMESTAMP_QUERY", wgpu::Features::TIMESTAMP_QUERY),
        ("SHADER_F16", wgpu::Features::SHADER_F16),
        ("SUBGROUP", wgpu::Features::SUBGROUP),
    ];
    let limits = [
        (
            "max_texture_dimension_2d",
            l.max_texture_dimension_2d as u64,
        ),
        ("max_color_attachments", l.max_color_attachments as u64),
        (
            "max_color_attachment_bytes_per_sample",
            l.max_color_attachment_bytes_per_sample as u64,
        ),
        (
            "max_storage_buffer_binding_size",
            l.max_storage_buffer_binding_size,
        ),
        ("max_buffer_size", l.max_buffer_size),
        (
            "max_compute_workgroup_size_x",
            l.max_compute_workgroup_size_x as u64,
        ),
        (
            "max_compute_invocations_per_workgroup",
            l.max_compute_invocations_per_workgroup as u64,
        ),
        (
            "max_compute_workgroup_storage_size",
            l.max_compute_workgroup_storage_size as u64,
        ),
    ];
    if json {
        let mut f = serde_json::Map::new();
        for (name, flag) in feats {
            f.insert(name.into(), ctx.has(flag).into());
        }
        let mut lim = serde_json::Map::new();
        for (name, v) in limits {
            lim.insert(name.into(), v.into());
        }
        let obj = serde_json::json!({ "adapter": ctx.summary(), "features": f, "limits": lim });
        println!("{}", serde_json::to_string_pretty(&obj)?);
        return Ok(());
    }
    let s = ctx.summary();
    println!("adapter   {}", s.name);
    println!("backend   {}", s.backend);
    println!("driver    {} {}", s.driver, s.driver_info);
    println!("type      {}", s.device_type);
    println!("features");
    for (name, flag) in feats {
        println!("  {name:<40} {}", if ctx.has(flag) { "yes" } else { "no" });
    }
    println!("limits");
    for (name, v) in limits {
        println!("  {name:<40} {v}");
    }
    Ok(())
}

/// The (A, B) pairs to multiply: one pair, or `--channels` pairs for a multi-channel run.
fn load_inputs(args: &MultiplyArgs) -> Result<(Vec<Matrix>, Vec<Matrix>)> {
    let ch = args.channels;
    let (lo, hi) = if args.precision == "u8" {
        (0.0, 1.0)
    } else {
        (-1.0, 1.0)
    };
    let (b_file, _) = b_operands(args)?;
    match (&args.a, &b_file, &args.random) {
        (Some(a), Some(b), None) => {
            let (xa, xb) = if ch == 1 {
                (vec![io::read_matrix(a)?], vec![io::read_matrix(b)?])
            } else {
                (io::read_batch(a)?, io::read_batch(b)?)
            };
            for (name, list, path) in [("--a", &xa, a), ("--b", &xb, b)] {
                if list.len() != ch {
                    bail!(
                        "{name} {}: holds {} matrices but --channels is {ch}",
                        path.display(),
                        list.len()
                    );
                }
            }
            Ok((xa, xb))
        }
        (None, None, Some(shape)) => {
            let (batch, mkn) = match shape.split_once(['x', 'X']) {
                Some((first, rest)) if rest.matches(['x', 'X']).count() == 2 => (
                    first.parse::<usize>().map_err(|_| {
                        anyhow::anyhow!("--random '{shape}': expected BxMxKxN or MxKxN")
                    })?,
                    rest,
                ),
                _ => (1, shape.as_str()),
            };
            if batch != ch {
                bail!("--random '{shape}' makes {batch} pair(s) but --channels is {ch}");
            }
            let (m, k, n) = parse_mkn(mkn)?;
            let s = args.seed.wrapping_mul(2 * ch as u64 + 2);
            let a = (0..ch)
                .map(|c| Matrix::random(m, k, s + 2 * c as u64, lo, hi))
                .collect();
            let b = (0..ch)
                .map(|c| Matrix::random(k, n, s + 2 * c as u64 + 1, lo, hi))
                .collect();
            Ok((a, b))
        }
        _ => bail!("give the inputs as --a FILE --b FILE or as --random MxKxN"),
    }
}

fn multiply(args: MultiplyArgs) -> Result<()> {
    let method = Method::parse(&args.method)?;
    let mem_budget = args
        .mem_budget
        .as_deref()
        .map(rendermm::plan::tiled::parse_bytes)
        .transpose()?;
    let precision = Precision::parse(&args.precision)?;
    if args.channels != 1 && args.channels != 4 {
        bail!("--channels {}: use 1 or 4", args.channels);
    }
    if args.channels == 4 && method != Method::Lm {
        bail!("--channels 4 is the Larsen–McAllister RGBA mode; use --method lm");
    }
    if precision != Precision::F32 && !method.takes_precision() {
        bail!(
            "--precision {precision}: method {method} computes in f32 only; u8 and f16 are for the render-pass methods"
        );
    }
    let (_, block_arg) = b_operands(&args)?;
    let accumulate = Accumulate::parse(&args.accumulate)?;
    // frag-mrt also takes blocks of k (whole k in one pass unless --block is given).
    let takes_blocks = tune::is_tunable(method) || method == Method::FragMrt;
    if !takes_blocks && (block_arg.is_some() || accumulate != Accumulate::default()) {
        bail!(
            "--b N, --block and --accumulate are Hall–Carr–Hart options; method {method} has no blocks (use hall-blocked, hall-packed or frag-mrt)"
        );
    }
    let (mut a, mut b) = load_inputs(&args)?;
    let mut notes = vec![];
    if args.normalize {
        if precision != Precision::U8 {
            bail!(
                "--normalize maps inputs to [0, 1] for --precision u8; it does nothing for {precision}"
            );
        }
        for (list, name) in [(&mut a, "A"), (&mut b, "B")] {
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
    let ctx = if method.is_gpu() {
        Some(GpuContext::new()?)
    } else {
        None
    };
    if let (Some(c), false) = (&ctx, args.json) {
        eprintln!("adapter: {}", c.describe());
    }
    let block = match block_arg {
        Some(BlockArg::Fixed(b)) => Some(b),
        Some(BlockArg::Auto) => {
            let ctx = ctx
                .as_ref()
                .expect("the Hall–Carr–Hart methods run on the GPU");
            let blocks = tune::candidates(method, a[0].cols);
            let t = run_tuner(ctx, method, &a[0], &b[0], accumulate, &blocks, 2, args.json)?;
            let best = t
                .points
                .iter()
                .find(|p| p.b == t.best)
                .map_or(0.0, |p| p.compute_ms);
            notes.push(format!(
                "--b auto: timed b in {blocks:?} ({} runs each after a warm-up); b = {} was fastest at {best:.3} ms",
                t.repeats, t.best
            ));
            Some(t.best)
        }
        None => None,
    };
    let mut opts = Options {
        allow_nonfinite: args.allow_nonfinite,
        precision,
        scale_by_depth: args.scale_by_depth,
        block,
        accumulate,
        tiling: rendermm::plan::tiled::TileOptions {
            mem_budget,
            no_tile: args.no_tile,
            progress: !args.json,
            ..Default::default()
        },
        ..Default::default()
    };
    let (cs, passes, timings, run_notes, used) = if args.channels == 4 {
        for (x, y) in a.iter().zip(&b) {
            rendermm::matrix::check_product(x, y)?;
            if !args.allow_nonfinite {
                x.check_finite("A")?;
                y.check_finite("B")?;
            }
        }
        let ctx = ctx.as_ref().expect("lm is a GPU method");
        let ar: Vec<&Matrix> = a.iter().collect();
        let br: Vec<&Matrix> = b.iter().collect();
        let out = opts.with_params(|p| larsen_mcallister::multiply_channels(ctx, &ar, &br, p))?;
        (out.cs, out.passes, out.timings, out.notes, out.precision)
    } else {
        let out = plan::multiply(ctx.as_ref(), method, &a[0], &b[0], &mut opts)?;
        (
            vec![out.c],
            out.passes,
            out.timings,
            out.notes,
            opts.precision,
        )
    };
    notes.extend(run_notes);
    let checks: Vec<_> = if args.check {
        a.iter()
            .zip(&b)
            .zip(&cs)
            .map(|((x, y), c)| plan::verdict_for(method, &opts, x, y, c))
            .collect()
    } else {
        vec![]
    };
    let shape = (a[0].rows, a[0].cols, b[0].cols);
    let mut report = Report::new(
        ctx.as_ref(),
        method,
        used,
        shape,
        args.channels,
        passes,
        &timings,
        &notes,
        checks,
    );
    report.tiling = opts.tiled.take();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    // A result that failed its check is never written out as if it were right.
    if report.check_passed == Some(false) {
        bail!(
            "check failed: rel_err {:e}, held to: {}{}",
            report.rel_err.unwrap_or(f64::NAN),
            report.tolerance.as_deref().unwrap_or("?"),
            if args.out.is_some() {
                "; no output written"
            } else {
                ""
            }
        );
    }
    if let Some(path) = &args.out {
        if cs.len() == 1 {
            io::write_matrix(path, &cs[0])
        } else {
            io::write_batch(path, &cs)
        }
        .with_context(|| format!("writing the result to {}", path.display()))?;
    }
    Ok(())
}

/// A Hall–Carr–Hart block size from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockArg {
    Fixed(u32),
    Auto,
}

/// `Some` if `s` reads as a block size (`auto` or a whole number), `None` if it is something
/// else (a file name, for `--b`).
fn parse_block(s: &str) -> Option<Result<BlockArg>> {
    if s == "auto" {
        return Some(Ok(BlockArg::Auto));
    }
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(
        s.parse::<u32>()
            .map(BlockArg::Fixed)
            .map_err(|_| anyhow::anyhow!("block size b = {s} is too large")),
    )
}

/// Split `--b` into the right-matrix file and Hall's block size (a whole number or
/// `auto`), and merge in `--block`.
fn b_operands(args: &MultiplyArgs) -> Result<(Option<PathBuf>, Option<BlockArg>)> {
    let mut file = None;
    let mut block = match &args.block {
        Some(s) => Some(parse_block(s).unwrap_or_else(|| {
            Err(anyhow::anyhow!(
                "--block '{s}': give a whole number or auto"
            ))
        })?),
        None => None,
    };
    for v in &args.b {
        match parse_block(v) {
            Some(blk) => {
                if block.is_some() {
                    bail!("the block size is given twice (--b {v} and another --b or --block)");
                }
                block = Some(blk?);
            }
            None if file.is_some() => bail!("--b names two files; give one right-hand matrix"),
            None => file = Some(PathBuf::from(v)),
        }
    }
    Ok((file, block))
}

/// Run the tuner with a progress bar on stderr (hidden with `quiet`, as for --json).
#[allow(clippy::too_many_arguments)]
fn run_tuner(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    accumulate: Accumulate,
    blocks: &[u32],
    repeats: usize,
    quiet: bool,
) -> Result<tune::Tuning> {
    let bar = tuning_bar((blocks.len() * (repeats + 1)) as u64, quiet, method);
    let t = tune::tune(
        ctx,
        method,
        a,
        b,
        accumulate,
        blocks,
        repeats,
        &mut |done, _, blk| {
            bar.set_position(done as u64);
            bar.set_message(format!("b = {blk}"));
        },
    )?;
    bar.finish_and_clear();
    Ok(t)
}

fn tune_cmd(args: TuneArgs) -> Result<()> {
    let method = Method::parse(&args.method)?;
    if tune::has_variants(method) {
        return tune_variants_cmd(args, method);
    }
    if !tune::is_tunable(method) {
        bail!("method {method} has no block size to tune; use hall-blocked or hall-packed");
    }
    let accumulate = Accumulate::parse(&args.accumulate)?;
    let (m, k, n) = (args.m, args.k, args.n);
    let a = Matrix::random(m, k, args.seed * 2, -1.0, 1.0);
    let b = Matrix::random(k, n, args.seed * 2 + 1, -1.0, 1.0);
    rendermm::matrix::check_product(&a, &b)?;
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
    let t = run_tuner(
        &ctx,
        method,
        &a,
        &b,
        accumulate,
        &blocks,
        args.repeats,
        args.json,
    )?;
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

/// `tune --method cs-fast|coop`: time the method's variants and name the fastest.
fn tune_variants_cmd(args: TuneArgs, method: Method) -> Result<()> {
    let (m, k, n) = (args.m, args.k, args.n);
    let a = Matrix::random(m, k, args.seed * 2, -1.0, 1.0);
    let b = Matrix::random(k, n, args.seed * 2 + 1, -1.0, 1.0);
    rendermm::matrix::check_product(&a, &b)?;
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
    println!(
        "\n{:<16} {:>12} {:>12} {:>10} {:>11}  (clock: {})",
        "variant",
        "median ms",
        "min ms",
        "GFLOP/s",
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
        println!(
            "{:<16} {:>12.3} {:>12.3} {:>10.1} {:>11}{mark}",
            p.variant, p.compute_ms, p.min_ms, p.gflops, check
        );
    }
    println!(
        "\nbest: {} for {method} at {m}x{k}x{n} on this adapter (select it with {}={})",
        t.best, t.env, t.best
    );
    Ok(())
}

fn bench_cmd(args: BenchArgs) -> Result<()> {
    use rendermm::bench::{self, ceilings, sweep};
    let ctx = GpuContext::new()?;
    let json_stdout = matches!(args.json, Some(None));
    let write_json = |value: &dyn erased_json::Json| -> Result<()> {
        if let Some(Some(path)) = &args.json {
            let text = value.to_json()?;
            if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("creating {}", parent.display()))?;
            }
            io::write_atomic(path, |w| {
                w.write_all(text.as_bytes())
                    .map_err(|e| rendermm::Error::io(path, e))
            })?;
            eprintln!("wrote {}", path.display());
        }
        Ok(())
    };
    if let Some(suite) = &args.suite {
        let suite = bench::Suite::parse(suite)?;
        let opts = bench::BenchOptions {
            trials: args.repeats,
            warmup: args.warmup,
            size: args.size.as_deref().map(parse_mkn).transpose()?,
            seed: args.seed,
        };
        let report = bench::run(&ctx, suite, &opts)?;
        if json_stdout {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", bench::render(&report));
        }
        write_json(&report)?;
        if !report.all_passed() {
            bail!("some rows failed to run or failed their check against the f64 reference");
        }
        return Ok(());
    }
    if !json_stdout {
        eprintln!("adapter: {}", ctx.describe());
        eprintln!("measuring the ceilings ...");
    }
    if args.sizes.contains(&0) {
        bail!("--sizes: every size must be at least 1");
    }
    let ceil = ceilings::measure(&ctx, args.quick)?;
    if args.ceilings {
        if json_stdout {
            println!("{}", serde_json::to_string_pretty(&ceil)?);
        } else {
            for c in &ceil.ceilings {
                println!(
                    "{:<22} {:>12.2} {:<13} {:<14} {}",
                    c.name,
                    c.value,
                    c.unit,
                    c.clock.name(),
                    c.detail
                );
            }
        }
        write_json(&ceil)?;
        return Ok(());
    }
    let methods = if args.methods.is_empty() {
        Method::ALL.to_vec()
    } else {
        args.methods
            .iter()
            .map(|m| Method::parse(m))
            .collect::<rendermm::Result<Vec<_>>>()?
    };
    let precisions = args
        .precisions
        .iter()
        .map(|p| Precision::parse(p))
        .collect::<rendermm::Result<Vec<_>>>()?;
    let sizes = if args.sizes.is_empty() {
        sweep::SweepOptions::default_sizes(&ctx, args.quick)
    } else {
        args.sizes.clone()
    };
    let opts = sweep::SweepOptions {
        methods,
        sizes,
        precisions,
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
    };
    let rows: u64 = opts
        .methods
        .iter()
        .map(|m| {
            (opts.sizes.len()
                * if m.takes_precision() {
                    opts.precisions.len()
                } else {
                    1
                }) as u64
        })
        .sum();
    let bar = indicatif::ProgressBar::new(rows);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} rows {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    if json_stdout {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let result = sweep::run(&ctx, &opts, Some(&ceil), |r| {
        bar.set_message(format!("{} n={}", r.method, r.n));
        bar.inc(1);
    })?;
    bar.finish_and_clear();
    if json_stdout {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print!("{}", sweep::table(&result));
    }
    write_json(&result)?;
    if let Some(path) = &args.csv {
        let text = sweep::csv(&result);
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        io::write_atomic(path, |w| {
            w.write_all(text.as_bytes())
                .map_err(|e| rendermm::Error::io(path, e))
        })?;
        eprintln!("wrote {}", path.display());
    }
    if let Some(dir) = &args.plots {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        for path in rendermm::report::plots::sweep_plots(&result, dir)? {
            eprintln!("wrote {}", path.display());
        }
    }
    if !result.all_passed() {
        bail!("some rows failed their check against the f64 reference");
    }
    Ok(())
}

/// The progress bar of `tune`: `total` runs of `method`, hidden when the output is JSON.
fn tuning_bar(total: u64, hidden: bool, method: Method) -> indicatif::ProgressBar {
    let bar = if hidden {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(total)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "tuning {prefix} [{bar:30}] {pos}/{len} runs, {msg} ({elapsed})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar.set_prefix(method.name());
    bar
}

/// Serialize anything `Serialize` behind a trait object.
mod erased_json {
    pub trait Json {
        fn to_json(&self) -> serde_json::Result<String>;
    }
    impl<T: serde::Serialize> Json for T {
        fn to_json(&self) -> serde_json::Result<String> {
            serde_json::to_string_pretty(self)
        }
    }
}

fn model_cmd(args: ModelArgs) -> Result<()> {
    if args.b == 0 {
        bail!("block size b = 0: each pass must sum at least one product");
    }
    for (name, v) in [("m", args.m), ("k", args.k), ("n", args.n)] {
        if v == 0 {
            bail!("--{name} 0: every dimension must be at least 1");
        }
    }
    let methods: Vec<Method> = match &args.method {
        Some(name) => vec![Method::parse(name)?],
        None => Method::ALL.to_vec(),
    };
    let rows: Vec<model::Model> = methods
        .iter()
        .filter_map(|&me| model::model(me, args.m, args.k, args.n, args.b))
        .collect();
    // The compute-shader methods' model: global-memory words and flop per byte.
    let compute_rows: Vec<model::ComputeModel> = methods
        .iter()
        .filter_map(|&me| model::compute(me, args.m, args.k, args.n))
        .collect();
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
    if args.json {
        let mut all: Vec<serde_json::Value> = rows
            .iter()
            .map(serde_json::to_value)
            .collect::<Result<_, _>>()?;
        for r in &compute_rows {
            all.push(serde_json::to_value(r)?);
        }
        let text = if args.method.is_some() {
            serde_json::to_string_pretty(&all[0])?
        } else {
            serde_json::to_string_pretty(&all)?
        };
        println!("{text}");
        return Ok(());
    }
    if rows.is_empty() {
        print!("{}", rendermm::model::compute::table(&compute_rows));
        return Ok(());
    }
    let (m, k, n, b) = (args.m, args.k, args.n, args.b);
    println!("Hall–Carr–Hart 2003 §5 for A {m}x{k} · B {k}x{n}, b = {b}\n");
    println!("table 1: bytes moved inside the GPU");
    println!(
        "{:<13} {:>7} {:>12} {:>11} {:>16} {:>10}  paper (n×n)",
        "method", "passes", "frags/pass", "bytes/frag", "total bytes", "GiB"
    );
    for r in &rows {
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
    for r in &rows {
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
        print!("{}", rendermm::model::compute::table(&compute_rows));
    }
    Ok(())
}

fn print_report(r: &Report) {
    println!("method    {}  ({})", r.method, r.precision);
    println!("shape     {}x{} · {}x{}", r.m, r.k, r.k, r.n);
    println!("passes    {}", r.passes);
    println!(
        "time      upload {:.3} ms, compute {:.3} ms, copy {:.3} ms, readback {:.3} ms, total {:.3} ms",
        r.upload_ms, r.compute_ms, r.copy_ms, r.readback_ms, r.total_ms
    );
    if let Some(d) = r.device_ms {
        println!("device    {d:.3} ms of GPU time in the compute phase (timestamp queries)");
    }
    println!(
        "rate      {:.3} GFLOP/s (2·m·k·n / compute time, {})",
        r.gflops,
        r.timing.name()
    );
    if let (Some(bytes), Some(gbps), Some(inst), Some(gis)) = (
        r.model_bytes,
        r.model_gbps,
        r.model_instructions,
        r.model_ginst_per_s,
    ) {
        println!(
            "model     {bytes} bytes moved ({:.3} GiB) → {gbps:.3} GB/s; {inst} shader instructions → {gis:.3} Ginst/s (Hall–Carr–Hart §5)",
            bytes as f64 / (1u64 << 30) as f64
        );
    }
    if let (Some(bytes), Some(fpb), Some(gbps)) = (
        r.model_global_bytes,
        r.model_flop_per_byte,
        r.model_global_gbps,
    ) {
        println!(
            "model     {bytes} bytes of global-memory traffic, {fpb:.3} flop/byte (computation-to-memory ratio) → {gbps:.3} GB/s"
        );
    }
    if let Some(g) = r.gbops {
        println!(
            "          {g:.4} GBops (L-M's byte operations, 2·m·k·n − m·n, over the total time)"
        );
    }
    if let (Some(rel), Some(max)) = (r.rel_err, r.max_abs_err) {
        let verdict = if r.check_passed == Some(true) {
            "ok"
        } else {
            "FAILED"
        };
        println!("check     rel_err {rel:.3e}, max_abs_err {max:.3e} vs f64 CPU: {verdict}");
        if let Some(t) = &r.tolerance {
            println!("          held to: {t}");
        }
    }
    if let (Some(sat), Some(share)) = (r.saturated, r.saturated_share) {
        println!(
            "saturated {sat} elements ({:.2}%) hit the 8-bit ceiling of 1.0",
            share * 100.0
        );
    }
    for n in &r.notes {
        println!("note      {n}");
    }
}

fn tour(size: &str, seed: u64, out: &std::path::Path) -> Result<()> {
    let (m, k, n) = parse_mkn(size)?;
    let a = Matrix::random(m, k, seed * 2, -1.0, 1.0);
    let b = Matrix::random(k, n, seed * 2 + 1, -1.0, 1.0);
    let ctx = GpuContext::new()?;
    println!("rendermm tour: C = A·B with A {m}x{k}, B {k}x{n} (uniform in [-1, 1), seed {seed})");
    println!("adapter: {}\n", ctx.describe());
    println!(
        "{:<21} {:>7} {:>11} {:>10} {:>11}  {:<6} what it is",
        "method", "passes", "compute ms", "GFLOP/s", "rel_err", "check"
    );
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut failures = vec![];
    let mut pictures = vec![];
    for &method in Method::ALL {
        let result = plan::multiply(Some(&ctx), method, &a, &b, &mut Options::default());
        let run = match result {
            Ok(r) => r,
            // A single-workgroup method (cannon, dns) given a product larger than one workgroup
            // says which sizes it accepts; that is a skip, not a failure.
            // So is a method the adapter lacks the feature for (coop without cooperative matrices).
            Err(e @ (rendermm::Error::Limit { .. } | rendermm::Error::MissingFeature { .. })) => {
                println!("{:<21} skipped: {e}", method.name());
                continue;
            }
            Err(e) => {
                println!("{:<21} error: {e}", method.name());
                failures.push(method.name());
                continue;
            }
        };
        // f32 methods against their tolerance; coop against its f16-input bound.
        let verdict = plan::verdict_for(method, &Options::default(), &a, &b, &run.c);
        let stats = verdict.stats.clone();
        let ok = verdict.passed;
        if !ok {
            failures.push(method.name());
        }
        let report = Report::of_run(
            Some(&ctx),
            method,
            Precision::F32,
            &a,
            &b,
            &run,
            Some(verdict),
        );
        println!(
            "{:<21} {:>7} {:>11.3} {:>10.3} {:>11.3e}  {:<6} {}",
            method.name(),
            run.passes,
            report.compute_ms,
            report.gflops,
            stats.rel_err,
            if ok { "ok" } else { "FAILED" },
            method.description()
        );
        if method == Method::Lm {
            let path = out.join("tour-lm.png");
            picture::save_png(&path, &picture::panels(&[&a, &b, &run.c], 256))?;
            pictures.push((path, "A | B | C = A·B by lm, blue < 0 < red".to_string()));
        }
    }
    println!("\nrel_err is the relative Frobenius error against an f64 CPU reference.");
    // The pictures of the later stops of the tour: the 8-bit pipeline, channel packing, the
    // sample application, and the multiply drawn pass by pass.
    for name in ["lm-fig2", "hall-packing", "reach-example", "demo-lm"] {
        let fig = figures::find(name)?;
        let path = out.join(format!("{name}.{}", fig.files[0]));
        (fig.draw)(&ctx, &path)?;
        pictures.push((path, fig.about.to_string()));
    }
    for (p, about) in &pictures {
        println!("wrote {} ({about})", p.display());
    }
    if !failures.is_empty() {
        bail!("these methods failed their check: {}", failures.join(", "));
    }
    Ok(())
}

#[derive(Args)]
struct ReachArgs {
    /// Graph file: an edge list (`u v` per line, `#` or `%` comments), Matrix Market (.mtx,
    /// e.g. `coordinate pattern`; nonzero = edge) or a dense square .npy adjacency matrix.
    #[arg(long, required_unless_present = "bench")]
    graph: Option<PathBuf>,
    /// Which nodes reach which within P steps: (I + A)^P by repeated squaring.
    #[arg(long, value_name = "P", conflicts_with = "closure")]
    steps: Option<usize>,
    /// The transitive closure and the connected components (strongly connected with --directed).
    #[arg(long)]
    closure: bool,
    /// lm, hall-blocked or hall-packed (the render-pass methods whose product stays in a texture).
    #[arg(long, default_value = "lm")]
    method: String,
    /// u8, f16 or f32. Default: u8 for lm (the 8-bit pipeline of 2001; its saturating blend keeps
    /// entries 0/1), f32 for hall-blocked and hall-packed (their only format).
    #[arg(long)]
    precision: Option<String>,
    /// Output, by extension: .csv the components (node,component; needs --closure), .json the
    /// report, .npy or .mtx the reachability matrix, .png its picture (white = reachable). With
    /// --bench: the bar chart (.png, default rendermm-out/reach-bench.png).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Edges are one-way (u → v); components are then strongly connected components.
    #[arg(long)]
    directed: bool,
    /// Edge-list ids start at 1 instead of 0.
    #[arg(long)]
    one_based: bool,
    /// Edge lists: the number of nodes (ids at or past it are errors; isolated nodes count).
    #[arg(long)]
    nodes: Option<usize>,
    /// Compare with a CPU breadth-first search; exit non-zero (writing nothing) if they differ.
    #[arg(long)]
    check: bool,
    /// Between products, read the framebuffer back and upload it again instead of copying it
    /// on the GPU (for comparison with the paper's copy).
    #[arg(long)]
    via_host: bool,
    /// Hall–Carr–Hart block size b (default 32).
    #[arg(long)]
    block: Option<u32>,
    /// The paper's experiment: an n×n 0/1 matrix multiplied by itself --powers times, each
    /// result the next input; prints figures 4-5's breakdown and draws it as a bar chart.
    #[arg(long, conflicts_with_all = ["graph", "steps", "closure", "check", "directed", "one_based", "nodes"])]
    bench: bool,
    /// --bench: the matrix size (the paper: 1024; on lavapipe L-M at 1024 takes minutes).
    #[arg(long, default_value_t = 1024)]
    n: usize,
    /// --bench: how many products (the paper: 20).
    #[arg(long, default_value_t = 20)]
    powers: usize,
    /// --bench: seed of the random graph.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// What `reach --out FILE` writes, by extension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ReachOut {
    Components,
    Report,
    Matrix,
    Picture,
}

fn reach_out_kind(path: &std::path::Path, closure: bool) -> Result<ReachOut> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("csv") if closure => Ok(ReachOut::Components),
        Some("csv") => bail!(
            "--out {}: a .csv holds the components, which need --closure; write the p-step reachability matrix as .npy or .png",
            path.display()
        ),
        Some("json") => Ok(ReachOut::Report),
        Some("npy") | Some("mtx") => Ok(ReachOut::Matrix),
        Some("png") => Ok(ReachOut::Picture),
        _ => bail!(
            "--out {}: unknown extension; use .csv (components), .json (report), .npy or .mtx (reachability matrix) or .png (its picture)",
            path.display()
        ),
    }
}

fn reach_cmd(args: ReachArgs) -> Result<()> {
    use rendermm::reach::graph;
    use rendermm::reach::{self, Goal, ReachOptions, ReachReport, Transfer};
    let opts = ReachOptions {
        method: Method::parse(&args.method)?,
        precision: args
            .precision
            .as_deref()
            .map(Precision::parse)
            .transpose()?,
        transfer: if args.via_host {
            Transfer::HostRoundTrip
        } else {
            Transfer::GpuCopy
        },
        block: args.block,
    };
    reach::check_options(&opts)?;
    if args.bench {
        return reach_bench(&args, &opts);
    }
    let goal = match (args.steps, args.closure) {
        (Some(p), false) => Goal::Steps(p),
        (None, true) => Goal::Closure,
        _ => bail!(
            "give --steps P (reachability within P steps) or --closure (transitive closure and components)"
        ),
    };
    let Some(path) = &args.graph else {
        bail!("give the graph with --graph FILE");
    };
    let out_kind = args
        .out
        .as_deref()
        .map(|p| reach_out_kind(p, goal == Goal::Closure))
        .transpose()?;
    let read = graph::ReadOptions {
        directed: args.directed,
        one_based: args.one_based,
        nodes: args.nodes,
    };
    let g = graph::read_graph(path, read)?;
    let ctx = GpuContext::new()?;
    if !args.json {
        eprintln!("adapter: {}", ctx.describe());
    }
    let run = reach::reach(&ctx, &g, goal, &opts)?;
    let checked = args.check.then(|| reach::matches_cpu(&g, &run));
    let report = ReachReport::new(&ctx, &path.display().to_string(), &g, &run, checked);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for line in report.summary() {
            eprintln!("{line}");
        }
        if args.out.is_none() {
            match &run.components {
                Some(c) => print!("{}", reach::components_csv(c, args.one_based)),
                None => {
                    println!("node,reachable_within_{}", args.steps.unwrap_or(0));
                    for u in 0..g.nodes {
                        let count = (0..g.nodes)
                            .filter(|&v| run.matrix.get(u, v) != 0.0)
                            .count();
                        println!("{},{count}", u + usize::from(args.one_based));
                    }
                }
            }
        }
    }
    if checked == Some(false) {
        bail!(
            "the GPU result differs from the CPU breadth-first search{}",
            if args.out.is_some() {
                "; no output written"
            } else {
                ""
            }
        );
    }
    if let (Some(out), Some(kind)) = (&args.out, out_kind) {
        match kind {
            ReachOut::Components => {
                let c = run.components.as_ref().expect("--closure gives components");
                let text = reach::components_csv(c, args.one_based);
                io::write_atomic(out, |w| {
                    w.write_all(text.as_bytes())
                        .map_err(|e| rendermm::Error::io(out.clone(), e))
                })?;
            }
            ReachOut::Report => {
                let text = serde_json::to_string_pretty(&report)? + "\n";
                io::write_atomic(out, |w| {
                    w.write_all(text.as_bytes())
                        .map_err(|e| rendermm::Error::io(out.clone(), e))
                })?;
            }
            ReachOut::Matrix => io::write_matrix(out, &run.matrix)?,
            ReachOut::Picture => picture::save_png(out, &reach::reach_picture(&run.matrix)?)?,
        }
        if !args.json {
            eprintln!("wrote {}", out.display());
        }
    }
    Ok(())
}

fn reach_bench(args: &ReachArgs, opts: &rendermm::reach::ReachOptions) -> Result<()> {
    use rendermm::reach;
    let chart = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("rendermm-out/reach-bench.png"));
    if chart
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
        != Some("png")
    {
        bail!(
            "--out {}: with --bench, --out is the bar chart and must end in .png",
            chart.display()
        );
    }
    let ctx = GpuContext::new()?;
    if !args.json {
        println!("adapter: {}", ctx.describe());
    }
    let r = reach::bench(&ctx, args.n, args.powers, args.seed, opts)?;
    if let Some(dir) = chart.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    picture::save_png(&chart, &reach::breakdown_chart(&r))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        eprintln!("wrote {}", chart.display());
    } else {
        for line in r.table() {
            println!("{line}");
        }
        println!("wrote {} (figures 4-5 as bars)", chart.display());
    }
    Ok(())
}
