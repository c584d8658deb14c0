//! Every multiply method, and [`TABLE`]: one row per method — its name, era, source, one line,
//! what it takes and how it runs — from which the CLI, the tour, the bench and the docs' method
//! list read. Each GPU method is one Rust file beside one WGSL file in `shaders/`, named after
//! its paper. Adding a method: its file, its shader, one variant of [`Method`] and one row.
//!
//! This layer may use `error`, `matrix`, `cpu`, `precision` and `gpu`; the entry point that
//! validates, tiles and dispatches (`plan/`) sits above it.

pub mod cannon;
pub mod cannon_tiled;
pub mod chunks;
pub mod coop;
pub mod cs_fast;
pub mod cs_naive;
pub mod cs_tiled;
pub mod dns;
pub mod dns_blocks;
pub mod dns_tiled;
pub mod frag_mrt;
#[cfg(not(target_arch = "wasm32"))]
pub mod gl_era;
#[cfg(not(target_arch = "wasm32"))]
pub mod hall_arbfp;
pub mod hall_blocked;
pub mod hall_common;
pub mod hall_packed;
pub mod kk73;
pub mod larsen_mcallister;
#[cfg(not(target_arch = "wasm32"))]
pub mod lm_gl1;
pub mod named;
pub mod ran;
pub mod resident;
mod table;
pub mod u8_pass;
pub mod variants;

pub use crate::gpu::loop_cap::Stage;
pub use crate::gpu::run::{Observer, Repeats, Timings, Work};
pub use hall_blocked::Accumulate;
pub use ran::{RanKernel, Recorded, RunOutput};
pub use table::TABLE;
pub use variants::{Kernels, Variant};

use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::compute::Plan;
use crate::matrix::Matrix;
use crate::precision::{self, Pipeline, Precision, SliceRounding};
use serde::Serialize;

/// The methods rendermm knows, in historical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(usize)]
pub enum Method {
    /// Larsen–McAllister 2001: k textured quads summed by additive blending.
    Lm,
    /// Larsen–McAllister 2001 §3 in OpenGL 1.x's own calls: fixed-function `GL_MODULATE` on two
    /// texture units, `glBlendFunc(GL_ONE, GL_ONE)`, `glReadPixels`.
    LmGl1,
    /// Hall–Carr–Hart 2003 §3: ⌈k/b⌉ blocked fragment-shader passes, accumulated between passes.
    HallBlocked,
    /// Hall–Carr–Hart 2003 §3 (algorithm 5) as an `!!ARBfp1.0` fragment program, ping-pong
    /// between two framebuffer objects.
    HallArbfp,
    /// Hall–Carr–Hart 2003 §4: the 2×2 RGBA channel-packed blocked multiply.
    HallPacked,
    /// Hall §4's packing taken further: 4 rows / 4 columns per RGBA32F texel, a register
    /// block per fragment written to up to 8 colour attachments.
    FragMrt,
    /// `FragMrt` with A and B rounded to f16 in `Rgba16Float` texels (half the bytes per
    /// texel), sums still in f32: rendermm's variant, not the paper's.
    FragMrtF16,
    /// HIP blog / 5kk73: one compute invocation per element of C, operands from global memory.
    CsNaive,
    /// HIP blog: 16×16 shared-memory tiles, zero-padded.
    CsTiled16,
    /// HIP blog: 32×32 shared-memory tiles (the blog's BLOCK_DIM), zero-padded.
    CsTiled32,
    /// 5kk73 step 1: 16×16 tiles with the B tile loaded down columns (uncoalesced).
    Kk73Uncoalesced,
    /// 5kk73 step 2: coalesced global loads, B tile stored transposed (bank conflicts).
    Kk73Coalesced,
    /// 5kk73 step 3: coalesced and free of shared-memory bank conflicts.
    Kk73BankFree,
    /// 5kk73 step 4: outer product, A shared, B and C in registers.
    Kk73OuterProduct,
    /// 5kk73 step 5: step 4 with every loop unrolled.
    Kk73Unrolled,
    /// 5kk73 step 6: step 5 with double-buffered (prefetched) A tiles.
    Kk73Prefetch,
    /// O'Neil 2013 §3.1: Cannon's algorithm in one workgroup.
    Cannon,
    /// O'Neil 2013 §5: Cannon's algorithm by 8×8 blocks, any size.
    CannonTiled,
    /// O'Neil 2013 §3.1: DNS, the whole m×k×n cube in one workgroup.
    Dns,
    /// O'Neil 2013 §5: DNS by 8×8×8 cube tiles, partial sums and a reduction pass.
    DnsTiled,
    /// O'Neil 2013 §3.2: DNS, an n×1 grid of n×n workgroups (one per column of C).
    DnsNBlocks,
    /// O'Neil 2013 §3.2: DNS, a 2n×1 grid of ½n×n workgroups.
    Dns2nBlocks,
    /// O'Neil 2013 §3.2: DNS, a 4n×1 grid of ¼n×n workgroups.
    Dns4nBlocks,
    /// Today's compute path: workgroup tiles, register blocks, vec4, double-buffered shared
    /// tiles, padded.
    CsFast,
    /// Tensor cores through cooperative matrices, f16 in, f32 accumulation.
    Coop,
    /// The seed's naive triple loop on the CPU.
    CpuNaive,
    /// A fast multithreaded CPU GEMM (`gemm` crate).
    CpuFast,
}

/// The era a method belongs to, in historical order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// 2001: fixed-function texturing and additive blending.
    Blending2001,
    /// 2003: programmable fragment shaders.
    Shaders2003,
    /// Today's hardware driven through a render pass.
    RenderPassToday,
    /// Compute shaders (CUDA-style kernels, from 2007).
    Compute,
    /// Tensor cores through cooperative matrices.
    TensorCores,
    /// The CPU baselines.
    Cpu,
}

impl Era {
    /// How reports and the course name the era.
    pub fn name(self) -> &'static str {
        match self {
            Era::Blending2001 => "2001, fixed-function blending",
            Era::Shaders2003 => "2003, programmable fragment shaders",
            Era::RenderPassToday => "present day, render pass",
            Era::Compute => "compute era",
            Era::TensorCores => "present day, tensor cores",
            Era::Cpu => "CPU baseline",
        }
    }
}

/// The options a method reads besides A and B.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Takes {
    /// `--precision u8|f16` (f32 is every method's).
    pub precision: bool,
    /// Hall's block size `--b` (frag-mrt: passes over k).
    pub block: bool,
    /// `--accumulate pingpong|blend|copy`.
    pub accumulate: bool,
    /// `--channels 4`: four products in RGBA at once.
    pub channels: bool,
}

const F32_ONLY: Takes = Takes {
    precision: false,
    block: false,
    accumulate: false,
    channels: false,
};

/// Records the GPU work of one product (a render-pass method, cs-fast, coop) for the runner
/// ([`crate::gpu::run`]) to submit and resolve, with the variant it chose where it has several.
pub type RecordFn = fn(&GpuContext, &Matrix, &Matrix, &Params) -> Result<Recorded>;

/// The compute plan (kernels, grids) of an m×k·k×n product, run by [`crate::gpu::compute`].
pub type PlanFn = fn(&wgpu::Limits, usize, usize, usize) -> Result<Plan>;

/// The most loop iterations one shader invocation runs for an m×k·k×n product under `limits`.
pub type LoopsFn = fn(&wgpu::Limits, usize, usize, usize) -> u64;

/// A method's shader loops, for drivers that cap them: some end every loop of an invocation once
/// its loops have run a fixed number of iterations together, silently (Mesa's lavapipe and
/// llvmpipe: 65 535, measured by [`crate::gpu::loop_cap`]), so a k loop that runs longer leaves
/// a short sum. The plan (`plan/tiled.rs`) splits k so that no invocation of the method runs
/// more than the cap measured for its `stage`.
///
/// `iterations` counts every loop of an invocation together, each at its trip count as the
/// method's WGSL writes it, plus one: gallivm takes one off its counter at the end of every pass
/// through a loop, the last pass too, which finds the condition false. A compiler that unrolls
/// a loop runs fewer, and the count holds whatever it unrolls. Iterations per step of k, from
/// each method's `loop_iterations`:
///
/// | method | iterations |
/// |---|---|
/// | `cs-naive` | 1 per k, + 1 |
/// | `cs-tiled-16`, `5kk73-1`, `-2`, `-3` | 18 per 16 of k, + 1 |
/// | `cs-tiled-32` | 34 per 32 of k, + 1 |
/// | `5kk73-4-outer-product` | 295 per 16 of k, + 35 |
/// | `5kk73-5-unrolled`, `5kk73-6-prefetch` | 1 per 16 of k, + 1 |
/// | `cannon` | k + ⌈k/m⌉ + ⌈k/n⌉ + 3 |
/// | `cannon-tiled` | 10 per 8 of k, + 1 |
/// | `dns`, `dns-tiled`, `dns-*-blocks` | 1 per block of k, + 1 (the reduction pass over the planes) |
/// | `cs-fast` | 10 per 8 of k, + 16 |
/// | `coop` | 13 per 32 of k, + 4 |
/// | `lm` | 525, whatever k (each k step is a quad of its own) |
/// | `hall-blocked` | k + 131 (a pass's block of b ≤ k) |
/// | `hall-packed` | ⌈k/2⌉ + 521 |
/// | `frag-mrt`, `frag-mrt-f16` | k + 5 |
#[derive(Clone, Copy)]
pub struct Loops {
    /// The stage the loops run in (the compute and fragment caps are measured apart).
    pub stage: Stage,
    pub iterations: LoopsFn,
}

/// `fixed + ⌈k / k_per_step⌉ · per_step`: a loop that walks k in steps of `k_per_step`, each step
/// costing `per_step` iterations (its own and those of the loops inside it), and `fixed`
/// iterations of loops outside it.
pub const fn k_steps(k: usize, k_per_step: u32, per_step: u64, fixed: u64) -> u64 {
    fixed + (k as u64).div_ceil(k_per_step as u64) * per_step
}

const fn compute_loops(iterations: LoopsFn) -> Option<Loops> {
    Some(Loops {
        stage: Stage::Compute,
        iterations,
    })
}

const fn fragment_loops(iterations: LoopsFn) -> Option<Loops> {
    Some(Loops {
        stage: Stage::Fragment,
        iterations,
    })
}

/// How a method runs.
#[derive(Clone, Copy)]
pub enum Runs {
    /// Its own passes or dispatches, recorded for the runner.
    Record(RecordFn),
    /// A compute plan on the shared compute harness; `fallback` is the method that takes a
    /// product too large for this one's single workgroup.
    Compute {
        plan: PlanFn,
        fallback: Option<Method>,
    },
    /// On the CPU.
    Cpu(fn(&Matrix, &Matrix) -> Matrix),
    /// Through a host graphics API of its era rather than wgpu (the GL-era methods: OpenGL's
    /// compatibility profile through EGL, [`crate::gl`]); needs no wgpu context.
    Host(HostFn),
}

/// Runs 1 or 4 pairs `a[c] · b[c]` (one per colour channel) through a host graphics API:
/// the run of the first pair, and C of the others.
pub type HostFn = fn(&[&Matrix], &[&Matrix], &Params) -> Result<(RunOutput, Vec<Matrix>)>;

/// One row of [`TABLE`].
pub struct Info {
    pub method: Method,
    /// The name used on the command line, in reports and on the web page.
    pub name: &'static str,
    pub era: Era,
    /// Where it comes from: paper and section.
    pub source: &'static str,
    /// One line on what one run does.
    pub summary: &'static str,
    /// Its Rust file under `src/` (its shader is the same name in `shaders/`).
    pub file: &'static str,
    pub takes: Takes,
    pub runs: Runs,
    /// Its shader loops, for drivers that cap them; `None` for the CPU methods.
    pub loops: Option<Loops>,
}


impl Method {
    /// Every method, in the order the tour shows them.
    pub const ALL: &'static [Method] = &{
        let mut all = [Method::Lm; TABLE.len()];
        let mut i = 0;
        while i < TABLE.len() {
            all[i] = TABLE[i].method;
            i += 1;
        }
        all
    };

    /// This method's row of [`TABLE`].
    pub const fn info(self) -> &'static Info {
        &TABLE[self as usize]
    }

    /// The name used on the command line and in reports.
    pub const fn name(self) -> &'static str {
        self.info().name
    }

    /// One line on what the method is and where it comes from.
    pub fn description(self) -> String {
        let i = self.info();
        format!("{}: {} ({})", i.era.name(), i.summary, i.source)
    }

    /// Whether the method runs on the GPU (through wgpu or, for the GL-era methods, a host
    /// graphics API).
    pub fn is_gpu(self) -> bool {
        !matches!(self.info().runs, Runs::Cpu(_))
    }

    /// Whether the method runs through wgpu and so needs a [`GpuContext`]; the GL-era methods
    /// make their own context ([`Runs::Host`]).
    pub fn uses_wgpu(self) -> bool {
        matches!(self.info().runs, Runs::Record(_) | Runs::Compute { .. })
    }

    /// Whether the method runs through a host graphics API of its era ([`Runs::Host`]).
    pub fn is_host_api(self) -> bool {
        matches!(self.info().runs, Runs::Host(_))
    }

    /// Whether the method draws through a render pipeline (its loops run in fragment shaders:
    /// lm, the Hall methods, frag-mrt), so it runs where there are no compute shaders (WebGL2).
    pub fn is_render_pass(self) -> bool {
        self.loops().is_some_and(|l| l.stage == Stage::Fragment)
    }

    /// Whether the method's recording tests A and B for NaN and infinity as it uploads them
    /// (and refuses them there, [`crate::matrix::refuse_nonfinite`]), so the entry point need not scan them
    /// in a pass of its own first: the compute-harness methods, cs-fast and coop.
    pub fn scans_inputs_on_upload(self) -> bool {
        self.is_compute() || matches!(self, Method::CsFast | Method::Coop)
    }

    /// Whether the method runs a plan on the shared compute harness.
    pub fn is_compute(self) -> bool {
        matches!(self.info().runs, Runs::Compute { .. })
    }

    /// Whether the method has u8 / f16 modes (the render-pass methods; the GL-era methods u8
    /// only).
    pub fn takes_precision(self) -> bool {
        self.info().takes.precision
    }

    /// Whether the method computes in `precision`: f32 every method; u8 the render-pass and
    /// GL-era methods; f16 the render-pass methods (the GL-era methods run their papers' formats,
    /// 8-bit and f32, only).
    pub fn takes(self, precision: Precision) -> bool {
        match precision {
            Precision::F32 => true,
            Precision::U8 => self.takes_precision(),
            Precision::F16 => self.takes_precision() && !self.is_host_api(),
        }
    }

    /// Its shader loops, for drivers that cap them ([`Loops`]); `None` for the CPU methods.
    pub fn loops(self) -> Option<Loops> {
        self.info().loops
    }

    /// The pass structure its u8 model and f16 bound follow, run with block size `block`
    /// (`None` = the Hall default, 32); `None` for the methods that have no u8 / f16 modes.
    pub fn pipeline(self, block: Option<u32>) -> Option<Pipeline> {
        let block = block.unwrap_or(precision::DEFAULT_BLOCK).max(1);
        match self {
            Method::Lm => Some(Pipeline::Slices),
            // Mesa's rounding unless the run says which driver's it met (`RanKernel::rounding`).
            Method::LmGl1 => Some(Pipeline::FixedFunction(SliceRounding::F32Nearest)),
            Method::HallBlocked | Method::HallArbfp => Some(Pipeline::Blocked { block }),
            Method::HallPacked => Some(Pipeline::Packed { block }),
            _ => None,
        }
    }

    /// Look a method up by its command-line name.
    pub fn parse(name: &str) -> Result<Method> {
        Method::ALL
            .iter()
            .copied()
            .find(|m| m.name() == name)
            .ok_or_else(|| Error::UnknownName {
                what: "method",
                name: name.into(),
                known: Method::ALL
                    .iter()
                    .map(|m| m.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The options a method reads besides A and B; each reads the ones that concern it (its row's
/// [`Takes`]). The entry point (`plan::multiply`, a layer up) fills them from its own options.
#[derive(Clone, Copy, Debug, Default)]
pub struct Params {
    /// An observer will watch the runner: record one command buffer per pass and mark the
    /// accumulation texture after each ([`Work::observe`]).
    pub observe: bool,
    /// Accept NaN and infinity in the inputs.
    pub allow_nonfinite: bool,
    /// Hall–Carr–Hart block size b (products summed per fragment per pass); `None` = 32.
    pub block: Option<u32>,
    /// Hall–Carr–Hart: how the running sum passes from one pass to the next.
    pub accumulate: Accumulate,
    /// Number format of textures and framebuffer for the render-pass methods. When recording,
    /// the method leaves here the precision it will actually use (f16 where f32 blending is
    /// missing).
    pub precision: Precision,
    /// u8 only: polygon colour 1/k so the blended sum cannot saturate (L-M §4; in the Hall
    /// methods it scales each block sum); result rescaled.
    pub scale_by_depth: bool,
    /// u8 only: the widths of the value a fragment hands on and of the running sum (L-M §4;
    /// `--u8-product-bits`, `--u8-sum-bits`); the default is 8 and 8.
    pub u8_bits: crate::precision::U8Bits,
    /// The kernel variants the request names (cs-fast's, coop's, frag-mrt's shape); `None` in
    /// each lets the method pick.
    pub kernels: Kernels,
    /// Compute-harness methods: the timed repetitions of the compute pass (the bench's warm-up
    /// and trials, each timed on its own); `None` runs it once.
    pub repeats: Option<Repeats>,
}

#[cfg(test)]
mod tests;
