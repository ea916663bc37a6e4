"""The greedy bot: one ply on the heuristic (or the score), from a determinized copy."""

from dataclasses import replace

from gemtable.bots import make_bot
from gemtable.bots.base import margin

from .toygame import BANK, BID, DRAW, GAME, GAME_NO_HEURISTIC


def _bonus_state(game):
    """Seat 0 has just won a prize and must choose: draw a card or bank a point."""
    s = game.new(2, 1)
    s.winner = 0
    assert s.to_move() == (0,) and set(s.legal_actions(0)) == {DRAW, BANK}
    return s


def test_without_a_heuristic_greedy_maximises_the_score():
    s = _bonus_state(GAME_NO_HEURISTIC)
    for seed in range(5):
        assert make_bot("greedy", seed=seed).choose(s, 0) is BANK


def test_greedy_follows_the_game_heuristic():
    hand_lover = replace(GAME, heuristic=lambda st, p: st.points[p] + 10 * len(st.hands[p]))
    s = _bonus_state(hand_lover)
    for seed in range(5):
        assert make_bot("greedy", seed=seed).choose(s, 0) is DRAW


def test_greedy_judges_against_the_best_opponent():
    s = GAME_NO_HEURISTIC.new(3, 2)
    s.points = [4, 9, 1]
    assert margin(s, 0) == 4 - 9
    assert margin(s, 1) == 9 - 4


def test_greedy_bids_to_win_a_prize_it_can_see():
    """The rival's secret bid is re-sampled; the 10 wins against almost any of them."""
    s = GAME_NO_HEURISTIC.new(2, 3)
    s.hands = [[3, 10], [1, 2, 5]]
    s.prize = 8
    s.bids = [0, 5]  # the rival has bid (secretly)
    assert s.to_move() == (0,)
    assert make_bot("greedy:samples=8", seed=1).choose(s, 0) is BID[10]


def test_lookahead_credits_the_follow_up_decision_of_the_same_seat():
    s = GAME_NO_HEURISTIC.new(2, 3)
    s.hands = [[3, 10], [1, 2, 5]]
    s.prize = 8
    s.bids = [0, 5]
    after = s.clone()
    after.step(0, BID[10])  # seat 0 wins and must now draw or bank: a multi-step turn
    assert after.to_move() == (0,)
    flat = make_bot("greedy:lookahead=0")
    deep = make_bot("greedy:lookahead=1")
    assert flat._value(after, 0, 0) == 8 - 0
    assert deep._value(after, 0, 1) == 8 + 1 - 0  # banking the extra point


def test_epsilon_makes_greedy_sometimes_random():
    s = _bonus_state(GAME_NO_HEURISTIC)
    picks = {make_bot("greedy:epsilon=1", seed=k).choose(s, 0) for k in range(20)}
    assert picks == {DRAW, BANK}
