#!/usr/bin/env bash
# Serve the page alone on 127.0.0.1 (default port 8000; web/serve.sh PORT for another) and print
# its URL: web/dist/, which web/build.sh makes. The page's links to the course's chapters work in
# the built site, where the page sits in web/ beside them: web/site.sh, then web/site.sh serve.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
port="${1:-8000}"
[[ -f "$root/web/dist/index.html" ]] || { echo "serve.sh: no web/dist/index.html; run web/build.sh first" >&2; exit 1; }
echo "rendermm page: http://127.0.0.1:$port/web/dist/index.html"
echo "  (its links to the chapters work in the site: web/site.sh && web/site.sh serve)"
echo "  for example: http://127.0.0.1:$port/web/dist/index.html?method=lm&size=24x17x9&seed=3&precision=f32&pace=250&run=1"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root"
