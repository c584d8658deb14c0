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
        for &(method, x, g, format) in &points {
            draw_point(&mut chart, (method, x, g, format), (r32, rgba, fma))
                .map_err(plot_err(title))?;
        }
        corner_note(&chart).map_err(plot_err(title))
    })
}

/// The texel-rate chart: FMAs per texel across, GFLOP/s up, both on log axes.
type RoofChart<'a, 'b> =
    ChartContext<'a, plots::Backend<'b>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// One method's point at (FMAs per texel, GFLOP/s), labelled with its share of its fetch line
/// (`rates`: the R32F and RGBA32F fetch rates and the fragment-FMA ceiling).
fn draw_point<'b>(
    chart: &mut RoofChart<'_, 'b>,
    (method, x, g, format): (&str, f64, f64, &str),
    (r32, rgba, fma): (f64, f64, f64),
) -> Drawn<'b> {
    let colour = plots::ERA_COLOURS[plots::group_of(method)];
    chart.draw_series(std::iter::once(Circle::new((x, g), 7, colour.filled())))?;
    let rate = if format == "R32F" { r32 } else { rgba };
    let roof = (2.0 * rate * x).min(fma);
    let label = format!(
        "{method}: {x:.1} FMAs per texel, {} GFLOP/s = {:.0} % of its fetch line",
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

/// The note in the chart's lower right corner on why points sit above their fetch lines.
fn corner_note<'b>(chart: &RoofChart) -> Drawn<'b> {
    let note = "Above a fetch line: neighbouring fragments read the same texels and the texture cache serves the repeats; the fetch microbenchmark's lanes each read their own.";
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
