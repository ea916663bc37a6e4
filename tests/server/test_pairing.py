"""Swiss and round-robin pairings, points per placing and tiebreaks (server/pairing.py)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gemtable.server.pairing import (
    place_points,
    round_robin,
    round_robin_rounds,
    standings,
    swiss_round,
)


def ids(n):
    return [f"p{i:02d}" for i in range(n)]


def run_swiss(n, rounds, k=2, seed=0, ratings=None):
    """Play ``rounds`` Swiss rounds of ``n`` players with random places; the rounds as played."""
    rng = random.Random(seed)
    players = {p: (p, (ratings or {}).get(p, float(n - i))) for i, p in enumerate(ids(n))}
    played = []
    for r in range(rounds):
        recs = standings(players, played)
        games = swiss_round(recs, k, first_round=(r == 0))
        done = []
        for g in games:
            if len(g) == 1:
                done.append((g, [1]))
            else:
                places = list(range(1, len(g) + 1))
                rng.shuffle(places)
                done.append((g, places))
        played.append(done)
    return players, played


def test_points_per_placing():
    assert place_points([1, 2]) == [1, 0]
    assert place_points([2, 1]) == [0, 1]
    assert place_points([1, 1]) == [Fraction(1, 2)] * 2
    assert place_points([1, 2, 3]) == [1, Fraction(1, 2), 0]
    assert place_points([3, 1, 2, 4]) == [Fraction(1, 3), 1, Fraction(2, 3), 0]
    # a shared second place at four: the points of places 2 and 3 shared
    assert place_points([1, 2, 2, 4]) == [1, Fraction(1, 2), Fraction(1, 2), 0]
    # every table hands out the same total
    for k in (2, 3, 4):
        for places in itertools.product(range(1, k + 1), repeat=k):
            if any(q != 1 + sum(x < q for x in places) for q in places):
                continue  # not a ranking (1, 1, 3 is; 1, 1, 2 is not)
            assert sum(place_points(list(places))) == Fraction(k, 2)


def test_eight_players_three_rounds_score_groups_and_no_repeats():
    players, played = run_swiss(8, 3)
    met = Counter()
    for games in played:
        seen = [p for g, _ in games for p in g]
        assert sorted(seen) == sorted(players)  # everyone plays each round, once
        for g, _ in games:
            assert len(g) == 2
            met[frozenset(g)] += 1
    assert max(met.values()) == 1
    # round 1 by rating: top half against bottom half (1 v 5, 2 v 6, ...)
    assert sorted(sorted(g) for g, _ in played[0]) == [["p00", "p04"], ["p01", "p05"], ["p02", "p06"], ["p03", "p07"]]
    # round 2: winners meet winners, losers meet losers (score groups)
    recs = {r.player: r for r in standings(players, played[:1])}
    for g, _ in played[1]:
        assert recs[g[0]].score == recs[g[1]].score


def test_a_bye_goes_to_the_lowest_ranked_player_without_one_and_counts_as_a_win():
    players, played = run_swiss(7, 5, seed=3)
    byes = []
    for r, games in enumerate(played):
        bye = [g[0] for g, _ in games if len(g) == 1]
        assert len(bye) == 1
        before = standings(players, played[:r]) if r else sorted(
            standings(players, []), key=lambda x: -x.rating)
        eligible = [x.player for x in before if x.player not in byes]
        assert bye[0] == eligible[-1]  # the lowest-ranked who has not had one
        byes.append(bye[0])
    assert len(set(byes)) == 5
    final = {r.player: r for r in standings(players, played)}
    for p in byes:
        assert final[p].byes == 1
    # a bye is worth a win
    one = standings({"a": ("a", 0), "b": ("b", 0)}, [[(["a"], [1]), (["b"], None)]])
    assert {r.player: r.score for r in one} == {"a": 1, "b": 0}


@settings(max_examples=60, deadline=None)
@given(n=st.integers(4, 20), seed=st.integers(0, 10**6), data=st.data())
def test_swiss_never_repeats_a_pairing_while_one_can_be_avoided(n, seed, data):
    rounds = data.draw(st.integers(1, max(1, n // 2)))
    players, played = run_swiss(n, rounds, seed=seed)
    met = Counter(frozenset(g) for games in played for g, _ in games if len(g) == 2)
    assert max(met.values()) == 1
    for games in played:
        assert sorted(p for g, _ in games for p in g) == sorted(players)
        assert sum(len(g) == 1 for g, _ in games) == n % 2


def test_swiss_four_players_three_rounds_needs_backtracking_and_finds_it():
    # after two rounds the third is forced; a greedy pairing can run into a repeat
    for seed in range(30):
        _players, played = run_swiss(4, 3, seed=seed)
        met = Counter(frozenset(g) for games in played for g, _ in games)
        assert set(met.values()) == {1} and len(met) == 6


def test_first_seat_rotates():
    players, played = run_swiss(8, 4, seed=11)
    final = standings(players, played)
    # four games each: the first seat two times, give or take one (Swiss cannot always alternate)
    assert all(1 <= r.firsts <= 3 for r in final), [(r.player, r.firsts) for r in final]
    assert sum(r.firsts for r in final) == 16


def test_tiebreaks_buchholz_then_sonneborn_berger_then_rating():
    # four players, two rounds of two-player games: a beats b, c beats d; then a beats c, d beats b
    players = {"a": ("Ann", 10.0), "b": ("Bob", 5.0), "c": ("Cat", 1.0), "d": ("Dan", 20.0)}
    played = [[(["a", "b"], [1, 2]), (["c", "d"], [1, 2])], [(["a", "c"], [1, 2]), (["d", "b"], [1, 2])]]
    recs = {r.player: r for r in standings(players, played)}
    assert [recs[p].score for p in "abcd"] == [2, 0, 1, 1]
    # Buchholz: opponents' scores
    assert recs["a"].buchholz == 0 + 1 and recs["c"].buchholz == 1 + 2 and recs["d"].buchholz == 1 + 0
    # Sonneborn-Berger: the scores of those beaten
    assert recs["c"].sonneborn == 1 and recs["d"].sonneborn == 0
    order = [r.player for r in standings(players, played)]
    assert order == ["a", "c", "d", "b"]  # c before d on Buchholz
    # equal Buchholz: Sonneborn-Berger decides; equal everything: the rating
    players2 = {"x": ("X", 1.0), "y": ("Y", 9.0)}
    drawn = [[(["x", "y"], [1, 1])]]
    assert [r.player for r in standings(players2, drawn)] == ["y", "x"]


def test_multiplayer_tiebreaks_use_shares_of_each_pairing():
    players = {p: (p, 0.0) for p in "abc"}
    played = [[(["a", "b", "c"], [1, 2, 3])]]
    recs = {r.player: r for r in standings(players, played)}
    assert [recs[p].score for p in "abc"] == [1, Fraction(1, 2), 0]
    assert recs["a"].buchholz == Fraction(1, 4)  # mean of 1/2 and 0
    assert recs["b"].sonneborn == Fraction(0, 2)  # beat only c (0 points)
    assert recs["c"].sonneborn == 0
    assert recs["a"].sonneborn == Fraction(1, 2) / 2


def test_three_and_four_player_tables_group_by_standings_without_repeats_where_possible():
    for k, n, rounds in ((3, 9, 3), (4, 16, 3), (4, 10, 3), (3, 7, 2)):
        players, played = run_swiss(n, rounds, k=k, seed=k * n)
        for r, games in enumerate(played):
            full = [g for g, _ in games if len(g) > 1]
            byes = [g for g, _ in games if len(g) == 1]
            assert all(len(g) == k for g in full)
            assert len(byes) == n % k
            assert sorted(p for g, _ in games for p in g) == sorted(players)
        if n >= 16:  # room enough: nobody meets anyone twice
            met = Counter(frozenset(pair) for games in played for g, _ in games
                          for pair in itertools.combinations(g, 2))
            assert max(met.values()) == 1
    # the first round groups by rating: the best k together
    players, played = run_swiss(8, 1, k=4)
    assert sorted(sorted(g) for g, _ in played[0]) == [ids(8)[:4], ids(8)[4:]]


def test_round_robin_everyone_meets_everyone_once_with_byes_and_balanced_seats():
    for n in (2, 3, 4, 5, 6, 7, 8, 9, 10):
        people = ids(n)
        rounds = round_robin_rounds(n)
        met = Counter()
        firsts = Counter()
        byes = Counter()
        for r in range(1, rounds + 1):
            games = round_robin(people, r)
            assert sorted(p for g in games for p in g) == sorted(people)
            for g in games:
                if len(g) == 1:
                    byes[g[0]] += 1
                else:
                    met[frozenset(g)] += 1
                    firsts[g[0]] += 1
        assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}
        assert (set(byes.values()) == {1} and len(byes) == n) if n % 2 else not byes
        games_each = n - 1
        for p in people:
            assert abs(firsts[p] - games_each / 2) <= 1, (n, p, firsts)
