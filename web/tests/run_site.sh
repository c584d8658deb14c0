#!/usr/bin/env bash
# The browser tests of the built course site, from a fresh clone: install what is missing (as
# run.sh does), build the site (web/site.sh: the page, then the book, into site/), then run
# web/tests/test_site.py against it (it serves site/ itself on a free port of 127.0.0.1).
# Arguments go to the test (e.g. --only larsen-mcallister.html). Exit status: the tests'.
#   RENDERMM_SITE_BUILT=1   test site/ as it is, without building it first
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"

source web/tests/setup.sh

if [[ "${RENDERMM_SITE_BUILT:-}" != 1 ]]; then
  if [[ "${RENDERMM_WEB_BUILD:-release}" == debug ]]; then web/site.sh --debug; else web/site.sh; fi
fi

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
python3 web/tests/test_site.py --site "$root/site" "$@"
