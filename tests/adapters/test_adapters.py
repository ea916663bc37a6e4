"""PettingZoo (AEC and Parallel) and OpenSpiel adapters work for every registered game."""

from __future__ import annotations

import json
import time
import warnings

import numpy as np
import pytest

from gemtable.core import Rng
from gemtable.games.registry import all_games

GAMES = sorted(all_games())
CONFIGS = [(g, n) for g in GAMES for n in all_games()[g].player_counts]
EXTREMES = [(g, n) for g in GAMES for n in sorted({min(all_games()[g].player_counts),
                                                    max(all_games()[g].player_counts)})]


def _quiet():
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    # PettingZoo warns that dict observations "probably should be" Box/Discrete (as for its
    # own classic games with action masks)
    warnings.simplefilter("ignore")
    return ctx


# -- PettingZoo ------------------------------------------------------------------------------
@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_pettingzoo_api_and_parallel_api(game_id, n):
    from pettingzoo.test import api_test, parallel_api_test

    from gemtable.adapters.pettingzoo_env import env, parallel_env

    ctx = _quiet()
    try:
        api_test(env(game_id, n), num_cycles=25, verbose_progress=False)
        parallel_api_test(parallel_env(game_id, n), num_cycles=25)
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_seed_test(game_id):
    from pettingzoo.test import seed_test

    from gemtable.adapters.pettingzoo_env import env

    n = max(all_games()[game_id].player_counts)
    ctx = _quiet()
    try:
        seed_test(lambda: env(game_id, n), num_cycles=15)
    finally:
        ctx.__exit__(None, None, None)


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_ansi_render_is_the_text_rendering(game_id):
    from pettingzoo.test.render_test import collect_render_results

    from gemtable.adapters.pettingzoo_env import env, raw_env

    n = min(all_games()[game_id].player_counts)
    results = collect_render_results(env(game_id, n, render_mode="ansi"))
    assert len(results) == 5
    for text in results:
        assert isinstance(text, str) and text.strip()
        with pytest.raises(ValueError):
            json.loads(text)  # a board, not the JSON view
    quiet = raw_env(game_id, n)
    quiet.reset(seed=0)
    assert quiet.render() is None
    for mode in ("human", "rgb_array", "json"):
        with pytest.raises(ValueError, match="render_mode"):
            raw_env(game_id, n, render_mode=mode)


@pytest.mark.parametrize("game_id,n", EXTREMES)
def test_spaces_are_bounded_and_hold_every_observation_and_state(game_id, n):
    from gemtable.adapters.pettingzoo_env import raw_env

    e = raw_env(game_id, n)
    e.reset(seed=11)
    box = e.observation_space(e.possible_agents[0])["observation"]
    assert np.isfinite(box.low).all() and np.isfinite(box.high).all()
    assert np.isfinite(e.state_space.low).all() and np.isfinite(e.state_space.high).all()
    rng = np.random.default_rng(0)
    for step in range(400):
        if e.game_state.is_over():
            break
        for agent in e.possible_agents:
            obs = e.observe(agent)
            assert e.observation_space(agent).contains(obs), (agent, step)
        st = e.state()
        assert st.shape == e.state_space.shape and e.state_space.contains(st)
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_state_is_callable_and_not_shadowed():
    from gemtable.adapters.pettingzoo_env import env, parallel_env

    e = env("mille_fiori", 3)
    e.reset(seed=2)
    st = e.state()  # the old env stored the game state in ``self.state`` (TypeError here)
    assert isinstance(st, np.ndarray) and st.dtype == np.float32
    layout = all_games()["mille_fiori"].observation_layout
    # seat 0's observation, then the private fields (hand, pick) of seats 1 and 2
    inner = e.unwrapped
    np.testing.assert_array_equal(st[:layout.size], inner.observe("player_0")["observation"])
    obs1 = inner.observe("player_1")["observation"]
    np.testing.assert_array_equal(st[layout.size:layout.size + layout.private_size],
                                  obs1[layout.private_mask])
    p = parallel_env("mille_fiori", 3)
    p.reset(seed=2)
    np.testing.assert_array_equal(p.state(), st)


@pytest.mark.parametrize("game_id", GAMES)
def test_pettingzoo_plays_to_the_end_with_masks(game_id):
    from gemtable.adapters.pettingzoo_env import env

    game = all_games()[game_id]
    e = env(game_id, max(game.player_counts))
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    final = {}
    for agent in e.agent_iter(max_iter=200_000):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            final[agent] = reward
            assert info["ranking"] == e.unwrapped.game_state.ranking()
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        assert reward == 0.0  # rewards come at the end only
        e.step(int(rng.choice(legal)))
    inner = e.unwrapped
    assert inner.game_state.is_over() and not inner.agents
    assert set(final) == set(inner.possible_agents)
    assert sum(final.values()) == pytest.approx(1.0)
    assert final == {a: r for a, r in zip(inner.possible_agents, inner.game_state.returns())}


def test_reset_without_seed_deals_a_new_game_and_seeded_resets_repeat():
    from gemtable.adapters.pettingzoo_env import raw_env

    e = raw_env("splendor", 2)
    e.reset(seed=5)
    first = e.game_state.to_json()
    e.reset()
    second = e.game_state.to_json()
    assert first != second
    e.reset(seed=5)
    assert e.game_state.to_json() == first
    e.reset()
    assert e.game_state.to_json() == second  # the unseeded sequence follows the last seed


def test_max_cycles_truncates_aec_and_parallel():
    from gemtable.adapters.pettingzoo_env import env, parallel_env

    # the AEC count is rounds of the table (a Sintra turn is two decisions: taking panes, then
    # choosing the strip; here seat 2 also starts the next round right after its own turn):
    # truncated when play comes back round to seat 1 for the 5th time
    e = env("sintra", 2, max_cycles=4)
    e.reset(seed=1)
    movers = []
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        movers.append(agent)
    turns = [a for i, a in enumerate(movers) if i == 0 or movers[i - 1] != a]
    assert turns == ["player_0", "player_1"] * 4 and len(movers) == 18
    assert e.unwrapped.game_state.to_move() == (0,) and e.unwrapped.cycles == 4
    assert all(e.unwrapped.truncations.values())
    # the parallel count is parallel steps
    p = parallel_env("mille_fiori", 3, max_cycles=3)
    obs, infos = p.reset(seed=1)
    steps = 0
    while p.agents:
        actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) if infos[a]["acting"] else 0
                   for a in p.agents}
        obs, _, term, trunc, infos = p.step(actions)
        steps += 1
    assert steps == 3 and all(trunc.values()) and not any(term.values())
    with pytest.raises(ValueError):
        parallel_env("sintra", 2, max_cycles=0)


def test_parallel_simultaneous_picks_are_one_step():
    from gemtable.adapters.pettingzoo_env import parallel_env

    p = parallel_env("mille_fiori", 4)  # simultaneous draft: everybody picks at once
    obs, infos = p.reset(seed=4)
    acting = [a for a in p.agents if infos[a]["acting"]]
    assert len(acting) == 4
    for a in acting:
        assert obs[a]["action_mask"].sum() > 0
    assert [len(h) for h in p.game_state.hands] == [5, 5, 5, 5]
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in p.agents}
    obs, _, _, _, infos = p.step(actions)
    assert p.steps == 1
    # one parallel step: all four picked (each hand lost a card), play has begun
    assert [len(h) for h in p.game_state.hands] == [4, 4, 4, 4]
    assert len(p.game_state.to_move()) == 1
    # in the sequential phase that follows, only the seat to move acts; the others' masks are empty
    movers = p.game_state.to_move()
    for i, a in enumerate(p.possible_agents):
        assert infos[a]["acting"] == (i in movers)
        if i not in movers:
            assert obs[a]["action_mask"].sum() == 0


def test_parallel_missing_mover_action_is_refused():
    from gemtable.adapters.pettingzoo_env import parallel_env

    p = parallel_env("splendor", 2)
    _, infos = p.reset(seed=0)
    mover = next(a for a in p.agents if infos[a]["acting"])
    with pytest.raises(ValueError, match=mover):
        p.step({a: 0 for a in p.agents if a != mover})


def test_standard_wrappers_and_conversions():
    from pettingzoo.test import api_test, parallel_api_test
    from pettingzoo.utils.conversions import parallel_to_aec, turn_based_aec_to_parallel

    from gemtable.adapters.pettingzoo_env import env, parallel_env, raw_env

    e = env("splendor", 2)
    e.reset(seed=0)
    with pytest.raises(AssertionError, match="action is not in action space"):
        e.step(len(all_games()["splendor"].actions))  # AssertOutOfBounds
    ctx = _quiet()
    try:
        api_test(parallel_to_aec(parallel_env("mille_fiori", 3)), num_cycles=20, verbose_progress=False)
        parallel_api_test(turn_based_aec_to_parallel(raw_env("splendor", 2)), num_cycles=20)
    finally:
        ctx.__exit__(None, None, None)


# -- OpenSpiel -------------------------------------------------------------------------------
def _load(game_id, sampled=False, **params):
    """The explicit-chance game ``gemtable_<id>`` (or its ``_sampled`` variant)."""
    import pyspiel

    from gemtable.adapters.openspiel_game import register

    (name,) = register(game_id)
    return pyspiel.load_game(name + ("_sampled" if sampled else ""), params)


def _obs_type(public, private):
    import pyspiel

    kind = {"none": pyspiel.PrivateInfoType.NONE, "single": pyspiel.PrivateInfoType.SINGLE_PLAYER,
            "all": pyspiel.PrivateInfoType.ALL_PLAYERS}[private]
    return pyspiel.IIGObservationType(perfect_recall=False, public_info=public, private_info=kind)


def _play(state, steps, seed=0):
    """``steps`` random player decisions (chance outcomes sampled with their probabilities)."""
    rng = np.random.default_rng(seed)
    done = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        if done == steps:
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
        done += 1
    return state


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_random_simulation(game_id):
    import pyspiel

    game = all_games()[game_id]
    g = _load(game_id, players=max(game.player_counts))
    assert g.num_distinct_actions() == len(game.actions)
    pyspiel.random_sim_test(g, num_sims=1, serialize=False, verbose=False)
    s = _play(g.new_initial_state(), 1_000_000, seed=1)
    assert s.is_terminal() and sum(s.returns()) == pytest.approx(1.0)


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_observers_honour_the_observation_type(game_id):
    from open_spiel.python.observation import make_observation

    game = all_games()[game_id]
    layout = game.observation_layout
    n = max(game.player_counts)
    g = _load(game_id, players=n)
    s = _play(g.new_initial_state(), 7, seed=3)
    default = make_observation(g)
    public = make_observation(g, _obs_type(True, "none"))
    private = make_observation(g, _obs_type(False, "single"))
    everyone = make_observation(g, _obs_type(True, "all"))
    mask = layout.private_mask
    assert public.tensor.size == layout.size and private.tensor.size == layout.private_size
    assert everyone.tensor.size == layout.size + (n - 1) * layout.private_size
    for p in range(n):
        default.set_from(s, p)
        public.set_from(s, p)
        private.set_from(s, p)
        everyone.set_from(s, p)
        np.testing.assert_array_equal(public.tensor[~mask], default.tensor[~mask])
        assert not public.tensor[mask].any()  # public-only: no private field
        np.testing.assert_array_equal(private.tensor, default.tensor[mask])
        np.testing.assert_array_equal(everyone.tensor[:layout.size], default.tensor)
        for k in range(1, n):  # every other seat's private fields, as that seat sees them
            q = (p + k) % n
            default.set_from(s, q)
            part = everyone.tensor[layout.size + (k - 1) * layout.private_size:][:layout.private_size]
            np.testing.assert_array_equal(part, default.tensor[mask])
        # the public observation depends only on what a spectator sees
        for i in range(3):
            det = s.gt.determinize(None, Rng(i))
            np.testing.assert_array_equal(layout.fill(det, p)[~mask], public.tensor[~mask])
    assert json.loads(public.string_from(s, 0)) == s.gt.view(None)
    assert json.loads(default.string_from(s, 1)) == s.gt.view(1)


def test_openspiel_hidden_hand_of_another_seat_only_with_all_players():
    from open_spiel.python.observation import make_observation

    layout = all_games()["mille_fiori"].observation_layout
    g = _load("mille_fiori", players=3)
    s = _play(g.new_initial_state(), 0, seed=1)  # dealt, nobody has played
    hands = layout.field("hands")
    nk = hands.size // 4
    hand1 = slice(hands.start + nk, hands.start + 2 * nk)
    default = make_observation(g)
    everyone = make_observation(g, _obs_type(True, "all"))
    default.set_from(s, 0)
    everyone.set_from(s, 0)
    assert not default.tensor[hand1].any()  # seat 0 has not seen seat 1's hand
    assert everyone.tensor.sum() > default.tensor.sum()
    k = layout.private_size
    seat1_private = everyone.tensor[layout.size:layout.size + k]
    own_in_private = np.flatnonzero(layout.private_mask).tolist().index(hands.start)
    counts = seat1_private[own_in_private:own_in_private + nk] * 5  # seat 1's own hand, as it sees it
    assert sorted(np.repeat(np.arange(nk), np.rint(counts).astype(int))) == sorted(s.gt.hands[1])


def test_openspiel_information_states_are_not_claimed():
    import pyspiel

    g = _load("splendor", players=2)
    gt = g.get_type()
    assert not gt.provides_information_state_string and not gt.provides_information_state_tensor
    s = _play(g.new_initial_state(), 0)
    with pytest.raises(pyspiel.SpielError, match="perfect-recall"):
        s.information_state_string(0)
    with pytest.raises(pyspiel.SpielError, match="perfect-recall"):
        s.information_state_tensor(0)
    assert s.observation_string(0)  # observations still work


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_clone_is_the_engine_clone(game_id):
    g = _load(game_id, players=max(all_games()[game_id].player_counts))
    s = _play(g.new_initial_state(), 15, seed=2)
    c = s.clone()
    assert c.gt is not s.gt and c.gt == s.gt
    assert c.gt.game is s.gt.game  # the Game is shared, not copied
    assert c.history() == s.history() and c.move_number() == s.move_number()
    before = s.gt.to_json()
    c.apply_action(c.legal_actions()[0])
    while c.is_chance_node():
        c.apply_action(c.chance_outcomes()[0][0])
    assert s.gt.to_json() == before and len(c.history()) > len(s.history())
    start = time.perf_counter()
    for _ in range(50):
        s.clone()
    per_clone = (time.perf_counter() - start) / 50
    assert per_clone < 0.5e-3  # deep-copying the Game took 0.9-23 ms per clone


def test_openspiel_clone_does_not_consume_a_deal():
    g1 = _load("splendor", sampled=True, players=2, rng_seed=9)
    g2 = _load("splendor", sampled=True, players=2, rng_seed=9)
    a = g1.new_initial_state()
    a.clone()
    a.clone()
    assert g1.new_initial_state().gt == (g2.new_initial_state(), g2.new_initial_state())[1].gt


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_rng_seed_fixes_the_sequence_of_deals(game_id):
    n = min(all_games()[game_id].player_counts)
    g1 = _load(game_id, sampled=True, players=n, rng_seed=7)
    g2 = _load(game_id, sampled=True, players=n, rng_seed=7)
    deals1 = [g1.new_initial_state().gt for _ in range(3)]
    deals2 = [g2.new_initial_state().gt for _ in range(3)]
    assert deals1 == deals2
    assert deals1[0] != deals1[1] and deals1[1] != deals1[2]
    g3 = _load(game_id, sampled=True, players=n, seed=7)  # the old name is an alias
    assert g3.new_initial_state().gt == deals1[0]
    assert _load(game_id, sampled=True, players=n, rng_seed=8).new_initial_state().gt != deals1[0]


def test_openspiel_parameters_are_typed():
    import pyspiel

    from gemtable.adapters.openspiel_game import register

    register("glassworks")
    spec = pyspiel.load_game("gemtable_glassworks_sampled").get_type().parameter_specification
    assert spec["overflow_counts_toward_end"] is True and spec["players"] == 2 and spec["rng_seed"] == 0
    spec = pyspiel.load_game("gemtable_glassworks").get_type().parameter_specification
    assert spec["overflow_counts_toward_end"] is True and spec["players"] == 2 and "rng_seed" not in spec
    g = _load("glassworks", players=3, overflow_counts_toward_end=False)
    assert g.get_parameters()["overflow_counts_toward_end"] is False
    assert _play(g.new_initial_state(), 0).gt.overflow_counts is False
    with pytest.raises(Exception, match="no_such_option"):  # pyspiel wraps the error
        _load("glassworks", players=3, no_such_option=1)


def test_rl_environment_resets_deal_new_games_sampled_variant():
    from open_spiel.python import rl_environment

    from gemtable.adapters.openspiel_game import register

    register("splendor")
    env = rl_environment.Environment("gemtable_splendor_sampled", players=2, rng_seed=1)
    deals = []
    for _ in range(3):
        env.reset()
        deals.append(env.get_state.gt.to_json())
    assert deals[0] != deals[1] != deals[2]
