"""The bot ladder: a round robin between the named levels, rated with OpenSkill.

Players pick an opponent by level (``easy``, ``medium``… as ``gemtable.bots.LEVELS``
orders them), each level played by the game's own spec for it
(``gemtable.bots.game_levels``).  The ladder plays every pairing of levels (a tournament: seats
rotated, deals shared per rotation) and rates each level from all of its games with
the same OpenSkill model and parameters the server uses for players
(Plackett–Luce, defaults), so a level's rating reads on the scale players see for
themselves: ``mu - 3 sigma`` (the leaderboard's number).

OpenSkill updates game by game, so the order of the games matters; the ladder rates
them interleaved (game 1 of every pairing, then game 2 of every pairing…), so no
pairing is rated only at the start, when every sigma is still wide.

A game ships its ladder as ``levels.json`` in the game's package (package data,
found like the learned weights: :func:`gemtable.bots.learned.package_of`), written
by ``gemtable ladder GAME --install``; :func:`shipped_levels` reads and validates
it, :func:`current_ratings` gives only ratings whose levels are still played by the
same bots (a level whose bot changed makes the whole file stale: every rating was
measured against it).
"""

from __future__ import annotations

import functools
import json
import logging
import math
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from gemtable.core import i18n
from gemtable.core.i18n import msg

from . import stats
from .runner import GameSpec
from .schedule import entrant_labels, tournament_specs

FORMAT = 1
SHIPPED_NAME = "levels.json"
log = logging.getLogger(__name__)


# -- which levels ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    """One ladder entrant: a named level, possibly with overridden bot parameters."""

    label: str  # as given: "medium" or "medium:iterations=20"
    level: str  # the level's name
    spec: str  # the bot spec played: the level's spec with the overrides applied
    overrides: dict[str, Any] = field(default_factory=dict)


def levels() -> tuple[str, ...]:
    """The named levels, easiest first (the order of ``gemtable.bots.LEVELS``)."""
    from gemtable.bots import LEVELS

    return tuple(LEVELS)


def format_spec(name: str, params: dict[str, Any]) -> str:
    return name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


def parse_levels(text: str | None, game: Any = None) -> list[Entry]:
    """``"easy,medium:iterations=20,hard"`` → entries (default: every level, in order).

    Only names of ``gemtable.bots.LEVELS`` are accepted, each played by ``game``'s spec for
    it (``gemtable.bots.game_levels``; the default table without a game);
    ``level:name=value,…`` overrides that level's bot parameters (for quick runs; such
    entries are labelled as written).  The bots are built once here, so a bad parameter
    fails now.
    """
    from gemtable.bots import game_levels, make_bot, parse_spec, split_specs

    specs = game_levels(game)
    parts = split_specs(text) if text is not None else list(specs)
    known = ", ".join(specs)
    entries: list[Entry] = []
    for part in parts:
        name, params = parse_spec(part)
        if name not in specs:
            raise ValueError(f"unknown level {name!r}: the ladder plays the named levels ({known})")
        base, base_params = parse_spec(specs[name])
        spec = specs[name] if not params else format_spec(base, {**base_params, **params})
        label = name if not params else format_spec(name, params)
        if any(e.label == label for e in entries):
            raise ValueError(f"level {label!r} is given twice")
        make_bot(spec)
        entries.append(Entry(label, name, spec, dict(params)))
    if len(entries) < 2:
        raise ValueError(f"a ladder needs at least two levels (levels: {known})")
    return entries


def ladder_specs(game_ref: str, entries: Sequence[Entry], games_per_pairing: int, players: int = 2,
                 seed: int = 0) -> list[GameSpec]:
    """The tournament between the entries (their bot specs), labelled by entry."""
    bots = [e.spec for e in entries]
    by_label = dict(zip(entrant_labels(bots), (e.label for e in entries)))
    specs = tournament_specs(game_ref, bots, games_per_pairing, players, seed)
    return [replace(s, labels=tuple(by_label[x] for x in s.labels)) for s in specs]


# -- rating the results -----------------------------------------------------------------------
def interleaved(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows in rating order: game j of every pairing before game j + 1 of any."""
    position: dict[Any, int] = {}
    keyed = []
    for r in sorted(rows, key=lambda r: r["index"]):
        k = r.get("pairing", 0)
        j = position.get(k, 0)
        position[k] = j + 1
        keyed.append(((j, k), r))
    keyed.sort(key=lambda item: item[0])
    return [r for _, r in keyed]


def ladder_summary(rows: Sequence[dict[str, Any]], entries: Sequence[Entry],
                   timing: dict[str, list[float]] | None = None) -> dict[str, Any]:
    """Per entry (in ladder order): spec, OpenSkill mu/sigma/rating, games, win rate with
    its Wilson interval overall and against each other entry."""
    rated = stats.ratings(interleaved(rows))
    overall = {e["bot"]: e for e in stats.entrant_stats(rows)}
    h2h = stats.head_to_head(rows)
    out = []
    for e in entries:
        r = rated.get(e.label)
        o = overall.get(e.label)
        if r is None or o is None:
            raise ValueError(f"level {e.label!r} played no game")
        t = (timing or {}).get(e.label)
        out.append({
            "label": e.label, "level": e.level, "spec": e.spec, "overrides": e.overrides,
            "mu": r["mu"], "sigma": r["sigma"], "rating": r["ordinal"],
            "games": o["games"], "wins": o["wins"], "rate": o["rate"],
            "wilson_low": o["wilson_low"], "wilson_high": o["wilson_high"],
            "vs": {b: dict(c) for b, c in h2h.get(e.label, {}).items()},
            "seconds_per_move": (t[0] / t[1]) if t and t[1] else 0.0,
        })
    return {"kind": "ladder", "games": len(rows), "levels": out, "length": stats.length_stats(rows)}


def _pct(c: dict[str, Any]) -> str:
    return f"{100 * c['rate']:.1f}% ({100 * c['wilson_low']:.0f}–{100 * c['wilson_high']:.0f})"


def ladder_table(summary: dict[str, Any], title: str = "", lang: str = i18n.SOURCE) -> Any:
    """The ladder as a Rich table (levels in ladder order), its words in ``lang``."""
    from rich.table import Table

    def say(message) -> str:
        return i18n.render(message, lang)

    entries = summary["levels"]
    t = Table(title=title or say(msg("ladder: {games} games", games=summary["games"])))
    t.add_column(say(msg("level")))
    t.add_column(say(msg("bot")), overflow="fold")
    for col in ("μ ± σ", say(msg("rating")), say(msg("games")), say(msg("win % (95% CI)"))):
        t.add_column(col, justify="right")
    for e in entries:
        t.add_column(say(msg("vs {level}", level=e["label"])), justify="right")
    for e in entries:
        cells = []
        for other in entries:
            c = e["vs"].get(other["label"])
            cells.append("—" if c is None else _pct(c))
        t.add_row(e["label"], e["spec"], f"{e['mu']:.1f} ± {e['sigma']:.1f}", f"{e['rating']:.1f}",
                  str(e["games"]), _pct(e), *cells)
    return t


# -- the shipped file -----------------------------------------------------------------------
def levels_path(game: Any) -> Any:
    """Where a game ships its ladder: ``levels.json`` in the game's package."""
    from gemtable.bots.learned import package_of

    return resources.files(package_of(game)).joinpath(SHIPPED_NAME)


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
            f"{cpu}, {os.cpu_count()} cores")


def shipped_record(game: Any, summary: dict[str, Any], *, command: str, seed: int, games_per_pairing: int,
                   players: int, date: str, seconds: float, jobs: int, resumed: int = 0) -> dict[str, Any]:
    """The content of ``levels.json`` for a finished ladder (levels played as players get them);
    ``resumed``: games a journal held, played before the ``seconds`` this run took."""
    overridden = [e["label"] for e in summary["levels"] if e["overrides"]]
    if overridden:
        raise ValueError(f"only levels as players meet them can be installed, not {', '.join(overridden)}")
    return {
        "format": FORMAT,
        "game": game.id,
        "rating": "OpenSkill Plackett-Luce (default parameters, as the server rates players); rating = mu - 3 sigma",
        "levels": {e["level"]: _with_weights({"spec": e["spec"], "mu": round(e["mu"], 3),
                                              "sigma": round(e["sigma"], 3), "rating": round(e["rating"], 3),
                                              "games": e["games"]}, game, players)
                   for e in summary["levels"]},
        "command": command,
        "seed": seed,
        "games_per_pairing": games_per_pairing,
        "players": players,
        "date": date,
        "seconds": round(seconds, 1),
        "jobs": jobs,
        "machine": machine(),
        **({"resumed_games": resumed} if resumed else {}),
    }


def weights_of(spec: str, game: Any, players: int) -> str | None:
    """The fingerprint of the learned weights the bot ``spec`` plays ``game`` with at tables of
    ``players`` (None for a bot that reads none)."""
    from gemtable.bots import make_bot

    return make_bot(spec).weights_fingerprint(game, players)


def _with_weights(entry: dict[str, Any], game: Any, players: int) -> dict[str, Any]:
    fingerprint = weights_of(entry["spec"], game, players)
    if fingerprint is not None:
        entry["weights"] = fingerprint
    return entry


def install(game: Any, record: dict[str, Any]) -> Path:
    """Write ``record`` as the game's shipped ladder (checked first; atomic replace)."""
    problem = check_record(game.id, record)
    if problem:
        raise ValueError(f"not a valid ladder record: {problem}")
    target = Path(str(levels_path(game)))
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return target


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _count(value: Any, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def check_record(game_id: str, data: Any) -> str | None:
    """What is wrong with a ladder record for the game ``game_id``, or None when it is sound."""
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("format") != FORMAT:
        return f"format {data.get('format')!r} (expected {FORMAT})"
    if data.get("game") != game_id:
        return f"made for game {data.get('game')!r}, not {game_id!r}"
    lvls = data.get("levels")
    if not isinstance(lvls, dict) or not lvls:
        return "no levels"
    for name, entry in lvls.items():
        if not isinstance(entry, dict):
            return f"level {name!r} is not an object"
        if not isinstance(entry.get("spec"), str) or not entry["spec"]:
            return f"level {name!r} has no bot spec"
        if not all(_number(entry.get(k)) for k in ("mu", "sigma", "rating")):
            return f"level {name!r} needs finite numbers mu, sigma and rating"
        if entry["sigma"] <= 0:
            return f"level {name!r} has sigma {entry['sigma']!r} (must be positive)"
        if abs(entry["rating"] - (entry["mu"] - 3 * entry["sigma"])) > 0.01:
            return f"level {name!r}: rating {entry['rating']!r} is not mu - 3 sigma"
        if not _count(entry.get("games"), 1):
            return f"level {name!r} needs a positive number of games"
        if "weights" in entry and not (isinstance(entry["weights"], str) and entry["weights"]):
            return f"level {name!r}: weights must be a fingerprint (text)"
    for key in ("seed", "games_per_pairing", "players"):
        if not _count(data.get(key), 0 if key == "seed" else 1):
            return f"{key} must be a whole number"
    for key in ("command", "date", "machine"):
        if not isinstance(data.get(key), str):
            return f"{key} must be text"
    return None


@functools.lru_cache(maxsize=64)
def _read(game_id: str, path: str, stamp: tuple[int, int, int]) -> dict[str, Any] | None:
    """A validated file; cached per file version, so a bad file is reported once."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        log.warning("%s: shipped %s not used: unreadable (%s)", game_id, SHIPPED_NAME, exc)
        return None
    problem = check_record(game_id, data)
    if problem:
        log.warning("%s: shipped %s not used: %s", game_id, SHIPPED_NAME, problem)
        return None
    return data


def shipped_levels(game: Any) -> dict[str, Any] | None:
    """The game's shipped ladder (validated), or None when it ships none or a malformed one
    (logged as a warning)."""
    ref = levels_path(game)
    try:
        if not ref.is_file():
            return None
        path = Path(str(ref))
        st = path.stat()
    except OSError:
        return None
    data = _read(game.id, str(path), (st.st_ino, st.st_mtime_ns, st.st_size))
    return None if data is None else json.loads(json.dumps(data))  # a copy the caller may change


def _recorded_game(data: dict[str, Any]) -> Any:
    """The game a ladder record names, when it is a registered one (else None)."""
    from gemtable.core.registry import all_games

    return all_games().get(data.get("game"))


def stale_levels(data: dict[str, Any], game: Any = None) -> list[str]:
    """Recorded levels whose bot is no longer the level's bot in the game (or that no longer
    exist); with ``game``, also those recorded with learned weights (``"weights"``, a
    fingerprint) that the level's bot no longer plays with at the ladder's table size.
    Without ``game`` the levels' bots are those of the game the record names."""
    from gemtable.bots import game_levels, parse_spec

    specs = game_levels(game if game is not None else _recorded_game(data))
    stale = []
    for name, entry in data["levels"].items():
        if name not in specs or parse_spec(specs[name]) != parse_spec(entry["spec"]):
            stale.append(name)
        elif game is not None and "weights" in entry and \
                weights_of(specs[name], game, data["players"]) != entry["weights"]:
            stale.append(name)
    return stale


_WARNED: set[tuple[str, tuple[str, ...]]] = set()


def current_ratings(game: Any) -> dict[str, dict[str, Any]] | None:
    """The shipped ratings of the levels, easiest first: ``{level: {rating, mu, sigma, games}}``.

    None when the game ships no ladder or its ladder is stale (a recorded level's bot
    changed since: the ratings were all measured against it).  A level added since the
    ladder simply has no rating.
    """
    data = shipped_levels(game)
    if data is None:
        return None
    stale = stale_levels(data, game)
    if stale:
        if (game.id, tuple(stale)) not in _WARNED:
            _WARNED.add((game.id, tuple(stale)))
            log.warning("%s: shipped %s not used: level %s changed since the ladder was run",
                        game.id, SHIPPED_NAME, ", ".join(stale))
        return None
    recorded = data["levels"]
    return {name: {k: recorded[name][k] for k in ("rating", "mu", "sigma", "games")}
            for name in levels() if name in recorded}
