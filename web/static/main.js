// The page's loader: loads the wasm build of rendermm, fills the form from the URL, runs, and
// writes the one JSON object to <pre id="result">. Everything that computes, draws or checks is
// Rust (web/src/lib.rs); this file only moves strings between the page and it.
import init, { catalogue, run } from "./rendermm_web.js";

// Course pages are the repository's docs/; web/serve.sh serves the repository root, so from
// /web/dist/index.html they are two folders up.
const DOCS = "../../";

const result = document.getElementById("result");
const status = document.getElementById("status");
const form = document.getElementById("form");
let finished = false;

function finish(obj) {
  finished = true;
  result.textContent = JSON.stringify(obj);
  if (obj.error) {
    status.textContent = "Error: " + obj.error;
    status.classList.add("error");
  }
}

// Whatever escapes (a panic, a failed load) still ends the run with an error object.
window.addEventListener("error", (e) => {
  if (!finished) finish({ error: "the page failed: " + (e.message || e.error || "unknown error") });
});
window.addEventListener("unhandledrejection", (e) => {
  if (!finished) finish({ error: "the page failed: " + (e.reason && e.reason.message || e.reason) });
});

const FIELDS = ["method", "size", "precision", "seed", "b", "backend", "pace", "hold"];

function paramsFromForm() {
  const p = new Map();
  for (const f of FIELDS) {
    const el = form.elements[f];
    if (el && el.value !== "") p.set(f, el.value);
  }
  return p;
}

async function go(params) {
  finished = false;
  result.textContent = "pending";
  status.classList.remove("error");
  document.getElementById("run").disabled = true;
  try {
    const text = await run(params);
    finish(JSON.parse(text));
  } catch (e) {
    finish({ error: "the run failed inside the page: " + (e && e.message || e) });
  } finally {
    document.getElementById("run").disabled = false;
  }
}

async function main() {
  const url = new URLSearchParams(location.search);
  try {
    await init();
  } catch (e) {
    finish({ error: "could not load the WebAssembly module: " + (e && e.message || e) });
    return;
  }
  const cat = JSON.parse(catalogue());
  const webgpu = !!navigator.gpu && url.get("backend") !== "webgl2";
  const select = form.elements.method;
  for (const m of cat.methods) {
    const o = document.createElement("option");
    o.value = m.name;
    o.textContent = m.render ? m.name : `${m.name} (compute, WebGPU)`;
    if (!m.render && !webgpu) o.disabled = true;
    o.title = `${m.era}: ${m.summary} (${m.source})`;
    select.appendChild(o);
  }
  const ol = document.querySelector("#eras ol");
  for (const e of cat.eras) {
    const li = document.createElement("li");
    const link = e.course ? ` <a href="${DOCS}${e.course}">Course page: ${e.course}</a>` : "";
    li.innerHTML = `<strong>${e.era}</strong>. ${e.sentence}${link}<br><span class="methods">${e.methods.join(", ")}</span>`;
    ol.appendChild(li);
  }
  // The URL fills the form: ?method=lm&size=24x17x9&seed=3&precision=f32&run=1
  for (const f of FIELDS) {
    const v = url.get(f);
    if (v === null) continue;
    const el = form.elements[f];
    if (!el) continue;
    if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === v)) {
      const o = document.createElement("option"); o.value = v; o.textContent = v; el.appendChild(o);
    }
    el.value = v;
  }
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = paramsFromForm();
    const q = new URLSearchParams([...p.entries()]);
    history.replaceState(null, "", "?" + q.toString());
    go(p);
  });
  status.textContent = "Ready: pick a method and press Run.";
  if (url.get("run") === "1") {
    // Exactly what the URL says (a test's parameters), not the form's defaults.
    const p = new Map();
    for (const [k, v] of url.entries()) if (k !== "run") p.set(k, v);
    go(p);
  }
}

main();
