//! `rendermm methods`: every method with its era, source and one line, read from the table of
//! methods (`crate::methods::TABLE`), as text or JSON.

use crate::methods::Method;
use anyhow::Result;
use serde::Serialize;

/// One method as `methods --json` prints it.
#[derive(Serialize)]
struct Row {
    name: &'static str,
    era: crate::methods::Era,
    era_name: &'static str,
    source: &'static str,
    summary: &'static str,
    file: &'static str,
    runs_on: &'static str,
    takes: crate::methods::Takes,
}

fn row(method: Method) -> Row {
    let i = method.info();
    Row {
        name: i.name,
        era: i.era,
        era_name: i.era.name(),
        source: i.source,
        summary: i.summary,
        file: i.file,
        runs_on: if method.is_host_api() {
            "gpu (opengl compatibility profile)"
        } else if method.is_gpu() {
            "gpu"
        } else {
            "cpu"
        },
        takes: i.takes,
    }
}

/// Options a method reads besides A and B, as the flags that set them.
fn takes_flags(t: &crate::methods::Takes) -> String {
    let flags: Vec<&str> = [
        (t.precision, "--precision"),
        (t.block, "--block"),
        (t.accumulate, "--accumulate"),
        (t.channels, "--channels 4"),
    ]
    .into_iter()
    .filter_map(|(on, flag)| on.then_some(flag))
    .collect();
    flags.join(", ")
}

/// Print every method, in the tour's order: grouped by era, each with its source and one line.
pub fn run(json: bool) -> Result<()> {
    let rows: Vec<Row> = Method::ALL.iter().map(|&m| row(m)).collect();
    if json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(());
    }
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0);
    let mut era = None;
    for r in &rows {
        if era != Some(r.era) {
            if era.is_some() {
                println!();
            }
            println!("{}", r.era_name);
            era = Some(r.era);
        }
        println!("  {:<width$}  {}", r.name, r.summary);
        let takes = takes_flags(&r.takes);
        let takes = if takes.is_empty() {
            String::new()
        } else {
            format!("; takes {takes}")
        };
        println!("  {:<width$}  from {}{takes}", "", r.source);
    }
    println!(
        "\nPick one with --method NAME (multiply, tour, tune, model, reach, bench --methods)."
    );
    Ok(())
}
