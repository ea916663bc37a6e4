"""Value features of Mille Fiori (the learned evaluator's summary numbers of a seat's
position)."""

from __future__ import annotations

import pytest

from gemtable.games.mille_fiori import data as mdata
from gemtable.games.mille_fiori import rules as R
from gemtable.games.mille_fiori.heuristics import (
    VALUE_FEATURE_NAMES,
    value_features,
)

from .test_rules import (
    BLUE,
    GLASSWARE,
    RED,
    SWAN,
    blank,
    give_bonus,
    house,
    noble,
    put,
    ship_space,
    take_card,
    trade,
)


def _position():
    """Two players (Red = seat 1, Blue = seat 2), round 4 after one pass; Red is playing a
    coin card with one extra card still due."""
    s = blank(2)
    s.round, s.plays_done, s.start = 3, 1, RED
    for space in (trade(0, SWAN), trade(1, SWAN), house(0), house(1), R.W0 + 0, R.W0 + 1, R.W0 + 8,
                  R.W0 + 22, ship_space(0, 0), noble("bot", 0), noble("bot", 1)):
        put(s, RED, space)
    for space in (trade(2, SWAN), trade(0, GLASSWARE), ship_space(0, 1)):
        put(s, BLUE, space)
    give_bonus(s, BLUE, mdata.HOUSES)
    s.points = [30, 45]
    s.ship = [7, 3]
    coin = take_card(s, "coin-1")
    s.display = s.display[:5]
    s.phase, s.cur, s.card, s.card_extra, s.extras = R.USING, RED, coin, False, 1
    return s


def test_hand_checked_position():
    s = _position()
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, RED)))
    # Bonus outlook (half the free bonus value times the squared share of symbols held):
    # workshops pigments, ash, lime (3 of 4) toward 20; houses 2 distinct values of 4 toward 15
    # (Blue took the 20); nobles cross, coin (2 of 3) toward 20; trade swan (1 of 4) toward 20.
    red_outlook = 0.5 * (20 * (3 / 4) ** 2 + 15 * (2 / 4) ** 2 + 20 * (2 / 3) ** 2 + 20 * (1 / 4) ** 2)
    blue_outlook = 0.5 * 20 * (2 / 4) ** 2  # trade swan and glassware
    # The coin card in play: the middle lion space over Red's two base diamonds scores 3 + 1 + 1
    # and completes coin, cross, lion: the nobles' 20 bonus -> 25 (sailing 1, from 7 to 8, scores
    # only 1); plus one extra card due (4).
    expected = {
        "progress": (3 * 3 + 1) / 30,
        "supply_end": 11 / 27,  # Red has placed 11 diamonds, the fewer of the two supplies
        "order": 0.0,
        "score": 30 / 200,
        "score_margin": (30 - 65) / 200,
        "bonus_outlook": red_outlook / 20,
        "bonus_outlook_margin": (red_outlook - blue_outlook) / 20,
        "diamonds_placed": 11 / 27,
        "diamonds_placed_margin": (11 - 4) / 27,
        "ship": 7 / 20,
        "ship_margin": (7 - 3) / 20,
        "held_card": (25 + 4) / 20,
        "workshop_group": 3 / 10,  # workshops 1, 2 and 9 touch; 23 stands alone
        "house_chain": (4 + 2) / 20,
        # swan column: 3 occupied, the next diamond pays 4 per diamond (Red 2, Blue 1);
        # glassware: 1 occupied, pays 2 (Blue 1)
        "trade_stake": 2 * 4 / 20,
        "trade_stake_margin": (8 - (4 + 2)) / 20,
        # fleet 1 (one ship free) beside trade row 1 with 2 goods occupied: 3 per ship
        "harbor_stake": 3 / 20,
        # free nobles spaces above Red's base diamonds 1 and 2: middle 1 (1 + 1), middle 2 (1),
        # top 1 (1 + 1), top 2 (1)
        "pyramid_stake": 6 / 20,
        "display": 5 / 9,
    }
    assert set(expected) == set(VALUE_FEATURE_NAMES)
    for name, value in expected.items():
        assert v[name] == pytest.approx(value), name
    w = dict(zip(VALUE_FEATURE_NAMES, value_features(s, BLUE)))
    assert w["order"] == 1.0
    assert w["score_margin"] == pytest.approx(35 / 200)
    assert w["held_card"] == 0.0  # Blue holds no picked card and it is Red's turn
    assert w["house_chain"] == 0.0
    assert w["trade_stake"] == pytest.approx(6 / 20)


def test_end_of_the_game_and_the_ending_supply():
    s = _position()
    s.ending = True
    assert dict(zip(VALUE_FEATURE_NAMES, value_features(s, RED)))["supply_end"] == 1.0
    s.phase = R.OVER
    v = dict(zip(VALUE_FEATURE_NAMES, value_features(s, RED)))
    assert v["progress"] == 1.0
    assert v["held_card"] == v["bonus_outlook"] == 0.0
