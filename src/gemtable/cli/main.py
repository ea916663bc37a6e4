"""The `gemtable` command: list games, play in the terminal, replay, benchmark.

Everything here goes through the kernel API and the registry: no game is
imported by name.  What a player reads (games, play, replay, errors) is written as
messages (:mod:`gemtable.core.i18n`) and shown in the language chosen with the global
``--lang`` option, else the one LANGUAGE / LC_ALL / LC_MESSAGES / LANG ask for, else
English.
"""

from __future__ import annotations

import importlib
import inspect
import json
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markdown import Markdown
from rich.table import Table

from gemtable.core import (
    GemtableError,
    i18n,
    IllegalAction,
    Match,
    MatchFileError,
    Rng,
    State,
    event_for,
    format_text,
)
from gemtable.core.i18n import msg, msgn
from gemtable.core.registry import all_games, get_game

from . import lang as cli_lang
from .simulate import parse_options

app = typer.Typer(
    cls=cli_lang.TranslatedGroup,
    help="gemtable: play, simulate and study gem-and-glass tabletop games.",
    no_args_is_help=True,
    add_completion=False,
)
console = cli_lang.TermConsole(highlight=False)
LANG = i18n.SOURCE
"""The language of this run's texts (set by the global ``--lang`` option or the environment)."""


def say(message: "i18n.Message | str", domains=(i18n.CORE_DOMAIN,)) -> str:
    """A message (or an error) in this run's language."""
    return cli_lang.say(message, domains)


def choose_language(wanted: str | None, env=None) -> str:
    """``wanted`` (the ``--lang`` option) if a catalogue offers it, else the environment's
    first offered language, else English."""
    offered = i18n.languages(i18n.CORE_DOMAIN)
    if wanted:
        lang = i18n.normalize(wanted)
        if lang not in offered:
            raise typer.BadParameter(say(msg("no texts in {lang}; offered: {offered}", lang=repr(wanted),
                                             offered=", ".join(offered))), param_hint="--lang")
        return lang
    return i18n.negotiate(i18n.from_environment(env), offered)


@app.callback()
def _language(lang: Optional[str] = typer.Option(
        None, "--lang", metavar="LANG",
        help="Language of the texts (en, de...); default: from LANGUAGE, LC_ALL or LANG.")) -> None:
    """gemtable: play, simulate and study gem-and-glass tabletop games."""
    global LANG
    LANG = choose_language(lang)
    cli_lang.use(LANG)


def _fail(message: "i18n.Message | str | GemtableError", code: int = 2) -> None:
    console.print(f"[bold red]{say(msg('error:'))}[/] {say(message)}")
    raise typer.Exit(code)


def _game_or_fail(game_id: str):
    try:
        return get_game(game_id)
    except KeyError as exc:
        _fail(exc if isinstance(exc, GemtableError) else str(exc.args[0]))


# ---------------------------------------------------------------------------
# gemtable games
# ---------------------------------------------------------------------------
@app.command()
def games(as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table.")) -> None:
    """List the registered games with player counts, options and data status."""
    described = [g.describe(LANG) for g in all_games().values()]
    if as_json:
        console.print_json(json.dumps(described))
        return
    table = Table(title=say(msg("gemtable games")))
    for col in (msg("id"), msg("title"), msg("players"), msg("options"), msg("component data")):
        table.add_column(say(col))
    for d in described:
        opts = "\n".join(
            say(msg("{name} = {choices} (default {default})", name=o["name"],
                    choices="|".join(map(str, o["choices"])), default=str(o["default"])))
            for o in d["options"]
        ) or "—"
        status = d["data_status"]
        if status == "reconstructed":
            status = say(msg("[yellow]reconstructed[/] (placeholders)"))
        elif status == "complete":
            status = say(msg("complete"))
        table.add_row(d["id"], d["title"], ", ".join(map(str, d["players"])), opts, status)
    console.print(table)


# ---------------------------------------------------------------------------
# gemtable play
# ---------------------------------------------------------------------------
def _render(state: State, seat: int | None, names: list[str]) -> None:
    view = state.view(seat)
    view["names"] = names
    render = state.game.render_text
    if render is not None:
        if LANG != i18n.SOURCE and "lang" in inspect.signature(render).parameters:
            console.print(render(view, seat, lang=LANG))
        else:
            console.print(render(view, seat))
    else:  # pragma: no cover - every shipped game has a renderer
        console.print_json(json.dumps(view))


def _log_lines(events: list[dict[str, Any]], seat: int | None, names: list[str], domains) -> list[str]:
    return [format_text(event_for(ev, seat)["text"], names, LANG, domains) for ev in events]


@app.command()
def play(
    game_id: str = typer.Argument(..., metavar="GAME", help="Game id, see `gemtable games`."),
    players: int = typer.Option(2, "--players", "-p", help="Number of players."),
    seat: int = typer.Option(1, "--seat", "-s", help="Your seat (1 = first player)."),
    bots: str = typer.Option("greedy", "--bots", "-b", help="Bots for the other seats, comma separated, cycled."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Random seed (default: from the clock)."),
    option: Optional[list[str]] = typer.Option(None, "--option", "-o", help="Game option name=value."),
    save: Optional[Path] = typer.Option(None, "--save", help="Replay file to write (default gemtable-GAME-SEED.json)."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Continue a game saved with `quit`."),
    hints: bool = typer.Option(False, "--hints", help="Allow `hint` at the prompt: the bot's three best moves "
                               "and why (the saved game is marked as hinted)."),
) -> None:
    """Play in the terminal against bots; type `help`, `log` or `quit` at any prompt."""
    from gemtable.bots import make_bot
    from gemtable.bots.base import split_specs, tell_bots

    if resume is not None:
        try:
            match = Match.load(resume)
        except MatchFileError as exc:
            _fail(exc)
        game = _game_or_fail(match.game_id)
        me = int(match.meta.get("human_seat", 0))
        specs = match.meta.get("bots", ["random"] * match.num_players)
        save = save or resume
    else:
        game = _game_or_fail(game_id)
        if seed is None:
            seed = int(time.time() * 1000) % 1_000_000
        try:
            game.check_players(players)
            options = game.resolve_options(parse_options(option))
        except GemtableError as exc:
            _fail(exc)
        if not 1 <= seat <= players:
            _fail(msg("--seat must be between 1 and {players}", players=players))
        me = seat - 1
        cycle = split_specs(bots) or ["random"]  # "mcts:iterations=200,reuse=1" stays one bot
        specs = []
        k = 0
        for p in range(players):
            if p == me:
                specs.append("human")
            else:
                specs.append(cycle[k % len(cycle)])
                k += 1
        match = Match(game.id, players, seed, options, meta={"human_seat": me, "bots": specs})
    names = [(say(msg("Seat {number}", number=p + 1)) if p == me else f"{specs[p].capitalize()} ({p + 1})")
             for p in range(match.num_players)]
    domains = game.domains
    match.meta["names"] = names
    try:
        bot_objs = {p: make_bot(specs[p], seed=match.seed * 31 + p, game=game) for p in range(match.num_players) if p != me}
    except ValueError as exc:
        _fail(str(exc))
    try:
        state = match.replay(game=game)
    except MatchFileError as exc:
        _fail(exc)
    save = save or Path(f"gemtable-{game.id}-{match.seed}.json")
    log: list[str] = []
    console.print(say(msg("[bold]{game}[/] — {players} players, seed {seed}. You are seat {seat}. "
                          "Type a number, `help`, `rules`, `log` or `quit`.", game=say(msg(game.title), domains),
                          players=match.num_players, seed=match.seed, seat=me + 1)))
    shown_turn = None
    while not state.is_over():
        movers = state.to_move()
        for p in movers:
            if p == me:
                continue
            action = bot_objs[p].choose(state.clone(), p)
            events = match.play(state, p, action)
            tell_bots(bot_objs, state, p, action, movers, events)
            for line in _log_lines(events, me, names, domains):
                log.append(line)
                console.print(f"  [cyan]·[/] {line}")
            break
        else:
            if me not in movers:
                continue
            if shown_turn != (state.turn, len(match.actions)):
                _render(state, me, names)
                shown_turn = (state.turn, len(match.actions))
            actions = state.legal_actions(me)
            console.print(f"[bold]{state.prompt(me, LANG)}[/]")
            for i, a in enumerate(actions, 1):
                console.print(f"  [bold cyan]{i:>3}[/] {state.action_text(me, a, LANG)}")
            try:
                answer = console.input("[bold]> [/]").strip().lower()
            except (EOFError, KeyboardInterrupt):
                answer = "quit"
            if answer in ("q", "quit", "exit"):
                match.save(save)
                console.print(say(msg("Game saved to {path}. Continue with: gemtable play {game} --resume {path}",
                                      path=str(save), game=game.id)))
                raise typer.Exit(0)
            if answer in ("h", "help", "?"):
                console.print(f"[green]{state.prompt(me, LANG)}[/] " + say(msg(
                    "Choose one of the numbered actions. `log` shows what happened so far, `board` the table, "
                    "`rules` how to play, `hint` the bot's best moves (with --hints); `quit` saves the game.")))
                continue
            if answer == "rules":
                console.print(Markdown(game.play_text(LANG) or say(msg("This game has no how-to-play yet."))))
                continue
            if answer == "hint":
                _hint(state, me, actions, hints, match)
                continue
            if answer == "log":
                for line in log[-40:]:
                    console.print(f"  {line}")
                continue
            if answer in ("board", "b"):
                _render(state, me, names)
                continue
            if not answer.isdigit() or not 1 <= int(answer) <= len(actions):
                console.print("[red]" + say(msg("'{answer}' is not a choice: type a number from 1 to {count}, "
                                                "or help, log, board, rules, quit.", answer=answer,
                                                count=len(actions))).replace("[", "\\[") + "[/]")
                continue
            try:
                events = match.play(state, me, actions[int(answer) - 1])
            except IllegalAction as exc:  # pragma: no cover - listed actions are legal
                console.print(f"[red]{say(exc, domains)}[/]")
                continue
            tell_bots(bot_objs, state, me, actions[int(answer) - 1], movers, events)
            for line in _log_lines(events, me, names, domains):
                log.append(line)
                console.print(f"  [green]·[/] {line}")
    _render(state, me, names)
    result = state.result()
    table = Table(title=say(msg("Final result")))
    table.add_column(say(msg("place")))
    table.add_column(say(msg("seat")))
    table.add_column(say(msg("score")))
    for p in sorted(range(state.num_players), key=lambda q: result["ranking"][q]):
        table.add_row(str(result["ranking"][p]), names[p], str(result["scores"][p]))
    console.print(table)
    if result.get("tiebreak"):
        console.print(format_text(state.tiebreak_explained(LANG), names))
    match.save(save)
    console.print(say(msg("Replay saved to {path} (gemtable replay {path})", path=str(save))))


def _hint(state: State, me: int, actions: list, allowed: bool, match: Match) -> None:
    """The bot's three best moves for ``me`` (from its own view), numbered as offered."""
    if not allowed:
        console.print("[yellow]" + say(msg("Hints are off: start a practice game with --hints.")) + "[/]")
        return
    from gemtable.analysis.review import hints as best_moves

    match.meta["hinted"] = True
    for h in best_moves(state, me, lang=LANG):
        number = next(i for i, a in enumerate(actions, 1) if a.to_json() == h["action"])
        why = f" — {', '.join(h['reasons'])}" if h["reasons"] else ""
        text = state.action_text(me, actions[number - 1], LANG)
        console.print(say(msg("  [magenta]hint[/] {number}: {action} ({chance} to win){why}", number=number,
                              action=text, chance=f"{h['chance']:.0%}", why=why)))


# ---------------------------------------------------------------------------
# gemtable replay
# ---------------------------------------------------------------------------
@app.command()
def replay(
    file: Path = typer.Argument(..., help="A match file written by `gemtable play` or the server."),
    step: bool = typer.Option(False, "--step", help="Show the board and wait for Enter after each action."),
) -> None:
    """Replay a saved match, printing its game log (and the board with --step)."""
    try:
        match = Match.load(file)
        game = get_game(match.game_id)
        names = match.meta.get("names") or [say(msg("Seat {number}", number=p + 1)) for p in range(match.num_players)]
        console.print(say(msgn("[bold]{game}[/], {players} players, seed {seed}, {n} action",
                               "[bold]{game}[/], {players} players, seed {seed}, {n} actions", n=len(match.actions),
                               game=say(msg(game.title), game.domains), players=match.num_players,
                               seed=match.seed)))
        state = None
        for i, (state, events) in enumerate(match.states(game)):
            for ev in events:  # after the game every secret may be shown
                full = {k: v for k, v in ev.items() if k != "public"}
                console.print(f"{i:>4}. {format_text(full['text'], names, LANG, game.domains)}")
            if step and i < len(match.actions):
                _render(state, None, names)
                try:
                    console.input("[dim]" + say(msg("Enter for the next action, q to stop")) + "[/] ")
                except EOFError:
                    step = False
    except MatchFileError as exc:
        _fail(exc)
    except KeyError as exc:
        _fail(exc if isinstance(exc, GemtableError) else str(exc.args[0]))
    if state is not None:
        _render(state, None, names)
        if state.is_over():
            console.print(say(msg("Scores: {scores}  places: {places}", scores=str(state.scores()),
                                  places=str(state.ranking()))))
        else:
            console.print("[yellow]" + say(msg("The match was saved before its end.")) + "[/]")


# ---------------------------------------------------------------------------
# gemtable bench
# ---------------------------------------------------------------------------
def _observer(game):
    """A function observing ``player`` after a step: the layout's fast path if there is one."""
    layout = game.observation_layout
    if layout is not None:
        buf = layout.new_buffer()
        fill = layout.fill
        return lambda state, p: fill(state, p, buf)
    if game.observation is not None:
        return game.observation
    return None


def _bench_once(game, n: int, options: dict, seconds: float, seed: int,
                observe=None) -> tuple[int, int, int, float]:
    """Random self-play for ``seconds``; with ``observe``, the observation of the seat to
    move is computed after every step (as a learning environment does)."""
    games_done = turns = decisions = 0
    rng = Rng(seed)
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new(n, seed + games_done, **options)
        if observe is not None:
            observe(state, state.to_move()[0])
        while not state.is_over():
            p = state.to_move()[0]
            acts = state.legal_actions(p)
            state.step(p, acts[rng.below(len(acts))])
            decisions += 1
            if observe is not None and not state.is_over():
                observe(state, state.to_move()[0])
        turns += state.turn
        games_done += 1
        now = time.perf_counter()
        if now >= deadline:
            return games_done, turns, decisions, now - start


def _bench_positions(game, n: int, count: int) -> list:
    """``count`` positions from greedy games (game ``i`` dealt with seed ``i``), taken a
    quarter, half and three quarters of the way through in turn: the same for every run."""
    from gemtable.bots import make_bot

    out = []
    seed = 0
    while len(out) < count:
        bots = [make_bot("greedy", seed=seed * 10 + q) for q in range(n)]
        state = game.new(n, seed)
        seen = []
        while not state.is_over():
            p = state.to_move()[0]
            seen.append(state.clone())
            state.step(p, bots[p].choose(state, p))
        if seen:
            out.append(seen[int((len(out) % 3 + 1) / 4 * len(seen))])
        seed += 1
    return out


def _bench_bots(game, n: int, specs: list[str], positions: int) -> list[dict]:
    """Each bot's decision on the same positions, bots interleaved per position: median
    search iterations per decision, CPU milliseconds per decision and iterations per CPU
    second (iterations: what a search bot reports; none for other bots)."""
    from gemtable.bots import make_bot

    for spec in specs:  # refuses a bad spec before any work
        make_bot(spec, seed=0, game=game)
    samples: dict[str, list[tuple[int | None, float]]] = {spec: [] for spec in specs}
    for i, state in enumerate(_bench_positions(game, n, positions)):
        p = state.to_move()[0]
        for spec in specs:
            bot = make_bot(spec, seed=i, game=game)
            start = time.process_time()
            bot.choose(state.clone(), p)
            cpu = time.process_time() - start
            samples[spec].append((getattr(bot, "last_iterations", None), cpu))
    rows = []
    for spec in specs:
        its = [k for k, _ in samples[spec] if k is not None]
        cpu = [t for _, t in samples[spec]]
        rows.append({
            "game": game.id, "players": n, "bot": spec, "positions": positions,
            "iterations_per_decision": statistics.median(its) if its else None,
            "ms_per_decision": 1000 * statistics.median(cpu),
            "iterations_per_s": statistics.median(k / t for k, t in samples[spec] if k is not None and t > 0)
            if its else None,
        })
    return rows


@app.command()
def bench(
    game_id: Optional[str] = typer.Argument(None, metavar="[GAME]", help="One game (default: all)."),
    players: Optional[int] = typer.Option(None, "--players", "-p", help="One player count (default: all)."),
    runs: int = typer.Option(5, "--runs", help="Runs per configuration; the median is reported."),
    seconds: float = typer.Option(1.0, "--seconds", help="Length of one run."),
    observe: bool = typer.Option(False, "--observe",
                                 help="Also time random steps with the numeric observation of the seat "
                                      "to move computed after every step, and the slowdown ratio."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON rows."),
    bot: Optional[list[str]] = typer.Option(None, "--bot", help="Time this bot's decisions instead (repeat to "
                                            "compare bots on the same positions): search iterations and CPU "
                                            "time per decision, e.g. --bot mcts:seconds=0.1 --bot puct:seconds=0.1."),
    positions: int = typer.Option(12, "--positions", help="With --bot: positions from greedy games to decide."),
) -> None:
    """Random self-play speed on one core: games/s, turns/s, decisions/s (medians); with
    --bot, a bot's search iterations and CPU time per decision."""
    targets = [_game_or_fail(game_id)] if game_id else list(all_games().values())
    if bot:
        if positions < 1:
            _fail(msg("--positions must be at least 1"))
        _bench_bot_report(targets, players, list(bot), positions, as_json)
        return
    rows = []
    for game in targets:
        counts = [players] if players else list(game.player_counts)
        observer = _observer(game) if observe else None
        if observe and observer is None:
            if game_id:
                _fail(msg("{game} has no numeric observation", game=say(msg(game.title), game.domains)))
            continue
        for n in counts:
            if n not in game.player_counts:
                _fail(msg("{game} is not played by {n}", game=say(msg(game.title), game.domains), n=n))
            samples, observed = [], []
            for r in range(runs):  # interleaved, so load on a shared machine hits both alike
                samples.append(_bench_once(game, n, {}, seconds, 1000 * r))
                if observer is not None:
                    observed.append(_bench_once(game, n, {}, seconds, 1000 * r, observer))
            row = {
                "game": game.id,
                "players": n,
                "games_per_s": statistics.median(g / t for g, _, _, t in samples),
                "turns_per_s": statistics.median(x / t for _, x, _, t in samples),
                "decisions_per_s": statistics.median(d / t for _, _, d, t in samples),
                "turns_per_game": statistics.median(x / g for g, x, _, _ in samples),
            }
            if observer is not None:
                row["observed_decisions_per_s"] = statistics.median(d / t for _, _, d, t in observed)
                row["observation_size"] = game.observation_size
                row["slowdown"] = row["decisions_per_s"] / row["observed_decisions_per_s"]
            rows.append(row)
    machine = _machine()
    if as_json:
        print(json.dumps({"machine": machine, "runs": runs, "seconds": seconds, "rows": rows}, indent=1))
        return
    title = say(msg("Random self-play, one core, median of {runs} × {seconds} s", runs=runs, seconds=f"{seconds:g}"))
    if observe:
        table = Table(title=say(msg("{title}; observed: observation of the seat to move after every step", title=title)))
        for i, col in enumerate((msg("game"), msg("players"), msg("obs size"), msg("decisions/s"),
                                 msg("observed decisions/s"), msg("slowdown"))):
            table.add_column(say(col), justify="right" if i else "left")
        for r in rows:
            table.add_row(r["game"], str(r["players"]), str(r["observation_size"]),
                          f"{r['decisions_per_s']:,.0f}", f"{r['observed_decisions_per_s']:,.0f}",
                          f"{r['slowdown']:.2f}×")
        console.print(table)
        return
    table = Table(title=title)
    for i, col in enumerate((msg("game"), msg("players"), msg("games/s"), msg("turns/s"), msg("decisions/s"),
                             msg("turns/game"))):
        table.add_column(say(col), justify="right" if i else "left")
    for r in rows:
        table.add_row(r["game"], str(r["players"]), f"{r['games_per_s']:,.0f}", f"{r['turns_per_s']:,.0f}",
                      f"{r['decisions_per_s']:,.0f}", f"{r['turns_per_game']:.0f}")
    console.print(table)
    console.print(f"[dim]{machine}[/]")


def _bench_bot_report(targets: list, players: int | None, specs: list[str], positions: int, as_json: bool) -> None:
    from gemtable.bots.base import split_specs

    specs = [one for spec in specs for one in split_specs(spec)]
    rows = []
    for game in targets:
        for n in [players] if players else list(game.player_counts):
            if n not in game.player_counts:
                _fail(msg("{game} is not played by {n}", game=say(msg(game.title), game.domains), n=n))
            try:
                rows.extend(_bench_bots(game, n, specs, positions))
            except ValueError as exc:
                _fail(str(exc))
    machine = _machine()
    if as_json:
        print(json.dumps({"machine": machine, "positions": positions, "rows": rows}, indent=1))
        return
    table = Table(title=say(msg("Per decision, {positions} positions from greedy games (medians; CPU time)",
                                positions=positions)))
    for col, word in (("game", msg("game")), ("n", "n"), ("bot", msg("bot")), ("iterations", msg("iterations")),
                      ("CPU ms", msg("CPU ms")), ("iterations/s", msg("iterations/s"))):
        table.add_column(say(word), justify="left" if col in ("game", "bot") else "right",
                         overflow="fold" if col == "bot" else "ellipsis", no_wrap=col != "bot")
    for r in rows:
        its, rate = r["iterations_per_decision"], r["iterations_per_s"]
        table.add_row(r["game"], str(r["players"]), r["bot"], "–" if its is None else f"{its:,.0f}",
                      f"{r['ms_per_decision']:.1f}", "–" if rate is None else f"{rate:,.0f}")
    console.print(table)
    console.print(f"[dim]{machine}[/]")


def _machine() -> str:
    """Python and processor, printed with every benchmark."""
    return f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, {_cpu_name()}"


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


# ---------------------------------------------------------------------------
# commands living in their own modules (simulate, tournament, ladder, serve, train, distill, admin, review)
# ---------------------------------------------------------------------------
for _module in ("simulate", "tournament", "ladder", "serve", "train", "distill", "admin", "review"):
    try:
        _mod = importlib.import_module(f"gemtable.cli.{_module}")
    except ModuleNotFoundError as _exc:  # a module not yet written
        if _exc.name != f"gemtable.cli.{_module}":
            raise
        continue
    _mod.register(app)


def main() -> None:  # pragma: no cover
    app()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
