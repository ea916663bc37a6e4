import pytest

from gemtable.games.registry import all_games

from .toygame import GAME as TOY


def game_cases():
    """The test-only toy game and every registered game (at its smallest player count)."""
    cases = [pytest.param(TOY, 2, id="toybid"), pytest.param(TOY, 3, id="toybid-3p")]
    for gid, game in sorted(all_games().items()):
        cases.append(pytest.param(game, min(game.player_counts), id=gid))
    return cases
