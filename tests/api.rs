//! The library as a user sees it: the crate root's items only (the API), every method on an
//! awkward shape through the one entry point, each product judged by the public judge against
//! the f64 product on the CPU.

mod common;

use rendermm::report::judge;
use rendermm::{Error, Matrix, Method, Request, multiply};

/// The crate root's public items without the `internals` feature: what `cargo doc` lists.
const ROOT: &[&str] = &[
    "Error",
    "GpuContext",
    "Matrix",
    "Method",
    "Options",
    "Outcome",
    "Request",
    "demo",
    "figures",
    "io",
    "multiply",
    "report",
];

/// The public items `src/lib.rs` declares at the root without the `internals` feature: its
/// `pub use` re-exports, its `pub mod`s and the modules of which the API shows a part
/// (`facade!`); items hidden from the docs (`#[doc(hidden)]`, the binary's `run_cli`) left out.
fn root_items(lib: &str) -> Vec<String> {
    let mut items = vec![];
    let mut hidden = false;
    let mut in_facade = false;
    for line in lib.lines().map(str::trim) {
        if line.starts_with("//") {
            continue;
        }
        if line.starts_with("#[doc(hidden)]") {
            hidden = true;
            continue;
        }
        if line.starts_with("#[") {
            continue;
        }
        match line {
            "facade! {" => in_facade = true,
            "}" => in_facade = false,
            _ => {}
        }
        let taken = std::mem::replace(&mut hidden, false);
        // The macros' own bodies (`pub mod $name`) declare nothing by themselves.
        if line.contains('$') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("pub use ") {
            if taken {
                continue;
            }
            let list = match (rest.find('{'), rest.rfind('}')) {
                (Some(open), Some(close)) => rest[open + 1..close].to_string(),
                _ => rest.rsplit("::").next().unwrap_or(rest).to_string(),
            };
            items.extend(
                list.trim_end_matches(';')
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from),
            );
        } else if let Some(rest) = line.strip_prefix("pub mod ") {
            if !taken {
                items.push(rest.trim_end_matches([';', '{', ' ']).to_string());
            }
        } else if in_facade && let Some(rest) = line.strip_prefix("mod ") {
            items.push(rest.split_whitespace().next().unwrap_or("").to_string());
        }
    }
    items.sort();
    items
}

/// The root is small — what a user of the library needs and nothing else (about a dozen items,
/// as `cargo doc --no-deps` lists them) — and `ROOT`, which the path check below holds this
/// file to, is that root.
#[test]
fn the_root_holds_a_dozen_items_and_root_lists_them() {
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
        .unwrap_or_else(|e| panic!("read src/lib.rs: {e}"));
    let items = root_items(&lib);
    let mut listed: Vec<String> = ROOT.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(items, listed, "src/lib.rs's public root against ROOT");
    assert!(
        items.len() <= 12,
        "{} items at the root: {items:?}",
        items.len()
    );
}

#[test]
fn every_method_multiplies_through_the_api_and_passes_the_judge() {
    let ctx = common::ctx();
    // m ≠ k ≠ n, none a multiple of 4, 8 or 64.
    let (m, k, n) = (65, 100, 37);
    let a = Matrix::random(m, k, 11, -1.0, 1.0);
    let b = Matrix::random(k, n, 12, -1.0, 1.0);
    let mut judged = 0;
    for &method in Method::ALL {
        let out = match multiply(Some(ctx), Request::new(method, &a, &b)) {
            Ok(out) => out,
            // The adapter or the host refuses the method: a feature it lacks, no GL context.
            Err(e @ (Error::MissingFeature { .. } | Error::HostGl { .. })) => {
                common::skip(&format!("{method}: {e}"));
                continue;
            }
            Err(e) => panic!("{method}: {e}"),
        };
        assert_eq!(out.c.shape(), (m, n), "{method}: the shape of C");
        let verdict = judge(out.arith, &a, &b, &out.c);
        assert!(verdict.passed, "{method}: {}", verdict.headline());
        judged += 1;
    }
    assert!(judged > 0, "no method ran");
}

/// Every path into the library that this file (and the helpers it includes) names starts at one
/// of the root's items, so the test cannot reach the internals that the `internals` feature,
/// on for the repository's tests, opens.
#[test]
fn this_file_names_the_root_only() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut outside = vec![];
    for file in ["tests/api.rs", "tests/common/mod.rs"] {
        let text = std::fs::read_to_string(format!("{root}/{file}")).expect("read the test");
        for (at, _) in text.match_indices("rendermm::") {
            let rest = &text[at + "rendermm::".len()..];
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect(),
                None => {
                    let end = rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                        .unwrap_or(rest.len());
                    vec![&rest[..end]]
                }
            };
            for name in names {
                let first: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() && !ROOT.contains(&first.as_str()) {
                    outside.push(format!("{file}: {name}"));
                }
            }
        }
    }
    assert!(
        outside.is_empty(),
        "paths past the API (the root's items are {ROOT:?}):\n{}",
        outside.join("\n")
    );
}
