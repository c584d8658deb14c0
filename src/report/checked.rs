//! The judge's verdict on a product made anywhere — what `rendermm check --json` prints and
//! `rendermm.judge` returns ([`CheckReport`]) — and the one way every edge (`multiply --check`,
//! `rendermm check`, Python) judges a C whose float64 inputs held values past f32's range
//! ([`judge_given`]).

use crate::check::{self, Arith, Hold, Verdict};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use crate::methods::Method;
use serde::Serialize;

/// Judge `c = a · b` as `arith` made it, held to `hold`. Where a float64 input held values past
/// f32's range (`a_given`, `b_given`: its values as stored, row-major), C is held to the product
/// of the inputs as given instead, and `notes` says so (and names an element of that product
/// that a float32 C cannot hold).
#[allow(clippy::too_many_arguments)]
pub fn judge_given(
    arith: Arith,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    a_given: Option<&[f64]>,
    b_given: Option<&[f64]>,
    hold: Hold,
    notes: &mut Vec<String>,
) -> Verdict {
    let mut v = check::judge(arith, a, b, c);
    v.hold_to(hold);
    if a_given.is_none() && b_given.is_none() {
        return v;
    }
    notes.push(format!(
        "{} holds values past f32's range, infinities in the float32 computation; the check's reference is the product of the inputs as given",
        match (a_given.is_some(), b_given.is_some()) {
            (true, true) => "A and B each",
            (true, false) => "A",
            _ => "B",
        }
    ));
    let a64 = a_given.map_or_else(|| widen(a), <[f64]>::to_vec);
    let b64 = b_given.map_or_else(|| widen(b), <[f64]>::to_vec);
    if let Some((r, col, value)) = check::hold_to_inputs_as_given(&mut v, c, &a64, &b64) {
        notes.push(format!(
            "the product of the inputs as given has {value:e} at row {r}, column {col}, past f32's range (largest ≈3.4e38): a float32 C cannot hold it"
        ));
    }
    v
}

fn widen(m: &Matrix) -> Vec<f64> {
    m.data.iter().map(|&x| f64::from(x)).collect()
}

/// The element of C farthest from the exact product (or its first non-finite one), and the
/// exact product's value there.
#[derive(Clone, Debug, Serialize)]
pub struct Worst {
    /// 0-based row and column.
    pub row: usize,
    pub column: usize,
    /// C's value there.
    pub c: f32,
    /// The f64 product of the inputs (as given) there.
    pub exact: f64,
}

/// The verdict on one C = A·B made anywhere: what it was judged as, the verdict (its fields at
/// the top level, as in a `multiply --json` report's `checks`), and the worst element.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The method whose arithmetic C was held to; `None`: f32 arithmetic, no method named.
    pub method: Option<String>,
    /// The number format of that arithmetic.
    pub precision: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    #[serde(flatten)]
    pub verdict: Verdict,
    /// The element farthest from the exact product; `None` for an empty C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<Worst>,
    pub notes: Vec<String>,
}

/// The operands of a check: A, B and C in f32, with the values as given of a float64 A or B that
/// held values past f32's range.
pub struct Operands<'a> {
    pub a: &'a Matrix,
    pub b: &'a Matrix,
    pub c: &'a Matrix,
    pub a_given: Option<&'a [f64]>,
    pub b_given: Option<&'a [f64]>,
}

impl CheckReport {
    /// Judge `ops.c = ops.a · ops.b` as `arith` made it (the arithmetic of `method` at
    /// `precision`, as the caller chose it), held to `hold`. Shapes that do not multiply, or a C
    /// that is not m×n, are refused ([`Error::Invalid`]) in one line naming the shapes.
    pub fn judge(
        method: Option<Method>,
        precision: crate::precision::Precision,
        arith: Arith,
        ops: Operands,
        hold: Hold,
    ) -> Result<CheckReport> {
        let Operands {
            a,
            b,
            c,
            a_given,
            b_given,
        } = ops;
        let (m, k, n) = (a.rows, a.cols, b.cols);
        if b.rows != k {
            return Err(Error::Invalid(format!(
                "A is {m}x{k} and B is {}x{n}: A's {k} columns are not B's {} rows, so A·B is not defined",
                b.rows, b.rows
            )));
        }
        if (c.rows, c.cols) != (m, n) {
            return Err(Error::Invalid(format!(
                "C is {}x{} but A·B is {m}x{n} (A {m}x{k}, B {k}x{n})",
                c.rows, c.cols
            )));
        }
        let mut notes = vec![];
        let verdict = judge_given(arith, a, b, c, a_given, b_given, hold, &mut notes);
        let worst = (!c.data.is_empty()).then(|| {
            let idx = verdict.stats.worst_index;
            let (row, column) = (idx / n, idx % n);
            let at = |given: Option<&[f64]>, m: &Matrix, idx: usize| {
                given.map_or_else(|| f64::from(m.data[idx]), |g| g[idx])
            };
            let exact = (0..k)
                .map(|p| at(a_given, a, row * k + p) * at(b_given, b, p * n + column))
                .sum();
            Worst {
                row,
                column,
                c: c.data[idx],
                exact,
            }
        });
        Ok(CheckReport {
            method: method.map(|m| m.name().to_string()),
            precision: precision.name().to_string(),
            m,
            k,
            n,
            verdict,
            worst,
            notes,
        })
    }
}
