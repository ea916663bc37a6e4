"""PettingZoo environments: ``max_cycles`` counts cycles as PettingZoo does (its own
``max_cycles_test`` passes for every game and player count) and ``illegal_action`` says what an
action outside the mask does ("raise", "terminate", "random")."""

from __future__ import annotations

import itertools
import json
import types
import warnings

import numpy as np
import pytest

from gemtable.core import IllegalAction
from gemtable.games.registry import all_games

GAMES = sorted(all_games())
CONFIGS = [(g, n) for g in GAMES for n in all_games()[g].player_counts]


@pytest.fixture(autouse=True)
def _quiet():
    # PettingZoo warns that dict observations "probably should be" Box/Discrete
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _seeded(e, seed):
    """``e`` with its unseeded resets and its action spaces' samples fixed by ``seed``."""
    e.reset(seed=seed)  # a later reset() without a seed follows this one
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(seed * 100 + i)
    return e


# -- max_cycles ------------------------------------------------------------------------------
@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_pettingzoo_max_cycles_test_passes(game_id, n):
    from pettingzoo.test import max_cycles_test
    from pettingzoo.utils.conversions import parallel_to_aec

    from gemtable.adapters.pettingzoo_env import parallel_env

    # the test samples unmasked actions: "random" plays a legal one instead and goes on; its AEC
    # half wants every agent iterated max_cycles + 1 times, which is PettingZoo's AEC view of
    # the Parallel environment (the turn-based AEC env selects only the seat to move)
    def par(**kw):
        return _seeded(parallel_env(game_id, n, illegal_action="random", **kw), 7)

    mod = types.SimpleNamespace(parallel_env=par, env=lambda **kw: parallel_to_aec(par(**kw)))
    max_cycles_test(mod)


def _live_selections(e, seed):
    """The agents selected while the game runs, playing random legal actions."""
    rng = np.random.default_rng(seed)
    seq = []
    for agent in e.agent_iter(max_iter=100_000):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        seq.append(e.possible_agents.index(agent))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seq


def _rounds(seq, n):
    """Oracle: how many times play went on round the table past the seat that moved first."""
    first, rounds = seq[0], 0
    for p, q in itertools.pairwise(seq):
        seat = p
        while seat != q:  # walk forward seat by seat
            seat = (seat + 1) % n
            rounds += seat == first
    return rounds


@pytest.mark.parametrize("game_id,n", CONFIGS)
def test_aec_max_cycles_is_rounds_of_the_table(game_id, n):
    from gemtable.adapters.pettingzoo_env import env

    for seed in range(3):
        e = env(game_id, n, max_cycles=3)
        e.reset(seed=seed)
        seq = _live_selections(e, seed)
        inner = e.unwrapped
        assert not inner.game_state.is_over() and inner.cycles == 3
        # truncated exactly when play came round past the first seat for the 3rd time
        assert _rounds(seq, n) == 2
        assert _rounds(seq + [inner.game_state.to_move()[0]], n) == 3
        assert len(seq) == inner.steps


@pytest.mark.parametrize("game_id", ["splendor", "glassworks"])
def test_aec_max_cycles_gives_every_seat_the_same_number_of_turns(game_id):
    from gemtable.adapters.pettingzoo_env import env

    # the seat order of these games never changes and their engines count whole turns (a
    # Splendor gem return, Glassworks' opening placements are part of a turn): N cycles are N
    # turns of every seat, whatever the number of decisions
    for n in all_games()[game_id].player_counts:
        e = env(game_id, n, max_cycles=3)
        e.reset(seed=n)
        seq = _live_selections(e, n)
        assert e.unwrapped.game_state.turn == 3 * n
        turns = [p for i, p in enumerate(seq) if i == 0 or seq[i - 1] != p]
        assert sorted(turns) == sorted(list(range(n)) * 3)


def test_aec_single_decision_turns_step_each_agent_max_cycles_times():
    from gemtable.adapters.pettingzoo_env import env

    # Mille Fiori: one decision per turn (secret picks are asked one picker after another):
    # every agent steps exactly max_cycles times, then once more to leave (as in PettingZoo)
    e = env("mille_fiori", 3, max_cycles=4)
    e.reset(seed=0)
    counts = {a: 0 for a in e.possible_agents}
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        counts[agent] += 1
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert counts == {a: 5 for a in e.possible_agents}


def test_parallel_max_cycles_is_parallel_steps():
    from gemtable.adapters.pettingzoo_env import parallel_env

    p = parallel_env("sintra", 3, max_cycles=5)
    obs, infos = p.reset(seed=2)
    steps = 0
    while p.agents:
        obs, _, term, trunc, infos = p.step(
            {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) if infos[a]["acting"] else 0
             for a in p.agents})
        steps += 1
    assert steps == 5 and p.cycles == 5 and all(trunc.values()) and not any(term.values())


# -- illegal actions: raise ------------------------------------------------------------------
def _illegal_id(state, p):
    legal = {a.id for a in state.legal_actions(p)}
    return next(a.id for a in state.game.actions if a.id not in legal)


def test_raise_names_the_agent_and_the_rule_and_changes_nothing():
    from gemtable.adapters.pettingzoo_env import parallel_env, raw_env

    e = raw_env("splendor", 2)
    e.reset(seed=3)
    agent = e.agent_selection
    p = e.possible_agents.index(agent)
    bad = _illegal_id(e.game_state, p)
    reason = e.game_state.check(p, e.game.actions[bad])
    before = json.dumps(e.game_state.to_json(), sort_keys=True)
    with pytest.raises(IllegalAction) as info:
        e.step(bad)
    assert agent in str(info.value) and reason in str(info.value) and str(bad) in str(info.value)
    assert json.dumps(e.game_state.to_json(), sort_keys=True) == before
    for out_of_space in (-1, e.n_actions):  # -1 used to play the last action of the list
        with pytest.raises(IllegalAction, match="outside the action space"):
            e.step(out_of_space)
    assert json.dumps(e.game_state.to_json(), sort_keys=True) == before

    par = parallel_env("mille_fiori", 4)  # simultaneous picks: nothing is applied
    par.reset(seed=1)
    before = json.dumps(par.game_state.to_json(), sort_keys=True)
    actions = {a: int(np.flatnonzero(par._mask(i))[0]) for i, a in enumerate(par.agents)}
    actions["player_2"] = _illegal_id(par.game_state, 2)
    with pytest.raises(IllegalAction, match="player_2 may not play .*in your hand"):
        par.step(actions)
    assert json.dumps(par.game_state.to_json(), sort_keys=True) == before


def test_illegal_action_options_are_checked():
    from gemtable.adapters.pettingzoo_env import env, parallel_env

    with pytest.raises(ValueError, match="illegal_action"):
        env("splendor", 2, illegal_action="ignore")
    with pytest.raises(ValueError, match="illegal_reward"):
        parallel_env("splendor", 2, illegal_reward=-1)  # "raise" never rewards
    assert env("splendor", 2, illegal_action="terminate").unwrapped.illegal_reward == -1.0
    assert parallel_env("splendor", 2, illegal_action="random").illegal_reward == 0.0


# -- illegal actions: terminate --------------------------------------------------------------
def test_terminate_aec_ends_the_game_with_the_penalty():
    from gemtable.adapters.pettingzoo_env import env

    e = env("sintra", 3, illegal_action="terminate", illegal_reward=-2)
    e.reset(seed=4)
    for _ in range(4):  # a few legal decisions first
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    offender = e.agent_selection
    p = e.possible_agents.index(offender)
    bad = _illegal_id(e.unwrapped.game_state, p)
    reason = e.unwrapped.game_state.check(p, e.unwrapped.game.actions[bad])
    e.step(bad)
    inner = e.unwrapped
    assert all(inner.terminations.values()) and not any(inner.truncations.values())
    assert not inner.game_state.is_over()
    final = {}
    for agent in e.agent_iter():
        _, reward, term, _, info = e.last()
        assert term
        assert info["illegal_action"] == {"agent": offender, "action": bad, "reason": reason}
        final[agent] = reward
        e.step(None)
    assert final == {a: (-2.0 if a == offender else 0.0) for a in inner.possible_agents}
    assert not inner.agents


def test_terminate_parallel_penalises_every_offender_of_a_simultaneous_pick():
    from gemtable.adapters.pettingzoo_env import parallel_env

    par = parallel_env("mille_fiori", 4, illegal_action="terminate")
    par.reset(seed=1)
    before = json.dumps(par.game_state.to_json(), sort_keys=True)
    actions = {a: int(np.flatnonzero(par._mask(i))[0]) for i, a in enumerate(par.agents)}
    for i in (1, 3):
        actions[f"player_{i}"] = _illegal_id(par.game_state, i)
    _, rewards, term, trunc, infos = par.step(actions)
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0, "player_3": -1.0}
    assert all(term.values()) and not any(trunc.values()) and not par.agents
    assert infos["player_3"]["illegal_action"]["agent"] == "player_3"
    assert infos["player_0"]["offenders"] == ["player_1", "player_3"]
    assert "in your hand" in infos["player_0"]["illegal_action"]["reason"]
    assert json.dumps(par.game_state.to_json(), sort_keys=True) == before  # no pick applied


# -- illegal actions: random -----------------------------------------------------------------
def _unmasked_aec_game(game_id, n, seed, illegal_reward=None):
    """A whole AEC game with unmasked random actions; (final state, log of every step)."""
    from gemtable.adapters.pettingzoo_env import env

    e = _seeded(env(game_id, n, illegal_action="random", illegal_reward=illegal_reward), seed)
    e.reset(seed=seed)
    log, replaced = [], 0
    for agent in e.agent_iter(max_iter=100_000):
        obs, reward, term, trunc, info = e.last()
        log.append((agent, reward, term, trunc, json.dumps(info, sort_keys=True)))
        if term or trunc:
            e.step(None)
            continue
        action = int(e.action_space(agent).sample())
        mask = obs["action_mask"]
        e.step(action)
        record = e.unwrapped.infos.get(agent, {}).get("illegal_action")
        if mask[action]:
            assert record is None
        else:  # a legal action of the same position was played instead
            replaced += 1
            assert record["action"] == action and mask[record["played"]] == 1
            assert record["reason"]
    inner = e.unwrapped
    assert inner.game_state.is_over() and not inner.agents
    return json.dumps(inner.game_state.to_json(), sort_keys=True), log, replaced


@pytest.mark.parametrize("game_id,n", [("splendor", 2), ("mille_fiori", 3)])
def test_random_keeps_unmasked_games_going_and_is_reproducible(game_id, n):
    final, log, replaced = _unmasked_aec_game(game_id, n, 5)
    assert replaced > 10  # unmasked sampling is mostly illegal: the game went on anyway
    rewards = {}
    for agent, reward, term, _, info in log:
        if term:
            rewards[agent] = reward
            assert "ranking" in json.loads(info)
    assert sum(rewards.values()) == pytest.approx(1.0)  # no penalty by default
    again = _unmasked_aec_game(game_id, n, 5)
    assert again == (final, log, replaced)  # byte for byte
    assert _unmasked_aec_game(game_id, n, 6)[0] != final


def test_random_penalty_reaches_the_offender():
    from gemtable.adapters.pettingzoo_env import env

    e = env("splendor", 2, illegal_action="random", illegal_reward=-0.25)
    e.reset(seed=0)
    offender = e.agent_selection
    bad = _illegal_id(e.unwrapped.game_state, 0)
    e.step(bad)
    assert e.unwrapped.infos[offender]["illegal_action"]["action"] == bad
    while e.agent_selection != offender:  # the offender's next turn
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    _, reward, _, _, info = e.last()
    assert reward == -0.25 and info["illegal_action"]["agent"] == offender
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))  # a legal step clears it
    assert "illegal_action" not in e.unwrapped.infos[offender]


def test_random_parallel_is_reproducible_with_a_seed():
    from gemtable.adapters.pettingzoo_env import parallel_env

    def run(seed):
        par = _seeded(parallel_env("mille_fiori", 4, illegal_action="random", illegal_reward=-0.5),
                      seed)
        obs, infos = par.reset(seed=seed)
        log = []
        while par.agents:
            actions = {a: int(par.action_space(a).sample()) for a in par.agents}
            masks = {a: obs[a]["action_mask"] for a in par.agents}
            obs, rewards, term, trunc, infos = par.step(actions)
            for a, info in infos.items():
                record = info.get("illegal_action")
                if record is not None:
                    assert masks[a][record["action"]] == 0 and masks[a][record["played"]] == 1
                    if not term[a]:
                        assert rewards[a] == -0.5
            log.append(json.dumps([rewards, term, trunc, infos], sort_keys=True))
        assert par.game_state.is_over()
        return json.dumps(par.game_state.to_json(), sort_keys=True), log

    first = run(3)
    assert any("illegal_action" in line for line in first[1])
    assert run(3) == first
    assert run(4)[0] != first[0]


# -- PettingZoo's API tests with the new options ---------------------------------------------
@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("mode", ["terminate", "random"])
def test_api_tests_pass_with_each_illegal_mode(game_id, mode):
    from pettingzoo.test import api_test, parallel_api_test
    from pettingzoo.utils.conversions import parallel_to_aec

    from gemtable.adapters.pettingzoo_env import env, parallel_env

    n = max(all_games()[game_id].player_counts)
    api_test(env(game_id, n, illegal_action=mode, max_cycles=6), num_cycles=25,
             verbose_progress=False)
    parallel_api_test(parallel_env(game_id, n, illegal_action=mode), num_cycles=25)
    api_test(parallel_to_aec(parallel_env(game_id, n, illegal_action=mode, max_cycles=4)),
             num_cycles=25, verbose_progress=False)
