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

mod lessons;
mod lm_fig2;
mod measured;
mod pictures;
mod pipeline;
pub use lessons::*;
pub use lm_fig2::*;
pub use measured::*;
pub use pictures::*;
pub use pipeline::*;

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
        name: "eras-best-h100",
        about: "each era's methods at the n where each ran fastest in the pinned H100 run (docs/perf/h100/bench.csv, compiled in), GFLOP/s on a log scale, with the H100's FP32 and dense FP16 tensor-core peaks",
        files: &["png"],
        per_adapter: false,
        draw: eras_best_h100,
    },
    Figure {
        name: "texel-rate-vs-fma",
        about: "the 2004 verdict as a roofline: GFLOP/s against FMAs per texel fetched, the pinned H100 run's two roofs (texel lookups, from the R32F fetch walk; the fragment-FMA ceiling), the RGBA32F walk without shared texels (dashed, not a roof), hall-blocked, hall-packed and frag-mrt at n = 4096",
        files: &["png"],
        per_adapter: false,
        draw: texel_rate_vs_fma,
    },
    Figure {
        name: "5kk73-access",
        about: "5kk73 steps 1-3: which word of B in global memory, of the tile's store and of the inner product's read each of 16 threads touches, and the banks of workgroup memory they meet",
        files: &["png"],
        per_adapter: false,
        draw: kk73_access,
    },
    Figure {
        name: "frag-mrt-attachments",
        about: "frag-mrt's layout: a fragment's 4x8 block of C over 8 RGBA32F colour attachments, and the 2x2 quad sharing texture lookups with quadSwapX and quadSwapY",
        files: &["png"],
        per_adapter: false,
        draw: frag_mrt_attachments,
    },
    Figure {
        name: "tensor-core-tile",
        about: "one 16x16x16 cooperative-matrix multiply-add (A, B f16; C f32) and how coop tiles a 64x64 block of C by 4x4 such fragments",
        files: &["png"],
        per_adapter: false,
        draw: tensor_core_tile,
    },
    Figure {
        name: "lm-cube",
        about: "L-M section 3's processor cube at m = n = k = 4: A(i, p) on a side face, B(p, j) on the top face, slice p = column p of A times row p of B as one rectangle, one pass per slice, summed onto the front face C",
        files: &["png"],
        per_adapter: false,
        draw: lm_cube,
    },
    Figure {
        name: "hall-eq10",
        about: "Hall-Carr-Hart eq. 10: Z = X·Y by 2x2 blocks with quadrants A..H in the r g b a channels, the two swizzled 4-wide multiply-adds X.rrbb·Y.rgrg + X.ggaa·Y.baba, and one step of the loop per channel",
        files: &["png"],
        per_adapter: false,
        draw: hall_eq10,
    },
    Figure {
        name: "tile-slide",
        about: "cs-tiled (shaders/cs_tiled.wgsl): one workgroup's TxT tile of C, the tiles of A's row band and B's column band it loads into shared memory at steps t = 0, 1, 2, 3 along k, and step 1's tile_a and tile_b",
        files: &["png"],
        per_adapter: false,
        draw: tile_slide,
    },
    Figure {
        name: "cannon-shift",
        about: "Cannon's algorithm after O'Neil 2013 section 2.3 on a 4x4 mesh: the start, the initial skew (row i of A left by i, column j of B up by j) and one shift, A(i, r) and B(r, j) coloured by the inner index r",
        files: &["png"],
        per_adapter: false,
        draw: cannon_shift,
    },
    Figure {
        name: "dns-cube",
        about: "DNS after O'Neil 2013 as dns.wgsl runs it: the 4x4x4 cube of terms A(i, p)·B(p, j), one invocation each, the tree reduction along p in workgroup memory, and the partial-sum planes dns_reduce.wgsl adds when k is split",
        files: &["png"],
        per_adapter: false,
        draw: dns_cube,
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
