#!/usr/bin/env python3
"""The web page's methods beside TensorFlow.js, in ONE headless Chromium session, timed as a user
waits for them.

For each backend (WebGL2, then WebGPU) and each n, the same n x n x n product, inputs bit for bit
the same (the page's seed draws them, `rendermm.seeded_inputs`, and tfjs is handed those floats):

  tfjs-webgl / tfjs-webgpu   in a fresh page: tf.setBackend + tf.ready, then upload + tf.matMul +
                             read back (await c.data()), 6 products; "first" = its init + the 1st
  the page's methods         lm, hall-packed, frag-mrt on WebGL2; cs-fast, frag-mrt on WebGPU.
                             Each in a fresh page loaded as a link opens it
                             (`?method=M&size=NxNxN&seed=S&backend=B&pace=0&run=1`): its first
                             product ("first": the page's facts' `page_ms`, from the page's
                             call to its checked result, after the wasm module has loaded, as
                             tfjs's first is after its script has), then Run clicked 5 times:
                             "click" is the time from the click until #result holds the run's
                             report (a MutationObserver in the page, the same clock), "multiply"
                             the report's `wall_ms` (the multiply call: upload, compute,
                             readback: what tfjs's figure covers). Between two
                             clicks the driver waits, untimed, until the page is idle (its frame
                             drawn), as a user clicks again after seeing the result.

warm = median of the 2nd to 6th product. Ratios are the page's over tfjs's (below 1: faster):
click and multiply over tfjs's warm, first over tfjs's first. Agreement: |C_page - C_tfjs| /
|C_page| (Frobenius) and the page's own check. `pace=0`: a plain multiply, as `rendermm
multiply` runs it (the form's default replay would copy lm's and Hall's running sums after each
pass for the replay, and pick Hall's b for it).

Every product is its own short driver call (the click, then polling for the result), so no call
meets the driver's timeout whatever n and method; a cell stops taking products once it has used
--cell-budget seconds, after its first click at least (lm at n = 1024: two products; the table
says how many). The table is printed whatever fails (a failed cell says why); the exit status is
0 when every cell has its times and every product passed its check, else 1. Nothing is asserted
about time.

  bench/web/run.sh [--sizes 64,96,256,384,768,1024] [--backends webgl2,webgpu] [--skip lm]
                                                      (builds and serves the page)
"""

import argparse
import base64
import json
import os
import statistics
import sys
import tempfile
import time
import traceback

import numpy as np
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "web", "tests"))
from test_page import FLAGS  # noqa: E402  - the browser tests' Chromium flags

METHODS = {"webgl2": ["frag-mrt", "hall-packed", "lm"], "webgpu": ["cs-fast", "frag-mrt"]}
TFJS = {"webgl2": "webgl", "webgpu": "webgpu"}

# The goals (#41), per click against tfjs's warm product: WebGPU at every n, WebGL2 from
# n = 256 at most 1.0x; WebGL2 below 256 at most 2x. The page's first product at most tfjs's
# init + first product.
def click_goal(backend, n):
    return 2.0 if backend == "webgl2" and n < 256 else 1.0


LOAD_TFJS = r"""
const [tfBase] = arguments;
const done = arguments[arguments.length - 1];
const load = (src) => new Promise((ok, fail) => {
  const s = document.createElement("script"); s.src = src; s.onload = ok; s.onerror = () => fail(new Error("could not load " + src));
  document.head.appendChild(s);
});
(async () => {
  await load(tfBase + "/tfjs/dist/tf.min.js");
  await load(tfBase + "/tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js");
  done({ version: tf.version.tfjs });
})().catch((e) => done({ error: String(e && e.stack || e) }));
"""

# tfjs: its init (first call only), then one product: upload + matMul + read.
TFJS_PRODUCT = r"""
const [tfBackend, n, seed, init] = arguments;
const done = arguments[arguments.length - 1];
(async () => {
  const out = {};
  if (init) {
    const { a, b } = window.rendermm.seeded_inputs(n, n, n, BigInt(seed));
    window.__ab = { a, b };
    const t0 = performance.now();
    const ok = await tf.setBackend(tfBackend);
    await tf.ready();
    out.init_ms = performance.now() - t0;
    if (!ok || tf.getBackend() !== tfBackend) { done({ error: "tfjs backend " + tfBackend + " unavailable" }); return; }
  }
  const { a, b } = window.__ab;
  const t0 = performance.now();
  const ta = tf.tensor2d(a, [n, n]), tb = tf.tensor2d(b, [n, n]);
  const tc = tf.matMul(ta, tb);
  const data = await tc.data();
  out.ms = performance.now() - t0;
  ta.dispose(); tb.dispose(); tc.dispose();
  window.__ctf = data;
  done(out);
})().catch((e) => done({ error: String(e && e.stack || e) }));
"""

# A float32 array of the page (tfjs's C, or the page's C.npy's data) as base64.
B64 = r"""
const u = new Uint8Array(arguments[0] === "tfjs" ? window.__ctf.buffer
  : (() => { const b = window.rendermm.c_npy(); const h = b[8] | (b[9] << 8); return b.slice(10 + h).buffer; })());
let s = "";
for (let i = 0; i < u.length; i += 8192) s += String.fromCharCode(...u.subarray(i, i + 8192));
return btoa(s);
"""

# Press Run; a MutationObserver notes when #result holds the run's JSON (not "pending").
CLICK = r"""
const res = document.getElementById("result");
const bench = window.__bench = { t0: 0, t1: null };
const obs = new MutationObserver(() => {
  const t = res.textContent;
  if (t && t !== "pending" && bench.t1 === null) { bench.t1 = performance.now(); obs.disconnect(); }
});
obs.observe(res, { childList: true, characterData: true, subtree: true });
bench.t0 = performance.now();
document.getElementById("run").click();
"""


def median_warm(times):
    return statistics.median(times[1:]) if len(times) > 1 else float("nan")


def fmt(ms):
    return "-" if ms is None or ms != ms else f"{ms:,.1f}" if ms < 100 else f"{ms:,.0f}"


def floats(b64):
    return np.frombuffer(base64.b64decode(b64), dtype="<f4")


class Bench:
    def __init__(self, driver, args):
        self.driver, self.args = driver, args

    def wait(self, js, timeout, what):
        end = time.time() + timeout
        while True:
            v = self.driver.execute_script(js)
            if v:
                return v
            if time.time() > end:
                raise TimeoutError(f"{what} after {timeout:.0f} s")
            # Each poll is a script run on the page's thread; the times are taken in the page.
            time.sleep(0.02)

    def open(self, query):
        self.driver.get(f"{self.args.url}?{query}")
        # Loaded: main.js has set window.rendermm and the wasm module is ready (the status no
        # longer says "Loading…").
        self.wait("return !!(window.rendermm && window.rendermm.idle)"
                  " && document.getElementById('status').textContent !== 'Loading…'", 120, "the page did not load")

    def result(self, timeout):
        """The run's report (#result, as `rendermm multiply --json` prints it) with the page's
        facts about it (#page-facts) under "page"; or {"error": ...}."""
        text = self.wait("const t = document.getElementById('result').textContent;"
                         "return t && t !== 'pending' ? t : null", timeout, "no result")
        facts = self.driver.execute_script("return document.getElementById('page-facts').textContent")
        return {**json.loads(text), "page": json.loads(facts) if facts else {}}

    def tfjs(self, backend, n):
        """tfjs's products at n in a fresh page: {times, init_ms, c} or {error}."""
        self.open("backend=" + backend)
        r = self.driver.execute_async_script(LOAD_TFJS, self.args.tfjs)
        if r.get("error"):
            return {"error": r["error"]}
        out = {"times": [], "version": r["version"]}
        for i in range(self.args.repeats):
            r = self.driver.execute_async_script(TFJS_PRODUCT, TFJS[backend], n, self.args.seed, i == 0)
            if r.get("error"):
                return {"error": r["error"]}
            if i == 0:
                out["init_ms"] = r["init_ms"]
            out["times"].append(r["ms"])
        out["c"] = floats(self.driver.execute_script(B64, "tfjs"))
        return out

    def method(self, backend, n, method):
        """The page's products: its first (the page loaded with run=1), then Run clicked."""
        started = time.time()
        q = f"method={method}&size={n}x{n}x{n}&seed={self.args.seed}&backend={backend}&pace=0&run=1"
        self.open(q)
        r = self.result(self.args.product_timeout)
        if r.get("error"):
            return {"error": r["error"]}
        out = {"first": r["page"]["page_ms"], "clicks": [], "multiply": [r["wall_ms"]],
               "results": [r], "budget_hit": False}
        for _ in range(self.args.repeats - 1):
            # Past the budget, no more clicks once there is one (lm at n = 1024: two products).
            if out["clicks"] and time.time() - started > self.args.cell_budget:
                out["budget_hit"] = True
                break
            self.wait("return window.rendermm.idle()", 120, "the page never became idle")
            self.driver.execute_script(CLICK)
            self.wait("return window.__bench.t1 !== null", self.args.product_timeout, "no result")
            t0, t1 = self.driver.execute_script("return [window.__bench.t0, window.__bench.t1]")
            r = self.result(5)
            if r.get("error"):
                return {"error": r["error"]}
            out["clicks"].append(t1 - t0)
            out["multiply"].append(r["wall_ms"])
            out["results"].append(r)
        self.wait("return window.rendermm.idle()", 120, "the page never became idle")
        out["c"] = floats(self.driver.execute_script(B64, "page"))
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True, help="the page, e.g. http://127.0.0.1:8766/web/dist/index.html")
    ap.add_argument("--tfjs", required=True, help="URL of bench/web/node_modules/@tensorflow")
    ap.add_argument("--sizes", default="64,96,256,384,768,1024")
    ap.add_argument("--backends", default="webgl2,webgpu")
    ap.add_argument("--methods", default="", help="only these methods, e.g. frag-mrt,cs-fast")
    ap.add_argument("--skip", default="", help="methods to leave out, e.g. lm")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=6, help="products per cell: the first, then clicks")
    ap.add_argument("--cell-budget", type=float, default=90,
                    help="seconds a cell may take before it stops taking products (lm at large n)")
    ap.add_argument("--product-timeout", type=float, default=600, help="seconds one product may take")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    only = [m for m in args.methods.split(",") if m]

    # The cells to fill, in order: (backend, n, method); a cell left without a row says why.
    plan = [(b, n, m) for b in args.backends.split(",") for n in sizes
            for m in METHODS[b] if m not in args.skip.split(",") and (not only or m in only)]
    rows, raw = {}, []
    browser = "?"
    driver = None
    try:
        opts = Options()
        for f in FLAGS:
            opts.add_argument(f)
        opts.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='rendermm-bench-')}")
        if os.path.exists(os.environ.get("CHROMIUM", "/usr/bin/chromium")):
            opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        driver_path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
        driver = webdriver.Chrome(options=opts, service=Service(driver_path) if os.path.exists(driver_path) else Service())
        driver.set_script_timeout(300)
        browser = f"{driver.capabilities.get('browserName', '?')} {driver.capabilities.get('browserVersion', '?')}"
        print(f"# {browser}", file=sys.stderr, flush=True)
        bench = Bench(driver, args)
        for backend in args.backends.split(","):
            for n in sizes:
                cells = [c for c in plan if c[0] == backend and c[1] == n]
                if not cells:
                    continue
                t = time.time()
                try:
                    tf = bench.tfjs(backend, n)
                except Exception as e:  # noqa: BLE001
                    tf = {"error": f"{type(e).__name__}: {e}"}
                raw.append({"backend": backend, "n": n, "tfjs": {k: v for k, v in tf.items() if k != "c"}})
                for cell in cells:
                    method = cell[2]
                    try:
                        m = bench.method(backend, n, method)
                    except Exception as e:  # noqa: BLE001
                        m = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
                    raw.append({"backend": backend, "n": n, "method": method,
                                **{k: v for k, v in m.items() if k != "c"}})
                    rows[cell] = (tf, m)
                print(f"# {backend} n={n} done in {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    except Exception:  # noqa: BLE001 - the table is printed whatever happened
        traceback.print_exc()
    finally:
        if driver is not None:
            try:
                driver.quit()
            except Exception:  # noqa: BLE001
                pass
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1, default=str)

    complete = True
    print(f"{browser}; tfjs {next((r['tfjs'].get('version') for r in raw if 'tfjs' in r and r['tfjs'].get('version')), '?')}")
    print("| backend | n | method | tfjs warm | tfjs first (init + 1st) | page warm: click | page warm: multiply "
          "| click / tfjs | multiply / tfjs | page first | first / tfjs first | products | rel_err (page) "
          "| page vs tfjs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for cell in plan:
        backend, n, method = cell
        if cell not in rows:
            complete = False
            print(f"| {backend} | {n} | {method} | not run: the session ended before it (see above) |||||||||||")
            continue
        tf, m = rows[cell]
        if tf.get("error") or m.get("error"):
            complete = False
            why = f"tfjs: {tf['error']}" if tf.get("error") else f"the page: {m['error']}"
            why = why.splitlines()[0].replace("|", "/")
            print(f"| {backend} | {n} | {method} | error: {why} |||||||||||")
            continue
        tf_warm, tf_first = median_warm(tf["times"]), tf["init_ms"] + tf["times"][0]
        clicks = m["clicks"]
        click = statistics.median(clicks) if clicks else float("nan")
        multiply = median_warm(m["multiply"])
        passed = all(r.get("check_passed") for r in m["results"])
        complete &= passed and bool(clicks)
        c_tf, c = tf["c"].astype(np.float64), m["c"].astype(np.float64)
        vs = float(np.linalg.norm(c - c_tf) / np.linalg.norm(c)) if c.shape == c_tf.shape else float("nan")
        goal = click_goal(backend, n)
        mark = lambda r, g: f"{r:.2f}×" + ("" if r <= g else " ✗")  # noqa: E731
        print(f"| {backend} | {n} | {method} | {fmt(tf_warm)} | {fmt(tf_first)} | {fmt(click)} | {fmt(multiply)} "
              f"| {mark(click / tf_warm, goal)} | {multiply / tf_warm:.2f}× | {fmt(m['first'])} "
              f"| {mark(m['first'] / tf_first, 1.0)} "
              f"| {1 + len(clicks)}{' (budget)' if m['budget_hit'] else ''} "
              f"| {m['results'][-1]['rel_err']:.1e}{'' if passed else ' FAILED'} | {vs:.1e} |")
    print("times in ms; warm = median of the 2nd-6th product (the clicks); ratios = the page's / tfjs's; "
          f"✗: past the goal (click ≤ 1.0× tfjs, ≤ 2× on WebGL2 below n = 256; first ≤ tfjs's first); "
          f"--cell-budget {args.cell_budget:.0f} s")
    sys.exit(0 if complete else 1)


if __name__ == "__main__":
    main()
