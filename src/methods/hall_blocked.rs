//! Hall, Carr & Hart (2003), "Cache and Bandwidth Aware Matrix Multiplication on the GPU", §3,
//! algorithm (5): the single-channel blocked multiply — and the pass engine it shares with the
//! channel-packed variant of §4 ([`super::hall_packed`]).
//!
//! One pass draws a quad covering the m×n `R32Float` target. Fragment (i, j) sums the b products
//! `A[i][p]·B[p][j]` of the pass's block of p, adds the running sum of the earlier passes, and
//! writes `C_t[i][j] = Σ_{p < end of block t} A[i][p]·B[p][j]`. ⌈k/b⌉ passes give C = A·B; the
//! last block is shorter when b does not divide k. The block's start and length reach the shader
//! through one uniform buffer holding every pass's pair, picked per pass by a dynamic offset.
//!
//! How the running sum is carried from pass to pass ([`Accumulate`]):
//! - **ping-pong** (default): a fragment may not read the texture it renders into, so two
//!   textures take turns — pass t reads F = texture t mod 2 and renders into the other one.
//!   This is the paper's "copy frame buffer into texture F" with the copy replaced by a swap of
//!   bindings, which wgpu allows because any texture can be both a render target and sampled
//!   (in different passes).
//! - **blend**: the variant the paper mentions at the end of §3 — no F; the blend unit adds each
//!   pass's block sum into the framebuffer (src·One + dst·One). With b = 1 its passes are
//!   Larsen–McAllister's slices, and its results equal theirs bit for bit.
//! - **copy**: the paper's literal 2003 form — render into the framebuffer, then
//!   `copy_texture_to_texture` it into F before the next pass. Each copy is a command buffer of
//!   its own, recorded as a [`Phase::Copy`](crate::gpu::run::Phase::Copy) step, which the runner times on its own (GPU
//!   timestamps around each copy where the adapter has `TIMESTAMP_QUERY_INSIDE_ENCODERS`,
//!   otherwise a wait before and after each copy; [`crate::gpu::run::copy_clock`]) and reports
//!   as `copy_ms`, so their cost can be set against ping-pong.
//!
//! The method only records: `Engine::record` puts the passes (and copies) into a
//! [`Work`] as command buffers, with the texture holding the running sum shown to the observer
//! after each pass, and [`crate::gpu::run::run`] submits them, times the phases and reads the
//! product back. `upload_ms` covers the input textures, the accumulation textures and the
//! pipelines; `compute_ms` is the wall-clock time of the passes (less the copies in copy mode).
//!
//! Precision (`Params::precision`; see [`crate::precision`]):
//! - **f32**: `R32Float` textures and targets. Blend mode needs blending into them; without it
//!   the run falls back to f16 with a note (ping-pong and copy need no blending and stay f32).
//! - **f16**: `R16Float`. The shader still sums each block in f32 registers; the store rounds to
//!   f16 once per pass, which is why its error bound ([`crate::check::f16_bound_blocked`])
//!   is about b times tighter than L-M's, whose every product is rounded by an f16 blend.
//! - **u8**, the 8-bit pipeline of 2001 carried over to blocks: `R8Unorm` inputs (which must lie
//!   in [0, 1]) and accumulation textures. A fragment sums its block's b products of 8-bit texels
//!   exactly in integers, multiplies by the polygon colour (1, or 1/k with `--scale-by-depth`,
//!   whose result is rescaled by k), rounds to 8 bits once per pass, and adds the running sum;
//!   the unorm store (ping-pong, copy) or the unorm blend (blend) saturates at 1.0
//!   (`FF + 01 = FF`). With b = 1 this is L-M's 8-bit pipeline; with larger b a sum is rounded
//!   ⌈k/b⌉ times instead of k. All three accumulation modes give the same bytes, which
//!   [`crate::precision::u8_model_blocked`] reproduces on the CPU.
//! - **u8 at the widths of L-M §4** (`Params::u8_bits`): the block's exact sum kept at 8, 14 or 16
//!   bits as it leaves the fragment, the running sum at 8 or 16 bits (`R16Unorm`, reduced to 8
//!   bits by a last pass); CPU model [`crate::precision::u8_model_bits`].
//!
//! The method writes the precision it actually ran in back into `Params::precision`, so a
//! caller judging the result (the entry point's verdict, a layer up) judges what ran.
//!
//! Shader: `shaders/hall_blocked.wgsl`.

pub(crate) use super::hall_common::multiply_chunks;
pub use super::hall_common::{Accumulate, DEFAULT_BLOCK, block_size, blocks};
use super::hall_common::{Engine, PrecisionSetup, SINGLE};
use super::{Method, Params};
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::gpu::run::Work;
use crate::gpu::texture::MatrixTexture;
use crate::matrix::Matrix;

/// Loop iterations of one fragment of a pass over depth `k`, for drivers that cap them
/// ([`super::Loops`]): the block loop (b + 1 iterations, b at most k) and the two 64-step
/// divisions of the u8 widths' `pass_steps` (65 each).
pub fn loop_iterations(k: usize) -> u64 {
    k as u64 + 1 + 2 * 65
}

/// Record `a · b` in ⌈k/b⌉ blocked passes, at `opts.precision`, for the runner: the textures,
/// the pipeline, the passes (one command buffer per pass when an observer will watch,
/// `opts.observe`), the copies of copy mode, the readback and the rescale of
/// `--scale-by-depth`.
pub fn record(ctx: &GpuContext, a: &Matrix, b: &Matrix, opts: &Params) -> Result<Work> {
    let per_pass = opts.observe;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let block = block_size(ctx, opts.block)?;
    ctx.check_texture_dim("C width (n)", n)?;
    ctx.check_texture_dim("C height (m)", m)?;
    let setup = PrecisionSetup::new(ctx, opts, a, b, (block as usize).min(k))?;
    let precision = setup.precision;
    let sum_format = setup.sum_format(ctx, Method::HallBlocked, 1, opts.accumulate)?;
    crate::gpu::texture::check_target(ctx, "C", m, n, sum_format)?;

    let at = MatrixTexture::upload_channels(ctx, "A", &[a], precision)?;
    let bt = MatrixTexture::upload_channels(ctx, "B", &[b], precision)?;
    // The pipelines' build time is setup, kept out of the upload time (as for the compute
    // methods, `gpu::compute::record`).
    let built = crate::clock::Instant::now();
    let engine = Engine::build_bits(
        ctx,
        &SINGLE,
        sum_format,
        setup.u8_depth,
        setup.bits,
        &at,
        &bt,
        k,
        block,
        opts.accumulate,
    )?;
    let mut work = Work::new(engine.passes());
    work.sums = Some(precision);
    work.setup_ms = crate::gpu::run::ms(built);
    let rec = engine.record(ctx, &mut work, None, per_pass)?;
    let reduced = setup.read_result(ctx, &mut work, &rec.result, 1)?;
    work.notes = rec.notes(&format!("{m}x{n}"), block, k);
    let (notes, rescale) = setup.finish(rec.passes, &format!("{sum_format:?}"), reduced);
    work.notes.extend(notes);
    work.finish(move |bytes| {
        let mut c = Matrix::new(m, n, precision.decode(&bytes[0]))?;
        rescale.apply(&mut c);
        Ok(vec![c])
    });
    Ok(work)
}
