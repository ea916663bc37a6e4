"""Mille Fiori: the static board description in the view (``layout``) for renderers."""

from __future__ import annotations

import json
from collections import Counter

from gemtable.core import Rng
from gemtable.games.mille_fiori import rules as R
from gemtable.games.registry import get_game

GAME = get_game("mille_fiori")
D = R.D


def test_layout_describes_every_space_as_printed():
    lay = GAME.new(3, 4).view(0)["layout"]
    spaces = lay["spaces"]
    assert [e["id"] for e in spaces] == list(range(D.num_spaces))
    counts = Counter(e["area"] for e in spaces)
    assert counts == {"workshops": 30, "houses": 20, "nobles": 12, "commoners": 12, "trade": 20, "harbor": 15}
    for e in spaces:
        assert e["symbol"] in lay["symbols"][e["area"]]
    # workshops: hex row and doubled column from data.toml, symbols as printed
    assert spaces[0] == {"id": 0, "area": "workshops", "symbol": "pigments", "row": 0, "col": 1}
    assert spaces[29]["row"] == 3 and spaces[29]["col"] == 16 and spaces[29]["symbol"] == "ash"
    assert lay["workshops"]["doubled"] == "pigments"
    assert sorted(x for t in lay["workshops"]["stars"] for x in t) == list(range(30))
    # houses: track order and values
    houses = [e for e in spaces if e["area"] == "houses"]
    assert [e["col"] for e in houses] == list(range(20))
    assert [e["value"] for e in houses] == list(D.house_values)
    # pyramids: 5-4-3 built base-up, level points as values, the printed symbols
    for area, pyr in (("nobles", 0), ("commoners", 1)):
        cells = [e for e in spaces if e["area"] == area]
        assert Counter(e["level"] for e in cells) == {0: 5, 1: 4, 2: 3}
        for lv, ids in enumerate(D.pyramid_rows[pyr]):
            assert [spaces[x]["col"] for x in ids] == list(range(len(ids)))
            assert all(spaces[x]["level"] == lv and spaces[x]["value"] == D.level_points[lv] for x in ids)
    assert [spaces[x]["symbol"] for x in D.pyramid_rows[0][0]] == ["cross", "coin", "lion", "cross", "coin"]
    # trade: 5 rows x 4 goods, one good per column; harbor: 5 fleets of 3 beside the rows
    trade = [e for e in spaces if e["area"] == "trade"]
    assert {(e["row"], e["col"]) for e in trade} == {(r, c) for r in range(5) for c in range(4)}
    assert all(e["symbol"] == lay["symbols"]["trade"][e["col"]] for e in trade)
    harbor = [e for e in spaces if e["area"] == "harbor"]
    assert {(e["row"], e["col"]) for e in harbor} == {(r, c) for r in range(5) for c in range(3)}
    assert lay["harbor"]["points_by_goods"] == [0, 1, 3, 6, 10]
    # sea track 0..20 and its extra-card stars; bonus spaces per area
    assert len(lay["sea"]["points"]) == 21 and lay["sea"]["points"][0] == 0
    assert lay["sea"]["extra_card_positions"] == [7, 16, 20]
    assert lay["bonus"] == {a: [20, 15, 10, 5] for a in ("workshops", "houses", "nobles", "commoners", "trade")}


def test_layout_is_static_public_and_json_safe():
    s = GAME.new(2, 7)
    first = s.view(None)["layout"]
    json.dumps(first)
    rng = Rng(3)
    for _ in range(40):
        if s.is_over():
            break
        p = s.to_move()[0]
        s.apply(p, s.legal_actions(p)[0])
    for viewer in (0, 1, None):
        assert s.view(viewer)["layout"] == first
        assert s.determinize(viewer, rng).view(viewer)["layout"] == first
    # the rest of the view keeps its keys
    assert {"board", "bonus_spaces", "houses_next", "ships", "display"} <= set(s.view(0))
