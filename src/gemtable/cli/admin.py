"""`gemtable admin`: server administration from the command line."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    admin = typer.Typer(help="Administer a web table's database (players' sessions, admins).", no_args_is_help=True)
    app.add_typer(admin, name="admin")

    @admin.command("grant")
    def grant(
        name: str = typer.Argument(..., help="the account's name (any case)"),
        db: str = typer.Option(None, help="database URL (sqlite:///path or postgresql://…); "
                                          "default: SQLite in the user data directory"),
    ) -> None:
        """Make the account NAME an admin of the site: it moderates from the admin page
        (reports, mutes, bans, hidden chat lines, closed tables).  The site's first admin is
        made here; admins can then grant others from the page."""
        from gemtable.server import moderation

        database = open_db(db)
        try:
            granted = moderation.grant(database, name)
        finally:
            database.dispose()
        if granted is None:
            typer.echo(f"error: no account is called {name!r} in this database (a guest cannot be an admin: "
                       "it needs a password)", err=True)
            raise typer.Exit(1)
        typer.echo(f"{granted} is an admin.")

    @admin.command("logout")
    def logout(
        name: str = typer.Argument(..., help="the player's name (any case)"),
        db: str = typer.Option(None, help="database URL (sqlite:///path or postgresql://…); "
                                          "default: SQLite in the user data directory"),
    ) -> None:
        """End every session of the player NAME: every browser logged in as NAME is logged out
        at once (on every worker).  A guest cannot come back; an account logs in again."""
        from gemtable.server.players import end_sessions

        database = open_db(db)
        try:
            ended = end_sessions(database, name)
        finally:
            database.dispose()
        if ended is None:
            typer.echo(f"error: no player is called {name!r} in this database", err=True)
            raise typer.Exit(1)
        typer.echo(f"Ended {ended} session{'' if ended == 1 else 's'} of {name}.")


def open_db(db: str | None):
    """The server's database at ``db`` (default: SQLite in the user data directory); exits with an
    error when an SQLite file is not there (nothing is created)."""
    from pathlib import Path

    from gemtable.server.db import Database, default_db_url, normalize_url

    url = normalize_url(db or default_db_url())
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists():
        typer.echo(f"error: there is no database at {url[len('sqlite:///'):]}", err=True)
        raise typer.Exit(1)
    return Database(url)
