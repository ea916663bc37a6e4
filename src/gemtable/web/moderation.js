// Moderation: players report a chat line (the flag on a line) or a player (on their profile);
// the site's admins get an "Admin" link and the admin page (/admin): open reports with their
// actions, mutes and bans in force, a form to mute, ban or close a table, and the audit log.
// The shell (app.js) calls: setup() once, page(app, path) for its pages, profileExtras(app, name).

import { h } from "./svg.js";
import * as online from "./online.js";
import { lang, t } from "./i18n.js";

function api(path, opts) { return online.shell.api(path, opts); }
function toast(msg, kind) { online.shell.toast(msg, kind); }
function errText(err) { return String((err && err.message) || err); }

let standing = { admin: false };

// a translated sentence with elements in it: `text` is split at each {field} named in `parts`
function withParts(text, parts) {
  return text.split(/(\{\w+\})/).filter((x) => x !== "").map((x) => {
    const m = x.match(/^\{(\w+)\}$/);
    return m && m[1] in parts ? parts[m[1]] : x;
  });
}

async function loadStanding() {
  try { standing = online.me.player ? await api("/api/moderation/me") : { admin: false }; } catch { standing = { admin: false }; }
  const link = document.getElementById("nav-admin");
  if (link) link.hidden = !standing.admin;
}

export function setup() {
  const nav = document.querySelector(".nav-main");
  if (nav && !document.getElementById("nav-admin")) {
    nav.appendChild(h("a", { href: "/admin", "data-link": "", id: "nav-admin", hidden: "", text: t("Admin") }));
  }
  // a flag on other people's chat lines: report the line
  online.chatHooks.decorate = (li, line) => {
    if (!online.me.player || line.system || !line.id) return;
    li.appendChild(h("button", { type: "button", class: "chat-report", title: t("Report this line to the site's admins"), "aria-label": t("Report this line"), text: "⚑",
      onclick: () => reportDialog({ chat_id: line.id }, t("Report the line “{line}” to the site's admins?", { line: String(line.text).slice(0, 80) })) }));
  };
  online.onMeChange(() => loadStanding());
  loadStanding();
}

// `question`: the sentence asked, naming what is reported
function reportDialog(what, question) {
  const reason = h("input", { id: "report-reason", maxlength: 300, placeholder: t("What is wrong (optional)"), "aria-label": t("Reason") });
  const box = h("dialog", { class: "report-dialog", id: "report-dialog" }, [
    h("form", { method: "dialog" }, [
      h("h2", { text: t("Report") }),
      h("p", { text: question }),
      reason,
      h("div", { class: "dialog-buttons" }, [
        h("button", { type: "button", text: t("Cancel"), onclick: () => box.close() }),
        h("button", { type: "submit", class: "primary", id: "report-send", text: t("Report") }),
      ]),
    ]),
  ]);
  box.addEventListener("close", () => box.remove());
  box.querySelector("form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try { await api("/api/reports", { method: "POST", body: { ...what, reason: reason.value } }); toast(t("Reported: an admin will look at it."), "ok"); box.close(); }
    catch (ex) { toast(errText(ex)); }
  });
  document.body.appendChild(box);
  box.showModal();
}

export async function profileExtras(app, name) {
  if (!online.me.player || online.me.player.name.toLowerCase() === name.toLowerCase() || name.toLowerCase().startsWith("bot:")) return;
  const panel = app.querySelector(".profile .panel");
  if (!panel || document.getElementById("report-row")) return;
  const button = h("button", { type: "button", class: "danger-quiet", id: "report-player", text: t("Report"), title: t("Report this player to the site's admins"),
    onclick: () => reportDialog({ player: name }, t("Report {name} to the site's admins?", { name })) });
  panel.appendChild(h("p", { class: "profile-report", id: "report-row" }, [button]));
}

export async function page(app, path) {
  if (path === "/admin") return adminPage(app);
  return false;
}

function when(iso) {
  const ms = Date.parse(iso);
  // the browser's own date format on English pages; the page's language otherwise
  return Number.isFinite(ms) ? new Date(ms).toLocaleString(lang === "en" ? undefined : lang) : "";
}

async function adminPage(app) {
  document.title = t("Admin") + " — gemtable";
  if (!online.me.loaded) await online.loadMe();
  let data;
  try { data = await api("/api/admin/overview"); } catch (ex) {
    app.replaceChildren(h("section", { class: "panel moderation" }, [h("h1", { text: t("Admin") }), h("p", { text: errText(ex) })]));
    return null;
  }
  const again = () => adminPage(app);
  const act = async (action, body, done) => {
    try { await api(`/api/admin/${action}`, { method: "POST", body }); toast(done, "ok"); again(); } catch (ex) { toast(errText(ex)); }
  };
  const duration = () => h("select", { class: "mod-duration", "aria-label": t("For how long") }, [
    ["60", t("1 hour")], ["1440", t("1 day")], ["10080", t("1 week")], ["", t("for good")]].map(([v, label]) => h("option", { value: v, text: label })));
  const minutesOf = (sel) => (sel.value ? Number(sel.value) : null);

  const reports = data.reports.length ? h("ul", { class: "mod-list", id: "mod-reports" }, data.reports.map((r) => {
    const dur = duration();
    return h("li", { class: "mod-report" }, [
      h("p", {}, [h("b", { text: r.player }), h("span", { class: "muted", text: " " + t("reported by {reporter} · {when}", { reporter: r.reporter, when: when(r.at) }) })]),
      r.chat ? h("blockquote", { class: "mod-line", text: r.chat.text }) : null,
      r.reason ? h("p", { class: "mod-reason", text: `“${r.reason}”` }) : null,
      h("div", { class: "mod-actions" }, [
        r.chat ? h("button", { type: "button", text: t("Hide line"), onclick: () => act("hide", { chat_id: r.chat.id }, t("The line is hidden.")) }) : null,
        dur,
        h("button", { type: "button", text: t("Mute"), onclick: () => act("mute", { player: r.player, minutes: minutesOf(dur), reason: r.reason }, t("{name} is muted.", { name: r.player })) }),
        h("button", { type: "button", class: "danger", text: t("Ban"), onclick: () => act("ban", { player: r.player, minutes: minutesOf(dur), reason: r.reason }, t("{name} is banned.", { name: r.player })) }),
        r.chat ? h("a", { href: `/table/${r.chat.table}`, "data-link": "", class: "button", text: t("Open the table") }) : null,
        h("button", { type: "button", class: "quiet", text: t("Dismiss"), onclick: () => act("dismiss", { report: r.id }, t("Report dismissed.")) }),
      ].filter(Boolean)),
    ].filter(Boolean));
  })) : h("p", { class: "muted", id: "mod-reports", text: t("No open reports.") });

  const sanctionText = (s) => (s.kind === "ban"
    ? (s.until ? t("{player} banned until {when}", { when: when(s.until) }) : t("{player} banned for good"))
    : (s.until ? t("{player} muted until {when}", { when: when(s.until) }) : t("{player} muted for good")));
  const sanctions = data.sanctions.length ? h("ul", { class: "mod-list", id: "mod-sanctions" }, data.sanctions.map((s) => h("li", {}, [
    ...withParts(sanctionText(s), { player: h("b", { text: s.player }) }),
    s.reason ? h("span", { class: "muted", text: ` · ${s.reason}` }) : null,
    " ", h("button", { type: "button", class: "quiet", text: s.kind === "ban" ? t("Unban") : t("Unmute"), onclick: () => act(`un${s.kind}`, { player: s.player }, t("{name}: lifted.", { name: s.player })) }),
  ].filter(Boolean)))) : h("p", { class: "muted", id: "mod-sanctions", text: t("Nobody is muted or banned.") });

  const who = h("input", { id: "mod-player", placeholder: t("Player's name"), "aria-label": t("Player's name"), maxlength: 40 });
  const why = h("input", { id: "mod-reason", placeholder: t("Reason (shown to them)"), "aria-label": t("Reason"), maxlength: 300 });
  const dur = duration();
  const table = h("input", { id: "mod-table", placeholder: t("Table id"), "aria-label": t("Table id"), maxlength: 32 });
  const note = h("input", { id: "mod-note", placeholder: t("Note (shown at the table)"), "aria-label": t("Note"), maxlength: 300 });
  const forms = h("div", { class: "mod-forms" }, [
    h("div", { class: "mod-row" }, [who, dur, why,
      h("button", { type: "button", text: t("Mute"), onclick: () => act("mute", { player: who.value, minutes: minutesOf(dur), reason: why.value }, t("{name} is muted.", { name: who.value })) }),
      h("button", { type: "button", class: "danger", id: "mod-ban", text: t("Ban"), onclick: () => act("ban", { player: who.value, minutes: minutesOf(dur), reason: why.value }, t("{name} is banned.", { name: who.value })) }),
      h("button", { type: "button", class: "quiet", text: t("Make admin"), onclick: () => act("grant", { player: who.value }, t("{name} is an admin.", { name: who.value })) })]),
    h("div", { class: "mod-row" }, [table, note,
      h("button", { type: "button", class: "danger", text: t("Close table"), onclick: () => act("close", { table: table.value.trim(), note: note.value }, t("The table is closed (not rated).")) })]),
  ]);

  const audit = data.audit.length ? h("table", { class: "mod-audit", id: "mod-audit" }, [
    h("thead", {}, [h("tr", {}, [t("When"), t("Admin"), t("Action"), t("Whom"), t("Detail")].map((x) => h("th", { text: x })))]),
    h("tbody", {}, data.audit.map((a) => h("tr", {}, [when(a.at), a.admin, a.action, a.target, a.detail].map((x) => h("td", { text: x }))))),
  ]) : h("p", { class: "muted", id: "mod-audit", text: t("No admin actions yet.") });

  app.replaceChildren(h("div", { class: "moderation" }, [
    h("h1", { text: t("Admin") }),
    h("section", { class: "panel" }, [h("h2", { text: t("Reports ({n})", { n: data.reports.length }) }), reports]),
    h("section", { class: "panel" }, [h("h2", { text: t("Act") }), forms]),
    h("section", { class: "panel" }, [h("h2", { text: t("Muted and banned") }), sanctions]),
    h("section", { class: "panel" }, [h("h2", { text: t("Audit log") }), h("div", { class: "mod-scroll" }, [audit])]),
  ]));
  return null;
}
