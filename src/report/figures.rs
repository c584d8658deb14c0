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
use crate::error::{Error, Result};
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{self, Method};
use crate::plan::{self, Options};
use crate::precision::Precision;
use crate::report::Report;
use crate::report::picture;
use crate::report::plots::{self, Bar, Panel, Series};
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
        self.files.iter().map(|e| path.with_extension(e)).collect()
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
        name: "lm-fig2",
        about: "L-M figure 2 / Hall figure 2: A, B (4x4, 0/1), slice 3 (column 3 of A x row 3 of B), and the saturated u8 result",
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
        about: "the tour's picture: A, B and C = A·B by lm at 96x80x64 (blue < 0 < red, each panel on its own scale)",
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
        about: "Hall-Carr-Hart eq. 8: a 7x9 matrix padded to 8x10, quadrants A B C D, and the 4x5 RGBA texture the GPU holds (r g / b a per texel)",
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
        about: "past one texture: a product tiled under a small memory budget, C's blocks and k's chunks drawn over A, B and C",
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

/// L-M §5's sample application on the example graph (see [`crate::reach::example_figure`]).
pub fn reach_example(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &crate::reach::example_figure(ctx)?)
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture (see
/// [`methods::hall_packed::packing_figure`]).
pub fn hall_packing(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &methods::hall_packed::packing_figure(ctx)?)
}

/// The tour's picture of `lm` (`rendermm tour` writes the same as `rendermm-out/tour-lm.png`).
pub fn tour_lm(ctx: &GpuContext, out: &Path) -> Result<()> {
    let (m, k, n, seed) = (96, 80, 64, 1u64);
    let a = Matrix::random(m, k, seed * 2, -1.0, 1.0);
    let b = Matrix::random(k, n, seed * 2 + 1, -1.0, 1.0);
    let c = plan::multiply(Some(ctx), Method::Lm, &a, &b, &mut Options::default())?.c;
    picture::save_png(out, &picture::panels(&[&a, &b, &c], 256))
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
        });
        right.push(Series {
            name,
            points: by_ops,
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

/// L-M figures 4-5 from `reach --bench` (see [`crate::reach::breakdown_chart`]): on a CPU adapter
/// n = 256 and 8 powers (the paper's 1024 and 20 take minutes there), elsewhere the paper's.
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
    picture::save_png(out, &crate::reach::breakdown_chart(&r))?;
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
            text: format!("{:.2} GFLOP/s ({:.1} ms)", r.best_gflops, r.wall.min),
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
        &["", "", "compute shaders"],
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
    let roster: [(Method, usize); 12] = [
        (Method::Lm, 0),
        (Method::HallBlocked, 1),
        (Method::HallPacked, 1),
        (Method::FragMrt, 1),
        (Method::CsNaive, 2),
        (Method::CsTiled16, 2),
        (Method::Kk73Unrolled, 2),
        (Method::CannonTiled, 2),
        (Method::DnsTiled, 2),
        (Method::CsFast, 2),
        (Method::Coop, 3),
        (Method::CpuFast, 4),
    ];
    let a = Matrix::random(n, n, 21, -1.0, 1.0);
    let b = Matrix::random(n, n, 22, -1.0, 1.0);
    let reference = crate::cpu::reference_f64(&a, &b);
    let mut bars = vec![];
    let mut md = provenance(Some(ctx), None);
    md.push_str("| era | method | GFLOP/s | clock | rel_err | note |\n|---|---|---|---|---|---|\n");
    let era_names = [
        "2001 blending",
        "2003 fragment shaders",
        "compute shaders",
        "tensor cores",
        "CPU",
    ];
    for (method, group) in roster {
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
                        "{:.2} GFLOP/s{}",
                        rep.gflops,
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
/// into 2×2 blocks and k into 3 chunks; A, B and the tiled C side by side with the block and chunk boundaries.
pub fn tiling(ctx: &GpuContext, out: &Path) -> Result<()> {
    let a = Matrix::random(48, 40, 31, -1.0, 1.0);
    let b = Matrix::random(40, 36, 32, -1.0, 1.0);
    let mut opts = Options {
        tiling: crate::plan::tiled::TileOptions {
            mem_budget: Some(14 << 10),
            ..Default::default()
        },
        block: Some(8),
        ..Default::default()
    };
    let c = plan::multiply(Some(ctx), Method::HallBlocked, &a, &b, &mut opts)?.c;
    let t = opts
        .tiled
        .ok_or_else(|| Error::Invalid("the tiling figure's budget did not tile".into()))?;
    let mut img = picture::panels(&[&a, &b, &c], 240);
    // Panel geometry as picture::panels lays it out.
    let gap = 12u32;
    let cell = [&a, &b, &c]
        .iter()
        .map(|m| picture::cell_size(m, 240))
        .min()
        .unwrap_or(1) as u32;
    let (ax, bx) = (gap, gap + a.cols as u32 * cell + gap);
    let cx = bx + b.cols as u32 * cell + gap;
    let ink = Rgb([20, 20, 20]);
    let vline = |img: &mut RgbImage, x: u32, y0: u32, h: u32| {
        for y in y0..y0 + h {
            for dx in 0..2 {
                img.put_pixel((x + dx).min(img.width() - 1), y, ink);
            }
        }
    };
    let hline = |img: &mut RgbImage, x0: u32, y: u32, w: u32| {
        for x in x0..x0 + w {
            for dy in 0..2 {
                img.put_pixel(x, (y + dy).min(img.height() - 1), ink);
            }
        }
    };
    let cuts = |total: usize, size: usize| {
        (size..total)
            .step_by(size.max(1))
            .map(|v| v as u32)
            .collect::<Vec<_>>()
    };
    for r in cuts(a.rows, t.tile_m) {
        hline(&mut img, ax, gap + r * cell, a.cols as u32 * cell);
        hline(&mut img, cx, gap + r * cell, c.cols as u32 * cell);
    }
    for p in cuts(a.cols, t.tile_k) {
        vline(&mut img, ax + p * cell, gap, a.rows as u32 * cell);
        hline(&mut img, bx, gap + p * cell, b.cols as u32 * cell);
    }
    for j in cuts(b.cols, t.tile_n) {
        vline(&mut img, bx + j * cell, gap, b.rows as u32 * cell);
        vline(&mut img, cx + j * cell, gap, c.rows as u32 * cell);
    }
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

/// L-M figure 2: A, B, the 3rd slice (column 3 of A replicated across × row 3 of B replicated
/// down, multiplied), and C — the sum of all four slices in the 8-bit pipeline, where every sum
/// above one saturates to white. Slice and C are computed by the `lm` method in u8 on the GPU.
pub fn lm_fig2(ctx: &GpuContext, out: &Path) -> Result<()> {
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
    let cell = 40u32;
    let gap = 24u32;
    let panels = [&a, &b, &slice, &c];
    let width = 4 * 4 * cell + 5 * gap;
    let height = 4 * cell + 2 * gap;
    let mut img = RgbImage::from_pixel(width, height, Rgb([128, 128, 160]));
    for (idx, m) in panels.iter().enumerate() {
        let x0 = gap + idx as u32 * (4 * cell + gap);
        for i in 0..4 {
            for j in 0..4 {
                let g = (m.get(i, j).clamp(0.0, 1.0) * 255.0).round() as u8;
                for dy in 1..cell {
                    for dx in 1..cell {
                        img.put_pixel(
                            x0 + j as u32 * cell + dx,
                            gap + i as u32 * cell + dy,
                            Rgb([g, g, g]),
                        );
                    }
                }
            }
        }
        // Mark column p of A and row p of B, the two factors of the slice, with a red frame.
        let frame = |img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32| {
            for t in 0..w {
                img.put_pixel(x + t, y, Rgb([220, 30, 30]));
                img.put_pixel(x + t, y + h - 1, Rgb([220, 30, 30]));
            }
            for t in 0..h {
                img.put_pixel(x, y + t, Rgb([220, 30, 30]));
                img.put_pixel(x + w - 1, y + t, Rgb([220, 30, 30]));
            }
        };
        match idx {
            0 => frame(&mut img, x0 + p as u32 * cell, gap, cell + 1, 4 * cell + 1),
            1 => frame(&mut img, x0, gap + p as u32 * cell, 4 * cell + 1, cell + 1),
            _ => {}
        }
    }
    picture::save_png(out, &img)
}
