"""The server's routes, one FastAPI router per area; ``create_app`` (app.py) assembles them.

- ``games``: installed games, their how-to-play and sample views, bot levels, health;
- ``tables``: creating and listing tables, a seat's state, REST actions, replays, rematch;
- ``live``: the table WebSocket (docs/websocket.md);
- ``lobby``: joining, leaving, removing, starting, invites, "my games";
- ``players``: names, accounts, sessions;
- ``ratings``: leaderboards and profiles;
- ``pages``: the web shell's pages and static files.

What a route needs (the table manager, the players' identity, a seat from its token) comes
through ``Depends`` (deps.py).
"""
