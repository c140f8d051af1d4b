"use strict";
// The accessibility findings of a step (--android-a11y: the step's `a11y` key, docs/trace-format.md):
// a box on the screen after the step for each finding (red for an error, amber otherwise, its rule and
// message as its tooltip), and a line each in the call's table.

function findingsOf(step) { return step.a11y || []; }

function drawFindings(step, shown) {
  const stage = document.getElementById("stage");
  for (const old of stage.querySelectorAll(".finding")) { old.remove(); }
  const image = document.getElementById("screen");
  const screen = TRACE.screen;
  const found = findingsOf(step);
  if (!found.length || !screen || image.hidden || shown !== "after") { return; }
  const place = () => {
    const scale = image.clientWidth / screen.width;
    for (const finding of found) {
      const [l, t, r, b] = finding.bounds;
      const box = document.createElement("div");
      box.className = `finding ${finding.severity}`;
      box.title = `${finding.severity}: ${finding.rule} on ${finding.element}: ${finding.message}`;
      box.dataset.rule = finding.rule;
      Object.assign(box.style, { left: `${l * scale}px`, top: `${t * scale}px`, width: `${(r - l) * scale}px`,
        height: `${(b - t) * scale}px` });
      stage.append(box);
    }
  };
  if (image.complete && image.naturalWidth) { place(); } else { image.addEventListener("load", place, { once: true }); }
}

function findingRows(step, table) {
  for (const finding of findingsOf(step)) {
    row(table, `a11y ${finding.severity}`, `${finding.rule} on ${finding.element}: ${finding.message}`);
  }
}
