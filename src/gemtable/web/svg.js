// Small helpers shared by the renderers: SVG element building, colours and
// colour-blind patterns.  Hand-written, no dependencies, nothing fetched.

export const SVGNS = "http://www.w3.org/2000/svg";

// h("rect", {x: 1, class: "a"}, [children]) -> SVG element
export function s(tag, attrs = {}, children = []) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = unshy(v); // SVG text never breaks: soft hyphens are not drawn
    else if (k === "onclick") el.addEventListener("click", v);
    else el.setAttribute(k, String(v));
  }
  for (const c of [].concat(children)) if (c) el.appendChild(c);
  return el;
}

// HTML element builder with the same shape
export function h(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k === "html") throw new Error("no raw html");
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of [].concat(children)) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return el;
}

// Gem and glass colours: fill, darker stroke, text colour on top, pattern id.
export const COLOURS = {
  white: { fill: "#f4f1ea", stroke: "#9c968a", ink: "#333", pattern: "dots" },
  blue: { fill: "#2f6fc4", stroke: "#1a3f73", ink: "#fff", pattern: "hlines" },
  green: { fill: "#2f9a55", stroke: "#185c31", ink: "#fff", pattern: "diag" },
  red: { fill: "#cf3b3b", stroke: "#7a1d1d", ink: "#fff", pattern: "cross" },
  black: { fill: "#3a3430", stroke: "#000", ink: "#fff", pattern: "vlines" },
  gold: { fill: "#e8b931", stroke: "#8a6a0c", ink: "#3a2b00", pattern: "stars" },
  yellow: { fill: "#f2cf3a", stroke: "#8a7310", ink: "#3a2b00", pattern: "stars" },
  orange: { fill: "#ee8a2c", stroke: "#8c4a0c", ink: "#2a1500", pattern: "rdiag" },
  purple: { fill: "#8a4fbf", stroke: "#4b2470", ink: "#fff", pattern: "grid" },
  pink: { fill: "#ec7fb0", stroke: "#8c3560", ink: "#2a0015", pattern: "rings" },
  teal: { fill: "#1f9c9c", stroke: "#0d5555", ink: "#fff", pattern: "waves" },
  cyan: { fill: "#4cc3e0", stroke: "#1d6e82", ink: "#05232b", pattern: "waves" },
  brown: { fill: "#8a5a34", stroke: "#4a2e15", ink: "#fff", pattern: "bricks" },
  grey: { fill: "#9a9a9a", stroke: "#555", ink: "#111", pattern: "dots" },
  gray: { fill: "#9a9a9a", stroke: "#555", ink: "#111", pattern: "dots" },
  clear: { fill: "#d9eef2", stroke: "#7aa4ad", ink: "#123", pattern: "rings" },
  amber: { fill: "#d98a1f", stroke: "#7a4a08", ink: "#fff", pattern: "rdiag" },
  "dark blue": { fill: "#23408f", stroke: "#0f1f4a", ink: "#fff", pattern: "hlines" },
  "light blue": { fill: "#8cc8ef", stroke: "#3a7aa3", ink: "#0b2a3d", pattern: "waves" },
  "dark green": { fill: "#1f6b3a", stroke: "#0c3a1d", ink: "#fff", pattern: "diag" },
  "light green": { fill: "#9fd98a", stroke: "#4a8a3a", ink: "#14300c", pattern: "rings" },
};

export function cssId(name) { return String(name).toLowerCase().replace(/[^a-z0-9]+/g, "-"); }

const EXTRA = ["#5b7fa6", "#a65b8c", "#6ba65b", "#a6905b", "#5ba6a1", "#8c5ba6"];

export function colour(name) {
  if (typeof name !== "string") return { fill: "#bbb", stroke: "#666", ink: "#111", pattern: "dots" };
  const c = COLOURS[name.toLowerCase()];
  if (c) return c;
  let hsh = 0;
  for (const ch of name) hsh = (hsh * 31 + ch.charCodeAt(0)) >>> 0;
  return { fill: EXTRA[hsh % EXTRA.length], stroke: "#333", ink: "#fff", pattern: "dots" };
}

// <defs> with one pattern per colour name: a tint of the colour plus a
// texture, so colours can be told apart without colour vision.
export function patternDefs(prefix = "cb") {
  const defs = s("defs");
  const textures = {
    dots: (ink) => [s("circle", { cx: 3, cy: 3, r: 1.3, fill: ink })],
    hlines: (ink) => [s("path", { d: "M0 2 H8 M0 6 H8", stroke: ink, "stroke-width": 1.2 })],
    vlines: (ink) => [s("path", { d: "M2 0 V8 M6 0 V8", stroke: ink, "stroke-width": 1.2 })],
    diag: (ink) => [s("path", { d: "M-2 2 L2 -2 M0 8 L8 0 M6 10 L10 6", stroke: ink, "stroke-width": 1.2 })],
    rdiag: (ink) => [s("path", { d: "M-2 6 L2 10 M0 0 L8 8 M6 -2 L10 2", stroke: ink, "stroke-width": 1.2 })],
    cross: (ink) => [s("path", { d: "M0 0 L8 8 M8 0 L0 8", stroke: ink, "stroke-width": 1 })],
    grid: (ink) => [s("path", { d: "M4 0 V8 M0 4 H8", stroke: ink, "stroke-width": 1 })],
    stars: (ink) => [s("path", { d: "M4 1 L5 3.4 L7.5 3.6 L5.6 5.2 L6.2 7.6 L4 6.3 L1.8 7.6 L2.4 5.2 L0.5 3.6 L3 3.4 Z", fill: ink })],
    rings: (ink) => [s("circle", { cx: 4, cy: 4, r: 2.2, fill: "none", stroke: ink, "stroke-width": 1 })],
    waves: (ink) => [s("path", { d: "M0 4 Q2 1 4 4 T8 4", fill: "none", stroke: ink, "stroke-width": 1.1 })],
    bricks: (ink) => [s("path", { d: "M0 0 H8 M0 4 H8 M4 0 V4 M0 4 V8", stroke: ink, "stroke-width": 0.9 })],
  };
  for (const [name, c] of Object.entries(COLOURS)) {
    const tex = textures[c.pattern] || textures.dots;
    const ink = c.ink === "#fff" ? "rgba(255,255,255,0.75)" : "rgba(0,0,0,0.55)";
    defs.appendChild(
      s("pattern", { id: `${prefix}-${cssId(name)}`, width: 8, height: 8, patternUnits: "userSpaceOnUse" }, [
        s("rect", { width: 8, height: 8, fill: c.fill }),
        ...tex(ink),
      ])
    );
  }
  return defs;
}

// Fill for a colour name: its pattern in colour-blind mode, else the flat colour.
export function fillOf(name, patterns, prefix = "cb") {
  if (patterns && typeof name === "string" && COLOURS[name.toLowerCase()]) return `url(#${prefix}-${cssId(name)})`;
  return colour(name).fill;
}

// Make an SVG element a clickable legal action (keyboard accessible too).
export function clickable(el, entry, act, label) {
  el.classList.add("act");
  el.setAttribute("tabindex", "0");
  el.setAttribute("role", "button");
  el.setAttribute("data-action", JSON.stringify(entry.json));
  el.setAttribute("aria-label", label || entry.text);
  const t = s("title", { text: label || entry.text });
  el.appendChild(t);
  el.addEventListener("click", (e) => { e.stopPropagation(); act(entry); });
  el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); act(entry); }
  });
  return el;
}

// Mark a drawn thing that a player may tap although it is not a legal move now (a card
// they cannot afford, a strip that does not fit): `json` is the action the tap would be.
// The shell answers the tap with the engine's reason (ctx.why: the server's "why" query for
// this seat); nothing happens where the shell offers no ctx.why (replays, spectators).
export function explainable(el, json, ctx) {
  if (!ctx.why || !ctx.legal || !ctx.legal.length) return el;
  el.classList.add("why");
  el.setAttribute("data-why", JSON.stringify(json));
  el.addEventListener("click", (e) => { e.stopPropagation(); ctx.why(json, el); });
  return el;
}

// The verb for a hint: "tap" on a touch screen or a phone-sized one, "click" with a mouse.
// (`capital`: "Tap" / "Click".)  A key, not a word to show: a renderer picks between two
// whole sentences with it (`tapWord() === "tap" ? t("… tap …") : t("… click …")`), since
// another language words them differently.
export function tapWord(capital = false) {
  const touch = typeof window !== "undefined" && window.matchMedia && (window.matchMedia("(pointer: coarse)").matches || window.matchMedia("(max-width: 640px)").matches);
  const w = touch ? "tap" : "click";
  return capital ? w[0].toUpperCase() + w.slice(1) : w;
}

// Compare an action JSON with a partial pattern: every key in `want` must match.
export function matches(json, want) {
  for (const [k, v] of Object.entries(want)) {
    const a = json[k];
    if (Array.isArray(v)) {
      if (!Array.isArray(a) || a.length !== v.length || a.some((x, i) => x !== v[i])) return false;
    } else if (a !== v) return false;
  }
  return true;
}

export function findLegal(legal, want) {
  return legal.filter((e) => matches(e.json, want));
}

// Readable text.  The boards are SVGs scaled to the width of the screen, so a label drawn
// at 9 user units reads 6 px on a phone.  Every <text> a player needs renders at least
// MIN_TEXT_PX CSS px tall: on a narrow screen (under 640 px, where the renderers draw their
// phone layouts) the shell calls raiseSmallText on the board after each drawing,
// which enlarges the font of any text below that (font size × the text's scale to the
// screen) in place.  A renderer that lays out around its labels (pips, badges, rows of
// labels) asks minFont(el, viewWidth) for the smallest size in user units first, and draws
// its shapes large enough for it.  A glyph that carries no information may be marked
// data-decor and is left as drawn.
export const MIN_TEXT_PX = 10.2;

// The smallest font size (user units) that reads MIN_TEXT_PX on screen when a viewBox
// `viewWidth` units wide fills the element `el` (0 when el is not laid out yet).
export function minFont(el, viewWidth, px = MIN_TEXT_PX) {
  const w = el && el.clientWidth;
  return w ? (px * viewWidth) / w : 0;
}

// Enlarge, in place, every drawn <text> under `root` whose rendered size is under `px`.
export function raiseSmallText(root, px = MIN_TEXT_PX) {
  for (const t of root.querySelectorAll("svg text")) {
    if (t.closest("[data-decor]")) continue;
    const m = t.getScreenCTM && t.getScreenCTM();
    if (!m) continue;
    const scale = Math.hypot(m.a, m.b);
    const size = parseFloat(getComputedStyle(t).fontSize);
    if (scale > 0 && size * scale < px) t.style.fontSize = `${px / scale}px`;
  }
}

// Long words.  A translation may mark where a long word may break with a soft hyphen
// (U+00AD: "Spring\u00adbrunnen", see docs/TRANSLATING.md).  SVG text is never broken
// by the browser, so a renderer that lays a label out in lines asks wrapWords for them;
// anywhere else the soft hyphens are simply not drawn (s() drops them).
export const SHY = "\u00ad";

// `text` without its soft hyphens.
export function unshy(text) {
  return String(text).replace(/\u00ad/g, "");
}

// `text` in lines of at most `max` characters: words wrap at spaces, and a word longer than
// the room left breaks only at its soft hyphens, with a hyphen drawn at the break
// ("Spring-" / "brunnen"); a word without one that does not fit stays whole on its own line
// (the caller may then shrink the font).  The lines carry no soft hyphens.
export function wrapWords(text, max) {
  const lines = [];
  let line = "";
  const room = () => max - line.length - (line ? 1 : 0);
  for (const word of String(text).split(" ").filter((w) => w)) {
    const plain = unshy(word);
    if (plain.length <= room()) { line = line ? `${line} ${plain}` : plain; continue; }
    const parts = word.split(SHY);
    if (parts.length > 1) {
      // as many syllables as fit (with the hyphen) on this line, the rest on the next ones
      let i = 0;
      while (i < parts.length) {
        let j = i, piece = parts[i];
        while (j + 1 < parts.length && (piece + parts[j + 1]).length + (j + 2 < parts.length ? 1 : 0) <= (line ? room() : max)) {
          j += 1;
          piece += parts[j];
        }
        const last = j === parts.length - 1;
        if (!last && piece.length + 1 > (line ? room() : max) && line) { lines.push(line); line = ""; continue; }
        line = line ? `${line} ${piece}` : piece;
        if (!last) { lines.push(`${line}-`); line = ""; }
        i = j + 1;
      }
      continue;
    }
    if (line) lines.push(line);
    line = plain;
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}
