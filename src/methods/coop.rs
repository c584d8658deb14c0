//! `coop`: C = A·B on the tensor cores through wgpu's experimental cooperative matrices
//! (`Features::EXPERIMENTAL_COOPERATIVE_MATRIX`, Vulkan `VK_KHR_cooperative_matrix`): A and B
//! rounded to f16, products accumulated in f32, 16×16×16 fragments.
//!
//! One dispatch of (n / BN) × (m / BM) workgroups of one 32-wide subgroup each; a subgroup keeps a
//! BM×BN block of C as (BM/16)·(BN/16) f32 accumulator fragments for the whole k loop and, per
//! 16-deep k step, loads BM/16 fragments of A and BN/16 of B straight from global memory and
//! issues a multiply-add for each pair (`shaders/coop.wgsl`). The inputs are converted to f16 and
//! zero-padded to whole blocks on upload (m to BM, k to 16, n to BN; C cropped on readback), which
//! also gives every fragment load and store the 16-byte alignment Vulkan asks of them; so the
//! shader has no edge tests and is compiled with wgpu's runtime bounds checks off
//! ([`Plan::trusted`]).
//!
//! Where the adapter lacks the feature, or lacks the f16×f16→f32 16×16×16 configuration, `coop`
//! fails with [`Error::MissingFeature`], whose message ends "not supported on this adapter"
//! (lavapipe: no cooperative matrices at all).
//!
//! The result is held to an elementwise bound for f16 inputs and f32 accumulation,
//! [`crate::check::f16_inputs_bound`], not to the f32 methods' bound.
//!
//! Parameters, [`VARIANTS`]: the block per subgroup (64×64, 64×32, 32×32) and the layout of A
//! and B in memory — row-major, or (`-frag`) packed on upload fragment by fragment so that each
//! fragment load reads 512 contiguous bytes ([`Layout`]). `RENDERMM_COOP=<variant>` picks one,
//! `rendermm tune --method coop` times them all.
//!
//! The variants `128x128-frag`, `256x128-frag` and `128x128-frag-pipe` (`shaders/coop_multi.wgsl`,
//! fragment layout) put 2×2 or 4×2 such subgroups, each with its own 64×64 block, in one
//! workgroup of 128 or 256 invocations, so that the fragments of A and B that neighbouring blocks
//! share are read from L2 once per workgroup and then from L1; `-pipe` also loads the next k
//! step's fragments before the current step's multiply-adds.
//!
//! The `-smem` variants (same shader file, row-major A and B, k padded to 32) stage the operands
//! in workgroup memory, as CUTLASS does: per 32-deep k step the whole workgroup copies the A tile
//! (BM×32) and the B tile (32×BN) from global memory into workgroup memory, and after a barrier
//! each subgroup loads its fragments from there ([`Fetch`]):
//! - `128x128-smem`: 2×2 subgroups of 64×64, one buffer (copy, barrier, multiply-adds, barrier);
//! - `128x128-smem-db`: the same with two buffers, the next step's tiles loaded into registers
//!   before this step's multiply-adds and stored into the other buffer after them (one barrier
//!   per step);
//! - `128x128-smem-db-64x32`: as `-db` with 2×4 subgroups of 64×32 (256 invocations);
//! - `128x256-smem-pf`: 2×4 subgroups of 64×64 (256 invocations), one buffer (two would not fit
//!   the 48 KiB of workgroup memory Vulkan gives on NVIDIA), the next step's tiles prefetched into
//!   registers (two barriers per step);
//! - `128x256-smem48`: the same tile and subgroups, k steps of 48 rather than 32, and the tiles
//!   read 16 bytes at a time (below); the fastest variant on the H100 at n >= 2048.
//!
//! The copy moves 8 bytes (4 f16) per load and per store, as `vec4<f16>`: what naga 30 allows. A
//! cooperative load takes a pointer to any scalar or vector, in any address space, workgroup
//! included (`naga/src/valid/expression.rs`, `E::CooperativeLoad`), so a fragment loads straight
//! from a `var<workgroup> array<vec4<f16>, N>` with the stride counted in `vec4<f16>`, as
//! SPIR-V's `OpCooperativeMatrixLoadKHR` counts the pointer's elements. But naga takes the
//! fragment's element type from the pointer's scalar (`naga/src/proc/typifier.rs`), so the 16-byte
//! `vec4<u32>` tiles that NVIDIA's GLSL sample uses would give u32 fragments, and WGSL's
//! `bitcast` cannot turn a `u32` into two `f16` there (`naga/src/front/wgsl/lower/mod.rs` lowers
//! it to a cast that keeps the component width). `128x256-smem48` reads 16 bytes anyway, as
//! `vec4<u32>`, and converts each word with `unpack2x16float` to two f32 and back to f16 (exact
//! both ways) on the way into workgroup memory: the conversions are cheap beside the tensor
//! cores, and the 16-byte loads took the staged copy from 0.65 to 0.58 ms at n = 4096 on the H100
//! (`docs/tensor-cores.md`, "Where coop's time goes"). Rows of the staged tiles are padded by 8 f16 so
//! that fragment loads are free of bank conflicts and 16-byte aligned (`shaders/coop_multi.wgsl`,
//! "Staged in workgroup memory"). A and B are row-major rather than in the fragment layout: the
//! copy lays each tile out afresh in workgroup memory anyway, and a row-major tile row is 64 (A)
//! or 256 to 512 (B) contiguous bytes, whole 32-byte sectors, with the plain upload.
//!
//! One caveat the H100 run decides: naga 30 declares the Vulkan memory model for shaders with
//! cooperative matrices but emits workgroup loads and stores without `NonPrivatePointer` and its
//! barriers without availability and visibility operations, so by the letter of that model the
//! barriers do not order the staging stores before other subgroups' fragment loads. The staged
//! variants rely on the driver honouring a workgroup barrier for workgroup memory as it does
//! without that model; `rendermm tune --method coop` checks every result against the CPU.

use super::{Params, Work};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::buffer::{MatrixBuffer, check_storage_size};
use crate::gpu::compute::{self, Kernel, Operands, Plan};
use crate::matrix::Matrix;
use crate::methods::Method;
use crate::precision::{F16_MAX, f16_range};

#[cfg(not(target_arch = "wasm32"))]
const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/coop.wgsl"));
/// The variants with several subgroups per workgroup (`sm`·`sn` > 1).
#[cfg(not(target_arch = "wasm32"))]
const SHADER_MULTI: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/coop_multi.wgsl"));
// A browser's WebGPU has no cooperative matrices: coop is refused there before any shader is
// built ([`supported`]), so the page's download carries no kernel text of it.
#[cfg(target_arch = "wasm32")]
const SHADER: &str = "";
#[cfg(target_arch = "wasm32")]
const SHADER_MULTI: &str = "";

/// The knob that names the variant (read by the command line, [`super::Kernels::from_knobs`]).
pub const ENV: &str = "RENDERMM_COOP";

/// Edge of a fragment (and the k step).
pub const FRAG: usize = 16;

/// Threads per subgroup slot: one subgroup of an NVIDIA GPU (a workgroup has `sm`·`sn` of them).
pub const WORKGROUP: u32 = 32;

/// A block of C per subgroup, `tm`×`tn` fragments of 16×16, the `sm`×`sn` subgroups of a
/// workgroup, and the layout of A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `BMxBN`, e.g. `64x64`, with `-frag` for the fragment layout.
    pub name: &'static str,
    pub entry: &'static str,
    pub tm: u32,
    pub tn: u32,
    /// A and B packed fragment by fragment on upload, each 16×16 fragment contiguous (the
    /// shader's `FRAGMENTS`), instead of row-major.
    pub fragments: bool,
    /// Subgroups per workgroup along m and n, each with its own `tm`×`tn` block (1×1: one
    /// subgroup, `shaders/coop.wgsl`; more: `shaders/coop_multi.wgsl`, fragment layout, or
    /// row-major when staged).
    pub sm: u32,
    pub sn: u32,
    /// The multi-subgroup shader's k loop loads the next step's fragments before this step's
    /// multiply-adds.
    pub pipelined: bool,
    /// Where the subgroups load their fragments from.
    pub fetch: Fetch,
    /// The k step of a staged variant: [`STAGED_K`], or [`STAGED_K48`] for `128x256-smem48`.
    pub staged_k: usize,
}

/// Where a variant's subgroups load their fragments from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// Straight from global memory (the caches serve the reuse between subgroups).
    Global,
    /// From tiles of A and B that the workgroup copies into workgroup memory per 32-deep k step
    /// ([`STAGED_K`]), one buffer: copy, barrier, multiply-adds, barrier.
    Staged,
    /// Staged in two buffers: the next step's tiles are loaded into registers before this
    /// step's multiply-adds and stored into the other buffer after them, one barrier per step.
    StagedDouble,
    /// Staged in one buffer, the next step's tiles loaded into registers before this step's
    /// multiply-adds and stored after the next barrier (two barriers per step).
    StagedPrefetch,
}

/// The k step of the staged variants: each copies a BM×32 tile of A and a 32×BN tile of B.
pub const STAGED_K: usize = 32;

/// The k step of `128x256-smem48`: a 128×48 tile of A and a 48×256 tile of B per step, read
/// 16 bytes at a time.
pub const STAGED_K48: usize = 48;

/// Workgroup memory of `128x256-smem48` (`shaders/coop_multi.wgsl`'s `sa48`, `sb48` and `cst`:
/// one A tile of 128×(48 + 8) f16, one B tile of 48×(256 + 8) f16, and a 16×16 f32 fragment per
/// subgroup on its way to C).
pub const STAGED48_WORKGROUP_BYTES: u64 = (128 * 56 + 48 * 264) * 2 + 8 * 16 * 16 * 4;

/// Workgroup memory of every staged variant (`shaders/coop_multi.wgsl`'s `sa` and `sb`: two A
/// tiles of 128×(32 + 8) f16 and two B tiles of 32×(128 + 8) f16, which also hold the one
/// 32×(256 + 8) B tile of `128x256-smem-pf`).
pub const STAGED_WORKGROUP_BYTES: u64 = 2 * (128 * 40 + 32 * 136) * 2;

const fn variant(
    name: &'static str,
    entry: &'static str,
    tm: u32,
    tn: u32,
    fragments: bool,
) -> Variant {
    Variant {
        name,
        entry,
        tm,
        tn,
        fragments,
        sm: 1,
        sn: 1,
        pipelined: false,
        fetch: Fetch::Global,
        staged_k: STAGED_K,
    }
}

/// A variant of `shaders/coop_multi.wgsl`: `sm`×`sn` subgroups of 64×64 blocks per workgroup,
/// fragment layout.
const fn multi(
    name: &'static str,
    entry: &'static str,
    sm: u32,
    sn: u32,
    pipelined: bool,
) -> Variant {
    Variant {
        name,
        entry,
        tm: 4,
        tn: 4,
        fragments: true,
        sm,
        sn,
        pipelined,
        fetch: Fetch::Global,
        staged_k: STAGED_K,
    }
}

/// A staged variant of `shaders/coop_multi.wgsl`: `sm`×`sn` subgroups of `tm`×`tn` fragments,
/// A and B row-major, tiles staged in workgroup memory as `fetch` says, `staged_k` deep.
const fn staged(
    name: &'static str,
    entry: &'static str,
    (sm, sn): (u32, u32),
    (tm, tn): (u32, u32),
    fetch: Fetch,
    staged_k: usize,
) -> Variant {
    Variant {
        name,
        entry,
        tm,
        tn,
        fragments: false,
        sm,
        sn,
        pipelined: false,
        fetch,
        staged_k,
    }
}

/// The variants, the default first.
pub const VARIANTS: &[Variant] = &[
    variant("64x64", "main_4x4", 4, 4, false),
    variant("64x64-frag", "main_4x4", 4, 4, true),
    variant("64x32", "main_4x2", 4, 2, false),
    variant("64x32-frag", "main_4x2", 4, 2, true),
    variant("32x32", "main_2x2", 2, 2, false),
    variant("32x32-frag", "main_2x2", 2, 2, true),
    multi("128x128-frag", "main_2x2", 2, 2, false),
    multi("256x128-frag", "main_4x2", 4, 2, false),
    multi("128x128-frag-pipe", "main_2x2_pipe", 2, 2, true),
    staged(
        "128x128-smem",
        "main_smem_2x2",
        (2, 2),
        (4, 4),
        Fetch::Staged,
        STAGED_K,
    ),
    staged(
        "128x128-smem-db",
        "main_smem_2x2_db",
        (2, 2),
        (4, 4),
        Fetch::StagedDouble,
        STAGED_K,
    ),
    staged(
        "128x128-smem-db-64x32",
        "main_smem_2x4_db",
        (2, 4),
        (4, 2),
        Fetch::StagedDouble,
        STAGED_K,
    ),
    staged(
        "128x256-smem-pf",
        "main_smem_2x4_pf",
        (2, 4),
        (4, 4),
        Fetch::StagedPrefetch,
        STAGED_K,
    ),
    staged(
        "128x256-smem48",
        "main_smem_2x4_pf48",
        (2, 4),
        (4, 4),
        Fetch::StagedPrefetch,
        STAGED_K48,
    ),
];

impl Variant {
    /// Rows of C per workgroup (all its subgroups).
    pub fn bm(&self) -> usize {
        FRAG * (self.tm * self.sm) as usize
    }

    /// Columns of C per workgroup (all its subgroups).
    pub fn bn(&self) -> usize {
        FRAG * (self.tn * self.sn) as usize
    }

    /// Whether the fragments come from tiles staged in workgroup memory.
    pub fn staged(&self) -> bool {
        self.fetch != Fetch::Global
    }

    /// The k step, which k is padded to: 32 when staged (48 for `128x256-smem48`), else 16
    /// (one fragment).
    pub fn bk(&self) -> usize {
        if self.staged() { self.staged_k } else { FRAG }
    }

    /// Bytes of workgroup memory per workgroup.
    pub fn workgroup_bytes(&self) -> u64 {
        if self.staged_k == STAGED_K48 {
            STAGED48_WORKGROUP_BYTES
        } else if self.staged() {
            STAGED_WORKGROUP_BYTES
        } else {
            0
        }
    }

    /// Subgroups per workgroup.
    pub fn subgroups(&self) -> u32 {
        self.sm * self.sn
    }

    /// Invocations per workgroup: 32 per subgroup.
    pub fn workgroup(&self) -> u32 {
        WORKGROUP * self.subgroups()
    }

    /// The default variant (the first of [`VARIANTS`]).
    pub fn default_variant() -> Variant {
        VARIANTS[0]
    }

    /// Look a variant up by name.
    pub fn parse(name: &str) -> Result<Variant> {
        super::named::parse(VARIANTS, |v| v.name, Method::Coop.name(), name)
    }

    /// The variant an m×n product runs on an adapter of PCI vendor `vendor` when
    /// `RENDERMM_COOP` is unset: `128x256-smem48` on NVIDIA when C holds at least
    /// [`STAGED_MIN_TILES`] of its 128×256 tiles, else the default (`64x64`). On the H100
    /// (docs/perf/h100/coop-default.txt, timestamps written with the work) smem48 was the faster
    /// at every product of two tiles or more measured: 0.020 against 0.022 ms at 256² (2
    /// tiles), 0.025 against 0.031 at 512², 0.032 against 0.042 at 1000×777×513, 0.199 against
    /// 0.332 at 256×8192×256. With one tile it depends on k: 0.107 against 0.172 ms at
    /// 128×4096×256, but 0.014 against 0.013 at 128×48×256 and 7×13×5. Other vendors keep the
    /// default: the staged kernels rely on the driver honouring workgroup and subgroup barriers
    /// under naga's memory-model output (see shaders/coop_multi.wgsl), and they have been
    /// checked on NVIDIA only.
    // ANCHOR: default_variant
    pub fn for_product(vendor: u32, m: usize, n: usize) -> Variant {
        let staged = STAGED_DEFAULT;
        let tiles = m.div_ceil(staged.bm()) * n.div_ceil(staged.bn());
        if vendor == NVIDIA && tiles >= STAGED_MIN_TILES {
            staged
        } else {
            Self::default_variant()
        }
    }

    /// The variant a request named, or [`Variant::for_product`] where it named none.
    pub fn chosen(named: Option<Variant>, vendor: u32, m: usize, n: usize) -> Variant {
        named.unwrap_or_else(|| Self::for_product(vendor, m, n))
    }
    // ANCHOR_END: default_variant
}

/// NVIDIA's PCI vendor id.
pub const NVIDIA: u32 = 0x10de;

/// The staged variant [`Variant::for_product`] picks on NVIDIA.
const STAGED_DEFAULT: Variant = VARIANTS[VARIANTS.len() - 1];

/// Fewest 128×256 tiles of C for which [`Variant::for_product`] picks the staged variant.
pub const STAGED_MIN_TILES: usize = 2;

/// The sizes the buffers are padded to: m to BM, k to the k step (16, or 32 or 48 when staged), n to
/// BN.
pub fn padded(v: &Variant, m: usize, k: usize, n: usize) -> (usize, usize, usize) {
    let up = |x: usize, t: usize| x.max(1).div_ceil(t) * t;
    (up(m, v.bm()), up(k, v.bk()), up(n, v.bn()))
}

/// Error unless this adapter can run `coop`: the experimental cooperative-matrix feature with an
/// f16×f16→f32 16×16×16 configuration, f16 in shaders, and subgroups no wider than the 32
/// invocations of a workgroup (narrower ones each compute the whole block, redundantly but
/// correctly; a wider one would be partly empty, which cooperative matrices do not allow).
pub fn supported(ctx: &GpuContext) -> Result<()> {
    let missing = |feature: &'static str, why: String| Error::MissingFeature {
        adapter: ctx.info.name.clone(),
        feature,
        needed_for: format!("coop needs ({why}); coop is not supported on this adapter"),
    };
    if !ctx.has(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
        return Err(missing(
            "EXPERIMENTAL_COOPERATIVE_MATRIX",
            "cooperative matrices, i.e. tensor cores: f16×f16→f32 16×16×16".into(),
        ));
    }
    let configs = ctx.adapter.cooperative_matrix_properties();
    let wanted = |c: &wgpu::CooperativeMatrixProperties| {
        (c.m_size, c.n_size, c.k_size) == (16, 16, 16)
            && c.ab_type == wgpu::CooperativeScalarType::F16
            && c.cr_type == wgpu::CooperativeScalarType::F32
    };
    if !configs.iter().any(wanted) {
        let have: Vec<String> = configs
            .iter()
            .map(|c| {
                format!(
                    "{:?}x{:?}->{:?} {}x{}x{}",
                    c.ab_type, c.ab_type, c.cr_type, c.m_size, c.n_size, c.k_size
                )
            })
            .collect();
        return Err(missing(
            "EXPERIMENTAL_COOPERATIVE_MATRIX",
            format!(
                "the f16×f16→f32 16×16×16 configuration; the adapter offers only [{}]",
                have.join(", ")
            ),
        ));
    }
    if !ctx.has(wgpu::Features::SHADER_F16) {
        return Err(missing(
            "SHADER_F16",
            "f16 operands in storage buffers".into(),
        ));
    }
    let max = ctx.info.subgroup_max_size;
    if max > WORKGROUP {
        return Err(missing(
            "subgroups no wider than a workgroup",
            format!("one subgroup per workgroup of {WORKGROUP}; subgroups here may be {max} wide"),
        ));
    }
    Ok(())
}

/// Loop iterations of one invocation at depth `k`, for drivers that cap them
/// ([`super::Loops`]), for the variant that loops most: the staged kernels' k loop, one step per
/// 32 of k with 8 + 1 staging and 2 + 1 fragment iterations in it (13 per 32 of k; the
/// unstaged kernels run 2 per 32, the 48-deep one 5 per 48), and 4 for the stores and the loops'
/// ends.
pub fn loop_iterations(k: usize) -> u64 {
    super::k_steps(k, 32, 13, 4)
}

/// The one dispatch of `v` for an m×k·k×n product (over the padded sizes).
pub fn plan(v: &Variant, m: usize, k: usize, n: usize) -> Plan {
    let (mp, kp, np) = padded(v, m, k, n);
    let kernel = if v.subgroups() == 1 {
        Kernel {
            file: "coop.wgsl",
            source: SHADER,
            entry: v.entry,
            constants: vec![("FRAGMENTS", if v.fragments { 1.0 } else { 0.0 })],
            workgroup_size: [WORKGROUP, 1, 1],
            workgroup_bytes: 0,
        }
    } else {
        Kernel {
            file: "coop_multi.wgsl",
            source: SHADER_MULTI,
            entry: v.entry,
            constants: vec![],
            workgroup_size: [v.workgroup(), 1, 1],
            workgroup_bytes: v.workgroup_bytes(),
        }
    };
    let groups = [(np / v.bn()) as u32, (mp / v.bm()) as u32, 1];
    let layout = if v.fragments {
        "A and B packed fragment by fragment, 512 contiguous bytes each"
    } else {
        "A and B row-major"
    };
    let bk = v.bk();
    let fetch = match v.fetch {
        Fetch::Global => "f16 fragments loaded from global memory".to_string(),
        f => format!(
            "f16 fragments loaded from a {}x{bk} tile of A and a {bk}x{} tile of B the workgroup copies into workgroup memory per {bk}-deep k step ({}{})",
            v.bm(),
            v.bn(),
            match f {
                Fetch::StagedDouble => {
                    "two buffers: the next step's tiles loaded into registers before this step's multiply-adds, stored into the other buffer after them"
                }
                Fetch::StagedPrefetch => {
                    "one buffer, the next step's tiles loaded into registers before this step's multiply-adds"
                }
                _ => "one buffer: copy, barrier, multiply-adds, barrier",
            },
            if v.staged_k == STAGED_K48 {
                "; copied 16 bytes at a time; C written through workgroup memory, 16 bytes per store"
            } else {
                ""
            }
        ),
    };
    let what = if v.subgroups() == 1 {
        format!(
            "a {}x{} block of C per 32-wide subgroup, {}x{} f32 accumulator fragments of 16x16, f16 fragments loaded from global memory ({layout})",
            v.bm(),
            v.bn(),
            v.tm,
            v.tn,
        )
    } else {
        format!(
            "a {}x{} tile of C per workgroup of {}x{} subgroups ({} invocations), each a {}x{} block as {}x{} f32 accumulator fragments of 16x16, {fetch}{} ({layout})",
            v.bm(),
            v.bn(),
            v.sm,
            v.sn,
            v.workgroup(),
            FRAG * v.tm as usize,
            FRAG * v.tn as usize,
            v.tm,
            v.tn,
            if v.pipelined {
                ", the next k step's loaded before this step's multiply-adds"
            } else {
                ""
            },
        )
    };
    let mut p = Plan::single(Method::Coop.name(), kernel, groups)
        .note(format!(
            "variant {} (another with {ENV}=...; unset, chosen by the vendor and the size of C): {what}",
            v.name
        ))
        .note(format!(
            "A, B rounded to f16 and zero-padded to {mp}x{kp}x{np} (C cropped on readback)"
        ));
    p.trusted = Some(
        "coop's buffers are padded to whole workgroup tiles (m to BM, k to 16, or to 32 or 48 when staged, n to BN) and its grid is exactly the padded C, so every 16x16 fragment it loads or stores and every tile it stages lies inside its buffer, and every index into a staged tile inside the workgroup array (shaders/coop.wgsl, shaders/coop_multi.wgsl)",
    );
    p
}

/// Record `a · b` with the variant the request names ([`Variant::for_product`] where it names
/// none), for the runner, and that variant.
pub fn record(
    ctx: &GpuContext,
    a: &Matrix,
    b: &Matrix,
    p: &Params,
) -> Result<(Work, Variant)> {
    let v = Variant::chosen(p.kernels.coop, ctx.info.vendor, a.rows, b.cols);
    Ok((record_variant(ctx, &v, a, b, p)?, v))
}

/// Record `a · b` with variant `v`: the not-supported error first; A and B converted to f16
/// and padded on the way up, and refused there if a value lies outside f16's range (or is not
/// finite, unless `p` allows it); C cropped on the way back.
pub fn record_variant(
    ctx: &GpuContext,
    v: &Variant,
    a: &Matrix,
    b: &Matrix,
    p: &Params,
) -> Result<Work> {
    crate::matrix::check_product(a, b)?;
    supported(ctx)?;
    if v.subgroups() > 1 && !ctx.has(wgpu::Features::SUBGROUP_BARRIER) {
        return Err(Error::MissingFeature {
            adapter: ctx.info.name.clone(),
            feature: "SUBGROUP_BARRIER",
            needed_for: format!(
                "coop's multi-subgroup variant {} (shaders/coop_multi.wgsl synchronises a subgroup with subgroupBarrier); the one-subgroup 64x64 runs without it",
                v.name
            ),
        });
    }
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let plan = plan(v, m, k, n);
    let (mp, kp, np) = padded(v, m, k, n);
    plan.check(&ctx.limits)?;
    let (la, lb) = match v.fragments {
        true => (Layout::FragmentsByRow, Layout::FragmentsByColumn),
        false => (Layout::RowMajor, Layout::RowMajor),
    };
    // The copies and C's poison go to the queue in one submission.
    let (ab, bb, c) = crate::gpu::batch::batched(ctx, || {
        let (ab, a_inside) = f16_operand(ctx, "A (f16, padded)", a, mp, kp, la)?;
        let (bb, b_inside) = f16_operand(ctx, "B (f16, padded)", b, kp, np, lb)?;
        if !(a_inside && b_inside) {
            // Which value, in the words of the checks a pass of their own would have made.
            crate::matrix::refuse_nonfinite(false, p.allow_nonfinite, a, b)?;
            check_f16_range(a, "A")?;
            check_f16_range(b, "B")?;
        }
        Ok((ab, bb, MatrixBuffer::output(ctx, "C (padded)", mp, np)?))
    })?;
    let ops = Operands::from_buffers(ctx, &plan, ab, bb, c, (mp, kp, np))?;
    let mut work = compute::record(ctx, &plan, ops, (m, n), p.repeats)?;
    work.inputs = Some(crate::precision::Precision::F16);
    Ok(work)
}

/// Error if an element would overflow f16 (and so turn into infinity on the way in).
pub fn check_f16_range(x: &Matrix, name: &str) -> Result<()> {
    f16_range(
        x,
        name,
        |v| v.abs() > F16_MAX,
        || "f16 holds, and coop rounds its inputs to f16".into(),
    )
}

/// How an operand's f16 elements are laid out in its buffer (`rows × cols` padded, both
/// multiples of 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Element (i, j) at i·cols + j.
    RowMajor,
    /// 16×16 fragments, each contiguous and row-major inside; fragment (I, P) at
    /// (I·cols/16 + P)·256: the fragments of a block row follow each other (A).
    FragmentsByRow,
    /// The same with fragment (P, J) at (J·rows/16 + P)·256: the fragments of a block column
    /// follow each other (B).
    FragmentsByColumn,
}

impl Layout {
    /// Where element (i, j) of a `rows × cols` operand goes; the shader's `load_a` / `load_b`
    /// address fragment (I, P) / (P, J) by the same formulas.
    #[cfg(feature = "internals")]
    pub fn index(self, i: usize, j: usize, rows: usize, cols: usize) -> usize {
        let inside = (i % FRAG) * FRAG + j % FRAG;
        match self {
            Layout::RowMajor => i * cols + j,
            Layout::FragmentsByRow => {
                ((i / FRAG) * (cols / FRAG) + j / FRAG) * FRAG * FRAG + inside
            }
            Layout::FragmentsByColumn => {
                ((j / FRAG) * (rows / FRAG) + i / FRAG) * FRAG * FRAG + inside
            }
        }
    }
}

/// The model of an f16 operand: `x` rounded to f16, zero-padded to `rows × cols` (multiples of
/// 16) and laid out as `layout`, element by element through [`Layout::index`]. The tests hold
/// the upload ([`f16_operand`]) to it.
#[cfg(test)]
pub fn f16_packed(
    x: &Matrix,
    rows: usize,
    cols: usize,
    layout: Layout,
) -> (usize, usize, Vec<half::f16>) {
    let mut halves = vec![half::f16::ZERO; rows * cols];
    for i in 0..x.rows {
        for j in 0..x.cols {
            halves[layout.index(i, j, rows, cols)] = half::f16::from_f32(x.data[i * x.cols + j]);
        }
    }
    (rows, cols, halves)
}

/// `x` rounded to f16, zero-padded to `rows × cols` and laid out as `layout`, in a storage
/// buffer; and whether every value of `x` lay inside f16's range (±65504; a NaN or an infinity
/// does not), tested as it was converted. The operand is written straight into the mapped
/// staging buffer on threads (`gpu::host::fill_rows`), with no intermediate f16 matrix, in
/// units that are contiguous in the layout: a row (row-major), a band of 16 rows (A's
/// fragments) or a band of 16 columns (B's fragments). At n = 4096 on the H200's host the
/// by-column fragments packed into a matrix of their own on one thread, after a scan of their
/// own for the range, took most of coop's 61 ms upload.
fn f16_operand(
    ctx: &GpuContext,
    label: &str,
    x: &Matrix,
    rows: usize,
    cols: usize,
    layout: Layout,
) -> Result<(MatrixBuffer, bool)> {
    assert!(
        rows >= x.rows && cols >= x.cols && rows.is_multiple_of(FRAG) && cols.is_multiple_of(FRAG)
    );
    check_storage_size(
        &ctx.limits,
        &format!("coop: {label}, a {rows}x{cols} f16 storage buffer"),
        (rows * cols * 2) as u64,
    )?;
    let buf = MatrixBuffer::new(ctx, label, rows, cols / 2)?;
    let (units, unit_len) = match layout {
        Layout::RowMajor => (rows, cols),
        Layout::FragmentsByRow => (rows / FRAG, FRAG * cols),
        Layout::FragmentsByColumn => (cols / FRAG, FRAG * rows),
    };
    let outside = std::sync::atomic::AtomicBool::new(false);
    // Every byte is written: a pooled staging buffer holds what its last upload left.
    ctx.staging
        .upload(ctx, &buf.buffer, 0, (rows * cols * 2) as u64, |w| {
            crate::gpu::host::fill_rows(w, units, unit_len, unit_len * 2, |u, out| {
                if !f16_unit(x, layout, rows, cols, u, out) {
                    outside.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            })
        })?;
    Ok((buf, !outside.into_inner()))
}

/// Unit `u` of `x`'s f16 operand in `layout` (see [`f16_operand`]) into `out`; whether every
/// value of `x` it took lay inside f16's range.
fn f16_unit(
    x: &Matrix,
    layout: Layout,
    rows: usize,
    cols: usize,
    u: usize,
    out: &mut [half::f16],
) -> bool {
    // Columns lo..hi of row i of x (as far as x has them) into `to`, zeros after.
    let put = |to: &mut [half::f16], i: usize, lo: usize, hi: usize| -> bool {
        use half::slice::HalfFloatSliceExt;
        let (lo, hi) = (lo.min(x.cols), hi.min(x.cols));
        let src: &[f32] = if i < x.rows {
            &x.data[i * x.cols + lo..i * x.cols + hi]
        } else {
            &[]
        };
        to[..src.len()].convert_from_f32_slice(src);
        to[src.len()..].fill(half::f16::ZERO);
        src.iter().fold(true, |ok, v| ok & (v.abs() <= F16_MAX))
    };
    let mut inside = true;
    match layout {
        Layout::RowMajor => inside &= put(out, u, 0, cols),
        // Fragment (u, P) is at P·256; row r of it holds row 16u + r, columns 16P..16P + 16.
        Layout::FragmentsByRow => {
            for r in 0..FRAG {
                for p in 0..cols / FRAG {
                    let at = p * FRAG * FRAG + r * FRAG;
                    inside &= put(
                        &mut out[at..at + FRAG],
                        u * FRAG + r,
                        p * FRAG,
                        (p + 1) * FRAG,
                    );
                }
            }
        }
        // Fragment (P, u) is at P·256, so row i of the band, columns 16u..16u + 16, is at 16i.
        Layout::FragmentsByColumn => {
            for i in 0..rows {
                inside &= put(
                    &mut out[i * FRAG..(i + 1) * FRAG],
                    i,
                    u * FRAG,
                    (u + 1) * FRAG,
                );
            }
        }
    }
    inside
}

#[cfg(test)]
mod tests;
