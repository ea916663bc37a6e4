"""`gemtable serve`: the web table."""

from __future__ import annotations

import typer

from gemtable.core.i18n import msg, msgp

from .lang import language, say


def register(app: typer.Typer) -> None:
    @app.command()
    def serve(
        host: str = typer.Option("127.0.0.1", help="address to listen on"),
        port: int = typer.Option(8000, help="port to listen on"),
        db: str = typer.Option(None, help="database URL (sqlite:///path or postgresql://…); "
                                          "default: SQLite in the user data directory"),
        bot_delay: float = typer.Option(0.8, help="seconds a bot waits before moving (so people see it)"),
        bot_seconds: float = typer.Option(5.0, help="the most a bot may think per move, in seconds"),
        bot_iterations: int = typer.Option(5000, help="the most search iterations a bot may use per move"),
        bot_workers: int = typer.Option(1, help="threads for bot thinking (tables take turns)"),
        expire_hours: float = typer.Option(24.0, help="remove unfinished tables nobody played at after this long"),
        behind_proxy: bool = typer.Option(False, help="trust X-Forwarded-For, -Proto and -Host (only behind your own "
                                                      "reverse proxy: rate limits then count the real client "
                                                      "addresses, and the site's own origin is the forwarded one)"),
        allowed_origin: list[str] = typer.Option(None, help="another origin (https://host[:port]) whose pages may "
                                                            "change things here besides the site's own; repeatable"),
        log_level: str = typer.Option("info", help="uvicorn log level"),
        workers: int = typer.Option(1, help="server processes sharing the port (more than 1 needs PostgreSQL: "
                                            "--db postgresql://…)"),
        smtp_host: str = typer.Option(None, envvar="GEMTABLE_SMTP_HOST", help="the SMTP server that sends mail "
                                      "(turn alerts, confirm links); without it mails wait in the queue"),
        smtp_port: int = typer.Option(587, envvar="GEMTABLE_SMTP_PORT", help="the SMTP server's port"),
        smtp_tls: str = typer.Option("starttls", envvar="GEMTABLE_SMTP_TLS",
                                     help="starttls (port 587), ssl (port 465) or none (a relay on this machine)"),
        smtp_user: str = typer.Option(None, envvar="GEMTABLE_SMTP_USER", help="the SMTP login name; the password "
                                      "comes from GEMTABLE_SMTP_PASSWORD or --smtp-password-file, never the "
                                      "command line"),
        smtp_password_file: str = typer.Option(None, envvar="GEMTABLE_SMTP_PASSWORD_FILE",
                                               help="a file holding the SMTP password"),
        smtp_timeout: float = typer.Option(30.0, help="seconds one SMTP step may take"),
        mail_from: str = typer.Option("gemtable <noreply@localhost>", envvar="GEMTABLE_MAIL_FROM",
                                      help="the From of the site's mails"),
        site_url: str = typer.Option(None, envvar="GEMTABLE_SITE_URL", help="the site's public address for links "
                                     "in mails (https://host); default: http://HOST:PORT"),
        mail_poll: float = typer.Option(5.0, help="seconds between looks at the mail queue"),
        mail_lease: float = typer.Option(120.0, help="seconds a worker's claim on a mail lasts (more than twice "
                                         "--smtp-timeout)"),
    ) -> None:
        """Start the web table at http://HOST:PORT (lobby, play, replays, rules).

        With PostgreSQL any number of workers can serve the same tables: several processes
        on one port (--workers N) or separate `gemtable serve` processes on other ports or
        machines with the same --db.
        """
        import dataclasses
        import json
        import math
        import os

        import uvicorn

        from gemtable.server import create_app
        from gemtable.server.app import uvicorn_config
        from gemtable.server.db import default_db_url, normalize_url
        from gemtable.server.limits import Limits

        for name, value in (("--bot-seconds", bot_seconds), ("--expire-hours", expire_hours)):
            if not math.isfinite(value) or value <= 0:
                raise typer.BadParameter(say(msg("{option} must be a positive number", option=name)))
        from gemtable.server.origins import OriginCheck

        try:
            OriginCheck(allowed_origin or ())
        except ValueError as exc:
            raise typer.BadParameter(say(msg("--allowed-origin: {error}", error=str(exc)))) from None
        from gemtable.server.mail import MailSettings

        try:
            mail = MailSettings(host=smtp_host or None, port=smtp_port, tls=smtp_tls, user=smtp_user or None,
                                password_file=smtp_password_file or None, sender=mail_from, timeout=smtp_timeout,
                                site=site_url or f"http://{host}:{port}", poll=mail_poll, lease=mail_lease)
            if smtp_password_file:
                mail.password()  # a file that cannot be read fails here, not at the first mail
        except (ValueError, OSError) as exc:
            raise typer.BadParameter(say(msg("mail settings: {error}", error=str(exc)))) from None
        limits = Limits(bot_seconds=bot_seconds, bot_iterations=max(1, bot_iterations),
                        expire_after=expire_hours * 3600.0, allowed_origins=tuple(allowed_origin or ()))
        url = db or default_db_url()
        if workers < 1:
            raise typer.BadParameter(say(msg("--workers must be at least 1")))
        if workers > 1 and not normalize_url(url).startswith("postgresql"):
            typer.echo(say(msg("several workers need PostgreSQL: --db postgresql://… (SQLite serves one process)")),
                       err=True)
            raise typer.Exit(2)
        shown = url.split("@")[-1] if "@" in url else url
        typer.echo(say(msg("gemtable table at http://{host}:{port}  (database: {db})", host=host, port=port,
                           db=shown)))
        if workers == 1:
            app_ = create_app(url, bot_delay=bot_delay, limits=limits, bot_workers=bot_workers, freeze_gc=True,
                              behind_proxy=behind_proxy, mail=mail)
            uvicorn.Server(uvicorn_config(app_, host=host, port=port, log_level=log_level, limits=limits,
                                          behind_proxy=behind_proxy)).run()
            return
        # N processes on one port: uvicorn's process manager starts each from the factory,
        # which reads these settings from the environment
        from uvicorn.supervisors import Multiprocess

        os.environ["GEMTABLE_SERVE_SETTINGS"] = json.dumps({
            "db_url": url, "bot_delay": bot_delay, "bot_workers": bot_workers, "behind_proxy": behind_proxy,
            "limits": dataclasses.asdict(limits), "mail": mail.to_json()})  # no password: each worker reads it
        config = uvicorn_config("gemtable.server.app:app_from_env", host=host, port=port, log_level=log_level,
                                limits=limits, behind_proxy=behind_proxy, factory=True, workers=workers)
        Multiprocess(config, sockets=[config.bind_socket()]).run()

    @app.command()
    def soak(
        seconds: float = typer.Option(10.0, help="seconds of play per phase (at most 120)"),
        game: str = typer.Option("splendor", help="the game played"),
        flood: int = typer.Option(3000, help="refresh messages the attacker sends before it stops reading"),
        rate_limit: bool = typer.Option(True, help="keep the per-connection message limit (--no-rate-limit: "
                                                   "only the slow-reader defence stands between the attacker and the table)"),
        reviews: int = typer.Option(0, help="instead of the flood: a burst of review requests for this many "
                                            "finished games (at most 200)"),
        as_json: bool = typer.Option(False, "--json", help="print JSON"),
    ) -> None:
        """Measure a table's move latency alone and while a spectator floods and stalls its socket
        (or, with --reviews, while a burst of game reviews is asked for).

        Starts a private server on 127.0.0.1 with a temporary database; exits 1 when
        the attacked p99 is over 3x the baseline p99 + 50 ms or a move failed.
        """
        import json as _json

        from gemtable.measure.soak import run_soak, summary_ok
        from gemtable.server.limits import Limits

        limits = Limits() if rate_limit else Limits(ws_rate=1e6, ws_burst=10**6)
        if reviews > 0:  # the finished games are made from one address, at once
            limits.create_burst = max(limits.create_burst, min(reviews, 200) + 2)
        rows = run_soak(seconds=min(max(seconds, 1.0), 120.0), game=game, flood=max(0, min(flood, 100_000)),
                        limits=limits, reviews=max(0, min(reviews, 200)))
        ok = summary_ok(rows)
        if as_json:
            typer.echo(_json.dumps({"phases": rows, "ok": ok}, indent=2))
        else:
            for line in format_soak(rows, ok):
                typer.echo(line)
        raise typer.Exit(0 if ok else 1)

    @app.command()
    def pageload(
        url: str = typer.Option(None, help="measure an existing server (default: one started here on a free "
                                           "port with a temporary SQLite database)"),
        runs: int = typer.Option(5, help="visits of each page, cold and warm (the median is reported)"),
        as_json: bool = typer.Option(False, "--json", help="print JSON"),
    ) -> None:
        """Time to a drawn page and bytes sent, for the lobby and a table, in chromium (Playwright).

        Each page is visited with a cold cache (a fresh browser profile) and warm (the same profile
        again). Reports when the page was drawn after navigation started (a table: its board's
        first SVG; the lobby: the first row of its table list) and the bytes that came over the
        network (compressed bodies count compressed; the cache's answers count nothing). Needs
        Playwright and chromium (GEMTABLE_CHROMIUM, default /usr/bin/chromium).
        """
        import json as _json

        from gemtable.measure.pageload import format_report, run

        report = run(url, max(1, min(runs, 50)))
        if as_json:
            typer.echo(_json.dumps(report, indent=2))
        else:
            for line in format_report(report, language()):
                typer.echo(line)

    @app.command()
    def loadtest(
        tables: int = typer.Option(10, help="tables played at once (at most 2000)"),
        seconds: float = typer.Option(60.0, help="seconds measured, after the warm-up (at most 600)"),
        think: float = typer.Option(1.0, help="seconds a player waits before each move (x a random 0.5-1.5)"),
        game: str = typer.Option("splendor", help="the game played"),
        players: int = typer.Option(2, help="seats per table (all scripted people)"),
        workers: int = typer.Option(1, help="independent `gemtable serve` processes started on free ports, "
                                            "sharing --db; a table's seats sit on different workers"),
        db: str = typer.Option(None, help="database for the private servers: a URL, or 'postgres-temp' "
                                          "(a throw-away PostgreSQL cluster); default: a temporary SQLite file"),
        url: list[str] = typer.Option(None, help="load an existing server instead (repeat for several workers); "
                                                 "its own rate limits apply"),
        pid: list[int] = typer.Option(None, help="with --url: server process ids whose CPU and memory to report"),
        warmup: float = typer.Option(None, help="seconds of warm-up left out of the figures "
                                                "(default: a fifth of --seconds, at most 10)"),
        seed: int = typer.Option(1, help="seed of the players' choices"),
        compression: bool = typer.Option(True, help="offer permessage-deflate like browsers do"),
        placement: str = typer.Option("split", help="with several workers, where a table's seats connect: "
                                                    "'split' (on different workers: every move reaches both, "
                                                    "the worst case), 'random' (as a load balancer would) or "
                                                    "'table' (as a balancer hashing the table's path)"),
        profile: str = typer.Option(None, help="a folder: py-spy samples every worker during the measured "
                                               "phase (folded stacks there) and the report says where the "
                                               "server's CPU went (needs py-spy, in the dev extra)"),
        spectators: int = typer.Option(0, help="spectator sockets per table in a third phase after the "
                                               "measured one: their update latency and the server CPU one "
                                               "spectator costs per move"),
        as_json: bool = typer.Option(False, "--json", help="print JSON"),
    ) -> None:
        """Load a table server with many tables of scripted players over WebSocket.

        Reports, for the warm-up and the measured phase, actions per second, the
        latency from sending an action to the acting seat's and the other seats'
        WebSocket update (p50/p95/p99/max), errors, server CPU and memory and the
        driver's own CPU. Private servers run on 127.0.0.1 with the per-address
        rate limits lifted. Exits 1 when any error happened or no action was answered.
        """
        import json as _json

        from gemtable.core import GemtableError
        from gemtable.measure.loadtest import SetupError, format_report, measured_phase, run_loadtest

        try:
            report = run_loadtest(tables=tables, seconds=seconds, think=think, game=game, players=players,
                                  workers=workers, db=db, urls=url or None, warmup=warmup, seed=seed,
                                  compression=compression, pids=pid or None, placement=placement,
                                  profile=profile, spectators=spectators)
        except ValueError as exc:
            raise typer.BadParameter(say(exc) if isinstance(exc, GemtableError) else str(exc)) from None
        except (SetupError, RuntimeError) as exc:
            typer.echo(f"{say(msg('error:'))} {exc}", err=True)
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(_json.dumps(report, indent=2))
        else:
            for line in format_report(report, language()):
                typer.echo(line)
        ok = report["errors"] == 0 and measured_phase(report)["actions_acked"] > 0
        raise typer.Exit(0 if ok else 1)


SOAK_PHASES = {
    "alone": msgp("soak phase", "alone"),
    "flooding stalled spectator": msgp("soak phase", "flooding stalled spectator"),
    "review burst": msgp("soak phase", "review burst"),
}
"""The names of `gemtable soak`'s phases (:func:`gemtable.measure.soak.run_soak`) as its report prints them."""


def format_soak(rows: list[dict], ok: bool) -> list[str]:
    """`gemtable soak`'s report as lines of text in this run's language."""
    phases = {name: say(text) for name, text in SOAK_PHASES.items()}
    width = max(28, *(len(name) for name in phases.values()))
    lines = []
    for r in rows:
        phase = phases.get(r["phase"], r["phase"])
        lines.append(f"{phase:>{width}}: " + say(msg(
            "{moves} moves, {failed} failed | REST answer p50 {rest50} ms p99 {rest99} ms max {restmax} ms | "
            "other seat's WebSocket p50 {ws50} ms p99 {ws99} ms max {wsmax} ms", moves=r["moves"],
            failed=r["failed"], rest50=r["rest_p50_ms"], rest99=r["rest_p99_ms"], restmax=r["rest_max_ms"],
            ws50=r["ws_p50_ms"], ws99=r["ws_p99_ms"], wsmax=r["ws_max_ms"])))
        if r.get("reviews_done") is not None:
            lines.append(f"{'':>{width}}  " + say(msg(
                "reviews: {stored} stored, {refused} requests refused (queue full) and asked again, {cpu} CPU s "
                "each (median)", stored=r["reviews_done"], refused=r["reviews_refused"],
                cpu=r["review_cpu_s_p50"])))
        if r["attacker_messages"]:
            lines.append(f"{'':>{width}}  " + say(msg("attacker: {messages} messages sent, connections: {closed}",
                                                      messages=r["attacker_messages"],
                                                      closed=str(r["attacker_closed"]))))
    lines.append(say(msg("latency unchanged under attack") if ok else msg("LATENCY CHANGED UNDER ATTACK")))
    return lines
