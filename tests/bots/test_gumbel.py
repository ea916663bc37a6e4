"""The ``gumbel`` bot and its self-play policy iteration (``gemtable.bots.gumbel``, ``selfplay``)."""

from __future__ import annotations

import multiprocessing as mp
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from gemtable.bots import LEVELS, gumbel, learned, make_bot, selfplay
from gemtable.core import Rng
from gemtable.games.registry import all_games, get_game

from . import gumbel_reference


def _position(game, n=2, seed=3, moves=6):
    state = game.new(n, seed)
    rng = Rng(seed)
    for _ in range(moves):
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        state.step(p, acts[rng.below(len(acts))])
    return state


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_untrained_network_is_a_uniform_policy_and_the_heuristic_value(gid):
    game = get_game(gid)
    net = gumbel.fresh(game)
    for n in (2, max(game.player_counts)):
        state = _position(game, n)
        seat = state.to_move()[0]
        policy, values, _x = gumbel.judge(net, gumbel.Encoder(game), [(state, seat)])
        assert np.allclose(policy[0], 0.0)
        assert len(values[0]) == n and abs(sum(values[0]) - 1) < 1e-5
        heur = learned.heuristics(state)
        scale = max(1.0, max(abs(v) for v in heur))
        expect = np.exp(learned.SHARPNESS * np.array(heur) / scale)
        assert np.allclose(values[0], expect / expect.sum(), atol=1e-5)
        if n == 2:  # the logistic of the heuristic margin: mcts's judgement of a position
            m = (heur[seat] - heur[1 - seat]) / scale
            assert values[0][seat] == pytest.approx(1 / (1 + np.exp(-learned.SHARPNESS * m)), abs=1e-5)


def _search(state, seat, sims, k=16, seed=1):
    net = gumbel.fresh(state.game)
    gen = gumbel.search(state, seat, Rng(seed), np.random.default_rng(seed), sims, k)
    return gumbel.drive(gen, net, gumbel.Encoder(state.game))


@pytest.mark.parametrize("gid", sorted(all_games()))
def test_search_spends_its_budget_and_returns_a_policy_over_the_legal_actions(gid):
    game = get_game(gid)
    state = _position(game)
    while len(state.legal_actions(state.to_move()[0])) < 2:
        p = state.to_move()[0]
        state.step(p, state.legal_actions(p)[0])
    seat = state.to_move()[0]
    legal = state.legal_actions(seat)
    result = _search(state, seat, 32)
    assert result.action in legal
    assert result.ids == [a.id for a in legal]
    assert result.policy.shape == (len(legal),) and abs(result.policy.sum() - 1) < 1e-9
    assert result.simulations == 32


def _sample_positions():
    """40 positions of the five games at two and three seats (fixed seeds, random depths)
    with the untrained network, and 8 of Splendor at two seats with its shipped network."""
    cases = []
    for gid in sorted(all_games()):
        game = get_game(gid)
        for j in range(8):
            cases.append((game, 2 + j % 2, 11 * j + 1, 3 + 7 * j, False))
    splendor = get_game("splendor")
    cases += [(splendor, 2, 5 * j + 2, 4 + 5 * j, True) for j in range(8)]
    return cases


@pytest.mark.parametrize("game,n,seed,moves,trained", _sample_positions(),
                         ids=[f"{g.id}-{n}p-{s}-{'shipped' if t else 'fresh'}" for g, n, s, _, t in _sample_positions()])
def test_search_agrees_with_the_reference_search(game, n, seed, moves, trained):
    """The search (per-node caches, plain-float selection below the root) makes the same
    decisions as the reference copy of the NumPy-over-the-action-space search
    (tests/bots/gumbel_reference.py): the same action, the same policy target."""
    state = game.new(n, seed)
    rng = Rng(seed)
    for i in range(4 * moves):  # ``moves`` random moves, then on to the next real choice
        p = state.to_move()[0]
        acts = state.legal_actions(p)
        if i >= moves and len(acts) > 1:
            break
        state.step(p, acts[rng.below(len(acts))])
        if state.is_over():  # a short game: start again
            state = game.new(n, seed)
    assert len(state.legal_actions(state.to_move()[0])) > 1
    net = gumbel.shipped(game, n) if trained else gumbel.fresh(game)
    assert net is not None
    seat = state.to_move()[0]
    sims, k = (64, 16) if seed % 2 else (48, 8)
    expect = gumbel_reference.run(net, state, seat, Rng(seed), np.random.default_rng(seed), sims, k)
    got = gumbel.drive(gumbel.search(state, seat, Rng(seed), np.random.default_rng(seed), sims, k),
                       net, gumbel.Encoder(game))
    assert got.action == expect[0] and got.ids == expect[1] and got.simulations == expect[3]
    assert np.max(np.abs(np.asarray(got.policy) - expect[2])) <= 1e-9
    # self-play's judge (rows into a batch buffer) drives the same search to the same result
    gen = gumbel.search(state, seat, Rng(seed), np.random.default_rng(seed), sims, k)
    encoder = gumbel.Encoder(game, 4)
    try:
        request = next(gen)
        while True:
            policy, values, _x = gumbel.judge(net, encoder, [request])
            request = gen.send((policy[0], values[0]))
    except StopIteration as stop:
        batched = stop.value
    assert batched.action == got.action and np.array_equal(batched.policy, got.policy)


def test_selection_is_the_reference_numpy_arithmetic_bit_for_bit():
    """Below the root the search works on plain floats; its improved policy, completed q
    and chosen action are exactly those of the NumPy expressions of the reference, on
    random nodes (any legal set size, visits and values)."""
    rng = np.random.default_rng(7)
    for trial in range(300):
        size = int(rng.integers(1, 200))
        mover = int(rng.integers(0, 3))
        logits = (rng.standard_normal(size + 50) * rng.choice([0.0, 0.1, 3.0])).astype(np.float32)
        value = rng.dirichlet(np.ones(3)).astype(np.float32).astype(np.float64)
        ids = tuple(sorted(int(a) for a in rng.choice(size + 50, size, replace=False)))
        ours = gumbel.Node(mover, logits.astype(np.float64), value.tolist())
        ref = gumbel_reference.Node(mover, logits.astype(np.float64), value)
        for a in ids:
            for _ in range(int(rng.integers(0, 4)) * (rng.random() < 0.4)):
                reward = float(np.float32(rng.random()))
                ours.visits[a] = ours.visits.get(a, 0) + 1
                ours.total[a] = ours.total.get(a, 0.0) + reward
                ref.visits[a] += 1
                ref.total[a] += reward
        lids = np.array(ids, np.intp)
        c_visit, c_scale = (50.0, 1.0) if trial % 2 else (float(rng.integers(1, 80)), float(rng.random() * 2))
        expect = gumbel_reference.improved_policy(ref, lids, c_visit, c_scale)
        assert np.array_equal(gumbel.improved_policy(ours, ids, c_visit, c_scale), expect)
        prior = gumbel_reference.softmax(ref.logits[lids])
        assert np.array_equal(gumbel.completed_q(ours, ids, prior.tolist()),
                              gumbel_reference.completed_q(ref, lids, prior))
        counts = ref.visits[lids]
        assert gumbel.select(ours, ids, c_visit, c_scale) == int(np.argmax(expect - counts / (1 + counts.sum())))
    for size in range(300):  # NumPy's summation order
        xs = rng.random(size) * 10.0 ** rng.integers(-8, 8, size)
        assert gumbel.fsum_np(xs.tolist()) == float(np.sum(xs))


def test_search_finds_the_action_the_values_favour(monkeypatch):
    """With values that say one root action wins, the improved policy puts nearly all its
    mass there and the search plays it, although the prior is uniform."""
    game = get_game("splendor")
    state = _position(game)
    seat = state.to_move()[0]
    legal = state.legal_actions(seat)
    good = legal[len(legal) // 2].id
    first_of: dict[int, int] = {}  # id of a simulation's position -> the root action it began with
    original = gumbel._simulate

    def tagged(state, seat, root, first, rng, c_visit, c_scale):
        inner = original(state, seat, root, first, rng, c_visit, c_scale)
        try:
            request = next(inner)
            while True:
                first_of[id(request[0])] = first.id
                request = inner.send((yield request))
        except StopIteration as stop:
            return stop.value

    monkeypatch.setattr(gumbel, "_simulate", tagged)
    gen = gumbel.search(state, seat, Rng(1), np.random.default_rng(1), 64, k=len(legal))
    uniform = np.zeros(len(game.actions))
    request = next(gen)
    try:
        while True:
            det = request[0]
            value = np.zeros(det.num_players)
            value[seat] = 1.0 if first_of.get(id(det)) == good else 0.0
            value[1 - seat] = 1.0 - value[seat]
            request = gen.send((uniform, value))
    except StopIteration as stop:
        result = stop.value
    assert result.action.id == good
    assert result.policy[result.ids.index(good)] > 0.9
    assert first_of  # the simulations went through the wrapper


def test_sigma_and_completed_q():
    node = gumbel.Node(0, np.zeros(4), np.array([0.4, 0.6]))
    ids = [0, 1, 2]
    probs = np.full(3, 1 / 3)
    assert np.allclose(gumbel.completed_q(node, ids, probs), 0.4)  # nothing visited: the value
    node.visits[1], node.total[1] = 2, 1.6  # q(1) = 0.8
    q = gumbel.completed_q(node, ids, probs)
    assert q[1] == pytest.approx(0.8)
    assert q[0] == q[2] == pytest.approx((0.4 + 2 * 0.8) / 3)  # v_mix
    assert np.allclose(gumbel.sigma(np.array([0.5]), 2, 50, 1.0), [26.0])


def test_bot_is_registered_and_refuses_bad_parameters():
    bot = make_bot("gumbel:simulations=8", seed=1)
    assert isinstance(bot, gumbel.GumbelBot)
    with pytest.raises(ValueError, match="parameter"):
        make_bot("gumbel:sims=8")
    with pytest.raises(ValueError, match="at least 1"):
        make_bot("gumbel:simulations=0")
    state = _position(get_game("sintra"))
    seat = state.to_move()[0]
    assert make_bot("gumbel:seconds=0.05", seed=2).choose(state, seat) in state.legal_actions(seat)


def test_weights_for_another_game_are_refused(tmp_path):
    splendor, sintra = get_game("splendor"), get_game("sintra")
    path = tmp_path / "sp.npz"
    gumbel.fresh(splendor).save(path)
    with pytest.raises(learned.WeightsMismatch, match="splendor"):
        gumbel.read(sintra, path)
    with pytest.raises(learned.WeightsMismatch, match="policy-value"):
        gumbel.read(splendor, learned.shipped_path(splendor).read_bytes())


def test_gradients_match_finite_differences():
    game = get_game("sintra")
    played = selfplay.self_play(game, gumbel.fresh(game), [(2, 1), (3, 2)], simulations=4, batch=2)
    buf = selfplay.Replay(*gumbel.sizes(game)[:2])
    buf.add(played.x, played.v, played.ids, played.probs)
    rng = np.random.default_rng(0)
    weights = gumbel.init_weights(game, (8, 6), rng)
    learned.fit_normalisation(weights, buf.x)
    for k in ("wp", "bp", "wv", "bv"):
        weights[k] = rng.standard_normal(weights[k].shape) * 0.3
    weights = {k: v.astype(np.float64) for k, v in weights.items()}
    trainer = selfplay.Trainer(weights, value_weight=0.7)
    idx = np.arange(12)
    target, mask = buf.policy(idx, len(game.actions))
    x, v = buf.x[idx].astype(np.float64), buf.v[idx]
    grads = trainer.gradients(game, x, target, mask, v)

    def loss():
        p, val = trainer.losses(game, x, target, mask, v)
        return p + 0.7 * val

    for key in ("w1", "b2", "wp", "bv", "lin"):
        flat = trainer.w[key].reshape(-1)
        for j in rng.choice(flat.size, size=3, replace=False):
            old = flat[j]
            flat[j] = old + 1e-5
            up = loss()
            flat[j] = old - 1e-5
            down = loss()
            flat[j] = old
            assert grads[key].reshape(-1)[j] == pytest.approx((up - down) / 2e-5, rel=1e-3, abs=1e-7), key


def test_training_lowers_the_loss_and_the_buffer_keeps_the_last_rows():
    game = get_game("splendor")
    played = selfplay.self_play(game, gumbel.fresh(game), [(2, s) for s in range(4)], simulations=8, batch=4)
    assert played.games == 4 and played.decisions == len(played.x) > 50
    assert played.simulations == 8 * played.decisions
    assert np.allclose(played.v.sum(1), 1.0)  # every row's seat shares sum to one
    buf = selfplay.Replay(*gumbel.sizes(game)[:2])
    buf.add(played.x, played.v, played.ids, played.probs)
    weights = gumbel.init_weights(game, (32, 32), np.random.default_rng(0))
    learned.fit_normalisation(weights, buf.x)
    trainer = selfplay.Trainer(weights, lr=3e-3)
    before = trainer.evaluate(game, buf)
    trainer.fit(game, buf, 60, 64, np.random.default_rng(1))
    after = trainer.evaluate(game, buf)
    assert after[0] < before[0] and after[1] < before[1]
    # keep_last and the checkpoint arrays keep rows and their sparse targets together
    last_ids, last_p = buf.ids[buf.off[-2]:].copy(), buf.p[buf.off[-2]:].copy()
    buf.keep_last(5)
    again = selfplay.Replay.from_arrays(*gumbel.sizes(game)[:2], buf.arrays())
    assert len(again) == 5 and again.off[0] == 0 and again.off[-1] == len(again.ids)
    assert np.array_equal(again.ids[again.off[-2]:], last_ids) and np.allclose(again.p[again.off[-2]:], last_p)
    assert np.allclose(again.x, played.x[-5:], atol=1e-2)


def test_batched_self_play_is_reproducible():
    game = get_game("glassworks")
    a = selfplay.self_play(game, gumbel.fresh(game), [(2, 5), (3, 6)], simulations=4, batch=2)
    b = selfplay.self_play(game, gumbel.fresh(game), [(2, 5), (3, 6)], simulations=4, batch=2)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.v, b.v)


def test_value_targets_blend_the_result_with_the_search_value():
    game = get_game("splendor")
    net = gumbel.fresh(game)
    deals = [(2, 3), (2, 4)]
    runs = {m: selfplay.self_play(game, net, deals, simulations=6, batch=2, value_mix=m) for m in (0.0, 0.5, 1.0)}
    result, half, searched = runs[0.0].v, runs[0.5].v, runs[1.0].v
    # the mix changes the targets only: the same games, positions and policy targets
    assert all(np.array_equal(runs[0.0].x, r.x) and np.array_equal(runs[0.0].game_of, r.game_of) for r in runs.values())
    assert set(np.unique(result[:, :2])) <= {0.0, 0.5, 1.0}  # a game's result
    assert np.allclose(searched.sum(1), 1.0) and np.all(searched[:, 2:] == 0)
    inside = (searched[:, :2] > 0.01) & (searched[:, :2] < 0.99)
    assert inside.all()  # the search's value: the heuristic's logistic, never sure of the result
    assert np.allclose(half, (result + searched) / 2, atol=1e-6)


def test_the_search_value_averages_the_network_and_every_simulation():
    game = get_game("splendor")
    state = game.new(2, 8)
    gen = gumbel.search(state, 0, Rng(1), np.random.default_rng(2), simulations=10)
    replies = iter([[0.2, 0.8]] + [[0.6, 0.4]] * 10)
    request = next(gen)
    try:
        while True:
            request = gen.send((np.zeros(len(game.actions)), next(replies)))
    except StopIteration as stop:
        result = stop.value
    assert request[1] in (0, 1) and result.simulations == 10
    assert result.searched == pytest.approx([(0.2 + 10 * 0.6) / 11, (0.8 + 10 * 0.4) / 11])


def test_workers_play_the_same_generation_as_one_process():
    game = get_game("glassworks")
    net = gumbel.fresh(game)
    deals = [(2, 5), (3, 6), (2, 7)]
    alone = selfplay.play_generation(game, net, deals, simulations=4, batch=2, value_mix=0.25)
    with ProcessPoolExecutor(2, mp_context=mp.get_context("spawn")) as pool:
        spread = selfplay.play_generation(game, net, deals, simulations=4, batch=2, value_mix=0.25, pool=pool)
    assert alone.games == spread.games == 3 and alone.decisions == spread.decisions
    assert alone.worker_cpu == 0 and spread.worker_cpu > 0  # the workers report their CPU time
    assert np.array_equal(alone.x, spread.x) and np.array_equal(alone.v, spread.v)
    assert np.array_equal(alone.game_of, spread.game_of) and set(alone.game_of) == {0, 1, 2}
    assert all(np.array_equal(a, b) for a, b in zip(alone.probs, spread.probs))


def test_checkpoints_resume_where_the_last_run_stopped(tmp_path):
    game = get_game("sintra")
    path = tmp_path / "ck.npz"
    settings = selfplay.Settings(games=2, simulations=4, hidden=(16, 16), eval_games=1, eval_bot="random",
                                 trainer="numpy", play_batch=2)
    first = selfplay.train(game, path, settings, generations=1, log=lambda _: None)
    assert first["generation"] == 1 and first["games"] == 2
    net, extra = gumbel.read(game, path)
    rows1 = len(extra["replay_x"])
    steps1 = int(extra["adam_t"][0])
    manifest = selfplay.train(game, path, settings, generations=1, log=lambda _: None)
    assert manifest["generation"] == 2 and manifest["games"] == 4
    gens = manifest["generations"]
    assert [g["generation"] for g in gens] == [1, 2] and gens[1]["first_game"] == 2
    for g in gens:
        assert {"games", "simulations", "cpu_minutes", "loss_before", "loss_after", "vs_previous",
                "vs_baseline"} <= set(g)
    net2, extra = gumbel.read(game, path)
    assert net2.fingerprint() != net.fingerprint()
    assert len(extra["replay_x"]) == rows1 + gens[1]["rows"]
    assert int(extra["adam_t"][0]) == steps1 + gens[1]["kept_steps"]
    assert gens[1]["held_out_games"] == 1 and gens[1]["held_out_rows"] > 0
    assert 0 <= gens[1]["kept_steps"] <= gens[1]["train_steps"]
    assert not path.with_name(path.name + ".tmp").exists()
    # the network of a checkpoint plays as a bot
    bot = make_bot(f"gumbel:simulations=4,weights={path}", seed=1)
    state = game.new(2, 9)
    assert bot.choose(state, state.to_move()[0]) in state.legal_actions(state.to_move()[0])
    assert bot.weights_fingerprint(game, 2) == net2.fingerprint()


def test_play_needs_no_deep_learning_framework():
    code = ("import sys; from gemtable.bots import make_bot; from gemtable.games.registry import get_game; "
            "s = get_game('splendor').new(2, 1); make_bot('gumbel:simulations=4').choose(s, 0); "
            "print(sorted(m for m in ('torch', 'tensorflow', 'jax') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.torch
def test_torch_trainer_matches_numpy():
    pytest.importorskip("torch")
    game = get_game("sintra")
    played = selfplay.self_play(game, gumbel.fresh(game), [(2, 1)], simulations=4, batch=1)
    buf = selfplay.Replay(*gumbel.sizes(game)[:2])
    buf.add(played.x, played.v, played.ids, played.probs)
    weights = gumbel.init_weights(game, (16, 8), np.random.default_rng(0))
    learned.fit_normalisation(weights, buf.x)
    trainer = selfplay.Trainer(weights, lr=1e-3, l2=1e-4)
    trainer.fit(game, buf, 5, 32, np.random.default_rng(7))
    tw, tstate = selfplay.fit_torch(game, weights, {}, buf, 5, 32, 1e-3, 1e-4, 1.0, 7, "cpu")
    # same batches: fit_torch draws its rows from default_rng(seed) as fit does
    # Adam scales every step to about lr, so entries whose gradient is round-off (inputs that
    # never vary) may differ by a few steps; the losses must agree
    for k in gumbel.TRAINABLE:
        assert np.max(np.abs(tw[k] - trainer.w[k])) <= 5 * 1e-3 * 1.01, k
    idx = np.arange(len(buf))
    target, mask = buf.policy(idx, len(game.actions))
    ours = trainer.losses(game, buf.x, target, mask, buf.v)
    theirs = selfplay.Trainer(tw).losses(game, buf.x, target, mask, buf.v)
    assert ours == pytest.approx(theirs, rel=2e-3)
    start = selfplay.Trainer(weights).losses(game, buf.x, target, mask, buf.v)
    assert theirs[0] < start[0]
    assert int(tstate["adam_t"][0]) == 5


def test_early_stopping_keeps_the_network_that_predicts_held_out_games_best(tmp_path):
    """A learning rate that wrecks the network: the held-out games are predicted worst after
    training, so the generation keeps its start."""
    game = get_game("splendor")
    path = tmp_path / "ck.npz"
    settings = selfplay.Settings(games=10, simulations=4, hidden=(16, 16), eval_games=0, trainer="numpy",
                                 lr=3.0, play_batch=10)
    manifest = selfplay.train(game, path, settings, generations=1, log=lambda _: None)
    record = manifest["generations"][0]
    assert record["held_out_games"] == 1 and record["held_out_rows"] > 0
    assert record["kept_steps"] == 0 and record["held_out_after"] == record["held_out_before"]
    net, extra = gumbel.read(game, path)
    assert np.all(net.weights["wp"] == 0) and int(extra["adam_t"][0]) == 0
    settings.lr = 1e-3
    record = selfplay.train(game, path, settings, generations=1, log=lambda _: None)["generations"][1]
    assert sum(record["held_out_after"]) <= sum(record["held_out_before"])


SHIPPED = [(g, n) for _, g in sorted(all_games().items()) for n in g.player_counts
           if gumbel.shipped_path(g, n).is_file()]


def test_splendor_ships_a_two_seat_network():
    assert (get_game("splendor"), 2) in SHIPPED


@pytest.mark.parametrize("game,n", SHIPPED, ids=[f"{g.id}-{n}p" for g, n in SHIPPED])
def test_shipped_networks_read_for_their_game_and_play(game, n):
    net = gumbel.read(game, gumbel.shipped_path(game, n).read_bytes())[0]  # strict: refuses a stale file
    assert gumbel.shipped(game, n) is not None
    assert len(gumbel.shipped_path(game, n).read_bytes()) < 3_000_000
    # trained, not the untrained start: its policy is not uniform on a position of the table size
    state = _position(game, n=n)
    seat = state.to_move()[0]
    policy, _values, _x = gumbel.judge(net, gumbel.Encoder(game), [(state, seat)])
    assert not np.allclose(policy[0], 0.0)
    action = make_bot("gumbel:simulations=8", seed=1).choose(state.clone(), seat)
    assert action in state.legal_actions(seat)


def test_fallback_plays_the_level_where_no_network_is_shipped(monkeypatch):
    game = get_game("splendor")
    with pytest.raises(ValueError, match="fallback must be a level"):
        make_bot("gumbel:fallback=puct")
    bot = make_bot("gumbel:simulations=8,fallback=hard", seed=3)
    # two seats: the shipped network plays, the stand-in is never made
    two = _position(game, n=2)
    seat = two.to_move()[0]
    assert bot.stand_in(game, 2) is None
    assert bot.weights_fingerprint(game, 2) == gumbel.shipped(game, 2).fingerprint()
    assert bot.choose(two.clone(), seat) in two.legal_actions(seat)
    # three seats: no network is shipped, so the default table's hard (mcts) chooses
    three = _position(game, n=3)
    seat = three.to_move()[0]
    stand_in = bot.stand_in(game, 3)
    assert repr(stand_in) == repr(make_bot("hard"))
    chosen = []
    monkeypatch.setattr(type(stand_in), "choose", lambda self, s, p: chosen.append(p) or s.legal_actions(p)[0])
    assert bot.choose(three.clone(), seat) == three.legal_actions(seat)[0]
    assert chosen == [seat]
    # given weights, the network plays at every table size
    assert make_bot("gumbel:fallback=hard,weights=x.npz").stand_in(game, 3) is None


def test_splendors_expert_is_the_network_at_two_seats_and_puct_elsewhere():
    game = get_game("splendor")
    bot = make_bot("expert", seed=1, game=game)
    assert isinstance(bot, gumbel.GumbelBot)
    assert bot.stand_in(game, 2) is None
    assert repr(bot.stand_in(game, 3)) == repr(make_bot(LEVELS["expert"]))
    assert repr(bot.stand_in(game, 4)).startswith("puct:")


@pytest.mark.parametrize("gid", sorted(g for g in all_games() if get_game(g).observation_layout is not None))
def test_learned_values_judge_the_positions_and_the_network_the_policy(gid):
    game = get_game(gid)
    model = learned.shipped(game, 2)
    assert model is not None  # every game ships a learned evaluator
    net = gumbel.shipped(game, 2) or gumbel.fresh(game)
    states = [_position(game, n=2, seed=s, moves=4 + s) for s in (3, 4, 5)]
    items = [(s, s.to_move()[0]) for s in states]
    own_policy, own_values, _ = gumbel.judge(net, gumbel.Encoder(game), items)
    policy, values, _ = gumbel.judge(net, gumbel.Encoder(game), items, model)
    assert np.array_equal(policy, own_policy)  # the policy is still the network's
    for state, got in zip(states, values):
        assert got == pytest.approx(model.values(state), abs=1e-6)
    assert not np.allclose(values, own_values)
    # the bot: same network, the learned evaluator named in its fingerprint
    bot = make_bot("gumbel:simulations=8,value=learned", seed=1)
    assert bot.value_model(game, 2) is model
    assert bot.weights_fingerprint(game, 2) != make_bot("gumbel:simulations=8").weights_fingerprint(game, 2)
    state, seat = items[0]
    assert bot.choose(state.clone(), seat) in state.legal_actions(seat)


def test_the_value_parameter_is_checked():
    with pytest.raises(ValueError, match="'network' or 'learned'"):
        make_bot("gumbel:value=heuristic")
    assert make_bot("gumbel").value_model(get_game("splendor"), 2) is None


def test_self_play_may_search_with_the_learned_evaluator(monkeypatch):
    game = get_game("sintra")
    net = gumbel.fresh(game)
    deals = [(2, 3)]
    own = selfplay.self_play(game, net, deals, simulations=4, batch=1, value_mix=1.0)
    judged = []
    real = learned.ValueModel.values

    def values(self, state, ctx=None):
        judged.append(state.num_players)
        return real(self, state, ctx)

    monkeypatch.setattr(learned.ValueModel, "values", values)
    theirs = selfplay.self_play(game, net, deals, simulations=4, batch=1, value_mix=1.0, value="learned")
    assert judged and set(judged) == {2}
    assert np.array_equal(own.x[0], theirs.x[0])  # the same first position
    # the search's values (all of the value target at mix 1) are the evaluator's, not the network's
    assert not np.allclose(own.v[0], theirs.v[0])
    assert np.allclose(theirs.v.sum(1), 1.0)
