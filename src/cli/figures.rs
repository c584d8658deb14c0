//! `rendermm figure NAME` and `rendermm figures`: draw one figure of the docs, or all of them
//! into a folder, from the figures registry (`rendermm::report::figures::ALL`).

use anyhow::Result;
use rendermm::gpu::GpuContext;
use rendermm::report::figures;
use std::path::{Path, PathBuf};

/// Draw the figure `name` into `out` (its extension follows the figure's own kind of file).
pub fn one(name: &str, out: PathBuf) -> Result<()> {
    let fig = figures::find(name)?;
    // The figure's own kind of file (`hall-table1` writes Markdown whatever --out ends in).
    let out = out.with_extension(fig.files[0]);
    rendermm::io::check_output(&out)?;
    let ctx = GpuContext::new()?;
    (fig.draw)(&ctx, &out)?;
    for p in fig.paths(&out) {
        println!("wrote {} ({})", p.display(), fig.about);
    }
    Ok(())
}

/// List the figures, or draw every one into `out`.
pub fn all(out: Option<&Path>, list: bool) -> Result<()> {
    let Some(out) = out.filter(|_| !list) else {
        for f in figures::ALL {
            println!("{:<16} {}", f.name, f.about);
        }
        return Ok(());
    };
    let ctx = GpuContext::new()?;
    println!("adapter: {}", ctx.describe());
    let t = std::time::Instant::now();
    let written = figures::write_all(&ctx, out, |line| println!("{line}"))?;
    println!(
        "{} files in {:.1} s",
        written.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
