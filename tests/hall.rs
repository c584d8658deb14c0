//! Hall–Carr–Hart (2003): the blocked and the channel-packed multiply against the f64 CPU
//! reference, their pass counts, the packed layout, the observer's partial sums, and the model's
//! numbers for the paper's n = 1024, b = 32 example.

mod common;
use common::{SHAPES, ctx, hold};
use rendermm::gpu::{GpuContext, MatrixTexture};
use rendermm::methods::hall_packed::{pack, read_unpacked, unpack, upload_packed};
use rendermm::methods::{Accumulate, Method, Observer};
use rendermm::model;
use rendermm::plan::{self, Options};
use rendermm::precision::Precision;
use rendermm::{Error, Matrix};

const HALL: [Method; 2] = [Method::HallBlocked, Method::HallPacked];

/// Passes a run of `method` with block `b` takes over inner dimension `k`.
fn expected_passes(method: Method, k: usize, b: u32) -> usize {
    match method {
        Method::HallPacked => k.div_ceil(2).div_ceil(b as usize),
        _ => k.div_ceil(b as usize),
    }
}

fn run(
    method: Method,
    (m, k, n): (usize, usize, usize),
    b: Option<u32>,
    acc: Accumulate,
    seed: u64,
) {
    let a = Matrix::random(m, k, seed, -1.0, 1.0);
    let bm = Matrix::random(k, n, seed + 1, -1.0, 1.0);
    let opts = Options {
        block: b,
        accumulate: acc,
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx()),
        plan::Request::new(method, &a, &bm).options(opts.clone()),
    )
    .unwrap();
    let label = format!("{method} {m}x{k}x{n} b={b:?} {acc}");
    assert_eq!(
        out.passes,
        expected_passes(method, k, b.unwrap_or(32)),
        "{label}: passes"
    );
    hold(&label, out.arith, &a, &bm, &out.c);
}

#[test]
fn hall_matches_f64_reference_on_awkward_shapes() {
    for method in HALL {
        for (i, &shape) in SHAPES.iter().enumerate() {
            run(method, shape, None, Accumulate::PingPong, 300 + i as u64);
        }
    }
}

#[test]
fn hall_matches_f64_reference_on_odd_sizes_in_every_accumulate_mode() {
    for method in HALL {
        for &acc in Accumulate::ALL {
            for (i, &shape) in [(1, 1, 1), (3, 5, 7), (33, 65, 17)].iter().enumerate() {
                run(method, shape, Some(4), acc, 400 + i as u64);
            }
        }
    }
}

#[test]
fn hall_handles_blocks_that_do_not_divide_k() {
    for method in HALL {
        for (i, &k) in [37usize, 64, 257].iter().enumerate() {
            for (j, &b) in [1u32, 3, 32, 100].iter().enumerate() {
                // Every mode is covered for each b, spread over the k values to keep this quick.
                let acc = Accumulate::ALL[(i + j) % 3];
                run(method, (9, k, 11), Some(b), acc, 500 + (i * 4 + j) as u64);
            }
        }
    }
}

#[test]
fn hall_blocked_with_b1_and_blending_equals_larsen_mcallister_bit_for_bit() {
    let a = Matrix::random(13, 21, 7, -1.0, 1.0);
    let b = Matrix::random(21, 6, 8, -1.0, 1.0);
    let lm = plan::multiply(Some(ctx()), plan::Request::new(Method::Lm, &a, &b)).unwrap();
    let opts = Options {
        block: Some(1),
        accumulate: Accumulate::Blend,
        ..Default::default()
    };
    let hall = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::HallBlocked, &a, &b).options(opts.clone()),
    )
    .unwrap();
    assert_eq!(hall.passes, lm.passes);
    assert_eq!(hall.c, lm.c);
}

#[test]
fn hall_copy_mode_reports_copy_time_and_the_others_none() {
    let a = Matrix::random(40, 96, 9, -1.0, 1.0);
    let b = Matrix::random(96, 40, 10, -1.0, 1.0);
    for &acc in Accumulate::ALL {
        let opts = Options {
            block: Some(8),
            accumulate: acc,
            ..Default::default()
        };
        let out = plan::multiply(
            Some(ctx()),
            plan::Request::new(Method::HallBlocked, &a, &b).options(opts.clone()),
        )
        .unwrap();
        let t = &out.timings;
        assert!(t.copy_ms.is_finite() && t.compute_ms > 0.0, "{acc}: {t:?}");
        if acc == Accumulate::Copy {
            assert!(
                out.notes
                    .iter()
                    .any(|n| n.contains("11 framebuffer-to-F copies")),
                "{:?}",
                out.notes
            );
        } else {
            assert_eq!(t.copy_ms, 0.0, "{acc}");
        }
    }
}

#[test]
fn hall_packing_round_trip_is_the_identity() {
    for (rows, cols) in [(1, 1), (1, 2), (2, 1), (3, 5), (4, 4), (33, 65), (7, 1)] {
        let x = Matrix::random(rows, cols, (rows * 100 + cols) as u64, -1.0, 1.0);
        let packed = pack(&x);
        assert_eq!(packed.len(), rows.div_ceil(2) * cols.div_ceil(2));
        assert_eq!(
            unpack(&packed, rows, cols).unwrap(),
            x,
            "{rows}x{cols} on the CPU"
        );
        let tex = upload_packed(ctx(), "X", &x).unwrap();
        assert_eq!(
            read_unpacked(ctx(), &tex, rows, cols).unwrap(),
            x,
            "{rows}x{cols} through a texture"
        );
    }
}

#[test]
fn hall_packing_follows_eq_8_with_zero_padding() {
    // X = (A B; C D) with a 3×3 X: quadrant sides are 2, so the last row and column are padding.
    let x = Matrix::from_fn(3, 3, |i, j| (10 * i + j) as f32 + 1.0);
    let t = pack(&x);
    // Texel (0,0): A[0][0], B[0][0] = X[0][2], C[0][0] = X[2][0], D[0][0] = X[2][2].
    assert_eq!(t[0], [1.0, 3.0, 21.0, 23.0]);
    // Texel (1,1): A[1][1] = X[1][1]; B, C and D fall in the padding.
    assert_eq!(t[3], [12.0, 0.0, 0.0, 0.0]);
}

#[test]
fn hall_rejects_a_zero_or_absurd_block_size() {
    let a = Matrix::zeros(2, 3);
    let b = Matrix::zeros(3, 2);
    for method in HALL {
        let opts = Options {
            block: Some(0),
            ..Default::default()
        };
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(opts.clone()),
        )
        .unwrap_err();
        assert!(
            matches!(err, Error::Invalid(_)) && err.to_string().contains("b = 0"),
            "{err}"
        );
        let opts = Options {
            block: Some(u32::MAX),
            ..Default::default()
        };
        let err = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(opts.clone()),
        )
        .unwrap_err();
        assert!(
            matches!(
                err,
                Error::Limit {
                    limit: "max_texture_dimension_2d",
                    ..
                }
            ),
            "{err}"
        );
    }
}

/// Checks that the running sum after each pass is the product over the p covered so far.
struct Partial<'a> {
    method: Method,
    a: &'a Matrix,
    b: &'a Matrix,
    block: usize,
    seen: Vec<usize>,
}

impl Observer for Partial<'_> {
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> rendermm::error::Result<()> {
        let (m, k, n) = (self.a.rows, self.a.cols, self.b.cols);
        assert_eq!(passes, expected_passes(self.method, k, self.block as u32));
        // The p summed so far: the first pass·b columns, or in the packed layout the first
        // pass·b packed columns of both halves of k.
        let covered: Vec<usize> = match self.method {
            Method::HallPacked => {
                let k2 = k.div_ceil(2);
                let end = (pass * self.block).min(k2);
                (0..end).chain(k2..(k2 + end).min(k)).collect()
            }
            _ => (0..(pass * self.block).min(k)).collect(),
        };
        let c = match self.method {
            Method::HallPacked => {
                assert_eq!(
                    acc.format,
                    wgpu::TextureFormat::Rgba32Float,
                    "the observer sees the packed texture"
                );
                read_unpacked(ctx, acc, m, n)?
            }
            _ => acc.read_matrix(ctx)?,
        };
        let a_p = Matrix::from_fn(m, covered.len(), |i, j| self.a.get(i, covered[j]));
        let b_p = Matrix::from_fn(covered.len(), n, |i, j| self.b.get(covered[i], j));
        // The running sum of an f32 run: held to what the method promises in f32, for the
        // products summed so far.
        let arith = plan::arith(self.method, Precision::F32, &Options::default());
        hold(
            &format!("{} after pass {pass}", self.method),
            arith,
            &a_p,
            &b_p,
            &c,
        );
        self.seen.push(pass);
        Ok(())
    }
}

#[test]
fn hall_observer_sees_every_pass_as_a_partial_sum() {
    let a = Matrix::random(5, 23, 1, -1.0, 1.0);
    let b = Matrix::random(23, 7, 2, -1.0, 1.0);
    for method in HALL {
        for &acc in Accumulate::ALL {
            let block = 3;
            let mut obs = Partial {
                method,
                a: &a,
                b: &b,
                block,
                seen: vec![],
            };
            let opts = Options {
                block: Some(block as u32),
                accumulate: acc,
                ..Default::default()
            };
            let req = plan::Request::new(method, &a, &b)
                .options(opts)
                .observed(&mut obs);
            let out = plan::multiply(Some(ctx()), req).unwrap();
            hold(
                &format!("{method} {acc} with observer"),
                out.arith,
                &a,
                &b,
                &out.c,
            );
            let passes = expected_passes(method, 23, block as u32);
            assert_eq!(obs.seen, (1..=passes).collect::<Vec<_>>(), "{method} {acc}");
        }
    }
}

#[test]
fn model_matches_the_papers_tables_for_n_1024_b_32() {
    let (n, b) = (1024u128, 32u128);
    let n3 = n * n * n;
    let nu = n as usize;
    let lm = model::model(Method::Lm, nu, nu, nu, 32).unwrap();
    assert_eq!(
        (lm.passes, lm.fragments_per_pass, lm.bytes_per_fragment),
        (n, n * n, 16)
    );
    assert_eq!(lm.total_bytes, 16 * n3);
    assert_eq!(
        (lm.instructions_per_fragment, lm.total_instructions),
        (2, 2 * n3)
    );

    let single = model::model(Method::HallBlocked, nu, nu, nu, 32).unwrap();
    assert_eq!((single.passes, single.fragments_per_pass), (n / b, n * n));
    assert_eq!(single.bytes_per_fragment, (2 * b + 2) * 4);
    assert_eq!(single.total_bytes, 8 * n3 * (b + 1) / b);
    assert_eq!(single.instructions_per_fragment, 2 * b + 4);
    assert_eq!(single.total_instructions, n3 * (2 * b + 4) / b);

    let multi = model::model(Method::HallPacked, nu, nu, nu, 32).unwrap();
    assert_eq!(
        (multi.passes, multi.fragments_per_pass),
        (n / (2 * b), (n / 2) * (n / 2))
    );
    assert_eq!(multi.bytes_per_fragment, (2 * b + 2) * 16);
    assert_eq!(multi.total_bytes, 4 * n3 * (b + 1) / b);
    // §5.3: "our multi-channel algorithm transfers 4.125 GB of data".
    assert_eq!(multi.total_bytes, 4_429_185_024);
    assert_eq!(multi.total_gib, 4.125);
    assert_eq!(multi.instructions_per_fragment, 3 * b + 4);
    assert_eq!(multi.total_instructions, n3 * (3 * b + 4) / (8 * b));

    // With b = 1 the blocked method moves exactly L-M's bytes (§5.1).
    assert_eq!(
        model::model(Method::HallBlocked, nu, nu, nu, 1)
            .unwrap()
            .total_bytes,
        lm.total_bytes
    );
    assert!(model::model(Method::CpuFast, nu, nu, nu, 32).is_none());
}

#[test]
fn model_of_a_run_follows_from_its_pass_count() {
    // 65×100×37 with b = 7: 15 passes, the last block 2 long.
    let m = model::model(Method::HallBlocked, 65, 100, 37, 7).unwrap();
    assert_eq!(m.passes, 15);
    assert_eq!(m.total_bytes, 4 * 65 * 37 * (2 * 100 + 2 * 15));
    assert_eq!(
        model::for_run(Method::HallBlocked, 65, 100, 37, 15)
            .unwrap()
            .total_bytes,
        m.total_bytes
    );
    let p = model::model(Method::HallPacked, 65, 100, 37, 7).unwrap();
    assert_eq!(p.passes, 8);
    assert_eq!(
        model::for_run(Method::HallPacked, 65, 100, 37, 8)
            .unwrap()
            .total_instructions,
        p.total_instructions
    );
}

#[test]
fn tune_times_every_candidate_and_picks_one_of_them() {
    let a = Matrix::random(16, 20, 1, -1.0, 1.0);
    let b = Matrix::random(20, 16, 2, -1.0, 1.0);
    let blocks = rendermm::bench::tune::candidates(Method::HallBlocked, 20);
    assert_eq!(blocks, vec![1, 2, 4, 8, 16, 20]);
    let mut calls = 0;
    let t = rendermm::bench::tune::tune(
        ctx(),
        Method::HallBlocked,
        &a,
        &b,
        Accumulate::PingPong,
        &blocks[3..],
        1,
        &mut |_, _, _| calls += 1,
    )
    .unwrap();
    assert_eq!(
        t.points.iter().map(|p| p.b).collect::<Vec<_>>(),
        vec![8, 16, 20]
    );
    assert_eq!(
        t.points.iter().map(|p| p.passes).collect::<Vec<_>>(),
        vec![3, 2, 1]
    );
    assert!(blocks.contains(&t.best));
    assert_eq!(calls, 3 * 2 + 1);
    assert!(
        rendermm::bench::tune::tune(
            ctx(),
            Method::Lm,
            &a,
            &b,
            Accumulate::PingPong,
            &[1],
            1,
            &mut |_, _, _| {}
        )
        .is_err()
    );
}
