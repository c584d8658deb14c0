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
//! [`model`] is the one entry point: methods without a model (the CPU ones, so far) give `None`.
//!
//! `frag-mrt` is counted the same way (texel lookups, framebuffer writes, F reads; vec4
//! instructions): R×C tiles, (R+C)/4 texels per step of k (halved by quad sharing, s = 2),
//! R·C/4 vec4 multiply-adds per step — 4n³(R+C)/(RCs) bytes of lookups, 0.375 bytes per flop at
//! the default 4×8 with sharing (Hall's packed method: about 2). Its b is steps of k per pass;
//! b ≥ k′ is its default single pass. `frag-mrt-f16`'s RGBA16F input texels halve the lookup
//! bytes (0.19 bytes per flop). See `docs/frag-mrt.md`.
//!
//! The compute-shader methods have their own model — global-memory words and the
//! computation-to-memory ratio — in [`crate::model::compute`]; [`compute`] is its entry point.

pub mod compute;

use crate::methods::Method;
use serde::Serialize;

/// Table 1 and table 2 of the paper for one method and one problem size.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Model {
    pub method: String,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// Block size b (products per fragment per pass); `None` for methods without blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<u32>,
    pub passes: u64,
    pub fragments_per_pass: u64,
    /// Bytes one fragment moves in a full pass (a short last block moves fewer).
    pub bytes_per_fragment: u64,
    /// Table 1's total: bytes moved by all passes.
    pub total_bytes: u64,
    /// `total_bytes` in GiB (the paper's "GB": 4.125 for n = 1024, b = 32, packed).
    pub total_gib: f64,
    /// Fragment-shader instructions of one fragment in a full pass.
    pub instructions_per_fragment: u64,
    /// Table 2's total: instructions over all passes.
    pub total_instructions: u64,
    /// The paper's closed forms for n×n·n×n, as in tables 1 and 2.
    pub paper_bytes_formula: &'static str,
    pub paper_instructions_formula: &'static str,
}

/// The model of `method` multiplying m×k by k×n with block size `b` (ignored by methods without
/// blocks; a b of 0 counts as 1, callers reject it first). `None` if the method has no model.
pub fn model(method: Method, m: usize, k: usize, n: usize, b: u32) -> Option<Model> {
    let b = b.max(1);
    let (m, k, n) = (m as u64, k as u64, n as u64);
    let half = |x: u64| x.div_ceil(2);
    // (b, passes, fragments/pass, bytes/fragment, total bytes, instructions/fragment, total
    // instructions, formulas)
    let (b, passes, frags, bpf, bytes, ipf, inst, fb, fi) = match method {
        Method::Lm => (
            None,
            k,
            m * n,
            16,
            16 * m * n * k,
            2,
            2 * m * n * k,
            "16n³",
            "2n³",
        ),
        Method::HallBlocked => {
            let bb = b as u64;
            let p = k.div_ceil(bb);
            let f = m * n;
            let bytes = 4 * f * (2 * k + 2 * p);
            let inst = f * (2 * k + 4 * p);
            (
                Some(b),
                p,
                f,
                (2 * bb + 2) * 4,
                bytes,
                2 * bb + 4,
                inst,
                "8n³(b+1)/b",
                "n³(2b+4)/b",
            )
        }
        Method::HallPacked => {
            let bb = b as u64;
            let k2 = half(k);
            let p = k2.div_ceil(bb);
            let f = half(m) * half(n);
            let bytes = 16 * f * (2 * k2 + 2 * p);
            let inst = f * (3 * k2 + 4 * p);
            (
                Some(b),
                p,
                f,
                (2 * bb + 2) * 16,
                bytes,
                3 * bb + 4,
                inst,
                "4n³(b+1)/b",
                "n³(3b+4)/(8b)",
            )
        }
        Method::FragMrt | Method::FragMrtF16 => {
            // frag-mrt (its module docs): tiles of R×C, per step of k (R+C)/4 RGBA32F texels
            // fetched (halved by quad sharing), R·C/4 vec4 multiply-adds and (R+C)/8 quad swaps
            // (sharing); R·C floats written per pass and read back as F by the next (ping-pong).
            // The shape is the one a run would use (`RENDERMM_FRAG_MRT`, else the default);
            // b ≥ k' is the default single pass. frag-mrt-f16's A and B texels are RGBA16F,
            // 8 bytes instead of 16; C and F stay RGBA32F.
            let shape = crate::methods::frag_mrt::Shape::from_env().unwrap_or_default();
            let lay =
                crate::methods::frag_mrt::Layout::new(shape, m as usize, k as usize, n as usize);
            let blocks = lay.blocks(Some(b));
            let p = blocks.len() as u64;
            let bb = (blocks[0].1 - blocks[0].0) as u64;
            let (kp, u, step) = (lay.kp as u64, shape.unroll as u64, shape.step() as u64);
            let texels = (shape.a_texels() + shape.b_texels()) as u64;
            let outs = shape.attachments() as u64;
            let f = (lay.tiles_m * lay.tiles_n) as u64;
            let f_reads = |passes: u64| if passes > 1 { outs * (passes - 1) } else { 0 };
            let tb = if method == Method::FragMrtF16 { 8 } else { 16 };
            let bpf = tb * bb * texels / step + 16 * (outs + f_reads(p).min(outs));
            let bytes = f * (tb * kp * texels / step + 16 * (outs * p + f_reads(p)));
            let swaps = |steps: u64| if step == 2 { steps * texels / 2 } else { 0 };
            let per_steps = |steps: u64| steps * outs + swaps(steps) + steps / u;
            let ipf = per_steps(bb) + 4 + f_reads(p).min(outs);
            let inst = f * (per_steps(kp) + 4 * p + f_reads(p));
            (
                Some(bb as u32),
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
        _ => return None,
    };
    Some(Model {
        method: method.name().to_string(),
        m: m as usize,
        k: k as usize,
        n: n as usize,
        b,
        passes,
        fragments_per_pass: frags,
        bytes_per_fragment: bpf,
        total_bytes: bytes,
        total_gib: bytes as f64 / (1u64 << 30) as f64,
        instructions_per_fragment: ipf,
        total_instructions: inst,
        paper_bytes_formula: fb,
        paper_instructions_formula: fi,
    })
}

/// The model of a run of `method` that took `passes` passes: the block size is recovered as
/// ⌈depth/passes⌉, which gives the same pass count and so the same totals as the b the run used.
pub fn for_run(method: Method, m: usize, k: usize, n: usize, passes: usize) -> Option<Model> {
    let depth = match method {
        Method::HallPacked => k.div_ceil(2),
        Method::FragMrt | Method::FragMrtF16 => {
            let shape = crate::methods::frag_mrt::Shape::from_env().unwrap_or_default();
            crate::methods::frag_mrt::Layout::new(shape, m, k, n).kp
        }
        _ => k,
    };
    let b = depth.div_ceil(passes.max(1)).max(1);
    model(method, m, k, n, u32::try_from(b).unwrap_or(u32::MAX))
}

/// The compute era's model of `method` (global-memory words moved, flop per byte) on m×k·k×n;
/// `None` unless `method` is a compute-shader method. See [`crate::model::compute`].
pub use crate::model::compute::{ComputeModel, model as compute};
