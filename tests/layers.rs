//! Configuration enters at the edges: the library takes every option as a value and reads no
//! environment variable and no system file itself. The command line (`src/cli/`, `src/main.rs`)
//! reads the knobs once and hands them in; the only reads below it are those of the systems the
//! library drives, named here with their variables: wgpu's adapter selection. These tests scan the sources, so a new read in the library fails them.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The path of `p` from the repository root, with `/` separators.
fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The edges: the command line and the binary's `main`, which read the knobs.
fn at_the_edge(path: &str) -> bool {
    path.starts_with("src/cli/") || path == "src/main.rs"
}

/// Reads below the edge that belong to the systems the library drives, by file and by the
/// variables they read: wgpu's own adapter selection (`WGPU_BACKEND`, `WGPU_ADAPTER_NAME`). (The
/// display variables the demo window's error names are read by the command line, too.)
const SYSTEM_READS: &[(&str, &[&str])] =
    &[("src/gpu/context.rs", &["WGPU_BACKEND", "WGPU_ADAPTER_NAME"])];

/// The code of `line`: the part before a `//` comment.
fn code(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
}

/// Every line of library code (outside the edges) that reads the environment, as
/// `path:line: text`, less the system reads of [`SYSTEM_READS`].
fn environment_reads(files: &[(String, String)]) -> Vec<String> {
    let mut found = vec![];
    for (path, text) in files {
        if at_the_edge(path) {
            continue;
        }
        let allowed = SYSTEM_READS
            .iter()
            .find(|(p, _)| p == path)
            .map_or(&[][..], |(_, vars)| *vars);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let c = code(line);
            if !(c.contains("env::var") || c.contains("env::vars")) {
                continue;
            }
            // The variable is named on the line or within the few lines of the call before it
            // (a list iterated over).
            let window = lines[i.saturating_sub(3)..=i].join("\n");
            if allowed.iter().any(|v| window.contains(&format!("\"{v}\""))) {
                continue;
            }
            found.push(format!("{path}:{}: {}", i + 1, line.trim()));
        }
    }
    found
}

/// Every line of library code (outside the edges) that reads a `/proc` file.
fn proc_reads(files: &[(String, String)]) -> Vec<String> {
    let mut found = vec![];
    for (path, text) in files {
        if at_the_edge(path) {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            let c = code(line);
            if c.contains("\"/proc/") && (c.contains("read") || c.contains("File::open")) {
                found.push(format!("{path}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

fn library_files() -> Vec<(String, String)> {
    sources(&root().join("src"))
        .into_iter()
        .map(|p| (rel(&p), std::fs::read_to_string(&p).unwrap()))
        .collect()
}

#[test]
fn the_library_reads_no_environment_variable_below_the_command_line() {
    let files = library_files();
    assert!(
        files.len() > 50,
        "only {} sources: is the scan right?",
        files.len()
    );
    let found = environment_reads(&files);
    assert!(
        found.is_empty(),
        "environment reads inside the library (read them in src/cli/ and pass them in as options):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_library_reads_no_proc_file_below_the_command_line() {
    let found = proc_reads(&library_files());
    assert!(
        found.is_empty(),
        "/proc reads inside the library (read them in src/cli/ and pass the values in):\n{}",
        found.join("\n")
    );
}

/// The scans see what they should: a knob read, a `/proc` read, an aliased `env::var`, and the
/// system reads they allow only in their own file and for their own variables.
#[test]
fn the_scans_see_a_planted_read_and_pass_the_system_reads() {
    let file = |path: &str, text: &str| vec![(path.to_string(), text.to_string())];
    let knob = "let v = std::env::var(\"RENDERMM_CS_FAST\");";
    assert_eq!(
        environment_reads(&file("src/methods/cs_fast.rs", knob)).len(),
        1
    );
    assert_eq!(
        environment_reads(&file(
            "src/plan/tiled.rs",
            "use std::env;\nlet s = env::var(BUDGET_ENV);"
        ))
        .len(),
        1
    );
    assert!(environment_reads(&file("src/cli/knobs.rs", knob)).is_empty());
    assert!(environment_reads(&file("src/main.rs", knob)).is_empty());
    assert!(
        environment_reads(&file(
            "src/plan/tiled.rs",
            "// std::env::var(X) in a comment"
        ))
        .is_empty()
    );
    let wgpu = "let Ok(list) = std::env::var(\"WGPU_BACKEND\") else {";
    assert!(environment_reads(&file("src/gpu/context.rs", wgpu)).is_empty());
    // wgpu's variable is allowed in wgpu's file only, and that file no other variable.
    assert_eq!(environment_reads(&file("src/plan/mod.rs", wgpu)).len(), 1);
    assert_eq!(
        environment_reads(&file("src/gpu/context.rs", knob)).len(),
        1
    );
    let meminfo = "let text = std::fs::read_to_string(\"/proc/meminfo\").ok()?;";
    assert_eq!(proc_reads(&file("src/plan/tiled.rs", meminfo)).len(), 1);
    assert!(proc_reads(&file("src/cli/knobs.rs", meminfo)).is_empty());
}

// The knobs at the edge: the command line reads them and hands them in, and the report names
// what ran.

use rendermm::methods::{Kernels, Method, cs_fast, frag_mrt};
use std::process::{Command, Output};

mod common;

/// `rendermm args` with the environment variables `env` set (and the knobs of the test's own
/// environment removed, so that only `env` speaks).
fn rendermm_with(env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rendermm"));
    cmd.args(args).env("XDG_RUNTIME_DIR", std::env::temp_dir());
    for knob in [
        "RENDERMM_CS_FAST",
        "RENDERMM_COOP",
        "RENDERMM_FRAG_MRT",
        "RENDERMM_MEM_BUDGET",
    ] {
        cmd.env_remove(knob);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run rendermm")
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "rendermm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `RENDERMM_CS_FAST` picks cs-fast's variant from the command line; the report names it and
/// models it (not the variant the size would pick); a bad name is one line naming the knob.
#[test]
fn cs_fast_knob_reaches_the_run_and_the_report_names_and_models_that_variant() {
    let named = cs_fast::VARIANTS[0];
    let (m, k, n) = (64, 64, 64);
    // What the size picks on this machine's adapter (a CPU adapter's small products take the
    // 8×8-blocked 64×64 tile).
    let cpu =
        rendermm::gpu::GpuContext::new().is_ok_and(|c| c.info.device_type == wgpu::DeviceType::Cpu);
    let picked = cs_fast::Variant::for_product(m, n, cpu);
    assert_ne!(
        named, picked,
        "the size must pick another variant than the one named"
    );
    let args = [
        "multiply", "--method", "cs-fast", "--random", "64x64x64", "--check", "--json",
    ];
    let limits = rendermm::model::compute::typical_limits();
    let model = |v: cs_fast::Variant| {
        let kernels = Kernels {
            cs_fast: Some(v),
            ..Default::default()
        };
        rendermm::model::compute::model_of(Method::CsFast, (m, k, n), &limits, &kernels)
            .unwrap()
            .global_bytes
    };
    assert_ne!(
        model(named),
        model(picked),
        "the two variants' models must differ"
    );
    for (env, want) in [
        (vec![], picked),
        (vec![("RENDERMM_CS_FAST", named.name)], named),
    ] {
        let r = json(&rendermm_with(&env, &args));
        assert_eq!(r["variant"], want.name, "{env:?}");
        assert_eq!(
            (r["inputs"].as_str(), r["sums"].as_str()),
            (Some("f32"), Some("f32"))
        );
        assert_eq!(r["check_passed"], true);
        assert_eq!(
            r["model_global_bytes"].as_u64(),
            Some(model(want) as u64),
            "{env:?}"
        );
    }
    // The text report says the same.
    let text = rendermm_with(&[("RENDERMM_CS_FAST", named.name)], &args[..args.len() - 1]);
    let stdout = String::from_utf8_lossy(&text.stdout);
    let want = format!(
        "ran       cs-fast variant {}; f32 inputs, f32 sums",
        named.name
    );
    assert!(stdout.lines().any(|l| l == want), "{stdout}");
    let out = rendermm_with(&[("RENDERMM_CS_FAST", "no-such-variant")], &args);
    let line = common::assert_clean_error(
        &out,
        "RENDERMM_CS_FAST: unknown cs-fast variant 'no-such-variant'",
    );
    assert!(line.contains(named.name), "{line}");
    assert_eq!(out.status.code(), Some(2));
}

/// `RENDERMM_FRAG_MRT` picks frag-mrt's shape for `multiply` and `model`; the report names the
/// shape and says frag-mrt-f16 read f16 inputs into f32 sums.
#[test]
fn frag_mrt_knob_reaches_the_run_and_the_model_and_the_report_names_the_formats() {
    let named = frag_mrt::Shape::parse("4x4,unroll=8").unwrap();
    let args = [
        "multiply",
        "--method",
        "frag-mrt-f16",
        "--random",
        "24x40x16",
        "--check",
        "--json",
    ];
    for (env, shape) in [
        (vec![], frag_mrt::Shape::DEFAULT),
        (vec![("RENDERMM_FRAG_MRT", "4x4,unroll=8")], named),
    ] {
        let r = json(&rendermm_with(&env, &args));
        assert_eq!(r["variant"], shape.name(), "{env:?}");
        assert_eq!(
            (r["inputs"].as_str(), r["sums"].as_str()),
            (Some("f16"), Some("f32"))
        );
        // The mode field is kept as it was: frag-mrt-f16 takes no --precision.
        assert_eq!(r["precision"], "f32");
        assert_eq!(r["check_passed"], true);
    }
    let model_args = [
        "model", "--method", "frag-mrt", "--m", "1024", "--k", "1024", "--n", "1024", "--b",
        "1024", "--json",
    ];
    let bytes =
        |env: &[(&str, &str)]| json(&rendermm_with(env, &model_args))["total_bytes"].as_u64();
    let want = |shape| {
        let kernels = Kernels {
            frag_mrt: Some(shape),
            ..Default::default()
        };
        rendermm::model::model_with(Method::FragMrt, (1024, 1024, 1024), 1024, &kernels)
            .map(|md| md.total_bytes as u64)
    };
    assert_ne!(want(named), want(frag_mrt::Shape::DEFAULT));
    assert_eq!(bytes(&[]), want(frag_mrt::Shape::DEFAULT));
    assert_eq!(bytes(&[("RENDERMM_FRAG_MRT", "4x4,unroll=8")]), want(named));
    let out = rendermm_with(&[("RENDERMM_FRAG_MRT", "3x4")], &args);
    common::assert_clean_error(&out, "RENDERMM_FRAG_MRT:");
    assert_eq!(out.status.code(), Some(2));
}

/// `RENDERMM_MEM_BUDGET` sets the budget where `--mem-budget` does not, and the tiling names
/// where its budget came from; a bad value is one line.
#[test]
fn mem_budget_knob_sets_the_budget_unless_the_flag_does() {
    let args = [
        "multiply",
        "--method",
        "hall-blocked",
        "--random",
        "64x64x64",
        "--check",
        "--json",
    ];
    let r = json(&rendermm_with(&[("RENDERMM_MEM_BUDGET", "16KiB")], &args));
    assert_eq!(r["tiling"]["budget_source"], "RENDERMM_MEM_BUDGET=16KiB");
    assert_eq!(r["tiling"]["budget_bytes"], 16 * 1024);
    assert_eq!(r["check_passed"], true);
    let mut flagged = args.to_vec();
    flagged.extend(["--mem-budget", "20KiB"]);
    let r = json(&rendermm_with(
        &[("RENDERMM_MEM_BUDGET", "16KiB")],
        &flagged,
    ));
    assert_eq!(r["tiling"]["budget_bytes"], 20 * 1024);
    assert_eq!(r["tiling"]["budget_source"], "--mem-budget 20 KiB");
    let out = rendermm_with(&[("RENDERMM_MEM_BUDGET", "lots")], &args);
    common::assert_clean_error(&out, "memory size 'lots'");
    assert_eq!(out.status.code(), Some(2));
}

/// The tour's row of a method that handed the product on names the kernel that ran.
#[test]
fn tour_row_names_the_kernel_that_ran() {
    let dir = std::env::temp_dir().join(format!("rendermm-layers-tour-{}", std::process::id()));
    let out = rendermm_with(
        &[],
        &[
            "tour",
            "--method",
            "cannon",
            "--size",
            "100x100x100",
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.starts_with("cannon"))
        .unwrap_or_else(|| panic!("no cannon row: {stdout}"));
    assert!(row.starts_with("cannon (ran cannon-tiled)"), "{row}");
    assert!(row.contains(" ok "), "{row}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every line of code (comments left out) in the files under `src/<dir>` that names one of
/// `needles`, as `path:line: text`.
fn uses_of(dir: &str, needles: &[&str]) -> Vec<String> {
    let files = sources(&root().join("src").join(dir));
    assert!(!files.is_empty(), "src/{dir} holds no source file");
    let mut found = vec![];
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, line) in text.lines().enumerate() {
            if needles.iter().any(|n| code(line).contains(n)) {
                found.push(format!("{}:{}: {}", rel(&p), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_drawing_layer_imports_nothing_built_on_products() {
    // draw/ sits below bench, reach, demo's runs, report and figures: they all draw through it.
    let up = [
        "crate::bench",
        "crate::reach",
        "crate::report",
        "crate::figures",
        "crate::model",
        "crate::plan",
    ];
    let found = uses_of("draw", &up);
    assert!(
        found.is_empty(),
        "draw/ imports upward:\n{}",
        found.join("\n")
    );
}

#[test]
fn bench_reach_and_demo_draw_through_draw_not_through_report_or_figures() {
    // Only the report of a run (`Report`) is theirs to use from report/; the figures sit above.
    for dir in ["bench", "reach", "demo"] {
        let found: Vec<String> = uses_of(dir, &["crate::report", "crate::figures"])
            .into_iter()
            .filter(|l| !l.contains("crate::report::Report;"))
            .collect();
        assert!(
            found.is_empty(),
            "src/{dir} imports sideways or upward:\n{}",
            found.join("\n")
        );
    }
}

#[test]
fn no_method_borrows_the_u8_pass_the_f16_range_or_the_hall_engine_from_another_method() {
    // The shared 8-bit pass pieces live in methods/u8_pass.rs, the f16 range in precision.rs,
    // the engine and packed layout both Hall methods run on in methods/hall_common.rs.
    let mut found = vec![];
    for (owner, needles) in [
        (
            "larsen_mcallister.rs",
            ["super::larsen_mcallister::", "methods::larsen_mcallister::"],
        ),
        ("coop.rs", ["super::coop::", "methods::coop::"]),
        (
            "hall_blocked.rs",
            ["super::hall_blocked::", "methods::hall_blocked::"],
        ),
        (
            "hall_packed.rs",
            ["super::hall_packed::", "methods::hall_packed::"],
        ),
    ] {
        found.extend(
            uses_of("methods", &needles)
                .into_iter()
                .filter(|l| !l.starts_with(&format!("src/methods/{owner}:"))),
        );
    }
    assert!(
        found.is_empty(),
        "methods borrow another method's helpers:\n{}",
        found.join("\n")
    );
}

/// The sibling modules file `text` (in a folder whose modules are `siblings`) names through
/// `super::NAME`, `super::{..}` or `crate::FOLDER::NAME`, outside comments.
fn sibling_imports(text: &str, folder: &str, siblings: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for line in text.lines().map(code) {
        for prefix in ["super::".to_string(), format!("crate::{folder}::")] {
            for (at, _) in line.match_indices(&prefix) {
                let rest = &line[at + prefix.len()..];
                let names: Vec<String> = match rest.strip_prefix('{') {
                    Some(list) => list
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .split(',')
                        .map(|n| ident(n.trim()))
                        .collect(),
                    None => vec![ident(rest)],
                };
                for n in names {
                    if siblings.contains(&n) && !out.contains(&n) {
                        out.push(n);
                    }
                }
            }
        }
    }
    out
}

/// The import graph of the folder `src/<folder>` whose modules are `modules` (name, file):
/// each module with the siblings it imports.
fn import_graph(folder: &str, modules: &[(String, PathBuf)]) -> Vec<(String, Vec<String>)> {
    let names: Vec<String> = modules.iter().map(|(m, _)| m.clone()).collect();
    modules
        .iter()
        .filter_map(|(m, p)| {
            let text = std::fs::read_to_string(p).ok()?;
            let mut to = sibling_imports(&text, &folder.replace('/', "::"), &names);
            to.retain(|t| t != m);
            Some((m.clone(), to))
        })
        .collect()
}

/// A circle among `graph`'s modules (module → the siblings it imports), if there is one.
fn a_circle(graph: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            return Some(path[i..].to_vec());
        }
        if done.iter().any(|d| d == m) {
            return None;
        }
        path.push(m.to_string());
        let next = graph.iter().find(|(n, _)| n == m).map(|(_, e)| e.clone());
        for to in next.unwrap_or_default() {
            if let Some(c) = visit(&to, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(m.to_string());
        None
    }
    let mut done = vec![];
    graph
        .iter()
        .find_map(|(m, _)| visit(m, graph, &mut vec![], &mut done))
}

/// Within each folder of the library the modules import one way: no file reaches, through its
/// siblings, back to itself (the demos' layout and scene, the variant names and the methods
/// that have variants once did, and the harness's buffers, staging, textures and readback).
#[test]
fn no_folder_of_the_library_has_an_import_circle() {
    let mut folders = vec![root().join("src")];
    let mut circles = vec![];
    while let Some(dir) = folders.pop() {
        let folder = rel(&dir)
            .trim_start_matches("src")
            .trim_start_matches('/')
            .to_string();
        let mut modules: Vec<(String, PathBuf)> = vec![];
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let stem = p.file_stem().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                folders.push(p.clone());
                modules.push((stem.clone(), p.join("mod.rs")));
                // A folder module with a file beside it (`coop.rs` + `coop/`): the file.
            } else if p.extension().is_some_and(|x| x == "rs")
                && !["mod", "lib", "main", "tests"].contains(&stem.as_str())
            {
                modules.retain(|(m, _)| m != &stem);
                modules.push((stem, p));
            }
        }
        if folder.is_empty() {
            continue;
        }
        let graph = import_graph(&folder, &modules);
        if let Some(c) = a_circle(&graph) {
            circles.push(format!("src/{folder}: {}", c.join(" → ")));
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
}

/// The circle finder finds a planted circle and passes a one-way graph.
#[test]
fn the_circle_finder_sees_a_planted_circle() {
    let g = |edges: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        edges
            .iter()
            .map(|(m, to)| (m.to_string(), to.iter().map(|t| t.to_string()).collect()))
            .collect()
    };
    assert!(a_circle(&g(&[("a", &["b"]), ("b", &["c"]), ("c", &[])])).is_none());
    assert!(a_circle(&g(&[("a", &["b"]), ("b", &["c"]), ("c", &["a"])])).is_some());
    let names = ["layout".to_string(), "scene".to_string()];
    let found = sibling_imports("use super::{Kind, layout::View};\n", "demo", &names);
    assert_eq!(found, vec!["layout".to_string()]);
}

/// The harness's layers, lowest first, and the files of each: the device (what every product
/// shares on one device: its pipelines, its pools, the context, its waits, the loop-cap probe),
/// memory (host copies, uploads, buffers, textures, readback), execution (the runner, timing,
/// compute dispatch, the layout pass). A file imports from its own layer and those before it.
const GPU_LAYERS: &[(&str, &[&str])] = &[
    (
        "device",
        &[
            "cache", "pipeline", "loop_cap", "pools", "context", "wait", "probe",
        ],
    ),
    (
        "memory",
        &["host", "batch", "staging", "buffer", "texture", "readback"],
    ),
    (
        "execution",
        &["submit", "timer", "run", "compute", "layout"],
    ),
];

/// Every import in `graph` from a module of a later layer of `layers` than the importer's, as
/// `from (layer) → to (layer)`, and every module of `graph` that no layer names.
fn upward_imports(graph: &[(String, Vec<String>)], layers: &[(&str, &[&str])]) -> Vec<String> {
    let layer_of = |m: &str| layers.iter().position(|(_, files)| files.contains(&m));
    let mut found = vec![];
    for (from, to) in graph {
        let Some(at) = layer_of(from) else {
            found.push(format!("{from}: in no layer"));
            continue;
        };
        for t in to {
            match layer_of(t) {
                Some(up) if up > at => found.push(format!(
                    "{from} ({}) → {t} ({})",
                    layers[at].0, layers[up].0
                )),
                Some(_) => {}
                None => found.push(format!("{t}: in no layer")),
            }
        }
    }
    found
}

/// `src/gpu/` in layers: no file imports from a layer above its own, and every file is in one.
#[test]
fn the_gpu_layers_import_only_downward() {
    let dir = root().join("src/gpu");
    let mut modules = vec![];
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            modules.push((stem, p.join("mod.rs")));
        } else if p.extension().is_some_and(|x| x == "rs") && stem != "mod" {
            modules.push((stem, p));
        }
    }
    assert!(modules.len() > 10, "only {} gpu modules", modules.len());
    let found = upward_imports(&import_graph("gpu", &modules), GPU_LAYERS);
    assert!(
        found.is_empty(),
        "src/gpu/ imports upward (or a file is in no layer of GPU_LAYERS):\n{}",
        found.join("\n")
    );
}

/// The layer check sees a planted upward import and a file left out of the table, and passes
/// imports within a layer and downward.
#[test]
fn the_layer_check_sees_a_planted_upward_import() {
    let layers: &[(&str, &[&str])] = &[("low", &["a", "b"]), ("high", &["c"])];
    let g = |edges: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        edges
            .iter()
            .map(|(m, to)| (m.to_string(), to.iter().map(|t| t.to_string()).collect()))
            .collect()
    };
    assert!(upward_imports(&g(&[("a", &["b"]), ("c", &["a", "b"])]), layers).is_empty());
    assert_eq!(
        upward_imports(&g(&[("b", &["c"])]), layers),
        vec!["b (low) → c (high)".to_string()]
    );
    assert_eq!(upward_imports(&g(&[("d", &[])]), layers).len(), 1);
}

/// Every line of library code (comments left out) outside `src/gpu/` that names one of
/// `needles`, as `path:line: text`; `under` narrows the scan to one folder of `src/`.
fn outside_gpu_naming(under: &str, needles: &[&str]) -> Vec<String> {
    library_files()
        .into_iter()
        .filter(|(p, _)| !p.starts_with("src/gpu/") && p.starts_with(&format!("src/{under}")))
        .flat_map(|(p, text)| {
            text.lines()
                .enumerate()
                .filter(|(_, l)| needles.iter().any(|n| code(l).contains(n)))
                .map(|(i, l)| format!("{p}:{}: {}", i + 1, l.trim()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// One door to the queue: every submission goes through the harness (the runner, the operands'
/// batch, or `gpu::submit`), so nothing above `src/gpu/` submits.
#[test]
fn nothing_outside_the_gpu_harness_submits() {
    let found = outside_gpu_naming("", &[".submit("]);
    assert!(
        found.is_empty(),
        "submissions outside src/gpu/ (submit through gpu::submit or the runner):\n{}",
        found.join("\n")
    );
}

/// Methods record; the runner waits. No file of `src/methods/` polls the device, maps a buffer,
/// blocks on a future, or runs its pieces of work one by one itself (the runner's
/// `run_in_turn_async` runs them in turn).
#[test]
fn no_method_waits_on_the_device() {
    let found = outside_gpu_naming(
        "methods/",
        &[
            ".poll(",
            ".wait()",
            "map_async",
            "block_on",
            "settle(",
            "map_read(",
            "run_async(",
        ],
    );
    assert!(
        found.is_empty(),
        "methods wait on the device (record into a Work and let the runner wait):\n{}",
        found.join("\n")
    );
}

/// Every `.expect(` and `.unwrap()` in library code outside its tests, as `path:line: text`:
/// test files (`tests.rs`, `*_tests.rs`, a `tests/` folder) are left out, and a file's code
/// from its first `#[cfg(test)]` on.
fn panics_in_library_code(files: &[(String, String)]) -> Vec<String> {
    let mut found = vec![];
    for (path, text) in files {
        let name = path.rsplit('/').next().unwrap_or("");
        if name == "tests.rs" || name.ends_with("_tests.rs") || path.contains("/tests/") {
            continue;
        }
        for (i, line) in text.lines().enumerate() {
            if line.trim() == "#[cfg(test)]" {
                break;
            }
            let c = code(line);
            if c.contains(".expect(") || c.contains(".unwrap()") {
                found.push(format!("{path}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    found
}

/// No request reaches a panic: the library's internal invariants are `Error::Internal`, not
/// `.expect()` or `.unwrap()`.
#[test]
fn library_code_neither_expects_nor_unwraps() {
    let found = panics_in_library_code(&library_files());
    assert!(
        found.is_empty(),
        "panics in library code (return Error::Internal instead):\n{}",
        found.join("\n")
    );
    // The scan sees one, and leaves tests alone.
    let file = |path: &str, text: &str| vec![(path.to_string(), text.to_string())];
    let planted = "let f = parse(x).expect(\"parses\");";
    assert_eq!(
        panics_in_library_code(&file("src/draw/font.rs", planted)).len(),
        1
    );
    assert!(panics_in_library_code(&file("src/methods/coop/tests.rs", planted)).is_empty());
    assert!(
        panics_in_library_code(&file(
            "src/draw/font.rs",
            &format!("#[cfg(test)]\n{planted}")
        ))
        .is_empty()
    );
}
