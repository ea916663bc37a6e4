"""``puct``: information-set MCTS with a learned evaluator at the leaves and PUCT priors.

The search is ``mcts``'s (one tree shared by all determinizations from
``state.search_determinization``, availability counts, decoupled statistics for
simultaneous secret picks, the same iteration / seconds budget); three things change
when the game has a learned evaluator (:mod:`gemtable.bots.learned`):

* Leaves: after ``mcts``'s short playout (the game's playout policy for its
  ``extra["rollout_length"]`` decisions where it has one, else 4 random decisions;
  ``rollout=K`` sets the length, 0 judges where the tree ends) the position is judged by
  the model instead of the heuristic (each seat's share of the win, every seat's input
  encoded from that seat's own view of the determinized position).  ``mix`` < 1 blends in
  ``mcts``'s heuristic reward: ``mix * model + (1 - mix) * heuristic``.
* Priors: the first time a seat decides at a node (``prior_visits=K``: once the node
  has been passed through K times; the root at once), every legal action is applied to
  the determinization and the children are judged by the model in one batch.  That
  one-ply value seeds ``prior`` virtual visits (as ``mcts``'s progressive bias) and a
  prior probability ``P = softmax(value / temperature)``.  Below the root, where the game
  ships a priors network (:mod:`gemtable.bots.priors`) learned from these one-ply values,
  one forward pass of it stands in for the look at every child, and the time saved goes
  to more iterations; the root keeps the exact look.
* Selection (PUCT): ``Q + c * P * sqrt(available) / (1 + visits)`` for the seat to move,
  where ``available`` counts the times the action was legal when its node was visited.

The model is the game's shipped ``value.npz`` (or its ``value-<n>p.npz`` at tables of ``n``
players where it ships one) unless ``weights=PATH`` names another file.  A game without
weights plays exactly as ``mcts`` with the same parameters (same choices for the same seed).

Parameters: those of ``mcts`` (``iterations`` default 400, ``seconds``, ``c`` default 1.0
here, ``rollout``, ``sharpness``, ``margin_weight``, ``prior``, ``prior_all``,
``policy``, ``reuse``, ``stop``; ``rollout`` defaults to the game's ``extra["puct_rollout"]`` for the
table size where it has one, else ``mcts``'s) and ``mix`` (the game's ``extra["puct_mix"]`` for the table size,
else 1.0), ``temperature`` (0.05), ``weights``, ``prior_model``
(1; 0: the priors come from ``mcts``'s one-ply heuristic reward instead of the model),
``prior_visits`` (0), ``prior_net`` (1: the game's shipped priors network below the root
where it ships one for the model in use; 0: the exact one-ply look at every node),
``priors`` (a priors network file instead of the shipped one), ``exact_after`` (8; K: a
node the network seeded is seeded again with the exact look once it has been passed
through K times; 0: never), ``prior_fast`` (the game's ``extra["puct_prior_fast"]`` for the table size,
else 0; 1: the priors judge only the mover again on each
child, the rivals keeping their estimates of the position — about 1/n of the cost, measured
weaker in Sintra and Mille Fiori; with ``mix`` 1 only, since a blend needs every seat's
heuristic on each child, so Diamonds Club's default blend keeps the exact priors) and ``ucb`` (0; 1: ``mcts``'s UCB selection with the learned
leaves).

Measured strength: src/gemtable/bots/README.md, "Learned evaluation".
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

import numpy as np

from gemtable.core import Action, State

from . import learned, priors
from .base import check_params, register_bot
from .mcts import _A, _N, _W, MctsBot, _Node

_BY_NET = 16  # node.seeded bit (seat + 16): that seat's prior came from the priors network

PARAMS = ("iterations", "seconds", "c", "rollout", "sharpness", "margin_weight", "prior", "prior_all", "reuse",
          "stop", "policy", "mix", "temperature", "weights", "prior_model", "ucb", "prior_visits", "prior_fast",
          "prior_net", "priors", "exact_after")


def _children(det: State, player: int, actions: list[Action], encode: Any) -> list[State]:
    """``player``'s every action applied to a copy of ``det``; ``encode(i, child)`` for each
    child whose game goes on (an ended one is judged by its result)."""
    children: list[State] = []
    for i, action in enumerate(actions):
        child = det.clone()
        child.step(player, action)
        children.append(child)
        if not child.is_over():
            encode(i, child)
    return children


def _per_size(game: Any, key: str, num_players: int) -> Any:
    """``game.extra[key][num_players]``: a default the game measured for ``puct`` at this
    table size (None where it has none)."""
    return (game.extra.get(key) or {}).get(num_players)


def game_rollout(game: Any, num_players: int) -> int | None:
    """The playout length a game asks ``puct`` for at this table size when the spec names
    none: its ``extra["puct_rollout"]`` ({players: length}, measured per game: with the
    model judging where the playout stops, a shorter one can pay), else None (``mcts``'s
    own default)."""
    value = _per_size(game, "puct_rollout", num_players)
    return None if value is None else int(value)


def game_mix(game: Any, num_players: int) -> float:
    """The blend a game asks for at this table size when the spec names none: its
    ``extra["puct_mix"]`` maps a number of players to ``mix`` (measured per game); else 1.0."""
    value = _per_size(game, "puct_mix", num_players)
    return 1.0 if value is None else float(value)


def game_prior_fast(game: Any, num_players: int) -> bool:
    """Mover-only priors by default at this table size: the game's ``extra["puct_prior_fast"]``
    ({players: 0 or 1}, measured per game), else off."""
    return bool(_per_size(game, "puct_prior_fast", num_players))


class PuctBot(MctsBot):
    name = "puct"

    def __init__(self, seed: int = 0, **params: Any) -> None:
        check_params(self.name, params, PARAMS)
        own = {k: params[k] for k in ("mix", "temperature", "weights", "prior_model", "ucb", "prior_visits",
                                      "prior_fast", "prior_net", "priors", "exact_after") if k in params}
        base = {k: v for k, v in params.items() if k not in own}
        super().__init__(seed, **base)
        self.params = params
        self._user_c = "c" in params
        self._user_mix = "mix" in own
        self._user_rollout = "rollout" in params
        self._user_fast = "prior_fast" in own
        self.mix = float(own.get("mix", 1.0))
        if not 0.0 <= self.mix <= 1.0:
            raise ValueError("puct: mix must be between 0 and 1")
        self.temperature = float(own.get("temperature", 0.05))
        if self.temperature <= 0:
            raise ValueError("puct: temperature must be positive")
        self.weights_path = str(own["weights"]) if "weights" in own else None
        self.prior_model = bool(int(own.get("prior_model", 1)))
        self.ucb = bool(int(own.get("ucb", 0)))
        self.prior_visits = int(own.get("prior_visits", 0))
        if self.prior_visits < 0:
            raise ValueError("puct: prior_visits must be 0 or more")
        self.prior_fast = bool(int(own.get("prior_fast", 0)))
        self.prior_net = bool(int(own.get("prior_net", 1)))
        self.priors_path = str(own["priors"]) if "priors" in own else None
        self.exact_after = int(own.get("exact_after", 8))
        if self.exact_after < 0:
            raise ValueError("puct: exact_after must be 0 or more")
        if self.priors_path is not None and not self.prior_net:
            raise ValueError("puct: priors=PATH needs prior_net=1")
        self._models: dict[str, learned.ValueModel | None] = {}
        self._nets: dict[str, priors.PriorModel] = {}
        self.model: learned.ValueModel | None = None
        self.net: priors.PriorModel | None = None
        self._mcts_c = self.c
        self._root: _Node | None = None

    def _model_for(self, state: State) -> learned.ValueModel | None:
        return self._model_at(state.game, state.num_players)

    def _model_at(self, game: Any, num_players: int) -> learned.ValueModel | None:
        if self.weights_path is not None:
            if game.id not in self._models:
                self._models[game.id] = learned.load(game, self.weights_path)
            return self._models[game.id]
        return learned.shipped(game, num_players)  # the table size's own model if the game ships one

    def _net_at(self, game: Any, num_players: int, model: learned.ValueModel | None) -> priors.PriorModel | None:
        """The priors network for the nodes below the root with value ``model``: ``priors=PATH``,
        else the one the game ships for this table size (None with ``prior_net=0``, or without
        a model or a network)."""
        if not self.prior_net or not self.prior_model or model is None:
            return None
        if self.priors_path is not None:
            if game.id not in self._nets:
                self._nets[game.id] = priors.load(game, self.priors_path)
            return self._nets[game.id]
        if self.weights_path is not None:  # other value weights: the shipped priors were not learned from them
            return None
        return priors.shipped(game, num_players)

    def weights_fingerprint(self, game: Any, num_players: int) -> str | None:
        model = self._model_at(game, num_players)
        if model is None:
            return None
        net = self._net_at(game, num_players, model)
        if net is None:
            return model.fingerprint()
        return hashlib.sha256(f"{model.fingerprint()}+{net.fingerprint()}".encode()).hexdigest()[:16]

    def prepare(self, game: Any, num_players: int) -> bool:
        """Set up for a decision at a table of ``num_players``: the model, the priors network
        and the game's measured defaults for that size; False (play as ``mcts``) without a model."""
        return self._prepare(game, num_players, self._model_at(game, num_players))

    def _prepare(self, game: Any, num_players: int, model: learned.ValueModel | None) -> bool:
        self.model = model
        if self.model is None:  # no weights: exactly mcts
            self.net = None
            self.c = self._mcts_c
            if not self._user_rollout:
                self.rollout = None
            return False
        self.net = self._net_at(game, num_players, model)
        self.c = self._mcts_c if (self._user_c or self.ucb) else 1.0
        if not self._user_mix:
            self.mix = game_mix(game, num_players)
        if not self._user_rollout:
            self.rollout = game_rollout(game, num_players)
        if not self._user_fast:
            self.prior_fast = game_prior_fast(game, num_players)
        return True

    # -- the decision -----------------------------------------------------------------
    def choose(self, state: State, player: int) -> Action:
        self._prepare(state.game, state.num_players, self._model_for(state))
        self._root = None
        return super().choose(state, player)

    # -- priors --------------------------------------------------------------------------
    def _seed(self, node: _Node, det: State, player: int, actions: list[Action]) -> None:
        if self.model is None:
            return super()._seed(node, det, player, actions)
        if self.net is not None and node is not self._root:  # one forward pass
            self._set_prior(node, player, actions, self.net.values(det, player, actions))
            node.seeded |= 1 << (player + _BY_NET)
        else:
            self._set_prior(node, player, actions, self.one_ply_values(det, player, actions))
        node.seeded |= 1 << player

    def _reseed(self, node: _Node, det: State, player: int, actions: list[Action]) -> None:
        """A node the network seeded has been passed through ``exact_after`` times: its
        prior and virtual visits are redone with the exact one-ply look."""
        self._set_prior(node, player, actions, self.one_ply_values(det, player, actions), again=True)
        node.seeded &= ~(1 << (player + _BY_NET))

    def _set_prior(self, node: _Node, player: int, actions: list[Action], values: list[float],
                   again: bool = False) -> None:
        """``prior`` virtual visits worth each action's value and ``P = softmax(value /
        temperature)``; ``again``: replace an earlier prior's values and probabilities."""
        k = self.prior
        top = max(values)
        weights = [math.exp((v - top) / self.temperature) for v in values]
        total = sum(weights)
        for action, value, w in zip(actions, values, weights):
            key = (player, action.id)
            st = node.stats.get(key)
            if st is None:
                node.stats[key] = [k, k * value, k, w / total, value]
            elif len(st) == 3:  # statistics without a prior (kept from mcts's tree): no virtual visits
                st.append(w / total)
            elif again and len(st) == 5:  # the earlier prior's virtual visits now count the new value
                st[_W] += k * (value - st[4])
                st[3], st[4] = w / total, value
            elif again:  # legal only in later determinizations: the probability only
                st[3] = w / total
            else:  # seeded late (prior_visits): real statistics so far, plus the prior
                st[_N] += k
                st[_W] += k * value
                st[_A] += k
                st[3] = w / total
                st.append(value)

    def one_ply_values(self, det: State, player: int, actions: list[Action]) -> list[float]:
        """``player``'s value of each action, one ply deep in the determinization ``det``:
        the model (or the blend) on every child (what the priors network learns)."""
        model = self.model
        if not self.prior_model:  # the one-ply heuristic reward, as mcts's progressive bias
            values = []
            for action in actions:
                child = det.clone()
                child.step(player, action)
                values.append(MctsBot._evaluate(self, child)[player])
            return values
        if self.prior_fast and self.mix >= 1.0 and det.num_players > 1:
            return self._fast_priors(model, det, player, actions)
        return self._model_priors(model, det, player, actions)

    def _model_priors(self, model: learned.ValueModel, det: State, player: int,
                      actions: list[Action]) -> list[float]:
        """The model's value of every child for ``player``, judged in one batch."""
        n = det.num_players
        d = learned.input_size(det.game)
        rows = np.zeros((len(actions) * n, d), np.float32)
        heurs: list[list[float]] = [[]] * len(actions)

        def encode(i: int, child: State) -> None:
            ctx = learned.context(child)
            heurs[i] = ctx[0]
            learned.encode_seats(child, rows[i * n:(i + 1) * n], model.reads_observation, ctx)

        children = _children(det, player, actions, encode)
        probs = model.win_probabilities(rows)
        return self._judged(children, player,
                            lambda i: self._blend(learned.normalise(probs[i * n:(i + 1) * n]), heurs[i])[player])

    def _judged(self, children: list[State], player: int, judge: Any) -> list[float]:
        """Each child's value for ``player``: a finished game by its result, else ``judge(i)``."""
        return [self._evaluate(child)[player] if child.is_over() else judge(i) for i, child in enumerate(children)]

    def _fast_priors(self, model: learned.ValueModel, det: State, player: int,
                     actions: list[Action]) -> list[float]:
        """``_model_priors`` at about 1/n of its cost: only the mover is judged again on each
        child (its heuristic, value features and row); the rivals keep what they have in the
        position itself (their heuristics in the mover's context, and their own win estimates,
        computed once, in the share of the win).  What a move does to a rival's prospects is
        seen by the search below it, not by the prior."""
        game = det.game
        n = det.num_players
        ctx = learned.context(det)
        parent = ctx[0]
        rivals = model.win_probabilities(learned.encode_seats(det, None, model.reads_observation, ctx))
        rivals_total = float(rivals.sum()) - float(rivals[player])
        heuristic, features = game.heuristic, game.value_features
        rows = np.zeros((len(actions), learned.input_size(game)), np.float32)

        def mover_row(i: int, child: State) -> None:
            heur = list(parent)
            heur[player] = float(heuristic(child, player)) if heuristic is not None \
                else float(child.scores()[player])
            learned.encode(child, player, rows[i], heur,
                           features(child, player) if features is not None else None, model.reads_observation)

        children = _children(det, player, actions, mover_row)
        probs = model.win_probabilities(rows)

        def share(i: int) -> float:
            mine = float(probs[i])
            if n == 2:  # as learned.normalise: the two estimates of one outcome, averaged
                return 0.5 * (mine + 1.0 - rivals_total)
            total = mine + rivals_total
            return mine / total if total > 0 else 1.0 / n

        return self._judged(children, player, share)

    # -- selection --------------------------------------------------------------------------
    def _select(self, node: _Node, state: State, p: int) -> tuple[tuple[int, int], bool]:
        if self.model is None or self.ucb:
            return super()._select(node, state, p)
        stats = node.stats
        acts = state.legal_actions(p)
        if not node.seeded >> p & 1:
            if node is self._root or (self.prior_all and node.visits >= self.prior_visits):
                self._seed(node, state, p, acts)
            elif not self.prior_all:  # priors at the root only: uniform P, no virtual visits elsewhere
                node.seeded |= 1 << p
        elif self.exact_after and node.seeded >> (p + _BY_NET) & 1 and node.visits >= self.exact_after:
            self._reseed(node, state, p, acts)
        node.visits += 1
        c = self.c
        uniform = 1.0 / len(acts)
        best_key, best_value, new = None, -math.inf, False
        for action in acts:
            key = (p, action.id)
            st = stats.get(key)
            if st is None:
                st = stats[key] = [0, 0.0, 0, uniform]
            elif len(st) == 3:
                st.append(uniform)
            st[_A] += 1
            n = st[_N]
            q = st[_W] / n if n else 0.0
            value = q + c * st[3] * math.sqrt(st[_A]) / (1 + n)
            if value > best_value:
                best_key, best_value, new = key, value, n == 0
        return best_key, new

    def _seed_root(self, root: _Node, state: State, player: int, actions: list[Action]) -> None:
        self._root = root
        super()._seed_root(root, state, player, actions)

    # -- leaves ----------------------------------------------------------------------------
    def _evaluate(self, state: State) -> list[float]:
        model = self.model
        if model is None or state.is_over():
            return MctsBot._evaluate(self, state)
        ctx = learned.context(state)
        return self._blend(model.values(state, ctx), ctx[0])

    def _blend(self, values: list[float], heur: list[float]) -> list[float]:
        """``mix`` × the model's values + the rest × ``mcts``'s reward from the seats'
        heuristics ``heur`` (those the model read: computed once per position)."""
        if self.mix >= 1.0:
            return values
        m = self.mix
        return [m * a + (1 - m) * b for a, b in zip(values, self._shape(heur))]


register_bot("puct", PuctBot)
