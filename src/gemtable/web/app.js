// The gemtable shell: lobby, play page, replay viewer and rules pages.
// Plain ES module, no build step, nothing fetched from outside this server.
// Game-specific drawing lives in /static/games/<id>.js (render(el, ctx));
// a game without one is drawn by the generic renderer.

import { h, raiseSmallText } from "./svg.js";
import * as generic from "./generic.js";
import * as online from "./online.js"; // players, lobby seats, chat, clocks, connection (online.js)
import * as motion from "./motion.js";
import { reviewPanel } from "./review.js";
import { hintBox } from "./hints.js";
import { analysisPanel } from "./analysis.js";

const app = document.getElementById("app");
let games = [];
let gamesById = {};
let cleanup = null;
let rerender = null;
const renderers = {};

// -- utilities --------------------------------------------------------------
async function api(path, opts = {}) {
  const init = { headers: { "Content-Type": "application/json" }, ...opts };
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
  toastTimer = setTimeout(() => { el.className = ""; }, kind === "error" ? 6000 : 2500);
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

function drawBoard(mod, el, ctx) {
  const moves = motion.before(el, mod, ctx); // motion.js: the pieces that moved since the last drawing fly
  try {
    mod.render(el, ctx);
    // svg.js: on a narrow screen (the renderers' phone layouts) no board text under MIN_TEXT_PX
    if (el.clientWidth < 640) raiseSmallText(el);
    motion.after(moves);
  } catch (err) {
    console.error(err);
    document.body.dataset.renderError = String(err && err.message || err);
    if (mod !== generic) { generic.render(el, ctx); el.prepend(h("p", { class: "muted", text: "(board drawing failed; showing the plain view)" })); }
  }
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
    else if (path === "/me") cleanup = await online.myGamesPage(app);
    else if ((m = path.match(/^\/leaderboard(?:\/([A-Za-z0-9_-]+))?\/?$/))) cleanup = await online.leaderboardPage(app, m[1]);
    else if ((m = path.match(/^\/players\/([^/]+)$/))) cleanup = await online.profilePage(app, decodeURIComponent(m[1]));
    else await lobbyPage();
  } catch (err) {
    app.replaceChildren(h("section", { class: "panel" }, [h("h2", { text: "Something went wrong" }), h("p", { text: String(err.message || err) }), h("a", { href: "/", "data-link": "", text: "Back to the lobby" })]));
  }
}

// -- lobby --------------------------------------------------------------------
async function lobbyPage() {
  document.title = "gemtable — lobby";
  const form = h("form", { class: "panel new-table", id: "new-table" });
  const openList = h("section", { class: "panel tables open-tables", id: "open-tables", hidden: "" });
  const list = h("section", { class: "panel tables" }, [h("h2", { text: "Tables" }), h("p", { class: "muted", text: "Loading…" })]);
  const created = h("div", { id: "created" });
  const gameCards = h("section", { class: "panel games" }, [h("h2", { text: "Games" }),
    h("div", { class: "game-cards" }, games.map((g) => h("article", { class: "game-card" }, [
      h("h3", { text: g.title }),
      h("p", { text: g.summary || "" }),
      h("p", { class: "muted", text: `${g.players.join(", ")} players` + (g.data_status === "reconstructed" ? " · some component data reconstructed" : "") }),
      h("p", { class: "card-links" }, [h("a", { href: `/rules/${g.id}`, "data-link": "", text: "Rules in brief" }),
        h("a", { href: `/leaderboard/${g.id}`, "data-link": "", text: "Leaderboard" })]),
    ])))]);
  const picker = online.namePickerCard(); // first visit: pick a name (a card, never in the way)
  app.replaceChildren(h("div", { class: "lobby" }, [h("div", { class: "lobby-main" }, [picker, openList, form, created, list]), gameCards]));

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
    h("option", { value: "none", text: "No clock (casual)" }),
    h("option", { value: "realtime", text: "Real time: base + increment" }),
    h("option", { value: "turn", text: "Turn based: time per move" }),
  ]);
  const baseSel = h("select", { id: "clock-base", "aria-label": "Minutes each" }, [1, 3, 5, 10, 15, 20, 30, 45, 60].map((m) => h("option", { value: m * 60, text: `${m} min each` })));
  baseSel.value = "600";
  const incSel = h("select", { id: "clock-increment", "aria-label": "Seconds added per move" }, [0, 2, 5, 10, 15, 30, 60].map((x) => h("option", { value: x, text: `+ ${x} s a move` })));
  incSel.value = "5";
  const perMoveSel = h("select", { id: "clock-per-move", "aria-label": "Time for each move" }, [[300, "5 min"], [3600, "1 hour"], [4 * 3600, "4 hours"], [12 * 3600, "12 hours"], [86400, "1 day"], [2 * 86400, "2 days"], [3 * 86400, "3 days"]].map(([v, t]) => h("option", { value: v, text: `${t} a move` })));
  perMoveSel.value = "86400";
  const clockDetail = h("span", { class: "clock-detail" });
  const refreshClock = () => clockDetail.replaceChildren(...(clockSel.value === "realtime" ? [baseSel, incSel] : clockSel.value === "turn" ? [perMoveSel] : []));
  clockSel.addEventListener("change", refreshClock);
  const onlineBox = h("div", { class: "online-options", hidden: online.me.supported ? null : "" }, [
    h("label", { class: "clock-row" }, ["Time ", clockSel]), clockDetail,
    h("label", { class: "toggle", title: "Not listed in the lobby: only people with an invite link can sit down" }, [privateBox, " private (invite links only)"]),
    h("label", { class: "toggle", title: "Nothing at stake: every seat may ask the bot for hints; the game is not rated" }, [practiceBox, " practice (hints, not rated)"]),
  ]);
  form.replaceChildren(
    h("h2", { text: "New table" }),
    h("div", { class: "row" }, [h("label", {}, ["Game ", gameSel]), h("label", {}, ["Players ", playersSel])]),
    optionsBox, seatsBox, onlineBox,
    h("button", { type: "submit", class: "primary", id: "create", text: "Create table" }),
  );
  const params = new URLSearchParams(location.search);
  if (params.get("game") && gamesById[params.get("game")]) gameSel.value = params.get("game");

  function seatRow(i, old) {
    const ids = online.me.supported;
    const kind = h("select", { class: "seat-kind", "data-seat": i, "aria-label": `Seat ${i + 1}: who plays` }, [
      ids ? h("option", { value: "me", text: "You" }) : null,
      ids ? h("option", { value: "open", text: "Open seat" }) : null,
      h("option", { value: "human", text: ids ? "Invite link" : "Person" }),
      ...botChoices.map((b) => h("option", { value: `bot:${b}`, text: b in bots.levels ? online.levelLabel(b, online.levelRating(bots, gameSel.value, b)) : `Bot — ${b}` })),
    ]);
    kind.value = old ? old.kind : (i === 0 ? (ids ? "me" : "human") : (ids ? "open" : `bot:${botChoices.includes("medium") ? "medium" : botChoices[0]}`));
    const name = h("input", { class: "seat-name", placeholder: `Seat ${i + 1} name`, maxlength: 24, value: old ? old.name : "", "aria-label": `Seat ${i + 1} name` });
    const sync = () => {
      // your seat carries your name; an open seat takes the name of whoever joins
      const fixed = kind.value === "me" || kind.value === "open";
      name.disabled = fixed;
      name.placeholder = kind.value === "me" ? (online.me.player ? online.me.player.name : "your name") : kind.value === "open" ? "whoever joins" : `Seat ${i + 1} name`;
      if (fixed) name.value = "";
      if (kind.value === "me") for (const other of seatsBox.querySelectorAll(".seat-kind")) if (other !== kind && other.value === "me") { other.value = "open"; other.dispatchEvent(new Event("change")); }
    };
    kind.addEventListener("change", sync);
    setTimeout(sync, 0);
    return h("div", { class: "seat-row" }, [h("span", { class: "seat-no", text: `Seat ${i + 1}` }), kind, name]);
  }
  function refreshGame() {
    const g = gamesById[gameSel.value];
    if (!g) return;
    const prev = playersSel.value;
    playersSel.replaceChildren(...g.players.map((n) => h("option", { value: n, text: n })));
    playersSel.value = g.players.includes(Number(prev)) ? prev : String(g.players.includes(2) ? 2 : g.players[0]);
    optionsBox.replaceChildren(...g.options.map((o) => h("label", {}, [
      `${o.name.replace(/_/g, " ")} `,
      (() => { const sel = h("select", { "data-option": o.name, title: o.help || "" }, o.choices.map((c) => h("option", { value: String(c), text: String(c) }))); sel.value = String(o.default); return sel; })(),
      o.help ? h("small", { class: "muted", text: ` ${o.help}` }) : null,
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
    const seats = [...seatsBox.querySelectorAll(".seat-row")].map((r) => {
      const kind = r.querySelector(".seat-kind").value;
      const name = r.querySelector(".seat-name").value.trim() || null;
      if (kind === "me" || kind === "open") return { kind };
      return kind === "human" ? { kind: "human", name } : { kind: "bot", bot: kind.slice(4), name };
    });
    const body = { game: g.id, players: Number(playersSel.value), options, seats };
    if (privateBox.checked) body.private = true;
    if (practiceBox.checked) body.practice = true;
    if (clockSel.value !== "none") {
      body.clock = clockSel.value === "realtime"
        ? { mode: "realtime", base: Number(baseSel.value), increment: Number(incSel.value) }
        : { mode: "turn", per_move: Number(perMoveSel.value) };
    }
    if (seats.some((s) => s.kind === "me") && !(await online.ensureName("Pick a name for your seat: the other players see it."))) return;
    try {
      const res = await api("/api/tables", { method: "POST", body });
      showCreated(res, seats);
      loadTables();
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
      const input = h("input", { class: "invite", readonly: "", value: url, "data-seat": s.seat, "aria-label": `Invite link for ${s.name}` });
      return h("div", { class: "invite-row" }, [
        h("b", { text: s.name }), input,
        h("button", { type: "button", text: "Copy", onclick: () => { input.select(); navigator.clipboard?.writeText(url).then(() => toast("Link copied", "ok"), () => {}); } }),
        // the host sees every seat's link again at the table ("Invite links")
        h("button", { type: "button", class: "play-seat", text: "Play this seat here", onclick: () => { saveToken(id, s.seat, s.token); navigate(s.invite); } }),
      ]);
    });
    created.replaceChildren(h("section", { class: "panel created" }, [
      h("h2", { text: "Table ready" }),
      h("p", { text: "Send each person their own link: it holds that seat's secret key. Anyone with the table's plain address can watch." }),
      ...rows,
      humans.length ? h("p", {}, [h("button", { type: "button", class: "primary", id: "hotseat", text: "Play all seats on this screen (hotseat)", onclick: () => {
        for (const s of humans) saveToken(id, s.seat, s.token);
        localStorage.setItem(`gt.hotseat.${id}`, "1");
        navigate(humans[0].invite);
      } })]) : h("p", {}, [h("a", { href: res.spectate, "data-link": "", text: "Watch the bots play" })]),
    ]));
  }

  // --- the table lists: open tables to join, then everything else
  let mineOnServer = {}; // table id -> my seat (from /api/me/games: resume from any browser)
  async function join(t, seat) {
    if (!(await online.ensureName("Pick a name to sit down: the other players see it."))) return;
    try {
      const res = await api(`/api/tables/${t.id}/join`, { method: "POST", body: seat === undefined ? {} : { seat } });
      saveToken(t.id, res.seat, res.token);
      navigate(`/table/${t.id}`);
    } catch (err) { toast(err.message); loadTables(); }
  }
  function row(t) {
    const held = tokensOf(t.id);
    const mySeat = Object.keys(held)[0] ?? (t.id in mineOnServer ? String(mineOnServer[t.id]) : undefined);
    const openSeats = (t.seats || []).filter((s) => s.open).length;
    const links = [h("a", { href: `/table/${t.id}`, "data-link": "", text: t.status === "finished" ? "Final position" : "Watch" })];
    if (mySeat !== undefined && t.status !== "finished") {
      links.unshift(h("a", { href: held[mySeat] ? `/table/${t.id}#token=${held[mySeat]}` : `/table/${t.id}`, "data-link": "", text: "Resume", class: "resume" }));
    } else if (openSeats && t.status !== "finished" && online.me.supported) {
      links.unshift(h("button", { type: "button", class: "join primary", "data-join": t.id, text: "Join", onclick: () => join(t) }));
    }
    if (t.status === "finished") links.push(h("a", { href: `/replay/${t.id}`, "data-link": "", text: "Replay" }));
    const status = t.status === "finished" ? "finished" : t.status === "waiting" ? (openSeats ? `${openSeats} open seat${openSeats > 1 ? "s" : ""}` : "waiting to start") : (t.open ? "waiting for players" : "running");
    const seatsText = (t.seats || []).map((s) => s.open ? "open seat" : (s.player || s.name) + (s.kind === "bot" && !/\bbot\b/i.test(s.name) ? " (bot)" : "")).join(", ");
    return h("tr", { "data-table": t.id }, [
      h("td", { class: "t-game", text: t.title }),
      h("td", { class: "t-seats", text: seatsText }),
      h("td", { class: "t-status" }, [h("span", { class: `status ${t.status}${t.open || openSeats ? " open" : ""}`, text: status }),
        t.clock && t.clock.mode && t.clock.mode !== "none" ? h("span", { class: "badge clock-badge", text: online.clockLabel(t.clock).replace(/^(real time|turn based): /, "") }) : null,
        t.seed_fixed ? h("span", { class: "badge seed-fixed", text: "deal fixed by creator", title: t.seed_note || "" }) : null]),
      h("td", { class: "t-moves", text: t.version ?? "" }),
      h("td", { class: "links" }, links),
    ]);
  }
  const tableOf = (rows, head) => h("table", { class: "list tables-list" }, [h("thead", {}, [h("tr", {}, head.map((x) => h("th", { text: x })))]), h("tbody", {}, rows)]);
  async function loadTables() {
    let tables;
    try { tables = await api("/api/tables"); } catch (err) { return; }
    if (online.me.player) {
      try {
        const mg = await api("/api/me/games");
        mineOnServer = Object.fromEntries([...(mg.waiting || []), ...(mg.running || [])].map((t) => [t.id, t.my_seat]));
      } catch { /* keep what we had */ }
    }
    const waiting = tables.filter((t) => t.status === "waiting");
    const others = tables.filter((t) => t.status !== "waiting");
    openList.hidden = !waiting.length;
    openList.replaceChildren(h("h2", { text: "Open tables: join one" }), tableOf(waiting.map(row), ["Game", "Seats", "Seats free", "Moves", ""]));
    list.replaceChildren(h("h2", { text: "Tables" }), others.length
      ? tableOf(others.map(row), ["Game", "Seats", "Status", "Moves", ""])
      : h("p", { class: "muted", text: waiting.length ? "No game running yet." : "No tables yet: create one above." }));
  }
  loadTables();
  const timer = setInterval(loadTables, 5000);
  const offMe = online.onMeChange(() => { loadTables(); refreshSeats(); onlineBox.hidden = !online.me.supported; });
  cleanup = () => { clearInterval(timer); offMe(); };
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
  let wantRematch = false;   // this browser asked for it: follow it there
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
  const board = h("div", { class: "board", id: "board" });
  const waitRoom = h("section", { class: "panel waiting-room", id: "waiting-room", hidden: "" });
  // layout: on a phone (see narrowScreen) the choices come right under the board and the log starts folded
  const seatsBox = h("div", { class: "seats-body" });
  const seatsPanel = h("details", { class: "panel seats fold", id: "seats", open: "" }, [h("summary", { class: "fold-title", text: "Seats" }), seatsBox]);
  const actionsBox = h("details", { class: "panel actions fold", id: "actions", open: "" });
  const resultBox = h("section", { class: "panel result", id: "result", hidden: "" });
  const logBox = h("ol", { class: "log", id: "log" });
  const logPanel = h("details", { class: "panel log-panel fold", id: "log-panel", open: narrowScreen() ? false : "" }, [h("summary", { class: "fold-title", text: "Game log" }), logBox]);
  const chat = online.chatPanel(sendChat, { open: !narrowScreen() });
  const title = h("h2", { class: "table-title" });
  // a table whose creator chose the seed says so to everyone (they may know the hidden cards)
  const seedNote = h("p", { class: "seed-note", id: "seed-note", role: "note", hidden: "" });
  const playEl = h("div", { class: "play" }, [
    // the banner, the prompt and the clocks stay in sight together while you scroll (phones)
    h("div", { class: "board-col" }, [title, seedNote, h("div", { class: "table-top" }, [banner.el, promptBar, clocks.el]), lastMove, waitRoom, board]),
    h("aside", { class: "side" }, [seatsPanel, resultBox, actionsBox, chat.el, logPanel]),
  ]);
  app.replaceChildren(playEl);

  let info;
  try { info = await api(`/api/tables/${tableId}`); } catch (err) {
    if (err.status !== 404 && err.status !== 410) throw err;
    // a clear message when the table is gone (expired, removed, or a wrong address)
    document.title = "Table gone — gemtable";
    document.body.dataset.gone = "1";
    app.replaceChildren(h("section", { class: "panel table-gone", id: "table-gone" }, [
      h("h2", { text: "This table is gone" }),
      h("p", { text: err.status === 404 ? "There is no table at this address: it may have expired before it started, or the link is wrong." : err.message }),
      h("p", {}, [h("a", { href: "/", "data-link": "", class: "button", text: "Back to the lobby" }), " ",
        online.me.supported ? h("a", { href: "/me", "data-link": "", class: "button", text: "My games" }) : null]),
    ]));
    cleanup = () => { delete document.body.dataset.gone; };
    return;
  }
  mod = await rendererFor(info.game);
  document.title = `${info.title} — gemtable`;
  title.replaceChildren(gameLink(gamesById[info.game] || { id: info.game, title: info.title }), h("span", { class: "muted", text: ` · table ${tableId}` }), howToPlayButton(info.game));
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
    for (const b of playEl.querySelectorAll("button.action, #undo, #take-seat, #rematch, .waiting-room button.needs-net")) b.disabled = !on;
    chat.setEnabled(on && chatAllowed(), on ? "The host muted spectators" : "Offline: chat comes back with the connection");
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
    if (slow && ev.reason) toast(`Connection reset: ${ev.reason}`);
    const delay = Math.min(30, (slow ? 5 : 0.5) * 2 ** (retry - 1)) * (0.85 + Math.random() * 0.3);
    banner.offline(delay, () => { retry = 0; connect(); }, navigator.onLine === false ? "You are offline" : "Connection lost");
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
          if (before !== data.table.status) draw(); else { if (data.table.status === "waiting") drawWaiting(); drawSeats(); }
        }
      }
      else if (data.type === "chat") { if (data.line) chat.add(data.line); }
      else if (data.type === "rematch") onRematch(data);
      else if (data.type === "pong") { /* heartbeat */ }
      else if (data.type === "error") {
        pending = false; undoSent = false; board.classList.remove("busy");
        if (data.code === "no_table" || data.code === "gone") tableGone(data.message || "This table is gone.");
        else if (data.code !== "bad_token") toast(data.message);
        if (msg) draw();
      }
    };
    sock.onopen = () => { retry = 0; pending = false; lastHeard = Date.now(); setOnline(true); };
    sock.onclose = (ev) => {
      if (sock !== ws || closed) return;
      ws = null;
      setOnline(false);
      if (ev.code === 4404 || ev.code === 4410) { tableGone(ev.code === 4404 ? "This table is gone: it expired or never existed." : (ev.reason || "This table is gone.")); return; }
      if (ev.code === 4403 && token) {
        // this seat's key is refused (the host removed you, or the link is wrong): watch instead
        toast(ev.reason || "Your seat's key is not valid here any more: you are watching.");
        localStorage.removeItem(`gt.tokens.${tableId}`);
        token = null;
        history.replaceState({}, "", `/table/${tableId}`);
        connect();
        return;
      }
      if (ev.code === 4400) { tableGone(ev.reason || "This table cannot be opened."); return; }
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
    if (!ws || ws.readyState !== 1) { toast("Offline: wait for the connection to come back."); return false; }
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
    board.replaceChildren(h("p", { class: "muted", text: "Switching seats…" }));
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
    pending = true;
    actedDecision = msg.decision_version;
    board.classList.add("busy");
    ws.send(JSON.stringify({ type: "action", version: msg.version, action: entry.json }));
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
      const input = h("input", { class: "invite", readonly: "", value: url, "data-seat": s.seat, "aria-label": `Invite link for seat ${s.seat + 1}` });
      return h("div", { class: "invite-row" }, [
        h("b", { text: s.name || `Seat ${s.seat + 1}` }), input,
        h("button", { type: "button", text: "Copy", onclick: () => { input.select(); (navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject()).then(() => toast("Link copied", "ok"), () => {}); } }),
      ]);
    });
  }
  async function showInvitesDialog() {
    const list = await loadInvites();
    const rows = inviteRows(list);
    const close = h("button", { type: "button", class: "dlg-close", "aria-label": "Close", text: "✕" });
    const dlg = h("dialog", { class: "account-dialog invites-dialog", id: "invites-dialog", "aria-labelledby": "invites-title" }, [
      h("div", { class: "dlg-head" }, [h("h2", { id: "invites-title", text: "Invite links" }), close]),
      h("div", { class: "account-body" }, rows.length ? [h("p", { class: "muted", text: "Each link holds its seat's secret key: send it only to that person." }), ...rows] : [h("p", { text: "No other seat has an invite link." })]),
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
    const t = msg.table;
    if (msg.seat !== null && t.seats[msg.seat].open && token && !leaving) {
      // my seat is open again: the host removed me (my key no longer works): watch from here
      toast("The host removed you from this table.");
      localStorage.removeItem(`gt.tokens.${tableId}`);
      token = null;
      history.replaceState({}, "", `/table/${tableId}`);
      retry = 0;
      connect();
      return;
    }
    const host = isHost();
    const open = t.seats.filter((s) => s.open).length;
    // the levels, easiest first, with their ratings in this game when it has some (GET /api/bots)
    const levels = botLevels ? Object.keys(botLevels.levels) : [];
    const chosen = document.getElementById("start-bots");
    const botSel = h("select", { id: "start-bots", "aria-label": "Bots for the empty seats" }, levels.map((l) => h("option", { value: l, text: online.levelLabel(l, online.levelRating(botLevels, t.game, l), open !== 1) })));
    botSel.value = chosen && levels.includes(chosen.value) ? chosen.value : levels.includes("medium") ? "medium" : (levels[0] || "");
    const seatLi = (s) => {
      const you = msg.seat === s.seat;
      const who = s.open ? "Open seat" : (s.player || s.name);
      const buttons = [];
      if (host && !you && s.player && s.kind !== "bot") buttons.push(h("button", { type: "button", class: "small kick needs-net", "data-kick": s.seat, text: "Remove", title: `Remove ${who} from the table`, onclick: async () => { if (await post("kick", { seat: s.seat })) toast(`${who} removed`, "ok"); } }));
      if (s.open && msg.seat === null) buttons.push(h("button", { type: "button", class: "primary sit needs-net", "data-sit": s.seat, text: "Sit here", onclick: () => sitDown(s.seat) }));
      return h("li", { class: `wait-seat${you ? " you" : ""}${s.open ? " open" : ""}`, "data-seat": s.seat }, [
        h("span", { class: "seat-no", text: `Seat ${s.seat + 1}` }),
        h("span", { class: "seat-name", text: who + (you ? " (you)" : "") }),
        s.kind === "bot" ? h("span", { class: "badge", text: `bot · ${s.bot}` }) : null,
        (t.host !== undefined && (t.host === s.seat || t.host === s.name)) ? h("span", { class: "badge host", text: "host" }) : null,
        !s.open && s.kind !== "bot" ? h("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? "here" : "not here" }) : null,
        ...buttons,
      ]);
    };
    const invitesBox = h("div", { class: "invites", id: "invites" });
    waitRoom.replaceChildren(...[
      h("h2", { text: "Waiting room" }),
      h("p", { class: "muted", text: `${online.clockLabel(t.clock)}${t.private ? " · private: invite links only" : " · listed in the lobby"} · ${open ? `${open} open seat${open > 1 ? "s" : ""}` : "every seat is taken"}` }),
      h("ul", { class: "wait-seats" }, t.seats.map(seatLi)),
      host ? h("div", { class: "start-row" }, [
        h("button", { type: "button", class: "primary needs-net", id: "start", text: open ? "Start now" : "Start", onclick: () => post("start", botSel.value ? { bots: botSel.value } : {}) }),
        open && levels.length ? botSel : null,
        open ? h("span", { class: "muted", text: "Empty seats get bots." }) : null,
      ]) : msg.seat !== null && t.seats[msg.seat].player ? h("p", { class: "start-row" }, [h("span", { class: "muted", text: "You have a seat: wait for the others, chat meanwhile. " }),
        h("button", { type: "button", class: "needs-net", id: "leave", text: "Leave the table", onclick: async () => {
          leaving = true;
          if (await post("leave")) { localStorage.removeItem(`gt.tokens.${tableId}`); navigate("/"); } else leaving = false;
        } })]) : null,
      host ? invitesBox : null,
    ].filter(Boolean));
    if (host) {
      const fill = (list) => { const rows = inviteRows(list); invitesBox.replaceChildren(...(rows.length ? [h("h3", { text: "Invite links" }), h("p", { class: "muted", text: "Each link holds its seat's secret key: send it only to that person." }), ...rows] : [])); };
      if (invites) fill(invites); else loadInvites().then(fill);
    }
  }
  async function sitDown(seat) {
    if (!(await online.ensureName("Pick a name to sit down: the other players see it."))) return;
    const res = await post("join", seat === undefined ? {} : { seat });
    if (!res) return;
    saveToken(tableId, res.seat, res.token);
    retry = 0;
    switchTo(res.token);
  }

  // -- rematch -------------------------------------------------------------------------------
  function onRematch(data) {
    rematch = { table: data.table, token: data.token || null };
    if (rematch.token && msg && msg.seat !== null) saveToken(rematch.table, msg.seat, rematch.token);
    if (wantRematch) return; // askRematch goes there once every seat of this screen has its key
    if (msg) draw();
  }
  async function askRematch() {
    wantRematch = true;
    const res = await post("rematch");
    if (!res) { wantRematch = false; return; }
    const newId = res.table;
    if (res.token && res.seat !== undefined && res.seat !== null) saveToken(newId, res.seat, res.token);
    // hotseat: this screen held several seats; asking again with each seat's key (the same new
    // table for every caller) brings each seat's new key along
    const others = Object.entries(tokensOf(tableId)).filter(([, tok]) => tok !== token);
    for (const [, tok] of others) {
      try {
        const more = await api(`/api/tables/${tableId}/rematch`, { method: "POST", body: {}, headers: { "Content-Type": "application/json", "X-Seat-Token": tok } });
        if (more.table === newId && more.token) saveToken(newId, more.seat, more.token);
      } catch { /* that seat stays behind */ }
    }
    if (others.length && hotseat) localStorage.setItem(`gt.hotseat.${newId}`, "1");
    navigate(`/table/${newId}`);
  }

  function drawSeats() {
    const t = msg.table;
    const view = msg.view || {};
    const scores = (msg.result && msg.result.scores) || view.scores || null;
    const mine = tokensOf(tableId);
    const nm = names();
    seatsBox.replaceChildren(h("ul", { class: "seat-list" }, t.seats.map((s) => {
      const moving = msg.to_move.includes(s.seat);
      const you = msg.seat === s.seat;
      const canSwitch = mine[s.seat] && !you;
      return h("li", { class: `seat-item${moving ? " moving" : ""}${you ? " you" : ""}${s.away ? " away" : ""}`, "data-seat": s.seat }, [
        h("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? "connected" : "not connected" }),
        s.player && !s.away ? h("a", { class: "seat-name", href: `/players/${encodeURIComponent(s.player)}`, "data-link": "", text: nm[s.seat] + (you ? " (you)" : "") }) : h("span", { class: "seat-name", text: nm[s.seat] + (you ? " (you)" : "") }),
        s.kind === "bot" ? h("span", { class: "badge", text: `bot · ${s.bot}` }) : null,
        s.away ? h("span", { class: "badge away", text: "away: a bot plays", title: "Out of time or disconnected: a bot plays this seat until its player takes it back" }) : null,
        scores ? h("span", { class: "score", text: String(scores[s.seat]) }) : null,
        canSwitch ? h("button", { class: "small", text: "play", title: "Switch to this seat (hotseat)", onclick: () => switchTo(mine[s.seat]) }) : null,
        canSwitch ? h("button", { class: "small", text: "link", title: "Copy this seat's invite link", onclick: () => {
          const url = `${location.origin}/table/${tableId}#token=${mine[s.seat]}`;
          (navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject()).then(() => toast("Invite link copied", "ok"), () => toast(url, "ok"));
        } }) : null,
      ]);
    })));
    if (Object.keys(mine).length > 1) {
      const box = h("input", { type: "checkbox", id: "hotseat-toggle" });
      box.checked = hotseat;
      box.addEventListener("change", () => { hotseat = box.checked; localStorage.setItem(`gt.hotseat.${tableId}`, hotseat ? "1" : "0"); if (hotseat && msg) onState({ ...msg, log: [], log_reset: false }); });
      seatsBox.appendChild(h("label", { class: "toggle" }, [box, " hotseat: follow the seat to move"]));
    }
    if (isHost() && !msg.over) seatsBox.appendChild(h("p", {}, [h("button", { type: "button", id: "show-invites", text: "Invite links", onclick: showInvitesDialog })]));
    if (msg.seat === null) seatsBox.appendChild(h("p", { class: "muted", text: "You are watching. Open a seat's invite link to play it." }));
    chat.setMute(isHost(), t.mute_spectators ?? t.spectators_muted ?? false, (on) => send({ type: "mute_spectators", on }));
    chat.setEnabled(connected && chatAllowed(), connected ? "The host muted spectators" : "Offline: chat comes back with the connection");
  }

  function draw() {
    if (!msg) return;
    const t = msg.table;
    const nm = names();
    const waiting = t.status === "waiting";
    if (t.rematch && !rematch) rematch = { table: t.rematch, token: null };
    waitRoom.hidden = !waiting;
    board.hidden = waiting;
    seatsPanel.hidden = waiting;
    logPanel.hidden = waiting;
    // prompt
    promptBar.className = "prompt-bar";
    const myTurn = !!(msg.prompt && !msg.over && !waiting);
    if (msg.over) {
      const r = msg.result;
      promptBar.replaceChildren(h("span", { text: r && r.winners ? `Game over: ${r.winners.length > 1 ? `shared win for ${r.winners.map((p) => nm[p]).join(" and ")}` : `${nm[r.winners[0]]} wins`}.` : "Game over." }));
      promptBar.classList.add("over");
      // the result and the rematch sit beside the board (under it on a phone): a way there from the prompt
      if (rematch && !wantRematch && msg.seat !== null) promptBar.appendChild(h("button", { type: "button", class: "primary", id: "rematch-top", text: "Go to the rematch", onclick: () => navigate(`/table/${rematch.table}`) }));
      else if (narrowScreen()) promptBar.appendChild(h("button", { type: "button", id: "to-result", text: msg.seat !== null ? "Result · rematch" : "Result", onclick: () => resultBox.scrollIntoView({ behavior: "smooth", block: "start" }) }));
    } else if (waiting) {
      promptBar.textContent = msg.waiting_prompt || "Waiting for players.";
    } else if (msg.prompt) {
      promptBar.replaceChildren(h("b", { text: `${nm[msg.seat]}: ` }), msg.prompt);
      promptBar.classList.add("yours");
    } else {
      const bots = msg.to_move.filter((p) => t.seats[p].kind === "bot");
      promptBar.textContent = bots.length === msg.to_move.length && bots.length
        ? `${bots.map((p) => nm[p]).join(" and ")} ${bots.length > 1 ? "are" : "is"} thinking…`
        : (msg.waiting_prompt || "");
    }
    // your seat is played by a bot (out of time or away too long): take it back
    const mySeat = msg.seat !== null ? t.seats[msg.seat] : null;
    const awayMe = !!(mySeat && mySeat.away && !msg.over);
    if (awayMe) {
      promptBar.replaceChildren(h("span", { text: "A bot is playing your seat while you were away. " }),
        h("button", { type: "button", class: "primary", id: "take-seat", text: "Take my seat back", onclick: () => send({ type: "take_seat" }) }));
      promptBar.classList.add("away");
    } else if (msg.can_undo && !msg.over) {
      promptBar.appendChild(h("button", { type: "button", class: "undo", id: "undo", text: "↶ Undo", title: "Take back your last move (possible until something hidden is shown or something is drawn)", disabled: undoSent ? "" : null, onclick: (e) => {
        if (undoSent) return;
        if (send({ type: "undo" })) { undoSent = true; e.currentTarget.disabled = true; }
      } }));
    }
    seedNote.hidden = !t.seed_fixed;
    seedNote.textContent = t.seed_fixed ? (t.seed_note || "The deal was fixed by the table's creator.") : "";
    const last = log.length ? log[log.length - 1] : null;
    lastMove.textContent = last && !waiting ? `Last: ${last.text}` : "";
    // your turn: the tab title says so (and a sound, when that setting is on)
    document.title = `${myTurn ? "● Your turn — " : ""}${waiting ? "Waiting room: " : ""}${t.title} — gemtable`;
    if (myTurn && wasMyTurn === false && !hotseat) online.chime();
    wasMyTurn = myTurn;
    document.body.dataset.myTurn = myTurn ? "1" : "0";
    // clocks
    const clock = msg.clock || (t.clock && t.clock.remaining ? t.clock : null);
    clocks.update(waiting ? null : clock, nm, msg.seat, t.seats.map((s) => !!s.away));
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
      prompt: msg.prompt, over: msg.over, result: msg.result, patterns: patternsOn(), act, table: t, mode: "play",
    };
    if (handoff !== null && handoff === msg.seat && !msg.over) {
      // pass-and-play: hide this seat's private view until its player is at the screen
      board.replaceChildren(h("div", { class: "handoff" }, [
        h("p", { text: `Pass the screen to ${nm[msg.seat]}.` }),
        h("button", { class: "primary", id: "handoff", text: `I am ${nm[msg.seat]}: show my board`, onclick: () => { handoff = null; draw(); } }),
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
      actionsBox.replaceChildren(h("summary", { class: "fold-title", text: `Your choices (${legal.length})` }), ...(msg.hints ? [hints.el(msg)] : []), ...[...groups.entries()].map(([type, list]) =>
        h("div", { class: "action-group" }, [h("div", { class: "group-name", text: type.replace(/_/g, " ") }),
          h("div", { class: "action-buttons" }, list.map((e) => h("button", { class: "action", "data-action": JSON.stringify(e.json), text: e.text, onclick: () => act(e) })))])));
    } else {
      actionsBox.hidden = true;
      actionsBox.replaceChildren();
    }
    // result
    if (msg.over && msg.result) {
      const r = msg.result;
      const order = [...nm.keys()].sort((a, b) => r.ranking[a] - r.ranking[b]);
      const replaced = r.replaced || [];
      resultBox.hidden = false;
      resultBox.replaceChildren(...[
        h("h3", { text: r.winners.length > 1 ? `Shared win: ${r.winners.map((p) => nm[p]).join(" and ")}` : `${nm[r.winners[0]]} wins` }),
        h("table", { class: "list result-table" }, [h("tbody", {}, order.map((p) => h("tr", { class: r.winners.includes(p) ? "winner" : "" }, [
          h("td", { text: ordinal(r.ranking[p]) }), h("td", { text: nm[p] + (replaced.includes(p) ? " (a bot finished)" : "") }), h("td", { class: "num", text: String(r.scores[p]) }),
        ])))]),
        r.tiebreak ? h("p", { class: "tiebreak", text: r.tiebreak }) : null,
        replaced.length ? h("p", { class: "muted", text: "A bot finished for a player who ran out of time or left: this game is not rated." }) : null,
        r.hinted ? h("p", { class: "muted", id: "hinted-note", text: "Hints were shown in this game: it is not rated." }) : null,
        h("p", { class: "result-links" }, [
          msg.seat !== null && !(rematch && !wantRematch) ? h("button", { type: "button", class: "primary", id: "rematch", text: "Rematch", title: "The same seats, a new deal", onclick: askRematch }) : null,
          rematch && !wantRematch ? h("button", { type: "button", class: "primary", id: "rematch-go", text: "Rematch ready: go to the new table", onclick: () => navigate(`/table/${rematch.table}`) }) : null,
          h("a", { href: `/replay/${tableId}`, "data-link": "", class: "button", id: "replay-link", text: "Watch the replay" }),
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

function ordinal(n) { return n === 1 ? "1st" : n === 2 ? "2nd" : n === 3 ? "3rd" : `${n}th`; }

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
  const t = data.table;
  const mod = await rendererFor(t.game);
  const nm = t.seats.map((s) => s.name);
  const frames = data.frames;
  let i = frames.length - 1;
  document.title = `Replay: ${t.title} — gemtable`;
  const board = h("div", { class: "board", id: "board" });
  const counter = h("span", { class: "counter", id: "counter" });
  const slider = h("input", { type: "range", min: 0, max: frames.length - 1, value: i, id: "slider" });
  const logBox = h("ol", { class: "log", id: "log" });
  const btn = (label, id, fn) => h("button", { id, text: label, onclick: fn });
  const controls = h("div", { class: "replay-controls" }, [
    btn("« first", "first", () => go(0)), btn("◀ back", "back", () => go(i - 1)), counter,
    btn("forward ▶", "forward", () => go(i + 1)), btn("last »", "last", () => go(frames.length - 1)), slider,
    btn("Try other moves here", "analyse", () => analysis.start(i)),
  ]);
  slider.addEventListener("input", () => go(Number(slider.value)));
  const r = data.result;
  const summary = h("section", { class: "panel result" }, [
    h("h3", { text: r.winners.length > 1 ? `Shared win: ${r.winners.map((p) => nm[p]).join(" and ")}` : `${nm[r.winners[0]]} won` }),
    h("table", { class: "list" }, [h("tbody", {}, [...nm.keys()].sort((a, b) => r.ranking[a] - r.ranking[b]).map((p) =>
      h("tr", {}, [h("td", { text: ordinal(r.ranking[p]) }), h("td", { text: nm[p] }), h("td", { class: "num", text: String(r.scores[p]) })])))]),
    r.tiebreak ? h("p", { class: "tiebreak", text: r.tiebreak }) : null,
    h("p", {}, [h("a", { href: `/api/tables/${tableId}/match`, download: `${t.game}-${tableId}.json`, text: "Download the match file" })]),
  ]);
  const review = reviewPanel({ tableId, names: nm, go: (n) => go(n) });
  const analysis = analysisPanel({ tableId, names: nm, leave: () => go(i), draw: (ctx) => drawBoard(mod, board,
    { ...ctx, names: nm, patterns: patternsOn(), table: t, mode: "analysis" }) });
  app.replaceChildren(h("div", { class: "play" }, [
    h("div", { class: "board-col" }, [h("h2", { class: "table-title" }, [`Replay: `, gameLink(gamesById[t.game] || { id: t.game, title: t.title }), h("span", { class: "muted", text: ` · table ${tableId}` })]), controls, analysis.el, board, review.el]),
    h("aside", { class: "side" }, [summary, h("section", { class: "panel log-panel" }, [h("h3", { text: "Game log" }), logBox])]),
  ]));
  const allLog = frames.flatMap((f) => f.log);
  function go(n) {
    analysis.stop();
    i = Math.max(0, Math.min(frames.length - 1, n));
    slider.value = i;
    counter.textContent = `move ${i} / ${frames.length - 1}`;
    const f = frames[i];
    drawBoard(mod, board, { view: f.view, legal: [], seat: null, names: nm, toMove: f.to_move, prompt: null, over: i === frames.length - 1, result: i === frames.length - 1 ? r : null, patterns: patternsOn(), act: () => {}, table: t, mode: "replay" });
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
function esc(s) { return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"); }
function inline(s) {
  return esc(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
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
    if (/^```/.test(line)) {
      flush();
      const code = [];
      for (k++; k < lines.length && !/^```/.test(lines[k]); k++) code.push(lines[k]);
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
  document.title = `${g.title}: how to play — gemtable`;
  const content = howToPlayContent(g, "reconstructed");
  app.replaceChildren(h("article", { class: "panel rules" }, [
    h("h1", { text: `${g.title}: how to play` }),
    h("p", { class: "muted", text: `${g.players.join(", ")} players. ${g.owners || ""}` }),
    content,
    h("p", {}, [h("a", { href: `/?game=${g.id}`, "data-link": "", class: "button", text: `Start a table of ${g.title}` })]),
  ]));
  await drawHowToPlayPicture(g, content);
}

// -- how to play: the players' text with a picture, on its page and over the table ------
// The text is the game's how-to-play for players (served as `rules` by /api/games/<id>);
// the picture is a freshly set-up game drawn read-only by the game's own renderer.
function howToPlayContent(g, flagId = null) {
  const body = h("div", { class: "rules-body" });
  body.innerHTML = markdown(g.rules || g.summary || "No how-to-play yet.");
  // point at every statement about reconstructed (placeholder) values
  for (const el of body.querySelectorAll("p, li, td")) {
    if (/reconstruct|stand-in|placeholder/i.test(el.textContent) && !el.querySelector("li")) el.classList.add("recon");
  }
  const flag = g.data_status === "reconstructed"
    ? h("p", { class: "warning recon-flag", ...(flagId ? { id: flagId } : {}), text: "Heads up: some printed values of this game are reconstructed stand-ins, not checked against a physical copy, so they may differ from your copy of the game. The section “Reconstructed values” at the end lists them." })
    : null;
  return h("div", { class: "how-to-play" }, [flag, body]);
}

async function drawHowToPlayPicture(g, content) {
  // place the picture after the Setup section (before the next heading), else at the top
  const body = content.querySelector(".rules-body");
  const heads = [...body.querySelectorAll("h2, h3")];
  const setup = heads.findIndex((x) => /set ?up/i.test(x.textContent));
  const fig = h("figure", { class: "htp-figure" }, [
    h("div", { class: "board htp-board", role: "img", "aria-label": `${g.title}: a freshly set-up game` }, [h("p", { class: "muted", text: "Drawing the table…" })]),
    h("figcaption", { class: "muted" }),
  ]);
  if (setup >= 0 && heads[setup + 1]) body.insertBefore(fig, heads[setup + 1]);
  else body.prepend(fig);
  const board = fig.querySelector(".htp-board");
  try {
    const sample = await api(`/api/games/${g.id}/sample`);
    const mod = await rendererFor(g.id);
    const names = Array.from({ length: sample.players }, (_, p) => `Player ${p + 1}`);
    drawBoard(mod, board, { view: sample.view, legal: [], seat: null, names, toMove: sample.to_move, prompt: null, over: false, result: null, patterns: patternsOn(), act: () => {}, table: null, mode: "replay" });
    fig.querySelector("figcaption").textContent = `A freshly set-up game for ${sample.players} players, as the table draws it.`;
  } catch (err) {
    fig.remove();
  }
}

function howToPlayButton(gameId) {
  const btn = h("button", { type: "button", class: "small htp-open", id: "how-to-play", text: "How to play", "aria-haspopup": "dialog" });
  btn.addEventListener("click", () => openHowToPlay(gameId, btn));
  return btn;
}

async function openHowToPlay(gameId, opener) {
  const old = document.getElementById("htp-dialog");
  if (old) old.remove();
  let g;
  try { g = await api(`/api/games/${gameId}`); } catch (err) { toast(err.message); return; }
  const content = howToPlayContent(g);
  const close = h("button", { type: "button", class: "htp-close", "aria-label": "Close how to play", text: "✕ Close" });
  const heading = h("h2", { id: "htp-title", text: `${g.title}: how to play` });
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

// -- start --------------------------------------------------------------------------
async function start() {
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
  const meLoaded = online.loadMe();
  games = await api("/api/games");
  gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
  await meLoaded;
  document.getElementById("rules-links").replaceChildren(...games.map((g) => h("a", { href: `/rules/${g.id}`, "data-link": "", text: g.title })));
  await route();
}
start();
