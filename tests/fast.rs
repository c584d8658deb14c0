//! The fast compute paths against the f64 CPU reference: `cs-fast` (every variant, on shapes
//! that are not multiples of its tiles) and `coop` (the not-supported error where the adapter has
//! no cooperative matrices, as on lavapipe; the f16 bound where it has them, as on the H100).

mod common;
use common::{ctx, hold};
use rendermm::methods::{Kernels, Method, coop, cs_fast};
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};
use std::process::Command;

/// The awkward shapes (m, k, n): 1×1, 1×7·7×1, small primes, and sizes just past the
/// tiles (64, 128) and the k-tiles (8, 16) in every dimension.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 7, 1),
    (7, 13, 5),
    (65, 100, 37),
    (257, 31, 129),
    (130, 67, 129),
];

/// `a · b` by `method` with the kernel variants `kernels` names, through the one entry point.
fn run_variant(
    method: Method,
    kernels: Kernels,
    a: &Matrix,
    b: &Matrix,
) -> rendermm::error::Result<plan::Outcome> {
    let opts = Options {
        kernels,
        ..Default::default()
    };
    plan::multiply(Some(ctx()), plan::Request::new(method, a, b).options(opts))
}

fn cs_fast_variant(
    v: &cs_fast::Variant,
    a: &Matrix,
    b: &Matrix,
) -> rendermm::error::Result<plan::Outcome> {
    let kernels = Kernels {
        cs_fast: Some(*v),
        ..Default::default()
    };
    run_variant(Method::CsFast, kernels, a, b)
}

fn inputs(m: usize, k: usize, n: usize, seed: u64) -> (Matrix, Matrix) {
    (
        Matrix::random(m, k, seed, -1.0, 1.0),
        Matrix::random(k, n, seed + 1, -1.0, 1.0),
    )
}

#[test]
fn every_cs_fast_variant_matches_the_f64_reference_on_awkward_shapes() {
    for v in cs_fast::VARIANTS {
        for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
            let (a, b) = inputs(m, k, n, 40 + 2 * i as u64);
            let out = cs_fast_variant(v, &a, &b)
                .unwrap_or_else(|e| panic!("cs-fast {} {m}x{k}x{n}: {e}", v.name));
            assert_eq!((out.c.rows, out.c.cols), (m, n), "padding cropped");
            let label = format!("cs-fast {} {m}x{k}x{n}", v.name);
            hold(&label, out.arith, &a, &b, &out.c);
        }
    }
}

/// The method as `multiply --method cs-fast` runs it (the default variant, through the method
/// table), with its notes saying what it did.
#[test]
fn cs_fast_through_the_method_table() {
    let (a, b) = inputs(65, 100, 37, 7);
    let out = plan::multiply(Some(ctx()), plan::Request::new(Method::CsFast, &a, &b)).unwrap();
    let v = out.verdict(&a, &b);
    assert!(v.passed, "{v:?}");
    let notes = out.notes.join("\n");
    // The variant the size picks on this adapter, and the padding to its tiles.
    let cpu = ctx().info.device_type == wgpu::DeviceType::Cpu;
    let v = cs_fast::Variant::for_product(65, 37, cpu);
    let (mp, kp, np) = cs_fast::padded(&v, 65, 100, 37);
    assert!(
        notes.contains(&format!("variant {}", v.name))
            && notes.contains(&format!("zero-padded to {mp}x{kp}x{np}")),
        "{notes}"
    );
    assert!(notes.contains("bounds checks off"), "{notes}");
    assert_eq!(Method::parse("cs-fast").unwrap(), Method::CsFast);
    assert_eq!(Method::parse("coop").unwrap(), Method::Coop);
}

/// Exactly the tile (no padding at all) and a product whose k spans many k-tiles, so the
/// double buffers swap many times.
#[test]
fn cs_fast_on_whole_tiles_and_a_long_k() {
    let v = cs_fast::Variant::parse("64x64x8-4x8").unwrap();
    for &(m, k, n) in &[(64, 64, 64), (64, 520, 64)] {
        let (a, b) = inputs(m, k, n, 90);
        let out = cs_fast_variant(&v, &a, &b).unwrap();
        assert_eq!(
            out.kernel.variant,
            Some(rendermm::methods::Variant::CsFast(v)),
            "the variant asked ran"
        );
        hold(&format!("cs-fast {m}x{k}x{n}"), out.arith, &a, &b, &out.c);
    }
}

#[test]
fn cs_fast_plans_cover_the_padded_product_exactly() {
    for v in cs_fast::VARIANTS {
        let (m, k, n) = (130, 67, 129);
        let p = cs_fast::plan(v, m, k, n).unwrap();
        let (mp, kp, np) = cs_fast::padded(v, m, k, n);
        assert!(mp >= m && kp >= k && np >= n);
        assert_eq!(mp % v.bm() as usize, 0);
        assert_eq!(kp % v.bk as usize, 0);
        assert_eq!(np % v.bn() as usize, 0);
        let s = &p.stages[0];
        assert_eq!(
            s.groups,
            [
                (np / v.bn() as usize) as u32,
                (mp / v.bm() as usize) as u32,
                1
            ]
        );
        assert!(
            p.trusted.is_some(),
            "{}: bounds checks off, with the reason",
            v.name
        );
        p.check(&ctx().limits).unwrap();
    }
    // A plan without bounds checks never runs on unpadded operands.
    let p = cs_fast::plan(&cs_fast::VARIANTS[0], 65, 100, 37).unwrap();
    let (a, b) = inputs(65, 100, 37, 1);
    let e = rendermm::gpu::compute::run(ctx(), &p, &a, &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("without bounds checks"), "{e}");
    let e = cs_fast::Variant::parse("96x96x8-8x8")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown cs-fast variant") && e.contains("128x128x16-8x8"),
        "{e}"
    );
}

#[test]
fn cs_fast_and_coop_have_compute_models() {
    // The default 64×64 tile reads (64 + 64)·k floats per 2·64·64·k flops: 16 flop/B.
    let md = rendermm::model::compute::model(Method::CsFast, 4096, 4096, 4096).unwrap();
    assert!(md.flop_per_byte > 15.0, "{md:?}");
    let md = rendermm::model::compute::model(Method::Coop, 4096, 4096, 4096).unwrap();
    assert!(md.flop_per_byte > 30.0, "{md:?}");
}

fn has_coop() -> bool {
    ctx().has(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
}

/// Where the adapter has no cooperative matrices (lavapipe), coop says so; where it has them
/// (the H100), every variant meets the f16 bound on awkward shapes and a larger product.
#[test]
fn coop_is_refused_clearly_or_meets_its_f16_bound() {
    let (a, b) = inputs(65, 100, 37, 3);
    if !has_coop() {
        let err = plan::multiply(Some(ctx()), plan::Request::new(Method::Coop, &a, &b))
            .expect_err("no cooperative matrices on this adapter");
        assert!(matches!(err, Error::MissingFeature { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("not supported on this adapter")
                && msg.contains("EXPERIMENTAL_COOPERATIVE_MATRIX"),
            "{msg}"
        );
        return;
    }
    let mut shapes = SHAPES.to_vec();
    shapes.push((512, 512, 512));
    for v in coop::VARIANTS {
        for (i, &(m, k, n)) in shapes.iter().enumerate() {
            let (a, b) = inputs(m, k, n, 60 + 2 * i as u64);
            let kernels = Kernels {
                coop: Some(*v),
                ..Default::default()
            };
            let out = run_variant(Method::Coop, kernels, &a, &b)
                .unwrap_or_else(|e| panic!("coop {} {m}x{k}x{n}: {e}", v.name));
            let verdict = out.verdict(&a, &b);
            assert!(
                verdict.passed,
                "coop {} {m}x{k}x{n}: error/bound {:?}, rel_err {:e}",
                v.name, verdict.f16_bound_ratio, verdict.stats.rel_err
            );
        }
    }
}

/// The command line prints the same not-supported error as one line (and exits non-zero).
#[test]
fn coop_not_supported_message_from_the_command_line() {
    if has_coop() {
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args([
            "multiply", "--method", "coop", "--random", "8x8x8", "--check",
        ])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(
        errors[0].contains("coop is not supported on this adapter"),
        "{stderr}"
    );
}

#[test]
fn coop_refuses_values_beyond_f16() {
    let mut a = Matrix::random(4, 4, 1, -1.0, 1.0);
    a.set(2, 3, 1.0e5);
    let e = coop::check_f16_range(&a, "A").unwrap_err();
    assert!(matches!(e, Error::OutOfRange { .. }), "{e}");
}

/// `m` (or `mᵀ` when `transpose`) zero-padded to `rows × cols`, written plainly element by
/// element: the expectation both layout paths are held to, independent of `layout_rows`.
fn padded(m: &Matrix, transpose: bool, rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; rows * cols];
    for p in 0..rows {
        for q in 0..cols {
            let (i, j) = if transpose { (q, p) } else { (p, q) };
            if i < m.rows && j < m.cols {
                out[p * cols + q] = m.get(i, j);
            }
        }
    }
    out
}

/// Both layout paths — the device's layout pass (`shaders/layout.wgsl`: what cs-fast's operands
/// go through on a real GPU) and the host's `layout_rows` on the way into staging memory —
/// against the transpose and padding written plainly in the test, bit for bit, transposed and
/// not, on shapes that are and are not whole tiles of 16, padded and not.
#[test]
fn both_layout_paths_transpose_and_pad_bit_for_bit_as_written_plainly() {
    use rendermm::gpu::buffer::layout_rows;
    use rendermm::gpu::layout::{Where, upload_laid_out_at};
    let shapes = [
        (1, 1),
        (1, 7),
        (7, 1),
        (13, 5),
        (16, 16),
        (37, 100),
        (129, 31),
    ];
    for (i, &(r, c)) in shapes.iter().enumerate() {
        let m = Matrix::random(r, c, 90 + i as u64, -1.0, 1.0);
        for transpose in [false, true] {
            let (lr, lc) = if transpose { (c, r) } else { (r, c) };
            for (rows, cols) in [
                (lr, lc),
                (lr + 3, lc),
                (lr, lc + 17),
                (lr.div_ceil(16) * 16 + 16, lc.div_ceil(64) * 64),
            ] {
                let want = padded(&m, transpose, rows, cols);
                // The host model by itself, row by row as the staging upload takes it.
                let mut host = vec![];
                layout_rows(&m, transpose, rows, cols, |row| {
                    assert_eq!(row.len(), cols, "layout_rows hands whole rows");
                    host.extend_from_slice(row);
                });
                assert!(
                    host.len() == want.len()
                        && host
                            .iter()
                            .zip(&want)
                            .all(|(h, w)| h.to_bits() == w.to_bits()),
                    "layout_rows {r}x{c} transpose={transpose} to {rows}x{cols}"
                );
                for at in [Where::Device, Where::Host] {
                    let (buf, finite) =
                        upload_laid_out_at(ctx(), at, "operand", &m, transpose, rows, cols)
                            .unwrap_or_else(|e| {
                                panic!("{r}x{c} t={transpose} to {rows}x{cols} {at:?}: {e}")
                            });
                    assert!(
                        finite,
                        "{r}x{c} t={transpose} {at:?}: finite input seen as not"
                    );
                    // The same upload with one NaN in it says so (the scan rides on the copy).
                    if r * c > 0 {
                        let mut bad = m.clone();
                        bad.data[(r * c) / 2] = f32::NAN;
                        let (_, finite) =
                            upload_laid_out_at(ctx(), at, "operand", &bad, transpose, rows, cols)
                                .unwrap();
                        assert!(!finite, "{r}x{c} t={transpose} {at:?}: a NaN went unseen");
                    }
                    let got = buf.read_matrix(ctx()).unwrap();
                    assert_eq!((got.rows, got.cols), (rows, cols));
                    let same = got
                        .data
                        .iter()
                        .zip(&want)
                        .all(|(g, w)| g.to_bits() == w.to_bits());
                    assert!(
                        same,
                        "{r}x{c} transpose={transpose} to {rows}x{cols} at {at:?}"
                    );
                }
            }
        }
    }
    // A padding that would cut the matrix is refused in one line.
    let m = Matrix::random(5, 9, 1, -1.0, 1.0);
    let e = upload_laid_out_at(ctx(), Where::Device, "A", &m, true, 8, 4)
        .err()
        .expect("refused");
    assert!(e.to_string().contains("would cut it"), "{e}");
}

/// Storage buffers go back to the context's pool and the next product of the same shape takes
/// them: each product is still its own (what the last one left in a buffer never shows), every
/// compute method in turn on the same buffers.
#[test]
fn pooled_storage_buffers_never_carry_one_product_into_the_next() {
    let ctx = rendermm::gpu::GpuContext::new().expect("an adapter");
    let (m, k, n) = (33, 65, 17);
    for (i, method) in [
        Method::CsFast,
        Method::CsTiled16,
        Method::DnsTiled,
        Method::CannonTiled,
        Method::CsFast,
    ]
    .into_iter()
    .enumerate()
    {
        let (a, b) = inputs(m, k, n, 300 + 2 * i as u64);
        let out = plan::multiply(Some(&ctx), plan::Request::new(method, &a, &b))
            .unwrap_or_else(|e| panic!("{method:?}: {e}"));
        hold(&format!("{method:?} run {i}"), out.arith, &a, &b, &out.c);
        let (held, _) = ctx.staging.storage_pooled();
        assert!(held >= 1, "after run {i} the pool holds the run's buffers");
    }
}

/// Host to host is the call's own wall clock (`Timings::wall_ms`, a stopwatch around
/// `plan::multiply`): it holds every timed phase, it is what a stopwatch around the call reads,
/// and at 1024³ on cs-fast the call spends at most a tenth of it outside the phases (checking,
/// laying out and cropping cost little beside the product). The first call builds the
/// pipelines and is left out, as every warm figure leaves it out.
#[test]
fn host_to_host_is_the_calls_wall_clock_and_little_of_it_is_outside_the_phases() {
    let n = 1024;
    let a = Matrix::random(n, n, 7, -1.0, 1.0);
    let b = Matrix::random(n, n, 8, -1.0, 1.0);
    let run = || plan::multiply(Some(ctx()), plan::Request::new(Method::CsFast, &a, &b)).unwrap();
    let _first = run();
    let started = std::time::Instant::now();
    let out = run();
    let stopwatch_ms = started.elapsed().as_secs_f64() * 1e3;
    let t = &out.timings;
    assert!(
        t.wall_ms >= t.total_ms() && t.wall_ms <= stopwatch_ms,
        "wall {} ms, phases {} ms, stopwatch {stopwatch_ms} ms",
        t.wall_ms,
        t.total_ms()
    );
    assert!(
        t.outside_ms() <= 0.10 * t.wall_ms,
        "{} ms of {} ms outside the phases ({t:?})",
        t.outside_ms(),
        t.wall_ms
    );
}

/// C read back into memory the caller keeps (`Request::reusing`): the same bits as a product
/// read into fresh memory, in the caller's memory itself where it is large enough (the
/// outcome's C starts where the vector did) for the compute methods, which read C back as it
/// lies; grown where it is not. lm, which decodes its texture on the host, gives the same C.
#[test]
fn c_read_back_into_memory_the_caller_keeps() {
    use rendermm::plan::{self, Request};
    for method in [Method::CsFast, Method::CsNaive, Method::Lm] {
        for &(m, k, n) in &[(1, 1, 1), (37, 19, 131), (130, 7, 66)] {
            let a = Matrix::random(m, k, 3, -1.0, 1.0);
            let b = Matrix::random(k, n, 4, -1.0, 1.0);
            let fresh = plan::multiply(Some(ctx()), Request::new(method, &a, &b)).unwrap();
            // Memory of the right size full of other values, then memory too short.
            for memory in [vec![f32::NAN; m * n + 5], vec![7.0; 1]] {
                let (at, fits) = (memory.as_ptr(), memory.capacity() >= m * n);
                let out = plan::multiply(Some(ctx()), Request::new(method, &a, &b).reusing(memory))
                    .unwrap();
                let same = out.c.rows == m
                    && out.c.cols == n
                    && out
                        .c
                        .data
                        .iter()
                        .zip(fresh.c.data.iter())
                        .all(|(x, y)| x.to_bits() == y.to_bits());
                assert!(same, "{method} {m}x{k}x{n}: C differs from a fresh read");
                if fits && method != Method::Lm {
                    assert_eq!(
                        out.c.data.as_ptr(),
                        at,
                        "{method} {m}x{k}x{n}: not read into the caller's memory"
                    );
                }
            }
        }
    }
}
