"""Value features of River Valley Glassworks (the learned evaluator's summary numbers of a
seat's position)."""

from __future__ import annotations

import pytest

from gemtable.games.glassworks.heuristics import (
    VALUE_FEATURE_NAMES,
    value_features,
)

from .helpers import make


def _position():
    """Two players, seat 1 to move in the main decision, the end not triggered.

    Seat 1: white 3, purple 2, light blue 5 (full) and one yellow in overflow; a white
    triangle and a purple heart in the satchel.  Seat 2: orange 1, three pieces in the satchel.
    River (upstream first): triangle, heart, circle, square, star, moon.
    """
    return make(
        2,
        tiles={
            "triangle": [("white", "star")],
            "heart": [("light blue", "moon")],
            "circle": [("purple", "circle"), ("purple", "square")],
            "square": [("dark blue", "heart")] * 5,
        },
        satchels=[[("white", "triangle"), ("purple", "heart")], [("orange", "circle")] * 3],
        columns=[[("white", 3), ("purple", 2), ("light blue", 5)], [("orange", 1)]],
        overflow=[["yellow"], []],
        inventory=[11, 1],
        current=0,
    )


def test_hand_checked_position():
    s = _position()
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    # Seat 1, heights 3 2 5: rows from the bottom run 3, 3, 1 columns -> 4 + 4 + 1 = 9;
    # the two tallest columns: column 3 at height 5 (7) and column 1 at height 3 (3) -> 10;
    # one overflow piece -> -3; score 16.  Seat 2: one row of 1 (1) + column 1 at height 1 (1) = 2.
    # Next row-track steps: rows 1 and 2 (3 -> 4 cells: +2 each), row 3 (1 -> 2 cells: +1) = 5.
    # Cells outside the row runs: column 3 at heights 3, 4, 5 = 3 of 35.
    # Within reach (satchel shapes triangle and heart): placing on the triangle gathers the heart,
    # placing on the heart gathers the triangle or the circle; the square (5 dark blue, worth
    # more) is out of reach.  Heuristic glassworks value now: 19 + 0.25 * 5 = 20.25.
    #   triangle (white -> column 1 at 4): rows 4+4+1+1, columns 7+4 -> 21 + 0.25 * 6 = 22.5: +2.25
    #   heart (light blue, full column): one more overflow piece: -3
    #   circle (2 purple -> column 2 at 4): rows 4+4+4, columns 7+5 -> 24 + 0.25 * 6 = 25.5: +5.25
    # River glass that would overflow for seat 1: the light blue of 9 pieces.
    expected = {
        "progress": 11 / 17,
        "turns_left": 1.0,
        "wait": 0.0,
        "score": 16 / 50,
        "score_margin": (16 - 2) / 50,
        "rows": 9 / 50,
        "rows_margin": (9 - 1) / 50,
        "columns": 10 / 50,
        "columns_margin": (10 - 1) / 50,
        "overflow": 3 / 50,
        "overflow_margin": 3 / 50,
        "satchel": 2 / 5,
        "satchel_margin": (2 - 3) / 5,
        "inventory": 11 / 17,
        "inventory_margin": (11 - 1) / 17,
        "free_columns": 4 / 7,
        "full_columns": 1 / 7,
        "row_potential": 5 / 50,
        "stray_cells": 3 / 35,
        "best_gather": 5.25 / 50,
        "river_waste": 1 / 9,
    }
    assert set(expected) == set(VALUE_FEATURE_NAMES)
    for name, value in expected.items():
        assert v[name] == pytest.approx(value), name
    # seen from seat 2: the same comparisons from the other side
    w = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 1)))
    assert w["score_margin"] == pytest.approx(-14 / 50)
    assert w["wait"] == 1.0
    assert w["overflow_margin"] == pytest.approx(-3 / 50)
    assert w["satchel_margin"] == pytest.approx(1 / 5)
    assert w["river_waste"] == 0.0  # six unused columns: every colour fits


def test_reach_follows_the_satchel():
    """A pair of one shape stands for any other shape: with two hearts the square (next to the
    circle and the star) comes within reach and its 5 dark blue are the best gather."""
    s = _position()
    s.satchels[0] = tuple(sorted(s.satchels[0][:1] + (s.satchels[0][1],) * 2))
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    # square: dark blue opens column 4 at height 5: rows 4 + 4 + 1 cells -> 6 + 6 + 1 = 13,
    # columns 4 (8) and 3 (7) = 15: 28 + 0.25 * (3 + 3 + 1) = 29.75, a gain of 9.5
    assert v["best_gather"] == pytest.approx(9.5 / 50)
    s.satchels[0] = ()
    assert dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))["best_gather"] == 0.0


def test_turns_left_after_the_trigger():
    """Three players, the end triggered in the first round (the game ends before turn 6):
    at turn 4 seat 1 has no turn left, seats 2 and 3 one each; a satchel counts only as many
    pieces as turns are left."""
    s = make(3, satchels=[[("white", "triangle")] * 4] * 3, inventory=[17, 3, 2], current=1, turn=4)
    s.end_turn = 6
    f = [dict(zip(VALUE_FEATURE_NAMES, value_features(s, p))) for p in range(3)]
    assert [x["turns_left"] for x in f] == [0.0, 0.5, 0.5]
    assert [x["progress"] for x in f] == [1.0, 1.0, 1.0]
    assert [x["satchel"] for x in f] == [0.0, 1 / 5, 1 / 5]
    assert f[1]["wait"] == 0.0 and f[2]["wait"] == 0.5 and f[0]["wait"] == 1.0
