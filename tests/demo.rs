//! The demos: headless frames of a fixed 8×8×8 problem compared with reference PNGs in
//! `tests/reference/` (on a mismatch `NAME-actual.png` and `NAME-difference.png` are written
//! beside the reference), the shown textures holding what the method rendered, and the real window
//! under Xvfb rendering frames, saving a screenshot and exiting by itself.
//!
//! Regenerate the references after an intended change of the pictures with
//! `RENDERMM_UPDATE_REFERENCE=1 cargo test --test demo`, and look at them before committing. Such
//! a run writes the references and compares nothing (it says so on stderr); in CI it fails.

mod common;

use image::{Rgba, RgbaImage};
use rendermm::demo::headless::run_frames;
use rendermm::demo::layout::{self, Look, Rect, View};
use rendermm::demo::render::Renderer;
use rendermm::demo::state::{DemoState, Scales};
use rendermm::demo::stepper::Progress;
use rendermm::demo::{Inputs, Kind, Settings};
use rendermm::gpu::GpuContext;
use rendermm::gpu::readback::blocking::read_texture_bytes;
use rendermm::matrix::Matrix;
use rendermm::precision::Precision;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// Frames of the reference images: small, so the PNGs stay small; text at 1 pixel per font pixel.
const SIZE: (u32, u32) = (640, 300);

fn ctx() -> Arc<GpuContext> {
    static CTX: OnceLock<Arc<GpuContext>> = OnceLock::new();
    CTX.get_or_init(|| {
        Arc::new(
            GpuContext::new()
                .unwrap_or_else(|e| panic!("tests need a GPU adapter (lavapipe is fine): {e}")),
        )
    })
    .clone()
}

/// The fixed problem: 8×8 patterns in [-1, 1] (or [0, 5/8] for u8) that need no random
/// generator, so the pictures do not change with the `rand` crate. For u8 the range keeps most of
/// C's sums under 1.0, so the 8-bit rounding is checked on them; the few past it saturate white,
/// as in the paper.
fn inputs(precision: Precision) -> Inputs {
    let (lo, span) = if precision == Precision::U8 {
        (0.0, U8_SPAN)
    } else {
        (-1.0, 2.0)
    };
    let a = Matrix::from_fn(8, 8, |i, j| {
        lo + span * ((i * 7 + j * 3) % 11) as f32 / 10.0
    });
    let b = Matrix::from_fn(8, 8, |i, j| {
        lo + span * ((i * 5 + j * 2 + 3) % 9) as f32 / 8.0
    });
    Inputs::given(a, b, "pattern A", "pattern B").unwrap()
}

/// The top of the u8 pattern's range.
const U8_SPAN: f32 = 0.625;

fn state(kind: Kind, precision: Precision) -> DemoState {
    let settings = Settings {
        kind,
        precision,
        block: None,
        scale_by_depth: false,
    };
    DemoState::new(ctx(), settings, inputs(precision)).unwrap()
}

/// Step `kind` through all passes and return the frames after the passes in `wanted`.
fn frames(kind: Kind, precision: Precision, wanted: &[usize]) -> Vec<(usize, RgbaImage)> {
    frames_and_state(kind, precision, wanted).0
}

/// [`frames`], and the finished demo.
fn frames_and_state(
    kind: Kind,
    precision: Precision,
    wanted: &[usize],
) -> (Vec<(usize, RgbaImage)>, DemoState) {
    let mut s = state(kind, precision);
    let mut r = Renderer::new(&ctx()).unwrap();
    let mut out = vec![];
    run_frames(
        &mut s,
        &mut r,
        SIZE,
        true,
        false,
        1,
        |p| wanted.contains(&p),
        |shot| {
            out.push((shot.pass, shot.image));
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(
        *s.progress(),
        Progress::Done,
        "{kind}: the run did not finish"
    );
    assert!(
        s.verdict().unwrap().passed,
        "{kind}: the result is outside its tolerance"
    );
    (out, s)
}

/// Set to 1 to rewrite the reference PNGs from this run (a blessed run compares nothing).
const UPDATE_REFERENCE: &str = "RENDERMM_UPDATE_REFERENCE";

fn reference_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

/// Compare `img` with `tests/reference/NAME.png`: at most 0.5 % of the pixels may differ by more
/// than 24 in a channel (rasterizers may round a cell edge differently), and the mean difference
/// must stay under 1.5. On a mismatch, write NAME-actual.png and NAME-difference.png beside it.
fn compare_with_reference(name: &str, img: &RgbaImage) {
    let dir = reference_dir();
    let reference = dir.join(format!("{name}.png"));
    if common::blessing(UPDATE_REFERENCE, &reference) {
        std::fs::create_dir_all(&dir).unwrap();
        let before = std::fs::read(&reference).ok();
        image::DynamicImage::ImageRgba8(img.clone())
            .to_rgb8()
            .save(&reference)
            .unwrap();
        common::report_blessed(&reference, std::fs::read(&reference).ok() != before);
        return;
    }
    let expected = image::open(&reference)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; make it with RENDERMM_UPDATE_REFERENCE=1 cargo test --test demo",
                reference.display()
            )
        })
        .to_rgba8();
    let write_failure = |diff: Option<&RgbaImage>| {
        let actual = dir.join(format!("{name}-actual.png"));
        img.save(&actual).unwrap();
        if let Some(d) = diff {
            d.save(dir.join(format!("{name}-difference.png"))).unwrap();
        }
        actual
    };
    if expected.dimensions() != img.dimensions() {
        let actual = write_failure(None);
        panic!(
            "{name}: frame is {:?}, reference {:?}; wrote {}",
            img.dimensions(),
            expected.dimensions(),
            actual.display()
        );
    }
    let mut diff = RgbaImage::new(img.width(), img.height());
    let (mut big, mut sum) = (0usize, 0f64);
    for (x, y, px) in img.enumerate_pixels() {
        let e = expected.get_pixel(x, y);
        let d = (0..3)
            .map(|c| (px[c] as i32 - e[c] as i32).unsigned_abs())
            .max()
            .unwrap();
        sum += d as f64;
        if d > 24 {
            big += 1;
        }
        let v = (d * 4).min(255) as u8;
        diff.put_pixel(x, y, Rgba([v, v, v, 255]));
    }
    let n = (img.width() * img.height()) as f64;
    let (share, mean) = (big as f64 / n, sum / n);
    if share > 0.005 || mean > 1.5 {
        let actual = write_failure(Some(&diff));
        panic!(
            "{name}: differs from {}: {:.3} % of pixels off by more than 24, mean difference {mean:.2}; wrote {} and {name}-difference.png",
            reference.display(),
            share * 100.0,
            actual.display()
        );
    }
}

#[test]
fn headless_lm_frames_match_the_reference_pngs() {
    let shots = frames(Kind::Lm, Precision::F32, &[1, 4, 8]);
    assert_eq!(shots.iter().map(|s| s.0).collect::<Vec<_>>(), [1, 4, 8]);
    for (pass, img) in &shots {
        compare_with_reference(&format!("demo-lm-8x8-pass{pass}"), img);
    }
}

#[test]
fn headless_lm_u8_frame_shows_saturation_white_as_in_the_paper() {
    let (shots, s) = frames_and_state(Kind::Lm, Precision::U8, &[8]);
    // The frame checks the 8-bit rounding only where C is neither 0 nor saturated.
    let c = read_shown(&ctx(), &s.shown[0]);
    common::assert_mostly_between_zero_and_saturation("demo lm u8 8x8x8", &c.data, 1.0);
    assert!(
        c.data.contains(&1.0),
        "no element saturates: the frame shows no white"
    );
    compare_with_reference("demo-lm-u8-8x8-pass8", &shots[0].1);
}

/// In CI a run asked to rewrite the references is refused before it writes anything: there a
/// pass must mean the frames were compared. Runs one frame test of this binary again with
/// `CI=true` and the update variable set, and sees it fail with the reference untouched.
#[test]
fn updating_the_reference_pngs_in_ci_fails_and_writes_nothing() {
    let reference = reference_dir().join("demo-hall-8x8-pass2.png");
    let before = std::fs::read(&reference).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "headless_hall_frame_matches_the_reference_png"])
        .env("CI", "true")
        .env(UPDATE_REFERENCE, "1")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "an updating run in CI passed:\n{text}"
    );
    assert!(
        text.contains("1 failed") && text.contains("in CI"),
        "{text}"
    );
    assert!(
        std::fs::read(&reference).unwrap() == before,
        "{} was written",
        reference.display()
    );
}

#[test]
fn headless_hall_frame_matches_the_reference_png() {
    // b = 2: 4 passes; pass 2 wrote ping and read pong.
    let shots = frames(Kind::Hall, Precision::F32, &[2]);
    compare_with_reference("demo-hall-8x8-pass2", &shots[0].1);
}

#[test]
fn headless_packed_frame_matches_the_reference_png() {
    let shots = frames(Kind::Packed, Precision::F32, &[4]);
    compare_with_reference("demo-packed-8x8-pass4", &shots[0].1);
}

#[test]
fn headless_cube_frame_matches_the_reference_png() {
    let shots = frames(Kind::Cube, Precision::F32, &[3]);
    compare_with_reference("demo-cube-8x8-pass3", &shots[0].1);
}

/// Read a shown texture back as a matrix: `R32Float` as it is, `R8Unorm` (the u8 pipeline's
/// sums) in steps of 1/255.
fn read_shown(ctx: &GpuContext, t: &wgpu::Texture) -> Matrix {
    match t.format() {
        wgpu::TextureFormat::R32Float => return read_r32(ctx, t),
        wgpu::TextureFormat::R8Unorm => {}
        f => panic!("shown texture in {f:?}, which the test does not read"),
    }
    let (rows, cols) = (t.height() as usize, t.width() as usize);
    let bytes = read_texture_bytes(ctx, t, rows, cols, 1).unwrap();
    Matrix::new(
        rows,
        cols,
        bytes.iter().map(|&b| b as f32 / 255.0).collect(),
    )
    .unwrap()
}

/// Read a shown `R32Float` texture back as a matrix.
fn read_r32(ctx: &GpuContext, t: &wgpu::Texture) -> Matrix {
    let bytes = read_texture_bytes(ctx, t, t.height() as usize, t.width() as usize, 4).unwrap();
    Matrix::new(
        t.height() as usize,
        t.width() as usize,
        bytemuck::pod_collect_to_vec(&bytes),
    )
    .unwrap()
}

#[test]
fn shown_textures_hold_what_each_pass_rendered() {
    let ctx = ctx();
    // L-M: after pass p the shown texture holds the sum of the first p slices.
    let mut s = state(Kind::Lm, Precision::F32);
    for p in 1..=3 {
        assert!(s.step());
        assert_eq!(s.pass(), p);
        let (a, b) = (&s.a, &s.b);
        let partial = Matrix::from_fn(8, 8, |i, j| (0..p).map(|q| a.get(i, q) * b.get(q, j)).sum());
        let shown = read_r32(&ctx, &s.shown[0]);
        let err = shown
            .data
            .iter()
            .zip(&partial.data)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max);
        assert!(err < 1e-5, "lm pass {p}: shown texture off by {err}");
    }
    // Hall ping-pong: pass p wrote texture p mod 2; the other still holds pass p - 1's sum.
    let mut s = state(Kind::Hall, Precision::F32);
    let b = s.settings.block_for(8) as usize;
    while s.step() {
        let p = s.pass();
        let upto = |t: usize| {
            let (a, bm) = (&s.a, &s.b);
            let kk = (t * b).min(8);
            Matrix::from_fn(8, 8, |i, j| {
                (0..kk).map(|q| a.get(i, q) * bm.get(q, j)).sum()
            })
        };
        for (slot, want) in [(p % 2, upto(p)), ((p + 1) % 2, upto(p - 1))] {
            let shown = read_r32(&ctx, &s.shown[slot]);
            let err = shown
                .data
                .iter()
                .zip(&want.data)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f32::max);
            assert!(err < 1e-5, "hall pass {p}: texture {slot} off by {err}");
        }
    }
    assert_eq!(s.pass(), s.passes());
    assert_eq!(*s.progress(), Progress::Done);
}

#[test]
fn demo_sizes_above_512_are_an_error_not_a_panic() {
    let err = Inputs::random(513, 8, 8, 1, Precision::F32)
        .unwrap_err()
        .to_string();
    assert!(err.contains("513") && err.contains("512"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args([
            "demo",
            "lm",
            "--random",
            "8x600x8",
            "--headless",
            "--gif",
            "never.gif",
        ])
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A size past what the demos take is a mistake in the request: exit status 2.
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("k = 600") && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(!Path::new("never.gif").exists());
}

#[test]
fn layout_keeps_panels_inside_the_frame_and_apart() {
    for kind in [Kind::Lm, Kind::Hall, Kind::Packed] {
        for (m, k, n) in [
            (4, 4, 4),
            (8, 8, 8),
            (7, 9, 5),
            (512, 512, 512),
            (3, 500, 2),
        ] {
            for (w, h) in [(640, 300), (1280, 720), (800, 800)] {
                let v = view(kind, m, k, n, true);
                let lay = layout::layout(&v, w, h);
                assert_eq!(lay.panels.len(), 4);
                for (i, p) in lay.panels.iter().enumerate() {
                    let r = p.rect;
                    assert!(
                        r.w > 0.0 && r.h > 0.0,
                        "{kind} {m}x{k}x{n} in {w}x{h}: panel {i} empty"
                    );
                    assert!(
                        r.x >= 0.0
                            && r.y >= 0.0
                            && r.x + r.w <= w as f32 + 0.5
                            && r.y + r.h <= h as f32 + 0.5,
                        "{kind} {m}x{k}x{n} in {w}x{h}: panel {i} {r:?} outside"
                    );
                    for q in &lay.panels[i + 1..] {
                        let s = q.rect;
                        let apart = r.x + r.w <= s.x
                            || s.x + s.w <= r.x
                            || r.y + r.h <= s.y
                            || s.y + s.h <= r.y;
                        assert!(
                            apart,
                            "{kind} {m}x{k}x{n} in {w}x{h}: panels overlap: {r:?} {s:?}"
                        );
                    }
                }
            }
        }
    }
}

fn view(kind: Kind, m: usize, k: usize, n: usize, keys: bool) -> View {
    View {
        kind,
        m,
        k,
        n,
        precision: Precision::F32,
        pass: 16.min(k),
        passes: k,
        block: (0, 1),
        b: 1,
        scales: Scales {
            a: 1.0,
            b: 1.0,
            slice: 1.0,
            c: 1.0,
        },
        keys,
        status: Some("DONE".into()),
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// The pixels of `r` in `img`.
fn pixels_in(img: &RgbaImage, r: Rect) -> Vec<[u8; 3]> {
    let mut out = vec![];
    for y in r.y.max(0.0) as u32..((r.y + r.h) as u32).min(img.height()) {
        for x in r.x.max(0.0) as u32..((r.x + r.w) as u32).min(img.width()) {
            if r.contains(x, y) {
                let p = img.get_pixel(x, y);
                out.push([p[0], p[1], p[2]]);
            }
        }
    }
    out
}

#[test]
fn window_demo_under_xvfb_renders_frames_saves_a_screenshot_and_exits() {
    if !on_path("xvfb-run") {
        let msg = "xvfb-run is not installed; the window test needs it (apt-get install xvfb xauth libxkbcommon-x11-0)";
        if common::in_ci() {
            panic!("{msg}: CI must run the window test (.ci/run installs it)");
        }
        eprintln!("NOT RUN: {msg}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("rendermm-demo-window-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("out.png");
    let mut child = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x720x24",
            env!("CARGO_BIN_EXE_rendermm"),
        ])
        .args([
            "demo",
            "lm",
            "--random",
            "16x16x16",
            "--frames-then-exit",
            "20",
            "--screenshot",
        ])
        .arg(&shot)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start xvfb-run");
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("the window demo did not exit within 300 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        status.success(),
        "window demo exited with {status}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        stdout.contains("after 20 frames") && stdout.contains("pass 16/16"),
        "{stdout}"
    );
    assert!(
        stdout.contains("error vs CPU") && stdout.contains("within tolerance"),
        "{stdout}"
    );

    let img = image::open(&shot)
        .unwrap_or_else(|e| panic!("{}: {e}", shot.display()))
        .to_rgba8();
    assert_eq!(img.dimensions(), (1280, 720));
    // The panels are where the layout puts them, and each shows a colour-mapped matrix.
    let lay = layout::layout(&view(Kind::Lm, 16, 16, 16, true), 1280, 720);
    assert_eq!(lay.panels.len(), 4);
    let background = [236u8, 236, 236];
    for p in &lay.panels {
        let px = pixels_in(&img, p.rect);
        let filled = px.iter().filter(|c| **c != background).count() as f64 / px.len() as f64;
        let mut distinct: Vec<[u8; 3]> = px.clone();
        distinct.sort();
        distinct.dedup();
        let coloured = px
            .iter()
            .filter(|c| c.iter().max().unwrap() - c.iter().min().unwrap() > 40)
            .count() as f64
            / px.len() as f64;
        assert!(
            filled > 0.95 && distinct.len() >= 16 && coloured > 0.1,
            "panel '{}' at {:?} does not look like a matrix: {:.0}% filled, {} colours, {:.0}% coloured",
            p.label[0],
            p.rect,
            filled * 100.0,
            distinct.len(),
            coloured * 100.0
        );
        assert!(matches!(p.look, Look::Matrix | Look::Slice));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn headless_cube_gif_frames_show_the_slices_stacking_onto_the_front_face() {
    let dir = std::env::temp_dir().join(format!("rendermm-demo-gif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let gif = dir.join("cube.gif");
    let out = Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args([
            "demo",
            "cube",
            "--random",
            "6x6x6",
            "--headless",
            "--size",
            "320x200",
            "--gif",
        ])
        .arg(&gif)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    use image::AnimationDecoder;
    let decoder = image::codecs::gif::GifDecoder::new(std::io::BufReader::new(
        std::fs::File::open(&gif).unwrap(),
    ))
    .unwrap();
    let frames: Vec<RgbaImage> = decoder
        .into_frames()
        .map(|f| f.unwrap().into_buffer())
        .collect();
    // Before the first pass, then each of the 6 passes with its slice moving onto the front face.
    let tweens = rendermm::demo::headless::CUBE_TWEENS;
    assert_eq!(frames.len(), 1 + 6 * tweens);
    // Every frame differs from the one before: a slice moves or lands on each.
    for (i, w) in frames.windows(2).enumerate() {
        assert_ne!(w[0], w[1], "frames {i} and {} are the same", i + 1);
    }
    if let Ok(d) = std::env::var("RENDERMM_DUMP_FRAMES") {
        for (i, f) in frames.iter().enumerate() {
            f.save(Path::new(&d).join(format!("cube-gif-{i:02}.png")))
                .unwrap();
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn switching_demo_or_precision_midway_stops_the_old_run_and_starts_the_new_one() {
    let mut s = state(Kind::Lm, Precision::F32);
    assert!(s.step() && s.step());
    // Keys 2, 3, 4 and p: each starts over; the old worker is stopped mid-run without a hang.
    for (kind, precision) in [
        (Kind::Hall, Precision::F32),
        (Kind::Packed, Precision::F32),
        (Kind::Cube, Precision::U8),
        (Kind::Lm, Precision::F16),
    ] {
        let settings = Settings {
            kind,
            precision,
            block: None,
            scale_by_depth: false,
        };
        s.reset(settings, inputs(precision)).unwrap();
        assert_eq!(
            (s.pass(), s.settings.kind, s.precision),
            (0, kind, precision)
        );
        assert!(s.step());
        assert_eq!(s.pass(), 1);
    }
    while s.step() {}
    assert_eq!(*s.progress(), Progress::Done);
    assert!(s.verdict().unwrap().passed, "{}", s.title());
    assert!(
        s.title().contains("f16") && s.title().contains("within tolerance"),
        "{}",
        s.title()
    );
}

/// The browser build draws its labels with a subset of DejaVu Sans: every character a label of
/// the demos or the page can draw (every non-ASCII character in their string literals, and
/// printable ASCII) has a glyph there, with the outline, advance and kerning of the whole font.
#[test]
fn the_pages_font_holds_every_character_the_labels_draw() {
    use ab_glyph::{Font, FontRef};
    let page = FontRef::try_from_slice(rendermm::draw::font::PAGE_FONT).unwrap();
    let whole = FontRef::try_from_slice(rendermm::draw::font::FONT).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut chars: std::collections::BTreeSet<char> = (' '..='~').collect();
    for dir in ["src/demo", "src/draw", "web/src"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                for literal in text.split('"').skip(1).step_by(2) {
                    chars.extend(literal.chars().filter(|c| !c.is_control()));
                }
            }
        }
    }
    let missing: String = chars
        .iter()
        .filter(|&&c| whole.glyph_id(c).0 != 0 && page.glyph_id(c).0 == 0)
        .collect();
    assert!(missing.is_empty(), "the page's font lacks: {missing:?}");
    for c in ['A', '×', '→', 'γ', '²'] {
        let (p, w) = (page.glyph_id(c), whole.glyph_id(c));
        assert_eq!(
            page.outline(p).map(|o| o.curves.len()),
            whole.outline(w).map(|o| o.curves.len()),
            "{c}"
        );
        assert_eq!(
            page.h_advance_unscaled(p),
            whole.h_advance_unscaled(w),
            "{c}"
        );
    }
    // The kerning the labels are laid out with (a subset without it shifts every panel).
    for pair in ["AV", "To", "Ty", "LT", "Pa"] {
        let [x, y]: [char; 2] = pair.chars().collect::<Vec<_>>().try_into().unwrap();
        assert_eq!(
            page.kern_unscaled(page.glyph_id(x), page.glyph_id(y)),
            whole.kern_unscaled(whole.glyph_id(x), whole.glyph_id(y)),
            "{pair}"
        );
    }
}
