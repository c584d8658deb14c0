//! frag-mrt: the register-block render-pass method against the f64 CPU reference on awkward
//! shapes, in every block shape, with and without quad sharing, in one pass and in blocks of k
//! (ping-pong and blend); its packed layout; its refusals; and the generated shader file.
//! frag-mrt-f16 (A and B in RGBA16F): awkward shapes against the f64 reference within the bound
//! for f16 inputs and f32 sums, evidence that the inputs really were rounded to f16, its f16
//! packing (on several threads), its refusals and its model.

mod common;
use common::{SHAPES, ctx, hold};
use rendermm::check::Arith;
use rendermm::cpu::reference_f64;
use rendermm::methods::frag_mrt::{self, Layout, Shape, Source};
use rendermm::methods::{Accumulate, Kernels, Method, Observer};
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};

fn inputs((m, k, n): (usize, usize, usize), seed: u64) -> (Matrix, Matrix) {
    (
        Matrix::random(m, k, seed, -1.0, 1.0),
        Matrix::random(k, n, seed + 1, -1.0, 1.0),
    )
}

/// `a · b` by `method` (frag-mrt or frag-mrt-f16) in block shape `shape`, through the one entry
/// point.
fn with_shape(
    method: Method,
    shape: Shape,
    a: &Matrix,
    b: &Matrix,
    block: Option<u32>,
    accumulate: Accumulate,
) -> rendermm::error::Result<plan::Outcome> {
    let opts = Options {
        block,
        accumulate,
        kernels: Kernels {
            frag_mrt: Some(shape),
            ..Default::default()
        },
        ..Default::default()
    };
    plan::multiply(Some(ctx()), plan::Request::new(method, a, b).options(opts))
}

/// Run `shape` on `dims` with `block` / `acc`, check against f64 and the pass count.
fn run(shape: Shape, dims: (usize, usize, usize), block: Option<u32>, acc: Accumulate, seed: u64) {
    let (a, b) = inputs(dims, seed);
    let out = with_shape(Method::FragMrt, shape, &a, &b, block, acc).unwrap();
    assert_eq!(
        out.kernel.variant.map(|v| v.to_string()),
        Some(shape.name()),
        "the shape asked ran"
    );
    let (m, k, n) = dims;
    let label = format!("frag-mrt {shape} {m}x{k}x{n} block={block:?} {acc}");
    let kp = k.next_multiple_of(shape.unroll as usize);
    let expected = match block {
        None => 1,
        Some(b) => kp.div_ceil((b as usize).next_multiple_of(shape.unroll as usize)),
    };
    assert_eq!(out.passes, expected, "{label}: passes");
    assert_eq!((out.c.rows, out.c.cols), (m, n), "{label}: shape");
    hold(&label, out.arith, &a, &b, &out.c);
}

fn shape(rows: u32, cols: u32, unroll: u32, share: bool) -> Shape {
    Shape {
        rows,
        cols,
        unroll,
        share,
        a_src: Source::Texture,
        b_src: Source::Texture,
        prefetch: false,
    }
}

/// `shape` reading A from `a_src` and B from `b_src`.
fn fed(rows: u32, cols: u32, unroll: u32, share: bool, a_src: Source, b_src: Source) -> Shape {
    Shape {
        a_src,
        b_src,
        ..shape(rows, cols, unroll, share)
    }
}

#[test]
fn storage_buffer_sources_match_f64_reference() {
    use Source::{Buffer, Texture};
    // Both from buffers (no quad sharing), or one of them, with the texture operand shared
    // across the quad and the buffer operand loaded at both steps of each pair.
    let dims = [
        (1, 1, 1),
        (1, 7, 13),
        (7, 13, 5),
        (65, 100, 37),
        (130, 67, 129),
    ];
    let mut seed = 1500;
    for (a_src, b_src, shares) in [
        (Buffer, Buffer, &[false][..]),
        (Texture, Buffer, &[true, false][..]),
        (Buffer, Texture, &[true, false][..]),
    ] {
        for &share in shares {
            for (rows, cols, unroll) in [(4, 8, 4), (8, 4, 2), (4, 4, 8)] {
                for &d in &dims {
                    let s = fed(rows, cols, unroll, share, a_src, b_src);
                    run(s, d, None, Accumulate::PingPong, seed);
                    seed += 2;
                }
            }
        }
    }
    // Blocks of k, ping-pong and blend, read the same buffers every pass.
    for acc in [Accumulate::PingPong, Accumulate::Blend] {
        for s in [
            fed(8, 4, 2, false, Buffer, Buffer),
            fed(4, 8, 4, true, Texture, Buffer),
        ] {
            run(s, (33, 65, 17), Some(16), acc, seed);
            seed += 2;
        }
    }
}

#[test]
fn buffer_sources_parse_and_refuse_what_they_cannot_do() {
    use Source::{Buffer, Texture};
    assert_eq!(
        Shape::parse("8x4,src=buffer").unwrap(),
        fed(8, 4, 4, false, Buffer, Buffer)
    );
    assert_eq!(
        Shape::parse("4x8,b=buffer").unwrap(),
        fed(4, 8, 4, true, Texture, Buffer)
    );
    assert_eq!(
        Shape::parse("a=buffer,share=0,unroll=1").unwrap(),
        fed(4, 8, 1, false, Buffer, Texture)
    );
    for s in ["src=buffer", "4x8,b=buffer,unroll=2", "a=buffer,share=0"] {
        let shape = Shape::parse(s).unwrap();
        assert_eq!(Shape::parse(&shape.name()).unwrap(), shape, "{s}");
    }
    for bad in ["src=buffer,share=1", "a=disk", "b=", "src=buffers"] {
        let err = Shape::parse(bad).unwrap_err().to_string();
        assert!(err.contains(bad) && !err.contains('\n'), "{bad}: {err}");
    }
    // f16 inputs live in Rgba16Float textures only.
    let (a, b) = inputs((9, 5, 7), 3);
    let err = with_shape(
        Method::FragMrtF16,
        fed(4, 8, 4, true, Texture, Buffer),
        &a,
        &b,
        None,
        Accumulate::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("frag-mrt-f16") && err.contains("b=buffer"),
        "{err}"
    );
}

#[test]
fn frag_mrt_matches_f64_reference_on_awkward_shapes() {
    // Through the method table, as the CLI and bench call it (default shape unless the
    // environment names another).
    for (i, &(m, k, n)) in SHAPES
        .iter()
        .chain(&[(31, 29, 23), (13, 1, 17)])
        .enumerate()
    {
        let (a, b) = inputs((m, k, n), 700 + i as u64);
        let out = plan::multiply(Some(ctx()), plan::Request::new(Method::FragMrt, &a, &b)).unwrap();
        assert_eq!(out.passes, 1, "{m}x{k}x{n}: whole k in one pass");
        hold(&format!("frag-mrt {m}x{k}x{n}"), out.arith, &a, &b, &out.c);
    }
}

#[test]
fn every_block_shape_with_and_without_quad_sharing() {
    let dims = [(1, 7, 1), (7, 13, 5), (65, 100, 37), (257, 31, 129)];
    let mut seed = 800;
    for (rows, cols) in [(4, 8), (8, 4), (4, 4)] {
        for share in [true, false] {
            for unroll in [2, 4, 8] {
                // Each shape meets every size once over the unroll values, to keep this quick.
                for &d in &dims[(unroll as usize / 4)..(unroll as usize / 4 + 2)] {
                    run(
                        shape(rows, cols, unroll, share),
                        d,
                        None,
                        Accumulate::PingPong,
                        seed,
                    );
                    seed += 2;
                }
            }
        }
    }
    // unroll 1 exists without sharing only.
    run(
        shape(8, 4, 1, false),
        (65, 100, 37),
        None,
        Accumulate::PingPong,
        900,
    );
}

#[test]
fn prefetch_matches_f64_reference_in_one_pass_and_in_blocks_of_k() {
    use Source::{Buffer, Texture};
    // pf=1 fetches the next iteration's texels before this one's multiply-adds, and on the
    // last iteration of a pass fetches its own again: one iteration (k' = unroll), several,
    // and passes of a few iterations each, so a wrong next step or a read past a pass's end
    // shows.
    let cases = [
        (shape(4, 8, 2, true), (1, 1, 1), None),
        (shape(8, 4, 4, true), (7, 13, 5), None),
        (shape(4, 4, 2, false), (65, 100, 37), Some(6)),
        (shape(8, 4, 2, true), (33, 65, 17), Some(4)),
        (fed(4, 8, 4, true, Texture, Buffer), (17, 31, 41), Some(8)),
        (fed(4, 4, 2, false, Buffer, Buffer), (9, 37, 11), None),
    ];
    for (i, (s, d, block)) in cases.into_iter().enumerate() {
        let s = Shape {
            prefetch: true,
            ..s
        };
        for acc in [Accumulate::PingPong, Accumulate::Blend] {
            run(s, d, block, acc, 1500 + 10 * i as u64);
        }
    }
    let parsed = Shape::parse("4x4,unroll=8,pf=1").unwrap();
    assert!(parsed.prefetch);
    assert_eq!(parsed.name(), "4x4,unroll=8,share=1,pf=1");
    assert_eq!(Shape::parse(&parsed.name()).unwrap(), parsed);
    let e = Shape::parse("4x8,pf=2").unwrap_err().to_string();
    assert!(e.contains("pf = '2': give 0 or 1"), "{e}");
}

#[test]
fn blocks_of_k_in_ping_pong_and_blend() {
    for &acc in &[Accumulate::PingPong, Accumulate::Blend] {
        for (i, &(b, d)) in [
            (1, (9, 37, 11)),
            (3, (33, 65, 17)),
            (8, (1, 7, 1)),
            (100, (65, 257, 37)),
            (16, (5, 64, 3)),
        ]
        .iter()
        .enumerate()
        {
            for s in [Shape::DEFAULT, shape(8, 4, 2, false)] {
                run(s, d, Some(b), acc, 1000 + 10 * i as u64);
            }
        }
    }
}

#[test]
fn packed_layout_is_four_rows_or_columns_per_texel_and_padding_never_shows() {
    let (m, k, n) = (9, 6, 11);
    let a = Matrix::from_fn(m, k, |i, p| (i * 100 + p + 1) as f32);
    let b = Matrix::from_fn(k, n, |p, j| -((p * 100 + j + 1) as f32));
    let lay = Layout::new(Shape::DEFAULT, m, k, n);
    // 4x8 tiles: ⌈9/4⌉ = 3 → 4 (even, sharing), ⌈11/8⌉ = 2; k' = 8.
    assert_eq!((lay.tiles_m, lay.tiles_n, lay.kp), (4, 2, 8));
    assert_eq!(lay.a_size(), (4, 8));
    assert_eq!(lay.b_size(), (8, 4));
    let pa = lay.pack_a(&a);
    assert_eq!(
        pa[2 * 8 + 5],
        [a.get(8, 5), 0.0, 0.0, 0.0],
        "A texel (x=5, y=2): rows 8..11 at p=5"
    );
    assert_eq!(
        pa[8 + 3],
        [a.get(4, 3), a.get(5, 3), a.get(6, 3), a.get(7, 3)]
    );
    assert_eq!(pa[7], [0.0; 4], "A texel beyond k is padding");
    let pb = lay.pack_b(&b);
    assert_eq!(
        pb[3 * 4 + 2],
        [b.get(3, 8), b.get(3, 9), b.get(3, 10), 0.0],
        "B texel (x=2, y=3)"
    );
    assert_eq!(pb[6 * 4], [0.0; 4], "B row beyond k is padding");
    // Unpack: attachment t = r·2 + j holds C[4I + r][8J + 4j .. +3]. Fill each texel with its
    // own coordinates; padding texels hold NaN, which must not appear.
    let c = Matrix::from_fn(m, n, |i, j| (i * 1000 + j) as f32);
    let atts = attachments_holding(&lay, &c);
    assert_eq!(lay.unpack(&atts).unwrap(), c);
    assert!(
        lay.unpack(&atts[..7]).is_err(),
        "a missing attachment is an error"
    );
}

#[test]
fn shapes_parse_and_the_adapters_limits_bound_them() {
    assert_eq!(Shape::parse("").unwrap(), Shape::DEFAULT);
    assert_eq!(Shape::parse("8x4").unwrap(), shape(8, 4, 4, true));
    assert_eq!(
        Shape::parse("4x4, share=0, unroll=1").unwrap(),
        shape(4, 4, 1, false)
    );
    assert_eq!(
        Shape::parse(&Shape::DEFAULT.name()).unwrap(),
        Shape::DEFAULT
    );
    for bad in [
        "4x6",
        "0x8",
        "4x8,unroll=3",
        "4x8,share=maybe",
        "4x8,depth=2",
        "four",
    ] {
        assert!(Shape::parse(bad).is_err(), "{bad} should not parse");
    }
    // 8x8 = 64 floats: 16 RGBA32F attachments, beyond the 8 (and 128 bytes) adapters give.
    let (a, b) = inputs((16, 8, 16), 1);
    let err = with_shape(
        Method::FragMrt,
        shape(8, 8, 4, true),
        &a,
        &b,
        None,
        Accumulate::default(),
    )
    .unwrap_err();
    assert!(matches!(err, Error::Limit { .. }), "{err}");
    assert!(err.to_string().contains("max_color_attachments"), "{err}");
}

#[test]
fn copy_mode_and_observers_are_refused_with_a_reason() {
    let (a, b) = inputs((8, 16, 8), 2);
    let opts = Options {
        block: Some(4),
        accumulate: Accumulate::Copy,
        ..Default::default()
    };
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::FragMrt, &a, &b).options(opts.clone()),
    )
    .unwrap_err();
    assert!(err.to_string().contains("pingpong or blend"), "{err}");

    struct Nop;
    impl Observer for Nop {
        fn after_pass(
            &mut self,
            _: &rendermm::gpu::GpuContext,
            _: usize,
            _: usize,
            _: &rendermm::gpu::MatrixTexture,
        ) -> rendermm::error::Result<()> {
            Ok(())
        }
    }
    let mut obs = Nop;
    let req = plan::Request::new(Method::FragMrt, &a, &b).observed(&mut obs);
    let err = plan::multiply(Some(ctx()), req).unwrap_err();
    assert!(err.to_string().contains("observer"), "{err}");
}

#[test]
fn the_model_counts_under_a_quarter_of_hall_packed_bytes_per_flop() {
    let n = 1024;
    let hp = rendermm::model::model(Method::HallPacked, n, n, n, 32).unwrap();
    let flops = 2.0 * (n as f64).powi(3);
    // The default shape (what `for_run` models) and a shape a request names, which the model
    // must count instead.
    let named = Shape::parse("4x4,unroll=8").unwrap();
    assert_ne!(named, Shape::DEFAULT);
    let mut totals = vec![];
    for shape in [Shape::DEFAULT, named] {
        let kernels = Kernels {
            frag_mrt: Some(shape),
            ..Default::default()
        };
        let fm = rendermm::model::for_run_with(Method::FragMrt, (n, n, n), 1, &kernels).unwrap();
        assert_eq!(fm.passes, 1);
        // 4n³(R+C)/(RCs) lookups + 4n² written.
        let lookups = 4.0 * (n as f64).powi(3) * (shape.rows + shape.cols) as f64
            / (shape.rows * shape.cols * shape.step()) as f64;
        assert_eq!(
            fm.total_bytes as f64,
            lookups + 4.0 * (n * n) as f64,
            "{shape}"
        );
        assert!(fm.total_bytes < hp.total_bytes / 2, "{shape}");
        totals.push(fm.total_bytes);
    }
    let fm = rendermm::model::for_run(Method::FragMrt, n, n, n, 1).unwrap();
    assert_eq!(
        fm.total_bytes, totals[0],
        "for_run models the default shape"
    );
    // 0.375 bytes per flop against Hall's 2.06.
    assert!(
        fm.total_bytes as f64 / flops < 0.38,
        "{}",
        fm.total_bytes as f64 / flops
    );
    assert!(fm.total_bytes * 4 < hp.total_bytes);
}

/// Set to rewrite `shaders/frag_mrt.wgsl` from the generator (a blessed run compares nothing).
const BLESS: &str = "RENDERMM_BLESS";

#[test]
fn shaders_file_is_the_generated_default_shape() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/frag_mrt.wgsl");
    let generated = frag_mrt::shader_source(&Shape::DEFAULT);
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if common::blessing(BLESS, &path) {
        std::fs::write(&path, &generated).unwrap();
        common::report_blessed(&path, on_disk != generated);
        return;
    }
    assert!(
        on_disk == generated,
        "{} differs from frag_mrt::shader_source(&Shape::DEFAULT); regenerate it with RENDERMM_BLESS=1 cargo test --test frag_mrt",
        path.display()
    );
}

/// In CI a blessed run is refused before it writes anything: there a pass must mean the
/// comparison held. Runs this test binary's shader-file test again with `CI=true` and the bless
/// variable set, and sees it fail with the file untouched.
#[test]
fn blessing_the_shaders_file_in_ci_fails_and_writes_nothing() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/frag_mrt.wgsl");
    let before = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "shaders_file_is_the_generated_default_shape"])
        .env("CI", "true")
        .env(BLESS, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a blessed run in CI passed:\n{text}");
    assert!(
        text.contains("1 failed") && text.contains("in CI"),
        "{text}"
    );
    let after = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    assert_eq!(before, after, "{} was written", path.display());
}

// ---- frag-mrt-f16: A and B rounded to f16 in RGBA16F texels, f32 sums ----------------------

/// `x` with every element rounded to f16 (round to nearest even), back in f32.
fn rounded_to_f16(x: &Matrix) -> Matrix {
    Matrix::from_fn(x.rows, x.cols, |i, j| {
        half::f16::from_f32(x.get(i, j)).to_f32()
    })
}

/// Run frag-mrt-f16 through the method table (as `multiply --method frag-mrt-f16` does).
fn run_f16(a: &Matrix, b: &Matrix, opts: &mut Options) -> plan::Outcome {
    plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::FragMrtF16, a, b).options(opts.clone()),
    )
    .unwrap_or_else(|e| panic!("frag-mrt-f16 {}x{}x{}: {e}", a.rows, a.cols, b.cols))
}

/// Every element of C written: the readback buffers start as NaN (the harness poisons them)
/// and the attachments are cleared to 0 before the pass, so an element the pass missed reads
/// back as NaN or exactly 0 — which no element of a product of random inputs is.
fn assert_every_element_written(label: &str, c: &Matrix) {
    if let Some(idx) = c.data.iter().position(|v| !v.is_finite() || *v == 0.0) {
        panic!(
            "{label}: element ({}, {}) = {} was never written",
            idx / c.cols,
            idx % c.cols,
            c.data[idx]
        );
    }
}

#[test]
fn frag_mrt_f16_matches_f64_reference_within_the_f16_bound_on_awkward_shapes() {
    for (i, &(m, k, n)) in [
        (1, 1, 1),
        (1, 7, 13),
        (17, 23, 11),
        (65, 100, 37),
        (128, 129, 130),
        (7, 1, 7),
        (3, 257, 2),
    ]
    .iter()
    .enumerate()
    {
        let label = format!("frag-mrt-f16 {m}x{k}x{n}");
        let (a, b) = inputs((m, k, n), 2000 + i as u64);
        let out = run_f16(&a, &b, &mut Options::default());
        assert_eq!(out.c.shape(), (m, n), "{label}");
        assert_eq!(out.passes, 1, "{label}: whole k in one pass");
        assert_every_element_written(&label, &out.c);
        let v = out.verdict(&a, &b);
        let ratio = v.f16_bound_ratio.unwrap();
        assert!(
            v.passed,
            "{label}: error / f16 bound {ratio:.3}, rel_err {:.2e}",
            v.stats.rel_err
        );
        // What the GPU summed is the f16-rounded inputs' product, in f32 (a product of two
        // f16 values is exact in f32): against those inputs it is held to the f32 bound.
        hold(
            &format!("{label} against the f64 product of its f16-rounded inputs"),
            Arith::F32,
            &rounded_to_f16(&a),
            &rounded_to_f16(&b),
            &out.c,
        );
    }
}

#[test]
fn frag_mrt_f16_blocks_of_k_in_ping_pong_and_blend_stay_within_the_f16_bound() {
    for &acc in &[Accumulate::PingPong, Accumulate::Blend] {
        for (i, &(b, d)) in [(1, (9, 37, 11)), (3, (33, 65, 17)), (100, (65, 257, 37))]
            .iter()
            .enumerate()
        {
            let (x, y) = inputs(d, 2100 + i as u64);
            let mut opts = Options {
                block: Some(b),
                accumulate: acc,
                ..Default::default()
            };
            let out = run_f16(&x, &y, &mut opts);
            let label = format!("frag-mrt-f16 {d:?} b={b} {acc}");
            assert!(out.passes > 1, "{label}: {} passes", out.passes);
            assert_every_element_written(&label, &out.c);
            let v = out.verdict(&x, &y);
            assert!(v.passed, "{label}: {:?}", v.f16_bound_ratio);
        }
    }
}

/// The check tells f16 inputs from f32 ones. Inputs that f16 cannot hold (random f32 in
/// [-1, 1]) put frag-mrt-f16 beyond the f32 bound the judge holds frag-mrt to — where frag-mrt,
/// on the same inputs, stays — and within the f16 bound, which it uses a real share of; inputs
/// that f16 holds exactly (multiples of 2⁻⁸) give it f32 accuracy. And the bound is a bound: a
/// result off by twice it in one element fails.
#[test]
fn f16_rounding_shows_beyond_the_f32_bound_and_within_the_f16_bound() {
    let (m, k, n) = (65, 100, 37);
    let (a, b) = inputs((m, k, n), 2200);
    let reference = reference_f64(&a, &b);
    let run16 = run_f16(&a, &b, &mut Options::default());
    let f16 = run16.c.clone();
    let run32 = plan::multiply(Some(ctx()), plan::Request::new(Method::FragMrt, &a, &b)).unwrap();
    // The arithmetic frag-mrt's run used: f32.
    let f32_arith = run32.arith;
    let s32 = hold("frag-mrt", f32_arith, &a, &b, &run32.c).stats;
    let s16 = rendermm::check::compare(&f16, &reference);
    assert!(
        s16.rel_err > 100.0 * s32.rel_err,
        "f16 inputs should show: rel_err {:.2e} (frag-mrt {:.2e})",
        s16.rel_err,
        s32.rel_err
    );
    let v = run16.verdict(&a, &b);
    let ratio = v.f16_bound_ratio.unwrap();
    assert!(v.passed, "within the f16 bound: ratio {ratio:.3}");
    assert!(ratio > 1e-3, "the bound is not vacuous: ratio {ratio:.2e}");
    // The f32 verdict (the one frag-mrt gets) refuses the same result.
    let as_f32 = rendermm::check::judge(f32_arith, &a, &b, &f16);
    assert!(!as_f32.passed, "{}", as_f32.tolerance);
    println!(
        "frag-mrt-f16 {m}x{k}x{n}: rel_err {:.2e} (frag-mrt {:.2e}), error / f16 bound {ratio:.3}",
        s16.rel_err, s32.rel_err
    );

    // Exactly representable inputs: no rounding on the way in, f32 accuracy.
    let grid =
        |x: &Matrix| Matrix::from_fn(x.rows, x.cols, |i, j| (x.get(i, j) * 256.0).round() / 256.0);
    let (ga, gb) = (grid(&a), grid(&b));
    assert_eq!(rounded_to_f16(&ga), ga);
    let exact = run_f16(&ga, &gb, &mut Options::default()).c;
    hold(
        "frag-mrt-f16 on f16-exact inputs",
        f32_arith,
        &ga,
        &gb,
        &exact,
    );

    // One element moved by twice its bound fails.
    let bound = rendermm::check::f16_inputs_bound(a.cols).of(&a, &b);
    let mut off = f16.clone();
    let (i, j) = (m / 2, n / 3);
    off.set(i, j, (reference[i * n + j] + 2.0 * bound[i * n + j]) as f32);
    let v = rendermm::check::judge(run16.arith, &a, &b, &off);
    assert!(!v.passed, "ratio {:?}", v.f16_bound_ratio);
}

#[test]
fn f16_packing_rounds_each_value_and_matches_the_f32_layout_on_several_threads() {
    // 2100x2100x2100: 526 × 2100 RGBA16F texels of A (8.8 MB), past the 8 MiB at which the
    // packing splits its rows across threads.
    for &(m, k, n) in &[(9, 6, 11), (2100, 2100, 2100)] {
        let (a, b) = inputs((m, k, n), 2300);
        let lay = Layout::new(Shape::DEFAULT, m, k, n);
        let h = |t: &[f32; 4]| t.map(half::f16::from_f32);
        let (pa, pa16) = (lay.pack_a(&a), lay.pack_a_f16(&a));
        let (pb, pb16) = (lay.pack_b(&b), lay.pack_b_f16(&b));
        assert_eq!((pa16.len(), pb16.len()), (pa.len(), pb.len()));
        assert!(pa.iter().zip(&pa16).all(|(x, y)| h(x) == *y), "{m}x{k}: A");
        assert!(pb.iter().zip(&pb16).all(|(x, y)| h(x) == *y), "{k}x{n}: B");
        // The f32 texels against the layout, written out again (A: texel (p, Y) = rows
        // 4Y..4Y+3 at p; B: texel (X, p) = columns 4X..4X+3 of row p; zeros beyond).
        let (ah, aw) = lay.a_size();
        for (idx, t) in pa.iter().enumerate().step_by(97) {
            let (y, p) = (idx / aw, idx % aw);
            let want: [f32; 4] = std::array::from_fn(|r| {
                if 4 * y + r < m && p < k {
                    a.get(4 * y + r, p)
                } else {
                    0.0
                }
            });
            assert_eq!(*t, want, "A texel ({p}, {y}) of {ah}x{aw}");
        }
        let (_, bw) = lay.b_size();
        for (idx, t) in pb.iter().enumerate().step_by(89) {
            let (p, x) = (idx / bw, idx % bw);
            let want: [f32; 4] = std::array::from_fn(|c| {
                if p < k && 4 * x + c < n {
                    b.get(p, 4 * x + c)
                } else {
                    0.0
                }
            });
            assert_eq!(*t, want, "B texel ({x}, {p})");
        }
    }
}

#[test]
fn frag_mrt_f16_refuses_inputs_past_f16s_range_in_one_line() {
    let (mut a, b) = inputs((5, 6, 7), 2400);
    a.set(3, 4, 70000.0);
    let err =
        plan::multiply(Some(ctx()), plan::Request::new(Method::FragMrtF16, &a, &b)).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::OutOfRange { .. }), "{msg}");
    assert!(
        msg.contains("f16") && msg.contains("70000") && !msg.contains('\n'),
        "{msg}"
    );
    // frag-mrt takes the same inputs.
    plan::multiply(Some(ctx()), plan::Request::new(Method::FragMrt, &a, &b)).unwrap();
}

#[test]
fn the_model_counts_half_the_lookup_bytes_for_f16_inputs() {
    let n = 1024;
    let f32 = rendermm::model::for_run(Method::FragMrt, n, n, n, 1).unwrap();
    let f16 = rendermm::model::for_run(Method::FragMrtF16, n, n, n, 1).unwrap();
    // Same passes, fragments and instructions; lookups at 8 bytes instead of 16, and the
    // 4n² bytes of C written either way.
    assert_eq!(
        (f16.passes, f16.fragments_per_pass, f16.total_instructions),
        (f32.passes, f32.fragments_per_pass, f32.total_instructions)
    );
    let written = 4 * (n * n) as u128;
    assert_eq!(2 * (f16.total_bytes - written), f32.total_bytes - written);
}

/// A result large enough to be unpacked on several threads (8 MiB and more), both block shapes
/// and odd sizes: every element from its attachment texel, padding texels (NaN) never read.
#[test]
fn large_results_unpack_on_several_threads_the_same() {
    for name in ["4x8", "8x4"] {
        let shape = Shape::parse(name).unwrap();
        let (m, n) = (1501, 1403);
        let lay = Layout::new(shape, m, 3, n);
        let c = Matrix::from_fn(m, n, |i, j| (i * 2000 + j) as f32);
        let atts = attachments_holding(&lay, &c);
        assert!(lay.unpack(&atts).unwrap() == c, "{name}");
    }
}

/// The attachments' texels as the passes would leave them for `c` under `lay`: attachment
/// t = r·(C/4) + q, tile (I, J), channel ch holds C[R·I + r][C·J + 4q + ch]; padding texels hold
/// NaN, which must never reach the result.
fn attachments_holding(lay: &Layout, c: &Matrix) -> Vec<Vec<[f32; 4]>> {
    let (rr, cc) = (lay.shape.rows as usize, lay.shape.cols as usize);
    (0..lay.shape.attachments() as usize)
        .map(|t| {
            let (r, q) = (t / (cc / 4), t % (cc / 4));
            (0..lay.tiles_m * lay.tiles_n)
                .map(|idx| {
                    let (ti, tj) = (idx / lay.tiles_n, idx % lay.tiles_n);
                    std::array::from_fn(|ch| {
                        let (row, col) = (rr * ti + r, cc * tj + 4 * q + ch);
                        if row < c.rows && col < c.cols {
                            c.get(row, col)
                        } else {
                            f32::NAN
                        }
                    })
                })
                .collect()
        })
        .collect()
}

/// The shape a request names is the one that runs, and the run records it with the number
/// formats of its inputs and sums; without one, the default shape runs and is recorded.
#[test]
fn the_run_records_the_shape_it_ran_and_its_number_formats() {
    let (a, b) = inputs((24, 40, 16), 5);
    let named = Shape::parse("4x4,unroll=8").unwrap();
    for (method, inputs) in [
        (Method::FragMrt, rendermm::precision::Precision::F32),
        (Method::FragMrtF16, rendermm::precision::Precision::F16),
    ] {
        for (shape, given) in [(Shape::DEFAULT, None), (named, Some(named))] {
            let opts = Options {
                kernels: Kernels {
                    frag_mrt: given,
                    ..Default::default()
                },
                ..Default::default()
            };
            let out = plan::multiply(
                Some(ctx()),
                plan::Request::new(method, &a, &b).options(opts.clone()),
            )
            .unwrap();
            let k = &out.kernel;
            assert_eq!(k.method, method);
            assert_eq!(
                k.variant,
                Some(rendermm::methods::Variant::FragMrt(shape)),
                "{method}"
            );
            assert_eq!(k.inputs, inputs, "{method}");
            assert_eq!(k.sums, rendermm::precision::Precision::F32, "{method}");
            hold(&format!("{method} {shape}"), out.arith, &a, &b, &out.c);
        }
    }
}

/// Without a named shape, an adapter with fewer colour attachments than the default's 8 (WebGL2
/// in headless Chromium 148 has 6) gets the 4×4 block in 4; a named shape is taken as named.
#[test]
fn an_adapter_with_fewer_attachments_takes_the_4x4_block() {
    assert_eq!(Shape::chosen_for(None, 8), Shape::DEFAULT);
    assert_eq!(Shape::chosen_for(None, 6), Shape::NARROW);
    assert_eq!((Shape::NARROW.rows, Shape::NARROW.cols), (4, 4));
    assert_eq!(Shape::NARROW.attachments(), 4);
    Shape::NARROW.validate().unwrap();
    let named = Shape::parse("8x4").unwrap();
    assert_eq!(Shape::chosen_for(Some(named), 6), named);
}
