"""The web table server: FastAPI app, persistence, WebSocket hub, server-side bots."""

from .app import create_app

__all__ = ["create_app"]
