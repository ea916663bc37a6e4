"""Load and validate Splendor's component data (data.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtable.core.data import load_toml, require

DATA_PATH = Path(__file__).with_name("data.toml")


@dataclass(frozen=True)
class Card:
    id: int
    level: int  # 0, 1, 2 (printed as I, II, III)
    bonus: int  # colour index
    points: int
    cost: tuple[int, int, int, int, int]


@dataclass(frozen=True)
class Noble:
    id: int
    points: int
    need: tuple[int, int, int, int, int]


@dataclass(frozen=True)
class SplendorData:
    colours: tuple[str, ...]
    cards: tuple[Card, ...]
    nobles: tuple[Noble, ...]
    gem_tokens: dict[int, int]
    nobles_revealed: dict[int, int]
    gold_tokens: int
    face_up: int
    max_reserved: int
    token_limit: int
    points_to_end: int
    take_two_minimum: int
    reconstructed: bool


def load(path: str | Path = DATA_PATH) -> SplendorData:
    raw: dict[str, Any] = load_toml(path)
    colours = tuple(raw.get("colours", ()))
    require(colours == ("white", "blue", "green", "red", "black"),
            "colours must be white, blue, green, red, black (in that order)", path)
    cards = []
    for i, row in enumerate(raw.get("cards", [])):
        require(isinstance(row, list) and len(row) == 8,
                f"card {i + 1}: expected [level, bonus, points, 5 costs], got {row!r}", path)
        level, bonus, points, *cost = row
        require(level in (1, 2, 3), f"card {i + 1}: level must be 1, 2 or 3", path)
        require(bonus in colours, f"card {i + 1}: unknown bonus colour {bonus!r}", path)
        require(all(isinstance(c, int) and 0 <= c <= 7 for c in cost) and sum(cost) > 0,
                f"card {i + 1}: costs must be integers 0–7, not all zero", path)
        cards.append(Card(i, level - 1, colours.index(bonus), int(points), tuple(cost)))
    nobles = []
    for i, row in enumerate(raw.get("nobles", [])):
        require(isinstance(row, list) and len(row) == 6,
                f"noble {i + 1}: expected [points, 5 requirements], got {row!r}", path)
        nobles.append(Noble(i, int(row[0]), tuple(int(x) for x in row[1:])))
    data = SplendorData(
        colours=colours,
        cards=tuple(cards),
        nobles=tuple(nobles),
        gem_tokens={int(k): int(v) for k, v in raw.get("gem_tokens", {}).items()},
        nobles_revealed={int(k): int(v) for k, v in raw.get("nobles_revealed", {}).items()},
        gold_tokens=int(raw.get("gold_tokens", -1)),
        face_up=int(raw.get("face_up_per_level", -1)),
        max_reserved=int(raw.get("max_reserved", -1)),
        token_limit=int(raw.get("token_limit", -1)),
        points_to_end=int(raw.get("points_to_end", -1)),
        take_two_minimum=int(raw.get("take_two_minimum", -1)),
        reconstructed=bool(raw.get("reconstructed", False)),
    )
    validate(data, path)
    return data


def validate(d: SplendorData, path: str | Path = DATA_PATH) -> None:
    """The checks of reference/splendor.md: counts, colours, points and total costs per level."""
    for level, count in enumerate((40, 30, 20)):
        cards = [c for c in d.cards if c.level == level]
        require(len(cards) == count, f"level {level + 1} must have {count} cards, has {len(cards)}", path)
        per_colour = count // 5
        for colour in range(5):
            k = sum(1 for c in cards if c.bonus == colour)
            require(k == per_colour,
                    f"level {level + 1} must have {per_colour} {d.colours[colour]} cards, has {k}", path)
    expected_points = {0: {0: 35, 1: 5}, 1: {1: 10, 2: 15, 3: 5}, 2: {3: 5, 4: 10, 5: 5}}
    expected_cost = {0: 165, 1: 205, 2: 215}
    for level in range(3):
        cards = [c for c in d.cards if c.level == level]
        hist: dict[int, int] = {}
        for c in cards:
            hist[c.points] = hist.get(c.points, 0) + 1
        require(hist == expected_points[level],
                f"level {level + 1} points distribution {hist} differs from {expected_points[level]}", path)
        total = sum(sum(c.cost) for c in cards)
        require(total == expected_cost[level],
                f"level {level + 1} total printed cost is {total}, expected {expected_cost[level]}", path)
    require(len(d.nobles) == 10, f"there must be 10 nobles, found {len(d.nobles)}", path)
    require(all(n.points == 3 and sum(n.need) in (8, 9) for n in d.nobles),
            "every noble is worth 3 and needs 8 or 9 bonuses", path)
    require(sorted(d.gem_tokens) == [2, 3, 4], "gem_tokens must be given for 2, 3 and 4 players", path)
    require(sorted(d.nobles_revealed) == [2, 3, 4], "nobles_revealed must be given for 2, 3 and 4 players", path)
    require(all(d.nobles_revealed[n] == n + 1 for n in (2, 3, 4)), "players + 1 nobles are revealed", path)
    require(d.gold_tokens == 5, "there are 5 gold tokens", path)
    require(d.face_up == 4 and d.max_reserved == 3 and d.token_limit == 10, "4 face-up, 3 reserved, 10 tokens", path)
    require(d.points_to_end > 0 and d.take_two_minimum > 0, "points_to_end and take_two_minimum must be set", path)
