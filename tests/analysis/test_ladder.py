"""The bot ladder (levels rated with OpenSkill) and the shipped ``levels.json``."""

from __future__ import annotations

import json
import logging

import pytest

from gemtable.analysis import ladder, run_games
from gemtable.bots import LEVELS
from gemtable.games.registry import get_game

GAME = "glassworks"  # fast, and greedy beats random there in every game of these seeds


@pytest.fixture
def novice(monkeypatch):
    """A level that plays at random, added after the others (as ``expert`` would be)."""
    monkeypatch.setitem(LEVELS, "novice", "random")
    return "novice"


def run(levels, n=8, players=2, seed=0):
    entries = ladder.parse_levels(levels)
    result = run_games(ladder.ladder_specs(GAME, entries, n, players, seed), jobs=1)
    return entries, result, ladder.ladder_summary(result.rows, entries, result.timing)


def record(summary, **kw):
    args = {"command": "gemtable ladder glassworks", "seed": 0, "games_per_pairing": 8, "players": 2,
            "date": "2026-11-25", "seconds": 1.0, "jobs": 1}
    args.update(kw)
    return ladder.shipped_record(get_game(GAME), summary, **args)


# -- levels -------------------------------------------------------------------------------------
def test_levels_are_the_named_ones_in_their_order_and_overrides_are_labelled():
    entries = ladder.parse_levels(None)
    assert [e.label for e in entries] == list(LEVELS) and [e.spec for e in entries] == list(LEVELS.values())
    easy, medium = ladder.parse_levels("easy,medium:iterations=20")
    assert (easy.label, easy.spec, easy.overrides) == ("easy", LEVELS["easy"], {})
    assert medium.label == "medium:iterations=20" and medium.level == "medium"
    assert medium.spec == "mcts:iterations=20" and medium.overrides == {"iterations": 20}
    with pytest.raises(ValueError, match=r"unknown level 'brutal'.*\(easy, medium, hard"):
        ladder.parse_levels("easy,brutal")
    with pytest.raises(ValueError, match="unknown level 'random'"):  # a bot kind is not a level
        ladder.parse_levels("random,easy")
    with pytest.raises(ValueError, match="at least two levels"):
        ladder.parse_levels("easy")
    with pytest.raises(ValueError, match="given twice"):
        ladder.parse_levels("easy,easy")
    with pytest.raises(ValueError, match="no parameter 'nope'"):
        ladder.parse_levels("easy,medium:nope=1")


def test_a_level_added_to_the_levels_joins_the_ladder(novice):
    assert [e.label for e in ladder.parse_levels(None)][-1] == "novice"


def test_games_are_rated_interleaved_across_pairings():
    rows = [{"index": i, "pairing": i // 3} for i in range(9)]  # 3 pairings of 3 games
    assert [r["index"] for r in ladder.interleaved(rows)] == [0, 3, 6, 1, 4, 7, 2, 5, 8]


# -- ratings come from the results ----------------------------------------------------------------
def test_the_stronger_level_gets_the_higher_rating(novice):
    _, result, summary = run("easy,novice")  # the stronger one first: order proves nothing
    easy, weak = summary["levels"]
    assert (easy["label"], weak["label"]) == ("easy", "novice")  # ladder order, not rating order
    assert easy["wins"] == 8 and weak["wins"] == 0  # measured: greedy beat random in all 8 deals
    assert easy["mu"] > 25 > weak["mu"] and easy["rating"] > weak["rating"]
    assert easy["rating"] == pytest.approx(easy["mu"] - 3 * easy["sigma"])
    assert easy["vs"]["novice"]["rate"] == 1.0 and easy["vs"]["novice"]["games"] == 8
    assert weak["vs"]["easy"]["wilson_high"] < 0.5
    # every deal was played from both seats
    seats = {(r["seed"], r["bot_0"]) for r in result.rows}
    assert len(seats) == 8 and {b for _, b in seats} == {"easy", "novice"}


def test_ratings_are_on_the_servers_scale(novice):
    """The ladder's numbers are what the server's rating model gives for the same games in
    the ladder's order (so a level's rating reads like a player's)."""
    from gemtable.server.ratings import model, ordinal

    _, result, summary = run("novice,easy", n=4)
    m = model()
    current = {"novice": m.rating(), "easy": m.rating()}
    for r in ladder.interleaved(result.rows):
        teams = [[current[r["bot_0"]]], [current[r["bot_1"]]]]
        new = m.rate(teams, ranks=[r["rank_0"], r["rank_1"]])
        current[r["bot_0"]], current[r["bot_1"]] = new[0][0], new[1][0]
    for e in summary["levels"]:
        want = current[e["label"]]
        assert e["mu"] == pytest.approx(want.mu) and e["sigma"] == pytest.approx(want.sigma)
        assert e["rating"] == pytest.approx(ordinal(want.mu, want.sigma))


def test_three_levels_a_full_round_robin(novice):
    _, result, summary = run("novice,easy,medium:iterations=10", n=2)
    assert len(result.rows) == 6 and summary["games"] == 6
    assert {r["pairing"] for r in result.rows} == {0, 1, 2}
    for e in summary["levels"]:
        assert e["games"] == 4 and set(e["vs"]) == {x["label"] for x in summary["levels"]} - {e["label"]}
    table = ladder.ladder_table(summary)
    assert [c.header for c in table.columns][-3:] == ["vs novice", "vs easy", "vs medium:iterations=10"]


# -- the shipped file ----------------------------------------------------------------------------
def test_install_round_trip(novice, shipped, monkeypatch):
    game = get_game(GAME)
    _, _, summary = run("novice,easy")
    rec = record(summary)
    target = ladder.install(game, rec)
    assert target == shipped(game) and json.loads(target.read_text()) == rec
    data = ladder.shipped_levels(game)
    assert data == rec and list(data["levels"]) == ["novice", "easy"]
    assert data["levels"]["easy"]["spec"] == LEVELS["easy"] and data["levels"]["novice"]["games"] == 8
    assert data["machine"] and data["games_per_pairing"] == 8 and "resumed_games" not in data
    resumed = record(summary, resumed=5)  # a journal held 5 games: the seconds are the rest's
    assert resumed["resumed_games"] == 5 and ladder.install(game, resumed) == target
    assert ladder.shipped_levels(game)["resumed_games"] == 5
    ladder.install(game, rec)
    # served easiest first as LEVELS orders them (novice was added last)
    ratings = ladder.current_ratings(game)
    assert list(ratings) == ["easy", "novice"]
    assert ratings["easy"]["rating"] == rec["levels"]["easy"]["rating"] > ratings["novice"]["rating"]
    # a level added since the ladder has no rating; the others keep theirs
    monkeypatch.setitem(LEVELS, "expert", "mcts:iterations=5000")
    assert list(ladder.current_ratings(game)) == ["easy", "novice"]
    # a level whose bot changed makes the file stale: every rating was measured against it
    monkeypatch.setitem(LEVELS, "novice", "greedy")
    assert ladder.current_ratings(game) is None
    assert ladder.shipped_levels(game) == rec  # the file itself is still sound


def test_new_learned_weights_make_the_file_stale(novice, shipped, monkeypatch, tmp_path):
    """A level that plays with learned weights is recorded with their fingerprint (at the
    ladder's table size); other weights behind the same spec make the ratings stale."""
    from gemtable.bots import learned

    game = get_game(GAME)
    monkeypatch.setitem(LEVELS, "learner", "puct:iterations=5")
    _, _, summary = run("novice,learner", n=2)
    rec = record(summary)
    assert "weights" not in rec["levels"]["novice"]
    assert rec["levels"]["learner"]["weights"] == learned.shipped(game, 2).fingerprint()
    ladder.install(game, rec)
    assert list(ladder.current_ratings(game)) == ["novice", "learner"]
    # the game now ships other weights for two players: the spec is the same, the bot is not
    other = learned.shipped(game, 2)
    other = learned.ValueModel(game, {k: v * 1.5 if k == "lin" else v for k, v in other.weights.items()},
                               other.manifest)
    assert other.fingerprint() != rec["levels"]["learner"]["weights"]
    monkeypatch.setattr(learned, "_SHIPPED", {(game.id, 2): other})
    assert ladder.stale_levels(ladder.shipped_levels(game), game) == ["learner"]
    assert ladder.stale_levels(ladder.shipped_levels(game)) == []  # without the game: specs only
    assert ladder.current_ratings(game) is None
    bad = json.loads(json.dumps(rec))
    bad["levels"]["learner"]["weights"] = 7
    assert "fingerprint" in ladder.check_record(game.id, bad)


@pytest.mark.parametrize("game_id", ["splendor", "sintra", "glassworks", "mille_fiori", "diamonds_club"])
def test_every_shipped_ladder_rates_the_levels_players_meet(game_id):
    """No shipped ``levels.json`` is stale: its specs are the levels', and where it recorded
    the learned weights (Sintra, Diamonds Club) they are the ones shipped now — ship new
    weights, run the ladder again."""
    game = get_game(game_id)
    data = ladder.shipped_levels(game)
    assert data is not None and ladder.stale_levels(data, game) == []
    assert ladder.current_ratings(game) is not None


def test_a_games_own_level_specs_are_what_its_ladder_plays_and_records(novice, shipped, monkeypatch):
    game = get_game(GAME)
    monkeypatch.setitem(game.extra, "levels", {"easy": "greedy:epsilon=0.5"})
    easy, rand = ladder.parse_levels("easy,novice", game)
    assert (easy.label, easy.spec) == ("easy", "greedy:epsilon=0.5") and rand.spec == "random"
    assert ladder.parse_levels("easy,novice")[0].spec == LEVELS["easy"]  # no game: the default table
    assert ladder.parse_levels("easy:epsilon=0.2,novice", game)[0].spec == "greedy:epsilon=0.2"
    entries = ladder.parse_levels("easy,novice", game)
    result = run_games(ladder.ladder_specs(GAME, entries, 2, 2, 0), jobs=1)
    rec = record(ladder.ladder_summary(result.rows, entries, result.timing))
    assert rec["levels"]["easy"]["spec"] == "greedy:epsilon=0.5"
    ladder.install(game, rec)
    assert ladder.stale_levels(ladder.shipped_levels(game), game) == []
    assert ladder.stale_levels(ladder.shipped_levels(game)) == []  # the record names its game
    assert list(ladder.current_ratings(game)) == ["easy", "novice"]
    monkeypatch.setitem(game.extra, "levels", {})  # the game goes back to the default easy
    assert ladder.stale_levels(ladder.shipped_levels(game), game) == ["easy"]
    assert ladder.current_ratings(game) is None


def test_a_tournament_builds_a_level_with_the_games_own_spec(monkeypatch):
    """``gemtable tournament GAME --bots hard,…`` plays the game's ``hard``: here one the game
    declares wrongly on purpose, so that building it fails and shows whose spec was built."""
    from gemtable.analysis.runner import GameSpec, play_game

    game = get_game(GAME)
    monkeypatch.setitem(game.extra, "levels", {"hard": "greedy:epsilon=2"})
    with pytest.raises(ValueError, match="epsilon"):
        play_game(GameSpec(0, GAME, ("hard", "easy"), 0))
    monkeypatch.setitem(game.extra, "levels", {"hard": "random"})
    assert play_game(GameSpec(0, GAME, ("hard", "easy"), 0))["bot_0"] == "hard"


def test_no_file_no_ratings(shipped):
    assert ladder.shipped_levels(get_game(GAME)) is None and ladder.current_ratings(get_game(GAME)) is None


def test_overridden_levels_are_not_installed(novice, shipped):
    _, _, summary = run("novice,easy:epsilon=0.5", n=2)
    with pytest.raises(ValueError, match="easy:epsilon=0.5"):
        record(summary)


def _good():
    return {"format": 1, "game": GAME,
            "levels": {"easy": {"spec": LEVELS["easy"], "mu": 30.0, "sigma": 1.0, "rating": 27.0, "games": 10},
                       "medium": {"spec": LEVELS["medium"], "mu": 20.0, "sigma": 1.0, "rating": 17.0, "games": 10}},
            "command": "gemtable ladder glassworks", "seed": 0, "games_per_pairing": 10, "players": 2,
            "date": "2026-11-25", "machine": "test"}


def _broken(change):
    data = _good()
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize("text, why", [
    ("{not json", "unreadable"),
    ("[1, 2]", "not a JSON object"),
    (_broken(lambda d: d.update(format=2)), "format 2"),
    (_broken(lambda d: d.update(game="splendor")), "made for game 'splendor'"),
    (_broken(lambda d: d.update(levels={})), "no levels"),
    (_broken(lambda d: d["levels"]["easy"].update(sigma=-1.0, rating=33.0)), "sigma -1.0"),
    (_broken(lambda d: d["levels"]["easy"].update(mu="high")), "finite numbers"),
    (_broken(lambda d: d["levels"]["easy"].update(rating=99.0)), "not mu - 3 sigma"),
    (_broken(lambda d: d["levels"]["medium"].pop("games")), "positive number of games"),
    (_broken(lambda d: d["levels"]["medium"].pop("spec")), "no bot spec"),
    (_broken(lambda d: d.pop("seed")), "seed must be"),
    (_broken(lambda d: d.update(date=20261125)), "date must be text"),
])
def test_malformed_files_are_refused_with_a_warning(shipped, caplog, text, why):
    game = get_game(GAME)
    shipped(game).write_text(text)
    with caplog.at_level(logging.WARNING, logger="gemtable.analysis.ladder"):
        assert ladder.shipped_levels(game) is None
        assert ladder.current_ratings(game) is None
    assert why in caplog.text and "levels.json not used" in caplog.text


def test_the_good_file_of_the_malformed_cases_is_accepted(shipped):
    game = get_game(GAME)
    shipped(game).write_text(json.dumps(_good()))
    assert ladder.current_ratings(game) == {
        "easy": {"rating": 27.0, "mu": 30.0, "sigma": 1.0, "games": 10},
        "medium": {"rating": 17.0, "mu": 20.0, "sigma": 1.0, "games": 10}}


def test_install_refuses_a_broken_record(shipped):
    bad = _good()
    bad["levels"]["easy"]["rating"] = 0.0
    with pytest.raises(ValueError, match="not mu - 3 sigma"):
        ladder.install(get_game(GAME), bad)
    assert not shipped(get_game(GAME)).exists()
