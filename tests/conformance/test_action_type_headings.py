"""The web page's list of choices is headed by each group's action type ("take two", "buy").
On a page in another language the heading comes from the game's catalogue, entry
``msgctxt "action type"`` with the type as its id (web/app.js).  The extractor cannot find
these ids (the page looks the type up at run time), so this test holds every language's
catalogue of every game to the types of that game's ActionSpace.  The page reads one catalogue
for all games (server/language.py merges them), so a type that several games share must read
the same in each of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtable.core import i18n
from gemtable.games.registry import all_games
from gemtable.server import language

CONTEXT = "action type"
GAMES = sorted(all_games())


def _own_domain(game) -> Path:
    return next(Path(d) for d in game.domains if Path(d) != Path(i18n.CORE_DOMAIN))


def _languages() -> list[str]:
    return sorted({lang for g in all_games().values() for lang in i18n.languages(_own_domain(g))} - {i18n.SOURCE})


@pytest.mark.parametrize("lang", _languages())
@pytest.mark.parametrize("game_id", GAMES)
def test_every_action_type_has_a_heading(game_id, lang):
    game = all_games()[game_id]
    cat = i18n.catalogue(_own_domain(game), lang)
    assert cat is not None, f"{game_id}: no {lang}.po"
    types = sorted({a.type for a in game.actions})
    missing = [t for t in types if not cat.entries.get((CONTEXT, t))]
    assert missing == [], f"{_own_domain(game)}/{lang}.po lacks msgctxt {CONTEXT!r} for {missing}"
    # the page's catalogue carries them under the key web/i18n.js looks up
    messages = language._messages(lang)
    assert all(messages.get(f"{CONTEXT}\u0004{t}") for t in types)


@pytest.mark.parametrize("lang", _languages())
def test_a_shared_action_type_reads_the_same_in_every_game(lang):
    seen: dict[str, dict[str, str]] = {}
    for game_id in GAMES:
        game = all_games()[game_id]
        cat = i18n.catalogue(_own_domain(game), lang)
        for t in {a.type for a in game.actions}:
            if cat and cat.entries.get((CONTEXT, t)):
                seen.setdefault(t, {})[game_id] = cat.entries[(CONTEXT, t)]
    differ = {t: by for t, by in seen.items() if len(set(by.values())) > 1}
    assert differ == {}
