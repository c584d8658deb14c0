//! The one compare helper every test and `--check` uses: GPU (or CPU) result against the f64
//! reference.

use crate::matrix::Matrix;
use serde::Serialize;

/// How far a result is from the f64 reference.
#[derive(Clone, Debug, Serialize)]
pub struct ErrorStats {
    /// Largest |C - C_ref| over all elements (NaN if any element is NaN).
    pub max_abs_err: f64,
    /// Relative Frobenius error ‖C − C_ref‖_F / ‖C_ref‖_F (the absolute norm if C_ref is zero).
    pub rel_err: f64,
    /// Row-major index of the largest error (or the first non-finite element).
    pub worst_index: usize,
    /// Elements where C or the reference is non-finite and the two are not the same NaN or
    /// infinity (an unwritten, poisoned element shows here).
    pub nonfinite: usize,
}

impl ErrorStats {
    /// Whether the result is within `tol` relative Frobenius error and has no non-finite element.
    pub fn within(&self, tol: f64) -> bool {
        self.nonfinite == 0 && self.rel_err.is_finite() && self.rel_err <= tol
    }
}

/// Compare `c` with the f64 reference `reference` (row-major, same shape).
///
/// Non-finite values compare as numpy's `allclose(..., equal_nan=True)` does: NaN where the
/// reference is NaN, and an infinity where the reference has the same infinity, are equal (and
/// left out of the norms); any other non-finite value on either side — a poisoned element the
/// method never wrote, an overflow — is a mismatch, counted in [`ErrorStats::nonfinite`].
pub fn compare(c: &Matrix, reference: &[f64]) -> ErrorStats {
    assert_eq!(c.data.len(), reference.len(), "compare: sizes differ");
    let mut max_abs = 0.0f64;
    let mut worst = 0usize;
    let mut diff2 = 0.0f64;
    let mut ref2 = 0.0f64;
    let mut nonfinite = 0usize;
    let mut first_nonfinite = None;
    for (idx, (&x, &r)) in c.data.iter().zip(reference).enumerate() {
        if !x.is_finite() || !r.is_finite() {
            let same = (x.is_nan() && r.is_nan()) || (x.is_infinite() && x as f64 == r);
            if !same {
                nonfinite += 1;
                first_nonfinite.get_or_insert(idx);
            }
            continue;
        }
        let d = (x as f64 - r).abs();
        if d > max_abs {
            max_abs = d;
            worst = idx;
        }
        diff2 += d * d;
        ref2 += r * r;
    }
    let rel = if ref2 > 0.0 {
        (diff2 / ref2).sqrt()
    } else {
        diff2.sqrt()
    };
    match first_nonfinite {
        Some(idx) => ErrorStats {
            max_abs_err: f64::NAN,
            rel_err: f64::NAN,
            worst_index: idx,
            nonfinite,
        },
        None => ErrorStats {
            max_abs_err: max_abs,
            rel_err: rel,
            worst_index: worst,
            nonfinite,
        },
    }
}

/// Assert that `c` matches `reference` within `tol`, with a message naming the worst element.
/// Used by the tests.
pub fn assert_close(label: &str, c: &Matrix, reference: &[f64], tol: f64) -> ErrorStats {
    let s = compare(c, reference);
    if !s.within(tol) {
        let (i, j) = (s.worst_index / c.cols, s.worst_index % c.cols);
        panic!(
            "{label}: {}x{} result off: rel_err {:e} (tol {:e}), max_abs_err {:e}, {} non-finite; \
             element ({i},{j}) = {} vs reference {}",
            c.rows,
            c.cols,
            s.rel_err,
            tol,
            s.max_abs_err,
            s.nonfinite,
            c.data[s.worst_index],
            reference[s.worst_index]
        );
    }
    s
}

/// The verdict on one result: its error against the f64 reference and whether it is within what
/// its precision promises.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub stats: ErrorStats,
    /// Whether the result is within `tolerance`.
    pub passed: bool,
    /// What the result was held to, in words.
    pub tolerance: String,
    /// u8: output elements whose true 8-bit sum exceeded 1.0 and so saturated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated: Option<usize>,
    /// u8: share of saturated output elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated_share: Option<f64>,
    /// u8: largest difference from the CPU model of the 8-bit pipeline, in 8-bit steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_model_max_steps: Option<f64>,
    /// u8: which CPU model the result was compared with (pipeline and widths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_model: Option<U8ModelId>,
    /// f16: largest ratio of the error to the derived elementwise bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f16_bound_ratio: Option<f64>,
}

/// Which CPU model of the 8-bit pipeline a u8 result was held to: the method's pass structure
/// and the widths of L-M §4 ([`crate::precision::U8Bits`]).
#[derive(Clone, Debug, Serialize)]
pub struct U8ModelId {
    /// `L-M`, `hall-blocked (b = 7)`, `hall-packed (b = 7)`.
    pub pipeline: String,
    /// `product_bits` and `sum_bits`.
    #[serde(flatten)]
    pub bits: crate::precision::U8Bits,
    /// The GPU of L-M §4 these widths are, if any (or rendermm's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<&'static str>,
}

/// Judge `c = a · b` computed by Larsen–McAllister at `precision`:
/// - f32: relative Frobenius error ≤ `f32_tol` (the method's tolerance);
/// - f16: every element within the f16 accumulation bound of [`precision::f16_bound`](crate::precision::f16_bound);
/// - u8: every element equal to the CPU model of the 8-bit pipeline
///   ([`precision::u8_model`](crate::precision::u8_model); times k after `--scale-by-depth`).
///
/// For any method, [`crate::plan::verdict_for`] picks the method's own model and bound.
pub fn verdict(
    precision: crate::precision::Precision,
    scale_by_depth: bool,
    f32_tol: f64,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
) -> Verdict {
    judge(
        crate::precision::Pipeline::Slices,
        precision,
        scale_by_depth,
        f32_tol,
        a,
        b,
        c,
    )
}

/// Judge `c = a · b` as a run of `pipeline` in `precision` made it, u8 at the default widths
/// ([`judge_bits`]).
pub fn judge(
    pipeline: crate::precision::Pipeline,
    precision: crate::precision::Precision,
    scale_by_depth: bool,
    f32_tol: f64,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
) -> Verdict {
    judge_bits(
        pipeline,
        precision,
        scale_by_depth,
        crate::precision::U8Bits::default(),
        f32_tol,
        a,
        b,
        c,
    )
}

/// Judge `c = a · b` as a run of `pipeline` in `precision` made it:
/// - u8: equal to the pipeline's CPU model at the widths `bits` (L-M §4; up to the f32
///   rounding of the rescale by k under `--scale-by-depth`), with the saturated count;
/// - f16: within the pipeline's derived bound;
/// - f32: relative Frobenius error ≤ `f32_tol`.
///
/// Which pipeline a method runs is the method's business ([`crate::plan::verdict_for`]).
#[allow(clippy::too_many_arguments)]
pub fn judge_bits(
    pipeline: crate::precision::Pipeline,
    precision: crate::precision::Precision,
    scale_by_depth: bool,
    bits: crate::precision::U8Bits,
    f32_tol: f64,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
) -> Verdict {
    use crate::precision::{self, Precision};
    let reference = crate::cpu::reference_f64(a, b);
    let stats = compare(c, &reference);
    let mut v = Verdict {
        passed: false,
        tolerance: String::new(),
        saturated: None,
        saturated_share: None,
        u8_model_max_steps: None,
        u8_model: None,
        f16_bound_ratio: None,
        stats,
    };
    match precision {
        Precision::F32 => {
            v.passed = v.stats.within(f32_tol);
            v.tolerance = format!("relative Frobenius error <= {f32_tol:e} (f32)");
        }
        Precision::F16 => {
            let bound = pipeline.f16_bound(a, b);
            let ratio = c
                .data
                .iter()
                .zip(&reference)
                .zip(&bound)
                .map(|((&x, &r), &bd)| {
                    if x.is_finite() {
                        (x as f64 - r).abs() / bd
                    } else {
                        f64::INFINITY
                    }
                })
                .fold(0.0f64, f64::max);
            v.passed = v.stats.nonfinite == 0 && ratio <= 1.0;
            v.f16_bound_ratio = Some(ratio);
            v.tolerance = pipeline.f16_bound_words(a.cols);
        }
        Precision::U8 => {
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
            v.u8_model_max_steps = Some(steps);
            v.saturated = Some(model.saturated);
            v.saturated_share = Some(model.saturated as f64 / c.data.len() as f64);
            let of = pipeline.name();
            let widths = bits.name();
            v.tolerance = if scale_by_depth {
                format!(
                    "equal (after rescaling by {k}) to the CPU model of the {of} u8 pipeline, {widths}"
                )
            } else {
                format!("equal to the CPU model of the {of} u8 pipeline, {widths}")
            };
            v.u8_model = Some(U8ModelId {
                pipeline: of,
                bits,
                gpu: bits.gpu(),
            });
        }
    }
    v
}

/// Hold `v`, the verdict on `c` (m×n) against a reference built from f32 inputs, to the
/// product of the inputs as given instead: `a` (m×k) and `b` (k×n) as a float64 file stored
/// them, where f32 could not hold some of them (1e300 is an infinity in f32, and a product of
/// infinities would agree with itself). Where that product is finite C must be too, and close;
/// an element of it past f32's range is one float32 C cannot hold, and fails. Returns the first
/// such element (row, column, value).
pub fn hold_to_inputs_as_given(
    v: &mut Verdict,
    c: &Matrix,
    a: &[f64],
    b: &[f64],
    tol: f64,
) -> Option<(usize, usize, f64)> {
    let (m, n) = (c.rows, c.cols);
    let k = a.len().checked_div(m).unwrap_or(0);
    let mut reference = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut reference[i * n..(i + 1) * n];
        for p in 0..k {
            let aip = a[i * k + p];
            for (r, &bpj) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *r += aip * bpj;
            }
        }
    }
    v.stats = compare(c, &reference);
    v.passed = v.passed && v.stats.within(tol);
    v.tolerance
        .push_str(", against the product of the float64 inputs as given");
    reference
        .iter()
        .position(|r| r.is_finite() && r.abs() > f32::MAX as f64)
        .map(|idx| (idx / n.max(1), idx % n.max(1), reference[idx]))
}

#[cfg(test)]
mod nonfinite_tests {
    use super::*;

    fn row(v: &[f32]) -> Matrix {
        Matrix::new(1, v.len(), v.to_vec()).unwrap()
    }

    #[test]
    fn same_nan_and_same_infinity_are_equal_as_numpy_equal_nan() {
        let s = compare(
            &row(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0]),
            &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 2.0],
        );
        assert_eq!(s.nonfinite, 0);
        assert!(s.within(1e-5), "{s:?}");
    }

    #[test]
    fn a_poisoned_element_or_a_wrong_infinity_is_a_mismatch() {
        for (c, r) in [
            (f32::NAN, 1.0),
            (f32::INFINITY, f64::NEG_INFINITY),
            (1.0, f64::NAN),
            (f32::INFINITY, 1.0),
        ] {
            let s = compare(&row(&[c, 2.0]), &[r, 2.0]);
            assert_eq!(s.nonfinite, 1, "{c} vs {r}");
            assert!(!s.within(1e-5), "{c} vs {r}");
            assert_eq!(s.worst_index, 0);
        }
    }
}
