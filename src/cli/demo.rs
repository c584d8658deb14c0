//! `rendermm demo`: the demos' own command line lives with them (`rendermm::demo::DemoArgs`);
//! this checks the output files before any work and hands the arguments over.

use anyhow::Result;
use rendermm::demo::DemoArgs;
use rendermm::io;
use std::path::Path;

/// Run `rendermm demo`.
pub fn run(mut args: DemoArgs) -> Result<()> {
    args.no_display = ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
        .iter()
        .all(|v| std::env::var_os(v).is_none_or(|s| s.is_empty()));
    let inputs: Vec<(&str, &Path)> = [("--a", &args.a), ("--b", &args.b)]
        .into_iter()
        .filter_map(|(label, p)| p.as_deref().map(|p| (label, p)))
        .collect();
    for (label, out) in [("--gif", &args.gif), ("--screenshot", &args.screenshot)] {
        if let Some(out) = out {
            io::check_output(out)?;
            io::refuse_same_file(out, label, &inputs)?;
        }
    }
    Ok(rendermm::demo::run(args)?)
}
