"""A learned position evaluator: a small NumPy MLP over one seat's observation.

The model reads what a seat may see: the game's observation features
(``game.observation_layout.fill(state, seat)``, built from that seat's view) plus
context entries: which seats are to move, relative to the observer, and the number of
players (two one-hots as wide as the game's largest table), and the game's hand-written
heuristic — every seat's estimated final score in the observer's seat order, divided by
the largest of them, and the observer's estimated margin over the best other seat
``m`` (the last entry).  The heuristic is computed on the state the model is given: in a
search that is a determinization (the searching seat's guess of everything hidden); for
training rows it is a determinization from the row's seat, so a row never reads another
seat's secrets.  It has two heads:

* ``win``: the logit of the observer's share of the win (1 for a win, 1/k for a
  k-way tie, 0 for a loss) — what the search uses;
* ``margin``: the final score margin over the best other seat, divided by
  ``margin_scale`` (an auxiliary target that regularises the first layers).

Both heads add a linear function of the last entries — the game's value features and
``m`` — to the network's output (the ``lin`` weights).  A fresh model has a zero last
layer and a linear part that reads ``m`` only, times ``SHARPNESS``, so before any training
its win probability is exactly the logistic of the heuristic margin that ``mcts`` judges
its playouts with.  Training learns the linear part (a logistic regression over a few
meaningful numbers, which needs few games) and a correction by the network; early
stopping keeps the untrained start unless held-out games are predicted better.

Inference is pure NumPy (two ReLU layers, float32).  Weights are saved as a
compressed ``.npz`` holding the arrays and a JSON manifest: the game id, the
observation layout's size and signature (a hash of every field's name, range and
bounds), the shapes, and how the file was trained (command, seed, games, CPU
minutes).  :func:`load` refuses a file made for another game or another layout.

A game ships weights as ``gemtable/games/<package>/value.npz`` (package data);
:func:`shipped` finds them.  A game may also ship a model for one table size,
``value-<n>p.npz`` (e.g. ``value-2p.npz``), which :func:`shipped` prefers at tables of
``n`` players: a model whose search labels pay at two players may cost strength at four.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from gemtable.core import Game, Rng, State

FORMAT = 2
WEIGHT_NAMES = ("mean", "std", "w1", "b1", "w2", "b2", "w3", "b3", "lin")
SHARPNESS = 10.0  # slope of the untrained model's logistic: mcts's default ``sharpness``
SHIPPED_NAME = "value.npz"
log = logging.getLogger(__name__)
CHUNK = 8  # rows per matrix product at play time


class WeightsMismatch(ValueError):
    """A weights file that does not fit the game it is loaded for."""


def layout_signature(game: Game) -> str:
    """A short hash of the game's observation layout (names, indices, bounds, privacy)."""
    layout = game.observation_layout
    if layout is None:
        raise WeightsMismatch(f"{game.title} has no observation layout to learn from")
    desc = [(f.name, f.start, f.stop, f.low, f.high, f.private) for f in layout.fields]
    return hashlib.sha256(json.dumps([game.id, layout.size, desc]).encode()).hexdigest()[:16]


def extra_size(game: Game) -> int:
    """Context entries after the observation: seats to move relative to the observer
    (one-hot over the largest table), the number of players (one-hot), every seat's
    heuristic estimate in the observer's order (as wide as the largest table), the
    game's value features of the observer (``game.value_feature_names``) and the
    observer's heuristic margin (last)."""
    return 3 * max(game.player_counts) + linear_size(game)


def linear_size(game: Game) -> int:
    """The last entries of the input, which also feed the linear part: the value
    features and the heuristic margin."""
    return len(game.value_feature_names) + 1


def heuristics(state: State) -> list[float]:
    """Every seat's heuristic estimate of its final score (the current score without one)."""
    heuristic = state.game.heuristic
    if heuristic is None:
        return [float(v) for v in state.scores()]
    return [float(heuristic(state, q)) for q in range(state.num_players)]


def input_size(game: Game) -> int:
    return int(game.observation_layout.size) + extra_size(game)


def encode(state: State, player: int, out: np.ndarray | None = None,
           heur: list[float] | None = None, feats: list[float] | None = None,
           observation: bool = True) -> np.ndarray:
    """The model input of ``player``: its observation and the context entries.

    ``heur``: every seat's heuristic estimate (:func:`heuristics`), and ``feats``:
    ``game.value_features(state, player)``.  When not given they are computed on a
    determinization from ``player`` (a fixed seed), so the row depends on ``player``'s
    view only; a search computes them on its own determinization.  ``observation=False``
    leaves the observation entries as they are (a model that reads the context only).
    """
    game = state.game
    layout = game.observation_layout
    size = layout.size
    if out is None:
        out = np.zeros(size + extra_size(game), np.float32)
    if observation:
        layout.fill(state, player, out[:size])
    if heur is None or (feats is None and game.value_features is not None):
        det = state.determinize(player, Rng(0))
        heur = heuristics(det) if heur is None else heur
        feats = game.value_features(det, player) if game.value_features is not None else None
    movers = () if state.is_over() else state.to_move()
    out[size:] = _tail(game, state.num_players, player, movers, heur, feats)
    return out


def _tail(game: Game, n: int, player: int, movers: Any, heur: list[float],
          feats: list[float] | None) -> list[float]:
    """``player``'s context entries (:func:`extra_size`): the seats to move relative to it,
    the table size, every seat's heuristic from its seat on and scaled by the largest, its
    value features and its heuristic margin over the best other seat."""
    seats = max(game.player_counts)
    k = len(game.value_feature_names)
    tail = [0.0] * (3 * seats + k + 1)
    for q in movers:
        tail[(q - player) % n] = 1.0
    tail[seats + n - 1] = 1.0
    scale = max(1.0, max(abs(v) for v in heur))
    for j in range(n):
        tail[2 * seats + j] = heur[(player + j) % n] / scale
    if k:
        tail[3 * seats:3 * seats + k] = feats
    if n > 1:
        tail[-1] = (heur[player] - max(heur[q] for q in range(n) if q != player)) / scale
    return tail


def encode_seats(state: State, out: np.ndarray | None = None, observation: bool = True,
                 ctx: tuple[list[float], list[list[float]] | None] | None = None) -> np.ndarray:
    """One row per seat, each from that seat's own view of ``state`` (rows ``0 … n-1``);
    the heuristic context (``ctx``, else :func:`context`) is computed once, on ``state``
    itself: meant for a search's determinization, whose every part is the searching seat's
    guess."""
    game = state.game
    n = state.num_players
    if out is None:
        out = np.zeros((n, input_size(game)), np.float32)
    heur, feats = ctx if ctx is not None else context(state)
    size = game.observation_layout.size
    if observation:
        for p in range(n):
            game.observation_layout.fill(state, p, out[p, :size])
    movers = () if state.is_over() else state.to_move()
    rows = [_tail(game, n, p, movers, heur, feats[p] if feats is not None else None) for p in range(n)]
    out[:n, size:] = rows
    return out


def context(state: State) -> tuple[list[float], list[list[float]] | None]:
    """(:func:`heuristics`, :func:`seat_features`) of ``state``, from the game's
    ``value_context`` in one pass where it has one."""
    fast = state.game.value_context
    if fast is not None:
        return fast(state)
    return heuristics(state), seat_features(state)


def seat_features(state: State) -> list[list[float]] | None:
    """Every seat's value features on ``state`` (None for a game without them)."""
    game = state.game
    if game.value_features_all is not None:
        return game.value_features_all(state)
    if game.value_features is None:
        return None
    return [game.value_features(state, p) for p in range(state.num_players)]


def encode_training_rows(state: State, rng: Any, out: np.ndarray | None = None) -> np.ndarray:
    """One row per seat of a real position, for training: each seat's heuristic context is
    computed on a determinization from that seat (``state.determinize(p, rng)``), as a
    search by that seat would see it, so no row reads another seat's secrets."""
    n = state.num_players
    if out is None:
        out = np.zeros((n, input_size(state.game)), np.float32)
    vf = state.game.value_features
    for p in range(n):
        det = state.determinize(p, rng)
        encode(state, p, out[p], heuristics(det), vf(det, p) if vf is not None else None)
    return out


INPUTS = ("context", "all")  # what the network reads: the context entries only, or the observation too


def mlp_inputs(game: Game, inputs: str = "context") -> int:
    """How many of the last input entries the network reads (``inputs``: one of ``INPUTS``)."""
    if inputs not in INPUTS:
        raise WeightsMismatch(f"inputs must be one of {', '.join(INPUTS)}, not {inputs!r}")
    return extra_size(game) if inputs == "context" else input_size(game)


def init_weights(game: Game, hidden: tuple[int, int], rng: np.random.Generator,
                 inputs: str = "context") -> dict[str, np.ndarray]:
    d = mlp_inputs(game, inputs)
    h1, h2 = hidden
    f32 = np.float32
    return {
        "mean": np.zeros(d, f32),
        "std": np.ones(d, f32),
        "w1": (rng.standard_normal((d, h1)) * np.sqrt(2.0 / d)).astype(f32),
        "b1": np.zeros(h1, f32),
        "w2": (rng.standard_normal((h1, h2)) * np.sqrt(2.0 / h1)).astype(f32),
        "b2": np.zeros(h2, f32),
        "w3": np.zeros((h2, 2), f32),  # zero last layer: the fresh model is the heuristic's logistic
        "b3": np.zeros(2, f32),
        "lin": _initial_linear(game),
    }


def _initial_linear(game: Game) -> np.ndarray:
    """The linear part of a fresh model: the heuristic margin times ``SHARPNESS`` for the
    win logit, nothing else."""
    lin = np.zeros((linear_size(game), 2), np.float32)
    lin[-1, 0] = SHARPNESS
    return lin


class WeightsFile:
    """Arrays named ``NAMES`` and a JSON manifest, saved as one compressed ``.npz``: what a
    value model and a priors network (:mod:`gemtable.bots.priors`) share."""

    NAMES: tuple[str, ...] = ()
    weights: dict[str, np.ndarray]
    manifest: dict[str, Any]
    _fingerprint: str | None = None

    def _keep(self, game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
        """Hold the (checked) arrays as float32, with the input normalisation folded into the
        first layer: ``(x - mean) / std @ w1 + b1`` is ``x @ _w1 + _b1``."""
        self.game = game
        self.weights = {k: np.asarray(weights[k], np.float32) for k in self.NAMES}
        self.manifest = dict(manifest)
        self._fingerprint = None
        w = self.weights
        inv = 1.0 / w["std"]
        self._w1 = (w["w1"] * inv[:, None]).astype(np.float32)
        self._b1 = (w["b1"] - (w["mean"] * inv) @ w["w1"]).astype(np.float32)

    def fingerprint(self) -> str:
        """16 hex digits of a SHA-256 over the weights (names, shapes and float32 bytes);
        computed once (the server's bot list checks the shipped ladders on every request)."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            for name in self.NAMES:
                a = np.ascontiguousarray(self.weights[name], np.float32)
                h.update(f"{name}{a.shape}".encode())
                h.update(a.tobytes())
            self._fingerprint = h.hexdigest()[:16]
        return self._fingerprint

    def save(self, path: str | Path, extra: dict[str, np.ndarray] | None = None) -> int:
        """Write a compressed ``.npz`` (weights, manifest, optional optimiser state); bytes written."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {k: self.weights[k] for k in self.NAMES}
        arrays.update(extra or {})
        arrays["manifest"] = np.frombuffer(json.dumps(self.manifest, sort_keys=True).encode(), np.uint8)
        data = io.BytesIO()
        np.savez_compressed(data, **arrays)
        raw = _zero_zip_times(data.getvalue())
        path.write_bytes(raw)
        return len(raw)


def read_arrays(source: Any, what: str = "weights") -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and the manifest in ``source`` (path, bytes or file object)."""
    if isinstance(source, (bytes, bytearray)):
        source = io.BytesIO(source)
    with np.load(source, allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    if "manifest" not in arrays:
        raise WeightsMismatch(f"{what} file has no manifest")
    return arrays, json.loads(bytes(arrays.pop("manifest")).decode())


class ValueModel(WeightsFile):
    """The evaluator for one game: weights, manifest and NumPy inference."""

    NAMES = WEIGHT_NAMES

    def __init__(self, game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
        check_shapes(game, weights, manifest)
        self._keep(game, weights, manifest)
        w = self.weights
        self._start = input_size(game) - int(w["w1"].shape[0])  # the network reads x[:, start:]
        self.reads_observation = self._start < int(game.observation_layout.size)
        self._buf: dict[int, np.ndarray] = {}
        self._lin = -linear_size(game)

    # -- inference ---------------------------------------------------------------
    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(win logits, margin predictions / margin_scale) for a batch of inputs.

        Rows go through in blocks of ``CHUNK``: small products stay on one thread in
        OpenBLAS, which on a busy machine is many times faster than its threaded path.
        """
        w = self.weights
        if len(x) > CHUNK:
            parts = [self.forward(x[i:i + CHUNK]) for i in range(0, len(x), CHUNK)]
            return np.concatenate([a for a, _ in parts]), np.concatenate([b for _, b in parts])
        h = np.maximum(x[:, self._start:] @ self._w1 + self._b1, 0.0)
        h = np.maximum(h @ w["w2"] + w["b2"], 0.0)
        out = h @ w["w3"] + w["b3"] + x[:, self._lin:] @ w["lin"]
        return out[:, 0], out[:, 1]

    def win_probabilities(self, x: np.ndarray) -> np.ndarray:
        logits, _ = self.forward(x)
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))

    def values(self, state: State, ctx: tuple[list[float], list[list[float]] | None] | None = None) -> list[float]:
        """Each seat's expected share of the win, in [0, 1], summing to 1.

        Each seat's observation is its own view; the heuristic context is computed on
        ``state`` itself, so pass a determinization (as the search does), not a real
        state whose secrets the caller may not read.  The per-seat estimates are
        normalised so they form one consistent outcome.  ``ctx``: the state's
        :func:`context` when the caller has it already.
        """
        n = state.num_players
        buf = self._buf.get(n)
        if buf is None:
            buf = self._buf[n] = np.zeros((n, input_size(self.game)), np.float32)
        p = self.win_probabilities(encode_seats(state, buf, self.reads_observation, ctx))
        return normalise(p)

    def value(self, state: State, player: int) -> float:
        """``player``'s own estimate of its share of the win (from its view alone)."""
        x = encode(state, player)[None, :]
        return float(self.win_probabilities(x)[0])


def normalise(p: np.ndarray) -> list[float]:
    n = len(p)
    if n == 2:  # both seats' estimates of the same outcome, averaged
        a = 0.5 * (float(p[0]) + 1.0 - float(p[1]))
        return [a, 1.0 - a]
    total = float(p.sum())
    if total <= 0:
        return [1.0 / n] * n
    return [float(v) / total for v in p]


def _zero_zip_times(raw: bytes) -> bytes:
    """Make the zip container byte-identical across runs (numpy stamps the current time)."""
    import zipfile

    src = zipfile.ZipFile(io.BytesIO(raw))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = info.external_attr
            dst.writestr(fixed, src.read(info.filename))
    return out.getvalue()


def check_shapes(game: Game, weights: dict[str, np.ndarray], manifest: dict[str, Any]) -> None:
    """Refuse weights made for another game, layout or shape, with a sentence saying why."""
    if manifest.get("format") != FORMAT:
        raise WeightsMismatch(f"weights format {manifest.get('format')!r} is not {FORMAT}")
    if manifest.get("game") != game.id:
        raise WeightsMismatch(f"weights were trained for {manifest.get('game')!r}, not {game.id!r}")
    sig = layout_signature(game)
    if manifest.get("layout_signature") != sig:
        raise WeightsMismatch(
            f"weights were trained on another observation layout of {game.id} "
            f"(signature {manifest.get('layout_signature')!r}, the game's is {sig!r}); retrain them")
    d = mlp_inputs(game, manifest.get("inputs", "all"))
    h1, h2 = manifest.get("hidden", (None, None))
    expected = {"mean": (d,), "std": (d,), "w1": (d, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,),
                "w3": (h2, 2), "b3": (2,), "lin": (linear_size(game), 2)}
    for name, shape in expected.items():
        if name not in weights:
            raise WeightsMismatch(f"weights file has no array {name!r}")
        got = tuple(np.shape(weights[name]))
        if got != shape:
            raise WeightsMismatch(f"weights array {name!r} has shape {got}, expected {shape} "
                                  f"for {game.id} (input size {d}, hidden {h1}×{h2})")
    for name in WEIGHT_NAMES:
        if not np.all(np.isfinite(weights[name])):
            raise WeightsMismatch(f"weights array {name!r} holds non-finite numbers")
    if np.any(np.asarray(weights["std"]) <= 0):
        raise WeightsMismatch("weights array 'std' must be positive")


def read(game: Game, source: Any) -> tuple[ValueModel, dict[str, np.ndarray]]:
    """The model in ``source`` (path, bytes or file object) and any extra arrays it holds."""
    arrays, manifest = read_arrays(source)
    model = ValueModel(game, arrays, manifest)
    extra = {k: v for k, v in arrays.items() if k not in WEIGHT_NAMES}
    return model, extra


def load(game: Game, path: str | Path) -> ValueModel:
    return read(game, Path(path))[0]


def package_of(game: Game) -> str:
    """The Python package of a game (its weights live there)."""
    return game.state_class.__module__.rsplit(".", 1)[0]


_SHIPPED: dict[tuple[str, int | None], ValueModel | None] = {}


def shipped_name(num_players: int | None = None) -> str:
    """The file name of a game's shipped model: ``value.npz``, or ``value-<n>p.npz`` for
    the model of ``n``-player tables only."""
    return SHIPPED_NAME if num_players is None else f"value-{int(num_players)}p.npz"


def shipped_path(game: Game, num_players: int | None = None) -> Any:
    return resources.files(package_of(game)).joinpath(shipped_name(num_players))


def shipped(game: Game, num_players: int | None = None) -> ValueModel | None:
    """The weights shipped inside the game's package, or None if it ships none.

    With ``num_players``, the game's model for that table size (``value-<n>p.npz``) when it
    ships one, else its ``value.npz``.  A shipped file that no longer fits the game (its
    observation layout changed) is logged and ignored, so play falls back to ``value.npz``
    or to ``mcts``; the test suite loads every shipped file strictly and fails until the
    weights are retrained.
    """
    key = (game.id, num_players)
    if key not in _SHIPPED:
        model = None
        if game.observation_layout is not None:
            ref = shipped_path(game, num_players)
            if ref.is_file():
                try:
                    model = read(game, ref.read_bytes())[0]
                except WeightsMismatch as exc:  # stale after a layout change: play without it
                    log.warning("%s: shipped %s not used: %s", game.id, shipped_name(num_players), exc)
            if model is None and num_players is not None:
                model = shipped(game)
        _SHIPPED[key] = model
    return _SHIPPED[key]


def shipped_table_sizes(game: Game) -> list[int]:
    """The table sizes the game ships a model of its own for (``value-<n>p.npz``)."""
    return [n for n in game.player_counts if shipped_path(game, n).is_file()]



# -- training data and training (NumPy, Adam) --------------------------------------------------
def play_game(game: Game, num_players: int, seed: int, specs: list[str],
              offset: int = 0) -> tuple[list[tuple[int, int]], State]:
    """One game between bots: the (seat, action id) of every decision and the final state.

    Seat ``s`` plays ``specs[(offset + s) % len(specs)]``.
    """
    from .base import make_bot

    state = game.new(num_players, seed)
    bots = [make_bot(specs[(offset + s) % len(specs)], seed=seed * 7919 + s, game=game) for s in range(num_players)]
    moves: list[tuple[int, int]] = []
    limit = int(game.extra.get("max_steps", 20_000))
    while not state.is_over() and len(moves) < limit:
        p = state.to_move()[0]
        action = bots[p].choose(state, p)
        state.step(p, action)
        moves.append((p, action.id))
    return moves, state


def search_values(bot: Any, state: State) -> list[float | None]:
    """What a search thinks of a real position: ``bot`` (an ``mcts``-family bot) decides for the
    seat to move, from that seat's view only, and its root statistics give the mover's expected
    reward (visits-weighted).  Per seat: the mover's value; at two seats the other's is its
    complement (the rewards are shares of the win); None where the search says nothing (other
    seats at larger tables, a decision with one legal action, a bot without a tree)."""
    n = state.num_players
    out: list[float | None] = [None] * n
    from .mcts import _N, _W

    p = state.to_move()[0]
    bot.last_root = None
    bot.choose(state, p)
    root = bot.last_root  # (left None by a bot without a tree)
    if root is None or not bot.last_iterations:
        return out
    visits = total = 0.0
    for (seat, _), st in root.stats.items():
        if seat == p:
            visits += st[_N]
            total += st[_W]
    if visits <= 0:
        return out
    v = min(1.0, max(0.0, total / visits))
    out[p] = v
    if n == 2:
        out[1 - p] = 1.0 - v
    return out


def rows_of_game(game: Game, num_players: int, seed: int, moves: list[tuple[int, int]],
                 final: State, positions: int = 0, label: tuple[str, float] | None = None,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training rows of a played game: (inputs, win targets, margin targets).

    The game is replayed from its seed; every kept decision gives one row per seat,
    that seat's own view of the position before the decision
    (:func:`encode_training_rows`), labelled with the seat's final share of the win and
    its final score margin over the best other seat.  ``positions`` > 0 keeps that many
    decisions (drawn with the game's seed): few positions from many games are far less
    alike than every position of few games.

    ``label = (spec, result_weight)``: in two-seat games a search by the bot ``spec`` at every
    kept decision (:func:`search_values`) also judges the position, and each seat's win target
    becomes ``result_weight * result + (1 - result_weight) * search value`` — a target far
    less noisy than one game's result (the search's verdict is what a leaf evaluator should
    foresee).  Games of more seats keep their results: there the search speaks for the mover
    only, and labelling the mover's rows alone made the model judge three-seat positions worse
    (src/gemtable/bots/README.md, "Search labels").
    """
    d = input_size(game)
    total = len(moves)
    if total == 0:
        return np.zeros((0, d), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32)
    if 0 < positions < total:
        keep = set(int(i) for i in np.random.default_rng(seed).choice(total, positions, replace=False))
    else:
        keep = set(range(total))
    rng = Rng(seed ^ 0x5EED)
    state = game.new(num_players, seed)
    rows: list[np.ndarray] = []
    judged: list[list[float | None]] = []
    labeller = None
    if label is not None and num_players == 2:  # (why two seats only: the docstring)
        from .base import make_bot

        labeller = make_bot(label[0], seed=seed ^ 0x1ABE1, game=game)
    for i, (p, aid) in enumerate(moves):
        if i in keep:
            rows.append(encode_training_rows(state, rng))
            if labeller is not None:
                judged.append(search_values(labeller, state))
        state.step(p, game.actions[aid])
    n = num_players
    if final.is_over():
        returns = [float(v) for v in final.returns()]
    else:  # cut off: nobody won
        returns = [1.0 / n] * n
    scores = [float(v) for v in final.scores()]
    margins = [scores[p] - max((scores[q] for q in range(n) if q != p), default=0.0) for p in range(n)]
    idx = np.asarray(list(range(n)) * len(rows))
    x = np.concatenate(rows)
    wins = np.asarray(returns, np.float32)[idx]
    if label is not None:
        weight = float(label[1])
        for r, values in enumerate(judged):
            for q, v in enumerate(values):
                if v is not None:
                    wins[r * n + q] = weight * returns[q] + (1.0 - weight) * v
    return x, wins, np.asarray(margins, np.float32)[idx]


def play_positions(game: Game, num_players: int, seed: int, specs: list[str],
                   offset: int = 0, positions: int = 0,
                   label: tuple[str, float] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game between bots turned into training rows (:func:`play_game`, :func:`rows_of_game`)."""
    moves, final = play_game(game, num_players, seed, specs, offset)
    return rows_of_game(game, num_players, seed, moves, final, positions, label)


class Adam:
    """Adam over the arrays named ``TRAINABLE`` of ``self.w`` (weight decay ``l2`` on the
    matrices, whose names start with ``w``); ``state()``/``restore()`` carry the optimiser
    across runs."""

    TRAINABLE: tuple[str, ...] = ()
    w: dict[str, np.ndarray]
    lr: float
    l2: float

    def _start_adam(self) -> None:
        self.m = {k: np.zeros_like(self.w[k]) for k in self.TRAINABLE}
        self.v = {k: np.zeros_like(self.w[k]) for k in self.TRAINABLE}
        self.t = 0

    def state(self) -> dict[str, np.ndarray]:
        out = {f"adam_m_{k}": self.m[k] for k in self.TRAINABLE}
        out.update({f"adam_v_{k}": self.v[k] for k in self.TRAINABLE})
        out["adam_t"] = np.asarray([self.t], np.int64)
        return out

    def restore(self, extra: dict[str, np.ndarray]) -> None:
        if "adam_t" not in extra:
            return
        for k in self.TRAINABLE:
            self.m[k] = np.array(extra[f"adam_m_{k}"], np.float32)
            self.v[k] = np.array(extra[f"adam_v_{k}"], np.float32)
        self.t = int(extra["adam_t"][0])

    def _apply(self, grads: dict[str, np.ndarray]) -> None:
        w = self.w
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        lr = self.lr * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for k in self.TRAINABLE:
            g = grads[k].astype(np.float32)
            if k.startswith("w"):
                g = g + self.l2 * w[k]
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            w[k] = (w[k] - lr * self.m[k] / (np.sqrt(self.v[k]) + eps)).astype(np.float32)

    def step(self, x: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
        """One update on a minibatch: inputs ``x`` and the two target arrays of ``gradients``."""
        self._apply(self.gradients(x, a, b))

    def epoch(self, x: np.ndarray, a: np.ndarray, b: np.ndarray, rng: np.random.Generator,
              batch: int = 256) -> None:
        order = rng.permutation(len(x))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            self.step(x[idx], a[idx], b[idx])


class Trainer(Adam):
    """Adam on the two-head MLP; ``state()``/``restore()`` carry the optimiser across runs."""

    TRAINABLE = ("w1", "b1", "w2", "b2", "w3", "b3", "lin")

    def __init__(self, weights: dict[str, np.ndarray], lr: float = 1e-3, aux: float = 0.25,
                 l2: float = 1e-5) -> None:
        # float32 unless given float64 (the gradient test checks against finite differences)
        self.w = {k: np.array(v, np.result_type(v, np.float32)) for k, v in weights.items()}
        self.lr, self.aux, self.l2 = lr, aux, l2
        self._start = -int(np.shape(self.w["w1"])[0])  # the network reads x[:, start:]
        self._lin = -int(np.shape(self.w["lin"])[0])
        self._start_adam()

    def snapshot(self) -> tuple:
        """Weights and optimiser state, to go back to (early stopping)."""
        return ({k: v.copy() for k, v in self.w.items()}, self.state())

    def restore_snapshot(self, snap: tuple) -> None:
        self.w = {k: v.copy() for k, v in snap[0].items()}
        self.restore({k: v.copy() for k, v in snap[1].items()})

    def losses(self, x: np.ndarray, yw: np.ndarray, ym: np.ndarray) -> tuple[float, float, float]:
        """(win log-loss, margin squared error, share of seats whose win/loss side is right)."""
        w = self.w
        xn = (x[:, self._start:] - w["mean"]) / w["std"]
        h1 = np.maximum(xn @ w["w1"] + w["b1"], 0)
        h2 = np.maximum(h1 @ w["w2"] + w["b2"], 0)
        out = h2 @ w["w3"] + w["b3"] + x[:, self._lin:] @ w["lin"]
        p = 1 / (1 + np.exp(-np.clip(out[:, 0], -30, 30)))
        eps = 1e-7
        bce = float(-np.mean(yw * np.log(p + eps) + (1 - yw) * np.log(1 - p + eps)))
        mse = float(np.mean((out[:, 1] - ym) ** 2))
        decided = yw != 0.5
        acc = float(np.mean((p[decided] > 0.5) == (yw[decided] > 0.5))) if decided.any() else 0.0
        return bce, mse, acc

    def gradients(self, x: np.ndarray, yw: np.ndarray, ym: np.ndarray) -> dict[str, np.ndarray]:
        """Gradient of ``win log-loss + aux * margin squared error`` (batch means) per array."""
        w = self.w
        b = len(x)
        xn = (x[:, self._start:] - w["mean"]) / w["std"]
        z1 = xn @ w["w1"] + w["b1"]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w["w2"] + w["b2"]
        h2 = np.maximum(z2, 0)
        out = h2 @ w["w3"] + w["b3"] + x[:, self._lin:] @ w["lin"]
        p = 1 / (1 + np.exp(-np.clip(out[:, 0], -30, 30)))
        dout = np.empty_like(out)
        dout[:, 0] = (p - yw) / b
        dout[:, 1] = 2 * self.aux * (out[:, 1] - ym) / b
        grads = {"w3": h2.T @ dout, "b3": dout.sum(0), "lin": x[:, self._lin:].T @ dout}
        dz2 = (dout @ w["w3"].T) * (z2 > 0)
        grads["w2"], grads["b2"] = h1.T @ dz2, dz2.sum(0)
        dz1 = (dz2 @ w["w2"].T) * (z1 > 0)
        grads["w1"], grads["b1"] = xn.T @ dz1, dz1.sum(0)
        return grads


def limit_blas_threads(threads: int = 1) -> bool:
    """Best effort: run NumPy's bundled OpenBLAS on ``threads`` threads (training with ``--jobs``).

    Minibatch products are small; OpenBLAS's threaded path on a machine whose cores are
    busy is an order of magnitude slower than one thread.  Returns whether it was set.
    """
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted({line.split()[-1] for line in fh if "openblas" in line.lower() and "/" in line})
    except OSError:
        return False
    for path in paths:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn(int(threads))
                return True
    return False


def fit_normalisation(weights: dict[str, np.ndarray], x: np.ndarray) -> None:
    """Input mean and spread from the first batch of training data (kept when resuming)."""
    x = x[:, x.shape[1] - weights["w1"].shape[0]:]  # the entries the network reads
    weights["mean"] = x.mean(0).astype(np.float32)
    std = x.std(0)
    weights["std"] = np.where(std > 1e-3, std, 1.0).astype(np.float32)

__all__ = [
    "Adam",
    "Trainer",
    "ValueModel",
    "WeightsFile",
    "WeightsMismatch",
    "check_shapes",
    "encode",
    "encode_seats",
    "extra_size",
    "fit_normalisation",
    "init_weights",
    "input_size",
    "layout_signature",
    "limit_blas_threads",
    "load",
    "play_positions",
    "read",
    "read_arrays",
    "shipped",
    "shipped_path",
]
