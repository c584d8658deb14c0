//! Larsen–McAllister against the f64 CPU reference, held by the judge to the f32 bound.

mod common;
use common::{SHAPES, ctx, hold};
use rendermm::gpu::{GpuContext, MatrixTexture};
use rendermm::methods::{Method, Observer};
use rendermm::plan::{self, Options};
use rendermm::precision::Precision;
use rendermm::{Error, Matrix};

fn run(m: usize, k: usize, n: usize, seed: u64) {
    let a = Matrix::random(m, k, seed, -1.0, 1.0);
    let b = Matrix::random(k, n, seed + 1, -1.0, 1.0);
    let out = plan::multiply(Some(ctx()), plan::Request::new(Method::Lm, &a, &b)).unwrap();
    assert_eq!(out.passes, k, "one pass per k-slice");
    hold(&format!("lm {m}x{k}x{n}"), out.arith, &a, &b, &out.c);
}

#[test]
fn lm_matches_f64_reference_on_awkward_shapes() {
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        run(m, k, n, 100 + i as u64);
    }
}

#[test]
fn lm_matches_f64_reference_on_random_shapes() {
    let mut rng = 12345u64;
    for _ in 0..6 {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let m = 1 + (rng >> 33) as usize % 150;
        let k = 1 + (rng >> 13) as usize % 150;
        let n = 1 + (rng >> 45) as usize % 150;
        run(m, k, n, rng);
    }
}

/// Counts observer calls and checks the running sum after each slice equals the partial product.
struct Partial<'a> {
    a: &'a Matrix,
    b: &'a Matrix,
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
        assert_eq!(passes, self.a.cols);
        let c = acc.read_matrix(ctx)?;
        let a_p = Matrix::from_fn(self.a.rows, pass, |i, j| self.a.get(i, j));
        let b_p = Matrix::from_fn(pass, self.b.cols, |i, j| self.b.get(i, j));
        // The running sum of an f32 run: held to what L-M promises in f32, for the slices so far.
        let arith = plan::arith(Method::Lm, Precision::F32, &Options::default());
        hold(&format!("slice {pass}"), arith, &a_p, &b_p, &c);
        self.seen.push(pass);
        Ok(())
    }
}

#[test]
fn lm_observer_sees_every_slice_as_a_partial_sum() {
    let a = Matrix::random(5, 6, 1, -1.0, 1.0);
    let b = Matrix::random(6, 3, 2, -1.0, 1.0);
    let mut obs = Partial {
        a: &a,
        b: &b,
        seen: vec![],
    };
    let req = plan::Request::new(Method::Lm, &a, &b).observed(&mut obs);
    let out = plan::multiply(Some(ctx()), req).unwrap();
    hold("lm with observer", out.arith, &a, &b, &out.c);
    assert_eq!(obs.seen, (1..=6).collect::<Vec<_>>());
}

#[test]
fn lm_rejects_a_dimension_above_the_texture_limit_with_no_tile() {
    // Without --no-tile such a product is tiled (tests/tiled.rs).
    let max = ctx().limits.max_texture_dimension_2d as usize;
    let a = Matrix::zeros(1, 1);
    let b = Matrix::zeros(1, max + 1);
    let mut opts = Options::default();
    opts.no_tile = true;
    let err = plan::multiply(
        Some(ctx()),
        plan::Request::new(Method::Lm, &a, &b).options(opts.clone()),
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
    assert!(err.to_string().contains(&max.to_string()), "{err}");
}
