// Azul: Stained Glass of Sintra board: factories and centre, the round
// track, and each player's palace (8 pattern strips of 5 panes, the glazier,
// the windows below, the broken-glass track).  Drawn from the view; legal
// actions (take a colour, place on a strip, keep a pane, return the glazier)
// are highlighted and clickable.

import { s, colour, fillOf, patternDefs, clickable, findLegal, explainable } from "../svg.js";
import { boardDialog } from "../dialog.js";
import { t, tn, tp } from "../i18n.js";

// A font size at which `text` fits in `width` (an estimate from its length: long words of
// other languages shrink rather than run over their neighbours).
function fitSize(text, width, size) {
  return Math.max(8, Math.min(size, width / (text.length * 0.58)));
}

// A colour's word on its own (the view names colours in English).
function colourName(c) {
  const names = { white: tp("colour", "white"), yellow: tp("colour", "yellow"), orange: tp("colour", "orange"), blue: tp("colour", "blue"), pink: tp("colour", "pink") };
  return names[c] || c;
}

function pane(x, y, w, c, ctx, opts = {}) {
  const col = colour(c);
  return s("rect", {
    x, y, width: w, height: w * (opts.tall || 1), rx: 3,
    fill: c ? fillOf(c, ctx.patterns) : "none", stroke: col.stroke, "stroke-width": 1.2,
    opacity: opts.faded ? 0.28 : 1,
  });
}

// On a phone (500 units across a 390 px screen) a tap target needs TAP units a side (about 45 px).
const TAP = 60;
function hitRect(x, y, w, hgt) {
  return s("rect", { class: "si-hit", x, y, width: w, height: hgt, fill: "#000", "fill-opacity": 0 });
}

function groupedPanes(x, y, counts, ctx, take, size = 16, ink = "#3a3025", grid = null, key = null) {
  // draw the panes of each colour in a little cluster; clickable per colour.
  // A colour none of whose panes the mover could place (all would break) gets a red warning mark.
  // grid {cell, perRow}: (phone) each colour in its own cell of cell×cell units, an invisible
  // hit area as large as the cell, the cells side by side (x, y: the grid's top left).
  const allBreak = new Set(ctx.view.all_break_colours || []);
  const g = s("g");
  let i = 0;
  for (const [c, n] of Object.entries(counts)) {
    if (!n) continue;
    const cg = s("g", { "data-colour": c, "data-motion-key": key ? `${key}-${c}` : null });
    let px = x + i * (size + 3), py = y;
    if (grid) {
      const gx = x + (i % grid.perRow) * grid.cell, gy = y + Math.floor(i / grid.perRow) * grid.cell;
      cg.appendChild(hitRect(gx, gy, grid.cell, grid.cell));
      px = gx + (grid.cell - size) / 2;
      py = gy + (grid.cell - size - (n - 1) * 4 - 12) / 2;
    }
    const dy = grid ? 4 : 5;
    for (let k = 0; k < n; k++) cg.appendChild(pane(px, py + k * dy, size, c, ctx));
    cg.appendChild(s("text", { x: px + size / 2, y: py + size + (n - 1) * dy + 12, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: ink, text: `${n}` }));
    const act = take(c);
    if (act) {
      cg.appendChild(s("rect", { class: "hl", x: px - 3, y: py - 3, width: size + 6, height: size + 6 + (n - 1) * dy, rx: 4 }));
      if (allBreak.has(c)) {
        const bx = px + size, by = py - 2;
        cg.appendChild(s("g", { class: "si-all-break" }, [
          s("circle", { cx: bx, cy: by, r: 6.5, fill: "#c62828", stroke: "#fff", "stroke-width": 1.2 }),
          s("path", { d: `M${bx - 2.8} ${by - 2.8} L${bx + 2.8} ${by + 2.8} M${bx + 2.8} ${by - 2.8} L${bx - 2.8} ${by + 2.8}`, stroke: "#fff", "stroke-width": 1.8, "stroke-linecap": "round" }),
        ]));
      }
      // every pane of this take breaks: the shell asks once before it is played (ctx.confirm)
      const play = allBreak.has(c) && ctx.confirm ? (e) => ctx.confirm(allBreakQuestion(e)).then((yes) => { if (yes) ctx.act(e); }) : ctx.act;
      g.appendChild(clickable(cg, act, play));
    } else g.appendChild(cg);
    i++;
  }
  return g;
}

// The question before a take none of whose panes fits (the action's text carries the warning).
function allBreakQuestion(entry) {
  // the warning follows a dash: " \u2014 warning: why" in any language
  const cut = entry.text.indexOf(" \u2014 ");
  const what = cut < 0 ? entry.text : entry.text.slice(0, cut);
  const why = cut < 0 ? "" : entry.text.slice(cut + 3).replace(/^[^:]*:\s*/, "");
  const reason = why || t("all of them break");
  return {
    title: t("Every pane of this take breaks"),
    text: t("{what}: {why}. They all go to broken glass and cost you points.", { what: `${what[0].toUpperCase()}${what.slice(1)}`, why: reason }),
    yes: t("Take them anyway"), no: t("Choose again"),
  };
}

export function render(el, ctx) {
  const v = ctx.view;
  const players = v.players || [];
  const n = players.length;
  // a narrow screen (phone) gets a portrait layout: factories wrapped, one palace per row
  const narrow = (el.clientWidth || 1000) < 640;
  const W = narrow ? 500 : 1000;
  const cols = narrow ? 1 : (n <= 2 ? n : 2);
  const boardW = 490, boardH = 420;
  const nf = v.factories.length;
  let lay;
  if (narrow) {
    // three factories a row, each colour in a TAP-sized cell (two by two inside a factory)
    const perRow = 3, fr = 60, pitch = (W - 20) / perRow;
    const rows = Math.ceil(nf / perRow);
    const centreY = 14 + rows * (fr * 2 + 26) + 2;
    const infoY = centreY + 96 + 26;
    lay = {
      fr, fcx: (i) => 10 + pitch / 2 + (i % perRow) * pitch, fcy: (i) => 14 + fr + Math.floor(i / perRow) * (fr * 2 + 26),
      cx: 10, cy: centreY, cw: 300, ch: 96, retX: 320, retY: centreY + 34, retW: 170,
      infoY, bagX: 20, bagY: infoY + 24, top: infoY + 40,
    };
  } else {
    const fr = Math.min(52, 760 / nf / 2 - 6);
    lay = {
      fr, fcx: (i) => 20 + fr + i * (fr * 2 + 12), fcy: () => 70,
      cx: 790, cy: 14, cw: 200, ch: 112, retX: 790, retY: 138, retW: 200,
      infoY: 160, bagX: 340, bagY: 162, top: 190,
    };
  }
  const top = lay.top;
  const height = top + Math.ceil(n / cols) * (boardH + 12) + 10;
  const svg = s("svg", { viewBox: `0 0 ${W} ${height}`, class: "sintra-board", role: "img", "aria-label": t("Sintra table") });
  svg.appendChild(patternDefs("cb"));

  // factories
  const f = s("g", { id: "si-factories" });
  const fr = lay.fr;
  v.factories.forEach((fac, i) => {
    const cx = lay.fcx(i), cy = lay.fcy(i);
    f.appendChild(s("circle", { cx, cy, r: fr, fill: "#efe6d4", stroke: "#8a7b5c", "stroke-width": 2 }));
    const label = t("factory {number}", { number: i + 1 });
    f.appendChild(s("text", { x: cx, y: cy + fr + 16, "text-anchor": "middle", "font-size": fitSize(label, 2 * fr + 8, 12), fill: "#e8e2d2", text: label }));
    const cnt = Object.values(fac).reduce((a, b) => a + b, 0);
    const take = (c) => findLegal(ctx.legal, { type: "take_factory", factory: i, colour: c })[0];
    if (narrow) {
      const m = Object.values(fac).filter((x) => x).length, gc = Math.min(2, Math.max(1, m)), gr = Math.ceil(m / 2);
      f.appendChild(groupedPanes(cx - (gc * TAP) / 2, cy - (gr * TAP) / 2, fac, ctx, take, 20, "#3a3025", { cell: TAP, perRow: 2 }, `si-f${i}`));
    } else {
      const w = Math.min(20, (fr * 1.5) / Math.max(1, Object.keys(fac).length) - 3);
      f.appendChild(groupedPanes(cx - (Object.keys(fac).length * (w + 3)) / 2, cy - w / 2 - 6, fac, ctx, take, w, "#3a3025", null, `si-f${i}`));
    }
    if (!cnt) f.appendChild(s("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 11, fill: "#9a8f78", text: t("empty") }));
  });
  svg.appendChild(f);

  // centre
  const cx0 = lay.cx, cy0 = lay.cy;
  const centre = s("g", { id: "si-centre" });
  centre.appendChild(s("rect", { x: cx0, y: cy0, width: lay.cw, height: lay.ch, rx: 14, fill: "#ffffff14", stroke: "#ffffff55" }));
  const centreLabel = tp("table area", "centre") + (v.start_marker_in_centre ? " · " + t("start marker") : "");
  centre.appendChild(s("text", { x: cx0 + 10, y: cy0 + 18, "font-size": fitSize(centreLabel, lay.cw - 20, 13), fill: "#e8e2d2", text: centreLabel }));
  centre.appendChild(groupedPanes(cx0 + (narrow ? 10 : 12), cy0 + (narrow ? 26 : 30), v.centre, ctx, (c) => findLegal(ctx.legal, { type: "take_centre", colour: c })[0], 20, "#f4efe2",
    narrow ? { cell: TAP, perRow: 5 } : null, "si-c"));
  svg.appendChild(centre);

  // round track, bag and tower
  const info = s("g", { id: "si-rounds" });
  const iy = lay.infoY;
  info.appendChild(s("text", { x: 20, y: iy, "font-size": 13, fill: "#e8e2d2", text: t("round {round} of {rounds}", { round: v.round, rounds: v.rounds }) }));
  (v.round_indicator || []).forEach((c, i) => {
    const x = 130 + i * 30;
    info.appendChild(pane(x, iy - 14, 20, c, ctx, { faded: i + 1 < v.round }));
    if (i + 1 === v.round) info.appendChild(s("rect", { x: x - 3, y: iy - 17, width: 26, height: 26, rx: 4, fill: "none", stroke: "#ffd24a", "stroke-width": 2.5 }));
  });
  const bagTotal = Object.values(v.bag || {}).reduce((a, b) => a + b, 0);
  const towerTotal = Object.values(v.tower || {}).reduce((a, b) => a + b, 0);
  info.appendChild(s("text", { x: lay.bagX, y: lay.bagY, "font-size": 13, fill: "#e8e2d2", text: t("bag {bag} · tower {tower} · palace side {side}", { bag: bagTotal, tower: towerTotal, side: v.palace_side }) }));
  const ret = findLegal(ctx.legal, { type: "return_glazier" })[0];
  const keeps = ctx.legal.filter((e) => e.type === "keep");
  if (ret) {
    const rx = lay.retX, ry = lay.retY, rw = lay.retW;
    const b = s("g", {}, [
      narrow ? hitRect(rx, ry + 15 - TAP / 2, rw, TAP) : null,
      s("rect", { x: rx, y: ry, width: rw, height: 30, rx: 15, fill: "#2f6f8b", stroke: "#0005" }),
      s("rect", { class: "hl", x: rx - 2, y: ry - 2, width: rw + 4, height: 34, rx: 17 }),
      s("text", { x: rx + rw / 2, y: ry + 20, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#fff", text: t("return the glazier") }),
    ]);
    svg.appendChild(clickable(b, ret, ctx.act));
  }
  svg.appendChild(info);

  players.forEach((pl, p) => {
    const x = (W - (cols * boardW + (cols - 1) * 8)) / 2 + (p % cols) * (boardW + 8);
    const y = top + Math.floor(p / cols) * (boardH + 12);
    svg.appendChild(palace(x, y, boardW, boardH, pl, p, v, ctx, narrow));
  });
  if (keeps.length) {
    // which pane goes to the window: a choice of colour, asked over the factories
    svg.appendChild(boardDialog({
      kind: "keep", cls: "si-dialog", area: { x: 4, y: 4, w: W - 8, h: top - 8 }, act: ctx.act, font: narrow ? 19 : 16,
      cols: Math.min(keeps.length, narrow ? 2 : 4), optH: narrow ? 60 : 46, width: narrow ? 480 : 560,
      title: t("Which pane goes to the window?"), note: t("The strip is complete: keep one of its panes for the window below it."),
      options: keeps.map((e) => ({ entry: e, draw: (g, bx, by, bw, bh) => {
        const ps = Math.min(bh - 16, 28);
        g.appendChild(pane(bx + 12, by + (bh - ps) / 2, ps, e.json.colour, ctx));
        g.appendChild(s("text", { x: bx + 22 + ps, y: by + bh / 2 + 5, "font-size": narrow ? 17 : 14, "font-weight": 700, fill: "#222", text: colourName(e.json.colour) }));
      } })),
    }));
  }
  el.replaceChildren(svg);
}

// Motion (see ../motion.js): panes taken from a factory or the centre into the mover's
// hand (the rest of a factory to the centre), from the hand onto the strips or to broken
// glass, and from a complete strip to its window.
export function motions(prev, next) {
  const out = [];
  if (!prev.players || !next.players || prev.players.length !== next.players.length) return out;
  const mover = (prev.to_move || [])[0];
  const took = next.pending && !prev.pending ? next.pending.colour : null;
  const taker = (next.to_move || [])[0];
  (prev.factories || []).forEach((fac, i) => {
    const now = (next.factories || [])[i] || {};
    for (const [c, n] of Object.entries(fac)) {
      if (!n || (now[c] || 0) >= n) continue;
      if (c === took && taker !== undefined) out.push({ from: `si-f${i}-${c}`, to: `si-p${taker}-hand` });
      else out.push({ from: `si-f${i}-${c}`, to: `si-c-${c}` });
    }
  });
  if (took && taker !== undefined && (next.centre || {})[took] < (prev.centre || {})[took]) out.push({ from: `si-c-${took}`, to: `si-p${taker}-hand` });
  next.players.forEach((pl, p) => {
    const was = prev.players[p];
    (pl.strips || []).forEach((st, i) => {
      const old = (was.strips || [])[i];
      (st ? st.spaces : []).forEach((sp, k) => {
        if (sp.pane && !(old && old.spaces[k] && old.spaces[k].pane)) out.push({ from: `si-p${p}-hand`, to: `si-p${p}-s${i}-${k}`, ghost: "to" });
      });
    });
    (pl.windows || []).forEach((win, i) => {
      const old = (was.windows || [])[i];
      if (win && (win.upper || win.lower) && !(old && (old.upper === win.upper && old.lower === win.lower))) {
        out.push({ from: [`si-p${p}-s${i}-4`, `si-p${p}-s${i}-0`, `si-p${p}-hand`], to: `si-p${p}-w${i}`, ghost: "to" });
      }
    });
    const bg = (pl.broken_glass || {}).space || 0, wasBg = (was.broken_glass || {}).space || 0;
    if (bg > wasBg && p === mover) out.push({ from: `si-p${p}-hand`, to: `si-p${p}-broken`, ghost: "from" });
  });
  return out;
}

// An empty strip space: a light tint of its colour with the colour's texture, and a
// solid mark of the colour in the middle, so pale colours (white, yellow, orange, pink)
// stay apart even without the colour-blind option.  Joker spaces show a star.
function emptySpace(x, y, space, ctx) {
  const g = s("g", { class: "si-space", "data-space": space });
  if (space === "joker") {
    g.appendChild(s("text", { x: x + 16, y: y + 20, "text-anchor": "middle", "font-size": 16, fill: "#8a7b5c", text: "\u2731" }));
    return g;
  }
  const c = colour(space);
  g.appendChild(s("rect", { x: x + 2, y: y + 2, width: 28, height: 24, rx: 2, fill: fillOf(space, true), opacity: 0.3 }));
  g.appendChild(s("rect", { x: x + 10, y: y + 8, width: 12, height: 12, rx: 2, fill: fillOf(space, ctx.patterns), stroke: c.stroke, "stroke-width": 1.2, transform: `rotate(45 ${x + 16} ${y + 14})` }));
  return g;
}

function palace(x, y, w, hgt, pl, p, v, ctx, narrow = false) {
  const g = s("g", { class: "palace", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 12, fill: mine ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = (ctx.names && ctx.names[p]) || t("Seat {number}", { number: p + 1 });
  g.appendChild(s("text", { x: 14, y: 26, "font-size": 16, "font-weight": 700, fill: "#222", text: name + (mine ? " " + t("(you)") : "") + (pl.start_marker ? "  ★ " + t("first") : "") }));
  g.appendChild(s("text", { x: w - 14, y: 28, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: "#5a4520", text: String(pl.score) }));
  // a strip's column; on a phone as wide as a finger (its hit area is the column), the
  // eight columns centred in the palace
  const colW = narrow ? TAP : 56, x0 = narrow ? (w - 7 * colW - 46) / 2 + 3 : 22, sy = 62, sp = 34;
  const pending = v.pending && moving ? v.pending : null;
  if (pending && pending.count > 0) {
    // the panes in hand, taken and not yet placed
    const hand = s("g", { class: "si-hand", "data-motion-key": `si-p${p}-hand` });
    const hx = w - 190;
    hand.appendChild(s("text", { x: hx, y: 24, "text-anchor": "end", "font-size": 12, fill: "#5a4520", "data-motion-skip": "", text: t("to place:") }));
    for (let k = 0; k < pending.count; k++) hand.appendChild(pane(hx + 6 + k * 9, 10, 18, pending.colour, ctx));
    hand.appendChild(s("title", { text: tn("{n} {colour} pane to place", "{n} {colour} panes to place", pending.count, { colour: colourName(pending.colour) }) }));
    g.appendChild(hand);
  }
  pl.strips.forEach((strip, i) => {
    const cx = x0 + i * colW;
    const col = s("g", { "data-strip": i });
    // glazier above its strip
    if (pl.glazier === i) {
      col.appendChild(s("path", { d: `M${cx + 6} ${sy - 22} h28 l-14 14 z`, fill: "#c8781e", stroke: "#5a3a0a", "stroke-width": 1.2 }));
    }
    col.appendChild(s("rect", { x: cx - 3, y: sy - 4, width: 46, height: 5 * sp + 6, rx: 6, fill: "#e2d7c1", stroke: "#b9a987" }));
    (strip ? strip.spaces : []).forEach((sp0, k) => {
      const yy = sy + k * sp;
      const c = colour(sp0.space);
      col.appendChild(s("rect", { x: cx + 4, y: yy, width: 32, height: 28, rx: 3, fill: "#fff", stroke: c.stroke, "stroke-width": 1, "stroke-dasharray": "3 2", "data-motion-key": sp0.pane ? null : `si-p${p}-s${i}-${k}` }));
      if (!sp0.pane) col.appendChild(emptySpace(cx + 4, yy, sp0.space, ctx));
      if (sp0.pane) {
        col.appendChild(s("rect", { x: cx + 4, y: yy, width: 32, height: 28, rx: 3, fill: fillOf(sp0.pane, ctx.patterns), stroke: "#2a2520", "stroke-width": 1.6, "data-motion-key": `si-p${p}-s${i}-${k}` }));
        col.appendChild(s("path", { d: `M${cx + 9} ${yy + 20} L${cx + 19} ${yy + 5}`, stroke: sp0.pane === "white" ? "#9aa7b0" : "#ffffffaa", "stroke-width": 2.2, "stroke-linecap": "round" }));
      }
    });
    col.appendChild(s("text", { x: cx + 20, y: sy + 5 * sp + 16, "text-anchor": "middle", "font-size": 10, fill: "#7a7268", text: strip ? `${strip.strip}${strip.side}` : t("glazed") }));
    const place = mine ? findLegal(ctx.legal, { type: "place", position: i })[0] : null;
    if (place) {
      col.appendChild(s("rect", { class: "hl", x: cx - 5, y: sy - 6, width: 50, height: 5 * sp + 10, rx: 7 }));
      // the whole column width is the target: the columns' hit areas touch but do not overlap
      col.appendChild(hitRect(cx - (colW - 40) / 2, sy - 6, colW, 5 * sp + 10));
      g.appendChild(clickable(col, place, ctx.act, `${place.text}${pending ? ` (${pending.count} ${colourName(pending.colour)})` : ""}`));
    } else if (mine && strip && ctx.legal.some((e) => e.type === "place")) {
      // a strip the taken panes may not go on: a tap says why
      col.appendChild(hitRect(cx - (colW - 40) / 2, sy - 6, colW, 5 * sp + 10));
      g.appendChild(explainable(col, { type: "place", position: i }, ctx));
    } else g.appendChild(col);
    // the window below the strip
    const win = pl.windows[i];
    if (win) {
      const wy = sy + 5 * sp + 24;
      g.appendChild(s("path", { d: `M${cx + 2} ${wy + 60} V${wy + 14} Q${cx + 20} ${wy - 6} ${cx + 38} ${wy + 14} V${wy + 60} Z`, fill: "#d8ccb4", stroke: "#8a7b5c", "stroke-width": 1.2, "data-motion-key": `si-p${p}-w${i}` }));
      if (win.upper) g.appendChild(s("path", { d: `M${cx + 6} ${wy + 34} V${wy + 16} Q${cx + 20} ${wy} ${cx + 34} ${wy + 16} V${wy + 34} Z`, fill: fillOf(win.upper, ctx.patterns), stroke: colour(win.upper).stroke }));
      if (win.lower) g.appendChild(s("rect", { x: cx + 6, y: wy + 36, width: 28, height: 20, fill: fillOf(win.lower, ctx.patterns), stroke: colour(win.lower).stroke }));
      g.appendChild(s("text", { x: cx + 20, y: wy + 76, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#5a4520", text: `${win.value}` }));
    }
  });
  // broken glass
  const by = hgt - 34;
  const bg = pl.broken_glass || {};
  g.appendChild(s("text", { x: 14, y: by + 4, "font-size": 12, fill: "#7a7268", "data-motion-key": `si-p${p}-broken`, text: t("broken glass: space {space} ({points} points) · panes on strips {panes}", { space: bg.space ?? 0, points: bg.value ?? 0, panes: pl.panes_on_strips ?? 0 }) }));
  // keep a pane (choose the colour of the pane that goes to the window)
  const keeps = mine ? ctx.legal.filter((e) => e.type === "keep") : [];
  if (keeps.length) {
    const keepLabel = t("keep for the window:");
    g.appendChild(s("text", { x: 14, y: hgt - 46, "font-size": 12, fill: "#222", text: keepLabel }));
    // the panes start after the words: 140 fits the English label (20 characters); a longer one moves them
    const kx0 = 140 + Math.max(0, (keepLabel.length - 20) * 6.6);
    keeps.forEach((e, k) => {
      const kx = kx0 + k * (narrow ? TAP : 34);
      const kg = s("g", {}, [narrow ? hitRect(kx + 12 - TAP / 2, hgt - 50 - TAP / 2, TAP, TAP) : null,
        pane(kx, hgt - 62, 24, e.json.colour, ctx), s("rect", { class: "hl", x: kx - 3, y: hgt - 65, width: 30, height: 30, rx: 4 })]);
      g.appendChild(clickable(kg, e, ctx.act));
    });
  }
  if (pl.final) {
    g.appendChild(s("text", { x: 14, y: by + 20, "font-size": 12, fill: "#463a6b", text: t("final: leftover {leftover} · broken glass {broken} · side bonus {side}", { leftover: pl.final.leftover, broken: pl.final.broken_glass, side: pl.final.side_bonus }) }));
  }
  return g;
}
