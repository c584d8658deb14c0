//! The check policy: what a result is held to ([`Hold`]), how much of it the judge looks at
//! ([`Coverage`]: every element, sampled elements, or every element up to a size) and, where a
//! float64 input held values f32 cannot, the product of the inputs as given. [`check`] is the one
//! way every edge — `multiply --check`, `rendermm check`, Python, the page, the bench, sweep and
//! tune — turns a run's C into verdicts.

use super::{Arith, Hold, Reference, Verdict};
use crate::matrix::Matrix;

/// How many elements a sampled check looks at.
pub const SAMPLES: usize = 512;

/// The largest product (m·k·n multiply-adds) [`Coverage::auto`] checks in full: past it the
/// f64 reference would take the host longer than the product took the GPU.
pub const FULL_CHECK_MADDS: u64 = 1 << 27;

/// How much of C the judge looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every element, against the whole f64 reference.
    Full,
    /// `samples` elements drawn at random from `seed`, each judged as the 1×k · k×1 product of
    /// its row of A and column of B, which is all any model or bound of one element looks at.
    Sampled { samples: usize, seed: u64 },
    /// In full up to `full_up_to_madds` multiply-adds (m·k·n), else [`SAMPLES`] sampled
    /// elements from `seed`.
    Auto { full_up_to_madds: u64, seed: u64 },
}

impl Coverage {
    /// In full up to [`FULL_CHECK_MADDS`], else [`SAMPLES`] sampled elements from `seed`.
    pub fn auto(seed: u64) -> Coverage {
        Coverage::Auto {
            full_up_to_madds: FULL_CHECK_MADDS,
            seed,
        }
    }

    /// The samples and seed for a product of `m`·`k`·`n`, or `None`: in full.
    fn sampled(self, (m, k, n): (usize, usize, usize)) -> Option<(usize, u64)> {
        match self {
            Coverage::Full => None,
            Coverage::Sampled { samples, seed } => Some((samples, seed)),
            Coverage::Auto {
                full_up_to_madds,
                seed,
            } => (m as u64 * k as u64 * n as u64 > full_up_to_madds).then_some((SAMPLES, seed)),
        }
    }

    /// Whether a product of `m`·`k`·`n` is checked in full (and so needs the whole f64
    /// reference, which a caller may compute once and hand in, [`Inputs::reference`]).
    pub fn is_full(self, shape: (usize, usize, usize)) -> bool {
        self.sampled(shape).is_none()
    }
}

/// What a check holds C to and how much of it it looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckPolicy {
    pub hold: Hold,
    pub coverage: Coverage,
}

impl CheckPolicy {
    /// Every element, held to `hold`.
    pub fn full(hold: Hold) -> CheckPolicy {
        CheckPolicy {
            hold,
            coverage: Coverage::Full,
        }
    }

    /// Held to `hold`, in full up to [`FULL_CHECK_MADDS`], else on sampled elements.
    pub fn auto(hold: Hold, seed: u64) -> CheckPolicy {
        CheckPolicy {
            hold,
            coverage: Coverage::auto(seed),
        }
    }
}

/// The inputs of one product: A and B as the run multiplied them (f32), their values as given
/// where a float64 input held values past f32's range (row-major; [`Inputs::given`], from the
/// files and arrays of the command line and Python: the page has no float64 inputs), and the f64
/// reference of `a · b` if the caller already has it.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    pub a: &'a Matrix,
    pub b: &'a Matrix,
    a_given: Option<&'a [f64]>,
    b_given: Option<&'a [f64]>,
    /// The f64 reference of `a · b` (of these `a` and `b`), computed once by a caller that
    /// judges many results of the same inputs; used where the check is in full.
    pub reference: Option<&'a Reference>,
}

impl<'a> Inputs<'a> {
    /// A and B, nothing held past f32's range, no reference at hand.
    pub fn new(a: &'a Matrix, b: &'a Matrix) -> Inputs<'a> {
        Inputs {
            a,
            b,
            a_given: None,
            b_given: None,
            reference: None,
        }
    }

    /// The same inputs with the values a float64 A or B held as given.
    #[cfg(feature = "native")]
    pub fn given(mut self, a_given: Option<&'a [f64]>, b_given: Option<&'a [f64]>) -> Self {
        self.a_given = a_given;
        self.b_given = b_given;
        self
    }

    /// The same inputs with their f64 reference at hand.
    pub fn with_reference(mut self, reference: Option<&'a Reference>) -> Self {
        self.reference = reference;
        self
    }
}

/// The verdicts of a check, one per C (channel), and what the check says about itself.
#[derive(Clone, Debug)]
pub struct Checked {
    pub verdicts: Vec<Verdict>,
    /// `full`, or how many sampled elements were judged (`512 sampled elements`).
    pub coverage: String,
    /// Remarks for the report: a reference taken from the inputs as given, and an element of
    /// that product that a float32 C cannot hold.
    pub notes: Vec<String>,
}

impl Checked {
    /// Whether every verdict passed.
    pub fn passed(&self) -> bool {
        self.verdicts.iter().all(|v| v.passed)
    }

    /// The verdict with the largest relative error; `None` if nothing was judged.
    pub fn worst(&self) -> Option<&Verdict> {
        self.verdicts
            .iter()
            .max_by(|x, y| x.stats.rel_err.total_cmp(&y.stats.rel_err))
    }
}

/// Judge each C as `arith` made it from its inputs, under `policy`: in full or on sampled
/// elements, held to the exact product or to the pipeline's model, and — where a float64 input
/// held values past f32's range — against the product of the inputs as given (in full: that
/// product is computed whole), with a note saying so.
pub fn check(policy: CheckPolicy, arith: Arith, products: &[(Inputs, &Matrix)]) -> Checked {
    let mut notes: Vec<String> = vec![];
    let mut coverage = "full".to_string();
    let verdicts = products
        .iter()
        .map(|(inputs, c)| {
            let shape = (inputs.a.rows, inputs.a.cols, inputs.b.cols);
            // Without the native front ends nothing sets the values as given (`Inputs::given`).
            let given =
                cfg!(feature = "native") && (inputs.a_given.is_some() || inputs.b_given.is_some());
            let mut v = match policy.coverage.sampled(shape) {
                Some((samples, seed)) if !given => {
                    coverage = format!("{samples} sampled elements");
                    super::judge_sampled(arith, inputs.a, inputs.b, c, samples, seed)
                }
                _ => match inputs.reference {
                    Some(r) => super::judge_against(arith, inputs.a, inputs.b, c, r),
                    None => super::judge(arith, inputs.a, inputs.b, c),
                },
            };
            v.hold_to(policy.hold);
            if given {
                for note in as_given(&mut v, inputs, c) {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
            v
        })
        .collect();
    Checked {
        verdicts,
        coverage,
        notes,
    }
}

/// Hold `v` to the product of the inputs as given, and say so.
fn as_given(v: &mut Verdict, inputs: &Inputs, c: &Matrix) -> Vec<String> {
    let mut notes = vec![format!(
        "{} holds values past f32's range, infinities in the float32 computation; the check's reference is the product of the inputs as given",
        match (inputs.a_given.is_some(), inputs.b_given.is_some()) {
            (true, true) => "A and B each",
            (true, false) => "A",
            _ => "B",
        }
    )];
    let widen = |m: &Matrix| m.data.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let a64 = inputs
        .a_given
        .map_or_else(|| widen(inputs.a), <[f64]>::to_vec);
    let b64 = inputs
        .b_given
        .map_or_else(|| widen(inputs.b), <[f64]>::to_vec);
    if let Some((r, col, value)) = super::hold_to_inputs_as_given(v, c, &a64, &b64) {
        notes.push(format!(
            "the product of the inputs as given has {value:e} at row {r}, column {col}, past f32's range (largest ≈3.4e38): a float32 C cannot hold it"
        ));
    }
    notes
}
