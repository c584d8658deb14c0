//! Figures the program regenerates for the docs, each made by the real methods on the current
//! adapter: `rendermm figure NAME --out FILE.png`, or every one with `rendermm figures --out DIR`.

use crate::error::Result;
use crate::gpu::GpuContext;
use crate::matrix::Matrix;
use crate::methods::{self, Method, Options};
use crate::picture;
use crate::precision::Precision;
use image::{Rgb, RgbImage};
use std::path::Path;

/// A figure: its name, what it shows, and how to draw it into a PNG file.
pub struct Figure {
    pub name: &'static str,
    pub about: &'static str,
    pub draw: fn(&GpuContext, &Path) -> Result<()>,
}

/// Every figure, in the order the docs use them.
pub const ALL: &[Figure] = &[Figure {
    name: "lm-fig2",
    about: "L-M figure 2 / Hall figure 2: A, B (4x4, 0/1), slice 3 (column 3 of A x row 3 of B), and the saturated u8 result",
    draw: lm_fig2,
}, Figure {
    name: "hall-packing",
    about: "Hall-Carr-Hart eq. 8: a 7x9 matrix padded to 8x10, quadrants A B C D, and the 4x5 RGBA texture the GPU holds (r g / b a per texel)",
    draw: hall_packing,
}, Figure {
    name: "reach-example",
    about: "L-M §5 sample application on assets/graph-example.txt: M = I + A, M^2 (within 2 steps) and the closure (6 components: a path, a cycle, K5, a star, two isolated nodes), white = reachable",
    draw: reach_example,
}];

/// L-M §5's sample application on the example graph (see [`crate::reach::example_figure`]).
pub fn reach_example(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &crate::reach::example_figure(ctx)?)
}

/// Hall–Carr–Hart eq. (8), drawn from a real packed texture (see
/// [`methods::hall_packed::packing_figure`]).
pub fn hall_packing(ctx: &GpuContext, out: &Path) -> Result<()> {
    picture::save_png(out, &methods::hall_packed::packing_figure(ctx)?)
}

/// Look a figure up by name.
pub fn find(name: &str) -> Result<&'static Figure> {
    ALL.iter().find(|f| f.name == name).ok_or_else(|| {
        let names: Vec<&str> = ALL.iter().map(|f| f.name).collect();
        crate::Error::Invalid(format!("unknown figure '{name}'; known: {}", names.join(", ")))
    })
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
    let slice = methods::multiply(Some(ctx), Method::Lm, &col, &row, &mut u8_opts())?.c;
    let c = methods::multiply(Some(ctx), Method::Lm, &a, &b, &mut u8_opts())?.c;
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
                        img.put_pixel(x0 + j as u32 * cell + dx, gap + i as u32 * cell + dy, Rgb([g, g, g]));
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
