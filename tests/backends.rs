//! The render passes on OpenGL as well as Vulkan: the `rendermm` binary with `WGPU_BACKEND=gl`
//! (Mesa's llvmpipe here, the GL of the papers' own API) runs every render-pass method in f32 and
//! passes the f64 check, on awkward shapes; a method that cannot run says why in one line.

use std::process::{Command, Output};

fn rendermm_on(backend: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .env("WGPU_BACKEND", backend)
        .output()
        .expect("run rendermm")
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

/// f32 on GL, checked against the f64 reference at f32's tolerance, for each render-pass method
/// and accumulation mode, on the acceptance shape and on shapes that are 1 wide or prime.
#[test]
fn render_pass_methods_run_in_f32_on_opengl() {
    let cases: &[&[&str]] = &[
        &["--method", "lm"],
        &["--method", "hall-blocked", "--b", "7"],
        &[
            "--method",
            "hall-blocked",
            "--b",
            "7",
            "--accumulate",
            "blend",
        ],
        &[
            "--method",
            "hall-blocked",
            "--b",
            "7",
            "--accumulate",
            "copy",
        ],
        &["--method", "hall-packed", "--b", "5"],
        &["--method", "frag-mrt"],
    ];
    for case in cases {
        for size in ["65x100x37", "1x1x1", "7x13x5"] {
            let mut args = vec![
                "multiply", "--random", size, "--seed", "3", "--check", "--json",
            ];
            args.extend_from_slice(case);
            let r = json(&rendermm_on("gl", &args));
            let what = format!("{case:?} {size}");
            assert_eq!(r["backend"], "Gl", "{what}: ran on {}", r["backend"]);
            assert_eq!(r["precision"], "f32", "{what}: fell back: {}", r["notes"]);
            assert_eq!(r["check_passed"], true, "{what}: {r}");
            assert!(r["rel_err"].as_f64().unwrap() <= 1e-5, "{what}: {r}");
        }
    }
}

/// The compute methods run where the GL adapter offers compute (GL 4.3+; Mesa's is 4.5).
#[test]
fn compute_methods_run_on_opengl() {
    for method in ["cs-naive", "cs-tiled-16", "5kk73-5-unrolled"] {
        let r = json(&rendermm_on(
            "gl",
            &[
                "multiply",
                "--method",
                method,
                "--random",
                "65x100x37",
                "--check",
                "--json",
            ],
        ));
        assert_eq!(r["backend"], "Gl");
        assert_eq!(r["check_passed"], true, "{method}: {r}");
    }
}
