"""Building hand-made Sintra states for the rule tests."""

from __future__ import annotations

from gemtable.games.sintra import GAME
from gemtable.games.sintra.data import JOKER
from gemtable.games.sintra.rules import (
    ACTIONS,
    CHOOSE,
    COLOURS,
    JOKER_CODE,
    NC,
    NEED,
    PATTERNS,
    SintraState,
)

W, Y, O, B, P = range(5)
C = {name: i for i, name in enumerate(COLOURS)}


def fresh(n: int = 2, side: str = "A", seed: int = 0) -> SintraState:
    return GAME.new(n, seed, palace_side=side)


def empty_table(n: int = 2, side: str = "A", seed: int = 0) -> SintraState:
    """A new game whose factories and centre are cleared (panes moved to the bag)."""
    s = fresh(n, side, seed)
    for i, x in enumerate(s.fac):
        s.bag[i % NC] += x
        s.fac[i] = 0
    for c in range(NC):
        s.bag[c] += s.centre[c]
        s.centre[c] = 0
    s.left = 0
    return s


def put(s: SintraState, factories: list[dict[int, int]] | None = None,
        centre: dict[int, int] | None = None) -> None:
    """Lay out factories/centre, taking the panes from the bag (keeps 100 panes)."""
    for f, content in enumerate(factories or []):
        for c, k in content.items():
            assert s.bag[c] >= k
            s.bag[c] -= k
            s.fac[f * NC + c] += k
    for c, k in (centre or {}).items():
        s.bag[c] -= k
        s.centre[c] += k
    s.left = sum(s.fac) + sum(s.centre)


def find_side(pred, exclude=()) -> int:
    """The first strip side code whose pattern satisfies pred (the strip not in exclude)."""
    for code, pat in enumerate(PATTERNS):
        if code // 2 not in exclude and pred(pat):
            return code
    raise AssertionError("no strip side in data.toml fits this test")


def side(strip: int, face: str) -> int:
    """The side code of strip `strip` (1-based, as in data.toml), face "A" or "B"."""
    return (strip - 1) * 2 + "AB".index(face)


def palace(s: SintraState, p: int, fixed: dict[int, int] | None = None, glazier: int = 0) -> None:
    """Lay out player p's palace as a real one: each of the 8 shipped strips once.

    fixed maps positions to side codes; the other positions get the remaining strips in
    order, the non-joker side up.  The strips start empty; the glazier goes to `glazier`.
    """
    fixed = fixed or {}
    used = {code // 2 for code in fixed.values()}
    assert len(used) == len(fixed), "each strip lies at one position only"
    rest = iter(k for k in range(8) if k not in used)
    for pos in range(8):
        if pos in fixed:
            code = fixed[pos]
        else:
            k = next(rest)
            code = k * 2 + 1 if k * 2 == JOKER_CODE else k * 2
        set_strip(s, p, pos, code)
    s.glz[p] = glazier
    check_palace(s, p)


def check_palace(s: SintraState, p: int) -> None:
    """The palace could be a real one: no strip twice, shipped patterns only."""
    codes = [c for c in s.code[p * 8:(p + 1) * 8] if c >= 0]
    assert len({c // 2 for c in codes}) == len(codes), "a strip appears twice"
    assert all(0 <= c < len(PATTERNS) for c in codes)


def set_strip(s: SintraState, p: int, pos: int, code: int, filled: dict[int, int] | None = None,
              jokers: list[int] | None = None) -> None:
    """Put side `code` at palace position `pos` of player p with panes on it (from the bag).

    filled: colour -> panes on spaces of that colour; jokers: colours lying on joker spaces.
    """
    si = p * 8 + pos
    # give back what lay there
    for c in range(NC):
        s.bag[c] += s.on[si * NC + c]
        s.on[si * NC + c] = 0
    s.code[si] = code
    need = list(NEED[code])
    for c, k in (filled or {}).items():
        assert need[c] >= k, "pattern has too few spaces of that colour"
        need[c] -= k
        s.on[si * NC + c] += k
        s.bag[c] -= k
    for c in jokers or []:
        assert need[JOKER] > 0
        need[JOKER] -= 1
        s.on[si * NC + c] += 1
        s.bag[c] -= 1
    s.need[si * 6:si * 6 + 6] = need
    s.empty[si] = sum(need)


def remove_strip(s: SintraState, p: int, pos: int) -> None:
    """Make position pos a gap (window finished), panes on it back to the bag."""
    set_strip(s, p, pos, max(s.code[p * 8 + pos], 0))
    si = p * 8 + pos
    s.code[si] = -1
    s.need[si * 6:si * 6 + 6] = [0] * 6
    s.empty[si] = 0


def set_window(s: SintraState, p: int, w: int, upper: int | None = None, lower: int | None = None) -> None:
    for field, c in ((0, upper), (1, lower)):
        idx = (p * 8 + w) * 2 + field
        if s.win[idx] >= 0:
            s.bag[s.win[idx]] += 1
            s.win[idx] = -1
        if c is not None:
            s.bag[c] -= 1
            s.win[idx] = c


def set_round(s: SintraState, r: int, colour: int | None = None) -> None:
    """Jump to round r (0-based): earlier indicator panes go to the tower; optionally make
    the round's indicator pane `colour` (swapped with a pane from the bag)."""
    for k in range(s.rnd, r):
        s.tower[s.rcol[k]] += 1
    s.rnd = r
    if colour is not None and s.rcol[r] != colour:
        s.bag[s.rcol[r]] += 1
        s.bag[colour] -= 1
        s.rcol = list(s.rcol)
        s.rcol[r] = colour


def act(type_: str, **args):
    if "colour" in args and isinstance(args["colour"], int):
        args["colour"] = COLOURS[args["colour"]]
    return ACTIONS.get(type_, **args)


def total_panes(s: SintraState) -> int:
    return sum(s.component_counts()[f"panes_{c}"] for c in COLOURS)


__all__ = [
    "CHOOSE",
    "JOKER",
    "PATTERNS",
    "B",
    "C",
    "O",
    "P",
    "W",
    "Y",
    "act",
    "check_palace",
    "empty_table",
    "find_side",
    "fresh",
    "palace",
    "put",
    "remove_strip",
    "set_round",
    "set_strip",
    "set_window",
    "side",
    "total_panes",
]
