// Tournaments: the list (open for registration, running, finished), a form to create one
// (accounts), and a tournament's page: registration, players, rounds with their tables (links to
// play or watch) and the standings with their tiebreaks, polled while it runs.
// The shell (app.js) calls: setup() once, page(app, path) for its pages.

import { h } from "./svg.js";
import * as online from "./online.js";

const POLL_MS = 5000;

function api(path, opts) { return online.shell.api(path, opts); }
function toast(msg, kind) { online.shell.toast(msg, kind); }
function errText(err) { return String((err && err.message) || err); }
function when(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toLocaleString([], { dateStyle: "medium", timeStyle: "short" }) : "";
}
function pts(x) { // 1.5 -> "1½"; thirds shown to two places
  if (x === null || x === undefined) return "";
  const whole = Math.floor(x + 1e-9), frac = Math.round((x - whole) * 1000) / 1000;
  if (frac === 0) return String(whole);
  if (frac === 0.5) return whole ? `${whole}½` : "½";
  return x.toFixed(2);
}
function formatText(t) {
  const fmt = t.format === "roundrobin" ? "Round robin" : `Swiss, ${t.rounds} round${t.rounds === 1 ? "" : "s"}`;
  return `${t.title} · ${t.table_size} a table · ${fmt} · ${online.clockLabel(t.clock)}`;
}

export function setup() {
  const nav = document.querySelector(".nav-main");
  const board = document.getElementById("nav-leaderboard");
  if (nav && !document.getElementById("nav-tournaments")) {
    const link = h("a", { href: "/tournaments", "data-link": "", id: "nav-tournaments", text: "Tournaments" });
    if (board && board.nextSibling) nav.insertBefore(link, board.nextSibling); else nav.appendChild(link);
  }
}

export async function page(app, path) {
  if (path === "/tournaments" || path === "/tournaments/") return listPage(app);
  const m = path.match(/^\/tournaments\/([0-9a-f]{1,16})$/);
  if (m) return tournamentPage(app, m[1]);
  return false;
}

// -- the list ---------------------------------------------------------------------------------
async function listPage(app) {
  document.title = "Tournaments — gemtable";
  if (!online.me.loaded) await online.loadMe();
  let data;
  try { data = await api("/api/tournaments"); } catch (ex) {
    app.replaceChildren(h("section", { class: "panel" }, [h("h1", { text: "Tournaments" }), h("p", { text: errText(ex) })]));
    return null;
  }
  const section = (title, list, id, empty) => h("section", { class: "panel", id }, [
    h("h2", { text: `${title} (${list.length})` }),
    list.length ? h("ul", { class: "tourn-list" }, list.map((t) => h("li", {}, [
      h("a", { href: `/tournaments/${t.id}`, "data-link": "", class: "tourn-name", text: t.name }),
      h("span", { class: "muted", text: ` ${formatText(t)}` }),
      h("span", { class: "tourn-when", text: t.status === "open" ? `starts ${when(t.starts_at)} · ${t.players}${t.max_players ? `/${t.max_players}` : ""} registered`
        : t.status === "running" ? `round ${t.round} of ${t.rounds} · ${t.players} players` : `${t.players} players` }),
    ]))) : h("p", { class: "muted", text: empty }),
  ]);
  app.replaceChildren(h("div", { class: "tournaments" }, [
    h("h1", { text: "Tournaments" }),
    createForm(),
    section("Open for registration", data.open, "tourn-open", "None open now: create one."),
    section("Running", data.running, "tourn-running", "None running."),
    section("Finished", data.finished, "tourn-finished", "None finished yet."),
    rulesNote(),
  ]));
  return null;
}

function rulesNote() {
  return h("section", { class: "panel tourn-rules" }, [
    h("h2", { text: "How tournaments work" }),
    h("p", { text: "At the start time the first round's tables are made with the paired players seated: they appear in your games. A round ends when every table has a result; the next one starts by itself." }),
    h("p", { text: "Points per table: a win is worth 1, the last place 0, the places between share the rest evenly (three players: 1, ½, 0; four: 1, ⅔, ⅓, 0); shared places share their points. A bye (when the players do not fill the tables) counts as a win." }),
    h("p", { text: "Swiss pairs players with the same score, never twice against the same opponent when it can be avoided; the first seat rotates. Round robin (two players a table): everyone meets everyone once." }),
    h("p", { text: "Ties are broken by Buchholz (the scores of the players you met), then Sonneborn-Berger (the scores of those you finished ahead of), then the rating at the start." }),
    h("p", { text: "A player who neither opens their table nor moves within the no-show time forfeits that game (the last place). Blocking someone does not keep you apart in a tournament, and results are shown to everyone." }),
  ]);
}

function createForm() {
  const games = online.shell.games();
  const details = h("details", { class: "panel tourn-create", id: "tourn-create" }, [h("summary", { text: "Create a tournament" })]);
  if (!online.me.player || !online.me.player.account) {
    details.appendChild(h("p", { class: "muted", text: "Tournaments are for accounts: create an account (or log in) to create one or to register." }));
    return details;
  }
  const name = h("input", { id: "tourn-name", maxlength: 60, required: "", placeholder: "Name", "aria-label": "Name", value: `${online.me.player.name}'s tournament` });
  const gameSel = h("select", { id: "tourn-game", "aria-label": "Game" }, games.map((g) => h("option", { value: g.id, text: g.title })));
  const sizeSel = h("select", { id: "tourn-size", "aria-label": "Players per table" });
  const fmtSel = h("select", { id: "tourn-format", "aria-label": "Format" }, [h("option", { value: "swiss", text: "Swiss" }), h("option", { value: "roundrobin", text: "Round robin" })]);
  const rounds = h("input", { id: "tourn-rounds", type: "number", min: 1, max: 15, value: 3, "aria-label": "Rounds" });
  const clockSel = h("select", { id: "tourn-clock", "aria-label": "Time" }, [
    ["turn:86400", "1 day a move"], ["turn:3600", "1 hour a move"], ["realtime:300:5", "5 min + 5 s"], ["realtime:600:10", "10 min + 10 s"], ["realtime:1200:0", "20 min each"], ["none", "No clock"]]
    .map(([v, t]) => h("option", { value: v, text: t })));
  const start = h("input", { id: "tourn-start", type: "datetime-local", "aria-label": "Start" });
  const soon = new Date(Date.now() + 3600 * 1000);
  soon.setMinutes(0, 0, 0);
  start.value = new Date(soon.getTime() - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const most = h("input", { id: "tourn-max", type: "number", min: 2, max: 256, placeholder: "no limit", "aria-label": "Most players" });
  const sizes = () => {
    const g = games.find((x) => x.id === gameSel.value) || { players: [2] };
    const keep = sizeSel.value;
    sizeSel.replaceChildren(...(g.players || [2]).map((n) => h("option", { value: n, text: `${n} a table` })));
    if ([...sizeSel.options].some((o) => o.value === keep)) sizeSel.value = keep;
  };
  const roundsRow = h("label", {}, ["Rounds ", rounds]);
  const refresh = () => { roundsRow.hidden = fmtSel.value !== "swiss"; };
  gameSel.addEventListener("change", sizes);
  fmtSel.addEventListener("change", refresh);
  sizes(); refresh();
  const form = h("form", { class: "tourn-form" }, [
    h("label", { class: "wide" }, ["Name ", name]),
    h("label", {}, ["Game ", gameSel]), h("label", {}, ["Players ", sizeSel]),
    h("label", {}, ["Format ", fmtSel]), roundsRow,
    h("label", {}, ["Time ", clockSel]), h("label", {}, ["Starts ", start]), h("label", {}, ["Most players ", most]),
    h("p", { class: "wide" }, [h("button", { type: "submit", class: "primary", id: "tourn-submit", text: "Create" })]),
  ]);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const [mode, a, b] = clockSel.value.split(":");
    const clock = mode === "none" ? { mode } : mode === "turn" ? { mode, per_move: Number(a) } : { mode, base: Number(a), increment: Number(b) };
    const body = { name: name.value, game: gameSel.value, players: Number(sizeSel.value), format: fmtSel.value, clock,
      starts_at: new Date(start.value).toISOString() };
    if (fmtSel.value === "swiss") body.rounds = Number(rounds.value);
    if (most.value) body.max_players = Number(most.value);
    try {
      const t = await api("/api/tournaments", { method: "POST", body });
      online.shell.navigate(`/tournaments/${t.id}`);
    } catch (ex) { toast(errText(ex)); }
  });
  details.appendChild(form);
  return details;
}

// -- one tournament ------------------------------------------------------------------------------
async function tournamentPage(app, id) {
  if (!online.me.loaded) await online.loadMe();
  let timer = null;
  let stopped = false;
  const draw = async () => {
    let t;
    try { t = await api(`/api/tournaments/${id}`); } catch (ex) {
      app.replaceChildren(h("section", { class: "panel" }, [h("h1", { text: "Tournament" }), h("p", { text: errText(ex) }),
        h("a", { href: "/tournaments", "data-link": "", text: "All tournaments" })]));
      return;
    }
    if (stopped) return;
    document.title = `${t.name} — gemtable`;
    const open = app.querySelectorAll("details[open]");
    const keepOpen = new Set([...open].map((d) => d.id));
    app.replaceChildren(render(t, draw, keepOpen));
    if (t.status === "open" || t.status === "running") timer = setTimeout(draw, POLL_MS);
  };
  await draw();
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}

function statusLine(t) {
  if (t.status === "open") return `Registration open · starts ${when(t.starts_at)}`;
  if (t.status === "running") return `Round ${t.round} of ${t.rounds} is being played`;
  if (t.status === "cancelled") return "Cancelled: too few players registered";
  return "Finished";
}

function render(t, again, keepOpen) {
  const act = async (what) => {
    try { await api(`/api/tournaments/${t.id}/${what}`, { method: "POST" }); toast(what === "register" ? "You are registered." : "You have withdrawn.", "ok"); again(); }
    catch (ex) { toast(errText(ex)); }
  };
  const account = online.me.player && online.me.player.account;
  let button = null;
  if (t.status === "open") {
    if (t.registered) button = h("button", { type: "button", id: "tourn-unregister", text: "Withdraw", onclick: () => act("unregister") });
    else if (!account) button = h("span", { class: "muted", text: "Log in with an account to register." });
    else if (t.can_register) button = h("button", { type: "button", class: "primary", id: "tourn-register", text: "Register", onclick: () => act("register") });
    else button = h("span", { class: "muted", text: "The tournament is full." });
  }
  const head = h("section", { class: "panel tourn-head" }, [
    h("h1", { text: t.name }),
    h("p", { class: "tourn-status", id: "tourn-status", text: statusLine(t) }),
    h("p", { class: "muted", text: `${formatText(t)} · hosted by ${t.host || "?"} · no-show after ${Math.round(t.no_show / 60)} min` }),
    button ? h("p", {}, [button, t.registered ? h("span", { class: "badge", text: " registered" }) : null].filter(Boolean)) : null,
  ].filter(Boolean));

  const standings = t.standings.length ? h("section", { class: "panel" }, [
    h("h2", { text: "Standings" }),
    h("div", { class: "tourn-scroll" }, [h("table", { class: "tourn-standings", id: "tourn-standings" }, [
      h("thead", {}, [h("tr", {}, [["#", ""], ["Player", ""], ["Points", ""], ["Buchholz", "Buchholz: the sum of the scores of the players you met"],
        ["S-B", "Sonneborn-Berger: the scores of those you finished ahead of"], ["Rating", "rating at the start"], ["Games", ""]]
        .map(([x, title], i) => h("th", { ...(title ? { title } : {}), ...(i >= 2 ? { class: i === 5 ? "num tourn-rating" : "num" } : {}), text: x })))]),
      h("tbody", {}, t.standings.map((s) => h("tr", s.me ? { class: "me" } : {}, [
        h("td", { text: String(s.rank) }), h("td", {}, [h("a", { href: `/players/${encodeURIComponent(s.name)}`, "data-link": "", text: s.name })]),
        h("td", { class: "num", text: pts(s.score) }), h("td", { class: "num", text: pts(s.buchholz) }), h("td", { class: "num", text: pts(s.sonneborn) }),
        h("td", { class: "num tourn-rating", text: s.rating.toFixed(1) }), h("td", { class: "num", text: `${s.games}${s.byes ? ` + ${s.byes} bye` : ""}` }),
      ]))),
    ])]),
  ]) : null;

  const rounds = [...t.rounds_played].reverse().map((r) => {
    const d = h("details", { class: "panel tourn-round", id: `tourn-round-${r.round}` }, [
      h("summary", {}, [h("h2", { text: `Round ${r.round}` }), h("span", { class: "muted", text: ` ${r.games.filter((g) => g.status === "finished" || g.bye).length}/${r.games.length} done` })]),
      h("ul", { class: "tourn-games" }, r.games.map((g) => h("li", g.mine ? { class: "me" } : {}, [
        h("span", { class: "tourn-board", text: g.bye ? "Bye" : `Table ${g.board}` }),
        h("span", { class: "tourn-players" }, g.players.flatMap((p, i) => [
          i ? h("span", { class: "muted", text: " · " }) : null,
          h("span", { class: g.places && g.places[i] === 1 && !g.bye ? "win" : "", text: p }),
          g.points && !g.bye ? h("span", { class: "muted", text: ` ${pts(g.points[i])}` }) : null,
          g.forfeit && g.forfeit.includes(i) ? h("span", { class: "muted", text: " (no-show)" }) : null,
        ]).filter(Boolean)),
        g.table ? h("a", { href: `/table/${g.table}`, "data-link": "", class: "button", text: g.status === "finished" ? "Replay" : g.mine ? "Play" : "Watch" }) : h("span", { class: "muted", text: "1 point" }),
      ]))),
    ]);
    if (r.round === t.round || keepOpen.has(d.id) || t.status === "finished" && r.round === t.rounds) d.open = true;
    return d;
  });

  const entrants = h("details", { class: "panel tourn-entrants", id: "tourn-entrants" }, [
    h("summary", {}, [h("h2", { text: `Players (${t.entrants.length}${t.max_players ? ` of at most ${t.max_players}` : ""})` })]),
    t.entrants.length ? h("ol", { class: "tourn-players-list" }, t.entrants.map((p) => h("li", {}, [
      h("a", { href: `/players/${encodeURIComponent(p.name)}`, "data-link": "", text: p.name })]))) : h("p", { class: "muted", text: "Nobody yet." }),
  ]);
  if (t.status === "open" || keepOpen.has(entrants.id)) entrants.open = true;

  return h("div", { class: "tournaments" }, [
    h("p", { class: "crumbs" }, [h("a", { href: "/tournaments", "data-link": "", text: "← Tournaments" })]),
    head, standings, ...rounds, entrants,
  ].filter(Boolean));
}
