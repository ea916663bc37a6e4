"""Azul: Stained Glass of Sintra — the rules (see RULES.md for the summary and decisions).

State layout (flat, for cheap clones): colours are 0..4 (data.colours), per-player
tables are flat lists indexed ``p * 8 + position`` (strips, windows…).

* ``fac``     factory displays, ``f * 5 + colour`` -> count
* ``centre``  5 counts; ``left`` = panes on factories + centre (round ends at 0)
* ``bag``, ``tower``  5 counts each (public: see RULES.md, hidden information)
* ``rcol``    the 6 round-indicator colours (round I first); ``rnd`` current round 0..5
* ``code``    strip at each palace position: strip * 2 + side, -1 when removed
* ``need``    empty spaces per strip position, ``(p*8+i)*6 + colour`` (index 5: joker)
* ``on``      panes lying on each strip position, ``(p*8+i)*5 + colour``
* ``empty``   empty spaces per strip position (0 once removed)
* ``win``     window fields, ``(p*8+w)*2 + 0`` upper, ``+1`` lower; colour or -1
* ``glz``     glazier position per player; ``score``, ``trk`` (track index), ``lost``
"""

from __future__ import annotations

from typing import Any

from gemtable.core import Action, ActionSpace, Rng, State
from gemtable.core.i18n import SOURCE, Message, msg, msgn, msgp

from .data import DATA, JOKER, NUM_STRIPS, NUM_WINDOWS

GAME_ID = "sintra"
NC = 5
COLOURS = DATA.colours
PATTERNS = DATA.patterns
# empty-space vectors (5 colours + joker) of each side code
NEED = tuple(tuple(pat.count(c) for c in range(NC)) + (pat.count(JOKER),) for pat in PATTERNS)
JOKER_CODE = DATA.joker_code
WINDOW_VALUES = DATA.window_values
# points for completing/filling window w: its value + values of filled windows to its right
TRACK = DATA.track
TRACK_LAST = len(TRACK) - 1
ORNAMENTS = DATA.ornaments
ORN_POINTS = DATA.ornament_points
MAX_FACTORIES = max(DATA.factories.values())
PPF = DATA.panes_per_factory
ROUNDS = DATA.rounds
SIDE_NAMES = ("A", "B")

CHOOSE, PLACE, KEEP, OVER = 0, 1, 2, 3
PHASE_NAMES = ("choose", "place", "keep", "over")

# -- the action space -----------------------------------------------------------------
ACTIONS = ActionSpace(GAME_ID)
TAKE_F = tuple(
    tuple(ACTIONS.add("take_factory", f"take {COLOURS[c]} from factory {f + 1}", factory=f, colour=COLOURS[c])
          for c in range(NC))
    for f in range(MAX_FACTORIES)
)
TAKE_C = tuple(ACTIONS.add("take_centre", f"take {COLOURS[c]} from the centre", colour=COLOURS[c])
               for c in range(NC))
PLACE_A = tuple(ACTIONS.add("place", f"place on strip {i + 1}", position=i) for i in range(NUM_STRIPS))
KEEP_A = tuple(ACTIONS.add("keep", f"keep the {COLOURS[c]} pane for the window", colour=COLOURS[c])
               for c in range(NC))
RETURN_A = ACTIONS.add("return_glazier", "return the glazier to the leftmost strip")

COLOUR_INDEX = {name: i for i, name in enumerate(COLOURS)}

# per action id: (kind, first argument, second argument) as small ints for the hot path
K_TAKE_F, K_TAKE_C, K_PLACE, K_KEEP, K_RETURN = range(5)
_DECODE: list[tuple[int, int, int]] = []
for _a in ACTIONS:
    if _a.type == "take_factory":
        _DECODE.append((K_TAKE_F, _a.args["factory"], COLOUR_INDEX[_a.args["colour"]]))
    elif _a.type == "take_centre":
        _DECODE.append((K_TAKE_C, COLOUR_INDEX[_a.args["colour"]], 0))
    elif _a.type == "place":
        _DECODE.append((K_PLACE, _a.args["position"], 0))
    elif _a.type == "keep":
        _DECODE.append((K_KEEP, COLOUR_INDEX[_a.args["colour"]], 0))
    else:
        _DECODE.append((K_RETURN, 0, 0))
DECODE = tuple(_DECODE)


# A colour's word in two grammatical roles: describing panes ("2 yellow panes") and named on
# its own ("no strip for yellow"); languages that decline adjectives need both.
PANE_COLOUR = {
    "white": msgp("pane colour", "white"), "yellow": msgp("pane colour", "yellow"),
    "orange": msgp("pane colour", "orange"), "blue": msgp("pane colour", "blue"),
    "pink": msgp("pane colour", "pink"),
}
COLOUR_NAME = {
    "white": msgp("colour", "white"), "yellow": msgp("colour", "yellow"),
    "orange": msgp("colour", "orange"), "blue": msgp("colour", "blue"),
    "pink": msgp("colour", "pink"),
}


def _plural(n: int, colour: int) -> Message:
    return msgn("{n} {colour} pane", "{n} {colour} panes", n, colour=PANE_COLOUR[COLOURS[colour]])


def _seat(p: int) -> str:
    """The seat placeholder a log line names a player by (filled by format_text)."""
    return f"{{P{p}}}"


class SintraState(State):
    # explicit chance: colours (bag draws, round-indicator shuffle), strips (palace shuffle), sides
    chance_outcomes_bound = max(NC, NUM_STRIPS, 2)
    # ------------------------------------------------------------------ setup
    @classmethod
    def initial(cls, game, num_players: int, rng: Rng, options: dict[str, Any]) -> SintraState:
        s = cls.__new__(cls)
        s.game = game
        s.num_players = n = num_players
        s.rng = rng
        s.turn = 0
        s.side = SIDE_NAMES.index(options.get("palace_side", "A"))
        s.nf = nf = DATA.factories[n]
        s.fac = [0] * (nf * NC)
        s.centre = [0] * NC
        s.left = 0
        ppc = DATA.panes_per_colour
        # round indicator: one pane of each colour in random order on rounds II-VI,
        # the rest into the bag, then one random pane from the bag on round I
        rest = list(range(NC))
        rng.shuffle(rest)
        s.bag = [ppc - 1] * NC
        s.tower = [0] * NC
        first = s._draw()
        s.rcol = [first] + rest
        s.rnd = 0
        # palaces: each player shuffles the 8 strips over the 8 positions, random side up,
        # the joker side face down
        s.code = []
        for _ in range(n):
            order = list(range(NUM_STRIPS))
            rng.shuffle(order)
            for strip in order:
                code = strip * 2 + rng.below(2)
                if code == JOKER_CODE:
                    code ^= 1
                s.code.append(code)
        s.need = []
        for code in s.code:
            s.need.extend(NEED[code])
        s.on = [0] * (n * NUM_STRIPS * NC)
        s.empty = [5] * (n * NUM_STRIPS)
        s.win = [-1] * (n * NUM_WINDOWS * 2)
        s.glz = [0] * n
        s.score = [0] * n
        s.trk = [0] * n
        s.lost = [0] * n
        s.holder = 0  # start player marker (seat 0 starts: see RULES.md)
        s.mic = False  # marker lies in the centre
        s.cur = 0
        s.phase = CHOOSE
        s.pcol = -1  # pending colour (place) / -1
        s.pn = 0  # pending panes (place)
        s.ppos = -1  # pending strip position (keep)
        s.final = None  # end-scoring breakdown per player
        s._start_round(None)
        return s

    def _draw(self) -> int:
        """One random pane from the bag (refilled from the tower when empty); -1 if none."""
        bag = self.bag
        total = bag[0] + bag[1] + bag[2] + bag[3] + bag[4]
        if total == 0:
            tower = self.tower
            total = tower[0] + tower[1] + tower[2] + tower[3] + tower[4]
            if total == 0:
                return -1
            self.bag = bag = tower
            self.tower = [0] * NC
        return self.rng.draw_counted(bag, total)

    def _start_round(self, log: list | None) -> None:
        """Refill the factories; the marker holder puts it in the centre and starts."""
        while True:
            fac = self.fac
            placed = 0
            bag = self.bag
            total = bag[0] + bag[1] + bag[2] + bag[3] + bag[4]
            draw = self.rng.draw_counted
            for i in range(self.nf * PPF):
                if total == 0:  # same as _draw: refill the bag with the whole tower
                    tower = self.tower
                    total = tower[0] + tower[1] + tower[2] + tower[3] + tower[4]
                    if total == 0:
                        break  # bag and tower empty: the remaining factories stay short
                    self.bag = bag = tower
                    self.tower = [0] * NC
                c = draw(bag, total)
                total -= 1
                fac[(i // PPF) * NC + c] += 1
                placed += 1
            self.left = placed
            self.mic = True
            self.cur = self.holder
            self.phase = CHOOSE
            if log is not None:
                log.append({
                    "type": "round",
                    "round": self.rnd + 1,
                    "text": msg("Round {round} begins: the round colour is {colour}; {player} starts.",
                                round=self.rnd + 1, colour=COLOUR_NAME[COLOURS[self.rcol[self.rnd]]],
                                player=_seat(self.holder)),
                })
            if placed:
                return
            # bag and tower both empty: nothing to take, the round ends at once
            if self._end_round(log):
                return

    def _end_round(self, log: list | None) -> bool:
        """Remove the top round pane; True when the game is over (scored)."""
        self.tower[self.rcol[self.rnd]] += 1
        self.rnd += 1
        if self.rnd >= ROUNDS:
            self._final_scoring(log)
            return True
        return False

    # ------------------------------------------------------------------ clone / json
    def clone(self) -> SintraState:
        s = SintraState.__new__(SintraState)
        s.game = self.game
        s.num_players = self.num_players
        s.rng = self.rng.clone()
        s.turn = self.turn
        s.side = self.side
        s.nf = self.nf
        s.fac = self.fac[:]
        s.centre = self.centre[:]
        s.left = self.left
        s.bag = self.bag[:]
        s.tower = self.tower[:]
        s.rcol = self.rcol
        s.rnd = self.rnd
        s.code = self.code[:]
        s.need = self.need[:]
        s.on = self.on[:]
        s.empty = self.empty[:]
        s.win = self.win[:]
        s.glz = self.glz[:]
        s.score = self.score[:]
        s.trk = self.trk[:]
        s.lost = self.lost[:]
        s.holder = self.holder
        s.mic = self.mic
        s.cur = self.cur
        s.phase = self.phase
        s.pcol = self.pcol
        s.pn = self.pn
        s.ppos = self.ppos
        s.final = self.final
        return s

    _FIELDS = ("turn", "side", "nf", "fac", "centre", "left", "bag", "tower", "rcol", "rnd", "code",
               "need", "on", "empty", "win", "glz", "score", "trk", "lost", "holder", "mic", "cur",
               "phase", "pcol", "pn", "ppos", "final")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"num_players": self.num_players, "rng": self.rng.s}
        for name in self._FIELDS:
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, (list, tuple)) else value
        if self.final is not None:
            out["final"] = [list(row) for row in self.final]
        return out

    @classmethod
    def from_json(cls, game, data: dict[str, Any]) -> SintraState:
        s = cls.__new__(cls)
        s.game = game
        s.num_players = int(data["num_players"])
        s.rng = Rng(int(data["rng"]))
        for name in cls._FIELDS:
            value = data[name]
            setattr(s, name, list(value) if isinstance(value, list) else value)
        if s.final is not None:
            s.final = [tuple(row) for row in s.final]
        return s

    # ------------------------------------------------------------------ turn flow
    def to_move(self) -> tuple[int, ...]:
        return () if self.phase == OVER else (self.cur,)

    def is_over(self) -> bool:
        return self.phase == OVER

    def _can_place(self, p: int, c: int) -> bool:
        """Has a strip at or right of the glazier an empty space for colour c (or a joker)?"""
        need = self.need
        base = p * NUM_STRIPS
        for i in range(self.glz[p], NUM_STRIPS):
            k = (base + i) * 6
            if need[k + c] or need[k + 5]:
                return True
        return False

    def _leftmost(self, p: int) -> int:
        code = self.code
        base = p * NUM_STRIPS
        for i in range(NUM_STRIPS):
            if code[base + i] >= 0:
                return i
        return -1

    def _can_return(self, p: int) -> bool:
        """Action B moves the glazier left, onto the leftmost remaining strip: never allowed
        when no strip lies left of it (over the leftmost strip, or over a gap with every
        remaining strip to its right), so the return can never be a pass (RULES.md)."""
        return 0 <= self._leftmost(p) < self.glz[p]

    def legal_actions(self, player: int) -> list[Action]:
        if player != self.cur or self.phase == OVER:
            return []
        phase = self.phase
        if phase == CHOOSE:
            acts = []
            fac = self.fac
            for f in range(self.nf):
                b = f * NC
                row = TAKE_F[f]
                if fac[b]:
                    acts.append(row[0])
                if fac[b + 1]:
                    acts.append(row[1])
                if fac[b + 2]:
                    acts.append(row[2])
                if fac[b + 3]:
                    acts.append(row[3])
                if fac[b + 4]:
                    acts.append(row[4])
            centre = self.centre
            for c in range(NC):
                if centre[c]:
                    acts.append(TAKE_C[c])
            if 0 <= self._leftmost(player) < self.glz[player]:
                acts.append(RETURN_A)
            return acts
        if phase == PLACE:
            need = self.need
            c = self.pcol
            base = player * NUM_STRIPS
            acts = []
            for i in range(self.glz[player], NUM_STRIPS):
                k = (base + i) * 6
                if need[k + c] or need[k + 5]:
                    acts.append(PLACE_A[i])
            return acts
        # KEEP
        k = (player * NUM_STRIPS + self.ppos) * NC
        on = self.on
        return [KEEP_A[c] for c in range(NC) if on[k + c]]

    def _break(self, p: int, k: int, log: list | None) -> None:
        """Move p's broken-glass marker k spaces down (−18 reset at the bottom)."""
        t = self.trk[p]
        for _ in range(k):
            t += 1
            if t == TRACK_LAST:
                pen = TRACK[TRACK_LAST]
                self.score[p] += pen
                self.lost[p] -= pen
                t = 0
                if log is not None:
                    log.append({"type": "broken_reset", "player": p,
                                "text": msg("{player} reaches the bottom of the broken-glass track: "
                                            "{points} points at once, marker back to the top.",
                                            player=_seat(p), points=pen)})
        self.trk[p] = t

    def _apply(self, player: int, action: Action, log: list | None) -> None:
        t, x1, x2 = DECODE[action.id]
        p = player
        if t == K_PLACE:
            self._place(p, x1, log)
        elif t == K_TAKE_F:
            f = x1
            c = x2
            fac = self.fac
            b = f * NC
            n = fac[b + c]
            moved = 0
            centre = self.centre
            for d in range(NC):
                x = fac[b + d]
                if x and d != c:
                    centre[d] += x
                    moved += x
                fac[b + d] = 0
            self.left -= n
            if log is not None:
                log.append({"type": "take", "player": p, "source": f"factory {f + 1}",
                            "colour": COLOURS[c], "count": n,
                            "text": (msg("{player} takes {panes} from factory {factory} ({moved} to the centre).",
                                         player=_seat(p), panes=_plural(n, c), factory=f + 1, moved=moved)
                                     if moved else
                                     msg("{player} takes {panes} from factory {factory}.",
                                         player=_seat(p), panes=_plural(n, c), factory=f + 1))})
            self._taken(p, c, n, log)
        elif t == K_TAKE_C:
            c = x1
            n = self.centre[c]
            self.centre[c] = 0
            self.left -= n
            if log is not None:
                log.append({"type": "take", "player": p, "source": "centre", "colour": COLOURS[c],
                            "count": n, "text": msg("{player} takes {panes} from the centre.",
                                                        player=_seat(p), panes=_plural(n, c))})
            if self.mic:
                self.mic = False
                self.holder = p
                if log is not None:
                    log.append({"type": "start_marker", "player": p,
                                "text": msg("{player} takes the start player marker and breaks 1 space.",
                                            player=_seat(p))})
                self._break(p, 1, log)
            self._taken(p, c, n, log)
        elif t == K_KEEP:
            self._keep(p, x1, log)
        else:  # return_glazier
            lm = self._leftmost(p)
            self.glz[p] = lm
            if log is not None:
                log.append({"type": "return", "player": p,
                            "text": msg("{player} returns the glazier to strip {strip}.",
                                        player=_seat(p), strip=self._strip_word(p, lm))})
            self._end_turn(log)

    def is_checkpoint(self, player: int, action: Action) -> bool:
        """Only the factories' refill at the start of a round draws (from the bag); every
        other component is public.  So an action is a checkpoint when it ends the turn with no
        pane left on the factories and in the centre, before the last round."""
        t, x1, x2 = DECODE[action.id]
        left = self.left
        if t == K_TAKE_F or t == K_TAKE_C:
            left -= self.fac[x1 * NC + x2] if t == K_TAKE_F else self.centre[x1]
            colour = x2 if t == K_TAKE_F else x1
            ends = not self._can_place(player, colour)  # otherwise the panes are placed next
        elif t == K_PLACE:
            # the turn goes on only when the strip completes with panes of several colours to keep
            si = player * NUM_STRIPS + x1
            k = si * 6
            c, n = self.pcol, self.pn
            fit = min(self.need[k + c], n)
            placed = fit + min(n - fit, self.need[k + 5])
            on = self.on
            b = si * NC
            several = any(on[b + d] for d in range(NC) if d != c)
            ends = not (placed == self.empty[si] and several)
        else:  # keep, return the glazier
            ends = True
        return ends and left == 0 and self.rnd + 1 < ROUNDS

    def _taken(self, p: int, c: int, n: int, log: list | None) -> None:
        if self._can_place(p, c):
            self.phase = PLACE
            self.pcol = c
            self.pn = n
            return
        # no reachable strip has a fitting space: everything breaks
        self.tower[c] += n
        if log is not None:
            log.append({"type": "broken", "player": p, "count": n, "colour": COLOURS[c],
                        "text": msgn("{player} has no reachable strip for {colour}: {panes} break.",
                                     "{player} has no reachable strip for {colour}: {panes} break.", n,
                                     player=_seat(p), colour=COLOUR_NAME[COLOURS[c]], panes=_plural(n, c))})
        self._break(p, n, log)
        self._end_turn(log)

    def _place(self, p: int, i: int, log: list | None) -> None:
        c = self.pcol
        n = self.pn
        self.phase = CHOOSE
        self.pcol = -1
        self.pn = 0
        self.glz[p] = i
        si = p * NUM_STRIPS + i
        k = si * 6
        need = self.need
        fit = need[k + c]
        fit = min(fit, n)
        need[k + c] -= fit
        jok = n - fit
        jok = min(jok, need[k + 5])
        need[k + 5] -= jok
        placed = fit + jok
        broken = n - placed
        self.on[si * NC + c] += placed
        self.empty[si] -= placed
        if log is not None:
            log.append({"type": "place", "player": p, "position": i, "count": placed,
                        "colour": COLOURS[c],
                        "text": (msgn("{player} places {panes} on strip {strip} ({n} on joker spaces).",
                                      "{player} places {panes} on strip {strip} ({n} on joker spaces).", jok,
                                      player=_seat(p), panes=_plural(placed, c), strip=self._strip_word(p, i))
                                 if jok else
                                 msg("{player} places {panes} on strip {strip}.",
                                     player=_seat(p), panes=_plural(placed, c), strip=self._strip_word(p, i)))})
        if broken:
            self.tower[c] += broken
            if log is not None:
                log.append({"type": "broken", "player": p, "count": broken, "colour": COLOURS[c],
                            "text": msg("{player} breaks {panes}.", player=_seat(p), panes=_plural(broken, c))})
            self._break(p, broken, log)
        if self.empty[si]:
            self._end_turn(log)
            return
        # the strip is complete: round colour bonus, then keep one pane
        rc = self.rcol[self.rnd]
        bonus = self.on[si * NC + rc]
        if bonus:
            self.score[p] += bonus
            if log is not None:
                log.append({"type": "colour_bonus", "player": p, "points": bonus,
                            "text": msgn("{player} completes strip {strip}: {n} {colour} pane(s) of the round "
                                         "colour score {n}.",
                                         "{player} completes strip {strip}: {n} {colour} pane(s) of the round "
                                         "colour score {n}.", bonus,
                                         player=_seat(p), strip=self._strip_word(p, i),
                                         colour=PANE_COLOUR[COLOURS[rc]])})
        self.ppos = i
        b = si * NC
        on = self.on
        kinds = [d for d in range(NC) if on[b + d]]
        if len(kinds) == 1:
            self._keep(p, kinds[0], log)
        else:
            self.phase = KEEP

    def _keep(self, p: int, c: int, log: list | None) -> None:
        i = self.ppos
        name = self._strip_word(p, i) if log is not None else ""
        self.ppos = -1
        self.phase = CHOOSE
        si = p * NUM_STRIPS + i
        b = si * NC
        on = self.on
        tower = self.tower
        for d in range(NC):
            if on[b + d]:
                tower[d] += on[b + d]
                on[b + d] = 0
        tower[c] -= 1
        wb = si * 2
        win = self.win
        k = si * 6
        if win[wb] < 0:
            win[wb] = c
            code = self.code[si] ^ 1  # turn the strip to its other (empty) side
            self.code[si] = code
            self.need[k:k + 6] = NEED[code]
            self.empty[si] = 5
            where = 0
        else:
            win[wb + 1] = c
            self.code[si] = -1  # the window is finished: the strip goes back to the box
            self.need[k:k + 6] = (0, 0, 0, 0, 0, 0)
            self.empty[si] = 0
            where = 1
        pts = WINDOW_VALUES[i]
        base = p * NUM_WINDOWS * 2
        for w in range(i + 1, NUM_WINDOWS):
            if win[base + 2 * w] >= 0:
                pts += WINDOW_VALUES[w]
        self.score[p] += pts
        if log is not None:
            log.append({"type": "window", "player": p, "position": i, "colour": COLOURS[c],
                        "field": ("upper", "lower")[where], "points": pts,
                        "text": (msg("{player} keeps a {colour} pane for the upper field of the window "
                                     "under strip {strip} and scores {points}.",
                                     player=_seat(p), colour=PANE_COLOUR[COLOURS[c]], strip=name, points=pts)
                                 if where == 0 else
                                 msg("{player} keeps a {colour} pane for the lower field of the window "
                                     "under strip {strip} and scores {points}.",
                                     player=_seat(p), colour=PANE_COLOUR[COLOURS[c]], strip=name, points=pts))})
        self._end_turn(log)

    def _end_turn(self, log: list | None) -> None:
        self.turn += 1
        if self.left:
            self.cur = (self.cur + 1) % self.num_players
            return
        if log is not None:
            log.append({"type": "round_end", "round": self.rnd + 1,
                        "text": msg("Round {round} ends.", round=self.rnd + 1)})
        if not self._end_round(log):
            self._start_round(log)

    # ------------------------------------------------------------------ end of game
    def side_bonus(self, p: int) -> int:
        win = self.win
        base = p * NUM_WINDOWS * 2
        if self.side == 0:
            pts = 0
            for orn in ORNAMENTS:
                filled = 0
                for w in orn:
                    filled += (win[base + 2 * w] >= 0) + (win[base + 2 * w + 1] >= 0)
                pts += ORN_POINTS[filled]
            return pts
        done = sum(1 for w in range(NUM_WINDOWS) if win[base + 2 * w + 1] >= 0)
        counts = [0] * NC
        for f in range(NUM_WINDOWS * 2):
            c = win[base + f]
            if c >= 0:
                counts[c] += 1
        return done * max(counts)

    def leftover_panes(self, p: int) -> int:
        b = p * NUM_STRIPS * NC
        return sum(self.on[b:b + NUM_STRIPS * NC])

    def _final_scoring(self, log: list | None) -> None:
        self.phase = OVER
        self.cur = -1
        final = []
        for p in range(self.num_players):
            left = self.leftover_panes(p) // 3
            tv = TRACK[self.trk[p]]
            bonus = self.side_bonus(p)
            self.score[p] += left + tv + bonus
            self.lost[p] -= tv
            final.append((left, tv, bonus))
            if log is not None:
                log.append({"type": "final_scoring", "player": p, "leftover": left, "broken": tv,
                            "side_bonus": bonus,
                            "text": msg("{player}: +{leftover} for panes left on strips, {broken} broken glass, "
                                        "+{bonus} palace side {side}.", player=_seat(p), leftover=left,
                                        broken=tv, bonus=bonus, side=SIDE_NAMES[self.side])})
        self.final = final

    def scores(self) -> list[float]:
        return list(self.score)

    def tiebreak(self, player: int) -> tuple:
        return (-self.lost[player],)

    def tiebreak_explained(self, lang: str = SOURCE) -> str:
        return self.say(msg("Tied players: the one who lost fewer points to broken glass wins; "
                            "still tied, they share the victory."), lang)

    # ------------------------------------------------------------------ explanations
    def prompt(self, player: int, lang: str = SOURCE) -> str:
        return self.say(self._prompt(player), lang)

    def _prompt(self, player: int) -> Message:
        if self.phase == OVER:
            return msg("The game is over.")
        if player != self.cur:
            return msg("Wait: seat {seat} is to move.", seat=self.cur + 1)
        if self.phase == CHOOSE:
            if self._can_return(player):
                return msg("Take all panes of one colour from a factory or the centre, "
                           "or return your glazier to your leftmost strip.")
            return msg("Take all panes of one colour from a factory or the centre.")
        if self.phase == PLACE:
            return msg("Place your {panes} on the strip under your glazier or one to its right.",
                       panes=_plural(self.pn, self.pcol))
        return msg("Strip {strip} is complete: choose the pane to keep for the window under it.",
                   strip=self._strip_word(player, self.ppos))

    def strip_name(self, p: int, i: int) -> str:
        """The name the board prints under the strip at position ``i``: its number and side (``1B``)."""
        return self.say(self._strip_word(p, i))

    def _strip_word(self, p: int, i: int) -> Message | str:
        """``strip_name`` as a message: the printed name, or where a glazed strip stood."""
        code = self.code[p * NUM_STRIPS + i]
        if code < 0:
            return msg("at position {position} (glazed)", position=i + 1)
        return f"{code // 2 + 1}{SIDE_NAMES[code % 2]}"

    def _break_warning(self, player: int, c: int, lang: str) -> str:
        """The warning for a take none of whose panes can go on a strip (all of them break)."""
        if self._can_place(player, c):
            return ""
        return " " + self.say(msg("\u2014 warning: all of them break (no strip under or right of your glazier "
                                  "has an empty {colour} or joker space)",
                                  colour=COLOUR_NAME[COLOURS[c]]), lang)

    def action_text(self, player: int, action: Action, lang: str = SOURCE) -> str:
        """A legal action described with what it does now (counts, fitting panes)."""
        t = action.type
        if t == "take_factory":
            f = action.args["factory"]
            c = COLOUR_INDEX[action.args["colour"]]
            rest = sum(self.fac[f * NC:f * NC + NC]) - self.fac[f * NC + c]
            panes = _plural(self.fac[f * NC + c], c)
            text = (msg("take {panes} from factory {factory} ({rest} to the centre)",
                        panes=panes, factory=f + 1, rest=rest) if rest else
                    msg("take {panes} from factory {factory}", panes=panes, factory=f + 1))
            return self.say(text, lang) + self._break_warning(player, c, lang)
        if t == "take_centre":
            c = COLOUR_INDEX[action.args["colour"]]
            panes = _plural(self.centre[c], c)
            text = (msg("take {panes} from the centre + start marker (breaks 1)", panes=panes) if self.mic else
                    msg("take {panes} from the centre", panes=panes))
            return self.say(text, lang) + self._break_warning(player, c, lang)
        if t == "place" and self.phase == PLACE:
            i = action.args["position"]
            k = (player * NUM_STRIPS + i) * 6
            fit = min(self.pn, self.need[k + self.pcol] + self.need[k + 5])
            broken = self.pn - fit
            done = fit == self.empty[player * NUM_STRIPS + i]
            out = self.say(msgn("place on strip {strip}: {n} fit", "place on strip {strip}: {n} fit", fit,
                                strip=self._strip_word(player, i)), lang)
            if broken:
                out += self.say(msgn(", {n} break", ", {n} break", broken), lang)
            if done:
                out += self.say(msg(", completes it"), lang)
            return out
        if t == "place":
            return self.say(msg("place on strip {position}", position=action.args["position"] + 1), lang)
        if t == "keep":
            return self.say(msg("keep the {colour} pane for the window",
                                colour=PANE_COLOUR[action.args["colour"]]), lang)
        return self.say(msg("return the glazier to the leftmost strip"), lang)

    def why_illegal(self, player: int, action: Action, lang: str = SOURCE) -> str:
        return self.say(self._why_illegal(player, action), lang)

    def _why_illegal(self, player: int, action: Action) -> Message:
        t = action.type
        p = player
        if self.phase == CHOOSE:
            if t == "take_factory":
                f = action.args["factory"]
                if f >= self.nf:
                    return msg("There is no factory {factory}: {factories} factories are used with {players} players.",
                               factory=f + 1, factories=self.nf, players=self.num_players)
                return msg("Factory {factory} holds no {colour} panes: take all panes of a colour that lies there.",
                           factory=f + 1, colour=COLOUR_NAME[action.args["colour"]])
            if t == "take_centre":
                return msg("The centre holds no {colour} panes: take a colour that lies there.",
                           colour=COLOUR_NAME[action.args["colour"]])
            if t == "return_glazier":
                lm = self._leftmost(p)
                if lm < 0:
                    return msg("You have no strips left: the glazier cannot return (you must take panes).")
                if lm == self.glz[p]:
                    return msg("Your glazier already stands over your leftmost strip: "
                               "you must take panes instead.")
                return msg("No strip lies left of your glazier: the return only moves it back to the "
                           "left, so it cannot be used to pass; you must take panes instead.")
            if self._can_return(p):
                return msg("First take all panes of one colour from a factory or the centre "
                           "(or return your glazier); placing and keeping come after.")
            return msg("First take all panes of one colour from a factory or the centre; "
                       "placing and keeping come after.")
        if self.phase == PLACE:
            if t == "place":
                i = action.args["position"]
                if i < self.glz[p]:
                    return msg("Strip {strip} is left of your glazier: panes go on the strip under "
                               "the glazier or one to its right.", strip=self._strip_word(p, i))
                if self.code[p * NUM_STRIPS + i] < 0:
                    return msg("There is no strip at position {position} any more: its window is finished.",
                               position=i + 1)
                return msg("Strip {strip} has no empty {colour} or joker space: while a "
                           "reachable strip has a fitting empty space you must place on such a strip.",
                           strip=self._strip_word(p, i), colour=COLOUR_NAME[COLOURS[self.pcol]])
            return msg("You have taken {panes}: now choose the strip to place them on.",
                       panes=_plural(self.pn, self.pcol))
        if t == "keep":
            return msg("There is no {colour} pane on the completed strip {strip}: keep one of its panes.",
                       colour=PANE_COLOUR[action.args["colour"]], strip=self._strip_word(p, self.ppos))
        return msg("Strip {strip} is complete: first choose the pane to keep for its window.",
                   strip=self._strip_word(p, self.ppos))

    # ------------------------------------------------------------------ information
    def _strip_view(self, p: int, i: int) -> dict[str, Any] | None:
        si = p * NUM_STRIPS + i
        code = self.code[si]
        if code < 0:
            return None
        pat = PATTERNS[code]
        need = self.need[si * 6:si * 6 + 6]
        # spaces of one colour are interchangeable: fill them left to right
        filled_count = [NEED[code][c] - need[c] for c in range(6)]
        jokers = []
        # colours lying on joker spaces = panes on the strip beyond their own colour spaces
        on = self.on[si * NC:si * NC + NC]
        for c in range(NC):
            extra = on[c] - filled_count[c]
            jokers.extend([c] * extra)
        spaces = []
        seen = [0] * 6
        for sp in pat:
            if seen[sp] < filled_count[sp]:
                pane = COLOURS[jokers[seen[sp]]] if sp == JOKER else COLOURS[sp]
            else:
                pane = None
            seen[sp] += 1
            spaces.append({"space": "joker" if sp == JOKER else COLOURS[sp], "pane": pane})
        return {"strip": code // 2 + 1, "side": "AB"[code % 2], "spaces": spaces}

    def view(self, player: int | None) -> dict[str, Any]:
        n = self.num_players
        colours = COLOURS

        def counts(vec):
            return {colours[c]: vec[c] for c in range(NC) if vec[c]}

        players = []
        for p in range(n):
            base = p * NUM_WINDOWS * 2
            players.append({
                "score": self.score[p],
                "broken_glass": {"space": self.trk[p], "value": TRACK[self.trk[p]]},
                "lost_to_broken_glass": self.lost[p],
                "glazier": self.glz[p],
                "strips": [self._strip_view(p, i) for i in range(NUM_STRIPS)],
                "windows": [
                    {"value": WINDOW_VALUES[w],
                     "upper": colours[self.win[base + 2 * w]] if self.win[base + 2 * w] >= 0 else None,
                     "lower": colours[self.win[base + 2 * w + 1]] if self.win[base + 2 * w + 1] >= 0 else None}
                    for w in range(NUM_WINDOWS)
                ],
                "panes_on_strips": self.leftover_panes(p),
                "start_marker": (not self.mic) and self.holder == p,
                "final": (dict(zip(("leftover", "broken_glass", "side_bonus"), self.final[p]))
                          if self.final is not None else None),
            })
        pending = None
        if self.phase == PLACE:
            pending = {"colour": colours[self.pcol], "count": self.pn}
        elif self.phase == KEEP:
            pending = {"position": self.ppos}
        return {
            "game": GAME_ID,
            "viewer": player,
            "phase": PHASE_NAMES[self.phase],
            "to_move": list(self.to_move()),
            "prompt": self.prompt(self.cur) if self.phase != OVER else "The game is over.",
            "palace_side": SIDE_NAMES[self.side],
            "round": min(self.rnd + 1, ROUNDS),
            "rounds": ROUNDS,
            "round_colour": colours[self.rcol[self.rnd]] if self.rnd < ROUNDS else None,
            "round_indicator": [colours[c] for c in self.rcol[self.rnd:]],
            "factories": [counts(self.fac[f * NC:f * NC + NC]) for f in range(self.nf)],
            "centre": counts(self.centre),
            "start_marker_in_centre": self.mic,
            "start_player": self.holder,
            "bag": counts(self.bag),
            "tower": counts(self.tower),
            "pending": pending,
            # colours the player to move could not place on any reachable strip: taking them breaks all
            "all_break_colours": ([colours[c] for c in range(NC) if not self._can_place(self.cur, c)]
                                  if self.phase == CHOOSE else []),
            "turn": self.turn,
            "scores": list(self.score),
            "players": players,
            "window_values": list(WINDOW_VALUES),
            "track": list(TRACK),
        }

    def determinize(self, player: int | None, rng: Rng) -> SintraState:
        # Every component is public (bag and tower contents follow from the public history,
        # see RULES.md); only the future draws are unknown: give the clone a fresh generator.
        s = self.clone()
        s.rng = rng.spawn()
        return s

    def component_counts(self) -> dict[str, int]:
        totals = [0] * NC
        for vec in (self.bag, self.tower, self.centre):
            for c in range(NC):
                totals[c] += vec[c]
        for i, x in enumerate(self.fac):
            totals[i % NC] += x
        for i, x in enumerate(self.on):
            totals[i % NC] += x
        for c in self.win:
            if c >= 0:
                totals[c] += 1
        for c in self.rcol[self.rnd:]:
            totals[c] += 1
        if self.phase == PLACE:  # panes taken and not yet placed
            totals[self.pcol] += self.pn
        out = {f"panes_{COLOURS[c]}": totals[c] for c in range(NC)}
        out["strips"] = sum(1 for c in self.code if c >= 0) + sum(
            1 for i in range(self.num_players * NUM_WINDOWS) if self.win[2 * i + 1] >= 0)
        return out
