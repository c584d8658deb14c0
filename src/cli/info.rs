//! `rendermm info`: the chosen adapter, its backend, and the features and limits that matter
//! to the methods, with the driver's shader loop cap as the context measures it
//! (`crate::gpu::loop_cap`).

use crate::gpu::GpuContext;
use anyhow::Result;

/// Print the adapter's name, backend, driver, features and limits (JSON with `json`); with
/// `all`, every adapter of every backend and what it can run.
pub fn info(json: bool, all: bool) -> Result<()> {
    if all {
        return survey(json);
    }
    let ctx = GpuContext::new()?;
    let feats = ctx.key_features();
    let limits = ctx.key_limits();
    // Not a limit wgpu reports: the probe measures it (a driver that stops loops early would
    // otherwise return short sums; the plan splits k to stay under it).
    let loop_cap = ctx.loop_cap()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&ctx.info_report()?)?);
        return Ok(());
    }
    let s = ctx.summary();
    println!("adapter   {}", s.name);
    println!("backend   {}", s.backend);
    println!("driver    {} {}", s.driver, s.driver_info);
    println!("type      {}", s.device_type);
    println!("features");
    for (name, has) in feats {
        println!("  {name:<40} {}", if has { "yes" } else { "no" });
    }
    println!("limits");
    for (name, v) in limits {
        println!("  {name:<40} {v}");
    }
    println!("shader loop cap (measured: shaders/loop_cap.wgsl, loop_cap_fragment.wgsl)");
    let compute = loop_cap
        .compute
        .map_or("no compute shaders".to_string(), |s| s.describe());
    println!("  {:<40} {compute}", "compute");
    println!("  {:<40} {}", "fragment", loop_cap.fragment.describe());
    Ok(())
}

/// `rendermm info --all`: one row per adapter of every backend.
fn survey(json: bool) -> Result<()> {
    let adapters = pollster::block_on(crate::gpu::context::survey());
    if json {
        println!("{}", serde_json::to_string_pretty(&adapters)?);
        return Ok(());
    }
    if adapters.is_empty() {
        println!("no adapter on any backend");
        return Ok(());
    }
    let yes = |b: bool| if b { "yes" } else { "no" };
    println!(
        "{:<34} {:<8} {:<6} {:>9} {:>9} {:>8} {:>10} {:>9} {:>5} {:>7}",
        "adapter",
        "backend",
        "type",
        "f32 pass",
        "f32 blend",
        "compute",
        "timestamps",
        "subgroups",
        "f16",
        "tensor"
    );
    for a in &adapters {
        let name: String = a.name.chars().take(34).collect();
        println!(
            "{:<34} {:<8} {:<6} {:>9} {:>9} {:>8} {:>10} {:>9} {:>5} {:>7}",
            name,
            a.backend,
            a.device_type.chars().take(6).collect::<String>(),
            yes(a.render_f32),
            yes(a.blend_f32),
            yes(a.compute),
            yes(a.timestamps),
            yes(a.subgroups),
            yes(a.shader_f16),
            yes(a.cooperative_matrix),
        );
    }
    println!(
        "f32 pass / f32 blend: render passes into R32Float and Rgba32Float (hall-blocked, hall-packed, frag-mrt) / blending into them (lm, --accumulate blend); tensor: cooperative matrices"
    );
    Ok(())
}
