//! The pipeline picture: each era's stages and the files that run them.

use super::*;

/// One era's row of the pipeline figure: its name, the methods, and per stage what it does and
/// where (`None`: the era does not use the stage).
pub(super) struct EraRow {
    pub(super) name: &'static str,
    pub(super) methods: &'static str,
    pub(super) group: usize,
    pub(super) stages: [Option<(&'static str, &'static [&'static str])>; 6],
}

/// The stages of the render pipeline, in order: name and what the stage does in general.
pub(super) const STAGES: [(&str, &str); 6] = [
    ("Vertex stage", "places a quad over C's m×n target"),
    (
        "Rasterizer",
        "one fragment per pixel, texture coordinates interpolated across the quad",
    ),
    (
        "Fragment stage",
        "texture fetches and arithmetic, one fragment at a time",
    ),
    (
        "Blend",
        "combines the fragment's value with what the framebuffer holds",
    ),
    ("Framebuffer", "the render target: C, or a block of it"),
    (
        "Readback or copy to texture",
        "C to the host, or into a texture the next pass reads",
    ),
];

/// Which stages each era uses and the files of rendermm that implement them (a test checks
/// that every file exists).
pub(super) const ERA_ROWS: [EraRow; 3] = [
    EraRow {
        name: "Larsen–McAllister 2001",
        methods: Method::Lm.name(),
        group: 0,
        stages: [
            Some((
                "k instanced quads, one per slice p",
                &["shaders/larsen_mcallister.wgsl", "vs_main"],
            )),
            Some((
                "texture coordinates: column p of A across, row p of B down",
                &["(fixed-function hardware)"],
            )),
            Some((
                "fixed-function texturing: A texel × B texel (modulate)",
                &["shaders/larsen_mcallister.wgsl", "fs_main"],
            )),
            Some((
                "additive: 1·src + 1·dst sums the k slices",
                &["src/gpu/pipeline.rs", "ADDITIVE"],
            )),
            Some((
                "holds C; 8 bits in 2001 (--precision u8)",
                &["src/methods/larsen_mcallister.rs"],
            )),
            Some((
                "readback of C; copy to texture for powers (§5)",
                &["src/gpu/texture.rs", "src/reach/mod.rs"],
            )),
        ],
    },
    EraRow {
        name: "Hall–Carr–Hart 2003",
        methods: "hall-blocked, hall-packed",
        group: 1,
        stages: [
            Some((
                "one quad per pass, ⌈k/b⌉ passes",
                &["shaders/hall_blocked.wgsl", "shaders/hall_packed.wgsl"],
            )),
            Some((
                "one fragment per element of C (packed: per 2×2 block)",
                &["(fixed-function hardware)"],
            )),
            Some((
                "fragment program: b multiply-adds plus the running sum from texture F",
                &["fs_accumulate", "in the same two shaders"],
            )),
            None,
            Some((
                "holds this pass's running sum (RGBA when packed)",
                &["src/methods/hall_blocked.rs", "src/methods/hall_packed.rs"],
            )),
            Some((
                "copy to texture F every pass (rendermm: ping-pong), readback at the end",
                &["src/methods/hall_blocked.rs"],
            )),
        ],
    },
    EraRow {
        name: "Compute era (2007 on)",
        methods: "cs-naive … cs-fast, kk73-*, cannon, dns, coop",
        group: 2,
        stages: [None, None, None, None, None, None],
    },
];

/// The compute era's files, by folder (`*` stands for any characters).
pub(super) const COMPUTE_FILES: [(&str, &[&str]); 3] = [
    (
        "src/gpu",
        &["compute.rs (the harness)", "buffer.rs (storage buffers)"],
    ),
    (
        "src/methods",
        &[
            "cs_naive.rs",
            "cs_tiled.rs",
            "kk73/",
            "cannon.rs",
            "dns.rs",
            "cs_fast.rs",
            "coop.rs",
        ],
    ),
    (
        "shaders",
        &[
            "cs_naive.wgsl",
            "cs_tiled.wgsl",
            "kk73_*.wgsl",
            "cannon.wgsl",
            "dns.wgsl",
            "cs_fast.wgsl",
            "coop.wgsl",
        ],
    ),
];

/// The render pipeline as the course's front page draws it: the six stages left to right, the
/// copy-to-texture loop back to the inputs, and below, for each era, which stages it uses, what
/// each does there and which of rendermm's files implement it. The compute era uses none of
/// them: its row says what replaces the pipeline.
pub fn pipeline_picture() -> RgbImage {
    use picture::{BG, RULE, arrow, fill, outline};
    use text::{INK, LABEL, MUTED, SMALL, TITLE};
    let (w, h) = (1560u32, 730u32);
    let mut img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
    let era_tint = |g: usize, t: f32| {
        let c = plots::ERA_COLOURS[g];
        Rgb([c.0, c.1, c.2].map(|v| (v as f32 + (255.0 - v as f32) * t).round() as u8))
    };
    let era_ink = |g: usize| {
        let c = plots::ERA_COLOURS[g];
        Rgb([c.0, c.1, c.2].map(|v| (v as f32 * 0.75) as u8))
    };
    text::left(
        &mut img,
        24.0,
        14.0,
        "The render pipeline as a matrix multiplier: the stages each era uses, and the files of rendermm that implement them",
        TITLE,
        INK,
    );
    // The stages, left to right.
    let left = 250.0f32;
    let col_w = 205.0f32;
    let gap = 16.0f32;
    let col_x = |s: usize| left + s as f32 * (col_w + gap);
    let (sy, sh) = (150.0f32, 96.0f32);
    // The inputs above the fragment stage, and the loop back to them.
    let (tx, ty, tw, th) = (col_x(2), 64.0f32, col_w, 52.0f32);
    fill(
        &mut img,
        tx as i32,
        ty as i32,
        tw as u32,
        th as u32,
        Rgb([236, 236, 236]),
    );
    outline(
        &mut img, tx as i32, ty as i32, tw as u32, th as u32, 1, RULE,
    );
    text::centre(
        &mut img,
        tx + tw / 2.0,
        ty + 6.0,
        "Textures A, B (and F)",
        LABEL,
        INK,
    );
    text::centre(
        &mut img,
        tx + tw / 2.0,
        ty + 28.0,
        "the inputs, in GPU memory",
        SMALL,
        MUTED,
    );
    arrow(
        &mut img,
        (tx + tw / 2.0, ty + th),
        (tx + tw / 2.0, sy - 2.0),
        2.0,
        RULE,
    );
    for (s, (name, what)) in STAGES.iter().enumerate() {
        let x = col_x(s);
        fill(
            &mut img,
            x as i32,
            sy as i32,
            col_w as u32,
            sh as u32,
            Rgb([250, 250, 250]),
        );
        outline(
            &mut img,
            x as i32,
            sy as i32,
            col_w as u32,
            sh as u32,
            2,
            RULE,
        );
        text::centre(&mut img, x + col_w / 2.0, sy + 6.0, name, LABEL, INK);
        let mut y = sy + 30.0;
        for l in text::wrap(what, SMALL, col_w - 14.0) {
            text::centre(&mut img, x + col_w / 2.0, y, &l, SMALL, MUTED);
            y += text::line(SMALL);
        }
        if s + 1 < STAGES.len() {
            arrow(
                &mut img,
                (x + col_w + 1.0, sy + sh / 2.0),
                (x + col_w + gap - 1.0, sy + sh / 2.0),
                2.0,
                RULE,
            );
        }
    }
    // Copy to texture: from the last stage up and back to the inputs.
    let lx = col_x(5) + col_w / 2.0;
    picture::line(&mut img, (lx, sy), (lx, ty + th / 2.0), 2.0, RULE);
    arrow(
        &mut img,
        (lx, ty + th / 2.0),
        (tx + tw + 2.0, ty + th / 2.0),
        2.0,
        RULE,
    );
    text::centre(
        &mut img,
        (tx + tw + lx) / 2.0,
        ty + th / 2.0 - 22.0,
        "copy to texture: the result becomes an input",
        SMALL,
        INK,
    );
    // The eras, one row each.
    let row_y0 = sy + sh + 46.0;
    let row_h = 120.0f32;
    text::left(&mut img, 24.0, row_y0 - 30.0, "Era and methods", LABEL, INK);
    for (s, (name, _)) in STAGES.iter().enumerate() {
        text::centre(
            &mut img,
            col_x(s) + col_w / 2.0,
            row_y0 - 30.0,
            name,
            LABEL,
            INK,
        );
    }
    for (r, era) in ERA_ROWS.iter().enumerate() {
        let y = row_y0 + r as f32 * (row_h + 12.0);
        fill(&mut img, 16, y as i32, 8, row_h as u32, era_ink(era.group));
        text::left(&mut img, 32.0, y + 6.0, era.name, LABEL, era_ink(era.group));
        let mut ny = y + 30.0;
        for l in text::wrap(era.methods, SMALL, left - 50.0) {
            text::left(&mut img, 32.0, ny, &l, SMALL, INK);
            ny += text::line(SMALL);
        }
        if era.stages.iter().all(Option::is_none) {
            // No raster pipeline: one box across the first five stages, the readback apart.
            let x0 = col_x(0);
            let bw = col_x(4) + col_w - x0;
            fill(
                &mut img,
                x0 as i32,
                y as i32,
                bw as u32,
                row_h as u32,
                era_tint(era.group, 0.82),
            );
            outline(
                &mut img,
                x0 as i32,
                y as i32,
                bw as u32,
                row_h as u32,
                1,
                era_ink(era.group),
            );
            let lines = [
                (
                    "No raster pipeline at all: no vertices, no rasterizer, no blending, no framebuffer.",
                    LABEL,
                    INK,
                ),
                (
                    "A compute shader runs one invocation (or one workgroup tile) per element or block of C;",
                    SMALL,
                    INK,
                ),
                (
                    "it reads A and B from storage buffers and writes C to a storage buffer, summing in registers.",
                    SMALL,
                    INK,
                ),
            ];
            let mut ly = y + 10.0;
            for (t, px, c) in lines {
                text::left(&mut img, x0 + 14.0, ly, t, px, c);
                ly += text::line(px) + if px == LABEL { 6.0 } else { 0.0 };
            }
            ly += 6.0;
            for (dir, names) in COMPUTE_FILES {
                text::left(
                    &mut img,
                    x0 + 14.0,
                    ly,
                    &format!("{dir}: {}", names.join(", ")),
                    SMALL,
                    MUTED,
                );
                ly += text::line(SMALL);
            }
            let x = col_x(5);
            fill(
                &mut img,
                x as i32,
                y as i32,
                col_w as u32,
                row_h as u32,
                era_tint(era.group, 0.82),
            );
            outline(
                &mut img,
                x as i32,
                y as i32,
                col_w as u32,
                row_h as u32,
                1,
                era_ink(era.group),
            );
            let mut ly = y + 10.0;
            for l in text::wrap("readback of C's storage buffer", SMALL, col_w - 16.0) {
                text::left(&mut img, x + 8.0, ly, &l, SMALL, INK);
                ly += text::line(SMALL);
            }
            text::left(
                &mut img,
                x + 8.0,
                ly + 6.0,
                "src/gpu/buffer.rs",
                SMALL,
                MUTED,
            );
            continue;
        }
        for (s, stage) in era.stages.iter().enumerate() {
            let x = col_x(s);
            match stage {
                Some((what, files)) => {
                    fill(
                        &mut img,
                        x as i32,
                        y as i32,
                        col_w as u32,
                        row_h as u32,
                        era_tint(era.group, 0.82),
                    );
                    outline(
                        &mut img,
                        x as i32,
                        y as i32,
                        col_w as u32,
                        row_h as u32,
                        1,
                        era_ink(era.group),
                    );
                    let mut ly = y + 10.0;
                    for l in text::wrap(what, SMALL, col_w - 16.0) {
                        text::left(&mut img, x + 8.0, ly, &l, SMALL, INK);
                        ly += text::line(SMALL);
                    }
                    ly += 6.0;
                    for f in files.iter() {
                        for l in text::wrap(f, SMALL, col_w - 16.0) {
                            text::left(&mut img, x + 8.0, ly, &l, SMALL, MUTED);
                            ly += text::line(SMALL);
                        }
                    }
                }
                None => {
                    fill(&mut img, x as i32, y as i32, col_w as u32, row_h as u32, BG);
                    let note = if r == 1 && s == 3 {
                        "not used: the fragment program adds the running sum itself (--accumulate blend uses it)"
                    } else {
                        "not used"
                    };
                    let mut ly = y + 10.0;
                    for l in text::wrap(note, SMALL, col_w - 16.0) {
                        text::left(&mut img, x + 8.0, ly, &l, SMALL, MUTED);
                        ly += text::line(SMALL);
                    }
                }
            }
        }
    }
    let foot = row_y0 + 3.0 * (row_h + 12.0) + 4.0;
    text::left(
        &mut img,
        24.0,
        foot,
        "Coloured cells: the stage is used by that era (its colour is the era's in every chart). Grey: not used. File paths are relative to the repository.",
        SMALL,
        MUTED,
    );
    let _ = (w, h);
    img
}

/// The render pipeline and the eras (see [`pipeline_picture`]).
pub fn pipeline(_ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &pipeline_picture())
}
