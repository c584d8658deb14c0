//! What the GL-era methods (`lm-gl1`, `hall-arbfp`) share, so neither borrows from the other:
//! the number formats they take and the run they report.

use super::{Method, Params, RanKernel, RunOutput, Timings, Variant};
use crate::error::{Error, Result};
use crate::gl::texture::Texels;
use crate::matrix::Matrix;
use crate::precision::{self, Precision};

/// The texels and framebuffer of `opts.precision`: u8 (8-bit, the default widths only) or f32;
/// f16, other 8-bit widths and `--scale-by-depth` outside u8 refused in one line.
pub fn texels(method: Method, opts: &Params) -> Result<Texels> {
    let texels = match opts.precision {
        Precision::U8 if !opts.u8_bits.is_default() => {
            return Err(Error::Unsupported {
                option: format!(
                    "--u8-product-bits {} --u8-sum-bits {}",
                    opts.u8_bits.product, opts.u8_bits.sum
                ),
                method: method.name(),
                why: "runs 2001's 8-bit framebuffer, whose products and sums keep 8 bits".into(),
            });
        }
        Precision::U8 => Texels::Unorm8,
        Precision::F32 => Texels::F32,
        Precision::F16 => {
            return Err(Error::Unsupported {
                option: "precision f16".into(),
                method: method.name(),
                why: "runs the formats of its paper's API only: u8 (8-bit textures and framebuffer) or f32".into(),
            });
        }
    };
    if opts.scale_by_depth && texels != Texels::Unorm8 {
        return Err(Error::Invalid(
            "--scale-by-depth applies to --precision u8 only".into(),
        ));
    }
    Ok(texels)
}

/// Every element of the u8 inputs in [0, 1], what an 8-bit texture holds.
pub fn check_inputs(texels: Texels, a: &[&Matrix], b: &[&Matrix]) -> Result<()> {
    if texels == Texels::Unorm8 {
        for (x, y) in a.iter().zip(b) {
            precision::check_unit_range(x, "A")?;
            precision::check_unit_range(y, "B")?;
        }
    }
    Ok(())
}

/// The precision a run in `texels` computed in.
pub fn precision_of(texels: Texels) -> Precision {
    match texels {
        Texels::Unorm8 => Precision::U8,
        Texels::F32 => Precision::F32,
    }
}

/// The run's output for the entry point: C of the first pair, the others after it.
pub fn output(
    method: Method,
    mut cs: Vec<Matrix>,
    passes: usize,
    timings: Timings,
    notes: Vec<String>,
    texels: Texels,
) -> Result<(RunOutput, Vec<Matrix>)> {
    if cs.is_empty() {
        return Err(Error::Internal(format!("{method} read back no matrix")));
    }
    let channels = cs.len();
    let c = cs.remove(0);
    let precision = precision_of(texels);
    let out = RunOutput {
        c,
        passes,
        timings,
        notes,
        kernel: RanKernel {
            variant: (channels == 4).then_some(Variant::Rgba),
            ..RanKernel::new(method, precision)
        },
    };
    Ok((out, cs))
}
