//! The DNS algorithm as O'Neil (2013) §2.2 and §3.1 describe it (figure 1's cube of n³
//! processors), as rendermm's `dns` runs it (`shaders/dns.wgsl`): every term A(i, p)·B(p, j)
//! at once, one invocation each, then a tree reduction along p in workgroup memory — and, where
//! the k axis is split over workgroups, the partial-sum planes that `shaders/dns_reduce.wgsl`
//! adds.

use super::diagrams::*;
use super::*;

/// The cube drawn: m = n = k = 4.
const SIDE: usize = 4;
/// The sum followed: C(I, J).
const I: usize = 1;
const J: usize = 2;

/// dns.wgsl's tree reduction over a column of `bk` terms: the first stride, KHALF, is half of
/// `bk` rounded up to a power of two (as `methods::dns` sets it); at stride s, invocation
/// lk < s with lk + s < bk adds terms[lk + s] into terms[lk], then all meet at a barrier.
/// Returns, for the start and after each step, which of the original terms each slot holds
/// (empty: the slot is no longer read), with the step's stride.
pub fn dns_tree(bk: usize) -> Vec<(usize, Vec<Vec<usize>>)> {
    let mut slots: Vec<Vec<usize>> = (0..bk).map(|p| vec![p]).collect();
    let mut out = vec![(0, slots.clone())];
    let mut s = bk.next_power_of_two() / 2;
    while s > 0 {
        for lk in 0..s {
            if lk + s < bk {
                let moved = std::mem::take(&mut slots[lk + s]);
                slots[lk].extend(moved);
            }
        }
        // Slots at s and above are not read again.
        for slot in slots.iter_mut().skip(s) {
            slot.clear();
        }
        out.push((s, slots.clone()));
        s >>= 1;
    }
    out
}

/// A cube's three visible faces, `size` of a cell, at cell (x, y, z) of `v`: front, top and
/// right, shaded from `c`, at opacity `alpha`.
fn small_cube(
    img: &mut RgbImage,
    v: &Oblique,
    (x, y, z): (f32, f32, f32),
    size: f32,
    c: Rgb<u8>,
    alpha: f32,
) {
    let o = (1.0 - size) / 2.0;
    let (x0, y0, z0) = (x + o, y + o, z + o);
    let (x1, y1, z1) = (x0 + size, y0 + size, z0 + size);
    let darker = |f: f32| Rgb(c.0.map(|u| (u as f32 * f).round() as u8));
    let front = [
        v.at(x0, y0, z0),
        v.at(x1, y0, z0),
        v.at(x1, y1, z0),
        v.at(x0, y1, z0),
    ];
    let top = [
        v.at(x0, y0, z0),
        v.at(x1, y0, z0),
        v.at(x1, y0, z1),
        v.at(x0, y0, z1),
    ];
    let right = [
        v.at(x1, y0, z0),
        v.at(x1, y0, z1),
        v.at(x1, y1, z1),
        v.at(x1, y1, z0),
    ];
    picture::polygon(
        img,
        &top,
        picture::blend(c, Rgb([255, 255, 255]), 0.35),
        alpha,
    );
    picture::polygon(img, &right, darker(0.8), alpha);
    picture::polygon(img, &front, c, alpha);
    let edge = darker(if alpha < 1.0 { 0.75 } else { 0.55 });
    for q in [&front, &top, &right] {
        picture::polygon_outline(img, q, 1.0, edge);
    }
}

/// DNS on a 4×4×4 cube: the terms, one invocation each; the tree reduction of one column along
/// p; and the partial-sum planes and the sum pass of the split-k variants.
pub fn dns_cube(_ctx: &GpuContext, out: &Path) -> Result<()> {
    let mut img = RgbImage::from_pixel(1300, 910, picture::BG);
    text::left(
        &mut img,
        30.0,
        16.0,
        "DNS (O'Neil 2013, §2.2, §3.1) as rendermm's dns runs it: a cube of m × n × k products, then a reduction along p",
        text::TITLE,
        INK,
    );
    cube_panel(&mut img);
    tree_panel(&mut img);
    split_panel(&mut img);
    picture::save_png(out, &img)
}

/// Part A: the cube of terms.
fn cube_panel(img: &mut RgbImage) {
    text::left(
        img,
        30.0,
        58.0,
        "A. One invocation per term: (i, j, p) computes A(i, p) · B(p, j)",
        text::LABEL,
        INK,
    );
    text::left(
        img,
        30.0,
        80.0,
        "m × n × k = 4 × 4 × 4 = 64 invocations in one workgroup",
        text::SMALL,
        MUTED,
    );
    let k = SIDE as f32;
    let v = Oblique::new((110.0, 262.0), 58.0, 0.9, 35.0);
    let plain = IDLE;
    for p in (0..SIDE).rev() {
        for i in (0..SIDE).rev() {
            for j in 0..SIDE {
                let (c, alpha) = if i == I && j == J {
                    (SLICE_RED, 1.0)
                } else if p == 0 {
                    (C_LIGHT, 1.0)
                } else {
                    (plain, 0.75)
                };
                small_cube(img, &v, (j as f32, i as f32, p as f32), 0.45, c, alpha);
            }
        }
    }
    // Indices.
    for t in 0..SIDE {
        let (x, y) = v.at(0.0, t as f32 + 0.5, 0.0);
        text_at(img, (x - 14.0, y + 4.0), &t.to_string(), text::SMALL, MUTED);
        let (x, y) = v.at(t as f32 + 0.5, k, 0.0);
        text_at(img, (x - 4.0, y + 4.0), &t.to_string(), text::SMALL, MUTED);
        let (x, y) = v.at(k, k, t as f32 + 0.5);
        text_at(img, (x + 6.0, y - 2.0), &t.to_string(), text::SMALL, MUTED);
    }
    let (x0, y0) = v.at(0.0, 0.0, 0.0);
    let (_, y1) = v.at(0.0, k, 0.0);
    picture::arrow(
        img,
        (x0 - 36.0, y0 + 10.0),
        (x0 - 36.0, y1 - 10.0),
        1.5,
        INK,
    );
    text::draw(
        img,
        x0 - 46.0,
        (y0 + y1) / 2.0 - 10.0,
        "i",
        text::LABEL,
        INK,
        text::Align::Right,
    );
    let (xa, ya) = v.at(0.0, k, 0.0);
    let (xb, _) = v.at(k, k, 0.0);
    picture::arrow(img, (xa + 6.0, ya + 22.0), (xb - 10.0, ya + 22.0), 1.5, INK);
    text::centre(img, (xa + xb) / 2.0, ya + 28.0, "j", text::LABEL, INK);
    let (xc, yc) = v.at(k, k, 0.0);
    let (xd, yd) = v.at(k, k, k);
    picture::arrow(img, (xc + 20.0, yc + 6.0), (xd + 20.0, yd + 6.0), 1.5, INK);
    text::left(img, xd + 24.0, yd - 8.0, "p", text::LABEL, INK);
    // The column followed, and the front plane.
    let (hx, hy) = v.at(J as f32 + 0.72, I as f32 + 0.28, k - 0.28);
    let (lx, ly) = (420.0, 112.0);
    text::lines(
        img,
        lx,
        ly,
        &[
            &format!("the k terms of C({I}, {J}):"),
            &format!("A({I}, p) · B(p, {J}), p = 0 … 3"),
        ],
        text::SMALL,
        SLICE_RED,
    );
    picture::line(img, (lx + 20.0, ly + 36.0), (hx, hy), 1.5, SLICE_RED);
    let (fx, fy) = v.at(k / 2.0, k, 0.0);
    text::centre(
        img,
        fx,
        fy + 52.0,
        "front plane p = 0: where each sum ends (lk == 0 writes C)",
        text::SMALL,
        C_DARK,
    );
    text::lines(
        img,
        30.0,
        fy + 80.0,
        &[
            "Before the products, the plane j = 0 loads A's block and the plane",
            "i = 0 B's block into workgroup memory (O'Neil: the tz == 0 threads);",
            "invocation (x, y, z) of dns.wgsl is (j, p, i): @workgroup_size(BJ, BK, BI).",
        ],
        text::SMALL,
        MUTED,
    );
}

/// Part B: the tree reduction of C(I, J)'s column of terms, step by step.
fn tree_panel(img: &mut RgbImage) {
    let x0 = 640i32;
    text::left(
        img,
        x0 as f32,
        58.0,
        "B. Tree reduction along p in workgroup memory (dns.wgsl)",
        text::LABEL,
        INK,
    );
    text::left(
        img,
        x0 as f32,
        80.0,
        &format!(
            "the column of C({I}, {J}): terms[t + lk], lk = 0 … BK − 1; BK = k = 4, KHALF = 2"
        ),
        text::SMALL,
        MUTED,
    );
    let tree = dns_tree(SIDE);
    let (bw, bh, gap) = (150i32, 40i32, 6i32);
    let row_h = 92i32;
    let y0 = 128i32;
    let name = |terms: &[usize]| -> String {
        if terms.len() == 1 {
            format!("T{p} = A({I},{p})·B({p},{J})", p = terms[0])
        } else {
            let mut t = terms.to_vec();
            t.sort_unstable();
            t.iter()
                .map(|p| format!("T{p}"))
                .collect::<Vec<_>>()
                .join(" + ")
        }
    };
    for (r, (s, slots)) in tree.iter().enumerate() {
        let y = y0 + r as i32 * row_h;
        for (lk, terms) in slots.iter().enumerate() {
            let x = x0 + lk as i32 * (bw + gap);
            let (c, label) = if terms.is_empty() {
                (IDLE, String::new())
            } else if terms.len() == SIDE {
                (C_LIGHT, format!("{} = C({I}, {J})", name(terms)))
            } else {
                (
                    picture::blend(Rgb([255, 255, 255]), SLICE_RED, 0.25),
                    name(terms),
                )
            };
            let w = if terms.len() == SIDE {
                2 * bw + gap
            } else {
                bw
            };
            if terms.len() == SIDE || !(r + 1 == tree.len() && lk == 1) {
                boxed(img, (x, y, w, bh), c, &label);
            }
            if r == 0 {
                text::centre(
                    img,
                    (x + bw / 2) as f32,
                    (y - 18) as f32,
                    &format!("lk = {lk}"),
                    text::SMALL,
                    MUTED,
                );
            }
        }
        let note = if r == 0 {
            "terms[t] = s_a · s_b; workgroupBarrier()".to_string()
        } else {
            format!("s = {s}: lk < {s} adds terms[t + {s}]; workgroupBarrier()")
        };
        text::left(img, x0 as f32, (y + bh + 6) as f32, &note, text::SMALL, INK);
        // Arrows from this row's sources to the next row's sums.
        if let Some((s2, _)) = tree.get(r + 1) {
            for lk in 0..*s2 {
                if lk + s2 < SIDE {
                    let from = (x0 + (lk + s2) as i32 * (bw + gap) + bw / 2, y + bh);
                    let to = (x0 + lk as i32 * (bw + gap) + bw / 2, y + row_h);
                    picture::arrow(
                        img,
                        (from.0 as f32, from.1 as f32 + 24.0),
                        (to.0 as f32 + 10.0, to.1 as f32 - 2.0),
                        2.0,
                        SLICE_RED,
                    );
                }
            }
        }
    }
    let y = y0 + tree.len() as i32 * row_h - 20;
    text::lines(
        img,
        x0 as f32,
        y as f32,
        &[
            "⌈log₂ BK⌉ = 2 steps for k = 4, each ending in a barrier",
            "(O'Neil's unrolled, warp-synchronous reduction has no WGSL form);",
            "then invocation lk = 0 writes c[i·n + j]. Grey: slots no longer read.",
        ],
        text::SMALL,
        MUTED,
    );
}

/// Part C: k split over workgroups — planes of partial sums and dns_reduce.wgsl's pass.
fn split_panel(img: &mut RgbImage) {
    let y0 = 652i32;
    fill(img, 20, y0 - 14, 1260, 1, GRID);
    text::left(
        img,
        30.0,
        y0 as f32,
        "C. When the k axis is split over q workgroups (dns-tiled for k > 8; dns-n-blocks and its splits when a plane overflows one): partial sums, then a sum pass",
        text::LABEL,
        INK,
    );
    let c = 26i32;
    let top = y0 + 70;
    let planes = [("kb = 0", "p = 0 … 7"), ("kb = 1", "p = 8 … 15")];
    for (q, (kb, ps)) in planes.iter().enumerate() {
        let x = 60 + q as i32 * 200;
        grid(img, (x, top), (4, 4, c), |_, _| {
            Some((
                picture::blend(Rgb([255, 255, 255]), SLICE_RED, 0.25),
                String::new(),
            ))
        });
        text::centre(
            img,
            (x + 2 * c) as f32,
            (top - 40) as f32,
            &format!("plane {kb}"),
            text::SMALL,
            INK,
        );
        text::centre(
            img,
            (x + 2 * c) as f32,
            (top - 22) as f32,
            &format!("each a sum over {ps}"),
            text::SMALL,
            MUTED,
        );
    }
    text_at(
        img,
        ((60 + 4 * c + 260) as f32 / 2.0, (top + 2 * c) as f32),
        "+",
        28.0,
        INK,
    );
    let ax = 60 + 200 + 4 * c + 20;
    picture::arrow(
        img,
        (ax as f32, (top + 2 * c) as f32),
        ((ax + 150) as f32, (top + 2 * c) as f32),
        3.0,
        RULE,
    );
    text::centre(
        img,
        (ax + 75) as f32,
        (top + 2 * c - 40) as f32,
        "dns_reduce.wgsl",
        text::SMALL,
        INK,
    );
    text::centre(
        img,
        (ax + 75) as f32,
        (top + 2 * c - 22) as f32,
        "second dispatch",
        text::SMALL,
        MUTED,
    );
    let cx = ax + 170;
    grid(img, (cx, top), (4, 4, c), |_, _| {
        Some((C_LIGHT, String::new()))
    });
    text::centre(
        img,
        (cx + 2 * c) as f32,
        (top - 22) as f32,
        "C",
        text::LABEL,
        INK,
    );
    text::lines(
        img,
        (cx + 4 * c + 40) as f32,
        (top - 28) as f32,
        &[
            "Each k-block's workgroups reduce their own BK terms as in B and write",
            "plane kb of a partial-sum buffer; dns_reduce.wgsl then adds the q planes",
            "in order, C[e] = Σ_kb partial[kb][e], one invocation per element of C.",
            "O'Neil §5 used atomicAdd here; portable WGSL has no float atomics.",
            "",
            "dns itself (one workgroup, as in A and B) has one k-block:",
            "its reduction writes C directly, and this pass does not run.",
        ],
        text::SMALL,
        INK,
    );
    text::left(
        img,
        (cx + 4 * c + 40) as f32,
        (top + 4 * c - 14) as f32,
        "Drawn: a 4 × 4 C with k = 16 in two k-blocks of BK = 8. Indices count from 0.",
        text::SMALL,
        MUTED,
    );
    key_row(
        img,
        (30, top + 4 * c + 30),
        &[
            (SLICE_RED, "the terms of C(1, 2), in the cube"),
            (
                picture::blend(Rgb([255, 255, 255]), SLICE_RED, 0.25),
                "the same in workgroup memory; partial sums",
            ),
            (C_LIGHT, "plane p = 0 and C: where the sums end"),
            (IDLE, "the other terms (A); slots no longer read (B)"),
        ],
        30,
    );
}
