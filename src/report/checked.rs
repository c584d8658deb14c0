//! The judge's verdict on a product made anywhere: what `rendermm check --json` prints and
//! `rendermm.judge` returns ([`CheckReport`]), judged under the one check policy
//! ([`check::check`]).

use crate::check::{self, Arith, CheckPolicy, Hold, Inputs, Verdict};
use crate::error::{Error, Result};
use crate::matrix::Matrix;
use crate::methods::Method;
use serde::Serialize;

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
        let checked = check::check(
            CheckPolicy::full(hold),
            arith,
            &[(Inputs::new(a, b).given(a_given, b_given), c)],
        );
        let notes = checked.notes;
        let verdict = checked
            .verdicts
            .into_iter()
            .next()
            .ok_or_else(|| Error::Internal("the check judged no C".into()))?;
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
