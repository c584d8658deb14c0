//! Larsen–McAllister's sample application (2001, §5 "Sample Application", figures 4-5):
//! reachability and connected components by powers of the adjacency matrix, the powers kept on
//! the GPU from one product to the next.
//!
//! With `M = I + A` (0/1, A the adjacency matrix), `M^p[u][v] ≠ 0` exactly when v is at most p
//! edges from u — the paper's "adding matrices of all powers less than and equal to p", since the
//! identity lets a walk wait in place. `M^p` is formed by left-to-right binary exponentiation
//! ([`schedule`]): for each bit of p below the top one a squaring `R ← R·R`, and for a set bit a
//! step `R ← R·M`, the paper's `M^{a+b} = M^a × M^b`. The transitive closure is `M^q` for any
//! `q ≥ n − 1`, so ⌈log₂(n − 1)⌉ squarings ([`closure_schedule`]); u and v share a component when
//! each reaches the other ([`Components::from_closure`]).
//!
//! One product, as on the GeForce3:
//! 1. **multiply**: a render pass (or Hall–Carr–Hart's passes) draws `x · y` into the
//!    framebuffer `F`, reading x and y from textures;
//! 2. **clamp** (f16/f32 only): `F ← min(F, 1)` by a quad of colour 1 blended with the Min
//!    operation (`shaders/reach_clamp.wgsl`), so entries stay 0/1 as path counts would otherwise
//!    grow to inf. In u8 the blend unit saturates every sum at 1.0 and no clamp is needed, "as
//!    the paper argued";
//! 3. **copy**: `copy_texture_to_texture(F → R)`, the paper's "Copy … from the frame buffer to
//!    texture memory, potentially without a round trip to host memory", so R is the next
//!    product's input. The last product is not copied: it is read back from the framebuffer,
//!    the only transfer to the host.
//!
//! [`Transfer::HostRoundTrip`] replaces the copy with what the paper avoided — read F back to the
//! host and upload it into R — to show the two give the same result and to time the difference.
//!
//! Timings follow figures 4-5: texture load (M into its texture), multiplies, copies and the
//! final readback, each measured as wall-clock time with the GPU idle before and after (plus GPU
//! timestamps around each copy where the adapter writes them inside encoders). Building
//! pipelines and textures is reported apart as setup, as the paper set hardware setup aside.

pub mod graph;

mod chart;

pub use chart::breakdown_chart;

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::run::Work;
use crate::gpu::texture::{
    INPUT_USAGE, MatrixTexture, ScalarFormat, TARGET_USAGE, extent, map_read,
};
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::methods::hall_packed;
use crate::methods::larsen_mcallister::Pipeline;
use crate::methods::resident::HallProduct;
use crate::precision::Precision;
use crate::reach::graph::{Components, Graph};
use serde::Serialize;
use std::time::Instant;

const CLAMP_SHADER: &str = include_str!("../../shaders/reach_clamp.wgsl");

/// The methods whose product stays in a texture, so powers can be chained on the GPU.
pub const METHODS: &[Method] = &[Method::Lm, Method::HallBlocked, Method::HallPacked];

/// Most products one run may chain (the copy timestamps need two queries each, 4096 at most).
pub const MAX_PRODUCTS: usize = 2000;

/// One product of the power schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// `R ← R · R`.
    Square,
    /// `R ← R · M`.
    TimesBase,
}

/// What to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Which nodes reach which within this many steps (at least 1).
    Steps(usize),
    /// The transitive closure and the components.
    Closure,
}

/// How the framebuffer becomes the next product's input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transfer {
    /// `copy_texture_to_texture`, inside GPU memory (the paper's "Copy").
    #[default]
    GpuCopy,
    /// Read back to the host and upload again.
    HostRoundTrip,
}

/// Options of a reachability run.
#[derive(Clone, Copy, Debug)]
pub struct ReachOptions {
    /// `lm`, `hall-blocked` or `hall-packed` ([`METHODS`]).
    pub method: Method,
    /// Number format; `None` picks [`default_precision`].
    pub precision: Option<Precision>,
    pub transfer: Transfer,
    /// Hall–Carr–Hart block size (default 32).
    pub block: Option<u32>,
}

impl std::fmt::Display for Transfer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Transfer::GpuCopy => "GPU copy (framebuffer → texture, copy_texture_to_texture)",
            Transfer::HostRoundTrip => "host round trip (read back, upload again)",
        })
    }
}

impl Default for ReachOptions {
    fn default() -> Self {
        Self {
            method: Method::Lm,
            precision: None,
            transfer: Transfer::GpuCopy,
            block: None,
        }
    }
}

/// u8 for L-M (the 2001 pipeline, exact on 0/1 matrices because the blend saturates at 1), f32
/// for the Hall–Carr–Hart methods (their only format).
pub fn default_precision(method: Method) -> Precision {
    if method == Method::Lm {
        Precision::U8
    } else {
        Precision::F32
    }
}

/// The products that raise M to the power p (p ≥ 1), left-to-right binary: for each bit of p
/// below the top one, a squaring, then a step by M if the bit is set. ⌊log₂ p⌋ squarings and
/// popcount(p) − 1 steps; p = 1 needs none.
pub fn schedule(p: usize) -> Vec<Step> {
    let mut out = vec![];
    if p == 0 {
        return out;
    }
    let bits = usize::BITS - p.leading_zeros();
    for i in (0..bits - 1).rev() {
        out.push(Step::Square);
        if (p >> i) & 1 == 1 {
            out.push(Step::TimesBase);
        }
    }
    out
}

/// The squarings that reach the transitive closure of an n-node graph: ⌈log₂(n − 1)⌉, so that
/// `2^t ≥ n − 1`, the longest shortest path (none for n ≤ 2).
pub fn closure_schedule(nodes: usize) -> Vec<Step> {
    let need = nodes.saturating_sub(1).max(1);
    let t = usize::BITS - (need - 1).leading_zeros();
    vec![Step::Square; t as usize]
}

/// The schedule for `goal` on an n-node graph, and a note if p-step reachability was computed
/// as the closure (p ≥ n − 1 and the closure needs no more products).
pub fn plan(goal: Goal, nodes: usize) -> Result<(Vec<Step>, Option<String>)> {
    match goal {
        Goal::Closure => Ok((closure_schedule(nodes), None)),
        Goal::Steps(0) => Err(Error::Invalid(
            "--steps 0: give at least 1 (within 0 steps a node reaches only itself)".into(),
        )),
        Goal::Steps(p) => {
            let direct = schedule(p);
            let closure = closure_schedule(nodes);
            if p >= nodes.saturating_sub(1) && closure.len() < direct.len() {
                let note = format!(
                    "p = {p} ≥ n − 1 = {}: every reachable node is within p steps, so the closure's {} squaring(s) were used instead of {} products",
                    nodes.saturating_sub(1),
                    closure.len(),
                    direct.len()
                );
                Ok((closure, Some(note)))
            } else {
                Ok((direct, None))
            }
        }
    }
}

/// Wall-clock milliseconds of the phases of figures 4-5.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Breakdown {
    /// Loading M into its texture (the paper's "Texture Load").
    pub load_ms: f64,
    /// All products (the paper's "multiplies and accumulates").
    pub multiply_ms: f64,
    /// The min(F, 1) passes (f16/f32 only).
    pub clamp_ms: f64,
    /// Framebuffer-to-texture copies (the paper's "Copy"), or host round trips.
    pub copy_ms: f64,
    /// The same copies timed by GPU timestamps, where the adapter can.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_gpu_ms: Option<f64>,
    /// Reading the final result back from the framebuffer (the paper's "Read Back").
    pub readback_ms: f64,
    /// Pipelines and textures (outside the paper's breakdown).
    pub setup_ms: f64,
    pub products: usize,
    pub copies: usize,
}

impl Breakdown {
    /// Load + multiplies + clamps + copies + readback.
    pub fn total_ms(&self) -> f64 {
        self.load_ms + self.multiply_ms + self.clamp_ms + self.copy_ms + self.readback_ms
    }
}

/// The result of chaining products on the GPU.
#[derive(Clone, Debug)]
pub struct PowerRun {
    /// The final product read back, entries exactly 0 or 1.
    pub matrix: Matrix,
    pub breakdown: Breakdown,
    /// The precision used (f16 if f32 was asked for but the adapter cannot blend it).
    pub precision: Precision,
    pub notes: Vec<String>,
}

/// Raise the square 0/1 matrix `base` (normally `M = I + A`) on the GPU by `steps`, the result
/// staying on the GPU between products; only the final product is read back.
pub fn power(
    ctx: &GpuContext,
    base: &Matrix,
    steps: &[Step],
    opts: &ReachOptions,
) -> Result<PowerRun> {
    base.check_nonempty("M")?;
    if base.rows != base.cols {
        return Err(Error::Invalid(format!(
            "M must be square, it is {}x{}",
            base.rows, base.cols
        )));
    }
    if let Some(idx) = base.data.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(Error::Invalid(format!(
            "M has {} at ({}, {}); reachability powers need a 0/1 matrix",
            base.data[idx],
            idx / base.cols,
            idx % base.cols
        )));
    }
    if steps.len() > MAX_PRODUCTS {
        return Err(Error::Invalid(format!(
            "{} products in one run; at most {MAX_PRODUCTS}",
            steps.len()
        )));
    }
    let (layout, precision, mut notes) = choose(ctx, opts)?;
    let mut run = Run::new(
        ctx,
        layout,
        precision,
        opts,
        base,
        steps.len().saturating_sub(1),
    )?;
    for (i, &step) in steps.iter().enumerate() {
        run.product(step)?;
        if i + 1 < steps.len() {
            run.copy_into_input()?;
        }
    }
    let matrix = run.read_back()?;
    let mut breakdown = run.t;
    if let Some(stamps) = &run.stamps {
        breakdown.copy_gpu_ms = Some(stamps.read_ms(ctx)?);
    }
    notes.push(describe(
        layout,
        precision,
        run.passes_per_product,
        base.rows,
    ));
    Ok(PowerRun {
        matrix,
        breakdown,
        precision,
        notes,
    })
}

/// Where the matrices live for each method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// L-M: one channel of the precision's format.
    Lm,
    /// Hall–Carr–Hart §3: `R32Float`.
    Blocked,
    /// Hall–Carr–Hart §4: 2×2-packed `Rgba32Float`, ⌈n/2⌉ texels a side.
    Packed,
}

/// Check `opts` without a GPU: a supported method, a precision it has, a block size only where
/// there are blocks. Returns the precision asked for (or the method's default).
pub fn check_options(opts: &ReachOptions) -> Result<Precision> {
    check_static(opts).map(|(_, p)| p)
}

/// Error before anything of size n² is allocated if an n×n matrix (⌈n/2⌉ a side packed) would
/// not fit the adapter's textures.
fn check_side(ctx: &GpuContext, opts: &ReachOptions, n: usize) -> Result<()> {
    let side = match check_static(opts)?.0 {
        Layout::Packed => n.div_ceil(2),
        Layout::Lm | Layout::Blocked => n,
    };
    ctx.check_texture_dim("the matrix side (nodes)", side)
}

fn check_static(opts: &ReachOptions) -> Result<(Layout, Precision)> {
    let layout = match opts.method {
        Method::Lm => Layout::Lm,
        Method::HallBlocked => Layout::Blocked,
        Method::HallPacked => Layout::Packed,
        other => {
            let names: Vec<&str> = METHODS.iter().map(|m| m.name()).collect();
            return Err(Error::Invalid(format!(
                "reach: method {other} is not supported; the supported methods are {} (render-pass methods whose product stays in a texture for the next power)",
                names.join(", ")
            )));
        }
    };
    let precision = opts.precision.unwrap_or(default_precision(opts.method));
    if layout != Layout::Lm && precision != Precision::F32 {
        return Err(Error::Invalid(format!(
            "reach: --precision {precision} is for --method lm; {} computes in f32 only",
            opts.method
        )));
    }
    if layout != Layout::Lm && opts.block == Some(0) {
        return Err(Error::Invalid(
            "block size b = 0: each pass must sum at least one product".into(),
        ));
    }
    if layout == Layout::Lm && opts.block.is_some() {
        return Err(Error::Invalid(
            "--block is a Hall–Carr–Hart option; lm has no blocks".into(),
        ));
    }
    Ok((layout, precision))
}

/// The layout and precision for `opts` on this adapter, or an error naming what is supported.
fn choose(ctx: &GpuContext, opts: &ReachOptions) -> Result<(Layout, Precision, Vec<String>)> {
    let (layout, mut precision) = check_static(opts)?;
    let mut notes = vec![];
    let blendable = ctx.has(wgpu::Features::FLOAT32_BLENDABLE);
    if precision == Precision::F32 && !blendable {
        if layout == Layout::Lm {
            precision = Precision::F16;
            notes.push(format!(
                "adapter '{}' lacks FLOAT32_BLENDABLE: blending in f16 instead of f32",
                ctx.info.name
            ));
        } else {
            ctx.require(
                wgpu::Features::FLOAT32_BLENDABLE,
                "FLOAT32_BLENDABLE",
                "the min(F, 1) clamp between powers blends into an f32 framebuffer",
            )?;
        }
    }
    Ok((layout, precision, notes))
}

fn describe(layout: Layout, precision: Precision, passes: usize, n: usize) -> String {
    let clamp = if precision == Precision::U8 {
        "sums saturate at 1.0 in the 8-bit blend, no clamp pass"
    } else {
        "min(F, 1) blend pass after each product"
    };
    match layout {
        Layout::Lm => format!(
            "lm: {n} additively blended slices per product into {:?}; {clamp}",
            precision.format(1)
        ),
        Layout::Blocked => {
            format!("hall-blocked: {passes} ping-pong pass(es) per product, R32Float; {clamp}")
        }
        Layout::Packed => format!(
            "hall-packed: M packed 2x2 into a {h}x{h} Rgba32Float texture, powers stay packed; {passes} pass(es) per product; {clamp}",
            h = n.div_ceil(2)
        ),
    }
}

/// The textures and pipelines of one chain of products.
struct Run<'c> {
    ctx: &'c GpuContext,
    layout: Layout,
    precision: Precision,
    block: Option<u32>,
    transfer: Transfer,
    /// M, never overwritten.
    base: MatrixTexture,
    /// R, the running power, filled by copies from F.
    input: MatrixTexture,
    /// F, the framebuffer of the last product (L-M: one texture reused; Hall: each product's).
    fb: Option<MatrixTexture>,
    /// L-M pipelines bound to (M, M), (R, R) and (R, M).
    lm: [Option<Pipeline>; 3],
    clamp: Option<wgpu::RenderPipeline>,
    stamps: Option<Stamps>,
    /// Whether R still equals M (no copy yet), so products read M.
    input_is_base: bool,
    /// Whether F holds the latest product.
    fb_fresh: bool,
    passes_per_product: usize,
    n: usize,
    t: Breakdown,
}

impl<'c> Run<'c> {
    fn new(
        ctx: &'c GpuContext,
        layout: Layout,
        precision: Precision,
        opts: &ReachOptions,
        m: &Matrix,
        copies: usize,
    ) -> Result<Self> {
        let n = m.rows;
        let t0 = Instant::now();
        let base = match layout {
            Layout::Lm => MatrixTexture::upload_channels(ctx, "M = I + A", &[m], precision)?,
            Layout::Blocked => MatrixTexture::upload(ctx, "M = I + A", m, ScalarFormat::R32Float)?,
            Layout::Packed => hall_packed::upload_packed(ctx, "M = I + A (packed)", m)?,
        };
        ctx.wait()?;
        let load_ms = ms(t0);

        let t1 = Instant::now();
        let input = MatrixTexture::new(
            ctx,
            "R (power)",
            base.rows,
            base.cols,
            base.format,
            INPUT_USAGE,
        )?;
        let fb = match layout {
            Layout::Lm => Some(MatrixTexture::new(
                ctx,
                "F (framebuffer)",
                n,
                n,
                base.format,
                TARGET_USAGE,
            )?),
            _ => None,
        };
        let clamp = if precision == Precision::U8 {
            None
        } else {
            Some(clamp_pipeline(ctx, base.format)?)
        };
        let stamps = match opts.transfer {
            Transfer::GpuCopy => Stamps::new(ctx, copies),
            Transfer::HostRoundTrip => None,
        };
        ctx.wait()?;
        let passes_per_product = match layout {
            Layout::Lm => n,
            _ => base.cols.div_ceil(
                opts.block
                    .unwrap_or(crate::methods::hall_blocked::DEFAULT_BLOCK)
                    .max(1) as usize,
            ),
        };
        Ok(Self {
            ctx,
            layout,
            precision,
            block: opts.block,
            transfer: opts.transfer,
            base,
            input,
            fb,
            lm: [None, None, None],
            clamp,
            stamps,
            input_is_base: true,
            fb_fresh: false,
            passes_per_product,
            n,
            t: Breakdown {
                load_ms,
                setup_ms: ms(t1),
                ..Default::default()
            },
        })
    }

    /// One product into F, then the clamp if the precision needs it.
    fn product(&mut self, step: Step) -> Result<()> {
        let ctx = self.ctx;
        let x_is_base = self.input_is_base;
        let y_is_base = match step {
            Step::Square => self.input_is_base,
            Step::TimesBase => true,
        };
        let Run {
            base,
            input,
            fb,
            lm,
            t,
            ..
        } = self;
        let pick = |is_base: bool| if is_base { &*base } else { &*input };
        let (x, y) = (pick(x_is_base), pick(y_is_base));
        match self.layout {
            Layout::Lm => {
                let slot = match (x_is_base, y_is_base) {
                    (true, true) => 0,
                    (false, false) => 1,
                    _ => 2,
                };
                let target = fb
                    .as_ref()
                    .ok_or_else(|| Error::Internal("L-M framebuffer missing".into()))?;
                if lm[slot].is_none() {
                    let t0 = Instant::now();
                    lm[slot] = Some(Pipeline::new(
                        ctx,
                        x,
                        y,
                        target.format,
                        1,
                        1,
                        self.precision,
                    )?);
                    ctx.wait()?;
                    t.setup_ms += ms(t0);
                }
                let pipeline = lm[slot]
                    .as_ref()
                    .ok_or_else(|| Error::Internal("L-M pipeline missing".into()))?;
                let t1 = Instant::now();
                let pass = pipeline.encode(ctx, target, 0..x.cols as u32, true)?;
                ctx.queue.submit([pass]);
                ctx.wait()?;
                t.multiply_ms += ms(t1);
            }
            Layout::Blocked | Layout::Packed => {
                let t0 = Instant::now();
                let prepared = if self.layout == Layout::Blocked {
                    HallProduct::blocked(ctx, x, y, self.block)?
                } else {
                    HallProduct::packed(ctx, x, y, self.block)?
                };
                ctx.wait()?;
                t.setup_ms += ms(t0);
                // The product's passes, recorded and then run (submitted and waited for) here.
                let t1 = Instant::now();
                let mut product = None;
                crate::gpu::run::run(ctx, None, || {
                    let mut work = Work::new(prepared.passes());
                    product = Some(prepared.record(ctx, &mut work)?);
                    Ok(work)
                })?;
                *fb = product;
                t.multiply_ms += ms(t1);
            }
        }
        self.t.products += 1;
        self.fb_fresh = true;
        if let Some(pipeline) = &self.clamp {
            let target = self
                .fb
                .as_ref()
                .ok_or_else(|| Error::Internal("framebuffer missing".into()))?;
            let t2 = Instant::now();
            ctx.scoped("the min(F, 1) clamp pass", || {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                        label: Some("reach clamp"),
                        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                            view: &target.view,
                            depth_slice: None,
                            resolve_target: None,
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Load,
                                store: wgpu::StoreOp::Store,
                            },
                        })],
                        depth_stencil_attachment: None,
                        timestamp_writes: None,
                        occlusion_query_set: None,
                        multiview_mask: None,
                    });
                    pass.set_pipeline(pipeline);
                    pass.draw(0..4, 0..1);
                }
                ctx.queue.submit([enc.finish()]);
                Ok(())
            })?;
            ctx.wait()?;
            self.t.clamp_ms += ms(t2);
        }
        Ok(())
    }

    /// The paper's "Copy": F into R, inside GPU memory (or through the host, for comparison).
    fn copy_into_input(&mut self) -> Result<()> {
        let ctx = self.ctx;
        let Run {
            fb, input, stamps, ..
        } = self;
        let fb = fb
            .as_ref()
            .ok_or_else(|| Error::Internal("nothing to copy: no product yet".into()))?;
        let t0 = Instant::now();
        match self.transfer {
            Transfer::GpuCopy => {
                ctx.scoped("the framebuffer-to-texture copy", || {
                    let mut enc = ctx.device.create_command_encoder(&Default::default());
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    enc.copy_texture_to_texture(
                        fb.texture.as_image_copy(),
                        input.texture.as_image_copy(),
                        extent(fb.rows, fb.cols),
                    );
                    if let Some(s) = stamps.as_mut() {
                        s.stamp(&mut enc);
                    }
                    ctx.queue.submit([enc.finish()]);
                    Ok(())
                })?;
            }
            Transfer::HostRoundTrip => {
                let bytes = fb.read_bytes(ctx)?;
                input.write_bytes(ctx, &bytes)?;
            }
        }
        ctx.wait()?;
        self.t.copy_ms += ms(t0);
        self.t.copies += 1;
        self.input_is_base = false;
        self.fb_fresh = false;
        Ok(())
    }

    /// Read the final product back from the framebuffer (M itself if there were no products).
    fn read_back(&mut self) -> Result<Matrix> {
        let ctx = self.ctx;
        let tex = match (&self.fb, self.fb_fresh) {
            (Some(fb), true) => fb,
            _ if self.input_is_base => &self.base,
            _ => &self.input,
        };
        let t0 = Instant::now();
        let m = match self.layout {
            Layout::Lm => tex.read_channels(ctx, self.precision, 1)?.remove(0),
            Layout::Blocked => tex.read_matrix(ctx)?,
            Layout::Packed => hall_packed::read_unpacked(ctx, tex, self.n, self.n)?,
        };
        self.t.readback_ms += ms(t0);
        if let Some(idx) = m.data.iter().position(|&v| v != 0.0 && v != 1.0) {
            return Err(Error::Invalid(format!(
                "the GPU returned {} at ({}, {}) where every entry should be 0 or 1",
                m.data[idx],
                idx / m.cols,
                idx % m.cols
            )));
        }
        Ok(m)
    }
}

/// The clamp pipeline: a quad of colour 1 blended with Min into a `format` framebuffer.
fn clamp_pipeline(ctx: &GpuContext, format: wgpu::TextureFormat) -> Result<wgpu::RenderPipeline> {
    let module = ctx.shader("reach_clamp.wgsl", CLAMP_SHADER)?;
    let write_mask = crate::gpu::pipeline::write_mask(format.components() as usize);
    ctx.scoped("building the clamp pipeline", || {
        let min = wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Min,
        };
        let layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("reach clamp"),
                bind_group_layouts: &[],
                immediate_size: 0,
            });
        Ok(crate::gpu::pipeline::fullscreen(
            &ctx.device,
            "reach clamp",
            Some(&layout),
            &module,
            "vs_main",
            wgpu::PrimitiveTopology::TriangleStrip,
            "fs_main",
            &[Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState {
                    color: min,
                    alpha: min,
                }),
                write_mask,
            })],
        ))
    })
}

/// GPU timestamps before and after each copy.
struct Stamps {
    set: wgpu::QuerySet,
    next: u32,
    capacity: u32,
}

impl Stamps {
    /// Room for `copies` copies, if there are any and the adapter writes timestamps inside
    /// encoders.
    fn new(ctx: &GpuContext, copies: usize) -> Option<Self> {
        let needed =
            wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS;
        let capacity = 2 * copies as u32;
        if copies == 0 || capacity > wgpu::QUERY_SET_MAX_QUERIES || !ctx.has(needed) {
            return None;
        }
        let set = ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("reach copy timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: capacity,
        });
        Some(Self {
            set,
            next: 0,
            capacity,
        })
    }

    fn stamp(&mut self, enc: &mut wgpu::CommandEncoder) {
        if self.next < self.capacity {
            enc.write_timestamp(&self.set, self.next);
            self.next += 1;
        }
    }

    /// Sum of (after − before) over the copies, in milliseconds.
    fn read_ms(&self, ctx: &GpuContext) -> Result<f64> {
        let count = self.next - self.next % 2;
        if count == 0 {
            return Ok(0.0);
        }
        let bytes = count as u64 * 8;
        let ticks: Vec<u64> = ctx.scoped("reading the copy timestamps", || {
            let resolve = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let read = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("reach timestamps readback"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            enc.resolve_query_set(&self.set, 0..count, &resolve, 0);
            enc.copy_buffer_to_buffer(&resolve, 0, &read, 0, bytes);
            ctx.queue.submit([enc.finish()]);
            map_read(ctx, &read, bytemuck::pod_collect_to_vec)
        })?;
        let period_ns = ctx.queue.get_timestamp_period() as f64;
        let ns: f64 = ticks
            .chunks_exact(2)
            .map(|p| p[1].saturating_sub(p[0]) as f64 * period_ns)
            .sum();
        Ok(ns / 1e6)
    }
}

/// The result of [`reach`].
#[derive(Clone, Debug)]
pub struct ReachRun {
    pub goal: Goal,
    /// The products run.
    pub steps: Vec<Step>,
    /// `R[u][v] = 1` when v is reachable from u (within p steps, or at all for the closure).
    pub matrix: Matrix,
    /// With [`Goal::Closure`]: the (strongly, if directed) connected components.
    pub components: Option<Components>,
    pub breakdown: Breakdown,
    pub method: Method,
    pub precision: Precision,
    pub transfer: Transfer,
    pub notes: Vec<String>,
}

/// Reachability (and components, for the closure) of `g` on the GPU. An empty graph gives an
/// empty matrix and zero components without touching the GPU.
pub fn reach(ctx: &GpuContext, g: &Graph, goal: Goal, opts: &ReachOptions) -> Result<ReachRun> {
    let (steps, note) = plan(goal, g.nodes)?;
    let (matrix, breakdown, precision, mut notes) = if g.nodes == 0 {
        let (_, precision, notes) = choose(ctx, opts)?;
        (Matrix::zeros(0, 0), Breakdown::default(), precision, notes)
    } else {
        check_side(ctx, opts, g.nodes)?;
        let run = power(ctx, &g.reach_base(), &steps, opts)?;
        (run.matrix, run.breakdown, run.precision, run.notes)
    };
    notes.extend(note);
    let components = match goal {
        Goal::Closure => Some(Components::from_closure(&matrix)?),
        Goal::Steps(_) => None,
    };
    Ok(ReachRun {
        goal,
        steps: if g.nodes == 0 { vec![] } else { steps },
        matrix,
        components,
        breakdown,
        method: opts.method,
        precision,
        transfer: opts.transfer,
        notes,
    })
}

/// The report `reach --json` prints (and `--out FILE.json` writes).
#[derive(Clone, Debug, Serialize)]
pub struct ReachReport {
    pub graph: String,
    pub nodes: usize,
    /// Edges as read (an undirected edge counts once; duplicates and self-loops included).
    pub edges: usize,
    pub directed: bool,
    pub method: String,
    pub precision: String,
    pub adapter: String,
    /// `closure` or `steps`.
    pub mode: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
    /// The products in order: `square` (R·R) or `times-base` (R·M).
    pub schedule: Vec<Step>,
    pub transfer: Transfer,
    pub timings: Breakdown,
    /// Pairs (u, v) with v reachable from u, u = v included.
    pub reachable_pairs: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub components: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component_sizes: Option<Vec<usize>>,
    /// `labels[v]`: the component of node v.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<Vec<usize>>,
    /// Whether the result equals the CPU BFS (if checked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches_cpu_bfs: Option<bool>,
    pub notes: Vec<String>,
}

impl ReachReport {
    pub fn new(
        ctx: &GpuContext,
        graph: &str,
        g: &Graph,
        run: &ReachRun,
        checked: Option<bool>,
    ) -> Self {
        let (mode, steps) = match run.goal {
            Goal::Closure => ("closure", None),
            Goal::Steps(p) => ("steps", Some(p)),
        };
        ReachReport {
            graph: graph.to_string(),
            nodes: g.nodes,
            edges: g.edges.len(),
            directed: g.directed,
            method: run.method.name().into(),
            precision: run.precision.name().into(),
            adapter: ctx.describe(),
            mode: mode.into(),
            steps,
            schedule: run.steps.clone(),
            transfer: run.transfer,
            timings: run.breakdown.clone(),
            reachable_pairs: run.matrix.data.iter().filter(|&&v| v != 0.0).count(),
            components: run.components.as_ref().map(Components::count),
            component_sizes: run.components.as_ref().map(|c| c.sizes.clone()),
            labels: run.components.as_ref().map(|c| c.labels.clone()),
            matches_cpu_bfs: checked,
            notes: run.notes.clone(),
        }
    }

    /// The human-readable summary, one line each.
    pub fn summary(&self) -> Vec<String> {
        let t = &self.timings;
        let squarings = self.schedule.iter().filter(|&&s| s == Step::Square).count();
        let what = match self.steps {
            Some(p) => format!("reachability within {p} step(s)"),
            None => "transitive closure".to_string(),
        };
        let mut out = vec![
            format!(
                "graph     {}: {} nodes, {} edges, {}",
                self.graph,
                self.nodes,
                self.edges,
                if self.directed {
                    "directed"
                } else {
                    "undirected"
                }
            ),
            format!(
                "computed  {what}: M = I + A by {} product(s) ({squarings} squaring(s)), {} × {}",
                self.schedule.len(),
                t.copies,
                self.transfer
            ),
            format!("method    {} ({})", self.method, self.precision),
            format!(
                "time      load {:.3} ms, multiplies {:.3} ms, clamp {:.3} ms, copies {:.3} ms{}, readback {:.3} ms (setup {:.3} ms)",
                t.load_ms,
                t.multiply_ms,
                t.clamp_ms,
                t.copy_ms,
                t.copy_gpu_ms
                    .map_or(String::new(), |g| format!(" ({g:.3} ms by GPU timestamps)")),
                t.readback_ms,
                t.setup_ms
            ),
            format!(
                "reachable {} of {} ordered pairs (u, v), u = v included",
                self.reachable_pairs,
                self.nodes * self.nodes
            ),
        ];
        if let (Some(c), Some(sizes)) = (self.components, &self.component_sizes) {
            let kind = if self.directed {
                "strongly connected components"
            } else {
                "components"
            };
            let shown: Vec<String> = sizes.iter().take(20).map(|s| s.to_string()).collect();
            let more = if sizes.len() > 20 {
                format!(", … ({} more)", sizes.len() - 20)
            } else {
                String::new()
            };
            out.push(format!("{kind} {c}: sizes {}{more}", shown.join(", ")));
        }
        if let Some(ok) = self.matches_cpu_bfs {
            out.push(format!(
                "check     {}",
                if ok {
                    "matches the CPU BFS"
                } else {
                    "DIFFERS from the CPU BFS"
                }
            ));
        }
        for n in &self.notes {
            out.push(format!("note      {n}"));
        }
        out
    }
}

/// Compare a run with the CPU BFS: the same reachability matrix, and for the closure the same
/// components.
pub fn matches_cpu(g: &Graph, run: &ReachRun) -> bool {
    let steps = match run.goal {
        Goal::Steps(p) => Some(p),
        Goal::Closure => None,
    };
    let same_matrix = run.matrix == crate::reach::graph::cpu_reach(g, steps);
    let same_components = run
        .components
        .as_ref()
        .is_none_or(|c| *c == crate::reach::graph::cpu_components(g));
    same_matrix && same_components
}

/// Components as CSV, `node,component` per line (0-based node ids, or 1-based with `one_based`).
pub fn components_csv(c: &Components, one_based: bool) -> String {
    let mut s = String::from("node,component\n");
    for (v, l) in c.labels.iter().enumerate() {
        s.push_str(&format!("{},{l}\n", v + usize::from(one_based)));
    }
    s
}

/// A reachability matrix as a picture: white where v is reachable from u (row u, column v),
/// black elsewhere, as the L-M paper draws 0/1 matrices; about 512 pixels a side.
pub fn reach_picture(r: &Matrix) -> Result<image::RgbImage> {
    use image::{Rgb, RgbImage};
    if r.rows == 0 || r.cols == 0 {
        return Err(Error::Invalid(
            "the graph has no nodes: there is no matrix to draw".into(),
        ));
    }
    let cell = crate::draw::picture::cell_size(r, 512);
    let (w, h) = crate::draw::picture::panel_size(r, cell, 2048);
    let mut img = RgbImage::new(w as u32, h as u32);
    for py in 0..h {
        let i = py * r.rows / h;
        for px in 0..w {
            let j = px * r.cols / w;
            let v = if r.get(i, j) != 0.0 { 255 } else { 0 };
            img.put_pixel(px as u32, py as u32, Rgb([v, v, v]));
        }
    }
    Ok(img)
}

/// The paper's experiment: an n×n 0/1 matrix (`M = I + A` of a random graph with 2n edges)
/// multiplied by itself `powers` times, each result the next input (M, M², M⁴, …).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub n: usize,
    pub powers: usize,
    pub method: String,
    pub precision: String,
    pub adapter: String,
    pub transfer: Transfer,
    pub seed: u64,
    pub breakdown: Breakdown,
    /// Figure 4, per n×n matrix: one texture load.
    pub load_per_matrix_ms: f64,
    /// Figure 4: one copy (mean).
    pub copy_per_matrix_ms: f64,
    /// Figure 4: one copy by GPU timestamps (mean), where available.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_gpu_per_matrix_ms: Option<f64>,
    /// Figure 4: one readback.
    pub readback_per_matrix_ms: f64,
    /// One product (mean).
    pub multiply_per_product_ms: f64,
    /// The paper's byte operations per second over the multiplies, (2n³ − n²) per product.
    pub gbops: f64,
    /// Share of the total time spent multiplying (figure 5's point).
    pub multiply_share: f64,
    pub notes: Vec<String>,
}

/// Run the experiment of figures 4-5.
pub fn bench(
    ctx: &GpuContext,
    n: usize,
    powers: usize,
    seed: u64,
    opts: &ReachOptions,
) -> Result<BenchReport> {
    if n == 0 {
        return Err(Error::Invalid(
            "--n 0: the matrix needs at least one row".into(),
        ));
    }
    if powers == 0 || powers > MAX_PRODUCTS {
        return Err(Error::Invalid(format!(
            "--powers {powers}: give 1 to {MAX_PRODUCTS} products"
        )));
    }
    check_side(ctx, opts, n)?;
    let g = Graph::random(n, 2 * n, false, seed)?;
    let steps = vec![Step::Square; powers];
    let run = power(ctx, &g.reach_base(), &steps, opts)?;
    let b = run.breakdown;
    let per = |total: f64, count: usize| {
        if count == 0 {
            0.0
        } else {
            total / count as f64
        }
    };
    let byte_ops = (2.0 * (n as f64).powi(3) - (n as f64).powi(2)) * powers as f64;
    Ok(BenchReport {
        n,
        powers,
        method: opts.method.name().into(),
        precision: run.precision.name().into(),
        adapter: ctx.describe(),
        transfer: opts.transfer,
        seed,
        load_per_matrix_ms: b.load_ms,
        copy_per_matrix_ms: per(b.copy_ms, b.copies),
        copy_gpu_per_matrix_ms: b.copy_gpu_ms.map(|g| per(g, b.copies)),
        readback_per_matrix_ms: b.readback_ms,
        multiply_per_product_ms: per(b.multiply_ms, b.products),
        gbops: byte_ops / (b.multiply_ms.max(1e-9) * 1e6),
        multiply_share: b.multiply_ms / b.total_ms().max(1e-12),
        breakdown: b,
        notes: run.notes,
    })
}

impl BenchReport {
    /// The breakdown as a table, one line each.
    pub fn table(&self) -> Vec<String> {
        let b = &self.breakdown;
        let copy_gpu =
            |v: Option<f64>| v.map_or(String::new(), |g| format!(" (GPU timestamps {g:.3})"));
        let mut out = vec![
            format!(
                "L-M §5 experiment: a {n}x{n} 0/1 matrix (I + A, random graph, seed {}) multiplied by itself {} times, each result the next input",
                self.seed,
                self.powers,
                n = self.n
            ),
            format!(
                "method {} ({}), {}",
                self.method, self.precision, self.transfer
            ),
            String::new(),
            format!(
                "{:<14} {:>6} {:>14} {:>14}   {}",
                "phase", "count", "per matrix ms", "total ms", "figure"
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5",
                "texture load", 1, self.load_per_matrix_ms, b.load_ms
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5{}",
                "GPU copy",
                b.copies,
                self.copy_per_matrix_ms,
                b.copy_ms,
                copy_gpu(self.copy_gpu_per_matrix_ms)
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5",
                "readback", 1, self.readback_per_matrix_ms, b.readback_ms
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   5",
                "multiplies", b.products, self.multiply_per_product_ms, b.multiply_ms
            ),
        ];
        if b.clamp_ms > 0.0 {
            out.push(format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   (f16/f32 only)",
                "clamp",
                b.products,
                b.clamp_ms / b.products.max(1) as f64,
                b.clamp_ms
            ));
        }
        out.push(format!(
            "{:<14} {:>6} {:>14} {:>14.3}",
            "total",
            "",
            "",
            b.total_ms()
        ));
        out.push(String::new());
        out.push(format!(
            "multiplies take {:.1}% of the total; {:.3} GBops ((2n³ − n²) byte operations per product over the multiply time); setup (pipelines, textures) {:.3} ms, not counted",
            100.0 * self.multiply_share,
            self.gbops,
            b.setup_ms
        ));
        for n in &self.notes {
            out.push(format!("note {n}"));
        }
        out
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
