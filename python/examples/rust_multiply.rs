//! The Rust side of `bench/overhead.py`: the same multiply the binding makes, called straight
//! from Rust, so the benchmark can tell what the binding adds.
//!
//! `cargo run --release --example rust_multiply -- A.npy B.npy METHOD REPEATS` multiplies the
//! two files REPEATS times in one process (one context, as the binding keeps), C in fresh memory
//! each time, then REPEATS - 1 times more with C read back into the last call's memory, and
//! prints one JSON line per call: the wall time of `plan::multiply` in ms, the report's timings
//! and whether C's memory was reused.

// The library's own `Error`, returned as it is (as the command line does).
#![allow(clippy::result_large_err)]

use rendermm::gpu::GpuContext;
use rendermm::methods::Method;
use rendermm::plan::{self, Request};
use rendermm::report::Report;
use std::time::Instant;

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(e.kind().exit_status());
    }
}

fn run() -> Result<(), rendermm::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b, method, repeats] = args.as_slice() else {
        return Err(rendermm::Error::Invalid(
            "usage: rust_multiply A.npy B.npy METHOD REPEATS".into(),
        ));
    };
    let a = rendermm::io::read_matrix(std::path::Path::new(a))?;
    let b = rendermm::io::read_matrix(std::path::Path::new(b))?;
    let method = Method::parse(method)?;
    let repeats: usize = repeats
        .parse()
        .map_err(|_| rendermm::Error::Invalid(format!("REPEATS '{repeats}' is not a count")))?;
    let ctx = GpuContext::new()?;
    // REPEATS calls as a caller who allocates C anew each time (as the binding and PyTorch's
    // `.cpu().numpy()` do), then REPEATS - 1 that hand each C's memory back for the next
    // (`Request::reusing`): the second kind marked `"reused": true`.
    let mut kept = Vec::new();
    for i in 0..2 * repeats - 1 {
        let reused = i >= repeats;
        let mut req = Request::new(method, &a, &b);
        if reused {
            req = req.reusing(std::mem::take(&mut kept));
        }
        let start = Instant::now();
        let out = plan::multiply(Some(&ctx), req)?;
        let wall_ms = start.elapsed().as_secs_f64() * 1e3;
        let r = Report::of(Some(&ctx), &out, vec![]);
        println!(
            "{}",
            serde_json::json!({
                "wall_ms": wall_ms,
                "library_wall_ms": r.wall_ms,
                "total_ms": r.total_ms,
                "outside_ms": r.outside_ms,
                "setup_ms": r.setup_ms,
                "upload_ms": r.upload_ms,
                "compute_ms": r.compute_ms,
                "readback_ms": r.readback_ms,
                "reused": reused,
            })
        );
        kept = out.c.data.into_vec();
    }
    Ok(())
}
