"""Figures and tables for docs/research.md, computed from the code.

``python -m gemtable.adapters.research layouts`` prints every game's observation
layout (the docs embed this output; a test checks they match).
``python -m gemtable.adapters.research actions [--games N]`` plays uniformly random
games and prints the action-space size, mean legal actions per decision and the
share of forced decisions (exactly one legal action) per game and player count.
"""

from __future__ import annotations

import argparse
import statistics

from gemtable.core import Rng
from gemtable.core.registry import all_games


def layout_section(game) -> str:
    """The layout as a Markdown table; seat blocks after the observer's (``seat0.*``) have
    the same fields and are summarised in one line each."""
    layout = game.observation_layout
    private = layout.private_size
    head = (f"### {game.title} (`{game.id}`): {layout.size} numbers, "
            f"{private} of them private\n\n")
    lines = layout.describe().splitlines()
    out = lines[:2]
    seats: dict[str, list] = {}
    for f, line in zip(layout.fields, lines[2:]):
        prefix = f.name.split(".", 1)[0]
        if prefix.startswith("seat") and prefix != "seat0" and "." in f.name:
            seats.setdefault(prefix, []).append(f)
            continue
        out.append(line)
    for prefix, fields in seats.items():
        out.append(f"| {fields[0].start}–{fields[-1].stop - 1} | `{prefix}.*` | "
                   f"{fields[-1].stop - fields[0].start} | | "
                   f"{'private' if any(f.private for f in fields) else 'public'} | "
                   f"the same fields as `seat0.*` for the seat {prefix[4:]} place(s) after the observer "
                   f"in turn order (zero when absent) |")
    return head + "\n".join(out) + "\n"


def layouts_markdown() -> str:
    return "\n".join(layout_section(all_games()[gid]) for gid in sorted(all_games()))


def action_stats(game, n: int, games: int, seed: int = 0) -> dict:
    """Random self-play statistics of the decisions (every seat to move decides)."""
    decisions = forced = legal_total = 0
    lengths = []
    for g in range(games):
        s = game.new(n, seed + g)
        rng = Rng(seed + g)
        steps = 0
        while not s.is_over():
            movers = s.to_move()
            p = movers[rng.below(len(movers))]
            acts = s.legal_actions(p)
            decisions += 1
            legal_total += len(acts)
            forced += len(acts) == 1
            s.step(p, acts[rng.below(len(acts))])
            steps += 1
        lengths.append(steps)
    return {
        "game": game.id,
        "players": n,
        "actions": len(game.actions),
        "mean_legal": legal_total / decisions,
        "forced_share": forced / decisions,
        "decisions_per_game": statistics.mean(lengths),
    }


def actions_markdown(games: int = 200) -> str:
    lines = ["| game | players | action space | mean legal actions | forced decisions | decisions per game |",
             "|---|---|---|---|---|---|"]
    for gid in sorted(all_games()):
        game = all_games()[gid]
        for n in game.player_counts:
            r = action_stats(game, n, games)
            lines.append(f"| {gid} | {n} | {r['actions']} | {r['mean_legal']:.1f} | "
                         f"{100 * r['forced_share']:.1f}% | {r['decisions_per_game']:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gemtable.adapters.research")
    parser.add_argument("what", choices=("layouts", "actions"))
    parser.add_argument("--games", type=int, default=200, help="random games per configuration")
    args = parser.parse_args(argv)
    print(layouts_markdown() if args.what == "layouts" else actions_markdown(args.games))


if __name__ == "__main__":  # pragma: no cover
    main()
