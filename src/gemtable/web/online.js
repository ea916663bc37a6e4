// Online play for the gemtable shell: who you are (name, account), "My games",
// leaderboards and profiles, and the table's online parts (chat, clocks, the
// connection banner, your-turn signals).  Plain ES module, no build step.
// Everything a player typed is put on the page as text (textContent), never as HTML.

import { h } from "./svg.js";
import { t, tn, render } from "./i18n.js";

// app.js fills these in (api, toast, navigate, games) before anything here runs
export const shell = { api: null, toast: null, navigate: null, games: () => [] };

// -- identity -------------------------------------------------------------------------
// supported: the server knows players (GET /api/me answers); player: {name, account} or null
export const me = { supported: false, player: null, loaded: false };
const listeners = new Set();
export function onMeChange(fn) { listeners.add(fn); return () => listeners.delete(fn); }
function setPlayer(player) {
  me.player = player || null;
  renderMeBox();
  for (const fn of [...listeners]) { try { fn(me.player); } catch (err) { console.error(err); } }
}

let languageListener = null;
// `fn(code)` is told the language an account chose (the server already set this browser's cookie to it)
export function onLanguage(fn) { languageListener = fn; }

export async function loadMe() {
  try {
    const res = await fetch("/api/me"); // as the shell preloads it (no extra header)
    if (res.ok) {
      const data = await res.json();
      if (data && data.lang && languageListener) languageListener(data.lang);
      me.supported = true;
      me.loaded = true;
      setPlayer(data && data.player);
      return me.player;
    }
  } catch { /* no server support: the shell works without names */ }
  me.loaded = true;
  renderMeBox();
  return null;
}

// el.replaceChildren without the empty slots (replaceChildren would show null as text)
function fill(el, ...kids) { el.replaceChildren(...kids.filter((k) => k !== null && k !== undefined && k !== false)); }

function errText(err) { return String((err && err.message) || err); }

// The header: your name (to your profile), log in / create account / log out.
export function renderMeBox() {
  const box = document.getElementById("me-box");
  const mine = document.getElementById("nav-me");
  if (mine) mine.hidden = !me.supported;
  if (!box) return;
  if (!me.supported) { box.replaceChildren(); return; }
  const p = me.player;
  const btn = (text, id, mode) => h("button", { type: "button", class: "me-action", id, text, onclick: () => openAccountDialog(mode) });
  if (!p) {
    box.replaceChildren(btn(t("Pick a name"), "me-pick", "pick"), btn(t("Log in"), "me-login", "login"));
    return;
  }
  fill(box,
    h("a", { href: `/players/${encodeURIComponent(p.name)}`, "data-link": "", class: "me-name", id: "me-name", title: p.account ? t("Your profile (account)") : t("Your profile (guest: no password yet)"), text: p.name }),
    p.account ? null : btn(t("Create account"), "me-register", "register"),
    p.account ? btn(t("Log out"), "me-logout", "logout") : btn(t("Log in"), "me-login", "login"),
  );
}

// A name field plus its submit button; ``onName(name)`` returns a promise.
function nameForm(idPrefix, label, onName, initial = "") {
  const input = h("input", { id: `${idPrefix}-name`, name: "name", maxlength: 24, autocomplete: "nickname", required: "", value: initial, placeholder: t("Your name"), "aria-label": t("Your name") });
  const err = h("p", { class: "form-error", role: "alert", id: `${idPrefix}-error` });
  const form = h("form", { class: "name-form" }, [
    h("div", { class: "name-row" }, [input, h("button", { type: "submit", class: "primary", id: `${idPrefix}-go`, text: label })]),
    err,
  ]);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    err.textContent = "";
    const name = input.value.trim();
    if (!name) { err.textContent = t("Type a name first."); return; }
    try { await onName(name); } catch (ex) { err.textContent = errText(ex); input.focus(); }
  });
  return { form, input, err };
}

export async function pickName(name) {
  const data = await shell.api("/api/me", { method: "POST", body: { name } });
  setPlayer(data.player);
  shell.toast(t("Welcome, {name}", { name: data.player.name }), "ok");
  return data.player;
}

// The first-visit name picker: a small card at the top of the lobby (it never blocks the page).
export function namePickerCard() {
  if (!me.supported || me.player || sessionStorage.getItem("gt.namePickerLater") === "1") return null;
  const card = h("dialog", { open: "", class: "panel name-picker", id: "name-picker", "aria-labelledby": "name-picker-title" });
  const { form, input } = nameForm("pick", t("Play as this name"), async (name) => { await pickName(name); card.remove(); });
  card.replaceChildren(
    h("h2", { id: "name-picker-title", text: t("Welcome! Pick a name to play") }),
    h("p", { class: "muted", text: t("Other players see it at the table and in the lobby. No password needed: add one later to continue on another browser.") }),
    form,
    h("div", { class: "name-picker-more" }, [
      h("button", { type: "button", class: "linkish", id: "pick-have-account", text: t("I have an account: log in"), onclick: () => openAccountDialog("login") }),
      h("button", { type: "button", class: "linkish", id: "pick-later", text: t("Just look around"), onclick: () => { sessionStorage.setItem("gt.namePickerLater", "1"); card.remove(); } }),
    ]),
  );
  const off = onMeChange((p) => { if (p) { card.remove(); off(); } });
  setTimeout(() => { if (card.isConnected && !("ontouchstart" in window)) input.focus({ preventScroll: true }); }, 0);
  return card;
}

// Resolves to the player once they have a name (asks in a dialog), or null if they close it.
export function ensureName(why = t("Pick a name first: the other players see it at the table.")) {
  if (me.player) return Promise.resolve(me.player);
  return new Promise((resolve) => {
    const dlg = openAccountDialog("pick", why);
    const off = onMeChange((p) => { if (p) { off(); resolve(p); } });
    dlg.addEventListener("close", () => { setTimeout(() => { off(); resolve(me.player); }, 0); });
  });
}

// One dialog for: pick a name / rename, log in, create an account (set a password), log out,
// change the password.
export function openAccountDialog(mode, note = null) {
  const old = document.getElementById("account-dialog");
  if (old) old.close();
  const body = h("div", { class: "account-body" });
  const heading = h("h2", { id: "account-title" });
  const close = h("button", { type: "button", class: "dlg-close", "aria-label": t("Close"), text: "✕" });
  const dlg = h("dialog", { class: "account-dialog", id: "account-dialog", "aria-labelledby": "account-title" }, [
    h("div", { class: "dlg-head" }, [heading, close]), body,
  ]);
  close.addEventListener("click", () => dlg.close());
  dlg.addEventListener("click", (e) => { if (e.target === dlg) dlg.close(); });
  dlg.addEventListener("close", () => dlg.remove());
  const done = (text) => { dlg.close(); if (text) shell.toast(text, "ok"); };
  const switchTo = (m) => h("button", { type: "button", class: "linkish", text: { login: t("I have an account: log in"), pick: t("Play as a guest instead"), register: t("Create an account"), password: t("Change your password") }[m], onclick: () => show(m) });

  function passwordForm(id, withName, label, submit) {
    const name = h("input", { id: `${id}-name`, maxlength: 24, autocomplete: "username", placeholder: t("Name"), "aria-label": t("Name"), required: "", value: (me.player && me.player.name) || "" });
    const pass = h("input", { id: `${id}-password`, type: "password", autocomplete: id === "login" ? "current-password" : "new-password", placeholder: t("Password"), "aria-label": t("Password"), required: "", minlength: id === "login" ? null : 8 });
    const err = h("p", { class: "form-error", role: "alert", id: `${id}-error` });
    const form = h("form", { class: "account-form" }, [withName ? name : null, pass, h("button", { type: "submit", class: "primary", id: `${id}-go`, text: label }), err]);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      err.textContent = "";
      try { await submit(name.value.trim(), pass.value); } catch (ex) { err.textContent = errText(ex); }
    });
    return form;
  }

  function show(m) {
    if (m === "pick") {
      heading.textContent = me.player ? t("Change your name") : t("Pick a name");
      const { form } = nameForm("dlg-pick", me.player ? t("Rename") : t("Play as this name"), async (name) => { await pickName(name); done(); }, me.player ? me.player.name : "");
      fill(body, note ? h("p", { text: note }) : null, form, h("p", {}, [switchTo("login")].filter(Boolean)));
    } else if (m === "login") {
      heading.textContent = t("Log in");
      fill(body,
        h("p", { class: "muted", text: t("Continue as the player you are on another browser.") }),
        me.player && !me.player.account ? h("p", { class: "warning", id: "login-warning", text: t("You play as the guest {name} here, without a password: after logging in to another account this browser cannot come back to {name}. Create an account first to keep it.", { name: me.player.name }) }) : null,
        passwordForm("login", true, t("Log in"), async (name, password) => {
          const data = await shell.api("/api/account/login", { method: "POST", body: { name, password } });
          setPlayer(data.player);
          done(t("Logged in as {name}", { name: data.player.name }));
        }),
        me.player ? null : h("p", {}, [switchTo("pick")]),
      );
    } else if (m === "register") {
      heading.textContent = t("Create an account");
      fill(body,
        h("p", { class: "muted", text: me.player ? t("Keep the name {name} and your games: add a password, then log in on any browser. Accounts are rated on the leaderboards.", { name: me.player.name }) : t("A name and a password: log in on any browser. Accounts are rated on the leaderboards.") }),
        passwordForm("register", !me.player, t("Create account"), async (name, password) => {
          const data = await shell.api("/api/account/register", { method: "POST", body: me.player ? { password } : { name, password } });
          setPlayer(data.player);
          done(t("Account created"));
        }),
      );
    } else if (m === "logout") {
      heading.textContent = t("Log out");
      const logout = (everywhere) => async () => {
        try {
          await shell.api("/api/account/logout", { method: "POST", body: everywhere ? { everywhere: true } : {} });
          setPlayer(null);
          done(everywhere ? t("Logged out on every browser") : t("Logged out"));
        } catch (ex) { shell.toast(errText(ex)); }
      };
      fill(body,
        h("p", { text: t("This browser forgets who you are; log in again with your name and password.") }),
        h("p", {}, [h("button", { type: "button", class: "primary", id: "logout-go", text: t("Log out"), onclick: logout(false) })]),
        h("p", {}, [h("button", { type: "button", class: "linkish", id: "logout-everywhere", text: t("Log out on every browser"), onclick: logout(true) })]),
        me.player && me.player.account ? h("p", {}, [switchTo("password")]) : null,
      );
    } else if (m === "password") {
      heading.textContent = t("Change your password");
      const current = h("input", { id: "password-current", type: "password", autocomplete: "current-password", placeholder: t("Current password"), "aria-label": t("Current password"), required: "" });
      const fresh = h("input", { id: "password-new", type: "password", autocomplete: "new-password", placeholder: t("New password"), "aria-label": t("New password"), required: "", minlength: 8 });
      const err = h("p", { class: "form-error", role: "alert", id: "password-error" });
      const form = h("form", { class: "account-form" }, [current, fresh, h("button", { type: "submit", class: "primary", id: "password-go", text: t("Change password") }), err]);
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        err.textContent = "";
        try {
          await shell.api("/api/account/password", { method: "POST", body: { password: current.value, new_password: fresh.value } });
          done(t("Password changed: every other browser is logged out"));
        } catch (ex) { err.textContent = errText(ex); }
      });
      fill(body, h("p", { class: "muted", text: t("Every other browser logged in as you is logged out; this one stays logged in.") }), form);
    }
  }
  show(mode);
  document.body.appendChild(dlg);
  dlg.showModal();
  const first = dlg.querySelector("input, button.primary");
  if (first) first.focus();
  return dlg;
}

// -- pages: my games, leaderboard, profile -----------------------------------------------
function gameTitle(id) { const g = shell.games().find((x) => x.id === id); return g ? g.title : id; }
// A table's game title in the page's language (the table's own "title" is the English one)
export function tableTitle(tb) { const g = shell.games().find((x) => x.id === tb.game); return g ? g.title : tb.title; }
function when(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric" }) + " " + d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}
function ordinal(n) { return n === 1 ? t("1st") : n === 2 ? t("2nd") : n === 3 ? t("3rd") : t("{n}th", { n }); }

// "won" / "2nd of 3" and the scores, for a finished game seen from one seat
export function resultText(tb, seat) {
  const r = tb.result || {};
  const names = (tb.seats || []).map((s) => s.player || s.name);
  let head = "";
  if (seat !== null && seat !== undefined && r.ranking) {
    const won = (r.winners || tb.winners || []).includes(seat);
    head = won ? ((r.winners || []).length > 1 ? t("shared win") : t("won")) : t("{place} of {n}", { place: ordinal(r.ranking[seat]), n: names.length });
  }
  const scores = r.scores ? names.map((n, i) => `${n} ${r.scores[i]}`).join(" · ") : "";
  const replaced = r.replaced && r.replaced.length ? " " + t("(bot took over: {names})", { names: r.replaced.map((p) => names[p]).join(", ") }) : "";
  return { head, scores: scores + replaced };
}

function seatsLine(tb) {
  return (tb.seats || []).map((s) => s.open ? t("open seat") : (s.player || s.name)).join(", ");
}

function needName(app, what) {
  app.replaceChildren(h("section", { class: "panel narrow-page" }, [
    h("h1", { text: what }),
    h("p", { text: t("Pick a name first: your games follow your name.") }),
    h("p", {}, [h("button", { type: "button", class: "primary", text: t("Pick a name"), onclick: () => openAccountDialog("pick") }), " ",
      h("button", { type: "button", text: t("Log in"), onclick: () => openAccountDialog("login") })]),
  ]));
}

export async function myGamesPage(app) {
  document.title = t("My games — gemtable");
  if (!me.loaded) await loadMe();
  if (!me.player) {
    needName(app, t("My games"));
    const off = onMeChange((p) => { if (p) { off(); myGamesPage(app); } });
    return () => off();
  }
  const data = await shell.api("/api/me/games");
  const section = (id, title, items, row, empty) => h("section", { class: "panel my-games", id }, [
    h("h2", { text: t("{title} ({n})", { title, n: items.length }) }),
    items.length ? h("table", { class: "list tables-list" }, [h("tbody", {}, items.map(row))]) : h("p", { class: "muted", text: empty }),
  ]);
  const base = (tb, status, links, seats = null) => h("tr", { "data-table": tb.id }, [
    h("td", { class: "t-game", text: tableTitle(tb) || gameTitle(tb.game) }),
    h("td", { class: "t-seats", text: seats || seatsLine(tb) }),
    h("td", { class: "t-status" }, [status]),
    h("td", { class: "t-moves t-when", text: when(tb.updated_at || tb.created_at) }),
    h("td", { class: "links" }, links),
  ]);
  const myTurn = (tb) => (tb.to_move || []).includes(tb.my_seat);
  const running = [...(data.running || [])].sort((a, b) => Number(myTurn(b)) - Number(myTurn(a)));
  app.replaceChildren(h("div", { class: "my-page" }, [
    h("h1", { text: t("My games — {name}", { name: me.player.name }) }),
    section("my-waiting", t("Waiting to start"), data.waiting || [], (tb) => base(tb, h("span", { class: "status open", text: t("waiting") }),
      [h("a", { href: `/table/${tb.id}`, "data-link": "", class: "resume", text: t("Open") })]), t("No table waiting for players.")),
    section("my-running", t("Running"), running, (tb) => base(tb, h("span", { class: `status running${myTurn(tb) ? " your-turn" : ""}`, text: myTurn(tb) ? t("your turn") : t("running") }),
      [h("a", { href: `/table/${tb.id}`, "data-link": "", class: "resume", text: t("Resume") })]), t("No running game. Join one in the lobby.")),
    section("my-finished", t("Finished"), data.finished || [], (tb) => {
      const r = resultText(tb, tb.my_seat);
      return base(tb, h("span", { class: "status finished", text: r.head || t("finished"), title: r.scores }),
        [h("a", { href: `/replay/${tb.id}`, "data-link": "", text: t("Replay") })], r.scores);
    }, t("No finished game yet.")),
  ]));
  return null;
}

// -- bot levels: their names (easiest first) and, per game, their ratings from games between the bots
let botsPromise = null;
export function botInfo() {
  if (!botsPromise) {
    botsPromise = shell.api("/api/bots").then((b) => ({ levels: {}, kinds: [], ratings: {}, ...b }));
    botsPromise.catch(() => { botsPromise = null; }); // asked again next time
  }
  return botsPromise;
}
export function levelRating(info, gameId, level) {
  const r = info && info.ratings && info.ratings[gameId];
  return r && r[level] ? r[level].rating : null;
}
// A bot level's name in the page's language ("easy" -> "leicht"); a level or kind the
// catalogue does not know keeps its program name.
export function levelName(level) {
  const names = { easy: t("easy"), medium: t("medium"), hard: t("hard"), expert: t("expert"), random: t("random") };
  return names[level] || level;
}
// "Medium bot · rating 23" (a rated level) or "Medium bot"; plural for a group of seats
export function levelLabel(level, rating = null, plural = false) {
  const kind = levelName(level);
  const name = plural ? t("{Level} bots", { Level: `${kind.charAt(0).toUpperCase()}${kind.slice(1)}` })
    : t("{Level} bot", { Level: `${kind.charAt(0).toUpperCase()}${kind.slice(1)}` });
  return rating === null || rating === undefined ? name : t("{name} · rating {rating}", { name, rating: Math.round(rating) });
}
function spokenList(words) {
  return words.length < 2 ? words.join("") : t("{first} and {last}", { first: words.slice(0, -1).join(", "), last: words[words.length - 1] });
}

export async function leaderboardPage(app, gameId) {
  const games = shell.games();
  const id = gameId && games.some((g) => g.id === gameId) ? gameId : (games[0] && games[0].id);
  document.title = t("Leaderboard: {game}", { game: gameTitle(id) }) + " — gemtable";
  const tabs = h("nav", { class: "tabs", "aria-label": t("Games") }, games.map((g) => h("a", { href: `/leaderboard/${g.id}`, "data-link": "", class: g.id === id ? "current" : "", "aria-current": g.id === id ? "page" : null, text: g.title })));
  const body = h("div", {}, [h("p", { class: "muted", text: t("Loading…") })]);
  app.replaceChildren(h("section", { class: "panel leaderboard" }, [h("h1", { text: t("Leaderboard: {game}", { game: gameTitle(id) }) }), tabs, body]));
  const rows = await shell.api(`/api/leaderboard/${encodeURIComponent(id)}`);
  const bots = await botInfo().catch(() => null);
  const levels = bots ? Object.keys(bots.levels) : [];
  const rated = levels.filter((l) => levelRating(bots, id, l) !== null);
  fill(body,
    h("p", { class: "muted", text: levels.length
      ? t("Ratings (OpenSkill) from finished games of players with an account, and of the bots: see where you stand against the {levels} bots. Guests are not rated. If a bot plays more than one of your moves in five while you are away, your rating does not change for that game (the others' does); resigning, or leaving a game for a bot to finish, counts as last place.", { levels: spokenList(levels.map(levelName)) })
      : t("Ratings (OpenSkill) from finished games of players with an account, and of the bots: see where you stand against the bots. Guests are not rated. If a bot plays more than one of your moves in five while you are away, your rating does not change for that game (the others' does); resigning, or leaving a game for a bot to finish, counts as last place.") }),
    rated.length ? h("p", { class: "muted", id: "level-ratings", text: t("The bot levels rated in games against each other, on the same scale: {levels}.", { levels: rated.map((l) => `${levelName(l)} ${Math.round(levelRating(bots, id, l))}`).join(", ") }) }) : null,
    rows.length ? h("table", { class: "list board-list", id: "leaderboard" }, [
      h("thead", {}, [h("tr", {}, ["#", t("Player"), t("Rating"), t("Games")].map((x, i) => h("th", { class: i === 2 || i === 3 ? "num" : "", text: x })))]),
      h("tbody", {}, rows.map((r) => h("tr", { class: `${r.bot ? "bot" : ""}${me.player && r.name === me.player.name ? " mine" : ""}` }, [
        h("td", { class: "num", text: String(r.rank) }),
        h("td", {}, [h("a", { href: `/players/${encodeURIComponent(r.name)}`, "data-link": "", text: r.name }),
          r.bot && !/^bot\b/i.test(r.name) ? h("span", { class: "badge", text: t("bot") }) : null]),
        h("td", { class: "num", title: `μ ${Number(r.mu).toFixed(1)}, σ ${Number(r.sigma).toFixed(1)}`, text: Number(r.ordinal).toFixed(1) }),
        h("td", { class: "num", text: String(r.games) }),
      ]))),
    ]) : h("p", { class: "muted", id: "leaderboard-empty", text: t("Nobody is rated in this game yet: finish a game with an account to appear here.") }),
  );
  return null;
}

// the share of a player's finished games they played to the end (a game a bot finished for
// them after they left is abandoned; resigning is not abandoning)
function finishedLine(f) {
  if (!f || !f.games) return null;
  const pct = Math.round(100 * f.share);
  return h("p", { class: `finished-share${f.share < 0.9 ? " low" : ""}`, id: "profile-finished" }, [
    h("b", { text: t("Finishes {pct}% of games", { pct }) }),
    h("span", { class: "muted", text: " · " + (f.abandoned
      ? t("{done} of {n} played to the end, {abandoned} abandoned (a bot finished after they left)", { done: f.games - f.abandoned, n: f.games, abandoned: f.abandoned })
      : t("{done} of {n} played to the end", { done: f.games - f.abandoned, n: f.games })) }),
  ]);
}

export async function profilePage(app, name) {
  document.title = `${name} — gemtable`;
  const p = await shell.api(`/api/players/${encodeURIComponent(name)}`);
  const ratings = Object.entries(p.ratings || {});
  const isMe = me.player && me.player.name.toLowerCase() === p.name.toLowerCase();
  app.replaceChildren(h("div", { class: "profile" }, [
    h("section", { class: "panel" }, [
      h("h1", {}, [p.name, " ", h("span", { class: "badge", text: p.bot ? t("bot") : p.account ? t("account") : t("guest") })]),
      isMe ? h("p", {}, [
        h("a", { href: "/me", "data-link": "", class: "button", text: t("My games") }), " ",
        h("button", { type: "button", text: t("Change name"), onclick: () => openAccountDialog("pick") }), " ",
        p.account ? null : h("button", { type: "button", class: "primary", text: t("Create account"), onclick: () => openAccountDialog("register") }),
      ]) : null,
      finishedLine(p.finished),
      h("h2", { text: t("Ratings") }),
      ratings.length ? h("table", { class: "list", id: "profile-ratings" }, [
        h("thead", {}, [h("tr", {}, [t("Game"), t("Rating"), t("Games"), ""].map((x, i) => h("th", { class: i === 1 || i === 2 ? "num" : "", text: x })))]),
        h("tbody", {}, ratings.map(([g, r]) => h("tr", {}, [
          h("td", { text: gameTitle(g) }),
          h("td", { class: "num", text: r.ordinal !== undefined ? Number(r.ordinal).toFixed(1) : "" }),
          h("td", { class: "num", text: r.games !== undefined ? String(r.games) : "" }),
          h("td", {}, [h("a", { href: `/leaderboard/${g}`, "data-link": "", text: r.rank ? t("#{rank} on the leaderboard", { rank: r.rank }) : t("leaderboard") })]),
        ]))),
      ]) : h("p", { class: "muted", text: p.account || p.bot ? t("No rated game yet.") : t("Guests are not rated: create an account to appear on the leaderboards.") }),
    ]),
    h("section", { class: "panel" }, [
      h("h2", { text: t("Recent games") }),
      (p.recent || []).length ? h("table", { class: "list tables-list", id: "profile-recent" }, [h("tbody", {}, p.recent.map((tb) => {
        const seat = tb.my_seat ?? tb.seat ?? (tb.seats || []).findIndex((s) => (s.player || s.name) === p.name);
        const r = resultText(tb, seat >= 0 ? seat : null);
        return h("tr", { "data-table": tb.id }, [
          h("td", { class: "t-game", text: tableTitle(tb) || gameTitle(tb.game) }),
          h("td", { class: "t-seats", text: r.scores || seatsLine(tb) }),
          h("td", { class: "t-status" }, [h("span", { class: "status finished", text: r.head || t("finished") })]),
          h("td", { class: "t-moves t-when", text: when(tb.updated_at || tb.finished_at) }),
          h("td", { class: "links" }, [h("a", { href: `/replay/${tb.id}`, "data-link": "", text: t("Replay") })]),
        ]);
      }))]) : h("p", { class: "muted", text: t("No finished game yet.") }),
    ]),
  ]));
  return null;
}

// -- at the table: chat -----------------------------------------------------------------
export const CHAT_MAX = 500;
// what other modules add to a chat line once built (moderation.js: the report flag)
export const chatHooks = { decorate: null };

// The chat panel: lines as text only; ``send(text)`` returns false when it could not be sent.
export function chatPanel(send, { open = true } = {}) {
  const list = h("ol", { class: "chat-log", id: "chat-log", "aria-live": "polite" });
  const input = h("input", { id: "chat-input", maxlength: CHAT_MAX, autocomplete: "off", placeholder: t("Say something…"), "aria-label": t("Chat message") });
  const count = h("span", { class: "chat-count muted", id: "chat-count", text: `0/${CHAT_MAX}` });
  const sendBtn = h("button", { type: "submit", id: "chat-send", text: t("Send") });
  const unread = h("span", { class: "badge unread", id: "chat-unread", hidden: "" });
  const summary = h("summary", { class: "fold-title" }, [t("Chat") + " ", unread]);
  const muteBox = h("label", { class: "toggle chat-mute", hidden: "" });
  const form = h("form", { class: "chat-form" }, [input, sendBtn]);
  const panel = h("details", { class: "panel chat-panel fold", id: "chat-panel", open: open ? "" : null }, [summary, list, form, h("div", { class: "chat-foot" }, [count, muteBox])]);
  const seen = new Set();
  let unseen = 0;
  let mySeat = null;
  let enabled = true;
  const refreshCount = () => {
    count.textContent = `${input.value.length}/${CHAT_MAX}`;
    count.classList.toggle("full", input.value.length >= CHAT_MAX);
  };
  input.addEventListener("input", refreshCount);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || !enabled) return;
    if (send(text) !== false) { input.value = ""; refreshCount(); }
  });
  panel.addEventListener("toggle", () => { if (panel.open) { unseen = 0; unread.hidden = true; pop.hidden = true; list.scrollTop = list.scrollHeight; } });
  // A message the player cannot see (the chat folded, or scrolled out of sight: on a phone it
  // sits below the board) pops up at the bottom of the screen for a few seconds, clear of the
  // prompt at the top; a tap on it opens the chat.
  const pop = h("button", { type: "button", class: "chat-toast", id: "chat-toast", hidden: "", "aria-live": "polite",
    onclick: () => { pop.hidden = true; panel.open = true; panel.scrollIntoView({ block: "end", behavior: "smooth" }); input.focus({ preventScroll: true }); } });
  let popTimer = null;
  function inSight() {
    if (!panel.open || !panel.isConnected) return false;
    const r = list.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.height > 0;
  }
  function popUp(line) {
    pop.replaceChildren(h("b", { text: `${speaker(line)}: ` }), h("span", { text: lineText(line).slice(0, 140) }));
    pop.hidden = false;
    clearTimeout(popTimer);
    popTimer = setTimeout(() => { pop.hidden = true; }, 6000);
  }

  const speaker = (line) => line.name ?? (line.seat === null || line.seat === undefined ? t("spectator") : t("seat {n}", { n: line.seat + 1 }));
  // a system line (joins, timeouts, undo…) comes with its message too: shown in the page's language
  const lineText = (line) => (line.system && line.msg ? render(line.msg) : String(line.text ?? ""));
  function lineEl(line) {
    const mine = !line.system && mySeat !== null && line.seat === mySeat;
    const at = line.at ? new Date(typeof line.at === "number" && line.at < 1e12 ? line.at * 1000 : line.at) : null;
    const li = h("li", { class: `chat-line${line.system ? " system" : ""}${mine ? " mine" : ""}`, "data-id": line.id ?? "" });
    if (at && !Number.isNaN(at.getTime())) li.title = at.toLocaleTimeString();
    if (!line.system) li.appendChild(h("b", { class: "chat-name", text: `${speaker(line)}: ` }));
    li.appendChild(h("span", { class: "chat-text", text: lineText(line) })); // text, never HTML
    if (chatHooks.decorate && !mine) chatHooks.decorate(li, line);
    return li;
  }
  function add(line, count = true) {
    if (line.id !== undefined && line.id !== null) { if (seen.has(line.id)) return; seen.add(line.id); }
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
    list.appendChild(lineEl(line));
    while (list.children.length > 200) list.firstChild.remove();
    if (atBottom || (mySeat !== null && line.seat === mySeat)) list.scrollTop = list.scrollHeight;
    if (count && !panel.open && !line.system) { unseen += 1; unread.textContent = String(unseen); unread.hidden = false; }
    if (count && !line.system && !(mySeat !== null && line.seat === mySeat) && !inSight()) popUp(line);
  }
  return {
    el: panel,
    toast: pop,
    setSeat(seat) { mySeat = seat ?? null; },
    reset(lines) { seen.clear(); list.replaceChildren(); for (const l of lines || []) add(l, false); list.scrollTop = list.scrollHeight; },
    add,
    // a line a moderator hid: its text goes, everywhere it is shown
    hide(id, line) {
      const old = list.querySelector(`li[data-id="${CSS.escape(String(id))}"]`);
      if (old && line) old.replaceWith(lineEl(line));
    },
    setEnabled(on, why = "") {
      enabled = on;
      input.disabled = !on;
      sendBtn.disabled = !on;
      input.placeholder = on ? t("Say something…") : (why || t("Chat is closed"));
    },
    // the host's switch: spectators may not chat
    setMute(show, on, onChange) {
      muteBox.hidden = !show;
      if (!show) { muteBox.replaceChildren(); return; }
      const box = h("input", { type: "checkbox", id: "mute-spectators" });
      box.checked = !!on;
      box.addEventListener("change", () => onChange(box.checked));
      muteBox.replaceChildren(box, " " + t("mute spectators"));
    },
  };
}

// -- at the table: clocks -----------------------------------------------------------------
// remaining ms -> "4:05", "1:02:03", "23 h 10 m", "2 d 3 h"
export function formatClock(ms, mode) {
  if (ms === null || ms === undefined) return "–";
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (mode === "turn" && s >= 3600) {
    const d = Math.floor(s / 86400), hh = Math.floor((s % 86400) / 3600), mm = Math.floor((s % 3600) / 60);
    return d ? `${d} d ${hh} h` : `${hh} h ${String(mm).padStart(2, "0")} m`;
  }
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${String(ss).padStart(2, "0")}` : `${mm}:${String(ss).padStart(2, "0")}`;
}

export function clockLabel(c) {
  if (!c || !c.mode || c.mode === "none") return t("no clock");
  if (c.mode === "realtime") return t("real time: {min} min + {s} s a move", { min: Math.round((c.base || 0) / 60), s: c.increment || 0 });
  if (c.mode === "turn") {
    const s = c.per_move || 0;
    if (s >= 86400 && s % 86400 === 0) return tn("turn based: {n} day a move", "turn based: {n} days a move", s / 86400);
    return s >= 3600 ? t("turn based: {n} h a move", { n: Math.round(s / 3600) }) : t("turn based: {n} min a move", { n: Math.round(s / 60) });
  }
  return String(c.mode);
}

// The time control without its kind ("10 min + 5 s a move", "1 day a move"): the lobby's badge.
export function clockShort(c) {
  if (!c || !c.mode || c.mode === "none") return t("no clock");
  if (c.mode === "realtime") return t("{min} min + {s} s a move", { min: Math.round((c.base || 0) / 60), s: c.increment || 0 });
  if (c.mode === "turn") {
    const s = c.per_move || 0;
    if (s >= 86400 && s % 86400 === 0) return tn("{n} day a move", "{n} days a move", s / 86400);
    return s >= 3600 ? t("{n} h a move", { n: Math.round(s / 3600) }) : t("{n} min a move", { n: Math.round(s / 60) });
  }
  return String(c.mode);
}

// The note a table whose creator chose the seed carries: the server sends its English
// sentence (table.py SEED_NOTE); the page shows it in its own language.
export function seedNoteText(note) {
  if (!note) return t("The deal was fixed by the table's creator.");
  return note === SEED_NOTE ? t("The deal was fixed by the table's creator, who chose its seed: they can know every hidden card and the order of what is drawn.") : note;
}
const SEED_NOTE = "The deal was fixed by the table's creator, who chose its seed: they can know every hidden card and the order of what is drawn.";

// One chip per seat with its time, counting down locally for the running seats.
export function clockStrip() {
  const el = h("div", { class: "clocks", id: "clocks", hidden: "", "aria-label": t("Clocks") });
  let clock = null, names = [], mySeat = null, got = 0, timer = null;
  function low(c, ms) {
    if (c.mode === "turn") return ms < Math.min(3600e3, (c.per_move || 0) * 100);
    return ms < Math.max(10e3, Math.min(30e3, (c.base || 0) * 100));
  }
  function tick() {
    if (!clock) return;
    const running = new Set(clock.running || []);
    const elapsed = Date.now() - got;
    for (const chip of el.children) {
      const p = Number(chip.dataset.seat);
      const base = (clock.remaining || [])[p];
      const ms = base === null || base === undefined ? null : (running.has(p) ? base - elapsed : base);
      chip.querySelector(".time").textContent = formatClock(ms, clock.mode);
      chip.classList.toggle("running", running.has(p));
      chip.classList.toggle("low", ms !== null && low(clock, ms));
      chip.classList.toggle("out", ms !== null && ms <= 0);
    }
  }
  return {
    el,
    update(c, seatNames, seat, away = []) {
      clock = c && c.mode && c.mode !== "none" && Array.isArray(c.remaining) ? c : null;
      names = seatNames; mySeat = seat;
      got = Date.now();
      clearInterval(timer);
      if (!clock) { el.hidden = true; el.replaceChildren(); return; }
      el.hidden = false;
      el.title = clockLabel(clock);
      el.replaceChildren(...names.map((n, p) => h("span", { class: `clock${p === mySeat ? " mine" : ""}${away[p] ? " away" : ""}`, "data-seat": p }, [
        h("span", { class: "who", text: n }), h("span", { class: "time" }),
      ])));
      tick();
      if ((clock.running || []).length) timer = setInterval(tick, 250);
    },
    stop() { clearInterval(timer); },
  };
}

// -- at the table: connection banner ------------------------------------------------------
export function connectionBanner() {
  const text = h("span", { class: "conn-text" });
  const retry = h("button", { type: "button", class: "small", id: "conn-retry", text: t("Retry now") });
  const el = h("div", { class: "conn-banner", id: "conn-banner", role: "status", hidden: "" }, [text, retry]);
  let countdown = null;
  return {
    el,
    offline(secondsUntil, onRetry, why = t("Connection lost")) {
      clearInterval(countdown);
      el.hidden = false;
      el.className = "conn-banner";
      retry.hidden = !onRetry;
      retry.onclick = onRetry;
      const until = Date.now() + secondsUntil * 1000;
      const show = () => {
        const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
        text.textContent = left > 0 ? t("{why}: reconnecting in {left} s… Your moves are safe; you can play again once connected.", { why, left }) : t("{why}: reconnecting…", { why });
      };
      show();
      countdown = setInterval(show, 500);
    },
    reconnecting() { clearInterval(countdown); el.hidden = false; text.textContent = t("Reconnecting…"); retry.hidden = true; },
    gone(message) {
      clearInterval(countdown);
      el.hidden = false;
      el.className = "conn-banner gone";
      retry.hidden = true;
      text.replaceChildren(h("b", { text: message }), " ", h("a", { href: "/", "data-link": "", text: t("Back to the lobby") }));
    },
    online() { clearInterval(countdown); el.hidden = true; },
    stop() { clearInterval(countdown); },
  };
}

// -- your turn: tab title and an optional sound --------------------------------------------
export function soundOn() { return localStorage.getItem("gt.sound") === "1"; }
let audio = null;
export function chime() {
  if (!soundOn()) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const t = audio.currentTime;
    for (const [i, f] of [[0, 660], [1, 880]]) {
      const o = audio.createOscillator(), g = audio.createGain();
      o.frequency.value = f; o.type = "sine";
      g.gain.setValueAtTime(0.0001, t + i * 0.14);
      g.gain.exponentialRampToValueAtTime(0.18, t + i * 0.14 + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t + i * 0.14 + 0.25);
      o.connect(g).connect(audio.destination);
      o.start(t + i * 0.14); o.stop(t + i * 0.14 + 0.3);
    }
    document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
  } catch { /* no audio: the title still says it */ }
}

export function setupSoundToggle() {
  const box = document.getElementById("sound-toggle");
  if (!box) return;
  box.checked = soundOn();
  box.addEventListener("change", () => { localStorage.setItem("gt.sound", box.checked ? "1" : "0"); if (box.checked) chime(); });
}
