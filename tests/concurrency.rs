//! One `GpuContext` shared across threads (docs/reliability.md): 8 threads × 20 multiplies of
//! mixed methods and sizes, every result checked against the f64 reference; and faults on some
//! threads (a shader that fails validation, an oversized request) that must fail those threads'
//! calls only, never another thread's — wgpu 30's error scopes are per thread, and so is the
//! context's record of errors that escape them.

mod common;

use common::ctx;
use rand::{Rng, SeedableRng, rngs::StdRng};
use rendermm::gpu::GpuContext;
use rendermm::methods::Method;
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};
use std::sync::{Arc, Barrier};

const THREADS: usize = 8;
const PER_THREAD: usize = 20;

/// The GPU methods this adapter runs (a method refused with a typed "not on this adapter"
/// error, such as `coop` without cooperative matrices, is left out).
fn gpu_methods(ctx: &GpuContext) -> Vec<Method> {
    let (a, b) = (Matrix::filled(2, 3, 0.5), Matrix::filled(3, 2, 0.25));
    Method::ALL
        .iter()
        .copied()
        .filter(|m| m.is_gpu())
        .filter(|&m| {
            !matches!(
                plan::multiply(Some(ctx), plan::Request::new(m, &a, &b)),
                Err(Error::MissingFeature { .. })
            )
        })
        .collect()
}

/// Multiply `a · b` with `method` and hold it to its verdict; the error or failure as text.
fn run_checked(ctx: &GpuContext, method: Method, a: &Matrix, b: &Matrix) -> Result<(), String> {
    let opts = Options::default();
    let out = plan::multiply(
        Some(ctx),
        plan::Request::new(method, a, b).options(opts.clone()),
    )
    .map_err(|e| format!("{method}: {e}"))?;
    let v = out.verdict(a, b);
    if v.passed {
        Ok(())
    } else {
        Err(format!(
            "{method} {}x{}x{}: rel_err {:e}, {} non-finite, held to {}",
            a.rows, a.cols, b.cols, v.stats.rel_err, v.stats.nonfinite, v.tolerance
        ))
    }
}

#[test]
fn eight_threads_share_one_context_and_every_result_is_right() {
    let ctx = ctx();
    let list = Arc::new(gpu_methods(ctx));
    assert!(list.len() >= 10, "too few GPU methods: {list:?}");
    let start = Arc::new(Barrier::new(THREADS));
    let failures: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (list, start) = (list.clone(), start.clone());
                s.spawn(move || {
                    let mut rng = StdRng::seed_from_u64(1000 + t as u64);
                    let mut failures = vec![];
                    start.wait();
                    for i in 0..PER_THREAD {
                        // Every thread walks the methods from a different place, so different
                        // methods (render and compute pipelines) run at the same moment.
                        let method = list[(t * 3 + i) % list.len()];
                        let (m, k, n) = (
                            rng.random_range(1..=96),
                            rng.random_range(1..=96),
                            rng.random_range(1..=96),
                        );
                        let a = Matrix::random(m, k, rng.random(), -1.0, 1.0);
                        let b = Matrix::random(k, n, rng.random(), -1.0, 1.0);
                        if let Err(e) = run_checked(ctx, method, &a, &b) {
                            failures.push(format!("thread {t} multiply {i}: {e}"));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a thread panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {} concurrent multiplies failed:\n{}",
        failures.len(),
        THREADS * PER_THREAD,
        failures.join("\n")
    );
    // Nothing escaped a scope on this thread either.
    ctx.check_lost().unwrap();
}

/// A WGSL module that parses but fails validation (a type error).
const BAD_SHADER: &str = "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }";

#[test]
fn a_fault_on_one_thread_fails_that_thread_only() {
    let ctx = ctx();
    let list = gpu_methods(ctx);
    let start = Barrier::new(THREADS);
    let results: Vec<(usize, Vec<String>, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (list, start) = (&list, &start);
                s.spawn(move || {
                    let mut rng = StdRng::seed_from_u64(77 + t as u64);
                    let (mut wrong, mut faults) = (vec![], vec![]);
                    start.wait();
                    for i in 0..6 {
                        if t % 2 == 0 {
                            // Even threads fault: a shader that fails validation, then a
                            // request over a limit. Each must come back as this thread's error.
                            match ctx.shader("bad.wgsl", BAD_SHADER) {
                                Err(
                                    e @ Error::Wgpu {
                                        kind: "validation", ..
                                    },
                                ) => faults.push(e.to_string()),
                                other => {
                                    wrong.push(format!("bad shader gave {:?}", other.map(|_| ())))
                                }
                            }
                            let huge = ctx.limits.max_texture_dimension_2d as usize + 1;
                            match rendermm::gpu::MatrixTexture::new(
                                ctx,
                                "huge",
                                huge,
                                1,
                                wgpu::TextureFormat::R32Float,
                                rendermm::gpu::texture::INPUT_USAGE,
                            ) {
                                Err(e @ Error::Limit { .. }) => faults.push(e.to_string()),
                                other => wrong.push(format!(
                                    "oversized texture gave {:?}",
                                    other.map(|_| ()).err()
                                )),
                            }
                        }
                        // Every thread also multiplies; no fault may leak into these.
                        let method = list[(t + i) % list.len()];
                        let (m, k, n) = (
                            rng.random_range(1..=48),
                            rng.random_range(1..=48),
                            rng.random_range(1..=48),
                        );
                        let a = Matrix::random(m, k, rng.random(), -1.0, 1.0);
                        let b = Matrix::random(k, n, rng.random(), -1.0, 1.0);
                        if let Err(e) = run_checked(ctx, method, &a, &b) {
                            wrong.push(format!("multiply {i}: {e}"));
                        }
                    }
                    (t, wrong, faults)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a thread panicked"))
            .collect()
    });
    for (t, wrong, faults) in results {
        assert!(wrong.is_empty(), "thread {t}: {wrong:?}");
        if t % 2 == 0 {
            assert_eq!(faults.len(), 12, "thread {t}: {faults:?}");
            assert!(
                faults[0].contains("compiling shader bad.wgsl"),
                "{}",
                faults[0]
            );
            assert!(
                faults[1].contains("max_texture_dimension_2d"),
                "{}",
                faults[1]
            );
        }
    }
}
