"""Value features of Sintra (the learned evaluator's summary numbers of a seat's position)."""


import pytest

from gemtable.games.sintra.heuristics import (
    VALUE_FEATURE_NAMES,
    value_features,
)

from .helpers import (
    B,
    O,
    P,
    W,
    Y,
    empty_table,
    palace,
    put,
    remove_strip,
    set_round,
    set_strip,
    set_window,
    side,
)


def _position():
    """Round 3 of a 3-player game (7 factories, 28 panes dealt), 9 panes left on the table."""
    s = empty_table(3, "A")
    set_round(s, 2)
    put(s, [{P: 3, W: 1}, {B: 4}], {Y: 1})
    # seat 0: strip 1 side A (O O O W B) holds 2 orange at position 1, strip 4 side A
    # (W W W B P) holds 3 white + 1 blue at position 6, position 7 is strip 7 side A
    # (O P W Y B, empty); window 7 has its upper field, window 8 is finished (gap above)
    palace(s, 0, {0: side(1, "A"), 5: side(4, "A"), 6: side(7, "A")}, glazier=5)
    set_strip(s, 0, 0, side(1, "A"), filled={O: 2})
    set_strip(s, 0, 5, side(4, "A"), filled={W: 3, B: 1})
    set_window(s, 0, 6, upper=Y)
    set_window(s, 0, 7, upper=B, lower=W)
    remove_strip(s, 0, 7)
    s.score[0], s.trk[0] = 12, 3  # broken-glass space −4
    s.score[1], s.trk[1] = 20, 0
    s.score[2], s.trk[2] = 5, 5  # −8
    set_window(s, 2, 0, upper=W)
    s.holder = 0
    return s


def test_hand_checked_position():
    s = _position()
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    expected = {
        "progress": (2 + 1 - 9 / 28) / 6,
        "score": 12 / 50, "score_diff": (12 - 20) / 50,
        "broken": -4 / 18, "broken_diff": (-4 - 0) / 18,
        # ornament between windows 7|8 touches 3 glazed fields: 6 points; seat 2 has 1 field: 0
        "side_bonus": 6 / 40, "side_bonus_diff": 6 / 40,
        "fields": 3 / 16, "fields_diff": (3 - 1) / 16,
        # 3 rounds left: full outlook.  Strip at window 1 (value 1), 2 panes: 0.25 × (1 + 3 + 4 + 4);
        # strip at window 6 (value 3), 4 panes: 0.7 × (3 + 3 + 4 + 4)  (windows 7, 8 glazed)
        "outlook": (0.25 * 12 + 0.7 * 14) / 20, "outlook_diff": (0.25 * 12 + 0.7 * 14) / 20,
        "strip_panes": 6 / 40, "strip_panes_diff": 6 / 40,
        # glazier at position 6: there 1 pink space left; at position 7 O P W Y B all empty.
        # Table: 3 pink (2 fit), 1 white, 4 blue (1 fits), 1 yellow
        "fit": (2 + 1 + 1 + 1) / 28,
        # empty spaces: 3 + 4 × 5 + 1 + 5 = 29, of which 1 + 5 at or right of the glazier
        "reach": 6 / 29,
        "start_marker": 1.0,
        "break_cost": (-4 - -6) / 4,
    }
    assert set(expected) == set(VALUE_FEATURE_NAMES)
    for name, x in expected.items():
        assert v[name] == pytest.approx(x), name


def test_seen_from_a_rival():
    s = _position()
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 1)))
    assert v["score"] == pytest.approx(20 / 50)
    assert v["score_diff"] == pytest.approx((20 - 12) / 50)  # best other seat: seat 0
    assert v["broken_diff"] == pytest.approx(0 - -4 / 18)
    assert v["fields_diff"] == pytest.approx(-3 / 16)
    assert v["start_marker"] == 0.0
    assert v["break_cost"] == pytest.approx(1 / 4)  # top space: 0 → −1

