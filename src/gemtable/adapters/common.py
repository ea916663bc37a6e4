"""Helpers shared by the PettingZoo and OpenSpiel adapters (no third-party imports).

* the observation of a seat, public-only or private-only or with every seat's
  private information, built from the game's named ``ObservationLayout``;
* a game's text rendering as plain text.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np


def layout_of(game) -> Any:
    return game.observation_layout


def observation_size(game) -> int:
    layout = layout_of(game)
    if layout is not None:
        return layout.size
    return game.observation_size if game.observation is not None else 0


def observe(game, state, player: int, out: np.ndarray) -> np.ndarray:
    """The seat's numeric observation into ``out`` (float32)."""
    layout = layout_of(game)
    if layout is not None:
        return layout.fill(state, player, out)
    out[:] = game.observation(state, player)
    return out


def max_seats(game) -> int:
    return max(game.player_counts)


def all_players_size(game) -> int:
    """Size of the observation with every seat's private information: the seat's own
    observation, then for each other seat (relative order, padded) its private fields."""
    layout = layout_of(game)
    if layout is None:
        return observation_size(game)
    return layout.size + (max_seats(game) - 1) * layout.private_size


def all_players_observation(game, state, player: int, out: np.ndarray | None = None) -> np.ndarray:
    """``player``'s observation followed by the private fields of every other seat, each
    as that seat sees them itself (seats after ``player`` in turn order, absent ones zero)."""
    layout = layout_of(game)
    if out is None:
        out = np.zeros(all_players_size(game), np.float32)
    if layout is None:
        return observe(game, state, player, out)
    size = layout.size
    observe(game, state, player, out[:size])
    mask = layout.private_mask
    k_size = layout.private_size
    n = state.num_players
    tmp = np.empty(size, np.float32)
    out[size:] = 0.0
    for k in range(1, n):
        q = (player + k) % n
        layout.fill(state, q, tmp)
        at = size + (k - 1) * k_size
        out[at:at + k_size] = tmp[mask]
    return out


def public_observation(game, state, player: int, out: np.ndarray) -> np.ndarray:
    """``player``'s observation with every private field zeroed."""
    observe(game, state, player, out)
    layout = layout_of(game)
    if layout is not None and layout.private_size:
        out[layout.private_mask] = 0.0
    return out


def private_observation(game, state, player: int, out: np.ndarray) -> np.ndarray:
    """Only ``player``'s private fields (in layout order)."""
    layout = layout_of(game)
    tmp = np.empty(layout.size, np.float32)
    layout.fill(state, player, tmp)
    out[:] = tmp[layout.private_mask]
    return out


def render_text(state, player: int | None, width: int = 110) -> str:
    """The game's terminal rendering (its text renderer) as plain text."""
    from rich.console import Console

    view = state.view(player)
    view.setdefault("names", [f"Seat {i + 1}" for i in range(state.num_players)])
    render = state.game.render_text
    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False,
                      highlight=False, emoji=False)
    if render is not None:
        console.print(render(view, player))
    else:
        console.print(repr(view))
    return buf.getvalue()
