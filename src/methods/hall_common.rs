//! The engine both Hall–Carr–Hart methods run on ([`super::hall_blocked`], one channel, and
//! [`super::hall_packed`], §4's 2x2 channel packing), and the resident products
//! ([`super::resident`]): the block size, the precision setup, the two variants' pipelines, the
//! blocked passes, the packed layout of eq. (8), and the tiled driver's chunks for both. Kept
//! here, below the two methods, so that neither borrows the other's pieces.

use super::{Method, Params};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::pipeline::{color_pass, texture_entry};
use crate::gpu::run::{Phase, Read, Work, copy_clock};
use crate::gpu::texture::{MatrixTexture, TARGET_USAGE, extent};
use crate::gpu::timer::Clock;
use crate::matrix::Matrix;
use crate::precision::{self, Precision, U8Bits};

mod chunks;
mod packing;

pub(crate) use chunks::multiply_chunks;
pub use packing::{
    pack, packed_shape, read_unpacked, unpack, unpack_bytes, upload_packed, upload_packed_as,
};

/// `shaders/hall_blocked.wgsl` with the 8-bit widths' arithmetic it shares (`shaders/u8_widths.wgsl`).
const SHADER: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/shaders/hall_blocked.wgsl")),
    "\n",
    include_str!(concat!(env!("OUT_DIR"), "/shaders/u8_widths.wgsl"))
);

/// Bytes of one pass's uniforms (the shaders' `Block`).
const BLOCK_BYTES: u32 = 32;

pub use crate::precision::{DEFAULT_BLOCK, blocks};

/// How the passes carry the running sum from one to the next (§3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Accumulate {
    /// Two textures take turns as F and as the render target.
    #[default]
    PingPong,
    /// Additive blending into the framebuffer; no F.
    Blend,
    /// Render into the framebuffer, then copy it into F (the paper's 2003 form).
    Copy,
}

impl Accumulate {
    /// Every mode, in the order the docs show them.
    pub const ALL: &'static [Accumulate] =
        &[Accumulate::PingPong, Accumulate::Blend, Accumulate::Copy];

    /// The name used by `--accumulate`.
    pub fn name(self) -> &'static str {
        match self {
            Accumulate::PingPong => "pingpong",
            Accumulate::Blend => "blend",
            Accumulate::Copy => "copy",
        }
    }

    /// Look a mode up by its `--accumulate` name.
    pub fn parse(s: &str) -> Result<Self> {
        Accumulate::ALL
            .iter()
            .copied()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown accumulation mode '{s}'; known: pingpong, blend, copy"
                ))
            })
    }
}

impl std::fmt::Display for Accumulate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The block size to use: `block`, or [`DEFAULT_BLOCK`] if unset. Zero is an error, and so is a b
/// above the adapter's `max_texture_dimension_2d` (no texture could hold a k that long, so such a
/// block is a typo). A b above the inner dimension is fine: it means a single pass.
pub fn block_size(ctx: &GpuContext, block: Option<u32>) -> Result<u32> {
    let b = block.unwrap_or(DEFAULT_BLOCK);
    if b == 0 {
        return Err(Error::Invalid(
            "block size b = 0: each pass must sum at least one product (give --b 1 or more)".into(),
        ));
    }
    let max = ctx.limits.max_texture_dimension_2d;
    if b > max {
        return Err(Error::Limit {
            what: "block size b".into(),
            value: b as u64,
            limit: "max_texture_dimension_2d",
            max: max as u64,
        });
    }
    Ok(b)
}

/// `shaders/hall_packed.wgsl` with the 8-bit widths' arithmetic it shares (`shaders/u8_widths.wgsl`).
const PACKED_SHADER: &str = concat!(
    include_str!(concat!(env!("OUT_DIR"), "/shaders/hall_packed.wgsl")),
    "\n",
    include_str!(concat!(env!("OUT_DIR"), "/shaders/u8_widths.wgsl"))
);

pub(super) const PACKED: Variant = Variant {
    method: Method::HallPacked,
    name: "hall_packed",
    shader_file: "hall_packed.wgsl",
    source: PACKED_SHADER,
    format: wgpu::TextureFormat::Rgba32Float,
    write_mask: wgpu::ColorWrites::ALL,
};

/// The precision a Hall run uses, decided and checked before anything is uploaded (shared with
/// [`super::hall_packed`]).
pub(super) struct PrecisionSetup {
    pub precision: Precision,
    /// The shader's `depth`: 0 for the float pipelines, else the u8 polygon colour 1/depth.
    pub u8_depth: u32,
    /// The u8 widths (L-M §4): of the block's value as it leaves the fragment, and of the sum.
    pub bits: U8Bits,
    /// The inner dimension k (the `--scale-by-depth` rescale).
    k: usize,
    scale_by_depth: bool,
    notes: Vec<String>,
}

impl PrecisionSetup {
    /// Check `opts` against the inputs and the adapter: u8 inputs in [0, 1], `--scale-by-depth`
    /// only with u8, the u8 block sum (at most `terms_per_pass` products of 255·255) within u32;
    /// f32 blend mode where the adapter cannot blend 32-bit floats falls back to f16. The precision
    /// used is `self.precision`, which the recorded work reports ([`Work::sums`]).
    pub fn new(
        ctx: &GpuContext,
        opts: &Params,
        a: &Matrix,
        b: &Matrix,
        terms_per_pass: usize,
    ) -> Result<Self> {
        let mut precision = opts.precision;
        let mut notes = vec![];
        if precision == Precision::F32
            && opts.accumulate == Accumulate::Blend
            && !ctx.can_render(wgpu::TextureFormat::R32Float, true)
        {
            precision = Precision::F16;
            notes.push(format!(
                "adapter '{}' cannot blend into 32-bit float targets (no FLOAT32_BLENDABLE, and no blending in its own format features): --accumulate blend blends in f16 instead of f32 (ping-pong and copy need no blending)",
                ctx.info.name
            ));
        }
        if opts.scale_by_depth && precision != Precision::U8 {
            return Err(Error::Invalid(
                "--scale-by-depth applies to --precision u8 only (the polygon colour 1/k of the 8-bit pipeline)".into(),
            ));
        }
        if precision == Precision::U8 {
            precision::check_unit_range(a, "A")?;
            precision::check_unit_range(b, "B")?;
            let max_terms = (u32::MAX / (255 * 255)) as usize;
            if terms_per_pass > max_terms {
                return Err(Error::Limit {
                    what: "products summed per fragment per pass in u8 (the integer block sum of 255·255 terms)".into(),
                    value: terms_per_pass as u64,
                    limit: "u32 range of the shader's block sum",
                    max: max_terms as u64,
                });
            }
        }
        let bits = super::u8_pass::u8_bits(opts, precision)?;
        let u8_depth = match precision {
            Precision::U8 if opts.scale_by_depth => a.cols.max(1) as u32,
            Precision::U8 => 1,
            _ => 0,
        };
        precision::check_wide_depth(bits, u8_depth)?;
        Ok(Self {
            precision,
            u8_depth,
            bits,
            k: a.cols,
            scale_by_depth: opts.scale_by_depth,
            notes,
        })
    }

    /// The format the running sum lives in, for `channels` (1 or 4): the precision's, or for a
    /// 16-bit u8 sum `R16Unorm` / `Rgba16Unorm`, which the adapter must render into (and, for
    /// `--accumulate blend`, blend into).
    pub fn sum_format(
        &self,
        ctx: &GpuContext,
        method: Method,
        channels: u32,
        accumulate: Accumulate,
    ) -> Result<wgpu::TextureFormat> {
        if self.precision != Precision::U8 || self.bits.sum == 8 {
            return Ok(self.precision.format(channels));
        }
        let format = self.bits.sum_format(channels);
        super::u8_pass::require_norm16(ctx, method, format, accumulate == Accumulate::Blend)?;
        Ok(format)
    }

    /// Put the readback of `result` (the texture holding the running sum) into `work`; a 16-bit
    /// u8 sum first goes through the last pass that reduces it to 8 bits (§4's output). Whether
    /// it did.
    pub fn read_result(
        &self,
        ctx: &GpuContext,
        work: &mut Work,
        result: &MatrixTexture,
        channels: usize,
    ) -> Result<bool> {
        let out8 = self.precision.format(channels as u32);
        if result.format == out8 {
            work.read(Read::Texture(result.clone()));
            return Ok(false);
        }
        let reduce = super::u8_pass::Reduce16::new(ctx, result, out8, channels)?;
        work.push(reduce.encode(ctx)?, Phase::Compute);
        work.read(Read::Texture(reduce.output.clone()));
        Ok(true)
    }

    /// The notes, and the rescale by k the result needs after the readback under
    /// `--scale-by-depth`; `reduced`: a last pass reduced a 16-bit sum to 8 bits.
    pub fn finish(self, passes: usize, format: &str, reduced: bool) -> (Vec<String>, Rescale) {
        let mut notes = self.notes;
        if self.precision == Precision::U8 && !self.bits.is_default() {
            notes.push(format!(
                "8-bit pipeline: 8-bit inputs, the running sum in {format}; each pass's block sum is exact in integers; {}",
                super::u8_pass::wide_note(self.bits, reduced, "the block's value")
            ));
        } else if self.precision == Precision::U8 {
            notes.push(format!(
                "8-bit pipeline: {format} inputs and accumulation; each pass's block sum is exact in integers, rounded to 8 bits once per pass ({passes} roundings per element) and saturated at 1.0 by the unorm store or blend"
            ));
        }
        if self.scale_by_depth {
            let k = self.k;
            notes.push(format!(
                "--scale-by-depth: polygon colour 1/{k} on each block sum, so the sum cannot saturate but loses {:.1} low bits; result rescaled by {k}",
                (k as f64).log2()
            ));
        }
        (notes, Rescale(self.scale_by_depth.then_some(self.k)))
    }
}

/// The factor k a result read back under `--scale-by-depth` is multiplied by, if any.
#[derive(Clone, Copy)]
pub(super) struct Rescale(Option<usize>);

impl Rescale {
    pub fn apply(self, c: &mut Matrix) {
        if let Some(k) = self.0 {
            c.data.iter_mut().for_each(|v| *v *= k as f32);
        }
    }
}

/// What the single-channel and the packed variant differ in; the passes are the same.
pub(super) struct Variant {
    pub method: Method,
    pub name: &'static str,
    pub shader_file: &'static str,
    pub source: &'static str,
    pub format: wgpu::TextureFormat,
    pub write_mask: wgpu::ColorWrites,
}

pub(super) const SINGLE: Variant = Variant {
    method: Method::HallBlocked,
    name: "hall_blocked",
    shader_file: "hall_blocked.wgsl",
    source: SHADER,
    format: wgpu::TextureFormat::R32Float,
    write_mask: wgpu::ColorWrites::RED,
};

/// What [`Engine::record`] recorded.
pub(super) struct Recorded {
    /// The texture that holds the product once the work has run.
    pub result: MatrixTexture,
    pub passes: usize,
    pub accumulate: Accumulate,
    /// How the runner times the copies, if there are any.
    pub copy_timing: Option<&'static str>,
}

impl Recorded {
    /// The report's notes: `target` fragments per pass, block `b` over inner dimension `depth`.
    pub fn notes(&self, target: &str, b: u32, depth: usize) -> Vec<String> {
        let b_eff = (b as usize).min(depth);
        let last = depth - (self.passes - 1) * b_eff;
        let mut notes = vec![format!(
            "{} of {target} fragments, block b = {b}{}, accumulate = {}",
            if self.passes == 1 {
                "1 pass".to_string()
            } else {
                format!("{} passes", self.passes)
            },
            if last != b_eff {
                format!(" (last block {last})")
            } else {
                String::new()
            },
            self.accumulate
        )];
        if let Some(how) = self.copy_timing {
            notes.push(format!(
                "copy_ms: {} framebuffer-to-F copies, timed {how}",
                self.passes - 1
            ));
        }
        notes
    }
}

/// Pipelines, accumulation textures and bind groups of one blocked multiply, built before the
/// passes so that `compute_ms` times only the passes.
pub(super) struct Engine {
    accumulate: Accumulate,
    blocks: usize,
    /// Bytes between the uniforms of consecutive passes (the dynamic-offset alignment).
    stride: u32,
    pipeline: wgpu::RenderPipeline,
    group0: wgpu::BindGroup,
    /// Ping-pong: [C ping, C pong]; copy: [framebuffer, F]; blend: [framebuffer].
    textures: Vec<MatrixTexture>,
    /// Bind groups reading textures[i] as F (ping-pong: both; copy: F only; blend: none).
    f_groups: Vec<(usize, wgpu::BindGroup)>,
}

/// Group 0's layout: the two input textures and the pass's block, a uniform at a dynamic
/// offset.
fn input_layout(dev: &wgpu::Device) -> wgpu::BindGroupLayout {
    dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("hall inputs"),
        entries: &[
            texture_entry(0),
            texture_entry(1),
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: true,
                    min_binding_size: wgpu::BufferSize::new(BLOCK_BYTES as u64),
                },
                count: None,
            },
        ],
    })
}

/// Every pass's (start, len) and the shader's u8 settings (depth, wide, top product and sum
/// bits), each pass at its own aligned offset.
fn block_uniforms(
    dev: &wgpu::Device,
    blocks: &[(u32, u32)],
    stride: u32,
    shader: [u32; 4],
) -> wgpu::Buffer {
    let mut uniforms = vec![0u8; stride as usize * blocks.len()];
    for (t, &(start, len)) in blocks.iter().enumerate() {
        let at = t * stride as usize;
        uniforms[at..at + 24].copy_from_slice(bytemuck::cast_slice(&[
            start, len, shader[0], shader[1], shader[2], shader[3],
        ]));
    }
    crate::gpu::staging::create_buffer_init(
        dev,
        &wgpu::util::BufferInitDescriptor {
            label: Some("hall blocks"),
            contents: &uniforms,
            usage: wgpu::BufferUsages::UNIFORM,
        },
    )
}

/// Group 0: the inputs x and y and the passes' uniforms.
fn input_group(
    dev: &wgpu::Device,
    layout0: &wgpu::BindGroupLayout,
    (x, y): (&MatrixTexture, &MatrixTexture),
    ubuf: &wgpu::Buffer,
) -> wgpu::BindGroup {
    dev.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("hall inputs"),
        layout: layout0,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&x.view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&y.view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: ubuf,
                    offset: 0,
                    size: wgpu::BufferSize::new(BLOCK_BYTES as u64),
                }),
            },
        ],
    })
}

impl Engine {
    /// Build everything for multiplying textures `x` (rows × depth) and `y` (depth × cols) in
    /// blocks of `block` along `depth`, in the variant's f32 format.
    pub fn new(
        ctx: &GpuContext,
        v: &Variant,
        x: &MatrixTexture,
        y: &MatrixTexture,
        depth: usize,
        block: u32,
        accumulate: Accumulate,
    ) -> Result<Self> {
        Self::build(ctx, v, v.format, 0, x, y, depth, block, accumulate)
    }

    /// [`Engine::new`] with accumulation textures of `format` (the variant's format at another
    /// precision) and, if `u8_depth` > 0, the shader's 8-bit pipeline with polygon colour
    /// 1/`u8_depth`.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        ctx: &GpuContext,
        v: &Variant,
        format: wgpu::TextureFormat,
        u8_depth: u32,
        x: &MatrixTexture,
        y: &MatrixTexture,
        depth: usize,
        block: u32,
        accumulate: Accumulate,
    ) -> Result<Self> {
        Self::build_bits(
            ctx,
            v,
            format,
            u8_depth,
            U8Bits::default(),
            x,
            y,
            depth,
            block,
            accumulate,
        )
    }

    /// [`Engine::build`] with the u8 widths `bits` (L-M §4): the shader keeps each pass's block
    /// value at `bits.product` bits and adds it to a `bits.sum`-bit running sum (`format` is then
    /// `R16Unorm` / `Rgba16Unorm` for a 16-bit sum). The default widths run the shader's 8-bit
    /// pipeline as it always ran.
    #[allow(clippy::too_many_arguments)]
    pub fn build_bits(
        ctx: &GpuContext,
        v: &Variant,
        format: wgpu::TextureFormat,
        u8_depth: u32,
        bits: U8Bits,
        x: &MatrixTexture,
        y: &MatrixTexture,
        depth: usize,
        block: u32,
        accumulate: Accumulate,
    ) -> Result<Self> {
        ctx.require_render(
            v.method.name(),
            format,
            accumulate == Accumulate::Blend,
            "its passes render the running sum into float targets; try another backend (WGPU_BACKEND=vulkan) or another --precision",
        )?;
        let (rows, cols) = (x.rows, y.cols);
        let blocks = blocks(depth, block);
        let stride = BLOCK_BYTES.next_multiple_of(ctx.limits.min_uniform_buffer_offset_alignment);
        let wide = u32::from(u8_depth > 0 && !bits.is_default());
        let (top_p, top_s) = (
            U8Bits::top(bits.product) as u32,
            U8Bits::top(bits.sum) as u32,
        );
        let names: &[&str] = match accumulate {
            Accumulate::PingPong => &["C ping", "C pong"],
            Accumulate::Copy => &["C (framebuffer)", "F"],
            Accumulate::Blend => &["C (framebuffer)"],
        };
        let textures = names
            .iter()
            .map(|l| MatrixTexture::new(ctx, l, rows, cols, format, TARGET_USAGE))
            .collect::<Result<Vec<_>>>()?;
        let f_reads: &[usize] = match accumulate {
            Accumulate::PingPong => &[0, 1],
            Accumulate::Copy => &[1],
            Accumulate::Blend => &[],
        };
        let reads_f = accumulate != Accumulate::Blend;
        let kept = Self::pipelines(ctx, v, format, reads_f)?;
        let (layout0, layout1, pipeline) = (&kept.0, &kept.1, kept.2.clone());
        ctx.scoped(&format!("binding the {} operands", v.name), || {
            let dev = &ctx.device;
            let ubuf = block_uniforms(dev, &blocks, stride, [u8_depth, wide, top_p, top_s]);
            let group0 = input_group(dev, layout0, (x, y), &ubuf);
            let f_groups = f_reads
                .iter()
                .map(|&i| {
                    let g = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some("hall F"),
                        layout: layout1,
                        entries: &[wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::TextureView(&textures[i].view),
                        }],
                    });
                    (i, g)
                })
                .collect();
            Ok(Self {
                accumulate,
                blocks: blocks.len(),
                stride,
                pipeline,
                group0,
                textures,
                f_groups,
            })
        })
    }

    /// The pipeline and its two layouts (inputs; F) for `v` rendering into `format`, reading F
    /// or blending. They depend on nothing else, so they are built once per context
    /// (`gpu::cache`); the textures, the uniforms and the bind groups are each product's.
    fn pipelines(
        ctx: &GpuContext,
        v: &Variant,
        format: wgpu::TextureFormat,
        reads_f: bool,
    ) -> Result<
        std::sync::Arc<(
            wgpu::BindGroupLayout,
            wgpu::BindGroupLayout,
            wgpu::RenderPipeline,
        )>,
    > {
        let key = (v.shader_file, format, reads_f, v.write_mask.bits());
        ctx.pipelines.get_or_build(&key, || {
            let module = ctx.shader(v.shader_file, v.source)?;
            ctx.scoped(&format!("building the {} pipelines", v.name), || {
                let dev = &ctx.device;
                let layout0 = input_layout(dev);
                let layout1 = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some("hall F"),
                    entries: &[texture_entry(0)],
                });
                let layouts: &[Option<&wgpu::BindGroupLayout>] = if reads_f {
                    &[Some(&layout0), Some(&layout1)]
                } else {
                    &[Some(&layout0)]
                };
                let pl = dev.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(v.name),
                    bind_group_layouts: layouts,
                    immediate_size: 0,
                });
                let pipeline = crate::gpu::pipeline::fullscreen(
                    dev,
                    v.name,
                    Some(&pl),
                    &module,
                    "vs_main",
                    wgpu::PrimitiveTopology::TriangleStrip,
                    if reads_f { "fs_accumulate" } else { "fs_blend" },
                    &[Some(wgpu::ColorTargetState {
                        format,
                        blend: (!reads_f).then_some(crate::gpu::pipeline::ADDITIVE),
                        write_mask: v.write_mask,
                    })],
                );
                Ok((layout0, layout1, pipeline))
            })
        })
    }

    /// The number of passes.
    pub fn passes(&self) -> usize {
        self.blocks
    }

    /// Index of the texture holding the running sum after pass `t` (0-based).
    fn holder(&self, t: usize) -> usize {
        match self.accumulate {
            Accumulate::PingPong => (t + 1) % 2,
            Accumulate::Blend | Accumulate::Copy => 0,
        }
    }

    /// The bind group reading texture `i` as F (an internal error if the engine made none).
    fn f_group(&self, i: usize) -> Result<&wgpu::BindGroup> {
        self.f_groups
            .iter()
            .find(|(j, _)| *j == i)
            .map(|(_, g)| g)
            .ok_or_else(|| Error::Internal(format!("hall: no bind group reads texture {i} as F")))
    }

    // ANCHOR: draw_pass
    /// Record one pass: draw the quad for block `t` into `target`, cleared first if `clear`.
    fn draw(
        &self,
        enc: &mut wgpu::CommandEncoder,
        t: usize,
        target: usize,
        f: Option<usize>,
        clear: bool,
    ) -> Result<()> {
        let f = f.map(|f| self.f_group(f)).transpose()?;
        let mut pass = color_pass(enc, "hall pass", &[&self.textures[target].view], clear);
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.group0, &[t as u32 * self.stride]);
        if let Some(f) = f {
            pass.set_bind_group(1, f, &[]);
        }
        pass.draw(0..4, 0..1);
        Ok(())
    }
    // ANCHOR_END: draw_pass

    /// `start`, if given, must be a texture like the one the passes accumulate into.
    fn check_start(&self, start: Option<&MatrixTexture>) -> Result<()> {
        if let Some(s) = start {
            let t = &self.textures[0];
            if (s.rows, s.cols, s.format) != (t.rows, t.cols, t.format) {
                return Err(Error::Invalid(format!(
                    "the running sum to start from is {:?} {}x{}, the passes accumulate into {:?} {}x{}",
                    s.format, s.rows, s.cols, t.format, t.rows, t.cols
                )));
            }
        }
        Ok(())
    }

    /// F starts at zero, or at `start`; in blend mode the first pass then loads it.
    fn start_f(&self, enc: &mut wgpu::CommandEncoder, start: Option<&MatrixTexture>) {
        let first_f = match self.accumulate {
            Accumulate::PingPong => Some(0),
            Accumulate::Copy => Some(1),
            Accumulate::Blend => start.is_some().then_some(0),
        };
        match (start, first_f) {
            (Some(s), Some(i)) => enc.copy_texture_to_texture(
                s.texture.as_image_copy(),
                self.textures[i].texture.as_image_copy(),
                extent(s.rows, s.cols),
            ),
            (None, Some(i)) => drop(color_pass(
                enc,
                "hall clear F",
                &[&self.textures[i].view],
                true,
            )),
            _ => {}
        }
    }

    /// Record every pass into `work`, as command buffers for the runner to submit. With
    /// `per_pass` each pass is a command buffer of its own, after which the observer sees the
    /// texture holding the running sum (pass and copy alike); without, the passes share one
    /// command buffer, except in copy mode, where each copy is a [`Phase::Copy`] step of its own
    /// between the passes' [`Phase::Compute`] steps so the runner can time it.
    ///
    /// The running sum starts at zero, or at `start`: `start` is copied into the first F
    /// (ping-pong, copy) or into the framebuffer the first pass then blends onto (blend).
    /// The tiled driver (a layer up) uses it to carry one block of C from one chunk of k to the next on
    /// the GPU; with chunks that are whole blocks of b the passes, and so the sums, are exactly
    /// those of one run over the whole of k.
    pub fn record(
        mut self,
        ctx: &GpuContext,
        work: &mut Work,
        start: Option<&MatrixTexture>,
        per_pass: bool,
    ) -> Result<Recorded> {
        self.check_start(start)?;
        let passes = self.blocks;
        let acc = self.accumulate;
        let new_encoder = || ctx.device.create_command_encoder(&Default::default());
        ctx.scoped(
            &format!("recording the Hall–Carr–Hart passes ({acc})"),
            || {
                let mut enc = new_encoder();
                self.start_f(&mut enc, start);
                let first_clear = start.is_none();
                if acc == Accumulate::Blend && !per_pass {
                    // One render pass, one draw per block: the blend unit sums them as in L-M.
                    let mut pass = color_pass(
                        &mut enc,
                        "hall pass",
                        &[&self.textures[0].view],
                        first_clear,
                    );
                    pass.set_pipeline(&self.pipeline);
                    for t in 0..passes {
                        pass.set_bind_group(0, &self.group0, &[t as u32 * self.stride]);
                        pass.draw(0..4, 0..1);
                    }
                } else {
                    // ANCHOR: passes
                    for t in 0..passes {
                        match acc {
                            Accumulate::PingPong => {
                                self.draw(&mut enc, t, (t + 1) % 2, Some(t % 2), true)
                            }
                            Accumulate::Blend => {
                                self.draw(&mut enc, t, 0, None, t == 0 && first_clear)
                            }
                            Accumulate::Copy => self.draw(&mut enc, t, 0, Some(1), true),
                        }?;
                        let copy = acc == Accumulate::Copy && t + 1 < passes;
                        if per_pass || copy {
                            work.push(
                                std::mem::replace(&mut enc, new_encoder()).finish(),
                                Phase::Compute,
                            );
                        }
                        if copy {
                            // The paper's "copy frame buffer into texture F", timed by the runner.
                            let (fb, f) = (&self.textures[0], &self.textures[1]);
                            let mut c = new_encoder();
                            c.copy_texture_to_texture(
                                fb.texture.as_image_copy(),
                                f.texture.as_image_copy(),
                                extent(fb.rows, fb.cols),
                            );
                            work.push(c.finish(), Phase::Copy);
                        }
                        if per_pass {
                            work.observe(t + 1, &self.textures[self.holder(t)]);
                        }
                    }
                    // ANCHOR_END: passes
                }
                if !per_pass {
                    work.push(enc.finish(), Phase::Compute);
                }
                Ok(())
            },
        )?;
        let copy_timing = (acc == Accumulate::Copy && passes > 1).then(|| match copy_clock(ctx) {
            Clock::GpuTimestamp | Clock::CpuAdapterTimestamp => {
                "by GPU timestamps around each copy"
            }
            Clock::WallClock => "by waiting before and after each copy",
        });
        let result = self.textures.swap_remove(self.holder(passes - 1));
        Ok(Recorded {
            result,
            passes,
            accumulate: acc,
            copy_timing,
        })
    }
}
