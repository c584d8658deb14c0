//! Precision modes of the Hall–Carr–Hart methods: the 8-bit pipeline of each method
//! against its own CPU model, saturation, `--scale-by-depth`, f16 within the bound derived for
//! blocked accumulation, and the errors.
//!
//! The f16 bound (check::f16_bound_blocked): with T passes and at most t products summed in
//! f32 registers per fragment per pass,
//!   |C − C_ref| ≤ γ·Σ_p |a_ip||b_pj| + (T + 1 + Σ_p (|a_ip| + |b_pj|))·2⁻²⁴,
//!   γ = θ/(1 − θ), θ = (T + 3)·2⁻¹¹ + t·2⁻²⁴,
//! T = ⌈k/b⌉, t = min(b, k) for hall-blocked; T = ⌈⌈k/2⌉/b⌉, t = 2·min(b, ⌈k/2⌉) for hall-packed.

mod common;
use common::{SHAPES, ctx};
use rendermm::check::judge;
use rendermm::methods::{Accumulate, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::{self, Pipeline, Precision, u8_model, u8_model_blocked, u8_model_packed};
use rendermm::{Error, Matrix};

const HALL: [Method; 2] = [Method::HallBlocked, Method::HallPacked];

/// The shapes of the brief: 1×1, 7×13·13×5, 33×65·65×17, 65×100·100×37.
const SHAPES_U8: [(usize, usize, usize); 4] = [(1, 1, 1), (7, 13, 5), (33, 65, 17), (65, 100, 37)];

fn opts(precision: Precision, block: u32, accumulate: Accumulate, scale_by_depth: bool) -> Options {
    Options {
        precision,
        block: Some(block),
        accumulate,
        scale_by_depth,
        ..Default::default()
    }
}

/// Run `method` and return the product and the run's outcome (the precision it used, what the
/// judge holds it to).
fn run(method: Method, a: &Matrix, b: &Matrix, o: Options) -> (Matrix, plan::Outcome) {
    let out = plan::multiply(Some(ctx()), plan::Request::new(method, a, b).options(o))
        .unwrap_or_else(|e| panic!("{method}: {e}"));
    (out.c.clone(), out)
}

fn model(method: Method, a: &Matrix, b: &Matrix, block: u32, depth: u32) -> precision::U8Model {
    match method {
        Method::HallBlocked => u8_model_blocked(a, b, block, depth),
        _ => u8_model_packed(a, b, block, depth),
    }
}

#[test]
fn u8_equals_each_methods_cpu_model_within_one_step() {
    let mut worst = 0.0f64;
    let mut saturated = 0;
    for method in HALL {
        for (i, &(m, k, n)) in SHAPES_U8.iter().enumerate() {
            for (j, block) in [1u32, 7, 32].into_iter().enumerate() {
                for (l, &acc) in Accumulate::ALL.iter().enumerate() {
                    // Small inputs (sums mostly below 1) and larger ones (sums of 0.6 on
                    // average, some saturated), alternating so every shape, b and mode meets
                    // both; most elements lie strictly between 0 and 1 in either.
                    let hi = if (i + j + l) % 2 == 0 {
                        1.0 / (k as f32).sqrt()
                    } else {
                        (1.8 / (k as f32).sqrt()).min(1.0)
                    };
                    let seed = 1000 + (i * 9 + j * 3 + l) as u64;
                    let a = Matrix::random(m, k, seed, 0.0, hi);
                    let b = Matrix::random(k, n, seed + 1, 0.0, hi);
                    let (c, o) = run(method, &a, &b, opts(Precision::U8, block, acc, false));
                    assert_eq!(o.precision(), Precision::U8);
                    let v = judge(o.arith, &a, &b, &c);
                    let label = format!("{method} {m}x{k}x{n} b={block} {acc} hi={hi}");
                    assert!(v.model_passed, "{label}: {v:?}");
                    let steps = v.u8_model_max_steps.unwrap();
                    assert!(steps <= 1.0, "{label}: {steps} steps from the model");
                    // Every value is an 8-bit step in [0, 1].
                    for &x in &c.data {
                        let s = x as f64 * 255.0;
                        assert!(
                            (0.0..=255.0).contains(&s) && (s - s.round()).abs() < 1e-4,
                            "{label}: {x} is not k/255"
                        );
                    }
                    common::assert_mostly_between_zero_and_saturation(&label, &c.data, 1.0);
                    worst = worst.max(steps);
                    saturated += v.saturated.unwrap();
                }
            }
        }
    }
    assert!(saturated > 0, "some problems must saturate");
    println!("largest GPU-model difference: {worst} steps; {saturated} saturated elements");
}

#[test]
fn u8_modes_agree_and_b1_blocked_is_larsen_mcallister() {
    // The three accumulation modes give the same bytes; hall-blocked with b = 1 is L-M's 8-bit
    // pipeline, on the GPU and in the models.
    let (a, b) = (
        Matrix::random(9, 21, 5, 0.0, 0.4),
        Matrix::random(21, 6, 6, 0.0, 0.4),
    );
    for method in HALL {
        for block in [1u32, 4] {
            let results: Vec<Matrix> = Accumulate::ALL
                .iter()
                .map(|&acc| run(method, &a, &b, opts(Precision::U8, block, acc, false)).0)
                .collect();
            assert!(
                results.windows(2).all(|w| w[0] == w[1]),
                "{method} b={block}: modes differ"
            );
        }
    }
    assert_eq!(u8_model_blocked(&a, &b, 1, 1).c, u8_model(&a, &b, 1).c);
    assert_eq!(u8_model_blocked(&a, &b, 1, 21).c, u8_model(&a, &b, 21).c);
    let lm = Options {
        precision: Precision::U8,
        ..Default::default()
    };
    let lm = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, &a, &b).options(lm.clone()),
    )
    .unwrap()
    .c;
    let (hall, _) = run(
        Method::HallBlocked,
        &a,
        &b,
        opts(Precision::U8, 1, Accumulate::Blend, false),
    );
    assert_eq!(
        hall, lm,
        "hall-blocked b=1 blend in u8 must equal L-M bit for bit"
    );
}

#[test]
fn u8_models_sum_every_product_once() {
    // With no rounding (0/1 inputs, sums below 255) every model is the exact product.
    let a = Matrix::from_fn(5, 11, |i, j| ((i + j) % 3 == 0) as u8 as f32);
    let b = Matrix::from_fn(11, 4, |i, j| ((i * j) % 2 == 0) as u8 as f32 / 255.0);
    let exact: Vec<f32> = rendermm::cpu::reference_f64(&a, &b)
        .iter()
        .map(|&x| x as f32)
        .collect();
    for block in [1u32, 2, 3, 7, 32] {
        for m in [
            u8_model_blocked(&a, &b, block, 1),
            u8_model_packed(&a, &b, block, 1),
        ] {
            for (x, y) in m.c.data.iter().zip(&exact) {
                assert!((x - y).abs() < 1e-6, "b={block}: {x} vs {y}");
            }
        }
    }
    // The packed pipeline's passes cover p = 0..k exactly once.
    for (k, block) in [(1usize, 1u32), (7, 2), (13, 32), (100, 7)] {
        let mut seen: Vec<usize> = Pipeline::Packed { block }.passes(k).concat();
        seen.sort_unstable();
        assert_eq!(seen, (0..k).collect::<Vec<_>>(), "k={k} b={block}");
        assert_eq!(
            Pipeline::Packed { block }.passes(k).len(),
            k.div_ceil(2).div_ceil(block as usize)
        );
    }
}

#[test]
fn u8_reads_exactly_one_where_the_model_saturates() {
    for method in HALL {
        for &acc in Accumulate::ALL {
            for block in [1u32, 3, 32] {
                let label = format!("{method} {acc} b={block}");
                // Every true sum is 4.5: all saturate, and read back 1.0 exactly.
                let (a, b) = (Matrix::filled(4, 9, 1.0), Matrix::filled(9, 5, 0.5));
                let md = model(method, &a, &b, block, 1);
                assert_eq!(md.saturated, 20, "{label}");
                let (c, _) = run(method, &a, &b, opts(Precision::U8, block, acc, false));
                assert!(c.data.iter().all(|&v| v == 1.0), "{label}: {:?}", c.data);

                // FF + 01 = FF: 1.0 plus one step stays 1.0, whether the two products meet in
                // one pass (the store clamps 256 steps) or in two (the running sum saturates).
                let a = Matrix::new(1, 2, vec![1.0, 1.0 / 255.0]).unwrap();
                let b = Matrix::new(2, 1, vec![1.0, 1.0]).unwrap();
                let md = model(method, &a, &b, block, 1);
                assert_eq!(
                    (md.c.data.to_vec(), md.saturated),
                    (vec![1.0], 1),
                    "{label}"
                );
                assert_eq!(
                    run(method, &a, &b, opts(Precision::U8, block, acc, false))
                        .0
                        .data,
                    vec![1.0],
                    "{label}"
                );

                // Mixed: even rows saturate, odd rows stay small; GPU and model agree on which.
                let a = Matrix::from_fn(6, 8, |i, _| if i % 2 == 0 { 0.9 } else { 0.05 });
                let b = Matrix::filled(8, 3, 0.5);
                let md = model(method, &a, &b, block, 1);
                assert_eq!(md.saturated, 9, "{label}");
                let (c, _) = run(method, &a, &b, opts(Precision::U8, block, acc, false));
                for (idx, (&g, &mv)) in c.data.iter().zip(&md.c.data).enumerate() {
                    assert_eq!(
                        g == 1.0,
                        mv == 1.0,
                        "{label} element {idx}: gpu {g}, model {mv}"
                    );
                    assert_eq!(g, mv, "{label} element {idx}");
                }
            }
        }
    }
}

#[test]
fn u8_scale_by_depth_removes_saturation_and_loses_the_low_bits() {
    for method in HALL {
        for &(m, k, n) in &[(7, 13, 5), (16, 64, 16), (5, 100, 3)] {
            for block in [1u32, 7, 32] {
                let label = format!("{method} {m}x{k}x{n} b={block}");
                let a = Matrix::random(m, k, 99, 0.0, 1.0);
                let b = Matrix::random(k, n, 100, 0.0, 1.0);
                assert!(
                    model(method, &a, &b, block, 1).saturated > 0,
                    "{label}: without scaling it saturates"
                );
                let (c, o) = run(
                    method,
                    &a,
                    &b,
                    opts(Precision::U8, block, Accumulate::PingPong, true),
                );
                let v = judge(o.arith, &a, &b, &c);
                assert!(v.model_passed, "{label}: {v:?}");
                assert_eq!(v.saturated, Some(0), "{label}: polygon colour 1/k");
                // The rescaled result is a multiple of k/255: the low log2(k) bits are gone.
                for &x in &c.data {
                    let steps = x as f64 * 255.0 / k as f64;
                    assert!(
                        (steps - steps.round()).abs() < 1e-3,
                        "{label}: {x} is not a multiple of {k}/255"
                    );
                }
                // Each of the T passes loses at most half a step of 1/255 before the k-fold
                // rescale, and the 8-bit inputs at most k/255 in all: fewer roundings than L-M's
                // k, so a tighter bound.
                let passes = method.pipeline(Some(block)).unwrap().pass_count(k) as f64;
                let bound = (passes * 0.5 + 1.01) * k as f64 / 255.0;
                assert!(
                    v.stats.max_abs_err <= bound,
                    "{label}: max_abs_err {} > {bound}",
                    v.stats.max_abs_err
                );
            }
        }
    }
}

#[test]
fn f16_is_within_the_bound_derived_for_blocked_accumulation() {
    let mut shapes: Vec<(usize, usize, usize)> = SHAPES.to_vec();
    shapes.extend([(33, 65, 17), (16, 256, 16)]);
    let mut worst = 0.0f64;
    for method in HALL {
        for (i, &(m, k, n)) in shapes.iter().enumerate() {
            for (j, block) in [1u32, 7, 32].into_iter().enumerate() {
                let acc = Accumulate::ALL[(i + j) % 3];
                let a = Matrix::random(m, k, 300 + i as u64, -1.0, 1.0);
                let b = Matrix::random(k, n, 400 + i as u64, -1.0, 1.0);
                let (c, o) = run(method, &a, &b, opts(Precision::F16, block, acc, false));
                assert_eq!(o.precision(), Precision::F16);
                let v = judge(o.arith, &a, &b, &c);
                assert!(
                    v.model_passed,
                    "{method} {m}x{k}x{n} b={block} {acc}: {v:?}"
                );
                worst = worst.max(v.f16_bound_ratio.unwrap());
                // The blocked bound is tighter than L-M's (one f16 store per pass, not per product).
                if block > 1 && k > 1 {
                    let pipeline = method.pipeline(Some(block)).unwrap();
                    let ours = rendermm::check::f16_pipeline_bound(pipeline, &a, &b);
                    let lm = rendermm::check::f16_bound(&a, &b);
                    assert!(
                        ours.iter().zip(&lm).all(|(x, y)| x < y),
                        "{method} {m}x{k}x{n} b={block}: bound not tighter"
                    );
                }
            }
        }
    }
    println!("largest error / bound: {worst}");
}

#[test]
fn f16_is_really_f16_not_f32() {
    // 1 + 2⁻¹² needs 13 significant bits: the f16 store rounds it to 1, in one pass or two.
    let a = Matrix::new(1, 2, vec![1.0, 1.0]).unwrap();
    let b = Matrix::new(2, 1, vec![1.0, 1.0 / 4096.0]).unwrap();
    for method in HALL {
        for block in [1u32, 2] {
            for &acc in Accumulate::ALL {
                let f16 = run(method, &a, &b, opts(Precision::F16, block, acc, false)).0;
                assert_eq!(f16.data, vec![1.0], "{method} b={block} {acc}");
                let f32 = run(method, &a, &b, opts(Precision::F32, block, acc, false)).0;
                assert_eq!(
                    f32.data,
                    vec![1.0 + 1.0 / 4096.0],
                    "{method} b={block} {acc}"
                );
            }
        }
    }
}

#[test]
fn f32_is_unchanged_and_judged_as_before() {
    let a = Matrix::random(33, 65, 1, -1.0, 1.0);
    let b = Matrix::random(65, 17, 2, -1.0, 1.0);
    for method in HALL {
        let (c, o) = run(
            method,
            &a,
            &b,
            opts(Precision::F32, 7, Accumulate::Blend, false),
        );
        assert_eq!(o.precision(), Precision::F32, "lavapipe blends f32");
        let v = judge(o.arith, &a, &b, &c);
        assert!(v.model_passed && v.stats.rel_err <= 1e-5, "{method}: {v:?}");
        // The judge's verdict on a Hall run matches L-M's on the same C.
        let lm_v = common::lm_verdict(Precision::F32, false, &a, &b, &c);
        assert_eq!(lm_v.model_passed, v.model_passed);
    }
}

#[test]
fn u8_refuses_inputs_outside_zero_one() {
    for method in HALL {
        let a = Matrix::new(1, 2, vec![0.5, -0.25]).unwrap();
        let b = Matrix::filled(2, 1, 0.5);
        let o = opts(Precision::U8, 32, Accumulate::PingPong, false);
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap_err();
        assert!(
            matches!(err, Error::OutOfRange { row: 0, col: 1, .. }),
            "{method}: {err}"
        );
        assert!(err.to_string().contains("--normalize"), "{method}: {err}");

        let b = Matrix::new(2, 1, vec![0.5, 1.5]).unwrap();
        let a = Matrix::filled(1, 2, 0.5);
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap_err();
        assert!(
            matches!(&err, Error::OutOfRange { name, row: 1, col: 0, .. } if name == "B"),
            "{method}: {err}"
        );
    }
}

#[test]
fn scale_by_depth_outside_u8_and_precision_for_f32_only_methods_are_errors() {
    let (a, b) = (Matrix::filled(2, 3, 0.5), Matrix::filled(3, 2, 0.5));
    for method in HALL {
        let o = opts(Precision::F16, 32, Accumulate::PingPong, true);
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("--scale-by-depth applies to --precision u8"),
            "{method}: {err}"
        );
    }
    let o = Options {
        precision: Precision::U8,
        ..Default::default()
    };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::CsNaive, &a, &b).options(o.clone()),
    )
    .unwrap_err();
    assert!(err.to_string().contains("f32 only"), "{err}");
    assert!(Method::HallBlocked.takes_precision() && Method::HallPacked.takes_precision());
}

#[test]
fn cli_hall_packed_u8_check_passes() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args([
            "multiply",
            "--method",
            "hall-packed",
            "--random",
            "33x65x17",
            "--b",
            "7",
            "--precision",
            "u8",
            "--check",
            "--json",
        ])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["precision"], "u8");
    assert_eq!(v["check_passed"], true, "{v}");
    assert_eq!(
        v["checks"][0]["u8_model_max_steps"]
            .as_f64()
            .map(|s| s <= 1.0),
        Some(true),
        "{v}"
    );
    assert!(v["saturated"].as_u64().is_some(), "{v}");
    // The random u8 inputs keep most sums below the 8-bit ceiling, so the model is checked on
    // unsaturated values: a method returning all ones would fail here.
    let share = v["saturated_share"].as_f64().unwrap();
    assert!(
        share < 0.5,
        "{share} of C saturated: the check tests too little; {v}"
    );
}

#[test]
fn f32_blend_without_float32_blendable_falls_back_to_f16_and_says_so() {
    // A context that believes it cannot blend f32 (lavapipe can; the mask plays an adapter that
    // cannot: neither the FLOAT32_BLENDABLE feature nor adapter-specific format features, so
    // only WebGPU's guaranteed features count). Ping-pong needs no blending and stays f32;
    // blend falls back to f16, records it in the outcome, notes it, and the verdict
    // judges it as f16.
    let mut no_blend = rendermm::gpu::GpuContext::new().unwrap();
    no_blend.features.remove(wgpu::Features::FLOAT32_BLENDABLE);
    no_blend
        .features
        .remove(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES);
    let a = Matrix::random(9, 40, 3, -1.0, 1.0);
    let b = Matrix::random(40, 7, 4, -1.0, 1.0);
    for method in HALL {
        let o = opts(Precision::F32, 8, Accumulate::PingPong, false);
        let out = plan::multiply(
            Some(&no_blend),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap();
        assert_eq!(out.precision(), Precision::F32, "{method} ping-pong");
        assert!(out.verdict(&a, &b).stats.rel_err <= 1e-5);

        let o = opts(Precision::F32, 8, Accumulate::Blend, false);
        let out = plan::multiply(
            Some(&no_blend),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap();
        assert_eq!(out.precision(), Precision::F16, "{method} blend");
        assert!(
            out.notes
                .iter()
                .any(|n| n.contains("FLOAT32_BLENDABLE") && n.contains("f16")),
            "{method}: {:?}",
            out.notes
        );
        let v = out.verdict(&a, &b);
        assert!(
            v.model_passed && v.f16_bound_ratio.is_some(),
            "{method}: {v:?}"
        );
        assert!(v.stats.rel_err > 1e-6, "{method}: an f16 result, not f32");
    }
}
