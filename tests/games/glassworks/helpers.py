"""Hand-made River Valley Glassworks states for rule tests."""

from __future__ import annotations

from gemtable.games.glassworks import GAME
from gemtable.games.glassworks.rules import COLOURS, NCOL, NS, SHAPES, GlassworksState

A = GAME.actions


def piece(colour: str, shape: str) -> int:
    return COLOURS.index(colour) * NS + SHAPES.index(shape)


def col(name: str) -> int:
    return COLOURS.index(name)


def tile(name: str) -> int:
    return SHAPES.index(name)


def make(
    n: int = 2,
    *,
    river: list[str] | None = None,
    tiles: dict[str, list[tuple[str, str]]] | None = None,
    lake: list[tuple[str, str]] | None = None,
    satchels: list[list[tuple[str, str]]] | None = None,
    columns: list[list[tuple[str, int]]] | None = None,
    bag: list[tuple[str, str]] | None = None,
    overflow: list[list[str]] | None = None,
    inventory: list[int] | None = None,
    current: int = 0,
    turn: int | None = None,
    **options,
) -> GlassworksState:
    """A state with the given public layout; unspecified parts are emptied.

    ``columns[p]`` lists (colour, height) from column 1; ``bag`` lists the bag's pieces
    (draws are random among them, so tests that check refills use a one-colour bag or
    compare multisets).
    """
    s = GAME.new(n, 1, **options)
    s.river = tuple(tile(t) for t in (river or list(SHAPES)))
    s.tiles = [()] * NS
    for name, pcs in (tiles or {}).items():
        s.tiles[tile(name)] = tuple(piece(*x) for x in pcs)
    s.lake = tuple(sorted(piece(*x) for x in (lake or [])))
    s.satchels = [tuple(sorted(piece(*x) for x in sat)) for sat in (satchels or [[]] * n)]
    s.colcol = [-1] * (n * NCOL)
    s.colh = [0] * (n * NCOL)
    for p, cols in enumerate(columns or []):
        for c, (colour, height) in enumerate(cols):
            if colour is not None:
                s.colcol[p * NCOL + c] = col(colour)
            s.colh[p * NCOL + c] = height
    s.bag = [piece(*x) for x in (bag or [])]
    s.overflow = [tuple(col(c) for c in ov) for ov in (overflow or [[]] * n)]
    s.inventory = list(inventory or [0] * n)
    s.current = current
    s.turn = current if turn is None else turn
    return s


def act(type: str, **args):
    return A.get(type, **args)


def names(actions) -> list[str]:
    return [a.text for a in actions]
