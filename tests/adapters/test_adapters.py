"""PettingZoo and OpenSpiel adapters work for every registered game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from gemtable.games.registry import all_games

GAMES = sorted(all_games())


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_api(game_id):
    from pettingzoo.test import api_test

    from gemtable.adapters.pettingzoo_env import env

    game = all_games()[game_id]
    e = env(game_id, min(game.player_counts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # text observations for games without a tensor
        api_test(e, num_cycles=60, verbose_progress=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_plays_to_the_end_with_masks(game_id):
    from gemtable.adapters.pettingzoo_env import env

    game = all_games()[game_id]
    e = env(game_id, max(game.player_counts))
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter(max_iter=200_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        e.step(int(rng.choice(legal)))
    assert e.state.is_over()
    assert abs(sum(e._cumulative_rewards.values()) - 1.0) < 1e-9 or not e.agents


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_random_simulation(game_id):
    import pyspiel

    from gemtable.adapters.openspiel_game import register

    (name,) = register(game_id)
    game = all_games()[game_id]
    g = pyspiel.load_game(name, {"players": max(game.player_counts), "seed": 5})
    assert g.num_distinct_actions() == len(game.actions)
    pyspiel.random_sim_test(g, num_sims=2, serialize=False, verbose=False)
    s = g.new_initial_state()
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert abs(sum(s.returns()) - 1.0) < 1e-9
