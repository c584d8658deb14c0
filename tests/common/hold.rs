//! [`hold`]: a result held by the judge the tool uses, for the tests below the entry point.

use rendermm::Matrix;
use rendermm::check::{self, Arith, Verdict};
use rendermm::precision::Precision;

/// Hold `c = a · b` with the judge the tool uses ([`check::judge`]): to what `arith`, the
/// arithmetic that made it, promises — an outcome's own `arith`, or the arithmetic of the method
/// and precision a lower-level call ran. For f32 that is every element within the f32 rounding
/// bound of its own |A||B|, which grows with k; never a flat number. Panics with the verdict's
/// words and the worst element when it fails; returns the verdict.
#[track_caller]
pub fn hold(label: &str, arith: Arith, a: &Matrix, b: &Matrix, c: &Matrix) -> Verdict {
    assert_eq!(
        (c.rows, c.cols),
        (a.rows, b.cols),
        "{label}: C is {}x{}, A·B is {}x{}",
        c.rows,
        c.cols,
        a.rows,
        b.cols
    );
    let v = check::judge(arith, a, b, c);
    if !v.passed {
        let idx = v.stats.worst_index;
        let (i, j) = (idx / c.cols.max(1), idx % c.cols.max(1));
        let reference = rendermm::cpu::reference_f64(a, b);
        panic!(
            "{label}: {}x{}x{} result FAILED: {}; held to {}; rel_err {:e}, max_abs_err {:e}, \
             {} non-finite; element ({i},{j}) = {} vs the f64 reference {}",
            a.rows,
            a.cols,
            b.cols,
            v.headline(),
            v.tolerance,
            v.stats.rel_err,
            v.stats.max_abs_err,
            v.stats.nonfinite,
            c.data.get(idx).copied().unwrap_or(f32::NAN),
            reference.get(idx).copied().unwrap_or(f64::NAN),
        );
    }
    v
}

/// The judge on Larsen–McAllister's result at `precision` (u8 at the default widths).
pub fn lm_verdict(
    precision: Precision,
    scale_by_depth: bool,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
) -> rendermm::check::Verdict {
    let arith = rendermm::check::Arith::of_pipeline(
        rendermm::precision::Pipeline::Slices,
        precision,
        scale_by_depth,
        rendermm::precision::U8Bits::default(),
    );
    rendermm::check::judge(arith, a, b, c)
}
