#!/usr/bin/env bash
# The course as one static site in site/: the book (mdBook, sources in docs/, docs/SUMMARY.md
# orders them) with the web page copied into site/web/, where each chapter's "Run it" frame loads
# it. Installs mdBook (the version pinned below) when it is missing. See docs/web.md.
#   web/site.sh               build the page (web/build.sh) and the book into site/
#   web/site.sh --debug       the same with a debug build of the page (quicker to build)
#   web/site.sh serve [PORT]  serve the built site on 127.0.0.1 (default port 8000), print its URL
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

# The mdBook the book is built and tested with (book.toml, the site tests).
MDBOOK_VERSION=0.5.4

if [[ "${1:-}" == serve ]]; then
  port="${2:-8000}"
  [[ -f site/index.html && -f site/web/index.html ]] || { echo "site.sh: no site/; run web/site.sh first" >&2; exit 1; }
  echo "rendermm course: http://127.0.0.1:$port/index.html"
  echo "  the web page:  http://127.0.0.1:$port/web/index.html"
  # Text files (the recorded runs under perf/) are UTF-8: web/serve_site.py says so.
  exec python3 web/serve_site.py "$port" "$root/site"
fi

if ! command -v mdbook >/dev/null || [[ "$(mdbook --version)" != "mdbook v$MDBOOK_VERSION" ]]; then
  echo "site.sh: installing mdbook $MDBOOK_VERSION" >&2
  # Without its own server and file watcher (the site is served by python3 above): about half
  # the build of the default features.
  cargo install mdbook --version "$MDBOOK_VERSION" --locked --no-default-features --features search
fi

if [[ "${1:-}" == --debug ]]; then web/build.sh --debug; else web/build.sh; fi
mdbook build
rm -rf site/web
cp -r web/dist site/web
# The tool itself, for a reader who has only the site: the repository as the site was built from
# it (git's HEAD in a clone; else the files here, without build outputs), written whole or not at all.
tmp="$(mktemp site/.rendermm-src.XXXXXX)"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git archive --format=tar.gz --prefix=rendermm/ -o "$tmp" HEAD
else
  tar czf "$tmp" --transform 's,^\.,rendermm,' --exclude=./target --exclude=./site \
    --exclude=./web/dist --exclude=./web/target --exclude=./web/node_modules \
    --exclude=./python/target --exclude=./rendermm-out .
fi
chmod 644 "$tmp"
mv "$tmp" site/rendermm-src.tar.gz
echo "built $root/site ($(du -sh site | cut -f1)); serve it with web/site.sh serve"
