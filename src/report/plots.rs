//! PNG plots of a benchmark sweep, drawn with plotters into memory and written atomically. The
//! font (DejaVu Sans, `assets/fonts/`) is compiled in, so no system font package is needed.
//!
//! - `gflops-vs-n.png`: GFLOP/s against n per method, log-log (L-M figure 3's view);
//! - `breakdown.png`: each method's time split into texture load, compute, GPU-side copy and
//!   readback at the largest n it ran, as shares of its total (L-M figures 4-5);
//! - `ladder.png`: the 5kk73 ladder with the HIP blog's naive and tiled kernels, GFLOP/s at the
//!   largest n.

use crate::bench::sweep::{Sweep, SweepRow};
use crate::error::{Error, Result};
use crate::methods::Method;
use crate::report::picture;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
const W: u32 = 1100;
const H: u32 = 650;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in; registering it cannot fail for a valid TTF.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

fn plot_err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> Error + '_ {
    move |e| Error::Invalid(format!("drawing {what}: {e}"))
}

/// Draw into an RGB buffer with `draw`, then save it as `dir/name` through a temporary file.
fn render(
    dir: &Path,
    name: &str,
    draw: impl FnOnce(&DrawingArea<BitMapBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<PathBuf> {
    let path = dir.join(name);
    render_to(&path, (W, H), draw)?;
    Ok(path)
}

/// Draw a `w × h` picture with `draw` and save it at `path` through a temporary file.
fn render_to(
    path: &Path,
    (w, h): (u32, u32),
    draw: impl FnOnce(&DrawingArea<BitMapBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<()> {
    register_font();
    let name = path.display().to_string();
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err(&name))?;
        draw(&root)?;
        root.present().map_err(plot_err(&name))?;
    }
    let img = image::RgbImage::from_raw(w, h, buf)
        .ok_or_else(|| Error::Invalid(format!("{name}: bad buffer size")))?;
    picture::save_png(path, &img)
}

/// One bar of [`bar_chart`].
#[derive(Clone, Debug)]
pub struct Bar {
    pub label: String,
    /// The bar's length; a bar that did not run has none and shows `why` instead.
    pub value: Option<f64>,
    /// Printed at the end of the bar (e.g. the value with its unit), or instead of it.
    pub text: String,
    /// Colour group (an era), indexing [`ERA_COLOURS`].
    pub group: usize,
}

/// Colours of the eras, in order: 2001, 2003, compute, tensor cores, CPU.
pub const ERA_COLOURS: [RGBColor; 5] = [
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(31, 119, 180),
    RGBColor(148, 103, 189),
    RGBColor(120, 120, 120),
];

/// A horizontal bar chart saved at `path`: one row per bar, top to bottom, on a linear or log
/// axis (`log`), with a legend of `groups` (names of the colour groups used).
pub fn bar_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    bars: &[Bar],
    log: bool,
    groups: &[&str],
) -> Result<()> {
    let rows = bars.len().max(1);
    let h = (140 + 34 * rows as u32).max(320);
    let vals: Vec<f64> = bars
        .iter()
        .filter_map(|b| b.value)
        .filter(|v| *v > 0.0)
        .collect();
    let vmax = vals.iter().copied().fold(1e-9, f64::max);
    let vmin = vals.iter().copied().fold(f64::INFINITY, f64::min).min(vmax);
    let labels: Vec<String> = bars.iter().rev().map(|b| b.label.clone()).collect();
    // The same chart on a log or a linear axis (plotters' coordinate types differ).
    macro_rules! draw_bars {
        ($root:expr, $xrange:expr, $lo:expr) => {{
            let lo: f64 = $lo;
            let mut chart = ChartBuilder::on($root)
                .caption(title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(250)
                .build_cartesian_2d($xrange, (0..rows.max(2) - 1).into_segmented())
                .map_err(plot_err(title))?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(rows + 1)
                .y_label_formatter(&|y| category_label(&labels, y))
                .x_label_formatter(&|x| short(*x))
                .label_style(("sans-serif", 13))
                .x_desc(x_desc)
                .draw()
                .map_err(plot_err(title))?;
            for (g, name) in groups
                .iter()
                .enumerate()
                .filter(|(_, name)| !name.is_empty())
            {
                let colour = ERA_COLOURS[g % ERA_COLOURS.len()];
                let members: Vec<(usize, f64)> = bars
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.group == g)
                    .filter_map(|(i, b)| b.value.filter(|v| *v > 0.0).map(|v| (rows - 1 - i, v)))
                    .collect();
                chart
                    .draw_series(members.iter().map(|&(row, v)| {
                        let mut bar = Rectangle::new(
                            [
                                (lo, SegmentValue::Exact(row)),
                                (v, SegmentValue::Exact(row + 1)),
                            ],
                            colour.filled(),
                        );
                        bar.set_margin(5, 5, 0, 0);
                        bar
                    }))
                    .map_err(plot_err(title))?
                    .label(*name)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled())
                    });
            }
            let style = TextStyle::from(("sans-serif", 12).into_font()).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Center,
                ),
            );
            chart
                .draw_series(bars.iter().enumerate().map(|(i, b)| {
                    let x = b.value.filter(|v| *v > 0.0).unwrap_or(lo);
                    Text::new(
                        format!("  {}", b.text),
                        (x, SegmentValue::CenterOf(rows - 1 - i)),
                        style.clone(),
                    )
                }))
                .map_err(plot_err(title))?;
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .label_font(("sans-serif", 13))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()
                .map_err(plot_err(title))?;
        }};
    }
    render_to(path, (W, h), |root| {
        if log {
            let lo = (vmin / 3.0).max(1e-12);
            draw_bars!(root, (lo..vmax * 40.0).log_scale(), lo);
        } else {
            draw_bars!(root, 0f64..vmax * 1.45, 0.0);
        }
        Ok(())
    })
}

/// One series of [`scatter_panels`].
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One log-log panel of [`scatter_panels`]: axis names and series.
#[derive(Clone, Debug)]
pub struct Panel {
    pub x_desc: String,
    pub y_desc: String,
    pub series: Vec<Series>,
}

/// Log-log scatter panels side by side, saved at `path`, each with a dashed horizontal reference
/// line at `reference` (value, label) if given.
pub fn scatter_panels(
    path: &Path,
    title: &str,
    panels: &[Panel],
    reference: Option<(f64, &str)>,
) -> Result<()> {
    render_to(path, (W, H), |root| {
        let root = root
            .titled(title, ("sans-serif", 20))
            .map_err(plot_err(title))?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        let all_y = panels
            .iter()
            .flat_map(|p| p.series.iter().flat_map(|s| s.points.iter().map(|q| q.1)));
        let (mut ylo, mut yhi) =
            all_y.fold((f64::INFINITY, 0f64), |(a, b), y| (a.min(y), b.max(y)));
        if let Some((r, _)) = reference {
            ylo = ylo.min(r);
            yhi = yhi.max(r);
        }
        if !ylo.is_finite() || yhi <= 0.0 {
            return Err(Error::Invalid(format!("{title}: nothing to plot")));
        }
        for (area, p) in areas.iter().zip(panels) {
            let xs = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0));
            let (xlo, xhi) = xs.fold((f64::INFINITY, 0f64), |(a, b), x| (a.min(x), b.max(x)));
            let mut chart = ChartBuilder::on(area)
                .margin(14)
                .x_label_area_size(40)
                .y_label_area_size(64)
                .build_cartesian_2d(
                    (xlo * 0.6..xhi * 1.6).log_scale(),
                    (ylo * 0.5..yhi * 2.5).log_scale(),
                )
                .map_err(plot_err(title))?;
            chart
                .configure_mesh()
                .x_desc(p.x_desc.as_str())
                .y_desc(p.y_desc.as_str())
                .x_label_formatter(&|x| format!("{x:.0e}"))
                .y_label_formatter(&|y| short(*y))
                .label_style(("sans-serif", 13))
                .draw()
                .map_err(plot_err(title))?;
            if let Some((r, label)) = reference {
                let grey = RGBColor(90, 90, 90);
                let (a, b) = (xlo * 0.6, xhi * 1.6);
                let steps = 40;
                let dashes = (0..steps).step_by(2).map(|i| {
                    let t0 = (a.ln() + (b.ln() - a.ln()) * i as f64 / steps as f64).exp();
                    let t1 = (a.ln() + (b.ln() - a.ln()) * (i + 1) as f64 / steps as f64).exp();
                    PathElement::new(vec![(t0, r), (t1, r)], grey.stroke_width(2))
                });
                chart
                    .draw_series(dashes)
                    .map_err(plot_err(title))?
                    .label(label.to_string())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], grey.stroke_width(2))
                    });
            }
            for (i, s) in p.series.iter().enumerate() {
                let colour = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(s.points.iter().map(|&q| Circle::new(q, 4, colour.filled())))
                    .map_err(plot_err(title))?
                    .label(s.name.clone())
                    .legend(move |(x, y)| Circle::new((x + 8, y), 4, colour.filled()));
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .label_font(("sans-serif", 12))
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .draw()
                .map_err(plot_err(title))?;
        }
        Ok(())
    })
}

/// A number with at most 3 significant digits, for axis labels.
fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

/// Categorical x axis: the labels of `rows` at the bar centres.
fn category_label(labels: &[String], v: &SegmentValue<usize>) -> String {
    match v {
        SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

fn ran(s: &Sweep) -> impl Iterator<Item = &SweepRow> {
    s.rows
        .iter()
        .filter(|r| r.skipped.is_none() && r.gflops.is_finite() && r.gflops > 0.0)
}

/// The row of each method (and precision) at the largest n it ran.
fn largest_per_method(s: &Sweep) -> Vec<&SweepRow> {
    let mut out: Vec<&SweepRow> = vec![];
    for r in ran(s) {
        match out
            .iter_mut()
            .find(|o| o.method == r.method && o.precision == r.precision)
        {
            Some(o) if o.n < r.n => *o = r,
            Some(_) => {}
            None => out.push(r),
        }
    }
    out
}

/// Write the three plots into `dir`; returns their paths.
pub fn sweep_plots(s: &Sweep, dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(vec![
        gflops_vs_n(s, dir)?,
        breakdown(s, dir)?,
        ladder(s, dir)?,
    ])
}

fn gflops_vs_n(s: &Sweep, dir: &Path) -> Result<PathBuf> {
    render(dir, "gflops-vs-n.png", |root| {
        let rows: Vec<&SweepRow> = ran(s).collect();
        let (nmin, nmax) = rows.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| {
            (a.min(r.n as f64), b.max(r.n as f64))
        });
        let (gmin, gmax) = rows.iter().fold((f64::INFINITY, 0.0f64), |(a, b), r| {
            (a.min(r.gflops), b.max(r.gflops))
        });
        if rows.is_empty() {
            return Err(Error::Invalid("no rows ran; nothing to plot".into()));
        }
        let mut chart = ChartBuilder::on(root)
            .caption(format!("GFLOP/s vs n — {}", s.adapter), ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .right_y_label_area_size(0)
            .build_cartesian_2d(
                (nmin * 0.8..nmax * 1.25).log_scale(),
                (gmin * 0.5..gmax * 2.0).log_scale(),
            )
            .map_err(plot_err("gflops-vs-n"))?;
        chart
            .configure_mesh()
            .x_desc("n (n×n · n×n)")
            .y_desc("GFLOP/s")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| short(*y))
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(plot_err("gflops-vs-n"))?;
        let mut series: Vec<(String, Vec<(f64, f64)>)> = vec![];
        for r in &rows {
            let key = if r.precision == "f32" {
                r.method.clone()
            } else {
                format!("{} {}", r.method, r.precision)
            };
            match series.iter_mut().find(|(k, _)| *k == key) {
                Some((_, pts)) => pts.push((r.n as f64, r.gflops)),
                None => series.push((key, vec![(r.n as f64, r.gflops)])),
            }
        }
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(plot_err("gflops-vs-n"))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(plot_err("gflops-vs-n"))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 11))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err("gflops-vs-n"))?;
        Ok(())
    })
}

fn breakdown(s: &Sweep, dir: &Path) -> Result<PathBuf> {
    render(dir, "breakdown.png", |root| {
        let rows: Vec<&SweepRow> = largest_per_method(s)
            .into_iter()
            .filter(|r| Method::parse(&r.method).is_ok_and(|m| m.is_gpu()))
            .collect();
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Where the time goes (largest n per method): load, compute, copy, readback",
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(210)
            .build_cartesian_2d(0f64..100f64, (0..rows.len().max(2) - 1).into_segmented())
            .map_err(plot_err("breakdown"))?;
        let labels: Vec<String> = rows
            .iter()
            .map(|r| format!("{} n={}", r.method, r.n))
            .collect();
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(rows.len().max(1) + 1)
            .y_label_formatter(&|y| category_label(&labels, y))
            .label_style(("sans-serif", 12))
            .x_desc("% of total time")
            .draw()
            .map_err(plot_err("breakdown"))?;
        let parts: [(&str, RGBColor, fn(&SweepRow) -> f64); 4] = [
            ("texture/buffer load", RGBColor(90, 140, 200), |r| {
                r.upload_ms
            }),
            ("compute", RGBColor(220, 90, 60), |r| r.compute_median_ms),
            ("GPU copy", RGBColor(240, 190, 60), |r| r.copy_ms),
            ("readback", RGBColor(110, 180, 110), |r| r.readback_ms),
        ];
        for (pi, (name, color, f)) in parts.iter().enumerate() {
            let rects: Vec<Rectangle<(f64, SegmentValue<usize>)>> = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let total: f64 = parts
                        .iter()
                        .map(|p| (p.2)(r).max(0.0))
                        .sum::<f64>()
                        .max(1e-12);
                    let below: f64 =
                        parts[..pi].iter().map(|p| (p.2)(r).max(0.0)).sum::<f64>() / total * 100.0;
                    let h = f(r).max(0.0) / total * 100.0;
                    let mut bar = Rectangle::new(
                        [
                            (below, SegmentValue::Exact(i)),
                            (below + h, SegmentValue::Exact(i + 1)),
                        ],
                        color.filled(),
                    );
                    bar.set_margin(4, 4, 0, 0);
                    bar
                })
                .collect();
            let c = *color;
            chart
                .draw_series(rects)
                .map_err(plot_err("breakdown"))?
                .label(*name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font(("sans-serif", 13))
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .draw()
            .map_err(plot_err("breakdown"))?;
        Ok(())
    })
}

fn ladder(s: &Sweep, dir: &Path) -> Result<PathBuf> {
    let order = [
        Method::CsNaive,
        Method::CsTiled16,
        Method::CsTiled32,
        Method::Kk73Uncoalesced,
        Method::Kk73Coalesced,
        Method::Kk73BankFree,
        Method::Kk73OuterProduct,
        Method::Kk73Unrolled,
        Method::Kk73Prefetch,
    ];
    let largest = largest_per_method(s);
    let bars: Vec<Bar> = order
        .iter()
        .filter_map(|m| largest.iter().find(|r| r.method == m.name()))
        .map(|r| Bar {
            label: format!("{} n={}", r.method, r.n),
            value: Some(r.gflops),
            text: format!("{} GFLOP/s", short(r.gflops)),
            group: 2,
        })
        .collect();
    let path = dir.join("ladder.png");
    bar_chart(
        &path,
        "The 5kk73 ladder (GFLOP/s at the largest n)",
        "GFLOP/s",
        &bars,
        false,
        &["", "", "compute shaders"],
    )?;
    Ok(path)
}
