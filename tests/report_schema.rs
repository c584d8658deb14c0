//! The report's JSON (`report::Report`, what `multiply --json` prints and Python's result JSON
//! is) against its schema, `docs/report.schema.json`: every field the binary writes is one the
//! schema describes, of the type it says, on small products of every kind — f32, u8 with its
//! widths, four channels, a Hall block size, a tiled product, a run not checked — and every
//! field the schema names has a description.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `rendermm multiply --json` with `args`: the report it printed.
fn report(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_rendermm"))
        .arg("multiply")
        .args(args)
        .arg("--json")
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap_or_else(|e| panic!("run rendermm: {e}"));
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

#[test]
fn multiply_json_follows_the_report_schema_for_every_kind_of_run() {
    let validator = jsonschema::draft202012::new(&schema())
        .unwrap_or_else(|e| panic!("docs/report.schema.json is not a valid schema: {e}"));
    let runs: [(&[&str], &[&str]); 6] = [
        (
            &["--random", "5x7x3", "--method", "cs-naive", "--check"],
            &["checks"],
        ),
        (
            &[
                "--random",
                "8x9x6",
                "--method",
                "lm",
                "--precision",
                "u8",
                "--check",
            ],
            &[
                "u8_product_bits",
                "u8_sum_bits",
                "scale_by_depth",
                "saturated",
                "gbops",
            ],
        ),
        (
            &[
                "--random",
                "4x6x5x4",
                "--method",
                "lm",
                "--channels",
                "4",
                "--check",
            ],
            &["checks"],
        ),
        (
            &[
                "--random",
                "9x10x7",
                "--method",
                "hall-blocked",
                "--b",
                "3",
                "--check",
            ],
            &["block", "model_bytes"],
        ),
        (
            &[
                "--random",
                "40x300x30",
                "--method",
                "cs-naive",
                "--mem-budget",
                "48KiB",
                "--check",
            ],
            &["tiling"],
        ),
        (&["--random", "4x4x4", "--method", "cpu-naive"], &[]),
    ];
    for (args, fields) in runs {
        let json = report(args);
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{args:?}: {errors:#?}\n{json:#}");
        for field in fields {
            assert!(json.get(field).is_some(), "{args:?}: no {field}: {json:#}");
        }
    }
    let four = report(&[
        "--random",
        "4x6x5x4",
        "--method",
        "lm",
        "--channels",
        "4",
        "--check",
    ]);
    assert_eq!(four["checks"].as_array().map(Vec::len), Some(4), "{four:#}");
    let hall = report(&["--random", "9x10x7", "--method", "hall-blocked", "--b", "3"]);
    assert_eq!(hall["block"], 3, "{hall:#}");
}

/// Every property the schema names, at any depth, says what it is.
#[test]
fn every_field_of_the_schema_has_a_description() {
    fn walk(v: &Value, at: &str, missing: &mut Vec<String>) {
        if let Some(props) = v.get("properties").and_then(Value::as_object) {
            for (name, p) in props {
                let here = format!("{at}/{name}");
                if p.get("description")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    missing.push(here.clone());
                }
                walk(p, &here, missing);
            }
        }
        if let Some(defs) = v.get("$defs").and_then(Value::as_object) {
            for (name, d) in defs {
                walk(d, &format!("{at}/$defs/{name}"), missing);
            }
        }
    }
    let mut missing = vec![];
    walk(&schema(), "", &mut missing);
    assert!(missing.is_empty(), "no description: {missing:?}");
}
