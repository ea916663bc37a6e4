"""The priors network: files, training, the distillation data and its use in ``puct``."""

from __future__ import annotations

import numpy as np
import pytest

from gemtable.bots import learned, make_bot, priors
from gemtable.bots.learned import WeightsMismatch
from gemtable.core import Rng
from gemtable.games.registry import all_games, get_game

from .test_learned import _mid_position


def _decision(game, n=2, seed=11, moves=20):
    """A position where the seat to move has a choice."""
    state = _mid_position(game, n, seed, moves)
    while len(state.legal_actions(state.to_move()[0])) < 2:
        p = state.to_move()[0]
        state.step(p, state.legal_actions(p)[0])
    return state


def _net(game, seed=0, hidden=8, teacher=None):
    teacher = teacher if teacher is not None else learned.shipped(game, 2).fingerprint()
    weights = priors.init_weights(game, hidden, np.random.default_rng(seed))
    return priors.PriorModel(game, weights, priors.new_manifest(game, hidden, teacher, 0.05, seed))


SHIPPED = [(g, n) for _, g in sorted(all_games().items()) for n in g.player_counts if priors.shipped_path(g, n).is_file()]
# each shipped network's value of one action in a fixed position (measured when it was installed)
SHIPPED_VALUES = {
    ("diamonds_club", 2): 0.17050382,
}


# -- files ---------------------------------------------------------------------------------------
def test_a_network_survives_a_round_trip_byte_for_byte(tmp_path):
    game = get_game("sintra")
    net = _net(game)
    size = net.save(tmp_path / "a.npz")
    again = priors.load(game, tmp_path / "a.npz")
    again.save(tmp_path / "b.npz")
    assert size == (tmp_path / "a.npz").stat().st_size
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    x = priors.mover_row(_decision(game).determinize(0, Rng(1)), 0)
    assert np.array_equal(net.action_values(x), again.action_values(x))
    assert again.fingerprint() == net.fingerprint() and len(net.fingerprint()) == 16


@pytest.mark.parametrize("change, message", [
    (lambda w, m: m.update(kind="value"), "not a priors file"),
    (lambda w, m: m.update(game="splendor"), "trained for 'splendor'"),
    (lambda w, m: m.update(layout_signature="0" * 16), "another observation layout"),
    (lambda w, m: m.update(actions=3), "trained for 3 actions"),
    (lambda w, m: w.update(w2=w["w2"][:, :-1]), "'w2' has shape"),
    (lambda w, m: w.update(b1=w["b1"] * np.nan), "non-finite"),
    (lambda w, m: w.update(std=w["std"] * 0), "'std' must be positive"),
    (lambda w, m: w.pop("b2"), "no array 'b2'"),
])
def test_a_file_that_does_not_fit_is_refused_with_the_reason(change, message):
    game = get_game("sintra")
    net = _net(game)
    weights, manifest = dict(net.weights), dict(net.manifest)
    change(weights, manifest)
    with pytest.raises(WeightsMismatch, match=message):
        priors.PriorModel(game, weights, manifest)


def test_a_value_model_file_is_not_a_priors_file(tmp_path):
    game = get_game("sintra")
    learned.shipped(game, 2).save(tmp_path / "value.npz")
    with pytest.raises(WeightsMismatch, match="not a priors file"):
        priors.load(game, tmp_path / "value.npz")


# -- the distillation data -----------------------------------------------------------------------
@pytest.mark.parametrize("game", [g for _, g in sorted(all_games().items())], ids=lambda g: g.id)
def test_examples_are_the_searchs_own_one_ply_values(game):
    """Each example is a decision with a choice: the mover's row, its legal actions and the
    values ``puct`` would seed them with (checked again on the same determinization)."""
    x, ids, vals, counts = priors.positions(game, 2, 5, ["random"], 0)
    assert len(x) == len(counts) > 0 and counts.min() >= 2 and counts.sum() == len(ids) == len(vals)
    assert x.shape[1] == learned.input_size(game) and np.all(np.isfinite(x)) and np.all(np.isfinite(vals))
    assert ids.min() >= 0 and ids.max() < len(game.actions)
    # replay the game to the first example and judge it again
    teacher = make_bot("puct", seed=0)
    teacher.prepare(game, 2)
    state = game.new(2, 5)
    p = state.to_move()[0]
    while len(state.legal_actions(p)) < 2:
        state.step(p, make_bot("random", seed=5 * 7919 + p).choose(state, p))
        p = state.to_move()[0]
    det = state.search_determinization(p, Rng(5 ^ 0x5EED).spawn())
    acts = state.legal_actions(p)
    assert [a.id for a in acts] == list(ids[:counts[0]])
    assert np.allclose(teacher.one_ply_values(det, p, acts), vals[:counts[0]], atol=1e-6)
    assert np.array_equal(priors.mover_row(det, p), x[0])


def test_the_same_seed_gives_the_same_examples():
    game = get_game("mille_fiori")
    a, b = priors.positions(game, 2, 3, ["greedy"], 0), priors.positions(game, 2, 3, ["greedy"], 0)
    assert all(np.array_equal(u, v) for u, v in zip(a, b))


def test_dense_targets_mark_the_legal_actions_only():
    mask, target = priors.dense(np.array([2, 0, 1, 3, 4], np.int32), np.array([.1, .2, .3, .4, .5], np.float32),
                                np.array([2, 3], np.int32), 6)
    assert mask.tolist() == [[True, False, True, False, False, False], [False, True, False, True, True, False]]
    assert target[0, 2] == pytest.approx(.1) and target[1, 4] == pytest.approx(.5) and target[0, 1] == 0


# -- training ------------------------------------------------------------------------------------
def _batch(game, rng, n=6):
    d, a = learned.input_size(game), len(game.actions)
    x = rng.normal(size=(n, d))
    mask = rng.random((n, a)) < 0.3
    mask[:, 0] = True
    return x, mask, np.where(mask, rng.random((n, a)), 0.0)


def test_gradients_match_finite_differences():
    game = get_game("sintra")
    rng = np.random.default_rng(0)
    weights = {k: v.astype(np.float64) for k, v in priors.init_weights(game, 4, rng).items()}
    trainer = priors.Trainer(weights, 0.05)
    x, mask, target = _batch(game, rng)

    def loss():
        _, _, q = trainer._forward(x)
        mse = trainer.mse * float(((q - target) ** 2 * mask).sum() / mask.sum())
        p, t = trainer._softmax(q, mask), trainer._softmax(target, mask)
        ce = float(-np.where(mask, t * np.log(np.maximum(p, 1e-300)), 0).sum(1).mean())
        return mse + trainer.ce * ce

    grads = trainer.gradients(x, mask, target)
    for name, index in (("w2", (1, 0)), ("b2", (0,)), ("w1", (5, 2)), ("b1", (3,))):
        w = trainer.w[name]
        old = w[index]
        w[index] = old + 1e-6
        up = loss()
        w[index] = old - 1e-6
        down = loss()
        w[index] = old
        assert grads[name][index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7), name


def test_training_learns_the_teachers_ranking():
    game = get_game("sintra")
    data = [priors.positions(game, 2, s, ["greedy:epsilon=0.25"], s) for s in range(6)]
    x = np.concatenate([d[0] for d in data])
    mask, target = priors.dense(*(np.concatenate([d[i] for d in data]) for i in (1, 2, 3)), len(game.actions))
    weights = priors.init_weights(game, 32, np.random.default_rng(0))
    learned.fit_normalisation(weights, x)
    trainer = priors.Trainer(weights, 0.05, lr=3e-3)
    before = trainer.losses(x, mask, target)
    rng = np.random.default_rng(1)
    for _ in range(15):
        trainer.epoch(x, mask, target, rng, 64)
    after = trainer.losses(x, mask, target)
    assert after[0] < before[0] / 3 and after[1] < before[1] / 2 and after[2] > before[2] + 0.2


# -- in the search -------------------------------------------------------------------------------
def test_puct_seeds_below_the_root_from_the_network_and_the_root_exactly(tmp_path, monkeypatch):
    game = get_game("sintra")
    _net(game).save(tmp_path / "p.npz")
    state = _decision(game)
    p = state.to_move()[0]
    calls = {"net": 0, "exact": 0}
    real_values, real_exact = priors.PriorModel.values, make_bot("puct").__class__.one_ply_values

    def net_values(self, det, player, actions):
        calls["net"] += 1
        return real_values(self, det, player, actions)

    def exact(self, det, player, actions):
        calls["exact"] += 1
        return real_exact(self, det, player, actions)

    monkeypatch.setattr(priors.PriorModel, "values", net_values)
    monkeypatch.setattr(make_bot("puct").__class__, "one_ply_values", exact)
    bot = make_bot(f"puct:iterations=60,priors={tmp_path / 'p.npz'},exact_after=0", seed=1)
    bot.choose(state, p)
    assert calls["exact"] == 1 and calls["net"] > 5
    calls.update(net=0, exact=0)
    plain = make_bot("puct:iterations=60,prior_net=0", seed=1)
    plain.choose(state, p)
    assert calls["net"] == 0 and calls["exact"] > 5


def test_a_search_with_a_network_is_deterministic(tmp_path):
    game = get_game("diamonds_club")
    _net(game, teacher="x" * 16).save(tmp_path / "p.npz")
    state = _decision(game)
    p = state.to_move()[0]
    spec = f"puct:iterations=80,priors={tmp_path / 'p.npz'}"
    picks = {make_bot(spec, seed=4).choose(state.clone(), p).id for _ in range(2)}
    assert len(picks) == 1


def test_priors_need_the_network_switch():
    with pytest.raises(ValueError, match="needs prior_net=1"):
        make_bot("puct:prior_net=0,priors=x.npz")


def test_shipped_networks_are_used_only_with_the_value_model_they_learned(tmp_path, monkeypatch):
    game = get_game("splendor")
    value = learned.shipped(game, 2)
    _net(game, seed=1, teacher=value.fingerprint()).save(tmp_path / "priors-2p.npz")
    _net(game, seed=2, teacher="0" * 16).save(tmp_path / "priors.npz")
    monkeypatch.setattr(priors, "shipped_path", lambda g, n=None: tmp_path / priors.shipped_name(n))
    monkeypatch.setattr(priors, "_SHIPPED", {})
    assert priors.shipped(game, 2).fingerprint() == priors.load(game, tmp_path / "priors-2p.npz").fingerprint()
    assert priors.shipped(game, 3) is None  # priors.npz was learned from other weights
    def net(spec, n=2):
        bot = make_bot(spec, seed=0)
        assert bot.prepare(game, n)
        return bot.net

    assert net("puct") is not None and net("puct", 3) is None
    assert net("puct:prior_net=0") is None
    other = tmp_path / "value.npz"
    value.save(other)
    assert net(f"puct:weights={other}") is None  # other value weights: no shipped priors
    with_net, without = make_bot("puct").weights_fingerprint(game, 2), make_bot("puct:prior_net=0").weights_fingerprint(game, 2)
    assert with_net != without == value.fingerprint()


# -- what the games ship -------------------------------------------------------------------------
def test_shipped_networks_load_fit_and_learned_from_the_shipped_value_model():
    """Every shipped network (only some games ship one: see the bots README) loads strictly, was
    learned from the value model the game ships for its size, is small, says how it was
    made, and gives its measured value of one action in a fixed position."""
    assert set(SHIPPED_VALUES) == {(g.id, n) for g, n in SHIPPED}, "measure each file's figure and add it here"
    for game, n in SHIPPED:
        net = priors.load(game, priors.shipped_path(game, n))
        assert net.teacher == learned.shipped(game, n).fingerprint(), f"{game.id}: run gemtable distill again"
        assert priors.shipped(game, n) is not None
        assert len(priors.shipped_path(game, n).read_bytes()) < 3_000_000
        runs = net.manifest["runs"]
        assert runs and runs[-1]["players"] == n and net.manifest["cpu_minutes"] > 0
        state = _decision(game, n)
        p = state.to_move()[0]
        det = state.determinize(p, Rng(3))
        value = priors.shipped(game, n).values(det, p, state.legal_actions(p)[:1])[0]
        assert value == pytest.approx(SHIPPED_VALUES[game.id, n], abs=1e-4), game.id


def test_a_node_the_network_seeded_is_seeded_again_exactly_after_enough_visits(tmp_path, monkeypatch):
    game = get_game("sintra")
    _net(game).save(tmp_path / "p.npz")
    state = _decision(game)
    p = state.to_move()[0]
    bot_class = make_bot("puct").__class__
    calls = []
    real = bot_class.one_ply_values
    monkeypatch.setattr(bot_class, "one_ply_values", lambda self, *a: calls.append(1) or real(self, *a))
    make_bot(f"puct:iterations=80,priors={tmp_path / 'p.npz'},exact_after=0", seed=1).choose(state, p)
    assert len(calls) == 1  # the root only
    calls.clear()
    bot = make_bot(f"puct:iterations=80,priors={tmp_path / 'p.npz'},exact_after=3", seed=1)
    bot.choose(state, p)
    assert len(calls) > 1


def test_seeding_again_moves_the_virtual_visits_to_the_new_values():
    from gemtable.bots.mcts import _Node

    game = get_game("sintra")
    state = _decision(game)
    p = state.to_move()[0]
    acts = state.legal_actions(p)[:3]
    bot = make_bot("puct:prior=10", seed=0)
    node = _Node()
    bot._set_prior(node, p, acts, [0.2, 0.5, 0.4])
    node.stats[(p, acts[0].id)][0] += 2  # two real visits worth 1.0 each
    node.stats[(p, acts[0].id)][1] += 2.0
    bot._set_prior(node, p, acts, [0.6, 0.1, 0.4], again=True)
    first, second = node.stats[(p, acts[0].id)], node.stats[(p, acts[1].id)]
    assert first[0] == 12 and first[1] == pytest.approx(10 * 0.6 + 2.0) and first[4] == 0.6
    assert second[0] == 10 and second[1] == pytest.approx(1.0)
    assert first[3] > node.stats[(p, acts[2].id)][3] > second[3]
    assert sum(node.stats[(p, a.id)][3] for a in acts) == pytest.approx(1.0)


@pytest.mark.parametrize("game", [g for _, g in sorted(all_games().items())], ids=lambda g: g.id)
def test_the_networks_input_reads_the_movers_view_only(game):
    """Two positions the mover cannot tell apart (the rivals' secrets redealt) give the same
    input row, in play and in the distillation data."""
    state = _decision(game, 2, 7, 24)
    p = state.to_move()[0]
    other = state.determinize(p, Rng(99))  # same view for p, other hidden cards elsewhere
    a = priors.mover_row(state.search_determinization(p, Rng(1)), p)
    b = priors.mover_row(other.search_determinization(p, Rng(1)), p)
    assert np.array_equal(a, b)
