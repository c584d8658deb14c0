//! Precision modes of Larsen–McAllister: the 8-bit saturating pipeline against its CPU model,
//! f16 within its derived accumulation bound, f32 as before, and four products in RGBA at once.

mod common;
use common::{SHAPES, ctx};
use rendermm::methods::Method;
use rendermm::plan::{self, Options};
use rendermm::precision::{self, Precision, u8_model};
use rendermm::{Error, Matrix};

fn lm(a: &Matrix, b: &Matrix, precision: Precision, scale_by_depth: bool) -> Matrix {
    let opts = Options {
        precision,
        scale_by_depth,
        ..Default::default()
    };
    plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, a, b).options(opts.clone()),
    )
    .unwrap()
    .c
}

/// Inputs in [0, hi): with hi = 1/√k most sums stay below 1, with hi = 1 nearly all saturate.
fn unit_inputs(m: usize, k: usize, n: usize, hi: f32, seed: u64) -> (Matrix, Matrix) {
    (
        Matrix::random(m, k, seed, 0.0, hi),
        Matrix::random(k, n, seed + 1, 0.0, hi),
    )
}

#[test]
fn u8_equals_the_cpu_model_of_the_8_bit_pipeline_within_one_step() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        // Sums mostly below 1, and sums of 0.4 on average of which some saturate; in both most
        // elements lie strictly between 0 and 1, so the model is checked on values.
        for hi in [1.0 / (k as f32).sqrt(), (1.3 / (k as f32).sqrt()).min(1.0)] {
            let (a, b) = unit_inputs(m, k, n, hi, 7 + i as u64);
            let c = lm(&a, &b, Precision::U8, false);
            let v = common::lm_verdict(Precision::U8, false, &a, &b, &c);
            assert!(v.model_passed, "{m}x{k}x{n} hi={hi}: {v:?}");
            common::assert_mostly_between_zero_and_saturation(
                &format!("{m}x{k}x{n} hi={hi}"),
                &c.data,
                1.0,
            );
        }
    }
}

#[test]
fn u8_reads_exactly_one_where_the_model_saturates() {
    // All-ones 4×4 inputs: every true sum is 4, far above the 8-bit ceiling.
    let a = Matrix::filled(4, 9, 1.0);
    let b = Matrix::filled(9, 5, 0.5);
    let model = u8_model(&a, &b, 1);
    assert_eq!(model.saturated, 20, "the model must saturate every element");
    let c = lm(&a, &b, Precision::U8, false);
    assert!(
        c.data.iter().all(|&v| v == 1.0),
        "saturated elements must read back 1.0 exactly: {:?}",
        c.data
    );

    // Mixed: half the rows saturate, half stay small; the GPU saturates exactly where the model does.
    let a = Matrix::from_fn(6, 8, |i, _| if i % 2 == 0 { 0.9 } else { 0.05 });
    let b = Matrix::filled(8, 3, 0.5);
    let model = u8_model(&a, &b, 1);
    let c = lm(&a, &b, Precision::U8, false);
    for (idx, (&g, &mv)) in c.data.iter().zip(&model.c.data).enumerate() {
        assert_eq!(g == 1.0, mv == 1.0, "element {idx}: gpu {g}, model {mv}");
    }
    assert_eq!(model.saturated, 9);
}

#[test]
fn u8_model_saturates_like_the_geforce_ff_plus_01_is_ff() {
    let a = Matrix::new(1, 2, vec![1.0, 1.0 / 255.0]).unwrap();
    let b = Matrix::new(2, 1, vec![1.0, 1.0]).unwrap();
    let model = u8_model(&a, &b, 1);
    assert_eq!(model.c.data, vec![1.0]);
    assert_eq!(model.saturated, 1);
    let c = lm(&a, &b, Precision::U8, false);
    assert_eq!(c.data, vec![1.0]);
}

#[test]
fn u8_scale_by_depth_removes_saturation_and_loses_the_low_bits() {
    for &(m, k, n) in &[(7, 13, 5), (16, 64, 16), (5, 100, 3)] {
        let (a, b) = unit_inputs(m, k, n, 1.0, 99);
        assert!(
            u8_model(&a, &b, 1).saturated > 0,
            "without scaling this problem saturates"
        );
        let c = lm(&a, &b, Precision::U8, true);
        let v = common::lm_verdict(Precision::U8, true, &a, &b, &c);
        assert!(v.model_passed, "{m}x{k}x{n}: {v:?}");
        assert_eq!(v.saturated, Some(0), "1/k polygon colour cannot saturate");
        common::assert_mostly_between_zero_and_saturation(
            &format!("{m}x{k}x{n} scaled by depth"),
            &c.data,
            k as f32,
        );
        // The rescaled result is a multiple of k/255: the low log2(k) bits are gone, as predicted.
        for &x in &c.data {
            let steps = x as f64 * 255.0 / k as f64;
            assert!(
                (steps - steps.round()).abs() < 1e-3,
                "{x} is not a multiple of {k}/255"
            );
        }
        // And the error against f64 stays within the predicted k/2 steps per slice sum:
        // each slice loses at most half a step of 1/255 before the k-fold rescale.
        let bound = k as f64 * k as f64 * 0.5 / 255.0 + k as f64 / 255.0;
        assert!(
            v.stats.max_abs_err <= bound,
            "{m}x{k}x{n}: max_abs_err {} > {bound}",
            v.stats.max_abs_err
        );
    }
}

#[test]
fn u8_refuses_inputs_outside_zero_one() {
    let a = Matrix::new(1, 2, vec![0.5, -0.25]).unwrap();
    let b = Matrix::filled(2, 1, 0.5);
    let opts = Options {
        precision: Precision::U8,
        ..Default::default()
    };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, &a, &b).options(opts.clone()),
    )
    .unwrap_err();
    assert!(
        matches!(err, Error::OutOfRange { row: 0, col: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("--normalize"), "{err}");
    // --normalize maps it into range.
    let (na, _) = precision::normalize(&a, "A");
    assert!(na.data.iter().all(|v| (0.0..=1.0).contains(v)));
}

#[test]
fn f16_is_within_the_derived_accumulation_bound() {
    // Bound (see check::f16_bound): |C − C_ref| ≤ γ_{k+3}·Σ|a||b| + (k+3)·2⁻²⁴, u = 2⁻¹¹.
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        let a = Matrix::random(m, k, 300 + i as u64, -1.0, 1.0);
        let b = Matrix::random(k, n, 400 + i as u64, -1.0, 1.0);
        let c = lm(&a, &b, Precision::F16, false);
        let v = common::lm_verdict(Precision::F16, false, &a, &b, &c);
        assert!(v.model_passed, "{m}x{k}x{n}: {v:?}");
    }
}

#[test]
fn f16_is_really_f16_not_f32() {
    // A product needing more than 11 significant bits must come back rounded: f16 has no 1 + 2⁻¹².
    let a = Matrix::new(1, 2, vec![1.0, 1.0]).unwrap();
    let b = Matrix::new(2, 1, vec![1.0, 1.0 / 4096.0]).unwrap();
    assert_eq!(lm(&a, &b, Precision::F16, false).data, vec![1.0]);
    assert_eq!(
        lm(&a, &b, Precision::F32, false).data,
        vec![1.0 + 1.0 / 4096.0]
    );
}

#[test]
fn four_channels_multiply_four_pairs_in_one_set_of_passes() {
    let (m, k, n) = (13, 17, 7);
    for precision in Precision::ALL {
        let (lo, hi) = if precision == Precision::U8 {
            (0.0, 0.2)
        } else {
            (-1.0, 1.0)
        };
        let a: Vec<Matrix> = (0..4)
            .map(|c| Matrix::random(m, k, 10 + c, lo, hi))
            .collect();
        let b: Vec<Matrix> = (0..4)
            .map(|c| Matrix::random(k, n, 20 + c, lo, hi))
            .collect();
        let ar: Vec<&Matrix> = a.iter().collect();
        let br: Vec<&Matrix> = b.iter().collect();
        let opts = Options {
            precision,
            ..Default::default()
        };
        let pairs: Vec<(&Matrix, &Matrix)> = ar.iter().copied().zip(br.iter().copied()).collect();
        let mut req = plan::Request::new(Method::Lm, pairs[0].0, pairs[0].1).options(opts);
        req.more_channels = pairs[1..].to_vec();
        let out = plan::multiply(Some(ctx()), req).unwrap();
        assert_eq!(out.passes, k);
        assert_eq!(out.more_channels.len(), 3);
        let cs: Vec<&Matrix> = std::iter::once(&out.c).chain(&out.more_channels).collect();
        for c in 0..4 {
            let v = common::lm_verdict(precision, false, &a[c], &b[c], cs[c]);
            assert!(v.model_passed, "{precision} channel {c}: {v:?}");
            // Each channel equals the same product run alone in one channel.
            let single = lm(&a[c], &b[c], precision, false);
            let diff = single
                .data
                .iter()
                .zip(&cs[c].data)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max);
            assert!(
                diff <= 1e-6,
                "{precision} channel {c} differs from a single-channel run by {diff}"
            );
        }
    }
}

#[test]
fn four_channels_refuse_mismatched_pairs() {
    let a = [
        Matrix::zeros(2, 3),
        Matrix::zeros(2, 3),
        Matrix::zeros(2, 3),
        Matrix::zeros(3, 3),
    ];
    let b = [
        Matrix::zeros(3, 2),
        Matrix::zeros(3, 2),
        Matrix::zeros(3, 2),
        Matrix::zeros(3, 2),
    ];
    let ar: Vec<&Matrix> = a.iter().collect();
    let br: Vec<&Matrix> = b.iter().collect();
    let mut req = plan::Request::new(Method::Lm, ar[0], br[0]);
    req.more_channels = ar[1..]
        .iter()
        .copied()
        .zip(br[1..].iter().copied())
        .collect();
    let err = plan::multiply(Some(ctx()), req).unwrap_err();
    assert!(err.to_string().contains("pair 3"), "{err}");
}

#[test]
fn figure_lm_fig2_shows_a_b_the_replicated_column_and_row_the_slice_and_the_saturated_result() {
    let dir = std::env::temp_dir().join(format!("rendermm-fig2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("lm-fig2.png");
    rendermm::figures::lm_fig2(ctx(), &path).unwrap();
    let img = image::open(&path).unwrap().to_rgb8();
    // The panels, in order: A, B, column 2 of A across, row 2 of B down, slice 2, C.
    let (drawn, at) = rendermm::figures::lm_fig2_picture(ctx()).unwrap();
    assert_eq!(img.dimensions(), drawn.dimensions());
    assert_eq!(at.len(), 6);
    let (a, b) = rendermm::figures::lm_fig2_inputs();
    let p = 2;
    // A cell's grey, a few pixels inside its top-left corner (clear of frames and marks).
    let cell = |panel: usize, i: usize, j: usize| {
        let q = at[panel];
        img.get_pixel(q.x + j as u32 * q.cell + 5, q.y + i as u32 * q.cell + 5)[0]
    };
    let mut saw_saturation = false;
    for i in 0..4 {
        for j in 0..4 {
            let expect = |v: f32| if v >= 1.0 { 255 } else { 0 };
            assert_eq!(cell(0, i, j), expect(a.get(i, j)), "A ({i},{j})");
            assert_eq!(cell(1, i, j), expect(b.get(i, j)), "B ({i},{j})");
            assert_eq!(cell(2, i, j), expect(a.get(i, p)), "column ({i},{j})");
            assert_eq!(cell(3, i, j), expect(b.get(p, j)), "row ({i},{j})");
            let slice = a.get(i, p) * b.get(p, j);
            assert_eq!(cell(4, i, j), expect(slice), "slice ({i},{j})");
            let sum: f32 = (0..4).map(|q| a.get(i, q) * b.get(q, j)).sum();
            saw_saturation |= sum > 1.0;
            assert_eq!(
                cell(5, i, j),
                expect(sum.min(1.0)),
                "C ({i},{j}) true sum {sum}"
            );
        }
    }
    assert!(
        saw_saturation,
        "the figure must show sums above one saturating to white"
    );
}
