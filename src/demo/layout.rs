//! Where each panel and label of a demo goes in a frame of a given size. Pure arithmetic, so the
//! tests can ask where the panels of a screenshot are.

use super::Kind;
use crate::draw::font;
use crate::precision::Precision;

/// A rectangle in pixels, origin top left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
}

impl Rect {
    /// Whether the pixel centre (`px` + ½, `py` + ½) lies inside.
    #[cfg(feature = "internals")]
    pub fn contains(&self, px: u32, py: u32) -> bool {
        let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
        x >= self.x && y >= self.y && x < self.x + self.w && y < self.y + self.h
    }
}

/// Which texture a panel reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Source {
    A = 0,
    B = 1,
    Shown0 = 2,
    Shown1 = 3,
    PackedA = 4,
    PackedB = 5,
}

impl Source {
    /// The shown texture of ping-pong slot `slot`.
    pub fn shown(slot: usize) -> Self {
        if slot.is_multiple_of(2) {
            Source::Shown0
        } else {
            Source::Shown1
        }
    }
}

/// How a panel turns its texture into colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Look {
    /// One element per cell, from a single-channel texture.
    Matrix = 0,
    /// Slice p of L-M figure 2: `A[i][p]·B[p][j]`, computed from the A and B textures.
    Slice = 1,
    /// An RGBA texture drawn texel by texel, each texel as 2×2 cells holding its r g / b a
    /// channels in the quadrants' arrangement, each channel in its own hue.
    Texels = 2,
    /// A packed RGBA texture unpacked to the matrix it holds (Hall–Carr–Hart eq. 8).
    Unpacked = 3,
    /// A colour bar: the panel's colour map from −scale (left) to +scale (right), or from 0 to
    /// 1 on the grey ramp of the 8-bit pipeline.
    Bar = 4,
}

/// A highlighted band of columns or rows (the slice's column of A, a block of k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Band {
    None,
    /// Columns `first..first + count` (in display cells).
    Columns(u32, u32),
    /// Rows `first..first + count`.
    Rows(u32, u32),
}

/// One panel: a matrix-like picture with a label above it.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// The picture itself (the frame, if any, lies outside it).
    pub rect: Rect,
    pub look: Look,
    pub source: Source,
    /// Cells down and across (for `Texels`: twice the texture's rows and columns).
    pub rows: u32,
    pub cols: u32,
    pub band: Band,
    /// `Slice`: which slice (0-based).
    pub slice: u32,
    /// ± this value is full colour.
    pub scale: f32,
    /// A coloured frame around the picture (ping-pong: read or written).
    pub frame: Option<[f32; 3]>,
    /// Two lines above the picture: what it is, and what it shows now.
    pub label: [String; 2],
}

/// A line of text.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub x: i32,
    pub y: i32,
    pub text: String,
}

/// Everything a frame shows besides the cube.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    pub panels: Vec<Panel>,
    /// The colour bars under the panels, each with its tick labels in `labels`: a packed
    /// texture's has four lanes (`rows` = 4), its r, g, b and a channels in their hues.
    pub bars: Vec<Panel>,
    pub labels: Vec<Label>,
    /// The cube's viewport, for the cube demo.
    pub cube: Option<Rect>,
    /// Text scale: 1 in small frames, 2 in large ones ([`font::px`] gives the pixel size).
    pub text_scale: u32,
}

/// Colour scales: ± this much is full blue / red on the diverging map.
#[derive(Clone, Copy, Debug)]
pub struct Scales {
    pub a: f32,
    pub b: f32,
    pub slice: f32,
    pub c: f32,
}

/// What the layout needs to know of a demo's state.
#[derive(Clone, Debug)]
pub struct View {
    pub kind: Kind,
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub precision: Precision,
    /// Passes shown (0 before the first) and passes in all.
    pub pass: usize,
    pub passes: usize,
    /// The block of the pass shown (or of pass 1 before any), along the walked dimension.
    pub block: (u32, u32),
    /// Hall–Carr–Hart b.
    pub b: u32,
    pub scales: Scales,
    /// Key hints at the bottom (the window shows them; image files do not).
    pub keys: bool,
    /// A status line (the error against the CPU once done).
    pub status: Option<String>,
}

/// Frame colour of the texture a pass reads.
pub const READ: [f32; 3] = [0.16, 0.42, 0.85];
/// Frame colour of the texture a pass writes.
pub const WRITTEN: [f32; 3] = [0.95, 0.50, 0.05];

/// Text scale for a frame of `w`×`h`.
pub fn text_scale(w: u32, h: u32) -> u32 {
    if w >= 900 && h >= 420 { 2 } else { 1 }
}

/// The keys, as the window's bottom line shows them.
pub const KEYS: &str = "Space pause   → step   +/− speed   1–4 demo   r new inputs   p precision   Esc quit   (cube: drag to orbit)";

/// The frame's own lines: the headline and where the run stands at the top, the keys and the
/// status at the bottom. Returns them and the top and bottom of the room left between.
fn frame_labels(v: &View, h: u32, s: u32, margin: f32) -> (Vec<Label>, f32, f32) {
    let line = font::line(s) as f32;
    let mut labels = vec![];
    let (head, sub) = headline(v);
    labels.push(Label {
        x: margin as i32,
        y: margin as i32,
        text: head,
    });
    labels.push(Label {
        x: margin as i32,
        y: (margin + line) as i32,
        text: sub,
    });
    let top = margin + 2.0 * line + margin;
    let mut bottom = h as f32 - margin;
    if v.keys {
        bottom -= line;
        labels.push(Label {
            x: margin as i32,
            y: bottom as i32 + s as i32,
            text: KEYS.into(),
        });
    }
    if let Some(st) = &v.status {
        bottom -= line;
        labels.push(Label {
            x: margin as i32,
            y: bottom as i32 + s as i32,
            text: st.clone(),
        });
    }
    (labels, top, bottom)
}

/// The cube's layout: the cube between `top` and the faces' colour scale at the bottom left.
fn cube_layout(
    v: &View,
    w: u32,
    (top, bottom): (f32, f32),
    s: u32,
    mut labels: Vec<Label>,
) -> Layout {
    let line = font::line(s) as f32;
    let margin = 8.0 * s as f32;
    // The faces' colour scale at the bottom left, under the cube.
    let bar_h = 6.0 * s as f32;
    let bar = Rect {
        x: margin,
        y: bottom - line - bar_h,
        w: (160 * s) as f32,
        h: bar_h,
    };
    let caption = "colour scale of C, the front face";
    labels.push(Label {
        x: (bar.x + bar.w) as i32 + 10 * s as i32,
        y: (bar.y + bar_h / 2.0 - line / 2.0) as i32,
        text: caption.into(),
    });
    let bars = vec![colour_bar(v, bar, v.scales.c, s, &mut labels)];
    let cube = Rect {
        x: 0.0,
        y: top,
        w: w as f32,
        h: (bar.y - 4.0 * s as f32 - top).max(1.0),
    };
    Layout {
        panels: vec![],
        bars,
        labels,
        cube: Some(cube),
        text_scale: s,
    }
}

/// Lay out the demo `v` in a `w`×`h` frame.
pub fn layout(v: &View, w: u32, h: u32) -> Layout {
    let s = text_scale(w, h);
    let line = font::line(s) as f32;
    let margin = 8.0 * s as f32;
    let (mut labels, top, bottom) = frame_labels(v, h, s, margin);
    if v.kind == Kind::Cube {
        return cube_layout(v, w, (top, bottom), s, labels);
    }
    let mut panels = panel_specs(v);
    let frame = 4.0 * s as f32;
    let gap = 10.0 * s as f32 + 2.0 * frame;
    let label_h = 2.0 * line + frame;
    // Below each row: the frame, a colour bar and its tick labels. A packed texture's key has a
    // lane per channel (r, g, b, a from the top), so it is taller.
    let bar_h = 6.0 * s as f32;
    let key_h = if panels.iter().any(|p| p.look == Look::Texels) {
        4.0 * 3.0 * s as f32
    } else {
        bar_h
    };
    let below = frame + 2.0 * s as f32 + key_h + line;
    let label_w: Vec<f32> = panels
        .iter()
        .map(|p| {
            p.label
                .iter()
                .map(|l| font::text_width(l, s))
                .max()
                .unwrap_or(0) as f32
        })
        .collect();
    let slots = place(
        &mut panels,
        &label_w,
        margin,
        top + label_h,
        w as f32 - 2.0 * margin,
        bottom - top - label_h,
        gap,
        label_h,
        below,
    );
    let mut bars = vec![];
    for (p, &(x, slot_w)) in panels.iter().zip(&slots) {
        let texels = p.look == Look::Texels;
        let bar = Rect {
            x,
            y: p.rect.y + p.rect.h + frame + 2.0 * s as f32,
            w: slot_w.max(p.rect.w),
            h: if texels { key_h } else { bar_h },
        };
        let mut key = colour_bar(v, bar, p.scale, s, &mut labels);
        if texels {
            // Four lanes, one per channel in its hue: the value key of a packed texture.
            key.rows = 4;
        }
        bars.push(key);
    }
    for (p, (x, _)) in panels.iter().zip(slots) {
        for (n, text) in p.label.iter().enumerate() {
            labels.push(Label {
                x: x as i32,
                y: (p.rect.y - label_h + n as f32 * line) as i32,
                text: text.clone(),
            });
        }
    }
    Layout {
        panels,
        bars,
        labels,
        cube: None,
        text_scale: s,
    }
}

/// A colour bar at `bar` for values on ± `scale` (0 to 1 on the grey ramp of u8), its tick
/// labels (at text scale `s`) pushed onto `labels` just under it.
fn colour_bar(v: &View, bar: Rect, scale: f32, s: u32, labels: &mut Vec<Label>) -> Panel {
    let u8_ramp = v.precision == Precision::U8;
    let (lo, hi) = if u8_ramp {
        ("0".to_string(), "1".to_string())
    } else {
        (format!("−{}", number(scale)), format!("+{}", number(scale)))
    };
    let ty = (bar.y + bar.h + 1.0) as i32;
    labels.push(Label {
        x: bar.x as i32,
        y: ty,
        text: lo,
    });
    labels.push(Label {
        x: (bar.x + bar.w) as i32 - font::text_width(&hi, s) as i32,
        y: ty,
        text: hi,
    });
    if !u8_ramp && bar.w > 6.0 * font::text_width("+0.00", s) as f32 {
        labels.push(Label {
            x: (bar.x + bar.w / 2.0) as i32 - font::text_width("0", s) as i32 / 2,
            y: ty,
            text: "0".into(),
        });
    }
    Panel {
        rect: bar,
        look: Look::Bar,
        source: Source::A,
        rows: 1,
        cols: 1,
        band: Band::None,
        slice: 0,
        scale,
        frame: None,
        label: [String::new(), String::new()],
    }
}

pub use crate::draw::scale::number;

/// The two header lines: what is being drawn, and where the run stands. Indices count from 0
/// (slice p, column p of A, row p of B), passes from 1 ("pass 3 of 8").
fn headline(v: &View) -> (String, String) {
    let (m, k, n) = (v.m, v.k, v.n);
    let at = format!("pass {} of {}", v.pass, v.passes);
    let (f, c) = v.block;
    let range = index_range(f, c);
    match v.kind {
        Kind::Lm => (
            format!("Larsen–McAllister 2001 · {m}×{k}×{n} {} · {at}", v.precision),
            "Each pass blends one slice onto C: column p of A across × row p of B down (indices from 0)"
                .into(),
        ),
        Kind::Hall => (
            format!(
                "Hall–Carr–Hart 2003 §3 · {m}×{k}×{n} · block b = {} · {at}",
                v.b
            ),
            format!(
                "Each pass sums the block p = {range} of k, adds the texture it reads, writes the other (indices from 0)"
            ),
        ),
        Kind::Packed => (
            format!(
                "Hall–Carr–Hart 2003 §4 · 2×2 blocks packed in RGBA · {m}×{k}×{n} · b = {} · {at}",
                v.b
            ),
            format!(
                "r g b a = top-left, top-right, bottom-left, bottom-right quadrant · striped = negative · packed p = {range} now"
            ),
        ),
        Kind::Cube => (
            format!(
                "The processor cube (L-M §3) · {m}×{k}×{n} {} · {at}",
                v.precision
            ),
            "A left, B on top (the paper: A on top, Bᵀ on a side; swapped so C reads m×n) · the k slices sum onto C".into(),
        ),
        Kind::Result(method) => {
            let info = method.info();
            (
                format!(
                    "{} ({}) · {m}×{k}×{n} {} · the result, after {}",
                    info.name,
                    info.source,
                    v.precision,
                    passes(v.passes)
                ),
                info.summary.to_string(),
            )
        }
    }
}

/// "1 pass", "7 passes".
fn passes(n: usize) -> String {
    if n == 1 {
        "1 pass".into()
    } else {
        format!("{n} passes")
    }
}

/// `first…last` of `count` indices from `first` (0-based), or the one index.
fn index_range(first: u32, count: u32) -> String {
    if count <= 1 {
        format!("{first}")
    } else {
        format!("{first}…{}", first + count - 1)
    }
}

/// The panels of a 2-D demo, unplaced.
fn panel_specs(v: &View) -> Vec<Panel> {
    match v.kind {
        Kind::Result(_) => result_panels(v),
        Kind::Lm | Kind::Cube => lm_panels(v),
        Kind::Hall => hall_panels(v),
        Kind::Packed => packed_panels(v),
    }
}

/// One panel, unplaced, labelled `title` over `detail`.
#[allow(clippy::too_many_arguments)]
fn panel(
    look: Look,
    source: Source,
    rows: u32,
    cols: u32,
    band: Band,
    scale: f32,
    title: String,
    detail: String,
) -> Panel {
    Panel {
        rect: Rect {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0,
        },
        look,
        source,
        rows,
        cols,
        band,
        slice: 0,
        scale,
        frame: None,
        label: [title, detail],
    }
}

/// A method not watched pass by pass: A, B and its result C.
fn result_panels(v: &View) -> Vec<Panel> {
    let (m, k, n) = (v.m as u32, v.k as u32, v.n as u32);
    let sc = v.scales;
    vec![
        panel(
            Look::Matrix,
            Source::A,
            m,
            k,
            Band::None,
            sc.a,
            format!("A {m}×{k}"),
            String::new(),
        ),
        panel(
            Look::Matrix,
            Source::B,
            k,
            n,
            Band::None,
            sc.b,
            format!("B {k}×{n}"),
            String::new(),
        ),
        panel(
            Look::Matrix,
            Source::Shown0,
            m,
            n,
            Band::None,
            sc.c,
            format!("C {m}×{n}"),
            format!("= A·B after {}", passes(v.passes)),
        ),
    ]
}

/// L-M (and the cube's 2-D view): A and B with the slice's column and row, the slice, and C.
fn lm_panels(v: &View) -> Vec<Panel> {
    let (m, k, n) = (v.m as u32, v.k as u32, v.n as u32);
    let sc = v.scales;
    let p = v.pass as u32;
    // Before the first pass the slice panel shows slice 0, the next one; after pass p
    // (counted from 1) it shows slice p − 1, the one just blended.
    let q = p.max(1);
    let mut slice = panel(
        Look::Slice,
        Source::A,
        m,
        n,
        Band::None,
        sc.slice,
        if p == 0 {
            "Next: slice p = 0".into()
        } else {
            format!("Slice p = {}", q - 1)
        },
        format!("A[i, {0}] · B[{0}, j]", q - 1),
    );
    slice.slice = q - 1;
    vec![
        panel(
            Look::Matrix,
            Source::A,
            m,
            k,
            Band::Columns(q - 1, 1),
            sc.a,
            format!("A {m}×{k}"),
            format!("column p = {}", q - 1),
        ),
        panel(
            Look::Matrix,
            Source::B,
            k,
            n,
            Band::Rows(q - 1, 1),
            sc.b,
            format!("B {k}×{n}"),
            format!("row p = {}", q - 1),
        ),
        slice,
        panel(
            Look::Matrix,
            Source::Shown0,
            m,
            n,
            Band::None,
            sc.c,
            format!("C {m}×{n}"),
            if p == 0 {
                "= 0".into()
            } else {
                format!("= slices {}", index_range(0, p))
            },
        ),
    ]
}

/// Hall's blocked passes: A and B with the pass's block of k, and the two ping-pong textures.
fn hall_panels(v: &View) -> Vec<Panel> {
    let (m, k, n) = (v.m as u32, v.k as u32, v.n as u32);
    let sc = v.scales;
    let p = v.pass as u32;
    let (f, c) = v.block;
    let range = index_range(f, c);
    let ping_pong = |slot: u32| {
        let name = if slot == 0 {
            "Ping (texture 0)"
        } else {
            "Pong (texture 1)"
        };
        let mut x = panel(
            Look::Matrix,
            Source::shown(slot as usize),
            m,
            n,
            Band::None,
            sc.c,
            name.into(),
            String::new(),
        );
        if p > 0 {
            let written = p % 2 == slot;
            x.frame = Some(if written { WRITTEN } else { READ });
            x.label[1] = if written {
                format!("written by pass {p}")
            } else {
                format!("read by pass {p}")
            };
        }
        x
    };
    vec![
        panel(
            Look::Matrix,
            Source::A,
            m,
            k,
            Band::Columns(f, c),
            sc.a,
            format!("A {m}×{k}"),
            format!("columns {range}"),
        ),
        panel(
            Look::Matrix,
            Source::B,
            k,
            n,
            Band::Rows(f, c),
            sc.b,
            format!("B {k}×{n}"),
            format!("rows {range}"),
        ),
        ping_pong(0),
        ping_pong(1),
    ]
}

/// The 2×2 packed passes: A, B and C packed, and C unpacked.
fn packed_panels(v: &View) -> Vec<Panel> {
    let (m, k, n) = (v.m as u32, v.k as u32, v.n as u32);
    let sc = v.scales;
    let p = v.pass as u32;
    let (f, c) = v.block;
    let range = index_range(f, c);
    let (h, w2, k2) = (m.div_ceil(2), n.div_ceil(2), k.div_ceil(2));
    let written = Source::shown(p as usize);
    let mut packed_c = panel(
        Look::Texels,
        written,
        2 * h,
        2 * w2,
        Band::None,
        sc.c,
        "C packed".into(),
        format!("{h}×{w2} RGBA texels"),
    );
    if p > 0 {
        packed_c.frame = Some(WRITTEN);
    }
    vec![
        panel(
            Look::Texels,
            Source::PackedA,
            2 * h,
            2 * k2,
            Band::Columns(2 * f, 2 * c),
            sc.a,
            "A packed".into(),
            format!("{h}×{k2} texels, p = {range}"),
        ),
        panel(
            Look::Texels,
            Source::PackedB,
            2 * k2,
            2 * w2,
            Band::Rows(2 * f, 2 * c),
            sc.b,
            "B packed".into(),
            format!("{k2}×{w2} texels, p = {range}"),
        ),
        packed_c,
        panel(
            Look::Unpacked,
            written,
            m,
            n,
            Band::None,
            sc.c,
            "C unpacked".into(),
            format!("{m}×{n}"),
        ),
    ]
}

/// Give the panels rectangles: one cell size for all (so shared sides line up), in one row or
/// more, whichever gives the largest cells; each panel's slot at least as wide as its label;
/// `below` pixels kept free under each row (the colour bars); centred in the area (`x0`, `y0`,
/// `w`, `h`). Returns each slot's left edge and width (for the labels and the bars).
#[allow(clippy::too_many_arguments)]
fn place(
    panels: &mut [Panel],
    label_w: &[f32],
    x0: f32,
    y0: f32,
    w: f32,
    h: f32,
    gap: f32,
    label_h: f32,
    below: f32,
) -> Vec<(f32, f32)> {
    let count = panels.len();
    let slot = |i: usize, cell: f32| (panels[i].cols as f32 * cell).max(label_w[i]);
    let rows_of = |per_row: usize| -> Vec<(usize, usize)> {
        (0..count)
            .step_by(per_row)
            .map(|s| (s, (s + per_row).min(count)))
            .collect()
    };
    let row_h = |r: &(usize, usize), cell: f32| {
        panels[r.0..r.1].iter().map(|p| p.rows).max().unwrap_or(0) as f32 * cell
    };
    let fits = |per_row: usize, cell: f32| {
        let rows = rows_of(per_row);
        let wide = rows.iter().all(|r| {
            (r.0..r.1).map(|i| slot(i, cell)).sum::<f32>() + gap * (r.1 - r.0 - 1) as f32 <= w
        });
        let high = rows.iter().map(|r| row_h(r, cell) + below).sum::<f32>()
            + (rows.len() as f32 - 1.0) * (gap + label_h)
            <= h;
        wide && high
    };
    let mut best = (0.0f32, count.max(1));
    for per_row in 1..=count {
        let (mut lo, mut hi) = (0.0f32, 48.0f32);
        for _ in 0..40 {
            let mid = (lo + hi) / 2.0;
            if fits(per_row, mid) {
                lo = mid
            } else {
                hi = mid
            }
        }
        if lo > best.0 + 1e-3 {
            best = (lo, per_row);
        }
    }
    let (mut cell, per_row) = best;
    cell = cell.max(0.02);
    if cell >= 2.0 {
        cell = cell.floor();
    }
    let rows = rows_of(per_row);
    let heights: Vec<f32> = rows.iter().map(|r| row_h(r, cell)).collect();
    let total_h: f32 = heights.iter().map(|h| h + below).sum::<f32>()
        + (rows.len() as f32 - 1.0) * (gap + label_h);
    let slots: Vec<f32> = (0..count).map(|i| slot(i, cell)).collect();
    let mut lefts = vec![(0.0, 0.0); count];
    let mut y = y0 + ((h - total_h) / 2.0).max(0.0);
    for (r, &rh) in rows.iter().zip(&heights) {
        let width: f32 = slots[r.0..r.1].iter().sum::<f32>() + gap * (r.1 - r.0 - 1) as f32;
        let mut x = x0 + ((w - width) / 2.0).max(0.0);
        for i in r.0..r.1 {
            let p = &mut panels[i];
            let pw = p.cols as f32 * cell;
            lefts[i] = (x.round(), slots[i]);
            p.rect = Rect {
                x: (x + (slots[i] - pw) / 2.0).round(),
                y: y.round(),
                w: pw,
                h: p.rows as f32 * cell,
            };
            x += slots[i] + gap;
        }
        y += rh + below + gap + label_h;
    }
    lefts
}
