//! What a run of GPU work reports: its phases' times ([`Timings`]), its result ([`RunOutput`]),
//! and the hook that sees the accumulation texture after each pass ([`Observer`]). Every layer
//! above the harness (methods, the multiply entry point, bench, demos) shares these types.

use super::context::GpuContext;
use super::texture::MatrixTexture;
use super::timer::Clock;
use crate::error::Result;
use crate::matrix::Matrix;
use serde::Serialize;

/// Sees the accumulation texture after passes (the demos and frame writers use it).
pub trait Observer {
    /// Called after pass `pass` (1-based) of `passes`, with the texture holding the running sum.
    fn after_pass(
        &mut self,
        ctx: &GpuContext,
        pass: usize,
        passes: usize,
        acc: &MatrixTexture,
    ) -> Result<()>;
}

/// Wall-clock milliseconds of each phase, split as in the L-M paper's figures 4-5.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Creating the textures and loading the matrices into them.
    pub upload_ms: f64,
    /// The passes themselves.
    pub compute_ms: f64,
    /// GPU-side copies between passes.
    pub copy_ms: f64,
    /// Copying the result back to the host.
    pub readback_ms: f64,
    /// GPU time of the compute phase from timestamp queries (`None` where the adapter has none;
    /// then `compute_ms`, wall clock after a full wait, is the only figure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_ms: Option<f64>,
}

impl Timings {
    pub fn total_ms(&self) -> f64 {
        self.upload_ms + self.compute_ms + self.copy_ms + self.readback_ms
    }

    /// The best figure for the compute phase: device time where timestamps exist, else the wall
    /// clock; with the clock it came from.
    pub fn compute_time(&self) -> (f64, Clock) {
        match self.device_ms {
            Some(d) => (d, Clock::GpuTimestamp),
            None => (self.compute_ms, Clock::WallClock),
        }
    }
}

/// What a run returns.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub c: Matrix,
    /// Passes (render passes or slices) the method ran.
    pub passes: usize,
    pub timings: Timings,
    /// Remarks for the report (how the passes were laid out, fallbacks taken).
    pub notes: Vec<String>,
}

/// Milliseconds since `t`.
pub fn ms(t: crate::clock::Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
