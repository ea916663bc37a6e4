"""The Sintra board drawn in German at desktop and phone width: no text leaves its box.

The renderer (web/games/sintra.js) is drawn on its own with the game's German catalogue
(tests/web/german_board.py).
"""

from __future__ import annotations

import random

import pytest

from gemtable.games.sintra import GAME
from gemtable.games.sintra.rules import KEEP, PLACE

from .german_board import SIZES, board_problems, seat_position, static_server

pytestmark = pytest.mark.browser


def positions() -> dict[str, tuple]:
    """A choosing, a placing, a keeping and a finished position of random 4-player games, and
    one where the glazier may return (the board shows its button)."""
    found: dict[str, tuple] = {}
    for seed in range(40):
        rng = random.Random(seed)
        state = GAME.new(4, seed, palace_side="B" if seed % 2 else "A")
        while True:
            if state.is_over():
                found.setdefault("over", (state.view(0), 0, []))
                break
            p = state.to_move()[0]
            phase = {KEEP: "keep", PLACE: "place"}.get(state.phase, "choose" if state.turn > 20 else None)
            if phase == "choose" and "choose" in found and any(a.type == "return_glazier" for a in state.legal_actions(p)):
                phase = "return"
            if phase and phase not in found:
                found[phase] = seat_position(state, p)
            state.apply(p, rng.choice(state.legal_actions(p)))
        if len(found) == 5:
            return found
    raise AssertionError(f"positions not reached: {sorted(found)}")


@pytest.fixture(scope="module")
def server():
    with static_server() as url:
        yield url


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_german_board_fits(server, browser, size):
    def check(name: str, text: str) -> None:
        assert "Manufaktur" in text or name == "over"
        assert "factory" not in text and "broken glass" not in text
        assert "…" not in text, f"{name}: a text cut short"  # dialog.js cuts what does not fit
        if name == "return":
            assert "Glaser zurückziehen" in text

    assert board_problems(browser, server, GAME, size, positions(), check) == []
