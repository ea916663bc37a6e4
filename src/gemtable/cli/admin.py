"""`gemtable admin`: server administration from the command line."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    admin = typer.Typer(help="Administer a web table's database (players' sessions).", no_args_is_help=True)
    app.add_typer(admin, name="admin")

    @admin.command("logout")
    def logout(
        name: str = typer.Argument(..., help="the player's name (any case)"),
        db: str = typer.Option(None, help="database URL (sqlite:///path or postgresql://…); "
                                          "default: SQLite in the user data directory"),
    ) -> None:
        """End every session of the player NAME: every browser logged in as NAME is logged out
        at once (on every worker).  A guest cannot come back; an account logs in again."""
        from pathlib import Path

        from gemtable.server.db import Database, default_db_url, normalize_url
        from gemtable.server.players import end_sessions

        url = normalize_url(db or default_db_url())
        if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists():
            typer.echo(f"error: there is no database at {url[len('sqlite:///'):]}", err=True)
            raise typer.Exit(1)
        database = Database(url)
        try:
            ended = end_sessions(database, name)
        finally:
            database.dispose()
        if ended is None:
            typer.echo(f"error: no player is called {name!r} in this database", err=True)
            raise typer.Exit(1)
        typer.echo(f"Ended {ended} session{'' if ended == 1 else 's'} of {name}.")
