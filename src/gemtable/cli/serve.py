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
        log_level: str = typer.Option("info", help="uvicorn log level"),
    ) -> None:
        """Start the web table at http://HOST:PORT (lobby, play, replays, rules)."""
        import uvicorn

        from gemtable.server import create_app
        from gemtable.server.db import default_db_url

        url = db or default_db_url()
        shown = url.split("@")[-1] if "@" in url else url
        typer.echo(f"gemtable table at http://{host}:{port}  (database: {shown})")
        uvicorn.run(create_app(url, bot_delay=bot_delay), host=host, port=port, log_level=log_level)
