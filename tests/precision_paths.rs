//! The widths of L-M §4's 8-bit pipeline (`--u8-product-bits 8|14|16`, `--u8-sum-bits 8|16`):
//! every combination, through every method that takes u8 (lm, hall-blocked, hall-packed), equals
//! its bit-exact CPU model (`precision::u8_model_bits`) on awkward shapes, on unsaturated inputs
//! (a test whose every element saturates would check nothing) and on saturating ones; the
//! paper's own examples (1₈ * 1₈ underflows at 14 bits, not at 16; FF + 01 = FF); the CLI run of
//! the acceptance; and the refusals.

mod common;
use common::ctx;
use rendermm::methods::{Accumulate, Method};
use rendermm::plan::{self, Options};
use rendermm::precision::{Pipeline, Precision, U8Bits, u8_model, u8_model_bits, u8_model_passes};
use rendermm::{Error, Matrix};

const METHODS: [Method; 3] = [Method::Lm, Method::HallBlocked, Method::HallPacked];

/// 1×1, primes, m ≠ k ≠ n.
const SHAPES: [(usize, usize, usize); 4] = [(1, 1, 1), (7, 13, 5), (3, 17, 11), (13, 31, 7)];

fn has_norm16() -> bool {
    ctx().has(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM)
}

/// The combinations this adapter can run (the 16-bit sums need 16-bit normalized targets).
fn combos() -> Vec<U8Bits> {
    U8Bits::ALL
        .into_iter()
        .filter(|b| b.sum == 8 || has_norm16())
        .collect()
}

fn pipeline(method: Method, block: u32) -> Pipeline {
    match method {
        Method::Lm => Pipeline::Slices,
        Method::HallBlocked => Pipeline::Blocked { block },
        _ => Pipeline::Packed { block },
    }
}

/// Run `method` at `bits` and compare with the model exactly; returns (saturated, elements).
fn run_exact(
    method: Method,
    a: &Matrix,
    b: &Matrix,
    bits: U8Bits,
    block: u32,
    accumulate: Accumulate,
    scale_by_depth: bool,
) -> (usize, usize) {
    let o = Options {
        precision: Precision::U8,
        u8_bits: bits,
        block: (method != Method::Lm).then_some(block),
        accumulate,
        scale_by_depth,
        ..Default::default()
    };
    let label = format!(
        "{method} {}x{}x{} {} b={block} {accumulate} scale_by_depth={scale_by_depth}",
        a.rows,
        a.cols,
        b.cols,
        bits.name()
    );
    let out = plan::multiply(
        Some(ctx()),
        plan::Request::new(method, a, b).options(o.clone()),
    )
    .unwrap_or_else(|e| panic!("{label}: {e}"));
    let depth = if scale_by_depth { a.cols as u32 } else { 1 };
    let model = pipeline(method, block).u8_model_bits(a, b, depth, bits);
    let rescale = if scale_by_depth { a.cols as f32 } else { 1.0 };
    for (idx, (&x, &mv)) in out.c.data.iter().zip(&model.c.data).enumerate() {
        assert_eq!(
            x,
            mv * rescale,
            "{label}: element ({}, {}) differs from the model",
            idx / b.cols,
            idx % b.cols
        );
    }
    let v = out.verdict(a, b);
    assert!(v.model_passed, "{label}: {v:?}");
    // Zero steps; under --scale-by-depth up to the f32 rounding of the rescale by k.
    let steps = v.u8_model_max_steps.expect("a u8 verdict");
    assert!(steps <= 1e-4, "{label}: {steps} steps from the model");
    let id = v.u8_model.as_ref().expect("a u8 verdict names its model");
    assert_eq!(id.bits, bits, "{label}");
    (model.saturated, out.c.data.len())
}

#[test]
fn every_combination_and_method_equals_its_model_on_unsaturated_inputs() {
    // Inputs below 0.9/√k: every product is under 0.81/k, so no sum reaches 1.0 even with each
    // product rounded up half a step (k ≤ 31 here); and products average 0.2/k, over half an
    // 8-bit step, so the elements are not all 0 either: a real test of the rounding.
    for bits in combos() {
        for method in METHODS {
            for (s, &(m, k, n)) in SHAPES.iter().enumerate() {
                let hi = 0.9 / (k as f32).sqrt();
                let a = Matrix::random(m, k, 100 + s as u64, 0.0, hi);
                let b = Matrix::random(k, n, 200 + s as u64, 0.0, hi);
                for block in [1u32, 4] {
                    let (sat, _) =
                        run_exact(method, &a, &b, bits, block, Accumulate::PingPong, false);
                    assert_eq!(
                        sat, 0,
                        "{method} {bits:?}: inputs below 0.9/√k must not saturate"
                    );
                    let model = pipeline(method, block).u8_model_bits(&a, &b, 1, bits);
                    common::assert_mostly_between_zero_and_saturation(
                        &format!("{method} {m}x{k}x{n} {bits:?} b={block}"),
                        &model.c.data,
                        1.0,
                    );
                    if method == Method::Lm {
                        break;
                    }
                }
            }
        }
    }
}

#[test]
fn every_combination_and_method_equals_its_model_when_sums_saturate() {
    // Inputs in [0, 1): products average 1/4, so sums of k ≥ 5 mostly saturate; a share stays
    // below 1.0, and that share is asserted so the test checks values, not just the ceiling.
    for bits in combos() {
        for method in METHODS {
            let (m, k, n) = (13, 7, 11);
            let a = Matrix::random(m, k, 7, 0.0, 1.0);
            let b = Matrix::random(k, n, 8, 0.0, 1.0);
            for acc in Accumulate::ALL {
                let (sat, all) = run_exact(method, &a, &b, bits, 3, *acc, false);
                assert!(sat > 0, "{method} {bits:?} {acc}: nothing saturated");
                assert!(
                    sat < all * 9 / 10,
                    "{method} {bits:?} {acc}: {sat} of {all} saturated; too few unsaturated elements"
                );
                if method == Method::Lm {
                    break;
                }
            }
        }
    }
}

#[test]
fn scale_by_depth_at_every_width_equals_its_model() {
    for bits in combos() {
        for method in METHODS {
            let (m, k, n) = (5, 19, 3);
            let a = Matrix::random(m, k, 31, 0.0, 1.0);
            let b = Matrix::random(k, n, 32, 0.0, 1.0);
            let (sat, _) = run_exact(method, &a, &b, bits, 4, Accumulate::Blend, true);
            assert_eq!(sat, 0, "{method} {bits:?}");
        }
    }
}

#[test]
fn hall_blocked_with_b_1_and_blend_is_lm_bit_for_bit_at_every_width() {
    let a = Matrix::random(9, 23, 5, 0.0, 0.3);
    let b = Matrix::random(23, 6, 6, 0.0, 0.3);
    for bits in U8Bits::ALL {
        let lm = Pipeline::Slices.u8_model_bits(&a, &b, 1, bits);
        let hall = Pipeline::Blocked { block: 1 }.u8_model_bits(&a, &b, 1, bits);
        assert_eq!(lm.c, hall.c, "{bits:?}");
    }
}

#[test]
fn the_default_widths_are_the_8_bit_models_of_before() {
    let a = Matrix::random(11, 29, 1, 0.0, 1.0);
    let b = Matrix::random(29, 13, 2, 0.0, 1.0);
    for depth in [1, 29] {
        let passes = Pipeline::Slices.passes(29);
        let wide = u8_model_bits(&a, &b, &passes, depth, U8Bits::default());
        assert_eq!(wide.c, u8_model(&a, &b, depth).c);
        assert_eq!(wide.saturated, u8_model(&a, &b, depth).saturated);
        let passes = Pipeline::Packed { block: 5 }.passes(29);
        let wide = u8_model_bits(&a, &b, &passes, depth, U8Bits::default());
        assert_eq!(wide.c, u8_model_passes(&a, &b, &passes, depth).c);
    }
}

#[test]
fn the_papers_examples_hold_in_the_model() {
    // §4: "the GeForce2 uses 14 bits of precision at this step, so underflow errors can occur
    // here (e.g. 1₈ * 1₈ = 00₈)" — and the GeForce3's 16 bits correct it.
    assert_eq!(U8Bits::GEFORCE2.pass_steps(1, 1), 0);
    assert_eq!(U8Bits::GEFORCE3.pass_steps(1, 1), 1);
    assert_eq!(U8Bits::RENDERMM.pass_steps(1, 1), 0);
    // 8-bit values pass into a 16-bit sum exactly (65535 = 255·257).
    for q in 0..=255u64 {
        let bits = U8Bits {
            product: 8,
            sum: 16,
        };
        assert_eq!(bits.pass_steps(q * 255, 1), q * 257);
        assert_eq!(bits.output_steps(q * 257), q);
    }
    // A 16-bit sum keeps what an 8-bit sum loses: 255 products of 1/255 · 1/255 (each below
    // half an 8-bit step) add up to 1/255 at 16 bits and to 0 at 8.
    let a = Matrix::from_fn(1, 255, |_, _| 1.0 / 255.0);
    let b = Matrix::from_fn(255, 1, |_, _| 1.0 / 255.0);
    let p = Pipeline::Slices.passes(255);
    assert_eq!(
        u8_model_bits(&a, &b, &p, 1, U8Bits::GEFORCE3).c.data[0],
        1.0 / 255.0
    );
    assert_eq!(
        u8_model_bits(&a, &b, &p, 1, U8Bits::GEFORCE2).c.data[0],
        0.0
    );
    assert_eq!(
        u8_model_bits(&a, &b, &p, 1, U8Bits::RENDERMM).c.data[0],
        0.0
    );
    // FF + 01 = FF: the 16-bit sum saturates too.
    let a = Matrix::from_fn(1, 3, |_, _| 1.0);
    let b = Matrix::from_fn(3, 1, |_, _| 0.5);
    let sat = u8_model_bits(&a, &b, &Pipeline::Slices.passes(3), 1, U8Bits::GEFORCE3);
    assert_eq!((sat.c.data[0], sat.saturated), (1.0, 1));
}

#[test]
fn widths_without_u8_or_past_the_list_are_refused() {
    let a = Matrix::random(3, 4, 1, 0.0, 0.2);
    let b = Matrix::random(4, 2, 2, 0.0, 0.2);
    for method in METHODS {
        let o = Options {
            precision: Precision::F32,
            u8_bits: U8Bits::GEFORCE3,
            ..Default::default()
        };
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap_err();
        assert!(matches!(err, Error::Invalid(_)), "{method}: {err}");
        assert!(
            err.to_string().contains("--precision u8"),
            "{method}: {err}"
        );
    }
    assert!(U8Bits::new(12, 16).is_err());
    assert!(U8Bits::new(16, 14).is_err());
}

#[test]
fn without_16_bit_norm_targets_a_16_bit_sum_is_one_clear_error() {
    let mut plain = rendermm::gpu::GpuContext::new().unwrap();
    plain
        .features
        .remove(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM);
    let a = Matrix::random(3, 4, 1, 0.0, 0.2);
    let b = Matrix::random(4, 2, 2, 0.0, 0.2);
    for method in METHODS {
        let o = Options {
            precision: Precision::U8,
            u8_bits: U8Bits::GEFORCE3,
            ..Default::default()
        };
        let err = plan::multiply(
            Some(&plain),
            plan::Request::new(method, &a, &b).options(o.clone()),
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("16-bit"), "{method}: {msg}");
        assert_eq!(msg.lines().count(), 1, "{method}: {msg}");
        assert_eq!(err.kind(), rendermm::error::Kind::Usage, "{method}: {msg}");
    }
}

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap()
}

#[test]
fn cli_lm_u8_16_16_on_files_matches_its_model_exactly() {
    if !has_norm16() {
        common::skip("the adapter has no 16-bit normalized targets");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rendermm-u8-widths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (m, k, n) = (13, 29, 7);
    // Inputs in [0, 1) whose sums stay below 1: below 1/k each.
    let a = Matrix::random(m, k, 41, 0.0, 1.0 / k as f32);
    let b = Matrix::random(k, n, 42, 0.0, 1.0 / k as f32);
    let (pa, pb) = (dir.join("A.npy"), dir.join("B.npy"));
    rendermm::io::write_matrix(&pa, &a).unwrap();
    rendermm::io::write_matrix(&pb, &b).unwrap();
    let out = cli(&[
        "multiply",
        "--method",
        "lm",
        "--precision",
        "u8",
        "--u8-product-bits",
        "16",
        "--u8-sum-bits",
        "16",
        "--a",
        pa.to_str().unwrap(),
        "--b",
        pb.to_str().unwrap(),
        "--check",
        "model",
        "--json",
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["check_passed"], true, "{v}");
    assert_eq!(v["saturated"], 0, "{v}");
    let check = &v["checks"][0];
    assert_eq!(check["u8_model_max_steps"], 0.0, "{v}");
    assert_eq!(check["u8_model"]["pipeline"], "L-M", "{v}");
    assert_eq!(check["u8_model"]["product_bits"], 16, "{v}");
    assert_eq!(check["u8_model"]["sum_bits"], 16, "{v}");
    assert_eq!(check["u8_model"]["gpu"], "GeForce3, L-M §4", "{v}");
}

#[test]
fn cli_refuses_widths_without_u8_and_unknown_widths_in_one_line() {
    for args in [
        &["multiply", "--random", "3x4x5", "--u8-sum-bits", "16"][..],
        &[
            "multiply",
            "--random",
            "3x4x5",
            "--precision",
            "u8",
            "--u8-product-bits",
            "12",
        ],
        &[
            "multiply",
            "--random",
            "3x4x5",
            "--precision",
            "u8",
            "--u8-sum-bits",
            "32",
        ],
    ] {
        let out = cli(args);
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("u8"), "{args:?}: {err}");
    }
}
