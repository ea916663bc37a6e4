"""Every bot plays every registered game (and the toy game) legally and reproducibly."""

import pytest

from gemtable.bots import make_bot
from gemtable.core import Rng

from .conftest import game_cases

SPECS = ["random", "greedy", "mcts:iterations=12,rollout=4"]


def _play(game, n, specs, seed, max_decisions):
    state = game.new(n, seed)
    bots = [make_bot(specs[p % len(specs)], seed=100 + p) for p in range(n)]
    chosen = []
    while not state.is_over() and len(chosen) < max_decisions:
        movers = state.to_move()
        p = movers[0]
        action = bots[p].choose(state, p)
        assert state.check(p, action) is None, f"{specs[p % len(specs)]} chose an illegal action"
        state.apply(p, action)
        chosen.append((p, action.id))
    return chosen


@pytest.mark.parametrize("game,n", game_cases())
def test_bots_play_legally_and_reproducibly(game, n):
    a = _play(game, n, SPECS, seed=3, max_decisions=40)
    b = _play(game, n, SPECS, seed=3, max_decisions=40)
    assert a == b, "same seeds must give the same decisions"
    assert len(a) == 40 or len(a) > 5


@pytest.mark.parametrize("game,n", game_cases())
def test_bots_do_not_change_the_state_they_are_given(game, n):
    state = game.new(n, 11)
    rng = Rng(4)
    for _ in range(7):  # somewhere into the game
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
    before = state.to_json()
    p = state.to_move()[0]
    for spec in SPECS:
        make_bot(spec, seed=1).choose(state, p)
        assert state.to_json() == before, f"{spec} modified the real state"
