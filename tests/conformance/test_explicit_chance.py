"""Every game in explicit-chance mode (gemtable.core.chance): same invariants for all.

A random playout whose setup and actions run with a :class:`ChanceRng`, every chance
outcome sampled from the probabilities the chance point reports, is a legal game: each
chance point has distinct int outcomes inside the game's ``chance_outcomes_bound`` with
probabilities summing to 1, every reported outcome can be applied, components are
conserved, views agree with determinizations, an action that promises not to be a
checkpoint draws nothing, a determinized state goes on in explicit-chance mode, and the
chance outcomes, not hidden parts of the state, decide what an action shows: when a
determinization looks the same as the real state to every seat and the spectator (only the
order of face-down piles or bags differs), the same action with the same outcomes must look
the same to all of them afterwards too — a draw that bypassed the chance vocabulary would
take whatever the reordered pile has on top.
(With the ordinary generator nothing changed: tests/core/test_chance.py.)
"""

from __future__ import annotations

import pytest

from gemtable.core import Rng, canonical
from gemtable.core.chance import Chance, ChanceRng, sample
from gemtable.games.registry import all_games

CASES = [
    pytest.param(game, n, opts, id=f"{gid}-{n}p" + "".join(f"-{v}" for v in opts.values()))
    for gid, game in sorted(all_games().items())
    for n in game.player_counts
    for opts in game.option_sets()
]
SEEDS = 2


def _check_point(state_class, point):
    bound = state_class.chance_outcomes_bound
    outs = point.outcomes
    assert outs and list(outs) == sorted(set(outs)), f"{point.kind}: outcomes not distinct and sorted"
    assert all(isinstance(v, int) and 0 <= v < bound for v in outs), \
        f"{point.kind}: outcome outside range({bound}): {outs}"
    assert len(point.probabilities) == len(outs) and min(point.probabilities) > 0
    assert abs(sum(point.probabilities) - 1.0) < 1e-9


def _resolve(chance, state_class, rng, every_outcome):
    """Sample the chance points of ``chance`` to the end; returns (state, number of points)."""
    points = 0
    while chance.point is not None:
        point = chance.point
        _check_point(state_class, point)
        if every_outcome:  # each reported outcome is appliable
            for v in point.outcomes:
                other = Chance(chance.run, chance.script + [v])
                assert other.point is not None or other.result is not None
        chance.choose(sample(point, rng))
        points += 1
    return chance.result, points


def _views(state):
    return [canonical(state.view(v)) for v in (None, *range(state.num_players))]


def _outcomes_decide(state, p, action, chance, seed):
    """None when no determinization of ``state`` looks like it to everybody; else whether
    the same action with the same outcomes there looks the same to everybody."""
    det = state.determinize(p, Rng(seed))
    if _views(det) != _views(state):
        return None  # hidden hands re-dealt: the views may rightly differ afterwards
    det.rng = ChanceRng()
    again = Chance.action(det, p, action, chance.script)
    assert again.point is None, "the same outcomes do not finish the action in an identical-looking state"
    return _views(again.result) == _views(chance.result)


def _play(game, n, opts, seed, every_outcome=False):
    cls = game.state_class
    ordinary_counts = game.new(n, 0, **opts).component_counts()
    rng = Rng(31_337 + seed)
    state, points = _resolve(Chance.setup(game, n, opts), cls, rng, every_outcome=every_outcome)
    assert points > 0 and isinstance(state.rng, ChanceRng)
    assert state.component_counts() == ordinary_counts
    steps = decided = 0
    while not state.is_over():
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        assert acts
        action = acts[rng.below(len(acts))]
        chance = Chance.action(state, p, action)
        if not state.is_checkpoint(p, action):
            assert chance.point is None, f"{action.text!r} is no checkpoint but draws at random"
        if steps % 9 == 0:
            # hidden parts re-dealt for a seat: same view, and play goes on with explicit chance
            q = steps % n
            det = state.determinize(q, Rng(steps))
            assert canonical(det.view(q)) == canonical(state.view(q))
            det.rng = ChanceRng()
            dacts = det.legal_actions(p)
            _resolve(Chance.action(det, p, dacts[rng.below(len(dacts))]), cls, Rng(steps), False)
            # and a JSON round trip keeps the position
            back = game.from_json(state.to_json())
            assert canonical(back.to_json()) == canonical(state.to_json())
        before = state
        state, _ = _resolve(chance, cls, rng, every_outcome=every_outcome and steps % 5 == 0)
        if before.is_checkpoint(p, action):
            same = _outcomes_decide(before, p, action, chance, steps)
            assert same is not False, f"{action.text!r}: the hidden state, not the chance outcomes, decided a draw"
            decided += same is True
        assert state.component_counts() == ordinary_counts
        for v in (None, *range(n)):
            canonical(state.view(v))
        steps += 1
        assert steps < int(game.extra.get("max_steps", 20_000))
    assert abs(sum(state.returns()) - 1.0) < 1e-9
    return decided


@pytest.mark.parametrize("game,n,opts", CASES)
def test_explicit_chance_playout_is_a_legal_game(game, n, opts):
    decided = sum(_play(game, n, opts, seed, every_outcome=seed == 0) for seed in range(SEEDS))
    assert decided > 0  # the outcomes-decide check ran


def test_the_invariant_catches_a_draw_that_bypasses_the_vocabulary(monkeypatch):
    """Splendor refilling the board with ``deck.pop()`` (the code before the vocabulary)
    draws without a chance point: in explicit-chance mode the hidden deck order decides."""
    from gemtable.games.splendor import rules

    def old_refill(self, slot):
        deck = self.decks[slot // rules.FACE_UP]
        self.board[slot] = deck.pop() if deck else -1

    monkeypatch.setattr(rules.SplendorState, "_refill", old_refill)
    game = all_games()["splendor"]
    with pytest.raises(AssertionError, match="hidden state, not the chance outcomes"):
        for seed in range(SEEDS):
            _play(game, 2, {}, seed)


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_the_invariant_catches_an_outcome_outside_the_bound(gid, monkeypatch):
    """The bound check is not vacuous: a game claiming too small a range fails it."""
    game = all_games()[gid]
    monkeypatch.setattr(game.state_class, "chance_outcomes_bound", 1)
    with pytest.raises(AssertionError, match="outside range"):
        _resolve(Chance.setup(game, min(game.player_counts)), game.state_class, Rng(1), False)
