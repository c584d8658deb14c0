//! How the FMA ceilings' shader was chosen: variants of the FMA microbenchmark (independent
//! chains, vec4 or scalar, operands constant or from a uniform, workgroup size), each timed by
//! the wall clock around one large dispatch or full-screen draw after a warm-up.
//!
//! ```text
//! cargo run --release --example fma_variants -- [compute|fragment|both]
//! ```
//!
//! `shaders/ceilings.wgsl` holds the variant that came out fastest on the H100;
//! docs/performance.md has the table.

use rendermm::gpu::GpuContext;
use std::time::Instant;

/// A WGSL body of `chains` independent accumulators (`vec4f` or `f32`) doing `iters` FMA steps;
/// `from_uniform`: the multiplier and addend come from the uniform rather than constants.
fn chains_fn(chains: usize, vec4: bool, from_uniform: bool) -> (String, f64) {
    let ty = if vec4 { "vec4f" } else { "f32" };
    let (m, a) = if from_uniform {
        (format!("{ty}(p.mul)"), format!("{ty}(p.add)"))
    } else if vec4 {
        (
            "vec4f(0.9999, 1.0001, 0.99995, 1.00005)".into(),
            "vec4f(1e-7)".into(),
        )
    } else {
        ("0.9999".into(), "1e-7".into())
    };
    let mut s = format!("fn chains(start: {ty}) -> f32 {{\n let m = {m}; let a = {a};\n");
    for c in 0..chains {
        s += &format!(" var x{c} = start + {ty}({c}.0);\n");
    }
    s += " for (var i = 0u; i < p.iterations; i++) {\n";
    for c in 0..chains {
        s += &format!("  x{c} = fma(x{c}, m, a);\n");
    }
    s += " }\n var s = x0;\n";
    for c in 1..chains {
        s += &format!(" s += x{c};\n");
    }
    s += if vec4 {
        " return s.x + s.y + s.z + s.w;\n}\n"
    } else {
        " return s;\n}\n"
    };
    let flops = chains as f64 * if vec4 { 8.0 } else { 2.0 };
    (s, flops)
}

const HEAD: &str = "struct P { iterations: u32, seed: f32, mul: f32, add: f32 };
@group(0) @binding(0) var<uniform> p: P;
@vertex fn vs(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let x = f32((vi << 1u) & 2u) * 2.0 - 1.0; let y = f32(vi & 2u) * 2.0 - 1.0;
  return vec4f(x, y, 0.0, 1.0);
}
";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_else(|| "both".into());
    let ctx = GpuContext::new()?;
    println!("{}", ctx.describe());
    let (d, q) = (&ctx.device, &ctx.queue);
    let iters: u32 = if ctx.info.device_type == wgpu::DeviceType::Cpu {
        8
    } else {
        1024
    };
    let params = d.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    q.write_buffer(
        &params,
        0,
        bytemuck::cast_slice(&[
            iters,
            1f32.to_bits(),
            0.9999f32.to_bits(),
            1e-7f32.to_bits(),
        ]),
    );
    println!(
        "{:<10} {:>6} {:>5} {:>8} {:>5} {:>10} {:>11}",
        "kind", "chains", "vec4", "operands", "wg", "ms", "GFLOP/s"
    );
    // Wall clock around one submission after a warm-up, and the GPU timestamps around a
    // second (the clock the ceilings use), printed beside each other.
    let time = |f: &dyn Fn()| -> f64 {
        f();
        let _ = d.poll(wgpu::PollType::wait_indefinitely());
        let t = Instant::now();
        f();
        let _ = d.poll(wgpu::PollType::wait_indefinitely());
        let wall = t.elapsed().as_secs_f64() * 1e3;
        let span = rendermm::gpu::timer::Span::begin(&ctx).expect("span");
        f();
        let (gpu, clock) = span.end(&ctx).expect("span");
        println!("           wall {wall:.3} ms, {clock:?} {gpu:.3} ms");
        wall
    };
    if which != "fragment" {
        let groups: u32 = if iters < 100 { 256 } else { 65535 };
        for &(chains, vec4, uni, wg) in &[
            (16, true, false, 256),
            (16, true, true, 256),
            (64, false, false, 256),
            (64, false, true, 256),
            (8, true, false, 256),
            (32, true, false, 256),
            (16, true, false, 128),
            (16, true, false, 512),
            (16, true, false, 1024),
            (32, false, true, 256),
            (128, false, true, 256),
        ] {
            let (body, flops) = chains_fn(chains, vec4, uni);
            let src = format!(
                "{HEAD}{body}@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size({wg}) fn cs(@builtin(global_invocation_id) g: vec3u) {{
  sink[g.x] = chains({}(f32(g.x) * p.seed));
}}",
                if vec4 { "vec4f" } else { "f32" }
            );
            let module = ctx.shader("fma variant", &src)?;
            let n = groups as u64 * wg as u64;
            let sink = d.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: n * 4,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            });
            let pl = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("cs"),
                compilation_options: Default::default(),
                cache: None,
            });
            let bg = d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pl.get_bind_group_layout(0),
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: sink.as_entire_binding(),
                    },
                ],
            });
            let groups_now = (groups as u64 * 256 / wg as u64).min(65535) as u32;
            let ms = time(&|| {
                let mut e = d.create_command_encoder(&Default::default());
                {
                    let mut pass = e.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&pl);
                    pass.set_bind_group(0, &bg, &[]);
                    pass.dispatch_workgroups(groups_now, 1, 1);
                }
                q.submit([e.finish()]);
            });
            let total = groups_now as f64 * wg as f64 * iters as f64 * flops;
            println!(
                "{:<10} {:>6} {:>5} {:>8} {:>5} {:>10.3} {:>11.1}",
                "compute",
                chains,
                vec4,
                if uni { "uniform" } else { "const" },
                wg,
                ms,
                total / ms / 1e6
            );
        }
    }
    if which != "compute" {
        let side: u32 = if iters < 100 { 512 } else { 4096 };
        for &(chains, vec4, uni, format) in &[
            (16, true, false, wgpu::TextureFormat::R32Float),
            (16, true, true, wgpu::TextureFormat::R32Float),
            (64, false, true, wgpu::TextureFormat::R32Float),
            (32, true, false, wgpu::TextureFormat::R32Float),
            (16, true, false, wgpu::TextureFormat::Rgba8Unorm),
            (8, true, false, wgpu::TextureFormat::R32Float),
        ] {
            let (body, flops) = chains_fn(chains, vec4, uni);
            let src = format!("{HEAD}{body}@fragment fn fs(@builtin(position) pos: vec4f) -> @location(0) vec4f {{
  return vec4f(chains({}(pos.x * p.seed + pos.y)), 0.0, 0.0, 1.0);
}}", if vec4 { "vec4f" } else { "f32" });
            let module = ctx.shader("fma variant", &src)?;
            let target = d.create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: side,
                    height: side,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                view_formats: &[],
            });
            let view = target.create_view(&Default::default());
            let pl = rendermm::gpu::pipeline::fullscreen(
                d,
                "fma",
                None,
                &module,
                "vs",
                wgpu::PrimitiveTopology::TriangleList,
                "fs",
                &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            );
            let bg = d.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pl.get_bind_group_layout(0),
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: params.as_entire_binding(),
                }],
            });
            let ms = time(&|| {
                let mut e = d.create_command_encoder(&Default::default());
                {
                    let mut pass =
                        rendermm::gpu::pipeline::color_pass(&mut e, "fma", &[&view], true);
                    pass.set_pipeline(&pl);
                    pass.set_bind_group(0, &bg, &[]);
                    pass.draw(0..3, 0..1);
                }
                q.submit([e.finish()]);
            });
            let total = side as f64 * side as f64 * iters as f64 * flops;
            println!(
                "{:<10} {:>6} {:>5} {:>8} {:>5} {:>10.3} {:>11.1}",
                "fragment",
                chains,
                vec4,
                if uni { "uniform" } else { "const" },
                format!("{format:?}").chars().take(5).collect::<String>(),
                ms,
                total / ms / 1e6
            );
        }
    }
    Ok(())
}
