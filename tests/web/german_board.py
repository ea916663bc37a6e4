"""Drawing one game's board in German on its own, for the tests of its texts' fit.

The renderer (web/games/<game>.js) is loaded from a small static server of the web folder on
a blank page with the game's German catalogue (``useCatalogue("de", ...)``, the form
/api/i18n serves), fed views and German action texts from the engine; every text must lie
inside the board and inside the box it starts in.  Screenshots go to tests/web/artifacts.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from babel.messages.pofile import read_po

WEB = Path(__file__).resolve().parents[2] / "src" / "gemtable" / "web"
ARTIFACTS = Path(__file__).parent / "artifacts"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
NAMES = ["Annegret", "Bartholomäus", "Clementine", "Dorothea"]


def catalogue(po_path: Path) -> dict:
    """A .po file in the JSON form the web client reads (web/i18n.js): "ctx\\u0004English" or
    "English" -> text or [plural forms]; fuzzy entries are no translation."""
    with po_path.open("rb") as f:
        po = read_po(f, locale="de")
    out = {}
    for m in po:
        if not m.id or m.fuzzy:
            continue
        key = m.id[0] if isinstance(m.id, (list, tuple)) else m.id
        if m.context:
            key = f"{m.context}\u0004{key}"
        out[key] = list(m.string) if isinstance(m.string, (list, tuple)) else m.string
    return out


@contextmanager
def static_server() -> Iterator[str]:
    """The web folder over HTTP, plus /blank: an empty page for a renderer alone (no shell)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/blank":
                body = b"<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            super().do_GET()

    handler = functools.partial(Handler, directory=str(WEB))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


DRAW = """async ([game, view, seat, legal, names, messages]) => {
  const i18n = await import("/i18n.js");
  const mod = await import(`/games/${game}.js`);
  i18n.useCatalogue("de", messages);
  document.body.innerHTML = '<div id="board" class="board"></div>';
  const el = document.getElementById("board");
  mod.render(el, { view, legal, seat, names, toMove: view.to_move, patterns: false, act: () => {},
                   confirm: null, mode: "play" });
  // every text must lie inside the board and inside the box (rect) it starts in
  const svg = el.querySelector("svg").getBoundingClientRect();
  const bad = [];
  for (const t of el.querySelectorAll("svg text")) {
    const r = t.getBoundingClientRect();
    if (!t.textContent.trim() || r.width === 0) continue;
    if (r.left < svg.left - 1 || r.right > svg.right + 1) bad.push(`outside the board: ${t.textContent}`);
    for (let g = t.parentNode; g && g.tagName !== "svg"; g = g.parentNode) {
      const box = [...g.children].find((c) => c.tagName === "rect" && c !== t && (() => {
        const b = c.getBoundingClientRect();
        return b.width > 60 && b.left <= r.left + 1 && r.left <= b.right && b.top <= r.top + r.height / 2 && r.top + r.height / 2 <= b.bottom;
      })());
      if (box) {
        const b = box.getBoundingClientRect();
        if (r.right > b.right + 2) bad.push(`over its box: ${t.textContent}`);
        break;
      }
    }
  }
  return { bad, text: el.textContent };
}"""


def seat_position(state: Any, seat: int) -> tuple:
    """(view, seat, legal) of ``seat`` in ``state``, its legal actions as a table message lists
    them (``LiveTable.payload``), their words in German."""
    legal = [{"id": a.id, "type": a.type, "json": a.to_json(), "text": state.action_text(seat, a, "de")}
             for a in state.legal_actions(seat)]
    return state.view(seat), seat, legal


def board_problems(browser: Any, server: str, game: Any, size: str, positions: dict[str, tuple],
                   check: Callable[[str, str], None]) -> list[str]:
    """Draw each of ``positions`` (name -> (view, seat, legal)) of ``game`` in German at
    ``size``; ``check(name, text)`` asserts on the board's words; returns the texts that do
    not fit (and fails on a page error)."""
    messages = catalogue(Path(game.domains[0]) / "de.po")
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    try:
        for name, (view, seat, legal) in positions.items():
            page.goto(server + "/blank")
            page.add_style_tag(path=str(WEB / "style.css"))
            out = page.evaluate(DRAW, [game.id, view, seat, legal, NAMES, messages])
            page.screenshot(path=str(ARTIFACTS / f"{game.id}-de-{name}-{size}.png"), full_page=True)
            problems.extend(f"{name}: {b}" for b in out["bad"])
            check(name, out["text"])
    finally:
        context.close()
    assert errors == []
    return problems
