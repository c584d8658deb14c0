//! How the FMA ceilings' shader was chosen: variants of the FMA microbenchmark (independent
//! chains, vec4 or scalar, operands constant or from a uniform, the step, the loop body unrolled,
//! the module compiled with or without wgpu's loop bounding, workgroup size), each timed by
//! the wall clock around one large dispatch or full-screen draw after a warm-up.
//!
//! ```text
//! cargo run --release --example fma_variants -- [compute|fragment|both|operands]
//! ```
//!
//! `shaders/ceilings.wgsl` holds the variant that came out fastest on the H100 (16 vec4 chains,
//! x·x + a, four steps per loop iteration, compiled without loop bounding);
//! docs/performance.md has the table.
//!
//! `operands` times the same chains with one, two and three register operands per FMA (x·x + a,
//! y·x + a, y·z + x, each chain reading its neighbours') and a matmul's own form, a register
//! block of sums c += a·b, in both stages: the FMA peak is a rate of one-register FMAs, and a
//! matmul's multiply-adds read three (docs/frag-mrt.md, "What bounds it").

use rendermm::gpu::GpuContext;
use std::time::Instant;

/// One FMA step of a chain: `x = fma(x, m, a)` (multiplier and addend apart), `x = fma(x, x, a)`
/// (the chain squared plus a constant: one register read) or `x = fma(x, m, x)`; or, chain c
/// reading its neighbours (c + 1, c + 2 modulo the chains), `x = fma(y, x, a)` (two registers)
/// or `x = fma(y, z, x)` (three); or `Outer`: a matmul's step, 4·chains sums c[r] += a[r]·b
/// (an f32 of `a` times a vec4 `b`, as frag-mrt's `c += a.x * b`) with `a` (chains/4 vec4s) and
/// `b` moved on by one x·x + a step each, so nothing can be hoisted out of the loop.
#[derive(Clone, Copy)]
enum Step {
    MulAdd,
    Square,
    SelfAdd,
    Cross2,
    Cross3,
    Outer,
}

/// A variant: `chains` independent accumulators (`vec4f` or `f32`), the step, the operands from
/// constants or the uniform, the workgroup size, the loop body repeated `unroll` times, and
/// whether the module is compiled with wgpu's loop bounding and bounds checks off (`trusted`).
#[derive(Clone, Copy)]
struct Variant {
    chains: usize,
    vec4: bool,
    uniform: bool,
    step: Step,
    wg: u32,
    unroll: u32,
    trusted: bool,
    lanes: bool,
}

impl Variant {
    const fn base(chains: usize, vec4: bool, uniform: bool, wg: u32) -> Self {
        Variant {
            chains,
            vec4,
            uniform,
            step: Step::MulAdd,
            wg,
            unroll: 1,
            trusted: false,
            lanes: false,
        }
    }
    const fn with(self, step: Step, unroll: u32, trusted: bool) -> Self {
        Variant {
            step,
            unroll,
            trusted,
            ..self
        }
    }
    fn label(&self) -> String {
        let step = match self.step {
            Step::MulAdd => "x*m+a",
            Step::Square => "x*x+a",
            Step::SelfAdd => "x*m+x",
            Step::Cross2 => "y*x+a",
            Step::Cross3 => "y*z+x",
            Step::Outer => "c+=a*b",
        };
        format!(
            "{} {:>3} {:<5} {:<7} {step} u{} {}{}",
            self.wg,
            self.chains,
            if self.vec4 { "vec4" } else { "f32" },
            if self.uniform { "uniform" } else { "const" },
            self.unroll,
            if self.trusted { "trusted" } else { "checked" },
            if self.lanes { " lanes" } else { "" }
        )
    }
}

/// The WGSL function `chains` of a variant and the flops of one loop iteration per invocation.
fn chains_fn(v: &Variant) -> (String, f64) {
    let ty = if v.vec4 { "vec4f" } else { "f32" };
    let (m, a) = if v.uniform {
        (format!("{ty}(p.mul)"), format!("{ty}(p.add)"))
    } else if v.vec4 {
        (
            "vec4f(0.9999, 1.0001, 0.99995, 1.00005)".into(),
            "vec4f(1e-7)".into(),
        )
    } else {
        ("0.9999".into(), "1e-7".into())
    };
    // With `lanes`, the four lanes of a vec4 start apart: lanes the compiler could prove equal
    // it might compute once.
    let lanes = if v.lanes && v.vec4 {
        " + vec4f(0.0, 0.25, 0.5, 0.75)"
    } else {
        ""
    };
    let mut s = format!(
        "fn chains(start0: {ty}) -> f32 {{\n let start = start0{lanes};\n let m = {m}; let a = {a};\n"
    );
    if let Step::Outer = v.step {
        return outer_fn(v, s);
    }
    for c in 0..v.chains {
        // Square steps need |x| < 1 to stay finite: start near zero. y·z + x grows by the
        // product each step: starting near 1e-5 it grows about 1 % over 1024 steps and stays
        // a normal float.
        match v.step {
            Step::Square => s += &format!(" var x{c} = start * 1e-3 + {ty}({c}.0 * 1e-3);\n"),
            Step::Cross2 => s += &format!(" var x{c} = fract(start) * 0.5 + {ty}({c}.0 * 0.01);\n"),
            Step::Cross3 => {
                s += &format!(" var x{c} = (fract(start) + {ty}(1.0 + {c}.0 * 0.01)) * 1e-5;\n")
            }
            _ => s += &format!(" var x{c} = start + {ty}({c}.0);\n"),
        }
    }
    s += &format!(
        " for (var i = 0u; i < p.iterations / {}u; i++) {{\n",
        v.unroll
    );
    let n = v.chains;
    for _ in 0..v.unroll {
        // Chains that read their neighbours read this step's values (`let` copies), so the
        // order of the lines does not chain them within a step.
        if matches!(v.step, Step::Cross2 | Step::Cross3) {
            s += "  { ";
            for c in 0..n {
                s += &format!("let y{c} = x{c}; ");
            }
            s += "\n";
        }
        for c in 0..n {
            let (c1, c2) = ((c + 1) % n, (c + 2) % n);
            s += &match v.step {
                Step::MulAdd => format!("  x{c} = fma(x{c}, m, a);\n"),
                Step::Square => format!("  x{c} = fma(x{c}, x{c}, a);\n"),
                Step::SelfAdd => format!("  x{c} = fma(x{c}, m, x{c});\n"),
                Step::Cross2 => format!("  x{c} = fma(y{c1}, y{c}, a);\n"),
                Step::Cross3 => format!("  x{c} = fma(y{c1}, y{c2}, y{c});\n"),
                Step::Outer => unreachable!(),
            };
        }
        if matches!(v.step, Step::Cross2 | Step::Cross3) {
            s += "  }\n";
        }
    }
    s += " }\n var s = x0;\n";
    for c in 1..v.chains {
        s += &format!(" s += x{c};\n");
    }
    s += if v.vec4 {
        " return s.x + s.y + s.z + s.w;\n}\n"
    } else {
        " return s;\n}\n"
    };
    let flops = v.chains as f64 * if v.vec4 { 8.0 } else { 2.0 };
    (s, flops)
}

/// `Outer` (vec4 only): `v.chains` vec4 sums c{r} += a{r / 4}[r % 4] · b, then a and b one x·x + a
/// step on; the flops count both.
fn outer_fn(v: &Variant, mut s: String) -> (String, f64) {
    let (rows, av) = (v.chains, v.chains / 4);
    for q in 0..av {
        s += &format!(" var a{q} = fract(start + vec4f({q}.0 * 0.1)) * 0.5;\n");
    }
    s += " var b = fract(start.yzwx) * 0.5;\n";
    for r in 0..rows {
        s += &format!(" var c{r} = vec4f(0.0);\n");
    }
    s += &format!(
        " for (var i = 0u; i < p.iterations / {}u; i++) {{\n",
        v.unroll
    );
    let lanes = ["x", "y", "z", "w"];
    for _ in 0..v.unroll {
        for r in 0..rows {
            s += &format!(
                "  c{r} = fma(vec4f(a{}.{}), b, c{r});\n",
                r / 4,
                lanes[r % 4]
            );
        }
        for q in 0..av {
            s += &format!("  a{q} = fma(a{q}, a{q}, a);\n");
        }
        s += "  b = fma(b, b, a);\n";
    }
    s += " }\n var s = c0;\n";
    for r in 1..rows {
        s += &format!(" s += c{r};\n");
    }
    s += " return s.x + s.y + s.z + s.w;\n}\n";
    ((s), (rows + av + 1) as f64 * 8.0)
}

/// Compile a variant's module, with wgpu's runtime checks off when it is `trusted`.
fn module(
    ctx: &GpuContext,
    v: &Variant,
    src: &str,
) -> Result<wgpu::ShaderModule, Box<dyn std::error::Error>> {
    Ok(if v.trusted {
        // SAFETY: the only index is `sink[g.x]`, inside the sink sized for the dispatch, and
        // the only loop ends after `p.iterations / unroll` steps.
        unsafe { ctx.shader_trusted("fma variant (trusted)", src)? }
    } else {
        ctx.shader("fma variant", src)?
    })
}

const HEAD: &str = "struct P { iterations: u32, seed: f32, mul: f32, add: f32 };
@group(0) @binding(0) var<uniform> p: P;
@vertex fn vs(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {
  let x = f32((vi << 1u) & 2u) * 2.0 - 1.0; let y = f32(vi & 2u) * 2.0 - 1.0;
  return vec4f(x, y, 0.0, 1.0);
}
";

/// The first variants of both stages: `v` as it is, then x·m + a and x·x + a, one and four steps
/// per loop iteration, compiled without loop bounding.
fn step_variants(v: Variant) -> Vec<Variant> {
    vec![
        v,
        v.with(Step::MulAdd, 1, true),
        v.with(Step::MulAdd, 4, true),
        v.with(Step::Square, 1, true),
        v.with(Step::Square, 4, true),
    ]
}

/// The `operands` list: 16 vec4 chains, four steps per loop iteration, trusted, with one, two
/// and three register operands per FMA; then the matmul form with 32 and 64 sums.
fn operand_variants(wg: u32) -> Vec<Variant> {
    let v = Variant {
        lanes: true,
        ..Variant::base(16, true, false, wg)
    };
    vec![
        v.with(Step::Square, 4, true),
        v.with(Step::Cross2, 4, true),
        v.with(Step::Cross3, 4, true),
        Variant { chains: 8, ..v }.with(Step::Outer, 4, true),
        v.with(Step::Outer, 4, true),
    ]
}

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
        "{:<10} {:<44} {:>10} {:>11}",
        "kind", "wg chains type operands step unroll checks", "ms", "GFLOP/s"
    );
    // Wall clock around one submission after a warm-up, and the GPU timestamps around a
    // second (the clock the ceilings use, written in one submission with the work), printed
    // beside each other.
    let time = |f: &dyn Fn() -> wgpu::CommandBuffer| -> f64 {
        q.submit([f()]);
        let _ = d.poll(wgpu::PollType::wait_indefinitely());
        let t = Instant::now();
        q.submit([f()]);
        let _ = d.poll(wgpu::PollType::wait_indefinitely());
        let wall = t.elapsed().as_secs_f64() * 1e3;
        let work = f();
        let (gpu, clock) = rendermm::gpu::timer::Span::begin(&ctx)
            .and_then(|s| s.end_with(&ctx, [work]))
            .expect("span");
        println!("           wall {wall:.3} ms, {clock:?} {gpu:.3} ms");
        wall
    };
    let operands = which == "operands";
    if which != "fragment" {
        let groups: u32 = if iters < 100 { 256 } else { 65535 };
        let list = if operands {
            operand_variants(256)
        } else {
            let v = Variant::base(32, true, false, 256);
            let mut list = step_variants(v);
            list.extend([
                v.with(Step::SelfAdd, 4, true),
                Variant::base(16, true, false, 256).with(Step::Square, 4, true),
                Variant::base(16, true, false, 128).with(Step::Square, 8, true),
                Variant::base(32, true, false, 128).with(Step::Square, 4, true),
                Variant::base(128, false, false, 256).with(Step::Square, 4, true),
            ]);
            list
        };
        for v in list {
            let (vec4, wg) = (v.vec4, v.wg);
            let (body, flops) = chains_fn(&v);
            let src = format!(
                "{HEAD}{body}@group(0) @binding(1) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size({wg}) fn cs(@builtin(global_invocation_id) g: vec3u) {{
  sink[g.x] = chains({}(f32(g.x) * p.seed));
}}",
                if vec4 { "vec4f" } else { "f32" }
            );
            let module = module(&ctx, &v, &src)?;
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
                e.finish()
            });
            let total = groups_now as f64 * wg as f64 * iters as f64 * flops;
            println!(
                "{:<10} {:<44} {:>10.3} {:>11.1}",
                "compute",
                v.label(),
                ms,
                total / ms / 1e6
            );
        }
    }
    if which != "compute" {
        let side: u32 = if iters < 100 { 512 } else { 4096 };
        let format = wgpu::TextureFormat::R32Float;
        let list = if operands {
            operand_variants(0)
        } else {
            let mut list = step_variants(Variant::base(32, true, false, 0));
            list.extend([
                Variant::base(16, true, false, 0).with(Step::Square, 4, true),
                Variant::base(8, true, false, 0).with(Step::Square, 8, true),
            ]);
            list
        };
        for v in list {
            let vec4 = v.vec4;
            let (body, flops) = chains_fn(&v);
            let src = format!("{HEAD}{body}@fragment fn fs(@builtin(position) pos: vec4f) -> @location(0) vec4f {{
  return vec4f(chains({}(pos.x * p.seed + pos.y)), 0.0, 0.0, 1.0);
}}", if vec4 { "vec4f" } else { "f32" });
            let module = module(&ctx, &v, &src)?;
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
                e.finish()
            });
            let total = side as f64 * side as f64 * iters as f64 * flops;
            println!(
                "{:<10} {:<44} {:>10.3} {:>11.1}",
                "fragment",
                v.label(),
                ms,
                total / ms / 1e6
            );
        }
    }
    Ok(())
}
