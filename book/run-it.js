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
