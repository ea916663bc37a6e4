"""`gemtable admin`: server administration from the command line."""

from __future__ import annotations

import typer

from gemtable.core.i18n import msg, msgn

from .lang import say


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
            typer.echo(say(msg("error: no account is called {name} in this database (a guest cannot be an "
                               "admin: it needs a password)", name=repr(name))), err=True)
            raise typer.Exit(1)
        typer.echo(say(msg("{name} is an admin.", name=granted)))

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
            typer.echo(say(msg("error: no player is called {name} in this database", name=repr(name))), err=True)
            raise typer.Exit(1)
        typer.echo(say(msgn("Ended {n} session of {name}.", "Ended {n} sessions of {name}.", n=ended, name=name)))


def open_db(db: str | None):
    """The server's database at ``db`` (default: SQLite in the user data directory); exits with an
    error when an SQLite file is not there (nothing is created)."""
    from pathlib import Path

    from gemtable.server.db import Database, default_db_url, normalize_url

    url = normalize_url(db or default_db_url())
    if url.startswith("sqlite:///") and not Path(url[len("sqlite:///"):]).exists():
        typer.echo(say(msg("error: there is no database at {path}", path=url[len("sqlite:///"):])), err=True)
        raise typer.Exit(1)
    return Database(url)
