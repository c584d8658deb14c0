//! A demo in progress natively: a [`Scene`], the method stepping through it on a thread, the
//! textures its passes land in, the playback clock and the camera. The window and the headless
//! writer both drive one of these and hand its [`Frame`] to the renderer.

use super::cube::OrbitCamera;
use super::scene::{Frame, Scene, done_line};
use super::stepper::{Job, Progress, Stepper};
use super::{Inputs, Kind, Settings};
use crate::check::Verdict;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::texture::MatrixTexture;
use crate::methods::hall_packed::packed_shape;
use crate::precision::Precision;
use std::sync::Arc;
use std::time::Duration;

#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use super::layout::Scales;
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use super::scene::SceneTextures;

/// How long a step may wait for the method's next pass before the demo reports it stuck.
const STEP_TIMEOUT: Duration = Duration::from_secs(120);

/// A demo in progress. Dereferences to its [`Scene`] (`state.a`, `state.settings`, …).
pub struct DemoState {
    ctx: Arc<GpuContext>,
    pub scene: Scene,
    /// Copies of the method's accumulation texture(s) after the last pass shown: `[0]` only,
    /// or both ping-pong textures for Hall–Carr–Hart ([`Kind::shown_slot`]).
    pub shown: [wgpu::Texture; 2],
    stepper: Stepper,
    pub paused: bool,
    /// Passes per second while playing.
    pub speed: f32,
    clock: f32,
    /// 0 → 1 over the time between two passes (the cube's moving slice).
    pub anim: f32,
    pub camera: OrbitCamera,
}

impl std::ops::Deref for DemoState {
    type Target = Scene;
    fn deref(&self) -> &Scene {
        &self.scene
    }
}

impl DemoState {
    /// Set up the textures and start the method on its worker thread.
    pub fn new(ctx: Arc<GpuContext>, settings: Settings, inputs: Inputs) -> Result<Self> {
        let parts = Parts::build(&ctx, &settings, &inputs)?;
        let (m, k, n) = inputs.shape();
        let s = Self {
            ctx,
            scene: parts.scene,
            shown: parts.shown,
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
        self.scene = parts.scene;
        self.shown = parts.shown;
        // The old worker is stopped (and joined) when its stepper is dropped here.
        self.stepper = parts.stepper;
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

    /// Passes shown so far (0 before the first).
    pub fn pass(&self) -> usize {
        self.stepper.pass
    }

    /// Passes of the whole run.
    pub fn passes(&self) -> usize {
        self.blocks.len()
    }

    /// The block of the last pass shown, or of the first pass before any.
    #[cfg(feature = "internals")]
    pub fn block(&self) -> (u32, u32) {
        self.scene.block(self.pass())
    }

    /// What the renderer draws now: with the key hints if `keys`, with the status line (the
    /// error against the CPU once done) if `status`.
    pub fn frame(&self, keys: bool, status: bool) -> Frame<'_> {
        Frame {
            scene: &self.scene,
            shown: [&self.shown[0], &self.shown[1]],
            pass: self.pass(),
            passes: self.passes(),
            anim: self.anim,
            camera: self.camera,
            keys,
            status: status.then(|| self.status_line()).flatten(),
        }
    }

    /// The bottom line once the run is done: its error against the CPU, or what failed.
    fn status_line(&self) -> Option<String> {
        match (self.progress(), self.verdict()) {
            (Progress::Done, Some(v)) => Some(done_line(v)),
            (Progress::Failed(msg), _) => Some(format!("Error: {msg}")),
            _ => None,
        }
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
    scene: Scene,
    shown: [wgpu::Texture; 2],
    stepper: Stepper,
}

impl Parts {
    fn build(ctx: &Arc<GpuContext>, settings: &Settings, inputs: &Inputs) -> Result<Self> {
        let (m, k, n) = inputs.shape();
        super::check_shape(m, k, n)?;
        if let Kind::Result(method) = settings.kind {
            return Err(Error::Invalid(format!(
                "{method} is not watched pass by pass; the demos are lm, hall, packed and cube"
            )));
        }
        let scene = Scene::build(ctx, settings, inputs, settings.precision(), None)?;
        let precision = scene.precision;
        let (format, (rows, cols)) = match settings.kind {
            Kind::Packed => (wgpu::TextureFormat::Rgba32Float, packed_shape(m, n)),
            Kind::Hall => (wgpu::TextureFormat::R32Float, (m, n)),
            _ => (precision.format(1), (m, n)),
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
            a: scene.a.clone(),
            b: scene.b.clone(),
            precision,
            scale_by_depth: settings.scale_by_depth && precision == Precision::U8,
            block: matches!(settings.kind, Kind::Hall | Kind::Packed)
                .then(|| settings.block_for(k)),
        };
        let stepper = Stepper::start(ctx.clone(), job, shown.clone())?;
        Ok(Self {
            scene,
            shown,
            stepper,
        })
    }
}
