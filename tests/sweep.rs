//! A randomized sweep of every method against the f64 CPU reference (docs/reliability.md).
//!
//! Each problem is drawn from its own seed: the method (`Method::ALL[seed % len]`), the shape
//! (each dimension 1..=300, with tiny, edge-of-a-power-of-two and lopsided dimensions favoured),
//! the input range, and, where the method takes them, the precision (u8 / f16 / f32), the Hall /
//! frag-mrt block size b, the accumulation mode and `--scale-by-depth`. Every result is judged by
//! [`plan::Outcome::verdict`], the same judge as `multiply --check`: f32 within the method's
//! tolerance, f16 within its derived bound, u8 within one 8-bit step of its CPU model.
//!
//! - `cargo test --test sweep`: the CI slice, two problems per method of `Method::ALL`, and one
//!   long-k problem per method.
//! - `RENDERMM_SWEEP_FULL=1 cargo test --release --test sweep -- --nocapture`: the full sweep,
//!   600 problems (`RENDERMM_SWEEP_PROBLEMS=N` for another count, `RENDERMM_SWEEP_BASE=B` for
//!   another set of seeds).
//! - `RENDERMM_SWEEP_SEED=S cargo test --test sweep -- --nocapture`: replay one problem, as
//!   printed beside any failure.
//!
//! **Long k.** Some drivers stop a shader invocation's loops after a fixed number of iterations
//! (Mesa's lavapipe and llvmpipe: 65 535), which the plan splits k to stay under. The long-k
//! problems ([`long_k_problem`], seeds from [`LONG_K_SEEDS`] on) draw k past that, 65 536..=
//! 140 000 or 58 256 (5kk73-4 used to stop at 58 255, cs-naive at 65 535), m and n in 1..=4 to stay
//! cheap, in f32 (u8 sums saturate and f16 sums leave f16's range at such depths), half of them
//! on integer-valued inputs whose sums are exact however k is split, half on inputs in [0, 1)
//! whose f32 sums the split groups differently, held to the same f32 verdict.
//!
//! A method that refuses a problem with a typed "cannot on this adapter" error
//! ([`Error::MissingFeature`], [`Error::Limit`]), or an f16 run whose result leaves f16's range
//! ([`Error::OutOfRange`]: it would have saturated), is counted and listed, not failed; any
//! other error, a panic, or a result outside its bound fails the sweep.

mod common;

use common::ctx;
use rand::{Rng, SeedableRng, rngs::StdRng};
use rendermm::methods::{Accumulate, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::Precision;
use rendermm::{Error, Matrix};
use std::collections::BTreeMap;
use std::time::Instant;

/// Problems per method in the CI slice (the slice is this times `Method::ALL.len()`).
const CI_PER_METHOD: u64 = 2;
/// Problems in the full sweep.
const FULL_PROBLEMS: u64 = 600;
/// The default seed base: problem i has seed `BASE * 1_000_000 + i`.
const DEFAULT_BASE: u64 = 2026;
/// Seeds from here on draw long-k problems ([`long_k_problem`]); long-k problem i of the sweep
/// has seed `LONG_K_SEEDS + i`.
const LONG_K_SEEDS: u64 = 1 << 60;
/// Long-k problems in the full sweep (the CI slice: one per method).
const FULL_LONG_K_PROBLEMS: u64 = 96;

/// One drawn problem.
#[derive(Clone, Debug)]
struct Problem {
    seed: u64,
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    precision: Precision,
    block: Option<u32>,
    accumulate: Accumulate,
    scale_by_depth: bool,
    lo: f32,
    hi: f32,
    /// Inputs rounded down to whole numbers (sums exact in f32 up to 2²⁴).
    integers: bool,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "seed {} {} {}x{}x{} {} {}inputs in [{}, {})",
            self.seed,
            self.method,
            self.m,
            self.k,
            self.n,
            self.precision,
            if self.integers { "integer " } else { "" },
            self.lo,
            self.hi
        )?;
        if takes_blocks(self.method) {
            let b = self.block.map_or("default".to_string(), |b| b.to_string());
            write!(f, " b={b} accumulate={}", self.accumulate.name())?;
        }
        if self.scale_by_depth {
            write!(f, " scale-by-depth")?;
        }
        Ok(())
    }
}

/// The methods with a block size b and an accumulation mode (as `multiply` allows them).
fn takes_blocks(method: Method) -> bool {
    rendermm::bench::tune::is_tunable(method)
        || matches!(method, Method::FragMrt | Method::FragMrtF16)
}

/// A dimension in 1..=300: tiny, on either side of a power of two, or anywhere.
fn dim(rng: &mut StdRng) -> usize {
    const EDGES: &[usize] = &[
        1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
        299, 300,
    ];
    match rng.random_range(0..10) {
        0..=1 => rng.random_range(1..=8),
        2..=4 => EDGES[rng.random_range(0..EDGES.len())],
        _ => rng.random_range(1..=300),
    }
}

/// The problem of seed `seed`: everything follows from it.
fn problem(seed: u64) -> Problem {
    let method = Method::ALL[(seed % Method::ALL.len() as u64) as usize];
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut m, mut k, mut n) = (dim(&mut rng), dim(&mut rng), dim(&mut rng));
    // A quarter of the problems are lopsided on purpose: one dimension tiny, another large.
    if rng.random_range(0..4) == 0 {
        let tiny = rng.random_range(1..=3);
        let large = rng.random_range(200..=300);
        match rng.random_range(0..6) {
            0 => (m, k) = (tiny, large),
            1 => (m, n) = (tiny, large),
            2 => (k, m) = (tiny, large),
            3 => (k, n) = (tiny, large),
            4 => (n, m) = (tiny, large),
            _ => (n, k) = (tiny, large),
        }
    }
    let precision = if method.takes_precision() {
        let taken: Vec<Precision> = [Precision::F32, Precision::F16, Precision::U8]
            .into_iter()
            .filter(|&p| method.takes(p))
            .collect();
        taken[rng.random_range(0..taken.len())]
    } else {
        Precision::F32
    };
    let (block, accumulate) = if takes_blocks(method) {
        const BLOCKS: &[u32] = &[1, 2, 3, 4, 7, 8, 16, 31, 32, 33, 64, 100, 301];
        let block = match rng.random_range(0..4) {
            0 => None,
            _ => Some(BLOCKS[rng.random_range(0..BLOCKS.len())]),
        };
        // frag-mrt accumulates by ping-pong or blend only.
        let modes: &[Accumulate] = if matches!(method, Method::FragMrt | Method::FragMrtF16) {
            &[Accumulate::PingPong, Accumulate::Blend]
        } else {
            Accumulate::ALL
        };
        (block, modes[rng.random_range(0..modes.len())])
    } else {
        (None, Accumulate::default())
    };
    let scale_by_depth = precision == Precision::U8 && rng.random_range(0..3) == 0;
    let (lo, hi) = if precision == Precision::U8 {
        // Inputs in [0, hi) with k·hi²/4, the mean of a sum, drawn between 0.25 and 1: some
        // sums saturate and most do not, so the 8-bit model is checked on unsaturated values
        // too (inputs in [0, 1) would saturate every element from k ≈ 6 on, and a method
        // returning all ones would pass).
        let mean = [0.25, 0.5, 1.0][rng.random_range(0..3)];
        (0.0, (4.0 * mean / k as f32).sqrt().min(1.0))
    } else {
        [
            (-1.0, 1.0),
            (0.0, 1.0),
            (-10.0, 10.0),
            (-100.0, 100.0),
            (-1e-3, 1e-3),
        ][rng.random_range(0..5)]
    };
    Problem {
        seed,
        method,
        m,
        k,
        n,
        precision,
        block,
        accumulate,
        scale_by_depth,
        lo,
        hi,
        integers: false,
    }
}

/// The long-k problem of seed `seed` (from [`LONG_K_SEEDS`] on): the method as for any seed,
/// k in 65 536..=140 000 or just past where a method used to stop (58 256 for 5kk73-4), m and n in
/// 1..=4, f32, the default block and accumulation; integer inputs in [-4, 4) for even seeds,
/// inputs in [0, 1) for odd ones.
fn long_k_problem(seed: u64) -> Problem {
    const PAST: &[usize] = &[65_536, 65_537, 131_071, 131_073];
    let method = Method::ALL[(seed % Method::ALL.len() as u64) as usize];
    let mut rng = StdRng::seed_from_u64(seed);
    let k = match rng.random_range(0..3) {
        0 if method == Method::Kk73OuterProduct => 58_256,
        0 | 1 => PAST[rng.random_range(0..PAST.len())],
        _ => rng.random_range(65_536..=140_000),
    };
    let integers = seed % 2 == 0;
    let (lo, hi) = if integers { (-4.0, 4.0) } else { (0.0, 1.0) };
    Problem {
        seed,
        method,
        m: rng.random_range(1..=4),
        k,
        n: rng.random_range(1..=4),
        precision: Precision::F32,
        block: None,
        accumulate: Accumulate::default(),
        scale_by_depth: false,
        lo,
        hi,
        integers,
    }
}

/// The problem of any seed: long k from [`LONG_K_SEEDS`] on.
fn draw(seed: u64) -> Problem {
    if seed >= LONG_K_SEEDS {
        long_k_problem(seed)
    } else {
        problem(seed)
    }
}

/// How one problem ended.
enum Outcome {
    Passed,
    /// A typed refusal: the method cannot take this problem on this adapter.
    Refused(String),
    Failed(String),
}

fn run(p: &Problem) -> Outcome {
    let mut a = Matrix::random(p.m, p.k, p.seed.wrapping_mul(2), p.lo, p.hi);
    let mut b = Matrix::random(p.k, p.n, p.seed.wrapping_mul(2) + 1, p.lo, p.hi);
    if p.integers {
        for v in a.data.iter_mut().chain(b.data.iter_mut()) {
            *v = v.floor();
        }
    }
    let opts = Options {
        precision: p.precision,
        block: p.block,
        accumulate: p.accumulate,
        scale_by_depth: p.scale_by_depth,
        ..Default::default()
    };
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        plan::multiply(
            Some(ctx()),
            plan::Request::new(p.method, &a, &b).options(opts.clone()),
        )
    }));
    let out = match ran {
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            return Outcome::Failed(format!("panicked: {msg}"));
        }
        // The adapter lacks what the method needs (a feature, a format capability): a
        // refusal. A limit is not: products past the adapter's limits are tiled, so a method
        // the adapter supports that refuses one has failed.
        Ok(Err(e @ (Error::MissingFeature { .. } | Error::FormatCapability { .. }))) => {
            return Outcome::Refused(e.to_string());
        }
        // An f16 result past f16's range is refused, not returned (it would saturate).
        Ok(Err(e @ Error::OutOfRange { .. })) if opts.precision == Precision::F16 => {
            return Outcome::Refused(e.to_string());
        }
        Ok(Err(e)) => return Outcome::Failed(format!("error: {e}")),
        Ok(Ok(out)) => out,
    };
    if out.c.shape() != (p.m, p.n) {
        return Outcome::Failed(format!(
            "result is {}x{}, expected {}x{}",
            out.c.rows, out.c.cols, p.m, p.n
        ));
    }
    // The outcome holds what ran (the render-pass methods fall back to f16 where f32 cannot be
    // blended); the verdict holds the result to that precision's bound.
    let v = out.verdict(&a, &b);
    if v.passed && v.saturated_share == Some(1.0) && p.m * p.n >= 64 {
        Outcome::Failed(format!(
            "every element saturated, so the 8-bit check tested nothing (inputs in [{}, {}))",
            p.lo, p.hi
        ))
    } else if v.passed {
        Outcome::Passed
    } else {
        let w = v.stats.worst_index;
        let (i, j) = (w / p.n, w % p.n);
        let reference = rendermm::cpu::reference_f64(&a, &b)[w];
        Outcome::Failed(format!(
            "outside its bound: rel_err {:e}, max_abs_err {:e}, {} non-finite, worst element ({i}, {j}) = {} against {reference}; held to: {}{}{}",
            v.stats.rel_err,
            v.stats.max_abs_err,
            v.stats.nonfinite,
            out.c.data[w],
            v.tolerance,
            v.u8_model_max_steps
                .map_or(String::new(), |s| format!("; u8 model off by {s:.3} steps")),
            v.f16_bound_ratio
                .map_or(String::new(), |r| format!("; f16 error / bound {r:.3}")),
        ))
    }
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a whole number")),
    )
}

/// Per-method tallies.
#[derive(Default)]
struct Tally {
    passed: usize,
    refused: usize,
    failed: usize,
    ms: f64,
}

/// Run the problems of `seeds`, print a summary, and fail naming every failed seed.
fn sweep(seeds: impl Iterator<Item = u64>) {
    let t0 = Instant::now();
    let mut tallies: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let mut refusals = vec![];
    let mut failures = vec![];
    let mut count = 0;
    for seed in seeds {
        let p = draw(seed);
        let t = Instant::now();
        let outcome = run(&p);
        let tally = tallies.entry(p.method.name()).or_default();
        tally.ms += t.elapsed().as_secs_f64() * 1e3;
        count += 1;
        match outcome {
            Outcome::Passed => tally.passed += 1,
            Outcome::Refused(why) => {
                tally.refused += 1;
                refusals.push(format!("{p}: {why}"));
            }
            Outcome::Failed(why) => {
                tally.failed += 1;
                eprintln!(
                    "FAILED {p}: {why}\n  replay: RENDERMM_SWEEP_SEED={seed} cargo test --test sweep -- --nocapture"
                );
                failures.push((seed, format!("{p}: {why}")));
            }
        }
    }
    println!(
        "sweep on {}: {count} problems in {:.1} s",
        ctx().describe(),
        t0.elapsed().as_secs_f64()
    );
    println!(
        "{:<24} {:>6} {:>7} {:>6} {:>9}",
        "method", "passed", "refused", "failed", "ms"
    );
    for (name, t) in &tallies {
        println!(
            "{name:<24} {:>6} {:>7} {:>6} {:>9.0}",
            t.passed, t.refused, t.failed, t.ms
        );
    }
    let passed: usize = tallies.values().map(|t| t.passed).sum();
    println!(
        "total: {passed} passed, {} refused (typed errors: not on this adapter, or past f16's range), {} failed",
        refusals.len(),
        failures.len()
    );
    for r in &refusals {
        println!("refused: {r}");
    }
    assert!(
        failures.is_empty(),
        "{} of {count} problems failed:\n{}\nreplay one with RENDERMM_SWEEP_SEED=<seed> cargo test --test sweep -- --nocapture",
        failures.len(),
        failures
            .iter()
            .map(|(s, f)| format!("  [RENDERMM_SWEEP_SEED={s}] {f}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    // A sweep (not a single replay) where every problem was refused tested nothing.
    assert!(passed > 0 || count < 5, "every problem was refused");
}

/// The CI slice; or the full sweep with `RENDERMM_SWEEP_FULL=1`; or one problem with
/// `RENDERMM_SWEEP_SEED=S`.
#[test]
fn sweep_every_method_against_the_f64_reference() {
    if let Some(seed) = env_u64("RENDERMM_SWEEP_SEED") {
        println!("replaying {}", draw(seed));
        return sweep(std::iter::once(seed));
    }
    let full = std::env::var("RENDERMM_SWEEP_FULL").is_ok_and(|v| !v.is_empty() && v != "0");
    let count = env_u64("RENDERMM_SWEEP_PROBLEMS").unwrap_or(if full {
        FULL_PROBLEMS
    } else {
        CI_PER_METHOD * Method::ALL.len() as u64
    });
    let base = env_u64("RENDERMM_SWEEP_BASE").unwrap_or(DEFAULT_BASE);
    // The method is the seed modulo the number of methods, so any run of consecutive seeds at
    // least that long covers every method; the CI slice is the first seeds of the full sweep.
    sweep((0..count).map(|i| base * 1_000_000 + i));
}

/// Long k: every method at a k past where the loops of CPU drivers stop (65 535 iterations per
/// invocation on lavapipe and llvmpipe), one problem per method in the CI slice, all of
/// [`FULL_LONG_K_PROBLEMS`] with `RENDERMM_SWEEP_FULL=1`.
#[test]
fn sweep_long_k_past_the_loop_cap_against_the_f64_reference() {
    if env_u64("RENDERMM_SWEEP_SEED").is_some() {
        return; // the replay runs in the sweep above
    }
    let full = std::env::var("RENDERMM_SWEEP_FULL").is_ok_and(|v| !v.is_empty() && v != "0");
    let count = if full {
        FULL_LONG_K_PROBLEMS
    } else {
        Method::ALL.len() as u64
    };
    sweep((0..count).map(|i| LONG_K_SEEDS + i));
}

/// The long-k draw covers every method past the loop cap, on both kinds of input.
#[test]
fn the_long_k_draw_covers_every_method_past_the_cap() {
    let ps: Vec<Problem> = (0..FULL_LONG_K_PROBLEMS)
        .map(|i| draw(LONG_K_SEEDS + i))
        .collect();
    for &m in Method::ALL {
        assert!(ps.iter().any(|p| p.method == m), "{m} never drawn");
        assert!(
            ps[..Method::ALL.len()].iter().any(|p| p.method == m),
            "{m} not in the CI slice"
        );
    }
    for p in &ps {
        assert!(
            p.k > 58_000 && (1..=4).contains(&p.m) && (1..=4).contains(&p.n),
            "{p}"
        );
        assert_eq!(p.precision, Precision::F32, "{p}");
    }
    assert!(ps.iter().filter(|p| p.k > 65_535).count() >= ps.len() / 2);
    assert!(ps.iter().any(|p| p.integers) && ps.iter().any(|p| !p.integers));
    assert_eq!(format!("{}", draw(ps[5].seed)), format!("{}", ps[5]));
}

/// The drawn problems cover what the sweep promises: every method, shapes over 1..=300 with
/// lopsided ones, and every precision, block and accumulation option the methods take.
#[test]
fn the_draw_covers_methods_shapes_and_options() {
    let ps: Vec<Problem> = (0..FULL_PROBLEMS)
        .map(|i| problem(DEFAULT_BASE * 1_000_000 + i))
        .collect();
    for &m in Method::ALL {
        assert!(
            ps.iter().filter(|p| p.method == m).count() >= 10,
            "{m} drawn too rarely"
        );
    }
    for p in &ps {
        for d in [p.m, p.k, p.n] {
            assert!((1..=300).contains(&d), "{p}");
        }
        // Options only where the method takes them (multiply refuses the rest).
        assert!(p.method.takes(p.precision), "{p}");
        assert!(
            takes_blocks(p.method) || (p.block.is_none() && p.accumulate == Accumulate::default()),
            "{p}"
        );
    }
    let lopsided = ps.iter().filter(|p| {
        let (lo, hi) = (
            [p.m, p.k, p.n].into_iter().min().unwrap(),
            [p.m, p.k, p.n].into_iter().max().unwrap(),
        );
        lo <= 3 && hi >= 200
    });
    assert!(lopsided.count() >= FULL_PROBLEMS as usize / 8);
    for prec in Precision::ALL {
        assert!(ps.iter().any(|p| p.precision == prec), "{prec} never drawn");
    }
    for acc in Accumulate::ALL {
        assert!(
            ps.iter()
                .any(|p| p.accumulate == *acc && takes_blocks(p.method)),
            "{} never drawn",
            acc.name()
        );
    }
    assert!(ps.iter().any(|p| p.scale_by_depth));
    // Replays are exact: the same seed draws the same problem.
    let again = problem(ps[17].seed);
    assert_eq!(format!("{again}"), format!("{}", ps[17]));
}
