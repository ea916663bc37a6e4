// Tournaments: the list (open for registration, running, finished), a form to create one
// (accounts), and a tournament's page: registration, players, rounds with their tables (links to
// play or watch) and the standings with their tiebreaks, polled while it runs.
// The shell (app.js) calls: setup() once, page(app, path) for its pages.

import { h } from "./svg.js";
import * as online from "./online.js";
import { lang, t, tn } from "./i18n.js";

const POLL_MS = 5000;

function api(path, opts) { return online.shell.api(path, opts); }
function toast(msg, kind) { online.shell.toast(msg, kind); }
function errText(err) { return String((err && err.message) || err); }
function when(iso) {
  const ms = Date.parse(iso);
  // the browser's own date format on English pages; the page's language otherwise
  return Number.isFinite(ms) ? new Date(ms).toLocaleString(lang === "en" ? [] : lang, { dateStyle: "medium", timeStyle: "short" }) : "";
}
function pts(x) { // 1.5 -> "1½"; thirds shown to two places
  if (x === null || x === undefined) return "";
  const whole = Math.floor(x + 1e-9), frac = Math.round((x - whole) * 1000) / 1000;
  if (frac === 0) return String(whole);
  if (frac === 0.5) return whole ? `${whole}½` : "½";
  return x.toFixed(2);
}
function formatText(tour) {
  const fmt = tour.format === "roundrobin" ? t("Round robin") : tn("Swiss, {n} round", "Swiss, {n} rounds", tour.rounds);
  return t("{title} · {size} a table · {format} · {clock}", { title: tour.title, size: tour.table_size, format: fmt, clock: online.clockLabel(tour.clock) });
}

export function setup() {
  const nav = document.querySelector(".nav-main");
  const board = document.getElementById("nav-leaderboard");
  if (nav && !document.getElementById("nav-tournaments")) {
    const link = h("a", { href: "/tournaments", "data-link": "", id: "nav-tournaments", text: t("Tournaments") });
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
  document.title = t("Tournaments") + " — gemtable";
  if (!online.me.loaded) await online.loadMe();
  let data;
  try { data = await api("/api/tournaments"); } catch (ex) {
    app.replaceChildren(h("section", { class: "panel" }, [h("h1", { text: t("Tournaments") }), h("p", { text: errText(ex) })]));
    return null;
  }
  const section = (title, list, id, empty) => h("section", { class: "panel", id }, [
    h("h2", { text: t("{title} ({n})", { title, n: list.length }) }),
    list.length ? h("ul", { class: "tourn-list" }, list.map((tour) => h("li", {}, [
      h("a", { href: "/tournaments/" + tour.id, "data-link": "", class: "tourn-name", text: tour.name }),
      h("span", { class: "muted", text: ` ${formatText(tour)}` }),
      h("span", { class: "tourn-when", text: tour.status === "open"
        ? (tour.max_players ? t("starts {when} · {n}/{most} registered", { when: when(tour.starts_at), n: tour.players, most: tour.max_players })
          : t("starts {when} · {n} registered", { when: when(tour.starts_at), n: tour.players }))
        : tour.status === "running" ? t("round {round} of {rounds} · {n} players", { round: tour.round, rounds: tour.rounds, n: tour.players })
          : t("{n} players", { n: tour.players }) }),
    ]))) : h("p", { class: "muted", text: empty }),
  ]);
  app.replaceChildren(h("div", { class: "tournaments" }, [
    h("h1", { text: t("Tournaments") }),
    createForm(),
    section(t("Open for registration"), data.open, "tourn-open", t("None open now: create one.")),
    section(t("Running"), data.running, "tourn-running", t("None running.")),
    section(t("Finished"), data.finished, "tourn-finished", t("None finished yet.")),
    rulesNote(),
  ]));
  return null;
}

function rulesNote() {
  return h("section", { class: "panel tourn-rules" }, [
    h("h2", { text: t("How tournaments work") }),
    h("p", { text: t("At the start time the first round's tables are made with the paired players seated: they appear in your games. A round ends when every table has a result; the next one starts by itself.") }),
    h("p", { text: t("Points per table: a win is worth 1, the last place 0, the places between share the rest evenly (three players: 1, ½, 0; four: 1, ⅔, ⅓, 0); shared places share their points. A bye (when the players do not fill the tables) counts as a win.") }),
    h("p", { text: t("Swiss pairs players with the same score, never twice against the same opponent when it can be avoided; the first seat rotates. Round robin (two players a table): everyone meets everyone once.") }),
    h("p", { text: t("Ties are broken by Buchholz (the scores of the players you met), then Sonneborn-Berger (the scores of those you finished ahead of), then the rating at the start.") }),
    h("p", { text: t("A player who neither opens their table nor moves within the no-show time forfeits that game (the last place). Blocking someone does not keep you apart in a tournament, and results are shown to everyone.") }),
  ]);
}

function createForm() {
  const games = online.shell.games();
  const details = h("details", { class: "panel tourn-create", id: "tourn-create" }, [h("summary", { text: t("Create a tournament") })]);
  if (!online.me.player || !online.me.player.account) {
    details.appendChild(h("p", { class: "muted", text: t("Tournaments are for accounts: create an account (or log in) to create one or to register.") }));
    return details;
  }
  const name = h("input", { id: "tourn-name", maxlength: 60, required: "", placeholder: t("Name"), "aria-label": t("Name"), value: t("{name}'s tournament", { name: online.me.player.name }) });
  const gameSel = h("select", { id: "tourn-game", "aria-label": t("Game") }, games.map((g) => h("option", { value: g.id, text: g.title })));
  const sizeSel = h("select", { id: "tourn-size", "aria-label": t("Players per table") });
  const fmtSel = h("select", { id: "tourn-format", "aria-label": t("Format") }, [h("option", { value: "swiss", text: t("Swiss") }), h("option", { value: "roundrobin", text: t("Round robin") })]);
  const rounds = h("input", { id: "tourn-rounds", type: "number", min: 1, max: 15, value: 3, "aria-label": t("Rounds") });
  const clockSel = h("select", { id: "tourn-clock", "aria-label": t("Time") }, [
    ["turn:86400", t("1 day a move")], ["turn:3600", t("1 hour a move")], ["realtime:300:5", t("5 min + 5 s")], ["realtime:600:10", t("10 min + 10 s")], ["realtime:1200:0", t("20 min each")], ["none", t("No clock")]]
    .map(([v, label]) => h("option", { value: v, text: label })));
  const start = h("input", { id: "tourn-start", type: "datetime-local", "aria-label": t("Start") });
  const soon = new Date(Date.now() + 3600 * 1000);
  soon.setMinutes(0, 0, 0);
  start.value = new Date(soon.getTime() - soon.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
  const most = h("input", { id: "tourn-max", type: "number", min: 2, max: 256, placeholder: t("no limit"), "aria-label": t("Most players") });
  const sizes = () => {
    const g = games.find((x) => x.id === gameSel.value) || { players: [2] };
    const keep = sizeSel.value;
    sizeSel.replaceChildren(...(g.players || [2]).map((n) => h("option", { value: n, text: t("{n} a table", { n }) })));
    if ([...sizeSel.options].some((o) => o.value === keep)) sizeSel.value = keep;
  };
  const roundsRow = h("label", {}, [t("Rounds") + " ", rounds]);
  const refresh = () => { roundsRow.hidden = fmtSel.value !== "swiss"; };
  gameSel.addEventListener("change", sizes);
  fmtSel.addEventListener("change", refresh);
  sizes(); refresh();
  const form = h("form", { class: "tourn-form" }, [
    h("label", { class: "wide" }, [t("Name") + " ", name]),
    h("label", {}, [t("Game") + " ", gameSel]), h("label", {}, [t("Players") + " ", sizeSel]),
    h("label", {}, [t("Format") + " ", fmtSel]), roundsRow,
    h("label", {}, [t("Time") + " ", clockSel]), h("label", {}, [t("Starts") + " ", start]), h("label", {}, [t("Most players") + " ", most]),
    h("p", { class: "wide" }, [h("button", { type: "submit", class: "primary", id: "tourn-submit", text: t("Create") })]),
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
      const tour = await api("/api/tournaments", { method: "POST", body });
      online.shell.navigate("/tournaments/" + tour.id);
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
    let tour;
    try { tour = await api(`/api/tournaments/${id}`); } catch (ex) {
      app.replaceChildren(h("section", { class: "panel" }, [h("h1", { text: t("Tournament") }), h("p", { text: errText(ex) }),
        h("a", { href: "/tournaments", "data-link": "", text: t("All tournaments") })]));
      return;
    }
    if (stopped) return;
    document.title = tour.name + " — gemtable";
    const open = app.querySelectorAll("details[open]");
    const keepOpen = new Set([...open].map((d) => d.id));
    app.replaceChildren(render(tour, draw, keepOpen));
    if (tour.status === "open" || tour.status === "running") timer = setTimeout(draw, POLL_MS);
  };
  await draw();
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}

function statusLine(tour) {
  if (tour.status === "open") return t("Registration open · starts {when}", { when: when(tour.starts_at) });
  if (tour.status === "running") return t("Round {round} of {rounds} is being played", { round: tour.round, rounds: tour.rounds });
  if (tour.status === "cancelled") return t("Cancelled: too few players registered");
  return t("Finished");
}

function render(tour, again, keepOpen) {
  const act = async (what) => {
    try { await api(`/api/tournaments/${tour.id}/${what}`, { method: "POST" }); toast(what === "register" ? t("You are registered.") : t("You have withdrawn."), "ok"); again(); }
    catch (ex) { toast(errText(ex)); }
  };
  const account = online.me.player && online.me.player.account;
  let button = null;
  if (tour.status === "open") {
    if (tour.registered) button = h("button", { type: "button", id: "tourn-unregister", text: t("Withdraw"), onclick: () => act("unregister") });
    else if (!account) button = h("span", { class: "muted", text: t("Log in with an account to register.") });
    else if (tour.can_register) button = h("button", { type: "button", class: "primary", id: "tourn-register", text: t("Register"), onclick: () => act("register") });
    else button = h("span", { class: "muted", text: t("The tournament is full.") });
  }
  const head = h("section", { class: "panel tourn-head" }, [
    h("h1", { text: tour.name }),
    h("p", { class: "tourn-status", id: "tourn-status", text: statusLine(tour) }),
    h("p", { class: "muted", text: t("{format} · hosted by {host} · no-show after {n} min", { format: formatText(tour), host: tour.host || "?", n: Math.round(tour.no_show / 60) }) }),
    button ? h("p", {}, [button, tour.registered ? h("span", { class: "badge", text: " " + t("registered") }) : null].filter(Boolean)) : null,
  ].filter(Boolean));

  const standings = tour.standings.length ? h("section", { class: "panel" }, [
    h("h2", { text: t("Standings") }),
    h("div", { class: "tourn-scroll" }, [h("table", { class: "tourn-standings", id: "tourn-standings" }, [
      h("thead", {}, [h("tr", {}, [["#", ""], [t("Player"), ""], [t("Points"), ""], ["Buchholz", t("Buchholz: the sum of the scores of the players you met")],
        ["S-B", t("Sonneborn-Berger: the scores of those you finished ahead of")], [t("Rating"), t("rating at the start")], [t("Games"), ""]]
        .map(([x, title], i) => h("th", { ...(title ? { title } : {}), ...(i >= 2 ? { class: i === 5 ? "num tourn-rating" : "num" } : {}), text: x })))]),
      h("tbody", {}, tour.standings.map((s) => h("tr", s.me ? { class: "me" } : {}, [
        h("td", { text: String(s.rank) }), h("td", {}, [h("a", { href: `/players/${encodeURIComponent(s.name)}`, "data-link": "", text: s.name })]),
        h("td", { class: "num", text: pts(s.score) }), h("td", { class: "num", text: pts(s.buchholz) }), h("td", { class: "num", text: pts(s.sonneborn) }),
        h("td", { class: "num tourn-rating", text: s.rating.toFixed(1) }), h("td", { class: "num", text: s.byes ? t("{games} + {byes} bye", { games: s.games, byes: s.byes }) : String(s.games) }),
      ]))),
    ])]),
  ]) : null;

  const rounds = [...tour.rounds_played].reverse().map((r) => {
    const d = h("details", { class: "panel tourn-round", id: `tourn-round-${r.round}` }, [
      h("summary", {}, [h("h2", { text: t("Round {n}", { n: r.round }) }), h("span", { class: "muted", text: " " + t("{done}/{n} done", { done: r.games.filter((g) => g.status === "finished" || g.bye).length, n: r.games.length }) })]),
      h("ul", { class: "tourn-games" }, r.games.map((g) => h("li", g.mine ? { class: "me" } : {}, [
        h("span", { class: "tourn-board", text: g.bye ? t("Bye") : t("Table {n}", { n: g.board }) }),
        h("span", { class: "tourn-players" }, g.players.flatMap((p, i) => [
          i ? h("span", { class: "muted", text: " · " }) : null,
          h("span", { class: g.places && g.places[i] === 1 && !g.bye ? "win" : "", text: p }),
          g.points && !g.bye ? h("span", { class: "muted", text: ` ${pts(g.points[i])}` }) : null,
          g.forfeit && g.forfeit.includes(i) ? h("span", { class: "muted", text: " " + t("(no-show)") }) : null,
        ]).filter(Boolean)),
        g.table ? h("a", { href: `/table/${g.table}`, "data-link": "", class: "button", text: g.status === "finished" ? t("Replay") : g.mine ? t("Play") : t("Watch") }) : h("span", { class: "muted", text: t("1 point") }),
      ]))),
    ]);
    if (r.round === tour.round || keepOpen.has(d.id) || tour.status === "finished" && r.round === tour.rounds) d.open = true;
    return d;
  });

  const entrants = h("details", { class: "panel tourn-entrants", id: "tourn-entrants" }, [
    h("summary", {}, [h("h2", { text: tour.max_players ? t("Players ({n} of at most {most})", { n: tour.entrants.length, most: tour.max_players }) : t("Players ({n})", { n: tour.entrants.length }) })]),
    tour.entrants.length ? h("ol", { class: "tourn-players-list" }, tour.entrants.map((p) => h("li", {}, [
      h("a", { href: `/players/${encodeURIComponent(p.name)}`, "data-link": "", text: p.name })]))) : h("p", { class: "muted", text: t("Nobody yet.") }),
  ]);
  if (tour.status === "open" || keepOpen.has(entrants.id)) entrants.open = true;

  return h("div", { class: "tournaments" }, [
    h("p", { class: "crumbs" }, [h("a", { href: "/tournaments", "data-link": "", text: "← " + t("Tournaments") })]),
    head, standings, ...rounds, entrants,
  ].filter(Boolean));
}
