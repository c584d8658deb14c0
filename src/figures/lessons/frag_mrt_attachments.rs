//! frag-mrt's colour attachments and the quad that shares its lookups.

use super::diagrams::*;
use super::*;

/// frag-mrt's layout at its default 4×8 block: one fragment's 32 sums spread over 8 RGBA32F
/// colour attachments, and a 2×2 quad of fragments sharing its texture lookups.
pub fn frag_mrt_attachments(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1180, 950, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "frag-mrt: a 4×8 block of C per fragment, in 8 colour attachments; a 2×2 quad shares its lookups",
        text::TITLE,
        INK,
    );
    mrt_block(&mut img);
    mrt_attachments(&mut img);
    mrt_quad(&mut img);
    picture::save_png(out, &img)
}

/// Attachment `t`'s colour of 8.
fn att(t: usize) -> Rgb<u8> {
    hsv(t as f32 * 40.0, 0.45, 0.97)
}

/// Part 1: the 4×8 block one fragment computes, each vec4 coloured by its attachment.
fn mrt_block(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        58.0,
        "1. Fragment (J, I) computes C's rows 4I…4I+3, columns 8J…8J+7: 8 vec4 sums in registers",
        text::LABEL,
        INK,
    );
    let (cx, cy, cell) = (60i32, 130i32, 44i32);
    text::centre(
        img,
        (cx + 4 * cell) as f32,
        (cy - 30) as f32,
        "columns 8J + 0 … 8J + 7",
        text::SMALL,
        MUTED,
    );
    grid(img, (cx, cy), (4, 8, cell), |r, c| {
        let t = r * 2 + c / 4;
        Some((att(t), format!("t{t}")))
    });
    for r in 0..4 {
        text::draw(
            img,
            (cx - 8) as f32,
            (cy + r * cell + 14) as f32,
            &format!("4I+{r}"),
            text::SMALL,
            MUTED,
            text::Align::Right,
        );
    }
    text::lines(
        img,
        cx as f32,
        (cy + 4 * cell + 12) as f32,
        &[
            "t = r·2 + j: row r of the block, columns 4j…4j+3,",
            "written to colour attachment t as one RGBA texel.",
            "8 attachments × 16 bytes = the 128 bytes a fragment",
            "may write (max_color_attachment_bytes_per_sample).",
        ],
        text::SMALL,
        INK,
    );
}

/// The 8 attachments, each with the texel fragment (1, 2) writes.
fn mrt_attachments(img: &mut RgbImage) {
    let (ax, ay, tc) = (560i32, 130i32, 18i32);
    text::left(
        img,
        ax as f32,
        (ay - 42) as f32,
        "The 8 attachments, each ⌈m/4⌉ × ⌈n/8⌉ RGBA32F texels (here m = 16, n = 32);",
        text::SMALL,
        INK,
    );
    text::left(
        img,
        ax as f32,
        (ay - 24) as f32,
        "fragment (J, I) = (1, 2) writes texel (x = 1, y = 2) of each:",
        text::SMALL,
        INK,
    );
    for t in 0..8 {
        let (col, row) = (t % 2, t / 2);
        let x = ax + col as i32 * 290;
        let y = ay + row as i32 * 90;
        grid(img, (x, y), (4, 4, tc), |r, c| {
            (r == 2 && c == 1).then(|| (att(t), String::new()))
        });
        text::left(
            img,
            (x + 4 * tc + 12) as f32,
            (y + 8) as f32,
            &format!("attachment {t}"),
            text::SMALL,
            INK,
        );
        text::left(
            img,
            (x + 4 * tc + 12) as f32,
            (y + 28) as f32,
            &format!("row {}, columns {}…{}", row, 4 * col, 4 * col + 3),
            text::SMALL,
            MUTED,
        );
    }
}

/// Part 2: the quad, its fragments, the swaps between them and the arithmetic.
fn mrt_quad(img: &mut RgbImage) {
    let y3 = 520i32;
    text::left(
        img,
        30.0,
        y3 as f32,
        "2. A 2×2 quad shares its lookups: fragment (J, I) fetches at steps p + s, s = (I xor J) & 1, and swaps for the rest",
        text::LABEL,
        INK,
    );
    let (qx, qy, qw, qh, gap) = (120i32, y3 + 50, 300i32, 120i32, 110i32);
    quad_fragments(img, (qx, qy, qw, qh, gap));
    let red = Rgb([214, 39, 40]);
    let blue = Rgb([31, 119, 180]);
    for i in 0..2i32 {
        let y = (qy + i * (qh + gap) + qh / 2) as f32;
        let (x0, x1) = ((qx + qw + 8) as f32, (qx + qw + gap - 8) as f32);
        picture::arrow(img, (x0 + 20.0, y), (x1, y), 3.0, red);
        picture::arrow(img, (x1 - 20.0, y + 10.0), (x0, y + 10.0), 3.0, red);
        text::centre(
            img,
            (x0 + x1) / 2.0,
            y - 26.0,
            "quadSwapX: A",
            text::SMALL,
            red,
        );
    }
    for j in 0..2i32 {
        let x = (qx + j * (qw + gap) + qw / 2) as f32;
        let (y0, y1) = ((qy + qh + 8) as f32, (qy + qh + gap - 8) as f32);
        picture::arrow(img, (x - 10.0, y0 + 20.0), (x - 10.0, y1), 3.0, blue);
        picture::arrow(img, (x + 10.0, y1 - 20.0), (x + 10.0, y0), 3.0, blue);
        text::left(
            img,
            x + 22.0,
            (y0 + y1) / 2.0 - 8.0,
            "quadSwapY: B",
            text::SMALL,
            blue,
        );
    }
    text::lines(
        img,
        (qx + 2 * qw + gap + 40) as f32,
        (qy + 10) as f32,
        &[
            "Per step of k a fragment needs",
            "1 texel of A (4 rows of column p)",
            "and 2 of B (8 columns of row p)",
            "for 32 multiply-adds:",
            "32 / 3 = 10.7 FMAs per texel.",
            "",
            "Row neighbours share A's texels",
            "(same rows), column neighbours B's",
            "(same columns): each fetches",
            "half of them and swaps for the rest,",
            "so 21.3 FMAs per texel fetched.",
            "",
            "(The pinned H100 run used the tuned",
            "8×4 block: the same 8 attachments,",
            "2 texels of A and 1 of B a step.)",
        ],
        text::SMALL,
        INK,
    );
}

/// The quad's four fragments in the box `(qx, qy)`, each `qw`×`qh`, `gap` apart: which steps each
/// fetches and which it gets from its neighbours.
fn quad_fragments(img: &mut RgbImage, (qx, qy, qw, qh, gap): (i32, i32, i32, i32, i32)) {
    for i in 0..2i32 {
        for j in 0..2i32 {
            let s = (i ^ j) & 1;
            let x = qx + j * (qw + gap);
            let y = qy + i * (qh + gap);
            boxed(
                img,
                (x, y, qw, qh),
                if s == 0 {
                    Rgb([230, 240, 250])
                } else {
                    Rgb([250, 236, 222])
                },
                "",
            );
            let lines = [
                format!("fragment (J+{j}, I+{i}), s = {s}"),
                format!("fetches A and B at step p + {s}"),
                format!("gets A at p + {} from its row neighbour", 1 - s),
                format!("gets B at p + {} from its column neighbour", 1 - s),
            ];
            let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
            text::lines(
                img,
                (x + 12) as f32,
                (y + 14) as f32,
                &refs,
                text::SMALL,
                INK,
            );
        }
    }
}
