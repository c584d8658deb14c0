//! `--allow-nonfinite --check`: the check compares as numpy's `allclose(equal_nan=True)` does —
//! NaN where the f64 reference has NaN, infinities of the same sign — so a right answer with NaN
//! in it passes, and a wrong one still fails.

use std::process::{Command, Output};

fn rendermm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn allow_nonfinite_check_passes_where_nan_matches_the_reference() {
    for method in ["lm", "hall-blocked", "cs-naive", "cpu-naive"] {
        let out = rendermm(&[
            "multiply",
            "--method",
            method,
            "--a",
            &data("numpy_nan.npy"),
            "--b",
            &data("numpy_nan.npy"),
            "--allow-nonfinite",
            "--check",
            "--json",
        ]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{method}: {stderr}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["check_passed"], true, "{method}: {r}");
        assert_eq!(r["checks"][0]["nonfinite"], 0, "{method}: {r}");
    }
}
