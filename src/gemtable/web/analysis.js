// The analysis board in the replay viewer: from the shown position of a finished game, try
// other moves (on the board or from the list) and see each seat's chance of winning change,
// with the bot's three best moves at every step.  The server judges each position
// (POST /api/tables/{id}/analysis); "Back to the game" returns to the replay.

import { h } from "./svg.js";
import { t, tn } from "./i18n.js";

const pct = (x) => `${Math.round(x * 100)}%`;

// analysisPanel({ tableId, names, draw(ctx), leave() }) -> { el, start(move), stop(), active() }
export function analysisPanel({ tableId, names, draw, leave }) {
  const el = h("section", { class: "panel analysis", id: "analysis", hidden: "" });
  let from = null, line = [], data = null, busy = false, open = false;

  async function load() {
    busy = true;
    render(t("Judging the position…"));
    try {
      const res = await fetch("/api/tables/" + tableId + "/analysis", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ move: from, line: line.map(([seat, action]) => ({ seat, action })) }),
      });
      const got = await res.json().catch(() => null);
      if (!res.ok) throw new Error((got && got.detail) || `${res.status}`);
      if (!open) return;
      data = got;
      draw({ view: data.view, legal: data.legal, seat: data.seat, toMove: data.to_move, prompt: data.prompt,
        over: data.over, result: data.result, act: (e) => play(e) });
      render();
    } catch (e) {
      if (line.length && data && data.line !== line.length) line.pop(); // the move was refused: take it back
      render(t("Not possible: {why}", { why: e.message }));
    } finally { busy = false; }
  }

  function play(entry) {
    if (busy || !data || data.seat === null) return;
    line.push([data.seat, entry.json]);
    el.dataset.line = String(line.length);
    load();
  }

  function render(note = null) {
    const rows = [];
    rows.push(h("div", { class: "analysis-head" }, [
      h("h3", { text: t("Analysis from move {n}", { n: from }) }),
      h("button", { type: "button", id: "analysis-undo", text: "↶ " + t("Take back"), disabled: line.length && !busy ? null : "",
        onclick: () => { line.pop(); el.dataset.line = String(line.length); load(); } }),
      h("button", { type: "button", class: "primary", id: "analysis-leave", text: t("Back to the game"), onclick: () => { stop(); leave(); } }),
    ]));
    if (note) rows.push(h("p", { class: "muted analysis-note", text: note }));
    if (data) {
      rows.push(h("div", { class: "analysis-chances" }, data.chances.map((c, p) => h("div", { class: "chance-row" }, [
        h("span", { class: "who", text: names[p] }),
        h("span", { class: "bar" }, [h("span", { class: "fill", style: `width: ${Math.round(c * 100)}%` })]),
        h("span", { class: "num", text: pct(c) }),
      ]))));
      if (line.length) rows.push(h("p", { class: "muted", text: tn("{n} move tried.", "{n} moves tried.", line.length) }));
      if (data.over) rows.push(h("p", { text: t("The game ends here.") }));
      else if (data.seat !== null) {
        rows.push(h("p", {}, [h("b", { text: t("{name}:", { name: names[data.seat] }) + " " }), data.prompt || ""]));
        rows.push(h("ol", { class: "analysis-best" }, data.best.map((m) => {
          const entry = data.legal.find((e) => JSON.stringify(e.json) === JSON.stringify(m.action));
          return h("li", {}, [
            h("button", { type: "button", class: "linkish", text: m.text, onclick: () => entry && play(entry) }),
            h("span", { class: "muted", text: ` · ${pct(m.chance)}${m.reasons.length ? ` · ${m.reasons.join(", ")}` : ""}` }),
          ]);
        })));
        rows.push(h("details", { class: "analysis-all" }, [h("summary", { text: t("All moves ({n})", { n: data.legal.length }) }),
          h("div", { class: "action-buttons" }, data.legal.map((e) => h("button", { class: "action", text: e.text, onclick: () => play(e) })))]));
      }
    }
    el.replaceChildren(...rows);
  }

  function start(move) {
    from = move; line = []; data = null; open = true;
    el.hidden = false;
    el.dataset.line = "0";
    document.body.dataset.analysis = "1";
    load();
  }

  function stop() {
    if (!open) return;
    open = false;
    el.hidden = true;
    delete document.body.dataset.analysis;
  }

  return { el, start, stop, active: () => open };
}
