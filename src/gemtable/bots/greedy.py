"""``greedy``: one-ply search on the game's heuristic, from the bot's own information.

For every legal action the bot applies it to a clone of a *determinized* copy of the
state (``state.determinize(player, rng)``: the hidden parts re-sampled from what the
seat knows, never the real hidden state) and scores the result with
``game.heuristic`` (the estimated final score; the current score for a game without
one): its own value minus the best opponent's.  The best action wins, ties broken at
random.  When an action leaves the same seat to decide again (a multi-step turn), the
bot looks ``lookahead`` further decisions ahead and credits the action with its best
follow-up.

Parameters: ``lookahead`` (default 1; 0 judges after a single decision),
``samples`` (determinizations averaged, default 1), ``epsilon`` (probability of a
uniformly random move, default 0; used by the ``easy`` level).
"""

from __future__ import annotations

from typing import Any

from gemtable.core import Action, State

from .base import Bot, check_params, margin, register_bot


class GreedyBot(Bot):
    name = "greedy"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        check_params(self.name, params, ("lookahead", "samples", "epsilon"))
        super().__init__(seed, **params)
        self.lookahead = int(params.get("lookahead", 1))
        self.samples = max(1, int(params.get("samples", 1)))
        self.epsilon = float(params.get("epsilon", 0.0))
        if self.lookahead < 0:
            raise ValueError("greedy: lookahead must be 0 or more")
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError("greedy: epsilon must be between 0 and 1")

    def choose(self, state: State, player: int) -> Action:
        actions = state.legal_actions(player)
        if len(actions) == 1:
            return actions[0]
        if self.epsilon and self.rng.random() < self.epsilon:
            return actions[self.rng.below(len(actions))]
        totals = [0.0] * len(actions)
        for _ in range(self.samples):
            det = state.determinize(player, self.rng.spawn())
            for i, action in enumerate(actions):
                child = det.clone()
                child.step(player, action)
                totals[i] += self._value(child, player, self.lookahead)
        best = max(totals)
        ties = [a for a, v in zip(actions, totals) if v == best]
        return ties[self.rng.below(len(ties))] if len(ties) > 1 else ties[0]

    def _value(self, state: State, player: int, depth: int) -> float:
        """Heuristic margin, following the best continuation while ``player`` keeps the move."""
        if depth > 0 and not state.is_over() and state.to_move() == (player,):
            follow = state.legal_actions(player)
            best = None
            for action in follow:
                child = state.clone()
                child.step(player, action)
                value = self._value(child, player, depth - 1)
                if best is None or value > best:
                    best = value
            if best is not None:
                return best
        return margin(state, player)


register_bot("greedy", GreedyBot)
