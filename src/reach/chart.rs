//! The bar chart of `reach --bench`: figure 4 (the three memory copies, per n×n matrix) beside
//! figure 5 (where the time of the whole run went), drawn with rectangles and a 3×5 bitmap font
//! built in here, so no system font is needed.

use super::BenchReport;
use image::{Rgb, RgbImage};

const BG: Rgb<u8> = Rgb([250, 250, 250]);
const INK: Rgb<u8> = Rgb([30, 30, 30]);
const GRID: Rgb<u8> = Rgb([215, 215, 215]);
const GRID_TEXT: Rgb<u8> = Rgb([110, 110, 110]);
const COPY_GPU: Rgb<u8> = Rgb([152, 223, 138]);
const LOAD: Rgb<u8> = Rgb([31, 119, 180]);
const COPY: Rgb<u8> = Rgb([44, 160, 44]);
const READ: Rgb<u8> = Rgb([255, 127, 14]);
const MUL: Rgb<u8> = Rgb([214, 39, 40]);
const CLAMP: Rgb<u8> = Rgb([148, 103, 189]);

/// Text pixels per font pixel.
const SCALE: u32 = 2;

/// Figures 4 and 5 of the L-M paper from a bench run, as one picture.
pub fn breakdown_chart(r: &BenchReport) -> RgbImage {
    let (w, h) = (960u32, 460u32);
    let mut img = RgbImage::from_pixel(w, h, BG);
    let title = format!(
        "RENDERMM REACH BENCH: N={} POWERS={} {} {}",
        r.n,
        r.powers,
        r.method.to_uppercase(),
        r.precision.to_uppercase()
    );
    text(&mut img, 20, 8, &title, INK);
    let adapter: String = r.adapter.chars().take(110).collect();
    text(&mut img, 20, 24, &adapter, GRID_TEXT);
    let b = &r.breakdown;
    let mut fig4 = vec![
        ("LOAD", r.load_per_matrix_ms, LOAD),
        ("COPY", r.copy_per_matrix_ms, COPY),
    ];
    if let Some(gpu) = r.copy_gpu_per_matrix_ms {
        fig4.push(("COPY GPU TS", gpu, COPY_GPU));
    }
    fig4.push(("READ BACK", r.readback_per_matrix_ms, READ));
    let mut fig5 = vec![
        ("LOAD", b.load_ms, LOAD),
        ("COPIES", b.copy_ms, COPY),
        ("READ BACK", b.readback_ms, READ),
        ("MULTIPLIES", b.multiply_ms, MUL),
    ];
    if b.clamp_ms > 0.0 {
        fig5.push(("CLAMP", b.clamp_ms, CLAMP));
    }
    panel(
        &mut img,
        20,
        50,
        420,
        390,
        "FIG 4: ONE NXN MATRIX, MS (WALL CLOCK)",
        &fig4,
    );
    panel(
        &mut img,
        500,
        50,
        440,
        390,
        &format!("FIG 5: WHOLE RUN, {} PRODUCTS, MS", b.products),
        &fig5,
    );
    img
}

/// One bar chart in the box (x0, y0, w, h): title on top, bars with their values above and
/// their names below, on a linear scale from 0 to the largest value.
fn panel(
    img: &mut RgbImage,
    x0: u32,
    y0: u32,
    w: u32,
    h: u32,
    title: &str,
    bars: &[(&str, f64, Rgb<u8>)],
) {
    text(img, x0, y0, title, INK);
    let top = y0 + 40;
    let base = y0 + h - 30;
    let max = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1e-9);
    for q in 0..=4 {
        let y = base - (base - top) * q / 4;
        rect(img, x0, y, w, 1, GRID);
    }
    rect(img, x0, base, w, 2, INK);
    let slot = w / bars.len().max(1) as u32;
    let bar_w = (slot * 3 / 5).max(4);
    for (i, &(name, value, colour)) in bars.iter().enumerate() {
        let x = x0 + i as u32 * slot + (slot - bar_w) / 2;
        let height = ((value.max(0.0) / max) * (base - top) as f64).round() as u32;
        let height = height.max(1);
        rect(img, x, base - height, bar_w, height, colour);
        let label = number(value);
        let lx = (x + bar_w / 2).saturating_sub(text_width(&label) / 2);
        text(img, lx, base - height - 14, &label, INK);
        let nx = (x + bar_w / 2).saturating_sub(text_width(name) / 2);
        text(img, nx.max(x0), base + 8, name, INK);
    }
}

/// A value with about three significant digits.
fn number(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

pub(super) fn rect(img: &mut RgbImage, x0: u32, y0: u32, w: u32, h: u32, c: Rgb<u8>) {
    for y in y0..(y0 + h).min(img.height()) {
        for x in x0..(x0 + w).min(img.width()) {
            img.put_pixel(x, y, c);
        }
    }
}

fn text_width(s: &str) -> u32 {
    s.chars().count() as u32 * 4 * SCALE
}

/// Draw `s` with its top-left corner at (x, y); characters the font lacks are left blank.
pub(super) fn text(img: &mut RgbImage, x: u32, y: u32, s: &str, c: Rgb<u8>) {
    for (i, ch) in s.chars().enumerate() {
        let rows = glyph(ch.to_ascii_uppercase());
        let gx = x + i as u32 * 4 * SCALE;
        for (r, bits) in rows.iter().enumerate() {
            for col in 0..3u32 {
                if bits & (0b100 >> col) != 0 {
                    rect(img, gx + col * SCALE, y + r as u32 * SCALE, SCALE, SCALE, c);
                }
            }
        }
    }
}

/// A 3×5 glyph, one row of three bits (left bit first) per entry.
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b001, 0b001, 0b001],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        'A' => [0b010, 0b101, 0b111, 0b101, 0b101],
        'B' => [0b110, 0b101, 0b110, 0b101, 0b110],
        'C' => [0b011, 0b100, 0b100, 0b100, 0b011],
        'D' => [0b110, 0b101, 0b101, 0b101, 0b110],
        'E' => [0b111, 0b100, 0b110, 0b100, 0b111],
        'F' => [0b111, 0b100, 0b110, 0b100, 0b100],
        'G' => [0b011, 0b100, 0b101, 0b101, 0b011],
        'H' => [0b101, 0b101, 0b111, 0b101, 0b101],
        'I' => [0b111, 0b010, 0b010, 0b010, 0b111],
        'J' => [0b001, 0b001, 0b001, 0b101, 0b010],
        'K' => [0b101, 0b101, 0b110, 0b101, 0b101],
        'L' => [0b100, 0b100, 0b100, 0b100, 0b111],
        'M' => [0b101, 0b111, 0b111, 0b101, 0b101],
        'N' => [0b110, 0b101, 0b101, 0b101, 0b101],
        'O' => [0b010, 0b101, 0b101, 0b101, 0b010],
        'P' => [0b110, 0b101, 0b110, 0b100, 0b100],
        'Q' => [0b010, 0b101, 0b101, 0b110, 0b011],
        'R' => [0b110, 0b101, 0b110, 0b101, 0b101],
        'S' => [0b011, 0b100, 0b010, 0b001, 0b110],
        'T' => [0b111, 0b010, 0b010, 0b010, 0b010],
        'U' => [0b101, 0b101, 0b101, 0b101, 0b111],
        'V' => [0b101, 0b101, 0b101, 0b101, 0b010],
        'W' => [0b101, 0b101, 0b111, 0b111, 0b101],
        'X' => [0b101, 0b101, 0b010, 0b101, 0b101],
        'Y' => [0b101, 0b101, 0b010, 0b010, 0b010],
        'Z' => [0b111, 0b001, 0b010, 0b100, 0b111],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        ',' => [0b000, 0b000, 0b000, 0b010, 0b010],
        ':' => [0b000, 0b010, 0b000, 0b010, 0b000],
        '-' => [0b000, 0b000, 0b111, 0b000, 0b000],
        '=' => [0b000, 0b111, 0b000, 0b111, 0b000],
        '/' => [0b001, 0b001, 0b010, 0b100, 0b100],
        '(' => [0b010, 0b100, 0b100, 0b100, 0b010],
        ')' => [0b010, 0b001, 0b001, 0b001, 0b010],
        '%' => [0b101, 0b001, 0b010, 0b100, 0b101],
        '+' => [0b000, 0b010, 0b111, 0b010, 0b000],
        '^' => [0b010, 0b101, 0b000, 0b000, 0b000],
        _ => [0; 5],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_of_the_chart_labels_has_a_glyph() {
        for c in "RENDERMM REACH BENCH: N=1024 POWERS=20 LM U8 FIG 4: ONE NXN MATRIX, MS FIG 5: WHOLE RUN, 20 PRODUCTS, MS LOAD COPY COPIES READ BACK MULTIPLIES CLAMP 0.123456789 HALL-BLOCKED HALL-PACKED F16 F32 M = I + A M^2: WITHIN 2 STEPS CLOSURE: 6 COMPONENTS".chars() {
            assert!(c == ' ' || glyph(c) != [0; 5], "no glyph for {c:?}");
        }
    }
}
