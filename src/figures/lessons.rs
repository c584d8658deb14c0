//! The pictures of the lessons, one per era chapter: the eras at their best sizes against the
//! H100's peaks, the 2004 verdict as a roofline, 5kk73's access patterns step by step, frag-mrt's
//! attachments and quad, and a tensor-core tile.
//!
//! The two charts are drawn from the pinned H100 run, `docs/perf/h100/bench.csv` and
//! `bench.json`, compiled into the binary (`include_str!`) and parsed when the figure is drawn:
//! the chapters quote that run, so its pictures must show the same numbers, on any adapter,
//! without a new run. The three diagrams compute nothing on the GPU; they draw the index
//! arithmetic of the shaders they explain.

use super::*;
use crate::draw::picture::{RULE, fill, outline};
use crate::draw::plots::{LABEL, Mark, SMALL, TITLE, plot_err};
use crate::draw::text::{INK, MUTED};
use plotters::prelude::*;

/// The pinned H100 run's sweep, as `rendermm bench --csv` wrote it.
const PINNED_CSV: &str = include_str!("../../docs/perf/h100/bench.csv");
/// The same run's JSON, for its ceilings.
const PINNED_JSON: &str = include_str!("../../docs/perf/h100/bench.json");
const PINNED_CSV_PATH: &str = "docs/perf/h100/bench.csv";
const PINNED_JSON_PATH: &str = "docs/perf/h100/bench.json";

/// The H100 SXM5's datasheet peaks, GFLOP/s: FP32, and dense FP16 on the tensor cores.
pub const H100_FP32_PEAK: f64 = 67_000.0;
pub const H100_FP16_TENSOR_PEAK: f64 = 989_000.0;

/// One row of the pinned sweep: a method at one n.
#[derive(Clone, Debug, PartialEq)]
pub struct PinnedRow {
    pub method: String,
    pub n: usize,
    /// NaN where the row did not run.
    pub gflops: f64,
    pub passed: bool,
}

/// Split one CSV line at commas outside double quotes.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (vec![], String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// The rows of a sweep's CSV (`text`, read from `path`): method, n, GFLOP/s and whether its
/// check passed.
pub fn parse_sweep_csv(text: &str, path: &str) -> Result<Vec<PinnedRow>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_fields(lines.next().ok_or_else(|| Error::format(path, "empty"))?);
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::format(path, format!("no column '{name}'")))
    };
    let (cm, cn, cg, cp) = (col("method")?, col("n")?, col("gflops")?, col("passed")?);
    lines
        .enumerate()
        .map(|(i, l)| {
            let f = csv_fields(l);
            let get = |c: usize| {
                f.get(c).map(String::as_str).ok_or_else(|| {
                    Error::format(path, format!("line {}: {} fields", i + 2, f.len()))
                })
            };
            let n = get(cn)?
                .parse()
                .map_err(|_| Error::format(path, format!("line {}: n is not a number", i + 2)))?;
            Ok(PinnedRow {
                method: get(cm)?.to_string(),
                n,
                gflops: get(cg)?.parse().unwrap_or(f64::NAN),
                passed: get(cp)? == "true",
            })
        })
        .collect()
}

/// The pinned H100 sweep.
pub fn pinned_rows() -> Result<Vec<PinnedRow>> {
    parse_sweep_csv(PINNED_CSV, PINNED_CSV_PATH)
}

/// A method's best passed row: (n, GFLOP/s) where it ran fastest.
pub fn best_of(rows: &[PinnedRow], method: &str) -> Option<(usize, f64)> {
    rows.iter()
        .filter(|r| r.method == method && r.passed && r.gflops.is_finite())
        .max_by(|a, b| a.gflops.total_cmp(&b.gflops))
        .map(|r| (r.n, r.gflops))
}

/// A method's GFLOP/s at `n` in `rows`, if it ran and passed.
fn at_n(rows: &[PinnedRow], method: &str, n: usize) -> Result<f64> {
    rows.iter()
        .find(|r| r.method == method && r.n == n && r.passed && r.gflops.is_finite())
        .map(|r| r.gflops)
        .ok_or_else(|| {
            Error::format(
                PINNED_CSV_PATH,
                format!("no passed row of {method} at n = {n}"),
            )
        })
}

/// A ceiling of the pinned run by name (`fragment-fma`, `texture-fetch`, ...), in its unit.
pub fn pinned_ceiling(name: &str) -> Result<f64> {
    let v: serde_json::Value = serde_json::from_str(PINNED_JSON)
        .map_err(|e| Error::format(PINNED_JSON_PATH, e.to_string()))?;
    v["ceilings"]["ceilings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == name)
        .and_then(|c| c["value"].as_f64())
        .ok_or_else(|| Error::format(PINNED_JSON_PATH, format!("no ceiling '{name}'")))
}

/// The methods of the eras picture, each with the chapter it belongs to, in the book's order.
pub const ERA_BEST: [(&str, &str); 10] = [
    ("2001", "lm"),
    ("2003", "hall-blocked"),
    ("2003", "hall-packed"),
    ("2007", "cs-naive"),
    ("2007", "5kk73-5-unrolled"),
    ("2007", "cs-fast"),
    ("O'Neil", "cannon"),
    ("O'Neil", "dns"),
    ("tensor cores", "coop"),
    ("epilogue", "frag-mrt"),
];

/// An axis tick in GFLOP/s: 1, 10, 100, 1k, 10k, 100k, 1M.
fn si(v: f64) -> String {
    let (d, s) = if v >= 1e6 {
        (1e6, "M")
    } else if v >= 1e3 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let x = v / d;
    if (x - x.round()).abs() < 1e-9 {
        format!("{}{s}", x.round())
    } else {
        format!("{}{s}", plots::short(x))
    }
}

/// `count` dashes along the line from `a` to `b` in a log-log or log-linear chart's
/// coordinates, interpolated geometrically in x and y where `log` says.
fn dashes(a: (f64, f64), b: (f64, f64), log: (bool, bool), count: usize) -> Vec<[(f64, f64); 2]> {
    let lerp = |p: f64, q: f64, t: f64, l: bool| {
        if l {
            (p.ln() + (q.ln() - p.ln()) * t).exp()
        } else {
            p + (q - p) * t
        }
    };
    let at = |t: f64| (lerp(a.0, b.0, t, log.0), lerp(a.1, b.1, t, log.1));
    let steps = 2 * count;
    (0..steps)
        .step_by(2)
        .map(|i| {
            [
                at(i as f64 / steps as f64),
                at((i + 1) as f64 / steps as f64),
            ]
        })
        .collect()
}

/// Each era's methods at the n where each ran fastest in the pinned H100 run, GFLOP/s on a log
/// axis, the H100's datasheet peaks (FP32, dense FP16 on the tensor cores) drawn across.
pub fn eras_best_h100(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let rows = pinned_rows()?;
    let mut bars = vec![];
    for (chapter, method) in ERA_BEST {
        let (n, g) = best_of(&rows, method)
            .ok_or_else(|| Error::format(PINNED_CSV_PATH, format!("no passed row of {method}")))?;
        bars.push((
            format!("{chapter}: {method}, n = {n}"),
            g,
            plots::group_of(method),
        ));
    }
    let title =
        "Each era's methods at their best n on the H100 (the pinned run), against its peaks";
    let nrows = bars.len();
    let label_w = bars
        .iter()
        .map(|b| text::width(&b.0, text::SMALL).ceil() as u32)
        .max()
        .unwrap_or(0)
        + 24;
    let mut legend: Vec<(String, Option<Mark>)> = plots::ERA_ORDER
        .iter()
        .filter(|&&g| bars.iter().any(|b| b.2 == g))
        .map(|&g| {
            (
                plots::ERA_NAMES[g].to_string(),
                Some(Mark::Swatch(plots::ERA_COLOURS[g])),
            )
        })
        .collect();
    legend.push((
        "H100 SXM5 datasheet peaks: 67 TFLOP/s FP32, 989 TFLOP/s FP16 on the tensor cores (dense)"
            .into(),
        Some(Mark::Dashed(RGBColor(60, 60, 60))),
    ));
    let h = 200 + 40 * nrows as u32;
    plots::render_to(out, (plots::W, h), |root| {
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err(title))?;
        let (head, body) = root.split_vertically(plots::legend_height(plots::W as i32, &legend));
        plots::legend_rows(&head, &legend)?;
        let (lo, hi) = (1.0f64, 1.2e7f64);
        let labels: Vec<String> = bars.iter().rev().map(|b| b.0.clone()).collect();
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .margin_right(30)
            .x_label_area_size(52)
            .y_label_area_size(label_w)
            .build_cartesian_2d((lo..hi).log_scale(), (0..nrows - 1).into_segmented())
            .map_err(plot_err(title))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(nrows + 1)
            .y_label_formatter(&|y| plots::category_label(&labels, y))
            .x_label_formatter(&|x| si(*x))
            .label_style(("sans-serif", SMALL))
            .axis_desc_style(("sans-serif", LABEL))
            .x_desc(
                "GFLOP/s, log scale (1k = 1 TFLOP/s; 2n³ flops over the GPU time of one multiply)",
            )
            .draw()
            .map_err(plot_err(title))?;
        chart
            .draw_series(bars.iter().enumerate().map(|(i, (_, v, g))| {
                let row = nrows - 1 - i;
                let mut r = Rectangle::new(
                    [
                        (lo, SegmentValue::Exact(row)),
                        (*v, SegmentValue::Exact(row + 1)),
                    ],
                    plots::ERA_COLOURS[*g].filled(),
                );
                r.set_margin(6, 6, 0, 0);
                r
            }))
            .map_err(plot_err(title))?;
        // Short bars carry their value after them; long ones inside, clear of the peak lines.
        let anchor = |h| {
            TextStyle::from(("sans-serif", SMALL).into_font()).pos(
                plotters::style::text_anchor::Pos::new(
                    h,
                    plotters::style::text_anchor::VPos::Center,
                ),
            )
        };
        use plotters::style::text_anchor::HPos;
        for (i, (_, v, _)) in bars.iter().enumerate() {
            let at = (*v, SegmentValue::CenterOf(nrows - 1 - i));
            let t = if *v >= 10_000.0 {
                Text::new(
                    format!("{} TFLOP/s  ", plots::short(*v / 1000.0)),
                    at,
                    anchor(HPos::Right).color(&WHITE),
                )
            } else {
                Text::new(
                    format!("  {} GFLOP/s", plots::short(*v)),
                    at,
                    anchor(HPos::Left),
                )
            };
            chart
                .draw_series(std::iter::once(t))
                .map_err(plot_err(title))?;
        }
        let grey = RGBColor(60, 60, 60);
        let right_mid = ("sans-serif", SMALL).into_font().color(&grey).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            ),
        );
        // The peaks: dashed lines across every row, named in the top rows (whose bars are short).
        for (i, (peak, name)) in [
            (H100_FP32_PEAK, " FP32 peak: 67k"),
            (H100_FP16_TENSOR_PEAK, " FP16 tensor peak: 989k"),
        ]
        .into_iter()
        .enumerate()
        {
            let (x0, y0) = chart.backend_coord(&(peak, SegmentValue::Exact(nrows)));
            let (_, y1) = chart.backend_coord(&(peak, SegmentValue::Exact(0)));
            let area = chart.plotting_area().strip_coord_spec();
            let mut y = y0;
            while y < y1 {
                let (bx, by) = area.get_base_pixel();
                area.draw(&PathElement::new(
                    vec![(x0 - bx, y - by), (x0 - bx, (y + 7).min(y1) - by)],
                    grey.stroke_width(2),
                ))
                .map_err(plot_err(title))?;
                y += 12;
            }
            chart
                .draw_series(std::iter::once(Text::new(
                    name.to_string(),
                    (peak, SegmentValue::CenterOf(nrows - 1 - i)),
                    right_mid.clone(),
                )))
                .map_err(plot_err(title))?;
        }
        Ok(())
    })
}

/// FMAs per texel fetched by each render-pass method of the 2004 verdict, from its shader's
/// loop: `hall-blocked` one R32F texel of A and one of B per FMA; `hall-packed` two RGBA32F
/// texels per 2×2·2×2 product (8 FMAs); `frag-mrt` an 8×4 block from (8+4)/4 texels per step,
/// halved by quad sharing: 2·4·8·4/(8+4).
pub const FMAS_PER_TEXEL: [(&str, f64, &str); 3] = [
    ("hall-blocked", 0.5, "R32F"),
    ("hall-packed", 4.0, "RGBA32F"),
    ("frag-mrt", 2.0 * 4.0 * 8.0 * 4.0 / 12.0, "RGBA32F"),
];

/// The 2004 verdict as a roofline: GFLOP/s against FMAs per texel fetched, the pinned run's
/// texture-fetch ceilings (R32F, RGBA32F, as texels per second) and fragment-FMA ceiling as
/// lines, and `hall-blocked`, `hall-packed` and `frag-mrt` at n = 4096 as points.
pub fn texel_rate_vs_fma(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let rows = pinned_rows()?;
    let n = 4096;
    let fma = pinned_ceiling("fragment-fma")?;
    let r32 = pinned_ceiling("texture-fetch")? / 4.0; // Gtexels/s
    let rgba = pinned_ceiling("texture-fetch-rgba32f")? / 16.0;
    let mut points = vec![];
    for (method, x, format) in FMAS_PER_TEXEL {
        points.push((method, x, at_n(&rows, method, n)?, format));
    }
    let title = "The 2004 verdict on the H100: GFLOP/s against FMAs per texel fetched (pinned run, n = 4096)";
    let red = RGBColor(214, 39, 40);
    let blue = RGBColor(31, 119, 180);
    let grey = RGBColor(70, 70, 70);
    let fetch_r32 = format!(
        "R32F texture fetch: {:.1}·10⁹ texels/s (GFLOP/s = 2 × texels/s × FMAs per texel)",
        r32
    );
    let fetch_rgba = format!("RGBA32F texture fetch: {:.1}·10⁹ texels/s", rgba);
    let frag = format!("fragment-stage FMA chains: {} GFLOP/s", plots::short(fma));
    let mut legend: Vec<(String, Option<Mark>)> = vec![
        (fetch_r32, Some(Mark::Swatch(red))),
        (fetch_rgba, Some(Mark::Swatch(blue))),
        (frag, Some(Mark::Dashed(grey))),
    ];
    for (method, _, _, format) in &points {
        let g = plots::group_of(method);
        legend.push((
            format!("{method} ({format} texels)"),
            Some(Mark::Marker(0, plots::ERA_COLOURS[g])),
        ));
    }
    plots::render_to(out, (plots::W, 760), |root| {
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err(title))?;
        let (head, body) =
            root.split_vertically(plots::legend_height(plots::W as i32, &legend) + 4);
        plots::legend_rows(&head, &legend)?;
        let (xlo, xhi, ylo, yhi) = (0.1f64, 100.0f64, 5.0f64, 5000.0f64);
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .margin_right(30)
            .x_label_area_size(52)
            .y_label_area_size(80)
            .build_cartesian_2d((xlo..xhi).log_scale(), (ylo..yhi).log_scale())
            .map_err(plot_err(title))?;
        chart
            .configure_mesh()
            .x_label_formatter(&|x| si(*x))
            .y_label_formatter(&|y| si(*y))
            .label_style(("sans-serif", SMALL))
            .axis_desc_style(("sans-serif", LABEL))
            .x_desc("FMAs per texel fetched (the pass's arithmetic intensity, log scale)")
            .y_desc("GFLOP/s (log scale)")
            .draw()
            .map_err(plot_err(title))?;
        for (rate, colour) in [(r32, red), (rgba, blue)] {
            // The fetch roof: 2 · rate · x, up to the fragment-FMA ceiling.
            let knee = fma / (2.0 * rate);
            let x0 = (ylo / (2.0 * rate)).max(xlo);
            chart
                .draw_series(LineSeries::new(
                    [
                        (x0, 2.0 * rate * x0),
                        (knee.min(xhi), 2.0 * rate * knee.min(xhi)),
                    ],
                    colour.stroke_width(3),
                ))
                .map_err(plot_err(title))?;
        }
        chart
            .draw_series(
                dashes((xlo, fma), (xhi, fma), (true, true), 30)
                    .into_iter()
                    .map(|d| PathElement::new(d.to_vec(), grey.stroke_width(2))),
            )
            .map_err(plot_err(title))?;
        for (method, x, g, format) in &points {
            let colour = plots::ERA_COLOURS[plots::group_of(method)];
            chart
                .draw_series(std::iter::once(Circle::new((*x, *g), 7, colour.filled())))
                .map_err(plot_err(title))?;
            let rate = if *format == "R32F" { r32 } else { rgba };
            let roof = (2.0 * rate * x).min(fma);
            let label = format!(
                "{method}: {x:.1} FMAs per texel, {} GFLOP/s = {:.0} % of its fetch line",
                plots::short(*g),
                100.0 * g / roof
            );
            let style = TextStyle::from(("sans-serif", SMALL).into_font()).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Center,
                ),
            );
            let (px, py) = chart.backend_coord(&(*x, *g));
            let area = chart.plotting_area().strip_coord_spec();
            let (bx, by) = area.get_base_pixel();
            // frag-mrt's label goes below its point (the ceiling line runs above it).
            let (dx, dy) = match *method {
                "frag-mrt" => (-(text::width(&label, text::SMALL) as i32) - 14, 24),
                "hall-packed" => (14, 22),
                _ => (14, 20),
            };
            let (lx, ly) = (px - bx + dx, py - by + dy);
            let tw = text::width(&label, text::SMALL).ceil() as i32;
            area.draw(&Rectangle::new(
                [(lx - 4, ly - 10), (lx + tw + 4, ly + 10)],
                WHITE.filled(),
            ))
            .map_err(plot_err(title))?;
            area.draw(&Text::new(label, (lx, ly), style))
                .map_err(plot_err(title))?;
        }
        let note = "Above a fetch line: neighbouring fragments read the same texels and the texture cache serves the repeats; the fetch microbenchmark's lanes each read their own.";
        let area = chart.plotting_area().strip_coord_spec();
        let (w, h) = area.dim_in_pixel();
        let tw = text::width(note, text::SMALL).ceil() as i32;
        let (nx, ny) = (w as i32 - tw - 12, h as i32 - 22);
        area.draw(&Rectangle::new(
            [(nx - 6, ny - 12), (nx + tw + 6, ny + 12)],
            WHITE.filled(),
        ))
        .map_err(plot_err(title))?;
        area.draw(&Text::new(
            note,
            (nx, ny),
            ("sans-serif", SMALL)
                .into_font()
                .color(&RGBColor(70, 70, 70))
                .pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Center,
                )),
        ))
        .map_err(plot_err(title))?;
        Ok(())
    })
}

// ---- the diagrams ------------------------------------------------------------------------------

/// Thread `t`'s colour of 16: hues around the wheel, light enough for dark digits on them.
fn thread_colour(t: usize) -> Rgb<u8> {
    let h = (t % 16) as f32 / 16.0 * 330.0;
    hsv(h, 0.55, 0.97)
}

fn hsv(h: f32, s: f32, v: f32) -> Rgb<u8> {
    let c = v * s;
    let x = c * (1.0 - ((h / 60.0) % 2.0 - 1.0).abs());
    let (r, g, b) = match (h / 60.0) as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    let q = |u: f32| ((u + m) * 255.0).round() as u8;
    Rgb([q(r), q(g), q(b)])
}

const EMPTY: Rgb<u8> = Rgb([255, 255, 255]);
const GRID: Rgb<u8> = Rgb([200, 200, 200]);

/// A `rows`×`cols` grid of `cell`-pixel cells at (`x`, `y`): each cell white or `paint`'s colour,
/// with `paint`'s text centred in it, thin grid lines and an outline.
fn grid(
    img: &mut RgbImage,
    (x, y): (i32, i32),
    (rows, cols, cell): (usize, usize, i32),
    paint: impl Fn(usize, usize) -> Option<(Rgb<u8>, String)>,
) {
    for r in 0..rows {
        for c in 0..cols {
            let (cx, cy) = (x + c as i32 * cell, y + r as i32 * cell);
            let p = paint(r, c);
            fill(
                img,
                cx,
                cy,
                cell as u32,
                cell as u32,
                p.as_ref().map_or(EMPTY, |p| p.0),
            );
            outline(img, cx, cy, cell as u32 + 1, cell as u32 + 1, 1, GRID);
            if let Some((_, t)) = p.filter(|p| !p.1.is_empty()) {
                let px = (cell as f32 * 0.6).min(text::SMALL);
                let ty = cy as f32 + (cell as f32 - text::height(px)) / 2.0;
                text::centre(img, cx as f32 + cell as f32 / 2.0, ty, &t, px, INK);
            }
        }
    }
    outline(
        img,
        x - 1,
        y - 1,
        (cols as i32 * cell + 3) as u32,
        (rows as i32 * cell + 3) as u32,
        1,
        RULE,
    );
}

/// One step of the 5kk73 ladder as the 16 invocations with ty = 0 run it at kk = 0: the element
/// (row kk, column j of the tile) each reads of B, the word of `b_tile` it stores and the word
/// the inner product reads.
pub struct AccessStep {
    pub heading: &'static str,
    pub code: &'static str,
    pub read: fn(usize) -> (usize, usize),
    pub store: fn(usize) -> usize,
    pub inner: fn(usize) -> usize,
}

/// The first three steps of 5kk73, with the index arithmetic of rendermm's shaders
/// (`shaders/kk73_1_uncoalesced.wgsl` ... `kk73_3_bank_free.wgsl`) for tx = 0..15, ty = 0, kk = 0.
pub const KK73_ACCESS: [AccessStep; 3] = [
    AccessStep {
        heading: "Step 1, tiling (5kk73-1-uncoalesced): B's tile kept as B is; each thread loads down a column of B",
        code: "b_tile[tx·16 + ty] = B(k0 + tx, col0 + ty)          inner product: a_tile[ty·16 + kk] · b_tile[kk·16 + tx]",
        read: |tx| (tx, 0),
        store: |tx| tx * 16,
        inner: |tx| tx,
    },
    AccessStep {
        heading: "Step 2, coalescing (5kk73-2-coalesced): B read along a row, the tile stored transposed (5kk73 transposes B on the CPU)",
        code: "b_tile[tx·16 + ty] = B(k0 + ty, col0 + tx)          inner product: a_tile[ty·16 + kk] · b_tile[tx·16 + kk]",
        read: |tx| (0, tx),
        store: |tx| tx * 16,
        inner: |tx| tx * 16,
    },
    AccessStep {
        heading: "Step 3, no bank conflicts (5kk73-3-bank-free): B read along a row and the tile stored as read",
        code: "b_tile[ty·16 + tx] = B(k0 + ty, col0 + tx)          inner product: a_tile[ty·16 + kk] · b_tile[kk·16 + tx]",
        read: |tx| (0, tx),
        store: |tx| tx,
        inner: |tx| tx,
    },
];

/// Banks of workgroup memory: 32 of 4 bytes, word w in bank w mod 32.
pub const BANKS: usize = 32;

/// How many of the 16 threads each bank serves when thread t touches word `word(t)`.
pub fn bank_load(word: fn(usize) -> usize) -> [usize; BANKS] {
    let mut load = [0; BANKS];
    for t in 0..16 {
        load[word(t) % BANKS] += 1;
    }
    load
}

/// Threads per bank as stacked bars under a tile, 9 pixels a bank, 5 a thread.
fn bank_bars(img: &mut RgbImage, (x, y): (i32, i32), word: fn(usize) -> usize) -> i32 {
    let (bw, th, max) = (9, 5, 8);
    let base = y + max * th;
    let mut stacked = [0i32; BANKS];
    for t in 0..16 {
        let b = word(t) % BANKS;
        fill(
            img,
            x + b as i32 * bw + 1,
            base - (stacked[b] + 1) * th + 1,
            (bw - 2) as u32,
            (th - 1) as u32,
            thread_colour(t),
        );
        stacked[b] += 1;
    }
    fill(img, x, base, (BANKS as i32 * bw) as u32, 1, RULE);
    for (b, label) in [(0usize, "bank 0"), (16, "16"), (31, "31")] {
        let cx = x as f32 + (b as f32 + 0.5) * bw as f32;
        fill(img, cx as i32, base, 1, 3, RULE);
        let align = if b == 0 {
            text::Align::Left
        } else {
            text::Align::Centre
        };
        let lx = if b == 0 { x as f32 } else { cx };
        text::draw(img, lx, base as f32 + 3.0, label, text::SMALL, MUTED, align);
    }
    base + 3 + text::line(text::SMALL) as i32
}

/// The verdict on a set of bank accesses.
fn bank_verdict(word: fn(usize) -> usize) -> String {
    let worst = bank_load(word).into_iter().max().unwrap_or(0);
    if worst <= 1 {
        "one thread per bank: no conflict".into()
    } else {
        format!("{worst} threads on one bank: a {worst}-way conflict")
    }
}

/// 5kk73's access patterns, steps 1-3: for each, the 16 threads of one row of the workgroup
/// (ty = 0), coloured by tx, on B in global memory, on the store into the tile in workgroup
/// memory and on the inner product's read at kk = 0, with the banks each touches.
pub fn kk73_access(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let cell = 18i32;
    let side = 16 * cell;
    let cols = [70i32, 470, 870];
    let width = 1220u32;
    let block_h = 560i32;
    let top = 150i32;
    let height = (top + 3 * block_h) as u32;
    let mut img = RgbImage::from_pixel(width, height, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "5kk73's first three steps: which word of B and of the tile each thread touches",
        text::TITLE,
        INK,
    );
    text::lines(
        &mut img,
        30.0,
        48.0,
        &[
            "A 16×16 workgroup; drawn: the 16 threads of its first row (ty = 0, tx = 0…15), at the first step of the inner product (kk = 0). Words are 4 bytes;",
            "workgroup memory has 32 banks, word w in bank w mod 32, and the threads that touch different words of one bank take turns (the 8800 GT had 16 banks).",
        ],
        text::SMALL,
        MUTED,
    );
    picture::colour_bar(
        &mut img,
        30,
        92,
        320,
        |t| thread_colour((t * 15.0).round() as usize),
        &[
            (0.0, "tx = 0".into()),
            (0.5, "7".into()),
            (1.0, "15".into()),
        ],
        "thread (colour and number in each cell)",
    );
    for (s, step) in KK73_ACCESS.iter().enumerate() {
        let y0 = top + s as i32 * block_h;
        fill(&mut img, 20, y0 - 6, width - 40, 1, GRID);
        text::left(&mut img, 30.0, y0 as f32, step.heading, text::LABEL, INK);
        text::left(
            &mut img,
            30.0,
            y0 as f32 + 24.0,
            step.code,
            text::SMALL,
            MUTED,
        );
        let gy = y0 + 110;
        let titles = [
            (
                "B in global memory (n words a row)",
                "rows k0…k0+15 down, columns col0…col0+15 across",
            ),
            (
                "the store into b_tile (workgroup memory)",
                "word = row·16 + column of the tile",
            ),
            (
                "the inner product's read at kk = 0",
                "word = row·16 + column of the tile",
            ),
        ];
        for (c, (t1, t2)) in titles.iter().enumerate() {
            let cx = (cols[c] + side / 2) as f32;
            text::centre(&mut img, cx, gy as f32 - 58.0, t1, text::LABEL, INK);
            text::centre(&mut img, cx, gy as f32 - 38.0, t2, text::SMALL, MUTED);
        }
        let read = step.read;
        grid(&mut img, (cols[0], gy), (16, 16, cell), |r, c| {
            (0..16)
                .find(|&t| read(t) == (r, c))
                .map(|t| (thread_colour(t), t.to_string()))
        });
        for (c, word) in [(1usize, step.store), (2, step.inner)] {
            grid(&mut img, (cols[c], gy), (16, 16, cell), |r, col| {
                (0..16)
                    .find(|&t| word(t) == r * 16 + col)
                    .map(|t| (thread_colour(t), t.to_string()))
            });
        }
        // Row and column numbers of the grids.
        for &x in &cols {
            for i in [0usize, 15] {
                let at = x as f32 + (i as f32 + 0.5) * cell as f32;
                text::centre(
                    &mut img,
                    at,
                    gy as f32 - text::line(text::SMALL) + 1.0,
                    &i.to_string(),
                    text::SMALL,
                    MUTED,
                );
                text::draw(
                    &mut img,
                    x as f32 - 6.0,
                    gy as f32 + i as f32 * cell as f32 + 1.0,
                    &i.to_string(),
                    text::SMALL,
                    MUTED,
                    text::Align::Right,
                );
            }
        }
        let below = gy + side + 12;
        let coalesced = (0..16).all(|t| read(t).0 == read(0).0);
        let global = if coalesced {
            [
                "16 neighbouring words of one row:",
                "one 64-byte transaction (coalesced)",
            ]
        } else {
            [
                "16 words n apart, down a column:",
                "16 separate transactions (not coalesced)",
            ]
        };
        text::centre(
            &mut img,
            (cols[0] + side / 2) as f32,
            below as f32 + 52.0,
            global[0],
            text::SMALL,
            INK,
        );
        text::centre(
            &mut img,
            (cols[0] + side / 2) as f32,
            below as f32 + 70.0,
            global[1],
            text::SMALL,
            INK,
        );
        for (c, word, when) in [
            (1usize, step.store, "(once per tile)"),
            (2, step.inner, "(at every kk: 16 times per tile)"),
        ] {
            let x = cols[c] + (side - BANKS as i32 * 9) / 2;
            let y = bank_bars(&mut img, (x, below), word);
            let cx = (cols[c] + side / 2) as f32;
            text::centre(
                &mut img,
                cx,
                y as f32 + 2.0,
                &bank_verdict(word),
                text::SMALL,
                INK,
            );
            text::centre(&mut img, cx, y as f32 + 20.0, when, text::SMALL, MUTED);
        }
        for (i, t) in ["threads", "per bank:"].iter().enumerate() {
            let y = (below + 6 + 16 * i as i32) as f32;
            text::draw(
                &mut img,
                (cols[1] - 10) as f32,
                y,
                t,
                text::SMALL,
                MUTED,
                text::Align::Right,
            );
        }
    }
    picture::save_png(out, &img)
}

const F16: Rgb<u8> = Rgb([158, 202, 225]);
const F16_HI: Rgb<u8> = Rgb([49, 130, 189]);
const F32: Rgb<u8> = Rgb([253, 208, 162]);
const F32_HI: Rgb<u8> = Rgb([230, 85, 13]);

/// A box `w`×`h` at (`x`, `y`) filled with `c`, outlined, with `label` centred in it.
fn boxed(img: &mut RgbImage, (x, y, w, h): (i32, i32, i32, i32), c: Rgb<u8>, label: &str) {
    fill(img, x, y, w as u32, h as u32, c);
    outline(img, x, y, w as u32, h as u32, 1, RULE);
    if !label.is_empty() {
        let ty = y as f32 + (h as f32 - text::height(text::SMALL)) / 2.0;
        text::centre(img, x as f32 + w as f32 / 2.0, ty, label, text::SMALL, INK);
    }
}

/// A square of 16×16 elements at (`x`, `y`), `cell` pixels each, in colour `c`, with grid lines
/// every 4 elements.
fn fragment(img: &mut RgbImage, (x, y): (i32, i32), cell: i32, c: Rgb<u8>) {
    grid(img, (x, y), (16, 16, cell), |_, _| Some((c, String::new())));
}

/// One 16×16×16 cooperative-matrix multiply-add (A and B in f16, C in f32), and how `coop`
/// tiles C by them: a subgroup's 64×64 block of C as 4×4 accumulator fragments, fed per 16-deep
/// step of k by 4 fragments of A and 4 of B.
pub fn tensor_core_tile(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1180, 900, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Tensor cores: one 16×16×16 multiply-add, and how coop tiles C by it",
        text::TITLE,
        INK,
    );
    // Part 1: D = A·B + C.
    text::left(
        &mut img,
        30.0,
        58.0,
        "1. One cooperative-matrix multiply-add, coopMultiplyAdd(A, B, C): one call of the API, by a whole subgroup (32 invocations)",
        text::LABEL,
        INK,
    );
    let (cell, y) = (10i32, 130i32);
    let side = 16 * cell;
    let xs = [60i32, 300, 540, 800];
    let parts = [
        ("A", "16×16, f16", F16),
        ("B", "16×16, f16", F16),
        ("C", "16×16, f32", F32),
        ("D = A·B + C", "16×16, f32", F32),
    ];
    for (&x, (name, what, c)) in xs.iter().zip(parts) {
        text::centre(
            &mut img,
            (x + side / 2) as f32,
            y as f32 - 42.0,
            name,
            text::LABEL,
            INK,
        );
        text::centre(
            &mut img,
            (x + side / 2) as f32,
            y as f32 - 22.0,
            what,
            text::SMALL,
            MUTED,
        );
        fragment(&mut img, (x, y), cell, c);
    }
    for (x, sym) in [
        (xs[0] + side + 40, "×"),
        (xs[1] + side + 40, "+"),
        (xs[2] + side + 50, "="),
    ] {
        text::centre(
            &mut img,
            x as f32,
            (y + side / 2 - 16) as f32,
            sym,
            32.0,
            INK,
        );
    }
    text::lines(
        &mut img,
        60.0,
        (y + side + 16) as f32,
        &[
            "16 · 16 · 16 = 4,096 multiply-adds: every element of D sums 16 products of f16 numbers in f32. Each invocation of the subgroup holds",
            "a share of every fragment; which elements it holds is the driver's business (the type coop_mat16x16<f16, A> hides it).",
        ],
        text::SMALL,
        MUTED,
    );
    // Part 2: coop's 64×64 block.
    let y2 = 400i32;
    text::left(
        &mut img,
        30.0,
        y2 as f32,
        "2. How coop tiles C: a subgroup keeps a 64×64 block of C as 4×4 accumulator fragments for the whole k loop",
        text::LABEL,
        INK,
    );
    let c = 4i32; // pixels per element
    let f = 16 * c; // a fragment
    let (bx, by) = (260i32, y2 + 150);
    // B's four fragments above the block, A's four to its left, for the step of k shown.
    text::centre(
        &mut img,
        (bx + 2 * f) as f32,
        (by - f - 44) as f32,
        "B: 4 fragments, 16×64 (this step of k)",
        text::SMALL,
        INK,
    );
    for j in 0..4 {
        let hi = j == 2;
        boxed(
            &mut img,
            (bx + j * f, by - f - 20, f, f),
            if hi { F16_HI } else { F16 },
            &format!("B{j}"),
        );
    }
    text::draw(
        &mut img,
        (bx - 20 - f - 10) as f32,
        (by - 18) as f32,
        "A: 4 fragments, 64×16",
        text::SMALL,
        INK,
        text::Align::Right,
    );
    for i in 0..4 {
        let hi = i == 1;
        boxed(
            &mut img,
            (bx - 20 - f, by + i * f, f, f),
            if hi { F16_HI } else { F16 },
            &format!("A{i}"),
        );
    }
    for i in 0..4 {
        for j in 0..4 {
            let hi = i == 1 && j == 2;
            boxed(
                &mut img,
                (bx + j * f, by + i * f, f, f),
                if hi { F32_HI } else { F32 },
                &format!("C{i}{j}"),
            );
        }
    }
    outline(
        &mut img,
        bx - 2,
        by - 2,
        (4 * f + 4) as u32,
        (4 * f + 4) as u32,
        2,
        RULE,
    );
    text::centre(
        &mut img,
        (bx + 2 * f) as f32,
        (by + 4 * f + 8) as f32,
        "C: a 64×64 block, 16 fragments of f32",
        text::SMALL,
        INK,
    );
    let notes = [
        "per 16-deep step of k, the subgroup",
        "  loads 4 fragments of A and 4 of B (f16),",
        "  and issues 16 multiply-adds, one per pair:",
        "  C_ij += A_i · B_j  (dark: C12 += A1 · B2);",
        "so every element of A and B read from",
        "memory serves 64 multiply-adds.",
        "",
        "One workgroup of one subgroup per block:",
        "(n/64)² workgroups, k/16 steps each.",
        "The fastest H100 variant puts 8 subgroups",
        "in a workgroup over a 128×256 tile and",
        "stages A and B in workgroup memory first.",
    ];
    text::lines(
        &mut img,
        (bx + 4 * f + 60) as f32,
        (by - f - 20) as f32,
        &notes,
        text::SMALL,
        INK,
    );
    // The key.
    let ky = 860;
    for (i, (col, name)) in [
        (F16, "f16 operands (A, B)"),
        (F32, "f32 accumulators (C, D)"),
        (F16_HI, "one multiply-add's A and B"),
        (F32_HI, "its C"),
    ]
    .iter()
    .enumerate()
    {
        let x = 30 + i as i32 * 270;
        boxed(&mut img, (x, ky, 16, 16), *col, "");
        text::left(
            &mut img,
            (x + 24) as f32,
            ky as f32 - 1.0,
            name,
            text::SMALL,
            INK,
        );
    }
    picture::save_png(out, &img)
}

/// frag-mrt's layout at its default 4×8 block: one fragment's 32 sums spread over 8 RGBA32F
/// colour attachments, and a 2×2 quad of fragments sharing its texture lookups.
pub fn frag_mrt_attachments(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1180, 950, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "frag-mrt: a 4×8 block of C per fragment, in 8 colour attachments; a 2×2 quad shares its lookups",
        text::TITLE,
        INK,
    );
    let att = |t: usize| hsv(t as f32 * 40.0, 0.45, 0.97);
    // Part 1: the block.
    text::left(
        &mut img,
        30.0,
        58.0,
        "1. Fragment (J, I) computes C's rows 4I…4I+3, columns 8J…8J+7: 8 vec4 sums in registers",
        text::LABEL,
        INK,
    );
    let (cx, cy, cell) = (60i32, 130i32, 44i32);
    text::centre(
        &mut img,
        (cx + 4 * cell) as f32,
        (cy - 30) as f32,
        "columns 8J + 0 … 8J + 7",
        text::SMALL,
        MUTED,
    );
    grid(&mut img, (cx, cy), (4, 8, cell), |r, c| {
        let t = r * 2 + c / 4;
        Some((att(t), format!("t{t}")))
    });
    for r in 0..4 {
        text::draw(
            &mut img,
            (cx - 8) as f32,
            (cy + r * cell + 14) as f32,
            &format!("4I+{r}"),
            text::SMALL,
            MUTED,
            text::Align::Right,
        );
    }
    text::lines(
        &mut img,
        cx as f32,
        (cy + 4 * cell + 12) as f32,
        &[
            "t = r·2 + j: row r of the block, columns 4j…4j+3,",
            "written to colour attachment t as one RGBA texel.",
            "8 attachments × 16 bytes = the 128 bytes a fragment",
            "may write (max_color_attachment_bytes_per_sample).",
        ],
        text::SMALL,
        INK,
    );
    // Part 2: the attachments.
    let (ax, ay, tc) = (560i32, 130i32, 18i32);
    text::left(
        &mut img,
        ax as f32,
        (ay - 42) as f32,
        "The 8 attachments, each ⌈m/4⌉ × ⌈n/8⌉ RGBA32F texels (here m = 16, n = 32);",
        text::SMALL,
        INK,
    );
    text::left(
        &mut img,
        ax as f32,
        (ay - 24) as f32,
        "fragment (J, I) = (1, 2) writes texel (x = 1, y = 2) of each:",
        text::SMALL,
        INK,
    );
    for t in 0..8 {
        let (col, row) = (t % 2, t / 2);
        let x = ax + col as i32 * 290;
        let y = ay + row as i32 * 90;
        grid(&mut img, (x, y), (4, 4, tc), |r, c| {
            (r == 2 && c == 1).then(|| (att(t), String::new()))
        });
        text::left(
            &mut img,
            (x + 4 * tc + 12) as f32,
            (y + 8) as f32,
            &format!("attachment {t}"),
            text::SMALL,
            INK,
        );
        text::left(
            &mut img,
            (x + 4 * tc + 12) as f32,
            (y + 28) as f32,
            &format!("row {}, columns {}…{}", row, 4 * col, 4 * col + 3),
            text::SMALL,
            MUTED,
        );
    }
    // Part 3: the quad.
    let y3 = 520i32;
    text::left(
        &mut img,
        30.0,
        y3 as f32,
        "2. A 2×2 quad shares its lookups: fragment (J, I) fetches at steps p + s, s = (I xor J) & 1, and swaps for the rest",
        text::LABEL,
        INK,
    );
    let (qx, qy, qw, qh, gap) = (120i32, y3 + 50, 300i32, 120i32, 110i32);
    for i in 0..2i32 {
        for j in 0..2i32 {
            let s = (i ^ j) & 1;
            let x = qx + j * (qw + gap);
            let y = qy + i * (qh + gap);
            boxed(
                &mut img,
                (x, y, qw, qh),
                if s == 0 {
                    Rgb([230, 240, 250])
                } else {
                    Rgb([250, 236, 222])
                },
                "",
            );
            let lines = [
                format!("fragment (J+{j}, I+{i}), s = {s}"),
                format!("fetches A and B at step p + {s}"),
                format!("gets A at p + {} from its row neighbour", 1 - s),
                format!("gets B at p + {} from its column neighbour", 1 - s),
            ];
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            text::lines(
                &mut img,
                (x + 12) as f32,
                (y + 14) as f32,
                &refs,
                text::SMALL,
                INK,
            );
        }
    }
    let red = Rgb([214, 39, 40]);
    let blue = Rgb([31, 119, 180]);
    for i in 0..2i32 {
        let y = (qy + i * (qh + gap) + qh / 2) as f32;
        let (x0, x1) = ((qx + qw + 8) as f32, (qx + qw + gap - 8) as f32);
        picture::arrow(&mut img, (x0 + 20.0, y), (x1, y), 3.0, red);
        picture::arrow(&mut img, (x1 - 20.0, y + 10.0), (x0, y + 10.0), 3.0, red);
        text::centre(
            &mut img,
            (x0 + x1) / 2.0,
            y - 26.0,
            "quadSwapX: A",
            text::SMALL,
            red,
        );
    }
    for j in 0..2i32 {
        let x = (qx + j * (qw + gap) + qw / 2) as f32;
        let (y0, y1) = ((qy + qh + 8) as f32, (qy + qh + gap - 8) as f32);
        picture::arrow(&mut img, (x - 10.0, y0 + 20.0), (x - 10.0, y1), 3.0, blue);
        picture::arrow(&mut img, (x + 10.0, y1 - 20.0), (x + 10.0, y0), 3.0, blue);
        text::left(
            &mut img,
            x + 22.0,
            (y0 + y1) / 2.0 - 8.0,
            "quadSwapY: B",
            text::SMALL,
            blue,
        );
    }
    text::lines(
        &mut img,
        (qx + 2 * qw + gap + 40) as f32,
        (qy + 10) as f32,
        &[
            "Per step of k a fragment needs",
            "1 texel of A (4 rows of column p)",
            "and 2 of B (8 columns of row p)",
            "for 32 multiply-adds:",
            "32 / 3 = 10.7 FMAs per texel.",
            "",
            "Row neighbours share A's texels",
            "(same rows), column neighbours B's",
            "(same columns): each fetches",
            "half of them and swaps for the rest,",
            "so 21.3 FMAs per texel fetched.",
            "",
            "(The pinned H100 run used the tuned",
            "8×4 block: the same 8 attachments,",
            "2 texels of A and 1 of B a step.)",
        ],
        text::SMALL,
        INK,
    );
    picture::save_png(out, &img)
}
