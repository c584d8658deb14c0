//! Figures and tables the program regenerates for the docs, each made by the real methods on the
//! current adapter: `rendermm figure NAME --out FILE`, or every one with
//! `rendermm figures --out DIR` ([`write_all`]).
//!
//! A figure writes one file or several side by side (a chart and its numbers as a Markdown table).
//! Figures that *measure* carry the adapter in their file names (`5kk73-steps-lavapipe.png`,
//! `reach-bench-h100.png`, see [`adapter_tag`]), so running `figures` on each machine regenerates
//! that machine's pictures beside the others'. Markdown tables are also spliced into the docs
//! pages next to the output folder (its parent, `docs/` for `docs/img`) wherever a page holds the
//! markers
//!
//! ```text
//! <!-- figures: hall-table1.md -->
//! (replaced by the table)
//! <!-- /figures -->
//! ```
//!
//! so the tables on the pages are the ones the command just wrote.

use crate::bench::{self, BenchOptions, Suite, SuiteReport};
use crate::draw::plots::{self, Bar, Panel, Series};
use crate::draw::{picture, text};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{Method, hall_packed};
use crate::plan::{self, Options};
use crate::precision::Precision;
use crate::report::Report;
use image::{Rgb, RgbImage};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A figure: its name, what it shows, the files it writes, and how to draw them.
pub struct Figure {
    pub name: &'static str,
    pub about: &'static str,
    /// Extensions of the files it writes, the main one first (`png`, `gif`, `md`); the others
    /// go beside the main one, same name, their own extension.
    pub files: &'static [&'static str],
    /// Measured on the adapter: the files are named `NAME-TAG.EXT` ([`adapter_tag`]).
    pub per_adapter: bool,
    /// Draw into the main file at this path (and the others beside it).
    pub draw: fn(&GpuContext, &Path) -> Result<()>,
}

impl Figure {
    /// The main file's name on `ctx`'s adapter: `NAME.EXT` or `NAME-TAG.EXT`.
    pub fn file_name(&self, ctx: &GpuContext) -> String {
        let ext = self.files.first().copied().unwrap_or("png");
        if self.per_adapter {
            format!("{}-{}.{ext}", self.name, adapter_tag(ctx))
        } else {
            format!("{}.{ext}", self.name)
        }
    }

    /// Every file the figure writes when its main file is `path`.
    pub fn paths(&self, path: &Path) -> Vec<PathBuf> {
        // The main file is the path as given (`X.PNG` stays `X.PNG`); the others go beside it.
        std::iter::once(path.to_path_buf())
            .chain(self.files.iter().skip(1).map(|e| path.with_extension(e)))
            .collect()
    }
}

/// A short tag for the adapter in file names: `lavapipe` for llvmpipe, `h100` for an H100,
/// otherwise the adapter's name in lower case with dashes.
pub fn adapter_tag(ctx: &GpuContext) -> String {
    let name = ctx.info.name.to_lowercase();
    if name.contains("llvmpipe") {
        return "lavapipe".into();
    }
    if name.contains("h100") {
        return "h100".into();
    }
    let slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    slug.split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// Every figure, in the order the docs' history tour uses them.
pub const ALL: &[Figure] = &[
    Figure {
        name: "pipeline",
        about: "the render pipeline (vertex, rasterizer, fragment, blend, framebuffer, readback or copy to texture), the stages each era uses and the files that implement them",
        files: &["png"],
        per_adapter: false,
        draw: pipeline,
    },
    Figure {
        name: "lm-fig2",
        about: "L-M figure 2: A, B (4x4, 0/1), column 2 of A replicated across, row 2 of B replicated down, their product (slice 2), and C summed in 8 bits (saturated), by lm u8",
        files: &["png"],
        per_adapter: false,
        draw: lm_fig2,
    },
    Figure {
        name: "lm-fig3",
        about: "L-M figure 3: lm's operations per second against the elements passed in and the operations done, u8 and f32, beside the GeForce3's 4.4 GBops",
        files: &["png", "md"],
        per_adapter: true,
        draw: lm_fig3,
    },
    Figure {
        name: "reach-bench",
        about: "L-M figures 4-5: load, copy and readback of one matrix, and where the time of a chain of squarings goes (lm u8; n = 256, 8 powers on a CPU adapter, the paper's 1024 and 20 on a GPU)",
        files: &["png", "md"],
        per_adapter: true,
        draw: reach_bench,
    },
    Figure {
        name: "reach-example",
        about: "L-M §5 sample application on assets/graph-example.txt: M = I + A, M^2 (within 2 steps) and the closure (6 components: a path, a cycle, K5, a star, two isolated nodes), white = reachable",
        files: &["png"],
        per_adapter: false,
        draw: reach_example,
    },
    Figure {
        name: "tour-lm",
        about: "the tour's picture: A diagonal, B a checkerboard, one slice, C after slices 0-5, and C = A·B, by lm at 32x32x32 (blue < 0 < red)",
        files: &["png"],
        per_adapter: false,
        draw: tour_lm,
    },
    Figure {
        name: "demo-lm",
        about: "demo lm --random 8x8x8 --headless --gif: L-M pass by pass, the running sum read from the framebuffer",
        files: &["gif"],
        per_adapter: false,
        draw: demo_lm,
    },
    Figure {
        name: "hall-packing",
        about: "Hall-Carr-Hart eq. 8: a 7x9 matrix padded to 8x10, quadrants A B C D, and the 4x5 RGBA texture the GPU holds (r g / b a per texel), lettered",
        files: &["png"],
        per_adapter: false,
        draw: hall_packing,
    },
    Figure {
        name: "hall-table1",
        about: "Hall-Carr-Hart table 1 (bytes moved inside the GPU) from the model at n = 1024, b = 32, beside the paper's formulas",
        files: &["md"],
        per_adapter: false,
        draw: hall_table1,
    },
    Figure {
        name: "hall-table2",
        about: "Hall-Carr-Hart table 2 (fragment-shader instructions) from the model at n = 1024, b = 32, beside the paper's formulas",
        files: &["md"],
        per_adapter: false,
        draw: hall_table2,
    },
    Figure {
        name: "demo-hall",
        about: "demo hall --random 8x8x8 --headless --gif: Hall's blocked passes and the ping-pong running sum",
        files: &["gif"],
        per_adapter: false,
        draw: demo_hall,
    },
    Figure {
        name: "demo-packed",
        about: "demo packed --random 8x8x8 --headless --gif: the 2x2 channel-packed passes",
        files: &["gif"],
        per_adapter: false,
        draw: demo_packed,
    },
    Figure {
        name: "demo-cube",
        about: "demo cube --random 8x8x8 --headless --gif: the processor cube, slices moving onto the front face",
        files: &["gif"],
        per_adapter: false,
        draw: demo_cube,
    },
    Figure {
        name: "5kk73-steps",
        about: "the 5kk73 ladder at 256x256x256: GFLOP/s per step with the HIP blog's kernels (bench --suite 5kk73, 3 trials)",
        files: &["png", "md"],
        per_adapter: true,
        draw: kk73_steps,
    },
    Figure {
        name: "oneil-tables",
        about: "O'Neil 2013 tables 1-2: Cannon and DNS at 8x8 and 16x16 beside the paper's microseconds (bench --suite oneil, 5 trials)",
        files: &["md"],
        per_adapter: true,
        draw: oneil_tables,
    },
    Figure {
        name: "eras",
        about: "one multiply of 256x256x256 by each era's methods on this adapter, GFLOP/s: 2001 blending, 2003 fragment shaders, compute shaders, tensor cores, the CPU",
        files: &["png", "md"],
        per_adapter: true,
        draw: eras,
    },
    Figure {
        name: "tiling",
        about: "past one texture: a product tiled under a small memory budget, C's blocks and k's chunks drawn over A, B and C with their sizes",
        files: &["png"],
        per_adapter: false,
        draw: tiling,
    },
];

/// Look a figure up by name.
pub fn find(name: &str) -> Result<&'static Figure> {
    ALL.iter().find(|f| f.name == name).ok_or_else(|| {
        let names: Vec<&str> = ALL.iter().map(|f| f.name).collect();
        crate::Error::Invalid(format!(
            "unknown figure '{name}'; known: {}",
            names.join(", ")
        ))
    })
}

/// Draw every figure into `dir` (created if missing), splice the Markdown tables into the docs
/// pages of `dir`'s parent, and report each file through `log`. Returns the files written.
pub fn write_all(ctx: &GpuContext, dir: &Path, mut log: impl FnMut(&str)) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let docs = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut written = vec![];
    for f in ALL {
        let t = Instant::now();
        let path = dir.join(f.file_name(ctx));
        (f.draw)(ctx, &path)?;
        let secs = t.elapsed().as_secs_f64();
        for (i, p) in f.paths(&path).into_iter().enumerate() {
            if i == 0 {
                log(&format!(
                    "wrote {} in {secs:.1} s ({})",
                    p.display(),
                    f.about
                ));
            } else {
                log(&format!("wrote {}", p.display()));
            }
            if p.extension().is_some_and(|e| e == "md") {
                let text = std::fs::read_to_string(&p).map_err(|e| Error::io(&p, e))?;
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                for page in splice_docs(docs, &name, &text)? {
                    log(&format!("  spliced {name} into {}", page.display()));
                }
            }
            written.push(p);
        }
    }
    Ok(written)
}

/// The marker before a spliced table.
fn marker(name: &str) -> String {
    format!("<!-- figures: {name} -->")
}

const END_MARKER: &str = "<!-- /figures -->";

/// Replace the text between `<!-- figures: NAME -->` and the next `<!-- /figures -->` in every
/// `*.md` page of `docs` with `text`; returns the pages changed.
pub fn splice_docs(docs: &Path, name: &str, text: &str) -> Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(docs) else {
        return Ok(vec![]);
    };
    let mut pages: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    let start = marker(name);
    let mut changed = vec![];
    for page in pages {
        let old = std::fs::read_to_string(&page).map_err(|e| Error::io(&page, e))?;
        if !old.contains(&start) {
            continue;
        }
        let mut new = String::with_capacity(old.len() + text.len());
        let mut rest = old.as_str();
        while let Some(at) = rest.find(&start) {
            let after = at + start.len();
            let Some(end) = rest[after..].find(END_MARKER) else {
                return Err(Error::format(
                    &page,
                    format!("{start} has no {END_MARKER} after it"),
                ));
            };
            new.push_str(&rest[..after]);
            new.push('\n');
            new.push_str(text.trim_end());
            // A blank line, so the marker cannot be read as part of a table or paragraph.
            new.push_str("\n\n");
            new.push_str(END_MARKER);
            rest = &rest[after + end + END_MARKER.len()..];
        }
        new.push_str(rest);
        if new != old {
            crate::io::write_atomic(&page, |w| {
                w.write_all(new.as_bytes()).map_err(|e| Error::io(&page, e))
            })?;
            changed.push(page);
        }
    }
    Ok(changed)
}

/// Write `text` at `path` through a temporary file.
fn write_text(path: &Path, text: &str) -> Result<()> {
    crate::io::write_atomic(path, |w| {
        w.write_all(text.as_bytes()).map_err(|e| Error::io(path, e))
    })
}

/// The line every generated table starts with: the command that wrote it, the command it
/// equals if there is one, and the adapter it was measured on.
fn provenance(ctx: Option<&GpuContext>, same_as: Option<&str>) -> String {
    let mut s = "*Generated by `rendermm figures --out docs/img`".to_string();
    if let Some(cmd) = same_as {
        let _ = write!(s, " (the same as `{cmd}`)");
    }
    if let Some(c) = ctx {
        let _ = write!(s, " on {}", c.describe());
    }
    s.push_str(".*\n\n");
    s
}

/// `n` in superscript digits (M³²).
fn superscript(n: usize) -> String {
    n.to_string()
        .chars()
        .map(|c| match c {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// L-M §5's sample application on `assets/graph-example.txt` (24 nodes, 6 components), by
/// `rendermm reach`: M = I + A, M² (who reaches whom within 2 steps) and the transitive closure,
/// white where node v (column) is reachable from node u (row), each panel titled, node indices
/// along the edges.
pub fn reach_example(ctx: &GpuContext, out: &Path) -> Result<()> {
    use crate::reach::{self, Goal, ReachOptions};
    use picture::{BG, RULE, fill, outline};
    use text::{INK, LABEL, MUTED, SMALL, TITLE};
    let source = include_str!("../../assets/graph-example.txt");
    let g = reach::graph::parse_edge_list(
        Path::new("assets/graph-example.txt"),
        source,
        Default::default(),
    )?;
    let o = ReachOptions::default();
    let base = reach::power(ctx, &g.reach_base(), &[], &o)?.matrix;
    let two = reach::reach(ctx, &g, Goal::Steps(2), &o)?;
    let closure = reach::reach(ctx, &g, Goal::Closure, &o)?;
    let count = closure.components.as_ref().map_or(0, |c| c.count());
    let panels = [
        (
            "M = I + A".to_string(),
            "an edge or the node itself".to_string(),
            base,
        ),
        (
            "M² = M·M".to_string(),
            "reachable within 2 steps".to_string(),
            two.matrix,
        ),
        (
            format!(
                "Closure: M{} ({} squarings)",
                superscript(1usize << closure.steps.len()),
                closure.steps.len()
            ),
            format!("reachable at all: {count} components"),
            closure.matrix,
        ),
    ];
    let n = g.nodes as u32;
    let cell = 14u32;
    let side = n * cell;
    let (gap, top, left) = (70u32, 108u32, 44u32);
    let width = left + 3 * side + 2 * gap + 30;
    let height = top + side + 96;
    let mut img = RgbImage::from_pixel(width, height, BG);
    text::left(
        &mut img,
        24.0,
        14.0,
        &format!(
            "L-M §5's sample application: reachability in a {n}-node graph by repeated 0/1 products (lm)"
        ),
        TITLE,
        INK,
    );
    for (p, (title, sub, m)) in panels.iter().enumerate() {
        let x0 = left + p as u32 * (side + gap);
        text::centre(&mut img, (x0 + side / 2) as f32, 48.0, title, LABEL, INK);
        text::centre(&mut img, (x0 + side / 2) as f32, 70.0, sub, SMALL, MUTED);
        outline(
            &mut img,
            x0 as i32 - 1,
            top as i32 - 1,
            side + 2,
            side + 2,
            1,
            RULE,
        );
        for u in 0..g.nodes {
            for v in 0..g.nodes {
                let c = if m.get(u, v) != 0.0 { 255 } else { 0 };
                let (x, y) = (x0 + v as u32 * cell, top + u as u32 * cell);
                fill(&mut img, x as i32, y as i32, cell, cell, Rgb([70, 70, 70]));
                fill(
                    &mut img,
                    x as i32 + 1,
                    y as i32 + 1,
                    cell - 1,
                    cell - 1,
                    Rgb([c, c, c]),
                );
            }
        }
        for t in (0..n).step_by(4) {
            text::centre(
                &mut img,
                (x0 + t * cell + cell / 2) as f32,
                (top - 18) as f32,
                &t.to_string(),
                SMALL,
                MUTED,
            );
            text::draw(
                &mut img,
                x0 as f32 - 5.0,
                (top + t * cell + cell / 2) as f32 - 8.0,
                &t.to_string(),
                SMALL,
                MUTED,
                text::Align::Right,
            );
        }
    }
    text::lines(
        &mut img,
        left as f32,
        (top + side + 14) as f32,
        &[
            "Row u, column v: white (1) where node v is reachable from node u, black (0) where not. Node indices count from 0.",
            "The graph: a path 0–5, a cycle 6–11, a complete graph on 12–16, a star around 17 (17–21), and the isolated nodes 22 and 23.",
            "Each squaring is one 0/1 product on the GPU; an 8-bit sum above one saturates to 1, which is what reachability wants.",
        ],
        SMALL,
        MUTED,
    );
    picture::save_png(out, &img)
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture: a 7×9 matrix X (odd both ways, so
/// the padding shows) goes through [`hall_packed::upload_packed`] on `ctx`'s adapter and is read
/// back texel by texel. Left: X zero-padded to 8×10, each element coloured by its quadrant
/// (A red, B green, C blue, D grey), shaded by its place in the quadrant, the quadrants lettered;
/// padding hatched. Right: the 4×5 packed texture, each texel drawn as 2×2 sub-cells holding its
/// r, g, b, a channels in the quadrants' own arrangement, each sub-cell lettered. Every sub-cell's
/// colour is looked up from the value the GPU returned, so a wrong packing would show as a wrong
/// picture. One element and the texel channel it lands in are outlined in both.
pub fn packing_picture(ctx: &GpuContext) -> Result<RgbImage> {
    use hall_packed::{packed_shape, upload_packed};
    use picture::{BG, RULE, fill, outline};
    use text::{INK, LABEL, MUTED, SMALL, TITLE};
    let (rows, cols) = (7usize, 9usize);
    let (h, w) = packed_shape(rows, cols);
    // Element (i, j) holds 1 + its row-major index (i·cols + j), exact in f32; padding is 0, so
    // a value names the element it came from.
    let x = Matrix::from_fn(rows, cols, |i, j| (i * cols + j + 1) as f32);
    let tex = upload_packed(ctx, "figure X", &x)?;
    let texels: Vec<[f32; 4]> = bytemuck::pod_collect_to_vec(&tex.read_bytes(ctx)?);

    const BASE: [[f32; 3]; 4] = [
        [214., 39., 40.],
        [44., 160., 44.],
        [31., 119., 180.],
        [110., 110., 110.],
    ];
    const QUADRANT: [&str; 4] = ["A", "B", "C", "D"];
    const CHANNEL: [&str; 4] = ["r", "g", "b", "a"];
    let colour = |v: f32| -> Option<Rgb<u8>> {
        if v == 0.0 {
            return None;
        }
        let idx = v as usize - 1;
        let (i, j) = (idx / cols, idx % cols);
        let q = 2 * usize::from(i >= h) + usize::from(j >= w);
        let t =
            ((i % h) as f32 / (h - 1).max(1) as f32 + (j % w) as f32 / (w - 1).max(1) as f32) / 2.0;
        let lift = 0.6 * (1.0 - t);
        Some(Rgb(BASE[q].map(|c| (c + (255.0 - c) * lift).round() as u8)))
    };
    let cell = 34u32;
    let panel_w = 2 * w as u32 * cell;
    let panel_h = 2 * h as u32 * cell;
    let arrow_w = 150u32;
    let (lx, ty) = (56u32, 118u32);
    let rx = lx + panel_w + arrow_w;
    let width = rx + panel_w + 300;
    let height = ty + panel_h + 76;
    let mut img = RgbImage::from_pixel(width, height, BG);
    let draw_cell = |img: &mut RgbImage, x0: u32, y0: u32, c: Option<Rgb<u8>>| {
        for dy in 0..cell {
            for dx in 0..cell {
                let edge = dx == 0 || dy == 0 || dx == cell - 1 || dy == cell - 1;
                let px = match c {
                    Some(Rgb(c)) if edge => Rgb(c.map(|v| (v as f32 * 0.7) as u8)),
                    Some(c) => c,
                    None if edge || (dx + dy) % 7 == 0 => Rgb([150, 150, 150]),
                    None => Rgb([250, 250, 250]),
                };
                img.put_pixel(x0 + dx, y0 + dy, px);
            }
        }
    };
    text::left(
        &mut img,
        24.0,
        14.0,
        &format!(
            "Hall–Carr–Hart eq. 8: a {rows}×{cols} matrix X packed 2×2 into a {h}×{w} RGBA texture (read back from the GPU)"
        ),
        TITLE,
        INK,
    );
    text::centre(
        &mut img,
        (lx + panel_w / 2) as f32,
        50.0,
        &format!(
            "X padded with zeros to {}×{}, cut into quadrants",
            2 * h,
            2 * w
        ),
        LABEL,
        INK,
    );
    text::centre(
        &mut img,
        (lx + panel_w / 2) as f32,
        72.0,
        &format!("X = (A B; C D), each quadrant {h}×{w}"),
        SMALL,
        MUTED,
    );
    text::centre(
        &mut img,
        (rx + panel_w / 2) as f32,
        50.0,
        &format!("The texture: {h}×{w} texels of 4 channels"),
        LABEL,
        INK,
    );
    text::centre(
        &mut img,
        (rx + panel_w / 2) as f32,
        72.0,
        "texel (i, j) = (r, g, b, a) = (A[i, j], B[i, j], C[i, j], D[i, j])",
        SMALL,
        MUTED,
    );
    // Left: the padded matrix, quadrant boundaries ruled, quadrants lettered.
    for i in 0..2 * h {
        for j in 0..2 * w {
            let v = if i < rows && j < cols {
                x.get(i, j)
            } else {
                0.0
            };
            draw_cell(
                &mut img,
                lx + j as u32 * cell,
                ty + i as u32 * cell,
                colour(v),
            );
        }
    }
    fill(
        &mut img,
        (lx + w as u32 * cell) as i32 - 2,
        ty as i32,
        4,
        panel_h,
        RULE,
    );
    fill(
        &mut img,
        lx as i32,
        (ty + h as u32 * cell) as i32 - 2,
        panel_w,
        4,
        RULE,
    );
    for (q, name) in QUADRANT.iter().enumerate() {
        let (qi, qj) = ((q / 2) as u32, (q % 2) as u32);
        let cx = (lx + qj * w as u32 * cell + w as u32 * cell / 2) as f32;
        let cy = (ty + qi * h as u32 * cell + h as u32 * cell / 2) as f32;
        fill(
            &mut img,
            cx as i32 - 17,
            cy as i32 - 19,
            34,
            38,
            Rgb([255, 255, 255]),
        );
        outline(&mut img, cx as i32 - 17, cy as i32 - 19, 34, 38, 1, RULE);
        text::centre(&mut img, cx, cy - 17.0, name, 30.0, INK);
    }
    // Indices, 0-based: X's rows and columns, the texture's texel rows and columns.
    for j in 0..2 * w as u32 {
        text::centre(
            &mut img,
            (lx + j * cell + cell / 2) as f32,
            (ty - 20) as f32,
            &j.to_string(),
            SMALL,
            MUTED,
        );
    }
    for i in 0..2 * h as u32 {
        text::draw(
            &mut img,
            (lx - 8) as f32,
            (ty + i * cell + cell / 2) as f32 - 8.0,
            &i.to_string(),
            SMALL,
            MUTED,
            text::Align::Right,
        );
    }
    for j in 0..w as u32 {
        text::centre(
            &mut img,
            (rx + 2 * j * cell + cell) as f32,
            (ty - 20) as f32,
            &j.to_string(),
            SMALL,
            MUTED,
        );
    }
    for i in 0..h as u32 {
        text::draw(
            &mut img,
            (rx - 8) as f32,
            (ty + 2 * i * cell + cell) as f32 - 8.0,
            &i.to_string(),
            SMALL,
            MUTED,
            text::Align::Right,
        );
    }
    // Middle: an arrow.
    let ay = (ty + panel_h / 2) as f32;
    picture::arrow(
        &mut img,
        ((lx + panel_w + 24) as f32, ay),
        ((rx - 30) as f32, ay),
        4.0,
        RULE,
    );
    text::centre(
        &mut img,
        (lx + panel_w + arrow_w / 2) as f32 - 3.0,
        ay - 28.0,
        "pack (eq. 8)",
        SMALL,
        INK,
    );
    // Right: the packed texture as the GPU holds it, texel boundaries ruled, channels lettered.
    for ti in 0..h {
        for tj in 0..w {
            let texel = texels[ti * w + tj];
            for (ch, &v) in texel.iter().enumerate() {
                let (sy, sx) = (ch as u32 / 2, ch as u32 % 2);
                let (x0, y0) = (
                    rx + (2 * tj as u32 + sx) * cell,
                    ty + (2 * ti as u32 + sy) * cell,
                );
                draw_cell(&mut img, x0, y0, colour(v));
                let letter = if colour(v).is_some() { INK } else { MUTED };
                text::centre(
                    &mut img,
                    (x0 + cell / 2) as f32,
                    (y0 + cell / 2) as f32 - 9.0,
                    CHANNEL[ch],
                    SMALL,
                    letter,
                );
            }
        }
    }
    for t in 0..=w as u32 {
        let x = (rx + 2 * t * cell).saturating_sub(1).min(rx + panel_w - 2);
        fill(&mut img, x as i32, ty as i32, 2, panel_h, RULE);
    }
    for t in 0..=h as u32 {
        let y = (ty + 2 * t * cell).saturating_sub(1).min(ty + panel_h - 2);
        fill(&mut img, rx as i32, y as i32, panel_w, 2, RULE);
    }
    // One element followed through: X[1, 6] is B[1, 1], the g channel of texel (1, 1).
    let (ei, ej) = (1usize, 6usize);
    let (ti, tj) = (ei % h, ej % w);
    let q = 2 * usize::from(ei >= h) + usize::from(ej >= w);
    let black = Rgb([0, 0, 0]);
    outline(
        &mut img,
        (lx + ej as u32 * cell) as i32 - 2,
        (ty + ei as u32 * cell) as i32 - 2,
        cell + 4,
        cell + 4,
        3,
        black,
    );
    let (sy, sx) = (q as u32 / 2, q as u32 % 2);
    outline(
        &mut img,
        (rx + (2 * tj as u32 + sx) * cell) as i32 - 2,
        (ty + (2 * ti as u32 + sy) * cell) as i32 - 2,
        cell + 4,
        cell + 4,
        3,
        black,
    );
    // The key, right of the texture.
    let kx = (rx + panel_w + 28) as f32;
    let mut ky = ty as f32;
    text::left(&mut img, kx, ky, "Key", LABEL, INK);
    ky += text::line(LABEL) + 4.0;
    let corner = ["top-left", "top-right", "bottom-left", "bottom-right"];
    for q in 0..4 {
        let c = Rgb(BASE[q].map(|v| v as u8));
        fill(&mut img, kx as i32, ky as i32 + 2, 16, 16, c);
        text::left(
            &mut img,
            kx + 24.0,
            ky,
            &format!("{} ({}) → {}", QUADRANT[q], corner[q], CHANNEL[q]),
            SMALL,
            INK,
        );
        ky += text::line(SMALL) + 4.0;
    }
    ky += 6.0;
    for l in [
        "Light to dark: the element's place",
        "in its quadrant (top-left lightest).",
        "Hatched: zero padding.",
        "",
        &format!("Outlined: X[{ei}, {ej}] = {}[{ti}, {tj}],", QUADRANT[q]),
        &format!("channel {} of texel ({ti}, {tj}).", CHANNEL[q]),
        "",
        "Indices count from 0.",
    ] {
        text::left(&mut img, kx, ky, l, SMALL, MUTED);
        ky += text::line(SMALL);
    }
    let foot = (ty + panel_h + 24) as f32;
    text::lines(
        &mut img,
        lx as f32,
        foot,
        &[
            "One texel carries the (i, j) element of all four quadrants, so one fragment of hall-packed computes four elements of C at once (eq. 10-11):",
            "Z = (AE + BG  AF + BH; CE + DG  CF + DH), two 4-wide multiply-adds per packed p. Odd sides are padded with zeros, which add nothing.",
        ],
        SMALL,
        MUTED,
    );
    Ok(img)
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture (see [`packing_picture`]).
pub fn hall_packing(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &packing_picture(ctx)?)
}

/// The tour's inputs: A (32×32) diagonal, A[i, i] running from +1 at the top to −1 at the bottom,
/// and B a checkerboard of 4×4 blocks of ±1, so that row i of C = A·B is row i of B times
/// A[i, i] — the checkerboard fading out towards the middle and coming back inverted — and each
/// slice p touches only row p of C.
pub fn tour_inputs() -> (Matrix, Matrix) {
    let n = 32;
    let a = Matrix::from_fn(n, n, |i, p| {
        if i == p {
            1.0 - 2.0 * i as f32 / (n - 1) as f32
        } else {
            0.0
        }
    });
    let b = Matrix::from_fn(
        n,
        n,
        |p, j| if (p / 4 + j / 4) % 2 == 0 { 1.0 } else { -1.0 },
    );
    (a, b)
}

/// The tour's picture: A, B, one slice, C after the slices up to it, and C, all computed by
/// `lm` on the GPU from [`tour_inputs`], titled, on one colour scale.
pub fn tour_picture(ctx: &GpuContext) -> Result<RgbImage> {
    let (a, b) = tour_inputs();
    let n = a.rows;
    let p = 5;
    let lm = |x: &Matrix, y: &Matrix| -> Result<Matrix> {
        Ok(plan::multiply(Some(ctx), Method::Lm, x, y, &mut Options::default())?.c)
    };
    let slice = lm(
        &Matrix::from_fn(n, 1, |i, _| a.get(i, p)),
        &Matrix::from_fn(1, n, |_, j| b.get(p, j)),
    )?;
    let partial = lm(
        &Matrix::from_fn(n, p + 1, |i, q| a.get(i, q)),
        &Matrix::from_fn(p + 1, n, |q, j| b.get(q, j)),
    )?;
    let c = lm(&a, &b)?;
    let (img, _) = picture::titled_panels(
        &format!("C = A·B by lm ({n}×{n}×{n}, {n} blended slices), one slice at a time"),
        &[
            picture::Titled::new(&a, &["A: diagonal", "A[i, i] from +1 down to −1"]).scale(1.0),
            picture::Titled::new(&b, &["B: checkerboard", "4×4 blocks of ±1"]).scale(1.0),
            picture::Titled::new(
                &slice,
                &[
                    &format!("Slice p = {p}"),
                    &format!("A[i, {p}] · B[{p}, j]: row {p} only"),
                ],
            )
            .scale(1.0),
            picture::Titled::new(
                &partial,
                &[
                    &format!("C after slices 0…{p}"),
                    &format!("rows 0…{p} done"),
                ],
            )
            .scale(1.0),
            picture::Titled::new(&c, &["C = A·B", "row i = A[i, i] × row i of B"]).scale(1.0),
        ],
        200,
        &[
            "Indices count from 0: row i, column j, slice p. Slice p multiplies column p of A (across) by row p of B (down); lm blends the k slices into C.",
            "A is zero off its diagonal, so slice p lights only row p of C: C fills in row by row, and row i is B's row i scaled by A[i, i].",
        ],
    );
    Ok(img)
}

/// The tour's picture of `lm` (see [`tour_picture`]).
pub fn tour_lm(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &tour_picture(ctx)?)
}

/// One era's row of the pipeline figure: its name, the methods, and per stage what it does and
/// where (`None`: the era does not use the stage).
struct EraRow {
    name: &'static str,
    methods: &'static str,
    group: usize,
    stages: [Option<(&'static str, &'static [&'static str])>; 6],
}

/// The stages of the render pipeline, in order: name and what the stage does in general.
const STAGES: [(&str, &str); 6] = [
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
const ERA_ROWS: [EraRow; 3] = [
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
const COMPUTE_FILES: [(&str, &[&str]); 3] = [
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

/// L-M figure 3: operations per second of `lm` over a grid of shapes (sides 16, 64 and 256 in
/// every combination), in u8 as the paper and in f32, against the elements passed in (m·k + k·n,
/// the left graph) and the operations done (2·m·k·n − m·n, the right), with the GeForce3's 4.4
/// GBops as the reference line. Times include upload and readback, as the paper's did.
pub fn lm_fig3(ctx: &GpuContext, out: &Path) -> Result<()> {
    let sides = [16usize, 64, 256];
    let mut left = vec![];
    let mut right = vec![];
    let mut rows = vec![];
    for precision in [Precision::U8, Precision::F32] {
        let mut by_elems = vec![];
        let mut by_ops = vec![];
        for &m in &sides {
            for &k in &sides {
                for &n in &sides {
                    let (lo, hi) = if precision == Precision::U8 {
                        (0.0, 1.0)
                    } else {
                        (-1.0, 1.0)
                    };
                    let a = Matrix::random(m, k, 7, lo, hi);
                    let b = Matrix::random(k, n, 8, lo, hi);
                    let mut opts = Options {
                        precision,
                        ..Default::default()
                    };
                    // One untimed run first: the pipeline's first use pays for shader compilation.
                    plan::multiply(Some(ctx), Method::Lm, &a, &b, &mut opts)?;
                    let mut opts = Options {
                        precision,
                        ..Default::default()
                    };
                    let run = plan::multiply(Some(ctx), Method::Lm, &a, &b, &mut opts)?;
                    let ops = (2 * m * k * n - m * n) as f64;
                    let mops = ops / (run.timings.total_ms().max(1e-9) * 1e3);
                    by_elems.push(((m * k + k * n) as f64, mops));
                    by_ops.push((ops, mops));
                    rows.push((precision, m, k, n, run.timings.total_ms(), mops));
                }
            }
        }
        let name = format!("lm {precision}");
        left.push(Series {
            name: name.clone(),
            points: by_elems,
            group: 0,
        });
        right.push(Series {
            name,
            points: by_ops,
            group: 0,
        });
    }
    let y = "M operations/s (2mkn − mn over total time)".to_string();
    plots::scatter_panels(
        out,
        &format!(
            "L-M figure 3 on {}: lm, shapes m, k, n in {{16, 64, 256}}",
            adapter_tag(ctx)
        ),
        &[
            Panel {
                x_desc: "elements passed in (m·k + k·n)".into(),
                y_desc: y.clone(),
                series: left,
            },
            Panel {
                x_desc: "operations (2·m·k·n − m·n)".into(),
                y_desc: y,
                series: right,
            },
        ],
        Some((4400.0, "GeForce3, 2001: 4.4 GBops (the paper)")),
    )?;
    let mut md = provenance(Some(ctx), None);
    md.push_str("L-M figure 3, re-measured: `lm` on every shape with sides 16, 64 and 256, one warm-up run then one timed run each; operations per second are the paper's (2·m·k·n − m·n) over the total time (upload, passes, readback), as its timings included conversion and transfer.\n\n");
    md.push_str("| precision | best shape (m×k×n) | total ms | M operations/s | the paper (GeForce3, u8) |\n|---|---|---|---|---|\n");
    for precision in [Precision::U8, Precision::F32] {
        let best = rows
            .iter()
            .filter(|r| r.0 == precision)
            .max_by(|x, y| x.5.total_cmp(&y.5))
            .expect("rows ran");
        let paper = if precision == Precision::U8 {
            "4400 (4.4 GBops, its best)"
        } else {
            "– (8-bit only)"
        };
        let _ = writeln!(
            md,
            "| {precision} | {}×{}×{} | {:.2} | {:.0} | {paper} |",
            best.1, best.2, best.3, best.4, best.5
        );
    }
    write_text(&out.with_extension("md"), &md)
}

/// L-M figures 4-5 from `reach --bench`, drawn by [`crate::reach::breakdown_chart`] (the chart
/// `reach --bench` draws): on a CPU adapter n = 256 and 8 powers (the paper's 1024 and 20 take
/// minutes there), elsewhere the paper's.
pub fn reach_bench(ctx: &GpuContext, out: &Path) -> Result<()> {
    let (n, powers) = if ctx.info.device_type == wgpu::DeviceType::Cpu {
        (256, 8)
    } else {
        (1024, 20)
    };
    let opts = crate::reach::ReachOptions {
        method: Method::Lm,
        precision: Some(Precision::U8),
        ..Default::default()
    };
    let r = crate::reach::bench(ctx, n, powers, 1, &opts)?;
    crate::reach::breakdown_chart(&r, out)?;
    let mut md = provenance(
        Some(ctx),
        Some(&format!("rendermm reach --bench --n {n} --powers {powers}")),
    );
    md.push_str("| phase | count | per matrix ms | total ms | the paper (GeForce3, n = 1024, 20 products) |\n|---|---|---|---|---|\n");
    let b = &r.breakdown;
    let _ = writeln!(
        md,
        "| texture load | 1 | {:.3} | {:.3} | figure 4 (bars, no numbers) |",
        r.load_per_matrix_ms, b.load_ms
    );
    let gpu = r
        .copy_gpu_per_matrix_ms
        .map_or(String::new(), |g| format!(" ({g:.3} by GPU timestamps)"));
    let _ = writeln!(
        md,
        "| GPU copy | {} | {:.3}{gpu} | {:.3} | \"approximately twice as fast\" as load or readback |",
        b.copies, r.copy_per_matrix_ms, b.copy_ms
    );
    let _ = writeln!(
        md,
        "| readback | 1 | {:.3} | {:.3} | |",
        r.readback_per_matrix_ms, b.readback_ms
    );
    let _ = writeln!(
        md,
        "| multiplies | {} | {:.3} | {:.3} | 546 ms per product |",
        b.products, r.multiply_per_product_ms, b.multiply_ms
    );
    let _ = writeln!(
        md,
        "| total | | | {:.3} | figure 5: the multiplies \"vastly dominate\" |",
        b.total_ms()
    );
    let _ = writeln!(
        md,
        "\nThe multiplies take {:.1}% of the total ({:.3} GBops over them).",
        100.0 * r.multiply_share,
        r.gbops
    );
    write_text(&out.with_extension("md"), &md)
}

/// One row of Hall's tables: ours from the model, the paper's formula and its value.
fn hall_table(bytes: bool, out: &Path) -> Result<()> {
    let (n, b) = (1024usize, 32u32);
    let (nf, bf) = (n as f64, b as f64);
    let paper: [(&str, Method, f64, f64, f64, f64); 3] = if bytes {
        [
            ("L-M", Method::Lm, nf, nf * nf, 16.0, 16.0 * nf.powi(3)),
            (
                "single",
                Method::HallBlocked,
                nf / bf,
                nf * nf,
                (2.0 * bf + 2.0) * 4.0,
                8.0 * nf.powi(3) * (bf + 1.0) / bf,
            ),
            (
                "multi",
                Method::HallPacked,
                nf / (2.0 * bf),
                (nf / 2.0).powi(2),
                (2.0 * bf + 2.0) * 16.0,
                4.0 * nf.powi(3) * (bf + 1.0) / bf,
            ),
        ]
    } else {
        [
            ("L-M", Method::Lm, nf, nf * nf, 2.0, 2.0 * nf.powi(3)),
            (
                "single",
                Method::HallBlocked,
                nf / bf,
                nf * nf,
                2.0 * bf + 4.0,
                nf.powi(3) * (2.0 * bf + 4.0) / bf,
            ),
            (
                "multi",
                Method::HallPacked,
                nf / (2.0 * bf),
                (nf / 2.0).powi(2),
                3.0 * bf + 4.0,
                nf.powi(3) * (3.0 * bf + 4.0) / (8.0 * bf),
            ),
        ]
    };
    let what = if bytes {
        "bytes moved inside the GPU"
    } else {
        "fragment-shader instructions"
    };
    let unit = if bytes { "bytes/frag" } else { "inst/frag" };
    let mut md = provenance(None, None);
    let _ = writeln!(
        md,
        "Hall–Carr–Hart table {}, {what}, from `rendermm model --m {n} --k {n} --n {n} --b {b}` beside the paper's formula evaluated at n = {n}, b = {b}.\n",
        if bytes { 1 } else { 2 }
    );
    let _ = writeln!(
        md,
        "| paper row | method | passes | frags/pass | {unit} | total (model) | paper's formula | paper at n = {n} | equal |"
    );
    md.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for (row, method, _, _, _, pv) in paper {
        let m = crate::model::model(method, n, n, n, b)
            .ok_or_else(|| Error::Invalid(format!("{method} has no model")))?;
        let (per, total, formula) = if bytes {
            (m.bytes_per_fragment, m.total_bytes, m.paper_bytes_formula)
        } else {
            (
                m.instructions_per_fragment,
                m.total_instructions,
                m.paper_instructions_formula,
            )
        };
        let same = if (total as f64 - pv).abs() < 0.5 {
            "yes"
        } else {
            "no"
        };
        let _ = writeln!(
            md,
            "| {row} | `{}` | {} | {} | {per} | {total} | {formula} | {pv:.0} | {same} |",
            m.method, m.passes, m.fragments_per_pass
        );
    }
    if bytes {
        md.push_str("\n§5.3: \"our multi-channel algorithm transfers 4.125 GB of data\" for n = 1024, b = 32 — the model's `hall-packed` total is 4 429 185 024 bytes = 4.125 GiB.\n");
    }
    write_text(out, &md)
}

/// Hall–Carr–Hart table 1 (bytes) as Markdown.
pub fn hall_table1(_ctx: &GpuContext, out: &Path) -> Result<()> {
    hall_table(true, out)
}

/// Hall–Carr–Hart table 2 (instructions) as Markdown.
pub fn hall_table2(_ctx: &GpuContext, out: &Path) -> Result<()> {
    hall_table(false, out)
}

/// A demo's GIF, as `rendermm demo KIND --random 8x8x8 --headless --gif OUT` writes it.
fn demo_gif(kind: crate::demo::Kind, out: &Path) -> Result<()> {
    use crate::demo::{Inputs, Settings, headless, render::Renderer, state::DemoState};
    // The demo's state holds its own context (it steps the passes on a thread).
    let ctx = std::sync::Arc::new(GpuContext::new()?);
    let settings = Settings {
        kind,
        precision: Precision::F32,
        block: None,
        scale_by_depth: false,
    };
    let inputs = Inputs::random(8, 8, 8, 1, Precision::F32)?;
    let mut state = DemoState::new(ctx.clone(), settings, inputs)?;
    let mut renderer = Renderer::new(&ctx)?;
    let opts = headless::HeadlessOptions {
        frames: None,
        gif: Some(out.to_path_buf()),
        screenshot: None,
        size: (960, 420),
        status: true,
    };
    headless::run(&mut state, &mut renderer, &opts)?;
    Ok(())
}

/// `demo lm` as a GIF.
pub fn demo_lm(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Lm, out)
}

/// `demo hall` as a GIF.
pub fn demo_hall(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Hall, out)
}

/// `demo packed` as a GIF.
pub fn demo_packed(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Packed, out)
}

/// `demo cube` as a GIF.
pub fn demo_cube(_ctx: &GpuContext, out: &Path) -> Result<()> {
    demo_gif(crate::demo::Kind::Cube, out)
}

/// A bench suite with few trials (the figures must stay quick).
fn suite(
    ctx: &GpuContext,
    s: Suite,
    trials: usize,
    size: Option<(usize, usize, usize)>,
) -> Result<SuiteReport> {
    let rep = bench::run(
        ctx,
        s,
        &BenchOptions {
            trials,
            warmup: 1,
            size,
            seed: 1,
        },
    )?;
    if let Some(r) = rep
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .find(|r| r.error.is_some() || !r.check_passed)
    {
        return Err(Error::Invalid(format!(
            "bench --suite {}: row '{}' {}",
            rep.suite,
            r.label,
            r.error
                .clone()
                .unwrap_or_else(|| format!("failed its check (rel_err {:e})", r.rel_err))
        )));
    }
    Ok(rep)
}

/// The 5kk73 ladder at 256³ as a bar chart and a table.
pub fn kk73_steps(ctx: &GpuContext, out: &Path) -> Result<()> {
    let size = (256, 256, 256);
    let rep = suite(ctx, Suite::Kk73, 3, Some(size))?;
    let t = &rep.tables[0];
    let bars: Vec<Bar> = t
        .rows
        .iter()
        .map(|r| Bar {
            label: r.label.clone(),
            value: Some(r.best_gflops),
            text: format!(
                "{} GFLOP/s ({} ms)",
                plots::short(r.best_gflops),
                plots::short(r.wall.min)
            ),
            group: 2,
        })
        .collect();
    plots::bar_chart(
        out,
        &format!(
            "The 5kk73 ladder at {}x{}x{} on {} (best of 3, wall clock)",
            size.0,
            size.1,
            size.2,
            adapter_tag(ctx)
        ),
        "GFLOP/s",
        &bars,
        false,
        &plots::ERA_NAMES,
    )?;
    let mut md = provenance(
        Some(ctx),
        Some("rendermm bench --suite 5kk73 --size 256x256x256 --trials 3"),
    );
    md.push_str("| rung | ran as | min ms | avg ms | GFLOP/s (best) | check | the course page |\n|---|---|---|---|---|---|---|\n");
    for r in &t.rows {
        let _ = writeln!(
            md,
            "| {} | `{}` | {:.2} | {:.2} | {:.3} | {} | a figure only (8800 GT, n = 4096) |",
            r.label,
            r.ran_as,
            r.wall.min,
            r.wall.avg,
            r.best_gflops,
            if r.check_passed { "ok" } else { "FAIL" }
        );
    }
    md.push_str("\nThe 5kk73 page plots its steps for an 8800 GT at n = 4096 but prints no numbers, so there is no paper column to set beside these.\n");
    write_text(&out.with_extension("md"), &md)
}

/// O'Neil's tables 1-2, re-measured, beside the paper's.
pub fn oneil_tables(ctx: &GpuContext, out: &Path) -> Result<()> {
    let rep = suite(ctx, Suite::Oneil, 5, None)?;
    let mut md = provenance(Some(ctx), Some("rendermm bench --suite oneil --trials 5"));
    for t in &rep.tables {
        let _ = writeln!(
            md,
            "**{}** ({}×{}, µs: ours over 5 trials after a warm-up, wall clock; the paper's on a Tesla C2070)\n",
            t.title, t.m, t.n
        );
        md.push_str("| algorithm | ran as | min | max | avg | std | GPU avg | paper trials | paper min | paper max | paper avg | paper std |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in &t.rows {
            let gpu = r.gpu.map_or("–".to_string(), |g| format!("{:.1}", g.avg));
            let paper = match r.paper {
                Some(p) => format!(
                    "{} | {:.1} | {:.1} | {:.1} | {:.1}",
                    p.trials, p.min, p.max, p.avg, p.std
                ),
                None => "– | – | – | – | –".to_string(),
            };
            let _ = writeln!(
                md,
                "| {} | `{}` | {:.1} | {:.1} | {:.1} | {:.1} | {gpu} | {paper} |",
                r.label, r.ran_as, r.wall.min, r.wall.max, r.wall.avg, r.wall.std
            );
        }
        md.push('\n');
    }
    for n in &rep.notes {
        let _ = writeln!(md, "- {n}");
    }
    write_text(out, &md)
}

/// Each era's methods on one 256³ product: GFLOP/s (device time where the adapter has
/// timestamps), best of two runs after a warm-up, each checked against the f64 reference.
/// Methods the adapter cannot run (tensor cores without cooperative matrices) or this build does
/// not have are listed with the reason.
pub fn eras(ctx: &GpuContext, out: &Path) -> Result<()> {
    let n = 256;
    let roster: [Method; 12] = [
        Method::Lm,
        Method::HallBlocked,
        Method::HallPacked,
        Method::FragMrt,
        Method::CsNaive,
        Method::CsTiled16,
        Method::Kk73Unrolled,
        Method::CannonTiled,
        Method::DnsTiled,
        Method::CsFast,
        Method::Coop,
        Method::CpuFast,
    ];
    let a = Matrix::random(n, n, 21, -1.0, 1.0);
    let b = Matrix::random(n, n, 22, -1.0, 1.0);
    let reference = crate::cpu::reference_f64(&a, &b);
    let mut bars = vec![];
    let mut md = provenance(Some(ctx), None);
    md.push_str("| era | method | GFLOP/s | clock | rel_err | note |\n|---|---|---|---|---|---|\n");
    let era_names = plots::ERA_NAMES;
    for method in roster {
        let group = plots::era_group(method.info().era);
        let name = method.name();
        let (value, text, row) = {
            let run = || plan::multiply(Some(ctx), method, &a, &b, &mut Options::default());
            match run()
                .and_then(|_| run())
                .and_then(|r1| run().map(|r2| (r1, r2)))
            {
                Err(e) => {
                    let msg = e.to_string();
                    let short: String = msg.chars().take(70).collect();
                    (None, format!("not on this adapter: {short}…"), msg)
                }
                Ok((r1, r2)) => {
                    let best = if r1.timings.compute_time().0 <= r2.timings.compute_time().0 {
                        r1
                    } else {
                        r2
                    };
                    let stats = crate::check::compare(&best.c, &reference);
                    let rep =
                        Report::of_run(Some(ctx), method, Precision::F32, &a, &b, &best, None);
                    // Each method held to its own bound (coop's f16 inputs are not 1e-5).
                    let ok = crate::plan::verdict_for(method, &Options::default(), &a, &b, &best.c)
                        .passed;
                    let text = format!(
                        "{} GFLOP/s{}",
                        plots::short(rep.gflops),
                        if ok { "" } else { " (FAILED its check)" }
                    );
                    let _ = writeln!(
                        md,
                        "| {} | `{name}` | {:.3} | {} | {:.2e} | {} |",
                        era_names[group],
                        rep.gflops,
                        rep.timing.name(),
                        stats.rel_err,
                        if ok { "" } else { "outside its tolerance" }
                    );
                    bars.push(Bar {
                        label: name.to_string(),
                        value: Some(rep.gflops),
                        text,
                        group,
                    });
                    continue;
                }
            }
        };
        let _ = writeln!(
            md,
            "| {} | `{name}` | – | – | – | {} |",
            era_names[group],
            row.replace('|', "/")
        );
        bars.push(Bar {
            label: name.to_string(),
            value,
            text,
            group,
        });
    }
    plots::bar_chart(
        out,
        &format!(
            "Each era on one {n}x{n}x{n} multiply, {} (GFLOP/s, log scale)",
            adapter_tag(ctx)
        ),
        "GFLOP/s (2n³ over the compute time; device time where the adapter has timestamps)",
        &bars,
        true,
        &era_names,
    )?;
    write_text(&out.with_extension("md"), &md)
}

/// Past one texture: `hall-blocked` (b = 8) on 48×40·40×36 under a 14 KiB budget, which cuts C
/// into blocks and k into chunks; A, B and the tiled C side by side, each titled and on its own
/// colour scale, with the cuts drawn over them and each block's and chunk's size written along
/// its edge.
pub fn tiling(ctx: &GpuContext, out: &Path) -> Result<()> {
    let a = Matrix::random(48, 40, 31, -1.0, 1.0);
    let b = Matrix::random(40, 36, 32, -1.0, 1.0);
    let budget = 14usize << 10;
    let mut opts = Options {
        tiling: crate::plan::tiled::TileOptions {
            mem_budget: Some(budget as u64),
            ..Default::default()
        },
        block: Some(8),
        ..Default::default()
    };
    let c = plan::multiply(Some(ctx), Method::HallBlocked, &a, &b, &mut opts)?.c;
    let t = opts
        .tiled
        .ok_or_else(|| Error::Invalid("the tiling figure's budget did not tile".into()))?;
    let (img, at) = picture::titled_panels(
        &format!(
            "Past one texture: hall-blocked on {}×{}·{}×{} under a {} KiB memory budget",
            a.rows,
            a.cols,
            b.rows,
            b.cols,
            budget >> 10
        ),
        &[
            picture::Titled::new(
                &a,
                &[
                    &format!("A {}×{}", a.rows, a.cols),
                    &format!(
                        "rows in blocks of {}, k in chunks of {}",
                        t.tile_m, t.tile_k
                    ),
                ],
            ),
            picture::Titled::new(
                &b,
                &[
                    &format!("B {}×{}", b.rows, b.cols),
                    &format!(
                        "k in chunks of {}, columns in blocks of {}",
                        t.tile_k, t.tile_n
                    ),
                ],
            ),
            picture::Titled::new(
                &c,
                &[
                    &format!(
                        "C {}×{}: {}×{} blocks",
                        c.rows, c.cols, t.blocks_m, t.blocks_n
                    ),
                    &format!("each summed over {} chunks of k", t.chunks_k),
                ],
            ),
        ],
        240,
        &[
            &format!(
                "Each block of C is one product per chunk of k: {} tile multiplies in all, the chunks of a block summed by {} (accumulate: {}).",
                t.tile_multiplies, t.ran_as, t.accumulate
            ),
            "Numbers along the edges: the size of each block or chunk, in elements. Colours: blue < 0 < red, each panel on its own scale (its bar below it).",
        ],
    );
    let mut img = img;
    let ink = Rgb([20, 20, 20]);
    let cuts = |total: usize, size: usize| -> Vec<(usize, usize)> {
        (0..total)
            .step_by(size.max(1))
            .map(|s| (s, (s + size).min(total)))
            .collect()
    };
    // Cut lines and sizes: `rows` splits along y (left labels), `cols` along x (top labels).
    let mark = |img: &mut RgbImage, p: picture::Placed, m: &Matrix, rows: usize, cols: usize| {
        let (w, h) = (m.cols as u32 * p.cell, m.rows as u32 * p.cell);
        for (s, e) in cuts(m.rows, rows) {
            if s > 0 {
                picture::fill(
                    img,
                    p.x as i32,
                    (p.y + s as u32 * p.cell) as i32 - 1,
                    w,
                    3,
                    ink,
                );
            }
            let mid = p.y as f32 + (s + e) as f32 * p.cell as f32 / 2.0;
            text::draw(
                img,
                p.x as f32 - 4.0,
                mid - 8.0,
                &(e - s).to_string(),
                text::SMALL,
                ink,
                text::Align::Right,
            );
        }
        for (s, e) in cuts(m.cols, cols) {
            if s > 0 {
                picture::fill(
                    img,
                    (p.x + s as u32 * p.cell) as i32 - 1,
                    p.y as i32,
                    3,
                    h,
                    ink,
                );
            }
            let mid = p.x as f32 + (s + e) as f32 * p.cell as f32 / 2.0;
            text::centre(
                img,
                mid,
                p.y as f32 - text::line(text::SMALL),
                &(e - s).to_string(),
                text::SMALL,
                ink,
            );
        }
    };
    mark(&mut img, at[0], &a, t.tile_m, t.tile_k);
    mark(&mut img, at[1], &b, t.tile_k, t.tile_n);
    mark(&mut img, at[2], &c, t.tile_m, t.tile_n);
    picture::save_png(out, &img)
}

/// Two 4×4 0/1 matrices in the spirit of the L-M paper's figure 2 (white is 1, black is 0),
/// chosen so that C has zeros, ones, and sums of two that saturate to white in 8 bits.
pub fn lm_fig2_inputs() -> (Matrix, Matrix) {
    let a = Matrix::new(
        4,
        4,
        vec![
            1., 0., 1., 0., //
            0., 1., 0., 0., //
            1., 0., 1., 1., //
            0., 0., 0., 1.,
        ],
    )
    .expect("4x4");
    let b = Matrix::new(
        4,
        4,
        vec![
            1., 0., 0., 1., //
            0., 1., 0., 0., //
            1., 0., 1., 0., //
            0., 0., 1., 0.,
        ],
    )
    .expect("4x4");
    (a, b)
}

/// Grey of a 0..1 value, as the L-M paper draws its matrices (white is 1, black is 0).
fn grey(v: f32) -> Rgb<u8> {
    let g = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    Rgb([g, g, g])
}

/// Pixels per cell of L-M figure 2's 4×4 panels.
pub const LM_FIG2_CELL: u32 = 36;

/// L-M figure 2 as the paper draws it, recomputed: A and B (4×4, 0/1), column p = 2 of A
/// replicated across a slice, row p = 2 of B replicated down it, the two multiplied (the slice,
/// by `lm` in u8 on the GPU), and C, the sum of the four slices in the 8-bit pipeline (by `lm`
/// in u8), where a sum above one saturates to white. Each panel is titled; a grey scale, the
/// 0-based index convention and the saturated cells are marked in the picture. Returns the
/// picture and where each of the six panels lies (A, B, column, row, slice, C).
pub fn lm_fig2_picture(ctx: &GpuContext) -> Result<(RgbImage, Vec<picture::Placed>)> {
    use picture::{BG, RULE, fill, outline};
    use text::{INK, LABEL, MUTED, SMALL, TITLE};
    let (a, b) = lm_fig2_inputs();
    let p = 2; // the paper's "3rd column", 0-based
    let col = Matrix::from_fn(4, 1, |i, _| a.get(i, p));
    let row = Matrix::from_fn(1, 4, |_, j| b.get(p, j));
    let u8_opts = || Options {
        precision: Precision::U8,
        ..Default::default()
    };
    let slice = plan::multiply(Some(ctx), Method::Lm, &col, &row, &mut u8_opts())?.c;
    let c = plan::multiply(Some(ctx), Method::Lm, &a, &b, &mut u8_opts())?.c;
    let across = Matrix::from_fn(4, 4, |i, _| a.get(i, p));
    let down = Matrix::from_fn(4, 4, |_, j| b.get(p, j));
    let cell = LM_FIG2_CELL;
    let side = 4 * cell;
    let gap = 64u32;
    let panels: [(&Matrix, [String; 2]); 6] = [
        (&a, ["A".into(), format!("column p = {p} outlined")]),
        (&b, ["B".into(), format!("row p = {p} outlined")]),
        (
            &across,
            [format!("Column {p} of A"), "replicated across".into()],
        ),
        (&down, [format!("Row {p} of B"), "replicated down".into()]),
        (
            &slice,
            [format!("Slice p = {p}"), "the two multiplied".into()],
        ),
        (
            &c,
            ["C = slices 0 + 1 + 2 + 3".into(), "summed in 8 bits".into()],
        ),
    ];
    let ops = ["", "", "×", "=", "+ slices 0, 1 and 3", ""];
    let width = 6 * side + 5 * gap + 2 * 32;
    let top = 98u32;
    let height = top + side + 128;
    let mut img = RgbImage::from_pixel(width, height, BG);
    text::left(
        &mut img,
        32.0,
        14.0,
        "Larsen–McAllister figure 2, recomputed by lm in 8 bits on the GPU",
        TITLE,
        INK,
    );
    let mut placed = vec![];
    for (idx, (m, title)) in panels.iter().enumerate() {
        let x0 = 32 + idx as u32 * (side + gap);
        text::centre(
            &mut img,
            (x0 + side / 2) as f32,
            50.0,
            &title[0],
            LABEL,
            INK,
        );
        text::centre(
            &mut img,
            (x0 + side / 2) as f32,
            72.0,
            &title[1],
            SMALL,
            MUTED,
        );
        outline(
            &mut img,
            x0 as i32 - 1,
            top as i32 - 1,
            side + 2,
            side + 2,
            1,
            RULE,
        );
        for i in 0..4 {
            for j in 0..4 {
                let (x, y) = (x0 + j * cell, top + i * cell);
                fill(
                    &mut img,
                    x as i32,
                    y as i32,
                    cell,
                    cell,
                    Rgb([120, 120, 120]),
                );
                fill(
                    &mut img,
                    x as i32 + 1,
                    y as i32 + 1,
                    cell - 1,
                    cell - 1,
                    grey(m.get(i as usize, j as usize)),
                );
            }
        }
        // Indices along the top and the left, 0-based.
        for t in 0..4u32 {
            text::centre(
                &mut img,
                (x0 + t * cell + cell / 2) as f32,
                (top + side + 4) as f32,
                &t.to_string(),
                SMALL,
                MUTED,
            );
        }
        if idx == 0 {
            for t in 0..4u32 {
                text::draw(
                    &mut img,
                    x0 as f32 - 6.0,
                    (top + t * cell + cell / 2) as f32 - 8.0,
                    &t.to_string(),
                    SMALL,
                    MUTED,
                    text::Align::Right,
                );
            }
        }
        // Column p of A and row p of B, the two factors of the slice, framed in red.
        let red = Rgb([220, 30, 30]);
        match idx {
            0 => outline(
                &mut img,
                (x0 + p as u32 * cell) as i32 - 1,
                top as i32 - 2,
                cell + 3,
                side + 4,
                3,
                red,
            ),
            1 => outline(
                &mut img,
                x0 as i32 - 2,
                (top + p as u32 * cell) as i32 - 1,
                side + 4,
                cell + 3,
                3,
                red,
            ),
            _ => {}
        }
        // C: the cells whose true sum is 2 but show 1.
        if idx == 5 {
            for i in 0..4 {
                for j in 0..4 {
                    let sum: f32 = (0..4).map(|q| a.get(i, q) * b.get(q, j)).sum();
                    if sum > 1.0 {
                        let (x, y) = (x0 + j as u32 * cell, top + i as u32 * cell);
                        text::centre(
                            &mut img,
                            (x + cell / 2) as f32,
                            (y + cell / 2) as f32 - 8.0,
                            &format!("{sum:.0}→1"),
                            SMALL,
                            red,
                        );
                    }
                }
            }
        }
        if !ops[idx].is_empty() {
            let ox = (x0 + side + gap / 2) as f32;
            let oy = (top + side / 2) as f32;
            if ops[idx].len() > 2 {
                picture::arrow(
                    &mut img,
                    (ox - gap as f32 / 2.0 + 6.0, oy),
                    (ox + gap as f32 / 2.0 - 6.0, oy),
                    2.0,
                    RULE,
                );
                for (n, l) in text::wrap(ops[idx], SMALL, gap as f32 - 4.0)
                    .iter()
                    .enumerate()
                {
                    text::centre(
                        &mut img,
                        ox,
                        oy + 8.0 + n as f32 * text::line(SMALL),
                        l,
                        SMALL,
                        INK,
                    );
                }
            } else {
                text::centre(&mut img, ox, oy - 16.0, ops[idx], 28.0, INK);
            }
        }
        placed.push(picture::Placed {
            x: x0,
            y: top,
            cell,
        });
    }
    let y_bar = top + side + 34;
    picture::colour_bar(
        &mut img,
        32,
        y_bar as i32,
        240,
        grey,
        &[
            (0.0, "0 (black)".into()),
            (0.5, "0.5".into()),
            (1.0, "1 (white)".into()),
        ],
        "value of an element",
    );
    let notes = [
        format!("Indices count from 0: p = {p} is the paper's 3rd column of A and 3rd row of B. Every panel is 4×4 (the slice covers C's target)."),
        "The paper: \"The 3rd column of A is replicated across a slice, and the 3rd row of B is replicated down the slice. The two are then".into(),
        "shown multiplied together via multi-texturing. Finally, the result matrix, C, is the sum of this 3rd slice with the other three.\"".into(),
        "Red \"2→1\": the true sum is 2, but the 8-bit framebuffer saturates at 1 (FF + 01 = FF), so C shows white.".into(),
    ];
    let mut y = (y_bar + 12) as f32;
    for n in &notes {
        text::left(&mut img, 300.0, y, n, SMALL, MUTED);
        y += text::line(SMALL);
    }
    Ok((img, placed))
}

/// L-M figure 2 (see [`lm_fig2_picture`]).
pub fn lm_fig2(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &lm_fig2_picture(ctx)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file the pipeline figure names exists, and every entry point it names is in the
    /// file named before it.
    #[test]
    fn the_pipeline_figure_names_only_files_and_entry_points_that_exist() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        for era in &ERA_ROWS {
            for (_, files) in era.stages.iter().flatten() {
                let mut last: Option<PathBuf> = None;
                for f in files.iter() {
                    if f.ends_with(".rs") || f.ends_with(".wgsl") {
                        let p = root.join(f);
                        assert!(p.is_file(), "{f} (in {}) does not exist", era.name);
                        last = Some(p);
                        checked += 1;
                    } else if !f.contains(' ') && !f.starts_with('(') {
                        // An identifier: in the file before it, or in the era's shaders.
                        let text = match &last {
                            Some(p) => std::fs::read_to_string(p).unwrap(),
                            None => ["shaders/hall_blocked.wgsl", "shaders/hall_packed.wgsl"]
                                .iter()
                                .map(|s| std::fs::read_to_string(root.join(s)).unwrap())
                                .collect(),
                        };
                        assert!(text.contains(f), "{f} is not in {last:?}");
                        checked += 1;
                    }
                }
            }
        }
        for (dir, names) in COMPUTE_FILES {
            for n in names {
                let name = n.split(' ').next().unwrap();
                if let Some((pre, post)) = name.split_once('*') {
                    let found = std::fs::read_dir(root.join(dir)).unwrap().any(|e| {
                        let e = e.unwrap().file_name().to_string_lossy().into_owned();
                        e.starts_with(pre) && e.ends_with(post)
                    });
                    assert!(found, "nothing matches {dir}/{name}");
                } else {
                    assert!(
                        root.join(dir).join(name).exists(),
                        "{dir}/{name} does not exist"
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 20);
    }
}
