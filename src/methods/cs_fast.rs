//! `cs-fast`: the compute method built for speed, the 5kk73 ladder taken to what a
//! present-day SGEMM does (`docs/performance.md` has what each version gained on the H100).
//!
//! One dispatch of (n/BN) × (m/BM) workgroups of WG_X × WG_Y invocations. A workgroup computes a
//! BM×BN tile of C; each invocation a register block of 16×8, 8×8 or 4×8 elements of it,
//! held in vec4 accumulators ([`ENTRIES`]: the entry points, some with the k-loop written out for
//! one BK). Per k-tile of depth BK the workgroup stages a BK×BM tile of A and a BK×BN tile
//! of B in workgroup memory, double-buffered: the next k-tile's global loads are issued before the
//! multiply-adds on the current one and stored into the other buffer after them, so there is one
//! barrier per k-tile. Every global and workgroup-memory access is a vec4. The one entry for CPU
//! adapters, `main_8x8_direct`, stages nothing: each invocation reads its vec4s straight from the
//! buffers ([`Variant::for_cpu`] says why).
//!
//! The operands are laid out on upload (and that time counts as upload):
//! - A is uploaded transposed, Aᵀ (k×m), so that a k-row of its tile is contiguous like B's and
//!   lands in workgroup memory with vec4 stores;
//! - Aᵀ, B and C are zero-padded to multiples of the tile (m to BM, k to BK, n to BN). Zero rows
//!   and columns add zero products, and the padding of C is cropped on readback, so it never shows
//!   in the result.
//!
//! Because every buffer is a whole number of tiles, the shader has no edge tests and its indexing
//! is in range by construction (the argument is written beside each access in
//! `shaders/cs_fast.wgsl`), so the plan is compiled with wgpu's runtime bounds checks off
//! ([`Plan::trusted`]); [`Variant::check`] and [`plan`] enforce the preconditions.
//!
//! Subgroup operations: not used. Each k-step an invocation reads 3 (4×8) to 6 (16×8) vec4s from
//! workgroup memory, which neighbouring invocations share by broadcast; fetching the same values
//! by subgroup shuffles would take one shuffle per scalar instead of one load per four.
//!
//! Parameters: a few fixed [`VARIANTS`] (tile BM×BN×BK and register block), passed to the shader
//! as pipeline-overridable constants. `RENDERMM_CS_FAST=<variant>` picks one for every run
//! (`multiply`, `bench`); unset, a product picks by its size ([`Variant::for_product`]: the
//! 128×64 tile with a 16×8 block and its k-loop written out for a C of 256 such tiles or more,
//! the 64×64 tile with a 4×8 block below; on a CPU adapter the direct 8×8 kernel on the tile of
//! [`CPU_VARIANTS`] that pads C least). `rendermm tune --method cs-fast` times them all.

use super::{Params, Work};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::gpu::buffer::MatrixBuffer;
use crate::gpu::compute::{self, Kernel, Operands, Plan};
use crate::matrix::Matrix;
use crate::methods::Method;

const SHADER: &str = include_str!(concat!(env!("OUT_DIR"), "/shaders/cs_fast.wgsl"));

/// The knob that names the variant (read by the command line, [`super::Kernels::from_knobs`]).
pub const ENV: &str = "RENDERMM_CS_FAST";

/// One shape of the kernel: the shader entry point, its register block per invocation
/// (`rm`×`rn`), the invocations (`wg_x` along n, `wg_y` along m) and the depth `bk` of a k-tile.
/// The C tile is BM×BN = (rm·wg_y)×(rn·wg_x).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// `BMxBNxBK-RMxRN` and the entry point's suffix ([`Entry::suffix`]), e.g. `128x128x16-8x8`
    /// or `128x64x8-16x8-unrolled`.
    pub name: &'static str,
    /// The entry point of `shaders/cs_fast.wgsl`, one of [`ENTRIES`].
    pub entry: &'static str,
    /// Rows of the register block.
    pub rm: u32,
    /// Columns of the register block.
    pub rn: u32,
    pub wg_x: u32,
    pub wg_y: u32,
    pub bk: u32,
}

/// An entry point of `shaders/cs_fast.wgsl` and what it requires of a [`Variant`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub name: &'static str,
    /// The register block it computes, rows × columns.
    pub rm: u32,
    pub rn: u32,
    /// The k-tile depth its k-loop is written out for; `None` where it loops over any BK.
    pub bk: Option<u32>,
    /// What variant names of this entry end in after `BMxBNxBK-RMxRN`.
    pub suffix: &'static str,
    /// Whether it stages k-tiles of A and B in workgroup memory (every entry but
    /// `main_8x8_direct`, which reads the buffers directly).
    pub staged: bool,
}

impl Entry {
    const fn new(
        name: &'static str,
        rm: u32,
        rn: u32,
        bk: Option<u32>,
        suffix: &'static str,
        staged: bool,
    ) -> Entry {
        Entry { name, rm, rn, bk, suffix, staged }
    }
}

/// The entry points of `shaders/cs_fast.wgsl`.
pub const ENTRIES: &[Entry] = &[
    // name, register block rm × rn, written-out k-tile depth, name suffix, staged
    Entry::new("main_16x8", 16, 8, None, "", true),
    Entry::new("main_8x8", 8, 8, None, "", true),
    Entry::new("main_4x8", 4, 8, None, "", true),
    Entry::new("main_8x8_u8", 8, 8, Some(8), "-unrolled", true),
    Entry::new("main_16x8_u8", 16, 8, Some(8), "-unrolled", true),
    Entry::new("main_8x8_direct", 8, 8, None, "-direct", false),
];

/// Below this many tiles of C (about two per multiprocessor of the H100's 132), an m×n product
/// runs the smaller-tiled second variant ([`Variant::for_product`]).
pub const SMALL_PRODUCT_TILES: usize = 256;

/// The variants a CPU adapter (lavapipe, a browser's software WebGPU) chooses among, at every
/// size ([`Variant::for_product`]): `main_8x8_direct`'s 8×8 register blocks, read straight from
/// the buffers, on three tiles of C, the largest first.
pub const CPU_VARIANTS: [&str; 3] = [
    "128x128x8-8x8-direct",
    "64x64x8-8x8-direct",
    "32x32x8-8x8-direct",
];

/// The variants, the default first: the fastest at n = 2048 and 4096 on the H100; the second the
/// one for small products ([`Variant::for_product`], `docs/performance.md`).
pub const VARIANTS: &[Variant] = &[
    // name, entry point, register block (rm, rn), workgroup (wg_x, wg_y), k-tile depth BK
    Variant::new("128x64x8-16x8-unrolled", "main_16x8_u8", (16, 8), (8, 8), 8),
    Variant::new("64x64x8-4x8", "main_4x8", (4, 8), (8, 16), 8),
    Variant::new("128x128x16-8x8", "main_8x8", (8, 8), (16, 16), 16),
    Variant::new("128x128x8-8x8", "main_8x8", (8, 8), (16, 16), 8),
    Variant::new("128x64x16-8x8", "main_8x8", (8, 8), (8, 16), 16),
    Variant::new("64x64x16-8x8", "main_8x8", (8, 8), (8, 8), 16),
    Variant::new("64x128x16-4x8", "main_4x8", (4, 8), (16, 16), 16),
    Variant::new("128x128x8-16x8", "main_16x8", (16, 8), (16, 8), 8),
    Variant::new("128x128x16-16x8", "main_16x8", (16, 8), (16, 8), 16),
    Variant::new("256x128x8-16x8", "main_16x8", (16, 8), (16, 16), 8),
    Variant::new("128x256x8-16x8", "main_16x8", (16, 8), (32, 8), 8),
    Variant::new("32x64x8-4x8", "main_4x8", (4, 8), (8, 8), 8),
    Variant::new("64x64x16-4x8", "main_4x8", (4, 8), (8, 16), 16),
    Variant::new("64x32x8-4x8", "main_4x8", (4, 8), (4, 16), 8),
    Variant::new("64x64x8-8x8", "main_8x8", (8, 8), (8, 8), 8),
    Variant::new("128x64x8-8x8", "main_8x8", (8, 8), (8, 16), 8),
    Variant::new("64x128x8-8x8", "main_8x8", (8, 8), (16, 8), 8),
    Variant::new("128x64x8-16x8", "main_16x8", (16, 8), (8, 8), 8),
    Variant::new("64x64x8-16x8", "main_16x8", (16, 8), (8, 4), 8),
    Variant::new("128x128x8-8x8-unrolled", "main_8x8_u8", (8, 8), (16, 16), 8),
    Variant::new("128x64x8-8x8-unrolled", "main_8x8_u8", (8, 8), (8, 16), 8),
    Variant::new("64x128x8-8x8-unrolled", "main_8x8_u8", (8, 8), (16, 8), 8),
    Variant::new("64x64x8-8x8-unrolled", "main_8x8_u8", (8, 8), (8, 8), 8),
    Variant::new("128x128x8-16x8-unrolled", "main_16x8_u8", (16, 8), (16, 8), 8),
    Variant::new("256x128x8-16x8-unrolled", "main_16x8_u8", (16, 8), (16, 16), 8),
    Variant::new("64x64x8-16x8-unrolled", "main_16x8_u8", (16, 8), (8, 4), 8),
    Variant::new("256x64x8-16x8-unrolled", "main_16x8_u8", (16, 8), (8, 16), 8),
    Variant::new("128x128x8-8x8-direct", "main_8x8_direct", (8, 8), (16, 16), 8),
    Variant::new("64x64x8-8x8-direct", "main_8x8_direct", (8, 8), (8, 8), 8),
    Variant::new("32x32x8-8x8-direct", "main_8x8_direct", (8, 8), (4, 4), 8),
];

impl Variant {
    /// A variant: `entry`'s register block of `rm × rn` per invocation, a `wg_x × wg_y`
    /// workgroup, k-tiles `bk` deep ([`Variant::check`] holds the name to the shape).
    pub const fn new(
        name: &'static str,
        entry: &'static str,
        (rm, rn): (u32, u32),
        (wg_x, wg_y): (u32, u32),
        bk: u32,
    ) -> Variant {
        Variant { name, entry, rm, rn, wg_x, wg_y, bk }
    }

    /// Rows of the C tile.
    pub fn bm(&self) -> u32 {
        self.rm * self.wg_y
    }

    /// Columns of the C tile.
    pub fn bn(&self) -> u32 {
        self.rn * self.wg_x
    }

    /// Invocations per workgroup.
    pub fn invocations(&self) -> u32 {
        self.wg_x * self.wg_y
    }

    /// Bytes of workgroup memory: two buffers of a BK×BM and a BK×BN f32 tile (none for
    /// `main_8x8_direct`).
    pub fn workgroup_bytes(&self) -> u64 {
        if !self.staged() {
            return 0;
        }
        2 * self.bk as u64 * (self.bm() + self.bn()) as u64 * 4
    }

    /// Whether its entry point stages k-tiles in workgroup memory ([`Entry::staged`]).
    pub fn staged(&self) -> bool {
        ENTRIES
            .iter()
            .find(|e| e.name == self.entry)
            .is_none_or(|e| e.staged)
    }

    /// The shader entry point.
    pub fn entry(&self) -> &'static str {
        self.entry
    }

    /// The default variant for large products (the first of [`VARIANTS`]).
    pub fn default_variant() -> Variant {
        VARIANTS[0]
    }

    /// The variant an m×n product runs when `RENDERMM_CS_FAST` is unset. On a GPU: the default
    /// (`128x64x8-16x8-unrolled`, the fastest at n = 2048 and 4096 on the H100) when C holds at
    /// least [`SMALL_PRODUCT_TILES`] of its 128×64 tiles, else the second of [`VARIANTS`]
    /// (`64x64x8-4x8`), whose smaller tiles of fewer invocations keep more multiprocessors
    /// busy on a small product (at 1000×777×513 it ran 10.1 TFLOP/s against 7.3,
    /// `docs/performance.md`). On a CPU adapter (`cpu`: lavapipe, a browser's software WebGPU),
    /// at every size, the one of [`CPU_VARIANTS`] whose tile pads C least, the larger tile where
    /// two pad it alike ([`Variant::for_cpu`]).
    pub fn for_product(m: usize, n: usize, cpu: bool) -> Variant {
        let big = VARIANTS[0];
        let tiles = m.div_ceil(big.bm() as usize) * n.div_ceil(big.bn() as usize);
        let small = VARIANTS[1];
        if cpu {
            Self::for_cpu(m, n).unwrap_or(small)
        } else if tiles >= SMALL_PRODUCT_TILES {
            big
        } else {
            small
        }
    }

    /// On a CPU adapter: of [`CPU_VARIANTS`] (8×8 blocks read straight from the buffers), the one
    /// whose tile pads an m×n C to the fewest elements, the larger tile on a tie (n = 96 takes
    /// 32×32 tiles, not 64×64 ones that would multiply 128×128; n = 64, 64×64; a multiple of
    /// 128, 128×128). Where cores, not multiprocessors, run the workgroups, workgroup memory is
    /// the memory behind the same caches and buys nothing, while its barriers make SwiftShader
    /// compile the kernel as coroutines: in headless Chromium on SwiftShader the direct kernel
    /// compiled in 60–90 ms where the staged `64x64x8-8x8` took 0.9–2 s, and multiplied
    /// n = 256 to 1024 in 0.5–0.7 of its time; the tile's shape hardly changes the time, so the
    /// padding picks it (`docs/web.md`). None only if the table lost its CPU variants.
    pub fn for_cpu(m: usize, n: usize) -> Option<Variant> {
        let area = |v: &Variant| {
            let (mp, _, np) = padded(v, m, 1, n);
            mp as u128 * np as u128
        };
        VARIANTS
            .iter()
            .copied()
            .filter(|v| CPU_VARIANTS.contains(&v.name))
            .min_by_key(|v| (area(v), std::cmp::Reverse(v.bm() * v.bn())))
    }

    /// The variant a request named, or [`Variant::for_product`] where it named none.
    pub fn chosen(named: Option<Variant>, m: usize, n: usize, cpu: bool) -> Variant {
        named.unwrap_or_else(|| Self::for_product(m, n, cpu))
    }

    /// Look a variant up by name.
    pub fn parse(name: &str) -> Result<Variant> {
        super::named::parse(VARIANTS, |v| v.name, Method::CsFast.name(), name)
    }

    /// Error unless the shader's preconditions on its constants hold: an entry point of
    /// [`ENTRIES`] with the register block it computes and, where its k-loop is written out, the
    /// k-tile depth it is written for; where it stages tiles, each tile a whole number (1 to 4)
    /// of vec4 loads per invocation, the four fetch slots of `shaders/cs_fast.wgsl`; and the name
    /// the shape.
    pub fn check(&self) -> Result<()> {
        let t = self.invocations();
        let tiles = [
            ("A", self.bk * self.bm() / 4),
            ("B", self.bk * self.bn() / 4),
        ];
        let bad = |why: String| {
            Err(Error::Invalid(format!(
                "cs-fast variant {}: {why}",
                self.name
            )))
        };
        let Some(e) = ENTRIES.iter().find(|e| e.name == self.entry) else {
            let names: Vec<&str> = ENTRIES.iter().map(|e| e.name).collect();
            return bad(format!(
                "entry point {}; the shader has {}",
                self.entry,
                names.join(", ")
            ));
        };
        if (e.rm, e.rn) != (self.rm, self.rn) {
            return bad(format!(
                "register block {}x{}, but {} computes {}x{}",
                self.rm, self.rn, e.name, e.rm, e.rn
            ));
        }
        if let Some(bk) = e.bk.filter(|&bk| bk != self.bk) {
            return bad(format!(
                "BK = {}, but {} is written out for BK = {bk}",
                self.bk, e.name
            ));
        }
        if self.bk == 0 || t == 0 {
            return bad("empty tile".into());
        }
        for (what, q) in tiles.into_iter().filter(|_| e.staged) {
            if q % t != 0 || q / t == 0 || q / t > 4 {
                return bad(format!(
                    "the {what} tile is {q} vec4s for {t} invocations; it must be 1 to 4 loads each"
                ));
            }
        }
        let name = format!(
            "{}x{}x{}-{}x{}{}",
            self.bm(),
            self.bn(),
            self.bk,
            self.rm,
            self.rn,
            e.suffix
        );
        if name != self.name {
            return bad(format!("its shape is {name}"));
        }
        Ok(())
    }
}

/// The sizes the buffers are padded to: m to BM, k to BK, n to BN.
pub fn padded(v: &Variant, m: usize, k: usize, n: usize) -> (usize, usize, usize) {
    let up = |x: usize, t: u32| x.max(1).div_ceil(t as usize) * t as usize;
    (up(m, v.bm()), up(k, v.bk), up(n, v.bn()))
}

/// The one dispatch of `v` for an m×k·k×n product (over the padded sizes).
pub fn plan(v: &Variant, m: usize, k: usize, n: usize) -> Result<Plan> {
    v.check()?;
    let (mp, kp, np) = padded(v, m, k, n);
    for (what, x) in [("m", mp), ("k", kp), ("n", np)] {
        if x > u32::MAX as usize / 4 {
            return Err(Error::Invalid(format!(
                "cs-fast: {what} = {x} is too large"
            )));
        }
    }
    let kernel = Kernel {
        file: "cs_fast.wgsl",
        source: SHADER,
        entry: v.entry(),
        constants: vec![
            ("WG_X", v.wg_x as f64),
            ("WG_Y", v.wg_y as f64),
            ("BM", v.bm() as f64),
            ("BN", v.bn() as f64),
            ("BK", v.bk as f64),
        ],
        workgroup_size: [v.wg_x, v.wg_y, 1],
        workgroup_bytes: v.workgroup_bytes(),
    };
    let groups = [
        (np / v.bn() as usize) as u32,
        (mp / v.bm() as usize) as u32,
        1,
    ];
    let staging = if v.staged() {
        format!(
            "double-buffered in {} B of workgroup memory",
            v.workgroup_bytes()
        )
    } else {
        "read straight from the buffers, no workgroup memory".to_string()
    };
    let mut p = Plan::single(Method::CsFast.name(), kernel, groups)
        .note(format!(
            "variant {} (another with {ENV}=...; unset, chosen by the size of C and the adapter): {}x{} C tile per workgroup of {}x{}, {}x{} register block per invocation ({}), k-tiles of {}, {staging}",
            v.name,
            v.bm(),
            v.bn(),
            v.wg_x,
            v.wg_y,
            v.rm,
            v.rn,
            v.entry,
            v.bk,
        ))
        .note(format!(
            "A uploaded transposed; A, B, C zero-padded to {mp}x{kp}x{np} (cropped on readback)"
        ));
    p.trusted = Some(
        "cs-fast's buffers are padded to whole tiles (m to BM, k to BK, n to BN) and its grid is exactly the padded C, so every index is inside its buffer (shaders/cs_fast.wgsl)",
    );
    Ok(p)
}

/// Loop iterations of one invocation at depth `k`, for drivers that cap them
/// ([`super::Loops`]), for the variant that loops most: one step of the k-tile loop per BK of k
/// (8 or 16), each with BK + 1 of the loop over the tile where it is not written out (10 per 8
/// of k at most), and up to 16 for the stores and the loops' ends.
pub fn loop_iterations(k: usize) -> u64 {
    super::k_steps(k, 8, 10, 16)
}

/// Record `a · b` with the variant the request names ([`Variant::for_product`] where it names
/// none), for the runner, and that variant.
pub fn record(ctx: &GpuContext, a: &Matrix, b: &Matrix, p: &Params) -> Result<(Work, Variant)> {
    let cpu = ctx.info.device_type == wgpu::DeviceType::Cpu;
    let v = Variant::chosen(p.kernels.cs_fast, a.rows, b.cols, cpu);
    Ok((record_variant(ctx, &v, a, b, p)?, v))
}

/// Record `a · b` with variant `v`: A transposed and both padded to the tiles on the way up
/// (each tested for NaN and infinity as it is copied, refused unless `p` allows them), the
/// padding cropped off C on the way back.
pub fn record_variant(
    ctx: &GpuContext,
    v: &Variant,
    a: &Matrix,
    b: &Matrix,
    p: &Params,
) -> Result<Work> {
    crate::matrix::check_product(a, b)?;
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let plan = plan(v, m, k, n)?;
    let (mp, kp, np) = padded(v, m, k, n);
    plan.check(&ctx.limits)?;
    let up = crate::gpu::layout::upload_laid_out_scanned;
    // The copies, the layout pass and C's poison go to the queue in one submission.
    let (at, bb, c) = crate::gpu::batch::batched(ctx, || {
        let (at, a_finite) = up(ctx, "A transposed (padded)", a, true, kp, mp)?;
        let (bb, b_finite) = up(ctx, "B (padded)", b, false, kp, np)?;
        crate::matrix::refuse_nonfinite(a_finite && b_finite, p.allow_nonfinite, a, b)?;
        Ok((at, bb, MatrixBuffer::output(ctx, "C (padded)", mp, np)?))
    })?;
    let ops = Operands::from_buffers(ctx, &plan, at, bb, c, (mp, kp, np))?;
    compute::record(ctx, &plan, ops, (m, n), p.repeats)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without RENDERMM_CS_FAST, on a GPU large products take the default and small ones the
    /// smaller-tiled variant, at the tile count the rule names.
    #[test]
    fn products_below_the_tile_count_take_the_small_variant() {
        let (big, small) = (VARIANTS[0], VARIANTS[1]);
        assert_eq!((big.bm(), big.bn()), (128, 64));
        assert_eq!(small.name, "64x64x8-4x8");
        for (m, n, want) in [
            (4096, 4096, big),
            (2048, 2048, big),
            // 16 × 16 = 256 tiles of 128×64: the smallest that takes the default.
            (2048, 1024, big),
            (2047, 1024, big),
            (1920, 1024, small),
            (1024, 1024, small),
            (1000, 513, small),
            (256, 256, small),
            (96, 96, small),
            (64, 64, small),
            (1, 1, small),
            (1, 1 << 20, big),
        ] {
            assert_eq!(Variant::for_product(m, n, false), want, "{m}x{n} on a GPU");
        }
    }

    /// On a CPU adapter, at every size, the direct 8×8 kernel on the tile of CPU_VARIANTS that
    /// pads C least, the larger tile on a tie.
    #[test]
    fn a_cpu_adapter_takes_the_direct_tile_that_pads_least() {
        for name in CPU_VARIANTS {
            let v = Variant::parse(name).unwrap();
            assert_eq!(
                (v.entry, v.rm, v.rn, v.staged()),
                ("main_8x8_direct", 8, 8, false)
            );
            assert_eq!(v.workgroup_bytes(), 0, "{name}");
        }
        for (m, n, want) in [
            (64, 64, "64x64x8-8x8-direct"),
            (96, 96, "32x32x8-8x8-direct"),
            (128, 128, "128x128x8-8x8-direct"),
            (256, 256, "128x128x8-8x8-direct"),
            (384, 384, "128x128x8-8x8-direct"),
            (192, 192, "64x64x8-8x8-direct"),
            (160, 160, "32x32x8-8x8-direct"),
            (1024, 1024, "128x128x8-8x8-direct"),
            (4096, 4096, "128x128x8-8x8-direct"),
            (1, 1, "32x32x8-8x8-direct"),
            (20, 30, "32x32x8-8x8-direct"),
            (65, 37, "32x32x8-8x8-direct"),
            // 128 rows pad alike under all three; 64 columns under 64 and 32: the larger.
            (128, 64, "64x64x8-8x8-direct"),
            (1, 1 << 20, "32x32x8-8x8-direct"),
        ] {
            assert_eq!(
                Variant::for_product(m, n, true).name,
                want,
                "{m}x{n} on a CPU"
            );
        }
    }

    #[test]
    fn every_variant_meets_the_shader_preconditions() {
        for v in VARIANTS {
            v.check().unwrap();
            assert_eq!(v.staged(), v.entry != "main_8x8_direct", "{}", v.name);
            assert!(
                v.workgroup_bytes() <= 32768,
                "{}: fits lavapipe's 32 KiB",
                v.name
            );
            assert!(v.invocations() <= 256, "{}", v.name);
        }
    }

    #[test]
    fn a_wrong_entry_block_or_depth_is_one_clear_error() {
        let v = Variant::parse("128x128x8-8x8-unrolled").unwrap();
        let err = |v: Variant| v.check().unwrap_err().to_string();
        let e = err(Variant {
            name: "128x128x16-8x8-unrolled",
            bk: 16,
            ..v
        });
        assert!(e.contains("main_8x8_u8 is written out for BK = 8"), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        let e = err(Variant { rn: 16, ..v });
        assert!(
            e.contains("register block 8x16, but main_8x8_u8 computes 8x8"),
            "{e}"
        );
        let e = err(Variant {
            entry: "main_8x8_u4",
            ..v
        });
        assert!(e.contains("entry point main_8x8_u4; the shader has"), "{e}");
        let e = err(Variant {
            name: "128x128x8-8x8",
            ..v
        });
        assert!(e.contains("its shape is 128x128x8-8x8-unrolled"), "{e}");
        for e in ENTRIES {
            assert!(
                VARIANTS.iter().any(|v| v.entry == e.name),
                "{} has a variant",
                e.name
            );
        }
    }

    #[test]
    fn operands_are_laid_out_transposed_and_padded() {
        let a = Matrix::from_fn(3, 5, |i, j| (i * 10 + j) as f32);
        let lay = |t, rows, cols| {
            let mut out = vec![];
            crate::gpu::buffer::layout_rows(&a, t, rows, cols, |r: &[f32]| {
                assert_eq!(r.len(), cols);
                out.extend_from_slice(r)
            });
            Matrix::new(rows, cols, out).unwrap()
        };
        for (rows, cols) in [(5, 3), (8, 4), (40, 7)] {
            let t = lay(true, rows, cols);
            for p in 0..rows {
                for i in 0..cols {
                    let want = if p < 5 && i < 3 { a.get(i, p) } else { 0.0 };
                    assert_eq!(t.get(p, i), want, "transposed ({p}, {i}) of {rows}x{cols}");
                }
            }
        }
        let p = lay(false, 4, 8);
        for i in 0..4 {
            for j in 0..8 {
                let want = if i < 3 && j < 5 { a.get(i, j) } else { 0.0 };
                assert_eq!(p.get(i, j), want);
            }
        }
    }
}
