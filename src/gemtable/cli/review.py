"""`gemtable review FILE`: each seat's chance of winning move by move, and its biggest drops."""

from __future__ import annotations

import json
import time
from pathlib import Path

import typer
from rich.table import Table

from gemtable.core import GemtableError, Match, MatchFileError
from gemtable.core.i18n import msg, msgn
from gemtable.core.registry import get_game

from .lang import TermConsole, language, say

console = TermConsole(highlight=False)
BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float], width: int = 60) -> str:
    """``values`` in [0, 1] as one line of bars, at most ``width`` wide (each bar the mean
    of the moves it stands for)."""
    if not values:
        return ""
    k = max(1, -(-len(values) // width))
    out = []
    for i in range(0, len(values), k):
        part = values[i:i + k]
        v = sum(part) / len(part)
        out.append(BARS[min(len(BARS) - 1, int(v * len(BARS)))])
    return "".join(out)


def register(app: typer.Typer) -> None:
    @app.command()
    def review(
        file: Path = typer.Argument(..., help="A finished match file (from `gemtable play`, a tournament or the server)."),
        samples: int = typer.Option(8, "--samples", min=1, max=64, help="Determinizations per judgement."),
        swings: int = typer.Option(3, "--swings", min=0, max=20, help="Biggest drops listed per seat."),
        as_json: bool = typer.Option(False, "--json", help="Print the review as JSON."),
    ) -> None:
        """Review a finished game: each seat's chance of winning after every move, judged
        from that seat's knowledge at the time, and the moves that cost it the most."""
        from gemtable.analysis.review import review as run_review

        def fail(message: str) -> None:
            console.print(f"[bold red]{say(msg('error:'))}[/] {message}")
            raise typer.Exit(2)

        try:
            match = Match.load(file)
            started = time.perf_counter()
            result = run_review(match, samples=samples, swings=swings, lang=language())
        except (MatchFileError, ValueError) as exc:
            fail(say(exc) if isinstance(exc, GemtableError) else str(exc))
        seconds = time.perf_counter() - started
        if as_json:
            print(json.dumps(result))
            return
        game = get_game(match.game_id)
        names = match.meta.get("names") or [say(msg("Seat {number}", number=p + 1)) for p in range(match.num_players)]
        # (the English says "moves" for one too, as it always has)
        console.print(say(msgn("[bold]{game}[/], {players} players, {n} moves; judged by the {bot} in {seconds} s",
                               "[bold]{game}[/], {players} players, {n} moves; judged by the {bot} in {seconds} s",
                               n=result["moves"], game=say(msg(game.title), game.domains),
                               players=match.num_players, bot=result["bot"], seconds=f"{seconds:.1f}")))
        width = max(len(n) for n in names)
        for p, line in enumerate(result["chances"]):
            console.print(f"  {names[p]:<{width}} {line[0]:>4.0%} {sparkline(line)} {line[-1]:>4.0%}")
        if not result["swings"]:
            console.print(say(msg("No move lost ground.")))
            return
        table = Table(title=say(msg("Biggest drops (chance of winning before → after the move)")))
        for col in (msg("seat"), msg("move"), msg("played"), msg("chance"), msg("the bot prefers"), msg("worth")):
            table.add_column(say(col))
        for s in result["swings"]:
            cost = s["cost"]
            same = s["best"] == s["played"] or cost is not None and cost < 0.005
            prefers = say(msg("the same move")) if same else s["best"]
            if not same and s["best_reasons"]:
                prefers += f" ({', '.join(s['best_reasons'])})"
            table.add_row(names[s["seat"]], str(s["move"]), s["played"],
                          f"{s['before']:.0%} → {s['after']:.0%}", prefers,
                          "" if same or cost is None else f"+{cost:.0%}")
        console.print(table)

    @app.command("review-bench")
    def review_bench(
        games: int = typer.Option(3, "--games", "-n", min=1, max=50, help="Games per game and table size."),
        players: list[int] | None = typer.Option(None, "--players", "-p", help="Table sizes (default: 2 and the largest up to 4)."),
        bots: str = typer.Option("easy", "--bots", help="The bot playing every seat of the reviewed games."),
        samples: int = typer.Option(8, "--samples", min=1, max=64, help="Determinizations per judgement."),
        seed: int = typer.Option(1, "--seed", help="Seed of the first game."),
    ) -> None:
        """CPU time of a game review: games of ``--bots`` played to the end, then reviewed
        (as the server's review process does), for every game."""
        import statistics

        from gemtable.analysis.review import review_json
        from gemtable.bots import make_bot
        from gemtable.core import Rng
        from gemtable.core.registry import all_games

        table = Table(title=say(msg("Review CPU seconds per game ({bots} bots, {samples} samples, median of {games})",
                                    bots=bots, samples=samples, games=games)))
        for col in (msg("game"), msg("players"), msg("moves (median)"), msg("CPU s (median)"), msg("CPU s (max)")):
            table.add_column(say(col))
        for gid, game in sorted(all_games().items()):
            sizes = players or sorted({2, min(4, max(game.player_counts))})
            for n in sizes:
                if n not in game.player_counts:
                    continue
                lengths, seconds = [], []
                for k in range(games):
                    match = Match(gid, n, seed + k, {})
                    state = match.start(game)
                    seats = [make_bot(bots, seed=(seed + k) * 31 + p, game=game) for p in range(n)]
                    while not state.is_over():
                        p = state.to_move()[0]
                        view = state.determinize(p, Rng(seed + k + len(match.actions)))
                        match.play(state, p, seats[p].choose(view, p))
                    lengths.append(len(match.actions))
                    seconds.append(review_json(match.to_json(), samples)["seconds"])
                table.add_row(gid, str(n), f"{statistics.median(lengths):.0f}",
                              f"{statistics.median(seconds):.2f}", f"{max(seconds):.2f}")
        console.print(table)
