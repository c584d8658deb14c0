//! The command line's arguments (clap) and its dispatch: one subcommand per file of `src/cli/`.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rendermm",
    version,
    about = "Matrix multiplication through render pipelines, 2001 to today",
    after_help = super::EXIT_STATUS_HELP
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
        /// Every adapter of every backend wgpu offers here, with what each can run.
        #[arg(long)]
        all: bool,
    },
    /// List every method with its era, its source and one line on what it does.
    Methods {
        /// Print JSON (one object per method) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Multiply two matrices with one method.
    #[command(after_help = super::EXIT_STATUS_HELP)]
    Multiply(super::multiply::MultiplyArgs),
    /// Judge a product made anywhere: C from a file against A and B, held to a method's
    /// arithmetic (f32 without --method) as `multiply --check` holds its own.
    #[command(after_help = super::EXIT_STATUS_HELP)]
    Check(super::check::CheckArgs),
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
        /// Output file, named with the figure's own extension (.png, .gif or .md; a figure with
        /// a table writes it beside, as .md); a device or pipe is written as it is.
        #[arg(long)]
        out: PathBuf,
    },
    /// Regenerate every figure of the docs into a folder.
    Figures {
        /// Output folder. `--out docs/img` refreshes the docs' own pictures and the tables
        /// spliced into their pages.
        #[arg(long, required_unless_present = "list")]
        out: Option<PathBuf>,
        /// Only list the figures.
        #[arg(long)]
        list: bool,
    },
    /// The guided tour: every method on one problem, checked against the CPU, with pictures.
    Tour(super::tour::TourArgs),
    /// Hall–Carr–Hart §5's model: table 1 (bytes moved inside the GPU) and table 2 (shader
    /// instructions) for L-M, hall-blocked and hall-packed at m×k×n with block size b.
    Model(super::model::ModelArgs),
    /// Time a tunable method on this adapter and report the best setting: Hall's block size b
    /// (hall-blocked, hall-packed) or a variant (cs-fast, coop).
    Tune(super::tune::TuneArgs),
    /// Draw a multiply pass by pass: lm, hall, packed or cube, in a window or --headless into
    /// PNG frames or a GIF.
    Demo(super::demo::DemoArgs),
    /// L-M §5's sample application: reachability within p steps or the transitive closure and
    /// connected components of a graph, by powers of I + A kept on the GPU; `--bench` runs the
    /// paper's experiment (figures 4-5).
    Reach(super::reach::ReachArgs),
    /// Every method x sizes x precisions beside the adapter's own ceilings (table, --json,
    /// --csv, --plots); `--ceilings` alone; or a seed's tables (`--suite oneil|5kk73`).
    Bench(super::bench::BenchArgs),
}

/// The command line, as the `rendermm` binary runs it: parse the arguments, run the command,
/// print an error as one line, and end with the command's exit status (`--help` lists them).
/// The binary's `main` is this call and nothing else.
pub fn run_cli() -> ExitCode {
    // Before any thread or driver starts: let Mesa's OpenGL list the float colour buffers it
    // has, so the render passes run in f32 on GL too (see `MESA_FLOAT_COLOR_BUFFERS`).
    let (var, value) = crate::gpu::context::MESA_FLOAT_COLOR_BUFFERS;
    if std::env::var_os(var).is_none() {
        // SAFETY: the binary's first call, made while the process has one thread.
        unsafe { std::env::set_var(var, value) };
    }
    super::quiet_stream_errors();
    // A signal in the middle of writing an output removes the temporary file before the
    // process ends by it.
    crate::io::install_signal_cleanup();
    // clap prints help, the version and usage errors itself; a stream it cannot write to is a
    // file that cannot be written (4), not the success or usage status it would exit with.
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        Err(e) => {
            // Help and the version go to standard output; usage errors to standard error,
            // whose failure leaves them their own status.
            if let Err(why) = e.print()
                && !e.use_stderr()
            {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "error: cannot write to standard output: {why}"
                );
                return ExitCode::from(4);
            }
            return status(e.exit_code());
        }
    };
    match run(parsed) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // An error still ends with its own status when standard error cannot take its line.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "error: {}", super::one_line(&e));
            status(super::exit_status(&e))
        }
    }
}

/// An exit status as the process ends with it (a status past 255 cannot be one: 70, a bug).
fn status(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(70))
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Info { json, all } => super::info::info(json, all),
        Command::Methods { json } => super::methods::run(json),
        Command::Multiply(args) => super::multiply::run(args),
        Command::Check(args) => super::check::run(args),
        Command::Tour(args) => super::tour::run(args),
        Command::Model(args) => super::model::run(args),
        Command::Tune(args) => super::tune::run(args),
        Command::Demo(args) => super::demo::run(args),
        Command::Reach(args) => super::reach::run(args),
        Command::Bench(args) => super::bench::run(args),
        Command::PrecisionLadder { sizes, seed, json } => {
            super::precision_ladder::run(&sizes, seed, json)
        }
        Command::Figure { name, out } => super::figures::one(&name, out),
        Command::Figures { out, list } => super::figures::all(out.as_deref(), list),
    }
}
