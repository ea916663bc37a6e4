"""``gumbel``: Gumbel AlphaZero search with a policy-value network, for every game.

The network (:class:`PolicyValueNet`, NumPy at play time) reads the input of
:mod:`gemtable.bots.learned` for the seat to move — its observation and the context
entries (seats to move, table size, every seat's heuristic, value features), computed on
the search's determinization, so from the searching seat's guess only — and gives

* ``policy``: one logit per action of the game's fixed :class:`~gemtable.core.ActionSpace`
  (only the legal ones are read);
* ``value``: every seat's share of the win, from the mover's seat on (a softmax over the
  seats at the table).  The value logits add ``lin[j]`` times seat ``j``'s scaled heuristic
  entry, ``SHARPNESS`` at the start, and the last layers start at zero: an untrained
  network is a uniform policy and a value that is the logistic of the heuristic margin
  (at two seats) — ``mcts``'s judgement without playouts.

The search (:func:`search`), after Danihelka et al., "Policy improvement by planning with
Gumbel" (ICLR 2022), is built for few simulations per move:

* Root: ``k`` actions sampled without replacement by Gumbel-top-k over the policy logits,
  then sequential halving over the simulation budget: each round visits every remaining
  action equally and keeps the better half by ``g + logits + sigma(q)``.  The action
  played is the last one standing; the policy target is
  ``softmax(logits + sigma(completed q))`` over the legal actions (unvisited actions get
  the value estimate ``v_mix``).
* Below the root: the deterministic selection ``argmax pi'(a) - N(a) / (1 + sum N)`` with
  ``pi' = softmax(logits + sigma(completed q))``, for the seat to move there.
* ``sigma(q) = (c_visit + max N) * c_scale * q`` with q a share of the win in [0, 1].

Hidden information: every simulation runs on a fresh ``state.search_determinization(seat,
rng)`` (hidden cards, bags, deck orders and the RNG re-sampled from the searching seat's
view), so chance — draws, refills, dice — is sampled anew in each simulation through the
determinization's RNG, and the tree below the root is keyed by action ids (an open-loop
tree shared by all determinizations; a child is only chosen where its action is legal in
the simulation's determinization).  Where several seats are to move at once (secret
picks) the simulation lets them pick one after the other.

The search is a generator that yields ``(state, seat)`` positions to judge and receives
``(policy logits, value per seat)``: one bot judges them one at a time; self-play
(:mod:`gemtable.bots.selfplay`) advances many games together and judges their positions
in one batch.

Weights: ``weights=PATH`` (a file of ``gemtable train GAME --method gumbel``: a checkpoint
or a weights file), else the game's shipped ``policy.npz`` (``policy-<n>p.npz`` preferred
at tables of ``n``), else the untrained network.

Parameters: ``simulations`` (32 per move), ``seconds`` (a time budget: the number of
simulations is set from the time the bot's simulations took so far, at most ``simulations``
when that is given too, else at most 4096; the first move, with nothing measured, plays the
given ``simulations`` or 8), ``k`` (16 root
actions), ``c_visit`` (50), ``c_scale`` (1.0), ``noise`` (1.0: the Gumbel noise's scale; 0
ranks the root actions by the policy alone), ``weights``, ``fallback`` (a level of the
default table, e.g. ``expert``: at a table size for which the game ships no network and no
``weights`` are given, the bot plays that level's spec instead of the untrained network;
a game's ``expert`` level uses it to play the learned network where one was trained and
the search it replaces elsewhere), ``value`` (``network``, the default, or ``learned``: the
positions' values come from the learned evaluator the game ships, the one ``puct`` searches
with, and the network gives the policy only).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Generator
from importlib import resources
from itertools import repeat
from pathlib import Path
from typing import Any

import numpy as np

from gemtable.core import Action, Game, State

from . import learned
from .base import LEVELS, Bot, check_params, make_bot, register_bot

FORMAT = 1
SHARPNESS = learned.SHARPNESS
NAMES = ("mean", "std", "w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv", "lin")
TRAINABLE = NAMES[2:]
SHIPPED_NAME = "policy.npz"
MAX_SIMULATIONS = 4096  # per move under a time budget without a ``simulations`` cap
VALUES = ("network", "learned")  # what may judge the search's positions (the ``value`` parameter)


# -- the network ---------------------------------------------------------------------------
def sizes(game: Game) -> tuple[int, int, int]:
    """(input width, seats of the largest table, actions in the game's action space)."""
    return learned.input_size(game), max(game.player_counts), len(game.actions)


def init_weights(game: Game, hidden: tuple[int, int], rng: np.random.Generator) -> dict[str, np.ndarray]:
    """A fresh network: He-initialised hidden layers, zero heads, the heuristic in the value."""
    d, s, a = sizes(game)
    h1, h2 = hidden
    f32 = np.float32
    return {
        "mean": np.zeros(d, f32), "std": np.ones(d, f32),
        "w1": (rng.standard_normal((d, h1)) * np.sqrt(2.0 / d)).astype(f32), "b1": np.zeros(h1, f32),
        "w2": (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(f32), "b2": np.zeros(h2, f32),
        "wp": np.zeros((h2, a), f32), "bp": np.zeros(a, f32),
        "wv": np.zeros((h2, s), f32), "bv": np.zeros(s, f32),
        "lin": np.full(s, SHARPNESS, f32),
    }


def new_manifest(game: Game, hidden: tuple[int, int]) -> dict[str, Any]:
    d, s, a = sizes(game)
    return {"format": FORMAT, "kind": "gumbel-policy-value", "game": game.id,
            "layout_size": int(game.observation_layout.size),
            "layout_signature": learned.layout_signature(game), "input_size": d, "seats": s,
            "actions": a, "hidden": list(hidden)}


def heuristic_slice(game: Game) -> slice:
    """Where every seat's scaled heuristic sits in an input row (from the mover on)."""
    start = int(game.observation_layout.size) + 2 * max(game.player_counts)
    return slice(start, start + max(game.player_counts))


def table_sizes(game: Game, x: np.ndarray) -> np.ndarray:
    """The table size of every input row (its one-hot context entry)."""
    s = max(game.player_counts)
    start = int(game.observation_layout.size) + s
    return np.argmax(x[:, start:start + s], axis=1) + 1


class PolicyValueNet(learned.WeightsFile):
    """A game's policy-value network: weights, manifest, NumPy inference."""

    NAMES = NAMES

    def __init__(self, game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
        check(game, weights, manifest)
        self._keep(game, weights, manifest)
        self._heur = heuristic_slice(game)
        self._seat = np.arange(max(game.player_counts))

    def forward(self, x: np.ndarray, sizes: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """(policy logits ``(B, actions)``, value logits ``(B, seats)``; seats past the table
        size get -inf).  ``sizes``: each row's table size, when the caller knows them (else
        read from the rows)."""
        w = self.weights
        h1 = x @ self._w1
        h1 += self._b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w["w2"]
        h2 += w["b2"]
        np.maximum(h2, 0, out=h2)
        policy = h2 @ w["wp"]
        policy += w["bp"]
        value = h2 @ w["wv"]
        value += w["bv"]
        value += x[:, self._heur] * w["lin"]
        if sizes is not None and min(sizes) == max(sizes):  # one table size (always at play)
            value[:, sizes[0]:] = -np.inf
        else:
            sizes = table_sizes(self.game, x) if sizes is None else np.asarray(sizes)
            value[self._seat[None, :] >= sizes[:, None]] = -np.inf
        return policy, value

    def evaluate(self, x: np.ndarray, sizes: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """(policy logits, every seat's share of the win from the row's seat on)."""
        policy, value = self.forward(x, sizes)
        value -= value.max(axis=-1, keepdims=True)  # softmax, in place
        np.exp(value, out=value)
        value /= value.sum(axis=-1, keepdims=True)
        return policy, value


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def check(game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
    """Refuse weights made for another game, layout, action space or shapes."""
    if manifest.get("kind") != "gumbel-policy-value":
        raise learned.WeightsMismatch("not a policy-value network of `gemtable train --method gumbel`")
    if manifest.get("game") != game.id:
        raise learned.WeightsMismatch(f"weights are for {manifest.get('game')!r}, not {game.id!r}")
    if manifest.get("layout_signature") != learned.layout_signature(game):
        raise learned.WeightsMismatch(f"weights were made for another observation layout of {game.id}")
    d, s, a = sizes(game)
    if manifest.get("input_size") != d or manifest.get("seats") != s or manifest.get("actions") != a:
        raise learned.WeightsMismatch(f"weights do not fit {game.id}'s inputs, seats or actions")
    missing = [k for k in NAMES if k not in weights]
    if missing:
        raise learned.WeightsMismatch(f"weights lack {missing[0]!r}")
    h1, h2 = weights["w1"].shape[1], weights["w2"].shape[1]
    want = {"mean": (d,), "std": (d,), "w1": (d, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
            "wp": (h2, a), "bp": (a,), "wv": (h2, s), "bv": (s,), "lin": (s,)}
    for key, shape in want.items():
        if tuple(weights[key].shape) != shape:
            raise learned.WeightsMismatch(f"weights {key!r} have shape {weights[key].shape}, not {shape}")


def read(game: Game, source: Any) -> tuple[PolicyValueNet, dict[str, np.ndarray]]:
    """The network in ``source`` (path or bytes) and the file's other arrays (optimiser
    state, replay buffer when it is a training checkpoint)."""
    arrays, manifest = learned.read_arrays(source, "policy-value")
    net = PolicyValueNet(game, {k: arrays.pop(k) for k in NAMES if k in arrays}, manifest)
    return net, arrays


def fresh(game: Game) -> PolicyValueNet:
    """The untrained network (its outputs do not depend on the seed: zero heads)."""
    hidden = (64, 64)
    return PolicyValueNet(game, init_weights(game, hidden, np.random.default_rng(0)), new_manifest(game, hidden))


_SHIPPED: dict[tuple[str, int], PolicyValueNet | None] = {}


def shipped_path(game: Game, num_players: int | None = None) -> Any:
    name = SHIPPED_NAME if num_players is None else f"policy-{int(num_players)}p.npz"
    return resources.files(learned.package_of(game)).joinpath(name)


def shipped(game: Game, num_players: int) -> PolicyValueNet | None:
    """The network the game ships for ``num_players`` (``policy-<n>p.npz``, else
    ``policy.npz``), or None."""
    key = (game.id, num_players)
    if key not in _SHIPPED:
        net = None
        for ref in (shipped_path(game, num_players), shipped_path(game)):
            if ref.is_file():
                net = read(game, ref.read_bytes())[0]
                break
        _SHIPPED[key] = net
    return _SHIPPED[key]


class Encoder:
    """Input rows of positions for the seat to move, into one reusable buffer."""

    def __init__(self, game: Game, capacity: int = 1) -> None:
        self.game = game
        width = learned.input_size(game) if game.observation_layout is not None else 0
        self.buf = np.zeros((capacity, width), np.float32)
        self.contexts: list[Any] = []  # each row's learned.context (heuristics, value features)

    def rows(self, items: list[tuple[State, int]]) -> np.ndarray:
        if len(items) > len(self.buf):
            self.buf = np.zeros((len(items), self.buf.shape[1]), np.float32)
        self.contexts = []
        for i, (state, seat) in enumerate(items):
            heur, feats = ctx = learned.context(state)
            self.contexts.append(ctx)
            learned.encode(state, seat, self.buf[i], heur, feats[seat] if feats is not None else None)
        return self.buf[:len(items)]


def judge(net: PolicyValueNet | None, encoder: Encoder, items: list[tuple[State, int]],
          value_model: learned.ValueModel | None = None) -> tuple[np.ndarray, list[list[float]], np.ndarray]:
    """(policy logits, every seat's share of the win in seat order, input rows) of positions
    ``(state, seat to move)`` in one batch.  Without a network (a game with no observation
    layout to read) the policy is uniform and the value the untrained network's: a softmax
    of every seat's heuristic, scaled by the largest, times ``SHARPNESS``.  With
    ``value_model`` (a learned evaluator, :mod:`gemtable.bots.learned`) the values are that
    model's and the network gives the policy only."""
    if net is None:
        values = []
        for state, _ in items:
            heur = np.asarray(learned.heuristics(state), np.float64)
            values.append(softmax(SHARPNESS * heur / max(1.0, float(np.max(np.abs(heur))))).tolist())
        return np.zeros((len(items), len(encoder.game.actions))), values, encoder.buf[:0]
    x = encoder.rows(items)
    policy, shares = net.evaluate(x, [state.num_players for state, _ in items])
    if value_model is not None:
        return policy, [value_model.values(state, ctx) for (state, _), ctx in zip(items, encoder.contexts)], x
    values = []
    for i, (state, seat) in enumerate(items):
        row = shares[i, :state.num_players].tolist()  # entry j is seat (seat + j) % n
        values.append(row[-seat:] + row[:-seat])
    return policy, values, x


# -- the search -------------------------------------------------------------------------------
# Below the root a simulation chooses among a position's legal actions, a few dozen at most;
# on arrays that small NumPy's cost per call dominates, so the selection works on plain
# floats.  It computes exactly what NumPy computes for the formulas of the module docstring:
# the same operations in the same order, NumPy's own ``exp`` (whose last bit may differ from
# ``math.exp``'s) and :func:`fsum_np`, NumPy's order of summation.  So the search makes the
# same decisions, bit for bit, as the same search written with NumPy arrays
# (tests/bots/gumbel_reference.py holds one, and tests/bots/test_gumbel.py compares).


def fsum_np(xs: list[float]) -> float:
    """``float(np.sum(xs))`` of a list of floats, bit for bit: NumPy adds a float array
    pairwise, eight running sums over blocks of up to 128 entries (plain sums are added in
    another order and may differ in the last bit)."""
    n = len(xs)
    if n < 8:
        s = 0.0
        for x in xs:
            s += x
        return s
    if n <= 128:
        r0, r1, r2, r3, r4, r5, r6, r7 = xs[:8]
        cut = n - n % 8
        for i in range(8, cut, 8):
            r0 += xs[i]
            r1 += xs[i + 1]
            r2 += xs[i + 2]
            r3 += xs[i + 3]
            r4 += xs[i + 4]
            r5 += xs[i + 5]
            r6 += xs[i + 6]
            r7 += xs[i + 7]
        s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for i in range(cut, n):
            s += xs[i]
        return s
    half = n // 2
    half -= half % 8
    return fsum_np(xs[:half]) + fsum_np(xs[half:])


class Node:
    """A decision of ``mover`` in the open-loop tree: its network output and each action's
    visits and summed value for the mover (by action id; an action never taken has none).

    ``priors`` caches, per set of legal action ids met at this node (the determinizations
    may differ in what is legal), those actions' logits and, once asked for, the two halves
    of their softmax (:func:`_exps`): neither changes between visits."""

    __slots__ = ("children", "logits", "mover", "priors", "total", "value", "visits")

    def __init__(self, mover: int, logits: np.ndarray, value: Any) -> None:
        self.mover = mover
        self.logits = logits  # policy logits over the whole action space (float64)
        self.value = value  # the network's value per seat (floats)
        self.visits: dict[int, int] = {}
        self.total: dict[int, float] = {}
        self.children: dict[int, Node] = {}
        self.priors: dict[tuple[int, ...], list[Any]] = {}

    def prior(self, ids: tuple[int, ...], exps: bool = True) -> list[Any]:
        """``[logits, exps, their sum]`` of the actions ``ids``: the prior over them is
        ``exps[i] / sum`` (the last two None unless ``exps``)."""
        got = self.priors.get(ids)
        if got is None:
            got = self.priors[ids] = [self.logits.take(ids).tolist(), None, None]
        if exps and got[1] is None:
            got[1], got[2] = _exps(got[0])
        return got


def completed_q(node: Node, ids: Any, probs: Any, counts: list[int] | None = None) -> list[float]:
    """Each action's mean value for the mover; unvisited ones get ``v_mix`` (the network's
    value blended with the prior-weighted mean of the visited actions' values).  ``probs``:
    the prior over ``ids``; ``counts``: their visits, when the caller has them."""
    if counts is None:
        counts = list(map(node.visits.get, ids, repeat(0)))
    v = float(node.value[node.mover])
    n = sum(counts)  # visits are whole numbers: any order gives the same sum
    if not n:
        return [v] * len(counts)
    total = node.total
    seen = [(i, total[a] / c) for i, (a, c) in enumerate(zip(ids, counts)) if c]  # (index, q)
    mass = fsum_np([probs[i] for i, _ in seen])
    mean = fsum_np([probs[i] * qa for i, qa in seen]) / max(mass, 1e-12)
    q = [(v + n * mean) / (1 + n)] * len(counts)
    for i, qa in seen:
        q[i] = qa
    return q


def sigma(q: np.ndarray, max_visits: float, c_visit: float, c_scale: float) -> np.ndarray:
    return (c_visit + max_visits) * c_scale * q


def _exps(z: list[float]) -> tuple[list[float], float]:
    """(``np.exp(z - max(z))``, its NumPy sum): the two halves of a softmax, bit for bit."""
    top = max(z)
    e = np.exp([x - top for x in z]).tolist()
    return e, fsum_np(e)


def _softmax(z: list[float]) -> list[float]:
    """``softmax(np.array(z))``, bit for bit."""
    e, t = _exps(z)
    return [x / t for x in e]


def _improved_logits(node: Node, ids: tuple[int, ...], counts: list[int], c_visit: float,
                     c_scale: float) -> list[float]:
    """``logits + sigma(completed q)`` over ``ids`` (visited ``counts`` times): the search's
    hottest code, so :func:`completed_q` is written out here, computing apart only the few
    visited actions."""
    n = sum(counts)
    scale = (c_visit + max(counts)) * c_scale  # sigma(q) = scale * q
    logits, e, t = node.prior(ids, exps=n > 0)
    v = float(node.value[node.mover])
    if not n:
        sv = scale * v  # nothing visited: every q is the value
        return [lg + sv for lg in logits]
    total = node.total
    # the visited actions: (index, prior, q)
    seen = [(i, e[i] / t, total[a] / c) for i, (a, c) in enumerate(zip(ids, counts)) if c]
    if len(seen) < 8:  # fsum_np's plain loop, written out: usually a few actions are visited
        mass = acc = 0.0
        for _, p, qa in seen:
            mass += p
            acc += p * qa
    else:
        mass = fsum_np([p for _, p, _ in seen])
        acc = fsum_np([p * qa for _, p, qa in seen])
    mean = acc / max(mass, 1e-12)
    sv = scale * ((v + n * mean) / (1 + n))  # sigma(v_mix): the unvisited actions' q
    z = [lg + sv for lg in logits]
    for i, _, qa in seen:
        z[i] = logits[i] + scale * qa
    return z


def improved_policy(node: Node, ids: Any, c_visit: float, c_scale: float) -> list[float]:
    """``softmax(logits + sigma(completed q))`` over the actions ``ids``."""
    ids = tuple(int(a) for a in ids)
    counts = list(map(node.visits.get, ids, repeat(0)))
    return _softmax(_improved_logits(node, ids, counts, c_visit, c_scale))


def select(node: Node, ids: tuple[int, ...], c_visit: float, c_scale: float) -> int:
    """The index in ``ids`` of the action a simulation takes at ``node``:
    ``argmax pi'(a) - N(a) / (1 + sum N)`` with ``pi' = improved_policy`` (the first of
    equals)."""
    counts = list(map(node.visits.get, ids, repeat(0)))
    e, t = _exps(_improved_logits(node, ids, counts, c_visit, c_scale))
    denom = 1 + sum(counts)
    score = [x / t for x in e]  # minus 0 / denom where unvisited
    for i, c in enumerate(counts):
        if c:
            score[i] -= c / denom
    return score.index(max(score))


Request = tuple[State, int]
Reply = tuple[np.ndarray, np.ndarray]


class SearchResult:
    """What a root search found: the action to play, the improved policy over the legal
    action ids (the training target), the root's network value, the simulations run and the
    search's value of the root: every seat's share of the win averaged over the network's
    value and every simulation's result (seat order; the network's value when nothing was
    searched)."""

    __slots__ = ("action", "ids", "policy", "searched", "simulations", "value")

    def __init__(self, action: Action, ids: list[int], policy: np.ndarray, value: np.ndarray,
                 simulations: int, searched: list[float] | None = None) -> None:
        self.action, self.ids, self.policy, self.value, self.simulations = action, ids, policy, value, simulations
        self.searched = value.tolist() if searched is None else searched


def search(state: State, seat: int, rng: Any, gumbel: np.random.Generator, simulations: int = 32,
           k: int = 16, c_visit: float = 50.0, c_scale: float = 1.0,
           noise: float = 1.0) -> Generator[Request, Reply, SearchResult]:
    """Gumbel root search for ``seat`` on ``state`` (which it only reads through
    ``legal_actions(seat)`` and determinizations from ``seat``'s view).

    Yields ``(position, seat to move)`` to judge and expects ``(policy logits, value per
    seat)`` back; returns a :class:`SearchResult`.
    """
    legal = state.legal_actions(seat)
    ids = [a.id for a in legal]
    det = state.search_determinization(seat, rng)
    logits, value = yield (det, seat)
    value = np.asarray(value, np.float64)
    root = Node(seat, np.asarray(logits, np.float64), value.tolist())
    root_logits = root.logits[ids]
    if len(ids) == 1:
        return SearchResult(legal[0], ids, np.ones(1), value, 0)
    g = gumbel.gumbel(size=len(ids)) * noise
    m = max(1, min(k, len(ids), simulations))
    order = sorted(range(len(ids)), key=lambda i: -(g[i] + root_logits[i]))
    remaining = order[:m]
    rounds = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    probs = softmax(root_logits).tolist()
    done = 0
    summed = value.tolist()  # the network's value, then every simulation's, per seat
    for r in range(rounds):
        left = simulations - done
        if r == rounds - 1:  # the last round takes what is left
            per = math.ceil(left / len(remaining))
        else:
            per = max(1, left // (len(remaining) * (rounds - r)))
        for _ in range(per):
            for i in remaining:
                if done >= simulations:
                    break
                result = yield from _simulate(state, seat, root, legal[i], rng, c_visit, c_scale)
                for j, v in enumerate(result):
                    summed[j] += v
                done += 1
        if len(remaining) > 1:
            q = np.asarray(completed_q(root, ids, probs))
            most = float(max(root.visits.values(), default=0))
            score = g + root_logits + sigma(q, most, c_visit, c_scale)
            remaining = sorted(remaining, key=lambda i: -score[i])[:max(1, math.ceil(len(remaining) / 2))]
    q = np.asarray(completed_q(root, ids, probs))
    most = float(max(root.visits.values(), default=0))
    score = g + root_logits + sigma(q, most, c_visit, c_scale)
    best = max(remaining, key=lambda i: score[i])
    target = softmax(root_logits + sigma(q, most, c_visit, c_scale))
    return SearchResult(legal[best], ids, target, value, done, [v / (done + 1) for v in summed])


def _simulate(state: State, seat: int, root: Node, first: Action, rng: Any, c_visit: float,
              c_scale: float) -> Generator[Request, Reply, list[float]]:
    """One simulation: a fresh determinization, ``first`` for the root seat, then the tree's
    selection down to a new position, judged by the network (or by the result once the
    game is over); the values go back up the path, and are returned (per seat)."""
    det = state.search_determinization(seat, rng)
    path: list[tuple[Node, int]] = [(root, first.id)]
    det.step(seat, first)
    node = root
    aid = first.id
    while True:
        if det.is_over():
            value = [float(v) for v in det.returns()]
            break
        mover = det.to_move()[0]
        child = node.children.get(aid)
        if child is None or child.mover != mover:
            logits, value = yield (det, mover)
            value = list(map(float, value))
            if child is None:
                node.children[aid] = Node(mover, np.asarray(logits, np.float64), value)
            break
        node = child
        legal = det.legal_actions(mover)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = legal[select(node, tuple([a.id for a in legal]), c_visit, c_scale)]
        aid = action.id
        path.append((node, aid))
        det.step(mover, action)
    for n_, a in path:
        visits, total = n_.visits, n_.total
        visits[a] = visits.get(a, 0) + 1
        total[a] = total.get(a, 0.0) + value[n_.mover]
    return value


# -- the bot ----------------------------------------------------------------------------------
class GumbelBot(Bot):
    """Gumbel AlphaZero search with a policy-value network (see the module docstring)."""

    name = "gumbel"
    PARAMS = ("simulations", "seconds", "k", "c_visit", "c_scale", "noise", "weights", "fallback", "value")

    def __init__(self, seed: int = 0, **params: Any) -> None:
        check_params(self.name, params, self.PARAMS)
        super().__init__(seed, **params)
        self.seconds = params.get("seconds")
        # with a time budget, ``simulations`` (when given) caps the count the time allows
        self.simulations = int(params.get("simulations", 32 if self.seconds is None else MAX_SIMULATIONS))
        self.k = int(params.get("k", 16))
        self.c_visit = float(params.get("c_visit", 50.0))
        self.c_scale = float(params.get("c_scale", 1.0))
        self.noise = float(params.get("noise", 1.0))
        if self.simulations < 1 or self.k < 1:
            raise ValueError("gumbel: simulations and k must be at least 1")
        if self.seconds is not None and float(self.seconds) <= 0:
            raise ValueError("gumbel: seconds must be positive")
        fallback = params.get("fallback")
        if fallback is not None and str(fallback) not in LEVELS:
            raise ValueError(f"gumbel: fallback must be a level ({', '.join(LEVELS)}), not {fallback!r}")
        self.fallback = None if fallback is None else str(fallback)
        self.value = str(params.get("value", "network"))
        if self.value not in VALUES:
            raise ValueError(f"gumbel: value must be 'network' or 'learned', not {self.value!r}")
        self._stand_in: Bot | None = None  # the fallback level's bot, made when first needed
        # does that bot use what it is told between moves?  (asked of a throwaway one, so the
        # drivers skip the bookkeeping for a stand-in that would ignore it)
        self._stand_in_observes = self.fallback is not None and make_bot(LEVELS[self.fallback]).observes
        self._nets: dict[tuple[str, int], PolicyValueNet] = {}
        self._encoder: Encoder | None = None
        self._per_sim: float | None = None  # seconds per simulation so far (the seconds budget)

    def net(self, game: Game, num_players: int) -> PolicyValueNet | None:
        """The network for ``game`` at tables of ``num_players`` (None for a game without an
        observation layout: then the untrained network's judgement, see :func:`judge`)."""
        if game.observation_layout is None:
            return None
        key = (game.id, num_players)
        if key not in self._nets:
            path = self.params.get("weights")
            if path is not None:
                self._nets[key] = read(game, Path(str(path)))[0]
            else:
                self._nets[key] = shipped(game, num_players) or fresh(game)
        return self._nets[key]

    def value_model(self, game: Game, num_players: int) -> learned.ValueModel | None:
        """With ``value=learned``, the learned evaluator the game ships for tables of
        ``num_players`` (``puct``'s), which then judges the positions; else None (the
        network's value head judges them, as it does where the game ships no evaluator)."""
        if self.value != "learned" or game.observation_layout is None:
            return None
        return learned.shipped(game, num_players)

    def stand_in(self, game: Game, num_players: int) -> Bot | None:
        """The fallback level's bot when it plays tables of ``num_players`` (no network is
        shipped for them and no ``weights`` are given), else None."""
        if self.fallback is None or self.params.get("weights") is not None:
            return None
        if game.observation_layout is not None and shipped(game, num_players) is not None:
            return None
        if self._stand_in is None:
            # the default table's spec: a game's own spec for the level may be this bot
            self._stand_in = make_bot(LEVELS[self.fallback], seed=self.rng.next64() & 0x7FFFFFFF)
        return self._stand_in

    @property
    def observes(self) -> bool:
        return self._stand_in_observes  # the stand-in keeps its tree between moves

    def observe(self, state: State, player: int, action: Action | None) -> None:
        other = self.stand_in(state.game, state.num_players) if self._stand_in_observes else None
        if other is not None:
            other.observe(state, player, action)

    def weights_fingerprint(self, game: Any, num_players: int) -> str | None:
        other = self.stand_in(game, num_players)
        if other is not None:
            return other.weights_fingerprint(game, num_players)
        net = self.net(game, num_players)
        if net is None:
            return None
        model = self.value_model(game, num_players)
        if model is None:
            return net.fingerprint()
        return hashlib.sha256(f"{net.fingerprint()}+{model.fingerprint()}".encode()).hexdigest()[:16]

    def budget(self) -> int:
        if self.seconds is None:
            return self.simulations
        if self._per_sim is None:  # nothing measured yet: a given count as asked, else a short first look
            return self.simulations if "simulations" in self.params else 8
        return min(self.simulations, max(4, int(float(self.seconds) / self._per_sim)))

    def choose(self, state: State, player: int) -> Action:
        other = self.stand_in(state.game, state.num_players)
        if other is not None:
            return other.choose(state, player)
        net = self.net(state.game, state.num_players)
        if self._encoder is None or self._encoder.game is not state.game:
            self._encoder = Encoder(state.game)
        gumbel = np.random.default_rng(self.rng.next64())
        sims = self.budget()
        start = time.perf_counter()
        gen = search(state, player, self.rng, gumbel, sims, self.k, self.c_visit, self.c_scale, self.noise)
        result = drive(gen, net, self._encoder, self.value_model(state.game, state.num_players))
        if self.seconds is not None and result.simulations:
            spent = (time.perf_counter() - start) / (result.simulations + 1)
            self._per_sim = spent if self._per_sim is None else 0.7 * self._per_sim + 0.3 * spent
        return result.action


def drive(gen: Generator[Request, Reply, SearchResult], net: PolicyValueNet | None, encoder: Encoder,
          value_model: learned.ValueModel | None = None) -> SearchResult:
    """Run one search to its end, judging its positions one at a time."""
    try:
        request = next(gen)
        while True:
            policy, values, _ = judge(net, encoder, [request], value_model)
            request = gen.send((policy[0], values[0]))
    except StopIteration as stop:
        return stop.value


register_bot("gumbel", GumbelBot)
