//! The demos' labels: the text style of every rendermm picture ([`crate::report::text`], the
//! bundled DejaVu Sans through `ab_glyph`, anti-aliased, mixed case), rasterized on the CPU into
//! an 8-bit coverage mask that the renderer blends over the frame.

use crate::report::text;

/// Pixel size of the text at a layout's text scale (1 in small frames, 2 from 900×420 up): the
/// figures' small print, and a little larger than their panel titles in large frames.
pub fn px(scale: u32) -> f32 {
    if scale >= 2 {
        text::LABEL + 3.0
    } else {
        text::SMALL
    }
}

/// Distance in pixels between two lines of text at `scale`.
pub fn line(scale: u32) -> u32 {
    text::line(px(scale)) as u32
}

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: u32) -> u32 {
    text::width(text, px(scale)).ceil() as u32
}

/// An 8-bit coverage mask (255 = ink) the size of a frame.
pub struct Mask {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

impl Mask {
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            data: vec![0; (width * height) as usize],
        }
    }

    /// Draw `text` at `scale` with the top-left corner of its line box at (`x`, `y`); what falls
    /// outside the mask is clipped.
    pub fn text(&mut self, x: i32, y: i32, text: &str, scale: u32) {
        let (w, h) = (self.width as i32, self.height as i32);
        text::raster(text, px(scale), x as f32, y as f32, |px, py, cov| {
            if px >= 0 && py >= 0 && px < w && py < h {
                let i = (py * w + px) as usize;
                let v = (cov.clamp(0.0, 1.0) * 255.0).round() as u8;
                self.data[i] = self.data[i].max(v);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_drawn_antialiased_inside_their_measured_width() {
        let t = "Slice p = 3 of 8: A[i, p] · B[p, j]";
        let mut m = Mask::new(400, 40);
        m.text(5, 5, t, 1);
        let w = text_width(t, 1) as usize;
        let inked: Vec<usize> = (0..m.data.len())
            .filter(|&i| m.data[i] > 0)
            .map(|i| i % 400)
            .collect();
        assert!(!inked.is_empty());
        assert!(*inked.iter().max().unwrap() <= 5 + w + 1);
        // Anti-aliased: partial coverage at glyph edges, not only 0 and 255.
        assert!(m.data.iter().any(|&v| v > 0 && v < 255));
        assert!(text_width("pass", 2) > text_width("pass", 1));
    }
}
