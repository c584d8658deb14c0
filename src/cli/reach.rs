//! `rendermm reach`: L-M §5's sample application — reachability within p steps, or the
//! transitive closure and connected components, by powers of I + A kept on the GPU — and
//! `--bench`, the paper's experiment (figures 4-5).

use super::guard;
use super::values::{MethodArg, PrecisionArg, named};
use crate::draw::picture;
use crate::gpu::GpuContext;
use crate::io;
use crate::methods::Method;
use crate::reach::graph::{self, Graph};
use crate::reach::{self, Goal, ReachOptions, ReachReport, ReachRun, Transfer};
use anyhow::{Context, Result, bail};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct ReachArgs {
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
    /// A render-pass method whose product stays in a texture: lm, hall-blocked or hall-packed.
    #[arg(long, value_parser = named::<MethodArg>("method"), default_value_t = MethodArg(Method::Lm))]
    method: MethodArg,
    /// Default: u8 for lm (the 8-bit pipeline of 2001; its saturating blend keeps entries 0/1),
    /// f32 for hall-blocked and hall-packed (their only format).
    #[arg(long, value_parser = named::<PrecisionArg>("precision"))]
    precision: Option<PrecisionArg>,
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

fn out_kind(path: &std::path::Path, closure: bool) -> Result<ReachOut> {
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

/// Run `rendermm reach`.
pub fn run(args: ReachArgs) -> Result<()> {
    let opts = ReachOptions {
        method: args.method.0,
        precision: args.precision.map(|p| p.0),
        transfer: if args.via_host {
            Transfer::HostRoundTrip
        } else {
            Transfer::GpuCopy
        },
        block: args.block,
    };
    reach::check_options(&opts)?;
    if args.bench {
        return bench(&args, &opts);
    }
    let Checked { goal, path, out } = validate(&args)?;
    let g = graph::read_graph(
        path,
        graph::ReadOptions {
            directed: args.directed,
            one_based: args.one_based,
            nodes: args.nodes,
        },
    )?;
    guard::host_memory(
        &format!("--graph {}", path.display()),
        "its reachability matrices",
        &[(g.nodes, g.nodes); 3],
    )?;
    let ctx = GpuContext::new()?;
    if !args.json {
        eprintln!("adapter: {}", ctx.describe());
    }
    let run = reach::reach(&ctx, &g, goal, &opts)?;
    let checked = args.check.then(|| reach::matches_cpu(&g, &run));
    let report = ReachReport::new(&ctx, &path.display().to_string(), &g, &run, checked);
    if checked == Some(false) {
        show(&args, &g, &run, &report)?;
        super::check_failed!(
            "the GPU result differs from the CPU breadth-first search{}",
            if out.is_some() {
                "; no output written"
            } else {
                ""
            }
        );
    }
    // Written before anything is reported, so that a failed write reports no success.
    if let Some((out, kind)) = out {
        write(&args, out, kind, &run, &report)?;
    }
    show(&args, &g, &run, &report)?;
    if let (Some((out, _)), false) = (out, args.json) {
        eprintln!("wrote {}", out.display());
    }
    Ok(())
}

/// What `validate` found before any work.
struct Checked<'a> {
    goal: Goal,
    /// The graph file.
    path: &'a Path,
    /// The output and what goes into it, checked to be writable.
    out: Option<(&'a Path, ReachOut)>,
}

/// The goal, the graph file and the output (checked to be writable), before any work.
fn validate(args: &ReachArgs) -> Result<Checked<'_>> {
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
    let out = match &args.out {
        Some(out) => {
            let kind = out_kind(out, goal == Goal::Closure)?;
            io::check_output(out)?;
            io::refuse_same_file(out, "--out", &[("--graph", path.as_path())])?;
            Some((out.as_path(), kind))
        }
        None => None,
    };
    Ok(Checked { goal, path, out })
}

/// The report (JSON, or a summary on stderr), and without --out the result on stdout.
fn show(args: &ReachArgs, g: &Graph, run: &ReachRun, report: &ReachReport) -> Result<()> {
    if args.json {
        println!("{}", serde_json::to_string_pretty(report)?);
        return Ok(());
    }
    for line in report.summary() {
        eprintln!("{line}");
    }
    if args.out.is_some() {
        return Ok(());
    }
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
    Ok(())
}

/// Write `text` to `out` atomically.
fn write_text(out: &Path, text: &str) -> Result<()> {
    io::write_atomic(out, |w| {
        w.write_all(text.as_bytes())
            .map_err(|e| crate::Error::io(out, e))
    })?;
    Ok(())
}

/// `--out`: components, report, matrix or picture, by extension.
fn write(
    args: &ReachArgs,
    out: &Path,
    kind: ReachOut,
    run: &ReachRun,
    report: &ReachReport,
) -> Result<()> {
    match kind {
        ReachOut::Components => {
            let c = run
                .components
                .as_ref()
                .context("--closure gives components")?;
            write_text(out, &reach::components_csv(c, args.one_based))?;
        }
        ReachOut::Report => write_text(out, &(serde_json::to_string_pretty(report)? + "\n"))?,
        ReachOut::Matrix => io::write_matrix(out, &run.matrix)?,
        ReachOut::Picture => picture::save_png(out, &reach::reach_picture(&run.matrix)?)?,
    }
    Ok(())
}

/// `--bench`: the paper's experiment, printed and drawn as a bar chart.
fn bench(args: &ReachArgs, opts: &ReachOptions) -> Result<()> {
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
    guard::host_memory(
        &format!("--n {}", args.n),
        "the n×n matrices",
        &[(args.n, args.n); 3],
    )?;
    if let Some(dir) = chart.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    io::check_output(&chart)?;
    let ctx = GpuContext::new()?;
    if !args.json {
        println!("adapter: {}", ctx.describe());
    }
    let r = reach::bench(&ctx, args.n, args.powers, args.seed, opts)?;
    reach::breakdown_chart(&r, &chart)?;
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
