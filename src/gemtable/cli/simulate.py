"""``gemtable simulate``: many self-play games between bots, in parallel processes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from gemtable.core.i18n import msg

from .lang import language, say


def parse_options(items: list[str] | None) -> dict[str, Any]:
    """``["palace_side=B", "draft=tactical"]`` → dict (values validated by the game).

    Raises OptionError for an item that is not ``name=value`` (every command that
    takes ``--option`` uses this)."""
    from gemtable.core import OptionError

    out: dict[str, Any] = {}
    for item in items or []:
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise OptionError(msg("option {item} must look like name=value", item=repr(item)))
        out[name.strip()] = value.strip()
    return out


def bot_list(values: list[str] | None) -> list[str]:
    from gemtable.bots import split_specs

    specs: list[str] = []
    for value in values or []:
        specs.extend(split_specs(value))
    return specs


def check_bots(specs: list[str]) -> None:
    """Build each bot spec once, so unknown bots and parameters fail here, not in a worker."""
    from gemtable.bots import make_bot

    for spec in set(specs):
        make_bot(spec)


JOURNAL_HELP = ("Append each finished game to this JSON-lines file; the same command run again "
                "with it plays only the games it does not hold yet (a killed run goes on where it stopped).")


def run_with_progress(specs, jobs, backend, address, description: str, journal: Path | None = None):
    """run_games with a Rich progress bar (with ETA) on stderr.

    When stderr is not a terminal (a log file, CI) a plain line is printed at every
    tenth of the run instead, with the elapsed time and the ETA.  ``journal``: see
    :func:`gemtable.analysis.runner.read_journal` (a file that does not fit is refused
    with a one-line error before anything is played).
    """
    import time

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from gemtable.analysis import run_games
    from gemtable.analysis.runner import read_journal

    console = Console(stderr=True)
    total = len(specs)
    if journal is not None:
        held = len(guarded(lambda: read_journal(journal, specs)))
        if held:
            console.print(say(msg("{journal}: {held} of {total} games already played", journal=str(journal),
                                  held=held, total=total)))
    if not console.is_terminal:
        start = time.perf_counter()
        state = {"done": 0, "next": max(1, total // 10)}

        def report(k: int) -> None:
            state["done"] += k
            if state["done"] >= state["next"] or state["done"] == total:
                elapsed = time.perf_counter() - start
                eta = elapsed / state["done"] * (total - state["done"])
                console.print(say(msg("{what}: {done}/{total} games, {elapsed} s elapsed, ETA {eta} s",
                                      what=description, done=state["done"], total=total,
                                      elapsed=f"{elapsed:.0f}", eta=f"{eta:.0f}")))
                state["next"] = state["done"] + max(1, total // 10)

        return run_games(specs, jobs=jobs, backend=backend, address=address, progress=report, journal=journal)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TextColumn(say(msg("ETA"))), TimeRemainingColumn(),
                  console=console, transient=False) as progress:
        task = progress.add_task(description, total=total)
        return run_games(specs, jobs=jobs, backend=backend, address=address,
                         progress=lambda k: progress.advance(task, k), journal=journal)


def _fail(message: str) -> None:
    typer.echo(f"{say(msg('error:'))} {message}", err=True)
    raise typer.Exit(2)


def guarded(fn: Callable[[], Any]) -> Any:
    """Turn user mistakes (unknown game, bot, option…) into a one-line error."""
    from gemtable.core import GemtableError

    try:
        return fn()
    except GemtableError as exc:
        _fail(say(exc))
    except (ValueError, KeyError, ImportError, AttributeError) as exc:
        text = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        _fail(str(text))


def took(result, backend: bool = True) -> str:
    """How long a run took, in this run's language: "412 games in 3.1 s (local, 2 jobs)"."""
    if backend:
        return say(msg("{took} ({backend}, {jobs} jobs)", took=result.took(language()), backend=result.backend,
                       jobs=result.jobs))
    return say(msg("{took} ({jobs} jobs)", took=result.took(language()), jobs=result.jobs))


def register(app: typer.Typer) -> None:
    @app.command()
    def simulate(
        game: str = typer.Argument(..., help="Game id (see `gemtable games`)."),
        n: int = typer.Option(100, "-n", "--games", min=1, help="Number of games."),
        players: int | None = typer.Option(None, "--players", "-p", help="Seats (default: 2 if allowed)."),
        bots: list[str] = typer.Option(["random"], "--bots", "-b",
                                       help="Bots in seat order, comma separated, cycled over the seats: "
                                            "random,greedy,mcts:iterations=200"),
        jobs: int | None = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
        seed: int = typer.Option(0, "--seed", help="Run seed; game i's seed is derived from it."),
        out: Path | None = typer.Option(None, "--out", help="Write per-game rows to a .csv or .json file."),
        option: list[str] = typer.Option([], "--option", "-o", help="Game option name=value (repeatable)."),
        backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
        address: str | None = typer.Option(None, "--address", help="Ray cluster address (backend ray)."),
        journal: Path | None = typer.Option(None, "--journal", help=JOURNAL_HELP),
    ) -> None:
        """Self-play GAME between bots; win rate per seat with 95% intervals, scores, game length."""
        from rich.console import Console

        from gemtable.analysis import resolve_game, simulate_specs, simulate_summary
        from gemtable.analysis.output import write_results
        from gemtable.analysis.summary import simulate_tables

        g = guarded(lambda: resolve_game(game))
        count = players or (2 if 2 in g.player_counts else min(g.player_counts))
        specs_list = bot_list(bots)
        opts = guarded(lambda: parse_options(option))

        def build():
            check_bots(specs_list)
            return simulate_specs(game, n, specs_list, count, seed, opts)

        specs = guarded(build)
        result = run_with_progress(specs, jobs, backend, address, f"{g.id} ×{n}", journal)
        summary = simulate_summary(result.rows, result.timing)
        summary.update({"game": g.id, "players": count, "seed": seed, "options": opts,
                        "bots": list(specs[0].bots), **result.fields()})
        console = Console()
        title = say(msg("{game}: {n} games, {players} players, seed {seed}", game=say(msg(g.title), g.domains),
                        n=n, players=count, seed=seed))
        for table in simulate_tables(summary, title, lang=language()):
            console.print(table)
        console.print(took(result))
        if out is not None:
            for path in guarded(lambda: write_results(out, result.rows, summary)):
                console.print(say(msg("wrote {path}", path=str(path))))
