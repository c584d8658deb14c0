// The page's loader: loads the wasm build of rendermm, fills the form from the URL, runs, and
// writes the run's report (what `rendermm multiply --json` prints, docs/report.schema.json) to
// <pre id="result"> and the page's own facts about the run to <pre id="page-facts">. Everything
// that computes, draws or checks is Rust (web/src/lib.rs); this file moves strings between the
// page and it, and marks the status passed or failed from the reports.
import init, { catalogue, run, c_npy, c_csv, seeded_inputs, idle, show_status, running_shown } from "./rendermm_web.js";

// The course is the book the page is built into (web/site.sh): the page sits in the site's web/,
// each chapter at the site's root as NAME.html. The catalogue names a chapter by its Markdown
// source (`larsen-mcallister.md`, or `docs/larsen-mcallister.md`); readers get the HTML page.
function chapterHref(course) {
  const name = course.replace(/^docs\//, "").replace(/\.md$/, "");
  return `../${name === "README" ? "index" : name}.html`;
}

// embed=1: the compact view of a chapter's "Run it" frame (index.html's html.embed rules).
const EMBED = new URLSearchParams(location.search).get("embed") === "1";
if (EMBED) document.documentElement.classList.add("embed");

// In a chapter's frame, tell the chapter how tall the page is whenever that changes (the book's
// run-it.js sizes the frame to it). Same origin only: the book and the page are one site.
if (EMBED && window.parent !== window) {
  // The content's own height (the root element's box: the body and its margins), which shrinks
  // as well as grows (a closed toggle, a shorter status); scrollHeight never goes below the
  // frame's height.
  const post = () => window.parent.postMessage(
    { rendermm: "height", height: document.documentElement.getBoundingClientRect().height },
    location.origin);
  new ResizeObserver(post).observe(document.body);
}

const result = document.getElementById("result");
const facts = document.getElementById("page-facts");
const status = document.getElementById("status");
const form = document.getElementById("form");
const download = document.getElementById("download");
// A dropped file per box ({name, bytes}); pasted text is the box's value.
const dropped = { a: null, b: null };
let finished = false;
// The methods by name, from the catalogue: which take a precision, which a block size b.
const methodInfo = new Map();

// A run's end: its report (or {error}) in #result, the page's facts in #page-facts (none after
// an error), then, in the same task, the run's status (written by the Rust side, show_status)
// marked from the reports: passed where every run shown passed its check (compare mode's second
// too). Until then the page shows the last run's status and links (a run of over 100 ms says it
// is running): nothing but #result and #page-facts changes while a product runs.
function finish(report, page) {
  finished = true;
  results += 1;
  facts.textContent = page ? JSON.stringify(page) : "";
  result.textContent = JSON.stringify(report);
  if (report.error) {
    status.textContent = "Error: " + report.error;
    status.classList.add("error");
    status.removeAttribute("data-passed");
    for (const a of download.querySelectorAll("a[data-built]")) URL.revokeObjectURL(a.href);
    download.textContent = "";
    return;
  }
  show_status();
  status.classList.remove("error");
  const reports = [report];
  if (page && page.vs) reports.push(page.vs.report || page.vs);
  status.dataset.passed = reports.every((r) => r.check_passed === true) ? "1" : "0";
}

// Whatever escapes (a panic, a failed load) still ends the run with an error object.
window.addEventListener("error", (e) => {
  if (!finished) finish({ error: "the page failed: " + (e.message || e.error || "unknown error") }, null);
});
window.addEventListener("unhandledrejection", (e) => {
  if (!finished) finish({ error: "the page failed: " + (e.reason && e.reason.message || e.reason) }, null);
});

// The URL's parameters that the form holds (the page's Rust side checks every one of them).
const FIELDS = ["method", "size", "precision", "seed", "b", "fill", "fill_a", "fill_b",
  "u8_product_bits", "u8_sum_bits", "scale_by_depth", "vs", "backend", "pace", "hold"];

function paramsFromForm() {
  const p = new Map();
  for (const f of FIELDS) {
    const el = form.elements[f];
    // A field hidden for the chosen method (precision, b, the u8 widths) is not sent.
    if (!el || (el.closest("label") || {}).hidden) continue;
    if (el.type === "checkbox") {
      if (el.checked) p.set(f, el.value);
    } else if (el.value !== "") {
      p.set(f, el.value);
    }
  }
  // Your own A and B: a dropped file's bytes (named, so its extension picks the reader), else the
  // pasted text (CSV, or Matrix Market). The Rust side reads them and says what is wrong.
  for (const key of ["a", "b"]) {
    const box = document.getElementById("matrix-" + key);
    if (dropped[key] && box.value === droppedLabel(dropped[key])) {
      p.set("matrix_" + key, dropped[key].bytes);
      p.set(`matrix_${key}_name`, dropped[key].name);
    } else if (box.value.trim() !== "") {
      p.set("matrix_" + key, box.value);
    }
  }
  return p;
}

function droppedLabel(f) {
  return `(dropped file ${f.name}, ${f.bytes.length} bytes)`;
}

// A file dropped on a box is read as bytes and named in the box; typing replaces it.
for (const key of ["a", "b"]) {
  const box = document.getElementById("matrix-" + key);
  box.addEventListener("dragover", (ev) => { ev.preventDefault(); box.classList.add("dragover"); });
  box.addEventListener("dragleave", () => box.classList.remove("dragover"));
  box.addEventListener("drop", async (ev) => {
    ev.preventDefault();
    box.classList.remove("dragover");
    const file = ev.dataTransfer && ev.dataTransfer.files[0];
    if (!file) return;
    dropped[key] = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
    box.value = droppedLabel(dropped[key]);
    box.dispatchEvent(new Event("dropped"));
  });
}

// Links to C of the last run, as .npy and as .csv. A file is built when its link is clicked, not
// before the result shows (C.csv of a 1024×1024 C takes over 100 ms to write): the click's
// handler builds it and points the link at it before the browser follows the link, and a
// second click takes the file already built. `window.rendermm.files_built` counts the files
// built (for the tests: 0 when a result shows).
let filesBuilt = 0;
function offerDownloads() {
  for (const a of download.querySelectorAll("a[data-built]")) URL.revokeObjectURL(a.href);
  download.textContent = "";
  download.append("download C: ");
  for (const [name, type, build] of [["C.npy", "application/octet-stream", c_npy], ["C.csv", "text/csv", c_csv]]) {
    const a = document.createElement("a");
    a.href = "#";
    a.download = name;
    a.id = "download-" + name.split(".")[1];
    a.textContent = name;
    a.addEventListener("click", () => {
      if (a.dataset.built) return;
      filesBuilt += 1;
      a.href = URL.createObjectURL(new Blob([build()], { type }));
      a.dataset.built = "1";
    });
    download.append(a, " ");
  }
}

// A chapter's frame shows the passes: without a pace of its own, the run is replayed at this
// many ms per pass after its result (the run itself draws nothing while it runs).
const EMBED_PACE = "120";

// Whether a run is under way: a Run pressed meanwhile is ignored. Once a run has gone on for
// RUNNING_AFTER_MS, #result and #page-facts read "pending", the status says what the run is
// doing and the button is disabled; a quicker run changes nothing on the page until its result
// (a page laid out and painted in the middle of a product held its end back: see running_start
// in page.rs). window.rendermm.results counts the results written.
let running = false;
let results = 0;
const RUNNING_AFTER_MS = 100;

async function go(params) {
  if (running) return;
  running = true;
  if (EMBED && !params.has("pace")) params.set("pace", EMBED_PACE);
  finished = false;
  const slow = setTimeout(() => {
    if (finished) return;
    result.textContent = "pending";
    facts.textContent = "pending";
    status.classList.remove("error");
    status.removeAttribute("data-passed");
    status.textContent = running_shown();
    document.getElementById("run").disabled = true;
  }, RUNNING_AFTER_MS);
  try {
    // Wall time in the page, from the call to the checked result: it includes compiling the
    // shaders, uploading the inputs and reading C back, on whatever adapter the browser gave.
    const t0 = performance.now();
    const text = await run(params);
    const obj = JSON.parse(text);
    // The status (the plain line, what changed, the details) is the Rust side's; the page's own
    // wall time, from the call to the checked result, goes into its facts for the benchmark.
    if (obj.error) {
      finish(obj, null);
    } else {
      obj.page.page_ms = performance.now() - t0;
      finish(obj.report, obj.page);
      // The links after the result; their files are built when clicked.
      offerDownloads();
    }
  } catch (e) {
    finish({ error: "the run failed inside the page: " + (e && e.message || e) }, null);
  } finally {
    clearTimeout(slow);
    running = false;
    document.getElementById("run").disabled = false;
  }
}

async function main() {
  const url = new URLSearchParams(location.search);
  try {
    await init();
  } catch (e) {
    finish({ error: "could not load the WebAssembly module: " + (e && e.message || e) }, null);
    return;
  }
  const cat = JSON.parse(catalogue());
  const webgpu = !!navigator.gpu && url.get("backend") !== "webgl2";
  const select = form.elements.method;
  const asked = url.get("method");
  const askedEra = (cat.methods.find((m) => m.name === asked) || {}).era;
  for (const m of cat.methods) {
    methodInfo.set(m.name, m);
    // A chapter's frame offers the methods of its own era only.
    if (EMBED && askedEra && m.era !== askedEra) continue;
    const o = document.createElement("option");
    o.value = m.name;
    o.textContent = m.render ? m.name : `${m.name} (compute, WebGPU)`;
    if (!m.render && !webgpu) o.disabled = true;
    o.title = `${m.era}: ${m.summary} (${m.source})`;
    if (m.unavailable) {
      // The GL-era methods (lm-gl1, hall-arbfp): listed, never run in a browser.
      o.textContent = `${m.name} (${m.unavailable.split(":")[0]})`;
      o.disabled = true;
      o.title = `${o.title}; ${m.unavailable}`;
    }
    select.appendChild(o);
  }
  // Compare mode's second method: any GPU method (a chapter's frame shows the field only when
  // its URL sets it).
  const vsSelect = form.elements.vs;
  for (const m of cat.methods) {
    const o = document.createElement("option");
    o.value = m.name;
    o.textContent = m.render ? m.name : `${m.name} (compute, WebGPU)`;
    if (!m.render && !webgpu) o.disabled = true;
    if (m.unavailable) o.disabled = true;
    vsSelect.appendChild(o);
  }
  const ol = document.querySelector("#eras ol");
  for (const e of cat.eras) {
    const li = document.createElement("li");
    const link = e.course ? ` <a href="${chapterHref(e.course)}">Read the chapter</a>` : "";
    li.innerHTML = `<strong>${e.era}</strong>. ${e.sentence}${link}<br><span class="methods">${e.methods.join(", ")}</span>`;
    ol.appendChild(li);
  }
  // The URL fills the form: ?method=lm&size=24x17x9&seed=3&precision=f32&run=1
  for (const f of FIELDS) {
    const v = url.get(f);
    if (v === null) continue;
    const el = form.elements[f];
    if (!el) continue;
    if (el.type === "checkbox") {
      el.checked = v === "1" || v === "true" || v === "on";
      continue;
    }
    if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === v)) {
      const o = document.createElement("option"); o.value = v; o.textContent = v; el.appendChild(o);
    }
    el.value = v;
  }
  // In a chapter's frame the optional fields (fill, compare with) show only where the URL sets
  // them.
  for (const label of form.querySelectorAll("label.opt")) {
    const el = label.querySelector("input, select");
    if (EMBED && !url.get(el.name)) label.classList.add("unset");
  }
  select.addEventListener("change", showFields);
  form.elements.precision.addEventListener("change", showFields);
  showFields();
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const p = paramsFromForm();
    const q = new URLSearchParams([...p.entries()]);
    if (EMBED) q.set("embed", "1");
    // The address bar follows the form once the result shows, where it changed: replaceState
    // took 6-14 ms of the page's thread here (headless Chromium 148), which a click waited
    // for before its run started.
    const search = "?" + q.toString();
    go(p).then(() => { if (location.search !== search) history.replaceState(null, "", search); });
  });
  status.textContent = "Ready: pick a method and press Run.";
  if (url.get("run") === "1") {
    // Exactly what the URL says (a test's parameters), not the form's defaults.
    const p = new Map();
    for (const [k, v] of url.entries()) if (k !== "run") p.set(k, v);
    go(p);
  }
}

// Precision and b only where the chosen method takes them (b: the Hall methods' block size);
// the 8-bit pipeline's widths and its polygon colour 1/k only with precision u8.
function showFields() {
  const m = methodInfo.get(form.elements.method.value);
  const precisionHidden = !!m && m.precision === false;
  document.getElementById("precision-field").hidden = precisionHidden;
  document.getElementById("b-field").hidden = !!m && !m.name.startsWith("hall-");
  const u8 = !precisionHidden && form.elements.precision.value === "u8";
  for (const label of form.querySelectorAll("label.u8")) label.hidden = !u8;
}

// For the benchmark and the tests: the page's run, its inputs for a seed, and whether it is idle.
window.rendermm = { run, seeded_inputs, idle, c_npy,
  get files_built() { return filesBuilt; }, get results() { return results; } };

main();
