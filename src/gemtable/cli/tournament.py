"""``gemtable tournament``: bots against each other with seat rotation, ratings and plots."""

from __future__ import annotations

from pathlib import Path

import typer

from gemtable.core.i18n import msg

from .lang import language, say
from .simulate import JOURNAL_HELP, bot_list, check_bots, guarded, parse_options, run_with_progress, took


def register(app: typer.Typer) -> None:
    @app.command()
    def tournament(
        game: str = typer.Argument(..., help="Game id (see `gemtable games`)."),
        bots: list[str] = typer.Option(..., "--bots", "-b",
                                       help="Entrants, comma separated or repeated: "
                                            "random,greedy,mcts:iterations=400"),
        n: int = typer.Option(100, "-n", "--games", min=1, help="Games per pairing (lineup)."),
        players: int = typer.Option(2, "--players", "-p", help="Seats per game."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
        seed: int = typer.Option(0, "--seed", help="Tournament seed (deals derive from it)."),
        backend: str = typer.Option("local", "--backend", help="local (process pool) or ray."),
        address: str | None = typer.Option(None, "--address", help="Ray cluster address, e.g. ray://host:10001."),
        out: Path | None = typer.Option(None, "--out", help="Per-game rows to .csv (+ .summary.csv) or .json."),
        plots: Path | None = typer.Option(None, "--plots", help="Folder for PNG plots."),
        option: list[str] = typer.Option([], "--option", "-o", help="Game option name=value (repeatable)."),
        journal: Path | None = typer.Option(None, "--journal", help=JOURNAL_HELP),
    ) -> None:
        """Round robin between bots: N games per lineup, seats rotated, deals shared per rotation."""
        from rich.console import Console

        from gemtable.analysis import resolve_game, tournament_specs, tournament_summary
        from gemtable.analysis.output import write_results
        from gemtable.analysis.summary import tournament_tables

        g = guarded(lambda: resolve_game(game))
        entrants = bot_list(bots)
        opts = guarded(lambda: parse_options(option))

        def build():
            check_bots(entrants)
            return tournament_specs(game, entrants, n, players, seed, opts)

        specs = guarded(build)
        result = run_with_progress(specs, jobs, backend, address, say(msg("{game} tournament", game=g.id)), journal)
        summary = tournament_summary(result.rows, result.timing)
        summary.update({"game": g.id, "players": players, "seed": seed, "options": opts,
                        "entrants": entrants, "games_per_pairing": n, **result.fields()})
        console = Console()
        title = say(msg("{game}: {count} games ({n} per lineup), {players} players, seed {seed}",
                        game=say(msg(g.title), g.domains), count=len(specs), n=n, players=players, seed=seed))
        for table in tournament_tables(summary, title, lang=language()):
            console.print(table)
        console.print(took(result))
        if out is not None:
            for path in guarded(lambda: write_results(out, result.rows, summary)):
                console.print(say(msg("wrote {path}", path=str(path))))
        if plots is not None:
            from gemtable.analysis.plots import tournament_plots

            for path in tournament_plots(result.rows, summary, plots, g.title):
                console.print(say(msg("wrote {path}", path=str(path))))

    @app.command()
    def pool(
        files: list[Path] = typer.Argument(..., help="Results of `gemtable tournament --out FILE.json` "
                                                      "(or its --journal files) between the same bots."),
        out: Path | None = typer.Option(None, "--out", help="The pooled rows to .csv (+ .summary.csv) or .json."),
    ) -> None:
        """One table from several tournament runs (other seeds, more games) between the same bots."""
        from rich.console import Console

        from gemtable.analysis import tournament_summary
        from gemtable.analysis.output import write_results
        from gemtable.analysis.pool import pool as pool_runs
        from gemtable.analysis.summary import tournament_tables

        rows, timing, runs = guarded(lambda: pool_runs(files))
        summary = tournament_summary(rows, timing)
        summary.update({"game": rows[0]["game"], "players": rows[0]["players"], "runs": runs})
        console = Console()
        title = say(msg("{game}: {count} games pooled from {runs} runs, {players} players", game=rows[0]["game"],
                        count=len(rows), runs=len(runs), players=rows[0]["players"]))
        for table in tournament_tables(summary, title, lang=language()):
            console.print(table)
        for run in runs:
            console.print(say(msg("{file}: {games} games", file=str(run["file"]), games=run["games"])))
        if out is not None:
            for path in guarded(lambda: write_results(out, rows, summary)):
                console.print(say(msg("wrote {path}", path=str(path))))
