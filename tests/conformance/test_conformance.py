"""Every registered game, every player count and option set, same invariants.

Cheap invariants run over many seeds (``GAME.extra["conformance_seeds"]``,
overridable with GEMTABLE_CONFORMANCE_SEEDS); the expensive ones (JSON round
trip at every step, every legal action applied, illegal actions rejected,
leak checks) run over a few full games.
"""

from __future__ import annotations

import json
import os

import pytest

from gemtable.core import IllegalAction, Match, Rng, State, canonical, event_for, format_text
from gemtable.core.i18n import is_message, languages
from gemtable.games.registry import all_games

LANGS = languages()  # English and every language the kernel has a catalogue for

CASES = [
    pytest.param(game, n, opts, id=f"{gid}-{n}p" + "".join(f"-{v}" for v in opts.values()))
    for gid, game in sorted(all_games().items())
    for n in game.player_counts
    for opts in game.option_sets()
]
FORBIDDEN_KEYS = {"seed", "rng", "rng_state", "deck_order", "bag_order"}


def _seeds(game) -> int:
    env = os.environ.get("GEMTABLE_CONFORMANCE_SEEDS")
    return int(env) if env else int(game.extra.get("conformance_seeds", 100))


def _keys(obj, out):
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            _keys(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _keys(v, out)
    return out


@pytest.mark.parametrize("game,n,opts", CASES)
def test_random_play_to_the_end(game, n, opts):
    """Many seeds: the game ends, someone is always to move, components are conserved."""
    max_steps = int(game.extra.get("max_steps", 20_000))
    for seed in range(_seeds(game)):
        state = game.new(n, seed, **opts)
        initial = state.component_counts()
        rng = Rng(10_000 + seed)
        steps = 0
        while not state.is_over():
            movers = state.to_move()
            assert movers, f"seed {seed}: nobody to move before the end"
            p = movers[rng.below(len(movers))]
            acts = state.legal_actions(p)
            assert acts, f"seed {seed}: seat {p} to move with no legal action"
            assert len({a.id for a in acts}) == len(acts), f"seed {seed}: duplicate legal actions"
            state.step(p, acts[rng.below(len(acts))])
            assert state.component_counts() == initial, f"seed {seed} step {steps}: components changed"
            steps += 1
            assert steps < max_steps, f"seed {seed}: no end after {max_steps} decisions"
        assert state.to_move() == ()
        scores = state.scores()
        ranking = state.ranking()
        assert len(scores) == n and len(ranking) == n
        assert min(ranking) == 1 and all(1 <= r <= n for r in ranking)
        assert abs(sum(state.returns()) - 1.0) < 1e-9


def _deep_game(game, n, opts, seed):
    state = game.new(n, seed, **opts)
    match = Match(game.id, n, seed, dict(opts))
    rng = Rng(seed * 7919 + 1)
    differed = 0
    steps = 0
    while not state.is_over():
        movers = state.to_move()
        before = canonical(state.to_json())

        # JSON round trip of the full state and of clones
        data = json.loads(json.dumps(state.to_json()))
        again = game.from_json(data)
        assert canonical(again.to_json()) == before
        twin = state.clone()
        assert canonical(twin.to_json()) == before

        for p in range(n):
            # a seat not to move is refused, with a reason
            if p not in movers:
                any_action = game.actions[rng.below(len(game.actions))]
                assert state.check(p, any_action)
                continue
            legal = state.legal_actions(p)
            assert isinstance(state.prompt(p), str) and state.prompt(p)
            # every legal action applies through the checked path
            for action in legal:
                c = state.clone()
                c.apply(p, action)
                # and is encoded in the fixed action space
                assert game.actions[action.id] is action
                assert game.action_from_json(json.loads(json.dumps(action.to_json()))) is action
            # illegal ones are refused with a reason and leave the state untouched
            legal_ids = {a.id for a in legal}
            if game.rollout_policy is not None:  # the playout policy moves legally, touching nothing
                assert game.rollout_policy(state, p, Rng(rng.next64())).id in legal_ids
                assert canonical(state.to_json()) == before, "rollout_policy changed the state"
            for _ in range(5):
                action = game.actions[rng.below(len(game.actions))]
                if action.id in legal_ids:
                    continue
                with pytest.raises(IllegalAction) as info:
                    state.apply(p, action)
                assert str(info.value).strip()
                assert canonical(state.to_json()) == before

        # views: JSON-safe, no RNG, identical for any re-sampling of hidden info
        secret = str(state.rng.s)
        for p in list(range(n)) + [None]:
            view = state.view(p)
            text = json.dumps(view)
            assert not (_keys(view, set()) & FORBIDDEN_KEYS), f"view({p}) holds a forbidden key"
            assert secret not in text, f"view({p}) contains the RNG state"
            det = state.determinize(p, Rng(rng.next64()))
            assert det.view(p) == view, f"view({p}) depends on hidden information"
            assert det.component_counts() == state.component_counts()
            assert det.to_move() == movers
            if p is not None:
                assert [a.id for a in det.legal_actions(p)] == [a.id for a in state.legal_actions(p)]
                if game.observation is not None:  # the learning observation leaks nothing either
                    obs = game.observation(state, p)
                    assert len(obs) == game.observation_size
                    assert game.observation(det, p) == obs
            if canonical(det.to_json()) != before:
                differed += 1
                # determinize depends only on what p sees and the rng (never on the hidden truth)
                key = rng.next64()
                again = det.determinize(p, Rng(key))
                assert canonical(again.to_json()) == canonical(state.determinize(p, Rng(key)).to_json()), (
                    f"determinize({p}) depends on the hidden state, not only on the view and the rng")
            assert canonical(state.to_json()) == before, "determinize changed the real state"
            if p is not None and p in movers:
                # the search determinization: the same components, p still to decide with the
                # same choices, and again a function of p's view and the rng only
                key = rng.next64()
                sd = state.search_determinization(p, Rng(key))
                assert sd.component_counts() == state.component_counts()
                assert p in sd.to_move() and set(movers) <= set(sd.to_move())
                assert [a.id for a in sd.legal_actions(p)] == [a.id for a in state.legal_actions(p)]
                assert canonical(det.search_determinization(p, Rng(key)).to_json()) == canonical(sd.to_json()), (
                    f"search_determinization({p}) depends on the hidden state")
                assert canonical(state.to_json()) == before, "search_determinization changed the real state"

        p = movers[rng.below(len(movers))]
        acts = state.legal_actions(p)
        action = acts[rng.below(len(acts))]
        events = match.play(state, p, action)
        for ev in events:
            # a log line is a message (stored as words + figures, read in any language) or a string
            assert isinstance(ev.get("type"), str) and (isinstance(ev.get("text"), str) or is_message(ev.get("text")))
            # the log reads as sentences: every line, and the version others see, ends with a full stop
            for e in (ev, ev.get("public") or {}):
                if "text" in e:
                    for lang in LANGS:
                        line = format_text(e["text"], [f"P{i}" for i in range(n)], lang, game.domains)
                        assert line.rstrip().endswith("."), f"log line without a full stop ({lang}): {line!r}"
            json.dumps(ev)
            for viewer in list(range(n)) + [None]:
                json.dumps(event_for(ev, viewer))
        steps += 1
    return state, match, differed


@pytest.mark.parametrize("game,n,opts", CASES)
def test_deep_invariants_and_replay(game, n, opts):
    """A few full games checked at every step; then exact replay from the match log."""
    for seed in range(int(game.extra.get("deep_seeds", 2))):
        state, match, differed = _deep_game(game, n, opts, seed)
        assert differed > 0, "determinize never re-sampled anything: hidden information untested"
        final = canonical(state.to_json())
        # replay from the log, twice, through a file round trip: byte-identical
        loaded = Match.from_json(json.loads(json.dumps(match.to_json())))
        assert canonical(loaded.replay().to_json()) == final
        events_a = [e for _, evs in match.states() for e in evs]
        events_b = [e for _, evs in loaded.states() for e in evs]
        assert json.dumps(events_a) == json.dumps(events_b)


@pytest.mark.parametrize("game,n,opts", CASES)
def test_same_seed_same_game(game, n, opts):
    """Same seed and same actions give the same game; another seed a different one."""
    a, b, c = game.new(n, 42, **opts), game.new(n, 42, **opts), game.new(n, 43, **opts)
    assert canonical(a.to_json()) == canonical(b.to_json())
    assert canonical(a.to_json()) != canonical(c.to_json())
    rng_a, rng_b = Rng(5), Rng(5)
    while not a.is_over():
        p = a.to_move()[0]
        la, lb = a.legal_actions(p), b.legal_actions(p)
        assert [x.id for x in la] == [x.id for x in lb]
        a.step(p, la[rng_a.below(len(la))])
        b.step(p, lb[rng_b.below(len(lb))])
    assert canonical(a.to_json()) == canonical(b.to_json())


# -- undo checkpoints ------------------------------------------------------------------------
# ``is_checkpoint`` False promises that taking the action back leaks nothing, which holds
# when (a) applying it leaves the state's RNG untouched and (b) what every viewer (each seat
# and a spectator) sees of its effect — the view afterwards and the log lines as shown to
# them — already follows from what that viewer could see before.  (b) is checked against
# ``determinize(viewer)``: every such re-sampling of the hidden parts is a world the viewer
# cannot tell from the real one, so applying the action there must look the same to that
# viewer.  A refill, a draw or a reveal shows a card that differs between those worlds.
#
# When the action itself is secret from the viewer (a hidden pick), the actor's hand in the
# viewer's world is re-dealt and the very action may not exist there; then some legal action
# of the actor must give the viewer the same picture (the viewer cannot tell which one was
# taken).  The actor sees their own action, so for the actor only that action counts.  A
# forced action (the actor's only legal one) is skipped for the other viewers: taking it back
# and taking it again adds nothing to what they learn from it anyway.
UNDO_WORLDS = 2  # determinizations per viewer and checked action


def _undo_seeds(game) -> int:
    """Seeds per player count and option set: about 12 playouts per game in all."""
    env = os.environ.get("GEMTABLE_UNDO_SEEDS")
    return int(env) if env else max(1, 12 // sum(1 for case in CASES if case.values[0] is game))


def _seen(state, events, viewer):
    return state.view(viewer), [event_for(e, viewer) for e in events]


def _undo_leak(state, p, action, rng, forced=False) -> str | None:
    """None if taking ``action`` back would leak nothing; else what it would leak."""
    real = state.clone()
    events = real.apply(p, action)
    if real.rng.s != state.rng.s:
        return f"{action.text!r} uses the random generator"
    truth = dict(state.to_json(), rng=None)
    for viewer in list(range(state.num_players)) + [None]:
        if forced and viewer != p:
            continue
        target = None
        for _ in range(UNDO_WORLDS):
            world = state.determinize(viewer, Rng(rng.next64()))
            if dict(world.to_json(), rng=None) == truth:
                continue  # nothing re-sampled but the generator, which the action does not use
            if target is None:
                target = _seen(real, events, viewer)
            legal = world.legal_actions(p)
            tries = [action] if action in legal else []
            if viewer != p:  # the viewer does not see which action was taken
                tries += [a for a in legal if a is not action]
            for a in tries:
                w = world.clone()
                if _seen(w, w.apply(p, a), viewer) == target:
                    break
            else:
                who = "a spectator" if viewer is None else f"seat {viewer}"
                return f"{action.text!r} shows {who} something hidden (its effect depends on what they cannot see)"
    return None


def _undo_playout(game, n, opts, seed, limit=None):
    """Random playout checking the played action and one other legal action at each step;
    returns the leaks found (stops after ``limit`` of them)."""
    state = game.new(n, seed, **opts)
    rng = Rng(seed * 104_729 + 17)
    leaks = []
    checked = 0
    while not state.is_over():
        movers = state.to_move()
        p = movers[rng.below(len(movers))]
        legal = state.legal_actions(p)
        play = legal[rng.below(len(legal))]
        other = legal[rng.below(len(legal))]
        before = canonical(state.to_json()) if checked % 25 == 0 else None
        for action in {play.id: play, other.id: other}.values():
            flag = state.is_checkpoint(p, action)
            assert isinstance(flag, bool)
            if flag:
                continue
            checked += 1
            leak = _undo_leak(state, p, action, rng, forced=len(legal) == 1)
            if leak:
                leaks.append(f"seed {seed}, turn {state.turn}, seat {p}: {leak}")
                if limit and len(leaks) >= limit:
                    return leaks, checked
        if before is not None:
            assert canonical(state.to_json()) == before, "is_checkpoint changed the state"
        state.step(p, play)
    return leaks, checked


@pytest.mark.parametrize("game,n,opts", CASES)
def test_undoable_actions_leak_nothing(game, n, opts):
    """An action that is not a checkpoint draws nothing and shows nobody anything hidden."""
    total = 0
    for seed in range(_undo_seeds(game)):
        leaks, checked = _undo_playout(game, n, opts, seed, limit=3)
        assert not leaks, "is_checkpoint is False for an action that must be a checkpoint:\n" + "\n".join(leaks)
        total += checked
    if game.state_class.is_checkpoint is not State.is_checkpoint:  # the kernel default undoes nothing
        assert total > 0, "no action was ever undoable: the invariant was not exercised"


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_the_undo_invariant_catches_a_game_that_never_checkpoints(gid, monkeypatch):
    """Every game draws or reveals something: claiming no action ever does must be caught."""
    game = all_games()[gid]
    monkeypatch.setattr(game.state_class, "is_checkpoint", lambda self, player, action: False)
    leaks, _ = _undo_playout(game, max(game.player_counts), game.option_sets()[0], 0, limit=1)
    assert leaks
