//! The rules that make a chapter show the mechanism, not only the result:
//!
//! - **code from the source**: a `rust` or `wgsl` block in a chapter holds only
//!   `{{#include ../path:anchor}}` lines whose anchor exists, 3 to 40 lines long, and the next
//!   thing after it is prose that says what the lines do; no other block holds kernel code typed
//!   by hand; every era chapter has an excerpt, and the compute era shows each 5kk73 step;
//! - **every source file a chapter names opens from the site**: `` `src/x.rs` `` is written
//!   `` [`src/x.rs`](code/src/x.rs.md) ``, and that page includes the file and is in the book;
//! - **terms**: the glossary defines the terms the course needs, and an era chapter links each
//!   glossary term where it first uses it;
//! - **notation**: each era chapter opens with a notation box;
//! - **a question before each run**: each live example is followed by a try-this box that loads
//!   its own settings into the frame and links its answer; the compute era has a compare frame.

use super::*;

/// Languages whose fenced blocks must be includes of the source.
const SOURCE_LANGS: [&str; 3] = ["rust", "wgsl", "rs"];

/// Marks of shader or Rust code in a block that is not an include (a hand-copied kernel).
const CODE_MARKS: [&str; 16] = [
    "fn ",
    "@compute",
    "@fragment",
    "@vertex",
    "@group(",
    "@workgroup_size",
    "var<",
    "impl ",
    "workgroupBarrier",
    "textureLoad(",
    "textureSample",
    "begin_render_pass",
    "set_pipeline",
    "BlendState",
    "let mut ",
    "coopMultiplyAdd",
];

/// The longest excerpt a chapter shows, in lines.
const EXCERPT_MAX: usize = 40;
const EXCERPT_MIN: usize = 3;

/// Folders of the repository whose files a chapter may name, and that then open from the site.
const SOURCE_DIRS: [&str; 7] = [
    "src/", "shaders/", "tests/", "bench/", "web/", "python/", "book/",
];

/// The terms the issue of teaching needs defined: the glossary must hold each.
const REQUIRED_TERMS: [&str; 19] = [
    "fragment",
    "texel",
    "render target",
    "blending",
    "framebuffer",
    "ping-pong",
    "workgroup",
    "subgroup",
    "warp",
    "SM",
    "coalescing",
    "bank conflict",
    "occupancy",
    "register blocking",
    "arithmetic intensity",
    "roofline",
    "unorm",
    "ulp",
    "loop cap",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The era chapters that open with a notation box and show code: all but the introduction.
fn era_pages() -> impl Iterator<Item = &'static str> {
    ERA_CHAPTERS.into_iter().filter(|n| *n != "README.md")
}

// ---- code from the source --------------------------------------------------------------------

/// A fenced block of a chapter: the line of its opening fence, its info string, its lines.
struct Block {
    line: usize,
    lang: String,
    body: Vec<String>,
    /// The first non-blank line after the closing fence, if any.
    after: Option<String>,
}

fn blocks(src: &str) -> Vec<Block> {
    let all: Vec<&str> = src.lines().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < all.len() {
        let t = all[i].trim_start();
        let Some(fence) = ["```", "~~~"].into_iter().find(|f| t.starts_with(f)) else {
            i += 1;
            continue;
        };
        let lang = t[fence.len()..]
            .trim()
            .split([',', ' '])
            .next()
            .unwrap_or("")
            .to_string();
        let start = i;
        let mut body = vec![];
        i += 1;
        while i < all.len() && all[i].trim() != fence {
            body.push(all[i].to_string());
            i += 1;
        }
        i += 1;
        let after = all[i.min(all.len())..]
            .iter()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim().to_string());
        out.push(Block {
            line: start + 1,
            lang,
            body,
            after,
        });
    }
    out
}

/// An include line's path (relative to the chapter's folder) and anchor, if `line` is one.
fn include_of(line: &str) -> Option<(String, Option<String>)> {
    let inner = line
        .trim()
        .strip_prefix("{{#include ")?
        .strip_suffix("}}")?
        .trim();
    Some(match inner.split_once(':') {
        Some((p, a)) => (p.to_string(), Some(a.to_string())),
        None => (inner.to_string(), None),
    })
}

/// The lines between `ANCHOR: name` and `ANCHOR_END: name` in `text` (anchor lines of other
/// names dropped, as mdBook drops them), or why there are none.
fn anchored(text: &str, name: &str) -> Result<Vec<String>, String> {
    let is = |l: &str, tag: &str| {
        l.split(tag)
            .nth(1)
            .is_some_and(|r| r.split_whitespace().next() == Some(name))
    };
    let mut inside = false;
    let mut out = vec![];
    for l in text.lines() {
        if is(l, "ANCHOR_END:") {
            if !inside {
                return Err(format!("ANCHOR_END: {name} before its ANCHOR"));
            }
            return Ok(out);
        }
        if inside && !l.contains("ANCHOR:") && !l.contains("ANCHOR_END:") {
            out.push(l.to_string());
        }
        if is(l, "ANCHOR:") {
            inside = true;
        }
    }
    Err(if inside {
        format!("no ANCHOR_END: {name}")
    } else {
        format!("no ANCHOR: {name}")
    })
}

/// The source files a chapter's excerpts come from (repository paths) and the rule breaks.
/// `dir` is the chapter's folder, `read_source` reads a repository path.
fn excerpt_violations(
    name: &str,
    src: &str,
    dir: &Path,
    read_source: &dyn Fn(&Path) -> Option<String>,
) -> (Vec<String>, Vec<String>) {
    let src = strip_comments(src);
    let (mut included, mut bad) = (vec![], vec![]);
    for b in blocks(&src) {
        let at = format!("docs/{name}:{}", b.line);
        let lines: Vec<&String> = b.body.iter().filter(|l| !l.trim().is_empty()).collect();
        let includes: Vec<_> = lines.iter().filter_map(|l| include_of(l)).collect();
        if SOURCE_LANGS.contains(&b.lang.as_str()) {
            if includes.is_empty() || includes.len() != lines.len() {
                bad.push(format!(
                    "{at}: a `{}` block holds code typed by hand; include it from the source ({{{{#include ../path:anchor}}}})",
                    b.lang
                ));
                continue;
            }
            for (path, anchor) in &includes {
                let file = dir.join(path);
                let Some(text) = read_source(&file) else {
                    bad.push(format!("{at}: includes {path}, which does not exist"));
                    continue;
                };
                let Some(anchor) = anchor else {
                    bad.push(format!(
                        "{at}: includes all of {path}; a chapter shows the lines of one anchor (path:anchor)"
                    ));
                    continue;
                };
                match anchored(&text, anchor) {
                    Err(why) => bad.push(format!("{at}: {path}:{anchor}: {why}")),
                    Ok(l) if !(EXCERPT_MIN..=EXCERPT_MAX).contains(&l.len()) => bad.push(format!(
                        "{at}: {path}:{anchor} is {} lines; an excerpt shows {EXCERPT_MIN} to {EXCERPT_MAX}",
                        l.len()
                    )),
                    Ok(_) => included.push(path.trim_start_matches("../").to_string()),
                }
            }
            let explained = b.after.as_deref().is_some_and(|a| {
                let c = a.chars().next().unwrap_or(' ');
                c.is_alphanumeric() || "*_(`\"'“".contains(c)
            });
            if !explained {
                bad.push(format!(
                    "{at}: the excerpt is not followed by prose saying what its lines do"
                ));
            }
        } else if includes.is_empty() {
            for l in &b.body {
                let t = l.trim_start();
                let command =
                    t.starts_with('#') || t.starts_with("rendermm") || t.starts_with("cargo");
                if let Some(m) = CODE_MARKS
                    .iter()
                    .find(|m| t.starts_with(*m) || t.contains(&format!(" {m}")))
                    .filter(|_| !command)
                {
                    bad.push(format!(
                        "{at}: `{}` looks like kernel code typed by hand ({m:?}); include it from the source",
                        t.chars().take(60).collect::<String>()
                    ));
                    break;
                }
            }
        }
    }
    (included, bad)
}

fn read_repo_file(p: &Path) -> Option<String> {
    std::fs::read_to_string(p).ok()
}

#[test]
fn excerpts_are_included_from_the_source() {
    let mut violations = vec![];
    for path in markdown_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = read(&path);
        let (included, bad) = excerpt_violations(&name, &src, &docs(), &read_repo_file);
        violations.extend(bad);
        if era_pages().any(|n| n == name) && included.is_empty() {
            violations.push(format!(
                "docs/{name}: no excerpt of the code that makes the chapter's trick (```wgsl / ```rust with {{{{#include ../path:anchor}}}})"
            ));
        }
        if name == "compute-era.md" {
            for step in 1..=6 {
                let prefix = format!("shaders/kk73_{step}_");
                if !included.iter().any(|p| p.starts_with(&prefix)) {
                    violations.push(format!(
                        "docs/compute-era.md: the 5kk73 ladder shows no excerpt of step {step} ({prefix}*.wgsl: the lines that changed from step {})",
                        step - 1
                    ));
                }
            }
        }
    }
    fail_with("code excerpts not from the source", &violations);
}

// ---- every file a chapter names opens from the site ------------------------------------------

/// The code page of repository file `path`, relative to docs/.
fn code_page(path: &str) -> String {
    format!("code/{path}.md")
}

/// Inline code spans of a line: (byte offset of the opening backtick, content).
fn code_spans(line: &str) -> Vec<(usize, &str)> {
    let mut out = vec![];
    let mut rest = 0;
    while let Some(i) = line[rest..].find('`') {
        let open = rest + i;
        let Some(j) = line[open + 1..].find('`') else {
            break;
        };
        out.push((open, &line[open + 1..open + 1 + j]));
        rest = open + 2 + j;
    }
    out
}

/// Where chapter `name` names a repository file without linking its code page.
fn unlinked_sources(name: &str, src: &str, is_file: &dyn Fn(&str) -> bool) -> Vec<String> {
    let src = strip_comments(src);
    let mut bad = vec![];
    for l in lines(&src).iter().filter(|l| !l.code) {
        for (at, span) in code_spans(l.text) {
            let path = span.trim();
            if !SOURCE_DIRS.iter().any(|d| path.starts_with(d)) || !is_file(path) {
                continue;
            }
            let linked = l.text[..at].ends_with('[')
                && l.text[at..].starts_with(&format!("`{span}`]({})", code_page(path)));
            if !linked {
                bad.push(format!(
                    "docs/{name}:{}: `{path}` is named but does not open from the site: write [`{path}`]({})",
                    l.no,
                    code_page(path)
                ));
            }
        }
    }
    bad
}

/// The repository files a chapter links as code pages.
fn linked_code_pages(src: &str) -> Vec<String> {
    link_targets(src)
        .into_iter()
        .filter_map(|(_, t)| {
            let p = t
                .split('#')
                .next()?
                .strip_prefix("code/")?
                .strip_suffix(".md")?;
            (p != "README").then(|| p.to_string())
        })
        .collect()
}

/// What is wrong with the code page of repository file `path`, if anything.
fn code_page_problem(path: &str, summary: &BTreeSet<String>) -> Option<String> {
    let page = docs().join(code_page(path));
    let Ok(text) = std::fs::read_to_string(&page) else {
        return Some(format!(
            "no page docs/{} (run python3 book/code_pages.py)",
            code_page(path)
        ));
    };
    let depth = code_page(path).matches('/').count();
    let want = format!("{{{{#include {}{path}}}}}", "../".repeat(depth + 1));
    if !text.contains(&want) {
        return Some(format!("docs/{} does not hold {want}", code_page(path)));
    }
    if !summary.contains(&code_page(path)) {
        return Some(format!(
            "docs/SUMMARY.md does not list {} (run python3 book/code_pages.py)",
            code_page(path)
        ));
    }
    None
}

#[test]
fn named_source_files_open_from_the_site() {
    let mut violations = vec![];
    let summary = summary_chapters();
    // A file mdBook can include whole: one without a `{{#` of its own (the book's tooling has
    // such lines, which mdBook would expand); the rest are named as plain code.
    let is_file = |p: &str| {
        std::fs::read_to_string(root().join(p)).is_ok_and(|t| !t.contains(concat!("{{", "#")))
    };
    let mut wanted = BTreeSet::new();
    for path in markdown_files() {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let src = read(&path);
        if summary.contains(&name) {
            violations.extend(unlinked_sources(&name, &src, &is_file));
        }
        wanted.extend(linked_code_pages(&src));
    }
    for path in &wanted {
        if !is_file(path) {
            violations.push(format!(
                "a chapter links code/{path}.md, but {path} is not a file of the repository"
            ));
        } else if let Some(why) = code_page_problem(path, &summary) {
            violations.push(why);
        }
    }
    // No page left behind for a file that is gone.
    for page in summary
        .iter()
        .filter(|p| p.starts_with("code/") && p.ends_with(".md"))
    {
        let path = &page["code/".len()..page.len() - 3];
        if path != "README" && !is_file(path) {
            violations.push(format!(
                "docs/SUMMARY.md lists {page}, but {path} no longer exists"
            ));
        }
    }
    fail_with(
        "source files named but not opening from the site",
        &violations,
    );
}

// ---- glossary ---------------------------------------------------------------------------------

/// One glossary entry: its term, its anchor, the other spellings a chapter may use.
struct Term {
    term: String,
    id: String,
    also: Vec<String>,
    defined: bool,
}

/// The entries of glossary.md: `## term`, a definition, and "Also: a, b." for other spellings.
fn glossary_terms(src: &str) -> Vec<Term> {
    let mut out: Vec<Term> = vec![];
    for l in lines(&strip_comments(src)).iter().filter(|l| !l.code) {
        if let Some(h) = l.text.strip_prefix("## ") {
            out.push(Term {
                term: h.trim().to_string(),
                id: slug(h.trim()),
                also: vec![],
                defined: false,
            });
            continue;
        }
        let Some(t) = out.last_mut() else { continue };
        if !l.text.trim().is_empty() {
            t.defined = true;
        }
        if let Some((_, also)) = l.text.split_once("Also: ") {
            let list = also.split('.').next().unwrap_or("");
            t.also.extend(
                list.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty()),
            );
        }
    }
    out
}

/// A chapter's prose as one string, with, for each char, whether it lies in a link to the
/// glossary and its line. Code, inline code, tags, images, headings and link targets are
/// blanked.
fn glossary_view(src: &str) -> (Vec<char>, Vec<bool>, Vec<usize>) {
    fn walk(c: &[char], mut i: usize, end: usize, flag: bool, out: &mut Vec<(char, bool)>) {
        while i < end {
            match c[i] {
                '`' => {
                    let close = (i + 1..end).find(|&j| c[j] == '`').unwrap_or(end);
                    out.extend(std::iter::repeat_n((' ', false), close + 1 - i));
                    i = close + 1;
                }
                '<' if i + 1 < end && (c[i + 1].is_ascii_alphabetic() || c[i + 1] == '/') => {
                    let close = (i + 1..end).find(|&j| c[j] == '>').unwrap_or(end);
                    out.extend(std::iter::repeat_n((' ', false), close + 1 - i));
                    i = close + 1;
                }
                '[' | '!' => {
                    let image = c[i] == '!';
                    let open = if image { i + 1 } else { i };
                    if image && (open >= end || c[open] != '[') {
                        out.push((c[i], flag));
                        i += 1;
                        continue;
                    }
                    // The ']' that closes this '[', then '(' ... ')'.
                    let mut depth = 0;
                    let mut close = None;
                    for (j, ch) in c.iter().enumerate().take(end).skip(open) {
                        match ch {
                            '[' => depth += 1,
                            ']' => {
                                depth -= 1;
                                if depth == 0 {
                                    close = Some(j);
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    let Some(close) = close.filter(|&j| j + 1 < end && c[j + 1] == '(') else {
                        out.push((c[i], flag));
                        i += 1;
                        continue;
                    };
                    let target_end = (close + 2..end).find(|&j| c[j] == ')').unwrap_or(end);
                    let target: String = c[close + 2..target_end].iter().collect();
                    if image {
                        out.extend(std::iter::repeat_n((' ', false), target_end + 1 - i));
                    } else {
                        out.push((' ', false));
                        let inner = flag || target.trim().starts_with("glossary.md#");
                        walk(c, open + 1, close, inner, out);
                        out.extend(std::iter::repeat_n((' ', false), target_end + 1 - close));
                    }
                    i = target_end + 1;
                }
                ch => {
                    out.push((ch, flag));
                    i += 1;
                }
            }
        }
    }
    let src = strip_comments(src);
    let (mut text, mut flags, mut line_of) = (vec![], vec![], vec![]);
    for l in lines(&src) {
        let t = l.text.trim_start();
        if l.code || t.starts_with('#') {
            continue;
        }
        let chars: Vec<char> = l.text.chars().collect();
        let mut out = vec![];
        walk(&chars, 0, chars.len(), false, &mut out);
        out.push((' ', false));
        for (ch, f) in out {
            text.push(ch);
            flags.push(f);
            line_of.push(l.no);
        }
    }
    (text, flags, line_of)
}

/// The first position at which `word` occurs in `text` as a whole word (plural s/es allowed):
/// case-sensitively where the word has capitals, else ignoring case.
fn first_use(text: &[char], word: &str) -> Option<usize> {
    let w: Vec<char> = word.chars().collect();
    let exact = w.iter().any(|c| c.is_uppercase());
    let eq = |a: char, b: char| {
        if exact {
            a == b
        } else {
            a.to_lowercase().eq(b.to_lowercase())
        }
    };
    let alnum = |i: usize| text.get(i).is_some_and(|c| c.is_alphanumeric());
    (0..text.len().saturating_sub(w.len() - 1)).find(|&i| {
        if i > 0 && alnum(i - 1) {
            return false;
        }
        if !w.iter().enumerate().all(|(j, &c)| eq(text[i + j], c)) {
            return false;
        }
        let end = i + w.len();
        !alnum(end)
            || (eq(text[end], 's') && !alnum(end + 1))
            || (eq(text[end], 'e')
                && text.get(end + 1).is_some_and(|&c| eq(c, 's'))
                && !alnum(end + 2))
    })
}

/// Where chapter `name` first uses a glossary term outside a link to the glossary.
fn unlinked_terms(name: &str, src: &str, terms: &[Term]) -> Vec<String> {
    let (text, flags, line_of) = glossary_view(src);
    let mut bad = vec![];
    for t in terms {
        let first = std::iter::once(&t.term)
            .chain(&t.also)
            .filter_map(|w| first_use(&text, w))
            .min();
        if let Some(at) = first
            && !flags[at]
        {
            let len = t.term.chars().count().min(text.len() - at);
            let tail = text[at + len..].iter().take_while(|c| c.is_alphanumeric());
            let word: String = text[at..at + len].iter().chain(tail).collect();
            bad.push(format!(
                "docs/{name}:{}: first use of \"{}\" (as \"{}\") is not a link to glossary.md#{}",
                line_of[at],
                t.term,
                word.trim(),
                t.id
            ));
        }
    }
    bad
}

#[test]
fn the_glossary_defines_the_terms_the_course_needs() {
    let terms = glossary_terms(&read(&docs().join("glossary.md")));
    let mut violations = vec![];
    for want in REQUIRED_TERMS {
        if !terms.iter().any(|t| t.term == want) {
            violations.push(format!("docs/glossary.md: no entry `## {want}`"));
        }
    }
    for t in terms.iter().filter(|t| !t.defined) {
        violations.push(format!(
            "docs/glossary.md: `## {}` has no definition",
            t.term
        ));
    }
    if !summary_chapters().contains("glossary.md") {
        violations.push("docs/SUMMARY.md does not list glossary.md".into());
    }
    fail_with("glossary entries missing", &violations);
}

#[test]
fn era_chapters_link_each_term_where_they_first_use_it() {
    let terms = glossary_terms(&read(&docs().join("glossary.md")));
    let mut violations = vec![];
    for name in ERA_CHAPTERS {
        let path = docs().join(name);
        if path.exists() {
            violations.extend(unlinked_terms(name, &read(&path), &terms));
        }
    }
    fail_with("glossary terms used before they are linked", &violations);
}

// ---- notation ---------------------------------------------------------------------------------

fn notation_problem(src: &str) -> Option<&'static str> {
    let src = strip_comments(src);
    let first_section = lines(&src)
        .iter()
        .find(|l| !l.code && l.text.starts_with("## "))
        .map(|l| l.no)
        .unwrap_or(usize::MAX);
    let box_at = lines(&src)
        .iter()
        .find(|l| !l.code && l.text.trim_start().starts_with("<div class=\"notation\">"))
        .map(|l| l.no);
    match box_at {
        None => {
            Some("no notation box (<div class=\"notation\"> with every symbol the chapter uses)")
        }
        Some(at) if at > first_section => {
            Some("the notation box comes after the first section; put it at the top")
        }
        Some(_) => None,
    }
}

#[test]
fn era_chapters_open_with_a_notation_box() {
    let violations: Vec<String> = era_pages()
        .filter_map(|name| {
            let path = docs().join(name);
            let src = read(&path);
            notation_problem(&src).map(|why| format!("docs/{name}: {why}"))
        })
        .collect();
    fail_with("era chapters without notation", &violations);
}

// ---- a question before each run ---------------------------------------------------------------

/// The value of HTML attribute `attr` in `tag_text`.
fn attr<'a>(tag_text: &'a str, attr: &str) -> Option<&'a str> {
    tag_text
        .split(&format!(" {attr}=\""))
        .nth(1)
        .and_then(|r| r.split('"').next())
}

/// Where a chapter's live examples lack their try-this box, or a box is malformed.
fn try_this_violations(name: &str, src: &str) -> Vec<String> {
    let src = strip_comments(src);
    let mut bad = vec![];
    // Each frame, then what comes before the next frame or section: its try-this box.
    let ls = lines(&src);
    let mut i = 0;
    while i < ls.len() {
        let l = &ls[i];
        if l.code || !l.text.contains("<iframe") {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        let mut boxes = vec![];
        while j < ls.len()
            && !(!ls[j].code && (ls[j].text.starts_with("#") || ls[j].text.contains("<iframe")))
        {
            if !ls[j].code && ls[j].text.contains("<div class=\"try-this\"") {
                // The box runs to its closing </div>.
                let mut k = j + 1;
                let mut body = String::new();
                while k < ls.len() && ls[k].text.trim() != "</div>" {
                    body.push_str(ls[k].text);
                    body.push('\n');
                    k += 1;
                }
                boxes.push((ls[j].no, ls[j].text.to_string(), body));
                j = k;
            }
            j += 1;
        }
        if boxes.is_empty() {
            bad.push(format!(
                "docs/{name}:{}: a live example without a try-this box after it (<div class=\"try-this\" data-src=\"web/index.html?...\"> with a question and a link to its answer)",
                l.no
            ));
        }
        for (no, tag, body) in boxes {
            match attr(&tag, "data-src") {
                None => bad.push(format!("docs/{name}:{no}: the try-this box has no data-src (the settings it loads into the frame)")),
                Some(s) => {
                    if let Some(why) = frame_problem(s) {
                        bad.push(format!("docs/{name}:{no}: try-this `{s}`: {why}"));
                    }
                }
            }
            if !body.contains('?') {
                bad.push(format!(
                    "docs/{name}:{no}: the try-this box asks no question"
                ));
            }
            if !body.contains("](answers.md#") {
                bad.push(format!(
                    "docs/{name}:{no}: the try-this box does not link its answer (answers.md#...)"
                ));
            }
        }
        i = j;
    }
    bad
}

#[test]
fn every_live_example_asks_a_question_before_it_runs() {
    let mut violations = vec![];
    for name in ERA_CHAPTERS {
        let src = read(&docs().join(name));
        violations.extend(try_this_violations(name, &src));
    }
    let compute = read(&docs().join("compute-era.md"));
    if !compute.contains("&vs=") {
        violations.push(
            "docs/compute-era.md: no compare frame (two methods on the same inputs: ...&method=A&vs=B&...)".into(),
        );
    }
    fail_with("live examples without a question", &violations);
}

// ---- each rule fails on a planted violation ---------------------------------------------------

#[test]
fn the_mechanism_rules_catch_what_they_should() {
    let source =
        "fn a() {}\n// ANCHOR: loop\nlet x = 1;\nlet y = 2;\nlet z = 3;\n// ANCHOR_END: loop\n";
    let read_source = |p: &Path| (p.ends_with("k.wgsl")).then(|| source.to_string());
    let dir = Path::new("docs");
    let check = |md: &str| excerpt_violations("t.md", md, dir, &read_source);

    // An include of an anchor that exists, followed by prose: fine.
    let good = "```wgsl\n{{#include ../k.wgsl:loop}}\n```\n\nThe loop adds.\n";
    let (inc, bad) = check(good);
    assert_eq!((inc.len(), bad.len()), (1, 0), "{bad:?}");
    // Code typed by hand in a wgsl block.
    assert_eq!(check("```wgsl\nfn fs_main() {}\n```\n\nText.\n").1.len(), 1);
    // Kernel code in an untagged block.
    assert_eq!(
        check("```\n@fragment\nfn fs_main() {}\n```\n\nText.\n")
            .1
            .len(),
        1
    );
    // A shell block is not code to include.
    assert!(
        check("```\nrendermm multiply --method lm\n```\n")
            .1
            .is_empty()
    );
    // An anchor that does not exist, an include without an anchor, no prose after.
    assert_eq!(
        check("```wgsl\n{{#include ../k.wgsl:nope}}\n```\n\nText.\n")
            .1
            .len(),
        1
    );
    assert_eq!(
        check("```wgsl\n{{#include ../k.wgsl}}\n```\n\nText.\n")
            .1
            .len(),
        1
    );
    assert_eq!(
        check("```wgsl\n{{#include ../k.wgsl:loop}}\n```\n\n## Next\n")
            .1
            .len(),
        1
    );
    // An excerpt too long.
    let long = format!("// ANCHOR: l\n{}// ANCHOR_END: l\n", "x;\n".repeat(41));
    let read_long = |_: &Path| Some(long.clone());
    assert_eq!(
        excerpt_violations(
            "t.md",
            "```rust\n{{#include ../k.rs:l}}\n```\nText.\n",
            dir,
            &read_long
        )
        .1
        .len(),
        1
    );

    // A source file named without its code page, and named with it.
    let is_file = |p: &str| p == "src/x.rs";
    assert_eq!(
        unlinked_sources("t.md", "See `src/x.rs`.\n", &is_file).len(),
        1
    );
    assert!(unlinked_sources("t.md", "See [`src/x.rs`](code/src/x.rs.md).\n", &is_file).is_empty());
    assert!(unlinked_sources("t.md", "See `src/gone.rs`.\n", &is_file).is_empty());

    // The glossary: a term's first use unlinked, linked, covered by a longer term's link.
    let terms = glossary_terms(
        "# G\n\n## fragment\n\nA pixel to be.\n\n## blending\n\nAdds. Also: blend, blended.\n\n## SM\n\nA core.\n",
    );
    assert_eq!(terms.len(), 3);
    assert_eq!(terms[1].also, ["blend", "blended"]);
    let bare = glossary_terms("# G\n\n## texel\n\n## ulp\n\nA gap.\n");
    assert_eq!(
        bare.iter().map(|t| t.defined).collect::<Vec<_>>(),
        [false, true]
    );
    assert_eq!(
        unlinked_terms("t.md", "Each fragment runs.\n", &terms).len(),
        1
    );
    assert!(
        unlinked_terms(
            "t.md",
            "Each [fragment](glossary.md#fragment) runs; a fragment.\n",
            &terms
        )
        .is_empty()
    );
    assert!(
        unlinked_terms(
            "t.md",
            "A [fragment shader](glossary.md#fragment-shader); fragments.\n",
            &terms
        )
        .is_empty()
    );
    assert_eq!(
        unlinked_terms(
            "t.md",
            "The blend unit; [blending](glossary.md#blending).\n",
            &terms
        )
        .len(),
        1
    );
    assert!(
        unlinked_terms(
            "t.md",
            "# fragment\n\n`fragment` and ![fragment](x.png)\n",
            &terms
        )
        .is_empty()
    );
    assert!(unlinked_terms("t.md", "small SMEM, sm\n", &terms).is_empty());
    assert_eq!(unlinked_terms("t.md", "132 SMs\n", &terms).len(), 1);

    // Notation: missing, late, in place.
    assert!(notation_problem("# T\n\n## A\n").is_some());
    assert!(notation_problem("# T\n\n## A\n\n<div class=\"notation\">\n\nx\n\n</div>\n").is_some());
    assert!(notation_problem("# T\n\n<div class=\"notation\">\n\nx\n\n</div>\n\n## A\n").is_none());

    // Try-this: missing, without a question or answer, well formed.
    let frame = "<div class=\"run-it\"><iframe src=\"web/index.html?embed=1&method=lm&size=4x4x4&run=1\"></iframe></div>\n\n";
    let boxed = |body: &str| {
        format!(
            "{frame}<div class=\"try-this\" data-src=\"web/index.html?embed=1&method=lm&size=4x64x4&run=1\">\n\n{body}\n\n</div>\n"
        )
    };
    assert_eq!(try_this_violations("t.md", frame).len(), 1);
    assert_eq!(
        try_this_violations("t.md", &boxed("Run it. [Answer](answers.md#a)")).len(),
        1
    );
    assert_eq!(
        try_this_violations("t.md", &boxed("What will C be?")).len(),
        1
    );
    assert!(
        try_this_violations("t.md", &boxed("What will C be? [Answer](answers.md#a)")).is_empty()
    );
    let big = boxed("What? [Answer](answers.md#a)").replace("4x64x4", "4x640x4");
    assert_eq!(try_this_violations("t.md", &big).len(), 1);
}
