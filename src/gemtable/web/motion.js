// Motion: a short flight from where a piece came from to where it went, so a
// player sees what was just played (by a bot, another player or themselves).
//
// Knows no game.  A renderer that wants motion
//   * puts `data-motion-key="<key>"` on the elements that can take part (a key names one
//     place or one object, the same key before and after a move: "sp-bank-red", "sp-card-17"),
//   * exports `motions(prev, next, ctx)`: from the previous and the new view, the list of
//     `{ from, to, ghost }` moves (`from`: a key drawn in the previous board, or a list of
//     keys of which the first one drawn is used; `to`: a key
//     drawn in the new one, `ghost`: "from" (default) to fly the old element's picture,
//     "to" to fly the new one's).
// Parts of an element marked `data-motion-skip` (a counter, say) are left out of its ghost.
// The shell calls `before(el, mod, ctx)` just before the renderer redraws the board and
// `after(token)` right after it.  A ghost (a copy of the element's drawing) then flies
// between the two places' boxes in a fixed layer over the page (Web Animations API, FLIP:
// it is laid out where it lands and starts transformed back to where it came from), while
// the landing element is hidden until it arrives.
//
// Off when the system asks for reduced motion, when the player turns it off (the
// "animations" setting, stored in localStorage as gt.motion), and on a board's first drawing.

const KEY = "data-motion-key";
const STORE = "gt.motion";
const DURATION = 420; // ms
const STAGGER = 60;   // ms between ghosts of one move
const MAX_GHOSTS = 12;

const last = new WeakMap(); // board element -> { mod, view } of its last drawing

export function reduced() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

export function settingOn() {
  return localStorage.getItem(STORE) !== "0";
}

export function enabled() {
  return settingOn() && !reduced() && typeof Element.prototype.animate === "function";
}

// Wire the settings checkbox (checked = animations on); `onChange` is told the new value.
export function setupToggle(input, onChange) {
  if (!input) return;
  input.checked = settingOn();
  input.addEventListener("change", () => {
    localStorage.setItem(STORE, input.checked ? "1" : "0");
    if (onChange) onChange(input.checked);
  });
}

function esc(key) {
  return String(key).replace(/["\\]/g, "\\$&");
}

function find(root, key) {
  return root.querySelector(`[${KEY}="${esc(key)}"]`);
}

// The moves of the coming redraw, with the "from" places measured on the old board.
export function before(el, mod, ctx) {
  const prev = last.get(el);
  last.set(el, { mod, view: ctx.view });
  if (!prev || prev.mod !== mod || !prev.view || prev.view === ctx.view) return null;
  if (typeof mod.motions !== "function" || !enabled() || document.hidden) return null;
  let moves;
  try {
    moves = mod.motions(prev.view, ctx.view, ctx) || [];
  } catch (err) {
    console.warn("motion: the renderer's motions() failed", err);
    return null;
  }
  const seen = new Set();
  const out = [];
  for (const m of moves) {
    if (!m || !m.from || !m.to) continue;
    const key = [].concat(m.from).find((k) => find(el, k));
    if (!key) continue;
    const id = `${key}>${m.to}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const node = find(el, key);
    const rect = node.getBoundingClientRect();
    if (!rect.width || !rect.height) continue;
    const ghost = m.ghost === "to" ? null : picture(node);
    out.push({ ...m, from: key, rect, ghost });
    if (out.length >= MAX_GHOSTS) break;
  }
  return out.length ? { el, moves: out, scrollX: window.scrollX, scrollY: window.scrollY } : null;
}

// Fly the ghosts of the moves measured by before() to their new places.
export function after(token) {
  if (!token) return;
  try {
    run(token);
  } catch (err) {
    console.warn("motion failed", err);
  }
}

function layer() {
  let l = document.getElementById("motion-layer");
  if (!l) {
    l = document.createElement("div");
    l.id = "motion-layer";
    l.setAttribute("aria-hidden", "true");
    // over the page, never in the way of a tap, never widening the page
    Object.assign(l.style, { position: "fixed", inset: "0", pointerEvents: "none", overflow: "hidden", zIndex: "40" });
    document.body.appendChild(l);
  }
  return l;
}

function run(token) {
  const { el, moves } = token;
  const dx0 = token.scrollX - window.scrollX, dy0 = token.scrollY - window.scrollY;
  const hidden = new Map(); // landing element -> ghosts still flying to it
  let k = 0;
  for (const m of moves) {
    const target = find(el, m.to);
    if (!target) continue;
    const to = target.getBoundingClientRect();
    if (!to.width || !to.height) continue;
    const from = { left: m.rect.left + dx0, top: m.rect.top + dy0, width: m.rect.width, height: m.rect.height };
    if (Math.abs(from.left - to.left) < 2 && Math.abs(from.top - to.top) < 2 && Math.abs(from.width - to.width) < 2) continue;
    const ghost = m.ghost || picture(target);
    if (!ghost) continue;
    ghost.classList.add("motion-ghost");
    ghost.dataset.motionFrom = m.from;
    ghost.dataset.motionTo = m.to;
    Object.assign(ghost.style, {
      position: "absolute", left: `${to.left}px`, top: `${to.top}px`, width: `${to.width}px`, height: `${to.height}px`,
      margin: "0", pointerEvents: "none", transformOrigin: "0 0", overflow: "visible", zIndex: "40",
    });
    const sx = from.width / to.width, sy = from.height / to.height;
    const start = `translate(${from.left - to.left}px, ${from.top - to.top}px) scale(${sx}, ${sy})`;
    layer().appendChild(ghost);
    hidden.set(target, (hidden.get(target) || 0) + 1);
    target.style.visibility = "hidden";
    const anim = ghost.animate(
      [{ transform: start, opacity: 0.9 }, { transform: "none", opacity: 1 }],
      { duration: DURATION, delay: Math.min(k, 4) * STAGGER, easing: "cubic-bezier(.25,.7,.3,1)", fill: "backwards", id: "gt-motion" },
    );
    k += 1;
    const done = () => {
      ghost.remove();
      const left = (hidden.get(target) || 1) - 1;
      hidden.set(target, left);
      if (left <= 0) target.style.visibility = "";
    };
    anim.onfinish = done;
    anim.oncancel = done;
  }
}

// A copy of an SVG element's drawing as a small standalone <svg> (or of an HTML element).
function picture(node) {
  if (node instanceof SVGGraphicsElement) {
    let box;
    try { box = node.getBBox(); } catch { return null; }
    if (!box || !box.width || !box.height) return null;
    const clone = node.cloneNode(true);
    clone.removeAttribute("transform");
    clone.removeAttribute(KEY);
    clone.classList.remove("act");
    clone.style.visibility = "";
    // no highlight ring, tooltip or counter (data-motion-skip) flies along
    for (const x of clone.querySelectorAll(`.hl, title, [data-motion-skip], [${KEY}]`)) {
      if (x.matches(".hl, title, [data-motion-skip]")) x.remove(); else x.removeAttribute(KEY);
    }
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", `${box.x} ${box.y} ${box.width} ${box.height}`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    svg.appendChild(clone);
    return svg;
  }
  if (node instanceof HTMLElement) {
    const clone = node.cloneNode(true);
    clone.removeAttribute(KEY);
    clone.removeAttribute("id");
    return clone;
  }
  return null;
}
