"""Information-set MCTS: budgets, determinism, simultaneous picks, strength."""

import pytest

from gemtable.bots import make_bot
from gemtable.bots.mcts import MctsBot

from .test_hidden_state import _positions
from .toygame import BANK, BID, DRAW, GAME, GAME_NO_HEURISTIC


def _bid_state():
    s = GAME.new(2, 3)
    assert s.to_move() == (0, 1)  # a simultaneous secret pick
    return s


def test_iteration_budget_and_determinism():
    s = _bid_state()
    a = make_bot("mcts:iterations=60", seed=4)
    b = make_bot("mcts:iterations=60", seed=4)
    assert a.choose(s, 0) is b.choose(s, 0)
    assert a.last_iterations == 60
    root = a.last_root
    visits = sum(st[0] for (p, _), st in root.stats.items() if p == 0)
    assert visits == 60 + a.prior * len(s.legal_actions(0))  # real + virtual visits
    plain = make_bot("mcts:iterations=60,prior=0", seed=4)
    plain.choose(s, 0)
    assert sum(st[0] for (p, _), st in plain.last_root.stats.items() if p == 0) == 60


def test_seconds_budget_returns_a_legal_action():
    s = _bid_state()
    bot = make_bot("mcts:seconds=0.02", seed=1)
    assert isinstance(bot, MctsBot) and bot.iterations is None
    assert bot.choose(s, 1) in s.legal_actions(1)
    assert bot.last_iterations >= 1


def test_simultaneous_picks_use_decoupled_statistics():
    """Both seats of a secret round pick from their own statistics; children are joint picks."""
    s = _bid_state()
    bot = make_bot("mcts:iterations=80,prior=0", seed=2)
    bot.choose(s, 1)
    root = bot.last_root
    seats = {p for (p, _) in root.stats}
    assert seats == {0, 1}
    assert root.children and all(isinstance(k, tuple) and len(k) == 2 for k in root.children)
    # seat 1's statistics cover each of its bids, whatever seat 0 picked
    n1 = sum(st[0] for (p, _), st in root.stats.items() if p == 1)
    n0 = sum(st[0] for (p, _), st in root.stats.items() if p == 0)
    assert n0 == n1 == 80


def test_a_secret_pick_already_made_is_chosen_again_in_the_search():
    """Seat 0 has bid; seat 1 cannot see the bid, so its search lets seat 0 choose
    (with statistics) instead of fixing one random sample of that bid."""
    s = _bid_state()
    s.step(0, s.legal_actions(0)[0])
    assert s.to_move() == (1,)
    bot = make_bot("mcts:iterations=80,prior=0", seed=2)
    bot.choose(s, 1)
    root = bot.last_root
    n0 = sum(st[0] for (p, _), st in root.stats.items() if p == 0)
    n1 = sum(st[0] for (p, _), st in root.stats.items() if p == 1)
    assert n0 == n1 == 80
    assert len({a for (p, a) in root.stats if p == 0}) > 1


def test_a_forced_move_costs_no_search():
    s = GAME.new(2, 1)
    s.winner, s.pile = 0, []
    assert s.legal_actions(0) == [BANK]
    bot = make_bot("mcts:iterations=50")
    assert bot.choose(s, 0) is BANK and bot.last_iterations == 0


def test_mcts_takes_the_winning_bid_in_the_last_round():
    """Last prize, rival already bid 5: only the 10 wins the game."""
    s = GAME_NO_HEURISTIC.new(2, 3)
    s.points = [20, 25]
    s.hands = [[2, 10], [1, 6, 7]]
    s.prize, s.prizes = 8, []
    s.bids = [0, 5]
    assert make_bot("mcts:iterations=100", seed=3).choose(s, 0) is BID[10]


def _match(specs, games):
    wins = 0.0
    for g in range(games):
        order = specs if g % 2 == 0 else specs[::-1]
        s = GAME.new(2, 500 + g)
        bots = [make_bot(spec, seed=10 * g + i) for i, spec in enumerate(order)]
        while not s.is_over():
            p = s.to_move()[0]
            s.step(p, bots[p].choose(s, p))
        wins += s.returns()[0 if g % 2 == 0 else 1]
    return wins / games


def test_mcts_beats_random_and_greedy_on_the_toy_game():
    assert _match(["mcts:iterations=80", "random"], 30) >= 0.6
    assert _match(["mcts:iterations=80", "greedy"], 30) >= 0.6


def test_prior_seeds_the_root_with_the_one_ply_heuristic():
    s = GAME_NO_HEURISTIC.new(2, 3)
    s.winner = 0  # seat 0 won the round: draw a card or bank a point
    assert s.legal_actions(0) == [DRAW, BANK]
    bot = make_bot("mcts:iterations=1,prior=4", seed=2)
    bot.choose(s, 0)
    stats = bot.last_root.stats
    seeded = {a.id: stats[(0, a.id)] for a in s.legal_actions(0)}
    assert sum(st[0] for st in seeded.values()) == 4 * 2 + 1  # virtual visits + one iteration
    # banking scores now: without a heuristic, the current score is what the prior sees
    assert seeded[BANK.id][1] / seeded[BANK.id][0] > seeded[DRAW.id][1] / seeded[DRAW.id][0]


def test_prior_everywhere_seeds_every_visited_node_once():
    s = _bid_state()
    bot = make_bot("mcts:iterations=30,prior=2,prior_all=1", seed=5)
    assert bot.choose(s, 0) in s.legal_actions(0)
    root = bot.last_root
    assert root.seeded == 0b11  # both seats of the simultaneous round
    deeper = [c for c in root.children.values() if c.stats]
    assert deeper and all(c.seeded for c in deeper)
    # the bot's own actions all start with the virtual visits (the rival's legal bids
    # vary with the determinization: ones first seen later start from zero)
    assert all(st[0] >= 2 for (p, _), st in root.stats.items() if p == 0)


def test_rollouts_follow_the_games_rollout_policy_and_length():
    import dataclasses

    calls = []

    def first_action(state, player, rng):
        calls.append(player)
        return state.legal_actions(player)[0]

    game = dataclasses.replace(GAME, rollout_policy=first_action, extra={"rollout_length": 1})
    s = game.new(2, 3)
    bot = make_bot("mcts:iterations=20", seed=1)
    assert bot.choose(s, 0) in s.legal_actions(0)
    # playout moves came from the policy, at most the game's 1 per iteration
    assert 0 < len(calls) <= 20 and set(calls) <= {0, 1}
    calls.clear()
    make_bot("mcts:iterations=20,rollout=3", seed=1).choose(s, 0)
    assert len(calls) > 20  # an explicit cut-off overrides the game's
    calls.clear()
    make_bot("mcts:iterations=20,rollout=3,policy=0", seed=1).choose(s, 0)
    assert calls == []  # policy=0: uniformly random playouts


def test_stopping_once_decided_chooses_what_the_whole_budget_would():
    """``stop=1`` ends the search when the most visited root action leads by more visits than
    the iterations left could add: the same choice as the whole budget, in fewer iterations."""
    import gemtable.games  # noqa: F401  (registers the games)
    from gemtable.core.registry import all_games

    saved = 0
    for game in all_games().values():
        chosen = [(state, p) for state, p in _positions(game, 2, seed=7, count=12) if len(state.legal_actions(p)) > 1]
        for i, (state, p) in enumerate(chosen[:3]):
            for spec in ("mcts:iterations=150", "puct:iterations=150"):
                whole, early = make_bot(spec, seed=i, game=game), make_bot(spec + ",stop=1", seed=i, game=game)
                assert early.choose(state.clone(), p) == whole.choose(state.clone(), p), (game.id, i, spec)
                assert early.last_iterations <= whole.last_iterations == 150
                saved += whole.last_iterations - early.last_iterations
    assert saved > 0


def test_stopping_once_decided_under_a_time_budget():
    s = _bid_state()
    bot = make_bot("mcts:seconds=0.05,stop=1", seed=3)
    assert bot.choose(s, 0) in s.legal_actions(0)
    assert bot.last_iterations >= 8
    with pytest.raises(ValueError):
        make_bot("mcts:stop=x")
