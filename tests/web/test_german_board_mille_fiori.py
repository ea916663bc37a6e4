"""The Mille Fiori board drawn in German at desktop and phone width: no text leaves its box.

The renderer (web/games/mille_fiori.js) is drawn on its own with the game's German catalogue
(tests/web/german_board.py).
"""

from __future__ import annotations

import random

import pytest

from gemtable.games.mille_fiori import GAME
from gemtable.games.mille_fiori.rules import EXTRA_CARD, PICKING, USING

from .german_board import SIZES, board_problems, seat_position, static_server

pytestmark = pytest.mark.browser


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
                found[phase] = seat_position(state, p)
            state.apply(p, rng.choice(state.legal_actions(p)))
        if len(found) == 4:
            return found
    raise AssertionError(f"positions not reached: {sorted(found)}")


@pytest.fixture(scope="module")
def server():
    with static_server() as url:
        yield url


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_german_board_fits(server, browser, size):
    def check(name: str, text: str) -> None:
        assert "Auslage" in text and "Werkstätten" in text
        assert "display" not in text and "diamonds" not in text

    assert board_problems(browser, server, GAME, size, positions(), check) == []
