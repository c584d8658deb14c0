//! The library as a user sees it: the crate root's items only (the API), every method on an
//! awkward shape through the one entry point, each product judged by the public judge against
//! the f64 product on the CPU.

mod common;

use rendermm::{Error, Matrix, Method, Request, judge, multiply};

/// The crate root's public items without the `internals` feature: what `cargo doc` lists.
const ROOT: &[&str] = &[
    "Error",
    "GpuContext",
    "Matrix",
    "Method",
    "Options",
    "Outcome",
    "Report",
    "Request",
    "Result",
    "Verdict",
    "demo",
    "figures",
    "io",
    "judge",
    "multiply",
];

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
