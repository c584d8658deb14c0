//! The pictures of the lessons: each is registered and draws a PNG; the charts show the pinned
//! H100 run's numbers (parsed here independently of the figure's own parser); the 5kk73 picture
//! indexes B and its tile as rendermm's shaders do; L-M figure 3's strata split the shapes as
//! the paper's caption does; the packed demo has a value key under every packed texture.

mod common;

use rendermm::demo::Kind;
use rendermm::demo::layout::{self, Look, View};
use rendermm::demo::scene::Scales;
use rendermm::figures::{self, KK73_ACCESS};
use rendermm::precision::Precision;
use std::path::{Path, PathBuf};

const LESSONS: [&str; 5] = [
    "eras-best-h100",
    "texel-rate-vs-fma",
    "5kk73-access",
    "frag-mrt-attachments",
    "tensor-core-tile",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

#[test]
fn every_lesson_picture_is_registered_and_draws_a_png() {
    let dir = std::env::temp_dir().join(format!("rendermm-lessons-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in LESSONS {
        let f = figures::find(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            !f.per_adapter,
            "{name} draws the pinned run, not this adapter"
        );
        let path = dir.join(format!("{name}.png"));
        (f.draw)(common::ctx(), &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let img = image::open(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            img.width() >= 900 && img.height() >= 500,
            "{name}: {}x{}",
            img.width(),
            img.height()
        );
        // Not a blank canvas: dark ink (text) and colour (bars, cells) both present.
        let rgb = img.to_rgb8();
        assert!(
            rgb.pixels().any(|p| p.0.iter().all(|&c| c < 60)),
            "{name}: no text"
        );
        assert!(
            rgb.pixels()
                .any(|p| p.0.iter().max().unwrap() - p.0.iter().min().unwrap() > 80),
            "{name}: no colour"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pinned CSV read the simple way: (method, n, gflops) of the rows that passed.
fn pinned_passed_rows() -> Vec<(String, usize, f64)> {
    let text = std::fs::read_to_string(root().join("docs/perf/h100/bench.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (cm, cn, cg, cp) = (col("method"), col("n"), col("gflops"), col("passed"));
    lines
        .filter_map(|l| {
            // No field before `passed` holds a comma except the quoted `checked`, which comes
            // after gflops: count from the start for the first columns, and find "true" after.
            let f: Vec<&str> = l.split(',').collect();
            let passed = f[cp..].contains(&"true");
            let g: f64 = f[cg].parse().ok()?;
            (passed && g.is_finite()).then(|| (f[cm].to_string(), f[cn].parse().unwrap(), g))
        })
        .collect()
}

#[test]
fn the_eras_picture_shows_each_method_at_its_fastest_n_in_the_pinned_csv() {
    let rows = figures::pinned_rows().unwrap();
    let simple = pinned_passed_rows();
    for (_, method) in figures::ERA_BEST {
        let want = simple
            .iter()
            .filter(|r| r.0 == method)
            .max_by(|a, b| a.2.total_cmp(&b.2))
            .map(|r| (r.1, r.2))
            .unwrap_or_else(|| panic!("{method} has no passed row in the pinned CSV"));
        let got = figures::best_of(&rows, method).unwrap();
        assert_eq!(got.0, want.0, "{method}: best n");
        assert!(
            (got.1 - want.1).abs() <= 1e-9 * want.1,
            "{method}: {got:?} vs {want:?}"
        );
    }
    // lm did not run at 4096 (one product at 2048 took over two seconds): its best is 2048.
    assert_eq!(figures::best_of(&rows, "lm").unwrap().0, 2048);
    // The tensor cores are the fastest era, above the FP32 peak; cs-fast below it.
    let coop = figures::best_of(&rows, "coop").unwrap().1;
    let fast = figures::best_of(&rows, "cs-fast").unwrap().1;
    assert!(coop > figures::H100_FP32_PEAK && fast < figures::H100_FP32_PEAK && coop > fast);
}

#[test]
fn a_sweep_csv_without_a_needed_column_is_refused_with_its_name() {
    let e = figures::parse_sweep_csv("method,n,gflops\nlm,16,1.0\n", "x.csv").unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("x.csv") && msg.contains("passed"), "{msg}");
    let e = figures::parse_sweep_csv("method,n,gflops,passed\nlm,sixteen,1.0,true\n", "x.csv")
        .unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
}

#[test]
fn the_roofline_ceilings_are_the_pinned_runs() {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("docs/perf/h100/bench.json")).unwrap(),
    )
    .unwrap();
    for name in ["fragment-fma", "texture-fetch", "texture-fetch-rgba32f"] {
        let want = json["ceilings"]["ceilings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["value"]
            .as_f64()
            .unwrap();
        assert_eq!(figures::pinned_ceiling(name).unwrap(), want, "{name}");
    }
    assert!(figures::pinned_ceiling("no-such-ceiling").is_err());
}

/// The value of a WGSL index expression of sums of `X * BS` and `X` terms, with tx as given,
/// ty = 0, kk = 0, the first tile (t = 0) of the first workgroup (wg = 0).
fn eval(expr: &str, tx: usize) -> usize {
    let var = |v: &str| match v.trim() {
        "tx" => tx,
        "ty" | "kk" | "t" | "wg.x" | "wg.y" => 0,
        "col" => tx, // wg.x * BS + tx
        "row" => 0,  // wg.y * BS + ty
        other => panic!("unknown variable {other} in {expr}"),
    };
    expr.split('+')
        .map(|term| match term.split_once('*') {
            Some((v, bs)) => {
                assert_eq!(bs.trim(), "BS", "{expr}");
                var(v) * 16
            }
            None => var(term),
        })
        .sum()
}

/// The text between `open` and the matching `)` or `]` after it.
fn inside<'a>(s: &'a str, open: &str) -> &'a str {
    let at = s.find(open).unwrap_or_else(|| panic!("no {open} in {s}")) + open.len();
    let close = if open.ends_with('[') { ']' } else { ')' };
    let mut depth = 0;
    for (i, c) in s[at..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' if depth > 0 => depth -= 1,
            c if c == close => return &s[at..at + i],
            _ => {}
        }
    }
    panic!("unclosed {open} in {s}")
}

#[test]
fn the_5kk73_access_picture_indexes_b_and_its_tile_as_the_shaders_do() {
    let shaders = ["kk73_1_uncoalesced", "kk73_2_coalesced", "kk73_3_bank_free"];
    for (step, file) in KK73_ACCESS.iter().zip(shaders) {
        let src = std::fs::read_to_string(root().join(format!("shaders/{file}.wgsl"))).unwrap();
        let store = src
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .find(|l| l.contains("b_tile[") && l.contains("= load_b("))
            .unwrap_or_else(|| panic!("{file}: no store into b_tile"));
        let inner = src
            .lines()
            .map(|l| l.split("//").next().unwrap())
            .find(|l| l.contains("accu +=") && l.contains("b_tile["))
            .unwrap_or_else(|| panic!("{file}: no inner product"));
        let (r, c) = inside(store, "load_b(").split_once(',').unwrap();
        for tx in 0..16 {
            assert_eq!(
                (step.read)(tx),
                (eval(r, tx), eval(c, tx)),
                "{file}: B read by tx = {tx}"
            );
            assert_eq!(
                (step.store)(tx),
                eval(inside(store, "b_tile["), tx),
                "{file}: store, tx = {tx}"
            );
            assert_eq!(
                (step.inner)(tx),
                eval(inside(inner, "b_tile["), tx),
                "{file}: read, tx = {tx}"
            );
        }
    }
    // What the picture then says: step 1 reads B down a column, steps 2 and 3 along a row; the
    // transposed tile of step 2 puts 8 of the 16 threads on one bank, step 3 one per bank.
    let coalesced =
        |s: usize| (0..16).all(|t| (KK73_ACCESS[s].read)(t).0 == (KK73_ACCESS[s].read)(0).0);
    assert_eq!(
        [coalesced(0), coalesced(1), coalesced(2)],
        [false, true, true]
    );
    let worst = |w: fn(usize) -> usize| figures::bank_load(w).into_iter().max().unwrap();
    let ways: Vec<usize> = KK73_ACCESS.iter().map(|s| worst(s.inner)).collect();
    assert_eq!(ways, [1, 8, 1]);
}

#[test]
fn lm_figure_3_strata_split_square_ish_from_oblong_shapes() {
    assert_eq!(figures::lm_stratum(256, 256, 256), 0);
    assert_eq!(figures::lm_stratum(16, 64, 64), 0);
    assert_eq!(figures::lm_stratum(64, 256, 256), 0);
    assert_eq!(figures::lm_stratum(16, 256, 64), 1);
    assert_eq!(figures::lm_stratum(256, 16, 256), 1);
    let sides = [16usize, 64, 256];
    let mut oblong = 0;
    for m in sides {
        for k in sides {
            for n in sides {
                oblong += usize::from(figures::lm_stratum(m, k, n) == 1);
            }
        }
    }
    assert_eq!(oblong, 12, "the shapes holding both 16 and 256");
}

fn packed_view(m: usize, k: usize, n: usize) -> View {
    View {
        kind: Kind::Packed,
        m,
        k,
        n,
        precision: Precision::F32,
        pass: 1,
        passes: k.div_ceil(2),
        block: (0, 1),
        b: 1,
        scales: Scales {
            a: 1.0,
            b: 2.0,
            slice: 1.0,
            c: 3.0,
        },
        keys: true,
        status: Some("DONE".into()),
    }
}

#[test]
fn the_packed_demo_has_a_channel_value_key_under_every_packed_texture() {
    for (m, k, n) in [(8, 8, 8), (7, 9, 5), (64, 64, 64)] {
        for (w, h) in [(960, 420), (1280, 720)] {
            let lay = layout::layout(&packed_view(m, k, n), w, h);
            assert!(
                lay.panels.len() + lay.bars.len() <= 8,
                "the renderer draws 8 at most"
            );
            for p in lay.panels.iter().filter(|p| p.look == Look::Texels) {
                let key = lay
                    .bars
                    .iter()
                    .find(|b| {
                        b.rows == 4
                            && b.rect.y >= p.rect.y + p.rect.h
                            && b.rect.x <= p.rect.x + 1.0
                            && b.rect.x + b.rect.w >= p.rect.x + p.rect.w - 1.0
                    })
                    .unwrap_or_else(|| {
                        panic!("{m}x{k}x{n} in {w}x{h}: no key under {:?}", p.label)
                    });
                assert_eq!(key.scale, p.scale, "the key is on its panel's scale");
                assert!(key.rect.y + key.rect.h <= h as f32, "key outside the frame");
                // Its numbers: −scale at the left, +scale at the right.
                let plus = format!("+{}", layout::number(p.scale));
                assert!(lay.labels.iter().any(|l| l.text == plus), "no {plus} tick");
            }
        }
    }
}
