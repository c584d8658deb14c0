//! `frag-mrt`: a register block per fragment, written to several colour attachments at once —
//! Hall, Carr & Hart (2003) §4's channel packing taken as far as one fragment's outputs allow.
//!
//! Hall packs four numbers into a texel so that one lookup feeds four multiply-adds (eq. 8-11:
//! 2 RGBA lookups for 8 FMAs per step of p). Here the packing follows the outer product instead
//! of the quadrants, and a fragment keeps a whole R×C block of C in registers:
//!
//! - **A** (m×k) is one `Rgba32Float` texture (`Rgba16Float` with f16 inputs) ⌈m/R⌉·R/4 texels
//!   high and k' wide: texel (x = p, y = Y) holds column p of rows 4Y..4Y+3,
//!   `(A[4Y][p], A[4Y+1][p], A[4Y+2][p], A[4Y+3][p])`.
//! - **B** (k×n) is one texture of the same format, k' high and ⌈n/C⌉·C/4 texels wide: texel
//!   (x = X, y = p) holds row p of columns 4X..4X+3, `(B[p][4X], …, B[p][4X+3])`.
//! - **C** is R·C/4 `Rgba32Float` colour attachments of ⌈m/R⌉ × ⌈n/C⌉ texels (the *tiles*):
//!   attachment t = r·(C/4) + j holds, at tile (x = J, y = I), the four elements
//!   `C[R·I + r][C·J + 4j .. C·J + 4j + 3]` — row r of the tile's block, columns 4j..4j+3.
//!
//! One pass draws one triangle over the tiles. Fragment (J, I) walks p over its pass's range of
//! k: per step it loads R/4 texels of A (rows R·I..R·I+R−1 at p) and C/4 texels of B (columns
//! C·J..C·J+C−1 at p) and does R·C/4 vec4 multiply-adds (`c[r][j] += a[r] · b[j]`), then writes
//! its R·C sums to the attachments. By default the whole of k is one pass; with
//! `Params::block` = b the passes take b steps each and carry the running sum by ping-pong (two
//! sets of attachments, the earlier set read as F) or by additive blending (`--accumulate blend`,
//! needs `FLOAT32_BLENDABLE`), as in [`super::hall_blocked`].
//!
//! A fragment's outputs cap the block: `max_color_attachments` (8) RGBA32F targets and
//! `max_color_attachment_bytes_per_sample` (128) hold 32 floats, so R·C ≤ 32 with R and C
//! multiples of 4: 4×8 (the default), 8×4 or 4×4. FMAs per texel fetched are 4RC/(R+C): 10.7
//! for 4×8, against Hall's 4 (and L-M's ½).
//!
//! **Quad sharing** (`share`, default on where the adapter has `SUBGROUP`): the two fragments of
//! a 2×2 quad that share a row of tiles need the same A texels, the two that share a column the
//! same B texels. Fragment (J, I) with s = (I ⊕ J) & 1 loads A and B at p + s only; `quadSwapX`
//! brings it A at p + 1 − s from its horizontal neighbour (same rows) and `quadSwapY` B at
//! p + 1 − s from its vertical neighbour (same columns) — whose s is 1 − s, so the swapped pair
//! is matched without selects. Each fragment fetches half the texels: 21.3 FMAs per texel at
//! 4×8. The triangle covers the whole target and the tile counts are rounded up to even, so every
//! quad is complete (no helper invocations take part in a swap).
//!
//! The block shape is baked into generated WGSL ([`shader_source`]; `shaders/frag_mrt.wgsl` is
//! the default shape's source, kept equal by a test): every accumulator is its own `vec4f`
//! variable and the k loop is unrolled `unroll` steps (all loads first, then the FMAs). The
//! shape is [`Shape::DEFAULT`] unless the environment variable `RENDERMM_FRAG_MRT` gives
//! another, e.g. `8x4`, `4x4,share=0` or `4x8,unroll=8` ([`Shape::parse`]), so one build can
//! time them all.
//!
//! Padding: m, n are padded to whole (even, with sharing) tiles and k to k', a multiple of the
//! unroll, all with zeros in the packed textures. Padded columns of A meet padded rows of B and
//! add zero products; padded rows and columns of C are never unpacked, so the padding never
//! shows. Packing and unpacking run on the CPU (inside `upload_ms` and `readback_ms`), as in
//! [`super::hall_packed`]; packing splits its texel rows across threads past 8 MiB, as
//! [`crate::gpu::host`] does its copies.
//!
//! **f16 inputs** (`frag-mrt-f16`, [`Inputs::F16`]): the same layout, passes and shader with A
//! and B packed into `Rgba16Float` textures instead of `Rgba32Float` — each value rounded to f16
//! (round to nearest even) on upload, 8 bytes per texel instead of 16. `textureLoad` still
//! returns a `vec4f`, the products of two f16 are exact in f32 and every sum stays f32, and C
//! stays `Rgba32Float`; so one pass computes the same R×C block sums as above, of the rounded
//! inputs, for half the texture bytes fetched per FMA (FMAs per *texel* are unchanged; on the
//! H100 it gained 2–3 %, `docs/frag-mrt.md`). Hall, Carr & Hart assume single-precision floats
//! (§2) and pack four of them per texel (§4); f16 inputs are this project's variant, not the
//! paper's. The result is held to an elementwise bound for f16 inputs and f32 accumulation,
//! the judge's `check::Arith::F16Inputs` ([`crate::check::f16_inputs_bound`], as `coop`), not to the
//! f32 methods' bound.
//! Inputs beyond f16's range (|x| > 65504) are refused, as is an adapter that cannot sample
//! `Rgba16Float` textures.
//!
//! **Storage-buffer sources** (`src=buffer`, or `a=buffer` / `b=buffer` for one operand; f32
//! inputs only, [`Source::Buffer`]): the fragment shader indexes read-only storage buffers
//! instead of calling `textureLoad`, so its loads go through the load/store path rather than the
//! texture unit. A buffer holds the texels the texture would, in the order that keeps a warp's
//! loads together: Aᵀ (k' rows of tiles_m·R/4 vec4s; vec4 Y of row p is A texel (p, Y)) and B
//! (k' rows of tiles_n·C/4 vec4s; vec4 X of row p is B texel (X, p)), zero-padded, uploaded as
//! `cs-fast` uploads its operands. With one operand in a buffer, quad sharing still swaps the
//! texture operand; the buffer operand is loaded at both steps of each pair (its partner's step
//! is k ^ 1, the pair starting at an even p). Modern WebGPU allows storage buffers in the
//! fragment stage; 2003's fragment programs had only textures, so this is an experiment on
//! where the texture path's limit lies (`docs/performance.md`), not the paper's method.
//!
//! Runtime checks are off (`create_shader_module_trusted`) because every index is in range by
//! construction: the shader has no arrays but the storage buffers, and one fixed-size uniform;
//! a buffer load at step p < k' and vec4 Y < tiles_m·R/4 (or X < tiles_n·C/4), the row length
//! `a_row` (`b_row`) the uniform carries, is below k'·a_row (k'·b_row), the buffer's length; fragments
//! exist only inside the render target, whose size is the tile counts, so tile (J, I) has
//! J < tiles_n and I < tiles_m, and its loads at A row I·R/4 + i (i < R/4) and B column
//! J·C/4 + j (j < C/4) are inside textures tiles_m·R/4 high and tiles_n·C/4 wide; the loop runs
//! p from a pass's start to its end in steps of `unroll`, both multiples of `unroll` with end ≤ k'
//! ([`Layout::blocks`]), so every load at p + u (u < unroll) has p + u < k', the textures'
//! extent along k. With `pf=1` the loads before the loop are at start + u < end (every pass is
//! at least one unroll long), and the next iteration's at pn + u with pn = min(p + unroll,
//! end − unroll), so pn + u < end ≤ k'. F loads are at the fragment's own tile. The loop ends because p grows by a
//! constant and end ≤ k' ≤ `max_texture_dimension_2d`, far below `u32::MAX`.
//!
//! Shader: generated by [`shader_source`] (default shape in `shaders/frag_mrt.wgsl`).

use super::{Accumulate, Method, Params, Work};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::pipeline::{color_pass, texture_entry};
use crate::gpu::run::{Phase, Read};
use crate::gpu::texture::{INPUT_USAGE, MatrixTexture, TARGET_USAGE};
use crate::matrix::Matrix;

mod bindings;
mod pack;
mod shader;
mod shape;

use bindings::{Input, f_groups, input_group, input_layout, pass_uniforms};
pub use pack::Layout;
pub use shader::shader_source;
pub use shape::{Shape, Source};

/// The knob that names the block shape, e.g. `RENDERMM_FRAG_MRT=8x4,unroll=2` (read by the command
/// line, [`super::Kernels::from_knobs`]).
pub const SHAPE_ENV: &str = "RENDERMM_FRAG_MRT";

/// C's attachments (and F): four f32 sums per texel, whatever the inputs' format.
const C_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// The number format A and B are packed in; the sums and C are f32 either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Inputs {
    /// `Rgba32Float`: A and B as given, 16 bytes per texel (`frag-mrt`).
    #[default]
    F32,
    /// `Rgba16Float`: A and B rounded to f16 on upload, 8 bytes per texel (`frag-mrt-f16`).
    F16,
}

impl Inputs {
    /// The texture format of A and B.
    pub fn format(self) -> wgpu::TextureFormat {
        match self {
            Inputs::F32 => wgpu::TextureFormat::Rgba32Float,
            Inputs::F16 => wgpu::TextureFormat::Rgba16Float,
        }
    }

    /// Bytes per texel of A and B: 16 or 8.
    pub fn bytes_per_texel(self) -> u32 {
        match self {
            Inputs::F32 => 16,
            Inputs::F16 => 8,
        }
    }

    /// The method row that runs with these inputs.
    pub fn method(self) -> Method {
        match self {
            Inputs::F32 => Method::FragMrt,
            Inputs::F16 => Method::FragMrtF16,
        }
    }
}

/// Loop iterations of one fragment of a pass over depth `k`, for drivers that cap them
/// ([`super::Loops`]): the pass's k loop, one iteration per unrolled group of k steps (at least
/// one step each) over k padded by at most 4, and one that ends it.
pub fn loop_iterations(k: usize) -> u64 {
    k as u64 + 5
}

/// Record `a · b` with the block shape the request names (default [`Shape::DEFAULT`], or
/// [`Shape::NARROW`] on an adapter with fewer colour attachments: [`Shape::chosen_for`]), and
/// that shape.
pub fn record(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    opts: &Params,
) -> Result<(Work, Shape)> {
    let shape = Shape::chosen_for(opts.kernels.frag_mrt, ctx.limits.max_color_attachments);
    Ok((record_with(ctx, a, b, opts, shape, Inputs::F32)?, shape))
}

/// [`record`] with A and B rounded to f16 (`frag-mrt-f16`).
pub fn record_f16(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    opts: &Params,
) -> Result<(Work, Shape)> {
    let shape = Shape::chosen_for(opts.kernels.frag_mrt, ctx.limits.max_color_attachments);
    Ok((record_with(ctx, a, b, opts, shape, Inputs::F16)?, shape))
}

/// Record `a · b` with block shape `shape`, A and B packed as `inputs`: one pass over all of
/// k, or ⌈k'/b⌉ passes of b steps with `opts.block` = b, accumulated as `opts.accumulate` says
/// (ping-pong or blend).
pub fn record_with(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    opts: &Params,
    shape: Shape,
    inputs: Inputs,
) -> Result<Work> {
    let name = inputs.method().name();
    let Planned {
        shape,
        layout,
        blocks,
        accumulate,
        reads_f,
        mut notes,
    } = plan(ctx, a, b, opts, shape, inputs)?;
    let (ah, bw) = (layout.a_size().0, layout.b_size().1);
    let passes = blocks.len();
    let fed = upload_inputs(ctx, &shape, &layout, a, b, inputs)?;
    let targets = targets(ctx, &shape, &layout, if reads_f { 2 } else { 1 })?;
    // The shader's compilation and the pipelines' build time are setup, kept out of the upload.
    let built = crate::clock::Instant::now();
    let engine = Engine::build(
        ctx,
        &shape,
        &fed,
        (ah as u32, bw as u32),
        &targets,
        &blocks,
        accumulate,
        reads_f,
    )?;
    let mut work = Work::new(passes);
    work.setup_ms = crate::gpu::run::ms(built);
    // Storage buffers go back to the pool when dropped: kept until the passes have run.
    work.keep(fed);
    let (commands, result_set) = engine.encode(ctx, &targets, passes)?;
    work.push(commands, Phase::Compute);
    for t in &targets[result_set] {
        work.read(Read::Texture(t.clone()));
    }
    work.finish(move |bytes| {
        // The RGBA32F texels where they were read back (4-aligned), without a copy.
        let texels = bytes
            .iter()
            .map(|b| {
                bytemuck::try_cast_slice::<u8, [f32; 4]>(b)
                    .map_err(|e| Error::Readback(format!("{name}: an attachment's texels: {e}")))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(vec![layout.unpack(&texels)?])
    });

    notes.extend(describe(
        &shape,
        &layout,
        &blocks,
        accumulate,
        opts,
        inputs,
        (a, b),
    ));
    work.notes = notes;
    if inputs == Inputs::F16 {
        work.inputs = Some(crate::precision::Precision::F16);
    }
    Ok(work)
}

/// What one `frag-mrt` run will do, settled and checked before anything is uploaded.
struct Planned {
    shape: Shape,
    layout: Layout,
    blocks: Vec<(u32, u32)>,
    accumulate: Accumulate,
    /// Ping-pong over several passes: the fragments read F, the earlier passes' sum.
    reads_f: bool,
    notes: Vec<String>,
}

/// Check the request against the inputs and the adapter, and settle the shape (quad sharing
/// off without subgroups), the passes and how they accumulate.
fn plan(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    opts: &Params,
    mut shape: Shape,
    inputs: Inputs,
) -> Result<Planned> {
    let name = inputs.method().name();
    crate::matrix::check_product(a, b)?;
    if opts.observe {
        return Err(Error::Invalid(format!(
            "{name} spreads C over several colour attachments in its own layout; it has no single accumulation texture to show an observer"
        )));
    }
    if inputs == Inputs::F16 {
        check_f16_range(a, "A")?;
        check_f16_range(b, "B")?;
    }
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut notes = vec![];
    if shape.share && !ctx.has(wgpu::Features::SUBGROUP) {
        shape.share = false;
        notes.push("quad sharing off: the adapter lacks SUBGROUP (quadSwapX/Y)".to_string());
    }
    let mut accumulate = opts.accumulate;
    if let Some(0) = opts.block {
        return Err(Error::Invalid(
            "block size b = 0: each pass must sum at least one product".into(),
        ));
    }
    let layout = Layout::new(shape, m, k, n);
    let blocks = layout.blocks(opts.block);
    if blocks.len() > 1 {
        match accumulate {
            Accumulate::PingPong => {}
            Accumulate::Blend if !ctx.can_render(C_FORMAT, true) => {
                accumulate = Accumulate::PingPong;
                notes.push(format!("accumulate = blend needs blending into {C_FORMAT:?}, which this adapter lacks; ran ping-pong"));
            }
            Accumulate::Blend => {}
            Accumulate::Copy => {
                return Err(Error::Invalid(format!(
                    "{name} accumulates by pingpong or blend; copy (Hall's 2003 framebuffer copy) would copy every attachment each pass"
                )));
            }
        }
    }
    let reads_f = blocks.len() > 1 && accumulate == Accumulate::PingPong;
    ctx.require_render(
        name,
        C_FORMAT,
        accumulate == Accumulate::Blend && blocks.len() > 1,
        "its fragments write C into float colour attachments; try another backend (WGPU_BACKEND=vulkan)",
    )?;
    if shape.reads_buffers() && inputs == Inputs::F16 {
        return Err(Error::Invalid(format!(
            "{name} packs A and B into Rgba16Float textures; a=buffer, b=buffer and src=buffer read f32 storage buffers, so run {} with them",
            Method::FragMrt.name()
        )));
    }
    shape.check_limits(ctx, reads_f)?;
    Ok(Planned {
        shape,
        layout,
        blocks,
        accumulate,
        reads_f,
        notes,
    })
}

/// A and B on the GPU as the shape reads them: packed textures, or storage buffers.
fn upload_inputs(
    ctx: &GpuContext,
    shape: &Shape,
    layout: &Layout,
    a: &Matrix,
    b: &Matrix,
    inputs: Inputs,
) -> Result<[Input; 2]> {
    let (ah, aw) = layout.a_size();
    let (bh, bw) = layout.b_size();
    let format = inputs.format();
    if shape.count(Source::Texture) > 0 {
        require_sampled(ctx, inputs)?;
    }
    // A buffer holds what the texture would, vec4 for texel: Aᵀ (k' × 4·ah), whose vec4 Y of
    // k-row p is the A texel (p, Y), and B (k' × 4·bw), whose vec4 X of k-row p is the B texel
    // (X, p); both zero-padded.
    let upload = crate::gpu::layout::upload_laid_out;
    let a_in = match shape.a_src {
        Source::Texture => {
            let at = MatrixTexture::new(ctx, "A (frag-mrt packed)", ah, aw, format, INPUT_USAGE)?;
            layout.write_packed(ctx, &at, a, true, inputs)?;
            Input::Texture(at)
        }
        Source::Buffer => {
            Input::Buffer(upload(ctx, "A transposed (frag-mrt)", a, true, aw, 4 * ah)?)
        }
    };
    let b_in = match shape.b_src {
        Source::Texture => {
            let bt = MatrixTexture::new(ctx, "B (frag-mrt packed)", bh, bw, format, INPUT_USAGE)?;
            layout.write_packed(ctx, &bt, b, false, inputs)?;
            Input::Texture(bt)
        }
        Source::Buffer => Input::Buffer(upload(ctx, "B (frag-mrt)", b, false, bh, 4 * bw)?),
    };
    Ok([a_in, b_in])
}

// ANCHOR: color_targets
/// The fragment stage's colour targets: one per attachment of C (8 for a 4×8 or
/// 8×4 block), each `Rgba32Float`, written whole; additive blending only when
/// passes add into one set (`--accumulate blend`).
fn color_targets(shape: &Shape, blend: bool) -> Vec<Option<wgpu::ColorTargetState>> {
    (0..shape.attachments())
        .map(|_| {
            Some(wgpu::ColorTargetState {
                format: C_FORMAT,
                blend: blend.then_some(crate::gpu::pipeline::ADDITIVE),
                write_mask: wgpu::ColorWrites::ALL,
            })
        })
        .collect()
}
// ANCHOR_END: color_targets

/// C's attachments: one set, or two to ping-pong between.
fn targets(
    ctx: &GpuContext,
    shape: &Shape,
    layout: &Layout,
    sets: u32,
) -> Result<Vec<Vec<MatrixTexture>>> {
    (0..sets)
        .map(|set| {
            (0..shape.attachments())
                .map(|t| {
                    MatrixTexture::new(
                        ctx,
                        &format!("C attachment {t} (set {set})"),
                        layout.tiles_m,
                        layout.tiles_n,
                        C_FORMAT,
                        TARGET_USAGE,
                    )
                })
                .collect()
        })
        .collect::<Result<_>>()
}

/// The notes of a run: the block and tiles, the passes, and how A and B were laid out.
fn describe(
    shape: &Shape,
    layout: &Layout,
    blocks: &[(u32, u32)],
    accumulate: Accumulate,
    opts: &Params,
    inputs: Inputs,
    (a, b): (&Matrix, &Matrix),
) -> Vec<String> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let (ah, aw) = layout.a_size();
    let (bh, bw) = layout.b_size();
    let format = inputs.format();
    let mut notes = vec![];
    notes.push(format!(
        "block {} per fragment over {}x{} tiles, {} RGBA32F attachments, {:.1} FMA per texel fetched ({} bytes per texel)",
        shape.name(),
        layout.tiles_m,
        layout.tiles_n,
        shape.attachments(),
        shape.fma_per_texel(),
        inputs.bytes_per_texel()
    ));
    notes.push(match blocks.len() {
        1 => format!("whole k in one pass (k' = {})", layout.kp),
        p => format!(
            "{p} passes of {} steps of k (k' = {}{}), accumulate = {accumulate}",
            blocks[0].1 - blocks[0].0,
            layout.kp,
            match opts.block {
                Some(b) if b != blocks[0].1 - blocks[0].0 => format!(
                    "; block {b} rounded up to a multiple of unroll {}",
                    shape.unroll
                ),
                _ => String::new(),
            }
        ),
    });
    let a_note = match shape.a_src {
        Source::Texture => format!("A {m}x{k} as {ah}x{aw} {format:?} (4 rows per texel)"),
        Source::Buffer => format!("A {m}x{k} as an Aᵀ {aw}x{} f32 storage buffer", 4 * ah),
    };
    let b_note = match shape.b_src {
        Source::Texture => format!("B {k}x{n} as {bh}x{bw} {format:?} (4 columns per texel)"),
        Source::Buffer => format!("B {k}x{n} as a {bh}x{} f32 storage buffer", 4 * bw),
    };
    notes.push(format!(
        "{a_note}, {b_note}; packed{} and unpacked on the CPU",
        match inputs {
            Inputs::F32 => "",
            Inputs::F16 => " (rounded to f16)",
        }
    ));
    notes
}

/// Error if a finite element of `x` would overflow f16 (|x| > 65504) and turn into infinity on
/// the way in; NaN and infinity (with `--allow-nonfinite`) stay what they are.
fn check_f16_range(x: &Matrix, name: &str) -> Result<()> {
    let max = crate::precision::F16_MAX;
    crate::precision::f16_range(
        x,
        name,
        |v| v.is_finite() && v.abs() > max,
        || {
            format!(
                "f16 holds, and {} rounds its inputs to f16; frag-mrt takes them in f32",
                Method::FragMrtF16.name()
            )
        },
    )
}

/// One clear error unless A and B can be `inputs`' format here: sampled with `textureLoad` and
/// written by the queue (WebGPU guarantees both for `Rgba16Float`; a GL driver may not).
fn require_sampled(ctx: &GpuContext, inputs: Inputs) -> Result<()> {
    let format = inputs.format();
    let need = wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST;
    if ctx.format_features(format).allowed_usages.contains(need) {
        return Ok(());
    }
    Err(Error::FormatCapability {
        adapter: ctx.info.name.clone(),
        backend: format!("{:?}", ctx.info.backend),
        method: inputs.method().name().to_string(),
        format: format!("{format:?}"),
        capability: "sampling and uploading",
        hint: format!(
            "its A and B are {format:?} textures; run {} (f32 inputs) or try another backend",
            Method::FragMrt.name()
        ),
    })
}

/// Pipelines and bind groups of one multiply, built before the passes are timed.
struct Engine {
    /// `fs_first`: no F; with additive blending in blend mode.
    first: wgpu::RenderPipeline,
    /// `fs_acc`: adds F (ping-pong only).
    acc: Option<wgpu::RenderPipeline>,
    group0: wgpu::BindGroup,
    /// Ping-pong: bind group reading set s as F, for s = 0, 1.
    f_groups: Vec<wgpu::BindGroup>,
    /// Bytes between the uniforms of consecutive passes (the dynamic-offset alignment).
    stride: u32,
    blend: bool,
}

impl Engine {
    #[allow(clippy::too_many_arguments)]
    fn build(
        ctx: &GpuContext,
        shape: &Shape,
        fed: &[Input; 2],
        (a_row, b_row): (u32, u32),
        targets: &[Vec<MatrixTexture>],
        blocks: &[(u32, u32)],
        accumulate: Accumulate,
        reads_f: bool,
    ) -> Result<Engine> {
        let label = format!("frag_mrt {}", shape.name());
        let blend = blocks.len() > 1 && accumulate == Accumulate::Blend;
        let stride = ctx.limits.min_uniform_buffer_offset_alignment.max(16);
        // The shader follows from the shape; the pipelines from it, where A and B are read
        // from, and how passes carry the running sum: built once per context (`gpu::cache`).
        let fed_kinds = fed.each_ref().map(|f| matches!(f, Input::Texture(_)));
        let key = ("frag_mrt", shape.name(), fed_kinds, blend, reads_f);
        let kept = ctx.pipelines.get_or_build(&key, || {
            let source = shader_source(shape);
            // SAFETY: every index in the generated shader is in range and its one loop ends;
            // the module docs give the proof, which rests on `Layout` (texture and buffer
            // sizes, tile counts) and `Layout::blocks` (pass bounds multiples of the unroll, at
            // most k').
            let module = unsafe { ctx.shader_trusted(&label, &source)? };
            let dev = &ctx.device;
            ctx.scoped("building the frag-mrt pipelines", || {
                let layout0 = input_layout(dev, fed);
                let f_entries: Vec<_> = (0..shape.attachments()).map(texture_entry).collect();
                let layout1 = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("frag-mrt F"),
                    entries: &f_entries,
                });
                let color_targets = color_targets(shape, blend);
                let pipeline = |entry: &str, groups: &[Option<&wgpu::BindGroupLayout>]| {
                    let pl = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                        label: Some("frag_mrt"),
                        bind_group_layouts: groups,
                        immediate_size: 0,
                    });
                    crate::gpu::pipeline::fullscreen(
                        dev,
                        &label,
                        Some(&pl),
                        &module,
                        "vs_main",
                        wgpu::PrimitiveTopology::TriangleList,
                        entry,
                        &color_targets,
                    )
                };
                let first = pipeline("fs_first", &[Some(&layout0)]);
                let acc = reads_f.then(|| pipeline("fs_acc", &[Some(&layout0), Some(&layout1)]));
                Ok((layout0, layout1, first, acc))
            })
        })?;
        let (layout0, layout1) = (&kept.0, &kept.1);
        let (first, acc) = (kept.2.clone(), kept.3.clone());
        let dev = &ctx.device;
        ctx.scoped("binding the frag-mrt operands", || {
            let ubuf = pass_uniforms(dev, blocks, stride, (a_row, b_row));
            let group0 = input_group(dev, layout0, fed, &ubuf);
            let f_groups = if reads_f {
                f_groups(dev, targets, layout1)
            } else {
                vec![]
            };
            Ok(Engine {
                first,
                acc,
                group0,
                f_groups,
                stride,
                blend,
            })
        })
    }

    /// Record every pass in one command buffer; returns it and the set that will hold C. Pass
    /// t renders into set t mod 2 with ping-pong (reading set (t−1) mod 2 as F), else into set 0.
    fn encode(
        &self,
        ctx: &GpuContext,
        targets: &[Vec<MatrixTexture>],
        passes: usize,
    ) -> Result<(wgpu::CommandBuffer, usize)> {
        let commands = ctx.scoped("recording the frag-mrt passes", || {
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            // ANCHOR: encode_passes
            for t in 0..passes {
                let set = if self.f_groups.is_empty() { 0 } else { t % 2 };
                let views: Vec<&wgpu::TextureView> = targets[set].iter().map(|t| &t.view).collect();
                let clear = !(self.blend && t > 0);
                let mut pass = color_pass(&mut enc, "frag-mrt pass", &views, clear);
                match (&self.acc, t) {
                    (Some(acc), t) if t > 0 => {
                        pass.set_pipeline(acc);
                        pass.set_bind_group(1, &self.f_groups[(t - 1) % 2], &[]);
                    }
                    _ => pass.set_pipeline(&self.first),
                }
                pass.set_bind_group(0, &self.group0, &[t as u32 * self.stride]);
                pass.draw(0..3, 0..1);
            }
            // ANCHOR_END: encode_passes
            Ok(enc.finish())
        })?;
        let set = if self.f_groups.is_empty() {
            0
        } else {
            (passes - 1) % 2
        };
        Ok((commands, set))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What goes up packed straight into the staging buffer is the packed matrix `pack_a` /
    /// `pack_b` (and their f16 forms) build, texel for texel, padding included, even when the
    /// pooled staging buffer still holds another upload's bytes (an all-NaN one of the same
    /// size, uploaded just before).
    #[test]
    fn packed_uploads_match_the_packed_matrices() {
        let ctx = GpuContext::new().unwrap_or_else(|e| panic!("the test needs an adapter: {e}"));
        for &(m, k, n, seed) in &[(1, 1, 1, 1u64), (9, 6, 11, 2), (33, 17, 70, 3)] {
            let a = Matrix::random(m, k, seed, -1.0, 1.0);
            let b = Matrix::random(k, n, seed + 10, -1.0, 1.0);
            let lay = Layout::new(Shape::DEFAULT, m, k, n);
            for inputs in [Inputs::F32, Inputs::F16] {
                for (is_a, x, (h, w)) in [(true, &a, lay.a_size()), (false, &b, lay.b_size())] {
                    let tex =
                        MatrixTexture::new(&ctx, "packed", h, w, inputs.format(), INPUT_USAGE)
                            .unwrap();
                    let texel = inputs.format().block_copy_size(None).unwrap() as usize;
                    tex.write_bytes(&ctx, &vec![0xFF; h * w * texel]).unwrap();
                    lay.write_packed(&ctx, &tex, x, is_a, inputs).unwrap();
                    let got = tex.read_bytes(&ctx).unwrap();
                    let want: Vec<u8> = match (inputs, is_a) {
                        (Inputs::F32, true) => bytemuck::cast_slice(&lay.pack_a(x)).to_vec(),
                        (Inputs::F32, false) => bytemuck::cast_slice(&lay.pack_b(x)).to_vec(),
                        (Inputs::F16, true) => bytemuck::cast_slice(&lay.pack_a_f16(x)).to_vec(),
                        (Inputs::F16, false) => bytemuck::cast_slice(&lay.pack_b_f16(x)).to_vec(),
                    };
                    assert!(got[..] == want[..], "{m}x{k}x{n} {inputs:?} A={is_a}");
                }
            }
        }
    }
}
