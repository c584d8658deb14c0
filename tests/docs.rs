//! The course and the code speak to readers who have only this repository: every relative link
//! and image in every doc resolves to a file that exists, and nothing points into the team's
//! own folder or speaks of tracker numbers or of who did what.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every Markdown file the docs consist of: README.md and docs/**.md.
fn docs() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut dirs = vec![root().join("docs")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The targets of `[text](target)` and `![alt](target)` links and of `src="target"` in `text`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = vec![];
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b']' && bytes[i + 1] == b'(' {
            if let Some(end) = text[i + 2..].find(')') {
                out.push(text[i + 2..i + 2 + end].to_string());
            }
        }
        i += 1;
    }
    for part in text.split("src=\"").skip(1) {
        if let Some(end) = part.find('"') {
            out.push(part[..end].to_string());
        }
    }
    out
}

#[test]
fn every_relative_link_and_image_in_the_docs_resolves() {
    let mut broken = vec![];
    let mut checked = 0;
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        // Code blocks hold commands, not links.
        let prose: String = text
            .split("```")
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect();
        for target in link_targets(&prose) {
            let target = target.split_whitespace().next().unwrap_or("").to_string();
            if target.is_empty()
                || target.starts_with('#')
                || target.contains("://")
                || target.starts_with("mailto:")
            {
                continue;
            }
            let file = target.split(['#', '?']).next().unwrap();
            // The web page is copied into the built site's web/ from web/static/ (web/site.sh):
            // a chapter's "Run it" frame and its links reach it as web/index.html.
            // The repository itself, as the site was built from it, is written beside the book
            // by web/site.sh (git archive): the introduction links it for a reader of the site.
            let path = match file.strip_prefix("web/") {
                Some(page) if doc.parent() == Some(&root().join("docs")) => {
                    root().join("web/static").join(page)
                }
                _ if file == "rendermm-src.tar.gz" && doc.ends_with("docs/README.md") => {
                    root().join("web/site.sh")
                }
                _ => doc.parent().unwrap().join(file),
            };
            checked += 1;
            if !path.exists() {
                broken.push(format!(
                    "{}: {target}",
                    doc.strip_prefix(root()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        checked > 50,
        "only {checked} links found: is the scan right?"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// Text files of the repository a reader sees: docs, README, sources, shaders.
fn text_files() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md")];
    let mut dirs: Vec<PathBuf> = ["docs", "src", "shaders", "web"]
        .iter()
        .map(|d| root().join(d))
        .filter(|d| d.exists())
        .collect();
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if name != "target" && name != "dist" && name != "pkg" {
                    dirs.push(p);
                }
            } else if ["md", "rs", "wgsl", "html", "js", "sh", "py"]
                .iter()
                .any(|x| p.extension().is_some_and(|e| e == *x))
            {
                out.push(p);
            }
        }
    }
    out
}

/// "issue 8", "Issue 12", "#12" as a tracker reference (not a Markdown heading, not a
/// `#[attribute]`, not a colour like `#1f77b4`).
fn tracker_reference(line: &str) -> bool {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '#')
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "issue" && w[1].chars().all(|c| c.is_ascii_digit()) && !w[1].is_empty())
        || lower.contains("issues show")
}

#[test]
fn nothing_points_into_the_team_folder_or_speaks_of_trackers_or_authors() {
    let mut hits = vec![];
    for f in text_files() {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for (n, line) in text.lines().enumerate() {
            let at = || format!("{}:{}: {}", rel(&f), n + 1, line.trim());
            if line.contains("../shared") || line.contains("another engineer") {
                hits.push(at());
            } else if tracker_reference(line) {
                hits.push(at());
            }
        }
    }
    assert!(hits.is_empty(), "found:\n{}", hits.join("\n"));
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

#[test]
fn the_tracker_check_sees_what_it_should() {
    assert!(tracker_reference("as issue 8 asked"));
    assert!(tracker_reference("Issue 12's targets"));
    assert!(!tracker_reference("## Exercises"));
    assert!(!tracker_reference("an issue with 8 bits"));
}
