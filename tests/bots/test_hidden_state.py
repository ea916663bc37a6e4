"""A bot never reads hidden state.

The bot chooses on a state and on a copy that differs only in what the bot's seat
cannot see; with the same seed it must choose the same action.  Two kinds of copy:

* a re-determinized copy (``state.determinize(p, rng)``: hidden cards, bag, deck
  order and RNG all re-sampled) — the issue's test.  It needs the game's
  ``determinize`` to depend only on the seat's view and the rng (e.g. sort the pool of
  unseen components before shuffling it), which the conformance suite requires of
  every game;
* a copy whose RNG alone differs (future draws), valid for every game.

A deliberately cheating bot shows the check can fail.
"""

import pytest

from gemtable.bots import Bot, make_bot
from gemtable.core import Rng, canonical

from .conftest import game_cases

SPECS = ["random", "greedy", "greedy:samples=2", "mcts:iterations=16,rollout=3", "gumbel:simulations=8"]


class PeekingBot(Bot):
    """Cheats: its choice depends on the full state (hidden cards, RNG)."""

    name = "peeking"

    def choose(self, state, player):
        acts = state.legal_actions(player)
        return acts[hash(canonical(state.to_json())) % len(acts)]


def _positions(game, n, seed, count):
    """Positions along a random game, each with its seat to move."""
    state = game.new(n, seed)
    rng = Rng(seed + 1)
    out = []
    step = 0
    while not state.is_over() and len(out) < count:
        movers = state.to_move()
        p = movers[rng.below(len(movers))]
        if step % 3 == 1:
            out.append((state.clone(), p))
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
        step += 1
    return out


def _canonical_determinize(game, n) -> bool:
    for k, (state, p) in enumerate(_positions(game, n, seed=5, count=6)):
        other = state.determinize(p, Rng(1000 * k))
        a = state.determinize(p, Rng(42))
        b = other.determinize(p, Rng(42))
        if canonical(a.to_json()) != canonical(b.to_json()):
            return False
    return True


def _check(game, n, copies):
    differed = cheat_caught = choices = 0
    for k, (state, p) in enumerate(_positions(game, n, seed=5, count=6)):
        for j in range(2):
            other = copies(state, p, 1000 * k + j)
            if canonical(other.to_json()) == canonical(state.to_json()):
                continue
            differed += 1
            choices += len(state.legal_actions(p)) > 1
            for spec in SPECS:
                a = make_bot(spec, seed=77).choose(state, p)
                b = make_bot(spec, seed=77).choose(other, p)
                assert a is b, f"{spec} chose {a.text!r} vs {b.text!r}: it depends on hidden state"
            if PeekingBot(seed=77).choose(state, p) is not PeekingBot(seed=77).choose(other, p):
                cheat_caught += 1
    assert differed > 0, "no position had hidden information to re-sample"
    if choices >= 4:
        assert cheat_caught > 0, "the peeking bot was never caught: the check cannot fail"


def _redeterminized(state, p, key):
    return state.determinize(p, Rng(key))


def _other_rng(state, p, key):
    other = state.clone()
    other.rng = Rng(key * 7919 + 13)
    return other


@pytest.mark.parametrize("game,n", game_cases())
def test_choice_ignores_everything_the_seat_cannot_see(game, n):
    if not _canonical_determinize(game, n):
        pytest.fail(f"{game.id}: determinize() depends on the hidden order, not only on the view and rng")
    _check(game, n, _redeterminized)


@pytest.mark.parametrize("game,n", game_cases())
def test_choice_ignores_the_hidden_rng(game, n):
    _check(game, n, _other_rng)
