//! frag-mrt: the register-block render-pass method against the f64 CPU reference on awkward
//! shapes, in every block shape, with and without quad sharing, in one pass and in blocks of k
//! (ping-pong and blend); its packed layout; its refusals; and the generated shader file.

mod common;
use common::{SHAPES, ctx};
use rendermm::check::assert_close;
use rendermm::cpu::reference_f64;
use rendermm::methods::frag_mrt::{self, Layout, Shape};
use rendermm::methods::{Accumulate, Method, Observer, Params};
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};

fn inputs((m, k, n): (usize, usize, usize), seed: u64) -> (Matrix, Matrix) {
    (
        Matrix::random(m, k, seed, -1.0, 1.0),
        Matrix::random(k, n, seed + 1, -1.0, 1.0),
    )
}

/// Run `shape` on `dims` with `block` / `acc`, check against f64 and the pass count.
fn run(shape: Shape, dims: (usize, usize, usize), block: Option<u32>, acc: Accumulate, seed: u64) {
    let (a, b) = inputs(dims, seed);
    let mut opts = Params {
        block,
        accumulate: acc,
        ..Default::default()
    };
    let out = frag_mrt::multiply_with(ctx(), &a, &b, &mut opts, shape).unwrap();
    let (m, k, n) = dims;
    let label = format!("frag-mrt {shape} {m}x{k}x{n} block={block:?} {acc}");
    let kp = k.next_multiple_of(shape.unroll as usize);
    let expected = match block {
        None => 1,
        Some(b) => kp.div_ceil((b as usize).next_multiple_of(shape.unroll as usize)),
    };
    assert_eq!(out.passes, expected, "{label}: passes");
    assert_eq!((out.c.rows, out.c.cols), (m, n), "{label}: shape");
    assert_close(&label, &out.c, &reference_f64(&a, &b), 1e-5);
}

fn shape(rows: u32, cols: u32, unroll: u32, share: bool) -> Shape {
    Shape {
        rows,
        cols,
        unroll,
        share,
    }
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
        let out = plan::multiply(
            Some(ctx()),
            Method::FragMrt,
            &a,
            &b,
            &mut Options::default(),
        )
        .unwrap();
        assert_eq!(out.passes, 1, "{m}x{k}x{n}: whole k in one pass");
        assert_close(
            &format!("frag-mrt {m}x{k}x{n}"),
            &out.c,
            &reference_f64(&a, &b),
            1e-5,
        );
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
    let atts: Vec<Vec<[f32; 4]>> = (0..8)
        .map(|t| {
            let (r, j) = (t / 2, t % 2);
            (0..lay.tiles_m * lay.tiles_n)
                .map(|idx| {
                    let (ti, tj) = (idx / lay.tiles_n, idx % lay.tiles_n);
                    let row = 4 * ti + r;
                    std::array::from_fn(|ch| {
                        let col = 8 * tj + 4 * j + ch;
                        if row < m && col < n {
                            c.get(row, col)
                        } else {
                            f32::NAN
                        }
                    })
                })
                .collect()
        })
        .collect();
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
    let err = frag_mrt::multiply_with(ctx(), &a, &b, &mut Params::default(), shape(8, 8, 4, true))
        .unwrap_err();
    assert!(matches!(err, Error::Limit { .. }), "{err}");
    assert!(err.to_string().contains("max_color_attachments"), "{err}");
}

#[test]
fn copy_mode_and_observers_are_refused_with_a_reason() {
    let (a, b) = inputs((8, 16, 8), 2);
    let mut opts = Options {
        block: Some(4),
        accumulate: Accumulate::Copy,
        ..Default::default()
    };
    let err = plan::multiply(Some(ctx()), Method::FragMrt, &a, &b, &mut opts).unwrap_err();
    assert!(err.to_string().contains("pingpong or blend"), "{err}");

    struct Nop;
    impl Observer for Nop {
        fn after_pass(
            &mut self,
            _: &rendermm::gpu::GpuContext,
            _: usize,
            _: usize,
            _: &rendermm::gpu::MatrixTexture,
        ) -> rendermm::Result<()> {
            Ok(())
        }
    }
    let mut obs = Nop;
    let mut opts = Options {
        observer: Some(&mut obs),
        ..Default::default()
    };
    let err = plan::multiply(Some(ctx()), Method::FragMrt, &a, &b, &mut opts).unwrap_err();
    assert!(err.to_string().contains("observer"), "{err}");
}

#[test]
fn the_model_counts_under_a_quarter_of_hall_packed_bytes_per_flop() {
    let n = 1024;
    let fm = rendermm::model::for_run(Method::FragMrt, n, n, n, 1).unwrap();
    let hp = rendermm::model::model(Method::HallPacked, n, n, n, 32).unwrap();
    assert_eq!(fm.passes, 1);
    let flops = 2.0 * (n as f64).powi(3);
    let shape = Shape::from_env().unwrap();
    // 4n³(R+C)/(RCs) lookups + 4n² written.
    let lookups = 4.0 * (n as f64).powi(3) * (shape.rows + shape.cols) as f64
        / (shape.rows * shape.cols * shape.step()) as f64;
    assert_eq!(fm.total_bytes as f64, lookups + 4.0 * (n * n) as f64);
    assert!(fm.total_bytes < hp.total_bytes / 2);
    if shape == Shape::DEFAULT {
        // 0.375 bytes per flop against Hall's 2.06.
        assert!(
            fm.total_bytes as f64 / flops < 0.38,
            "{}",
            fm.total_bytes as f64 / flops
        );
        assert!(fm.total_bytes * 4 < hp.total_bytes);
    }
}

#[test]
fn shaders_file_is_the_generated_default_shape() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders/frag_mrt.wgsl");
    let generated = frag_mrt::shader_source(&Shape::DEFAULT);
    if std::env::var_os("RENDERMM_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} differs from frag_mrt::shader_source(&Shape::DEFAULT); regenerate it with RENDERMM_BLESS=1 cargo test --test frag_mrt",
        path.display()
    );
}
