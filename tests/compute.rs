//! The compute-era methods (HIP blog, 5kk73 ladder, O'Neil's Cannon and DNS) against the f64 CPU
//! reference on awkward shapes; poisoned outputs; limit errors; the O'Neil block shapes; the
//! compute model; the O'Neil bench suite.

mod common;
use common::{SHAPES, ctx, hold};
use rendermm::bench::{self, BenchOptions, Suite};
use rendermm::check::{self, Arith};
use rendermm::gpu::GpuContext;
use rendermm::gpu::buffer::{MatrixBuffer, check_storage_size};
use rendermm::gpu::compute;
use rendermm::methods::{Method, cannon, cs_naive, cs_tiled, dns, dns_blocks, dns_tiled};
use rendermm::model::compute as model_compute;
use rendermm::plan::{self, Options};
use rendermm::{Error, Matrix};

/// Shapes beyond the engine's: primes, sizes just past the tiles (16, 32, 64), and sizes that make
/// the DNS plane variants split k and the single-workgroup methods sit at their limits.
const MORE: &[(usize, usize, usize)] = &[
    (17, 19, 23),
    (33, 47, 65),
    (16, 16, 16),
    (8, 8, 8),
    (10, 10, 10),
    (32, 40, 32),
    (5, 1031, 3),
];

/// Whether a single-workgroup method is expected to take m×k×n on this adapter.
fn fits_one_workgroup(method: Method, m: usize, k: usize, n: usize) -> bool {
    let l = &ctx().limits;
    let inv = l.max_compute_invocations_per_workgroup as usize;
    let bytes = l.max_compute_workgroup_storage_size as usize;
    match method {
        Method::Cannon => {
            m * n <= inv
                && 4 * (m * k + k * n) <= bytes
                && n <= l.max_compute_workgroup_size_x as usize
        }
        Method::Dns => dns::Layout {
            bi: m,
            bk: k,
            bj: n,
        }
        .fits(l),
        _ => true,
    }
}

fn check_method_on(method: Method, shapes: &[(usize, usize, usize)], seed: u64) {
    for (i, &(m, k, n)) in shapes.iter().enumerate() {
        let a = Matrix::random(m, k, seed + 2 * i as u64, -1.0, 1.0);
        let b = Matrix::random(k, n, seed + 2 * i as u64 + 1, -1.0, 1.0);
        let result = plan::multiply(Some(ctx()), plan::Request::new(method, &a, &b));
        let out = result.unwrap_or_else(|e| panic!("{method} {m}x{k}x{n}: {e}"));
        if !fits_one_workgroup(method, m, k, n) {
            // The single-workgroup kernel refuses, naming the sizes it accepts and the limit...
            let single = rendermm::plan::compute_plan(method, &ctx().limits, m, k, n).unwrap();
            let err = single.expect_err("one workgroup cannot hold this product");
            assert!(
                matches!(err, Error::Limit { .. }),
                "{method} {m}x{k}x{n}: {err}"
            );
            assert!(err.to_string().contains("accepts"), "{err}");
            // ...and the method says it ran its multi-workgroup version instead.
            assert!(
                out.notes
                    .iter()
                    .any(|n| n.contains("ran") && n.contains("-tiled instead")),
                "{method} {m}x{k}x{n}: no fallback note in {:?}",
                out.notes
            );
        }
        hold(&format!("{method} {m}x{k}x{n}"), out.arith, &a, &b, &out.c);
    }
}

fn all_shapes() -> Vec<(usize, usize, usize)> {
    SHAPES.iter().chain(MORE).copied().collect()
}

#[test]
fn hip_blog_kernels_match_f64_reference_on_awkward_shapes() {
    for &me in &[Method::CsNaive, Method::CsTiled16, Method::CsTiled32] {
        check_method_on(me, &all_shapes(), 10);
    }
}

#[test]
fn kk73_ladder_matches_f64_reference_on_awkward_shapes() {
    for &me in &[
        Method::Kk73Uncoalesced,
        Method::Kk73Coalesced,
        Method::Kk73BankFree,
        Method::Kk73OuterProduct,
        Method::Kk73Unrolled,
        Method::Kk73Prefetch,
    ] {
        check_method_on(me, &all_shapes(), 20);
    }
}

#[test]
fn cannon_matches_f64_reference_or_names_the_sizes_it_accepts() {
    for &me in &[Method::Cannon, Method::CannonTiled] {
        check_method_on(me, &all_shapes(), 30);
    }
}

#[test]
fn dns_variants_match_f64_reference_or_name_the_sizes_they_accept() {
    for &me in &[
        Method::Dns,
        Method::DnsTiled,
        Method::DnsNBlocks,
        Method::Dns2nBlocks,
        Method::Dns4nBlocks,
    ] {
        check_method_on(me, &all_shapes(), 40);
    }
}

#[test]
fn every_compute_method_is_in_the_tour_list_with_a_distinct_name() {
    for me in compute_methods() {
        assert!(Method::ALL.contains(&me), "{me} missing from Method::ALL");
        assert_eq!(Method::parse(me.name()).unwrap(), me);
        assert!(me.is_gpu());
    }
    assert_eq!(compute_methods().len(), 16);
}

#[test]
fn an_unwritten_element_reads_back_as_nan_and_fails_the_check() {
    // A poisoned buffer that nothing writes.
    let c = MatrixBuffer::output(ctx(), "never written", 3, 5).unwrap();
    let back = c.read_matrix(ctx()).unwrap();
    assert!(
        back.data.iter().all(|v| v.is_nan()),
        "poison must read back as NaN"
    );
    let (zero_a, zero_b) = (Matrix::zeros(3, 1), Matrix::zeros(1, 5));
    let v = check::judge(Arith::F32, &zero_a, &zero_b, &back);
    assert_eq!(v.stats.nonfinite, 15);
    assert!(!v.passed, "a never-written result must fail the check");

    // A kernel whose grid misses the last column of workgroups: the elements it never writes
    // stay NaN, and the check says so.
    let (m, k, n) = (20, 9, 40);
    let a = Matrix::random(m, k, 1, -1.0, 1.0);
    let b = Matrix::random(k, n, 2, -1.0, 1.0);
    let mut plan = cs_naive::plan(m, k, n);
    plan.stages[0].groups[0] -= 1; // covers columns 0..32 only
    let c = compute::run(ctx(), &plan, &a, &b)
        .unwrap()
        .into_c()
        .unwrap();
    // compute::run has no outcome: the arithmetic cs-naive promises, f32.
    let arith = plan::arith(
        Method::CsNaive,
        rendermm::precision::Precision::F32,
        &Options::default(),
    );
    let v = check::judge(arith, &a, &b, &c);
    assert_eq!(
        v.stats.nonfinite,
        m * (n - 32),
        "exactly the unwritten elements are NaN"
    );
    assert!(!v.passed, "{}", v.held);
    assert!(c.get(0, 31).is_finite() && c.get(0, 32).is_nan());
}

#[test]
fn repeated_runs_repoison_the_output() {
    // Outputs are poisoned again before each run, so a second run cannot pass on the first
    // run's results.
    let (m, k, n) = (8, 8, 8);
    let a = Matrix::random(m, k, 3, -1.0, 1.0);
    let b = Matrix::random(k, n, 4, -1.0, 1.0);
    let plan = cs_naive::plan(m, k, n);
    let ops = compute::Operands::upload(ctx(), &plan, &a, &b).unwrap();
    let prepared = compute::Prepared::new(ctx(), &plan, &ops).unwrap();
    prepared.submit(ctx(), "first").unwrap();
    ctx().wait().unwrap();
    assert!(
        ops.c
            .read_matrix(ctx())
            .unwrap()
            .data
            .iter()
            .all(|v| v.is_finite())
    );
    ops.poison(ctx()).unwrap();
    assert!(
        ops.c
            .read_matrix(ctx())
            .unwrap()
            .data
            .iter()
            .all(|v| v.is_nan())
    );
}

#[test]
fn single_workgroup_cannon_and_dns_name_the_limit_and_the_sizes_they_accept() {
    let a = Matrix::random(65, 100, 1, -1.0, 1.0);
    let b = Matrix::random(100, 37, 2, -1.0, 1.0);
    let max_inv = ctx().limits.max_compute_invocations_per_workgroup;
    for (me, accepted) in [
        (
            Method::Cannon,
            format!("square n ≤ {}", cannon::max_square(&ctx().limits)),
        ),
        (
            Method::Dns,
            format!("square n ≤ {}", dns::max_square(&ctx().limits)),
        ),
    ] {
        // The single-workgroup kernel's plan refuses; `multiply` then runs the tiled version
        // and carries this message in its notes (see check_method_on).
        let err = rendermm::plan::compute_plan(me, &ctx().limits, 65, 100, 37)
            .unwrap()
            .unwrap_err();
        let out = plan::multiply(Some(ctx()), plan::Request::new(me, &a, &b)).unwrap();
        assert!(
            out.notes[0].contains(&err.to_string()),
            "{me}: {:?}",
            out.notes
        );
        hold(&format!("{me} fallback"), out.arith, &a, &b, &out.c);
        assert!(
            matches!(
                err,
                Error::Limit {
                    limit: "max_compute_invocations_per_workgroup",
                    ..
                }
            ),
            "{me}: {err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains(&accepted) && msg.contains(&max_inv.to_string()),
            "{me}: {msg}"
        );
        assert!(
            msg.contains("-tiled"),
            "{me} should point to a multi-workgroup method: {msg}"
        );
    }
    if max_inv == 1024 {
        assert_eq!(cannon::max_square(&ctx().limits), 32);
        assert_eq!(
            dns::max_square(&ctx().limits),
            10,
            "O'Neil: n ≤ ∛1024 ≈ 10.08"
        );
    }
}

#[test]
fn workgroup_and_buffer_limits_give_errors_naming_the_limit() {
    // A context whose reported limits are cut down, as a small adapter would report them.
    let mut small = GpuContext::new().unwrap();
    small.limits.max_compute_invocations_per_workgroup = 256;
    let a = Matrix::random(40, 40, 1, -1.0, 1.0);
    let b = Matrix::random(40, 40, 2, -1.0, 1.0);
    let err =
        plan::multiply(Some(&small), plan::Request::new(Method::CsTiled32, &a, &b)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                limit: "max_compute_invocations_per_workgroup",
                value: 1024,
                max: 256,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("cs-tiled-32"), "{err}");

    small.limits.max_compute_invocations_per_workgroup = 1024;
    small.limits.max_compute_workgroup_storage_size = 4096;
    let err =
        plan::multiply(Some(&small), plan::Request::new(Method::CsTiled32, &a, &b)).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                limit: "max_compute_workgroup_storage_size",
                value: 8192,
                ..
            }
        ),
        "{err}"
    );

    small.limits.max_compute_workgroup_storage_size = 32768;
    small.limits.max_storage_buffer_binding_size = 4096;
    // With --no-tile: without it the product is tiled into buffers that fit (tests/tiled.rs).
    let mut no_tile = Options::default();
    no_tile.no_tile = true;
    let err = plan::multiply(
        Some(&small),
        plan::Request::new(Method::CsNaive, &a, &b).options(no_tile.clone()),
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                limit: "max_storage_buffer_binding_size",
                value: 6400,
                max: 4096,
                ..
            }
        ),
        "{err}"
    );

    // The checks themselves, without a device.
    let mut l = wgpu::Limits::downlevel_defaults();
    l.max_buffer_size = 1000;
    let err = check_storage_size(&l, "X", 1001).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                limit: "max_buffer_size",
                value: 1001,
                max: 1000,
                ..
            }
        ),
        "{err}"
    );
    let err = compute::check_grid(&l, "X", [l.max_compute_workgroups_per_dimension + 1, 1, 1])
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::Limit {
                limit: "max_compute_workgroups_per_dimension",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        cs_tiled::plan(32, 64, 64, 64)
            .check(&wgpu::Limits::downlevel_defaults())
            .is_err()
    );
    assert!(
        cs_tiled::plan(16, 64, 64, 64)
            .check(&wgpu::Limits::downlevel_defaults())
            .is_ok()
    );
}

#[test]
fn dns_plans_have_oneils_block_shapes() {
    let l = &ctx().limits;
    // Table 1: at 8×8, 8 blocks of 8×8, 16 of 4×8, 32 of 2×8, one 8×8×8 block.
    for (split, blocks, rows) in [(1, 8, 8), (2, 16, 4), (4, 32, 2)] {
        let p = dns_blocks::plan(l, split, 8, 8, 8);
        assert_eq!(p.dispatches(), 1, "k fits one workgroup: no reduction pass");
        assert_eq!(p.stages[0].workgroups(), blocks);
        assert_eq!(p.stages[0].kernel.workgroup_size, [1, 8, rows]);
    }
    let p = dns::plan(l, 8, 8, 8).unwrap();
    assert_eq!(
        (p.stages[0].workgroups(), p.stages[0].kernel.invocations()),
        (1, 512)
    );
    // Table 2: eight 8×8×8 tiles at 16×16, whose two k-blocks meet in a reduction pass.
    let p = dns_tiled::plan(16, 16, 16);
    assert_eq!(p.dispatches(), 2);
    assert_eq!(p.stages[0].workgroups(), 8);
    assert_eq!(p.extra, 2);
}

#[test]
fn model_gives_the_seeds_computation_to_memory_ratios() {
    let n = 1024;
    let r = |me| model_compute::model(me, n, n, n).unwrap().flop_per_byte;
    assert!(
        (r(Method::CsNaive) - 0.25).abs() < 0.001,
        "5kk73: about 1/4 naive"
    );
    assert!(
        (r(Method::CsTiled16) - 4.0).abs() < 0.05,
        "5kk73: B/4 with B = 16"
    );
    assert!((r(Method::CsTiled32) - 8.0).abs() < 0.15, "B/4 with B = 32");
    assert!((r(Method::Kk73OuterProduct) - 6.4).abs() < 0.1);
    let naive = model_compute::model(Method::CsNaive, n, n, n).unwrap();
    assert_eq!(
        naive.words_read,
        2 * (n as u128).pow(3),
        "2·n³ words read naive"
    );
    assert!(model_compute::model(Method::Lm, n, n, n).is_none());
    assert!(model_compute::model(Method::CpuFast, n, n, n).is_none());
    // A single-workgroup method has a model at any size, and says why it cannot run it.
    let c = model_compute::model(Method::Cannon, n, n, n).unwrap();
    assert!(c.cannot_run.is_some() && c.workgroups.is_none());
}

#[test]
fn oneil_bench_prints_both_tables_with_every_row_checked() {
    let opts = BenchOptions {
        trials: 2,
        warmup: 0,
        ..Default::default()
    };
    let rep = bench::run(ctx(), Suite::Oneil, &opts).unwrap();
    assert_eq!(rep.tables.len(), 2);
    assert_eq!((rep.tables[0].m, rep.tables[1].m), (8, 16));
    assert!(rep.all_passed(), "{}", bench::render(&rep));
    assert_eq!(
        rep.tables[0]
            .rows
            .iter()
            .filter(|r| r.paper.is_some())
            .count(),
        5
    );
    let text = bench::render(&rep);
    for label in [
        "Table 1.",
        "Table 2.",
        "Cannon",
        "DNS, 32 2x8 blocks",
        "281.6",
    ] {
        assert!(text.contains(label), "missing {label} in\n{text}");
    }
}

/// The methods that run on the shared compute harness, from the table of methods.
fn compute_methods() -> Vec<Method> {
    Method::ALL
        .iter()
        .copied()
        .filter(|m| m.is_compute())
        .collect()
}

/// A single-workgroup method given a product too large for it runs its multi-workgroup version;
/// the report names the kernel that ran and carries that kernel's model, not the one asked for.
#[test]
fn the_report_names_and_models_the_kernel_that_ran() {
    let (a, b) = (
        Matrix::random(100, 100, 1, -1.0, 1.0),
        Matrix::random(100, 100, 2, -1.0, 1.0),
    );
    for (asked, ran) in [
        (Method::Cannon, Method::CannonTiled),
        (Method::Dns, Method::DnsTiled),
    ] {
        let out = plan::multiply(Some(ctx()), plan::Request::new(asked, &a, &b)).unwrap();
        let r = rendermm::report::Report::of(Some(ctx()), &out, vec![]);
        assert_eq!(r.method, asked.name());
        assert_eq!(r.ran.as_deref(), Some(ran.name()), "{asked}");
        let model = model_compute::model_with_limits(ran, 100, 100, 100, &ctx().limits).unwrap();
        assert_eq!(r.model_global_bytes, Some(model.global_bytes), "{asked}");
    }
    // Within one workgroup, no hand-over.
    let (a, b) = (
        Matrix::random(8, 8, 1, -1.0, 1.0),
        Matrix::random(8, 8, 2, -1.0, 1.0),
    );
    let out = plan::multiply(Some(ctx()), plan::Request::new(Method::Cannon, &a, &b)).unwrap();
    let r = rendermm::report::Report::of(Some(ctx()), &out, vec![]);
    assert_eq!(r.ran, None);
}

/// GPU timestamps bracket the work they time: a span given a long dispatch counts most of the
/// wall time each repetition took. On a GPU the host's time between opening and closing a span is
/// not device time (an opening timestamp submitted on its own would be written at once by the
/// idle GPU and count the host's wait: a tenth of coop's time at n = 4096 on the H100); on a CPU
/// adapter each timestamp has a submission of its own, because lavapipe writes a timestamp
/// that follows a dispatch in the same submission before the dispatch is done, and the span
/// counts the host's time instead.
#[test]
fn a_span_counts_its_work_and_on_a_gpu_not_the_host_between_submissions() {
    use rendermm::gpu::timer::{Clock, Span};
    let c = ctx();
    assert!(
        c.has(wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS),
        "the test adapter has timestamps inside encoders (lavapipe does)"
    );
    // A dispatch of some milliseconds on lavapipe, timed through both ways of giving a span its
    // work, after a warm-up: the device time must be most of the wall clock around it.
    let module = c.device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("span test"),
        source: wgpu::ShaderSource::Wgsl(
            "@group(0) @binding(0) var<storage, read_write> o: array<f32>;
             @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
                 var x = f32(g.x) * 1e-6;
                 for (var i = 0u; i < 4096u; i++) { x = x * 0.999 + 1e-7; }
                 o[g.x] = x;
             }"
            .into(),
        ),
    });
    let pipeline = c
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("span test"),
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
    let out = c.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("span test"),
        size: 64 * 1024 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let bind = c.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("span test"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: out.as_entire_binding(),
        }],
    });
    let record = |enc: &mut wgpu::CommandEncoder| {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(1024, 1, 1);
    };
    let encoded = || {
        let mut enc = c.device.create_command_encoder(&Default::default());
        record(&mut enc);
        enc.finish()
    };
    c.queue.submit([encoded()]);
    c.wait().unwrap();
    for way in ["end_with", "time_encoded"] {
        for _ in 0..3 {
            let span = Span::begin(c).unwrap();
            let t = std::time::Instant::now();
            let (device, clock) = match way {
                "end_with" => span.end_with(c, [encoded()]),
                _ => span.time_encoded(c, |enc| {
                    record(enc);
                    Ok(())
                }),
            }
            .unwrap();
            let wall = t.elapsed().as_secs_f64() * 1e3;
            assert_eq!(clock, Clock::GpuTimestamp);
            assert!(
                device <= wall && device >= 0.5 * wall,
                "{way}: device {device} ms against {wall} ms of wall clock around it"
            );
        }
    }
    let span = Span::begin(c).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(30));
    let (idle, clock) = span.end(c).unwrap();
    assert_eq!(clock, Clock::GpuTimestamp);
    if c.info.device_type == wgpu::DeviceType::Cpu {
        assert!(
            idle >= 25.0,
            "a span on a CPU adapter measured {idle} ms around a 30 ms sleep: its opening timestamp was not submitted at once"
        );
    } else {
        assert!(
            idle < 10.0,
            "a span with no work measured {idle} ms: the host's 30 ms sleep counted as device time"
        );
    }
}

/// The report models the kernel the run recorded, not one guessed again from defaults: a coop
/// run that ran the staged 128x256-smem48 variant is reported and modelled as that variant,
/// with f16 inputs and f32 sums.
#[test]
fn the_report_models_the_variant_the_run_recorded() {
    use rendermm::methods::{Kernels, RanKernel, coop};
    use rendermm::precision::Precision;
    let (m, k, n) = (1024, 1024, 1024);
    let (_a, _b) = (Matrix::zeros(m, k), Matrix::zeros(k, n));
    let staged = coop::Variant::parse("128x256-smem48").unwrap();
    assert_ne!(staged, coop::Variant::default_variant());
    let limits = model_compute::typical_limits();
    let model = |v: coop::Variant| {
        let kernels = Kernels {
            coop: Some(v),
            ..Default::default()
        };
        model_compute::model_of(Method::Coop, (m, k, n), &limits, &kernels).unwrap()
    };
    let (ran, default) = (model(staged), model(coop::Variant::default_variant()));
    assert_ne!(
        ran.global_bytes, default.global_bytes,
        "the variants' models must differ"
    );
    assert_eq!(ran.variant.as_deref(), Some(staged.name));
    let out = plan::Outcome {
        c: Matrix::zeros(m, n),
        more_channels: vec![],
        method: Method::Coop,
        shape: (m, k, n),
        block: None,
        tiling: None,
        arith: rendermm::check::Arith::F16Inputs { tensor_cores: true },
        passes: 1,
        timings: Default::default(),
        notes: vec![],
        kernel: RanKernel {
            variant: Some(rendermm::methods::Variant::Coop(staged)),
            inputs: Precision::F16,
            ..RanKernel::new(Method::Coop, Precision::F32)
        },
        on_device: None,
        clamp: None,
    };
    let r = rendermm::report::Report::of(None, &out, vec![]);
    assert_eq!(r.variant.as_deref(), Some(staged.name));
    assert_eq!((r.inputs.as_str(), r.sums.as_str()), ("f16", "f32"));
    assert_eq!(r.ran, None);
    assert_eq!(r.model_global_bytes, Some(ran.global_bytes));
}

/// The model of a run reads the plan the run recorded, not one planned again: cs-fast run on an
/// awkward shape with a named variant (not the one the size picks) records its dispatches, the
/// compute model the report is built from has exactly those, and the same size modelled without
/// a run, at the same variant, agrees (one function reduces a plan to its dispatches). A named
/// Cannon tile is modelled at that tile, its traffic too. The record serializes by name.
#[test]
fn the_model_of_a_run_is_the_plan_the_run_recorded() {
    use rendermm::methods::{Kernels, Variant, cs_fast};
    use rendermm::report::{Report, compute_model};
    let (m, k, n) = (67, 45, 131);
    let (a, b) = (
        Matrix::random(m, k, 5, -1.0, 1.0),
        Matrix::random(k, n, 6, -1.0, 1.0),
    );
    let cpu = ctx().info.device_type == wgpu::DeviceType::Cpu;
    let picked = cs_fast::Variant::for_product(m, n, cpu);
    let named = cs_fast::VARIANTS[0];
    let grid_of = |v: &cs_fast::Variant| cs_fast::plan(v, m, k, n).unwrap().grid();
    assert_ne!(
        grid_of(&named),
        grid_of(&picked),
        "the size must pick other dispatches"
    );
    assert_ne!(
        grid_of(&named),
        grid_of(&cs_fast::Variant::for_product(m, n, false)),
        "a model's own pick must differ too"
    );
    let run = |method: Method, kernels: Kernels| {
        let opts = Options {
            kernels,
            ..Default::default()
        };
        let out = plan::multiply(
            Some(ctx()),
            plan::Request::new(method, &a, &b).options(opts),
        )
        .unwrap();
        assert!(out.verdict(&a, &b).passed, "{method}");
        out
    };
    let kernels = Kernels {
        cs_fast: Some(named),
        ..Default::default()
    };
    let out = run(Method::CsFast, kernels);
    assert_eq!(out.kernel.variant, Some(Variant::CsFast(named)));
    let grid = out
        .kernel
        .grid
        .clone()
        .expect("a compute run records its dispatches");
    assert_eq!(grid, grid_of(&named));
    let md = compute_model(Some(ctx()), &out).unwrap();
    assert_eq!(md.variant.as_deref(), Some(named.name));
    assert_eq!(
        (
            md.dispatches,
            md.workgroups,
            md.invocations_per_workgroup,
            md.workgroup_bytes
        ),
        (
            Some(grid.dispatches()),
            Some(grid.workgroups()),
            grid.invocations_per_workgroup(),
            grid.workgroup_bytes()
        )
    );
    let not_run = model_compute::model_of(Method::CsFast, (m, k, n), &ctx().limits, &kernels);
    assert_eq!(not_run.as_ref(), Some(&md));
    let r = Report::of(Some(ctx()), &out, vec![]);
    assert_eq!(r.variant.as_deref(), Some(named.name));
    assert_eq!(r.model_global_bytes, Some(md.global_bytes));
    assert_eq!(r.model_flop_per_byte, Some(md.flop_per_byte));
    assert_eq!(
        serde_json::to_value(&out.kernel).unwrap(),
        serde_json::json!({"method": "cs-fast", "variant": named.name, "inputs": "f32", "sums": "f32"})
    );

    // Cannon's tiles at the named T = 4: the dispatches recorded, the traffic of 4x4 tiles.
    let out = run(
        Method::CannonTiled,
        Kernels {
            cannon_tile: Some(4),
            ..Default::default()
        },
    );
    assert_eq!(out.kernel.variant, Some(Variant::CannonTile(4)));
    let grid = out
        .kernel
        .grid
        .clone()
        .expect("a compute run records its dispatches");
    assert_eq!(
        grid,
        rendermm::methods::cannon_tiled::plan_tile(4, m, k, n).grid()
    );
    let md = compute_model(Some(ctx()), &out).unwrap();
    assert_eq!(md.workgroups, Some(grid.workgroups()));
    assert_eq!(md.variant.as_deref(), Some("tile 4"));
    let (mu, ku, nu) = (m as u128, k as u128, n as u128);
    let words = mu * ku * nu.div_ceil(4) + ku * nu * mu.div_ceil(4);
    assert_eq!(md.words_read, words);
    let r = Report::of(Some(ctx()), &out, vec![]);
    assert_eq!(r.variant.as_deref(), Some("tile 4"));
    assert_eq!(r.model_global_bytes, Some(md.global_bytes));
}

/// A CPU adapter's timestamps are a CPU's time (with the host's submission in the span): the
/// report and the sweep's rows say so instead of calling them a GPU's.
#[test]
fn a_cpu_adapters_timestamps_are_not_called_gpu_time() {
    use rendermm::gpu::timer::Clock;
    let (a, b) = (
        Matrix::random(16, 16, 1, -1.0, 1.0),
        Matrix::random(16, 16, 2, -1.0, 1.0),
    );
    let out = plan::multiply(Some(ctx()), plan::Request::new(Method::CsNaive, &a, &b)).unwrap();
    let r = rendermm::report::Report::of(Some(ctx()), &out, vec![]);
    let cpu = ctx().info.device_type == wgpu::DeviceType::Cpu;
    match (out.timings.device_ms, cpu) {
        (Some(_), true) => assert_eq!(r.timing, Clock::CpuAdapterTimestamp),
        (Some(_), false) => assert_eq!(r.timing, Clock::GpuTimestamp),
        (None, _) => assert_eq!(r.timing, Clock::WallClock),
    }
    assert_ne!(
        serde_json::to_value(&r).unwrap()["timing"],
        if cpu { "gpu-timestamp" } else { "" },
    );
}

/// The second product of a kind builds no pipeline: the context keeps the pipelines it built
/// (`gpu::cache`), so only the first product of each GPU method (render passes and compute
/// alike, and each precision of the render passes) pays for compiling its shaders, and every
/// product still equals the first's and passes the judge. Read from the outcomes' setup
/// times, the later products of all the kinds together spend under 5 % of the first products'.
#[test]
fn a_second_product_of_a_kind_builds_no_pipeline() {
    use rendermm::precision::Precision;
    let ctx = rendermm::gpu::GpuContext::new().unwrap();
    let (a, b) = (
        Matrix::random(33, 20, 1, 0.0, 0.3),
        Matrix::random(20, 17, 2, 0.0, 0.3),
    );
    let mut kinds = vec![];
    // The wgpu methods: the GL-era ones build on a GL context of their own, not this cache.
    for &m in Method::ALL.iter().filter(|m| m.uses_wgpu()) {
        kinds.push((m, Precision::F32));
        if m.takes_precision() {
            kinds.push((m, Precision::F16));
            kinds.push((m, Precision::U8));
        }
    }
    let (mut first_setup, mut later_setup, mut later_runs) = (0.0, 0.0, 0);
    for (m, precision) in kinds {
        let opts = plan::Options {
            precision,
            block: m.info().takes.block.then_some(8),
            ..Default::default()
        };
        let run = || {
            plan::multiply(
                Some(&ctx),
                plan::Request::new(m, &a, &b).options(opts.clone()),
            )
        };
        let Ok(first) = run() else { continue };
        first_setup += first.timings.setup_ms;
        let (built, compiled) = (ctx.pipelines.built(), ctx.pipelines.compiled());
        assert!(built > 0 && compiled > 0, "{m}: nothing built");
        for _ in 0..2 {
            let again = run().unwrap();
            later_setup += again.timings.setup_ms;
            later_runs += 1;
            let label = format!("{m} {precision}");
            assert_eq!(
                ctx.pipelines.built(),
                built,
                "{label}: built a pipeline again"
            );
            let compiled_now = ctx.pipelines.compiled();
            assert_eq!(compiled_now, compiled, "{label}: compiled a shader again");
            assert!(again.verdict(&a, &b).passed, "{label}");
            assert_eq!(
                again.c, first.c,
                "{label}: a cached pipeline computes as a new one"
            );
        }
    }
    // Two later products per kind: their mean setup against the first products'.
    let later_per_product = later_setup / 2.0;
    eprintln!(
        "setup: first products {first_setup:.1} ms, later ones {later_per_product:.2} ms a round ({later_runs} products)"
    );
    assert!(
        first_setup > 0.0 && later_per_product < 0.05 * first_setup,
        "later products spent {later_per_product:.2} ms a round on setup, the first {first_setup:.1} ms"
    );
}

/// Submissions gathered in a batch (`gpu::batch::batched`) reach the queue in the order they
/// were made, all of them and only once the batch ends: two uploads into one buffer leave the
/// second's values; a batch whose body fails submits nothing, so the buffer keeps what it held;
/// a batch inside a batch joins it.
#[test]
fn a_batch_submits_its_uploads_in_order_and_only_when_it_succeeds() {
    use rendermm::gpu::batch::batched;
    use rendermm::gpu::buffer::MatrixBuffer;
    let ctx = ctx();
    let (first, second) = (vec![1.0f32; 300], vec![2.0f32; 300]);
    let buf = MatrixBuffer::new(ctx, "x", 10, 30).unwrap();
    batched(ctx, || {
        buf.write(ctx, &first)?;
        batched(ctx, || buf.write(ctx, &second))
    })
    .unwrap();
    assert_eq!(
        buf.read_matrix(ctx).unwrap().data.to_vec(),
        second,
        "order kept"
    );
    let failed: rendermm::error::Result<()> = batched(ctx, || {
        buf.write(ctx, &first)?;
        Err(rendermm::Error::Invalid("planted".into()))
    });
    assert!(failed.is_err());
    assert_eq!(
        buf.read_matrix(ctx).unwrap().data.to_vec(),
        second,
        "a failed batch's upload was submitted"
    );
}
