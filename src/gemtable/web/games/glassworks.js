// River Valley Glassworks board: the river of shape tiles with the glass on
// them, the lake, and each player's satchel, glassworks columns, row track,
// rarity chart and overflow.  A narrow screen gets a portrait layout (the
// river in two rows, one player board per row).
// Legal actions are clickable: a satchel piece (place it / put it in
// overflow), a river tile (gather), a lake piece (draw the rest, leaving it),
// a colour chip (open the next column).  A satchel piece that could also go
// in a pair is selected first: then its own tile places it alone, a second
// piece of the same shape makes the pair, and the tiles the pair may go on
// light up.

import { s, colour, fillOf, patternDefs, clickable, findLegal, minFont, explainable, tapWord, wrapWords } from "../svg.js";
import { boardDialog } from "../dialog.js";
import { t, tn, tp } from "../i18n.js";

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

// The game's words in the reader's language (the same words as the log's): the view names
// colours and shapes in English, as the engine's data does.
function colourName(c) {
  switch (c) {
    case "white": return tp("glass colour", "white");
    case "purple": return tp("glass colour", "purple");
    case "light blue": return tp("glass colour", "light blue");
    case "dark blue": return tp("glass colour", "dark blue");
    case "light green": return tp("glass colour", "light green");
    case "dark green": return tp("glass colour", "dark green");
    case "yellow": return tp("glass colour", "yellow");
    case "orange": return tp("glass colour", "orange");
    case "black": return tp("glass colour", "black");
    default: return String(c);
  }
}
function shapeName(x) {
  switch (x) {
    case "triangle": return tp("shape", "triangle");
    case "heart": return tp("shape", "heart");
    case "circle": return tp("shape", "circle");
    case "square": return tp("shape", "square");
    case "star": return tp("shape", "star");
    case "moon": return tp("shape", "moon");
    default: return String(x);
  }
}
// A piece by name ("white triangle"; German: "Dreieck in Weiß").
function pieceName(c, x) {
  const colour = colourName(c);
  switch (x) {
    case "triangle": return tp("piece", "{colour} triangle", { colour });
    case "heart": return tp("piece", "{colour} heart", { colour });
    case "circle": return tp("piece", "{colour} circle", { colour });
    case "square": return tp("piece", "{colour} square", { colour });
    case "star": return tp("piece", "{colour} star", { colour });
    case "moon": return tp("piece", "{colour} moon", { colour });
    default: return `${colour} ${x}`;
  }
}
const pieceOf = (text) => { const { colour: c, shape } = parsePiece(text); return pieceName(c, shape); };
const touch = () => tapWord() === "tap";

// the satchel pieces chosen for a placement (indices), reset when the position changes
let selection = [];
// The smallest font size (user units) that reads 10 px on this screen (svg.js minFont);
// 0 on a wide screen.  Stacked labels are spaced for it.
let fmin = 0;
let selectionKey = "";

function piece(x, y, r, colourName, shape, ctx, key = null) {
  const path = (SHAPES[shape] || SHAPES.circle)(r);
  const c = colour(colourName);
  // white glass on the pale tiles needs a dark outline to stand out
  const white = String(colourName).toLowerCase() === "white";
  return s("path", { d: path, transform: `translate(${x} ${y})`, "data-motion-key": key, fill: fillOf(colourName, ctx.patterns), stroke: white ? "#4d463a" : c.stroke, "stroke-width": white ? 2.2 : 1.5, "stroke-linejoin": "round" });
}

function sameColours(a, b) {
  return a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);
}

// The river placements the current selection allows: {tile: entry}.
function selectionTargets(ctx, satchel) {
  const out = {};
  const picked = selection.map((k) => parsePiece(satchel[k]));
  if (picked.length === 1) {
    const e = findLegal(ctx.legal, { type: "place", colour: picked[0].colour, shape: picked[0].shape })[0];
    if (e) out[picked[0].shape] = e;
  } else if (picked.length === 2) {
    for (const e of ctx.legal) {
      if (e.type === "place_pair" && e.json.shape === picked[0].shape && sameColours(e.json.colours, picked.map((x) => x.colour))) out[e.json.tile] = e;
    }
  }
  return out;
}

function shapeIcon(x, y, r, shape) {
  return s("path", { d: (SHAPES[shape] || SHAPES.circle)(r), transform: `translate(${x} ${y})`, fill: "none", stroke: "#6b5a3a", "stroke-width": 2, "stroke-dasharray": "3 2" });
}

function hlCircle(x, y, r) { return s("circle", { class: "hl", cx: x, cy: y, r }); }

// On a phone the pieces and chips stay small to look at, but each clickable one gets an
// invisible square hit area of TAP units (at 500 units across a 390 px screen, about
// 45 px), and its neighbours move TAP apart so no two hit areas overlap.
const TAP = 60, SAT_ROW = 8;
function hitArea(x, y, size) {
  return s("rect", { class: "gw-hit", x: x - size / 2, y: y - size / 2, width: size, height: size, fill: "#000", "fill-opacity": 0 });
}

export function render(el, ctx) {
  const v = ctx.view;
  const key = JSON.stringify(ctx.legal.map((e) => e.id)) + "|" + v.turn + "|" + ctx.seat;
  if (key !== selectionKey) { selection = []; selectionKey = key; }
  const me = ctx.seat !== null && ctx.seat !== undefined ? (v.players || [])[ctx.seat] : null;
  const targets = me && selection.length ? selectionTargets(ctx, me.satchel) : {};
  const redraw = () => render(el, ctx);
  const players = v.players || [];
  const n = players.length;
  const narrow = (el.clientWidth || 1000) < 640;
  const W = narrow ? 500 : 1000;
  fmin = narrow ? minFont(el, W) : 0;
  const cols = narrow ? 1 : (n <= 4 ? Math.min(n, 2) : 3);
  // phone: eight satchel pieces a row; a board grows by a row when some satchel needs it
  const satDy = narrow ? Math.max(0, ...players.map((pl) => Math.ceil(pl.satchel.length / SAT_ROW) - 1)) * TAP : 0;
  const pw = cols === 3 ? 325 : 490, ph = narrow ? 380 + satDy : 330;
  const perRow = narrow ? 3 : 6;
  const tw = 150, th = narrow ? 115 : 160, gapY = 12;
  const riverRows = Math.ceil(v.river.length / perRow);
  const riverBottom = 40 + riverRows * (th + gapY) - gapY;
  const lakeY = riverBottom + 38;
  const top = lakeY + 32;
  const height = top + Math.ceil(n / cols) * (ph + 10) + 10;
  const svg = s("svg", { viewBox: `0 0 ${W} ${height}`, class: "glassworks-board", role: "img", "aria-label": t("Glassworks table") });
  svg.appendChild(patternDefs("cb"));

  // the river (upstream start first, flowing to the lake)
  for (let r = 0; r < riverRows; r++) {
    const y0 = 40 + r * (th + gapY);
    svg.appendChild(s("path", { d: `M0 ${y0 + 20} C${W / 4} ${y0 - 20} ${(3 * W) / 4} ${y0 + 60} ${W} ${y0 + 20} V${y0 + th - 10} C${(3 * W) / 4} ${y0 + th + 30} ${W / 4} ${y0 + th - 50} 0 ${y0 + th - 10} Z`, fill: "#2c6e8f", opacity: 0.55 }));
  }
  svg.appendChild(s("text", { x: 14, y: 24, "font-size": 13, fill: "#e8e2d2", text: t("river → lake · bag {n}", { n: v.bag_size }) + (v.end_triggered ? t(" · the end is triggered") : "") }));
  const x0 = (W - (perRow * tw + (perRow - 1) * 12)) / 2;
  v.river.forEach((rt, i) => {
    const x = x0 + (i % perRow) * (tw + 12), y = 40 + Math.floor(i / perRow) * (th + gapY);
    const g = s("g", { class: "river-tile", "data-tile": rt.tile });
    g.appendChild(s("rect", { x, y, width: tw, height: th, rx: 14, fill: "#e9dfc8", stroke: "#8a7b5c", "stroke-width": 2 }));
    g.appendChild(shapeIcon(x + 22, y + 22, 13, rt.tile));
    // position in the flow, upstream start = 1 (the river wraps onto a second row on a phone)
    g.appendChild(s("text", { x: x + tw - 10, y: y + th - 9, "text-anchor": "end", "font-size": 11, fill: "#a08f6a", text: i === v.river.length - 1 ? t("{n} → lake", { n: i + 1 }) : `${i + 1}` }));
    g.appendChild(s("text", { x: x + tw - 12, y: y + 26, "text-anchor": "end", "font-size": 12, fill: "#6b5a3a", text: `${shapeName(rt.tile)} · ${"●".repeat(rt.stones || 0)}` }));
    const many = rt.pieces.length > 8;
    const step = many ? 26 : 33, per = many ? 5 : 4, r = many ? 10.5 : 13;
    rt.pieces.forEach((pc, k) => {
      const { colour: c, shape } = parsePiece(pc);
      g.appendChild(piece(x + 24 + (k % per) * step, y + 62 + Math.floor(k / per) * (many ? 27 : 36), r, c, shape, ctx, `gw-r${i}-${k}`));
    });
    const gather = selection.length ? null : findLegal(ctx.legal, { type: "gather", tile: rt.tile })[0];
    const put = targets[rt.tile];
    if (put) {
      g.appendChild(s("rect", { class: "hl", x: x - 3, y: y - 3, width: tw + 6, height: th + 6, rx: 16 }));
      g.appendChild(s("text", { x: x + tw / 2, y: y + th - 24, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#2c5e2a", text: selection.length === 2 ? t("place the pair here") : t("place it here") }));
      g.classList.add("gw-target");
      svg.appendChild(clickable(g, put, (e) => { selection = []; ctx.act(e); }));
    } else if (gather) {
      g.appendChild(s("rect", { class: "hl", x: x - 3, y: y - 3, width: tw + 6, height: th + 6, rx: 16 }));
      svg.appendChild(clickable(g, gather, ctx.act));
    } else if (!selection.length && ctx.legal.some((e) => e.type === "gather")) {
      svg.appendChild(explainable(g, { type: "gather", tile: rt.tile }, ctx)); // a tile too far away: a tap says why
    } else svg.appendChild(g);
  });

  // the lake
  const lake = s("g", { id: "gw-lake" });
  const lakeRx = narrow ? 235 : 300;
  lake.appendChild(s("ellipse", { cx: W / 2, cy: lakeY, rx: lakeRx, ry: 28, fill: "#3f8fb0", opacity: 0.6 }));
  lake.appendChild(s("text", { x: W / 2 - lakeRx + 22, y: lakeY + 5, "font-size": 13, fill: "#fff", text: v.lake_open ? t("lake") : t("lake (closed)") }));
  v.lake.forEach((pc, k) => {
    const { colour: c, shape } = parsePiece(pc);
    const x = W / 2 - (narrow ? 60 : 170) + k * (narrow ? TAP : 44), y = lakeY;
    const pg = s("g", {}, [narrow ? hitArea(x, y, TAP) : s("circle", { cx: x, cy: y, r: 18, fill: "transparent" }), piece(x, y, 14, c, shape, ctx, `gw-l${k}`)]);
    const draw = findLegal(ctx.legal, { type: "lake", leave_colour: c, leave_shape: shape })[0];
    if (draw) {
      pg.appendChild(hlCircle(x, y, 19));
      lake.appendChild(clickable(pg, draw, ctx.act));
    } else lake.appendChild(pg);
  });
  svg.appendChild(lake);

  const left = (W - (cols * pw + (cols - 1) * 8)) / 2;
  players.forEach((pl, p) => {
    const x = left + (p % cols) * (pw + 8);
    const y = top + Math.floor(p / cols) * (ph + 10);
    svg.appendChild(works(x, y, pw, ph, pl, p, v, ctx, redraw, narrow, satDy));
  });
  const dlg = choiceDialog(v, ctx, narrow, W, riverBottom);
  if (dlg) svg.appendChild(dlg);
  el.replaceChildren(svg);
}

// The choices with no place of their own on the board, as a small dialog over the river:
// which satchel piece goes to overflow, and which colour opens the next column.
function choiceDialog(v, ctx, narrow, W, riverBottom) {
  const area = { x: 4, y: 30, w: W - 8, h: riverBottom - 26 };
  const font = narrow ? 19 : 16;
  const overflow = ctx.legal.filter((e) => e.type === "overflow");
  if (overflow.length && overflow.length === ctx.legal.length) {
    return boardDialog({
      kind: "overflow", cls: "gw-dialog", area, font, act: ctx.act, cols: narrow ? 3 : 4, optH: narrow ? 60 : 46, width: narrow ? 480 : 640,
      title: t("Which piece goes to overflow?"), note: t("Your satchel holds too many pieces: one goes to your overflow (it costs points at the end)."),
      options: overflow.map((e) => ({ entry: e, draw: (g, bx, by, bw, bh) => {
        if (!narrow) {
          const name = pieceName(e.json.colour, e.json.shape);
          g.appendChild(piece(bx + 22, by + bh / 2, 13, e.json.colour, e.json.shape, ctx));
          g.appendChild(s("text", { x: bx + 42, y: by + bh / 2 + 5, "font-size": fitFont(name, bw - 48, 13), "font-weight": 700, fill: "#222", text: name }));
          return;
        }
        // on a phone the name takes two lines (colour, then shape): a piece's whole name
        // ("light green heart") at the readable size is wider than a third of the dialog
        const cn = colourName(e.json.colour), sn = shapeName(e.json.shape);
        const f = Math.max(fmin, fitFont(cn.length > sn.length ? cn : sn, bw - 40, 16));
        g.appendChild(piece(bx + 18, by + bh / 2, 11, e.json.colour, e.json.shape, ctx));
        g.appendChild(s("text", { x: bx + 34, y: by + bh / 2 - 3, "font-size": f, "font-weight": 700, fill: "#222", text: cn }));
        g.appendChild(s("text", { x: bx + 34, y: by + bh / 2 - 3 + f * 1.1, "font-size": f, "font-weight": 700, fill: "#222", text: sn }));
      } })),
    });
  }
  const cols = ctx.legal.filter((e) => e.type === "column");
  if (cols.length && cols.length === ctx.legal.length) {
    return boardDialog({
      kind: "column", cls: "gw-dialog", area, font, act: ctx.act, cols: narrow ? 2 : 4, optH: narrow ? 60 : 46, width: narrow ? 480 : 600,
      title: t("Open your next column with which colour?"), note: t("Each column takes one colour of glass for the rest of the game."),
      options: cols.map((e) => ({ entry: e, draw: (g, bx, by, bw, bh) => {
        g.appendChild(s("rect", { x: bx + 10, y: by + bh / 2 - 12, width: 24, height: 24, rx: 4, fill: fillOf(e.json.colour, ctx.patterns), stroke: e.json.colour === "white" ? "#4d463a" : colour(e.json.colour).stroke, "stroke-width": 1.5 }));
        const cn = colourName(e.json.colour);
        g.appendChild(s("text", { x: bx + 42, y: by + bh / 2 + 5, "font-size": fitFont(cn, bw - 48, narrow ? 16 : 14), "font-weight": 700, fill: "#222", text: cn }));
      } })),
    });
  }
  return null;
}

function fitFont(text, width, max) {
  return Math.max(9, Math.min(max, width / (String(text).replace(/\u00ad/g, "").length * 0.6)));
}

// The pieces that are in one list and not in the other: [{ text, index }] of `b` beyond `a`.
function added(a, b) {
  const left = {};
  for (const x of a) left[x] = (left[x] || 0) + 1;
  const out = [];
  b.forEach((x, index) => { if (left[x]) left[x] -= 1; else out.push({ text: x, index }); });
  return out;
}

// Motion (see ../motion.js): every piece that left one place (a river tile, the lake, a
// satchel) flies to where one like it arrived (a river tile, a satchel, a column, overflow).
export function motions(prev, next) {
  if (!prev.players || !next.players || prev.players.length !== next.players.length) return [];
  const sources = [], targets = [];
  const tiles = (v) => Object.fromEntries((v.river || []).map((t, i) => [t.tile, { i, pieces: t.pieces || [] }]));
  const was = tiles(prev), now = tiles(next);
  for (const [name, t] of Object.entries(was)) {
    const n = now[name] || { i: -1, pieces: [] };
    for (const x of added(n.pieces, t.pieces)) sources.push({ text: x.text, key: `gw-r${t.i}-${x.index}` });
    if (n.i >= 0) for (const x of added(t.pieces, n.pieces)) targets.push({ text: x.text, key: `gw-r${n.i}-${x.index}` });
  }
  for (const x of added(next.lake || [], prev.lake || [])) sources.push({ text: x.text, key: `gw-l${x.index}` });
  for (const x of added(prev.lake || [], next.lake || [])) targets.push({ text: x.text, key: `gw-l${x.index}` });
  next.players.forEach((pl, p) => {
    const old = prev.players[p];
    for (const x of added(pl.satchel || [], old.satchel || [])) sources.push({ text: x.text, key: `gw-p${p}-sat${x.index}` });
    for (const x of added(old.satchel || [], pl.satchel || [])) targets.push({ text: x.text, key: `gw-p${p}-sat${x.index}` });
    (pl.columns || []).forEach((col, i) => {
      const h0 = ((old.columns || [])[i] || {}).height || 0;
      for (let k = h0; k < (col.height || 0); k++) targets.push({ colour: col.colour, key: `gw-p${p}-c${i}-${k}` });
    });
    for (let k = (old.overflow || []).length; k < (pl.overflow || []).length; k++) targets.push({ colour: pl.overflow[k], key: `gw-p${p}-ov${k}` });
  });
  const out = [];
  const used = new Set();
  const colourOf = (text) => parsePiece(text).colour;
  for (const t of targets) {
    const src = sources.find((x, j) => !used.has(j) && (t.text ? x.text === t.text : colourOf(x.text) === t.colour));
    if (!src) continue;
    used.add(sources.indexOf(src));
    out.push({ from: src.key, to: t.key, ghost: "from" });
  }
  return out;
}

// A column's colour name in at most two lines of `max` characters: "light green" ->
// ["light", "green"]; a one-word name stays on one line unless it is longer than a line,
// then it breaks at a soft hyphen the catalogue marks ("Dunkel-", "grün").
function labelLines(name, max) {
  const words = String(name).split(" ");
  if (words.length > 1) return [words.slice(0, -1).join(" "), words[words.length - 1]];
  return wrapWords(name, max).slice(0, 2);
}

// A part of a seat's score ("rows 4", "columns 9", "overflow -3").
function partName(k, x) {
  if (k === "rows") return t("rows {n}", { n: x });
  if (k === "columns") return t("columns {n}", { n: x });
  if (k === "overflow") return t("overflow {n}", { n: x });
  return `${k} ${x}`;
}

function works(x, y, w, hgt, pl, p, v, ctx, redraw, narrow = false, dy = 0) {
  const g = s("g", { class: "works", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 12, fill: mine ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = (ctx.names && ctx.names[p]) || t("Seat {n}", { n: p + 1 });
  g.appendChild(s("text", { x: 14, y: 26, "font-size": 16, "font-weight": 700, fill: "#222", text: name + (mine ? t(" (you)") : "") }));
  g.appendChild(s("text", { x: w - 14, y: 28, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: "#5a4520", text: String(pl.score) }));
  const parts = pl.score_parts || {};
  g.appendChild(s("text", { x: w - 14, y: 46, "text-anchor": "end", "font-size": 11, fill: "#7a7268", text: Object.entries(parts).map(([k, x]) => partName(k, x)).join(" · ") }));
  // satchel
  g.appendChild(s("text", { x: 14, y: 52, "font-size": 11.5, fill: "#7a7268", text: t("satchel ({n})", { n: pl.satchel.length }) }));
  const pairs = mine ? ctx.legal.filter((e) => e.type === "place_pair") : [];
  const pairsOf = (pc) => pairs.filter((e) => e.json.shape === pc.shape && e.json.colours.includes(pc.colour));
  const first = selection.length === 1 ? parsePiece(pl.satchel[selection[0]]) : null;
  // phone: the satchel pieces TAP apart, SAT_ROW a row
  const step = narrow ? TAP : 34;
  pl.satchel.forEach((pc, k) => {
    const { colour: c, shape } = parsePiece(pc);
    const px = narrow ? 10 + step / 2 + (k % SAT_ROW) * step : 24 + k * step, py = 74 + (narrow ? Math.floor(k / SAT_ROW) * TAP : 0);
    const pg = s("g", {}, [narrow ? hitArea(px, py, step) : s("circle", { cx: px, cy: py, r: 16, fill: "transparent" }), piece(px, py, 13, c, shape, ctx, `gw-p${p}-sat${k}`)]);
    if (mine && pairsOf({ colour: c, shape }).length) {
      // could go alone or in a pair: select it, then choose the partner and/or the tile
      const selected = selection.includes(k);
      const partner = first && !selected && shape === first.shape &&
        pairs.some((e) => e.json.shape === shape && sameColours(e.json.colours, [first.colour, c]));
      pg.classList.add("act", "gw-select");
      pg.setAttribute("tabindex", "0");
      pg.setAttribute("role", "button");
      pg.setAttribute("data-select", String(k));
      if (selected) pg.setAttribute("data-selected", "1");
      const tip = selected ? (touch() ? t("{piece}: selected (tap again to put it back)", { piece: pieceOf(pc) }) : t("{piece}: selected (click again to put it back)", { piece: pieceOf(pc) }))
        : partner ? t("pair the {first} with this {second}", { first: pieceName(first.colour, first.shape), second: pieceOf(pc) })
          : t("select the {piece} (alone on its tile, or pair it with another {shape})", { piece: pieceOf(pc), shape: shapeName(shape) });
      pg.setAttribute("aria-label", tip);
      pg.appendChild(s("title", { text: tip }));
      if (selected) pg.appendChild(s("circle", { cx: px, cy: py, r: 17.5, fill: "none", stroke: "#1b5e20", "stroke-width": 3, "stroke-dasharray": "5 3" }));
      else pg.appendChild(hlCircle(px, py, 17));
      const fn = () => {
        if (selected) selection = selection.filter((i) => i !== k);
        else if (partner) selection = [selection[0], k];
        else selection = [k];
        redraw();
      };
      pg.addEventListener("click", (e) => { e.stopPropagation(); fn(); });
      pg.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); } });
      g.appendChild(pg);
      return;
    }
    const act = mine ? (findLegal(ctx.legal, { type: "place", colour: c, shape })[0] || findLegal(ctx.legal, { type: "overflow", colour: c, shape })[0]) : null;
    if (act) {
      pg.appendChild(hlCircle(px, py, 17));
      g.appendChild(clickable(pg, act, ctx.act));
    } else g.appendChild(pg);
  });

  if (mine && selection.length) {
    const sn = first ? shapeName(first.shape) : "";
    const hint = selection.length === 2 ? (touch() ? t("pair chosen: tap a lit river tile") : t("pair chosen: click a lit river tile"))
      : touch() ? t("tap its {shape} tile, or a second {shape} to pair it", { shape: sn }) : t("click its {shape} tile, or a second {shape} to pair it", { shape: sn });
    // phone: the hint on the satchel line, the cancel button at the right of the row under the satchel
    const hx = narrow ? 100 : 24 + pl.satchel.length * 34 + 4;
    g.appendChild(s("text", { class: "gw-hint", x: hx, y: narrow ? 52 : 70, "font-size": 11, fill: "#1b5e20", text: hint }));
    const cx = narrow ? w - 86 : hx, cy = narrow ? 116 + dy : 76, cw = narrow ? 72 : 56, ch = narrow ? 28 : 18;
    const cancel = s("g", { class: "act gw-cancel", tabindex: 0, role: "button" }, [
      narrow ? s("rect", { x: cx + cw / 2 - TAP / 2 - 8, y: cy + ch / 2 - TAP / 2, width: TAP + 16, height: TAP, fill: "#000", "fill-opacity": 0 }) : null,
      s("rect", { x: cx, y: cy, width: cw, height: ch, rx: ch / 2, fill: "#666" }),
      s("text", { x: cx + cw / 2, y: cy + ch / 2 + 4, "text-anchor": "middle", "font-size": narrow ? 13 : 11, "font-weight": 700, fill: "#fff", text: t("cancel") }),
    ]);
    cancel.addEventListener("click", (e) => { e.stopPropagation(); selection = []; redraw(); });
    g.appendChild(cancel);
  }

  // the glassworks: columns (colour and height) over the value grid, each row's points
  // on its right, the row track under the columns and the rarity chart beside them
  const wide = w >= 400;
  const rowW = wide ? 30 : 24, chartW = wide ? 96 : 70;
  const ncol = (pl.columns || []).length || 7;
  const nrow = v.values && v.values[0] ? v.values[0].length : 5;
  const cw = Math.min(50, (w - 34 - rowW - chartW) / ncol);
  const gy0 = narrow ? 176 + dy : 124, pitch = 26;
  const small = cw < 36;  // five boards side by side: smaller labels
  const gridRight = 20 + ncol * cw;
  const track = v.row_track || [];
  const known = new Set(v.row_track_known || track.map((_, i) => i));
  const runs = pl.row_runs || [];
  // a column's colour name, on two lines when it has two words: the lines' pitch at the
  // size the name is read at, and the row track under them
  const labelF = Math.max(small ? 8 : 9.5, fmin), labelH = Math.max(10, labelF * 1.15);
  (pl.columns || []).forEach((col, i) => {
    const cx = 20 + i * cw;
    for (let k = 0; k < nrow; k++) {
      const yy = gy0 + (nrow - 1 - k) * pitch;
      const val = v.values && v.values[i] ? v.values[i][k] : "";
      const filled = col.colour && k < col.height;
      g.appendChild(s("rect", { x: cx, y: yy, width: cw - 6, height: 22, rx: 3, "data-motion-key": `gw-p${p}-c${i}-${k}`, fill: filled ? fillOf(col.colour, ctx.patterns) : "#e2d7c1", stroke: filled ? (col.colour === "white" ? "#4d463a" : colour(col.colour).stroke) : "#c3b594", "stroke-width": filled && col.colour === "white" ? 1.6 : 1 }));
      g.appendChild(s("text", { x: cx + (cw - 6) / 2, y: yy + 15, "text-anchor": "middle", "font-size": 11, fill: filled ? colour(col.colour).ink : "#9a8a6a", text: val }));
    }
    // a line still wider than the column (a long word with no break left: "Schwarz" under five
    // boards side by side) is drawn a little narrower, never over its neighbour's
    labelLines(col.colour ? colourName(col.colour) : "—", Math.max(3, Math.floor((cw - 2) / (labelF * 0.55)))).forEach((line, j) => {
      const squeeze = line.length * labelF * 0.55 > cw - 2;
      g.appendChild(s("text", { x: cx + (cw - 6) / 2, y: gy0 + nrow * pitch + 8 + j * labelH, "text-anchor": "middle", "font-size": small ? 8 : 9.5, fill: "#7a7268", textLength: squeeze ? cw - 3 : null, lengthAdjust: squeeze ? "spacingAndGlyphs" : null, text: line }));
    });
  });
  // each row's current points (cells filled from column 1 without a gap)
  g.appendChild(s("text", { x: gridRight + rowW / 2 - 3, y: gy0 - 6, "text-anchor": "middle", "font-size": 9.5, fill: "#7a7268", text: tp("row points", "row") }));
  for (let k = 0; k < nrow; k++) {
    const pts = track[runs[k] || 0] || 0;
    const yy = gy0 + (nrow - 1 - k) * pitch;
    g.appendChild(s("text", { class: "gw-row-points", x: gridRight + rowW / 2 - 3, y: yy + 15, "text-anchor": "middle", "font-size": pts ? 12.5 : 11, "font-weight": pts ? 700 : 400, fill: pts ? "#5a4520" : "#b5a888", text: pts ? `+${pts}` : "·" }, [s("title", { text: t("row {row}: {cells} cell(s) from column 1 → {points} point(s)", { row: k + 1, cells: runs[k] || 0, points: pts }) })]));
  }
  // the row track: points of a row filled from column 1 up to that column
  const ty = gy0 + nrow * pitch + Math.max(24, 8 + labelH + labelF * 0.25 + 2);
  const trackG = s("g", { class: "gw-row-track" }, [s("title", { text: t("Row track: a row filled from column 1 up to this column scores these points (* placeholder value)") })]);
  for (let c = 0; c < ncol; c++) {
    const cx = 20 + c * cw;
    const cells = c + 1;
    const isKnown = known.has(cells);
    const reached = runs.some((r) => r === cells);
    trackG.appendChild(s("rect", { x: cx, y: ty, width: cw - 6, height: 19, rx: 9.5, fill: reached ? "#e8b931" : "#6b5a3a", stroke: reached ? "#8a6a0c" : "none" }));
    trackG.appendChild(s("text", { x: cx + (cw - 6) / 2, y: ty + 13.5, "text-anchor": "middle", "font-size": small ? 9.5 : 11, "font-weight": 700, fill: reached ? "#3a2b00" : "#f4efe2", text: `${track[cells] ?? ""}${isKnown ? "" : "*"}` }));
  }
  // its name at its right: two short lines, or one line on a phone, where the size
  // read would make two lines taller than the track
  if (fmin) trackG.appendChild(s("text", { x: gridRight, y: ty + 14, "font-size": 9.5, fill: "#7a7268", text: t("row track") }));
  else {
    trackG.appendChild(s("text", { x: gridRight, y: ty + 8, "font-size": 9.5, fill: "#7a7268", text: tp("row track", "row") }));
    trackG.appendChild(s("text", { x: gridRight, y: ty + 18, "font-size": 9.5, fill: "#7a7268", text: tp("row track", "track") }));
  }
  g.appendChild(trackG);
  // the rarity chart: pieces of each colour in the game
  const rx = gridRight + rowW + 4;
  const rarity = pl.rarity || [];
  const most = Math.max(1, ...rarity.map((e) => e.count));
  const barMax = chartW - 24;
  const chart = s("g", { class: "gw-rarity" });
  chart.appendChild(s("text", { x: rx, y: gy0 - 6, "font-size": 9.5, fill: "#7a7268", text: t("rarity") }));
  const rowH = Math.min(15, (nrow * pitch - 4) / Math.max(1, rarity.length));
  rarity.forEach((e, i) => {
    const yy = gy0 + i * rowH;
    const bw = Math.max(4, (e.count / most) * barMax);
    chart.appendChild(s("g", { class: "gw-rarity-entry", "data-colour": e.colour }, [
      s("title", { text: tn("{colour}: {n} piece in the game", "{colour}: {n} pieces in the game", e.count, { colour: colourName(e.colour) }) }),
      s("rect", { x: rx, y: yy, width: bw, height: rowH - 3.5, rx: 2, fill: fillOf(e.colour, ctx.patterns), stroke: colour(e.colour).stroke, "stroke-width": 1 }),
      s("text", { x: rx + bw + 3, y: yy + rowH - 4.5, "font-size": 11.5, "font-weight": 700, fill: "#4a3a20", text: String(e.count) }),
    ]));
  });
  g.appendChild(chart);

  // open a column with a colour
  const opens = mine ? ctx.legal.filter((e) => e.type === "column") : [];
  opens.forEach((e, k) => {
    // phone: the chips TAP apart in their own row between the satchel and the columns
    const ox = narrow ? 10 + TAP / 2 + k * TAP : 24 + k * 30, oy = narrow ? 130 + dy : 104;
    const og = s("g", {}, [narrow ? hitArea(ox, oy, TAP) : null, s("rect", { x: ox - 11, y: oy - 11, width: 22, height: 22, rx: 4, fill: fillOf(e.json.colour, ctx.patterns), stroke: colour(e.json.colour).stroke }), s("rect", { class: "hl", x: ox - 14, y: oy - 14, width: 28, height: 28, rx: 5 })]);
    g.appendChild(clickable(og, e, ctx.act));
  });
  if (opens.length) {
    const label = t("open the next column with…"), lx = narrow ? 100 : 28 + opens.length * 30;
    g.appendChild(s("text", { x: lx, y: narrow ? 52 : 107, "font-size": Math.min(11, (w - lx - 8) / (label.length * 0.55)), fill: "#222", text: label }));
  }
  // overflow
  const ov = pl.overflow || [];
  g.appendChild(s("text", { x: 14, y: hgt - 10, "font-size": 11.5, fill: "#7a7268", text: t("overflow {n} · inventory {inventory}/{trigger}", { n: ov.length, inventory: pl.inventory, trigger: v.end_trigger ?? 17 }) }));
  const fit = Math.max(1, Math.floor((w - 200) / 16));
  const shown = ov.length > fit ? fit - 1 : ov.length;
  ov.slice(0, shown).forEach((c, k) => g.appendChild(s("circle", { cx: 190 + k * 16, cy: hgt - 14, r: 6, "data-motion-key": `gw-p${p}-ov${k}`, fill: fillOf(c, ctx.patterns), stroke: colour(c).stroke })));
  if (shown < ov.length) g.appendChild(s("text", { x: 184 + shown * 16, y: hgt - 10, "font-size": 11, fill: "#7a7268", text: `+${ov.length - shown}` }));
  return g;
}
