// The frontierq viewer: the store's hillshade at metric aspect, two
// players placed by clicks, their frontier set from /api/frontier, and the
// PVS of the hovered cell from /api/pvs.png. window.viewer exposes the
// state for tests.
"use strict";
const canvas = document.getElementById("map");
const ctx = canvas.getContext("2d");
const statusEl = document.getElementById("status");
const hoverEl = document.getElementById("hover");
const viewer = { info: null, frontier: null, a: null, b: null, pending: 0, error: "" };
window.viewer = viewer;
let shade = null, pvsImg = null, pvsKey = "";
let zoom = 1, panX = 0, panY = 0; // screen = pan + zoom * image pixel
let next = "a";
let userMoved = false; // until the user pans or zooms, the view fits the terrain

function cellToScreen(c, r) {
  const i = viewer.info;
  return [panX + zoom * c * i.px_per_cell_x, panY + zoom * r * i.px_per_cell_y];
}
function screenToCell(x, y) {
  const i = viewer.info;
  return [Math.floor((x - panX) / zoom / i.px_per_cell_x), Math.floor((y - panY) / zoom / i.px_per_cell_y)];
}
// cellToClient returns the page coordinates of cell (c,r)'s centre.
viewer.cellToClient = function (c, r) {
  const rect = canvas.getBoundingClientRect();
  const [x, y] = cellToScreen(c + 0.5, r + 0.5);
  return { x: rect.left + x, y: rect.top + y };
};

function resize() {
  canvas.width = canvas.clientWidth;
  canvas.height = canvas.clientHeight;
  if (userMoved) draw(); else resetView();
}
function resetView() {
  if (!shade) { draw(); return; }
  zoom = Math.min(canvas.width / shade.width, canvas.height / shade.height);
  panX = (canvas.width - zoom * shade.width) / 2;
  panY = (canvas.height - zoom * shade.height) / 2;
  draw();
}

function drawQuads(f, color) {
  const i = viewer.info;
  ctx.fillStyle = color;
  for (const [c, r, s] of f.quads) {
    const [x, y] = cellToScreen(c, r);
    ctx.fillRect(x, y, zoom * s * i.px_per_cell_x, zoom * s * i.px_per_cell_y);
  }
}
function marker(p, color) {
  const [x, y] = cellToScreen(p[0] + 0.5, p[1] + 0.5);
  ctx.beginPath();
  ctx.arc(x, y, 6, 0, 2 * Math.PI);
  ctx.fillStyle = color;
  ctx.fill();
  ctx.lineWidth = 2;
  ctx.strokeStyle = "white";
  ctx.stroke();
}
function draw() {
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!shade) return;
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(shade, panX, panY, zoom * shade.width, zoom * shade.height);
  if (pvsImg) {
    const i = viewer.info;
    ctx.drawImage(pvsImg, panX, panY, zoom * i.width * i.px_per_cell_x, zoom * i.height * i.px_per_cell_y);
  }
  if (viewer.frontier && !viewer.frontier.mutually_visible) {
    drawQuads(viewer.frontier.a, "rgba(30, 90, 230, 0.45)");
    drawQuads(viewer.frontier.b, "rgba(220, 40, 40, 0.45)");
  }
  if (viewer.a) marker(viewer.a, "rgb(30, 90, 230)");
  if (viewer.b) marker(viewer.b, "rgb(220, 40, 40)");
  if (sim.data) drawSim();
}

// Simulation playback: /api/sim runs bots under frontier-based interest
// management on the server; the page steps through its ticks.
const sim = { data: null, tick: 0, playing: false, partner: 1, last: 0 };
viewer.sim = sim;
function simFrontier() {
  // bot 0's frontier with the partner at this tick, unless they see each other.
  const d = sim.data, t = sim.tick, vis = d.visible[t] || [];
  for (let k = 0; k < vis.length; k += 2) if (vis[k] === 0 && vis[k + 1] === sim.partner) return null;
  let f = null;
  for (const r of d.frontiers) if (r.j === sim.partner && r.tick <= t) f = r;
  return f;
}
function drawSim() {
  const d = sim.data, t = sim.tick, cells = d.cells[t];
  const f = simFrontier();
  if (f) {
    drawQuads({ quads: f.a }, "rgba(30, 90, 230, 0.35)");
    drawQuads({ quads: f.b }, "rgba(220, 40, 40, 0.35)");
  }
  const at = (b) => cellToScreen(cells[2 * b] + 0.5, cells[2 * b + 1] + 0.5);
  const lines = (pairs, color) => {
    ctx.strokeStyle = color;
    ctx.lineWidth = 1.5;
    for (let k = 0; k < (pairs || []).length; k += 2) {
      const [x0, y0] = at(pairs[k]), [x1, y1] = at(pairs[k + 1]);
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1); ctx.stroke();
    }
  };
  lines(d.visible[t], "rgba(220, 30, 30, 0.8)");
  lines(d.negotiated[t], "rgba(250, 150, 0, 0.95)");
  for (let b = 0; b < d.bots; b++) {
    const [x, y] = at(b);
    ctx.beginPath();
    ctx.arc(x, y, b === 0 || b === sim.partner ? 6 : 4, 0, 2 * Math.PI);
    ctx.fillStyle = b === 0 ? "rgb(30, 90, 230)" : b === sim.partner ? "rgb(220, 40, 40)" : "rgb(20, 20, 20)";
    ctx.fill();
    ctx.strokeStyle = "white";
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }
  const vis = (d.visible[t] || []).length / 2, neg = (d.negotiated[t] || []).length / 2;
  document.getElementById("simstatus").textContent =
    `tick ${t} (${(t * d.tick_s).toFixed(1)} s): ${d.packets[t]} packets (every client to every other: ${d.npp_per_tick}), ` +
    `${vis} pairs in sight, ${neg} renegotiating` + (f ? `; bot 0 and bot ${sim.partner} hold a frontier since tick ${f.tick}` : "");
}
function setTick(t) {
  sim.tick = Math.max(0, Math.min(t, sim.data.ticks - 1));
  document.getElementById("simtick").value = sim.tick;
  draw();
}
function play(now) {
  if (!sim.playing) return;
  if (now - sim.last >= 1000 * sim.data.tick_s) {
    sim.last = now;
    if (sim.tick >= sim.data.ticks - 1) { sim.playing = false; document.getElementById("simplay").textContent = "play"; return; }
    setTick(sim.tick + 1);
  }
  requestAnimationFrame(play);
}
async function runSim() {
  const q = new URLSearchParams({ bots: document.getElementById("simbots").value, seconds: document.getElementById("simsecs").value });
  const st = document.getElementById("simstatus");
  st.textContent = "running…";
  viewer.pending++;
  try {
    const resp = await fetch("api/sim?" + q);
    const text = await resp.text();
    if (!resp.ok) throw new Error(text.trim());
    sim.data = JSON.parse(text);
    const sel = document.getElementById("simpartner");
    sel.innerHTML = "";
    for (let b = 1; b < sim.data.bots; b++) sel.add(new Option(String(b)));
    sim.partner = 1;
    const slider = document.getElementById("simtick");
    slider.max = sim.data.ticks - 1;
    slider.disabled = false;
    document.getElementById("simplay").disabled = false;
    setTick(0);
  } catch (e) {
    st.textContent = e.message;
  } finally {
    viewer.pending--;
  }
}
document.getElementById("simrun").addEventListener("click", runSim);
document.getElementById("simtick").addEventListener("input", (e) => setTick(Number(e.target.value)));
document.getElementById("simpartner").addEventListener("change", (e) => { sim.partner = Number(e.target.value); draw(); });
document.getElementById("simplay").addEventListener("click", (e) => {
  sim.playing = !sim.playing;
  e.target.textContent = sim.playing ? "pause" : "play";
  if (sim.playing) requestAnimationFrame(play);
});

function options() {
  const q = new URLSearchParams();
  for (const id of ["method", "merge", "queue", "neighbours"]) q.set(id, document.getElementById(id).value);
  return q;
}
async function query() {
  if (!viewer.a || !viewer.b) { draw(); return; }
  const q = options();
  q.set("a", viewer.a.join(","));
  q.set("b", viewer.b.join(","));
  viewer.pending++;
  try {
    const resp = await fetch("api/frontier?" + q);
    const text = await resp.text();
    if (!resp.ok) throw new Error(text.trim());
    const f = JSON.parse(text);
    viewer.frontier = f;
    viewer.error = "";
    statusEl.className = "";
    statusEl.textContent = f.mutually_visible
      ? `A (${viewer.a}) and B (${viewer.b}) see each other: no frontier set (${f.elapsed_ms.toFixed(3)} ms)`
      : `A (${viewer.a}): ${f.a.points} points in ${f.a.quads.length} quads; B (${viewer.b}): ${f.b.points} points in ${f.b.quads.length} quads; ${f.elapsed_ms.toFixed(3)} ms`;
  } catch (e) {
    viewer.frontier = null;
    viewer.error = e.message;
    statusEl.className = "error";
    statusEl.textContent = e.message;
  } finally {
    viewer.pending--;
    draw();
  }
}

let hoverTimer = 0;
function hover(c, r) {
  const i = viewer.info;
  if (c < 0 || r < 0 || c >= i.width || r >= i.height) { hoverEl.textContent = ""; return; }
  hoverEl.textContent = `cell (${c},${r})`;
  if (!document.getElementById("hoverpvs").checked) return;
  clearTimeout(hoverTimer);
  hoverTimer = setTimeout(async () => {
    const exact = document.getElementById("exact").checked ? "1" : "0";
    const key = `${c},${r},${exact}`;
    if (key === pvsKey) return;
    pvsKey = key;
    const resp = await fetch(`api/pvs.png?at=${c},${r}&exact=${exact}`);
    if (!resp.ok) { hoverEl.textContent = (await resp.text()).trim(); return; }
    const img = new Image();
    img.onload = () => { pvsImg = img; draw(); };
    img.src = URL.createObjectURL(await resp.blob());
    hoverEl.textContent = `cell (${c},${r}): its PVS ${exact === "1" ? "uncompressed" : "as stored"}`;
  }, 150);
}

let down = null;
// near returns "a" or "b" when (x,y) is on that player's marker.
function near(x, y) {
  for (const k of ["a", "b"]) {
    if (!viewer[k]) continue;
    const [mx, my] = cellToScreen(viewer[k][0] + 0.5, viewer[k][1] + 0.5);
    if (Math.hypot(mx - x, my - y) <= 8) return k;
  }
  return null;
}
canvas.addEventListener("mousedown", (e) => {
  down = { x: e.offsetX, y: e.offsetY, px: panX, py: panY, moved: false, marker: near(e.offsetX, e.offsetY) };
});
canvas.addEventListener("mousemove", (e) => {
  if (down && down.marker) { // drag a player: the frontier follows on release
    const [c, r] = screenToCell(e.offsetX, e.offsetY), i = viewer.info;
    if (c >= 0 && r >= 0 && c < i.width && r < i.height) { viewer[down.marker] = [c, r]; down.moved = true; draw(); }
    return;
  }
  if (down) {
    const dx = e.offsetX - down.x, dy = e.offsetY - down.y;
    if (Math.abs(dx) + Math.abs(dy) > 4) down.moved = true;
    if (down.moved) { panX = down.px + dx; panY = down.py + dy; userMoved = true; draw(); }
    return;
  }
  if (viewer.info) hover(...screenToCell(e.offsetX, e.offsetY));
});
canvas.addEventListener("mouseup", (e) => {
  const d = down;
  down = null;
  if (d && d.marker && d.moved) { query(); return; }
  if (!d || d.moved || !viewer.info) return;
  const [c, r] = screenToCell(e.offsetX, e.offsetY);
  const i = viewer.info;
  if (c < 0 || r < 0 || c >= i.width || r >= i.height) return;
  if (e.shiftKey || next === "b") { viewer.b = [c, r]; next = "a"; } else { viewer.a = [c, r]; next = "b"; }
  query();
});
canvas.addEventListener("wheel", (e) => {
  e.preventDefault();
  const f = Math.exp(-e.deltaY * 0.002);
  panX = e.offsetX - f * (e.offsetX - panX);
  panY = e.offsetY - f * (e.offsetY - panY);
  zoom *= f;
  userMoved = true;
  draw();
}, { passive: false });
for (const id of ["method", "merge", "queue", "neighbours"]) document.getElementById(id).addEventListener("change", query);
document.getElementById("exact").addEventListener("change", () => { pvsKey = ""; });
document.getElementById("hoverpvs").addEventListener("change", (e) => { if (!e.target.checked) { pvsImg = null; pvsKey = ""; draw(); } });
document.getElementById("reset").addEventListener("click", () => { userMoved = false; resetView(); });
new ResizeObserver(resize).observe(canvas); // the layout above it changes as text wraps

(async () => {
  viewer.info = await (await fetch("api/info")).json();
  const i = viewer.info;
  document.getElementById("store").textContent =
    `${i.path}: ${i.width}×${i.height} cells of ${i.dx_m.toPrecision(3)} × ${i.dy_m.toPrecision(3)} m, ${i.crs || "no CRS"}, hidden kept ${(100 * i.hidden_kept).toFixed(1)}%`;
  shade = new Image();
  shade.onload = () => { resize(); resetView(); viewer.ready = true; };
  shade.src = "api/hillshade.png";
})();
