//! The colour scale and the tick labels every rendermm picture shares: the figures draw them
//! through `draw::picture`, the demos' renderer (which builds for the browser too) directly, so
//! they sit here, below both, with no native dependency.

use crate::matrix::Matrix;

/// A colour scale that a few outliers do not wash out: the largest magnitude, but at most three
/// times the root mean square (the figures' and the demos' scale, one function).
pub fn robust_scale(m: &Matrix) -> f32 {
    let n = m.data.iter().filter(|v| v.is_finite()).count().max(1);
    let rms = (m
        .data
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| (v * v) as f64)
        .sum::<f64>()
        / n as f64)
        .sqrt() as f32;
    m.max_abs().min(3.0 * rms)
}

/// A tick label: two significant digits, trailing zeros dropped (the figures' and the demos'
/// tick labels, one function).
pub fn number(v: f32) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{v}");
    }
    let digits = (1 - a.log10().floor() as i32).max(0) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}
