"""``State.explain``: why a move is not allowed, worked out from the asking seat's view alone."""

from __future__ import annotations

import random

import pytest

from gemtable.core import Game, Rng
from gemtable.games.registry import all_games

from ..server.toy import ACTIONS, PICK, ToyState

GAMES = sorted(all_games())


class LeakyState(ToyState):
    """Only "pick 1" is legal, and the reason names the other seat's secret card: a careless
    ``why_illegal`` that ``explain`` must keep from the player."""

    def clone(self):
        s = LeakyState()
        s.__dict__.update(ToyState.clone(self).__dict__)
        return s

    def legal_actions(self, player):
        return [PICK[0]] if player in self.to_move() else []

    def why_illegal(self, player, action, lang="en"):
        return f"Only pick 1 now: the other seat holds a {self.secret[1 - player]}."


LEAKY = Game(id="toy", title="Leaky", player_counts=(2,), state_class=LeakyState, actions=ACTIONS)


def test_a_reason_names_nothing_the_seat_cannot_see():
    reasons = set()
    for hidden in range(1, 10):
        state = LEAKY.new(2, seed=3)
        state.secret[1] = hidden  # only seat 1's own view shows it
        assert state.check(0, PICK[2]).endswith(f"holds a {hidden}.")  # the careless reason
        reasons.add(state.explain(0, PICK[2]))
    assert len(reasons) == 1 and None not in reasons  # the same answer, whatever is hidden
    assert LEAKY.new(2, seed=3).explain(0, PICK[0]) is None


def test_public_refusals_are_answered_as_check_does():
    state = LEAKY.new(2, seed=1)
    state.apply(0, PICK[0])
    assert state.explain(0, PICK[0]) == state.check(0, PICK[0])
    assert "not your turn" in state.explain(0, PICK[0])
    assert state.explain(7, PICK[0]) == "There is no seat 7 in a 2-player game."


def _positions(game, rnd, count=6):
    """A few positions of a random 2-player game (its first legal player count)."""
    n = 2 if 2 in game.player_counts else game.player_counts[0]
    state = game.new(n, seed=rnd.randrange(1000))
    out = []
    for _ in range(count):
        for _ in range(rnd.randrange(1, 12)):
            if state.is_over():
                break
            p = state.to_move()[0]
            acts = state.legal_actions(p)
            state.step(p, acts[rnd.randrange(len(acts))])
        if state.is_over():
            break
        out.append(state.clone())
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_explains_from_the_view(game_id):
    """For every game: explain is None exactly for the legal actions, and two states that the
    asking seat cannot tell apart (two determinizations of its view) get the same reasons."""
    game = all_games()[game_id]
    rnd = random.Random(game_id)
    asked = 0
    for state in _positions(game, rnd):
        p = state.to_move()[0]
        legal = {a.id for a in state.legal_actions(p)}
        one, two = state.determinize(p, Rng(11)), state.determinize(p, Rng(12))
        sample = rnd.sample(list(game.actions), min(60, len(game.actions)))
        sample += [a for a in state.legal_actions(p)[:5]]
        for action in sample:
            reason = one.explain(p, action)
            assert reason == two.explain(p, action), action
            assert (reason is None) == (action.id in legal), (action, reason)
            if reason is not None:
                assert reason.strip() and "{" not in reason
                asked += 1
    assert asked > 0
