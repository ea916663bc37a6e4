"""A tiny turn-based game for the undo tests: free moves, a pass, and checkpoints.

On your turn you may ``step`` 1 or 2 (at most twice: free, nothing hidden or
random), ``show`` your secret card to everyone (reveals: a checkpoint), then
end the turn with ``done`` (you draw a new secret card: a checkpoint) or
``pass`` (no draw: not a checkpoint).  Three turns each; score: steps plus the
secret card.
"""

from __future__ import annotations

from gemtable.core import ActionSpace, Game, Rng, State

ACTIONS = ActionSpace("turns")
STEP = [ACTIONS.add("step", f"step {n}", n=n) for n in (1, 2)]
SHOW = ACTIONS.add("show", "show your card")
DONE = ACTIONS.add("done", "end the turn and draw")
PASS = ACTIONS.add("pass", "end the turn")
TURNS = 3


class TurnsState(State):
    @classmethod
    def initial(cls, game, num_players, rng, options):
        s = cls()
        s.game, s.num_players, s.rng = game, num_players, rng
        s.card = [1 + rng.below(9) for _ in range(num_players)]
        s.shown = [False] * num_players
        s.steps = [0] * num_players
        s.cur, s.moved, s.turn = 0, 0, 0
        return s

    def clone(self):
        s = TurnsState()
        s.game, s.num_players, s.rng = self.game, self.num_players, self.rng.clone()
        s.card, s.shown, s.steps = list(self.card), list(self.shown), list(self.steps)
        s.cur, s.moved, s.turn = self.cur, self.moved, self.turn
        return s

    def to_json(self):
        return {"n": self.num_players, "rng": self.rng.s, "card": self.card, "shown": self.shown,
                "steps": self.steps, "cur": self.cur, "moved": self.moved, "turn": self.turn}

    @classmethod
    def from_json(cls, game, data):
        s = cls()
        s.game, s.num_players, s.rng = game, data["n"], Rng(data["rng"])
        s.card, s.shown, s.steps = data["card"], data["shown"], data["steps"]
        s.cur, s.moved, s.turn = data["cur"], data["moved"], data["turn"]
        return s

    def is_over(self):
        return self.turn >= TURNS * self.num_players

    def to_move(self):
        return () if self.is_over() else (self.cur,)

    def legal_actions(self, player):
        if player not in self.to_move():
            return []
        acts = list(STEP) if self.moved < 2 else []
        if not self.shown[player]:
            acts.append(SHOW)
        return acts + [DONE, PASS]

    def prompt(self, player, lang="en"):
        return "Step, show your card, or end your turn."

    def is_checkpoint(self, player, action):
        return action.type in ("show", "done")

    def _apply(self, player, action, log):
        kind = action.type
        if kind == "step":
            self.steps[player] += action["n"]
            self.moved += 1
            if log is not None:
                log.append({"type": "step", "text": f"{{P{player}}} steps {action['n']}."})
        elif kind == "show":
            self.shown[player] = True
            if log is not None:
                log.append({"type": "show", "text": f"{{P{player}}} shows a {self.card[player]}."})
        else:
            if kind == "done":
                self.card[player] = 1 + self.rng.below(9)
                self.shown[player] = False
                if log is not None:
                    log.append({"type": "draw", "text": f"{{P{player}}} draws a {self.card[player]}.",
                                "only": [player],
                                "public": {"type": "draw", "text": f"{{P{player}}} draws a card."}})
            elif log is not None:
                log.append({"type": "pass", "text": f"{{P{player}}} ends the turn."})
            self.cur = (self.cur + 1) % self.num_players
            self.moved = 0
            self.turn += 1

    def scores(self):
        return [self.steps[p] + (self.card[p] if self.is_over() else 0) for p in range(self.num_players)]

    def tiebreak(self, player):
        return (player,)

    def view(self, player):
        return {
            "game": "turns", "cur": self.cur, "moved": self.moved, "turn": self.turn,
            "steps": list(self.steps),
            "cards": [c if (self.shown[p] or p == player or self.is_over()) else None
                      for p, c in enumerate(self.card)],
        }

    def determinize(self, player, rng):
        s = self.clone()
        s.rng = rng.spawn()
        for p in range(self.num_players):
            if p != player and not self.shown[p]:
                s.card[p] = 1 + rng.below(9)
        return s

    def component_counts(self):
        return {"seats": self.num_players}


TURNS_GAME = Game(id="turns", title="Toy Turns", player_counts=(2, 3), state_class=TurnsState, actions=ACTIONS,
                  summary="A test game with undoable moves.")
