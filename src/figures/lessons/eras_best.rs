//! Each era's methods at their best n on the H100, against its datasheet peaks.

use super::*;

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
    let legend = era_legend(&bars);
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
        value_labels(&mut chart, &bars).map_err(plot_err(title))?;
        peak_lines(&mut chart, nrows).map_err(plot_err(title))
    })
}

/// The chart the bars are drawn on: GFLOP/s on a log axis across, one row per method.
type EraChart<'a, 'b> = ChartContext<
    'a,
    plots::Backend<'b>,
    Cartesian2d<
        LogCoord<f64>,
        plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordusize>,
    >,
>;

/// The legend: the eras that have bars, then the peaks' dashes.
fn era_legend(bars: &[(String, f64, usize)]) -> Vec<(String, Option<Mark>)> {
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
    legend
}

/// Each bar's value: after a short bar, inside a long one, clear of the peak lines.
fn value_labels<'b>(chart: &mut EraChart<'_, 'b>, bars: &[(String, f64, usize)]) -> Drawn<'b> {
    let nrows = bars.len();
    let anchor = |h| {
        TextStyle::from(("sans-serif", SMALL).into_font()).pos(
            plotters::style::text_anchor::Pos::new(h, plotters::style::text_anchor::VPos::Center),
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
        chart.draw_series(std::iter::once(t))?;
    }
    Ok(())
}

/// The peaks: dashed lines across every row, named in the top rows (whose bars are short).
fn peak_lines<'b>(chart: &mut EraChart<'_, 'b>, nrows: usize) -> Drawn<'b> {
    let grey = RGBColor(60, 60, 60);
    let right_mid =
        ("sans-serif", SMALL)
            .into_font()
            .color(&grey)
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            ));
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
            ))?;
            y += 12;
        }
        chart.draw_series(std::iter::once(Text::new(
            name.to_string(),
            (peak, SegmentValue::CenterOf(nrows - 1 - i)),
            right_mid.clone(),
        )))?;
    }
    Ok(())
}
