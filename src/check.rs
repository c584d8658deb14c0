//! The judge: every verdict on a product — `--check`, bench, sweep, soak, tour, tune, the page
//! and the tests — comes from [`judge`], which holds a result to what the arithmetic that made
//! it ([`Arith`]) promises and says in words what that was. [`check`] is the one policy around
//! it that every edge calls: in full or on sampled elements (for products too large for the
//! full f64 reference), held to the exact product or to the pipeline's model, against the
//! inputs as given where a float64 input held values past f32's range ([`CheckPolicy`]).
//!
//!
//! - **f32** (every f32 method): every element within 2·γ_(k+1)·(|A||B|)_ij of the f64
//!   reference ([`f32_bound`]) — a bound that grows with k, so correct results pass at any k and
//!   a result short of one slice of the sum fails where the slice is larger than the rounding
//!   could be;
//! - **f16 inputs, f32 sums** (`coop`, `frag-mrt-f16`): every element within the bound of
//!   [`f16_inputs_bound`];
//! - **f16 render pipelines** (L-M, Hall): within the pipeline's a priori bound
//!   ([`f16_pipeline_bound`]) and within a few f16 units of the CPU model of
//!   its f16 blending ([`crate::precision::f16_model`]), which follows every rounding of the
//!   running sum: the a priori bound alone grows to the size of the sum itself at k ≈ 1000;
//! - **u8** (L-M, Hall): equal to the CPU model of the 8-bit pipeline, with a second line on how
//!   far that pipeline is from the exact product, and why (saturation, products under half a
//!   step).
//!
//! [`compare`] is the plain distance to the f64 reference that every verdict carries.

use crate::matrix::Matrix;
use crate::precision::{self, Pipeline, Precision, U8Bits};
use serde::Serialize;

mod reference;
pub use reference::Reference;

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

/// The verdict on one result: its error against the f64 reference, whether it is within what
/// the arithmetic that made it promises, and what that was.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub stats: ErrorStats,
    /// Whether the result is within `tolerance`.
    pub passed: bool,
    /// What the result was held to, in full.
    pub tolerance: String,
    /// The verdict in one line: what the result was held to and how much of it the worst
    /// element used (`within γ_(k+1)(2u)·|A||B| elementwise (...), worst 3% of that`; u8:
    /// `equal to the 8-bit pipeline's model (0 steps off)`).
    pub held: String,
    /// f32: largest ratio of an element's error to its bound ([`f32_bound`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_ratio: Option<f64>,
    /// u8: how far the result is from the exact product, and why (saturation, products under
    /// half a step): the model is the test of the method, this is what the 8-bit pipeline gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    /// u8: output elements whose true 8-bit sum exceeded 1.0 and so saturated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated: Option<usize>,
    /// u8: share of saturated output elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated_share: Option<f64>,
    /// u8: output elements that are 0 where the exact product is not (every product, or block
    /// sum, under half an 8-bit step).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_zero: Option<usize>,
    /// u8: largest difference from the CPU model of the 8-bit pipeline, in 8-bit steps.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_model_max_steps: Option<f64>,
    /// u8: which CPU model the result was compared with (pipeline and widths).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_model: Option<U8ModelId>,
    /// f16: largest ratio of the error to the derived elementwise bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f16_bound_ratio: Option<f64>,
    /// f16 render pipelines: largest distance from the CPU model of the f16 blending, in f16
    /// spacings at the running sum's peak ([`precision::f16_model`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub f16_model_spacings: Option<f64>,
    /// Whether C is close to the exact product: within the f32 (or f16-input) bound, or, for the
    /// f16 and u8 render pipelines, within [`CLOSE_LOW_PRECISION`] of it (relative
    /// Frobenius error) with nothing saturated or rounded to 0.
    pub close: bool,
    /// How close to the exact product, in words (`close to the exact product: ...` or
    /// `100% off the exact product: its sums stop growing at 2048`).
    pub closeness: String,
    /// Whether C is what its pipeline computes: within its bound or equal to its model. For f32
    /// this is `close`.
    pub model_passed: bool,
    /// What `passed` holds C to: the exact product (the default), or the pipeline's model only.
    pub held_to: Hold,
}

/// What a check holds a result to: `exact` (close to the exact product, and what its pipeline
/// computes) or `model` (what its pipeline computes, however far that is from the exact
/// product: the 8-bit pipeline's saturation, the f16 sums that stop growing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hold {
    #[default]
    Exact,
    Model,
}

impl Hold {
    pub fn name(self) -> &'static str {
        match self {
            Hold::Exact => "exact",
            Hold::Model => "model",
        }
    }
}

impl std::str::FromStr for Hold {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Hold, String> {
        match s {
            "exact" => Ok(Hold::Exact),
            "model" => Ok(Hold::Model),
            _ => Err(format!(
                "check '{s}' is neither 'exact' (close to the exact product) nor 'model' (the pipeline's model only)"
            )),
        }
    }
}

impl Verdict {
    /// Hold the verdict to `hold`: `passed` becomes `model_passed && close` (exact) or
    /// `model_passed` (model).
    pub fn hold_to(&mut self, hold: Hold) {
        self.held_to = hold;
        self.passed = match hold {
            Hold::Exact => self.model_passed && self.close,
            Hold::Model => self.model_passed,
        };
    }

    /// The verdict's first line, without the leading `ok`/`FAILED`: whether C is close to the
    /// exact product, then what its pipeline promised.
    pub fn headline(&self) -> String {
        if self.close {
            format!("{}; {}", self.closeness, self.held)
        } else if self.model_passed {
            format!("{} as the pipeline must, but {}", self.held, self.closeness)
        } else {
            format!("{}; {}", self.closeness, self.held)
        }
    }
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

/// The arithmetic that made a result, which decides what the judge holds it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// f32 inputs, f32 products and sums in any order: every f32 method, the render-pass
    /// methods in f32, the CPU methods.
    F32,
    /// Inputs rounded to f16, products and sums in f32: `coop` (on tensor cores, which truncate)
    /// and `frag-mrt-f16` (in the fragment shader).
    F16Inputs { tensor_cores: bool },
    /// A render pipeline whose running sum is stored in f16 once per pass.
    F16(Pipeline),
    /// A render pipeline in 8 bits: its CPU model at the widths `bits`, polygon colour 1/k under
    /// `scale_by_depth`.
    U8 {
        pipeline: Pipeline,
        scale_by_depth: bool,
        bits: U8Bits,
    },
}

impl Arith {
    /// A render pipeline at `precision` (f32 is [`Arith::F32`]).
    pub fn of_pipeline(
        pipeline: Pipeline,
        precision: Precision,
        scale_by_depth: bool,
        bits: U8Bits,
    ) -> Arith {
        match precision {
            Precision::F32 => Arith::F32,
            Precision::F16 => Arith::F16(pipeline),
            Precision::U8 => Arith::U8 {
                pipeline,
                scale_by_depth,
                bits,
            },
        }
    }
}

mod bounds;
use bounds::f32_bound_words;
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use bounds::{
    ElementBound, STATISTICAL_RISK, f16_bound, f16_bound_blocked, f16_inputs_bound,
    f16_inputs_bound_words, f16_pipeline_bound, f16_pipeline_bound_words, f32_bound,
    f32_element_bounds, gamma, statistical_lambda,
};

/// Largest |C − C_ref| / bound over the elements; a non-finite element counts as 0 where the
/// reference has the same NaN or infinity (as in [`compare`]) and as infinitely far otherwise.
fn worst_ratio(c: &Matrix, reference: &[f64], bound: &[f64]) -> f64 {
    c.data
        .iter()
        .zip(reference)
        .zip(bound)
        .map(|((&x, &r), &bd)| {
            if x.is_finite() && r.is_finite() {
                (x as f64 - r).abs() / bd
            } else if (x.is_nan() && r.is_nan()) || (x.is_infinite() && x as f64 == r) {
                0.0
            } else {
                f64::INFINITY
            }
        })
        .fold(0.0f64, f64::max)
}

/// A share as words: `3%`, `2.1e-3` below a percent, `31.6 times` past ten.
fn share(r: f64) -> String {
    if !r.is_finite() {
        "infinitely far".into()
    } else if r >= 10.0 {
        format!("{r:.3} times")
    } else if r >= 0.01 {
        format!("{:.0}%", r * 100.0)
    } else {
        format!("{r:.1e}")
    }
}

/// How far from the exact product (relative Frobenius error) a result of the f16 or u8 render
/// pipelines may be and still count as close to it: one part in twenty. An f16 sum keeps 11
/// bits and an 8-bit one 8, so a few passes' rounding stay well inside (L-M in u8 at 64³: 2%;
/// Hall in f16 at k = 2000: 1.1%), while the f16 sums that stop growing (L-M at k = 2000: 29%)
/// and the 8-bit products that round to 0 do not. A u8 result with any element saturated or
/// rounded to 0 is not close either, however small its error over the whole matrix.
pub const CLOSE_LOW_PRECISION: f64 = 0.05;

/// Close to the exact product for the f16 and u8 pipelines ([`CLOSE_LOW_PRECISION`]), with
/// `why` (how the pipeline departs from exact) in the words.
fn judge_closeness(v: &mut Verdict, departed: bool, why: &str) {
    let rel = v.stats.rel_err;
    v.close = v.stats.nonfinite == 0 && rel <= CLOSE_LOW_PRECISION && !departed;
    v.closeness = if v.close {
        format!(
            "close to the exact product (relative error {rel:.1e}, within {:.0}%): {why}",
            CLOSE_LOW_PRECISION * 100.0
        )
    } else {
        format!(
            "{} off the exact product (relative error {rel:.3e}; close is within {:.0}%): {why}",
            share(rel),
            CLOSE_LOW_PRECISION * 100.0
        )
    };
}

/// How far f16 render pipelines may be from their CPU model ([`precision::f16_model`]), in f16
/// spacings at the running sum's peak. The model rounds as the GPU does, once per pass, to
/// nearest; what it cannot follow is a blend unit that rounds a tie, or a sum the shader
/// rounded in f32 first, the other way — a spacing at a time, and rarely.
pub const F16_MODEL_SPACINGS: f64 = 4.0;

/// Judge `c = a · b` as `arith` made it, against the f64 reference (computed here).
pub fn judge(arith: Arith, a: &Matrix, b: &Matrix, c: &Matrix) -> Verdict {
    // The f32 bound takes |A|·|B| and the runs of partial sums, the f16-inputs bound |A|·|B|:
    // computed in the reference's own pass.
    let reference = match arith {
        Arith::F32 => Reference::with_bounds(a, b, true),
        Arith::F16Inputs { .. } => Reference::with_bounds(a, b, false),
        _ => Reference::new(a, b),
    };
    judge_against(arith, a, b, c, &reference)
}

/// [`judge`] with the f64 reference of `a · b` already at hand (it must be of these `a` and
/// `b`: its |A|·|B| is computed from them once and kept).
fn judge_against(arith: Arith, a: &Matrix, b: &Matrix, c: &Matrix, r: &Reference) -> Verdict {
    let reference = &r.c[..];
    let stats = compare(c, reference);
    let mut v = Verdict {
        passed: false,
        tolerance: String::new(),
        held: String::new(),
        bound_ratio: None,
        exact: None,
        saturated: None,
        saturated_share: None,
        u8_zero: None,
        u8_model_max_steps: None,
        u8_model: None,
        f16_bound_ratio: None,
        f16_model_spacings: None,
        close: false,
        closeness: String::new(),
        model_passed: false,
        held_to: Hold::Exact,
        stats,
    };
    let k = a.cols;
    match arith {
        Arith::F32 => {
            let bound = f32_element_bounds(a, b, r);
            let ratio = worst_ratio(c, reference, &bound);
            v.passed = v.stats.nonfinite == 0 && ratio <= 1.0;
            v.bound_ratio = Some(ratio);
            v.tolerance = f32_bound_words(k, c.data.len());
            v.held = format!(
                "within the f32 rounding bound elementwise (k = {k}: the least of worst case, partial sums and statistical, largest {:.1e}), worst {} of that",
                bound.iter().copied().fold(0.0f64, f64::max),
                share(ratio)
            );
        }
        Arith::F16Inputs { tensor_cores } => {
            let bound = f16_inputs_bound(k);
            let ratio = worst_ratio(c, reference, &bound.of_abs(a, b, r.abs(a, b)));
            v.passed = v.stats.nonfinite == 0 && ratio <= 1.0;
            v.f16_bound_ratio = Some(ratio);
            v.tolerance = f16_inputs_bound_words(k, tensor_cores);
            v.held = format!(
                "within the bound for f16 inputs and f32 sums elementwise (k = {k}: {:.1e} of |A||B|), worst {} of that",
                bound.rel,
                share(ratio)
            );
        }
        Arith::F16(pipeline) => judge_f16(&mut v, pipeline, a, b, c, reference),
        Arith::U8 {
            pipeline,
            scale_by_depth,
            bits,
        } => judge_u8(&mut v, pipeline, scale_by_depth, bits, a, b, c, reference),
    }
    v.model_passed = v.passed;
    if let Some(words) = past_f32(reference, c.cols) {
        // A product past f32's range is no rounding: no float32 C holds it.
        v.close = false;
        v.closeness = words;
        v.hold_to(Hold::Exact);
        return v;
    }
    if matches!(arith, Arith::F32 | Arith::F16Inputs { .. }) {
        v.close = v.passed;
        v.closeness = if v.passed {
            "close to the exact product".into()
        } else {
            format!("{} off the exact product", share(v.stats.rel_err))
        };
    }
    v.hold_to(Hold::Exact);
    v
}

/// Where the exact product has a finite element past f32's range (1e20 · 1e20 from finite
/// inputs), what to say instead of "infinitely far": which element, how large, and that a
/// float32 C cannot hold it.
fn past_f32(reference: &[f64], cols: usize) -> Option<String> {
    let idx = reference
        .iter()
        .position(|r| r.is_finite() && r.abs() > f32::MAX as f64)?;
    let count = reference
        .iter()
        .filter(|r| r.is_finite() && r.abs() > f32::MAX as f64)
        .count();
    Some(format!(
        "the exact product overflows f32: it has {:.3e} at row {}, column {} ({count} element{} past f32's largest, about 3.4e38), which a float32 C can only hold as an infinity; scale the inputs down",
        reference[idx],
        idx / cols.max(1),
        idx % cols.max(1),
        if count == 1 { "" } else { "s" }
    ))
}

mod low_precision;
use low_precision::{judge_f16, judge_u8};

mod policy;
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use policy::{CheckPolicy, Checked, Coverage, FULL_CHECK_MADDS, Inputs, SAMPLES, check};

/// [`judge`] on `samples` elements drawn at random (from `seed`), for products too large for
/// the full f64 reference: each element (i, j) is judged as the 1×k · k×1 product of row i of A
/// and column j of B, which is all any model or bound of one element looks at. The verdict is the
/// worst sample's, with the errors of all the samples.
fn judge_sampled(
    arith: Arith,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    samples: usize,
    seed: u64,
) -> Verdict {
    use rand::{Rng, SeedableRng, rngs::StdRng};
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let k = a.cols;
    let (mut d2, mut r2, mut max_abs, mut nonfinite) = (0.0f64, 0.0f64, 0.0f64, 0usize);
    let mut worst: Option<(f64, usize, Verdict)> = None;
    let badness = |v: &Verdict| {
        let r = [
            v.bound_ratio,
            v.f16_bound_ratio,
            v.f16_model_spacings.map(|s| s / F16_MODEL_SPACINGS),
            v.u8_model_max_steps.map(|s| s * 1e3),
        ]
        .into_iter()
        .flatten()
        .fold(0.0f64, f64::max);
        if v.model_passed && v.close {
            r
        } else {
            f64::INFINITY
        }
    };
    for _ in 0..samples.max(1) {
        if c.data.is_empty() {
            break;
        }
        let i = rng.random_range(0..c.rows);
        let j = rng.random_range(0..c.cols);
        let row = Matrix {
            rows: 1,
            cols: k,
            data: a.data[i * k..(i + 1) * k].to_vec().into(),
        };
        let col = Matrix {
            rows: k,
            cols: 1,
            data: (0..k).map(|p| b.get(p, j)).collect(),
        };
        let cij = Matrix {
            rows: 1,
            cols: 1,
            data: vec![c.get(i, j)].into(),
        };
        let reference = Reference::new(&row, &col);
        let v = judge_against(arith, &row, &col, &cij, &reference);
        let (x, r) = (cij.data[0] as f64, reference.c[0]);
        nonfinite += v.stats.nonfinite;
        if x.is_finite() && r.is_finite() {
            d2 += (x - r).powi(2);
            r2 += r * r;
            max_abs = max_abs.max((x - r).abs());
        }
        let bad = badness(&v);
        if worst.as_ref().is_none_or(|(w, _, _)| bad > *w) {
            worst = Some((bad, i * c.cols + j, v));
        }
    }
    let rel_err = if r2 > 0.0 {
        (d2 / r2).sqrt()
    } else {
        d2.sqrt()
    };
    let Some((_, idx, mut v)) = worst else {
        return judge(arith, a, b, c);
    };
    v.stats = ErrorStats {
        max_abs_err: if nonfinite > 0 { f64::NAN } else { max_abs },
        rel_err: if nonfinite > 0 { f64::NAN } else { rel_err },
        worst_index: idx,
        nonfinite,
    };
    v.model_passed &= nonfinite == 0;
    v.close &= nonfinite == 0;
    v.hold_to(Hold::Exact);
    v.saturated = None;
    v.saturated_share = None;
    v.u8_zero = None;
    v.tolerance
        .push_str(&format!(" (on {samples} sampled elements)"));
    v.held
        .push_str(&format!(" (the worst of {samples} sampled elements)"));
    v
}

/// Hold `v`, the verdict on `c` (m×n) against a reference built from f32 inputs, to the
/// product of the inputs as given instead: `a` (m×k) and `b` (k×n) as a float64 file stored
/// them, where f32 could not hold some of them (1e300 is an infinity in f32, and a product of
/// infinities would agree with itself). Where that product is finite C must be too, and within
/// the f32 bound ([`f32_bound`]) with the rounding of each input to f32 added (2u + u² of each
/// product); an element of it past f32's range is one float32 C cannot hold, and fails. Returns
/// the first such element (row, column, value).
fn hold_to_inputs_as_given(
    v: &mut Verdict,
    c: &Matrix,
    a: &[f64],
    b: &[f64],
) -> Option<(usize, usize, f64)> {
    let (m, n) = (c.rows, c.cols);
    let k = a.len().checked_div(m).unwrap_or(0);
    let mut reference = vec![0.0f64; m * n];
    let mut abs = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut reference[i * n..(i + 1) * n];
        let arow = &mut abs[i * n..(i + 1) * n];
        for p in 0..k {
            let aip = a[i * k + p];
            for ((r, s), &bpj) in row
                .iter_mut()
                .zip(arow.iter_mut())
                .zip(&b[p * n..(p + 1) * n])
            {
                *r += aip * bpj;
                *s += (aip * bpj).abs();
            }
        }
    }
    let row_abs: Vec<f64> = (0..m)
        .map(|i| a[i * k..(i + 1) * k].iter().map(|x| x.abs()).sum())
        .collect();
    let col_abs: Vec<f64> = (0..n)
        .map(|j| (0..k).map(|p| b[p * n + j].abs()).sum())
        .collect();
    let u = precision::F32_UNIT_ROUNDOFF;
    let eb = f32_bound(k);
    let bound: Vec<f64> = abs
        .iter()
        .enumerate()
        .map(|(idx, &s)| {
            let (i, j) = (idx / n, idx % n);
            (eb.rel + 2.0 * u + u * u) * s + eb.abs * (row_abs[i] + col_abs[j]) + eb.floor
        })
        .collect();
    v.stats = compare(c, &reference);
    let ratio = worst_ratio(c, &reference, &bound);
    // Judged again, against the product as given: the f32 verdict compared C with a reference
    // of infinities and NaNs, which says nothing.
    let ok = v.stats.nonfinite == 0 && ratio <= 1.0;
    v.model_passed = ok;
    v.close = ok;
    v.closeness = match past_f32(&reference, n) {
        Some(words) => {
            v.close = false;
            words
        }
        None if ok => "close to the exact product of the inputs as given".into(),
        None => format!(
            "{} off the exact product of the inputs as given",
            share(v.stats.rel_err)
        ),
    };
    v.hold_to(v.held_to);
    v.bound_ratio = Some(ratio);
    v.tolerance.push_str(
        ", against the product of the float64 inputs as given (each input's rounding to f32 added)",
    );
    v.held.push_str(&format!(
        "; against the product of the float64 inputs as given, worst {} of the bound",
        share(ratio)
    ));
    reference
        .iter()
        .position(|r| r.is_finite() && r.abs() > f32::MAX as f64)
        .map(|idx| (idx / n.max(1), idx % n.max(1), reference[idx]))
}

#[cfg(test)]
mod nonfinite_tests;
