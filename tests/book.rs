//! The course as a book (docs/, built by mdBook into the site): the rules its chapters keep, read
//! from the Markdown sources. A chapter that breaks one fails here with every violation listed in
//! one message, each naming the file and line, so the whole list can be fixed in one pass.
//!
//! - an era chapter (the introduction and the seven chapters in the order of history) holds at
//!   most 2,500 words of prose;
//! - a measured number on a page is tagged with the recorded run it comes from
//!   (`<span class="m" data-src="perf/h100/bench.csv">1,150 GFLOP/s</span>`) and that file holds
//!   it at the digits shown; an era chapter's prose has no untagged measurement (a number with a
//!   unit of time, rate or ratio) outside a sentence citing a paper (`§`, `Table`) or a peak;
//! - every exercise answer with a `<!-- check: ARGS => POINTER OP VALUE -->` line in answers.md
//!   is what the tool prints today;
//! - every relative link and image of docs/*.md resolves inside docs/ (a chapter the book
//!   renders, a file it copies, a heading of that chapter), and nothing links outside the site
//!   but `https://`.
//!
//! The conventions are the book's (docs/web.md names them for the page's side).

#[path = "book/mechanism.rs"]
mod mechanism;

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The introduction and the era chapters, in the book's order.
const ERA_CHAPTERS: [&str; 8] = [
    "README.md",
    "larsen-mcallister.md",
    "hall-carr-hart.md",
    "bandwidth.md",
    "compute-era.md",
    "cannon-dns.md",
    "tensor-cores.md",
    "frag-mrt.md",
];

/// Words of prose an era chapter may hold; engineering detail belongs in the appendices.
const WORD_BUDGET: usize = 2500;

/// Units that make a number a measurement in an era chapter's prose.
const UNITS: [&str; 10] = [
    "GFLOP/s", "TFLOP/s", "GB/s", "MB/s", "TB/s", "ms", "µs", "us", "s", "×",
];

/// Words whose presence in a sentence says its numbers are a paper's or a datasheet's.
const CITED: [&str; 4] = ["§", "Table", "peak", "datasheet"];

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// docs/*.md (not the generated tables under docs/img/), sorted.
fn markdown_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(docs())
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    v.sort();
    v
}

fn fail_with(what: &str, violations: &[String]) {
    if !violations.is_empty() {
        panic!(
            "{} {what}:\n  {}",
            violations.len(),
            violations.join("\n  ")
        );
    }
}

// ---- reading Markdown ------------------------------------------------------------------------

/// One line of a chapter with what the book shows of it classified.
struct Line<'a> {
    no: usize,
    text: &'a str,
    /// Inside a fenced code block (the fences included).
    code: bool,
    /// A table row (starts with `|`).
    table: bool,
}

fn lines(src: &str) -> Vec<Line<'_>> {
    let mut out = vec![];
    let mut fence: Option<&str> = None;
    for (i, text) in src.lines().enumerate() {
        let t = text.trim_start();
        let opens = ["```", "~~~"].into_iter().find(|f| t.starts_with(f));
        let code = match (fence, opens) {
            (None, Some(f)) => {
                fence = Some(f);
                true
            }
            (Some(f), Some(g)) if f == g && t.trim_end().trim_start_matches(g).is_empty() => {
                fence = None;
                true
            }
            (Some(_), _) => true,
            (None, None) => false,
        };
        out.push(Line {
            no: i + 1,
            text,
            code,
            table: !code && t.starts_with('|'),
        });
    }
    out
}

/// `s` with every `<!-- ... -->` removed (comments may span lines; newlines are kept so line
/// numbers still count).
fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("<!--") {
        out.push_str(&rest[..i]);
        match rest[i..].find("-->") {
            Some(j) => {
                out.extend(rest[i..i + j].chars().filter(|&c| c == '\n'));
                rest = &rest[i + j + 3..];
            }
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `s` with each piece between `open` and the next `close` replaced by `with` (inclusive).
fn replace_between(s: &str, open: &str, close: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(open) {
        out.push_str(&rest[..i]);
        match rest[i + open.len()..].find(close) {
            Some(j) => {
                out.push_str(with);
                rest = &rest[i + open.len() + j + close.len()..];
            }
            None => {
                out.push_str(&rest[i..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Inline code spans (`...`) replaced by a space.
fn strip_inline_code(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_code = false;
    for c in s.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if !in_code {
            out.push(c);
        }
    }
    out
}

/// HTML tags replaced by a space.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        if !in_tag
            && c == '<'
            && b.get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == b'/')
        {
            in_tag = true;
        } else if in_tag && c == '>' {
            in_tag = false;
            out.push(' ');
        } else if !in_tag {
            out.push(c);
        }
    }
    out
}

/// Markdown link targets `](...)` dropped: the text of a link is prose, its address is not.
fn strip_link_targets(s: &str) -> String {
    replace_between(s, "](", ")", "]")
}

/// The prose lines of a chapter as the budget counts them: outside fenced code, tables, HTML
/// comments and tags, and image lines.
fn prose_lines(src: &str) -> Vec<(usize, String)> {
    let src = strip_comments(src);
    lines(&src)
        .into_iter()
        .filter(|l| !l.code && !l.table && !l.text.trim_start().starts_with("!["))
        .map(|l| (l.no, strip_tags(&strip_link_targets(l.text))))
        .collect()
}

fn word_count(src: &str) -> usize {
    prose_lines(src)
        .iter()
        .flat_map(|(_, l)| l.split_whitespace())
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

// ---- the word budget -------------------------------------------------------------------------

#[test]
fn era_chapters_keep_to_the_word_budget() {
    let mut violations = vec![];
    for name in ERA_CHAPTERS {
        let path = docs().join(name);
        if !path.exists() {
            violations.push(format!("docs/{name}: the era chapter is missing"));
            continue;
        }
        let words = word_count(&read(&path));
        if words > WORD_BUDGET {
            violations.push(format!(
                "docs/{name}: {words} words of prose, past the budget of {WORD_BUDGET} (move engineering detail to performance.md and link it)"
            ));
        }
    }
    fail_with("era chapters past the word budget", &violations);
}

#[test]
fn word_count_skips_code_tables_comments_tags_and_images() {
    let src = "# Title here\n\nOne two three [link](x.md).\n\n```\nnot counted at all\n```\n\
               | a | b |\n|---|---|\n<!-- hidden\nwords -->\n![alt](img/x.png)\n\
               <span class=\"m\" data-src=\"f\">4 ms</span> — end\n";
    // Title here / One two three link / 4 ms end: `#` and the dash have no letter or digit.
    assert_eq!(word_count(src), 9);
}

// ---- measured numbers ------------------------------------------------------------------------

/// What may separate thousands in a written number: a comma, a space, a no-break or thin space.
const THOUSANDS: [&str; 5] = [",", " ", "\u{a0}", "\u{2009}", "\u{202f}"];

/// A number as written: its digits without thousands separators, and its decimals.
#[derive(Debug, Clone, PartialEq)]
struct Written {
    text: String,
    decimals: usize,
    value: f64,
}

/// The numbers in `s`, as written (`1,150`, `2.9`, `-3`); digits inside a word (`H100`, `f16`)
/// are not numbers.
fn numbers_in(s: &str) -> Vec<(usize, usize, Written)> {
    let b = s.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        let starts = b[i].is_ascii_digit()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i;
        let mut text = String::new();
        let mut decimals = None;
        let mut grouped = false;
        while j < b.len() {
            let c = b[j];
            if c.is_ascii_digit() {
                text.push(c as char);
                if let Some(d) = decimals.as_mut() {
                    *d += 1;
                }
                j += 1;
            } else if let Some(sep) = THOUSANDS.iter().find(|sep| s[j..].starts_with(**sep)) {
                // A thousands separator: after one to three digits or another group, before
                // exactly three digits.
                let group = b.get(j + sep.len()..j + sep.len() + 3);
                let first_ok = grouped || (1..=3).contains(&text.len());
                if decimals.is_none()
                    && first_ok
                    && group.is_some_and(|g| g.iter().all(u8::is_ascii_digit))
                    && !b.get(j + sep.len() + 3).is_some_and(u8::is_ascii_digit)
                {
                    grouped = true;
                    j += sep.len();
                } else {
                    break;
                }
            } else if c == b'.'
                && decimals.is_none()
                && b.get(j + 1).is_some_and(u8::is_ascii_digit)
            {
                text.push('.');
                decimals = Some(0);
                j += 1;
            } else {
                break;
            }
        }
        let neg = start > 0 && (b[start - 1] == b'-' || s[..start].ends_with('−'));
        let text = if neg { format!("-{text}") } else { text };
        if let Ok(value) = text.parse::<f64>() {
            out.push((
                start,
                j,
                Written {
                    text,
                    decimals: decimals.unwrap_or(0),
                    value,
                },
            ));
        }
        i = j;
    }
    out
}

/// Every number a recorded run's file holds: plain (`1150.3`, `1.2e3`) and, outside CSV and
/// JSON (where a comma separates fields), with thousands separators (`1,150`).
fn file_numbers(path: &Path) -> Vec<f64> {
    let text = read(path);
    let mut out = vec![];
    let mut cur = String::new();
    let flush = |cur: &mut String, out: &mut Vec<f64>| {
        let t = cur.trim_end_matches(['e', 'E', '+', '-', '.']);
        if let Ok(v) = t.parse::<f64>() {
            out.push(v);
        }
        cur.clear();
    };
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let prev_word = i > 0 && (chars[i - 1].is_alphabetic() || chars[i - 1] == '_');
        let continues = !cur.is_empty()
            && (c.is_ascii_digit()
                || c == '.'
                || ((c == 'e' || c == 'E') && !cur.contains(['e', 'E']))
                || ((c == '+' || c == '-') && cur.ends_with(['e', 'E'])));
        if continues {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                flush(&mut cur, &mut out);
            }
            if c.is_ascii_digit() && !prev_word {
                if i > 0 && chars[i - 1] == '-' {
                    cur.push('-');
                }
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut out);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext != "csv" && ext != "json" {
        out.extend(numbers_in(&text).into_iter().map(|(_, _, w)| w.value));
    }
    out
}

/// Whether a file value, rounded to the decimals shown, is the number shown.
fn shows(file_value: f64, shown: &Written) -> bool {
    let rounded = format!("{:.*}", shown.decimals, file_value);
    rounded.parse::<f64>().ok() == Some(shown.value)
        || format!("{:.*}", shown.decimals, file_value.abs())
            .parse::<f64>()
            .ok()
            == Some(shown.value.abs())
            && file_value.signum() == shown.value.signum()
}

/// `<span class="m" data-src="...">...</span>`: (byte offset, data-src, inner text).
fn tagged_spans(src: &str) -> Vec<(usize, String, String)> {
    let mut out = vec![];
    let mut from = 0;
    while let Some(i) = src[from..].find("<span class=\"m\"") {
        let at = from + i;
        let Some(close_tag) = src[at..].find('>') else {
            break;
        };
        let tag = &src[at..at + close_tag];
        let data_src = tag
            .split("data-src=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .unwrap_or("")
            .to_string();
        let inner_start = at + close_tag + 1;
        let Some(end) = src[inner_start..].find("</span>") else {
            break;
        };
        out.push((
            at,
            data_src,
            src[inner_start..inner_start + end].to_string(),
        ));
        from = inner_start + end;
    }
    out
}

fn line_of(src: &str, offset: usize) -> usize {
    src[..offset].matches('\n').count() + 1
}

/// Violations of the tagged-number rule in one file: a span without a readable data-src, or
/// whose numbers its file does not hold at the digits shown.
fn tagged_number_violations(
    name: &str,
    src: &str,
    cache: &mut HashMap<PathBuf, Vec<f64>>,
) -> Vec<String> {
    let mut v = vec![];
    for (at, data_src, inner) in tagged_spans(src) {
        let line = line_of(src, at);
        let path = docs().join(&data_src);
        if data_src.is_empty() || !path.is_file() {
            v.push(format!(
                "docs/{name}:{line}: \"{inner}\" names data-src=\"{data_src}\", which is not a file under docs/"
            ));
            continue;
        }
        let values = cache
            .entry(path.clone())
            .or_insert_with(|| file_numbers(&path));
        let shown = numbers_in(&inner);
        if shown.is_empty() {
            v.push(format!(
                "docs/{name}:{line}: \"{inner}\" is tagged as measured but holds no number"
            ));
        }
        for (_, _, w) in shown {
            if !values.iter().any(|&f| shows(f, &w)) {
                v.push(format!(
                    "docs/{name}:{line}: \"{inner}\": {} is not in docs/{data_src} at {} decimal(s)",
                    w.text, w.decimals
                ));
            }
        }
    }
    v
}

/// The unit right after a number at byte `end` of `s` (after at most one space), if it is one of
/// UNITS and ends there. `×` counts as a ratio only on its number and with no digit or letter
/// after it (`3.2× faster`; `16×16` is a size, `2 × 214` a product).
fn unit_after(s: &str, end: usize) -> Option<&'static str> {
    let attached = &s[end..];
    let rest = attached
        .strip_prefix(' ')
        .or_else(|| attached.strip_prefix('\u{a0}'))
        .or_else(|| attached.strip_prefix('\u{2009}'))
        .or_else(|| attached.strip_prefix('\u{202f}'))
        .unwrap_or(attached);
    UNITS.into_iter().find(|u| {
        // A ratio's × sits on its number (`3.2×`); `2 × 214` is a product written out.
        let rest = if *u == "×" { attached } else { rest };
        rest.starts_with(u) && {
            let after = rest[u.len()..].chars().next();
            match after {
                None => true,
                // `16×16`, `128×(48 + 8)` and `2×b` are sizes; `3.2× faster`, `(3.2×)` ratios.
                Some(c) if *u == "×" => c.is_whitespace() || ",.;:)".contains(c),
                Some(c) => !(c.is_alphanumeric() || c == '/' || c == '_'),
            }
        }
    })
}

/// Sentences of a paragraph: split after `.`, `!` or `?` followed by white space.
fn sentences(paragraph: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut start = 0;
    let chars: Vec<(usize, char)> = paragraph.char_indices().collect();
    for w in chars.windows(2) {
        let ((i, c), (_, n)) = (w[0], w[1]);
        if matches!(c, '.' | '!' | '?') && n.is_whitespace() {
            out.push(&paragraph[start..i + 1]);
            start = i + 1;
        }
    }
    out.push(&paragraph[start..]);
    out
}

/// Untagged measurements in an era chapter's prose: (line, the number and unit, the sentence).
fn untagged_measurements(src: &str) -> Vec<(usize, String, String)> {
    let src = strip_comments(src);
    let src = replace_between(&src, "<span class=\"m\"", "</span>", " MEASURED ");
    // Paragraphs of prose lines (blank lines, headings, code and tables end one), with the line
    // each starts on.
    let mut paragraphs: Vec<(usize, String)> = vec![];
    let mut cur: Option<(usize, String)> = None;
    for l in lines(&src) {
        let t = l.text.trim();
        let prose = !l.code && !l.table && !t.is_empty() && !t.starts_with("![");
        let heading = t.starts_with('#');
        let item = t.starts_with("- ")
            || t.starts_with("* ")
            || t.split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if !prose || heading || item {
            if let Some(p) = cur.take() {
                paragraphs.push(p);
            }
        }
        if prose {
            let text = strip_tags(&strip_link_targets(&strip_inline_code(l.text)));
            if heading {
                paragraphs.push((l.no, text));
            } else {
                let p = cur.get_or_insert((l.no, String::new()));
                p.1.push(' ');
                p.1.push_str(&text);
            }
        }
    }
    if let Some(p) = cur.take() {
        paragraphs.push(p);
    }
    let mut out = vec![];
    for (line, p) in paragraphs {
        for s in sentences(&p) {
            if CITED.iter().any(|c| s.contains(c)) {
                continue;
            }
            for (start, end, _) in numbers_in(s) {
                if let Some(u) = unit_after(s, end) {
                    let shown = format!("{} {u}", &s[start..end]);
                    out.push((line, shown, s.trim().chars().take(100).collect()));
                }
            }
        }
    }
    out
}

#[test]
fn measured_numbers_come_from_the_pinned_run() {
    let mut violations = vec![];
    let mut cache = HashMap::new();
    for path in markdown_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = read(&path);
        violations.extend(tagged_number_violations(&name, &src, &mut cache));
        if ERA_CHAPTERS.contains(&name.as_str()) {
            for (line, number, sentence) in untagged_measurements(&src) {
                violations.push(format!(
                    "docs/{name}:{line}: untagged measurement \"{number}\" (tag it <span class=\"m\" data-src=\"perf/h100/...\">, or cite the paper's § or the peak): \"{sentence}\""
                ));
            }
        }
    }
    fail_with("measured numbers not tied to the pinned run", &violations);
}

#[test]
fn the_number_rules_catch_what_they_should() {
    let dir = std::env::temp_dir().join(format!("rendermm-book-numbers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("run.csv");
    std::fs::write(&csv, "method,gflops,ms\nlm,1150.4,2.874\nhall,1186.0,12\n").unwrap();
    let mut cache = HashMap::new();
    let rel = |p: &Path| {
        // data-src is relative to docs/; the temporary file is reached through ../ from there.
        let mut up = PathBuf::new();
        for _ in docs().components() {
            up.push("..");
        }
        up.join(p.strip_prefix("/").unwrap())
            .to_string_lossy()
            .to_string()
    };
    let good = format!(
        "<span class=\"m\" data-src=\"{0}\">1,150 GFLOP/s</span> and <span class=\"m\" data-src=\"{0}\">2.87 ms</span>",
        rel(&csv)
    );
    assert_eq!(
        tagged_number_violations("x.md", &good, &mut cache),
        Vec::<String>::new()
    );
    let bad = format!(
        "<span class=\"m\" data-src=\"{}\">1,187 GFLOP/s</span>",
        rel(&csv)
    );
    assert_eq!(tagged_number_violations("x.md", &bad, &mut cache).len(), 1);
    let missing = "<span class=\"m\" data-src=\"perf/none.csv\">3 ms</span>";
    assert_eq!(
        tagged_number_violations("x.md", missing, &mut cache).len(),
        1
    );
    std::fs::remove_dir_all(&dir).ok();

    let prose = "It ran in 2.9 ms on the H100. The paper measured 175 MB/s (§5.1).\n\n\
                 A 16×16 tile is 3.2× faster than the naive kernel, 128×(48 + 8).\n\n\
                 It reached 1 187 GFLOP/s. GFLOP/s = 2 × (texels per second).\n\n\
                 The peak is 989 TFLOP/s. <span class=\"m\" data-src=\"x\">4 ms</span> here.\n\n\
                 ```\ntime 5 ms\n```\n| 7 ms |\n";
    let found: Vec<String> = untagged_measurements(prose)
        .into_iter()
        .map(|(_, n, _)| n)
        .collect();
    assert_eq!(found, vec!["2.9 ms", "3.2 ×", "1 187 GFLOP/s"]);
}

// ---- exercises -------------------------------------------------------------------------------

/// One `<!-- check: ARGS => POINTER OP VALUE -->` of answers.md.
#[derive(Debug)]
struct Check {
    line: usize,
    args: Vec<String>,
    pointer: String,
    op: String,
    value: Value,
    text: String,
}

fn parse_checks(src: &str) -> Result<Vec<Check>, Vec<String>> {
    let mut checks = vec![];
    let mut errors = vec![];
    let mut from = 0;
    while let Some(i) = src[from..].find("<!-- check:") {
        let at = from + i;
        let line = line_of(src, at);
        let Some(end) = src[at..].find("-->") else {
            errors.push(format!(
                "answers.md:{line}: a check comment that never closes"
            ));
            break;
        };
        let body = src[at + "<!-- check:".len()..at + end].trim();
        from = at + end + 3;
        let text = body.to_string();
        let parsed = (|| {
            let (args, test) = body
                .split_once("=>")
                .ok_or("no `=>` between the command and the test")?;
            let test = test.trim();
            let (pointer, rest) = test
                .split_once(' ')
                .ok_or("expected POINTER OP VALUE after `=>`")?;
            let (op, value) = rest
                .trim()
                .split_once(' ')
                .ok_or("expected POINTER OP VALUE after `=>`")?;
            if !["==", "!=", "<", "<=", ">", ">=", "~="].contains(&op) {
                return Err(format!("unknown operator `{op}`"));
            }
            if !(pointer.is_empty() || pointer.starts_with('/')) {
                return Err(format!(
                    "`{pointer}` is not a JSON pointer (it starts with /)"
                ));
            }
            let value: Value = serde_json::from_str(value.trim())
                .map_err(|e| format!("value `{}` is not JSON: {e}", value.trim()))?;
            Ok(Check {
                line,
                args: args.split_whitespace().map(String::from).collect(),
                pointer: pointer.to_string(),
                op: op.to_string(),
                value,
                text: text.clone(),
            })
        })();
        match parsed {
            Ok(c) => checks.push(c),
            Err(e) => errors.push(format!("answers.md:{line}: `{text}`: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(checks)
    } else {
        Err(errors)
    }
}

/// Whether `got OP want` holds; numbers compare as numbers, anything else by equality only.
fn holds(got: &Value, op: &str, want: &Value) -> Result<bool, String> {
    if let (Some(g), Some(w)) = (got.as_f64(), want.as_f64()) {
        return Ok(match op {
            "==" => g == w,
            "!=" => g != w,
            "<" => g < w,
            "<=" => g <= w,
            ">" => g > w,
            ">=" => g >= w,
            "~=" => (g - w).abs() <= 0.01 * w.abs().max(g.abs()),
            _ => unreachable!(),
        });
    }
    match op {
        "==" => Ok(got == want),
        "!=" => Ok(got != want),
        _ => Err(format!(
            "`{op}` compares numbers, and {got} or {want} is not one"
        )),
    }
}

/// The JSON the command printed: all of stdout, or its last line that parses.
fn json_of(stdout: &str) -> Option<Value> {
    serde_json::from_str(stdout.trim()).ok().or_else(|| {
        stdout.lines().rev().find_map(|l| {
            serde_json::from_str::<Value>(l.trim())
                .ok()
                .filter(|v| v.is_object() || v.is_array())
        })
    })
}

/// Run one check with the tool; None when it holds, else one line saying why not.
fn run_check(c: &Check, exe: &str, scratch: &Path) -> Option<String> {
    let name = format!("answers.md:{} `{}`", c.line, c.text);
    let mut child = match Command::new(exe)
        .args(&c.args)
        .current_dir(scratch)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(ch) => ch,
        Err(e) => return Some(format!("{name}: could not start rendermm: {e}")),
    };
    let started = Instant::now();
    let limit = Duration::from_secs(120);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() > limit => {
                child.kill().ok();
                child.wait().ok();
                return Some(format!(
                    "{name}: still running after {} s (keep a check's command small)",
                    limit.as_secs()
                ));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Some(format!("{name}: {e}")),
        }
    }
    let out = child.wait_with_output().expect("the check's output");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Some(format!(
            "{name}: the command failed ({}): {why}",
            out.status
        ));
    }
    let Some(json) = json_of(&stdout) else {
        return Some(format!("{name}: the command printed no JSON (add --json)"));
    };
    let Some(got) = json.pointer(&c.pointer) else {
        return Some(format!("{name}: the output has nothing at {}", c.pointer));
    };
    match holds(got, &c.op, &c.value) {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "{name}: the tool gives {got}, not {} {}",
            c.op, c.value
        )),
        Err(e) => Some(format!("{name}: {e}")),
    }
}

#[test]
fn exercise_answers_are_what_the_tool_prints() {
    let src = read(&docs().join("answers.md"));
    let checks = match parse_checks(&src) {
        Ok(c) => c,
        Err(errors) => return fail_with("unreadable exercise checks", &errors),
    };
    if checks.is_empty() {
        panic!(
            "docs/answers.md has no `<!-- check: ARGS => POINTER OP VALUE -->` line: an answer with a definite value names the command that gives it"
        );
    }
    let scratch = std::env::temp_dir().join(format!("rendermm-book-checks-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("a scratch folder");
    // The commands name their input files as a reader types them at the repository's root
    // (docs/exercises/...); the scratch folder sees the same docs/, and anything a command
    // writes lands in the scratch folder, not in the repository.
    std::os::unix::fs::symlink(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs"),
        scratch.join("docs"),
    )
    .expect("docs/ linked into the scratch folder");
    let exe = env!("CARGO_BIN_EXE_rendermm");
    let violations: Vec<String> = checks
        .iter()
        .filter_map(|c| run_check(c, exe, &scratch))
        .collect();
    std::fs::remove_dir_all(&scratch).ok();
    fail_with("exercise answers the tool does not give", &violations);
}

#[test]
fn check_lines_parse_and_compare() {
    let src = "a\n<!-- check: multiply --json => /check/passed == true -->\n\
               <!-- check: x => /a/0 ~= 1.5 -->\n";
    let c = parse_checks(src).expect("two checks");
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].line, 2);
    assert_eq!(c[0].args, vec!["multiply", "--json"]);
    assert_eq!(c[0].pointer, "/check/passed");
    assert_eq!(c[1].value, serde_json::json!(1.5));
    assert!(parse_checks("<!-- check: x => /a =~ 1 -->").is_err());
    assert!(parse_checks("<!-- check: x /a == 1 -->").is_err());
    assert!(holds(&serde_json::json!(1.51), "~=", &serde_json::json!(1.5)).unwrap());
    assert!(!holds(&serde_json::json!(1.6), "~=", &serde_json::json!(1.5)).unwrap());
    assert!(holds(&serde_json::json!(0.0), "==", &serde_json::json!(0)).unwrap());
    assert!(holds(&serde_json::json!("lm"), "<", &serde_json::json!("x")).is_err());
}

// ---- links and images ------------------------------------------------------------------------

/// mdBook's anchor of a heading's plain text: letters, digits, `_` and `-` lowercased, white
/// space as `-`, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchor mdBook gives a heading: letters, digits, `_` and `-` lowercased, white space as
/// `-`, the rest dropped; a repeated one gets `-1`, `-2`, ...
fn heading_ids(src: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for l in lines(src) {
        let t = l.text.trim_start();
        if l.code || !t.starts_with('#') {
            continue;
        }
        let text = t.trim_start_matches('#');
        if !text.starts_with(' ') {
            continue;
        }
        let text = text.trim();
        if let Some((_, id)) = text.rsplit_once("{#") {
            ids.insert(id.trim_end_matches('}').trim().to_string());
            continue;
        }
        let plain = strip_tags(&strip_link_targets(text)).replace(['`', '*'], "");
        let id = slug(plain.trim());
        let n = seen.entry(id.clone()).or_insert(0);
        ids.insert(if *n == 0 {
            id.clone()
        } else {
            format!("{id}-{n}")
        });
        *n += 1;
    }
    // Anchors written in HTML.
    for part in src.split(" id=\"").skip(1) {
        if let Some(id) = part.split('"').next() {
            ids.insert(id.to_string());
        }
    }
    ids
}

/// (line, target) of every link and image in `src`: Markdown `[..](target)` and `![..](target)`,
/// reference definitions `[x]: target`, and HTML `href="..."` / `src="..."`; code is skipped.
fn link_targets(src: &str) -> Vec<(usize, String)> {
    let src = strip_comments(src);
    let mut out = vec![];
    for l in lines(&src) {
        if l.code {
            continue;
        }
        let text = strip_inline_code(l.text);
        let mut rest = text.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            // Up to the closing parenthesis that balances (addresses may hold parentheses).
            let mut depth = 0;
            let mut end = after.len();
            for (j, c) in after.char_indices() {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => {
                        end = j;
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            let target = after[..end]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_matches(['<', '>']);
            out.push((l.no, target.to_string()));
            rest = &after[end.min(after.len())..];
        }
        let t = text.trim_start();
        // A reference definition `[x]: target`; a footnote `[^x]: text` is not a link.
        if t.starts_with('[') && !t.starts_with("[^") {
            if let Some((label, def)) = t.split_once("]:") {
                if !label.contains('(') {
                    if let Some(target) = def.split_whitespace().next() {
                        out.push((l.no, target.to_string()));
                    }
                }
            }
        }
        // Autolinks: <https://...>.
        for part in text.split('<').skip(1) {
            if part.starts_with("http://")
                || part.starts_with("https://")
                || part.starts_with("mailto:")
            {
                if let Some((target, _)) = part.split_once('>') {
                    out.push((l.no, target.to_string()));
                }
            }
        }
        for attr in [" href=\"", " src=\""] {
            for part in text.split(attr).skip(1) {
                if let Some(target) = part.split('"').next() {
                    out.push((l.no, target.to_string()));
                }
            }
        }
    }
    out
}

/// The chapters docs/SUMMARY.md lists (the only Markdown files the book renders).
fn summary_chapters() -> BTreeSet<String> {
    link_targets(&read(&docs().join("SUMMARY.md")))
        .into_iter()
        .map(|(_, t)| t)
        .filter(|t| !t.is_empty())
        .collect()
}

/// Why `target` (from docs/`name`) does not resolve inside the site, if it does not.
fn broken(
    name: &str,
    target: &str,
    chapters: &BTreeSet<String>,
    ids: &mut HashMap<String, BTreeSet<String>>,
) -> Option<String> {
    if target.starts_with("https://") {
        return None;
    }
    if target.is_empty() {
        return Some("an empty link".into());
    }
    if target.contains("://") || target.starts_with("mailto:") || target.starts_with("//") {
        return Some("leaves the site (only https:// links may)".into());
    }
    if target.starts_with('/') {
        return Some(
            "an absolute path: the site may be served under any folder; link relatively".into(),
        );
    }
    let (path, anchor) = match target.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (target, None),
    };
    let path = path.split('?').next().unwrap_or("");
    // The web page is copied into the site's web/ (web/site.sh); a chapter's frame loads it.
    if path == "web/index.html" {
        return None;
    }
    // web/site.sh writes the repository, as the site was built from it, beside the book.
    if path == "rendermm-src.tar.gz" && !name.contains('/') {
        return None;
    }
    let file = if path.is_empty() {
        name.to_string()
    } else {
        // Relative to the folder of the file that links (a table under img/ links from there).
        match name.rsplit_once('/') {
            Some((dir, _)) => format!("{dir}/{path}"),
            None => path.to_string(),
        }
    };
    let mut parts: Vec<&str> = vec![];
    for c in file.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Some(
                        "leads outside docs/ (the site has only docs/ and the web page)".into(),
                    );
                }
            }
            c => parts.push(c),
        }
    }
    let rel = parts.join("/");
    let on_disk = docs().join(&rel);
    if on_disk.is_dir() {
        return Some(format!(
            "docs/{rel} is a folder: a static site lists none; link a file in it"
        ));
    }
    if !on_disk.is_file() {
        return Some(format!("docs/{rel} does not exist"));
    }
    if rel.ends_with(".md") && !chapters.contains(&rel) {
        return Some(format!(
            "docs/{rel} is not a chapter of docs/SUMMARY.md, so the book renders no page for it"
        ));
    }
    if let Some(anchor) = anchor {
        if rel.ends_with(".md") {
            let known = ids
                .entry(rel.clone())
                .or_insert_with(|| heading_ids(&read(&on_disk)));
            if !known.contains(anchor) {
                return Some(format!(
                    "docs/{rel} has no heading with the anchor #{anchor}"
                ));
            }
        }
    }
    None
}

#[test]
fn links_and_images_resolve_inside_the_book() {
    let chapters = summary_chapters();
    let mut ids = HashMap::new();
    let mut violations = vec![];
    for chapter in &chapters {
        if !docs().join(chapter).is_file() {
            violations.push(format!("docs/SUMMARY.md: chapter {chapter} does not exist"));
        }
    }
    // docs/*.md and the chapters SUMMARY.md adds from folders below (the run's tables).
    let mut names: BTreeSet<String> = markdown_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().to_string())
        .collect();
    names.extend(
        chapters
            .iter()
            .filter(|c| docs().join(c).is_file())
            .cloned(),
    );
    for name in names {
        let path = docs().join(&name);
        for (line, target) in link_targets(&read(&path)) {
            if let Some(why) = broken(&name, &target, &chapters, &mut ids) {
                violations.push(format!("docs/{name}:{line}: link `{target}`: {why}"));
            }
        }
    }
    fail_with(
        "links or images that do not resolve inside the book",
        &violations,
    );
}

#[test]
fn the_link_rules_catch_what_they_should() {
    let chapters: BTreeSet<String> = ["README.md", "answers.md"]
        .into_iter()
        .map(String::from)
        .collect();
    let mut ids = HashMap::new();
    let ok = |t: &str, ids: &mut HashMap<String, BTreeSet<String>>| {
        broken("README.md", t, &chapters, ids)
    };
    assert_eq!(ok("answers.md", &mut ids), None);
    assert_eq!(ok("https://doi.org/10.1145/582034.582089", &mut ids), None);
    assert_eq!(ok("web/index.html?embed=1&method=lm", &mut ids), None);
    assert!(ok("answers.md#no-such-heading-anywhere", &mut ids).is_some());
    assert!(ok("missing.md", &mut ids).is_some());
    assert!(ok("../shared/x.md", &mut ids).is_some());
    assert!(ok("../README.md", &mut ids).is_some());
    assert!(ok("http://example.com", &mut ids).is_some());
    assert!(ok("img/nope.png", &mut ids).is_some());
    let src = "# A `b` title: C's, d\n## Again\n## Again\n```\n# not\n```\n";
    let h = heading_ids(src);
    assert!(
        h.contains("a-b-title-cs-d") && h.contains("again") && h.contains("again-1"),
        "{h:?}"
    );
    let t = link_targets(
        "see [x](a.md#b) and ![i](img/p.png) `[no](c.md)` <a href=\"d.md\">d</a> <http://e.org/>\n",
    );
    let t: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(t, vec!["a.md#b", "img/p.png", "http://e.org/", "d.md"]);
    // A reference definition is a link; a footnote's text is not.
    let t = link_targets(
        "[r]: img/r.png
[^note]: O'Neil's figure.
",
    );
    let t: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(t, vec!["img/r.png"]);
}

// ---- live examples ---------------------------------------------------------------------------

/// The chapters that run their era's method in the page. Tensor cores are not among them: the
/// page has no cooperative matrices (browsers do not offer them), so that chapter may show none.
const LIVE_CHAPTERS: [&str; 6] = [
    "larsen-mcallister.md",
    "hall-carr-hart.md",
    "bandwidth.md",
    "compute-era.md",
    "cannon-dns.md",
    "frag-mrt.md",
];

/// Why a chapter's frame is not a live example the site tests can run, if it is not one.
fn frame_problem(src: &str) -> Option<String> {
    let Some(query) = src.strip_prefix("web/index.html?") else {
        return Some(
            "a live example loads web/index.html?... (the page in the site's web/)".into(),
        );
    };
    let params: HashMap<&str, &str> = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .collect();
    for (key, want) in [("embed", "1"), ("run", "1")] {
        if params.get(key) != Some(&want) {
            return Some(format!("{key}={want} is missing"));
        }
    }
    if !params.contains_key("method") {
        return Some("no method".into());
    }
    let Some(size) = params.get("size") else {
        return Some("no size".into());
    };
    let sides: Vec<usize> = size.split('x').filter_map(|s| s.parse().ok()).collect();
    if sides.len() != 3 || sides.iter().any(|&s| s == 0 || s > 64) {
        return Some(format!(
            "size {size}: MxKxN with every side 1 to 64 (a CPU adapter runs it in a second or two)"
        ));
    }
    None
}

#[test]
fn era_chapters_run_their_method_live() {
    let mut violations = vec![];
    for name in ERA_CHAPTERS {
        let path = docs().join(name);
        if !path.exists() {
            continue; // era_chapters_keep_to_the_word_budget names it
        }
        let src = strip_comments(&read(&path));
        let mut frames = 0;
        for (line, text) in lines(&src)
            .iter()
            .filter(|l| !l.code)
            .map(|l| (l.no, l.text))
        {
            for part in text.split("<iframe").skip(1) {
                frames += 1;
                let src = part
                    .split(" src=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or("");
                if !text.contains("<div class=\"run-it\">") {
                    violations.push(format!("docs/{name}:{line}: a frame outside <div class=\"run-it\"> (its size comes from that class)"));
                }
                if let Some(why) = frame_problem(src) {
                    violations.push(format!("docs/{name}:{line}: frame `{src}`: {why}"));
                }
            }
        }
        if frames == 0 && LIVE_CHAPTERS.contains(&name) {
            violations.push(format!(
                "docs/{name}: no live example (<div class=\"run-it\"><iframe src=\"web/index.html?embed=1&method=...&run=1\" ...>)"
            ));
        }
    }
    fail_with("live examples missing or malformed", &violations);
}

#[test]
fn the_frame_rules_catch_what_they_should() {
    assert_eq!(
        frame_problem("web/index.html?embed=1&method=lm&size=16x16x16&precision=f32&run=1"),
        None
    );
    assert!(frame_problem("web/index.html?embed=1&method=lm&size=256x16x16&run=1").is_some());
    assert!(frame_problem("web/index.html?method=lm&size=16x16x16&run=1").is_some());
    assert!(
        frame_problem("../web/dist/index.html?embed=1&method=lm&size=16x16x16&run=1").is_some()
    );
}
