"""The ``gumbel`` search written with NumPy arrays over the whole action space at every
node (visits, values, the improved policy): a frozen reference that the search of
:mod:`gemtable.bots.gumbel`, which selects on plain floats, must agree with — the same
action, the same policy target (``tests/bots/test_gumbel.py``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from gemtable.bots import gumbel, learned


def softmax(z: np.ndarray) -> np.ndarray:
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


def evaluate(net: gumbel.PolicyValueNet, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w = net.weights
    h1 = np.maximum(x @ net._w1 + net._b1, 0)
    h2 = np.maximum(h1 @ w["w2"] + w["b2"], 0)
    policy = h2 @ w["wp"] + w["bp"]
    value = h2 @ w["wv"] + w["bv"] + x[:, gumbel.heuristic_slice(net.game)] * w["lin"]
    seat = np.arange(max(net.game.player_counts))
    value = np.where(seat[None, :] < gumbel.table_sizes(net.game, x)[:, None], value, -np.inf)
    return policy, softmax(value)


def judge(net, game, items):
    if net is None:
        values = []
        for state, _ in items:
            heur = np.asarray(learned.heuristics(state), np.float64)
            values.append(softmax(gumbel.SHARPNESS * heur / max(1.0, float(np.max(np.abs(heur))))))
        return np.zeros((len(items), len(game.actions))), values
    x = np.zeros((len(items), learned.input_size(game)), np.float32)
    for i, (state, seat) in enumerate(items):
        heur, feats = learned.context(state)
        learned.encode(state, seat, x[i], heur, feats[seat] if feats is not None else None)
    policy, shares = evaluate(net, x)
    values = []
    for i, (state, seat) in enumerate(items):
        n = state.num_players
        values.append(np.roll(shares[i, :n], seat))
    return policy, values


class Node:
    def __init__(self, mover: int, logits: np.ndarray, value: np.ndarray) -> None:
        self.mover = mover
        self.logits = logits
        self.value = value
        self.visits = np.zeros(len(logits))
        self.total = np.zeros(len(logits))
        self.children: dict[int, Node] = {}


def completed_q(node: Node, ids: Any, probs: np.ndarray) -> np.ndarray:
    visits = node.visits[ids]
    seen = visits > 0
    v = float(node.value[node.mover])
    if not seen.any():
        return np.full(len(visits), v)
    q = np.divide(node.total[ids], visits, out=np.zeros(len(visits)), where=seen)
    mass = float(probs[seen].sum())
    mean = float((probs * q)[seen].sum()) / max(mass, 1e-12)
    n = float(visits.sum())
    v = (v + n * mean) / (1 + n)
    return np.where(seen, q, v)


def sigma(q: np.ndarray, max_visits: float, c_visit: float, c_scale: float) -> np.ndarray:
    return (c_visit + max_visits) * c_scale * q


def improved_policy(node: Node, ids: Any, c_visit: float, c_scale: float) -> np.ndarray:
    logits = node.logits[ids]
    q = completed_q(node, ids, softmax(logits))
    return softmax(logits + sigma(q, float(node.visits[ids].max()), c_visit, c_scale))


def search(state, seat, rng, gumbel_rng, simulations=32, k=16, c_visit=50.0, c_scale=1.0, noise=1.0):
    legal = state.legal_actions(seat)
    ids = [a.id for a in legal]
    det = state.search_determinization(seat, rng)
    logits, value = yield (det, seat)
    root = Node(seat, np.asarray(logits, np.float64), np.asarray(value, np.float64))
    root_logits = root.logits[ids]
    if len(ids) == 1:
        return legal[0], ids, np.ones(1), 0
    g = gumbel_rng.gumbel(size=len(ids)) * noise
    m = max(1, min(k, len(ids), simulations))
    order = sorted(range(len(ids)), key=lambda i: -(g[i] + root_logits[i]))
    remaining = order[:m]
    rounds = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    done = 0
    for r in range(rounds):
        left = simulations - done
        if r == rounds - 1:
            per = math.ceil(left / len(remaining))
        else:
            per = max(1, left // (len(remaining) * (rounds - r)))
        for _ in range(per):
            for i in remaining:
                if done >= simulations:
                    break
                yield from _simulate(state, seat, root, legal[i], rng, c_visit, c_scale)
                done += 1
        if len(remaining) > 1:
            probs = softmax(root_logits)
            q = completed_q(root, ids, probs)
            most = float(root.visits.max())
            score = g + root_logits + sigma(q, most, c_visit, c_scale)
            remaining = sorted(remaining, key=lambda i: -score[i])[:max(1, math.ceil(len(remaining) / 2))]
    probs = softmax(root_logits)
    q = completed_q(root, ids, probs)
    most = float(root.visits.max())
    score = g + root_logits + sigma(q, most, c_visit, c_scale)
    best = max(remaining, key=lambda i: score[i])
    target = softmax(root_logits + sigma(q, most, c_visit, c_scale))
    return legal[best], ids, target, done


def _simulate(state, seat, root, first, rng, c_visit, c_scale):
    det = state.search_determinization(seat, rng)
    path = [(root, first.id)]
    det.step(seat, first)
    node = root
    aid = first.id
    while True:
        if det.is_over():
            value = np.asarray(det.returns(), np.float64)
            break
        mover = det.to_move()[0]
        child = node.children.get(aid)
        if child is None or child.mover != mover:
            logits, value = yield (det, mover)
            value = np.asarray(value, np.float64)
            if child is None:
                node.children[aid] = Node(mover, np.asarray(logits, np.float64), value)
            break
        node = child
        legal = det.legal_actions(mover)
        if len(legal) == 1:
            action = legal[0]
        else:
            lids = np.fromiter((a.id for a in legal), np.intp, len(legal))
            pi = improved_policy(node, lids, c_visit, c_scale)
            counts = node.visits[lids]
            action = legal[int(np.argmax(pi - counts / (1 + counts.sum())))]
        aid = action.id
        path.append((node, aid))
        det.step(mover, action)
    for n_, a in path:
        n_.visits[a] += 1
        n_.total[a] += value[n_.mover]


def run(net, state, seat, rng, gumbel_rng, simulations, k=16, noise=1.0):
    """(action, legal ids, policy target, simulations) of the reference search."""
    gen = search(state, seat, rng, gumbel_rng, simulations, k, noise=noise)
    try:
        request = next(gen)
        while True:
            policy, values = judge(net, state.game, [request])
            request = gen.send((policy[0], values[0]))
    except StopIteration as stop:
        return stop.value
