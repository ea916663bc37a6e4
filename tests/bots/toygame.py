"""A tiny test-only game (never registered) that has everything a bot must cope with.

"Toy bid": every round all seats secretly and simultaneously bid a card from their
hidden hand for the face-up prize; the highest unique bid wins it.  The round winner
then takes a second decision (a multi-step turn): ``draw`` a card or ``bank`` one
extra point.  Every seat then draws one card while the pile lasts.  The game ends
when the prize deck is exhausted or a seat has no card at the start of a round.

Hidden information: other seats' hands, their pending bids, the draw pile order and
the prize deck order.  All chance comes from ``self.rng``.
"""

from __future__ import annotations

from typing import Any

from gemtable.core import ActionSpace, Game, Option, Rng, State

ACTIONS = ActionSpace("toybid")
BID = [None] + [ACTIONS.add("bid", f"bid {v}", value=v) for v in range(1, 11)]
DRAW = ACTIONS.add("draw", "draw a card")
BANK = ACTIONS.add("bank", "bank one point")
PRIZES = (1, 2, 3, 4, 5, 6, 7, 8)
DECK = tuple(v for v in range(1, 11) for _ in range(2))
HAND = 5


class ToyState(State):
    __slots__ = (
        "bids",
        "game",
        "hands",
        "num_players",
        "over",
        "pile",
        "points",
        "prize",
        "prizes",
        "rng",
        "turn",
        "winner",
    )

    @classmethod
    def initial(cls, game: Game, num_players: int, rng: Rng, options: dict[str, Any]) -> ToyState:
        s = cls()
        s.game, s.num_players, s.rng, s.turn = game, num_players, rng, 0
        deck = list(DECK)
        rng.shuffle(deck)
        s.hands = [sorted(deck[i * HAND:(i + 1) * HAND]) for i in range(num_players)]
        s.pile = deck[num_players * HAND:]
        prizes = list(PRIZES)
        rng.shuffle(prizes)
        s.prize = prizes.pop()
        s.prizes = prizes
        s.bids = [0] * num_players
        s.points = [0] * num_players
        s.winner = -1  # seat taking the bonus decision, -1 in the bidding phase
        s.over = False
        return s

    def clone(self) -> ToyState:
        s = ToyState.__new__(ToyState)
        s.game, s.num_players, s.rng, s.turn = self.game, self.num_players, self.rng.clone(), self.turn
        s.hands = [list(h) for h in self.hands]
        s.pile = list(self.pile)
        s.prizes = list(self.prizes)
        s.prize = self.prize
        s.bids = list(self.bids)
        s.points = list(self.points)
        s.winner = self.winner
        s.over = self.over
        return s

    # -- flow --------------------------------------------------------------
    def to_move(self) -> tuple[int, ...]:
        if self.over:
            return ()
        if self.winner >= 0:
            return (self.winner,)
        return tuple(p for p in range(self.num_players) if self.bids[p] == 0)

    def legal_actions(self, player: int) -> list:
        if player not in self.to_move():
            return []
        if self.winner >= 0:
            return [DRAW, BANK] if self.pile else [BANK]
        return [BID[v] for v in sorted(set(self.hands[player]))]

    def _apply(self, player: int, action, log) -> None:
        if action is DRAW or action is BANK:
            if action is DRAW:
                self.hands[player].append(self.pile.pop())
                self.hands[player].sort()
            else:
                self.points[player] += 1
            self.winner = -1
            self._next_round()
            return
        self.hands[player].remove(action["value"])
        self.bids[player] = action["value"]
        if all(self.bids):
            best = max(self.bids)
            if self.bids.count(best) == 1:
                self.winner = self.bids.index(best)
                self.points[self.winner] += self.prize
            self.bids = [0] * self.num_players
            if self.winner < 0:
                self._next_round()

    def _next_round(self) -> None:
        self.turn += 1
        for p in range(self.num_players):
            if self.pile:
                self.hands[p].append(self.pile.pop())
                self.hands[p].sort()
        if not self.prizes or not all(self.hands):
            self.over = True
            return
        self.prize = self.prizes.pop()

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return [float(x) for x in self.points]

    def tiebreak(self, player: int) -> tuple:
        return (sum(self.hands[player]),)

    # -- information ---------------------------------------------------------
    def view(self, player):
        return {
            "phase": "bonus" if self.winner >= 0 else "bid",
            "to_move": list(self.to_move()),
            "hand": list(self.hands[player]) if player is not None else None,
            "hand_sizes": [len(h) for h in self.hands],
            "has_bid": [b != 0 for b in self.bids],
            "my_bid": self.bids[player] if player is not None else None,
            "pile": len(self.pile),
            "prizes_left": len(self.prizes),
            "prize": self.prize,
            "points": list(self.points),
        }

    def determinize(self, player, rng: Rng) -> ToyState:
        s = self.clone()
        others = [q for q in range(self.num_players) if q != player]
        unseen = list(self.pile)
        for q in others:
            unseen += self.hands[q]
            if self.bids[q]:
                unseen.append(self.bids[q])
        unseen.sort()  # canonical order: the result must not depend on hidden order
        rng.shuffle(unseen)
        for q in others:
            n = len(self.hands[q])
            take, unseen = unseen[:n], unseen[n:]
            if self.bids[q]:
                # the pending bid is any card this seat could hold
                hand_and_bid = take + [unseen.pop()]
                i = rng.below(len(hand_and_bid))
                s.bids[q] = hand_and_bid.pop(i)
                take = hand_and_bid
            s.hands[q] = sorted(take)
        s.pile = unseen
        prizes = sorted(self.prizes)
        rng.shuffle(prizes)
        s.prizes = prizes
        s.rng = rng.spawn()
        return s

    def search_determinization(self, player, rng: Rng) -> ToyState:
        s = self.determinize(player, rng)
        for q in range(s.num_players):
            if q != player and s.bids[q]:  # an unrevealed bid: that seat bids again
                s.hands[q].append(s.bids[q])
                s.hands[q].sort()
                s.bids[q] = 0
        return s

    def to_json(self) -> dict[str, Any]:
        return {"hands": self.hands, "bids": self.bids, "pile": self.pile, "prizes": self.prizes,
                "prize": self.prize, "points": self.points, "winner": self.winner,
                "over": self.over, "turn": self.turn, "rng": self.rng.s}

    def component_counts(self) -> dict[str, int]:
        return {"cards": sum(map(len, self.hands)) + len(self.pile) + sum(1 for b in self.bids if b)}


def heuristic(state: ToyState, player: int) -> float:
    """Points plus a little for the cards still in hand (they win future prizes)."""
    return state.points[player] + 0.3 * sum(state.hands[player]) / max(1, len(state.hands[player]))


def make_game(with_heuristic: bool = True) -> Game:
    return Game(
        id="toybid",
        title="Toy bid",
        player_counts=(2, 3),
        state_class=ToyState,
        actions=ACTIONS,
        options=(Option("unused", "a", ("a", "b")),),
        heuristic=heuristic if with_heuristic else None,
    )


GAME = make_game()
GAME_NO_HEURISTIC = Game(
    id="toybid",
    title="Toy bid",
    player_counts=(2, 3),
    state_class=ToyState,
    actions=ACTIONS,
)
