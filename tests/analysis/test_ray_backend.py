"""The Ray backend gives the same rows as the local process pool (local Ray instance)."""

import os
from pathlib import Path

import pytest

from gemtable.analysis import public_rows, run_games, tournament_specs

ray = pytest.importorskip("ray")

ROOT = str(Path(__file__).resolve().parents[2])


def test_ray_backend_matches_local_backend():
    specs = tournament_specs("tests.bots.toygame:GAME", ["random", "greedy", "mcts:iterations=4,rollout=2"], 4, seed=12)
    local = run_games(specs, jobs=1)
    path = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=1, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": path}},
             log_to_driver=False)
    try:
        seen = []
        remote = run_games(specs, backend="ray", progress=seen.append, batch=3)
    finally:
        ray.shutdown()
    assert remote.backend == "ray" and sum(seen) == len(specs)
    assert public_rows(remote.rows) == public_rows(local.rows)
