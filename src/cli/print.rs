//! The text form of a multiply's [`Report`], shared by `multiply` and any command that prints one.

use crate::check::{Hold, Verdict};
use crate::report::Report;

/// Print `r` as aligned `label  value` lines.
pub fn print_report(r: &Report) {
    println!("method    {}  ({})", r.method, r.precision);
    println!("{}", kernel_line(r));
    println!("shape     {}x{} · {}x{}", r.m, r.k, r.k, r.n);
    println!("passes    {}", r.passes);
    println!(
        "time      {:.3} ms host to host (the call's wall clock): upload {:.3} ms, compute {:.3} ms, copy {:.3} ms, readback {:.3} ms ({:.3} ms in these phases), {:.3} ms outside them",
        r.wall_ms, r.upload_ms, r.compute_ms, r.copy_ms, r.readback_ms, r.total_ms, r.outside_ms
    );
    if let Some(d) = r.device_ms {
        match r.timing {
            crate::gpu::timer::Clock::CpuAdapterTimestamp => println!(
                "device    {d:.3} ms of the CPU adapter's time in the compute phase (its timestamp queries; a CPU's time, with the host's submission in it)"
            ),
            _ => {
                println!("device    {d:.3} ms of GPU time in the compute phase (timestamp queries)")
            }
        }
    }
    println!(
        "rate      {:.3} GFLOP/s (2·m·k·n / compute time, {})",
        r.gflops,
        r.timing.name()
    );
    if let (Some(bytes), Some(gbps), Some(inst), Some(gis)) = (
        r.model_bytes,
        r.model_gbps,
        r.model_instructions,
        r.model_ginst_per_s,
    ) {
        println!(
            "model     {bytes} bytes moved ({:.3} GiB) → {gbps:.3} GB/s; {inst} shader instructions → {gis:.3} Ginst/s (Hall–Carr–Hart §5)",
            bytes as f64 / (1u64 << 30) as f64
        );
    }
    if let (Some(bytes), Some(fpb), Some(gbps)) = (
        r.model_global_bytes,
        r.model_flop_per_byte,
        r.model_global_gbps,
    ) {
        println!(
            "model     {bytes} bytes of global-memory traffic, {fpb:.3} flop/byte (computation-to-memory ratio) → {gbps:.3} GB/s"
        );
    }
    if let Some(g) = r.gbops {
        println!(
            "          {g:.4} GBops (L-M's byte operations, 2·m·k·n − m·n, over the total time)"
        );
    }
    if let Some(v) = r.worst() {
        print_check(r.check_passed == Some(true), v);
    }
    if let (Some(sat), Some(share)) = (r.saturated, r.saturated_share) {
        print_saturated(sat, share);
    }
    for n in &r.notes {
        println!("note      {n}");
    }
}

/// What ran, as the run recorded it: the kernel (where the method handed the product to
/// another), its variant or shape, and the formats of its inputs and sums.
fn kernel_line(r: &Report) -> String {
    format!(
        "ran       {}{}; {} inputs, {} sums",
        r.ran.as_deref().unwrap_or(&r.method),
        r.variant
            .as_deref()
            .map_or(String::new(), |v| format!(" variant {v}")),
        r.inputs,
        r.sums
    )
}

/// The check block of a verdict: `ok` or `FAILED` (and, held to the pipeline's model only, that
/// it was) with the verdict's headline — whether C is close to the exact product, then what its
/// pipeline promised — then its errors against the f64 product, how far the 8-bit pipeline is
/// from the exact product (u8), and what it was held to in full. `passed` is the check's
/// outcome (every channel's, for a multi-channel run).
pub fn print_check(passed: bool, v: &Verdict) {
    let verdict = match (passed, v.held_to) {
        (true, Hold::Exact) => "ok",
        (false, Hold::Exact) => "FAILED",
        (true, Hold::Model) => "ok (held to the pipeline's model)",
        (false, Hold::Model) => "FAILED (held to the pipeline's model)",
    };
    println!("check     {verdict}: {}", v.headline());
    println!(
        "          rel_err {:.3e}, max_abs_err {:.3e} vs the f64 CPU product",
        v.stats.rel_err, v.stats.max_abs_err
    );
    if let Some(e) = &v.exact {
        println!("          {e}");
    }
    println!("          held to: {}", v.tolerance);
}

/// The u8 line on elements that hit the 8-bit ceiling.
pub fn print_saturated(sat: usize, share: f64) {
    println!(
        "saturated {sat} elements ({:.2}%) hit the 8-bit ceiling of 1.0",
        share * 100.0
    );
}
