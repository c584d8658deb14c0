//! The report of one multiply ([`Report`], what `multiply --json` prints): what ran, its
//! timings, its verdict and the model facts of the kernel that ran.
//!
//! It sits beside the methods' consumers (bench builds its rows from it); the figures of the
//! docs live in [`crate::figures`], the drawing they share in [`crate::draw`].

// The verdict on a C made anywhere (`rendermm check`, Python's judge): the native front ends'.
#[cfg(feature = "native")]
mod checked;
#[cfg(feature = "native")]
#[cfg_attr(not(feature = "internals"), allow(unused_imports))]
pub use checked::{CheckReport, Operands, Worst};

// The judge and its verdict, re-exported: the API shows them here, beside the report.
pub use crate::check::{Verdict, judge};
use crate::check::{Arith, Hold};
use crate::gpu::GpuContext;
use crate::plan::Outcome;
use crate::precision::Precision;
use serde::Serialize;

/// The report `multiply --json` prints.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub method: String,
    /// The kernel that ran when the method handed the product to another (`cannon` →
    /// `cannon-tiled`, `dns` → `dns-tiled`); the model fields are that kernel's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ran: Option<String>,
    /// The variant or block shape the run ran, for methods that have several (cs-fast's and
    /// coop's variants, frag-mrt's shape); the model fields are that variant's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// The mode asked (and kept) of the render-pass methods; `inputs` and `sums` say what the
    /// kernel computed in.
    pub precision: String,
    /// The number format A and B were read in (f16 for coop and frag-mrt-f16).
    pub inputs: String,
    /// The number format the sums were kept in.
    pub sums: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Products computed at once (4 with `--channels 4`).
    pub channels: usize,
    /// Hall–Carr–Hart's block size b that ran (products summed per fragment per pass), for the
    /// methods that have one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<u32>,
    /// u8: the widths of the 8-bit pipeline that ran (L-M §4): the value a fragment hands on,
    /// and the running sum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_product_bits: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u8_sum_bits: Option<u32>,
    /// u8: whether the polygon colour was 1/k so the blended sum could not saturate (C rescaled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_by_depth: Option<bool>,
    pub adapter: String,
    pub backend: String,
    pub passes: usize,
    /// Pipeline creation, where the method times it apart from the upload.
    pub setup_ms: f64,
    pub upload_ms: f64,
    pub compute_ms: f64,
    pub copy_ms: f64,
    pub readback_ms: f64,
    /// The timed phases summed (setup, upload, compute, copies, readback): the breakdown of
    /// `wall_ms`, not host to host.
    pub total_ms: f64,
    /// Host to host: a stopwatch around the library's call, from the request to C in the
    /// caller's hands ([`crate::gpu::run::Timings::wall_ms`]); what a comparison with a
    /// peer's wall time uses.
    pub wall_ms: f64,
    /// `wall_ms` less the phases: the call's time outside them.
    pub outside_ms: f64,
    /// Bytes the upload and the readback moved.
    pub upload_bytes: u64,
    pub readback_bytes: u64,
    /// GPU time of the compute phase from timestamp queries, where the adapter has them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ms: Option<f64>,
    /// The clock behind `gflops`: `gpu-timestamp` (device_ms), `cpu-adapter-timestamp` (the
    /// same on a CPU adapter, whose span also counts the host's submission) or `wall-clock`
    /// (compute_ms).
    pub timing: crate::gpu::timer::Clock,
    /// 2·m·k·n·channels / compute time (device time where the adapter has timestamps).
    pub gflops: f64,
    /// u8: the L-M paper's byte operations per second, (2·m·k·n − m·n)·channels over the total
    /// time (the paper's timings include conversion, upload and readback), in GBops.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gbops: Option<f64>,
    /// Hall–Carr–Hart §5's model of this run, for methods that have one: bytes moved inside the
    /// GPU (table 1, scaled to the run's channels and bytes per channel) and fragment-shader
    /// instructions (table 2), with the rates they imply over `compute_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_bytes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_instructions: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_ginst_per_s: Option<f64>,
    /// The compute era's model of this run ([`crate::model::compute`](mod@crate::model::compute)): bytes of global-memory
    /// traffic, the computation-to-memory ratio (5kk73) / arithmetic intensity (HIP blog), and the
    /// global bandwidth the run achieved if the model holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_global_bytes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_flop_per_byte: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_global_gbps: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rel_err: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check_passed: Option<bool>,
    /// The worst channel's verdict in one line: what it was held to and how much of that it
    /// used ([`Verdict::held`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// u8: how far the 8-bit pipeline's result is from the exact product, and why
    /// ([`Verdict::exact`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saturated_share: Option<f64>,
    /// Whether every channel's C is close to the exact product ([`Verdict::close`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub close: Option<bool>,
    /// How close the worst channel's C is to the exact product, in words
    /// ([`Verdict::closeness`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closeness: Option<String>,
    /// Whether every channel's C is what its pipeline computes ([`Verdict::model_passed`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_passed: Option<bool>,
    /// What `check_passed` holds C to: `exact` (`--check`) or `model` (`--check model`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_to: Option<Hold>,
    /// The full verdict per channel (one entry unless `--channels 4`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<Verdict>,
    pub notes: Vec<String>,
    /// How the product was tiled, if it was ([`crate::plan::tiled`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tiling: Option<crate::plan::tiled::Tiling>,
}

impl Report {
    /// The report of one run, from its outcome alone, with the judge's verdicts if the run was
    /// checked (one per channel; the worst channel's errors go on top).
    pub fn of(ctx: Option<&GpuContext>, out: &Outcome, checks: Vec<Verdict>) -> Self {
        let (method, kernel, passes) = (out.method, &out.kernel, out.passes);
        let (m, k, n) = out.shape;
        let channels = 1 + out.more_channels.len();
        let precision = kernel.sums;
        let t = &out.timings;
        let gl = out.notes.iter().find_map(|n| n.strip_prefix("ran on "));
        let (adapter, backend) = match (method.is_gpu(), ctx) {
            (true, _) if method.is_host_api() => (
                gl.unwrap_or("an OpenGL context").to_string(),
                "OpenGL (EGL)".to_string(),
            ),
            (true, Some(c)) => (c.info.name.clone(), format!("{:?}", c.info.backend)),
            _ => ("CPU".to_string(), "cpu".to_string()),
        };
        let flops = 2.0 * (m * k * n * channels) as f64;
        let byte_ops = ((2 * m * k * n - m * n) * channels) as f64;
        let worst = worst(&checks);
        let checked = !checks.is_empty();
        // The model of the kernel that ran, as the run recorded it: the method it handed the
        // product to (cannon → cannon-tiled, dns → dns-tiled) and its variant or shape.
        let ran = (kernel.method != method).then_some(kernel.method);
        let model = ModelFacts::of(ctx, out);
        let per_s = |x: u128| x as f64 / (t.compute_time().0.max(1e-9) * 1e6);
        let u8 = match out.arith {
            Arith::U8 {
                scale_by_depth,
                bits,
                ..
            } => Some((bits, scale_by_depth)),
            _ => None,
        };
        Report {
            method: method.name().into(),
            ran: ran.map(|r| r.name().to_string()),
            variant: kernel.variant.map(|v| v.to_string()),
            precision: precision.name().into(),
            inputs: kernel.inputs.name().into(),
            sums: kernel.sums.name().into(),
            m,
            k,
            n,
            channels,
            block: out.block,
            u8_product_bits: u8.map(|(bits, _)| bits.product),
            u8_sum_bits: u8.map(|(bits, _)| bits.sum),
            scale_by_depth: u8.map(|(_, scale)| scale),
            adapter,
            backend,
            passes,
            setup_ms: t.setup_ms,
            upload_ms: t.upload_ms,
            compute_ms: t.compute_ms,
            copy_ms: t.copy_ms,
            readback_ms: t.readback_ms,
            total_ms: t.total_ms(),
            wall_ms: t.wall_ms,
            outside_ms: t.outside_ms(),
            upload_bytes: t.upload_bytes,
            readback_bytes: t.readback_bytes,
            device_ms: t.device_ms,
            timing: t.compute_time().1.on(ctx),
            gflops: flops / (t.compute_time().0.max(1e-9) * 1e6),
            gbops: (precision == Precision::U8)
                .then(|| byte_ops / (t.wall_ms.max(t.total_ms()).max(1e-9) * 1e6)),
            model_bytes: model.bytes,
            model_gbps: model.bytes.map(per_s),
            model_instructions: model.instructions,
            model_ginst_per_s: model.instructions.map(per_s),
            model_global_bytes: model.global_bytes,
            model_flop_per_byte: model.flop_per_byte,
            model_global_gbps: model.global_bytes.map(per_s),
            max_abs_err: worst.map(|v| v.stats.max_abs_err),
            rel_err: worst.map(|v| v.stats.rel_err),
            tolerance: worst.map(|v| v.tolerance.clone()),
            check_passed: checked.then(|| checks.iter().all(|v| v.passed)),
            held: worst.map(|v| v.held.clone()),
            exact: worst.and_then(|v| v.exact.clone()),
            saturated: checked
                .then(|| checks.iter().filter_map(|v| v.saturated).sum::<usize>())
                .filter(|_| precision == Precision::U8),
            saturated_share: (checked && precision == Precision::U8).then(|| {
                checks.iter().filter_map(|v| v.saturated).sum::<usize>() as f64
                    / (m * n * channels) as f64
            }),
            close: checked.then(|| checks.iter().all(|v| v.close)),
            closeness: worst.map(|v| v.closeness.clone()),
            model_passed: checked.then(|| checks.iter().all(|v| v.model_passed)),
            held_to: worst.map(|v| v.held_to),
            checks,
            notes: out.notes.clone(),
            tiling: out.tiling.clone(),
        }
    }

    /// The worst channel's verdict (largest relative error), whose errors and words the report
    /// carries on top; `None` if the run was not checked.
    pub fn worst(&self) -> Option<&Verdict> {
        worst(&self.checks)
    }
}

/// The model facts of the kernel that ran, as the run recorded it (the method it handed the
/// product to, its variant or shape, the dispatches of its compute plan): Hall–Carr–Hart §5's
/// bytes and instructions, the compute era's global traffic. The models are the native library's ([`crate::model`]); a report made
/// without them (the page's) leaves these fields out.
#[derive(Default)]
struct ModelFacts {
    bytes: Option<u128>,
    instructions: Option<u128>,
    global_bytes: Option<u128>,
    flop_per_byte: Option<f64>,
}

impl ModelFacts {
    #[cfg(feature = "native")]
    fn of(ctx: Option<&GpuContext>, out: &Outcome) -> ModelFacts {
        let (m, k, n) = out.shape;
        let channels = 1 + out.more_channels.len();
        let kernels = out.kernel.kernels();
        let model = crate::model::for_run_with(out.method, (m, k, n), out.passes, &kernels);
        let compute = compute_model(ctx, out);
        let bytes_per_channel = out.kernel.sums.bytes_per_channel();
        ModelFacts {
            bytes: model
                .as_ref()
                .map(|md| md.total_bytes * (channels * bytes_per_channel) as u128 / 4),
            instructions: model.as_ref().map(|md| md.total_instructions),
            global_bytes: compute.as_ref().map(|md| md.global_bytes),
            flop_per_byte: compute.as_ref().map(|md| md.flop_per_byte),
        }
    }

    #[cfg(not(feature = "native"))]
    fn of(_ctx: Option<&GpuContext>, _out: &Outcome) -> ModelFacts {
        ModelFacts::default()
    }
}

/// The compute era's model of the kernel a run ran, the one the report's `model_global_*`
/// fields come from: its traffic at the run's variant, its geometry the dispatches the run
/// recorded ([`crate::model::compute::model_of_run`]), under `ctx`'s limits (typical ones
/// without a context).
#[cfg(feature = "native")]
pub fn compute_model(
    ctx: Option<&GpuContext>,
    out: &Outcome,
) -> Option<crate::model::compute::ComputeModel> {
    let limits = ctx.map_or_else(crate::model::compute::typical_limits, |c| c.limits.clone());
    crate::model::compute::model_of_run(&out.kernel, out.shape, &limits)
}

/// The verdict with the largest relative error.
fn worst(checks: &[Verdict]) -> Option<&Verdict> {
    checks
        .iter()
        .max_by(|x, y| x.stats.rel_err.total_cmp(&y.stats.rel_err))
}
