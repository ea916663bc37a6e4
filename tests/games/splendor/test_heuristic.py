"""The Splendor heuristic makes the generic greedy bot clearly stronger than random."""

from __future__ import annotations

from gemtable.bots import make_bot
from gemtable.games.registry import get_game
from gemtable.games.splendor import rules as R
from gemtable.games.splendor.heuristics import heuristic

GAME = get_game("splendor")


def test_buying_a_card_beats_keeping_the_tokens_it_costs():
    s = GAME.new(2, 1)
    before = heuristic(s, 0)
    s.bon[0] += 1  # a level-1 bonus bought for 4 tokens
    s.ncards[0] += 1
    assert heuristic(s, 0) - before > 4 * 0.1 + 0.3  # more than the tokens plus a take-3 turn


def test_greedy_beats_random_in_most_two_player_games():
    wins = 0
    games = 20
    for seed in range(games):
        greedy_seat = seed % 2
        bots = {greedy_seat: make_bot("greedy", seed), 1 - greedy_seat: make_bot("random", seed)}
        s = GAME.new(2, seed)
        steps = 0
        while not s.is_over() and steps < 3000:
            p = s.to_move()[0]
            s.apply(p, bots[p].choose(s, p))
            steps += 1
        wins += s.is_over() and greedy_seat in s.winners()
    assert wins >= 17, f"greedy won only {wins}/{games}"


def test_heuristic_counts_points_in_full():
    s = GAME.new(2, 1)
    base = heuristic(s, 0)
    s.pts[0] += 3
    assert abs(heuristic(s, 0) - base - 3) < 1e-9
    assert R.POINTS  # data loaded
