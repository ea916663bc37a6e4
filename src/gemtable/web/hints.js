// The hint button at a practice table (every other seat a bot): the bot's three best moves
// for this position, each with its chance of winning and short reasons, and a button to
// play it.  A hinted game is not rated (the server keeps the mark).

import { h } from "./svg.js";
import { t } from "./i18n.js";

// hintBox({ tableId, token: () => token, act }) -> { el(msg) }: the hint section for the
// seat's current message (a new position clears the shown hints)
export function hintBox({ tableId, token, act }) {
  let shownFor = null, shown = null, asking = false;
  const box = h("div", { class: "hints", id: "hints" });

  async function ask(msg) {
    if (asking) return;
    asking = true;
    render(msg, t("The bot is looking at your position…"));
    try {
      const res = await fetch("/api/tables/" + tableId + "/hint", {
        method: "POST", headers: { "Content-Type": "application/json", "X-Seat-Token": token() },
        body: JSON.stringify({ version: msg.version }),
      });
      const data = await res.json().catch(() => null);
      if (!res.ok) throw new Error((data && data.detail) || `${res.status}`);
      shownFor = data.version; shown = data.hints;
      render(msg);
    } catch (e) {
      render(msg, t("No hint: {why}", { why: e.message }));
    } finally { asking = false; }
  }

  function render(msg, note = null) {
    const list = shownFor === msg.version && shown ? shown : null;
    const legal = msg.legal || [];
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    box.replaceChildren(...[
      h("button", { type: "button", class: "hint-button", id: "hint", text: t("Hint"),
        title: t("The bot's three best moves here (a hinted game is not rated)"), disabled: asking ? "" : null,
        onclick: () => ask(msg) }),
      note ? h("p", { class: "muted hint-note", text: note }) : null,
      list ? h("ol", { class: "hint-list" }, list.map((m) => {
        const entry = legal.find((e) => same(e.json, m.action));
        return h("li", { class: "hint" }, [
          h("div", {}, [h("strong", { text: m.text }), h("span", { class: "muted", text: " · " + t("{pct}% to win", { pct: Math.round(m.chance * 100) }) })]),
          m.reasons.length ? h("div", { class: "hint-why", text: m.reasons.join(", ") }) : null,
          entry ? h("button", { type: "button", class: "play-hint", text: t("Play this"), onclick: () => act(entry) }) : null,
        ]);
      })) : null,
      list || note ? null : h("p", { class: "muted hint-note", text: t("Practice table: hints are on (a hinted game is not rated).") }),
    ].filter(Boolean));
  }

  return { el(msg) { if (!asking) render(msg); return box; } };
}
