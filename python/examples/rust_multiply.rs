//! The Rust side of `bench/overhead.py`: the same multiply the binding makes, called straight
//! from Rust, so the benchmark can tell what the binding adds.
//!
//! `cargo run --release --example rust_multiply -- A.npy B.npy METHOD REPEATS` multiplies the
//! two files REPEATS times in one process (one context, as the binding keeps) and prints one JSON
//! line per call: the wall time of `plan::multiply` in ms and the report's timings.

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

fn run() -> rendermm::Result<()> {
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
    // What the library's own scan of the inputs costs (it checks every value is finite before
    // any work): one of the things a call does outside its timed phases.
    let scan = Instant::now();
    a.check_finite("A")?;
    b.check_finite("B")?;
    let scan_ms = scan.elapsed().as_secs_f64() * 1e3;
    for _ in 0..repeats {
        let start = Instant::now();
        let out = plan::multiply(Some(&ctx), Request::new(method, &a, &b))?;
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
                "scan_ms": scan_ms,
            })
        );
    }
    Ok(())
}
