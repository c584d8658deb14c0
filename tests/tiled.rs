//! Tiling past one texture (`src/tiled.rs`): a product larger than the adapter's
//! `max_texture_dimension_2d`, or than the memory budget, runs block by block and equals the
//! untiled run where both fit; with `--no-tile`, or a budget no tile fits, it is refused with the
//! bytes and the budget named.

mod common;

use common::{ctx, hold};
use rendermm::Error;
use rendermm::matrix::Matrix;
use rendermm::methods::{Accumulate, Method};
use rendermm::plan::Options;
use rendermm::plan::tiled;
use rendermm::plan::{self};
use rendermm::precision::Precision;

fn budget(bytes: u64) -> Options {
    Options {
        mem_budget: Some(bytes),
        ..Default::default()
    }
}

fn inputs(m: usize, k: usize, n: usize, seed: u64) -> (Matrix, Matrix) {
    (
        Matrix::random(m, k, seed, -1.0, 1.0),
        Matrix::random(k, n, seed + 1, -1.0, 1.0),
    )
}

/// Run `method` with the memory options of `base` and the given accumulation: the outcome
/// (C, how it was tiled, the arithmetic the judge holds it to).
fn run_outcome(
    method: Method,
    a: &Matrix,
    b: &Matrix,
    base: Options,
    accumulate: Accumulate,
) -> plan::Outcome {
    let opts = Options { accumulate, ..base };
    plan::multiply(Some(ctx()), plan::Request::new(method, a, b).options(opts))
        .unwrap_or_else(|e| panic!("{method}: {e}"))
}

/// [`run_outcome`]'s output and how it was tiled.
fn run(
    method: Method,
    a: &Matrix,
    b: &Matrix,
    base: Options,
    accumulate: Accumulate,
) -> (Matrix, Option<tiled::Tiling>) {
    let out = run_outcome(method, a, b, base, accumulate);
    (out.c, out.tiling)
}

/// The largest element-wise difference between two results, relative to the largest element.
fn max_rel_diff(x: &Matrix, y: &Matrix) -> f64 {
    let scale = y.data.iter().fold(0f32, |a, v| a.max(v.abs())).max(1e-30) as f64;
    x.data
        .iter()
        .zip(&y.data)
        .map(|(a, b)| (a - b).abs() as f64 / scale)
        .fold(0.0, f64::max)
}

#[test]
fn lm_with_m_past_the_texture_limit_tiles_and_passes_the_f64_check() {
    let max = ctx().limits.max_texture_dimension_2d as usize;
    let m = 20000.max(max + 1);
    let (a, b) = inputs(m, 3, 5, 11);
    let out = plan::multiply(Some(ctx()), plan::Request::new(Method::Lm, &a, &b)).unwrap();
    hold(&format!("lm {m}x3x5 tiled"), out.arith, &a, &b, &out.c);
    let t = out
        .tiling
        .clone()
        .expect("m past the texture limit must tile");
    assert!(t.blocks_m >= 2 && t.tile_m <= max, "{t:?}");
    assert_eq!((t.blocks_n, t.chunks_k, t.accumulate), (1, 1, "none"));
    assert!(
        t.reasons[0].contains("max_texture_dimension_2d"),
        "{:?}",
        t.reasons
    );
    assert!(
        out.notes.iter().any(|n| n.starts_with("tiled (")),
        "{:?}",
        out.notes
    );
}

#[test]
fn tiled_equals_untiled_bit_for_bit_when_only_m_and_n_are_split() {
    // k small, so the budget halves m and n and leaves k whole: every element is summed exactly
    // as in the untiled run, whatever the method.
    let (a, b) = inputs(120, 16, 90, 3);
    let methods = [
        Method::Lm,
        Method::HallBlocked,
        Method::HallPacked,
        Method::CsTiled16,
        Method::Kk73Unrolled,
        Method::DnsTiled,
    ];
    for method in methods {
        let (whole, none) = run(method, &a, &b, Options::default(), Accumulate::default());
        assert!(none.is_none(), "{method}: the untiled run tiled");
        let (tiled, plan) = run(method, &a, &b, budget(48 << 10), Accumulate::default());
        let t = plan.unwrap_or_else(|| panic!("{method}: a 48 KiB budget must tile 120x16x90"));
        assert!(
            t.blocks_m * t.blocks_n > 1 && t.chunks_k == 1,
            "{method}: {t:?}"
        );
        assert!(t.tile_bytes <= 48 << 10, "{method}: {t:?}");
        assert_eq!(tiled, whole, "{method}: tiled {t:?} differs from untiled");
    }
    // frag-mrt's quad sharing orders each pair of k steps by its tile's parity, so moving a
    // block's origin may round differently: equal to rounding only.
    let (whole, _) = run(
        Method::FragMrt,
        &a,
        &b,
        Options::default(),
        Accumulate::default(),
    );
    let (tiled, plan) = run(
        Method::FragMrt,
        &a,
        &b,
        budget(48 << 10),
        Accumulate::default(),
    );
    assert!(plan.unwrap().chunks_k == 1);
    let d = max_rel_diff(&tiled, &whole);
    assert!(
        d < 1e-6,
        "frag-mrt: tiled and untiled differ by {d:e} relative"
    );
}

#[test]
fn lm_and_hall_blocked_split_along_k_still_equal_untiled_bit_for_bit() {
    // k the largest side: the budget splits k, and the chunks are summed on the GPU — by the
    // blend unit (lm) or by passes starting from the previous chunk's sum (hall-blocked, whole
    // blocks of b) — in the order of one untiled run.
    let (a, b) = inputs(24, 300, 20, 5);
    for (method, acc) in [
        (Method::Lm, Accumulate::PingPong),
        (Method::HallBlocked, Accumulate::PingPong),
        (Method::HallBlocked, Accumulate::Blend),
        (Method::HallBlocked, Accumulate::Copy),
    ] {
        let (whole, _) = run(method, &a, &b, Options::default(), acc);
        let (tiled, plan) = run(method, &a, &b, budget(24 << 10), acc);
        let t = plan.unwrap();
        assert!(t.chunks_k > 1, "{method} {acc}: {t:?}");
        let expect = if method == Method::Lm {
            "gpu-blend"
        } else {
            "gpu-passes"
        };
        assert_eq!(t.accumulate, expect);
        if method == Method::HallBlocked {
            assert_eq!(t.tile_k % 32, 0, "k chunks are whole blocks of b: {t:?}");
        }
        assert_eq!(tiled, whole, "{method} {acc}: {t:?}");
    }
}

#[test]
fn other_methods_split_along_k_agree_with_untiled_and_the_reference() {
    let (a, b) = inputs(24, 300, 20, 7);
    for (method, how) in [
        (Method::HallPacked, "gpu-passes"),
        (Method::CsNaive, "gpu-add"),
        (Method::Kk73Prefetch, "gpu-add"),
        (Method::CannonTiled, "gpu-add"),
        (Method::FragMrt, "host-f64"),
    ] {
        // Both held by the judge to the f64 reference: each element of each within the f32
        // bound of its |A||B|, so the two agree to within twice that bound.
        let whole = run_outcome(method, &a, &b, Options::default(), Accumulate::default());
        hold(&format!("{method} untiled"), whole.arith, &a, &b, &whole.c);
        let tiled = run_outcome(method, &a, &b, budget(24 << 10), Accumulate::default());
        let t = tiled.tiling.as_ref().unwrap();
        assert!(t.chunks_k > 1 && t.accumulate == how, "{method}: {t:?}");
        hold(&format!("{method} tiled"), tiled.arith, &a, &b, &tiled.c);
    }
}

#[test]
fn lm_u8_split_along_k_saturates_exactly_as_untiled() {
    // Products of a few steps, row i's sums about 0.5 + 0.05·i: the last rows saturate, most
    // elements stay strictly between 0 and 1, so the comparison checks values, not only the
    // ceiling.
    let a = Matrix::random(16, 200, 1, 0.0, 0.01);
    let a = Matrix::from_fn(16, 200, |i, p| a.get(i, p) * (1.0 + 0.1 * i as f32));
    let b = Matrix::random(200, 12, 2, 0.0, 1.0);
    let run_u8 = |base: Options| {
        let opts = Options {
            precision: Precision::U8,
            ..base
        };
        let out = plan::multiply(
            Some(ctx()),
            plan::Request::new(Method::Lm, &a, &b).options(opts),
        )
        .unwrap();
        let verdict = out.verdict(&a, &b);
        (out.c, out.tiling, verdict)
    };
    let (whole, _, _) = run_u8(Options::default());
    let (tiled, plan, verdict) = run_u8(budget(4 << 10));
    assert!(plan.unwrap().chunks_k > 1);
    assert_eq!(tiled, whole);
    assert!(verdict.model_passed, "{verdict:?}");
    assert!(
        verdict.saturated.unwrap() > 0,
        "nothing saturated: {verdict:?}"
    );
    common::assert_mostly_between_zero_and_saturation("lm u8 split along k", &whole.data, 1.0);
}

#[test]
fn over_the_budget_with_no_tile_is_refused_naming_bytes_and_budget() {
    let (a, b) = inputs(64, 64, 64, 9);
    let opts = Options {
        mem_budget: Some(16 << 10),
        no_tile: true,
        ..Default::default()
    };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::HallBlocked, &a, &b).options(opts.clone()),
    )
    .unwrap_err();
    let Error::Budget {
        needed,
        budget: limit,
        ..
    } = &err
    else {
        panic!("expected a budget error, got {err}");
    };
    // A, B, C, F: four 64x64 R32Float textures, and the readback.
    assert_eq!(*needed, 4 * 64 * 64 * 4 + 256 * 64);
    assert_eq!(*limit, 16 << 10);
    let msg = err.to_string();
    for part in [
        "hall-blocked on 64x64x64",
        "81920 bytes",
        "16384 bytes",
        "--no-tile",
        "--mem-budget",
    ] {
        assert!(msg.contains(part), "'{part}' missing from: {msg}");
    }
    // Without --no-tile the same budget tiles, and the estimate agrees with the error's.
    let fp = tiled::footprint(ctx(), Method::HallBlocked, &Options::default(), 64, 64, 64);
    assert_eq!(fp.total(), *needed);
    let out = run_outcome(
        Method::HallBlocked,
        &a,
        &b,
        budget(16 << 10),
        Accumulate::default(),
    );
    assert!(out.tiling.unwrap().tile_bytes <= 16 << 10);
    hold("hall-blocked in 16 KiB", out.arith, &a, &b, &out.c);
}

#[test]
fn a_budget_no_tile_fits_and_a_texture_limit_with_no_tile_are_clear_errors() {
    let (a, b) = inputs(32, 32, 32, 13);
    let opts = Options { ..budget(100) };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, &a, &b).options(opts.clone()),
    )
    .unwrap_err();
    assert!(matches!(err, Error::Budget { .. }), "{err}");
    assert!(err.to_string().contains("no tile fits"), "{err}");

    let max = ctx().limits.max_texture_dimension_2d as usize;
    let (a, b) = inputs(max + 1, 1, 2, 1);
    let opts = Options {
        no_tile: true,
        ..Default::default()
    };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, &a, &b).options(opts.clone()),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("max_texture_dimension_2d") && msg.contains("--no-tile"),
        "{msg}"
    );
}

#[test]
fn cli_reports_the_tiling_in_json_and_refuses_with_no_tile() {
    let exe = env!("CARGO_BIN_EXE_rendermm");
    let out = std::process::Command::new(exe)
        .args([
            "multiply",
            "--method",
            "lm",
            "--random",
            "20000x3x5",
            "--check",
            "--json",
        ])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["check_passed"], true);
    assert_eq!(v["m"], 20000);
    assert!(v["tiling"]["blocks_m"].as_u64().unwrap() >= 2, "{v}");
    assert!(v["tiling"]["budget_bytes"].as_u64().unwrap() > 0);

    let out = std::process::Command::new(exe)
        .args([
            "multiply",
            "--method",
            "cs-naive",
            "--random",
            "64x64x64",
            "--mem-budget",
            "8KiB",
            "--no-tile",
        ])
        .env("XDG_RUNTIME_DIR", "/tmp")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("over the memory budget of 8192 bytes") && err.contains("--no-tile"),
        "{err}"
    );
}

/// The tiled driver runs u8 only at the default widths: the paper's wider widths
/// (`--u8-product-bits`, `--u8-sum-bits`) are refused by name rather than run at 8 and 8.
#[test]
fn tiled_u8_at_the_papers_widths_is_refused_not_run_at_eight_bits() {
    let a = Matrix::random(64, 128, 5, 0.0, 0.1);
    let b = Matrix::random(128, 64, 6, 0.0, 0.1);
    for method in [Method::Lm, Method::HallBlocked, Method::HallPacked] {
        let opts = Options {
            precision: Precision::U8,
            u8_bits: rendermm::precision::U8Bits::GEFORCE3,
            ..budget(16 << 10)
        };
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(opts.clone()),
        )
        .unwrap_err();
        assert!(
            matches!(err, Error::Unsupported { .. }) && err.to_string().contains("u8 widths"),
            "{method}: {err}"
        );
    }
}

/// The tiler asks the method that runs the tiles for its way of summing a block's chunks of k
/// on the GPU (`Method::chunks`): every method whose split k the plan sums on the GPU has one,
/// and a method the plan sums on the host has none.
#[test]
fn the_tiler_asks_the_method_for_its_chunks() {
    let (m, k, n) = (24, 300, 20);
    let mut asked = 0;
    for &method in Method::ALL {
        if !method.is_gpu() || method.is_host_api() {
            continue;
        }
        let Ok(Some(t)) = tiled::plan(ctx(), method, m, k, n, &budget(24 << 10), false) else {
            continue;
        };
        if t.chunks_k < 2 {
            continue;
        }
        let runs = Method::parse(&t.ran_as).unwrap();
        assert_eq!(
            runs.chunks(&ctx().limits).is_some(),
            t.accumulate != "host-f64",
            "{method} (tiles by {runs}): {t:?}"
        );
        asked += 1;
    }
    assert!(asked >= 5, "only {asked} methods split k");
}
