// Diamonds Club board: the market (rows of spaces with prices and coins),
// the price boards for buildings and forests, and each player's coins, gems,
// tracks, equipment and park.  Market spaces, price boards and (when several
// piles tie for the most tiles) the building pile a forest is turned from are
// clickable when a legal action uses them; other choices stay in the list beside.

import { s, colour, fillOf, patternDefs, clickable, findLegal } from "../svg.js";

const GEMS = ["blue", "yellow", "green", "red", "diamond"];
const GOOD_COLOURS = { pit: "#8a6a4a", animal: "#6b9a4a", ship: "#3f6f9a", track: "#9a5a8a", mine: "#7a7a7a", hat: "#3a3a3a" };

function gem(x, y, r, c, ctx) {
  const fill = c === "diamond" ? "#e8f6fb" : fillOf(c, ctx.patterns);
  const stroke = c === "diamond" ? "#6aa9bf" : colour(c).stroke;
  return s("path", { d: `M${x} ${y - r} L${x + r} ${y - r * 0.25} L${x} ${y + r} L${x - r} ${y - r * 0.25} Z`, fill, stroke, "stroke-width": 1.4 });
}

function coin(x, y, r) {
  return s("g", {}, [s("circle", { cx: x, cy: y, r, fill: "#e8b931", stroke: "#8a6a0c", "stroke-width": 1.2 }), s("circle", { cx: x, cy: y, r: r * 0.6, fill: "none", stroke: "#8a6a0c88" })]);
}

export function render(el, ctx) {
  const v = ctx.view;
  const players = v.players || [];
  const n = players.length;
  const ph = 200;
  const marketH = 36 + v.market.length * 58;
  const ncols = Math.max(...v.market.map((row) => row.length), 1);
  const bw = 238, bRows = Math.ceil((v.boards.length + 1) / 4); // + the building piles
  const top = marketH + 30 + bRows * 52 + 10;
  const height = top + Math.ceil(n / 2) * (ph + 10) + 10;
  const svg = s("svg", { viewBox: `0 0 1000 ${height}`, class: "diamonds-board", role: "img", "aria-label": "Diamonds Club table" });
  svg.appendChild(patternDefs("cb"));

  // market
  svg.appendChild(s("text", { x: 12, y: 24, "font-size": 13, fill: "#e8e2d2", text: `market · round ${v.round} · phase ${v.phase}` + (v.ending ? " · last round" : "") }));
  const sw = Math.min(180, 976 / ncols - 8), sh = 50;
  v.market.forEach((row, r) => {
    row.forEach((sp, i) => {
      const x = 12 + i * (sw + 8), y = 36 + r * (sh + 8);
      // a space may show several goods ("pit:red+mine:3"): one colour band per good
      const items = sp.items || String(sp.goods).split("+");
      const kinds = items.map((t) => String(t).split(":")[0]);
      const g = s("g", { class: "market-space", "data-space": sp.space });
      g.appendChild(s("rect", { x, y, width: sw, height: sh, rx: 8, fill: "#f4ecdb", stroke: "#8a7b5c", "stroke-width": 1.2 }));
      kinds.forEach((kind, k) => g.appendChild(s("rect", { x, y: y + (k * sh) / kinds.length, width: 8, height: sh / kinds.length, rx: 3, fill: GOOD_COLOURS[kind] || "#888" })));
      const pit = items.find((t) => String(t).startsWith("pit:"));
      const pitColour = pit ? String(pit).split(":")[1] : null;
      if (pitColour) g.appendChild(gem(x + 24, y + 18, 9, pitColour, ctx));
      const long = sp.label.length > (sw < 130 ? 14 : 20);
      g.appendChild(s("text", { x: pitColour ? x + 38 : x + 16, y: y + 21, "font-size": long ? 10 : sw < 130 ? 11 : 12.5, "font-weight": 700, fill: "#2a2520", text: sp.label }));
      if (sp.coins) {
        for (let k = 0; k < sp.coins; k++) g.appendChild(coin(x + 20 + k * 12, y + 37, 7));
      } else if (sp.price !== null && sp.price !== undefined) {
        g.appendChild(s("text", { x: x + 16, y: y + 42, "font-size": 11.5, fill: "#6b5a3a", text: `costs ${sp.price} coin${sp.price === 1 ? "" : "s"}` }));
      }
      const buy = findLegal(ctx.legal, { type: "buy", space: sp.space })[0];
      if (buy) {
        g.appendChild(s("rect", { class: "hl", x: x - 2, y: y - 2, width: sw + 4, height: sh + 4, rx: 10 }));
        svg.appendChild(clickable(g, buy, ctx.act, `${buy.text}: ${sp.label}`));
      } else svg.appendChild(g);
    });
  });

  // price boards (buildings and forests)
  svg.appendChild(s("text", { x: 12, y: marketH + 20, "font-size": 13, fill: "#e8e2d2", text: "price boards" }));
  v.boards.forEach((b, i) => {
    const bx = 12 + (i % 4) * (bw + 8);
    const y = marketH + 28 + Math.floor(i / 4) * 52;
    const g = s("g", { class: "price-board", "data-board": b.name });
    g.appendChild(s("rect", { x: bx, y, width: bw, height: 46, rx: 8, fill: "#e6eef0", stroke: "#5a7a86", "stroke-width": 1.2 }));
    g.appendChild(s("text", { x: bx + 10, y: y + 19, "font-size": 12.5, "font-weight": 700, fill: "#1d3440", text: `${b.name.replace(/_/g, " ")} — ${b.cost}` }));
    const builds = ctx.legal.filter((e) => e.type === "build" && e.json.board === b.name);
    if (!builds.length) {
      g.appendChild(s("text", { x: bx + 10, y: y + 37, "font-size": 11, fill: "#4a6470", text: ((t) => (t.length > 42 ? t.slice(0, 41) + "…" : t))(`builds: ${b.tiles.map((t) => t.replace(/_/g, " ")).join(", ")}`) }));
    }
    const pw = Math.min(72, (bw - 16) / Math.max(1, builds.length) - 4);
    builds.forEach((e, k) => {
      const px = bx + 8 + k * (pw + 4);
      const full = e.json.tile.replace(/_/g, " ");
      const label = pw < 60 ? full.split(" ")[0].slice(0, 6) : full;
      const pg = s("g", {}, [
        s("rect", { x: px, y: y + 24, width: pw, height: 18, rx: 9, fill: "#2f8a4f" }),
        s("rect", { class: "hl", x: px - 2, y: y + 22, width: pw + 4, height: 22, rx: 11 }),
        s("text", { x: px + pw / 2, y: y + 37, "text-anchor": "middle", "font-size": 10.5, "font-weight": 700, fill: "#fff", text: label }),
      ]);
      g.appendChild(clickable(pg, e, ctx.act, e.text));
    });
    svg.appendChild(g);
  });
  svg.appendChild(piles(v, ctx, v.boards.length, bw, marketH));

  players.forEach((pl, p) => {
    const x = 6 + (p % 2) * 497;
    const y = top + Math.floor(p / 2) * (ph + 10);
    svg.appendChild(panel(x, y, 490, ph, pl, p, ctx));
  });
  el.replaceChildren(svg);
}

// The building piles (tiles left).  A forest is a tile of the fullest pile turned
// over; when several piles tie, the player picks one here.
function piles(v, ctx, i, bw, marketH) {
  const bx = 12 + (i % 4) * (bw + 8);
  const y = marketH + 28 + Math.floor(i / 4) * 52;
  const choosing = ctx.legal.some((e) => e.type === "forest_pile");
  const g = s("g", { class: "tile-piles" });
  g.appendChild(s("rect", { x: bx, y, width: bw, height: 46, rx: 8, fill: choosing ? "#fff4d6" : "#ece6d8", stroke: "#8a7b5c", "stroke-width": 1.2 }));
  g.appendChild(s("text", { x: bx + 10, y: y + 17, "font-size": 11.5, "font-weight": 700, fill: "#3a3025", text: choosing ? "turn a pile over for your forest" : "building piles (tiles left)" }));
  const names = Object.keys(v.tile_piles || {});
  const pw = (bw - 16) / Math.max(1, names.length) - 4;
  names.forEach((name, k) => {
    const px = bx + 8 + k * (pw + 4);
    const short = name.replace(/_/g, " ").split(" ")[0].slice(0, 5);
    const e = findLegal(ctx.legal, { type: "forest_pile", pile: name })[0];
    const pg = s("g", { class: "tile-pile", "data-pile": name }, [
      s("rect", { x: px, y: y + 24, width: pw, height: 18, rx: 9, fill: e ? "#2f8a4f" : "#d8ceb8" }),
      s("text", { x: px + pw / 2, y: y + 37, "text-anchor": "middle", "font-size": 9.5, "font-weight": 700, fill: e ? "#fff" : "#3a3025", text: `${short} ${v.tile_piles[name]}` }),
    ]);
    if (e) {
      pg.appendChild(s("rect", { class: "hl", x: px - 2, y: y + 22, width: pw + 4, height: 22, rx: 11 }));
      g.appendChild(clickable(pg, e, ctx.act, e.text));
    } else {
      pg.appendChild(s("title", { text: `${name.replace(/_/g, " ")}: ${v.tile_piles[name]} tiles left` }));
      g.appendChild(pg);
    }
  });
  return g;
}

function panel(x, y, w, hgt, pl, p, ctx) {
  const g = s("g", { class: "player", "data-seat": p, transform: `translate(${x} ${y})` });
  const moving = (ctx.toMove || []).includes(p);
  const mine = ctx.seat === p;
  g.appendChild(s("rect", { width: w, height: hgt, rx: 12, fill: mine ? "#fbf6ea" : "#f1eadb", stroke: moving ? "#ffd24a" : "#00000055", "stroke-width": moving ? 4 : 1.2 }));
  const name = (ctx.names && ctx.names[p]) || `Seat ${p + 1}`;
  g.appendChild(s("text", { x: 14, y: 26, "font-size": 16, "font-weight": 700, fill: "#222", text: name + (mine ? " (you)" : "") + (pl.passed ? " · passed" : "") }));
  const sc = pl.score || {};
  g.appendChild(s("text", { x: w - 14, y: 28, "text-anchor": "end", "font-size": 24, "font-weight": 800, fill: "#5a4520", text: String(sc.total ?? "") }));
  g.appendChild(s("text", { x: w - 50, y: 26, "text-anchor": "end", "font-size": 10.5, fill: "#7a7268", text: ["buildings", "forests", "animals", "bonus", "tracks"].map((k) => `${k} ${sc[k] ?? 0}`).join(" · ") }));
  // coins and gems
  g.appendChild(coin(24, 50, 10));
  g.appendChild(s("text", { x: 40, y: 55, "font-size": 14, "font-weight": 700, fill: "#222", text: `${pl.coins}  (next round ${pl.coins_next_round})` }));
  GEMS.forEach((c, i) => {
    const gx = 230 + i * 50;
    g.appendChild(gem(gx, 50, 11, c, ctx));
    g.appendChild(s("text", { x: gx + 15, y: 55, "font-size": 14, "font-weight": 700, fill: "#222", text: String(pl.gems[c] ?? 0) }));
  });
  // tracks
  const tr = pl.tracks || {};
  Object.entries(tr).forEach(([k, val], i) => {
    const ty = 80 + i * 20;
    g.appendChild(s("text", { x: 14, y: ty + 4, "font-size": 11.5, fill: "#5a5245", text: k }));
    for (let step = 0; step < 8; step++) g.appendChild(s("rect", { x: 80 + step * 18, y: ty - 7, width: 14, height: 12, rx: 2, fill: step < val ? "#9a5a8a" : "#e2d7c1", stroke: "#b9a987" }));
  });
  // equipment
  const eq = pl.equipment || {};
  const eqText = [
    `pits: ${Object.entries(eq.pits || {}).map(([c, k]) => `${k}× ${c}`).join(", ") || "none"}`,
    `mining rights: ${Object.entries(eq.mining_rights || {}).map(([c, k]) => `${k}× ${c}`).join(", ") || "none"}`,
    `ships: ${Object.entries(eq.ships || {}).map(([c, k]) => `${k}× ${c}`).join(", ") || "none"}`,
  ];
  eqText.forEach((t, i) => g.appendChild(s("text", { x: 250, y: 80 + i * 18, "font-size": 11.5, fill: "#3a3025", text: t })));
  // park
  const park = pl.park || {};
  const b = park.buildings || {};
  const an = park.animals || {};
  g.appendChild(s("rect", { x: 10, y: 142, width: w - 20, height: 48, rx: 8, fill: "#dfe9d2", stroke: "#7a9a5a" }));
  g.appendChild(s("text", { x: 20, y: 160, "font-size": 11.5, "font-weight": 700, fill: "#2f4a1f", text: "park" }));
  g.appendChild(s("text", { x: 20, y: 180, "font-size": 11.5, fill: "#2f4a1f", text:
    `${Object.entries(b).map(([k, x]) => `${k.replace(/_/g, " ")} ${x}`).join(" · ")} · forests ${park.forests ?? 0} (worth ${pl.forest_value})` }));
  g.appendChild(s("text", { x: 70, y: 160, "font-size": 11.5, fill: "#2f4a1f", text:
    `animals: ${Object.entries(an).map(([k, x]) => `${k} ${x}`).join(", ")} · spaces covered: light ${park.light_covered ?? 0}, dark ${park.dark_covered ?? 0}` }));
  return g;
}
