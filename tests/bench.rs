//! `rendermm bench`: the sweep runs, checks every row against the f64 reference, writes JSON,
//! CSV and the three plots; the ceilings come back as JSON with every rate.

mod common;
use common::{ctx, rendermm};
use rendermm::bench::sweep::{self, SweepOptions};
use rendermm::methods::Method;
use rendermm::precision::Precision;
use std::sync::{Mutex, MutexGuard};

/// Every test of this file holds this, so they run one at a time: the soak judges time, and any
/// other test of this file running beside it on the same cores (a GPU product on a CPU adapter,
/// a chart being drawn, a child process opening the driver) would be the noise it is judged
/// against.
fn timed() -> MutexGuard<'static, ()> {
    static TIMED: Mutex<()> = Mutex::new(());
    TIMED.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn sweep_checks_every_row_and_writes_plots() {
    let _timed = timed();
    let opts = SweepOptions {
        methods: vec![
            Method::Lm,
            Method::HallPacked,
            Method::CsNaive,
            Method::CpuFast,
        ],
        sizes: vec![17, 40],
        precisions: vec![Precision::F32, Precision::U8],
        warmup: 1,
        repeats: 2,
        max_run_s: 5.0,
        seed: 3,
        options: Default::default(),
    };
    let mut ticks = 0;
    let s = sweep::run(ctx(), &opts, None, |_| ticks += 1).unwrap();
    // lm and hall-packed take two precisions, the others one: (2 + 2 + 1 + 1) × 2 sizes.
    assert_eq!(s.rows.len(), 12);
    assert_eq!(ticks, 12);
    for r in &s.rows {
        assert!(
            r.skipped.is_none(),
            "{} n={} skipped: {:?}",
            r.method,
            r.n,
            r.skipped
        );
        assert!(
            r.passed,
            "{} {} n={} failed its check",
            r.method, r.precision, r.n
        );
        assert_eq!(r.checked, "full");
        assert!(
            r.gflops > 0.0
                && r.compute_min_ms <= r.compute_median_ms
                && r.compute_median_ms <= r.compute_max_ms
        );
    }
    let dir = std::env::temp_dir().join(format!("rendermm-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let paths = rendermm::bench::plots::sweep_plots(&s, &dir).unwrap();
    for p in &paths {
        let img = image::open(p).unwrap();
        assert!(img.width() > 500 && img.height() > 300, "{}", p.display());
    }
    let csv = sweep::csv(&s);
    assert_eq!(csv.lines().count(), 13, "header + one line per row");
}

#[test]
fn sampled_check_catches_a_wrong_element() {
    let _timed = timed();
    let a = rendermm::Matrix::random(300, 20, 1, -1.0, 1.0);
    let b = rendermm::Matrix::random(20, 300, 2, -1.0, 1.0);
    let mut c = rendermm::cpu::fast(&a, &b);
    let judge = |c: &rendermm::Matrix| {
        use rendermm::check::{self, CheckPolicy, Coverage, Hold, Inputs};
        let sampled = Coverage::Sampled {
            samples: 512,
            seed: 9,
        };
        let policy = CheckPolicy {
            hold: Hold::Exact,
            coverage: sampled,
        };
        check::check(policy, check::Arith::F32, &[(Inputs::new(&a, &b), c)]).passed()
    };
    assert!(judge(&c));
    c.data.iter_mut().for_each(|v| *v *= 1.001);
    assert!(!judge(&c));
    assert!(!judge(&rendermm::Matrix::filled(300, 300, f32::NAN)));
}

#[test]
fn bench_ceilings_json_reports_every_ceiling() {
    let _timed = timed();
    let out = rendermm(&["bench", "--ceilings", "--quick", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["ceilings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for want in [
        "fragment-fma",
        "compute-fma",
        "blend-r32f",
        "texture-fetch",
        "copy-d2d",
        "copy-h2d",
        "copy-d2h",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
}

/// A short soak: every GPU method, two rounds, in one process. Each product passes its check and
/// neither host nor device memory grows from the end of the first round to the end. (The
/// timing ratio is printed, not asserted: speed goals live in the benchmark, not in tests.)
#[test]
fn short_soak_checks_every_product_and_does_not_grow() {
    let _timed = timed();
    let out = rendermm(&["bench", "--soak", "2", "--soak-size", "24", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let rows = v["rows"].as_array().unwrap();
    let ran: Vec<&serde_json::Value> = rows.iter().filter(|r| r["skipped"].is_null()).collect();
    assert!(
        ran.len() >= 20,
        "most GPU methods run on lavapipe: {rows:?}"
    );
    for r in &ran {
        assert_eq!(r["passed"], true, "{r}");
        // Two rounds, and two more where the soak confirmed or refuted a slowdown.
        let again = r["confirm_rounds"].as_u64().unwrap_or(0) as usize;
        assert_eq!(r["compute_ms"].as_array().unwrap().len(), 2 + again, "{r}");
    }
    for what in ["host_bytes", "device_bytes"] {
        if let (Some(first), Some(last)) = (v[what][0].as_u64(), v[what][1].as_u64()) {
            assert!(
                last <= first + first / 10 + (32 << 20),
                "{what} grew from {first} to {last}"
            );
        }
    }
}

/// The JSON of a multiply carries the data path: setup, upload and readback times and the bytes
/// each moved (the readback of an m×n f32 result is 4·m·n bytes, whatever the method padded).
/// Each process builds its pipelines, and that time is setup, apart from the upload, for the
/// render-pass methods as for the compute ones.
#[test]
fn multiply_json_reports_the_data_path() {
    let _timed = timed();
    for (method, size, m, n) in [
        ("cs-fast", "37x70x53", 37, 53),
        ("lm", "5x9x3", 5, 3),
        ("hall-packed", "6x10x4", 6, 4),
        ("frag-mrt", "8x12x16", 8, 16),
    ] {
        let out = rendermm(&[
            "multiply", "--method", method, "--random", size, "--check", "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in ["setup_ms", "upload_ms", "compute_ms", "readback_ms"] {
            assert!(v[key].as_f64().is_some_and(|x| x >= 0.0), "{key} in {v}");
        }
        assert!(
            v["setup_ms"].as_f64().unwrap() > 0.0,
            "{method}: no setup time in {v}"
        );
        assert_eq!(
            v["readback_bytes"].as_u64(),
            Some(4 * m * n),
            "{method}: {v}"
        );
        assert!(v["upload_bytes"].as_u64().unwrap() > 0, "{method}: {v}");
    }
}

/// `--replot` reads a sweep's JSON (the H100's, kept in docs/perf) and draws its charts again
/// without opening a GPU; a file that is not a sweep is refused in one line.
#[test]
fn replot_draws_a_saved_sweep_and_refuses_other_json() {
    let _timed = timed();
    let dir = std::env::temp_dir().join(format!("rendermm-replot-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap();
    let json = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/perf/h100/bench.json");
    let out = rendermm(&["bench", "--replot", json, "--plots", dir_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for png in [
        "gflops-vs-n.png",
        "methods-at-largest-n.png",
        "breakdown.png",
    ] {
        let img = image::open(dir.join(png)).unwrap();
        assert!(img.width() > 400 && img.height() > 200, "{png}");
    }
    let bad = dir.join("not-a-sweep.json");
    std::fs::write(&bad, "{\"rows\": 3}").unwrap();
    let out = rendermm(&["bench", "--replot", bad.to_str().unwrap(), "--plots", dir_s]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not the JSON of a bench sweep"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The staging pools stay bounded however many sizes go through them: after readbacks and
/// uploads of ten different sizes, each pool holds at most its four buffers, and reading the
/// same size again reuses a pooled buffer (the results stay right throughout).
#[test]
fn staging_pools_stay_bounded_and_are_reused() {
    let _timed = timed();
    use rendermm::gpu::buffer::MatrixBuffer;
    use rendermm::gpu::pools::POOL_BUFFERS;
    use rendermm::matrix::Matrix;
    let ctx = ctx();
    for n in 1..=10usize {
        let m = Matrix::random(n * 7, n * 5, n as u64, -1.0, 1.0);
        let buf = MatrixBuffer::upload(ctx, "pool test", &m).unwrap();
        let back = buf.read_matrix(ctx).unwrap();
        assert_eq!(back, m, "{n}");
    }
    let (read, write) = ctx.staging.pooled();
    assert!(
        read <= POOL_BUFFERS && write <= POOL_BUFFERS,
        "{read} read, {write} write buffers kept"
    );
    let m = Matrix::random(70, 50, 3, -1.0, 1.0);
    let buf = MatrixBuffer::upload(ctx, "pool test", &m).unwrap();
    assert_eq!(buf.read_matrix(ctx).unwrap(), m);
    let before = ctx.staging.created();
    for _ in 0..3 {
        assert_eq!(buf.read_matrix(ctx).unwrap(), m);
    }
    assert_eq!(
        ctx.staging.created(),
        before,
        "same-size readbacks reuse a pooled staging buffer"
    );
}

/// Texture uploads go through a pooled staging buffer whose rows are padded to 256 bytes: for
/// widths whose rows are not a multiple of 256 bytes, in every format the matrix textures use,
/// the texels read back are the bytes written, bit for bit (NaN patterns included), and the
/// upload is counted as the tight bytes.
#[test]
fn texture_uploads_with_unaligned_rows_read_back_bit_for_bit() {
    let _timed = timed();
    use rendermm::gpu::MatrixTexture;
    use rendermm::gpu::texture::INPUT_USAGE;
    use wgpu::TextureFormat as F;
    // Its own context: other tests upload through the shared one at the same time.
    let own = rendermm::gpu::GpuContext::new().unwrap();
    let ctx = &own;
    for (i, &(format, rows, cols)) in [
        (F::R32Float, 1, 1),
        (F::R32Float, 3, 7),
        (F::R32Float, 65, 33),
        (F::Rgba32Float, 5, 3),
        (F::Rgba16Float, 7, 9),
        (F::Rgba8Unorm, 9, 5),
        (F::R16Float, 11, 13),
        (F::R8Unorm, 4, 257),
    ]
    .iter()
    .enumerate()
    {
        let t = MatrixTexture::new(ctx, "upload test", rows, cols, format, INPUT_USAGE).unwrap();
        let len = rows * cols * t.bytes_per_texel() as usize;
        let bytes: Vec<u8> = (0..len).map(|j| ((j * 131 + i * 17) % 256) as u8).collect();
        let before = ctx.staging.uploaded();
        t.write_bytes(ctx, &bytes).unwrap();
        assert_eq!(ctx.staging.uploaded() - before, len as u64, "{format:?}");
        let back = t.read_bytes(ctx).unwrap();
        assert!(*back == bytes[..], "{format:?} {rows}x{cols}");
        // A second upload reuses the staging buffer and replaces every texel.
        let again: Vec<u8> = bytes.iter().map(|b| b ^ 0x5A).collect();
        t.write_bytes(ctx, &again).unwrap();
        assert!(*t.read_bytes(ctx).unwrap() == again[..], "{format:?} again");
    }
}

/// A texture upload of the wrong number of bytes is refused in one line naming both counts,
/// before anything is staged.
#[test]
fn texture_upload_of_the_wrong_byte_count_is_one_line() {
    let _timed = timed();
    use rendermm::gpu::MatrixTexture;
    use rendermm::gpu::texture::INPUT_USAGE;
    let ctx = ctx();
    let t = MatrixTexture::new(
        ctx,
        "upload test",
        3,
        7,
        wgpu::TextureFormat::R32Float,
        INPUT_USAGE,
    )
    .unwrap();
    for len in [0, 83, 85, 3 * 7 * 4 * 2] {
        let e = t.write_bytes(ctx, &vec![0; len]).unwrap_err().to_string();
        assert_eq!(
            e.trim(),
            format!("texture upload: {len} bytes given, 3x7 texels of 4 bytes need 84"),
            "{len}"
        );
        assert_eq!(e.trim().lines().count(), 1, "{e}");
    }
}

/// Bad combinations of the soak and replot options are refused in one line each, before any
/// GPU work, with the usage exit status.
#[test]
fn soak_and_replot_options_are_checked_in_one_line() {
    let _timed = timed();
    for (args, says) in [
        (
            &["bench", "--soak", "0"][..],
            "--soak: give the number of rounds",
        ),
        (&["bench", "--soak-size", "5"][..], "give --soak N"),
        (
            &["bench", "--soak", "2", "--ceilings"][..],
            "pick one of them",
        ),
        (&["bench", "--replot", "x.json"][..], "give --plots DIR"),
        (
            &["bench", "--soak", "1", "--soak-size", "0"][..],
            "at least 1",
        ),
    ] {
        let out = rendermm(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Two uploads of the same size one after the other share one staging buffer: the second waits
/// for the first one's buffer to be mapped again rather than making a new one (whose memory
/// would be touched for the first time, several times slower on the H100), and both arrive.
#[test]
fn back_to_back_uploads_share_a_staging_buffer() {
    let _timed = timed();
    use rendermm::gpu::buffer::MatrixBuffer;
    use rendermm::matrix::Matrix;
    // Its own context, so its pool starts empty and no other test's buffers are in it.
    let own = rendermm::gpu::GpuContext::new().unwrap();
    let ctx = &own;
    let a = Matrix::random(1000, 777, 1, -1.0, 1.0);
    let b = Matrix::random(1000, 777, 2, -1.0, 1.0);
    for round in 0..3 {
        let before = ctx.staging.created();
        let ab = MatrixBuffer::upload(ctx, "A", &a).unwrap();
        let bb = MatrixBuffer::upload(ctx, "B", &b).unwrap();
        let made = ctx.staging.created() - before;
        assert!(
            made <= 1,
            "round {round}: {made} staging buffers made for two uploads of one size"
        );
        if round > 0 {
            assert_eq!(made, 0, "round {round}: the pooled buffer is reused");
        }
        assert_eq!(ab.read_matrix(ctx).unwrap(), a, "round {round}");
        assert_eq!(bb.read_matrix(ctx).unwrap(), b, "round {round}");
    }
}

/// The soak's timing verdict fails a method that really slows down: here cs-naive, from the
/// second round on, does its product eight times over (real device work, timed as the soak
/// times it), while cs-tiled-16 beside it does not. The failure says what the later rounds were
/// held to.
#[test]
fn soak_fails_a_method_whose_later_rounds_slow_down() {
    let _timed = timed();
    use rendermm::bench::soak;
    const SLOWER: usize = 8;
    let ctx = ctx();
    let methods = [Method::CsNaive, Method::CsTiled16];
    let mut runner = |round: usize, method, a: &_, b: &_| {
        let mut t = soak::run_timed(ctx, method, a, b)?;
        if round > 0 && method == Method::CsNaive {
            for _ in 1..SLOWER {
                let again = soak::run_timed(ctx, method, a, b)?;
                for (x, y) in t.compute_ms.iter_mut().zip(again.compute_ms) {
                    *x += y;
                }
            }
        }
        Ok(t)
    };
    let s = soak::soak_with(ctx, &methods, (3, 64, 1), &mut runner, &|| None).unwrap();
    let failures = s.failures();
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("cs-naive: later rounds took")
                && f.contains("rounds run again to confirm it")
                && f.contains("held to")),
        "variation {}: {failures:?}\n{}",
        s.variation,
        s.render()
    );
    assert!(
        !failures.iter().any(|f| f.starts_with("cs-tiled-16")),
        "{failures:?}\n{}",
        s.render()
    );
}

/// A slowdown that does not last is not one: here cs-naive does its product eight times over in
/// rounds 2 and 3 only, as a busy host would make it seem, and is itself again in the rounds the
/// soak runs to confirm the slowdown, so the soak passes and says it ran them.
#[test]
fn soak_passes_a_slowdown_that_does_not_last() {
    let _timed = timed();
    use rendermm::bench::soak;
    const SLOWER: usize = 8;
    let ctx = ctx();
    let mut runner = |round: usize, method, a: &_, b: &_| {
        let mut t = soak::run_timed(ctx, method, a, b)?;
        if (1..3).contains(&round) {
            for _ in 1..SLOWER {
                let again = soak::run_timed(ctx, method, a, b)?;
                for (x, y) in t.compute_ms.iter_mut().zip(again.compute_ms) {
                    *x += y;
                }
            }
        }
        Ok(t)
    };
    let s = soak::soak_with(ctx, &[Method::CsNaive], (3, 64, 1), &mut runner, &|| None).unwrap();
    let row = &s.rows[0];
    assert_eq!(row.confirm_rounds, soak::CONFIRM_ROUNDS, "{}", s.render());
    assert_eq!(row.repeats_ms.len(), 3 + soak::CONFIRM_ROUNDS);
    assert!(
        s.failures().is_empty(),
        "{:?}\n{}",
        s.failures(),
        s.render()
    );
    assert!(
        s.render().contains("run again to confirm a slowdown"),
        "{}",
        s.render()
    );
}

/// The README's soak (every GPU method, three rounds at 64³) passes where nothing slows down:
/// noise from run to run (a fraction of a millisecond at 64³ on a CPU adapter, whose cores
/// other processes share) is not a slowdown. Each round times every method three times; a
/// method judged slower runs two more rounds, and passes when the slowdown did not last.
#[test]
fn readme_soak_of_steady_methods_passes() {
    let _timed = timed();
    let out = rendermm(&["bench", "--soak", "3", "--quick", "--json"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}\n{text}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(v["variation"].as_f64().is_some_and(|x| x >= 1.0), "{v}");
    for r in v["rows"].as_array().unwrap() {
        if !r["skipped"].is_null() {
            continue;
        }
        // Three rounds, and two more for a method whose slowdown was confirmed or refuted.
        let again = r["confirm_rounds"].as_u64().unwrap_or(0);
        assert!(again == 0 || again == 2, "{r}");
        let repeats = r["repeats_ms"].as_array().unwrap();
        assert_eq!(repeats.len() as u64, 3 + again, "{r}");
        assert!(
            repeats.iter().all(|x| x.as_array().unwrap().len() == 3),
            "{r}"
        );
        let t = &r["verdict"];
        assert!(
            t["later_ms"].as_f64().unwrap() <= t["allowed_ms"].as_f64().unwrap(),
            "{r}"
        );
    }
}

/// Each row names the kernel that ran and the formats it computed in: `cannon` at a size past
/// its single workgroup ran `cannon-tiled` and says so; frag-mrt-f16 read f16 inputs into f32
/// sums; cs-fast names its variant. The table, the JSON and the CSV carry it.
#[test]
fn sweep_rows_name_the_kernel_that_ran_and_its_number_formats() {
    let _timed = timed();
    let opts = SweepOptions {
        methods: vec![Method::Cannon, Method::FragMrtF16, Method::CsFast],
        sizes: vec![100],
        precisions: vec![Precision::F32],
        warmup: 1,
        repeats: 1,
        max_run_s: 5.0,
        seed: 3,
        options: Default::default(),
    };
    let s = sweep::run(ctx(), &opts, None, |_| {}).unwrap();
    let row = |m: Method| s.rows.iter().find(|r| r.method == m.name()).unwrap();
    let (cannon, f16, fast) = (
        row(Method::Cannon),
        row(Method::FragMrtF16),
        row(Method::CsFast),
    );
    for r in [cannon, f16, fast] {
        assert!(r.skipped.is_none() && r.passed, "{r:?}");
    }
    assert_eq!(cannon.ran.as_deref(), Some("cannon-tiled"));
    assert_eq!(cannon.what_ran(), "cannon (ran cannon-tiled)");
    assert_eq!(
        (f16.inputs.as_deref(), f16.sums.as_deref()),
        (Some("f16"), Some("f32"))
    );
    assert_eq!(f16.formats(), "f16/f32");
    assert_eq!(
        (fast.inputs.as_deref(), fast.sums.as_deref()),
        (Some("f32"), Some("f32"))
    );
    let cpu = ctx().info.device_type == wgpu::DeviceType::Cpu;
    let variant = rendermm::methods::cs_fast::Variant::for_product(100, 100, cpu).name;
    assert_eq!(fast.variant.as_deref(), Some(variant));
    let table = sweep::table(&s);
    assert!(table.contains("cannon (ran cannon-tiled)"), "{table}");
    assert!(table.contains("f16/f32"), "{table}");
    let csv = sweep::csv(&s);
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .ends_with(",ran,variant,inputs,sums,wall_ms"),
        "{csv}"
    );
    let json = serde_json::to_value(&s).unwrap();
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().any(|r| r["ran"] == "cannon-tiled"), "{json}");
}

/// The suites run every row through the one entry point: each row's trials come back timed on
/// the outcome (warm-up runs left out), the last trial's C is judged, and O'Neil's own kernel
/// configurations at 16×16 (Cannon with T = 8, the 8-block DNS as 64 blocks of 8×8) run as
/// named kernels of their methods.
#[test]
fn bench_suites_time_every_row_through_the_entry() {
    use rendermm::bench::{self, BenchOptions, Suite};
    let _t = timed();
    let opts = BenchOptions {
        trials: 3,
        warmup: 1,
        ..Default::default()
    };
    let rep = bench::run(ctx(), Suite::Oneil, &opts).unwrap();
    let text = bench::render(&rep);
    assert!(rep.all_passed(), "{text}");
    for r in rep.tables.iter().flat_map(|t| &t.rows) {
        assert_eq!(r.trials, 3, "{text}");
        assert!(r.wall.min > 0.0 && r.wall.min <= r.wall.max, "{text}");
        assert!(r.rel_err < 1e-5, "{text}");
    }
    let t2 = &rep.tables[1].rows;
    assert_eq!(t2[0].ran_as, "cannon-tiled: 4 wg of 8x8", "{text}");
    assert_eq!(
        t2[2].ran_as, "dns-n-blocks: 64 wg of 8x8 + 4 wg of 64",
        "{text}"
    );
    // Without the named layout, dns-n-blocks at 16x16 runs 16 blocks of 16x16.
    assert_eq!(t2[4].ran_as, "dns-n-blocks: 16 wg of 16x16", "{text}");

    let opts = BenchOptions {
        trials: 2,
        warmup: 0,
        size: Some((33, 20, 17)),
        ..Default::default()
    };
    let rep = bench::run(ctx(), Suite::Kk73, &opts).unwrap();
    let text = bench::render(&rep);
    assert!(rep.all_passed(), "{text}");
    assert_eq!(rep.tables[0].rows.len(), 9, "{text}");
    assert!(rep.tables[0].rows.iter().all(|r| r.trials == 2), "{text}");
}

/// Timed repeats asked of the entry point come back on the outcome, one wall-clock time per
/// trial; a named kernel configuration runs and says so; a request for no trial, or for an
/// empty block, is one clear line.
#[test]
fn timed_repeats_and_named_kernels_through_the_entry() {
    use rendermm::matrix::Matrix;
    use rendermm::methods::{Kernels, dns};
    use rendermm::plan::{self, Options, Repeats, Request};
    let _t = timed();
    let (a, b) = (
        Matrix::random(33, 20, 5, -1.0, 1.0),
        Matrix::random(20, 17, 6, -1.0, 1.0),
    );
    let timed_opts = |warmup, trials, kernels| Options {
        kernels,
        repeats: Some(Repeats { warmup, trials }),
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx()),
        Request::new(Method::CsNaive, &a, &b).options(timed_opts(2, 3, Kernels::default())),
    )
    .unwrap();
    assert!(out.verdict(&a, &b).passed);
    assert_eq!(out.timings.trials_ms.len(), 3, "{:?}", out.timings);
    assert!(out.timings.trials_ms.iter().all(|&t| t > 0.0));
    assert!(matches!(out.timings.repeats_ms.len(), 0 | 3));

    let (a16, b16) = (
        Matrix::random(16, 16, 7, -1.0, 1.0),
        Matrix::random(16, 16, 8, -1.0, 1.0),
    );
    let layout = |bi, bk, bj| Kernels {
        dns_layout: Some(dns::Layout { bi, bk, bj }),
        ..Default::default()
    };
    let out = plan::multiply(
        Some(ctx()),
        Request::new(Method::DnsNBlocks, &a16, &b16).options(timed_opts(0, 2, layout(8, 8, 1))),
    )
    .unwrap();
    assert!(out.verdict(&a16, &b16).passed);
    assert_eq!(
        out.kernel.variant,
        Some(rendermm::methods::Variant::DnsLayout(dns::Layout {
            bi: 8,
            bk: 8,
            bj: 1
        }))
    );
    assert_eq!(
        out.kernel.variant.map(|v| v.to_string()).as_deref(),
        Some("8x8x1 blocks")
    );
    assert_eq!(out.kernel.method, Method::DnsNBlocks);

    for (opts, says) in [
        (timed_opts(1, 0, Kernels::default()), "0 trials"),
        (timed_opts(0, 1, layout(0, 8, 1)), "empty"),
    ] {
        let e = plan::multiply(
            Some(ctx()),
            Request::new(Method::DnsNBlocks, &a16, &b16).options(opts),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{e}");
    }
}

/// A run's textures are read back through one staging buffer, each copied to a stretch of its
/// own (on WebGL2 every buffer mapped is a synchronous trip to the GPU process: frag-mrt's
/// eight attachments cost one): textures of widths whose rows are not a multiple of 256 bytes,
/// read together with a buffer between them, come back bit for bit, in order, and the textures
/// take one staging buffer between them.
#[test]
fn a_runs_textures_share_one_staging_buffer_and_read_back_bit_for_bit() {
    let _timed = timed();
    use rendermm::gpu::buffer::MatrixBuffer;
    use rendermm::gpu::readback::{Read, read_all};
    use rendermm::gpu::{MatrixTexture, ScalarFormat};
    use rendermm::matrix::Matrix;
    // Its own context, so no other test's staging buffers are made or taken meanwhile.
    let own = rendermm::gpu::GpuContext::new().unwrap();
    let ctx = &own;
    let shapes = [(1, 1), (3, 67), (17, 5), (64, 64), (2, 129)];
    let mats: Vec<Matrix> = shapes
        .iter()
        .enumerate()
        .map(|(i, &(r, c))| Matrix::random(r, c, 40 + i as u64, -1.0, 1.0))
        .collect();
    let textures: Vec<MatrixTexture> = mats
        .iter()
        .map(|m| MatrixTexture::upload(ctx, "read together", m, ScalarFormat::R32Float).unwrap())
        .collect();
    let between = Matrix::random(9, 11, 7, -1.0, 1.0);
    let buffer = MatrixBuffer::upload(ctx, "between", &between).unwrap();
    let mut reads: Vec<Read> = textures.iter().cloned().map(Read::Texture).collect();
    reads.insert(
        2,
        Read::Buffer {
            buffer: buffer.buffer.clone(),
            len: (between.data.len() * 4) as u64,
        },
    );
    let before = ctx.staging.created();
    let (bytes, _) = pollster::block_on(read_all(ctx, &reads)).unwrap();
    let made = ctx.staging.created() - before;
    assert_eq!(bytes.len(), reads.len());
    let mut expected: Vec<&Matrix> = mats.iter().collect();
    expected.insert(2, &between);
    for (i, (got, want)) in bytes.into_iter().zip(expected).enumerate() {
        let got = got.into_f32s();
        let same = got.len() == want.data.len()
            && got
                .iter()
                .zip(&want.data)
                .all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(
            same,
            "read {i} ({}x{}) came back changed",
            want.rows, want.cols
        );
    }
    assert!(
        made <= 2,
        "{made} staging buffers made for five textures and a buffer read together: the textures share one"
    );
}
