"""Mille Fiori (Reiner Knizia, Schmidt Spiele 2021): draft cards, place diamonds in six areas."""

from __future__ import annotations

from pathlib import Path

from gemtable.core import Game, Option
from gemtable.core.i18n import mark

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
from .rules import ACTIONS, GAME_ID, D, MilleFioriState
from .text import render_text
from .words import explain

GAME = Game(
    id=GAME_ID,
    title="Mille Fiori",
    player_counts=(2, 3, 4),
    state_class=MilleFioriState,
    actions=ACTIONS,
    options=(
        Option(
            "draft",
            "simultaneous",
            ("simultaneous", "tactical"),
            mark("simultaneous: everybody picks a card secretly, then cards are played in turn order; "
                 "tactical: each player picks a card only on their own turn"),
            label=mark("How cards are drafted"),
            choice_labels=(mark("Everybody picks at once, in secret"), mark("Each player picks on their own turn")),
        ),
    ),
    data_status="complete",
    owners=mark("Reiner Knizia; Schmidt Spiele (unofficial implementation)"),
    summary=mark("Draft cards and place diamonds in the workshops, houses, citizens' pyramids, "
                 "trade and harbor of Murano; sail the sea track; chain extra cards from the display."),
    data=D,
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
    # rollout_length: mcts playouts under rollout_policy (20 beat 4 and matched 40 against
    # greedy, see the bots README); puct_rollout: the learned search's playouts, shorter since
    # the model judges where they stop (8 beat 4, 12 and 20 against mcts at 0.1 s per move at
    # two players, and 20 at four; at three, 8 was within noise of 20 and 20 stays; see the
    # bots README, "Learned evaluation")
    extra={"conformance_seeds": 200, "deep_seeds": 2, "max_steps": 5000, "rollout_length": 20,
           "puct_rollout": {2: 8, 4: 8}},
)

__all__ = ["GAME", "MilleFioriState"]
