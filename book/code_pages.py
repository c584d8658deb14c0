#!/usr/bin/env python3
"""The book's source pages: one page per repository file a chapter links as code/<path>.md.

Each page includes the whole file when the book is built (mdBook's {{#include}}), so what a
reader opens is the file as it is, never a copy. This script writes docs/code/<path>.md for every
file the chapters link, an index (docs/code/README.md), and the pages' entries in
docs/SUMMARY.md between the two marker comments; it removes pages no chapter links any more.

  python3 book/code_pages.py           write the pages and the SUMMARY entries
  python3 book/code_pages.py --check   exit 1, naming what is stale, instead of writing

tests/book.rs (named_source_files_open_from_the_site) holds the pages to the chapters.
"""

import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOCS = os.path.join(ROOT, "docs")
CODE = os.path.join(DOCS, "code")
BEGIN, END = "<!-- code pages: book/code_pages.py -->", "<!-- /code pages -->"
LANG = {".rs": "rust", ".wgsl": "wgsl", ".py": "python", ".sh": "bash", ".js": "javascript",
        ".toml": "toml", ".css": "css", ".html": "html"}
LINK = re.compile(r"\]\(code/([^)#\s]+)\.md(?:#[^)]*)?\)")
TITLE = re.compile(r"^# (.+)$", re.M)


def chapters():
    """(file name, title) of every chapter docs/SUMMARY.md lists at the top level of docs/."""
    out = []
    for line in open(os.path.join(DOCS, "SUMMARY.md"), encoding="utf-8"):
        m = re.search(r"\]\(([^)/]+\.md)\)", line)
        if m and os.path.exists(os.path.join(DOCS, m.group(1))):
            out.append(m.group(1))
    return out


def showable(path):
    """Whether `path` is a file mdBook can include whole: one that holds no `{{#` of its own
    (mdBook would expand it as a link of the page; the book's own tooling has such lines)."""
    full = os.path.join(ROOT, path)
    return os.path.isfile(full) and "{{" + "#" not in open(full, encoding="utf-8", errors="replace").read()


def pages():
    """{repository path: [chapters that link it]}, for every existing file linked as code."""
    linked = {}
    for name in chapters():
        text = open(os.path.join(DOCS, name), encoding="utf-8").read()
        for path in LINK.findall(text):
            if showable(path):
                linked.setdefault(path, [])
                if name not in linked[path]:
                    linked[path].append(name)
    return dict(sorted(linked.items()))


def title_of(name):
    m = TITLE.search(open(os.path.join(DOCS, name), encoding="utf-8").read())
    return m.group(1).strip() if m else name


def page_text(path, named_in):
    up = "../" * (path.count("/") + 1)          # from docs/code/<path>.md to docs/
    lang = LANG.get(os.path.splitext(path)[1], "")
    where = ", ".join(f"[{title_of(n)}]({up}{n})" for n in named_in)
    return (f"# `{path}`\n\n"
            f"The file as the book was built from it (every excerpt in the chapters is included from "
            f"it the same way). Named in: {where}. All files: [the source, file by file]({up}code/README.md).\n\n"
            f"```{lang}\n{{{{#include {up}../{path}}}}}\n```\n")


def index_text(linked):
    rows = "\n".join(f"- [`{p}`]({p}.md): named in "
                     + ", ".join(f"[{title_of(n)}](../{n})" for n in named) for p, named in linked.items())
    return ("# The source, file by file\n\n"
            "Every file of the repository a chapter names, as it is: each page includes the file "
            "when the book is built, so it never differs from the code that ran.\n\n" + rows + "\n")


def summary_text(linked):
    text = open(os.path.join(DOCS, "SUMMARY.md"), encoding="utf-8").read()
    entries = "\n".join(f"  - [`{p}`](code/{p}.md)" for p in linked)
    block = f"{BEGIN}\n- [The source, file by file](code/README.md)\n{entries}\n{END}"
    if BEGIN in text:
        head, rest = text.split(BEGIN, 1)
        return head + block + rest.split(END, 1)[1]
    return text.rstrip("\n") + "\n" + block + "\n"


def main():
    check = "--check" in sys.argv[1:]
    linked = pages()
    want = {os.path.join(CODE, p + ".md"): page_text(p, n) for p, n in linked.items()}
    want[os.path.join(CODE, "README.md")] = index_text(linked)
    want[os.path.join(DOCS, "SUMMARY.md")] = summary_text(linked)
    have = set()
    for d, _, files in os.walk(CODE):
        have.update(os.path.join(d, f) for f in files)
    stale = [f for f, t in want.items()
             if not os.path.exists(f) or open(f, encoding="utf-8").read() != t]
    extra = sorted(have - set(want))
    if check:
        for f in stale + extra:
            print(f"code_pages.py: {os.path.relpath(f, ROOT)} is stale; run python3 book/code_pages.py")
        sys.exit(1 if stale or extra else 0)
    for f in stale:
        os.makedirs(os.path.dirname(f), exist_ok=True)
        tmp = f + ".tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(want[f])
        os.replace(tmp, f)
    for f in extra:
        os.remove(f)
    for d, dirs, files in sorted(os.walk(CODE, topdown=False)):
        if d != CODE and not os.listdir(d):
            os.rmdir(d)
    print(f"code_pages.py: {len(linked)} source pages, {len(stale)} written, {len(extra)} removed")


if __name__ == "__main__":
    main()
