//! `rendermm tour`: every method (or the one `--method` names) on one problem, checked against
//! the CPU, with the pictures of the tour's stops. A slow row shows a spinner on a terminal.

use super::values::{MethodArg, named};
use super::{check_failed, guard, progress};
use crate::draw::picture;
use crate::figures;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::plan::{self};
use crate::report::Report;
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct TourArgs {
    /// Problem size MxKxN.
    #[arg(long, default_value = "96x80x64")]
    size: String,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The folder the pictures go into (made when there is a picture to write).
    #[arg(long, default_value = "rendermm-out")]
    out: PathBuf,
    /// Run only this method (its row, and its picture if it has one); default: every method,
    /// then the pictures of the later stops.
    #[arg(long, value_parser = named::<MethodArg>("method"))]
    method: Option<MethodArg>,
}

/// The pictures of the later stops of the tour: the 8-bit pipeline, channel packing, the
/// sample application, and the multiply drawn pass by pass.
const LATER_STOPS: [&str; 4] = ["lm-fig2", "hall-packing", "reach-example", "demo-lm"];

/// A row's outcome.
enum Row {
    Passed,
    Failed,
    /// The adapter cannot run the method (or not at this size): why.
    Skipped(crate::Error),
}

/// Run `rendermm tour`. `--out` is refused before any work unless it is a folder or a path that
/// does not exist; the folder is made when there is a picture to write, and a tour that fails
/// removes again the folders it made and left empty.
pub fn run(args: TourArgs) -> Result<()> {
    let (m, k, n) = super::bench::parse_shape("--size", &args.size)?;
    guard::product_memory(&format!("--size {}", args.size), (m, k, n), 2)?;
    crate::io::check_output_folder(&args.out, "tour --out")?;
    let made = super::bench::NewFolders::of([args.out.as_path()]);
    let toured = tour(&args, (m, k, n));
    if toured.is_err() {
        made.remove_empty();
    }
    toured
}

/// Make the folder the pictures go into, when there is one to write.
fn make_out(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))
}

/// The tour itself, once its `--out` was found writable.
fn tour(args: &TourArgs, (m, k, n): (usize, usize, usize)) -> Result<()> {
    let a = Matrix::try_random(m, k, args.seed * 2, -1.0, 1.0)?;
    let b = Matrix::try_random(k, n, args.seed * 2 + 1, -1.0, 1.0)?;
    let ctx = GpuContext::new()?;
    let seed = args.seed;
    println!("rendermm tour: C = A·B with A {m}x{k}, B {k}x{n} (uniform in [-1, 1), seed {seed})");
    println!("adapter: {}", ctx.describe());
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        println!(
            "         a CPU adapter: the GPU's work runs on this machine's CPU cores, so the times below\n         are a CPU's, not a GPU's, and the methods rank differently on a real GPU"
        );
    }
    println!("\neach method runs once to warm up (building its pipelines), then once timed\n");
    println!(
        "{:<25} {:>7} {:>9} {:>11} {:>10} {:>11}  {:<6} what it is",
        "method", "passes", "in/sums", "compute ms", "GFLOP/s", "rel_err", "check"
    );
    let out = &args.out;
    let methods = match args.method {
        Some(one) => vec![one.0],
        None => Method::ALL.to_vec(),
    };
    let mut failures = vec![];
    let mut skipped = vec![];
    let mut pictures = vec![];
    let asked = methods.len();
    for method in methods {
        let bar = progress::spinner(format!("running {method}"));
        let row = tour_row(&ctx, method, &a, &b, out, &mut pictures);
        bar.finish_and_clear();
        match row? {
            Row::Failed => failures.push(method.name()),
            Row::Skipped(why) => skipped.push((method.name(), why)),
            Row::Passed => {}
        }
    }
    // Nothing ran: the tour showed nothing, and fails as `multiply` of that method would (with
    // the skip's own exit status). A tour where some methods ran shows those; the ones this
    // adapter cannot run are named below their rows and the tour still succeeds.
    if skipped.len() == asked
        && let Some((name, why)) = skipped.pop()
    {
        return Err(anyhow::Error::new(why).context(format!(
            "tour: nothing ran; {name} cannot run on this adapter"
        )));
    }
    println!("\nrel_err is the relative Frobenius error against an f64 CPU reference.");
    if !skipped.is_empty() {
        let names: Vec<&str> = skipped.iter().map(|(n, _)| *n).collect();
        println!(
            "skipped (this adapter cannot run them; their rows say why): {}",
            names.join(", ")
        );
    }
    if args.method.is_none() {
        for name in LATER_STOPS {
            let fig = figures::find(name)?;
            let path = out.join(format!("{name}.{}", fig.files[0]));
            make_out(out)?;
            let bar = progress::spinner(format!("drawing {name}"));
            let drawn = (fig.draw)(&ctx, &path);
            bar.finish_and_clear();
            drawn?;
            pictures.push((path, fig.about.to_string()));
        }
    }
    for (p, about) in &pictures {
        println!("wrote {} ({about})", p.display());
    }
    if !failures.is_empty() {
        check_failed!("these methods failed their check: {}", failures.join(", "));
    }
    println!(
        "\nnext: the course, one chapter per era, each running its method live in the page:\n  web/site.sh && web/site.sh serve     (builds the book and the page into site/, then serves them; open the URL it prints)\n  or read docs/README.md in the repository"
    );
    Ok(())
}

/// Run one method, print its row, and draw lm's picture.
fn tour_row(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    out: &Path,
    pictures: &mut Vec<(PathBuf, String)>,
) -> Result<Row> {
    // A warm-up run first: its pipelines are built (and the driver compiles their shaders), so
    // the timed run below measures the multiply, not the first use of a shader.
    // ANCHOR: one_request
    let warm = plan::multiply(Some(ctx), plan::Request::new(method, a, b));
    let run = match warm.and_then(|_| plan::multiply(Some(ctx), plan::Request::new(method, a, b))) {
        Ok(r) => r,
        // A single-workgroup method given a product larger than one workgroup says which sizes
        // it accepts; that is a skip, not a failure. So is a method the adapter lacks the
        // feature for (coop without cooperative matrices), and a GL-era method on a machine
        // without an OpenGL compatibility context.
        Err(
            e @ (crate::Error::Limit { .. }
            | crate::Error::MissingFeature { .. }
            | crate::Error::HostGl { .. }),
        ) => {
            println!("{:<25} skipped: {e}", method.name());
            return Ok(Row::Skipped(e));
        }
        Err(e) => {
            println!("{:<25} error: {e}", method.name());
            return Ok(Row::Failed);
        }
    };
    // Held to the arithmetic that ran: f32 by the judge's bound from k, coop by its f16-input
    // bound, the u8 and f16 pipelines by their models.
    let verdict = run.verdict(a, b);
    // ANCHOR_END: one_request
    let stats = verdict.stats.clone();
    let ok = verdict.passed;
    let report = Report::of(Some(ctx), &run, vec![verdict]);
    // The kernel that ran, where the method handed the product to another.
    let name = match &report.ran {
        Some(ran) => format!("{method} (ran {ran})"),
        None => method.name().to_string(),
    };
    println!(
        "{:<25} {:>7} {:>9} {:>11.3} {:>10.3} {:>11.3e}  {:<6} {}",
        name,
        run.passes,
        format!("{}/{}", report.inputs, report.sums),
        report.compute_ms,
        report.gflops,
        stats.rel_err,
        if ok { "ok" } else { "FAILED" },
        method.description()
    );
    if method == Method::Lm {
        // The headline picture: structured inputs (a diagonal A, a checkerboard B) so the eye
        // sees the product form slice by slice.
        let path = out.join("tour-lm.png");
        make_out(out)?;
        picture::save_png(&path, &figures::tour_picture(ctx)?)?;
        pictures.push((
            path,
            "lm on a diagonal A and a checkerboard B: one slice, C after slices 0-5, and C = A·B"
                .to_string(),
        ));
    }
    Ok(if ok { Row::Passed } else { Row::Failed })
}
