// Diamonds Club board: the market (strips numbered left to right, rows top to
// bottom, as the moves and the log name them), the price boards for buildings
// and forests, the building piles, and each player's coins, gems, tracks,
// equipment and park (its light- and dark-green spaces, the three mandatory
// spaces marked while uncovered, and a warning when that would score 0).
// Market spaces, price boards and (when several piles tie for the most tiles)
// the building pile a forest is turned from are clickable when a legal action
// uses them; the choices the board cannot show by place (the ? track step,
// trading and keeping equipment, which gems to pay) open a small dialog over
// the market.  Under 640 px the board is drawn narrower: the price boards as finger-sized cards
// three a row (a board of several tiles a row of its own, a button per tile), one
// player panel a row, shorter market labels; and your own panel comes next to what
// the prompt asks about, on the first screen: right after the market (buy and gem
// phases), or after the price boards, which then come first (build phase; the
// building piles follow your panel, except while a pile is to be picked for a
// forest: then the piles come first and the boards, with nothing to tap, after your
// panel); the market and the other players' panels follow.

import { s, colour, fillOf, patternDefs, clickable, findLegal, minFont, explainable, wrapWords, unshy } from "../svg.js";
import { t, tn, tp, lang } from "../i18n.js";

const GEMS = ["blue", "yellow", "green", "red", "diamond"];
const GOOD_COLOURS = { pit: "#8a6a4a", animal: "#6b9a4a", ship: "#3f6f9a", track: "#9a5a8a", mine: "#7a7a7a", hat: "#3a3a3a" };
// park tiles: fill and the mark drawn on them
const TILE = {
  fountain: { fill: "#3d7fc1", mark: "F" },
  orangery: { fill: "#d9852a", mark: "O" },
  pavilion: { fill: "#8a5cb0", mark: "P" },
  rose_garden: { fill: "#c8466a", mark: "R" },
  forest: { fill: "#2e6a2e", mark: "tree" },
  pond: { fill: "#3a9bbf", mark: "p", round: true },
  deer: { fill: "#9a6a3a", mark: "d", round: true },
  aviary: { fill: "#b89a2a", mark: "a", round: true },
};
const SEAT_COLOURS = ["#c0392b", "#2c6fbb", "#e0b020", "#3a9a4a"]; // pieces on the price boards
const DIALOG_TYPES = ["track", "trade", "keep", "pay"];

const pretty = (x) => String(x).replace(/_/g, " ");
// The smallest font size (user units) that reads 10 px on this screen (svg.js minFont); 0 on
// a wide screen.  On a phone a price board is a card as tall as a finger (a build is the
// card itself, or a button per tile on a board of several tiles).
let fmin = 0;
const TAP = 56;  // user units: 44 px or more at 440 units across a 390 px screen
// a price board card: 44 px or more, a little shorter so that in the build phase the
// boards and your whole panel fit on a phone's first screen under a three-line prompt
const CARD = 54;
// Names of the game's things in the reader's language (the same words as the log's).
function animalName(a) {
  if (a === "pond") return t("pond");
  if (a === "deer") return t("deer park");
  if (a === "aviary") return t("aviary");
  return pretty(a);
}
function nameOf(x) {
  switch (x) {
    case "fountain": return t("fountain");
    case "orangery": return t("orangery");
    case "pavilion": return t("pavilion");
    case "rose_garden": return t("rose garden");
    case "forest": return t("forest");
    case "any_tile": return t("any tile");
    case "forest_2": return t("forest 2");
    case "forest_3": return t("forest 3");
    default: return pretty(x);
  }
}
function colourName(c) {
  switch (c) {
    case "blue": return tp("colour", "blue");
    case "yellow": return tp("colour", "yellow");
    case "green": return tp("colour", "green");
    case "red": return tp("colour", "red");
    case "dark": return tp("strip", "dark");
    case "light": return tp("strip", "light");
    default: return String(c);
  }
}
function pitName(c) {
  switch (c) {
    case "blue": return t("blue pit");
    case "yellow": return t("yellow pit");
    case "green": return t("green pit");
    case "red": return t("red pit");
    default: return `${c} pit`;
  }
}
function trackName(k) {
  if (k === "forest") return tp("track", "forest");
  if (k === "tech") return tp("track", "tech");
  if (k === "money") return tp("track", "money");
  return String(k);
}
// One good of a market space in full ("red pit", "mining rights 4", "2 top hats").
function goodName(token) {
  const [kind, val] = String(token).split(":");
  if (kind === "pit") return pitName(val);
  if (kind === "mine") return t("mining rights {value}", { value: val });
  if (kind === "ship") return t("ship {value}", { value: val });
  if (kind === "hat") return tn("{n} top hat", "{n} top hats", Number(val));
  if (kind === "animal") return animalName(val);
  if (kind === "track") {
    if (val === "forest") return t("forest track step");
    if (val === "tech") return t("technology track step");
    if (val === "money") return t("money track step");
    return t("any track step");
  }
  return String(token);
}
// A price board's price as the view writes it in English ("2 blue + 1 red", "4 any",
// "2 of one colour"), in the reader's language.
function costText(cost) {
  return String(cost).split(" + ").map((part) => {
    const m = /^(\d+) (blue|yellow|green|red|any)$/.exec(part);
    if (!m) return part === "2 of one colour" ? t("2 of one colour") : part;
    const n = Number(m[1]);
    if (m[2] === "blue") return t("{n} blue", { n });
    if (m[2] === "yellow") return t("{n} yellow", { n });
    if (m[2] === "green") return t("{n} green", { n });
    if (m[2] === "red") return t("{n} red", { n });
    return t("{n} any", { n });
  }).join(" + ");
}
function listed(parts) {
  if (parts.length === 1) return parts[0];
  if (parts.length === 2) return t("{first} and {second}", { first: parts[0], second: parts[1] });
  return t("{first}, {second} and {third}", { first: parts.slice(0, -2).join(", "), second: parts[parts.length - 2], third: parts[parts.length - 1] });
}
// Why a seat scores 0 (or will): the engine's sentence (its mandatory_warning) from the view.
function warningText(pl, v) {
  const missing = (pl.park && pl.park.mandatory_missing) || [];
  if (!missing.length) return pl.warning;
  const names = listed(missing.map(nameOf));
  const several = missing.length > 1;
  const spaces = several ? t("the {names} spaces", { names }) : t("the {names} space", { names });
  if (v.phase === "over") return several ? t("scores 0: {spaces} were never covered", { spaces }) : t("scores 0: {spaces} was never covered", { spaces });
  const when = v.ending ? t("this round, the last one") : t("before the end, which is near");
  return several ? t("scores 0 unless {spaces} are built {when}", { spaces, when }) : t("scores 0 unless {spaces} is built {when}", { spaces, when });
}
const seatName = (ctx, q) => (ctx.names && ctx.names[q]) || t("Seat {n}", { n: q + 1 });

// Words of `text` in lines of at most `max` characters.
function wrap(text, max) {
  const lines = [""];
  for (const wd of String(text).split(" ")) {
    const cur = lines[lines.length - 1];
    if (cur && (cur + " " + wd).length > max) lines.push(wd);
    else lines[lines.length - 1] = cur ? cur + " " + wd : wd;
  }
  return lines;
}

// A font size (at most `max`) that fits `text` into `width` (about 0.62 em a
// character: bold text, on the safe side).
function fit(text, width, max) {
  return Math.max(7.5, Math.min(max, width / (unshy(text).length * 0.62)));
}

function gem(x, y, r, c, ctx) {
  const fill = c === "diamond" ? "#e8f6fb" : fillOf(c, ctx.patterns);
  const stroke = c === "diamond" ? "#6aa9bf" : colour(c).stroke;
  return s("path", { d: `M${x} ${y - r} L${x + r} ${y - r * 0.25} L${x} ${y + r} L${x - r} ${y - r * 0.25} Z`, fill, stroke, "stroke-width": 1.4 });
}

function coin(x, y, r) {
  return s("g", {}, [s("circle", { cx: x, cy: y, r, fill: "#e8b931", stroke: "#8a6a0c", "stroke-width": 1.2 }), s("circle", { cx: x, cy: y, r: r * 0.6, fill: "none", stroke: "#8a6a0c88" })]);
}

// A short name for one good of a market space (narrow boards).
function shortGood(token) {
  const [kind, val] = String(token).split(":");
  if (kind === "pit") return t("{colour} pit", { colour: colourName(val) });
  if (kind === "mine") return t("mine {value}", { value: val });
  if (kind === "ship") return t("ship {value}", { value: val });
  if (kind === "hat") return tn("{n} hat", "{n} hats", Number(val));
  if (kind === "animal") return animalName(val);
  if (kind === "track") return t("{track} step", { track: val === "any" ? "?" : trackName(val) });
  return String(token);
}

// A park tile of kind k at (x, y), size w × h.
function tile(x, y, w, h, k) {
  const look = TILE[k] || { fill: "#888", mark: "?" };
  const g = s("g", { class: "dc-tile", "data-kind": k });
  g.appendChild(look.round
    ? s("circle", { cx: x + w / 2, cy: y + h / 2, r: Math.min(w, h) / 2 - 2, fill: look.fill, stroke: "#00000066" })
    : s("rect", { x: x + 2, y: y + 2, width: w - 4, height: h - 4, rx: 4, fill: look.fill, stroke: "#00000066" }));
  if (look.mark === "tree") {
    const cx = x + w / 2, cy = y + h / 2;
    g.appendChild(s("path", { d: `M${cx} ${cy - 9} L${cx + 8} ${cy + 5} L${cx - 8} ${cy + 5} Z`, fill: "#9fd98a" }));
    g.appendChild(s("rect", { x: cx - 1.5, y: cy + 5, width: 3, height: 4, fill: "#9fd98a" }));
  } else {
    g.appendChild(s("text", { x: x + w / 2, y: y + h / 2 + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 800, fill: "#fff", text: look.mark }));
  }
  g.appendChild(s("title", { text: k === "forest" ? t("forest") : TILE[k] && TILE[k].round ? animalName(k) : nameOf(k) }));
  return g;
}

export function render(el, ctx) {
  const v = ctx.view;
  const players = v.players || [];
  const n = players.length;
  const narrow = (el.clientWidth || 1000) < 640;
  const W = narrow ? 440 : 1000;
  fmin = narrow ? minFont(el, W) : 0;
  const perRow = 4; // price boards a row on a wide board
  const bw = (W - 24 - (perRow - 1) * 8) / perRow;
  const pw = narrow ? W - 12 : 490;
  const ph = players.some((pl) => pl.warning) ? 332 : 292; // room for the warning band
  const ncols = Math.max(...v.market.map((row) => row.length), 1);
  const rowLab = narrow ? 26 : 46;
  // a narrow board shows at most four strips side by side: the rest below
  const blockCols = narrow ? Math.min(4, ncols) : ncols;
  const blocks = Math.ceil(ncols / blockCols);
  const sw = Math.min(220, (W - 12 - rowLab) / blockCols - 6), sh = narrow ? 56 : 50;
  const blockH = 26 + v.market.length * (sh + 6);
  const marketH = 24 + blocks * blockH;
  const mx = 12 + rowLab + Math.max(0, (W - 24 - rowLab - blockCols * (sw + 6)) / 2);
  const bRows = Math.ceil((v.boards.length + 1) / perRow); // + the building piles
  const boxH = 46, rowH = boxH + 6;
  const choosing = ctx.legal.some((e) => e.type === "forest_pile");
  const cards = narrow ? boardCards(v.boards, W) : null;
  const pileH = narrow ? pilesHeight(choosing) : boxH;
  const top = marketH + 30 + bRows * rowH + 10;
  const pcols = narrow ? 1 : 2;
  // where the market (my) and the price boards (by) start, and each player panel
  let my = 0, by = marketH, pilesY = 0, height = top + Math.ceil(n / pcols) * (ph + 10) + 10;
  const seatY = players.map((_, p) => top + Math.floor(p / pcols) * (ph + 10));
  if (narrow) {
    // one column: the section the prompt is about, your own panel, the rest
    const me = Number.isInteger(ctx.seat) && ctx.seat >= 0 && ctx.seat < n ? ctx.seat : -1;
    let y = 0;
    const parts = v.phase === "build"
      ? (choosing ? ["piles", "own", "boards", "market", "others"] : ["boards", "own", "piles", "market", "others"])
      : ["market", "own", "boards", "piles", "others"];
    for (const part of parts) {
      if (part === "market") { my = y; y += marketH + 10; }
      else if (part === "boards") { by = Math.max(y, 24); y = by + 34 + cards.height + 4; } // under the round line
      else if (part === "piles") { pilesY = Math.max(y, 24); y = pilesY + pileH + 10; }
      else if (part === "own") { if (me >= 0) { seatY[me] = y; y += ph + 10; } }
      else players.forEach((_, p) => { if (p !== me) { seatY[p] = y; y += ph + 10; } });
    }
    height = y + 10;
  }
  const spaceAt = (c, r) => ({ x: mx + (c % blockCols) * (sw + 6), y: my + 24 + Math.floor(c / blockCols) * blockH + 26 + r * (sh + 6) });
  const svg = s("svg", { viewBox: `0 0 ${W} ${height}`, class: "diamonds-board", role: "img", "aria-label": t("Diamonds Club table") });
  svg.appendChild(patternDefs("cb"));

  // market
  const when = v.phase === "over" ? "" : v.ending ? t(" · last round") : v.end_near ? t(" · the end is near") : "";
  const phase = v.phase === "over" ? t("game over") : v.phase === "buy" ? t("buy phase") : v.phase === "build" ? t("build phase") : v.phase === "purchase gems" ? t("purchase gems phase") : `${v.phase} phase`;
  svg.appendChild(s("text", { x: 12, y: 20, "font-size": 14, "font-weight": 700, fill: "#e8e2d2", text: (narrow ? "" : t("market · ")) + t("round {round} · {phase}", { round: v.round, phase }) + when }));
  if (my) svg.appendChild(s("text", { x: 12, y: my + 20, "font-size": 13, "font-weight": 700, fill: "#e8e2d2", text: t("market") }));
  // passing (no more buying or building this round) is a button at the top right
  const pass = findLegal(ctx.legal, { type: "pass" })[0];
  if (pass && !ctx.legal.some((e) => DIALOG_TYPES.includes(e.type))) {
    const label = narrow ? t("pass") : v.phase === "build" ? t("pass: build nothing more") : t("pass: buy nothing more");
    const pw = narrow ? 110 : 210, px = W - 12 - pw;
    svg.appendChild(clickable(s("g", { class: "dc-pass" }, [
      s("rect", { x: px - 4, y: 0, width: pw + 8, height: narrow ? TAP : 49, fill: "#000", "fill-opacity": 0 }),
      s("rect", { x: px, y: 4, width: pw, height: 24, rx: 12, fill: "#6a625a", stroke: "#0006" }),
      s("rect", { class: "hl", x: px - 2, y: 2, width: pw + 4, height: 28, rx: 14 }),
      s("text", { x: px + pw / 2, y: 21, "text-anchor": "middle", "font-size": 12.5, "font-weight": 700, fill: "#fff", text: label }),
    ]), pass, ctx.act, pass.text));
  }
  const strips = v.market_strips || [];
  for (let c = 0; c < ncols; c++) {
    const { x, y } = spaceAt(c, 0);
    const st = strips[c];
    svg.appendChild(s("text", { class: "dc-strip-label", x: x + sw / 2, y: y - 8, "text-anchor": "middle", "font-size": 12.5, "font-weight": 700, fill: "#e8e2d2", text: t("strip {n}", { n: c + 1 }) + (st && !narrow ? ` · ${colourName(st.colour)}` : "") }));
  }
  v.market.forEach((row, r) => {
    for (let k = 0; k < blocks; k++) {
      const { y } = spaceAt(k * blockCols, r);
      svg.appendChild(s("text", { class: "dc-row-label", x: mx - 6, y: y + sh / 2 + 5, "text-anchor": "end", "font-size": 12.5, "font-weight": 700, fill: "#e8e2d2", text: narrow ? `${r + 1}` : t("row {row}", { row: r + 1 }) }));
    }
    row.forEach((sp, i) => {
      const { x, y } = spaceAt(i, r);
      // a space may show several goods ("pit:red+mine:3"): one colour band per good
      const items = sp.items || String(sp.goods).split("+");
      const kinds = items.map((t) => String(t).split(":")[0]);
      const where = t("strip {strip}, row {row}", { strip: i + 1, row: r + 1 });
      const g = s("g", { class: "market-space", "data-space": sp.space, "data-where": where, "data-motion-key": `dc-m${sp.space}` });
      g.appendChild(s("rect", { x, y, width: sw, height: sh, rx: 8, fill: sp.coins ? "#d9d0bd" : "#f4ecdb", stroke: "#8a7b5c", "stroke-width": 1.2 }));
      kinds.forEach((kind, k) => g.appendChild(s("rect", { x, y: y + (k * sh) / kinds.length, width: 8, height: sh / kinds.length, rx: 3, fill: GOOD_COLOURS[kind] || "#888" })));
      const pit = items.find((t) => String(t).startsWith("pit:"));
      const pitColour = pit ? String(pit).split(":")[1] : null;
      if (pitColour) g.appendChild(gem(x + 22, y + 16, 8, pitColour, ctx));
      const full = items.map(goodName).join(" + ");
      const label = sw < 130 ? items.map(shortGood).join(" + ") : full;
      const tx = pitColour ? x + 34 : x + 14;
      const fs = fit(label, sw - (tx - x) - 6, 12.5);
      if (pitColour && sw < 100 && items.length === 1) {
        g.appendChild(s("text", { x: x + 34, y: y + 21, "font-size": 12.5, "font-weight": 700, fill: "#2a2520", text: t("pit") }));
      } else {
        g.appendChild(s("text", { x: tx, y: y + 20, "font-size": fs, "font-weight": 700, fill: "#2a2520", text: label }));
      }
      if (sp.coins) {
        for (let k = 0; k < sp.coins; k++) g.appendChild(coin(x + 20 + k * 12, y + sh - 13, 7));
      } else if (sp.price !== null && sp.price !== undefined) {
        const cost = narrow ? tn("{n} coin", "{n} coins", sp.price) : tn("costs {n} coin", "costs {n} coins", sp.price);
        g.appendChild(s("text", { x: x + 14, y: y + sh - 10, "font-size": cost.length * 12 * 0.55 > sw - 20 ? fit(cost, sw - 20, 12) : 12, fill: "#6b5a3a", text: cost }));
      }
      g.appendChild(s("title", { text: `${where}: ${full}` }));
      const buy = findLegal(ctx.legal, { type: "buy", space: sp.space })[0];
      if (buy) {
        g.appendChild(s("rect", { class: "hl", x: x - 2, y: y - 2, width: sw + 4, height: sh + 4, rx: 10 }));
        svg.appendChild(clickable(g, buy, ctx.act, buy.text));
      } else if (v.phase === "buy" && ctx.legal.some((e) => e.type === "buy" || e.type === "pass")) {
        svg.appendChild(explainable(g, { type: "buy", space: sp.space }, ctx)); // a tap says why not
      } else svg.appendChild(g);
    });
  });

  // price boards (buildings and forests)
  svg.appendChild(s("text", { x: 12, y: by + 20, "font-size": 13, "font-weight": 700, fill: "#e8e2d2", text: t("price boards") }));
  if (narrow) v.boards.forEach((b) => svg.appendChild(boardCard(b, cards.at[b.name], by + 34, ctx)));
  else v.boards.forEach((b, i) => {
    const bx = 12 + (i % perRow) * (bw + 8);
    const y = by + 28 + Math.floor(i / perRow) * rowH;
    const g = s("g", { class: "price-board", "data-board": b.name, "data-motion-key": `dc-b-${b.name}` });
    g.appendChild(s("rect", { x: bx, y, width: bw, height: boxH, rx: 8, fill: "#e6eef0", stroke: "#5a7a86", "stroke-width": 1.2 }));
    const head = `${nameOf(b.name)} — ${costText(b.cost)}`;
    g.appendChild(s("text", { x: bx + 10, y: y + 19, "font-size": fit(head, bw - 20 - 14 * (b.pieces || []).length, 12.5), "font-weight": 700, fill: "#1d3440", text: head }));
    g.appendChild(pieces(b, bx + bw - 12, y + 13, ctx));
    const builds = ctx.legal.filter((e) => e.type === "build" && e.json.board === b.name);
    if (!builds.length) {
      const line = t("builds: {tiles}", { tiles: b.tiles.map(nameOf).join(", ") });
      g.appendChild(s("text", { x: bx + 10, y: y + 37, "font-size": Math.min(11, fit(line, bw - 20, 11)), fill: "#4a6470", text: line }));
    }
    const bpw = Math.min(72, (bw - 16) / Math.max(1, builds.length) - 4);
    builds.forEach((e, k) => {
      const px = bx + 8 + k * (bpw + 4);
      const full = nameOf(e.json.tile);
      const label = bpw < 60 ? unshy(full).split(" ")[0].slice(0, 6) : full;
      const pg = s("g", {}, [
        s("rect", { x: px, y: y + 24, width: bpw, height: 18, rx: 9, fill: "#2f8a4f" }),
        s("rect", { class: "hl", x: px - 2, y: y + 22, width: bpw + 4, height: 22, rx: 11 }),
        s("text", { x: px + bpw / 2, y: y + 37, "text-anchor": "middle", "font-size": unshy(label).length * 10.5 * (/^[A-ZÄÖÜ]/.test(label) ? 0.68 : 0.55) > bpw - 4 ? fit(label, bpw - 4, 10.5) : 10.5, "font-weight": 700, fill: "#fff", text: label }),
      ]);
      g.appendChild(clickable(pg, e, ctx.act, e.text));
    });
    svg.appendChild(g);
  });
  if (narrow) svg.appendChild(piles(v, ctx, 12, pilesY, W - 24, pileH, true));
  else svg.appendChild(piles(v, ctx, 12 + (v.boards.length % perRow) * (bw + 8), by + 28 + Math.floor(v.boards.length / perRow) * rowH, bw, boxH, false));

  players.forEach((pl, p) => {
    const x = 6 + (p % pcols) * (pw + 7);
    const y = seatY[p];
    svg.appendChild(panel(x, y, pw, ph, pl, p, ctx, v, narrow));
  });
  const dlg = dialog(ctx, W, marketH);
  if (dlg) svg.appendChild(dlg);
  el.replaceChildren(svg);
}

// The seats that built from board `b` this round: pieces leftwards from (x, y).
function pieces(b, x, y, ctx) {
  return s("g", {}, (b.pieces || []).map((q, k) => s("circle", { class: "dc-piece", cx: x - k * 14, cy: y, r: 5.5, fill: SEAT_COLOURS[q % 4], stroke: "#222" },
    [s("title", { text: t("{name} built from this board this round", { name: seatName(ctx, q) }) })])));
}

// Where the price boards lie on a narrow board: boards of one tile as cards three a
// row, then each board of several tiles a full row (its name left, a button per tile).
// Positions are relative to the top of the first row.
function boardCards(boards, W) {
  const at = {}, gap = 4, cw = (W - 24 - 2 * gap) / 3, h = CARD;
  let y = 0, col = 0;
  for (const b of boards.filter((x) => (x.tiles || []).length <= 1)) {
    at[b.name] = { x: 12 + col * (cw + gap), y, w: cw, h };
    if (++col === 3) { col = 0; y += h + gap; }
  }
  if (col) y += h + gap;
  for (const b of boards.filter((x) => (x.tiles || []).length > 1)) {
    at[b.name] = { x: 12, y, w: W - 24, h, multi: true };
    y += h + gap;
  }
  return { at, height: y - gap };
}

// Lines of `text` at font size f that fit `width` (about 0.6 em a character, bold); a word
// longer than a line (German compounds: "Springbrunnen") breaks where the catalogue marks
// a syllable with a soft hyphen ("Spring-", "brunnen"; svg.js wrapWords).
function wrapTo(text, width, f) {
  return wrapWords(text, Math.max(1, Math.floor(width / (f * 0.6))));
}

// One price board on a narrow board, its top at y0 + c.y.  A board of one tile is a
// card (its name, then its price) that is itself the build button when the build is
// legal; a board of several tiles shows its name and price on the left and a button
// per tile it may build (or the list of its tiles) on the right.
function boardCard(b, c, y0, ctx) {
  const f = Math.max(fmin, 11), x = c.x, y = y0 + c.y;
  const builds = ctx.legal.filter((e) => e.type === "build" && e.json.board === b.name);
  const g = s("g", { class: "price-board", "data-board": b.name, "data-motion-key": `dc-b-${b.name}` });
  const card = !c.multi && builds.length === 1;
  const lw = c.multi ? 84 : c.w; // the name column
  const face = s("g", {}, [s("rect", { x, y, width: c.w, height: c.h, rx: 8, fill: card ? "#2f8a4f" : "#e6eef0", stroke: card ? "#1d5a33" : "#5a7a86", "stroke-width": 1.2 })]);
  const lines = [...wrapTo(nameOf(b.name), lw - 16, f), ...wrapTo(costText(b.cost), lw - 16, f)].slice(0, 3);
  lines.forEach((t, j) => face.appendChild(s("text", { x: x + 8, y: y + c.h / 2 + f * 0.36 + (j - (lines.length - 1) / 2) * f * 1.2, "font-size": f, "font-weight": j ? 400 : 700, fill: card ? "#fff" : j ? "#4a6470" : "#1d3440", text: t })));
  face.appendChild(pieces(b, x + c.w - 10, y + 10, ctx));
  if (card) {
    face.appendChild(s("rect", { class: "hl", x: x - 2, y: y - 2, width: c.w + 4, height: c.h + 4, rx: 10 }));
    g.appendChild(clickable(face, builds[0], ctx.act, builds[0].text));
    return g;
  }
  g.appendChild(face);
  if (!c.multi) return g;
  const ax = x + lw, aw = c.w - lw - 6;
  if (!builds.length) {
    const list = wrapTo(b.tiles.map(nameOf).join(", "), aw - 8, f).slice(0, 3);
    list.forEach((t, j) => g.appendChild(s("text", { x: ax, y: y + c.h / 2 + f * 0.36 + (j - (list.length - 1) / 2) * f * 1.2, "font-size": f, fill: "#4a6470", text: t })));
    return g;
  }
  const bpw = (aw - 4 * (builds.length - 1)) / builds.length;
  builds.forEach((e, k) => {
    const px = ax + k * (bpw + 4);
    const words = wrapTo(nameOf(e.json.tile), bpw - 4, f);
    const pg = s("g", {}, [
      s("rect", { x: px, y: y + 4, width: bpw, height: c.h - 8, rx: 8, fill: "#2f8a4f" }),
      s("rect", { class: "hl", x: px - 2, y: y + 2, width: bpw + 4, height: c.h - 4, rx: 10 }),
      s("rect", { x: px, y, width: bpw, height: c.h, fill: "#000", "fill-opacity": 0 }), // the finger-sized hit area
      ...words.map((t, j) => s("text", { x: px + bpw / 2, y: y + c.h / 2 + f * 0.36 + (j - (words.length - 1) / 2) * f * 1.15, "text-anchor": "middle", "font-size": f, "font-weight": 700, fill: "#fff", text: t })),
    ]);
    g.appendChild(clickable(pg, e, ctx.act, e.text));
  });
  return g;
}

// A narrow board's building piles: as tall as a finger while one is to be picked,
// otherwise two lines (name, tiles left) under the heading.
function pilesHeight(choosing) {
  return 24 + (choosing ? TAP : 2 * Math.max(fmin, 11) * 1.2 + 6) + 6;
}

// The building piles (tiles left) in a box at (bx, y), bw × boxH.  A forest is a tile
// of the fullest pile turned over; when several piles tie, the player picks one here.
function piles(v, ctx, bx, y, bw, boxH, narrow) {
  const choosing = ctx.legal.some((e) => e.type === "forest_pile");
  const g = s("g", { class: "tile-piles", "data-motion-key": "dc-piles" });
  g.appendChild(s("rect", { x: bx, y, width: bw, height: boxH, rx: 8, fill: choosing ? "#fff4d6" : "#ece6d8", stroke: "#8a7b5c", "stroke-width": 1.2 }));
  g.appendChild(s("text", { x: bx + 10, y: y + 17, "font-size": 11.5, "font-weight": 700, fill: "#3a3025", text: choosing ? (bw < 220 ? t("pick a pile for your forest") : t("turn a pile over for your forest")) : t("building piles (tiles left)") }));
  const names = Object.keys(v.tile_piles || {});
  const pw = (bw - 16) / Math.max(1, names.length) - 4;
  names.forEach((name, k) => {
    const px = bx + 8 + k * (pw + 4);
    const e = findLegal(ctx.legal, { type: "forest_pile", pile: name })[0];
    // on a phone a pile shows its full name, the tiles left on a second line
    const ph = narrow ? boxH - 30 : 18;
    const label = narrow ? [nameOf(name), String(v.tile_piles[name])] : [`${unshy(nameOf(name)).split(" ")[0].slice(0, 5)} ${v.tile_piles[name]}`];
    const f = narrow ? Math.max(fmin, 11) : fit(label[0], pw - 4, 9.5);
    const lines = label;
    const pg = s("g", { class: "tile-pile", "data-pile": name }, [
      s("rect", { x: px, y: y + 24, width: pw, height: ph, rx: Math.min(9, ph / 2), fill: e ? "#2f8a4f" : "#d8ceb8" }),
      ...lines.map((t, j) => s("text", { x: px + pw / 2, y: y + 24 + ph / 2 + f * 0.36 + (j - (lines.length - 1) / 2) * f * 1.15, "text-anchor": "middle", "font-size": f, "font-weight": 700, fill: e ? "#fff" : "#3a3025", text: t })),
    ]);
    if (e) {
      pg.appendChild(s("rect", { class: "hl", x: px - 2, y: y + 22, width: pw + 4, height: ph + 4, rx: 11 }));
      g.appendChild(clickable(pg, e, ctx.act, e.text));
    } else {
      pg.appendChild(s("title", { text: t("{name}: {n} tiles left", { name: nameOf(name), n: v.tile_piles[name] }) }));
      g.appendChild(pg);
    }
  });
  return g;
}

// The choices that have no place of their own on the board (the ? track step,
// trading and keeping equipment, the gems to pay): a small dialog over the market.
function dialog(ctx, W, marketH) {
  const opts = ctx.legal.filter((e) => DIALOG_TYPES.includes(e.type));
  if (!opts.length) return null;
  const kind = opts[0].type;
  const title = { track: t("Advance on which development track?"), trade: t("Trade which set for gems?"), keep: t("Keep which equipment for the next round?"), pay: t("Pay with which gems?") }[kind];
  const dw = Math.min(W - 40, 640);
  const long = kind === "trade" || kind === "keep";
  const cols = W < 600 ? (long ? 1 : 2) : long ? 2 : 3;
  const bwid = (dw - 28 - (cols - 1) * 8) / cols, bh = W < 600 ? TAP : 34;
  const rows = Math.ceil(opts.length / cols);
  const nf = Math.max(10.5, fmin);
  const promptLines = ctx.prompt ? wrap(String(ctx.prompt), Math.floor((dw - 32) / (nf * 0.53))) : [];
  const head = 32 + promptLines.length * nf * 1.25;
  const dh = head + 8 + rows * (bh + 8) + 4;
  const dx = (W - dw) / 2, dy = Math.max(8, Math.min(60, marketH - dh));
  const g = s("g", { class: "dc-dialog", "data-choice": kind });
  g.appendChild(s("rect", { x: 0, y: 0, width: W, height: Math.max(marketH, dy + dh + 8), fill: "#00000055" }));
  g.appendChild(s("rect", { x: dx, y: dy, width: dw, height: dh, rx: 12, fill: "#fbf6ea", stroke: "#ffd24a", "stroke-width": 3 }));
  g.appendChild(s("text", { x: dx + 16, y: dy + 26, "font-size": title.length * 15 * 0.55 > dw - 32 ? fit(title, dw - 32, 15) : 15, "font-weight": 800, fill: "#2a2520", text: title }));
  promptLines.forEach((line, j) => g.appendChild(s("text", { x: dx + 16, y: dy + 44 + j * nf * 1.25, "font-size": nf, fill: "#6b5a3a", text: line })));
  opts.forEach((e, k) => {
    const bx = dx + 14 + (k % cols) * (bwid + 8);
    const by = dy + head + 8 + Math.floor(k / cols) * (bh + 8);
    const b = s("g", { class: "dc-choice" });
    b.appendChild(s("rect", { x: bx, y: by, width: bwid, height: bh, rx: 8, fill: "#fff", stroke: "#8a7b5c" }));
    b.appendChild(s("rect", { class: "hl", x: bx - 2, y: by - 2, width: bwid + 4, height: bh + 4, rx: 10 }));
    if (kind === "pay") {
      let gx = bx + 16;
      const step = Math.min(46, (bwid - 8) / Math.max(1, (e.json.gems || []).filter((c) => c).length));
      (e.json.gems || []).forEach((cnt, c) => {
        if (!cnt) return;
        b.appendChild(gem(gx, by + bh / 2, 8, GEMS[c], ctx));
        b.appendChild(s("text", { x: gx + 11, y: by + bh / 2 + 5, "font-size": 13, "font-weight": 800, fill: "#222", text: `×${cnt}` }));
        gx += step;
      });
    } else {
      const label = choiceLabel(e);
      b.appendChild(s("text", { x: bx + bwid / 2, y: by + bh / 2 + 5, "text-anchor": "middle", "font-size": fit(label, bwid - 12, 12.5), "font-weight": 700, fill: "#222", text: label }));
    }
    g.appendChild(clickable(b, e, ctx.act, e.text));
  });
  return g;
}

// A dialog button's words, from the action's arguments: "forest track → space 2 of 5",
// "blue pit + mining rights 3 + ship 4" (the space numbers are the last two numbers of the
// action's text, in whatever language the server wrote it).
function choiceLabel(e) {
  const a = e.json || {};
  if (e.type === "track") {
    const m = /(\d+)\D+(\d+)\)$/.exec(String(e.text || ""));
    const track = trackName(a.track);
    return m ? t("{track} track → space {space} of {last}", { track, space: m[1], last: m[2] }) : t("{track} track", { track });
  }
  const parts = [];
  if (a.pit) parts.push(pitName(a.pit));
  if (a.mine) parts.push(t("mining rights {value}", { value: a.mine }));
  if (a.ship) parts.push(t("ship {value}", { value: a.ship }));
  return parts.join(" + ");
}

// A points line in lines of at most `max` characters, broken only between its " · " parts
// (the dot stays at the end of the line it closes).
function detailLines(text, max) {
  const lines = [];
  for (const part of String(text).split(" · ")) {
    const last = lines.length - 1;
    if (last >= 0 && `${lines[last]} · ${part}`.length <= max) lines[last] = `${lines[last]} · ${part}`;
    else {
      if (last >= 0) lines[last] += " ·";
      lines.push(part);
    }
  }
  return lines;
}

function panel(x, y, w, hgt, pl, p, ctx, v, narrow) {
  const g = s("g", { class: "player", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 12, fill: mine ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = seatName(ctx, p);
  const start = v.start_player === p ? t(" · starts") : "";
  g.appendChild(s("circle", { cx: 20, cy: 20, r: 6, fill: SEAT_COLOURS[p % 4], stroke: "#222" }));
  g.appendChild(s("text", { x: 32, y: 26, "font-size": 16, "font-weight": 700, fill: "#222", text: name + (mine ? t(" (you)") : "") + start + (pl.passed ? t(" · passed") : "") }));
  // points: the total (0 when not scored at the end) and where they come from
  const sc = pl.score || {};
  const total = pl.not_scored ? 0 : sc.total ?? 0;
  g.appendChild(s("text", { class: "dc-points", x: w - 44, y: 28, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: pl.not_scored ? "#b0281c" : "#5a4520", text: String(total) }));
  g.appendChild(s("text", { x: w - 14, y: 28, "text-anchor": "end", "font-size": 12, "font-weight": 700, fill: "#7a6a48", text: t("pts") }));
  const parts = [t("buildings {n}", { n: sc.buildings ?? 0 }), t("forests {n}", { n: sc.forests ?? 0 }), t("animals {n}", { n: sc.animals ?? 0 }), t("bonus {n}", { n: sc.bonus ?? 0 }), t("tracks {n}", { n: sc.tracks ?? 0 })].join(" · ");
  const detail = pl.not_scored ? t("not scored (had {total}): {parts}", { total: sc.total, parts }) : t("points: {parts}", { parts });
  const df = fit(detail, w - 28, 11);
  const ink = pl.not_scored ? "#b0281c" : "#6a6258";
  if (df >= fmin) g.appendChild(s("text", { class: "dc-points-detail", x: 14, y: 45, "font-size": df, fill: ink, text: detail }));
  else {
    // a phone's smallest readable size does not fit the line: two lines, broken between parts
    const lines = detailLines(detail, Math.floor((w - 28) / (fmin * 0.62)) - 2);
    lines.forEach((line, i) => g.appendChild(s("text", { class: "dc-points-detail", x: 14, y: 41 + i * fmin * 1.1, "font-size": fmin, fill: ink, text: line })));
  }
  // coins and gems
  const purse = coin(24, 66, 10);
  purse.setAttribute("data-motion-key", `dc-p${p}-coins`);
  g.appendChild(purse);
  g.appendChild(s("text", { x: 40, y: 71, "font-size": 14, "font-weight": 700, fill: "#222", text: t("{coins}  (next round {next})", { coins: pl.coins, next: pl.coins_next_round }) }));
  GEMS.forEach((c, i) => {
    const gx = w - (narrow ? 206 : 236) + i * (narrow ? 41 : 46);
    const icon = gem(gx, 66, 11, c, ctx);
    icon.setAttribute("data-motion-key", `dc-p${p}-gem-${c}`);
    g.appendChild(icon);
    g.appendChild(s("text", { x: gx + 14, y: 71, "font-size": 14, "font-weight": 700, fill: "#222", text: String(pl.gems[c] ?? 0) }));
  });
  // tracks
  const tr = pl.tracks || {};
  Object.entries(tr).forEach(([k, val], i) => {
    const ty = 94 + i * 19;
    g.appendChild(s("text", { x: 14, y: ty + 4, "font-size": 11.5, fill: "#5a5245", text: k === "tech" ? t("technology") : trackName(k) }));
    for (let step = 0; step < 4; step++) g.appendChild(s("rect", { x: 86 + step * 18, y: ty - 7, width: 14, height: 12, rx: 2, fill: step < val ? "#9a5a8a" : "#e2d7c1", stroke: "#b9a987" }));
  });
  // equipment
  const eq = pl.equipment || {};
  const eqText = [
    t("pits: {list}", { list: Object.entries(eq.pits || {}).map(([c, k]) => `${k}× ${colourName(c)}`).join(", ") || t("none") }),
    t("mining rights: {list}", { list: Object.entries(eq.mining_rights || {}).map(([c, k]) => `${k}× ${c}`).join(", ") || t("none") }),
    t("ships: {list}", { list: Object.entries(eq.ships || {}).map(([c, k]) => `${k}× ${c}`).join(", ") || t("none") }),
  ];
  const ex = narrow ? 176 : w - 250;
  eqText.forEach((t, i) => g.appendChild(s("text", { x: ex, y: 98 + i * 18, "font-size": fit(t, w - ex - 10, 11.5), fill: "#3a3025", text: t })));
  g.appendChild(park(10, 146, w - 20, pl, p, narrow));
  if (pl.warning) g.appendChild(warning(10, 286, w - 20, pl, name, v));
  return g;
}

// The park: the three mandatory spaces (each takes only its building), the other
// light-green spaces and the dark-green ones (open once every light-green space is
// covered).  Ordinary spaces show their tiles in kind order (which one lies where
// does not matter in the game); a warning says when missing mandatory spaces would
// score 0.
function park(x, y, w, pl, p, narrow) {
  const dw = narrow ? 26 : 30; // a dark-green space
  const pk = pl.park || {};
  const g = s("g", { class: "dc-park", "data-seat": p, transform: `translate(${x} ${y})` });
  const light = pk.light_spaces ?? 14, dark = pk.dark_spaces ?? 5;
  const mand = pk.mandatory_spaces || [];
  const covered = pk.mandatory_covered || [];
  const ord = pk.ordinary_spaces || { light: [], dark: [] };
  g.appendChild(s("rect", { width: w, height: 134, rx: 8, fill: "#e3eed6", stroke: "#7a9a5a" }));
  const head = t("park · light green {light}/{lights} · dark green {dark}/{darks} · a forest scores {vp}", { light: pk.light_covered ?? 0, lights: light, dark: pk.dark_covered ?? 0, darks: dark, vp: pl.forest_value });
  g.appendChild(s("text", { x: 10, y: 16, "font-size": fit(head, w - 20, 12), "font-weight": 700, fill: "#2f4a1f", text: head }));
  // mandatory spaces
  const mw = Math.min(92, (w - 20 - dark * (dw + 2) - 10) / Math.max(1, mand.length) - 6);
  mand.forEach((b, i) => {
    const mx = 10 + i * (mw + 6), my = 24;
    const done = covered[i];
    const sg = s("g", { class: `dc-mandatory ${done ? "covered" : "uncovered"}`, "data-building": b, "data-motion-key": `dc-p${p}-mand-${i}` });
    sg.appendChild(s("rect", { x: mx, y: my, width: mw, height: 36, rx: 6, fill: done ? (TILE[b] || {}).fill || "#888" : "#fdecea", stroke: done ? "#00000066" : "#c0392b", "stroke-width": done ? 1 : 2, "stroke-dasharray": done ? null : "5 3" }));
    // the name and whether it is built; on a phone the name alone (on two lines when too
    // long for one at the readable size), with a tick after it once built: the dashed red
    // frame says the space is still empty, and a second line would not fit the space there
    const bname = nameOf(b);
    const nf = Math.max(fit(bname, mw - 6, 11.5), fmin);
    const ink = done ? "#fff" : "#a02a1c", faint = done ? "#ffffffcc" : "#c0392b";
    const lines = narrow || unshy(bname).length * nf * 0.66 > mw - 6
      ? bname.split(" ").flatMap((wd) => wrapWords(wd, Math.floor((mw - 6) / (nf * 0.62)) - (unshy(wd).length >= 10 ? 2 : 0))).slice(0, 2).map((wd, j, all) => ({ t: done && j === all.length - 1 ? `${wd} ✓` : wd, f: nf, w: 800, c: ink }))
      : [{ t: bname, f: nf, w: 800, c: ink }, { t: done ? t("built ✓") : t("still empty"), f: 10, w: 700, c: faint }];
    lines.forEach((l, j) => sg.appendChild(s("text", { x: mx + mw / 2, y: my + 15 + j * 14, "text-anchor": "middle", "font-size": l.f, "font-weight": l.w, fill: l.c, text: l.t })));
    sg.appendChild(s("title", { text: done ? t("mandatory {name} space: built", { name: bname }) : t("mandatory {name} space: still empty — only a {name} can cover it; without it the player is not scored", { name: bname }) }));
    g.appendChild(sg);
  });
  // dark-green spaces, right of the mandatory ones
  const dx0 = w - 10 - dark * (dw + 2) + 2;
  for (let k = 0; k < dark; k++) {
    const sx = dx0 + k * (dw + 2), sy = 26;
    const what = ord.dark[k];
    const sg = s("g", { class: "dc-space dark", "data-filled": what ? "1" : "0", "data-motion-key": `dc-p${p}-dark-${k}` });
    sg.appendChild(s("rect", { x: sx, y: sy, width: dw, height: 32, rx: 4, fill: "#5f7f45", stroke: "#3a5228" }));
    if (what) sg.appendChild(tile(sx, sy + 1, dw, 30, what));
    else sg.appendChild(s("title", { text: t("dark-green space (opens once every light-green space is covered)") }));
    g.appendChild(sg);
  }
  // the other light-green spaces
  const nl = light - mand.length;
  const lw = Math.min(34, (w - 20) / Math.max(1, nl));
  for (let k = 0; k < nl; k++) {
    const sx = 10 + k * lw, sy = 66;
    const what = ord.light[k];
    const sg = s("g", { class: "dc-space light", "data-filled": what ? "1" : "0", "data-motion-key": `dc-p${p}-light-${k}` });
    sg.appendChild(s("rect", { x: sx, y: sy, width: lw - 2, height: 32, rx: 4, fill: "#c6e0a8", stroke: "#7a9a5a" }));
    if (what) sg.appendChild(tile(sx, sy + 1, lw - 2, 30, what));
    else sg.appendChild(s("title", { text: t("light-green space") }));
    g.appendChild(sg);
  }
  // counts by kind
  const b = pk.buildings || {}, an = pk.animals || {};
  const counts = [...Object.entries(b).map(([k, c]) => [nameOf(k), c]), [t("forest"), pk.forests ?? 0], ...Object.entries(an).map(([k, c]) => [animalName(k), c])]
    .filter(([, c]) => c).map(([k, c]) => `${c} ${k}`).join(" · ");
  const built = wrap(counts ? t("built: {counts}", { counts }) : t("nothing built yet"), Math.floor((w - 20) / 6.2));
  built.slice(0, 2).forEach((t, i) => g.appendChild(s("text", { x: 10, y: 114 + i * 14, "font-size": 11, fill: "#2f4a1f", text: t })));
  return g;
}

// A red band under the park when the player would score (or scored) 0.
function warning(x, y, w, pl, name, v) {
  // 12.5 px, bold: about 6.9 units a character in English; other languages' longer words and
  // capitals need more room
  const lines = wrap(`⚠ ${name} ${warningText(pl, v)}`, Math.floor((w - 16) / (lang === "en" ? 6.9 : 7.8)));
  const g = s("g", { class: "dc-warning" }, [s("rect", { x, y, width: w, height: 8 + lines.length * 15, rx: 6, fill: "#b0281c" })]);
  lines.slice(0, 3).forEach((t, i) => g.appendChild(s("text", { x: x + w / 2, y: y + 16 + i * 15, "text-anchor": "middle", "font-size": 12.5, "font-weight": 800, fill: "#fff", text: t })));
  return g;
}

// Motion (see ../motion.js): coins from a player to the market space they bought, and a
// building or forest from its price board (or the piles) to the park space it covers.
export function motions(prev, next) {
  const out = [];
  if (!prev.players || !next.players || prev.players.length !== next.players.length || !prev.market || !next.market) return out;
  const spaces = (v) => Object.fromEntries(v.market.flat().map((sp) => [sp.space, sp]));
  const was = spaces(prev);
  const payers = next.players.map((pl, p) => (pl.coins < prev.players[p].coins ? p : -1)).filter((p) => p >= 0);
  for (const sp of next.market.flat()) {
    const old = was[sp.space];
    if (old && (sp.coins || 0) > (old.coins || 0) && payers.length === 1) out.push({ from: `dc-p${payers[0]}-coins`, to: `dc-m${sp.space}` });
  }
  // the board a building came from: the one that gained the builder's piece
  const boardOf = (p) => {
    for (const b of next.boards || []) {
      const before = ((prev.boards || []).find((x) => x.name === b.name) || {}).pieces || [];
      const mine = (b.pieces || []).filter((q) => q === p).length;
      if (mine > before.filter((q) => q === p).length) return `dc-b-${b.name}`;
    }
    return "dc-piles";
  };
  next.players.forEach((pl, p) => {
    const pk = pl.park || {}, old = prev.players[p].park || {};
    const from = boardOf(p);
    // gems paid for a building go to the price board it came from
    if (from !== "dc-piles") {
      for (const c of GEMS) if ((pl.gems[c] ?? 0) < (prev.players[p].gems[c] ?? 0)) out.push({ from: `dc-p${p}-gem-${c}`, to: from });
    }
    (pk.mandatory_covered || []).forEach((done, i) => {
      if (done && !(old.mandatory_covered || [])[i]) out.push({ from, to: `dc-p${p}-mand-${i}`, ghost: "to" });
    });
    for (const kind of ["light", "dark"]) {
      const a = ((old.ordinary_spaces || {})[kind]) || [], b = ((pk.ordinary_spaces || {})[kind]) || [];
      if (b.filter(Boolean).length > a.filter(Boolean).length) {
        b.forEach((what, k) => { if (what && a[k] !== what) out.push({ from, to: `dc-p${p}-${kind}-${k}`, ghost: "to" }); });
      }
    }
  });
  return out;
}
