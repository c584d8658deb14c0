//! [`TABLE`]: every method, one row each — its name, era, source, one line, what it takes, how it
//! runs and its shader loops — which the command line, the tour, the bench, the docs and the web
//! page read.

use super::*;

/// frag-mrt's recorded work with the block shape it ran.
fn shaped((work, shape): (Work, frag_mrt::Shape)) -> Recorded {
    Recorded {
        work,
        variant: Some(Variant::FragMrt(shape)),
    }
}

#[cfg(not(target_arch = "wasm32"))]
const RUN_LM_GL1: HostFn = lm_gl1::run;
#[cfg(not(target_arch = "wasm32"))]
const RUN_HALL_ARBFP: HostFn = hall_arbfp::run;
#[cfg(target_arch = "wasm32")]
const RUN_LM_GL1: HostFn = |_, _, _| Err(in_browser(Method::LmGl1));
#[cfg(target_arch = "wasm32")]
const RUN_HALL_ARBFP: HostFn = |_, _, _| Err(in_browser(Method::HallArbfp));

/// The refusal of a GL-era method in a browser.
#[cfg(target_arch = "wasm32")]
fn in_browser(method: Method) -> Error {
    Error::HostGl {
        method: method.name().into(),
        missing: "no OpenGL compatibility profile in a browser (WebGL has neither the fixed-function pipeline nor GL_ARB_fragment_program)".into(),
    }
}

const fn compute(
    method: Method,
    name: &'static str,
    source: &'static str,
    summary: &'static str,
    file: &'static str,
    plan: PlanFn,
    loops: LoopsFn,
) -> Info {
    Info {
        method,
        name,
        era: Era::Compute,
        source,
        summary,
        file,
        takes: F32_ONLY,
        runs: Runs::Compute {
            plan,
            fallback: None,
        },
        loops: compute_loops(loops),
    }
}

/// Every method, one row each, in the order the tour shows them (the order of [`Method`]).
pub const TABLE: &[Info] = &[
    Info {
        method: Method::Lm,
        name: "lm",
        era: Era::Blending2001,
        source: "Larsen & McAllister 2001, §3",
        summary: "k textured quads, modulate, additive blend into the framebuffer",
        file: "methods/larsen_mcallister.rs",
        takes: Takes {
            precision: true,
            block: false,
            accumulate: false,
            channels: true,
        },
        runs: Runs::Record(|ctx, a, b, p| {
            larsen_mcallister::record(ctx, a, b, p).map(Recorded::plain)
        }),
        loops: fragment_loops(|_, _, _, _| larsen_mcallister::loop_iterations()),
    },
    Info {
        method: Method::LmGl1,
        name: "lm-gl1",
        era: Era::Blending2001,
        source: "Larsen & McAllister 2001, §3, in OpenGL 1.x",
        summary: "k quads, GL_MODULATE on two texture units, glBlendFunc(GL_ONE, GL_ONE): no shader",
        file: "methods/lm_gl1.rs",
        takes: Takes {
            precision: true,
            block: false,
            accumulate: false,
            channels: true,
        },
        runs: Runs::Host(RUN_LM_GL1),
        loops: None,
    },
    Info {
        method: Method::HallBlocked,
        name: "hall-blocked",
        era: Era::Shaders2003,
        source: "Hall, Carr & Hart 2003, §3 (algorithm 5)",
        summary: "⌈k/b⌉ blocked fragment-shader passes, ping-pong accumulation",
        file: "methods/hall_blocked.rs",
        takes: Takes {
            precision: true,
            block: true,
            accumulate: true,
            channels: false,
        },
        runs: Runs::Record(|ctx, a, b, p| {
            hall_blocked::record(ctx, a, b, p).map(Recorded::plain)
        }),
        loops: fragment_loops(|_, _, k, _| hall_blocked::loop_iterations(k)),
    },
    Info {
        method: Method::HallArbfp,
        name: "hall-arbfp",
        era: Era::Shaders2003,
        source: "Hall, Carr & Hart 2003, §3 (algorithm 5), as an ARB fragment program",
        summary: "an !!ARBfp1.0 program of b multiply-adds a pass, ping-pong between two FBOs",
        file: "methods/hall_arbfp.rs",
        takes: Takes {
            precision: true,
            block: true,
            accumulate: false,
            channels: false,
        },
        runs: Runs::Host(RUN_HALL_ARBFP),
        loops: None,
    },
    Info {
        method: Method::HallPacked,
        name: "hall-packed",
        era: Era::Shaders2003,
        source: "Hall, Carr & Hart 2003, §4",
        summary: "2×2 blocks packed in RGBA, blocked passes",
        file: "methods/hall_packed.rs",
        takes: Takes {
            precision: true,
            block: true,
            accumulate: true,
            channels: false,
        },
        runs: Runs::Record(|ctx, a, b, p| {
            hall_packed::record(ctx, a, b, p).map(Recorded::plain)
        }),
        loops: fragment_loops(|_, _, k, _| hall_packed::loop_iterations(k)),
    },
    Info {
        method: Method::FragMrt,
        name: "frag-mrt",
        era: Era::RenderPassToday,
        source: "Hall's packing taken further",
        summary: "4 rows/columns per RGBA32F texel, a register block per fragment in up to 8 colour attachments",
        file: "methods/frag_mrt.rs",
        takes: Takes {
            precision: false,
            block: true,
            accumulate: true,
            channels: false,
        },
        runs: Runs::Record(|ctx, a, b, p| {
            frag_mrt::record(ctx, a, b, p).map(shaped)
        }),
        loops: fragment_loops(|_, _, k, _| frag_mrt::loop_iterations(k)),
    },
    Info {
        method: Method::FragMrtF16,
        name: "frag-mrt-f16",
        era: Era::RenderPassToday,
        source: "Hall's packing taken further, with f16 inputs (rendermm's variant)",
        summary: "frag-mrt with A and B rounded to f16 in RGBA16F texels (half the bytes per texel), f32 sums",
        file: "methods/frag_mrt.rs",
        takes: Takes {
            precision: false,
            block: true,
            accumulate: true,
            channels: false,
        },
        runs: Runs::Record(|ctx, a, b, p| {
            frag_mrt::record_f16(ctx, a, b, p).map(shaped)
        }),
        loops: fragment_loops(|_, _, k, _| frag_mrt::loop_iterations(k)),
    },
    compute(
        Method::CsNaive,
        "cs-naive",
        "HIP blog; 5kk73 naive",
        "one invocation per element of C, operands from global memory",
        "methods/cs_naive.rs",
        |_, m, k, n| Ok(cs_naive::plan(m, k, n)),
        |_, _, k, _| cs_naive::loop_iterations(k),
    ),
    compute(
        Method::CsTiled16,
        "cs-tiled-16",
        "HIP blog",
        "16×16 shared-memory tiles, zero padding",
        "methods/cs_tiled.rs",
        |_, m, k, n| Ok(cs_tiled::plan(16, m, k, n)),
        |_, _, k, _| cs_tiled::loop_iterations(16, k),
    ),
    compute(
        Method::CsTiled32,
        "cs-tiled-32",
        "HIP blog, its BLOCK_DIM = 32",
        "32×32 shared-memory tiles, zero padding",
        "methods/cs_tiled.rs",
        |_, m, k, n| Ok(cs_tiled::plan(32, m, k, n)),
        |_, _, k, _| cs_tiled::loop_iterations(32, k),
    ),
    compute(
        Method::Kk73Uncoalesced,
        "5kk73-1-uncoalesced",
        "5kk73 step 1",
        "tiled, B loaded down columns (uncoalesced)",
        "methods/kk73/uncoalesced.rs",
        |_, m, k, n| Ok(kk73::uncoalesced::plan(m, k, n)),
        |_, _, k, _| kk73::inner_product_loop_iterations(k),
    ),
    compute(
        Method::Kk73Coalesced,
        "5kk73-2-coalesced",
        "5kk73 step 2",
        "coalesced loads, transposed B tile (bank conflicts)",
        "methods/kk73/coalesced.rs",
        |_, m, k, n| Ok(kk73::coalesced::plan(m, k, n)),
        |_, _, k, _| kk73::inner_product_loop_iterations(k),
    ),
    compute(
        Method::Kk73BankFree,
        "5kk73-3-bank-free",
        "5kk73 step 3",
        "coalesced, no bank conflicts",
        "methods/kk73/bank_free.rs",
        |_, m, k, n| Ok(kk73::bank_free::plan(m, k, n)),
        |_, _, k, _| kk73::inner_product_loop_iterations(k),
    ),
    compute(
        Method::Kk73OuterProduct,
        "5kk73-4-outer-product",
        "5kk73 step 4",
        "outer product, A shared, B and C in registers",
        "methods/kk73/outer_product.rs",
        |_, m, k, n| Ok(kk73::outer_product::plan(m, k, n)),
        |_, _, k, _| kk73::outer_product::loop_iterations(k),
    ),
    compute(
        Method::Kk73Unrolled,
        "5kk73-5-unrolled",
        "5kk73 step 5",
        "step 4 with every loop unrolled",
        "methods/kk73/unrolled.rs",
        |_, m, k, n| Ok(kk73::unrolled::plan(m, k, n)),
        |_, _, k, _| kk73::written_out_loop_iterations(k),
    ),
    compute(
        Method::Kk73Prefetch,
        "5kk73-6-prefetch",
        "5kk73 step 6",
        "step 5 with double-buffered (prefetched) A tiles",
        "methods/kk73/prefetch.rs",
        |_, m, k, n| Ok(kk73::prefetch::plan(m, k, n)),
        |_, _, k, _| kk73::written_out_loop_iterations(k),
    ),
    Info {
        runs: Runs::Compute {
            plan: cannon::plan,
            fallback: Some(Method::CannonTiled),
        },
        ..compute(
            Method::Cannon,
            "cannon",
            "O'Neil 2013, §3.1",
            "Cannon's algorithm in one workgroup, (i+j+p) mod n",
            "methods/cannon.rs",
            cannon::plan,
            |_, m, k, n| cannon::loop_iterations(m, k, n),
        )
    },
    compute(
        Method::CannonTiled,
        "cannon-tiled",
        "O'Neil 2013, §5",
        "Cannon's algorithm by 8×8 blocks, any size",
        "methods/cannon_tiled.rs",
        |_, m, k, n| Ok(cannon_tiled::plan(m, k, n)),
        |_, _, k, _| cannon_tiled::loop_iterations(k),
    ),
    Info {
        runs: Runs::Compute {
            plan: dns::plan,
            fallback: Some(Method::DnsTiled),
        },
        ..compute(
            Method::Dns,
            "dns",
            "O'Neil 2013, §3.1",
            "DNS, the m×k×n cube in one workgroup, tree reduction",
            "methods/dns.rs",
            dns::plan,
            |_, m, k, n| {
                dns::loop_iterations(
                    dns::Layout {
                        bi: m,
                        bk: k,
                        bj: n,
                    },
                    k,
                )
            },
        )
    },
    compute(
        Method::DnsTiled,
        "dns-tiled",
        "O'Neil 2013, §5",
        "DNS by 8×8×8 cube tiles and a reduction pass",
        "methods/dns_tiled.rs",
        |_, m, k, n| Ok(dns_tiled::plan(m, k, n)),
        |_, m, k, n| dns::loop_iterations(dns_tiled::layout(m, k, n), k),
    ),
    compute(
        Method::DnsNBlocks,
        "dns-n-blocks",
        "O'Neil 2013, §3.2",
        "DNS, an n×1 grid of n×n workgroups (one per column of C)",
        "methods/dns_blocks.rs",
        |l, m, k, n| Ok(dns_blocks::plan(l, 1, m, k, n)),
        |l, m, k, _| dns::loop_iterations(dns_blocks::layout(l, 1, m, k), k),
    ),
    compute(
        Method::Dns2nBlocks,
        "dns-2n-blocks",
        "O'Neil 2013, §3.2",
        "DNS, a 2n×1 grid of ½n×n workgroups",
        "methods/dns_blocks.rs",
        |l, m, k, n| Ok(dns_blocks::plan(l, 2, m, k, n)),
        |l, m, k, _| dns::loop_iterations(dns_blocks::layout(l, 2, m, k), k),
    ),
    compute(
        Method::Dns4nBlocks,
        "dns-4n-blocks",
        "O'Neil 2013, §3.2",
        "DNS, a 4n×1 grid of ¼n×n workgroups",
        "methods/dns_blocks.rs",
        |l, m, k, n| Ok(dns_blocks::plan(l, 4, m, k, n)),
        |l, m, k, _| dns::loop_iterations(dns_blocks::layout(l, 4, m, k), k),
    ),
    Info {
        method: Method::CsFast,
        name: "cs-fast",
        era: Era::Compute,
        source: "register blocking and warp tiling of public SGEMM worklogs",
        summary: "register-blocked vec4 tiles, padded, bounds checks off; staged in workgroup memory, double-buffered, on a GPU",
        file: "methods/cs_fast.rs",
        takes: F32_ONLY,
        runs: Runs::Record(|ctx, a, b, p| {
            let (work, v) = cs_fast::record(ctx, a, b, p)?;
            Ok(Recorded {
                work,
                variant: Some(Variant::CsFast(v)),
            })
        }),
        loops: compute_loops(|_, _, k, _| cs_fast::loop_iterations(k)),
    },
    Info {
        method: Method::Coop,
        name: "coop",
        era: Era::TensorCores,
        source: "wgpu's experimental cooperative matrices",
        summary: "cooperative matrices: f16 in, f32 accumulation",
        file: "methods/coop.rs",
        takes: F32_ONLY,
        runs: Runs::Record(|ctx, a, b, p| {
            let (work, v) = coop::record(ctx, a, b, p)?;
            Ok(Recorded {
                work,
                variant: Some(Variant::Coop(v)),
            })
        }),
        loops: compute_loops(|_, _, k, _| coop::loop_iterations(k)),
    },
    Info {
        method: Method::CpuNaive,
        name: "cpu-naive",
        era: Era::Cpu,
        source: "the seeds' triple loop",
        summary: "naive triple loop on the CPU",
        file: "cpu.rs",
        takes: F32_ONLY,
        runs: Runs::Cpu(crate::cpu::naive),
        loops: None,
    },
    Info {
        method: Method::CpuFast,
        name: "cpu-fast",
        era: Era::Cpu,
        source: "the gemm crate",
        summary: "fast multithreaded SIMD GEMM on the CPU",
        file: "cpu.rs",
        takes: F32_ONLY,
        runs: Runs::Cpu(crate::cpu::fast),
        loops: None,
    },
];

