"""Views, determinism, events, text rendering and the heuristic."""

import json

from rich.console import Console

from gemtable.core import Game, Match, Rng, canonical, format_text
from gemtable.core.i18n import render
from gemtable.games.sintra import GAME
from gemtable.games.sintra.rules import PLACE

from .helpers import O, W, act, empty_table, fresh, put


def _play(s, k, seed=1):
    rng = Rng(seed)
    for _ in range(k):
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        s.step(p, acts[rng.below(len(acts))])
    return s


def test_game_description():
    # (the registry itself imports every game package; it is exercised by the conformance suite)
    assert isinstance(GAME, Game) and GAME.id == "sintra" and GAME.player_counts == (2, 3, 4)
    assert [o.name for o in GAME.options] == ["palace_side"]
    assert GAME.rules_text().startswith("# Azul: Stained Glass of Sintra")


def test_view_is_json_and_shows_the_public_table():
    s = _play(fresh(3), 25)
    v = s.view(1)
    json.dumps(v)
    assert v["phase"] in ("choose", "place", "keep")
    assert v["to_move"] == list(s.to_move()) and v["prompt"]
    assert len(v["factories"]) == 7 and len(v["players"]) == 3
    assert v["round_colour"] == v["round_indicator"][0]
    assert str(s.rng.s) not in json.dumps(v)
    assert s.view(None) == {**v, "viewer": None}  # no secrets: every seat sees the same


def test_pending_take_is_shown():
    s = empty_table()
    put(s, [{O: 2, W: 2}])
    s.apply(0, act("take_factory", factory=0, colour=O))
    assert s.phase == PLACE
    assert s.view(1)["pending"] == {"colour": "orange", "count": 2}
    assert "2 orange panes" in s.prompt(0)


def test_determinize_keeps_everything_visible_and_changes_future_draws():
    s = _play(fresh(2), 10)
    d = s.determinize(0, Rng(99))
    assert d.view(0) == s.view(0)
    assert d.rng.s != s.rng.s
    # the future refills differ with the new generator
    a, b = s.clone(), d.clone()
    while a.rnd == s.rnd:
        p = a.to_move()[0]
        act_ = a.legal_actions(p)[0]
        a.step(p, act_)
        b.step(p, act_)
    assert a.fac != b.fac or a.bag != b.bag


def test_json_round_trip_and_replay_are_exact():
    s = fresh(4, "B", seed=7)
    m = Match("sintra", 4, 7, {"palace_side": "B"})
    rng = Rng(3)
    while not s.is_over():
        p = s.to_move()[0]
        acts = s.legal_actions(p)
        m.play(s, p, acts[rng.below(len(acts))])
        if s.turn % 17 == 0:
            assert canonical(GAME.from_json(json.loads(json.dumps(s.to_json()))).to_json()) == \
                canonical(s.to_json())
    assert canonical(m.replay(game=GAME).to_json()) == canonical(s.to_json())
    assert s.view(0)["players"][0]["final"] is not None


def test_events_name_players_with_placeholders():
    s = empty_table()
    put(s, [{O: 2, W: 2}])
    events = s.apply(0, act("take_factory", factory=0, colour=O))
    assert format_text(events[0]["text"], ["Amanda", "Bo"]) == \
        "Amanda takes 2 orange panes from factory 1 (2 to the centre)."


def test_text_rendering_draws_the_table():
    s = _play(fresh(2), 12)
    console = Console(width=100, record=True, color_system=None)
    console.print(GAME.render_text(s.view(0), 0))
    out = console.export_text()
    assert "factory 5" in out and "seat 1 (you)" in out and "centre" in out
    assert f"score {s.score[1]}" in out


def _greedy(state, p, rng):
    det = state.determinize(p, Rng(rng.next64()))
    best, best_v = None, None
    for a in state.legal_actions(p):
        c = det.clone()
        c.step(p, a)
        v = GAME.heuristic(c, p)
        if best_v is None or v > best_v:
            best, best_v = a, v
    return best


def test_heuristic_greedy_beats_random():
    wins = 0.0
    for seed in range(8):
        s = fresh(2, seed=seed)
        me = seed % 2
        rng = Rng(seed)
        while not s.is_over():
            p = s.to_move()[0]
            if p == me:
                a = _greedy(s, p, rng)
            else:
                acts = s.legal_actions(p)
                a = acts[rng.below(len(acts))]
            s.step(p, a)
        wins += s.returns()[me]
    assert wins >= 7


def test_heuristic_counts_the_score_and_broken_glass():
    s = fresh(2)
    base = GAME.heuristic(s, 0)
    s.score[0] += 5
    assert GAME.heuristic(s, 0) == base + 5
    s.trk[0] = 5
    assert GAME.heuristic(s, 0) < base + 5


def test_action_text_describes_counts_and_breaks():
    s = empty_table()
    put(s, [{O: 3, W: 1}], centre={W: 2})
    texts = {a.type: s.action_text(0, a) for a in s.legal_actions(0)}
    assert "take 3 orange panes from factory 1 (1 to the centre)" in [s.action_text(0, a) for a in s.legal_actions(0)]
    assert texts["take_centre"] == "take 2 white panes from the centre + start marker (breaks 1)"
    s.apply(0, act("take_factory", factory=0, colour=O))
    for a in s.legal_actions(0):
        i = a.args["position"]
        k = i * 6
        fit = min(3, s.need[k + O] + s.need[k + 5])
        assert s.action_text(0, a).startswith(f"place on strip {s.strip_name(0, i)}: {fit} fit")
        assert (f"{3 - fit} break" in s.action_text(0, a)) == (fit < 3)


def test_observation_fixed_length_observer_first():
    for n in (2, 3, 4):
        s = _play(fresh(n, "B"), 15 + n)
        for p in range(n):
            obs = GAME.observation(s, p)
            assert len(obs) == GAME.observation_size
            assert all(isinstance(x, float) for x in obs)
        assert GAME.observation(s, 0) != GAME.observation(s, 1)
    s = fresh(2)
    s.score[1] = 50
    from gemtable.games.sintra.features import _HEAD, _SEAT
    assert GAME.observation(s, 1)[_HEAD + 3] == 0.5  # the observer's own score comes first
    assert GAME.observation(s, 0)[_HEAD + _SEAT + 3] == 0.5


def test_texts_name_strips_as_the_board_labels_them():
    """The board prints number and side under each strip (e.g. 1B); texts use the same name."""
    s = empty_table()
    put(s, [{O: 3, W: 1}])
    s.apply(0, act("take_factory", factory=0, colour=O))
    view = s.view(0)
    for a in s.legal_actions(0):
        i = a.args["position"]
        strip = view["players"][0]["strips"][i]
        label = f"{strip['strip']}{strip['side']}"
        assert s.strip_name(0, i) == label
        assert s.action_text(0, a).startswith(f"place on strip {label}: ")
    a = s.legal_actions(0)[0]
    label = s.strip_name(0, a.args["position"])
    events = s.apply(0, a)
    text = render(events[0]["text"])
    assert text.startswith("{P0} places ")
    assert text.split(" on strip ")[1].startswith(f"{label}")


def test_a_take_whose_panes_would_all_break_is_announced():
    s = empty_table()
    put(s, [{O: 2, W: 1}], centre={W: 2})
    # no strip under or right of the glazier has an empty orange or joker space any more
    for i in range(8):
        k = i * 6
        s.need[k + O] = 0
        s.need[k + 5] = 0
    texts = {(a.type, a.args["colour"]): s.action_text(0, a) for a in s.legal_actions(0)}
    assert texts[("take_factory", "orange")].startswith("take 2 orange panes from factory 1 (1 to the centre)")
    assert "warning: all of them break" in texts[("take_factory", "orange")]
    assert "break" not in texts[("take_factory", "white")]
    assert "warning" not in texts[("take_centre", "white")]
    assert s.view(0)["all_break_colours"] == ["orange"]
    events = s.apply(0, act("take_factory", factory=0, colour=O))
    assert [e["type"] for e in events][:2] == ["take", "broken"]  # the warning told the truth
    assert s.view(1)["all_break_colours"] == []
