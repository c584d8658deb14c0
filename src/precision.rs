//! Precision modes of the render-pass methods (L-M §4): the 8-bit saturating pipeline of 2001,
//! f16 and f32 — texture formats, conversion to and from texel bytes, the CPU model of the 8-bit
//! pipeline, and the error bounds the results are held to.

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use serde::Serialize;

/// Number format of textures and framebuffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 8-bit unsigned normalized (`R8Unorm` / `Rgba8Unorm`): values in [0, 1] in steps of 1/255,
    /// sums saturate at 1.0 as on the GeForce2/3 (`FF + 01 = FF`).
    U8,
    /// 16-bit float (`R16Float` / `Rgba16Float`), blendable on every adapter.
    F16,
    /// 32-bit float (`R32Float` / `Rgba32Float`); blending needs `FLOAT32_BLENDABLE`.
    #[default]
    F32,
}

/// One quantization step of the 8-bit pipeline.
pub const U8_STEP: f64 = 1.0 / 255.0;

/// Unit roundoff of f16 (11-bit significand): 2⁻¹¹.
pub const F16_UNIT_ROUNDOFF: f64 = 1.0 / 2048.0;

/// Unit roundoff of f32: 2⁻²⁴.
pub const F32_UNIT_ROUNDOFF: f64 = 1.0 / 16_777_216.0;

impl Precision {
    pub const ALL: [Precision; 3] = [Precision::U8, Precision::F16, Precision::F32];

    pub fn name(self) -> &'static str {
        match self {
            Precision::U8 => "u8",
            Precision::F16 => "f16",
            Precision::F32 => "f32",
        }
    }

    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "u8" => Ok(Precision::U8),
            "f16" => Ok(Precision::F16),
            "f32" => Ok(Precision::F32),
            _ => Err(Error::Invalid(format!(
                "unknown precision '{s}'; use u8, f16 or f32"
            ))),
        }
    }

    /// The texture format for 1 (R) or 4 (RGBA) channels.
    pub fn format(self, channels: u32) -> wgpu::TextureFormat {
        use wgpu::TextureFormat as F;
        match (self, channels) {
            (Precision::U8, 4) => F::Rgba8Unorm,
            (Precision::U8, _) => F::R8Unorm,
            (Precision::F16, 4) => F::Rgba16Float,
            (Precision::F16, _) => F::R16Float,
            (Precision::F32, 4) => F::Rgba32Float,
            (Precision::F32, _) => F::R32Float,
        }
    }

    /// Bytes of one channel.
    pub fn bytes_per_channel(self) -> usize {
        match self {
            Precision::U8 => 1,
            Precision::F16 => 2,
            Precision::F32 => 4,
        }
    }

    /// Texel bytes of `values` (channel-interleaved); u8 rounds to the nearest step after
    /// clamping to [0, 1], f16 rounds to nearest even.
    pub fn encode(self, values: &[f32]) -> Vec<u8> {
        let mut out = vec![0; values.len() * self.bytes()];
        self.encode_into(values, &mut out);
        out
    }

    /// [`Precision::encode`] into `out`, which holds exactly `values.len()` values' bytes.
    pub fn encode_into(self, values: &[f32], out: &mut [u8]) {
        assert_eq!(
            out.len(),
            values.len() * self.bytes(),
            "encode_into: sizes differ"
        );
        match self {
            Precision::U8 => out
                .iter_mut()
                .zip(values)
                .for_each(|(o, &v)| *o = to_unorm8(v)),
            Precision::F16 => out
                .chunks_exact_mut(2)
                .zip(values)
                .for_each(|(o, &v)| o.copy_from_slice(&half::f16::from_f32(v).to_le_bytes())),
            Precision::F32 => out.copy_from_slice(bytemuck::cast_slice(values)),
        }
    }

    /// Bytes of one value at this precision.
    pub fn bytes(self) -> usize {
        match self {
            Precision::U8 => 1,
            Precision::F16 => 2,
            Precision::F32 => 4,
        }
    }

    /// Values of texel bytes (inverse of [`Precision::encode`] up to rounding).
    pub fn decode(self, bytes: &[u8]) -> Vec<f32> {
        match self {
            Precision::U8 => bytes.iter().map(|&b| b as f32 / 255.0).collect(),
            Precision::F16 => bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            Precision::F32 => bytemuck::pod_collect_to_vec(bytes),
        }
    }

    /// The value a texture of this precision actually holds for `v`.
    pub fn quantize(self, v: f32) -> f32 {
        match self {
            Precision::U8 => to_unorm8(v) as f32 / 255.0,
            Precision::F16 => half::f16::from_f32(v).to_f32(),
            Precision::F32 => v,
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

fn to_unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Error unless every element lies in [0, 1] (what an 8-bit texture can hold).
pub fn check_unit_range(m: &Matrix, name: &str) -> Result<()> {
    match m.data.iter().position(|v| !(0.0..=1.0).contains(v)) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: name.into(),
            row: idx / m.cols,
            col: idx % m.cols,
            value: m.data[idx],
            lo: 0.0,
            hi: 1.0,
            why: "an 8-bit (u8) texture can hold; pass --normalize to map each input to [0, 1]"
                .into(),
        }),
    }
}

/// `--normalize`: map a matrix to [0, 1] by x ↦ (x − min)/(max − min) (a constant matrix maps to
/// 1 where nonzero, 0 where zero). Returns the mapped matrix and a sentence saying how.
pub fn normalize(m: &Matrix, name: &str) -> (Matrix, String) {
    let lo = m.data.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = m.data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if (0.0..=1.0).contains(&lo) && (0.0..=1.0).contains(&hi) {
        return (m.clone(), format!("{name} already in [0, 1], left as is"));
    }
    if hi > lo {
        let scale = 1.0 / (hi - lo);
        let data = m
            .data
            .iter()
            .map(|&x| ((x - lo) * scale).clamp(0.0, 1.0))
            .collect();
        (
            Matrix {
                rows: m.rows,
                cols: m.cols,
                data,
            },
            format!(
                "{name} mapped to [0, 1] by (x - {lo}) / ({hi} - {lo}); the product is of the mapped matrices"
            ),
        )
    } else {
        let data = m
            .data
            .iter()
            .map(|&x| if x != 0.0 { 1.0 } else { 0.0 })
            .collect();
        (
            Matrix {
                rows: m.rows,
                cols: m.cols,
                data,
            },
            format!("{name} is constant {lo}; mapped to 1 where nonzero"),
        )
    }
}

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
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let qa: Vec<u32> = a.data.iter().map(|&v| to_unorm8(v) as u32).collect();
    let qb: Vec<u32> = b.data.iter().map(|&v| to_unorm8(v) as u32).collect();
    let mut acc = vec![0u32; m * n];
    let mut sat = vec![false; m * n];
    for p in 0..k {
        for i in 0..m {
            let ia = qa[i * k + p];
            for j in 0..n {
                let s = acc[i * n + j] + u8_slice_steps(ia, qb[p * n + j], depth);
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

/// Elementwise error bound for an f16 run: inputs rounded to f16 (relative error u each) and a
/// running sum of k terms rounded to f16 after every blend give
/// |C − C_ref| ≤ γ_{k+3} · Σ_p |A_ip|·|B_pj| + (k+3)·2⁻²⁴, with γ_n = n·u / (1 − n·u) and
/// u = 2⁻¹¹ (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1): each term meets at
/// most k + 3 roundings (A, B, the product, and the k − 1 sums... plus the stored value), and the
/// absolute term covers f16 subnormals (spacing 2⁻²⁴) near zero: half a spacing per rounding,
/// doubled to absorb the second-order terms, as in [`f16_bound_blocked`]. (With half a spacing
/// alone, the randomized sweep found L-M runs on inputs of magnitude 1e-3 — products in the
/// subnormal range — up to 1.2 times over.) Returns the bound per element.
pub fn f16_bound(a: &Matrix, b: &Matrix) -> Vec<f64> {
    let k = a.cols as f64;
    let nu = (k + 3.0) * F16_UNIT_ROUNDOFF;
    let gamma = nu / (1.0 - nu).max(1e-3);
    let floor = (k + 3.0) * 2f64.powi(-24);
    abs_product(a, b)
        .into_iter()
        .map(|s| gamma * s + floor)
        .collect()
}

/// Σ_p |A_ip| for every row i of A, and Σ_p |B_pj| for every column j of B, in f64 (the
/// absolute terms of the error bounds).
pub fn abs_sums(a: &Matrix, b: &Matrix) -> (Vec<f64>, Vec<f64>) {
    let row_abs: Vec<f64> = (0..a.rows)
        .map(|i| {
            a.data[i * a.cols..(i + 1) * a.cols]
                .iter()
                .map(|v| v.abs() as f64)
                .sum()
        })
        .collect();
    let col_abs: Vec<f64> = (0..b.cols)
        .map(|j| {
            (0..b.rows)
                .map(|p| b.data[p * b.cols + j].abs() as f64)
                .sum()
        })
        .collect();
    (row_abs, col_abs)
}

/// Σ_p |A_ip|·|B_pj| in f64.
pub fn abs_product(a: &Matrix, b: &Matrix) -> Vec<f64> {
    let abs = |m: &Matrix| Matrix {
        rows: m.rows,
        cols: m.cols,
        data: m.data.iter().map(|v| v.abs()).collect(),
    };
    crate::cpu::reference_f64(&abs(a), &abs(b))
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
    Blocked { block: u32 },
    Packed { block: u32 },
}

impl Pipeline {
    /// Short name for reports: `L-M`, `hall-blocked (b = 7)`, `hall-packed (b = 7)`.
    pub fn name(self) -> String {
        match self {
            Pipeline::Slices => "L-M".into(),
            Pipeline::Blocked { block } => format!("hall-blocked (b = {block})"),
            Pipeline::Packed { block } => format!("hall-packed (b = {block})"),
        }
    }

    /// The inner indices p each pass sums, over an inner dimension `k`, in pass order.
    pub fn passes(self, k: usize) -> Vec<Vec<usize>> {
        match self {
            Pipeline::Slices => (0..k).map(|p| vec![p]).collect(),
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
            Pipeline::Slices => k,
            Pipeline::Blocked { block } => k.div_ceil(block.max(1) as usize),
            Pipeline::Packed { block } => k.div_ceil(2).div_ceil(block.max(1) as usize),
        }
    }

    /// Most products one fragment sums in f32 registers in one pass (0 for L-M, whose fragment
    /// stage multiplies once and leaves the sum to the blend unit).
    pub fn f32_terms(self, k: usize) -> usize {
        match self {
            Pipeline::Slices => 0,
            Pipeline::Blocked { block } => (block as usize).min(k),
            Pipeline::Packed { block } => 2 * (block as usize).min(k.div_ceil(2)),
        }
    }

    /// The CPU model of this pipeline in 8 bits, polygon colour 1/`depth`
    /// ([`u8_model`] for L-M, [`u8_model_passes`] for the Hall methods).
    pub fn u8_model(self, a: &Matrix, b: &Matrix, depth: u32) -> U8Model {
        match self {
            Pipeline::Slices => u8_model(a, b, depth),
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

    /// The elementwise f16 error bound of this pipeline ([`f16_bound`] for L-M,
    /// [`f16_bound_blocked`] for the Hall methods).
    pub fn f16_bound(self, a: &Matrix, b: &Matrix) -> Vec<f64> {
        let k = a.cols;
        match self {
            Pipeline::Slices => f16_bound(a, b),
            _ => f16_bound_blocked(a, b, self.pass_count(k), self.f32_terms(k)),
        }
    }

    /// The f16 bound in words, for reports.
    pub fn f16_bound_words(self, k: usize) -> String {
        match self {
            Pipeline::Slices => format!(
                "every element within gamma_(k+3)·sum|a||b| + (k+3)·2^-24, u = 2^-11 (f16 accumulation, k = {k})"
            ),
            _ => format!(
                "every element within gamma·sum|a||b| + (T+1 + sum|a|+|b|)·2^-24, gamma from (T+3)·2^-11 + t·2^-24 \
                 (f16 store once per pass: T = {} passes, t = {} f32-summed products per pass)",
                self.pass_count(k),
                self.f32_terms(k)
            ),
        }
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
pub fn u8_model_blocked(a: &Matrix, b: &Matrix, block: u32, depth: u32) -> U8Model {
    Pipeline::Blocked { block }.u8_model(a, b, depth)
}

/// The CPU model of `hall-packed`'s 8-bit pipeline with block size `block` (in packed p; see
/// [`u8_model_passes`]). The packing is a relabelling of the inner index, so the model sums the
/// unpacked products each pass covers.
pub fn u8_model_packed(a: &Matrix, b: &Matrix, block: u32, depth: u32) -> U8Model {
    Pipeline::Packed { block }.u8_model(a, b, depth)
}

/// Elementwise error bound for an f16 run of a blocked pipeline with `passes` (T) passes, each
/// fragment summing at most `f32_terms` (t) products in f32 registers before the store:
///
/// |C − C_ref| ≤ γ·Σ_p |A_ip|·|B_pj| + (T + 1 + Σ_p (|A_ip| + |B_pj|))·2⁻²⁴,
/// γ = θ/(1 − θ), θ = (T + 3)·u + t·u₃₂, u = 2⁻¹¹, u₃₂ = 2⁻²⁴.
///
/// Derivation (round to nearest, fl(x) = x(1 + δ) + η with |δ| ≤ u, |η| ≤ 2⁻²⁵ the half
/// spacing of f16 subnormals, δη = 0; Higham, *Accuracy and Stability*, §2.1 and Lemma 3.1 with
/// Π(1 + δ_i)^±1 − 1 ≤ e^{Σu_i} − 1 ≤ Σu_i/(1 − Σu_i)): a product term a·b meets
/// - 2 f16 roundings of the inputs; their product is exact in f32 (22 significand bits ≤ 24);
/// - at most t f32 roundings in the shader: t − 1 adds of the block sum, plus the add of F;
/// - the f16 store of each pass from its own to the last: at most T;
/// - in blend mode, one more: the block sum entering an f16 blend unit. Hence T + 3.
///
/// The η of the stores (at most T + 1) add absolutely, and those of the inputs contribute
/// η_a·b + η_b·a per product; with the (1 + γ) they pick up after, all fit in
/// (T + 1 + Σ_p(|a| + |b|))·2⁻²⁴ while γ ≤ ½. L-M's bound ([`f16_bound`]) has T = k: one store per
/// product; here T = ⌈k/b⌉, so the bound is about b times tighter.
pub fn f16_bound_blocked(a: &Matrix, b: &Matrix, passes: usize, f32_terms: usize) -> Vec<f64> {
    let t = passes as f64;
    let theta = (t + 3.0) * F16_UNIT_ROUNDOFF + f32_terms as f64 * F32_UNIT_ROUNDOFF;
    let gamma = theta / (1.0 - theta).max(1e-3);
    let tiny = 2f64.powi(-24);
    let (row_abs, col_abs) = abs_sums(a, b);
    abs_product(a, b)
        .into_iter()
        .enumerate()
        .map(|(idx, s)| {
            let (i, j) = (idx / b.cols, idx % b.cols);
            gamma * s + (t + 1.0 + row_abs[i] + col_abs[j]) * tiny
        })
        .collect()
}

/// Hall–Carr–Hart's block size (§3: "For our tests we have chosen b = 32").
pub const DEFAULT_BLOCK: u32 = 32;

/// The passes' blocks over an inner dimension of `depth`: (start, length) pairs of length `b`
/// except perhaps the last. ⌈depth/b⌉ of them.
pub fn blocks(depth: usize, b: u32) -> Vec<(u32, u32)> {
    let b = b.max(1) as usize;
    (0..depth)
        .step_by(b)
        .map(|start| (start as u32, b.min(depth - start) as u32))
        .collect()
}

/// Largest magnitude an f16 texture holds: the largest finite f16.
pub const F16_MAX: f32 = 65504.0;
/// Largest magnitude of an f16 result that is surely not saturated: the f16 value below 65504.
const F16_TRUSTED: f32 = 65472.0;

/// The first element of `x` that `outside` picks, as the one-line error of a method that rounds
/// its inputs to f16 (`why` says which); `Ok` when there is none.
pub(crate) fn f16_range(
    x: &Matrix,
    name: &str,
    outside: impl Fn(f32) -> bool,
    why: impl FnOnce() -> String,
) -> Result<()> {
    match x.data.iter().position(|&v| outside(v)) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: name.to_string(),
            row: idx / x.cols,
            col: idx % x.cols,
            value: x.data[idx],
            lo: -F16_MAX,
            hi: F16_MAX,
            why: why(),
        }),
    }
}

/// Error unless an f16 run of `a · b` stays inside f16's range all the way: every input within
/// what f16 textures hold (±65504; past it the upload saturates or overflows and the product
/// would silently be of other numbers), and every partial sum too. A partial sum of element
/// (i, j) is at most Σ_p |A_ip|·|B_pj| in magnitude, whatever the order of the passes; past
/// ±65504 an f16 sum saturates (lavapipe clamps) or overflows, and later terms can bring it back
/// into range, so the result could look plausible and be wrong. The bound is first taken from
/// row and column sums (O(mk + kn)); only when that cannot clear the product is Σ|A|·|B|
/// computed in full (a CPU GEMM).
pub fn check_f16_headroom(a: &Matrix, b: &Matrix) -> Result<()> {
    for (x, name) in [(a, "A"), (b, "B")] {
        if let Some(idx) = x
            .data
            .iter()
            .position(|v| v.is_finite() && v.abs() > F16_MAX)
        {
            return Err(Error::OutOfRange {
                name: name.into(),
                row: idx / x.cols,
                col: idx % x.cols,
                value: x.data[idx],
                lo: -F16_MAX,
                hi: F16_MAX,
                why: "f16 textures hold; use --precision f32".into(),
            });
        }
    }
    let (k, n) = (a.cols, b.cols);
    // Empty, or non-finite inputs that the caller allowed (whose products are what they are).
    if a.data.is_empty()
        || b.data.is_empty()
        || a.data.iter().chain(&b.data).any(|v| !v.is_finite())
    {
        return Ok(());
    }
    let max_abs = |x: &Matrix| x.data.iter().fold(0.0f64, |m, v| m.max(v.abs() as f64));
    let max_row_sum = a
        .data
        .chunks(k)
        .map(|r| r.iter().map(|v| v.abs() as f64).sum::<f64>())
        .fold(0.0, f64::max);
    let mut col_sums = vec![0.0f64; n];
    for row in b.data.chunks(n) {
        for (s, v) in col_sums.iter_mut().zip(row) {
            *s += v.abs() as f64;
        }
    }
    let max_col_sum = col_sums.into_iter().fold(0.0, f64::max);
    let cheap = (max_row_sum * max_abs(b)).min(max_abs(a) * max_col_sum);
    if cheap <= F16_TRUSTED as f64 {
        return Ok(());
    }
    let abs = |x: &Matrix| Matrix {
        rows: x.rows,
        cols: x.cols,
        data: x.data.iter().map(|v| v.abs()).collect(),
    };
    let sums = crate::cpu::fast(&abs(a), &abs(b));
    match sums.data.iter().position(|&s| s > F16_TRUSTED) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: "sum_p |A_ip|·|B_pj| (the most an f16 partial sum of C can reach)".into(),
            row: idx / n,
            col: idx % n,
            value: sums.data[idx],
            lo: 0.0,
            hi: F16_TRUSTED,
            why: "f16 sums hold without saturating or overflowing: a partial sum could leave f16's range and the result be wrong; scale the inputs down or use --precision f32".into(),
        }),
    }
}

/// The range guard of an f16 run (`opts.precision` as it ran, so also a run that fell back from
/// f32 to f16): [`check_f16_headroom`], and then, as a backstop, the result itself: f16 holds
/// magnitudes up to 65504, and a sum past that saturates at 65504 on some adapters (lavapipe
/// clamps) and turns into infinity on others, either of which would pass for a result. So a
/// result element at the end of the range (or infinite from finite inputs) is an error, not an
/// answer.
pub fn check_f16_result(a: &Matrix, b: &Matrix, c: &Matrix, allow_nonfinite: bool) -> Result<()> {
    check_f16_headroom(a, b)?;
    let bad = |v: &f32| {
        if v.is_finite() {
            v.abs() > F16_TRUSTED
        } else {
            !allow_nonfinite
        }
    };
    match c.data.iter().position(bad) {
        None => Ok(()),
        Some(idx) => Err(Error::OutOfRange {
            name: "C (computed in f16)".into(),
            row: idx / c.cols,
            col: idx % c.cols,
            value: c.data[idx],
            lo: -F16_TRUSTED,
            hi: F16_TRUSTED,
            why: "an f16 result can be trusted in: past it the f16 sums saturate or overflow, so the true value is larger; scale the inputs down or use --precision f32".into(),
        }),
    }
}

/// The CPU model of a render pipeline's f16 accumulation, per element of C.
#[derive(Clone, Debug)]
pub struct F16Model {
    /// The modelled result, row-major.
    pub c: Vec<f32>,
    /// Largest magnitude the running sum of each element reached (its f16 spacing there is the
    /// unit the result is held to the model in).
    pub peak: Vec<f32>,
}

/// How an f16 render target rounds what it stores, which differs between adapters: to nearest
/// (even) or toward zero (Mesa's lavapipe blends f16 toward zero, bit for bit), with the value a
/// fragment hands on rounded to f16 on its way into the blend or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F16Rounding {
    pub toward_zero: bool,
    pub source_rounded: bool,
}

impl F16Rounding {
    /// Every rounding the judge tries.
    pub const ALL: [F16Rounding; 4] = [
        F16Rounding {
            toward_zero: false,
            source_rounded: false,
        },
        F16Rounding {
            toward_zero: false,
            source_rounded: true,
        },
        F16Rounding {
            toward_zero: true,
            source_rounded: false,
        },
        F16Rounding {
            toward_zero: true,
            source_rounded: true,
        },
    ];

    /// `to nearest`, `toward zero, each pass's value rounded to f16 first`.
    pub fn name(self) -> String {
        format!(
            "{}{}",
            if self.toward_zero {
                "toward zero"
            } else {
                "to nearest"
            },
            if self.source_rounded {
                ", each pass's value rounded to f16 first"
            } else {
                ""
            }
        )
    }

    /// `v` rounded to f16 this way (as f32).
    pub fn round(self, v: f32) -> f32 {
        let r = half::f16::from_f32(v);
        let rv = r.to_f32();
        if self.toward_zero && v.is_finite() && rv.abs() > v.abs() {
            half::f16::from_bits(r.to_bits() - 1).to_f32()
        } else {
            rv
        }
    }
}

/// The f16 pipeline of a render-pass method on the CPU: inputs rounded to f16 (to nearest, on
/// upload); pass t sums its products in f32 in the shader (for L-M one product, exact in f32:
/// 11 + 11 significant bits), adds the running sum, and the f16 target stores the total rounded
/// to f16 as `rounding` says — once per pass, as the blend unit or the ping-pong store does.
/// `passes` lists the p of each pass ([`Pipeline::passes`]).
///
/// The model follows every rounding of the running sum, so a result can be held to it within a
/// few f16 spacings (at the running sum's peak) where an a priori bound must allow for every
/// rounding going the same way: γ_(k+3) ≈ 1 at k ≈ 1000, which an all-zero C meets.
pub fn f16_model(a: &Matrix, b: &Matrix, passes: &[Vec<usize>], rounding: F16Rounding) -> F16Model {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let h = |v: f32| half::f16::from_f32(v).to_f32();
    let ha: Vec<f32> = a.data.iter().map(|&v| h(v)).collect();
    let hb: Vec<f32> = b.data.iter().map(|&v| h(v)).collect();
    let mut c = vec![0.0f32; m * n];
    let mut peak = vec![0.0f32; m * n];
    let mut x = vec![0.0f32; n];
    for pass in passes {
        for i in 0..m {
            x.iter_mut().for_each(|v| *v = 0.0);
            for &p in pass {
                debug_assert!(p < k);
                let aip = ha[i * k + p];
                for (xj, &bpj) in x.iter_mut().zip(&hb[p * n..(p + 1) * n]) {
                    *xj += aip * bpj;
                }
            }
            let row = i * n..(i + 1) * n;
            for ((cj, pj), &xj) in c[row.clone()].iter_mut().zip(&mut peak[row]).zip(&x) {
                let src = if rounding.source_rounded {
                    rounding.round(xj)
                } else {
                    xj
                };
                *cj = rounding.round(*cj + src);
                *pj = pj.max(cj.abs());
            }
        }
    }
    F16Model { c, peak }
}

/// The spacing of f16 values at magnitude `x` (2⁻²⁴ among the subnormals).
pub fn f16_spacing(x: f64) -> f64 {
    let x = x.abs();
    if x < 2f64.powi(-14) {
        2f64.powi(-24)
    } else {
        2f64.powi(x.log2().floor() as i32 - 10)
    }
}
