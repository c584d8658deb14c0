//! Faults end in a typed error naming what happened — no panic, no wrong answer passed off as
//! right, no partial output file (docs/reliability.md): device loss mid-run, requests over the
//! adapter's limits (refused before anything is allocated), allocations the device itself
//! refuses, shaders that fail validation, and missing features; through the library and, where a
//! user can reach them, through the CLI.

mod common;

use common::ctx;
use rendermm::gpu::GpuContext;
use rendermm::gpu::compute::{self, Kernel, Plan};
use rendermm::gpu::texture::INPUT_USAGE;
use rendermm::methods::Method;
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicBool, Ordering};

/// A context of its own (the faults here break or bend it), not the shared one.
fn own_context() -> GpuContext {
    GpuContext::new().unwrap_or_else(|e| panic!("tests need a GPU adapter (lavapipe is fine): {e}"))
}

/// The methods that run on the wgpu device these faults break or bend (the GL-era methods make
/// an OpenGL context of their own, which the faults here do not touch).
fn gpu_methods() -> Vec<Method> {
    Method::ALL
        .iter()
        .copied()
        .filter(|m| m.uses_wgpu())
        .collect()
}

/// The render-pass methods: matrices live in textures.
fn is_render(m: Method) -> bool {
    matches!(
        m,
        Method::Lm
            | Method::HallBlocked
            | Method::HallPacked
            | Method::FragMrt
            | Method::FragMrtF16
    )
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rendermm-faults-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Device loss

/// `Device::destroy` while another thread multiplies on the context: every run that finishes is
/// right, the first one the loss reaches ends in `Error::DeviceLost`, and so does every later
/// one, for every method.
#[test]
fn device_destroyed_mid_run_gives_device_lost_and_never_a_wrong_result() {
    let ctx = own_context();
    let started = AtomicBool::new(false);
    let (finished, err) = std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let methods = [
                Method::Lm,
                Method::CsTiled16,
                Method::HallBlocked,
                Method::Kk73OuterProduct,
            ];
            let mut finished = 0usize;
            for i in 0.. {
                let method = methods[i % methods.len()];
                let a = Matrix::random(96, 200, i as u64, -1.0, 1.0);
                let b = Matrix::random(200, 80, i as u64 + 1, -1.0, 1.0);
                let opts = Options::default();
                match plan::multiply(
                    Some(&ctx),
                    plan::Request::new(method, &a, &b).options(opts.clone()),
                ) {
                    Ok(out) => {
                        let v = out.verdict(&a, &b);
                        assert!(
                            v.passed,
                            "run {i} ({method}) finished but is wrong: rel_err {:e}",
                            v.stats.rel_err
                        );
                        finished += 1;
                        started.store(true, Ordering::SeqCst);
                    }
                    Err(e) => return (finished, e),
                }
                assert!(i < 10_000, "the device was never lost");
            }
            unreachable!()
        });
        while !started.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        std::thread::sleep(std::time::Duration::from_millis(30));
        ctx.device.destroy();
        worker.join().expect("the worker panicked")
    });
    assert!(finished >= 1);
    assert!(
        matches!(err, Error::DeviceLost(_)),
        "expected DeviceLost, got {err:?}"
    );
    assert!(err.to_string().starts_with("GPU device lost"), "{err}");

    // After the loss, every method says so at once (or refuses earlier for its own reasons).
    let a = Matrix::random(5, 7, 1, -1.0, 1.0);
    let b = Matrix::random(7, 3, 2, -1.0, 1.0);
    for method in gpu_methods() {
        match plan::multiply(Some(&ctx), plan::Request::new(method, &a, &b)) {
            Err(Error::DeviceLost(msg)) => assert!(!msg.is_empty()),
            Err(Error::MissingFeature { .. }) => {}
            other => panic!(
                "{method} on a lost device: {:?}",
                other.map(|o| o.c.shape())
            ),
        }
    }
    assert!(matches!(ctx.check_lost(), Err(Error::DeviceLost(_))));
    assert!(matches!(ctx.wait(), Err(Error::DeviceLost(_))));
}

// ---------------------------------------------------------------------------------------------
// Limits, checked before anything is allocated

/// A method run as it is, from its row of the method table, without the entry point's tiling
/// layer (`crate::plan::tiled`) in front, which would cut a product over the limits into tiles
/// that fit: this audits each method's own checks.
fn untiled(ctx: &GpuContext, m: Method, a: &Matrix, b: &Matrix) -> rendermm::error::Result<Matrix> {
    use rendermm::methods::{Params, Runs};
    let ran = match m.info().runs {
        Runs::Record(record) => rendermm::gpu::run::run(ctx, None, || {
            record(ctx, a, b, &Params::default()).map(|r| r.work)
        })?,
        Runs::Compute { .. } => {
            // The method the entry point would hand a product too large for one workgroup to
            // (cannon -> cannon-tiled, dns -> dns-tiled), as a run does.
            let (k, l) = (a.cols, &ctx.limits);
            let runs = plan::compute_runs_as(m, l, a.rows, k, b.cols);
            let p = plan::compute_plan(runs, l, a.rows, k, b.cols).expect("a compute method")?;
            return compute::run(ctx, &p, a, b)?.into_c();
        }
        Runs::Cpu(f) => return Ok(f(a, b)),
        Runs::Host(f) => return Ok(f(&[a], &[b], &Params::default())?.0.c),
    };
    ran.into_c()
}

/// `multiply` as a user calls it with `--no-tile`: the tiling layer checks the whole product
/// against the limits first and refuses what does not fit.
fn no_tile(ctx: &GpuContext, m: Method, a: &Matrix, b: &Matrix) -> rendermm::error::Result<Matrix> {
    let opts = Options {
        no_tile: true,
        ..Default::default()
    };
    Ok(plan::multiply(Some(ctx), plan::Request::new(m, a, b).options(opts))?.c)
}

/// How [`audit`] runs a method.
type RunFn = fn(&GpuContext, Method, &Matrix, &Matrix) -> rendermm::error::Result<Matrix>;

/// Lowered limits, and which methods they bind on a 64×64×64 product.
struct Scenario {
    name: &'static str,
    set: fn(&mut wgpu::Limits),
    binds: fn(Method) -> bool,
    /// What a refusal names: a limit and the lowered value.
    names: &'static [&'static str],
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        // 64×64 f32 is 16 KiB: over these for every storage buffer and every result's readback.
        name: "buffers",
        set: |l| {
            l.max_buffer_size = 4096;
            l.max_storage_buffer_binding_size = 4096;
        },
        binds: |_| true,
        names: &[
            "max_buffer_size = 4096",
            "max_storage_buffer_binding_size = 4096",
        ],
    },
    Scenario {
        name: "textures",
        set: |l| l.max_texture_dimension_2d = 16,
        binds: is_render,
        names: &["max_texture_dimension_2d = 16"],
    },
    Scenario {
        name: "workgroups",
        set: |l| {
            l.max_compute_invocations_per_workgroup = 4;
            l.max_compute_workgroup_size_x = 4;
            l.max_compute_workgroup_size_y = 4;
            l.max_compute_workgroup_storage_size = 64;
        },
        binds: |m| !is_render(m),
        names: &["max_compute_"],
    },
];

/// Runs every GPU method on a 64×64×64 product under each scenario's lowered limits with the
/// device already destroyed. Every GPU allocation rendermm makes goes through
/// `GpuContext::scoped`, which reports the lost device, so a method that answers with a refusal
/// naming the limit here refused before it allocated anything. A method a scenario binds must
/// refuse so; one it does not bind may run into the loss (`Error::DeviceLost`). Nothing may
/// panic or return a result.
fn audit(run: RunFn, exempt: fn(&Scenario, Method) -> bool) {
    let a = Matrix::random(64, 64, 1, -1.0, 1.0);
    let b = Matrix::random(64, 64, 2, -1.0, 1.0);
    let mut problems = vec![];
    for sc in SCENARIOS {
        let mut ctx = own_context();
        (sc.set)(&mut ctx.limits);
        ctx.device.destroy();
        for m in gpu_methods() {
            let r = run(&ctx, m, &a, &b);
            let text = match &r {
                Ok(_) => "ran on a destroyed device".to_string(),
                Err(e) => e.to_string(),
            };
            println!("{} / {m}: {text}", sc.name);
            let refused = match &r {
                Err(Error::MissingFeature { .. }) => continue,
                Err(Error::Limit { .. } | Error::Budget { .. } | Error::Invalid(_)) => {
                    sc.names.iter().any(|n| text.contains(n))
                }
                Err(Error::DeviceLost(_)) => false,
                _ => {
                    problems.push(format!("{} / {m}: {text}", sc.name));
                    continue;
                }
            };
            if (sc.binds)(m) && !refused && !exempt(sc, m) {
                problems.push(format!(
                    "{} / {m}: not refused before allocation: {text}",
                    sc.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The promise, as users reach it: `multiply` (with `--no-tile`, so that nothing is tiled
/// around the limits) refuses every product over the texture, buffer, binding or workgroup
/// limits before any GPU allocation, naming the limit and the value.
#[test]
fn requests_over_the_limits_are_refused_before_any_allocation() {
    audit(no_tile, |_, _| false);
}

/// Each method's own checks (without the tiling layer's): the same, except that frag-mrt's
/// (and frag-mrt-f16's) packed textures and attachments are each well under 4 KiB of readback
/// on this product, so the buffer scenario does not bind them.
#[test]
fn every_method_checks_its_own_limits_before_allocating() {
    audit(untiled, |sc, m| {
        sc.name == "buffers" && matches!(m, Method::FragMrt | Method::FragMrtF16)
    });
}

#[test]
fn a_texture_over_the_dimension_limit_names_the_limit_and_the_value() {
    let ctx = ctx();
    let max = ctx.limits.max_texture_dimension_2d as usize;
    let e = rendermm::gpu::MatrixTexture::new(
        ctx,
        "A",
        3,
        max + 1,
        wgpu::TextureFormat::R32Float,
        INPUT_USAGE,
    )
    .err()
    .expect("refused");
    assert!(matches!(e, Error::Limit { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains(&format!("= {}", max + 1))
            && msg.contains(&format!("max_texture_dimension_2d = {max}")),
        "{msg}"
    );
    // A product that needs such a texture is refused the same way, before any upload, when
    // it may not be tiled (the tiling layer would otherwise split k into chunks that fit).
    let a = Matrix::zeros(2, max + 1);
    let b = Matrix::zeros(max + 1, 2);
    let e = untiled(ctx, Method::Lm, &a, &b).expect_err("refused");
    assert!(matches!(e, Error::Limit { .. }), "{e:?}");
    assert!(e.to_string().contains(&format!("= {}", max + 1)), "{e}");
    let mut no_tile = Options::default();
    no_tile.no_tile = true;
    let e = plan::multiply(
        Some(ctx),
        plan::Request::new(Method::Lm, &a, &b).options(no_tile.clone()),
    )
    .expect_err("refused");
    assert!(e.to_string().contains("max_texture_dimension_2d"), "{e}");
}

/// Through the tiling layer, on a destroyed device: a product that no tile can make fit (every
/// compute kernel's workgroup is over the lowered limits) is refused with a typed error before
/// anything is allocated, and one that tiles runs into the loss as `Error::DeviceLost`; never a
/// panic, never a result.
#[test]
fn the_tiling_layer_refuses_or_reports_the_loss_and_never_panics() {
    let mut ctx = own_context();
    ctx.limits.max_compute_invocations_per_workgroup = 4;
    ctx.limits.max_compute_workgroup_size_x = 4;
    ctx.limits.max_compute_workgroup_size_y = 4;
    ctx.limits.max_texture_dimension_2d = 32;
    ctx.device.destroy();
    let a = Matrix::random(64, 64, 1, -1.0, 1.0);
    let b = Matrix::random(64, 64, 2, -1.0, 1.0);
    for m in gpu_methods() {
        match plan::multiply(Some(&ctx), plan::Request::new(m, &a, &b)) {
            Err(
                Error::Limit { .. }
                | Error::Budget { .. }
                | Error::MissingFeature { .. }
                | Error::Invalid(_),
            ) => {
                // Refusals come before any allocation: they are the same on a live device.
                assert!(!is_render(m), "{m}: a render method's 32-texel tiles fit");
            }
            Err(Error::DeviceLost(_)) => {}
            other => panic!("{m}: {:?}", other.map(|o| o.c.shape())),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Allocations the device refuses, and shaders that fail validation

/// An allocation past what the device allows, made directly (bypassing rendermm's own checks):
/// the error scope catches it and it comes back as a typed error, not a panic.
#[test]
fn an_allocation_the_device_refuses_is_a_typed_error() {
    let ctx = ctx();
    let too_big = ctx.limits.max_buffer_size.saturating_add(1);
    let e = ctx
        .scoped("allocating an oversized buffer", || {
            Ok(ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("oversized"),
                size: too_big,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: false,
            }))
        })
        .expect_err("refused");
    match &e {
        Error::Wgpu { kind, during, .. } => {
            assert!(*kind == "validation" || *kind == "out-of-memory", "{e}");
            assert_eq!(during, "allocating an oversized buffer");
        }
        other => panic!("expected a wgpu error, got {other:?}"),
    }
    // The context is still usable afterwards.
    let a = Matrix::random(4, 4, 1, -1.0, 1.0);
    plan::multiply(Some(ctx), plan::Request::new(Method::CsNaive, &a, &a)).unwrap();
}

const BAD_SHADER: &str = "@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }";

#[test]
fn a_shader_that_fails_validation_is_a_typed_error_naming_it() {
    let ctx = ctx();
    let e = ctx.shader("broken.wgsl", BAD_SHADER).expect_err("refused");
    assert!(
        matches!(
            e,
            Error::Wgpu {
                kind: "validation",
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(msg.contains("compiling shader broken.wgsl"), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg:?}");

    // The same through the compute harness, and with an entry point the module lacks.
    let kernel = |source: &'static str, entry: &'static str| Kernel {
        file: "broken.wgsl",
        source,
        entry,
        constants: vec![],
        workgroup_size: [1, 1, 1],
        workgroup_bytes: 0,
    };
    let a = Matrix::random(3, 3, 1, -1.0, 1.0);
    for (source, entry, needle) in [
        (BAD_SHADER, "main", "compiling shader broken.wgsl"),
        (
            "@compute @workgroup_size(1) fn main() {}",
            "missing_entry",
            "building the fault-test pipeline",
        ),
    ] {
        let plan = Plan::single("fault-test", kernel(source, entry), [1, 1, 1]);
        let e = compute::run(ctx, &plan, &a, &a).expect_err("refused");
        assert!(matches!(e, Error::Wgpu { .. }), "{e:?}");
        assert!(e.to_string().contains(needle), "{e}");
    }
    // Nothing leaked out of the scopes.
    ctx.check_lost().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Missing features

#[test]
fn a_missing_feature_is_a_typed_error_naming_it() {
    // A context whose device lacks every optional feature (as if the adapter had none).
    let mut ctx = own_context();
    ctx.features = wgpu::Features::empty();
    let e = ctx
        .require(
            wgpu::Features::SHADER_F16,
            "SHADER_F16",
            "is needed for this test",
        )
        .expect_err("refused");
    assert!(
        matches!(
            e,
            Error::MissingFeature {
                feature: "SHADER_F16",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string().contains("lacks the SHADER_F16 feature"),
        "{e}"
    );
    // Every method either runs without the feature (falling back, and saying so) or names it.
    let a = Matrix::random(9, 11, 1, 0.0, 1.0);
    let b = Matrix::random(11, 7, 2, 0.0, 1.0);
    for method in gpu_methods() {
        let opts = Options::default();
        match plan::multiply(
            Some(&ctx),
            plan::Request::new(method, &a, &b).options(opts.clone()),
        ) {
            Ok(out) => {
                let v = out.verdict(&a, &b);
                assert!(
                    v.passed,
                    "{method} without features: rel_err {:e} ({})",
                    v.stats.rel_err, v.tolerance
                );
            }
            Err(e @ Error::MissingFeature { .. }) => {
                assert!(e.to_string().contains("lacks the"), "{e}")
            }
            Err(e) => panic!("{method} without features: {e}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// No partial output files

/// `write_atomic` leaves nothing behind when the writer fails or panics part-way.
#[test]
fn a_write_that_fails_part_way_leaves_no_file() {
    let dir = scratch("atomic");
    let path = dir.join("c.npy");
    let e = rendermm::io::write_atomic(&path, |w| {
        w.write_all(&[0u8; 100_000]).unwrap();
        Err(Error::Invalid("the result turned out wrong".into()))
    })
    .expect_err("failed");
    assert!(e.to_string().contains("turned out wrong"));
    assert!(
        files_in(&dir).is_empty(),
        "left behind: {:?}",
        files_in(&dir)
    );
    let panicked = std::panic::catch_unwind(|| {
        let _ = rendermm::io::write_atomic(&path, |w| {
            w.write_all(b"partial").unwrap();
            panic!("writer panicked");
        });
    });
    assert!(panicked.is_err());
    assert!(
        files_in(&dir).is_empty(),
        "left behind: {:?}",
        files_in(&dir)
    );
    // An existing file survives a failed overwrite unchanged.
    std::fs::write(&path, b"old").unwrap();
    let _ = rendermm::io::write_atomic(&path, |_| Err(Error::Invalid("no".into())));
    assert_eq!(std::fs::read(&path).unwrap(), b"old");
    assert_eq!(files_in(&dir), vec!["c.npy".to_string()]);
}

fn rendermm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

/// One `error:` line containing `needle`, a non-zero exit, no panic, and nothing in `dir`.
fn assert_clean_failure(out: &Output, needle: &str, dir: &Path) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "expected one error line: {stderr}");
    assert!(
        lines[0].contains(needle),
        "error line {:?} does not mention {needle:?}",
        lines[0]
    );
    assert!(files_in(dir).is_empty(), "left behind: {:?}", files_in(dir));
}

#[test]
fn cli_faults_are_one_error_line_and_leave_no_output_file() {
    let dir = scratch("cli");
    let out = dir.join("c.npy");
    let out = out.to_str().unwrap();
    let max = ctx().limits.max_texture_dimension_2d;
    // Over the texture limit with tiling off: refused before any upload, naming the limit and
    // the value.
    let shape = format!("2x{}x2", max + 1);
    let r = rendermm(&[
        "multiply",
        "--method",
        "lm",
        "--no-tile",
        "--random",
        &shape,
        "--out",
        out,
    ]);
    assert_clean_failure(&r, &format!("max_texture_dimension_2d = {max}"), &dir);
    // Over a memory budget with tiling off.
    let r = rendermm(&[
        "multiply",
        "--method",
        "cs-naive",
        "--no-tile",
        "--mem-budget",
        "1000",
        "--random",
        "64x64x64",
        "--out",
        out,
    ]);
    assert_clean_failure(&r, "memory budget", &dir);
    // A Hall block size no texture could hold.
    let b = (max + 1).to_string();
    let r = rendermm(&[
        "multiply",
        "--method",
        "hall-blocked",
        "--b",
        &b,
        "--random",
        "4x4x4",
        "--out",
        out,
    ]);
    assert_clean_failure(&r, "block size b", &dir);
    // A method whose feature the adapter lacks (where it lacks it).
    if Method::ALL.iter().any(|m| m.name() == "coop")
        && let Err(e @ Error::MissingFeature { .. }) = plan::multiply(
            Some(ctx()),
            plan::Request::new(
                Method::parse("coop").unwrap(),
                &Matrix::zeros(2, 2),
                &Matrix::zeros(2, 2),
            ),
        )
    {
        let r = rendermm(&[
            "multiply", "--method", "coop", "--random", "8x8x8", "--out", out,
        ]);
        let feature = match e {
            Error::MissingFeature { feature, .. } => feature,
            _ => unreachable!(),
        };
        assert_clean_failure(&r, feature, &dir);
    }
}

/// A texture upload on a destroyed device behaves as a buffer upload does: through a new
/// staging buffer it gives `Error::DeviceLost`; through a pooled one (mapped again after an
/// earlier upload) the submission may go unnoticed, and the next wait reports the loss. It
/// never panics, and no later wait claims success.
#[test]
fn a_texture_upload_on_a_destroyed_device_is_device_lost() {
    for pooled in [false, true] {
        let ctx = own_context();
        let t = rendermm::gpu::MatrixTexture::new(
            &ctx,
            "A",
            5,
            3,
            wgpu::TextureFormat::R32Float,
            INPUT_USAGE,
        )
        .unwrap();
        let bytes = vec![7u8; 5 * 3 * 4];
        if pooled {
            t.write_bytes(&ctx, &bytes).unwrap();
            ctx.wait().unwrap();
            assert!(
                ctx.staging.pooled().1 >= 1,
                "the staging buffer went back to the pool"
            );
        }
        ctx.device.destroy();
        match t.write_bytes(&ctx, &bytes) {
            Err(Error::DeviceLost(_)) => {}
            Ok(()) if pooled => {}
            r => panic!("pooled {pooled}: {r:?}"),
        }
        let e = ctx.wait().expect_err("the loss is reported");
        assert!(matches!(e, Error::DeviceLost(_)), "pooled {pooled}: {e:?}");
    }
}
