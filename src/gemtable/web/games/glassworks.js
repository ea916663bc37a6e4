// River Valley Glassworks board: the river of shape tiles with the glass on
// them, the lake, and each player's satchel, glassworks columns and overflow.
// Legal actions are clickable: a satchel piece (place it / put it in
// overflow), a river tile (gather), a lake piece (draw the rest, leaving it),
// a colour chip (open the next column).

import { s, colour, fillOf, patternDefs, clickable, findLegal } from "../svg.js";

const SHAPES = {
  circle: (r) => `M0 ${-r} A${r} ${r} 0 1 1 0 ${r} A${r} ${r} 0 1 1 0 ${-r} Z`,
  square: (r) => `M${-r * 0.85} ${-r * 0.85} H${r * 0.85} V${r * 0.85} H${-r * 0.85} Z`,
  triangle: (r) => `M0 ${-r} L${r * 0.95} ${r * 0.75} H${-r * 0.95} Z`,
  star: (r) => {
    let d = "";
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / 5;
      const rr = i % 2 ? r * 0.45 : r;
      d += `${i ? "L" : "M"}${(Math.cos(a) * rr).toFixed(2)} ${(Math.sin(a) * rr).toFixed(2)} `;
    }
    return d + "Z";
  },
  heart: (r) => `M0 ${r * 0.85} C${-r * 1.3} ${-r * 0.1} ${-r * 0.7} ${-r * 1.1} 0 ${-r * 0.35} C${r * 0.7} ${-r * 1.1} ${r * 1.3} ${-r * 0.1} 0 ${r * 0.85} Z`,
  moon: (r) => `M${r * 0.3} ${-r} A${r} ${r} 0 1 0 ${r * 0.3} ${r} A${r * 0.55} ${r} 0 1 1 ${r * 0.3} ${-r} Z`,
};

function parsePiece(text) {
  const words = String(text).split(" ");
  const shape = words.pop();
  return { colour: words.join(" "), shape };
}

function piece(x, y, r, colourName, shape, ctx) {
  const path = (SHAPES[shape] || SHAPES.circle)(r);
  const c = colour(colourName);
  return s("path", { d: path, transform: `translate(${x} ${y})`, fill: fillOf(colourName, ctx.patterns), stroke: c.stroke, "stroke-width": 1.5 });
}

function shapeIcon(x, y, r, shape) {
  return s("path", { d: (SHAPES[shape] || SHAPES.circle)(r), transform: `translate(${x} ${y})`, fill: "none", stroke: "#6b5a3a", "stroke-width": 2, "stroke-dasharray": "3 2" });
}

function hlCircle(x, y, r) { return s("circle", { class: "hl", cx: x, cy: y, r }); }

export function render(el, ctx) {
  const v = ctx.view;
  const players = v.players || [];
  const n = players.length;
  const cols = n <= 2 ? n : (n <= 4 ? 2 : 3);
  const pw = cols === 3 ? 325 : 490, ph = 300;
  const top = 270;
  const height = top + Math.ceil(n / cols) * (ph + 10) + 10;
  const svg = s("svg", { viewBox: `0 0 1000 ${height}`, class: "glassworks-board", role: "img", "aria-label": "Glassworks table" });
  svg.appendChild(patternDefs("cb"));

  // the river
  svg.appendChild(s("path", { d: "M0 60 C250 20 750 120 1000 60 V190 C750 250 250 150 0 190 Z", fill: "#2c6e8f", opacity: 0.55 }));
  svg.appendChild(s("text", { x: 14, y: 24, "font-size": 13, fill: "#e8e2d2", text: `river · bag ${v.bag_size}` + (v.end_triggered ? " · the end is triggered" : "") }));
  const tw = 150;
  v.river.forEach((t, i) => {
    const x = 20 + i * (tw + 12), y = 40;
    const g = s("g", { class: "river-tile", "data-tile": t.tile });
    g.appendChild(s("rect", { x, y, width: tw, height: 160, rx: 14, fill: "#e9dfc8", stroke: "#8a7b5c", "stroke-width": 2 }));
    g.appendChild(shapeIcon(x + 22, y + 22, 13, t.tile));
    g.appendChild(s("text", { x: x + tw - 12, y: y + 26, "text-anchor": "end", "font-size": 12, fill: "#6b5a3a", text: `${t.tile} · ${"●".repeat(t.stones || 0)}` }));
    t.pieces.forEach((pc, k) => {
      const { colour: c, shape } = parsePiece(pc);
      g.appendChild(piece(x + 26 + (k % 4) * 33, y + 66 + Math.floor(k / 4) * 36, 13, c, shape, ctx));
    });
    const gather = findLegal(ctx.legal, { type: "gather", tile: t.tile })[0];
    if (gather) {
      g.appendChild(s("rect", { class: "hl", x: x - 3, y: y - 3, width: tw + 6, height: 166, rx: 16 }));
      svg.appendChild(clickable(g, gather, ctx.act));
    } else svg.appendChild(g);
  });

  // the lake
  const lake = s("g", { id: "gw-lake" });
  lake.appendChild(s("ellipse", { cx: 500, cy: 238, rx: 300, ry: 28, fill: "#3f8fb0", opacity: 0.6 }));
  lake.appendChild(s("text", { x: 170, y: 243, "font-size": 13, fill: "#fff", text: v.lake_open ? "lake" : "lake (closed)" }));
  v.lake.forEach((pc, k) => {
    const { colour: c, shape } = parsePiece(pc);
    const x = 300 + k * 44, y = 238;
    const pg = s("g", {}, [s("circle", { cx: x, cy: y, r: 18, fill: "transparent" }), piece(x, y, 14, c, shape, ctx)]);
    const draw = findLegal(ctx.legal, { type: "lake", leave_colour: c, leave_shape: shape })[0];
    if (draw) {
      pg.appendChild(hlCircle(x, y, 19));
      lake.appendChild(clickable(pg, draw, ctx.act));
    } else lake.appendChild(pg);
  });
  svg.appendChild(lake);

  players.forEach((pl, p) => {
    const x = 6 + (p % cols) * (pw + 8);
    const y = top + Math.floor(p / cols) * (ph + 10);
    svg.appendChild(works(x, y, pw, ph, pl, p, v, ctx));
  });
  el.replaceChildren(svg);
}

function works(x, y, w, hgt, pl, p, v, ctx) {
  const g = s("g", { class: "works", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 12, fill: mine ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = (ctx.names && ctx.names[p]) || `Seat ${p + 1}`;
  g.appendChild(s("text", { x: 14, y: 26, "font-size": 16, "font-weight": 700, fill: "#222", text: name + (mine ? " (you)" : "") }));
  g.appendChild(s("text", { x: w - 14, y: 28, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: "#5a4520", text: String(pl.score) }));
  const parts = pl.score_parts || {};
  g.appendChild(s("text", { x: w - 66, y: 26, "text-anchor": "end", "font-size": 11, fill: "#7a7268", text: Object.entries(parts).map(([k, x]) => `${k} ${x}`).join(" · ") }));
  // satchel
  g.appendChild(s("text", { x: 14, y: 52, "font-size": 11.5, fill: "#7a7268", text: `satchel (${pl.satchel.length})` }));
  pl.satchel.forEach((pc, k) => {
    const { colour: c, shape } = parsePiece(pc);
    const px = 24 + k * 34, py = 74;
    const pg = s("g", {}, [s("circle", { cx: px, cy: py, r: 16, fill: "transparent" }), piece(px, py, 13, c, shape, ctx)]);
    const act = mine ? (findLegal(ctx.legal, { type: "place", colour: c, shape })[0] || findLegal(ctx.legal, { type: "overflow", colour: c, shape })[0]) : null;
    if (act) {
      pg.appendChild(hlCircle(px, py, 17));
      g.appendChild(clickable(pg, act, ctx.act));
    } else g.appendChild(pg);
  });
  // columns (colour and height) over the value grid
  const cw = Math.min(52, (w - 40) / 7);
  const baseY = hgt - 40;
  (pl.columns || []).forEach((col, i) => {
    const cx = 20 + i * cw;
    for (let k = 0; k < 5; k++) {
      const yy = baseY - (k + 1) * 28;
      const val = v.values && v.values[i] ? v.values[i][k] : "";
      const filled = col.colour && k < col.height;
      g.appendChild(s("rect", { x: cx, y: yy, width: cw - 6, height: 24, rx: 3, fill: filled ? fillOf(col.colour, ctx.patterns) : "#e2d7c1", stroke: filled ? colour(col.colour).stroke : "#c3b594" }));
      g.appendChild(s("text", { x: cx + (cw - 6) / 2, y: yy + 16, "text-anchor": "middle", "font-size": 11, fill: filled ? colour(col.colour).ink : "#9a8a6a", text: val }));
    }
    g.appendChild(s("text", { x: cx + (cw - 6) / 2, y: baseY + 14, "text-anchor": "middle", "font-size": 10, fill: "#7a7268", text: col.colour || "—" }));
  });
  // open a column with a colour
  const opens = mine ? ctx.legal.filter((e) => e.type === "column") : [];
  opens.forEach((e, k) => {
    const ox = 24 + k * 30, oy = 104;
    const og = s("g", {}, [s("rect", { x: ox - 11, y: oy - 11, width: 22, height: 22, rx: 4, fill: fillOf(e.json.colour, ctx.patterns), stroke: colour(e.json.colour).stroke }), s("rect", { class: "hl", x: ox - 14, y: oy - 14, width: 28, height: 28, rx: 5 })]);
    g.appendChild(clickable(og, e, ctx.act));
  });
  if (opens.length) g.appendChild(s("text", { x: 28 + opens.length * 30, y: 109, "font-size": 11, fill: "#222", text: "open the next column with…" }));
  // overflow
  const ov = pl.overflow || [];
  g.appendChild(s("text", { x: 14, y: hgt - 10, "font-size": 11.5, fill: "#7a7268", text: `overflow ${ov.length} · inventory ${pl.inventory}` }));
  ov.slice(0, 16).forEach((c, k) => g.appendChild(s("circle", { cx: 190 + k * 16, cy: hgt - 14, r: 6, fill: fillOf(c, ctx.patterns), stroke: colour(c).stroke })));
  return g;
}
