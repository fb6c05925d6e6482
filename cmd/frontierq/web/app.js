// The frontierq viewer, on Leaflet (vendored in leaflet/): the store's
// terrain (a tinted shaded relief, or a grey hillshade) on a plain metric
// plane (L.CRS.Simple, one unit a metre: x east of the window's left edge,
// y north of its top edge, so the scale bar is true and north is up; a
// Unity store's rows run up, as Unity's top view shows +z), two
// players placed by clicks, their frontier set from /api/frontier (exported
// from /api/frontier.geojson and .png), the hovered cell's PVS from
// /api/pvs.png, its map coordinates, lon/lat and elevation from /api/cell,
// and a simulation's playback from /api/sim. The players, the options and
// the view live in the URL's fragment (#a=…&b=…&merge=…&view=…), so a link
// reopens the same view. window.viewer exposes the state for tests.
"use strict";
const statusEl = document.getElementById("status");
const viewer = { info: null, frontier: null, a: null, b: null, pending: 0, error: "", ready: false, readout: null };
window.viewer = viewer;

const COLORS = {
  a: "rgb(30, 90, 230)", b: "rgb(220, 40, 40)",
  visible: "rgb(40, 200, 60)", unknown: "rgb(240, 170, 20)", hidden: "rgb(60, 60, 90)",
  bot0: "rgb(150, 60, 200)", partner: "rgb(0, 160, 150)", bot: "rgb(30, 30, 30)",
  sight: "rgb(255, 0, 190)", renegotiating: "rgb(250, 150, 0)",
};

const map = L.map("map", { crs: L.CRS.Simple, minZoom: -10, maxZoom: 6, zoomSnap: 0.25, zoomDelta: 0.5, wheelPxPerZoomLevel: 120, attributionControl: false });
const renderer = L.canvas({ padding: 0.2 });
L.control.scale({ imperial: false, maxWidth: 160, position: "bottomleft" }).addTo(map);

// The arrow up the plane: north on a store with a coordinate system (the
// plane's y axis is the grid's north: rows run south); on a store in a
// game engine's world, the engine's second axis as its top view shows it
// (Unity: +z up); none on a store with neither (added by start, which
// knows the store).
const Arrow = L.Control.extend({
  onAdd() {
    const d = L.DomUtil.create("div", "panel north");
    const eng = this.options.engine;
    d.title = eng ? `${eng.name}: +${eng.axes[1]} ${eng.rows_up ? "up" : "down"}, +${eng.axes[0]} right (the engine's top view)`
      : "north: up (the grid's rows run north to south)";
    const ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
    svg.setAttribute("width", "18");
    svg.setAttribute("height", "22");
    svg.setAttribute("viewBox", "0 0 18 22");
    const arrow = document.createElementNS(ns, "path");
    arrow.setAttribute("d", "M9 1 L16 21 L9 16 L2 21 Z");
    arrow.setAttribute("fill", "#222");
    if (eng && !eng.rows_up) arrow.setAttribute("transform", "rotate(180 9 11)");
    svg.append(arrow);
    d.append(svg, eng ? "+" + eng.axes[1] : "N");
    return d;
  },
});

// Cells and the plane: cell (c, r) spans x from c·dx to (c+1)·dx metres and
// y from −r·dy down to −(r+1)·dy; on a store drawn rows up (an engine's top
// view), y from −(H−r)·dy up to −(H−r−1)·dy, the same extent flipped.
function rowLat(r) { const i = viewer.info; return (i.engine && i.engine.rows_up ? r - i.height : -r) * i.dy_m; }
function cellLatLng(c, r) { const i = viewer.info; return L.latLng(rowLat(r), c * i.dx_m); }
function cellCentre(c, r) { return L.latLng((rowLat(r) + rowLat(r + 1)) / 2, (c + 0.5) * viewer.info.dx_m); }
function latLngCell(ll) {
  const i = viewer.info, y = ll.lat / i.dy_m;
  return [Math.floor(ll.lng / i.dx_m), Math.floor(i.engine && i.engine.rows_up ? i.height + y : -y)];
}
function inGrid(c, r) { const i = viewer.info; return c >= 0 && r >= 0 && c < i.width && r < i.height; }
function terrainBounds() { const i = viewer.info; return L.latLngBounds(cellLatLng(0, i.height), cellLatLng(i.width, 0)); }
// cellToClient returns the page coordinates of cell (c,r)'s centre.
viewer.cellToClient = function (c, r) {
  const p = map.latLngToContainerPoint(cellCentre(c, r)), rect = map.getContainer().getBoundingClientRect();
  return { x: rect.left + p.x, y: rect.top + p.y };
};

// Panels: a loading notice, the cursor's readout, the legend of what is shown.
function panel(position, className) {
  const C = L.Control.extend({ onAdd() { const d = L.DomUtil.create("div", "panel " + className); L.DomEvent.disableClickPropagation(d); return d; } });
  const c = new C({ position });
  c.addTo(map);
  return c.getContainer();
}
const loadingEl = panel("topright", "loading on");
loadingEl.textContent = "loading the terrain…";
const readoutEl = panel("bottomleft", "readout");
readoutEl.textContent = "move over the terrain for a cell's coordinates and elevation";
const legendEl = panel("bottomright", "legend");
function busy(delta) {
  viewer.pending += delta;
  loadingEl.textContent = viewer.ready ? "working…" : "loading the terrain…";
  loadingEl.classList.toggle("on", viewer.pending > 0 || !viewer.ready);
}

// Layers, each with its switch.
const frontierLayer = L.layerGroup().addTo(map);
const playerLayer = L.layerGroup().addTo(map);
const simLayer = L.layerGroup().addTo(map);
let pvsLayer = null, reliefLayer = null, shadeLayer = null;
const layers = L.control.layers(null, { "frontier set": frontierLayer, "players": playerLayer, "simulation": simLayer }, { position: "topright", collapsed: true }).addTo(map);
map.on("overlayadd overlayremove baselayerchange", legend);

function legend() {
  const rows = [];
  // Built through the DOM: the page's content security policy forbids
  // inline style attributes.
  const sw = (color, label, line) => {
    const row = document.createElement("div"), box = document.createElement("span");
    box.className = line ? "sw line" : "sw";
    box.style.background = color;
    row.append(box, label);
    rows.push(row);
  };
  if (map.hasLayer(frontierLayer) && (viewer.a || viewer.b)) {
    sw(COLORS.a, "A and its frontier");
    sw(COLORS.b, "B and its frontier");
  }
  if (pvsLayer) {
    const how = document.getElementById("exact").checked ? "uncompressed PVS" : "PVS as stored";
    sw(COLORS.visible, `visible from the hovered cell (${how})`);
    if (!document.getElementById("exact").checked) sw(COLORS.unknown, "unknown: the cap's \"maybe\"");
    sw(COLORS.hidden, "hidden");
  }
  if (sim.data && map.hasLayer(simLayer) && sim.joint) {
    sw(COLORS.bot0, "bot 0 and its side (joint frontier)");
    sw(COLORS.bot, "other bots and their sides");
    sw(COLORS.sight, "pair exchanging updates", true);
  } else if (sim.data && map.hasLayer(simLayer)) {
    sw(COLORS.bot0, "bot 0 and its side");
    sw(COLORS.partner, `bot ${sim.partner} and its side`);
    sw(COLORS.bot, "other bots");
    sw(COLORS.sight, "pair in sight", true);
    sw(COLORS.renegotiating, "pair renegotiating", true);
  }
  if (rows.length === 0) {
    const row = document.createElement("div");
    row.textContent = "click to place players A and B";
    rows.push(row);
  }
  if (viewer.info && reliefLayer && map.hasLayer(reliefLayer)) {
    const i = viewer.info;
    sw("linear-gradient(to right, rgb(94,140,86), rgb(146,176,104), rgb(214,204,138), rgb(196,156,104), rgb(160,124,100), rgb(246,244,240))",
      `terrain ${Math.round(i.elevation_min_m)} m to ${Math.round(i.elevation_max_m)} m`);
    rows[rows.length - 1].firstChild.classList.add("ramp");
  }
  legendEl.replaceChildren(...rows);
}

function quads(group, list, color, opacity) {
  const i = viewer.info;
  for (const [c, r, s] of list) {
    // A quad may reach past the grid's edge: draw the cells it holds.
    L.rectangle(L.latLngBounds(cellLatLng(c, Math.min(r + s, i.height)), cellLatLng(Math.min(c + s, i.width), r)),
      { renderer, stroke: false, fillColor: color, fillOpacity: opacity, interactive: false }).addTo(group);
  }
}

const markers = {};
function placeMarker(k) {
  const p = viewer[k];
  if (!p) return;
  const ll = cellCentre(p[0], p[1]);
  if (markers[k]) { markers[k].setLatLng(ll); return; }
  markers[k] = L.marker(ll, {
    draggable: true, keyboard: false, title: k.toUpperCase(),
    icon: L.divIcon({ className: "player " + k, iconSize: [14, 14] }),
  }).addTo(playerLayer);
  markers[k].on("mousemove", (e) => move(e.latlng)); // markers do not pass it on to the map
  markers[k].on("dragend", (e) => {
    const [c, r] = latLngCell(e.target.getLatLng());
    if (inGrid(c, r)) viewer[k] = [c, r];
    placeMarker(k);
    query();
  });
}

function drawFrontier() {
  frontierLayer.clearLayers();
  const f = viewer.frontier;
  if (f && !f.mutually_visible) {
    quads(frontierLayer, f.a.quads, COLORS.a, 0.45);
    quads(frontierLayer, f.b.quads, COLORS.b, 0.45);
  }
  legend();
}

const OPTIONS = ["method", "merge", "queue", "neighbours"];
function options() {
  const q = new URLSearchParams();
  for (const id of OPTIONS) q.set(id, document.getElementById(id).value);
  return q;
}

// The permalink: the players, the options that differ from the defaults
// and the view (zoom, centre cell) in the URL's fragment, rewritten on
// every change without adding history entries.
const DEFAULTS = { method: "hierarchical", merge: "lossless", queue: "fifo", neighbours: "4" };
function permalink() {
  const q = new URLSearchParams();
  if (viewer.a) q.set("a", viewer.a.join(","));
  if (viewer.b) q.set("b", viewer.b.join(","));
  for (const id of OPTIONS) {
    const v = document.getElementById(id).value;
    if (v !== DEFAULTS[id]) q.set(id, v);
  }
  if (viewer.ready) {
    const [c, r] = latLngCell(map.getCenter());
    q.set("view", `${map.getZoom()},${c},${r}`);
  }
  return "#" + q.toString().replaceAll("%2C", ",");
}
function saveState() {
  if (!viewer.ready) return;
  history.replaceState(null, "", permalink());
}
// loadState applies the URL's fragment: it returns whether it placed a view.
function loadState() {
  const q = new URLSearchParams(location.hash.slice(1));
  const cellOf = (v) => {
    const m = /^(\d+),(\d+)$/.exec(v || "");
    return m && inGrid(+m[1], +m[2]) ? [+m[1], +m[2]] : null;
  };
  for (const id of OPTIONS) {
    const el = document.getElementById(id), v = q.get(id);
    if (v !== null && [...el.options].some((o) => o.value === v)) el.value = v;
  }
  for (const k of ["a", "b"]) {
    viewer[k] = cellOf(q.get(k));
    if (viewer[k]) placeMarker(k);
  }
  if (viewer.a && !viewer.b) next = "b";
  const m = /^(-?[\d.]+),(\d+),(\d+)$/.exec(q.get("view") || "");
  if (m && isFinite(+m[1]) && inGrid(+m[2], +m[3])) {
    map.setView(cellCentre(+m[2], +m[3]), Math.min(Math.max(+m[1], map.getMinZoom()), map.getMaxZoom()));
    return true;
  }
  return false;
}

// The export links: the same query as the frontier shown.
function exports(q, ok) {
  for (const [id, path] of [["export-geojson", "api/frontier.geojson"], ["export-png", "api/frontier.png"]]) {
    const el = document.getElementById(id);
    if (ok) el.href = path + "?" + q; else el.removeAttribute("href");
    el.classList.toggle("disabled", !ok);
    el.download = `frontier-A-${viewer.a}-B-${viewer.b}.${id === "export-png" ? "png" : "geojson"}`.replaceAll(",", "-");
  }
}
// apiError returns the message of an API error answer ({"error": …}).
async function apiError(resp) {
  const text = await resp.text();
  try { return JSON.parse(text).error || text; } catch { return text.trim(); }
}
async function query() {
  saveState();
  if (!viewer.a || !viewer.b) { exports(null, false); drawFrontier(); return; }
  const q = options();
  q.set("a", viewer.a.join(","));
  q.set("b", viewer.b.join(","));
  busy(+1);
  try {
    const resp = await fetch("api/frontier?" + q);
    if (!resp.ok) throw new Error(await apiError(resp));
    const f = await resp.json();
    viewer.frontier = f;
    viewer.error = "";
    statusEl.classList.remove("error");
    // A store in an engine's world names positions in it, else cells.
    const ax = viewer.info.engine ? viewer.info.engine.axes : null;
    const where = (p) => ax && p.world ? `${ax[0]} ${p.world[0].toFixed(1)}, ${ax[1]} ${p.world[1].toFixed(1)}` : `${p.col},${p.row}`;
    const at = (p) => `(${where(p)}${p.elevation_m !== undefined ? `, ${p.elevation_m.toFixed(0)} m` : ""})`;
    statusEl.textContent = f.mutually_visible
      ? `A ${at(f.a)} and B ${at(f.b)} see each other: no frontier set (${f.elapsed_ms.toFixed(3)} ms)`
      : `A ${at(f.a)}: ${f.a.points} cells · B ${at(f.b)}: ${f.b.points} cells · no cell of one sees the other · ${f.elapsed_ms.toFixed(1)} ms`;
    exports(q, !f.mutually_visible);
  } catch (e) {
    exports(null, false);
    viewer.frontier = null;
    viewer.error = e.message;
    statusEl.classList.add("error");
    statusEl.textContent = e.message;
  } finally {
    busy(-1);
    drawFrontier();
  }
}

let next = "a"; // the player the next click places
map.on("click", (e) => {
  if (!viewer.ready) return;
  const [c, r] = latLngCell(e.latlng);
  if (!inGrid(c, r)) return;
  const k = e.originalEvent.shiftKey || next === "b" ? "b" : "a";
  viewer[k] = [c, r];
  next = k === "a" ? "b" : "a";
  placeMarker(k);
  query();
});

// The readout: the cell under the cursor, from /api/cell (cached).
const cellCache = new Map();
let readoutTimer = 0, readoutKey = "";
function fmt(v, digits) { return v === undefined || v === null ? "" : v.toFixed(digits); }
function showReadout(l) {
  viewer.readout = l;
  const i = viewer.info;
  let s = `cell ${l.col},${l.row}`;
  if (l.x !== undefined) s += ` · map ${fmt(l.x, Math.abs(l.x) > 360 ? 1 : 6)}, ${fmt(l.y, Math.abs(l.y) > 360 ? 1 : 6)}${i.crs ? " (" + i.crs + ")" : ""}`;
  if (l.lon !== undefined) s += ` · lon ${fmt(l.lon, 5)}, lat ${fmt(l.lat, 5)}`;
  if (l.world !== undefined) s += ` · world ${fmt(l.world[0], 2)}, ${fmt(l.world[1], 2)}`;
  s += ` · ${fmt(l.elevation_m, 1)} m`;
  readoutEl.textContent = s;
}
function readout(c, r) {
  const key = `${c},${r}`;
  if (key === readoutKey) return;
  readoutKey = key;
  if (cellCache.has(key)) { showReadout(cellCache.get(key)); return; }
  clearTimeout(readoutTimer);
  readoutTimer = setTimeout(async () => {
    const resp = await fetch(`api/cell?at=${key}`);
    if (!resp.ok) { readoutEl.textContent = await apiError(resp); return; }
    const l = await resp.json();
    if (cellCache.size > 4096) cellCache.clear();
    cellCache.set(key, l);
    if (readoutKey === key) showReadout(l);
  }, 60);
}

// The hovered cell's PVS.
let pvsTimer = 0, pvsKey = "";
function hoverPVS(c, r) {
  if (!document.getElementById("hoverpvs").checked) return;
  clearTimeout(pvsTimer);
  pvsTimer = setTimeout(async () => {
    const exact = document.getElementById("exact").checked ? "1" : "0";
    const key = `${c},${r},${exact}`;
    if (key === pvsKey) return;
    pvsKey = key;
    const resp = await fetch(`api/pvs.png?at=${c},${r}&exact=${exact}`);
    if (!resp.ok) { statusEl.textContent = await apiError(resp); return; }
    const url = URL.createObjectURL(await resp.blob());
    if (pvsLayer) { URL.revokeObjectURL(pvsLayer._url); pvsLayer.setUrl(url); }
    else { pvsLayer = L.imageOverlay(url, terrainBounds(), { interactive: false }).addTo(map); legend(); }
  }, 150);
}
map.on("mousemove", (e) => move(e.latlng));
function move(latlng) {
  if (!viewer.ready) return;
  const [c, r] = latLngCell(latlng);
  if (!inGrid(c, r)) { readoutKey = ""; readoutEl.textContent = "outside the terrain"; return; }
  readout(c, r);
  hoverPVS(c, r);
}
document.getElementById("exact").addEventListener("change", () => { pvsKey = ""; legend(); });
document.getElementById("hoverpvs").addEventListener("change", (e) => {
  if (!e.target.checked && pvsLayer) { map.removeLayer(pvsLayer); pvsLayer = null; pvsKey = ""; legend(); }
});
for (const id of OPTIONS) document.getElementById(id).addEventListener("change", query);
// fit shows the whole terrain, clear of the status line above and of the
// readout and legend below.
function fit() { map.fitBounds(terrainBounds(), { paddingTopLeft: [10, 44], paddingBottomRight: [10, 90] }); }
document.getElementById("reset").addEventListener("click", fit);
map.on("moveend", saveState);
document.getElementById("link").addEventListener("click", async (e) => {
  saveState();
  try {
    await navigator.clipboard.writeText(location.href);
    e.target.textContent = "link copied";
  } catch {
    e.target.textContent = "link in the address bar";
  }
  setTimeout(() => { e.target.textContent = "copy link"; }, 2000);
});
document.getElementById("simtoggle").addEventListener("click", () => {
  const bar = document.getElementById("simbar");
  bar.hidden = !bar.hidden;
});

// Simulation playback: /api/sim runs bots under frontier-based interest
// management on the server; the page steps through its ticks.
const sim = { data: null, tick: 0, playing: false, partner: 1, last: 0, joint: false };
viewer.sim = sim;
function simFrontier() {
  // bot 0's frontier with the partner at this tick, unless they see each other.
  const d = sim.data, t = sim.tick, vis = d.visible[t] || [];
  for (let k = 0; k < vis.length; k += 2) if (vis[k] === 0 && vis[k + 1] === sim.partner) return null;
  let f = null;
  for (const r of d.frontiers) if (r.j === sim.partner && r.tick <= t) f = r;
  return f;
}
function gqSides(t) {
  // every bot's joint-frontier side at tick t: the last record at or before t.
  const sides = [];
  for (const [tk, b, c, r, s] of sim.data.gq_sides) if (tk <= t) sides[b] = [c, r, s];
  return sides;
}
function drawJoint() {
  const d = sim.data, t = sim.tick, cells = d.cells[t], sides = gqSides(t);
  for (let b = d.bots - 1; b >= 0; b--) quads(simLayer, [sides[b]], b === 0 ? COLORS.bot0 : COLORS.bot, b === 0 ? 0.45 : 0.2);
  const at = (b) => cellCentre(cells[2 * b], cells[2 * b + 1]);
  const pairs = d.gq_sends[t] || [];
  for (let k = 0; k < pairs.length; k += 2) {
    L.polyline([at(pairs[k]), at(pairs[k + 1])], { renderer, color: COLORS.sight, weight: 1.5, opacity: 0.9, interactive: false }).addTo(simLayer);
  }
  for (let b = 0; b < d.bots; b++) {
    L.circleMarker(at(b), {
      renderer, radius: b === 0 ? 6 : 4, color: "white", weight: 1.5, fillOpacity: 1, interactive: false,
      fillColor: b === 0 ? COLORS.bot0 : COLORS.bot,
    }).addTo(simLayer);
  }
  const s0 = sides[0];
  document.getElementById("simstatus").textContent =
    `tick ${t} (${(t * d.tick_s).toFixed(1)} s), joint frontier: ${d.gq_packets[t]} packets (every client to every other: ${d.npp_per_tick}), ` +
    `${pairs.length / 2} pairs exchanging; bot 0's side ${s0[2]}×${s0[2]} cells`;
}
function drawSim() {
  simLayer.clearLayers();
  if (sim.joint) { drawJoint(); return; }
  const d = sim.data, t = sim.tick, cells = d.cells[t];
  const f = simFrontier();
  if (f) {
    quads(simLayer, f.a, COLORS.bot0, 0.35);
    quads(simLayer, f.b, COLORS.partner, 0.35);
  }
  const at = (b) => cellCentre(cells[2 * b], cells[2 * b + 1]);
  const lines = (pairs, color) => {
    for (let k = 0; k < (pairs || []).length; k += 2) {
      L.polyline([at(pairs[k]), at(pairs[k + 1])], { renderer, color, weight: 1.5, opacity: 0.9, interactive: false }).addTo(simLayer);
    }
  };
  lines(d.visible[t], COLORS.sight);
  lines(d.negotiated[t], COLORS.renegotiating);
  for (let b = 0; b < d.bots; b++) {
    const main = b === 0 || b === sim.partner;
    L.circleMarker(at(b), {
      renderer, radius: main ? 6 : 4, color: "white", weight: 1.5, fillOpacity: 1, interactive: false,
      fillColor: b === 0 ? COLORS.bot0 : b === sim.partner ? COLORS.partner : COLORS.bot,
    }).addTo(simLayer);
  }
  const vis = (d.visible[t] || []).length / 2, neg = (d.negotiated[t] || []).length / 2;
  document.getElementById("simstatus").textContent =
    `tick ${t} (${(t * d.tick_s).toFixed(1)} s): ${d.packets[t]} packets (every client to every other: ${d.npp_per_tick}), ` +
    `${vis} pairs in sight, ${neg} renegotiating` + (f ? `; bot 0 and bot ${sim.partner} hold a frontier since tick ${f.tick}` : "");
}
function setTick(t) {
  sim.tick = Math.max(0, Math.min(t, sim.data.ticks - 1));
  document.getElementById("simtick").value = sim.tick;
  drawSim();
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
  st.textContent = "running the simulation on the server…";
  busy(+1);
  try {
    const resp = await fetch("api/sim?" + q);
    if (!resp.ok) throw new Error(await apiError(resp));
    sim.data = await resp.json();
    const sel = document.getElementById("simpartner");
    sel.innerHTML = "";
    for (let b = 1; b < sim.data.bots; b++) sel.add(new Option(String(b)));
    sel.disabled = sim.joint;
    sim.partner = 1;
    const slider = document.getElementById("simtick");
    slider.max = sim.data.ticks - 1;
    slider.disabled = false;
    document.getElementById("simplay").disabled = false;
    if (!map.hasLayer(simLayer)) simLayer.addTo(map);
    setTick(0);
    legend();
  } catch (e) {
    st.textContent = e.message;
  } finally {
    busy(-1);
  }
}
document.getElementById("simrun").addEventListener("click", runSim);
document.getElementById("simtick").addEventListener("input", (e) => setTick(Number(e.target.value)));
document.getElementById("simpartner").addEventListener("change", (e) => { sim.partner = Number(e.target.value); drawSim(); legend(); });
document.getElementById("simscheme").addEventListener("change", (e) => {
  sim.joint = e.target.value === "GQ";
  document.getElementById("simpartner").disabled = sim.joint || !sim.data;
  if (sim.data) { drawSim(); legend(); }
});
document.getElementById("simplay").addEventListener("click", (e) => {
  sim.playing = !sim.playing;
  e.target.textContent = sim.playing ? "pause" : "play";
  if (sim.playing) requestAnimationFrame(play);
});

(async () => {
  try {
    const resp = await fetch("api/info");
    if (!resp.ok) throw new Error(await apiError(resp));
    viewer.info = await resp.json();
  } catch (e) {
    loadingEl.textContent = "cannot load the store: " + e.message;
    return;
  }
  const i = viewer.info, km = (m) => m >= 1000 ? `${(m / 1000).toPrecision(3)} km` : `${m.toFixed(0)} m`;
  const store = document.getElementById("store");
  store.textContent = `${i.path.split("/").pop()} · ${km(i.width * i.dx_m)} × ${km(i.height * i.dy_m)}`;
  store.title = `${i.width}×${i.height} cells of ${i.dx_m.toPrecision(3)} × ${i.dy_m.toPrecision(3)} m, ${i.crs || "no coordinate system"}, ` +
    `heights ${i.elevation_min_m.toFixed(0)}–${i.elevation_max_m.toFixed(0)} m, hidden cells kept ${(100 * i.hidden_kept).toFixed(1)}%`;
  if (i.crs || i.engine) new Arrow({ position: "topleft", engine: i.engine }).addTo(map);
  map.setMaxBounds(terrainBounds().pad(0.5));
  const placed = loadState();
  if (!placed) fit();
  reliefLayer = L.imageOverlay("api/relief.png", terrainBounds(), { interactive: false }).addTo(map);
  shadeLayer = L.imageOverlay("api/hillshade.png", terrainBounds(), { interactive: false });
  layers.addBaseLayer(reliefLayer, "terrain (tinted relief)");
  layers.addBaseLayer(shadeLayer, "hillshade");
  reliefLayer.on("load", () => {
    if (viewer.ready) return;
    viewer.ready = true;
    busy(0);
    legend();
    query();
  });
  for (const l of [reliefLayer, shadeLayer]) l.on("add", () => l.bringToBack());
  reliefLayer.on("error", () => { loadingEl.textContent = "cannot load the terrain"; });
  new ResizeObserver(() => map.invalidateSize()).observe(document.getElementById("map"));
})();
