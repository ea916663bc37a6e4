"""Splendor rules: state, legal actions, turn flow, scoring, views.

The state is flat (lists of ints and tuples) so that ``clone`` copies a few
small lists and a random turn costs a few microseconds.  A turn is split into
decisions: the main action, then (if needed) choosing how to pay with gold,
returning tokens one at a time down to 10, and choosing among several nobles.
"""

from __future__ import annotations

from itertools import combinations, product
from typing import Any

from gemtable.core import Action, ActionSpace, Event, Game, Rng, State
from gemtable.core.i18n import Message, msg, msgn, msgp

from .data import SplendorData, load

DATA: SplendorData = load()
COLOURS = DATA.colours
TOKEN_NAMES = COLOURS + ("gold",)
GOLD = 5
LIMIT = DATA.token_limit
MAX_RES = DATA.max_reserved
TWO_MIN = DATA.take_two_minimum
END_POINTS = DATA.points_to_end
FACE_UP = DATA.face_up

CARDS = DATA.cards
NCARDS = len(CARDS)
LEVEL = tuple(c.level for c in CARDS)
BONUS = tuple(c.bonus for c in CARDS)
POINTS = tuple(c.points for c in CARDS)
COST = tuple(c.cost for c in CARDS)
COST_NZ = tuple(tuple((i, a) for i, a in enumerate(c.cost) if a) for c in CARDS)
NOBLE_NEED = tuple(n.need for n in DATA.nobles)
NOBLE_NZ = tuple(tuple((i, a) for i, a in enumerate(n.need) if a) for n in DATA.nobles)
NOBLE_POINTS = tuple(n.points for n in DATA.nobles)
MIN_NOBLE_CARDS = min(sum(n) for n in NOBLE_NEED)

MAIN, RETURN, NOBLE, PAY, OVER = range(5)
PHASE_NAMES = ("main", "return", "noble", "pay", "over")


def card_text(cid: int) -> str:
    cost = ", ".join(f"{a} {COLOURS[i]}" for i, a in COST_NZ[cid])
    pts = f" {POINTS[cid]}pt" if POINTS[cid] else ""
    return f"L{LEVEL[cid] + 1} {COLOURS[BONUS[cid]]}{pts} ({cost})"


def noble_text(nid: int) -> str:
    """A noble named by what is printed on its tile: points and requirement."""
    need = ", ".join(f"{a} {COLOURS[i]}" for i, a in NOBLE_NZ[nid])
    return f"{NOBLE_POINTS[nid]}pt ({need})"


# Texts for readers (log lines, refusals, prompts, action texts) are messages
# (gemtable.core.i18n), built only when a text is shown or logged, never in a bot's step.
_COLOUR_WORDS = {
    "white": msgp("gem colour", "white"), "blue": msgp("gem colour", "blue"),
    "green": msgp("gem colour", "green"), "red": msgp("gem colour", "red"),
    "black": msgp("gem colour", "black"), "gold": msgp("gem colour", "gold"),
}
TOKEN_WORDS = tuple(_COLOUR_WORDS[name] for name in TOKEN_NAMES)
"""A token's colour as a message, by index (the five gem colours, then gold)."""


def _seat(p: int) -> str:
    """The seat field of a log line: filled with the seat's name when shown."""
    return f"{{P{p}}}"


def _cost(pairs: tuple[tuple[int, int], ...]) -> list[Message]:
    return [msg("{n} {colour}", n=a, colour=TOKEN_WORDS[i]) for i, a in pairs]


def card_message(cid: int) -> Message:
    """:func:`card_text` as a message."""
    points = msg(" {points}pt", points=POINTS[cid]) if POINTS[cid] else ""
    return msg("L{level} {bonus}{points} ({cost})", level=LEVEL[cid] + 1, bonus=TOKEN_WORDS[BONUS[cid]],
               points=points, cost=_cost(COST_NZ[cid]))


def noble_message(nid: int) -> Message:
    """:func:`noble_text` as a message."""
    return msg("{points}pt ({need})", points=NOBLE_POINTS[nid], need=_cost(NOBLE_NZ[nid]))


def _and(items: list[Any]) -> Any:
    """"a", "a and b", "a, b and c" (the English list with its last "and")."""
    if len(items) == 1:
        return items[0]
    return msg("{items} and {last}", items=items[:-1], last=items[-1])


def _card_json(cid: int) -> dict[str, Any]:
    return {
        "id": cid,
        "level": LEVEL[cid] + 1,
        "bonus": COLOURS[BONUS[cid]],
        "points": POINTS[cid],
        "cost": {COLOURS[i]: a for i, a in COST_NZ[cid]},
    }


def _noble_json(nid: int) -> dict[str, Any]:
    return {
        "id": nid,
        "points": NOBLE_POINTS[nid],
        "needs": {COLOURS[i]: a for i, a in NOBLE_NZ[nid]},
    }


# Every view and event describes cards and nobles: each description is built once (views are
# built for every seat after every move on the server) and handed out as a fresh top-level
# copy; the nested cost/needs dicts are shared and must not be changed.
_CARDS_JSON = [_card_json(c) for c in range(len(LEVEL))]
_NOBLES_JSON = [_noble_json(x) for x in range(len(NOBLE_POINTS))]


def card_json(cid: int) -> dict[str, Any]:
    return _CARDS_JSON[cid].copy()


def noble_json(nid: int) -> dict[str, Any]:
    return _NOBLES_JSON[nid].copy()


# ---------------------------------------------------------------------------
# The action space (fixed, interned) and decoding tables
# ---------------------------------------------------------------------------
ACTIONS = ActionSpace("splendor")
T_TAKE, T_TWO, T_RESERVE, T_BLIND, T_BUY, T_PAY, T_RETURN, T_NOBLE, T_PASS = range(9)
DECODE: list[tuple[int, Any]] = []


def _add(code: int, arg: Any, type: str, text: str, **args: Any) -> Action:
    a = ACTIONS.add(type, text, **args)
    DECODE.append((code, arg))
    return a


TAKE: dict[tuple[int, ...], Action] = {}
for k in (3, 2, 1):
    for combo in combinations(range(5), k):
        names = [COLOURS[c] for c in combo]
        TAKE[combo] = _add(T_TAKE, combo, "take", "take " + ", ".join(names), colours=names)
TWO = [_add(T_TWO, c, "take_two", f"take 2 {COLOURS[c]}", colour=COLOURS[c]) for c in range(5)]
RESERVE = [_add(T_RESERVE, cid, "reserve", f"reserve {card_text(cid)}", card=cid) for cid in range(NCARDS)]
BLIND = [_add(T_BLIND, lv, "reserve_blind", f"reserve the top card of the level-{lv + 1} deck", level=lv + 1)
         for lv in range(3)]
BUY = [_add(T_BUY, cid, "buy", f"buy {card_text(cid)}", card=cid) for cid in range(NCARDS)]
PAY_ACT: dict[tuple[int, ...], Action] = {}
for vec in product(range(DATA.gold_tokens + 1), repeat=5):
    if sum(vec) <= DATA.gold_tokens:
        used = ", ".join(f"{g} for {COLOURS[i]}" for i, g in enumerate(vec) if g)
        text = f"pay with gold: {used}" if used else "pay without gold"
        PAY_ACT[vec] = _add(T_PAY, vec, "pay", text, gold=list(vec))
RETURN_TOKEN = [_add(T_RETURN, c, "return", f"return 1 {TOKEN_NAMES[c]}", token=TOKEN_NAMES[c]) for c in range(6)]
NOBLE_PICK = [_add(T_NOBLE, nid, "noble", f"receive the noble {noble_text(nid)}", noble=nid)
              for nid in range(len(DATA.nobles))]
PASS = _add(T_PASS, None, "pass", "pass (no legal action)")
DECODE_T = tuple(DECODE)


def action_message(action: Action) -> Message:
    """An action's text as a message (its English rendering is ``action.text``)."""
    code, arg = DECODE_T[action.id]
    if code == T_TAKE:
        return msg("take {colours}", colours=[TOKEN_WORDS[c] for c in arg])
    if code == T_TWO:
        return msg("take 2 {colour}", colour=TOKEN_WORDS[arg])
    if code == T_RESERVE:
        return msg("reserve {card}", card=card_message(arg))
    if code == T_BLIND:
        return msg("reserve the top card of the level-{level} deck", level=arg + 1)
    if code == T_BUY:
        return msg("buy {card}", card=card_message(arg))
    if code == T_PAY:
        used = [msg("{n} for {colour}", n=g, colour=TOKEN_WORDS[i]) for i, g in enumerate(arg) if g]
        return msg("pay with gold: {used}", used=used) if used else msg("pay without gold")
    if code == T_RETURN:
        return msg("return 1 {colour}", colour=TOKEN_WORDS[arg])
    if code == T_NOBLE:
        return msg("receive the noble {noble}", noble=noble_message(arg))
    return msg("pass (no legal action)")

# Token-taking actions by availability: mask of colours with >= 1 token, and with >= 4.
TAKE_BY_MASK: list[tuple[Action, ...]] = []
TWO_BY_MASK: list[tuple[Action, ...]] = []
for mask in range(32):
    avail = [c for c in range(5) if mask >> c & 1]
    k = min(3, len(avail))
    TAKE_BY_MASK.append(tuple(TAKE[c] for c in combinations(avail, k)) if k else ())
    TWO_BY_MASK.append(tuple(TWO[c] for c in avail))


def _mask(bank: list[int], minimum: int) -> int:
    return ((bank[0] >= minimum) | (bank[1] >= minimum) << 1 | (bank[2] >= minimum) << 2
            | (bank[3] >= minimum) << 3 | (bank[4] >= minimum) << 4)


class SplendorState(State):
    # explicit chance: card ids (draws) and noble ids (the nobles shuffle)
    chance_outcomes_bound = max(len(CARDS), len(DATA.nobles))
    __slots__ = (
        "game", "num_players", "rng", "turn", "cur", "phase", "bank", "tok", "bon", "pts",
        "ncards", "owned", "res", "blind", "nob", "board", "decks", "avail", "out",
        "last_round", "passes", "pend",
    )

    # -- setup ---------------------------------------------------------------
    @classmethod
    def initial(cls, game: Game, num_players: int, rng: Rng, options: dict[str, Any]) -> "SplendorState":
        s = cls.__new__(cls)
        n = num_players
        s.game, s.num_players, s.rng, s.turn = game, n, rng, 0
        s.cur, s.phase, s.last_round, s.passes, s.pend = 0, MAIN, False, 0, -1
        g = DATA.gem_tokens[n]
        s.bank = [g, g, g, g, g, DATA.gold_tokens]
        s.tok = [0] * (6 * n)
        s.bon = [0] * (5 * n)
        s.pts = [0] * n
        s.ncards = [0] * n
        s.owned = [()] * n
        s.res = [()] * n
        s.blind = [0] * n
        s.nob = [()] * n
        s.decks = []
        for level in range(3):
            deck = [c.id for c in CARDS if c.level == level]
            rng.shuffle_face_down(deck)
            s.decks.append(deck)
        s.board = [rng.draw(s.decks[lv]) for lv in range(3) for _ in range(FACE_UP)]
        nobles = list(range(len(DATA.nobles)))
        rng.shuffle(nobles)
        k = DATA.nobles_revealed[n]
        s.avail, s.out = tuple(sorted(nobles[:k])), tuple(sorted(nobles[k:]))
        return s

    def clone(self) -> "SplendorState":
        s = SplendorState.__new__(SplendorState)
        s.game, s.num_players, s.rng, s.turn = self.game, self.num_players, self.rng.clone(), self.turn
        s.cur, s.phase, s.last_round, s.passes, s.pend = self.cur, self.phase, self.last_round, self.passes, self.pend
        s.bank, s.tok, s.bon, s.pts, s.ncards = self.bank[:], self.tok[:], self.bon[:], self.pts[:], self.ncards[:]
        s.owned, s.res, s.blind, s.nob = self.owned[:], self.res[:], self.blind[:], self.nob[:]
        s.board, s.decks = self.board[:], [d[:] for d in self.decks]
        s.avail, s.out = self.avail, self.out
        return s

    # -- turn flow -------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.cur,)

    def is_over(self) -> bool:
        return self.phase == OVER

    def legal_actions(self, player: int) -> list[Action]:
        if player != self.cur:
            return []
        phase = self.phase
        if phase == MAIN:
            return self._main_actions(player)
        if phase == RETURN:
            o = player * 6
            tok = self.tok
            return [RETURN_TOKEN[c] for c in range(6) if tok[o + c]]
        if phase == NOBLE:
            return [NOBLE_PICK[nid] for nid in self._qualifying(player)]
        if phase == PAY:
            return [PAY_ACT[v] for v in self._payments(player, self.pend)]
        return []

    def _main_actions(self, p: int) -> list[Action]:
        bank = self.bank
        acts = list(TAKE_BY_MASK[_mask(bank, 1)])
        acts += TWO_BY_MASK[_mask(bank, TWO_MIN)]
        board = self.board
        res = self.res[p]
        if len(res) < MAX_RES:
            for cid in board:
                if cid >= 0:
                    acts.append(RESERVE[cid])
            decks = self.decks
            if decks[0]:
                acts.append(BLIND[0])
            if decks[1]:
                acts.append(BLIND[1])
            if decks[2]:
                acts.append(BLIND[2])
        tok, bon = self.tok, self.bon
        o, b = p * 6, p * 5
        pw = (tok[o] + bon[b], tok[o + 1] + bon[b + 1], tok[o + 2] + bon[b + 2],
              tok[o + 3] + bon[b + 3], tok[o + 4] + bon[b + 4])
        gold = tok[o + 5]
        for cid in (*board, *res):
            if cid < 0:
                continue
            short = 0
            for c, a in COST_NZ[cid]:
                if a > pw[c]:
                    short += a - pw[c]
            if short <= gold:
                acts.append(BUY[cid])
        if not acts:
            acts.append(PASS)
        return acts

    def _qualifying(self, p: int) -> list[int]:
        bon, b = self.bon, p * 5
        return [nid for nid in self.avail if all(bon[b + c] >= a for c, a in NOBLE_NZ[nid])]

    def _needs(self, p: int, cid: int) -> list[int]:
        bon, b = self.bon, p * 5
        return [max(0, COST[cid][i] - bon[b + i]) for i in range(5)]

    def _payments(self, p: int, cid: int) -> list[tuple[int, ...]]:
        """Every distinct gold-use vector that pays for card ``cid``."""
        need = self._needs(p, cid)
        tok, o = self.tok, p * 6
        gold = tok[o + 5]
        ranges = []
        for i in range(5):
            lo = max(0, need[i] - tok[o + i])
            ranges.append(range(lo, min(need[i], gold) + 1))
        return [v for v in product(*ranges) if sum(v) <= gold]

    def _apply(self, p: int, action: Action, log: list[Event] | None) -> None:
        code, arg = DECODE_T[action.id]
        tok, bank = self.tok, self.bank
        o = p * 6
        if code == T_TAKE:
            for c in arg:
                bank[c] -= 1
                tok[o + c] += 1
            if log is not None:
                log.append(_ev(p, "take", msg("{player} takes {tokens}.", player=_seat(p),
                                              tokens=[TOKEN_WORDS[c] for c in arg]),
                               tokens=[COLOURS[c] for c in arg]))
            self._after_tokens(p, log)
        elif code == T_TWO:
            bank[arg] -= 2
            tok[o + arg] += 2
            if log is not None:
                log.append(_ev(p, "take", msg("{player} takes 2 {colour}.", player=_seat(p), colour=TOKEN_WORDS[arg]),
                               tokens=[COLOURS[arg]] * 2))
            self._after_tokens(p, log)
        elif code == T_RESERVE:
            slot = self.board.index(arg)
            self._refill(slot)
            self.res[p] += (arg,)
            got_gold = self._take_gold(p)
            if log is not None:
                text = (msg("{player} reserves {card} and a gold.", player=_seat(p), card=card_message(arg))
                        if got_gold else
                        msg("{player} reserves {card} (no gold left).", player=_seat(p), card=card_message(arg)))
                log.append(_ev(p, "reserve", text, card=card_json(arg), gold=got_gold))
            self._after_tokens(p, log)
        elif code == T_BLIND:
            cid = self.rng.draw(self.decks[arg])
            self.res[p] += (cid,)
            self.blind[p] |= 1 << cid
            got_gold = self._take_gold(p)
            if log is not None:
                if got_gold:
                    seen = msg("{player} reserves the top card of the level-{level} deck and a gold.",
                               player=_seat(p), level=arg + 1)
                    own = msg("{player} reserves {card} blind and a gold.", player=_seat(p), card=card_message(cid))
                else:
                    seen = msg("{player} reserves the top card of the level-{level} deck (no gold left).",
                               player=_seat(p), level=arg + 1)
                    own = msg("{player} reserves {card} blind (no gold left).", player=_seat(p),
                              card=card_message(cid))
                public = _ev(p, "reserve_blind", seen, level=arg + 1, gold=got_gold)
                ev = dict(public, text=own, card=card_json(cid), only=[p], public=public)
                log.append(ev)
            self._after_tokens(p, log)
        elif code == T_BUY:
            self.blind[p] &= ~(1 << arg)  # buying reveals a blind-reserved card
            pays = self._payments(p, arg)
            if len(pays) == 1:
                self._pay(p, arg, pays[0], log)
            else:
                self.pend = arg
                self.phase = PAY
                if log is not None:
                    log.append(_ev(p, "buying", msg("{player} buys {card} and chooses how to use gold.",
                                                    player=_seat(p), card=card_message(arg)),
                                   card=card_json(arg)))
        elif code == T_PAY:
            cid = self.pend
            self.pend = -1
            self.phase = MAIN
            self._pay(p, cid, arg, log)
        elif code == T_RETURN:
            tok[o + arg] -= 1
            bank[arg] += 1
            if log is not None:
                log.append(_ev(p, "return", msg("{player} returns 1 {colour}.", player=_seat(p),
                                                colour=TOKEN_WORDS[arg]), token=TOKEN_NAMES[arg]))
            if sum(tok[o:o + 6]) <= LIMIT:
                self.phase = MAIN
                self._end_turn(p, log)
        elif code == T_NOBLE:
            self.phase = MAIN
            self._grant_noble(p, arg, log)
            self._finish_turn(p, log)
        else:  # pass
            if log is not None:
                log.append(_ev(p, "pass", msg("{player} has no legal action and passes.", player=_seat(p))))
            self.passes += 1
            self._end_turn(p, log, passed=True)

    def is_checkpoint(self, player: int, action: Action) -> bool:
        """Draws and reveals: a card taken from the table is replaced from its deck, a blind
        reservation shows its owner the top card, and buying a blind-reserved card shows it to
        everyone.  Gems, returns, nobles and passes draw and show nothing."""
        code, arg = DECODE_T[action.id]
        if code == T_RESERVE:
            return bool(self.decks[LEVEL[arg]])  # the empty slot is refilled only from a deck
        if code == T_BLIND:
            return True
        if code == T_BUY:
            if self.blind[player] >> arg & 1:
                return True
            if arg in self.res[player]:
                return False  # an open reserved card leaves no gap on the table
            # from the table: refilled now, unless the gold payment is chosen first (then on T_PAY)
            return bool(self.decks[LEVEL[arg]]) and len(self._payments(player, arg)) == 1
        if code == T_PAY:
            cid = self.pend
            return cid not in self.res[player] and bool(self.decks[LEVEL[cid]])
        return False

    # -- pieces of a turn ------------------------------------------------------
    def _take_gold(self, p: int) -> bool:
        if self.bank[GOLD] > 0:
            self.bank[GOLD] -= 1
            self.tok[p * 6 + GOLD] += 1
            return True
        return False

    def _refill(self, slot: int) -> None:
        deck = self.decks[slot // FACE_UP]
        self.board[slot] = self.rng.draw(deck) if deck else -1

    def _after_tokens(self, p: int, log: list[Event] | None) -> None:
        o = p * 6
        if sum(self.tok[o:o + 6]) > LIMIT:
            self.phase = RETURN
        else:
            self._end_turn(p, log)

    def _pay(self, p: int, cid: int, gold_vec: tuple[int, ...], log: list[Event] | None) -> None:
        tok, bank, bon = self.tok, self.bank, self.bon
        o, b = p * 6, p * 5
        gold_used = 0
        for i in range(5):
            need = COST[cid][i] - bon[b + i]
            if need > 0:
                g = gold_vec[i]
                t = need - g
                tok[o + i] -= t
                bank[i] += t
                gold_used += g
        tok[o + GOLD] -= gold_used
        bank[GOLD] += gold_used
        if cid in self.res[p]:
            self.res[p] = tuple(c for c in self.res[p] if c != cid)
            reserved = True
        else:
            self._refill(self.board.index(cid))
            reserved = False
        self.owned[p] += (cid,)
        bon[b + BONUS[cid]] += 1
        self.pts[p] += POINTS[cid]
        self.ncards[p] += 1
        if log is not None:
            card = card_message(cid)
            if reserved:
                text = (msg("{player} buys {card} from their reserve, using {gold} gold.", player=_seat(p), card=card,
                            gold=gold_used) if gold_used else
                        msg("{player} buys {card} from their reserve.", player=_seat(p), card=card))
            else:
                text = (msg("{player} buys {card} from the table, using {gold} gold.", player=_seat(p), card=card,
                            gold=gold_used) if gold_used else
                        msg("{player} buys {card} from the table.", player=_seat(p), card=card))
            log.append(_ev(p, "buy", text, card=card_json(cid), gold_used=gold_used))
        self._end_turn(p, log)

    def _end_turn(self, p: int, log: list[Event] | None, passed: bool = False) -> None:
        """Noble visit (on bonuses only, at most one, the player's choice), then next player.

        A passed turn ends like any other: a noble the player still qualifies for visits.
        Such a turn changed the position, so it does not count towards everyone passing."""
        if self.ncards[p] >= MIN_NOBLE_CARDS:
            q = self._qualifying(p)
            if len(q) == 1:
                self._grant_noble(p, q[0], log)
                passed = False
            elif q:
                self.phase = NOBLE
                return
        self._finish_turn(p, log, passed)

    def _grant_noble(self, p: int, nid: int, log: list[Event] | None) -> None:
        self.avail = tuple(x for x in self.avail if x != nid)
        self.nob[p] += (nid,)
        self.pts[p] += NOBLE_POINTS[nid]
        if log is not None:
            log.append(_ev(p, "noble", msg("The noble {noble} visits {player} (+{points}).", noble=noble_message(nid),
                                           player=_seat(p), points=NOBLE_POINTS[nid]),
                           noble=noble_json(nid)))

    def _finish_turn(self, p: int, log: list[Event] | None, passed: bool = False) -> None:
        if not passed:
            self.passes = 0
        self.turn += 1
        n = self.num_players
        if self.pts[p] >= END_POINTS and not self.last_round:
            self.last_round = True
            if log is not None:
                log.append(_ev(p, "last_round", msg("{player} reaches {points} points: the round is played out.",
                                                    player=_seat(p), points=self.pts[p])))
        self.cur = nxt = (p + 1) % n
        if (self.last_round and nxt == 0) or self.passes >= n:
            self.phase = OVER
            if log is not None:
                log.append({"type": "game_over", "text": self._final_message(), "result": self.result()})

    # -- outcome -------------------------------------------------------------------
    def scores(self) -> list[float]:
        return list(self.pts)

    def tiebreak(self, player: int) -> tuple:
        return (-self.ncards[player],)

    def tiebreak_explained(self, lang: str = "en") -> str:
        best = max(self.pts)
        tied = [p for p in range(self.num_players) if self.pts[p] == best]
        if len(tied) < 2:
            return ""
        fewest = min(self.ncards[p] for p in tied)
        names = [_seat(p) for p in tied]
        win = [p for p in tied if self.ncards[p] == fewest]
        if len(win) == 1:
            text = msg("{players} tie on {points} points; {winner} wins with the fewest development cards ({cards}).",
                       players=names, points=best, winner=_seat(win[0]), cards=fewest)
        else:
            text = msg("{players} tie on {points} points and on cards ({cards}): the victory is shared.",
                       players=names, points=best, cards=fewest)
        return self.say(text, lang)

    def _final_message(self) -> Message:
        wins = self.winners()
        who = _seat(wins[0])
        for p in wins[1:]:
            who = msg("{first} and {second}", first=who, second=_seat(p))
        if self.passes >= self.num_players:
            return msgn("Nobody can act any more; the game ends. {players} wins.",
                        "Nobody can act any more; the game ends. {players} win.", n=len(wins), players=who)
        return msgn("The game ends. {players} wins with {points} points.",
                    "The game ends. {players} win with {points} points.", n=len(wins), players=who,
                    points=max(self.pts))

    # -- rules named in errors -------------------------------------------------------
    def prompt(self, player: int, lang: str = "en") -> str:
        return self.say(self._prompt(player), lang)

    def _prompt(self, player: int) -> Message:
        if self.phase == OVER:
            return msg("The game is over.")
        if player != self.cur:
            return msg("Waiting for seat {seat}.", seat=self.cur + 1)
        if self.phase == RETURN:
            held = sum(self.tok[player * 6: player * 6 + 6])
            return msg("You hold {held} tokens: return one (you may keep at most {limit}).", held=held, limit=LIMIT)
        if self.phase == NOBLE:
            return msg("Several nobles would visit you: choose one (one noble per turn).")
        if self.phase == PAY:
            return msg("Choose how much gold to spend on {card}.", card=card_message(self.pend))
        return msg("Take gems, reserve a card or buy a card.")

    def action_text(self, player: int, action: Action, lang: str = "en") -> str:
        return action.text if lang == "en" else self.say(action_message(action), lang)

    def why_illegal(self, player: int, action: Action, lang: str = "en") -> str:
        return self.say(self._why_illegal(player, action), lang)

    def _why_illegal(self, player: int, action: Action) -> Message:
        code, arg = DECODE_T[action.id]
        phase = self.phase
        if phase == RETURN and code != T_RETURN:
            return msg("Token limit: you must first return tokens down to {limit}.", limit=LIMIT)
        if phase == NOBLE and code != T_NOBLE:
            return msg("Nobles: choose which of the qualifying nobles visits you first.")
        if phase == PAY and code != T_PAY:
            return msg("Buying: first choose how to pay for the card you are buying.")
        if phase == MAIN and code in (T_RETURN, T_NOBLE, T_PAY):
            return msg("That step only follows another action; now take gems, reserve or buy.")
        o = player * 6
        if code == T_TAKE:
            empty = [TOKEN_WORDS[c] for c in arg if self.bank[c] == 0]
            if empty:
                return msg("Taking gems: there are no {colours} tokens left.", colours=empty)
            return msg("Taking gems: take 3 tokens of different colours; fewer only when fewer than 3 "
                       "colours are available, and then one of each available colour.")
        if code == T_TWO:
            return msg("Taking 2 of one colour needs at least {minimum} {colour} tokens in the pile "
                       "before taking; there are {count}.", minimum=TWO_MIN, colour=TOKEN_WORDS[arg],
                       count=self.bank[arg])
        if code in (T_RESERVE, T_BLIND):
            if len(self.res[player]) >= MAX_RES:
                return msg("Reserving: you may hold at most {limit} reserved cards.", limit=MAX_RES)
            if code == T_BLIND:
                return msg("Reserving blind: the level-{level} deck is empty.", level=arg + 1)
            return msg("Reserving: that card is not face up on the table.")
        if code == T_BUY:
            if arg not in self.board and arg not in self.res[player]:
                return msg("Buying: that card is neither face up on the table nor reserved by you.")
            need = self._needs(player, arg)
            missing = [(max(0, need[i] - self.tok[o + i]), i) for i in range(5)]
            told = _and([msg("{n} more {colour}", n=n, colour=TOKEN_WORDS[c]) for n, c in missing if n])
            gold = self.tok[o + GOLD]
            short = sum(n for n, _ in missing) - gold
            shortfall = msgn("{n} token short", "{n} tokens short", n=short)
            if gold:
                return msg("Buying: you need {needs} after your bonuses; {cover}, so you are still {short}.",
                           needs=told, short=shortfall,
                           cover=msgn("your {n} gold token covers only {n} of them",
                                      "your {n} gold tokens cover only {n} of them", n=gold))
            return msg("Buying: you need {needs} (after your bonuses), so you are {short}.", needs=told,
                       short=shortfall)
        if code == T_RETURN:
            return msg("Returning tokens: you hold no {colour} token.", colour=TOKEN_WORDS[arg])
        if code == T_NOBLE:
            return msg("Nobles: your bonuses do not meet that noble's requirement (or it is not on the table).")
        if code == T_PAY:
            return msg("Buying: that gold payment does not match the card's cost, your bonuses and tokens.")
        if code == T_PASS:
            return msg("Passing is only allowed when you have no other legal action.")
        return msg(super().why_illegal(player, action))  # pragma: no cover

    # -- information ------------------------------------------------------------------
    def view(self, player: int | None) -> dict[str, Any]:
        n = self.num_players
        seats = []
        for p in range(n):
            reserved = []
            for cid in self.res[p]:
                if player == p or not (self.blind[p] >> cid & 1):
                    reserved.append(card_json(cid))
                else:
                    reserved.append({"level": LEVEL[cid] + 1, "hidden": True})
            seats.append({
                "tokens": dict(zip(TOKEN_NAMES, self.tok[p * 6: p * 6 + 6])),
                "bonuses": dict(zip(COLOURS, self.bon[p * 5: p * 5 + 5])),
                "points": self.pts[p],
                "cards": self.ncards[p],
                "purchased": [card_json(c) for c in self.owned[p]],
                "reserved": reserved,
                "nobles": [noble_json(x) for x in self.nob[p]],
            })
        board = [[card_json(c) if c >= 0 else None for c in self.board[lv * FACE_UP:(lv + 1) * FACE_UP]]
                 for lv in range(3)]
        view: dict[str, Any] = {
            "game": "splendor",
            "players": n,
            "viewer": player,
            "phase": PHASE_NAMES[self.phase],
            "current": self.cur,
            "to_move": list(self.to_move()),
            "prompt": self.prompt(player) if player is not None else self.prompt(-1),
            "turn": self.turn,
            "round": self.turn // n + 1,
            "last_round": self.last_round,
            "bank": dict(zip(TOKEN_NAMES, self.bank)),
            "decks": [len(d) for d in self.decks],
            "board": board,
            "nobles": [noble_json(x) for x in self.avail],
            "seats": seats,
            "scores": self.scores(),
            "pending_card": card_json(self.pend) if self.phase == PAY else None,
        }
        if self.phase == OVER:
            view["result"] = self.result()
        return view

    def determinize(self, player: int | None, rng: Rng) -> "SplendorState":
        """Re-deal what ``player`` cannot see: deck order and the others' blind reserves."""
        s = self.clone()
        s.rng = rng.spawn()
        for level in range(3):
            slots = []  # (seat, index in reserve) of hidden cards of this level
            pool = list(s.decks[level])
            for q in range(s.num_players):
                if q == player:
                    continue
                for i, cid in enumerate(s.res[q]):
                    if LEVEL[cid] == level and s.blind[q] >> cid & 1:
                        slots.append((q, i))
                        pool.append(cid)
            pool.sort()  # canonical order: the result depends on the view and rng only
            rng.shuffle(pool)
            for q, i in slots:  # clear every old hidden bit first: cards may swap seats
                s.blind[q] &= ~(1 << s.res[q][i])
            for q, i in slots:
                new = pool.pop()
                s.res[q] = s.res[q][:i] + (new,) + s.res[q][i + 1:]
                s.blind[q] |= 1 << new
            s.decks[level] = pool
        return s

    def component_counts(self) -> dict[str, int]:
        n = self.num_players
        counts = {}
        for c in range(6):
            counts[TOKEN_NAMES[c]] = self.bank[c] + sum(self.tok[p * 6 + c] for p in range(n))
        cards = sum(len(d) for d in self.decks) + sum(1 for c in self.board if c >= 0)
        cards += sum(len(r) for r in self.res) + sum(len(o) for o in self.owned)
        ids = set(self.board) | {c for d in self.decks for c in d}
        ids |= {c for r in self.res for c in r} | {c for o in self.owned for c in o}
        ids.discard(-1)
        counts["cards"] = cards
        counts["distinct_cards"] = len(ids)
        counts["nobles"] = len(self.avail) + len(self.out) + sum(len(x) for x in self.nob)
        return counts

    # -- serialisation ------------------------------------------------------------------
    _FIELDS = ("turn", "cur", "phase", "bank", "tok", "bon", "pts", "ncards", "blind", "board",
               "last_round", "passes", "pend")

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {f: getattr(self, f) for f in self._FIELDS}
        d = {k: (list(v) if isinstance(v, list) else v) for k, v in d.items()}
        d.update(
            game="splendor",
            players=self.num_players,
            rng=self.rng.s,
            owned=[list(x) for x in self.owned],
            res=[list(x) for x in self.res],
            nob=[list(x) for x in self.nob],
            decks=[list(x) for x in self.decks],
            avail=list(self.avail),
            out=list(self.out),
        )
        return d

    @classmethod
    def from_json(cls, game: Game, data: dict[str, Any]) -> "SplendorState":
        s = cls.__new__(cls)
        s.game, s.num_players, s.rng = game, int(data["players"]), Rng(data["rng"])
        for f in cls._FIELDS:
            v = data[f]
            setattr(s, f, list(v) if isinstance(v, list) else v)
        s.owned = [tuple(x) for x in data["owned"]]
        s.res = [tuple(x) for x in data["res"]]
        s.nob = [tuple(x) for x in data["nob"]]
        s.decks = [list(x) for x in data["decks"]]
        s.avail, s.out = tuple(data["avail"]), tuple(data["out"])
        return s


def _ev(p: int, type: str, text: str, **extra: Any) -> Event:
    ev: Event = {"type": type, "player": p, "text": text}
    ev.update(extra)
    return ev
