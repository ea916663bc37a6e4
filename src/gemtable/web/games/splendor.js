// Splendor board: nobles, the three card rows with their decks, the token
// bank and one panel per seat.  Drawn from the view; the legal actions are
// highlighted on the board (tokens, cards, decks, nobles) and clickable.

import { s, colour, fillOf, patternDefs, clickable, explainable, findLegal, minFont, tapWord, unshy, wrapWords } from "../svg.js";
import { boardDialog } from "../dialog.js";
import { t, tn, tp, render as say } from "../i18n.js";

const COLS = ["white", "blue", "green", "red", "black"];
const TOKENS = [...COLS, "gold"];
const LEVEL_BACK = { 1: "#3f8f5b", 2: "#d2a23a", 3: "#3b6fb0" };
const ROMAN = { 1: "I", 2: "II", 3: "III" };
// a gem colour's name in the reader's language (the same words as the game's log lines)
function gem(c) { return tp("gem colour", c); }
// "1 blue, 3 red": a cost or a noble's requirement
function costText(cost) { return COLS.filter((c) => cost[c]).map((c) => t("{n} {colour}", { n: cost[c], colour: gem(c) })).join(", "); }

// On a phone (610 units across a 390 px screen) a tap target needs TAP units a side (about 44 px):
// small visuals (pills, tokens) get an invisible hit area that large, laid out so that no two
// actions' hit areas overlap.
const TAP = 73;
// a phone's cards are taller: room for a column of four readable cost pips under the Reserve pill
const CH_PHONE = 200;
function hitRect(x, y, w, hgt) {
  return s("rect", { class: "sp-hit", x, y, width: w, height: hgt, fill: "#000", "fill-opacity": 0 });
}

// The smallest font size (user units) that reads 10 px on this screen (svg.js minFont); 0 on
// a wide screen.  The phone layout sizes its pips, pills and badges around it.
let fmin = 0;

let selection = [];
let selectionKey = "";

function gemFill(c, ctx) { return fillOf(c, ctx.patterns); }

function token(x, y, r, c, count, ctx, opts = {}) {
  const col = colour(c);
  const g = s("g", { class: `token token-${c}`, "data-colour": c, "data-motion-key": opts.key });
  g.appendChild(s("circle", { cx: x, cy: y, r: r, fill: gemFill(c, ctx), stroke: col.stroke, "stroke-width": 2 }));
  g.appendChild(s("circle", { cx: x, cy: y, r: r * 0.72, fill: "none", stroke: col.ink === "#fff" ? "#ffffff66" : "#00000033", "stroke-width": 1.5 }));
  if (count !== null && count !== undefined) {
    // the count on a light disc, the disc as large as a readable number needs
    const f = Math.max(r * 0.55, fmin);
    g.appendChild(s("g", { "data-motion-skip": "" }, [
      s("circle", { cx: x, cy: y, r: Math.max(r * 0.46, f * 0.68), fill: "#fffdf8", stroke: col.stroke, "stroke-width": 1 }),
      s("text", { x, y: y + f * 0.36, "text-anchor": "middle", "font-size": f, "font-weight": 700, fill: "#222", text: count })]));
  }
  if (opts.selected) g.appendChild(s("circle", { cx: x, cy: y, r: r + 5, fill: "none", stroke: "#fff", "stroke-width": 3, "stroke-dasharray": "5 3" }));
  if (opts.hl) g.appendChild(s("circle", { class: "hl", cx: x, cy: y, r: r + 3 }));
  return g;
}

function gemShape(x, y, r, c, ctx) {
  const col = colour(c);
  return s("path", {
    d: `M${x} ${y - r} L${x + r} ${y - r * 0.2} L${x + r * 0.6} ${y + r} H${x - r * 0.6} L${x - r} ${y - r * 0.2} Z`,
    fill: gemFill(c, ctx), stroke: col.stroke, "stroke-width": 1.5,
  });
}

function costPips(x, y, cost, ctx, r = 10, dir = -1, gap = 3, font = r * 1.1) {
  const g = s("g");
  let i = 0;
  for (const c of COLS) {
    const n = cost[c];
    if (!n) continue;
    const cy = y + dir * i * (r * 2 + gap);
    const col = colour(c);
    g.appendChild(s("circle", { cx: x, cy, r, fill: gemFill(c, ctx), stroke: col.stroke, "stroke-width": 1.5 }));
    if (ctx.patterns) g.appendChild(s("circle", { cx: x, cy, r: r * 0.62, fill: "#fffdf8" }));
    g.appendChild(s("text", { x, y: cy + font * 0.35, "text-anchor": "middle", "font-size": font, "font-weight": 700, fill: ctx.patterns ? "#111" : col.ink, stroke: !ctx.patterns && col.ink === "#fff" ? "#0008" : "none", "stroke-width": 0.4, text: n }));
    i++;
  }
  return g;
}

// pipR: the cost pips' radius (reserved thumbnails keep them as large as readable)
// cost pips two to a row, from the bottom left (small cards)
function costGrid(x, y, cost, ctx, r) {
  const g = s("g");
  COLS.filter((c) => cost[c]).forEach((c, i) => {
    const cx = x + (i % 2) * (r * 2 + 3), cy = y - Math.floor(i / 2) * (r * 2 + 3);
    const col = colour(c);
    g.appendChild(s("circle", { cx, cy, r, fill: gemFill(c, ctx), stroke: col.stroke, "stroke-width": 1.2 }));
    if (ctx.patterns) g.appendChild(s("circle", { cx, cy, r: r * 0.66, fill: "#fffdf8" }));
    g.appendChild(s("text", { x: cx, y: cy + r * 0.42, "text-anchor": "middle", "font-size": r * 1.25, "font-weight": 700, fill: ctx.patterns ? "#111" : col.ink, stroke: !ctx.patterns && col.ink === "#fff" ? "#0008" : "none", "stroke-width": 0.4, text: cost[c] }));
  });
  return g;
}

function cardFace(x, y, w, hgt, card, ctx, pipR = null, key = `sp-card-${card.id}`) {
  const g = s("g", { class: "card", "data-card": card.id, transform: `translate(${x} ${y})`, "data-motion-key": key });
  const col = colour(card.bonus);
  g.appendChild(s("rect", { width: w, height: hgt, rx: 8, fill: "#fbf7ee", stroke: "#8b8172", "stroke-width": 1.5 }));
  g.appendChild(s("path", { d: `M0 8 Q0 0 8 0 H${w - 8} Q${w} 0 ${w} 8 V${hgt * 0.24} H0 Z`, fill: gemFill(card.bonus, ctx), stroke: col.stroke, "stroke-width": 1 }));
  if (card.points) g.appendChild(s("text", { x: 9, y: hgt * 0.2, "font-size": hgt * 0.17, "font-weight": 800, fill: col.ink, stroke: col.ink === "#fff" ? "#0006" : "none", "stroke-width": 0.6, text: card.points }));
  g.appendChild(gemShape(w - hgt * 0.13, hgt * 0.12, hgt * 0.085, card.bonus, ctx));
  if (pipR) g.appendChild(costGrid(pipR + 4, hgt - pipR - 4, card.cost, ctx, pipR));
  else if (fmin) {
    // phone: one column of pips down the left edge, each number at least fmin
    const r = Math.max(hgt * 0.068, fmin * 0.7);
    g.appendChild(costPips(r + 5, hgt - r - 5, card.cost, ctx, r, -1, 3, fmin));
  } else g.appendChild(costPips(hgt * 0.1 + 2, hgt - hgt * 0.1 - 2, card.cost, ctx, hgt * 0.068));
  g.appendChild(s("title", { text: cardLabel(card) }));
  return g;
}

// (the parts first: the extractor finds no t() inside another's arguments)
function cardLabel(card) {
  const points = card.points ? t(" {points}pt", { points: card.points }) : "";
  const cost = costText(card.cost) || t("free");
  return t("L{level} {bonus}{points} ({cost})", { level: card.level, bonus: gem(card.bonus), points, cost });
}

function cardBack(x, y, w, hgt, level, label, key = null) {
  const g = s("g", { transform: `translate(${x} ${y})`, "data-motion-key": key });
  g.appendChild(s("rect", { width: w, height: hgt, rx: 8, fill: LEVEL_BACK[level] || "#777", stroke: "#00000088", "stroke-width": 1.5 }));
  g.appendChild(s("rect", { x: 6, y: 6, width: w - 12, height: hgt - 12, rx: 5, fill: "none", stroke: "#ffffff88", "stroke-width": 1.2 }));
  g.appendChild(s("text", { x: w / 2, y: hgt / 2 + 2, "text-anchor": "middle", "font-size": Math.min(26, w * 0.3), "font-weight": 700, fill: "#fff", text: ROMAN[level] || level }));
  if (label !== undefined) g.appendChild(s("text", { x: w / 2, y: hgt - 12, "text-anchor": "middle", "font-size": Math.max(12, fmin), fill: "#fff", text: label }));
  return g;
}

function noble(x, y, size, nb, ctx, key = `sp-noble-${nb.id}`) {
  const g = s("g", { class: "noble", transform: `translate(${x} ${y})`, "data-motion-key": key });
  g.appendChild(s("rect", { width: size, height: size, rx: 6, fill: "#efe3c8", stroke: "#8a7448", "stroke-width": 1.5 }));
  g.appendChild(s("rect", { x: 4, y: 4, width: size - 8, height: size - 8, rx: 4, fill: "none", stroke: "#c9b488", "stroke-width": 1 }));
  g.appendChild(s("text", { x: 10, y: 26, "font-size": 22, "font-weight": 800, fill: "#5a4520", text: nb.points }));
  // a badge per colour required, stacked from the bottom right; as tall as its number needs
  const f = Math.max(12, fmin), bh = Math.max(17, f * 1.3), bw = Math.max(22, f * 1.35);
  let i = 0;
  for (const c of COLS) {
    const n = nb.needs[c];
    if (!n) continue;
    const top = size - 6 - bh - i * (bh + 2);
    g.appendChild(s("rect", { x: size - 8 - bw, y: top, width: bw, height: bh, rx: 3, fill: gemFill(c, ctx), stroke: colour(c).stroke }));
    g.appendChild(s("text", { x: size - 8 - bw / 2, y: top + bh / 2 + f * 0.36, "text-anchor": "middle", "font-size": f, "font-weight": 700, fill: colour(c).ink, text: n }));
    i++;
  }
  return g;
}

// A word wider than its button (German "Reservieren") is set smaller to fit: a bold
// character is about 0.62 em wide.
function fitFont(label, w, font) { return Math.min(font, (w - 6) / (0.62 * Math.max(1, unshy(label).length))); }

// A button: `label` on a pill.  On a phone its text never goes under the readable size
// (fmin): a word too wide for the pill then breaks at its soft hyphens when the pill may
// grow upwards to `lines` lines ("Reser-" / "vieren"), and a line still too wide has its
// letters set closer (textLength) so that it stays inside the pill.
function pill(x, y, w, label, fill, hgt = 20, font = hgt * 0.575, lines = 1) {
  let rows = [unshy(label)];
  if (fmin && fitFont(label, w, font) < fmin) {
    font = Math.max(font, fmin);
    const wrapped = wrapWords(label, Math.max(1, Math.floor((w - 6) / (0.62 * font))));
    if (lines > 1 && wrapped.length <= lines) rows = wrapped;
  } else font = fitFont(label, w, font);
  const grow = (rows.length - 1) * font * 1.1;
  y -= grow;
  hgt += grow;
  const g = s("g", { class: "pill" });
  g.appendChild(s("rect", { x, y, width: w, height: hgt, rx: (hgt - grow) / 2, fill, stroke: "#0005" }));
  g.appendChild(s("rect", { class: "hl", x: x - 2, y: y - 2, width: w + 4, height: hgt + 4, rx: (hgt - grow) / 2 + 2 }));
  rows.forEach((row, i) => {
    const text = s("text", { x: x + w / 2, y: y + (hgt - grow) * 0.7 + i * font * 1.1, "text-anchor": "middle", "font-size": font, "font-weight": 700, fill: "#fff", text: row });
    if (fmin && row.length * font * 0.62 > w - 6 + 0.5) {
      text.setAttribute("textLength", w - 6);
      text.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    g.appendChild(text);
  });
  return g;
}

// A card that can be bought and/or reserved: pills for each legal choice.
// On a phone the card itself is the target: its top half reserves, its bottom half buys
// (the whole card when only one of the two is legal), each half marked by its pill.
// The main step of a turn (take, reserve or buy): a card you cannot buy then shows a muted
// "Buy" that says, when tapped, what you are missing.
const MAIN_STEP = new Set(["take", "take_two", "reserve", "reserve_blind", "buy"]);
function whyNotBuy(ctx, card) {
  return ctx.why && ctx.legal.some((e) => MAIN_STEP.has(e.type)) ? { type: "buy", card: card.id } : null;
}
// the muted "Buy" of a card you cannot buy (no highlight ring: it is not a legal move)
function mutedBuy(x, y, w, hgt, font) {
  const g = pill(x, y, w, t("Buy"), "#6f6b64", hgt, font);
  g.querySelector(".hl").remove();
  g.setAttribute("opacity", "0.9");
  return g;
}

function cardActions(g, x, y, w, hgt, card, ctx, narrow = false) {
  const buy = findLegal(ctx.legal, { type: "buy", card: card.id })[0];
  const res = findLegal(ctx.legal, { type: "reserve", card: card.id })[0];
  const notBuy = buy ? null : whyNotBuy(ctx, card);
  if (!buy && !res && !notBuy) return;
  if (!buy && !res) {
    // nothing to do with this card now but ask why it cannot be bought
    const ph = narrow ? Math.max(24, fmin * 1.5) : 22, pf = narrow ? Math.max(12.5, fmin) : 12;
    const pg = mutedBuy(narrow ? x + w - 58 : x + w - (w - 36) - 5, y + hgt - (narrow ? ph + 6 : 26), narrow ? 53 : w - 36, ph, pf);
    if (narrow) pg.insertBefore(hitRect(x, y, w, hgt), pg.firstChild); // (a phone: the whole card)
    g.appendChild(explainable(pg, notBuy, ctx));
    return;
  }
  g.appendChild(s("rect", { x: x - 3, y: y - 3, width: w + 6, height: hgt + 6, rx: 10, fill: "none", stroke: buy ? "#ffd24a" : "#ffffff77", "stroke-width": buy ? 3 : 1.5 }));
  // stacked in the right part of the card, clear of the cost pips down its left edge
  const pw = w - 36, px = x + w - pw - 5;
  if (narrow) {
    // the Reserve pill across the card under its colour band (clear of the pips, which
    // start lower), the Buy pill at the bottom right beside the pips
    const half = hgt / 2, both = buy && res, ph = Math.max(24, fmin * 1.5), pf = Math.max(12.5, fmin);
    if (res) {
      const pg = pill(x + 5, y + hgt * 0.24 + 4, w - 10, t("Reserve"), "#b06a12", ph, pf);
      pg.insertBefore(hitRect(x, y, w, both || notBuy ? half : hgt), pg.firstChild);
      g.appendChild(clickable(pg, res, ctx.act));
    }
    if (notBuy) {
      const pg = mutedBuy(x + w - 58, y + hgt - ph - 6, 53, ph, pf);
      pg.insertBefore(hitRect(x, y + half, w, half), pg.firstChild);
      g.appendChild(explainable(pg, notBuy, ctx));
    }
    if (buy) {
      const pg = pill(x + w - 58, y + hgt - ph - 6, 53, t("Buy"), "#2f8a4f", ph, pf);
      pg.insertBefore(hitRect(x, both ? y + half : y, w, both ? half : hgt), pg.firstChild);
      g.appendChild(clickable(pg, buy, ctx.act));
    }
    return;
  }
  if (buy) g.appendChild(clickable(pill(px, y + hgt - 26, pw, t("Buy"), "#2f8a4f"), buy, ctx.act));
  if (notBuy) g.appendChild(explainable(mutedBuy(px, y + hgt - 26, pw, 20, 11.5), notBuy, ctx));
  if (res) g.appendChild(clickable(pill(px, y + hgt - 52, pw, t("Reserve"), "#b06a12"), res, ctx.act));
}

// ``text`` as one line if it has at most ``chars`` characters, else two, split at the space
// nearest its middle.
function hintLines(text, chars) {
  if (text.length <= chars || !text.includes(" ")) return [text];
  const mid = text.length / 2;
  let cut = -1;
  for (let i = 0; i < text.length; i++) if (text[i] === " " && (cut < 0 || Math.abs(i - mid) < Math.abs(cut - mid))) cut = i;
  return [text.slice(0, cut), text.slice(cut + 1)];
}

function takeHandler(c, ctx, redraw) {
  return () => {
    const two = findLegal(ctx.legal, { type: "take_two", colour: c })[0];
    if (selection.includes(c)) {
      if (selection.length === 1 && two) { selection = []; ctx.act(two); return; }
      selection = selection.filter((x) => x !== c);
      redraw();
      return;
    }
    selection = [...selection, c];
    const takes = ctx.legal.filter((e) => e.type === "take");
    const set = new Set(selection);
    const exact = takes.find((e) => e.json.colours.length === set.size && e.json.colours.every((x) => set.has(x)));
    const bigger = takes.some((e) => e.json.colours.length > set.size && selection.every((x) => e.json.colours.includes(x)));
    if (exact && !bigger) { selection = []; ctx.act(exact); return; }
    if (!bigger && !exact) { selection = [c]; }
    redraw();
  };
}

export function render(el, ctx) {
  const v = ctx.view;
  const key = JSON.stringify(ctx.legal.map((e) => e.id)) + "|" + v.turn + "|" + ctx.seat;
  if (key !== selectionKey) { selection = []; selectionKey = key; }
  const n = v.players;
  // a narrow screen (phone) gets a portrait layout: the seats under the table,
  // each as wide as the table with its reserved cards at full size
  const narrow = (el.clientWidth || 1000) < 640;
  const W = narrow ? 610 : 1000;
  fmin = narrow ? minFont(el, W) : 0;
  // a seat panel grows a bottom row only once it holds reserved cards or nobles
  const seatHs = v.seats.map((st) => (st.reserved.length || st.nobles.length ? (narrow ? 100 + CH_PHONE + 8 : 254) : 148));
  const seatYs = seatHs.map((_, p) => seatHs.slice(0, p).reduce((a, b) => a + b + 8, 0));
  const seatsH = seatHs.reduce((a, b) => a + b + 8, 0);
  const ch = narrow ? CH_PHONE : 142;
  const seatsTop = narrow ? 112 + 3 * (ch + 14) + 90 : 8;  // phone: a row for Take / Clear between the cards and the seats
  const height = narrow ? seatsTop + seatsH + 4 : Math.max(640, 12 + seatsH);
  const svg = s("svg", { viewBox: `0 0 ${W} ${height}`, class: "splendor-board", role: "img", "aria-label": t("Splendor table") });
  svg.appendChild(patternDefs("cb"));
  const redraw = () => render(el, ctx);

  // nobles
  const nobles = s("g", { id: "sp-nobles" });
  nobles.appendChild(s("text", { x: 12, y: 24, "font-size": 14, fill: "#e8e2d2", text: t("Nobles") }));
  v.nobles.forEach((nb, i) => {
    const x = 80 + i * 100;
    const g = noble(x, 8, 88, nb, ctx);
    nobles.appendChild(g);
    const pick = findLegal(ctx.legal, { type: "noble", noble: nb.id })[0];
    if (pick) {
      const wrap = s("g", {}, [g, s("rect", { class: "hl", x: x - 3, y: 5, width: 94, height: 94, rx: 8 })]);
      nobles.appendChild(clickable(wrap, pick, ctx.act, say(pick.text)));
    } else {
      // named as the move list and the log name it: points, then the bonuses it requires
      g.appendChild(s("title", { text: t("noble {points}pt ({needs})", { points: nb.points, needs: costText(nb.needs) }) }));
    }
  });
  svg.appendChild(nobles);

  // card rows (level 3 on top)
  const cw = 100;
  const rows = s("g", { id: "sp-cards" });
  [3, 2, 1].forEach((level, r) => {
    const y = 112 + r * (ch + 14);
    const deck = v.decks[level - 1];
    const back = deck > 0 ? cardBack(10, y, 86, ch, level, t("{n} left", { n: deck }), `sp-deck-${level}`) : s("rect", { x: 10, y, width: 86, height: ch, rx: 8, fill: "none", stroke: "#ffffff44", "stroke-dasharray": "6 4" });
    rows.appendChild(back);
    const blind = findLegal(ctx.legal, { type: "reserve_blind", level })[0];
    if (blind) {
      // phone: the whole deck is the target
      const g = s("g", {}, [narrow ? hitRect(10, y, 86, ch) : null, narrow ? pill(13, y + ch - 40 - fmin * 1.5, 80, t("Reserve"), "#b06a12", fmin * 1.5, fmin, 2) : pill(16, y + ch - 54, 74, t("Reserve"), "#b06a12")]);
      rows.appendChild(clickable(g, blind, ctx.act));
    }
    (v.board[level - 1] || []).forEach((card, i) => {
      const x = 108 + i * (cw + 10);
      if (!card) {
        rows.appendChild(s("rect", { x, y, width: cw, height: ch, rx: 8, fill: "none", stroke: "#ffffff33", "stroke-dasharray": "6 4" }));
        return;
      }
      const g = s("g");
      g.appendChild(cardFace(x, y, cw, ch, card, ctx));
      cardActions(g, x, y, cw, ch, card, ctx, narrow);
      rows.appendChild(g);
    });
  });
  svg.appendChild(rows);

  // bank
  const bank = s("g", { id: "sp-bank" });
  bank.appendChild(s("text", { x: 572, y: 118, "text-anchor": "middle", "font-size": 14, fill: "#e8e2d2", text: t("Bank") }));
  TOKENS.forEach((c, i) => {
    const y = 150 + i * (narrow ? TAP : 62);
    const legalHere = c !== "gold" && ctx.legal.some((e) => (e.type === "take" && e.json.colours.includes(c)) || (e.type === "take_two" && e.json.colour === c));
    const g = token(572, y, 25, c, v.bank[c], ctx, { selected: selection.includes(c), hl: legalHere, key: `sp-bank-${c}` });
    if (legalHere) {
      if (narrow) g.insertBefore(hitRect(572 - TAP / 2, y - TAP / 2, TAP, TAP), g.firstChild);
      g.classList.add("act");
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("data-take", c);
      g.setAttribute("aria-label", t("take {colour}", { colour: gem(c) }));
      const twice = findLegal(ctx.legal, { type: "take_two", colour: c }).length;
      const title = !twice ? t("take {colour}", { colour: gem(c) })
        : tapWord() === "tap" ? t("take {colour} (tap twice to take 2)", { colour: gem(c) })
          : t("take {colour} (click twice to take 2)", { colour: gem(c) });
      g.appendChild(s("title", { text: title }));
      const fn = takeHandler(c, ctx, redraw);
      g.addEventListener("click", fn);
      g.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); } });
    }
    bank.appendChild(g);
  });
  if (selection.length) {
    const takes = ctx.legal.filter((e) => e.type === "take");
    const set = new Set(selection);
    const exact = takes.find((e) => e.json.colours.length === set.size && e.json.colours.every((x) => set.has(x)));
    const two = selection.length === 1 ? findLegal(ctx.legal, { type: "take_two", colour: selection[0] })[0] : null;
    const hint = two ? t("again: take 2") : t("pick more");
    // phone: the hint and the two buttons in their own row under the cards
    const ty = 112 + 3 * (ch + 14);  // phone: the row under the cards
    if (narrow) bank.appendChild(s("text", { x: 20, y: ty + 44, "font-size": 18, fill: "#fff", text: t("{colours}: {hint}", { colours: selection.map(gem).join(", "), hint }) }));
    else {
      // between the cards (to x 538) and the seats (from 628): a longer hint ("noch einmal: 2
      // nehmen") on two lines
      const lines = hintLines(hint, 78 / (11.5 * 0.55));
      lines.forEach((line, i) => bank.appendChild(s("text", { x: 584, y: 530 - (lines.length - 1 - i) * 13, "text-anchor": "middle", "font-size": 11.5, fill: "#fff", text: line })));
    }
    const takeBtn = narrow ? [hitRect(296, ty + 4, 138, TAP), pill(300, ty + 22, 130, t("Take"), "#2f8a4f", 32)] : [pill(532, 540, 80, t("Take"), "#2f8a4f")];
    if (exact) bank.appendChild(clickable(s("g", {}, takeBtn), exact, (e) => { selection = []; ctx.act(e); }));
    const clearBtn = narrow ? [hitRect(446, ty + 4, 138, TAP), pill(450, ty + 22, 130, t("Clear"), "#666", 32)] : [pill(532, 566, 80, t("Clear"), "#666")];
    const clear = s("g", { class: "act", tabindex: 0, role: "button", "data-clear": "1" }, clearBtn);
    clear.addEventListener("click", () => { selection = []; redraw(); });
    bank.appendChild(clear);
  }
  svg.appendChild(bank);

  // seats
  const seats = s("g", { id: "sp-seats" });
  v.seats.forEach((st, p) => seats.appendChild(narrow
    ? seatPanel(10, seatsTop + seatYs[p], 590, seatHs[p], st, p, v, ctx, true)
    : seatPanel(628, 8 + seatYs[p], 364, seatHs[p], st, p, v, ctx)));
  svg.appendChild(seats);

  // a pending purchase (choose how to pay with gold)
  if (v.pending_card && ctx.legal.some((e) => e.type === "pay")) {
    const g = s("g", { id: "sp-paying" });
    const pays = ctx.legal.filter((e) => e.type === "pay").slice(0, 6);
    // phone: one choice per TAP-high row
    const boxH = narrow ? 60 + Math.max(140, pays.length * TAP) : 190;
    g.appendChild(s("rect", { x: 100, y: 250, width: 440, height: boxH, rx: 12, fill: "#102a1fee", stroke: "#ffd24a", "stroke-width": 2 }));
    g.appendChild(s("text", { x: 120, y: 278, "font-size": 15, fill: "#fff", text: t("Pay for this card:") }));
    g.appendChild(cardFace(120, 290, 90, 128, v.pending_card, ctx, null, null));
    pays.forEach((e, i) => {
      // the choice in short, from the action itself: "gold: 1 for blue" or "pay without gold"
      const used = COLS.map((c, k) => [c, (e.json.gold || [])[k] || 0]).filter(([, n]) => n)
        .map(([c, n]) => t("{n} for {colour}", { n, colour: gem(c) }));
      const label = used.length ? t("gold: {used}", { used: used.join(", ") }) : t("pay without gold");
      const btn = narrow ? [hitRect(222, 290 + i * TAP, 306, TAP), pill(225, 290 + i * TAP + 16, 300, label, "#2f6f8b", 36)] : [pill(225, 290 + i * 24, 300, label, "#2f6f8b")];
      g.appendChild(clickable(s("g", {}, btn), e, ctx.act));
    });
    svg.appendChild(g);
  }
  const dlg = choiceDialog(v, ctx, narrow);
  if (dlg) svg.appendChild(dlg);

  el.replaceChildren(svg);
}

// The choices that have no place of their own on the board, as a small dialog over the
// card rows: the gems to give back over 10, the noble when several would visit, and the
// pass when nothing else is possible.  (Paying with gold has its own dialog above.)
function choiceDialog(v, ctx, narrow) {
  const area = { x: 4, y: 104, w: 548, h: 476 };
  const font = narrow ? 22 : 16;
  const returns = ctx.legal.filter((e) => e.type === "return");
  if (returns.length) {
    const st = v.seats[ctx.seat] || { tokens: {} };
    const held = TOKENS.reduce((a, c) => a + (st.tokens[c] || 0), 0);
    const over = Math.max(1, held - 10);
    return boardDialog({
      kind: "return", cls: "sp-dialog", area, font, act: ctx.act, cols: narrow ? 3 : 3, optH: narrow ? 96 : 78, width: narrow ? 540 : 440,
      title: tn("Give back {n} gem to the bank", "Give back {n} gems to the bank", over),
      note: t("You hold {held}; at most 10 at the end of a turn. Tap a colour to give one back.", { held }),
      options: returns.map((e) => ({ entry: e, draw: (g, x, y, w, h) => {
        const c = e.json.token, r = Math.min(h * 0.3, 24);
        g.appendChild(token(x + r + 12, y + h / 2, r, c, st.tokens[c], ctx));
        g.appendChild(s("text", { x: x + 2 * r + 22, y: y + h / 2 + font * 0.3, "font-size": font * 0.82, "font-weight": 700, fill: "#222", text: gem(c) }));
      } })),
    });
  }
  const nobles = ctx.legal.filter((e) => e.type === "noble");
  if (nobles.length) {
    return boardDialog({
      kind: "noble", cls: "sp-dialog", area, font, act: ctx.act, cols: Math.min(3, nobles.length), optH: 112, width: narrow ? 540 : 420,
      title: t("Which noble visits you?"), note: t("You qualify for more than one; one visits per turn."),
      options: nobles.map((e) => ({ entry: e, draw: (g, x, y, w, h) => {
        const nb = v.nobles.find((n) => n.id === e.json.noble) || (e.json.noble_tile || null);
        if (nb) g.appendChild(noble(x + (w - 96) / 2, y + (h - 96) / 2, 96, nb, ctx, null));
        else g.appendChild(s("text", { x: x + w / 2, y: y + h / 2, "text-anchor": "middle", "font-size": font * 0.8, text: say(e.text) }));
      } })),
    });
  }
  const pass = findLegal(ctx.legal, { type: "pass" })[0];
  if (pass) {
    return boardDialog({
      kind: "pass", cls: "sp-dialog", area, font, act: ctx.act, cols: 1, optH: narrow ? 68 : 44, width: narrow ? 500 : 360,
      title: t("No move is possible"), note: t("No gems to take, no card to buy or reserve."),
      options: [{ entry: pass, label: t("pass this turn") }],
    });
  }
  return null;
}

// Motion (see ../motion.js): what moved between two views, as moves between the
// data-motion-key places of the two drawings.
export function motions(prev, next) {
  const out = [];
  if (!prev.seats || !next.seats || prev.seats.length !== next.seats.length) return out;
  const onBoard = (v) => new Map((v.board || []).flatMap((row, l) => (row || []).filter(Boolean).map((c) => [c.id, l + 1])));
  const before = onBoard(prev), now = onBoard(next);
  next.seats.forEach((st, p) => {
    const was = prev.seats[p];
    for (const c of TOKENS) {
      const d = (st.tokens[c] || 0) - (was.tokens[c] || 0);
      if (d > 0) out.push({ from: `sp-bank-${c}`, to: `sp-s${p}-tok-${c}` });
      else if (d < 0) out.push({ from: `sp-s${p}-tok-${c}`, to: `sp-bank-${c}` });
    }
    // bought: from the board or from the reserve to the bonus of its colour
    const bought = new Set((was.purchased || []).map((c) => c.id));
    for (const card of st.purchased || []) {
      if (!bought.has(card.id)) out.push({ from: `sp-card-${card.id}`, to: `sp-s${p}-bonus-${card.bonus}` });
    }
    // reserved: a face-up card from the board, else (from the deck) the card itself
    const kept = new Set((was.reserved || []).map((c) => (c.hidden ? null : c.id)));
    (st.reserved || []).forEach((card, i) => {
      if (i < (was.reserved || []).length && (card.hidden || kept.has(card.id))) return;
      if (!card.hidden && before.has(card.id)) out.push({ from: `sp-card-${card.id}`, to: `sp-card-${card.id}` });
      else out.push({ from: `sp-deck-${card.level}`, to: card.hidden ? `sp-s${p}-res-${i}` : `sp-card-${card.id}`, ghost: "to" });
    });
    // a noble's visit
    if ((st.nobles || []).length > (was.nobles || []).length) {
      const here = new Set((next.nobles || []).map((n) => n.id));
      const gone = (prev.nobles || []).find((n) => !here.has(n.id));
      if (gone) out.push({ from: `sp-noble-${gone.id}`, to: `sp-s${p}-noble-${st.nobles.length - 1}` });
    }
  });
  // the gaps on the board filled from the decks
  for (const [id, level] of now) if (!before.has(id)) out.push({ from: `sp-deck-${level}`, to: `sp-card-${id}`, ghost: "to" });
  return out;
}

function seatPanel(x, y, w, hgt, st, p, v, ctx, narrow = false) {
  const g = s("g", { class: "seat", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 10, fill: mine ? "#fffaf0" : "#f3ede1", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = (ctx.names && ctx.names[p]) || t("Seat {number}", { number: p + 1 });
  g.appendChild(s("text", { x: 12, y: 24, "font-size": 16, "font-weight": 700, fill: "#222", text: mine ? t("{name} (you)", { name }) : name }));
  g.appendChild(s("text", { x: w - 12, y: 27, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: "#5a4520", text: `${st.points}` }));
  const cards = tn("{n} card", "{n} cards", st.cards);
  const nobleCount = tn("{n} noble", "{n} nobles", st.nobles.length);
  const counts = t("{cards} · {nobles}", { cards, nobles: nobleCount });
  if (narrow) {
    // phone: one line, "… cards · … nobles   points 12"
    g.appendChild(s("text", { x: w - 50, y: 26, "text-anchor": "end", "font-size": fmin, fill: "#7a7268", text: t("points") }));
    g.appendChild(s("text", { x: w - 50 - fmin * 4.2, y: 26, "text-anchor": "end", "font-size": fmin, fill: "#7a7268", text: counts }));
  } else {
    g.appendChild(s("text", { x: w - 12, y: 40, "text-anchor": "end", "font-size": 10, fill: "#7a7268", text: t("points") }));
    g.appendChild(s("text", { x: w - 64, y: 25, "text-anchor": "end", "font-size": 11, fill: "#7a7268", text: counts }));
  }
  // tokens (clickable when returning)
  TOKENS.forEach((c, i) => {
    // phone: the tokens TAP apart, each a TAP-square target when it can be returned
    const cx = narrow ? 10 + TAP / 2 + i * TAP : 24 + i * 40;
    const ret = mine ? findLegal(ctx.legal, { type: "return", token: c })[0] : null;
    const t = token(cx, 56, narrow ? 24 : 16, c, st.tokens[c], ctx, { hl: !!ret, key: `sp-s${p}-tok-${c}` });
    if (ret && narrow) t.insertBefore(hitRect(cx - TAP / 2, 56 - TAP / 2, TAP, TAP), t.firstChild);
    if (!st.tokens[c]) t.setAttribute("opacity", "0.35");
    g.appendChild(ret ? clickable(t, ret, ctx.act) : t);
  });
  // bonuses (the colours of purchased cards)
  g.appendChild(s("text", { x: 12, y: 96, "font-size": 10.5, fill: "#7a7268", text: t("bonuses") }));
  COLS.forEach((c, i) => {
    const bx = 10 + i * 40;
    const n = st.bonuses[c];
    g.appendChild(s("rect", { x: bx, y: 102, width: 28, height: 36, rx: 4, fill: gemFill(c, ctx), stroke: colour(c).stroke, opacity: n ? 1 : 0.3, "data-motion-key": `sp-s${p}-bonus-${c}` }));
    if (ctx.patterns) g.appendChild(s("rect", { x: bx + 5, y: 110, width: 18, height: 20, rx: 3, fill: "#fffdf8", opacity: n ? 1 : 0.4 }));
    g.appendChild(s("text", { x: bx + 14, y: 126, "text-anchor": "middle", "font-size": 15, "font-weight": 700, fill: ctx.patterns ? "#111" : colour(c).ink, stroke: colour(c).ink === "#fff" ? "#0007" : "none", "stroke-width": 0.5, text: n }));
  });
  // nobles received
  if (st.nobles.length) g.appendChild(s("text", { x: 12, y: 160, "font-size": 10.5, fill: "#7a7268", text: t("nobles") }));
  st.nobles.forEach((nb, i) => {
    const nx = 10 + (i % 4) * 32, ny = 166 + Math.floor(i / 4) * 32;
    g.appendChild(s("rect", { x: nx, y: ny, width: 28, height: 28, rx: 3, fill: "#efe3c8", stroke: "#8a7448", "data-motion-key": `sp-s${p}-noble-${i}` }));
    g.appendChild(s("text", { x: nx + 14, y: ny + 19, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#5a4520", text: nb.points }));
  });
  // reserved cards, large enough to read their costs
  const big = w >= 560;  // a seat as wide as the table (phone): reserved cards at full size
  // (phone: under the row of tokens, beside the bonuses)
  if (st.reserved.length) g.appendChild(s("text", { x: big ? 262 : 150, y: big ? (narrow ? 96 : 40) : 160, "font-size": 10.5, fill: "#7a7268", text: t("reserved {n}/3", { n: st.reserved.length }) }));
  st.reserved.forEach((card, i) => {
    const rx = big ? 260 + i * 108 : 148 + i * 72, ry = big ? (narrow ? 100 : 46) : 166, rw = big ? 100 : 66, rh = big ? (narrow ? CH_PHONE : 142) : 80;
    if (card.hidden) { g.appendChild(cardBack(rx, ry, rw, rh, card.level, undefined, `sp-s${p}-res-${i}`)); return; }
    const cg = s("g", { class: "sp-reserved" });
    cg.appendChild(cardFace(rx, ry, rw, rh, card, ctx, big ? null : 8));
    const buy = mine ? findLegal(ctx.legal, { type: "buy", card: card.id })[0] : null;
    const notBuy = mine && !buy ? whyNotBuy(ctx, card) : null;
    if (buy) {
      cg.appendChild(s("rect", { class: "hl", x: rx - 2, y: ry - 2, width: rw + 4, height: rh + 4, rx: 8 }));
      g.appendChild(clickable(cg, buy, ctx.act));
    } else if (notBuy) g.appendChild(explainable(cg, notBuy, ctx)); // a tap says what is missing
    else g.appendChild(cg);
  });
  return g;
}
