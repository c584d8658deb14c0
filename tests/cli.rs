//! The `rendermm` binary end to end: the acceptance commands of the engine issue, numpy-written
//! files, and every bad-input case (one-line error, non-zero exit, no panic, no partial file).

use rendermm::check::compare;
use rendermm::io::read_matrix;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rendermm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rendermm-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "rendermm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// A bad input must end in a one-line `error:` message containing `needle`, a non-zero exit and
/// no panic.
fn assert_clean_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "expected failure, got success; stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(lines.len(), 1, "expected one error line: {stderr}");
    assert!(
        lines[0].to_lowercase().contains(&needle.to_lowercase()),
        "error line {:?} does not mention {needle:?}",
        lines[0]
    );
}

#[test]
fn multiply_lm_random_65x100x37_reports_100_passes_and_small_rel_err() {
    let v = json(&rendermm(&[
        "multiply",
        "--method",
        "lm",
        "--random",
        "65x100x37",
        "--seed",
        "3",
        "--check",
        "--json",
    ]));
    assert_eq!(v["passes"], 100);
    assert_eq!(
        (v["m"].as_u64(), v["k"].as_u64(), v["n"].as_u64()),
        (Some(65), Some(100), Some(37))
    );
    let rel = v["rel_err"].as_f64().unwrap();
    assert!(rel <= 1e-5, "rel_err {rel}");
    for key in [
        "method",
        "precision",
        "adapter",
        "backend",
        "upload_ms",
        "compute_ms",
        "readback_ms",
        "total_ms",
        "gflops",
        "max_abs_err",
    ] {
        assert!(!v[key].is_null(), "JSON lacks {key}: {v}");
    }
}

#[test]
fn multiply_lm_numpy_files_gives_numpys_product_as_npy() {
    let dir = scratch("numpy");
    let out = dir.join("c.npy");
    let v = json(&rendermm(&[
        "multiply",
        "--method",
        "lm",
        "--a",
        &data("numpy_a_f32.npy"),
        "--b",
        &data("numpy_b_f64.npy"),
        "--out",
        out.to_str().unwrap(),
        "--check",
        "--json",
    ]));
    assert!(v["rel_err"].as_f64().unwrap() <= 1e-5);
    let c = read_matrix(&out).unwrap();
    let numpy_c = read_matrix(Path::new(&data("numpy_c_f64.npy"))).unwrap();
    assert_eq!(c.shape(), (7, 5));
    let numpy_ref: Vec<f64> = numpy_c.data.iter().map(|&x| x as f64).collect();
    let s = compare(&c, &numpy_ref);
    assert!(s.within(1e-5), "vs numpy: {s:?}");
}

#[test]
fn csv_and_matrix_market_inputs_and_outputs_work() {
    let dir = scratch("formats");
    std::fs::write(dir.join("a.csv"), "1, 2\n3, 4\n5, 6\n").unwrap();
    std::fs::write(
        dir.join("b.mtx"),
        "%%MatrixMarket matrix coordinate real general\n% identity-ish\n2 3 3\n1 1 1.0\n2 2 2.0\n1 3 -1\n",
    )
    .unwrap();
    let out = dir.join("c.mtx");
    let v = json(&rendermm(&[
        "multiply",
        "--a",
        dir.join("a.csv").to_str().unwrap(),
        "--b",
        dir.join("b.mtx").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--check",
        "--json",
    ]));
    assert_eq!(v["passes"], 2);
    let c = read_matrix(&out).unwrap();
    assert_eq!(
        c.data,
        vec![1.0, 4.0, -1.0, 3.0, 8.0, -3.0, 5.0, 12.0, -5.0]
    );
}

#[test]
fn shape_mismatch_is_a_clear_error() {
    let out = rendermm(&[
        "multiply",
        "--a",
        &data("numpy_a_f32.npy"),
        "--b",
        &data("numpy_a_f32.npy"),
    ]);
    assert_clean_error(&out, "shape mismatch");
}

#[test]
fn empty_matrix_is_a_clear_error() {
    let dir = scratch("empty");
    std::fs::write(dir.join("e.csv"), "").unwrap();
    let out = rendermm(&[
        "multiply",
        "--a",
        dir.join("e.csv").to_str().unwrap(),
        "--b",
        &data("numpy_b_f64.npy"),
    ]);
    assert_clean_error(&out, "empty");
    let out = rendermm(&["multiply", "--random", "0x3x4"]);
    assert_clean_error(&out, "at least 1");
}

#[test]
fn nan_input_is_refused_with_its_position_unless_allowed() {
    let out = rendermm(&[
        "multiply",
        "--a",
        &data("numpy_nan.npy"),
        "--b",
        &data("numpy_nan.npy"),
    ]);
    assert_clean_error(&out, "row 1, column 0");
    let out = rendermm(&[
        "multiply",
        "--a",
        &data("numpy_nan.npy"),
        "--b",
        &data("numpy_nan.npy"),
        "--allow-nonfinite",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn unsupported_dtype_and_layouts_are_clear_errors() {
    let b = data("numpy_b_f64.npy");
    assert_clean_error(
        &rendermm(&["multiply", "--a", &data("numpy_int64.npy"), "--b", &b]),
        "dtype",
    );
    assert_clean_error(
        &rendermm(&["multiply", "--a", &data("numpy_3d.npy"), "--b", &b]),
        "2-D",
    );
    assert_clean_error(
        &rendermm(&["multiply", "--a", &data("numpy_fortran.npy"), "--b", &b]),
        "Fortran",
    );
}

#[test]
fn malformed_missing_and_unknown_files_are_clear_errors() {
    let dir = scratch("malformed");
    std::fs::write(dir.join("bad.npy"), b"\x93NUMPY\x01\x00garbage").unwrap();
    std::fs::write(dir.join("bad.csv"), "1,2\n3\n").unwrap();
    std::fs::write(dir.join("bad.mtx"), "not a matrix market file\n").unwrap();
    std::fs::write(dir.join("x.txt"), "1").unwrap();
    let b = data("numpy_b_f64.npy");
    for (file, needle) in [
        ("bad.npy", "bad.npy"),
        ("bad.csv", "line 2"),
        ("bad.mtx", "MatrixMarket"),
        ("x.txt", "extension"),
        ("missing.npy", "missing.npy"),
    ] {
        let out = rendermm(&[
            "multiply",
            "--a",
            dir.join(file).to_str().unwrap(),
            "--b",
            &b,
        ]);
        assert_clean_error(&out, needle);
    }
}

#[test]
fn bad_arguments_are_clear_errors() {
    assert_clean_error(
        &rendermm(&["multiply", "--method", "nope", "--random", "2x2x2"]),
        "unknown method",
    );
    assert_clean_error(&rendermm(&["multiply", "--random", "2x2"]), "MxKxN");
    assert_clean_error(&rendermm(&["multiply"]), "--random");
}

#[test]
fn a_failed_write_leaves_no_partial_file() {
    let dir = scratch("nopartial");
    // Unknown output extension: refused, nothing written.
    let out = rendermm(&[
        "multiply",
        "--random",
        "3x4x5",
        "--out",
        dir.join("c.bin").to_str().unwrap(),
    ]);
    assert_clean_error(&out, "extension");
    // Output into a directory that does not exist: refused, nothing written anywhere.
    let out = rendermm(&[
        "multiply",
        "--random",
        "3x4x5",
        "--out",
        dir.join("no/such/dir/c.npy").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn info_names_the_adapter_and_backend() {
    let out = rendermm(&["info", "--json"]);
    let v = json(&out);
    assert!(v["adapter"]["name"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(v["limits"]["max_texture_dimension_2d"].as_u64().unwrap() >= 2048);
}

#[test]
fn missing_adapter_error_names_the_lavapipe_package() {
    let out = Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(["multiply", "--random", "2x2x2"])
        .env("WGPU_ADAPTER_NAME", "no-such-adapter-anywhere")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert_clean_error(&out, "mesa-vulkan-drivers");
}

#[test]
fn tour_checks_every_method_and_writes_its_pictures() {
    let dir = scratch("tour");
    let out = rendermm(&["tour", "--size", "9x7x5", "--out", dir.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for method in rendermm::methods::Method::ALL {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(method.name()))
            .unwrap_or_else(|| panic!("no row for {method}:\n{stdout}"));
        assert!(row.contains(" ok ") || row.contains("skipped: "), "{row}");
    }
    for file in [
        "tour-lm.png",
        "lm-fig2.png",
        "hall-packing.png",
        "reach-example.png",
        "demo-lm.gif",
    ] {
        let meta = std::fs::metadata(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(meta.len() > 100, "{file} is nearly empty");
    }
}
