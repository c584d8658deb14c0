//! The `rendermm` binary end to end: the acceptance commands of the engine issue, numpy-written
//! files, and every bad-input case (one-line error, non-zero exit, no panic, no partial file).

mod common;
use common::assert_clean_error;
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

// ---- Exit status, help, methods, tour --method, output files, impossible sizes ----

/// `rendermm` with `env` set and `unset` removed from its environment.
fn rendermm_env(args: &[&str], env: &[(&str, &str)], unset: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rendermm"));
    cmd.args(args).env("XDG_RUNTIME_DIR", std::env::temp_dir());
    for (k, v) in env {
        cmd.env(k, v);
    }
    for k in unset {
        cmd.env_remove(k);
    }
    cmd.output().expect("run rendermm")
}

/// No adapter can be found: anything that reaches for the GPU fails with exit status 3, so a
/// different error proves the request was refused before the GPU was touched.
const NO_ADAPTER: (&str, &str) = ("WGPU_ADAPTER_NAME", "no-such-adapter-anywhere");

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The .npy `descr` of a file: `<f4` or `<f8`.
fn npy_descr(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    let header = String::from_utf8_lossy(&bytes[..bytes.len().min(128)]).into_owned();
    let at = header.find("'descr': '").expect("a .npy header") + 10;
    header[at..at + 3].to_string()
}

#[test]
fn exit_status_tells_a_request_mistake_from_the_gpu_from_a_file() {
    let dir = scratch("exit");
    let code = |out: &Output| out.status.code();
    // The user's mistakes: 2 (clap's parser and the command's own checks alike).
    for args in [
        vec!["multiply", "--method", "nope", "--random", "2x2x2"],
        vec!["multiply", "--random", "2x2"],
        vec!["multiply", "--random", "2x2x2", "--channels", "3"],
        vec![
            "multiply",
            "--a",
            &data("numpy_a_f32.npy"),
            "--b",
            &data("numpy_a_f32.npy"),
        ],
        vec!["multiply", "--random", "2x2x2", "--precision", "f64"],
        vec!["multiply", "--random", "2x2x2", "--no-such-flag"],
    ] {
        let out = rendermm(&args);
        assert_eq!(code(&out), Some(2), "{args:?}: {}", stderr(&out));
    }
    // A file problem: 4.
    let missing = dir.join("missing.npy");
    let out = rendermm(&[
        "multiply",
        "--a",
        missing.to_str().unwrap(),
        "--b",
        &data("numpy_b_f64.npy"),
    ]);
    assert_eq!(code(&out), Some(4), "{}", stderr(&out));
    std::fs::write(dir.join("bad.csv"), "1,2\n3\n").unwrap();
    let out = rendermm(&[
        "multiply",
        "--a",
        dir.join("bad.csv").to_str().unwrap(),
        "--b",
        &data("numpy_b_f64.npy"),
    ]);
    assert_eq!(code(&out), Some(4), "{}", stderr(&out));
    // The GPU or its driver: 3.
    let out = rendermm_env(&["multiply", "--random", "2x2x2"], &[NO_ADAPTER], &[]);
    assert_eq!(code(&out), Some(3), "{}", stderr(&out));
    assert_clean_error(&out, "no GPU adapter");
    // Success: 0.
    assert_eq!(code(&rendermm(&["multiply", "--random", "2x2x2"])), Some(0));
}

#[test]
fn help_documents_the_exit_status_and_lists_the_values() {
    let top = stdout(&rendermm(&["--help"]));
    for needle in ["Exit status", "2  a mistake", "3  the GPU", "4  a file"] {
        assert!(top.contains(needle), "no {needle:?} in --help:\n{top}");
    }
    let multiply = stdout(&rendermm(&["multiply", "--help"]));
    for method in rendermm::methods::Method::ALL {
        assert!(
            multiply
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("- {}:", method.name()))),
            "multiply --help does not list {method}:\n{multiply}"
        );
    }
    for value in ["u8", "f16", "f32", "pingpong", "blend", "copy", "f64"] {
        assert!(
            multiply.contains(&format!("- {value}:")),
            "multiply --help does not list {value}:\n{multiply}"
        );
    }
    assert!(multiply.contains("Exit status"), "{multiply}");
    let bench = stdout(&rendermm(&["bench", "--help"]));
    for value in ["oneil", "5kk73", "hall-packed", "cpu-fast"] {
        assert!(
            bench.contains(value),
            "bench --help does not list {value}:\n{bench}"
        );
    }
    let tour = stdout(&rendermm(&["tour", "--help"]));
    assert!(tour.contains("--method"), "{tour}");
}

#[test]
fn methods_lists_every_method_with_its_era_source_and_one_line() {
    let out = rendermm(&["methods"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for &method in rendermm::methods::Method::ALL {
        let info = method.info();
        let at = text
            .lines()
            .position(|l| l.split_whitespace().next() == Some(info.name))
            .unwrap_or_else(|| panic!("no line for {method}:\n{text}"));
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[at].contains(info.summary), "{}", lines[at]);
        assert!(lines[at + 1].contains(info.source), "{}", lines[at + 1]);
        assert!(
            text.contains(info.era.name()),
            "no era {:?}",
            info.era.name()
        );
    }
    let v = json(&rendermm(&["methods", "--json"]));
    let rows = v.as_array().expect("an array");
    assert_eq!(rows.len(), rendermm::methods::Method::ALL.len());
    for (row, &method) in rows.iter().zip(rendermm::methods::Method::ALL) {
        let info = method.info();
        assert_eq!(row["name"], info.name);
        assert_eq!(row["source"], info.source);
        assert_eq!(row["summary"], info.summary);
        assert_eq!(row["era_name"], info.era.name());
    }
}

/// The rows of a tour's table: lines whose first word names a method.
fn tour_rows(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| {
            let first = l.split_whitespace().next();
            rendermm::methods::Method::ALL
                .iter()
                .any(|m| Some(m.name()) == first)
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn tour_method_runs_just_that_method() {
    let dir = scratch("tour-one");
    let out = rendermm(&[
        "tour",
        "--method",
        "cs-naive",
        "--size",
        "9x7x5",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = tour_rows(&stdout(&out));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(
        rows[0].starts_with("cs-naive ") && rows[0].contains(" ok "),
        "{rows:?}"
    );
    assert_clean_error(
        &rendermm(&["tour", "--method", "nosuch", "--size", "9x7x5"]),
        "unknown method",
    );
}

#[test]
fn tour_shows_a_spinner_per_row_on_a_terminal_and_nothing_in_a_pipe() {
    let dir = scratch("tour-spin");
    let exe = env!("CARGO_BIN_EXE_rendermm");
    let args = format!(
        "{exe} tour --method cs-naive --size 9x7x5 --out {}",
        dir.display()
    );
    // Piped: no progress anywhere, no terminal control characters.
    let piped = Command::new("sh")
        .args(["-c", &args])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(piped.status.success(), "{}", stderr(&piped));
    for text in [stdout(&piped), stderr(&piped)] {
        assert!(!text.contains("running cs-naive"), "{text}");
        assert!(!text.contains('\r') && !text.contains('\x1b'), "{text:?}");
    }
    // On a terminal (util-linux `script` gives the command one): the row's spinner.
    let Ok(tty) = Command::new("script")
        .args(["-qec", &args, "/dev/null"])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("TERM", "xterm")
        .output()
    else {
        common::skip("the terminal half: no `script` command");
        return;
    };
    assert!(tty.status.success(), "{}", stdout(&tty));
    let text = stdout(&tty);
    assert!(
        text.contains("running cs-naive"),
        "no spinner on a terminal: {text:?}"
    );
}

#[test]
fn a_read_only_output_is_refused_before_any_work_and_kept() {
    let dir = scratch("readonly");
    let c = dir.join("c.npy");
    std::fs::write(&c, b"keep me").unwrap();
    let mut perm = std::fs::metadata(&c).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&c, perm).unwrap();
    // With no adapter to be had, only a check made before the GPU can give this error.
    let out = rendermm_env(
        &[
            "multiply",
            "--random",
            "3x4x5",
            "--out",
            c.to_str().unwrap(),
        ],
        &[NO_ADAPTER],
        &[],
    );
    assert_clean_error(&out, "read-only");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stdout(&out).is_empty(),
        "a report after a refused write: {}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(&c).unwrap(), b"keep me");
    // The same with the GPU at hand: refused, the file unchanged.
    let out = rendermm(&[
        "multiply",
        "--random",
        "3x4x5",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert_clean_error(&out, "read-only");
    assert_eq!(std::fs::read(&c).unwrap(), b"keep me");
}

#[test]
fn the_output_path_is_checked_before_any_work() {
    let dir = scratch("outcheck");
    let no_dir = dir.join("no/such/dir/c.npy");
    for (out, needle) in [
        (no_dir.to_str().unwrap(), "does not exist"),
        (dir.to_str().unwrap(), "directory"),
    ] {
        let r = rendermm_env(
            &["multiply", "--random", "3x4x5", "--out", out],
            &[NO_ADAPTER],
            &[],
        );
        assert_clean_error(&r, needle);
        assert_eq!(r.status.code(), Some(4), "{}", stderr(&r));
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

#[test]
fn a_failed_write_prints_no_report_and_a_good_one_says_where_c_went() {
    let dir = scratch("writefail");
    let c = dir.join("c.npy");
    // A file size limit of one block: the path passes every check, the write itself fails.
    let out = Command::new("sh")
        .args([
            "-c",
            "ulimit -f 1; trap '' XFSZ; exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_rendermm"),
            "multiply",
            "--random",
            "64x64x64",
            "--out",
            c.to_str().unwrap(),
        ])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert_clean_error(&out, "c.npy");
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stdout(&out).is_empty(),
        "a report after a failed write: {}",
        stdout(&out)
    );
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
    // Success: one line says where C went.
    let out = rendermm(&[
        "multiply",
        "--random",
        "3x4x5",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let wrote: Vec<&str> = text.lines().filter(|l| l.starts_with("wrote")).collect();
    assert_eq!(wrote.len(), 1, "{text}");
    assert!(
        wrote[0].contains(c.to_str().unwrap()) && wrote[0].contains("3x5"),
        "{text}"
    );
    // Beside JSON, on stderr.
    let out = rendermm(&[
        "multiply",
        "--random",
        "3x4x5",
        "--json",
        "--out",
        c.to_str().unwrap(),
    ]);
    json(&out);
    assert!(
        stderr(&out).contains(&format!("wrote C (3x5, float32) to {}", c.display())),
        "{}",
        stderr(&out)
    );
}

#[test]
fn float64_inputs_give_a_float64_npy_unless_asked_otherwise() {
    let dir = scratch("f64out");
    let (a, b) = (data("numpy_a_f32.npy"), data("numpy_b_f64.npy"));
    let c64 = dir.join("c64.npy");
    let v = json(&rendermm(&[
        "multiply",
        "--a",
        &a,
        "--b",
        &b,
        "--out",
        c64.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(npy_descr(&c64), "<f8");
    let notes = v["notes"].to_string();
    assert!(
        notes.contains("computed in float32") && notes.contains("float64"),
        "{notes}"
    );
    let c32 = dir.join("c32.npy");
    let out = rendermm(&[
        "multiply",
        "--a",
        &a,
        "--b",
        &b,
        "--out",
        c32.to_str().unwrap(),
        "--out-dtype",
        "f32",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(npy_descr(&c32), "<f4");
    assert_eq!(read_matrix(&c64).unwrap(), read_matrix(&c32).unwrap());
    // No output file: the report says plainly that C is float32.
    let out = rendermm(&["multiply", "--a", &a, "--b", &b]);
    assert!(
        stdout(&out).contains("C is computed and held in float32"),
        "{}",
        stdout(&out)
    );
    // float32 inputs: float32 out, unless asked.
    let c = dir.join("c.npy");
    let out = rendermm(&[
        "multiply",
        "--random",
        "2x3x4",
        "--out",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    assert_eq!(npy_descr(&c), "<f4");
    let out = rendermm(&[
        "multiply",
        "--random",
        "2x3x4",
        "--out",
        c.to_str().unwrap(),
        "--out-dtype",
        "f64",
    ]);
    assert!(out.status.success());
    assert_eq!(npy_descr(&c), "<f8");
    // A text file has no number type to widen.
    let out = rendermm(&[
        "multiply",
        "--random",
        "2x3x4",
        "--out",
        dir.join("c.csv").to_str().unwrap(),
        "--out-dtype",
        "f64",
    ]);
    assert_clean_error(&out, "text file");
}

#[test]
fn impossible_sizes_are_one_line_errors_naming_the_size_and_the_memory() {
    for (args, size) in [
        (
            vec!["multiply", "--random", "99999999x99999999x2"],
            "99999999x99999999x2",
        ),
        (
            vec![
                "multiply",
                "--random",
                "4x99999999x99999999x2",
                "--channels",
                "4",
            ],
            "4x99999999x99999999x2",
        ),
        (
            vec!["tour", "--size", "99999999x99999999x2"],
            "99999999x99999999x2",
        ),
        (
            vec!["tune", "--m", "99999999", "--k", "99999999", "--n", "2"],
            "--m 99999999",
        ),
        (
            vec!["precision-ladder", "--sizes", "16,99999999"],
            "--sizes 99999999",
        ),
        (vec!["bench", "--sizes", "99999999"], "--sizes 99999999"),
        (
            vec!["reach", "--bench", "--n", "999999999"],
            "--n 999999999",
        ),
    ] {
        let out = rendermm_env(&args, &[NO_ADAPTER], &[]);
        assert_clean_error(&out, size);
        let line = stderr(&out);
        assert!(
            ["PiB", "TiB", "EiB"].iter().any(|u| line.contains(u)),
            "{args:?}: no memory in {line}"
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {line}");
    }
}

#[test]
fn bench_refuses_an_unknown_method_before_measuring_the_ceilings() {
    let out = rendermm(&["bench", "--methods", "lm,nosuch", "--quick"]);
    assert_clean_error(&out, "unknown method 'nosuch'");
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("ceilings"), "{}", stderr(&out));
    let out = rendermm(&["bench", "--suite", "nosuch"]);
    assert_clean_error(&out, "unknown bench suite 'nosuch'");
}

#[test]
fn the_window_demo_without_a_display_says_so_in_one_sentence() {
    let out = rendermm_env(
        &["demo", "lm"],
        &[],
        &["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"],
    );
    assert_clean_error(&out, "no display");
    let text = stderr(&out);
    assert!(!text.contains(".rs:") && !text.contains("winit"), "{text}");
}

#[test]
fn a_mistake_in_the_request_exits_2_and_is_not_called_a_bug() {
    let out = rendermm(&["multiply", "--random", "4x0x4"]);
    assert_clean_error(&out, "every dimension must be at least 1");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stderr(&out);
    assert!(!text.contains("bug in rendermm"), "{text}");
}

#[test]
fn the_help_gives_a_bug_in_rendermm_its_own_exit_status() {
    let out = rendermm(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("70") && l.contains("bug in rendermm")),
        "{text}"
    );
}

#[test]
fn writing_a_matrix_whose_data_does_not_fit_its_shape_is_an_internal_error() {
    use rendermm::error::{Error, Kind};
    // The fields are public, so only code can build this; no file or flag can.
    let m = rendermm::Matrix {
        rows: 2,
        cols: 2,
        data: vec![1.0; 3].into(),
    };
    let path = scratch("internal").join("c.npy");
    let e = rendermm::io::write_matrix(&path, &m).expect_err("a 2x2 matrix with 3 elements");
    assert!(matches!(e, Error::Internal(_)), "{e:?}");
    assert_eq!(e.kind(), Kind::Bug, "{e}");
    assert_eq!(e.kind().exit_status(), 70, "{e}");
    assert!(e.to_string().contains("bug in rendermm"), "{e}");
    assert!(!path.exists(), "nothing is written");
}

/// `/dev/full` opened for writing: every write fails with "No space left on device".
fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

/// A stream that cannot take the output ends the program by the exit-status table, never by a
/// panic (101): standard output full is a file that cannot be written (4), said in one line;
/// help and the version too; an error keeps its own status when standard error is full; a
/// reader that closed the pipe ends it quietly (141, what a shell reports for SIGPIPE).
#[test]
fn a_full_or_closed_stream_ends_by_the_exit_table_not_a_panic() {
    let exe = env!("CARGO_BIN_EXE_rendermm");
    let run = |args: &[&str], stdout_full: bool, stderr_full: bool| {
        let mut cmd = Command::new(exe);
        cmd.args(args).env("XDG_RUNTIME_DIR", std::env::temp_dir());
        if stdout_full {
            cmd.stdout(dev_full());
        }
        if stderr_full {
            cmd.stderr(dev_full());
        }
        cmd.output().expect("run rendermm")
    };
    let dir = scratch("full-stream");
    let c = dir.join("C.npy");
    let c_arg = c.display().to_string();
    let multiply = [
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x4x5",
        "--check",
        "--out",
        &c_arg,
    ];
    for args in [
        &["methods"][..],
        &["methods", "--json"],
        &["--help"],
        &["multiply", "--help"],
        &["--version"],
        &multiply,
    ] {
        let out = run(args, true, false);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(4), "{args:?} > /dev/full: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?} > /dev/full: {err}");
        assert!(
            err.contains("standard output") && err.contains("No space left"),
            "{args:?} > /dev/full: {err}"
        );
    }
    // The product was written whole before its report failed to print.
    assert!(read_matrix(&c).is_ok(), "C.npy after the report's failure");

    // Standard error full: the error's own status, and a run that succeeds still succeeds.
    let out = run(
        &[
            "multiply",
            "--method",
            "no-such-method",
            "--random",
            "2x2x2",
        ],
        false,
        true,
    );
    assert_eq!(out.status.code(), Some(2), "a bad method with 2>/dev/full");
    let out = run(&["multiply", "--no-such-flag"], false, true);
    assert_eq!(out.status.code(), Some(2), "a usage error with 2>/dev/full");
    let out = run(&["methods"], false, true);
    assert_eq!(out.status.code(), Some(0), "methods with 2>/dev/full");

    // A closed pipe: the reader went away before the first line (its end closed before the
    // program starts, so every write meets it closed).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = Command::new(exe)
        .args(["methods", "--json"])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(writer)
        .output()
        .expect("run rendermm");
    assert_eq!(
        out.status.code(),
        Some(141),
        "methods | (closed): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "a closed pipe ends quietly");
    let _ = std::fs::remove_dir_all(dir);
}

/// Knobs and counts that cannot mean anything are refused in one line that names them: a bad
/// `RENDERMM_MEM_BUDGET` names the variable; a bad `--random` shape is quoted as written; `bench --repeats 0` (no timed run) and a
/// `--max-run-s` that is not a number of seconds above 0 (NaN, infinite) are usage errors (2),
/// not a quiet run of one repeat or a limit that never applies.
#[test]
fn meaningless_knobs_and_counts_are_refused_naming_what_was_wrong() {
    let out = rendermm_env(
        &["multiply", "--method", "cpu-naive", "--random", "2x2x2"],
        &[("RENDERMM_MEM_BUDGET", "abc")],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_clean_error(&out, "RENDERMM_MEM_BUDGET");
    // A shape is quoted back as written, the pair count included; a size past the machine's
    // word is "too large", not "not a whole number", and a shape of two sizes says it has two.
    for (shape, says) in [
        ("0x0x0x0", "'0x0x0x0'"),
        ("2x3x0x4", "'2x3x0x4'"),
        (
            "99999999999999999999x4x4",
            "99999999999999999999 is too large a size",
        ),
        ("99999999999x4", "expected three sizes MxKxN, got 2"),
    ] {
        let out = rendermm(&["multiply", "--method", "cpu-naive", "--random", shape]);
        assert_eq!(out.status.code(), Some(2), "{shape}: {}", stderr(&out));
        assert_clean_error(&out, says);
    }
    // A kernel knob is read only by the method that takes it: a bad RENDERMM_FRAG_MRT leaves
    // lm alone and stops frag-mrt, naming the variable.
    let bad = [("RENDERMM_FRAG_MRT", "abc")];
    let out = rendermm_env(
        &["multiply", "--method", "lm", "--random", "3x4x5"],
        &bad,
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = rendermm_env(
        &["multiply", "--method", "frag-mrt", "--random", "3x4x5"],
        &bad,
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_clean_error(&out, "RENDERMM_FRAG_MRT");
    for (flag, value) in [
        ("--repeats", "0"),
        ("--trials", "0"),
        ("--max-run-s", "nan"),
        ("--max-run-s", "inf"),
        ("--max-run-s", "0"),
    ] {
        let out = rendermm(&[
            "bench",
            "--methods",
            "cpu-naive",
            "--sizes",
            "8",
            flag,
            value,
        ]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag} {value}: {}",
            stderr(&out)
        );
        let line = assert_clean_error(&out, value);
        assert!(
            line.contains(flag) || line.contains("--repeats"),
            "{flag} {value}: {line}"
        );
        assert!(
            stdout(&out).is_empty(),
            "{flag} {value} ran: {}",
            stdout(&out)
        );
    }
}

/// `--json` and `--out` on one stream would mix the report and C: refused before the work, in
/// one line naming both, with standard output left empty.
#[test]
fn json_and_out_on_standard_output_are_refused() {
    let out = rendermm(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x2x4",
        "--json",
        "--out",
        "/dev/stdout",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let line = assert_clean_error(&out, "--json");
    assert!(line.contains("/dev/stdout"), "{line}");
    assert!(stdout(&out).is_empty(), "wrote to stdout: {}", stdout(&out));
    // Each alone is fine: C to standard output, or the report.
    let out = rendermm(&[
        "multiply",
        "--method",
        "cpu-naive",
        "--random",
        "3x2x4",
        "--out",
        "/dev/stdout",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}
