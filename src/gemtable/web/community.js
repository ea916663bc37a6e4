// The community between visits: the "your turn" list in the header, browser notifications,
// mail settings, friends, blocks and invitations to a seat.
// The shell (app.js) calls: setup() once, page(app, path) for its pages, myGamesExtras(app),
// profileExtras(app, name) and inviteBox(tableId, table) at the waiting table.

import { h } from "./svg.js";
import * as online from "./online.js";
import { t, tn } from "./i18n.js";

const POLL_MS = 30000;
const NOTIFIED = "gt.turns.notified"; // table id -> the "since" already notified (shared by the tabs)
let turns = [];
let timer = null;

function api(path, opts) { return online.shell.api(path, opts); }
function toast(msg, kind) { online.shell.toast(msg, kind); }
function errText(err) { return String((err && err.message) || err); }
function ago(iso) {
  const s = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (!Number.isFinite(s)) return "";
  if (s < 60) return t("just now");
  if (s < 3600) return t("{n} min", { n: Math.floor(s / 60) });
  if (s < 86400) return t("{n} h", { n: Math.floor(s / 3600) });
  return t("{n} d", { n: Math.floor(s / 86400) });
}

// "… invites you to …" with its parts as elements: `text` (already translated) is split at
// each {field} named in `parts`, which puts its element there (word order is the language's)
function withParts(text, parts) {
  return text.split(/(\{\w+\})/).filter((x) => x !== "").map((x) => {
    const m = x.match(/^\{(\w+)\}$/);
    return m && m[1] in parts ? parts[m[1]] : x;
  });
}
function withWhom(others) {
  return others.length ? t("with {names}", { names: others.join(", ") }) : "";
}

// -- the header: your turn ------------------------------------------------------------------
export function setup() {
  const nav = document.querySelector(".nav-main");
  const mine = document.getElementById("nav-me");
  if (nav && !document.getElementById("nav-friends")) {
    const friends = h("a", { href: "/friends", "data-link": "", id: "nav-friends", hidden: "", text: t("Friends") });
    const settings = h("a", { href: "/settings", "data-link": "", id: "nav-settings", hidden: "", text: t("Settings") });
    if (mine && mine.nextSibling) nav.insertBefore(friends, mine.nextSibling); else nav.appendChild(friends);
    nav.insertBefore(settings, friends.nextSibling);
  }
  const bar = document.querySelector(".topbar");
  const brand = bar && bar.querySelector(".brand");
  if (bar && brand && !document.getElementById("turns")) {
    const box = h("div", { class: "turns", id: "turns", hidden: "" }, [
      h("button", { type: "button", class: "turns-button", id: "turns-button", "aria-expanded": "false", "aria-controls": "turns-list" }),
      h("div", { class: "turns-list", id: "turns-list", hidden: "" }),
    ]);
    brand.after(box);
    const button = box.querySelector("#turns-button");
    const list = box.querySelector("#turns-list");
    const setOpen = (open) => { list.hidden = !open; button.setAttribute("aria-expanded", open ? "true" : "false"); };
    button.addEventListener("click", (e) => { e.stopPropagation(); setOpen(list.hidden); });
    list.addEventListener("click", (e) => { if (e.target.closest("a")) setOpen(false); });
    document.addEventListener("click", (e) => { if (!box.contains(e.target)) setOpen(false); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape") setOpen(false); });
  }
  online.onMeChange(() => { showNav(); refresh(); });
  // a table's move (the shell marks it on <body data-version>): the list is asked again shortly after
  let soon = null;
  new MutationObserver(() => { clearTimeout(soon); soon = setTimeout(refresh, 1500); })
    .observe(document.body, { attributes: true, attributeFilter: ["data-version"] });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  window.addEventListener("focus", () => refresh());
  showNav();
  refresh();
}

function showNav() {
  const on = Boolean(online.me.player);
  for (const id of ["nav-friends", "nav-settings"]) {
    const el = document.getElementById(id);
    if (el) el.hidden = !on;
  }
}

export async function refresh() {
  clearTimeout(timer);
  timer = setTimeout(refresh, POLL_MS);
  if (!online.me.player) { draw([]); return; }
  let data;
  try { data = await api("/api/me/turns"); } catch { return; }
  draw(data.turns || []);
  notify(data.turns || []);
}

function draw(list) {
  turns = list;
  const box = document.getElementById("turns");
  if (!box) return;
  box.hidden = !list.length;
  const here = location.pathname;
  const button = box.querySelector("#turns-button");
  button.replaceChildren(h("span", { class: "turns-label", text: t("Your turn") }), h("span", { class: "turns-count", text: String(list.length) }));
  button.setAttribute("aria-label", tn("Your turn at {n} table", "Your turn at {n} tables", list.length));
  box.querySelector("#turns-list").replaceChildren(
    h("p", { class: "turns-head", text: list.length === 1 ? t("A table waits for your move") : t("{n} tables wait for your move", { n: list.length }) }),
    ...list.map((tb) => h("a", { href: "/table/" + tb.table, "data-link": "", class: `turn${here === "/table/" + tb.table ? " here" : ""}`, "data-table": tb.table }, [
      h("span", { class: "turn-game", text: tb.title }),
      h("span", { class: "turn-others", text: withWhom(tb.others) }),
      h("span", { class: "turn-when", text: ago(tb.since) }),
    ])),
  );
}

// Browser notifications: a table newly waiting for you, once across the open tabs (the list of
// what was notified is shared in localStorage; the notification's tag merges what slips through).
function notify(list) {
  let seen = {};
  try { seen = JSON.parse(localStorage.getItem(NOTIFIED) || "{}"); } catch { seen = {}; }
  const next = {};
  const fresh = [];
  for (const tb of list) {
    next[tb.table] = tb.since;
    if (seen[tb.table] !== tb.since) fresh.push(tb);
  }
  localStorage.setItem(NOTIFIED, JSON.stringify(next));
  if (!notificationsOn() || document.visibilityState === "visible" && document.hasFocus()) return;
  for (const tb of fresh) {
    if (location.pathname === "/table/" + tb.table && !document.hidden) continue;
    try {
      const n = new Notification(t("Your turn at {title}", { title: tb.title }), { body: withWhom(tb.others), tag: "gt-turn-" + tb.table, icon: "/static/favicon.svg" });
      n.onclick = () => { window.focus(); online.shell.navigate("/table/" + tb.table); n.close(); };
    } catch { /* notifications refused by the browser */ }
  }
}

function notificationsOn() {
  return "Notification" in window && Notification.permission === "granted" && localStorage.getItem("gt.notify") !== "0";
}

// -- pages -------------------------------------------------------------------------------------
export async function page(app, path) {
  if (path === "/friends") return friendsPage(app);
  if (path === "/settings") return settingsPage(app);
  if (path === "/mail/confirm") return linkPage(app, "confirm");
  if (path === "/mail/unsubscribe") return linkPage(app, "unsubscribe");
  return false;
}

async function needPlayer(app, title, again) {
  if (!online.me.loaded) await online.loadMe();
  if (online.me.player) return true;
  app.replaceChildren(h("section", { class: "panel community" }, [
    h("h1", { text: title }),
    h("p", { text: t("Pick a name first: friends and mail belong to a player.") }),
    h("button", { type: "button", class: "primary", text: t("Pick a name"), onclick: () => online.openAccountDialog("pick") }),
  ]));
  const off = online.onMeChange((p) => { if (p) { off(); again(); } });
  return false;
}

function section(title, kids, id) {
  return h("section", { class: "panel community", id }, [h("h2", { text: title }), ...kids]);
}

async function settingsPage(app) {
  document.title = t("Settings") + " — gemtable";
  if (!(await needPlayer(app, t("Settings"), () => settingsPage(app)))) return null;
  let mail;
  let friends;
  try {
    [mail, friends] = await Promise.all([api("/api/me/mail"), api("/api/me/friends")]);
  } catch (err) { app.replaceChildren(h("p", { class: "form-error", text: errText(err) })); return null; }
  const draw = () => {
    const err = h("p", { class: "form-error", role: "alert", id: "mail-error" });
    const input = h("input", { type: "email", id: "mail-address", autocomplete: "email", maxlength: 254, placeholder: "name@example.org", value: mail.address || "", "aria-label": t("E-mail address") });
    const form = h("form", { class: "mail-form", id: "mail-form" }, [
      h("div", { class: "name-row" }, [input, h("button", { type: "submit", class: "primary", id: "mail-save", text: mail.address ? t("Change") : t("Add") })]),
      err,
    ]);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      err.textContent = "";
      try { mail = await api("/api/me/mail", { method: "PUT", body: { address: input.value.trim() } }); toast(t("We mailed you a link: open it to confirm the address."), "ok"); draw(); } catch (ex) { err.textContent = errText(ex); input.focus(); }
    });
    const status = mail.address
      ? h("p", { class: `mail-status ${mail.confirmed ? "ok" : "pending"}`, id: "mail-status" }, mail.confirmed
        ? [h("span", { class: "dot on", "aria-hidden": "true" }), " " + t("Confirmed: mail goes to this address.")]
        : [h("span", { class: "dot off", "aria-hidden": "true" }), " " + t("Waiting for confirmation: open the link we mailed to this address.")])
      : h("p", { class: "muted", id: "mail-status", text: t("No address: nothing is mailed to you. Only you see your address.") });
    const setPrefs = async (body) => {
      try { mail = await api("/api/me/mail/prefs", { method: "POST", body }); toast(t("Saved"), "ok"); draw(); } catch (ex) { toast(errText(ex)); }
    };
    const choice = (value, label, note) => h("label", { class: "choice" }, [
      h("input", { type: "radio", name: "mail-mode", value, checked: mail.mode === value ? "" : null, disabled: mail.address ? null : "", onchange: () => setPrefs({ mode: value }) }),
      h("span", {}, [h("b", { text: label }), h("span", { class: "muted", text: ` — ${note}` })]),
    ]);
    const notifyState = !("Notification" in window) ? "unsupported" : Notification.permission === "granted" ? (localStorage.getItem("gt.notify") === "0" ? "off" : "on") : Notification.permission;
    const notifyButton = notifyState === "unsupported" ? h("p", { class: "muted", text: t("This browser has no notifications.") })
      : notifyState === "denied" ? h("p", { class: "muted", text: t("Notifications are blocked for this site in the browser's settings.") })
      : h("button", { type: "button", id: "notify-toggle", class: notifyState === "on" ? "" : "primary", text: notifyState === "on" ? t("Turn browser notifications off") : t("Turn browser notifications on"), onclick: async () => {
        if (notifyState === "on") { localStorage.setItem("gt.notify", "0"); draw(); return; }
        localStorage.setItem("gt.notify", "1");
        if (Notification.permission !== "granted") await Notification.requestPermission();
        draw();
        refresh();
      } });
    app.replaceChildren(h("div", { class: "community-page" }, [
      h("h1", { text: t("Settings") }),
      section(t("E-mail"), [
        !mail.available ? h("p", { class: "muted", text: t("This server has no mail server set up yet: mails wait until it has one.") }) : null,
        form, status,
        mail.address ? h("button", { type: "button", class: "small", id: "mail-remove", text: t("Remove the address"), onclick: async () => {
          try { mail = await api("/api/me/mail", { method: "DELETE" }); toast(t("Address removed"), "ok"); draw(); } catch (ex) { toast(errText(ex)); }
        } }) : null,
      ].filter(Boolean), "mail-settings"),
      section(t("When it is your turn"), [
        h("fieldset", { class: "choices", id: "mail-mode" }, [
          h("legend", { class: "sr-only", text: t("Turn mails") }),
          choice("move", t("Every move"), t("a mail when a table waits for you (at most one per table a quarter hour)")),
          choice("daily", t("Daily digest"), t("one mail a day listing the tables that wait for you")),
          choice("never", t("Never"), t("no turn mails")),
        ]),
        h("label", { class: "choice" }, [
          h("input", { type: "checkbox", id: "mail-invites", checked: mail.invites ? "" : null, disabled: mail.address ? null : "", onchange: (e) => setPrefs({ invites: e.target.checked }) }),
          h("span", { text: t("Mail me when a friend invites me to a seat") }),
        ]),
        h("h3", { text: t("Browser notifications") }),
        h("p", { class: "muted", text: t("While any gemtable tab is open, your browser tells you when a table waits for you.") }),
        notifyButton,
      ], "turn-settings"),
      section(t("Blocked players"), [
        h("p", { class: "muted", text: t("A blocked player cannot join tables where you sit, invite you or follow you.") }),
        friends.blocked.length ? h("ul", { class: "people", id: "blocked-list" }, friends.blocked.map((name) => h("li", {}, [
          h("a", { href: `/players/${encodeURIComponent(name)}`, "data-link": "", text: name }),
          h("button", { type: "button", class: "small", text: t("Unblock"), onclick: async () => {
            try { await api("/api/me/unblock", { method: "POST", body: { name } }); friends = await api("/api/me/friends"); draw(); } catch (ex) { toast(errText(ex)); }
          } }),
        ]))) : h("p", { id: "blocked-list", text: t("Nobody.") }),
      ], "block-settings"),
    ]));
  };
  draw();
  return null;
}

async function friendsPage(app) {
  document.title = t("Friends") + " — gemtable";
  if (!(await needPlayer(app, t("Friends"), () => friendsPage(app)))) return null;
  let data;
  const load = async () => { data = await api("/api/me/friends"); };
  try { await load(); } catch (err) { app.replaceChildren(h("p", { class: "form-error", text: errText(err) })); return null; }
  const draw = () => {
    const err = h("p", { class: "form-error", role: "alert", id: "follow-error" });
    const input = h("input", { id: "follow-name", maxlength: 24, placeholder: t("A player's name"), "aria-label": t("A player's name"), autocomplete: "off" });
    const form = h("form", { class: "name-form", id: "follow-form" }, [h("div", { class: "name-row" }, [input, h("button", { type: "submit", class: "primary", id: "follow-go", text: t("Follow") })]), err]);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      err.textContent = "";
      try { const r = await api("/api/me/follows", { method: "POST", body: { name: input.value.trim() } }); toast(t("You follow {name}", { name: r.following }), "ok"); await load(); draw(); } catch (ex) { err.textContent = errText(ex); input.focus(); }
    });
    const online_ = data.friends.filter((f) => f.online).length;
    app.replaceChildren(h("div", { class: "community-page" }, [
      h("h1", { text: t("Friends") }),
      section(t("Follow a player"), [form], "follow"),
      section(data.friends.length ? t("Following ({n} · {online} online)", { n: data.friends.length, online: online_ }) : t("Following ({n})", { n: 0 }), [
        data.friends.length ? h("ul", { class: "friends", id: "friends-list" }, data.friends.map((f) => h("li", { class: `friend${f.online ? " online" : ""}`, "data-name": f.name }, [
          h("div", { class: "friend-head" }, [
            h("span", { class: `dot ${f.online ? "on" : "off"}`, title: f.online ? t("online") : t("offline") }),
            h("a", { href: `/players/${encodeURIComponent(f.name)}`, "data-link": "", class: "friend-name", text: f.name }),
            h("span", { class: "muted", text: f.online ? t("online") : t("offline") }),
            h("button", { type: "button", class: "small unfollow", text: t("Unfollow"), onclick: async () => {
              try { await api("/api/me/unfollow", { method: "POST", body: { name: f.name } }); await load(); draw(); } catch (ex) { toast(errText(ex)); }
            } }),
          ]),
          f.tables.length ? h("ul", { class: "friend-tables" }, f.tables.map((tb) => h("li", {}, [
            h("span", { text: tn("{title} · {players} players · {n} free seat", "{title} · {players} players · {n} free seats", tb.free, { title: tb.title, players: tb.players }) }),
            h("a", { href: "/table/" + tb.table, "data-link": "", class: "button small", text: t("Open") }),
          ]))) : null,
        ]))) : h("p", { class: "muted", id: "friends-list", text: t("You follow nobody yet. Follow a player by name, or from their profile.") }),
      ], "following"),
    ]));
  };
  draw();
  return null;
}

// The links in mails: the token after "#t=" (never sent to the server in the address), posted.
async function linkPage(app, kind) {
  const token = new URLSearchParams(location.hash.slice(1)).get("t") || "";
  document.title = (kind === "confirm" ? t("Confirm your address") : t("Stop mails")) + " — gemtable";
  if (location.hash) history.replaceState({}, "", location.pathname); // the token leaves the address bar
  const box = h("section", { class: "panel community link-result", id: "link-result" }, [h("p", { class: "muted", text: t("One moment…") })]);
  app.replaceChildren(h("div", { class: "community-page" }, [box]));
  try {
    await api(kind === "confirm" ? "/api/mail/confirm" : "/api/mail/unsubscribe", { method: "POST", body: { token } });
    box.replaceChildren(
      h("h1", { text: kind === "confirm" ? t("Address confirmed") : t("No more mails") }),
      h("p", { text: kind === "confirm" ? t("gemtable may now mail you when a table waits for your move.") : t("gemtable sends nothing more to this address. You can turn mails on again in your settings.") }),
      h("a", { href: "/settings", "data-link": "", class: "button", text: t("Mail settings") }),
    );
  } catch (err) {
    box.replaceChildren(h("h1", { text: t("That link did not work") }), h("p", { class: "form-error", text: errText(err) }), h("a", { href: "/settings", "data-link": "", class: "button", text: t("Mail settings") }));
  }
  return null;
}

// -- small parts of the shell's pages ---------------------------------------------------------------
// My games: invitations to a seat, above the tables.
export async function myGamesExtras(app) {
  const root = app.querySelector(".my-page");
  if (!root || !online.me.player) return;
  let list;
  try { list = (await api("/api/me/invites")).invites || []; } catch { return; }
  if (!list.length) return;
  const box = h("section", { class: "panel my-games invites-panel", id: "my-invites" }, [
    h("h2", { text: t("Invitations ({n})", { n: list.length }) }),
    h("ul", { class: "invitations" }, list.map((i) => h("li", { "data-table": i.table }, [
      h("span", {}, withParts(t("{from} invites you to {title} ({players} players, seat {seat})", { title: i.title, players: i.players, seat: i.seat + 1 }), { from: h("b", { text: i.from }) })),
      h("span", { class: "invite-actions" }, [
        h("button", { type: "button", class: "primary accept", text: t("Take the seat"), onclick: async () => {
          try {
            const res = await api(`/api/tables/${i.table}/join`, { method: "POST", body: { seat: i.seat } });
            const saved = JSON.parse(localStorage.getItem(`gt.tokens.${i.table}`) || "{}");
            saved[res.seat] = res.token;
            localStorage.setItem(`gt.tokens.${i.table}`, JSON.stringify(saved));
            online.shell.navigate(`/table/${i.table}`);
          } catch (ex) { toast(errText(ex)); }
        } }),
        h("button", { type: "button", class: "decline", text: t("Decline"), onclick: async (e) => {
          try { await api(`/api/me/invites/${i.table}/decline`, { method: "POST" }); e.target.closest("li").remove(); } catch (ex) { toast(errText(ex)); }
        } }),
      ]),
    ]))),
  ]);
  const heading = root.querySelector("h1");
  if (heading) heading.after(box); else root.prepend(box);
}

// A player's profile: follow or block them.
export async function profileExtras(app, name) {
  const panel = app.querySelector(".profile .panel");
  if (!panel || !online.me.player || online.me.player.name.toLowerCase() === name.toLowerCase() || name.toLowerCase().startsWith("bot:")) return;
  let data;
  try { data = await api("/api/me/friends"); } catch { return; }
  const following = data.friends.some((f) => f.name.toLowerCase() === name.toLowerCase());
  const blocked = data.blocked.some((b) => b.toLowerCase() === name.toLowerCase());
  const row = h("p", { class: "profile-actions", id: "profile-actions" });
  const act = async (path, done) => {
    try { await api(path, { method: "POST", body: { name } }); toast(done, "ok"); row.remove(); profileExtras(app, name); } catch (ex) { toast(errText(ex)); }
  };
  row.replaceChildren(...[
    blocked ? null : h("button", { type: "button", class: following ? "" : "primary", id: "follow-button", text: following ? t("Unfollow") : t("Follow"), onclick: () => act(following ? "/api/me/unfollow" : "/api/me/follows", following ? t("You no longer follow {name}", { name }) : t("You follow {name}", { name })) }),
    h("button", { type: "button", id: "block-button", class: "danger-quiet", text: blocked ? t("Unblock") : t("Block"), title: blocked ? "" : t("They cannot join tables where you sit, invite you or follow you"), onclick: () => act(blocked ? "/api/me/unblock" : "/api/me/blocks", blocked ? t("{name} is unblocked", { name }) : t("{name} is blocked", { name })) }),
  ].filter(Boolean));
  const old = document.getElementById("profile-actions");
  if (old) old.remove();
  panel.querySelector("h1").after(row);
}

// The waiting room: invite a friend to a free open seat (for any seated player).
export function inviteBox(tableId, table, seated) {
  if (!online.me.player || !seated) return null;
  const free = table.seats.filter((s) => s.open && !s.player);
  if (!free.length) return null;
  const box = h("div", { class: "invite-friend", id: "invite-friend" }, [h("h3", { text: t("Invite a friend") })]);
  api("/api/me/friends").then((data) => {
    const seatedNames = new Set(table.seats.map((s) => (s.player || "").toLowerCase()));
    const choices = data.friends.filter((f) => !seatedNames.has(f.name.toLowerCase()));
    if (!choices.length) {
      box.append(h("p", { class: "muted", text: t("Follow players to invite them here.") }), h("a", { href: "/friends", "data-link": "", class: "button", id: "invite-find", text: t("Friends") }));
      return;
    }
    const who = h("select", { id: "invite-who", "aria-label": t("Friend to invite") }, choices.map((f) => h("option", { value: f.name, text: f.online ? t("{name} (online)", { name: f.name }) : f.name })));
    const seat = h("select", { id: "invite-seat", "aria-label": t("Seat") }, free.map((s) => h("option", { value: s.seat, text: t("Seat {n}", { n: s.seat + 1 }) })));
    box.append(h("div", { class: "invite-row" }, [who, free.length > 1 ? seat : null, h("button", { type: "button", class: "primary needs-net", id: "invite-go", text: t("Invite"), onclick: async () => {
      try { const r = await api("/api/tables/" + tableId + "/invite", { method: "POST", body: { name: who.value, seat: Number(seat.value) } }); toast(t("{name} is invited: it shows in their My games.", { name: r.invited }), "ok"); } catch (ex) { toast(errText(ex)); }
    } })].filter(Boolean)));
  }).catch(() => {});
  return box;
}
