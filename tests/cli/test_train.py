"""``gemtable train``: a tiny end-to-end run, reproducibility, resuming, refusals, --install."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from gemtable.bots import learned
from gemtable.cli.main import app
from gemtable.games.registry import get_game

runner = CliRunner()


def _train(*args):
    result = runner.invoke(app, ["train", *args])
    assert result.exit_code == 0, result.output
    return result


def _arrays(path):
    with np.load(path) as npz:
        return {k: npz[k] for k in npz.files if k != "manifest"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``gemtable train splendor --games 4 --seed 1``, twice from scratch."""
    folder = tmp_path_factory.mktemp("train")
    a, b = folder / "a.npz", folder / "b.npz"
    out = _train("splendor", "--games", "4", "--seed", "1", "--out", str(a)).output
    _train("splendor", "--games", "4", "--seed", "1", "--out", str(b))
    return a, b, out


def test_tiny_training_runs_end_to_end(tiny):
    a, _, output = tiny
    game = get_game("splendor")
    model, extra = learned.read(game, a)
    man = model.manifest
    assert man["game"] == "splendor" and man["games"] == 4 and man["seed"] == 1
    assert man["layout_signature"] == learned.layout_signature(game)
    assert man["cpu_minutes"] > 0 and man["runs"][0]["rows"] > 100
    assert "adam_t" in extra  # the optimiser state is saved (0 steps if epoch 0 was kept)
    assert "4 games" in output and "wrote" in output
    values = model.values(game.new(2, 3))
    assert abs(sum(values) - 1) < 1e-6


def test_same_seed_gives_identical_weights(tiny, tmp_path):
    a, b, _ = tiny
    wa, wb = _arrays(a), _arrays(b)
    assert wa.keys() == wb.keys()
    for key in wa:
        assert wa[key].tobytes() == wb[key].tobytes(), key
    other = tmp_path / "c.npz"
    _train("splendor", "--games", "4", "--seed", "2", "--out", str(other))
    assert _arrays(other)["w1"].tobytes() != wa["w1"].tobytes()


def test_training_resumes_from_its_output(tiny, tmp_path):
    a, _, _ = tiny
    path = tmp_path / "resumed.npz"
    path.write_bytes(a.read_bytes())
    before = _arrays(path)
    out = _train("splendor", "--games", "2", "--seed", "1", "--out", str(path), "--no-early-stop").output
    assert "continuing" in out
    model, extra = learned.read(get_game("splendor"), path)
    assert model.manifest["games"] == 6 and len(model.manifest["runs"]) == 2
    assert model.manifest["runs"][1]["first_game"] == 4
    after = _arrays(path)
    assert np.array_equal(after["mean"], before["mean"])  # the input normalisation is kept
    assert not np.array_equal(after["w1"], before["w1"])
    assert int(extra["adam_t"][0]) > int(before["adam_t"][0])  # the optimiser state carried on


def test_early_stopping_keeps_the_best_held_out_epoch(tmp_path):
    path = tmp_path / "es.npz"
    out = _train("splendor", "--games", "6", "--seed", "4", "--epochs", "6", "--out", str(path)).output
    model = learned.read(get_game("splendor"), path)[0]
    run = model.manifest["runs"][0]
    assert 0 <= run["kept_epochs"] <= 6 and f"after epoch {run['kept_epochs']} of 6" in out
    assert run["validation"] is not None


def test_weights_of_another_game_are_refused(tiny):
    a, _, _ = tiny
    result = runner.invoke(app, ["train", "sintra", "--games", "1", "--out", str(a)])
    assert result.exit_code != 0
    assert "trained for 'splendor', not 'sintra'" in result.output


def test_install_writes_the_package_weights(tiny, tmp_path, monkeypatch):
    a, _, _ = tiny
    target = tmp_path / "value.npz"
    monkeypatch.setattr(learned, "shipped_path", lambda game, n=None: target if n is None else tmp_path / "no")
    path = tmp_path / "w.npz"
    path.write_bytes(a.read_bytes())
    _train("splendor", "--games", "1", "--seed", "1", "--out", str(path), "--install")
    installed, extra = learned.read(get_game("splendor"), target)
    assert extra == {}  # no optimiser state in the shipped file
    assert installed.manifest["games"] == 5
    assert target.stat().st_size < path.stat().st_size


def test_install_players_writes_the_model_of_one_table_size(tiny, tmp_path, monkeypatch):
    a, _, _ = tiny
    monkeypatch.setattr(learned, "shipped_path", lambda game, n=None: tmp_path / learned.shipped_name(n))
    path = tmp_path / "w.npz"
    path.write_bytes(a.read_bytes())
    _train("splendor", "--games", "1", "--seed", "1", "--out", str(path), "--install", "--install-players", "2")
    assert (tmp_path / "value-2p.npz").is_file() and not (tmp_path / "value.npz").exists()
    assert learned.read(get_game("splendor"), tmp_path / "value-2p.npz")[0].manifest["games"] == 5


@pytest.mark.parametrize("args, message", [
    (["--install-players", "2"], "needs --install"),
    (["--install", "--install-players", "7"], "player"),
])
def test_install_players_refusals(tmp_path, args, message):
    result = CliRunner().invoke(app, ["train", "splendor", "--games", "1", "--out", str(tmp_path / "w.npz"), *args])
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "w.npz").exists()


def test_self_play_generations_train_on_their_own_games(tmp_path):
    """``--generations 2`` with ``weights=@``: two play-then-train rounds in one file."""
    path = tmp_path / "gen.npz"
    out = _train("splendor", "--games", "3", "--seed", "5", "--generations", "2", "--players", "2",
                 "--bots", "puct:iterations=4,weights=@", "--epochs", "2", "--out", str(path)).output
    assert "generation 1 of 2" in out and "generation 2 of 2" in out
    model = learned.read(get_game("splendor"), path)[0]
    runs = model.manifest["runs"]
    assert model.manifest["games"] == 6 and len(runs) == 2
    assert [r["first_game"] for r in runs] == [0, 3]
    assert runs[0]["bots"] == ["puct:iterations=4,weights=@"]
    assert model.manifest["inputs"] == "context"


def test_the_network_reads_the_context_or_everything(tmp_path):
    game = get_game("splendor")
    ctx, full = tmp_path / "ctx.npz", tmp_path / "all.npz"
    _train("splendor", "--games", "2", "--seed", "1", "--epochs", "1", "--out", str(ctx))
    _train("splendor", "--games", "2", "--seed", "1", "--epochs", "1", "--inputs", "all", "--out", str(full))
    a, b = learned.load(game, ctx), learned.load(game, full)
    assert a.weights["w1"].shape[0] == learned.extra_size(game) and not a.reads_observation
    assert b.weights["w1"].shape[0] == learned.input_size(game) and b.reads_observation
    result = runner.invoke(app, ["train", "splendor", "--games", "1", "--inputs", "pixels",
                                 "--out", str(tmp_path / "x.npz")])
    assert result.exit_code != 0 and "inputs must be one of context, all" in result.output


def test_search_labels_blend_the_search_verdict_into_the_win_targets():
    """``label``: the mover's row gets result_weight * result + the rest * the search's value, the
    other seat (two players) the complement of that value; result_weight 1 is the plain result."""
    game = get_game("splendor")
    moves, final = learned.play_game(game, 2, 9, ["greedy"])
    x0, plain, m0 = learned.rows_of_game(game, 2, 9, moves, final, positions=4)
    x1, half, m1 = learned.rows_of_game(game, 2, 9, moves, final, positions=4,
                                        label=("mcts:iterations=30", 0.5))
    _, same, _ = learned.rows_of_game(game, 2, 9, moves, final, positions=4,
                                       label=("mcts:iterations=30", 1.0))
    assert np.array_equal(x0, x1) and np.array_equal(m0, m1) and np.array_equal(plain, same)
    assert set(np.unique(plain)) <= {0.0, 0.5, 1.0}
    assert not np.array_equal(plain, half)
    values = 2 * half - plain  # the search's values, seat by seat
    assert np.all((values >= -1e-6) & (values <= 1 + 1e-6))
    pairs = values.reshape(-1, 2)
    assert np.allclose(pairs.sum(axis=1), 1.0, atol=1e-5)  # two seats: complementary verdicts
    # the same search again gives the same labels (the labeller is seeded from the game)
    again = learned.rows_of_game(game, 2, 9, moves, final, positions=4, label=("mcts:iterations=30", 0.5))[1]
    assert np.array_equal(half, again)
    # three seats: the search would speak for the mover alone, so the results stay
    moves3, final3 = learned.play_game(game, 3, 9, ["greedy"])
    plain3 = learned.rows_of_game(game, 3, 9, moves3, final3, positions=4)[1]
    labelled3 = learned.rows_of_game(game, 3, 9, moves3, final3, positions=4, label=("mcts:iterations=30", 0.5))[1]
    assert np.array_equal(plain3, labelled3)


def test_search_values_come_from_the_movers_view_only():
    """The labelling search decides for the seat to move through the bot interface (it sees only
    that seat's view); a forced move or a seat the search cannot speak for gets no value."""
    from gemtable.bots import make_bot

    game = get_game("splendor")
    state = game.new(3, 4)
    bot = make_bot("mcts:iterations=20", seed=1)
    values = learned.search_values(bot, state)
    mover = state.to_move()[0]
    assert values[mover] is not None and 0.0 <= values[mover] <= 1.0
    assert [v is None for v in values] == [q != mover for q in range(3)]  # three seats: the mover's only
    assert learned.search_values(make_bot("greedy"), state) == [None, None, None]  # no search tree


def test_training_with_a_labelling_search(tmp_path):
    path = tmp_path / "label.npz"
    _train("splendor", "--games", "3", "--seed", "2", "--players", "2", "--positions", "3", "--epochs", "2",
           "--label-bot", "puct:iterations=8,weights=@", "--result-weight", "0.25", "--out", str(path))
    run = learned.read(get_game("splendor"), path)[0].manifest["runs"][-1]
    assert run["label_bot"] == "puct:iterations=8,weights=@" and run["result_weight"] == 0.25
    result = runner.invoke(app, ["train", "splendor", "--games", "1", "--label-bot", "greedy",
                                 "--out", str(tmp_path / "x.npz")])
    assert result.exit_code != 0 and "search bot" in result.output


# -- --method gumbel: self-play policy iteration -------------------------------------------------
GUMBEL_TINY = ["--method", "gumbel", "--games", "3", "--simulations", "4", "--hidden", "16,16", "--steps", "30",
               "--lr", "3e-3", "--eval-games", "1", "--eval-bot", "random", "--trainer", "numpy"]


def test_gumbel_trains_a_tiny_model_through_two_generations_and_resumes(tmp_path):
    from gemtable.bots import gumbel, make_bot

    path = tmp_path / "sp.npz"
    out = _train("splendor", *GUMBEL_TINY, "--generations", "2", "--seed", "3", "--value-mix", "0.5",
                 "--out", str(path)).output
    assert "generation 1:" in out and "generation 2:" in out and "2 generations, 6 games" in out
    game = get_game("splendor")
    net, extra = gumbel.read(game, path)
    man = net.manifest
    assert man["generation"] == 2 and man["games"] == 6 and man["cpu_minutes"] > 0
    for record in man["generations"]:
        assert record["command"].startswith("gemtable train splendor --method gumbel")
        assert record["simulations"] > 0 and record["rows"] > 0
        assert 0.0 <= record["vs_previous"] <= 1.0 and record["baseline"] == "random"
        assert record["loss_after"][0] > 0
        assert record["value_mix"] == 0.5 and record["workers"] == 1 and record["value"] == "network"
    assert {"adam_t", "replay_x", "replay_ids"} <= set(extra)
    # the network learned: early stopping kept training steps, and the policy head moved off zero
    assert int(extra["adam_t"][0]) == sum(r["kept_steps"] for r in man["generations"]) > 0
    assert np.any(net.weights["wp"] != 0)
    # the same command with --minutes continues the checkpoint: one more generation at least,
    # here with its games shared by two worker processes, searching with the learned evaluator
    out = _train("splendor", *GUMBEL_TINY, "--minutes", "0.001", "--seed", "3", "--jobs", "2", "--play-batch", "2",
                 "--value", "learned", "--out", str(path)).output
    assert "continuing" in out and "generation 3:" in out
    man = gumbel.read(game, path)[0].manifest
    assert man["games"] == 9 and man["generations"][-1]["workers"] == 2
    assert man["generations"][-1]["value"] == "learned"
    bot = make_bot(f"gumbel:simulations=4,weights={path}")
    state = game.new(2, 1)
    assert bot.choose(state, 0) in state.legal_actions(0)


def test_gumbel_training_continues_from_an_installed_network(tmp_path, monkeypatch):
    """A shipped network keeps its manifest, so a copy of it is a checkpoint to go on from on
    another machine: same generation counter and deal sequence, a fresh optimiser and an empty
    replay buffer."""
    from gemtable.bots import gumbel

    game = get_game("splendor")
    target = tmp_path / "policy-2p.npz"
    monkeypatch.setattr(gumbel, "shipped_path", lambda game, n=None: target if n == 2 else tmp_path / "no")
    path = tmp_path / "sp.npz"
    _train("splendor", *GUMBEL_TINY, "--seed", "3", "--out", str(path), "--install", "--install-players", "2")
    installed, extra = gumbel.read(game, target)
    assert extra == {} and installed.manifest["generation"] == 1 and installed.manifest["games"] == 3
    copy = tmp_path / "again.npz"
    copy.write_bytes(target.read_bytes())
    out = _train("splendor", *GUMBEL_TINY, "--seed", "3", "--out", str(copy)).output
    assert "continuing" in out and "generation 2:" in out
    net, extra = gumbel.read(game, copy)
    assert net.manifest["generation"] == 2 and net.manifest["games"] == 6
    assert int(extra["adam_t"][0]) == net.manifest["generations"][-1]["kept_steps"]
    # its second generation plays the same games as the original run's second generation, and
    # trains on a buffer that holds only those
    _train("splendor", *GUMBEL_TINY, "--seed", "3", "--out", str(path))
    first, second = (gumbel.read(game, p)[0].manifest["generations"][-1] for p in (path, copy))
    for key in ("first_game", "games", "decisions", "rows"):
        assert first[key] == second[key], key
    assert second["buffer_rows"] < first["buffer_rows"]


def test_gumbel_refusals(tmp_path):
    value = tmp_path / "value.npz"
    _train("splendor", "--games", "2", "--seed", "1", "--out", str(value))
    result = runner.invoke(app, ["train", "splendor", *GUMBEL_TINY, "--out", str(value)])
    assert result.exit_code != 0 and "policy-value" in result.output
    for args, words in ((["--method", "alpha"], "--method"), ([*GUMBEL_TINY, "--trainer", "tpu"], "--trainer"),
                        ([*GUMBEL_TINY, "--eval-bot", "nobody"], "unknown bot"),
                        ([*GUMBEL_TINY, "--value", "heuristic"], "--value"),
                        ([*GUMBEL_TINY, "--players", "7"], "player")):
        result = runner.invoke(app, ["train", "splendor", *args, "--out", str(tmp_path / "x.npz")])
        assert result.exit_code != 0 and words in result.output, (args, result.output)
        assert "Traceback" not in result.output
