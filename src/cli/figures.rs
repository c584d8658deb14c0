//! `rendermm figure NAME` and `rendermm figures`: draw one figure of the docs, or all of them
//! into a folder, from the figures registry (`crate::figures::ALL`).

use crate::figures;
use crate::gpu::GpuContext;
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// Draw the figure `name` into `out`, a file of the figure's own kind (its other files, if it
/// has any, beside it with their own extensions).
pub fn one(name: &str, out: PathBuf) -> Result<()> {
    let fig = figures::find(name)?;
    check_figure_output(fig, &out)?;
    for p in fig.paths(&out) {
        crate::io::check_output(&p)?;
    }
    let ctx = GpuContext::new()?;
    (fig.draw)(&ctx, &out)?;
    for p in fig.paths(&out) {
        println!("wrote {} ({})", p.display(), fig.about);
    }
    Ok(())
}

/// `--out` names a file of the figure's kind: a name ending in its extension (`.png`, `.gif`,
/// `.md`), or, for a figure of one file, a device or pipe written as it is. Anything else is
/// refused rather than written under another name: a folder, another extension, none.
fn check_figure_output(fig: &figures::Figure, out: &Path) -> Result<()> {
    let main = fig.files[0];
    let kind = match main {
        "png" => "a PNG picture",
        "gif" => "an animated GIF",
        "md" => "a Markdown table",
        other => other,
    };
    let hint = format!("{}.{main}", fig.name);
    if out.is_dir() {
        bail!(
            "--out {}: is a directory; figure {} is {kind}: give a file name such as {}",
            out.display(),
            fig.name,
            out.join(&hint).display()
        );
    }
    if fig.files.len() == 1 && crate::io::is_device_or_pipe(out) {
        return Ok(());
    }
    let ext = out.extension().and_then(|e| e.to_str());
    if !ext.is_some_and(|e| e.eq_ignore_ascii_case(main)) {
        let beside = if fig.files.len() > 1 {
            format!(
                " (its {} go beside it)",
                fig.files[1..]
                    .iter()
                    .map(|e| format!(".{e}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            String::new()
        };
        bail!(
            "--out {}: figure {} is {kind}; give a file name ending in .{main}, such as {hint}{beside}",
            out.display(),
            fig.name
        );
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
