//! Shared test helpers: one GPU context per test binary, and the shapes every method is run on.
#![allow(dead_code)]

use rendermm::GpuContext;
use std::sync::OnceLock;

// The judge with the arithmetic a lower-level call ran (`Arith`, an internal type): apart from
// this file, which tests/api.rs holds to the root's items.
mod hold;
#[allow(unused_imports)] // not every test binary holds results below the entry point
pub use hold::{hold, lm_verdict};

/// One context for the whole test binary (opening lavapipe takes a moment).
pub fn ctx() -> &'static GpuContext {
    static CTX: OnceLock<GpuContext> = OnceLock::new();
    CTX.get_or_init(|| {
        // SAFETY-free: tests run single-process; XDG_RUNTIME_DIR silences a harmless lavapipe line.
        GpuContext::new()
            .unwrap_or_else(|e| panic!("tests need a GPU adapter (lavapipe is fine): {e}"))
    })
}

/// The engine issue's awkward shapes (m, k, n): 1×1, 1×7·7×1, primes, non-multiples of 64, m≠k≠n.
pub const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (1, 7, 1),
    (7, 1, 7),
    (1, 13, 9),
    (7, 13, 5),
    (64, 64, 64),
    (65, 100, 37),
    (257, 31, 129),
    (3, 257, 2),
    (127, 5, 1),
];

/// Run the `rendermm` binary with `args` (XDG_RUNTIME_DIR set, as lavapipe wants).
pub fn rendermm(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

/// A bad input must end in one `error:` line containing `needle` (any case), a non-zero exit and
/// no panic; the line is returned for further checks.
pub fn assert_clean_error(out: &std::process::Output, needle: &str) -> String {
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
    lines[0].to_string()
}

/// A .npy file (format 1.0) of `dict` as its header, padded as numpy pads it, then `data`.
pub fn npy_with_header(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut text = dict.as_bytes().to_vec();
    while !(10 + text.len() + 1).is_multiple_of(64) {
        text.push(b' ');
    }
    text.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(data);
    out
}

/// A u8 result checks the pipeline's rounding only where its elements are neither 0 (every
/// product under half a step) nor saturated: assert that more than half of `c` lies strictly
/// between 0 and `top` (1.0, or k after `--scale-by-depth`'s rescale).
pub fn assert_mostly_between_zero_and_saturation(label: &str, c: &[f32], top: f32) {
    let inside = c.iter().filter(|&&v| v > 0.0 && v < top).count();
    assert!(
        2 * inside > c.len(),
        "{label}: only {inside} of {} elements lie strictly between 0 and saturation ({top}); \
         a u8 test whose elements saturate or round to 0 checks nothing",
        c.len()
    );
}

/// Whether this run is in CI (`CI=true`, as `.ci/run` runs).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Whether the bless variable `var` asks this run to (re)write `golden` instead of comparing
/// with it. A blessed run compares nothing, so it must not read as a pass: it says so on stderr,
/// and in CI it is refused (a panic before anything is written), since there a pass must mean
/// the comparison held.
pub fn blessing(var: &str, golden: &std::path::Path) -> bool {
    let set = std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0");
    if set && in_ci() {
        panic!(
            "{var} is set in CI: a blessed run writes {} and compares nothing; unset it",
            golden.display()
        );
    }
    set
}

/// Say that `golden` was blessed and not compared, and whether blessing changed it: straight to
/// stderr, past the test harness's capture, so a blessed run never reads as a quiet pass.
pub fn report_blessed(golden: &std::path::Path, changed: bool) {
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "BLESSED, NOT COMPARED: wrote {} ({}); look at it before committing",
        golden.display(),
        if changed {
            "it differs from the file before"
        } else {
            "same as the file before"
        }
    );
}

/// Where the tests of a `cargo test` run list what they skipped (`skip`): the harness hides a
/// passing test's output, so a test that could not do its work would otherwise read as passed.
/// `.ci/run` empties it before `cargo test` and prints it after.
pub const SKIPS: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/skipped-tests.txt");

/// Say that the calling test skips `what` (all of itself, or a part) and why: on standard error,
/// and as a line of [`SKIPS`] naming the test, so that the run's summary shows it.
#[track_caller]
pub fn skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let at = std::panic::Location::caller();
    let line = format!("{}:{} {test}: skipped: {why}", at.file(), at.line());
    eprintln!("{line}");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(SKIPS)
    {
        let _ = writeln!(f, "{line}");
    }
}
