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
    /// Number of non-finite elements in C (an unwritten, poisoned element shows here).
    pub nonfinite: usize,
}

impl ErrorStats {
    /// Whether the result is within `tol` relative Frobenius error and has no non-finite element.
    pub fn within(&self, tol: f64) -> bool {
        self.nonfinite == 0 && self.rel_err.is_finite() && self.rel_err <= tol
    }
}

/// Compare `c` with the f64 reference `reference` (row-major, same shape).
pub fn compare(c: &Matrix, reference: &[f64]) -> ErrorStats {
    assert_eq!(c.data.len(), reference.len(), "compare: sizes differ");
    let mut max_abs = 0.0f64;
    let mut worst = 0usize;
    let mut diff2 = 0.0f64;
    let mut ref2 = 0.0f64;
    let mut nonfinite = 0usize;
    let mut first_nonfinite = None;
    for (idx, (&x, &r)) in c.data.iter().zip(reference).enumerate() {
        if !x.is_finite() {
            nonfinite += 1;
            first_nonfinite.get_or_insert(idx);
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
    let rel = if ref2 > 0.0 { (diff2 / ref2).sqrt() } else { diff2.sqrt() };
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
            c.rows, c.cols, s.rel_err, tol, s.max_abs_err, s.nonfinite, c.data[s.worst_index], reference[s.worst_index]
        );
    }
    s
}
