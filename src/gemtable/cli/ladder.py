"""``gemtable ladder``: the named bot levels against each other, rated with OpenSkill."""

from __future__ import annotations

from pathlib import Path

import typer

from gemtable.core.i18n import msg

from .lang import language, say
from .simulate import JOURNAL_HELP, guarded, run_with_progress, took


def _fail(message: str) -> None:
    typer.echo(f"{say(msg('error:'))} {message}", err=True)
    raise typer.Exit(2)


def show(g) -> None:
    """Print the game's shipped ladder (or say that it has none)."""
    from rich.console import Console
    from rich.table import Table

    from gemtable.analysis import ladder

    console = Console()
    data = ladder.shipped_levels(g)
    title = say(msg(g.title), g.domains)
    if data is None:
        console.print(say(msg("{game} has no level ratings yet. Measure them with: gemtable ladder {id} --install",
                              game=title, id=g.id)))
        return
    stale = set(ladder.stale_levels(data, g))
    t = Table(title=say(msg("{game}: bot levels rated against each other", game=title)))
    t.add_column(say(msg("level")))
    t.add_column(say(msg("bot")), overflow="fold")
    for col in (say(msg("rating")), "μ", "σ", say(msg("games"))):
        t.add_column(col, justify="right")
    recorded = data["levels"]
    for name in [*ladder.levels(), *(n for n in recorded if n not in ladder.levels())]:
        e = recorded.get(name)
        if e is None:
            from gemtable.bots import level_spec

            t.add_row(name, level_spec(name, g), say(msg("not measured")), "", "", "")
            continue
        note = " [yellow]" + say(msg("(changed since)")) + "[/]" if name in stale else ""
        t.add_row(name + note, e["spec"], f"{e['rating']:.1f}", f"{e['mu']:.2f}", f"{e['sigma']:.2f}",
                  str(e["games"]))
    console.print(t)
    console.print(say(msg("Rating = μ − 3σ on the scale of player ratings. Measured {date}: {games} games per "
                          "pairing, {players} players, seed {seed} ({machine}).", date=data["date"],
                          games=data["games_per_pairing"], players=data["players"], seed=data["seed"],
                          machine=data["machine"])))
    console.print(say(msg("Reproduce: {command}", command=data["command"])))
    if stale:
        console.print("[yellow]" + say(msg("Not shown to players: the bot of {levels} changed since this ladder; "
                                           "run it again.", levels=", ".join(sorted(stale)))) + "[/]")


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
        entries = guarded(lambda: lad.parse_levels(levels, g))
        if install and any(e.overrides for e in entries):
            _fail(say(msg("--install ships ratings of the levels as players meet them: drop the overrides ({levels})",
                          levels=", ".join(e.label for e in entries if e.overrides))))
        specs = guarded(lambda: lad.ladder_specs(game, entries, n, players, seed))
        result = run_with_progress(specs, jobs, "local", None, f"{g.id} ladder", journal)
        summary = lad.ladder_summary(result.rows, entries, result.timing)
        summary.update({"game": g.id, "players": players, "seed": seed, "games_per_pairing": n,
                        **result.fields()})
        console = Console()
        title = say(msg("{game} ladder: {count} games ({n} per pairing), {players} players, seed {seed}",
                        game=say(msg(g.title), g.domains), count=len(specs), n=n, players=players, seed=seed))
        console.print(lad.ladder_table(summary, title, lang=language()))
        console.print(say(msg("rating = μ − 3σ (OpenSkill, as players are rated); win % against each level with "
                              "its 95% Wilson interval (a tie counts one half)")))
        unfinished = summary["length"].get("unfinished")
        if unfinished:
            console.print("[yellow]" + say(msg("{n} games stopped unfinished at the step limit (ranked as they stood)",
                                               n=unfinished)) + "[/]")
        console.print(took(result, backend=False))
        if out is not None:
            for path in guarded(lambda: write_results(out, result.rows, summary)):
                console.print(say(msg("wrote {path}", path=str(path))))
        if install:
            command = (f"gemtable ladder {g.id} --levels {','.join(e.label for e in entries)} -n {n} "
                       f"--players {players} --seed {seed} --install")
            record = guarded(lambda: lad.shipped_record(
                g, summary, command=command, seed=seed, games_per_pairing=n, players=players,
                date=datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d"),
                seconds=result.seconds, jobs=result.jobs, resumed=result.resumed))
            target = guarded(lambda: lad.install(g, record))
            console.print(say(msg("installed {path}", path=str(target))))
