"""Every game's value features (``Game.value_features``, read by the learned evaluator).

Along random playouts at every table size and option set: one finite number per name, the same for the
same state, the state untouched, and — since a seat's row must not read what the seat
cannot see — the learned evaluator's default encoding of a real state (which computes the
features on a determinization from the seat) equals the encoding of any state that looks
the same to that seat.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gemtable.bots import learned
from gemtable.core import Rng, canonical
from gemtable.games.registry import all_games

GAMES = [g for _, g in sorted(all_games().items())]
CASES = [pytest.param(g, n, opts, id=f"{g.id}-{n}p" + "".join(f"-{v}" for v in opts.values()))
         for g in GAMES for n in g.player_counts for opts in g.option_sets()
         if g.value_features is not None]
FAST = [pytest.param(g, n, opts, id=f"{g.id}-{n}p" + "".join(f"-{v}" for v in opts.values()))
        for g in GAMES for n in g.player_counts for opts in g.option_sets()
        if g.value_features_all is not None]
CONTEXT = [pytest.param(g, n, opts, id=f"{g.id}-{n}p" + "".join(f"-{v}" for v in opts.values()))
           for g in GAMES for n in g.player_counts for opts in g.option_sets()
           if g.value_context is not None]


def test_every_game_has_value_features():
    missing = [g.id for g in GAMES if g.value_features is None or not g.value_feature_names]
    assert not missing, f"games without value features: {missing}"
    for game in GAMES:
        names = game.value_feature_names
        assert len(names) == len(set(names)), f"{game.id}: duplicate value feature names"


@pytest.mark.parametrize("game,n,opts", CASES)
def test_value_features_are_finite_pure_and_fixed_length(game, n, opts):
    k = len(game.value_feature_names)
    rng = Rng(7)
    for seed in range(2):
        state = game.new(n, seed, **opts)
        steps = 0
        while steps < 400:
            if steps % 7 == 0 or state.is_over():
                before = canonical(state.to_json())
                for p in range(n):
                    a = game.value_features(state, p)
                    assert len(a) == k, f"{len(a)} values for {k} names"
                    assert all(isinstance(v, (int, float)) and math.isfinite(v) for v in a), a
                    assert game.value_features(state, p) == a  # deterministic
                    assert game.value_features(state.clone(), p) == a  # the same on a copy
                assert canonical(state.to_json()) == before, "value_features changed the state"
            if state.is_over():
                break
            p = state.to_move()[0]
            acts = state.legal_actions(p)
            state.step(p, acts[rng.below(len(acts))])
            steps += 1


@pytest.mark.parametrize("game,n,opts", CASES)
def test_a_rows_features_depend_on_the_seats_view_only(game, n, opts):
    rng = Rng(11)
    state = game.new(n, 3, **opts)
    checked = 0
    for step in range(120):
        if state.is_over():
            break
        if step % 10 == 5:
            for p in range(n):
                other = state.determinize(p, Rng(step * 31 + p))
                if canonical(other.to_json()) == canonical(state.to_json()):
                    continue
                checked += 1
                assert np.array_equal(learned.encode(state, p), learned.encode(other, p))
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
    assert checked > 0, "no position with something hidden from a seat"


@pytest.mark.parametrize("game,n,opts", FAST)
def test_the_all_seats_fast_path_agrees_with_each_seat(game, n, opts):
    rng = Rng(5)
    state = game.new(n, 1, **opts)
    for step in range(200):
        if state.is_over():
            break
        if step % 9 == 0:
            assert game.value_features_all(state) == [game.value_features(state, p) for p in range(n)]
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])


@pytest.mark.parametrize("game,n,opts", CONTEXT)
def test_the_one_pass_context_equals_heuristic_and_features(game, n, opts):
    """``Game.value_context`` is a speed-up only: exactly every seat's heuristic and value
    features, bit for bit (a search must choose the same moves with or without it), to the
    end of the game."""
    rng = Rng(9)
    for seed in range(2):
        state = game.new(n, seed, **opts)
        checked = 0
        while True:
            if checked % 3 == 0 or state.is_over():
                heur = [float(game.heuristic(state, q)) for q in range(n)]
                feats = [game.value_features(state, q) for q in range(n)]
                assert game.value_context(state) == (heur, feats)
            if state.is_over():
                break
            checked += 1
            p = state.to_move()[0]
            acts = state.legal_actions(p)
            state.step(p, acts[rng.below(len(acts))])
        assert checked > 10


def test_the_learned_context_is_the_heuristics_and_features_in_every_game():
    assert any(g.value_context is not None for g in GAMES), "no game has a one-pass value context"
    for game in GAMES:
        state = game.new(game.player_counts[-1], 4)
        assert learned.context(state) == (learned.heuristics(state), learned.seat_features(state))
