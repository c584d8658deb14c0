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
//! One product, as on the GeForce3, through the one entry point ([`crate::plan::multiply`] on
//! operands kept on the device, [`crate::plan::resident`]):
//! 1. **multiply**: a render pass (or Hall–Carr–Hart's passes) draws `x · y` into the
//!    framebuffer `F`, reading x and y from textures, F left on the device;
//! 2. **clamp** (f16/f32 only): `F ← min(F, 1)` by a quad of colour 1 blended with the Min
//!    operation (`shaders/reach_clamp.wgsl`), so entries stay 0/1 as path counts would otherwise
//!    grow to inf, asked of the same call and timed apart. In u8 the blend unit saturates every
//!    sum at 1.0 and no clamp is needed, "as the paper argued";
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

mod bench;
mod chart;
mod run;

pub use bench::{BenchReport, bench};
pub use chart::breakdown_chart;
use run::Run;

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::precision::Precision;
use crate::reach::graph::{Components, Graph};
use serde::Serialize;
use std::time::Instant;

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

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
