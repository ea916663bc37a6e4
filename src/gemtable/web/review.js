// The game review in the replay viewer: each seat's chance of winning after every move
// (an SVG chart, judged by the server from what that seat could see at the time) and each
// seat's biggest drops with the move the bot prefers there.  The review is asked for when
// the replay opens and computed in the background; this panel polls until it is stored.

import { h, s } from "./svg.js";
import { t } from "./i18n.js";

// seat colours, each with its own dash so the lines stay apart without colour
const SEATS = [
  { colour: "#1f6f8b", dash: "" },
  { colour: "#c8781e", dash: "6 3" },
  { colour: "#2f8a4f", dash: "2 3" },
  { colour: "#8a3fa0", dash: "8 3 2 3" },
  { colour: "#b33a3a", dash: "3 2 3 6" },
];
const PAD_L = 34, PAD_R = 8, PAD_T = 8, PAD_B = 22;
let W = 600, H = 180; // a phone draws the chart at its own width (its labels stay readable)
const pct = (x) => `${Math.round(x * 100)}%`;

// reviewPanel({ tableId, names, go }) -> { el, mark(move) }: ``go(move)`` shows that move
export function reviewPanel({ tableId, names, go }) {
  const body = h("div", { class: "review-body", text: t("Asking for the review…") });
  const el = h("section", { class: "panel review", id: "review" }, [h("h3", { text: t("Game review") }), body]);
  let marker = null, xOf = null, stopped = false, timer = null;

  async function fetchJSON(method) {
    const res = await fetch("/api/tables/" + tableId + "/review", { method });
    const data = await res.json().catch(() => null);
    if (!res.ok) throw Object.assign(new Error((data && data.detail) || `${res.status}`), { status: res.status, retry: Number(res.headers.get("Retry-After")) || 0 });
    return data;
  }

  async function poll(first) {
    if (stopped) return;
    let data;
    try {
      data = await fetchJSON(first ? "POST" : "GET");
      if (data.status === "none") data = await fetchJSON("POST");
    } catch (e) {
      if (e.status === 429) {
        body.textContent = t("Many reviews are waiting; this one will be asked for again in a moment.");
        timer = setTimeout(() => poll(true), 1000 * (e.retry || 10));
      } else body.textContent = t("No review: {why}", { why: e.message });
      return;
    }
    if (data.status === "done") return draw(data.review);
    if (data.status === "failed") {
      const why = data.error || t("unknown error");
      body.textContent = t("The review could not be made: {why}. Reload the page to ask again.", { why });
      return;
    }
    body.textContent = data.status === "working" ? t("The bot is reviewing this game…")
      : data.position ? t("Waiting for the bot to review this game ({n} in the queue)…", { n: data.position })
        : t("Waiting for the bot to review this game…");
    timer = setTimeout(() => poll(false), 1500);
  }

  function chart(review) {
    [W, H] = window.matchMedia("(max-width: 640px)").matches ? [360, 170] : [600, 180];
    const n = review.moves, plotW = W - PAD_L - PAD_R, plotH = H - PAD_T - PAD_B;
    xOf = (m) => PAD_L + (n ? (m / n) * plotW : 0);
    const yOf = (v) => PAD_T + (1 - v) * plotH;
    const grid = [0, 0.25, 0.5, 0.75, 1].map((v) => s("g", {}, [
      s("line", { x1: PAD_L, x2: W - PAD_R, y1: yOf(v), y2: yOf(v), class: v === 0.5 ? "grid mid" : "grid" }),
      s("text", { x: PAD_L - 4, y: yOf(v) + 4, class: "axis", "text-anchor": "end", text: pct(v) }),
    ]));
    const step = n > 150 ? 50 : n > 60 ? 20 : n > 20 ? 10 : 5;
    const ticks = [];
    for (let m = 0; m <= n; m += step) ticks.push(s("text", { x: xOf(m), y: H - 6, class: "axis", "text-anchor": "middle", text: String(m) }));
    const lines = review.chances.map((c, p) => s("polyline", {
      class: "chance", "data-seat": p, fill: "none", stroke: SEATS[p % 5].colour, "stroke-width": 2,
      "stroke-dasharray": SEATS[p % 5].dash || null, points: c.map((v, m) => `${xOf(m).toFixed(1)},${yOf(v).toFixed(1)}`).join(" "),
    }, [s("title", { text: t("{name}: chance of winning", { name: names[p] }) })]));
    const dots = review.swings.map((w) => s("circle", {
      class: "swing-dot", cx: xOf(w.move), cy: yOf(w.after), r: 4, fill: SEATS[w.seat % 5].colour,
      onclick: () => go(w.move),
    }, [s("title", { text: t("{name}, move {move}: {before} → {after}", { name: names[w.seat], move: w.move, before: pct(w.before), after: pct(w.after) }) })]));
    marker = s("line", { class: "marker", y1: PAD_T, y2: H - PAD_B, x1: PAD_L, x2: PAD_L });
    const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "review-chart", role: "img",
      "aria-label": t("Each seat's chance of winning, move by move") }, [...grid, ...ticks, ...lines, marker, ...dots]);
    svg.addEventListener("click", (e) => {
      if (e.target.classList.contains("swing-dot")) return;
      const box = svg.getBoundingClientRect();
      const x = ((e.clientX - box.left) / box.width) * W;
      go(Math.round(Math.max(0, Math.min(n, ((x - PAD_L) / plotW) * n))));
    });
    return svg;
  }

  function legend(review) {
    return h("div", { class: "review-legend" }, [h("span", { class: "muted", text: t("Chance of winning after each move:") }),
      ...review.chances.map((c, p) => h("span", { class: "who" }, [
        h("span", { class: "swatch", style: `border-top: 3px ${SEATS[p % 5].dash ? "dashed" : "solid"} ${SEATS[p % 5].colour}` }),
        names[p],
      ]))]);
  }

  function swingList(review) {
    const bySeat = names.map((_, p) => review.swings.filter((w) => w.seat === p));
    return h("div", { class: "swings" }, bySeat.map((list, p) => h("div", { class: "swing-seat" }, [
      h("h4", {}, [h("span", { class: "swatch", style: `border-top: 3px solid ${SEATS[p % 5].colour}` }), t("{name}: biggest drops", { name: names[p] })]),
      list.length ? h("ol", {}, list.map((w) => {
        const same = w.cost === null || w.cost < 0.005;
        return h("li", { class: "swing", "data-move": w.move }, [
          h("div", { class: "swing-head" }, [
            h("button", { class: "linkish", text: t("move {n}", { n: w.move }), onclick: () => go(w.move) }),
            h("span", { class: "drop", text: `${pct(w.before)} → ${pct(w.after)}` }),
          ]),
          h("div", { class: "played", text: t("Played: {move}", { move: w.played }) }),
          h("div", { class: "better" }, same
            ? [h("span", { class: "muted", text: t("The bot would have played the same: the drop came from the position, not the move.") })]
            : [t("Bot prefers: {move}", { move: w.best }) + " ", h("strong", { text: `+${pct(w.cost)}` }),
               w.best_reasons.length ? h("span", { class: "muted", text: ` (${w.best_reasons.join(", ")})` }) : null]),
        ]);
      })) : h("p", { class: "muted", text: t("No move lost ground.") }),
    ])));
  }

  function draw(review) {
    body.replaceChildren(
      legend(review), chart(review), swingList(review),
      h("p", { class: "muted small", text: t("Chances as each seat could judge them at the time ({bot}).", { bot: review.bot }) }),
    );
    el.dataset.ready = "1";
    mark(current);
  }

  let current = 0;
  function mark(m) {
    current = m;
    if (!marker || !xOf) return;
    marker.setAttribute("x1", xOf(m));
    marker.setAttribute("x2", xOf(m));
  }

  poll(true);
  return { el, mark, stop: () => { stopped = true; clearTimeout(timer); } };
}
