"use strict";
// The inspector's page: the screen, the tree and the windows from /api/state, the element under a
// click from /api/element, actions to /api/action; /api/live says when the view changed.
const TOKEN = __TOKEN__;
const $ = (id) => document.getElementById(id);
let state = null;
let selected = null;
let recording = false;
let drag = null;

function api(path, params = {}) {
  const query = new URLSearchParams({ token: TOKEN, ...params });
  return `${path}?${query}`;
}

async function call(path, params, body) {
  const response = await fetch(api(path, params), body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) { throw new Error(data.error || response.statusText); }
  return data;
}

function say(text, bad = false) {
  $("status").textContent = text;
  $("status").style.color = bad ? "#ff8a8a" : "#9fd49f";
}

async function refresh() {
  state = await call("/api/state");
  $("target").textContent = state.serial;
  if (state.app && !document.querySelector('#record-tab option[value="app"]')) {
    const option = new Option(`the app under test (${state.app})`, "app");
    $("record-tab").prepend(option);
    $("record-tab").value = "app";
  }
  $("screen").src = api("/api/screen", { g: state.generation, t: Date.now() });
  drawTree();
  drawWindows();
  drawWebTargets().catch((e) => { $("web-targets").textContent = `web targets not listed: ${e.message}`; });
  showRecording(state.recording);
  if (selected !== null) {
    if (state.nodes.some((n) => n.ref === selected)) { await select({ ref: selected }); } else { clearSelection(); }
  }
  say(`generation ${state.generation}, ${state.nodes.length} nodes`);
}

function drawTree() {
  const tree = $("tree");
  tree.replaceChildren();
  const titles = new Map(state.windows.map((w) => [w.id, w]));
  let window = null;
  for (const node of state.nodes) {
    if (node.window !== window) {
      window = node.window;
      const w = titles.get(window);
      const header = document.createElement("li");
      header.className = "window";
      header.textContent = `window ${w.id} ${w.type} "${w.title || ""}" ${w.package || ""}`;
      tree.append(header);
    }
    const item = document.createElement("li");
    item.textContent = "  ".repeat(node.depth + 1) + node.label;
    item.dataset.ref = node.ref;
    if (node.ref === selected) { item.classList.add("selected"); }
    item.addEventListener("click", () => select({ ref: node.ref }).catch((e) => say(e.message, true)));
    tree.append(item);
  }
}

function drawWindows() {
  const rows = state.windows.map((w) =>
    `<tr><td>${w.id}</td><td>${esc(w.type)}</td><td>${esc(w.title || "")}</td><td>${esc(w.package || "")}</td>` +
    `<td>layer ${w.layer}${w.focused ? ", focused" : ""}${w.modal ? ", modal" : ""}</td><td>${w.node_count} nodes</td></tr>`);
  $("windows").innerHTML = "<tr><th>id</th><th>type</th><th>title</th><th>package</th><th>state</th><th>nodes</th></tr>" + rows.join("");
}

// the debuggable web targets beside the windows (WebViews' and Chrome's DevTools sockets, their pages)
async function drawWebTargets() {
  const { targets } = await call("/api/web");
  const rows = targets.flatMap((t) => (t.pages.length ? t.pages : [null]).map((p) =>
    `<tr><td>${esc(t.socket)}</td><td>${esc(t.package)}</td><td>${p ? esc(p.title) : ""}</td>` +
    `<td>${p ? esc(p.url) : "(no page)"}</td><td>${p && p.in_front ? "in front" : ""}</td></tr>`));
  $("web-targets").innerHTML = "<tr><th>socket</th><th>package</th><th>title</th><th>url</th><th></th></tr>" +
    (rows.join("") || '<tr><td colspan="5">none: no debuggable WebView or Chrome page</td></tr>');
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

async function select(where) {
  const found = await call("/api/element", where);
  selected = found.ref;
  $("python").textContent = found.python;
  $("details").innerHTML = Object.entries(found.attributes)
    .map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(JSON.stringify(v))}</td></tr>`).join("");
  for (const item of $("tree").querySelectorAll("li.selected")) { item.classList.remove("selected"); }
  const item = $("tree").querySelector(`li[data-ref="${found.ref}"]`);
  if (item) { item.classList.add("selected"); item.scrollIntoView({ block: "nearest" }); }
  highlight(found.attributes.bounds);
  return found;
}

function clearSelection() {
  selected = null;
  $("python").textContent = "";
  $("details").replaceChildren();
  $("highlight").hidden = true;
}

function highlight([left, top, right, bottom]) {
  const scale = $("screen").clientWidth / state.display.width;
  const box = $("highlight");
  Object.assign(box.style, { left: `${left * scale}px`, top: `${top * scale}px`,
    width: `${(right - left) * scale}px`, height: `${(bottom - top) * scale}px` });
  box.hidden = false;
}

function physical(event) {
  const image = $("screen");
  const scale = state.display.width / image.clientWidth;
  const rect = image.getBoundingClientRect();
  return { x: Math.round((event.clientX - rect.left) * scale), y: Math.round((event.clientY - rect.top) * scale) };
}

async function act(body) {
  say(`${body.action}…`);
  const done = await call("/api/action", {}, body);
  showRecording(done.recording);
  await refresh();
}

function showRecording(rec) {
  if (rec) { $("recording").textContent = rec.source; }
}

$("screen").addEventListener("mousedown", (event) => { drag = physical(event); event.preventDefault(); });
$("screen").addEventListener("mouseup", (event) => {
  if (!state || !drag) { return; }
  const from = drag, to = physical(event);
  drag = null;
  const moved = Math.hypot(to.x - from.x, to.y - from.y);
  const run = async () => {
    if (moved > 40) {
      if (recording) { await act({ action: "swipe", x1: from.x, y1: from.y, x2: to.x, y2: to.y }); }
      return;
    }
    const found = await select(to);
    if (recording) { await act({ action: "tap", ref: found.ref }); }
  };
  run().catch((e) => say(e.message, true));
});

for (const button of document.querySelectorAll("button[data-key]")) {
  button.addEventListener("click", () => act({ action: "key", key: button.dataset.key }).catch((e) => say(e.message, true)));
}
$("type").addEventListener("click", () => {
  if (selected === null) { say("select an element to type into", true); return; }
  act({ action: "type", ref: selected, text: $("text").value }).catch((e) => say(e.message, true));
});
$("assert").addEventListener("click", () => {
  if (selected === null) { say("select an element whose text to assert", true); return; }
  act({ action: "assert_text", ref: selected }).catch((e) => say(e.message, true));
});
$("copy").addEventListener("click", () => navigator.clipboard && navigator.clipboard.writeText($("python").textContent));
$("record").addEventListener("click", async () => {
  try {
    say("starting the app to record…");
    const started = await call("/api/record", {}, { tab: $("record-tab").value });
    setRecording(true);
    showRecording(started.recording);
    await refresh();
  } catch (e) { say(e.message, true); }
});
$("stop").addEventListener("click", async () => {
  const stopped = await call("/api/record", {}, { stop: true });
  setRecording(false);
  $("recording").textContent = stopped.source;
});

function setRecording(on) {
  recording = on;
  document.body.classList.toggle("recording", on);
  $("record").disabled = on;
  $("stop").disabled = !on;
  $("mode").textContent = on ? "recording: a click taps, a drag swipes" : "inspecting: a click selects";
}

function live() {
  const url = new URL(api("/api/live"), location.href);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const socket = new WebSocket(url);
  let seen = null;
  socket.onmessage = (message) => {
    const { generation } = JSON.parse(message.data);
    if (generation !== seen) { seen = generation; refresh().catch((e) => say(e.message, true)); }
  };
  socket.onclose = () => { say("disconnected: reconnecting…", true); setTimeout(live, 1000); };
}

refresh().then(live).catch((e) => say(e.message, true));
