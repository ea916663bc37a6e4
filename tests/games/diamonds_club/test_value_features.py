"""Value features of Diamonds Club (the learned evaluator's summary numbers of a seat's position)."""


import pytest

from gemtable.games.diamonds_club import GAME
from gemtable.games.diamonds_club import rules as R
from gemtable.games.diamonds_club.heuristics import (
    VALUE_FEATURE_NAMES,
    value_features,
)

BLUE, YELLOW, GREEN, RED = range(4)
FOREST_T, TECH_T, MONEY_T = range(3)


def _position():
    """A 2-player game in the buy phase; the mandatory spaces are fountain, pavilion, rose garden."""
    s = GAME.new(2, 0)
    assert s.phase == R.BUY
    # seat 0: 2 blue, 1 yellow, 3 red gems and a diamond; a blue pit, mining rights 3 and 5,
    # ship 4 (one complete set worth min(5, 4) = 4 blue gems); tracks forest 1, tech 0, money 2
    s.gems[0:5] = [2, 1, 0, 3, 1]
    s.pits[0:4] = [1, 0, 0, 0]
    s.mines[0:10] = [0, 0, 0, 1, 0, 1, 0, 0, 0, 0]
    s.ships[0:10] = [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    s.tr[0:3] = [1, 0, 2]
    # park: 3 fountains (one on its mandatory space), a forest, a pond and 2 deer parks
    s.bld[0:4] = [3, 0, 0, 0]
    s.forests[0] = 1
    s.ani[0:3] = [1, 2, 0]
    s.mand[0] = 0b001
    s.gen[0] = 6
    s.coins[0], s.pos[0] = 7, 2
    # seat 1: every mandatory space covered, 10 forests on ordinary spaces, no gems
    s.gems[5:10] = [0, 0, 0, 0, 0]
    s.bld[4:8] = [1, 0, 1, 1]
    s.forests[1] = 10
    s.mand[1] = 0b111
    s.gen[1] = 10
    s.coins[1], s.pos[1] = 10, 0
    return s


def test_hand_checked_position():
    s = _position()
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    # points: 3 buildings × 4, 1 forest × 3 (forest track step 1), 3 single animals × 1,
    # money track step 2: 1  -> 19.  Seat 1: 3 × 4 + 10 forests × 2 = 32.
    # gems: 2 + 1 + 3 + 1.25 (diamond) + 4 from the set = 11.25; seat 1: 0.
    # mandatory: pavilion (2 yellow 1 green) and rose garden (2 red 1 blue) open; after the
    # set seat 0 holds 6 blue 1 yellow 0 green 3 red + 1 diamond: 1 yellow and 1 green short,
    # the diamond covers one -> 1 gem short.
    progress = 13 / 14  # seat 1's park: 10 ordinary + 3 mandatory spaces
    expected = {
        "progress": progress,
        "last_round": 0.0,
        "points": 19 / 60, "points_diff": (19 - 32) / 60,
        "gems": 11.25 / 12, "gems_diff": 11.25 / 12,
        "park": 7 / 14, "park_diff": (7 - 13) / 14,
        "coins": 7 / 14, "coins_diff": (7 - 10) / 14,
        "start_track": 2 / 10, "start_track_diff": 2 / 10,
        "forest_track": 1 / 4, "tech_track": 0.0, "money_track": 2 / 4,
        "mandatory_missing": 2 / 3,
        "mandatory_danger": 2 / 3 * progress ** 2,
        "mandatory_gems_short": 1 / 9,
        "loose_equipment": 1 / 3,  # 4 tiles, 3 of them in the set
        "animals_towards_set": 2 / 3,  # pond and deer park held, aviary missing
    }
    assert set(expected) == set(VALUE_FEATURE_NAMES)
    for name, x in expected.items():
        assert v[name] == pytest.approx(x), name


def test_buy_phase_quantities_vanish_after_it_and_at_the_end():
    s = _position()
    s.phase = R.BUILD
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    assert v["coins"] == v["coins_diff"] == v["start_track"] == v["start_track_diff"] == 0.0
    s.phase = R.OVER  # seat 0 ends without its mandatory spaces: not scored
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, 0)))
    assert v["points"] == 0.0 and v["points_diff"] == pytest.approx(-32 / 60)
    assert v["last_round"] == 1.0

