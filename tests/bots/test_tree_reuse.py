"""Tree reuse between moves (``mcts:reuse=1``), the ``Bot.observe`` hook and the time budget."""

from typing import ClassVar

import pytest

from gemtable.analysis.runner import GameSpec, play_game
from gemtable.bots import BOT_KINDS, make_bot, register_bot
from gemtable.bots import mcts as mcts_module
from gemtable.bots.base import Bot, RandomBot, seen_action, tell_bots
from gemtable.games.registry import get_game

from .toygame import GAME

# Choices of ``mcts:iterations=30`` (seat p seeded 100 + p) in two toy games (players, seed),
# recorded from the code before tree reuse existed: ``reuse=0`` (the default) must keep
# playing exactly these games.  The toy game is test-only, so no game change moves them.
RECORDED = {
    (2, 31): [4, 1, 11, 9, 2, 11, 6, 7, 11, 8, 4, 10, 7, 1, 11, 5, 3, 11, 9, 8, 11, 2, 0, 11],
    (3, 32): [4, 1, 1, 11, 7, 6, 2, 11, 2, 9, 8, 11, 9, 6, 5, 11, 5, 3, 8, 11, 3, 7, 4, 11],
}


def _play(game, seed, specs, tell=True, until=None):
    """Play a game, one bot per seat seeded 100 + seat; (choices, per move (seat, carried, root, iterations))."""
    state = game.new(len(specs), seed)
    bots = [make_bot(spec, seed=100 + p) for p, spec in enumerate(specs)]
    choices, moves = [], []
    while not state.is_over() and (until is None or len(choices) < until):
        movers = state.to_move()
        p = movers[0]
        action = bots[p].choose(state, p)
        choices.append(action.id)
        moves.append((p, getattr(bots[p], "last_carried", 0), getattr(bots[p], "last_root", None),
                      getattr(bots[p], "last_iterations", 0)))
        if tell:
            tell_bots(bots, state, p, action, movers, state.apply(p, action))
        else:
            state.step(p, action)
    return choices, moves


@pytest.mark.parametrize("players,seed", sorted(RECORDED))
def test_reuse_off_plays_exactly_as_before(players, seed):
    specs = ["mcts:iterations=30"] * players
    assert _play(GAME, seed, specs, tell=False)[0] == RECORDED[players, seed]
    # told every action (as the drivers now do), reuse=0 still ignores them
    specs = ["mcts:iterations=30,reuse=0"] * players
    assert _play(GAME, seed, specs)[0] == RECORDED[players, seed]


@pytest.mark.parametrize("game_id", ["splendor", "glassworks"])
def test_reuse_off_plays_the_same_game_told_or_not(game_id):
    game = get_game(game_id)
    untold = _play(game, 11, ["mcts:iterations=30"] * 2, tell=False, until=40)[0]
    assert _play(game, 11, ["mcts:iterations=30,reuse=0"] * 2, until=40)[0] == untold


def test_reuse_is_deterministic_and_the_new_root_carries_the_old_visits():
    game = get_game("splendor")
    specs = ["mcts:iterations=40,reuse=1"] * 2
    first, moves = _play(game, 21, specs, until=40)
    again, _ = _play(game, 21, specs, until=40)
    assert first == again
    searched = [(p, carried, iters) for p, carried, _, iters in moves if iters]
    assert searched and all(iters == 40 for _, _, iters in searched)  # new iterations per move
    reused = [carried for _, carried, _ in searched if carried > 0]
    assert len(reused) >= len(searched) // 2, (len(reused), len(searched))
    # with a fresh tree every move the game goes differently
    assert _play(game, 21, ["mcts:iterations=40"] * 2, until=40)[0] != first


def test_the_reused_root_is_the_node_the_actions_lead_to():
    game = get_game("splendor")
    state = game.new(2, 5)
    bots = [make_bot("mcts:iterations=60,reuse=1", seed=7 + p) for p in range(2)]
    history = []  # (seat, action id) since seat 0's last search
    old_root = None
    checked = carried = 0
    for _ in range(30):
        movers = state.to_move()
        p = movers[0]
        action = bots[p].choose(state, p)
        if p == 0 and bots[0].last_iterations:
            if old_root is not None:
                node = old_root
                for key in history:
                    node = node.children.get(key) if node is not None else None
                if node is not None:
                    assert bots[0].last_root is node  # with its statistics and subtree
                    checked += 1
                    carried += bots[0].last_carried > 0
                else:
                    assert bots[0].last_carried == 0  # the actions left the tree: a fresh one
            old_root, history = bots[0].last_root, []
        events = state.apply(p, action)
        if old_root is not None:  # a blind reservation is hidden from seat 0: no such child
            history.append((p, action.id) if seen_action(p, action, 0, movers, events) else None)
        tell_bots(bots, state, p, action, movers, events)
    assert checked >= 5 and carried >= 3, (checked, carried)


def test_a_driver_that_never_tells_gets_a_fresh_tree_every_move():
    game = get_game("splendor")
    plain, _ = _play(game, 11, ["mcts:iterations=30"] * 2, tell=False, until=30)
    untold, moves = _play(game, 11, ["mcts:iterations=30,reuse=1"] * 2, tell=False, until=30)
    assert untold == plain
    assert all(carried == 0 for _, carried, _, _ in moves)


def _bid_round(tell_rival, rival_first=False):
    """Seat 0 searches at a secret bid round, both seats bid, the round is resolved."""
    s = GAME.new(2, 3)
    assert s.to_move() == (0, 1)
    bot = make_bot("mcts:iterations=300,reuse=1", seed=4)
    mine = bot.choose(s, 0)
    root = bot.last_root
    # a rival bid the search tried together with seat 0's bid
    rival = next(k[1] for k in root.children if k[0] == (0, mine.id) and k[1][1] in
                 {a.id for a in s.legal_actions(1)})
    expected = root.children[((0, mine.id), rival)]
    theirs = GAME.actions[rival[1]]
    for p, action in ([(1, theirs), (0, mine)] if rival_first else [(0, mine), (1, theirs)]):
        s.apply(p, action)
        bot.observe(s, p, action if p == 0 or tell_rival else None)
    return s, bot, expected


def test_a_round_of_secret_picks_is_followed_only_when_every_pick_was_seen():
    s, bot, expected = _bid_round(tell_rival=True)
    assert 0 in s.to_move()  # seat 0 decides next (it won the bid, or a new round began)
    bot.choose(s, 0)
    assert bot.last_root is expected and bot.last_carried > 0
    s, bot, expected = _bid_round(tell_rival=True, rival_first=True)  # picks told in another order
    bot.choose(s, 0)
    assert bot.last_root is expected
    s, bot, expected = _bid_round(tell_rival=False)  # the rival's bid is secret: told as None
    bot.choose(s, 0)
    assert bot.last_root is not expected and bot.last_carried == 0


def _bonus_told():
    """Seat 0 won the bid: it searches its bonus decision, takes it and is told so."""
    s = GAME.new(2, 3)
    s.winner = 0
    bot = make_bot("mcts:iterations=100,reuse=1", seed=4)
    action = bot.choose(s, 0)
    s.apply(0, action)
    bot.observe(s, 0, action)
    assert s.to_move() == (0, 1)
    return s, bot


def test_another_seat_or_position_starts_afresh():
    s, bot = _bonus_told()
    bot.choose(s, 0)
    assert bot.last_carried > 0  # the position the told action led to: reused
    s, bot = _bonus_told()
    bot.choose(s, 1)  # asked for another seat
    assert bot.last_carried == 0
    s, bot = _bonus_told()
    other = GAME.new(2, 4)  # a position the told action does not lead to
    assert other.view(0) != s.view(0)
    bot.choose(other, 0)
    assert bot.last_carried == 0


def test_the_last_secret_pick_of_a_round_is_hidden_from_the_other_seats():
    """Mille Fiori: the last pick of a simultaneous round is made with one seat to move,
    but its event is shown in full to the picker only."""
    s = get_game("mille_fiori").new(3, 2)
    assert len(s.to_move()) == 3
    for p in (0, 1):
        s.step(p, s.legal_actions(p)[0])
    assert s.to_move() == (2,)
    pick = s.legal_actions(2)[0]
    movers = s.to_move()
    events = s.apply(2, pick)
    assert seen_action(2, pick, 2, movers, events) is pick
    assert seen_action(2, pick, 0, movers, events) is None
    assert seen_action(2, pick, 1, movers, events) is None


class SpyBot(RandomBot):
    """A random bot that records everything it is told."""

    name = "spy"
    told: ClassVar[list] = []

    def observe(self, state, player, action):
        SpyBot.told.append((id(self), player, None if action is None else action.id, state.turn))


def test_the_runner_tells_every_bot_every_action():
    register_bot("spy", SpyBot)
    try:
        SpyBot.told = []
        row = play_game(GameSpec(0, "mille_fiori", ("spy",) * 3, seed=9))
        plain = play_game(GameSpec(0, "mille_fiori", ("random",) * 3, seed=9))
    finally:
        BOT_KINDS.pop("spy")
    keep = [k for k in row if not k.startswith(("_", "bot_"))]
    assert {k: row[k] for k in keep} == {k: plain[k] for k in keep}  # told or not, the same game
    by_bot: dict[int, list] = {}
    for bot, player, action, _ in SpyBot.told:
        by_bot.setdefault(bot, []).append((player, action))
    assert len(by_bot) == 3 and all(len(v) == row["decisions"] for v in by_bot.values())
    seats = [v for v in by_bot.values()]
    assert all([p for p, _ in v] == [p for p, _ in seats[0]] for v in seats)  # same actors, same order
    hidden = sum(a is None for v in seats for _, a in v)
    assert hidden > 0  # the other seats' secret picks
    # what one seat is told in full agrees with what the others are told in full
    for i in range(row["decisions"]):
        ids = {v[i][1] for v in seats} - {None}
        assert len(ids) == 1


def test_a_bot_without_observe_is_not_told():
    assert not Bot().observes and not RandomBot().observes and SpyBot().observes
    assert not make_bot("mcts").observes and make_bot("mcts:reuse=1").observes


class _Clock:
    """A fake perf_counter: ``tick`` seconds pass at every reading."""

    def __init__(self, tick):
        self.now, self.tick = 0.0, tick

    def __call__(self):
        self.now += self.tick
        return self.now


def test_no_iteration_starts_after_the_deadline(monkeypatch):
    s = GAME.new(2, 3)
    clock = _Clock(1.0)
    monkeypatch.setattr(mcts_module.time, "perf_counter", clock)
    bot = make_bot("mcts:seconds=2.5", seed=1)
    assert bot.choose(s, 0) in s.legal_actions(0)
    # read at the start (1.0, deadline 3.5), then before each iteration: 2.0 runs, 3.0 runs, 4.0 stops
    assert bot.last_iterations == 2
    monkeypatch.setattr(mcts_module.time, "perf_counter", _Clock(10.0))
    bot = make_bot("mcts:seconds=2.5", seed=1)
    assert bot.choose(s, 0) in s.legal_actions(0)
    assert bot.last_iterations == 0  # not even a first iteration once the time is up


def test_the_clock_includes_seeding_the_root(monkeypatch):
    s = GAME.new(2, 3)
    clock = _Clock(0.01)  # were the clock started after the seeding, ~100 iterations would run
    monkeypatch.setattr(mcts_module.time, "perf_counter", clock)
    seed_root = mcts_module.MctsBot._seed_root

    def slow_seed(self, *args):
        clock.now += 5.0  # seeding takes longer than the whole budget
        return seed_root(self, *args)

    monkeypatch.setattr(mcts_module.MctsBot, "_seed_root", slow_seed)
    bot = make_bot("mcts:seconds=1", seed=1)
    assert bot.choose(s, 0) in s.legal_actions(0)
    assert bot.last_iterations == 0
    assert bot.last_root is not None and bot.last_root.stats  # chosen from the prior


def test_the_server_tells_its_bots_and_drops_their_trees_after_an_undo():
    """The server keeps its bots between moves: it tells them every action, and an action
    told at an index the bots did not expect (moves were undone) is preceded by an unknown one."""
    from types import SimpleNamespace

    from gemtable.server.botdriver import BotDriver

    s = GAME.new(2, 3)
    s.winner = 0
    spy = SpyBot()
    SpyBot.told = []
    table = SimpleNamespace(id="t", bots={1: spy}, bots_told=0, state=s)
    BotDriver.tell(table, 0, 0, s.legal_actions(0)[0], (0,), [])
    assert [(p, a) for _, p, a, _ in SpyBot.told] == [(0, s.legal_actions(0)[0].id)]
    assert table.bots_told == 1
    SpyBot.told = []
    BotDriver.tell(table, 0, 0, s.legal_actions(0)[1], (0,), [])  # index 0 again: an undo
    assert [(p, a) for _, p, a, _ in SpyBot.told] == [(0, None), (0, s.legal_actions(0)[1].id)]
