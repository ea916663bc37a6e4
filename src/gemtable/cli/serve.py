"""`gemtable serve`: the web table."""

from __future__ import annotations

import typer


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
        behind_proxy: bool = typer.Option(False, help="trust X-Forwarded-For (only behind your own reverse "
                                                      "proxy: rate limits then count the real client addresses)"),
        log_level: str = typer.Option("info", help="uvicorn log level"),
    ) -> None:
        """Start the web table at http://HOST:PORT (lobby, play, replays, rules)."""
        import math

        import uvicorn

        from gemtable.server import create_app
        from gemtable.server.app import uvicorn_config
        from gemtable.server.db import default_db_url
        from gemtable.server.limits import Limits

        for name, value in (("--bot-seconds", bot_seconds), ("--expire-hours", expire_hours)):
            if not math.isfinite(value) or value <= 0:
                raise typer.BadParameter(f"{name} must be a positive number")
        limits = Limits(bot_seconds=bot_seconds, bot_iterations=max(1, bot_iterations),
                        expire_after=expire_hours * 3600.0)
        url = db or default_db_url()
        shown = url.split("@")[-1] if "@" in url else url
        typer.echo(f"gemtable table at http://{host}:{port}  (database: {shown})")
        app_ = create_app(url, bot_delay=bot_delay, limits=limits, bot_workers=bot_workers)
        uvicorn.Server(uvicorn_config(app_, host=host, port=port, log_level=log_level, limits=limits,
                                      behind_proxy=behind_proxy)).run()

    @app.command()
    def soak(
        seconds: float = typer.Option(10.0, help="seconds of play per phase (at most 120)"),
        game: str = typer.Option("splendor", help="the game played"),
        flood: int = typer.Option(3000, help="refresh messages the attacker sends before it stops reading"),
        rate_limit: bool = typer.Option(True, help="keep the per-connection message limit (--no-rate-limit: "
                                                   "only the slow-reader defence stands between the attacker and the table)"),
        as_json: bool = typer.Option(False, "--json", help="print JSON"),
    ) -> None:
        """Measure a table's move latency alone and while a spectator floods and stalls its socket.

        Starts a private server on 127.0.0.1 with a temporary database; exits 1 when
        the attacked p99 is over 3x the baseline p99 + 50 ms or a move failed.
        """
        import json as _json

        from gemtable.server.limits import Limits
        from gemtable.server.soak import run_soak, summary_ok

        limits = Limits() if rate_limit else Limits(ws_rate=1e6, ws_burst=10**6)
        rows = run_soak(seconds=min(max(seconds, 1.0), 120.0), game=game, flood=max(0, min(flood, 100_000)),
                        limits=limits)
        ok = summary_ok(rows)
        if as_json:
            typer.echo(_json.dumps({"phases": rows, "ok": ok}, indent=2))
        else:
            for r in rows:
                typer.echo(f"{r['phase']:>28}: {r['moves']} moves, {r['failed']} failed | REST answer "
                           f"p50 {r['rest_p50_ms']} ms p99 {r['rest_p99_ms']} ms max {r['rest_max_ms']} ms | "
                           f"other seat's WebSocket p50 {r['ws_p50_ms']} ms p99 {r['ws_p99_ms']} ms max {r['ws_max_ms']} ms")
                if r["attacker_messages"]:
                    typer.echo(f"{'':>28}  attacker: {r['attacker_messages']} messages sent, connections: "
                               f"{r['attacker_closed']}")
            typer.echo("latency unchanged under attack" if ok else "LATENCY CHANGED UNDER ATTACK")
        raise typer.Exit(0 if ok else 1)
