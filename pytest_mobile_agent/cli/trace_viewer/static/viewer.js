"use strict";
// The trace viewer's page: the steps of one test (inlined in #trace-data), and for the selected step
// the screen before or after it with the target highlighted, the call, its logcat lines, the tree
// then; the video follows the timeline and the timeline the video.
const TOKEN = __TOKEN__;
const TRACE = JSON.parse(document.getElementById("trace-data").textContent);
const $ = (id) => document.getElementById(id);
let current = 0;
let which = "after";
let following = false;  // the video is playing: the timeline follows it

function url(path, params) { return `${path}?${new URLSearchParams({ token: TOKEN, ...params })}`; }

function row(table, key, value) {
  const tr = document.createElement("tr");
  const th = document.createElement("th");
  const td = document.createElement("td");
  th.textContent = key;
  td.textContent = value;
  tr.append(th, td);
  table.append(tr);
}

function seconds(step) {
  return step.ended === null ? "" : `${Math.round((step.ended - step.started) * 1000)} ms`;
}

function drawTimeline() {
  const list = $("steps");
  for (const step of TRACE.steps) {
    const item = document.createElement("li");
    const args = Object.entries(step.arguments || {}).map(([k, v]) => `${k}=${v}`).join(" ");
    const call = document.createElement("span");
    call.className = "call";
    call.textContent = `${"  ".repeat(step.depth)}${step.name} ${args} → ${step.outcome}`;
    const took = document.createElement("span");
    took.className = "took";
    took.textContent = seconds(step);
    item.append(took, call);
    if (step.source && step.depth === 0) {
      const source = document.createElement("span");
      source.className = "source";
      source.textContent = sourceText(step.source, true);
      source.title = sourceText(step.source, false);
      item.append(source);
    }
    item.dataset.index = step.index;
    if (step.error) { item.classList.add("failed"); }
    if (step.teardown) { item.classList.add("teardown"); }
    if (findingsOf(step).length) { item.classList.add("a11y"); }
    item.addEventListener("click", () => select(step.index, true));
    list.append(item);
  }
}

function sourceText(source, short) {
  // the test's file and line that made the call; the file's own name alone in the timeline
  const file = short ? source.file.split(/[\\/]/).pop() : source.file;
  return `${file}:${source.line}`;
}

function openingStep() {
  // the failed step: the test's own call that raised; for a failure outside any call (a plain
  // `assert`), the test's last call before it; a test that passed opens on its first step
  const steps = TRACE.steps;
  const failed = steps.findIndex((s) => s.error && s.depth === 0 && !s.teardown);
  if (failed >= 0) { return failed; }
  if (TRACE.test.outcome === "failed") {
    for (let i = steps.length - 1; i >= 0; i -= 1) {
      if (steps[i].depth === 0 && !steps[i].teardown) { return i; }
    }
  }
  return 0;
}

function drawFailure() {
  const test = TRACE.test;
  const shown = test.outcome === "failed" && Boolean(test.failure);
  $("failure-pane").hidden = !shown;
  $("failure").textContent = shown ? test.failure : "";
}

function screenOf(step) {
  // the step's own screen, else its top-level step's (a nested call acts within it)
  let at = step;
  while (at) {
    const name = at[which] || at[which === "after" ? "before" : "after"];
    if (name) { return { name, shown: at[which] ? which : (which === "after" ? "before" : "after") }; }
    at = at.parent === null ? null : TRACE.steps[at.parent];
  }
  return null;
}

function drawScreen(step) {
  const found = screenOf(step);
  $("no-screen").hidden = found !== null;
  $("screen").hidden = found === null;
  $("which").textContent = found ? `the screen ${found.shown} the call` : "";
  if (found) { $("screen").src = url("/member", { name: found.name }); }
  highlight(step);
  drawFindings(step, found ? found.shown : null);  // findings.js
}

function highlight(step) {
  const box = $("highlight");
  const screen = TRACE.screen;
  if (!step.target || !screen || $("screen").hidden) { box.hidden = true; return; }
  const image = $("screen");
  const place = () => {
    const scale = image.clientWidth / screen.width;
    const [l, t, r, b] = step.target;
    Object.assign(box.style, { left: `${l * scale}px`, top: `${t * scale}px`, width: `${(r - l) * scale}px`,
      height: `${(b - t) * scale}px` });
    box.hidden = false;
  };
  if (image.complete && image.naturalWidth) { place(); } else { image.onload = place; }
}

// The step's perf figures (docs/trace-format.md, `perf`): its launch, frames, memory and CPU time.
function perfRows(perf) {
  if (!perf) { return []; }
  if (perf.error) { return [["perf", `not measured: ${perf.error}`]]; }
  const rows = [];
  const launch = perf.launch;
  if (launch) {
    rows.push(["launch", launch.timed ? `${launch.state}, TotalTime ${launch.startup_ms} ms, WaitTime ${launch.wait_ms} ms`
      : `${launch.state}, not timed by am`]);
  }
  const frames = perf.frames;
  if (frames) {
    rows.push(["frames", `${frames.gfxFrameTotalCount} rendered, ${frames.jankyFrameCount} janky (${frames.gfxFrameJankPercent}%)`]);
    rows.push(["frame time", [50, 90, 95, 99].map((p) => `p${p} ${frames[`gfxFrameTime${p}thPercentileMs`]} ms`).join(", ")]);
  }
  const memory = perf.memory;
  if (memory) {
    const delta = memory.delta_pss_mb === undefined ? "" : ` (${memory.delta_pss_mb >= 0 ? "+" : ""}${memory.delta_pss_mb} MB)`;
    rows.push(["memory", `PSS ${memory.pss_mb} MB${delta}`]);
  }
  if (perf.cpu_ms !== undefined) { rows.push(["cpu", `${perf.cpu_ms} ms`]); }
  if (perf.app) { rows.push(["app", perf.app]); }
  return rows;
}

function drawCall(step) {
  const table = $("call");
  table.replaceChildren();
  row(table, "call", step.name);
  if (step.source) { row(table, "source", sourceText(step.source, false)); }
  for (const [key, value] of Object.entries(step.arguments || {})) { row(table, key, value); }
  row(table, "outcome", step.outcome);
  row(table, "ended by", step.ended_by || "");
  row(table, "took", seconds(step));
  if (step.target) { row(table, "target", `[${step.target[0]},${step.target[1]}][${step.target[2]},${step.target[3]}]`); }
  if (step.polls && step.polls.length) {
    row(table, "looks", `${step.polls.length} (${step.polls.filter((p) => p[1]).length} matched)`);
  }
  if (step.error) { row(table, step.error.type, step.error.message); }
  for (const [key, value] of perfRows(step.perf)) { row(table, key, value); }
  findingRows(step, table);  // findings.js
  if (!step.error && TRACE.test.failure && current === openingStep() && TRACE.test.outcome === "failed") {
    row(table, "the test failed after it", TRACE.test.failure);
  }
  for (const [kind, name] of Object.entries(step.snapshot || {})) {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    const td = document.createElement("td");
    const image = document.createElement("img");
    th.textContent = `snapshot ${kind}`;
    image.src = url("/member", { name });
    image.className = "snapshot";
    td.append(image);
    tr.append(th, td);
    table.append(tr);
  }
}

function drawLogs(step) {
  const end = step.ended === null ? Infinity : step.ended;
  const lines = (TRACE.logcat || []).filter((l) => l.t !== null && l.t >= step.started - 0.05 && l.t <= end + 0.05);
  $("logs").textContent = lines.length ? lines.map((l) => l.line).join("\n") : "(no logcat line during this step)";
}

async function drawTree(step) {
  const tree = $("tree");
  tree.replaceChildren();
  if (!step.tree) { tree.textContent = "(no tree at this step)"; return; }
  const response = await fetch(url("/member", { name: step.tree }));
  const windows = await response.json();
  if (current !== step.index) { return; }
  const target = step.target ? step.target.join(",") : null;
  for (const window of windows) {
    const header = document.createElement("li");
    header.className = "window";
    header.textContent = `window ${window.id} ${window.type} "${window.title || ""}" ${window.package || ""}`;
    tree.append(header);
    for (const node of window.nodes) {
      const item = document.createElement("li");
      item.textContent = `${"  ".repeat(node.depth + 1)}${node.label}`;
      if (target !== null && node.bounds.join(",") === target) { item.classList.add("target"); }
      tree.append(item);
    }
  }
}

function select(index, seek) {
  const steps = TRACE.steps;
  if (!steps.length) { return; }
  current = Math.max(0, Math.min(steps.length - 1, index));
  const step = steps[current];
  for (const item of document.querySelectorAll("#steps li")) {
    item.classList.toggle("selected", Number(item.dataset.index) === current);
  }
  const chosen = document.querySelector("#steps li.selected");
  if (chosen) { chosen.scrollIntoView({ block: "nearest" }); }
  drawScreen(step);
  drawCall(step);
  drawLogs(step);
  drawTree(step);
  if (seek) { seekVideo(step.started); }
}

// --- the video, in step with the timeline ---------------------------------------------------------

const segments = ((TRACE.video && TRACE.video.segments) || []).filter((s) => s.file);
let segment = -1;

function segmentAt(time) {
  let chosen = 0;
  segments.forEach((s, i) => { if (s.started <= time) { chosen = i; } });
  return chosen;
}

function seekVideo(time) {
  if (!segments.length) { return; }
  const video = $("video");
  const wanted = segmentAt(time);
  const offset = Math.max(0, time - segments[wanted].started);
  if (wanted !== segment) {
    segment = wanted;
    video.src = url("/video", { name: segments[wanted].file });
    video.addEventListener("loadedmetadata", () => { video.currentTime = offset; }, { once: true });
  } else {
    video.currentTime = offset;
  }
}

function followVideo() {
  if (!following || segment < 0) { return; }
  const time = segments[segment].started + $("video").currentTime;
  let index = 0;
  TRACE.steps.forEach((s, i) => { if (s.depth === 0 && s.started <= time) { index = i; } });
  if (index !== current) { select(index, false); }
}

function setUpVideo() {
  const video = $("video");
  if (!segments.length) { return; }
  video.hidden = false;
  $("no-video").hidden = true;
  video.addEventListener("play", () => { following = true; });
  video.addEventListener("pause", () => { following = false; });
  video.addEventListener("timeupdate", followVideo);
  video.addEventListener("ended", () => {
    following = false;
    if (segment + 1 < segments.length) { seekVideo(segments[segment + 1].started); video.play(); }
  });
}

// --- the page -------------------------------------------------------------------------------------

// Playwright's traces of the test's web pages, files beside the trace (docs/trace-format.md, web_traces)
function drawWebTraces() {
  const entries = (TRACE.web_traces || []).filter((entry) => entry.file);
  $("web-traces-pane").hidden = entries.length === 0;
  for (const entry of entries) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = url("/web-trace", { name: entry.file });
    link.textContent = entry.file;
    link.download = entry.file;
    item.append(link, ` (${entry.socket}${entry.target ? `, ${entry.target}` : ""})`);
    $("web-traces").append(item);
  }
}

function start() {
  const test = TRACE.test;
  $("test").textContent = `${test.nodeid}: ${test.outcome}${test.failure ? ` (${test.failure})` : ""}`;
  $("status").textContent = `${TRACE.steps.length} steps`;
  $("session-status").textContent = (TRACE.status || []).join("\n") || "(none)";
  $("missing").textContent = (TRACE.missing || []).map((m) => `${m.what}: ${m.why}`).join("\n") || "nothing";
  drawFailure();
  drawWebTraces();
  drawTimeline();
  setUpVideo();
  $("show-before").addEventListener("click", () => { which = "before"; select(current, false); });
  $("show-after").addEventListener("click", () => { which = "after"; select(current, false); });
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown") { select(current + 1, true); event.preventDefault(); }
    if (event.key === "ArrowUp") { select(current - 1, true); event.preventDefault(); }
  });
  select(openingStep(), true);
  document.body.dataset.ready = "true";
}

start();
