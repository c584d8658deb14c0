//! `rendermm precision-ladder`: L-M, hall-blocked and hall-packed in u8, u8 with
//! scale-by-depth, f16 and f32 on the same problems, as a Markdown table or JSON.

use super::guard;
use crate::gpu::GpuContext;
use anyhow::{Result, bail};

/// Run the ladder at the sizes n (n×n·n×n).
pub fn run(sizes: &[usize], seed: u64, json: bool) -> Result<()> {
    if sizes.contains(&0) {
        bail!("--sizes: every size must be at least 1");
    }
    for &n in sizes {
        guard::product_memory(&format!("--sizes {n}"), (n, n, n), 2)?;
    }
    let ctx = GpuContext::new()?;
    let rows = crate::bench::ladder::run(&ctx, sizes, seed)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else {
        println!("adapter: {}\n", ctx.describe());
        print!("{}", crate::bench::ladder::markdown(&rows));
    }
    Ok(())
}
