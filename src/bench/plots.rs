//! The sweep's four charts (`bench --sweep --plot`, `bench --replot`): GFLOP/s against n, the
//! methods at the largest n, the time breakdown and the compute-shader ladder. Drawn with
//! [`crate::draw::plots`], below the bench, from the rows a sweep saved.

use crate::bench::sweep::{Sweep, SweepRow};
use crate::draw::plots::*;
use crate::draw::text;
use crate::error::{Error, Result};
use crate::methods::Method;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

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

/// Write the four charts into `dir`; returns their paths.
pub fn sweep_plots(s: &Sweep, dir: &Path) -> Result<Vec<PathBuf>> {
    Ok(vec![
        gflops_vs_n(s, dir)?,
        methods_at_largest_n(s, dir)?,
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
        let mut sizes: Vec<f64> = rows.iter().map(|r| r.n as f64).collect();
        sizes.sort_by(f64::total_cmp);
        sizes.dedup();
        let root = root
            .titled(
                &format!("GFLOP/s against n, {}", s.adapter),
                ("sans-serif", TITLE),
            )
            .map_err(plot_err("gflops-vs-n"))?;
        // Series per method (and precision), ordered by era, then as they come.
        let mut series: Vec<(String, usize, Vec<(f64, f64)>)> = vec![];
        for r in &rows {
            let key = if r.precision == "f32" {
                r.method.clone()
            } else {
                format!("{} {}", r.method, r.precision)
            };
            match series.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, _, pts)) => pts.push((r.n as f64, r.gflops)),
                None => series.push((key, group_of(&r.method), vec![(r.n as f64, r.gflops)])),
            }
        }
        series.sort_by_key(|(_, g, _)| ERA_ORDER.iter().position(|x| x == g));
        let styles = series_styles(&series.iter().map(|s| s.1).collect::<Vec<_>>());
        // The legend in a column right of the chart, one heading per era.
        let legend_w = series
            .iter()
            .map(|(k, _, _)| text::width(k, text::SMALL) as u32 + 50)
            .chain(
                ERA_NAMES
                    .iter()
                    .map(|n| text::width(n, text::SMALL) as u32 + 16),
            )
            .max()
            .unwrap_or(200)
            .min(W / 3);
        let (plot, legend) = root.split_horizontally(W - legend_w);
        let mut entries: Vec<(String, Option<Mark>)> = vec![];
        let mut last = usize::MAX;
        for ((name, g, _), &(c, k)) in series.iter().zip(&styles) {
            if *g != last {
                entries.push((ERA_NAMES[*g].to_string(), None));
                last = *g;
            }
            entries.push((name.clone(), Some(Mark::Marker(k, c))));
        }
        legend_column(&legend, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_right(20)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(
                // Ticks at the sizes measured.
                (nmin * 0.8..nmax * 1.25).log_scale().with_key_points(sizes),
                (gmin * 0.5..gmax * 2.0).log_scale(),
            )
            .map_err(plot_err("gflops-vs-n"))?;
        chart
            .configure_mesh()
            .x_desc("n (n×n · n×n)")
            .y_desc("GFLOP/s (log scale)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| short(*y))
            .label_style(("sans-serif", SMALL))
            .axis_desc_style(("sans-serif", LABEL))
            .draw()
            .map_err(plot_err("gflops-vs-n"))?;
        for ((_, _, pts), &(colour, kind)) in series.iter().zip(&styles) {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), colour.stroke_width(2)))
                .map_err(plot_err("gflops-vs-n"))?;
            markers!(chart, pts.iter().copied(), kind, colour).map_err(plot_err("gflops-vs-n"))?;
        }
        Ok(())
    })
}

/// Every method (and precision) at the sweep's largest n, a bar each on a log axis, coloured by
/// era; a method that did not run there says why, or the largest n it ran.
fn methods_at_largest_n(s: &Sweep, dir: &Path) -> Result<PathBuf> {
    let nmax = ran(s).map(|r| r.n).max().unwrap_or(0);
    let mut keys: Vec<(String, String)> = vec![];
    for r in &s.rows {
        let key = (r.method.clone(), r.precision.clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys.sort_by_key(|(m, _)| ERA_ORDER.iter().position(|&g| g == group_of(m)));
    let bars: Vec<Bar> = keys
        .iter()
        .map(|(method, precision)| {
            let label = if precision == "f32" {
                method.clone()
            } else {
                format!("{method} {precision}")
            };
            let at = s
                .rows
                .iter()
                .find(|r| &r.method == method && &r.precision == precision && r.n == nmax);
            let best = ran(s)
                .filter(|r| &r.method == method && &r.precision == precision)
                .map(|r| r.n)
                .max();
            let (value, text) = match at {
                Some(r) if r.skipped.is_none() && r.gflops.is_finite() && r.gflops > 0.0 => {
                    (Some(r.gflops), format!("{} GFLOP/s", short(r.gflops)))
                }
                Some(r) => (
                    None,
                    format!(
                        "not run at n = {nmax}: {}",
                        r.skipped.clone().unwrap_or_else(|| "no result".into())
                    )
                    .chars()
                    .take(90)
                    .collect(),
                ),
                None => (
                    None,
                    match best {
                        Some(b) => format!("not run at n = {nmax} (largest n run: {b})"),
                        None => format!("not run at n = {nmax}"),
                    },
                ),
            };
            Bar {
                label,
                value,
                text,
                group: group_of(method),
            }
        })
        .collect();
    let path = dir.join("methods-at-largest-n.png");
    bar_chart(
        &path,
        &format!(
            "Every method at n = {nmax}, {} (GFLOP/s, log scale)",
            s.adapter
        ),
        "GFLOP/s (log scale)",
        &bars,
        true,
        &ERA_NAMES,
    )?;
    Ok(path)
}

fn breakdown(s: &Sweep, dir: &Path) -> Result<PathBuf> {
    render(dir, "breakdown.png", |root| {
        let rows: Vec<&SweepRow> = largest_per_method(s)
            .into_iter()
            .filter(|r| Method::parse(&r.method).is_ok_and(|m| m.is_gpu()))
            .collect();
        let title = "Where the time goes at the largest n each method ran: pipelines, load, compute, copy, readback";
        let root = root
            .titled(title, ("sans-serif", TITLE))
            .map_err(plot_err("breakdown"))?;
        let parts: [(&str, RGBColor, fn(&SweepRow) -> f64); 5] = [
            ("pipeline setup", RGBColor(160, 160, 160), |r| r.setup_ms),
            ("texture or buffer load", RGBColor(90, 140, 200), |r| {
                r.upload_ms
            }),
            ("compute", RGBColor(220, 90, 60), |r| r.compute_median_ms),
            ("GPU copy", RGBColor(240, 190, 60), |r| r.copy_ms),
            ("readback", RGBColor(110, 180, 110), |r| r.readback_ms),
        ];
        let entries: Vec<(String, Option<Mark>)> = parts
            .iter()
            .map(|(name, c, _)| (name.to_string(), Some(Mark::Swatch(*c))))
            .collect();
        let (legend, body) = root.split_vertically(30);
        legend_rows(&legend, &entries)?;
        let labels: Vec<String> = rows
            .iter()
            .map(|r| format!("{} n = {}", r.method, r.n))
            .collect();
        let label_w = labels
            .iter()
            .map(|l| text::width(l, text::SMALL).ceil() as u32)
            .max()
            .unwrap_or(0)
            + 24;
        let mut chart = ChartBuilder::on(&body)
            .margin(14)
            .margin_right(24)
            .x_label_area_size(48)
            .y_label_area_size(label_w)
            .build_cartesian_2d(0f64..100f64, (0..rows.len().max(2) - 1).into_segmented())
            .map_err(plot_err("breakdown"))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(rows.len().max(1) + 1)
            .y_label_formatter(&|y| category_label(&labels, y))
            .label_style(("sans-serif", SMALL))
            .axis_desc_style(("sans-serif", LABEL))
            .x_desc("% of the method's total time")
            .draw()
            .map_err(plot_err("breakdown"))?;
        for (pi, (_, color, f)) in parts.iter().enumerate() {
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
            chart.draw_series(rects).map_err(plot_err("breakdown"))?;
        }
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
        &ERA_NAMES,
    )?;
    Ok(path)
}
