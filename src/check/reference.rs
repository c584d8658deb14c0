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
        let (m, k, n) = (a.rows, a.cols, b.cols);
        let mut widest = vec![0.0f64; m * n];
        let mut largest = vec![0.0f64; m * n];
        let (mut sum, mut hi, mut lo) = (vec![0.0f64; n], vec![0.0f64; n], vec![0.0f64; n]);
        for i in 0..m {
            sum.fill(0.0);
            hi.fill(0.0);
            lo.fill(0.0);
            let big = &mut largest[i * n..(i + 1) * n];
            for p in 0..k {
                let aip = a.data[i * k + p] as f64;
                let brow = &b.data[p * n..(p + 1) * n];
                // Comparisons, not f64::max/min, and zipped slices, not indices: in wasm (built
                // for size) those were calls and bounds checks, which made this loop 30× the
                // reference's time in a browser (2.5 s at 384³ in headless Chromium). A NaN is
                // skipped either way.
                let row = sum.iter_mut().zip(hi.iter_mut()).zip(lo.iter_mut());
                for ((((s, h), l), g), &bpj) in row.zip(big.iter_mut()).zip(brow) {
                    let t = aip * bpj as f64;
                    *s += t;
                    if *s > *h {
                        *h = *s;
                    }
                    if *s < *l {
                        *l = *s;
                    }
                    if t.abs() > *g {
                        *g = t.abs();
                    }
                }
            }
            for j in 0..n {
                widest[i * n + j] = hi[j] - lo[j];
            }
        }
        Runs { widest, largest }
    }
}

impl Reference {
    /// The reference of `a · b`, computed now; |A|·|B| when first needed.
    pub fn new(a: &Matrix, b: &Matrix) -> Reference {
        Reference::of(crate::cpu::reference_f64(a, b))
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
