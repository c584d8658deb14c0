//! The judges of the render pipelines' low-precision modes: f16 (an a priori bound and the CPU
//! model of the f16 blending) and u8 (equal to the 8-bit pipeline's model), each saying how far
//! the pipeline is from the exact product.

use super::{F16_MODEL_SPACINGS, U8ModelId, Verdict, judge_closeness, share, worst_ratio};
use crate::matrix::Matrix;
use crate::precision::{self, Pipeline, U8Bits};

/// f16 render pipelines: within the a priori bound, and within [`F16_MODEL_SPACINGS`] of the
/// CPU model of the f16 blending.
pub(super) fn judge_f16(
    v: &mut Verdict,
    pipeline: Pipeline,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    reference: &[f64],
) {
    let ratio = worst_ratio(c, reference, &super::f16_pipeline_bound(pipeline, a, b));
    // The rounding of the adapter's f16 target is its own: the first model it follows within
    // `F16_MODEL_SPACINGS`, else the one it comes closest to (each model costs a product's work).
    let mut best = (f64::INFINITY, precision::F16Rounding::ALL[0]);
    for r in precision::F16Rounding::ALL {
        let d = f16_model_distance(pipeline, r, a, b, c);
        if d < best.0 {
            best = (d, r);
        }
        if d <= F16_MODEL_SPACINGS {
            break;
        }
    }
    let (spacings, rounding) = best;
    v.passed = v.stats.nonfinite == 0 && ratio <= 1.0 && spacings <= F16_MODEL_SPACINGS;
    v.f16_bound_ratio = Some(ratio);
    v.f16_model_spacings = Some(spacings);
    v.tolerance = format!(
        "{}; and every element within {F16_MODEL_SPACINGS} f16 spacings (at its running sum's peak) of the CPU model of the {} f16 blending, rounding as the adapter does (to nearest or toward zero)",
        super::f16_pipeline_bound_words(pipeline, a.cols),
        pipeline.name()
    );
    v.held = format!(
        "within {F16_MODEL_SPACINGS} f16 spacings of the {} f16 pipeline's model, rounding {} (worst {spacings:.1}), and its error bound (worst {} of it)",
        pipeline.name(),
        rounding.name(),
        share(ratio)
    );
    let why = f16_why(a, b, c, reference, rounding);
    judge_closeness(v, false, &why);
}

/// Why an f16 pipeline's result is where it is: the running sums that stop growing (the largest
/// shortfall is where the f16 spacing is more than twice the products added), or else the
/// rounding of each pass.
fn f16_why(
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    reference: &[f64],
    rounding: precision::F16Rounding,
) -> String {
    let k = a.cols.max(1) as f64;
    let abs = precision::abs_product(a, b);
    let short = c
        .data
        .iter()
        .zip(reference)
        .enumerate()
        .filter(|(_, (x, r))| x.is_finite() && r.is_finite())
        .map(|(idx, (&x, &r))| (idx, x as f64, r.abs() - (x as f64).abs()))
        .max_by(|x, y| x.2.total_cmp(&y.2));
    if let Some((idx, x, gap)) = short {
        let spacing = precision::f16_spacing(x);
        let mean = abs[idx] / k;
        if gap > 0.0 && mean < spacing / 2.0 && gap > 0.05 * reference[idx].abs() {
            return format!(
                "its running sums stop growing: element {idx} stops near {x} (the exact sum is {:.4e}), where f16's spacing is {spacing} and the products, {mean:.2e} on average, are under half of it",
                reference[idx]
            );
        }
    }
    format!("off by the f16 rounding of each pass ({})", rounding.name())
}

/// Largest distance of `c` from the f16 model of `pipeline` rounding as `rounding` says, in f16
/// spacings at each element's running-sum peak; a non-finite element is 0 where the model has
/// the same and infinitely far otherwise.
fn f16_model_distance(
    pipeline: Pipeline,
    rounding: precision::F16Rounding,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
) -> f64 {
    let model = pipeline.f16_model(a, b, rounding);
    c.data
        .iter()
        .zip(&model.c)
        .zip(&model.peak)
        .map(|((&x, &md), &pk)| {
            if x.is_finite() && md.is_finite() {
                (x as f64 - md as f64).abs() / precision::f16_spacing(pk as f64)
            } else if (x.is_nan() && md.is_nan()) || x == md {
                0.0
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0f64, f64::max)
}

/// u8: equal to the pipeline's CPU model at the widths `bits` (up to the f32 rounding of the
/// rescale by k under `--scale-by-depth`), and how far that is from the exact product.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge_u8(
    v: &mut Verdict,
    pipeline: Pipeline,
    scale_by_depth: bool,
    bits: U8Bits,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    reference: &[f64],
) {
    let k = a.cols as f32;
    let depth = if scale_by_depth { a.cols as u32 } else { 1 };
    let model = pipeline.u8_model_bits(a, b, depth, bits);
    let rescale = if scale_by_depth { k } else { 1.0 };
    let step = precision::U8_STEP * rescale as f64;
    let steps = c
        .data
        .iter()
        .zip(&model.c.data)
        .map(|(&x, &mv)| {
            if x.is_finite() {
                (x as f64 - mv as f64 * rescale as f64).abs() / step
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0f64, f64::max);
    // Exactly the model: 1e-3 of a step absorbs the f32 rounding of the rescale by k.
    v.passed = v.stats.nonfinite == 0 && steps <= 1e-3;
    let total = c.data.len();
    let zero = model
        .c
        .data
        .iter()
        .zip(reference)
        .filter(|&(&mv, &r)| mv == 0.0 && r > 0.0)
        .count();
    v.u8_model_max_steps = Some(steps);
    v.saturated = Some(model.saturated);
    v.saturated_share = Some(model.saturated as f64 / total.max(1) as f64);
    v.u8_zero = Some(zero);
    let of = pipeline.name();
    let widths = bits.name();
    v.tolerance = if scale_by_depth {
        format!("equal (after rescaling by {k}) to the CPU model of the {of} u8 pipeline, {widths}")
    } else {
        format!("equal to the CPU model of the {of} u8 pipeline, {widths}")
    };
    v.held = format!(
        "equal to the 8-bit pipeline's model ({} steps off)",
        if steps <= 1e-3 {
            "0".to_string()
        } else {
            format!("{steps:.0}")
        }
    );
    let nonzero = reference.iter().filter(|&&r| r > 0.0).count();
    let why = if total == 0 {
        "an empty product".to_string()
    } else if model.saturated == total {
        "every element saturated at 1.0: its exact sum is past what 8 bits hold (--scale-by-depth keeps sums under 1)".to_string()
    } else if zero > 0 && zero == nonzero {
        "every product (or block sum) is under half an 8-bit step and rounds to 0".to_string()
    } else if model.saturated == 0 && zero == 0 {
        "none saturated, none rounded to 0: off by the 8-bit rounding of each pass".to_string()
    } else {
        format!(
            "{} of the elements saturated, {} rounded to 0, the rest off by the 8-bit rounding of each pass",
            share_of(model.saturated, total),
            share_of(zero, total)
        )
    };
    v.exact = Some(format!(
        "the 8-bit pipeline is {} off the exact product (relative Frobenius error {:.3e}): {why}",
        share(v.stats.rel_err),
        v.stats.rel_err
    ));
    judge_closeness(v, model.saturated > 0 || zero > 0, &why);
    v.u8_model = Some(U8ModelId {
        pipeline: of,
        bits,
        gpu: bits.gpu(),
    });
}

/// `n` of `total` as a share in words (`all 64`, `none`, `12 (19%)`).
fn share_of(n: usize, total: usize) -> String {
    match n {
        0 => "none".into(),
        _ if n == total => format!("all {n}"),
        _ => format!("{n} ({:.0}%)", 100.0 * n as f64 / total as f64),
    }
}
