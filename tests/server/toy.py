"""A tiny game for server tests: secret cards, simultaneous secret picks, redacted events.

Each seat is dealt a secret card (1-9) from the state's RNG.  Each of three
rounds, every seat picks 1, 2 or 3 at the same time (picks stay secret until
everyone has picked).  Score: the sum of your picks plus your secret card.
It exercises what no single real game may: several seats to move at once,
events with ``only``/``public`` and private views.
"""

from __future__ import annotations


from gemtable.core import ActionSpace, Game, Rng, State

ACTIONS = ActionSpace("toy")
PICK = [ACTIONS.add("pick", f"pick {n}", n=n) for n in (1, 2, 3)]
ROUNDS = 3


class ToyState(State):
    @classmethod
    def initial(cls, game, num_players, rng, options):
        s = cls()
        s.game, s.num_players, s.rng, s.turn = game, num_players, rng, 0
        s.secret = [1 + rng.below(9) for _ in range(num_players)]
        s.picks: list[list[int]] = [[] for _ in range(num_players)]
        s.pending: list[int | None] = [None] * num_players
        s.round = 0
        return s

    def clone(self):
        s = ToyState()
        s.game, s.num_players, s.rng, s.turn = self.game, self.num_players, self.rng.clone(), self.turn
        s.secret = list(self.secret)
        s.picks = [list(p) for p in self.picks]
        s.pending = list(self.pending)
        s.round = self.round
        return s

    def to_json(self):
        return {"secret": self.secret, "picks": self.picks, "pending": self.pending, "round": self.round,
                "turn": self.turn, "rng": self.rng.s, "n": self.num_players}

    @classmethod
    def from_json(cls, game, data):
        s = cls()
        s.game, s.num_players, s.rng, s.turn = game, data["n"], Rng(data["rng"]), data["turn"]
        s.secret, s.picks, s.pending, s.round = data["secret"], data["picks"], data["pending"], data["round"]
        return s

    def is_over(self):
        return self.round >= ROUNDS

    def to_move(self):
        if self.is_over():
            return ()
        return tuple(p for p in range(self.num_players) if self.pending[p] is None)

    def legal_actions(self, player):
        return list(PICK) if player in self.to_move() else []

    def prompt(self, player, lang="en"):
        return f"Round {self.round + 1}: pick 1, 2 or 3 (secretly)."

    def _apply(self, player, action, log):
        self.pending[player] = action["n"]
        if log is not None:
            log.append({"type": "pick", "player": player, "text": f"{{P{player}}} picks {action['n']}.",
                        "n": action["n"], "only": [player],
                        "public": {"type": "pick", "player": player, "text": f"{{P{player}}} has picked."}})
        if all(x is not None for x in self.pending):
            for p in range(self.num_players):
                self.picks[p].append(self.pending[p])
            if log is not None:
                log.append({"type": "reveal", "text": "Picks revealed: " + ", ".join(
                    f"{{P{p}}} {self.pending[p]}" for p in range(self.num_players)) + "."})
            self.pending = [None] * self.num_players
            self.round += 1
            self.turn += 1
            if self.is_over() and log is not None:
                log.append({"type": "game_over", "text": "The game ends."})

    def scores(self):
        if not self.is_over():
            return [sum(p) for p in self.picks]
        return [sum(self.picks[p]) + self.secret[p] for p in range(self.num_players)]

    def tiebreak(self, player):
        return (-self.secret[player],)

    def tiebreak_explained(self, lang="en"):
        return "Ties go to the lower secret card."

    def view(self, player):
        return {
            "game": "toy",
            "round": self.round + 1,
            "phase": "over" if self.is_over() else "pick",
            "to_move": list(self.to_move()),
            "my_secret": self.secret[player] if player is not None else None,
            "secrets": list(self.secret) if self.is_over() else None,
            "picked": [self.pending[p] is not None for p in range(self.num_players)],
            "my_pick": self.pending[player] if player is not None else None,
            "revealed": [list(p) for p in self.picks],
            "scores": [sum(p) for p in self.picks],
        }

    def determinize(self, player, rng):
        s = self.clone()
        s.rng = rng.spawn()
        for p in range(self.num_players):
            if p != player:
                s.secret[p] = 1 + rng.below(9)
                if s.pending[p] is not None:
                    s.pending[p] = 1 + rng.below(3)
        return s

    def component_counts(self):
        return {"seats": self.num_players}


TOY = Game(id="toy", title="Toy Picks", player_counts=(2, 3), state_class=ToyState, actions=ACTIONS,
           summary="A test game.")
