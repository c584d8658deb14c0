//! The driver's cap on shader loop iterations, measured.
//!
//! Some drivers end a shader's loops after a fixed number of iterations, silently: Mesa's
//! gallivm, the JIT behind lavapipe (Vulkan) and llvmpipe (OpenGL), keeps one counter per shader
//! invocation, starting at `LP_MAX_TGSI_LOOP_ITERATIONS` = 65 535, takes one off at every loop
//! iteration of any loop, and leaves every loop once it reaches zero. A multiply whose k loop
//! runs longer then returns a short sum as if nothing had happened — `cs-naive` stopped at
//! k = 65 535, the tiled kernels at 16 × 65 535.
//!
//! Rather than guess the cap from a driver's name or version, the probe
//! ([`super::probe::probe_stage`]) measures it in both
//! stages the methods loop in: `shaders/loop_cap.wgsl` (one compute invocation) and
//! `shaders/loop_cap_fragment.wgsl` (one fragment) each run two loops in a row, each asked for
//! [`ASKED`] iterations, and report how many each ran ([`StageLoops`]). The context runs the
//! probe of a stage once it is first needed and keeps the answer
//! ([`super::GpuContext::stage_loops`]). This file holds what is measured; the probe, which
//! runs on a context, sits above the context. What a method's loops need at a given k is the method's
//! fact (`methods::Loops`); the splitting of k so that no invocation runs past the cap is the
//! plan's (`plan/tiled.rs`).
//!
//! A stage is probed first with [`QUICK`] iterations per loop: past Mesa's cap and every other
//! known, and quick where a software rasterizer runs the probe (a browser's first product waits
//! for it). Only a product whose loops need more than that, where it showed no cap, has the
//! stage probed again with [`ASKED`]; `rendermm info` probes both stages with `ASKED`.
//!
//! A driver with no cap up to the iterations asked reports them itself: the plan then keeps every
//! invocation's loops within them, at most `ASKED`, the most this probe has seen run, which costs
//! a product nothing below k ≈ 4·10⁶ (cs-naive's loop, one iteration per k) and splits k above it.

use crate::error::{Error, Result};
use serde::Serialize;

/// Iterations each probe loop is asked for at most: past any cap worth knowing of (Mesa's is
/// 65 535), and few enough that a GPU without a cap runs the two loops of one invocation in
/// milliseconds.
pub const ASKED: u32 = 1 << 22;

/// Iterations each loop of a stage's first probe is asked for: twice Mesa's cap, 1/32 of
/// [`ASKED`]'s time (about 200 ms less before a browser's first product on a software
/// rasterizer).
pub const QUICK: u32 = 1 << 17;

/// The shader stage a method runs its loops in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Compute shaders: the compute-era methods, cs-fast, coop.
    Compute,
    /// Fragment shaders: the render-pass methods (lm, hall-blocked, hall-packed, frag-mrt).
    Fragment,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::Compute => "compute",
            Stage::Fragment => "fragment",
        }
    }
}

/// What the two probe loops of one invocation ran, each asked for `asked` iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct StageLoops {
    /// Iterations each loop was asked for ([`QUICK`] or [`ASKED`]).
    pub asked: u32,
    /// Iterations the first loop ran: the cap, or `asked` where none showed.
    pub first: u32,
    /// Iterations the second loop ran after it: about `first` where the cap counts each loop on
    /// its own, about none where it counts the invocation's loops together (gallivm).
    pub second: u32,
}

impl StageLoops {
    /// Whether a loop stopped short of what it was asked for.
    pub fn capped(&self) -> bool {
        self.first < self.asked || self.second < self.asked
    }

    /// Whether the cap counts every loop of an invocation together: the second loop stopped
    /// well short of the first. The plan assumes this in any case (it is the stricter reading).
    pub fn shared(&self) -> bool {
        self.capped() && self.second < self.first / 2
    }

    /// The most loop iterations one invocation was seen to run: the first loop's count.
    pub fn iterations(&self) -> u32 {
        self.first
    }

    /// Whether this measurement answers for an invocation that needs `need` loop iterations:
    /// it found the cap, or saw none up to at least `need`, or asked the most the probe asks.
    pub fn covers(&self, need: u64) -> bool {
        self.capped() || need <= self.asked as u64 || self.asked >= ASKED
    }

    /// One line: `65535 iterations per invocation, every loop counted together` or
    /// `none up to 4194304 iterations`.
    pub fn describe(&self) -> String {
        if !self.capped() {
            return format!("none up to {} iterations per loop", self.asked);
        }
        let how = if self.shared() {
            "every loop of an invocation counted together"
        } else {
            "each loop counted on its own"
        };
        format!("{} iterations per invocation, {how}", self.first)
    }
}

/// The driver's loop caps of both stages, each probed with [`ASKED`] iterations
/// ([`super::GpuContext::loop_cap`], for `rendermm info`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LoopCap {
    /// Iterations each probe loop was asked for ([`ASKED`]).
    pub asked: u32,
    /// Compute shaders; `None` where the adapter has none (WebGL2).
    pub compute: Option<StageLoops>,
    /// Fragment shaders.
    pub fragment: StageLoops,
}

impl LoopCap {
    /// What one stage's loops ran; an error for compute on an adapter without compute shaders
    /// (no compute method runs there anyway).
    pub fn stage(&self, stage: Stage) -> Result<StageLoops> {
        match stage {
            Stage::Compute => self.compute.ok_or_else(|| {
                Error::Invalid(
                    "this adapter has no compute shaders, so no loop cap for them".into(),
                )
            }),
            Stage::Fragment => Ok(self.fragment),
        }
    }

    /// `compute: …; fragment: …` for a report.
    pub fn describe(&self) -> String {
        let compute = self
            .compute
            .map_or("no compute shaders".to_string(), |s| s.describe());
        format!("compute: {compute}; fragment: {}", self.fragment.describe())
    }
}
