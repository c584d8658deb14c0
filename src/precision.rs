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
            _ => Err(Error::Invalid(format!("unknown precision '{s}'; use u8, f16 or f32"))),
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
        match self {
            Precision::U8 => values.iter().map(|&v| to_unorm8(v)).collect(),
            Precision::F16 => values
                .iter()
                .flat_map(|&v| half::f16::from_f32(v).to_le_bytes())
                .collect(),
            Precision::F32 => bytemuck::cast_slice(values).to_vec(),
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
            why: "an 8-bit (u8) texture can hold; pass --normalize to map each input to [0, 1]".into(),
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
        let data = m.data.iter().map(|&x| ((x - lo) * scale).clamp(0.0, 1.0)).collect();
        (
            Matrix { rows: m.rows, cols: m.cols, data },
            format!("{name} mapped to [0, 1] by (x - {lo}) / ({hi} - {lo}); the product is of the mapped matrices"),
        )
    } else {
        let data = m.data.iter().map(|&x| if x != 0.0 { 1.0 } else { 0.0 }).collect();
        (
            Matrix { rows: m.rows, cols: m.cols, data },
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
/// |C − C_ref| ≤ γ_{k+3} · Σ_p |A_ip|·|B_pj| + (k+3)·2⁻²⁵, with γ_n = n·u / (1 − n·u) and
/// u = 2⁻¹¹ (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1): each term meets at
/// most k + 3 roundings (A, B, the product, and the k − 1 sums... plus the stored value), and the
/// absolute term covers f16 subnormals (spacing 2⁻²⁴) near zero. Returns the bound per element.
pub fn f16_bound(a: &Matrix, b: &Matrix) -> Vec<f64> {
    let k = a.cols as f64;
    let nu = (k + 3.0) * F16_UNIT_ROUNDOFF;
    let gamma = nu / (1.0 - nu).max(1e-3);
    let floor = (k + 3.0) * 2f64.powi(-25);
    abs_product(a, b).into_iter().map(|s| gamma * s + floor).collect()
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
