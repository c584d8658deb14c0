// A chapter's code excerpts are included from the source (mdBook's {{#include file:anchor}}), and
// an anchor inside a function keeps the function's indentation. Each code block loses the
// indentation all its lines share, so an excerpt starts at the left edge as a listing would. Works
// on the block before or after highlighting: only leading spaces of each line are dropped.
(function () {
  function dedent(code) {
    const lines = code.textContent.split("\n").filter((l) => l.trim() !== "");
    if (!lines.length) return;
    const n = Math.min(...lines.map((l) => l.match(/^ */)[0].length));
    if (!n) return;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    let atStart = true;
    let removed = 0;
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      let out = "";
      for (const ch of node.data) {
        if (ch === "\n") {
          atStart = true;
          removed = 0;
          out += ch;
        } else if (atStart && ch === " " && removed < n) {
          removed += 1;
        } else {
          atStart = false;
          out += ch;
        }
      }
      node.data = out;
    }
  }
  for (const code of document.querySelectorAll("main pre > code")) dedent(code);
})();
