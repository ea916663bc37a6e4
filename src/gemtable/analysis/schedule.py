"""Which games to play: self-play runs (``simulate``) and tournaments."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any

from .runner import GameSpec, derive_seed, resolve_game


def seat_bots(specs: Sequence[str], players: int) -> tuple[str, ...]:
    """The bot of every seat: the specs in seat order, cycled when there are fewer."""
    specs = list(specs)
    if not specs:
        raise ValueError("give at least one bot")
    if len(specs) > players:
        raise ValueError(f"{len(specs)} bots for {players} seats: give at most one bot per seat")
    return tuple(specs[s % len(specs)] for s in range(players))


def check_run(game_ref: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    """Validate the player count and options now (clear errors before any worker starts)."""
    game = resolve_game(game_ref)
    game.check_players(players)
    return game.resolve_options(options)


def simulate_specs(
    game_ref: str, games: int, bots: Sequence[str], players: int, seed: int = 0,
    options: dict[str, Any] | None = None,
) -> list[GameSpec]:
    """``games`` self-play games; game i has seed derive_seed(seed, i)."""
    opts = tuple(sorted((options or {}).items()))
    check_run(game_ref, players, dict(opts))
    lineup = seat_bots(bots, players)
    return [GameSpec(i, game_ref, lineup, derive_seed(seed, i), opts) for i in range(games)]


def entrant_labels(specs: Sequence[str]) -> list[str]:
    """Labels for the entrants; a spec given twice gets ``#2``, ``#3``…"""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def lineups(count: int, players: int) -> list[tuple[int, ...]]:
    """Entrant index lineups: every set of ``players`` different entrants, or, with
    fewer entrants than seats, every multiset holding at least two different ones."""
    if count < 2:
        raise ValueError("a tournament needs at least two bots")
    if count >= players:
        return list(combinations(range(count), players))
    return [c for c in combinations_with_replacement(range(count), players) if len(set(c)) > 1]


def tournament_specs(
    game_ref: str, bots: Sequence[str], games_per_pairing: int, players: int = 2, seed: int = 0,
    options: dict[str, Any] | None = None,
) -> list[GameSpec]:
    """Round robin over the lineups with seat rotation.

    Game j of a lineup seats entrant ``lineup[(s + j) % players]`` in seat s, and the
    ``players`` games of one rotation cycle share a deal (seed), so every entrant
    plays each deal from each seat (variance reduction, fair first-player share).
    """
    opts = tuple(sorted((options or {}).items()))
    check_run(game_ref, players, dict(opts))
    labels = entrant_labels(bots)
    out: list[GameSpec] = []
    for k, lineup in enumerate(lineups(len(bots), players)):
        for j in range(games_per_pairing):
            rot = j % players
            seats = [lineup[(s + rot) % players] for s in range(players)]
            out.append(GameSpec(
                index=len(out),
                game=game_ref,
                bots=tuple(bots[e] for e in seats),
                labels=tuple(labels[e] for e in seats),
                seed=derive_seed(seed, k, j // players),
                options=opts,
                extra=(("pairing", k), ("rotation", rot)),
            ))
    return out
