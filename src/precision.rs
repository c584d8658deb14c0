//! Precision modes of the render-pass methods (L-M §4): the 8-bit saturating pipeline of 2001,
//! f16 and f32 — texture formats, conversion to and from texel bytes, the CPU model of the 8-bit
//! pipeline, and the error bounds the results are held to.

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use serde::Serialize;

mod u8_model;

#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use u8_model::{
    Pipeline, SliceRounding, U8Bits, U8Model, check_wide_depth, u8_model, u8_model_bits,
    u8_model_blocked, u8_model_packed, u8_model_passes, u8_model_rounding, u8_slice_steps,
    u8_slice_steps_fixed_function,
};

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

/// An element of [0, 1] as the 8-bit unorm texel that holds it: round(v·255).
pub fn to_unorm8(v: f32) -> u8 {
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
