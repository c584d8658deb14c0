//! L-M §5's sample application: p-step reachability and connected components by powers of
//! I + A kept on the GPU, against a CPU breadth-first search on generated graphs (paths, cycles,
//! disjoint cliques, random sparse graphs of a few hundred nodes), in u8 and f32; the GPU copy
//! against a host round trip; the power schedules; bad input; and the CLI end to end.

mod common;
use common::ctx;
use rendermm::Matrix;
use rendermm::methods::Method;
use rendermm::precision::Precision;
use rendermm::reach::graph::{self, Components, Graph, ReadOptions, cpu_components, cpu_reach};
use rendermm::reach::{self, Goal, ReachOptions, Step, Transfer};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Exact comparison of two 0/1 reachability matrices, naming the first differing pair.
fn assert_same_reach(label: &str, got: &Matrix, want: &Matrix) {
    assert_eq!(got.shape(), want.shape(), "{label}: shape");
    if let Some(idx) = got.data.iter().zip(&want.data).position(|(g, w)| g != w) {
        let (u, v) = (idx / got.cols, idx % got.cols);
        let wrong = got
            .data
            .iter()
            .zip(&want.data)
            .filter(|(g, w)| g != w)
            .count();
        panic!(
            "{label}: {wrong} entries differ from the CPU BFS; first at (u={u}, v={v}): GPU {} CPU {}",
            got.data[idx], want.data[idx]
        );
    }
}

fn opts(method: Method, precision: Precision) -> ReachOptions {
    ReachOptions {
        method,
        precision: Some(precision),
        ..Default::default()
    }
}

/// Disjoint union: each part's edges shifted past the nodes before it.
fn union(parts: &[Graph]) -> Graph {
    let mut edges = vec![];
    let mut offset = 0;
    for g in parts {
        edges.extend(g.edges.iter().map(|&(u, v)| (u + offset, v + offset)));
        offset += g.nodes;
    }
    Graph::new(offset, edges, false).unwrap()
}

fn path(n: usize) -> Graph {
    Graph::new(n, (1..n).map(|i| (i - 1, i)).collect(), false).unwrap()
}

fn cycle(n: usize) -> Graph {
    Graph::new(n, (0..n).map(|i| (i, (i + 1) % n)).collect(), false).unwrap()
}

fn clique(n: usize) -> Graph {
    Graph::new(
        n,
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
        false,
    )
    .unwrap()
}

/// Run `goal` on the GPU and check matrix and components against the CPU BFS.
fn check_against_bfs(label: &str, g: &Graph, goal: Goal, o: &ReachOptions) {
    let run = reach::reach(ctx(), g, goal, o).unwrap_or_else(|e| panic!("{label}: {e}"));
    let steps = match goal {
        Goal::Steps(p) => Some(p),
        Goal::Closure => None,
    };
    assert_same_reach(label, &run.matrix, &cpu_reach(g, steps));
    if goal == Goal::Closure {
        assert_eq!(
            run.components.as_ref(),
            Some(&cpu_components(g)),
            "{label}: components"
        );
    }
    assert!(reach::matches_cpu(g, &run), "{label}: matches_cpu");
}

#[test]
fn components_of_paths_cycles_and_disjoint_cliques_match_bfs_in_u8_and_f32() {
    let g = union(&[
        path(9),
        cycle(7),
        clique(5),
        clique(4),
        path(1),
        cycle(3),
        path(17),
    ]);
    let want = cpu_components(&g);
    assert_eq!(want.sizes, vec![9, 7, 5, 4, 1, 3, 17]);
    for p in [Precision::U8, Precision::F32] {
        check_against_bfs(
            &format!("lm {p} closure"),
            &g,
            Goal::Closure,
            &opts(Method::Lm, p),
        );
    }
}

#[test]
fn p_step_reachability_on_a_path_and_a_cycle_matches_bfs_in_u8_and_f32() {
    // A path of 33 and a cycle of 20: within p steps is a band of width p, so a wrong power
    // (one product too many or too few) shows.
    let g = union(&[path(33), cycle(20)]);
    for p in [Precision::U8, Precision::F32] {
        for steps in [1, 2, 3, 5, 6, 7, 12, 31] {
            check_against_bfs(
                &format!("lm {p} steps {steps}"),
                &g,
                Goal::Steps(steps),
                &opts(Method::Lm, p),
            );
        }
    }
}

#[test]
fn random_sparse_graph_of_300_nodes_matches_bfs_in_u8_and_f32() {
    // 300 nodes, 280 edges: many components of many sizes, long shortest paths.
    let g = Graph::random(300, 280, false, 7).unwrap();
    assert!(cpu_components(&g).count() > 20);
    for p in [Precision::U8, Precision::F32] {
        check_against_bfs(
            &format!("lm {p} closure n=300"),
            &g,
            Goal::Closure,
            &opts(Method::Lm, p),
        );
        check_against_bfs(
            &format!("lm {p} steps 3 n=300"),
            &g,
            Goal::Steps(3),
            &opts(Method::Lm, p),
        );
    }
}

#[test]
fn directed_graph_gives_strongly_connected_components() {
    // Two directed cycles joined one way, plus a random directed tail: SCCs are the cycles and
    // singletons, and reachability is not symmetric.
    let mut edges: Vec<(usize, usize)> = (0..5).map(|i| (i, (i + 1) % 5)).collect();
    edges.extend((5..9).map(|i| (i, if i == 8 { 5 } else { i + 1 })));
    edges.push((4, 5));
    edges.extend(
        Graph::random(60, 70, true, 3)
            .unwrap()
            .edges
            .iter()
            .map(|&(u, v)| (u + 9, v + 9)),
    );
    let g = Graph::new(69, edges, true).unwrap();
    let c = cpu_components(&g);
    assert_eq!(&c.sizes[..2], &[5, 4]);
    for p in [Precision::U8, Precision::F32] {
        check_against_bfs(
            &format!("lm {p} directed closure"),
            &g,
            Goal::Closure,
            &opts(Method::Lm, p),
        );
        check_against_bfs(
            &format!("lm {p} directed steps 4"),
            &g,
            Goal::Steps(4),
            &opts(Method::Lm, p),
        );
    }
}

#[test]
fn f16_closure_matches_bfs() {
    let g = Graph::random(90, 80, false, 11).unwrap();
    check_against_bfs(
        "lm f16 closure",
        &g,
        Goal::Closure,
        &opts(Method::Lm, Precision::F16),
    );
}

#[test]
fn hall_blocked_and_hall_packed_match_bfs_on_an_odd_sized_graph() {
    // 97 nodes: odd, so the packed texture has a padding row and column.
    let g = Graph::random(97, 90, false, 5).unwrap();
    for method in [Method::HallBlocked, Method::HallPacked] {
        let mut o = opts(method, Precision::F32);
        o.block = Some(16);
        check_against_bfs(&format!("{method} closure"), &g, Goal::Closure, &o);
        check_against_bfs(&format!("{method} steps 5"), &g, Goal::Steps(5), &o);
    }
}

#[test]
fn gpu_copy_gives_the_same_result_as_reading_back_and_uploading() {
    let g = Graph::random(120, 110, false, 9).unwrap();
    let base = g.reach_base();
    // 7 = squarings and steps by M, so both the (R, R) and the (R, M) products read copies.
    let steps = reach::schedule(7);
    assert_eq!(
        steps,
        vec![Step::Square, Step::TimesBase, Step::Square, Step::TimesBase]
    );
    let want = cpu_reach(&g, Some(7));
    for (method, precision) in [
        (Method::Lm, Precision::U8),
        (Method::Lm, Precision::F32),
        (Method::HallBlocked, Precision::F32),
        (Method::HallPacked, Precision::F32),
    ] {
        let mut runs = vec![];
        for transfer in [Transfer::GpuCopy, Transfer::HostRoundTrip] {
            let o = ReachOptions {
                transfer,
                ..opts(method, precision)
            };
            let run = reach::power(ctx(), &base, &steps, &o).unwrap();
            assert_eq!(run.breakdown.products, 4);
            assert_eq!(
                run.breakdown.copies, 3,
                "{method} {transfer}: one copy between products"
            );
            runs.push(run.matrix);
        }
        let label = format!("{method} {precision}");
        assert_eq!(
            runs[0], runs[1],
            "{label}: GPU copy and host round trip differ"
        );
        assert_same_reach(&label, &runs[0], &want);
    }
}

/// The schedules on the CPU, with a boolean product: `schedule(p)` gives `M^p` with ⌊log₂ p⌋
/// squarings and popcount(p) − 1 steps, and `closure_schedule(n)` reaches the closure.
#[test]
fn schedules_raise_m_to_the_right_power() {
    fn bool_mul(x: &Matrix, y: &Matrix) -> Matrix {
        Matrix::from_fn(x.rows, y.cols, |i, j| {
            if (0..x.cols).any(|p| x.get(i, p) != 0.0 && y.get(p, j) != 0.0) {
                1.0
            } else {
                0.0
            }
        })
    }
    let g = path(40);
    let m = g.reach_base();
    for p in 1..=45usize {
        let steps = reach::schedule(p);
        let squarings = steps.iter().filter(|&&s| s == Step::Square).count();
        assert_eq!(squarings, p.ilog2() as usize, "p = {p}");
        assert_eq!(
            steps.len() - squarings,
            p.count_ones() as usize - 1,
            "p = {p}"
        );
        let mut r = m.clone();
        for s in &steps {
            r = match s {
                Step::Square => bool_mul(&r, &r),
                Step::TimesBase => bool_mul(&r, &m),
            };
        }
        assert_same_reach(&format!("schedule({p})"), &r, &cpu_reach(&g, Some(p)));
    }
    for n in 0..70usize {
        let t = reach::closure_schedule(n).len() as u32;
        assert!(1usize << t >= n.saturating_sub(1), "n = {n}: 2^{t} < n - 1");
        assert!(
            t == 0 || 1usize << (t - 1) < n - 1,
            "n = {n}: {t} squarings is more than needed"
        );
    }
    // p ≥ n − 1 with fewer closure products: the closure is used.
    let (steps, note) = reach::plan(Goal::Steps(1000), 40).unwrap();
    assert_eq!(steps.len(), 6);
    assert!(note.unwrap().contains("closure"));
}

#[test]
fn self_loops_and_duplicate_edges_change_nothing() {
    let plain = Graph::new(6, vec![(0, 1), (1, 2), (3, 4)], false).unwrap();
    let noisy = Graph::new(
        6,
        vec![
            (0, 1),
            (1, 0),
            (0, 1),
            (1, 2),
            (2, 2),
            (3, 4),
            (4, 3),
            (5, 5),
        ],
        false,
    )
    .unwrap();
    let a = reach::reach(ctx(), &plain, Goal::Closure, &ReachOptions::default()).unwrap();
    let b = reach::reach(ctx(), &noisy, Goal::Closure, &ReachOptions::default()).unwrap();
    assert_eq!(a.matrix, b.matrix);
    assert_eq!(a.components, b.components);
    assert_eq!(b.components.unwrap().sizes, vec![3, 2, 1]);
}

#[test]
fn empty_graph_has_zero_components_and_no_gpu_work() {
    let dir = scratch("empty");
    for (name, text) in [
        ("empty.txt", ""),
        ("comments.txt", "# nothing here\n\n% nor here\n"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        let g = graph::read_graph(&p, ReadOptions::default()).unwrap();
        assert_eq!(g.nodes, 0);
        let run = reach::reach(ctx(), &g, Goal::Closure, &ReachOptions::default()).unwrap();
        assert_eq!(
            run.components,
            Some(Components {
                labels: vec![],
                sizes: vec![]
            })
        );
        assert_eq!(run.matrix.shape(), (0, 0));
        assert_eq!(run.breakdown.products, 0);
        let run = reach::reach(ctx(), &g, Goal::Steps(3), &ReachOptions::default()).unwrap();
        assert_eq!(run.matrix.shape(), (0, 0));
    }
}

#[test]
fn one_node_and_two_node_graphs_need_no_products() {
    for g in [Graph::new(1, vec![], false).unwrap(), path(2)] {
        let run = reach::reach(ctx(), &g, Goal::Closure, &ReachOptions::default()).unwrap();
        assert_eq!(run.breakdown.products, 0);
        assert_same_reach("tiny", &run.matrix, &cpu_reach(&g, None));
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rendermm-reach-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Read `text` as a graph file named `name`; the error message, or "" on success.
fn read_error(dir: &Path, name: &str, text: &[u8], o: ReadOptions) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    match graph::read_graph(&p, o) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_graph_files_are_errors_naming_the_line() {
    let dir = scratch("bad");
    let zero = ReadOptions::default();
    let one = ReadOptions {
        one_based: true,
        ..zero
    };
    let cases: &[(&str, &[u8], ReadOptions, &[&str])] = &[
        ("a.txt", b"0 1\n1 two\n", zero, &["line 2", "not a node id"]),
        ("b.txt", b"0 1\n1\n", zero, &["line 2", "two node ids"]),
        (
            "c.txt",
            b"# header\n0 1 2\n",
            zero,
            &["line 2", "found 3 field"],
        ),
        ("d.txt", b"0 1\n0 -4\n", zero, &["line 2", "not negative"]),
        ("e.txt", b"1 2\n0 2\n", one, &["line 2", "start at 1"]),
        (
            "f.txt",
            b"0 1\n1 7\n",
            ReadOptions {
                nodes: Some(5),
                ..zero
            },
            &["line 2", "out of range", "--nodes 5"],
        ),
        (
            "g.txt",
            b"0 1\n1 123456789\n",
            zero,
            &["line 2", "out of range", "at most"],
        ),
        ("h.txt", b"0 1\n1 2.5\n", zero, &["line 2", "not a node id"]),
        ("i.txt", b"0 1\n\xff\xfe 2\n", zero, &["line 2", "UTF-8"]),
        (
            "j.txt",
            b"0 1\n",
            ReadOptions {
                nodes: Some(1 << 20),
                ..zero
            },
            &["at most"],
        ),
        ("k.mtx", b"0 1\n", one, &["--one-based", "edge lists"]),
    ];
    for (name, text, o, needles) in cases {
        let e = read_error(&dir, name, text, *o);
        for n in *needles {
            assert!(e.contains(n), "{name}: error {e:?} does not mention {n:?}");
        }
    }
    // A non-square adjacency matrix, one with NaN, a missing file.
    let p = dir.join("rect.npy");
    rendermm::io::write_matrix(&p, &Matrix::zeros(2, 3)).unwrap();
    let e = graph::read_graph(&p, zero).unwrap_err().to_string();
    assert!(e.contains("square") && e.contains("2x3"), "{e}");
    let p = dir.join("nan.npy");
    rendermm::io::write_matrix(
        &p,
        &Matrix::new(2, 2, vec![0.0, f32::NAN, 0.0, 0.0]).unwrap(),
    )
    .unwrap();
    let e = graph::read_graph(&p, zero).unwrap_err().to_string();
    assert!(e.contains("(0, 1)"), "{e}");
    let e = graph::read_graph(&dir.join("missing.txt"), zero)
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.txt"), "{e}");
}

#[test]
fn matrix_market_pattern_and_dense_npy_graphs_read_as_edges() {
    let dir = scratch("formats");
    let mtx = dir.join("g.mtx");
    std::fs::write(
        &mtx,
        "%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n5 5 3\n2 1\n3 2\n5 4\n",
    )
    .unwrap();
    let g = graph::read_graph(&mtx, ReadOptions::default()).unwrap();
    assert_eq!(g.nodes, 5);
    assert_eq!(cpu_components(&g).labels, vec![0, 0, 0, 1, 1]);
    let npy = dir.join("g.npy");
    rendermm::io::write_matrix(&npy, &g.adjacency()).unwrap();
    let h = graph::read_graph(&npy, ReadOptions::default()).unwrap();
    assert_eq!(h.adjacency(), g.adjacency());
    // Directed from a non-symmetric matrix: 0 → 1 only.
    let d = dir.join("d.npy");
    rendermm::io::write_matrix(&d, &Matrix::new(2, 2, vec![0.0, 1.0, 0.0, 0.0]).unwrap()).unwrap();
    let dg = graph::read_graph(
        &d,
        ReadOptions {
            directed: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(cpu_reach(&dg, None).data, vec![1.0, 1.0, 0.0, 1.0]);
    let run = reach::reach(ctx(), &dg, Goal::Closure, &ReachOptions::default()).unwrap();
    assert_eq!(run.components.unwrap().sizes, vec![1, 1]);
}

#[test]
fn unsupported_methods_precisions_and_zero_steps_are_clear_errors() {
    let g = path(4);
    let e = reach::reach(
        ctx(),
        &g,
        Goal::Closure,
        &opts(Method::CsNaive, Precision::F32),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("cs-naive") && e.contains("lm, hall-blocked, hall-packed"),
        "{e}"
    );
    let e = reach::reach(
        ctx(),
        &g,
        Goal::Closure,
        &opts(Method::HallPacked, Precision::U8),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("u8") && e.contains("f32 only"), "{e}");
    let e = reach::reach(ctx(), &g, Goal::Steps(0), &ReachOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("--steps 0"), "{e}");
    let e = reach::power(
        ctx(),
        &Matrix::filled(3, 3, 0.5),
        &[Step::Square],
        &ReachOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("0/1"), "{e}");
}

fn rendermm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .expect("run rendermm")
}

fn asset(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn cli_closure_json_on_the_example_graph_matches_bfs() {
    let file = asset("graph-example.txt");
    let out = rendermm(&["reach", "--graph", &file, "--closure", "--json", "--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let g = graph::read_graph(Path::new(&file), ReadOptions::default()).unwrap();
    let want = cpu_components(&g);
    let labels: Vec<usize> = serde_json::from_value(v["labels"].clone()).unwrap();
    let sizes: Vec<usize> = serde_json::from_value(v["component_sizes"].clone()).unwrap();
    assert_eq!(labels, want.labels);
    assert_eq!(sizes, want.sizes);
    assert_eq!(v["components"], 6);
    assert_eq!(v["matches_cpu_bfs"], true);
}

#[test]
fn cli_writes_components_csv_matrix_npy_and_png_and_refuses_bad_input() {
    let dir = scratch("cli");
    let file = asset("graph-example.txt");
    let csv = dir.join("c.csv");
    let out = rendermm(&[
        "reach",
        "--graph",
        &file,
        "--closure",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(
        text.starts_with("node,component\n0,0\n") && text.ends_with("23,5\n"),
        "{text}"
    );
    let npy = dir.join("r.npy");
    let out = rendermm(&[
        "reach",
        "--graph",
        &file,
        "--steps",
        "2",
        "--precision",
        "f32",
        "--out",
        npy.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let g = graph::read_graph(Path::new(&file), ReadOptions::default()).unwrap();
    assert_same_reach(
        "cli steps 2",
        &rendermm::io::read_matrix(&npy).unwrap(),
        &cpu_reach(&g, Some(2)),
    );
    let png = dir.join("r.png");
    let out = rendermm(&[
        "reach",
        "--graph",
        &file,
        "--closure",
        "--out",
        png.to_str().unwrap(),
    ]);
    assert!(
        out.status.success() && png.exists(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "0 1\n1 2\noops\n").unwrap();
    let not_written = dir.join("never.csv");
    for (args, needle) in [
        (
            vec![
                "reach",
                "--graph",
                bad.to_str().unwrap(),
                "--closure",
                "--out",
                not_written.to_str().unwrap(),
            ],
            "line 3",
        ),
        (
            vec![
                "reach",
                "--graph",
                &file,
                "--steps",
                "2",
                "--out",
                not_written.to_str().unwrap(),
            ],
            "--closure",
        ),
        (vec!["reach", "--graph", &file], "--steps"),
        (
            vec!["reach", "--graph", &file, "--closure", "--method", "dns"],
            "supported methods",
        ),
        (
            vec![
                "reach",
                "--graph",
                &file,
                "--closure",
                "--method",
                "hall-blocked",
                "--precision",
                "u8",
            ],
            "f32 only",
        ),
    ] {
        let out = rendermm(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
    assert!(!not_written.exists());
}

#[test]
fn cli_bench_prints_the_breakdown_and_draws_the_chart() {
    let dir = scratch("bench");
    let png = dir.join("bench.png");
    let out = rendermm(&[
        "reach",
        "--bench",
        "--n",
        "48",
        "--powers",
        "3",
        "--out",
        png.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for phase in ["texture load", "GPU copy", "readback", "multiplies"] {
        assert!(stdout.contains(phase), "no {phase} in {stdout}");
    }
    let img = image::open(&png).unwrap();
    assert!(img.width() > 100 && img.height() > 100);
    let out = rendermm(&[
        "reach",
        "--bench",
        "--n",
        "40",
        "--powers",
        "2",
        "--precision",
        "f32",
        "--json",
        "--out",
        png.to_str().unwrap(),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["breakdown"]["products"], 2);
    assert_eq!(v["breakdown"]["copies"], 1);
    assert!(v["breakdown"]["clamp_ms"].as_f64().unwrap() > 0.0);
}

/// The powers' products through the one entry point with nothing read back between them: M
/// uploaded once, M·M kept on the device and clamped to 0/1, fed straight back in as the left
/// operand of (M·M)·M, and only M³ read back — equal, entry by entry, to the boolean M³ on the
/// CPU. A request on operands laid out for another method, or for a method that cannot keep its
/// product, is one clear line.
#[test]
fn chained_products_on_the_device_go_through_the_entry() {
    use rendermm::plan::resident::{self, OnDevice};
    use rendermm::plan::{self, Options, Request};
    let n = 37;
    let mut m = Matrix::random(n, n, 11, 0.0, 1.0);
    for (i, v) in m.data.iter_mut().enumerate() {
        let (r, c) = (i / n, i % n);
        *v = if r == c || *v < 0.08 { 1.0 } else { 0.0 };
    }
    // The boolean product on the CPU, exactly.
    let boolean = |x: &Matrix, y: &Matrix| {
        let mut out = Matrix::zeros(n, n);
        for r in 0..n {
            for c in 0..n {
                let any = (0..n).any(|p| x.data[r * n + p] != 0.0 && y.data[p * n + c] != 0.0);
                out.data[r * n + c] = if any { 1.0 } else { 0.0 };
            }
        }
        out
    };
    let want = boolean(&boolean(&m, &m), &m);
    for (method, precision) in [
        (Method::Lm, Precision::U8),
        (Method::Lm, Precision::F16),
        (Method::HallBlocked, Precision::F32),
        (Method::HallPacked, Precision::F32),
    ] {
        let label = format!("{method} {precision}");
        let opts = Options {
            precision,
            ..Default::default()
        };
        let base = resident::upload(ctx(), method, &m, precision).unwrap();
        let product = |x, y| {
            plan::multiply(
                Some(ctx()),
                Request::on_device(
                    method,
                    OnDevice {
                        x,
                        y,
                        clamp_to_one: true,
                    },
                )
                .options(opts.clone()),
            )
            .unwrap_or_else(|e| panic!("{label}: {e}"))
        };
        let square = product(&base, &base);
        assert_eq!(square.c.data.len(), 0, "{label}: nothing read back");
        assert_eq!(
            square.clamp.is_some(),
            precision != Precision::U8,
            "{label}"
        );
        let square = square.on_device.unwrap();
        let cube = product(&square, &base).on_device.unwrap();
        assert_eq!(cube.shape(), (n, n), "{label}");
        let got = resident::read_back(ctx(), &cube).unwrap();
        assert_same_reach(&label, &got, &want);
    }

    let lm = resident::upload(ctx(), Method::Lm, &m, Precision::U8).unwrap();
    for (method, says) in [
        (Method::HallBlocked, "laid out for lm"),
        (Method::CsNaive, "hall-packed"),
    ] {
        let e = plan::multiply(
            Some(ctx()),
            Request::on_device(
                method,
                OnDevice {
                    x: &lm,
                    y: &lm,
                    clamp_to_one: false,
                },
            ),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(says) && !e.contains('\n'), "{method}: {e}");
    }
}
