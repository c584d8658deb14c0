//! Texture-level entry points to the Hall–Carr–Hart passes, for work whose operands are already
//! on the GPU and whose product stays there (the reachability powers of [`crate::reach`]).
//!
//! [`super::hall_blocked::record`] and [`super::hall_packed::record`] start from host
//! matrices; here the caller hands over the textures and gets back the texture that will hold
//! the product (the "framebuffer" of the last pass, created with `TARGET_USAGE`), so nothing
//! crosses to the host. The passes are the shared `Engine`'s, with ping-pong accumulation; only
//! the variant descriptions are restated, because the methods keep theirs private.
//!
//! Like the methods, a product only records: [`HallProduct::record`] appends its passes to a
//! [`Work`], and the caller runs that work ([`crate::gpu::run::run`]) when it chooses — alone,
//! or together with other products and passes recorded into the same work.
//!
//! Larsen–McAllister needs no wrapper: [`super::larsen_mcallister::Pipeline`] already works on
//! textures.

use super::Accumulate;
use super::hall_common::{Engine, Variant, block_size};
use crate::error::{Error, Result};
use crate::gpu::run::Work;
use crate::gpu::{GpuContext, MatrixTexture};

// Hall–Carr–Hart §3, single channel, and §4, 2×2 channel-packed: the methods' own variants.
use super::hall_common::PACKED;
use super::hall_common::SINGLE as BLOCKED;

/// One Hall–Carr–Hart product of two resident textures, built (pipelines, accumulation
/// textures, bind groups) but not yet recorded or run, so that building and running can be timed
/// apart.
pub struct HallProduct {
    engine: Engine,
    passes: usize,
}

impl HallProduct {
    /// Prepare `x · y` for `R32Float` textures (x rows × k, y k × cols) in blocks of `block`
    /// (default 32) along k.
    pub fn blocked(
        ctx: &GpuContext,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        Self::new(ctx, &BLOCKED, x, y, block)
    }

    /// Prepare `X · Y` for 2×2-packed `Rgba32Float` textures (as `hall_packed::upload_packed`
    /// makes them); the product comes out packed the same way (eq. 8-11), so it can be fed back
    /// in as an operand without unpacking.
    pub fn packed(
        ctx: &GpuContext,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        Self::new(ctx, &PACKED, x, y, block)
    }

    fn new(
        ctx: &GpuContext,
        v: &Variant,
        x: &MatrixTexture,
        y: &MatrixTexture,
        block: Option<u32>,
    ) -> Result<Self> {
        for (name, t) in [("left", x), ("right", y)] {
            if t.format != v.format {
                return Err(Error::Invalid(format!(
                    "{}: the {name} operand is a {:?} texture, the method needs {:?}",
                    v.name, t.format, v.format
                )));
            }
        }
        if x.cols != y.rows {
            return Err(Error::ShapeMismatch {
                a_rows: x.rows,
                a_cols: x.cols,
                b_rows: y.rows,
                b_cols: y.cols,
            });
        }
        let b = block_size(ctx, block)?;
        let engine = Engine::new(ctx, v, x, y, x.cols, b, Accumulate::PingPong)?;
        Ok(Self {
            engine,
            passes: x.cols.div_ceil(b as usize),
        })
    }

    /// The number of passes the product takes.
    pub fn passes(&self) -> usize {
        self.passes
    }

    /// Record every pass into `work` (one command buffer); returns the texture that holds the
    /// product once the work has run. Nothing is submitted here.
    pub fn record(self, ctx: &GpuContext, work: &mut Work) -> Result<MatrixTexture> {
        Ok(self.engine.record(ctx, work, None, false)?.result)
    }
}
