// The lobby's list of tables: filters (game, players, time control, open seat), pages, and
// "Play now" (a seat at the waiting table whose players' ratings are nearest yours, or a new one).
// The filters live in the address (?game=…&players=…&clock=…&open=1), so a reload or a shared
// link shows the same list. Pages follow the server's cursor (GET /api/lobby "next"): paging on
// while tables are added never shows one twice.

import { h } from "./svg.js";
import * as online from "./online.js";
import { t, tn } from "./i18n.js";

// a phone shows shorter pages (the new-table form and the games follow the list)
const PER_PAGE = window.matchMedia("(max-width: 640px)").matches ? 10 : 20;
// (a function: the words are read once the page's language is loaded)
const CLOCKS = () => [["", t("Any time control")], ["none", t("No clock")], ["realtime", t("Real time")], ["turn", t("Turn based")]];

// tokensOf(tableId) / saveToken(tableId, seat, token): this browser's seat keys (app.js)
export function lobbyList({ games, tokensOf, saveToken }) {
  const { api, toast, navigate } = online.shell;
  const params = new URLSearchParams(location.search);
  const gameSel = h("select", { id: "f-game", "aria-label": t("Game") }, [h("option", { value: "", text: t("Any game") }),
    ...games.map((g) => h("option", { value: g.id, text: g.title }))]);
  const playersSel = h("select", { id: "f-players", "aria-label": t("Players") });
  const clockSel = h("select", { id: "f-clock", "aria-label": t("Time control") }, CLOCKS().map(([v, text]) => h("option", { value: v, text })));
  const openBox = h("input", { type: "checkbox", id: "f-open" });
  const playNow = h("button", { type: "button", class: "primary play-now", id: "play-now", text: t("Play now"),
    title: t("Sit down with the waiting players of this game whose rating is nearest yours (with these filters; the longer a table waits, the wider it accepts), or open a table") });
  const count = h("p", { class: "muted list-count", id: "lobby-count", "aria-live": "polite" });
  const body = h("div", { class: "list-body" }, [h("p", { class: "muted", text: t("Loading…") })]);
  const newer = h("button", { type: "button", id: "page-newer", text: t("← Newer") });
  const older = h("button", { type: "button", id: "page-older", text: t("Older →") });
  const pager = h("nav", { class: "pager", "aria-label": t("Pages of tables") }, [newer, older]);
  const el = h("section", { class: "panel tables lobby-list", id: "lobby-list" }, [
    h("div", { class: "list-head" }, [h("h2", { text: t("Tables") }), playNow]),
    h("div", { class: "filters", id: "lobby-filters", role: "group", "aria-label": t("Filter the tables") }, [
      gameSel, playersSel, clockSel, h("label", { class: "toggle" }, [openBox, " " + t("open seat")])]),
    count, body, pager,
  ]);

  function fillPlayers() {
    const g = games.find((x) => x.id === gameSel.value);
    const counts = g ? g.players : [...new Set(games.flatMap((x) => x.players))].sort((a, b) => a - b);
    const prev = playersSel.value;
    playersSel.replaceChildren(h("option", { value: "", text: t("Any players") }), ...counts.map((n) => h("option", { value: String(n), text: tn("{n} player", "{n} players", n) })));
    playersSel.value = counts.includes(Number(prev)) ? prev : "";
  }
  if (games.some((g) => g.id === params.get("game"))) gameSel.value = params.get("game");
  fillPlayers();
  if ([...playersSel.options].some((o) => o.value === params.get("players"))) playersSel.value = params.get("players");
  if (CLOCKS().some(([v]) => v && v === params.get("clock"))) clockSel.value = params.get("clock");
  openBox.checked = params.get("open") === "1";

  function filters() {
    const f = {};
    if (gameSel.value) f.game = gameSel.value;
    if (playersSel.value) f.players = playersSel.value;
    if (clockSel.value) f.clock = clockSel.value;
    if (openBox.checked) f.open = "1";
    return f;
  }
  let cursors = [null]; // the cursor of each page seen so far; the last is the page shown
  let stopped = false;
  let mineOnServer = {}; // table id -> my seat (from /api/me/games: resume from any browser)

  function onFilter() {
    fillPlayers();
    const q = new URLSearchParams(filters()).toString();
    history.replaceState(history.state, "", location.pathname + (q ? `?${q}` : ""));
    cursors = [null];
    load();
  }
  for (const c of [gameSel, playersSel, clockSel, openBox]) c.addEventListener("change", onFilter);
  newer.addEventListener("click", () => { if (cursors.length > 1) { cursors.pop(); load(); } });
  let nextCursor = null;
  older.addEventListener("click", () => { if (nextCursor) { cursors.push(nextCursor); load(); } });

  playNow.addEventListener("click", async () => {
    if (!gameSel.value) { toast(t("Choose a game first: Play now seats you at a table of that game.")); gameSel.focus(); return; }
    if (!(await online.ensureName(t("Pick a name to sit down: the other players see it.")))) return;
    const f = filters();
    const req = { game: f.game };
    if (f.players) req.players = Number(f.players);
    if (f.clock) req.clock = f.clock;
    playNow.disabled = true;
    try {
      const res = await api("/api/lobby/play", { method: "POST", body: req });
      saveToken(res.table.id, res.seat, res.token);
      navigate(`/table/${res.table.id}`);
    } catch (err) { toast(err.message); } finally { playNow.disabled = false; }
  });

  async function join(tb) {
    if (!(await online.ensureName(t("Pick a name to sit down: the other players see it.")))) return;
    try {
      const res = await api(`/api/tables/${tb.id}/join`, { method: "POST", body: {} });
      saveToken(tb.id, res.seat, res.token);
      navigate(`/table/${tb.id}`);
    } catch (err) { toast(err.message); load(); }
  }
  function row(tb) {
    const held = tokensOf(tb.id);
    const mySeat = Object.keys(held)[0] ?? (tb.id in mineOnServer ? String(mineOnServer[tb.id]) : undefined);
    const openSeats = (tb.seats || []).filter((s) => s.open).length;
    const links = [h("a", { href: `/table/${tb.id}`, "data-link": "", text: tb.status === "finished" ? t("Final position") : t("Watch") })];
    if (mySeat !== undefined && tb.status !== "finished") {
      links.unshift(h("a", { href: held[mySeat] ? `/table/${tb.id}#token=${held[mySeat]}` : `/table/${tb.id}`, "data-link": "", text: t("Resume"), class: "resume" }));
    } else if (openSeats && tb.status !== "finished" && online.me.supported) {
      links.unshift(h("button", { type: "button", class: "join primary", "data-join": tb.id, text: t("Join"), onclick: () => join(tb) }));
    }
    if (tb.status === "finished") links.push(h("a", { href: `/replay/${tb.id}`, "data-link": "", text: t("Replay") }));
    const status = tb.status === "finished" ? t("finished") : tb.status === "waiting" ? (openSeats ? tn("{n} open seat", "{n} open seats", openSeats) : t("waiting to start")) : t("running");
    const seatsText = (tb.seats || []).map((s) => s.open ? t("open seat") : (s.kind === "bot" && !/\bbot\b/i.test(s.name) ? t("{name} (bot)", { name: s.player || s.name }) : (s.player || s.name))).join(", ");
    return h("tr", { "data-table": tb.id, class: openSeats ? "has-open" : "" }, [
      h("td", { class: "t-game", text: online.tableTitle(tb) }),
      h("td", { class: "t-seats", text: seatsText }),
      h("td", { class: "t-status" }, [h("span", { class: `status ${tb.status}${openSeats ? " open" : ""}`, text: status }),
        tb.clock && tb.clock.mode && tb.clock.mode !== "none" ? h("span", { class: "badge clock-badge", text: online.clockShort(tb.clock) }) : null,
        tb.seed_fixed ? h("span", { class: "badge seed-fixed", text: t("deal fixed by creator"), title: tb.seed_note ? online.seedNoteText(tb.seed_note) : "" }) : null]),
      h("td", { class: "t-moves", "data-label": t("moves: "), text: tb.version ?? "" }),
      h("td", { class: "links" }, links),
    ]);
  }

  async function load() {
    const q = new URLSearchParams({ ...filters(), per_page: String(PER_PAGE) });
    const cursor = cursors[cursors.length - 1];
    if (cursor) q.set("after", cursor);
    let data;
    try { data = await api(`/api/lobby?${q}`); } catch (err) { count.textContent = err.message; return; }
    if (stopped) return;
    if (online.me.player) {
      try {
        const mg = await api("/api/me/games");
        mineOnServer = Object.fromEntries([...(mg.waiting || []), ...(mg.running || [])].map((t) => [t.id, t.my_seat]));
      } catch { /* keep what we had */ }
    }
    nextCursor = data.next;
    const first = (cursors.length - 1) * PER_PAGE;
    const filtered = Object.keys(filters()).length > 0;
    count.textContent = data.total === 0 ? "" : data.tables.length
      ? (filtered ? tn("{from}–{to} of {n} table (filtered)", "{from}–{to} of {n} tables (filtered)", data.total, { from: first + 1, to: first + data.tables.length })
        : tn("{from}–{to} of {n} table", "{from}–{to} of {n} tables", data.total, { from: first + 1, to: first + data.tables.length }))
      : tn("{n} table", "{n} tables", data.total);
    body.replaceChildren(data.tables.length
      ? h("table", { class: "list tables-list" }, [h("thead", {}, [h("tr", {}, [t("Game"), t("Seats"), t("Status"), t("Moves"), ""].map((x) => h("th", { text: x })))]),
        h("tbody", {}, data.tables.map(row))])
      : h("p", { class: "muted empty", text: filtered ? t("No table matches these filters. Play now opens one for you.") : t("No tables yet: create one, or press Play now.") }));
    newer.disabled = cursors.length <= 1;
    older.disabled = !data.next;
    pager.hidden = cursors.length <= 1 && !data.next;
  }
  load();
  return { el, load, stop: () => { stopped = true; } };
}
