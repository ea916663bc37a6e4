"""The toy game (toy.py) with its texts as messages and a German catalogue beside it
(tests/server/locale/de.po): seats reading one table in two languages."""

from __future__ import annotations

from gemtable.core import ActionSpace, Game
from gemtable.core.i18n import msg, msgn

from .toy import ToyState

ACTIONS = ActionSpace("toy_words")
PICK = [ACTIONS.add("pick", f"pick {n}", n=n) for n in (1, 2, 3)]


class WordsState(ToyState):
    def clone(self):
        s = WordsState()
        s.__dict__.update(super().clone().__dict__)
        return s

    @classmethod
    def from_json(cls, game, data):
        s = cls()
        s.__dict__.update(ToyState.from_json(game, data).__dict__)
        return s

    def legal_actions(self, player):
        return list(PICK) if player in self.to_move() else []

    def prompt(self, player, lang="en"):
        return self.say(msg("Round {round}: pick 1, 2 or 3 (secretly).", round=self.round + 1), lang)

    def _apply(self, player, action, log):
        words = [] if log is not None else None
        super()._apply(player, action, words)
        if log is None:
            return
        for ev in words:
            if ev["type"] == "pick":
                ev["text"] = msgn("{P%d} picks {n} stone." % player, "{P%d} picks {n} stones." % player, action["n"])
                ev["public"]["text"] = msg("{P%d} has picked." % player)
            elif ev["type"] == "game_over":
                ev["text"] = msg("The game ends.")
            log.append(ev)


WORDS = Game(id="toy_words", title="Toy Words", player_counts=(2, 3), state_class=WordsState, actions=ACTIONS,
             summary="A test game with translated texts.")
