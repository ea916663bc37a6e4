"""The Mille Fiori board drawn in German at desktop and phone width: no text leaves its box.

The renderer (web/games/mille_fiori.js) is loaded on its own from a small static server with
the game's German catalogue (``useCatalogue("de", ...)``, the form /api/i18n serves), fed
views and German action texts from the engine.  Screenshots go to tests/web/artifacts.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import threading
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from gemtable.games.mille_fiori import GAME
from gemtable.games.mille_fiori.rules import EXTRA_CARD, PICKING, USING

pytestmark = pytest.mark.browser

WEB = Path(GAME.domains[0]).parents[2] / "web"
ARTIFACTS = Path(__file__).parent / "artifacts"
CHROMIUM = os.environ.get("GEMTABLE_CHROMIUM", "/usr/bin/chromium")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
NAMES = ["Annegret", "Bartholomäus", "Clementine", "Dorothea"]


def catalogue(po_path: Path) -> dict:
    """The .po file in the JSON form the web client reads (web/i18n.js)."""
    with po_path.open("rb") as f:
        po = read_po(f, locale="de")
    out = {}
    for m in po:
        if not m.id:
            continue
        key = m.id[0] if isinstance(m.id, (list, tuple)) else m.id
        if m.context:
            key = f"{m.context}\u0004{key}"
        out[key] = list(m.string) if isinstance(m.string, (list, tuple)) else m.string
    return out


def positions() -> dict[str, tuple]:
    """A picking, a placing, an extra-card and a finished position of random games (four
    players, and two for the finished one)."""
    found: dict[str, tuple] = {}
    for seed in range(60):
        rng = random.Random(seed)
        players = 2 if seed % 3 == 0 else 4
        state = GAME.new(players, seed)
        while True:
            if state.is_over():
                found.setdefault("over", (state.view(0), 0, []))
                break
            p = state.to_move()[0]
            phase = {PICKING: "pick", USING: "place", EXTRA_CARD: "extra"}.get(state.phase)
            if phase and phase not in found and state.turn > 6 and players == 4:
                legal = [{"id": a.id, "type": a.type, "json": a.to_json(), "text": state.action_text(p, a, "de")}
                         for a in state.legal_actions(p)]
                found[phase] = (state.view(p), p, legal)
            state.apply(p, rng.choice(state.legal_actions(p)))
        if len(found) == 4:
            return found
    raise AssertionError(f"positions not reached: {sorted(found)}")


@pytest.fixture(scope="module")
def server():
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if self.path == "/blank":  # a page of our own: the renderer alone, no shell
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
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()




DRAW = """async ([view, seat, legal, names, messages]) => {
  const i18n = await import("/i18n.js");
  const mod = await import("/games/mille_fiori.js");
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


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_german_board_fits(server, browser, size):
    messages = catalogue(Path(GAME.domains[0]) / "de.po")
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    try:
        for name, (view, seat, legal) in positions().items():
            page.goto(server + "/blank")
            page.add_style_tag(path=str(WEB / "style.css"))
            out = page.evaluate(DRAW, [view, seat, legal, NAMES, messages])
            page.screenshot(path=str(ARTIFACTS / f"mille_fiori-de-{name}-{size}.png"), full_page=True)
            problems.extend(f"{name}: {b}" for b in out["bad"])
            assert "Auslage" in out["text"] and "Werkstätten" in out["text"]
            assert "display" not in out["text"] and "diamonds" not in out["text"]
    finally:
        context.close()
    assert errors == []
    assert problems == []
