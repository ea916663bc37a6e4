"""The players' how-to-play: what the rules endpoint serves, and that it reads as player text.

Every game has a PLAY.md next to its RULES.md. The web table (rules page and the "How to play"
overlay) shows PLAY.md; RULES.md stays in the repository as the developer notes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gemtable.games.registry import all_games

REAL = sorted(g for g in all_games() if g != "toy")

SECTIONS = ("Goal", "Setup", "Your turn", "Scoring", "End of the game",
            "Where the rulebook is unclear, we decided")

# what gives away developer notes rather than text for players
DEV_NOTE_PATTERNS = {
    "code formatting (backticks)": r"`",
    "the word test": r"\btest(s|ed|ing|suite)?\b",
    "a file name": r"\b[\w-]+\.(toml|py|md|js|json|css|html)\b",
    "a file path": r"(?<![\w<])(/[\w.-]+){2,}|\b(src|tests)/",
    "a code name": r"\bdeterminiz|\bdata\.toml\b|\bstate\.\w|\blegal_actions\b|\b\w+_\w+\s*=",
    "a benchmark": r"\bbench(mark)?\b|turns/s|games/s|\bCPython\b",
    "a speed section": r"^#+\s*(Speed|Performance)\b",
    "an option identifier": r"\b(palace_side|draft|overflow_counts_toward_end|pair_on_own_tile)\s*=",
}


def dev_notes_in(text: str) -> list[str]:
    return [what for what, pat in DEV_NOTE_PATTERNS.items()
            if re.search(pat, text, flags=re.IGNORECASE | re.MULTILINE)]


def headings(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^#+\s+(.*)$", text, flags=re.MULTILINE)]


def test_every_game_has_its_own_play_text_next_to_the_developer_notes():
    for game_id in REAL:
        game = all_games()[game_id]
        assert game.play_path and Path(game.play_path).name == "PLAY.md", game_id
        assert Path(game.play_path).is_file(), game_id
        assert game.rules_path and Path(game.rules_path).is_file(), game_id  # stays in the repository
        assert game.play_text() != game.rules_text(), game_id


@pytest.mark.parametrize("game_id", REAL)
def test_rules_endpoint_serves_the_play_text_not_the_developer_notes(client, game_id):
    game = all_games()[game_id]
    info = client.get(f"/api/games/{game_id}").json()
    assert info["rules"] == game.play_text()
    assert info["rules"].strip()
    assert info["data_status"] == game.data_status  # the reconstructed-data flag stays
    # nothing of the developer notes is served: no developer-note marker in what the page shows
    assert dev_notes_in(info["rules"]) == [], game_id
    assert dev_notes_in(game.rules_text()), "the detector should see the developer notes for what they are"


@pytest.mark.parametrize("game_id", REAL)
def test_play_text_reads_as_player_text(game_id):
    game = all_games()[game_id]
    text = game.play_text()
    found = dev_notes_in(text)
    assert not found, f"{game_id}: the how-to-play contains {', '.join(found)}"
    heads = headings(text)
    for section in SECTIONS:
        assert any(h.startswith(section) for h in heads), f"{game_id}: no section {section!r} ({heads})"
    # the sections come in the order a player reads them
    order = [next(i for i, h in enumerate(heads) if h.startswith(s)) for s in SECTIONS]
    assert order == sorted(order), f"{game_id}: sections out of order: {heads}"
    # a player reads it in 3-5 minutes (at about 200 words a minute)
    words = len(text.split())
    assert 250 <= words <= 1100, f"{game_id}: {words} words"


@pytest.mark.parametrize("game_id", REAL)
def test_reconstructed_games_say_which_values_are_stand_ins(game_id):
    game = all_games()[game_id]
    text = game.play_text()
    heads = headings(text)
    has_notice = any(h.lower().startswith("reconstructed values") for h in heads)
    assert has_notice == (game.data_status == "reconstructed"), game_id
    if has_notice:
        section = text.split("## Reconstructed values", 1)[1]
        assert "stand-in" in section and section.count("\n- ") >= 3, game_id


def test_detector_catches_developer_notes():
    assert "code formatting (backticks)" in dev_notes_in("The `palace_side` option")
    assert "an option identifier" in dev_notes_in("option palace_side = A")
    assert "the word test" in dev_notes_in("each one is checked by the test suite")
    assert "a file name" in dev_notes_in("placeholders in data.toml")
    assert "a file path" in dev_notes_in("see /work/shared/reference/mille_fiori for details")
    assert "a code name" in dev_notes_in("determinize keeps the hands")
    assert "a benchmark" in dev_notes_in("gemtable bench diamonds_club -p 4")
    assert "a speed section" in dev_notes_in("## Speed\n45,000 turns")
    assert dev_notes_in("The latest contest: a protest of 3 / 4 players.") == []


@pytest.mark.parametrize("game_id", REAL)
def test_sample_view_is_a_fresh_public_game(client, game_id):
    game = all_games()[game_id]
    res = client.get(f"/api/games/{game_id}/sample")
    assert res.status_code == 200
    data = res.json()
    n = data["players"]
    assert n in game.player_counts
    fresh = game.new(n, seed=1)
    assert data["view"] == fresh.view(None)
    assert data["to_move"] == list(fresh.to_move())


def test_sample_rejects_bad_requests(client):
    assert client.get("/api/games/nope/sample").status_code == 404
    assert client.get("/api/games/splendor/sample?players=9").status_code == 400
    assert client.get("/api/games/splendor/sample?players=3").json()["players"] == 3
