"""``gemtable distill``: a tiny end-to-end run, reproducibility, resuming, refusals, --install."""

from __future__ import annotations

import numpy as np
import pytest

from gemtable.bots import learned, priors
from gemtable.cli.main import app
from gemtable.games.registry import get_game

from .test_train import _arrays, runner


def _distill(*args):
    result = runner.invoke(app, ["distill", *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """``gemtable distill sintra --games 4 --seed 1 --hidden 16``, twice from scratch."""
    folder = tmp_path_factory.mktemp("distill")
    a, b = folder / "a.npz", folder / "b.npz"
    args = ["sintra", "--games", "4", "--seed", "1", "--hidden", "16", "--epochs", "3"]
    out = _distill(*args, "--out", str(a)).output
    _distill(*args, "--out", str(b))
    return a, b, out


def test_tiny_distillation_runs_end_to_end(tiny):
    a, _, output = tiny
    game = get_game("sintra")
    net, extra = priors.read(game, a)
    man = net.manifest
    assert man["game"] == "sintra" and man["games"] == 4 and man["seed"] == 1 and man["hidden"] == 16
    assert man["teacher"] == learned.shipped(game, 2).fingerprint()
    assert man["cpu_minutes"] > 0 and man["positions"] > 100 and man["runs"][0]["players"] == 2
    assert "adam_t" in extra
    assert "4 games" in output and "best action agreed" in output and "wrote" in output
    assert net.action_values(np.zeros(learned.input_size(game), np.float32)).shape == (len(game.actions),)


def test_same_seed_gives_identical_weights(tiny):
    a, b, _ = tiny
    wa, wb = _arrays(a), _arrays(b)
    assert wa.keys() == wb.keys()
    for key in wa:
        assert wa[key].tobytes() == wb[key].tobytes(), key


def test_distillation_resumes_from_its_output(tiny, tmp_path):
    a, _, _ = tiny
    path = tmp_path / "w.npz"
    path.write_bytes(a.read_bytes())
    out = _distill("sintra", "--games", "2", "--seed", "1", "--epochs", "1", "--out", str(path)).output
    assert "continuing" in out
    man = priors.load(get_game("sintra"), path).manifest
    assert man["games"] == 6 and [r["first_game"] for r in man["runs"]] == [0, 4]


def test_install_writes_the_table_sizes_file_without_optimiser_state(tiny, tmp_path, monkeypatch):
    a, _, _ = tiny
    monkeypatch.setattr(priors, "shipped_path", lambda game, n=None: tmp_path / priors.shipped_name(n))
    monkeypatch.setattr(priors, "_SHIPPED", {})
    path = tmp_path / "w.npz"
    path.write_bytes(a.read_bytes())
    _distill("sintra", "--games", "1", "--seed", "1", "--epochs", "1", "--out", str(path), "--install")
    installed, extra = priors.read(get_game("sintra"), tmp_path / "priors-2p.npz")
    assert extra == {} and installed.manifest["games"] == 5
    assert priors.shipped(get_game("sintra"), 2).fingerprint() == installed.fingerprint()


def test_a_network_learned_from_other_value_weights_is_not_continued(tiny, tmp_path):
    a, _, _ = tiny
    net, extra = priors.read(get_game("sintra"), a)
    manifest = dict(net.manifest, teacher="0" * 16)
    path = tmp_path / "old.npz"
    priors.PriorModel(get_game("sintra"), net.weights, manifest).save(path, extra)
    result = runner.invoke(app, ["distill", "sintra", "--games", "1", "--out", str(path)])
    assert result.exit_code != 0 and "other value weights" in result.output


@pytest.mark.parametrize("args, message", [
    (["nosuchgame"], "nosuchgame"),
    (["sintra", "--players", "7"], "player"),
    (["sintra", "--bots", "nosuchbot"], "nosuchbot"),
])
def test_refusals(tmp_path, args, message):
    result = runner.invoke(app, ["distill", *args, "--games", "1", "--out", str(tmp_path / "w.npz")])
    assert result.exit_code != 0 and message in result.output
    assert not (tmp_path / "w.npz").exists()
