"""Tournament pairings and standings: Swiss and round robin (pure functions, no server state).

Players are ids (strings).  A round is a list of games; a game is the list of its players in
seat order (seat 0 first), or a single player for a **bye**.

**Points per placing.**  At a table of ``k`` players the place ``p`` (1 = best) is worth
``(k - p) / (k - 1)`` points: a win is always 1 and the last place always 0 (two players:
1 / 0; three: 1, ½, 0; four: 1, ⅔, ⅓, 0).  Players sharing a place share the points of the
places they cover (a two-player draw: ½ each).  A bye is worth 1 (a win).  Every seat of a table
nobody showed up at takes the last place: nothing for anyone.  Points are exact
fractions here (``Fraction``), so score groups never split on rounding.

**Tiebreaks**, in order: Buchholz (the sum, over the player's games, of the mean final score
of their table-mates; with two players: the sum of the opponents' scores), then
Sonneborn-Berger (the sum, over every table-mate met, of the share of that pairing the player
took — 1 for finishing ahead, ½ for the same place, 0 behind — times the table-mate's final
score, divided by ``k - 1``; with two players the classical Sonneborn-Berger), then the
rating the player had when the tournament started, then the name.  A bye adds nothing to
Buchholz or Sonneborn-Berger.

**Swiss, two players per table** (``swiss_round``): players are ranked by the standings
(the first round: by rating); a bye, when the count is odd, goes to the lowest-ranked player
who has not had one.  Within each score group the top half meets the bottom half (1 v 5,
2 v 6 ... in a group of eight); a player who cannot be paired in their group floats down.
Repeat pairings are avoided by backtracking; only when no pairing without a repeat exists are
repeats allowed (the fewest).  The first seat goes to the player who has had it fewer times
(then to the one who had the second seat last, then the higher-ranked).

**Swiss, three or four per table**: the ranked players fill tables in order (the best
``k`` together, then the next ``k`` ...), a player being moved down past table-mates they
have already met where the later players allow; the ``n mod k`` players left over get byes
(the lowest-ranked without one).  Seats go to those who sat first least often.

**Round robin** (two players per table, ``round_robin``): the circle method; with an odd
count a bye each round.  Everyone meets everyone once; each player's first seats alternate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

Game = list[str]  # players in seat order; one player: a bye
SEARCH_LIMIT = 200_000  # backtracking steps before repeats are allowed


def place_points(places: Sequence[int]) -> list[Fraction]:
    """Each seat's points from its place (1 = best; a shared place shares the places it covers)."""
    k = len(places)
    if k <= 1:
        return [Fraction(1)] * k
    out = []
    for p in places:
        same = sum(1 for q in places if q == p)
        # (a place past the last is worth nothing: every seat of a table nobody came to is last)
        covered = [Fraction(max(k - place, 0), k - 1) for place in range(p, p + same)]
        out.append(sum(covered, Fraction(0)) / same)
    return out


@dataclass
class Record:
    """One player's tournament so far."""

    player: str
    rating: float = 0.0
    name: str = ""
    score: Fraction = Fraction(0)
    games: int = 0
    byes: int = 0
    wins: int = 0
    firsts: int = 0  # games played from the first seat
    seat_sum: int = 0  # the sum of the seats played (rotation at tables of 3-4)
    last_seat: int | None = None
    met: Counter = field(default_factory=Counter)  # table-mate -> times met
    # (table-mates, the share of each pairing taken) per game, for the tiebreaks
    results: list[tuple[list[str], list[Fraction]]] = field(default_factory=list)
    buchholz: Fraction = Fraction(0)
    sonneborn: Fraction = Fraction(0)


def standings(players: dict[str, tuple[str, float]], rounds: Sequence[Sequence[tuple[Game, Sequence[int] | None]]]
              ) -> list[Record]:
    """The standings after the games played: ``players`` maps an id to (name, rating);
    ``rounds`` lists, per round, each game with its places (None: not finished, not counted).
    Best first (score, Buchholz, Sonneborn-Berger, rating, name)."""
    recs = {p: Record(p, rating=r, name=n) for p, (n, r) in players.items()}
    for games in rounds:
        for game, places in games:
            game = [p for p in game]
            if len(game) == 1:
                if game[0] in recs and places is not None:
                    rec = recs[game[0]]
                    rec.score += 1
                    rec.byes += 1
                    rec.wins += 1
                continue
            for seat, p in enumerate(game):
                if p not in recs:
                    continue
                rec = recs[p]
                rec.firsts += seat == 0
                rec.seat_sum += seat
                rec.last_seat = seat
                for q in game:
                    if q != p:
                        rec.met[q] += 1
            if places is None or len(places) != len(game):
                continue
            points = place_points(places)
            for i, p in enumerate(game):
                if p not in recs:
                    continue
                rec = recs[p]
                rec.score += points[i]
                rec.games += 1
                rec.wins += places[i] == 1 and places.count(1) == 1
                mates = [q for q in game if q != p]
                shares = [Fraction(1) if places[i] < places[j] else Fraction(1, 2) if places[i] == places[j]
                          else Fraction(0) for j, q in enumerate(game) if q != p]
                rec.results.append((mates, shares))
    for rec in recs.values():
        for mates, shares in rec.results:
            known = [recs[q].score for q in mates if q in recs]
            if known:
                rec.buchholz += sum(known, Fraction(0)) / len(mates)
            rec.sonneborn += sum((s * recs[q].score for q, s in zip(mates, shares) if q in recs),
                                 Fraction(0)) / len(mates)
    return sorted(recs.values(), key=rank_key)


def rank_key(rec: Record) -> tuple[Any, ...]:
    return (-rec.score, -rec.buchholz, -rec.sonneborn, -rec.rating, rec.name, rec.player)


def seeded(recs: Sequence[Record], first_round: bool) -> list[Record]:
    """The order pairings are made in: by rating before the first round, else by the standings."""
    if first_round:
        return sorted(recs, key=lambda r: (-r.rating, r.name, r.player))
    return sorted(recs, key=rank_key)


def _bye_takers(order: Sequence[Record], count: int) -> list[Record]:
    """The ``count`` lowest-ranked players who have not had a bye (then those with the fewest)."""
    if count <= 0:
        return []
    ranked = list(reversed(order))  # lowest first
    picked = sorted(ranked, key=lambda r: r.byes)[:count]  # stable: lowest-ranked among the fewest byes
    return picked


def swiss_round(recs: Sequence[Record], table_size: int, first_round: bool) -> list[Game]:
    """The next Swiss round: games in seat order (byes last, as one-player games)."""
    order = seeded(recs, first_round)
    byes = _bye_takers(order, len(order) % table_size)
    bye_ids = {r.player for r in byes}
    rest = [r for r in order if r.player not in bye_ids]
    if table_size == 2:
        pairs = _pair_two(rest)
        games = [_seat_order(list(pair)) for pair in pairs]
    else:
        games = [_seat_order(group) for group in _group(rest, table_size)]
    return [[r.player for r in g] for g in games] + [[r.player] for r in byes]


def _pair_two(rest: list[Record]) -> list[tuple[Record, Record]]:
    """Pairs by score groups, top half against bottom half, no repeats where avoidable."""
    for allow_repeats in (0, 1, 2, 10**6):
        found = _search(rest, allow_repeats)
        if found is not None:
            return found
    raise AssertionError("a pairing always exists when repeats are allowed")  # pragma: no cover


def _preferences(rest: list[Record], p: Record, free: list[Record]) -> list[Record]:
    """Whom ``p`` (the highest-ranked unpaired player) should meet, best first: the same score
    group's mirror in the other half first, then the rest of the group, then lower groups."""
    group = [r for r in free if r.score == p.score]
    pos = {r.player: i for i, r in enumerate(group)}
    half = len(group) // 2
    target = pos.get(p.player, 0) + max(half, 1)
    return sorted((r for r in free if r is not p),
                  key=lambda r: (abs(r.score - p.score), abs(pos.get(r.player, 10**6) - target),
                                 rest.index(r)))


def _search(rest: list[Record], allow_repeats: int) -> list[tuple[Record, Record]] | None:
    steps = 0

    def go(free: list[Record]) -> list[tuple[Record, Record]] | None:
        nonlocal steps
        if not free:
            return []
        steps += 1
        if steps > SEARCH_LIMIT:
            return None
        p = free[0]
        for q in _preferences(rest, p, free):
            if p.met[q.player] > allow_repeats:
                continue
            tail = go([r for r in free if r is not p and r is not q])
            if tail is not None:
                return [(p, q)] + tail
        return None

    return go(list(rest))


def _group(rest: list[Record], k: int) -> list[list[Record]]:
    """Tables of ``k`` from the ranked players, in order; a player who met someone already at the
    table is passed over for the next one who met nobody there (when there is one)."""
    free = list(rest)
    tables = []
    while free:
        table = [free.pop(0)]
        while len(table) < k:
            pick = next((r for r in free if not any(r.met[t.player] for t in table)), None)
            if pick is None:  # everyone left met someone here: the one who met them least
                pick = min(free, key=lambda r: (sum(r.met[t.player] for t in table), free.index(r)))
            free.remove(pick)
            table.append(pick)
        tables.append(table)
    return tables


def _seat_order(table: list[Record]) -> list[Record]:
    """Seats: the first seat to whoever sat first least often (then who sat later seats on the
    whole, then whoever sat the second seat last, then rank); at tables of more, the same order."""
    ranked = {r.player: i for i, r in enumerate(table)}
    return sorted(table, key=lambda r: (r.firsts, -r.seat_sum, 0 if r.last_seat not in (None, 0) else 1,
                                        ranked[r.player]))


def round_robin_rounds(count: int) -> int:
    """How many rounds a round robin of ``count`` players takes."""
    return count - 1 if count % 2 == 0 else count


def round_robin(players: Sequence[str], round_no: int) -> list[Game]:
    """Round ``round_no`` (1-based) of a round robin by the circle method: the first player stays,
    the others turn one place a round; with an odd count a bye (the empty place) each round.
    Seats alternate: the fixed player's first seat flips every round, the others' by position."""
    ring: list[str | None] = list(players)
    if len(ring) % 2:
        ring.append(None)
    n = len(ring)
    r = (round_no - 1) % (n - 1)
    rest = ring[1:]
    rest = rest[-r:] + rest[:-r] if r else rest
    order = [ring[0]] + rest
    games: list[Game] = []
    byes: list[Game] = []
    for i in range(n // 2):
        a, b = order[i], order[n - 1 - i]
        if a is None or b is None:
            byes.append([a if a is not None else b])  # type: ignore[list-item]
            continue
        swap = (r % 2 == 1) if i == 0 else (i % 2 == 1)
        games.append([b, a] if swap else [a, b])
    return games + byes
