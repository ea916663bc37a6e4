// The gemtable shell: lobby, play page, replay viewer and rules pages.
// Plain ES module, no build step, nothing fetched from outside this server.
// Game-specific drawing lives in /static/games/<id>.js (render(el, ctx));
// a game without one is drawn by the generic renderer.

import { h } from "./svg.js";
import * as generic from "./generic.js";

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
  if (!res.ok) throw new Error((data && (data.detail || data.error)) || `${res.status} ${res.statusText}`);
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
  try {
    mod.render(el, ctx);
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
    else await lobbyPage();
  } catch (err) {
    app.replaceChildren(h("section", { class: "panel" }, [h("h2", { text: "Something went wrong" }), h("p", { text: String(err.message || err) }), h("a", { href: "/", "data-link": "", text: "Back to the lobby" })]));
  }
}

// -- lobby --------------------------------------------------------------------
async function lobbyPage() {
  document.title = "gemtable — lobby";
  const form = h("form", { class: "panel new-table", id: "new-table" });
  const list = h("section", { class: "panel tables" }, [h("h2", { text: "Tables" }), h("p", { class: "muted", text: "Loading…" })]);
  const created = h("div", { id: "created" });
  const gameCards = h("section", { class: "panel games" }, [h("h2", { text: "Games" }),
    h("div", { class: "game-cards" }, games.map((g) => h("article", { class: "game-card" }, [
      h("h3", { text: g.title }),
      h("p", { text: g.summary || "" }),
      h("p", { class: "muted", text: `${g.players.join(", ")} players` + (g.data_status === "reconstructed" ? " · some component data reconstructed" : "") }),
      h("a", { href: `/rules/${g.id}`, "data-link": "", text: "Rules in brief" }),
    ])))]);
  app.replaceChildren(h("div", { class: "lobby" }, [h("div", { class: "lobby-main" }, [form, created, list]), gameCards]));

  // --- the new-table form
  const bots = await api("/api/bots").catch(() => ({ levels: { easy: "random" }, kinds: ["random"] }));
  const botChoices = [...Object.keys(bots.levels), ...bots.kinds.filter((k) => !(k in bots.levels))];
  const gameSel = h("select", { id: "game", name: "game" }, games.map((g) => h("option", { value: g.id, text: g.title })));
  const playersSel = h("select", { id: "players", name: "players" });
  const optionsBox = h("div", { class: "options" });
  const seatsBox = h("div", { class: "seats-form" });
  form.replaceChildren(
    h("h2", { text: "New table" }),
    h("div", { class: "row" }, [h("label", {}, ["Game ", gameSel]), h("label", {}, ["Players ", playersSel])]),
    optionsBox, seatsBox,
    h("button", { type: "submit", class: "primary", id: "create", text: "Create table" }),
  );
  const params = new URLSearchParams(location.search);
  if (params.get("game") && gamesById[params.get("game")]) gameSel.value = params.get("game");

  function seatRow(i, old) {
    const kind = h("select", { class: "seat-kind", "data-seat": i }, [
      h("option", { value: "human", text: "Person" }),
      ...botChoices.map((b) => h("option", { value: `bot:${b}`, text: `Bot — ${b}` })),
    ]);
    kind.value = old ? old.kind : (i === 0 ? "human" : `bot:${botChoices.includes("medium") ? "medium" : botChoices[0]}`);
    const name = h("input", { class: "seat-name", placeholder: `Seat ${i + 1} name`, maxlength: 24, value: old ? old.name : "" });
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
      return kind === "human" ? { kind: "human", name } : { kind: "bot", bot: kind.slice(4), name };
    });
    try {
      const res = await api("/api/tables", { method: "POST", body: { game: g.id, players: Number(playersSel.value), options, seats } });
      showCreated(res);
      loadTables();
    } catch (err) { toast(err.message); }
  });

  function showCreated(res) {
    const id = res.table.id;
    const humans = res.seats.filter((s) => s.kind === "human");
    if (humans.length === 1) {
      saveToken(id, humans[0].seat, humans[0].token);
      navigate(humans[0].invite);
      return;
    }
    const rows = humans.map((s) => {
      const url = location.origin + s.invite;
      const input = h("input", { class: "invite", readonly: "", value: url, "data-seat": s.seat });
      return h("div", { class: "invite-row" }, [
        h("b", { text: s.name }), input,
        h("button", { type: "button", text: "Copy", onclick: () => { input.select(); navigator.clipboard?.writeText(url).then(() => toast("Link copied", "ok"), () => {}); } }),
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

  // --- the table list
  async function loadTables() {
    let tables;
    try { tables = await api("/api/tables"); } catch (err) { return; }
    const rows = tables.map((t) => {
      const held = tokensOf(t.id);
      const mySeat = Object.keys(held)[0];
      const links = [h("a", { href: `/table/${t.id}`, "data-link": "", text: t.status === "finished" ? "Final position" : "Watch" })];
      if (mySeat !== undefined && t.status !== "finished") links.unshift(h("a", { href: `/table/${t.id}#token=${held[mySeat]}`, "data-link": "", text: "Resume", class: "resume" }));
      if (t.status === "finished") links.push(h("a", { href: `/replay/${t.id}`, "data-link": "", text: "Replay" }));
      const status = t.status === "finished" ? "finished" : (t.open ? "waiting for players" : "running");
      return h("tr", { "data-table": t.id }, [
        h("td", { class: "t-game", text: t.title }),
        h("td", { class: "t-seats", text: t.seats.map((s) => s.name).join(", ") }),
        h("td", { class: "t-status" }, [h("span", { class: `status ${t.status}${t.open ? " open" : ""}`, text: status }),
          t.seed_fixed ? h("span", { class: "badge seed-fixed", text: "deal fixed by creator", title: t.seed_note || "" }) : null]),
        h("td", { class: "t-moves", text: t.version ?? "" }),
        h("td", { class: "links" }, links),
      ]);
    });
    list.replaceChildren(h("h2", { text: "Tables" }), tables.length
      ? h("table", { class: "list tables-list" }, [h("thead", {}, [h("tr", {}, ["Game", "Seats", "Status", "Moves", ""].map((x) => h("th", { text: x })))]), h("tbody", {}, rows)])
      : h("p", { class: "muted", text: "No tables yet: create one above." }));
  }
  loadTables();
  const timer = setInterval(loadTables, 5000);
  cleanup = () => clearInterval(timer);
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

  const promptBar = h("div", { class: "prompt-bar", id: "prompt", "aria-live": "polite" });
  const lastMove = h("div", { class: "last-move muted", id: "last-move" });
  const board = h("div", { class: "board", id: "board" });
  // layout: on a phone (see narrowScreen) the choices come right under the board and the log starts folded
  const seatsBox = h("div", { class: "seats-body" });
  const seatsPanel = h("details", { class: "panel seats fold", id: "seats", open: "" }, [h("summary", { class: "fold-title", text: "Seats" }), seatsBox]);
  const actionsBox = h("details", { class: "panel actions fold", id: "actions", open: "" });
  const resultBox = h("section", { class: "panel result", id: "result", hidden: "" });
  const logBox = h("ol", { class: "log", id: "log" });
  const logPanel = h("details", { class: "panel log-panel fold", id: "log-panel", open: narrowScreen() ? false : "" }, [h("summary", { class: "fold-title", text: "Game log" }), logBox]);
  const title = h("h2", { class: "table-title" });
  // a table whose creator chose the seed says so to everyone (they may know the hidden cards)
  const seedNote = h("p", { class: "seed-note", id: "seed-note", role: "note", hidden: "" });
  app.replaceChildren(h("div", { class: "play" }, [
    h("div", { class: "board-col" }, [title, seedNote, promptBar, lastMove, board]),
    h("aside", { class: "side" }, [seatsPanel, resultBox, actionsBox, logPanel]),
  ]));

  const info = await api(`/api/tables/${tableId}`);
  mod = await rendererFor(info.game);
  document.title = `${info.title} — gemtable`;
  title.replaceChildren(gameLink(gamesById[info.game] || { id: info.game, title: info.title }), h("span", { class: "muted", text: ` · table ${tableId}` }), howToPlayButton(info.game));

  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // the seat token travels as a subprotocol, so it never appears in a URL or a log
    ws = new WebSocket(`${proto}://${location.host}/ws/tables/${tableId}`, token ? ["gemtable", `token.${token}`] : ["gemtable"]);
    ws.onmessage = (ev) => {
      const data = JSON.parse(ev.data);
      if (data.type === "state") onState(data);
      else if (data.type === "presence") { if (msg) { msg.table = data.table; drawSeats(); } }
      else if (data.type === "error") { pending = false; board.classList.remove("busy"); toast(data.message); }
    };
    ws.onopen = () => { retry = 0; pending = false; };
    ws.onclose = (ev) => {
      if (closed) return;
      if (ev.code === 4403 || ev.code === 4404 || ev.code === 4410 || ev.code === 4400) {
        promptBar.textContent = ev.reason || "This table cannot be opened.";
        promptBar.className = "prompt-bar error";
        return;
      }
      retry += 1;
      // 4429: too many messages (or refused tokens); 4408: this connection fell behind
      const slow = ev.code === 4429 || ev.code === 4408;
      if (slow && ev.reason) toast(`Connection reset: ${ev.reason}`);
      setTimeout(() => { if (!closed) connect(); }, slow ? 5000 : Math.min(4000, 300 * retry));
    };
  }

  let handoff = null; // hotseat: the seat the screen is being passed to (its view stays hidden until confirmed)

  function switchTo(newToken, passTo = null) {
    if (newToken === token) return;
    handoff = passTo;
    token = newToken;
    history.replaceState({}, "", `/table/${tableId}#token=${token}`);
    if (ws) { ws.onclose = null; ws.close(); }
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
    if (!pending) board.classList.remove("busy");
    if (data.seat !== null && data.seat !== undefined && token) saveToken(tableId, data.seat, token);
    if (data.log_reset) log = data.log.slice(); else log.push(...data.log);
    msg = data;
    document.body.dataset.version = String(data.version);
    document.body.dataset.over = data.over ? "1" : "0";
    document.body.dataset.seat = data.seat === null ? "" : String(data.seat);
    // hotseat: hand the screen to the next seat this browser holds
    const mine = tokensOf(tableId);
    if (hotseat && !data.over && data.seat !== null && !data.to_move.includes(data.seat)) {
      const next = data.to_move.find((p) => mine[p] && data.table.seats[p].kind === "human");
      if (next !== undefined) { switchTo(mine[next], next); return; }
    }
    draw();
  }

  function act(entry) {
    if (pending || !msg || !ws || ws.readyState !== 1) return;
    pending = true;
    actedDecision = msg.decision_version;
    board.classList.add("busy");
    ws.send(JSON.stringify({ type: "action", version: msg.version, action: entry.json }));
  }

  function names() { return msg.table.seats.map((s) => s.name); }

  function drawSeats() {
    const t = msg.table;
    const view = msg.view || {};
    const scores = (msg.result && msg.result.scores) || view.scores || null;
    const mine = tokensOf(tableId);
    seatsBox.replaceChildren(h("ul", { class: "seat-list" }, t.seats.map((s) => {
      const moving = msg.to_move.includes(s.seat);
      const you = msg.seat === s.seat;
      const canSwitch = mine[s.seat] && !you;
      return h("li", { class: `seat-item${moving ? " moving" : ""}${you ? " you" : ""}`, "data-seat": s.seat }, [
        h("span", { class: `dot ${s.connected ? "on" : "off"}`, title: s.connected ? "connected" : "not connected" }),
        h("span", { class: "seat-name", text: s.name + (you ? " (you)" : "") }),
        s.kind === "bot" ? h("span", { class: "badge", text: `bot · ${s.bot}` }) : null,
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
    if (msg.seat === null) seatsBox.appendChild(h("p", { class: "muted", text: "You are watching. Open a seat's invite link to play it." }));
  }

  function draw() {
    if (!msg) return;
    const t = msg.table;
    const nm = names();
    // prompt
    promptBar.className = "prompt-bar";
    if (msg.over) {
      promptBar.textContent = "Game over.";
      promptBar.classList.add("over");
    } else if (msg.prompt) {
      promptBar.replaceChildren(h("b", { text: `${nm[msg.seat]}: ` }), msg.prompt);
      promptBar.classList.add("yours");
    } else {
      const bots = msg.to_move.filter((p) => t.seats[p].kind === "bot");
      promptBar.textContent = bots.length === msg.to_move.length && bots.length
        ? `${bots.map((p) => nm[p]).join(" and ")} ${bots.length > 1 ? "are" : "is"} thinking…`
        : (msg.waiting_prompt || "");
    }
    seedNote.hidden = !t.seed_fixed;
    seedNote.textContent = t.seed_fixed ? (t.seed_note || "The deal was fixed by the table's creator.") : "";
    const last = log.length ? log[log.length - 1] : null;
    lastMove.textContent = last ? `Last: ${last.text}` : "";
    document.title = `${msg.prompt && !msg.over ? "● your turn — " : ""}${t.title} — gemtable`;
    // board
    const ctx = {
      view: msg.view, legal: msg.legal, seat: msg.seat, names: nm, toMove: msg.to_move,
      prompt: msg.prompt, over: msg.over, result: msg.result, patterns: patternsOn(), act, table: t, mode: "play",
    };
    drawSeats();
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
    if (msg.legal.length) {
      const groups = new Map();
      for (const e of msg.legal) { if (!groups.has(e.type)) groups.set(e.type, []); groups.get(e.type).push(e); }
      actionsBox.hidden = false;
      actionsBox.replaceChildren(h("summary", { class: "fold-title", text: `Your choices (${msg.legal.length})` }), ...[...groups.entries()].map(([type, list]) =>
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
      resultBox.hidden = false;
      resultBox.replaceChildren(...[
        h("h3", { text: r.winners.length > 1 ? `Shared win: ${r.winners.map((p) => nm[p]).join(" and ")}` : `${nm[r.winners[0]]} wins` }),
        h("table", { class: "list result-table" }, [h("tbody", {}, order.map((p) => h("tr", { class: r.winners.includes(p) ? "winner" : "" }, [
          h("td", { text: ordinal(r.ranking[p]) }), h("td", { text: nm[p] }), h("td", { class: "num", text: String(r.scores[p]) }),
        ])))]),
        r.tiebreak ? h("p", { class: "tiebreak", text: r.tiebreak }) : null,
        h("p", {}, [h("a", { href: `/replay/${tableId}`, "data-link": "", class: "button", id: "replay-link", text: "Watch the replay" })]),
      ].filter(Boolean));
    } else resultBox.hidden = true;
    // log
    drawLog(logBox, log, msg.seat);
  }

  rerender = draw;
  connect();
  cleanup = () => { closed = true; if (ws) { ws.onclose = null; ws.close(); } };
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
  app.replaceChildren(h("div", { class: "play" }, [
    h("div", { class: "board-col" }, [h("h2", { class: "table-title" }, [`Replay: `, gameLink(gamesById[t.game] || { id: t.game, title: t.title }), h("span", { class: "muted", text: ` · table ${tableId}` })]), controls, board]),
    h("aside", { class: "side" }, [summary, h("section", { class: "panel log-panel" }, [h("h3", { text: "Game log" }), logBox])]),
  ]));
  const allLog = frames.flatMap((f) => f.log);
  function go(n) {
    i = Math.max(0, Math.min(frames.length - 1, n));
    slider.value = i;
    counter.textContent = `move ${i} / ${frames.length - 1}`;
    const f = frames[i];
    drawBoard(mod, board, { view: f.view, legal: [], seat: null, names: nm, toMove: f.to_move, prompt: null, over: i === frames.length - 1, result: i === frames.length - 1 ? r : null, patterns: patternsOn(), act: () => {}, table: t, mode: "replay" });
    drawLog(logBox, allLog.filter((e) => e.move < i), null, i - 1);
  }
  const keys = (e) => { if (e.key === "ArrowLeft") go(i - 1); else if (e.key === "ArrowRight") go(i + 1); };
  document.addEventListener("keydown", keys);
  cleanup = () => document.removeEventListener("keydown", keys);
  rerender = () => go(i);
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
  games = await api("/api/games");
  gamesById = Object.fromEntries(games.map((g) => [g.id, g]));
  document.getElementById("rules-links").replaceChildren(...games.map((g) => h("a", { href: `/rules/${g.id}`, "data-link": "", text: g.title })));
  await route();
}
start();
