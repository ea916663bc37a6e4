// Mille Fiori board, laid out like the printed one: the sea track along the
// top, the workshop hexes with their gold stars, the houses track with its
// values, the two citizen pyramids (base at the bottom), the trade grid with
// its five fleets alongside, the bonus-point spaces of every area, the seats,
// the card in play, your hand and the display.  Every space shows its symbol
// (a small hand-drawn icon); diamonds are drawn in seat colours.  Legal
// places, hand picks, extra cards and sail/decline are clickable.
// The static board description comes from view.layout (public data).

import { s, colour, fillOf, patternDefs, clickable, findLegal, minFont, explainable, wrapWords } from "../svg.js";
import { boardDialog } from "../dialog.js";
import { t, tn, tp } from "../i18n.js";

// The printed words in the reader's language: a symbol (material, citizen, good) and an
// area by their English names in the view.
function symbolName(sym) {
  const names = {
    quartz: tp("symbol", "quartz"), ash: tp("symbol", "ash"), lime: tp("symbol", "lime"), pigments: tp("symbol", "pigments"),
    key: tp("symbol", "key"), coin: tp("symbol", "coin"), lion: tp("symbol", "lion"), cross: tp("symbol", "cross"),
    shell: tp("symbol", "shell"), fish: tp("symbol", "fish"), crab: tp("symbol", "crab"), glassware: tp("symbol", "glassware"),
    carafe: tp("symbol", "carafe"), jewelry: tp("symbol", "jewelry"), swan: tp("symbol", "swan"), ship: tp("symbol", "ship"),
  };
  return names[sym] || sym;
}
function areaName(area) {
  const names = {
    workshops: tp("area", "workshops"), houses: tp("area", "houses"), nobles: tp("area", "nobles"),
    commoners: tp("area", "commoners"), trade: tp("area", "trade"), harbor: tp("area", "harbor"),
  };
  return names[area] || area;
}

const SEAT_COLOURS = ["red", "blue", "green", "yellow"];
const AREA_COLOUR = {
  workshops: "#b8893f", houses: "#7f9a3e", nobles: "#9c4f78",
  commoners: "#3f82a0", trade: "#b8692c", harbor: "#35598f",
};
const SPACE_TINT = {
  quartz: "#eef2f5", ash: "#ddd8d1", lime: "#eef2d8", pigments: "#f7e0ea",
  coin: "#f7edd0", lion: "#f5e2c8", cross: "#f3dcdc",
  shell: "#f8e6da", fish: "#dde9f5", crab: "#f7dcd5",
};
const PANEL = "#f4ecda";
const INK = "#2a2520";
const MUTED = "#7a6e5e";
// The smallest font size (user units) that reads 10 px on this screen (svg.js minFont);
// 0 on a wide screen, where the sizes as drawn are readable.
let fmin = 0;
const size = (f) => Math.max(f, fmin);

// `text` at font size f (raised to the readable minimum) in lines no wider than
// `width` (about 0.58 em a character), the last line's baseline at yLast, so that a
// note at the foot of a panel grows upwards; the lines as <text> elements.
function footNote(x, yLast, width, f, text, attrs = {}) {
  const fs = size(f), max = Math.max(1, Math.floor(width / (fs * 0.58)));
  const lines = [""];
  for (const wd of String(text).split(" ")) {
    const cur = lines[lines.length - 1];
    if (cur && (cur + " " + wd).length > max) lines.push(wd);
    else lines[lines.length - 1] = cur ? cur + " " + wd : wd;
  }
  return lines.map((line, j) => s("text", { x, y: yLast - (lines.length - 1 - j) * fs * 1.2, "font-size": fs, fill: MUTED, ...attrs, text: line }));
}

// ---------------------------------------------------------------------------
// icons, drawn in a -10..10 box and scaled to radius r
// ---------------------------------------------------------------------------
function starPath(cx, cy, r, inner = 0.45) {
  let d = "";
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 ? r * inner : r;
    d += `${i ? "L" : "M"}${(cx + rr * Math.cos(a)).toFixed(2)} ${(cy + rr * Math.sin(a)).toFixed(2)} `;
  }
  return d + "Z";
}

function spikes(n, r1, r2) {
  let d = "";
  for (let i = 0; i < 2 * n; i++) {
    const a = (i * Math.PI) / n;
    const rr = i % 2 ? r2 : r1;
    d += `${i ? "L" : "M"}${(rr * Math.cos(a)).toFixed(2)} ${(rr * Math.sin(a)).toFixed(2)} `;
  }
  return d + "Z";
}

const ICONS = {
  quartz: () => [
    s("path", { d: "M0 -9.5 L6.5 -4 L6.5 4.5 L0 9.5 L-6.5 4.5 L-6.5 -4 Z", fill: "#dbe8f1", stroke: "#4f6b82", "stroke-width": 1.3 }),
    s("path", { d: "M0 -9.5 L0 9.5 M-6.5 -4 L0 0 L6.5 -4", fill: "none", stroke: "#7d97ab", "stroke-width": 0.9 }),
    s("path", { d: "M-4.5 -3 L-1.5 -6.5 L-1.5 1 Z", fill: "#ffffff" }),
  ],
  ash: () => [
    s("path", { d: "M-9.5 7.5 Q-7 -1 -2 -4 Q0 -7.5 2.5 -4 Q7.5 -1 9.5 7.5 Z", fill: "#8d8781", stroke: "#3f3a35", "stroke-width": 1.2 }),
    s("circle", { cx: -3, cy: 2, r: 1.1, fill: "#d8d3cc" }),
    s("circle", { cx: 2.5, cy: 4, r: 1.1, fill: "#d8d3cc" }),
    s("circle", { cx: 1, cy: -1.5, r: 0.9, fill: "#d8d3cc" }),
    s("path", { d: "M-1 -6 Q-3 -8.5 -1 -10 M2 -6.5 Q4 -8.5 2.5 -10", fill: "none", stroke: "#8d8781", "stroke-width": 1 }),
  ],
  lime: () => [
    s("path", { d: "M-7.5 -2 L7.5 -2 L5.5 8.5 L-5.5 8.5 Z", fill: "#b99a6a", stroke: "#5e4a2a", "stroke-width": 1.2 }),
    s("path", { d: "M-7.5 -2 Q-6 -8.5 -1 -7 Q2 -10 5 -6.5 Q8 -5.5 7.5 -2 Z", fill: "#f7f8ec", stroke: "#8a9060", "stroke-width": 1.1 }),
    s("path", { d: "M-6.5 3 H6.5", stroke: "#5e4a2a", "stroke-width": 0.9 }),
  ],
  pigments: () => [
    s("circle", { cx: 0, cy: -4.5, r: 4.6, fill: "#f2c230", stroke: "#6b5410", "stroke-width": 1 }),
    s("circle", { cx: -4.8, cy: 3.6, r: 4.6, fill: "#d23c3c", stroke: "#6b1a1a", "stroke-width": 1 }),
    s("circle", { cx: 4.8, cy: 3.6, r: 4.6, fill: "#2f6fc4", stroke: "#173a6b", "stroke-width": 1 }),
  ],
  coin: () => [
    s("circle", { r: 9, fill: "#e8b931", stroke: "#7a5a08", "stroke-width": 1.3 }),
    s("circle", { r: 6.2, fill: "none", stroke: "#9a7410", "stroke-width": 1 }),
    s("path", { d: starPath(0, 0, 3.6), fill: "#9a7410" }),
  ],
  lion: () => [
    s("path", { d: spikes(11, 9.8, 7), fill: "#b8762a", stroke: "#6a3f10", "stroke-width": 0.9 }),
    s("circle", { r: 5.6, fill: "#f0c76a", stroke: "#6a3f10", "stroke-width": 0.9 }),
    s("circle", { cx: -2, cy: -1.3, r: 0.9, fill: "#3a2510" }),
    s("circle", { cx: 2, cy: -1.3, r: 0.9, fill: "#3a2510" }),
    s("path", { d: "M-1.3 1.2 L1.3 1.2 L0 2.7 Z M0 2.7 Q-1.5 4.2 -2.6 3.4 M0 2.7 Q1.5 4.2 2.6 3.4", fill: "#3a2510", stroke: "#3a2510", "stroke-width": 0.6 }),
  ],
  cross: () => [
    s("path", { d: "M-2.6 -9.5 H2.6 V-4 H8 V1.2 H2.6 V9.5 H-2.6 V1.2 H-8 V-4 H-2.6 Z", fill: "#a8322d", stroke: "#5a1210", "stroke-width": 1.1 }),
    s("circle", { cx: 0, cy: -1.4, r: 1.5, fill: "#f2d27a" }),
  ],
  shell: () => [
    s("path", { d: "M0 8.5 L-9 -0.5 Q-8.5 -9 0 -9 Q8.5 -9 9 -0.5 Z", fill: "#f3c19c", stroke: "#9a5630", "stroke-width": 1.2 }),
    s("path", { d: "M0 8.5 L-5.5 -7 M0 8.5 L0 -9 M0 8.5 L5.5 -7 M0 8.5 L-8.5 -3 M0 8.5 L8.5 -3", fill: "none", stroke: "#9a5630", "stroke-width": 0.8 }),
    s("path", { d: "M-3 6 L-3 9.5 L3 9.5 L3 6 Z", fill: "#f3c19c", stroke: "#9a5630", "stroke-width": 1 }),
  ],
  fish: () => [
    s("path", { d: "M4.5 0 L10 -5.5 L10 5.5 Z", fill: "#3f74b3", stroke: "#1d3c63", "stroke-width": 1 }),
    s("ellipse", { cx: -1.5, cy: 0, rx: 7.5, ry: 4.8, fill: "#5b93cf", stroke: "#1d3c63", "stroke-width": 1.1 }),
    s("circle", { cx: -5, cy: -1, r: 1.1, fill: "#10233a" }),
    s("path", { d: "M-1 -3 Q1 0 -1 3", fill: "none", stroke: "#1d3c63", "stroke-width": 0.8 }),
  ],
  crab: () => [
    s("path", { d: "M-5 2 L-9.5 6 M-5 3.5 L-8 8 M5 2 L9.5 6 M5 3.5 L8 8 M-4 -2 L-7.5 -5.5 M4 -2 L7.5 -5.5", stroke: "#8a2a18", "stroke-width": 1.2, fill: "none" }),
    s("path", { d: "M-9.5 -9 Q-6 -9.5 -6 -6 L-8 -5 Q-9 -7 -9.5 -9 Z M9.5 -9 Q6 -9.5 6 -6 L8 -5 Q9 -7 9.5 -9 Z", fill: "#d9533a", stroke: "#8a2a18", "stroke-width": 1 }),
    s("ellipse", { cx: 0, cy: 1.5, rx: 6.5, ry: 4.6, fill: "#d9533a", stroke: "#8a2a18", "stroke-width": 1.2 }),
    s("circle", { cx: -2, cy: -3.3, r: 1, fill: "#2a0a05" }),
    s("circle", { cx: 2, cy: -3.3, r: 1, fill: "#2a0a05" }),
  ],
  glassware: () => [
    s("path", { d: "M-6.5 -9 H6.5 Q7 -0.5 0 1 Q-7 -0.5 -6.5 -9 Z", fill: "#cfe8f3", stroke: "#2f6a8f", "stroke-width": 1.2 }),
    s("path", { d: "M-5.8 -5 H5.8 Q5 -0.8 0 0 Q-5 -0.8 -5.8 -5 Z", fill: "#c4473f", opacity: 0.8 }),
    s("path", { d: "M0 1 V7 M-5 8.6 H5", stroke: "#2f6a8f", "stroke-width": 2, fill: "none", "stroke-linecap": "round" }),
  ],
  carafe: () => [
    s("path", { d: "M-2.2 -9.5 H2.2 V-4.2 Q7.5 -0.5 6.5 4.5 Q5.5 9.5 0 9.5 Q-5.5 9.5 -6.5 4.5 Q-7.5 -0.5 -2.2 -4.2 Z", fill: "#a6dccd", stroke: "#25695a", "stroke-width": 1.2 }),
    s("path", { d: "M-4 2 Q0 3.5 4 2", fill: "none", stroke: "#25695a", "stroke-width": 0.9 }),
    s("path", { d: "M-3 -10 H3", stroke: "#25695a", "stroke-width": 1.6 }),
  ],
  jewelry: () => [
    s("circle", { cx: 0, cy: 2.5, r: 6.3, fill: "none", stroke: "#c9971e", "stroke-width": 2.6 }),
    s("path", { d: "M0 -9.5 L4.2 -5.5 L0 -1.5 L-4.2 -5.5 Z", fill: "#3fa7c9", stroke: "#1a5266", "stroke-width": 1 }),
  ],
  swan: () => [
    s("path", { d: "M-9.5 1.5 Q-4 10 5.5 6.5 Q8 4.5 5.5 2.5 Q0 4 -9.5 1.5 Z", fill: "#fdfdfb", stroke: "#444", "stroke-width": 1.1 }),
    s("path", { d: "M4.5 3.5 C2 -1 1 -7.5 5 -8.5 Q7.5 -9 8 -6.5", fill: "none", stroke: "#444", "stroke-width": 2.6, "stroke-linecap": "round" }),
    s("path", { d: "M4.5 3.5 C2 -1 1 -7.5 5 -8.5 Q7.5 -9 8 -6.5", fill: "none", stroke: "#fdfdfb", "stroke-width": 1.2, "stroke-linecap": "round" }),
    s("path", { d: "M7.8 -6.8 L10.2 -5", stroke: "#e0801f", "stroke-width": 1.6, "stroke-linecap": "round" }),
  ],
  key: () => [
    s("circle", { cx: -5, cy: 0, r: 3.8, fill: "none", stroke: "#6b5423", "stroke-width": 2.1 }),
    s("path", { d: "M-1.3 0 H9.5 M6.5 0 V4 M9 0 V3.2", fill: "none", stroke: "#6b5423", "stroke-width": 2.1, "stroke-linecap": "round" }),
  ],
  ship: () => [
    s("path", { d: "M0 3 V-9.5", stroke: "#4a3520", "stroke-width": 1.3 }),
    s("path", { d: "M1 -9 L8.5 1.5 H1 Z", fill: "#fbf7ee", stroke: "#4a3520", "stroke-width": 1 }),
    s("path", { d: "M-1 -7 L-7 1.5 H-1 Z", fill: "#fbf7ee", stroke: "#4a3520", "stroke-width": 1 }),
    s("path", { d: "M-10 3 H10 L6.5 8.5 H-6.5 Z", fill: "#8a5a34", stroke: "#4a2e15", "stroke-width": 1.2 }),
  ],
};

function icon(sym, cx, cy, r, opacity) {
  const draw = ICONS[sym];
  const g = s("g", { transform: `translate(${cx} ${cy}) scale(${r / 10})`, "data-symbol": sym, opacity });
  if (draw) for (const c of draw()) g.appendChild(c);
  else g.appendChild(s("circle", { r: 8, fill: "#ccc" }));
  return g;
}

// ---------------------------------------------------------------------------
// pieces
// ---------------------------------------------------------------------------
function seatFill(p, ctx) { return fillOf(SEAT_COLOURS[p % 4], ctx.patterns); }
function seatStroke(p) { return colour(SEAT_COLOURS[p % 4]).stroke; }

// a cut diamond in the seat's colour (with the seat number in colour-blind mode)
function gem(cx, cy, r, p, ctx) {
  const g = s("g", { class: "mf-diamond", "data-owner": p });
  const d = `M${cx - r} ${cy - r * 0.3} L${cx - r * 0.55} ${cy - r * 0.85} H${cx + r * 0.55} L${cx + r} ${cy - r * 0.3} L${cx} ${cy + r} Z`;
  g.appendChild(s("path", { d, fill: seatFill(p, ctx), stroke: seatStroke(p), "stroke-width": 1.3, "stroke-linejoin": "round" }));
  g.appendChild(s("path", { d: `M${cx - r} ${cy - r * 0.3} H${cx + r} M${cx - r * 0.3} ${cy - r * 0.3} L${cx} ${cy + r} L${cx + r * 0.3} ${cy - r * 0.3}`, fill: "none", stroke: "#ffffff88", "stroke-width": 0.9 }));
  g.appendChild(s("path", { d: `M${cx - r * 0.55} ${cy - r * 0.85} L${cx - r * 0.2} ${cy - r * 0.3} H${cx - r}`, fill: "#ffffff66" }));
  if (ctx.patterns) {
    g.appendChild(s("circle", { cx, cy: cy + r * 0.05, r: r * 0.48, fill: "#fffdf8", stroke: seatStroke(p), "stroke-width": 0.8 }));
    g.appendChild(s("text", { x: cx, y: cy + r * 0.05 + r * 0.3, "text-anchor": "middle", "font-size": r * 0.85, "font-weight": 800, fill: "#111", text: p + 1 }));
  }
  return g;
}

function keyed(key, el) { el.setAttribute("data-motion-key", key); return el; }

function shipMarker(cx, cy, p, ctx, size = 1) {
  const g = s("g", { class: "mf-ship", "data-seat": p, transform: `translate(${cx} ${cy}) scale(${size})`, "data-motion-key": `mf-ship-${p}` });
  g.appendChild(s("path", { d: "M0 1 V-7", stroke: "#3a2a18", "stroke-width": 1 }));
  g.appendChild(s("path", { d: "M0.8 -6.8 L5 0 H0.8 Z", fill: "#fbf7ee", stroke: "#3a2a18", "stroke-width": 0.7 }));
  g.appendChild(s("path", { d: "M-6.5 1 H6.5 L4.2 5.5 H-4.2 Z", fill: seatFill(p, ctx), stroke: seatStroke(p), "stroke-width": 1 }));
  if (ctx.patterns) g.appendChild(s("text", { x: -2.4, y: -1, "text-anchor": "middle", "font-size": 6.5, "font-weight": 800, fill: "#111", text: p + 1 }));
  return g;
}

// ship's wheel with the card's wheel number; on a phone the hub grows to hold the
// number at the size it is read at
function wheel(cx, cy, r0, n) {
  const f = size(r0 * 1.1), r = Math.max(r0, f * 0.62);
  const g = s("g", { class: "mf-wheel" });
  let d = "";
  for (let i = 0; i < 8; i++) {
    const a = (i * Math.PI) / 4;
    d += `M${(cx + r * 0.5 * Math.cos(a)).toFixed(2)} ${(cy + r * 0.5 * Math.sin(a)).toFixed(2)} L${(cx + r * 1.28 * Math.cos(a)).toFixed(2)} ${(cy + r * 1.28 * Math.sin(a)).toFixed(2)} `;
  }
  g.appendChild(s("path", { d, stroke: "#6b4526", "stroke-width": r * 0.22, "stroke-linecap": "round" }));
  g.appendChild(s("circle", { cx, cy, r, fill: "#fbf3e0", stroke: "#6b4526", "stroke-width": r * 0.2 }));
  g.appendChild(s("text", { x: cx, y: cy + f * 0.35, "text-anchor": "middle", "font-size": f, "font-weight": 800, fill: "#3a2510", text: n }));
  return g;
}

function bonusRow(x, y, values, owners, ctx, label = true) {
  const g = s("g", { class: "mf-bonus" });
  let bx = x;
  if (label) {
    g.appendChild(s("text", { x: bx, y: y + 15, "font-size": 10.5, fill: MUTED, "font-style": "italic", text: t("bonus") }));
    bx += Math.max(34, size(10.5) * 0.58 * 5 + 4); // room for the word at the size it is read at
  }
  values.forEach((val, k) => {
    const o = owners ? owners[k] : -1;
    const tx = bx + k * 38;
    g.appendChild(s("rect", { x: tx, y, width: 35, height: 21, rx: 4, fill: "#f7e3a6", stroke: "#9a7a2c", "stroke-width": 1 }));
    g.appendChild(s("text", { x: tx + 12, y: y + 15, "text-anchor": "middle", "font-size": 11.5, "font-weight": 800, fill: "#5a4312", text: val }));
    if (o >= 0) g.appendChild(gem(tx + 27, y + 10.5, 6.5, o, ctx));
    else g.appendChild(s("circle", { cx: tx + 27, cy: y + 10.5, r: 5, fill: "#fffaf0", stroke: "#b8a060", "stroke-dasharray": "2 1.5" }));
  });
  return g;
}

function panel(x, y, w, hgt, title, area, extra, extraRight) {
  const g = s("g", { class: "mf-area", "data-area": area });
  g.appendChild(s("rect", { x, y, width: w, height: hgt, rx: 10, fill: PANEL, stroke: AREA_COLOUR[area] || "#888", "stroke-width": 2 }));
  g.appendChild(s("path", { d: `M${x + 10} ${y} H${x + w - 10} Q${x + w} ${y} ${x + w} ${y + 10} V${y + 24} H${x} V${y + 10} Q${x} ${y} ${x + 10} ${y} Z`, fill: AREA_COLOUR[area] || "#888" }));
  g.appendChild(s("text", { x: x + 10, y: y + 17, "font-size": 13.5, "font-weight": 700, fill: "#fff", text: title }));
  if (extra && extraRight) g.appendChild(s("text", { x: x + w - 8, y: y + 17, "text-anchor": "end", "font-size": 10, fill: "#fffbe9", text: extra }));
  else if (extra) g.appendChild(s("text", { x: x + 16 + title.length * 9.4, y: y + 17, "font-size": 10.5, fill: "#fffbe9", text: extra }));
  return g;
}

// wrap a space: clickable when placing a diamond there is legal
function placeable(g, space, ctx, hlShape) {
  const place = findLegal(ctx.legal, { type: "place", space })[0];
  // while a diamond is being placed, a space it may not go on says why when tapped
  if (!place) return ctx.legal.some((e) => e.type === "place") ? explainable(g, { type: "place", space }, ctx) : g;
  g.appendChild(hlShape);
  return clickable(g, place, ctx.act);
}

function cardFace(x, y, w, hgt, code, L, ctx, opts = {}) {
  const i = String(code).lastIndexOf("-");
  const sym = i > 0 ? String(code).slice(0, i) : String(code);
  const wh = i > 0 ? String(code).slice(i + 1) : "";
  const area = L.symArea[sym] || "";
  const g = s("g", { class: "mf-card", "data-card": code, "data-motion-key": opts.key === undefined ? `mf-card-${code}` : opts.key });
  const band = Math.max(14, hgt * 0.19);
  g.appendChild(s("rect", { x, y, width: w, height: hgt, rx: 7, fill: "#fbf7ee", stroke: "#6d6252", "stroke-width": 1.3 }));
  g.appendChild(s("path", { d: `M${x + 7} ${y} H${x + w - 7} Q${x + w} ${y} ${x + w} ${y + 7} V${y + band} H${x} V${y + 7} Q${x} ${y} ${x + 7} ${y} Z`, fill: AREA_COLOUR[area] || "#888" }));
  if (w >= 80) g.appendChild(s("text", { x: x + 6, y: y + band - 6, "font-size": 9, "font-weight": 700, fill: "#fff", text: areaName(area) }));
  const wr = Math.min(9.5, w * 0.13);
  g.appendChild(wheel(x + w - wr - 5, y + band, wr, wh));
  const ir = Math.min(w * 0.27, hgt * 0.22);
  g.appendChild(s("circle", { cx: x + w / 2, cy: y + band + (hgt - band) * 0.45, r: ir + 4, fill: SPACE_TINT[sym] || "#f1ead9" }));
  g.appendChild(icon(sym, x + w / 2, y + band + (hgt - band) * 0.45, ir));
  const word = symbolName(sym);
  const fs = w >= 80 ? 12 : word.length > 7 ? 9.5 : 10.5;
  const name = s("text", { x: x + w / 2, y: y + hgt - 7, "text-anchor": "middle", "font-size": fs, "font-weight": 700, fill: INK, text: word });
  // a long name (about 0.66 em a bold character; on a phone read at the readable size)
  // can be wider than the card: it is drawn narrowed to the card's inner width
  if (word.length * size(fs) * 0.66 > w - 6) {
    name.setAttribute("textLength", w - 6);
    name.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  g.appendChild(name);
  if (opts.note) g.appendChild(s("text", { x: x + w / 2, y: y + hgt + 13, "text-anchor": "middle", "font-size": 10, fill: "#f4e7b8", text: opts.note }));
  return g;
}

// ---------------------------------------------------------------------------
// board metadata from the view
// ---------------------------------------------------------------------------
function layoutOf(v) {
  const lay = v.layout;
  const spaces = lay.spaces;
  const byArea = {};
  for (const sp of spaces) (byArea[sp.area] = byArea[sp.area] || []).push(sp);
  const symArea = {};
  for (const [area, syms] of Object.entries(lay.symbols)) for (const sym of syms) symArea[sym] = area;
  const owners = [];
  for (const area of Object.keys(lay.symbols)) for (const o of (v.board[area] || [])) owners.push(o);
  return { lay, spaces, byArea, symArea, owner: (id) => (owners[id] ?? -1) };
}

// ---------------------------------------------------------------------------
// areas
// ---------------------------------------------------------------------------
function drawSea(svg, x0, y0, v, L, ctx, W = 1000) {
  const sea = L.lay.sea;
  const g = s("g", { id: "mf-sea" });
  const n = sea.points.length;
  const rows = W < 700 ? 2 : 1;  // a narrow (phone) board: the track on two rows
  const per = Math.ceil(n / rows);
  const cw = (W - 10 - x0) / per;
  g.appendChild(s("rect", { x: 10, y: y0 - 4, width: W - 20, height: 64 + (rows - 1) * 62, rx: 10, fill: "#2b5f86", stroke: "#173a55", "stroke-width": 1.5 }));
  g.appendChild(s("path", { d: `M16 ${y0 + 48} q5 -5 10 0 t10 0 t10 0 t10 0 t10 0`, fill: "none", stroke: "#9cc7e6", "stroke-width": 1.4 }));
  g.appendChild(s("text", { x: 16, y: y0 + 18, "font-size": 13.5, "font-weight": 700, fill: "#fff", text: t("Sea") }));
  g.appendChild(s("text", { x: 16, y: y0 + 34, "font-size": 9.5, fill: "#cfe4f3", text: t("track") }));
  const extra = new Set(sea.extra_card_positions);
  const ships = v.ships || [];
  const seaTop = y0;
  for (let i = 0; i < n; i++) {
    const x = x0 + (i % per) * cw;
    y0 = seaTop + Math.floor(i / per) * 62;
    const cell = s("g", { class: "mf-sea-space", "data-pos": i });
    cell.appendChild(s("rect", { x: x + 1.5, y: y0, width: cw - 3, height: 56, rx: 6, fill: i === 0 ? "#e6dfcf" : "#d9ebf6", stroke: "#173a55", "stroke-width": 1 }));
    cell.appendChild(s("text", { x: x + 5, y: y0 + 11, "font-size": 9, fill: "#4a6070", text: i === 0 ? t("start") : i }));
    if (extra.has(i)) cell.appendChild(s("path", { d: starPath(x + cw - 10, y0 + 10, 7), fill: "#f2c230", stroke: "#8a6a0c", "stroke-width": 0.9 }));
    if (i > 0 && sea.points[i] > 0) {
      cell.appendChild(s("text", { x: x + cw / 2, y: y0 + 28, "text-anchor": "middle", "font-size": sea.points[i] >= 10 ? 14 : 13, "font-weight": 800, fill: sea.points[i] >= 5 ? "#8a3a10" : "#1d3c55", text: `+${sea.points[i]}` }));
    }
    const here = ships.map((pos, p) => (pos === i ? p : -1)).filter((p) => p >= 0);
    here.forEach((p, k) => {
      const many = here.length > 2;
      const sx = x + cw / 2 + (here.length === 1 ? 0 : ((k % 2) - 0.5) * 19);
      const sy = y0 + (many ? 39 + Math.floor(k / 2) * 11 : 45);
      cell.appendChild(shipMarker(sx, sy, p, ctx, many ? 0.95 : 1.3));
    });
    g.appendChild(cell);
  }
  svg.appendChild(g);
}

function drawWorkshops(svg, x, y, w, hgt, v, L, ctx) {
  const g = panel(x, y, w, hgt, t("Workshops"), "workshops");
  const ws = L.byArea.workshops;
  const doubled = L.lay.workshops.doubled;
  g.appendChild(bonusRow(x + w - 186, y + 1.5, L.lay.bonus.workshops, v.bonus_spaces.workshops, ctx, false));
  g.appendChild(s("text", { x: x + w - 192, y: y + 17, "text-anchor": "end", "font-size": 10.5, fill: "#fffbe9", text: t("all 4 materials:") }));
  const hw = 48, R = hw / Math.sqrt(3);
  const x0 = x + 12 + hw / 2, y0 = y + 30 + R;
  const centre = (sp) => [x0 + sp.col * (hw / 2), y0 + sp.row * 1.5 * R];
  const hex = (cx, cy, rr) => {
    let d = "";
    for (let i = 0; i < 6; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 3;
      d += `${i ? "L" : "M"}${(cx + rr * Math.cos(a)).toFixed(2)} ${(cy + rr * Math.sin(a)).toFixed(2)} `;
    }
    return d + "Z";
  };
  for (const sp of ws) {
    const [cx, cy] = centre(sp);
    const o = L.owner(sp.id);
    const sg = s("g", { class: "mf-space", "data-motion-key": `mf-s${sp.id}`, "data-space": sp.id, "data-symbol": sp.symbol });
    sg.appendChild(s("path", { d: hex(cx, cy, R - 1), fill: SPACE_TINT[sp.symbol] || "#eee", stroke: "#7a5a2a", "stroke-width": 1.2 }));
    if (o >= 0) {
      sg.appendChild(icon(sp.symbol, cx, cy - 11, 6.5, 0.8));
      sg.appendChild(keyed(`mf-d${sp.id}`, gem(cx, cy + 4, 11.5, o, ctx)));
    } else {
      sg.appendChild(icon(sp.symbol, cx, cy - 4, 9.5));
      // the material's name under its icon; on a phone, where the name read at 10 px is
      // wider than a space, the legend at the panel's foot names the icons and the ×2
      // takes the name's place
      if (!fmin) {
        const label = symbolName(sp.symbol);
        const ws = s("text", { x: cx, y: cy + 15, "text-anchor": "middle", "font-size": 8.5, fill: "#4a3d2a", text: label });
        if (label.length * 8.5 * 0.58 > hw - 6) { ws.setAttribute("textLength", hw - 6); ws.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
        sg.appendChild(ws);
      }
      if (sp.symbol === doubled) sg.appendChild(s("text", { x: cx, y: fmin ? cy + 8 + size(8.5) * 0.8 : cy - 15.5, "text-anchor": "middle", "font-size": 8.5, "font-weight": 800, fill: "#8a1d4a", text: "×2" }));
    }
    g.appendChild(placeable(sg, sp.id, ctx, s("path", { class: "hl", d: hex(cx, cy, R - 2.5) })));
  }
  if (fmin) {
    // the legend: each material's icon and name, in one row at the foot
    const names = [...new Set(ws.map((sp) => sp.symbol))];
    const f = size(8.5), ly = y + hgt - 9;
    let lx = x + 12;
    for (const name of names) {
      g.appendChild(icon(name, lx + 7, ly - f * 0.35, 7));
      const label = symbolName(name);
      g.appendChild(s("text", { x: lx + 16, y: ly, "font-size": f, fill: "#4a3d2a", text: label }));
      lx += 16 + label.length * f * 0.58 + 10;
    }
  }
  // gold stars where three spaces meet: filling the last of the three earns an extra card
  const byId = {};
  for (const sp of ws) byId[sp.id] = sp;
  for (const triple of L.lay.workshops.stars) {
    const pts = triple.map((id) => centre(byId[id]));
    const cx = pts.reduce((a, p) => a + p[0], 0) / 3, cy = pts.reduce((a, p) => a + p[1], 0) / 3;
    const done = triple.every((id) => L.owner(id) >= 0);
    g.appendChild(s("path", { class: "mf-star", d: starPath(cx, cy, 7.5), fill: "#f2c230", stroke: "#7a5a08", "stroke-width": 1, opacity: done ? 0.35 : 1 }));
  }
  svg.appendChild(g);
}

function houseShape(x, y, w, hgt) {
  const roof = hgt * 0.3;
  return `M${x} ${y + roof} L${x + w / 2} ${y} L${x + w} ${y + roof} V${y + hgt} H${x} Z`;
}

function drawHouses(svg, x, y, w, hgt, v, L, ctx) {
  const g = panel(x, y, w, hgt, t("Houses"), "houses", t("filled in order"));
  g.appendChild(bonusRow(x + w - 186, y + 1.5, L.lay.bonus.houses, v.bonus_spaces.houses, ctx, false));
  const info = L.lay.houses;
  g.appendChild(s("text", { x: x + w - 192, y: y + 17, "text-anchor": "end", "font-size": 10.5, fill: "#fffbe9", text: t("{count} values:", { count: info.bonus_at_distinct_values }) }));
  const hs = L.byArea.houses;
  const per = Math.ceil(hs.length / 2);
  const step = (w - 24) / per, hwid = step - 8, hh = 54;
  const pos = (i) => {
    const r = Math.floor(i / per), c = i % per;
    const col = r % 2 === 0 ? c : per - 1 - c; // snake: left to right, then back
    return [x + 12 + col * step + 4, y + 36 + r * (hh + 22)];
  };
  // the path through the track
  let d = "";
  hs.forEach((sp, i) => {
    const [hx, hy] = pos(i);
    d += `${i ? "L" : "M"}${hx + hwid / 2} ${hy + hh * 0.62} `;
  });
  g.appendChild(s("path", { d, fill: "none", stroke: "#a8b87a", "stroke-width": 5, "stroke-linejoin": "round", "stroke-dasharray": "2 5", "stroke-linecap": "round" }));
  hs.forEach((sp, i) => {
    const [hx, hy] = pos(i);
    const o = L.owner(sp.id);
    const next = v.houses_next === i;
    const sg = s("g", { class: "mf-space", "data-motion-key": `mf-s${sp.id}`, "data-space": sp.id, "data-value": sp.value });
    sg.appendChild(s("path", { d: houseShape(hx, hy, hwid, hh), fill: o >= 0 ? seatFill(o, ctx) : "#fbf5e6", stroke: o >= 0 ? seatStroke(o) : "#6d5a34", "stroke-width": 1.3 }));
    sg.appendChild(s("rect", { x: hx + hwid / 2 - 3.5, y: hy + hh * 0.17, width: 7, height: 6, fill: "#fff8", stroke: "#6d5a34", "stroke-width": 0.6 }));
    const cy = hy + hh * 0.66;
    sg.appendChild(s("circle", { cx: hx + hwid / 2, cy, r: 11, fill: "#fffdf8", stroke: o >= 0 ? seatStroke(o) : "#c9b991", "stroke-width": 1 }));
    sg.appendChild(s("text", { x: hx + hwid / 2, y: cy + 5.5, "text-anchor": "middle", "font-size": sp.value >= 10 ? 13 : 15, "font-weight": 800, fill: "#3a3020", text: sp.value }));
    sg.appendChild(s("text", { x: hx + 3, y: hy + hh + 11, "font-size": 8.5, fill: MUTED, text: i + 1 }));
    if (next && o < 0) sg.appendChild(s("path", { d: houseShape(hx - 2.5, hy - 3, hwid + 5, hh + 5), fill: "none", stroke: "#4d6a1a", "stroke-width": 1.5, "stroke-dasharray": "4 2.5" }));
    g.appendChild(placeable(sg, sp.id, ctx, s("path", { class: "hl", d: houseShape(hx - 2, hy - 2.5, hwid + 4, hh + 4) })));
  });
  // arrows at the start and the turn
  const [ax, ay] = pos(0);
  g.appendChild(s("path", { d: `M${ax - 9} ${ay + hh * 0.62 - 4} l6 4 l-6 4`, fill: "none", stroke: "#4d6a1a", "stroke-width": 2 }));
  const extra = info.extra_card_at_distinct_values.join(" " + t("and") + " ");
  for (const line of footNote(x + 12, y + hgt - 9, w - 24, 10.5, t("Score the value plus your unbroken run before it · {counts} different values: extra card", { counts: extra }))) g.appendChild(line);
  svg.appendChild(g);
}

// on a phone the heading's note (the level points) is too wide to share the band with
// the title read at the readable size: it gets its own line under the band, and the
// pyramid moves down by `noteH` (the caller grows the panel by as much)
function drawPyramid(svg, x, y, w, hgt, area, title, v, L, ctx, noteH = 0) {
  const pts = L.lay.pyramids.level_points;
  const note = t("pts {points}, ×2 on match", { points: pts.join("·") });
  const g = panel(x, y, w, hgt, title, area, noteH ? "" : note, true);
  if (noteH) g.appendChild(s("text", { x: x + 10, y: y + 24 + noteH - 2, "font-size": 10, fill: MUTED, text: note }));
  const sp = L.byArea[area];
  const levels = [[], [], []];
  for (const e of sp) levels[e.level][e.col] = e;
  const base = levels[0].length;
  const step = (w - 16) / base, cw = step - 4, chh = 40, dy = 44;
  const top = y + 32 + noteH;
  for (let lv = 0; lv < 3; lv++) {
    const row = levels[lv];
    const ry = top + (2 - lv) * dy;
    const off = x + 8 + (lv * step) / 2 + 2;
    row.forEach((e, i) => {
      const cx = off + i * step, o = L.owner(e.id);
      const sg = s("g", { class: "mf-space", "data-motion-key": `mf-s${e.id}`, "data-space": e.id, "data-symbol": e.symbol });
      sg.appendChild(s("rect", { x: cx, y: ry, width: cw, height: chh, rx: 7, fill: SPACE_TINT[e.symbol] || "#eee", stroke: AREA_COLOUR[area], "stroke-width": 1.4 }));
      if (o >= 0) {
        sg.appendChild(icon(e.symbol, cx + 9, ry + 9, 6, 0.85));
        sg.appendChild(keyed(`mf-d${e.id}`, gem(cx + cw / 2 + 3, ry + chh / 2 + 2, 12, o, ctx)));
      } else {
        sg.appendChild(icon(e.symbol, cx + cw / 2, ry + chh / 2 - 1, 11));
      }
      // the card's points in a badge at its corner, big enough for the number as read
      const bf = size(9.5), br = Math.max(6.5, bf * 0.62), bx = cx + cw - br - 0.5, by = ry + chh - br - 0.5;
      sg.appendChild(s("circle", { cx: bx, cy: by, r: br, fill: "#fffdf8", stroke: AREA_COLOUR[area], "stroke-width": 0.9 }));
      sg.appendChild(s("text", { x: bx, y: by + bf * 0.35, "text-anchor": "middle", "font-size": bf, "font-weight": 800, fill: "#3a2a30", text: e.value }));
      g.appendChild(placeable(sg, e.id, ctx, s("rect", { class: "hl", x: cx - 2, y: ry - 2, width: cw + 4, height: chh + 4, rx: 8 })));
    });
  }
  // the area's symbols and level points
  const syms = L.lay.symbols[area];
  const ly = top + 2 * dy + chh + 16;
  // one symbol after another, spaced for the longest name (names are longer in some languages)
  const symStep = Math.max(58, 22 + Math.max(...syms.map((sym) => symbolName(sym).length)) * 10.5 * 0.56);
  syms.forEach((sym, k) => {
    g.appendChild(icon(sym, x + 18 + k * symStep, ly - 4, 7));
    g.appendChild(s("text", { x: x + 28 + k * symStep, y: ly, "font-size": 10.5, fill: INK, text: symbolName(sym) }));
  });
  g.appendChild(s("text", { x: x + w - 8, y: ly, "text-anchor": "end", "font-size": 9.5, fill: MUTED, text: t("all 3:") }));
  g.appendChild(bonusRow(x + 8, ly + 8, L.lay.bonus[area], v.bonus_spaces[area], ctx, true));
  svg.appendChild(g);
}

// on a phone a good's name read at the readable size is wider than its column: the
// column heads show the icon and the value only, and a legend above the foot note
// names the icons (the caller grows the panel by a line)
function drawTrade(svg, x, y, w, hgt, v, L, ctx) {
  const g = panel(x, y, w, hgt, t("Trade & Harbor"), "trade");
  g.appendChild(bonusRow(x + w - 186, y + 1.5, L.lay.bonus.trade, v.bonus_spaces.trade, ctx, false));
  g.appendChild(s("text", { x: x + w - 192, y: y + 17, "text-anchor": "end", "font-size": 10.5, fill: "#fffbe9", text: t("all 4 goods:") }));
  const goods = L.lay.symbols.trade;
  const tr = L.byArea.trade, hb = L.byArea.harbor;
  const nRows = Math.max(...tr.map((e) => e.row)) + 1;
  const colW = 58, cellW = 53, rowH = 27, cellH = 24;
  const headH = fmin ? 26 : 34;
  // on a phone the harbor's heading (its name, when a fleet departs, what its points
  // column means) is four lines above the rows, at the readable size: the rows and the
  // goods' column heads move down by harborHead(), which the caller adds to the panel
  const gx = x + 10, hy = y + 30, ry0 = hy + headH + 4 + harborHead(), colY = hy + harborHead();
  // column headers: good, its name, its value (= diamonds in the column)
  goods.forEach((good, c) => {
    const cx = gx + c * colW;
    const value = tr.filter((e) => e.col === c && L.owner(e.id) >= 0).length;
    g.appendChild(s("rect", { x: cx, y: colY, width: cellW, height: headH, rx: 5, fill: "#f1dcc0", stroke: "#b8692c", "stroke-width": 1 }));
    g.appendChild(icon(good, cx + 14, colY + 13, 9.5));
    g.appendChild(s("circle", { cx: cx + 39, cy: colY + 13, r: 9, fill: value ? "#b8692c" : "#fffaf0", stroke: "#7a3f12", "stroke-width": 1 }));
    g.appendChild(s("text", { x: cx + 39, y: colY + 17.5, "text-anchor": "middle", "font-size": 12.5, "font-weight": 800, fill: value ? "#fff" : "#7a3f12", text: value }));
    if (!fmin) {
      const label = symbolName(good);
      const gt = s("text", { x: cx + cellW / 2, y: hy + 31, "text-anchor": "middle", "font-size": 9, fill: "#5a3a1a", text: label });
      if (label.length * 9 * 0.58 > cellW - 4) { gt.setAttribute("textLength", cellW - 4); gt.setAttribute("lengthAdjust", "spacingAndGlyphs"); }
      g.appendChild(gt);
    }
  });
  tr.forEach((e) => {
    const cx = gx + e.col * colW, cy = ry0 + e.row * rowH, o = L.owner(e.id);
    const sg = s("g", { class: "mf-space", "data-motion-key": `mf-s${e.id}`, "data-space": e.id, "data-symbol": e.symbol });
    sg.appendChild(s("rect", { x: cx, y: cy, width: cellW, height: cellH, rx: 5, fill: "#fbf3e4", stroke: "#b8692c", "stroke-width": 1 }));
    if (o >= 0) {
      sg.appendChild(icon(e.symbol, cx + 10, cy + cellH / 2, 6.5, 0.7));
      sg.appendChild(keyed(`mf-d${e.id}`, gem(cx + cellW / 2 + 6, cy + cellH / 2 + 1, 10.5, o, ctx)));
    } else sg.appendChild(icon(e.symbol, cx + cellW / 2, cy + cellH / 2, 9, 0.6));
    g.appendChild(placeable(sg, e.id, ctx, s("rect", { class: "hl", x: cx - 2, y: cy - 2, width: cellW + 4, height: cellH + 4, rx: 6 })));
  });
  // fleets beside the trade rows
  const fx = gx + 4 * colW + 18, shipW = 38;
  const per = Math.max(...hb.map((e) => e.col)) + 1;
  const px = fx + per * shipW + 10;
  const lh = fmin ? size(10.5) * 1.2 : 15;
  g.appendChild(s("text", { x: fx, y: hy + 14, "font-size": 10.5, "font-weight": 700, fill: AREA_COLOUR.harbor, text: tn("Harbor: {n} fleet", "Harbor: {n} fleets", nRows) }));
  g.appendChild(s("text", { x: fx, y: hy + 14 + lh, "font-size": 9.5, fill: MUTED, text: t("full fleet departs") }));
  if (fmin) {
    const end = { x: x + w - 8, "text-anchor": "end", "font-size": 9.5, fill: MUTED };
    g.appendChild(s("text", { ...end, y: hy + 14 + 2 * lh, text: t("pts per ship") }));
    g.appendChild(s("text", { ...end, y: hy + 14 + 3 * lh, text: t("(goods in row)") }));
  } else {
    g.appendChild(s("text", { x: px + 4, y: hy + 14, "font-size": 9.5, fill: MUTED, text: t("pts per ship") }));
    g.appendChild(s("text", { x: px + 4, y: hy + 29, "font-size": 9.5, fill: MUTED, text: t("(goods in row)") }));
  }
  const hp = L.lay.harbor.points_by_goods;
  for (let r = 0; r < nRows; r++) {
    const cy = ry0 + r * rowH;
    const fleet = hb.filter((e) => e.row === r);
    const goodsHere = tr.filter((e) => e.row === r && L.owner(e.id) >= 0).length;
    const departed = fleet.every((e) => L.owner(e.id) >= 0);
    g.appendChild(s("path", { d: `M${gx + 4 * colW - 4} ${cy + cellH / 2} H${fx - 3}`, stroke: "#9ab0cf", "stroke-width": 2, "stroke-dasharray": "3 3" }));
    g.appendChild(s("rect", { x: fx - 3, y: cy - 1.5, width: per * shipW + 2, height: cellH + 3, rx: 6, fill: departed ? "#c9d3e2" : "#dce6f3", stroke: "#35598f", "stroke-width": 1 }));
    fleet.forEach((e) => {
      const sx = fx + e.col * shipW, o = L.owner(e.id);
      const sg = s("g", { class: "mf-space", "data-motion-key": `mf-s${e.id}`, "data-space": e.id, "data-symbol": "ship" });
      sg.appendChild(s("rect", { x: sx, y: cy + 1, width: shipW - 4, height: cellH - 2, rx: 4, fill: "#eef3fa", stroke: "#6d89b3", "stroke-width": 0.8 }));
      if (o >= 0) {
        sg.appendChild(icon("ship", sx + 9, cy + cellH / 2, 6.5, 0.7));
        sg.appendChild(keyed(`mf-d${e.id}`, gem(sx + shipW / 2 + 3, cy + cellH / 2 + 1, 9.5, o, ctx)));
      } else sg.appendChild(icon("ship", sx + (shipW - 4) / 2, cy + cellH / 2, 9.5));
      g.appendChild(placeable(sg, e.id, ctx, s("rect", { class: "hl", x: sx - 2, y: cy - 1, width: shipW, height: cellH + 2, rx: 5 })));
    });
    g.appendChild(s("text", { x: px + 4, y: cy + 16.5, "font-size": 12.5, "font-weight": 800, fill: departed ? MUTED : "#1d3560", text: departed ? t("sailed") : `${hp[goodsHere] ?? 0}` }));
    if (!departed) g.appendChild(s("text", { x: px + 24, y: cy + 16.5, "font-size": 9.5, fill: MUTED, text: `(${goodsHere})` }));
  }
  const notes = footNote(gx, y + hgt - 6, w - 20, 9.5, t("good's value = diamonds in its column; every player scores value × own diamonds there"));
  for (const line of notes) g.appendChild(line);
  if (fmin) {
    // the legend: each good's icon and name, in one row above the foot note
    const f = size(9), ly = parseFloat(notes[0].getAttribute("y")) - size(9.5) * 1.25;
    let lx = gx;
    for (const good of goods) {
      g.appendChild(icon(good, lx + 7, ly - f * 0.35, 7));
      const label = symbolName(good);
      g.appendChild(s("text", { x: lx + 16, y: ly, "font-size": f, fill: "#5a3a1a", text: label }));
      lx += 16 + label.length * f * 0.58 + 12;
    }
  }
  svg.appendChild(g);
}

// The room a phone's harbor heading (four lines at the readable size) takes above the
// trade rows beyond that of the column heads; 0 on a wide screen.
function harborHead() {
  return fmin ? Math.ceil(3 * size(10.5) * 1.2 - 8) : 0;
}

// Lay a seat's facts out in the panel width: one line if it fits, else two
// (below the name), else the short wording; the width of a character is
// estimated from the font size (the board is drawn before it is measured).
function seatLines(long, short, width) {
  const fits = (text, f) => text.length * size(f) * 0.56 <= width;
  const y2 = 39 + Math.max(13, size(10) * 1.2); // the second line, under the first
  const split = (bits) => {
    for (let k = 1; k < bits.length; k++) {
      const a = bits.slice(0, k).join(" · "), b = bits.slice(k).join(" · ");
      if (a.length >= b.length || k === bits.length - 1) return [a, b];
    }
    return [bits.join(" · "), ""];
  };
  for (const bits of [long, short]) {
    if (fits(bits.join(" · "), 10.5)) return [{ y: 49, size: 10.5, text: bits.join(" · ") }];
    const [a, b] = split(bits);
    if (fits(a, 10) && fits(b, 10)) return [{ y: 39, size: 10, text: a }, { y: y2, size: 10, text: b }];
  }
  const [a, b] = split(short);
  const f = Math.max(7, Math.min(10, width / (0.56 * Math.max(a.length, b.length))));
  return [{ y: 39, size: f, text: a }, { y: y2, size: f, text: b }];
}

// A seat panel's height: two lines of facts under the name, spaced for the readable size.
function seatH() {
  return Math.max(58, 39 + Math.max(13, size(10) * 1.2) + 7);
}

function drawSeats(svg, y0, v, L, ctx, W = 1000, perRow = 0) {
  const n = v.players;
  const per = perRow || n;
  const names = ctx.names || [];
  const gap = 8, pw = (W - 20 - gap * (per - 1)) / per, ph = seatH();
  const shown = (ctx.result && ctx.result.scores) || v.final_scores || v.scores || [];
  const houses = L.byArea.houses;
  for (let p = 0; p < n; p++) {
    const x = 10 + (p % per) * (pw + gap);
    const y = y0 + Math.floor(p / per) * (ph + gap);
    const moving = (ctx.toMove || []).includes(p);
    const mine = ctx.seat === p;
    const g = s("g", { class: "mf-seat", "data-seat": p });
    g.appendChild(s("rect", { x, y, width: pw, height: ph, rx: 9, fill: mine ? "#fffaf0" : "#f1eadb", stroke: moving ? "#ffd24a" : "#0005", "stroke-width": moving ? 3.5 : 1 }));
    const seatGem = gem(x + 17, y + 19, 10, p, ctx);
    seatGem.setAttribute("data-motion-key", `mf-seat-${p}`);
    g.appendChild(seatGem);
    const name = (names[p] || t("Seat {number}", { number: p + 1 })) + (mine ? " " + t("(you)") : "");
    const maxChars = Math.floor((pw - 110) / 7.6);
    g.appendChild(s("text", { x: x + 33, y: y + 22, "font-size": 13.5, "font-weight": 700, fill: "#222", text: name.length > maxChars ? name.slice(0, maxChars - 1) + "…" : name }));
    const bonus = v.bonus_points?.[p] || 0;
    const over = !!v.final_scores || !!(ctx.result && ctx.result.scores);
    g.appendChild(s("text", { x: x + pw - 10, y: y + 26, "text-anchor": "end", "font-size": 22, "font-weight": 800, fill: "#5a4520", text: shown[p] ?? 0 }));
    const distinct = new Set(houses.filter((e) => L.owner(e.id) === p).map((e) => e.value)).size;
    const dia = v.diamonds?.[p] ?? 0, aside = v.set_aside?.[p] ?? 0, ship = v.ships?.[p] ?? 0, hand = v.hand_sizes?.[p] ?? 0;
    const long = [
      t("diamonds {diamonds} (+{aside} set aside)", { diamonds: dia, aside }),
      t("ship at {ship}", { ship }),
      v.picked?.[p] ? t("hand {cards} (picked)", { cards: hand }) : t("hand {cards}", { cards: hand }),
      t("house values {count}", { count: distinct }),
    ];
    const short = [
      `◆ ${dia}+${aside}`,
      t("ship {ship}", { ship }),
      t("hand {cards}", { cards: hand }) + (v.picked?.[p] ? "✓" : ""),
      t("houses {count}", { count: distinct }),
    ];
    if (bonus && !over) { long.push(t("+{bonus} bonus at the end", { bonus })); short.push(t("+{bonus} bonus", { bonus })); }
    if (over) { long.push(t("final score")); short.push(t("final")); }
    // the longest wording that fits the panel in one or two lines (never cut off)
    for (const line of seatLines(long, short, pw - 18)) g.appendChild(s("text", { class: "mf-seat-info", x: x + 10, y: y + line.y, "font-size": line.size, fill: "#5a5046", text: line.text }));
    const facts = { name: names[p] || t("Seat {number}", { number: p + 1 }), diamonds: dia, aside, ship, cards: hand, count: distinct };
    const tip = s("title", { text: v.picked?.[p]
      ? t("{name}: {diamonds} diamonds in supply, {aside} set aside; ship on sea space {ship}; {cards} cards in hand (picked); {count} different house values", facts)
      : t("{name}: {diamonds} diamonds in supply, {aside} set aside; ship on sea space {ship}; {cards} cards in hand; {count} different house values", facts) });
    g.appendChild(tip);
    svg.appendChild(g);
  }
}

function pill(x, y, w, label, fill) {
  const g = s("g", { class: "mf-pill" });
  g.appendChild(s("rect", { x, y, width: w, height: 28, rx: 14, fill, stroke: "#0006" }));
  g.appendChild(s("rect", { class: "hl", x: x - 2, y: y - 2, width: w + 4, height: 32, rx: 16 }));
  g.appendChild(s("text", { x: x + w / 2, y: y + 18.5, "text-anchor": "middle", "font-size": 12.5, "font-weight": 700, fill: "#fff", text: label }));
  return g;
}

// ---------------------------------------------------------------------------
export function render(el, ctx) {
  const v = ctx.view;
  const L = layoutOf(v);
  const display = v.display || [];
  // a narrow screen (phone) gets a portrait layout: what you choose from first (your
  // hand, then the card in play with its sail/decline choices), then the seats, then
  // the sea on two rows and the areas one under another, the display last; so the
  // cards the prompt asks for are on the first screen, right under the prompt
  const narrow = (el.clientWidth || 1000) < 640;
  const W = narrow ? 500 : 1000;
  fmin = narrow ? minFont(el, W) : 0;
  // on a phone the display's cards are as wide as the hand's, so that a long name fits
  const dW = narrow ? 76 : 60, dH = narrow ? 100 : 84, dStep = narrow ? 80 : 65, perRow = narrow ? 6 : 15;
  const dRows = Math.max(1, Math.ceil(display.length / perRow));
  const seatRows = narrow ? Math.ceil(v.players / 2) : 1;
  const hx0 = narrow ? 12 : 292;
  const hW = narrow ? 76 : 90, hH = narrow ? 104 : 124;
  const handCards = v.hand ? v.hand.length + (v.pick ? 1 : 0) : 0;
  const hStep = narrow ? Math.min(80, (W - 2 * hx0 - hW) / Math.max(1, handCards - 1)) : 98;
  let seaY, topY, midY, seatsY, cardsY, handY, dispY;
  // a phone's panels grow by a line for their foot notes, wrapped at the readable size
  const foot = narrow ? Math.ceil(size(10.5) * 1.2) : 0;
  // and the pyramids by the line of their heading's note, the trade panel by its legend
  const pNote = narrow ? Math.ceil(size(10) * 1.2) : 0, tLeg = narrow ? Math.ceil(size(9) * 1.2) : 0;
  if (narrow) {
    handY = 8;
    cardsY = v.hand ? handY + hH + 40 : 8;
    seatsY = cardsY + 152;
    seaY = seatsY + seatRows * (seatH() + 8) + 12;
    topY = seaY + 134;
    midY = topY + 448 + 2 * foot;
    dispY = midY + 478 + foot + pNote + tLeg + harborHead();
  } else {
    seaY = 12; topY = 84; midY = 310; seatsY = 540;
    cardsY = seatsY + seatRows * 66 + 6;
    handY = cardsY;
    dispY = cardsY + 166;
  }
  const height = dispY + 14 + dRows * (dH + 8) + 6;
  const svg = s("svg", { viewBox: `0 0 ${W} ${height}`, class: "millefiori-board", role: "img", "aria-label": t("Mille Fiori table") });
  svg.appendChild(patternDefs("cb"));

  drawSea(svg, 58, seaY, v, L, ctx, W);
  if (narrow) {
    drawWorkshops(svg, 7, topY, 486, 216 + foot, v, L, ctx);
    drawHouses(svg, 7, topY + 224 + foot, 486, 216 + foot, v, L, ctx);
    drawPyramid(svg, 7, midY, 240, 222 + pNote, "nobles", t("Nobles"), v, L, ctx, pNote);
    drawPyramid(svg, 253, midY, 240, 222 + pNote, "commoners", t("Commoners"), v, L, ctx, pNote);
    drawTrade(svg, 7, midY + 230 + pNote, 486, 222 + foot + tLeg + harborHead(), v, L, ctx);
    drawSeats(svg, seatsY, v, L, ctx, W, 2);
  } else {
    drawWorkshops(svg, 10, topY, 486, 216, v, L, ctx);
    drawHouses(svg, 504, topY, 486, 216, v, L, ctx);
    drawPyramid(svg, 10, midY, 240, 222, "nobles", t("Nobles"), v, L, ctx);
    drawPyramid(svg, 256, midY, 240, 222, "commoners", t("Commoners"), v, L, ctx);
    drawTrade(svg, 504, midY, 486, 222, v, L, ctx);
    drawSeats(svg, seatsY, v, L, ctx);
  }

  // the card in play and what to do with it
  const play = s("g", { id: "mf-play" });
  play.appendChild(s("text", { x: 12, y: cardsY + 10, "font-size": 12.5, fill: "#e8e2d2", text: v.card_in_play && v.card_is_extra ? t("extra card in play") : t("card in play") }));
  if (v.card_in_play) play.appendChild(cardFace(12, cardsY + 18, 92, 124, v.card_in_play, L, ctx));
  else play.appendChild(s("rect", { x: 12, y: cardsY + 18, width: 92, height: 124, rx: 7, fill: "none", stroke: "#ffffff44", "stroke-dasharray": "6 4" }));
  const pills = ctx.legal.filter((e) => e.type === "sail" || e.type === "decline");
  pills.forEach((e, k) => {
    const wheelNo = v.card_in_play ? String(v.card_in_play).split("-").pop() : "";
    const label = e.type === "sail" ? (wheelNo ? t("sail your ship +{wheel}", { wheel: wheelNo }) : t("sail your ship")) : tp("button", "decline the extra card");
    play.appendChild(clickable(pill(114, cardsY + 24 + k * 38, 168, label, e.type === "sail" ? "#2b5f86" : "#6a625a"), e, ctx.act));
  });
  if (!pills.length && v.card_in_play && ctx.legal.some((e) => e.type === "place")) {
    play.appendChild(s("text", { x: 114, y: cardsY + 40, "font-size": 11, fill: "#f4e7b8", text: t("place a diamond on a") }));
    play.appendChild(s("text", { x: 114, y: cardsY + 55, "font-size": 11, fill: "#f4e7b8", text: t("highlighted space") }));
  }
  if (v.extra_cards_pending) play.appendChild(s("text", { x: 114, y: cardsY + 128, "font-size": 11, fill: "#ffd24a", text: t("extra cards to play: {count}", { count: v.extra_cards_pending }) }));
  svg.appendChild(play);

  // your hand (picks)
  if (v.hand) {
    const hand = s("g", { id: "mf-hand" });
    hand.appendChild(s("text", { x: hx0, y: handY + 10, "font-size": 12.5, fill: "#e8e2d2", text: v.pick ? t("your hand · your pick is set aside until you play it") : t("your hand") }));
    const cards = v.pick ? [...v.hand, v.pick] : v.hand;
    cards.forEach((card, k) => {
      const x = hx0 + k * hStep, yy = handY + 18;
      const isPick = v.pick && k === cards.length - 1;
      const pick = findLegal(ctx.legal, { type: "pick", card })[0];
      const cg = cardFace(x, yy, hW, hH, card, L, ctx, { note: isPick ? t("picked") : "" });
      if (isPick) cg.appendChild(s("rect", { x: x - 3, y: yy - 3, width: hW + 6, height: hH + 6, rx: 9, fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-dasharray": "5 3" }));
      if (pick) {
        cg.appendChild(s("rect", { class: "hl", x: x - 2, y: yy - 2, width: hW + 4, height: hH + 4, rx: 8 }));
        hand.appendChild(clickable(cg, pick, ctx.act));
      } else hand.appendChild(cg);
    });
    svg.appendChild(hand);
  }

  // round information
  const ix = narrow ? 300 : 790;
  const info = [
    t("round {round} · pass {pass} of {passes}", { round: v.round, pass: Math.min((v.plays_done ?? 0) + 1, v.plays_per_round ?? 1), passes: v.plays_per_round ?? "?" }),
    v.draft === "tactical" ? t("tactical draft") : t("simultaneous draft"),
    t("deck {deck} · display {display}", { deck: v.deck, display: display.length }),
    t("start player: {name}", { name: (ctx.names || [])[v.start_player] || t("Seat {number}", { number: (v.start_player ?? 0) + 1 }) }),
  ];
  if (ctx.over || v.phase === "over") info.push(t("the game is over"));
  else if (v.ending) info.push(t("the last round is on"));
  if (narrow) {
    // a line too long for the room right of the choices, at the readable size, breaks at
    // its " · " parts first, then between words
    const f = size(12), max = Math.max(1, Math.floor((W - ix - 6) / (f * 0.56)));
    let y = cardsY + 24;
    info.forEach((line, k) => {
      const parts = line.length <= max ? [line] : line.split(" · ").flatMap((part) => wrapWords(part, max));
      for (const part of parts) {
        svg.appendChild(s("text", { x: ix, y, "font-size": f, fill: k === 4 ? "#ffd24a" : "#e8e2d2", text: part }));
        y += f * 1.15;
      }
    });
  } else info.forEach((line, k) => svg.appendChild(s("text", { x: ix, y: cardsY + 30 + k * 19, "font-size": 12, fill: k === 4 ? "#ffd24a" : "#e8e2d2", text: line })));

  // the display (extra cards)
  const disp = s("g", { id: "mf-display" });
  const canExtra = ctx.legal.some((e) => e.type === "extra");
  disp.appendChild(s("text", { x: 12, y: dispY + 4, "font-size": 12.5, fill: "#e8e2d2", text: canExtra ? t("display ({count}) · choose your extra card", { count: display.length })
    : display.length ? t("display ({count})", { count: display.length })
      : t("display ({count}) · empty: {points} points instead of an extra card", { count: display.length, points: L.lay.empty_display_points }) }));
  display.forEach((card, k) => {
    const x = 12 + (k % perRow) * dStep, yy = dispY + 12 + Math.floor(k / perRow) * (dH + 8);
    const extra = findLegal(ctx.legal, { type: "extra", card })[0];
    const cg = cardFace(x, yy, dW, dH, card, L, ctx);
    if (extra) {
      cg.appendChild(s("rect", { class: "hl", x: x - 2, y: yy - 2, width: dW + 4, height: dH + 4, rx: 8 }));
      disp.appendChild(clickable(cg, extra, ctx.act));
    } else disp.appendChild(cg);
  });
  svg.appendChild(disp);

  // an extra card: which one of the display (or none), asked at the top of the board
  // (on a phone the display is far down the page)
  const extras = ctx.legal.filter((e) => e.type === "extra");
  const decline = findLegal(ctx.legal, { type: "decline" })[0];
  if (extras.length && extras.length + (decline ? 1 : 0) === ctx.legal.length) {
    const cw = narrow ? 76 : 64, chh = narrow ? 92 : 86;
    svg.appendChild(boardDialog({
      kind: "extra", cls: "mf-dialog", area: { x: 4, y: 4, w: W - 8, h: narrow ? 346 : topY + 200 }, act: ctx.act, font: narrow ? 17 : 15,
      cols: narrow ? 5 : 10, optH: chh + 8, width: narrow ? 488 : 880,
      title: t("Play an extra card from the display?"), note: t("Your ship reached an extra-card space: pick a card to play now, or decline."),
      options: [
        ...extras.map((e) => ({ entry: e, draw: (g, bx, by, bw, bh) => {
          g.appendChild(cardFace(bx + (bw - cw) / 2, by + (bh - chh) / 2, cw, chh, e.json.card, L, ctx, { key: null }));
        } })),
        ...(decline ? [{ entry: decline, label: t("decline") }] : []),
      ],
    }));
  }

  el.replaceChildren(svg);
}

// Motion (see ../motion.js): the card played (from the hand, the display or the player's
// seat), a pick set aside, diamonds from the seat to the spaces, ships along the sea.
export function motions(prev, next) {
  const out = [];
  if (!prev.layout || !next.layout || prev.players !== next.players) return out;
  const mover = (prev.to_move || [])[0];
  if (next.card_in_play && next.card_in_play !== prev.card_in_play) {
    const key = `mf-card-${next.card_in_play}`;
    out.push({ from: mover !== undefined ? [key, `mf-seat-${mover}`] : key, to: key, ghost: "to" });
  }
  if (next.pick && next.pick !== prev.pick) out.push({ from: `mf-card-${next.pick}`, to: `mf-card-${next.pick}` });
  const before = layoutOf(prev), after = layoutOf(next);
  for (const sp of after.spaces) {
    const o = after.owner(sp.id);
    if (o >= 0 && before.owner(sp.id) !== o) out.push({ from: `mf-seat-${o}`, to: sp.area === "houses" ? `mf-s${sp.id}` : `mf-d${sp.id}`, ghost: "to" });
  }
  (next.ships || []).forEach((pos, p) => {
    if ((prev.ships || [])[p] !== pos) out.push({ from: `mf-ship-${p}`, to: `mf-ship-${p}` });
  });
  return out;
}
