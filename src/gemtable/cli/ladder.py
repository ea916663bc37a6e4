"""``gemtable ladder``: the named bot levels against each other, rated with OpenSkill."""

from __future__ import annotations

from pathlib import Path

import typer

from .simulate import JOURNAL_HELP, guarded, run_with_progress


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def show(g) -> None:
    """Print the game's shipped ladder (or say that it has none)."""
    from rich.console import Console
    from rich.table import Table

    from gemtable.analysis import ladder

    console = Console()
    data = ladder.shipped_levels(g)
    if data is None:
        console.print(f"{g.title} has no level ratings yet. Measure them with: "
                      f"gemtable ladder {g.id} --install")
        return
    stale = set(ladder.stale_levels(data, g))
    t = Table(title=f"{g.title}: bot levels rated against each other")
    t.add_column("level")
    t.add_column("bot", overflow="fold")
    for col in ("rating", "μ", "σ", "games"):
        t.add_column(col, justify="right")
    recorded = data["levels"]
    for name in [*ladder.levels(), *(n for n in recorded if n not in ladder.levels())]:
        e = recorded.get(name)
        if e is None:
            from gemtable.bots import LEVELS

            t.add_row(name, LEVELS[name], "not measured", "", "", "")
            continue
        note = " [yellow](changed since)[/]" if name in stale else ""
        t.add_row(name + note, e["spec"], f"{e['rating']:.1f}", f"{e['mu']:.2f}", f"{e['sigma']:.2f}",
                  str(e["games"]))
    console.print(t)
    console.print(f"Rating = μ − 3σ on the scale of player ratings. Measured {data['date']}: "
                  f"{data['games_per_pairing']} games per pairing, {data['players']} players, "
                  f"seed {data['seed']} ({data['machine']}).")
    console.print(f"Reproduce: {data['command']}")
    if stale:
        console.print(f"[yellow]Not shown to players: the bot of {', '.join(sorted(stale))} changed since "
                      f"this ladder; run it again.[/]")


def register(app: typer.Typer) -> None:
    @app.command()
    def ladder(
        game: str = typer.Argument(..., help="Game id (see `gemtable games`)."),
        levels: str | None = typer.Option(None, "--levels", "-l",
                                          help="Levels, comma separated (default: every level, easiest "
                                               "first); level:name=value overrides a parameter "
                                               "(medium:iterations=20), for quick runs only."),
        n: int = typer.Option(100, "-n", "--games", min=1, help="Games per pairing (lineup)."),
        players: int = typer.Option(2, "--players", "-p", help="Seats per game."),
        seed: int = typer.Option(0, "--seed", help="Ladder seed (deals derive from it)."),
        jobs: int | None = typer.Option(None, "--jobs", "-j", help="Worker processes (default: all cores)."),
        out: Path | None = typer.Option(None, "--out", help="Per-game rows to .csv (+ .summary.csv) or .json."),
        install: bool = typer.Option(False, "--install",
                                     help="Ship the ratings with the game (levels.json in its package): "
                                          "the web table and `--show` then show them."),
        show_only: bool = typer.Option(False, "--show", help="Only show the game's shipped level ratings."),
        journal: Path | None = typer.Option(None, "--journal", help=JOURNAL_HELP),
    ) -> None:
        """Round robin between the bot levels, then an OpenSkill rating for each level."""
        import datetime

        from rich.console import Console

        from gemtable.analysis import ladder as lad
        from gemtable.analysis import resolve_game
        from gemtable.analysis.output import write_results

        g = guarded(lambda: resolve_game(game))
        if show_only:
            show(g)
            return
        entries = guarded(lambda: lad.parse_levels(levels))
        if install and any(e.overrides for e in entries):
            _fail("--install ships ratings of the levels as players meet them: "
                  f"drop the overrides ({', '.join(e.label for e in entries if e.overrides)})")
        specs = guarded(lambda: lad.ladder_specs(game, entries, n, players, seed))
        result = run_with_progress(specs, jobs, "local", None, f"{g.id} ladder", journal)
        summary = lad.ladder_summary(result.rows, entries, result.timing)
        summary.update({"game": g.id, "players": players, "seed": seed, "games_per_pairing": n,
                        **result.fields()})
        console = Console()
        title = f"{g.title} ladder: {len(specs)} games ({n} per pairing), {players} players, seed {seed}"
        console.print(lad.ladder_table(summary, title))
        console.print("rating = μ − 3σ (OpenSkill, as players are rated); win % against each level with "
                      "its 95% Wilson interval (a tie counts one half)")
        unfinished = summary["length"].get("unfinished")
        if unfinished:
            console.print(f"[yellow]{unfinished} games stopped unfinished at the step limit "
                          "(ranked as they stood)[/]")
        console.print(f"{result.took()} ({result.jobs} jobs)")
        if out is not None:
            for path in guarded(lambda: write_results(out, result.rows, summary)):
                console.print(f"wrote {path}")
        if install:
            command = (f"gemtable ladder {g.id} --levels {','.join(e.label for e in entries)} -n {n} "
                       f"--players {players} --seed {seed} --install")
            record = guarded(lambda: lad.shipped_record(
                g, summary, command=command, seed=seed, games_per_pairing=n, players=players,
                date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
                seconds=result.seconds, jobs=result.jobs, resumed=result.resumed))
            target = guarded(lambda: lad.install(g, record))
            console.print(f"installed {target}")
