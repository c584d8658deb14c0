//! `rendermm check` (the judge on a product made anywhere) and `multiply --check [exact|model]`:
//! a product written by `multiply --out` passes, one changed element or an all-zero C fails
//! (status 1) naming where, a C of the wrong shape is a refused request (status 2, one line), and
//! a saturating u8 product passes when held to its pipeline's model and passes the default,
//! exact check exactly when it is close to the exact product.

mod common;
use common::{assert_clean_error, rendermm};
use rendermm::io::{read_matrix, write_matrix};
use rendermm::matrix::Matrix;
use std::path::{Path, PathBuf};
use std::process::Output;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rendermm-check-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn both(out: &Output) -> String {
    format!("{}{}", stdout(out), String::from_utf8_lossy(&out.stderr))
}

/// The JSON a run printed, whatever its status (a failed check prints its report too).
fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", both(out)))
}

/// A (m×k) and B (k×n) in `dir` as .npy files, uniform in [lo, hi).
fn inputs(dir: &Path, (m, k, n): (usize, usize, usize), lo: f32, hi: f32) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("A.npy"), dir.join("B.npy"));
    write_matrix(&a, &Matrix::random(m, k, 11, lo, hi)).unwrap();
    write_matrix(&b, &Matrix::random(k, n, 12, lo, hi)).unwrap();
    (a, b)
}

/// C = A·B by `multiply --method lm` (with `extra` flags), written to `dir/C.npy`.
fn multiply_out(dir: &Path, a: &Path, b: &Path, extra: &[&str]) -> PathBuf {
    let c = dir.join("C.npy");
    let mut args = vec![
        "multiply",
        "--method",
        "lm",
        "--a",
        s(a),
        "--b",
        s(b),
        "--out",
        s(&c),
    ];
    args.extend_from_slice(extra);
    let out = rendermm(&args);
    assert!(out.status.success(), "{}", both(&out));
    c
}

#[test]
fn check_passes_a_product_written_by_multiply_out() {
    let dir = scratch("pass");
    let (a, b) = inputs(&dir, (33, 40, 17), -1.0, 1.0);
    let c = multiply_out(&dir, &a, &b, &[]);
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&c)]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let text = stdout(&out);
    assert!(
        text.contains("check     ok: ") && text.contains("close to the exact product"),
        "{text}"
    );
    // The same verdict as JSON: the verdict's fields on top, the shape beside them.
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&c), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let v = json(&out);
    assert_eq!(
        (v["m"].as_u64(), v["k"].as_u64(), v["n"].as_u64()),
        (Some(33), Some(40), Some(17))
    );
    assert_eq!(v["passed"], true, "{v}");
    assert_eq!(v["close"], true, "{v}");
    assert_eq!(v["model_passed"], true, "{v}");
    assert_eq!(v["held_to"], "exact", "{v}");
    assert!(v["method"].is_null(), "{v}");
    // A CSV of the same C passes as well: any reader multiply's --a takes.
    let csv = dir.join("C.csv");
    write_matrix(&csv, &read_matrix(&c).unwrap()).unwrap();
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&csv)]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}

#[test]
fn check_fails_a_product_with_one_element_changed_and_names_it() {
    let dir = scratch("one");
    let (a, b) = inputs(&dir, (20, 30, 10), -1.0, 1.0);
    let c = multiply_out(&dir, &a, &b, &[]);
    let mut wrong = read_matrix(&c).unwrap();
    let (i, j) = (7, 3);
    let was = wrong.get(i, j);
    wrong.set(i, j, was + 1e-3);
    let bad = dir.join("C-wrong.npy");
    write_matrix(&bad, &wrong).unwrap();
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let line = assert_clean_error(&out, "check failed");
    assert!(line.contains("rel_err"), "{line}");
    let text = stdout(&out);
    assert!(text.contains("check     FAILED: "), "{text}");
    assert!(
        text.contains(&format!("worst     row {i}, column {j} (0-based)")),
        "the check names the changed element: {text}"
    );
    let out = rendermm(&[
        "check",
        "--a",
        s(&a),
        "--b",
        s(&b),
        "--c",
        s(&bad),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let v = json(&out);
    assert_eq!(v["passed"], false, "{v}");
    assert_eq!(
        (v["worst"]["row"].as_u64(), v["worst"]["column"].as_u64()),
        (Some(i as u64), Some(j as u64)),
        "{v}"
    );
    let (cij, exact) = (
        v["worst"]["c"].as_f64().unwrap(),
        v["worst"]["exact"].as_f64().unwrap(),
    );
    assert!(
        (cij - exact - 1e-3).abs() < 1e-5,
        "C {cij} vs exact {exact}"
    );
}

#[test]
fn check_fails_an_all_zero_product() {
    let dir = scratch("zero");
    let (a, b) = inputs(&dir, (9, 12, 5), -1.0, 1.0);
    let zero = dir.join("Z.csv");
    write_matrix(&zero, &Matrix::zeros(9, 5)).unwrap();
    let out = rendermm(&[
        "check",
        "--a",
        s(&a),
        "--b",
        s(&b),
        "--c",
        s(&zero),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let v = json(&out);
    assert_eq!(v["passed"], false, "{v}");
    assert_eq!(v["close"], false, "{v}");
    assert!((v["rel_err"].as_f64().unwrap() - 1.0).abs() < 1e-12, "{v}");
    // Held to the model it fails as well: for f32 the model is the exact product.
    let out = rendermm(&[
        "check",
        "--a",
        s(&a),
        "--b",
        s(&b),
        "--c",
        s(&zero),
        "--check",
        "model",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(
        stdout(&out).contains("check     FAILED (held to the pipeline's model): "),
        "{}",
        both(&out)
    );
}

#[test]
fn check_refuses_shapes_that_do_not_fit_in_one_line() {
    let dir = scratch("shape");
    let (a, b) = inputs(&dir, (4, 6, 3), -1.0, 1.0);
    let c = dir.join("C.csv");
    write_matrix(&c, &Matrix::zeros(3, 4)).unwrap();
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&c)]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let line = assert_clean_error(&out, "C is 3x4 but A·B is 4x3");
    assert!(
        stdout(&out).is_empty(),
        "a refused request prints no verdict: {}",
        both(&out)
    );
    assert!(line.contains("A 4x6, B 6x3"), "{line}");
    // A and B that do not multiply: 2, naming both shapes.
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&a), "--c", s(&c)]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert_clean_error(&out, "A is 4x6 and B is 4x6");
    // A missing file: one line, the file status of the exit table (as multiply's --a).
    let missing = dir.join("nowhere.npy");
    let out = rendermm(&["check", "--a", s(&a), "--b", s(&b), "--c", s(&missing)]);
    assert_eq!(out.status.code(), Some(4), "{}", both(&out));
    assert_clean_error(&out, "nowhere.npy");
    // Arithmetic that needs a method, and an unknown hold: 2, one line each.
    let out = rendermm(&[
        "check",
        "--a",
        s(&a),
        "--b",
        s(&b),
        "--c",
        s(&c),
        "--precision",
        "u8",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert_clean_error(&out, "--method");
    let out = rendermm(&[
        "check",
        "--a",
        s(&a),
        "--b",
        s(&b),
        "--c",
        s(&c),
        "--hold",
        "nearly",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert_clean_error(&out, "'nearly' is neither 'exact'");
}

#[test]
fn multiply_check_takes_exact_or_model_and_refuses_anything_else_in_one_line() {
    for args in [
        &["--check"][..],
        &["--check", "--json"],
        &["--check", "exact", "--json"],
        &["--check", "model", "--json"],
        &["--json", "--check"],
    ] {
        let mut all = vec!["multiply", "--method", "cpu-naive", "--random", "5x6x7"];
        all.extend_from_slice(args);
        let out = rendermm(&all);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", both(&out));
        if args.contains(&"--json") {
            let v = json(&out);
            let hold = if args.contains(&"model") {
                "model"
            } else {
                "exact"
            };
            assert_eq!(v["held_to"], hold, "{args:?}: {v}");
            assert_eq!(v["check_passed"], true, "{args:?}: {v}");
            for key in ["close", "closeness", "model_passed"] {
                assert!(!v[key].is_null(), "{args:?}: the report lacks {key}: {v}");
            }
        } else {
            assert!(
                stdout(&out).contains("check     ok: close to the exact product"),
                "{}",
                both(&out)
            );
        }
    }
    let out = rendermm(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "5x6x7",
        "--check",
        "nearly",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert_clean_error(&out, "'nearly' is neither 'exact'");
}

/// The README's saturating u8 run: 64×4×64 in [0, √(2/4)) saturates about 2% of the elements.
const SATURATING: [&str; 8] = [
    "multiply",
    "--method",
    "lm",
    "--precision",
    "u8",
    "--random",
    "64x4x64",
    "--check",
];

#[test]
fn check_model_passes_a_saturating_u8_product_and_says_how_far_off_it_is() {
    let mut args = SATURATING.to_vec();
    args.push("model");
    let out = rendermm(&args);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("check     "))
        .unwrap_or_else(|| panic!("no check line: {text}"));
    assert!(
        line.starts_with("check     ok (held to the pipeline's model): "),
        "{line}"
    );
    assert!(
        line.contains("off the exact product") || line.contains("close to the exact product"),
        "the check line says how far C is from the exact product: {line}"
    );
    args.push("--json");
    let v = json(&rendermm(&args));
    assert_eq!(v["held_to"], "model", "{v}");
    assert_eq!(v["check_passed"], true, "{v}");
    assert_eq!(v["model_passed"], true, "{v}");
    assert!(
        v["saturated"].as_u64().unwrap() > 0,
        "the run saturates: {v}"
    );
}

#[test]
fn the_default_check_of_a_saturating_u8_product_passes_exactly_when_it_is_close() {
    for json_too in [false, true] {
        let mut args = SATURATING.to_vec();
        let out = rendermm(&args);
        args.push("--json");
        let jout = rendermm(&args);
        let v = json(&jout);
        assert_eq!(v["held_to"], "exact", "{v}");
        assert_eq!(
            v["model_passed"], true,
            "the GPU computes what the 8-bit pipeline must: {v}"
        );
        let close = v["close"]
            .as_bool()
            .expect("the report says whether C is close");
        assert_eq!(
            v["check_passed"], close,
            "held to the exact product, passed is close: {v}"
        );
        let run = if json_too { &jout } else { &out };
        assert_eq!(
            run.status.code(),
            Some(if close { 0 } else { 1 }),
            "exit status 0 iff close: {}",
            both(run)
        );
        if !close {
            assert_clean_error(run, "check failed");
        }
        if !json_too {
            let want = if close {
                "check     ok: "
            } else {
                "check     FAILED: "
            };
            assert!(stdout(run).contains(want), "{}", both(run));
        }
    }
}

#[test]
fn check_holds_a_u8_product_to_the_pipeline_named() {
    // Inputs in [0, √(2/k)), as multiply --random draws them in u8: most sums below 1.0.
    let dir = scratch("u8");
    let k = 8;
    let (a, b) = inputs(&dir, (24, k, 20), 0.0, (2.0 / k as f32).sqrt());
    let c = multiply_out(&dir, &a, &b, &["--precision", "u8"]);
    let judge = |extra: &[&str]| {
        let mut args = vec!["check", "--a", s(&a), "--b", s(&b), "--c", s(&c), "--json"];
        args.extend_from_slice(extra);
        let out = rendermm(&args);
        (out.status.code(), json(&out))
    };
    // Held to the L-M u8 pipeline's model: equal to it.
    let (code, v) = judge(&["--method", "lm", "--precision", "u8", "--check", "model"]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(
        (v["passed"].as_bool(), v["model_passed"].as_bool()),
        (Some(true), Some(true)),
        "{v}"
    );
    assert_eq!(v["method"], "lm", "{v}");
    assert!(v["u8_model"].is_object(), "{v}");
    // Held to the exact product as well: passes exactly when close.
    let (code, v) = judge(&["--method", "lm", "--precision", "u8"]);
    let close = v["close"].as_bool().unwrap();
    assert_eq!(v["passed"].as_bool(), Some(close), "{v}");
    assert_eq!(code, Some(if close { 0 } else { 1 }), "{v}");
    // As f32 arithmetic (no method), the 8-bit rounding is far past f32's bound.
    let (code, v) = judge(&[]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["model_passed"], false, "{v}");
    // The same pipeline with the wrong widths is another model, and C is not equal to it.
    let (code, v) = judge(&[
        "--method",
        "lm",
        "--precision",
        "u8",
        "--u8-product-bits",
        "16",
        "--u8-sum-bits",
        "16",
        "--check",
        "model",
    ]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["model_passed"], false, "{v}");
}
