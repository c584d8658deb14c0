//! Hall, Carr & Hart (2003) §4, equations 7, 8 and 10: the product by 2×2 blocks, the four
//! quadrants of each matrix packed into the r, g, b, a channels of one texture, and the two
//! swizzled 4-wide multiply-adds that compute all four quadrants of Z at once.

use super::diagrams::*;
use super::*;

/// The channels in texel order, and the quadrant of X and of Y each holds (eq. 8).
const CHANNELS: [&str; 4] = ["r", "g", "b", "a"];
const X_QUADRANTS: [&str; 4] = ["A", "B", "C", "D"];
const Y_QUADRANTS: [&str; 4] = ["E", "F", "G", "H"];

/// Channel `c`'s colour (r red, g green, b blue, a grey: hall-packing's), at full strength.
fn channel_dark(c: usize) -> Rgb<u8> {
    [
        Rgb([214, 39, 40]),
        Rgb([44, 160, 44]),
        Rgb([31, 119, 180]),
        Rgb([110, 110, 110]),
    ][c]
}

/// Channel `c`'s colour, light enough for dark text on it.
fn channel_light(c: usize) -> Rgb<u8> {
    picture::blend(Rgb([255, 255, 255]), channel_dark(c), 0.32)
}

/// The quadrants of Z = X·Y in channel order (eq. 7): each the sum of two products, a quadrant
/// of X times one of Y.
pub const HALL_EQ10: [[(&str, &str); 2]; 4] = [
    [("A", "E"), ("B", "G")],
    [("A", "F"), ("B", "H")],
    [("C", "E"), ("D", "G")],
    [("C", "F"), ("D", "H")],
];

/// The swizzles of eq. 10: the channels of X and of Y read for each output channel, first
/// multiply-add then second: X.rrbb·Y.rgrg + X.ggaa·Y.baba.
pub const HALL_SWIZZLES: [(&str, &str); 2] = [("rrbb", "rgrg"), ("ggaa", "baba")];

/// `main` with `sub` as a subscript, centred on `cx`, the main text's top at `y`.
fn subscripted(img: &mut RgbImage, cx: f32, y: f32, main: &str, sub: &str, px: f32, c: Rgb<u8>) {
    let sp = (px * 0.72).max(11.0);
    let w = text::width(main, px) + 1.0 + text::width(sub, sp);
    let x = cx - w / 2.0;
    text::left(img, x, y, main, px, c);
    text::left(
        img,
        x + text::width(main, px) + 1.0,
        y + px * 0.55,
        sub,
        sp,
        c,
    );
}

/// Pieces of an equation, each a main text with its subscript (maybe empty), left to right from
/// (`x`, `y`); returns the x after the last.
fn equation(
    img: &mut RgbImage,
    (x, y): (f32, f32),
    pieces: &[(&str, &str)],
    px: f32,
    c: Rgb<u8>,
) -> f32 {
    let sp = (px * 0.72).max(11.0);
    let mut x = x;
    for (main, sub) in pieces {
        text::left(img, x, y, main, px, c);
        x += text::width(main, px) + 1.0;
        if !sub.is_empty() {
            text::left(img, x, y + px * 0.55, sub, sp, c);
            x += text::width(sub, sp) + 2.0;
        }
    }
    x
}

/// Width of [`equation`]'s pieces.
fn equation_width(pieces: &[(&str, &str)], px: f32) -> f32 {
    let sp = (px * 0.72).max(11.0);
    pieces
        .iter()
        .map(|(m, s)| {
            text::width(m, px)
                + 1.0
                + if s.is_empty() {
                    0.0
                } else {
                    text::width(s, sp) + 2.0
                }
        })
        .sum()
}

/// Hall-Carr-Hart eq. 10: eq. 7's block product with eq. 8's channels, the two swizzled 4-wide
/// multiply-adds, and one step of the fragment shader's loop written out per channel.
pub fn hall_eq10(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1240, 720, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Hall, Carr & Hart §4, eq. 10: Z = X·Y by 2×2 blocks, the four quadrants in one texel's r, g, b, a",
        text::TITLE,
        INK,
    );
    block_product(&mut img);
    swizzle_table(&mut img);
    one_step(&mut img);
    text::lines(
        &mut img,
        30.0,
        664.0,
        &[
            "X is m×k, Y is k×n, Z = X·Y (the paper's names: §4 multiplies X by Y; A … H are their quadrants, not the matrices of the other chapters). Subscript = colour channel.",
            "Colour of a box = the channel its number is read from (r red, g green, b blue, a grey). Indices count from 0.",
        ],
        text::SMALL,
        MUTED,
    );
    picture::save_png(out, &img)
}

/// A 2×2 block matrix at (`x`, `y`), quadrants `w`×`h`, quadrant c holding `labels[c]` in
/// channel c's colour with the channel as a subscript.
fn block_matrix(img: &mut RgbImage, (x, y, w, h): (i32, i32, i32, i32), labels: &[&str; 4]) {
    for (c, label) in labels.iter().enumerate() {
        let (qx, qy) = (x + (c as i32 % 2) * w, y + (c as i32 / 2) * h);
        boxed(img, (qx, qy, w, h), channel_light(c), "");
        subscripted(
            img,
            (qx + w / 2) as f32,
            (qy + h / 2) as f32 - 11.0,
            label,
            CHANNELS[c],
            text::LABEL + 2.0,
            INK,
        );
    }
    outline(
        img,
        x - 1,
        y - 1,
        (2 * w + 3) as u32,
        (2 * h + 3) as u32,
        2,
        RULE,
    );
}

/// Part A: eq. 7 with eq. 8's channels, and one texel of X.
fn block_product(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        58.0,
        "A. Eq. 7: the product by quadrants, each quadrant stored in one channel (eq. 8)",
        text::LABEL,
        INK,
    );
    let (y, q) = (124i32, 62i32);
    let xs = [70i32, 260, 450];
    for (x, name, sub) in [
        (xs[0], "X", "m × k: quadrants A B / C D"),
        (xs[1], "Y", "k × n: quadrants E F / G H"),
        (
            xs[2],
            "Z = X·Y",
            "m × n: each quadrant a sum of two products",
        ),
    ] {
        text::left(img, x as f32, (y - 40) as f32, name, text::LABEL, INK);
        text::left(
            img,
            x as f32 + text::width(name, text::LABEL) + 10.0,
            (y - 38) as f32,
            sub,
            text::SMALL,
            MUTED,
        );
    }
    block_matrix(img, (xs[0], y, q, q), &X_QUADRANTS);
    block_matrix(img, (xs[1], y, q, q), &Y_QUADRANTS);
    let sums: Vec<String> = HALL_EQ10
        .iter()
        .map(|[(a, b), (c, d)]| format!("({a}{b} + {c}{d})"))
        .collect();
    let z = [&*sums[0], &*sums[1], &*sums[2], &*sums[3]];
    block_matrix(img, (xs[2], y, 2 * q, q), &z);
    for (x, sym) in [(xs[0] + 2 * q + 30, "·"), (xs[1] + 2 * q + 30, "=")] {
        text_at(img, (x as f32, (y + q) as f32), sym, 30.0, INK);
    }
    texel_key(img, (860, 96));
}

/// One texel of X and of Y as eq. 8 packs them: four numbers, r g / b a.
fn texel_key(img: &mut RgbImage, (x, y): (i32, i32)) {
    text::left(
        img,
        x as f32,
        y as f32,
        "Eq. 8: one texel holds one element of each quadrant",
        text::SMALL,
        INK,
    );
    let c = 56i32;
    for (t, (name, idx, quads)) in [
        ("texel (i, p) of X", "(i, p)", X_QUADRANTS),
        ("texel (p, j) of Y", "(p, j)", Y_QUADRANTS),
    ]
    .iter()
    .enumerate()
    {
        let tx = x + t as i32 * (2 * c + 50);
        let ty = y + 48;
        text::left(img, tx as f32, (ty - 22) as f32, name, text::SMALL, MUTED);
        for ch in 0..4 {
            let (cx, cy) = (tx + (ch as i32 % 2) * c, ty + (ch as i32 / 2) * c);
            boxed(img, (cx, cy, c, c), channel_light(ch), "");
            text::centre(
                img,
                (cx + c / 2) as f32,
                (cy + 10) as f32,
                &format!("{}{idx}", quads[ch]),
                text::SMALL,
                INK,
            );
            text::centre(
                img,
                (cx + c / 2) as f32,
                (cy + 32) as f32,
                CHANNELS[ch],
                text::LABEL,
                channel_dark(ch),
            );
        }
        outline(
            img,
            tx - 1,
            ty - 1,
            (2 * c + 3) as u32,
            (2 * c + 3) as u32,
            2,
            RULE,
        );
    }
}

/// Part B: eq. 10 as two 4-wide multiply-adds, one column per output channel.
fn swizzle_table(img: &mut RgbImage) {
    let top = 300i32;
    text::left(
        img,
        30.0,
        top as f32,
        "B. Eq. 10: swizzle, then two 4-wide multiply-adds give all four quadrants",
        text::LABEL,
        INK,
    );
    equation(
        img,
        (150.0, (top + 28) as f32),
        &[
            ("X", "rgba"),
            ("Y", "rgba"),
            ("  =  X", "rrbb"),
            ("Y", "rgrg"),
            ("  +  X", "ggaa"),
            ("Y", "baba"),
            ("  (eq. 10)", ""),
        ],
        text::LABEL,
        INK,
    );
    let (x0, y0, cw, rh) = (150i32, top + 82, 104i32, 34i32);
    for (c, ch) in CHANNELS.iter().enumerate() {
        text::centre(
            img,
            (x0 + c as i32 * cw + cw / 2) as f32,
            (y0 - 24) as f32,
            &format!("channel {ch}"),
            text::SMALL,
            channel_dark(c),
        );
    }
    // (row label, per output channel: (text, subscript, the channel it is read from)).
    let pick = |sw: &str, names: &[&str; 4], c: usize| -> (String, String, Option<usize>) {
        let ch = "rgba".find(sw.as_bytes()[c] as char).unwrap_or(0);
        (names[ch].to_string(), CHANNELS[ch].to_string(), Some(ch))
    };
    type Row<'a> = (
        Vec<(&'a str, &'a str)>,
        Vec<(String, String, Option<usize>)>,
    );
    let mut rows: Vec<Row> = vec![];
    for (k, (sx, sy)) in HALL_SWIZZLES.iter().enumerate() {
        rows.push((
            vec![(if k == 0 { "X" } else { "+  X" }, *sx)],
            (0..4).map(|c| pick(sx, &X_QUADRANTS, c)).collect(),
        ));
        rows.push((
            vec![("·  Y", *sy)],
            (0..4).map(|c| pick(sy, &Y_QUADRANTS, c)).collect(),
        ));
        rows.push((
            vec![("=", "")],
            (0..4)
                .map(|c| {
                    let (a, b) = HALL_EQ10[c][k];
                    (format!("{a}{b}"), CHANNELS[c].to_string(), None)
                })
                .collect(),
        ));
    }
    rows.push((
        vec![("Z", "rgba"), (" =", "")],
        (0..4)
            .map(|c| {
                let [(a, b), (p, q)] = HALL_EQ10[c];
                (
                    format!("({a}{b} + {p}{q})"),
                    CHANNELS[c].to_string(),
                    Some(c),
                )
            })
            .collect(),
    ));
    let mut y = y0;
    for (r, (label, cells)) in rows.iter().enumerate() {
        if r == 3 || r == 6 {
            fill(img, x0 - 110, y - 5, (4 * cw + 110) as u32, 1, GRID);
            y += 6;
        }
        let lx = (x0 - 12) as f32 - equation_width(label, text::LABEL);
        equation(img, (lx, (y + 4) as f32), label, text::LABEL, INK);
        for (c, (main, sub, from)) in cells.iter().enumerate() {
            let x = x0 + c as i32 * cw;
            let bg = from.map_or(Rgb([250, 250, 250]), channel_light);
            boxed(img, (x + 3, y, cw - 6, rh - 6), bg, "");
            subscripted(
                img,
                (x + cw / 2) as f32,
                (y + 4) as f32,
                main,
                sub,
                text::LABEL,
                INK,
            );
        }
        y += rh;
    }
}

/// Part C: one step p of the loop in fragment (i, j), written out per channel.
fn one_step(img: &mut RgbImage) {
    let (x, top) = (690.0f32, 300.0f32);
    text::left(
        img,
        x,
        top,
        "C. One step p in fragment (i, j): 2 lookups, 2 multiply-adds",
        text::LABEL,
        INK,
    );
    let mut y = top + 30.0;
    y = text::lines(
        img,
        x,
        y,
        &[
            "R1 = lookup(i, p, X) = (A(i,p), B(i,p), C(i,p), D(i,p))",
            "R2 = lookup(p, j, Y) = (E(p,j), F(p,j), G(p,j), H(p,j))",
            "R3 = R1.rrbb · R2.rgrg + R3",
            "R3 = R1.ggaa · R2.baba + R3",
        ],
        text::SMALL,
        INK,
    );
    y += 12.0;
    text::left(
        img,
        x,
        y,
        "so each channel of Z's texel (i, j) gains two products:",
        text::SMALL,
        INK,
    );
    y += 26.0;
    for (c, [(a, e), (b, g)]) in HALL_EQ10.iter().enumerate() {
        boxed(img, (x as i32, y as i32, 22, 22), channel_light(c), "");
        text_at(
            img,
            (x + 11.0, y + 11.0),
            CHANNELS[c],
            text::LABEL,
            channel_dark(c),
        );
        let line = format!("+= {a}(i,p)·{e}(p,j) + {b}(i,p)·{g}(p,j)");
        text::left(img, x + 32.0, y + 2.0, &line, text::LABEL, INK);
        y += 32.0;
    }
    y += 6.0;
    text::lines(
        img,
        x,
        y,
        &[
            "Two texels bring 8 numbers for 8 multiply-adds, two 4-wide",
            "instructions (§4's pseudo-code (11) names this index m).",
            "rendermm: shaders/hall_packed.wgsl,",
            "r3 = r1.rrbb * r2.rgrg + r3;  r3 = r1.ggaa * r2.baba + r3;",
        ],
        text::SMALL,
        MUTED,
    );
}
