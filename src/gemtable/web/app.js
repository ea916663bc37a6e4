// The gemtable shell: lobby, play page, replay viewer and rules pages.
// Plain ES module, no build step, nothing fetched from outside this server.
// Game-specific drawing lives in /static/games/<id>.js (render(el, ctx));
// a game without one is drawn by the generic renderer.

import { h, raiseSmallText } from "./svg.js";
import * as generic from "./generic.js";
import * as online from "./online.js"; // players, lobby seats, chat, clocks, connection (online.js)
import * as motion from "./motion.js";
import { lobbyList } from "./lobbylist.js";
import * as community from "./community.js"; // your turn, notifications, friends, mail settings (community.js)
import * as moderation from "./moderation.js"; // reports, the admin page (moderation.js)
import { reviewPanel } from "./review.js";
import { hintBox } from "./hints.js";
import { analysisPanel } from "./analysis.js";
import * as stats from "./stats.js"; // statistics on profiles and leaderboards (stats.js)
import * as tournaments from "./tournaments.js"; // tournaments: the list, create, register, standings (tournaments.js)
import * as i18n from "./i18n.js";
import { t, tn } from "./i18n.js";

const app = document.getElementById("app");
let games = [];
let gamesById = {};
let cleanup = null;
let rerender = null;
const renderers = {};

// -- utilities --------------------------------------------------------------
async function api(path, opts = {}) {
  // a plain GET carries no extra header, so it can take the answer the shell preloaded (<link rel=preload>)
  const reads = !opts.method || opts.method === "GET";
  const init = { ...(reads ? {} : { headers: { "Content-Type": "application/json" } }), ...opts };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    // the server's error shape: {"error": code, "detail": sentence} (or {"error": {"code", "message"}})
    const e = data && typeof data.error === "object" && data.error ? data.error : null;
    const err = new Error((e && e.message) || (data && data.detail) || (data && typeof data.error === "string" && data.error) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.code = e ? e.code : data && data.error;
    throw err;
  }
  return data;
}

let toastTimer = null;
function toast(msg, kind = "error") {
  const el = document.getElementById("toast");
  el.textContent = msg;
  el.className = `show ${kind}`;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = ""; }, kind === "error" || kind === "why" ? 6000 : 2500);
}

function patternsOn() { return localStorage.getItem("gt.patterns") === "1"; }

function tokensOf(tableId) {
  try { return JSON.parse(localStorage.getItem(`gt.tokens.${tableId}`) || "{}"); } catch { return {}; }
}
function saveToken(tableId, seat, token) {
  const t = tokensOf(tableId);
  t[seat] = token;
  localStorage.setItem(`gt.tokens.${tableId}`, JSON.stringify(t));
}

function navigate(path) {
  history.pushState({}, "", path);
  route();
}

document.addEventListener("click", (e) => {
  const a = e.target.closest && e.target.closest("a[data-link]");
  if (a && a.origin === location.origin && !e.ctrlKey && !e.metaKey && e.button === 0) {
    e.preventDefault();
    navigate(a.pathname + a.search + a.hash);
  }
});
window.addEventListener("popstate", route);

async function rendererFor(gameId) {
  if (renderers[gameId]) return renderers[gameId];
  const g = gamesById[gameId];
  let mod = generic;
  if (g && g.renderer) {
    try { mod = await import(g.renderer); } catch (err) { console.warn("renderer failed, using generic", err); }
  }
  renderers[gameId] = mod;
  return mod;
}

// Keyboard focus on the board survives a redrawing: the same target when it is still drawn
// (same data-action / data-why), else the board's first legal target, else the board itself.
function keepFocus(el, had) {
  if (!had) return;
  const key = had.getAttribute && (had.getAttribute("data-action") || had.getAttribute("data-why"));
  const same = key ? [...el.querySelectorAll("[data-action], [data-why]")].find((x) => (x.getAttribute("data-action") || x.getAttribute("data-why")) === key && x.tabIndex >= 0) : null;
  const next = same || el.querySelector("svg .act[tabindex]") || el;
  next.focus({ preventScroll: true });
}

// A focus ring the shell draws around the focused target of a board, in two tones (a dark
// band with a light one inside), so it shows on every colour a board uses.
function focusRing(board) {
  const clear = () => { for (const r of board.querySelectorAll(".focus-ring")) r.remove(); };
  board.addEventListener("focusout", clear);
  board.addEventListener("focusin", (e) => {
    clear();
    const t = e.target;
    const svg = t.ownerSVGElement;
    if (!svg || !t.matches(":focus-visible") || !t.getBBox) return;
    const b = t.getBBox();
    const m = svg.getScreenCTM().inverse().multiply(t.getScreenCTM());
    const pts = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
    const xs = pts.map((p) => p.x), ys = pts.map((p) => p.y);
    const unit = svg.viewBox.baseVal && svg.viewBox.baseVal.width && svg.clientWidth ? svg.viewBox.baseVal.width / svg.clientWidth : 1; // user units per CSS px
    const pad = 3 * unit, x = Math.min(...xs) - pad, y = Math.min(...ys) - pad, w = Math.max(...xs) - Math.min(...xs) + 2 * pad, hh = Math.max(...ys) - Math.min(...ys) + 2 * pad;
    const ns = "http://www.w3.org/2000/svg";
    const ring = document.createElementNS(ns, "g");
    ring.setAttribute("class", "focus-ring");
    ring.setAttribute("pointer-events", "none");
    for (const [cls, width] of [["focus-ring-outer", 6], ["focus-ring-inner", 2.5]]) {
      const r = document.createElementNS(ns, "rect");
      for (const [k, v] of Object.entries({ class: cls, x, y, width: w, height: hh, rx: 4 * unit, fill: "none", "stroke-width": width * unit })) r.setAttribute(k, String(v));
      ring.appendChild(r);
    }
    svg.appendChild(ring);
  });
}

function drawBoard(mod, el, ctx) {
  const moves = motion.before(el, mod, ctx); // motion.js: the pieces that moved since the last drawing fly
  const had = el.contains(document.activeElement) ? document.activeElement : null;
  try {
    mod.render(el, ctx);
    keepFocus(el, had);
    // svg.js: on a narrow screen (the renderers' phone layouts) no board text under MIN_TEXT_PX
    if (el.clientWidth < 640) raiseSmallText(el);
    motion.after(moves);
  } catch (err) {
    console.error(err);
    document.body.dataset.renderError = String(err && err.message || err);
    if (mod !== generic) { generic.render(el, ctx); el.prepend(h("p", { class: "muted", text: t("(board drawing failed; showing the plain view)") })); }
  }
}

// Moves that only lose points (a renderer knows them from its view: Sintra's take where every
// pane breaks) ask once before they are played: ctx.confirm({title, text, yes}) resolves true
// to play.  "Don't ask again" (or the menu's setting) turns the questions off in this browser.
function asksBeforeLosing() { return localStorage.getItem("gt.confirm") !== "0"; }
function setAsksBeforeLosing(on) {
  localStorage.setItem("gt.confirm", on ? "1" : "0");
  const box = document.getElementById("confirm-toggle");
  if (box) box.checked = on;
}
function confirmMove({ title = t("Are you sure?"), text = "", yes = t("Do it anyway"), no = t("Cancel") } = {}) {
  if (!asksBeforeLosing()) return Promise.resolve(true);
  const opener = document.activeElement;
  return new Promise((resolve) => {
    const stop = h("input", { type: "checkbox", id: "confirm-stop" });
    const ok = h("button", { type: "button", class: "primary", id: "confirm-yes", text: yes });
    const cancel = h("button", { type: "button", id: "confirm-no", text: no });
    const dlg = h("dialog", { class: "account-dialog confirm-dialog", id: "confirm-dialog", "aria-labelledby": "confirm-title" }, [
      h("div", { class: "dlg-head" }, [h("h2", { id: "confirm-title", text: title })]),
      h("div", { class: "account-body" }, [h("p", { text }),
        h("label", { class: "toggle" }, [stop, " " + t("Don't ask again (the menu can turn it back on)")]),
        h("p", { class: "confirm-buttons" }, [ok, cancel])]),
    ]);
    let answer = false;
    ok.addEventListener("click", () => { answer = true; dlg.close(); });
    cancel.addEventListener("click", () => dlg.close());
    dlg.addEventListener("close", () => {
      if (stop.checked) setAsksBeforeLosing(false);
      dlg.remove();
      if (opener && opener.isConnected) opener.focus({ preventScroll: true });
      resolve(answer);
    });
    document.body.appendChild(dlg);
    dlg.showModal();
    cancel.focus();
  });
}

function gameLink(g) {
  return h("a", { href: `/rules/${g.id}`, "data-link": "" , text: g.title });
}

// -- router -------------------------------------------------------------------
async function route() {
  if (cleanup) { try { cleanup(); } catch {} }
  cleanup = null;
  rerender = null;
  const path = location.pathname;
  let m;
  try {
    if ((m = path.match(/^\/table\/([A-Za-z0-9_-]+)/))) await playPage(m[1]);
    else if ((m = path.match(/^\/replay\/([A-Za-z0-9_-]+)/))) await replayPage(m[1]);
    else if ((m = path.match(/^\/rules\/([A-Za-z0-9_-]+)/))) await rulesPage(m[1]);
    else if (path === "/me") { cleanup = await online.myGamesPage(app); community.myGamesExtras(app); }
    else if ((m = path.match(/^\/leaderboard(?:\/([A-Za-z0-9_-]+))?\/?$/))) { cleanup = await online.leaderboardPage(app, m[1]); stats.leaderboardStats(app, m[1] || (online.shell.games()[0] || {}).id); }
    else if ((m = path.match(/^\/players\/([^/]+)$/))) { cleanup = await online.profilePage(app, decodeURIComponent(m[1])); community.profileExtras(app, decodeURIComponent(m[1])); moderation.profileExtras(app, decodeURIComponent(m[1])); stats.profileStats(app, decodeURIComponent(m[1])); }
    else if ((m = await community.page(app, path)) !== false) cleanup = m;
    else if ((m = await moderation.page(app, path)) !== false) cleanup = m;
    else if ((m = await tournaments.page(app, path)) !== false) cleanup = m;
    else await lobbyPage();
  } catch (err) {
    app.replaceChildren(h("section", { class: "panel" }, [h("h2", { text: t("Something went wrong") }), h("p", { text: String(err.message || err) }), h("a", { href: "/", "data-link": "", text: t("Back to the lobby") })]));
  }
}

// -- lobby --------------------------------------------------------------------
async function lobbyPage() {
  document.title = t("gemtable — lobby");
  const form = h("form", { class: "panel new-table", id: "new-table" });
  const tables = lobbyList({ games, tokensOf, saveToken }); // lobbylist.js: filters, pages, Play now
  const created = h("div", { id: "created" });
  const gameCards = h("section", { class: "panel games" }, [h("h2", { text: t("Games") }),
    h("div", { class: "game-cards" }, games.map((g) => h("article", { class: "game-card" }, [
      h("h3", { text: g.title }),
      h("p", { text: g.summary || "" }),
      h("p", { class: "muted", text: t("{counts} players", { counts: g.players.join(", ") }) + (g.data_status === "reconstructed" ? " · " + t("some component data reconstructed") : "") }),
      h("p", { class: "card-links" }, [h("a", { href: `/rules/${g.id}`, "data-link": "", text: t("Rules in brief") }),
        h("a", { href: `/leaderboard/${g.id}`, "data-link": "", text: t("Leaderboard") })]),
    ])))]);
  const picker = online.namePickerCard(); // first visit: pick a name (a card, never in the way)
  app.replaceChildren(h("div", { class: "lobby" }, [h("div", { class: "lobby-main" }, [picker, created, tables.el, form]), gameCards]));

  // --- the new-table form
  const bots = await online.botInfo().catch(() => ({ levels: { easy: "random" }, kinds: ["random"], ratings: {} }));
  const botChoices = [...Object.keys(bots.levels), ...bots.kinds.filter((k) => !(k in bots.levels))];
  const gameSel = h("select", { id: "game", name: "game" }, games.map((g) => h("option", { value: g.id, text: g.title })));
  const playersSel = h("select", { id: "players", name: "players" });
  const optionsBox = h("div", { class: "options" });
  const seatsBox = h("div", { class: "seats-form" });
  // online tables: private (invite links only) and the time control
  const privateBox = h("input", { type: "checkbox", id: "private" });
  const practiceBox = h("input", { type: "checkbox", id: "practice" });
  const clockSel = h("select", { id: "clock-mode" }, [
    h("option", { value: "none", text: t("No clock (casual)") }),
    h("option", { value: "realtime", text: t("Real time: base + increment") }),
    h("option", { value: "turn", text: t("Turn based: time per move") }),
  ]);
  const baseSel = h("select", { id: "clock-base", "aria-label": t("Minutes each") }, [1, 3, 5, 10, 15, 20, 30, 45, 60].map((m) => h("option", { value: m * 60, text: t("{m} min each", { m }) })));
  baseSel.value = "600";
  const incSel = h("select", { id: "clock-increment", "aria-label": t("Seconds added per move") }, [0, 2, 5, 10, 15, 30, 60].map((x) => h("option", { value: x, text: t("+ {x} s a move", { x }) })));
  incSel.value = "5";
  const perMoveSel = h("select", { id: "clock-per-move", "aria-label": t("Time for each move") }, [[300, t("5 min a move")], [3600, t("1 hour a move")], [4 * 3600, t("4 hours a move")], [12 * 3600, t("12 hours a move")], [86400, t("1 day a move")], [2 * 86400, t("2 days a move")], [3 * 86400, t("3 days a move")]].map(([v, text]) => h("option", { value: v, text })));
  perMoveSel.value = "86400";
  const clockDetail = h("span", { class: "clock-detail" });
  const refreshClock = () => clockDetail.replaceChildren(...(clockSel.value === "realtime" ? [baseSel, incSel] : clockSel.value === "turn" ? [perMoveSel] : []));
  clockSel.addEventListener("change", refreshClock);
  const onlineBox = h("div", { class: "online-options", hidden: online.me.supported ? null : "" }, [
    h("label", { class: "clock-row" }, [t("Time") + " ", clockSel]), clockDetail,
    h("label", { class: "toggle", title: t("Not listed in the lobby: only people with an invite link can sit down") }, [privateBox, " " + t("private (invite links only)")]),
    h("label", { class: "toggle", title: t("Nothing at stake: every seat may ask the bot for hints; the game is not rated") }, [practiceBox, " " + t("practice (hints, not rated)")]),
  ]);
  form.replaceChildren(
    h("h2", { text: t("New table") }),
    h("div", { class: "row" }, [h("label", {}, [t("Game") + " ", gameSel]), h("label", {}, [t("Players") + " ", playersSel])]),
    optionsBox, seatsBox, onlineBox,
    h("button", { type: "submit", class: "primary", id: "create", text: t("Create table") }),
  );
  const params = new URLSearchParams(location.search);
  if (params.get("game") && gamesById[params.get("game")]) gameSel.value = params.get("game");

  function seatRow(i, old) {
    const ids = online.me.supported;
    const kind = h("select", { class: "seat-kind", "data-seat": i, "aria-label": t("Seat {n}: who plays", { n: i + 1 }) }, [
      ids ? h("option", { value: "me", text: t("You") }) : null,
      ids ? h("option", { value: "open", text: t("Open seat") }) : null,
      h("option", { value: "human", text: ids ? t("Invite link") : t("Person") }),
      ...botChoices.map((b) => h("option", { value: `bot:${b}`, text: b in bots.levels ? online.levelLabel(b, online.levelRating(bots, gameSel.value, b)) : t("Bot — {kind}", { kind: b }) })),
    ]);
    kind.value = old ? old.kind : (i === 0 ? (ids ? "me" : "human") : (ids ? "open" : `bot:${botChoices.includes("medium") ? "medium" : botChoices[0]}`));
    const name = h("input", { class: "seat-name", placeholder: t("Seat {n} name", { n: i + 1 }), maxlength: 24, value: old ? old.name : "", "aria-label": t("Seat {n} name", { n: i + 1 }) });
    const sync = () => {
      // your seat carries your name; an open seat takes the name of whoever joins
      const fixed = kind.value === "me" || kind.value === "open";
      name.disabled = fixed;
      name.placeholder = kind.value === "me" ? (online.me.player ? online.me.player.name : t("your name")) : kind.value === "open" ? t("whoever joins") : t("Seat {n} name", { n: i + 1 });
      if (fixed) name.value = "";
      if (kind.value === "me") for (const other of seatsBox.querySelectorAll(".seat-kind")) if (other !== kind && other.value === "me") { other.value = "open"; other.dispatchEvent(new Event("change")); }
    };
    kind.addEventListener("change", sync);
    setTimeout(sync, 0);
    return h("div", { class: "seat-row" }, [h("span", { class: "seat-no", text: t("Seat {n}", { n: i + 1 }) }), kind, name]);
  }
  function refreshGame() {
    const g = gamesById[gameSel.value];
    if (!g) return;
    const prev = playersSel.value;
    playersSel.replaceChildren(...g.players.map((n) => h("option", { value: n, text: n })));
    playersSel.value = g.players.includes(Number(prev)) ? prev : String(g.players.includes(2) ? 2 : g.players[0]);
    // each option in the game's own player wording (its package's label and choice_labels)
    optionsBox.replaceChildren(...g.options.map((o) => h("label", { class: "game-option" }, [
      h("span", { class: "option-label", text: o.label || o.name.replace(/_/g, " ") }),
      (() => { const sel = h("select", { "data-option": o.name }, o.choices.map((c, i) => h("option", { value: String(c), text: (o.choice_labels || [])[i] || String(c) }))); sel.value = String(o.default); return sel; })(),
    ])));
    refreshSeats();
  }
  function refreshSeats() {
    const n = Number(playersSel.value);
    const old = [...seatsBox.querySelectorAll(".seat-row")].map((r) => ({ kind: r.querySelector(".seat-kind").value, name: r.querySelector(".seat-name").value }));
    seatsBox.replaceChildren(...Array.from({ length: n }, (_, i) => seatRow(i, old[i])));
  }
  gameSel.addEventListener("change", refreshGame);
  playersSel.addEventListener("change", refreshSeats);
  refreshGame();
  refreshClock();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const g = gamesById[gameSel.value];
    const options = {};
    for (const sel of optionsBox.querySelectorAll("select[data-option]")) {
      const o = g.options.find((x) => x.name === sel.dataset.option);
      options[o.name] = o.choices.find((c) => String(c) === sel.value);
    }
    // an unnamed seat is named by the server in English ("Player 2", "Bot 2 (easy)"); a page in
    // another language names it in its own words, which every reader of the table then sees
    const defaultName = (i, bot = null) => i18n.lang === "en" ? null
      : bot === null ? t("Player {n}", { n: i + 1 }) : bot in bots.levels ? t("Bot {n} ({level})", { n: i + 1, level: online.levelName(bot) }) : null;
    const seats = [...seatsBox.querySelectorAll(".seat-row")].map((r, i) => {
      const kind = r.querySelector(".seat-kind").value;
      const name = r.querySelector(".seat-name").value.trim() || null;
      if (kind === "me" || kind === "open") return { kind };
      return kind === "human" ? { kind: "human", name: name || defaultName(i) } : { kind: "bot", bot: kind.slice(4), name: name || defaultName(i, kind.slice(4)) };
    });
    const body = { game: g.id, players: Number(playersSel.value), options, seats };
    if (privateBox.checked) body.private = true;
    if (practiceBox.checked) body.practice = true;
    if (clockSel.value !== "none") {
      body.clock = clockSel.value === "realtime"
        ? { mode: "realtime", base: Number(baseSel.value), increment: Number(incSel.value) }
        : { mode: "turn", per_move: Number(perMoveSel.value) };
    }
    if (seats.some((s) => s.kind === "me") && !(await online.ensureName(t("Pick a name for your seat: the other players see it.")))) return;
    try {
      const res = await api("/api/tables", { method: "POST", body });
      showCreated(res, seats);
      tables.load();
    } catch (err) { toast(err.message); }
  });

  async function showCreated(res, asked) {
    const id = res.table.id;
    const mine = asked.findIndex((s) => s.kind === "me");
    if (mine >= 0 || asked.some((s) => s.kind === "open")) {
      // your own seat (or a waiting room with open seats): go to the table, invite links are there
      const s = res.seats[mine];
      if (s && s.token) saveToken(id, s.seat, s.token);
      navigate(`/table/${id}`);
      return;
    }
    const humans = res.seats.filter((s) => s.kind === "human" && s.token);
    if (humans.length === 1) {
      saveToken(id, humans[0].seat, humans[0].token);
      navigate(humans[0].invite);
      return;
    }
    const rows = humans.map((s) => {
      const url = location.origin + s.invite;
      const input = h("input", { class: "invite", readonly: "", value: url, "data-seat": s.seat, "aria-label": t("Invite link for {name}", { name: s.name }) });
      return h("div", { class: "invite-row" }, [
        h("b", { text: s.name }), input,
        h("button", { type: "button", text: t("Copy"), onclick: () => { input.select(); navigator.clipboard?.writeText(url).then(() => toast(t("Link copied"), "ok"), () => {}); } }),
        // the host sees every seat's link again at the table ("Invite links")
        h("button", { type: "button", class: "play-seat", text: t("Play this seat here"), onclick: () => { saveToken(id, s.seat, s.token); navigate(s.invite); } }),
      ]);
    });
    created.replaceChildren(h("section", { class: "panel created" }, [
      h("h2", { text: t("Table ready") }),
      h("p", { text: t("Send each person their own link: it holds that seat's secret key. Anyone with the table's plain address can watch.") }),
      ...rows,
      humans.length ? h("p", {}, [h("button", { type: "button", class: "primary", id: "hotseat", text: t("Play all seats on this screen (hotseat)"), onclick: () => {
        for (const s of humans) saveToken(id, s.seat, s.token);
        localStorage.setItem(`gt.hotseat.${id}`, "1");
        navigate(humans[0].invite);
      } })]) : h("p", {}, [h("a", { href: res.spectate, "data-link": "", text: t("Watch the bots play") })]),
    ]));
    // shown above the list, so the list's refreshes (a new row, a table gone) never move its
    // buttons under the pointer; scrolled to, since "Create" is pressed below the list
    created.scrollIntoView({ block: "nearest" });
  }

  const timer = setInterval(tables.load, 5000);
  const offMe = online.onMeChange(() => { tables.load(); refreshSeats(); onlineBox.hidden = !online.me.supported; });
  cleanup = () => { clearInterval(timer); tables.stop(); offMe(); };
}

// -- play page ----------------------------------------------------------------
async function playPage(tableId) {
  // Remember a token given in the link (#token=…), keep it in the address so a reload works.
  const hashToken = new URLSearchParams(location.hash.slice(1)).get("token");
  let token = hashToken || null;
  const held = tokensOf(tableId);
  if (!token) {
    const seats = Object.keys(held);
    if (seats.length) token = held[seats[0]];
  }
  let hotseat = localStorage.getItem(`gt.hotseat.${tableId}`) === "1";
  let ws = null;
  let msg = null;
  let log = [];
  let pending = false;
  let actedDecision = null;
  let closed = false;
  let mod = generic;
  let retry = 0;
  let retryTimer = null;
  let connected = false;
  let gone = false;
  let lastHeard = 0;
  let wasMyTurn = null;      // null until the first state: no "your turn" signal on arrival
  let rematch = null;        // {table, token} once a rematch table exists
  let wantRematch = false;   // this browser proposed or accepted it: follow it there
  let tableAt = Date.now();  // when msg.table arrived (a rematch proposal's time left counts from it)
  let invites = null;        // the host's invite links (GET /invites), once fetched
  let undoSent = false;
  let chatOpened = false;
  let leaving = false;
  let botLevels = null;      // GET /api/bots: the levels for the host's "start with bots" picker
  online.botInfo().then((info) => { botLevels = info; if (msg && msg.table.status === "waiting") drawWaiting(); }).catch(() => {});

  const hints = hintBox({ tableId, token: () => token, act: (e) => act(e) });
  const banner = online.connectionBanner();
  const clocks = online.clockStrip();
  const promptBar = h("div", { class: "prompt-bar", id: "prompt", "aria-live": "polite" });
  const lastMove = h("div", { class: "last-move muted", id: "last-move" });
  const board = h("div", { class: "board", id: "board", tabindex: "-1" });
  focusRing(board);
  const waitRoom = h("section", { class: "panel waiting-room", id: "waiting-room", hidden: "" });
  // layout: on a phone (see narrowScreen) the choices come right under the board and the log starts folded
  const seatsBox = h("div", { class: "seats-body" });
  const seatsPanel = h("details", { class: "panel seats fold", id: "seats", open: "" }, [h("summary", { class: "fold-title", text: t("Seats") }), seatsBox]);
  const actionsBox = h("details", { class: "panel actions fold", id: "actions", open: "" });
  const resultBox = h("section", { class: "panel result", id: "result", hidden: "" });
  const logBox = h("ol", { class: "log", id: "log" });
  const logPanel = h("details", { class: "panel log-panel fold", id: "log-panel", open: narrowScreen() ? false : "" }, [h("summary", { class: "fold-title", text: t("Game log") }), logBox]);
  const chat = online.chatPanel(sendChat, { open: !narrowScreen() });
  const title = h("h2", { class: "table-title" });
  // a table whose creator chose the seed says so to everyone (they may know the hidden cards)
  const seedNote = h("p", { class: "seed-note", id: "seed-note", role: "note", hidden: "" });
  const playEl = h("div", { class: "play" }, [
    // the banner, the prompt and the clocks stay in sight together while you scroll (phones)
    h("div", { class: "board-col" }, [title, seedNote, h("div", { class: "table-top" }, [banner.el, promptBar, clocks.el]), lastMove, waitRoom, board]),
    h("aside", { class: "side" }, [seatsPanel, resultBox, actionsBox, chat.el, logPanel]),
    chat.toast, // online.js: a message out of sight pops up at the bottom
  ]);
  app.replaceChildren(playEl);

  let info;
  try { info = await api(`/api/tables/${tableId}`); } catch (err) {
    if (err.status !== 404 && err.status !== 410) throw err;
    // a clear message when the table is gone (expired, removed, or a wrong address)
    document.title = t("Table gone — gemtable");
    document.body.dataset.gone = "1";
    app.replaceChildren(h("section", { class: "panel table-gone", id: "table-gone" }, [
      h("h2", { text: t("This table is gone") }),
      h("p", { text: err.status === 404 ? t("There is no table at this address: it may have expired before it started, or the link is wrong.") : err.message }),
      h("p", {}, [h("a", { href: "/", "data-link": "", class: "button", text: t("Back to the lobby") }), " ",
        online.me.supported ? h("a", { href: "/me", "data-link": "", class: "button", text: t("My games") }) : null]),
    ]));
    cleanup = () => { delete document.body.dataset.gone; };
    return;
  }
  mod = await rendererFor(info.game);
  document.title = `${online.tableTitle(info)} — gemtable`;
  title.replaceChildren(gameLink(gamesById[info.game] || { id: info.game, title: info.title }), h("span", { class: "muted", text: " · " + t("table {id}", { id: tableId }) }), howToPlayButton(info.game));
  // resume from any browser: the player of this browser (cookie) gets its seat's key from the server
  if (!token && online.me.player) {
    try {
      const s = await api(`/api/tables/${tableId}/seat`);
      if (s && s.token) { saveToken(tableId, s.seat, s.token); token = s.token; }
    } catch { /* no seat here: watch */ }
  }

  // -- the connection: banner, exponential backoff, actions off while offline -------------
  function setOnline(on) {
    connected = on;
    document.body.dataset.online = on ? "1" : "0";
    playEl.classList.toggle("offline", !on);
    for (const b of playEl.querySelectorAll("button.action, #undo, #take-seat, #rematch, .rematch-box button, #resign, .waiting-room button.needs-net")) b.disabled = !on;
    chat.setEnabled(on && chatAllowed(), on ? t("The host muted spectators") : t("Offline: chat comes back with the connection"));
    if (on) banner.online();
  }
  function dropSocket() {
    if (!ws) return;
    const old = ws;
    ws = null;
    old.onclose = null; old.onmessage = null;
    try { old.close(); } catch { /* already closed */ }
  }
  function scheduleRetry(ev) {
    if (closed || gone) return;
    clearTimeout(retryTimer);
    retry += 1;
    // 4429: too many messages (or refused tokens); 4408: this connection fell behind
    const slow = ev && (ev.code === 4429 || ev.code === 4408);
    if (slow && ev.reason) toast(i18n.lang === "en" ? t("Connection reset: {reason}", { reason: ev.reason }) : t("Connection reset."));
    const delay = Math.min(30, (slow ? 5 : 0.5) * 2 ** (retry - 1)) * (0.85 + Math.random() * 0.3);
    banner.offline(delay, () => { retry = 0; connect(); }, navigator.onLine === false ? t("You are offline") : t("Connection lost"));
    retryTimer = setTimeout(connect, delay * 1000);
  }
  function tableGone(text) {
    gone = true;
    clearTimeout(retryTimer);
    dropSocket();
    setOnline(false);
    banner.gone(text);
    promptBar.textContent = text;
    promptBar.className = "prompt-bar error";
    document.body.dataset.gone = "1";
  }
  function connect() {
    if (closed || gone) return;
    clearTimeout(retryTimer);
    dropSocket();
    if (retry) banner.reconnecting();
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the seat token travels as a subprotocol, so it never appears in a URL or a log
    let sock;
    try { sock = new WebSocket(`${proto}://${location.host}/ws/tables/${tableId}`, token ? ["gemtable", `token.${token}`] : ["gemtable"]); } catch { scheduleRetry(); return; }
    ws = sock;
    sock.onmessage = (ev) => {
      lastHeard = Date.now();
      let data;
      try { data = JSON.parse(ev.data); } catch { return; }
      if (data.type === "state") onState(data);
      else if (data.type === "presence") {
        if (msg) {
          const before = msg.table.status;
          msg.table = data.table;
          tableAt = Date.now();
          // a finished table's presence carries the rematch proposal: the result panel shows it
          if (before !== data.table.status || data.table.status === "finished") draw(); else { if (data.table.status === "waiting") drawWaiting(); drawSeats(); }
        }
      }
      else if (data.type === "chat") { if (data.line) chat.add(data.line); }
      else if (data.type === "chat_hidden") chat.hide(data.id, data.line);
      else if (data.type === "rematch") onRematch(data);
      else if (data.type === "pong") { /* heartbeat */ }
      else if (data.type === "error") {
        pending = false; undoSent = false; board.classList.remove("busy");
        if (data.code === "no_table" || data.code === "gone") tableGone(data.message || t("This table is gone."));
        else if (data.code !== "bad_token") toast(data.message);
        if (msg) draw();
      }
    };
    sock.onopen = () => { retry = 0; pending = false; lastHeard = Date.now(); setOnline(true); };
    sock.onclose = (ev) => {
      if (sock !== ws || closed) return;
      ws = null;
      setOnline(false);
      // a close reason is English (a WebSocket close frame carries a short ASCII text): another
      // language shows its own sentence for the code instead
      const said = (fallback) => (i18n.lang === "en" && ev.reason ? ev.reason : fallback);
      if (ev.code === 4404 || ev.code === 4410) { tableGone(ev.code === 4404 ? t("This table is gone: it expired or never existed.") : said(t("This table is gone."))); return; }
      if (ev.code === 4403 && token) {
        // this seat's key is refused (the host removed you, or the link is wrong): watch instead
        toast(said(t("Your seat's key is not valid here any more: you are watching.")));
        localStorage.removeItem(`gt.tokens.${tableId}`);
        token = null;
        history.replaceState({}, "", `/table/${tableId}`);
        connect();
        return;
      }
      if (ev.code === 4400) { tableGone(said(t("This table cannot be opened."))); return; }
      if (ev.code === 4451) { tableGone(said(t("You are banned from this site."))); return; } // moderation.js
      scheduleRetry(ev);
    };
  }
  // a connection that went quiet (a dead network does not always close the socket) is replaced
  const heartbeat = setInterval(() => {
    if (!ws || ws.readyState !== 1) return;
    if (Date.now() - lastHeard > 45000) { dropSocket(); setOnline(false); scheduleRetry(); return; }
    try { ws.send(JSON.stringify({ type: "ping" })); } catch { /* closing */ }
  }, 20000);
  const wentOffline = () => { if (closed || gone) return; dropSocket(); setOnline(false); scheduleRetry(); };
  const cameOnline = () => { if (closed || gone) return; if (!connected) { retry = 0; connect(); } };
  window.addEventListener("offline", wentOffline);
  window.addEventListener("online", cameOnline);

  function send(data) {
    if (!ws || ws.readyState !== 1) { toast(t("Offline: wait for the connection to come back.")); return false; }
    ws.send(JSON.stringify(data));
    return true;
  }
  function chatAllowed() {
    if (!msg) return true;
    const t = msg.table;
    const muted = t.mute_spectators ?? t.spectators_muted ?? msg.spectators_muted ?? false;
    return !(muted && msg.seat === null);
  }
  function sendChat(text) { return send({ type: "chat", text }); }

  let handoff = null; // hotseat: the seat the screen is being passed to (its view stays hidden until confirmed)

  function switchTo(newToken, passTo = null) {
    if (newToken === token) return;
    handoff = passTo;
    token = newToken;
    history.replaceState({}, "", `/table/${tableId}#token=${token}`);
    dropSocket();
    msg = null;
    // nothing of the previous seat stays on screen (or clickable) while switching
    board.replaceChildren(h("p", { class: "muted", text: t("Switching seats…") }));
    actionsBox.replaceChildren();
    actionsBox.hidden = true;
    logBox.replaceChildren();
    delete document.body.dataset.seat;
    connect();
  }

  function onState(data) {
    // an answer stays pending until the server shows our decision was taken
    pending = pending && !data.over && data.decision_version === actedDecision;
    undoSent = false;
    if (!pending) board.classList.remove("busy");
    if (data.seat !== null && data.seat !== undefined && token) saveToken(tableId, data.seat, token);
    if (data.log_reset) log = data.log.slice(); else log.push(...data.log);
    if (Array.isArray(data.chat)) chat.reset(data.chat);
    chat.setSeat(data.seat);
    msg = data;
    tableAt = Date.now();
    document.body.dataset.version = String(data.version);
    document.body.dataset.over = data.over ? "1" : "0";
    document.body.dataset.seat = data.seat === null ? "" : String(data.seat);
    document.body.dataset.status = data.table.status || "";
    // hotseat: hand the screen to the next seat this browser holds
    const mine = tokensOf(tableId);
    if (hotseat && !data.over && data.seat !== null && !data.to_move.includes(data.seat)) {
      const next = data.to_move.find((p) => mine[p] && data.table.seats[p].kind === "human");
      if (next !== undefined) { switchTo(mine[next], next); return; }
    }
    draw();
    setOnline(connected);
  }

  function act(entry) {
    if (pending || !msg || !connected || !ws || ws.readyState !== 1) return;
    // a move chosen from the list of choices by keyboard: focus goes to the board (the list is redrawn)
    if (actionsBox.contains(document.activeElement)) board.focus({ preventScroll: true });
    pending = true;
    actedDecision = msg.decision_version;
    board.classList.add("busy");
    ws.send(JSON.stringify({ type: "action", version: msg.version, action: entry.json }));
  }

  // "why not?": a tapped board thing that is not a legal move (svg.js explainable) is answered
  // with the engine's reason, asked of the server for this seat (POST /why, from its view only)
  async function why(json) {
    if (!msg || !token || pending) return;
    try {
      const res = await api(`/api/tables/${tableId}/why`, { method: "POST", body: { action: json }, headers: seatHeaders() });
      if (res && res.reason) toast(res.reason, "why");
    } catch (err) { toast(err.message); }
  }

  function names() { return msg.table.seats.map((s) => s.player || s.name); }
  function isHost() {
    if (!msg) return false;
    if (typeof msg.is_host === "boolean") return msg.is_host;
    if (typeof msg.host === "boolean") return msg.host;
    const t = msg.table;
    if (msg.seat === null || t.host === undefined || t.host === null) return false;
    return t.host === msg.seat || t.host === t.seats[msg.seat].name || t.host === t.seats[msg.seat].player;
  }

  // -- the host's invite links: shown again at any time ------------------------------------
  async function loadInvites() {
    try {
      const res = await api(`/api/tables/${tableId}/invites`, { headers: seatHeaders() });
      invites = res.seats || [];
    } catch (err) {
      invites = null;
      toast(err.message);
    }
    return invites;
  }
  function inviteRows(list) {
    return (list || []).filter((s) => s.token && s.seat !== msg.seat).map((s) => {
      const url = `${location.origin}/table/${tableId}#token=${s.token}`;
      const input = h("input", { class: "invite", readonly: "", value: url, "data-seat": s.seat, "aria-label": t("Invite link for seat {n}", { n: s.seat + 1 }) });
      return h("div", { class: "invite-row" }, [
        h("b", { text: s.name || t("Seat {n}", { n: s.seat + 1 }) }), input,
        h("button", { type: "button", text: t("Copy"), onclick: () => { input.select(); (navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject()).then(() => toast(t("Link copied"), "ok"), () => {}); } }),
      ]);
    });
  }
  async function showInvitesDialog() {
    const list = await loadInvites();
    const rows = inviteRows(list);
    const close = h("button", { type: "button", class: "dlg-close", "aria-label": t("Close"), text: "✕" });
    const dlg = h("dialog", { class: "account-dialog invites-dialog", id: "invites-dialog", "aria-labelledby": "invites-title" }, [
      h("div", { class: "dlg-head" }, [h("h2", { id: "invites-title", text: t("Invite links") }), close]),
      h("div", { class: "account-body" }, rows.length ? [h("p", { class: "muted", text: t("Each link holds its seat's secret key: send it only to that person.") }), ...rows] : [h("p", { text: t("No other seat has an invite link.") })]),
    ]);
    close.addEventListener("click", () => dlg.close());
    dlg.addEventListener("close", () => dlg.remove());
    app.appendChild(dlg);
    dlg.showModal();
  }

  // -- the waiting room: seats, join, leave; the host starts, removes, invites -------------------
  // the host is known by the cookie's player or by the host seat's key (sent in a header, never in the URL)
  function seatHeaders() { return { "Content-Type": "application/json", ...(token ? { "X-Seat-Token": token } : {}) }; }
  async function post(path, body = {}) {
    try { return await api(`/api/tables/${tableId}/${path}`, { method: "POST", body, headers: seatHeaders() }); } catch (err) { toast(err.message); return null; }
  }
  function drawWaiting() {
    const tb = msg.table;
    if (msg.seat !== null && tb.seats[msg.seat].open && token && !leaving) {
      // my seat is open again: the host removed me (my key no longer works): watch from here
      toast(t("The host removed you from this table."));
      localStorage.removeItem(`gt.tokens.${tableId}`);
      token = null;
      history.replaceState({}, "", `/table/${tableId}`);
      retry = 0;
      connect();
      return;
    }
    const host = isHost();
    const open = tb.seats.filter((s) => s.open).length;
    // the levels, easiest first, with their ratings in this game when it has some (GET /api/bots)
    const levels = botLevels ? Object.keys(botLevels.levels) : [];
    const chosen = document.getElementById("start-bots");
    const botSel = h("select", { id: "start-bots", "aria-label": t("Bots for the empty seats") }, levels.map((l) => h("option", { value: l, text: online.levelLabel(l, online.levelRating(botLevels, tb.game, l), open !== 1) })));
    botSel.value = chosen && levels.includes(chosen.value) ? chosen.value : levels.includes("medium") ? "medium" : (levels[0] || "");
    const seatLi = (s) => {
      const you = msg.seat === s.seat;
      const who = s.open ? t("Open seat") : (s.player || s.name);
      const buttons = [];
      if (host && !you && s.player && s.kind !== "bot") buttons.push(h("button", { type: "button", class: "small kick needs-net", "data-kick": s.seat, text: t("Remove"), title: t("Remove {name} from the table", { name: who }), onclick: async () => { if (await post("kick", { seat: s.seat })) toast(t("{name} removed", { name: who }), "ok"); } }));
      if (s.open && msg.seat === null) buttons.push(h("button", { type: "button", class: "primary sit needs-net", "data-sit": s.seat, text: t("Sit here"), onclick: () => sitDown(s.seat) }));
      return h("li", { class: `wait-seat${you ? " you" : ""}${s.open ? " open" : ""}`, "data-seat": s.seat }, [
        h("span", { class: "seat-no", text: t("Seat {n}", { n: s.seat + 1 }) }),
        h("span", { class: "seat-name", text: you ? t("{name} (you)", { name: who }) : who }),
        s.kind === "bot" ? h("span", { class: "badge", text: t("bot · {level}", { level: online.levelName(s.bot) }) }) : null,
        (tb.host !== undefined && (tb.host === s.seat || tb.host === s.name)) ? h("span", { class: "badge host", text: t("host") }) : null,
        !s.open && s.kind !== "bot" ? h("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? t("here") : t("not here") }) : null,
        ...buttons,
      ]);
    };
    const invitesBox = h("div", { class: "invites", id: "invites" });
    waitRoom.replaceChildren(...[
      h("h2", { text: t("Waiting room") }),
      h("p", { class: "muted", text: [online.clockLabel(tb.clock), tb.private ? t("private: invite links only") : t("listed in the lobby"), open ? tn("{n} open seat", "{n} open seats", open) : t("every seat is taken")].join(" · ") }),
      h("ul", { class: "wait-seats" }, tb.seats.map(seatLi)),
      host ? h("div", { class: "start-row" }, [
        h("button", { type: "button", class: "primary needs-net", id: "start", text: open ? t("Start now") : t("Start"), onclick: () => post("start", botSel.value ? { bots: botSel.value } : {}) }),
        open && levels.length ? botSel : null,
        open ? h("span", { class: "muted", text: t("Empty seats get bots.") }) : null,
      ]) : msg.seat !== null && tb.seats[msg.seat].player ? h("p", { class: "start-row" }, [h("span", { class: "muted", text: t("You have a seat: wait for the others, chat meanwhile.") + " " }),
        h("button", { type: "button", class: "needs-net", id: "leave", text: t("Leave the table"), onclick: async () => {
          leaving = true;
          if (await post("leave")) { localStorage.removeItem(`gt.tokens.${tableId}`); navigate("/"); } else leaving = false;
        } })]) : null,
      host ? invitesBox : null,
      community.inviteBox(tableId, tb, msg.seat !== null && Boolean(tb.seats[msg.seat].player)),
    ].filter(Boolean));
    if (host) {
      const fill = (list) => { const rows = inviteRows(list); invitesBox.replaceChildren(...(rows.length ? [h("h3", { text: t("Invite links") }), h("p", { class: "muted", text: t("Each link holds its seat's secret key: send it only to that person.") }), ...rows] : [])); };
      if (invites) fill(invites); else loadInvites().then(fill);
    }
  }
  async function sitDown(seat) {
    if (!(await online.ensureName(t("Pick a name to sit down: the other players see it.")))) return;
    const res = await post("join", seat === undefined ? {} : { seat });
    if (!res) return;
    saveToken(tableId, res.seat, res.token);
    retry = 0;
    switchTo(res.token);
  }

  // -- rematch: a proposal the other players accept, decline or let expire ----------------------
  function onRematch(data) {
    rematch = { table: data.table, token: data.token || null };
    if (rematch.token && data.seat !== undefined && data.seat !== null) saveToken(rematch.table, data.seat, rematch.token);
    // this browser said yes (now, or before a reload: its seat accepted the proposal): go there
    const p = msg && msg.table.rematch_proposal;
    if (wantRematch || (p && msg.seat !== null && p.yes.includes(msg.seat))) { wantRematch = true; followRematch(rematch.table); return; }
    if (msg) draw();
  }
  let following = false;
  async function followRematch(newId) {
    if (following) return;
    following = true;
    // every seat this screen held (hotseat) is given its seat at the new table (the seats move round)
    const held = Object.values(tokensOf(tableId));
    for (const tok of held) {
      try {
        const more = await api(`/api/tables/${tableId}/rematch`, { method: "POST", body: {}, headers: { "Content-Type": "application/json", "X-Seat-Token": tok } });
        if (more.table === newId && more.token) saveToken(newId, more.seat, more.token);
      } catch { /* that seat stays behind */ }
    }
    if (held.length > 1 && hotseat) localStorage.setItem(`gt.hotseat.${newId}`, "1");
    navigate(`/table/${newId}`);
  }
  async function askRematch(answer) {
    if (answer !== "decline") wantRematch = true;
    let res = await post("rematch", { answer });
    if (!res) { wantRematch = false; return; }
    // hotseat: the other seats of this screen accept too
    if (!res.table && answer !== "decline") {
      for (const tok of Object.values(tokensOf(tableId)).filter((k) => k !== token)) {
        try { res = await api(`/api/tables/${tableId}/rematch`, { method: "POST", body: { answer: "accept" }, headers: { "Content-Type": "application/json", "X-Seat-Token": tok } }); } catch { /* not that seat's turn to answer */ }
        if (res && res.table) break;
      }
    }
    if (res && res.table) { followRematch(res.table); return; }
    if (answer === "decline") wantRematch = false;
    if (res && res.proposal && msg) { msg.table = { ...msg.table, rematch_proposal: res.proposal }; tableAt = Date.now(); draw(); }
  }
  function proposalLeft(p) { return Math.max(0, p.left - (Date.now() - tableAt)); }
  function mmss(ms) { const sec = Math.ceil(ms / 1000); return `${Math.floor(sec / 60)}:${String(sec % 60).padStart(2, "0")}`; }
  // the time left on an open proposal counts down on screen; at zero it has expired
  const proposalTimer = setInterval(() => {
    const p = msg && msg.over && msg.table.rematch_proposal;
    if (!p || p.state !== "open") return;
    const left = proposalLeft(p);
    const el = document.getElementById("rematch-left");
    if (el) el.textContent = mmss(left);
    if (left <= 0) { msg.table.rematch_proposal = { ...p, state: "expired", left: 0 }; wantRematch = false; draw(); }
  }, 1000);
  function rematchBox(nm) {
    if (msg.seat === null) return null;
    if (rematch && !wantRematch) return null; // "go to the new table" is offered instead
    const p = msg.table.rematch_proposal;
    const open = p && p.state === "open" && proposalLeft(p) > 0;
    const who = (list) => andList(list.map((q) => nm[q]));
    let parts;
    if (open && p.waiting.includes(msg.seat)) {
      parts = [h("p", { id: "rematch-offer" }, [h("b", { text: t("{name} proposes a rematch.", { name: nm[p.by] }) }), " " + t("The seats move round one place.") + " ", h("span", { class: "muted" }, [t("Answer within") + " ", h("span", { id: "rematch-left", text: mmss(proposalLeft(p)) })])]),
        h("p", { class: "result-links" }, [
          h("button", { type: "button", class: "primary", id: "rematch-accept", text: t("Accept the rematch"), onclick: () => askRematch("accept") }),
          h("button", { type: "button", id: "rematch-decline", text: t("Decline"), onclick: () => askRematch("decline") })])];
    } else if (open) {
      parts = [h("p", { id: "rematch-wait" }, [h("b", { text: p.by === msg.seat ? t("You proposed a rematch.") : t("{name} proposed a rematch; you accepted.", { name: nm[p.by] }) }), " " + t("Waiting for {names}", { names: who(p.waiting) }) + " · ", h("span", { id: "rematch-left", text: mmss(proposalLeft(p)) })]),
        h("p", { class: "result-links" }, [h("button", { type: "button", id: "rematch-withdraw", text: p.by === msg.seat ? t("Withdraw") : t("Decline after all"), onclick: () => askRematch("decline") })])];
    } else {
      const said = p && p.state === "declined" ? (p.no === p.by ? t("{name} withdrew the rematch proposal.", { name: nm[p.no] }) : t("{name} declined the rematch.", { name: nm[p.no] })) : p && p.state !== "accepted" ? t("The rematch proposal expired.") : null;
      parts = [said ? h("p", { class: "muted", id: "rematch-status", text: said }) : null,
        h("p", { class: "result-links" }, [h("button", { type: "button", class: "primary", id: "rematch", text: t("Propose a rematch"), title: t("The others accept or decline; the seats move round one place, new deal"), onclick: () => askRematch("propose") })])];
    }
    return h("div", { class: "rematch-box", id: "rematch-box" }, parts.filter(Boolean));
  }

  // -- resigning: confirmed first ------------------------------------------------------------------
  function confirmResign() {
    const tb = msg.table;
    const ends = tb.seats.filter((s) => s.seat !== msg.seat && !s.resigned).length <= 1;
    const close = h("button", { type: "button", class: "dlg-close", "aria-label": t("Close"), text: "✕" });
    const yes = h("button", { type: "button", class: "danger", id: "resign-yes", text: t("Resign") });
    const no = h("button", { type: "button", class: "primary", id: "resign-no", text: t("Keep playing") });
    const dlg = h("dialog", { class: "account-dialog resign-dialog", id: "resign-dialog", "aria-labelledby": "resign-title" }, [
      h("div", { class: "dlg-head" }, [h("h2", { id: "resign-title", text: t("Resign this game?") }), close]),
      h("div", { class: "account-body" }, [
        h("p", { text: ends ? t("You take the last place and the game ends now.") : t("You take the last place. A bot plays your seat to the end and the others play on.") }),
        h("p", { class: "muted", text: t("The result counts for ratings, and you cannot take the seat back.") }),
        h("p", { class: "dlg-buttons" }, [no, yes]),
      ]),
    ]);
    for (const b of [close, no]) b.addEventListener("click", () => dlg.close());
    yes.addEventListener("click", async () => { yes.disabled = true; dlg.close(); await post("resign"); });
    dlg.addEventListener("close", () => dlg.remove());
    app.appendChild(dlg);
    dlg.showModal();
    no.focus();
  }

  function drawSeats() {
    const tb = msg.table;
    const view = msg.view || {};
    const scores = (msg.result && msg.result.scores) || view.scores || null;
    const mine = tokensOf(tableId);
    const nm = names();
    seatsBox.replaceChildren(h("ul", { class: "seat-list" }, tb.seats.map((s) => {
      const moving = msg.to_move.includes(s.seat);
      const you = msg.seat === s.seat;
      const canSwitch = mine[s.seat] && !you;
      return h("li", { class: `seat-item${moving ? " moving" : ""}${you ? " you" : ""}${s.away ? " away" : ""}`, "data-seat": s.seat }, [
        h("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? t("connected") : t("not connected") }),
        s.player && !s.away ? h("a", { class: "seat-name", href: `/players/${encodeURIComponent(s.player)}`, "data-link": "", text: you ? t("{name} (you)", { name: nm[s.seat] }) : nm[s.seat] }) : h("span", { class: "seat-name", text: you ? t("{name} (you)", { name: nm[s.seat] }) : nm[s.seat] }),
        s.kind === "bot" ? h("span", { class: "badge", text: t("bot · {level}", { level: online.levelName(s.bot) }) }) : null,
        s.away ? h("span", { class: "badge away", text: s.resigned ? t("resigned: a bot plays") : t("away: a bot plays"), title: s.resigned ? t("This player resigned: a bot plays the seat to the end") : t("Out of time or disconnected: a bot plays this seat until its player takes it back") }) : null,
        scores ? h("span", { class: "score", text: String(scores[s.seat]) }) : null,
        canSwitch ? h("button", { class: "small", text: t("play"), title: t("Switch to this seat (hotseat)"), onclick: () => switchTo(mine[s.seat]) }) : null,
        canSwitch ? h("button", { class: "small", text: t("link"), title: t("Copy this seat's invite link"), onclick: () => {
          const url = `${location.origin}/table/${tableId}#token=${mine[s.seat]}`;
          (navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject()).then(() => toast(t("Invite link copied"), "ok"), () => toast(url, "ok"));
        } }) : null,
      ]);
    })));
    if (Object.keys(mine).length > 1) {
      const box = h("input", { type: "checkbox", id: "hotseat-toggle" });
      box.checked = hotseat;
      box.addEventListener("change", () => { hotseat = box.checked; localStorage.setItem(`gt.hotseat.${tableId}`, hotseat ? "1" : "0"); if (hotseat && msg) onState({ ...msg, log: [], log_reset: false }); });
      seatsBox.appendChild(h("label", { class: "toggle" }, [box, " " + t("hotseat: follow the seat to move")]));
    }
    if (msg.seat !== null && !msg.over && tb.status === "running" && !tb.seats[msg.seat].resigned) seatsBox.appendChild(h("p", { class: "resign-row" }, [h("button", { type: "button", id: "resign", text: t("Resign"), title: t("Give up this game: you take the last place (you are asked first)"), onclick: confirmResign })]));
    // invite links exist only for the other people's seats: none at a table of you and bots
    const others = tb.seats.some((s) => s.kind === "human" && s.seat !== msg.seat);
    if (isHost() && !msg.over && others) seatsBox.appendChild(h("p", {}, [h("button", { type: "button", id: "show-invites", text: t("Invite links"), onclick: showInvitesDialog })]));
    if (msg.seat === null) seatsBox.appendChild(h("p", { class: "muted", text: t("You are watching. Open a seat's invite link to play it.") }));
    chat.setMute(isHost(), tb.mute_spectators ?? tb.spectators_muted ?? false, (on) => send({ type: "mute_spectators", on }));
    chat.setEnabled(connected && chatAllowed(), connected ? t("The host muted spectators") : t("Offline: chat comes back with the connection"));
  }

  function draw() {
    if (!msg) return;
    const tb = msg.table;
    const nm = names();
    const waiting = tb.status === "waiting";
    if (tb.rematch && !rematch) rematch = { table: tb.rematch, token: null };
    waitRoom.hidden = !waiting;
    board.hidden = waiting;
    seatsPanel.hidden = waiting;
    logPanel.hidden = waiting;
    // prompt
    promptBar.className = "prompt-bar";
    const myTurn = !!(msg.prompt && !msg.over && !waiting);
    if (msg.over) {
      const r = msg.result;
      promptBar.replaceChildren(h("span", { text: r && r.winners ? (r.winners.length > 1 ? t("Game over: shared win for {names}.", { names: andList(r.winners.map((p) => nm[p])) }) : t("Game over: {name} wins.", { name: nm[r.winners[0]] })) : t("Game over.") }));
      promptBar.classList.add("over");
      // the result and the rematch sit beside the board (under it on a phone): a way there from the prompt
      if (rematch && !wantRematch && msg.seat !== null) promptBar.appendChild(h("button", { type: "button", class: "primary", id: "rematch-top", text: t("Go to the rematch"), onclick: () => navigate(`/table/${rematch.table}`) }));
      else {
        // a rematch proposed to this seat is said in the prompt too (in sight on a phone)
        const prop = tb.rematch_proposal;
        const asked = !!(prop && prop.state === "open" && msg.seat !== null && prop.waiting.includes(msg.seat));
        if (narrowScreen() || asked) promptBar.appendChild(h("button", { type: "button", id: "to-result", class: asked ? "primary" : null, text: asked ? t("{name} proposes a rematch: answer", { name: nm[prop.by] }) : msg.seat !== null ? t("Result · rematch") : t("Result"), onclick: () => resultBox.scrollIntoView({ behavior: "smooth", block: "start" }) }));
      }
    } else if (waiting) {
      promptBar.textContent = msg.waiting_prompt || t("Waiting for players.");
    } else if (msg.prompt) {
      promptBar.replaceChildren(h("b", { text: `${nm[msg.seat]}: ` }), msg.prompt);
      promptBar.classList.add("yours");
    } else {
      const bots = msg.to_move.filter((p) => tb.seats[p].kind === "bot");
      promptBar.textContent = bots.length === msg.to_move.length && bots.length
        ? tn("{names} is thinking…", "{names} are thinking…", bots.length, { names: andList(bots.map((p) => nm[p])) })
        : (msg.waiting_prompt || "");
    }
    // your seat is played by a bot (out of time or away too long): take it back
    const mySeat = msg.seat !== null ? tb.seats[msg.seat] : null;
    const awayMe = !!(mySeat && mySeat.away && !msg.over);
    if (awayMe && mySeat.resigned) {
      promptBar.replaceChildren(h("span", { text: t("You resigned: a bot plays your seat to the end.") }));
      promptBar.classList.add("away");
    } else if (awayMe) {
      promptBar.replaceChildren(h("span", { text: t("A bot is playing your seat while you were away.") + " " }),
        h("button", { type: "button", class: "primary", id: "take-seat", text: t("Take my seat back"), onclick: () => send({ type: "take_seat" }) }));
      promptBar.classList.add("away");
    } else if (msg.can_undo && !msg.over) {
      promptBar.appendChild(h("button", { type: "button", class: "undo", id: "undo", text: t("↶ Undo"), title: t("Take back your last move (possible until something hidden is shown or something is drawn)"), disabled: undoSent ? "" : null, onclick: (e) => {
        if (undoSent) return;
        if (send({ type: "undo" })) { undoSent = true; e.currentTarget.disabled = true; }
      } }));
    }
    seedNote.hidden = !tb.seed_fixed;
    seedNote.textContent = tb.seed_fixed ? online.seedNoteText(tb.seed_note) : "";
    const last = log.length ? log[log.length - 1] : null;
    lastMove.textContent = last && !waiting ? t("Last: {text}", { text: last.text }) : "";
    // your turn: the tab title says so (and a sound, when that setting is on)
    const named = waiting ? t("Waiting room: {title}", { title: online.tableTitle(tb) }) : online.tableTitle(tb);
    document.title = (myTurn ? t("● Your turn — {title}", { title: named }) : named) + " — gemtable";
    if (myTurn && wasMyTurn === false && !hotseat) online.chime();
    wasMyTurn = myTurn;
    document.body.dataset.myTurn = myTurn ? "1" : "0";
    // clocks
    const clock = msg.clock || (tb.clock && tb.clock.remaining ? tb.clock : null);
    clocks.update(waiting ? null : clock, nm, msg.seat, tb.seats.map((s) => !!s.away));
    drawSeats();
    if (waiting) {
      if (!chatOpened) { chatOpened = true; chat.el.open = true; } // the waiting room is where people talk
      drawWaiting();
      actionsBox.hidden = true;
      actionsBox.replaceChildren();
      resultBox.hidden = true;
      drawLog(logBox, log, msg.seat);
      return;
    }
    // board
    // while a bot plays your seat, nothing is clickable until you take it back
    const legal = awayMe ? [] : msg.legal;
    const ctx = {
      view: msg.view, legal, seat: msg.seat, names: nm, toMove: msg.to_move,
      prompt: msg.prompt, over: msg.over, result: msg.result, patterns: patternsOn(), act, table: tb, mode: "play",
      why: msg.seat !== null && !awayMe ? why : null, confirm: confirmMove,
    };
    if (handoff !== null && handoff === msg.seat && !msg.over) {
      // pass-and-play: hide this seat's private view until its player is at the screen
      board.replaceChildren(h("div", { class: "handoff" }, [
        h("p", { text: t("Pass the screen to {name}.", { name: nm[msg.seat] }) }),
        h("button", { class: "primary", id: "handoff", text: t("I am {name}: show my board", { name: nm[msg.seat] }), onclick: () => { handoff = null; draw(); } }),
      ]));
      actionsBox.hidden = true;
      actionsBox.replaceChildren();
      resultBox.hidden = true;
      logBox.replaceChildren(); // the log may hold this seat's private lines too
      return;
    }
    drawBoard(mod, board, ctx);
    // the list of legal actions (always available; the board highlights the same actions)
    if (legal.length) {
      const groups = new Map();
      for (const e of legal) { if (!groups.has(e.type)) groups.set(e.type, []); groups.get(e.type).push(e); }
      actionsBox.hidden = false;
      actionsBox.replaceChildren(h("summary", { class: "fold-title", text: t("Your choices ({n})", { n: legal.length }) }), ...(msg.hints ? [hints.el(msg)] : []), ...[...groups.entries()].map(([type, list]) =>
        h("div", { class: "action-group" }, [
          // the group's name: the action's type ("take_two" reads "take two"), in another language
          // from the game's catalogue (context "action type": the types are not in the code's texts)
          h("div", { class: "group-name", text: i18n.lang === "en" ? type.replace(/_/g, " ") : i18n.tp("action type", type) }),
          h("div", { class: "action-buttons" }, list.map((e) => h("button", { class: "action", "data-action": JSON.stringify(e.json), text: e.text, onclick: () => act(e) })))])));
    } else {
      actionsBox.hidden = true;
      actionsBox.replaceChildren();
    }
    // result
    if (msg.over && msg.result) {
      const r = msg.result;
      const order = [...nm.keys()].sort((a, b) => r.ranking[a] - r.ranking[b]);
      const notes = seatNotes(r);
      resultBox.hidden = false;
      resultBox.replaceChildren(...[
        h("h3", { text: r.winners.length > 1 ? t("Shared win: {names}", { names: andList(r.winners.map((p) => nm[p])) }) : t("{name} wins", { name: nm[r.winners[0]] }) }),
        h("table", { class: "list result-table" }, [h("tbody", {}, order.map((p) => h("tr", { class: r.winners.includes(p) ? "winner" : "" }, [
          h("td", { text: ordinal(r.ranking[p]) }), h("td", {}, [nm[p], notes[p] ? h("span", { class: "result-note", text: ` · ${notes[p]}` }) : null]), h("td", { class: "num", text: String(r.scores[p]) }),
        ])))]),
        r.tiebreak ? h("p", { class: "tiebreak", text: r.tiebreak }) : null,
        ...fairnessNotes(r, nm),
        rematchBox(nm),
        r.hinted ? h("p", { class: "muted", id: "hinted-note", text: t("Hints were shown in this game: it is not rated.") }) : null,
        h("p", { class: "result-links" }, [
          rematch && !wantRematch ? h("button", { type: "button", class: "primary", id: "rematch-go", text: t("Rematch ready: go to the new table"), onclick: () => navigate(`/table/${rematch.table}`) }) : null,
          h("a", { href: `/replay/${tableId}`, "data-link": "", class: "button", id: "replay-link", text: t("Watch the replay") }),
        ]),
      ].filter(Boolean));
    } else resultBox.hidden = true;
    // log
    drawLog(logBox, log, msg.seat);
  }

  rerender = draw;
  connect();
  cleanup = () => {
    closed = true;
    clearInterval(proposalTimer);
    clearTimeout(retryTimer);
    clearInterval(heartbeat);
    clocks.stop();
    banner.stop();
    window.removeEventListener("offline", wentOffline);
    window.removeEventListener("online", cameOnline);
    dropSocket();
    delete document.body.dataset.online;
    delete document.body.dataset.gone;
  };
}

// what happened at each seat of a finished game, for its row of the result: resigned, left
// (a bot finished), or how many of its moves a stand-in bot made
function seatNotes(r) {
  const notes = {};
  for (const e of r.stand_ins || []) notes[e.seat] = t("a bot played {moves} of {of} moves", { moves: e.moves, of: e.of });
  for (const p of r.abandoned || []) notes[p] = t("left: a bot finished");
  for (const p of r.resigned || []) notes[p] = t("resigned");
  return notes;
}

// the same in sentences under the result, with what it means for ratings (README "Ratings")
function fairnessNotes(r, nm) {
  const out = [];
  const gone = new Set([...(r.resigned || []), ...(r.abandoned || [])]);
  for (const p of r.resigned || []) out.push(t("{name} resigned and takes the last place.", { name: nm[p] }));
  for (const p of r.abandoned || []) out.push(t("{name} left the game and a bot finished it: abandoned, last place.", { name: nm[p] }));
  for (const e of r.stand_ins || []) {
    if (gone.has(e.seat)) continue;
    const said = { moves: e.moves, of: e.of, name: nm[e.seat] };
    out.push((r.unrated || []).includes(e.seat)
      ? t("A bot played {moves} of {of} moves for {name} while they were away: more than one move in five, so {name}'s rating does not change (the others' ratings count as usual).", said)
      : t("A bot played {moves} of {of} moves for {name} while they were away: no more than one move in five, so the game counts for ratings as usual.", said));
  }
  return out.map((text) => h("p", { class: "muted fairness-note", text }));
}

// a place: "1st", "2nd"… (each language writes its own: "1.", "2."…)
function ordinal(n) { return n === 1 ? t("1st") : n === 2 ? t("2nd") : n === 3 ? t("3rd") : t("{n}th", { n }); }

// "A and B", "A and B and C" (names of seats)
function andList(words) { return words.reduce((a, b) => t("{first} and {last}", { first: a, last: b })); }


function drawLog(box, entries, seat, current = null) {
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  box.replaceChildren(...entries.map((e) => h("li", { class: `log-entry${e.seat === seat && seat !== null ? " mine" : ""}${current !== null && e.move === current ? " current" : ""}`, "data-move": e.move }, [
    h("span", { class: "move-no", text: String(e.move + 1) }), e.text,
  ])));
  if (atBottom || current === null) box.scrollTop = box.scrollHeight;
  if (current !== null) {
    // bring the current move into view inside the log box only (scrollIntoView would also
    // scroll the page, which on a phone jumps past the board to the log)
    const cur = box.querySelector(".current");
    if (cur) {
      const c = cur.getBoundingClientRect(), b = box.getBoundingClientRect();
      if (c.top < b.top) box.scrollTop -= b.top - c.top;
      else if (c.bottom > b.bottom) box.scrollTop += c.bottom - b.bottom;
    }
  }
}

// -- replay viewer ----------------------------------------------------------------
async function replayPage(tableId) {
  const data = await api(`/api/tables/${tableId}/replay`);
  const tb = data.table;
  const mod = await rendererFor(tb.game);
  const nm = tb.seats.map((s) => s.name);
  const frames = data.frames;
  let i = frames.length - 1;
  document.title = t("Replay: {title}", { title: online.tableTitle(tb) }) + " — gemtable";
  const board = h("div", { class: "board", id: "board" });
  const counter = h("span", { class: "counter", id: "counter" });
  const slider = h("input", { type: "range", min: 0, max: frames.length - 1, value: i, id: "slider" });
  const logBox = h("ol", { class: "log", id: "log" });
  const btn = (label, id, fn) => h("button", { id, text: label, onclick: fn });
  const controls = h("div", { class: "replay-controls" }, [
    btn(t("« first"), "first", () => go(0)), btn(t("◀ back"), "back", () => go(i - 1)), counter,
    btn(t("forward ▶"), "forward", () => go(i + 1)), btn(t("last »"), "last", () => go(frames.length - 1)), slider,
    btn(t("Try other moves here"), "analyse", () => analysis.start(i)),
  ]);
  slider.addEventListener("input", () => go(Number(slider.value)));
  const r = data.result;
  const summary = h("section", { class: "panel result" }, [
    h("h3", { text: r.winners.length > 1 ? t("Shared win: {names}", { names: andList(r.winners.map((p) => nm[p])) }) : t("{name} won", { name: nm[r.winners[0]] }) }),
    h("table", { class: "list" }, [h("tbody", {}, [...nm.keys()].sort((a, b) => r.ranking[a] - r.ranking[b]).map((p) =>
      h("tr", {}, [h("td", { text: ordinal(r.ranking[p]) }), h("td", { text: nm[p] }), h("td", { class: "num", text: String(r.scores[p]) })])))]),
    r.tiebreak ? h("p", { class: "tiebreak", text: r.tiebreak }) : null,
    h("p", {}, [h("a", { href: `/api/tables/${tableId}/match`, download: `${tb.game}-${tableId}.json`, text: t("Download the match file") })]),
  ]);
  const review = reviewPanel({ tableId, names: nm, go: (n) => go(n) });
  const analysis = analysisPanel({ tableId, names: nm, leave: () => go(i), draw: (ctx) => drawBoard(mod, board,
    { ...ctx, names: nm, patterns: patternsOn(), table: tb, mode: "analysis" }) });
  app.replaceChildren(h("div", { class: "play" }, [
    h("div", { class: "board-col" }, [h("h2", { class: "table-title" }, [t("Replay:") + " ", gameLink(gamesById[tb.game] || { id: tb.game, title: tb.title }), h("span", { class: "muted", text: " · " + t("table {id}", { id: tableId }) })]), controls, analysis.el, board, review.el]),
    h("aside", { class: "side" }, [summary, h("section", { class: "panel log-panel" }, [h("h3", { text: t("Game log") }), logBox])]),
  ]));
  const allLog = frames.flatMap((f) => f.log);
  function go(n) {
    analysis.stop();
    i = Math.max(0, Math.min(frames.length - 1, n));
    slider.value = i;
    counter.textContent = t("move {i} / {n}", { i, n: frames.length - 1 });
    const f = frames[i];
    drawBoard(mod, board, { view: f.view, legal: [], seat: null, names: nm, toMove: f.to_move, prompt: null, over: i === frames.length - 1, result: i === frames.length - 1 ? r : null, patterns: patternsOn(), act: () => {}, table: tb, mode: "replay" });
    drawLog(logBox, allLog.filter((e) => e.move < i), null, i - 1);
    review.mark(i);
  }
  const keys = (e) => { if (analysis.active()) return; if (e.key === "ArrowLeft") go(i - 1); else if (e.key === "ArrowRight") go(i + 1); };
  document.addEventListener("keydown", keys);
  cleanup = () => { document.removeEventListener("keydown", keys); review.stop(); };
  rerender = () => { if (!analysis.active()) go(i); };
  go(i);
}

// -- rules pages ------------------------------------------------------------------
const ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" };
function esc(s) { return s.replace(/[&<>"]/g, (c) => ESC[c]); }
function inline(s) {
  return esc(s)
    .replace(/\x60([^\x60]+)\x60/g, "<code>$1</code>") // (\x60: a backtick, which Babel's extractor would take for a template string)
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\(((?:https?:\/\/|\/|#)[^)\s]*)\)/g, '<a href="$2">$1</a>');
}
export function markdown(src) {
  const out = [];
  const lines = src.replace(/\r/g, "").split("\n");
  let para = [];
  let list = null;
  const flush = () => {
    if (para.length) { out.push(`<p>${inline(para.join(" "))}</p>`); para = []; }
    if (list) { out.push(`<${list.tag}>${list.items.map((x) => `<li>${inline(x)}</li>`).join("")}</${list.tag}>`); list = null; }
  };
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k];
    let m;
    if (/^\x60\x60\x60/.test(line)) {
      flush();
      const code = [];
      for (k++; k < lines.length && !/^\x60\x60\x60/.test(lines[k]); k++) code.push(lines[k]);
      out.push(`<pre><code>${esc(code.join("\n"))}</code></pre>`);
    } else if ((m = line.match(/^(#{1,6})\s+(.*)/))) {
      flush();
      const lvl = Math.min(6, m[1].length + 1);
      out.push(`<h${lvl}>${inline(m[2])}</h${lvl}>`);
    } else if (/^\s*\|.*\|\s*$/.test(line)) {
      flush();
      const rows = [];
      for (; k < lines.length && /^\s*\|.*\|\s*$/.test(lines[k]); k++) rows.push(lines[k]);
      k--;
      const cells = (r) => r.trim().slice(1, -1).split("|").map((c) => c.trim());
      const body = rows.filter((r) => !/^\s*\|[\s:|-]+\|\s*$/.test(r));
      out.push(`<table class="list">${body.map((r, ri) => `<tr>${cells(r).map((c) => ri === 0 ? `<th>${inline(c)}</th>` : `<td>${inline(c)}</td>`).join("")}</tr>`).join("")}</table>`);
    } else if ((m = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)/))) {
      if (para.length) { out.push(`<p>${inline(para.join(" "))}</p>`); para = []; }
      const tag = /\d/.test(m[1]) ? "ol" : "ul";
      if (list && list.tag !== tag) flush();
      if (!list) list = { tag, items: [] };
      list.items.push(m[2]);
    } else if (/^\s*$/.test(line)) {
      flush();
    } else if (list && /^\s+/.test(line)) {
      list.items[list.items.length - 1] += " " + line.trim();
    } else {
      if (list) flush();
      para.push(line.trim());
    }
  }
  flush();
  return out.join("\n");
}

async function rulesPage(gameId) {
  const g = await api(`/api/games/${gameId}`);
  document.title = t("{title}: how to play", { title: g.title }) + " — gemtable";
  const content = howToPlayContent(g, "reconstructed");
  app.replaceChildren(h("article", { class: "panel rules" }, [
    h("h1", { text: t("{title}: how to play", { title: g.title }) }),
    h("p", { class: "muted", text: t("{counts} players.", { counts: g.players.join(", ") }) + " " + (g.owners || "") }),
    content,
    h("p", {}, [h("a", { href: `/?game=${g.id}`, "data-link": "", class: "button", text: t("Start a table of {title}", { title: g.title }) })]),
  ]));
  await drawHowToPlayPicture(g, content);
}

// -- how to play: the players' text with a picture, on its page and over the table ------
// The text is the game's how-to-play for players (served as `rules` by /api/games/<id>);
// the picture is a freshly set-up game drawn read-only by the game's own renderer.
function howToPlayContent(g, flagId = null) {
  const body = h("div", { class: "rules-body" });
  body.innerHTML = markdown(g.rules || g.summary || t("No how-to-play yet."));
  // point at every statement about reconstructed (placeholder) values
  for (const el of body.querySelectorAll("p, li, td")) {
    if (/reconstruct|stand-in|placeholder/i.test(el.textContent) && !el.querySelector("li")) el.classList.add("recon");
  }
  const flag = g.data_status === "reconstructed"
    ? h("p", { class: "warning recon-flag", ...(flagId ? { id: flagId } : {}), text: t("Heads up: some printed values of this game are reconstructed stand-ins, not checked against a physical copy, so they may differ from your copy of the game. The section “Reconstructed values” at the end lists them.") })
    : null;
  return h("div", { class: "how-to-play" }, [flag, body]);
}

async function drawHowToPlayPicture(g, content) {
  // place the picture after the Setup section (before the next heading), else at the top
  const body = content.querySelector(".rules-body");
  const heads = [...body.querySelectorAll("h2, h3")];
  const setup = heads.findIndex((x) => /set ?up/i.test(x.textContent) || x.textContent.trim() === t("Setup"));
  const fig = h("figure", { class: "htp-figure" }, [
    h("div", { class: "board htp-board", role: "img", "aria-label": t("{title}: a freshly set-up game", { title: g.title }) }, [h("p", { class: "muted", text: t("Drawing the table…") })]),
    h("figcaption", { class: "muted" }),
  ]);
  if (setup >= 0 && heads[setup + 1]) body.insertBefore(fig, heads[setup + 1]);
  else body.prepend(fig);
  const board = fig.querySelector(".htp-board");
  try {
    const sample = await api(`/api/games/${g.id}/sample`);
    const mod = await rendererFor(g.id);
    const names = Array.from({ length: sample.players }, (_, p) => t("Player {n}", { n: p + 1 }));
    drawBoard(mod, board, { view: sample.view, legal: [], seat: null, names, toMove: sample.to_move, prompt: null, over: false, result: null, patterns: patternsOn(), act: () => {}, table: null, mode: "replay" });
    fig.querySelector("figcaption").textContent = t("A freshly set-up game for {n} players, as the table draws it.", { n: sample.players });
  } catch (err) {
    fig.remove();
  }
}

function howToPlayButton(gameId) {
  const btn = h("button", { type: "button", class: "small htp-open", id: "how-to-play", text: t("How to play"), "aria-haspopup": "dialog" });
  btn.addEventListener("click", () => openHowToPlay(gameId, btn));
  return btn;
}

async function openHowToPlay(gameId, opener) {
  const old = document.getElementById("htp-dialog");
  if (old) old.remove();
  let g;
  try { g = await api(`/api/games/${gameId}`); } catch (err) { toast(err.message); return; }
  const content = howToPlayContent(g);
  const close = h("button", { type: "button", class: "htp-close", "aria-label": t("Close how to play"), text: t("✕ Close") });
  const heading = h("h2", { id: "htp-title", text: t("{title}: how to play", { title: g.title }) });
  const dlg = h("dialog", { class: "htp-dialog", id: "htp-dialog", "aria-labelledby": "htp-title" }, [
    h("div", { class: "htp-head" }, [heading, close]),
    h("div", { class: "htp-scroll" }, [content]),
  ]);
  close.addEventListener("click", () => dlg.close());
  // a click on the backdrop (outside the dialog box) closes it too
  dlg.addEventListener("click", (e) => { if (e.target === dlg) dlg.close(); });
  // Esc closes the native dialog; put focus back where it was and leave no copy behind
  dlg.addEventListener("close", () => { dlg.remove(); if (opener && opener.isConnected) opener.focus(); });
  app.appendChild(dlg); // inside #app: leaving the table removes it with the page
  dlg.showModal();
  close.focus();
  await drawHowToPlayPicture(g, content);
}

// -- layout: narrow screens ------------------------------------------------------------
// Matches the `@media (max-width: 640px)` section of style.css.
function narrowScreen() { return window.matchMedia("(max-width: 640px)").matches; }

// On a phone the game links and the colour-blind setting sit behind a menu button.
function setupMenu() {
  const bar = document.querySelector(".topbar");
  const button = document.getElementById("menu-button");
  const menu = document.getElementById("menu");
  if (!bar || !button || !menu) return;
  const setOpen = (open) => { bar.classList.toggle("open", open); button.setAttribute("aria-expanded", open ? "true" : "false"); };
  button.addEventListener("click", (e) => { e.stopPropagation(); setOpen(!bar.classList.contains("open")); });
  menu.addEventListener("click", (e) => { if (e.target.closest("a")) setOpen(false); });
  document.addEventListener("click", (e) => { if (!bar.contains(e.target)) setOpen(false); });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") setOpen(false); });
  window.addEventListener("popstate", () => setOpen(false));
}

// -- language ---------------------------------------------------------------------------
// index.html's own words, in the page's language (the shell is the same file for every language)
function translateStatic() {
  const set = (sel, text, attr) => { const el = document.querySelector(sel); if (el) { if (attr) el.setAttribute(attr, text); else el.textContent = text; } };
  const lead = (sel, text) => { const el = document.querySelector(sel); if (el && el.lastChild && el.lastChild.nodeType === 3) el.lastChild.textContent = ` ${text}`; };
  set("#menu-button", t("Menu: games and settings"), "aria-label");
  set('.nav-main a[href="/"]', t("Lobby"));
  set("#nav-me", t("My games"));
  set("#nav-leaderboard", t("Leaderboard"));
  set(".nav-rules .nav-label", t("Rules:"));
  set("#lang-picker", t("Language"), "aria-label");
  lead(".settings label:nth-child(1)", t("colour-blind patterns"));
  set(".settings label:nth-child(1)", t("Draw gem and glass colours with patterns too"), "title");
  lead(".settings label:nth-child(2)", t("sound on my turn"));
  set(".settings label:nth-child(2)", t("Play a short sound when it becomes your turn"), "title");
  lead(".settings label:nth-child(3)", t("animations"));
  set(".settings label:nth-child(3)", t("Show where pieces and cards move from and to (also off when your system asks for reduced motion)"), "title");
  const loading = app.querySelector("p.muted");
  if (loading) loading.textContent = t("Loading…");
  set("footer.foot", t("An unofficial fan implementation. Game names belong to their publishers; rules summaries are our own words."));
}

// The header's language picker: the languages the site offers, each in its own language.
// A choice is kept by the server (a cookie; an account also keeps it) and the page reloads in it.
async function setupLanguagePicker() {
  const picker = document.getElementById("lang-picker");
  if (!picker) return;
  let offer;
  try { offer = await api("/api/i18n"); } catch { return; }
  if (!offer || !Array.isArray(offer.languages) || offer.languages.length < 2) return;
  picker.replaceChildren(...offer.languages.map((l) => h("option", { value: l.code, text: l.name, lang: l.code })));
  picker.value = i18n.lang;
  picker.hidden = false;
  picker.addEventListener("change", async () => {
    try {
      await api("/api/i18n/choice", { method: "POST", body: { lang: picker.value } });
      location.reload();
    } catch (err) { toast(err.message); picker.value = i18n.lang; }
  });
}

// -- start --------------------------------------------------------------------------
async function start() {
  const root = document.documentElement;
  await i18n.load(root.lang || "en", root.dataset.catalogue); // the page's words before anything is drawn
  if (i18n.lang !== "en") translateStatic();
  setupLanguagePicker();
  online.onLanguage((code) => { // an account's choice, made in another browser: reload in it (once)
    if (!code || code === i18n.lang || sessionStorage.getItem("gt.langReload") === code) return;
    sessionStorage.setItem("gt.langReload", code);
    location.reload();
  });
  setupMenu();
  const toggle = document.getElementById("patterns-toggle");
  toggle.checked = patternsOn();
  document.body.classList.toggle("patterns", toggle.checked);
  toggle.addEventListener("change", () => {
    localStorage.setItem("gt.patterns", toggle.checked ? "1" : "0");
    document.body.classList.toggle("patterns", toggle.checked);
    if (rerender) rerender();
  });
  motion.setupToggle(document.getElementById("motion-toggle")); // the animations setting (motion.js)
  Object.assign(online.shell, { api, toast, navigate, games: () => games });
  online.setupSoundToggle();
  const ask = h("input", { type: "checkbox", id: "confirm-toggle" });
  ask.checked = asksBeforeLosing();
  ask.addEventListener("change", () => setAsksBeforeLosing(ask.checked));
  document.querySelector(".settings").appendChild(h("label", { class: "toggle", title: t("Ask before a move that only loses points (all of a take breaking)") }, [ask, " " + t("ask before a move that only loses points")]));
  const meLoaded = online.loadMe();
  games = await api("/api/games");
  gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
  await meLoaded;
  community.setup();
  moderation.setup();
  tournaments.setup();
  document.getElementById("rules-links").replaceChildren(...games.map((g) => h("a", { href: `/rules/${g.id}`, "data-link": "", text: g.title })));
  await route();
}
start();
