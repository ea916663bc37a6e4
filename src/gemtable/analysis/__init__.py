"""Running many bot games and studying the results (simulate, tournaments, ladder).

Runs are reproducible: a game is fully described by its :class:`GameSpec` (seed
derived from the run's seed), so the rows are the same with any number of processes
and with the local or the Ray backend.
"""

from .runner import (
    BACKENDS,
    GameSpec,
    RunResult,
    derive_seed,
    play_game,
    public_rows,
    resolve_game,
    run_games,
)
from .schedule import (
    entrant_labels,
    lineups,
    seat_bots,
    simulate_specs,
    tournament_specs,
)
from .stats import clopper_pearson, describe, head_to_head, ratings, wilson
from .summary import simulate_summary, tournament_summary

__all__ = [
    "BACKENDS",
    "GameSpec",
    "RunResult",
    "clopper_pearson",
    "derive_seed",
    "describe",
    "entrant_labels",
    "head_to_head",
    "lineups",
    "play_game",
    "public_rows",
    "ratings",
    "resolve_game",
    "run_games",
    "seat_bots",
    "simulate_specs",
    "simulate_summary",
    "tournament_specs",
    "tournament_summary",
    "wilson",
]
