//! The 2004 verdict as a roofline: GFLOP/s against FMAs per texel fetched.

use super::*;

/// FMAs per texel fetched by each render-pass method of the 2004 verdict, from its shader's
/// loop: `hall-blocked` one R32F texel of A and one of B per FMA; `hall-packed` two RGBA32F
/// texels per 2×2·2×2 product (8 FMAs); `frag-mrt` an 8×4 block from (8+4)/4 texels per step,
/// halved by quad sharing: 2·4·8·4/(8+4).
pub const FMAS_PER_TEXEL: [(&str, f64, &str); 3] = [
    ("hall-blocked", 0.5, "R32F"),
    ("hall-packed", 4.0, "RGBA32F"),
    ("frag-mrt", 2.0 * 4.0 * 8.0 * 4.0 / 12.0, "RGBA32F"),
];

/// The 2004 verdict as a roofline: GFLOP/s against FMAs per texel fetched, with the pinned run's
/// two roofs — texel lookups (the R32F fetch walk: 2 × lookups/s × FMAs per texel) and the
/// fragment-FMA ceiling — and `hall-blocked`, `hall-packed` and `frag-mrt` at n = 4096 as points,
/// each labelled with its share of the lower roof above it.
///
/// The RGBA32F walk is drawn too, dashed, and is not a roof: each of its lanes reads a texel of
/// its own, so it measures the texture path's byte rate for texels no neighbour shares (334 GB/s).
/// Hall's and frag-mrt's neighbouring fragments look up the same texels and the texture cache
/// serves the repeats, so their RGBA32F texel rate passes it (`hall-packed` by about a third).
/// No method's lookups pass the R32F walk's, whose bytes are few: it is a bound on lookups, and so
/// the roof the text (docs/bandwidth.md) holds every method to.
pub fn texel_rate_vs_fma(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let rows = pinned_rows()?;
    let n = 4096;
    let fma = pinned_ceiling("fragment-fma")?;
    let lookups = pinned_ceiling("texture-fetch")? / 4.0; // R32F walk, Glookups/s
    let rgba = pinned_ceiling("texture-fetch-rgba32f")? / 16.0; // RGBA32F walk, Gtexels/s
    let mut points = vec![];
    for (method, x, format) in FMAS_PER_TEXEL {
        points.push((method, x, at_n(&rows, method, n)?, format));
    }
    let title = "The 2004 verdict on the H100: GFLOP/s against FMAs per texel fetched (pinned run, n = 4096)";
    let red = RGBColor(214, 39, 40);
    let blue = RGBColor(31, 119, 180);
    let grey = RGBColor(70, 70, 70);
    let roof_lookups = format!(
        "roof: texel lookups, {lookups:.1}·10⁹/s (R32F walk; GFLOP/s = 2 × lookups/s × FMAs per texel)"
    );
    let walk_rgba = format!(
        "not a roof: RGBA32F walk, no texel shared, {rgba:.1}·10⁹ texels/s ({} GB/s)",
        plots::short(rgba * 16.0)
    );
    let frag = format!(
        "roof: fragment-stage FMA chains, {} GFLOP/s",
        plots::short(fma)
    );
    let mut legend: Vec<(String, Option<Mark>)> = vec![
        (roof_lookups, Some(Mark::Swatch(red))),
        (frag, Some(Mark::Dashed(grey))),
        (walk_rgba, Some(Mark::Dashed(blue))),
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
        // The lookup roof, 2 · rate · x, up to the fragment-FMA ceiling.
        let knee = fma / (2.0 * lookups);
        let x0 = (ylo / (2.0 * lookups)).max(xlo);
        chart
            .draw_series(LineSeries::new(
                [
                    (x0, 2.0 * lookups * x0),
                    (knee.min(xhi), 2.0 * lookups * knee.min(xhi)),
                ],
                red.stroke_width(3),
            ))
            .map_err(plot_err(title))?;
        // The RGBA32F walk without sharing: a reference line, dashed, not a roof.
        let x1 = (ylo / (2.0 * rgba)).max(xlo);
        let x2 = (fma / (2.0 * rgba)).min(xhi);
        chart
            .draw_series(
                dashes(
                    (x1, 2.0 * rgba * x1),
                    (x2, 2.0 * rgba * x2),
                    (true, true),
                    40,
                )
                .into_iter()
                .map(|d| PathElement::new(d.to_vec(), blue.stroke_width(2))),
            )
            .map_err(plot_err(title))?;
        chart
            .draw_series(
                dashes((xlo, fma), (xhi, fma), (true, true), 30)
                    .into_iter()
                    .map(|d| PathElement::new(d.to_vec(), grey.stroke_width(2))),
            )
            .map_err(plot_err(title))?;
        for &(method, x, g, format) in &points {
            draw_point(&mut chart, (method, x, g, format), (lookups, fma))
                .map_err(plot_err(title))?;
        }
        corner_note(&chart).map_err(plot_err(title))
    })
}

/// The texel-rate chart: FMAs per texel across, GFLOP/s up, both on log axes.
type RoofChart<'a, 'b> =
    ChartContext<'a, plots::Backend<'b>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// One method's point at (FMAs per texel, GFLOP/s), labelled with its share of the lower roof
/// above it (`roofs`: the lookup rate and the fragment-FMA ceiling), and which roof that is.
fn draw_point<'b>(
    chart: &mut RoofChart<'_, 'b>,
    (method, x, g, _format): (&str, f64, f64, &str),
    (lookups, fma): (f64, f64),
) -> Drawn<'b> {
    let colour = plots::ERA_COLOURS[plots::group_of(method)];
    chart.draw_series(std::iter::once(Circle::new((x, g), 7, colour.filled())))?;
    let (roof, which) = if 2.0 * lookups * x < fma {
        (2.0 * lookups * x, "the lookup roof")
    } else {
        (fma, "the FMA roof")
    };
    let label = format!(
        "{method}: {x:.1} FMAs per texel, {} GFLOP/s = {:.0} % of {which}",
        plots::short(g),
        100.0 * g / roof
    );
    let style = TextStyle::from(("sans-serif", SMALL).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Left,
            plotters::style::text_anchor::VPos::Center,
        ),
    );
    let (px, py) = chart.backend_coord(&(x, g));
    let area = chart.plotting_area().strip_coord_spec();
    let (bx, by) = area.get_base_pixel();
    // frag-mrt's label goes below its point (the ceiling line runs above it).
    let (dx, dy) = match method {
        "frag-mrt" => (-(text::width(&label, text::SMALL) as i32) - 14, 24),
        "hall-packed" => (14, 22),
        _ => (14, 20),
    };
    let (lx, ly) = (px - bx + dx, py - by + dy);
    let tw = text::width(&label, text::SMALL).ceil() as i32;
    area.draw(&Rectangle::new(
        [(lx - 4, ly - 10), (lx + tw + 4, ly + 10)],
        WHITE.filled(),
    ))?;
    area.draw(&Text::new(label, (lx, ly), style))?;
    Ok(())
}

/// The note in the chart's lower right corner on why points may sit above the dashed RGBA32F walk.
fn corner_note<'b>(chart: &RoofChart) -> Drawn<'b> {
    let note = "Above the dashed RGBA32F walk: neighbouring fragments share texels and the texture cache serves the repeats; each lane of the walk reads its own.";
    let area = chart.plotting_area().strip_coord_spec();
    let (w, h) = area.dim_in_pixel();
    let tw = text::width(note, text::SMALL).ceil() as i32;
    let (nx, ny) = (w as i32 - tw - 12, h as i32 - 22);
    area.draw(&Rectangle::new(
        [(nx - 6, ny - 12), (nx + tw + 6, ny + 12)],
        WHITE.filled(),
    ))?;
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
    ))?;
    Ok(())
}
