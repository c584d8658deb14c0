// A chapter's live example ("Run it"): the web page in the frame (embed=1) posts its height as it
// changes (the passes drawn, the check, the time); the frame takes that height, so nothing in it
// scrolls. Only messages from the site's own pages are read.
window.addEventListener("message", (ev) => {
  if (ev.origin !== window.location.origin || !ev.data || ev.data.rendermm !== "height") return;
  for (const frame of document.querySelectorAll(".run-it iframe")) {
    if (frame.contentWindow === ev.source) {
      frame.style.height = Math.ceil(ev.data.height) + 2 + "px";
    }
  }
});

// "Try this" boxes: <div class="try-this" data-src="web/index.html?embed=1&...&run=1"> after a
// chapter's frame. Each gets a "Run this" button that loads its settings into the nearest frame
// above it and scrolls that frame into view; a line under the frame says what it now runs, with
// a way back to the chapter's own example.
(function () {
  const frames = () => [...document.querySelectorAll(".run-it iframe")];

  // The last frame before `box` in the page's order.
  function frameBefore(box) {
    let found = null;
    for (const f of frames()) {
      if (f.compareDocumentPosition(box) & Node.DOCUMENT_POSITION_FOLLOWING) found = f;
    }
    return found;
  }

  // The settings of a page URL in a few words: "lm 1x64x1 u8, fill=0.5".
  function settings(src) {
    const q = new URL(src, window.location.href).searchParams;
    const main = [q.get("method") || "lm", q.get("size"), q.get("precision")].filter(Boolean);
    const rest = [];
    for (const [k, v] of q.entries()) {
      if (!["embed", "run", "method", "size", "precision"].includes(k)) rest.push(`${k}=${v}`);
    }
    return main.join(" ") + (rest.length ? ", " + rest.join(", ") : "");
  }

  // The line under a frame: what it runs now, from which box, and the way back.
  function noteFor(frame) {
    let note = frame.parentElement.querySelector(".run-it-now");
    if (!note) {
      note = document.createElement("p");
      note.className = "run-it-now";
      frame.insertAdjacentElement("afterend", note);
    }
    return note;
  }

  function load(frame, src, label) {
    if (!frame.dataset.original) frame.dataset.original = frame.getAttribute("src");
    // The frame's URL, resolved as the chapter resolves it: a test reads what it runs from here.
    frame.dataset.running = new URL(src, window.location.href).href;
    frame.removeAttribute("loading");
    frame.src = src;
    const note = noteFor(frame);
    note.textContent = "";
    if (label) {
      const back = document.createElement("button");
      back.type = "button";
      back.className = "run-it-back";
      back.textContent = "Back to the chapter's example";
      back.addEventListener("click", () => load(frame, frame.dataset.original, null));
      note.append(`Now running ${label}: ${settings(src)}. `, back);
    } else {
      note.remove();
    }
  }

  function setUp() {
    document.querySelectorAll(".try-this[data-src]").forEach((box, i) => {
      if (box.querySelector(".try-this-run")) return;
      const row = document.createElement("p");
      row.className = "try-this-actions";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "try-this-run";
      button.textContent = "Run this";
      const src = box.dataset.src;
      button.title = "Load these settings in the frame above: " + settings(src);
      const missing = document.createElement("span");
      missing.className = "try-this-missing";
      button.addEventListener("click", () => {
        const frame = frameBefore(box);
        if (!frame) {
          missing.textContent = " (this chapter has no frame above this box to run it in)";
          return;
        }
        load(frame, src, `the Try this box's settings`);
        frame.scrollIntoView({ behavior: "smooth", block: "center" });
      });
      const what = document.createElement("span");
      what.className = "try-this-settings";
      what.textContent = settings(src);
      row.append(button, " ", what, missing);
      box.appendChild(row);
      box.dataset.ready = String(i);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
