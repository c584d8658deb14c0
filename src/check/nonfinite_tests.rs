//! The unit tests of the comparison on results that hold NaN or infinities.

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
