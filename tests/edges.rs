//! Edges of the command line a hostile user finds: model counts past u64 (exact, or refused),
//! a backend name that is not one, a precision refusal that tells the truth, node ids past
//! u64, the flag a bad shape came from, a tour where nothing ran, and a failed replot that
//! leaves no folder behind. Each drives the real binary and checks for one clear line.

mod common;
use common::assert_clean_error;
use std::path::PathBuf;
use std::process::{Command, Output};

fn rendermm_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rendermm"));
    c.args(args).env("XDG_RUNTIME_DIR", std::env::temp_dir());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run rendermm")
}

fn rendermm(args: &[&str]) -> Output {
    rendermm_env(args, &[])
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rendermm-edges-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "rendermm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---- The model's counts: exact u128, or refused; never wrapped ----

/// The integer `"key": DIGITS` of a model's JSON, read from the text itself: the JSON holds
/// counts past u64 as plain integers, which a generic JSON value would round to f64.
fn json_count(text: &str, key: &str) -> u128 {
    let pat = format!("\"{key}\": ");
    let at = text
        .find(&pat)
        .unwrap_or_else(|| panic!("no {key} in {text}"))
        + pat.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits
        .parse()
        .unwrap_or_else(|e| panic!("{key}: {digits:?} is not a count ({e}) in {text}"))
}

/// The model of one method at m×k×n (block size 32) as JSON text.
fn model_json(method: &str, (m, k, n): (u128, u128, u128)) -> String {
    let (m, k, n) = (m.to_string(), k.to_string(), n.to_string());
    stdout(&rendermm(&[
        "model", "--method", method, "--m", &m, "--k", &k, "--n", &n, "--b", "32", "--json",
    ]))
}

/// Every count the JSON prints for L-M, Hall's two methods and cs-naive equals the closed form
/// of the model's docs, evaluated here in u128.
fn assert_model_counts_exact(mkn: (u128, u128, u128)) {
    let (m, k, n) = mkn;
    let b = 32u128;

    let lm = model_json("lm", mkn);
    assert_eq!(json_count(&lm, "passes"), k);
    assert_eq!(json_count(&lm, "fragments_per_pass"), m * n);
    assert_eq!(json_count(&lm, "total_bytes"), 16 * m * n * k, "{lm}");
    assert_eq!(json_count(&lm, "total_instructions"), 2 * m * n * k, "{lm}");

    let blocked = model_json("hall-blocked", mkn);
    let p = k.div_ceil(b);
    assert_eq!(json_count(&blocked, "passes"), p);
    assert_eq!(
        json_count(&blocked, "total_bytes"),
        4 * m * n * (2 * k + 2 * p),
        "{blocked}"
    );
    assert_eq!(
        json_count(&blocked, "total_instructions"),
        m * n * (2 * k + 4 * p),
        "{blocked}"
    );

    let packed = model_json("hall-packed", mkn);
    let (m2, k2, n2) = (m.div_ceil(2), k.div_ceil(2), n.div_ceil(2));
    let p = k2.div_ceil(b);
    assert_eq!(json_count(&packed, "fragments_per_pass"), m2 * n2);
    assert_eq!(
        json_count(&packed, "total_bytes"),
        16 * m2 * n2 * (2 * k2 + 2 * p),
        "{packed}"
    );
    assert_eq!(
        json_count(&packed, "total_instructions"),
        m2 * n2 * (3 * k2 + 4 * p),
        "{packed}"
    );

    let naive = model_json("cs-naive", mkn);
    assert_eq!(json_count(&naive, "flops"), 2 * m * k * n, "{naive}");
    assert_eq!(json_count(&naive, "words_read"), 2 * m * n * k, "{naive}");
    assert_eq!(json_count(&naive, "words_written"), m * n, "{naive}");
    assert_eq!(
        json_count(&naive, "global_bytes"),
        4 * (2 * m * n * k + m * n),
        "{naive}"
    );
}

#[test]
fn model_counts_are_exact_at_three_million_cubed() {
    // 16·(3·10⁶)³ = 4.32·10²⁰, past u64 (a u64 count wrapped to 7724886304680312832).
    let s = 3_000_000u128;
    assert!(16 * s * s * s > u64::MAX as u128);
    assert_model_counts_exact((s, s, s));
    // Uneven sides, none a multiple of 2 or of the block.
    assert_model_counts_exact((3_000_001, 2_999_999, 3_000_003));
}

#[test]
fn model_counts_are_exact_at_sides_of_two_to_the_32() {
    // 2³² cubed: every count a multiple of 2⁶⁴, which a u64 count wrapped to 0.
    let s = 1u128 << 32;
    assert_model_counts_exact((s, s, s));
    assert_model_counts_exact((s - 1, s + 1, s));
}

#[test]
fn model_of_every_method_at_sides_no_device_holds_gives_counts_not_a_panic() {
    // Every method with a model (no --method), at sizes where the plans' own arithmetic
    // would overflow: counts for all, no geometry, exit 0.
    let big = (1u128 << 40).to_string();
    for (m, k, n) in [
        ("3000000", "3000000", "3000000"),
        ("4294967296", "4294967296", "4294967296"),
        ("1048576", "1048576", "1048576"),
        ("18446744073709551615", "1", "1"),
        ("1", "18446744073709551615", "1"),
        (big.as_str(), big.as_str(), big.as_str()),
    ] {
        let out = rendermm(&["model", "--m", m, "--k", k, "--n", n, "--json"]);
        let text = stdout(&out);
        let v: serde_json::Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{m}x{k}x{n}: not JSON ({e}): {text}"));
        let rows = v.as_array().unwrap();
        assert!(rows.len() >= 20, "{m}x{k}x{n}: {} rows", rows.len());
        for r in rows {
            let count = r.get("total_bytes").or_else(|| r.get("global_bytes"));
            assert!(
                count.and_then(|c| c.as_f64()).is_some_and(|c| c >= 1.0),
                "{m}x{k}x{n}: {r}"
            );
        }
    }
}

#[test]
fn model_refuses_sides_whose_counts_pass_u128_in_one_line() {
    let max = u64::MAX.to_string();
    for method in ["lm", "cs-naive", "frag-mrt"] {
        let out = rendermm(&[
            "model", "--method", method, "--m", &max, "--k", &max, "--n", &max,
        ]);
        assert_clean_error(&out, "passes 2^128");
        assert_eq!(out.status.code(), Some(2));
    }
    // And without --method: the first method's refusal, not a table of wrapped numbers.
    let out = rendermm(&["model", "--m", &max, "--k", &max, "--n", &max, "--json"]);
    assert_clean_error(&out, "passes 2^128");
    assert!(out.stdout.is_empty());
}

// ---- Small ones ----

#[test]
fn a_backend_name_that_is_not_one_is_named_with_the_backends_there_are() {
    for value in ["nonsense", "vulkan,nonsense"] {
        let out = rendermm_env(&["info"], &[("WGPU_BACKEND", value)]);
        let line = assert_clean_error(&out, "'nonsense' is not a backend");
        for name in ["vulkan", "gl", "metal", "dx12"] {
            assert!(line.contains(name), "{line}");
        }
        assert!(!line.contains("install"), "not a missing driver: {line}");
        assert_eq!(out.status.code(), Some(2), "a usage error: {line}");
    }
    // A real backend, in any case and with spaces, still opens (or says no adapter).
    let out = rendermm_env(&["info"], &[("WGPU_BACKEND", " Vulkan , gl ")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("not a backend"), "{stderr}");
}

#[test]
fn a_precision_refusal_says_truly_what_the_method_computes_in() {
    use rendermm::matrix::Matrix;
    use rendermm::methods::Method;
    use rendermm::plan::{self, Options};
    use rendermm::precision::Precision;
    let (a, b) = (
        Matrix::random(4, 4, 1, -1.0, 1.0),
        Matrix::random(4, 4, 2, -1.0, 1.0),
    );
    let takes: Vec<&str> = Method::ALL
        .iter()
        .filter(|m| m.takes_precision())
        .map(|m| m.name())
        .collect();
    for (method, precision, says) in [
        (
            Method::FragMrtF16,
            Precision::F16,
            "rounds its inputs to f16 itself",
        ),
        (
            Method::Coop,
            Precision::U8,
            "rounds its inputs to f16 itself",
        ),
        (Method::FragMrt, Precision::U8, "computes in f32 only"),
        (Method::CsNaive, Precision::F16, "computes in f32 only"),
    ] {
        let opts = Options {
            precision,
            ..Default::default()
        };
        let e = plan::multiply(
            None,
            plan::Request::new(method, &a, &b).options(opts.clone()),
        )
        .unwrap_err()
        .to_string();
        // Refused before any GPU is asked for, and truthfully: frag-mrt and frag-mrt-f16 are
        // render-pass methods, and frag-mrt-f16's inputs are f16.
        assert!(e.contains(method.name()) && e.contains(says), "{e}");
        assert!(!e.contains("render-pass methods"), "{e}");
        assert!(
            e.contains(&format!("modes of {} only", takes.join(", "))),
            "{e}"
        );
    }
}

/// The command line refuses the same precisions, before reading any input, in the same words:
/// `multiply --method frag-mrt-f16 --precision f16` must not call it other than a render-pass
/// method.
#[test]
fn the_command_lines_precision_refusal_says_the_same_truth() {
    for (method, precision, says) in [
        ("frag-mrt-f16", "f16", "rounds its inputs to f16 itself"),
        ("frag-mrt", "u8", "computes in f32 only"),
        ("cs-naive", "f16", "computes in f32 only"),
    ] {
        let out = rendermm(&[
            "multiply",
            "--method",
            method,
            "--precision",
            precision,
            "--random",
            "4x4x4",
        ]);
        let line = assert_clean_error(&out, says);
        assert!(!line.contains("for the render-pass methods"), "{line}");
        assert!(line.contains("u8 and f16 are modes of lm"), "{line}");
    }
}

#[test]
fn a_node_id_past_u64_is_quoted_as_written() {
    let dir = scratch("node-id");
    for id in [
        "18446744073709551616",
        "18446744073709551615",
        "99999999999999999999999999999",
    ] {
        let g = dir.join("g.txt");
        std::fs::write(&g, format!("0 1\n1 {id}\n")).unwrap();
        let out = rendermm(&["reach", "--graph", g.to_str().unwrap(), "--closure"]);
        let line = assert_clean_error(&out, &format!("node id {id} is out of range"));
        assert!(
            line.contains("line 2") && line.contains("at most"),
            "{line}"
        );
    }
    // Past 40 characters the id is shortened, with its length.
    let long = "7".repeat(300);
    let g = dir.join("long.txt");
    std::fs::write(&g, format!("{long} 0\n")).unwrap();
    let out = rendermm(&["reach", "--graph", g.to_str().unwrap(), "--closure"]);
    let line = assert_clean_error(&out, &format!("node id {}…", &long[..40]));
    assert!(
        line.contains("300 characters") && line.len() < 300,
        "{line}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_size_is_refused_naming_size_not_random() {
    for args in [
        &["bench", "--size", "8"][..],
        &["bench", "--suite", "5kk73", "--size", "8x8"],
        &["bench", "--size", "0x4x4"],
        &["tour", "--size", "8"],
    ] {
        let out = rendermm(args);
        let line = assert_clean_error(&out, "--size '");
        assert!(!line.contains("--random"), "{args:?}: {line}");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A tour of one method the adapter cannot run fails as `multiply` of it does (same exit
/// status, one line); where the adapter runs it, both succeed.
#[test]
fn tour_where_nothing_ran_fails_like_multiply() {
    let dir = scratch("tour-none");
    for method in ["coop", "cs-naive"] {
        let multiply = rendermm(&["multiply", "--method", method, "--random", "9x7x5"]);
        let tour = rendermm(&[
            "tour",
            "--method",
            method,
            "--size",
            "9x7x5",
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert_eq!(
            tour.status.code(),
            multiply.status.code(),
            "{method}: tour {} vs multiply {}",
            String::from_utf8_lossy(&tour.stderr),
            String::from_utf8_lossy(&multiply.stderr)
        );
        if !multiply.status.success() {
            assert_clean_error(&tour, &format!("tour: nothing ran; {method}"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The whole tour succeeds when some methods run and others are skipped (an adapter without
/// tensor cores still tours the rest), and a closing line names exactly the skipped ones.
#[test]
fn tour_of_every_method_succeeds_with_some_skipped_and_names_them() {
    let dir = scratch("tour-all");
    let out = rendermm(&["tour", "--size", "9x7x5", "--out", dir.to_str().unwrap()]);
    let text = stdout(&out);
    let skipped_rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" skipped: "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let summary = text
        .lines()
        .find(|l| l.starts_with("skipped (this adapter cannot run them"));
    match summary {
        None => assert!(
            skipped_rows.is_empty(),
            "{skipped_rows:?} not summed up:\n{text}"
        ),
        Some(line) => {
            let listed: Vec<&str> = line.rsplit(": ").next().unwrap().split(", ").collect();
            assert_eq!(listed, skipped_rows, "{text}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A replot that fails (the file is not a sweep, or is missing) leaves no `--plots` folder,
/// nor the folders `--json` and `--csv` would have gone into; one that works creates them.
#[test]
fn a_failed_replot_leaves_no_folder_behind() {
    let dir = scratch("replot");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{\"rows\": 3}").unwrap();
    let plots = dir.join("new/plots");
    let json = dir.join("j/out.json");
    let csv = dir.join("c/d/out.csv");
    for input in [bad.clone(), dir.join("missing.json")] {
        let out = rendermm(&[
            "bench",
            "--replot",
            input.to_str().unwrap(),
            "--plots",
            plots.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "--csv",
            csv.to_str().unwrap(),
        ]);
        assert_clean_error(&out, input.file_name().unwrap().to_str().unwrap());
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["bad.json"], "{input:?} left folders behind");
    }
    // The folders are still checked before anything is read: a file where a folder must go.
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let out = rendermm(&[
        "bench",
        "--replot",
        bad.to_str().unwrap(),
        "--plots",
        file.join("plots").to_str().unwrap(),
    ]);
    assert_clean_error(&out, "not a directory");
    // A replot that works writes its charts into a new folder.
    let sweep = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/perf/lavapipe-quick.json");
    let out = rendermm(&[
        "bench",
        "--replot",
        sweep,
        "--plots",
        plots.to_str().unwrap(),
    ]);
    stdout(&out);
    assert!(plots.join("gflops-vs-n.png").is_file());
    std::fs::remove_dir_all(&dir).ok();
}
