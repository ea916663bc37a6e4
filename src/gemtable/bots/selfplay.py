"""Self-play policy iteration for the ``gumbel`` bot: batched self-play, a replay buffer,
training (NumPy; PyTorch where installed and asked for) and resumable checkpoints.

One *generation*: the current network plays ``games`` games against itself with
:func:`gemtable.bots.gumbel.search` (many games advanced together, their positions judged in
one batch per step); every decision with a choice gives one row — the mover's input, the
search's improved policy over the legal actions (the policy target) and, once the game is
over, every seat's share of the win from the mover's seat on (the value target; with
``value_mix`` above 0, blended with the search's own value of the position, see
:func:`self_play`).  The rows
join a replay buffer of the last ``buffer`` rows; the network is trained on it with Adam
(cross-entropy of the policy and of the value); then the new network plays the one before
and a baseline bot (``hard`` unless told otherwise), seats swapped, and the generation is
recorded in the manifest.

The checkpoint — network, optimiser state, replay buffer, generation counter and manifest
— is one ``.npz`` written after every generation to a temporary file and then renamed, so
an interrupted run leaves the last finished generation intact; running the same command
again (on any machine) continues from it.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import os
import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gemtable.core import Game, Rng, State
from gemtable.core.i18n import Message, msg, render
from gemtable.core.workers import follow_parent

from . import gumbel, learned
from .base import Bot, make_bot

Log = Callable[["Message | str"], None]
"""Where training reports each step: a message (:mod:`gemtable.core.i18n`) to show in the
reader's language, e.g. ``lambda m: print(render(m, "de"))``."""


def _print(message: "Message | str") -> None:
    print(render(message))


def _joined(parts: list[Message]) -> Message:
    """One line of parts separated by "; " (no words of its own to translate)."""
    return {"m": "; ".join(f"{{part{i}}}" for i in range(len(parts))),
            "p": {f"part{i}": part for i, part in enumerate(parts)}}


def cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


# -- the replay buffer ---------------------------------------------------------------------------
class Replay:
    """Training rows: inputs, value targets (seat shares from the mover on, zero past the
    table size) and sparse policy targets (legal action ids and their probabilities)."""

    def __init__(self, width: int, seats: int) -> None:
        self.x = np.zeros((0, width), np.float32)
        self.v = np.zeros((0, seats), np.float32)
        self.off = np.zeros(1, np.int64)
        self.ids = np.zeros(0, np.int32)
        self.p = np.zeros(0, np.float32)

    def __len__(self) -> int:
        return len(self.x)

    def add(self, x: np.ndarray, v: np.ndarray, ids: list[np.ndarray], probs: list[np.ndarray]) -> None:
        if not len(x):
            return
        lengths = np.array([len(i) for i in ids], np.int64)
        self.x = np.concatenate([self.x, x.astype(np.float32)])
        self.v = np.concatenate([self.v, v.astype(np.float32)])
        self.off = np.concatenate([self.off, self.off[-1] + np.cumsum(lengths)])
        self.ids = np.concatenate([self.ids, *[np.asarray(i, np.int32) for i in ids]])
        self.p = np.concatenate([self.p, *[np.asarray(p, np.float32) for p in probs]])

    def keep_last(self, capacity: int) -> None:
        drop = len(self) - capacity
        if drop <= 0:
            return
        cut = int(self.off[drop])
        self.x, self.v = self.x[drop:], self.v[drop:]
        self.ids, self.p = self.ids[cut:], self.p[cut:]
        self.off = self.off[drop:] - cut

    def policy(self, idx: np.ndarray, actions: int) -> tuple[np.ndarray, np.ndarray]:
        """Dense (target, legal mask) ``(len(idx), actions)`` of rows ``idx``."""
        target = np.zeros((len(idx), actions), np.float32)
        mask = np.zeros((len(idx), actions), bool)
        for r, i in enumerate(idx):
            a, b = self.off[i], self.off[i + 1]
            target[r, self.ids[a:b]] = self.p[a:b]
            mask[r, self.ids[a:b]] = True
        return target, mask

    def arrays(self) -> dict[str, np.ndarray]:
        return {"replay_x": self.x.astype(np.float16), "replay_v": self.v, "replay_off": self.off,
                "replay_ids": self.ids, "replay_p": self.p}

    @classmethod
    def from_arrays(cls, width: int, seats: int, arrays: dict[str, np.ndarray]) -> Replay:
        buf = cls(width, seats)
        if "replay_x" in arrays:
            buf.x = arrays["replay_x"].astype(np.float32)
            buf.v = arrays["replay_v"].astype(np.float32)
            buf.off = arrays["replay_off"].astype(np.int64)
            buf.ids = arrays["replay_ids"].astype(np.int32)
            buf.p = arrays["replay_p"].astype(np.float32)
        return buf


# -- batched self-play ------------------------------------------------------------------------------
@dataclass
class _Game:
    state: State
    rng: Rng
    gumbel: np.random.Generator
    rows: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, list[float]]] = field(default_factory=list)
    search: Any = None
    request: Any = None
    root: bool = False
    seat: int = 0
    steps: int = 0
    index: int = 0


@dataclass
class Played:
    """What a self-play batch gave: the rows' arrays, games and searched decisions."""

    x: np.ndarray
    v: np.ndarray
    ids: list[np.ndarray]
    probs: list[np.ndarray]
    games: int
    decisions: int
    simulations: int
    game_of: np.ndarray  # each row's game, an index into the deals
    worker_cpu: float = 0.0  # CPU seconds spent in worker processes (not this one's)

    def rows(self, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[np.ndarray]]:
        """The arrays of the rows where ``keep`` is true, in :meth:`Replay.add`'s order."""
        where = np.flatnonzero(keep)
        return self.x[where], self.v[where], [self.ids[i] for i in where], [self.probs[i] for i in where]


def self_play(game: Game, net: gumbel.PolicyValueNet, deals: list[tuple[int, int]], simulations: int,
              k: int = 16, batch: int = 64, value_mix: float = 0.0, value: str = "network") -> Played:
    """Play the games ``deals`` (table size, seed) with the network's search for every seat,
    ``batch`` games at a time, advancing them together and judging their positions in
    one batch per step.

    A row's value target is the game's result (every seat's share of the win), or with
    ``value_mix`` = m above 0, ``(1 - m) * result + m * searched``, where ``searched`` is the
    search's value of the position (the network's value averaged with every simulation's).
    A game gives one result for all its positions, a noisy target for the early ones; the
    search's value is a denser, less noisy one (a bootstrap from the network itself).
    With ``value="learned"`` the search judges positions with the learned evaluator the game
    ships for the table size (the ``gumbel`` bot's ``value=learned``), the network with its
    policy only."""
    seats = max(game.player_counts)
    models = {n: learned.shipped(game, n) for n, _ in deals} if value == "learned" else {}
    encoder = gumbel.Encoder(game, batch)
    limit = int(game.extra.get("max_steps", 20_000))
    xs, vs, ids_all, probs_all, game_of = [], [], [], [], []
    decisions = sims = 0
    pending = list(enumerate(deals))
    active: list[_Game] = []

    def start(g: _Game) -> bool:
        """Start the next search of ``g`` (forced moves are played at once); False when over."""
        while not g.state.is_over() and g.steps < limit:
            seat = g.state.to_move()[0]
            legal = g.state.legal_actions(seat)
            if len(legal) == 1:
                g.state.step(seat, legal[0])
                g.steps += 1
                continue
            g.seat = seat
            g.search = gumbel.search(g.state, seat, g.rng, g.gumbel, simulations, k)
            g.request = next(g.search)
            g.root = True
            return True
        return False

    def finish(g: _Game) -> None:
        n = g.state.num_players
        shares = g.state.returns() if g.state.is_over() else [1.0 / n] * n
        for seat, row, ids, probs, searched in g.rows:
            target = np.zeros(seats, np.float32)
            if value_mix:
                mixed = [(1.0 - value_mix) * z + value_mix * q for z, q in zip(shares, searched)]
                target[:n] = np.roll(mixed, -seat)
            else:
                target[:n] = np.roll(shares, -seat)
            xs.append(row)
            game_of.append(g.index)
            vs.append(target)
            ids_all.append(ids)
            probs_all.append(probs)

    while pending or active:
        while pending and len(active) < batch:
            index, (n, seed) = pending.pop(0)
            g = _Game(game.new(n, seed), Rng(seed * 31 + 7), np.random.default_rng([seed, 1]), index=index)
            if start(g):
                active.append(g)
            else:
                finish(g)
        requests = [g.request for g in active]
        policy, values, x = gumbel.judge(net, encoder, requests)
        if models:  # the evaluator's values, on the contexts the encoder computed
            values = [v if models[s.num_players] is None else models[s.num_players].values(s, ctx)
                      for (s, _), ctx, v in zip(requests, encoder.contexts, values)]
        still = []
        for i, g in enumerate(active):
            if g.root:
                root_row = x[i].copy()
                g.root = False
                g.rows.append((g.seat, root_row, np.zeros(0, np.int32), np.zeros(0, np.float32), []))
            try:
                g.request = g.search.send((policy[i], values[i]))
                still.append(g)
            except StopIteration as stop:
                result: gumbel.SearchResult = stop.value
                seat, row = g.rows[-1][:2]
                g.rows[-1] = (seat, row, np.asarray(result.ids, np.int32), np.asarray(result.policy, np.float32),
                              result.searched)
                decisions += 1
                sims += result.simulations
                g.state.step(g.seat, result.action)
                g.steps += 1
                if start(g):
                    still.append(g)
                else:
                    finish(g)
        active = still
    width = learned.input_size(game)
    return Played(np.array(xs, np.float32).reshape(-1, width), np.array(vs, np.float32).reshape(-1, seats),
                  ids_all, probs_all, len(deals), decisions, sims, np.array(game_of, np.int64))


def _play_chunk(task: tuple) -> Played:
    """A worker process's share of :func:`play_generation`: one chunk of deals."""
    weights, manifest, deals, simulations, k, batch, value_mix, value = task
    cpu0 = cpu_seconds()
    learned.limit_blas_threads(1)  # one process per core: no BLAS threads besides it
    game = _game_of(manifest)
    net = gumbel.PolicyValueNet(game, weights, manifest)
    played = self_play(game, net, deals, simulations, k, batch, value_mix, value)
    played.worker_cpu = cpu_seconds() - cpu0  # a live worker's time is not in the parent's rusage
    return played


def join(parts: list[Played]) -> Played:
    """The chunks' rows one after the other, their games renumbered in that order."""
    first = 0
    game_of = []
    for part in parts:
        game_of.append(part.game_of + first)
        first += part.games
    return Played(np.concatenate([p.x for p in parts]), np.concatenate([p.v for p in parts]),
                  [i for p in parts for i in p.ids], [q for p in parts for q in p.probs], first,
                  sum(p.decisions for p in parts), sum(p.simulations for p in parts),
                  np.concatenate(game_of), sum(p.worker_cpu for p in parts))


def play_generation(game: Game, net: gumbel.PolicyValueNet, deals: list[tuple[int, int]], simulations: int,
                    k: int = 16, batch: int = 64, value_mix: float = 0.0, pool: Any = None,
                    value: str = "network") -> Played:
    """:func:`self_play` of ``deals`` in chunks of ``batch`` games, each chunk played alone
    (in ``pool``'s worker processes when given, else here) and the chunks' rows joined in
    deal order.  A chunk's games do not depend on where it was played, so the generation's
    rows are the same with any number of workers."""
    chunks = [deals[i:i + batch] for i in range(0, len(deals), batch)] or [[]]
    if pool is None or len(chunks) < 2:
        parts = [self_play(game, net, chunk, simulations, k, batch, value_mix, value) for chunk in chunks]
    else:
        tasks = [(net.weights, net.manifest, chunk, simulations, k, batch, value_mix, value) for chunk in chunks]
        parts = list(pool.map(_play_chunk, tasks))
    return join(parts)


# -- training -------------------------------------------------------------------------------------
class Trainer(learned.Adam):
    """Adam on the policy-value network: policy cross-entropy over the legal actions plus
    the value's cross-entropy over the seats (``value_weight`` times)."""

    TRAINABLE = gumbel.TRAINABLE

    def __init__(self, weights: dict[str, np.ndarray], lr: float = 1e-3, l2: float = 1e-4,
                 value_weight: float = 1.0) -> None:
        self.w = {k: np.array(v, np.result_type(v, np.float32)) for k, v in weights.items()}
        self.lr, self.l2, self.value_weight = lr, l2, value_weight
        self._start_adam()

    def _forward(self, x: np.ndarray, game: Game, mask: np.ndarray):
        w = self.w
        xn = (x - w["mean"]) / w["std"]
        z1 = xn @ w["w1"] + w["b1"]
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w["w2"] + w["b2"]
        h2 = np.maximum(z2, 0)
        pl = np.where(mask, h2 @ w["wp"] + w["bp"], -np.inf)
        xh = x[:, gumbel.heuristic_slice(game)]
        seat_ok = np.arange(w["bv"].shape[0])[None, :] < gumbel.table_sizes(game, x)[:, None]
        vl = np.where(seat_ok, h2 @ w["wv"] + w["bv"] + xh * w["lin"], -np.inf)
        return xn, z1, h1, z2, h2, pl, vl, xh

    def losses(self, game: Game, x, target, mask, v) -> tuple[float, float]:
        """(policy cross-entropy, value cross-entropy), batch means."""
        *_, pl, vl, _ = self._forward(x, game, mask)
        return _xent(pl, target), _xent(vl, v)

    def gradients(self, game: Game, x, target, mask, v) -> dict[str, np.ndarray]:
        w = self.w
        b = len(x)
        xn, z1, h1, z2, h2, pl, vl, xh = self._forward(x, game, mask)
        dp = (gumbel.softmax(pl) - target) / b
        dv = self.value_weight * (gumbel.softmax(vl) - v) / b
        grads = {"wp": h2.T @ dp, "bp": dp.sum(0), "wv": h2.T @ dv, "bv": dv.sum(0), "lin": (dv * xh).sum(0)}
        dz2 = (dp @ w["wp"].T + dv @ w["wv"].T) * (z2 > 0)
        grads["w2"], grads["b2"] = h1.T @ dz2, dz2.sum(0)
        dz1 = (dz2 @ w["w2"].T) * (z1 > 0)
        grads["w1"], grads["b1"] = xn.T @ dz1, dz1.sum(0)
        return grads

    def fit(self, game: Game, buf: Replay, steps: int, batch: int, rng: np.random.Generator) -> None:
        actions = len(game.actions)
        for _ in range(steps):
            idx = rng.integers(0, len(buf), size=min(batch, len(buf)))
            target, mask = buf.policy(idx, actions)
            self._apply(self.gradients(game, buf.x[idx], target, mask, buf.v[idx]))

    def evaluate(self, game: Game, buf: Replay, rows: int = 4096) -> tuple[float, float]:
        idx = np.arange(max(0, len(buf) - rows), len(buf))
        target, mask = buf.policy(idx, len(game.actions))
        return self.losses(game, buf.x[idx], target, mask, buf.v[idx])


def sum_loss(losses: tuple[float, float] | None, value_weight: float) -> float:
    return float("inf") if losses is None else losses[0] + value_weight * losses[1]


def _xent(logits: np.ndarray, target: np.ndarray) -> float:
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    with np.errstate(invalid="ignore"):  # 0 * -inf where an action or seat is masked
        return float(-np.mean(np.sum(np.where(target > 0, target * logp, 0.0), axis=1)))


def fit_torch(game: Game, weights: dict[str, np.ndarray], adam: dict[str, np.ndarray], buf: Replay,
              steps: int, batch: int, lr: float, l2: float, value_weight: float, seed: int,
              device: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The same training as :meth:`Trainer.fit` with PyTorch (on ``device``: a GPU where
    there is one); weights and optimiser state come back as NumPy arrays in the
    :class:`Trainer`'s format, so a run may switch between the two."""
    import torch

    torch.manual_seed(seed)
    dev = torch.device(device)
    params = {k: torch.tensor(weights[k], device=dev, requires_grad=True) for k in gumbel.TRAINABLE}
    mean = torch.tensor(weights["mean"], device=dev)
    std = torch.tensor(weights["std"], device=dev)
    decay = [p for k, p in params.items() if k.startswith("w")]
    rest = [p for k, p in params.items() if not k.startswith("w")]
    # Adam with the penalty added to the gradient (not AdamW): as learned.Adam does
    opt = torch.optim.Adam([{"params": decay, "weight_decay": l2}, {"params": rest, "weight_decay": 0.0}], lr=lr)
    if "adam_t" in adam:
        t = int(adam["adam_t"][0])
        for group in opt.param_groups:
            for p in group["params"]:
                name = next(k for k, q in params.items() if q is p)
                opt.state[p] = {"step": torch.tensor(float(t)),
                                "exp_avg": torch.tensor(adam[f"adam_m_{name}"], device=dev),
                                "exp_avg_sq": torch.tensor(adam[f"adam_v_{name}"], device=dev)}
    hs = gumbel.heuristic_slice(game)
    rng = np.random.default_rng(seed)
    actions = len(game.actions)
    for _ in range(steps):
        idx = rng.integers(0, len(buf), size=min(batch, len(buf)))
        target, mask = buf.policy(idx, actions)
        x = torch.tensor(buf.x[idx], device=dev)
        sizes = torch.tensor(gumbel.table_sizes(game, buf.x[idx]), device=dev)
        h1 = torch.relu(((x - mean) / std) @ params["w1"] + params["b1"])
        h2 = torch.relu(h1 @ params["w2"] + params["b2"])
        pl = (h2 @ params["wp"] + params["bp"]).masked_fill(~torch.tensor(mask, device=dev), -1e9)
        seats = torch.arange(params["bv"].shape[0], device=dev)[None, :] < sizes[:, None]
        vl = (h2 @ params["wv"] + params["bv"] + x[:, hs] * params["lin"]).masked_fill(~seats, -1e9)
        loss = (-(torch.tensor(target, device=dev) * torch.log_softmax(pl, 1)).sum(1).mean()
                - value_weight * (torch.tensor(buf.v[idx], device=dev) * torch.log_softmax(vl, 1)).sum(1).mean())
        opt.zero_grad()
        loss.backward()
        opt.step()
    out = dict(weights)
    out.update({k: p.detach().cpu().numpy().astype(np.float32) for k, p in params.items()})
    state: dict[str, np.ndarray] = {}
    step = 0
    for k, p in params.items():
        s = opt.state.get(p, {})
        state[f"adam_m_{k}"] = s["exp_avg"].cpu().numpy() if s else np.zeros_like(out[k])
        state[f"adam_v_{k}"] = s["exp_avg_sq"].cpu().numpy() if s else np.zeros_like(out[k])
        step = int(s["step"]) if s else step
    state["adam_t"] = np.asarray([step], np.int64)
    return out, state


def torch_device(choice: str) -> str | None:
    """The PyTorch device to train on: None for NumPy (``numpy``, or ``auto`` without PyTorch);
    ``auto`` takes a GPU where there is one, else the CPU."""
    if choice == "numpy":
        return None
    try:
        import torch
    except ImportError:
        if choice == "auto":
            return None
        raise ValueError("--trainer torch needs PyTorch (pip install torch)") from None
    if choice in ("auto", "torch"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    raise ValueError(f"--trainer must be numpy, torch or auto, not {choice!r}")


# -- matches between generations --------------------------------------------------------------------
def match(game: Game, num_players: int, new: Bot, other: Bot, games: int, seed: int) -> float:
    """``new``'s mean share of the win over ``games`` games against ``other``, seats alternating
    (``new`` plays one seat, ``other`` the rest)."""
    total = 0.0
    limit = int(game.extra.get("max_steps", 20_000))
    for i in range(games):
        state = game.new(num_players, seed + i)
        mine = i % num_players
        steps = 0
        while not state.is_over() and steps < limit:
            p = state.to_move()[0]
            bot = new if p == mine else other
            state.step(p, bot.choose(state, p))
            steps += 1
        total += state.returns()[mine] if state.is_over() else 1.0 / num_players
    return total / max(1, games)


def _bot_with(net: gumbel.PolicyValueNet, simulations: int, seed: int, value: str = "network") -> gumbel.GumbelBot:
    bot = gumbel.GumbelBot(seed=seed, simulations=simulations, value=value)
    for n in net.game.player_counts:
        bot._nets[(net.game.id, n)] = net
    return bot


# -- the generation loop ----------------------------------------------------------------------------
@dataclass
class Settings:
    games: int = 64  # self-play games per generation
    simulations: int = 32
    k: int = 16
    players: tuple[int, ...] = (2,)
    hidden: tuple[int, int] = (128, 128)
    lr: float = 1e-3
    l2: float = 1e-4
    batch: int = 256
    steps: int = 0  # training steps per generation (0: two passes over the new rows)
    buffer: int = 50_000
    value_weight: float = 1.0
    eval_games: int = 4
    eval_bot: str = "hard"
    eval_simulations: int = 0  # the matches' simulations per move (0: as in self-play)
    seed: int = 0
    trainer: str = "auto"
    play_batch: int = 64  # games advanced together, and the games of one worker's chunk
    value_mix: float = 0.0  # the search's value's share in the value targets (see self_play)
    jobs: int = 1  # worker processes playing the self-play chunks
    value: str = "network"  # what judges the search's positions: the network or the learned evaluator


def save(path: Path, net_weights: dict[str, np.ndarray], manifest: dict[str, Any],
         extra: dict[str, np.ndarray]) -> int:
    """Write the checkpoint atomically (a temporary file, then a rename)."""
    net = gumbel.PolicyValueNet(_game_of(manifest), net_weights, manifest)
    tmp = path.with_name(path.name + ".tmp")
    size = net.save(tmp, extra)
    os.replace(tmp, path)
    return size


def _game_of(manifest: dict[str, Any]) -> Game:
    from gemtable.core.registry import get_game

    return get_game(manifest["game"])


def train(game: Game, path: Path, settings: Settings, generations: int | None = None,
          minutes: float | None = None, fresh: bool = False, command: str = "",
          log: Log = _print) -> dict[str, Any]:
    """Run generations of self-play and training on the checkpoint ``path`` (continued if it
    exists, unless ``fresh``) until ``generations`` more are done or, with ``minutes``, until
    no new generation may start; returns the final manifest."""
    s = settings
    t0 = time.perf_counter()
    width, seats, _actions = gumbel.sizes(game)
    if path.exists() and not fresh:
        net, extra = gumbel.read(game, path)
        weights, manifest = dict(net.weights), dict(net.manifest)
        log(msg("continuing {path}: generation {generation}, {games} games so far", path=str(path),
                generation=manifest.get("generation", 0), games=manifest.get("games", 0)))
    else:
        weights = gumbel.init_weights(game, s.hidden, np.random.default_rng(s.seed))
        manifest = {**gumbel.new_manifest(game, s.hidden), "generation": 0, "games": 0, "cpu_minutes": 0.0,
                    "seed": s.seed, "generations": []}
        extra = {}
    buf = Replay.from_arrays(width, seats, extra)
    adam = {k: v for k, v in extra.items() if k.startswith("adam_")}
    device = torch_device(s.trainer)
    done = 0
    pool = None  # the self-play workers, started with the first generation that uses them
    with ExitStack() as stack:
        while True:
            if generations is not None and done >= generations:
                break
            if minutes is not None and done and time.perf_counter() - t0 >= 60 * minutes:
                break
            cpu0 = cpu_seconds()
            gen = int(manifest["generation"]) + 1
            previous = gumbel.PolicyValueNet(game, weights, manifest)
            first = int(manifest["games"])
            deals = [(s.players[(first + i) % len(s.players)], _deal_seed(manifest["seed"], first + i))
                     for i in range(s.games)]
            if pool is None and s.jobs > 1 and len(deals) > s.play_batch:
                pool = stack.enter_context(ProcessPoolExecutor(s.jobs, mp_context=mp.get_context("spawn"),
                                                               initializer=follow_parent))
            played = play_generation(game, previous, deals, s.simulations, s.k, s.play_batch, s.value_mix, pool,
                                     s.value)
            if not manifest["generations"] and not buf:
                learned.fit_normalisation(weights, played.x)  # from the first data, kept afterwards
            # the generation's last tenth of games is held out: early stopping keeps the weights
            # that predict them best (the untrained start included), then they join the buffer
            hold = max(1, played.games // 10) if played.games >= 2 else 0
            held = played.game_of >= played.games - hold
            buf.add(*played.rows(~held))
            buf.keep_last(s.buffer)
            val = Replay(width, seats)
            val.add(*played.rows(held))
            steps = s.steps or max(1, math.ceil(2 * len(played.x) / s.batch))
            chunks = min(steps, 8) if len(val) else 1
            base_seed = int(manifest["seed"]) * 100_003 + gen

            def held_out(w: dict[str, np.ndarray], val: Replay = val) -> tuple[float, float]:
                return Trainer(w, value_weight=s.value_weight).evaluate(game, val, rows=len(val))

            def fit(w, a, n, part, base_seed=base_seed):
                if device is not None:
                    return fit_torch(game, w, a, buf, n, s.batch, s.lr, s.l2, s.value_weight, base_seed * 16 + part,
                                     device)
                trainer = Trainer(w, s.lr, s.l2, s.value_weight)
                trainer.restore(a)
                trainer.fit(game, buf, n, s.batch, np.random.default_rng([base_seed, part]))
                return dict(trainer.w), trainer.state()

            before = Trainer(weights, value_weight=s.value_weight).evaluate(game, buf)
            held_before = held_out(weights) if len(val) else None
            best = (sum_loss(held_before, s.value_weight), 0, weights, adam) if len(val) else None
            done_steps = 0
            for part in range(chunks):
                n = steps * (part + 1) // chunks - steps * part // chunks
                weights, adam = fit(weights, adam, n, part)
                done_steps += n
                if best is not None:
                    loss = sum_loss(held_out(weights), s.value_weight)
                    if loss < best[0]:
                        best = (loss, done_steps, weights, adam)
            kept = steps
            if best is not None and best[1] < steps:
                _, kept, weights, adam = best
            if not adam:  # nothing kept yet: a fresh optimiser's state (step 0), so a checkpoint always has one
                adam = Trainer(weights).state()
            held_after = held_out(weights) if len(val) else None
            after = Trainer(weights, value_weight=s.value_weight).evaluate(game, buf)
            buf.add(*played.rows(held))
            buf.keep_last(s.buffer)
            net = gumbel.PolicyValueNet(game, weights, manifest)
            record: dict[str, Any] = {
                "generation": gen, "command": command, "games": played.games, "first_game": first,
                "players": list(s.players), "decisions": played.decisions, "rows": len(played.x),
                "simulations_per_move": s.simulations, "simulations": played.simulations, "k": s.k,
                "value_mix": s.value_mix, "value": s.value, "workers": s.jobs,
                "buffer_rows": len(buf), "train_steps": steps, "kept_steps": kept, "batch": s.batch,
                "lr": s.lr, "l2": s.l2, "trainer": "numpy" if device is None else f"torch:{device}",
                "loss_before": [round(v, 5) for v in before], "loss_after": [round(v, 5) for v in after],
                "held_out_games": hold, "held_out_rows": len(val),
                "held_out_before": None if held_before is None else [round(v, 5) for v in held_before],
                "held_out_after": None if held_after is None else [round(v, 5) for v in held_after],
            }
            if s.eval_games:
                sims = s.eval_simulations or s.simulations
                n = s.players[0]
                seed = _deal_seed(manifest["seed"] + 1, gen * 1000)
                record["vs_previous"] = round(match(game, n, _bot_with(net, sims, seed, s.value),
                                                    _bot_with(previous, sims, seed + 1, s.value), s.eval_games, seed), 4)
                record["vs_baseline"] = round(match(game, n, _bot_with(net, sims, seed, s.value),
                                                    make_bot(s.eval_bot, seed + 2, game=game),
                                                    s.eval_games, seed), 4)
                record["baseline"] = s.eval_bot
                record["eval_games"] = s.eval_games
                record["eval_simulations"] = sims
                record["eval_players"] = n
            cpu = (cpu_seconds() - cpu0 + played.worker_cpu) / 60
            record["cpu_minutes"] = round(cpu, 3)
            manifest = {**manifest, "generation": gen, "games": first + played.games,
                        "cpu_minutes": round(float(manifest["cpu_minutes"]) + cpu, 3),
                        "generations": [*manifest["generations"], record]}
            size = save(path, weights, manifest, {**adam, **buf.arrays()})
            parts = [msg("generation {gen}: {games} games, {rows} rows, {simulations} simulations, {cpu} CPU min; "
                         "kept {kept} of {steps} steps; loss policy {p0}->{p1}, value {v0}->{v1}",
                         gen=gen, games=played.games, rows=len(played.x), simulations=played.simulations,
                         cpu=f"{cpu:.2f}", kept=kept, steps=steps, p0=f"{before[0]:.3f}", p1=f"{after[0]:.3f}",
                         v0=f"{before[1]:.3f}", v1=f"{after[1]:.3f}")]
            if held_before is not None and held_after is not None:
                parts.append(msg("held out ({hold} games) policy {p0}->{p1}, value {v0}->{v1}", hold=hold,
                                 p0=f"{held_before[0]:.3f}", p1=f"{held_after[0]:.3f}",
                                 v0=f"{held_before[1]:.3f}", v1=f"{held_after[1]:.3f}"))
            if s.eval_games:
                parts.append(msg("vs previous {previous}, vs {bot} {baseline}", previous=f"{record['vs_previous']:.0%}",
                                 bot=s.eval_bot, baseline=f"{record['vs_baseline']:.0%}"))
            parts.append(msg("wrote {path} ({size} bytes)", path=str(path), size=size))
            log(_joined(parts))
            done += 1
    return manifest


def _deal_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index * 7_919 + 17) % (2 ** 31)


def install(game: Game, path: Path, num_players: int | None = None) -> tuple[Path, int]:
    """Write the checkpoint's network alone (no optimiser, no buffer) into the game's
    package, where the ``gumbel`` bot finds it."""
    net, _ = gumbel.read(game, path)
    target = Path(str(gumbel.shipped_path(game, num_players)))
    return target, net.save(target)
