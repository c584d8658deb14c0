//! The analytic model of Hall, Carr & Hart (2003) §5: table 1 (bytes moved inside the GPU) and
//! table 2 (fragment-shader instructions) for Larsen–McAllister, the single-channel blocked
//! method and the 2×2 channel-packed one, generalised from n×n·n×n to m×k·k×n.
//!
//! The paper counts, per fragment per pass, one memory operation for each texture lookup and one
//! for the framebuffer write: 2b lookups of A and B, one of F, one write — (2b + 2) operations of
//! 4 bytes (single channel) or 16 bytes (RGBA). L-M moves 16 bytes per fragment (two texels, the
//! blend's read of the framebuffer and its write). Instructions: 2 per L-M fragment, 2b + 4 per
//! blocked fragment, 3b + 4 per packed fragment (§5.2; §3's 6 + 4b = 134 counts a less tuned
//! shader, table 2 uses 2b + 4).
//!
//! Generalised to m×k×n with blocks that need not divide k: single channel, P = ⌈k/b⌉ passes of
//! m·n fragments; packed, P = ⌈⌈k/2⌉/b⌉ passes of ⌈m/2⌉·⌈n/2⌉ fragments. The totals sum the real
//! passes, the last one summing only what is left of k, so
//!
//! | method | total bytes | total instructions |
//! |---|---|---|
//! | L-M | 16·m·n·k | 2·m·n·k |
//! | blocked | 4·m·n·(2k + 2P) | m·n·(2k + 4P) |
//! | packed | 16·m'·n'·(2k' + 2P) | m'·n'·(3k' + 4P) |
//!
//! (m' = ⌈m/2⌉, and so on), which are the paper's 16n³, 8n³(b+1)/b, 4n³(b+1)/b and 2n³,
//! n³(2b+4)/b, n³(3b+4)/(8b) when m = k = n and b divides the inner dimension. The totals depend
//! on b only through P, so a run's model follows from its pass count ([`for_run`]).
//!
//! [`model`] is the one entry point: methods without a model (the CPU ones, so far) give `None`;
//! [`try_model`] is the same with an error where a count would pass u128. The counts are exact
//! u128 at any side a `usize` holds up to about 2⁴⁰ ([`count`]), never wrapped.
//!
//! `frag-mrt` is counted the same way (texel lookups, framebuffer writes, F reads; vec4
//! instructions): R×C tiles, (R+C)/4 texels per step of k (halved by quad sharing, s = 2),
//! R·C/4 vec4 multiply-adds per step — 4n³(R+C)/(RCs) bytes of lookups, 0.375 bytes per flop at
//! the default 4×8 with sharing (Hall's packed method: about 2). Its b is steps of k per pass;
//! b ≥ k′ is its default single pass. `frag-mrt-f16`'s RGBA16F input texels halve the lookup
//! bytes (0.19 bytes per flop). See `docs/frag-mrt.md`.
//!
//! The compute-shader methods have their own model — global-memory words and the
//! computation-to-memory ratio — in [`crate::model::compute`](mod@crate::model::compute); [`compute`](fn@compute) is its entry point.

pub mod compute;
pub mod count;

use crate::error::{Error, Result};
use crate::methods::{Kernels, Method};
use count::Count;
use serde::Serialize;

/// Table 1 and table 2 of the paper for one method and one problem size. Every count is exact:
/// u128, computed with checked arithmetic ([`count`]), so that a model asked about sides no
/// device could hold (3·10⁶ cubed, 2³² cubed) says the true number; JSON prints it as a plain
/// integer of as many digits as it needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    pub method: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Block size b (products per fragment per pass); `None` for methods without blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<u32>,
    pub passes: u128,
    pub fragments_per_pass: u128,
    /// Bytes one fragment moves in a full pass (a short last block moves fewer).
    pub bytes_per_fragment: u128,
    /// Table 1's total: bytes moved by all passes.
    pub total_bytes: u128,
    /// `total_bytes` in GiB (the paper's "GB": 4.125 for n = 1024, b = 32, packed).
    pub total_gib: f64,
    /// Fragment-shader instructions of one fragment in a full pass.
    pub instructions_per_fragment: u128,
    /// Table 2's total: instructions over all passes.
    pub total_instructions: u128,
    /// The paper's closed forms for n×n·n×n, as in tables 1 and 2.
    pub paper_bytes_formula: &'static str,
    pub paper_instructions_formula: &'static str,
}

/// The model of `method` multiplying m×k by k×n with block size `b` (ignored by methods without
/// blocks; a b of 0 counts as 1, callers reject it first). `None` if the method has no model,
/// or if one of its counts would pass u128 (sides of about 2⁴⁰ and more; [`try_model`] says
/// so instead: no size a run can hold comes near).
pub fn model(method: Method, m: usize, k: usize, n: usize, b: u32) -> Option<Model> {
    try_model(method, m, k, n, b).ok().flatten()
}

/// [`model`], with an error naming the size when a count would pass u128.
pub fn try_model(method: Method, m: usize, k: usize, n: usize, b: u32) -> Result<Option<Model>> {
    try_model_with(method, m, k, n, b, &Kernels::default())
}

/// [`model`] of the kernel variants `kernels` names (frag-mrt's block shape; `None`: the
/// default shape), as a request or a run names them.
pub fn model_with(
    method: Method,
    (m, k, n): (usize, usize, usize),
    b: u32,
    kernels: &Kernels,
) -> Option<Model> {
    try_model_with(method, m, k, n, b, kernels).ok().flatten()
}

/// A render-pass method's counts: (b, passes, fragments per pass, bytes per fragment, total
/// bytes, instructions per fragment, total instructions, the paper's formulas for the bytes and
/// the instructions).
type Counts = (
    Option<u32>,
    Count,
    Count,
    Count,
    Count,
    Count,
    Count,
    &'static str,
    &'static str,
);

/// [`Counts`] of `frag-mrt` and `frag-mrt-f16` at block size `b`.
fn frag_mrt_counts(
    method: Method,
    (mc, kc, nc): (Count, Count, Count),
    b: u32,
    kernels: &Kernels,
) -> Counts {
    // frag-mrt (its module docs): tiles of R×C, per step of k (R+C)/4 RGBA32F texels
    // fetched (halved by quad sharing), R·C/4 vec4 multiply-adds and (R+C)/8 quad swaps
    // (sharing); R·C floats written per pass and read back as F by the next (ping-pong).
    // The shape is the one the request or the run names, else the default;
    // b ≥ k' is the default single pass. frag-mrt-f16's A and B texels are RGBA16F,
    // 8 bytes instead of 16; C and F stay RGBA32F. The layout (tiles, padded k, blocks)
    // is `frag_mrt::Layout`'s, counted here in u128 rather than built.
    let shape = crate::methods::frag_mrt::Shape::chosen(kernels.frag_mrt);
    let (u, step) = (Count::from(shape.unroll), Count::from(shape.step()));
    let even = |t: Count| {
        if shape.share {
            t.next_multiple_of(2u32)
        } else {
            t
        }
    };
    let tiles_m = even(mc.div_ceil(shape.rows));
    let tiles_n = even(nc.div_ceil(shape.cols));
    let kp = kc.next_multiple_of(u);
    // `Layout::blocks(Some(b))`: blocks of b rounded up to the unroll, the last short.
    let block = Count::from(b).next_multiple_of(u).max(u);
    let p = kp.div_ceil(block);
    let bb = block.min(kp);
    let texels = Count::from(shape.a_texels() + shape.b_texels());
    let outs = Count::from(shape.attachments());
    let f = tiles_m * tiles_n;
    let multi = p.0.is_some_and(|p| p > 1);
    let f_reads = if multi {
        outs * (p - 1u32)
    } else {
        Count::from(0u32)
    };
    let f_reads_one = if multi { outs } else { Count::from(0u32) };
    let tb = if method == Method::FragMrtF16 {
        8u32
    } else {
        16u32
    };
    let bpf = bb * tb * texels / step + (outs + f_reads_one) * 16u32;
    let bytes = f * (kp * tb * texels / step + (outs * p + f_reads) * 16u32);
    let swaps = |steps: Count| {
        if shape.step() == 2 {
            steps * texels / 2u32
        } else {
            Count::from(0u32)
        }
    };
    let per_steps = |steps: Count| steps * outs + swaps(steps) + steps / u;
    let ipf = per_steps(bb) + 4u32 + f_reads_one;
    let inst = f * (per_steps(kp) + p * 4u32 + f_reads);
    let bb32 = bb.0.and_then(|x| u32::try_from(x).ok()).unwrap_or(u32::MAX);
    (
        Some(bb32),
        p,
        f,
        bpf,
        bytes,
        ipf,
        inst,
        if tb == 8 {
            "2n³(R+C)/(R·C·s) + 4n²(2P−1)"
        } else {
            "4n³(R+C)/(R·C·s) + 4n²(2P−1)"
        },
        "n³/4 + (s−1)·n³(R+C)/(8RC) + n³/(RCu) + O(n²)",
    )
}

/// [`try_model`] of the kernel variants `kernels` names.
pub fn try_model_with(
    method: Method,
    m: usize,
    k: usize,
    n: usize,
    b: u32,
    kernels: &Kernels,
) -> Result<Option<Model>> {
    let b = b.max(1);
    let (mc, kc, nc) = (Count::from(m), Count::from(k), Count::from(n));
    let half = |x: Count| x.div_ceil(2u32);
    // (b, passes, fragments/pass, bytes/fragment, total bytes, instructions/fragment, total
    // instructions, formulas)
    let (b, passes, frags, bpf, bytes, ipf, inst, fb, fi) = match method {
        // L-M's dataflow, through wgpu or OpenGL 1.x's fixed function alike.
        Method::Lm | Method::LmGl1 => (
            None,
            kc,
            mc * nc,
            Count::from(16u32),
            mc * nc * kc * 16u32,
            Count::from(2u32),
            mc * nc * kc * 2u32,
            "16n³",
            "2n³",
        ),
        // ANCHOR: hall_counts
        // §3's blocked passes, as WGSL or as the ARB program.
        Method::HallBlocked | Method::HallArbfp => {
            let bb = Count::from(b);
            let p = kc.div_ceil(bb);
            let f = mc * nc;
            let bytes = f * (kc * 2u32 + p * 2u32) * 4u32;
            let inst = f * (kc * 2u32 + p * 4u32);
            (
                Some(b),
                p,
                f,
                (bb * 2u32 + 2u32) * 4u32,
                bytes,
                bb * 2u32 + 4u32,
                inst,
                "8n³(b+1)/b",
                "n³(2b+4)/b",
            )
        }
        Method::HallPacked => {
            let bb = Count::from(b);
            let k2 = half(kc);
            let p = k2.div_ceil(bb);
            let f = half(mc) * half(nc);
            let bytes = f * (k2 * 2u32 + p * 2u32) * 16u32;
            let inst = f * (k2 * 3u32 + p * 4u32);
            (
                Some(b),
                p,
                f,
                (bb * 2u32 + 2u32) * 16u32,
                bytes,
                bb * 3u32 + 4u32,
                inst,
                "4n³(b+1)/b",
                "n³(3b+4)/(8b)",
            )
        }
        // ANCHOR_END: hall_counts
        Method::FragMrt | Method::FragMrtF16 => frag_mrt_counts(method, (mc, kc, nc), b, kernels),
        _ => return Ok(None),
    };
    let exact = |c: Count| c.0.ok_or_else(|| past_u128(method, m, k, n));
    let bytes = exact(bytes)?;
    Ok(Some(Model {
        method: method.name().to_string(),
        m,
        k,
        n,
        b,
        passes: exact(passes)?,
        fragments_per_pass: exact(frags)?,
        bytes_per_fragment: exact(bpf)?,
        total_bytes: bytes,
        total_gib: bytes as f64 / (1u64 << 30) as f64,
        instructions_per_fragment: exact(ipf)?,
        total_instructions: exact(inst)?,
        paper_bytes_formula: fb,
        paper_instructions_formula: fi,
    }))
}

/// The one line a model too large to count says.
pub(crate) fn past_u128(method: Method, m: usize, k: usize, n: usize) -> Error {
    Error::Invalid(format!(
        "{method} at m = {m}, k = {k}, n = {n}: a count of the model passes 2^128 - 1 = {}, the largest it counts exactly; give smaller sides",
        u128::MAX
    ))
}

/// The model of a run of `method` that took `passes` passes: the block size is recovered as
/// ⌈depth/passes⌉, which gives the same pass count and so the same totals as the b the run used.
/// frag-mrt's shape is the default one ([`for_run_with`] takes the run's).
#[cfg(feature = "internals")]
pub fn for_run(method: Method, m: usize, k: usize, n: usize, passes: usize) -> Option<Model> {
    for_run_with(method, (m, k, n), passes, &Kernels::default())
}

/// [`for_run`] of the kernel variants the run ran, as it recorded them
/// ([`crate::methods::RanKernel::kernels`]).
pub fn for_run_with(
    method: Method,
    (m, k, n): (usize, usize, usize),
    passes: usize,
    kernels: &Kernels,
) -> Option<Model> {
    let depth = match method {
        Method::HallPacked => k.div_ceil(2),
        Method::FragMrt | Method::FragMrtF16 => {
            let shape = crate::methods::frag_mrt::Shape::chosen(kernels.frag_mrt);
            crate::methods::frag_mrt::Layout::new(shape, m, k, n).kp
        }
        _ => k,
    };
    let b = depth.div_ceil(passes.max(1)).max(1);
    model_with(
        method,
        (m, k, n),
        u32::try_from(b).unwrap_or(u32::MAX),
        kernels,
    )
}

/// The compute era's model of `method` (global-memory words moved, flop per byte) on m×k·k×n;
/// `None` unless `method` is a compute-shader method. See [`crate::model::compute`](mod@crate::model::compute).
pub use crate::model::compute::{ComputeModel, model as compute};
