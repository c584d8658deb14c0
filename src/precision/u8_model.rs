//! The CPU models of the 8-bit pipeline (L-M §4): what a u8 run must return, bit for bit, at
//! each width of the products and the sums the hardware of 2001 kept, pass by pass.

use super::{F16Model, F16Rounding, blocks, f16_model, to_unorm8};
use crate::error::Error;
use crate::error::Result;
use crate::matrix::Matrix;
use serde::Serialize;

/// The result of the CPU model of the 8-bit pipeline.
#[derive(Clone, Debug)]
pub struct U8Model {
    /// The quantized output, in [0, 1], as the framebuffer holds it (before any rescaling).
    pub c: Matrix,
    /// Elements whose running sum hit the 1.0 ceiling at some slice.
    pub saturated: usize,
}

/// The 8-bit pipeline of L-M §4 on the CPU: inputs quantized to 8 bits; each slice's product
/// times the polygon colour 1/`depth` (1, or k with `--scale-by-depth`) quantized to 8 bits as it
/// leaves the fragment stage; slices summed with saturation at 1.0 (`FF + 01 = FF`); output
/// 8-bit. Exact integer arithmetic in units of 1/255.
pub fn u8_model(a: &Matrix, b: &Matrix, depth: u32) -> U8Model {
    u8_model_rounding(a, b, depth, SliceRounding::HalfUp)
}

/// How one slice's product leaves the fragment stage as an 8-bit step: the rounding a u8 model
/// follows, which the run it models must share bit for bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SliceRounding {
    /// rendermm's shaders: `ia·ib / (255·depth)` rounded half up in exact integer arithmetic
    /// ([`u8_slice_steps`]).
    HalfUp,
    /// OpenGL 1.x's texture environment as Mesa's llvmpipe computes it (`lm-gl1`): the texels
    /// `ia·f32(1/255)`, the polygon colour `f32(1/depth)`, unit 0's `GL_MODULATE` (colour × A)
    /// then unit 1's (× B), each an f32 multiply, and the result to 8 bits as
    /// round-to-nearest-even of `x·255` in f32 ([`u8_slice_steps_fixed_function`]). Measured
    /// against llvmpipe (Mesa 22.3.6) on all 65 536 byte pairs at depths 1–1000; at depth 1
    /// it equals [`SliceRounding::HalfUp`] on every pair (no product lies on a tie).
    F32Nearest,
    /// OpenGL 1.x's texture environment as NVIDIA's driver computes it (`lm-gl1` on its EGL
    /// device): colour × A × B in f32, truncated to 12-bit fixed point, then to 8 bits with a
    /// bias just under a half ([`u8_slice_steps_fixed12`]). Measured on an H200 (driver
    /// 580.159.04) on all 65 536 byte pairs at seven polygon colours; at colour 1 it is one step
    /// below [`SliceRounding::HalfUp`] on 2 060 of them.
    Fixed12,
}

impl SliceRounding {
    /// How reports name it.
    pub fn name(self) -> &'static str {
        match self {
            SliceRounding::HalfUp => "exact, half up",
            SliceRounding::F32Nearest => "Mesa's modulate: f32, nearest even",
            SliceRounding::Fixed12 => "NVIDIA's modulate: f32 cut to 12 bits, then to 8",
        }
    }

    /// One slice's product in 8-bit steps.
    pub fn steps(self, ia: u32, ib: u32, depth: u32) -> u32 {
        match self {
            SliceRounding::HalfUp => u8_slice_steps(ia, ib, depth),
            SliceRounding::F32Nearest => u8_slice_steps_fixed_function(ia, ib, depth),
            SliceRounding::Fixed12 => u8_slice_steps_fixed12(ia, ib, depth),
        }
    }

    /// The rounding of the texture environment of the OpenGL driver whose `GL_VENDOR` is
    /// `vendor`: NVIDIA's fixed point, else Mesa's f32 (the two drivers measured).
    pub fn of_gl_vendor(vendor: &str) -> SliceRounding {
        if vendor.contains("NVIDIA") {
            SliceRounding::Fixed12
        } else {
            SliceRounding::F32Nearest
        }
    }
}

/// One slice's product in 8-bit steps as OpenGL 1.x's fixed-function texture environment
/// computes it on llvmpipe ([`SliceRounding::F32Nearest`]).
pub fn u8_slice_steps_fixed_function(ia: u32, ib: u32, depth: u32) -> u32 {
    let texel = |i: u32| i as f32 * (1.0f32 / 255.0);
    let colour = 1.0f32 / depth.max(1) as f32;
    let x = (colour * texel(ia)) * texel(ib);
    (x * 255.0).round_ties_even() as u32
}

/// One slice's product in 8-bit steps as NVIDIA's texture environment computes it
/// ([`SliceRounding::Fixed12`]): the texels `f32(ia/255)` and `f32(ib/255)`, the polygon colour
/// `f32(1/depth)`, their product in f32 (colour × A, then × B); that product truncated to 12-bit
/// fixed point, v = ⌊x·4096⌋; then (255·v + 2047) >> 12, to 8 bits with a bias of 2047/4096, a
/// hair under a half. On an H200 (driver 580.159.04) this matches the result on all 65 536 byte
/// pairs at polygon colours 1, 1/2, 1/16, 1/100, 1/255, 1/256 and 1/1000
/// (`docs/perf/h200/gl-era/modulate.txt` holds colour 1's table).
pub fn u8_slice_steps_fixed12(ia: u32, ib: u32, depth: u32) -> u32 {
    let texel = |i: u32| i as f32 / 255.0;
    let colour = 1.0f32 / depth.max(1) as f32;
    let x = (colour * texel(ia)) * texel(ib);
    let v = (x * 4096.0).floor() as u32;
    (255 * v + 2047) >> 12
}

/// [`u8_model`] with each slice's product rounded by `rounding`.
pub fn u8_model_rounding(a: &Matrix, b: &Matrix, depth: u32, rounding: SliceRounding) -> U8Model {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let qa: Vec<u32> = a.data.iter().map(|&v| to_unorm8(v) as u32).collect();
    let qb: Vec<u32> = b.data.iter().map(|&v| to_unorm8(v) as u32).collect();
    let mut acc = vec![0u32; m * n];
    let mut sat = vec![false; m * n];
    for p in 0..k {
        for i in 0..m {
            let ia = qa[i * k + p];
            for j in 0..n {
                let s = acc[i * n + j] + rounding.steps(ia, qb[p * n + j], depth);
                if s > 255 {
                    sat[i * n + j] = true;
                }
                acc[i * n + j] = s.min(255);
            }
        }
    }
    U8Model {
        c: Matrix {
            rows: m,
            cols: n,
            data: acc.iter().map(|&v| v as f32 / 255.0).collect(),
        },
        saturated: sat.iter().filter(|&&s| s).count(),
    }
}

/// One slice's product in 8-bit steps, as the shader computes it: the texels are `ia/255` and
/// `ib/255`, the polygon colour `1/depth`, so the product is `ia·ib / (255·depth)` steps, rounded
/// half up in exact integer arithmetic.
pub fn u8_slice_steps(ia: u32, ib: u32, depth: u32) -> u32 {
    let d = 255 * depth;
    (2 * ia * ib + d) / (2 * d)
}

/// The widths of the 8-bit pipeline's intermediate values, as L-M §4 traces them: the inputs are
/// always 8-bit texels and the output always an 8-bit framebuffer value; in between, the value a
/// fragment hands on (L-M: the product of two texels; Hall: the exact sum of its block of
/// products) is kept at `product` bits, and the running sum at `sum` bits.
///
/// - `product 8, sum 8` — rendermm's default and its u8 mode since the start: the value rounded
///   to 8 bits as it leaves the fragment stage and added into an 8-bit (`R8Unorm` /
///   `Rgba8Unorm`) framebuffer, saturating at 1.0. What any GPU does today with an 8-bit target.
/// - `product 14, sum 16` — the GeForce2 of §4: "the GeForce2 uses 14 bits of precision at this
///   step, so underflow errors can occur here (e.g. 1₈ * 1₈ = 00₈)"; the sum "requires k + 16
///   bits, where only 16 are given", with saturation; "the output, stored in the framebuffer,
///   reduces the precision back to 8 bits".
/// - `product 16, sum 16` — the GeForce3 of §4: "this internal precision increased to 16 bits".
///
/// Every width counts in unorm units: a value v kept at w bits is round(v·(2^w − 1)), rounded
/// half up (exact integer arithmetic, in the shaders as in [`U8Bits::pass_steps`]). Passing from
/// w to w' bits is round(q·(2^w' − 1)/(2^w − 1)); 8 → 16 is exact (65535 = 255·257). The 16-bit
/// sum lives in an `R16Unorm` / `Rgba16Unorm` target (wgpu's `TEXTURE_FORMAT_16BIT_NORM`), and a
/// final pass reduces it to 8 bits into an `R8Unorm` / `Rgba8Unorm` target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct U8Bits {
    /// Bits the value a fragment hands on is kept at: 8, 14 or 16.
    #[serde(rename = "product_bits")]
    pub product: u32,
    /// Bits of the running sum: 8 or 16.
    #[serde(rename = "sum_bits")]
    pub sum: u32,
}

impl Default for U8Bits {
    fn default() -> Self {
        U8Bits::RENDERMM
    }
}

impl U8Bits {
    /// rendermm's default: an 8-bit value blended into an 8-bit framebuffer.
    pub const RENDERMM: U8Bits = U8Bits { product: 8, sum: 8 };
    /// L-M §4's GeForce2: 14-bit products, a 16-bit saturating sum, 8 bits out.
    pub const GEFORCE2: U8Bits = U8Bits {
        product: 14,
        sum: 16,
    };
    /// L-M §4's GeForce3: 16-bit products, a 16-bit saturating sum, 8 bits out.
    pub const GEFORCE3: U8Bits = U8Bits {
        product: 16,
        sum: 16,
    };
    /// The product widths `--u8-product-bits` takes.
    pub const PRODUCT_BITS: [u32; 3] = [8, 14, 16];
    /// The sum widths `--u8-sum-bits` takes.
    pub const SUM_BITS: [u32; 2] = [8, 16];
    /// Every combination, rendermm's default first.
    pub const ALL: [U8Bits; 6] = [
        U8Bits { product: 8, sum: 8 },
        U8Bits {
            product: 14,
            sum: 8,
        },
        U8Bits {
            product: 16,
            sum: 8,
        },
        U8Bits {
            product: 8,
            sum: 16,
        },
        U8Bits::GEFORCE2,
        U8Bits::GEFORCE3,
    ];

    /// The widths, or an error naming what is allowed.
    pub fn new(product: u32, sum: u32) -> Result<Self> {
        if !Self::PRODUCT_BITS.contains(&product) {
            return Err(Error::Invalid(format!(
                "--u8-product-bits {product}: use 8, 14 (GeForce2, L-M §4) or 16 (GeForce3)"
            )));
        }
        if !Self::SUM_BITS.contains(&sum) {
            return Err(Error::Invalid(format!(
                "--u8-sum-bits {sum}: use 8 (an 8-bit framebuffer) or 16 (L-M §4's 16-bit sum)"
            )));
        }
        Ok(U8Bits { product, sum })
    }

    /// Whether these are rendermm's default widths (the 8-bit pipeline as it always ran).
    pub fn is_default(self) -> bool {
        self == Self::RENDERMM
    }

    /// `product 16 bits, sum 16 bits`.
    pub fn name(self) -> String {
        format!("product {} bits, sum {} bits", self.product, self.sum)
    }

    /// `p16 s16`, for tables.
    pub fn short(self) -> String {
        format!("p{} s{}", self.product, self.sum)
    }

    /// Which GPU of L-M §4 these widths are, if any.
    pub fn gpu(self) -> Option<&'static str> {
        match self {
            U8Bits::GEFORCE2 => Some("GeForce2, L-M §4"),
            U8Bits::GEFORCE3 => Some("GeForce3, L-M §4"),
            U8Bits::RENDERMM => Some("an 8-bit framebuffer, rendermm's default"),
            _ => None,
        }
    }

    /// The format of the texture the running sum lives in, for 1 or 4 channels.
    pub fn sum_format(self, channels: u32) -> wgpu::TextureFormat {
        use wgpu::TextureFormat as F;
        match (self.sum, channels) {
            (16, 4) => F::Rgba16Unorm,
            (16, _) => F::R16Unorm,
            (_, 4) => F::Rgba8Unorm,
            _ => F::R8Unorm,
        }
    }

    /// The largest integer of `bits` unorm bits: 2^bits − 1.
    pub fn top(bits: u32) -> u64 {
        (1u64 << bits) - 1
    }

    /// The value a fragment hands on, in units of the running sum: `s` is the exact sum of its
    /// texel products in units of 1/255² (one product ia·ib for L-M, a block's for Hall), times
    /// the polygon colour 1/`depth`, kept at `product` bits and then brought to `sum` bits, each
    /// rounded half up.
    pub fn pass_steps(self, s: u64, depth: u32) -> u64 {
        let q = round_div(s * Self::top(self.product), 255 * 255 * depth.max(1) as u64);
        if self.product == self.sum {
            q
        } else {
            round_div(q * Self::top(self.sum), Self::top(self.product))
        }
    }

    /// The running sum `acc` (in `sum`-bit units) as the 8-bit output holds it (rounded half up).
    pub fn output_steps(self, acc: u64) -> u64 {
        round_div(acc * 255, Self::top(self.sum))
    }
}

/// x / d rounded half up, exactly.
fn round_div(x: u64, d: u64) -> u64 {
    x / d + u64::from(2 * (x % d) >= d)
}

/// The 8-bit pipeline of any render-pass method with any widths on the CPU, exact integer
/// arithmetic: inputs quantized to 8 bits (`ia`, `ib`); pass t sums its products exactly,
/// S_t = Σ_{p ∈ pass t} ia_p·ib_p, and adds `bits.pass_steps(S_t, depth)` to the running sum,
/// which saturates at 2^sum − 1 (`FF + 01 = FF`); the output is the sum reduced to 8 bits
/// ([`U8Bits::output_steps`]). `passes` lists the p of each pass ([`Pipeline::passes`]). With
/// the default widths this is [`u8_model_passes`] (and for one p per pass [`u8_model`]) exactly.
pub fn u8_model_bits(
    a: &Matrix,
    b: &Matrix,
    passes: &[Vec<usize>],
    depth: u32,
    bits: U8Bits,
) -> U8Model {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let qa: Vec<u64> = a.data.iter().map(|&v| to_unorm8(v) as u64).collect();
    let qb: Vec<u64> = b.data.iter().map(|&v| to_unorm8(v) as u64).collect();
    let top = U8Bits::top(bits.sum);
    let mut acc = vec![0u64; m * n];
    let mut sat = vec![false; m * n];
    let mut s = vec![0u64; n];
    for pass in passes {
        for i in 0..m {
            s.iter_mut().for_each(|x| *x = 0);
            for &p in pass {
                debug_assert!(p < k);
                let ia = qa[i * k + p];
                if ia == 0 {
                    continue;
                }
                for (j, x) in s.iter_mut().enumerate() {
                    *x += ia * qb[p * n + j];
                }
            }
            for (j, &sj) in s.iter().enumerate() {
                let total = acc[i * n + j] + bits.pass_steps(sj, depth);
                if total > top {
                    sat[i * n + j] = true;
                }
                acc[i * n + j] = total.min(top);
            }
        }
    }
    U8Model {
        c: Matrix {
            rows: m,
            cols: n,
            data: acc
                .iter()
                .map(|&v| bits.output_steps(v) as f32 / 255.0)
                .collect(),
        },
        saturated: sat.iter().filter(|&&s| s).count(),
    }
}

/// The most a u8 run with wide widths may divide by in the shaders' 32-bit integer arithmetic:
/// 255²·depth must stay below 2³¹, so `--scale-by-depth` with these widths takes k ≤ 33025.
pub fn check_wide_depth(bits: U8Bits, depth: u32) -> Result<()> {
    let max = ((1u64 << 31) - 1) / (255 * 255);
    if !bits.is_default() && depth as u64 > max {
        return Err(Error::Limit {
            what: format!(
                "polygon colour 1/k with --u8-product-bits {} --u8-sum-bits {} (k)",
                bits.product, bits.sum
            ),
            value: depth as u64,
            limit: "the shaders' 32-bit integer rounding",
            max,
        });
    }
    Ok(())
}

/// The pass structure of a render-pass method, which its 8-bit model and its f16 bound follow.
///
/// - [`Pipeline::Slices`]: Larsen–McAllister — k passes of one product each, summed by blending.
/// - [`Pipeline::FixedFunction`]: the same slices through OpenGL 1.x's texture environment
///   (`lm-gl1`), each product rounded as the driver that ran rounds it ([`SliceRounding`]).
/// - [`Pipeline::Blocked`]: Hall–Carr–Hart §3 — ⌈k/b⌉ passes; a fragment sums its block of b
///   products in the shader, adds the running sum (read from F, or by the blend unit), and the
///   store rounds once per pass.
/// - [`Pipeline::Packed`]: Hall–Carr–Hart §4 — the same over ⌈k/2⌉ packed p; each packed p adds
///   two products to every channel (`X.rrbb·Y.rgrg + X.ggaa·Y.baba`), so a pass sums 2b products
///   per output element: p = q and p = q + ⌈k/2⌉ for each packed q of its block (those at or past
///   k are the zero padding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pipeline {
    Slices,
    FixedFunction(SliceRounding),
    Blocked { block: u32 },
    Packed { block: u32 },
}

impl Pipeline {
    /// Short name for reports: `L-M`, `hall-blocked (b = 7)`, `hall-packed (b = 7)`.
    pub fn name(self) -> String {
        match self {
            Pipeline::Slices => "L-M".into(),
            Pipeline::FixedFunction(r) => format!("L-M in OpenGL 1.x ({})", r.name()),
            Pipeline::Blocked { block } => format!("hall-blocked (b = {block})"),
            Pipeline::Packed { block } => format!("hall-packed (b = {block})"),
        }
    }

    /// The inner indices p each pass sums, over an inner dimension `k`, in pass order.
    pub fn passes(self, k: usize) -> Vec<Vec<usize>> {
        match self {
            Pipeline::Slices | Pipeline::FixedFunction(_) => (0..k).map(|p| vec![p]).collect(),
            Pipeline::Blocked { block } => blocks(k, block)
                .into_iter()
                .map(|(s, len)| (s as usize..(s + len) as usize).collect())
                .collect(),
            Pipeline::Packed { block } => {
                let k2 = k.div_ceil(2);
                blocks(k2, block)
                    .into_iter()
                    .map(|(s, len)| {
                        (s as usize..(s + len) as usize)
                            .flat_map(|q| [q, q + k2])
                            .filter(|&p| p < k)
                            .collect()
                    })
                    .collect()
            }
        }
    }

    /// Number of passes over an inner dimension `k` (T in the f16 bound).
    pub fn pass_count(self, k: usize) -> usize {
        match self {
            Pipeline::Slices | Pipeline::FixedFunction(_) => k,
            Pipeline::Blocked { block } => k.div_ceil(block.max(1) as usize),
            Pipeline::Packed { block } => k.div_ceil(2).div_ceil(block.max(1) as usize),
        }
    }

    /// Most products one fragment sums in f32 registers in one pass (0 for L-M, whose fragment
    /// stage multiplies once and leaves the sum to the blend unit).
    pub fn f32_terms(self, k: usize) -> usize {
        match self {
            Pipeline::Slices | Pipeline::FixedFunction(_) => 0,
            Pipeline::Blocked { block } => (block as usize).min(k),
            Pipeline::Packed { block } => 2 * (block as usize).min(k.div_ceil(2)),
        }
    }

    /// The CPU model of this pipeline in 8 bits, polygon colour 1/`depth`
    /// ([`u8_model`] for L-M, [`u8_model_passes`] for the Hall methods).
    pub fn u8_model(self, a: &Matrix, b: &Matrix, depth: u32) -> U8Model {
        match self {
            Pipeline::Slices => u8_model(a, b, depth),
            Pipeline::FixedFunction(r) => u8_model_rounding(a, b, depth, r),
            _ => u8_model_passes(a, b, &self.passes(a.cols), depth),
        }
    }

    /// The CPU model of this pipeline in the 8-bit pipeline of widths `bits`
    /// ([`Pipeline::u8_model`] for the default widths, else [`u8_model_bits`]).
    pub fn u8_model_bits(self, a: &Matrix, b: &Matrix, depth: u32, bits: U8Bits) -> U8Model {
        if bits.is_default() {
            self.u8_model(a, b, depth)
        } else {
            u8_model_bits(a, b, &self.passes(a.cols), depth, bits)
        }
    }

    /// The CPU model of this pipeline's f16 accumulation ([`f16_model`]).
    pub fn f16_model(self, a: &Matrix, b: &Matrix, rounding: F16Rounding) -> F16Model {
        f16_model(a, b, &self.passes(a.cols), rounding)
    }
}

/// The 8-bit pipeline of a blocked method on the CPU, exact integer arithmetic in units of
/// 1/255: inputs quantized to 8 bits (`ia`, `ib`); pass t sums its products exactly,
/// S_t = Σ_{p ∈ pass t} ia_p·ib_p (in units of 1/255²), and stores
/// `acc ← min(acc + round(S_t / (255·depth)), 255)` — the block sum times the polygon colour
/// 1/`depth` rounded half up to 8 bits once per pass, added to the running sum, and saturated at
/// 1.0 by the unorm store (`FF + 01 = FF`). `passes` lists the p of each pass
/// ([`Pipeline::passes`]); with one p per pass this is [`u8_model`] exactly.
///
/// The three accumulation modes of the Hall methods give the same result: ping-pong and copy
/// read F = acc/255 and store (acc + steps)/255, which the store clamps; blend stores the block
/// sum alone, clamped to 1.0 on its way into the blend unit, and the blend adds it to acc with
/// saturation — the clamp of the source matters only when steps > 255, and then the sum
/// saturates either way.
pub fn u8_model_passes(a: &Matrix, b: &Matrix, passes: &[Vec<usize>], depth: u32) -> U8Model {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let qa: Vec<u64> = a.data.iter().map(|&v| to_unorm8(v) as u64).collect();
    let qb: Vec<u64> = b.data.iter().map(|&v| to_unorm8(v) as u64).collect();
    let d = 255 * depth.max(1) as u64;
    let mut acc = vec![0u64; m * n];
    let mut sat = vec![false; m * n];
    let mut s = vec![0u64; n];
    for pass in passes {
        for i in 0..m {
            s.iter_mut().for_each(|x| *x = 0);
            for &p in pass {
                debug_assert!(p < k);
                let ia = qa[i * k + p];
                if ia == 0 {
                    continue;
                }
                for (j, x) in s.iter_mut().enumerate() {
                    *x += ia * qb[p * n + j];
                }
            }
            for (j, &sj) in s.iter().enumerate() {
                let steps = sj / d + u64::from(2 * (sj % d) >= d);
                let total = acc[i * n + j] + steps;
                if total > 255 {
                    sat[i * n + j] = true;
                }
                acc[i * n + j] = total.min(255);
            }
        }
    }
    U8Model {
        c: Matrix {
            rows: m,
            cols: n,
            data: acc.iter().map(|&v| v as f32 / 255.0).collect(),
        },
        saturated: sat.iter().filter(|&&s| s).count(),
    }
}

/// The CPU model of `hall-blocked`'s 8-bit pipeline with block size `block` (see
/// [`u8_model_passes`]).
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn u8_model_blocked(a: &Matrix, b: &Matrix, block: u32, depth: u32) -> U8Model {
    Pipeline::Blocked { block }.u8_model(a, b, depth)
}

/// The CPU model of `hall-packed`'s 8-bit pipeline with block size `block` (in packed p; see
/// [`u8_model_passes`]). The packing is a relabelling of the inner index, so the model sums the
/// unpacked products each pass covers.
#[cfg_attr(not(feature = "internals"), allow(dead_code))]
pub fn u8_model_packed(a: &Matrix, b: &Matrix, block: u32, depth: u32) -> U8Model {
    Pipeline::Packed { block }.u8_model(a, b, depth)
}
