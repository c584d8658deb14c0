//! rendermm's Python binding: an edge like the command line. It turns numpy arrays and keyword
//! arguments into one `plan::Request`, calls `plan::multiply` with the process's one GPU
//! context (the GIL released while the GPU works), and hands C back as a numpy array with the
//! run's report (`Report::of`, what `multiply --json` prints) as JSON for the Python side to
//! wrap. It adds no arithmetic and no planning of its own.

// The library's `Error` is returned as it is and turned into a Python exception once, here at
// the edge; boxing it for clippy's size lint would only add a step.
#![allow(clippy::result_large_err)]

use numpy::ndarray::Array3;
use numpy::{
    IntoPyArray, PyArray2, PyArray3, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use rendermm::check::{self, Hold};
use rendermm::error::Kind;
use rendermm::gpu::{GpuContext, MatrixTexture};
use rendermm::matrix::Matrix;
use rendermm::methods::{Accumulate, Method, Observer, TABLE};
use rendermm::plan::{self, Options, Request};
use rendermm::precision::{Precision, U8Bits};
use rendermm::report::{CheckReport, Operands, Report};
use std::sync::OnceLock;

pyo3::create_exception!(
    _rendermm,
    CheckFailed,
    PyException,
    "The result failed its check against the f64 CPU reference; `verdict` holds the judge's verdict."
);

/// The process's one GPU context: opened on first use, shared by every call and every thread
/// (it is Send + Sync), so pipelines and staging buffers stay warm between calls. A failure to
/// open is kept too, so every call says the same thing.
static CONTEXT: OnceLock<Result<GpuContext, String>> = OnceLock::new();

fn context(py: Python<'_>) -> PyResult<&'static GpuContext> {
    let ctx = py.detach(|| CONTEXT.get_or_init(|| GpuContext::new().map_err(|e| e.to_string())));
    ctx.as_ref().map_err(|e| PyRuntimeError::new_err(e.clone()))
}

/// A library error as the Python exception its kind calls for, with the library's one line.
fn to_py(e: rendermm::Error) -> PyErr {
    let line = e.to_string();
    match e.kind() {
        Kind::Usage => PyValueError::new_err(line),
        Kind::Gpu => PyRuntimeError::new_err(line),
        Kind::File => PyOSError::new_err(line),
        Kind::Bug => PyRuntimeError::new_err(format!("rendermm bug (please report it): {line}")),
    }
}

fn value_error(line: String) -> PyErr {
    PyValueError::new_err(line)
}

/// One operand, as rendermm computes with it. A C-contiguous float32 array is read in place:
/// `m` then points into the array's own memory, and `_read` is the numpy borrow that keeps that
/// memory alive and unwritten by Rust, so an Operand is always kept whole while `m` is used (its
/// `Drop` makes moving `m` out of it a compile error).
struct Operand<'py> {
    /// Row-major f32: float32 as is (read in place where the array is row-major and aligned),
    /// float64 rounded.
    m: Matrix,
    /// Whether the array was float64.
    wide: bool,
    /// A float64 array with a finite value past f32's range (an infinity in `m`, taken only with
    /// `allow_nonfinite`): its values as given, from which the check's reference is computed,
    /// as the command line does for such a file.
    given: Option<Vec<f64>>,
    /// Why a float32 array was copied rather than read in place, as a note for the result
    /// (`None` for one read in place and for float64, which the float64 note covers).
    copied: Option<String>,
    /// The read-only borrow of the array `m` reads in place (`None` when `m` owns a copy).
    /// Declared after `m`, so it is dropped after it.
    _read: Option<numpy::PyReadonlyArray2<'py, f32>>,
}

impl Drop for Operand<'_> {
    /// A copy's memory goes back to [`spare`] for the next call; memory read in place is the
    /// caller's and is left alone. (This `Drop` also keeps `m` from being moved out of an
    /// Operand, which would outlive the borrow in `_read`.)
    fn drop(&mut self) {
        if !self.m.data.is_borrowed() {
            spare::give_back(std::mem::take(&mut self.m.data).into_vec());
        }
    }
}

/// An operand as a row-major f32 matrix: a C-contiguous, aligned float32 array read in place
/// (no copy: the upload reads the array's memory); any other memory order or stride copied into
/// rows, and float64 rounded to f32 (numpy makes the row-major array, then it is copied into
/// memory kept between calls).
fn operand<'py>(
    name: &str,
    x: &Bound<'py, PyAny>,
    allow_nonfinite: bool,
) -> PyResult<Operand<'py>> {
    let py = x.py();
    let np = py.import("numpy")?;
    let Ok(arr) = x.cast::<numpy::PyUntypedArray>() else {
        return Err(value_error(format!(
            "{name} must be a 2-D numpy array of float32 or float64, not {}",
            x.get_type().name()?
        )));
    };
    if arr.ndim() != 2 {
        return Err(value_error(format!(
            "{name} must be 2-D (rows, columns), not {}-D with shape {:?}",
            arr.ndim(),
            arr.shape()
        )));
    }
    let dtype = arr.dtype();
    let wide = dtype.is_equiv_to(&numpy::dtype::<f64>(py));
    if !wide && !dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
        return Err(value_error(format!(
            "{name} has dtype {}; use float32 (or float64, computed in float32)",
            dtype.str()?
        )));
    }
    let (rows, cols) = (arr.shape()[0], arr.shape()[1]);
    if !wide {
        let arr32 = x.cast::<PyArray2<f32>>()?;
        let copied = if !arr.is_c_contiguous() {
            let why = if arr.is_fortran_contiguous() {
                "it is Fortran-ordered"
            } else {
                "it is a strided view"
            };
            Some(("into row-major order", why))
        } else if dtype.is_native_byteorder() == Some(false) {
            Some(("into native byte order", "its bytes are swapped"))
        } else if !arr32.data().cast_const().is_aligned() {
            Some((
                "into aligned memory",
                "its memory is not aligned for float32",
            ))
        } else {
            None
        };
        if copied.is_none() {
            let read = arr32
                .try_readonly()
                .map_err(|e| PyRuntimeError::new_err(format!("{name} cannot be read: {e}")))?;
            let values = read.as_slice().map_err(|e| {
                PyRuntimeError::new_err(format!("rendermm bug (please report it): {name}: {e}"))
            })?;
            // SAFETY: `values` is the array's own memory: `rows * cols` initialised, aligned
            // (checked above), native-order f32 in one allocation. It stays valid and unmodified
            // for as long as `m` lives because `m` lives inside the Operand next to `read`, and
            // the Operand is kept whole (its `Drop` forbids moving `m` out) until after the call
            // that reads `m` returns, `py.detach` included:
            // - valid: `read` holds a strong reference to the array, and the array holds its
            //   base, so the buffer is not freed; numpy refuses to resize an array in place while
            //   other references to it exist;
            // - unmodified: `read` is a numpy shared borrow, registered in numpy's borrow
            //   checker, so no Rust extension can take a mutable borrow of this memory (or of any
            //   view overlapping it) until it is released. Python code in another thread could
            //   still write the array while the GIL is released — as it could during any numpy
            //   operation that releases the GIL — and the Python docs ask callers not to.
            let m = unsafe { Matrix::borrowed(rows, cols, values.as_ptr(), values.len(), None) }
                .map_err(to_py)?;
            return Ok(Operand {
                m,
                wide,
                given: None,
                copied: None,
                _read: Some(read),
            });
        }
        let rows32 = np.call_method1("ascontiguousarray", (x, "float32"))?;
        let rows32 = rows32.cast::<PyArray2<f32>>()?.readonly();
        let m = Matrix::new(rows, cols, spare::copy_in(rows32.as_slice()?)).map_err(to_py)?;
        return Ok(Operand {
            m,
            wide,
            given: None,
            copied: copied.map(|(how, why)| format!("{name} was copied {how} ({why})")),
            _read: None,
        });
    }
    let mut given = None;
    let rows64 = np.call_method1("ascontiguousarray", (x, "float64"))?;
    let rows64 = rows64.cast::<PyArray2<f64>>()?.readonly();
    let values = rows64.as_slice()?;
    let past = values
        .iter()
        .position(|v| v.is_finite() && v.abs() > f64::from(f32::MAX));
    if let Some(idx) = past {
        if !allow_nonfinite {
            return Err(value_error(format!(
                "{name}: row {}, column {}: {:e} is past f32's range (largest ≈3.4e38), which rendermm computes in (pass allow_nonfinite=True to take it as an infinity)",
                idx / cols.max(1),
                idx % cols.max(1),
                values[idx]
            )));
        }
        given = Some(values.to_vec());
    }
    let rows32 = np.call_method1("ascontiguousarray", (x, "float32"))?;
    let rows32 = rows32.cast::<PyArray2<f32>>()?.readonly();
    let m = Matrix::new(rows, cols, spare::copy_in(rows32.as_slice()?)).map_err(to_py)?;
    Ok(Operand {
        m,
        wide,
        given,
        copied: None,
        _read: None,
    })
}

/// Memory for the operands' row-major copies, kept from one call to the next. A fresh 64 MiB
/// allocation is faulted in page by page on its first write (16 384 faults at 4 KiB), which on
/// the H200 machine cost more than the copy itself; a buffer of the last call's size is written
/// at memory speed. At most [`spare::KEEP`] buffers are kept, the largest given back first.
mod spare {
    use std::sync::Mutex;

    /// Buffers kept between calls: A and B of the last call.
    pub const KEEP: usize = 2;

    static SPARE: Mutex<Vec<Vec<f32>>> = Mutex::new(Vec::new());

    /// `values` copied into a kept buffer that holds them, else into a new one.
    pub fn copy_in(values: &[f32]) -> Vec<f32> {
        let kept = {
            let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
            let fit = spare
                .iter()
                .enumerate()
                .filter(|(_, v)| v.capacity() >= values.len())
                .min_by_key(|(_, v)| v.capacity())
                .map(|(i, _)| i);
            fit.map(|i| spare.swap_remove(i))
        };
        let mut v = kept.unwrap_or_else(|| Vec::with_capacity(values.len()));
        // A kept buffer is resized without a pass over what it already holds; the copy then
        // runs on several cores where the operand is large (one core copies about 5 GB/s on
        // the H200's host, a 64 MiB operand in 13 ms).
        v.resize(values.len(), 0.0);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        if values.len() >= 1 << 22 && threads > 1 {
            let per = values.len().div_ceil(threads);
            std::thread::scope(|s| {
                for (to, from) in v.chunks_mut(per).zip(values.chunks(per)) {
                    s.spawn(move || to.copy_from_slice(from));
                }
            });
        } else {
            v.copy_from_slice(values);
        }
        v
    }

    /// Keep `v` for a later call (the largest [`KEEP`] are kept).
    pub fn give_back(v: Vec<f32>) {
        if v.capacity() < (1 << 18) {
            return; // under 1 MiB: a fresh allocation costs nothing worth keeping memory for
        }
        let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
        spare.push(v);
        spare.sort_by_key(|v| std::cmp::Reverse(v.capacity()));
        spare.truncate(KEEP);
    }
}

/// The knobs of one multiply, read from keyword arguments and checked as the command line
/// checks its flags.
#[allow(clippy::too_many_arguments)]
fn request_options(
    method: &str,
    precision: &str,
    block: Option<i64>,
    accumulate: Option<&str>,
    scale_by_depth: bool,
    u8_product_bits: Option<i64>,
    u8_sum_bits: Option<i64>,
    variant: Option<&str>,
    mem_budget: Option<&str>,
    no_tile: bool,
    allow_nonfinite: bool,
) -> PyResult<(Method, Options)> {
    let method = Method::parse(method).map_err(to_py)?;
    let asked = plan::Asked {
        method: Some(method),
        precision: Precision::parse(precision).map_err(to_py)?,
        block: whole("block", block)?,
        block_auto: false,
        accumulate: accumulate
            .map(Accumulate::parse)
            .transpose()
            .map_err(to_py)?,
        scale_by_depth,
        u8_product_bits: whole("u8_product_bits", u8_product_bits)?,
        u8_sum_bits: whole("u8_sum_bits", u8_sum_bits)?,
        variant: variant.map(str::to_string),
        channels: 1,
        mem_budget: mem_budget.map(str::to_string),
    };
    let base = Options {
        allow_nonfinite,
        no_tile,
        ..Options::default()
    };
    let options = plan::options::validate(&asked, plan::Spelling::Python, base).map_err(to_py)?;
    Ok((method, options))
}

/// Python's integers have no width: a negative or huge one is a bad value, said as such.
fn whole(what: &str, v: Option<i64>) -> PyResult<Option<u32>> {
    v.map(|x| {
        u32::try_from(x).map_err(|_| {
            value_error(format!(
                "{what}={x}: use a whole number from 0 to {}",
                u32::MAX
            ))
        })
    })
    .transpose()
}

/// C as a numpy array: float64 when an input was (as numpy would promote), else float32.
fn to_numpy<'py>(py: Python<'py>, c: Matrix, wide: bool) -> PyResult<Bound<'py, PyAny>> {
    let (rows, cols) = (c.rows, c.cols);
    let arr = c.data.into_vec().into_pyarray(py).reshape([rows, cols])?;
    if wide {
        Ok(arr.call_method1("astype", ("float64",))?)
    } else {
        Ok(arr.into_any())
    }
}

/// The product a @ b by one of rendermm's methods, and the run's report as JSON (what
/// `rendermm multiply --json` prints, with Hall's b). With `check` (True or "exact": held to the
/// exact product and the pipeline; "model": the pipeline alone), the judge's verdict against the
/// f64 CPU reference is in the report; a failed check raises CheckFailed carrying it and returns
/// no array.
#[pyfunction]
#[pyo3(signature = (a, b, method="lm", precision="f32", block=None, accumulate=None,
    scale_by_depth=false, u8_product_bits=None, u8_sum_bits=None, variant=None, mem_budget=None,
    no_tile=false, allow_nonfinite=false, check=None))]
#[allow(clippy::too_many_arguments)]
fn multiply<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    method: &str,
    precision: &str,
    block: Option<i64>,
    accumulate: Option<&str>,
    scale_by_depth: bool,
    u8_product_bits: Option<i64>,
    u8_sum_bits: Option<i64>,
    variant: Option<&str>,
    mem_budget: Option<&str>,
    no_tile: bool,
    allow_nonfinite: bool,
    check: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, String)> {
    let hold = hold_of(check)?;
    let (method, options) = request_options(
        method,
        precision,
        block,
        accumulate,
        scale_by_depth,
        u8_product_bits,
        u8_sum_bits,
        variant,
        mem_budget,
        no_tile,
        allow_nonfinite,
    )?;
    let a = operand("a", a, allow_nonfinite)?;
    let b = operand("b", b, allow_nonfinite)?;
    let wide = a.wide || b.wide;
    let ctx = if method.is_gpu() {
        Some(context(py)?)
    } else {
        None
    };
    let outcome = py.detach(|| -> rendermm::error::Result<_> {
        let outcome = plan::multiply(ctx, Request::new(method, &a.m, &b.m).options(options))?;
        let (verdicts, notes) = match hold {
            Some(hold) => {
                let inputs =
                    check::Inputs::new(&a.m, &b.m).given(a.given.as_deref(), b.given.as_deref());
                let checked = outcome.check(check::CheckPolicy::full(hold), &[inputs]);
                (checked.verdicts, checked.notes)
            }
            None => (vec![], vec![]),
        };
        let mut report = Report::of(ctx, &outcome, verdicts);
        report.notes.extend(notes);
        Ok((outcome, report))
    });
    let (outcome, mut report) = outcome.map_err(to_py)?;
    report
        .notes
        .extend([&a.copied, &b.copied].into_iter().flatten().cloned());
    if wide {
        report.notes.push(
            "the float64 inputs were rounded to float32; C is computed and held in float32, returned as float64"
                .into(),
        );
    }
    let json = report_json(&report)?;
    let failed = report.check_passed == Some(false);
    if failed {
        // A result the judge refused is never handed back as if it were right.
        let err = CheckFailed::new_err(format!(
            "check failed: {}; rel_err {:e}, held to: {}",
            report
                .worst()
                .map_or_else(|| "?".to_string(), |v| v.headline()),
            report.rel_err.unwrap_or(f64::NAN),
            report.tolerance.as_deref().unwrap_or("?"),
        ));
        let json_mod = py.import("json")?;
        let report = json_mod.call_method1("loads", (&json,))?;
        err.value(py).setattr("report", &report)?;
        err.value(py)
            .setattr("verdict", report.get_item("checks")?.get_item(0)?)?;
        return Err(err);
    }
    let c = to_numpy(py, outcome.c, wide)?;
    Ok((c, json))
}

/// What `check` holds C to: True or "exact" (the exact product and the pipeline), "model" (the
/// pipeline alone); False or None: no check. Anything else is a ValueError in one line.
fn hold_of(check: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Hold>> {
    let Some(check) = check else {
        return Ok(None);
    };
    if check.is_none() {
        return Ok(None);
    }
    if let Ok(flag) = check.cast::<pyo3::types::PyBool>() {
        return Ok(flag.is_true().then_some(Hold::Exact));
    }
    if let Ok(name) = check.extract::<String>() {
        return name.parse::<Hold>().map(Some).map_err(value_error);
    }
    Err(value_error(format!(
        "check={}: give True, False, 'exact' (close to the exact product) or 'model' (the pipeline's model only)",
        check.repr()?
    )))
}

/// The judge's verdict on C = a @ b made anywhere, as JSON (what `rendermm check --json`
/// prints): held to the arithmetic of `method` at `precision` (f32 without a method) and to
/// `check` ("exact", the default, or "model").
#[pyfunction]
#[pyo3(signature = (a, b, c, method=None, precision="f32", block=None, scale_by_depth=false,
    u8_product_bits=None, u8_sum_bits=None, check=None, allow_nonfinite=false))]
#[allow(clippy::too_many_arguments)]
fn judge<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    c: &Bound<'py, PyAny>,
    method: Option<&str>,
    precision: &str,
    block: Option<i64>,
    scale_by_depth: bool,
    u8_product_bits: Option<i64>,
    u8_sum_bits: Option<i64>,
    check: Option<&Bound<'py, PyAny>>,
    allow_nonfinite: bool,
) -> PyResult<String> {
    let hold = match check {
        None => Hold::Exact,
        Some(c) => hold_of(Some(c))?.ok_or_else(|| {
            value_error(format!(
                "check={}: judge always checks; give 'exact' (close to the exact product) or 'model' (the pipeline's model only)",
                c.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?,
    };
    let (method, precision, arith) = match method {
        Some(name) => {
            let (method, options) = request_options(
                name,
                precision,
                block,
                None,
                scale_by_depth,
                u8_product_bits,
                u8_sum_bits,
                None,
                None,
                false,
                allow_nonfinite,
            )?;
            let arith = plan::arith(method, options.precision, &options);
            (Some(method), options.precision, arith)
        }
        None => {
            // No method: f32 arithmetic, and nothing of a render pipeline's.
            let asked = plan::Asked {
                precision: Precision::parse(precision).map_err(to_py)?,
                block: whole("block", block)?,
                scale_by_depth,
                u8_product_bits: whole("u8_product_bits", u8_product_bits)?,
                u8_sum_bits: whole("u8_sum_bits", u8_sum_bits)?,
                ..plan::Asked::default()
            };
            let options =
                plan::options::validate(&asked, plan::Spelling::Python, Options::default())
                    .map_err(to_py)?;
            (None, options.precision, rendermm::check::Arith::F32)
        }
    };
    let a = operand("a", a, allow_nonfinite)?;
    let b = operand("b", b, allow_nonfinite)?;
    // A C past f32's range is an infinity where rendermm's C would be, and is judged as one.
    let c = operand("c", c, true)?;
    let report = py
        .detach(|| {
            CheckReport::judge(
                method,
                precision,
                arith,
                Operands {
                    a: &a.m,
                    b: &b.m,
                    c: &c.m,
                    a_given: a.given.as_deref(),
                    b_given: b.given.as_deref(),
                },
                hold,
            )
        })
        .map_err(to_py)?;
    serde_json::to_string(&report).map_err(|e| {
        PyRuntimeError::new_err(format!(
            "rendermm bug (please report it): the verdict did not serialize: {e}"
        ))
    })
}

/// The report as JSON: the serialization `multiply --json` prints ([`Report`]).
fn report_json(report: &Report) -> PyResult<String> {
    serde_json::to_string(report).map_err(|e| {
        PyRuntimeError::new_err(format!(
            "rendermm bug (please report it): the report did not serialize: {e}"
        ))
    })
}

/// Reads the running sum back after every pass into one (passes, m, n) array.
struct Slices {
    m: usize,
    n: usize,
    data: Vec<f32>,
    passes: usize,
}

impl Observer for Slices {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        _pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> rendermm::error::Result<()> {
        self.passes = passes;
        let packed = Precision::ALL
            .into_iter()
            .find(|p| p.format(4) == acc.format);
        let c = match packed {
            // Hall's packed layout: RGBA texels holding 2x2 blocks of C.
            Some(_) => rendermm::methods::hall_common::read_unpacked(ctx, acc, self.m, self.n)?,
            None => {
                let precision = Precision::ALL
                    .into_iter()
                    .find(|p| p.format(1) == acc.format)
                    .ok_or_else(|| {
                        rendermm::Error::Internal(format!(
                            "slices: the running sum is in a {:?} texture, which no precision names",
                            acc.format
                        ))
                    })?;
                let mut cs = acc.read_channels(ctx, precision, 1)?;
                cs.remove(0)
            }
        };
        if (c.rows, c.cols) != (self.m, self.n) {
            return Err(rendermm::Error::Internal(format!(
                "slices: the running sum is {}x{}, C is {}x{}",
                c.rows, c.cols, self.m, self.n
            )));
        }
        self.data.extend_from_slice(&c.data);
        Ok(())
    }
}

/// The running sum after every pass of a render-pass method as a (passes, m, n) array; the last
/// slice is C; and the run's report as JSON.
#[pyfunction]
#[pyo3(signature = (a, b, method="lm", precision="f32", block=None, accumulate=None))]
fn slices<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    method: &str,
    precision: &str,
    block: Option<i64>,
    accumulate: Option<&str>,
) -> PyResult<(Bound<'py, PyArray3<f32>>, String)> {
    let (method, options) = request_options(
        method, precision, block, accumulate, false, None, None, None, None, false, false,
    )?;
    if !matches!(
        method,
        Method::Lm | Method::HallBlocked | Method::HallPacked
    ) {
        return Err(value_error(format!(
            "slices: method {method} has no running sum to watch; use lm, hall-blocked or hall-packed"
        )));
    }
    if options.precision == Precision::U8 {
        return Err(value_error(
            "slices: the 8-bit running sum is rescaled only at the end; use precision='f32' or 'f16'"
                .into(),
        ));
    }
    // Kept whole (not just `.m`): an operand read in place holds the borrow of its array.
    let a = operand("a", a, false)?;
    let b = operand("b", b, false)?;
    let ctx = context(py)?;
    let (m, n) = (a.m.rows, b.m.cols);
    let mut obs = Slices {
        m,
        n,
        data: Vec::new(),
        passes: 0,
    };
    let outcome = py.detach(|| {
        plan::multiply(
            Some(ctx),
            Request::new(method, &a.m, &b.m)
                .options(options)
                .observed(&mut obs),
        )
    });
    let outcome = outcome.map_err(to_py)?;
    let seen = obs.data.len() / (m * n).max(1);
    if seen != outcome.passes || obs.data.len() != seen * m * n {
        return Err(PyRuntimeError::new_err(format!(
            "rendermm bug (please report it): slices saw {seen} passes, the run reports {}",
            outcome.passes
        )));
    }
    let report = Report::of(Some(ctx), &outcome, vec![]);
    let json = report_json(&report)?;
    let arr = Array3::from_shape_vec((seen, m, n), obs.data)
        .map_err(|e| PyRuntimeError::new_err(format!("rendermm bug: {e}")))?;
    Ok((arr.into_pyarray(py), json))
}

/// The table of methods, one dict per row: name, era, source, summary, and what it takes.
#[pyfunction]
fn methods(py: Python<'_>) -> PyResult<Vec<Bound<'_, pyo3::types::PyDict>>> {
    TABLE
        .iter()
        .map(|row| {
            let d = pyo3::types::PyDict::new(py);
            d.set_item("name", row.name)?;
            d.set_item("era", row.era.name())?;
            d.set_item("source", row.source)?;
            d.set_item("summary", row.summary)?;
            d.set_item("gpu", row.method.is_gpu())?;
            d.set_item(
                "precisions",
                [Precision::F32, Precision::F16, Precision::U8]
                    .into_iter()
                    .filter(|&p| row.method.takes(p))
                    .map(Precision::name)
                    .collect::<Vec<_>>(),
            )?;
            // The widths of L-M §4 (u8_product_bits, u8_sum_bits): the wgpu render passes; the
            // GL-era methods keep 2001's 8-bit framebuffer.
            d.set_item(
                "u8_widths",
                row.takes.precision && !row.method.is_host_api(),
            )?;
            d.set_item("block", row.takes.block)?;
            d.set_item("accumulate", row.takes.accumulate)?;
            Ok(d)
        })
        .collect()
}

/// The adapter, its features, limits and the measured shader loop cap as JSON, as
/// `rendermm info --json` prints them.
#[pyfunction]
fn info(py: Python<'_>) -> PyResult<String> {
    let ctx = context(py)?;
    py.detach(|| -> rendermm::error::Result<String> {
        let report = ctx.info_report()?;
        serde_json::to_string(&report).map_err(|e| rendermm::Error::Internal(e.to_string()))
    })
    .map_err(to_py)
}

#[pymodule]
fn _rendermm(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(multiply, m)?)?;
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(slices, m)?)?;
    m.add_function(wrap_pyfunction!(methods, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add("CheckFailed", m.py().get_type::<CheckFailed>())?;
    m.add(
        "PRECISIONS",
        Precision::ALL.iter().map(|p| p.name()).collect::<Vec<_>>(),
    )?;
    m.add("U8_PRODUCT_BITS", U8Bits::PRODUCT_BITS.to_vec())?;
    m.add("U8_SUM_BITS", U8Bits::SUM_BITS.to_vec())?;
    m.add(
        "ACCUMULATE",
        Accumulate::ALL.iter().map(|a| a.name()).collect::<Vec<_>>(),
    )?;
    Ok(())
}
