"""Mille Fiori: the game state, turn flow and scoring.

A round: everybody gets 5 cards; in each pass every player picks one card
(secretly and all at once in the default ``simultaneous`` draft, or on their
own turn in the ``tactical`` variant), then from the start player on each
plays the picked card (place a diamond, or sail with the card's wheel
number), followed by any extra cards earned (taken from the face-up display).
Hands then pass to the left.  After 4 plays (3 with two players) the cards
left in the hands go to the display.

Decisions, one per step: ``pick`` (a card from the hand), ``place`` (a board
space) or ``sail``, then for each extra card ``extra`` (a display card) or
``decline``.  Cards of one kind (area, symbol, wheel number) are
interchangeable, so the state stores card kinds (small ints).

Board spaces are indexed as in data.py: workshops 0-29, houses 30-49, nobles
50-61, commoners 62-73, trade 74-93 (row-major), harbor 94-108 (row-major).
"""

from __future__ import annotations

from typing import Any

from gemtable.core import ActionSpace, Event, Rng, State
from gemtable.core.i18n import SOURCE, Message, msg, msgn

from .data import (
    AREA_TITLES,
    AREAS,
    COMMONERS,
    HARBOR,
    HOUSES,
    NOBLES,
    TRADE,
    WORKSHOPS,
    Data,
    load,
)
from .names import AREA_WORD, SYMBOL, card_word, space_word, word

GAME_ID = "mille_fiori"
D: Data = load()
SPACE_WORD = tuple(space_word(name) for name in D.space_name)
"""Each board space's name as a message (index = space id)."""

# ---------------------------------------------------------------------------
# Precomputed tables
# ---------------------------------------------------------------------------
NS = D.num_spaces
NK = len(D.kind_area)
W0, H0, N0, C0, T0, B0, END = D.area_start
NH = N0 - H0  # number of house spaces
NTR, NTC = D.trade_rows, D.trade_columns
NBR, NBP = D.harbor_rows, D.harbor_per_row
SEA_END = D.sea_end
SEA_PTS = D.sea_points
SEA_EXTRA = D.sea_extra
AREA = D.space_area
SYM = D.space_symbol
ADJ = D.adjacency
STAR = D.star_triple
DOUBLED = D.doubled_symbol
HVAL = D.house_values
HBIT = D.house_value_bit
HEXTRA = frozenset(D.house_extra_at)
HBONUS = D.house_bonus_at
LEVEL = D.level
LEVEL_PTS = D.level_points
SUPPORT = D.support
BENEATH = D.beneath
HARBOR_PTS = D.harbor_points
BONUS = D.bonus
KAREA, KSYM, KWHEEL = D.kind_area, D.kind_symbol, D.kind_wheel
# all symbols of an area covered (houses count distinct values instead)
FULL_COVER = tuple((1 << len(D.symbols[a])) - 1 for a in range(5))

# candidate spaces for each card kind (houses are handled separately: next space only)
CAND: list[tuple[int, ...]] = []
for _k in range(NK):
    _a, _s = KAREA[_k], KSYM[_k]
    if _a == WORKSHOPS or _a == TRADE:
        CAND.append(tuple(x for x in range(NS) if AREA[x] == _a and SYM[x] == _s))
    else:
        CAND.append(tuple(x for x in range(NS) if AREA[x] == _a))
CAND_T = tuple(CAND)
TRADE_COL = tuple(tuple(T0 + r * NTC + c for r in range(NTR)) for c in range(NTC))
TRADE_ROW = tuple(tuple(T0 + r * NTC + c for c in range(NTC)) for r in range(NTR))
FLEET = tuple(tuple(B0 + r * NBP + i for i in range(NBP)) for r in range(NBR))

KIND_CODE = tuple(f"{D.symbols[KAREA[k]][KSYM[k]]}-{KWHEEL[k]}" for k in range(NK))
CODE_KIND = {c: k for k, c in enumerate(KIND_CODE)}


def _board_layout() -> dict[str, Any]:
    """The printed board as public, static metadata for renderers (built once).

    ``spaces[i]`` describes board space i: its area, the symbol it shows
    (``key`` for houses, ``ship`` for harbor spaces), its value where it has
    one (house value, pyramid level points) and where it lies: ``row``/``col``
    (workshops: hex row and doubled column; houses: ``col`` = position along
    the track; trade: row and good column; harbor: fleet and ship) or
    ``level``/``col`` (pyramids: 0 = base).
    """
    spaces: list[dict[str, Any]] = []
    for x in range(NS):
        a = AREA[x]
        e: dict[str, Any] = {"id": x, "area": AREAS[a], "symbol": D.symbols[a][max(SYM[x], 0)]}
        if a == HOUSES:
            e["col"] = x - H0
            e["value"] = HVAL[x - H0]
        elif a == NOBLES or a == COMMONERS:
            e["level"] = LEVEL[x]
            e["col"] = D.pyramid_rows[a - NOBLES][LEVEL[x]].index(x)
            e["value"] = LEVEL_PTS[LEVEL[x]]
        elif a == TRADE:
            e["row"], e["col"] = divmod(x - T0, NTC)
        elif a == HARBOR:
            e["row"], e["col"] = divmod(x - B0, NBP)
        spaces.append(e)
    for r, row in enumerate(D.ws_rows):
        for dc, x in row:
            spaces[x]["row"], spaces[x]["col"] = r, dc
    return {
        "spaces": spaces,
        "symbols": {AREAS[a]: list(D.symbols[a]) for a in range(6)},
        "workshops": {"doubled": D.symbols[WORKSHOPS][DOUBLED], "stars": [list(t) for t in D.star_triples]},
        "houses": {"extra_card_at_distinct_values": sorted(HEXTRA), "bonus_at_distinct_values": HBONUS},
        "pyramids": {"level_points": list(LEVEL_PTS)},
        "harbor": {"points_by_goods": list(HARBOR_PTS)},
        "sea": {"points": list(SEA_PTS), "extra_card_positions": [i for i, e in enumerate(SEA_EXTRA) if e]},
        "bonus": {AREAS[a]: list(BONUS[a]) for a in range(5)},
        "empty_display_points": D.empty_display_points,
    }


BOARD_LAYOUT = _board_layout()


def kind_text(k: int) -> str:
    a = KAREA[k]
    return f"{AREA_TITLES[a].lower()} {D.symbols[a][KSYM[k]]} card (wheel {KWHEEL[k]})"


def kind_word(k: int) -> Message:
    """``kind_text`` as a message (any language)."""
    return card_word(KAREA[k], D.symbols[KAREA[k]][KSYM[k]], KWHEEL[k])


def _seat(p: int) -> str:
    """The seat placeholder a log line names a player by (filled by format_text)."""
    return f"{{P{p}}}"


# ---------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------
ACTIONS = ActionSpace(GAME_ID)
PICK = tuple(ACTIONS.add("pick", f"pick the {kind_text(k)}", card=KIND_CODE[k]) for k in range(NK))
PLACE = tuple(ACTIONS.add("place", f"place a diamond on {D.space_name[s]}", space=s) for s in range(NS))
SAIL = ACTIONS.add("sail", "sail: move your ship by the card's wheel number")
EXTRA = tuple(
    ACTIONS.add("extra", f"play the {kind_text(k)} from the display as an extra card", card=KIND_CODE[k])
    for k in range(NK)
)
DECLINE = ACTIONS.add("decline", "decline the extra card")
_PICK_ID0 = PICK[0].id
_EXTRA_ID0 = EXTRA[0].id

# phases
PICKING, CHOOSING, USING, EXTRA_CARD, OVER = range(5)
PHASE_NAMES = ("pick", "choose", "play", "extra", "over")


def _bits(x: int) -> int:
    return bin(x).count("1")


def workshop_points(owner: list[int], p: int, s: int) -> int:
    """Points for seat ``p`` placing on workshop ``s``: its connected group through ``s``
    (counting ``s`` whether or not it is already marked), doubled on pigments."""
    group = {s}
    stack = [s]
    while stack:
        x = stack.pop()
        for y in ADJ[x]:
            if owner[y] == p and y not in group:
                group.add(y)
                stack.append(y)
    return len(group) * (2 if SYM[s] == DOUBLED else 1)


def house_points(owner: list[int], p: int, i: int) -> int:
    """Points for seat ``p`` placing on house ``i``: its value plus the values of the
    houses just before it that hold ``p``'s diamonds without interruption."""
    pts = HVAL[i]
    j = i - 1
    while j >= 0 and owner[H0 + j] == p:
        pts += HVAL[j]
        j -= 1
    return pts


class MilleFioriState(State):
    # explicit chance: card ids (deck draws)
    chance_outcomes_bound = max(D.deck) + 1
    __slots__ = (
        "game", "num_players", "rng", "turn", "tactical",
        "owner", "bonus_owner", "points", "bonus_pts", "got_bonus", "personal", "aside", "ship",
        "cover", "houses_next", "deck", "hands", "picks", "seen", "display", "discard",
        "round", "plays_done", "start", "order_idx", "phase", "cur", "card", "card_extra",
        "extras", "ending",
    )

    # -- construction --------------------------------------------------------
    @classmethod
    def initial(cls, game, num_players: int, rng: Rng, options: dict[str, Any]) -> "MilleFioriState":
        s = cls.__new__(cls)
        n = num_players
        s.game = game
        s.num_players = n
        s.rng = rng
        s.turn = 0
        s.tactical = options.get("draft", "simultaneous") == "tactical"
        s.owner = [-1] * NS
        s.bonus_owner = [-1] * (5 * 4)
        s.points = [0] * n
        s.bonus_pts = [0] * n
        s.got_bonus = [0] * n
        s.personal = [D.personal_diamonds] * n
        s.aside = [D.set_aside_diamonds] * n
        s.ship = [0] * n
        s.cover = [0] * (5 * n)
        s.houses_next = 0
        deck = list(D.deck)
        rng.shuffle_face_down(deck)
        s.deck = deck
        s.display = sorted(rng.draw(deck) for _ in range(D.display[n]))
        s.discard = []
        s.hands = [[] for _ in range(n)]
        s.picks = [-1] * n
        s.seen = [0] * n
        s.round = 0
        s.plays_done = 0
        s.start = 0
        s.order_idx = 0
        s.phase = PICKING
        s.cur = 0
        s.card = -1
        s.card_extra = False
        s.extras = 0
        s.ending = False
        s._start_round()
        return s

    def clone(self) -> "MilleFioriState":
        s = self.__class__.__new__(self.__class__)
        s.game = self.game
        s.num_players = self.num_players
        s.rng = self.rng.clone()
        s.turn = self.turn
        s.tactical = self.tactical
        s.owner = self.owner[:]
        s.bonus_owner = self.bonus_owner[:]
        s.points = self.points[:]
        s.bonus_pts = self.bonus_pts[:]
        s.got_bonus = self.got_bonus[:]
        s.personal = self.personal[:]
        s.aside = self.aside[:]
        s.ship = self.ship[:]
        s.cover = self.cover[:]
        s.houses_next = self.houses_next
        s.deck = self.deck[:]
        s.hands = [h[:] for h in self.hands]
        s.picks = self.picks[:]
        s.seen = self.seen[:]
        s.display = self.display[:]
        s.discard = self.discard[:]
        s.round = self.round
        s.plays_done = self.plays_done
        s.start = self.start
        s.order_idx = self.order_idx
        s.phase = self.phase
        s.cur = self.cur
        s.card = self.card
        s.card_extra = self.card_extra
        s.extras = self.extras
        s.ending = self.ending
        return s

    _LIST_FIELDS = ("owner", "bonus_owner", "points", "bonus_pts", "got_bonus", "personal", "aside",
                    "ship", "cover", "deck", "picks", "seen", "display", "discard")
    _INT_FIELDS = ("turn", "houses_next", "round", "plays_done", "start", "order_idx", "phase", "cur",
                   "card", "extras")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"players": self.num_players, "draft": "tactical" if self.tactical else "simultaneous",
                               "rng": self.rng.s, "card_extra": self.card_extra, "ending": self.ending,
                               "hands": [h[:] for h in self.hands]}
        for f in self._LIST_FIELDS:
            out[f] = list(getattr(self, f))
        for f in self._INT_FIELDS:
            out[f] = getattr(self, f)
        return out

    @classmethod
    def from_json(cls, game, data: dict[str, Any]) -> "MilleFioriState":
        s = cls.__new__(cls)
        s.game = game
        s.num_players = int(data["players"])
        s.rng = Rng(int(data["rng"]))
        s.tactical = data["draft"] == "tactical"
        s.card_extra = bool(data["card_extra"])
        s.ending = bool(data["ending"])
        s.hands = [list(h) for h in data["hands"]]
        for f in cls._LIST_FIELDS:
            setattr(s, f, list(data[f]))
        for f in cls._INT_FIELDS:
            setattr(s, f, int(data[f]))
        return s

    # -- round structure -------------------------------------------------------
    def _start_round(self) -> None:
        n = self.num_players
        deck = self.deck
        draw = self.rng.draw
        for p in range(n):
            hand = [draw(deck) for _ in range(D.hand_size)]
            hand.sort()
            self.hands[p] = hand
        self.seen = [1 << p for p in range(n)]
        self.plays_done = 0
        self._start_pass()

    def _start_pass(self) -> None:
        self.order_idx = 0
        self.cur = self.start
        self.picks = [-1] * self.num_players
        self.phase = CHOOSING if self.tactical else PICKING

    def _begin_play(self) -> None:
        """The current player reveals the picked card (simultaneous draft)."""
        p = self.cur
        self.card = self.picks[p]
        self.picks[p] = -1
        self.card_extra = False
        self.phase = USING

    def _after_use(self, log: list[Event] | None = None) -> None:
        """The card in play is resolved: discard it, then extra cards or end of turn."""
        self.discard.append(self.card)
        self.card = -1
        self.card_extra = False
        self._next_extra(log, announce=True)

    def _next_extra(self, log: list[Event] | None = None, announce: bool = False) -> None:
        """Extra cards still due: with an empty display each one is worth the empty-display
        points instead (logged one by one); otherwise the player chooses from the display."""
        p = self.cur
        while self.extras and not self.display:
            self.extras -= 1
            self.points[p] += D.empty_display_points
            if log is not None:
                pts = [0] * self.num_players
                pts[p] = D.empty_display_points
                log.append({"type": "extra_empty", "player": p, "points": pts,
                            "text": msg("{player} +{points} instead of an extra card (the display is empty).",
                                        player=_seat(p), points=D.empty_display_points)})
        if self.extras:
            if log is not None and announce:
                log.append({"type": "extra_earned", "player": p, "count": self.extras,
                            "text": msgn("{player} may play {n} extra card(s).", "{player} may play {n} extra card(s).",
                                         self.extras, player=_seat(p))})
            self.phase = EXTRA_CARD
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        self.turn += 1
        n = self.num_players
        self.order_idx += 1
        if self.order_idx < n:
            self.cur = (self.start + self.order_idx) % n
            if self.tactical:
                self.phase = CHOOSING
            else:
                self._begin_play()
            return
        # the pass is complete
        self.plays_done += 1
        if self.ending:
            self.phase = OVER
            return
        if self.plays_done < D.played_per_round[n]:
            hands, seen = self.hands, self.seen
            self.hands = [hands[(p - 1) % n] for p in range(n)]
            self.seen = [seen[(p - 1) % n] | (1 << p) for p in range(n)]
            self._start_pass()
            return
        # end of the round: the cards left in the hands go to the display
        for h in self.hands:
            self.display.extend(h)
            h.clear()
        self.display.sort()
        if not self.deck:
            self.phase = OVER
            return
        self.round += 1
        self.start = (self.start + 1) % n
        self._start_round()

    # -- turn flow ----------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        ph = self.phase
        if ph == PICKING:
            return tuple(p for p in range(self.num_players) if self.picks[p] < 0)
        if ph == OVER:
            return ()
        return (self.cur,)

    def is_over(self) -> bool:
        return self.phase == OVER

    def can_place(self, p: int) -> bool:
        """A diamond is available: from the personal supply, or (extra cards only)
        from the set-aside ones once the personal supply is used up."""
        return self.personal[p] > 0 or (self.card_extra and self.aside[p] > 0)

    def use_spaces(self, p: int, k: int) -> list[int]:
        """The spaces where seat ``p`` may place a diamond with card kind ``k`` now."""
        if not self.can_place(p):
            return []
        a = KAREA[k]
        owner = self.owner
        if a == HOUSES:
            return [H0 + self.houses_next] if self.houses_next < NH else []
        if a == NOBLES or a == COMMONERS:
            out = []
            for x in CAND_T[k]:
                if owner[x] < 0:
                    sup = SUPPORT[x]
                    if not sup or (owner[sup[0]] >= 0 and owner[sup[1]] >= 0):
                        out.append(x)
            return out
        return [x for x in CAND_T[k] if owner[x] < 0]

    def use_actions(self, p: int, k: int) -> list:
        # the same spaces as use_spaces (a test checks it), built inline: this is the hot path
        acts = []
        if self.can_place(p):
            a = KAREA[k]
            owner = self.owner
            if a == HOUSES:
                if self.houses_next < NH:
                    acts.append(PLACE[H0 + self.houses_next])
            elif a == NOBLES or a == COMMONERS:
                for x in CAND_T[k]:
                    if owner[x] < 0:
                        sup = SUPPORT[x]
                        if not sup or (owner[sup[0]] >= 0 and owner[sup[1]] >= 0):
                            acts.append(PLACE[x])
            else:
                for x in CAND_T[k]:
                    if owner[x] < 0:
                        acts.append(PLACE[x])
        acts.append(SAIL)
        return acts

    def legal_actions(self, player: int) -> list:
        ph = self.phase
        if ph == PICKING:
            if self.picks[player] >= 0:
                return []
            return [PICK[k] for k in sorted(set(self.hands[player]))]
        if ph == OVER or player != self.cur:
            return []
        if ph == USING:
            return self.use_actions(player, self.card)
        if ph == CHOOSING:
            return [PICK[k] for k in sorted(set(self.hands[player]))]
        acts = [EXTRA[k] for k in sorted(set(self.display))]
        acts.append(DECLINE)
        return acts

    def _apply(self, player: int, action, log: list[Event] | None) -> None:
        t = action.type
        if log is not None:
            prev_cur, prev_phase = self.cur, self.phase
            before = self.points[:]
            bonus_before = self.bonus_pts[:]
            ship_before = self.ship[:]
            card = self.card
        if t == "place":
            s = action.args["space"]
            self._place(player, s)
            if AREA[s] == HARBOR:
                self._sail(player, KWHEEL[self.card])
            if log is not None:
                self._log_use(log, player, card, s, before, bonus_before, ship_before)
            self._after_use(log)
        elif t == "sail":
            self._sail(player, KWHEEL[self.card])
            if log is not None:
                self._log_use(log, player, card, None, before, bonus_before, ship_before)
            self._after_use(log)
        elif t == "pick":
            k = action.id - _PICK_ID0
            self.hands[player].remove(k)
            if self.phase == CHOOSING:
                self.card = k
                self.card_extra = False
                self.phase = USING
                if log is not None:
                    log.append({"type": "play", "player": player, "card": KIND_CODE[k],
                                "text": msg("{player} plays the {card}.", player=_seat(player), card=kind_word(k))})
            else:
                self.picks[player] = k
                if log is not None:
                    log.append({"type": "pick", "player": player, "card": KIND_CODE[k],
                                "text": msg("{player} picks the {card}.", player=_seat(player), card=kind_word(k)),
                                "only": [player],
                                "public": {"type": "pick", "player": player,
                                           "text": msg("{player} picks a card.", player=_seat(player))}})
                if all(x >= 0 for x in self.picks):
                    self._begin_play()
        elif t == "extra":
            k = action.id - _EXTRA_ID0
            self.display.remove(k)
            self.extras -= 1
            self.card = k
            self.card_extra = True
            self.phase = USING
            if log is not None:
                log.append({"type": "extra", "player": player, "card": KIND_CODE[k],
                            "text": msg("{player} plays the {card} from the display as an extra card.",
                                        player=_seat(player), card=kind_word(k))})
        elif t == "decline":
            self.extras -= 1
            if log is not None:
                log.append({"type": "decline", "player": player,
                            "text": msg("{player} declines an extra card.", player=_seat(player))})
            self._next_extra(log)
        else:  # pragma: no cover - legal_actions never offers anything else
            raise AssertionError(t)
        if log is not None and not self.tactical and self.phase == USING and not self.card_extra \
                and (self.cur != prev_cur or prev_phase == PICKING):
            log.append(self._reveal_event())
        if log is not None and self.phase == OVER:
            sc = self.scores()
            log.append({"type": "game_over", "scores": sc,
                        "text": msg("Game over: {scores}.",
                                    scores=["{P%d} %d" % (p, sc[p]) for p in range(self.num_players)])})

    def is_checkpoint(self, player: int, action) -> bool:
        """Hidden: the deck, hands and secret picks.  Shown or drawn: a card chosen from the hand
        in the tactical draft; the last secret pick of a pass (the start player's card is turned
        up); the end of a turn when the next player's secret pick is turned up; the end of a pass
        when a hand goes to a player who has not held it yet; the end of a round (the hands go to
        the display, new hands are dealt).  A secret pick that is not the last, a card from the
        display, declining one, or a turn that ends with the next player to choose openly
        (tactical) show nothing."""
        t = action.type
        if t == "pick":
            if self.phase == CHOOSING:
                return True  # played face up from the hand
            picks = self.picks
            return all(x >= 0 for q, x in enumerate(picks) if q != player)
        if t == "extra":
            return False
        if t == "decline":
            ends = self.extras == 1 or not self.display
            return ends and self._turn_end_shows()
        # place or sail: does it earn an extra card (then the turn goes on)?
        p = player
        gained = 0
        wheel = KWHEEL[self.card]
        ending = self.ending
        if t == "place":
            x = action.args["space"]
            area = AREA[x]
            owner = self.owner
            if self.personal[p] == 1:
                ending = True  # the last diamond of the personal supply
            if area == WORKSHOPS:
                gained = all(owner[y] >= 0 or y == x for y in STAR[x])
            elif area == HOUSES:
                old = self.cover[5 * p + HOUSES]
                new = old | HBIT[x - H0]
                gained = new != old and _bits(new) in HEXTRA
            elif area == NOBLES or area == COMMONERS:
                gained = LEVEL[x] == 2
            elif area == TRADE:
                counts = [0] * self.num_players
                for y in TRADE_COL[SYM[x]]:
                    o = p if y == x else owner[y]
                    if o >= 0:
                        counts[o] += 1
                gained = any(k > counts[p] for k in counts)
        if t == "sail" or (t == "place" and AREA[action.args["space"]] == HARBOR):
            pos = self.ship[p]
            gained += pos < SEA_END and SEA_EXTRA[min(pos + wheel, SEA_END)]
        if self.extras + gained and self.display:
            return False  # an extra card from the face-up display comes next
        return self._turn_end_shows(ending)

    def _turn_end_shows(self, ending: bool | None = None) -> bool:
        """Does ending the current player's turn now turn up or deal a hidden card?"""
        n = self.num_players
        if self.order_idx + 1 < n:
            return not self.tactical  # the next player's secret pick is turned up
        if self.ending if ending is None else ending:
            return False  # the game ends with this pass
        if self.plays_done + 1 < D.played_per_round[n]:
            seen = self.seen  # hands pass to the left: shown to a player who never held them?
            return any(not seen[(q - 1) % n] >> q & 1 for q in range(n))
        return True  # end of the round: the hands go to the display, new hands are dealt

    def _reveal_event(self) -> Event:
        return {"type": "play", "player": self.cur, "card": KIND_CODE[self.card],
                "text": msg("{player} plays the {card}.", player=_seat(self.cur), card=kind_word(self.card))}

    def _log_use(self, log, player, card, space, before, bonus_before, ship_before) -> None:
        """The log line of a card's use: a diamond placed on ``space`` (None: the ship sailed),
        where the ship went, and who scored what."""
        parts = []
        for q in range(self.num_players):
            d = self.points[q] - before[q]
            if d:
                parts.append("{P%d} +%d" % (q, d))
        params: dict[str, Any] = {"player": _seat(player), "ship": self.ship[player], "points": parts}
        moved = self.ship[player] != ship_before[player]
        if space is not None:
            params["space"] = SPACE_WORD[space]
            if moved:
                text = (msg("{player} places a diamond on {space} (ship to {ship}): {points}.", **params) if parts
                        else msg("{player} places a diamond on {space} (ship to {ship}).", **params))
            else:
                text = (msg("{player} places a diamond on {space}: {points}.", **params) if parts
                        else msg("{player} places a diamond on {space}.", **params))
        elif moved:
            text = (msg("{player} sails (ship to {ship}): {points}.", **params) if parts
                    else msg("{player} sails (ship to {ship}).", **params))
        else:
            text = (msg("{player} sails: {points}.", **params) if parts else msg("{player} sails.", **params))
        log.append({"type": "place" if space is not None else "sail", "player": player,
                    "card": KIND_CODE[card], "points": [self.points[q] - before[q] for q in range(self.num_players)],
                    "text": text})
        for q in range(self.num_players):
            if self.bonus_pts[q] != bonus_before[q]:
                log.append({"type": "bonus", "player": q, "value": self.bonus_pts[q] - bonus_before[q],
                            "text": msg("{player} claims a bonus-point space worth {points}.", player=_seat(q),
                                        points=self.bonus_pts[q] - bonus_before[q])})

    # -- scoring -----------------------------------------------------------------------
    def _take_diamond(self, p: int) -> None:
        if self.personal[p] > 0:
            self.personal[p] -= 1
            if self.personal[p] == 0:
                self.ending = True
        else:
            self.aside[p] -= 1

    def _bonus(self, p: int, area: int) -> None:
        """Claim the highest free bonus-point space of ``area`` (once per area)."""
        bit = 1 << area
        if self.got_bonus[p] & bit or self.personal[p] == 0:
            return
        bo = self.bonus_owner
        base = area * 4
        for i in range(4):
            if bo[base + i] < 0:
                bo[base + i] = p
                self.got_bonus[p] |= bit
                self.bonus_pts[p] += BONUS[area][i]
                self.personal[p] -= 1
                if self.personal[p] == 0:
                    self.ending = True
                return

    def _sail(self, p: int, wheel: int) -> None:
        pos = self.ship[p]
        if pos >= SEA_END:
            return
        pos += wheel
        if pos > SEA_END:
            pos = SEA_END
        self.ship[p] = pos
        self.points[p] += SEA_PTS[pos]
        if SEA_EXTRA[pos]:
            self.extras += 1

    def _place(self, p: int, s: int) -> None:
        self._take_diamond(p)
        owner = self.owner
        owner[s] = p
        area = AREA[s]
        points = self.points
        cover = self.cover
        ci = 5 * p + area
        if area == WORKSHOPS:
            points[p] += workshop_points(owner, p, s)
            cover[ci] |= 1 << SYM[s]
            if cover[ci] == FULL_COVER[WORKSHOPS]:
                self._bonus(p, WORKSHOPS)
            t = STAR[s]
            if owner[t[0]] >= 0 and owner[t[1]] >= 0 and owner[t[2]] >= 0:
                self.extras += 1
        elif area == HOUSES:
            i = s - H0
            self.houses_next = i + 1
            points[p] += house_points(owner, p, i)
            old = cover[ci]
            new = old | HBIT[i]
            if new != old:
                cover[ci] = new
                cnt = _bits(new)
                if cnt in HEXTRA:
                    self.extras += 1
                if cnt == HBONUS:
                    self._bonus(p, HOUSES)
        elif area == NOBLES or area == COMMONERS:
            pts = LEVEL_PTS[LEVEL[s]]
            if SYM[s] == KSYM[self.card]:
                pts *= 2
            points[p] += pts
            for b, v in BENEATH[s]:
                points[owner[b]] += v
            cover[ci] |= 1 << SYM[s]
            if cover[ci] == FULL_COVER[area]:
                self._bonus(p, area)
            if LEVEL[s] == 2:
                self.extras += 1
        elif area == TRADE:
            col = TRADE_COL[SYM[s]]
            counts = [0] * self.num_players
            value = 0
            for x in col:
                o = owner[x]
                if o >= 0:
                    counts[o] += 1
                    value += 1
            for q in range(self.num_players):
                if counts[q]:
                    points[q] += value * counts[q]
            cover[ci] |= 1 << SYM[s]
            if cover[ci] == FULL_COVER[TRADE]:
                self._bonus(p, TRADE)
            mine = counts[p]
            if any(c > mine for c in counts):
                self.extras += 1
        else:  # harbor: a full fleet departs
            r = (s - B0) // NBP
            fleet = FLEET[r]
            if all(owner[x] >= 0 for x in fleet):
                goods = sum(1 for x in TRADE_ROW[r] if owner[x] >= 0)
                per = HARBOR_PTS[goods]
                for x in fleet:
                    points[owner[x]] += per

    # -- explanations -------------------------------------------------------------------
    def prompt(self, player: int, lang: str = SOURCE) -> str:
        return self.say(self._prompt(player), lang)

    def _prompt(self, player: int) -> Message:
        ph = self.phase
        if ph == OVER:
            return msg("The game is over.")
        if ph == PICKING:
            if self.picks[player] >= 0:
                return msg("Wait for the other players to pick their cards.")
            return msg("Pick a card from your hand to play this pass (your choice stays secret until you play it).")
        if player != self.cur:
            return msg("Wait for seat {seat}.", seat=self.cur + 1)
        if ph == CHOOSING:
            return msg("Choose a card from your hand to play now.")
        if ph == USING:
            return msg("Play the {card}: place a diamond on a space it allows, "
                       "or sail your ship by its wheel number.", card=kind_word(self.card))
        return msgn("You may play an extra card from the face-up display ({n} to play), or decline.",
                    "You may play an extra card from the face-up display ({n} to play), or decline.", self.extras)

    def action_text(self, player: int, action, lang: str = SOURCE) -> str:
        t = action.type
        if t == "pick":
            text = msg("pick the {card}", card=kind_word(action.id - _PICK_ID0))
        elif t == "place":
            text = msg("place a diamond on {space}", space=SPACE_WORD[action.args["space"]])
        elif t == "extra":
            text = msg("play the {card} from the display as an extra card", card=kind_word(action.id - _EXTRA_ID0))
        elif t == "sail":
            text = msg("sail: move your ship by the card's wheel number")
        else:
            text = msg("decline the extra card")
        return self.say(text, lang)

    def why_illegal(self, player: int, action, lang: str = SOURCE) -> str:
        return self.say(self._why_illegal(player, action, lang), lang)

    def _why_illegal(self, player: int, action, lang: str) -> Message:
        ph = self.phase
        t = action.type
        if ph == PICKING:
            if self.picks[player] >= 0:
                return msg("You have already picked your card for this pass; wait for the others.")
            if t != "pick":
                return msg("Everybody first picks a card from their hand; cards are played once all have picked.")
            return msg("You can only pick a card that is in your hand.")
        if ph == CHOOSING:
            if t != "pick":
                return msg("In the tactical draft you first choose which card of your hand to play.")
            return msg("You can only pick a card that is in your hand.")
        if ph == EXTRA_CARD:
            if t == "extra":
                return msg("Extra cards are taken from the face-up display, and that card is not there.")
            return msg("You have earned an extra card: take one from the face-up display or decline it.")
        # USING
        if t != "place":
            return msg("Play the {card} first: place a diamond or sail.", card=kind_word(self.card))
        if not self.can_place(player):
            if self.personal[player] == 0 and self.aside[player] > 0:
                return msg("Your set-aside diamonds can only be used for extra cards; use this card to sail.")
            return msg("You have no diamond left to place; use the card to sail.")
        s = action.args["space"]
        k = self.card
        a = KAREA[k]
        if AREA[s] != a:
            return msg("A {area} card places a diamond in the {area} area only, "
                       "not on {space} (any card may instead be used to sail).",
                       area=AREA_WORD[AREAS[a]], space=SPACE_WORD[s])
        if self.owner[s] >= 0:
            return msg("{space} already holds a diamond: each space holds one.", space=SPACE_WORD[s])
        if a == HOUSES:
            return msg("Houses are filled in order without skipping: the next free house is house {number}.",
                       number=self.houses_next + 1)
        if a == WORKSHOPS or a == TRADE:
            return msg("This card places only on a space showing its symbol ({symbol}).",
                       symbol=word(SYMBOL, D.symbols[a][KSYM[k]]))
        if a == NOBLES or a == COMMONERS:
            return msg("Pyramids are built from the base up: both spaces beneath must hold diamonds first.")
        return msg("{action} is not allowed now: {prompt}", action=repr(self.action_text(player, action, lang)),
                   prompt=self._prompt(player))

    # -- outcome --------------------------------------------------------------------------
    def scores(self) -> list[float]:
        if self.phase == OVER:
            return [self.points[p] + self.bonus_pts[p] for p in range(self.num_players)]
        return list(self.points)

    def diamonds_left(self, p: int) -> int:
        return self.personal[p] + self.aside[p]

    def tiebreak(self, player: int) -> tuple:
        return (-self.diamonds_left(player),)

    def tiebreak_explained(self, lang: str = SOURCE) -> str:
        return self.say(msg("Ties are broken by fewer diamonds left (personal supply and set-aside); "
                            "still tied: shared."), lang)

    # -- information -------------------------------------------------------------------------
    def _known(self, viewer: int | None, q: int) -> bool:
        return viewer is not None and (viewer == q or bool(self.seen[q] >> viewer & 1))

    def view(self, player: int | None) -> dict[str, Any]:
        n = self.num_players
        owner = self.owner
        ph = self.phase
        known_hands: list[Any] = []
        for q in range(n):
            if q == player or not self._known(player, q):
                known_hands.append(None)
            else:
                cards = list(self.hands[q])
                if self.picks[q] >= 0:
                    cards.append(self.picks[q])
                known_hands.append([KIND_CODE[k] for k in sorted(cards)])
        out: dict[str, Any] = {
            "game": GAME_ID,
            "players": n,
            "phase": PHASE_NAMES[ph],
            "draft": "tactical" if self.tactical else "simultaneous",
            "to_move": list(self.to_move()),
            "prompt": self.prompt(player) if player is not None else self._spectator_prompt(),
            # the same sentence as a message, for a reader of another language
            "prompt_message": self._prompt(player) if player is not None else self._spectator_prompt_message(),
            "player": player,
            "round": self.round + 1,
            "start_player": self.start,
            "current": self.cur,
            "plays_done": self.plays_done,
            "plays_per_round": D.played_per_round[n],
            "scores": list(self.points),
            "bonus_points": list(self.bonus_pts),
            "final_scores": self.scores() if ph == OVER else None,
            "diamonds": list(self.personal),
            "set_aside": list(self.aside),
            "ships": list(self.ship),
            "board": {AREAS[a]: owner[D.area_start[a]:D.area_start[a + 1]] for a in range(6)},
            "bonus_spaces": {AREAS[a]: self.bonus_owner[4 * a:4 * a + 4] for a in range(5)},
            "houses_next": self.houses_next,
            "display": [KIND_CODE[k] for k in self.display],
            "discard": [KIND_CODE[k] for k in self.discard],
            "deck": len(self.deck),
            "hand_sizes": [len(h) for h in self.hands],
            "picked": [x >= 0 for x in self.picks],
            "hand": [KIND_CODE[k] for k in self.hands[player]] if player is not None else None,
            "pick": KIND_CODE[self.picks[player]] if player is not None and self.picks[player] >= 0 else None,
            "known_hands": known_hands,
            "card_in_play": KIND_CODE[self.card] if self.card >= 0 else None,
            "card_is_extra": self.card_extra,
            "extra_cards_pending": self.extras,
            "ending": self.ending,
            "layout": BOARD_LAYOUT,  # static, public: the printed board (shared, do not mutate)
        }
        return out

    def _spectator_prompt(self) -> str:
        return self.say(self._spectator_prompt_message())

    def _spectator_prompt_message(self) -> Message:
        if self.phase == OVER:
            return msg("The game is over.")
        if self.phase == PICKING:
            return msg("The players are picking their cards.")
        return msg("Seat {seat} is playing.", seat=self.cur + 1)

    def determinize(self, player: int | None, rng: Rng) -> "MilleFioriState":
        s = self.clone()
        n = self.num_players
        pool = list(s.deck)
        unknown = []
        for q in range(n):
            if q == player:
                continue
            if self._known(player, q):
                # the viewer knows hand + pick together, not which one was picked
                if s.picks[q] >= 0:
                    cards = sorted(s.hands[q] + [s.picks[q]])  # canonical: independent of the real pick
                    i = rng.below(len(cards))
                    s.picks[q] = cards.pop(i)
                    cards.sort()
                    s.hands[q] = cards
                continue
            unknown.append(q)
            pool.extend(s.hands[q])
            if s.picks[q] >= 0:
                pool.append(s.picks[q])
        pool.sort()  # canonical order: the result depends on the view and rng only
        rng.shuffle(pool)
        nd = len(s.deck)
        s.deck = pool[:nd]
        i = nd
        for q in unknown:
            m = len(s.hands[q])
            s.hands[q] = sorted(pool[i:i + m])
            i += m
            if s.picks[q] >= 0:
                s.picks[q] = pool[i]
                i += 1
        s.rng = rng.spawn()
        return s

    def search_determinization(self, player: int, rng: Rng) -> "MilleFioriState":
        """During a simultaneous pick, the other seats' unrevealed picks go back to
        their hands: for a search they are still to choose."""
        s = self.determinize(player, rng)
        if s.phase == PICKING:
            for q in range(s.num_players):
                if q != player and s.picks[q] >= 0:
                    s.hands[q].append(s.picks[q])
                    s.hands[q].sort()
                    s.picks[q] = -1
        return s

    def component_counts(self) -> dict[str, int]:
        n = self.num_players
        cards = len(self.deck) + len(self.display) + len(self.discard) + sum(len(h) for h in self.hands)
        cards += sum(1 for x in self.picks if x >= 0) + (1 if self.card >= 0 else 0)
        out = {"cards": cards}
        for p in range(n):
            on_board = sum(1 for o in self.owner if o == p) + sum(1 for o in self.bonus_owner if o == p)
            out[f"diamonds_{p}"] = on_board + self.personal[p] + self.aside[p]
        return out
