"""River Valley Glassworks (2–5 players): gather glass from the river and the lake."""

from __future__ import annotations

from pathlib import Path

from gemtable.core import Game, Option
from gemtable.core.i18n import mark

from .data import DATA
from .features import LAYOUT as OBSERVATION_LAYOUT
from .features import SIZE as OBSERVATION_SIZE
from .features import observation
from .heuristics import (
    VALUE_FEATURE_NAMES,
    heuristic,
    rollout_policy,
    value_features,
    value_features_all,
)
from .rules import ACTIONS, GAME_ID, GlassworksState
from .text import render_text
from .words import explain

GAME = Game(
    id=GAME_ID,
    title="River Valley Glassworks",
    player_counts=(2, 3, 4, 5),
    state_class=GlassworksState,
    actions=ACTIONS,
    options=(
        Option(
            "overflow_counts_toward_end",
            True,
            (True, False),
            mark("Pieces put in overflow raise the inventory count that triggers the end (true, as in "
                 "the rules summary we follow); false: only glassworks pieces count (the publisher's "
                 "later rulebook)."),
            label=mark("Pieces put in overflow count toward the end of the game"),
            choice_labels=(mark("Yes: overflow pieces count too"), mark("No: only glassworks pieces count")),
        ),
        Option(
            "pair_on_own_tile",
            False,
            (False, True),
            mark("Two pieces of one shape placed as one count as a piece of any other shape (false, as "
                 "in the rules summary we follow); true: the pair may also go on the tile of its own "
                 "shape (as the later online rules help allows)."),
            label=mark("A pair placed as one may go on the tile of its own shape"),
            choice_labels=(mark("No: only on another shape's tile"), mark("Yes: on any tile")),
        ),
    ),
    data_status="reconstructed" if DATA.reconstructed else "complete",
    owners=mark("River Valley Glassworks is designed by Ben Pinchback, Matt Riddle and Adam Hill and "
                "published by Allplay."),
    summary=mark("Place glass in the river and gather the tile beside it, or draw from the lake; build "
                 "colour columns and full rows in your glassworks, and avoid overflow."),
    data=DATA,
    rules_path=str(Path(__file__).with_name("RULES.md")),
    play_path=str(Path(__file__).with_name("PLAY.md")),
    heuristic=heuristic,
    rollout_policy=rollout_policy,
    value_features=value_features,
    value_feature_names=VALUE_FEATURE_NAMES,
    explain=explain,
    value_features_all=value_features_all,
    render_text=render_text,
    observation=observation,
    observation_size=OBSERVATION_SIZE,
    observation_layout=OBSERVATION_LAYOUT,
    # rollout_length: mcts playouts under rollout_policy (8 decisions won at least as often
    # against greedy as 4, 12 or 20, and cost less than 20; see the bots README).
    # levels: here more mcts iterations do not beat medium's 200, so hard is the learned
    # search at 300 iterations, and expert the same search at ten times that budget (at
    # 1,000 it did not beat hard; measured: the README's level ratings, levels.json)
    extra={"conformance_seeds": 300, "deep_seeds": 2, "max_steps": 5_000, "rollout_length": 8,
           "levels": {"hard": "puct:iterations=300", "expert": "puct:iterations=3000"}},
)

__all__ = ["GAME"]
