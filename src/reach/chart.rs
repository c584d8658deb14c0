//! The bar chart of `reach --bench` and of `rendermm figure reach-bench`: L-M figure 4 (the three
//! memory movements of one n×n matrix) beside figure 5 (where the time of the whole run went),
//! drawn by [`crate::draw::plots`] in the text style of every rendermm picture (the bundled
//! DejaVu Sans through `ab_glyph`, mixed case), with a title, the adapter, a legend and axes in
//! milliseconds.

use super::{BenchReport, Transfer};
use crate::draw::plots::{self, NamedBar};
use crate::error::Result;
use plotters::style::RGBColor;
use std::path::Path;

const LOAD: RGBColor = RGBColor(31, 119, 180);
const COPY: RGBColor = RGBColor(44, 160, 44);
const COPY_GPU: RGBColor = RGBColor(152, 223, 138);
const READ: RGBColor = RGBColor(255, 127, 14);
const MUL: RGBColor = RGBColor(214, 39, 40);
const CLAMP: RGBColor = RGBColor(148, 103, 189);

/// Figures 4 and 5 of the L-M paper from a bench run, as one PNG at `path`.
pub fn breakdown_chart(r: &BenchReport, path: &Path) -> Result<()> {
    let via_host = r.transfer == Transfer::HostRoundTrip;
    let (copy_bar, copies_bar, copy_legend) = if via_host {
        (
            "round trip via the host",
            "round trips",
            "round trip: the framebuffer read back and uploaded again (--via-host)",
        )
    } else {
        (
            "copy, framebuffer → texture",
            "copies",
            "copy: framebuffer → texture inside the GPU",
        )
    };
    let mut fig4: Vec<NamedBar> = vec![
        ("texture load", r.load_per_matrix_ms, LOAD),
        (copy_bar, r.copy_per_matrix_ms, COPY),
    ];
    if let Some(gpu) = r.copy_gpu_per_matrix_ms {
        fig4.push(("copy, by GPU timestamps", gpu, COPY_GPU));
    }
    fig4.push(("readback", r.readback_per_matrix_ms, READ));
    let b = &r.breakdown;
    let mut fig5: Vec<NamedBar> = vec![
        ("texture load", b.load_ms, LOAD),
        (copies_bar, b.copy_ms, COPY),
        ("readback", b.readback_ms, READ),
        ("multiplies", b.multiply_ms, MUL),
    ];
    if b.clamp_ms > 0.0 {
        fig5.push(("clamps", b.clamp_ms, CLAMP));
    }
    let mut legend: Vec<(&str, RGBColor)> = vec![
        ("texture load: M uploaded into its texture", LOAD),
        (copy_legend, COPY),
    ];
    if r.copy_gpu_per_matrix_ms.is_some() {
        legend.push(("the same copy timed by GPU timestamps", COPY_GPU));
    }
    legend.push(("readback: the last product to the host", READ));
    legend.push(("multiplies: the render passes of every product", MUL));
    if b.clamp_ms > 0.0 {
        legend.push(("clamps: min(F, 1) after each product (f16, f32)", CLAMP));
    }
    let title = format!(
        "L-M figures 4-5: {} {}, n = {}, {} products chained {}",
        r.method,
        r.precision,
        r.n,
        b.products,
        if via_host {
            "through the host"
        } else {
            "on the GPU"
        }
    );
    let fig4_axis = if r.copy_gpu_per_matrix_ms.is_some() {
        "milliseconds per matrix (wall clock; one bar by GPU timestamps)"
    } else {
        "milliseconds per matrix (wall clock)"
    };
    let fig5_title = format!(
        "Figure 5: where the whole run's time went, {} products",
        b.products
    );
    plots::two_bar_panels(
        path,
        &title,
        &r.adapter,
        &legend,
        [
            ("Figure 4: one n×n matrix moved", fig4_axis, &fig4),
            (
                &fig5_title,
                "milliseconds over the whole run (wall clock)",
                &fig5,
            ),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reach::Breakdown;

    fn report(transfer: Transfer, clamp_ms: f64, gpu: Option<f64>) -> BenchReport {
        BenchReport {
            n: 256,
            powers: 8,
            method: "lm".into(),
            precision: "u8".into(),
            adapter: "llvmpipe (LLVM 15.0.6, 256 bits) (Vulkan, llvmpipe Mesa 22.3.6)".into(),
            transfer,
            seed: 1,
            breakdown: Breakdown {
                load_ms: 0.5,
                multiply_ms: 800.0,
                clamp_ms,
                copy_ms: 2.1,
                copy_gpu_ms: gpu.map(|g| 7.0 * g),
                readback_ms: 0.25,
                setup_ms: 7.0,
                products: 8,
                copies: 7,
            },
            load_per_matrix_ms: 0.5,
            copy_per_matrix_ms: 0.3,
            copy_gpu_per_matrix_ms: gpu,
            readback_per_matrix_ms: 0.25,
            multiply_per_product_ms: 100.0,
            gbops: 0.3,
            multiply_share: 0.99,
            notes: vec![],
        }
    }

    #[test]
    fn the_chart_is_drawn_for_every_kind_of_run() {
        let dir = std::env::temp_dir().join(format!("rendermm-reach-chart-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (i, r) in [
            report(Transfer::GpuCopy, 0.0, Some(0.1)),
            report(Transfer::GpuCopy, 0.5, None),
            report(Transfer::HostRoundTrip, 0.0, None),
        ]
        .iter()
        .enumerate()
        {
            let path = dir.join(format!("chart-{i}.png"));
            breakdown_chart(r, &path).unwrap();
            let img = image::open(&path).unwrap().to_rgb8();
            assert_eq!(img.width(), 1200);
            assert!(img.height() >= 400, "{}", img.height());
            // The bars' colours are there: the multiplies' red, the load's blue.
            for c in [MUL, LOAD] {
                assert!(
                    img.pixels().any(|p| p.0 == [c.0, c.1, c.2]),
                    "no {c:?} in chart {i}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
