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
    use picture::fill;
    use text::{INK, LABEL, MUTED, SMALL, TITLE};
    let (w, h) = (1560u32, 730u32);
    let mut img = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
    text::left(
        &mut img,
        24.0,
        14.0,
        "The render pipeline as a matrix multiplier: the stages each era uses, and the files of rendermm that implement them",
        TITLE,
        INK,
    );
    let (sy, sh) = (150.0f32, 96.0f32);
    let mut g = Grid {
        left: 250.0,
        col_w: 205.0,
        gap: 16.0,
        sy,
        sh,
        tx: 0.0,
        ty: 64.0,
        tw: 205.0,
        th: 52.0,
        row_y0: sy + sh + 46.0,
        row_h: 120.0,
    };
    g.tx = g.col_x(2);
    g.inputs(&mut img);
    g.stages(&mut img);
    g.copy_loop(&mut img);
    g.headings(&mut img);
    let Grid {
        left,
        row_y0,
        row_h,
        ..
    } = g;
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
            g.compute_row(&mut img, era, y);
            continue;
        }
        for s in 0..era.stages.len() {
            g.stage_cell(&mut img, (r, s), era, y);
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

/// Where [`pipeline_picture`] puts things: the stage columns, the stage boxes' row, the inputs'
/// box above the fragment stage, and the era rows.
#[derive(Clone, Copy)]
struct Grid {
    left: f32,
    col_w: f32,
    gap: f32,
    sy: f32,
    sh: f32,
    tx: f32,
    ty: f32,
    tw: f32,
    th: f32,
    row_y0: f32,
    row_h: f32,
}

/// An era's colour, lightened by `t` (0: as is, 1: white).
fn era_tint(g: usize, t: f32) -> Rgb<u8> {
    let c = plots::ERA_COLOURS[g];
    Rgb([c.0, c.1, c.2].map(|v| (v as f32 + (255.0 - v as f32) * t).round() as u8))
}

/// An era's colour, darkened for text and rules.
fn era_ink(g: usize) -> Rgb<u8> {
    let c = plots::ERA_COLOURS[g];
    Rgb([c.0, c.1, c.2].map(|v| (v as f32 * 0.75) as u8))
}

impl Grid {
    /// The left edge of stage column `s`.
    fn col_x(&self, s: usize) -> f32 {
        self.left + s as f32 * (self.col_w + self.gap)
    }

    /// The inputs above the fragment stage, and the arrow down into it.
    fn inputs(&self, img: &mut RgbImage) {
        use picture::{RULE, arrow, fill, outline};
        use text::{INK, LABEL, MUTED, SMALL};
        let Grid {
            sy, tx, ty, tw, th, ..
        } = *self;
        fill(
            img,
            tx as i32,
            ty as i32,
            tw as u32,
            th as u32,
            Rgb([236, 236, 236]),
        );
        outline(img, tx as i32, ty as i32, tw as u32, th as u32, 1, RULE);
        text::centre(
            img,
            tx + tw / 2.0,
            ty + 6.0,
            "Textures A, B (and F)",
            LABEL,
            INK,
        );
        text::centre(
            img,
            tx + tw / 2.0,
            ty + 28.0,
            "the inputs, in GPU memory",
            SMALL,
            MUTED,
        );
        arrow(
            img,
            (tx + tw / 2.0, ty + th),
            (tx + tw / 2.0, sy - 2.0),
            2.0,
            RULE,
        );
    }

    /// The stages, left to right, each with what it does.
    fn stages(&self, img: &mut RgbImage) {
        use picture::{RULE, arrow, fill, outline};
        use text::{INK, LABEL, MUTED, SMALL};
        let Grid {
            col_w, gap, sy, sh, ..
        } = *self;
        for (s, (name, what)) in STAGES.iter().enumerate() {
            let x = self.col_x(s);
            fill(
                img,
                x as i32,
                sy as i32,
                col_w as u32,
                sh as u32,
                Rgb([250, 250, 250]),
            );
            outline(img, x as i32, sy as i32, col_w as u32, sh as u32, 2, RULE);
            text::centre(img, x + col_w / 2.0, sy + 6.0, name, LABEL, INK);
            let mut y = sy + 30.0;
            for l in text::wrap(what, SMALL, col_w - 14.0) {
                text::centre(img, x + col_w / 2.0, y, &l, SMALL, MUTED);
                y += text::line(SMALL);
            }
            if s + 1 < STAGES.len() {
                arrow(
                    img,
                    (x + col_w + 1.0, sy + sh / 2.0),
                    (x + col_w + gap - 1.0, sy + sh / 2.0),
                    2.0,
                    RULE,
                );
            }
        }
    }

    /// Copy to texture: from the last stage up and back to the inputs.
    fn copy_loop(&self, img: &mut RgbImage) {
        use picture::{RULE, arrow};
        use text::{INK, SMALL};
        let Grid {
            col_w,
            sy,
            tx,
            ty,
            tw,
            th,
            ..
        } = *self;
        let lx = self.col_x(5) + col_w / 2.0;
        picture::line(img, (lx, sy), (lx, ty + th / 2.0), 2.0, RULE);
        arrow(
            img,
            (lx, ty + th / 2.0),
            (tx + tw + 2.0, ty + th / 2.0),
            2.0,
            RULE,
        );
        text::centre(
            img,
            (tx + tw + lx) / 2.0,
            ty + th / 2.0 - 22.0,
            "copy to texture: the result becomes an input",
            SMALL,
            INK,
        );
    }

    /// The era rows' headings: the era, and each stage's name.
    fn headings(&self, img: &mut RgbImage) {
        use text::{INK, LABEL};
        let Grid { col_w, row_y0, .. } = *self;
        text::left(img, 24.0, row_y0 - 30.0, "Era and methods", LABEL, INK);
        for (s, (name, _)) in STAGES.iter().enumerate() {
            text::centre(
                img,
                self.col_x(s) + col_w / 2.0,
                row_y0 - 30.0,
                name,
                LABEL,
                INK,
            );
        }
    }

    /// No raster pipeline: one box across the first five stages, the readback apart.
    fn compute_row(&self, img: &mut RgbImage, era: &EraRow, y: f32) {
        use picture::{fill, outline};
        use text::{INK, LABEL, MUTED, SMALL};
        let Grid { col_w, row_h, .. } = *self;
        let x0 = self.col_x(0);
        let bw = self.col_x(4) + col_w - x0;
        fill(
            img,
            x0 as i32,
            y as i32,
            bw as u32,
            row_h as u32,
            era_tint(era.group, 0.82),
        );
        outline(
            img,
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
            text::left(img, x0 + 14.0, ly, t, px, c);
            ly += text::line(px) + if px == LABEL { 6.0 } else { 0.0 };
        }
        ly += 6.0;
        for (dir, names) in COMPUTE_FILES {
            text::left(
                img,
                x0 + 14.0,
                ly,
                &format!("{dir}: {}", names.join(", ")),
                SMALL,
                MUTED,
            );
            ly += text::line(SMALL);
        }
        let x = self.col_x(5);
        fill(
            img,
            x as i32,
            y as i32,
            col_w as u32,
            row_h as u32,
            era_tint(era.group, 0.82),
        );
        outline(
            img,
            x as i32,
            y as i32,
            col_w as u32,
            row_h as u32,
            1,
            era_ink(era.group),
        );
        let mut ly = y + 10.0;
        for l in text::wrap("readback of C's storage buffer", SMALL, col_w - 16.0) {
            text::left(img, x + 8.0, ly, &l, SMALL, INK);
            ly += text::line(SMALL);
        }
        text::left(img, x + 8.0, ly + 6.0, "src/gpu/buffer.rs", SMALL, MUTED);
    }

    /// One era's cell of one stage: what the stage does there and the files, or not used.
    fn stage_cell(&self, img: &mut RgbImage, (r, s): (usize, usize), era: &EraRow, y: f32) {
        use picture::{BG, fill, outline};
        use text::{INK, MUTED, SMALL};
        let Grid { col_w, row_h, .. } = *self;
        let (stage, x) = (&era.stages[s], self.col_x(s));
        match stage {
            Some((what, files)) => {
                fill(
                    img,
                    x as i32,
                    y as i32,
                    col_w as u32,
                    row_h as u32,
                    era_tint(era.group, 0.82),
                );
                outline(
                    img,
                    x as i32,
                    y as i32,
                    col_w as u32,
                    row_h as u32,
                    1,
                    era_ink(era.group),
                );
                let mut ly = y + 10.0;
                for l in text::wrap(what, SMALL, col_w - 16.0) {
                    text::left(img, x + 8.0, ly, &l, SMALL, INK);
                    ly += text::line(SMALL);
                }
                ly += 6.0;
                for f in files.iter() {
                    for l in text::wrap(f, SMALL, col_w - 16.0) {
                        text::left(img, x + 8.0, ly, &l, SMALL, MUTED);
                        ly += text::line(SMALL);
                    }
                }
            }
            None => {
                fill(img, x as i32, y as i32, col_w as u32, row_h as u32, BG);
                let note = if r == 1 && s == 3 {
                    "not used: the fragment program adds the running sum itself (--accumulate blend uses it)"
                } else {
                    "not used"
                };
                let mut ly = y + 10.0;
                for l in text::wrap(note, SMALL, col_w - 16.0) {
                    text::left(img, x + 8.0, ly, &l, SMALL, MUTED);
                    ly += text::line(SMALL);
                }
            }
        }
    }
}

/// The render pipeline and the eras (see [`pipeline_picture`]).
pub fn pipeline(_ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &pipeline_picture())
}
