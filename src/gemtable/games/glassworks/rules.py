"""River Valley Glassworks: the rules (2–5 players).

State layout (flat, cheap to clone):

- a piece is an int ``code = colour * NS + shape``;
- ``bag``: list of codes (its order is hidden information);
- ``river``: tuple of tile ids (a tile id is the shape printed on it), upstream start first,
  the lake after the last one; ``tiles[tile]``: tuple of the pieces lying on that tile;
- ``lake``: sorted tuple of codes; ``satchels[p]``: sorted tuple of codes;
- ``colcol[p * NCOL + c]``: colour of column c of seat p (-1 unused), ``colh[...]`` its height;
- ``overflow[p]``: tuple of colours; ``inventory[p]``: the inventory count.

A turn is one or more decisions (``phase``): MAIN (place in the river or draw from the lake),
GATHER (which adjacent tile), ORDER (which new colour opens the next column), OVERFLOW (which
satchel piece goes to overflow).  A decision with a single possible choice is taken
automatically and logged.
"""

from __future__ import annotations

from typing import Any

from gemtable.core import Action, ActionSpace, Game, Rng, State
from gemtable.core.i18n import Message, msg, msgn, render

from . import labels as L
from .data import DATA

GAME_ID = "glassworks"

COLOURS = DATA.colours
SHAPES = DATA.shapes
NC = len(COLOURS)
NS = len(SHAPES)
NCOL = DATA.columns
NROW = DATA.rows
STONES = DATA.stones
VALUES = DATA.values
ROW_TRACK = DATA.row_track
CAPACITY = DATA.satchel_capacity
LAKE_SIZE = DATA.lake_size
LAKE_TAKE = DATA.lake_take
TRIGGER = DATA.end_trigger
TOP_UP = DATA.end_top_up
PENALTY = DATA.overflow_penalty

COLOUR_OF = tuple(code // NS for code in range(NC * NS))
SHAPE_OF = tuple(code % NS for code in range(NC * NS))
PIECE_NAME = tuple(f"{COLOURS[code // NS]} {SHAPES[code % NS]}" for code in range(NC * NS))


def _a(word: str) -> str:
    """The word with its indefinite article ("an orange moon")."""
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


A_PIECE = tuple(_a(name) for name in PIECE_NAME)

MAIN, GATHER, ORDER, OVERFLOW, OVER = range(5)
PHASE_NAMES = ("main", "gather", "order", "overflow", "over")

# -- the action space ------------------------------------------------------------------
# INFO[action.id] = (kind, a, b, c) decodes an action in the hot path.
K_PLACE, K_PAIR, K_GATHER, K_COLUMN, K_LAKE, K_LAKE_ALL, K_OVERFLOW, K_PASS = range(8)

ACTIONS = ActionSpace(GAME_ID)
INFO: list[tuple[int, int, int, int]] = []


def _add(kind: int, a: int, b: int, c: int, type: str, text: str, **args: Any) -> Action:
    action = ACTIONS.add(type, text, **args)
    INFO.append((kind, a, b, c))
    return action


PLACE_ACT = tuple(
    _add(K_PLACE, code, -1, -1, "place", f"place {A_PIECE[code]} on the {SHAPES[code % NS]} tile",
         colour=COLOURS[code // NS], shape=SHAPES[code % NS])
    for code in range(NC * NS)
)
# PAIR_ACT[(c1, c2, shape, tile)] with c1 <= c2
PAIR_ACT: dict[tuple[int, int, int, int], Action] = {}
for _s in range(NS):
    for _c1 in range(NC):
        for _c2 in range(_c1, NC):
            for _t in range(NS):
                _pieces = (
                    f"two {COLOURS[_c1]} {SHAPES[_s]}s" if _c1 == _c2
                    else f"{_a(COLOURS[_c1])} and {_a(COLOURS[_c2])} {SHAPES[_s]}"
                )
                PAIR_ACT[(_c1, _c2, _s, _t)] = _add(
                    K_PAIR, _c1 * NS + _s, _c2 * NS + _s, _t, "place_pair",
                    f"place {_pieces} on the {SHAPES[_t]} tile",
                    colours=(COLOURS[_c1], COLOURS[_c2]), shape=SHAPES[_s], tile=SHAPES[_t],
                )
GATHER_ACT = tuple(
    _add(K_GATHER, t, -1, -1, "gather", f"gather the {SHAPES[t]} tile", tile=SHAPES[t]) for t in range(NS)
)
COLUMN_ACT = tuple(
    _add(K_COLUMN, c, -1, -1, "column", f"open the next column with {COLOURS[c]}", colour=COLOURS[c])
    for c in range(NC)
)
LAKE_ACT = tuple(
    _add(K_LAKE, code, -1, -1, "lake", f"draw {LAKE_TAKE} from the lake, leaving the {PIECE_NAME[code]}",
         leave_colour=COLOURS[code // NS], leave_shape=SHAPES[code % NS])
    for code in range(NC * NS)
)
LAKE_ALL_ACT = _add(K_LAKE_ALL, -1, -1, -1, "lake_all", "draw every piece left in the lake")
OVERFLOW_ACT = tuple(
    _add(K_OVERFLOW, code, -1, -1, "overflow", f"put the {PIECE_NAME[code]} from the satchel in overflow",
         colour=COLOURS[code // NS], shape=SHAPES[code % NS])
    for code in range(NC * NS)
)
PASS_ACT = _add(K_PASS, -1, -1, -1, "pass", "pass (no legal action)")
INFO_T = tuple(INFO)


def action_message(action: Action) -> Message:
    """An action's plain text (``action.text``) as a message."""
    kind, a, b, c = INFO_T[action.id]
    if kind == K_PLACE:
        return msg("place {piece} on the {tile}", piece=L.a_piece(a), tile=L.TILE[SHAPE_OF[a]])
    if kind == K_PAIR:
        return msg("place {pieces} on the {tile}", pieces=L.pair(COLOUR_OF[a], COLOUR_OF[b], SHAPE_OF[a]),
                   tile=L.TILE[c])
    if kind == K_GATHER:
        return msg("gather the {tile}", tile=L.TILE[a])
    if kind == K_COLUMN:
        return msg("open the next column with {colour}", colour=L.COLOUR[a])
    if kind == K_LAKE:
        return msg("draw {count} from the lake, leaving {piece}", count=LAKE_TAKE, piece=L.the_piece(a))
    if kind == K_LAKE_ALL:
        return msg("draw every piece left in the lake")
    if kind == K_OVERFLOW:
        return msg("put {piece} from the satchel in overflow", piece=L.the_piece(a))
    return msg("pass (no legal action)")

# Caches of the MAIN-phase actions by satchel (one per pair rule) and by lake content
# (pure functions of them).
_PLACE_CACHE: tuple[dict[tuple[int, ...], list[Action]], ...] = ({}, {})
_LAKE_CACHE: dict[tuple[int, ...], list[Action]] = {}
_CACHE_LIMIT = 50_000


# PAIR_TILES[own][(a, b)]: the placements of pieces a <= b (same shape) as one piece.
# own = 0 (the rules summary): on the river tile of any *other* shape; own = 1 (option
# pair_on_own_tile): on any river tile, the tile of their own shape included.
PAIR_TILES: tuple[dict[tuple[int, int], tuple[Action, ...]], ...] = tuple(
    {
        (c1 * NS + s, c2 * NS + s): tuple(PAIR_ACT[(c1, c2, s, t)] for t in range(NS) if own or t != s)
        for (c1, c2, s, t) in PAIR_ACT
        if t == 0
    }
    for own in (0, 1)
)


def place_actions(satchel: tuple[int, ...], own: bool = False) -> list[Action]:
    """Every placement a satchel allows (satchel: sorted tuple of codes); ``own``: a pair
    may also go on the tile of its own shape (option pair_on_own_tile)."""
    cache = _PLACE_CACHE[own]
    acts = cache.get(satchel)
    if acts is not None:
        return acts
    pair_tiles = PAIR_TILES[own]
    acts = []
    prev = -1
    for code in satchel:
        if code != prev:
            acts.append(PLACE_ACT[code])
            prev = code
    n = len(satchel)
    seen = set()
    for i in range(n - 1):
        a = satchel[i]
        sa = SHAPE_OF[a]
        for j in range(i + 1, n):
            b = satchel[j]
            if SHAPE_OF[b] == sa and (a, b) not in seen:  # sorted: a <= b
                seen.add((a, b))
                acts.extend(pair_tiles[(a, b)])
    if len(cache) > _CACHE_LIMIT:
        cache.clear()
    cache[satchel] = acts
    return acts


def lake_actions(lake: tuple[int, ...]) -> list[Action]:
    """The lake draws a lake allows (lake: sorted tuple of codes, not empty)."""
    acts = _LAKE_CACHE.get(lake)
    if acts is not None:
        return acts
    if len(lake) <= LAKE_TAKE:
        acts = [LAKE_ALL_ACT]
    else:
        acts = [LAKE_ACT[code] for code in sorted(set(lake))]
    if len(_LAKE_CACHE) > _CACHE_LIMIT:
        _LAKE_CACHE.clear()
    _LAKE_CACHE[lake] = acts
    return acts


# the full bag without / with the 5-player-only colours
_BAG = tuple(
    tuple(c * NS + sh for c in DATA.colours_for(k) for sh in range(NS) for _ in range(DATA.pieces[c][sh]))
    for k in (4, 5)
)


def _remove(items: tuple[int, ...], code: int) -> tuple[int, ...]:
    i = items.index(code)
    return items[:i] + items[i + 1:]


def _insert(items: tuple[int, ...], codes) -> tuple[int, ...]:
    return tuple(sorted(items + tuple(codes)))


def row_runs(heights) -> list[int]:
    """For each row from the bottom, how many columns from the left reach it unbroken."""
    runs = []
    for h in range(1, NROW + 1):
        run = 0
        for height in heights:
            if height >= h:
                run += 1
            else:
                break
        runs.append(run)
    return runs


def row_points(heights) -> int:
    """Row-track points of a glassworks given its column heights (left to right)."""
    return sum(ROW_TRACK[run] for run in row_runs(heights))


def column_points(heights) -> int:
    """Points of the two tallest columns (ties in height: the leftmost ones)."""
    order = sorted(range(len(heights)), key=lambda c: (-heights[c], c))[:2]
    return sum(VALUES[c][heights[c] - 1] for c in order if heights[c] > 0)


def score_of(heights, overflow_count: int) -> int:
    return row_points(heights) + column_points(heights) - PENALTY * overflow_count


class GlassworksState(State):
    # explicit chance: piece codes (bag draws) and river tile ids (the river shuffle)
    chance_outcomes_bound = max(NS, *(max(bag) + 1 for bag in _BAG))
    __slots__ = (
        "game", "num_players", "rng", "turn", "overflow_counts", "pair_own", "colours",
        "bag", "river", "tiles", "lake", "satchels", "colcol", "colh", "overflow", "inventory",
        "current", "phase", "placed", "gathered", "pending", "end_turn", "passes",
    )

    # -- construction ---------------------------------------------------------------
    @classmethod
    def initial(cls, game: Game, num_players: int, rng: Rng, options: dict[str, Any]) -> "GlassworksState":
        s = cls.__new__(cls)
        s.game = game
        s.num_players = n = num_players
        s.rng = rng
        s.turn = 0
        s.overflow_counts = bool(options.get("overflow_counts_toward_end", True))
        s.pair_own = bool(options.get("pair_on_own_tile", False))
        s.colours = DATA.colours_for(n)
        s.bag = list(_BAG[n == 5])
        river = list(range(NS))
        rng.shuffle(river)
        s.river = tuple(river)
        s.tiles = [()] * NS
        for t in river:
            s.tiles[t] = s._draw_up_to(STONES[t])
        s.lake = tuple(sorted(s._draw_up_to(LAKE_SIZE)))
        s.satchels = [tuple(sorted(s._draw_up_to(DATA.setup_satchel))) for _ in range(n)]
        s.colcol = [-1] * (n * NCOL)
        s.colh = [0] * (n * NCOL)
        s.overflow = [()] * n
        s.inventory = [0] * n
        s.current = 0
        s.phase = MAIN
        s.placed = -1
        s.gathered = -1
        s.pending = ()
        s.end_turn = -1
        s.passes = 0
        return s

    def clone(self) -> "GlassworksState":
        s = GlassworksState.__new__(GlassworksState)
        s.game = self.game
        s.num_players = self.num_players
        s.rng = self.rng.clone()
        s.turn = self.turn
        s.overflow_counts = self.overflow_counts
        s.pair_own = self.pair_own
        s.colours = self.colours
        s.bag = self.bag[:]
        s.river = self.river
        s.tiles = self.tiles[:]
        s.lake = self.lake
        s.satchels = self.satchels[:]
        s.colcol = self.colcol[:]
        s.colh = self.colh[:]
        s.overflow = self.overflow[:]
        s.inventory = self.inventory[:]
        s.current = self.current
        s.phase = self.phase
        s.placed = self.placed
        s.gathered = self.gathered
        s.pending = self.pending
        s.end_turn = self.end_turn
        s.passes = self.passes
        return s

    def to_json(self) -> dict[str, Any]:
        return {
            "num_players": self.num_players,
            "rng": self.rng.s,
            "turn": self.turn,
            "overflow_counts_toward_end": self.overflow_counts,
            "pair_on_own_tile": self.pair_own,
            "bag": list(self.bag),
            "river": list(self.river),
            "tiles": [list(t) for t in self.tiles],
            "lake": list(self.lake),
            "satchels": [list(x) for x in self.satchels],
            "colcol": list(self.colcol),
            "colh": list(self.colh),
            "overflow": [list(x) for x in self.overflow],
            "inventory": list(self.inventory),
            "current": self.current,
            "phase": self.phase,
            "placed": self.placed,
            "gathered": self.gathered,
            "pending": list(self.pending),
            "end_turn": self.end_turn,
            "passes": self.passes,
        }

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> "GlassworksState":
        s = cls.__new__(cls)
        s.game = game
        s.num_players = n = int(data["num_players"])
        s.rng = Rng(int(data["rng"]))
        s.turn = int(data["turn"])
        s.overflow_counts = bool(data["overflow_counts_toward_end"])
        # saved before the option existed: the default (the rules summary)
        s.pair_own = bool(data.get("pair_on_own_tile", False))
        s.colours = DATA.colours_for(n)
        s.bag = [int(x) for x in data["bag"]]
        s.river = tuple(int(x) for x in data["river"])
        s.tiles = [tuple(int(x) for x in t) for t in data["tiles"]]
        s.lake = tuple(int(x) for x in data["lake"])
        s.satchels = [tuple(int(x) for x in sat) for sat in data["satchels"]]
        s.colcol = [int(x) for x in data["colcol"]]
        s.colh = [int(x) for x in data["colh"]]
        s.overflow = [tuple(int(x) for x in o) for o in data["overflow"]]
        s.inventory = [int(x) for x in data["inventory"]]
        s.current = int(data["current"])
        s.phase = int(data["phase"])
        s.placed = int(data["placed"])
        s.gathered = int(data["gathered"])
        s.pending = tuple(int(x) for x in data["pending"])
        s.end_turn = int(data["end_turn"])
        s.passes = int(data["passes"])
        return s

    # -- chance ------------------------------------------------------------------------
    def _draw_up_to(self, k: int) -> tuple[int, ...]:
        """Up to k pieces drawn blind from the bag (fewer if it runs out)."""
        bag = self.bag
        draw = self.rng.draw_blind
        out = []
        for _ in range(k):
            if not bag:
                break
            out.append(draw(bag))
        return tuple(out)

    # -- turn flow ---------------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.current,)

    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def end_triggered(self) -> bool:
        return self.end_turn >= 0

    def gather_options(self) -> list[int]:
        """River tiles next to the tile just placed on (never the lake)."""
        river = self.river
        i = river.index(self.placed)
        out = []
        if i > 0:
            out.append(river[i - 1])
        if i < NS - 1:
            out.append(river[i + 1])
        return out

    def free_column(self, p: int) -> int:
        """Index of the leftmost unused column of seat p, -1 if none."""
        base = p * NCOL
        colcol = self.colcol
        for c in range(NCOL):
            if colcol[base + c] < 0:
                return c
        return -1

    def column_of(self, p: int, colour: int) -> int:
        base = p * NCOL
        colcol = self.colcol
        for c in range(NCOL):
            if colcol[base + c] == colour:
                return c
        return -1

    def legal_actions(self, player: int) -> list[Action]:
        phase = self.phase
        if phase == OVER or player != self.current:
            return []
        if phase == MAIN:
            satchel = self.satchels[player]
            acts = place_actions(satchel, self.pair_own) if satchel else []
            if self.end_turn < 0 and self.lake:
                acts = acts + lake_actions(self.lake)
            return acts if acts else [PASS_ACT]
        if phase == GATHER:
            return [GATHER_ACT[t] for t in self.gather_options()]
        if phase == ORDER:
            return [COLUMN_ACT[c] for c in sorted(set(self.pending))]
        # OVERFLOW
        return [OVERFLOW_ACT[code] for code in sorted(set(self.satchels[player]))]

    def _apply(self, player: int, action: Action, log: list | None) -> None:
        kind, a, b, c = INFO_T[action.id]
        done = False
        if kind == K_PLACE:
            self.satchels[player] = _remove(self.satchels[player], a)
            self.tiles[SHAPE_OF[a]] = self.tiles[SHAPE_OF[a]] + (a,)
            if log is not None:
                log.append(self._event(player, "place", msg(
                    "{player} places {piece} on the {tile}.", player=L.seat(player), piece=L.a_piece(a),
                    tile=L.TILE[SHAPE_OF[a]]), pieces=[PIECE_NAME[a]], tile=SHAPES[SHAPE_OF[a]]))
            done = self._after_place(player, SHAPE_OF[a], log)
        elif kind == K_PAIR:
            sat = _remove(self.satchels[player], a)
            self.satchels[player] = _remove(sat, b)
            self.tiles[c] = self.tiles[c] + (a, b)
            if log is not None:
                log.append(self._event(player, "place", msg(
                    "{player} places {first} and {second} as one piece on the {tile}.", player=L.seat(player),
                    first=L.a_piece(a), second=L.a_piece(b), tile=L.TILE[c]),
                    pieces=[PIECE_NAME[a], PIECE_NAME[b]], tile=SHAPES[c]))
            done = self._after_place(player, c, log)
        elif kind == K_GATHER:
            done = self._gather(player, a, log)
        elif kind == K_COLUMN:
            done = self._open_column(player, a, log)
        elif kind == K_LAKE or kind == K_LAKE_ALL:
            lake = self.lake
            if kind == K_LAKE:
                taken = _remove(lake, a)
                self.lake = (a,)
            else:
                taken = lake
                self.lake = ()
            self.satchels[player] = _insert(self.satchels[player], taken)
            if log is not None:
                log.append(self._event(player, "lake", msg(
                    "{player} draws from the lake: {pieces}.", player=L.seat(player), pieces=L.pieces(taken)),
                    pieces=[PIECE_NAME[x] for x in taken]))
            done = self._satchel_overflow(player, log)
        elif kind == K_OVERFLOW:
            self.satchels[player] = _remove(self.satchels[player], a)
            self._to_overflow(player, COLOUR_OF[a])
            if log is not None:
                log.append(self._event(player, "overflow", msg(
                    "{player} puts {piece} from the full satchel in overflow.", player=L.seat(player),
                    piece=L.a_piece(a)), pieces=[PIECE_NAME[a]]))
            done = self._satchel_overflow(player, log)
        else:  # K_PASS
            self.passes += 1
            if log is not None:
                log.append(self._event(player, "pass", msg("{player} has no legal action and passes.",
                                                           player=L.seat(player))))
            done = True
        if kind != K_PASS:
            self.passes = 0
        if self.end_turn < 0 and max(self.inventory) >= TRIGGER:
            self._trigger_end(log)
        if done:
            self._end_turn(log)

    def is_checkpoint(self, player: int, action: Action) -> bool:
        """Only blind draws from the bag are hidden: the river refill when a turn's gathering
        is done, the lake refill after a lake draw, and the satchel top-ups when the end is
        triggered.  With an empty bag nothing is drawn; otherwise the action is a checkpoint
        exactly when one of those happens during it."""
        if not self.bag:
            return False
        kind, a, b, c = INFO_T[action.id]
        p = player
        if kind == K_PASS:
            return False
        if kind == K_LAKE or kind == K_LAKE_ALL:
            satchel = self.satchels[p] + (self.lake if kind == K_LAKE_ALL else _remove(self.lake, a))
            # several kinds over capacity: the player first chooses what goes to overflow
            return len(satchel) <= CAPACITY or len(set(satchel)) == 1
        if kind == K_OVERFLOW:
            satchel = _remove(self.satchels[p], a)
            if len(satchel) <= CAPACITY or len(set(satchel)) == 1:
                return True  # the satchel fits now: the lake is refilled
            gain = 1 if self.overflow_counts else 0
            return self._triggers_top_up(p, gain, {p: satchel})
        sizes: dict[int, tuple[int, ...]] = {}
        if kind == K_PLACE or kind == K_PAIR:
            tile = SHAPE_OF[a] if kind == K_PLACE else c
            river = self.river
            i = river.index(tile)
            options = [river[j] for j in (i - 1, i + 1) if 0 <= j < NS]
            if len(options) > 1:
                return False  # the player chooses where to gather next: nothing happens yet
            sizes[p] = _remove(self.satchels[p], a) if kind == K_PLACE else _remove(_remove(self.satchels[p], a), b)
            done, gain = self._gather_outcome(p, [COLOUR_OF[x] for x in self.tiles[options[0]]], -1)
        elif kind == K_GATHER:
            done, gain = self._gather_outcome(p, [COLOUR_OF[x] for x in self.tiles[a]], -1)
        else:  # K_COLUMN
            done, gain = self._gather_outcome(p, list(self.pending), a)
        return done or self._triggers_top_up(p, gain, sizes)

    def _gather_outcome(self, p: int, colours: list[int], opening: int) -> tuple[bool, int]:
        """Gathered colours (or, with ``opening`` >= 0, the pending ones after that colour opens
        the next column): does the turn's gathering finish (then the river flows and is
        refilled)?  And by how much does the inventory grow on the way?"""
        base = p * NCOL
        cols = self.colcol[base:base + NCOL]
        heights = self.colh[base:base + NCOL]
        counts = self.overflow_counts
        gain = 0

        def put(col: int) -> int:
            if heights[col] < NROW:
                heights[col] += 1
                return 1
            return 1 if counts else 0

        if opening >= 0:
            pending = colours
            colours = []
            first = cols.index(-1)
            cols[first] = opening
            for x in pending:
                if x == opening:
                    gain += put(first)
                else:
                    colours.append(x)
        pending = []
        for x in colours:
            if opening < 0 and x in cols:
                gain += put(cols.index(x))
            else:
                pending.append(x)
        while pending:
            if -1 not in cols:
                return True, gain + (len(pending) if counts else 0)
            if len(set(pending)) > 1:
                return False, gain  # the player chooses which colour opens the next column
            col = cols.index(-1)
            cols[col] = pending[0]
            for _ in pending:
                gain += put(col)
            pending = []
        return True, gain

    def _triggers_top_up(self, p: int, gain: int, satchels: dict[int, tuple[int, ...]]) -> bool:
        """Does ``p``'s inventory growing by ``gain`` trigger the end with a satchel to top up?"""
        if self.end_turn >= 0 or self.inventory[p] + gain < TRIGGER:
            return False
        return any(len(satchels.get(q, self.satchels[q])) < TOP_UP for q in range(self.num_players))

    # -- place in the river ------------------------------------------------------------
    def _after_place(self, player: int, tile: int, log: list | None) -> bool:
        self.placed = tile
        options = self.gather_options()
        if len(options) == 1:
            return self._gather(player, options[0], log)
        self.phase = GATHER
        return False

    def _gather(self, player: int, tile: int, log: list | None) -> bool:
        pieces = self.tiles[tile]
        self.tiles[tile] = ()
        self.placed = -1
        self.gathered = tile
        if log is not None:
            text = (msg("{player} gathers the {tile}: {pieces}.", player=L.seat(player), tile=L.TILE[tile],
                        pieces=L.pieces(pieces)) if pieces else
                    msg("{player} gathers the {tile}: nothing (the tile was empty).", player=L.seat(player),
                        tile=L.TILE[tile]))
            log.append(self._event(player, "gather", text, tile=SHAPES[tile], pieces=[PIECE_NAME[x] for x in pieces]))
        new = []
        for code in pieces:
            colour = COLOUR_OF[code]
            col = self.column_of(player, colour)
            if col >= 0:
                self._to_column(player, col, colour, log)
            else:
                new.append(colour)
        self.pending = tuple(new)
        return self._resolve_pending(player, log)

    def _flow(self, log: list | None) -> None:
        """River flow: the emptied tile moves to the upstream start and is refilled from the bag
        with as many pieces as the stones of the tile now next to it downstream."""
        tile = self.gathered
        river = list(self.river)
        river.remove(tile)
        river.insert(0, tile)
        self.river = tuple(river)
        refill = self._draw_up_to(STONES[river[1]])
        self.tiles[tile] = refill
        self.gathered = -1
        if log is not None:
            text = (msg("The {tile} flows to the start of the river and receives {n} piece(s) from the bag: "
                        "{pieces}.", tile=L.TILE[tile], n=len(refill), pieces=L.pieces(refill)) if refill else
                    msg("The {tile} flows to the start of the river and receives {n} piece(s) from the bag: "
                        "none (the bag is empty).", tile=L.TILE[tile], n=0))
            log.append({"type": "river", "text": text,
                        "river": [SHAPES[t] for t in river], "refill": [PIECE_NAME[x] for x in refill]})

    def _to_column(self, player: int, col: int, colour: int, log: list | None) -> None:
        i = player * NCOL + col
        if self.colh[i] < NROW:
            self.colh[i] += 1
            self.inventory[player] += 1
        else:
            self._to_overflow(player, colour)
            if log is not None:
                log.append(self._event(player, "overflow", msg(
                    "{player}'s {colour} column is full: the {colour} piece goes to overflow.",
                    player=L.seat(player), colour=L.COLOUR[colour]), colour=COLOURS[colour]))

    def _to_overflow(self, player: int, colour: int) -> None:
        self.overflow[player] = self.overflow[player] + (colour,)
        if self.overflow_counts:
            self.inventory[player] += 1

    def _resolve_pending(self, player: int, log: list | None) -> bool:
        """Place gathered pieces of new colours; True when the turn is complete."""
        while self.pending:
            distinct = set(self.pending)
            free = self.free_column(player)
            if free < 0:
                for colour in self.pending:
                    self._to_overflow(player, colour)
                if log is not None:
                    log.append(self._event(player, "overflow", msgn(
                        "{player} has no unused column: {n} new-colour piece ({colours}) goes to overflow.",
                        "{player} has no unused column: {n} new-colour pieces ({colours}) go to overflow.",
                        n=len(self.pending), player=L.seat(player), colours=L.colours(self.pending)),
                        colours=[COLOURS[x] for x in self.pending]))
                self.pending = ()
                break
            if len(distinct) > 1:
                self.phase = ORDER
                return False
            self._open_column(player, self.pending[0], log, resolve=False)
        if self.end_turn < 0 and max(self.inventory) >= TRIGGER:
            self._trigger_end(log)  # the glass is in place: the trigger comes before the river flows
        self._flow(log)
        self.phase = MAIN
        return True

    def _open_column(self, player: int, colour: int, log: list | None, resolve: bool = True) -> bool:
        col = self.free_column(player)
        self.colcol[player * NCOL + col] = colour
        if log is not None:
            log.append(self._event(player, "column", msg(
                "{player} starts column {column} with {colour}.", player=L.seat(player), column=col + 1,
                colour=L.COLOUR[colour]), column=col + 1, colour=COLOURS[colour]))
        rest = []
        for x in self.pending:
            if x == colour:
                self._to_column(player, col, colour, log)
            else:
                rest.append(x)
        self.pending = tuple(rest)
        if resolve:
            return self._resolve_pending(player, log)
        return True

    # -- draw from the lake ------------------------------------------------------------
    def _satchel_overflow(self, player: int, log: list | None) -> bool:
        satchel = self.satchels[player]
        excess = len(satchel) - CAPACITY
        if excess > 0:
            if len(set(satchel)) > 1:
                self.phase = OVERFLOW
                return False
            for code in satchel[:excess]:
                self._to_overflow(player, COLOUR_OF[code])
            self.satchels[player] = satchel[excess:]
            if log is not None:
                log.append(self._event(player, "overflow", msg(
                    "{player}'s satchel is full: {n} {piece}(s) go to overflow.", player=L.seat(player), n=excess,
                    piece=L.piece(satchel[0])), pieces=[PIECE_NAME[x] for x in satchel[:excess]]))
        refill = self._draw_up_to(LAKE_SIZE - len(self.lake))
        self.lake = tuple(sorted(self.lake + refill))
        if log is not None:
            text = (msg("The lake is refilled from the bag with {n} piece(s): {pieces}.", n=len(refill),
                        pieces=L.pieces(refill)) if refill else
                    msg("The lake is refilled from the bag with {n} piece(s): none (the bag is empty).", n=0))
            log.append({"type": "lake", "text": text, "refill": [PIECE_NAME[x] for x in refill]})
        self.phase = MAIN
        return True

    # -- end of turn, end of game ---------------------------------------------------------
    def _trigger_end(self, log: list | None) -> None:
        n = self.num_players
        self.end_turn = (self.turn // n + 2) * n
        if log is not None:
            who = [p for p in range(n) if self.inventory[p] >= TRIGGER]
            log.append({"type": "end_triggered", "player": who[0], "text": msg(
                "{player} reaches an inventory of {n}: the end is triggered. This round is finished and one "
                "more round is played, without lake draws.", player=L.seat(who[0]), n=TRIGGER)})
        for p in range(n):
            short = TOP_UP - len(self.satchels[p])
            if short > 0:
                drawn = self._draw_up_to(short)
                self.satchels[p] = _insert(self.satchels[p], drawn)
                if log is not None:
                    text = (msg("{player} tops the satchel up to {n} from the bag: {pieces}.", player=L.seat(p),
                                n=TOP_UP, pieces=L.pieces(drawn)) if drawn else
                            msg("{player} tops the satchel up to {n} from the bag: none.", player=L.seat(p), n=TOP_UP))
                    log.append(self._event(p, "top_up", text, pieces=[PIECE_NAME[x] for x in drawn]))

    def _end_turn(self, log: list | None) -> None:
        n = self.num_players
        self.turn += 1
        self.current = self.turn % n
        self.phase = MAIN
        if (self.end_turn >= 0 and self.turn >= self.end_turn) or self.passes >= n:
            self.phase = OVER
            if log is not None:
                text = (msg("The game ends: the final round is over.") if self.passes < n
                        else msg("The game ends: no player has a legal action left."))
                log.append({"type": "game_over", "text": text, "scores": self.scores(), "ranking": self.ranking()})

    def _event(self, player: int, type: str, text: Message, **extra: Any) -> dict[str, Any]:
        # text: a message, a whole sentence ending with a full stop
        ev = {"type": type, "player": player, "text": text}
        ev.update(extra)
        return ev

    # -- scoring ----------------------------------------------------------------------------
    def heights(self, p: int) -> list[int]:
        return self.colh[p * NCOL:(p + 1) * NCOL]

    def score_parts(self, p: int) -> dict[str, int]:
        h = self.heights(p)
        return {
            "rows": row_points(h),
            "columns": column_points(h),
            "overflow": -PENALTY * len(self.overflow[p]),
        }

    def scores(self) -> list[float]:
        return [float(score_of(self.heights(p), len(self.overflow[p]))) for p in range(self.num_players)]

    def tiebreak(self, player: int) -> tuple:
        return (-len(self.overflow[player]),)

    def tiebreak_explained(self, lang: str = "en") -> str:
        return self.say(msg("Equal scores: fewer pieces in overflow wins; still equal: the victory is shared."), lang)

    # -- information ---------------------------------------------------------------------------
    def prompt(self, player: int, lang: str = "en") -> str:
        return self.say(self.prompt_message(player), lang)

    def prompt_message(self, player: int | None) -> Message:
        """What ``player`` must decide now (None: a spectator's line), as a message."""
        if self.phase == OVER:
            return msg("The game is over.")
        if player is None:
            return msg("Seat {seat} to play.", seat=self.current + 1)
        if player != self.current:
            return msg("Wait for seat {seat} to play.", seat=self.current + 1)
        if self.phase == MAIN:
            acts = self.legal_actions(player)
            if acts == [PASS_ACT]:
                return msg("You have no legal action: pass.")
            if self.end_turn >= 0:
                return msg("Place glass in the river (the lake is closed for the final rounds).")
            return msg("Place glass in the river, or draw from the lake.")
        if self.phase == GATHER:
            return msg("Choose the river tile next to your glass to gather from.")
        if self.phase == ORDER:
            return msg("Choose which new colour opens your next free column.")
        return msg("Your satchel holds at most {n}: choose a piece to put in overflow.", n=CAPACITY)

    def action_text(self, player: int, action: Action, lang: str = "en") -> str:
        return action.text if lang == "en" else self.say(action_message(action), lang)

    def why_illegal(self, player: int, action: Action, lang: str = "en") -> str:
        return self.say(self.why_illegal_message(player, action), lang)

    def why_illegal_message(self, player: int, action: Action) -> Message:
        """:meth:`why_illegal` as a message."""
        kind, a, b, c = INFO_T[action.id]
        phase = self.phase
        if phase == GATHER:
            if kind == K_GATHER:
                return msg("You gather from a river tile next to the {tile} where you placed ({tiles}), never "
                           "from the lake or a tile further away.", tile=L.TILE[self.placed],
                           tiles=L.either([L.THE_TILE[t] for t in self.gather_options()]))
            return msg("You placed glass in the river: now choose the adjacent tile to gather from.")
        if phase == ORDER:
            if kind == K_COLUMN:
                return msg("Only a colour you just gathered that has no column yet ({colours}) can open "
                           "the next column.", colours=L.colours(sorted(set(self.pending))))
            return msg("Choose which new colour opens your next free column first.")
        if phase == OVERFLOW:
            if kind == K_OVERFLOW:
                return msg("Your satchel holds no {piece}: only pieces in the satchel can go to overflow.",
                           piece=L.piece(a))
            return msg("Your satchel holds more than {n} pieces: choose a piece to put in overflow.", n=CAPACITY)
        # MAIN
        satchel = self.satchels[player]
        if kind == K_PLACE:
            return msg("You can only place glass from your satchel, and it holds no {piece}.", piece=L.piece(a))
        if kind == K_PAIR:
            need = 2 if a == b else 1
            if satchel.count(a) < need or satchel.count(b) < need:
                return msg("Placing two pieces as one needs both the {first} and the {second} (two pieces of "
                           "one shape) in your satchel.", first=L.piece(a), second=L.piece(b))
            shape = SHAPE_OF[a]
            return msg("Two {shapes} count as one piece of another shape, so they cannot go on the {tile}: "
                       "place a single {shape} there instead.", shapes=L.SHAPES[shape], tile=L.TILE[shape],
                       shape=L.SHAPE[shape])
        if kind in (K_LAKE, K_LAKE_ALL):
            if self.end_turn >= 0:
                return msg("Drawing from the lake is not allowed once the end of the game has been triggered.")
            if not self.lake:
                return msg("The lake is empty: there is nothing to draw.")
            if kind == K_LAKE and len(self.lake) <= LAKE_TAKE:
                return msg("The lake holds only {n} piece(s): you take them all.", n=len(self.lake))
            if kind == K_LAKE:
                return msg("The lake holds no {piece} to leave behind.", piece=L.piece(a))
            return msg("The lake holds {n} pieces: you take exactly {take}, choosing the one to leave.",
                       n=len(self.lake), take=LAKE_TAKE)
        if kind == K_PASS:
            return msg("You may pass only when you have no legal action.")
        if satchel or self.lake:
            return msg("Start your turn: place glass in the river or draw from the lake.")
        return msg("You have no legal action: pass.")

    def view(self, player: int | None) -> dict[str, Any]:
        n = self.num_players
        # the rarity chart printed beside every glassworks: pieces of each colour in play
        rarity = [{"colour": COLOURS[c], "count": DATA.colour_counts[c]} for c in self.colours]
        players = []
        for p in range(n):
            base = p * NCOL
            players.append({
                "satchel": [PIECE_NAME[x] for x in self.satchels[p]],
                "columns": [
                    {"colour": COLOURS[self.colcol[base + c]] if self.colcol[base + c] >= 0 else None,
                     "height": self.colh[base + c]}
                    for c in range(NCOL)
                ],
                "overflow": [COLOURS[x] for x in self.overflow[p]],
                "inventory": self.inventory[p],
                "score": score_of(self.heights(p), len(self.overflow[p])),
                "score_parts": self.score_parts(p),
                "row_runs": row_runs(self.heights(p)),
                "rarity": [dict(entry) for entry in rarity],
            })
        return {
            "game": GAME_ID,
            "viewer": player,
            "phase": PHASE_NAMES[self.phase],
            "to_move": list(self.to_move()),
            "current": self.current,
            "prompt": render(self.prompt_message(player)),
            "turn": self.turn,
            "round": self.turn // n + 1,
            "river": [
                {"tile": SHAPES[t], "stones": STONES[t], "pieces": [PIECE_NAME[x] for x in self.tiles[t]]}
                for t in self.river
            ],
            "lake": [PIECE_NAME[x] for x in self.lake],
            "bag_size": len(self.bag),
            "placed_on": SHAPES[self.placed] if self.placed >= 0 else None,
            "gathered_from": SHAPES[self.gathered] if self.gathered >= 0 else None,
            "pending_colours": [COLOURS[x] for x in self.pending],
            "end_triggered": self.end_turn >= 0,
            "last_turn": self.end_turn if self.end_turn >= 0 else None,
            "lake_open": self.end_turn < 0,
            "players": players,
            "scores": self.scores(),
            "overflow_counts_toward_end": self.overflow_counts,
            "pair_on_own_tile": self.pair_own,
            "end_trigger": TRIGGER,
            "values": [list(col) for col in VALUES],
            "row_track": list(ROW_TRACK),
            "row_track_known": list(DATA.row_track_known),
        }

    def determinize(self, player: int | None, rng: Rng) -> "GlassworksState":
        # Everything is public except the order of the bag (the next blind draws).
        s = self.clone()
        s.bag.sort()  # canonical order: the result depends on the view and rng only
        rng.shuffle(s.bag)
        s.rng = rng.spawn()
        return s

    def component_counts(self) -> dict[str, int]:
        counts = [0] * NC
        for code in self.bag:
            counts[COLOUR_OF[code]] += 1
        for t in self.tiles:
            for code in t:
                counts[COLOUR_OF[code]] += 1
        for code in self.lake:
            counts[COLOUR_OF[code]] += 1
        for sat in self.satchels:
            for code in sat:
                counts[COLOUR_OF[code]] += 1
        for i, colour in enumerate(self.colcol):
            if colour >= 0:
                counts[colour] += self.colh[i]
        for ov in self.overflow:
            for colour in ov:
                counts[colour] += 1
        for colour in self.pending:
            counts[colour] += 1
        out = {f"glass:{COLOURS[c]}": counts[c] for c in self.colours}
        out["river_tiles"] = len(self.river)
        return out
