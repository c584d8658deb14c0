//! The first product of a kind against the ones after it, in one process on one context: what
//! the pipeline cache (`gpu::cache`) takes off every product after the first.
//!
//! ```text
//! cargo run --release --example warm -- [N] [METHOD,...]
//! ```
//!
//! For each method: host-to-host and setup (pipeline building) milliseconds of the first
//! product, then the median of the next five, and the shaders the context compiled for it;
//! every result judged on sampled elements.

use rendermm::gpu::GpuContext;
use rendermm::matrix::Matrix;
use rendermm::methods::Method;
use rendermm::plan::{self, Request};

fn main() -> Result<(), rendermm::Error> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1024);
    let methods: Vec<Method> = match args.next() {
        Some(list) => list
            .split(',')
            .map(Method::parse)
            .collect::<Result<_, rendermm::Error>>()?,
        None => vec![
            Method::CsFast,
            Method::Coop,
            Method::FragMrt,
            Method::HallPacked,
            Method::Lm,
            Method::CsNaive,
        ],
    };
    let ctx = GpuContext::new()?;
    println!("adapter: {}; n = {n}", ctx.describe());
    let a = Matrix::random(n, n, 1, -1.0, 1.0);
    let b = Matrix::random(n, n, 2, -1.0, 1.0);
    println!(
        "{:<14} {:>12} {:>10} {:>14} {:>12} {:>9} {:>8}",
        "method", "1st total ms", "1st setup", "next total ms", "next setup", "shaders", "check"
    );
    for m in methods {
        let before = ctx.pipelines.compiled();
        let first = match plan::multiply(Some(&ctx), Request::new(m, &a, &b)) {
            Ok(o) => o,
            Err(e) => {
                println!("{:<14} skipped: {e}", m.name());
                continue;
            }
        };
        let compiled = ctx.pipelines.compiled() - before;
        let mut next = vec![];
        for _ in 0..5 {
            next.push(plan::multiply(Some(&ctx), Request::new(m, &a, &b))?);
        }
        let median = |f: fn(&plan::Outcome) -> f64| {
            let mut v: Vec<f64> = next.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let again = ctx.pipelines.compiled() - before - compiled;
        // Every result judged on sampled elements (the full f64 reference of a 4096³ product
        // would take the host far longer than the products).
        let judged = |o: &plan::Outcome| {
            use rendermm::check::{CheckPolicy, Coverage, Hold, Inputs, SAMPLES};
            let policy = CheckPolicy {
                hold: Hold::Model,
                coverage: Coverage::Sampled {
                    samples: SAMPLES,
                    seed: 7,
                },
            };
            o.check(policy, &[Inputs::new(&a, &b)]).passed()
        };
        let ok = judged(&first) && next.iter().all(judged);
        println!(
            "{:<14} {:>12.3} {:>10.3} {:>14.3} {:>12.3} {:>5} + {} {:>8}",
            m.name(),
            first.timings.total_ms(),
            first.timings.setup_ms,
            median(|o| o.timings.total_ms()),
            median(|o| o.timings.setup_ms),
            compiled,
            again,
            if ok { "ok" } else { "FAILED" }
        );
    }
    println!("shaders: compiled by the first product + by the five after it (0 = all cached)");
    Ok(())
}
