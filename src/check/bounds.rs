//! The f32 and f16-input bounds the judge holds results to: the worst case, the partial-sum
//! bound and the statistical one ([`f32_element_bounds`]), each in words for the verdict.

use super::Reference;
use crate::matrix::Matrix;
use crate::precision::{self, F16_UNIT_ROUNDOFF, Pipeline};

/// An elementwise bound on |C − C_ref|: `rel`·Σ_p|A_ip||B_pj| + `abs`·(Σ_p|A_ip| + Σ_p|B_pj|)
/// + `floor`.
#[derive(Clone, Copy, Debug)]
pub struct ElementBound {
    pub rel: f64,
    pub abs: f64,
    pub floor: f64,
}

/// γ_n for unit `u`: n·u / (1 − n·u) (Higham, *Accuracy and Stability of Numerical
/// Algorithms*, Lemma 3.1), held finite past n·u = 1 (where it bounds nothing useful).
pub fn gamma(n: f64, u: f64) -> f64 {
    let nu = n * u;
    nu / (1.0 - nu).max(1e-3)
}

/// The worst-case f32 bound: every element within
///
/// |C − C_ref| ≤ γ_(k+1)(2u)·Σ_p|A_ip||B_pj| + 2⁻¹²⁶·(2k + 2),  u = 2⁻²⁴.
///
/// Why: an inner product of length k summed in any order — one long loop, a tree, tiles of k
/// added on the GPU, split-k chunks added on the host in f64 and rounded once, with or without
/// fused multiply-adds — puts every product through at most k + 1 roundings (its own, the
/// k − 1 additions on its way to the root of the sum, the final rounding of a host sum), so
/// |ĉ − c| ≤ γ_(k+1)·Σ|a||b| (Higham Lemma 3.1, §3.1: the order of summation only changes
/// which terms meet fewer roundings). The unit is 2u = 2⁻²³, one unit in the last place rather
/// than half, because a GPU's f32 add and the blend unit are promised faithful, not correctly
/// rounded, results (WGSL allows 1 ULP for f32 addition). The absolute term covers flush to
/// zero of products and partial sums under 2⁻¹²⁶ (at most 2⁻¹²⁶ each), which GPUs may apply;
/// a subnormal *input* is not covered: the render-pass methods, which flush them, refuse them
/// (`plan`), and a flushed input elsewhere fails the check.
///
/// This bound is reached only where the terms do not cancel (all of one sign). With terms of
/// both signs it outgrows the product itself (past k ≈ 140 000 for inputs in [−1, 1] it is
/// twice |A·B| everywhere, so an all-zero C would pass), and the judge holds each element to
/// the smaller of this and the bounds of [`f32_element_bounds`].
pub fn f32_bound(k: usize) -> ElementBound {
    let tiny = 2f64.powi(-126);
    ElementBound {
        rel: gamma(k as f64 + 1.0, 2.0 * precision::F32_UNIT_ROUNDOFF),
        abs: 0.0,
        floor: (2.0 * k as f64 + 2.0) * tiny,
    }
}

/// The chance the statistical bound of [`f32_element_bounds`] may be exceeded by a correct
/// result, for the whole matrix: λ is chosen so that it is at most this.
pub const STATISTICAL_RISK: f64 = 1e-9;

/// λ of the statistical bound for a C of `elements` elements: 2·elements·exp(−λ²/2) =
/// [`STATISTICAL_RISK`] (Azuma–Hoeffding for each element, a union bound over them); about 6.5
/// for one element, 8.7 for 4096².
pub fn statistical_lambda(elements: usize) -> f64 {
    (2.0 * (2.0 * elements.max(1) as f64 / STATISTICAL_RISK).ln()).sqrt()
}

/// Each element's f32 bound: the smallest of three, plus 2⁻¹²⁶·(2k + 2) for flushed products
/// and partial sums. With ε = 2u = 2⁻²³ (one unit in the last place per rounding, as
/// [`f32_bound`] explains), S = Σ_p|a_ip||b_pj|, W the widest run of consecutive terms of the
/// element's sum and T its largest product ([`Runs`](super::reference::Runs)):
///
/// 1. **worst case**, γ_(k+1)(ε)·S ([`f32_bound`]);
/// 2. **partial sums**, ε·(2k·W + S)/(1 − (k+1)ε). A sum in any order makes at most k
///    roundings of partial sums (k − 1 additions and a final one), each off by at most ε times
///    the partial sum (N. J. Higham, "The Accuracy of Floating Point Summation", SIAM J. Sci.
///    Comput. 14(4), 783–799, 1993, doi:10.1137/0914050: any order of summation errs by at most
///    u times the sum of its computed partial sums), and ε·S
///    covers the rounding of the products. Every method here adds runs of consecutive terms —
///    one loop, tiles, split-k chunks, DNS's tree of k-slabs — or, in Cannon's skewed order, runs
///    that wrap around, whose sums are at most 2W. With terms of one sign W = S and this is
///    twice the worst case; with both signs W grows like √k and the bound like k^1.5·u instead
///    of k²·u;
/// 3. **statistical**, λ·ε·√k·(2W + T), only where the terms cancel (2W·√k ≤ 16·S, as terms of
///    random sign do: W ≈ 2S/√k there). If the rounding errors are independent and of mean
///    zero — the model of Higham & Mary's probabilistic analysis (N. J. Higham and T. Mary, "A
///    New Approach to Probabilistic Rounding Error Analysis", SIAM J. Sci. Comput. 41(5),
///    A2815–A2835, 2019, doi:10.1137/18M1226312) — the error is a sum of at most 2k terms
///    δ·x with |δ| ≤ ε, |x| ≤ 2W or T, and exceeds λ·ε·√(Σx²) with probability at most
///    2·exp(−λ²/2) (Azuma–Hoeffding). λ ([`statistical_lambda`]) makes the chance that a
///    correct C fails anywhere at most [`STATISTICAL_RISK`]. Where the terms do not cancel (all
///    of one sign, or in long runs of one sign) rounding errors can share a sign, so the
///    statistical bound is not used there.
///
/// At k = 2·10⁵ with inputs in [−1, 1] the three are about 1190, 11 and 0.17 per element
/// against |C| ≈ 150: an all-zero C fails, and so does a C short of one slice (one a_ip·b_pj
/// per element, 0.25 on average).
pub fn f32_element_bounds(a: &Matrix, b: &Matrix, r: &Reference) -> Vec<f64> {
    let k = a.cols;
    let kf = k as f64;
    let eps = 2.0 * precision::F32_UNIT_ROUNDOFF;
    let worst = f32_bound(k);
    let runs = r.runs(a, b);
    let lambda = statistical_lambda(r.c.len());
    let det = if (kf + 1.0) * eps < 0.5 {
        eps / (1.0 - (kf + 1.0) * eps)
    } else {
        f64::INFINITY
    };
    r.abs(a, b)
        .iter()
        .zip(&runs.widest)
        .zip(&runs.largest)
        .map(|((&s, &w), &t)| {
            let partial = det * (2.0 * kf * w + s);
            let cancel = 2.0 * w * kf.sqrt() <= 16.0 * s;
            let statistical = if cancel {
                lambda * eps * kf.sqrt() * (2.0 * w + t)
            } else {
                f64::INFINITY
            };
            // f64::min ignores NaN (non-finite inputs): the worst case then decides.
            (worst.rel * s).min(partial).min(statistical) + worst.floor
        })
        .collect()
}

/// The f32 bound in words.
pub(super) fn f32_bound_words(k: usize, elements: usize) -> String {
    format!(
        "every element within the least of gamma_(k+1)·S, 2u·(2k·W + S)/(1 - (k+1)·2u) and, where \
         the terms cancel, lambda·2u·sqrt(k)·(2W + T) (lambda = {:.1}: a correct result fails with \
         probability under {STATISTICAL_RISK:e}), plus 2^-126·(2k + 2); S = sum|a||b|, W = the widest \
         run of terms, T = the largest, gamma_n = n·2u/(1 - n·2u), u = 2^-24, k = {k} \
         (check::f32_element_bounds)",
        statistical_lambda(elements)
    )
}

/// The bound for f16 inputs and f32 sums (`coop`, `frag-mrt-f16`): every element within
///
/// |ĉ_ij − c_ij| ≤ (2u + u² + (1 + u)²·γ_k)·S_ij + 2⁻²⁴·(R_i + K_j) + k·2⁻⁴⁸
///
/// with S_ij = Σ_p |a_ip|·|b_pj|, R_i = Σ_p |a_ip|, K_j = Σ_p |b_pj|, u = 2⁻¹¹ (f16 unit
/// roundoff) and γ_k = k·2⁻²² / (1 − k·2⁻²²). Derivation:
/// - each input is rounded to f16 once: â = a(1 + δ) + η with |δ| ≤ u, and |η| ≤ 2⁻²⁵ (half the
///   subnormal spacing 2⁻²⁴) for values under 2⁻¹⁴ that round to f16 subnormals;
/// - so |âb̂ − ab| ≤ (2u + u²)|a||b| + 2⁻²⁵(1 + u)(|a| + |b|) + 2⁻⁵⁰ per product; summed over p
///   that gives the S, R + K and k terms (2⁻²⁴ covers 2⁻²⁵(1 + u) with the accumulation's
///   growth for any k < 2²¹);
/// - the products of two f16 are exact in f32 (11 + 11 significant bits ≤ 24), and the f32
///   accumulation costs at most γ_k·Σ|â||b̂| ≤ γ_k(1 + u)²·S. Round-to-nearest would give
///   2⁻²⁴ per addition; γ is taken with 2⁻²² per product because tensor cores align the addends
///   of a multiply-add to the largest and truncate them (Fasi et al., "Numerical behavior of
///   NVIDIA tensor cores", 2021): up to a unit in the last place (2⁻²³ relative) for each
///   product, and as much again for the running sum each time it enters a multiply-add. In a
///   fragment shader (`frag-mrt-f16`) each f32 addition errs by at most one unit in the last
///   place (WGSL's faithful rounding), inside the same 2⁻²².
pub fn f16_inputs_bound(k: usize) -> ElementBound {
    let u = F16_UNIT_ROUNDOFF;
    let g = gamma(k as f64, 2f64.powi(-22));
    ElementBound {
        rel: 2.0 * u + u * u + (1.0 + u) * (1.0 + u) * g,
        abs: 2f64.powi(-24),
        floor: k as f64 * 2f64.powi(-48),
    }
}

/// The bound of [`f16_inputs_bound`] in words.
pub fn f16_inputs_bound_words(k: usize, tensor_cores: bool) -> String {
    let sums = if tensor_cores {
        "f32 accumulation on tensor cores, truncating"
    } else {
        "f32 sums, 2^-22 per addition covering WGSL's faithful rounding of 2^-23"
    };
    format!(
        "every element within (2u + u^2 + (1+u)^2·gamma_k)·sum|a||b| + 2^-24·(sum_p|a_ip| + sum_p|b_pj|) + k·2^-48, \
         u = 2^-11 (inputs rounded to f16), gamma_k = k·2^-22/(1 - k·2^-22) ({sums}, k = {k})"
    )
}

impl ElementBound {
    /// The bound for every element of `a · b` (row-major).
    #[cfg(feature = "internals")]
    pub fn of(self, a: &Matrix, b: &Matrix) -> Vec<f64> {
        self.of_abs(a, b, &precision::abs_product(a, b))
    }

    /// [`ElementBound::of`] with |A|·|B| (`abs`, row-major) already at hand.
    pub fn of_abs(self, a: &Matrix, b: &Matrix, abs: &[f64]) -> Vec<f64> {
        let (row_abs, col_abs) = precision::abs_sums(a, b);
        abs.iter()
            .enumerate()
            .map(|(idx, &s)| {
                let (i, j) = (idx / b.cols, idx % b.cols);
                self.rel * s + self.abs * (row_abs[i] + col_abs[j]) + self.floor
            })
            .collect()
    }
}

/// Elementwise error bound for an f16 run: inputs rounded to f16 (relative error u each) and a
/// running sum of k terms rounded to f16 after every blend give
/// |C − C_ref| ≤ γ_{k+3} · Σ_p |A_ip|·|B_pj| + (k+3)·2⁻²⁴, with γ_n = n·u / (1 − n·u) and
/// u = 2⁻¹¹ (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1): each term meets at
/// most k + 3 roundings (A, B, the product, and the k − 1 sums... plus the stored value), and the
/// absolute term covers f16 subnormals (spacing 2⁻²⁴) near zero: half a spacing per rounding,
/// doubled to absorb the second-order terms, as in [`f16_bound_blocked`]. (With half a spacing
/// alone, the randomized sweep found L-M runs on inputs of magnitude 1e-3 — products in the
/// subnormal range — up to 1.2 times over.) Returns the bound per element.
pub fn f16_bound(a: &Matrix, b: &Matrix) -> Vec<f64> {
    let k = a.cols as f64;
    let nu = (k + 3.0) * F16_UNIT_ROUNDOFF;
    let gamma = nu / (1.0 - nu).max(1e-3);
    let floor = (k + 3.0) * 2f64.powi(-24);
    precision::abs_product(a, b)
        .into_iter()
        .map(|s| gamma * s + floor)
        .collect()
}

/// Elementwise error bound for an f16 run of a blocked pipeline with `passes` (T) passes, each
/// fragment summing at most `f32_terms` (t) products in f32 registers before the store:
///
/// |C − C_ref| ≤ γ·Σ_p |A_ip|·|B_pj| + (T + 1 + Σ_p (|A_ip| + |B_pj|))·2⁻²⁴,
/// γ = θ/(1 − θ), θ = (T + 3)·u + t·u₃₂, u = 2⁻¹¹, u₃₂ = 2⁻²⁴.
///
/// Derivation (round to nearest, fl(x) = x(1 + δ) + η with |δ| ≤ u, |η| ≤ 2⁻²⁵ the half
/// spacing of f16 subnormals, δη = 0; Higham, *Accuracy and Stability*, §2.1 and Lemma 3.1 with
/// Π(1 + δ_i)^±1 − 1 ≤ e^{Σu_i} − 1 ≤ Σu_i/(1 − Σu_i)): a product term a·b meets
/// - 2 f16 roundings of the inputs; their product is exact in f32 (22 significand bits ≤ 24);
/// - at most t f32 roundings in the shader: t − 1 adds of the block sum, plus the add of F;
/// - the f16 store of each pass from its own to the last: at most T;
/// - in blend mode, one more: the block sum entering an f16 blend unit. Hence T + 3.
///
/// The η of the stores (at most T + 1) add absolutely, and those of the inputs contribute
/// η_a·b + η_b·a per product; with the (1 + γ) they pick up after, all fit in
/// (T + 1 + Σ_p(|a| + |b|))·2⁻²⁴ while γ ≤ ½. L-M's bound ([`f16_bound`]) has T = k: one store per
/// product; here T = ⌈k/b⌉, so the bound is about b times tighter.
pub fn f16_bound_blocked(a: &Matrix, b: &Matrix, passes: usize, f32_terms: usize) -> Vec<f64> {
    let t = passes as f64;
    let theta = (t + 3.0) * F16_UNIT_ROUNDOFF + f32_terms as f64 * precision::F32_UNIT_ROUNDOFF;
    let gamma = theta / (1.0 - theta).max(1e-3);
    let tiny = 2f64.powi(-24);
    let (row_abs, col_abs) = precision::abs_sums(a, b);
    precision::abs_product(a, b)
        .into_iter()
        .enumerate()
        .map(|(idx, s)| {
            let (i, j) = (idx / b.cols, idx % b.cols);
            gamma * s + (t + 1.0 + row_abs[i] + col_abs[j]) * tiny
        })
        .collect()
}

/// The elementwise f16 error bound of `pipeline` ([`f16_bound`] for L-M,
/// [`f16_bound_blocked`] for the Hall methods).
pub fn f16_pipeline_bound(pipeline: Pipeline, a: &Matrix, b: &Matrix) -> Vec<f64> {
    let k = a.cols;
    match pipeline {
        Pipeline::Slices | Pipeline::FixedFunction(_) => f16_bound(a, b),
        _ => f16_bound_blocked(a, b, pipeline.pass_count(k), pipeline.f32_terms(k)),
    }
}

/// The f16 bound of `pipeline` in words, for reports.
pub fn f16_pipeline_bound_words(pipeline: Pipeline, k: usize) -> String {
    match pipeline {
        Pipeline::Slices | Pipeline::FixedFunction(_) => format!(
            "every element within gamma_(k+3)·sum|a||b| + (k+3)·2^-24, u = 2^-11 (f16 accumulation, k = {k})"
        ),
        _ => format!(
            "every element within gamma·sum|a||b| + (T+1 + sum|a|+|b|)·2^-24, gamma from (T+3)·2^-11 + t·2^-24 \
             (f16 store once per pass: T = {} passes, t = {} f32-summed products per pass)",
            pipeline.pass_count(k),
            pipeline.f32_terms(k)
        ),
    }
}
