//! Every multiply method behind one entry point, [`multiply`]. Each GPU method is one Rust file
//! beside one WGSL file in `shaders/`, named after its paper.

pub mod larsen_mcallister;

use crate::check::{self, ErrorStats};
use crate::cpu;
use crate::error::{Error, Result};
use crate::gpu::{GpuContext, MatrixTexture};
use crate::matrix::{self, Matrix};
use serde::Serialize;
use std::time::Instant;

/// The methods rendermm knows, in historical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Larsen–McAllister 2001: k textured quads summed by additive blending.
    Lm,
    /// The seed's naive triple loop on the CPU.
    CpuNaive,
    /// A fast multithreaded CPU GEMM (`gemm` crate).
    CpuFast,
}

impl Method {
    /// Every method, in the order the tour shows them.
    pub const ALL: &'static [Method] = &[Method::Lm, Method::CpuNaive, Method::CpuFast];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Method::Lm => "lm",
            Method::CpuNaive => "cpu-naive",
            Method::CpuFast => "cpu-fast",
        }
    }

    /// One line on what the method is and where it comes from.
    pub fn description(self) -> &'static str {
        match self {
            Method::Lm => "Larsen–McAllister 2001: k quads, modulate, additive blend (§3)",
            Method::CpuNaive => "CPU naive triple loop (the seeds' baseline)",
            Method::CpuFast => "CPU fast GEMM (gemm crate, multithreaded SIMD)",
        }
    }

    /// Whether the method runs on the GPU.
    pub fn is_gpu(self) -> bool {
        !matches!(self, Method::CpuNaive | Method::CpuFast)
    }

    /// The relative Frobenius error the method is held to in f32 against the f64 reference.
    pub fn tolerance(self) -> f64 {
        1e-5
    }

    /// Look a method up by its command-line name.
    pub fn parse(name: &str) -> Result<Method> {
        Method::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
                Error::Invalid(format!("unknown method '{name}'; known: {}", names.join(", ")))
            })
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Sees the accumulation texture after passes (the demos and frame writers use it).
pub trait Observer {
    /// Called after pass `pass` (1-based) of `passes`, with the texture holding the running sum.
    fn after_pass(&mut self, ctx: &GpuContext, pass: usize, passes: usize, acc: &MatrixTexture) -> Result<()>;
}

/// Options shared by the methods; each method reads the ones that concern it.
#[derive(Default)]
pub struct Options<'a> {
    /// Called after every pass, if set. Methods that batch passes split them to call it.
    pub observer: Option<&'a mut dyn Observer>,
    /// Accept NaN and infinity in the inputs.
    pub allow_nonfinite: bool,
}

/// Wall-clock milliseconds of each phase, split as in the L-M paper's figures 4-5.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Creating the textures and loading the matrices into them.
    pub upload_ms: f64,
    /// The passes themselves.
    pub compute_ms: f64,
    /// GPU-side copies between passes.
    pub copy_ms: f64,
    /// Copying the result back to the host.
    pub readback_ms: f64,
}

impl Timings {
    pub fn total_ms(&self) -> f64 {
        self.upload_ms + self.compute_ms + self.copy_ms + self.readback_ms
    }
}

/// What a method returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub c: Matrix,
    /// Passes (render passes or slices) the method ran.
    pub passes: usize,
    pub timings: Timings,
    /// Remarks for the report (how the passes were laid out, fallbacks taken).
    pub notes: Vec<String>,
}

/// Validate the inputs and multiply `a · b` with `method`. GPU methods need `ctx`.
pub fn multiply(ctx: Option<&GpuContext>, method: Method, a: &Matrix, b: &Matrix, opts: &mut Options) -> Result<RunOutput> {
    matrix::check_product(a, b)?;
    if !opts.allow_nonfinite {
        a.check_finite("A")?;
        b.check_finite("B")?;
    }
    let gpu = || {
        ctx.ok_or_else(|| Error::Invalid(format!("method {method} needs a GPU context")))
    };
    match method {
        Method::Lm => larsen_mcallister::multiply(gpu()?, a, b, opts),
        Method::CpuNaive => Ok(cpu_run(a, b, cpu::naive)),
        Method::CpuFast => Ok(cpu_run(a, b, cpu::fast)),
    }
}

fn cpu_run(a: &Matrix, b: &Matrix, f: fn(&Matrix, &Matrix) -> Matrix) -> RunOutput {
    let t = Instant::now();
    let c = f(a, b);
    RunOutput {
        c,
        passes: 1,
        timings: Timings {
            compute_ms: t.elapsed().as_secs_f64() * 1e3,
            ..Default::default()
        },
        notes: vec![],
    }
}

/// The report `multiply --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub method: String,
    pub precision: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub adapter: String,
    pub backend: String,
    pub passes: usize,
    pub upload_ms: f64,
    pub compute_ms: f64,
    pub copy_ms: f64,
    pub readback_ms: f64,
    pub total_ms: f64,
    /// 2·m·k·n / compute time.
    pub gflops: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
    pub notes: Vec<String>,
}

impl Report {
    /// Build the report of one run, with the check against the f64 reference if given.
    pub fn new(ctx: Option<&GpuContext>, method: Method, a: &Matrix, b: &Matrix, out: &RunOutput, check: Option<&ErrorStats>) -> Self {
        let (m, k, n) = (a.rows, a.cols, b.cols);
        let t = &out.timings;
        let (adapter, backend) = match (method.is_gpu(), ctx) {
            (true, Some(c)) => (c.info.name.clone(), format!("{:?}", c.info.backend)),
            _ => ("CPU".to_string(), "cpu".to_string()),
        };
        Report {
            method: method.name().into(),
            precision: "f32".into(),
            m,
            k,
            n,
            adapter,
            backend,
            passes: out.passes,
            upload_ms: t.upload_ms,
            compute_ms: t.compute_ms,
            copy_ms: t.copy_ms,
            readback_ms: t.readback_ms,
            total_ms: t.total_ms(),
            gflops: 2.0 * (m * k * n) as f64 / (t.compute_ms.max(1e-9) * 1e6),
            max_abs_err: check.map(|s| s.max_abs_err),
            rel_err: check.map(|s| s.rel_err),
            tolerance: check.map(|_| method.tolerance()),
            check_passed: check.map(|s| s.within(method.tolerance())),
            notes: out.notes.clone(),
        }
    }
}

/// Multiply and check against the f64 reference in one go (the tour and the tests use it).
pub fn multiply_checked(ctx: Option<&GpuContext>, method: Method, a: &Matrix, b: &Matrix, opts: &mut Options) -> Result<(RunOutput, ErrorStats)> {
    let out = multiply(ctx, method, a, b, opts)?;
    let stats = check::compare(&out.c, &cpu::reference_f64(a, b));
    Ok((out, stats))
}
