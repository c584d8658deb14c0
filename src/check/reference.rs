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
        }
    }

    /// |A|·|B| of the inputs this is the reference of, computed on the first call.
    pub fn abs(&self, a: &Matrix, b: &Matrix) -> &[f64] {
        self.abs.get_or_init(|| precision::abs_product(a, b))
    }
}
