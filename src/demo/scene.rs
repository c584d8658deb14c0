//! What a demo draws, apart from how the method is stepped: the problem as the method takes it,
//! its input textures and colour scales ([`Scene`]), and one moment of the run over it
//! ([`Frame`]: the running sums of the pass shown, the pass, the camera). The window and the
//! headless writer build a scene through `state::DemoState`, which steps the method on a thread;
//! the web page builds one itself and hands the renderer the passes its observer copied.
//!
//! Nothing here waits on the device, so it all builds for the browser.

use super::cube::OrbitCamera;
use super::layout::{Scales, View};
use super::{Inputs, Kind, Settings};
use crate::check::Verdict;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::texture::{MatrixTexture, ScalarFormat};
use crate::matrix::Matrix;
use crate::methods::hall_blocked;
use crate::methods::hall_packed::upload_packed;
use crate::precision::Precision;

/// The input textures the renderer reads.
pub struct SceneTextures {
    /// A and B as `R32Float`, holding the values the method's precision holds (8-bit steps in u8).
    pub a: MatrixTexture,
    pub b: MatrixTexture,
    /// The packed inputs (Hall–Carr–Hart §4); 1×1 placeholders for the other demos.
    pub packed_a: wgpu::Texture,
    pub packed_b: wgpu::Texture,
}

/// A demo's problem, as its method takes it, on the GPU.
pub struct Scene {
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
}

impl Scene {
    /// The scene of `inputs` multiplied as `settings` say, in `precision` (the demos pass
    /// [`Settings::precision`]; the web page the precision asked for, which the Hall methods
    /// have too). L-M in f32 falls back to f16 where the adapter cannot blend f32, as the method
    /// does. `product`: A·B of the inputs as multiplied, when the caller has it (the page
    /// computes its reference anyway); else it is computed here, for C's colour scale.
    pub fn build(
        ctx: &GpuContext,
        settings: &Settings,
        inputs: &Inputs,
        precision: Precision,
        product: Option<&Matrix>,
    ) -> Result<Self> {
        let (_, k, _) = inputs.shape();
        let mut precision = precision;
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
            Kind::Result(_) => vec![(0, k as u32)],
        };
        let computed;
        let product = match product {
            Some(c) => c,
            None => {
                computed = crate::cpu::fast(&a, &b);
                &computed
            }
        };
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
            c: robust_scale(product).max(f32::MIN_POSITIVE),
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
        Ok(Self {
            settings: *settings,
            inputs: inputs.clone(),
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
            },
        })
    }

    /// (m, k, n).
    pub fn shape(&self) -> (usize, usize, usize) {
        self.inputs.shape()
    }

    /// The block of pass `pass` (1-based; pass 0, before any, shows the first).
    pub fn block(&self, pass: usize) -> (u32, u32) {
        let i = pass.max(1) - 1;
        self.blocks
            .get(i)
            .or(self.blocks.last())
            .copied()
            .unwrap_or((0, 1))
    }

    /// The frame after pass `pass` of `passes`, with `shown` the running sums (see
    /// [`Frame::shown`]); the cube's camera at rest, no key hints, no status line.
    #[cfg(feature = "internals")]
    pub fn frame<'a>(
        &'a self,
        shown: [&'a wgpu::Texture; 2],
        pass: usize,
        passes: usize,
    ) -> Frame<'a> {
        let (m, k, n) = self.shape();
        Frame {
            scene: self,
            shown,
            pass,
            passes,
            anim: 1.0,
            camera: OrbitCamera::for_cube(m, k, n),
            keys: false,
            status: None,
        }
    }
}

/// One moment of a run: what the renderer draws.
pub struct Frame<'a> {
    pub scene: &'a Scene,
    /// The running sums after the pass shown: `[0]`, or, for a method that ping-pongs, the
    /// texture pass p wrote in `[p mod 2]` and the one it read in the other
    /// ([`Kind::shown_slot`]). Each has the format and size of the method's accumulation texture.
    pub shown: [&'a wgpu::Texture; 2],
    /// Passes shown (0 before the first) and passes in all.
    pub pass: usize,
    pub passes: usize,
    /// 0 → 1 over the time between two passes (the cube's moving slice).
    pub anim: f32,
    pub camera: OrbitCamera,
    /// Key hints at the bottom (the window's).
    pub keys: bool,
    /// A line at the bottom: the error against the CPU once done.
    pub status: Option<String>,
}

impl Frame<'_> {
    /// What the layout needs.
    pub fn view(&self) -> View {
        let s = self.scene;
        let (m, k, n) = s.shape();
        View {
            kind: s.settings.kind,
            m,
            k,
            n,
            precision: s.precision,
            pass: self.pass,
            passes: self.passes,
            block: s.block(self.pass),
            b: if matches!(s.settings.kind, Kind::Hall | Kind::Packed) {
                s.settings.block_for(k)
            } else {
                1
            },
            scales: s.scales,
            keys: self.keys,
            status: self.status.clone(),
        }
    }
}

/// The bottom line of a finished run: its error against the CPU.
pub fn done_line(v: &Verdict) -> String {
    let mut s = format!(
        "Done · error {:.1e} (largest {:.1e}) against the CPU, {}",
        v.stats.rel_err,
        v.stats.max_abs_err,
        if v.passed {
            "within tolerance"
        } else {
            "outside tolerance"
        }
    );
    if let Some(n) = v.saturated.filter(|&n| n > 0) {
        s += &format!(" · {n} saturated to white, as in the paper");
    }
    s
}

pub use crate::draw::scale::robust_scale;

/// A 1×1 texture for bindings a demo does not use.
pub fn placeholder(ctx: &GpuContext, format: wgpu::TextureFormat) -> wgpu::Texture {
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
