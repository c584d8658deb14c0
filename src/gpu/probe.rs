//! The driver's shader loop caps, probed ([`super::loop_cap`] says why and what is measured):
//! one compute invocation and one fragment, each running `shaders/loop_cap*.wgsl`'s two loops
//! and writing how many iterations each ran, read back through plain buffers of the probe's
//! own. The context keeps each stage's answer ([`GpuContext::stage_loops`]).

use super::context::{GpuContext, InfoReport, relock};
use super::loop_cap::{ASKED, LoopCap, QUICK, Stage, StageLoops};
use crate::error::{Error, Result};

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/loop_cap.wgsl"));
const FRAGMENT_SHADER: &str =
    include_str!(concat!(env!("OUT_DIR"), "/shaders/loop_cap_fragment.wgsl"));

impl GpuContext {
    /// What `rendermm info --json` and the Python binding's `info()` report: the adapter, the
    /// features and limits that decide what runs here, and the driver's measured loop cap.
    pub fn info_report(&self) -> Result<InfoReport> {
        Ok(InfoReport {
            adapter: self.summary(),
            features: self.key_features().into_iter().collect(),
            limits: self.key_limits().into_iter().collect(),
            loop_cap: self.loop_cap()?,
        })
    }

    /// The driver's shader loop caps of both stages ([`super::loop_cap`]), each probed with
    /// [`ASKED`](super::loop_cap::ASKED) iterations the first time they are asked for, then
    /// kept; a probe that fails (a lost device) is an error of its own, tried again at the next
    /// call. What `rendermm info` reports; the plan asks [`GpuContext::stage_loops`] for what
    /// one product needs.
    pub fn loop_cap(&self) -> Result<LoopCap> {
        let compute = self.stage_loops(Stage::Compute, ASKED as u64 + 1)?;
        let fragment = self
            .stage_loops(Stage::Fragment, ASKED as u64 + 1)?
            .ok_or_else(|| Error::Internal("no fragment loop cap was measured".into()))?;
        Ok(LoopCap {
            asked: ASKED,
            compute,
            fragment,
        })
    }

    /// What one stage's loops run on this driver, measured far enough for an invocation that
    /// needs `need` loop iterations ([`StageLoops::covers`]): a stage is probed with
    /// [`QUICK`](super::loop_cap::QUICK) iterations first, and again with
    /// [`ASKED`](super::loop_cap::ASKED) only for a need past what the first probe saw; `None`
    /// for compute on an adapter without compute shaders. Blocks on the probe; in a browser,
    /// where nothing may block, [`GpuContext::stage_loops_async`] measures it first and this
    /// gives what was measured, whatever `need` (a smaller measured budget only splits k more).
    pub fn stage_loops(&self, stage: Stage, need: u64) -> Result<Option<StageLoops>> {
        if let Some(known) = self.known_loops(stage, need) {
            return Ok(known);
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            pollster::block_on(self.stage_loops_async(stage, need))
        }
        #[cfg(target_arch = "wasm32")]
        {
            match relock(&self.loops)[stage as usize] {
                Some(s) => Ok(Some(s)),
                None => Err(Error::Invalid(format!(
                    "the driver's {} loop cap is not measured yet: await GpuContext::stage_loops_async first",
                    stage.name()
                ))),
            }
        }
    }

    /// [`GpuContext::stage_loops`], awaiting the probe instead of blocking on it.
    pub async fn stage_loops_async(&self, stage: Stage, need: u64) -> Result<Option<StageLoops>> {
        if let Some(known) = self.known_loops(stage, need) {
            return Ok(known);
        }
        let asked = if need <= QUICK as u64 { QUICK } else { ASKED };
        let measured = probe_stage(self, stage, asked).await?;
        match measured {
            Some(s) => relock(&self.loops)[stage as usize] = Some(s),
            None => return Ok(None),
        }
        Ok(measured)
    }

    /// What has been measured of `stage` so far, without probing (`None`: not yet).
    pub fn measured_loops(&self, stage: Stage) -> Option<StageLoops> {
        relock(&self.loops)[stage as usize]
    }

    /// The kept measurement of `stage` if it covers `need` (`Some(None)`: a stage this adapter
    /// lacks); `None` when the stage must be probed (again).
    fn known_loops(&self, stage: Stage, need: u64) -> Option<Option<StageLoops>> {
        if stage == Stage::Compute && !has_compute(self) {
            return Some(None);
        }
        relock(&self.loops)[stage as usize]
            .filter(|s| s.covers(need))
            .map(Some)
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
    let uniform = ctx.scoped("creating the loop-cap probe's uniform", || {
        let buf = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("loop cap probe"),
            size: std::mem::size_of::<Probe>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue
            .write_buffer(&buf, 0, bytemuck::bytes_of(&Probe { asked, pad: [0; 3] }));
        Ok(buf)
    })?;
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
    let read = ctx.scoped("running the compute loop-cap probe", || {
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
        let read = read_buffer(ctx);
        enc.copy_buffer_to_buffer(&out, 0, &read, 0, 16);
        ctx.queue.submit([enc.finish()]);
        Ok(read)
    })?;
    counts(&read_words(ctx, &read).await?, "compute", asked)
}

async fn probe_fragment(
    ctx: &GpuContext,
    uniform: &wgpu::Buffer,
    asked: u32,
) -> Result<StageLoops> {
    let format = wgpu::TextureFormat::Rgba32Uint;
    let module = ctx.shader("loop_cap_fragment.wgsl", FRAGMENT_SHADER)?;
    let read = ctx.scoped("running the fragment loop-cap probe", || {
        let target = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("loop cap probe target"),
            size: wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = target.create_view(&Default::default());
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
            let mut pass = super::pipeline::color_pass(&mut enc, "loop cap probe", &[&view], true);
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.draw(0..3, 0..1);
        }
        // One texel's row, padded to the copy's row alignment.
        let read = read_buffer(ctx);
        enc.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &read,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT),
                    rows_per_image: Some(1),
                },
            },
            wgpu::Extent3d {
                width: 1,
                height: 1,
                depth_or_array_layers: 1,
            },
        );
        ctx.queue.submit([enc.finish()]);
        Ok(read)
    })?;
    counts(&read_words(ctx, &read).await?, "fragment", asked)
}

/// A `MAP_READ` buffer the probe's counts are copied into (one padded texel row, or the
/// compute probe's 16 bytes).
fn read_buffer(ctx: &GpuContext) -> wgpu::Buffer {
    ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("loop cap counts read back"),
        size: wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The first words of `read`, once the probe's copy into it has run.
async fn read_words(ctx: &GpuContext, read: &wgpu::Buffer) -> Result<Vec<u32>> {
    super::wait::map_read(ctx, read, |bytes| {
        bytes
            .chunks_exact(4)
            .take(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect()
    })
    .await
}
