"""Load and validate River Valley Glassworks' component data (data.toml).

Every table is checked when the package is imported; a broken file raises
:class:`gemtable.core.DataError` with a message naming the table and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtable.core.data import load_toml, require

DATA_PATH = Path(__file__).with_name("data.toml")

_CONSTANTS = (
    "satchel_capacity",
    "setup_satchel",
    "lake_size",
    "lake_take",
    "end_trigger",
    "end_top_up",
    "overflow_penalty",
)


@dataclass(frozen=True)
class GlassworksData:
    colours: tuple[str, ...]  # every colour, in column-chart order
    colour_counts: tuple[int, ...]
    five_players_only: tuple[bool, ...]
    shapes: tuple[str, ...]
    pieces: tuple[tuple[int, ...], ...]  # pieces[colour][shape]
    stones: tuple[int, ...]  # stones[shape] printed on that shape's river tile
    columns: int
    rows: int
    values: tuple[tuple[int, ...], ...]  # values[column][height - 1]
    row_track: tuple[int, ...]  # row_track[cells filled from column 1]
    row_track_known: tuple[int, ...]  # cell counts whose row-track points are known (not placeholders)
    satchel_capacity: int
    setup_satchel: int
    lake_size: int
    lake_take: int
    end_trigger: int
    end_top_up: int
    overflow_penalty: int
    reconstructed: tuple[str, ...]  # names of tables holding placeholder values

    def colours_for(self, num_players: int) -> tuple[int, ...]:
        """Indices of the colours in play with ``num_players`` players."""
        return tuple(
            c for c in range(len(self.colours)) if num_players == 5 or not self.five_players_only[c]
        )


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def load(path: str | Path = DATA_PATH) -> GlassworksData:
    raw: dict[str, Any] = load_toml(path)
    reconstructed: list[str] = []

    consts = {}
    for name in _CONSTANTS:
        value = raw.get(name)
        require(_int(value) and value > 0, f"{name} must be a positive integer, got {value!r}", path)
        consts[name] = value
    require(
        consts["lake_take"] == consts["lake_size"] - 1,
        "lake_take must be lake_size - 1 (a lake draw is the choice of the one piece left behind)",
        path,
    )
    require(
        consts["setup_satchel"] <= consts["satchel_capacity"]
        and consts["end_top_up"] <= consts["satchel_capacity"],
        "setup_satchel and end_top_up cannot exceed satchel_capacity",
        path,
    )

    # colours
    rows = raw.get("colours")
    require(isinstance(rows, list) and rows, "[[colours]] must list at least one colour", path)
    names, counts, only5 = [], [], []
    for i, row in enumerate(rows):
        require(isinstance(row, dict), f"colour {i + 1} must be a table", path)
        name = row.get("name")
        require(isinstance(name, str) and name, f"colour {i + 1} needs a name", path)
        require(name not in names, f"colour {name!r} is listed twice", path)
        count = row.get("count")
        require(_int(count) and count > 0, f"colour {name!r}: count must be a positive integer", path)
        names.append(name)
        counts.append(count)
        only5.append(bool(row.get("five_players_only", False)))
    require(sum(1 for f in only5 if not f) >= 1, "at least one colour must be used below 5 players", path)

    # shapes
    shapes_tbl = raw.get("shapes")
    require(isinstance(shapes_tbl, dict), "missing [shapes] table", path)
    shapes = shapes_tbl.get("names")
    require(
        isinstance(shapes, list) and len(shapes) >= 2 and all(isinstance(s, str) and s for s in shapes),
        "[shapes] names must list at least two shape names",
        path,
    )
    require(len(set(shapes)) == len(shapes), "[shapes] names must be distinct", path)
    if shapes_tbl.get("reconstructed"):
        reconstructed.append("shapes")

    # pieces per colour and shape
    pieces_tbl = raw.get("pieces")
    require(isinstance(pieces_tbl, dict), "missing [pieces] table", path)
    pieces = []
    for name, count in zip(names, counts):
        row = pieces_tbl.get(name)
        require(
            isinstance(row, list) and len(row) == len(shapes) and all(_int(x) and x >= 0 for x in row),
            f"[pieces] {name!r} must list {len(shapes)} non-negative integers (one per shape)",
            path,
        )
        require(
            sum(row) == count,
            f"[pieces] {name!r} adds up to {sum(row)} pieces but the colour has {count}",
            path,
        )
        pieces.append(tuple(row))
    extra = set(pieces_tbl) - set(names) - {"reconstructed"}
    require(not extra, f"[pieces] names unknown colours: {', '.join(sorted(extra))}", path)
    if pieces_tbl.get("reconstructed"):
        reconstructed.append("pieces")

    # river tiles
    river = raw.get("river")
    require(isinstance(river, dict) and isinstance(river.get("stones"), dict), "missing [river] stones", path)
    stones_tbl = river["stones"]
    require(
        set(stones_tbl) == set(shapes),
        "[river] stones must give exactly one river tile per shape: " + ", ".join(shapes),
        path,
    )
    stones = []
    for shape in shapes:
        value = stones_tbl[shape]
        require(_int(value) and value >= 1, f"[river] the {shape} tile needs at least 1 stone", path)
        stones.append(value)
    if river.get("reconstructed"):
        reconstructed.append("river")

    # glassworks board
    gw = raw.get("glassworks")
    require(isinstance(gw, dict), "missing [glassworks] table", path)
    ncols, nrows = gw.get("columns"), gw.get("rows")
    require(_int(ncols) and ncols >= 2 and _int(nrows) and nrows >= 1,
            "[glassworks] columns (>= 2) and rows (>= 1) must be integers", path)
    values = gw.get("values")
    require(
        isinstance(values, list)
        and len(values) == ncols
        and all(isinstance(col, list) and len(col) == nrows and all(_int(v) for v in col) for col in values),
        f"[glassworks] values must be {ncols} columns of {nrows} integers",
        path,
    )
    if gw.get("reconstructed"):
        reconstructed.append("glassworks")

    track_tbl = raw.get("row_track")
    require(isinstance(track_tbl, dict), "missing [row_track] table", path)
    track = track_tbl.get("points")
    require(
        isinstance(track, list) and len(track) == ncols + 1 and all(_int(v) for v in track),
        f"[row_track] points must list {ncols + 1} integers (0 to {ncols} cells filled)",
        path,
    )
    require(track[0] == 0, "[row_track] a row with no cell filled from column 1 must score 0", path)
    require(all(a <= b for a, b in zip(track, track[1:])), "[row_track] points must not decrease", path)
    if track_tbl.get("reconstructed"):
        reconstructed.append("row_track")
        known = track_tbl.get("known", [])
        require(
            isinstance(known, list) and all(_int(k) and 1 <= k <= ncols for k in known)
            and len(set(known)) == len(known),
            f"[row_track] known must list distinct cell counts from 1 to {ncols}",
            path,
        )
        track_known = tuple(sorted(known))
    else:
        track_known = tuple(range(1, ncols + 1))  # nothing reconstructed: every value is known

    return GlassworksData(
        colours=tuple(names),
        colour_counts=tuple(counts),
        five_players_only=tuple(only5),
        shapes=tuple(shapes),
        pieces=tuple(pieces),
        stones=tuple(stones),
        columns=ncols,
        rows=nrows,
        values=tuple(tuple(col) for col in values),
        row_track=tuple(track),
        row_track_known=track_known,
        reconstructed=tuple(reconstructed),
        **consts,
    )


DATA = load()
