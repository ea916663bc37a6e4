"""Load and validate Sintra's component data (data.toml).

Everything the rules read about components (colours, strips, window values, the
broken-glass track, ornaments) comes from here; placeholders for unknown printed
values are marked ``reconstructed = true`` in the file and can be replaced by
editing the file only.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtable.core.data import load_toml, require

DATA_PATH = Path(__file__).with_name("data.toml")

NUM_STRIPS = 8
SPACES = 5
NUM_WINDOWS = 8
JOKER = 5  # colour code of a grey joker space


@dataclass(frozen=True)
class SintraData:
    colours: tuple[str, ...]  # names, index = colour code 0..4
    letters: tuple[str, ...]
    panes_per_colour: int
    rounds: int
    panes_per_factory: int
    factories: dict[int, int]  # player count -> factory displays
    window_values: tuple[int, ...]  # 8, left to right
    track: tuple[int, ...]  # broken-glass track, top (0) first, last = -18
    ornaments: tuple[tuple[int, ...], ...]  # 0-based window indices per ornament
    ornament_points: tuple[int, ...]  # by number of filled fields 0..4
    # side patterns indexed by code = strip * 2 + side; colour codes, JOKER for joker spaces
    patterns: tuple[tuple[int, ...], ...]
    joker_code: int  # the code of the (single) joker side
    reconstructed: tuple[str, ...]  # names of the placeholder tables ("colour_names": some names)
    reconstructed_colours: tuple[str, ...]  # colour names that are placeholders


def load(path: str | Path = DATA_PATH) -> SintraData:
    raw: dict[str, Any] = load_toml(path)

    cols = raw.get("colours")
    require(isinstance(cols, list) and len(cols) == 5,
            "colours must list exactly 5 glass colours", path)
    names, letters, placeholder_names = [], [], []
    for i, c in enumerate(cols):
        require(isinstance(c, dict) and isinstance(c.get("name"), str)
                and isinstance(c.get("letter"), str) and len(c["letter"]) == 1,
                f"colour {i + 1} must have a name and a one-letter letter", path)
        require(isinstance(c.get("reconstructed", False), bool),
                f"colour {i + 1}: reconstructed must be true or false", path)
        names.append(c["name"])
        letters.append(c["letter"].upper())
        if c.get("reconstructed", False):
            placeholder_names.append(c["name"])
    require(len(set(names)) == 5 and len(set(letters)) == 5,
            "colour names and letters must be distinct", path)
    joker = str(raw.get("joker_letter", "")).upper()
    require(len(joker) == 1 and joker not in letters,
            "joker_letter must be one letter that is not a colour letter", path)

    ppc = raw.get("panes_per_colour")
    require(isinstance(ppc, int) and ppc > 0, "panes_per_colour must be a positive integer", path)
    rounds = raw.get("rounds")
    require(isinstance(rounds, int) and rounds == 6, "rounds must be 6", path)
    ppf = raw.get("panes_per_factory")
    require(isinstance(ppf, int) and ppf > 0, "panes_per_factory must be a positive integer", path)

    fac_raw = raw.get("factories", {})
    require(isinstance(fac_raw, dict), "[factories] must map player counts to factory displays", path)
    factories: dict[int, int] = {}
    for k, v in fac_raw.items():
        require(str(k).isdigit() and isinstance(v, int) and v > 0,
                f"factories: {k!r} = {v!r} is not 'players = displays'", path)
        factories[int(k)] = v
    require(sorted(factories) == [2, 3, 4], "factories must give the displays for 2, 3 and 4 players", path)

    win = raw.get("windows", {}).get("values")
    require(isinstance(win, list) and len(win) == NUM_WINDOWS
            and all(isinstance(v, int) and v >= 0 for v in win),
            f"windows.values must hold {NUM_WINDOWS} non-negative integers (one per window), got {win!r}",
            path)

    track = raw.get("broken_glass", {}).get("track")
    require(isinstance(track, list) and len(track) >= 2 and all(isinstance(v, int) for v in track),
            "broken_glass.track must be a list of integers", path)
    require(track[0] == 0, "broken_glass.track must start with the top space 0", path)
    require(track[-1] == -18, f"broken_glass.track must end at -18, ends at {track[-1]}", path)
    require(all(a >= b for a, b in itertools.pairwise(track)),
            "broken_glass.track must go down (each space no better than the one above)", path)

    orn = raw.get("ornaments", {}).get("windows")
    require(isinstance(orn, list) and len(orn) == 4,
            "ornaments.windows must list the 4 ornaments of palace side A", path)
    ornaments = []
    for i, pair in enumerate(orn):
        require(isinstance(pair, list) and len(pair) == 2
                and all(isinstance(w, int) and 1 <= w <= NUM_WINDOWS for w in pair)
                and pair[0] != pair[1],
                f"ornament {i + 1} must name 2 different windows 1..{NUM_WINDOWS}, got {pair!r}", path)
        ornaments.append(tuple(w - 1 for w in pair))

    op = raw.get("ornament_points", {}).get("by_filled")
    require(isinstance(op, list) and len(op) == 5 and all(isinstance(v, int) for v in op),
            "ornament_points.by_filled must give 5 values (0..4 filled fields)", path)

    sides = raw.get("strips", {}).get("sides")
    require(isinstance(sides, list) and len(sides) == NUM_STRIPS,
            f"strips.sides must hold {NUM_STRIPS} strips, got "
            f"{len(sides) if isinstance(sides, list) else sides!r}", path)
    code_of = {letter: i for i, letter in enumerate(letters)}
    code_of[joker] = JOKER
    patterns: list[tuple[int, ...]] = []
    for s, strip in enumerate(sides):
        require(isinstance(strip, list) and len(strip) == 2,
                f"strip {s + 1} must have 2 sides", path)
        for side, text in enumerate(strip):
            spaces = str(text).upper().split()
            require(len(spaces) == SPACES,
                    f"strip {s + 1} side {'AB'[side]} must have {SPACES} spaces, has {len(spaces)}", path)
            for sp in spaces:
                require(sp in code_of, f"strip {s + 1} side {'AB'[side]}: unknown space {sp!r}", path)
            patterns.append(tuple(code_of[sp] for sp in spaces))
    joker_sides = [code for code, pat in enumerate(patterns) if JOKER in pat]
    require(len(joker_sides) == 1,
            f"exactly one strip side of the set must show joker spaces, found {len(joker_sides)}", path)
    require(patterns[joker_sides[0]].count(JOKER) == 2,
            "the joker side must show exactly 2 grey joker spaces", path)

    reconstructed = tuple(
        name for name in ("windows", "broken_glass", "ornaments", "strips", "ornament_points")
        if isinstance(raw.get(name), dict) and raw[name].get("reconstructed") is True
    ) + (("colour_names",) if placeholder_names else ())
    return SintraData(
        colours=tuple(names),
        letters=tuple(letters),
        panes_per_colour=ppc,
        rounds=rounds,
        panes_per_factory=ppf,
        factories=factories,
        window_values=tuple(win),
        track=tuple(track),
        ornaments=tuple(ornaments),
        ornament_points=tuple(op),
        patterns=tuple(patterns),
        joker_code=joker_sides[0],
        reconstructed=reconstructed,
        reconstructed_colours=tuple(placeholder_names),
    )


DATA = load()
