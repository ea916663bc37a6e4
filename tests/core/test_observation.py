"""The named observation layouts (core/observation.py) and every game's fast observation."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from gemtable.core import Rng
from gemtable.core.observation import (
    ObservationLayout,
    Scratch,
    rotate_seats,
    seat_rotations,
)
from gemtable.games.registry import all_games

GAMES = sorted(all_games())


def test_layout_builder_names_every_index():
    L = ObservationLayout()
    assert L.add("a", 3) == 0
    assert L.add("b", 2, low=-1, high=4, private=True) == 3
    L.check()
    assert L.size == 5
    assert L.low.tolist() == [0, 0, 0, -1, -1] and L.high.tolist() == [1, 1, 1, 4, 4]
    assert L.private_mask.tolist() == [False, False, False, True, True] and L.private_size == 2
    with pytest.raises(ValueError):
        L.add("a", 1)  # names are unique
    with pytest.raises(ValueError):
        L.add("c", 0)
    assert "`b`" in L.describe() and "private" in L.describe()


def test_scratch_rewrites_only_changed_sources():
    sc = Scratch(6)
    dest = np.array([0, 2, 4])
    sc.bytes_into("x", [1, 2, 3], dest)
    assert sc.buf.tolist() == [1, 0, 2, 0, 3, 0]
    sc.buf[0] = 9  # not rewritten while the source is unchanged
    sc.bytes_into("x", [1, 2, 3], dest)
    assert sc.buf[0] == 9
    sc.bytes_into("x", [4, 2, 3], dest)
    assert sc.buf.tolist() == [4, 0, 2, 0, 3, 0]
    sc.onehot("h", 1)
    sc.onehot("h", 5)
    assert sc.buf[1] == 0 and sc.buf[5] == 1
    sc.onehot("h", -1)
    assert sc.buf[5] == 0


@pytest.mark.parametrize("game_id", GAMES)
def test_every_index_is_named_exactly_once_and_bounded(game_id):
    game = all_games()[game_id]
    layout = game.observation_layout
    assert layout is not None and layout.size == game.observation_size
    layout.check()
    covered = np.zeros(layout.size, int)
    for f in layout.fields:
        covered[f.start:f.stop] += 1
        assert np.isfinite(f.low) and np.isfinite(f.high) and f.low <= f.high
    assert (covered == 1).all()
    assert len({f.name for f in layout.fields}) == len(layout.fields)


def _trajectory(game, n, seed, steps, options=None):
    s = game.new(n, seed, **(options or {}))
    rng = Rng(seed)
    out = [s.clone()]
    for _ in range(steps):
        if s.is_over():
            break
        movers = s.to_move()
        p = movers[rng.below(len(movers))]
        acts = s.legal_actions(p)
        s.step(p, acts[rng.below(len(acts))])
        out.append(s.clone())
    return out


@pytest.mark.parametrize("game_id", GAMES)
def test_observations_stay_inside_the_declared_bounds(game_id):
    game = all_games()[game_id]
    layout = game.observation_layout
    for options in game.option_sets()[:2]:
        for n in (min(game.player_counts), max(game.player_counts)):
            for seed in range(2):
                for s in _trajectory(game, n, seed, 100_000, options):
                    for p in range(n):
                        obs = layout.fill(s, p)
                        assert obs.dtype == np.float32 and obs.shape == (layout.size,)
                        bad = np.flatnonzero((obs < layout.low) | (obs > layout.high))
                        assert not len(bad), [(layout.fields[[f.start <= i < f.stop for f in layout.fields].index(True)].name,
                                               float(obs[i])) for i in bad[:3]]


@pytest.mark.parametrize("game_id", GAMES)
def test_fast_path_is_consistent_whatever_the_order_of_states(game_id):
    """Incremental caches must never leak one state's values into another's observation:
    observing two games interleaved gives what observing each alone gives."""
    game = all_games()[game_id]
    n = max(game.player_counts)
    a = _trajectory(game, n, 1, 60)
    b = _trajectory(game, min(game.player_counts), 2, 60)
    layout = game.observation_layout
    alone_a = [layout.fill(s, i % s.num_players).copy() for i, s in enumerate(a)]
    alone_b = [layout.fill(s, i % s.num_players).copy() for i, s in enumerate(b)]
    buf = layout.new_buffer()
    for i in range(max(len(a), len(b))):
        for traj, alone in ((a, alone_a), (b, alone_b)):
            if i < len(traj):
                s = traj[i]
                np.testing.assert_array_equal(layout.fill(s, i % s.num_players, buf), alone[i])
    # and a state mutated in place after being observed is observed anew
    s = a[len(a) // 2]
    first = layout.fill(s, 0).copy()
    game_state = s.clone()
    p = game_state.to_move()[0] if not game_state.is_over() else None
    if p is not None:
        s.step(p, s.legal_actions(p)[0])
        assert not np.array_equal(layout.fill(s, 0), first) or s == game_state


@pytest.mark.parametrize("game_id", GAMES)
def test_game_observation_is_the_layout_fill_as_floats(game_id):
    game = all_games()[game_id]
    s = _trajectory(game, min(game.player_counts), 3, 25)[-1]
    for p in range(s.num_players):
        obs = game.observation(s, p)
        assert isinstance(obs, list) and all(isinstance(x, float) for x in obs)
        assert obs == game.observation_layout.fill(s, p).tolist()


def _cold_copy(layout):
    """A second, independent instance of a game's features module: its caches are reset
    before every call, so each observation is computed from scratch."""
    fill = layout._fill
    mod = sys.modules[fill.__module__]
    spec = importlib.util.spec_from_file_location(mod.__name__ + "_reference", mod.__file__)
    copy = importlib.util.module_from_spec(spec)
    copy.__package__ = mod.__package__
    spec.loader.exec_module(copy)
    return copy.LAYOUT


@pytest.mark.parametrize("game_id", GAMES)
def test_incremental_fill_matches_a_fill_from_scratch_on_random_playouts(game_id):
    """The fast path keeps the observation it built last and rewrites only what changed.
    On random playouts (every player count and option set; the seat to move, every seat,
    or nobody observed after a step, so some observers catch up several steps at once) it
    must give, byte for byte, the observation computed from scratch by an independent
    instance whose caches are emptied before every call."""
    game = all_games()[game_id]
    fast = game.observation_layout
    reference = _cold_copy(fast)
    assert reference is not fast and reference.size == fast.size
    compared = 0
    for options in game.option_sets():
        for n in game.player_counts:
            rng = Rng(1000 + n)
            s = game.new(n, 17 * n, **options)
            buf = fast.new_buffer()
            for _ in range(400):
                mode = rng.below(4)
                if s.is_over() or mode == 0:
                    seats = range(n)
                elif mode == 1:
                    seats = (s.to_move()[0],)
                elif mode == 2:
                    seats = (rng.below(n),)
                else:
                    seats = ()
                for p in seats:
                    got = fast.fill(s, p, buf) if rng.below(2) else fast.fill(s, p)
                    reference.reset_caches()
                    want = reference.fill(s, p)
                    assert got.tobytes() == want.tobytes(), (game_id, n, options, s.turn, p,
                                                             np.flatnonzero(got != want)[:5])
                    compared += 1
                if s.is_over():
                    break
                movers = s.to_move()
                q = movers[rng.below(len(movers))]
                acts = s.legal_actions(q)
                s.step(q, acts[rng.below(len(acts))])
    assert compared > 200


def test_rotate_seats_is_the_seat_rotation_gather():
    rng = np.random.default_rng(5)
    start, width, seats, size = 7, 5, 4, 7 + 4 * 5 + 3
    for n in (2, 3, 4):
        buf = np.zeros(size, np.float32)
        buf[:start + n * width] = rng.random(start + n * width, dtype=np.float32)
        buf[start + seats * width:] = rng.random(3, dtype=np.float32)
        perms = seat_rotations(size, n, blocks=((start, width),))
        for p in range(n):
            want = buf.take(perms[p])
            out = np.full(size, -1.0, np.float32)
            rotate_seats(buf, out, p, n, start, width)
            assert out.tobytes() == want.tobytes()
            wide = np.full(size, -1.0)  # any other array is written through NumPy
            rotate_seats(buf, wide, p, n, start, width)
            np.testing.assert_array_equal(wide, want)
            strided = np.full(2 * size, -1.0, np.float32)[::2]
            rotate_seats(buf, strided, p, n, start, width)
            np.testing.assert_array_equal(strided, want)
