"""``gemtable distill``: a priors network for one game and table size, in NumPy.

The network (:mod:`gemtable.bots.priors`) learns the one-ply values ``puct`` computes when
it seeds a node, from the game's shipped value model at that table size, so the search can
seed the nodes below the root from one forward pass.  Data: games between bots
(``--bots``, seats rotating through the list); at every decision with a choice, one
example (the mover's input row, its legal actions and their one-ply values).  Training:
Adam on minibatches over 90 % of the games, the other 10 % held out; the weights of the
epoch with the lowest held-out loss are kept.

Reproducible for a seed with a game budget (``--games``); ``--minutes`` caps the time spent
playing.  Resumable: when ``--out`` exists (and was learned from the same value model), its
weights, normalisation and optimiser state are loaded and the next games continue the
seed's sequence.
"""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

import numpy as np
import typer

from gemtable.core.i18n import msg, msgn

from .lang import say
from .simulate import _fail, bot_list, check_bots, guarded
from .train import (
    _cpu_seconds,
    _game_seed,
    continuing,
    installed,
    kept_after,
    learnable_game,
    play_all,
    progress_bar,
    wrote,
)


def _task(args):
    from gemtable.bots.priors import positions
    from gemtable.core.registry import get_game

    game_id, n, seed, specs, offset = args
    return positions(get_game(game_id), n, seed, specs, offset)


def register(app: typer.Typer) -> None:
    @app.command()
    def distill(
        game: str = typer.Argument(..., help="Game id (see `gemtable games`)."),
        players: int = typer.Option(2, "--players", "-p", help="Table size: the value model learned from is "
                                    "the one the game ships for it."),
        games: int = typer.Option(200, "--games", "-n", min=1, help="Games of training data to play."),
        minutes: float | None = typer.Option(None, "--minutes", help="Stop playing games after this "
                                             "many minutes (the run is then not reproducible)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the games and of the training."),
        bots: list[str] = typer.Option(["greedy:epsilon=0.1,greedy:epsilon=0.25"], "--bots", "-b",
                                       help="Bots playing the data games (seats rotate through the list)."),
        hidden: int = typer.Option(128, "--hidden", min=1, help="Width of the hidden layer."),
        epochs: int = typer.Option(10, "--epochs", min=1, help="Passes over the new data."),
        lr: float = typer.Option(1e-3, "--lr", help="Adam learning rate."),
        l2: float = typer.Option(1e-5, "--l2", help="Weight decay of the weight matrices."),
        batch: int = typer.Option(256, "--batch", min=1, help="Minibatch size."),
        out: Path | None = typer.Option(None, "--out", help="Weights file (.npz); continued if it exists "
                                        "(default: GAME-priors-Np.npz)."),
        fresh: bool = typer.Option(False, "--fresh", help="Start over even if --out exists."),
        install: bool = typer.Option(False, "--install", help="Also write the weights (without optimiser "
                                     "state) into the game's package as priors-Np.npz."),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes playing the games."),
    ) -> None:
        """Learn a priors network: puct's one-ply values in one forward pass."""
        from rich.console import Console

        from gemtable.bots import learned, priors
        from gemtable.bots.puct import PuctBot

        console = Console(stderr=True)
        g = learnable_game(game)
        guarded(lambda: g.check_players(players))
        value = learned.shipped(g, players)
        if value is None:
            _fail(say(msg("{game} ships no value model to learn priors from (see `gemtable train`)",
                          game=say(msg(g.title), g.domains))))
        specs = bot_list(bots)
        guarded(lambda: check_bots(specs))
        temperature = PuctBot().temperature  # the search's softmax temperature (no spec changes it here)
        path = out or Path(f"{g.id}-priors-{players}p.npz")
        learned.limit_blas_threads(jobs)
        cpu0, t0 = _cpu_seconds(), time.perf_counter()

        extra: dict[str, np.ndarray] = {}
        if path.exists() and not fresh:
            model, extra = guarded(lambda: priors.read(g, path))
            if model.teacher != value.fingerprint():
                _fail(say(msg("{path} was learned from other value weights than {game} ships now; use --fresh",
                              path=str(path), game=g.id)))
            weights, manifest = dict(model.weights), dict(model.manifest)
            hidden = int(manifest["hidden"])
            console.print(continuing(path, manifest.get("games", 0)))
        else:
            weights = priors.init_weights(g, hidden, np.random.default_rng(seed))
            manifest = priors.new_manifest(g, hidden, value.fingerprint(), temperature, seed)
        first = int(manifest.get("games", 0))
        tasks = [(g.id, players, _game_seed(seed, first + i), specs, first + i) for i in range(games)]
        deadline = None if minutes is None else t0 + 60 * minutes
        with progress_bar(console) as progress:
            bar = progress.add_task(say(msg("{game}: playing", game=g.id)), total=len(tasks))
            results = play_all(progress, bar, _task, tasks, jobs, deadline)
            played = len(results)
            hold = max(1, played // 10) if played >= 2 else 0

            def stack(part: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
                x = np.concatenate([r[0] for r in part])
                mask, target = priors.dense(np.concatenate([r[1] for r in part]), np.concatenate([r[2] for r in part]),
                                            np.concatenate([r[3] for r in part]), len(g.actions))
                return x, mask, target

            x, mask, target = stack(results[:played - hold])
            if len(x) == 0:
                _fail(say(msg("the games gave no decision with a choice to learn from")))
            if not manifest["games"]:
                learned.fit_normalisation(weights, x)
            trainer = priors.Trainer(weights, temperature, lr=lr, l2=l2)
            trainer.restore(extra)
            rng = np.random.default_rng([seed, first])
            val = stack(results[played - hold:]) if hold else None
            if val is not None and len(val[0]) == 0:
                val = None
            best = (sum(trainer.losses(*val)[:2]), 0, dict(trainer.w), trainer.state()) if val else None
            ebar = progress.add_task(say(msg("{game}: training on {positions} positions", game=g.id,
                                             positions=len(x))), total=epochs)
            for e in range(epochs):
                trainer.epoch(x, mask, target, rng, batch)
                if best is not None:
                    loss = sum(trainer.losses(*val)[:2])
                    if loss < best[0]:
                        best = (loss, e + 1, {k: v.copy() for k, v in trainer.w.items()},
                                {k: v.copy() for k, v in trainer.state().items()})
                progress.advance(ebar)
            kept = epochs
            if best is not None and best[1] < epochs:
                trainer.w = best[2]
                trainer.restore(best[3])
                kept = best[1]

        cpu = (_cpu_seconds() - cpu0) / 60
        train_loss = trainer.losses(x, mask, target)
        val_loss = trainer.losses(*val) if val is not None else None
        runs = list(manifest.get("runs", []))
        runs.append({"command": "gemtable distill " + " ".join(shlex.quote(a) for a in sys.argv[2:])
                     if sys.argv[1:2] == ["distill"] else f"gemtable distill {g.id}",
                     "seed": seed, "players": players, "games": played, "first_game": first, "bots": specs,
                     "positions": len(x), "epochs": epochs, "kept_epochs": kept, "lr": lr, "l2": l2,
                     "batch": batch, "cpu_minutes": round(cpu, 3),
                     "train": [round(v, 5) for v in train_loss],
                     "validation": None if val_loss is None else [round(v, 5) for v in val_loss]})
        manifest.update({"games": first + played, "positions": int(manifest.get("positions", 0)) + len(x),
                         "cpu_minutes": round(float(manifest.get("cpu_minutes", 0.0)) + cpu, 3), "runs": runs})
        model = priors.PriorModel(g, trainer.w, manifest)
        size = model.save(path, trainer.state())
        out = Console()
        # (the English says "games" for one too, as it always has)
        out.print(say(msgn("{n} games, {positions} positions, {cpu} CPU minutes (total {total} games, "
                           "{total_cpu} CPU minutes)",
                           "{n} games, {positions} positions, {cpu} CPU minutes (total {total} games, "
                           "{total_cpu} CPU minutes)", n=played, positions=len(x), cpu=f"{cpu:.2f}",
                           total=manifest["games"], total_cpu=f"{manifest['cpu_minutes']:.2f}")))
        if best is not None:
            out.print(kept_after(kept, epochs))
        out.print(say(msg("train: value mse {mse}, prior KL {kl}, best action agreed {agreed}",
                          mse=f"{train_loss[0]:.5f}", kl=f"{train_loss[1]:.4f}", agreed=f"{train_loss[2]:.1%}")))
        if val_loss is not None:
            out.print(say(msgn("held out ({n} games): value mse {mse}, prior KL {kl}, best action agreed {agreed}",
                               "held out ({n} games): value mse {mse}, prior KL {kl}, best action agreed {agreed}",
                               n=hold, mse=f"{val_loss[0]:.5f}", kl=f"{val_loss[1]:.4f}",
                               agreed=f"{val_loss[2]:.1%}")))
        out.print(wrote(path, size))
        if install:
            target_path = Path(str(priors.shipped_path(g, players)))
            size = model.save(target_path)
            priors._SHIPPED.clear()
            out.print(installed(target_path, size))
