//! The driver's cap on shader loop iterations, measured.
//!
//! Some drivers end a shader's loops after a fixed number of iterations, silently: Mesa's
//! gallivm, the JIT behind lavapipe (Vulkan) and llvmpipe (OpenGL), keeps one counter per shader
//! invocation, starting at `LP_MAX_TGSI_LOOP_ITERATIONS` = 65 535, takes one off at every loop
//! iteration of any loop, and leaves every loop once it reaches zero. A multiply whose k loop
//! runs longer then returns a short sum as if nothing had happened — `cs-naive` stopped at
//! k = 65 535, the tiled kernels at 16 × 65 535.
//!
//! Rather than guess the cap from a driver's name or version, [`probe_stage`] measures it in both
//! stages the methods loop in: `shaders/loop_cap.wgsl` (one compute invocation) and
//! `shaders/loop_cap_fragment.wgsl` (one fragment) each run two loops in a row, each asked for
//! [`ASKED`] iterations, and report how many each ran ([`StageLoops`]). The context runs the
//! probe of a stage once it is first needed and keeps the answer
//! ([`super::GpuContext::stage_loops`]). What a method's loops need at a given k is the method's
//! fact (`methods::Loops`); the splitting of k so that no invocation runs past the cap is the
//! plan's (`plan/tiled.rs`).
//!
//! A stage is probed first with [`QUICK`] iterations per loop: past Mesa's cap and every other
//! known, and quick where a software rasterizer runs the probe (a browser's first product waits
//! for it). Only a product whose loops need more than that, where it showed no cap, has the
//! stage probed again with [`ASKED`]; `rendermm info` probes both stages with `ASKED`.
//!
//! A driver with no cap up to the iterations asked reports them itself: the plan then keeps every
//! invocation's loops within them, at most `ASKED`, the most this probe has seen run, which costs
//! a product nothing below k ≈ 4·10⁶ (cs-naive's loop, one iteration per k) and splits k above it.

use super::context::GpuContext;
use super::texture::MatrixTexture;
use crate::error::{Error, Result};
use serde::Serialize;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/loop_cap.wgsl"));
const FRAGMENT_SHADER: &str =
    include_str!(concat!(env!("OUT_DIR"), "/shaders/loop_cap_fragment.wgsl"));

/// Iterations each probe loop is asked for at most: past any cap worth knowing of (Mesa's is
/// 65 535), and few enough that a GPU without a cap runs the two loops of one invocation in
/// milliseconds.
pub const ASKED: u32 = 1 << 22;

/// Iterations each loop of a stage's first probe is asked for: twice Mesa's cap, 1/32 of
/// [`ASKED`]'s time (about 200 ms less before a browser's first product on a software
/// rasterizer).
pub const QUICK: u32 = 1 << 17;

/// The shader stage a method runs its loops in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Compute shaders: the compute-era methods, cs-fast, coop.
    Compute,
    /// Fragment shaders: the render-pass methods (lm, hall-blocked, hall-packed, frag-mrt).
    Fragment,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Fragment => "fragment",
        }
    }
}

/// What the two probe loops of one invocation ran, each asked for `asked` iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StageLoops {
    /// Iterations each loop was asked for ([`QUICK`] or [`ASKED`]).
    pub asked: u32,
    /// Iterations the first loop ran: the cap, or `asked` where none showed.
    pub first: u32,
    /// Iterations the second loop ran after it: about `first` where the cap counts each loop on
    /// its own, about none where it counts the invocation's loops together (gallivm).
    pub second: u32,
}

impl StageLoops {
    /// Whether a loop stopped short of what it was asked for.
    pub fn capped(&self) -> bool {
        self.first < self.asked || self.second < self.asked
    }

    /// Whether the cap counts every loop of an invocation together: the second loop stopped
    /// well short of the first. The plan assumes this in any case (it is the stricter reading).
    pub fn shared(&self) -> bool {
        self.capped() && self.second < self.first / 2
    }

    /// The most loop iterations one invocation was seen to run: the first loop's count.
    pub fn iterations(&self) -> u32 {
        self.first
    }

    /// Whether this measurement answers for an invocation that needs `need` loop iterations:
    /// it found the cap, or saw none up to at least `need`, or asked the most the probe asks.
    pub fn covers(&self, need: u64) -> bool {
        self.capped() || need <= self.asked as u64 || self.asked >= ASKED
    }

    /// One line: `65535 iterations per invocation, every loop counted together` or
    /// `none up to 4194304 iterations`.
    pub fn describe(&self) -> String {
        if !self.capped() {
            return format!("none up to {} iterations per loop", self.asked);
        }
        let how = if self.shared() {
            "every loop of an invocation counted together"
        } else {
            "each loop counted on its own"
        };
        format!("{} iterations per invocation, {how}", self.first)
    }
}

/// The driver's loop caps of both stages, each probed with [`ASKED`] iterations
/// ([`super::GpuContext::loop_cap`], for `rendermm info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LoopCap {
    /// Iterations each probe loop was asked for ([`ASKED`]).
    pub asked: u32,
    /// Compute shaders; `None` where the adapter has none (WebGL2).
    pub compute: Option<StageLoops>,
    /// Fragment shaders.
    pub fragment: StageLoops,
}

impl LoopCap {
    /// What one stage's loops ran; an error for compute on an adapter without compute shaders
    /// (no compute method runs there anyway).
    pub fn stage(&self, stage: Stage) -> Result<StageLoops> {
        match stage {
            Stage::Compute => self.compute.ok_or_else(|| {
                Error::Invalid(
                    "this adapter has no compute shaders, so no loop cap for them".into(),
                )
            }),
            Stage::Fragment => Ok(self.fragment),
        }
    }

    /// `compute: …; fragment: …` for a report.
    pub fn describe(&self) -> String {
        let compute = self
            .compute
            .map_or("no compute shaders".to_string(), |s| s.describe());
        format!("compute: {compute}; fragment: {}", self.fragment.describe())
    }
}

/// The `Probe` uniform of both probe shaders.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Probe {
    asked: u32,
    pad: [u32; 3],
}

/// Measure one stage's loop cap on `ctx`, each loop asked for `asked` iterations (see the
/// module notes); `None` for compute on an adapter without compute shaders. Use
/// [`GpuContext::stage_loops`], which keeps the answer.
pub async fn probe_stage(ctx: &GpuContext, stage: Stage, asked: u32) -> Result<Option<StageLoops>> {
    let uniform = super::buffer::uniform(
        ctx,
        "loop cap probe",
        bytemuck::bytes_of(&Probe { asked, pad: [0; 3] }),
    )?;
    match stage {
        Stage::Compute if !has_compute(ctx) => Ok(None),
        Stage::Compute => probe_compute(ctx, &uniform, asked).await.map(Some),
        Stage::Fragment => probe_fragment(ctx, &uniform, asked).await.map(Some),
    }
}

/// Whether the adapter runs compute shaders (WebGL2 does not).
pub fn has_compute(ctx: &GpuContext) -> bool {
    ctx.adapter
        .get_downlevel_capabilities()
        .flags
        .contains(wgpu::DownlevelFlags::COMPUTE_SHADERS)
}

/// The two counts of an invocation's loops, as the shader wrote them.
fn counts(words: &[u32], what: &str, asked: u32) -> Result<StageLoops> {
    match words {
        [first, second, ..] => Ok(StageLoops {
            asked,
            first: *first,
            second: *second,
        }),
        _ => Err(Error::Readback(format!(
            "the {what} loop-cap probe read back {} words, not 2",
            words.len()
        ))),
    }
}

async fn probe_compute(ctx: &GpuContext, uniform: &wgpu::Buffer, asked: u32) -> Result<StageLoops> {
    let module = ctx.shader("loop_cap.wgsl", SHADER)?;
    let out = ctx.scoped("running the compute loop-cap probe", || {
        let out = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("loop cap counts"),
            size: 16,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let pipeline = ctx
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some("loop_cap.wgsl"),
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
        let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("loop cap probe"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out.as_entire_binding(),
                },
            ],
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("loop cap probe"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        ctx.queue.submit([enc.finish()]);
        Ok(out)
    })?;
    let bytes = super::readback::read_buffer_bytes(ctx, &out, 8).await?;
    let words: Vec<u32> = bytes.into_f32s().iter().map(|f| f.to_bits()).collect();
    counts(&words, "compute", asked)
}

async fn probe_fragment(
    ctx: &GpuContext,
    uniform: &wgpu::Buffer,
    asked: u32,
) -> Result<StageLoops> {
    let format = wgpu::TextureFormat::Rgba32Uint;
    let target = MatrixTexture::new(
        ctx,
        "loop cap probe target",
        1,
        1,
        format,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    )?;
    let module = ctx.shader("loop_cap_fragment.wgsl", FRAGMENT_SHADER)?;
    ctx.scoped("running the fragment loop-cap probe", || {
        let pipeline = super::pipeline::fullscreen(
            &ctx.device,
            "loop_cap_fragment.wgsl",
            None,
            &module,
            "vs_main",
            wgpu::PrimitiveTopology::TriangleList,
            "fs_main",
            &[Some(wgpu::ColorTargetState {
                format,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        );
        let group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("loop cap probe"),
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass =
                super::pipeline::color_pass(&mut enc, "loop cap probe", &[&target.view], true);
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.draw(0..3, 0..1);
        }
        ctx.queue.submit([enc.finish()]);
        Ok(())
    })?;
    let bytes = super::readback::read_texture_bytes(ctx, &target).await?;
    let words: Vec<u32> = bytes.into_f32s().iter().map(|f| f.to_bits()).collect();
    counts(&words, "fragment", asked)
}
