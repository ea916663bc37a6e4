"""A priors network: every action's one-ply value from one forward pass.

``puct`` seeds a node the first time a seat decides there: it applies every legal action
to the determinization and has the value model judge each child (:mod:`gemtable.bots.puct`,
"Priors").  That one-ply look costs a clone, a step and a full encoding per action —
between a third and four fifths of each search iteration, depending on the game.  A priors
network learns those one-ply values: it reads the mover's input row of the position (the
value model's input: the mover's observation and context) and outputs a value for every
action of the game's fixed action space (``game.actions``); the search reads the legal
ones.  With it, ``puct`` seeds the nodes below the root from one forward pass and spends
the time saved on more iterations; the root keeps the exact one-ply look.

It is trained by distillation (:func:`positions`, :class:`Trainer`): bot games are played,
and at every decision with a choice a determinization from the mover's view is judged
exactly as the search would judge it (``PuctBot.one_ply_values`` with the game's shipped
model and defaults at that table size).  The loss is the squared error of the legal
actions' values plus the cross-entropy between the two prior distributions
(``softmax(value / temperature)``), since the search reads both the values (its virtual
visits) and their ranking (its prior probabilities).

Inference is NumPy: one ReLU layer, float32.  Weights are a compressed ``.npz`` with a
JSON manifest: the game, its observation layout's signature, the action space's size,
the shapes, the teacher (the fingerprint of the value model whose one-ply values were
learned) and how the file was trained.  A game ships them as ``priors.npz`` or, for one
table size, ``priors-<n>p.npz`` beside its value model; :func:`shipped` finds them and
uses a file only while its teacher is still the value model the game ships for that size,
so new value weights never play with priors learned from old ones.
"""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import numpy as np

from gemtable.core import Game, Rng, State

from . import learned
from .learned import WeightsMismatch

FORMAT = 1
KIND = "priors"
WEIGHT_NAMES = ("mean", "std", "w1", "b1", "w2", "b2")
log = logging.getLogger(__name__)


def mover_row(det: State, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """The network's input: ``player``'s row of the value model's input for ``det`` (a
    determinization: its heuristic context is computed on it, as the search does)."""
    heur, feats = learned.context(det)
    return learned.encode(det, player, out, heur, feats[player] if feats is not None else None, True)


class PriorModel(learned.WeightsFile):
    """The priors network for one game: weights, manifest and NumPy inference."""

    NAMES = WEIGHT_NAMES

    def __init__(self, game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
        check_shapes(game, weights, manifest)
        self._keep(game, weights, manifest)
        self.teacher = str(manifest.get("teacher", ""))

    def action_values(self, x: np.ndarray) -> np.ndarray:
        """The value of every action of the game's action space, for each row of ``x``
        (or for the one row ``x``)."""
        one = x.ndim == 1
        x2 = x[None, :] if one else x
        h = np.maximum(x2 @ self._w1 + self._b1, 0.0)
        out = h @ self.weights["w2"] + self.weights["b2"]
        return out[0] if one else out

    def values(self, det: State, player: int, actions: list) -> list[float]:
        """``player``'s value of each of ``actions`` in the determinization ``det``."""
        q = self.action_values(mover_row(det, player))
        return [float(q[a.id]) for a in actions]


def check_shapes(game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
    """Refuse weights made for another game, layout, action space or shape, saying why."""
    if manifest.get("kind") != KIND:
        raise WeightsMismatch(f"this is not a priors file (kind {manifest.get('kind')!r})")
    if manifest.get("format") != FORMAT:
        raise WeightsMismatch(f"priors format {manifest.get('format')!r} is not {FORMAT}")
    if manifest.get("game") != game.id:
        raise WeightsMismatch(f"priors were trained for {manifest.get('game')!r}, not {game.id!r}")
    sig = learned.layout_signature(game)
    if manifest.get("layout_signature") != sig:
        raise WeightsMismatch(f"priors were trained on another observation layout of {game.id}; retrain them")
    d, a = learned.input_size(game), len(game.actions)
    if manifest.get("actions") != a:
        raise WeightsMismatch(f"priors were trained for {manifest.get('actions')} actions; {game.id} has {a}")
    h = manifest.get("hidden")
    expected = {"mean": (d,), "std": (d,), "w1": (d, h), "b1": (h,), "w2": (h, a), "b2": (a,)}
    for name, shape in expected.items():
        if name not in weights:
            raise WeightsMismatch(f"priors file has no array {name!r}")
        got = tuple(np.shape(weights[name]))
        if got != shape:
            raise WeightsMismatch(f"priors array {name!r} has shape {got}, expected {shape} for {game.id}")
        if not np.all(np.isfinite(weights[name])):
            raise WeightsMismatch(f"priors array {name!r} holds non-finite numbers")
    if np.any(np.asarray(weights["std"]) <= 0):
        raise WeightsMismatch("priors array 'std' must be positive")


def read(game: Game, source: Any) -> tuple[PriorModel, dict[str, np.ndarray]]:
    """The network in ``source`` (path, bytes or file object) and any extra arrays it holds."""
    arrays, manifest = learned.read_arrays(source, "priors")
    return PriorModel(game, arrays, manifest), {k: v for k, v in arrays.items() if k not in WEIGHT_NAMES}


def load(game: Game, path: str | Path) -> PriorModel:
    return read(game, Path(path))[0]


def shipped_name(num_players: int | None = None) -> str:
    """``priors.npz``, or ``priors-<n>p.npz`` for the network of ``n``-player tables only."""
    return "priors.npz" if num_players is None else f"priors-{int(num_players)}p.npz"


def shipped_path(game: Game, num_players: int | None = None) -> Any:
    from importlib import resources

    return resources.files(learned.package_of(game)).joinpath(shipped_name(num_players))


_SHIPPED: dict[tuple[str, int], PriorModel | None] = {}


def shipped(game: Game, num_players: int) -> PriorModel | None:
    """The priors network the game ships for tables of ``num_players`` (its
    ``priors-<n>p.npz``, else its ``priors.npz``), or None.  A file is used only if its
    teacher is the value model the game ships for that size; one that no longer fits
    (another layout, other value weights) is logged and ignored, and the test suite
    fails on it until it is retrained."""
    key = (game.id, num_players)
    if key not in _SHIPPED:
        found = None
        value = learned.shipped(game, num_players)
        if value is not None:
            for name_players in (num_players, None):
                ref = shipped_path(game, name_players)
                if not ref.is_file():
                    continue
                try:
                    model = read(game, ref.read_bytes())[0]
                except WeightsMismatch as exc:
                    log.warning("%s: shipped %s not used: %s", game.id, shipped_name(name_players), exc)
                    continue
                if model.teacher != value.fingerprint():
                    log.warning("%s: shipped %s was learned from other value weights; not used",
                                game.id, shipped_name(name_players))
                    continue
                found = model
                break
        _SHIPPED[key] = found
    return _SHIPPED[key]


def new_manifest(game: Game, hidden: int, teacher: str, temperature: float, seed: int) -> dict[str, Any]:
    return {"kind": KIND, "format": FORMAT, "game": game.id,
            "layout_signature": learned.layout_signature(game), "input_size": learned.input_size(game),
            "actions": len(game.actions), "hidden": int(hidden), "teacher": teacher,
            "temperature": float(temperature), "seed": int(seed), "games": 0, "positions": 0,
            "cpu_minutes": 0.0, "runs": []}


def init_weights(game: Game, hidden: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    d, a = learned.input_size(game), len(game.actions)
    return {"mean": np.zeros(d, np.float32), "std": np.ones(d, np.float32),
            "w1": rng.normal(0.0, math.sqrt(2.0 / d), (d, hidden)).astype(np.float32),
            "b1": np.zeros(hidden, np.float32),
            "w2": (rng.normal(0.0, math.sqrt(1.0 / hidden), (hidden, a)) * 0.1).astype(np.float32),
            "b2": np.full(a, 0.5, np.float32)}


# -- training data ----------------------------------------------------------------------------
def positions(game: Game, num_players: int, seed: int, specs: list[str], offset: int = 0,
              teacher_spec: str = "puct") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One bot game turned into distillation examples: at every decision with more than
    one legal action, a determinization from the mover's view (the mover's row, the legal
    action ids, and their one-ply values as ``teacher_spec`` would seed them in a search).
    Returns (rows float32 (k, input size), legal action ids int32, their values float32,
    legal actions per row int32 (k)); :func:`dense` turns them into arrays to train on."""
    from .base import make_bot

    teacher = make_bot(teacher_spec, seed=seed, game=game)
    if not teacher.prepare(game, num_players):
        raise ValueError(f"{game.title} ships no value model at {num_players} players to learn priors from")
    state = game.new(num_players, seed)
    bots = [make_bot(specs[(offset + s) % len(specs)], seed=seed * 7919 + s, game=game) for s in range(num_players)]
    rng = Rng(seed ^ 0x5EED)
    rows: list[np.ndarray] = []
    ids: list[int] = []
    vals: list[float] = []
    counts: list[int] = []
    limit = int(game.extra.get("max_steps", 20_000))
    steps = 0
    while not state.is_over() and steps < limit:
        p = state.to_move()[0]
        actions = state.legal_actions(p)
        if len(actions) > 1:
            det = state.search_determinization(p, rng.spawn())
            values = teacher.one_ply_values(det, p, actions)
            rows.append(mover_row(det, p))
            ids.extend(a.id for a in actions)
            vals.extend(values)
            counts.append(len(actions))
        state.step(p, bots[p].choose(state, p))
        steps += 1
    d = learned.input_size(game)
    x = np.stack(rows).astype(np.float32) if rows else np.zeros((0, d), np.float32)
    return x, np.asarray(ids, np.int32), np.asarray(vals, np.float32), np.asarray(counts, np.int32)


def dense(ids: np.ndarray, vals: np.ndarray, counts: np.ndarray, actions: int) -> tuple[np.ndarray, np.ndarray]:
    """(legal mask, values) as dense (positions, actions) arrays."""
    n = len(counts)
    mask = np.zeros((n, actions), np.bool_)
    target = np.zeros((n, actions), np.float32)
    rows = np.repeat(np.arange(n), counts)
    mask[rows, ids] = True
    target[rows, ids] = vals
    return mask, target


class Trainer(learned.Adam):
    """Adam on the priors network: squared error of the legal actions' values plus
    ``ce`` × the cross-entropy of ``softmax(value / temperature)`` over them."""

    TRAINABLE = ("w1", "b1", "w2", "b2")

    def __init__(self, weights: dict[str, np.ndarray], temperature: float, lr: float = 1e-3,
                 l2: float = 1e-5, ce: float = 1.0, mse: float = 10.0) -> None:
        self.w = {k: np.array(v, np.result_type(v, np.float32)) for k, v in weights.items()}
        self.temperature, self.lr, self.l2, self.ce, self.mse = temperature, lr, l2, ce, mse
        self._start_adam()

    def _forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        w = self.w
        xn = (x - w["mean"]) / w["std"]
        h = np.maximum(xn @ w["w1"] + w["b1"], 0.0)
        return xn, h, h @ w["w2"] + w["b2"]

    def _softmax(self, v: np.ndarray, mask: np.ndarray) -> np.ndarray:
        z = np.where(mask, v / self.temperature, -1e30)
        z = z - z.max(1, keepdims=True)
        e = np.where(mask, np.exp(z), 0.0)
        return e / e.sum(1, keepdims=True)

    def losses(self, x: np.ndarray, mask: np.ndarray, target: np.ndarray) -> tuple[float, float, float]:
        """(mean squared error over legal actions, KL divergence of the priors from the
        teacher's, share of positions whose best action is the teacher's)."""
        _, _, q = self._forward(x)
        mse = float(((q - target) ** 2 * mask).sum() / max(1, mask.sum()))
        p, t = self._softmax(q, mask), self._softmax(target, mask)
        kl = float(np.where(mask, t * (np.log(np.maximum(t, 1e-12)) - np.log(np.maximum(p, 1e-12))), 0).sum(1).mean())
        best = np.where(mask, q, -np.inf).argmax(1) == np.where(mask, target, -np.inf).argmax(1)
        return mse, kl, float(best.mean()) if len(best) else 0.0

    def gradients(self, x: np.ndarray, mask: np.ndarray, target: np.ndarray) -> dict[str, np.ndarray]:
        w = self.w
        xn, h, q = self._forward(x)
        g = self.mse * 2.0 * (q - target) * mask / max(1, int(mask.sum()))
        if self.ce:
            g = g + self.ce * (self._softmax(q, mask) - self._softmax(target, mask)) / self.temperature / len(x)
        grads = {"w2": h.T @ g, "b2": g.sum(0)}
        gh = (g @ w["w2"].T) * (h > 0)
        grads["w1"], grads["b1"] = xn.T @ gh, gh.sum(0)
        return grads
