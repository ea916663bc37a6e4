"""Load and validate Diamonds Club's data.toml into flat, precomputed tables."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtable.core.data import load_toml
from gemtable.core.errors import DataError

DATA_PATH = Path(__file__).with_name("data.toml")

# market goods kinds (the first element of a space's (kind, value) code)
PIT, MINE, SHIP, HAT, ANIMAL, TRACK = range(6)
KIND_NAMES = ("pit", "mine", "ship", "hat", "animal", "track")
TRACKS = ("forest", "tech", "money")
ANY_TRACK = 3  # track:any


@dataclass(frozen=True)
class Board:
    index: int
    name: str
    kind: str  # "building", "any_tile", "forest"
    tile: int  # building index for kind "building", else -1
    gems: tuple[int, int, int, int]  # required gems of given colours
    any: int  # gems of any colour
    pair: bool  # 2 gems of one colour
    reconstructed: bool

    @property
    def base_price(self) -> int:
        return sum(self.gems) + self.any + (2 if self.pair else 0)


@dataclass(frozen=True)
class Data:
    colours: tuple[str, ...]
    buildings: tuple[str, ...]
    animals: tuple[str, ...]
    start_coins: int
    start_gems: tuple[int, ...]
    pieces_per_player: int
    tiles_per_building: int
    tiles_per_animal: int
    closed_strips: int
    last_space: int
    light_spaces: int
    dark_spaces: int
    mandatory: tuple[int, ...]
    forest_vp: tuple[int, ...]
    money_coins: tuple[int, ...]
    money_vp: tuple[int, ...]
    tech_gems: tuple[int, ...]
    tech_diamonds: tuple[int, ...]
    tech_vp: tuple[int, ...]
    building_vp: int
    animal_set_vp: int
    single_animal_vp: int
    three_vp: int
    all_four_vp: tuple[int, ...]
    five_vp: tuple[int, ...]
    boards: tuple[Board, ...]
    spaces_per_strip: int
    # strips[colour][strip][face][space] -> tuple of the space's (kind, value) goods codes
    # (one or more: a player buying the space gets all of them); colour 0 dark, 1 light
    strips: tuple[tuple[tuple[tuple[tuple[tuple[int, int], ...], ...], ...], ...], ...]
    strip_text: tuple[tuple[tuple[str, ...], ...], ...]
    reconstructed: tuple[str, ...]  # names of placeholder tables

    @property
    def board_pieces(self) -> int:
        """Pieces a player can put on price boards in one round."""
        return self.pieces_per_player - len(TRACKS) - 1


def _get(table: dict, key: str, kind: type | tuple, where: str, path: Path) -> Any:
    if key not in table:
        raise DataError(f"{path.name}: [{where}] is missing {key!r}")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise DataError(f"{path.name}: [{where}] {key} must be {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def _int_list(table: dict, key: str, where: str, path: Path, length: int | None = None, minimum: int = 0) -> tuple[int, ...]:
    value = _get(table, key, list, where, path)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in value):
        raise DataError(f"{path.name}: [{where}] {key} must be a list of integers >= {minimum}, got {value!r}")
    if length is not None and len(value) != length:
        raise DataError(f"{path.name}: [{where}] {key} must have {length} entries, got {len(value)}")
    return tuple(value)


def _parse_token(token: str, colours, animals, where: str, path: Path) -> tuple[int, int]:
    kind, sep, arg = token.partition(":")
    bad = f"{path.name}: {where}: bad market space {token!r}"
    if not sep:
        raise DataError(bad + " (expected kind:value)")
    if kind == "pit":
        if arg not in colours:
            raise DataError(bad + f" (pit colour must be one of {', '.join(colours)})")
        return (PIT, colours.index(arg))
    if kind in ("mine", "ship", "hat"):
        if not arg.isdigit() or not 1 <= int(arg) <= 9:
            raise DataError(bad + " (value must be a number 1-9)")
        return ({"mine": MINE, "ship": SHIP, "hat": HAT}[kind], int(arg))
    if kind == "animal":
        if arg not in animals:
            raise DataError(bad + f" (animal must be one of {', '.join(animals)})")
        return (ANIMAL, animals.index(arg))
    if kind == "track":
        names = TRACKS + ("any",)
        if arg not in names:
            raise DataError(bad + f" (track must be one of {', '.join(names)})")
        return (TRACK, names.index(arg))
    raise DataError(bad + " (kind must be pit, mine, ship, hat, animal or track)")


def _face_spaces(face: Any, where: str, path: Path) -> list[list[str]]:
    """The spaces of one strip face, each a list of goods tokens.

    A face is either one string (spaces separated by blanks, several goods of one space
    joined by ``+``) or a list with one entry per space (a token string, ``+`` allowed, or a
    list of tokens)."""
    if isinstance(face, str):
        entries: list[Any] = face.split()
    elif isinstance(face, list):
        entries = face
    else:
        raise DataError(f"{path.name}: {where} must be a string or a list of spaces, got {face!r}")
    spaces = []
    for k, entry in enumerate(entries):
        if isinstance(entry, str):
            tokens = entry.split("+")
        elif isinstance(entry, list) and all(isinstance(t, str) for t in entry):
            tokens = list(entry)
        else:
            raise DataError(f"{path.name}: {where} space {k + 1} must be a goods string or a list of them, got {entry!r}")
        tokens = [t.strip() for t in tokens]
        if not tokens or not all(tokens):
            raise DataError(f"{path.name}: {where} space {k + 1} has an empty goods entry ({entry!r})")
        spaces.append(tokens)
    return spaces


def load(path: str | Path = DATA_PATH) -> Data:
    path = Path(path)
    raw = load_toml(path)
    recon: list[str] = []

    setup = _get(raw, "setup", dict, "top level", path)
    colours = tuple(_get(setup, "gem_colours", list, "setup", path))
    if len(colours) != 4 or len(set(colours)) != 4:
        raise DataError(f"{path.name}: [setup] gem_colours must be 4 different colours")
    start_coins = _get(setup, "coins", int, "setup", path)
    start_gems = _int_list(setup, "gems", "setup", path, 4)
    pieces = _get(setup, "pieces_per_player", int, "setup", path)
    if pieces < 5:
        raise DataError(f"{path.name}: [setup] pieces_per_player must be at least 5 (3 tracks, start track, a board)")

    comp = _get(raw, "components", dict, "top level", path)
    buildings = tuple(_get(comp, "buildings", list, "components", path))
    if len(buildings) != 4 or len(set(buildings)) != 4:
        raise DataError(f"{path.name}: [components] buildings must name 4 different buildings")
    animals = tuple(_get(comp, "animals", list, "components", path))
    if len(animals) != 3 or len(set(animals)) != 3:
        raise DataError(f"{path.name}: [components] animals must name 3 different animals")
    tiles_b = _get(comp, "tiles_per_building", int, "components", path)
    tiles_a = _get(comp, "tiles_per_animal", int, "components", path)
    closed = _get(comp, "closed_market_strips", int, "components", path)

    st = _get(raw, "start_track", dict, "top level", path)
    last_space = _get(st, "last_space", int, "start_track", path)
    if last_space < 3:
        raise DataError(f"{path.name}: [start_track] last_space must be at least 3 (4 pieces start on 0-3)")

    tab = _get(raw, "tableau", dict, "top level", path)
    light = _get(tab, "light_spaces", int, "tableau", path)
    dark = _get(tab, "dark_spaces", int, "tableau", path)
    mand_names = _get(tab, "mandatory", list, "tableau", path)
    for m in mand_names:
        if m not in buildings:
            raise DataError(f"{path.name}: [tableau] mandatory space {m!r} is not a building ({', '.join(buildings)})")
    if not 0 <= len(mand_names) <= min(light, 8):
        raise DataError(f"{path.name}: [tableau] too many mandatory spaces")
    if tab.get("reconstructed"):
        recon.append("tableau")

    tracks = _get(raw, "tracks", dict, "top level", path)
    forest = _get(tracks, "forest", dict, "tracks", path)
    forest_vp = _int_list(forest, "vp_per_forest", "tracks.forest", path)
    money = _get(tracks, "money", dict, "tracks", path)
    money_coins = _int_list(money, "coins", "tracks.money", path)
    money_vp = _int_list(money, "vp", "tracks.money", path, len(money_coins))
    if money_coins[0] != start_coins:
        raise DataError(f"{path.name}: [tracks.money] coins must start at the starting coins ({start_coins})")
    if list(money_coins) != sorted(money_coins):
        raise DataError(f"{path.name}: [tracks.money] coins must not decrease down the track")
    tech = _get(tracks, "tech", dict, "tracks", path)
    tech_gems = _int_list(tech, "extra_gems", "tracks.tech", path)
    tech_dia = _int_list(tech, "extra_diamonds", "tracks.tech", path, len(tech_gems))
    tech_vp = _int_list(tech, "vp", "tracks.tech", path, len(tech_gems))
    if tech.get("reconstructed"):
        recon.append("tracks.tech")
    for name, table in (("forest", forest), ("money", money)):
        if table.get("reconstructed"):
            recon.append(f"tracks.{name}")
    if not forest_vp or not money_coins or not tech_gems:
        raise DataError(f"{path.name}: [tracks] every track needs at least one space")

    sc = _get(raw, "scoring", dict, "top level", path)
    building_vp = _get(sc, "building", int, "scoring", path)
    set_vp = _get(sc, "animal_set", int, "scoring", path)
    single_vp = _get(sc, "single_animal", int, "scoring", path)

    bonus = _get(raw, "bonus", dict, "top level", path)
    three_vp = _get(bonus, "three_of_a_kind", int, "bonus", path)
    all_four = _int_list(bonus, "all_four", "bonus", path)
    five = _int_list(bonus, "five_identical", "bonus", path)

    boards_raw = _get(raw, "boards", list, "top level", path)
    if not boards_raw:
        raise DataError(f"{path.name}: at least one [[boards]] price board is needed")
    boards = []
    names = set()
    for i, b in enumerate(boards_raw):
        where = f"boards #{i + 1}"
        name = _get(b, "name", str, where, path)
        if name in names:
            raise DataError(f"{path.name}: [{where}] duplicate price board name {name!r}")
        names.add(name)
        kind = _get(b, "kind", str, where, path)
        if kind not in ("building", "any_tile", "forest"):
            raise DataError(f"{path.name}: [{where}] kind must be building, any_tile or forest, got {kind!r}")
        tile = -1
        if kind == "building":
            tname = _get(b, "tile", str, where, path)
            if tname not in buildings:
                raise DataError(f"{path.name}: [{where}] tile {tname!r} is not a building")
            tile = buildings.index(tname)
        gems = [0, 0, 0, 0]
        for cname, count in dict(b.get("gems", {})).items():
            if cname not in colours:
                raise DataError(f"{path.name}: [{where}] unknown gem colour {cname!r}")
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise DataError(f"{path.name}: [{where}] gem count for {cname} must be a whole number >= 0")
            gems[colours.index(cname)] = count
        any_ = b.get("any", 0)
        if not isinstance(any_, int) or isinstance(any_, bool) or any_ < 0:
            raise DataError(f"{path.name}: [{where}] any must be a whole number >= 0")
        pair = b.get("pair", False)
        if not isinstance(pair, bool):
            raise DataError(f"{path.name}: [{where}] pair must be true or false")
        board = Board(i, name, kind, tile, tuple(gems), any_, pair, bool(b.get("reconstructed")))
        if board.base_price <= 0:
            raise DataError(f"{path.name}: [{where}] price board {name!r} has no price")
        if board.reconstructed:
            recon.append(f"boards.{name}")
        boards.append(board)

    market = _get(raw, "market", dict, "top level", path)
    per = _get(market, "spaces_per_strip", int, "market", path)
    if per < 1:
        raise DataError(f"{path.name}: [market] spaces_per_strip must be positive")
    strips = []
    texts = []
    for ci, colour in enumerate(("dark", "light")):
        lst = _get(market, colour, list, "market", path)
        if len(lst) < 4:
            raise DataError(f"{path.name}: [market] {colour} needs at least 4 strips (one per player), got {len(lst)}")
        col_strips = []
        col_text = []
        for si, strip in enumerate(lst):
            if not isinstance(strip, list) or len(strip) != 2:
                raise DataError(f"{path.name}: [market] {colour} strip {si + 1} must be two faces")
            faces = []
            face_texts = []
            for fi, face in enumerate(strip):
                where = f"[market] {colour} strip {si + 1} face {'ab'[fi]}"
                spaces = _face_spaces(face, where, path)
                if len(spaces) != per:
                    raise DataError(f"{path.name}: {where} has {len(spaces)} spaces, expected {per}")
                faces.append(tuple(
                    tuple(_parse_token(t, colours, animals, where, path) for t in space) for space in spaces
                ))
                face_texts.append(" ".join("+".join(space) for space in spaces))
            col_strips.append(tuple(faces))
            col_text.append(tuple(face_texts))
        strips.append(tuple(col_strips))
        texts.append(tuple(col_text))
    if market.get("reconstructed"):
        recon.append("market")

    return Data(
        colours=colours, buildings=buildings, animals=animals, start_coins=start_coins,
        start_gems=start_gems, pieces_per_player=pieces, tiles_per_building=tiles_b,
        tiles_per_animal=tiles_a, closed_strips=closed, last_space=last_space,
        light_spaces=light, dark_spaces=dark,
        mandatory=tuple(buildings.index(m) for m in mand_names),
        forest_vp=forest_vp, money_coins=money_coins, money_vp=money_vp, tech_gems=tech_gems,
        tech_diamonds=tech_dia, tech_vp=tech_vp, building_vp=building_vp, animal_set_vp=set_vp,
        single_animal_vp=single_vp, three_vp=three_vp, all_four_vp=all_four, five_vp=five,
        boards=tuple(boards), spaces_per_strip=per, strips=tuple(strips),
        strip_text=tuple(texts), reconstructed=tuple(recon),
    )


DATA = load()
