"""Long German words on the boards break only where the catalogue marks a syllable with a
soft hyphen (U+00AD), never in even pieces ("Springb-runnen"): svg.js wrapWords, which the
Diamonds Club and Glassworks renderers use, in the browser."""

from __future__ import annotations

import pytest

from gemtable.core import i18n
from gemtable.games.diamonds_club import GAME

pytest.importorskip("playwright")

SHY = "\u00ad"


def test_the_catalogue_marks_the_long_building_names():
    fountain = i18n.render(i18n.msg("fountain"), "de", GAME.domains)
    assert fountain == f"Spring{SHY}brunnen"
    # the terminal view and the log's words show the word whole where no break is needed
    assert fountain.replace(SHY, "") == "Springbrunnen"


@pytest.mark.browser
def test_words_break_at_soft_hyphens_only(page, live_server):
    page.goto(live_server.url)
    got = page.evaluate("""(shy) => import('/static/svg.js').then((m) => [
        m.wrapWords(`Spring${shy}brunnen`, 8),
        m.wrapWords(`Spring${shy}brunnen`, 20),
        m.wrapWords(`ein Spring${shy}brunnen hier`, 12),
        m.wrapWords(`Wild${shy}ge${shy}he${shy}ge`, 7),
        m.wrapWords("Springbrunnen", 8),
        m.wrapWords("light green", 6),
        m.s("text", { text: `Rosen${shy}garten` }).textContent,
    ])""", SHY)
    assert got == [
        ["Spring-", "brunnen"],
        ["Springbrunnen"],
        ["ein Spring-", "brunnen hier"],
        ["Wildge-", "hege"],
        ["Springbrunnen"],  # no mark: the word stays whole (the caller shrinks the font)
        ["light", "green"],
        "Rosengarten",  # drawn text never shows a soft hyphen
    ]
