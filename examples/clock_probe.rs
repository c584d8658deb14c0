//! Does the GPU keep its clocks while a process gives it compute work only? Runs cs-fast
//! products (n = 2048, the compute phase repeated back to back 20 times per product) for three
//! phases of `SECS` seconds each: compute only; compute with a small render pass (`lm`, 64×64)
//! after every product; compute only again. Prints, every half second, the median device time
//! of one repetition; run it beside `nvidia-smi --query-gpu=clocks.sm --format=csv -lms 50`.
//!
//! ```text
//! cargo run --release --example clock_probe -- [SECS]     # default 8
//! ```
//!
//! On the H100 (driver 580, Vulkan) this is how the clock governor's behaviour was told apart
//! from the methods' own speed (docs/performance.md, the clock governor).

use rendermm::gpu::GpuContext;
use rendermm::matrix::Matrix;
use rendermm::methods::Method;
use rendermm::plan;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let secs: f64 = match std::env::args().nth(1) {
        Some(s) => s
            .parse()
            .map_err(|_| format!("SECS = '{s}': give a number"))?,
        None => 8.0,
    };
    let ctx = GpuContext::new()?;
    println!("{}", ctx.describe());
    let n = 2048;
    let a = Matrix::random(n, n, 1, -1.0, 1.0);
    let b = Matrix::random(n, n, 2, -1.0, 1.0);
    let (sa, sb) = (
        Matrix::random(64, 64, 3, -1.0, 1.0),
        Matrix::random(64, 64, 4, -1.0, 1.0),
    );
    let start = Instant::now();
    println!(
        "{:>7} {:<22} {:>9} {:>9}",
        "t s", "phase", "rep ms", "TFLOP/s"
    );
    for phase in [
        "compute only",
        "compute + render pass",
        "compute only again",
    ] {
        let end = start.elapsed().as_secs_f64() + secs;
        let mut window = vec![];
        let mut mark = start.elapsed().as_secs_f64();
        while start.elapsed().as_secs_f64() < end {
            let opts = plan::Options {
                repeats: Some(plan::Repeats::back_to_back(20)),
                ..Default::default()
            };
            let out = plan::multiply(
                Some(&ctx),
                plan::Request::new(Method::CsFast, &a, &b).options(opts),
            )?;
            let reps = out.timings.repeats_ms;
            if phase == "compute + render pass" {
                plan::multiply(Some(&ctx), plan::Request::new(Method::Lm, &sa, &sb))?;
            }
            window.extend(reps);
            let now = start.elapsed().as_secs_f64();
            if now - mark >= 0.5 && !window.is_empty() {
                window.sort_by(f64::total_cmp);
                let med = window[window.len() / 2];
                println!(
                    "{now:7.2} {phase:<22} {med:9.3} {:9.1}",
                    2.0 * (n as f64).powi(3) / med / 1e9
                );
                window.clear();
                mark = now;
            }
        }
    }
    Ok(())
}
