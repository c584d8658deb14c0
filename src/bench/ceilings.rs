//! The hardware's own ceilings, measured on the current adapter (`rendermm bench --ceilings`):
//! fragment-shader FMA rate, compute-shader FMA rate, the tensor cores' multiply-add rate through
//! cooperative matrices (where the adapter runs `coop`), additive-blend rate into `R32Float` (the
//! bound of Larsen–McAllister), texture fetch rate, and buffer copy bandwidth (device to device,
//! host to device, device to host). Each is the best of a few timed runs after a warm-up.
//! Shaders: `shaders/ceilings.wgsl`, and `shaders/ceiling_mma.wgsl` for the tensor cores.

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::submit::{submit, submit_and_wait};
use crate::gpu::timer::{Clock, Span};
use serde::{Deserialize, Serialize};

mod bandwidth;

use bandwidth::{Copy, copy_bandwidth};

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/ceilings.wgsl"));
/// The tensor-core ceiling's shader, apart because it needs `enable wgpu_cooperative_matrix`.
const SHADER_MMA: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/ceiling_mma.wgsl"));

/// Flops per step of `cs_mma` per subgroup: 16 multiply-adds of 16×16×16 fragments.
const MMA_FLOPS_PER_STEP: f64 = 16.0 * 2.0 * 16.0 * 16.0 * 16.0;
/// Subgroups per `cs_mma` workgroup (128 invocations, subgroups of 32).
const MMA_SUBGROUPS: u32 = 4;

/// Flops per step of `fma_chains` in the shader (one FMA on each of 16 vec4 chains); its
/// `iterations` (steps) must be a multiple of 4, the steps in its loop body.
const FLOPS_PER_ITERATION: f64 = 16.0 * 4.0 * 2.0;

/// The ceilings' shader module, compiled without wgpu's runtime checks: its loop bounding held
/// the FMA loops to 0.85 (compute) and 0.89 (fragment) of the H100's theoretical rates.
fn module(ctx: &GpuContext) -> Result<wgpu::ShaderModule> {
    // SAFETY: the shader's only indices are `sink[gid.x]`, inside the sink `dispatch_fma` sizes
    // at 256 words per workgroup dispatched, and the fetch shaders' texel coordinates, each
    // masked with the texture's size less one (so below it); its loops run `params.iterations`
    // steps (by 4 in `fma_chains` and the fetch loops, whose callers pass multiples of 4) and
    // end.
    unsafe { ctx.shader_trusted("ceilings.wgsl", SHADER) }
}

/// One measured ceiling.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ceiling {
    /// Short name: `fragment-fma` (GFLOP/s), `compute-fma` (GFLOP/s), `tensor-mma` (GFLOP/s),
    /// `blend-r32f` (Gfragments/s), `texture-fetch` (GB/s), `copy-d2d`, `copy-h2d`, `copy-d2h`
    /// (GB/s).
    pub name: String,
    /// The rate, in `unit`.
    pub value: f64,
    pub unit: String,
    /// How it was measured (work size, repeats).
    pub detail: String,
    pub clock: Clock,
    /// The hardware's theoretical rate in `unit` where it is known for this adapter
    /// ([`theoretical`]), printed beside the measured one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theoretical: Option<f64>,
    /// Where the theoretical figure comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theoretical_source: Option<String>,
}

/// The theoretical rate of ceiling `name` on the adapter called `adapter`, and its source, where
/// known. NVIDIA H100 SXM5 (the adapter the project measures on): 132 SMs × 128 FP32 lanes × 2
/// flops × 1.98 GHz boost = 66.9 TFLOP/s FP32 (NVIDIA H100 Tensor Core GPU Architecture
/// whitepaper, 2022, table 3); 132 SMs × 4 tensor cores × 512 f16 multiply-adds per clock × 2
/// flops × 1.83 GHz = 989.4 TFLOP/s dense FP16 with FP32 accumulation (same whitepaper), reached
/// through `wgmma`, which Vulkan's cooperative matrices do not expose; HBM3 3.35 TB/s (same
/// table); pixel shaders on 4 SMs (a
/// hypothesis the measurements fit) for the fragment rate; PCIe Gen5 x16, 64 GB/s each way
/// before protocol overhead (PCI-SIG PCIe 5.0 specification, 32 GT/s × 16 lanes, 128b/130b).
/// No figure for texture fetch: NVIDIA publishes no texel rate for `textureLoad` on the H100, and
/// the one this project once derived (4 texture units × 4 bytes per clock on each of 4 SMs,
/// 127 GB/s) the measurement passed (165 GB/s) once its shader lost an integer modulo.
pub fn theoretical(adapter: &str, name: &str) -> Option<(f64, &'static str)> {
    if !adapter.contains("H100") {
        return None;
    }
    const FP32: &str = "132 SMs x 128 FP32 lanes x 2 flops x 1.98 GHz (NVIDIA H100 architecture whitepaper, table 3)";
    const PCIE: &str = "PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 (PCIe 5.0 specification)";
    const TENSOR: &str = "132 SMs x 4 tensor cores x 512 f16 FMAs per clock x 2 flops x 1.83 GHz: 989.4 TFLOP/s dense FP16 with FP32 accumulate (NVIDIA H100 architecture whitepaper); Hopper reaches it through its asynchronous warpgroup MMA (wgmma), which Vulkan does not expose";
    const FRAG: &str = "4 SMs x 128 FP32 lanes x 2 flops x 1.98 GHz: pixel shaders on 4 of the 132 SMs, the hypothesis the measured fragment/compute ratio fits (docs/performance.md), not a published figure";
    match name {
        "compute-fma" => Some((66_908.0, FP32)),
        "tensor-mma" => Some((989_400.0, TENSOR)),
        "fragment-fma" => Some((4.0 * 128.0 * 2.0 * 1.98, FRAG)),
        "copy-d2d" => Some((
            3_350.0 / 2.0,
            "HBM3 3.35 TB/s, each byte read once and written once",
        )),
        "copy-h2d" | "copy-d2h" => Some((63.0, PCIE)),
        _ => None,
    }
}

/// All ceilings of one adapter.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Ceilings {
    pub adapter: String,
    pub backend: String,
    pub ceilings: Vec<Ceiling>,
}

impl Ceilings {
    /// The value of the ceiling named `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.ceilings
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.value)
    }
}

/// Work sizes: small on a software rasterizer, large on a real GPU.
struct Sizes {
    side: u32,
    fma_iterations: u32,
    blend_layers: u32,
    fetch_iterations: u32,
    mma_iterations: u32,
    copy_bytes: u64,
    repeats: usize,
}

fn sizes(ctx: &GpuContext, quick: bool) -> Sizes {
    let software = ctx.info.device_type == wgpu::DeviceType::Cpu;
    let mut s = if software || quick {
        Sizes {
            side: 512,
            fma_iterations: 32,
            blend_layers: 16,
            fetch_iterations: 32,
            // Only adapters with tensor cores measure it, where 256 steps take about 2 ms;
            // fewer left the launch in the figure (0.29 of the theoretical rate at 16 steps).
            mma_iterations: 256,
            copy_bytes: 16 << 20,
            repeats: 3,
        }
    } else {
        Sizes {
            side: 4096,
            fma_iterations: 512,
            blend_layers: 256,
            fetch_iterations: 256,
            mma_iterations: 256,
            copy_bytes: 512 << 20,
            repeats: 5,
        }
    };
    s.side = s.side.min(ctx.limits.max_texture_dimension_2d);
    s.copy_bytes = s.copy_bytes.min(ctx.limits.max_buffer_size / 2) & !255;
    s
}

/// Measure every ceiling. `quick` uses the small sizes on any adapter.
pub fn measure(ctx: &GpuContext, quick: bool) -> Result<Ceilings> {
    let s = sizes(ctx, quick);
    let module = module(ctx)?;
    let mut out = vec![];
    arithmetic(ctx, &module, &s, &mut out)?;
    if ctx.has(wgpu::Features::FLOAT32_BLENDABLE) {
        out.push(blend(ctx, &module, &s)?);
    }
    texture_fetch(ctx, &module, &s, &mut out)?;
    copies(ctx, &s, &mut out)?;
    for c in &mut out {
        if let Some((v, src)) = theoretical(&ctx.info.name, &c.name) {
            c.theoretical = Some(v);
            c.theoretical_source = Some(src.into());
        }
    }
    Ok(Ceilings {
        adapter: ctx.info.name.clone(),
        backend: format!("{:?}", ctx.info.backend),
        ceilings: out,
    })
}

/// The arithmetic ceilings: fragment and compute FMA chains, and the tensor cores where the
/// adapter runs `coop`.
fn arithmetic(
    ctx: &GpuContext,
    module: &wgpu::ShaderModule,
    s: &Sizes,
    out: &mut Vec<Ceiling>,
) -> Result<()> {
    // Fragment FMA: side² fragments × iterations × 128 flops (16 vec4 FMA chains).
    let fragments = s.side as f64 * s.side as f64;
    let flops = fragments * s.fma_iterations as f64 * FLOPS_PER_ITERATION;
    let params = params_buffer(ctx, s.fma_iterations);
    let draw = draw_covering(
        ctx, module, "fs_fma", &params, None, s.side, 1, false, false,
    )?;
    let (ms, clock) = best(ctx, s.repeats, &draw)?;
    out.push(ceiling(
        "fragment-fma",
        flops / ms / 1e6,
        "GFLOP/s",
        format!(
            "{0}x{0} fragments x {1} iterations x {FLOPS_PER_ITERATION} flops",
            s.side, s.fma_iterations
        ),
        clock,
    ));

    // Compute FMA: the same work in 256-wide workgroups.
    let groups = ((fragments as u64) / 256)
        .clamp(1, ctx.limits.max_compute_workgroups_per_dimension as u64) as u32;
    let invocations = groups as f64 * 256.0;
    let dispatch = dispatch_fma(ctx, module, &params, groups)?;
    let (ms, clock) = best(ctx, s.repeats, &dispatch)?;
    out.push(ceiling(
        "compute-fma",
        invocations * s.fma_iterations as f64 * FLOPS_PER_ITERATION / ms / 1e6,
        "GFLOP/s",
        format!(
            "{groups} workgroups x 256 invocations x {} iterations x {FLOPS_PER_ITERATION} flops",
            s.fma_iterations
        ),
        clock,
    ));

    // Tensor cores, where the adapter runs `coop`: its fragments multiplied and added in
    // registers, no memory in the way.
    if crate::methods::coop::supported(ctx).is_ok() {
        let groups = 8192u32.min(ctx.limits.max_compute_workgroups_per_dimension);
        let params = params_buffer(ctx, s.mma_iterations);
        let dispatch = dispatch_mma(ctx, &params, groups)?;
        let (ms, clock) = best(ctx, s.repeats, &dispatch)?;
        let flops =
            groups as f64 * MMA_SUBGROUPS as f64 * s.mma_iterations as f64 * MMA_FLOPS_PER_STEP;
        out.push(ceiling(
            "tensor-mma",
            flops / ms / 1e6,
            "GFLOP/s",
            format!(
                "{groups} workgroups x {MMA_SUBGROUPS} subgroups x {} steps x 16 multiply-adds of 16x16x16 f16 fragments into f32 (cooperative matrices, as coop), operands in registers",
                s.mma_iterations
            ),
            clock,
        ));
    }
    Ok(())
}

/// Additive blend into R32Float: side² fragments per layer, `blend_layers` layers, at the full
/// side and at a half and a quarter of it with 4 and 16 times the layers (the same fragments),
/// each drawn as one full-screen triangle and as a two-triangle strip (as `lm` draws): the rate
/// depends on whether the target stays in cache (a 2048² R32Float target is 16 MiB, inside the
/// H100's 50 MB L2; 4096² is not) and a little on the primitive, and the ceiling is the best.
fn blend(ctx: &GpuContext, module: &wgpu::ShaderModule, s: &Sizes) -> Result<Ceiling> {
    let params = params_buffer(ctx, 1);
    let mut tried = vec![];
    let mut top: Option<(f64, u32, u32, &str, Clock)> = None;
    for shrink in [1u32, 2, 4] {
        for quad in [false, true] {
            let side = (s.side / shrink).max(1);
            let layers = s.blend_layers * shrink * shrink;
            let draw = draw_covering(
                ctx, module, "fs_blend", &params, None, side, layers, true, quad,
            )?;
            let (ms, clock) = best(ctx, s.repeats, &draw)?;
            let rate = side as f64 * side as f64 * layers as f64 / ms / 1e6;
            let shape = if quad { "strip" } else { "triangle" };
            tried.push(format!("{side}² {shape} {rate:.2}"));
            if top.is_none_or(|t| rate > t.0) {
                top = Some((rate, side, layers, shape, clock));
            }
        }
    }
    let (rate, side, layers, shape, clock) =
        top.ok_or_else(|| Error::Internal("the blend-rate ceiling tried no configuration".into()))?;
    Ok(ceiling(
        "blend-r32f",
        rate,
        "Gfragments/s",
        format!(
            "{side}x{side} fragments x {layers} blended layers ({shape}), the best of three target sizes and two primitives (Gfragments/s: {})",
            tried.join(", ")
        ),
        clock,
    ))
}

/// The texture-fetch ceilings of R32Float and RGBA32Float texels.
fn texture_fetch(
    ctx: &GpuContext,
    module: &wgpu::ShaderModule,
    s: &Sizes,
    out: &mut Vec<Ceiling>,
) -> Result<()> {
    let fragments = s.side as f64 * s.side as f64;
    // Texture fetch: `fetch_iterations` loads per fragment, R32Float (4 bytes) and RGBA32Float
    // (16 bytes, the texel of frag-mrt and hall-packed).
    // A power of two: the fetch shaders wrap their walk with a mask.
    let tex_side = prev_power_of_two((s.side / 2).max(64));
    let params = params_buffer(ctx, s.fetch_iterations);
    for (name, entry, format, bytes) in [
        (
            "texture-fetch",
            "fs_fetch",
            wgpu::TextureFormat::R32Float,
            4.0,
        ),
        (
            "texture-fetch-rgba32f",
            "fs_fetch_rgba",
            wgpu::TextureFormat::Rgba32Float,
            16.0,
        ),
    ] {
        let tex = ctx.scoped("creating the fetch texture", || {
            Ok(ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("fetch source"),
                size: wgpu::Extent3d {
                    width: tex_side,
                    height: tex_side,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            }))
        })?;
        let view = tex.create_view(&Default::default());
        let draw = draw_covering(
            ctx,
            module,
            entry,
            &params,
            Some(&view),
            s.side,
            1,
            false,
            false,
        )?;
        let (ms, clock) = best(ctx, s.repeats, &draw)?;
        out.push(ceiling(
            name,
            fragments * s.fetch_iterations as f64 * bytes / ms / 1e6,
            "GB/s",
            format!(
                "{0}x{0} fragments x {1} {format:?} loads ({bytes} bytes)",
                s.side, s.fetch_iterations
            ),
            clock,
        ));
    }
    Ok(())
}

/// The copy ceilings: device to device, host to device and device to host.
fn copies(ctx: &GpuContext, s: &Sizes, out: &mut Vec<Ceiling>) -> Result<()> {
    // Copies: on the device; host to device the best way wgpu allows here; device to host
    // until the bytes are in host memory.
    let (ms, clock) = copy_bandwidth(ctx, Copy::DeviceToDevice, s.copy_bytes, s.repeats)?;
    out.push(ceiling(
        "copy-d2d",
        s.copy_bytes as f64 / ms / 1e6,
        "GB/s",
        format!("{} MiB buffer to buffer", s.copy_bytes >> 20),
        clock,
    ));
    let gbps = |ms: f64| s.copy_bytes as f64 / ms / 1e6;
    let (queue_ms, _) = copy_bandwidth(ctx, Copy::QueueWrite, s.copy_bytes, s.repeats)?;
    let (staged_ms, clock) = copy_bandwidth(ctx, Copy::Staged, s.copy_bytes, s.repeats)?;
    out.push(ceiling(
        "copy-h2d",
        gbps(queue_ms.min(staged_ms)),
        "GB/s",
        format!(
            "{} MiB host memory to a device buffer, the faster of Queue::write_buffer ({:.2} GB/s) and a pooled mapped staging buffer + copy ({:.2} GB/s, what rendermm's uploads do)",
            s.copy_bytes >> 20,
            gbps(queue_ms),
            gbps(staged_ms)
        ),
        clock,
    ));
    let (mapped_ms, _) = copy_bandwidth(ctx, Copy::DeviceToMapped, s.copy_bytes, s.repeats)?;
    let (host_ms, clock) = copy_bandwidth(ctx, Copy::DeviceToHost, s.copy_bytes, s.repeats)?;
    let (new_ms, _) = copy_bandwidth(ctx, Copy::DeviceToNewHost, s.copy_bytes, s.repeats)?;
    out.push(ceiling(
        "copy-d2h",
        gbps(host_ms.min(new_ms)),
        "GB/s",
        format!(
            "{} MiB device buffer into host memory: copy to a reused MAP_READ buffer, map, copy the bytes out; the faster of into memory used before ({:.2} GB/s) and into new memory as a readback does ({:.2} GB/s); the copy and map alone: {:.2} GB/s",
            s.copy_bytes >> 20,
            gbps(host_ms),
            gbps(new_ms),
            gbps(mapped_ms)
        ),
        clock,
    ));
    Ok(())
}

/// The largest power of two at most `x` (x >= 1).
fn prev_power_of_two(x: u32) -> u32 {
    1 << (31 - x.max(1).leading_zeros())
}

fn ceiling(name: &str, value: f64, unit: &str, detail: String, clock: Clock) -> Ceiling {
    Ceiling {
        name: name.into(),
        value,
        unit: unit.into(),
        detail,
        clock,
        theoretical: None,
        theoretical_source: None,
    }
}

/// Record `f`'s work and run it once to warm up, then `repeats` times; the fastest run in
/// milliseconds.
fn best(
    ctx: &GpuContext,
    repeats: usize,
    mut f: impl FnMut() -> Result<wgpu::CommandBuffer>,
) -> Result<(f64, Clock)> {
    // Only the work goes between the timestamps, in one submission with them: pipelines and
    // resources are built before (a pipeline built inside the span put its compile time into
    // the first FMA ceilings), and the work is recorded before the span begins.
    submit_and_wait(ctx, [f()?])?;
    let mut best = (f64::INFINITY, Clock::WallClock);
    for _ in 0..repeats.max(1) {
        let work = f()?;
        let (ms, clock) = Span::begin(ctx)?.end_with(ctx, [work])?;
        if ms < best.0 {
            best = (ms, clock);
        }
    }
    if best.0.is_nan() || best.0 <= 0.0 {
        return Err(Error::Invalid(
            "a ceiling measured zero time; the timer is not usable".into(),
        ));
    }
    Ok(best)
}

fn params_buffer(ctx: &GpuContext, iterations: u32) -> wgpu::Buffer {
    let bytes = [
        bytemuck::bytes_of(&iterations),
        bytemuck::bytes_of(&1.0e-7f32),
        bytemuck::bytes_of(&0u32),
        bytemuck::bytes_of(&0u32),
    ]
    .concat();
    crate::gpu::staging::create_buffer_init(
        &ctx.device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("ceiling params"),
            contents: &bytes,
            usage: wgpu::BufferUsages::UNIFORM,
        },
    )
}

/// Draw `layers` full-screen triangles with fragment entry `fs` into a side×side R32Float target,
/// or with `quad` two-triangle strips over it, as `lm` draws its slices (4 vertices, `vs_quad`).
#[allow(clippy::too_many_arguments)]
fn draw_covering<'a>(
    ctx: &'a GpuContext,
    module: &wgpu::ShaderModule,
    fs: &'a str,
    params: &wgpu::Buffer,
    texture: Option<&wgpu::TextureView>,
    side: u32,
    layers: u32,
    blend: bool,
    quad: bool,
) -> Result<impl Fn() -> Result<wgpu::CommandBuffer> + 'a> {
    let (vs, topology, vertices) = if quad {
        ("vs_quad", wgpu::PrimitiveTopology::TriangleStrip, 4)
    } else {
        ("vs_fullscreen", wgpu::PrimitiveTopology::TriangleList, 3)
    };
    let (view, pipeline, bg) = ctx.scoped(&format!("ceiling {fs}"), || {
        let target = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("ceiling target"),
            size: wgpu::Extent3d {
                width: side,
                height: side,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::R32Float,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = target.create_view(&Default::default());
        let pipeline = crate::gpu::pipeline::fullscreen(
            &ctx.device,
            fs,
            None,
            module,
            vs,
            topology,
            fs,
            &[Some(wgpu::ColorTargetState {
                format: wgpu::TextureFormat::R32Float,
                blend: blend.then_some(crate::gpu::pipeline::ADDITIVE),
                write_mask: wgpu::ColorWrites::RED,
            })],
        );
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: params.as_entire_binding(),
        }];
        if let Some(t) = texture {
            entries.push(wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(t),
            });
        }
        let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("ceiling"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        Ok((view, pipeline, bg))
    })?;
    Ok(move || {
        ctx.scoped(&format!("ceiling {fs}"), || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = crate::gpu::pipeline::color_pass(&mut enc, fs, &[&view], true);
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bg, &[]);
                pass.draw(0..vertices, 0..layers);
            }
            Ok(enc.finish())
        })
    })
}

fn dispatch_fma<'a>(
    ctx: &'a GpuContext,
    module: &wgpu::ShaderModule,
    params: &wgpu::Buffer,
    groups: u32,
) -> Result<impl Fn() -> Result<wgpu::CommandBuffer> + use<'a>> {
    let sink = ctx.scoped("ceiling cs_fma", || {
        Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("fma sink"),
            size: groups as u64 * 256 * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        }))
    })?;
    compute_dispatch(ctx, module, "cs_fma", &[params, &sink], groups)
}

/// The tensor-core dispatch: `groups` workgroups of `cs_mma` (shaders/ceiling_mma.wgsl).
fn dispatch_mma<'a>(
    ctx: &'a GpuContext,
    params: &wgpu::Buffer,
    groups: u32,
) -> Result<impl Fn() -> Result<wgpu::CommandBuffer> + use<'a>> {
    // SAFETY: the shader's only indices are fragments 0..8 of `src` (2048 f16) and 0..16 of
    // `sink` (4096 f32), the sizes made here; its loop runs `params.iterations` steps.
    let module = unsafe { ctx.shader_trusted("ceiling_mma.wgsl", SHADER_MMA) }?;
    let (src, sink) = ctx.scoped("ceiling cs_mma", || {
        let src = crate::gpu::staging::create_buffer_init(
            &ctx.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("mma src"),
                contents: bytemuck::cast_slice(&[half::f16::from_f32(0.01); 2048]),
                usage: wgpu::BufferUsages::STORAGE,
            },
        );
        let sink = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("mma sink"),
            size: 4096 * 4,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Ok((src, sink))
    })?;
    compute_dispatch(ctx, &module, "cs_mma", &[params, &src, &sink], groups)
}

/// `groups` workgroups of compute entry `entry` of `module`, with `buffers` bound at bindings
/// 0, 1, … of group 0; built now, submitted each time the closure is called.
fn compute_dispatch<'a>(
    ctx: &'a GpuContext,
    module: &wgpu::ShaderModule,
    entry: &'static str,
    buffers: &[&wgpu::Buffer],
    groups: u32,
) -> Result<impl Fn() -> Result<wgpu::CommandBuffer> + use<'a>> {
    let label = format!("ceiling {entry}");
    let (pipeline, bg) = ctx.scoped(&label, || {
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry),
                layout: None,
                module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        let entries: Vec<_> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(entry),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &entries,
        });
        Ok((pipeline, bg))
    })?;
    Ok(move || {
        ctx.scoped(&label, || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            {
                let mut pass = enc.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bg, &[]);
                pass.dispatch_workgroups(groups, 1, 1);
            }
            Ok(enc.finish())
        })
    })
}

/// A short compute-FMA dispatch (about 5 ms on the H100), timed when the guard is made and again
/// before each timed measurement, to tell whether the GPU still runs at the clock it had.
///
/// Why: the H100's clock governor drops the SM clock from 1980 MHz to 345-800 MHz a few seconds
/// into a process that leaves the GPU idle between products (host-side uploads, checks, new
/// inputs), and a kernel timed then runs 2-5× slow; whether it does depends on what ran before, so
/// a variant or a method late in a list looked slower than it is (`docs/performance.md`, the clock
/// governor). [`ClockGuard::settle`] times the dispatch and, while it runs over 1.15× its
/// reference, keeps the GPU busy with it for up to a few seconds; it returns how far from the
/// reference the clock was left, which the sweep and tune record beside their times. On the H100
/// the governor lowered the clock every ~2.8 s while a tune ran, and one settle brought it back
/// within a second; a measurement the clock fell during is taken again ([`ClockGuard::SLOW`]).
pub struct ClockGuard<'a> {
    dispatch: Box<dyn Fn() -> Result<wgpu::CommandBuffer> + 'a>,
    ctx: &'a GpuContext,
    /// The dispatch's fastest time so far: taken after a burst of it when the guard is made, and
    /// lowered whenever a later timing is faster (a reference taken at a lowered clock would
    /// make every later clock look high).
    reference_ms: std::cell::Cell<f64>,
}

impl<'a> ClockGuard<'a> {
    /// Below this fraction of the reference clock a measurement counts as timed slow.
    pub const SLOW: f64 = 0.87;

    /// The guard, on a GPU (on a CPU adapter there is no clock governor to guard against, and
    /// the dispatch would take seconds: `None`).
    pub fn new(ctx: &'a GpuContext) -> Result<Option<Self>> {
        if ctx.info.device_type == wgpu::DeviceType::Cpu {
            return Ok(None);
        }
        let module = module(ctx)?;
        let params = params_buffer(ctx, 1024);
        let groups = 8192u32.min(ctx.limits.max_compute_workgroups_per_dimension);
        let dispatch = dispatch_fma(ctx, &module, &params, groups)?;
        let (first, _) = best(ctx, 1, &dispatch)?;
        let guard = Self {
            dispatch: Box::new(dispatch),
            ctx,
            reference_ms: std::cell::Cell::new(first),
        };
        // The clock up first (a burst of the dispatch), then the reference.
        guard.burst(first)?;
        for _ in 0..3 {
            guard.time()?;
        }
        Ok(Some(guard))
    }

    /// The reference: the dispatch's fastest time so far.
    pub fn reference_ms(&self) -> f64 {
        self.reference_ms.get()
    }

    /// Time the dispatch once (lowering the reference if it was faster).
    fn time(&self) -> Result<f64> {
        let work = (self.dispatch)()?;
        let ms = Span::begin(self.ctx)?.end_with(self.ctx, [work])?.0;
        if ms > 0.0 && ms < self.reference_ms.get() {
            self.reference_ms.set(ms);
        }
        Ok(ms)
    }

    /// Submit the dispatch back to back for about 300 ms (one of `ms` each) and wait.
    fn burst(&self, ms: f64) -> Result<()> {
        for _ in 0..(300.0 / ms.max(1e-3)).ceil().clamp(1.0, 600.0) as usize {
            submit(self.ctx, [(self.dispatch)()?]);
        }
        self.ctx.wait()
    }

    /// The clock now, as reference / the dispatch's time (no ramp): checked after a measurement,
    /// since the governor can lower the clock during it.
    pub fn ratio(&self) -> Result<f64> {
        let ms = self.time()?;
        Ok(self.reference_ms() / ms)
    }

    /// Bring the clock back before a measurement: while the dispatch runs over 1.15× its
    /// reference, submit it back to back for about 300 ms and time it again, for up to 3 s.
    /// Returns reference / last time: 1.0 at the reference clock, 0.2 at a fifth of it.
    pub fn settle(&self) -> Result<f64> {
        let t0 = crate::clock::Instant::now();
        loop {
            let ms = self.time()?;
            if ms <= 1.15 * self.reference_ms() || t0.elapsed().as_secs_f64() > 3.0 {
                return Ok(self.reference_ms() / ms);
            }
            self.burst(ms)?;
        }
    }
}
