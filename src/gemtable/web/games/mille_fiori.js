// Mille Fiori board: the districts of Murano as rows of spaces (diamonds in
// seat colours), the bonus spaces, the display, your hand and the card in
// play.  Spaces you may place on, cards you may pick or play as extra cards,
// and sail/decline are clickable.

import { s, fillOf, patternDefs, clickable, findLegal } from "../svg.js";

const SEAT_COLOURS = ["red", "blue", "green", "yellow"];
const DISTRICT_TINT = { workshops: "#c9a86a", houses: "#b9c98a", nobles: "#c98aa9", commoners: "#8ab9c9", trade: "#c9b48a", harbor: "#8a9ec9" };

function seatFill(p, ctx) { return fillOf(SEAT_COLOURS[p % 4], ctx.patterns); }

function cardShape(x, y, w, hgt, card, ctx, label) {
  const [suit, wheel] = String(card).split("-");
  const g = s("g", { class: "mf-card", "data-card": card });
  g.appendChild(s("rect", { x, y, width: w, height: hgt, rx: 7, fill: "#fbf7ee", stroke: "#8b8172", "stroke-width": 1.3 }));
  g.appendChild(s("circle", { cx: x + w - 14, cy: y + 14, r: 10, fill: "#2c4a6e" }));
  g.appendChild(s("text", { x: x + w - 14, y: y + 18.5, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#fff", text: wheel ?? "" }));
  g.appendChild(s("text", { x: x + 8, y: y + hgt / 2 + 8, "font-size": String(suit).length > 7 ? 10.5 : 13, "font-weight": 700, fill: "#3a3025", text: suit }));
  if (label) g.appendChild(s("text", { x: x + 8, y: y + hgt - 8, "font-size": 10, fill: "#7a7268", text: label }));
  return g;
}

function districtOf(entry) {
  const m = /the (\w+) \S+ card/.exec(entry ? entry.text : "");
  return m ? m[1] : "";
}

export function render(el, ctx) {
  const v = ctx.view;
  const board = v.board || {};
  const names = ctx.names || [];
  const districts = Object.entries(board);
  const cell = 26;
  const perRow = 15;
  let y = 14;
  const rows = [];
  for (const [name, spaces] of districts) {
    const lines = Math.ceil(spaces.length / perRow);
    rows.push({ name, spaces, y, lines });
    y += 22 + lines * (cell + 4) + 8;
  }
  const boardH = y;
  const handY = boardH + 10;
  const displayRows = Math.max(1, Math.ceil((v.display || []).length / 13));
  const handShift = (displayRows - 1) * 92;
  const height = handY + 250 + handShift;
  const svg = s("svg", { viewBox: `0 0 1000 ${height}`, class: "millefiori-board", role: "img", "aria-label": "Mille Fiori table" });
  svg.appendChild(patternDefs("cb"));

  // districts (global space index = position in the districts laid end to end)
  let offset = 0;
  for (const row of rows) {
    const g = s("g", { class: "district", "data-district": row.name });
    const w = 22 + Math.min(perRow, row.spaces.length) * (cell + 4) + 6;
    g.appendChild(s("rect", { x: 10, y: row.y, width: w, height: 18 + row.lines * (cell + 4) + 6, rx: 10, fill: DISTRICT_TINT[row.name] || "#bbb", opacity: 0.9 }));
    g.appendChild(s("text", { x: 20, y: row.y + 15, "font-size": 12.5, "font-weight": 700, fill: "#2a2520", text: row.name }));
    row.spaces.forEach((owner, i) => {
      const cx = 32 + (i % perRow) * (cell + 4), cy = row.y + 22 + Math.floor(i / perRow) * (cell + 4) + cell / 2;
      const sg = s("g", { "data-space": offset + i });
      sg.appendChild(s("circle", { cx, cy, r: cell / 2 - 1, fill: owner >= 0 ? seatFill(owner, ctx) : "#fffaf0", stroke: "#5a4a2a", "stroke-width": 1 }));
      if (owner >= 0) sg.appendChild(s("path", { d: `M${cx} ${cy - 6} L${cx + 6} ${cy} L${cx} ${cy + 6} L${cx - 6} ${cy} Z`, fill: "#ffffffcc" }));
      const place = findLegal(ctx.legal, { type: "place", space: offset + i })[0];
      if (place) {
        sg.appendChild(s("circle", { class: "hl", cx, cy, r: cell / 2 + 2 }));
        g.appendChild(clickable(sg, place, ctx.act));
      } else g.appendChild(sg);
    });
    const bonus = (v.bonus_spaces || {})[row.name];
    if (bonus) {
      bonus.forEach((owner, k) => {
        const bx = 10 + w + 14 + k * 30, by = row.y + 22 + cell / 2;
        g.appendChild(s("rect", { x: bx - 11, y: by - 11, width: 22, height: 22, rx: 4, fill: owner >= 0 ? seatFill(owner, ctx) : "#fffaf0", stroke: "#5a4a2a", transform: `rotate(45 ${bx} ${by})` }));
      });
      g.appendChild(s("text", { x: 10 + w + 14 + bonus.length * 30, y: row.y + 22 + cell / 2 + 4, "font-size": 10.5, fill: "#e8e2d2", text: "bonus" }));
    }
    svg.appendChild(g);
    offset += row.spaces.length;
  }

  // scores and ships at the right
  const sx = 690;
  svg.appendChild(s("text", { x: sx, y: 22, "font-size": 13, fill: "#e8e2d2", text: `round ${v.round} · ${v.draft} draft · deck ${v.deck}` }));
  if (v.ending) svg.appendChild(s("text", { x: sx, y: 40, "font-size": 12, fill: "#ffd24a", text: "the last round is on" }));
  const shown = (ctx.result && ctx.result.scores) || v.scores || [];
  shown.forEach((sc, p) => {
    const yy = 50 + p * 44;
    const bonus = v.bonus_points && v.bonus_points[p] ? ` · bonus ${v.bonus_points[p]}` : "";
    const moving = (ctx.toMove || []).includes(p);
    svg.appendChild(s("rect", { x: sx, y: yy, width: 300, height: 38, rx: 8, fill: ctx.seat === p ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#0005", "stroke-width": moving ? 3 : 1 }));
    svg.appendChild(s("circle", { cx: sx + 18, cy: yy + 19, r: 9, fill: seatFill(p, ctx), stroke: "#0006" }));
    svg.appendChild(s("text", { x: sx + 34, y: yy + 17, "font-size": 13, "font-weight": 700, fill: "#222", text: (names[p] || `Seat ${p + 1}`) + (ctx.seat === p ? " (you)" : "") }));
    svg.appendChild(s("text", { x: sx + 34, y: yy + 32, "font-size": 10.5, fill: "#7a7268", text: `diamonds ${v.diamonds?.[p] ?? "?"} · ship at ${v.ships?.[p] ?? "?"} · hand ${v.hand_sizes?.[p] ?? "?"}${v.picked?.[p] ? " · picked" : ""}${bonus}` }));
    svg.appendChild(s("text", { x: sx + 290, y: yy + 26, "text-anchor": "end", "font-size": 20, "font-weight": 800, fill: "#5a4520", text: String(sc) }));
  });

  // the card in play and its choices
  const cy0 = 60 + (v.scores || []).length * 44;
  if (v.card_in_play) {
    svg.appendChild(s("text", { x: sx, y: cy0 + 12, "font-size": 12, fill: "#e8e2d2", text: v.card_is_extra ? "extra card in play" : "card in play" }));
    svg.appendChild(cardShape(sx, cy0 + 20, 110, 70, v.card_in_play, ctx));
  }
  const pills = ctx.legal.filter((e) => e.type === "sail" || e.type === "decline");
  pills.forEach((e, k) => {
    const px = sx + 124, py = cy0 + 24 + k * 32;
    const pg = s("g", {}, [
      s("rect", { x: px, y: py, width: 170, height: 26, rx: 13, fill: e.type === "sail" ? "#2f6f8b" : "#666" }),
      s("rect", { class: "hl", x: px - 2, y: py - 2, width: 174, height: 30, rx: 15 }),
      s("text", { x: px + 85, y: py + 17, "text-anchor": "middle", "font-size": 12, "font-weight": 700, fill: "#fff", text: e.type === "sail" ? "sail your ship" : "decline the extra card" }),
    ]);
    svg.appendChild(clickable(pg, e, ctx.act));
  });

  // display (extra cards) and hand (picks)
  svg.appendChild(s("text", { x: 12, y: handY + 12, "font-size": 13, fill: "#e8e2d2", text: `display (${(v.display || []).length})` }));
  (v.display || []).forEach((card, k) => {
    const x = 12 + (k % 13) * 74, yy = handY + 20 + Math.floor(k / 13) * 92;
    const extra = findLegal(ctx.legal, { type: "extra", card })[0];
    const cg = cardShape(x, yy, 68, 84, card, ctx, extra ? districtOf(extra) : "");
    if (extra) {
      cg.appendChild(s("rect", { class: "hl", x: x - 2, y: yy - 2, width: 72, height: 88, rx: 8 }));
      svg.appendChild(clickable(cg, extra, ctx.act));
    } else svg.appendChild(cg);
  });
  if (v.hand) {
    svg.appendChild(s("text", { x: 12, y: handY + 128 + handShift, "font-size": 13, fill: "#e8e2d2", text: "your hand" + (v.pick ? ` · picked ${v.pick}` : "") }));
    v.hand.forEach((card, k) => {
      const x = 12 + k * 104, yy = handY + 136 + handShift;
      const pick = findLegal(ctx.legal, { type: "pick", card })[0];
      const cg = cardShape(x, yy, 96, 100, card, ctx, pick ? districtOf(pick) : "");
      if (v.pick === card) cg.appendChild(s("rect", { x: x - 3, y: yy - 3, width: 102, height: 106, rx: 9, fill: "none", stroke: "#fff", "stroke-width": 2, "stroke-dasharray": "5 3" }));
      if (pick) {
        cg.appendChild(s("rect", { class: "hl", x: x - 2, y: yy - 2, width: 100, height: 104, rx: 8 }));
        svg.appendChild(clickable(cg, pick, ctx.act));
      } else svg.appendChild(cg);
    });
  }
  el.replaceChildren(svg);
}
