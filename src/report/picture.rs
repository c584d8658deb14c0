//! Pictures of matrices: a diverging colour map (blue for negative, white for zero, red for
//! positive) and side-by-side panels, written as PNG through a temporary file.

use crate::error::{Error, Result};
use crate::matrix::Matrix;
use image::{Rgb, RgbImage};
use std::path::Path;

/// Colour of `v` on a diverging map scaled so ±`scale` are full blue / full red.
pub fn diverging(v: f32, scale: f32) -> Rgb<u8> {
    if !v.is_finite() {
        return Rgb([255, 0, 255]); // magenta: NaN or infinity, never a valid result
    }
    let t = if scale > 0.0 {
        (v / scale).clamp(-1.0, 1.0)
    } else {
        0.0
    };
    let fade = |x: f32| (255.0 * (1.0 - x)).round() as u8;
    if t >= 0.0 {
        Rgb([255, fade(t * 0.85), fade(t)])
    } else {
        Rgb([fade(-t), fade(-t * 0.85), 255])
    }
}

/// Pixels per matrix cell so the larger side is about `target` pixels (at least 1).
pub fn cell_size(m: &Matrix, target: usize) -> usize {
    (target / m.rows.max(m.cols)).max(1)
}

/// Draw `m` into `img` at (`x0`, `y0`), `cell` pixels per element; matrices larger than
/// `max_px` on a side are sampled down to it.
pub fn draw_matrix(
    img: &mut RgbImage,
    m: &Matrix,
    x0: u32,
    y0: u32,
    cell: usize,
    max_px: usize,
    scale: f32,
) {
    let (w, h) = panel_size(m, cell, max_px);
    for py in 0..h {
        let i = py * m.rows / h;
        for px in 0..w {
            let j = px * m.cols / w;
            img.put_pixel(
                x0 + px as u32,
                y0 + py as u32,
                diverging(m.get(i, j), scale),
            );
        }
    }
}

/// Pixel size of a panel for `m`.
pub fn panel_size(m: &Matrix, cell: usize, max_px: usize) -> (usize, usize) {
    ((m.cols * cell).min(max_px), (m.rows * cell).min(max_px))
}

/// Panels side by side, each with its own symmetric colour scale, on a light grey background.
pub fn panels(mats: &[&Matrix], target: usize) -> RgbImage {
    let gap = 12usize;
    let cell = mats.iter().map(|m| cell_size(m, target)).min().unwrap_or(1);
    let sizes: Vec<(usize, usize)> = mats.iter().map(|m| panel_size(m, cell, target)).collect();
    let width = sizes.iter().map(|s| s.0).sum::<usize>() + gap * (mats.len() + 1);
    let height = sizes.iter().map(|s| s.1).max().unwrap_or(1) + 2 * gap;
    let mut img = RgbImage::from_pixel(width as u32, height as u32, Rgb([230, 230, 230]));
    let mut x = gap;
    for (m, (w, _)) in mats.iter().zip(&sizes) {
        draw_matrix(
            &mut img,
            m,
            x as u32,
            gap as u32,
            cell,
            target,
            robust_scale(m),
        );
        x += w + gap;
    }
    img
}

/// Save an image as PNG atomically.
pub fn save_png(path: &Path, img: &RgbImage) -> Result<()> {
    crate::io::write_atomic(path, |w| {
        let mut buf = std::io::Cursor::new(Vec::new());
        img.write_to(&mut buf, image::ImageFormat::Png)
            .map_err(|e| Error::format(path, format!("PNG encoding failed: {e}")))?;
        w.write_all(buf.get_ref()).map_err(|e| Error::io(path, e))
    })
}

/// A colour scale that keeps a few large elements from washing out the rest: the smaller of the
/// largest |value| and three times the root mean square.
pub fn robust_scale(m: &Matrix) -> f32 {
    let n = m.data.iter().filter(|v| v.is_finite()).count().max(1);
    let rms = (m
        .data
        .iter()
        .filter(|v| v.is_finite())
        .map(|v| (v * v) as f64)
        .sum::<f64>()
        / n as f64)
        .sqrt() as f32;
    m.max_abs().min(3.0 * rms)
}
