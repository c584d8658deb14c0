#!/usr/bin/env python3
"""The web page's methods beside TensorFlow.js, in ONE headless Chromium session.

For each backend (WebGL2, then WebGPU) and each n, the same n x n x n product, inputs bit for bit
the same (the page's seed draws them, `rendermm.seeded_inputs`, and tfjs is handed those floats):

  tfjs-webgl / tfjs-webgpu   upload + tf.matMul + read back (await c.data()), 6 products;
                             the first after tf.setBackend + tf.ready (its init is shown apart)
  the page's methods         `rendermm.run` as a Run click calls it: lm, hall-packed, frag-mrt on
                             WebGL2; cs-fast, frag-mrt on WebGPU; 6 products on the warm page
                             (the page draws its frame after each result; the next product waits
                             until it is drawn, untimed)

warm = median of the 2nd to 6th product; cold = the first (tfjs: its init + first product).
For the page, "click" is the whole Run (the multiply, the f64 CPU reference when the inputs are
new, and the judge's check) and "method" the multiply call alone (upload, compute, readback:
what tfjs's figure covers). The ratio is the page's warm over tfjs's warm (below 1: faster).
Agreement: |C_page - C_tfjs| / |C_page| (Frobenius) and the page's own check.

  bench/web/run.sh [--sizes 64,128,256,512] [--backends webgl2,webgpu] [--skip lm]
                                                      (builds and serves the page)
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "web", "tests"))
from test_page import FLAGS  # noqa: E402  - the browser tests' Chromium flags

METHODS = {"webgl2": ["frag-mrt", "hall-packed", "lm"], "webgpu": ["cs-fast", "frag-mrt"]}
TFJS = {"webgl2": "webgl", "webgpu": "webgpu"}
REPEATS = 6

# Runs in the page: loads tfjs once (its WebGPU backend too), then for one backend and n the
# tfjs products and each method's, and hands back the times.
SCRIPT = r"""
const [backend, n, seed, methods, tfBackend, repeats, tfBase] = arguments;
const done = arguments[arguments.length - 1];
const load = (src) => new Promise((ok, fail) => {
  const s = document.createElement("script"); s.src = src; s.onload = ok; s.onerror = () => fail(new Error("could not load " + src));
  document.head.appendChild(s);
});
(async () => {
  if (!window.tf) { await load(tfBase + "/tfjs/dist/tf.min.js"); await load(tfBase + "/tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js"); }
  const rm = window.rendermm;
  const { a, b } = rm.seeded_inputs(n, n, n, BigInt(seed));
  const out = { backend, n, tfjs: { times: [] }, methods: {} };
  // tfjs: init, then upload + matMul + read.
  let t0 = performance.now();
  const ok = await tf.setBackend(tfBackend);
  await tf.ready();
  out.tfjs.init_ms = performance.now() - t0;
  if (!ok || tf.getBackend() !== tfBackend) { out.tfjs.error = "tfjs backend " + tfBackend + " unavailable"; done(out); return; }
  let ctf = null;
  for (let i = 0; i < repeats; i++) {
    t0 = performance.now();
    const ta = tf.tensor2d(a, [n, n]), tb = tf.tensor2d(b, [n, n]);
    const tc = tf.matMul(ta, tb);
    const data = await tc.data();
    out.tfjs.times.push(performance.now() - t0);
    ta.dispose(); tb.dispose(); tc.dispose();
    ctf = data;
  }
  const idle = async () => { while (!rm.idle()) await new Promise((r) => setTimeout(r, 2)); };
  for (const method of methods) {
    const m = { times: [], method_ms: [], results: [] };
    out.methods[method] = m;
    for (let i = 0; i < repeats; i++) {
      await idle();
      const p = new Map([["method", method], ["size", `${n}x${n}x${n}`], ["seed", String(seed)], ["backend", backend]]);
      t0 = performance.now();
      const r = JSON.parse(await rm.run(p));
      m.times.push(performance.now() - t0);
      if (r.error) { m.error = r.error; break; }
      m.method_ms.push(r.times.method_ms);
      m.results.push({ passed: r.passed, rel_err: r.rel_err, contexts_created: r.contexts_created,
                       pipelines_built_by_this_run: r.pipelines_built_by_this_run, times: r.times, kernel: r.kernel });
    }
    if (!m.error) {
      // C of the last product beside tfjs's.
      const bytes = rm.c_npy();
      const header = bytes[8] | (bytes[9] << 8);
      const c = new Float32Array(bytes.slice(10 + header).buffer);
      let d = 0, s = 0;
      for (let i = 0; i < c.length; i++) { d += (c[i] - ctf[i]) ** 2; s += c[i] ** 2; }
      m.vs_tfjs = Math.sqrt(d / s);
    }
    await idle();
  }
  done(out);
})().catch((e) => done({ error: String(e && e.stack || e) }));
"""


def median_warm(times):
    return statistics.median(times[1:]) if len(times) > 1 else float("nan")


def fmt(ms):
    return "-" if ms != ms else f"{ms:,.1f}" if ms < 100 else f"{ms:,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True, help="the page, e.g. http://127.0.0.1:8765/web/dist/index.html")
    ap.add_argument("--tfjs", required=True, help="URL of bench/web/node_modules/@tensorflow")
    ap.add_argument("--sizes", default="64,128,256,512")
    ap.add_argument("--backends", default="webgl2,webgpu")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip", default="", help="methods to leave out, e.g. lm (its k passes at n = 1024)")
    ap.add_argument("--json", help="also write the raw results here")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    opts = Options()
    for f in FLAGS:
        opts.add_argument(f)
    opts.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='rendermm-bench-')}")
    if os.path.exists(os.environ.get("CHROMIUM", "/usr/bin/chromium")):
        opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    driver_path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=opts, service=Service(driver_path) if os.path.exists(driver_path) else Service())
    driver.set_script_timeout(1800)
    rows, raw, failed = [], [], False
    try:
        driver.get(args.url)
        end = time.time() + 60
        while time.time() < end and not driver.execute_script("return !!(window.rendermm && window.rendermm.idle)"):
            time.sleep(0.1)
        for backend in args.backends.split(","):
            for n in sizes:
                t = time.time()
                methods = [m for m in METHODS[backend] if m not in args.skip.split(",")]
                r = driver.execute_async_script(SCRIPT, backend, n, args.seed, methods, TFJS[backend],
                                                REPEATS, args.tfjs)
                raw.append(r)
                if "error" in r and "tfjs" not in r:
                    print(f"{backend} n={n}: the page failed: {r['error']}", file=sys.stderr)
                    failed = True
                    continue
                if r["tfjs"].get("error"):
                    print(f"{backend} n={n}: {r['tfjs']['error']}", file=sys.stderr)
                    failed = True
                    continue
                tf_warm = median_warm(r["tfjs"]["times"])
                tf_cold = r["tfjs"]["init_ms"] + r["tfjs"]["times"][0]
                for method, m in r["methods"].items():
                    if m.get("error"):
                        rows.append((backend, n, method, m["error"]))
                        failed = True
                        continue
                    passed = all(x["passed"] for x in m["results"])
                    failed |= not passed
                    warm, method_warm = median_warm(m["times"]), median_warm(m["method_ms"])
                    rows.append((backend, n, method, {
                        "tfjs_warm": tf_warm, "tfjs_cold": tf_cold, "click_warm": warm,
                        "method_warm": method_warm, "cold": m["times"][0],
                        "ratio_click": warm / tf_warm, "ratio_method": method_warm / tf_warm,
                        "vs_tfjs": m.get("vs_tfjs"), "rel_err": m["results"][-1]["rel_err"], "passed": passed,
                        "contexts": m["results"][-1]["contexts_created"],
                        "built": [x["pipelines_built_by_this_run"] for x in m["results"]],
                    }))
                print(f"# {backend} n={n} done in {time.time() - t:.0f} s", file=sys.stderr, flush=True)
    finally:
        driver.quit()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)
    print("| backend | n | tfjs warm | tfjs cold (init + 1st) | method | page warm: click | page warm: multiply | "
          "ratio click | ratio multiply | page cold | rel_err (page) | page vs tfjs | pipelines built per product |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for backend, n, method, d in rows:
        if isinstance(d, str):
            print(f"| {backend} | {n} | | | {method} | error: {d} | | | | | | | |")
            continue
        print(f"| {backend} | {n} | {fmt(d['tfjs_warm'])} | {fmt(d['tfjs_cold'])} | {method} | {fmt(d['click_warm'])} | "
              f"{fmt(d['method_warm'])} | {d['ratio_click']:.2f}× | {d['ratio_method']:.2f}× | {fmt(d['cold'])} | "
              f"{d['rel_err']:.1e}{'' if d['passed'] else ' FAILED'} | "
              f"{'-' if d['vs_tfjs'] is None else format(d['vs_tfjs'], '.1e')} | "
              f"{','.join(map(str, d['built']))} |")
    print("times in ms; warm = median of the 2nd-6th product; ratio = page warm / tfjs warm")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
