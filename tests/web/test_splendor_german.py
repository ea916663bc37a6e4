"""Splendor's board in German: every word from the game's catalogue, nothing clipped.

The renderer takes its words from ``web/i18n.js``; here the page is given Splendor's German
catalogue (read from ``games/splendor/locale/de.po`` with Babel, in the form the server's
``/api/i18n/<lang>`` sends) and the board is drawn again, at 1280x800 and on a 390x844 phone.
"""

from __future__ import annotations

import random
import re

import pytest

from gemtable.games.registry import get_game

from .german_board import catalogue
from .test_browser import click_once, create_table, play_a_few, wait_ready

pytestmark = pytest.mark.browser


def german_messages() -> dict:
    """Splendor's German catalogue as web/i18n.js reads it."""
    return catalogue(get_game("splendor").domains[0] / "de.po")


# Every text of the board with its box, the box of the thing it sits in (a button, a seat
# panel) and the board's viewBox.
MEASURE = """() => {
  const svg = document.querySelector('#board svg');
  const [vx, vy, vw, vh] = svg.getAttribute('viewBox').split(' ').map(Number);
  const texts = [], cut = [], overlaps = [];
  const box = (e) => e.getBBox();
  for (const t of svg.querySelectorAll('text')) {
    if (!t.textContent) continue;
    const b = t.getBoundingClientRect();
    texts.push(t.textContent);
    const bb = box(t);
    if (bb.x < vx - 1 || bb.x + bb.width > vx + vw + 1) cut.push('off the board: ' + t.textContent);
    const pill = t.closest('g.pill');
    if (pill) {
      const r = pill.querySelector('rect').getBoundingClientRect();
      if (b.width > r.width - 2) cut.push('wider than its button: ' + t.textContent);
    }
  }
  for (const seat of svg.querySelectorAll('g.seat')) {
    const r = seat.querySelector('rect').getBoundingClientRect();
    const own = [...seat.children].filter((e) => e.tagName === 'text' && e.textContent);
    for (const t of own) {
      const b = t.getBoundingClientRect();
      if (b.left < r.left - 1 || b.right > r.right + 1) cut.push('outside its seat: ' + t.textContent);
    }
    // the words of one line (the name, the counts, the points) never run into each other
    for (let i = 0; i < own.length; i++) for (let j = i + 1; j < own.length; j++) {
      if (Math.abs(own[i].getAttribute('y') - own[j].getAttribute('y')) > 4) continue;
      const a = own[i].getBoundingClientRect(), b = own[j].getBoundingClientRect();
      if (a.left < b.right - 1 && b.left < a.right - 1) overlaps.push(own[i].textContent + ' / ' + own[j].textContent);
    }
  }
  // the bank's words (its title, the hint while picking gems) stay clear of the cards
  const cards = [...svg.querySelectorAll('#sp-cards g.card > rect')].map((r) => r.getBoundingClientRect());
  for (const t of svg.querySelectorAll('#sp-bank text')) {
    const b = t.getBoundingClientRect();
    if (cards.some((c) => b.left < c.right && c.left < b.right && b.top < c.bottom && c.top < b.bottom))
      overlaps.push('over a card: ' + t.textContent);
  }
  return { texts, cut, overlaps };
}"""


@pytest.mark.parametrize(("name", "width", "height"), [("desktop", 1280, 800), ("phone", 390, 844)])
def test_splendor_board_in_german_reads_whole(browser, live_server, artifacts, name, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    rnd = random.Random(11)
    create_table(page, live_server, "splendor")
    page.wait_for_url(re.compile(r"/table/\w+#token="))
    wait_ready(page)
    messages = german_messages()
    page.evaluate("""async (messages) => {
      const i18n = await import('/static/i18n.js');
      i18n.useCatalogue('de', messages);
    }""", messages)

    def look(shot: str) -> dict:
        """Pick a gem from the bank (the board is drawn again, with Take / Clear), measure, keep a picture."""
        wait_ready(page)
        if page.evaluate("document.body.dataset.over") != "1":
            if page.locator("#sp-bank [data-take]").count():
                page.locator("#sp-bank [data-take]").first.click()
            else:
                click_once(page, rnd)
        page.wait_for_function("() => /Vorrat/.test(document.querySelector('#board svg').textContent)")
        wait_ready(page)
        seen = page.evaluate(MEASURE)
        page.screenshot(path=str(artifacts / f"splendor-de-{name}-{shot}.png"), full_page=True)
        assert seen["cut"] == [], seen["cut"]
        assert seen["overlaps"] == [], seen["overlaps"]
        if page.locator("#sp-bank [data-clear]").count():
            page.locator("#sp-bank [data-clear]").click()
        return seen

    first = look("start")  # every card can still be reserved: the longest button word
    assert "Reservieren" in first["texts"]
    play_a_few(page, rnd, 14)  # some cards bought or reserved, counts above one, played in German
    seen = look("later")
    texts = seen["texts"]
    for german in ("Adlige", "Vorrat", "Boni", "Punkte"):
        assert german in texts, (german, texts)
    assert any(re.fullmatch(r"\d+ Karten? · \d+ Adliger?", t) for t in texts), texts
    # no English word of the catalogue left where German differs
    english = {k for k, v in messages.items() if "\u0004" not in k and isinstance(v, str) and v != k}
    assert not [t for t in texts if t in english]
    assert not [t for t in texts if re.search(r"\b(cards?|nobles?|points|bonuses|reserved|left)\b", t)], texts
    assert errors == []
    assert page.evaluate("document.body.dataset.renderError || ''") == ""
    context.close()
