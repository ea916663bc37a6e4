// The generic renderer: any game's view as readable panels.  Used for a game
// that has no web/games/<id>.js yet; the shell lists the legal actions beside it.

import { h, s, COLOURS, fillOf, patternDefs } from "./svg.js";
import { t } from "./i18n.js";

const SKIP = new Set(["game", "viewer", "prompt", "to_move"]);

function label(key) {
  return String(key).replace(/_/g, " ");
}

function swatch(name, patterns) {
  const svg = s("svg", { width: 14, height: 14, viewBox: "0 0 14 14", class: "swatch", "aria-hidden": "true" }, [
    patterns ? patternDefs("gsw") : null,
    s("circle", { cx: 7, cy: 7, r: 6, fill: fillOf(name, patterns, "gsw"), stroke: "#0006" }),
  ]);
  return svg;
}

function isColour(x) {
  return typeof x === "string" && Object.prototype.hasOwnProperty.call(COLOURS, x.toLowerCase());
}

function scalar(v, ctx) {
  if (v === null || v === undefined) return h("span", { class: "muted", text: "—" });
  if (typeof v === "boolean") return h("span", { class: v ? "yes" : "no", text: v ? t("yes") : t("no") });
  if (isColour(v)) return h("span", { class: "chip" }, [swatch(v, ctx.patterns), " " + v]);
  return h("span", { text: String(v) });
}

function isScalar(v) {
  return v === null || ["string", "number", "boolean"].includes(typeof v);
}

function value(v, ctx, depth) {
  if (isScalar(v)) return scalar(v, ctx);
  if (Array.isArray(v)) {
    if (v.length === 0) return h("span", { class: "muted", text: t("none") });
    if (v.every(isScalar)) return h("span", { class: "chips" }, v.map((x) => h("span", { class: "chip" }, [scalar(x, ctx)])));
    if (depth > 6) return h("code", { text: JSON.stringify(v) });
    return h("div", { class: "gen-list" }, v.map((x, i) => h("div", { class: "gen-item" }, [
      h("span", { class: "gen-index", text: `${i + 1}` }), value(x, ctx, depth + 1),
    ])));
  }
  const entries = Object.entries(v);
  if (entries.length === 0) return h("span", { class: "muted", text: t("none") });
  if (entries.every(([, x]) => isScalar(x))) {
    return h("span", { class: "chips" }, entries.map(([k, x]) =>
      h("span", { class: "chip" }, [isColour(k) ? swatch(k, ctx.patterns) : null, ` ${label(k)}: `, h("b", {}, [scalar(x, ctx)])])));
  }
  if (depth > 6) return h("code", { text: JSON.stringify(v) });
  return h("dl", { class: "gen-dl" }, entries.flatMap(([k, x]) => [h("dt", { text: label(k) }), h("dd", {}, [value(x, ctx, depth + 1)])]));
}

export function render(el, ctx) {
  const view = ctx.view || {};
  el.replaceChildren();
  const wrap = h("div", { class: "generic" });
  const facts = [];
  const panels = [];
  for (const [k, v] of Object.entries(view)) {
    if (SKIP.has(k)) continue;
    if (isScalar(v)) facts.push([k, v]);
    else panels.push([k, v]);
  }
  if (facts.length) {
    wrap.appendChild(h("section", { class: "panel" }, [
      h("h3", { text: t("Table") }),
      h("dl", { class: "gen-dl" }, facts.flatMap(([k, v]) => [h("dt", { text: label(k) }), h("dd", {}, [scalar(v, ctx)])])),
    ]));
  }
  for (const [k, v] of panels) {
    const seatsLike = Array.isArray(v) && v.length === (ctx.names || []).length && v.every((x) => x && typeof x === "object" && !Array.isArray(x)) && /seat|player/.test(k);
    if (seatsLike) {
      v.forEach((seatView, i) => {
        const mine = ctx.seat === i;
        wrap.appendChild(h("section", { class: "panel seat-panel" + (mine ? " mine" : "") + ((ctx.toMove || []).includes(i) ? " moving" : "") }, [
          h("h3", { text: mine ? t("{name} (you)", { name: ctx.names[i] }) : ctx.names[i] }),
          value(seatView, ctx, 1),
        ]));
      });
    } else {
      wrap.appendChild(h("section", { class: "panel" }, [h("h3", { text: label(k) }), value(v, ctx, 1)]));
    }
  }
  el.appendChild(wrap);
}
