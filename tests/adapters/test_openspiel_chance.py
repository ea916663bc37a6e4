"""OpenSpiel with explicit chance nodes: random_sim_test with serialization, pickling,
ISMCTSBot through resample_from_infostate, MCTSBot blind to future draws, seeding."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from gemtable.core import Rng
from gemtable.games.registry import all_games

GAMES = sorted(all_games())
CONFIGS = [(g, n) for g in GAMES for n in all_games()[g].player_counts]


def _load(game_id, sampled=False, **params):
    from gemtable.adapters.openspiel_game import register

    (name,) = register(game_id)
    return pyspiel.load_game(name + ("_sampled" if sampled else ""), params)


def _chance(state, rng):
    outcomes, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(outcomes, p=probs)))


def _advance(state, decisions, rng, stop_at_chance=False):
    """Sample chance nodes and take ``decisions`` random decisions; with ``stop_at_chance``
    stop at the first chance node after them."""
    done = 0
    while not state.is_terminal():
        if state.is_chance_node():
            if stop_at_chance and done >= decisions:
                break
            _chance(state, rng)
            continue
        if done >= decisions:
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
        done += 1
    return state


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_random_sim_test_with_serialization(game_id, n):
    g = _load(game_id, players=n)
    pyspiel.random_sim_test(g, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("game_id", GAMES)
def test_explicit_chance_nodes_from_the_setup_on(game_id):
    game = all_games()[game_id]
    g = _load(game_id, players=min(game.player_counts))
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert g.max_chance_outcomes() == game.state_class.chance_outcomes_bound > 0
    s = g.new_initial_state()
    assert s.is_chance_node() and s.current_player() == pyspiel.PlayerId.CHANCE
    outcomes = s.chance_outcomes()
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert all(0 <= a < g.max_chance_outcomes() for a, _ in outcomes)
    assert s.legal_actions() == [a for a, _ in outcomes]
    assert s.action_to_string(pyspiel.PlayerId.CHANCE, outcomes[0][0]).startswith("chance: ")
    with pytest.raises(pyspiel.SpielError, match="not a possible outcome"):
        s.apply_action(g.max_chance_outcomes() + 5)
    sampled = _load(game_id, sampled=True, players=min(game.player_counts))
    assert sampled.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert sampled.max_chance_outcomes() == 0 and not sampled.new_initial_state().is_chance_node()


def test_the_explicit_game_has_no_seed_parameter():
    # the chance sampler decides the deals; the seeded generator is the _sampled variant's
    with pytest.raises(Exception, match="rng_seed"):
        _load("splendor", players=2, rng_seed=3)
    assert _load("splendor", sampled=True, players=2, rng_seed=3).rng_seed == 3


def _same(a, b):
    assert str(a) == str(b) and a.history() == b.history() and a.move_number() == b.move_number()
    assert a.current_player() == b.current_player()
    assert (a.gt is None and b.gt is None) or a.gt == b.gt
    if a.is_chance_node():
        assert a.chance_outcomes() == b.chance_outcomes()


@pytest.mark.parametrize("game_id", GAMES)
def test_games_and_states_pickle_and_serialize(game_id):
    n = max(all_games()[game_id].player_counts)
    g = _load(game_id, players=n)
    g2 = pickle.loads(pickle.dumps(g))
    assert str(g2) == str(g) and g2.get_type().short_name == g.get_type().short_name
    rng = np.random.default_rng(4)
    states = [g.new_initial_state(),  # the setup being dealt
              _advance(g.new_initial_state(), 9, rng),  # a decision
              _advance(g.new_initial_state(), 20, rng, stop_at_chance=True)]  # mid-game chance
    assert states[0].is_chance_node() and not states[1].is_chance_node()
    for s in states:
        for copy in (pickle.loads(pickle.dumps(s)),
                     g.deserialize_state(s.serialize()),
                     pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, s))[1]):
            _same(copy, s)
            a, b = s.clone(), copy
            for _ in range(30):  # they go on alike
                if a.is_terminal():
                    break
                acts = a.legal_actions()
                assert b.legal_actions() == acts
                x = acts[len(a.history()) % len(acts)]
                a.apply_action(x)
                b.apply_action(x)
            _same(a, b)
    # the sampled variant pickles too (its generator included)
    gs = _load(game_id, sampled=True, players=n, rng_seed=4)
    s = _advance(gs.new_initial_state(), 9, rng)
    c = pickle.loads(pickle.dumps(s))
    _same(c, s)
    s2, c2 = _advance(s.clone(), 30, np.random.default_rng(1)), _advance(c, 30, np.random.default_rng(1))
    _same(s2, c2)


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_ismcts_bot_plays_full_games(game_id, n):
    from open_spiel.python.algorithms import ismcts, mcts

    g = _load(game_id, players=n)
    rs = np.random.RandomState(n)
    bot = ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=2,
                           random_state=rs, use_observation_string=True)
    s = g.new_initial_state()
    moves = 0
    while not s.is_terminal():
        if s.is_chance_node():
            _chance(s, rs)
        elif s.current_player() == 0:
            s.apply_action(bot.step(s))
            moves += 1
        else:
            s.apply_action(int(rs.choice(s.legal_actions())))
    assert moves > 0 and sum(s.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("game_id", GAMES)
def test_resample_from_infostate_is_the_engines_determinization(game_id):
    n = max(all_games()[game_id].player_counts)
    g = _load(game_id, players=n)
    rng = np.random.default_rng(8)
    s = _advance(g.new_initial_state(), 12, rng)
    p = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = False
    for _ in range(4):
        r = s.resample_from_infostate(p, sampler)
        assert r.observation_string(p) == s.observation_string(p)
        assert r.legal_actions() == s.legal_actions()
        differs |= r.gt != s.gt
        _advance(r, 10_000, rng)  # chance nodes still work after it, to the end
        assert r.is_terminal() and sum(r.returns()) == pytest.approx(1.0)
    # re-dealt: hidden hands, face-down decks (their order), the bag; Sintra and Diamonds
    # Club have nothing hidden but future draws
    assert differs == (game_id in ("splendor", "mille_fiori", "glassworks"))
    c = _advance(g.new_initial_state(), 3, rng, stop_at_chance=True)
    if c.is_chance_node():
        with pytest.raises(pyspiel.SpielError, match="decision nodes"):
            c.resample_from_infostate(0, sampler)


def _mcts_moves(variant_sampled, worlds=6, sims=40):
    """MCTSBot's move (same bot seed) from positions seat 0 cannot tell apart: the same
    Glassworks position with the bag in different orders (bag order is hidden)."""
    from open_spiel.python.algorithms import mcts

    game = all_games()["glassworks"]
    base = game.new(2, 3)
    r = Rng(5)
    for _ in range(4):
        p = base.to_move()[0]
        acts = base.legal_actions(p)
        base.step(p, acts[r.below(len(acts))])
    p = base.to_move()[0]
    g = _load("glassworks", sampled=variant_sampled, players=2)
    moves, bags = [], set()
    for k in range(worlds):
        world = base.determinize(p, Rng(100 + k))
        assert world.view(p) == base.view(p)
        bags.add(tuple(world.bag))
        rs = np.random.RandomState(0)
        bot = mcts.MCTSBot(g, 2.0, sims, mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
        moves.append(bot.step(g.state_from_engine(world)))
    assert len(bags) == worlds  # the worlds differ in what nobody can see
    return moves


def test_mcts_bot_does_not_see_future_draws():
    # with sampled chance (the adapter before explicit chance nodes) the bot's move depends
    # on the hidden bag order, i.e. it searches with the future draws ...
    assert len(set(_mcts_moves(True))) > 1
    # ... with explicit chance nodes it cannot: one observation, one move
    assert len(set(_mcts_moves(False))) == 1


def _env_deals(seed, resets=3):
    from open_spiel.python import rl_environment

    from gemtable.adapters.openspiel_game import register

    register("splendor")
    env = rl_environment.Environment(
        "gemtable_splendor", players=2,
        chance_event_sampler=rl_environment.ChanceEventSampler(seed=seed))
    deals = []
    for _ in range(resets):
        env.reset()
        deals.append(env.get_state.gt.to_json()["board"])
    return deals


def test_rl_environment_chance_sampler_fixes_the_deals_and_resets_deal_anew():
    a, b, c = _env_deals(3), _env_deals(3), _env_deals(4)
    assert a == b  # a fixed seed gives the same deals
    assert a[0] != a[1] != a[2] and a[0] != a[2]  # successive resets deal anew
    assert c != a


def test_clone_at_a_chance_node_is_independent():
    g = _load("sintra", players=3)
    s = g.new_initial_state()
    c = s.clone()
    c.apply_action(c.chance_outcomes()[0][0])
    assert len(c.history()) == 1 and s.history() == [] and s.is_chance_node()
    assert s.chance_outcomes() == g.new_initial_state().chance_outcomes()
