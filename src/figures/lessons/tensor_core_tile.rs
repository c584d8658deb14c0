//! One cooperative-matrix multiply-add and how `coop` tiles C by them.

use super::diagrams::*;
use super::*;

/// A square of 16×16 elements at (`x`, `y`), `cell` pixels each, in colour `c`, with grid lines
/// every 4 elements.
fn fragment(img: &mut RgbImage, (x, y): (i32, i32), cell: i32, c: Rgb<u8>) {
    grid(img, (x, y), (16, 16, cell), |_, _| Some((c, String::new())));
}

/// One 16×16×16 cooperative-matrix multiply-add (A and B in f16, C in f32), and how `coop`
/// tiles C by them: a subgroup's 64×64 block of C as 4×4 accumulator fragments, fed per 16-deep
/// step of k by 4 fragments of A and 4 of B.
pub fn tensor_core_tile(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1180, 900, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "Tensor cores: one 16×16×16 multiply-add, and how coop tiles C by it",
        text::TITLE,
        INK,
    );
    one_multiply_add(&mut img);
    coop_block(&mut img);
    tensor_key(&mut img);
    picture::save_png(out, &img)
}

/// Part 1: D = A·B + C, the four fragments side by side.
fn one_multiply_add(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        58.0,
        "1. One cooperative-matrix multiply-add, coopMultiplyAdd(A, B, C): one call of the API, by a whole subgroup (32 invocations)",
        text::LABEL,
        INK,
    );
    let (cell, y) = (10i32, 130i32);
    let side = 16 * cell;
    let xs = [60i32, 300, 540, 800];
    let parts = [
        ("A", "16×16, f16", F16),
        ("B", "16×16, f16", F16),
        ("C", "16×16, f32", F32),
        ("D = A·B + C", "16×16, f32", F32),
    ];
    for (&x, (name, what, c)) in xs.iter().zip(parts) {
        text::centre(
            img,
            (x + side / 2) as f32,
            y as f32 - 42.0,
            name,
            text::LABEL,
            INK,
        );
        text::centre(
            img,
            (x + side / 2) as f32,
            y as f32 - 22.0,
            what,
            text::SMALL,
            MUTED,
        );
        fragment(img, (x, y), cell, c);
    }
    for (x, sym) in [
        (xs[0] + side + 40, "×"),
        (xs[1] + side + 40, "+"),
        (xs[2] + side + 50, "="),
    ] {
        text::centre(img, x as f32, (y + side / 2 - 16) as f32, sym, 32.0, INK);
    }
    text::lines(
        img,
        60.0,
        (y + side + 16) as f32,
        &[
            "16 · 16 · 16 = 4,096 multiply-adds: every element of D sums 16 products of f16 numbers in f32. Each invocation of the subgroup holds",
            "a share of every fragment; which elements it holds is the driver's business (the type coop_mat16x16<f16, A> hides it).",
        ],
        text::SMALL,
        MUTED,
    );
}

/// Part 2: coop's 64×64 block of C, with the fragments of A and B that feed one step of k.
fn coop_block(img: &mut RgbImage) {
    let y2 = 400i32;
    text::left(
        img,
        30.0,
        y2 as f32,
        "2. How coop tiles C: a subgroup keeps a 64×64 block of C as 4×4 accumulator fragments for the whole k loop",
        text::LABEL,
        INK,
    );
    let c = 4i32; // pixels per element
    let f = 16 * c; // a fragment
    let (bx, by) = (260i32, y2 + 150);
    coop_operands(img, (bx, by), f);
    for i in 0..4 {
        for j in 0..4 {
            let hi = i == 1 && j == 2;
            boxed(
                img,
                (bx + j * f, by + i * f, f, f),
                if hi { F32_HI } else { F32 },
                &format!("C{i}{j}"),
            );
        }
    }
    outline(
        img,
        bx - 2,
        by - 2,
        (4 * f + 4) as u32,
        (4 * f + 4) as u32,
        2,
        RULE,
    );
    text::centre(
        img,
        (bx + 2 * f) as f32,
        (by + 4 * f + 8) as f32,
        "C: a 64×64 block, 16 fragments of f32",
        text::SMALL,
        INK,
    );
    let notes = [
        "per 16-deep step of k, the subgroup",
        "  loads 4 fragments of A and 4 of B (f16),",
        "  and issues 16 multiply-adds, one per pair:",
        "  C_ij += A_i · B_j  (dark: C12 += A1 · B2);",
        "so every element of A and B read from",
        "memory serves 64 multiply-adds.",
        "",
        "One workgroup of one subgroup per block:",
        "(n/64)² workgroups, k/16 steps each.",
        "The fastest H100 variant puts 8 subgroups",
        "in a workgroup over a 128×256 tile and",
        "stages A and B in workgroup memory first.",
    ];
    text::lines(
        img,
        (bx + 4 * f + 60) as f32,
        (by - f - 20) as f32,
        &notes,
        text::SMALL,
        INK,
    );
}

/// B's four fragments above the block at (`bx`, `by`), A's four to its left, for the step of k
/// shown; `f` is a fragment's side in pixels.
fn coop_operands(img: &mut RgbImage, (bx, by): (i32, i32), f: i32) {
    text::centre(
        img,
        (bx + 2 * f) as f32,
        (by - f - 44) as f32,
        "B: 4 fragments, 16×64 (this step of k)",
        text::SMALL,
        INK,
    );
    for j in 0..4 {
        let hi = j == 2;
        boxed(
            img,
            (bx + j * f, by - f - 20, f, f),
            if hi { F16_HI } else { F16 },
            &format!("B{j}"),
        );
    }
    text::draw(
        img,
        (bx - 20 - f - 10) as f32,
        (by - 18) as f32,
        "A: 4 fragments, 64×16",
        text::SMALL,
        INK,
        text::Align::Right,
    );
    for i in 0..4 {
        let hi = i == 1;
        boxed(
            img,
            (bx - 20 - f, by + i * f, f, f),
            if hi { F16_HI } else { F16 },
            &format!("A{i}"),
        );
    }
}

/// The key to the colours, along the bottom.
fn tensor_key(img: &mut RgbImage) {
    let ky = 860;
    for (i, (col, name)) in [
        (F16, "f16 operands (A, B)"),
        (F32, "f32 accumulators (C, D)"),
        (F16_HI, "one multiply-add's A and B"),
        (F32_HI, "its C"),
    ]
    .iter()
    .enumerate()
    {
        let x = 30 + i as i32 * 270;
        boxed(img, (x, ky, 16, 16), *col, "");
        text::left(
            img,
            (x + 24) as f32,
            ky as f32 - 1.0,
            name,
            text::SMALL,
            INK,
        );
    }
}
