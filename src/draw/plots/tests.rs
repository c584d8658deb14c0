//! The unit tests of the charts: their text drawn and measured as the figures' text.

use super::*;
use image::{Rgb, RgbImage};

/// Draw `s` at (x, y), anchored top-left, through [`Backend`] as plotters draws a chart's
/// text, into a white `w × h` picture.
fn through_plotters(s: &str, (x, y): (i32, i32), (w, h): (u32, u32)) -> RgbImage {
    register_font();
    let mut buf = vec![255u8; (w * h * 3) as usize];
    {
        let root = Backend(BitMapBackend::with_buffer(&mut buf, (w, h))).into_drawing_area();
        root.draw(&Text::new(
            s.to_string(),
            (x, y),
            ("sans-serif", LABEL).into_font().color(&BLACK),
        ))
        .unwrap();
        root.present().unwrap();
    }
    RgbImage::from_raw(w, h, buf).unwrap()
}

#[test]
fn chart_text_is_the_figures_text() {
    // Side bearings and full stops are where plotters' own ab_glyph text goes wrong.
    let s = "copy, by GPU timestamps: 0.59 ms";
    let (w, h) = (360, 40);
    let chart = through_plotters(s, (6, 8), (w, h));
    let mut figure = RgbImage::from_pixel(w, h, Rgb([255, 255, 255]));
    text::left(&mut figure, 6.0, 8.0, s, text::LABEL, Rgb([0, 0, 0]));
    // The same pixels, up to the rounding of two blends (plotters' and the helper's).
    let mut inked = 0;
    for (a, b) in chart.pixels().zip(figure.pixels()) {
        for c in 0..3 {
            assert!(a.0[c].abs_diff(b.0[c]) <= 4, "{a:?} against {b:?}");
        }
        inked += usize::from(b.0[0] < 128);
    }
    assert!(inked > 100, "no text drawn");
}

#[test]
fn chart_text_measures_as_the_figures_text() {
    let mut buf = [0u8; 3];
    let b = Backend(BitMapBackend::with_buffer(&mut buf, (1, 1)));
    let style = TextStyle::from(("sans-serif", SMALL).into_font());
    let (w, h) = b.estimate_text_size("GFLOP/s (log scale)", &style).unwrap();
    assert_eq!(
        w,
        text::width("GFLOP/s (log scale)", text::SMALL).ceil() as u32
    );
    assert_eq!(h, text::height(text::SMALL).ceil() as u32);
}
