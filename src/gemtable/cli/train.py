"""``gemtable train``: a learned position evaluator for one game, from bot games, in NumPy.

Data: games between bots (``--bots``, the seats rotate through the list); every
decision gives one row per seat — that seat's own observation of the position —
labelled with its final share of the win and its final score margin.  Training:
Adam on minibatches over the new games (90 %); the other 10 % are held out: the
weights kept are those of the epoch with the lowest held-out loss (early stopping).

Self-play: a bot spec may name the weights being trained as ``weights=@``
(``--bots puct:iterations=50,weights=@``); with ``--generations G`` the run repeats
play-then-train G times, each generation's games played by the previous one's weights
(the first generation by the file's weights, or by the untrained model — which is
exactly the game's heuristic — when starting fresh).

Reproducible for a seed with a game budget (``--games``, per generation); ``--minutes``
caps the time spent generating games (then the number of games depends on the machine).
Resumable: when ``--out`` exists, its weights, input normalisation and optimiser
state are loaded and the next games continue the seed's sequence.

``--method gumbel`` trains the ``gumbel`` bot's policy-value network instead, by self-play
policy iteration (:mod:`gemtable.bots.selfplay`): each generation plays ``--games`` games
of the network's Gumbel search against itself, trains on a replay buffer of their
decisions and measures the new network against the one before and ``--eval-bot``.  Its
checkpoint (``--out``, default ``<game>-gumbel.npz``) holds the network, the optimiser,
the replay buffer and the generation counter and is written after every generation, so
``gemtable train GAME --method gumbel --minutes M`` continues where the last run stopped.
"""

from __future__ import annotations

import resource
import shlex
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import typer

from gemtable.core.i18n import msg, msgn
from gemtable.core.workers import follow_parent

from .lang import say
from .simulate import _fail, bot_list, check_bots, guarded


def _cpu_seconds() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _game_task(args):
    from gemtable.bots.learned import play_positions
    from gemtable.core.registry import get_game

    game_id, n, seed, specs, offset, positions, label = args
    return play_positions(get_game(game_id), n, seed, specs, offset, positions, label)


def _game_seed(seed: int, index: int) -> int:
    return (seed * 1_000_003 + index * 7_919 + 17) % (2 ** 31)


def play_all(progress, bar, run, tasks: list, jobs: int, deadline: float | None) -> list:
    """``run(task)`` for every task, in order (in ``jobs`` worker processes), advancing the
    progress ``bar``; once ``deadline`` (a ``time.perf_counter()``) has passed, no new task
    starts (after at least one result)."""
    results: list = []
    if jobs == 1:
        for task in tasks:
            if deadline is not None and results and time.perf_counter() >= deadline:
                break
            results.append(run(task))
            progress.advance(bar)
        return results
    with ProcessPoolExecutor(jobs, initializer=follow_parent) as pool:
        for i in range(0, len(tasks), jobs * 4):
            if deadline is not None and results and time.perf_counter() >= deadline:
                break
            for res in pool.map(run, tasks[i:i + jobs * 4]):
                results.append(res)
                progress.advance(bar)
    return results


def learnable_game(game_id: str):
    """The game, or a one-line error when it is unknown or has no observation features to
    learn from (``train`` and ``distill``)."""
    from gemtable.core.registry import get_game

    g = guarded(lambda: get_game(game_id))
    if g.observation_layout is None:
        _fail(say(msg("{game} has no observation features", game=say(msg(g.title), g.domains))))
    return g


def continuing(path: Path, games: int) -> str:
    """The line saying that a weights file is continued (``train`` and ``distill``)."""
    return say(msgn("continuing {path}: {n} games so far", "continuing {path}: {n} games so far", n=games,
                    path=str(path)))


def kept_after(kept: int, epochs: int) -> str:
    return say(msg("kept the weights after epoch {kept} of {epochs} (lowest held-out loss)", kept=kept,
                   epochs=epochs))


def wrote(path: Path, size: int) -> str:
    return say(msg("wrote {path} ({size} bytes)", path=str(path), size=size))


def installed(path: Path, size: int) -> str:
    return say(msg("installed {path} ({size} bytes)", path=str(path), size=size))


def progress_bar(console):
    """The progress bar of a training run: description, bar, games done, time so far."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console)


def _fresh_manifest(game, h1: int, h2: int, seed: int, inputs: str) -> dict:
    """The manifest of an untrained model (only read by self-play bots of the first generation)."""
    from gemtable.bots import learned

    return {"format": learned.FORMAT, "game": game.id, "layout_size": int(game.observation_layout.size),
            "layout_signature": learned.layout_signature(game), "input_size": learned.input_size(game),
            "hidden": [h1, h2], "inputs": inputs, "heads": ["win_logit", "margin"], "margin_scale": 1.0,
            "seed": seed,
            "games": 0, "cpu_minutes": 0.0, "runs": []}


def register(app: typer.Typer) -> None:
    @app.command()
    def train(
        game: str = typer.Argument(..., help="Game id (see `gemtable games`)."),
        games: int = typer.Option(200, "--games", "-n", min=1, help="Games of training data to play."),
        minutes: float | None = typer.Option(None, "--minutes", help="Stop playing games after this "
                                             "many minutes (wall clock; not reproducible)."),
        seed: int = typer.Option(0, "--seed", help="Seed of the games and of the training."),
        bots: list[str] = typer.Option(["greedy:epsilon=0.1,greedy:epsilon=0.25"], "--bots", "-b",
                                       help="Bots that play the data games (seats rotate through them)."),
        players: str = typer.Option("", "--players", "-p",
                                    help="Player counts, comma separated (default: every count of the game)."),
        positions: int = typer.Option(0, "--positions", min=0, help="Decisions kept per game "
                                      "(0: all); fewer per game from more games generalises better."),
        epochs: int = typer.Option(8, "--epochs", min=1, help="Passes over the new data."),
        hidden: str | None = typer.Option(None, "--hidden", help="Widths of the two hidden layers "
                                          "(default 32,16; 128,128 with --method gumbel)."),
        inputs: str = typer.Option("context", "--inputs", help="What the network reads: 'context' (the "
                                   "game's value features, heuristic and turn entries) or 'all' (also the "
                                   "seat's whole observation; needs far more games)."),
        lr: float = typer.Option(1e-3, "--lr", help="Adam learning rate."),
        l2: float = typer.Option(1e-4, "--l2", help="Weight decay of the weight matrices."),
        batch: int = typer.Option(256, "--batch", min=1, help="Minibatch size."),
        out: Path | None = typer.Option(None, "--out", help="Weights file (.npz); continued if it exists "
                                        "(default: <game>-value.npz)."),
        early_stop: bool = typer.Option(True, "--early-stop/--no-early-stop",
                                        help="Keep the epoch with the lowest held-out loss (else the last)."),
        fresh: bool = typer.Option(False, "--fresh", help="Start over even if --out exists."),
        install: bool = typer.Option(False, "--install", help="Also write the weights (without optimiser "
                                     "state) into the game's package as value.npz, used by the puct bot."),
        install_players: int | None = typer.Option(None, "--install-players", min=1, help="With --install: "
                                                   "write the model of this table size only (value-<n>p.npz); "
                                                   "other table sizes keep value.npz."),
        jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Worker processes playing the games."),
        generations: int | None = typer.Option(None, "--generations", "-g", min=1, help="Play-then-train "
                                               "rounds (default 1); bots with weights=@ play with the weights "
                                               "of the round before.  With --method gumbel: generations to add "
                                               "(default: 1, or as many as --minutes allows)."),
        label_bot: str | None = typer.Option(None, "--label-bot", help="A search bot (e.g. "
                                             "'puct:iterations=200') that also judges every kept position "
                                             "of a two-player game from the mover's view; its verdict is "
                                             "blended into the win targets (weights=@ as in --bots)."),
        result_weight: float = typer.Option(0.5, "--result-weight", min=0.0, max=1.0, help="With "
                                            "--label-bot: the weight of the game's result in a win target "
                                            "(the rest is the search's value)."),
        method: str = typer.Option("value", "--method", help="'value': the evaluator of the puct bot, from "
                                   "bot games; 'gumbel': the policy-value network of the gumbel bot, by "
                                   "self-play policy iteration (the options below)."),
        simulations: int = typer.Option(32, "--simulations", min=1, help="[gumbel] Simulations per move."),
        buffer: int = typer.Option(50_000, "--buffer", min=1, help="[gumbel] Replay buffer rows kept."),
        steps: int = typer.Option(0, "--steps", min=0, help="[gumbel] Training steps per generation "
                                  "(0: two passes over the generation's new rows)."),
        eval_games: int = typer.Option(4, "--eval-games", min=0, help="[gumbel] Games of each new generation "
                                       "against the previous one and against --eval-bot (seats alternate)."),
        eval_bot: str = typer.Option("hard", "--eval-bot", help="[gumbel] The baseline bot each generation "
                                     "is measured against."),
        trainer: str = typer.Option("auto", "--trainer", help="[gumbel] 'numpy', 'torch' (PyTorch, on a GPU "
                                    "where there is one) or 'auto' (torch where installed)."),
        play_batch: int = typer.Option(64, "--play-batch", min=1, help="[gumbel] Self-play games advanced "
                                       "together (their positions judged in one batch); with --jobs, "
                                       "each worker plays chunks of this many games."),
        value_mix: float = typer.Option(0.0, "--value-mix", min=0.0, max=1.0, help="[gumbel] The search's "
                                        "own value's share in the value targets (the rest is the game's "
                                        "result)."),
        value: str = typer.Option("network", "--value", help="[gumbel] What judges the search's "
                                  "positions: 'network' (its value head) or 'learned' (the learned "
                                  "evaluator the game ships, as the gumbel bot's value=learned)."),
    ) -> None:
        """Train the game's learned evaluator (used by the `puct` bot), or with --method gumbel the
        policy-value network of the `gumbel` bot."""
        from rich.console import Console

        from gemtable.bots import learned

        console = Console(stderr=True)
        g = learnable_game(game)
        if method == "gumbel":
            _train_gumbel(g, games, minutes, seed, players, hidden, lr, l2, batch, out, fresh, install,
                          install_players, jobs, generations, simulations, buffer, steps, eval_games, eval_bot,
                          trainer, play_batch, value_mix, value)
            return
        if method != "value":
            _fail(say(msg("--method must be 'value' or 'gumbel'")))
        hidden = hidden or "32,16"
        generations = generations or 1
        specs = bot_list(bots)
        guarded(lambda: check_bots(specs))
        if label_bot is not None:
            from gemtable.bots.base import make_bot
            from gemtable.bots.mcts import MctsBot

            if not isinstance(guarded(lambda: make_bot(label_bot)), MctsBot):  # (weights are read when it plays)
                _fail(say(msg("--label-bot must be a search bot (mcts or puct)")))
        counts = [int(c) for c in players.split(",") if c.strip()] or list(g.player_counts)
        if install_players is not None:
            if not install:
                _fail(say(msg("--install-players needs --install")))
            guarded(lambda: g.check_players(install_players))
        for c in counts:
            guarded(lambda c=c: g.check_players(c))
        try:
            h1, h2 = (int(v) for v in hidden.split(","))
        except ValueError:
            _fail(say(msg("--hidden must be two widths, e.g. 128,64")))
        path = out or Path(f"{g.id}-value.npz")
        learned.limit_blas_threads(jobs)
        cpu0 = _cpu_seconds()
        t0 = time.perf_counter()

        # -- resume or start -------------------------------------------------------------
        extra: dict[str, np.ndarray] = {}
        manifest: dict = {}
        if path.exists() and not fresh:
            model, extra = guarded(lambda: learned.read(g, path))
            weights, manifest = dict(model.weights), dict(model.manifest)
            if tuple(manifest["hidden"]) != (h1, h2):
                console.print("[yellow]" + say(msg("{path} has hidden layers {hidden}; keeping them", path=str(path),
                                                   hidden=str(manifest["hidden"]))) + "[/]")
                h1, h2 = manifest["hidden"]
            inputs = manifest.get("inputs", "all")
            if manifest.get("seed") != seed:
                console.print("[yellow]" + say(msg("{path} was started with seed {old}; continuing its sequence "
                                                   "with seed {seed}", path=str(path), old=str(manifest.get("seed")),
                                                   seed=seed)) + "[/]")
            console.print(continuing(path, manifest.get("games", 0)))
        else:
            weights = guarded(lambda: learned.init_weights(g, (h1, h2), np.random.default_rng(seed), inputs))
        self_play = any("weights=@" in spec for spec in specs + [label_bot or ""])
        scratch = tempfile.TemporaryDirectory(prefix="gemtable-train-")
        for generation in range(generations):
            if self_play:  # the weights of the round before (the untrained model at the very start)
                current = Path(scratch.name) / f"generation-{generation}.npz"
                learned.ValueModel(g, weights, manifest or _fresh_manifest(g, h1, h2, seed, inputs)).save(current)
                def at(spec: str, current: Path = current) -> str:
                    return spec.replace("weights=@", f"weights={current}")

                gen_specs, gen_label = [at(spec) for spec in specs], label_bot and at(label_bot)
            else:
                gen_specs, gen_label = specs, label_bot
            if generations > 1:
                console.print(say(msg("generation {number} of {count}", number=generation + 1, count=generations)))
            first = int(manifest.get("games", 0))

            # -- play the games --------------------------------------------------------------
            label = None if gen_label is None else (gen_label, result_weight)
            tasks = [(g.id, counts[(first + i) % len(counts)], _game_seed(seed, first + i), gen_specs, first + i,
                      positions, label) for i in range(games)]
            deadline = None if minutes is None else t0 + 60 * minutes
            with progress_bar(console) as progress:
                bar = progress.add_task(say(msg("{game}: playing", game=g.id)), total=len(tasks))
                results = play_all(progress, bar, _game_task, tasks, jobs, deadline)
                played = len(results)
                hold = max(1, played // 10) if played >= 2 else 0
                train_part, val_part = results[:played - hold], results[played - hold:]
                x = np.concatenate([r[0] for r in train_part])
                yw = np.concatenate([r[1] for r in train_part])
                ym_raw = np.concatenate([r[2] for r in train_part])
                if not manifest:
                    learned.fit_normalisation(weights, x)
                    margin_scale = float(max(1.0, np.abs(ym_raw).mean()))
                else:
                    margin_scale = float(manifest["margin_scale"])
                ym = ym_raw / margin_scale
                trainer = learned.Trainer(weights, lr=lr, l2=l2)
                trainer.restore(extra)
                rng = np.random.default_rng([seed, first])
                if val_part:
                    vx = np.concatenate([r[0] for r in val_part])
                    vyw = np.concatenate([r[1] for r in val_part])
                    vym = np.concatenate([r[2] for r in val_part]) / margin_scale
                # early stopping: keep the epoch whose held-out win log-loss is lowest
                best = (trainer.losses(vx, vyw, vym)[0], 0, trainer.snapshot()) if val_part and early_stop else None
                ebar = progress.add_task(say(msg("{game}: training on {rows} rows", game=g.id, rows=len(x))),
                                         total=epochs)
                for e in range(epochs):
                    trainer.epoch(x, yw, ym, rng, batch)
                    if best is not None:
                        loss = trainer.losses(vx, vyw, vym)[0]
                        if loss < best[0]:
                            best = (loss, e + 1, trainer.snapshot())
                    progress.advance(ebar)
                kept_epochs = epochs
                if best is not None and best[1] < epochs:
                    trainer.restore_snapshot(best[2])
                    kept_epochs = best[1]

            # -- report and save ---------------------------------------------------------------
            cpu = (_cpu_seconds() - cpu0) / 60
            train_loss = trainer.losses(x, yw, ym)
            val = trainer.losses(vx, vyw, vym) if val_part else None
            history = list(manifest.get("runs", []))
            history.append({"command": "gemtable train " + " ".join(shlex.quote(a) for a in sys.argv[2:])
                            if sys.argv[1:2] == ["train"] else f"gemtable train {g.id}",
                            "seed": seed, "games": played, "first_game": first, "bots": specs,
                            "label_bot": label_bot, "result_weight": result_weight if label_bot else None,
                            "players": counts, "positions": positions, "epochs": epochs, "kept_epochs": kept_epochs, "lr": lr, "l2": l2, "batch": batch,
                            "rows": len(x), "cpu_minutes": round(cpu, 3),
                            "train": [round(v, 5) for v in train_loss],
                            "validation": None if val is None else [round(v, 5) for v in val]})
            manifest = {
                "format": learned.FORMAT, "game": g.id, "layout_size": int(g.observation_layout.size),
                "layout_signature": learned.layout_signature(g), "input_size": learned.input_size(g),
                "hidden": [h1, h2], "inputs": inputs, "heads": ["win_logit", "margin"],
                "margin_scale": margin_scale,
                "seed": manifest.get("seed", seed), "games": first + played,
                "cpu_minutes": round(float(manifest.get("cpu_minutes", 0.0)) + cpu, 3), "runs": history,
            }
            model = learned.ValueModel(g, trainer.w, manifest)
            size = model.save(path, trainer.state())
            out_console = Console()
            # (the English says "games" for one too, as it always has)
            out_console.print(say(msgn("{n} games, {rows} training rows, {cpu} CPU minutes (total {total} games, "
                                       "{total_cpu} CPU minutes)",
                                       "{n} games, {rows} training rows, {cpu} CPU minutes (total {total} games, "
                                       "{total_cpu} CPU minutes)", n=played, rows=len(x), cpu=f"{cpu:.2f}",
                                       total=manifest["games"], total_cpu=f"{manifest['cpu_minutes']:.2f}")))
            if best is not None:
                out_console.print(kept_after(kept_epochs, epochs))
            out_console.print(say(msg("train: win log-loss {loss}, margin mse {mse}, side right {right}",
                                      loss=f"{train_loss[0]:.4f}", mse=f"{train_loss[1]:.4f}",
                                      right=f"{train_loss[2]:.1%}")))
            if val is not None:
                out_console.print(say(msgn("held out ({n} games): win log-loss {loss}, margin mse {mse}, "
                                           "side right {right}",
                                           "held out ({n} games): win log-loss {loss}, margin mse {mse}, "
                                           "side right {right}", n=hold, loss=f"{val[0]:.4f}",
                                           mse=f"{val[1]:.4f}", right=f"{val[2]:.1%}")))
            out_console.print(wrote(path, size))
            if install:
                target = Path(str(learned.shipped_path(g, install_players)))
                size = model.save(target)
                out_console.print(installed(target, size))
            weights, extra = dict(trainer.w), trainer.state()
            cpu0 = _cpu_seconds()
            t0 = time.perf_counter()
        scratch.cleanup()


def _train_gumbel(g, games, minutes, seed, players, hidden, lr, l2, batch, out, fresh, install, install_players,
                  jobs, generations, simulations, buffer, steps, eval_games, eval_bot, trainer, play_batch,
                  value_mix, value) -> None:
    """``gemtable train GAME --method gumbel``: self-play policy iteration (see the module docstring)."""
    from rich.console import Console

    from gemtable.bots import gumbel, learned, selfplay
    from gemtable.bots.base import make_bot

    counts = [int(c) for c in players.split(",") if c.strip()] or [min(g.player_counts)]
    for c in counts:
        guarded(lambda c=c: g.check_players(c))
    if install_players is not None:
        if not install:
            _fail(say(msg("--install-players needs --install")))
        guarded(lambda: g.check_players(install_players))
    if eval_games:
        guarded(lambda: make_bot(eval_bot))
    if value not in gumbel.VALUES:
        _fail(say(msg("--value must be 'network' or 'learned'")))
    try:
        h1, h2 = (int(v) for v in (hidden or "128,128").split(","))
    except ValueError:
        _fail(say(msg("--hidden must be two widths, e.g. 128,64")))
    guarded(lambda: selfplay.torch_device(trainer))
    path = out or Path(f"{g.id}-gumbel.npz")
    learned.limit_blas_threads(jobs)
    settings = selfplay.Settings(games=games, simulations=simulations, players=tuple(counts), hidden=(h1, h2),
                                 lr=lr, l2=l2, batch=batch, steps=steps, buffer=buffer, eval_games=eval_games,
                                 eval_bot=eval_bot, seed=seed, trainer=trainer, play_batch=play_batch,
                                 value_mix=value_mix, jobs=jobs, value=value)
    if generations is None and minutes is None:
        generations = 1
    command = ("gemtable train " + " ".join(shlex.quote(a) for a in sys.argv[2:])
               if sys.argv[1:2] == ["train"] else f"gemtable train {g.id} --method gumbel")
    out_console = Console()
    try:
        manifest = selfplay.train(g, path, settings, generations, minutes, fresh, command,
                                  log=lambda message: out_console.print(say(message)))
    except learned.WeightsMismatch as exc:
        _fail(f"{path}: {exc}")
    out_console.print(say(msgn("{n} generations, {games} games, {cpu} CPU minutes in all",
                               "{n} generations, {games} games, {cpu} CPU minutes in all", n=manifest["generation"],
                               games=manifest["games"], cpu=f"{manifest['cpu_minutes']:.2f}")))
    if install:
        target, size = selfplay.install(g, path, install_players)
        out_console.print(installed(target, size))
