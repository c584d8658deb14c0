//! Long k on every GPU method, on lavapipe (Vulkan) and llvmpipe (OpenGL): Mesa's shader JIT
//! stops the loops of one shader invocation after 65 535 iterations in all, silently, so a
//! method whose k loop runs longer would return a short sum. The plan splits k so that no
//! invocation runs past the cap the context measures (`rendermm::gpu::loop_cap`); these tests
//! hold every method to the exact answer past the points where each one used to stop.
//!
//! All-ones inputs make the answer exact: every element of C is k, which f32 holds exactly up
//! to 2²⁴ however the sum is grouped, so the result must equal the f64 CPU reference to the
//! last bit. Each method runs at 1×k×1 and 3×k×2 at k just past the k where it used to stop on
//! lavapipe (cs-naive 65 535, 5kk73-4 58 255, cannon 8·65 535, the 16-wide tiles 16·65 535,
//! cs-tiled-32 32·65 535; just past the cap for the others), and at 2²¹. The render-pass methods never ran past the cap (their
//! loops walk at most a texture side of k per pass), and are held to it here on both backends.

mod common;

use rendermm::gpu::GpuContext;
use rendermm::gpu::loop_cap::{ASKED, Stage};
use rendermm::methods::Method;
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};
use std::sync::{Once, OnceLock};
use std::time::Instant;

/// 2²¹, the longest k every method is run at.
const K_MAX: usize = 1 << 21;

/// Mesa's GL lists float colour buffers only when asked (`MESA_FLOAT_COLOR_BUFFERS`, which the
/// command line sets at start-up); set it here before any test opens a driver, so that no driver
/// reads the environment while it changes.
fn environment() {
    static SET: Once = Once::new();
    SET.call_once(|| {
        let (var, value) = rendermm::gpu::context::MESA_FLOAT_COLOR_BUFFERS;
        if std::env::var_os(var).is_none() {
            // SAFETY: no other thread of this binary has opened a driver yet: every test calls
            // this (through `vulkan` or `gl`) before its first GPU call, and `Once` holds the
            // others until it returns.
            unsafe { std::env::set_var(var, value) };
        }
    });
}

/// The default adapter (lavapipe here), as every test binary opens it.
fn vulkan() -> &'static GpuContext {
    environment();
    common::ctx()
}

/// The OpenGL adapter (llvmpipe here), or `None` where there is none (said by the caller).
fn gl() -> Option<&'static GpuContext> {
    environment();
    static GL: OnceLock<Option<GpuContext>> = OnceLock::new();
    GL.get_or_init(|| {
        let desc = wgpu::InstanceDescriptor {
            backends: wgpu::Backends::GL,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        };
        GpuContext::with_instance(wgpu::Instance::new(desc), wgpu::Backends::GL, None)
            .map_err(|e| eprintln!("no OpenGL adapter: {e}"))
            .ok()
    })
    .as_ref()
}

fn ones(rows: usize, cols: usize) -> Matrix {
    Matrix::new(rows, cols, vec![1.0; rows * cols]).expect("a matrix")
}

/// Where each GPU method used to stop on lavapipe (the k of its last right answer), if it did.
fn stopped_at(method: Method) -> Option<usize> {
    Some(match method {
        Method::CsNaive => 65_535,
        Method::Kk73OuterProduct => 58_255,
        Method::Cannon | Method::CannonTiled => 8 * 65_535,
        Method::CsTiled16
        | Method::Kk73Uncoalesced
        | Method::Kk73Coalesced
        | Method::Kk73BankFree
        | Method::Kk73Unrolled
        | Method::Kk73Prefetch => 16 * 65_535,
        Method::CsTiled32 => 32 * 65_535,
        _ => return None,
    })
}

/// The depths `method` is run at: just past where it used to stop (and one further for
/// cs-naive), else just past the cap itself; and 2²¹.
fn depths(method: Method) -> Vec<usize> {
    let mut ks = match stopped_at(method) {
        Some(65_535) => vec![65_536, 65_537],
        Some(k) => vec![k + 1],
        None => vec![65_537],
    };
    ks.push(K_MAX);
    ks
}

/// Multiply all-ones m×k·k×n with `method` on `ctx` and hold every element to the f64 reference
/// (k, exactly). `Ok(None)` when the adapter lacks what the method needs (a feature, a format),
/// with the reason; `Err` names what was wrong.
fn exact(
    ctx: &GpuContext,
    method: Method,
    (m, k, n): (usize, usize, usize),
    opts: &mut Options,
) -> Result<Option<String>, String> {
    let (a, b) = (ones(m, k), ones(k, n));
    let what = format!("{method} {m}x{k}x{n} on {:?}", ctx.info.backend);
    let out = match plan::multiply(
        Some(ctx),
        plan::Request::new(method, &a, &b).options(opts.clone()),
    ) {
        Ok(out) => out,
        Err(e @ (Error::MissingFeature { .. } | Error::FormatCapability { .. })) => {
            return Ok(Some(e.to_string()));
        }
        Err(e) => return Err(format!("{what}: {e}")),
    };
    let reference = rendermm::cpu::reference_f64(&a, &b);
    if out.c.shape() != (m, n) {
        return Err(format!("{what}: result is {:?}", out.c.shape()));
    }
    for (i, (&got, &want)) in out.c.data.iter().zip(reference.iter()).enumerate() {
        if got as f64 != want {
            return Err(format!(
                "{what}: C[{}][{}] = {got}, the f64 reference is {want}",
                i / n,
                i % n
            ));
        }
    }
    Ok(None)
}

/// Run `methods` at their depths (both shapes) on `ctx`; `opts` makes each run's options.
/// Prints each run's time and any method skipped for the adapter's lack of a feature.
fn sweep(ctx: &GpuContext, methods: &[Method], opts: impl Fn(Method, usize) -> Options) {
    let mut failures = vec![];
    for &method in methods {
        'depths: for k in depths(method) {
            let shapes: &[(usize, usize)] = &[(1, 1), (3, 2)];
            for &(m, n) in shapes {
                let t = Instant::now();
                match exact(ctx, method, (m, k, n), &mut opts(method, k)) {
                    Ok(None) => println!(
                        "{method} {m}x{k}x{n} on {:?}: exact ({:.2} s)",
                        ctx.info.backend,
                        t.elapsed().as_secs_f64()
                    ),
                    Ok(Some(why)) => {
                        common::skip(&format!("{method} on {:?}: {why}", ctx.info.backend));
                        break 'depths;
                    }
                    Err(e) => failures.push(e),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The compute-harness and recorded compute methods, in the groups the tests below run.
const NAIVE_AND_TILED: &[Method] = &[Method::CsNaive, Method::CsTiled16, Method::CsTiled32];
const LADDER: &[Method] = &[
    Method::Kk73Uncoalesced,
    Method::Kk73Coalesced,
    Method::Kk73BankFree,
    Method::Kk73OuterProduct,
    Method::Kk73Unrolled,
    Method::Kk73Prefetch,
];
const ONEIL: &[Method] = &[
    Method::Cannon,
    Method::CannonTiled,
    Method::Dns,
    Method::DnsTiled,
    Method::DnsNBlocks,
    Method::Dns2nBlocks,
    Method::Dns4nBlocks,
];
const FAST: &[Method] = &[Method::CsFast, Method::Coop];
const RENDER: &[Method] = &[
    Method::Lm,
    Method::HallBlocked,
    Method::HallPacked,
    Method::FragMrt,
    Method::FragMrtF16,
];

/// The Hall methods at long k take b = 4096, so that 2²¹ is 512 passes rather than 65 536 (each
/// pass's loop then walks 4096 of k); the default b = 32 at the shorter depth.
fn render_options(method: Method, k: usize) -> Options {
    Options {
        block: (matches!(method, Method::HallBlocked | Method::HallPacked) && k == K_MAX)
            .then_some(4096),
        ..Default::default()
    }
}

#[test]
fn every_gpu_method_is_in_a_long_k_test() {
    let covered: Vec<Method> = [NAIVE_AND_TILED, LADDER, ONEIL, FAST, RENDER].concat();
    for &m in Method::ALL {
        assert_eq!(
            covered.contains(&m),
            m.uses_wgpu(),
            "{m}: every wgpu method (and no CPU or GL-era method, which loop nowhere: fixed function, an unrolled ARB program) belongs to one of the groups"
        );
    }
}

#[test]
fn the_loop_cap_probe_measures_mesas_cap() {
    for ctx in [Some(vulkan()), gl()].into_iter().flatten() {
        let cap = ctx.loop_cap().expect("the probe runs");
        println!("{}: {}", ctx.describe(), cap.describe());
        assert_eq!(cap.asked, ASKED);
        let stages = [
            (Stage::Compute, cap.stage(Stage::Compute)),
            (Stage::Fragment, cap.stage(Stage::Fragment)),
        ];
        for (stage, loops) in stages {
            let loops = loops.unwrap_or_else(|e| panic!("{stage:?} on {}: {e}", ctx.describe()));
            assert!(loops.first <= ASKED && loops.second <= ASKED, "{loops:?}");
            if ctx.info.name.contains("llvmpipe") {
                // Mesa's gallivm: LP_MAX_TGSI_LOOP_ITERATIONS for all the loops of an
                // invocation together, after which each further loop runs its body once.
                assert_eq!(
                    (loops.first, loops.second),
                    (65_535, 1),
                    "{stage:?} on {}",
                    ctx.describe()
                );
                assert!(loops.capped() && loops.shared());
            }
        }
        // Measured once per context: the same answer again.
        assert_eq!(ctx.loop_cap().unwrap(), cap);
    }
}

/// The loop cap costs a first product little: only the stage its method loops in is probed,
/// with QUICK iterations while the product needs no more; a product that needs more has the
/// stage probed again with ASKED, unless QUICK already showed the cap.
#[test]
fn a_stage_is_probed_quickly_and_again_only_for_a_longer_need() {
    use rendermm::gpu::loop_cap::QUICK;
    let ctx = rendermm::gpu::GpuContext::new().unwrap();
    assert_eq!(ctx.measured_loops(Stage::Compute), None);
    let out = plan::multiply(
        Some(&ctx),
        plan::Request::new(Method::CsNaive, &ones(3, 5), &ones(5, 2)),
    )
    .unwrap();
    assert!(out.c.data.iter().all(|&x| x == 5.0), "{:?}", out.c.data);
    let quick = ctx
        .measured_loops(Stage::Compute)
        .expect("the product measured its stage");
    assert_eq!(quick.asked, QUICK, "{quick:?}");
    assert_eq!(
        ctx.measured_loops(Stage::Fragment),
        None,
        "a compute product probed the fragment stage too"
    );
    let longer = ctx
        .stage_loops(Stage::Compute, QUICK as u64 * 2)
        .unwrap()
        .unwrap();
    if quick.capped() {
        assert_eq!(longer, quick, "the cap QUICK found answers for any need");
    } else {
        assert_eq!(longer.asked, ASKED, "{longer:?}");
    }
    assert!(longer.covers(QUICK as u64 * 2));
}

#[test]
fn naive_and_tiled_kernels_are_exact_past_the_loop_cap() {
    sweep(vulkan(), NAIVE_AND_TILED, |_, _| Options::default());
}

#[test]
fn the_5kk73_ladder_is_exact_past_the_loop_cap() {
    sweep(vulkan(), LADDER, |_, _| Options::default());
}

#[test]
fn cannon_and_dns_are_exact_past_the_loop_cap() {
    sweep(vulkan(), ONEIL, |_, _| Options::default());
}

#[test]
fn cs_fast_and_coop_are_exact_past_the_loop_cap() {
    sweep(vulkan(), FAST, |_, _| Options::default());
}

#[test]
fn render_pass_methods_are_exact_past_the_loop_cap_on_vulkan() {
    sweep(vulkan(), RENDER, render_options);
}

#[test]
fn render_pass_methods_are_exact_past_the_loop_cap_on_opengl() {
    let Some(ctx) = gl() else {
        common::skip("no OpenGL adapter on this machine");
        return;
    };
    sweep(ctx, RENDER, render_options);
    // A compute method on GL too, where its compute shaders run on the same JIT.
    sweep(ctx, &[Method::CsNaive], |_, _| Options::default());
}

/// With tiling off (`--no-tile`) k cannot be split: the product is refused with one line naming
/// the loop cap, never run short.
#[test]
fn a_product_past_the_loop_cap_with_tiling_off_is_refused_naming_the_cap() {
    let ctx = vulkan();
    let cap = ctx.loop_cap().unwrap();
    let Some(compute) = cap.compute.filter(|c| c.capped()) else {
        common::skip(&format!("{} shows no loop cap", ctx.describe()));
        return;
    };
    let k = compute.first as usize + 1;
    let mut opts = Options::default();
    opts.no_tile = true;
    let err = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::CsNaive, &ones(1, k), &ones(k, 1)).options(opts.clone()),
    )
    .expect_err("k past the loop cap with tiling off");
    let msg = err.to_string();
    assert!(
        matches!(err, Error::Limit { .. })
            && msg.contains("loop cap")
            && msg.contains(&compute.first.to_string())
            && !msg.contains('\n'),
        "{msg}"
    );
}

/// The split says why: the plan's notes and its `tiling` field name the driver's loop cap.
#[test]
fn a_split_for_the_loop_cap_says_so() {
    let ctx = vulkan();
    let Some(compute) = ctx.loop_cap().unwrap().compute.filter(|c| c.capped()) else {
        common::skip(&format!("{} shows no loop cap", ctx.describe()));
        return;
    };
    let k = compute.first as usize + 2;
    let out = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::CsNaive, &ones(2, k), &ones(k, 2)),
    )
    .unwrap();
    let tiling = out.tiling.clone().expect("k was split");
    assert_eq!(tiling.loop_cap, Some(compute.first));
    assert!(tiling.chunks_k >= 2 && tiling.tile_k < compute.first as usize);
    assert!(
        out.notes
            .iter()
            .any(|n| n.contains("loop") && n.contains(&compute.first.to_string())),
        "{:?}",
        out.notes
    );
    assert!(out.c.data.iter().all(|&v| v == k as f32));
}

/// `rendermm info` reports the cap it measured, in text and in JSON.
#[test]
fn info_reports_the_measured_loop_cap() {
    let expected = vulkan().loop_cap().unwrap();
    let out = common::rendermm(&["info", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cap = &v["loop_cap"];
    assert_eq!(cap["asked"], ASKED);
    assert_eq!(cap["fragment"]["first"], expected.fragment.first);
    let compute = expected
        .compute
        .expect("compute shaders on the default adapter");
    assert_eq!(cap["compute"]["first"], compute.first);
    let out = common::rendermm(&["info"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("shader loop cap") && text.contains(&compute.describe()),
        "{text}"
    );
}
