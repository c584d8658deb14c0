//! `rendermm reach --bench`: the paper's figures 4-5 timed over a range of sizes, the copy
//! on the GPU beside the host round trip.

use super::{Breakdown, MAX_PRODUCTS, ReachOptions, Step, Transfer, check_side, power};
use crate::error::Error;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::reach::graph::Graph;
use serde::Serialize;

/// The paper's experiment: an n×n 0/1 matrix (`M = I + A` of a random graph with 2n edges)
/// multiplied by itself `powers` times, each result the next input (M, M², M⁴, …).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    pub n: usize,
    pub powers: usize,
    pub method: String,
    pub precision: String,
    pub adapter: String,
    pub transfer: Transfer,
    pub seed: u64,
    pub breakdown: Breakdown,
    /// Figure 4, per n×n matrix: one texture load.
    pub load_per_matrix_ms: f64,
    /// Figure 4: one copy (mean).
    pub copy_per_matrix_ms: f64,
    /// Figure 4: one copy by GPU timestamps (mean), where available.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub copy_gpu_per_matrix_ms: Option<f64>,
    /// Figure 4: one readback.
    pub readback_per_matrix_ms: f64,
    /// One product (mean).
    pub multiply_per_product_ms: f64,
    /// The paper's byte operations per second over the multiplies, (2n³ − n²) per product.
    pub gbops: f64,
    /// Share of the total time spent multiplying (figure 5's point).
    pub multiply_share: f64,
    pub notes: Vec<String>,
}

/// Run the experiment of figures 4-5.
pub fn bench(
    ctx: &GpuContext,
    n: usize,
    powers: usize,
    seed: u64,
    opts: &ReachOptions,
) -> Result<BenchReport> {
    if n == 0 {
        return Err(Error::Invalid(
            "--n 0: the matrix needs at least one row".into(),
        ));
    }
    if powers == 0 || powers > MAX_PRODUCTS {
        return Err(Error::Invalid(format!(
            "--powers {powers}: give 1 to {MAX_PRODUCTS} products"
        )));
    }
    check_side(ctx, opts, n)?;
    let g = Graph::random(n, 2 * n, false, seed)?;
    let steps = vec![Step::Square; powers];
    let run = power(ctx, &g.reach_base(), &steps, opts)?;
    let b = run.breakdown;
    let per = |total: f64, count: usize| {
        if count == 0 {
            0.0
        } else {
            total / count as f64
        }
    };
    let byte_ops = (2.0 * (n as f64).powi(3) - (n as f64).powi(2)) * powers as f64;
    Ok(BenchReport {
        n,
        powers,
        method: opts.method.name().into(),
        precision: run.precision.name().into(),
        adapter: ctx.describe(),
        transfer: opts.transfer,
        seed,
        load_per_matrix_ms: b.load_ms,
        copy_per_matrix_ms: per(b.copy_ms, b.copies),
        copy_gpu_per_matrix_ms: b.copy_gpu_ms.map(|g| per(g, b.copies)),
        readback_per_matrix_ms: b.readback_ms,
        multiply_per_product_ms: per(b.multiply_ms, b.products),
        gbops: byte_ops / (b.multiply_ms.max(1e-9) * 1e6),
        multiply_share: b.multiply_ms / b.total_ms().max(1e-12),
        breakdown: b,
        notes: run.notes,
    })
}

impl BenchReport {
    /// The breakdown as a table, one line each.
    pub fn table(&self) -> Vec<String> {
        let b = &self.breakdown;
        let copy_gpu =
            |v: Option<f64>| v.map_or(String::new(), |g| format!(" (GPU timestamps {g:.3})"));
        let mut out = vec![
            format!(
                "L-M §5 experiment: a {n}x{n} 0/1 matrix (I + A, random graph, seed {}) multiplied by itself {} times, each result the next input",
                self.seed,
                self.powers,
                n = self.n
            ),
            format!(
                "method {} ({}), {}",
                self.method, self.precision, self.transfer
            ),
            String::new(),
            format!(
                "{:<14} {:>6} {:>14} {:>14}   {}",
                "phase", "count", "per matrix ms", "total ms", "figure"
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5",
                "texture load", 1, self.load_per_matrix_ms, b.load_ms
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5{}",
                "GPU copy",
                b.copies,
                self.copy_per_matrix_ms,
                b.copy_ms,
                copy_gpu(self.copy_gpu_per_matrix_ms)
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   4, 5",
                "readback", 1, self.readback_per_matrix_ms, b.readback_ms
            ),
            format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   5",
                "multiplies", b.products, self.multiply_per_product_ms, b.multiply_ms
            ),
        ];
        if b.clamp_ms > 0.0 {
            out.push(format!(
                "{:<14} {:>6} {:>14.3} {:>14.3}   (f16/f32 only)",
                "clamp",
                b.products,
                b.clamp_ms / b.products.max(1) as f64,
                b.clamp_ms
            ));
        }
        out.push(format!(
            "{:<14} {:>6} {:>14} {:>14.3}",
            "total",
            "",
            "",
            b.total_ms()
        ));
        out.push(String::new());
        out.push(format!(
            "multiplies take {:.1}% of the total; {:.3} GBops ((2n³ − n²) byte operations per product over the multiply time); setup (pipelines, textures) {:.3} ms, not counted",
            100.0 * self.multiply_share,
            self.gbops,
            b.setup_ms
        ));
        for n in &self.notes {
            out.push(format!("note {n}"));
        }
        out
    }
}
