//! The `rendermm` binary: the command line lives in the library (`src/cli/`), behind one call.

fn main() -> std::process::ExitCode {
    rendermm::run_cli()
}
