// A small choice dialog drawn on a board (SVG), for the decisions a board cannot show by
// place (which gems to give back, which noble, which pane to keep…).  Knows no game: the
// renderer gives the title, the options (each a legal action and how to draw it) and where
// the dialog goes; every option is a clickable legal action like the rest of the board.

import { s, clickable } from "./svg.js";

// opts: {
//   kind:    the decision ("return", "noble"…), set as data-choice
//   cls:     the game's class for the dialog group (e.g. "sp-dialog")
//   area:    {x, y, w, h} the part of the board the dialog dims and sits over
//   width:   the dialog's width (at most area.w - 16)
//   title:   one line; note: an optional second line (smaller)
//   options: [{ entry, label?, draw?(g, x, y, w, h) }]  (draw: a picture instead of the label)
//   cols:    options a row; optH: an option's height (a phone wants ~40 px on screen)
//   font:    the title's size (the rest scales from it)
//   act:     ctx.act
//   extra:   optional [{ label, onClick }] plain buttons (not legal actions: e.g. "show the board")
// }
export function boardDialog(opts) {
  const { area, options, act } = opts;
  const font = opts.font || 15;
  const cols = Math.max(1, Math.min(opts.cols || 3, options.length));
  const dw = Math.min(opts.width || area.w - 24, area.w - 16);
  const gap = Math.round(font * 0.55);
  const bw = (dw - 2 * gap - (cols - 1) * gap) / cols;
  const bh = opts.optH || Math.round(font * 2.4);
  const rows = Math.ceil(options.length / cols);
  const nf = font * 0.78;
  const noteLines = opts.note ? wrap(opts.note, Math.floor((dw - 2 * gap) / (nf * 0.5)), 2) : [];
  const head = font * 2.2 + noteLines.length * nf * 1.3;
  const dh = head + rows * (bh + gap) + gap;
  const dx = area.x + (area.w - dw) / 2;
  const dy = area.y + Math.max(8, Math.min(font * 3, (area.h - dh) / 2));
  const g = s("g", { class: `board-dialog ${opts.cls || ""}`.trim(), "data-choice": opts.kind || "" });
  g.appendChild(s("rect", { class: "board-dialog-dim", x: area.x, y: area.y, width: area.w, height: Math.max(area.h, dy - area.y + dh + 8), rx: 10, fill: "#00000066" }));
  g.appendChild(s("rect", { x: dx, y: dy, width: dw, height: dh, rx: 12, fill: "#fbf6ea", stroke: "#ffd24a", "stroke-width": 3 }));
  g.appendChild(s("text", { class: "board-dialog-title", x: dx + gap + 2, y: dy + font * 1.45, "font-size": font, "font-weight": 800, fill: "#2a2520", text: fitText(opts.title, dw - 2 * gap, font) }));
  noteLines.forEach((line, i) => g.appendChild(s("text", { class: "board-dialog-note", x: dx + gap + 2, y: dy + font * 1.45 + nf * 1.35 * (i + 1), "font-size": nf, fill: "#6b5a3a", text: line })));
  options.forEach((o, k) => {
    const bx = dx + gap + (k % cols) * (bw + gap);
    const by = dy + head + Math.floor(k / cols) * (bh + gap);
    const b = s("g", { class: "board-dialog-option" });
    b.appendChild(s("rect", { x: bx, y: by, width: bw, height: bh, rx: 8, fill: "#fff", stroke: "#8a7b5c" }));
    b.appendChild(s("rect", { class: "hl", x: bx - 2, y: by - 2, width: bw + 4, height: bh + 4, rx: 10 }));
    if (o.draw) o.draw(b, bx, by, bw, bh);
    else {
      const lf = Math.min(font * 0.9, bh * 0.45);
      b.appendChild(s("text", { x: bx + bw / 2, y: by + bh / 2 + lf * 0.35, "text-anchor": "middle", "font-size": lf, "font-weight": 700, fill: "#222", text: fitText(o.label || o.entry.text, bw - 10, lf) }));
    }
    g.appendChild(clickable(b, o.entry, act, o.entry.text));
  });
  return g;
}

// Words in at most `most` lines of at most `max` characters (the last one cut with "…").
function wrap(text, max, most) {
  const lines = [""];
  for (const wd of String(text).split(" ")) {
    const cur = lines[lines.length - 1];
    if (cur && (cur + " " + wd).length > max) lines.push(wd);
    else lines[lines.length - 1] = cur ? cur + " " + wd : wd;
  }
  if (lines.length > most) {
    const keep = lines.slice(0, most);
    keep[most - 1] = keep[most - 1].slice(0, Math.max(1, max - 1)) + "…";
    return keep;
  }
  return lines;
}

// Cut a line to what fits in `width` (about 0.56 em a character; bold a little wider).
function fitText(text, width, size, bold = true) {
  const t = String(text || "");
  const max = Math.floor(width / (size * (bold ? 0.6 : 0.52)));
  return t.length > max ? t.slice(0, Math.max(1, max - 1)) + "…" : t;
}
