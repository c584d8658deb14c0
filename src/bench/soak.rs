//! `rendermm bench --soak N`: N rounds of every GPU method in one process, on one device, each
//! product checked against the f64 reference. It shows whether a method slows down once others
//! have used the device (its time against its own first run) and whether the process or the
//! device grows (host resident memory and wgpu's allocator report, after the first round and at
//! the end).
//!
//! Time is judged so that a slowdown fails the soak and noise does not ([`judge`]): each round
//! times a method [`REPEATS`] times, the fastest of the first round is compared with the fastest
//! of the last half of the later rounds, and the limit of 1.2× is widened by as much as the
//! device's own speed was seen to vary during the soak, measured by a fixed dispatch beside
//! every round ([`Gauge`]). The verdict line says what each method was held to.

use crate::bench::ceilings::ClockGuard;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::timer::Span;
use crate::matrix::Matrix;
use crate::methods::{Kernels, Method, RanKernel};
use crate::plan::{self, Options};
use serde::Serialize;

/// A method's later rounds may take this many times its first round's time, times the
/// device's own variation over the soak ([`judge`]).
pub const SLOWDOWN_LIMIT: f64 = 1.2;

/// Rounds a method judged slower runs again, after the others, before the slowdown stands: the
/// later rounds are then judged by the last half of them, these. A slowdown of the method's own
/// lasts; a spell of a busy host (seen on a two-core CPU adapter: one method's two later rounds
/// at 1.56× its first, 0.46 ms against 0.29 ms, while the gauge moved 6%) passes.
pub const CONFIRM_ROUNDS: usize = 2;

/// Growth of host or device memory from the end of the first round to the end allowed: this
/// fraction, plus [`GROWTH_SLACK_BYTES`] (allocator blocks and caches settle in steps).
pub const GROWTH_LIMIT: f64 = 0.10;
pub const GROWTH_SLACK_BYTES: u64 = 32 << 20;

/// One method over the soak.
#[derive(Clone, Debug, Serialize)]
pub struct SoakRow {
    pub method: String,
    /// The kernel that ran (the first round's): the method it ran as where the one asked
    /// handed the product on, its variant, and the formats of its inputs and sums.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<RanKernel>,
    /// Host-to-host milliseconds of each round's run (setup, upload, compute, readback).
    pub total_ms: Vec<f64>,
    /// Compute-phase milliseconds of each round: the fastest of its [`REPEATS`] repetitions
    /// (device time where timestamps exist).
    pub compute_ms: Vec<f64>,
    /// Compute-phase milliseconds of every repetition, round by round.
    pub repeats_ms: Vec<Vec<f64>>,
    /// The device's speed around each round of this method: the milliseconds of a fixed
    /// dispatch ([`Gauge`]) timed just before and just after it, the faster kept. Empty where
    /// the adapter runs no compute shaders.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gauge_ms: Vec<f64>,
    /// The later rounds' time over the first round's ([`Timing`]); 1 with one round.
    pub ratio: f64,
    /// How the time was judged (absent with one round: nothing to compare).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Timing>,
    /// Every product passed its check.
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Rounds run after the soak because the method was judged slower: a slowdown stands only
    /// if it lasts through them ([`CONFIRM_ROUNDS`]). Their times are in the rounds above.
    #[serde(skip_serializing_if = "is_zero")]
    pub confirm_rounds: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl SoakRow {
    /// The method asked and, where another kernel ran, that one: `cannon (ran cannon-tiled)`.
    pub fn what_ran(&self) -> String {
        match &self.kernel {
            Some(k) if k.method.name() != self.method => {
                format!("{} (ran {})", self.method, k.method)
            }
            _ => self.method.clone(),
        }
    }
}

/// How one method's rounds were judged: the later rounds' time against the first round's,
/// allowed [`SLOWDOWN_LIMIT`] times it, times how much the device's own speed varied during the
/// soak ([`judge`]).
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// The first round's time: the fastest of its repetitions.
    pub first_ms: f64,
    /// The later rounds' time: the fastest repetition of the last half of them (at least two
    /// rounds, where there are two).
    pub later_ms: f64,
    /// How much the device's speed varied during the soak: the slowest over the fastest timing
    /// of the [`Gauge`] (1 where there is none).
    pub variation: f64,
    /// What the later rounds may take: [`SLOWDOWN_LIMIT`] × first × variation.
    pub allowed_ms: f64,
    /// later / first.
    pub ratio: f64,
}

impl Timing {
    pub fn slowed(&self) -> bool {
        self.later_ms > self.allowed_ms
    }
}

/// Judge one method's rounds (`repeats_ms`: each round's repetitions) on a device whose speed
/// varied by `variation` (slowest / fastest gauge timing) during the soak: `None` with fewer
/// than two rounds.
///
/// The rule, and why. Noise only ever adds time (another process on the cores, an interrupt, a
/// cache refilled), so a round counts its fastest repetition, and the later rounds the fastest
/// repetition of the last half of them (at least two rounds where there are two): a slowdown
/// of the method's own (a leak, a cache that grows, a pool no longer reused) slows every run
/// once it has set in, so their fastest too, while a round that met a busy moment does not
/// decide alone. And the device's own speed is measured beside the method, by a fixed dispatch
/// that uses nothing of the library ([`Gauge`]): on a CPU adapter the device is the host's
/// cores, shared with every other process, and the same work takes twice as long from one
/// second to the next while another process is busy. The later rounds may take
/// [`SLOWDOWN_LIMIT`] × the first round × that variation: 1.2× on a steady device, more where
/// the device itself was seen to vary. A slowdown of the whole device (the gauge too) is not the
/// method's; the memory checks speak for leaks.
pub fn judge(repeats_ms: &[Vec<f64>], variation: f64) -> Option<Timing> {
    let rounds: Vec<f64> = repeats_ms.iter().map(|r| best(r)).collect();
    let (first_ms, later) = rounds.split_first().filter(|(_, l)| !l.is_empty())?;
    let last_half = later.len().div_ceil(2).max(2).min(later.len());
    let later_ms = best(&later[later.len() - last_half..]);
    let variation = if variation.is_finite() {
        variation.max(1.0)
    } else {
        1.0
    };
    Some(Timing {
        first_ms: *first_ms,
        later_ms,
        variation,
        allowed_ms: SLOWDOWN_LIMIT * first_ms * variation,
        ratio: later_ms / first_ms.max(1e-9),
    })
}

/// The fastest of `v`, NaN when empty.
fn best(v: &[f64]) -> f64 {
    v.iter().copied().reduce(f64::min).unwrap_or(f64::NAN)
}

/// The soak's result.
#[derive(Clone, Debug, Serialize)]
pub struct Soak {
    pub adapter: String,
    pub rounds: usize,
    pub n: usize,
    /// How much the device's speed varied during the soak: the slowest over the fastest timing
    /// of the [`Gauge`] beside the methods' rounds (1 where there is no gauge).
    pub variation: f64,
    pub rows: Vec<SoakRow>,
    /// Host resident bytes after the first round and at the end, less the results held for
    /// checking (Linux; `None` elsewhere).
    pub host_bytes: (Option<u64>, Option<u64>),
    /// Device bytes wgpu's allocator holds after the first round and at the end (`None` where
    /// the backend gives no report).
    pub device_bytes: (Option<u64>, Option<u64>),
}

impl Soak {
    /// Why the soak failed, one line each; empty when it passed.
    pub fn failures(&self) -> Vec<String> {
        let mut out = vec![];
        for r in self.rows.iter().filter(|r| r.skipped.is_none()) {
            if !r.passed {
                out.push(format!("{}: a product failed its check", r.method));
            }
            if let Some(t) = r.verdict.as_ref().filter(|t| t.slowed()) {
                let lasted = match r.confirm_rounds {
                    0 => String::new(),
                    n => format!(" (and in the {n} rounds run again to confirm it)"),
                };
                out.push(format!(
                    "{}: later rounds took {:.4} ms against {:.4} ms in the first ({:.2}x){lasted}, held to {:.4} ms ({SLOWDOWN_LIMIT}x the first x {:.2}, the device's own variation)",
                    r.method, t.later_ms, t.first_ms, t.ratio, t.allowed_ms, t.variation
                ));
            }
        }
        for (what, (first, last)) in [("host", self.host_bytes), ("device", self.device_bytes)] {
            if let (Some(f), Some(l)) = (first, last) {
                let allowed = f + (f as f64 * GROWTH_LIMIT) as u64 + GROWTH_SLACK_BYTES;
                if l > allowed {
                    out.push(format!(
                        "{what} memory grew from {} MiB to {} MiB (allowed {} MiB)",
                        f >> 20,
                        l >> 20,
                        allowed >> 20
                    ));
                }
            }
        }
        out
    }

    /// The soak as a table.
    pub fn render(&self) -> String {
        let mib = |b: Option<u64>| b.map_or("–".to_string(), |b| format!("{} MiB", b >> 20));
        let mut s = format!(
            "soak: {} rounds of every GPU method at {n}x{n}x{n} on {}, each round the fastest of {REPEATS} repetitions\n{:<26} {:>8} {:>11} {:>11} {:>7} {:>11} {:>7}  check\n",
            self.rounds,
            self.adapter,
            "method",
            "in/sums",
            "first (ms)",
            "later (ms)",
            "ratio",
            "held to",
            "time",
            n = self.n,
        );
        for r in &self.rows {
            if let Some(why) = &r.skipped {
                s.push_str(&format!("{:<24} skipped: {why}\n", r.method));
                continue;
            }
            // One round has no later runs to compare.
            let dash = || "–".to_string();
            let (later, ratio, allowed, time) = match &r.verdict {
                None => (dash(), dash(), dash(), dash()),
                Some(t) => (
                    format!("{:.3}", t.later_ms),
                    format!("{:.2}x", t.ratio),
                    format!("{:.3}", t.allowed_ms),
                    if t.slowed() { "SLOWER" } else { "ok" }.to_string(),
                ),
            };
            let formats = r
                .kernel
                .as_ref()
                .map_or("–".to_string(), |k| format!("{}/{}", k.inputs, k.sums));
            s.push_str(&format!(
                "{:<26} {:>8} {:>11.3} {:>11} {:>7} {:>11} {:>7}  {}\n",
                r.what_ran(),
                formats,
                r.compute_ms.first().copied().unwrap_or(f64::NAN),
                later,
                ratio,
                allowed,
                time,
                if r.passed { "ok" } else { "FAILED" }
            ));
        }
        s.push_str(&format!(
            "later = the fastest of the last half of the later rounds; held to {SLOWDOWN_LIMIT}x the first x {:.2}, the device's own variation over the soak (a fixed dispatch's slowest over fastest timing)\n",
            self.variation
        ));
        let again: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.confirm_rounds > 0)
            .map(|r| format!("{} ({})", r.method, r.confirm_rounds))
            .collect();
        if !again.is_empty() {
            s.push_str(&format!(
                "run again to confirm a slowdown, the extra rounds deciding its later time: {}\n",
                again.join(", ")
            ));
        }
        s.push_str(&format!(
            "host memory: {} after round 1, {} at the end; device memory (wgpu allocator): {} after round 1, {} at the end\n",
            mib(self.host_bytes.0),
            mib(self.host_bytes.1),
            mib(self.device_bytes.0),
            mib(self.device_bytes.1)
        ));
        s
    }
}

/// A fixed compute dispatch that uses nothing of the library (its own pipeline and buffer): its
/// time now against its time earlier says how fast the device is now. On a CPU adapter the
/// device is the host's cores, shared with every other process, and a product of a fraction of a
/// millisecond takes twice as long while another process is busy; the gauge, timed beside each
/// product, takes twice as long too. A slowdown of the library's own (a method slower once
/// others have run) leaves the gauge alone.
pub struct Gauge {
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    groups: u32,
}

/// The gauge's shader: dependent multiply-add chains, 256 steps (loops far below any driver's
/// cap on iterations), one result per invocation so that none is optimised away.
const GAUGE_SHADER: &str = r"
@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = f32(gid.x & 1023u) * 1.0e-3;
    var y = x + 0.5;
    for (var i = 0u; i < 256u; i = i + 1u) {
        x = fma(x, 0.9999, 1.0e-4);
        y = fma(y, 0.9999, x);
    }
    sink[gid.x] = x + y;
}
";

impl Gauge {
    /// Build the gauge, sized to take at least a millisecond, so that it measures arithmetic
    /// on every core rather than the cost of a dispatch: 64 workgroups (work for every thread
    /// of a CPU adapter), doubled until it does or reaches the adapter's workgroups per dispatch.
    pub fn new(ctx: &GpuContext) -> Result<Gauge> {
        let module = ctx.shader("soak gauge", GAUGE_SHADER)?;
        let most = ctx.limits.max_compute_workgroups_per_dimension.max(1);
        let mut groups = 64u32.min(most);
        loop {
            let g = ctx.scoped("building the soak gauge", || {
                let pipeline =
                    ctx.device
                        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                            label: Some("soak gauge"),
                            layout: None,
                            module: &module,
                            entry_point: Some("main"),
                            compilation_options: Default::default(),
                            cache: None,
                        });
                let sink = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("soak gauge sink"),
                    size: groups as u64 * 64 * 4,
                    usage: wgpu::BufferUsages::STORAGE,
                    mapped_at_creation: false,
                });
                let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("soak gauge"),
                    layout: &pipeline.get_bind_group_layout(0),
                    entries: &[wgpu::BindGroupEntry {
                        binding: 0,
                        resource: sink.as_entire_binding(),
                    }],
                });
                Ok(Gauge {
                    pipeline,
                    bind,
                    groups,
                })
            })?;
            if groups >= most || g.time(ctx)? >= 1.0 {
                return Ok(g);
            }
            groups = groups.saturating_mul(2).min(most);
        }
    }

    /// The dispatch's milliseconds: the faster of two back-to-back timings.
    pub fn time(&self, ctx: &GpuContext) -> Result<f64> {
        let mut best = f64::INFINITY;
        for _ in 0..2 {
            let work = ctx.scoped("the soak gauge", || {
                let mut enc = ctx.device.create_command_encoder(&Default::default());
                {
                    let mut pass = enc.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&self.pipeline);
                    pass.set_bind_group(0, &self.bind, &[]);
                    pass.dispatch_workgroups(self.groups, 1, 1);
                }
                Ok(enc.finish())
            })?;
            best = best.min(Span::begin(ctx)?.end_with(ctx, [work])?.0);
        }
        Ok(best)
    }
}

/// How the soak learns this process's resident bytes: the host reads them (Linux
/// `/proc/self/statm`; the library reads no system file) and passes the reader in; `|| None`
/// leaves host memory out.
pub type Resident<'r> = &'r dyn Fn() -> Option<u64>;

/// Bytes wgpu's allocator holds on the device, where the backend reports it.
fn device_held(ctx: &GpuContext) -> Option<u64> {
    ctx.device
        .generate_allocator_report()
        .map(|r| r.total_reserved_bytes)
}

/// Timed repetitions of a method in each round; the round counts the fastest ([`judge`]).
pub const REPEATS: usize = 3;

/// One round of one method: its product and the compute-phase milliseconds of each repetition.
pub struct Timed {
    /// The (first) run's outcome: C, the kernel that ran, what the judge holds C to.
    pub outcome: plan::Outcome,
    /// Host-to-host milliseconds of the (first) run.
    pub total_ms: f64,
    /// Compute-phase milliseconds of each repetition (device time where timestamps exist).
    pub compute_ms: Vec<f64>,
}

/// How the soak runs a method once per round ([`soak`] uses [`run_timed`]; a test may wrap it,
/// e.g. to make later rounds slower and watch the soak fail).
pub type Runner<'r> = dyn FnMut(usize, Method, &Matrix, &Matrix) -> Result<Timed> + 'r;

/// One round of `method` on `a · b`, as [`soak`] times it: [`REPEATS`] repetitions of the compute
/// phase. Compute-harness methods repeat their compute phase back to back within one run, as
/// the sweep times them (a 0.1 ms kernel right after the host's upload otherwise meets the clock
/// still ramping up from the idle upload: cs-fast and coop at 1024 timed 1.5x slow in some
/// rounds that way on the H100, which is the governor, not the library); the render-pass
/// methods run whole multiplies, the first one's product kept.
#[cfg(feature = "internals")]
pub fn run_timed(ctx: &GpuContext, method: Method, a: &Matrix, b: &Matrix) -> Result<Timed> {
    run_timed_with(ctx, method, a, b, Kernels::default())
}

/// [`run_timed`] of the kernel variants `kernels` names.
pub fn run_timed_with(
    ctx: &GpuContext,
    method: Method,
    a: &Matrix,
    b: &Matrix,
    kernels: Kernels,
) -> Result<Timed> {
    let harness = method.is_compute() || matches!(method, Method::CsFast | Method::Coop);
    let opts = Options {
        kernels,
        repeats: Some(plan::Repeats::back_to_back(if harness {
            REPEATS
        } else {
            1
        })),
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx),
        plan::Request::new(method, a, b).options(opts.clone()),
    )?;
    let mut compute_ms = if out.timings.repeats_ms.is_empty() {
        vec![out.timings.compute_time().0]
    } else {
        out.timings.repeats_ms.clone()
    };
    if !harness {
        for _ in 1..REPEATS {
            let again = plan::multiply(
                Some(ctx),
                plan::Request::new(method, a, b).options(opts.clone()),
            )?;
            compute_ms.push(again.timings.compute_time().0);
        }
    }
    Ok(Timed {
        total_ms: out.timings.total_ms(),
        compute_ms,
        outcome: out,
    })
}

/// Run `rounds` rounds of `methods` (the GPU ones; each round every method once, in order) at
/// n×n·n×n, each product checked. A method the adapter cannot run is skipped with its reason.
pub fn soak(
    ctx: &GpuContext,
    methods: &[Method],
    rounds: usize,
    n: usize,
    seed: u64,
    kernels: Kernels,
    host_resident: Resident,
) -> Result<Soak> {
    let mut run = |_, method, a: &Matrix, b: &Matrix| run_timed_with(ctx, method, a, b, kernels);
    soak_with(ctx, methods, (rounds, n, seed), &mut run, host_resident)
}

impl SoakRow {
    /// `method`'s row before any round: nothing timed, passed until a check fails.
    fn empty(method: Method) -> SoakRow {
        SoakRow {
            method: method.name().into(),
            kernel: None,
            total_ms: vec![],
            compute_ms: vec![],
            repeats_ms: vec![],
            gauge_ms: vec![],
            ratio: f64::NAN,
            verdict: None,
            passed: true,
            skipped: None,
            confirm_rounds: 0,
        }
    }
}

/// One product of the soak, run again (up to twice) when the clock fell during it, as the
/// sweep does; each try starts at the clock the soak began with. Returns the run and the
/// gauge's faster timing around it.
fn run_settled(
    ctx: &GpuContext,
    (guard, gauge): (Option<&ClockGuard>, Option<&Gauge>),
    run: &mut Runner,
    round: usize,
    method: Method,
    (a, b): (&Matrix, &Matrix),
) -> Result<(Result<Timed>, Option<f64>)> {
    let mut attempt = 0;
    let mut speed;
    let ran = loop {
        attempt += 1;
        if let Some(g) = guard {
            g.settle()?;
        }
        let before = gauge.map(|g| g.time(ctx)).transpose()?;
        let ran = run(round, method, a, b);
        let after = gauge.map(|g| g.time(ctx)).transpose()?;
        speed = before.zip(after).map(|(x, y)| x.min(y));
        let slow = match guard {
            Some(g) if ran.is_ok() => g.ratio()? < ClockGuard::SLOW,
            _ => false,
        };
        if !slow || attempt == 3 {
            break ran;
        }
    };
    Ok((ran, speed))
}

/// Judge every row's rounds against the device's own variation over the whole soak (the slowest
/// gauge timing over the fastest), which it returns.
fn judge_rows(rows: &mut [SoakRow]) -> f64 {
    let gauges = rows.iter().flat_map(|r| r.gauge_ms.iter().copied());
    let variation = match (gauges.clone().reduce(f64::max), gauges.reduce(f64::min)) {
        (Some(hi), Some(lo)) if lo > 0.0 => hi / lo,
        _ => 1.0,
    };
    for r in rows {
        let v = judge(&r.repeats_ms, variation);
        r.ratio = v.as_ref().map_or(1.0, |v| v.ratio);
        r.verdict = v;
    }
    variation
}

/// [`soak`] with each round of each method run by `run` (given the round, from 0).
pub fn soak_with(
    ctx: &GpuContext,
    methods: &[Method],
    (rounds, n, seed): (usize, usize, u64),
    run: &mut Runner,
    host_resident: Resident,
) -> Result<Soak> {
    let a = Matrix::random(n, n, seed, -1.0, 1.0);
    let b = Matrix::random(n, n, seed + 1, -1.0, 1.0);
    let reference_len = n * n;
    let methods: Vec<Method> = methods.iter().copied().filter(|m| m.is_gpu()).collect();
    let mut rows: Vec<SoakRow> = methods.iter().map(|&m| SoakRow::empty(m)).collect();
    let (mut host_first, mut device_first) = (None, None);
    // Products are checked after the last round, not between runs: a check at this size keeps
    // the CPU busy for about a second while the GPU idles, and the H100's clock governor then
    // took the SM clock from 1980 MHz down to 360-540 MHz within a few seconds, so the next runs
    // measured the governor, not the library (docs/performance.md, "A used device is slower").
    // The results wait in memory meanwhile; their bytes are left out of the host growth.
    let mut results: Vec<(usize, plan::Outcome)> = vec![];
    let held = |r: &[(usize, plan::Outcome)]| -> u64 {
        r.iter().map(|(_, o)| o.c.data.len() as u64 * 4).sum()
    };
    // And each product starts at the clock the soak began with (`ClockGuard::settle`; no guard on
    // CPU adapters), so that what the soak compares is the library's time.
    let guard = ClockGuard::new(ctx).ok().flatten();
    let gauge = Gauge::new(ctx).ok();
    // One round of `method` (row `i`): its times and gauge recorded, its product kept for the
    // check; what the adapter cannot do is known from the first round and skips the method.
    let mut one_round = |row: &mut SoakRow,
                         i: usize,
                         method: Method,
                         round: usize,
                         results: &mut Vec<(usize, plan::Outcome)>|
     -> Result<()> {
        let (ran, speed) = run_settled(
            ctx,
            (guard.as_ref(), gauge.as_ref()),
            run,
            round,
            method,
            (&a, &b),
        )?;
        match ran {
            Ok(t) => {
                row.total_ms.push(t.total_ms);
                row.compute_ms.push(best(&t.compute_ms));
                row.repeats_ms.push(t.compute_ms);
                row.kernel.get_or_insert(t.outcome.kernel.clone());
                row.gauge_ms.extend(speed);
                results.push((i, t.outcome));
            }
            Err(
                e @ (Error::Unsupported { .. }
                | Error::MissingFeature { .. }
                | Error::FormatCapability { .. }
                | Error::Limit { .. }),
            ) if round == 0 => row.skipped = Some(e.to_string()),
            Err(e) => return Err(e),
        }
        Ok(())
    };
    let rounds = rounds.max(1);
    for round in 0..rounds {
        for (i, (row, &method)) in rows.iter_mut().zip(&methods).enumerate() {
            if row.skipped.is_none() {
                one_round(row, i, method, round, &mut results)?;
            }
        }
        if round == 0 {
            host_first = host_resident().map(|h| h.saturating_sub(held(&results)));
            device_first = device_held(ctx);
        }
    }
    let host_end = host_resident().map(|h| h.saturating_sub(held(&results)));
    let mut variation = judge_rows(&mut rows);
    // A slowdown must last: each method judged slower runs CONFIRM_ROUNDS more rounds, which
    // then decide its later time, and every method is judged again.
    let slowed: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].verdict.as_ref().is_some_and(Timing::slowed))
        .collect();
    if !slowed.is_empty() {
        for extra in 0..CONFIRM_ROUNDS {
            for &i in &slowed {
                one_round(&mut rows[i], i, methods[i], rounds + extra, &mut results)?;
                rows[i].confirm_rounds += 1;
            }
        }
        variation = judge_rows(&mut rows);
    }
    for (i, outcome) in &results {
        let row = &mut rows[*i];
        row.passed &= outcome.c.data.len() == reference_len && outcome.verdict(&a, &b).passed;
    }
    Ok(Soak {
        adapter: ctx.info.name.clone(),
        rounds,
        n,
        variation,
        rows,
        host_bytes: (host_first, host_end),
        device_bytes: (device_first, device_held(ctx)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rounds of three repetitions: `first` in round 1, `later` in the others, the
    /// others of each round up to `noise` slower (noise only adds time).
    fn rounds(first: f64, later: f64, noise: f64) -> Vec<Vec<f64>> {
        let round = |t: f64| vec![t * (1.0 + noise), t, t * (1.0 + noise / 2.0)];
        vec![round(first), round(later), round(later)]
    }

    #[test]
    fn noise_inside_rounds_and_one_busy_later_round_pass() {
        // Repetitions 2x apart within every round: the fastest is the method's time.
        assert!(!judge(&rounds(1.0, 1.0, 1.0), 1.0).unwrap().slowed());
        // One later round entirely slow (a busy second), the other not.
        let r = vec![
            vec![1.0, 1.1, 1.0],
            vec![2.5, 2.4, 2.6],
            vec![1.05, 1.0, 1.1],
        ];
        let t = judge(&r, 1.0).unwrap();
        assert!(!t.slowed(), "{t:?}");
        assert_eq!(t.later_ms, 1.0);
    }

    #[test]
    fn a_slowdown_in_every_later_round_fails_and_the_devices_variation_widens_the_limit() {
        let t = judge(&rounds(1.0, 1.3, 0.2), 1.0).unwrap();
        assert!(t.slowed(), "{t:?}");
        assert!((t.allowed_ms - 1.2).abs() < 1e-12, "{t:?}");
        // The same times on a device whose own speed was seen to vary by 1.5x: within it.
        let t = judge(&rounds(1.0, 1.3, 0.2), 1.5).unwrap();
        assert!(!t.slowed(), "{t:?}");
        assert!((t.allowed_ms - 1.8).abs() < 1e-12, "{t:?}");
        // But not a slowdown past it.
        assert!(judge(&rounds(1.0, 2.0, 0.2), 1.5).unwrap().slowed());
        // One round has nothing to compare; a variation below 1 (or not a number) counts as 1.
        assert!(judge(&rounds(1.0, 1.0, 0.0)[..1], 1.0).is_none());
        assert_eq!(
            judge(&rounds(1.0, 1.3, 0.0), f64::NAN).unwrap().variation,
            1.0
        );
        assert_eq!(judge(&rounds(1.0, 1.3, 0.0), 0.5).unwrap().variation, 1.0);
    }

    #[test]
    fn a_slowdown_that_sets_in_late_fails() {
        // Ten rounds; from the sixth on every run takes twice as long: the last half of the
        // later rounds (the sixth to the tenth) has its fastest at 2x.
        let mut r: Vec<Vec<f64>> = (0..5).map(|_| vec![1.1, 1.0, 1.3]).collect();
        r.extend((0..5).map(|_| vec![2.2, 2.0, 2.6]));
        let t = judge(&r, 1.0).unwrap();
        assert!(t.slowed(), "{t:?}");
        // Set in at the tenth round only, it is one round of five, and the rule waits for more.
        let mut r: Vec<Vec<f64>> = (0..9).map(|_| vec![1.1, 1.0, 1.3]).collect();
        r.push(vec![2.2, 2.0, 2.6]);
        assert!(!judge(&r, 1.0).unwrap().slowed());
    }
}
