//! The judge (`rendermm::check`): every verdict says what it held the result to, and means it at
//! every k — a result short of one slice of the sum fails in f32 and f16 at k = 1024 (and at
//! small k), correct f32 results pass at k = 10⁶ on the CPU and on a GPU method, u8 verdicts say
//! both that the result equals the 8-bit pipeline's model and how far that is from the exact
//! product, and a non-finite element that equals the reference's (inf·0 = NaN) is a match.

mod common;
use common::{ctx, rendermm};
use rendermm::Matrix;
use rendermm::check::{self, Arith};
use rendermm::methods::Method;
use rendermm::plan::{self, Options};
use rendermm::precision::{self, F16Rounding, Pipeline, Precision, U8Bits, u8_model};

/// `a` with column `p` zeroed: multiplied by `b`, the product short of slice p.
fn without_slice(a: &Matrix, p: usize) -> Matrix {
    Matrix::from_fn(
        a.rows,
        a.cols,
        |i, q| if q == p { 0.0 } else { a.get(i, q) },
    )
}

/// The slice of `a · b` whose largest product is largest: the one a missing slice shows most.
fn largest_slice(a: &Matrix, b: &Matrix) -> usize {
    let big = |p: usize| {
        let ma = (0..a.rows)
            .map(|i| a.get(i, p).abs())
            .fold(0.0f32, f32::max);
        let mb = (0..b.cols)
            .map(|j| b.get(p, j).abs())
            .fold(0.0f32, f32::max);
        ma * mb
    };
    (0..a.cols)
        .max_by(|&x, &y| big(x).total_cmp(&big(y)))
        .unwrap_or(0)
}

/// `a · b` by `method` in `precision`: C, and the arithmetic the run used (what the judge
/// holds a result of this run to).
fn run(method: Method, precision: Precision, a: &Matrix, b: &Matrix) -> (Matrix, Arith) {
    let o = Options {
        precision,
        ..Default::default()
    };
    let out = plan::multiply(Some(ctx()), plan::Request::new(method, a, b).options(o))
        .unwrap_or_else(|e| panic!("{method} {precision}: {e}"));
    (out.c, out.arith)
}

#[test]
fn f32_result_short_of_one_slice_fails_at_k_1024_and_at_small_k() {
    for (k, p) in [(1024, None), (1024, Some(517)), (7, Some(3)), (1, Some(0))] {
        let a = Matrix::random(5, k, 11, -1.0, 1.0);
        let b = Matrix::random(k, 4, 12, -1.0, 1.0);
        let p = p.unwrap_or_else(|| largest_slice(&a, &b));
        let whole = rendermm::cpu::naive(&a, &b);
        let v = check::judge(Arith::F32, &a, &b, &whole);
        assert!(v.passed, "k = {k}: the correct product fails: {}", v.held);
        let short = rendermm::cpu::naive(&without_slice(&a, p), &b);
        let v = check::judge(Arith::F32, &a, &b, &short);
        assert!(
            !v.passed,
            "k = {k}: a product short of slice {p} passes: {}",
            v.held
        );
        // On a GPU method too: cs-naive given A short of the slice.
        let (c, o) = run(Method::CsNaive, Precision::F32, &without_slice(&a, p), &b);
        assert!(!check::judge(o, &a, &b, &c).passed, "cs-naive k = {k}");
    }
}

#[test]
fn f16_result_short_of_one_slice_fails_at_k_1024_for_each_render_pipeline() {
    let (m, k, n) = (4, 1024, 3);
    let a = Matrix::random(m, k, 21, -1.0, 1.0);
    let b = Matrix::random(k, n, 22, -1.0, 1.0);
    for method in [Method::Lm, Method::HallBlocked, Method::HallPacked] {
        // Held to the pipeline's model (`--check model`): the GPU's result is what its f16
        // pipeline computes, whatever its distance from the exact product, which is said.
        let (c, o) = run(method, Precision::F16, &a, &b);
        let v = check::judge(o, &a, &b, &c);
        assert!(
            v.model_passed,
            "{method}: the GPU's f16 result fails: {}",
            v.held
        );
        assert!(v.closeness.contains("the exact product"), "{}", v.closeness);
        for p in [largest_slice(&a, &b), 0, k - 1] {
            let (short, o) = run(method, Precision::F16, &without_slice(&a, p), &b);
            let v = check::judge(o, &a, &b, &short);
            assert!(
                !v.model_passed && !v.passed,
                "{method}: an f16 result short of slice {p} passes: {}",
                v.held
            );
        }
        let zero = Matrix::zeros(m, n);
        let v = check::judge(o, &a, &b, &zero);
        assert!(!v.model_passed && !v.close, "{method}: all-zero C passes");
    }
}

#[test]
fn correct_f32_results_pass_at_k_one_million() {
    let k = 1_000_000;
    let a = Matrix::random(1, k, 31, 0.0, 1.0);
    let b = Matrix::random(k, 1, 32, 0.0, 1.0);
    for method in [Method::CpuNaive, Method::CsNaive] {
        let (c, o) = run(method, Precision::F32, &a, &b);
        let v = check::judge(o, &a, &b, &c);
        assert!(
            v.passed,
            "{method} at k = 10^6: rel_err {:e}, {}",
            v.stats.rel_err, v.held
        );
        assert!(v.held.contains("k = 1000000"), "{}", v.held);
    }
    // And the command line's check of the same shape.
    let out = rendermm(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "1x1000000x1",
        "--check",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("check     ok: close to the exact product; within"),
        "{stdout}"
    );
}

#[test]
fn u8_check_says_it_equals_the_model_and_how_far_that_is_from_the_exact_product() {
    // The README's own run: 1/64 of each product is under half a step, so C is all zeros.
    let out = rendermm(&[
        "multiply",
        "--method",
        "lm",
        "--precision",
        "u8",
        "--scale-by-depth",
        "--random",
        "64x64x64",
        "--check",
        "model",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains(
            "check     ok (held to the pipeline's model): equal to the 8-bit pipeline's model (0 steps off) as the pipeline must, but 100% off the exact product"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("100% off the exact product")
            && stdout.contains("under half an 8-bit step and rounds to 0"),
        "{stdout}"
    );
    // Every element saturated: the verdict on the model's own output says why it is far off.
    let a = Matrix::random(6, 40, 41, 0.5, 1.0);
    let b = Matrix::random(40, 5, 42, 0.5, 1.0);
    let arith = Arith::U8 {
        pipeline: Pipeline::Slices,
        scale_by_depth: false,
        bits: U8Bits::default(),
    };
    let v = check::judge(arith, &a, &b, &u8_model(&a, &b, 1).c);
    assert!(v.model_passed && !v.close && !v.passed, "{}", v.held);
    let exact = v
        .exact
        .expect("a u8 verdict says how far from the exact product");
    assert!(exact.contains("every element saturated"), "{exact}");
    // Mixed: some saturated, the shares named.
    let a = Matrix::random(8, 6, 43, 0.0, 1.0);
    let b = Matrix::random(6, 8, 44, 0.0, 1.0);
    let v = check::judge(arith, &a, &b, &u8_model(&a, &b, 1).c);
    let exact = v.exact.unwrap();
    assert!(
        exact.contains("saturated") && exact.contains("off the exact product"),
        "{exact}"
    );
    // And a result off the model fails, saying by how many steps.
    let mut c = u8_model(&a, &b, 1).c;
    c.data[3] = (c.data[3] - 2.0 / 255.0).max(0.0);
    let v = check::judge(arith, &a, &b, &c);
    assert!(
        !v.model_passed && !v.passed && v.held.contains("2 steps off"),
        "{}",
        v.held
    );
}

#[test]
fn frag_mrt_f16_check_passes_an_inf_times_zero_that_matches_the_reference() {
    // A's first element infinite, B's first row zero: C's first row is inf·0 = NaN, as numpy has
    // it; the rest finite.
    let mut a = Matrix::random(3, 5, 51, -1.0, 1.0);
    a.set(0, 0, f32::INFINITY);
    let mut b = Matrix::random(5, 4, 52, -1.0, 1.0);
    (0..4).for_each(|j| b.set(0, j, 0.0));
    let o = Options {
        allow_nonfinite: true,
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::FragMrtF16, &a, &b).options(o),
    )
    .unwrap();
    let (c, o) = (out.c, out.arith);
    assert!(
        c.get(0, 0).is_nan() && c.get(1, 1).is_finite(),
        "{:?}",
        c.data
    );
    let v = check::judge(o, &a, &b, &c);
    assert!(v.passed, "{}: {:?}", v.held, v.stats);
    // A NaN where the reference is finite is still a mismatch.
    let mut bad = c.clone();
    bad.set(2, 1, f32::NAN);
    assert!(!check::judge(o, &a, &b, &bad).passed);
}

#[test]
fn f16_result_sixteen_spacings_off_its_model_fails_where_the_gpu_follows_it_within_one() {
    let (m, k, n) = (3, 700, 4);
    let a = Matrix::random(m, k, 61, -1.0, 1.0);
    let b = Matrix::random(k, n, 62, -1.0, 1.0);
    for method in [Method::Lm, Method::HallBlocked] {
        let (c, o) = run(method, Precision::F16, &a, &b);
        let v = check::judge(o, &a, &b, &c);
        // The adapter follows one of the models within a spacing (lavapipe: toward zero, to
        // the bit).
        assert!(v.f16_model_spacings.unwrap() <= 1.0, "{method}: {}", v.held);
        let pipeline = method.pipeline(None).unwrap();
        let peak = F16Rounding::ALL
            .iter()
            .map(|&r| pipeline.f16_model(&a, &b, r).peak[5])
            .fold(0.0f32, f32::max);
        let mut off = c.clone();
        off.data[5] += (16.0 * precision::f16_spacing(peak as f64)) as f32;
        let v = check::judge(o, &a, &b, &off);
        assert!(!v.passed, "{method}: 16 spacings off passes: {}", v.held);
    }
}

#[test]
fn sampled_judge_checks_u8_and_f16_as_the_full_judge_does() {
    let (m, k, n) = (40, 50, 30);
    let a = Matrix::random(m, k, 71, 0.0, 0.25);
    let b = Matrix::random(k, n, 72, 0.0, 0.25);
    let u8 = Arith::U8 {
        pipeline: Pipeline::Slices,
        scale_by_depth: false,
        bits: U8Bits::default(),
    };
    let model = u8_model(&a, &b, 1).c;
    common::assert_mostly_between_zero_and_saturation("sampled u8", &model.data, 1.0);
    assert!(sampled(u8, &a, &b, &model, 64, 1).model_passed);
    let mut off = model.clone();
    off.data
        .iter_mut()
        .for_each(|v| *v = (*v - 1.0 / 255.0).max(0.0));
    assert!(!sampled(u8, &a, &b, &off, 64, 1).model_passed);

    let a = Matrix::random(m, k, 73, -1.0, 1.0);
    let b = Matrix::random(k, n, 74, -1.0, 1.0);
    let f16 = Arith::F16(Pipeline::Slices);
    let model = precision::f16_model(&a, &b, &Pipeline::Slices.passes(k), F16Rounding::ALL[0]);
    let c = Matrix::new(m, n, model.c).unwrap();
    let v = sampled(f16, &a, &b, &c, 64, 1);
    assert!(v.model_passed && v.held.contains("sampled"), "{}", v.held);
    let v = sampled(f16, &a, &b, &Matrix::zeros(m, n), 64, 1);
    assert!(!v.model_passed && !v.close && !v.passed);
}

/// The f32 judge means the bound it states: an element off by twice its bound fails and one off
/// by half of it passes — at k = 1024 and at k = 10⁶ with signed inputs (where the smaller
/// partial-sum and statistical bounds decide) and with inputs of one sign (where the worst case
/// does, γ_(k+1)·Σ|a||b| with u = 2⁻²³, recomputed here from its definition).
#[test]
fn f32_judge_fails_a_result_twice_its_stated_bound_off_and_passes_one_half_off() {
    for (m, k, n, lo) in [
        (4, 1024, 3, -1.0),
        (1, 1_000_000, 1, -1.0),
        (4, 1024, 3, 0.0),
        (1, 100_000, 2, 0.0),
    ] {
        let a = Matrix::random(m, k, 81, lo, 1.0);
        let b = Matrix::random(k, n, 82, lo, 1.0);
        let r = check::Reference::new(&a, &b);
        let bound = check::f32_element_bounds(&a, &b, &r);
        if lo == 0.0 {
            let abs = rendermm::cpu::reference_f64(&a, &b);
            let nu = (k + 1) as f64 * 2f64.powi(-23);
            let worst = nu / (1.0 - nu) * abs[0];
            assert!(
                (bound[0] / worst - 1.0).abs() < 1e-6,
                "{m}x{k}x{n} of one sign: bound {} is not the worst case {worst}",
                bound[0]
            );
        }
        for (factor, pass) in [(2.0, false), (0.5, true)] {
            let c = Matrix::from_fn(m, n, |i, j| {
                let idx = i * n + j;
                let off = if idx == 0 { factor * bound[idx] } else { 0.0 };
                (r.c[idx] + off) as f32
            });
            let v = check::judge(Arith::F32, &a, &b, &c);
            assert_eq!(
                v.passed, pass,
                "{m}x{k}x{n} in [{lo}, 1), off by {factor} bounds: {}",
                v.held
            );
        }
    }
}

/// At k = 2·10⁵ with inputs of both signs the worst-case bound allows more than the product
/// itself, so the judge holds each element to the partial-sum and statistical bounds too:
/// correct results (the f64 product rounded once, the CPU's f32 loop, cs-naive and lm on the
/// GPU) pass, and an all-zero C and a C short of one slice fail.
#[test]
fn long_k_signed_judge_fails_an_all_zero_c_and_a_c_short_of_one_slice() {
    let (m, k, n) = (2, 200_000, 3);
    let a = Matrix::random(m, k, 91, -1.0, 1.0);
    let b = Matrix::random(k, n, 92, -1.0, 1.0);
    let r = check::Reference::new(&a, &b);
    let zero = Matrix::zeros(m, n);
    // The worst case alone would pass the all-zero C: that is what the sharper bounds are for.
    let worst = check::f32_bound(k).of_abs(&a, &b, r.abs(&a, &b));
    assert!(
        r.c.iter().zip(&worst).all(|(c, w)| c.abs() < *w),
        "the worst-case bound is not vacuous here, so this test shows nothing"
    );
    let rounded = Matrix::from_fn(m, n, |i, j| r.c[i * n + j] as f32);
    let mut correct = vec![
        ("f64 rounded", rounded),
        ("cpu naive", rendermm::cpu::naive(&a, &b)),
    ];
    for method in [Method::CsNaive, Method::Lm] {
        correct.push((method.name(), run(method, Precision::F32, &a, &b).0));
    }
    for (what, c) in &correct {
        let v = check::judge(Arith::F32, &a, &b, c);
        assert!(
            v.passed && v.close,
            "{what}: a correct result fails: {}",
            v.held
        );
    }
    let v = check::judge(Arith::F32, &a, &b, &zero);
    assert!(!v.passed && !v.close, "all-zero C passes: {}", v.held);
    assert!(
        v.closeness.contains("off the exact product"),
        "{}",
        v.closeness
    );
    let p = largest_slice(&a, &b);
    for (what, short) in [
        ("cpu", rendermm::cpu::naive(&without_slice(&a, p), &b)),
        (
            "cs-naive",
            run(Method::CsNaive, Precision::F32, &without_slice(&a, p), &b).0,
        ),
    ] {
        let v = check::judge(Arith::F32, &a, &b, &short);
        assert!(!v.passed, "{what}: C short of slice {p} passes: {}", v.held);
    }
}

/// Subnormal inputs are refused by every render-pass method, naming the element (their textures
/// and blend units flush them to 0: A = 1e-39, B = 1e38 gave C = 0 with "check ok"); a compute
/// method keeps them and its result passes; and a flushed result fails the f32 check.
#[test]
fn subnormal_inputs_are_refused_by_every_render_pass_method_and_a_flushed_c_fails() {
    let (m, k, n) = (2, 8, 3);
    // Products of 2..10 each, and the subnormal's 0.1: a flush loses a hundredth of row 1.
    let mut a = Matrix::random(m, k, 93, 2e-38, 1e-37);
    a.data[k + 5] = 1e-39; // row 1, column 5
    let b = Matrix::from_fn(k, n, |_, _| 1e38);
    let render: Vec<Method> = Method::ALL
        .iter()
        .copied()
        .filter(|m| m.is_render_pass())
        .collect();
    assert!(render.len() >= 4, "{render:?}");
    for method in render {
        let req = plan::Request::new(method, &a, &b);
        let e = plan::multiply(Some(ctx()), req)
            .err()
            .unwrap_or_else(|| panic!("{method} accepted a subnormal input"));
        let msg = e.to_string();
        assert!(
            msg.contains("A has a subnormal value 1e-39 at row 1, column 5") && !msg.contains('\n'),
            "{method}: {msg}"
        );
    }
    let (c, o) = run(Method::CsNaive, Precision::F32, &a, &b);
    assert!(check::judge(o, &a, &b, &c).passed);
    // The flush's result, row 1 short of the subnormal's product, fails.
    let mut flushed = a.clone();
    flushed.data[k + 5] = 0.0;
    let c = rendermm::cpu::naive(&flushed, &b);
    let v = check::judge(Arith::F32, &a, &b, &c);
    assert!(!v.passed, "a flushed C passes: {}", v.held);
}

/// f16 sums that stop growing: L-M in f16 with inputs of one sign at k = 20 000 is what its
/// pipeline computes (every pass rounds the running sum to f16, and once the sum's spacing is
/// more than twice the products, adding them changes nothing), and far from the exact product.
/// The default check fails it and says why; held to the model it passes, the distance said.
#[test]
fn f16_stagnation_fails_the_exact_check_and_passes_the_model_check_saying_how_far_off() {
    let (m, k, n) = (2, 20_000, 3);
    let a = Matrix::random(m, k, 95, 0.0, 1.0);
    let b = Matrix::random(k, n, 96, 0.0, 1.0);
    let (c, o) = run(Method::Lm, Precision::F16, &a, &b);
    let mut v = check::judge(o, &a, &b, &c);
    assert!(v.model_passed, "{}", v.held);
    assert!(!v.close && !v.passed, "{}", v.closeness);
    assert!(
        v.closeness.contains("off the exact product") && v.closeness.contains("stop growing"),
        "{}",
        v.closeness
    );
    assert!(
        v.headline().contains("as the pipeline must, but"),
        "{}",
        v.headline()
    );
    v.hold_to(check::Hold::Model);
    assert!(v.passed && v.held_to == check::Hold::Model);
}

/// A product that overflows f32 from finite inputs (1e20 · 1e20) is no rounding error: the
/// verdict says which element of the exact product is past f32's range and that a float32 C
/// can hold it only as an infinity, where it used to say "rel_err NaN ... infinitely far".
#[test]
fn a_product_past_f32s_range_is_said_to_overflow_naming_the_element() {
    let a = Matrix::from_fn(2, 3, |i, _| if i == 1 { 1e20 } else { 1.0 });
    let b = Matrix::from_fn(3, 2, |_, _| 1e20);
    let c = rendermm::cpu::naive(&a, &b);
    assert!(c.get(1, 0).is_infinite() && c.get(0, 0).is_finite());
    let v = check::judge(Arith::F32, &a, &b, &c);
    assert!(!v.passed && !v.close);
    assert!(
        v.closeness.contains("overflows f32")
            && v.closeness.contains("3.000e40 at row 1, column 0")
            && v.closeness.contains("2 elements"),
        "{}",
        v.closeness
    );
    assert!(
        v.headline().starts_with("the exact product overflows f32"),
        "{}",
        v.headline()
    );
}

/// The one check policy (`check::check`): `Auto` checks in full up to its bound and on sampled
/// elements past it, saying which, and a wrong C fails either way; `Hold::Model` passes a u8
/// result that saturated as its pipeline must where `Hold::Exact` fails it; a float64 input past
/// f32's range makes the reference the product of the inputs as given, with a note.
#[test]
fn one_check_policy_covers_holds_and_takes_the_inputs_as_given() {
    use check::{CheckPolicy, Coverage, Hold, Inputs};
    let a = Matrix::random(20, 30, 81, -1.0, 1.0);
    let b = Matrix::random(30, 10, 82, -1.0, 1.0);
    let c = rendermm::cpu::naive(&a, &b);
    let mut wrong = c.clone();
    wrong.data.iter_mut().for_each(|x| *x *= 1.01);
    // m·k·n = 6000.
    let at = |full_up_to_madds: u64, c: &Matrix| {
        let coverage = Coverage::Auto {
            full_up_to_madds,
            seed: 3,
        };
        let policy = CheckPolicy {
            hold: Hold::Exact,
            coverage,
        };
        check::check(policy, Arith::F32, &[(Inputs::new(&a, &b), c)])
    };
    let full = at(6000, &c);
    assert_eq!(full.coverage, "full");
    assert!(full.passed(), "{}", full.verdicts[0].held);
    let sampled = at(5999, &c);
    assert_eq!(sampled.coverage, "512 sampled elements");
    assert!(sampled.passed(), "{}", sampled.verdicts[0].held);
    assert!(sampled.verdicts[0].held.contains("sampled"));
    assert!(!at(6000, &wrong).passed() && !at(5999, &wrong).passed());

    // Every sum 16 times what an 8-bit framebuffer holds: the model saturates, as the GPU does.
    let u8 = Arith::U8 {
        pipeline: Pipeline::Slices,
        scale_by_depth: false,
        bits: U8Bits::default(),
    };
    let (x, y) = (Matrix::filled(4, 64, 0.5), Matrix::filled(64, 3, 0.5));
    let model = u8_model(&x, &y, 1).c;
    let held = |hold| {
        let checked = check::check(
            CheckPolicy::full(hold),
            u8,
            &[(Inputs::new(&x, &y), &model)],
        );
        (checked.passed(), checked.verdicts[0].held_to)
    };
    assert_eq!(held(Hold::Model), (true, Hold::Model));
    assert_eq!(held(Hold::Exact), (false, Hold::Exact));

    // A holds 1e300 (an infinity in f32) times 0: the product as given is finite, C = it.
    let given = [1e300, 1.0, 1.0, 1.0];
    let a = Matrix::new(2, 2, given.iter().map(|&v| v as f32).collect()).unwrap();
    let b = Matrix::new(2, 2, vec![0.0, 0.0, 1.0, 1.0]).unwrap();
    let c = Matrix::new(2, 2, vec![1.0; 4]).unwrap();
    let policy = CheckPolicy::auto(Hold::Exact, 1);
    let as_given = check::check(
        policy,
        Arith::F32,
        &[(Inputs::new(&a, &b).given(Some(&given), None), &c)],
    );
    assert!(as_given.passed(), "{}", as_given.verdicts[0].held);
    assert!(
        as_given.notes[0].contains("A holds values past f32's range"),
        "{:?}",
        as_given.notes
    );
    let as_f32 = check::check(policy, Arith::F32, &[(Inputs::new(&a, &b), &c)]);
    assert!(!as_f32.passed() && as_f32.notes.is_empty());
    // A · B as given has 1e300 where a float32 C holds an infinity: refused, and said.
    let b = Matrix::new(2, 2, vec![0.0, 1.0, 1.0, 1.0]).unwrap();
    let c = Matrix::new(2, 2, vec![1.0, f32::INFINITY, 1.0, 2.0]).unwrap();
    let past = check::check(
        policy,
        Arith::F32,
        &[(Inputs::new(&a, &b).given(Some(&given), None), &c)],
    );
    assert!(!past.passed());
    assert!(
        past.notes.iter().any(|n| n.contains("row 0, column 1")),
        "{:?}",
        past.notes
    );
}

/// The judge on `samples` sampled elements from `seed`, under the one check policy.
fn sampled(
    arith: Arith,
    a: &Matrix,
    b: &Matrix,
    c: &Matrix,
    samples: usize,
    seed: u64,
) -> check::Verdict {
    let policy = check::CheckPolicy {
        hold: check::Hold::Exact,
        coverage: check::Coverage::Sampled { samples, seed },
    };
    let mut checked = check::check(policy, arith, &[(check::Inputs::new(a, b), c)]);
    checked.verdicts.remove(0)
}
