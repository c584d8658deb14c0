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

mod common;

use rendermm::error::Error;
use rendermm::matrix::Matrix;
use rendermm::methods::Method;
use rendermm::plan::{self, Request};

/// The methods that test A and B as they upload them (no pass of their own first) refuse a NaN
/// or an infinity exactly as the entry point's own scan does for the others: the first one,
/// in A before B, named with its row and column, wherever it lies (the first value, the last,
/// a block boundary of the scanning copy) and at awkward shapes; with `allow_nonfinite` they
/// multiply. coop refuses an input past f16's range in the same place, naming it.
#[test]
fn methods_that_scan_on_upload_refuse_nonfinite_inputs_like_the_entry_point() {
    let ctx = common::ctx();
    let scanned: Vec<Method> = Method::ALL
        .iter()
        .copied()
        .filter(|m| m.scans_inputs_on_upload())
        .collect();
    for m in [
        Method::CsFast,
        Method::Coop,
        Method::CsNaive,
        Method::CsTiled16,
    ] {
        assert!(scanned.contains(&m), "{m} should scan on upload");
    }
    // lm scans first, as every render-pass method: the same words either way.
    let coop = rendermm::methods::coop::supported(ctx).is_ok();
    if !coop {
        common::skip(
            "coop's refusals of non-finite and out-of-range inputs: the adapter has no cooperative matrices",
        );
    }
    let methods: Vec<Method> = [Method::CsFast, Method::Coop, Method::CsNaive, Method::Lm]
        .into_iter()
        .filter(|&m| m != Method::Coop || coop)
        .collect();
    for &(m, k, n) in &[(1, 1, 1), (7, 13, 5), (67, 4099, 3)] {
        let a = Matrix::random(m, k, 11, -1.0, 1.0);
        let b = Matrix::random(k, n, 12, -1.0, 1.0);
        let last = m * k - 1;
        for &method in &methods {
            if method == Method::Lm && k > 1000 {
                continue; // lm's passes over k = 4099 add time and nothing to this test
            }
            for (at, bad) in [
                (0, f32::NAN),
                (last, f32::INFINITY),
                (last / 2, f32::NEG_INFINITY),
            ] {
                let mut x = a.clone();
                x.data[at] = bad;
                let mut y = b.clone();
                let end = y.data.len() - 1;
                y.data[end] = f32::NAN; // in B too: A's is named first
                let e = plan::multiply(Some(ctx), Request::new(method, &x, &y))
                    .err()
                    .unwrap_or_else(|| panic!("{method} {m}x{k}x{n}: {bad} in A not refused"));
                match e {
                    Error::NonFinite { name, row, col, .. } => assert_eq!(
                        (name.as_str(), row, col),
                        ("A", at / k, at % k),
                        "{method} {m}x{k}x{n}"
                    ),
                    e => panic!("{method} {m}x{k}x{n}: {e}"),
                }
                // Only B's: named in B.
                let e = plan::multiply(Some(ctx), Request::new(method, &a, &y))
                    .err()
                    .unwrap_or_else(|| panic!("{method}: NaN in B not refused"));
                assert!(
                    matches!(&e, Error::NonFinite { name, row, col, .. }
                        if name == "B" && (*row, *col) == (k - 1, n - 1)),
                    "{method} {m}x{k}x{n}: {e}"
                );
            }
            // Allowed: a product, NaN where numpy has it.
            let mut x = a.clone();
            x.data[0] = f32::NAN;
            let mut req = Request::new(method, &x, &b);
            req.options.allow_nonfinite = true;
            let out = plan::multiply(Some(ctx), req)
                .unwrap_or_else(|e| panic!("{method} {m}x{k}x{n} allowed NaN: {e}"));
            assert!(out.c.get(0, 0).is_nan(), "{method}: row 0 takes the NaN");
            if m > 1 {
                assert!(out.c.get(1, 0).is_finite(), "{method}: row 1 does not");
            }
        }
        // coop: past f16's range is refused where it lies, in A and in B.
        for (in_a, at) in [(true, 0), (false, k * n - 1)].into_iter().filter(|_| coop) {
            let (mut x, mut y) = (a.clone(), b.clone());
            let (t, cols) = if in_a { (&mut x, k) } else { (&mut y, n) };
            t.data[at] = 70000.0;
            let e = plan::multiply(Some(ctx), Request::new(Method::Coop, &x, &y))
                .err()
                .expect("70000 is past f16");
            assert!(
                matches!(&e, Error::OutOfRange { name, row, col, .. }
                    if name == if in_a { "A" } else { "B" } && (*row, *col) == (at / cols, at % cols)),
                "coop {m}x{k}x{n}: {e}"
            );
        }
    }
}
