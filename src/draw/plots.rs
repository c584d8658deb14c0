//! The charts of every rendermm picture, drawn with plotters into memory and written
//! atomically: bar charts, scatter panels, two bar panels side by side, their legends and the
//! eras' colours. The font (DejaVu Sans, `assets/fonts/`) is compiled in, so no system font
//! package is needed, and every piece of text is drawn by [`text`], the helper of the figures
//! ([`Backend`]). The sweep's own charts (`gflops-vs-n.png`, `breakdown.png`, `ladder.png`, the
//! methods at the largest n) are drawn with these in [`crate::bench::plots`].

use crate::draw::{picture, text};
use crate::error::{Error, Result};
use crate::methods::{Era, Method};
use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

mod backend;

pub use backend::Backend;

use crate::draw::text::FONT;
pub(crate) const W: u32 = 1200;
pub(crate) const H: u32 = 680;
/// Font sizes, as [`text`] names them.
pub(crate) const TITLE: f64 = text::TITLE as f64;
pub(crate) const LABEL: f64 = text::LABEL as f64;
pub(crate) const SMALL: f64 = text::SMALL as f64;

pub(crate) type Area<'a> = DrawingArea<Backend<'a>, Shift>;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is compiled in; registering it cannot fail for a valid TTF.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

pub(crate) fn plot_err<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> Error + '_ {
    move |e| Error::Invalid(format!("drawing {what}: {e}"))
}

/// Draw into an RGB buffer with `draw`, then save it as `dir/name` through a temporary file.
pub(crate) fn render(
    dir: &Path,
    name: &str,
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<PathBuf> {
    let path = dir.join(name);
    render_to(&path, (W, H), draw)?;
    Ok(path)
}

/// Draw a `w × h` picture with `draw` and save it at `path` through a temporary file.
pub(crate) fn render_to(
    path: &Path,
    (w, h): (u32, u32),
    draw: impl FnOnce(&Area) -> Result<()>,
) -> Result<()> {
    register_font();
    let name = path.display().to_string();
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = Backend(BitMapBackend::with_buffer(&mut buf, (w, h))).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err(&name))?;
        draw(&root)?;
        root.present().map_err(plot_err(&name))?;
    }
    let img = image::RgbImage::from_raw(w, h, buf)
        .ok_or_else(|| Error::Internal(format!("{name}: bad buffer size")))?;
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

/// Colours of the eras, in order: 2001, 2003, compute, tensor cores, CPU, present-day render
/// pass (the groups of [`era_group`]).
pub const ERA_COLOURS: [RGBColor; 6] = [
    RGBColor(214, 39, 40),
    RGBColor(255, 127, 14),
    RGBColor(31, 119, 180),
    RGBColor(148, 103, 189),
    RGBColor(120, 120, 120),
    RGBColor(44, 160, 44),
];

/// The colour group of an era in [`ERA_COLOURS`].
pub fn era_group(era: Era) -> usize {
    match era {
        Era::Blending2001 => 0,
        Era::Shaders2003 => 1,
        Era::Compute => 2,
        Era::TensorCores => 3,
        Era::Cpu => 4,
        Era::RenderPassToday => 5,
    }
}

/// Member `i` of `count` in era group `g`'s colour family: shades of the era's hue from dark to
/// light, so the series of one era read as one family.
pub fn era_colour(g: usize, i: usize, count: usize) -> RGBColor {
    let RGBColor(r, gr, b) = ERA_COLOURS[g % ERA_COLOURS.len()];
    // From 35 % darker to 35 % lighter than the base.
    let t = if count <= 1 {
        0.0
    } else {
        -0.35 + 0.7 * i as f64 / (count - 1) as f64
    };
    let f = |c: u8| -> u8 {
        let c = c as f64;
        let v = if t < 0.0 {
            c * (1.0 + t)
        } else {
            c + (255.0 - c) * t
        };
        v.round().clamp(0.0, 255.0) as u8
    };
    RGBColor(f(r), f(gr), f(b))
}

/// Draw marker `kind` (filled circle, triangle, square, cross, hollow circle, hollow square, in
/// turn) in `colour` at each of `points` (an iterator of coordinates) with `draw_series` on
/// `target` (a chart context or a drawing area's `draw`-like target); evaluates to the result.
macro_rules! markers {
    ($target:expr, $points:expr, $kind:expr, $colour:expr) => {{
        let colour: RGBColor = $colour;
        let filled = colour.filled();
        let hollow = colour.stroke_width(2);
        match $kind % 6 {
            0 => $target
                .draw_series($points.map(|p| Circle::new(p, 5, filled)))
                .map(|_| ()),
            1 => $target
                .draw_series($points.map(|p| TriangleMarker::new(p, 7, filled)))
                .map(|_| ()),
            2 => $target
                .draw_series(
                    $points
                        .map(|p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], filled)),
                )
                .map(|_| ()),
            3 => $target
                .draw_series($points.map(|p| Cross::new(p, 5, colour.stroke_width(3))))
                .map(|_| ()),
            4 => $target
                .draw_series($points.map(|p| Circle::new(p, 5, hollow)))
                .map(|_| ()),
            _ => $target
                .draw_series(
                    $points
                        .map(|p| EmptyElement::at(p) + Rectangle::new([(-4, -4), (4, 4)], hollow)),
                )
                .map(|_| ()),
        }
    }};
}
pub(crate) use markers;

/// A drawing area in pixels with the `draw_series` of a chart, for [`markers!`] in legends.
struct Pixels<'x, 'b>(&'x Area<'b>);

impl<'b> Pixels<'_, 'b> {
    fn draw_series<E, I>(
        &self,
        items: I,
    ) -> std::result::Result<(), DrawingAreaErrorKind<<Backend<'b> as DrawingBackend>::ErrorType>>
    where
        I: IntoIterator<Item = E>,
        E: Drawable<Backend<'b>>,
        for<'e> &'e E: PointCollection<'e, (i32, i32)>,
    {
        for e in items {
            self.0.draw(&e)?;
        }
        Ok(())
    }
}

/// What a legend entry shows beside its name.
#[derive(Clone, Copy, Debug)]
pub enum Mark {
    /// A filled square (bars).
    Swatch(RGBColor),
    /// A line through a marker (series).
    Marker(usize, RGBColor),
    /// A dashed line (a reference value).
    Dashed(RGBColor),
}

pub(crate) fn draw_mark(area: &Area, (x, y): (i32, i32), mark: Mark) -> Result<()> {
    let e = plot_err("a legend");
    match mark {
        Mark::Swatch(c) => area
            .draw(&Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()))
            .map_err(e),
        Mark::Marker(kind, c) => {
            area.draw(&PathElement::new(
                vec![(x - 2, y), (x + 20, y)],
                c.stroke_width(2),
            ))
            .map_err(plot_err("a legend"))?;
            markers!(Pixels(area), std::iter::once((x + 9, y)), kind, c).map_err(e)
        }
        Mark::Dashed(c) => {
            for dx in [0, 8, 16] {
                area.draw(&PathElement::new(
                    vec![(x + dx - 2, y), (x + dx + 3, y)],
                    c.stroke_width(2),
                ))
                .map_err(plot_err("a legend"))?;
            }
            Ok(())
        }
    }
}

/// A legend in `area`, outside any chart's data: entries in rows, left to right, wrapping at the
/// area's width; a `None` mark starts a new row with its name as a heading. Returns the height
/// used.
pub(crate) fn legend_rows(area: &Area, entries: &[(String, Option<Mark>)]) -> Result<i32> {
    let (w, _) = area.dim_in_pixel();
    let (places, height) = legend_layout(w as i32, entries);
    for ((name, mark), (x, y)) in entries.iter().zip(places) {
        match mark {
            None => {
                area.draw(&Text::new(
                    name.clone(),
                    (x, y - 8),
                    ("sans-serif", SMALL).into_font().color(&BLACK),
                ))
                .map_err(plot_err("a legend"))?;
            }
            Some(m) => {
                draw_mark(area, (x, y), *m)?;
                area.draw(&Text::new(
                    name.clone(),
                    (x + 28, y - 8),
                    ("sans-serif", SMALL)
                        .into_font()
                        .color(&RGBColor(40, 40, 40)),
                ))
                .map_err(plot_err("a legend"))?;
            }
        }
    }
    Ok(height)
}

/// The height [`legend_rows`] takes for `entries` in an area `w` pixels wide.
pub(crate) fn legend_height(w: i32, entries: &[(String, Option<Mark>)]) -> i32 {
    legend_layout(w, entries).1
}

/// Where [`legend_rows`] puts each entry (its mark's left edge and its row's middle) in an area
/// `w` pixels wide, and the height used.
pub(crate) fn legend_layout(w: i32, entries: &[(String, Option<Mark>)]) -> (Vec<(i32, i32)>, i32) {
    let row_h = 22;
    let (mut x, mut y) = (10i32, 12i32);
    let mut places = Vec::with_capacity(entries.len());
    for (name, mark) in entries {
        let tw = text::width(name, text::SMALL).ceil() as i32;
        match mark {
            None => {
                if x > 10 {
                    y += row_h;
                }
                places.push((10, y));
                x = 20 + tw;
            }
            Some(_) => {
                let need = 30 + tw + 18;
                if x + need > w && x > 10 {
                    x = 10;
                    y += row_h;
                }
                places.push((x, y));
                x += need;
            }
        }
    }
    (places, y + row_h)
}

/// A legend in a column (`area`, beside a chart): a `None` mark is an era heading.
pub(crate) fn legend_column(area: &Area, entries: &[(String, Option<Mark>)]) -> Result<()> {
    let mut y = 16i32;
    for (name, mark) in entries {
        match mark {
            None => {
                y += 4;
                area.draw(&Text::new(
                    name.clone(),
                    (6, y - 8),
                    ("sans-serif", SMALL).into_font().color(&BLACK),
                ))
                .map_err(plot_err("a legend"))?;
            }
            Some(m) => {
                draw_mark(area, (10, y), *m)?;
                area.draw(&Text::new(
                    name.clone(),
                    (38, y - 8),
                    ("sans-serif", SMALL)
                        .into_font()
                        .color(&RGBColor(40, 40, 40)),
                ))
                .map_err(plot_err("a legend"))?;
            }
        }
        y += 20;
    }
    Ok(())
}

/// A horizontal bar chart saved at `path`: one row per bar, top to bottom, on a linear or log
/// axis (`log`), coloured by era ([`ERA_COLOURS`], `groups` naming the groups used), with the
/// legend in a strip under the title, outside the bars.
pub fn bar_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    bars: &[Bar],
    log: bool,
    groups: &[&str],
) -> Result<()> {
    let rows = bars.len().max(1);
    let h = (190 + 34 * rows as u32).max(340);
    render_to(path, (W, h), |root| {
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err(title))?;
        let used: Vec<(String, Option<Mark>)> = groups
            .iter()
            .enumerate()
            .filter(|(g, name)| !name.is_empty() && bars.iter().any(|b| b.group == *g))
            .map(|(g, name)| {
                (
                    name.to_string(),
                    Some(Mark::Swatch(ERA_COLOURS[g % ERA_COLOURS.len()])),
                )
            })
            .collect();
        let (legend, chart) = root.split_vertically(if used.is_empty() { 0 } else { 30 });
        if !used.is_empty() {
            legend_rows(&legend, &used)?;
        }
        bars_on(&chart, title, x_desc, bars, log, &ERA_COLOURS)
    })
}

/// The smallest and the largest positive value of `bars` (the largest at least 1e-9, the
/// smallest at most the largest).
fn value_range(bars: &[Bar]) -> (f64, f64) {
    let vals: Vec<f64> = bars
        .iter()
        .filter_map(|b| b.value)
        .filter(|v| *v > 0.0)
        .collect();
    let vmax = vals.iter().copied().fold(1e-9, f64::max);
    let vmin = vals.iter().copied().fold(f64::INFINITY, f64::min).min(vmax);
    (vmin, vmax)
}

/// The width of the bars' label column: the widest label and a margin.
fn label_width(bars: &[Bar]) -> u32 {
    bars.iter()
        .map(|b| text::width(&b.label, text::SMALL).ceil() as u32)
        .max()
        .unwrap_or(0)
        + 24
}

/// Horizontal bars in `area` (see [`bar_chart`]); bar colours are `colours[bar.group]`. Each
/// bar's text goes after its end, inside the axis, which leaves room for it.
pub(crate) fn bars_on(
    area: &Area,
    title: &str,
    x_desc: &str,
    bars: &[Bar],
    log: bool,
    colours: &[RGBColor],
) -> Result<()> {
    let rows = bars.len().max(1);
    let (vmin, vmax) = value_range(bars);
    let labels: Vec<String> = bars.iter().rev().map(|b| b.label.clone()).collect();
    let label_w = label_width(bars);
    // Each bar's text after its end must fit: the axis runs on far enough for the bar whose end
    // and text reach furthest. (A bar without a value has its text from the axis start.)
    let (aw, _) = area.dim_in_pixel();
    let plot_w = aw.saturating_sub(label_w + 40).max(100) as f64;
    let share = |b: &Bar| ((text::width(&b.text, text::SMALL) as f64 + 16.0) / plot_w).min(0.8);
    // The same chart on a log or a linear axis (plotters' coordinate types differ).
    macro_rules! draw_bars {
        ($xrange:expr, $lo:expr) => {{
            let lo: f64 = $lo;
            let mut chart = ChartBuilder::on(area)
                .margin(14)
                .margin_right(24)
                .x_label_area_size(48)
                .y_label_area_size(label_w)
                .build_cartesian_2d($xrange, (0..rows.max(2) - 1).into_segmented())
                .map_err(plot_err(title))?;
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(rows + 1)
                .y_label_formatter(&|y| category_label(&labels, y))
                .x_label_formatter(&|x| short(*x))
                // About 80 pixels a tick label, so that labels like 0.020 do not run together
                // on a narrow axis.
                .x_labels(((plot_w / 80.0) as usize).clamp(3, 10))
                .label_style(("sans-serif", SMALL))
                .axis_desc_style(("sans-serif", LABEL))
                .x_desc(x_desc)
                .draw()
                .map_err(plot_err(title))?;
            chart
                .draw_series(bars.iter().enumerate().filter_map(|(i, b)| {
                    let v = b.value.filter(|v| *v > 0.0)?;
                    let row = rows - 1 - i;
                    let colour = colours[b.group % colours.len()];
                    let mut bar = Rectangle::new(
                        [
                            (lo, SegmentValue::Exact(row)),
                            (v, SegmentValue::Exact(row + 1)),
                        ],
                        colour.filled(),
                    );
                    bar.set_margin(5, 5, 0, 0);
                    Some(bar)
                }))
                .map_err(plot_err(title))?;
            let style = TextStyle::from(("sans-serif", SMALL).into_font()).pos(
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
        }};
    }
    let valued = || {
        bars.iter()
            .filter_map(|b| b.value.filter(|v| *v > 0.0).map(|v| (v, share(b))))
    };
    if log {
        let lo = (vmin / 3.0).max(1e-12);
        let reach = valued()
            .map(|(v, f)| (v / lo).ln() / (1.0 - f))
            .fold((vmax / lo).ln(), f64::max);
        let hi = lo * (reach * 1.03).exp();
        draw_bars!((lo..hi).log_scale(), lo);
    } else {
        let hi = valued().map(|(v, f)| v / (1.0 - f)).fold(vmax, f64::max) * 1.03;
        draw_bars!(0f64..hi, 0.0);
    }
    Ok(())
}

/// One series of [`scatter_panels`].
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Its era's colour group ([`era_group`]).
    pub group: usize,
}

/// One log-log panel of [`scatter_panels`]: axis names and series.
#[derive(Clone, Debug)]
pub struct Panel {
    pub x_desc: String,
    pub y_desc: String,
    pub series: Vec<Series>,
}

/// Colour and marker of each series, given the era group of each (`groups`): shades of the
/// era's colour in order of appearance within the era, a marker per series.
pub(crate) fn series_styles(groups: &[usize]) -> Vec<(RGBColor, usize)> {
    groups
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            let members: Vec<usize> = (0..groups.len()).filter(|&k| groups[k] == g).collect();
            let at = members.iter().position(|&k| k == i).unwrap_or(0);
            (era_colour(g, at, members.len()), i)
        })
        .collect()
}

/// Log-log scatter panels side by side, saved at `path`, each with a dashed horizontal reference
/// line at `reference` (value, label) if given; one legend for all panels in a strip under the
/// title, outside the data.
pub fn scatter_panels(
    path: &Path,
    title: &str,
    panels: &[Panel],
    reference: Option<(f64, &str)>,
) -> Result<()> {
    render_to(path, (W, H), |root| {
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err(title))?;
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
        // The series are the same in every panel: one legend.
        let first = panels.first().map(|p| p.series.as_slice()).unwrap_or(&[]);
        let styles = series_styles(&first.iter().map(|s| s.group).collect::<Vec<_>>());
        let grey = RGBColor(90, 90, 90);
        let mut entries: Vec<(String, Option<Mark>)> = first
            .iter()
            .zip(&styles)
            .map(|(s, &(c, k))| (s.name.clone(), Some(Mark::Marker(k, c))))
            .collect();
        if let Some((_, label)) = reference {
            entries.push((label.to_string(), Some(Mark::Dashed(grey))));
        }
        let (legend, body) = root.split_vertically(32);
        legend_rows(&legend, &entries)?;
        let areas = body.split_evenly((1, panels.len().max(1)));
        for (area, p) in areas.iter().zip(panels) {
            let xs = p.series.iter().flat_map(|s| s.points.iter().map(|q| q.0));
            let (xlo, xhi) = xs.fold((f64::INFINITY, 0f64), |(a, b), x| (a.min(x), b.max(x)));
            let mut chart = ChartBuilder::on(area)
                .margin(14)
                .margin_right(22)
                .x_label_area_size(48)
                .y_label_area_size(72)
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
                .label_style(("sans-serif", SMALL))
                .axis_desc_style(("sans-serif", LABEL))
                .draw()
                .map_err(plot_err(title))?;
            if let Some((r, _)) = reference {
                let (a, b) = (xlo * 0.6, xhi * 1.6);
                let steps = 40;
                let dashes = (0..steps).step_by(2).map(|i| {
                    let t0 = (a.ln() + (b.ln() - a.ln()) * i as f64 / steps as f64).exp();
                    let t1 = (a.ln() + (b.ln() - a.ln()) * (i + 1) as f64 / steps as f64).exp();
                    PathElement::new(vec![(t0, r), (t1, r)], grey.stroke_width(2))
                });
                chart.draw_series(dashes).map_err(plot_err(title))?;
            }
            for (s, &(colour, kind)) in p.series.iter().zip(&styles) {
                markers!(chart, s.points.iter().copied(), kind, colour).map_err(plot_err(title))?;
            }
        }
        Ok(())
    })
}

/// A number with at most 3 significant digits, for axis labels and values.
pub fn short(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let digits = (1 - v.abs().log10().floor() as i32).max(0) as usize;
    format!("{v:.digits$}")
}

/// Categorical x axis: the labels of `rows` at the bar centres.
pub(crate) fn category_label(labels: &[String], v: &SegmentValue<usize>) -> String {
    match v {
        SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
        _ => String::new(),
    }
}

/// The era group of a sweep row's method (the CPU's for a name this build does not know).
pub(crate) fn group_of(method: &str) -> usize {
    Method::parse(method).map_or(4, |m| era_group(m.info().era))
}

/// Names of the era groups, as the charts' legends give them.
pub const ERA_NAMES: [&str; 6] = [
    "2001: fixed-function blending",
    "2003: fragment shaders",
    "compute shaders",
    "tensor cores",
    "CPU",
    "render pass today",
];

/// The order of the era groups in legends: historical.
pub(crate) const ERA_ORDER: [usize; 6] = [0, 1, 5, 2, 3, 4];

/// One bar of [`two_bar_panels`]: name, value, colour.
pub type NamedBar<'a> = (&'a str, f64, RGBColor);

/// Two bar charts side by side saved at `path` (L-M figures 4 and 5): a title, a subtitle under
/// it (in muted text; empty for none), a legend of colour swatches in a strip under both, outside
/// the bars, then each panel with its title, its axis name and its bars, each bar's value (in
/// milliseconds) printed after it.
pub fn two_bar_panels(
    path: &Path,
    title: &str,
    subtitle: &str,
    legend: &[(&str, RGBColor)],
    panels: [(&str, &str, &[NamedBar]); 2],
) -> Result<()> {
    let entries: Vec<(String, Option<Mark>)> = legend
        .iter()
        .map(|(name, c)| (name.to_string(), Some(Mark::Swatch(*c))))
        .collect();
    let sub_h = if subtitle.is_empty() {
        0
    } else {
        text::line(text::SMALL) as u32 + 6
    };
    let legend_h = if entries.is_empty() {
        0
    } else {
        legend_height(W as i32, &entries) as u32 + 8
    };
    let rows = panels.iter().map(|p| p.2.len()).max().unwrap_or(1);
    let h = (170 + 46 * rows as u32).max(360) + sub_h + legend_h;
    render_to(path, (W, h), |root| {
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err(title))?;
        let (head, body) = root.split_vertically(sub_h + legend_h);
        if !subtitle.is_empty() {
            let x = (W as f32 - text::width(subtitle, text::SMALL)) / 2.0;
            head.draw(&Text::new(
                subtitle.to_string(),
                (x.max(4.0) as i32, 0),
                ("sans-serif", SMALL)
                    .into_font()
                    .color(&RGBColor(95, 95, 95)),
            ))
            .map_err(plot_err(title))?;
        }
        if !entries.is_empty() {
            let (_, strip) = head.split_vertically(sub_h);
            legend_rows(&strip, &entries)?;
        }
        let areas = body.split_evenly((1, 2));
        for (area, (ptitle, x_desc, named)) in areas.iter().zip(panels) {
            let area = area
                .titled(ptitle, ("sans-serif", LABEL))
                .map_err(plot_err(title))?;
            let colours: Vec<RGBColor> = named.iter().map(|b| b.2).collect();
            let bars: Vec<Bar> = named
                .iter()
                .enumerate()
                .map(|(i, b)| Bar {
                    label: b.0.to_string(),
                    value: Some(b.1),
                    text: format!("{} ms", short(b.1)),
                    group: i,
                })
                .collect();
            bars_on(&area, title, x_desc, &bars, false, &colours)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
