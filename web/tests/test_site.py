#!/usr/bin/env python3
"""Browser tests of the built course site (web/site.sh builds it into site/): headless Chromium
through chromedriver (selenium), as web/tests/test_page.py drives the page alone.

For every chapter of docs/SUMMARY.md, its page in the site:
  - loads without errors in the browser's console (the chapter's frames included);
  - every live example (an <iframe> in the chapter, the web page's embed=1 view) runs in the
    chapter to a passed check against the f64 reference on WebGPU, and, for the render methods
    (lm, hall-*, frag-mrt*), loaded on its own with backend=webgl2, on WebGL2 too; a frame in
    compare mode (vs=) has both runs passed (the second run's report under the page's facts'
    "vs");
  - every "Try this" box (<div class="try-this" data-src=...>) holds a valid live example
    (embed=1, run=1, a method, each side of the size 1..64), has its "Run this" button, and the
    button loads it into the frame just above the box, which runs it to a passed check (both
    runs where it compares);
  - every link, image, stylesheet, script and frame inside the site answers HTTP 200, no link
    leads to raw Markdown, and a link's #anchor names an element of the page it leads to.

  python3 web/tests/test_site.py                 serve site/ on a free port and test it
  ... --site DIR                                  another built site
  ... --only larsen-mcallister.html               one chapter (repeatable)

Exit status 1 when anything failed; every failure is listed at the end.
"""

import argparse
import html.parser
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "web"))
sys.path.insert(0, HERE)

import serve_site  # noqa: E402
from test_page import Results, make_driver  # noqa: E402

# The methods that draw (render pipelines): they run on WebGL2 too. The rest are compute shaders.
RENDER_PREFIXES = ("lm", "hall-", "frag-mrt")
TOLERANCE = {"frag-mrt-f16": 1e-3}


def is_render(method):
    return method == "lm" or any(method.startswith(p) for p in RENDER_PREFIXES[1:])


def chapters(summary):
    """The pages of docs/SUMMARY.md's chapters, in its order: README.md -> index.html."""
    out = []
    for line in open(summary, encoding="utf-8"):
        if "](" not in line:
            continue
        target = line.split("](", 1)[1].split(")", 1)[0].strip()
        if not target.endswith(".md"):
            continue
        out.append("index.html" if target == "README.md" else target[:-3] + ".html")
    return out


class Refs(html.parser.HTMLParser):
    """Every href/src of a page and every id in it."""

    def __init__(self):
        super().__init__()
        self.refs, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "a" and "name" in a:
            self.ids.add(a["name"])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append((tag, a[key]))


class Site:
    """What the server answers, fetched once per URL."""

    def __init__(self, base, root):
        self.base, self.root = base, root
        self.status, self.ids = {}, {}

    def fetch(self, url):
        if url not in self.status:
            try:
                with urllib.request.urlopen(url, timeout=20) as r:
                    body = r.read()
                    self.status[url] = r.status
                    if r.headers.get_content_type() == "text/html":
                        p = Refs()
                        p.feed(body.decode("utf-8", "replace"))
                        self.ids[url] = p.ids
            except urllib.error.HTTPError as e:
                self.status[url] = e.code
            except Exception as e:  # noqa: BLE001 - a failed fetch is the test's finding
                self.status[url] = f"{type(e).__name__}: {e}"
        return self.status[url]

    def check_links(self, page_url, res):
        """Every reference of the page inside the site: 200, no raw Markdown, anchors exist."""
        self.fetch(page_url)
        with urllib.request.urlopen(page_url, timeout=20) as r:
            p = Refs()
            p.feed(r.read().decode("utf-8"))
        self.check_refs(page_url, p.refs, res)

    def check_refs(self, page_url, refs, res):
        bad = []
        for tag, ref in dict.fromkeys(refs):
            url = urllib.parse.urljoin(page_url, ref)
            parts = urllib.parse.urlsplit(url)
            if parts.scheme in ("mailto", "javascript", "data"):
                continue
            if parts.netloc != urllib.parse.urlsplit(self.base).netloc:
                if parts.scheme != "https":
                    bad.append(f"<{tag}> {ref}: leaves the site by {parts.scheme}:// (only https:// may)")
                continue
            target = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, parts.query, ""))
            if parts.path.endswith(".md"):
                bad.append(f"<{tag}> {ref}: raw Markdown (a reader should get the chapter's .html)")
                continue
            if parts.path.endswith("/") and not os.path.exists(
                    os.path.join(self.root, urllib.parse.unquote(parts.path).lstrip("/"), "index.html")):
                # This server lists a folder; a static host answers 404.
                bad.append(f"<{tag}> {ref}: a folder without index.html (a static host lists none)")
                continue
            status = self.fetch(target)
            if status != 200:
                bad.append(f"<{tag}> {ref}: HTTP {status}")
                continue
            if parts.fragment and tag == "a" and target in self.ids:
                anchor = urllib.parse.unquote(parts.fragment)
                if anchor not in self.ids[target]:
                    bad.append(f"<a> {ref}: no element with id {anchor!r} in {parts.path}")
        name = urllib.parse.urlsplit(page_url).path.lstrip("/")
        res.check(f"{name} links", not bad, "; ".join(bad) or f"{len(refs)} references")


def console_errors(driver):
    """The browser's SEVERE console entries since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]


def read_result(driver, timeout=120):
    """The page's run once #result is no longer pending (hidden in embed=1: textContent): the
    run's report (what `rendermm multiply --json` prints), with the page's facts about it
    (#page-facts) under "page"."""
    end = time.time() + timeout
    while time.time() < end:
        els = driver.find_elements(By.ID, "result")
        text = els[0].get_attribute("textContent").strip() if els else ""
        if text and text != "pending":
            facts = driver.find_element(By.ID, "page-facts").get_attribute("textContent").strip()
            return {**json.loads(text), "page": json.loads(facts) if facts else {}}
        time.sleep(0.1)
    raise AssertionError(f"#result still pending after {timeout} s")


def judged(params, r, backend, method):
    """Whether a run of `method` (the frame's, or its second in compare mode) passed as a frame
    should: its check passed, on `backend`, the size asked, and f32 within TOLERANCE."""
    size = params.get("size")
    precision = params.get("precision", "f32")
    tol = TOLERANCE.get(method, 1e-5 if precision == "f32" or r.get("precision") == "f32" else None)
    ok = r.get("check_passed") is True and r.get("backend") == backend and r.get("method") == method
    if size:
        ok = ok and "x".join(str(r.get(d)) for d in "mkn") == size
    if tol is not None:
        ok = ok and r.get("rel_err", 1) <= tol
    return ok


def judge(label, params, r, backend, res):
    """The frame's run passed; in compare mode (vs=) the second run too, on the same inputs."""
    ok = judged(params, r, backend, params.get("method", "lm"))
    vs = params.get("vs")
    if vs and (backend == "webgpu" or is_render(vs)):
        facts = r.get("page") or {}
        second = (facts.get("vs") or {}).get("report") or {}
        sums = ((facts.get("vs") or {}).get("page") or {}).get("input_sums")
        ok = ok and judged(params, second, backend, vs) and sums is not None and sums == facts.get("input_sums")
    res.check(label, ok, json.dumps(r))


def live_src_problems(src):
    """What keeps `src` from being a valid live example: embed=1, run=1, a method, and a size
    MxKxN with each side 1..64."""
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(src).query))
    bad = []
    if not urllib.parse.urlsplit(src).path.endswith("web/index.html"):
        bad.append("not web/index.html")
    for key in ("embed", "run"):
        if params.get(key) != "1":
            bad.append(f"{key}=1 missing")
    if not params.get("method"):
        bad.append("no method")
    sides = params.get("size", "").split("x")
    if len(sides) != 3 or not all(x.isdigit() and 1 <= int(x) <= 64 for x in sides):
        bad.append(f"size {params.get('size')!r} is not MxKxN with each side 1..64")
    return params, bad


def same_page(a, b):
    """Whether two URLs name the same page with the same parameters."""
    pa, pb = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (pa.path == pb.path and sorted(urllib.parse.parse_qsl(pa.query)) ==
            sorted(urllib.parse.parse_qsl(pb.query)))


def test_try_this(driver, page, res):
    """Every Try-this box of the chapter: a valid live example, its Run-this button, and the
    frame just above it running it, on pressing the button, to a passed check."""
    boxes = driver.find_elements(By.CSS_SELECTOR, "main .try-this")
    for i, box in enumerate(boxes):
        src = box.get_attribute("data-src") or ""
        params, bad = live_src_problems(src)
        label = f"{page} try-this {i + 1} {params.get('method')} {params.get('size')}" + (
            f" vs {params['vs']}" if params.get("vs") else "")
        buttons = box.find_elements(By.CSS_SELECTOR, "button.try-this-run")
        if not buttons:
            bad.append("no Run this button (book/run-it.js)")
        index = driver.execute_script("""
            const box = arguments[0];
            let found = null;
            document.querySelectorAll('.run-it iframe').forEach((f, i) => {
              if (f.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING) found = i;
            });
            return found;""", box)
        if index is None:
            bad.append("no Run-it frame above the box")
        if bad:
            res.check(label, False, f"{src}: " + "; ".join(bad))
            continue
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", buttons[0])
        buttons[0].click()
        want = urllib.parse.urljoin(driver.current_url, src)
        frame = driver.find_elements(By.CSS_SELECTOR, ".run-it iframe")[index]
        end = time.time() + 30
        while time.time() < end and not same_page(
                driver.execute_script("return arguments[0].contentWindow.location.href", frame), want):
            time.sleep(0.05)
        note = driver.execute_script(
            "const n = arguments[0].parentElement.querySelector('.run-it-now'); return n ? n.textContent : '';", frame)
        driver.switch_to.frame(frame)
        try:
            here = driver.execute_script("return location.href")
            if not same_page(here, want):
                res.check(label, False, f"the frame above shows {here}, not {want}")
                continue
            judge(label, params, read_result(driver), "webgpu", res)
        except Exception as e:  # noqa: BLE001 - report and go on
            res.check(label, False, str(e))
        finally:
            driver.switch_to.default_content()
        res.check(label + ": the frame says what it now runs", note.startswith("Now running"), repr(note))
    return len(boxes)


def test_chapter(driver, site, page, res):
    url = urllib.parse.urljoin(site.base, page)
    console_errors(driver)
    driver.get(url)
    title = driver.title
    res.check(f"{page} loads", site.fetch(url) == 200 and bool(title), f"HTTP {site.fetch(url)}, title {title!r}")
    frames = driver.find_elements(By.CSS_SELECTOR, "main iframe")
    srcs = [f.get_attribute("src") for f in frames]
    # Each frame in the chapter, in place: on WebGPU where the browser has it (the page's auto).
    for i, src in enumerate(srcs):
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(src).query))
        label = f"{page} frame {i + 1} {params.get('method')} {params.get('size')} webgpu"
        if params.get("run") != "1" or params.get("embed") != "1":
            res.check(label, False, f"{src}: a live example has embed=1 and run=1")
            continue
        frame = driver.find_elements(By.CSS_SELECTOR, "main iframe")[i]
        driver.execute_script("arguments[0].scrollIntoView();", frame)  # loading=lazy
        driver.switch_to.frame(frame)
        try:
            judge(label, params, read_result(driver), "webgpu", res)
        except Exception as e:  # noqa: BLE001 - report and go on
            res.check(label, False, str(e))
        finally:
            driver.switch_to.default_content()
    boxes = test_try_this(driver, page, res)
    errors = console_errors(driver)
    res.check(f"{page} console", not errors, " | ".join(errors)[:2000])
    # The render methods, each frame's URL loaded on its own with backend=webgl2.
    for i, src in enumerate(srcs):
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(src).query))
        if not is_render(params.get("method", "lm")):
            continue
        label = f"{page} frame {i + 1} {params.get('method')} {params.get('size')} webgl2"
        driver.get(src + "&backend=webgl2")
        try:
            judge(label, params, read_result(driver), "webgl2", res)
        except Exception as e:  # noqa: BLE001
            res.check(label, False, str(e))
        errors = console_errors(driver)
        res.check(label + " console", not errors, " | ".join(errors)[:2000])
    site.check_links(url, res)
    return len(srcs), boxes


def test_web_page(driver, site, res):
    """The web page in the site: its era list (built by its script) leads to the chapters' HTML."""
    url = urllib.parse.urljoin(site.base, "web/index.html")
    console_errors(driver)
    driver.get(url)
    end = time.time() + 60
    while time.time() < end and not driver.find_elements(By.CSS_SELECTOR, "#eras li"):
        time.sleep(0.1)
    links = driver.find_elements(By.CSS_SELECTOR, "#eras a, #intro a")
    refs = [("a", a.get_attribute("href")) for a in links]
    chapters_linked = [r for _, r in refs if "/web/" not in r]
    res.check("web/index.html links to the chapters", len(chapters_linked) >= 5,
              f"{len(chapters_linked)} links out of the page: {chapters_linked}")
    site.check_refs(url, refs, res)
    errors = console_errors(driver)
    res.check("web/index.html console", not errors, " | ".join(errors)[:2000])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--site", default=os.path.join(ROOT, "site"))
    ap.add_argument("--summary", default=os.path.join(ROOT, "docs", "SUMMARY.md"))
    ap.add_argument("--only", action="append", help="one chapter page, e.g. larsen-mcallister.html")
    args = ap.parse_args()
    if not os.path.exists(os.path.join(args.site, "index.html")):
        sys.exit(f"test_site.py: no {args.site}/index.html; build the site with web/site.sh")
    if not os.path.exists(os.path.join(args.site, "web", "index.html")):
        sys.exit(f"test_site.py: no {args.site}/web/index.html (the page, copied by web/site.sh)")

    httpd = serve_site.server(0, args.site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    print(f"serving {args.site} at {base}", flush=True)

    pages = chapters(args.summary)
    if args.only:
        pages = [p for p in pages if p in args.only]
    res = Results()
    site = Site(base, args.site)
    driver = make_driver()
    started = time.time()
    frames = boxes = 0
    try:
        for page in pages:
            f, b = test_chapter(driver, site, page, res)
            frames, boxes = frames + f, boxes + b
        if not args.only:
            test_web_page(driver, site, res)
        # A text file of the recorded run reaches the reader as UTF-8.
        for path in ("perf/h100/bench.txt",):
            if os.path.exists(os.path.join(args.site, path)):
                with urllib.request.urlopen(base + path, timeout=20) as r:
                    ctype = r.headers.get("Content-Type", "")
                res.check(f"{path} is served as UTF-8", "charset=utf-8" in ctype.lower(), ctype)
    finally:
        driver.quit()
        httpd.shutdown()
    print(f"\n{len(pages)} chapters, {frames} live examples, {boxes} try-this boxes, {len(site.status)} URLs fetched, "
          f"{time.time() - started:.0f} s")
    print(f"{res.passed} passed, {len(res.failures)} failed")
    for f in res.failures:
        print("  FAIL", f[:600])
    sys.exit(1 if res.failures else 0)


if __name__ == "__main__":
    main()
