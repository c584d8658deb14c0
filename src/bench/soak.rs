//! `rendermm bench --soak N`: N rounds of every GPU method in one process, on one device, each
//! product checked against the f64 reference. It shows whether a method slows down once others
//! have used the device (its time against its own first run) and whether the process or the
//! device grows (host resident memory and wgpu's allocator report, after the first round and at
//! the end).

use crate::bench::ceilings::ClockGuard;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::plan::{self, Options};
use serde::Serialize;

/// A method's later runs may take this many times its first run's time, at most.
pub const SLOWDOWN_LIMIT: f64 = 1.2;

/// Growth of host or device memory from the end of the first round to the end allowed: this
/// fraction, plus [`GROWTH_SLACK_BYTES`] (allocator blocks and caches settle in steps).
pub const GROWTH_LIMIT: f64 = 0.10;
pub const GROWTH_SLACK_BYTES: u64 = 32 << 20;

/// One method over the soak.
#[derive(Clone, Debug, Serialize)]
pub struct SoakRow {
    pub method: String,
    /// Host-to-host milliseconds of each round's run (setup, upload, compute, readback).
    pub total_ms: Vec<f64>,
    /// Compute-phase milliseconds of each round's run (device time where timestamps exist; for
    /// the compute-harness methods the median of three back-to-back repetitions).
    pub compute_ms: Vec<f64>,
    /// Median of the rounds after the first, over the first round's time (compute phase).
    pub ratio: f64,
    /// Every product passed its check.
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// The soak's result.
#[derive(Clone, Debug, Serialize)]
pub struct Soak {
    pub adapter: String,
    pub rounds: usize,
    pub n: usize,
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
            if r.ratio > SLOWDOWN_LIMIT {
                out.push(format!(
                    "{}: later runs took {:.2}x its first run (limit {SLOWDOWN_LIMIT}x)",
                    r.method, r.ratio
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
            "soak: {} rounds of every GPU method at {n}x{n}x{n} on {}\n{:<24} {:>11} {:>13} {:>7}  check\n",
            self.rounds,
            self.adapter,
            "method",
            "first (ms)",
            "later (ms)",
            "ratio",
            n = self.n,
        );
        for r in &self.rows {
            if let Some(why) = &r.skipped {
                s.push_str(&format!("{:<24} skipped: {why}\n", r.method));
                continue;
            }
            // One round has no later runs to compare.
            let (later, ratio) = match r.compute_ms.len() {
                0 | 1 => ("–".to_string(), "–".to_string()),
                _ => (
                    format!("{:.3}", median(&r.compute_ms[1..])),
                    format!("{:.2}x", r.ratio),
                ),
            };
            s.push_str(&format!(
                "{:<24} {:>11.3} {:>13} {:>7}  {}\n",
                r.method,
                r.compute_ms.first().copied().unwrap_or(f64::NAN),
                later,
                ratio,
                if r.passed { "ok" } else { "FAILED" }
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

/// The median of `v`, NaN when empty.
fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    super::sweep::median(&mut v.to_vec())
}

/// Resident bytes of this process (Linux `/proc/self/statm`).
fn host_resident() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// Bytes wgpu's allocator holds on the device, where the backend reports it.
fn device_held(ctx: &GpuContext) -> Option<u64> {
    ctx.device
        .generate_allocator_report()
        .map(|r| r.total_reserved_bytes)
}

/// Run `rounds` rounds of `methods` (the GPU ones; each round every method once, in order) at
/// n×n·n×n, each product checked. A method the adapter cannot run is skipped with its reason.
pub fn soak(
    ctx: &GpuContext,
    methods: &[Method],
    rounds: usize,
    n: usize,
    seed: u64,
) -> Result<Soak> {
    let a = Matrix::random(n, n, seed, -1.0, 1.0);
    let b = Matrix::random(n, n, seed + 1, -1.0, 1.0);
    let reference_len = n * n;
    let methods: Vec<Method> = methods.iter().copied().filter(|m| m.is_gpu()).collect();
    let mut rows: Vec<SoakRow> = methods
        .iter()
        .map(|m| SoakRow {
            method: m.name().into(),
            total_ms: vec![],
            compute_ms: vec![],
            ratio: f64::NAN,
            passed: true,
            skipped: None,
        })
        .collect();
    let (mut host_first, mut device_first) = (None, None);
    // Products are checked after the last round, not between runs: a check at this size keeps
    // the CPU busy for about a second while the GPU idles, and the H100's clock governor then
    // took the SM clock from 1980 MHz down to 360-540 MHz within a few seconds, so the next runs
    // measured the governor, not the library (docs/performance.md, "A used device is slower").
    // The results wait in memory meanwhile; their bytes are left out of the host growth.
    let mut results: Vec<(usize, Options, Matrix)> = vec![];
    let held = |r: &[(usize, Options, Matrix)]| -> u64 {
        r.iter().map(|(_, _, c)| c.data.len() as u64 * 4).sum()
    };
    // And each product starts at the clock the soak began with (`ClockGuard::settle`; no guard on
    // CPU adapters), so that what the soak compares is the library's time.
    let guard = ClockGuard::new(ctx).ok().flatten();
    for round in 0..rounds.max(1) {
        for (i, (row, &method)) in rows.iter_mut().zip(&methods).enumerate() {
            if row.skipped.is_some() {
                continue;
            }
            // The options as the run leaves them (the precision it used) judge its result. A
            // product the clock fell during is run again (up to twice), as the sweep does.
            let mut opts: Options;
            let mut attempt = 0;
            let ran = loop {
                attempt += 1;
                if let Some(g) = &guard {
                    g.settle()?;
                }
                opts = Options::default();
                // Compute-harness methods repeat their compute phase three times back to back
                // and the round's compute time is the median, as the sweep times them: a 0.1 ms
                // kernel right after the host's upload otherwise meets the clock still ramping
                // up from the idle upload (cs-fast and coop at 1024 timed 1.5x slow in some
                // rounds that way on the H100), which is the governor, not the library.
                let (ran, repeats) =
                    if method.is_compute() || matches!(method, Method::CsFast | Method::Coop) {
                        crate::gpu::compute::with_timed_repeats(3, || {
                            plan::multiply(Some(ctx), method, &a, &b, &mut opts)
                        })
                    } else {
                        (plan::multiply(Some(ctx), method, &a, &b, &mut opts), vec![])
                    };
                let ran = ran.map(|out| (out, repeats));
                let slow = match &guard {
                    Some(g) if ran.is_ok() => g.ratio()? < ClockGuard::SLOW,
                    _ => false,
                };
                if !slow || attempt == 3 {
                    break ran;
                }
            };
            match ran {
                Ok((out, repeats)) => {
                    row.total_ms.push(out.timings.total_ms());
                    row.compute_ms.push(if repeats.is_empty() {
                        out.timings.compute_time().0
                    } else {
                        median(&repeats)
                    });
                    results.push((i, opts, out.c));
                }
                // What the adapter cannot do is known from the first round.
                Err(
                    e @ (Error::Unsupported { .. }
                    | Error::MissingFeature { .. }
                    | Error::FormatCapability { .. }
                    | Error::Limit { .. }),
                ) if round == 0 => row.skipped = Some(e.to_string()),
                Err(e) => return Err(e),
            }
        }
        if round == 0 {
            host_first = host_resident().map(|h| h.saturating_sub(held(&results)));
            device_first = device_held(ctx);
        }
    }
    let host_end = host_resident().map(|h| h.saturating_sub(held(&results)));
    for (i, opts, c) in &results {
        let row = &mut rows[*i];
        row.passed &=
            c.data.len() == reference_len && plan::verdict_for(methods[*i], opts, &a, &b, c).passed;
    }
    for r in &mut rows {
        if let Some(first) = r.compute_ms.first().copied() {
            r.ratio = median(&r.compute_ms[1.min(r.compute_ms.len())..]) / first.max(1e-9);
            if r.compute_ms.len() == 1 {
                r.ratio = 1.0;
            }
        }
    }
    Ok(Soak {
        adapter: ctx.info.name.clone(),
        rounds: rounds.max(1),
        n,
        rows,
        host_bytes: (host_first, host_end),
        device_bytes: (device_first, device_held(ctx)),
    })
}
