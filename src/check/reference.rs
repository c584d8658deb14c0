//! The f64 reference of a product, and the scale of the bounds, each computed once.

use crate::matrix::Matrix;
use crate::precision;

/// The f64 reference of one product `a · b`, and |A|·|B| (the scale of the f32 bounds),
/// each computed once however many results are judged against them: every product the page
/// makes of the same inputs, every method of a bench table. O(m·k·n) each, on the CPU.
pub struct Reference {
    /// A·B in f64, row-major.
    pub c: Vec<f64>,
    abs: std::sync::OnceLock<Vec<f64>>,
    runs: std::sync::OnceLock<Runs>,
}

/// What the partial sums of each element's inner product look like (the scale of the sharper
/// f32 bounds, [`super::f32_bound`]): for element (i, j), with the terms t_p = a_ip·b_pj and the
/// prefix sums P_0 = 0, P_q = t_0 + … + t_(q−1),
#[derive(Clone, Debug)]
pub struct Runs {
    /// W_ij = max_q P_q − min_q P_q: the largest |sum| of any run of consecutive terms. Any sum
    /// of a run that wraps around (t_q … t_(k−1), t_0 … t_r) is at most 2·W_ij.
    pub widest: Vec<f64>,
    /// max_p |t_p|: the largest single product.
    pub largest: Vec<f64>,
}

impl Runs {
    /// The runs of `a · b`, in one O(m·k·n) pass in f64 (the products of f32 values are exact).
    pub fn of(a: &Matrix, b: &Matrix) -> Runs {
        fused(a, b).2
    }
}

impl Reference {
    /// The reference of `a · b`, computed now; |A|·|B| when first needed.
    pub fn new(a: &Matrix, b: &Matrix) -> Reference {
        Reference::of(crate::cpu::reference_f64(a, b))
    }

    /// The reference and |A|·|B| and, with `runs`, the runs of partial sums ([`Runs::of`]'s
    /// pass computes all three, in one pass over A and B where one each took three): the same
    /// sums in the same order as [`Reference::new`] and [`Reference::abs`], so the same numbers
    /// bit for bit (the product of two f32 is exact in f64, so |a·b| is |a|·|b|).
    pub fn with_bounds(a: &Matrix, b: &Matrix, runs: bool) -> Reference {
        if !runs {
            let r = Reference::new(a, b);
            r.abs(a, b);
            return r;
        }
        let (c, abs, runs) = fused(a, b);
        let r = Reference::of(c);
        let _ = r.abs.set(abs);
        let _ = r.runs.set(runs);
        r
    }

    /// A reference computed elsewhere.
    pub fn of(c: Vec<f64>) -> Reference {
        Reference {
            c,
            abs: std::sync::OnceLock::new(),
            runs: std::sync::OnceLock::new(),
        }
    }

    /// |A|·|B| of the inputs this is the reference of, computed on the first call.
    pub fn abs(&self, a: &Matrix, b: &Matrix) -> &[f64] {
        self.abs.get_or_init(|| precision::abs_product(a, b))
    }

    /// The runs of partial sums of the inputs this is the reference of ([`Runs`]), computed on
    /// the first call.
    pub fn runs(&self, a: &Matrix, b: &Matrix) -> &Runs {
        self.runs.get_or_init(|| Runs::of(a, b))
    }
}

/// C = A·B and |A|·|B| in f64 and the runs of partial sums, all in one i-p-j pass: row i of
/// each summed over p in order, as [`crate::cpu::reference_f64`] sums it.
fn fused(a: &Matrix, b: &Matrix) -> (Vec<f64>, Vec<f64>, Runs) {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = vec![0.0f64; m * n];
    let mut abs = vec![0.0f64; m * n];
    let mut widest = vec![0.0f64; m * n];
    let mut largest = vec![0.0f64; m * n];
    let (mut hi, mut lo) = (vec![0.0f64; n], vec![0.0f64; n]);
    for i in 0..m {
        let cells = i * n..(i + 1) * n;
        let (sum, mag) = (&mut c[cells.clone()], &mut abs[cells.clone()]);
        let big = &mut largest[cells.clone()];
        hi.fill(0.0);
        lo.fill(0.0);
        for p in 0..k {
            let aip = a.data[i * k + p] as f64;
            let brow = &b.data[p * n..(p + 1) * n];
            // Comparisons, not f64::max/min, and zipped slices, not indices: in wasm (built for
            // size) those were calls and bounds checks, which made this loop 30× the
            // reference's time in a browser (2.5 s at 384³ in headless Chromium). A NaN is
            // skipped either way.
            let row = sum.iter_mut().zip(mag.iter_mut()).zip(hi.iter_mut()).zip(lo.iter_mut());
            for ((((s, g), h), l), (w, &bpj)) in row.zip(big.iter_mut().zip(brow)) {
                let t = aip * bpj as f64;
                *s += t;
                *g += t.abs();
                if *s > *h {
                    *h = *s;
                }
                if *s < *l {
                    *l = *s;
                }
                if t.abs() > *w {
                    *w = t.abs();
                }
            }
        }
        for ((w, h), l) in widest[cells].iter_mut().zip(&hi).zip(&lo) {
            *w = h - l;
        }
    }
    (c, abs, Runs { widest, largest })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The runs of element (i, j) as their definition reads: the prefix sums P_0 = 0,
    /// P_q = t_0 + … + t_(q−1) in f64, W = max P − min P, T = max |t_p| (a NaN skipped).
    fn runs_by_definition(a: &Matrix, b: &Matrix) -> Runs {
        let (m, k, n) = (a.rows, a.cols, b.cols);
        let (mut widest, mut largest) = (vec![], vec![]);
        for i in 0..m {
            for j in 0..n {
                let (mut p, mut hi, mut lo, mut big) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
                for q in 0..k {
                    let t = a.data[i * k + q] as f64 * b.data[q * n + j] as f64;
                    p += t;
                    hi = if p > hi { p } else { hi };
                    lo = if p < lo { p } else { lo };
                    big = if t.abs() > big { t.abs() } else { big };
                }
                widest.push(hi - lo);
                largest.push(big);
            }
        }
        Runs { widest, largest }
    }

    /// The one pass gives C and |A|·|B| bit for bit as their own passes do, and the runs as
    /// their definition does, on awkward shapes and on inputs whose partial sums cancel, pass
    /// f32's range and meet a NaN.
    #[test]
    fn the_one_pass_gives_each_passes_numbers_bit_for_bit() {
        let shapes = [(1, 1, 1), (1, 7, 13), (13, 1, 1), (5, 31, 3), (17, 64, 9), (2, 257, 3)];
        for (t, &(m, k, n)) in shapes.iter().enumerate() {
            let mut a = Matrix::random(m, k, 10 + t as u64, -1.0, 1.0);
            let b = Matrix::random(k, n, 20 + t as u64, -1.0, 1.0);
            a.data[0] = 3.0e38;
            if a.data.len() > 2 {
                a.data[1] = -3.0e38;
                a.data[2] = f32::NAN;
            }
            let c = crate::cpu::reference_f64(&a, &b);
            let abs = precision::abs_product(&a, &b);
            let runs = runs_by_definition(&a, &b);
            for with_runs in [false, true] {
                let r = Reference::with_bounds(&a, &b, with_runs);
                let what = format!("{m}x{k}x{n}, runs {with_runs}");
                assert_eq!(bits(&r.c), bits(&c), "C of {what}");
                assert_eq!(bits(r.abs(&a, &b)), bits(&abs), "|A|·|B| of {what}");
                assert_eq!(r.runs.get().is_some(), with_runs, "{what}");
                let got = r.runs(&a, &b);
                assert_eq!(bits(&got.widest), bits(&runs.widest), "widest run of {what}");
                assert_eq!(bits(&got.largest), bits(&runs.largest), "largest term of {what}");
            }
        }
    }
}
