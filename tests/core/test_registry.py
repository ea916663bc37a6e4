"""The registry of games, in the kernel."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import gemtable
from gemtable.core import registry
from gemtable.games import registry as compat


def test_every_game_package_is_found():
    games_dir = Path(gemtable.__file__).parent / "games"
    packages = {p.name for p in games_dir.iterdir() if (p / "__init__.py").is_file()}
    assert set(registry.all_games()) == packages
    assert registry.load_errors() == {}
    assert registry.game_ids() == sorted(packages)


def test_the_former_module_is_the_same_registry():
    assert compat.all_games is registry.all_games
    assert compat.get_game is registry.get_game
    assert compat.load_errors is registry.load_errors


def test_unknown_game_names_the_known_ones():
    with pytest.raises(KeyError, match="splendor"):
        registry.get_game("no-such-game")


def test_register_is_idempotent_and_refuses_a_taken_id():
    splendor = registry.get_game("splendor")
    assert registry.register(splendor) is splendor
    impostor = dataclasses.replace(splendor)
    with pytest.raises(ValueError, match="splendor"):
        registry.register(impostor)
    with pytest.raises(TypeError):
        registry.register("splendor")  # type: ignore[arg-type]
    assert registry.get_game("splendor") is splendor


def test_kernel_loads_no_game_until_one_is_needed():
    """Importing the kernel imports nothing above it; un-pickling an action of a game
    not yet loaded finds it through the registry."""
    game = registry.get_game("splendor")
    action = game.actions[3]
    script = (
        "import pickle, sys\n"
        "import gemtable.core\n"
        "above = ('gemtable.games', 'gemtable.bots', 'gemtable.analysis', 'gemtable.adapters',\n"
        "         'gemtable.server', 'gemtable.cli')\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(above))\n"
        "assert not loaded, loaded\n"
        "action = pickle.loads(sys.stdin.buffer.read())\n"
        "print(action.game_id, action.id, action.text)\n"
    )
    env = dict(os.environ)
    source_root = str(Path(gemtable.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH")) if p)
    result = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        input=pickle.dumps(action),
        capture_output=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout.decode().strip() == f"splendor {action.id} {action.text}"
