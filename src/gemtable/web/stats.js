// Statistics on the profile page (per game: games, wins, average score and place, share
// played to the end, a chart of the rating after each rated game) and on a game's
// leaderboard page (games per day, each seat's share of the wins).  Everything comes from
// finished games (GET /api/stats/...); the charts are SVG drawn at the width they get on
// the page (one user unit = one CSS px), so their text keeps its size on a phone.
//
// profileStats(app, name) and leaderboardStats(app, gameId) are called after the page is built.

import { h, s } from "./svg.js";
import * as online from "./online.js";
import { t, tn } from "./i18n.js";

const CHART_H = 170;
const FONT = 12; // CSS px: the charts are drawn 1:1, so this is the size on screen
const PAD = { left: 40, right: 10, top: 10, bottom: 22 };

function api(path) { return online.shell.api(path); }
function gameTitle(id) { const g = online.shell.games().find((x) => x.id === id); return g ? g.title : id; }
function day(iso) { return String(iso).slice(0, 10); }
function pct(x) { return `${Math.round(100 * x)}%`; }

// an SVG of ``width`` CSS px (the room its parent gives it, at most CHART_MAX_W), never less than 260
const CHART_MAX_W = 760;
function frame(parent, label) {
  const width = Math.max(260, Math.min(CHART_MAX_W, Math.floor(parent.clientWidth || 320)));
  const svg = s("svg", { class: "stats-chart", viewBox: `0 0 ${width} ${CHART_H}`, width, height: CHART_H, role: "img", "aria-label": label });
  return { svg, width, x0: PAD.left, x1: width - PAD.right, y0: CHART_H - PAD.bottom, y1: PAD.top };
}
function label(x, y, text, anchor = "start", cls = "axis") {
  return s("text", { x, y, "font-size": FONT, "text-anchor": anchor, class: cls, text });
}

// the rating after each rated game, oldest first
export function ratingChart(parent, points, title) {
  const f = frame(parent, t("{title}: rating after each of {n} rated games", { title, n: points.length }));
  const ys = points.map((p) => Number(p.rating));
  let lo = Math.min(...ys), hi = Math.max(...ys);
  if (hi - lo < 1) { lo -= 0.5; hi += 0.5; }
  const X = (i) => points.length < 2 ? (f.x0 + f.x1) / 2 : f.x0 + (f.x1 - f.x0) * i / (points.length - 1);
  const Y = (v) => f.y0 - (f.y0 - f.y1) * (v - lo) / (hi - lo);
  const path = points.map((p, i) => `${i ? "L" : "M"}${X(i).toFixed(1)},${Y(ys[i]).toFixed(1)}`).join(" ");
  f.svg.append(
    s("line", { x1: f.x0, y1: f.y0, x2: f.x1, y2: f.y0, class: "grid" }),
    s("line", { x1: f.x0, y1: f.y1, x2: f.x1, y2: f.y1, class: "grid" }),
    label(f.x0 - 4, f.y1 + FONT / 2, hi.toFixed(1), "end"),
    label(f.x0 - 4, f.y0, lo.toFixed(1), "end"),
    label(f.x0, CHART_H - 6, day(points[0].at)),
    points.length > 1 ? label(f.x1, CHART_H - 6, day(points[points.length - 1].at), "end") : null,
    s("path", { d: path, class: "line" }),
    ...points.map((p, i) => s("circle", { cx: X(i).toFixed(1), cy: Y(ys[i]).toFixed(1), r: points.length > 60 ? 1.5 : 3, class: "dot" },
      [s("title", { text: t("{day}: rating {rating}", { day: day(p.at), rating: ys[i].toFixed(1) }) })])),
  );
  return f.svg;
}

// finished games per day (UTC), oldest first
export function perDayChart(parent, days) {
  const total = days.reduce((a, d) => a + d.games, 0);
  const f = frame(parent, t("Games finished per day over the last {days} days: {n} in all", { days: days.length, n: total }));
  const hi = Math.max(1, ...days.map((d) => d.games));
  const step = (f.x1 - f.x0) / days.length;
  f.svg.append(
    s("line", { x1: f.x0, y1: f.y0, x2: f.x1, y2: f.y0, class: "grid" }),
    label(f.x0 - 4, f.y1 + FONT / 2, String(hi), "end"),
    label(f.x0 - 4, f.y0, "0", "end"),
    label(f.x0, CHART_H - 6, days.length ? days[0].day : ""),
    days.length ? label(f.x1, CHART_H - 6, days[days.length - 1].day, "end") : null,
    ...days.map((d, i) => {
      const top = f.y0 - (f.y0 - f.y1) * d.games / hi;
      return s("rect", { x: (f.x0 + i * step + step * 0.15).toFixed(1), y: top.toFixed(1), width: Math.max(1, step * 0.7).toFixed(1), height: (f.y0 - top).toFixed(1), class: "bar" },
        [s("title", { text: tn("{day}: {n} game", "{day}: {n} games", d.games, { day: d.day }) })]);
    }),
  );
  return f.svg;
}

function cell(text, cls = "num") { return h("td", { class: cls, text }); }

export async function profileStats(app, name) {
  const root = app.querySelector(".profile");
  if (!root) return;
  let data;
  try { data = await api(`/api/stats/players/${encodeURIComponent(name)}`); } catch { return; }
  if (!root.isConnected) return;
  const games = Object.entries(data.games || {});
  const charts = Object.entries(data.history || {});
  const panel = h("section", { class: "panel stats", id: "profile-stats" }, [h("h2", { text: t("Statistics") })]);
  const old = document.getElementById("profile-stats");
  if (old) old.remove();
  root.append(panel);
  if (!games.length && !charts.length) { panel.append(h("p", { class: "muted", text: t("No finished game yet.") })); return; }
  if (games.length) {
    panel.append(h("div", { class: "table-scroll" }, [h("table", { class: "list stats-table", id: "stats-games" }, [
      h("thead", {}, [h("tr", {}, [[t("Game")], [t("Games")], [t("Wins")], [t("Score"), t("Average score")], [t("Place"), t("Average place (1 = first)")], [t("Finished"), t("Share of games played to the end")]].map(([x, title], i) => h("th", { class: i ? "num" : "", title, text: x })))]),
      h("tbody", {}, games.map(([g, r]) => h("tr", { "data-game": g }, [
        cell(gameTitle(g), ""),
        cell(String(r.games)),
        h("td", { class: "num" }, [String(r.wins), h("span", { class: "win-pct", text: pct(r.win_share) })]),
        cell(r.avg_score === null ? "–" : Number(r.avg_score).toFixed(1)),
        cell(r.avg_place === null ? "–" : Number(r.avg_place).toFixed(2)),
        cell(pct(r.finished.share)),
      ]))),
    ])]));
    if (data.counted >= data.limit) panel.append(h("p", { class: "muted", text: t("From the latest {n} finished games.", { n: data.limit }) }));
  }
  for (const [g, points] of charts) {
    const box = h("figure", { class: "stats-figure", "data-game": g }, [h("figcaption", { text: t("Rating in {game} after each rated game", { game: gameTitle(g) }) })]);
    panel.append(box);
    box.append(ratingChart(box, points, gameTitle(g)));
  }
}

export async function leaderboardStats(app, gameId) {
  const section = app.querySelector(".leaderboard");
  if (!section || !gameId) return;
  let data;
  try { data = await api(`/api/stats/games/${encodeURIComponent(gameId)}`); } catch { return; }
  if (!section.isConnected) return;
  const panel = h("section", { class: "panel stats", id: "game-stats" }, [h("h2", { text: t("Statistics: {game}", { game: gameTitle(gameId) }) })]);
  const old = document.getElementById("game-stats");
  if (old) old.remove();
  section.after(panel);
  panel.append(h("p", { class: "muted", text: t("From the site's finished games with at least one person at the table (running games never count).") }));
  const box = h("figure", { class: "stats-figure", id: "stats-per-day" }, [h("figcaption", { text: t("Games finished per day (UTC)") })]);
  panel.append(box);
  box.append(perDayChart(box, data.per_day || []));
  const counts = Object.entries(data.seats || {});
  panel.append(h("h3", { text: t("Advantage of each seat") }));
  if (!counts.length) { panel.append(h("p", { class: "muted", text: t("No finished game yet.") })); return; }
  panel.append(h("p", { class: "muted", text: t("Each seat's share of the wins (a shared first place is split), with a 95% interval. With no advantage every seat would win the same share, shown above each table.") }));
  for (const [n, c] of counts) {
    panel.append(h("div", { class: "table-scroll" }, [h("table", { class: "list stats-table seat-advantage", "data-players": n }, [
      h("caption", { text: tn("{players} players · {n} game · no advantage: {share}", "{players} players · {n} games · no advantage: {share}", c.games, { players: n, share: pct(1 / Number(n)) }) }),
      h("thead", {}, [h("tr", {}, [t("Seat"), t("Wins"), t("Share"), t("95% interval")].map((x, i) => h("th", { class: i ? "num" : "", text: x })))]),
      h("tbody", {}, c.seats.map((r) => h("tr", {}, [
        cell(String(r.seat + 1), ""),
        cell(String(r.wins)),
        cell(pct(r.share)),
        cell(`${pct(r.low)}–${pct(r.high)}`),
      ]))),
    ])]));
  }
}
