//! What a demo shows at a moment: the problem, the textures the renderer reads, the pass the
//! method has reached, the playback clock and the camera. The window and the headless writer
//! both drive one of these and hand it to the renderer.

use super::cube::OrbitCamera;
use super::stepper::{Job, Progress, Stepper};
use super::{Inputs, Kind, Settings};
use crate::check::Verdict;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::texture::{MatrixTexture, ScalarFormat};
use crate::matrix::Matrix;
use crate::methods::hall_blocked;
use crate::methods::hall_packed::{packed_shape, upload_packed};
use crate::precision::Precision;
use std::sync::Arc;
use std::time::Duration;

/// How long a step may wait for the method's next pass before the demo reports it stuck.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// Colour scales: ± this much is full blue / red on the diverging map.
#[derive(Clone, Copy, Debug)]
pub struct Scales {
    pub a: f32,
    pub b: f32,
    pub slice: f32,
    pub c: f32,
}

/// The textures the renderer reads.
pub struct SceneTextures {
    /// A and B as `R32Float`, holding the values the method's precision holds (8-bit steps in u8).
    pub a: MatrixTexture,
    pub b: MatrixTexture,
    /// The packed inputs (Hall–Carr–Hart §4); 1×1 placeholders for the other demos.
    pub packed_a: wgpu::Texture,
    pub packed_b: wgpu::Texture,
    /// Copies of the method's accumulation texture(s) after the last pass shown: `[0]` only,
    /// or both ping-pong textures for Hall–Carr–Hart.
    pub shown: [wgpu::Texture; 2],
}

/// A demo in progress.
pub struct DemoState {
    ctx: Arc<GpuContext>,
    pub settings: Settings,
    pub inputs: Inputs,
    /// The inputs as multiplied (mapped into [0, 1] for u8).
    pub a: Matrix,
    pub b: Matrix,
    /// The precision the method runs in.
    pub precision: Precision,
    /// Remarks (inputs normalized, precision fallback).
    pub notes: Vec<String>,
    pub scales: Scales,
    /// Each pass's (first, count) along the inner dimension the passes walk (k; ⌈k/2⌉ packed).
    pub blocks: Vec<(u32, u32)>,
    pub textures: SceneTextures,
    /// Changes whenever the textures are remade, so the renderer knows to rebind.
    pub generation: u64,
    stepper: Stepper,
    pub paused: bool,
    /// Passes per second while playing.
    pub speed: f32,
    clock: f32,
    /// 0 → 1 over the time between two passes (the cube's moving slice).
    pub anim: f32,
    pub camera: OrbitCamera,
}

impl DemoState {
    /// Set up the textures and start the method on its worker thread.
    pub fn new(ctx: Arc<GpuContext>, settings: Settings, inputs: Inputs) -> Result<Self> {
        let parts = Parts::build(&ctx, &settings, &inputs)?;
        let (m, k, n) = inputs.shape();
        let s = Self {
            ctx,
            settings,
            inputs,
            a: parts.a,
            b: parts.b,
            precision: parts.precision,
            notes: parts.notes,
            scales: parts.scales,
            blocks: parts.blocks,
            textures: parts.textures,
            generation: 1,
            stepper: parts.stepper,
            paused: false,
            speed: 4.0,
            clock: 0.0,
            anim: 1.0,
            camera: OrbitCamera::for_cube(m, k, n),
        };
        Ok(s)
    }

    /// Start over with other settings or inputs (keys 1-4, r, p). On error the old run stays.
    pub fn reset(&mut self, settings: Settings, inputs: Inputs) -> Result<()> {
        let parts = Parts::build(&self.ctx, &settings, &inputs)?;
        let reshaped = inputs.shape() != self.inputs.shape();
        self.settings = settings;
        self.inputs = inputs;
        self.a = parts.a;
        self.b = parts.b;
        self.precision = parts.precision;
        self.notes = parts.notes;
        self.scales = parts.scales;
        self.blocks = parts.blocks;
        self.textures = parts.textures;
        // The old worker is stopped (and joined) when its stepper is dropped here.
        self.stepper = parts.stepper;
        self.generation += 1;
        self.clock = 0.0;
        self.anim = 1.0;
        if reshaped {
            let (m, k, n) = self.inputs.shape();
            self.camera = OrbitCamera::for_cube(m, k, n);
        }
        Ok(())
    }

    pub fn ctx(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// (m, k, n).
    pub fn shape(&self) -> (usize, usize, usize) {
        self.inputs.shape()
    }

    /// Passes shown so far (0 before the first).
    pub fn pass(&self) -> usize {
        self.stepper.pass
    }

    /// Passes of the whole run.
    pub fn passes(&self) -> usize {
        self.blocks.len()
    }

    /// The block of the last pass shown, or of the first pass before any.
    pub fn block(&self) -> (u32, u32) {
        self.blocks[self.pass().max(1) - 1]
    }

    pub fn progress(&self) -> &Progress {
        &self.stepper.progress
    }

    /// The check against the CPU, once the run is done.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.stepper.verdict.as_ref()
    }

    /// Whether every pass has been shown.
    pub fn at_end(&self) -> bool {
        self.pass() >= self.passes()
    }

    /// Take in what the method reported meanwhile (the verdict after the last pass).
    pub fn poll(&mut self) {
        self.stepper.poll();
    }

    /// Show the next pass now (waits for the method). Returns whether there was one.
    pub fn step(&mut self) -> bool {
        let stepped = self.stepper.step(STEP_TIMEOUT);
        if stepped {
            self.clock = 0.0;
            self.anim = 0.0;
        }
        if self.at_end() {
            // The verdict follows the last pass within a moment (readback and CPU reference).
            self.stepper.wait_done(STEP_TIMEOUT);
        }
        stepped
    }

    /// Let `dt` seconds pass: while playing, step at `speed` passes per second.
    pub fn advance(&mut self, dt: f32) {
        self.stepper.poll();
        if self.paused {
            self.anim = 1.0;
            return;
        }
        self.clock += dt;
        self.anim = (self.clock * self.speed).min(1.0);
        if self.clock * self.speed >= 1.0 && !self.at_end() && *self.progress() == Progress::Running
        {
            self.step();
        }
    }

    /// What the window title says: demo, precision, size, pass p/k and, once done, the error
    /// against the CPU.
    pub fn title(&self) -> String {
        let (m, k, n) = self.shape();
        let mut t = format!(
            "rendermm demo {} · {} · {m}×{k}×{n} · pass {}/{}",
            self.settings.kind,
            self.precision,
            self.pass(),
            self.passes()
        );
        if matches!(self.settings.kind, Kind::Hall | Kind::Packed) {
            t += &format!(" (b = {})", self.settings.block_for(k));
        }
        match (self.progress(), self.verdict()) {
            (Progress::Done, Some(v)) => {
                t += &format!(
                    " · error vs CPU: rel {:.2e}, max {:.2e} ({})",
                    v.stats.rel_err,
                    v.stats.max_abs_err,
                    if v.passed {
                        "within tolerance"
                    } else {
                        "OUTSIDE tolerance"
                    }
                );
                if let Some(s) = v.saturated.filter(|&s| s > 0) {
                    t += &format!(" · {s} saturated");
                }
            }
            (Progress::Failed(msg), _) => t += &format!(" · error: {msg}"),
            _ => {}
        }
        if self.paused {
            t += " · paused";
        }
        t
    }
}

/// Everything [`DemoState::new`] and [`DemoState::reset`] build from settings and inputs.
struct Parts {
    a: Matrix,
    b: Matrix,
    precision: Precision,
    notes: Vec<String>,
    scales: Scales,
    blocks: Vec<(u32, u32)>,
    textures: SceneTextures,
    stepper: Stepper,
}

impl Parts {
    fn build(ctx: &Arc<GpuContext>, settings: &Settings, inputs: &Inputs) -> Result<Self> {
        let (m, k, n) = inputs.shape();
        super::check_shape(m, k, n)?;
        let mut precision = settings.precision();
        let mut notes = vec![];
        if precision == Precision::F32
            && !ctx.has(wgpu::Features::FLOAT32_BLENDABLE)
            && settings.kind.takes_precision()
        {
            // What larsen_mcallister::multiply falls back to; the shown texture must match it.
            precision = Precision::F16;
            notes.push(format!(
                "adapter '{}' cannot blend f32: running in f16",
                ctx.info.name
            ));
        }
        if settings.precision != precision && !settings.kind.takes_precision() {
            notes.push(format!("{} runs in f32 only", settings.kind));
        }
        let (a, b, more) = inputs.for_precision(precision)?;
        notes.extend(more);

        let blocks = match settings.kind {
            Kind::Lm | Kind::Cube => (0..k as u32).map(|p| (p, 1)).collect(),
            Kind::Hall => hall_blocked::blocks(k, settings.block_for(k)),
            Kind::Packed => hall_blocked::blocks(k.div_ceil(2), settings.block_for(k)),
        };
        let reference = crate::cpu::fast(&a, &b);
        let u8_scale = |x: &Matrix| {
            if precision == Precision::U8 {
                1.0
            } else {
                x.max_abs()
            }
        };
        let (sa, sb) = (u8_scale(&a), u8_scale(&b));
        let scales = Scales {
            a: sa.max(f32::MIN_POSITIVE),
            b: sb.max(f32::MIN_POSITIVE),
            slice: (sa * sb).max(f32::MIN_POSITIVE),
            c: crate::report::picture::robust_scale(&reference).max(f32::MIN_POSITIVE),
        };

        let quantized = |x: &Matrix| Matrix {
            rows: x.rows,
            cols: x.cols,
            data: x.data.iter().map(|&v| precision.quantize(v)).collect(),
        };
        let at = MatrixTexture::upload(ctx, "demo A", &quantized(&a), ScalarFormat::R32Float)?;
        let bt = MatrixTexture::upload(ctx, "demo B", &quantized(&b), ScalarFormat::R32Float)?;
        let (packed_a, packed_b) = if settings.kind == Kind::Packed {
            (
                upload_packed(ctx, "demo A packed", &a)?.texture,
                upload_packed(ctx, "demo B packed", &b)?.texture,
            )
        } else {
            (
                placeholder(ctx, wgpu::TextureFormat::Rgba32Float),
                placeholder(ctx, wgpu::TextureFormat::Rgba32Float),
            )
        };
        let (format, (rows, cols)) = match settings.kind {
            Kind::Lm | Kind::Cube => (precision.format(1), (m, n)),
            Kind::Hall => (wgpu::TextureFormat::R32Float, (m, n)),
            Kind::Packed => (wgpu::TextureFormat::Rgba32Float, packed_shape(m, n)),
        };
        let shown_tex = |label: &str| -> Result<wgpu::Texture> {
            Ok(MatrixTexture::new(
                ctx,
                label,
                rows,
                cols,
                format,
                wgpu::TextureUsages::TEXTURE_BINDING
                    | wgpu::TextureUsages::COPY_DST
                    | wgpu::TextureUsages::COPY_SRC,
            )?
            .texture)
        };
        let shown = [shown_tex("demo shown 0")?, shown_tex("demo shown 1")?];
        let job = Job {
            method: settings.kind.method(),
            a: a.clone(),
            b: b.clone(),
            precision,
            scale_by_depth: settings.scale_by_depth && precision == Precision::U8,
            block: matches!(settings.kind, Kind::Hall | Kind::Packed)
                .then(|| settings.block_for(k)),
        };
        let stepper = Stepper::start(ctx.clone(), job, shown.clone())?;
        Ok(Self {
            a,
            b,
            precision,
            notes,
            scales,
            blocks,
            textures: SceneTextures {
                a: at,
                b: bt,
                packed_a,
                packed_b,
                shown,
            },
            stepper,
        })
    }
}

/// A 1×1 texture for bindings a demo does not use.
fn placeholder(ctx: &GpuContext, format: wgpu::TextureFormat) -> wgpu::Texture {
    ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("demo placeholder"),
        size: wgpu::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    })
}
