"""Game review and hints judge from the asking seat's knowledge only.

The leak test: a review's chances and swings of a seat, and the hints it gets, are the
same on the real positions and on copies where everything that seat cannot see (other
seats' hidden cards, bags, deck orders, the RNG) is re-sampled with
``state.determinize(seat, rng)``.  A judge that seeds its samples from the full state
fails the same check, so the check can fail.
"""

import pytest

from gemtable.analysis import review as rv
from gemtable.core import Match, MatchFileError, Rng, canonical
from gemtable.games.registry import all_games

GAMES = sorted(all_games())


def _played(gid: str, n: int, seed: int) -> Match:
    """A finished match of random moves."""
    game = all_games()[gid]
    match = Match(gid, n, seed, {})
    state = match.start(game)
    rng = Rng(seed)
    while not state.is_over():
        movers = state.to_move()
        p = movers[rng.below(len(movers))]
        acts = state.legal_actions(p)
        match.play(state, p, acts[rng.below(len(acts))])
    return match


def _positions(match: Match):
    game = all_games()[match.game_id]
    states, moves = [], []
    for i, (state, _) in enumerate(match.states(game)):
        states.append(state.clone())
        if i < len(match.actions):
            p, data = match.actions[i]
            moves.append((p, game.action_from_json(data)))
    return states, moves


def _hidden_changed(states, seat: int, salt: int):
    """The positions with everything ``seat`` cannot see re-sampled."""
    out = []
    for t, s in enumerate(states):
        if s.is_over():
            out.append(s)
            continue
        other = s.determinize(seat, Rng(salt * 7919 + t))
        assert canonical(other.view(seat)) == canonical(s.view(seat))
        out.append(other)
    return out


def _seat_part(result, seat):
    return result["chances"][seat], [s for s in result["swings"] if s["seat"] == seat]


def _differs_somewhere(states, seat) -> bool:
    return any(canonical(a.to_json()) != canonical(b.to_json())
               for a, b in zip(states, _hidden_changed(states, seat, 3)))


@pytest.mark.parametrize("gid", GAMES)
def test_review_and_hints_do_not_leak(gid):
    n = min(all_games()[gid].player_counts)
    states, moves = _positions(_played(gid, n, seed=11))
    states, moves = states[:61], moves[:60]  # the first 60 moves keep the test short
    for seat in range(n):
        changed = _hidden_changed(states, seat, 1)
        assert _differs_somewhere(states, seat)
        a = rv.review_states(states, moves, samples=2, swings=2)
        b = rv.review_states(changed, moves, samples=2, swings=2)
        assert _seat_part(a, seat) == _seat_part(b, seat)
        for t in range(0, len(states) - 1, 7):
            if seat in states[t].to_move():
                assert rv.hints(states[t], seat, samples=2) == rv.hints(changed[t], seat, samples=2)


def test_a_peeking_judge_is_caught(monkeypatch):
    """Seeding from the whole state (hidden parts included) changes the result."""
    monkeypatch.setattr(rv, "_seed", lambda state, seat, salt: hash(canonical(state.to_json())) & 0xFFFF)
    states, _ = _positions(_played("splendor", 2, seed=11))
    changed = _hidden_changed(states[:40], 0, 1)
    assert any(rv.hints(a, 0, samples=2) != rv.hints(b, 0, samples=2) for a, b in zip(states, changed))


@pytest.mark.parametrize("gid", GAMES)
def test_review_of_a_finished_game(gid):
    n = min(all_games()[gid].player_counts)
    match = _played(gid, n, seed=4)
    result = rv.review(match, samples=2)
    assert result["game"] == gid and result["moves"] == len(match.actions)
    assert [len(c) for c in result["chances"]] == [len(match.actions) + 1] * n
    final = match.replay().returns()
    assert [c[-1] for c in result["chances"]] == pytest.approx(final)
    assert all(0.0 <= x <= 1.0 for c in result["chances"] for x in c)
    for s in result["swings"]:
        assert s["swing"] < 0 and s["after"] == result["chances"][s["seat"]][s["move"]]
        assert s["cost"] is None or s["cost"] >= 0


def test_a_running_game_is_refused():
    match = _played("splendor", 2, seed=4)
    match.actions = match.actions[:10]
    with pytest.raises(ValueError, match="not over"):
        rv.review(match)


def test_a_match_that_does_not_replay_is_refused():
    match = _played("splendor", 2, seed=4)
    match.actions[3] = (match.actions[3][0], {"type": "no-such-move"})
    with pytest.raises(MatchFileError):
        rv.review(match)


def test_hints_give_three_moves_with_reasons():
    match = _played("splendor", 2, seed=4)
    state = match.replay(6)
    seat = state.to_move()[0]
    got = rv.hints(state, seat)
    assert len(got) == 3
    assert got[0]["chance"] >= got[1]["chance"] >= got[2]["chance"]
    legal = [a.to_json() for a in state.legal_actions(seat)]
    assert all(h["action"] in legal for h in got)
    assert any(h["reasons"] for h in got)
    assert rv.hints(state, 1 - seat) == []  # not that seat's turn


@pytest.mark.parametrize("gid", GAMES)
def test_a_stored_review_renders_in_each_language(gid):
    """The stored review (``review_json``) is language-neutral: read in English it is the
    English review; in German its moves and reasons are what the German texts give."""
    from gemtable.core import i18n

    n = min(all_games()[gid].player_counts)
    match = _played(gid, n, seed=4)
    stored = rv.review_json(match.to_json(), samples=2)
    stored.pop("seconds")
    assert i18n.is_message(stored["bot"]) and stored["swings"]
    assert all("played" not in s and "best" not in s for s in stored["swings"])
    assert rv.render_review(stored, match.to_json(), "en") == rv.review(match, samples=2)
    german = rv.render_review(stored, match, "de")
    assert german == rv.review(match, samples=2, lang="de")
    game = all_games()[gid]
    for s in german["swings"]:
        state = match.replay(s["move"] - 1)
        seat, data = match.actions[s["move"] - 1]
        assert s["played"] == state.action_text(seat, game.action_from_json(data), "de")


def test_explain_gives_messages_for_later():
    """``Game.explain(..., lang=None)``: the same phrases as messages, rendered later."""
    from gemtable.core import i18n

    game = all_games()["splendor"]
    state = _played("splendor", 2, seed=4).replay(6)
    seat = state.to_move()[0]
    before = game.value_features(state, seat)
    after = [x + 0.3 for x in before]
    messages = game.explain(before, after, lang=None)
    assert messages and all(i18n.is_message(m) for m in messages)
    for lang in ("en", "de"):
        assert [i18n.render(m, lang, game.domains) for m in messages] == game.explain(before, after, lang=lang)


def test_an_old_review_with_texts_renders_as_it_is():
    match = _played("splendor", 2, seed=4)
    old = rv.review(match, samples=2)
    assert rv.render_review(old, match, "de") == old
