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
//! [`verdict_f16`] (`coop`'s [`super::coop::error_bound`]), not to the f32 methods' bound.
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
use crate::gpu::buffer::MatrixBuffer;
use crate::gpu::pipeline::{color_pass, texture_entry};
use crate::gpu::run::{Phase, Read};
use crate::gpu::texture::{INPUT_USAGE, MatrixTexture, TARGET_USAGE};
use crate::matrix::Matrix;
use std::fmt::Write as _;

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

/// The register block of one fragment and how its k loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Rows of C per fragment (a multiple of 4: one A texel per 4 rows).
    pub rows: u32,
    /// Columns of C per fragment (a multiple of 4: one B texel per 4 columns).
    pub cols: u32,
    /// Steps of k per loop iteration (a multiple of 2 with `share`).
    pub unroll: u32,
    /// Share A and B texels across each 2×2 quad with `quadSwapX` / `quadSwapY`.
    pub share: bool,
    /// Where the fragments read A (`a=`) and B (`b=`): textures (the default) or read-only
    /// storage buffers ([`Source::Buffer`]); `src=` sets both.
    pub a_src: Source,
    pub b_src: Source,
    /// Software pipelining (`pf=1`): each iteration fetches the next iteration's texels before
    /// its multiply-adds, so a fetch's latency overlaps a whole iteration of arithmetic.
    pub prefetch: bool,
}

/// Where a fragment reads its A and B values from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Source {
    /// `textureLoad` of the packed textures: the texture unit, as in 2003.
    #[default]
    Texture,
    /// Indexing read-only storage buffers from the fragment shader (f32 inputs only): Aᵀ and B
    /// as arrays of `vec4f`, read through the load/store path and its L1 cache rather than the
    /// texture unit — a fragment stage that did not exist in 2003, kept to show where the
    /// texture path's own limit lies.
    Buffer,
}

impl Default for Shape {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl Shape {
    /// 4×8 outputs (8 RGBA32F attachments, 128 bytes), k unrolled by 4, quad sharing on.
    pub const DEFAULT: Shape = Shape {
        rows: 4,
        cols: 8,
        unroll: 4,
        share: true,
        a_src: Source::Texture,
        b_src: Source::Texture,
        prefetch: false,
    };

    /// Colour attachments written per fragment: R·C/4.
    pub fn attachments(&self) -> u32 {
        self.rows * self.cols / 4
    }

    /// A texels per step of k (R/4).
    pub fn a_texels(&self) -> u32 {
        self.rows / 4
    }

    /// B texels per step of k (C/4).
    pub fn b_texels(&self) -> u32 {
        self.cols / 4
    }

    /// Steps of k one fragment's loads cover (2 when the quad partner loads the other one).
    pub fn step(&self) -> u32 {
        if self.share { 2 } else { 1 }
    }

    /// Multiply-adds per texel a fragment fetches: 4RC/(R+C), doubled by sharing.
    pub fn fma_per_texel(&self) -> f64 {
        (self.rows * self.cols * self.step()) as f64 / (self.a_texels() + self.b_texels()) as f64
    }

    /// Parse `RxC` and/or comma-separated `rows=`, `cols=`, `unroll=`, `share=` (0/1), `pf=`
    /// (0/1), `src=`, `a=`, `b=` (texture/buffer), each defaulting to [`Shape::DEFAULT`]'s; e.g.
    /// `8x4`, `4x8,share=0`, `rows=4,cols=4,unroll=8`, `8x4,unroll=2,pf=1`, `8x4,src=buffer`.
    pub fn parse(s: &str) -> Result<Shape> {
        let bad = |why: String| Error::Invalid(format!("frag-mrt shape '{s}': {why}"));
        let num = |k: &str, v: &str| {
            v.trim()
                .parse::<u32>()
                .map_err(|_| bad(format!("{k} = '{v}' is not a whole number")))
        };
        let mut shape = Shape::DEFAULT;
        let mut share_given = false;
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some((r, c)) = part.split_once(['x', 'X']).filter(|_| !part.contains('=')) {
                shape.rows = num("rows", r)?;
                shape.cols = num("cols", c)?;
                continue;
            }
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad(format!("'{part}' is neither RxC nor key=value")))?;
            match k.trim() {
                "rows" => shape.rows = num("rows", v)?,
                "cols" => shape.cols = num("cols", v)?,
                "unroll" => shape.unroll = num("unroll", v)?,
                "share" => {
                    share_given = true;
                    shape.share = match v.trim() {
                        "1" | "on" | "true" | "yes" => true,
                        "0" | "off" | "false" | "no" => false,
                        _ => return Err(bad(format!("share = '{v}': give 0 or 1"))),
                    }
                }
                "pf" => {
                    shape.prefetch = match v.trim() {
                        "1" | "on" | "true" | "yes" => true,
                        "0" | "off" | "false" | "no" => false,
                        _ => return Err(bad(format!("pf = '{v}': give 0 or 1"))),
                    }
                }
                key @ ("src" | "a" | "b") => {
                    let src = match v.trim() {
                        "texture" => Source::Texture,
                        "buffer" => Source::Buffer,
                        _ => return Err(bad(format!("{key} = '{v}': give texture or buffer"))),
                    };
                    if key != "b" {
                        shape.a_src = src;
                    }
                    if key != "a" {
                        shape.b_src = src;
                    }
                }
                other => {
                    return Err(bad(format!(
                        "unknown key '{other}' (rows, cols, unroll, share, pf, src, a, b)"
                    )));
                }
            }
        }
        if shape.count(Source::Texture) == 0 && !share_given {
            // Quad swaps save texture lookups; with no texture there is nothing to share.
            shape.share = false;
        }
        shape.validate().map_err(|e| bad(e.to_string()))?;
        Ok(shape)
    }

    /// The shape a request named, or [`Shape::DEFAULT`] where it named none.
    pub fn chosen(named: Option<Shape>) -> Shape {
        named.unwrap_or(Shape::DEFAULT)
    }

    /// Checks that need no adapter: multiples of 4, an unroll the sharing can split.
    pub fn validate(&self) -> Result<()> {
        if self.share && self.count(Source::Texture) == 0 {
            return Err(Error::Invalid(
                "share=1 with src=buffer: quad sharing swaps the texels of a quad's texture fetches, and there are none; give share=0 (the default with src=buffer)".into(),
            ));
        }
        if self.rows == 0
            || self.cols == 0
            || !self.rows.is_multiple_of(4)
            || !self.cols.is_multiple_of(4)
        {
            return Err(Error::Invalid(format!(
                "a {}x{} block: rows and cols must be positive multiples of 4 (one RGBA texel holds 4)",
                self.rows, self.cols
            )));
        }
        if self.unroll == 0 || !self.unroll.is_multiple_of(self.step()) || self.unroll > 64 {
            return Err(Error::Invalid(format!(
                "unroll = {}: give 1..=64{}",
                self.unroll,
                if self.share {
                    ", even with share=1 (each load covers 2 steps of k)"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }

    /// Checks against the adapter's limits: attachments, bytes per sample, sampled textures
    /// (ping-pong reads A, B and every attachment of the previous pass).
    pub fn check_limits(&self, ctx: &GpuContext, reads_f: bool) -> Result<()> {
        self.validate()?;
        let l = &ctx.limits;
        let n = self.attachments();
        let checks = [
            (
                "frag-mrt colour attachments (rows·cols/4)",
                n,
                "max_color_attachments",
                l.max_color_attachments,
            ),
            (
                "frag-mrt bytes per sample (rows·cols·4)",
                n * 16,
                "max_color_attachment_bytes_per_sample",
                l.max_color_attachment_bytes_per_sample,
            ),
            (
                "frag-mrt sampled textures (A and B unless buffers, + attachments with ping-pong)",
                self.count(Source::Texture) + if reads_f { n } else { 0 },
                "max_sampled_textures_per_shader_stage",
                l.max_sampled_textures_per_shader_stage,
            ),
            (
                "frag-mrt storage buffers in the fragment stage (A and B read from buffers)",
                self.count(Source::Buffer),
                "max_storage_buffers_per_shader_stage",
                l.max_storage_buffers_per_shader_stage,
            ),
        ];
        for (what, value, limit, max) in checks {
            if value > max {
                return Err(Error::Limit {
                    what: format!("{what} for a {}x{} block", self.rows, self.cols),
                    value: value as u64,
                    limit,
                    max: max as u64,
                });
            }
        }
        Ok(())
    }

    /// Whether A or B is read from a storage buffer.
    pub fn reads_buffers(&self) -> bool {
        self.count(Source::Buffer) > 0
    }

    /// How many of A and B are read from `src`.
    fn count(&self, src: Source) -> u32 {
        u32::from(self.a_src == src) + u32::from(self.b_src == src)
    }

    /// `4x8,unroll=4,share=1` (and `,pf=1` with prefetch, `,src=buffer`, `,a=buffer` or
    /// `,b=buffer` when it reads buffers): the form [`Shape::parse`] reads.
    pub fn name(&self) -> String {
        format!(
            "{}x{},unroll={},share={}{}{}",
            self.rows,
            self.cols,
            self.unroll,
            u8::from(self.share),
            if self.prefetch { ",pf=1" } else { "" },
            match (self.a_src, self.b_src) {
                (Source::Texture, Source::Texture) => "",
                (Source::Buffer, Source::Buffer) => ",src=buffer",
                (Source::Buffer, Source::Texture) => ",a=buffer",
                (Source::Texture, Source::Buffer) => ",b=buffer",
            }
        )
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

/// The packed sizes of one product m×k·k×n in a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Shape,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Tiles (fragments) down and across: ⌈m/R⌉ and ⌈n/C⌉, rounded up to even with sharing.
    pub tiles_m: usize,
    pub tiles_n: usize,
    /// k padded to a multiple of the unroll: the A texture's width and the B texture's height.
    pub kp: usize,
}

impl Layout {
    pub fn new(shape: Shape, m: usize, k: usize, n: usize) -> Layout {
        let even = |t: usize| {
            if shape.share {
                t.next_multiple_of(2)
            } else {
                t
            }
        };
        Layout {
            shape,
            m,
            k,
            n,
            tiles_m: even(m.div_ceil(shape.rows as usize)),
            tiles_n: even(n.div_ceil(shape.cols as usize)),
            kp: k.next_multiple_of(shape.unroll as usize),
        }
    }

    /// (height, width) of the packed A texture: tiles_m·R/4 × k'.
    pub fn a_size(&self) -> (usize, usize) {
        (self.tiles_m * self.shape.a_texels() as usize, self.kp)
    }

    /// (height, width) of the packed B texture: k' × tiles_n·C/4.
    pub fn b_size(&self) -> (usize, usize) {
        (self.kp, self.tiles_n * self.shape.b_texels() as usize)
    }

    /// The passes' (start, end) ranges of padded k: one pass over all of k' when `block` is
    /// `None`, else blocks of b rounded up to a multiple of the unroll (the last may be shorter,
    /// still a multiple of it). Every bound is a multiple of the unroll and at most k'.
    pub fn blocks(&self, block: Option<u32>) -> Vec<(u32, u32)> {
        let u = self.shape.unroll as usize;
        let b = block
            .map_or(self.kp, |b| (b.max(1) as usize).next_multiple_of(u))
            .max(u);
        (0..self.kp)
            .step_by(b)
            .map(|s| (s as u32, (s + b).min(self.kp) as u32))
            .collect()
    }

    /// The A texels, row-major: texel (x = p, y = Y) = column p of rows 4Y..4Y+3, zero-padded.
    pub fn pack_a(&self, a: &Matrix) -> Vec<[f32; 4]> {
        self.pack_a_as(a)
    }

    /// [`Layout::pack_a`] rounded to f16 (round to nearest even), for `Rgba16Float`.
    pub fn pack_a_f16(&self, a: &Matrix) -> Vec<[half::f16; 4]> {
        self.pack_a_as(a)
    }

    /// The B texels, row-major: texel (x = X, y = p) = row p of columns 4X..4X+3, zero-padded.
    pub fn pack_b(&self, b: &Matrix) -> Vec<[f32; 4]> {
        self.pack_b_as(b)
    }

    /// [`Layout::pack_b`] rounded to f16 (round to nearest even), for `Rgba16Float`.
    pub fn pack_b_f16(&self, b: &Matrix) -> Vec<[half::f16; 4]> {
        self.pack_b_as(b)
    }

    /// Pack A (`is_a`) or B in `inputs`' format and write it into `tex`.
    fn write_packed(
        &self,
        ctx: &GpuContext,
        tex: &MatrixTexture,
        x: &Matrix,
        is_a: bool,
        inputs: Inputs,
    ) -> Result<()> {
        match inputs {
            Inputs::F32 => self.upload_packed::<f32>(ctx, tex, x, is_a),
            Inputs::F16 => self.upload_packed::<half::f16>(ctx, tex, x, is_a),
        }
    }

    /// Pack `x` (A when `is_a`, else B) texel row by texel row straight into the texture's
    /// mapped staging buffer, on threads (`gpu::host::fill_rows`): no packed matrix in between,
    /// whose fresh pages cost more to fault in than the packing.
    fn upload_packed<T: Channel>(
        &self,
        ctx: &GpuContext,
        tex: &MatrixTexture,
        x: &Matrix,
        is_a: bool,
    ) -> Result<()> {
        let w = tex.cols;
        ctx.staging
            .upload_texture(ctx, &tex.texture, |view, range, pitch| {
                crate::gpu::host::fill_rows(view, range.len(), w, pitch, |r, out: &mut [[T; 4]]| {
                    let y = range.start + r;
                    if is_a {
                        self.pack_a_row(x, y, out);
                    } else {
                        self.pack_b_row(x, y, out);
                    }
                })
            })
    }

    /// Texel row Y of A holds rows 4Y..4Y+3 of A interleaved: gathered into an f32 row, then
    /// converted in one go (`half`'s slice conversion uses the CPU's f16 instructions). Every
    /// texel of `out` is written: zeros past A.
    fn pack_a_row<T: Channel>(&self, a: &Matrix, y: usize, out: &mut [[T; 4]]) {
        out.fill([T::zeroed(); 4]);
        let i0 = 4 * y;
        if i0 >= a.rows {
            return;
        }
        let mut gathered = vec![0.0f32; 4 * a.cols];
        for r in 0..4 {
            if i0 + r < a.rows {
                let row = &a.data[(i0 + r) * a.cols..][..a.cols];
                for p in 0..a.cols {
                    gathered[4 * p + r] = row[p];
                }
            }
        }
        T::convert(bytemuck::cast_slice_mut(&mut out[..a.cols]), &gathered);
    }

    /// Texel row p of B is row p of B, zero-padded: converted straight from the matrix.
    fn pack_b_row<T: Channel>(&self, b: &Matrix, p: usize, out: &mut [[T; 4]]) {
        out.fill([T::zeroed(); 4]);
        if p < b.rows {
            let flat: &mut [T] = bytemuck::cast_slice_mut(out);
            T::convert(&mut flat[..b.cols], &b.data[p * b.cols..][..b.cols]);
        }
    }

    /// The packed texels of A (`a_size`, row-major), as [`Self::upload_packed`] writes them.
    fn pack_a_as<T: Channel>(&self, a: &Matrix) -> Vec<[T; 4]> {
        let (h, w) = self.a_size();
        let mut out: Vec<[T; 4]> = bytemuck::zeroed_vec(h * w);
        crate::gpu::host::by_rows(&mut out, w, |first, rows| {
            for (y, texels) in rows.chunks_mut(w).enumerate() {
                self.pack_a_row(a, first + y, texels);
            }
        });
        out
    }

    /// The packed texels of B (`b_size`, row-major), as [`Self::upload_packed`] writes them.
    fn pack_b_as<T: Channel>(&self, b: &Matrix) -> Vec<[T; 4]> {
        let (_, w) = self.b_size();
        let mut out: Vec<[T; 4]> = bytemuck::zeroed_vec(self.kp * w);
        crate::gpu::host::by_rows(&mut out, w, |first, rows| {
            for (y, texels) in rows.chunks_mut(w).enumerate() {
                self.pack_b_row(b, first + y, texels);
            }
        });
        out
    }

    /// C from the attachments' texels (each tiles_m × tiles_n, row-major): attachment
    /// t = r·(C/4) + j, tile (J, I), channel c is C[R·I + r][C·J + 4j + c]. Padding is dropped.
    pub fn unpack<T: AsRef<[[f32; 4]]>>(&self, attachments: &[T]) -> Result<Matrix> {
        let attachments: Vec<&[[f32; 4]]> = attachments.iter().map(|t| t.as_ref()).collect();
        let s = self.shape;
        let want = self.tiles_m * self.tiles_n;
        if attachments.len() != s.attachments() as usize
            || attachments.iter().any(|t| t.len() != want)
        {
            return Err(Error::Invalid(format!(
                "frag-mrt unpack: {} attachments of {:?} texels given, a {} block over {}x{} tiles needs {} of {want}",
                attachments.len(),
                attachments.iter().map(|t| t.len()).collect::<Vec<_>>(),
                s.name(),
                self.tiles_m,
                self.tiles_n,
                s.attachments()
            )));
        }
        let (rr, cb) = (s.rows as usize, s.b_texels() as usize);
        let (m, n, tiles_n) = (self.m, self.n, self.tiles_n);
        let mut data = vec![0.0f32; m * n];
        if n == 0 {
            return Matrix::new(m, n, data);
        }
        // Row i of C is row i % R of its tile row, I = i / R: tile by tile (J), texel by texel of
        // the block's columns (j), four columns at a time, cropped at n.
        let attachments = &attachments;
        let fill = |first: usize, out: &mut [f32]| {
            for (di, row) in out.chunks_mut(n).enumerate() {
                let i = first + di;
                let (base, r) = ((i / rr) * tiles_n, i % rr);
                let mut j = 0;
                'tiles: for tj in 0..tiles_n {
                    for q in 0..cb {
                        let texel = &attachments[r * cb + q][base + tj];
                        let take = (n - j).min(4);
                        row[j..j + take].copy_from_slice(&texel[..take]);
                        j += take;
                        if j == n {
                            break 'tiles;
                        }
                    }
                }
            }
        };
        // Large results a band of rows per thread (the 64 MiB of a 4096² product took most of
        // frag-mrt's readback on one thread).
        let threads = crate::gpu::host::threads_for(m * n * 4);
        if threads <= 1 {
            fill(0, &mut data);
        } else {
            let rows_each = m.div_ceil(threads);
            std::thread::scope(|sc| {
                for (t, chunk) in data.chunks_mut(rows_each * n).enumerate() {
                    let fill = &fill;
                    sc.spawn(move || fill(t * rows_each, chunk));
                }
            });
        }
        Matrix::new(m, n, data)
    }
}

/// A channel of a packed input texel: f32 (`Rgba32Float`) or f16 (`Rgba16Float`).
trait Channel: bytemuck::Pod + Send + Sync {
    /// `dst[i]` = `src[i]` in this format (`dst` and `src` of the same length).
    fn convert(dst: &mut [Self], src: &[f32]);
}

impl Channel for f32 {
    fn convert(dst: &mut [f32], src: &[f32]) {
        dst.copy_from_slice(src);
    }
}

impl Channel for half::f16 {
    fn convert(dst: &mut [half::f16], src: &[f32]) {
        use half::slice::HalfFloatSliceExt;
        dst.convert_from_f32_slice(src);
    }
}

/// The WGSL of one [`Shape`]: `vs_main` (one triangle over the target), `fs_first` (the block
/// sum of the pass's range of k, also the blend pipeline's), `fs_acc` (the same plus F, the
/// running sum of the earlier passes, one texture per attachment in group 1).
pub fn shader_source(shape: &Shape) -> String {
    let (rows, ra, cb, u, step) = (
        shape.rows,
        shape.a_texels(),
        shape.b_texels(),
        shape.unroll,
        shape.step(),
    );
    let n = shape.attachments();
    let (a_buf, b_buf) = (shape.a_src == Source::Buffer, shape.b_src == Source::Buffer);
    let lanes = ["x", "y", "z", "w"];
    let mut s = String::new();
    let w = &mut s;
    // `write!` into a String cannot fail.
    macro_rules! out {
        ($($t:tt)*) => { let _ = writeln!(w, $($t)*); };
    }
    out!(
        "// frag-mrt and frag-mrt-f16, {}x{} block, k unrolled by {u}, quad sharing {}: Hall, Carr &",
        rows,
        shape.cols,
        if shape.share { "on" } else { "off" }
    );
    out!("// Hart (2003) §4's RGBA channel packing taken to a register block per fragment.");
    match (a_buf, b_buf) {
        (true, true) => {
            out!("// src=buffer: A and B read from read-only storage buffers, not from textures.");
        }
        (true, false) => {
            out!("// a=buffer: A read from a read-only storage buffer, B from a texture.");
        }
        (false, true) => {
            out!("// b=buffer: B read from a read-only storage buffer, A from a texture.");
        }
        (false, false) => {}
    }
    out!(
        "// Generated by src/methods/frag_mrt.rs (shader_source); this file is the default shape's"
    );
    out!(
        "// source, kept equal to the generator by tests/frag_mrt.rs. Layout and proofs: that file's docs."
    );
    out!("//");
    out!("// A: texel (x = p, y = Y) = A[4Y..4Y+3][p].  B: texel (x = X, y = p) = B[p][4X..4X+3].");
    out!(
        "// Both are Rgba32Float (frag-mrt) or Rgba16Float (frag-mrt-f16: rounded to f16 on upload,"
    );
    out!(
        "// half the bytes per texel; this project's variant, not the paper's). textureLoad returns"
    );
    out!("// a vec4f either way, and every product and sum below is f32.");
    out!("//");
    out!(
        "// One pass: the fragment at tile (J, I) = (x, y) sums A[{rows}I+r][p] * B[p][{}J+c] over the",
        shape.cols
    );
    out!(
        "// pass's range of k in {} f32 registers (r < {rows}, c < {}) and writes the block",
        rows * shape.cols,
        shape.cols
    );
    out!(
        "// C[{rows}I .. {rows}I+{}][{}J .. {}J+{}] (fs_acc adds F, the earlier passes' sums); attachment",
        rows - 1,
        shape.cols,
        shape.cols,
        shape.cols - 1
    );
    out!("// t = r*{cb} + j holds row r of the block, columns 4j..4j+3.");
    out!("");
    out!("struct Pass {{");
    out!("    // This pass's range of padded k, both multiples of {u}.");
    out!("    k_start: u32,");
    out!("    k_end: u32,");
    if a_buf || b_buf {
        out!("    // vec4s per k-row of a_buf (Aᵀ) and of b_buf (B), where they are buffers.");
        out!("    a_row: u32,");
        out!("    b_row: u32,");
    } else {
        out!("    _pad0: u32,");
        out!("    _pad1: u32,");
    }
    out!("}};");
    out!("");
    if a_buf {
        out!("// a_buf[p·a_row + Y] = A[4Y..4Y+3][p] (Aᵀ).");
        out!("@group(0) @binding(0) var<storage, read> a_buf: array<vec4f>;");
    } else {
        out!("@group(0) @binding(0) var a_tex: texture_2d<f32>;");
    }
    if b_buf {
        out!("// b_buf[p·b_row + X] = B[p][4X..4X+3].");
        out!("@group(0) @binding(1) var<storage, read> b_buf: array<vec4f>;");
    } else {
        out!("@group(0) @binding(1) var b_tex: texture_2d<f32>;");
    }
    out!("@group(0) @binding(2) var<uniform> pass_range: Pass;");
    out!("// The running sum of the earlier passes (ping-pong), one texture per attachment.");
    for t in 0..n {
        out!("@group(1) @binding({t}) var f{t}: texture_2d<f32>;");
    }
    out!("");
    out!("struct Block {{");
    for t in 0..n {
        out!("    @location({t}) c{t}: vec4f,");
    }
    out!("}};");
    out!("");
    out!("// One triangle over the whole target: (-1,-1) (3,-1) (-1,3).");
    out!("@vertex");
    out!("fn vs_main(@builtin(vertex_index) vi: u32) -> @builtin(position) vec4f {{");
    out!("    let x = f32((vi << 1u) & 2u) * 2.0 - 1.0;");
    out!("    let y = f32(vi & 2u) * 2.0 - 1.0;");
    out!("    return vec4f(x, y, 0.0, 1.0);");
    out!("}}");
    out!("");
    out!("fn block_sum(pos: vec4f) -> Block {{");
    out!("    let tile = vec2u(pos.xy);");
    out!("    let ay = tile.y * {ra}u;");
    out!("    let bx = tile.x * {cb}u;");
    if shape.share {
        out!("    // Quad partners load the other step of each pair: s = 1 - partner's s.");
        out!("    let s = (tile.x ^ tile.y) & 1u;");
    }
    for r in 0..rows {
        let decl: Vec<String> = (0..cb)
            .map(|j| format!("var c{r}_{j} = vec4f(0.0);"))
            .collect();
        out!("    {}", decl.join(" "));
    }
    // The A texel (rows 4(ay + i)..) and the B texel (columns 4(bx + j)..) at step `k`, an
    // expression of the shader, from the texture or the buffer.
    let offset = |base: &str, d: u32| {
        if d == 0 {
            base.to_string()
        } else {
            format!("{base} + {d}u")
        }
    };
    // A step of k as a factor: bracketed when it is a sum.
    let factor = |k: &str| {
        if k.contains(' ') {
            format!("({k})")
        } else {
            k.to_string()
        }
    };
    let a_load = |k: &str, i: u32| {
        let y = offset("ay", i);
        if a_buf {
            format!("a_buf[{} * pass_range.a_row + {y}]", factor(k))
        } else {
            format!("textureLoad(a_tex, vec2u({k}, {y}), 0)")
        }
    };
    let b_load = |k: &str, j: u32| {
        let x = offset("bx", j);
        if b_buf {
            format!("b_buf[{} * pass_range.b_row + {x}]", factor(k))
        } else {
            format!("textureLoad(b_tex, vec2u({x}, {k}), 0)")
        }
    };
    let loads = u / step;
    // Load h's step of k from the iteration starting at `p`: p + s + h·step with sharing.
    let k_of = |p: &str, h: u32| match (shape.share, h * step) {
        (true, 0) => format!("{p} + s"),
        (true, o) => format!("{p} + s + {o}u"),
        (false, 0) => p.to_string(),
        (false, o) => format!("{p} + {o}u"),
    };
    // Load h's texels at step `k` (an expression of the shader): (name, lookup) for the A texels
    // a{h}_i and the B texels b{h}_j.
    let texels = |h: u32, k: &str| -> Vec<(String, String)> {
        (0..ra)
            .map(|i| (format!("a{h}_{i}"), a_load(k, i)))
            .chain((0..cb).map(|j| (format!("b{h}_{j}"), b_load(k, j))))
            .collect()
    };
    if shape.prefetch {
        out!(
            "    // pf=1: the texels of the first iteration; each iteration fetches the next one's."
        );
        for h in 0..loads {
            for (name, lookup) in texels(h, &k_of("pass_range.k_start", h)) {
                out!("    var n{name} = {lookup};");
            }
        }
    }
    out!("    for (var p = pass_range.k_start; p < pass_range.k_end; p += {u}u) {{");
    for h in 0..loads {
        out!("        let k{h} = {};", k_of("p", h));
        if shape.share && (a_buf || b_buf) {
            // The partner's step, p + off + 1 - s, read from the buffer rather than swapped.
            out!("        let k{h}q = k{h} ^ 1u;");
        }
        for (name, lookup) in texels(h, &format!("k{h}")) {
            if shape.prefetch {
                out!("        let {name} = n{name};");
            } else {
                out!("        let {name} = {lookup};");
            }
        }
    }
    if shape.prefetch {
        out!(
            "        // The next iteration's start (on the last, this one's again: its texels go unused)."
        );
        out!("        let pn = min(p + {u}u, pass_range.k_end - {u}u);");
        for h in 0..loads {
            for (name, lookup) in texels(h, &k_of("pn", h)) {
                out!("        n{name} = {lookup};");
            }
        }
    }
    // (A texel, B texel) name pairs of one step of k each.
    let mut pairs: Vec<(String, String)> = vec![];
    for h in 0..loads {
        pairs.push((format!("a{h}_"), format!("b{h}_")));
        if shape.share {
            for i in 0..ra {
                let v = if a_buf {
                    a_load(&format!("k{h}q"), i)
                } else {
                    format!("quadSwapX(a{h}_{i})")
                };
                out!("        let a{h}_{i}q = {v};");
            }
            for j in 0..cb {
                let v = if b_buf {
                    b_load(&format!("k{h}q"), j)
                } else {
                    format!("quadSwapY(b{h}_{j})")
                };
                out!("        let b{h}_{j}q = {v};");
            }
            pairs.push((format!("a{h}_"), format!("b{h}_")));
        }
    }
    let per_load = step as usize;
    for (idx, (a, b)) in pairs.iter().enumerate() {
        let q = if per_load == 2 && idx % 2 == 1 {
            "q"
        } else {
            ""
        };
        for r in 0..rows {
            let (i, lane) = (r / 4, lanes[(r % 4) as usize]);
            let fmas: Vec<String> = (0..cb)
                .map(|j| format!("c{r}_{j} += {a}{i}{q}.{lane} * {b}{j}{q};"))
                .collect();
            out!("        {}", fmas.join(" "));
        }
    }
    out!("    }}");
    let outs: Vec<String> = (0..rows)
        .flat_map(|r| (0..cb).map(move |j| format!("c{r}_{j}")))
        .collect();
    out!("    return Block({});", outs.join(", "));
    out!("}}");
    out!("");
    out!("@fragment");
    out!("fn fs_first(@builtin(position) pos: vec4f) -> Block {{");
    out!("    return block_sum(pos);");
    out!("}}");
    out!("");
    out!("@fragment");
    out!("fn fs_acc(@builtin(position) pos: vec4f) -> Block {{");
    out!("    var o = block_sum(pos);");
    out!("    let t = vec2u(pos.xy);");
    for t in 0..n {
        out!("    o.c{t} += textureLoad(f{t}, t, 0);");
    }
    out!("    return o;");
    out!("}}");
    s
}

/// Loop iterations of one fragment of a pass over depth `k`, for drivers that cap them
/// ([`super::Loops`]): the pass's k loop, one iteration per unrolled group of k steps (at least
/// one step each) over k padded by at most 4, and one that ends it.
pub fn loop_iterations(k: usize) -> u64 {
    k as u64 + 5
}

/// Record `a · b` with the block shape the request names (default [`Shape::DEFAULT`]).
pub fn record(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &Params) -> Result<Work> {
    let shape = Shape::chosen(opts.kernels.frag_mrt);
    record_with(ctx, a, b, opts, shape, Inputs::F32)
}

/// [`record`] with A and B rounded to f16 (`frag-mrt-f16`).
pub fn record_f16(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &Params) -> Result<Work> {
    let shape = Shape::chosen(opts.kernels.frag_mrt);
    record_with(ctx, a, b, opts, shape, Inputs::F16)
}

/// Record `a · b` with block shape `shape`, A and B packed as `inputs`: one pass over all of
/// k, or ⌈k'/b⌉ passes of b steps with `opts.block` = b, accumulated as `opts.accumulate` says
/// (ping-pong or blend).
pub fn record_with(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    opts: &Params,
    mut shape: Shape,
    inputs: Inputs,
) -> Result<Work> {
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

    let (ah, aw) = layout.a_size();
    let (bh, bw) = layout.b_size();
    let passes = blocks.len();
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
    let fed = [a_in, b_in];
    let sets = if reads_f { 2 } else { 1 };
    let targets: Vec<Vec<MatrixTexture>> = (0..sets)
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
        .collect::<Result<_>>()?;
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
    work.notes = notes;
    work.variant = Some(shape.name());
    if inputs == Inputs::F16 {
        work.inputs = Some(crate::precision::Precision::F16);
    }
    Ok(work)
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

/// Judge `c = a · b` as `frag-mrt-f16` computed it: the judge's verdict for f16 inputs and f32
/// sums ([`crate::check::Arith::F16Inputs`], `coop`'s bound).
///
/// The bound's argument holds here step by step: each input is rounded to f16 once (on upload,
/// round to nearest even, subnormals included); `textureLoad` of an `Rgba16Float` texel gives
/// the f16 values exactly as f32; the product of two f16 is exact in f32 (11 + 11 significant
/// bits), fused or not; and each f32 addition errs by at most one unit in the last place
/// (WGSL's rounding of f32 addition is faithful: 2⁻²³ relative), inside the 2⁻²² per addition
/// that `coop`'s γ_k allows for the tensor cores' truncation. No element's sum takes more than
/// k − 1 roundings: one pass adds its k' products in sequence (padding adds exact zeros), and
/// with blocks of b the P block sums reach C through P − 1 more additions (b − 1 + P − 1 ≤ k − 1).
/// Tiled products sum their k chunks in f64 on the host and round once (2⁻²⁴).
pub fn verdict_f16(a: &Matrix, b: &Matrix, c: &Matrix) -> crate::check::Verdict {
    crate::check::judge(
        crate::check::Arith::F16Inputs {
            tensor_cores: false,
        },
        a,
        b,
        c,
    )
}

/// A or B where the fragments read it ([`Source`]).
enum Input {
    Texture(MatrixTexture),
    Buffer(MatrixBuffer),
}

impl Input {
    /// Its bind-group layout entry, visible to the fragment stage.
    fn layout_entry(&self, binding: u32) -> wgpu::BindGroupLayoutEntry {
        match self {
            Input::Texture(_) => texture_entry(binding),
            Input::Buffer(_) => wgpu::BindGroupLayoutEntry {
                visibility: wgpu::ShaderStages::FRAGMENT,
                ..crate::gpu::pipeline::storage_entry(binding, true)
            },
        }
    }

    fn resource(&self) -> wgpu::BindingResource<'_> {
        match self {
            Input::Texture(t) => wgpu::BindingResource::TextureView(&t.view),
            Input::Buffer(b) => b.buffer.as_entire_binding(),
        }
    }
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
        let source = shader_source(shape);
        let label = format!("frag_mrt {}", shape.name());
        // SAFETY: every index in the generated shader is in range and its one loop ends; the
        // module docs give the proof, which rests on `Layout` (texture and buffer sizes, tile
        // counts) and `Layout::blocks` (pass bounds multiples of the unroll, at most k').
        let module = unsafe { ctx.shader_trusted(&label, &source)? };
        let blend = blocks.len() > 1 && accumulate == Accumulate::Blend;
        let stride = ctx.limits.min_uniform_buffer_offset_alignment.max(16);
        let dev = &ctx.device;
        ctx.scoped("building the frag-mrt pipelines", || {
            let layout0 = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("frag-mrt inputs"),
                entries: &[
                    fed[0].layout_entry(0),
                    fed[1].layout_entry(1),
                    wgpu::BindGroupLayoutEntry {
                        binding: 2,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: wgpu::BufferSize::new(16),
                        },
                        count: None,
                    },
                ],
            });
            let f_entries: Vec<_> = (0..shape.attachments()).map(texture_entry).collect();
            let layout1 = dev.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("frag-mrt F"),
                entries: &f_entries,
            });
            let color_targets: Vec<Option<wgpu::ColorTargetState>> = (0..shape.attachments())
                .map(|_| {
                    Some(wgpu::ColorTargetState {
                        format: C_FORMAT,
                        blend: blend.then_some(crate::gpu::pipeline::ADDITIVE),
                        write_mask: wgpu::ColorWrites::ALL,
                    })
                })
                .collect();
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
            let mut uniforms = vec![0u8; stride as usize * blocks.len()];
            for (t, &(start, end)) in blocks.iter().enumerate() {
                let at = t * stride as usize;
                uniforms[at..at + 16]
                    .copy_from_slice(bytemuck::cast_slice(&[start, end, a_row, b_row]));
            }
            let ubuf = crate::gpu::buffer::create_buffer_init(
                dev,
                &wgpu::util::BufferInitDescriptor {
                    label: Some("frag-mrt passes"),
                    contents: &uniforms,
                    usage: wgpu::BufferUsages::UNIFORM,
                },
            );
            let group0 = dev.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("frag-mrt inputs"),
                layout: &layout0,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: fed[0].resource(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: fed[1].resource(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &ubuf,
                            offset: 0,
                            size: wgpu::BufferSize::new(16),
                        }),
                    },
                ],
            });
            let f_groups = if reads_f {
                targets
                    .iter()
                    .map(|set| {
                        let entries: Vec<_> = set
                            .iter()
                            .enumerate()
                            .map(|(t, tex)| wgpu::BindGroupEntry {
                                binding: t as u32,
                                resource: wgpu::BindingResource::TextureView(&tex.view),
                            })
                            .collect();
                        dev.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some("frag-mrt F"),
                            layout: &layout1,
                            entries: &entries,
                        })
                    })
                    .collect()
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
        let ctx = GpuContext::new().expect("an adapter");
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
                    assert!(&got[..] == &want[..], "{m}x{k}x{n} {inputs:?} A={is_a}");
                }
            }
        }
    }
}
