// Moderation: players report a chat line (the flag on a line) or a player (on their profile);
// the site's admins get an "Admin" link and the admin page (/admin): open reports with their
// actions, mutes and bans in force, a form to mute, ban or close a table, and the audit log.
// The shell (app.js) calls: setup() once, page(app, path) for its pages, profileExtras(app, name).

import { h } from "./svg.js";
import * as online from "./online.js";

function api(path, opts) { return online.shell.api(path, opts); }
function toast(msg, kind) { online.shell.toast(msg, kind); }
function errText(err) { return String((err && err.message) || err); }

let standing = { admin: false };

async function loadStanding() {
  try { standing = online.me.player ? await api("/api/moderation/me") : { admin: false }; } catch { standing = { admin: false }; }
  const link = document.getElementById("nav-admin");
  if (link) link.hidden = !standing.admin;
}

export function setup() {
  const nav = document.querySelector(".nav-main");
  if (nav && !document.getElementById("nav-admin")) {
    nav.appendChild(h("a", { href: "/admin", "data-link": "", id: "nav-admin", hidden: "", text: "Admin" }));
  }
  // a flag on other people's chat lines: report the line
  online.chatHooks.decorate = (li, line) => {
    if (!online.me.player || line.system || !line.id) return;
    li.appendChild(h("button", { type: "button", class: "chat-report", title: "Report this line to the site's admins", "aria-label": "Report this line", text: "⚑",
      onclick: () => reportDialog({ chat_id: line.id }, `the line “${String(line.text).slice(0, 80)}”`) }));
  };
  online.onMeChange(() => loadStanding());
  loadStanding();
}

function reportDialog(what, label) {
  const reason = h("input", { id: "report-reason", maxlength: 300, placeholder: "What is wrong (optional)", "aria-label": "Reason" });
  const box = h("dialog", { class: "report-dialog", id: "report-dialog" }, [
    h("form", { method: "dialog" }, [
      h("h2", { text: "Report" }),
      h("p", { text: `Report ${label} to the site's admins?` }),
      reason,
      h("div", { class: "dialog-buttons" }, [
        h("button", { type: "button", text: "Cancel", onclick: () => box.close() }),
        h("button", { type: "submit", class: "primary", id: "report-send", text: "Report" }),
      ]),
    ]),
  ]);
  box.addEventListener("close", () => box.remove());
  box.querySelector("form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try { await api("/api/reports", { method: "POST", body: { ...what, reason: reason.value } }); toast("Reported: an admin will look at it.", "ok"); box.close(); }
    catch (ex) { toast(errText(ex)); }
  });
  document.body.appendChild(box);
  box.showModal();
}

export async function profileExtras(app, name) {
  if (!online.me.player || online.me.player.name.toLowerCase() === name.toLowerCase() || name.toLowerCase().startsWith("bot:")) return;
  const panel = app.querySelector(".profile .panel");
  if (!panel || document.getElementById("report-row")) return;
  const button = h("button", { type: "button", class: "danger-quiet", id: "report-player", text: "Report", title: "Report this player to the site's admins",
    onclick: () => reportDialog({ player: name }, name) });
  panel.appendChild(h("p", { class: "profile-report", id: "report-row" }, [button]));
}

export async function page(app, path) {
  if (path === "/admin") return adminPage(app);
  return false;
}

function when(iso) {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? new Date(t).toLocaleString() : "";
}

async function adminPage(app) {
  document.title = "Admin — gemtable";
  if (!online.me.loaded) await online.loadMe();
  let data;
  try { data = await api("/api/admin/overview"); } catch (ex) {
    app.replaceChildren(h("section", { class: "panel moderation" }, [h("h1", { text: "Admin" }), h("p", { text: errText(ex) })]));
    return null;
  }
  const again = () => adminPage(app);
  const act = async (action, body, done) => {
    try { await api(`/api/admin/${action}`, { method: "POST", body }); toast(done, "ok"); again(); } catch (ex) { toast(errText(ex)); }
  };
  const duration = () => h("select", { class: "mod-duration", "aria-label": "For how long" }, [
    ["60", "1 hour"], ["1440", "1 day"], ["10080", "1 week"], ["", "for good"]].map(([v, t]) => h("option", { value: v, text: t })));
  const minutesOf = (sel) => (sel.value ? Number(sel.value) : null);

  const reports = data.reports.length ? h("ul", { class: "mod-list", id: "mod-reports" }, data.reports.map((r) => {
    const dur = duration();
    return h("li", { class: "mod-report" }, [
      h("p", {}, [h("b", { text: r.player }), h("span", { class: "muted", text: ` reported by ${r.reporter} · ${when(r.at)}` })]),
      r.chat ? h("blockquote", { class: "mod-line", text: r.chat.text }) : null,
      r.reason ? h("p", { class: "mod-reason", text: `“${r.reason}”` }) : null,
      h("div", { class: "mod-actions" }, [
        r.chat ? h("button", { type: "button", text: "Hide line", onclick: () => act("hide", { chat_id: r.chat.id }, "The line is hidden.") }) : null,
        dur,
        h("button", { type: "button", text: "Mute", onclick: () => act("mute", { player: r.player, minutes: minutesOf(dur), reason: r.reason }, `${r.player} is muted.`) }),
        h("button", { type: "button", class: "danger", text: "Ban", onclick: () => act("ban", { player: r.player, minutes: minutesOf(dur), reason: r.reason }, `${r.player} is banned.`) }),
        r.chat ? h("a", { href: `/table/${r.chat.table}`, "data-link": "", class: "button", text: "Open the table" }) : null,
        h("button", { type: "button", class: "quiet", text: "Dismiss", onclick: () => act("dismiss", { report: r.id }, "Report dismissed.") }),
      ].filter(Boolean)),
    ].filter(Boolean));
  })) : h("p", { class: "muted", id: "mod-reports", text: "No open reports." });

  const sanctions = data.sanctions.length ? h("ul", { class: "mod-list", id: "mod-sanctions" }, data.sanctions.map((s) => h("li", {}, [
    h("b", { text: s.player }), ` ${s.kind === "ban" ? "banned" : "muted"} ${s.until ? `until ${when(s.until)}` : "for good"}`,
    s.reason ? h("span", { class: "muted", text: ` · ${s.reason}` }) : null,
    " ", h("button", { type: "button", class: "quiet", text: s.kind === "ban" ? "Unban" : "Unmute", onclick: () => act(`un${s.kind}`, { player: s.player }, `${s.player}: lifted.`) }),
  ].filter(Boolean)))) : h("p", { class: "muted", id: "mod-sanctions", text: "Nobody is muted or banned." });

  const who = h("input", { id: "mod-player", placeholder: "Player's name", "aria-label": "Player's name", maxlength: 40 });
  const why = h("input", { id: "mod-reason", placeholder: "Reason (shown to them)", "aria-label": "Reason", maxlength: 300 });
  const dur = duration();
  const table = h("input", { id: "mod-table", placeholder: "Table id", "aria-label": "Table id", maxlength: 32 });
  const note = h("input", { id: "mod-note", placeholder: "Note (shown at the table)", "aria-label": "Note", maxlength: 300 });
  const forms = h("div", { class: "mod-forms" }, [
    h("div", { class: "mod-row" }, [who, dur, why,
      h("button", { type: "button", text: "Mute", onclick: () => act("mute", { player: who.value, minutes: minutesOf(dur), reason: why.value }, `${who.value} is muted.`) }),
      h("button", { type: "button", class: "danger", id: "mod-ban", text: "Ban", onclick: () => act("ban", { player: who.value, minutes: minutesOf(dur), reason: why.value }, `${who.value} is banned.`) }),
      h("button", { type: "button", class: "quiet", text: "Make admin", onclick: () => act("grant", { player: who.value }, `${who.value} is an admin.`) })]),
    h("div", { class: "mod-row" }, [table, note,
      h("button", { type: "button", class: "danger", text: "Close table", onclick: () => act("close", { table: table.value.trim(), note: note.value }, "The table is closed (not rated).") })]),
  ]);

  const audit = data.audit.length ? h("table", { class: "mod-audit", id: "mod-audit" }, [
    h("thead", {}, [h("tr", {}, ["When", "Admin", "Action", "Whom", "Detail"].map((t) => h("th", { text: t })))]),
    h("tbody", {}, data.audit.map((a) => h("tr", {}, [when(a.at), a.admin, a.action, a.target, a.detail].map((t) => h("td", { text: t }))))),
  ]) : h("p", { class: "muted", id: "mod-audit", text: "No admin actions yet." });

  app.replaceChildren(h("div", { class: "moderation" }, [
    h("h1", { text: "Admin" }),
    h("section", { class: "panel" }, [h("h2", { text: `Reports (${data.reports.length})` }), reports]),
    h("section", { class: "panel" }, [h("h2", { text: "Act" }), forms]),
    h("section", { class: "panel" }, [h("h2", { text: "Muted and banned" }), sanctions]),
    h("section", { class: "panel" }, [h("h2", { text: "Audit log" }), h("div", { class: "mod-scroll" }, [audit])]),
  ]));
  return null;
}
